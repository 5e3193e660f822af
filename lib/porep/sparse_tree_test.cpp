#include "porep/sparse_tree.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace c2lab::porep {
namespace {

// A toy hash (FNV-1a over the children, spread over 32 bytes): enough to tell trees apart.
domain toy_hash(std::span<const domain> children) {
    uint64_t h = 1469598103934665603ULL;
    for (const auto& c : children)
        for (uint8_t b : c) h = (h ^ b) * 1099511628211ULL;
    domain out{};
    for (int i = 0; i < 32; ++i) {
        h = (h ^ static_cast<uint64_t>(i)) * 1099511628211ULL;
        out[i] = static_cast<uint8_t>(h >> 56);
    }
    return out;
}

domain filler_leaf(uint64_t index) {
    domain d{};
    for (int i = 0; i < 8; ++i) d[i] = static_cast<uint8_t>(index >> (8 * i));
    d[31] = 0x11;
    return d;
}

// The dense reference: every node computed from the leaves.
struct dense_tree {
    std::vector<uint32_t> arities;
    std::vector<std::vector<domain>> levels;
    dense_tree(std::vector<uint32_t> a, const std::vector<domain>& leaves) : arities(std::move(a)) {
        levels.push_back(leaves);
        for (uint32_t ar : arities) {
            const auto& below = levels.back();
            std::vector<domain> up(below.size() / ar);
            for (size_t i = 0; i < up.size(); ++i) up[i] = toy_hash(std::span(below).subspan(i * ar, ar));
            levels.push_back(std::move(up));
        }
    }
};

domain root_from_path(domain leaf, const std::vector<path_element>& path, const std::vector<uint32_t>& arities) {
    domain cur = leaf;
    for (size_t l = 0; l < path.size(); ++l) {
        std::vector<domain> children;
        size_t k = 0;
        for (uint32_t j = 0; j < arities[l]; ++j) children.push_back(j == path[l].index ? cur : path[l].hashes[k++]);
        cur = toy_hash(children);
    }
    return cur;
}

void check_shape(std::vector<uint32_t> arities, size_t base_levels, size_t sub_levels) {
    uint64_t n = 1;
    for (uint32_t a : arities) n *= a;
    rng g(n);
    std::vector<domain> leaves(n);
    for (uint64_t i = 0; i < n; ++i) leaves[i] = filler_leaf(i);
    std::vector<uint64_t> known = {0, n - 1, g.below(n), g.below(n)};
    for (uint64_t i : known) {
        domain d{};
        for (auto& b : d) b = static_cast<uint8_t>(g());
        leaves[i] = d;
    }
    dense_tree dense(arities, leaves);
    // Fill: leaves as the dense tree's, internal nodes from the dense tree too, so that the
    // sparse and dense roots agree exactly when the sparse tree hashes where it must.
    sparse_tree t(
        arities, toy_hash, [&](uint32_t level, uint64_t index) { return dense.levels[level][index]; });
    for (uint64_t i : known) t.set_leaf(i, leaves[i]);
    EXPECT_EQ(t.root(), dense.levels.back()[0]);
    for (uint64_t i : known) {
        merkle_proof p = t.proof(i, base_levels, sub_levels);
        EXPECT_EQ(p.leaf, leaves[i]);
        EXPECT_EQ(p.root, dense.levels.back()[0]);
        EXPECT_EQ(p.base_path.size(), base_levels);
        EXPECT_EQ(p.sub_path.size(), sub_levels);
        EXPECT_EQ(p.base_path.size() + p.sub_path.size() + p.top_path.size(), arities.size());
        std::vector<path_element> all = p.base_path;
        all.insert(all.end(), p.sub_path.begin(), p.sub_path.end());
        all.insert(all.end(), p.top_path.begin(), p.top_path.end());
        EXPECT_EQ(root_from_path(p.leaf, all, arities), p.root);
    }
}

TEST(sparse_tree, matches_dense_binary) { check_shape({2, 2, 2, 2, 2, 2}, 6, 0); }
TEST(sparse_tree, matches_dense_oct) { check_shape({8, 8}, 2, 0); }
TEST(sparse_tree, matches_dense_compound_8_8_0) { check_shape({8, 8, 8}, 2, 1); }
TEST(sparse_tree, matches_dense_compound_8_8_2) { check_shape({8, 8, 8, 2}, 2, 1); }

TEST(sparse_tree, unknown_subtrees_are_filled_not_hashed) {
    int hashes = 0;
    sparse_tree t({2, 2, 2}, [&](std::span<const domain> c) { ++hashes; return toy_hash(c); },
                  [](uint32_t level, uint64_t index) { domain d{}; d[0] = static_cast<uint8_t>(level); d[1] = static_cast<uint8_t>(index); return d; });
    t.set_leaf(5, filler_leaf(99));
    (void)t.root();
    EXPECT_EQ(hashes, 3);  // one per level on the path of leaf 5
    // A changed leaf changes the root; the cache is dropped.
    domain r1 = t.root();
    t.set_leaf(5, filler_leaf(98));
    EXPECT_NE(t.root(), r1);
}

TEST(sparse_tree, refuses_out_of_range) {
    sparse_tree t({2, 2}, toy_hash, [](uint32_t, uint64_t) { return domain{}; });
    EXPECT_THROW(t.set_leaf(4, domain{}), error);
    EXPECT_THROW(t.path(4), error);
    EXPECT_THROW(t.proof(0, 2, 1), error);
}

}  // namespace
}  // namespace c2lab::porep

// sparse_tree: a Merkle tree of which only a few leaves are known. Every other node is a
// pseudo-random value given by a fill function of (level, index), fixed by the dataset seed,
// and a node above a known leaf is the hash of its children. So a sector's trees can be
// committed to and opened at any challenged leaf without storing the sector: the cost is
// the challenged paths, not the tree (DESIGN.md, Datasets).
//
// Levels may have different arities (compound trees: base levels of 8, then a sub level of
// 8 and a top level of 2); level 0 holds the leaves. The hash function receives the children
// of one node, so its arity is the span's size.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "porep/vanilla_proof.hpp"

namespace c2lab::porep {

class sparse_tree {
public:
    using hash_fn = std::function<domain(std::span<const domain>)>;
    using fill_fn = std::function<domain(uint32_t level, uint64_t index)>;

    // arities: one per level above the leaves, from the bottom; each >= 2.
    sparse_tree(std::vector<uint32_t> arities, hash_fn hash, fill_fn fill);

    uint64_t num_leaves() const noexcept { return width_.front(); }
    size_t height() const noexcept { return arities_.size(); }

    // Makes leaf i known (before or after reading nodes: the cache is dropped).
    void set_leaf(uint64_t i, const domain& value);
    bool is_set(uint64_t i) const { return leaves_.count(i) != 0; }

    // The value of a node; level 0 is the leaves, level height() the root.
    domain node(uint32_t level, uint64_t index);
    domain leaf(uint64_t i) { return node(0, i); }
    domain root() { return node(static_cast<uint32_t>(height()), 0); }

    // The inclusion path of leaf i: per level, the siblings in order and the position.
    std::vector<path_element> path(uint64_t i);

    // A merkle_proof of leaf i with the path split into base, sub and top parts: the first
    // base_levels levels, then sub_levels, then the rest (rust-fil-proofs' compound trees).
    merkle_proof proof(uint64_t i, size_t base_levels, size_t sub_levels);

private:
    std::vector<uint32_t> arities_;
    std::vector<uint64_t> width_;  // nodes per level, level 0 first
    hash_fn hash_;
    fill_fn fill_;
    std::unordered_map<uint64_t, domain> leaves_;
    std::vector<std::unordered_set<uint64_t>> live_;           // per level: nodes above a known leaf
    std::vector<std::unordered_map<uint64_t, domain>> cache_;  // per level: computed live nodes
};

}  // namespace c2lab::porep

#include "porep/sparse_tree.hpp"

#include <string>

#include "core/error.hpp"

namespace c2lab::porep {

sparse_tree::sparse_tree(std::vector<uint32_t> arities, hash_fn hash, fill_fn fill)
    : arities_(std::move(arities)), hash_(std::move(hash)), fill_(std::move(fill)) {
    if (arities_.empty()) throw error(errc::internal, "sparse_tree: no levels");
    uint64_t w = 1;
    width_.assign(arities_.size() + 1, 1);
    for (size_t l = arities_.size(); l-- > 0;) {
        if (arities_[l] < 2) throw error(errc::internal, "sparse_tree: arity below 2");
        if (w > (uint64_t{1} << 62) / arities_[l]) throw error(errc::internal, "sparse_tree: too many leaves");
        w *= arities_[l];
        width_[l] = w;
    }
    live_.resize(width_.size());
    cache_.resize(width_.size());
}

void sparse_tree::set_leaf(uint64_t i, const domain& value) {
    if (i >= num_leaves())
        throw error(errc::internal, "sparse_tree: leaf " + std::to_string(i) + " of " + std::to_string(num_leaves()));
    leaves_[i] = value;
    uint64_t idx = i;
    for (size_t l = 0; l < width_.size(); ++l) {
        live_[l].insert(idx);
        cache_[l].clear();
        if (l < arities_.size()) idx /= arities_[l];
    }
}

domain sparse_tree::node(uint32_t level, uint64_t index) {
    if (level >= width_.size() || index >= width_[level])
        throw error(errc::internal, "sparse_tree: no node " + std::to_string(index) + " at level " + std::to_string(level));
    if (level == 0) {
        auto it = leaves_.find(index);
        return it != leaves_.end() ? it->second : fill_(0, index);
    }
    if (!live_[level].count(index)) return fill_(level, index);
    if (auto it = cache_[level].find(index); it != cache_[level].end()) return it->second;
    const uint32_t a = arities_[level - 1];
    std::vector<domain> children(a);
    for (uint32_t j = 0; j < a; ++j) children[j] = node(level - 1, index * a + j);
    domain v = hash_(children);
    cache_[level].emplace(index, v);
    return v;
}

std::vector<path_element> sparse_tree::path(uint64_t i) {
    if (i >= num_leaves())
        throw error(errc::internal, "sparse_tree: leaf " + std::to_string(i) + " of " + std::to_string(num_leaves()));
    std::vector<path_element> out;
    out.reserve(arities_.size());
    uint64_t idx = i;
    for (size_t l = 0; l < arities_.size(); ++l) {
        const uint32_t a = arities_[l];
        path_element e;
        e.index = idx % a;
        const uint64_t first = idx - e.index;
        for (uint32_t j = 0; j < a; ++j)
            if (j != e.index) e.hashes.push_back(node(static_cast<uint32_t>(l), first + j));
        out.push_back(std::move(e));
        idx /= a;
    }
    return out;
}

merkle_proof sparse_tree::proof(uint64_t i, size_t base_levels, size_t sub_levels) {
    if (base_levels + sub_levels > height()) throw error(errc::internal, "sparse_tree: path split beyond the root");
    merkle_proof p;
    p.root = root();
    p.leaf = leaf(i);
    std::vector<path_element> all = path(i);
    auto b = all.begin();
    p.base_path.assign(b, b + static_cast<ptrdiff_t>(base_levels));
    p.sub_path.assign(b + static_cast<ptrdiff_t>(base_levels), b + static_cast<ptrdiff_t>(base_levels + sub_levels));
    p.top_path.assign(b + static_cast<ptrdiff_t>(base_levels + sub_levels), all.end());
    return p;
}

}  // namespace c2lab::porep

// Merkle inclusion (proof of retrievability) gadget: rust-fil-proofs
// storage-proofs-core/src/gadgets/por.rs (PoRCircuit, AuthPath, SubPath, PoRCompound), over a
// hasher policy and the tree shapes rust-fil-proofs uses (base arity, optional sub-tree arity,
// optional top-tree arity: <8,0,0>, <8,2,0>, <8,8,0>, <8,8,2>, binary <2,0,0>, ...).
//
// Hasher policy H: a type with
//     template <class CS> static allocated_num hash(CS& cs, std::span<const allocated_num> children);
// hashing one tree node from its children in order (Poseidon with the arity's constants,
// or SHA-256 of the children's bits for tree_d). It runs inside the namespace
// "computation of commitment hash" of its level.
//
// Layout per path element (SubPath::synthesize), in namespace "<base|sub|top>/merkle tree hash <i>":
//   log2(arity) index bits, little-endian, "index bit <b>" (1 booleanity constraint each);
//   arity - 1 siblings "path element <k>" (no constraint);
//   insert(cur, bits, siblings) (gadgets/insertion.hpp: 2 / 8 / 22 constraints for 2 / 4 / 8);
//   cur = H::hash(children), namespace "computation of commitment hash".
// PoRCircuit::synthesize then: pack_into_inputs("path", base ++ sub ++ top bits) (one public
// input per 254 bits: the leaf index), "enforce root is correct" computed * 1 = root, and
// when the root is not private, root inputize ("root").
//
// The public input of an inclusion with a private root (PoRCompound::generate_public_inputs)
// is the leaf index as an Fr: base-level bits are the low bits, then the sub level, then the
// top level, so the packed bits equal the global leaf index of a compound tree whose base
// trees hold consecutive leaves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "gadgets/boolean.hpp"
#include "gadgets/insertion.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/num.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::gadgets {

// Arities of a (possibly compound) tree: base trees of base_arity; sub_arity > 0: one level
// joining sub_arity base trees; top_arity > 0 (needs sub_arity > 0): one level joining
// top_arity sub trees. Every non-zero arity is a power of two.
struct tree_shape {
    size_t base_arity = 8;
    size_t sub_arity = 0;
    size_t top_arity = 0;

    // Number of base trees (rust-fil-proofs get_base_tree_count).
    constexpr size_t base_tree_count() const noexcept {
        return (sub_arity ? sub_arity : 1) * (top_arity ? top_arity : 1);
    }
    friend constexpr bool operator==(const tree_shape&, const tree_shape&) = default;
};

namespace detail {

constexpr bool is_pow2(size_t x) noexcept { return x != 0 && (x & (x - 1)) == 0; }

constexpr size_t log2_exact(size_t x) noexcept {
    size_t k = 0;
    while ((size_t{1} << k) < x) ++k;
    return k;
}

inline void check_shape(const tree_shape& s) {
    if (!is_pow2(s.base_arity) || s.base_arity < 2)
        throw error(errc::bad_input, "tree_shape: base arity must be a power of two >= 2");
    if (s.sub_arity != 0 && (!is_pow2(s.sub_arity) || s.sub_arity < 2))
        throw error(errc::bad_input, "tree_shape: sub-tree arity must be 0 or a power of two >= 2");
    if (s.top_arity != 0 && (!is_pow2(s.top_arity) || s.top_arity < 2))
        throw error(errc::bad_input, "tree_shape: top-tree arity must be 0 or a power of two >= 2");
    if (s.top_arity != 0 && s.sub_arity == 0)
        throw error(errc::bad_input, "tree_shape: a top tree needs a sub tree");
}

}  // namespace detail

// Levels of each base tree for `leaves` leaves in all (rust-fil-proofs merkle/proof.rs
// base_path_length): log_base(leaves / base_tree_count). Throws unless exact.
inline size_t base_path_length(const tree_shape& shape, uint64_t leaves) {
    detail::check_shape(shape);
    const uint64_t trees = shape.base_tree_count();
    if (leaves == 0 || leaves % trees != 0)
        throw error(errc::bad_input, "base_path_length: " + std::to_string(leaves) + " leaves do not fill " +
                                         std::to_string(trees) + " base trees");
    uint64_t per_tree = leaves / trees;
    size_t levels = 0;
    while (per_tree > 1) {
        if (per_tree % shape.base_arity != 0)
            throw error(errc::bad_input, "base_path_length: " + std::to_string(leaves) +
                                             " leaves are not a full tree of arity " +
                                             std::to_string(shape.base_arity));
        per_tree /= shape.base_arity;
        ++levels;
    }
    return levels;
}

// Number of index bits of a path (= log2(leaves) for a full tree).
inline size_t path_bit_count(const tree_shape& shape, uint64_t leaves) {
    size_t n = base_path_length(shape, leaves) * detail::log2_exact(shape.base_arity);
    if (shape.sub_arity) n += detail::log2_exact(shape.sub_arity);
    if (shape.top_arity) n += detail::log2_exact(shape.top_arity);
    return n;
}

// One level of a path: the arity - 1 siblings and the position (0 .. arity - 1) of the
// path's node among the arity children (rust-fil-proofs PathElement). nullopt values: blank.
struct path_element_witness {
    std::vector<std::optional<fr>> hashes;
    std::optional<uint64_t> index;
};

// The path of one leaf: base levels (leaf upward), then the sub level, then the top level
// (rust-fil-proofs AuthPath; sub / top empty when the shape has none).
struct auth_path {
    std::vector<path_element_witness> base;
    std::vector<path_element_witness> sub;
    std::vector<path_element_witness> top;

    // All values missing, for shape-only synthesis (AuthPath::blank).
    static auth_path blank(const tree_shape& shape, uint64_t leaves) {
        auth_path p;
        const size_t n = base_path_length(shape, leaves);
        p.base.assign(n, path_element_witness{std::vector<std::optional<fr>>(shape.base_arity - 1), std::nullopt});
        if (shape.sub_arity)
            p.sub.assign(1, path_element_witness{std::vector<std::optional<fr>>(shape.sub_arity - 1), std::nullopt});
        if (shape.top_arity)
            p.top.assign(1, path_element_witness{std::vector<std::optional<fr>>(shape.top_arity - 1), std::nullopt});
        return p;
    }

    // From the flat level list of a Merkle proof (leaf upward, (siblings, index) per level),
    // split as AuthPath::from does: the last level is the sub level when the shape has one,
    // the last two are sub and top when it has a top level.
    static auth_path from_levels(const tree_shape& shape, std::span<const std::pair<std::vector<fr>, uint64_t>> levels) {
        detail::check_shape(shape);
        const size_t tail = shape.top_arity ? 2 : shape.sub_arity ? 1 : 0;
        if (levels.size() < tail) throw error(errc::bad_input, "auth_path: too few levels for the tree shape");
        auth_path p;
        auto conv = [](const std::pair<std::vector<fr>, uint64_t>& l) {
            path_element_witness e;
            e.hashes.assign(l.first.begin(), l.first.end());
            e.index = l.second;
            return e;
        };
        for (size_t i = 0; i + tail < levels.size(); ++i) p.base.push_back(conv(levels[i]));
        if (shape.sub_arity) p.sub.push_back(conv(levels[levels.size() - tail]));
        if (shape.top_arity) p.top.push_back(conv(levels.back()));
        return p;
    }
};

// What the path computes: the root and the index bits (base ++ sub ++ top, little-endian
// within each level).
struct merkle_path_result {
    allocated_num root;
    std::vector<boolean> path_bits;
};

namespace detail {

// SubPath::synthesize: the levels of one part (base, sub or top) of the path, all of arity
// `arity`; appends the index bits to bits_out and returns the node reached.
template <class H, class CS>
allocated_num synthesize_sub_path(CS& cs, size_t arity, std::span<const path_element_witness> path,
                                  allocated_num cur, std::vector<boolean>& bits_out) {
    if (path.empty()) return cur;
    const size_t nbits = log2_exact(arity);
    for (size_t i = 0; i < path.size(); ++i) {
        const path_element_witness& e = path[i];
        if (e.hashes.size() != arity - 1)
            throw error(errc::bad_input, "merkle path: level " + std::to_string(i) + " has " +
                                             std::to_string(e.hashes.size()) + " siblings, arity " +
                                             std::to_string(arity) + " needs " + std::to_string(arity - 1));
        if (e.index && *e.index >= arity)
            throw error(errc::bad_input, "merkle path: index " + std::to_string(*e.index) + " at level " +
                                             std::to_string(i) + " is not below the arity " + std::to_string(arity));
        namespace_guard level_ns(cs, [i] { return "merkle tree hash " + std::to_string(i); });

        std::vector<boolean> index_bits;
        index_bits.reserve(nbits);
        for (size_t b = 0; b < nbits; ++b) {
            std::optional<bool> v;
            if (e.index) v = ((*e.index >> b) & 1) != 0;
            namespace_guard ns(cs, [b] { return "index bit " + std::to_string(b); });
            index_bits.emplace_back(allocated_bit::alloc(cs, v));
        }
        bits_out.insert(bits_out.end(), index_bits.begin(), index_bits.end());

        std::vector<allocated_num> siblings;
        siblings.reserve(arity - 1);
        for (size_t k = 0; k < e.hashes.size(); ++k)
            siblings.push_back(
                allocated_num::alloc(cs, [k] { return "path element " + std::to_string(k); }, e.hashes[k]));

        std::vector<allocated_num> children = insert(cs, cur, std::span<const boolean>(index_bits),
                                                     std::span<const allocated_num>(siblings));
        namespace_guard hash_ns(cs, [] { return "computation of commitment hash"; });
        cur = H::hash(cs, std::span<const allocated_num>(children));
    }
    return cur;
}

}  // namespace detail

// Hashes the leaf up the path: base levels in namespace "base", the sub level in "sub", the
// top level in "top". Returns the computed root and the path bits; adds no public input and
// no root check (see por_circuit, enforce_root, pack_path_bits).
template <class H, class CS>
merkle_path_result compute_root(CS& cs, const tree_shape& shape, const allocated_num& leaf, const auth_path& path) {
    detail::check_shape(shape);
    if (!shape.sub_arity && !path.sub.empty()) throw error(errc::bad_input, "merkle path: sub level without sub tree");
    if (!shape.top_arity && !path.top.empty()) throw error(errc::bad_input, "merkle path: top level without top tree");
    if (shape.sub_arity && path.sub.size() != 1) throw error(errc::bad_input, "merkle path: needs one sub level");
    if (shape.top_arity && path.top.size() != 1) throw error(errc::bad_input, "merkle path: needs one top level");
    merkle_path_result r;
    allocated_num cur = leaf;
    {
        namespace_guard ns(cs, [] { return "base"; });
        cur = detail::synthesize_sub_path<H>(cs, shape.base_arity, path.base, cur, r.path_bits);
    }
    {
        namespace_guard ns(cs, [] { return "sub"; });
        cur = detail::synthesize_sub_path<H>(cs, shape.sub_arity, path.sub, cur, r.path_bits);
    }
    {
        namespace_guard ns(cs, [] { return "top"; });
        cur = detail::synthesize_sub_path<H>(cs, shape.top_arity, path.top, cur, r.path_bits);
    }
    r.root = cur;
    return r;
}

// The path bits as public inputs, namespace "path" (multipack::pack_into_inputs: one input
// and one constraint per 254 bits).
template <class CS>
void pack_path_bits(CS& cs, std::span<const boolean> bits) {
    namespace_guard ns(cs, [] { return "path"; });
    pack_into_inputs(cs, bits);
}

// computed == root: "enforce root is correct", computed * 1 = root (constraint::equal).
template <class CS>
void enforce_root(CS& cs, const allocated_num& computed, const allocated_num& root) {
    enforce_equal(cs, [] { return "enforce root is correct"; }, computed, root);
}

// PoRCircuit::synthesize with the leaf and the root already allocated (Root::Var, as the
// StackedDRG circuit's enforce_inclusion passes them): path, "path" input, root equality and,
// unless private_root, the root as a public input ("root"). With a private root: the
// levels' cost + 2 constraints and one public input (the leaf index).
template <class H, class CS>
void por_circuit(CS& cs, const tree_shape& shape, const allocated_num& leaf, const auth_path& path,
                 const allocated_num& root, bool private_root) {
    merkle_path_result r = compute_root<H>(cs, shape, leaf, path);
    pack_path_bits(cs, std::span<const boolean>(r.path_bits));
    enforce_root(cs, r.root, root);
    if (!private_root) {
        namespace_guard ns(cs, [] { return "root"; });
        root.inputize(cs);
    }
}

// PoRCircuit::synthesize with values (Root::Val): allocates the leaf "value" first and the
// root "root_value" after the path input, as the source does.
template <class H, class CS>
void por_circuit(CS& cs, const tree_shape& shape, const std::optional<fr>& leaf, const auth_path& path,
                 const std::optional<fr>& root, bool private_root) {
    allocated_num leaf_num = allocated_num::alloc(cs, [] { return "value"; }, leaf);
    merkle_path_result r = compute_root<H>(cs, shape, leaf_num, path);
    pack_path_bits(cs, std::span<const boolean>(r.path_bits));
    allocated_num root_num = allocated_num::alloc(cs, [] { return "root_value"; }, root);
    enforce_root(cs, r.root, root_num);
    if (!private_root) {
        namespace_guard ns(cs, [] { return "root"; });
        root_num.inputize(cs);
    }
}

// The verifier's public inputs of one inclusion (PoRCompound::generate_public_inputs): the
// leaf index, then the root when it is public.
inline std::vector<fr> por_public_inputs(uint64_t leaf_index, const std::optional<fr>& public_root = std::nullopt) {
    std::vector<fr> v{fr::from_u64(leaf_index)};
    if (public_root) v.push_back(*public_root);
    return v;
}

// Constraints of compute_root for a full tree with `leaves` leaves, given the hash cost per
// arity: per level log2(arity) + insert_constraints(arity) + hash_cost(arity). por_circuit
// adds 2 (path packing, root equality), 3 with a public root.
template <class HashCost>
size_t compute_root_constraints(const tree_shape& shape, uint64_t leaves, HashCost&& hash_cost) {
    auto level = [&](size_t a) { return detail::log2_exact(a) + insert_constraints(a) + hash_cost(a); };
    size_t n = base_path_length(shape, leaves) * level(shape.base_arity);
    if (shape.sub_arity) n += level(shape.sub_arity);
    if (shape.top_arity) n += level(shape.top_arity);
    return n;
}

}  // namespace c2lab::gadgets

// The StackedDRG PoRep circuit of one partition (rust-fil-proofs
// storage-proofs-porep/src/stacked/circuit/{proof.rs,params.rs}: StackedCircuit::synthesize and
// Proof::synthesize), over any constraint system of lib/r1cs.
//
// Public inputs, in order (after the one): replica_id, comm_d, comm_r, then per challenge 18:
// the comm_d path (the challenge), the tree_c paths of the 6 base and 8 expansion parents,
// the challenge number (a UInt64), the tree_r_last path (the challenge) and the tree_c path
// of the challenged column (the challenge). Every path input is the leaf index, so the
// verifier derives them all from (replica_id, seed, partition) and the graph:
// public_inputs() below (StackedCompound::generate_public_inputs).
//
// Per challenge (namespace "challenge_<i>"): the data leaf's inclusion in tree_d (SHA-256,
// binary); each parent's column: its L rows hashed (Poseidon of arity L) and included in
// tree_c; the challenge as 64 bits, packed into an input; per layer the label from the
// parents' rows (base parents in that layer, expansion parents in the layer below, repeated
// to 37) with the SHA-256 label gadget; the replica node = last label + data, included in
// tree_r_last; the column of computed labels hashed and included in tree_c. Before the
// challenges: comm_r = Poseidon(comm_c, comm_r_last).
//
// Constraint counts (from rust-fil-proofs' own tests of the same layout, storage-proofs-porep
// tests/stacked_circuit.rs): 2 KiB 2,687,921; 32 GiB 130,278,541; 64 GiB 131,185,849, each
// before the prover's one constraint per public input.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>

#include "gadgets/boolean.hpp"
#include "gadgets/merkle.hpp"
#include "gadgets/num.hpp"
#include "gadgets/poseidon.hpp"
#include "gadgets/sha256.hpp"
#include "gadgets/uint32.hpp"
#include "porep/label.hpp"
#include "porep/params.hpp"
#include "porep/vanilla_proof.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape_pass.hpp"
#include "r1cs/witness_assignment.hpp"

namespace c2lab::porep {

using ff::fr;
using r1cs::namespace_guard;

// Hasher policies of the Merkle gadget: Poseidon for tree_c and tree_r_last, SHA-256 (two
// children) for tree_d.
struct poseidon_tree_hasher {
    template <class CS>
    static gadgets::allocated_num hash(CS& cs, std::span<const gadgets::allocated_num> children) {
        return gadgets::poseidon_hash_gadget(cs, children);
    }
};
struct sha256_tree_hasher {
    template <class CS>
    static gadgets::allocated_num hash(CS& cs, std::span<const gadgets::allocated_num> children) {
        if (children.size() != 2) throw error(errc::internal, "sha256_tree_hasher: tree_d is binary");
        return gadgets::sha256_hash2_circuit(cs, children[0], children[1]);
    }
};

// A parent's column: its label in every layer, and its path in tree_c.
struct column_witness {
    std::vector<std::optional<fr>> rows;
    gadgets::auth_path path;
};

// What one challenge's part of the circuit needs (stacked/circuit/params.rs Proof).
struct challenge_witness {
    std::optional<uint64_t> challenge;
    std::optional<fr> data_leaf;
    gadgets::auth_path comm_d_path;
    std::vector<column_witness> drg_parents;  // base_degree
    std::vector<column_witness> exp_parents;  // expansion_degree
    gadgets::auth_path comm_r_last_path;
    gadgets::auth_path comm_c_path;
};

// The tree shapes of a config: tree_d binary, tree_c / tree_r_last LCTree<8, sub, top>.
gadgets::tree_shape tree_r_shape(const porep_config& cfg) noexcept;
inline constexpr gadgets::tree_shape tree_d_shape{2, 0, 0};

// One partition's circuit (StackedCircuit): the witness, or nothing but the shape.
struct stacked_circuit {
    const porep_config* config = nullptr;
    std::optional<fr> replica_id, comm_d, comm_r, comm_r_last, comm_c;
    std::vector<challenge_witness> challenges;
    // synth_challenges=parallel: a constraint system that can fork (a direct-mode proving
    // assignment) synthesizes the challenges on oneTBB's threads, each into a child forked
    // after the shared part (replica_id, the commitments, comm_r's hash), and appends them in
    // order: the same assignment as serial synthesis. Other systems ignore it.
    bool parallel_challenges = false;

    // Every value absent, every path and column of the right size (the circuit for setup,
    // circuit-info and shape-only synthesis).
    static stacked_circuit blank(const porep_config& cfg);

    template <class CS>
    void synthesize(CS& cs) const;
};

// The construct stage: partition k's circuit from a decoded C1 output. Checks every count
// against the config (challenges, parents, rows, path levels and siblings) and throws
// c2lab::error(errc::bad_input) naming the vanilla proof's field.
stacked_circuit construct_circuit(const porep_config& cfg, const c1_output& c1, uint32_t partition);
std::vector<stacked_circuit> construct_circuits(const porep_config& cfg, const c1_output& c1);

// The verifier's public inputs of partition k (without the one), derived from the
// commitments, the seed and the graph alone.
std::vector<fr> public_inputs(const porep_config& cfg, const domain& replica_id, const domain& comm_d,
                              const domain& comm_r, const std::array<uint8_t, 32>& seed, uint32_t partition);
inline std::vector<fr> public_inputs(const porep_config& cfg, const c1_output& c1, uint32_t partition) {
    return public_inputs(cfg, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, partition);
}

// ---- synthesis ----

namespace circuit_detail {

using gadgets::allocated_num;
using gadgets::boolean;

// enforce_inclusion (stacked/circuit/params.rs): PoR with a private root.
template <class H, class CS, class NameFn>
void enforce_inclusion(CS& cs, NameFn&& name, const gadgets::tree_shape& shape, const gadgets::auth_path& path,
                       const allocated_num& root, const allocated_num& leaf) {
    namespace_guard ns(cs, std::forward<NameFn>(name));
    gadgets::por_circuit<H>(cs, shape, leaf, path, root, /*private_root=*/true);
}

// Column::alloc + hash_single_column: the rows allocated, then Poseidon of arity L.
template <class CS>
std::vector<allocated_num> alloc_column(CS& cs, const std::vector<std::optional<fr>>& rows) {
    namespace_guard ns(cs, [] { return "column"; });
    std::vector<allocated_num> out;
    out.reserve(rows.size());
    for (size_t r = 0; r < rows.size(); ++r)
        out.push_back(allocated_num::alloc(cs, [r] { return "column_num_row_" + std::to_string(r); }, rows[r]));
    return out;
}

// reverse_bit_numbering(num.to_bits_le()): the 32-byte little-endian encoding's bits in
// SHA-256 input order (256 constraints).
template <class CS, class NameFn>
std::vector<boolean> hash_order_bits(CS& cs, NameFn&& name, const allocated_num& x) {
    namespace_guard ns(cs, std::forward<NameFn>(name));
    std::vector<boolean> le = x.to_bits_le(cs);
    return gadgets::reverse_bit_numbering(le);
}

template <class CS>
void synthesize_challenge(CS& cs, const porep_config& cfg, const challenge_witness& w, const allocated_num& comm_d,
                          const allocated_num& comm_c, const allocated_num& comm_r_last,
                          std::span<const boolean> replica_id_bits) {
    const gadgets::tree_shape r_shape = tree_r_shape(cfg);
    const uint32_t layers = cfg.layers;
    if (w.drg_parents.size() != base_degree || w.exp_parents.size() != expansion_degree)
        throw error(errc::bad_input, "stacked circuit: a challenge needs 6 base and 8 expansion parent columns");

    // The data leaf and its inclusion in tree_d.
    allocated_num data_leaf = allocated_num::alloc(cs, [] { return "data_leaf"; }, w.data_leaf);
    enforce_inclusion<sha256_tree_hasher>(cs, [] { return "comm_d_inclusion"; }, tree_d_shape, w.comm_d_path, comm_d,
                                          data_leaf);

    // The parents' columns, hashed and included in tree_c.
    auto open_columns = [&](const std::vector<column_witness>& cols, const char* kind) {
        std::vector<std::vector<allocated_num>> out;
        for (size_t i = 0; i < cols.size(); ++i) {
            if (cols[i].rows.size() != layers)
                throw error(errc::bad_input, std::string("stacked circuit: a ") + kind + " parent column has " +
                                                 std::to_string(cols[i].rows.size()) + " rows, expected " +
                                                 std::to_string(layers));
            std::vector<allocated_num> rows;
            {
                namespace_guard ns(cs, [&] { return std::string(kind) + "_parent_" + std::to_string(i) + "_num"; });
                rows = alloc_column(cs, cols[i].rows);
            }
            allocated_num h;
            {
                namespace_guard ns(cs,
                                   [&] { return std::string(kind) + "_parent_" + std::to_string(i) + "_constraint"; });
                h = gadgets::poseidon_hash_gadget(cs, std::span<const allocated_num>(rows));
            }
            enforce_inclusion<poseidon_tree_hasher>(
                cs, [&] { return std::string(kind) + "_parent_" + std::to_string(i) + "_inclusion"; }, r_shape,
                cols[i].path, comm_c, h);
            out.push_back(std::move(rows));
        }
        return out;
    };
    const auto drg = open_columns(w.drg_parents, "drg");
    const auto exp = open_columns(w.exp_parents, "exp");

    // The challenge number, a public input.
    gadgets::uint64 challenge;
    {
        namespace_guard ns(cs, [] { return "challenge"; });
        challenge = gadgets::uint64::alloc(cs, w.challenge);
    }
    {
        namespace_guard ns(cs, [] { return "challenge input"; });
        challenge.pack_into_input(cs);
    }

    // The labels of the challenged node, layer by layer.
    std::vector<allocated_num> labels;
    labels.reserve(layers);
    for (uint32_t layer = 1; layer <= layers; ++layer) {
        namespace_guard ns(cs, [layer] { return "labeling_" + std::to_string(layer); });
        std::vector<std::vector<boolean>> parents;
        parents.reserve(total_degree);
        for (const auto& col : drg)
            parents.push_back(hash_order_bits(
                cs, [k = parents.size()] { return "drg_parent_" + std::to_string(k) + "_bits"; }, col[layer - 1]));
        if (layer > 1)
            for (const auto& col : exp)
                parents.push_back(hash_order_bits(
                    cs, [k = parents.size()] { return "exp_parent_" + std::to_string(k) + "_bits"; }, col[layer - 2]));
        const std::vector<std::vector<boolean>> expanded =
            expand_label_parents(std::span<const std::vector<boolean>>(parents));
        namespace_guard label_ns(cs, [] { return "create_label"; });
        labels.push_back(create_label_circuit(cs, replica_id_bits, std::span<const std::vector<boolean>>(expanded),
                                              gadgets::uint32::constant(layer), challenge));
    }

    // The replica node: key (the last label) + data, included in tree_r_last.
    {
        const allocated_num& key = labels.back();
        allocated_num encoded;
        {
            namespace_guard ns(cs, [] { return "encode_node"; });
            std::optional<fr> v;
            if (key.value && data_leaf.value) v = *key.value + *data_leaf.value;
            encoded = allocated_num::alloc(cs, [] { return "add_num"; }, v);
            cs.enforce([] { return "add_constraint"; }, [&](auto lc) { return lc + key.var + data_leaf.var; },
                       [](auto lc) { return lc + CS::one(); }, [&](auto lc) { return lc + encoded.var; });
        }
        enforce_inclusion<poseidon_tree_hasher>(cs, [] { return "comm_r_last_data_inclusion"; }, r_shape,
                                                w.comm_r_last_path, comm_r_last, encoded);
    }

    // The challenged column (the computed labels), included in tree_c.
    allocated_num column_hash;
    {
        namespace_guard ns(cs, [] { return "c_x_column_hash"; });
        column_hash = gadgets::poseidon_hash_gadget(cs, std::span<const allocated_num>(labels));
    }
    enforce_inclusion<poseidon_tree_hasher>(cs, [] { return "c_x_inclusion"; }, r_shape, w.comm_c_path, comm_c,
                                            column_hash);
}

}  // namespace circuit_detail

template <class CS>
void stacked_circuit::synthesize(CS& cs) const {
    using gadgets::allocated_num;
    using gadgets::boolean;
    if (!config) throw error(errc::internal, "stacked_circuit: no config");

    allocated_num replica = allocated_num::alloc(cs, [] { return "replica_id"; }, replica_id);
    {
        namespace_guard ns(cs, [] { return "replica_id_input"; });
        replica.inputize(cs);
    }
    std::vector<boolean> replica_bits =
        circuit_detail::hash_order_bits(cs, [] { return "replica_id_bits"; }, replica);

    allocated_num comm_d_num = allocated_num::alloc(cs, [] { return "comm_d"; }, comm_d);
    {
        namespace_guard ns(cs, [] { return "comm_d_input"; });
        comm_d_num.inputize(cs);
    }
    allocated_num comm_r_num = allocated_num::alloc(cs, [] { return "comm_r"; }, comm_r);
    {
        namespace_guard ns(cs, [] { return "comm_r_input"; });
        comm_r_num.inputize(cs);
    }
    allocated_num comm_r_last_num = allocated_num::alloc(cs, [] { return "comm_r_last"; }, comm_r_last);
    allocated_num comm_c_num = allocated_num::alloc(cs, [] { return "comm_c"; }, comm_c);

    {
        allocated_num h;
        {
            namespace_guard ns(cs, [] { return "H_comm_c_comm_r_last"; });
            const std::array<allocated_num, 2> pre{comm_c_num, comm_r_last_num};
            h = gadgets::poseidon_hash_gadget(cs, std::span<const allocated_num>(pre));
        }
        gadgets::enforce_equal(cs, [] { return "enforce comm_r = H(comm_c || comm_r_last)"; }, comm_r_num, h);
    }

    if constexpr (requires(CS & c) { append_part(c, fork_part(c, size_t{1})); }) {
        if (parallel_challenges && challenges.size() > 1) {
            std::vector<CS> parts;
            parts.reserve(challenges.size());
            for (size_t i = 0; i < challenges.size(); ++i) parts.push_back(fork_part(cs, challenges.size()));
            tbb::parallel_for(size_t{0}, challenges.size(), [&](size_t i) {
                circuit_detail::synthesize_challenge(parts[i], *config, challenges[i], comm_d_num, comm_c_num,
                                                     comm_r_last_num, replica_bits);
            });
            for (CS& part : parts) append_part(cs, std::move(part));
            return;
        }
    }
    for (size_t i = 0; i < challenges.size(); ++i) {
        namespace_guard ns(cs, [i] { return "challenge_" + std::to_string(i); });
        circuit_detail::synthesize_challenge(cs, *config, challenges[i], comm_d_num, comm_c_num, comm_r_last_num,
                                             replica_bits);
    }
}

// The constraint systems the lab synthesizes into are instantiated once, in
// circuit_synth_*.cpp (the circuit is large: compiling it in every user would multiply the
// build time); other systems (e.g. the test system) instantiate it where they are used.
extern template void stacked_circuit::synthesize(r1cs::shape_counter&) const;
extern template void stacked_circuit::synthesize(r1cs::shape_pass&) const;
extern template void stacked_circuit::synthesize(r1cs::constraint_matrices<r1cs::vec_indexer>&) const;
extern template void stacked_circuit::synthesize(r1cs::proving_assignment<r1cs::vec_indexer>&) const;
extern template void stacked_circuit::synthesize(r1cs::proving_assignment<r1cs::smallvec_indexer<1>>&) const;
extern template void stacked_circuit::synthesize(r1cs::proving_assignment<r1cs::smallvec_indexer<2>>&) const;
extern template void stacked_circuit::synthesize(r1cs::proving_assignment<r1cs::smallvec_indexer<4>>&) const;
extern template void stacked_circuit::synthesize(r1cs::witness_assignment&) const;

}  // namespace c2lab::porep

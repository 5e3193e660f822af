// The typed content of a C1 file: rust-fil-proofs' SealCommitPhase1Output and the StackedDRG
// vanilla proofs inside it (storage-proofs-porep/src/stacked/vanilla/{proof,params,column,
// column_proof,labeling_proof,encoding_proof}.rs, storage-proofs-core/src/merkle/proof.rs,
// filecoin-proofs/src/types/mod.rs).
//
// Every hash value (a SHA-256 or Poseidon "domain") is 32 bytes as the file carries them:
// the little-endian canonical encoding of an Fr element (SHA-256 digests are truncated to
// 254 bits by rust-fil-proofs before they become domains, so they are elements of Fr too).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace c2lab::porep {

using domain = std::array<uint8_t, 32>;  // a hash value: Fr, canonical little-endian

// One level of a Merkle inclusion path: the arity - 1 sibling hashes and the position
// (0 .. arity-1) of the path's node among its siblings (storage-proofs-core PathElement).
struct path_element {
    std::vector<domain> hashes;
    uint64_t index = 0;
    friend bool operator==(const path_element&, const path_element&) = default;
};

// A Merkle inclusion proof (storage-proofs-core MerkleProof, ProofData Single/Sub/Top): the
// path through the base trees, then (compound trees) through the sub tree and the top tree.
// sub_path and top_path are empty for a single tree; top_path is empty for <8,8,0>.
struct merkle_proof {
    domain root{};
    domain leaf{};
    std::vector<path_element> base_path;
    std::vector<path_element> sub_path;
    std::vector<path_element> top_path;
    friend bool operator==(const merkle_proof&, const merkle_proof&) = default;
};

// A column of the stacked layers at one node: the labels of every layer (Column).
struct column {
    uint32_t index = 0;
    std::vector<domain> rows;
    friend bool operator==(const column&, const column&) = default;
};

// A column with its inclusion proof in tree_c (ColumnProof).
struct column_proof {
    column col;
    merkle_proof inclusion_proof;
    friend bool operator==(const column_proof&, const column_proof&) = default;
};

// Columns at the challenged node and at its parents (ReplicaColumnProof).
struct replica_column_proof {
    column_proof c_x;
    std::vector<column_proof> drg_parents;  // 6 base parents
    std::vector<column_proof> exp_parents;  // 8 expansion parents
    friend bool operator==(const replica_column_proof&, const replica_column_proof&) = default;
};

// The parents' labels that a node's label is computed from (LabelingProof).
struct labeling_proof {
    std::vector<domain> parents;
    uint32_t layer_index = 0;  // 1-based layer
    uint64_t node = 0;
    friend bool operator==(const labeling_proof&, const labeling_proof&) = default;
};

// The label of the last layer from its parents, to be encoded with the data (EncodingProof).
struct encoding_proof {
    std::vector<domain> parents;
    uint32_t layer_index = 0;
    uint64_t node = 0;
    friend bool operator==(const encoding_proof&, const encoding_proof&) = default;
};

// The vanilla proof of one challenge (stacked vanilla Proof).
struct challenge_proof {
    porep::merkle_proof comm_d_proofs;      // binary SHA-256 tree of the data
    porep::merkle_proof comm_r_last_proof;  // Poseidon tree_r_last of the replica
    replica_column_proof replica_column_proofs;
    std::vector<labeling_proof> labeling_proofs;  // one per layer
    porep::encoding_proof encoding_proof;
    friend bool operator==(const challenge_proof&, const challenge_proof&) = default;
};

// SealCommitPhase1Output (filecoin-proofs-api): the vanilla proofs of every partition and
// the commitments and randomness they answer to.
struct c1_output {
    std::string registered_proof;  // e.g. "StackedDrg2KiBV1_1"
    std::vector<std::vector<challenge_proof>> vanilla_proofs;  // [partition][challenge]
    domain comm_r{};
    domain comm_d{};
    domain replica_id{};
    std::array<uint8_t, 32> seed{};
    std::array<uint8_t, 32> ticket{};
    friend bool operator==(const c1_output&, const c1_output&) = default;
};

// The outer file as curio / lotus-bench write it: {"SectorNum", "Phase1Out", "SectorSize"}.
struct c1_file {
    uint64_t sector_num = 0;
    uint64_t sector_size = 0;
    c1_output phase1_out;
    friend bool operator==(const c1_file&, const c1_file&) = default;
};

}  // namespace c2lab::porep

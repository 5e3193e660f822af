// The dataset generator: a C1 file whose vanilla proofs are consistent with the StackedDRG
// circuit, for any registered sector size, without the sector.
//
// A real C1 comes from sealing a sector: labelling every node of every layer, building
// tree_d (SHA-256, binary), tree_c (Poseidon over the columns) and tree_r_last (Poseidon
// over the replica), then opening them at the challenged nodes. The circuit only ever sees
// the challenged nodes, their 14 parents' columns, and the Merkle paths to them. So:
//   - every label that the circuit does not recompute (the parents' labels, the labels of
//     unchallenged nodes) is a pseudo-random Fr fixed by (sector size, seed, layer, node);
//   - the label of a challenged node in every layer is computed from its parents' labels
//     exactly as sealing would (porep/label.hpp), challenged nodes in ascending order per
//     layer, so a challenged parent contributes its computed label;
//   - the sector's data repeats a pseudo-random block of min(nodes, 1024) nodes, so tree_d
//     (SHA-256, binary) is a real tree whose root, comm_d, is computed from one block and
//     does not depend on which nodes are challenged; a replica node is data + last label;
//   - the sealing inputs come first, as in Filecoin: replica_id is derived from prover id,
//     sector id, ticket, comm_d and the porep id (porep/seal_inputs.hpp), and the challenges
//     of every partition from replica_id and the interactive seed;
//   - tree_c and tree_r_last are sparse_trees (porep/sparse_tree.hpp): nodes above a known
//     leaf are hashed, every other subtree is a pseudo-random value.
// Deterministic from (sector size, seed, sealing inputs): the same inputs give the same file,
// byte for byte.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "porep/params.hpp"
#include "porep/vanilla_proof.hpp"

namespace c2lab::porep {

// Progress of a long generation: stage name, items done, items in all.
using progress_fn = std::function<void(std::string_view stage, uint64_t done, uint64_t total)>;

// The sealing inputs of a generated C1. Absent ones are derived from (sector size, seed):
// prover_id, ticket and the interactive seed are dataset_prf-style bytes (tags "prover_id",
// "ticket", "seed", untrimmed), sector_id is the dataset seed.
struct seal_input_overrides {
    std::optional<std::array<uint8_t, 32>> prover_id;
    std::optional<uint64_t> sector_id;
    std::optional<std::array<uint8_t, 32>> ticket;
    std::optional<std::array<uint8_t, 32>> seed;  // the interactive randomness ("seed" of the C1)
};
struct seal_input_values {
    std::array<uint8_t, 32> prover_id{};
    uint64_t sector_id = 0;
    std::array<uint8_t, 32> ticket{};
    std::array<uint8_t, 32> seed{};
};
seal_input_values resolve_seal_inputs(const porep_config& cfg, uint64_t seed, const seal_input_overrides& given = {});

// comm_d of a generated sector: the root of its data tree (a function of size and seed only).
domain generated_comm_d(const porep_config& cfg, uint64_t seed);

c1_file generate_c1(const porep_config& cfg, uint64_t seed, const progress_fn& progress = {});
c1_file generate_c1(const porep_config& cfg, uint64_t seed, const seal_input_overrides& inputs,
                    const progress_fn& progress = {});

// The pseudo-random 32 bytes that stand for everything not materialised:
// SHA-256("c2lab/dataset/v1" || tag || sector_size || seed || a || b), integers little-endian.
// As a domain the top two bits are cleared (the value is below 2^254, so a canonical Fr),
// as rust-fil-proofs truncates SHA-256 digests.
domain dataset_prf(std::string_view tag, uint64_t sector_size, uint64_t seed, uint64_t a, uint64_t b) noexcept;

}  // namespace c2lab::porep

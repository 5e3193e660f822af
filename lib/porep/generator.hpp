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
//   - the data of a challenged node is pseudo-random, its replica is data + last label;
//   - the three trees are sparse_trees (porep/sparse_tree.hpp): nodes above a known leaf are
//     hashed, every other subtree is a pseudo-random value.
// Deterministic from (sector size, seed): the same inputs give the same file, byte for byte.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "porep/params.hpp"
#include "porep/vanilla_proof.hpp"

namespace c2lab::porep {

// Progress of a long generation: stage name, items done, items in all.
using progress_fn = std::function<void(std::string_view stage, uint64_t done, uint64_t total)>;

c1_file generate_c1(const porep_config& cfg, uint64_t seed, const progress_fn& progress = {});

// The pseudo-random 32 bytes that stand for everything not materialised:
// SHA-256("c2lab/dataset/v1" || tag || sector_size || seed || a || b), integers little-endian.
// As a domain the top two bits are cleared (the value is below 2^254, so a canonical Fr),
// as rust-fil-proofs truncates SHA-256 digests.
domain dataset_prf(std::string_view tag, uint64_t sector_size, uint64_t seed, uint64_t a, uint64_t b) noexcept;

}  // namespace c2lab::porep

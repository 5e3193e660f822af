// What a sealer derives before and around C1, after rust-fil-proofs:
//  - the replica id (storage-proofs-porep/src/stacked/vanilla/params.rs generate_replica_id,
//    called by filecoin-proofs/src/api/seal.rs with the registered proof's porep id);
//  - the interactive challenges of every partition (stacked/vanilla/challenges.rs, through
//    derive_challenges of porep/graph.hpp);
//  - the parent cache (storage-proofs-porep/src/stacked/vanilla/cache.rs ParentCache): every
//    node's 14 parents as u32 little-endian, 6 base then 8 expansion, node after node; its
//    SHA-256 and file name are those listed in storage-proofs-porep/parent_cache.json.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "porep/graph.hpp"
#include "porep/params.hpp"
#include "porep/vanilla_proof.hpp"

namespace c2lab::porep {

using bytes32 = std::array<uint8_t, 32>;

// SHA-256(prover_id || sector_id as u64 big-endian || ticket || comm_d || porep_id) with the
// two top bits of byte 31 cleared (bytes_into_fr_repr_safe): a canonical Fr, little-endian.
domain derive_replica_id(const bytes32& prover_id, uint64_t sector_id, const bytes32& ticket, const domain& comm_d,
                         const porep_id_bytes& porep_id);

// The interactive challenges of every partition k in [0, partitions): challenge i of
// partition k uses j = challenges_per_partition * k + i.
std::vector<std::vector<uint64_t>> derive_all_challenges(const porep_config& cfg, const domain& replica_id,
                                                         const bytes32& seed);

// ---- the parent cache ----

inline constexpr size_t parent_cache_entry_bytes = total_degree * 4;  // 56 bytes per node

// The cache bytes of nodes [first, first + count): out.size() must be count * 56. Parallel
// (oneTBB) over the nodes.
void fill_parent_cache(const stacked_graph& graph, uint64_t first, uint64_t count, std::span<uint8_t> out);

// The whole cache in order, in pieces of at most batch_nodes nodes (each piece computed in
// parallel, then handed to sink): memory is one piece, whatever the sector size.
void stream_parent_cache(const stacked_graph& graph, const std::function<void(std::span<const uint8_t>)>& sink,
                         uint64_t batch_nodes = uint64_t{1} << 16);

// SHA-256 of the whole cache, streamed (the "digest" of parent_cache.json). progress, when
// given, is called after each piece with the nodes hashed so far.
bytes32 parent_cache_digest(const stacked_graph& graph, const std::function<void(uint64_t nodes_done)>& progress = {});

// The cache's name (cache.rs parent_cache_id / cache_path, the keys of parent_cache.json):
// "v28-sdr-parent-" + hex SHA-256("poseidon_hasher" || the graph identifier || the four
// Feistel keys as u64 LE || nodes as u32 LE).
std::string parent_cache_id(const stacked_graph& graph);

}  // namespace c2lab::porep

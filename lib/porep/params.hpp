// Parameters of the registered StackedDRG seal proofs: sector sizes, layers, partitions,
// challenges, tree shapes and porep ids, as rust-fil-proofs and filecoin-proofs-api fix them
// (filecoin-proofs/src/constants.rs, filecoin-proofs/src/parameters.rs,
// rust-filecoin-proofs-api/src/registry.rs).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace c2lab::porep {

// storage-proofs-core/src/api_version.rs ApiVersion. The V1_1 registered proofs use V1_1_0;
// V1_1_0 and V1_2_0 build the same graph.
enum class api_version { v1_0_0, v1_1_0, v1_2_0 };
std::string_view to_string(api_version v) noexcept;  // "1.0.0", "1.1.0", "1.2.0"

inline constexpr uint32_t node_size = 32;         // bytes per node (util.rs NODE_SIZE)
inline constexpr uint32_t base_degree = 6;        // drgraph.rs BASE_DEGREE (constants.rs DRG_DEGREE)
inline constexpr uint32_t expansion_degree = 8;   // stacked/vanilla/graph.rs EXP_DEGREE
inline constexpr uint32_t total_degree = base_degree + expansion_degree;  // graph.rs DEGREE
inline constexpr uint32_t max_challenges_per_partition = 18;  // constants.rs MAX_CHALLENGES_PER_PARTITION

using porep_id_bytes = std::array<uint8_t, 32>;

struct porep_config {
    std::string registered_proof;    // serde name of RegisteredSealProof, e.g. "StackedDrg32GiBV1_1"
    uint64_t registered_proof_id = 0;  // REGISTERED_PROOF_IDS (registry.rs)
    api_version api = api_version::v1_1_0;
    porep_id_bytes porep_id{};       // proof id (u64 LE) || nonce (u64 LE, 0) || 16 zero bytes
    uint64_t sector_size = 0;        // bytes
    uint64_t nodes = 0;              // sector_size / 32
    uint32_t layers = 0;             // constants.rs LAYERS
    uint32_t partitions = 0;         // constants.rs POREP_PARTITIONS
    uint32_t challenges_per_partition = 0;  // div_ceil(total_challenges, partitions) (parameters.rs)
    uint32_t total_challenges = 0;   // get_porep_interactive_minimum_challenges (the minimum)
    // tree_r_last / tree_c shape (constants.rs SectorShape*): LCTree<base, sub, top>.
    uint32_t base_arity = 8;
    uint32_t sub_arity = 0;          // 0, 2 or 8
    uint32_t top_arity = 0;          // 0 or 2
    uint64_t base_tree_leaves = 0;   // leaves of each base tree
    uint32_t base_tree_count = 0;    // get_base_tree_count: 1, sub, or sub * top

    // Challenges proven in all: partitions * challenges_per_partition (180 for 32 GiB).
    uint32_t proven_challenges() const noexcept { return partitions * challenges_per_partition; }
};

// The one table of registered seal proofs: every RegisteredSealProof of
// rust-filecoin-proofs-api (src/registry.rs), in its order, with its serde name,
// REGISTERED_PROOF_IDS value, API version (RegisteredSealProof::version), feature and sector
// size, and the VanillaSealProof variant a C1 file holds its vanilla proofs under (src/seal.rs:
// one variant per sector size, "StackedDrg<size>V1" whatever the version):
//
//   ids  0..4   StackedDrg<size>V1                                API 1.0.0
//   ids  5..9   StackedDrg<size>V1_1                              API 1.1.0
//   ids 10..14  StackedDrg<size>V1_1_Feat_SyntheticPoRep          API 1.2.0 (the "1_1" in the
//               published name is registry.rs's own historical mistake)
//   ids 15..19  StackedDrg<size>V1_2_Feat_NonInteractivePoRep     API 1.2.0
//
// The C1 decoder (c1_json.hpp) and the circuit (config_for_proof) both take their answer from
// here: c2lab's circuit proves the V1_1 rows (`supported`); a C1 file naming any other row is
// refused with the reason (e.g. "NI-PoRep (non-interactive PoRep) is not supported"), a name
// outside the table as unknown.
enum class seal_feature { none, synthetic_porep, non_interactive_porep };

struct registered_seal_proof {
    std::string_view name;             // serde name, e.g. "StackedDrg2KiBV1_1"
    uint64_t id = 0;                   // REGISTERED_PROOF_IDS
    api_version api = api_version::v1_1_0;
    seal_feature feature = seal_feature::none;
    uint64_t sector_size = 0;          // bytes
    std::string_view vanilla_variant;  // VanillaSealProof variant, e.g. "StackedDrg2KiBV1"
    bool supported = false;            // c2lab's circuit proves it (the V1_1 rows)
};

std::span<const registered_seal_proof> registered_seal_proofs() noexcept;
// The row of a serde name (exact, case-sensitive), or nullptr.
const registered_seal_proof* find_registered_seal_proof(std::string_view name) noexcept;
// The VanillaSealProof variants, one per sector size: StackedDrg2KiBV1 .. StackedDrg64GiBV1.
std::span<const std::string_view> vanilla_seal_proof_variants() noexcept;
// The row of a name c2lab proves; otherwise c2lab::error(errc::bad_input): for a name outside
// the table "unknown registered proof \"<name>\"", for a known one the reason it is not
// supported; both list the supported names.
const registered_seal_proof& supported_seal_proof(std::string_view name);

// The V1_1 registered seal proofs, by sector size: 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB.
std::span<const porep_config> registered_configs() noexcept;

// Throws c2lab::error(errc::bad_input) naming the size and listing the supported ones.
const porep_config& config_for_sector(uint64_t sector_size);
// By the serde name (e.g. "StackedDrg2KiBV1_1"); a name supported_seal_proof refuses throws its
// c2lab::error(errc::bad_input).
const porep_config& config_for_proof(std::string_view registered_proof);

// "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" (unit case-insensitive) or a plain byte count of one
// of them ("2048"); anything else throws c2lab::error(errc::bad_input) naming the text.
uint64_t parse_sector_size(std::string_view text);
// The size in the largest of GiB, MiB, KiB that divides it ("32GiB"), else the byte count.
std::string format_sector_size(uint64_t sector_size);

// registry.rs RegisteredSealProof::porep_id: id (u64 LE) in bytes 0..8, nonce (u64 LE) in 8..16.
porep_id_bytes make_porep_id(uint64_t registered_proof_id, uint64_t nonce = 0) noexcept;

// "V1_0", "V1_1", "V1_2" (also "1.0.0", "1.1.0", "1.2.0"); anything else throws
// c2lab::error(errc::bad_input) naming the text.
api_version parse_api_version(std::string_view text);

// The registered seal proof of a sector size at an API version (a row of
// registered_seal_proofs without a feature, or with Synthetic PoRep for V1_2_0):
// V1_0_0 the StackedDrg<size>V1 proofs (ids 0..4), V1_1_0 the V1_1 ones (ids 5..9, as
// config_for_sector), V1_2_0 the StackedDrg<size>V1_1_Feat_SyntheticPoRep ones (ids 10..14,
// the first proofs registered with V1_2_0). Only the graph inputs (porep id, api version)
// change; layers, partitions, challenges and trees are those of the V1_1 row.
porep_config config_for_api(uint64_t sector_size, api_version api);

// A shape outside the registered proofs, as rust-fil-proofs' circuit tests build them
// (storage-proofs-porep tests/stacked_circuit.rs): nodes (a power of two, >= 2), layers,
// challenges per partition (one partition), tree_c / tree_r_last arities (base 2, 4 or 8; sub
// 0, 2, 4 or 8; top 0 or 2, with a sub arity), and a porep id of 32 copies of one byte. The
// nodes must fill base_tree_count full base trees. registered_proof is "custom"; bad values
// throw c2lab::error(errc::bad_input).
porep_config custom_config(uint64_t nodes, uint32_t layers, uint32_t challenges, uint32_t base_arity,
                           uint32_t sub_arity, uint32_t top_arity, uint8_t porep_id_byte,
                           api_version api = api_version::v1_1_0);

}  // namespace c2lab::porep

#include "porep/params.hpp"

#include <cctype>
#include <charconv>

#include "core/error.hpp"

namespace c2lab::porep {

namespace {

constexpr uint64_t kib = 1ull << 10;
constexpr uint64_t mib = 1ull << 20;
constexpr uint64_t gib = 1ull << 30;

// The registered seal proofs (params.hpp): rust-filecoin-proofs-api src/registry.rs
// (RegisteredSealProof, REGISTERED_PROOF_IDS, version()) and src/seal.rs (VanillaSealProof).
constexpr std::string_view vanilla_variants[] = {"StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1",
                                                 "StackedDrg32GiBV1", "StackedDrg64GiBV1"};

constexpr registered_seal_proof seal_row(std::string_view name, uint64_t id, api_version api, seal_feature feature,
                                         uint64_t sector_size, size_t size_index) {
    return {name, id, api, feature, sector_size, vanilla_variants[size_index],
            api == api_version::v1_1_0 && feature == seal_feature::none};
}

using enum api_version;
using enum seal_feature;
constexpr registered_seal_proof seal_proofs[] = {
    seal_row("StackedDrg2KiBV1", 0, v1_0_0, none, 2 * kib, 0),
    seal_row("StackedDrg8MiBV1", 1, v1_0_0, none, 8 * mib, 1),
    seal_row("StackedDrg512MiBV1", 2, v1_0_0, none, 512 * mib, 2),
    seal_row("StackedDrg32GiBV1", 3, v1_0_0, none, 32 * gib, 3),
    seal_row("StackedDrg64GiBV1", 4, v1_0_0, none, 64 * gib, 4),
    seal_row("StackedDrg2KiBV1_1", 5, v1_1_0, none, 2 * kib, 0),
    seal_row("StackedDrg8MiBV1_1", 6, v1_1_0, none, 8 * mib, 1),
    seal_row("StackedDrg512MiBV1_1", 7, v1_1_0, none, 512 * mib, 2),
    seal_row("StackedDrg32GiBV1_1", 8, v1_1_0, none, 32 * gib, 3),
    seal_row("StackedDrg64GiBV1_1", 9, v1_1_0, none, 64 * gib, 4),
    seal_row("StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 10, v1_2_0, synthetic_porep, 2 * kib, 0),
    seal_row("StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 11, v1_2_0, synthetic_porep, 8 * mib, 1),
    seal_row("StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 12, v1_2_0, synthetic_porep, 512 * mib, 2),
    seal_row("StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 13, v1_2_0, synthetic_porep, 32 * gib, 3),
    seal_row("StackedDrg64GiBV1_1_Feat_SyntheticPoRep", 14, v1_2_0, synthetic_porep, 64 * gib, 4),
    seal_row("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 15, v1_2_0, non_interactive_porep, 2 * kib, 0),
    seal_row("StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", 16, v1_2_0, non_interactive_porep, 8 * mib, 1),
    seal_row("StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", 17, v1_2_0, non_interactive_porep, 512 * mib, 2),
    seal_row("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 18, v1_2_0, non_interactive_porep, 32 * gib, 3),
    seal_row("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 19, v1_2_0, non_interactive_porep, 64 * gib, 4),
};

// The seal proof of a sector size, API version and feature (nullptr when there is none).
const registered_seal_proof* find_seal_proof(uint64_t sector_size, api_version api, seal_feature feature) noexcept {
    for (const auto& p : seal_proofs)
        if (p.sector_size == sector_size && p.api == api && p.feature == feature) return &p;
    return nullptr;
}

// The circuit's shape of each sector size (the V1_1 rows). Sources (rust-fil-proofs):
//   filecoin-proofs/src/constants.rs: POREP_PARTITIONS (1 below 32 GiB, 10 for 32/64 GiB),
//     LAYERS (2 below 32 GiB, 11 for 32/64 GiB), get_porep_interactive_minimum_challenges
//     (2 below 32 GiB, 176 for 32/64 GiB), SectorShape2KiB/8MiB/512MiB = <8,0,0>,
//     SectorShape32GiB = <8,8,0>, SectorShape64GiB = <8,8,2>;
//   filecoin-proofs/src/parameters.rs select_challenges: per partition div_ceil(min, partitions);
//   storage-proofs-core/src/merkle/builders.rs get_base_tree_count;
// the name and id are those of the V1_1 seal proof of the size (version V1_1_0, nonce 0).
struct row {
    uint64_t sector_size;
    uint32_t layers;
    uint32_t partitions;
    uint32_t min_challenges;
    uint32_t sub_arity;
    uint32_t top_arity;
};

constexpr row rows[] = {
    {2 * kib, 2, 1, 2, 0, 0},
    {8 * mib, 2, 1, 2, 0, 0},
    {512 * mib, 2, 1, 2, 0, 0},
    {32 * gib, 11, 10, 176, 8, 0},
    {64 * gib, 11, 10, 176, 8, 2},
};
constexpr size_t row_count = sizeof(rows) / sizeof(rows[0]);

porep_config make_config(const row& r) {
    const registered_seal_proof* p = find_seal_proof(r.sector_size, api_version::v1_1_0, seal_feature::none);
    if (p == nullptr) throw error(errc::internal, "no V1_1 seal proof of " + std::to_string(r.sector_size) + " bytes");
    porep_config c;
    c.registered_proof = std::string(p->name);
    c.registered_proof_id = p->id;
    c.api = p->api;
    c.porep_id = make_porep_id(p->id, 0);
    c.sector_size = r.sector_size;
    c.nodes = r.sector_size / node_size;
    c.layers = r.layers;
    c.partitions = r.partitions;
    c.total_challenges = r.min_challenges;
    c.challenges_per_partition = 1 + (r.min_challenges - 1) / r.partitions;  // div_ceil
    c.base_arity = 8;
    c.sub_arity = r.sub_arity;
    c.top_arity = r.top_arity;
    c.base_tree_count = r.top_arity != 0 ? r.top_arity * r.sub_arity : (r.sub_arity != 0 ? r.sub_arity : 1);
    c.base_tree_leaves = c.nodes / c.base_tree_count;
    return c;
}

const std::array<porep_config, row_count>& table() {
    static const std::array<porep_config, row_count> t = [] {
        std::array<porep_config, row_count> a;
        for (size_t i = 0; i < row_count; ++i) a[i] = make_config(rows[i]);
        return a;
    }();
    return t;
}

std::string allowed_sizes() {
    return "2KiB, 8MiB, 512MiB, 32GiB, 64GiB, or their byte counts 2048, 8388608, 536870912, 34359738368, "
           "68719476736";
}

[[noreturn]] void refuse_size(std::string_view text, std::string_view why) {
    throw error(errc::bad_input, "sector size \"" + std::string(text) + "\": " + std::string(why) +
                                     " (expected one of " + allowed_sizes() + ")");
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

const porep_config* find_size(uint64_t sector_size) {
    for (const auto& c : table())
        if (c.sector_size == sector_size) return &c;
    return nullptr;
}

}  // namespace

std::string_view to_string(api_version v) noexcept {
    switch (v) {
        case api_version::v1_0_0: return "1.0.0";
        case api_version::v1_1_0: return "1.1.0";
        case api_version::v1_2_0: return "1.2.0";
    }
    return "?";
}

porep_id_bytes make_porep_id(uint64_t registered_proof_id, uint64_t nonce) noexcept {
    porep_id_bytes id{};
    for (int i = 0; i < 8; ++i) {
        id[i] = static_cast<uint8_t>(registered_proof_id >> (8 * i));
        id[8 + i] = static_cast<uint8_t>(nonce >> (8 * i));
    }
    return id;
}

std::span<const porep_config> registered_configs() noexcept { return table(); }

api_version parse_api_version(std::string_view text) {
    if (text == "V1_0" || text == "V1_0_0" || text == "1.0.0" || text == "1.0") return api_version::v1_0_0;
    if (text == "V1_1" || text == "V1_1_0" || text == "1.1.0" || text == "1.1") return api_version::v1_1_0;
    if (text == "V1_2" || text == "V1_2_0" || text == "1.2.0" || text == "1.2") return api_version::v1_2_0;
    throw error(errc::bad_input, "api version \"" + std::string(text) + "\" is not one of V1_0, V1_1, V1_2");
}

porep_config config_for_api(uint64_t sector_size, api_version api) {
    porep_config c = config_for_sector(sector_size);
    if (api == api_version::v1_1_0) return c;
    const registered_seal_proof* p = find_seal_proof(
        sector_size, api, api == api_version::v1_2_0 ? seal_feature::synthetic_porep : seal_feature::none);
    if (p == nullptr)
        throw error(errc::internal, "no registered seal proof of " + std::to_string(sector_size) + " bytes at API " +
                                        std::string(to_string(api)));
    c.registered_proof = std::string(p->name);
    c.registered_proof_id = p->id;
    c.api = api;
    c.porep_id = make_porep_id(c.registered_proof_id, 0);
    return c;
}

porep_config custom_config(uint64_t nodes, uint32_t layers, uint32_t challenges, uint32_t base_arity,
                           uint32_t sub_arity, uint32_t top_arity, uint8_t porep_id_byte, api_version api) {
    auto bad = [](const std::string& why) { throw error(errc::bad_input, "custom shape: " + why); };
    if (nodes < 2 || nodes > (uint64_t{1} << 32) || (nodes & (nodes - 1)) != 0)
        bad("nodes " + std::to_string(nodes) + " is not a power of two in [2, 2^32]");
    if (layers < 1 || layers > 36) bad("layers " + std::to_string(layers) + " is not in [1, 36]");
    if (challenges < 1 || challenges > 1u << 16) bad("challenges " + std::to_string(challenges) + " is not in [1, 65536]");
    if (base_arity != 2 && base_arity != 4 && base_arity != 8)
        bad("base arity " + std::to_string(base_arity) + " is not 2, 4 or 8");
    if (sub_arity != 0 && sub_arity != 2 && sub_arity != 4 && sub_arity != 8)
        bad("sub-tree arity " + std::to_string(sub_arity) + " is not 0, 2, 4 or 8");
    if (top_arity != 0 && top_arity != 2) bad("top-tree arity " + std::to_string(top_arity) + " is not 0 or 2");
    if (top_arity != 0 && sub_arity == 0) bad("a top-tree arity needs a sub-tree arity");
    porep_config c;
    c.registered_proof = "custom";
    c.registered_proof_id = 0;
    c.api = api;
    c.porep_id.fill(porep_id_byte);
    c.sector_size = nodes * node_size;
    c.nodes = nodes;
    c.layers = layers;
    c.partitions = 1;
    c.total_challenges = challenges;
    c.challenges_per_partition = challenges;
    c.base_arity = base_arity;
    c.sub_arity = sub_arity;
    c.top_arity = top_arity;
    c.base_tree_count = top_arity != 0 ? top_arity * sub_arity : (sub_arity != 0 ? sub_arity : 1);
    if (nodes % c.base_tree_count != 0 || nodes / c.base_tree_count < base_arity)
        bad(std::to_string(nodes) + " nodes do not fill " + std::to_string(c.base_tree_count) +
            " base trees of arity " + std::to_string(base_arity));
    c.base_tree_leaves = nodes / c.base_tree_count;
    for (uint64_t n = c.base_tree_leaves; n > 1; n /= base_arity)
        if (n % base_arity != 0)
            bad(std::to_string(c.base_tree_leaves) + " leaves per base tree are not a power of " +
                std::to_string(base_arity));
    return c;
}

const porep_config& config_for_sector(uint64_t sector_size) {
    if (const porep_config* c = find_size(sector_size)) return *c;
    throw error(errc::bad_input, "sector size " + std::to_string(sector_size) +
                                     " bytes is not a registered seal proof size (expected one of " +
                                     allowed_sizes() + ")");
}

std::span<const registered_seal_proof> registered_seal_proofs() noexcept { return seal_proofs; }

std::span<const std::string_view> vanilla_seal_proof_variants() noexcept { return vanilla_variants; }

const registered_seal_proof* find_registered_seal_proof(std::string_view name) noexcept {
    for (const auto& p : seal_proofs)
        if (p.name == name) return &p;
    return nullptr;
}

const registered_seal_proof& supported_seal_proof(std::string_view name) {
    const registered_seal_proof* p = find_registered_seal_proof(name);
    if (p != nullptr && p->supported) return *p;
    std::string supported;
    for (const auto& s : seal_proofs)
        if (s.supported) supported += (supported.empty() ? "" : ", ") + std::string(s.name);
    if (p == nullptr)
        throw error(errc::bad_input, "unknown registered proof \"" + std::string(name) +
                                         "\" (supported: " + supported + ")");
    std::string why;
    switch (p->feature) {
        case seal_feature::non_interactive_porep: why = "NI-PoRep (non-interactive PoRep) is not supported"; break;
        case seal_feature::synthetic_porep: why = "Synthetic PoRep is not supported"; break;
        case seal_feature::none:
            why = "API version " + std::string(to_string(p->api)) + " proofs are not supported";
            break;
    }
    throw error(errc::bad_input, "registered proof \"" + std::string(name) + "\": " + why + " (supported: " +
                                     supported + ")");
}

const porep_config& config_for_proof(std::string_view registered_proof) {
    return config_for_sector(supported_seal_proof(registered_proof).sector_size);
}

uint64_t parse_sector_size(std::string_view text) {
    if (text.empty()) refuse_size(text, "empty");
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0) refuse_size(text, "does not start with a decimal number");
    uint64_t number = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
    if (ec != std::errc{} || end != text.data() + digits) refuse_size(text, "number out of range");
    std::string_view unit = text.substr(digits);
    uint64_t scale = 1;
    if (unit.empty()) scale = 1;
    else if (iequals(unit, "KiB")) scale = kib;
    else if (iequals(unit, "MiB")) scale = mib;
    else if (iequals(unit, "GiB")) scale = gib;
    else refuse_size(text, "unknown unit \"" + std::string(unit) + "\"");
    if (number > UINT64_MAX / scale) refuse_size(text, "number out of range");
    const uint64_t bytes = number * scale;
    if (!find_size(bytes)) refuse_size(text, "not a registered seal proof size");
    return bytes;
}

std::string format_sector_size(uint64_t sector_size) {
    if (sector_size != 0 && sector_size % gib == 0) return std::to_string(sector_size / gib) + "GiB";
    if (sector_size != 0 && sector_size % mib == 0) return std::to_string(sector_size / mib) + "MiB";
    if (sector_size != 0 && sector_size % kib == 0) return std::to_string(sector_size / kib) + "KiB";
    return std::to_string(sector_size);
}

}  // namespace c2lab::porep

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "porep/params.hpp"

namespace c2lab::porep {
namespace {

// Values from rust-fil-proofs filecoin-proofs/src/constants.rs (POREP_PARTITIONS, LAYERS,
// get_porep_interactive_minimum_challenges, SectorShape*), parameters.rs (div_ceil) and
// rust-filecoin-proofs-api src/registry.rs (names, REGISTERED_PROOF_IDS, V1_1_0).
struct expected_row {
    const char* name;
    uint64_t id;
    uint64_t sector_size;
    uint64_t nodes;
    uint32_t layers, partitions, min_challenges, per_partition;
    uint32_t sub, top;
    uint64_t base_leaves;
    uint32_t base_count;
};

constexpr expected_row expected[] = {
    {"StackedDrg2KiBV1_1", 5, 2048, 64, 2, 1, 2, 2, 0, 0, 64, 1},
    {"StackedDrg8MiBV1_1", 6, 8ull << 20, 1ull << 18, 2, 1, 2, 2, 0, 0, 1ull << 18, 1},
    {"StackedDrg512MiBV1_1", 7, 512ull << 20, 1ull << 24, 2, 1, 2, 2, 0, 0, 1ull << 24, 1},
    {"StackedDrg32GiBV1_1", 8, 32ull << 30, 1ull << 30, 11, 10, 176, 18, 8, 0, 1ull << 27, 8},
    {"StackedDrg64GiBV1_1", 9, 64ull << 30, 1ull << 31, 11, 10, 176, 18, 8, 2, 1ull << 27, 16},
};

TEST(params, table_matches_rust_fil_proofs) {
    ASSERT_EQ(registered_configs().size(), std::size(expected));
    for (const auto& e : expected) {
        const porep_config& c = config_for_sector(e.sector_size);
        EXPECT_EQ(c.registered_proof, e.name);
        EXPECT_EQ(c.registered_proof_id, e.id);
        EXPECT_EQ(c.api, api_version::v1_1_0);
        EXPECT_EQ(c.sector_size, e.sector_size);
        EXPECT_EQ(c.nodes, e.nodes);
        EXPECT_EQ(c.layers, e.layers) << e.name;
        EXPECT_EQ(c.partitions, e.partitions) << e.name;
        EXPECT_EQ(c.total_challenges, e.min_challenges) << e.name;
        EXPECT_EQ(c.challenges_per_partition, e.per_partition) << e.name;
        EXPECT_LE(c.challenges_per_partition, max_challenges_per_partition);
        EXPECT_EQ(c.base_arity, 8u);
        EXPECT_EQ(c.sub_arity, e.sub) << e.name;
        EXPECT_EQ(c.top_arity, e.top) << e.name;
        EXPECT_EQ(c.base_tree_leaves, e.base_leaves) << e.name;
        EXPECT_EQ(c.base_tree_count, e.base_count) << e.name;
        EXPECT_EQ(c.base_tree_leaves * c.base_tree_count, c.nodes);
        EXPECT_EQ(&config_for_proof(e.name), &c);
    }
    EXPECT_EQ(config_for_sector(32ull << 30).proven_challenges(), 180u);
    EXPECT_EQ(config_for_sector(2048).proven_challenges(), 2u);
}

TEST(params, degrees) {
    EXPECT_EQ(base_degree, 6u);
    EXPECT_EQ(expansion_degree, 8u);
    EXPECT_EQ(total_degree, 14u);
    EXPECT_EQ(node_size, 32u);
}

// registry.rs porep_id: id u64 LE in bytes 0..8, nonce (0) u64 LE in 8..16, zeros after.
TEST(params, porep_id_layout) {
    const auto& c = config_for_sector(32ull << 30);
    porep_id_bytes want{};
    want[0] = 8;
    EXPECT_EQ(c.porep_id, want);
    const auto id = make_porep_id(0x0102030405060708ull, 0x1112131415161718ull);
    EXPECT_EQ(id[0], 0x08);
    EXPECT_EQ(id[7], 0x01);
    EXPECT_EQ(id[8], 0x18);
    EXPECT_EQ(id[15], 0x11);
    for (int i = 16; i < 32; ++i) EXPECT_EQ(id[i], 0);
}

TEST(params, api_version_names) {
    EXPECT_EQ(to_string(api_version::v1_0_0), "1.0.0");
    EXPECT_EQ(to_string(api_version::v1_1_0), "1.1.0");
    EXPECT_EQ(to_string(api_version::v1_2_0), "1.2.0");
}

TEST(params, unknown_sizes_and_names_throw) {
    for (uint64_t bad : {0ull, 4096ull, 1ull << 30, 16ull << 20}) {
        try {
            config_for_sector(bad);
            FAIL() << bad;
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos);
            EXPECT_NE(std::string(e.what()).find("32GiB"), std::string::npos);
        }
    }
    for (const char* bad : {"StackedDrg2KiBV1", "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", "", "stackeddrg2kibv1_1"}) {
        try {
            config_for_proof(bad);
            FAIL() << bad;
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            EXPECT_NE(std::string(e.what()).find("StackedDrg64GiBV1_1"), std::string::npos);
        }
    }
}

// rust-filecoin-proofs-api src/registry.rs: RegisteredSealProof in declaration order, ids
// 0..19 (REGISTERED_PROOF_IDS), version(); src/seal.rs: the VanillaSealProof variant per size.
TEST(params, registered_seal_proofs_match_registry) {
    const char* sizes[] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
    const char* suffixes[] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"};
    const api_version apis[] = {api_version::v1_0_0, api_version::v1_1_0, api_version::v1_2_0, api_version::v1_2_0};
    const seal_feature features[] = {seal_feature::none, seal_feature::none, seal_feature::synthetic_porep,
                                     seal_feature::non_interactive_porep};
    const auto all = registered_seal_proofs();
    ASSERT_EQ(all.size(), 20u);
    for (size_t group = 0; group < 4; ++group)
        for (size_t k = 0; k < 5; ++k) {
            const registered_seal_proof& p = all[group * 5 + k];
            const std::string name = std::string("StackedDrg") + sizes[k] + suffixes[group];
            EXPECT_EQ(p.name, name);
            EXPECT_EQ(p.id, group * 5 + k) << name;
            EXPECT_EQ(p.api, apis[group]) << name;
            EXPECT_EQ(p.feature, features[group]) << name;
            EXPECT_EQ(p.sector_size, parse_sector_size(sizes[k])) << name;
            EXPECT_EQ(p.vanilla_variant, std::string("StackedDrg") + sizes[k] + "V1") << name;
            EXPECT_EQ(p.supported, group == 1) << name;
            EXPECT_EQ(find_registered_seal_proof(name), &p);
            if (p.supported) {
                EXPECT_EQ(&supported_seal_proof(name), &p);
                EXPECT_EQ(config_for_proof(name).registered_proof, name);
                EXPECT_EQ(config_for_proof(name).registered_proof_id, p.id);
            }
            if (group != 3) {  // config_for_api names the proof of its version (V1_2: Synthetic PoRep)
                const porep_config c = config_for_api(p.sector_size, p.api);
                EXPECT_EQ(c.registered_proof, name);
                EXPECT_EQ(c.porep_id, make_porep_id(p.id));
            }
        }
    EXPECT_EQ(find_registered_seal_proof("StackedDrg2KiBV1_2"), nullptr);
    EXPECT_EQ(vanilla_seal_proof_variants().size(), 5u);
}

// The circuit refuses what the C1 decoder refuses, with the same reason.
TEST(params, unsupported_proofs_name_the_reason) {
    const struct {
        const char* name;
        const char* why;
    } cases[] = {
        {"StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", "NI-PoRep (non-interactive PoRep) is not supported"},
        {"StackedDrg64GiBV1_1_Feat_SyntheticPoRep", "Synthetic PoRep is not supported"},
        {"StackedDrg8MiBV1", "API version 1.0.0 proofs are not supported"},
        {"StackedDrg8MiBV1_3", "unknown registered proof"},
    };
    for (const auto& c : cases) {
        try {
            config_for_proof(c.name);
            ADD_FAILURE() << c.name;
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            const std::string msg = e.what();
            EXPECT_NE(msg.find(c.why), std::string::npos) << msg;
            EXPECT_NE(msg.find(c.name), std::string::npos) << msg;
            EXPECT_NE(msg.find("supported: StackedDrg2KiBV1_1, StackedDrg8MiBV1_1"), std::string::npos) << msg;
        }
    }
}

TEST(params, parse_sector_size_accepts) {
    EXPECT_EQ(parse_sector_size("2KiB"), 2048u);
    EXPECT_EQ(parse_sector_size("8MiB"), 8ull << 20);
    EXPECT_EQ(parse_sector_size("512MiB"), 512ull << 20);
    EXPECT_EQ(parse_sector_size("32GiB"), 32ull << 30);
    EXPECT_EQ(parse_sector_size("64GiB"), 64ull << 30);
    EXPECT_EQ(parse_sector_size("32gib"), 32ull << 30);
    EXPECT_EQ(parse_sector_size("2048"), 2048u);
    EXPECT_EQ(parse_sector_size("8388608"), 8ull << 20);
    EXPECT_EQ(parse_sector_size("536870912"), 512ull << 20);
    EXPECT_EQ(parse_sector_size("34359738368"), 32ull << 30);
    EXPECT_EQ(parse_sector_size("68719476736"), 64ull << 30);
}

TEST(params, parse_sector_size_refuses_naming_the_text) {
    for (const char* bad : {"", "4KiB", "2KB", "2 KiB", "KiB", "32GiBx", "-2048", "2049", "1GiB",
                            "99999999999999999999999", "18014398509481984GiB", "0x800"}) {
        try {
            parse_sector_size(bad);
            FAIL() << bad;
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            const std::string what = e.what();
            EXPECT_NE(what.find("\"" + std::string(bad) + "\""), std::string::npos) << what;
            EXPECT_NE(what.find("2KiB, 8MiB, 512MiB, 32GiB, 64GiB"), std::string::npos) << what;
        }
    }
}

TEST(params, format_sector_size) {
    EXPECT_EQ(format_sector_size(2048), "2KiB");
    EXPECT_EQ(format_sector_size(8ull << 20), "8MiB");
    EXPECT_EQ(format_sector_size(512ull << 20), "512MiB");
    EXPECT_EQ(format_sector_size(32ull << 30), "32GiB");
    EXPECT_EQ(format_sector_size(64ull << 30), "64GiB");
    EXPECT_EQ(format_sector_size(100), "100");
    for (const auto& c : registered_configs()) EXPECT_EQ(parse_sector_size(format_sector_size(c.sector_size)), c.sector_size);
}

}  // namespace
}  // namespace c2lab::porep

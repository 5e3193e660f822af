// Sealing inputs and the parent cache against rust-fil-proofs' published values, and the
// primitives underneath against their standards' vectors.
#include "porep/seal_inputs.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/hex.hpp"
#include "porep/circuit.hpp"
#include "porep/generator.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::porep {
namespace {

std::vector<uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }
std::string hex(std::span<const uint8_t> b) { return to_hex(b); }

// ---- primitives: published vectors ----

TEST(known_answers, sha256_nist_two_block_message) {
    // FIPS 180-2 appendix B.2 ("abcdbcde...nopq", 448 bits).
    const auto d = sha256_digest(bytes_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"));
    EXPECT_EQ(hex(d), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(hex(sha256_digest({})), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(known_answers, blake2b_rfc7693_abc) {
    EXPECT_EQ(hex(blake2b_512(bytes_of("abc"))),
              "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8"
              "dbf1925ab92386edd4009923");
}

TEST(known_answers, chacha8_zero_key_keystream) {
    // ChaCha8, 256-bit all-zero key, all-zero IV: the first 64 keystream bytes of Strombergson's
    // draft-strombergson-chacha-test-vectors TC1 (also rand_chacha's test_chacha8 input).
    chacha8_rng rng(std::array<uint8_t, 32>{});
    std::vector<uint8_t> ks;
    for (int i = 0; i < 16; ++i) {
        const uint32_t w = rng.next_u32();
        for (int b = 0; b < 4; ++b) ks.push_back(static_cast<uint8_t>(w >> (8 * b)));
    }
    EXPECT_EQ(hex(ks),
              "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e984ce172b9216f419f445367456d5619314a42a3"
              "da86b001387bfdb80e0cfe42");
}

// ---- replica id and challenges ----

// Expected values from Python's hashlib, independently of c2lab:
//   import hashlib, struct
//   pid = lambda i: struct.pack('<QQ', i, 0) + bytes(16)
//   h = bytearray(hashlib.sha256(bytes(range(32)) + struct.pack('>Q', 1234567890123) + b'\xaa' * 32
//                                + bytes(range(0x40, 0x60)) + pid(5)).digest()); h[31] &= 0x3f
//   ch = lambda r, nodes, cpp, k: [int.from_bytes(hashlib.sha256(r + b'\x22' * 32
//          + struct.pack('<I', cpp * k + i)).digest(), 'little') % (nodes - 1) + 1 for i in range(cpp)]
struct example {
    bytes32 prover_id{}, ticket{}, seed{};
    domain comm_d{};
    uint64_t sector_id = 1234567890123;
    example() {
        for (int i = 0; i < 32; ++i) {
            prover_id[i] = static_cast<uint8_t>(i);
            comm_d[i] = static_cast<uint8_t>(0x40 + i);
        }
        ticket.fill(0xaa);
        seed.fill(0x22);
    }
};

TEST(seal_inputs, replica_id_known_answers) {
    const example e;
    EXPECT_EQ(hex(derive_replica_id(e.prover_id, e.sector_id, e.ticket, e.comm_d, make_porep_id(5))),
              "7b0113f54c5e35428cb0393fa4682f8295ab9cbe90460b52fbd6953e2bd40812");
    EXPECT_EQ(hex(derive_replica_id(e.prover_id, e.sector_id, e.ticket, e.comm_d, make_porep_id(8))),
              "586c73900baf0cfcd5d296d2782356297cb914cc947a9f50d0b0b85f75ff191c");
}

TEST(seal_inputs, challenges_known_answers) {
    const example e;
    const porep_config& c2k = config_for_sector(2048);
    const auto r5 = derive_replica_id(e.prover_id, e.sector_id, e.ticket, e.comm_d, c2k.porep_id);
    const auto all2k = derive_all_challenges(c2k, r5, e.seed);
    ASSERT_EQ(all2k.size(), 1u);
    EXPECT_EQ(all2k[0], (std::vector<uint64_t>{25, 10}));
    const porep_config& c32g = config_for_sector(32ull << 30);
    const auto r8 = derive_replica_id(e.prover_id, e.sector_id, e.ticket, e.comm_d, c32g.porep_id);
    const auto all32g = derive_all_challenges(c32g, r8, e.seed);
    ASSERT_EQ(all32g.size(), 10u);
    EXPECT_EQ(all32g[9], (std::vector<uint64_t>{330054568, 24204454, 274460230, 145824530, 603150697, 498464851,
                                                157229123, 667410482, 947551679, 656308352, 553839668, 466146378,
                                                477333938, 364842699, 402907760, 494344661, 542494943, 326269765}));
    for (uint32_t k = 0; k < 10; ++k) EXPECT_EQ(all32g[k], derive_challenges(c32g, r8, e.seed, k));
}

TEST(seal_inputs, api_versions_and_proof_ids) {
    EXPECT_EQ(parse_api_version("V1_0"), api_version::v1_0_0);
    EXPECT_EQ(parse_api_version("V1_1"), api_version::v1_1_0);
    EXPECT_EQ(parse_api_version("1.2.0"), api_version::v1_2_0);
    EXPECT_THROW(parse_api_version("V2"), error);
    const porep_config v10 = config_for_api(2048, api_version::v1_0_0);
    EXPECT_EQ(v10.registered_proof, "StackedDrg2KiBV1");
    EXPECT_EQ(v10.porep_id, make_porep_id(0));
    const porep_config v12 = config_for_api(64ull << 30, api_version::v1_2_0);
    EXPECT_EQ(v12.registered_proof, "StackedDrg64GiBV1_1_Feat_SyntheticPoRep");
    EXPECT_EQ(v12.porep_id, make_porep_id(14));
    EXPECT_EQ(config_for_api(8ull << 20, api_version::v1_1_0).porep_id, make_porep_id(6));
}

// A generated C1 carries the replica id and challenges Filecoin would derive from its
// sealing inputs and comm_d.
TEST(seal_inputs, generated_c1_uses_the_derivations) {
    const porep_config& cfg = config_for_sector(2048);
    seal_input_overrides o;
    o.prover_id.emplace();
    o.prover_id->fill(1);
    o.sector_id = 7;
    o.ticket.emplace();
    o.ticket->fill(2);
    o.seed.emplace();
    o.seed->fill(3);
    const c1_file f = generate_c1(cfg, 1, o);
    EXPECT_EQ(f.sector_num, 7u);
    EXPECT_EQ(f.phase1_out.comm_d, generated_comm_d(cfg, 1));
    EXPECT_EQ(f.phase1_out.replica_id, derive_replica_id(*o.prover_id, 7, *o.ticket, f.phase1_out.comm_d, cfg.porep_id));
    const auto ch = derive_all_challenges(cfg, f.phase1_out.replica_id, *o.seed);
    ASSERT_EQ(f.phase1_out.vanilla_proofs[0].size(), ch[0].size());
    for (size_t i = 0; i < ch[0].size(); ++i)
        EXPECT_EQ(f.phase1_out.vanilla_proofs[0][i].labeling_proofs[0].node, ch[0][i]);
    // comm_d does not depend on the sealing inputs (the data comes first).
    EXPECT_EQ(generate_c1(cfg, 1).phase1_out.comm_d, f.phase1_out.comm_d);
}

// ---- the parent cache: storage-proofs-porep/parent_cache.json (rust-fil-proofs) ----

struct cache_entry {
    uint64_t sector_size;
    api_version api;
    const char* id;
    const char* digest;
};

void expect_entry(const cache_entry& e) {
    const stacked_graph g(config_for_api(e.sector_size, e.api));
    EXPECT_EQ(parent_cache_id(g), e.id) << e.sector_size << " " << to_string(e.api);
    EXPECT_EQ(hex(parent_cache_digest(g)), e.digest) << e.sector_size << " " << to_string(e.api);
}

TEST(parent_cache, digest_2kib_v1_0_and_v1_1) {
    expect_entry({2048, api_version::v1_0_0,
                  "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
                  "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"});
    expect_entry({2048, api_version::v1_1_0,
                  "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
                  "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"});
}

TEST(parent_cache, digest_8mib_v1_0) {  // 2^18 nodes
    expect_entry({8ull << 20, api_version::v1_0_0,
                  "v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
                  "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"});
}

TEST(parent_cache, digest_8mib_v1_1) {  // 2^18 nodes
    expect_entry({8ull << 20, api_version::v1_1_0,
                  "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5",
                  "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"});
}

TEST(parent_cache, streaming_does_not_depend_on_the_batch) {
    const stacked_graph g(config_for_sector(2048));
    std::vector<uint8_t> whole(g.nodes() * parent_cache_entry_bytes);
    fill_parent_cache(g, 0, g.nodes(), whole);
    for (uint64_t batch : {1, 7, 64, 1000}) {
        std::vector<uint8_t> got;
        stream_parent_cache(g, [&](std::span<const uint8_t> p) { got.insert(got.end(), p.begin(), p.end()); }, batch);
        EXPECT_EQ(got, whole) << batch;
    }
    // Node 5's entry: its 14 parents, u32 LE, base then expansion.
    std::array<uint32_t, total_degree> p;
    g.parents(5, std::span<uint32_t, total_degree>(p));
    for (size_t i = 0; i < total_degree; ++i) {
        const uint8_t* e = whole.data() + 5 * parent_cache_entry_bytes + 4 * i;
        EXPECT_EQ(uint32_t(e[0]) | uint32_t(e[1]) << 8 | uint32_t(e[2]) << 16 | uint32_t(e[3]) << 24, p[i]);
    }
    std::vector<uint8_t> small(parent_cache_entry_bytes);
    EXPECT_THROW(fill_parent_cache(g, 64, 1, small), error);
}

// ---- circuit shapes of rust-fil-proofs' tests ----

// storage-proofs-porep tests/stacked_circuit.rs: nodes = 8 * base_tree_count, 2 layers, one
// challenge, porep id [44; 32]; MetricCS counts (inputs with the one, constraints without
// the input constraints).
TEST(custom_shape, stacked_circuit_rs_counts) {
    struct row {
        uint32_t base, sub, top;
        size_t constraints;
    };
    for (const row& r : {row{2, 0, 0, 1'206'212}, row{8, 0, 0, 1'199'620}, row{8, 4, 0, 1'296'576},
                         row{8, 4, 2, 1'346'982}}) {
        const uint64_t trees = r.top ? uint64_t{r.sub} * r.top : (r.sub ? r.sub : 1);
        const porep_config cfg = custom_config(8 * trees, 2, 1, r.base, r.sub, r.top, 44);
        r1cs::shape_counter sc;
        stacked_circuit::blank(cfg).synthesize(sc);
        EXPECT_EQ(sc.num_inputs(), 22u) << r.base << "-" << r.sub << "-" << r.top;
        EXPECT_EQ(sc.num_constraints(), r.constraints) << r.base << "-" << r.sub << "-" << r.top;
    }
}

TEST(custom_shape, rejects_bad_shapes) {
    EXPECT_THROW(custom_config(24, 2, 1, 8, 0, 0, 0), error);   // not a power of two
    EXPECT_THROW(custom_config(8, 2, 1, 8, 4, 0, 0), error);    // 4 trees of 2 leaves
    EXPECT_THROW(custom_config(64, 2, 1, 8, 0, 2, 0), error);   // top without sub
    EXPECT_THROW(custom_config(64, 2, 1, 3, 0, 0, 0), error);   // arity 3
    EXPECT_THROW(custom_config(64, 0, 1, 8, 0, 0, 0), error);   // no layers
    EXPECT_NO_THROW(custom_config(64, 2, 1, 8, 8, 0, 0));
}

}  // namespace
}  // namespace c2lab::porep

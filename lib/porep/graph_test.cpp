#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/hex.hpp"
#include "porep/graph.hpp"

namespace c2lab::porep {
namespace {

std::vector<uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

std::array<uint8_t, 32> key_from_hex(std::string_view hex) {
    auto v = from_hex(hex);
    std::array<uint8_t, 32> k{};
    std::copy(v.begin(), v.end(), k.begin());
    return k;
}

std::array<uint32_t, 8> key_words(const std::array<uint8_t, 32>& k) {
    std::array<uint32_t, 8> w{};
    for (int i = 0; i < 8; ++i)
        w[i] = uint32_t(k[4 * i]) | uint32_t(k[4 * i + 1]) << 8 | uint32_t(k[4 * i + 2]) << 16 |
               uint32_t(k[4 * i + 3]) << 24;
    return w;
}

template <unsigned R>
std::vector<uint8_t> rng_bytes(chacha_rng<R>& rng, size_t n) {
    std::vector<uint8_t> out;
    while (out.size() < n) {
        uint32_t w = rng.next_u32();
        for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(w >> (8 * i)));
    }
    return out;
}

porep_id_bytes porep_id_first_byte(uint8_t b) {
    porep_id_bytes id{};
    id[0] = b;
    return id;
}

// ---- ChaCha ----

// draft-strombergson-chacha-test-vectors-01 (Test Vectors for the Stream Cipher ChaCha),
// 8 rounds, 256-bit keys, 128 bytes of keystream. TC1 and TC2 have a zero IV, as
// ChaCha8Rng::from_seed, so they run through the generator.
TEST(chacha8, draft_strombergson_tc1_tc2_through_the_rng) {
    struct tv {
        const char* key;
        const char* keystream;
    };
    const tv vectors[] = {
        {"0000000000000000000000000000000000000000000000000000000000000000",
         "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e984ce172b9216f419f445367456d5619"
         "314a42a3da86b001387bfdb80e0cfe42d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b"
         "5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa"},
        {"0100000000000000000000000000000000000000000000000000000000000000",
         "cf5ee9a0494aa9613e05d5ed725b804b12f4a465ee635acc3a311de8740489ea289d04f43c7518db56eb4433e498a123"
         "8cd8464d3763ddbb9222ee3bd8fae3c8b4355a7d93dd8867089ee643558b95754efa2bd1a8a1e2d75bcdb32015542638"
         "291941feb49965587c4fdfe219cf0ec132a6cd4dc067392e67982fe53278c0b4"},
    };
    for (const auto& v : vectors) {
        chacha8_rng rng(key_from_hex(v.key));
        EXPECT_EQ(to_hex(rng_bytes(rng, 128)), v.keystream) << v.key;
    }
}

// TC7 and TC8 of the same draft have a non-zero IV: the block function with stream = IV.
TEST(chacha8, draft_strombergson_tc7_tc8_block_function) {
    struct tv {
        const char* key;
        const char* iv;
        const char* keystream;
    };
    const tv vectors[] = {
        {"00112233445566778899aabbccddeeffffeeddccbbaa99887766554433221100", "0f1e2d3c4b596877",
         "60fdedbd1a280cb741d0593b6ea0309010acf18e1471f68968f4c9e311dca149b8e027b47c81e0353db013891aa5f68e"
         "a3b13dd2f3b8dd0873bf3746e7d6c567fe882395601ce8aded444867fe62ed8741420002e5d28bb573113a418c1f4008"
         "e954c188f38ec4f26bb8555e2b7c92bf4380e2ea9e553187fdd42821794416de"},
        {"c46ec1b18ce8a878725a37e780dfb7351f68ed2e194c79fbc6aebee1a667975d", "1ada31d5cf688221",
         "838751b42d8ddd8a3d77f48825a2ba752cf4047cb308a5978ef274973be374c96ad848065871417b08f034e681fe46a9"
         "3f7d5c61d1306614d4aaf257a7cff08b16f2fda170cc18a4b58a2667ed962774af792a6e7f3c77992540711a7a136d7e"
         "8a2f8d3f93816709d45a3fa5f8ce72fde15be7b841acba3a2abd557228d9fe4f"},
    };
    for (const auto& v : vectors) {
        const auto key = key_words(key_from_hex(v.key));
        const auto iv = from_hex(v.iv);
        uint64_t stream = 0;
        for (int i = 7; i >= 0; --i) stream = (stream << 8) | iv[i];
        std::vector<uint8_t> out;
        for (uint64_t counter = 0; counter < 2; ++counter) {
            std::array<uint32_t, 16> block;
            chacha_block(key, counter, stream, 8, block);
            for (uint32_t w : block)
                for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(w >> (8 * i)));
        }
        EXPECT_EQ(to_hex(out), v.keystream) << v.key;
    }
}

// rand_chacha 0.3.1 src/chacha.rs tests (ChaChaRng = ChaCha20Rng): test_chacha_true_values_a
// and _b (from draft-nir-cfrg-chacha20-poly1305-04) and test_chacha_construction.
TEST(chacha20, rand_chacha_true_values) {
    chacha20_rng a(std::array<uint8_t, 32>{});
    const uint32_t block0[16] = {0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0,
                                 0xccef36a8, 0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8,
                                 0xf4b8436a, 0x1ca11815, 0x69b687c3, 0x8665eeb2};
    const uint32_t block1[16] = {0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb, 0x6965e348,
                                 0x3e53c612, 0xed7aee32, 0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874,
                                 0x281fed31, 0x45fb0a51, 0x1f0ae1ac, 0x6f4d794b};
    for (uint32_t w : block0) EXPECT_EQ(a.next_u32(), w);
    for (uint32_t w : block1) EXPECT_EQ(a.next_u32(), w);

    std::array<uint8_t, 32> seed_b{};
    seed_b[31] = 1;
    chacha20_rng b(seed_b);
    for (int i = 0; i < 16; ++i) b.next_u32();
    const uint32_t expected_b[16] = {0x2452eb3a, 0x9249f8ec, 0x8d829d9b, 0xddd4ceb1, 0xe8252083, 0x60818b01,
                                     0xf38422b8, 0x5aaa49c9, 0xbb00ca8e, 0xda3ba7b4, 0xc4b592d1, 0xfdf2732f,
                                     0x4436274e, 0x2561b3c8, 0xebdd4aa6, 0xa0136c00};
    for (uint32_t w : expected_b) EXPECT_EQ(b.next_u32(), w);

    std::array<uint8_t, 32> seed_c{};
    seed_c[8] = 1;
    seed_c[16] = 2;
    seed_c[24] = 3;
    EXPECT_EQ(chacha20_rng(seed_c).next_u32(), 137206642u);
}

// rand_core 0.6 BlockRng: next_u64 is (low word, high word) of the word stream, also when it
// starts on the last word of the 64-word buffer or on an exhausted buffer.
TEST(chacha8, next_u64_follows_block_rng_buffering) {
    std::array<uint8_t, 32> seed{};
    for (int i = 0; i < 32; ++i) seed[i] = static_cast<uint8_t>(7 * i + 1);
    chacha8_rng words(seed);
    std::vector<uint32_t> w;
    for (int i = 0; i < 400; ++i) w.push_back(words.next_u32());

    chacha8_rng even(seed);
    for (int i = 0; i < 200; ++i)
        ASSERT_EQ(even.next_u64(), uint64_t(w[2 * i + 1]) << 32 | w[2 * i]) << i;

    chacha8_rng odd(seed);  // one u32 first: every u64 then straddles a refill at word 63
    ASSERT_EQ(odd.next_u32(), w[0]);
    for (int i = 0; i < 150; ++i)
        ASSERT_EQ(odd.next_u64(), uint64_t(w[2 * i + 2]) << 32 | w[2 * i + 1]) << i;
}

// ---- hashes ----

TEST(hashes, blake2b_512_rfc7693_appendix_a) {
    EXPECT_EQ(to_hex(blake2b_512(bytes_of("abc"))),
              "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc95"
              "18d38aa8dbf1925ab92386edd4009923");
}

TEST(hashes, sha256_fips180_abc) {
    EXPECT_EQ(to_hex(sha256_digest(bytes_of("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(seeds, domain_separation_tags) {
    EXPECT_EQ(drsample_dst, "Filecoin_DRSample");
    EXPECT_EQ(feistel_dst, "Filecoin_Feistel");
    const auto id = make_porep_id(8);
    auto expect = bytes_of("Filecoin_Feistel");
    expect.insert(expect.end(), id.begin(), id.end());
    EXPECT_EQ(derive_porep_domain_seed(feistel_dst, id), sha256_digest(expect));
    const auto raw = derive_porep_domain_seed(feistel_dst, id);
    const auto keys = derive_feistel_keys(id);
    uint64_t k1 = 0;
    for (int i = 15; i >= 8; --i) k1 = (k1 << 8) | raw[i];
    EXPECT_EQ(keys[1], k1);
    const auto drg = derive_drg_seed(id);
    const auto raw_drg = derive_porep_domain_seed(drsample_dst, id);
    EXPECT_TRUE(std::equal(drg.begin(), drg.end(), raw_drg.begin()));
}

// ---- Feistel (feistel.rs and graph.rs tests) ----

TEST(feistel, precompute) {
    auto p = feistel_precompute(512);  // 4^5 = 1024 >= 512
    EXPECT_EQ(p.half_bits, 5u);
    EXPECT_EQ(p.right_mask, 0x1fu);
    EXPECT_EQ(p.left_mask, 0x3e0u);
    EXPECT_EQ(feistel_precompute(1).half_bits, 1u);
    EXPECT_EQ(feistel_precompute(uint64_t{1} << 34).half_bits, 17u);  // 64 GiB: exactly 4^17
    EXPECT_EQ(feistel_precompute(uint64_t{1} << 33).half_bits, 17u);  // 32 GiB
}

// feistel.rs test_feistel_power_of_4: encode/decode is a bijection on powers of 4 with keys
// [1, 2, 3, 4]; for n in BAD_NS a single pass leaves the range or fails to invert somewhere.
TEST(feistel, power_of_4_encode_decode) {
    const std::array<uint64_t, 4> keys = {1, 2, 3, 4};
    uint64_t n = 1;
    for (int k = 0; k < 4; ++k) {
        n *= 4;
        const auto p = feistel_precompute(n);
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t e = feistel_encode(i, keys, p);
            EXPECT_LT(e, n);
            EXPECT_EQ(feistel_decode(e, keys, p), i);
        }
    }
    for (uint64_t bad : {5, 6, 8, 12, 17}) {
        const auto p = feistel_precompute(bad);
        bool failed = false;
        for (uint64_t i = 0; i < bad; ++i) {
            const uint64_t e = feistel_encode(i, keys, p);
            if (e >= bad || feistel_decode(e, keys, p) != i) failed = true;
        }
        EXPECT_TRUE(failed) << bad;
    }
}

// feistel.rs test_feistel_on_arbitrary_set: permute / invert_permute on BAD_NS.
TEST(feistel, arbitrary_set_permute_invert) {
    const std::array<uint64_t, 4> keys = {1, 2, 3, 4};
    for (uint64_t n : {5, 6, 8, 12, 17}) {
        const auto p = feistel_precompute(n);
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t e = feistel_permute(n, i, keys, p);
            EXPECT_LT(e, n);
            EXPECT_EQ(feistel_invert_permute(n, e, keys, p), i);
        }
    }
}

// graph.rs test_shuffle (n = 1024 nodes, degree 8, keys [1, 2, 3, 4]) and the 2 KiB graph's
// own domain (64 * 8, keys of porep id 5): every element is hit once and inverts.
TEST(feistel, permutation_is_a_bijection) {
    struct domain_case {
        uint64_t size;
        std::array<uint64_t, 4> keys;
    };
    const domain_case cases[] = {{1024 * 8, {1, 2, 3, 4}}, {64 * 8, derive_feistel_keys(make_porep_id(5))}};
    for (const auto& c : cases) {
        const auto p = feistel_precompute(c.size);
        std::vector<bool> seen(c.size, false);
        for (uint64_t i = 0; i < c.size; ++i) {
            const uint64_t e = feistel_permute(c.size, i, c.keys, p);
            ASSERT_LT(e, c.size);
            ASSERT_FALSE(seen[e]) << i;
            seen[e] = true;
            ASSERT_EQ(feistel_invert_permute(c.size, e, c.keys, p), i);
        }
    }
}

// ---- the graph ----

// The parent cache (its file name and SHA-256 against storage-proofs-porep/parent_cache.json)
// is tested in seal_inputs_test.cpp, through porep/seal_inputs.hpp.

TEST(graph, bucket_graph_properties) {
    struct version_case {
        porep_id_bytes id;
        api_version api;
    };
    const version_case cases[] = {{porep_id_first_byte(0), api_version::v1_0_0},
                                  {porep_id_first_byte(5), api_version::v1_2_0},
                                  {porep_id_first_byte(5), api_version::v1_1_0}};
    for (const auto& c : cases) {
        for (uint64_t size : {4, 16, 256, 2048}) {
            stacked_graph g(size, c.id, c.api);
            std::array<uint32_t, base_degree> p0, p1;
            g.base_parents(0, p0);
            g.base_parents(1, p1);
            EXPECT_EQ(p0, (std::array<uint32_t, base_degree>{}));
            EXPECT_EQ(p1, (std::array<uint32_t, base_degree>{}));
            for (uint64_t i = 2; i < size; ++i) {
                std::array<uint32_t, base_degree> a, b;
                g.base_parents(i, a);
                g.base_parents(i, b);
                ASSERT_EQ(a, b);
                for (uint32_t p : a) {
                    ASSERT_NE(p, i);
                    ASSERT_LT(p, i);
                }
                ASSERT_EQ(c.api == api_version::v1_0_0 ? a[base_degree - 1] : a[0], i - 1);
            }
        }
    }
}

TEST(graph, v1_1_and_v1_2_are_the_same_graph) {
    stacked_graph a(2048, make_porep_id(5), api_version::v1_1_0);
    stacked_graph b(2048, make_porep_id(5), api_version::v1_2_0);
    for (uint64_t n = 0; n < 2048; ++n) {
        std::array<uint32_t, total_degree> pa, pb;
        a.parents(n, pa);
        b.parents(n, pb);
        ASSERT_EQ(pa, pb);
    }
}

TEST(graph, parents_are_base_then_expansion) {
    const auto& cfg = config_for_sector(2048);
    stacked_graph g(cfg);
    EXPECT_EQ(g.nodes(), 64u);
    for (uint64_t n = 0; n < g.nodes(); ++n) {
        std::array<uint32_t, total_degree> all;
        std::array<uint32_t, base_degree> base;
        std::array<uint32_t, expansion_degree> exp;
        g.parents(n, all);
        g.base_parents(n, base);
        g.expansion_parents(n, exp);
        EXPECT_TRUE(std::equal(base.begin(), base.end(), all.begin()));
        EXPECT_TRUE(std::equal(exp.begin(), exp.end(), all.begin() + base_degree));
        for (uint32_t p : exp) EXPECT_LT(p, g.nodes());
    }
}

TEST(graph, rejects_out_of_range) {
    stacked_graph g(64, make_porep_id(5), api_version::v1_1_0);
    std::array<uint32_t, total_degree> p;
    EXPECT_THROW(g.parents(64, p), error);
    EXPECT_THROW(stacked_graph(1, make_porep_id(5), api_version::v1_1_0), error);
    EXPECT_THROW(stacked_graph(uint64_t{1} << 32, make_porep_id(5), api_version::v1_1_0), error);
}

// drgraph.rs computes n_buckets as ceil(log2(node * 5)) through f64; graph.cpp uses the bit
// width of node * 5 - 1. Equal at and around every power of two up to 2^35 (a 64 GiB graph
// has metagraph nodes below 5 * 2^31 < 2^35) and on a sweep of small nodes.
TEST(graph, n_buckets_integer_form_matches_f64_log2) {
    auto f64_form = [](uint64_t x) { return static_cast<uint64_t>(std::ceil(std::log2(static_cast<double>(x)))); };
    auto int_form = [](uint64_t x) { return static_cast<uint64_t>(std::bit_width(x - 1)); };
    for (uint64_t node = 2; node < 100000; ++node) ASSERT_EQ(f64_form(node * 5), int_form(node * 5)) << node;
    for (int k = 4; k <= 35; ++k) {
        const uint64_t p = uint64_t{1} << k;
        for (uint64_t x : {p - 2, p - 1, p, p + 1, p + 2}) ASSERT_EQ(f64_form(x), int_form(x)) << x;
    }
}

// graph.rs test_graph_distribution_pathology (V1_1_0 / V1_2_0 cases): among the first 1000
// nodes some expansion parent lies in the second half of the sector.
TEST(graph, expansion_parents_reach_second_half) {
    struct sized_case {
        uint8_t id;
        uint64_t nodes;
        api_version api;
    };
    const sized_case cases[] = {{8, uint64_t{1} << 30, api_version::v1_1_0},
                                {9, uint64_t{1} << 31, api_version::v1_1_0},
                                {8, uint64_t{1} << 30, api_version::v1_2_0},
                                {9, uint64_t{1} << 31, api_version::v1_2_0}};
    for (const auto& c : cases) {
        stacked_graph g(c.nodes, porep_id_first_byte(c.id), c.api);
        bool found = false;
        for (uint64_t i = 0; i < 1000 && !found; ++i) {
            std::array<uint32_t, expansion_degree> exp;
            g.expansion_parents(i, exp);
            for (uint32_t p : exp) found = found || p >= c.nodes / 2;
        }
        EXPECT_TRUE(found) << int(c.id);
    }
}

// graph.rs test_high_parent_bits: 2^31 nodes, porep id 5 (u64 LE), V1_2_0: one of the first
// three nodes has an expansion parent >= 2^29 (no u32 truncation of the 34-bit index).
TEST(graph, expansion_parents_high_bits_64gib) {
    stacked_graph g(uint64_t{1} << 31, make_porep_id(5), api_version::v1_2_0);
    bool found = false;
    for (uint64_t v = 0; v < 3 && !found; ++v) {
        std::array<uint32_t, expansion_degree> exp;
        g.expansion_parents(v, exp);
        for (uint32_t p : exp) found = found || p >= (1u << 29);
    }
    EXPECT_TRUE(found);
}

// graph.rs test_exp_parent_histogram: 10000 children spread over 2^31 nodes, 32 bins, every
// bin within 40% of uniform.
TEST(graph, expansion_parent_histogram_64gib) {
    const uint64_t n_nodes = uint64_t{1} << 31;
    stacked_graph g(n_nodes, make_porep_id(5), api_version::v1_2_0);
    constexpr uint64_t samples = 10000, bins = 32;
    const uint64_t per_bin = n_nodes / bins;
    const double uniform = double(samples * expansion_degree) / bins;
    const uint64_t max_allowed = static_cast<uint64_t>(static_cast<float>(1.4 * uniform)) - 1;
    const uint64_t min_allowed = static_cast<uint64_t>(static_cast<float>(0.6 * uniform)) + 1;
    std::vector<uint64_t> hist(bins, 0);
    for (uint64_t s = 0; s < samples; ++s) {
        std::array<uint32_t, expansion_degree> exp;
        g.expansion_parents(s * n_nodes / samples, exp);
        for (uint32_t p : exp) ++hist[p / per_bin];
    }
    for (uint64_t b = 0; b < bins; ++b) {
        EXPECT_GE(hist[b], min_allowed) << b;
        EXPECT_LE(hist[b], max_allowed) << b;
    }
}

TEST(graph, large_sector_parents_in_range) {
    for (uint64_t size : {32ull << 30, 64ull << 30}) {
        const auto& cfg = config_for_sector(size);
        stacked_graph g(cfg);
        for (uint64_t node : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{12345}, cfg.nodes / 2, cfg.nodes - 1}) {
            std::array<uint32_t, total_degree> p;
            g.parents(node, p);
            for (size_t i = 0; i < base_degree; ++i) EXPECT_LE(p[i], node == 0 ? 0 : node - 1);
            if (node >= 2) {
                EXPECT_EQ(p[0], node - 1);
            }
            for (size_t i = base_degree; i < total_degree; ++i) EXPECT_LT(p[i], cfg.nodes);
        }
    }
}

TEST(graph, label_parent_slots) {
    const auto first = label_parent_slots(1);
    const auto later = label_parent_slots(2);
    for (uint32_t i = 0; i < 36; ++i) EXPECT_EQ(first[i], i % 6);
    EXPECT_EQ(first[36], 0);
    for (uint32_t i = 0; i < 28; ++i) EXPECT_EQ(later[i], i % 14);
    for (uint32_t i = 28; i < 37; ++i) EXPECT_EQ(later[i], i - 28);
    EXPECT_EQ(label_parent_slots(11), later);
}

// ---- challenges ----

domain test_replica_id() {
    domain r{};
    for (int i = 0; i < 32; ++i) r[i] = static_cast<uint8_t>(i);
    return r;
}

// Expected values computed independently (Python hashlib and big integers) from the
// formula of challenges.rs InteractiveChallenges::derive, replica_id = 00 01 .. 1f, seed =
// 32 bytes 0x11.
TEST(challenges, known_answers) {
    const domain rid = test_replica_id();
    std::array<uint8_t, 32> seed;
    seed.fill(0x11);
    EXPECT_EQ(derive_challenges(config_for_sector(2048), rid, seed, 0), (std::vector<uint64_t>{25, 60}));
    EXPECT_EQ(derive_challenges(config_for_sector(32ull << 30), rid, seed, 3),
              (std::vector<uint64_t>{722132469, 381006494, 259256845, 344588097, 467180381, 308802479, 116993898,
                                     837098760, 1020290876, 661081892, 962555553, 310650379, 1989705, 1025048843,
                                     524367787, 362226604, 166045510, 101803555}));
    EXPECT_EQ(derive_challenges(config_for_sector(64ull << 30), rid, seed, 9),
              (std::vector<uint64_t>{1610815274, 716663101, 305492451, 1681119705, 306031225, 629305300,
                                     1697322496, 1664267735, 1709429358, 204802560, 38605470, 1597041546,
                                     868861240, 1344016372, 1225379739, 1403357895, 235244884, 98433966}));
}

TEST(challenges, in_range_deterministic_and_seed_dependent) {
    const domain rid = test_replica_id();
    for (const auto& cfg : registered_configs()) {
        std::array<uint8_t, 32> seed_a{}, seed_b{};
        seed_b[0] = 1;
        std::set<std::vector<uint64_t>> per_partition;
        for (uint32_t k = 0; k < cfg.partitions; ++k) {
            const auto a = derive_challenges(cfg, rid, seed_a, k);
            ASSERT_EQ(a.size(), cfg.challenges_per_partition);
            for (uint64_t c : a) {
                EXPECT_GE(c, 1u);
                EXPECT_LT(c, cfg.nodes);
            }
            EXPECT_EQ(a, derive_challenges(cfg, rid, seed_a, k));
            if (cfg.nodes > 1024) {
                EXPECT_NE(a, derive_challenges(cfg, rid, seed_b, k));
            }
            per_partition.insert(a);
        }
        if (cfg.nodes > 1024) {
            EXPECT_EQ(per_partition.size(), cfg.partitions);
        }
        EXPECT_THROW(derive_challenges(cfg, rid, seed_a, cfg.partitions), error);
    }
}

// challenges.rs challenge_partition_equivalence: partitions k = 0..5 of n challenges each
// equal one partition of 5n.
TEST(challenges, partition_equivalence) {
    const domain rid = test_replica_id();
    std::array<uint8_t, 32> seed;
    seed.fill(0x42);
    const uint64_t leaves = uint64_t{1} << 30;
    const auto one = derive_challenges(leaves, 200, rid, seed, 0);
    std::vector<uint64_t> many;
    for (uint32_t k = 0; k < 5; ++k) {
        const auto part = derive_challenges(leaves, 40, rid, seed, k);
        many.insert(many.end(), part.begin(), part.end());
    }
    EXPECT_EQ(one, many);
}

TEST(challenges, small_sector_covers_range) {
    // With 64 nodes every challenge is in [1, 63]; over many seeds both ends occur.
    const domain rid = test_replica_id();
    std::set<uint64_t> seen;
    for (int s = 0; s < 2000; ++s) {
        std::array<uint8_t, 32> seed{};
        seed[0] = static_cast<uint8_t>(s);
        seed[1] = static_cast<uint8_t>(s >> 8);
        for (uint64_t c : derive_challenges(64, 2, rid, seed, 0)) {
            ASSERT_GE(c, 1u);
            ASSERT_LT(c, 64u);
            seen.insert(c);
        }
    }
    EXPECT_EQ(seen.size(), 63u);
}

}  // namespace
}  // namespace c2lab::porep

// Encodings against zkcrypto/bls12_381: the generators' published bytes, the SHA-256 of
// its test-vector files (src/tests/*_valid_test_vectors.dat: the encodings of [i]G for
// i = 0..999), and one test per decoding rule.
#include "ec/encoding.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "core/hex.hpp"

namespace c2lab::ec {
namespace {

std::string sha256_hex(const std::vector<uint8_t>& data) {
    uint8_t md[32];
    unsigned len = 0;
    EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
    return to_hex(std::span<const uint8_t>(md, len));
}

template <class C, class Enc>
std::vector<uint8_t> thousand_multiples(Enc encode) {
    std::vector<uint8_t> all;
    jacobian<C> e = jacobian<C>::identity();
    for (int i = 0; i < 1000; ++i) {
        auto bytes = encode(e.to_affine());
        all.insert(all.end(), bytes.begin(), bytes.end());
        e += affine<C>::generator();
    }
    return all;
}

TEST(encoding, generators_known_answers) {
    EXPECT_EQ(to_hex(to_compressed(g1_affine::generator())),
              "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    EXPECT_EQ(to_hex(to_compressed(g2_affine::generator())),
              "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
              "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    EXPECT_EQ(to_hex(to_compressed(g1_jacobian::generator().dbl().to_affine())),
              "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e");
    EXPECT_EQ(to_hex(to_compressed(g1_affine::identity())), std::string("c0").append(94, '0'));
    EXPECT_EQ(to_hex(to_uncompressed(g1_affine::identity())), std::string("40").append(190, '0'));
}

TEST(encoding, zkcrypto_test_vector_files) {
    EXPECT_EQ(sha256_hex(thousand_multiples<g1_curve>([](auto p) { return to_compressed(p); })),
              "8acaa1d512b4cf96f4740e4c9afc19ba4618d48fe251c452a19382395bcd0929");
    EXPECT_EQ(sha256_hex(thousand_multiples<g1_curve>([](auto p) { return to_uncompressed(p); })),
              "e25aae8e95c9cd39cdb1eec0100c8245e297510fef0091cbf80b91d49de6b685");
    EXPECT_EQ(sha256_hex(thousand_multiples<g2_curve>([](auto p) { return to_compressed(p); })),
              "b75bc2e41289adda41e448e56a1ea39b11009a27b02e8676c8b86defedc05deb");
    EXPECT_EQ(sha256_hex(thousand_multiples<g2_curve>([](auto p) { return to_uncompressed(p); })),
              "80fd0516c8115b13165589324558649fa94f49e714caa3b735537d073a9cfb65");
}

TEST(encoding, round_trips) {
    rng g(30);
    for (int i = 0; i < 20; ++i) {
        auto p1 = (g1_jacobian::generator() * ff::fr::random(g)).to_affine();
        auto p2 = (g2_jacobian::generator() * ff::fr::random(g)).to_affine();
        ASSERT_EQ(g1_from_compressed(to_compressed(p1)), p1);
        ASSERT_EQ(g1_from_uncompressed(to_uncompressed(p1)), p1);
        ASSERT_EQ(g2_from_compressed(to_compressed(p2)), p2);
        ASSERT_EQ(g2_from_uncompressed(to_uncompressed(p2)), p2);
        ASSERT_EQ(g1_from_compressed(to_compressed(-p1)), -p1);
        ASSERT_EQ(g2_from_compressed(to_compressed(-p2)), -p2);
    }
    EXPECT_TRUE(g1_from_compressed(to_compressed(g1_affine::identity())).is_identity());
    EXPECT_TRUE(g2_from_uncompressed(to_uncompressed(g2_affine::identity())).is_identity());
}

template <class F>
errc kind_of(F f) {
    try {
        f();
    } catch (const error& e) {
        return e.kind();
    }
    return errc::internal;  // nothing thrown
}

std::vector<uint8_t> bytes_of(auto arr) { return {arr.begin(), arr.end()}; }

TEST(encoding_rejects, wrong_length) {
    auto b = bytes_of(to_compressed(g1_affine::generator()));
    b.pop_back();
    EXPECT_EQ(kind_of([&] { g1_from_compressed(b); }), errc::bad_length);
    auto u = bytes_of(to_uncompressed(g2_affine::generator()));
    u.push_back(0);
    EXPECT_EQ(kind_of([&] { g2_from_uncompressed(u); }), errc::bad_length);
}

TEST(encoding_rejects, compression_flag_mismatch) {
    auto c = bytes_of(to_compressed(g1_affine::generator()));
    c[0] &= 0x7f;
    EXPECT_EQ(kind_of([&] { g1_from_compressed(c); }), errc::bad_flags);
    auto u = bytes_of(to_uncompressed(g1_affine::generator()));
    u[0] |= 0x80;
    EXPECT_EQ(kind_of([&] { g1_from_uncompressed(u); }), errc::bad_flags);
}

TEST(encoding_rejects, infinity_with_other_bits) {
    auto c = bytes_of(to_compressed(g1_affine::identity()));
    c[47] = 1;
    EXPECT_EQ(kind_of([&] { g1_from_compressed(c); }), errc::bad_flags);
    auto c2 = bytes_of(to_compressed(g2_affine::identity()));
    c2[0] |= 0x20;  // sort flag on infinity
    EXPECT_EQ(kind_of([&] { g2_from_compressed(c2); }), errc::bad_flags);
    auto u = bytes_of(to_uncompressed(g1_affine::identity()));
    u[95] = 1;
    EXPECT_EQ(kind_of([&] { g1_from_uncompressed(u); }), errc::bad_flags);
}

TEST(encoding_rejects, sort_flag_in_uncompressed_form) {
    auto u = bytes_of(to_uncompressed(g1_affine::generator()));
    u[0] |= 0x20;
    EXPECT_EQ(kind_of([&] { g1_from_uncompressed(u); }), errc::bad_flags);
}

TEST(encoding_rejects, non_canonical_coordinate) {
    // x = p with the compression flag: every coordinate must be below p.
    auto p_bytes = from_hex("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
    auto c = p_bytes;
    c[0] |= 0x80;
    EXPECT_EQ(kind_of([&] { g1_from_compressed(c); }), errc::non_canonical);
    // G2: the real part of x is p.
    auto c2 = bytes_of(to_compressed(g2_affine::generator()));
    std::copy(p_bytes.begin(), p_bytes.end(), c2.begin() + 48);
    EXPECT_EQ(kind_of([&] { g2_from_compressed(c2); }), errc::non_canonical);
    // Uncompressed: y = y + p is the same residue but not canonical.
    auto u = bytes_of(to_uncompressed(g1_affine::generator()));
    std::fill(u.begin() + 48, u.end(), 0xff);
    u[48] = 0x1f;
    EXPECT_EQ(kind_of([&] { g1_from_uncompressed(u); }), errc::non_canonical);
}

TEST(encoding_rejects, x_not_on_curve) {
    // Find x with x^3 + 4 not a square.
    for (uint64_t i = 1;; ++i) {
        auto x = ff::fp::from_u64(i);
        if ((x.square() * x + g1_curve::b).legendre() != -1) continue;
        std::array<uint8_t, 48> c{};
        x.to_bytes_be(c);
        c[0] |= 0x80;
        EXPECT_EQ(kind_of([&] { g1_from_compressed(c); }), errc::not_on_curve);
        break;
    }
    auto u = bytes_of(to_uncompressed(g1_affine::generator()));
    u[95] ^= 1;  // y + 1 (or y - 1): off the curve
    EXPECT_EQ(kind_of([&] { g1_from_uncompressed(u); }), errc::not_on_curve);
    auto u2 = bytes_of(to_uncompressed(g2_affine::generator()));
    u2[191] ^= 1;
    EXPECT_EQ(kind_of([&] { g2_from_uncompressed(u2); }), errc::not_on_curve);
}

TEST(encoding_rejects, uncompressed_zero_without_infinity_flag) {
    std::array<uint8_t, 96> u{};
    EXPECT_EQ(kind_of([&] { g1_from_uncompressed(u); }), errc::not_on_curve);
}

TEST(encoding_rejects, point_outside_subgroup) {
    for (uint64_t i = 1;; ++i) {
        auto x = ff::fp::from_u64(i);
        auto y = (x.square() * x + g1_curve::b).sqrt();
        if (!y) continue;
        g1_affine p{x, *y};
        auto c = to_compressed(p);
        EXPECT_EQ(kind_of([&] { g1_from_compressed(c); }), errc::not_in_subgroup);
        EXPECT_EQ(g1_from_compressed(c, subgroup_check::off), p);  // on the curve: accepted unchecked
        EXPECT_EQ(kind_of([&] { g1_from_uncompressed(to_uncompressed(p)); }), errc::not_in_subgroup);
        break;
    }
    for (uint64_t i = 1;; ++i) {
        ff::fp2 x{ff::fp::from_u64(i), ff::fp::one()};
        auto y = (x.square() * x + g2_curve::b).sqrt();
        if (!y) continue;
        g2_affine p{x, *y};
        EXPECT_EQ(kind_of([&] { g2_from_compressed(to_compressed(p)); }), errc::not_in_subgroup);
        EXPECT_EQ(kind_of([&] { g2_from_uncompressed(to_uncompressed(p)); }), errc::not_in_subgroup);
        break;
    }
}

TEST(encoding_rejects, error_messages_name_the_problem) {
    auto c = bytes_of(to_compressed(g2_affine::generator()));
    c[0] &= 0x7f;
    try {
        g2_from_compressed(c);
        FAIL();
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("G2 compressed point"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("compression flag"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace c2lab::ec

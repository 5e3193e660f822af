// SHA-256 gadget (bellpepper sha256.rs): the blank block with constants only (0
// constraints), bellpepper's counts (25840 for one compression of 512 allocated bits with the
// IV, 44874 for the padded hash of them), NIST vectors hashed in the circuit from allocated
// bits, random messages of random lengths against OpenSSL, tampered witnesses, and
// Filecoin's hash2 / hash_leaf_bits circuits against their native twins.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.hpp"
#include "gadgets/sha256.hpp"
#include "r1cs/test_constraint_system.hpp"

namespace c2lab::gadgets {
namespace {

using test_cs = r1cs::test_constraint_system<>;

std::vector<uint8_t> from_hex(std::string_view h) {
    std::vector<uint8_t> out;
    auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<uint8_t>(nib(h[i]) * 16 + nib(h[i + 1])));
    return out;
}

// One allocated bit per message bit, most significant first, in namespace "input bit <i>".
template <class CS>
std::vector<boolean> alloc_message(CS& cs, std::span<const uint8_t> msg, bool with_values = true) {
    std::vector<boolean> bits;
    for (size_t i = 0; i < msg.size() * 8; ++i) {
        r1cs::namespace_guard ns(cs, [i] { return "input bit " + std::to_string(i); });
        std::optional<bool> v;
        if (with_values) v = ((msg[i / 8] >> (7 - i % 8)) & 1) != 0;
        bits.emplace_back(allocated_bit::alloc(cs, v));
    }
    return bits;
}

std::vector<uint8_t> digest_of_bits(const std::vector<boolean>& bits) {
    std::vector<uint8_t> out(bits.size() / 8, 0);
    for (size_t i = 0; i < bits.size(); ++i) {
        std::optional<bool> b = bits[i].value();
        if (!b) throw error(errc::bad_input, "digest bit without a value");
        if (*b) out[i / 8] |= static_cast<uint8_t>(0x80 >> (i % 8));
    }
    return out;
}

TEST(sha256_gadget, blank_block_of_constants_costs_nothing) {
    test_cs cs;
    std::vector<boolean> block(512, boolean::constant(false));
    block[0] = boolean::constant(true);
    auto out = sha256_state_bits_be(sha256_compression_function(cs, block, sha256_iv()));
    EXPECT_EQ(cs.num_constraints(), 0u);
    EXPECT_EQ(digest_of_bits(out), from_hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
}

TEST(sha256_gadget, full_block_counts_25840_and_full_hash_44874) {
    rng g(31);
    std::vector<uint8_t> msg(64);
    for (auto& b : msg) b = static_cast<uint8_t>(g());
    {
        test_cs cs;
        auto bits = alloc_message(cs, msg);
        r1cs::namespace_guard ns(cs, [] { return "sha256"; });
        auto st = sha256_compression_function(cs, bits, sha256_iv());
        EXPECT_EQ(cs.num_constraints() - 512, 25840u);
        EXPECT_TRUE(cs.is_satisfied());
        r1cs::shape_counter sc;
        auto sbits = alloc_message(sc, msg, false);
        (void)sha256_compression_function(sc, sbits, sha256_iv());
        EXPECT_EQ(sc.num_constraints(), cs.num_constraints());
        EXPECT_EQ(sc.num_aux(), cs.num_aux());
        // no padding: the compression is what sha256_block_no_padding returns
        test_cs cs2;
        auto bits2 = alloc_message(cs2, msg);
        auto nopad = sha256_block_no_padding(cs2, bits2);
        EXPECT_EQ(digest_of_bits(nopad), digest_of_bits(sha256_state_bits_be(st)));
    }
    {
        test_cs cs;
        auto bits = alloc_message(cs, msg);
        r1cs::namespace_guard ns(cs, [] { return "sha256"; });
        auto out = sha256(cs, bits);
        EXPECT_EQ(cs.num_constraints() - 512, 44874u);
        EXPECT_TRUE(cs.is_satisfied());
        auto want = sha256_native(msg);
        EXPECT_EQ(digest_of_bits(out), std::vector<uint8_t>(want.begin(), want.end()));
        r1cs::shape_counter sc;
        auto sbits = alloc_message(sc, msg, false);
        (void)sha256(sc, sbits);
        EXPECT_EQ(sc.num_constraints(), cs.num_constraints());
    }
}

// FIPS 180-2 / NIST CSRC examples.
TEST(sha256_gadget, nist_vectors_in_the_circuit) {
    struct vec {
        std::string msg;
        const char* digest;
    };
    const vec vs[] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    for (const auto& v : vs) {
        SCOPED_TRACE(v.msg);
        std::vector<uint8_t> msg(v.msg.begin(), v.msg.end());
        test_cs cs;
        auto bits = alloc_message(cs, msg);
        auto out = sha256(cs, bits);
        EXPECT_EQ(digest_of_bits(out), from_hex(v.digest));
        auto native = sha256_native(msg);
        EXPECT_EQ(std::vector<uint8_t>(native.begin(), native.end()), from_hex(v.digest));
        if (msg.empty()) {
            EXPECT_EQ(cs.num_constraints(), 0u);  // constants only
            continue;
        }
        EXPECT_TRUE(cs.is_satisfied());
        // a tampered xor result or sum bit is caught and named
        test_cs bad = cs;
        const size_t k = msg.size() * 8 + 1000;  // past the input bits
        bad.set_aux(k, bad.aux_assignment()[k] + fr::one());
        auto which = bad.which_is_unsatisfied();
        ASSERT_TRUE(which.has_value());
        EXPECT_EQ(which->rfind("block 0/", 0), 0u) << *which;
    }
}

TEST(sha256_gadget, random_messages_against_openssl) {
    rng g(32);
    std::vector<size_t> lens = {1, 31, 55, 56, 63, 64, 65, 119, 120};
    for (int i = 0; i < 6; ++i) lens.push_back(g.below(200));
    for (size_t len : lens) {
        SCOPED_TRACE(len);
        std::vector<uint8_t> msg(len);
        for (auto& b : msg) b = static_cast<uint8_t>(g());
        test_cs cs;
        auto bits = alloc_message(cs, msg);
        auto out = sha256(cs, bits);
        auto want = sha256_native(msg);
        EXPECT_EQ(digest_of_bits(out), std::vector<uint8_t>(want.begin(), want.end()));
        EXPECT_TRUE(cs.is_satisfied());
    }
    test_cs cs;
    std::vector<boolean> seven(7, boolean::constant(true));
    EXPECT_THROW(sha256(cs, seven), error);
}

fr fr_of(const sha256_digest& d) { return fr::from_bytes_le(std::span<const uint8_t, 32>(d)); }
std::array<uint8_t, 32> bytes_of(const fr& x) {
    std::array<uint8_t, 32> b;
    x.to_bytes_le(b);
    return b;
}

TEST(sha256_hash2, circuit_matches_native_on_random_inputs) {
    rng g(33);
    std::vector<std::pair<fr, fr>> cases = {{fr::zero(), fr::zero()}, {-fr::one(), fr::one()}};
    for (int i = 0; i < 4; ++i) cases.push_back({fr::random(g), fr::random(g)});
    size_t cost = 0;
    for (const auto& [a, b] : cases) {
        test_cs cs;
        allocated_num an = allocated_num::alloc(cs, [] { return "a"; }, a);
        allocated_num bn = allocated_num::alloc(cs, [] { return "b"; }, b);
        allocated_num h;
        {
            r1cs::namespace_guard ns(cs, [] { return "hash2"; });
            h = sha256_hash2_circuit(cs, an, bn);
        }
        sha256_digest want = sha256_hash2_native(bytes_of(a), bytes_of(b));
        EXPECT_EQ((want[31] & 0xc0), 0);
        ASSERT_TRUE(h.value.has_value());
        EXPECT_EQ(*h.value, fr_of(want));
        EXPECT_TRUE(cs.is_satisfied());
        cost = cs.num_constraints();
        // 2 x 256 for the bits, two blocks, 1 packing
        r1cs::shape_counter sc;
        allocated_num sa = allocated_num::alloc(sc, [] { return "a"; }, std::nullopt);
        allocated_num sb = allocated_num::alloc(sc, [] { return "b"; }, std::nullopt);
        (void)sha256_hash2_circuit(sc, sa, sb);
        EXPECT_EQ(sc.num_constraints(), cost);
        cs.set_aux(h.var.index, *h.value + fr::one());
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("hash2/pack_le/packing constraint"));
        cs.set_aux(h.var.index, *h.value);
        cs.set_aux(an.var.index, a + fr::one());
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("hash2/a_bits/unpacking constraint"));
    }
    std::cout << "sha256 hash2 circuit: " << cost << " constraints\n";
}

TEST(sha256_hash2, leaf_bits_circuit_hashes_the_byte_encodings) {
    rng g(34);
    fr a = fr::random(g), b = fr::random(g);
    test_cs cs;
    allocated_num an = allocated_num::alloc(cs, [] { return "a"; }, a);
    allocated_num bn = allocated_num::alloc(cs, [] { return "b"; }, b);
    std::vector<boolean> la, lb;
    {
        r1cs::namespace_guard ns(cs, [] { return "la"; });
        la = an.to_bits_le(cs);
    }
    {
        r1cs::namespace_guard ns(cs, [] { return "lb"; });
        lb = bn.to_bits_le(cs);
    }
    allocated_num h = sha256_hash_leaf_bits_circuit(cs, la, lb);
    EXPECT_EQ(*h.value, fr_of(sha256_hash2_native(bytes_of(a), bytes_of(b))));
    EXPECT_TRUE(cs.is_satisfied());
}

// storage-proofs-core util.rs test hash_leaf_bits_circuit: two Fr as 256 little-endian
// allocated bits each, 45,387 constraints.
TEST(sha256_hash2, leaf_bits_circuit_count_45387) {
    rng g(35);
    fr a = fr::random(g), b = fr::random(g);
    auto ab = bytes_of(a), bb = bytes_of(b);
    test_cs cs;
    std::vector<boolean> left, right;
    {
        r1cs::namespace_guard ns(cs, [] { return "left"; });
        left = bytes_into_boolean_vec(cs, std::span<const uint8_t>(ab), 256);
    }
    {
        r1cs::namespace_guard ns(cs, [] { return "right"; });
        right = bytes_into_boolean_vec(cs, std::span<const uint8_t>(bb), 256);
    }
    allocated_num h;
    {
        r1cs::namespace_guard ns(cs, [] { return "hash_leaf_circuit"; });
        h = sha256_hash_leaf_bits_circuit(cs, left, right);
    }
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_EQ(cs.num_constraints(), 45387u);
    EXPECT_EQ(*h.value, fr_of(sha256_hash2_native(ab, bb)));
}

}  // namespace
}  // namespace c2lab::gadgets

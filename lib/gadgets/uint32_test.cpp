// uint32 / uint64 / multieq (bellpepper uint32.rs, multieq.rs; rust-fil-proofs uint64.rs):
// bit conversions, rotations and shifts, xor, ch and maj against native u32 arithmetic on
// edge and random values with constant and allocated operands; addmany's bit count, the
// multieq batching, satisfaction, tampered witnesses, and shape-only counts.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "gadgets/uint32.hpp"
#include "r1cs/test_constraint_system.hpp"

namespace c2lab::gadgets {
namespace {

using test_cs = r1cs::test_constraint_system<>;

static_assert(r1cs::constraint_system<multieq<test_cs>>);
static_assert(r1cs::constraint_system<multieq<r1cs::shape_counter>>);
static_assert(!multieq<r1cs::shape_counter>::keeps_terms && multieq<test_cs>::keeps_terms);

std::vector<uint32_t> sample_u32(rng& g) {
    std::vector<uint32_t> v = {0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 0xdeadbeef};
    for (int i = 0; i < 6; ++i) v.push_back(static_cast<uint32_t>(g()));
    return v;
}

template <class CS>
uint32 make_u32(CS& cs, uint32_t v, bool allocated, const std::string& name) {
    if (!allocated) return uint32::constant(v);
    r1cs::namespace_guard ns(cs, [&] { return name; });
    return uint32::alloc(cs, v);
}

void expect_value(const uint32& x, uint32_t want) {
    ASSERT_TRUE(x.value.has_value());
    EXPECT_EQ(*x.value, want);
    for (size_t i = 0; i < 32; ++i) EXPECT_EQ(x.bits[i].value(), ((want >> i) & 1) != 0) << "bit " << i;
}

TEST(uint32, constant_alloc_and_bit_orders) {
    rng g(21);
    for (uint32_t v : sample_u32(g)) {
        test_cs cs;
        uint32 c = uint32::constant(v);
        uint32 a = uint32::alloc(cs, v);
        expect_value(c, v);
        expect_value(a, v);
        EXPECT_EQ(cs.num_constraints(), 32u);
        EXPECT_TRUE(cs.is_satisfied());
        auto be = a.into_bits_be();
        EXPECT_EQ(be[0].value(), (v >> 31) != 0);
        expect_value(uint32::from_bits_be(be), v);
        expect_value(uint32::from_bits_le(a.into_bits_le()), v);
        // a negated bit reads as its negation
        auto le = a.into_bits_le();
        le[0] = le[0].negated();
        expect_value(uint32::from_bits_le(le), v ^ 1u);
        cs.set_aux(3, fr::from_u64(2));
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("allocated bit 3/boolean constraint"));
    }
    EXPECT_THROW(uint32::from_bits_be(std::vector<boolean>(31)), error);
    r1cs::shape_counter sc;
    uint32 s = uint32::alloc(sc, std::nullopt);
    EXPECT_FALSE(s.value.has_value());
    EXPECT_EQ(sc.num_constraints(), 32u);
}

TEST(uint32, rotr_and_shr) {
    rng g(22);
    for (uint32_t v : sample_u32(g))
        for (size_t by : {0, 1, 2, 7, 13, 31, 32, 45}) {
            test_cs cs;
            uint32 a = uint32::alloc(cs, v);
            expect_value(a.rotr(by), std::rotr(v, static_cast<int>(by % 32)));
            expect_value(a.shr(by), v >> (by % 32));
            EXPECT_EQ(cs.num_constraints(), 32u);  // free
        }
}

TEST(uint32, xor_ch_maj_against_native) {
    rng g(23);
    auto vals = sample_u32(g);
    for (size_t t = 0; t < vals.size(); ++t)
        for (int mask = 0; mask < 8; ++mask) {
            const uint32_t a = vals[t], b = vals[(t + 3) % vals.size()], c = vals[(t + 7) % vals.size()];
            test_cs cs;
            uint32 x = make_u32(cs, a, mask & 1, "a"), y = make_u32(cs, b, mask & 2, "b"), z = make_u32(cs, c, mask & 4, "c");
            uint32 r_xor, r_ch, r_maj;
            {
                r1cs::namespace_guard ns(cs, [] { return "xor"; });
                r_xor = x.xor_with(cs, y);
            }
            {
                r1cs::namespace_guard ns(cs, [] { return "ch"; });
                r_ch = uint32::sha256_ch(cs, x, y, z);
            }
            {
                r1cs::namespace_guard ns(cs, [] { return "maj"; });
                r_maj = uint32::sha256_maj(cs, x, y, z);
            }
            expect_value(r_xor, a ^ b);
            expect_value(r_ch, (a & b) ^ (~a & c));
            expect_value(r_maj, (a & b) ^ (a & c) ^ (b & c));
            EXPECT_TRUE(cs.is_satisfied());
            if (mask == 7) {
                // all allocated: 32 xors, 32 ch, 64 maj constraints beyond the 96 bits
                EXPECT_EQ(cs.num_constraints(), 96u + 32 + 32 + 64);
            }
            const size_t input_bits = 32 * static_cast<size_t>(std::popcount(static_cast<unsigned>(mask)));
            if (cs.num_aux() > input_bits) {  // the last aux is a gadget's
                test_cs bad = cs;
                const size_t last = bad.num_aux() - 1;
                bad.set_aux(last, bad.aux_assignment()[last] + fr::one());
                EXPECT_TRUE(bad.which_is_unsatisfied().has_value());
            }
            r1cs::shape_counter sc;
            auto shape = [&](bool alloc) { return alloc ? uint32::alloc(sc, std::nullopt) : uint32::constant(0); };
            // constants fold by their values, so the shape run uses the same constants
            uint32 sx = (mask & 1) ? shape(true) : uint32::constant(a);
            uint32 sy = (mask & 2) ? shape(true) : uint32::constant(b);
            uint32 sz = (mask & 4) ? shape(true) : uint32::constant(c);
            (void)sx.xor_with(sc, sy);
            (void)uint32::sha256_ch(sc, sx, sy, sz);
            (void)uint32::sha256_maj(sc, sx, sy, sz);
            EXPECT_EQ(sc.num_constraints(), cs.num_constraints());
            EXPECT_EQ(sc.num_aux(), cs.num_aux());
        }
}

// Bits of the full sum: bit length of n * (2^32 - 1).
size_t result_bits(size_t n) { return std::bit_width(n * uint64_t{0xffffffff}); }

TEST(uint32, addmany_values_bits_and_one_multieq) {
    rng g(24);
    for (size_t n = 2; n <= 10; ++n)
        for (int trial = 0; trial < 4; ++trial) {
            test_cs cs;
            std::vector<uint32> ops;
            uint32_t want = 0;
            for (size_t k = 0; k < n; ++k) {
                const uint32_t v = trial == 0 ? 0xffffffff : static_cast<uint32_t>(g());
                want += v;
                const bool allocated = trial == 3 ? (k % 2 == 0) : true;
                ops.push_back(make_u32(cs, v, allocated, "op " + std::to_string(k)));
            }
            const size_t before = cs.num_constraints();
            uint32 r;
            {
                multieq<test_cs> m(cs);
                r1cs::namespace_guard ns(m, [] { return "sum"; });
                r = uint32::addmany(m, std::span<const uint32>(ops));
            }
            expect_value(r, want);
            EXPECT_EQ(cs.num_constraints() - before, result_bits(n) + 1) << n;
            EXPECT_EQ(cs.constraints().back().name, "multieq 0");
            EXPECT_TRUE(cs.is_satisfied());
            // flip the lowest result bit: still a bit, but the sum is wrong
            const size_t bit0 = r.bits[0].bit().var.index;
            cs.set_aux(bit0, fr::one() - cs.aux_assignment()[bit0]);
            EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("multieq 0"));
        }
}

TEST(uint32, addmany_of_constants_is_a_constant) {
    test_cs cs;
    std::vector<uint32> ops = {uint32::constant(0xffffffff), uint32::constant(2), uint32::constant(7)};
    multieq<test_cs> m(cs);
    uint32 r = uint32::addmany(m, std::span<const uint32>(ops));
    m.finish();
    expect_value(r, 8);
    for (const auto& b : r.bits) EXPECT_TRUE(b.is_constant());
    EXPECT_EQ(cs.num_constraints(), 0u);
    EXPECT_THROW(uint32::addmany(m, std::span<const uint32>(ops).first(1)), error);
}

// Equalities share a constraint while their bits fit below 254: 3-operand sums have 34 bits,
// so 7 fit (238) and the 8th starts "multieq 1".
TEST(uint32, multieq_batches_until_capacity) {
    rng g(25);
    test_cs cs;
    std::vector<uint32> in;
    for (size_t k = 0; k < 3; ++k) in.push_back(make_u32(cs, static_cast<uint32_t>(g()), true, "in " + std::to_string(k)));
    const size_t before = cs.num_constraints();
    {
        multieq<test_cs> m(cs);
        for (size_t s = 0; s < 10; ++s) {
            r1cs::namespace_guard ns(m, [s] { return "sum " + std::to_string(s); });
            (void)uint32::addmany(m, std::span<const uint32>(in));
            if (s == 6) {
                EXPECT_EQ(cs.num_constraints() - before, 7 * 34u);
            }
            if (s == 7) {
                EXPECT_EQ(cs.num_constraints() - before, 8 * 34u + 1);
            }
        }
    }
    EXPECT_EQ(cs.num_constraints() - before, 10 * 34u + 2);
    // the 8th sum allocates its bits, then finds no room and emits the first seven
    EXPECT_EQ(cs.constraints()[before + 8 * 34].name, "sum 7/multieq 0");
    EXPECT_EQ(cs.constraints().back().name, "multieq 1");
    EXPECT_TRUE(cs.is_satisfied());
}

TEST(uint64, alloc_bits_and_pack_into_input) {
    rng g(26);
    for (uint64_t v : {uint64_t{0}, ~uint64_t{0}, uint64_t{1} << 63, uint64_t{22}, g(), g()}) {
        test_cs cs;
        uint64 a = uint64::alloc(cs, v);
        uint64 c = uint64::constant(v);
        for (size_t i = 0; i < 64; ++i) {
            EXPECT_EQ(a.bits[i].value(), ((v >> i) & 1) != 0);
            EXPECT_EQ(c.bits[i].value(), ((v >> i) & 1) != 0);
        }
        auto be = a.to_bits_be();
        EXPECT_EQ(be[0].value(), (v >> 63) != 0);
        EXPECT_EQ(uint64::from_bits_be(be).value, v);
        EXPECT_EQ(uint64::from_bits_le(a.to_bits_le()).value, v);
        a.pack_into_input(cs);
        EXPECT_EQ(cs.num_constraints(), 65u);
        ASSERT_EQ(cs.num_inputs(), 2u);
        EXPECT_EQ(cs.input_assignment()[1], fr::from_u64(v));
        EXPECT_TRUE(cs.is_satisfied());
        cs.set_input(1, fr::from_u64(v) + fr::one());
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("packing constraint 0"));
    }
    r1cs::shape_counter sc;
    uint64 s = uint64::alloc(sc, std::nullopt);
    s.pack_into_input(sc);
    EXPECT_EQ(sc.num_constraints(), 65u);
    EXPECT_EQ(sc.num_inputs(), 2u);
}

}  // namespace
}  // namespace c2lab::gadgets

// The device fields, compiled for the host, against lib/ff: the constants, then add, sub, neg,
// mul, sqr, Montgomery conversion and pow on edge and random values. One generic suite for Fr
// and Fp; Fp2 separately.
#include <gtest/gtest.h>

#include <vector>

#include "core/rng.hpp"
#include "gpu/ff/convert.hpp"

namespace c2lab::gpu {
namespace {

template <class Dev, class Host>
struct field_pair {
    using dev = Dev;
    using host = Host;
};

template <class T>
class dev_field : public ::testing::Test {};
using pairs = ::testing::Types<field_pair<fr_dev, ff::fr>, field_pair<fp_dev, ff::fp>>;
TYPED_TEST_SUITE(dev_field, pairs);

template <class H>
std::vector<H> samples(size_t random_count) {
    std::vector<H> v = {H::zero(), H::one(), H::from_u64(2), -H::one(), -H::from_u64(2),
                        H::from_canonical(H::p_minus_1_over_2), H::from_canonical(H::p_minus_1_over_2) + H::one()};
    typename H::repr raw1{};
    raw1[0] = 1;
    v.push_back(H::from_mont(raw1));           // Montgomery limbs 1
    v.push_back(H::from_mont(H::p_minus_1));   // Montgomery limbs p - 1
    typename H::repr top{};
    top[H::n_limbs - 1] = H::modulus[H::n_limbs - 1] - 1;  // large top limb, zero below
    v.push_back(H::from_mont(top));
    rng g(2026);
    for (size_t i = 0; i < random_count; ++i) v.push_back(H::random(g));
    return v;
}

TYPED_TEST(dev_field, one_and_montgomery_conversion) {
    using D = typename TypeParam::dev;
    using H = typename TypeParam::host;
    EXPECT_EQ(to_host(D::one()), H::one());
    EXPECT_EQ(to_dev(H::one()), D::one());
    EXPECT_EQ(to_host(D::to_mont(D{{5}})), H::from_u64(5));
    EXPECT_EQ(to_dev(H::from_u64(5)).from_mont(), D{{5}});
}

TEST(dev_field_constants, limbs_equal_lib_ff) {
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(fr_dev_params::modulus().v[2 * i] | uint64_t(fr_dev_params::modulus().v[2 * i + 1]) << 32,
                  ff::fr::modulus[i]);
        EXPECT_EQ(fr_dev_params::one_mont().v[2 * i] | uint64_t(fr_dev_params::one_mont().v[2 * i + 1]) << 32,
                  ff::fr::r1[i]);
        EXPECT_EQ(fr_dev_params::rr().v[2 * i] | uint64_t(fr_dev_params::rr().v[2 * i + 1]) << 32, ff::fr::r2[i]);
    }
    for (size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(fp_dev_params::modulus().v[2 * i] | uint64_t(fp_dev_params::modulus().v[2 * i + 1]) << 32,
                  ff::fp::modulus[i]);
        EXPECT_EQ(fp_dev_params::one_mont().v[2 * i] | uint64_t(fp_dev_params::one_mont().v[2 * i + 1]) << 32,
                  ff::fp::r1[i]);
        EXPECT_EQ(fp_dev_params::rr().v[2 * i] | uint64_t(fp_dev_params::rr().v[2 * i + 1]) << 32, ff::fp::r2[i]);
    }
    EXPECT_EQ(uint32_t(fr_dev_params::m0 * fr_dev_params::modulus().v[0]), 0xffffffffu);
    EXPECT_EQ(uint32_t(fp_dev_params::m0 * fp_dev_params::modulus().v[0]), 0xffffffffu);
}

TYPED_TEST(dev_field, arithmetic_matches_lib_ff) {
    using D = typename TypeParam::dev;
    using H = typename TypeParam::host;
    const auto v = samples<H>(24);
    for (const H& a : v) {
        const D da = to_dev(a);
        EXPECT_EQ(to_host(da), a);
        EXPECT_EQ(to_host(-da), -a);
        EXPECT_EQ(to_host(da.dbl()), a.dbl());
        EXPECT_EQ(to_host(da.sqr()), a.square());
        EXPECT_EQ(da.is_zero(), a.is_zero());
        EXPECT_EQ(to_host(da.pow_u64(0x1234567890abcdefULL)), a.pow(0x1234567890abcdefULL));
        EXPECT_EQ(to_host(da.from_mont()), H::from_mont(a.to_canonical()));
        for (const H& b : v) {
            const D db = to_dev(b);
            ASSERT_EQ(to_host(da + db), a + b);
            ASSERT_EQ(to_host(da - db), a - b);
            ASSERT_EQ(to_host(da * db), a * b);
            ASSERT_EQ(da == db, a == b);
        }
    }
}

TEST(dev_fp2, arithmetic_matches_lib_ff) {
    rng g(7);
    std::vector<ff::fp2> v = {ff::fp2::zero(), ff::fp2::one(), {ff::fp::zero(), ff::fp::one()},
                              {-ff::fp::one(), -ff::fp::one()}};
    for (int i = 0; i < 12; ++i) v.push_back({ff::fp::random(g), ff::fp::random(g)});
    for (const auto& a : v) {
        const fp2_dev da = to_dev(a);
        EXPECT_EQ(to_host(da.sqr()), a.square());
        EXPECT_EQ(to_host(-da), -a);
        EXPECT_EQ(to_host(da.dbl()), a + a);
        for (const auto& b : v) {
            const fp2_dev db = to_dev(b);
            ASSERT_EQ(to_host(da * db), a * b);
            ASSERT_EQ(to_host(da + db), a + b);
            ASSERT_EQ(to_host(da - db), a - b);
        }
    }
}

}  // namespace
}  // namespace c2lab::gpu

// Scalar multiplication by the endomorphism (endo_mul.hpp) against jacobian::mul, the plain
// 4-bit window over all 255 bits, on both groups: random points and scalars, and the scalars
// where the splits change shape (0, 1, the split multipliers and their neighbours, r - 1, the
// largest digit values); the width-5 NAF against its definition.
#include <gtest/gtest.h>

#include <vector>

#include "core/rng.hpp"
#include "msm/endo_mul.hpp"
#include "msm/glv.hpp"

namespace c2lab::msm {
namespace {

using ff::fr;
using u128 = unsigned __int128;

template <class C>
ec::jacobian<C> mul_endo(const ec::jacobian<C>& p, const fr& k) {
    if constexpr (std::is_same_v<C, ec::g1_curve>) return g1_mul_endo(p, k);
    else return g2_mul_endo(p, k);
}

template <class C>
class endo_mul_suite : public ::testing::Test {};
using curve_types = ::testing::Types<ec::g1_curve, ec::g2_curve>;
TYPED_TEST_SUITE(endo_mul_suite, curve_types);

fr from_u128(u128 v) { return fr::from_canonical(ff::limbs<4>{static_cast<uint64_t>(v), static_cast<uint64_t>(v >> 64), 0, 0}); }

// The scalars where a split's digits sit at their limits.
std::vector<fr> edge_scalars() {
    const auto ml = glv_multiplier();
    const fr m = fr::from_canonical(ff::limbs<4>{ml[0], ml[1], 0, 0});
    const fr x = fr::from_u64(ec::bls_x_abs);
    std::vector<fr> out = {fr::zero(), fr::one(), fr::from_u64(2), fr::from_u64(15), fr::from_u64(16),
                           fr::from_u64(17), -fr::one(), -fr::from_u64(2)};
    for (const fr& base : {m, x, x * x, x * x * x, m * m}) {
        for (const fr& d : {-fr::one(), fr::zero(), fr::one()}) out.push_back(base + d);
    }
    const u128 m128 = (static_cast<u128>(ml[1]) << 64) | ml[0];
    for (u128 h : {m128 / 2 - 1, m128 / 2, m128 / 2 + 1, m128 / 2 + 2}) out.push_back(from_u128(h));  // the centring threshold
    for (u128 h : {(m128 - 1) / 2, (m128 - 1) / 2 + 1}) out.push_back(from_u128(h) * m);
    out.push_back(x * x * x * (x - fr::one()) - fr::one());  // largest a3 and a_j = |x| - 1
    out.push_back(from_u128(~u128{0}));                   // 2^128 - 1
    out.push_back(from_u128(u128{1} << 127));
    return out;
}

TYPED_TEST(endo_mul_suite, matches_the_plain_window_on_edge_scalars) {
    using C = TypeParam;
    rng g(31);
    const auto p = ec::jacobian<C>::generator().mul(fr::random(g).to_canonical());
    const auto ks = edge_scalars();
    for (size_t i = 0; i < ks.size(); ++i) {
        const fr& k = ks[i];
        SCOPED_TRACE(i);
        EXPECT_EQ(mul_endo(p, k), p.mul(k.to_canonical()));
    }
}

TYPED_TEST(endo_mul_suite, matches_the_plain_window_on_random_points_and_scalars) {
    using C = TypeParam;
    rng g(32);
    for (int i = 0; i < 24; ++i) {
        const auto p = ec::jacobian<C>::generator().mul(fr::random(g).to_canonical());
        const fr k = fr::random(g);
        SCOPED_TRACE(i);
        const auto got = mul_endo(p, k);
        EXPECT_TRUE(got.is_on_curve());
        EXPECT_EQ(got, p.mul(k.to_canonical()));
    }
}

TYPED_TEST(endo_mul_suite, identity_and_the_generator) {
    using C = TypeParam;
    rng g(33);
    const fr k = fr::random(g);
    EXPECT_TRUE(mul_endo(ec::jacobian<C>::identity(), k).is_identity());
    EXPECT_TRUE(mul_endo(ec::jacobian<C>::generator(), fr::zero()).is_identity());
    EXPECT_EQ(mul_endo(ec::jacobian<C>::generator(), k), ec::jacobian<C>::generator().mul(k.to_canonical()));
    // A point not in affine form (Z != 1) as input.
    const auto p = ec::jacobian<C>::generator().dbl() + ec::jacobian<C>::generator();
    EXPECT_EQ(mul_endo(p, k), p.mul(k.to_canonical()));
}

// k = sum d_i 2^i, digits odd and at most 15 in size, nonzero digits at least 5 apart.
TEST(endo_mul, wnaf5_is_a_width_5_naf_of_k) {
    rng g(34);
    std::vector<u128> ks = {0, 1, 15, 16, 17, 31, 32, 33, (u128{1} << 127) - 1, (u128{1} << 127) + 15};
    for (int i = 0; i < 200; ++i) ks.push_back(((static_cast<u128>(g.next()) << 64) | g.next()) >> (1 + i % 100));
    for (u128 k : ks) {
        int8_t d[130];
        const size_t n = wnaf5(k, d);
        ASSERT_LE(n, 129u);
        u128 pos = 0, neg = 0;
        size_t last = 0;
        bool seen = false;
        for (size_t i = 0; i < n; ++i) {
            if (d[i] == 0) continue;
            EXPECT_EQ(d[i] & 1, 1) << "even digit at " << i;
            EXPECT_LE(d[i] < 0 ? -d[i] : d[i], 15);
            if (seen) {
                EXPECT_GE(i - last, 5u) << "digits too close at " << i;
            }
            seen = true;
            last = i;
            if (d[i] > 0) pos += static_cast<u128>(d[i]) << i;
            else neg += static_cast<u128>(-d[i]) << i;
        }
        EXPECT_TRUE(pos - neg == k) << "digits do not sum to k";
        if (n > 0) {
            EXPECT_NE(d[n - 1], 0) << "leading zero digit";
        }
    }
}

}  // namespace
}  // namespace c2lab::msm

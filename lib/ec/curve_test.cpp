// Group laws for G1 and G2 in every representation, one generic suite per curve;
// scalar multiplication against repeated addition; subgroup checks fast vs naive.
#include <gtest/gtest.h>

#include "ec/g2.hpp"

namespace c2lab::ec {
namespace {

template <class C>
class curve : public ::testing::Test {};
using curve_types = ::testing::Types<g1_curve, g2_curve>;
TYPED_TEST_SUITE(curve, curve_types);

template <class C>
jacobian<C> random_point(rng& g) {
    return jacobian<C>::generator() * ff::fr::random(g);
}

TYPED_TEST(curve, generator_is_on_curve_and_has_order_r) {
    using C = TypeParam;
    auto g = affine<C>::generator();
    EXPECT_TRUE(g.is_on_curve());
    EXPECT_FALSE(g.is_identity());
    EXPECT_TRUE(g.to_jacobian().mul(ff::fr::modulus).is_identity());
    auto r_minus_1 = ff::fr::p_minus_1;
    EXPECT_EQ(g.to_jacobian().mul(r_minus_1), -g.to_jacobian());
}

TYPED_TEST(curve, group_laws_in_jacobian) {
    using C = TypeParam;
    using J = jacobian<C>;
    rng g(20);
    for (int i = 0; i < 20; ++i) {
        J a = random_point<C>(g), b = random_point<C>(g), c = random_point<C>(g);
        ASSERT_TRUE(a.is_on_curve());
        ASSERT_EQ(a + b, b + a);
        ASSERT_EQ((a + b) + c, a + (b + c));
        ASSERT_EQ(a + J::identity(), a);
        ASSERT_EQ(J::identity() + a, a);
        ASSERT_TRUE((a + (-a)).is_identity());
        ASSERT_EQ(a + a, a.dbl());
        ASSERT_TRUE((a + b).is_on_curve());
        ASSERT_TRUE(a.dbl().is_on_curve());
        ASSERT_EQ(a.to_affine().to_jacobian(), a);
    }
    EXPECT_TRUE(J::identity().dbl().is_identity());
}

TYPED_TEST(curve, mixed_addition_matches_full_addition) {
    using C = TypeParam;
    rng g(21);
    for (int i = 0; i < 20; ++i) {
        auto a = random_point<C>(g), b = random_point<C>(g);
        auto b_aff = b.to_affine();
        ASSERT_EQ(a + b_aff, a + b);
        ASSERT_EQ(a.to_affine().to_jacobian() + a.to_affine(), a.dbl());  // P + P through the mixed formula
        ASSERT_TRUE((a + (-a.to_affine())).is_identity());
        ASSERT_EQ(a + affine<C>::identity(), a);
        ASSERT_EQ(jacobian<C>::identity() + b_aff, b);
    }
}

TYPED_TEST(curve, xyzz_matches_jacobian) {
    using C = TypeParam;
    rng g(22);
    for (int i = 0; i < 20; ++i) {
        auto a = random_point<C>(g), b = random_point<C>(g);
        auto xa = a.to_affine().to_xyzz(), xb = b.to_affine().to_xyzz();
        ASSERT_EQ((xa + xb).to_jacobian(), a + b);
        ASSERT_EQ((xa + b.to_affine()).to_affine(), (a + b).to_affine());
        ASSERT_EQ(xa.dbl().to_jacobian(), a.dbl());
        ASSERT_EQ((xa + xa).to_jacobian(), a.dbl());
        ASSERT_EQ((xa + a.to_affine()).to_jacobian(), a.dbl());
        ASSERT_TRUE((xa + (-xa)).is_identity());
        ASSERT_TRUE((xa + (-a.to_affine())).is_identity());
        // Non-trivial Z: accumulate, then compare through both conversions.
        auto acc = (xa + xb).dbl() + xa;
        ASSERT_EQ(acc.to_jacobian(), (a + b).dbl() + a);
        ASSERT_EQ(acc.to_affine(), ((a + b).dbl() + a).to_affine());
    }
    EXPECT_TRUE(xyzz<C>::identity().to_affine().is_identity());
}

TYPED_TEST(curve, scalar_multiplication_matches_repeated_addition) {
    using C = TypeParam;
    auto g0 = jacobian<C>::generator();
    jacobian<C> acc = jacobian<C>::identity();
    for (uint64_t k = 0; k < 40; ++k) {
        ASSERT_EQ(g0.mul(k), acc) << "k = " << k;
        acc += g0;
    }
    rng g(23);
    for (int i = 0; i < 10; ++i) {
        ff::fr a = ff::fr::random(g), b = ff::fr::random(g);
        ASSERT_EQ(g0 * (a + b), g0 * a + g0 * b);
        ASSERT_EQ(g0 * (a * b), (g0 * a) * b);
    }
    EXPECT_TRUE((g0 * ff::fr::zero()).is_identity());
    EXPECT_EQ(g0 * ff::fr::one(), g0);
    EXPECT_EQ(g0 * (-ff::fr::one()), -g0);
}

// A point on the curve outside the subgroup: the smallest x >= 1 with x^3 + b square.
template <class C>
affine<C> point_outside_subgroup(uint64_t start) {
    using F = typename C::field;
    for (uint64_t i = start;; ++i) {
        F x;
        if constexpr (std::is_same_v<F, ff::fp>) x = F::from_u64(i);
        else x = F{ff::fp::from_u64(i), ff::fp::one()};
        auto y = (x.square() * x + C::b).sqrt();
        if (y) return {x, *y};
    }
}

TYPED_TEST(curve, subgroup_checks_agree_with_the_definition) {
    using C = TypeParam;
    auto fast = [](const affine<C>& p) {
        if constexpr (std::is_same_v<C, g1_curve>) return g1_in_subgroup(p);
        else return g2_in_subgroup(p);
    };
    auto naive = [](const affine<C>& p) {
        if constexpr (std::is_same_v<C, g1_curve>) return g1_in_subgroup_naive(p);
        else return g2_in_subgroup_naive(p);
    };
    rng g(24);
    for (int i = 0; i < 5; ++i) {
        auto p = random_point<C>(g).to_affine();
        ASSERT_TRUE(naive(p));
        ASSERT_TRUE(fast(p));
    }
    EXPECT_TRUE(fast(affine<C>::identity()));
    int outside = 0;
    for (uint64_t s = 1; outside < 5; s += 7) {
        auto q = point_outside_subgroup<C>(s);
        ASSERT_TRUE(q.is_on_curve());
        ASSERT_EQ(fast(q), naive(q));
        ASSERT_FALSE(naive(q));
        ++outside;
    }
}

TEST(g2, psi_is_an_endomorphism_acting_as_p) {
    // On G2, psi acts as multiplication by p mod r; check psi is additive and commutes with [k].
    rng g(25);
    auto a = (g2_jacobian::generator() * ff::fr::random(g)).to_affine();
    auto b = (g2_jacobian::generator() * ff::fr::random(g)).to_affine();
    EXPECT_EQ(g2_psi((a.to_jacobian() + b).to_affine()).to_jacobian(),
              g2_psi(a).to_jacobian() + g2_psi(b));
    ff::fr p_mod_r = ff::fr::from_u64(1);
    {
        // p mod r computed by reducing p's limbs through Horner in Fr.
        ff::fr acc = ff::fr::zero(), base = ff::fr::from_u64(1);
        ff::fr two64 = ff::fr::from_u64(1ULL << 63) * ff::fr::from_u64(2);
        for (uint64_t limb : ff::fp::modulus) {
            acc += base * ff::fr::from_u64(limb);
            base *= two64;
        }
        p_mod_r = acc;
    }
    EXPECT_EQ(g2_psi(a).to_jacobian(), a.to_jacobian() * p_mod_r);
}

// psi's constants are literals in subgroup.cpp: psi is the formula of g2.hpp, evaluated here.
TEST(g2, psi_is_the_formula_with_powers_of_xi) {
    rng g(26);
    for (int i = 0; i < 3; ++i) {
        auto a = (g2_jacobian::generator() * ff::fr::random(g)).to_affine();
        // (p - 1) / 3 and (p - 1) / 2 as exponents: frobenius_v is xi^((p-1)/3) (fp_tower_test).
        const ff::fp2 x = a.x.conjugate() * ff::frobenius_v.inverse();
        const ff::fp2 y = a.y.conjugate() * ff::xi.pow(ff::fp::p_minus_1_over_2).inverse();
        const g2_affine want{x, y};
        EXPECT_TRUE(want.is_on_curve());
        EXPECT_EQ(g2_psi(a), want);
    }
}

}  // namespace
}  // namespace c2lab::ec

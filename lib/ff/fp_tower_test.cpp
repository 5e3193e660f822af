// The extension tower Fp2 / Fp6 / Fp12: laws on random elements, Frobenius against
// plain exponentiation by p, sparse and cyclotomic fast paths against the generic ones.
#include <gtest/gtest.h>

#include "ff/fp12.hpp"

namespace c2lab::ff {
namespace {

template <class T>
class tower : public ::testing::Test {};
using tower_types = ::testing::Types<fp2, fp6, fp12>;
TYPED_TEST_SUITE(tower, tower_types);

TYPED_TEST(tower, field_laws) {
    using T = TypeParam;
    rng g(10);
    for (int i = 0; i < 50; ++i) {
        T a = T::random(g), b = T::random(g), c = T::random(g);
        ASSERT_EQ(a * b, b * a);
        ASSERT_EQ((a * b) * c, a * (b * c));
        ASSERT_EQ(a * (b + c), a * b + a * c);
        ASSERT_EQ(a.square(), a * a);
        ASSERT_EQ(a * T::one(), a);
        ASSERT_EQ(a + (-a), T::zero());
        ASSERT_EQ(a * a.inverse(), T::one());
    }
    EXPECT_TRUE(T::zero().inverse().is_zero());
}

TYPED_TEST(tower, frobenius_is_the_p_power) {
    using T = TypeParam;
    rng g(11);
    for (int i = 0; i < 3; ++i) {
        T a = T::random(g);
        ASSERT_EQ(a.frobenius(), a.pow(fp::modulus));
    }
}

TEST(fp2, u_squared_is_minus_one_and_nonresidue) {
    fp2 u{fp::zero(), fp::one()};
    EXPECT_EQ(u * u, -fp2::one());
    rng g(12);
    fp2 xi{fp::one(), fp::one()};
    for (int i = 0; i < 20; ++i) {
        fp2 a = fp2::random(g);
        ASSERT_EQ(a.mul_by_nonresidue(), a * xi);
        ASSERT_EQ(a.conjugate() * a, (fp2{a.norm(), fp::zero()}));
    }
}

TEST(fp2, sqrt_round_trips_and_legendre) {
    rng g(13);
    int non_squares = 0;
    for (int i = 0; i < 100; ++i) {
        fp2 a = fp2::random(g);
        auto r = a.square().sqrt();
        ASSERT_TRUE(r.has_value());
        ASSERT_TRUE(*r == a || *r == -a);
        auto s = a.sqrt();
        ASSERT_EQ(s.has_value(), a.legendre() == 1);
        if (!s) ++non_squares;
    }
    EXPECT_GT(non_squares, 20);
    // Elements of Fp embed as squares in Fp2 (every Fp element is a square in Fp2).
    fp2 m1 = -fp2::one();
    auto r = m1.sqrt();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->square(), m1);
    fp2 pure_imag{fp::zero(), fp::from_u64(5)};
    auto r2 = pure_imag.square().sqrt();
    ASSERT_TRUE(r2.has_value());
    EXPECT_EQ(r2->square(), pure_imag.square());
}

TEST(fp6, sparse_products_match_generic) {
    rng g(14);
    for (int i = 0; i < 50; ++i) {
        fp6 a = fp6::random(g);
        fp2 b0 = fp2::random(g), b1 = fp2::random(g);
        ASSERT_EQ(a.mul_by_1(b1), (a * fp6{fp2::zero(), b1, fp2::zero()}));
        ASSERT_EQ(a.mul_by_01(b0, b1), (a * fp6{b0, b1, fp2::zero()}));
        ASSERT_EQ(a.mul_by_nonresidue(), (a * fp6{fp2::zero(), fp2::one(), fp2::zero()}));
    }
    fp6 v{fp2::zero(), fp2::one(), fp2::zero()};
    EXPECT_EQ(v * v * v, (fp6{xi, fp2::zero(), fp2::zero()}));
}

TEST(fp12, sparse_line_product_matches_generic) {
    rng g(15);
    for (int i = 0; i < 50; ++i) {
        fp12 a = fp12::random(g);
        fp2 d0 = fp2::random(g), d1 = fp2::random(g), d4 = fp2::random(g);
        fp12 line{{d0, d1, fp2::zero()}, {fp2::zero(), d4, fp2::zero()}};
        ASSERT_EQ(a.mul_by_014(d0, d1, d4), a * line);
    }
    fp12 w{fp6::zero(), fp6::one()};
    EXPECT_EQ(w * w, (fp12{fp6{fp2::zero(), fp2::one(), fp2::zero()}, fp6::zero()}));
}

TEST(fp12, cyclotomic_square_matches_square_in_the_cyclotomic_subgroup) {
    rng g(16);
    for (int i = 0; i < 20; ++i) {
        fp12 f = fp12::random(g);
        // f^((p^6 - 1)(p^2 + 1)) lies in the cyclotomic subgroup.
        fp12 c = f.conjugate() * f.inverse();
        c = c.frobenius(2) * c;
        ASSERT_EQ(c.cyclotomic_square(), c.square());
        ASSERT_EQ(c * c.conjugate(), fp12::one());  // unitary: conjugate is the inverse
    }
}

TEST(fp12, frobenius_has_order_twelve) {
    rng g(17);
    fp12 a = fp12::random(g);
    EXPECT_EQ(a.frobenius(12), a);
    EXPECT_NE(a.frobenius(6), a);
    EXPECT_EQ(a.frobenius(6), a.pow(fp::modulus).frobenius(5));
}

}  // namespace
}  // namespace c2lab::ff

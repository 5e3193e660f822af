// The extension tower Fp2 / Fp6 / Fp12: laws on random elements, Frobenius against
// plain exponentiation by p, sparse and cyclotomic fast paths against the generic ones.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/cpu.hpp"
#include "ff/fp12.hpp"
#include "ff/fp12_compressed.hpp"
#include "ff/fp2_wide.hpp"

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

// The compound operators write in place (the Fp2 ones straight from the assembly, which may
// alias its operands): each against the binary operator, with the right operand the target too.
TYPED_TEST(tower, compound_operators_in_place_and_aliased) {
    using T = TypeParam;
    rng g(13);
    for (int i = 0; i < 30; ++i) {
        const T a = T::random(g), b = T::random(g);
        T x = a;
        x += b;
        ASSERT_EQ(x, a + b);
        x = a;
        x -= b;
        ASSERT_EQ(x, a - b);
        x = a;
        x *= b;
        ASSERT_EQ(x, a * b);
        x = a;
        x += x;
        ASSERT_EQ(x, a + a);
        x = a;
        const T& same = x;  // x -= x, written through a reference (clang's -Wself-assign-overloaded)
        x -= same;
        ASSERT_EQ(x, T::zero());
        x = a;
        x *= x;
        ASSERT_EQ(x, a.square());
        x = a;
        x = x.square();
        ASSERT_EQ(x, a * a);
    }
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

// Fp edge values and Fp2 elements built from them, with random ones.
std::vector<fp2> fp2_samples(uint64_t seed, int random_count) {
    std::vector<fp> edges = {fp::zero(), fp::one(), -fp::one(), -fp::from_u64(2), fp::from_u64(2),
                             fp::from_canonical(fp::p_minus_1_over_2), fp::from_mont(fp::p_minus_1),
                             fp::from_mont(fp::repr{1, 0, 0, 0, 0, 0})};
    std::vector<fp2> xs;
    for (const fp& a : edges)
        for (const fp& b : edges) xs.push_back({a, b});
    rng g(seed);
    for (int i = 0; i < random_count; ++i) xs.push_back(fp2::random(g));
    return xs;
}

TEST(fp2, assembly_product_and_square_match_the_reference) {
    if (!cpu::use_adx_asm) GTEST_SKIP() << "no mulx/adcx/adox path on this build or CPU";
    auto xs = fp2_samples(18, 2000);
    for (size_t i = 0; i < xs.size(); ++i) {
        const fp2& a = xs[i];
        const fp2& b = xs[(i * 7 + 3) % xs.size()];
        fp2 fast = a * b;
        ASSERT_EQ(fast, fp2::mul_karatsuba(a, b)) << i;
        ASSERT_TRUE(fp::is_canonical(fast.c0.mont) && fp::is_canonical(fast.c1.mont)) << i;
        fp2 sq = a.square();
        ASSERT_EQ(sq, a.square_complex()) << i;
        ASSERT_TRUE(fp::is_canonical(sq.c0.mont) && fp::is_canonical(sq.c1.mont)) << i;
    }
    // Aliasing: the result may overwrite an operand.
    fp2 a = xs[5], b = xs[9], want = fp2::mul_karatsuba(a, b);
    c2lab_fp2_mul(a.limb_data(), a.limb_data(), b.limb_data());
    EXPECT_EQ(a, want);
    c2lab_fp2_sqr(b.limb_data(), b.limb_data());
    EXPECT_EQ(b, xs[9].square_complex());
}

TEST(fp2, assembly_norm_matches_the_sum_of_squares_for_halves_below_2p) {
    if (!cpu::use_adx_asm) GTEST_SKIP() << "no mulx/adcx/adox path on this build or CPU";
    auto xs = fp2_samples(19, 2000);
    for (size_t i = 0; i < xs.size(); ++i) {
        const fp2& a = xs[i];
        const fp want = a.c0.square() + a.c1.square();
        ASSERT_EQ(a * a.conjugate(), (fp2{want, fp::zero()})) << i;  // the norm is a conj(a)
        fp got;
        c2lab_fp2_norm(got.mont.data(), a.limb_data());
        ASSERT_EQ(got, want) << i;
        ASSERT_TRUE(fp::is_canonical(got.mont)) << i;
        // The lazy forms the batched additions may hand it: either half plus p (below 2p).
        fp2 lazy = a;
        lazy_add_into(lazy.c0.mont, a.c0.mont, fp::modulus);
        lazy_add_into(lazy.c1.mont, a.c1.mont, fp::modulus);
        c2lab_fp2_norm(got.mont.data(), lazy.limb_data());
        ASSERT_EQ(got, want) << i;
        ASSERT_TRUE(fp::is_canonical(got.mont)) << i;
    }
    // Aliasing: the norm may overwrite the operand's first half.
    fp2 a = xs[7];
    c2lab_fp2_norm(a.limb_data(), a.limb_data());
    EXPECT_EQ(a.c0, xs[7].c0.square() + xs[7].c1.square());
}

// A wide value is in range when it is below p 2^384: its high half is below p.
bool in_wide_range(const fp_wide& x) { return less_than(high_half(x), fp::modulus); }

// The largest wide values, p 2^384 - 1 and its neighbours, and small ones.
std::vector<fp_wide> wide_edges() {
    fp_wide top{};
    for (size_t i = 0; i < 6; ++i) top[i] = ~uint64_t{0};
    set_high_half(top, fp::p_minus_1);  // p 2^384 - 1
    fp_wide top2 = top;
    top2[0] -= 1;
    return {fp_wide{}, fp_wide{1}, top, top2, p_squared};
}

TEST(fp2_wide, reduction_of_products_and_sums_is_the_field_arithmetic) {
    auto xs = fp2_samples(21, 300);
    for (size_t i = 0; i < xs.size(); ++i) {
        const fp2& a = xs[i];
        const fp2& b = xs[(i * 7 + 3) % xs.size()];
        const fp2& c = xs[(i * 5 + 1) % xs.size()];
        const fp2& d = xs[(i * 3 + 2) % xs.size()];
        const fp2_wide ab = fp2_wide::product(a, b), cd = fp2_wide::product(c, d);
        ASSERT_TRUE(in_wide_range(ab.c0) && in_wide_range(ab.c1)) << i;
        ASSERT_EQ(ab.reduce(), fp2::mul_karatsuba(a, b)) << i;
        ASSERT_EQ(fp2_wide::square(a).reduce(), a.square_complex()) << i;
        ASSERT_EQ((ab + cd).reduce(), fp2::mul_karatsuba(a, b) + fp2::mul_karatsuba(c, d)) << i;
        ASSERT_EQ((ab - cd).reduce(), fp2::mul_karatsuba(a, b) - fp2::mul_karatsuba(c, d)) << i;
        ASSERT_EQ(ab.mul_by_nonresidue().reduce(), fp2::mul_karatsuba(a, b).mul_by_nonresidue()) << i;
        // a long chain stays in range and keeps its value
        fp2_wide acc = ab;
        fp2 want = fp2::mul_karatsuba(a, b);
        for (int k = 0; k < 8; ++k) {
            acc = (acc + acc - cd).mul_by_nonresidue();
            want = (want + want - fp2::mul_karatsuba(c, d)).mul_by_nonresidue();
        }
        ASSERT_TRUE(in_wide_range(acc.c0) && in_wide_range(acc.c1)) << i;
        ASSERT_EQ(acc.reduce(), want) << i;
    }
}

TEST(fp2_wide, assembly_matches_portable_limb_for_limb) {
    if (!cpu::use_adx_asm) GTEST_SKIP() << "no mulx/adcx/adox path on this build or CPU";
    auto xs = fp2_samples(22, 1000);
    for (size_t i = 0; i < xs.size(); ++i) {
        const fp2& a = xs[i];
        const fp2& b = xs[(i * 7 + 3) % xs.size()];
        const fp2_wide p = fp2_wide::product(a, b);
        ASSERT_EQ(p, fp2_wide::product_portable(a, b)) << i;
        ASSERT_EQ(fp2_wide::square(a), fp2_wide::square_portable(a)) << i;
        const fp2 r = p.reduce();
        ASSERT_EQ(r.c0.mont, redc_portable(p.c0)) << i;
        ASSERT_EQ(r.c1.mont, redc_portable(p.c1)) << i;
    }
    // Sums and differences at the ends of the range [0, p 2^384), with aliasing.
    auto edges = wide_edges();
    rng g(23);
    for (int i = 0; i < 200; ++i) {
        fp2_wide w = fp2_wide::product(fp2::random(g), fp2::random(g));
        edges.push_back(w.c0);
        edges.push_back(w.c1);
    }
    for (const fp_wide& x : edges)
        for (const fp_wide& y : edges) {
            const fp2_wide u{x, y}, v{y, x};
            const fp2_wide s = u + v, d = u - v, n = u.mul_by_nonresidue();
            ASSERT_EQ(s.c0, wide_add_portable(x, y));
            ASSERT_EQ(d.c0, wide_sub_portable(x, y));
            ASSERT_EQ(d.c1, wide_sub_portable(y, x));
            ASSERT_EQ(n.c0, wide_sub_portable(x, y));
            ASSERT_EQ(n.c1, wide_add_portable(x, y));
            ASSERT_TRUE(in_wide_range(s.c0) && in_wide_range(d.c0) && in_wide_range(d.c1));
            ASSERT_EQ(redc_portable(s.c0), (fp::from_mont(redc_portable(x)) + fp::from_mont(redc_portable(y))).mont);
            ASSERT_EQ(redc_portable(d.c0), (fp::from_mont(redc_portable(x)) - fp::from_mont(redc_portable(y))).mont);
            fp_wide r = x;
            detail::wide_add_12_to(r.data(), r.data(), y.data(), fp::modulus.data());
            ASSERT_EQ(r, wide_add_portable(x, y));
            r = y;
            detail::wide_sub_12_to(r.data(), x.data(), r.data(), fp::modulus.data());
            ASSERT_EQ(r, wide_sub_portable(x, y));
        }
    // The reduction may write over its input.
    fp2_wide w = fp2_wide::product(xs[3], xs[4]);
    fp2 want = w.reduce();
    c2lab_fp2_redc(w.c0.data(), w.c0.data());
    EXPECT_EQ(0, std::memcmp(w.c0.data(), want.limb_data(), sizeof want));
}

TEST(fp6, lazy_product_matches_schoolbook) {
    rng g(24);
    for (int i = 0; i < 200; ++i) {
        fp6 a = fp6::random(g), b = fp6::random(g);
        if (i == 0) a = {-fp2::one(), -fp2::one(), -fp2::one()};
        if (i == 1) b = {-fp2::one(), fp2::zero(), -fp2::one()};
        auto m = fp2::mul_karatsuba;
        fp6 want{m(a.c0, b.c0) + (m(a.c1, b.c2) + m(a.c2, b.c1)).mul_by_nonresidue(),
                 m(a.c0, b.c1) + m(a.c1, b.c0) + m(a.c2, b.c2).mul_by_nonresidue(),
                 m(a.c0, b.c2) + m(a.c1, b.c1) + m(a.c2, b.c0)};
        ASSERT_EQ(a * b, want) << i;
        ASSERT_EQ(a.square(), want = a * a) << i;
        fp12 x{a, b}, y{b, a};
        fp12 want12{x.c0 * y.c0 + (x.c1 * y.c1).mul_by_nonresidue(), x.c0 * y.c1 + x.c1 * y.c0};
        ASSERT_EQ(x * y, want12) << i;
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
        const fp12 c = fp12::random_cyclotomic(g);
        ASSERT_EQ(c.cyclotomic_square(), c.square());
        ASSERT_EQ(c * c.conjugate(), fp12::one());  // unitary: conjugate is the inverse
    }
}

// Runs of compressed squarings against Granger-Scott: z2..z5 after every square, and the whole
// element after decompression, for runs of 1 to 70 (the final exponentiation's run is 63).
TEST(fp12_compressed, squaring_runs_match_granger_scott) {
    rng g(61);
    for (int i = 0; i < 4; ++i) {
        fp12 full = fp12::random_cyclotomic(g);
        fp12_compressed c = fp12_compressed::of(full);
        std::vector<fp12_compressed> snaps;
        std::vector<fp12> want;
        for (int k = 1; k <= 70; ++k) {
            full = full.cyclotomic_square();
            c = c.square();
            const fp12_compressed expect = fp12_compressed::of(full);
            ASSERT_EQ(c.z2, expect.z2) << "square " << k;
            ASSERT_EQ(c.z3, expect.z3) << "square " << k;
            ASSERT_EQ(c.z4, expect.z4) << "square " << k;
            ASSERT_EQ(c.z5, expect.z5) << "square " << k;
            if (k % 9 == 1) {
                snaps.push_back(c);
                want.push_back(full);
            }
        }
        std::vector<fp12> got(snaps.size());
        ASSERT_TRUE(fp12_compressed::decompress(snaps, got));
        for (size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], want[k]) << "snapshot " << k;
        // one value alone (no batching), and an empty batch
        std::vector<fp12> one(1);
        ASSERT_TRUE(fp12_compressed::decompress(std::span(snaps).first(1), one));
        EXPECT_EQ(one[0], want[0]);
        EXPECT_TRUE(fp12_compressed::decompress({}, {}));
    }
}

// Decompression is not a projection that ignores its input: a changed z3 gives another element.
TEST(fp12_compressed, decompress_depends_on_every_coordinate) {
    rng g(62);
    const fp12 a = fp12::random_cyclotomic(g);
    const fp12_compressed c = fp12_compressed::of(a);
    std::vector<fp12> out(1);
    for (int which = 0; which < 4; ++which) {
        fp12_compressed d = c;
        fp2* z[] = {&d.z2, &d.z3, &d.z4, &d.z5};
        *z[which] = *z[which] + fp2::one();
        ASSERT_TRUE(fp12_compressed::decompress(std::span(&d, 1), out));
        EXPECT_NE(out[0], a) << "coordinate " << which;
    }
}

// z2 = 0 (the element 1 has z2 = z3 = z4 = z5 = 0) is refused, in a batch as alone.
TEST(fp12_compressed, decompress_refuses_z2_zero) {
    rng g(63);
    const fp12_compressed vals[] = {fp12_compressed::of(fp12::random_cyclotomic(g)), fp12_compressed::of(fp12::one())};
    std::vector<fp12> out(2);
    EXPECT_FALSE(fp12_compressed::decompress(vals, out));
    EXPECT_FALSE(fp12_compressed::decompress(std::span(vals).subspan(1), std::span(out).first(1)));
    EXPECT_TRUE(fp12_compressed::decompress(std::span(vals).first(1), std::span(out).first(1)));
}

// The Frobenius constants are literals (fp6.hpp, fp12.hpp): each is the power of xi it stands for.
TEST(fp12, frobenius_constants_are_the_powers_of_xi) {
    EXPECT_EQ(xi, (fp2{fp::one(), fp::one()}));
    EXPECT_EQ(frobenius_v, xi.pow(div_small(fp::p_minus_1, 3)));
    EXPECT_EQ(frobenius_v2, frobenius_v.square());
    EXPECT_EQ(frobenius_w, xi.pow(div_small(fp::p_minus_1, 6)));
    EXPECT_EQ(frobenius_w.square(), frobenius_v);
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

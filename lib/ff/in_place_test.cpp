// The unreduced Fp forms of in_place.hpp (values in [0, 2p) and the factors up to 4p that feed
// the lazy products) against the canonical arithmetic of mont_field, and affine_add_chain<true>
// (the MSM's G1 buckets during their pass) against the textbook affine addition over several
// rounds of unreduced running points, on random coordinates, on field edge values lifted by p,
// and on real G1 points against Jacobian sums.
#include "ff/in_place.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/rng.hpp"
#include "ec/g1.hpp"
#include "ff/edge_values_test.hpp"

namespace c2lab::ff {
namespace {

using repr = fp::repr;

// x mod p for any x below 2^384 (a few subtractions at most for the values here).
fp reduced(repr x) {
    while (!fp::is_canonical(x)) sub_from(x, fp::modulus);
    return fp::from_mont(x);
}

// a + k p as a raw representative (k p + a < 2^384).
fp lifted(const fp& a, unsigned k) {
    repr x = a.mont;
    for (unsigned i = 0; i < k; ++i) add_to(x, fp::modulus);
    return fp::from_mont(x);
}

bool below(const fp& a, const repr& bound) { return less_than(a.mont, bound); }

repr multiple_of_p(unsigned k) { return lifted(fp::zero(), k).mont; }

TEST(fp_unreduced, two_p_is_twice_the_modulus_and_leaves_room) {
    EXPECT_EQ(fp_two_p, multiple_of_p(2));
    // The bounds affine_add_chain<true> relies on: 9 p^2 < R p, i.e. 9p < 2^384.
    const repr nine_p = multiple_of_p(9);
    EXPECT_TRUE(less_than(multiple_of_p(8), nine_p));  // 9p did not wrap around
    repr t = nine_p;
    EXPECT_EQ(add_to(t, fp::modulus), 1u);  // 10p does: R / p lies between 9 and 10
    EXPECT_TRUE(less_than(multiple_of_p(4), repr{0, 0, 0, 0, 0, uint64_t{1} << 63}));
}

TEST(fp_unreduced, settle_and_congruence) {
    const auto e = test_values::edge_values<fp>();
    for (size_t i = 0; i < e.size(); ++i) {
        for (unsigned k : {0u, 1u}) {
            fp a = lifted(e[i], k);
            EXPECT_TRUE(congruent_below_2p(a, e[i])) << i << " + " << k << "p";
            settle(a);
            EXPECT_EQ(a.mont, e[i].mont) << "settle " << i << " + " << k << "p";
            for (size_t j = 0; j < e.size(); ++j)
                if (j != i) {
                    EXPECT_FALSE(congruent_below_2p(lifted(e[i], k), e[j])) << i << " + " << k << "p vs " << j;
                }
        }
    }
    // Equal low limbs, different values (the fast test passes, the full one must not).
    repr x = fp::p_minus_1, y = fp::p_minus_1;
    y[3] ^= 1;
    EXPECT_FALSE(congruent_below_2p(fp::from_mont(x), fp::from_mont(y)));
    EXPECT_FALSE(congruent_below_2p(lifted(fp::from_mont(x), 1), fp::from_mont(y)));
}

TEST(fp_unreduced, sums_and_products_stay_in_their_bounds) {
    rng g(401);
    std::vector<fp> v = test_values::edge_values<fp>();
    for (int i = 0; i < 40; ++i) v.push_back(fp::random(g));
    const repr three_p = multiple_of_p(3), four_p = multiple_of_p(4);
    for (size_t i = 0; i < v.size(); ++i) {
        for (size_t j = 0; j < v.size(); j += 3) {
            for (unsigned ka : {0u, 1u}) {
                for (unsigned kb : {0u, 1u}) {
                    const fp a = lifted(v[i], ka), b = lifted(v[j], kb);  // both in [0, 2p)
                    const std::string at = std::to_string(i) + "+" + std::to_string(ka) + "p, " + std::to_string(j) + "+" +
                                           std::to_string(kb) + "p";
                    fp r;
                    sub_2p_to(r, a, b);
                    EXPECT_TRUE(below(r, fp_two_p)) << "a - b mod 2p " << at;
                    EXPECT_EQ(reduced(r.mont), v[i] - v[j]) << "a - b mod 2p " << at;
                    sub_lazy_2p_to(r, a, b);
                    EXPECT_TRUE(below(r, four_p)) << "a + 2p - b " << at;
                    EXPECT_EQ(reduced(r.mont), v[i] - v[j]) << "a + 2p - b " << at;
                    // The chain's widest factors: 4p by 2p and 3p by 3p.
                    const fp wide_a = lifted(v[i], 2 + ka), wide_b = lifted(v[j], kb);
                    ASSERT_TRUE(below(wide_a, four_p));
                    mul_lazy_to(r, wide_a, wide_b);
                    EXPECT_TRUE(below(r, fp_two_p)) << "4p x 2p " << at;
                    EXPECT_EQ(reduced(r.mont), v[i] * v[j]) << "4p x 2p " << at;
                    const fp third_a = lifted(v[i], 1 + ka), third_b = lifted(v[j], 1 + kb);
                    ASSERT_TRUE(below(third_a, three_p) && below(third_b, three_p));
                    mul_lazy_to(r, third_a, third_b);
                    EXPECT_TRUE(below(r, fp_two_p)) << "3p x 3p " << at;
                    EXPECT_EQ(reduced(r.mont), v[i] * v[j]) << "3p x 3p " << at;
                    mul_to(r, third_a, third_b);
                    EXPECT_EQ(r, v[i] * v[j]) << "canonical product of 3p factors " << at;
                }
            }
        }
        for (unsigned k : {0u, 1u}) {
            fp r;
            sqr_lazy_to(r, lifted(v[i], k));
            EXPECT_TRUE(below(r, fp_two_p)) << "square " << i << " + " << k << "p";
            EXPECT_EQ(reduced(r.mont), v[i].square()) << "square " << i << " + " << k << "p";
        }
    }
    // The largest factors themselves: 4p - 1 by 2p - 1, 3p - 1 by 3p - 1, (2p - 1)^2.
    const fp m1 = -fp::one();
    fp r;
    mul_lazy_to(r, lifted(fp::from_mont(fp::p_minus_1), 3), lifted(fp::from_mont(fp::p_minus_1), 1));
    EXPECT_TRUE(below(r, fp_two_p));
    EXPECT_EQ(reduced(r.mont), fp::from_mont(fp::p_minus_1) * fp::from_mont(fp::p_minus_1));
    mul_lazy_to(r, lifted(m1, 2), lifted(m1, 2));
    EXPECT_TRUE(below(r, fp_two_p));
    EXPECT_EQ(reduced(r.mont), fp::one());
    sqr_lazy_to(r, lifted(fp::from_mont(fp::p_minus_1), 1));
    EXPECT_TRUE(below(r, fp_two_p));
    EXPECT_EQ(reduced(r.mont), fp::from_mont(fp::p_minus_1).square());
}

// (x1, y1) += (x2, +-y2), textbook: one inversion each, canonical.
void reference_add(fp& x1, fp& y1, const fp& x2, const fp& y2, bool neg) {
    const fp y = neg ? -y2 : y2;
    const fp lambda = (y - y1) * (x2 - x1).inverse();
    const fp x3 = lambda.square() - x1 - x2;
    y1 = lambda * (x1 - x3) - y1;
    x1 = x3;
}

bool run_lazy_chain(std::vector<fp>& x1, std::vector<fp>& y1, const std::vector<fp>& x2, const std::vector<fp>& y2,
                    const std::vector<uint8_t>& neg, add_chain_scratch<fp>& scratch) {
    return affine_add_chain<true>(
        x1.size(), scratch, [&](size_t i) -> fp& { return x1[i]; }, [&](size_t i) -> fp& { return y1[i]; },
        [&](size_t i) -> const fp& { return x2[i]; }, [&](size_t i) -> const fp& { return y2[i]; },
        [&](size_t i) { return neg[i] != 0; });
}

// Rounds of additions into the same running coordinates (as buckets take them), each round
// on the unreduced results of the last, against the textbook on canonical values.
TEST(affine_add_chain_lazy, random_coordinates_over_rounds) {
    rng g(402);
    add_chain_scratch<fp> scratch;
    for (size_t n : {1u, 2u, 3u, 4u, 5u, 8u, 17u, 64u, 257u}) {
        std::vector<fp> x1(n), y1(n), rx(n), ry(n);
        for (size_t i = 0; i < n; ++i) {
            rx[i] = fp::random(g), ry[i] = fp::random(g);
            x1[i] = lifted(rx[i], g() & 1), y1[i] = lifted(ry[i], g() & 1);  // unreduced from the start
        }
        for (int round = 0; round < 6; ++round) {
            std::vector<fp> x2(n), y2(n);
            std::vector<uint8_t> neg(n);
            for (size_t i = 0; i < n; ++i) {
                do x2[i] = fp::random(g);
                while (x2[i] == rx[i]);
                y2[i] = fp::random(g);
                neg[i] = static_cast<uint8_t>(g() & 1);
                reference_add(rx[i], ry[i], x2[i], y2[i], neg[i] != 0);
            }
            ASSERT_TRUE(run_lazy_chain(x1, y1, x2, y2, neg, scratch));
            for (size_t i = 0; i < n; ++i) {
                const std::string at = "n " + std::to_string(n) + ", round " + std::to_string(round) + ", " + std::to_string(i);
                ASSERT_TRUE(below(x1[i], fp_two_p) && below(y1[i], fp_two_p)) << at;
                ASSERT_TRUE(congruent_below_2p(x1[i], rx[i])) << "x " << at;
                ASSERT_TRUE(congruent_below_2p(y1[i], ry[i])) << "y " << at;
            }
        }
    }
}

TEST(affine_add_chain_lazy, edge_coordinates_lifted_by_p) {
    const auto e = test_values::edge_values<fp>();
    std::vector<fp> x1, y1, x2, y2, rx, ry;
    std::vector<uint8_t> neg;
    for (size_t i = 0; i < e.size(); ++i)
        for (size_t j = 0; j < e.size(); ++j) {
            if (i == j) continue;
            for (unsigned k = 0; k < 4; ++k) {  // x1, y1 each as itself or lifted by p
                x1.push_back(lifted(e[i], k & 1));
                y1.push_back(lifted(e[(i + j) % e.size()], k >> 1));
                rx.push_back(e[i]);
                ry.push_back(e[(i + j) % e.size()]);
                x2.push_back(e[j]);
                y2.push_back(e[(2 * i + j + k) % e.size()]);
                neg.push_back(static_cast<uint8_t>((i + j + k) & 1));
            }
        }
    add_chain_scratch<fp> scratch;
    ASSERT_TRUE(run_lazy_chain(x1, y1, x2, y2, neg, scratch));
    for (size_t i = 0; i < x1.size(); ++i) {
        fp ex = rx[i], ey = ry[i];
        reference_add(ex, ey, x2[i], y2[i], neg[i] != 0);
        ASSERT_TRUE(below(x1[i], fp_two_p) && below(y1[i], fp_two_p)) << i;
        ASSERT_TRUE(congruent_below_2p(x1[i], ex)) << "x " << i;
        ASSERT_TRUE(congruent_below_2p(y1[i], ey)) << "y " << i;
    }
}

TEST(affine_add_chain_lazy, refuses_congruent_x_before_writing) {
    // x1 = x2 + p: congruent, so the batch has a zero denominator and must write nothing.
    rng g(403);
    std::vector<fp> x2 = {fp::random(g), fp::random(g)}, y2 = {fp::random(g), fp::random(g)};
    std::vector<fp> x1 = {fp::random(g), lifted(x2[1], 1)}, y1 = {fp::random(g), fp::random(g)};
    const auto before_x = x1, before_y = y1;
    std::vector<uint8_t> neg = {0, 1};
    add_chain_scratch<fp> scratch;
    EXPECT_FALSE(run_lazy_chain(x1, y1, x2, y2, neg, scratch));
    EXPECT_EQ(x1, before_x);
    EXPECT_EQ(y1, before_y);
}

// Real G1 points summed into running points as the MSM's buckets take them, rounds apart.
TEST(affine_add_chain_lazy, g1_points_against_jacobian_sums) {
    using A = ec::g1_affine;
    using J = ec::g1_jacobian;
    rng g(404);
    const size_t n = 33;
    std::vector<J> sums(n);
    std::vector<fp> x1(n), y1(n);
    J acc = J::generator().mul(g() | 1);
    const J step = J::generator().mul(g() | 1);
    for (size_t i = 0; i < n; ++i) {
        sums[i] = acc;
        const A a = acc.to_affine();
        x1[i] = a.x, y1[i] = a.y;
        acc = acc + step;
    }
    add_chain_scratch<fp> scratch;
    for (int round = 0; round < 5; ++round) {
        std::vector<fp> x2(n), y2(n);
        std::vector<uint8_t> neg(n);
        for (size_t i = 0; i < n; ++i) {
            const A q = J::generator().mul(g() | 1).to_affine();
            neg[i] = static_cast<uint8_t>(g() & 1);
            x2[i] = q.x, y2[i] = q.y;
            sums[i] = sums[i] + (neg[i] ? -q : q).to_jacobian();
        }
        ASSERT_TRUE(run_lazy_chain(x1, y1, x2, y2, neg, scratch));
        for (size_t i = 0; i < n; ++i) {
            const A expect = sums[i].to_affine();
            fp x = x1[i], y = y1[i];
            settle(x), settle(y);
            ASSERT_EQ(x, expect.x) << "round " << round << ", point " << i;
            ASSERT_EQ(y, expect.y) << "round " << round << ", point " << i;
        }
    }
}

}  // namespace
}  // namespace c2lab::ff

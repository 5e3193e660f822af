// msm_split (the msm_split flag) against the plain MSMs and the naive sum, for G1 and G2:
// scalars mixing 0, 1, r - 1 and random values; repeated points, P and -P among the
// 1-points (the tree's equal-x pairs), identities; both density semantics; sum_affine
// across the tree floor and the chunk size.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "msm/batch_affine.hpp"
#include "msm/split.hpp"

namespace c2lab::msm {
namespace {

using ff::fr;

template <class C>
class split_suite : public ::testing::Test {};
using curve_types = ::testing::Types<ec::g1_curve, ec::g2_curve>;
TYPED_TEST_SUITE(split_suite, curve_types);

template <class C>
std::vector<ec::affine<C>> walk_points(size_t n, rng& g) {
    std::vector<ec::jacobian<C>> steps;
    for (int i = 0; i < 4; ++i) steps.push_back(ec::jacobian<C>::generator() * fr::random(g));
    std::vector<ec::jacobian<C>> jac(n);
    ec::jacobian<C> cur = ec::jacobian<C>::generator() * fr::random(g);
    for (auto& p : jac) p = cur = cur + steps[g.below(steps.size())];
    return batch_to_affine<C>(jac);
}

// Mostly 0 and 1 (the shape of a SHA-256 circuit's assignment), some r - 1 and random.
std::vector<fr> circuit_like_scalars(size_t n, rng& g) {
    std::vector<fr> s(n);
    for (auto& x : s) {
        const uint64_t k = g.below(10);
        x = k < 4 ? fr::zero() : k < 8 ? fr::one() : k == 8 ? fr::zero() - fr::one() : fr::random(g);
    }
    return s;
}

// Points where the tree meets equal x: repeats and negations among the 1-points.
template <class C>
void plant_equal_x(std::vector<ec::affine<C>>& pts, std::vector<fr>& ks) {
    for (size_t i = 0; i + 8 < pts.size(); i += 16) {
        pts[i + 1] = pts[i];      // P + P
        pts[i + 3] = -pts[i + 2];  // P + (-P)
        pts[i + 5] = ec::affine<C>::identity();
        for (size_t k = i; k < i + 6; ++k) ks[k] = fr::one();
    }
}

TYPED_TEST(split_suite, equals_the_naive_sum_and_pippenger) {
    using C = TypeParam;
    rng g(7);
    for (size_t n : {0, 1, 2, 5, 63, 64, 65, 200, 1000}) {
        auto pts = walk_points<C>(n, g);
        auto ks = circuit_like_scalars(n, g);
        plant_equal_x<C>(pts, ks);
        split_counts counts;
        const auto got = msm_split<C>(pts, ks, {}, &counts);
        EXPECT_EQ(got, msm_naive<C>(pts, ks)) << "n " << n;
        EXPECT_EQ(got, msm<C>(pts, ks)) << "n " << n;
        EXPECT_EQ(counts.zeros + counts.ones + counts.rest, n);
        if (n >= 200) {
            EXPECT_GT(counts.ones, n / 4);
            EXPECT_GT(counts.zeros, n / 8);
            EXPECT_GT(counts.rest, 0u);
        }
    }
}

TYPED_TEST(split_suite, filtered_bases_equal_the_plain_path) {
    using C = TypeParam;
    rng g(8);
    const size_t n = 700;
    auto ks = circuit_like_scalars(n, g);
    std::vector<bool> bits(n);
    for (size_t i = 0; i < n; ++i) bits[i] = g.below(3) != 0;
    const auto density = density_bitmap::from_bools(bits);
    auto bases = walk_points<C>(density.count(), g);
    bases[1] = bases[0];
    for (unsigned threads : {1u, 2u}) {
        msm_config cfg;
        cfg.threads = threads;
        split_counts counts;
        const auto got = msm_filtered_bases_split<C>(bases, density, ks, cfg, &counts);
        EXPECT_EQ(got, msm_filtered_bases<C>(bases, density, ks, cfg)) << "threads " << threads;
        EXPECT_EQ(counts.zeros + counts.ones + counts.rest, density.count());
    }
}

TYPED_TEST(split_suite, all_ones_all_zeros_and_none) {
    using C = TypeParam;
    rng g(9);
    auto pts = walk_points<C>(300, g);
    const std::vector<fr> ones(pts.size(), fr::one()), zeros(pts.size(), fr::zero());
    EXPECT_EQ(msm_split<C>(pts, ones), msm_naive<C>(pts, ones));
    EXPECT_TRUE(msm_split<C>(pts, zeros).is_identity());
}

TEST(split, sum_affine_crosses_the_chunk_size) {
    rng g(10);
    // More than one parallel chunk (2^14 points) with an odd count at every level.
    const size_t n = (size_t{1} << 14) + 4099;
    auto pts = walk_points<ec::g1_curve>(n, g);
    pts[17] = pts[16];
    pts[4000] = -pts[3999];
    ec::g1_jacobian want = ec::g1_jacobian::identity();
    for (const auto& p : pts) want += p;
    EXPECT_EQ(sum_affine<ec::g1_curve>(pts), want);
    msm_config one_thread;
    one_thread.threads = 1;
    const std::vector<fr> ones(n, fr::one());
    EXPECT_EQ(msm_split<ec::g1_curve>(pts, ones, one_thread), want);
}

// The tree pairs point i with point i + h at each level (h half the level): equal x there (the
// second half repeating the first, some negated) takes the level's copying path; the sum is
// still every point's.
TYPED_TEST(split_suite, sum_affine_with_equal_x_across_the_halves) {
    using C = TypeParam;
    rng g(11);
    for (size_t half : {100, 333, 1000}) {
        auto pts = walk_points<C>(half, g);
        for (size_t i = 0; i < half; ++i) pts.push_back(i % 3 == 0 ? -pts[i] : pts[i]);
        pts.push_back(pts[5]);  // an odd one out
        // and at the second level: sums i and i + half / 2 of the first level made equal
        auto deeper = walk_points<C>(2 * half, g);
        for (size_t i = 0; i < half / 2; ++i) {
            deeper[half / 2 + i] = deeper[i];
            deeper[half + half / 2 + i] = deeper[half + i];
        }
        for (const auto* v : {&pts, &deeper}) {
            ec::jacobian<C> want = ec::jacobian<C>::identity();
            for (const auto& p : *v) want += p;
            EXPECT_EQ(sum_affine<C>(*v), want) << "half " << half;
        }
    }
}

// The split's parallel chunks (msm_config::split_chunk) at sizes that cut the scalars, the
// bases and the rest bitmap's words at many places: the same group element on 1 and 2 threads.
TYPED_TEST(split_suite, chunks_of_the_split_equal_one_chunk) {
    using C = TypeParam;
    rng g(12);
    const size_t n = 1000;
    auto pts = walk_points<C>(n, g);
    auto ks = circuit_like_scalars(n, g);
    plant_equal_x<C>(pts, ks);
    std::vector<bool> bits(n);
    for (size_t i = 0; i < n; ++i) bits[i] = g.below(3) != 0;
    const auto density = density_bitmap::from_bools(bits);
    const std::vector<ec::affine<C>> bases(pts.begin(), pts.begin() + density.count());
    const auto want = msm_naive<C>(pts, ks);
    const auto want_filtered = msm_filtered_bases<C>(bases, density, ks);
    for (size_t chunk : {1, 64, 100, 128, 999, 1000, 4096})
        for (unsigned threads : {1u, 2u}) {
            msm_config cfg;
            cfg.threads = threads;
            cfg.split_chunk = chunk;
            split_counts a, b;
            EXPECT_EQ(msm_split<C>(pts, ks, cfg, &a), want) << "chunk " << chunk << ", threads " << threads;
            EXPECT_EQ(msm_filtered_bases_split<C>(bases, density, ks, cfg, &b), want_filtered)
                << "chunk " << chunk << ", threads " << threads;
            EXPECT_EQ(a.zeros + a.ones + a.rest, n);
            EXPECT_EQ(b.zeros + b.ones + b.rest, density.count());
        }
}

TEST(split, size_mismatches_are_bad_input) {
    rng g(11);
    auto pts = walk_points<ec::g1_curve>(4, g);
    const std::vector<fr> ks(3, fr::one());
    EXPECT_THROW(msm_split<ec::g1_curve>(pts, ks), error);
    EXPECT_THROW(msm_filtered_bases_split<ec::g1_curve>(pts, density_bitmap(3, true), ks), error);
}

}  // namespace
}  // namespace c2lab::msm

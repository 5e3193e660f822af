// msm layer: Pippenger (plain and density-filtered) against the naive sum of scalar
// multiplications for G1 and G2, every window policy, thread counts; fixed-base tables
// against jacobian::mul; batch to_affine; the msm_window flag parser.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "msm/batch_affine.hpp"
#include "msm/fixed_base.hpp"
#include "msm/pippenger.hpp"

namespace c2lab::msm {
namespace {

using ff::fr;

template <class C>
class msm_suite : public ::testing::Test {};
using curve_types = ::testing::Types<ec::g1_curve, ec::g2_curve>;
TYPED_TEST_SUITE(msm_suite, curve_types);

template <class C>
constexpr bool is_g2 = std::is_same_v<C, ec::g2_curve>;

// n distinct pseudo-random points, cheaply: a few random multiples of the generator, then a
// random walk adding one of them per point; converted to affine in one batch.
template <class C>
std::vector<ec::affine<C>> random_points(size_t n, rng& g) {
    std::vector<ec::jacobian<C>> steps;
    for (int i = 0; i < 8; ++i) steps.push_back(ec::jacobian<C>::generator() * fr::random(g));
    std::vector<ec::jacobian<C>> jac(n);
    ec::jacobian<C> cur = ec::jacobian<C>::generator() * fr::random(g);
    for (auto& p : jac) p = cur = cur + steps[g.below(steps.size())];
    return batch_to_affine<C>(jac);
}

std::vector<fr> random_scalars(size_t n, rng& g) {
    std::vector<fr> s(n);
    for (auto& x : s) x = fr::random(g);
    return s;
}

const fr r_minus_1 = fr::zero() - fr::one();

template <class C>
void expect_msm_matches_naive(std::span<const ec::affine<C>> pts, std::span<const fr> ks, const msm_config& cfg,
                              const std::string& what) {
    auto got = msm<C>(pts, ks, cfg);
    auto want = msm_naive<C>(pts, ks);
    EXPECT_TRUE(got.is_on_curve()) << what;
    EXPECT_EQ(got, want) << what << " window " << cfg.window.to_string() << " threads " << cfg.threads;
}

TYPED_TEST(msm_suite, random_sizes_against_naive) {
    using C = TypeParam;
    rng g(100);
    std::vector<size_t> sizes = {0, 1, 2, 3, 7, 31, 32, 33, 100};
    if (!is_g2<C>) sizes.push_back(1000);
    for (size_t n : sizes) {
        auto pts = random_points<C>(n, g);
        auto ks = random_scalars(n, g);
        expect_msm_matches_naive<C>(pts, ks, {}, "n=" + std::to_string(n));
    }
    EXPECT_TRUE(msm<C>({}, {}).is_identity());
}

TYPED_TEST(msm_suite, special_scalars) {
    using C = TypeParam;
    rng g(101);
    const size_t n = 33;
    auto pts = random_points<C>(n, g);
    for (fr k : {fr::zero(), fr::one(), r_minus_1}) {
        std::vector<fr> ks(n, k);
        expect_msm_matches_naive<C>(pts, ks, {}, "all scalars equal");
    }
    // All zero: the identity.
    std::vector<fr> zeros(n, fr::zero());
    EXPECT_TRUE(msm<C>(pts, zeros).is_identity());
    // A mix of 0, 1, r-1, 2 and random.
    auto ks = random_scalars(n, g);
    for (size_t i = 0; i < n; i += 4) ks[i] = fr::zero();
    for (size_t i = 1; i < n; i += 4) ks[i] = fr::one();
    for (size_t i = 2; i < n; i += 4) ks[i] = r_minus_1;
    ks[3] = fr::from_u64(2);
    expect_msm_matches_naive<C>(pts, ks, {}, "mixed special scalars");
    // sum (r-1) P_i = -sum P_i.
    std::vector<fr> minus(n, r_minus_1), ones(n, fr::one());
    EXPECT_EQ(msm<C>(pts, minus), -msm<C>(pts, ones));
}

TYPED_TEST(msm_suite, equal_points_negations_and_identities) {
    using C = TypeParam;
    for (bucket_add mode : {bucket_add::xyzz, bucket_add::batch_affine}) {
    SCOPED_TRACE(mode == bucket_add::xyzz ? "xyzz buckets" : "batched affine buckets");
    const msm_config cfg{window_policy::fixed(4), 0, mode};
    rng g(102);
    const size_t n = 40;
    auto base = random_points<C>(1, g)[0];
    // All points equal: every bucket addition hits P + P (the doubling branch).
    std::vector<ec::affine<C>> same(n, base);
    auto ks = random_scalars(n, g);
    expect_msm_matches_naive<C>(same, ks, cfg, "all-equal points");
    std::vector<fr> equal_ks(n, ks[0]);
    expect_msm_matches_naive<C>(same, equal_ks, cfg, "all-equal points and scalars");
    // Points and their negations with equal scalars cancel (P + (-P) in one bucket).
    auto pts = random_points<C>(n / 2, g);
    std::vector<ec::affine<C>> pm;
    std::vector<fr> pm_ks;
    for (size_t i = 0; i < pts.size(); ++i) {
        pm.push_back(pts[i]);
        pm.push_back(-pts[i]);
        pm_ks.push_back(ks[i]);
        pm_ks.push_back(ks[i]);
    }
    EXPECT_TRUE(msm<C>(pm, pm_ks, cfg).is_identity());
    // ... and with random scalars they do not.
    auto pm_rand = random_scalars(pm.size(), g);
    expect_msm_matches_naive<C>(pm, pm_rand, cfg, "points and negations");
    // A point with scalar k and its negation with scalar r - k: 2 k P.
    std::vector<ec::affine<C>> two = {pts[0], -pts[0]};
    std::vector<fr> two_ks = {ks[0], fr::zero() - ks[0]};
    EXPECT_EQ(msm<C>(two, two_ks, cfg), (pts[0].to_jacobian() * ks[0]).dbl());
    // Identity points among the inputs are skipped.
    auto with_id = random_points<C>(n, g);
    for (size_t i = 0; i < n; i += 5) with_id[i] = ec::affine<C>::identity();
    expect_msm_matches_naive<C>(with_id, ks, cfg, "identity points");
    }
}

// The batched affine buckets against the naive sum where batches fill, conflict and retry:
// small windows (many points per bucket, batches of 16) and the sizes of a real window.
TYPED_TEST(msm_suite, batched_affine_buckets_against_naive) {
    using C = TypeParam;
    rng g(108);
    const size_t n = is_g2<C> ? 300 : 1500;
    auto pts = random_points<C>(n, g);
    auto ks = random_scalars(n, g);
    for (unsigned c : {1u, 2u, 5u, 9u}) {
        expect_msm_matches_naive<C>(pts, ks, {window_policy::fixed(c), 1, bucket_add::batch_affine},
                                    "batch_affine c=" + std::to_string(c));
    }
    // automatic picks batches at this size with a 9-bit window (256 buckets, >= 1024 points)
    auto want = msm_naive<C>(pts, ks);
    EXPECT_EQ(msm<C>(pts, ks, {window_policy::fixed(9), 2, bucket_add::automatic}), want);
    // a few distinct points repeated many times: most batch slots conflict
    std::vector<ec::affine<C>> rep(n);
    for (size_t i = 0; i < n; ++i) rep[i] = pts[i % 3];
    expect_msm_matches_naive<C>(rep, ks, {window_policy::fixed(5), 1, bucket_add::batch_affine}, "repeated points");
}

TYPED_TEST(msm_suite, every_window_policy) {
    using C = TypeParam;
    rng g(103);
    const size_t n = 100;
    auto pts = random_points<C>(n, g);
    auto ks = random_scalars(n, g);
    ks[0] = r_minus_1;
    ks[1] = fr::zero();
    ks[2] = fr::one();
    std::vector<window_policy> policies = {window_policy::ln(), window_policy::table()};
    // Every fixed window size whose bucket reduction stays cheap (2^c additions per window).
    const unsigned top = is_g2<C> ? 12 : 16;
    for (unsigned c = 1; c <= top; ++c) policies.push_back(window_policy::fixed(c));
    for (const auto& pol : policies) expect_msm_matches_naive<C>(pts, ks, {pol, 0}, "policy");
    // Small and odd sizes with the extreme windows.
    for (size_t m : {size_t{1}, size_t{3}, size_t{33}})
        for (unsigned c : {1u, 2u, 5u, 8u})
            expect_msm_matches_naive<C>(std::span(pts).first(m), std::span(ks).first(m), {window_policy::fixed(c), 0},
                                        "n=" + std::to_string(m));
}

TYPED_TEST(msm_suite, threads_one_and_two_agree) {
    using C = TypeParam;
    rng g(104);
    const size_t n = is_g2<C> ? 300 : 2000;
    auto pts = random_points<C>(n, g);
    auto ks = random_scalars(n, g);
    for (auto pol : {window_policy::ln(), window_policy::fixed(4)}) {
        auto one = msm<C>(pts, ks, {pol, 1});
        auto two = msm<C>(pts, ks, {pol, 2});
        auto all = msm<C>(pts, ks, {pol, 0});
        EXPECT_EQ(one, two) << pol.to_string();
        EXPECT_EQ(one, all) << pol.to_string();
        // Equal as points and, after normalisation, byte for byte.
        EXPECT_EQ(one.to_affine(), two.to_affine());
    }
    // Check one of them against the reference (once; the naive sum is the slow part).
    if (!is_g2<C>) {
        std::span<const ec::affine<C>> p300(pts.data(), 300);
        std::span<const fr> k300(ks.data(), 300);
        EXPECT_EQ(msm<C>(p300, k300, {window_policy::fixed(4), 2}), msm_naive<C>(p300, k300));
    }
}

TYPED_TEST(msm_suite, density_filtered_against_naive) {
    using C = TypeParam;
    rng g(105);
    const size_t n = is_g2<C> ? 130 : 700;
    auto pts = random_points<C>(n, g);
    auto check = [&](const density_bitmap& d, const std::string& what) {
        std::vector<ec::affine<C>> subset;
        for (size_t i = 0; i < n; ++i)
            if (d.test(i)) subset.push_back(pts[i]);
        auto ks = random_scalars(subset.size(), g);
        auto want = msm_naive<C>(subset, ks);
        for (unsigned threads : {1u, 2u}) {
            auto got = msm_density<C>(pts, d, ks, {window_policy::ln(), threads});
            EXPECT_EQ(got, want) << what << " threads " << threads;
        }
        EXPECT_EQ(msm_density<C>(pts, d, ks, {window_policy::fixed(3), 0}), want) << what << " fixed:3";
    };
    check(density_bitmap(n, true), "all set");
    density_bitmap none(n, false);
    check(none, "none set");
    EXPECT_TRUE(msm_density<C>(pts, none, {}).is_identity());
    density_bitmap sparse(n);
    for (size_t i = 0; i < n; ++i) sparse.set(i, g.below(10) == 0);
    sparse.set(n - 1);
    check(sparse, "sparse (10%)");
    density_bitmap quarter(n);
    for (size_t i = 0; i < n; ++i) quarter.set(i, g.below(4) == 0);
    check(quarter, "25%");
    std::vector<bool> bools(n, false);
    bools[0] = bools[1] = bools[n / 2] = true;
    check(density_bitmap::from_bools(bools), "three bits from std::vector<bool>");
}

// bellperson's semantics: bases filtered at setup (one per set bit), scalars full length.
TYPED_TEST(msm_suite, filtered_bases_against_naive) {
    using C = TypeParam;
    rng g(107);
    const size_t n = is_g2<C> ? 150 : 900;
    auto ks = random_scalars(n, g);
    auto check = [&](const density_bitmap& d, const std::string& what) {
        auto bases = random_points<C>(d.count(), g);
        std::vector<fr> selected;
        for (size_t i = 0; i < n; ++i)
            if (d.test(i)) selected.push_back(ks[i]);
        auto want = msm_naive<C>(bases, selected);
        for (unsigned threads : {1u, 2u}) {
            EXPECT_EQ(msm_filtered_bases<C>(bases, d, ks, {window_policy::ln(), threads}), want)
                << what << " threads " << threads;
        }
        EXPECT_EQ(msm_filtered_bases<C>(bases, d, ks, {window_policy::fixed(4), 0}), want) << what << " fixed:4";
    };
    check(density_bitmap(n, true), "all set");
    density_bitmap quarter(n);
    for (size_t i = 0; i < n; ++i) quarter.set(i, g.below(4) == 0);
    check(quarter, "25%");
    density_bitmap one(n);
    one.set(n / 3);
    check(one, "one bit");
    EXPECT_TRUE(msm_filtered_bases<C>({}, density_bitmap(n, false), ks).is_identity());
    auto two = random_points<C>(2, g);
    EXPECT_THROW(msm_filtered_bases<C>(two, one, ks), error);                          // 1 set bit, 2 bases
    EXPECT_THROW(msm_filtered_bases<C>(two, density_bitmap(n - 1, true), ks), error);  // bits != scalars
}

TYPED_TEST(msm_suite, size_mismatches_are_refused) {
    using C = TypeParam;
    rng g(106);
    auto pts = random_points<C>(5, g);
    auto ks = random_scalars(4, g);
    try {
        msm<C>(pts, ks);
        FAIL() << "expected c2lab::error";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        EXPECT_NE(std::string(e.what()).find("5 points but 4 scalars"), std::string::npos) << e.what();
    }
    density_bitmap d(5, true);
    EXPECT_THROW(msm_density<C>(pts, d, ks), error);               // 5 set bits, 4 scalars
    EXPECT_THROW(msm_density<C>(pts, density_bitmap(4, true), ks), error);  // 4 bits, 5 points
}

TYPED_TEST(msm_suite, fixed_base_against_scalar_multiplication) {
    using C = TypeParam;
    rng g(107);
    auto base = ec::jacobian<C>::generator() * fr::random(g);
    auto ks = random_scalars(is_g2<C> ? 20 : 60, g);
    ks.push_back(fr::zero());
    ks.push_back(fr::one());
    ks.push_back(r_minus_1);
    for (unsigned w : {1u, 2u, 4u, 7u, 8u}) {
        fixed_base_table<C> table(base, w);
        EXPECT_EQ(table.windows(), 255 / w + 1);
        for (const auto& k : ks) ASSERT_EQ(table.mul(k), base * k) << "w=" << w;
        auto batch = table.mul_batch(ks, 2);
        ASSERT_EQ(batch.size(), ks.size());
        for (size_t i = 0; i < ks.size(); ++i) ASSERT_EQ(batch[i], (base * ks[i]).to_affine()) << "w=" << w;
    }
    // More than one parallel block (1024) in a batch, checked on a sample.
    if (!is_g2<C>) {
        auto many = random_scalars(2100, g);
        fixed_base_table<C> table(base, fixed_base_table<C>::best_window_bits(many.size()), 2);
        auto out = table.mul_batch(many);
        for (size_t i = 0; i < many.size(); i += 97) ASSERT_EQ(out[i], (base * many[i]).to_affine()) << i;
        ASSERT_EQ(out.back(), (base * many.back()).to_affine());
    }
    // The identity as base.
    fixed_base_table<C> zero(ec::jacobian<C>::identity(), 4);
    EXPECT_TRUE(zero.mul(ks[0]).is_identity());
    EXPECT_THROW(fixed_base_table<C>(base, 0), error);
    EXPECT_THROW(fixed_base_table<C>(base, 17), error);
}

TYPED_TEST(msm_suite, batch_to_affine_with_identities) {
    using C = TypeParam;
    using J = ec::jacobian<C>;
    rng g(108);
    const size_t n = is_g2<C> ? 50 : 9000;  // G1: more than two blocks of 4096
    std::vector<J> jac(n);
    auto step = J::generator() * fr::random(g);
    J cur = step;
    for (size_t i = 0; i < n; ++i) jac[i] = cur = cur.dbl() + step;
    jac[0] = J::identity();
    jac[n / 2] = J::identity();
    jac[n - 1] = J::identity();
    std::vector<ec::affine<C>> out(n);
    batch_to_affine<C>(jac, out);
    for (size_t i = 0; i < n; i += (is_g2<C> ? 1 : 7)) ASSERT_EQ(out[i], jac[i].to_affine()) << i;
    EXPECT_TRUE(out[0].is_identity());
    EXPECT_TRUE(out[n / 2].is_identity());
    EXPECT_TRUE(out[n - 1].is_identity());
    EXPECT_EQ(out[1], jac[1].to_affine());
    // All identities, and a single point.
    std::vector<J> ids(3, J::identity());
    for (const auto& a : batch_to_affine<C>(ids)) EXPECT_TRUE(a.is_identity());
    std::vector<J> one = {step};
    EXPECT_EQ(batch_to_affine<C>(one)[0], step.to_affine());
    EXPECT_TRUE(batch_to_affine<C>(std::span<const J>()).empty());
    std::vector<ec::affine<C>> short_out(2);
    EXPECT_THROW(batch_to_affine<C>(ids, short_out), error);
}

TEST(msm_window, ln_rule) {
    EXPECT_EQ(ln_window_bits(0), 3u);
    EXPECT_EQ(ln_window_bits(1), 3u);
    EXPECT_EQ(ln_window_bits(31), 3u);
    EXPECT_EQ(ln_window_bits(32), 4u);  // ln 32 = 3.47
    EXPECT_EQ(ln_window_bits(1000), 7u);  // 6.91
    EXPECT_EQ(ln_window_bits(1u << 16), 12u);  // 11.09
    EXPECT_EQ(ln_window_bits(1u << 20), 14u);  // 13.86
    EXPECT_EQ(ln_window_bits(size_t{1} << 27), 19u);  // 18.71
    EXPECT_EQ(window_policy::ln().bits_for(1000), 7u);
    EXPECT_EQ(window_policy::fixed(12).bits_for(5), 12u);
    EXPECT_EQ(table_window_bits(size_t{1} << 16), 13u);        // a measured row
    EXPECT_EQ(table_window_bits((size_t{1} << 15) + 1), 13u);  // ceil(log2 n) = 16
    EXPECT_EQ(table_window_bits(size_t{1} << 17), ln_window_bits(size_t{1} << 17));  // not measured
    EXPECT_EQ(table_window_bits(5), 3u);
    for (size_t n : {size_t{1}, size_t{100}, size_t{1} << 16, size_t{1} << 30}) {
        unsigned c = window_policy::table().bits_for(n);
        EXPECT_GE(c, min_window_bits);
        EXPECT_LE(c, max_window_bits);
    }
}

TEST(msm_window, parse_and_print) {
    EXPECT_EQ(window_policy::parse("ln"), window_policy::ln());
    EXPECT_EQ(window_policy::parse("table"), window_policy::table());
    EXPECT_EQ(window_policy::parse("fixed:12"), window_policy::fixed(12));
    EXPECT_EQ(window_policy::parse("fixed:1").fixed_bits, 1u);
    EXPECT_EQ(window_policy::parse("fixed:20").fixed_bits, 20u);
    for (const char* s : {"ln", "table", "fixed:1", "fixed:7", "fixed:20"})
        EXPECT_EQ(window_policy::parse(s).to_string(), s);
}

TEST(msm_window, bad_strings_are_refused_by_name) {
    for (const char* bad : {"", "LN", "log", "fixed", "fixed:", "fixed:0", "fixed:21", "fixed:-3", "fixed:abc",
                            "fixed:12x", "fixed: 12", "fixed:99999999999999999999", "table ", "per_msm"}) {
        try {
            window_policy::parse(bad);
            ADD_FAILURE() << "accepted \"" << bad << "\"";
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input) << bad;
            EXPECT_NE(std::string(e.what()).find("\"" + std::string(bad) + "\""), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(window_policy::fixed(0), error);
    EXPECT_THROW(window_policy::fixed(21), error);
}

}  // namespace
}  // namespace c2lab::msm

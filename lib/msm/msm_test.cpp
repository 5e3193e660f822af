// msm layer: Pippenger (plain and density-filtered) against the naive sum of scalar
// multiplications for G1 and G2, every window policy, thread counts; the endomorphism
// split (glv.hpp) against scalar multiplication and integer arithmetic, and the split path
// against the naive sum and the 255-bit path; fixed-base tables against jacobian::mul;
// batch to_affine; the msm_window flag parser.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "ff/ifma.hpp"
#include "msm/batch_affine.hpp"
#include "msm/fixed_base.hpp"
#include "msm/glv.hpp"
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
    for (bool glv : {false, true})
    for (bucket_add mode : {bucket_add::xyzz, bucket_add::batch_affine}) {
    SCOPED_TRACE(mode == bucket_add::xyzz ? "xyzz buckets" : "batched affine buckets");
    SCOPED_TRACE(glv ? "endomorphism split" : "255-bit scalars");
    msm_config cfg{window_policy::fixed(4), 0, mode};
    cfg.glv = glv;
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
    // A bucket that holds a sum meets that sum again, negated (cancels) or not (doubles): the
    // three points of a triple share a scalar, so P + Q waits for the next batch and then finds
    // P + Q in the bucket, whose coordinates may lie in [p, 2p) where the batches leave G1's
    // buckets unreduced (the scalar path).
    std::vector<ec::affine<C>> cancel, twice;
    std::vector<fr> triple_ks;
    for (size_t i = 0; i + 1 < pts.size(); i += 2) {
        const auto s = (pts[i].to_jacobian() + pts[i + 1].to_jacobian()).to_affine();
        cancel.insert(cancel.end(), {pts[i], pts[i + 1], -s});
        twice.insert(twice.end(), {pts[i], pts[i + 1], s});
        triple_ks.insert(triple_ks.end(), {ks[i], ks[i], ks[i]});
    }
    EXPECT_TRUE(msm<C>(cancel, triple_ks, cfg).is_identity());
    expect_msm_matches_naive<C>(twice, triple_ks, cfg, "sums met again");
    // Identity points among the inputs are skipped.
    auto with_id = random_points<C>(n, g);
    for (size_t i = 0; i < n; i += 5) with_id[i] = ec::affine<C>::identity();
    expect_msm_matches_naive<C>(with_id, ks, cfg, "identity points");
    }
}

// Three of pts and their negations, n of them drawn at random, with two of ks: the buckets those
// scalars reach take a point of a different x in each batch, the rest waits and overflows, and the
// overflow sums meet buckets equal to them, opposite to them (P - P) or empty when they are folded in.
template <class C>
std::pair<std::vector<ec::affine<C>>, std::vector<fr>> three_points_two_scalars(const std::vector<ec::affine<C>>& pts,
                                                                               const std::vector<fr>& ks, rng& g) {
    const size_t n = pts.size();
    std::vector<ec::affine<C>> rep(n);
    std::vector<fr> two_ks(n);
    for (size_t i = 0; i < n; ++i) {
        rep[i] = g.below(2) ? pts[i % 3] : -pts[i % 3];
        two_ks[i] = ks[g.below(2)];
    }
    return {std::move(rep), std::move(two_ks)};
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
        msm_config cfg{window_policy::fixed(c), 1, bucket_add::batch_affine};
        expect_msm_matches_naive<C>(pts, ks, cfg, "batch_affine c=" + std::to_string(c));
        cfg.glv = false;
        expect_msm_matches_naive<C>(pts, ks, cfg, "batch_affine, 255-bit scalars, c=" + std::to_string(c));
        cfg.batched_reduction = false;
        expect_msm_matches_naive<C>(pts, ks, cfg, "batch_affine, 255-bit, xyzz reduction, c=" + std::to_string(c));
    }
    // automatic picks batches at this size with a 9-bit window (256 buckets, >= 1024 points)
    auto want = msm_naive<C>(pts, ks);
    EXPECT_EQ(msm<C>(pts, ks, {window_policy::fixed(9), 2, bucket_add::automatic}), want);
    // a few distinct points repeated many times: most batch slots conflict
    std::vector<ec::affine<C>> rep(n);
    for (size_t i = 0; i < n; ++i) rep[i] = pts[i % 3];
    expect_msm_matches_naive<C>(rep, ks, {window_policy::fixed(5), 1, bucket_add::batch_affine}, "repeated points");
    const auto [mixed, two_ks] = three_points_two_scalars<C>(pts, ks, g);
    for (bool glv : {false, true})
        for (bool batched_reduction : {false, true}) {
            msm_config cfg{window_policy::fixed(6), 1, bucket_add::batch_affine};
            cfg.batch_size = 16;
            cfg.glv = glv;
            cfg.batched_reduction = batched_reduction;
            expect_msm_matches_naive<C>(mixed, two_ks, cfg, "three points, negations, two scalars");
        }
}

// Each kernel of the batched affine additions (msm_config.batch) that runs here, against the
// naive sum: filling batches, conflicts and retries, the 255-bit path, and the batch of 16 whose
// overflow sums meet equal and opposite buckets. (G2 on avx2: the scalar chain with its inversion
// in AVX2 batches.)
TYPED_TEST(msm_suite, every_batch_kernel_against_naive) {
    using C = TypeParam;
    rng g(112);
    const size_t n = is_g2<C> ? 300 : 1500;
    auto pts = random_points<C>(n, g);
    auto ks = random_scalars(n, g);
    std::vector<msm_batch> kernels = {msm_batch::automatic, msm_batch::scalar};
    if (ff::avx2_available()) kernels.push_back(msm_batch::avx2);
    else std::cout << "[ msm ] AVX2 kernels off here: msm_batch=avx2 not run\n";
    if (ff::ifma_available()) kernels.push_back(msm_batch::ifma);
    else std::cout << "[ msm ] AVX-512 IFMA not available here: msm_batch=ifma not run\n";
    const auto [mixed, two_ks] = three_points_two_scalars<C>(pts, ks, g);
    for (msm_batch kernel : kernels) {
        const std::string name = "msm_batch " + std::to_string(static_cast<int>(kernel));
        for (unsigned c : {2u, 9u})
            for (bool glv : {false, true}) {
                msm_config cfg{window_policy::fixed(c), 1, bucket_add::batch_affine};
                cfg.batch = kernel;
                cfg.glv = glv;
                expect_msm_matches_naive<C>(pts, ks, cfg, name + " c=" + std::to_string(c) + (glv ? " glv" : ""));
            }
        msm_config cfg{window_policy::fixed(6), 1, bucket_add::batch_affine};
        cfg.batch = kernel;
        cfg.batch_size = 16;
        expect_msm_matches_naive<C>(mixed, two_ks, cfg, name + ": three points, negations, two scalars");
    }
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
    for (const auto& pol : policies) {
        msm_config cfg{pol, 0};
        expect_msm_matches_naive<C>(pts, ks, cfg, "policy");
        cfg.glv = false;
        expect_msm_matches_naive<C>(pts, ks, cfg, "policy, 255-bit scalars");
    }
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

TEST(density_bitmap, next_set_finds_every_set_bit_in_order) {
    rng g(5);
    for (size_t n : {0, 1, 63, 64, 65, 200, 1000}) {
        for (unsigned every : {1u, 3u, 100u, 0u}) {  // 0: none set
            density_bitmap d(n);
            for (size_t i = 0; i < n; ++i) d.set(i, every != 0 && g.below(every) == 0);
            std::vector<size_t> want, got;
            for (size_t i = 0; i < n; ++i)
                if (d.test(i)) want.push_back(i);
            for (size_t i = d.next_set(0); i < n; i = d.next_set(i + 1)) got.push_back(i);
            EXPECT_EQ(got, want) << "n " << n << " every " << every;
            EXPECT_EQ(d.next_set(n), n);
            EXPECT_EQ(d.next_set(n + 5), n);
        }
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
            // 255 bits in 51 windows of 5 (no endomorphism): the last is cut over two threads
            msm_config odd{window_policy::fixed(5), threads};
            odd.glv = false;
            EXPECT_EQ(msm_density<C>(pts, d, ks, odd), want) << what << " fixed:5 threads " << threads;
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
    for (const auto& p : zero.mul_batch(ks)) EXPECT_TRUE(p.is_identity());
    // The same scalar many times in one block, and k next to -k: equal accumulators side by side.
    std::vector<fr> twins;
    for (int i = 0; i < 8; ++i) twins.push_back(ks[1]), twins.push_back(-ks[1]), twins.push_back(fr::zero());
    fixed_base_table<C> t5(base, 5);
    auto tw = t5.mul_batch(twins, 1);
    for (size_t i = 0; i < twins.size(); ++i) ASSERT_EQ(tw[i], (base * twins[i]).to_affine()) << i;
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

// ---- the endomorphism split ----------------------------------------------------------

fr fr_of(const ff::limbs<2>& k) { return fr::from_canonical(ff::limbs<4>{k[0], k[1], 0, 0}); }

TEST(msm_glv, multiplier_is_x_squared) {
    const auto m = glv_multiplier();
    // x^2 = 0xd201000000010000^2 (the BLS parameter, zkcrypto/bls12_381 src/lib.rs BLS_X)
    EXPECT_EQ(m[1], 0xac45a4010001a402u);
    EXPECT_EQ(m[0], 0x0000000100000000u);
    // m is a cube root of unity's negation mod r: m^2 - m + 1 = 0 in Fr.
    fr mm = fr_of(m);
    EXPECT_TRUE((mm * mm - mm + fr::one()).is_zero());
}

TYPED_TEST(msm_suite, glv_endomorphism_is_multiplication_by_x_squared) {
    using C = TypeParam;
    rng g(120);
    const auto m = glv_multiplier();
    EXPECT_EQ(glv_endo(ec::affine<C>::generator()).to_jacobian(), ec::jacobian<C>::generator().mul(m));
    for (const auto& p : random_points<C>(is_g2<C> ? 5 : 20, g)) {
        auto e = glv_endo(p);
        EXPECT_TRUE(e.is_on_curve());
        EXPECT_EQ(e.to_jacobian(), p.to_jacobian().mul(m));
        // applying it three times is multiplication by m^3 = -1 mod r
        EXPECT_EQ(glv_endo(glv_endo(e)), -p);
    }
    EXPECT_TRUE(glv_endo(ec::affine<C>::identity()).is_identity());
}

TEST(msm_glv, g1_beta_phi_is_lambda) {
    // phi(X, Y) = (beta X, Y) = -endo acts as lambda^2 = -m, with lambda = x^2 - 1 = m - 1
    // the other nontrivial cube root of unity (lambda^2 + lambda + 1 = 0 mod r).
    rng g(121);
    fr lambda = fr_of(glv_multiplier()) - fr::one();
    EXPECT_TRUE((lambda * lambda + lambda + fr::one()).is_zero());
    for (int i = 0; i < 5; ++i) {
        auto p = (ec::g1_jacobian::generator() * fr::random(g)).to_affine();
        auto phi = -glv_endo(p);
        EXPECT_EQ(phi.y, p.y);
        EXPECT_EQ(phi.to_jacobian(), p.to_jacobian() * (lambda * lambda));
    }
}

TEST(msm_glv, split_recombines) {
    rng g(122);
    const auto m = glv_multiplier();
    const fr mm = fr_of(m);
    // edges of both centring steps: k1 or k2 at (m-1)/2, m/2 and around them
    const fr half_m = fr_of(ff::limbs<2>{(m[0] >> 1) | (m[1] << 63), m[1] >> 1});
    std::vector<fr> ks = {fr::zero(), fr::one(), r_minus_1, mm, mm + fr::one(), mm - fr::one(), mm * mm,
                          mm * mm - fr::one(), r_minus_1 - mm, fr::from_u64(2)};
    for (int d1 = -2; d1 <= 2; ++d1)
        for (int d2 = -2; d2 <= 2; ++d2) {
            fr e1 = d1 < 0 ? -fr::from_u64(uint64_t(-d1)) : fr::from_u64(uint64_t(d1));
            fr e2 = d2 < 0 ? -fr::from_u64(uint64_t(-d2)) : fr::from_u64(uint64_t(d2));
            ks.push_back(half_m + e1 + (half_m + e2) * mm);
            ks.push_back(e1 + (half_m + e2) * mm);
            ks.push_back(half_m + e1 + e2 * mm);
            ks.push_back(e1 + (mm - fr::one() + e2) * mm);
        }
    for (int i = 0; i < 2000; ++i) ks.push_back(fr::random(g));
    for (const auto& k : ks) {
        auto [k1, k2] = glv_split(k);
        // both below m (so below 2^128)
        EXPECT_TRUE(ff::less_than(k1, m));
        EXPECT_TRUE(ff::less_than(k2, m));
        EXPECT_EQ(fr_of(k1) + fr_of(k2) * mm, k);
    }
    // the signed split: magnitudes below 2^127, same sum
    const ff::limbs<2> two127{0, uint64_t{1} << 63};
    for (const auto& k : ks) {
        auto sp = glv_split_signed(k);
        EXPECT_TRUE(ff::less_than(sp.k1, two127));
        EXPECT_TRUE(ff::less_than(sp.k2, two127));
        fr a = sp.neg1 ? -fr_of(sp.k1) : fr_of(sp.k1), b = sp.neg2 ? -fr_of(sp.k2) : fr_of(sp.k2);
        EXPECT_EQ(a + b * mm, k);
    }
    // k = q m + j for q < m - 1 and j < m is split into exactly (j, q): the division's quotient
    // estimate is off by up to two below the edges j = m - 1, m - 2 (Barrett).
    const ff::limbs<2> m_minus_1{m[0] - 1, m[1]}, m_minus_2{m[0] - 2, m[1]}, m_minus_3{m[0] - 3, m[1]};
    // (the largest q: (m - 2) m + m - 1 = r - 2)
    std::vector<ff::limbs<2>> qs = {ff::limbs<2>{0, 0}, ff::limbs<2>{1, 0}, m_minus_3, m_minus_2};
    for (int i = 0; i < 200; ++i) qs.push_back(ff::limbs<2>{g.next(), g.next() >> 1});  // below 2^127 < m - 2
    for (const auto& q : qs)
        for (const auto& j : {ff::limbs<2>{0, 0}, ff::limbs<2>{1, 0}, m_minus_2, m_minus_1}) {
            auto [k1, k2] = glv_split(fr_of(q) * mm + fr_of(j));
            EXPECT_EQ(k1, j);
            EXPECT_EQ(k2, q);
        }
    // k = m: (0, 1); k = m + 1: (1, 1); k = r - 1 = m^2 - m: (0, m - 1)
    auto [a1, a2] = glv_split(mm);
    EXPECT_TRUE(ff::is_zero(a1));
    EXPECT_EQ(a2, (ff::limbs<2>{1, 0}));
    auto [b1, b2] = glv_split(mm + fr::one());
    EXPECT_EQ(b1, (ff::limbs<2>{1, 0}));
    EXPECT_EQ(b2, (ff::limbs<2>{1, 0}));
    auto [c1, c2] = glv_split(r_minus_1);
    EXPECT_TRUE(ff::is_zero(c1));
    EXPECT_EQ(fr_of(c2), mm - fr::one());
}

// Every variant of the split path (window, bucket mode, batch size, reduction, blocks,
// threads) against the naive sum, with the special inputs mixed in.
TYPED_TEST(msm_suite, glv_variants_against_naive) {
    using C = TypeParam;
    rng g(123);
    const size_t n = is_g2<C> ? 200 : 1200;
    auto pts = random_points<C>(n, g);
    auto ks = random_scalars(n, g);
    for (size_t i = 0; i < n; i += 37) pts[i] = ec::affine<C>::identity();
    for (size_t i = 1; i < n; i += 41) ks[i] = fr::zero();
    for (size_t i = 2; i < n; i += 43) ks[i] = r_minus_1;
    for (size_t i = 3; i < n; i += 47) pts[i] = pts[4];   // repeated points
    for (size_t i = 5; i < n; i += 53) pts[i] = -pts[6];  // and negations
    const auto want = msm_naive<C>(pts, ks);
    struct variant {
        msm_config cfg;
        const char* what;
    };
    std::vector<variant> vs;
    for (unsigned c : {1u, 3u, 6u, 8u, 9u, 13u}) {
        msm_config cfg{window_policy::fixed(c), 1, bucket_add::batch_affine};
        vs.push_back({cfg, "batch_affine"});
        cfg.bucket_add = bucket_add::xyzz;
        vs.push_back({cfg, "xyzz"});
        cfg.bucket_add = bucket_add::automatic;
        vs.push_back({cfg, "automatic"});
    }
    {
        msm_config cfg{window_policy::fixed(7), 1, bucket_add::batch_affine};
        cfg.batch_size = 16;
        vs.push_back({cfg, "batch 16"});
        cfg.batched_reduction = false;
        vs.push_back({cfg, "xyzz reduction"});
        cfg.batched_reduction = true;
        cfg.reduction_segments = 1;
        vs.push_back({cfg, "one segment"});
        cfg.reduction_segments = 5;
        vs.push_back({cfg, "five segments"});
        cfg.reduction_segments = 1000;
        vs.push_back({cfg, "more segments than buckets"});
        cfg.reduction_segments = 0;
        cfg.glv_block = 97;
        vs.push_back({cfg, "blocks of 97"});
        cfg.threads = 2;
        vs.push_back({cfg, "blocks of 97, two threads"});
        cfg.glv_block = 1;
        vs.push_back({cfg, "blocks of 1"});
        // Blocks keep their buckets to the last (kept_buckets): with groups of windows, the xyzz
        // reduction of the kept buckets and their overflow accumulators, and a last block of 3.
        cfg.glv_block = 97;
        cfg.window_group = 3;
        vs.push_back({cfg, "blocks of 97, windows in groups of 3, two threads"});
        cfg.window_group = 1;
        cfg.batched_reduction = false;
        vs.push_back({cfg, "blocks of 97, xyzz reduction, two threads"});
        cfg.batched_reduction = true;
        cfg.glv_block = 0;
        cfg.window_group = 3;
        vs.push_back({cfg, "windows in groups of 3, two threads"});
        cfg.threads = 1;
        cfg.prefetch = 0;
        vs.push_back({cfg, "windows in groups of 3, no prefetch"});
        cfg.window_group = 100;
        vs.push_back({cfg, "all windows in one group"});
    }
    // The split's 128 bits spread over 9 to 42 windows of unequal widths (15 and 14 bits down to
    // 4 and 3), each bucket kind, and in blocks on two threads; 7 windows (18 and 19 bits, the
    // table's at 2^22) once, G1 alone (their 2^17 and 2^18 buckets a window are reduced whole);
    // and the 255-bit path, which takes whole windows of ceil(256 / N) bits (7 for N = 42).
    for (unsigned w : {9u, 10u, 13u, 42u}) {
        msm_config cfg{window_policy::windows(w), 1, bucket_add::batch_affine};
        vs.push_back({cfg, "spread, batch_affine"});
        cfg.bucket_add = bucket_add::xyzz;
        vs.push_back({cfg, "spread, xyzz"});
        cfg.bucket_add = bucket_add::automatic;
        cfg.glv_block = 97;
        cfg.threads = 2;
        vs.push_back({cfg, "spread, blocks of 97, two threads"});
    }
    if constexpr (!is_g2<C>) vs.push_back({msm_config{window_policy::windows(7), 1, bucket_add::batch_affine}, "7 windows"});
    {
        msm_config cfg{window_policy::windows(42), 1};
        cfg.glv = false;
        vs.push_back({cfg, "windows:42 on the 255-bit path"});
    }
    vs.push_back({msm_config{window_policy::ln(), 2}, "ln, two threads"});
    vs.push_back({msm_config{window_policy::table(), 0}, "table, all threads"});
    // Window counts the threads do not divide (127 bits: 15 windows of 9, 11 of 12, 13 of 10
    // bits): the last windows are cut into a chunk a thread; an even count (10 of 13) is not.
    for (unsigned c : {9u, 12u, 10u, 13u})
        for (unsigned threads : {2u, 3u, 4u})
            vs.push_back({msm_config{window_policy::fixed(c), threads}, "windows cut over the threads"});
    for (const auto& v : vs) {
        auto got = msm<C>(pts, ks, v.cfg);
        EXPECT_EQ(got, want) << v.what << " window " << v.cfg.window.to_string() << " threads " << v.cfg.threads;
    }
}

// Bigger sizes: the split path against the 255-bit path (xyzz buckets, the reference).
TYPED_TEST(msm_suite, glv_against_plain_path) {
    using C = TypeParam;
    rng g(124);
    const size_t n = is_g2<C> ? 3000 : 20000;
    auto pts = random_points<C>(n, g);
    auto ks = random_scalars(n, g);
    msm_config plain{window_policy::ln(), 2, bucket_add::xyzz};
    plain.glv = false;
    const auto want = msm<C>(pts, ks, plain);
    for (unsigned threads : {1u, 2u}) {
        EXPECT_EQ(msm<C>(pts, ks, {window_policy::table(), threads}), want) << "table threads " << threads;
        EXPECT_EQ(msm<C>(pts, ks, {window_policy::fixed(11), threads}), want) << "fixed:11 threads " << threads;
    }
    // equal scalars (every point of a window in one bucket: the conflict queue and the
    // overflow accumulators), and repeated points
    std::vector<fr> same(n, ks[0]);
    EXPECT_EQ(msm<C>(pts, same, {window_policy::table(), 1}), msm<C>(pts, same, plain)) << "equal scalars";
    msm_config same_blocks{window_policy::table(), 2, bucket_add::batch_affine};
    same_blocks.glv_block = 1000;  // the overflow accumulators kept from block to block
    EXPECT_EQ(msm<C>(pts, same, same_blocks), msm<C>(pts, same, plain)) << "equal scalars, blocks of 1000";
    std::vector<ec::affine<C>> rep(n);
    for (size_t i = 0; i < n; ++i) rep[i] = pts[i % 5];
    EXPECT_EQ(msm<C>(rep, ks, {window_policy::table(), 1}), msm<C>(rep, ks, plain)) << "repeated points";
    // densities through the split path
    density_bitmap d(n);
    for (size_t i = 0; i < n; ++i) d.set(i, g.below(3) == 0);
    std::vector<fr> sel;
    for (size_t i = 0; i < n; ++i)
        if (d.test(i)) sel.push_back(ks[i]);
    msm_config blocks{window_policy::table(), 2};
    blocks.glv_block = 1000;
    EXPECT_EQ(msm_density<C>(pts, d, sel, blocks), msm_density<C>(pts, d, sel, plain)) << "density";
    std::vector<ec::affine<C>> bases;
    for (size_t i = 0; i < n; ++i)
        if (d.test(i)) bases.push_back(pts[i]);
    EXPECT_EQ(msm_filtered_bases<C>(bases, d, ks, blocks), msm_density<C>(pts, d, sel, plain)) << "filtered bases";
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

TEST(msm_window, glv_rule) {
    // The model against a brute-force count of additions, every c in 1..16.
    auto cost = [](size_t n, unsigned c) {
        return double(127 / c + 1) * (2.0 * double(n) + double(size_t{1} << (c - 1)) + double(size_t{1} << c));
    };
    for (size_t n : {size_t{1}, size_t{2}, size_t{31}, size_t{1000}, size_t{1} << 15, size_t{1} << 17, size_t{1} << 19,
                     size_t{1} << 24}) {
        unsigned c = glv_model_window_bits(n);
        ASSERT_GE(c, 1u);
        ASSERT_LE(c, 16u);
        for (unsigned o = 1; o <= 16; ++o) EXPECT_LE(cost(n, c), cost(n, o)) << "n=" << n << " c=" << c << " vs " << o;
    }
    EXPECT_EQ(glv_model_window_bits(size_t{1} << 16), 13u);
    EXPECT_EQ(glv_model_window_bits(size_t{1} << 18), 16u);
    // measured rows, and the model where nothing was measured
    for (ff::batch_path path : {ff::batch_path::scalar, ff::batch_path::ifma}) {
        EXPECT_EQ(glv_table_window_bits(size_t{1} << 18, path), 16u);
        EXPECT_EQ(glv_table_windows(size_t{1} << 18, path), 0u);
        EXPECT_EQ(glv_table_window_bits(size_t{1} << 24, path), glv_model_window_bits(size_t{1} << 24));
        EXPECT_EQ(glv_table_windows(size_t{1} << 24, path), 0u);
        EXPECT_EQ(glv_table_window_bits(100, path), glv_model_window_bits(100));
    }
    // IFMA: whole windows of 13 bits at 2^16 and 2^17 (between rows: the smaller), 16 at 2^22.
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 16, ff::batch_path::ifma), 13u);
    EXPECT_EQ(glv_table_windows(size_t{1} << 16, ff::batch_path::ifma), 0u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 17, ff::batch_path::ifma), 13u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 22, ff::batch_path::ifma), 16u);
    EXPECT_EQ(glv_table_windows(size_t{1} << 22, ff::batch_path::ifma), 0u);
    // Scalar: 9 windows spread (14 and 15 bits) at 2^16 and 2^17, 7 (18 and 19 bits) at 2^22,
    // also for the H query's 2^22 - 1 pairs (ceil(log2 n) = 22).
    for (size_t n : {size_t{1} << 16, size_t{1} << 17}) {
        EXPECT_EQ(glv_table_windows(n, ff::batch_path::scalar), 9u);
        EXPECT_EQ(glv_table_window_bits(n, ff::batch_path::scalar), 15u);
    }
    for (size_t n : {size_t{1} << 22, (size_t{1} << 22) - 1}) {
        EXPECT_EQ(glv_table_windows(n, ff::batch_path::scalar), 7u);
        EXPECT_EQ(glv_table_window_bits(n, ff::batch_path::scalar), 19u);
    }
    EXPECT_EQ(glv_table_windows(size_t{1} << 21, ff::batch_path::scalar), 0u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 21, ff::batch_path::scalar), 16u);
    // On more than one thread the spread rows take their whole windows (13 at 2^16, 16 at 2^17
    // and 2^22); the other rows are the same on any thread count.
    EXPECT_EQ(glv_table_whole_bits(size_t{1} << 16, ff::batch_path::scalar), 13u);
    EXPECT_EQ(glv_table_whole_bits(size_t{1} << 17, ff::batch_path::scalar), 16u);
    EXPECT_EQ(glv_table_whole_bits((size_t{1} << 22) - 1, ff::batch_path::scalar), 16u);
    EXPECT_EQ(glv_table_whole_bits(size_t{1} << 18, ff::batch_path::scalar), 16u);
    EXPECT_EQ(glv_table_whole_bits(size_t{1} << 16, ff::batch_path::ifma), 13u);
    EXPECT_EQ(glv_table_whole_bits(size_t{1} << 24, ff::batch_path::scalar), glv_model_window_bits(size_t{1} << 24));
    for (size_t log_n = 10; log_n <= 22; ++log_n)
        for (ff::batch_path path : {ff::batch_path::scalar, ff::batch_path::ifma}) {
            const size_t n = size_t{1} << log_n;
            if (glv_table_windows(n, path) == 0)
                EXPECT_EQ(glv_table_whole_bits(n, path), glv_table_window_bits(n, path)) << log_n;
            else  // a whole-window size of its own, one the signed split can take
                EXPECT_TRUE(glv_table_whole_bits(n, path) >= 3 && glv_table_whole_bits(n, path) <= max_window_bits) << log_n;
        }
    // The odd sizes' own rows, where the smaller window of the neighbours was slower: 10 bits at the
    // scalar 2^11 (not 9), 13 at IFMA's 2^13 (not 11); a size between two powers takes the row of
    // its ceil(log2 n).
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 11, ff::batch_path::scalar), 10u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 11, ff::batch_path::ifma), 10u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 13, ff::batch_path::ifma), 13u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 13, ff::batch_path::scalar), 11u);
    EXPECT_EQ(glv_table_window_bits((size_t{1} << 12) + 1, ff::batch_path::ifma), 13u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 12, ff::batch_path::ifma), 11u);
    for (unsigned log_n = 10; log_n <= 22; ++log_n)
        for (ff::batch_path path : {ff::batch_path::scalar, ff::batch_path::ifma}) {
            const size_t n = size_t{1} << log_n;
            const unsigned bits = glv_table_window_bits(n, path), windows = glv_table_windows(n, path);
            EXPECT_GE(bits, 9u) << log_n;
            EXPECT_LE(bits, 19u) << log_n;
            if (windows != 0) {
                EXPECT_EQ(bits, spread_window_bits(windows)) << log_n;
            }
            if (log_n > 10) {  // no size takes a smaller window than a smaller size
                EXPECT_GE(bits, glv_table_window_bits(n / 2, path)) << log_n;
            }
        }
    EXPECT_EQ(spread_window_bits(7), 19u);
    EXPECT_EQ(spread_window_bits(8), 16u);
    EXPECT_EQ(spread_window_bits(9), 15u);
    EXPECT_EQ(spread_window_bits(42), 4u);
    // The paths' own rows at the small sizes (they differ at 2^10 on the machine last measured).
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 10, ff::batch_path::scalar), 9u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 10, ff::batch_path::ifma), 10u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 14, ff::batch_path::scalar), 13u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 14, ff::batch_path::ifma), 13u);
    EXPECT_EQ(glv_table_window_bits(size_t{1} << 14), glv_table_window_bits(size_t{1} << 14, ff::default_batch_path()));
    EXPECT_EQ(window_policy::table().glv_bits_for(size_t{1} << 16), glv_table_window_bits(size_t{1} << 16));
    EXPECT_EQ(window_policy::table().glv_windows_for(size_t{1} << 16), glv_table_windows(size_t{1} << 16));
    EXPECT_EQ(window_policy::table().glv_windows_for(size_t{1} << 16, 2), 0u);
    EXPECT_EQ(window_policy::table().glv_bits_for(size_t{1} << 16, 2), glv_table_whole_bits(size_t{1} << 16));
    EXPECT_EQ(window_policy::table().glv_bits_for(size_t{1} << 18, 2), glv_table_window_bits(size_t{1} << 18));
    EXPECT_EQ(window_policy::ln().glv_bits_for(size_t{1} << 22, 2), glv_model_window_bits(size_t{1} << 22));
    // An explicit spread stays spread on any thread count.
    EXPECT_EQ(window_policy::windows(7).glv_windows_for(1000, 2), 7u);
    EXPECT_EQ(window_policy::windows(7).glv_bits_for(1000, 2), 19u);
    EXPECT_EQ(window_policy::ln().glv_bits_for(1000), glv_model_window_bits(1000));
    EXPECT_EQ(window_policy::ln().glv_windows_for(1000), 0u);
    EXPECT_EQ(window_policy::fixed(9).glv_bits_for(1000), 9u);
    EXPECT_EQ(window_policy::fixed(9).glv_windows_for(1000), 0u);
    EXPECT_EQ(window_policy::windows(7).glv_windows_for(1000), 7u);
    EXPECT_EQ(window_policy::windows(7).glv_bits_for(1000), 19u);
    EXPECT_EQ(window_policy::windows(7).bits_for(1000), 20u);  // the 255-bit path: ceil(256 / 7) = 37, at most 20
    EXPECT_EQ(window_policy::windows(16).bits_for(1000), 16u);
}

TEST(msm_window, parse_and_print) {
    EXPECT_EQ(window_policy::parse("ln"), window_policy::ln());
    EXPECT_EQ(window_policy::parse("table"), window_policy::table());
    EXPECT_EQ(window_policy::parse("fixed:12"), window_policy::fixed(12));
    EXPECT_EQ(window_policy::parse("fixed:1").fixed_bits, 1u);
    EXPECT_EQ(window_policy::parse("fixed:20").fixed_bits, 20u);
    EXPECT_EQ(window_policy::parse("windows:7"), window_policy::windows(7));
    EXPECT_EQ(window_policy::parse("windows:42").fixed_bits, 42u);
    for (const char* s : {"ln", "table", "fixed:1", "fixed:7", "fixed:20", "windows:7", "windows:42"})
        EXPECT_EQ(window_policy::parse(s).to_string(), s);
}

TEST(msm_window, bad_strings_are_refused_by_name) {
    for (const char* bad : {"", "LN", "log", "fixed", "fixed:", "fixed:0", "fixed:21", "fixed:-3", "fixed:abc",
                            "fixed:12x", "fixed: 12", "fixed:99999999999999999999", "table ", "per_msm", "windows",
                            "windows:", "windows:6", "windows:43", "windows:x", "windows:7 ", "Windows:7"}) {
        try {
            window_policy::parse(bad);
            ADD_FAILURE() << "accepted \"" << bad << "\"";
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input) << bad;
            EXPECT_NE(std::string(e.what()).find("\"" + std::string(bad) + "\""), std::string::npos) << e.what();
        }
    }
    // The factories refuse as the parser does: the value as a policy, and its range.
    auto refusal = [](auto make) -> std::string {
        try {
            make();
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            return e.what();
        }
        ADD_FAILURE() << "accepted";
        return "";
    };
    for (unsigned bits : {0u, 21u}) {
        const std::string what = refusal([&] { window_policy::fixed(bits); });
        EXPECT_NE(what.find("\"fixed:" + std::to_string(bits) + "\": window bits must be in 1..20"), std::string::npos)
            << what;
    }
    for (unsigned count : {6u, 43u}) {
        const std::string what = refusal([&] { window_policy::windows(count); });
        EXPECT_NE(what.find("\"windows:" + std::to_string(count) + "\": the window count must be in 7..42"),
                  std::string::npos)
            << what;
    }
    EXPECT_NE(refusal([] { window_policy::parse("fixed:021"); }).find("\"fixed:021\": window bits must be in 1..20"),
              std::string::npos);
}

}  // namespace
}  // namespace c2lab::msm

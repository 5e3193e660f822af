#include "regressions/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace c2lab::regressions {
namespace {

// Simulation sizes: smaller under AddressSanitizer (slow), with bounds that stay meaningful.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

double uniform01(rng& gen) {  // in (0, 1)
    return (static_cast<double>(gen.next() >> 11) + 0.5) * 0x1.0p-53;
}
double standard_normal(rng& gen) {  // Box-Muller
    const double u1 = uniform01(gen), u2 = uniform01(gen);
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}
// n timings with median `center` and lognormal noise of relative size sigma.
std::vector<double> timings(rng& gen, std::size_t n, double center, double sigma) {
    std::vector<double> out(n);
    for (auto& v : out) v = center * std::exp(sigma * standard_normal(gen));
    return out;
}

void expect_errc(auto&& f, errc kind) {
    try {
        f();
        ADD_FAILURE() << "no c2lab::error thrown";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
    }
}

// ------------------------------------------------------------------ median, quantile
TEST(Stats, MedianAndQuantile) {
    const std::vector<double> odd{5, 1, 3};
    const std::vector<double> even{4, 1, 3, 2};
    EXPECT_DOUBLE_EQ(median(odd), 3);
    EXPECT_DOUBLE_EQ(median(even), 2.5);
    EXPECT_EQ(odd, (std::vector<double>{5, 1, 3}));  // input untouched
    EXPECT_DOUBLE_EQ(median(std::vector<double>{7}), 7);
    // Type 7: numpy.quantile([1, 2, 3, 4], 0.1) = 1.3, 0.25 -> 1.75, 0.5 -> 2.5.
    EXPECT_DOUBLE_EQ(quantile(even, 0.0), 1);
    EXPECT_DOUBLE_EQ(quantile(even, 0.1), 1.3);
    EXPECT_DOUBLE_EQ(quantile(even, 0.25), 1.75);
    EXPECT_DOUBLE_EQ(quantile(even, 0.5), 2.5);
    EXPECT_DOUBLE_EQ(quantile(even, 1.0), 4);
    EXPECT_DOUBLE_EQ(quantile(std::vector<double>{10, 0, 20, 30, 40}, 0.9), 36);
}

TEST(Stats, EmptyAndBadInputRefused) {
    const std::vector<double> empty, one{1.0}, nan{1.0, std::nan("")};
    expect_errc([&] { median(empty); }, errc::bad_input);
    expect_errc([&] { median(nan); }, errc::bad_input);
    expect_errc([&] { quantile(empty, 0.5); }, errc::bad_input);
    expect_errc([&] { quantile(one, 1.5); }, errc::bad_input);
    expect_errc([&] { mann_whitney_u(empty, one); }, errc::bad_input);
    expect_errc([&] { mann_whitney_u(one, empty); }, errc::bad_input);
    expect_errc([&] { bootstrap_ratio_ci(empty, one); }, errc::bad_input);
    expect_errc([&] { bootstrap_ratio_ci(one, empty); }, errc::bad_input);
    expect_errc([&] { bootstrap_ratio_ci(std::vector<double>{0.0, 1.0}, one); }, errc::bad_input);
    expect_errc([&] { bootstrap_ratio_ci(one, one, 0); }, errc::bad_input);
    expect_errc([&] { bootstrap_ratio_ci(one, one, 10, 1.0); }, errc::bad_input);
    expect_errc([&] { compare_samples(empty, one); }, errc::bad_input);
    expect_errc([&] { holm_adjust(std::vector<double>{0.5, 1.5}); }, errc::bad_input);
    expect_errc([&] { benjamini_hochberg_adjust(std::vector<double>{-0.1}); }, errc::bad_input);
    EXPECT_TRUE(holm_adjust(empty).empty());
    EXPECT_TRUE(benjamini_hochberg_adjust(empty).empty());
}

// ------------------------------------------------------------------ Mann-Whitney U
TEST(MannWhitney, IdenticalSamplesGiveOne) {
    const std::vector<double> a{1, 2, 3, 4, 5};
    const auto r = mann_whitney_u(a, a);  // every value tied across samples: normal approx
    EXPECT_DOUBLE_EQ(r.u, 12.5);
    EXPECT_DOUBLE_EQ(r.p_value, 1.0);
    EXPECT_FALSE(r.exact);
    const std::vector<double> same(7, 3.0);  // sigma = 0
    EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p_value, 1.0);
}

TEST(MannWhitney, SeparatedExact) {
    // 5 vs 5, completely separated: one ordering of C(10, 5) = 252 has U = 0, one has U = 25;
    // two-sided exact p = 2 / 252.
    const std::vector<double> lo{1, 2, 3, 4, 5}, hi{6, 7, 8, 9, 10};
    const auto r = mann_whitney_u(lo, hi);
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 0);
    EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-15);
    EXPECT_NEAR(r.p_value, 0.007936507936507936, 1e-15);
    const auto s = mann_whitney_u(hi, lo);
    EXPECT_DOUBLE_EQ(s.u, 25);
    EXPECT_DOUBLE_EQ(s.p_value, r.p_value);
}

TEST(MannWhitney, SmallExactByHand) {
    // x = {1, 2, 4}, y = {3, 5, 6, 7}: U_x = #(x > y) = 1 (4 > 3). Of the C(7, 3) = 35
    // orderings, U = 0 and U = 1 each occur once: p = 2 * 2/35 = 4/35.
    const std::vector<double> x{1, 2, 4}, y{3, 5, 6, 7};
    const auto r = mann_whitney_u(x, y);
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 1);
    EXPECT_NEAR(r.p_value, 4.0 / 35, 1e-15);
    // Exact at the largest size (20 vs 20) still sums to a sane p: fully separated gives
    // 2 / C(40, 20).
    std::vector<double> a(20), b(20);
    for (int i = 0; i < 20; ++i) a[static_cast<std::size_t>(i)] = i, b[static_cast<std::size_t>(i)] = 100 + i;
    const auto big = mann_whitney_u(a, b);
    EXPECT_TRUE(big.exact);
    EXPECT_NEAR(big.p_value / (2.0 / 137846528820.0), 1.0, 1e-12);
    // 21 values: normal approximation.
    a.push_back(-1);
    EXPECT_FALSE(mann_whitney_u(a, b).exact);
}

TEST(MannWhitney, TiedCaseByHand) {
    // x = {1, 2, 2, 3, 5}, y = {2, 4, 5, 6, 7, 8}. Combined sorted:
    //   1 | 2 2 2 | 3 | 4 | 5 5 | 6 7 8  -> ranks 1 | 3 3 3 | 5 | 6 | 7.5 7.5 | 9 10 11
    // rank sum of x = 1 + 3 + 3 + 5 + 7.5 = 19.5, U_x = 19.5 - 5*6/2 = 4.5.
    // Ties: t = 3 and t = 2, sum(t^3 - t) = 24 + 6 = 30. N = 11, mn = 30, mu = 15,
    // sigma^2 = 30/12 * (12 - 30/110) = 29.3181818..., z = (|4.5 - 15| - 0.5) / sigma
    // = 10 / 5.414627 = 1.846849, p = erfc(z / sqrt 2) = 0.0647689697 (scipy gives the same
    // with method="asymptotic", use_continuity=True).
    const std::vector<double> x{1, 2, 2, 3, 5}, y{2, 4, 5, 6, 7, 8};
    const auto r = mann_whitney_u(x, y);
    EXPECT_FALSE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 4.5);
    EXPECT_NEAR(r.p_value, 0.06476896969888765, 1e-12);
    // A second one: x = {1, 2, 3}, y = {3, 4, 5}: U = 0.5, sigma^2 = 9/12 * (7 - 6/30) = 5.1,
    // z = 3.5 / sqrt(5.1), p = 0.12118327283746322.
    const auto s = mann_whitney_u(std::vector<double>{1, 2, 3}, std::vector<double>{3, 4, 5});
    EXPECT_DOUBLE_EQ(s.u, 0.5);
    EXPECT_NEAR(s.p_value, 0.12118327283746322, 1e-12);
}

TEST(MannWhitney, SwappingSamplesKeepsP) {
    rng gen(11);
    for (int trial = 0; trial < 50; ++trial) {
        const std::size_t nx = 3 + gen.below(30), ny = 3 + gen.below(30);
        auto x = timings(gen, nx, 100, 0.05);
        auto y = timings(gen, ny, 103, 0.05);
        if (trial % 3 == 0)  // force ties
            for (auto& v : x) v = std::round(v);
        if (trial % 3 == 0)
            for (auto& v : y) v = std::round(v);
        const auto a = mann_whitney_u(x, y), b = mann_whitney_u(y, x);
        EXPECT_NEAR(a.p_value, b.p_value, 1e-12);
        EXPECT_EQ(a.exact, b.exact);
        EXPECT_NEAR(a.u + b.u, static_cast<double>(nx * ny), 1e-9);
        EXPECT_GE(a.p_value, 0.0);
        EXPECT_LE(a.p_value, 1.0);
    }
}

TEST(MannWhitney, FalseAlarmRateUnderNull) {
    // A/A: both samples from the same distribution; the fraction of p < 0.05 must be near
    // 0.05 (a little under for the exact test, which is discrete). Deterministic seeds.
    const int sims = kSanitized ? 200 : 400;
    int alarms_exact = 0, alarms_normal = 0;
    rng gen(2024);
    for (int i = 0; i < sims; ++i) {
        const auto a = timings(gen, 10, 1000, 0.02), b = timings(gen, 10, 1000, 0.02);
        if (mann_whitney_u(a, b).p_value < 0.05) ++alarms_exact;
        const auto c = timings(gen, 25, 1000, 0.02), d = timings(gen, 25, 1000, 0.02);
        const auto r = mann_whitney_u(c, d);
        EXPECT_FALSE(r.exact);
        if (r.p_value < 0.05) ++alarms_normal;
    }
    const double f_exact = static_cast<double>(alarms_exact) / sims;
    const double f_normal = static_cast<double>(alarms_normal) / sims;
    std::printf("A/A false-alarm fraction at p < 0.05 over %d sims: exact (10 vs 10) %.4f, normal (25 vs 25) %.4f\n",
                sims, f_exact, f_normal);
    EXPECT_GE(f_exact, 0.02);
    EXPECT_LE(f_exact, 0.09);
    EXPECT_GE(f_normal, 0.02);
    EXPECT_LE(f_normal, 0.09);
}

TEST(MannWhitney, PowerForTenPercentShift) {
    const int sims = 200;
    int detected = 0, regressed = 0;
    rng gen(77);
    compare_options opt;
    opt.resamples = kSanitized ? 500 : 2000;
    for (int i = 0; i < sims; ++i) {
        const auto base = timings(gen, 10, 1000, 0.02), cur = timings(gen, 10, 1100, 0.02);
        if (mann_whitney_u(base, cur).p_value < 0.05) ++detected;
        opt.seed = static_cast<uint64_t>(i);
        if (compare_samples(base, cur, opt).result == verdict::regressed) ++regressed;
    }
    const double power = static_cast<double>(detected) / sims;
    std::printf("power for a 10%% shift, 10 reps, 2%% noise over %d sims: %.4f (verdict regressed: %.4f)\n", sims,
                power, static_cast<double>(regressed) / sims);
    EXPECT_GE(power, 0.95);
    EXPECT_GE(static_cast<double>(regressed) / sims, 0.95);
}

// ------------------------------------------------------------------ bootstrap
TEST(Bootstrap, DeterministicAndSane) {
    const std::vector<double> base{100, 101, 99, 102, 98, 100, 101}, cur{110, 111, 109, 112, 108, 110, 109};
    const auto a = bootstrap_ratio_ci(base, cur, 2000, 0.95, 5);
    const auto b = bootstrap_ratio_ci(base, cur, 2000, 0.95, 5);
    EXPECT_EQ(a.lo, b.lo);
    EXPECT_EQ(a.hi, b.hi);
    EXPECT_DOUBLE_EQ(a.ratio, 110.0 / 100.0);
    EXPECT_LE(a.lo, a.ratio);
    EXPECT_GE(a.hi, a.ratio);
    EXPECT_GT(a.lo, 1.05);  // every resampled median of cur >= 108, of base <= 102
    EXPECT_LT(a.hi, 1.15);
    // A wider level gives a wider (or equal) interval.
    const auto w = bootstrap_ratio_ci(base, cur, 2000, 0.99, 5);
    EXPECT_LE(w.lo, a.lo);
    EXPECT_GE(w.hi, a.hi);
}

TEST(Bootstrap, CoverageOfTrueRatio) {
    // Lognormal noise around known medians: the true ratio of medians is 1.07. The
    // percentile interval of a ratio of medians is slightly conservative (about 0.97 over
    // many seeds and sizes 10..31), so the bound leaves room above 0.95.
    const int sims = kSanitized ? 150 : 300;
    const std::size_t resamples = kSanitized ? 1000 : 2000;
    const double true_ratio = 1.07;
    int covered = 0;
    rng gen(99);
    for (int i = 0; i < sims; ++i) {
        const auto base = timings(gen, 15, 500, 0.05), cur = timings(gen, 15, 500 * true_ratio, 0.05);
        const auto ci = bootstrap_ratio_ci(base, cur, resamples, 0.95, static_cast<uint64_t>(1000 + i));
        if (ci.lo <= true_ratio && true_ratio <= ci.hi) ++covered;
    }
    const double coverage = static_cast<double>(covered) / sims;
    std::printf("bootstrap 95%% CI coverage over %d sims: %.4f\n", sims, coverage);
    EXPECT_GE(coverage, 0.90);
    EXPECT_LE(coverage, 0.99);
}

// ------------------------------------------------------------------ multiple comparisons
TEST(Adjust, HolmByHand) {
    // Sorted: 0.005 (idx 3), 0.01 (0), 0.03 (2), 0.04 (1); m = 4.
    // Holm: 4*0.005 = 0.02, 3*0.01 = 0.03, 2*0.03 = 0.06, 1*0.04 = 0.04 -> running max 0.06.
    const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
    const auto h = holm_adjust(p);
    ASSERT_EQ(h.size(), 4u);
    EXPECT_NEAR(h[0], 0.03, 1e-15);
    EXPECT_NEAR(h[1], 0.06, 1e-15);
    EXPECT_NEAR(h[2], 0.06, 1e-15);
    EXPECT_NEAR(h[3], 0.02, 1e-15);
    // Capped at 1.
    const auto c = holm_adjust(std::vector<double>{0.5, 0.6});
    EXPECT_DOUBLE_EQ(c[0], 1.0);
    EXPECT_DOUBLE_EQ(c[1], 1.0);
    EXPECT_EQ(adjust(p, adjustment::holm), h);
    EXPECT_EQ(adjust(p, adjustment::none), p);
}

TEST(Adjust, BenjaminiHochbergByHand) {
    // Same p: m p(j) / j = 0.02, 0.02, 0.04, 0.04 -> running min from the top: same.
    const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
    const auto b = benjamini_hochberg_adjust(p);
    EXPECT_NEAR(b[0], 0.02, 1e-15);
    EXPECT_NEAR(b[1], 0.04, 1e-15);
    EXPECT_NEAR(b[2], 0.04, 1e-15);
    EXPECT_NEAR(b[3], 0.02, 1e-15);
    // Step-up monotonicity: p = {0.01, 0.02, 0.03, 0.5, 0.04}: m p / j for sorted
    // 0.01, 0.02, 0.03, 0.04, 0.5 = 0.05, 0.05, 0.05, 0.05, 0.5.
    const auto s = benjamini_hochberg_adjust(std::vector<double>{0.01, 0.02, 0.03, 0.5, 0.04});
    const std::vector<double> want{0.05, 0.05, 0.05, 0.5, 0.05};
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(s[i], want[i], 1e-15) << i;
    // Example where the running min matters: {0.04, 0.03} -> 2*0.03/1 = 0.06, 2*0.04/2 = 0.04
    // -> min from top gives 0.04 for both.
    const auto t = benjamini_hochberg_adjust(std::vector<double>{0.04, 0.03});
    EXPECT_NEAR(t[0], 0.04, 1e-15);
    EXPECT_NEAR(t[1], 0.04, 1e-15);
    EXPECT_EQ(adjust(p, adjustment::benjamini_hochberg), b);
    // BH never exceeds Holm.
    const auto h = holm_adjust(p);
    for (std::size_t i = 0; i < p.size(); ++i) EXPECT_LE(b[i], h[i]);
}

// ------------------------------------------------------------------ verdicts
TEST(Verdict, Table) {
    struct row {
        double p, lo, hi;
        direction dir;
        verdict want;
    };
    const auto L = direction::lower_is_better, H = direction::higher_is_better;
    const row rows[] = {
        {0.001, 1.08, 1.12, L, verdict::regressed},      // significant, whole CI above 1.05
        {0.001, 1.04, 1.12, L, verdict::inconclusive},   // straddles 1 + margin
        {0.200, 1.08, 1.12, L, verdict::inconclusive},   // big, but not significant
        {0.001, 0.85, 0.90, L, verdict::improved},       // faster
        {0.001, 1.002, 1.006, L, verdict::equivalent},   // significant but tiny
        {0.700, 0.98, 1.03, L, verdict::equivalent},     // CI inside the band
        {0.700, 0.80, 1.30, L, verdict::inconclusive},   // large p, wide CI: not equivalence
        {0.001, 0.85, 0.90, H, verdict::regressed},      // throughput fell
        {0.001, 1.08, 1.12, H, verdict::improved},       // throughput rose
        {0.700, 0.97, 1.04, H, verdict::equivalent},
        {0.001, 0.93, 0.97, H, verdict::inconclusive},   // between bands
        {0.050, 1.08, 1.12, L, verdict::inconclusive},   // p == alpha is not < alpha
        {0.001, 0.95, 1.05, L, verdict::equivalent},     // band edges included
    };
    for (const auto& r : rows) {
        verdict_options opt;
        opt.dir = r.dir;
        EXPECT_EQ(decide(r.p, ratio_ci{(r.lo + r.hi) / 2, r.lo, r.hi}, opt), r.want)
            << "p " << r.p << " ci [" << r.lo << ", " << r.hi << "] -> " << to_string(r.want);
    }
    verdict_options tight;
    tight.margin = 0.01;
    EXPECT_EQ(decide(0.001, ratio_ci{1.03, 1.02, 1.04}, tight), verdict::regressed);
    expect_errc([] { decide(1.5, ratio_ci{1, 1, 1}, {}); }, errc::bad_input);
    expect_errc([] { decide(0.5, ratio_ci{1, 1.2, 1.1}, {}); }, errc::bad_input);
    EXPECT_EQ(to_string(verdict::regressed), "regressed");
    EXPECT_EQ(to_string(verdict::inconclusive), "inconclusive");
}

TEST(Compare, SamplesEndToEnd) {
    rng gen(5);
    const auto base = timings(gen, 15, 2000, 0.01), cur = timings(gen, 15, 2400, 0.01);
    const auto c = compare_samples(base, cur);
    EXPECT_EQ(c.n_base, 15u);
    EXPECT_EQ(c.n_cur, 15u);
    EXPECT_DOUBLE_EQ(c.median_base, median(base));
    EXPECT_DOUBLE_EQ(c.median_cur, median(cur));
    EXPECT_DOUBLE_EQ(c.ci.ratio, c.median_cur / c.median_base);
    EXPECT_TRUE(c.exact);
    EXPECT_DOUBLE_EQ(c.u, 225);  // current is the first sample: all 225 pairs cur > base
    EXPECT_LT(c.p, 1e-6);
    EXPECT_EQ(c.p_adjusted, c.p);
    EXPECT_EQ(c.result, verdict::regressed);

    const auto same = compare_samples(base, timings(gen, 15, 2000, 0.01));
    EXPECT_EQ(same.result, verdict::equivalent);

    // Adjusting over a run: a borderline p becomes non-significant with many comparisons.
    std::vector<comparison> run(10, same);
    run[0] = c;
    run[1] = c;
    run[1].p = 0.01;  // significant alone, not after Holm over 10
    run[1].result = decide(run[1].p, run[1].ci, {});
    EXPECT_EQ(run[1].result, verdict::regressed);
    adjust_comparisons(run, adjustment::holm, {});
    EXPECT_EQ(run[0].result, verdict::regressed);
    EXPECT_NEAR(run[1].p_adjusted, 0.09, 1e-12);
    EXPECT_EQ(run[1].result, verdict::inconclusive);
    EXPECT_EQ(run[2].result, verdict::equivalent);
}

}  // namespace
}  // namespace c2lab::regressions

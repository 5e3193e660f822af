// Statistics core of the regression gate: given the per-repetition samples of one
// benchmark in a baseline run and in a current run, decide whether the benchmark
// regressed, improved, stayed equivalent, or whether the data cannot tell.
//
// The pieces, and why each is there:
//   - median / quantile: robust location; timings have long right tails (preemption,
//     frequency changes), so means are not used.
//   - Mann-Whitney U (two-sided): is there any shift at all? Rank based, so a few
//     outliers do not dominate; the same test as google/benchmark's compare.py.
//   - bootstrap CI of the ratio of medians (current / baseline): how large is the
//     shift, with an interval (as criterion does).
//   - Holm-Bonferroni / Benjamini-Hochberg: a run compares many benchmarks; without a
//     correction, 5% of unchanged benchmarks would be flagged at alpha = 0.05.
//   - decide(): the verdict, from the (adjusted) p-value and the interval.
//
// Every function refuses bad input (empty samples, NaN or infinite values, out-of-range
// parameters) with c2lab::error of kind bad_input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace c2lab::regressions {

// Median of the values (mean of the two middle ones for an even count). Copies.
double median(std::span<const double> values);

// Quantile q in [0, 1], type 7 of Hyndman and Fan (R's and numpy's default):
// h = (n - 1) q, linear interpolation between the order statistics floor(h) and ceil(h).
double quantile(std::span<const double> values, double q);

// ---------------------------------------------------------------------------------------
// Mann-Whitney U, two-sided.
struct mann_whitney_result {
    double u;        // U of the first sample: #(x > y) + #(x == y) / 2 over all pairs
                     // (= rank sum of x with average ranks for ties - nx (nx + 1) / 2)
    double p_value;  // two-sided, in [0, 1]
    bool exact;      // true: exact null distribution; false: normal approximation
};

// Exact p (the U distribution enumerated by dynamic programming, p = min(1,
// 2 P(U <= min(U, nx ny - U)))) when both samples have at most 20 values and there are no
// ties in the combined sample; otherwise the normal approximation with the tie-corrected
// variance nx ny / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))) and continuity correction:
// z = (|U - nx ny / 2| - 0.5) / sigma, p = min(1, 2 (1 - Phi(z))). All values equal
// (sigma = 0) gives p = 1. Matches scipy.stats.mannwhitneyu(x, y, method="auto")
// (with its exact threshold of 8 raised to 20). Swapping x and y keeps p, U -> nx ny - U.
mann_whitney_result mann_whitney_u(std::span<const double> x, std::span<const double> y);

// ---------------------------------------------------------------------------------------
// Bootstrap confidence interval of median(current) / median(baseline).
struct ratio_ci {
    double ratio;  // median(current) / median(baseline) of the samples themselves
    double lo;     // percentile interval bounds of the bootstrap distribution
    double hi;
};

// `resamples` times, resample each sample independently with replacement (same size as
// the sample), take the ratio of the medians; the interval is the type-7 quantiles at
// (1 - level) / 2 and (1 + level) / 2 of those ratios. Deterministic for a seed
// (c2lab::rng). Every value must be > 0 (timings, counts): a ratio of medians needs a
// positive baseline median in every resample. level in (0, 1), resamples >= 1.
ratio_ci bootstrap_ratio_ci(std::span<const double> baseline, std::span<const double> current,
                            std::size_t resamples = 2000, double level = 0.95, uint64_t seed = 0);

// ---------------------------------------------------------------------------------------
// Multiple-comparison control. Both return adjusted p-values in the input order, each
// in [0, 1]; compare an adjusted p with alpha as if it were a single test. Inputs must lie
// in [0, 1]; an empty input gives an empty output.
//
// Holm-Bonferroni (step-down; controls the family-wise error rate, the chance of even one
// false alarm, under any dependence): with p sorted ascending p(1) <= ... <= p(m),
//   adj(i) = max over j <= i of min(1, (m - j + 1) p(j)).
std::vector<double> holm_adjust(std::span<const double> p_values);
// Benjamini-Hochberg (step-up; controls the false discovery rate, the expected share of
// false alarms among the flagged, for independent or positively dependent tests; less
// conservative than Holm for many benchmarks):
//   adj(i) = min over j >= i of min(1, m p(j) / j).
std::vector<double> benjamini_hochberg_adjust(std::span<const double> p_values);

enum class adjustment { none, holm, benjamini_hochberg };
std::vector<double> adjust(std::span<const double> p_values, adjustment method);

// ---------------------------------------------------------------------------------------
// Verdict.
enum class direction { lower_is_better, higher_is_better };  // time: lower; throughput: higher
enum class verdict { regressed, improved, equivalent, inconclusive };
std::string_view to_string(verdict v) noexcept;

struct verdict_options {
    direction dir = direction::lower_is_better;
    double alpha = 0.05;   // significance level, compared with the (adjusted) p-value
    double margin = 0.05;  // relative change that matters: 0.05 = 5%
};

// With r = current / baseline and the CI [lo, hi] of r, for lower_is_better:
//   regressed     p_adj < alpha and lo > 1 + margin  (significant, and surely worse by more
//                                                    than the margin)
//   improved      p_adj < alpha and hi < 1 - margin
//   equivalent    1 - margin <= lo and hi <= 1 + margin  (whatever p)
//   inconclusive  anything else
// and mirrored for higher_is_better (regressed: p_adj < alpha and hi < 1 - margin;
// improved: p_adj < alpha and lo > 1 + margin; equivalent as above). The four cases are
// disjoint (an interval inside the margin band cannot lie wholly beyond it).
//
// Why: a significant but tiny change (p tiny, ratio 1.004 with a tight interval, as a
// benchmark with many quiet repetitions gives) is real but not a regression worth failing
// CI for, hence the margin on the whole interval, not just the point ratio. And a large p
// is no evidence of equivalence (few or noisy repetitions give large p for real 20%
// regressions): equivalence needs the interval to be inside the band (the two one-sided
// tests idea). What is neither -- an interval straddling 1 + margin, or wide from noise --
// is inconclusive: rerun with more repetitions, do not guess.
verdict decide(double p_adjusted, const ratio_ci& ci, const verdict_options& options);

// ---------------------------------------------------------------------------------------
// One benchmark, baseline against current.
struct compare_options {
    verdict_options decision{};
    std::size_t resamples = 2000;  // bootstrap
    double level = 0.95;           // bootstrap interval level
    uint64_t seed = 0;             // bootstrap rng seed
};

struct comparison {
    std::size_t n_base = 0, n_cur = 0;
    double median_base = 0, median_cur = 0;
    ratio_ci ci{};          // ci.ratio = median_cur / median_base
    double u = 0;           // Mann-Whitney U of the current sample
    double p = 1;           // two-sided Mann-Whitney p
    bool exact = false;     // p exact (see mann_whitney_u)
    double p_adjusted = 1;  // = p for a single comparison; see adjust_comparisons
    verdict result = verdict::inconclusive;
};

// Medians, Mann-Whitney (current as the first sample), bootstrap CI, and the verdict
// from the unadjusted p (one comparison alone).
comparison compare_samples(std::span<const double> baseline, std::span<const double> current,
                           const compare_options& options = {});

// A run's comparisons: replaces each p_adjusted by the adjusted p over all of them and
// recomputes each verdict with it.
void adjust_comparisons(std::span<comparison> comparisons, adjustment method,
                        const verdict_options& options);

}  // namespace c2lab::regressions

// Change points of a benchmark's history, two methods.
//
// otava (the default): Apache Otava's default analysis (apache/otava otava/analysis.py
// compute_change_points, after Fleming et al., "Hunter: Using Change Point Detection to Hunt for
// Performance Regressions", ICPE 2023). Split: windows of `window` runs, stepping by half a
// window; in each, E-Divisive candidates (the split tau of the largest Q over tau and the end
// kappa, otava/change_point_divisive/calculator.py) are kept while a two-sided Student t-test
// (pooled variance, population standard deviations, as scipy's ttest_ind_from_stats) between
// the split's two sides gives p <= 10 * alpha ("weak" change points). Merge: the weakest point is
// dropped, and its neighbours' p-values recomputed, until every p < alpha and every change is
// larger than min_magnitude. change_points_test.cpp checks this port against Otava 0.8.0's output
// on the same series (testdata/otava_reference.json, written by otava_reference.py).
//
// e_divisive: E-Divisive means (Matteson and James, "A
// Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data", JASA 2014),
// the method Apache Otava (formerly DataStax's Hunter) and MongoDB's
// signal-processing-algorithms run on performance series.
//
// For a segment x[0..n) and a split tau, with X = x[0..tau), Y = x[tau..n), m = tau, k = n - tau:
//   E(X, Y) = 2/(m k) sum |X_i - Y_j| - 2/(m (m-1)) sum_{i<i'} |X_i - X_i'| - 2/(k (k-1)) sum_{j<j'} |Y_j - Y_j'|
//   q(tau)  = m k / n * E(X, Y)
// (alpha = 1: plain absolute differences, so a change of the mean or of the spread both count).
// The split is the tau of the largest q with both sides at least min_size long, so one spike
// is never a change (Otava issue #150). Its significance: a permutation test, the segment
// shuffled `permutations` times (seeded: the same history gives the same answer) and the
// largest q of each shuffle compared; p = (1 + shuffles at least as large) / (1 + permutations).
// A split with p < alpha is kept and both sides are searched again (binary segmentation);
// every pairwise sum comes from a prefix sum over the distance matrix, O(n^2) per pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace c2lab::regressions {

enum class change_method { otava, e_divisive };

struct change_point_config {
    change_method method = change_method::otava;
    double alpha = 0;                  // significance; 0: the method's default (otava 0.001, e_divisive 0.05)
    // otava
    std::size_t window = 50;           // runs per window of the split step
    double min_magnitude = 0;          // smallest relative change kept by the merge step
    // e_divisive
    std::size_t min_size = 3;          // shortest segment on either side of a change
    std::size_t permutations = 199;    // shuffles per test (p is at least 1/(permutations+1))
    std::uint64_t seed = 1;

    double significance() const { return alpha > 0 ? alpha : method == change_method::otava ? 0.001 : 0.05; }
    std::size_t shortest_series() const { return method == change_method::otava ? 3 : 2 * min_size; }
};

// "otava" or "e-divisive"; throws errc::bad_input naming both for anything else.
change_method parse_change_method(const std::string& name);
const char* change_method_name(change_method m);

struct change_point {
    std::size_t index = 0;            // the first value after the change
    double q = 0;                     // the statistic of the split, in its segment (otava: its window)
    double p_value = 1;               // of the t-test (otava) or the permutation test (e_divisive)
    double mean_before = 0, mean_after = 0;  // of the adjacent segments (between neighbouring changes)
    double relative_change() const { return mean_before != 0 ? mean_after / mean_before - 1 : 0; }
};

// The significant change points of x, by index ascending.
std::vector<change_point> find_change_points(std::span<const double> x, const change_point_config& cfg = {});

// Otava's E-Divisive candidate of x[start, end): the tau in (start, end) and kappa in (tau, end]
// of the largest Q(x[start, tau), x[tau, kappa)), ties and all-negative Q resolved as numpy's
// argmax over Otava's matrix does. Exposed for the test against Otava.
struct e_divisive_candidate {
    std::size_t index = 0;
    double q = 0;
};
e_divisive_candidate otava_candidate(std::span<const double> x, std::size_t start, std::size_t end);

// q(tau) of a segment for every tau in [min_size, n - min_size] (index tau - min_size), from the
// prefix sums; the naive definition is in the test, beside it.
std::vector<double> e_divisive_q(std::span<const double> x, std::size_t min_size);

}  // namespace c2lab::regressions

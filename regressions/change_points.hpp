// Change points of a benchmark's history: E-Divisive means (Matteson and James, "A
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
#include <vector>

namespace c2lab::regressions {

struct change_point_config {
    std::size_t min_size = 3;          // shortest segment on either side of a change
    double alpha = 0.05;               // significance of each split
    std::size_t permutations = 199;    // shuffles per test (p is at least 1/(permutations+1))
    std::uint64_t seed = 1;
};

struct change_point {
    std::size_t index = 0;            // the first value after the change
    double q = 0;                     // the statistic of the split, in its segment
    double p_value = 1;               // of the permutation test
    double mean_before = 0, mean_after = 0;  // of the adjacent segments (between neighbouring changes)
    double relative_change() const { return mean_before != 0 ? mean_after / mean_before - 1 : 0; }
};

// The significant change points of x, by index ascending.
std::vector<change_point> find_change_points(std::span<const double> x, const change_point_config& cfg = {});

// q(tau) of a segment for every tau in [min_size, n - min_size] (index tau - min_size), from the
// prefix sums; the naive definition is in the test, beside it.
std::vector<double> e_divisive_q(std::span<const double> x, std::size_t min_size);

}  // namespace c2lab::regressions

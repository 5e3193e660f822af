// E-Divisive means: the prefix-sum statistic against its definition computed naively, and the
// change points of series with known answers (a step the size of the seeds' regressions, two
// steps, a spike, noise alone).
#include "regressions/change_points.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace c2lab::regressions {
namespace {

double gaussian(rng& g) {
    const double u1 = (double(g.next() >> 11) + 0.5) * 0x1.0p-53, u2 = (double(g.next() >> 11) + 0.5) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

// levels: (length, mean) pieces; noise: relative standard deviation.
std::vector<double> series(std::initializer_list<std::pair<std::size_t, double>> levels, double noise, std::uint64_t seed) {
    rng g(seed);
    std::vector<double> x;
    for (const auto& [len, mean] : levels)
        for (std::size_t i = 0; i < len; ++i) x.push_back(mean * (1 + noise * gaussian(g)));
    return x;
}

// q(tau) straight from Matteson and James's definition: three double sums.
double naive_q(const std::vector<double>& x, std::size_t tau) {
    const std::size_t n = x.size();
    double between = 0, wx = 0, wy = 0;
    for (std::size_t i = 0; i < tau; ++i)
        for (std::size_t j = tau; j < n; ++j) between += std::abs(x[i] - x[j]);
    for (std::size_t i = 0; i < tau; ++i)
        for (std::size_t k = i + 1; k < tau; ++k) wx += std::abs(x[i] - x[k]);
    for (std::size_t j = tau; j < n; ++j)
        for (std::size_t k = j + 1; k < n; ++k) wy += std::abs(x[j] - x[k]);
    const double m = double(tau), k = double(n - tau);
    const double e = 2 * between / (m * k) - wx / (m * (m - 1) / 2) - wy / (k * (k - 1) / 2);
    return m * k / double(n) * e;
}

TEST(change_points, prefix_sum_statistic_equals_the_definition) {
    for (std::uint64_t seed : {1, 2, 3}) {
        const auto x = series({{7, 10}, {6, 13}, {8, 9}}, 0.1, seed);
        for (std::size_t min_size : {2, 3, 5}) {
            const auto q = e_divisive_q(x, min_size);
            ASSERT_EQ(q.size(), x.size() - 2 * min_size + 1);
            for (std::size_t k = 0; k < q.size(); ++k)
                EXPECT_NEAR(q[k], naive_q(x, k + min_size), 1e-9 * std::abs(naive_q(x, k + min_size)) + 1e-9)
                    << "seed " << seed << " tau " << k + min_size;
        }
    }
    EXPECT_TRUE(e_divisive_q(std::vector<double>{1, 2, 3}, 2).empty());  // too short for two segments
    EXPECT_THROW(e_divisive_q(std::vector<double>{1, 2, 3, 4}, 1), error);
}

TEST(change_points, a_six_percent_step_is_found_where_it_is) {
    // 1% noise, as a quiet benchmark; the step of one of the seeds' regressions.
    const auto x = series({{40, 100}, {40, 106}}, 0.01, 7);
    const auto cps = find_change_points(x);
    ASSERT_EQ(cps.size(), 1u);
    EXPECT_NEAR(double(cps[0].index), 40, 1);
    EXPECT_NEAR(cps[0].relative_change(), 0.06, 0.01);
    EXPECT_LT(cps[0].p_value, 0.05);
    EXPECT_GT(cps[0].q, 0);
}

TEST(change_points, two_steps_give_two_changes) {
    const auto x = series({{30, 100}, {30, 106}, {30, 100}}, 0.01, 8);
    const auto cps = find_change_points(x);
    ASSERT_EQ(cps.size(), 2u);
    EXPECT_NEAR(double(cps[0].index), 30, 1);
    EXPECT_NEAR(double(cps[1].index), 60, 1);
    EXPECT_GT(cps[0].relative_change(), 0.04);
    EXPECT_LT(cps[1].relative_change(), -0.04);
}

TEST(change_points, one_spike_is_not_a_change) {
    auto x = series({{60, 100}}, 0.01, 9);
    x[30] *= 1.5;
    EXPECT_TRUE(find_change_points(x).empty());
    // Nor two runs of it: the segments must be at least min_size (3) long.
    x[31] *= 1.5;
    EXPECT_TRUE(find_change_points(x).empty());
}

TEST(change_points, noise_alone_rarely_gives_a_change) {
    // alpha 0.05 per search: about 1 in 20 noise series gets a (false) change; 40 series here.
    std::size_t with_change = 0;
    for (std::uint64_t seed = 100; seed < 140; ++seed)
        with_change += !find_change_points(series({{50, 100}}, 0.02, seed)).empty();
    EXPECT_LE(with_change, 6u);
}

TEST(change_points, the_same_series_gives_the_same_answer_and_short_series_none) {
    const auto x = series({{12, 100}, {12, 110}}, 0.02, 10);
    const auto a = find_change_points(x), b = find_change_points(x);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].p_value, b[k].p_value);
    EXPECT_TRUE(find_change_points(std::vector<double>{1, 2, 3, 4, 5}).empty());
    EXPECT_TRUE(find_change_points(std::vector<double>{}).empty());
    change_point_config none;
    none.permutations = 0;
    EXPECT_THROW(find_change_points(x, none), error);
}

}  // namespace
}  // namespace c2lab::regressions

// Change points. otava: the port against Apache Otava's own output on the same series
// (testdata/otava_reference.json). e_divisive: the prefix-sum statistic against its definition
// computed naively, and series with known answers (a step the size of the seeds' regressions,
// two steps, a spike, noise alone); both methods on those.
#include "regressions/change_points.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>

#include <nlohmann/json.hpp>

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

// The three double sums of the definition for X = x[0, tau), Y = x[tau, end): the distances
// between X and Y, and within X and within Y (each pair once).
struct pair_sums {
    double between = 0, within_x = 0, within_y = 0;
};
pair_sums naive_sums(const std::vector<double>& x, std::size_t tau, std::size_t end) {
    pair_sums s;
    for (std::size_t i = 0; i < tau; ++i)
        for (std::size_t j = tau; j < end; ++j) s.between += std::abs(x[i] - x[j]);
    for (std::size_t i = 0; i < tau; ++i)
        for (std::size_t k = i + 1; k < tau; ++k) s.within_x += std::abs(x[i] - x[k]);
    for (std::size_t j = tau; j < end; ++j)
        for (std::size_t k = j + 1; k < end; ++k) s.within_y += std::abs(x[j] - x[k]);
    return s;
}

// q(tau) straight from Matteson and James's definition.
double naive_q(const std::vector<double>& x, std::size_t tau) {
    const std::size_t n = x.size();
    const pair_sums s = naive_sums(x, tau, n);
    const double m = double(tau), k = double(n - tau);
    const double e = 2 * s.between / (m * k) - s.within_x / (m * (m - 1) / 2) - s.within_y / (k * (k - 1) / 2);
    return m * k / double(n) * e;
}

change_point_config e_divisive() {
    change_point_config c;
    c.method = change_method::e_divisive;
    return c;
}

// Equal to 1e-9 relative, or both below 1e-12 (p-values of 0 and 1e-300 are the same verdict).
::testing::AssertionResult close(double got, double want) {
    if (std::abs(got - want) <= 1e-9 * std::abs(want) || (std::abs(got) < 1e-12 && std::abs(want) < 1e-12))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << got << " != " << want;
}

TEST(change_points, otava_port_equals_apache_otava_on_the_same_series) {
    std::ifstream in(C2LAB_SOURCE_DIR "/regressions/testdata/otava_reference.json");
    ASSERT_TRUE(in) << "regressions/testdata/otava_reference.json";
    const nlohmann::json ref = nlohmann::json::parse(in);
    ASSERT_EQ(ref.at("window_len").get<std::size_t>(), change_point_config{}.window);
    ASSERT_EQ(ref.at("max_pvalue").get<double>(), change_point_config{}.significance());
    std::size_t points = 0;
    for (const auto& c : ref.at("cases")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const auto x = c.at("series").get<std::vector<double>>();
        const e_divisive_candidate cand = otava_candidate(x, 0, x.size());
        EXPECT_EQ(cand.index, c.at("candidate").at("index").get<std::size_t>());
        EXPECT_TRUE(close(cand.q, c.at("candidate").at("qhat").get<double>()));
        const auto got = find_change_points(x);
        const auto& want = c.at("change_points");
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t k = 0; k < got.size(); ++k, ++points) {
            EXPECT_EQ(got[k].index, want[k].at("index").get<std::size_t>());
            EXPECT_TRUE(close(got[k].q, want[k].at("qhat").get<double>()));
            EXPECT_TRUE(close(got[k].p_value, want[k].at("pvalue").get<double>()));
            EXPECT_TRUE(close(got[k].mean_before, want[k].at("mean_before").get<double>()));
            EXPECT_TRUE(close(got[k].mean_after, want[k].at("mean_after").get<double>()));
        }
    }
    EXPECT_GE(points, 10u);  // the fixture has changes to compare, not only empty answers
}

TEST(change_points, otava_candidate_maximises_q_over_the_split_and_the_end) {
    // Q(tau, kappa) from the definition, three double sums, against the candidate's value.
    const auto x = series({{9, 10}, {7, 13}, {6, 9}}, 0.1, 4);
    double best = -1;
    std::size_t best_tau = 0;
    for (std::size_t tau = 1; tau < x.size(); ++tau)
        for (std::size_t kappa = tau + 1; kappa <= x.size(); ++kappa) {
            const pair_sums s = naive_sums(x, tau, kappa);
            const double nx = double(tau), ny = double(kappa - tau);
            double q = 2 / (nx + ny) * s.between;
            if (nx > 1) q -= 2 * ny / ((nx + ny) * (nx - 1)) * s.within_x;
            if (ny > 1) q -= 2 * nx / ((nx + ny) * (ny - 1)) * s.within_y;
            if (q > best) best = q, best_tau = tau;
        }
    const e_divisive_candidate c = otava_candidate(x, 0, x.size());
    EXPECT_EQ(c.index, best_tau);
    EXPECT_TRUE(close(c.q, best));
    EXPECT_THROW(otava_candidate(x, 3, 4), error);
}

TEST(change_points, methods_by_name) {
    EXPECT_EQ(parse_change_method("otava"), change_method::otava);
    EXPECT_EQ(parse_change_method("e-divisive"), change_method::e_divisive);
    EXPECT_STREQ(change_method_name(change_method::e_divisive), "e-divisive");
    try {
        parse_change_method("pelt");
        ADD_FAILURE() << "no error";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("'pelt' (otava or e-divisive)"), std::string::npos) << e.what();
    }
    change_point_config bad;
    bad.alpha = 1.5;
    EXPECT_THROW(find_change_points(std::vector<double>{1, 2, 3}, bad), error);
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
    for (const change_point_config& cfg : {change_point_config{}, e_divisive()}) {
        const auto cps = find_change_points(x, cfg);
        ASSERT_EQ(cps.size(), 1u) << change_method_name(cfg.method);
        EXPECT_NEAR(double(cps[0].index), 40, 1);
        EXPECT_NEAR(cps[0].relative_change(), 0.06, 0.01);
        EXPECT_LT(cps[0].p_value, cfg.significance());
        EXPECT_GT(cps[0].q, 0);
    }
}

TEST(change_points, two_steps_give_two_changes) {
    const auto x = series({{30, 100}, {30, 106}, {30, 100}}, 0.01, 8);
    for (const change_point_config& cfg : {change_point_config{}, e_divisive()}) {
        const auto cps = find_change_points(x, cfg);
        ASSERT_EQ(cps.size(), 2u) << change_method_name(cfg.method);
        EXPECT_NEAR(double(cps[0].index), 30, 1);
        EXPECT_NEAR(double(cps[1].index), 60, 1);
        EXPECT_GT(cps[0].relative_change(), 0.04);
        EXPECT_LT(cps[1].relative_change(), -0.04);
    }
}

TEST(change_points, one_spike_is_not_a_change) {
    auto x = series({{60, 100}}, 0.01, 9);
    x[30] *= 1.5;
    EXPECT_TRUE(find_change_points(x, e_divisive()).empty());
    EXPECT_TRUE(find_change_points(x).empty());  // otava: the t-test of either side does not reject
    // Nor two runs of it: the segments must be at least min_size (3) long.
    x[31] *= 1.5;
    EXPECT_TRUE(find_change_points(x, e_divisive()).empty());
}

TEST(change_points, noise_alone_rarely_gives_a_change) {
    // alpha 0.05 per search: about 1 in 20 noise series gets a (false) change; 40 series here.
    std::size_t with_change = 0;
    std::size_t otava_with_change = 0;
    for (std::uint64_t seed = 100; seed < 140; ++seed) {
        with_change += !find_change_points(series({{50, 100}}, 0.02, seed), e_divisive()).empty();
        otava_with_change += !find_change_points(series({{50, 100}}, 0.02, seed)).empty();
    }
    EXPECT_LE(with_change, 6u);
    EXPECT_LE(otava_with_change, 2u);  // p <= 0.001 after the merge
}

TEST(change_points, the_same_series_gives_the_same_answer_and_short_series_none) {
    const auto x = series({{12, 100}, {12, 110}}, 0.02, 10);
    const auto a = find_change_points(x, e_divisive()), b = find_change_points(x, e_divisive());
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].p_value, b[k].p_value);
    EXPECT_TRUE(find_change_points(std::vector<double>{1, 2, 3, 4, 5}, e_divisive()).empty());
    EXPECT_TRUE(find_change_points(std::vector<double>{}, e_divisive()).empty());
    EXPECT_TRUE(find_change_points(std::vector<double>{}).empty());
    EXPECT_TRUE(find_change_points(std::vector<double>{4}).empty());
    change_point_config none = e_divisive();
    none.permutations = 0;
    EXPECT_THROW(find_change_points(x, none), error);
}

}  // namespace
}  // namespace c2lab::regressions

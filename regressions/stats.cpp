#include "regressions/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace c2lab::regressions {

namespace {

[[noreturn]] void refuse(const std::string& message) {
    throw error(errc::bad_input, message);
}

void check_sample(std::span<const double> values, const char* what) {
    if (values.empty()) refuse(std::string(what) + ": empty sample");
    for (double v : values)
        if (!std::isfinite(v)) refuse(std::string(what) + ": sample holds a NaN or infinite value");
}

// Median of a scratch buffer, reordering it.
double median_inplace(std::span<double> v) {
    const std::size_t n = v.size();
    const std::size_t mid = n / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double upper = v[mid];
    if (n % 2 == 1) return upper;
    const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return lower + (upper - lower) / 2;
}

double quantile_sorted(std::span<const double> sorted, double q) {
    const double h = static_cast<double>(sorted.size() - 1) * q;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    if (lo + 1 >= sorted.size()) return sorted.back();
    return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

// counts[u] = number of orderings of nx x's and ny y's (all distinct) with U_x = u.
// f(i, j) from f(i - 1, j) shifted by j (the largest value is an x: it beats all j y's)
// plus f(i, j - 1) (the largest is a y). Exact in double: C(40, 20) < 2^53.
std::vector<double> u_distribution(std::size_t nx, std::size_t ny) {
    // row[j] = f(i, j) for the current i.
    std::vector<std::vector<double>> row(ny + 1);
    for (std::size_t j = 0; j <= ny; ++j) row[j] = {1.0};  // f(0, j): U = 0 only
    for (std::size_t i = 1; i <= nx; ++i) {
        std::vector<std::vector<double>> next(ny + 1);
        next[0] = {1.0};  // f(i, 0)
        for (std::size_t j = 1; j <= ny; ++j) {
            std::vector<double> f(i * j + 1, 0.0);
            for (std::size_t u = 0; u < row[j].size(); ++u) f[u + j] += row[j][u];
            for (std::size_t u = 0; u < next[j - 1].size(); ++u) f[u] += next[j - 1][u];
            next[j] = std::move(f);
        }
        row = std::move(next);
    }
    return row[ny];
}

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

void check_p_values(std::span<const double> p) {
    for (double v : p)
        if (!(v >= 0.0 && v <= 1.0)) refuse("p-value adjustment: a p-value outside [0, 1] (or NaN)");
}

std::vector<std::size_t> ascending_order(std::span<const double> p) {
    std::vector<std::size_t> order(p.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
    return order;
}

}  // namespace

double median(std::span<const double> values) {
    check_sample(values, "median");
    std::vector<double> copy(values.begin(), values.end());
    return median_inplace(copy);
}

double quantile(std::span<const double> values, double q) {
    check_sample(values, "quantile");
    if (!(q >= 0.0 && q <= 1.0)) refuse("quantile: q must lie in [0, 1]");
    std::vector<double> copy(values.begin(), values.end());
    std::sort(copy.begin(), copy.end());
    return quantile_sorted(copy, q);
}

mann_whitney_result mann_whitney_u(std::span<const double> x, std::span<const double> y) {
    check_sample(x, "Mann-Whitney U (first sample)");
    check_sample(y, "Mann-Whitney U (second sample)");
    const std::size_t nx = x.size(), ny = y.size(), n = nx + ny;

    // Average ranks over the combined sample; the tie term sum(t^3 - t).
    std::vector<std::pair<double, bool>> all;  // value, from x
    all.reserve(n);
    for (double v : x) all.emplace_back(v, true);
    for (double v : y) all.emplace_back(v, false);
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    double rank_sum_x = 0, tie_term = 0;
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j < n && all[j].first == all[i].first) ++j;
        const double t = static_cast<double>(j - i);
        const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ranks i+1..j
        for (std::size_t k = i; k < j; ++k)
            if (all[k].second) rank_sum_x += avg_rank;
        tie_term += t * t * t - t;
        i = j;
    }
    const double dnx = static_cast<double>(nx), dny = static_cast<double>(ny), dn = static_cast<double>(n);
    const double u = rank_sum_x - dnx * (dnx + 1) / 2;
    const double mn = dnx * dny;

    if (nx <= 20 && ny <= 20 && tie_term == 0) {
        const std::vector<double> counts = u_distribution(nx, ny);
        const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
        const auto u_min = static_cast<std::size_t>(std::llround(std::min(u, mn - u)));
        double tail = 0;
        for (std::size_t k = 0; k <= u_min; ++k) tail += counts[k];
        return {u, std::min(1.0, 2 * tail / total), true};
    }

    const double variance = mn / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
    if (!(variance > 0)) return {u, 1.0, false};  // every value equal
    const double z = (std::abs(u - mn / 2) - 0.5) / std::sqrt(variance);
    return {u, std::min(1.0, 2 * normal_sf(z)), false};
}

ratio_ci bootstrap_ratio_ci(std::span<const double> baseline, std::span<const double> current,
                            std::size_t resamples, double level, uint64_t seed) {
    check_sample(baseline, "bootstrap (baseline)");
    check_sample(current, "bootstrap (current)");
    for (double v : baseline)
        if (!(v > 0)) refuse("bootstrap: baseline values must be > 0 for a ratio of medians");
    for (double v : current)
        if (!(v > 0)) refuse("bootstrap: current values must be > 0 for a ratio of medians");
    if (resamples == 0) refuse("bootstrap: resamples must be >= 1");
    if (!(level > 0 && level < 1)) refuse("bootstrap: level must lie in (0, 1)");

    ratio_ci out{};
    out.ratio = median(current) / median(baseline);

    rng gen(seed);
    std::vector<double> b(baseline.size()), c(current.size()), ratios(resamples);
    for (std::size_t r = 0; r < resamples; ++r) {
        for (auto& v : b) v = baseline[gen.below(baseline.size())];
        for (auto& v : c) v = current[gen.below(current.size())];
        ratios[r] = median_inplace(c) / median_inplace(b);
    }
    std::sort(ratios.begin(), ratios.end());
    out.lo = quantile_sorted(ratios, (1 - level) / 2);
    out.hi = quantile_sorted(ratios, (1 + level) / 2);
    return out;
}

std::vector<double> holm_adjust(std::span<const double> p_values) {
    check_p_values(p_values);
    const std::size_t m = p_values.size();
    const auto order = ascending_order(p_values);
    std::vector<double> adjusted(m);
    double running_max = 0;
    for (std::size_t k = 0; k < m; ++k) {  // k = j - 1
        const double v = std::min(1.0, static_cast<double>(m - k) * p_values[order[k]]);
        running_max = std::max(running_max, v);
        adjusted[order[k]] = running_max;
    }
    return adjusted;
}

std::vector<double> benjamini_hochberg_adjust(std::span<const double> p_values) {
    check_p_values(p_values);
    const std::size_t m = p_values.size();
    const auto order = ascending_order(p_values);
    std::vector<double> adjusted(m);
    double running_min = 1;
    for (std::size_t k = m; k-- > 0;) {  // rank j = k + 1
        const double v = std::min(1.0, static_cast<double>(m) * p_values[order[k]] / static_cast<double>(k + 1));
        running_min = std::min(running_min, v);
        adjusted[order[k]] = running_min;
    }
    return adjusted;
}

std::vector<double> adjust(std::span<const double> p_values, adjustment method) {
    switch (method) {
        case adjustment::holm: return holm_adjust(p_values);
        case adjustment::benjamini_hochberg: return benjamini_hochberg_adjust(p_values);
        case adjustment::none: break;
    }
    check_p_values(p_values);
    return {p_values.begin(), p_values.end()};
}

std::string_view to_string(verdict v) noexcept {
    switch (v) {
        case verdict::regressed: return "regressed";
        case verdict::improved: return "improved";
        case verdict::equivalent: return "equivalent";
        case verdict::inconclusive: return "inconclusive";
    }
    return "inconclusive";
}

verdict decide(double p_adjusted, const ratio_ci& ci, const verdict_options& options) {
    if (!(p_adjusted >= 0 && p_adjusted <= 1)) refuse("verdict: p-value outside [0, 1] (or NaN)");
    if (!(options.alpha > 0 && options.alpha < 1)) refuse("verdict: alpha must lie in (0, 1)");
    if (!(options.margin >= 0 && options.margin < 1)) refuse("verdict: margin must lie in [0, 1)");
    if (!(std::isfinite(ci.lo) && std::isfinite(ci.hi) && ci.lo <= ci.hi))
        refuse("verdict: confidence interval must be finite with lo <= hi");
    const double up = 1 + options.margin, down = 1 - options.margin;
    const bool significant = p_adjusted < options.alpha;
    const bool above = ci.lo > up, below = ci.hi < down;
    const bool worse = options.dir == direction::lower_is_better ? above : below;
    const bool better = options.dir == direction::lower_is_better ? below : above;
    if (significant && worse) return verdict::regressed;
    if (significant && better) return verdict::improved;
    if (ci.lo >= down && ci.hi <= up) return verdict::equivalent;
    return verdict::inconclusive;
}

comparison compare_samples(std::span<const double> baseline, std::span<const double> current,
                           const compare_options& options) {
    comparison out;
    out.n_base = baseline.size();
    out.n_cur = current.size();
    out.ci = bootstrap_ratio_ci(baseline, current, options.resamples, options.level, options.seed);
    out.median_base = median(baseline);
    out.median_cur = median(current);
    const auto mw = mann_whitney_u(current, baseline);
    out.u = mw.u;
    out.p = mw.p_value;
    out.exact = mw.exact;
    out.p_adjusted = mw.p_value;
    out.result = decide(out.p_adjusted, out.ci, options.decision);
    return out;
}

void adjust_comparisons(std::span<comparison> comparisons, adjustment method, const verdict_options& options) {
    std::vector<double> p(comparisons.size());
    for (std::size_t i = 0; i < comparisons.size(); ++i) p[i] = comparisons[i].p;
    const auto adjusted = adjust(p, method);
    for (std::size_t i = 0; i < comparisons.size(); ++i) {
        comparisons[i].p_adjusted = adjusted[i];
        comparisons[i].result = decide(adjusted[i], comparisons[i].ci, options);
    }
}

}  // namespace c2lab::regressions

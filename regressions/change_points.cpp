#include "regressions/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace c2lab::regressions {

namespace {

// 2D prefix sums of |x_i - x_j|: rect(a, b, c, d) = sum over i in [a, b), j in [c, d).
class distance_sums {
public:
    explicit distance_sums(std::span<const double> x) : n_(x.size()), s_((n_ + 1) * (n_ + 1), 0.0) {
        for (std::size_t i = 0; i < n_; ++i)
            for (std::size_t j = 0; j < n_; ++j)
                at(i + 1, j + 1) = std::abs(x[i] - x[j]) + at(i, j + 1) + at(i + 1, j) - at(i, j);
    }
    double rect(std::size_t a, std::size_t b, std::size_t c, std::size_t d) const {
        return at(b, d) - at(a, d) - at(b, c) + at(a, c);
    }

private:
    double& at(std::size_t i, std::size_t j) { return s_[i * (n_ + 1) + j]; }
    double at(std::size_t i, std::size_t j) const { return s_[i * (n_ + 1) + j]; }
    std::size_t n_;
    std::vector<double> s_;
};

struct best_split {
    std::size_t tau = 0;
    double q = -1;
};

best_split best_of(std::span<const double> x, std::size_t min_size) {
    const std::vector<double> q = e_divisive_q(x, min_size);
    best_split b;
    for (std::size_t k = 0; k < q.size(); ++k)
        if (q[k] > b.q) b = {k + min_size, q[k]};
    return b;
}

double mean(std::span<const double> x) { return x.empty() ? 0 : std::accumulate(x.begin(), x.end(), 0.0) / double(x.size()); }

}  // namespace

std::vector<double> e_divisive_q(std::span<const double> x, std::size_t min_size) {
    const std::size_t n = x.size();
    if (min_size < 2) throw error(errc::bad_input, "change points: the minimum segment length must be at least 2");
    std::vector<double> out;
    if (n < 2 * min_size) return out;
    const distance_sums d(x);
    for (std::size_t tau = min_size; tau + min_size <= n; ++tau) {
        const double m = double(tau), k = double(n - tau);
        const double between = d.rect(0, tau, tau, n);
        const double within_x = d.rect(0, tau, 0, tau) / 2;  // each pair counted twice in the square
        const double within_y = d.rect(tau, n, tau, n) / 2;
        const double e = 2 * between / (m * k) - 2 * within_x / (m * (m - 1)) - 2 * within_y / (k * (k - 1));
        out.push_back(m * k / double(n) * e);
    }
    return out;
}

namespace {

// ---- otava ---------------------------------------------------------------------------------

// Otava's candidate of [start, end) from the distance sums of the whole series (otava_candidate).
e_divisive_candidate candidate_of(const distance_sums& d, std::size_t start, std::size_t end) {
    // Q[i][j] = Q(tau = start + 1 + i, kappa = start + 2 + j) for j >= i, 0 below the diagonal, as
    // Otava's matrix A - B - C; the first largest in row-major order wins, as numpy's argmax.
    const std::size_t len = end - start - 1;
    e_divisive_candidate best{start + 1, 0};
    bool first = true;
    for (std::size_t i = 0; i < len; ++i) {
        const std::size_t tau = start + 1 + i;
        for (std::size_t j = 0; j < len; ++j) {
            double q = 0;
            if (j >= i) {
                const std::size_t kappa = start + 2 + j;
                const double nx = double(tau - start), ny = double(kappa - tau);
                q = 2 / (nx + ny) * d.rect(start, tau, tau, kappa);
                if (nx > 1) q -= 2 * ny / ((nx + ny) * (nx - 1)) * d.rect(start, tau, start, tau) / 2;
                if (ny > 1) q -= 2 * nx / ((nx + ny) * (ny - 1)) * d.rect(tau, kappa, tau, kappa) / 2;
            }
            if (first || q > best.q) best = {tau, q};
            first = false;
        }
    }
    return best;
}

// A t-tested split: the change point at `index` between x[lo, index) and x[index, hi).
struct tested_point {
    std::size_t index = 0;
    double q = 0;
    double p = 1, mean_1 = 0, mean_2 = 0;
    double magnitude() const {  // TTestStats.change_magnitude: the larger of both relative changes
        const double fwd = mean_1 != 0 ? mean_2 / mean_1 - 1 : 0, bwd = mean_2 != 0 ? mean_1 / mean_2 - 1 : 0;
        return std::max(std::abs(fwd), std::abs(bwd));
    }
};

// Two-sided Student t-test of two samples from their means and population standard deviations
// (scipy.stats.ttest_ind_from_stats, equal_var=True, as Otava's TTestSignificanceTester.compare).
void t_test(std::span<const double> l, std::span<const double> r, tested_point& out) {
    const auto stats = [](std::span<const double> v, double& m, double& sd) {
        m = mean(v);
        double ss = 0;
        for (double e : v) ss += (e - m) * (e - m);
        sd = v.size() >= 2 ? std::sqrt(ss / double(v.size())) : 0.0;
    };
    double sd1 = 0, sd2 = 0;
    stats(l, out.mean_1, sd1);
    stats(r, out.mean_2, sd2);
    const double n1 = double(l.size()), n2 = double(r.size());
    if (l.size() + r.size() <= 2) {
        out.p = 1;
        return;
    }
    const double df = n1 + n2 - 2;
    const double pooled = ((n1 - 1) * sd1 * sd1 + (n2 - 1) * sd2 * sd2) / df;
    const double denom = std::sqrt(pooled * (1 / n1 + 1 / n2));
    const double diff = out.mean_1 - out.mean_2;
    if (denom == 0) {  // scipy: t = +-inf gives p = 0, t = nan (no difference) gives p = nan
        out.p = diff != 0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
        return;
    }
    const boost::math::students_t dist(df);
    out.p = 2 * boost::math::cdf(boost::math::complement(dist, std::abs(diff / denom)));
}

// The segments between sorted change points, [begin, end), empty ones left out
// (SignificanceTester.get_intervals).
std::vector<std::pair<std::size_t, std::size_t>> intervals_of(const std::vector<tested_point>& cps, std::size_t n) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = 0; i <= cps.size(); ++i) {
        const std::size_t b = i == 0 ? 0 : cps[i - 1].index, e = i == cps.size() ? n : cps[i].index;
        if (b != e) out.push_back({b, e});
    }
    return out;
}

// TTestSignificanceTester.change_point: the sides of a new split (inside a segment) or of an
// existing change point (the end of one segment).
tested_point test_point(std::size_t index, double q, std::span<const double> x,
                        const std::vector<std::pair<std::size_t, std::size_t>>& iv) {
    tested_point t{index, q};
    for (std::size_t i = 0; i < iv.size(); ++i) {
        const auto [lo, hi] = iv[i];
        // The right side ends with the next segment (an existing point) or with this one (a split).
        const bool existing = hi == index && i + 1 < iv.size(), split = lo < index && index < hi;
        if (!existing && !split) continue;
        const std::size_t end = existing ? iv[i + 1].second : hi;
        t_test(x.subspan(lo, index - lo), x.subspan(index, end - index), t);
        return t;
    }
    throw error(errc::internal, "change points: a candidate outside every segment");
}

// ChangePointDetector.get_change_points over x[start, end) with a t-test at max_p: the window's
// candidates in order of their Q while each is significant.
std::vector<tested_point> window_change_points(std::span<const double> x, std::size_t start, std::size_t end, double max_p) {
    const std::span<const double> w = x.subspan(start, end - start);
    const distance_sums d(w);  // once per window, as Otava's calculator
    std::vector<tested_point> cps;
    for (;;) {
        const auto iv = intervals_of(cps, w.size());
        bool any = false;
        e_divisive_candidate best;
        for (const auto& [b, e] : iv) {
            if (e - b <= 1) continue;
            const e_divisive_candidate c = candidate_of(d, b, e);
            if (!any || c.q > best.q) best = c;  // Python's max: the first of equal ones
            any = true;
        }
        if (!any) break;
        const tested_point t = test_point(best.index, best.q, w, iv);
        if (!(t.p <= max_p)) break;
        cps.push_back(t);
        std::sort(cps.begin(), cps.end(), [](const auto& l, const auto& r) { return l.index < r.index; });
    }
    for (auto& c : cps) c.index += start;
    return cps;
}

std::vector<tested_point> otava_change_points(std::span<const double> x, const change_point_config& cfg) {
    if (cfg.window < 2) throw error(errc::bad_input, "change points: the window must be at least 2 runs");
    const double max_p = cfg.significance();
    const double first_pass = max_p < 0.05 ? max_p * 10 : max_p < 0.5 ? max_p * 2 : max_p;
    // Split: the weak change points of every window.
    std::vector<tested_point> cps;
    const std::size_t step = cfg.window / 2;
    for (std::size_t start = 0; start < x.size();) {
        const std::size_t end = std::min(start + cfg.window, x.size());
        const std::vector<tested_point> found = window_change_points(x, start, end, first_pass);
        start = std::max(found.empty() ? std::size_t(0) : found.back().index, start + step);
        for (const auto& c : found)
            if (std::none_of(cps.begin(), cps.end(), [&](const auto& o) { return o.index == c.index; })) cps.push_back(c);
    }
    std::sort(cps.begin(), cps.end(), [](const auto& l, const auto& r) { return l.index < r.index; });
    {
        const auto iv = intervals_of(cps, x.size());
        for (auto& c : cps) c = test_point(c.index, c.q, x, iv);
    }
    // Merge: drop the weakest until every point is significant and large enough.
    while (!cps.empty()) {
        std::size_t weakest = 0;
        for (std::size_t i = 1; i < cps.size(); ++i)  // Python's max(key=p): NaN never replaces, never is replaced
            if (cps[i].p > cps[weakest].p) weakest = i;
        if (cps[weakest].p < max_p) {
            weakest = 0;
            for (std::size_t i = 1; i < cps.size(); ++i)
                if (cps[i].magnitude() < cps[weakest].magnitude()) weakest = i;
            if (cps[weakest].magnitude() > cfg.min_magnitude) break;
        }
        cps.erase(cps.begin() + std::ptrdiff_t(weakest));
        const auto iv = intervals_of(cps, x.size());
        // Otava recomputes the points now at `weakest` and `weakest + 1` (otava/analysis.py merge).
        for (std::size_t i : {weakest, weakest + 1})
            if (i < cps.size()) cps[i] = test_point(cps[i].index, cps[i].q, x, iv);
    }
    return cps;
}

// ---- e_divisive ----------------------------------------------------------------------------

std::vector<change_point> e_divisive_change_points(std::span<const double> x, const change_point_config& cfg) {
    if (cfg.permutations == 0) throw error(errc::bad_input, "change points: at least one permutation is needed");
    rng gen(cfg.seed);
    std::vector<change_point> found;
    // Binary segmentation: segments still to search, as [begin, end).
    std::vector<std::pair<std::size_t, std::size_t>> todo{{0, x.size()}};
    std::vector<double> shuffled;
    while (!todo.empty()) {
        const auto [b, e] = todo.back();
        todo.pop_back();
        const std::span<const double> seg = x.subspan(b, e - b);
        const best_split best = best_of(seg, cfg.min_size);
        if (best.q < 0) continue;  // too short to split
        std::size_t at_least = 0;
        shuffled.assign(seg.begin(), seg.end());
        for (std::size_t p = 0; p < cfg.permutations; ++p) {
            for (std::size_t i = shuffled.size() - 1; i > 0; --i)  // Fisher-Yates
                std::swap(shuffled[i], shuffled[gen.next() % (i + 1)]);
            if (best_of(shuffled, cfg.min_size).q >= best.q) ++at_least;
        }
        const double p_value = double(1 + at_least) / double(1 + cfg.permutations);
        if (p_value >= cfg.significance()) continue;
        found.push_back({b + best.tau, best.q, p_value, 0, 0});
        todo.push_back({b, b + best.tau});
        todo.push_back({b + best.tau, e});
    }
    std::sort(found.begin(), found.end(), [](const auto& l, const auto& r) { return l.index < r.index; });
    for (std::size_t k = 0; k < found.size(); ++k) {
        const std::size_t lo = k == 0 ? 0 : found[k - 1].index;
        const std::size_t hi = k + 1 == found.size() ? x.size() : found[k + 1].index;
        found[k].mean_before = mean(x.subspan(lo, found[k].index - lo));
        found[k].mean_after = mean(x.subspan(found[k].index, hi - found[k].index));
    }
    return found;
}

}  // namespace

change_method parse_change_method(const std::string& name) {
    if (name == "otava") return change_method::otava;
    if (name == "e-divisive") return change_method::e_divisive;
    throw error(errc::bad_input, "change points: unknown method '" + name + "' (otava or e-divisive)");
}

const char* change_method_name(change_method m) { return m == change_method::otava ? "otava" : "e-divisive"; }

e_divisive_candidate otava_candidate(std::span<const double> x, std::size_t start, std::size_t end) {
    if (end > x.size() || end - start < 2 || start >= end)
        throw error(errc::bad_input, "change points: a candidate needs a segment of at least 2 values");
    return candidate_of(distance_sums(x), start, end);
}

std::vector<change_point> find_change_points(std::span<const double> x, const change_point_config& cfg) {
    if (!(cfg.significance() > 0 && cfg.significance() < 1))
        throw error(errc::bad_input, "change points: the significance level must be in (0, 1)");
    if (cfg.method == change_method::e_divisive) return e_divisive_change_points(x, cfg);
    std::vector<change_point> out;
    for (const tested_point& t : otava_change_points(x, cfg)) out.push_back({t.index, t.q, t.p, t.mean_1, t.mean_2});
    return out;
}

}  // namespace c2lab::regressions

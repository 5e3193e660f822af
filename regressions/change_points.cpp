#include "regressions/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

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

std::vector<change_point> find_change_points(std::span<const double> x, const change_point_config& cfg) {
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
        if (p_value >= cfg.alpha) continue;
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

}  // namespace c2lab::regressions

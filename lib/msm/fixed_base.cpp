#include "msm/fixed_base.hpp"

#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "ff/ifma.hpp"
#include "msm/batch_affine.hpp"

namespace c2lab::msm {

namespace {

constexpr unsigned scalar_bits = 255;

// Signed digits of k for window w: d_i in [-(2^(w-1) - 1), 2^(w-1)], sum_i d_i 2^(w i) = k
// (the same recoding as pippenger.cpp, digit by digit with an explicit carry).
template <class F>
void for_each_digit(const ff::fr& s, unsigned w, unsigned windows, F&& f) {
    auto k = s.to_canonical();
    const uint64_t half = uint64_t{1} << (w - 1), mask = (uint64_t{1} << w) - 1;
    uint64_t carry = 0;
    for (unsigned i = 0; i < windows; ++i) {
        unsigned shift = i * w, limb = shift / 64, off = shift % 64;
        uint64_t v = limb < 4 ? k[limb] >> off : 0;
        if (off + w > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
        v = (v & mask) + carry;
        int64_t d = static_cast<int64_t>(v);
        carry = 0;
        if (v > half) {
            d -= static_cast<int64_t>(uint64_t{1} << w);
            carry = 1;
        }
        f(i, d);
    }
}

// out[k] = [ks[k]] B for one block, window by window: every accumulator whose digit is nonzero
// adds its window's table point, and all of a window's additions are one batched affine addition
// (ff::affine_add_batch: one inversion for the block by Montgomery's trick, about 6M a point,
// against 7M + 4S for a mixed jacobian addition and 7M more per point for the conversion to
// affine at the end). The accumulators stay affine, so the products need no conversion. An
// accumulator with the x of the point it adds (P + P or P - P, which the partial sums of canonical
// scalars never reach, but a wrong answer is not an option) takes the jacobian formula alone.
template <class C>
void mul_block_affine(std::span<const ec::affine<C>> table, unsigned w, unsigned windows,
                      std::span<const ff::fr> ks, std::span<ec::affine<C>> out) {
    using field = typename C::field;
    const size_t n = ks.size(), per = size_t{1} << (w - 1);
    std::vector<int32_t> digits(size_t{windows} * n);
    for (size_t k = 0; k < n; ++k)
        for_each_digit(ks[k], w, windows, [&](unsigned i, int64_t d) { digits[i * n + k] = static_cast<int32_t>(d); });
    std::vector<uint8_t> live(n, 0);  // out[k] holds a point other than the identity
    std::vector<field> x1, y1, x2, y2;
    std::vector<uint8_t> negate;
    std::vector<uint32_t> which;
    for (auto* v : {&x1, &y1, &x2, &y2}) v->reserve(n);
    negate.reserve(n);
    which.reserve(n);
    for (size_t k = 0; k < n; ++k) out[k] = ec::affine<C>::identity();
    for (unsigned i = 0; i < windows; ++i) {
        x1.clear(), y1.clear(), x2.clear(), y2.clear(), negate.clear(), which.clear();
        // The table point of the accumulator `ahead` places on, prefetched: the window's 2^(w-1)
        // points (3 MB for G1 at w = 16) are read at random, and that load was 41% of this
        // loop's samples (perf, 2 KiB setup, family-23 EPYC).
        constexpr size_t ahead = 8;
        const int32_t* const dw = digits.data() + i * n;
        // The table point of digit d (nonzero): [|d| 2^(w i)] B.
        auto point_of = [&](int32_t d) -> const ec::affine<C>& {
            return table[i * per + static_cast<size_t>(d > 0 ? d - 1 : -d - 1)];
        };
        for (size_t k = 0; k < n; ++k) {
            if (const int32_t da = k + ahead < n ? dw[k + ahead] : 0; da != 0) {
                const char* at = reinterpret_cast<const char*>(&point_of(da));
                __builtin_prefetch(at);
                __builtin_prefetch(at + sizeof(ec::affine<C>) - 1);
            }
            const int32_t d = dw[k];
            if (d == 0) continue;
            const ec::affine<C>& t = point_of(d);
            if (t.is_identity()) continue;  // the identity as base
            if (!live[k]) {
                out[k] = d > 0 ? t : -t;
                live[k] = 1;
            } else if (out[k].x == t.x) {
                out[k] = (out[k].to_jacobian() + (d > 0 ? t : -t)).to_affine();
                live[k] = !out[k].is_identity();
            } else {
                which.push_back(static_cast<uint32_t>(k));
                x1.push_back(out[k].x), y1.push_back(out[k].y), x2.push_back(t.x), y2.push_back(t.y);
                negate.push_back(d < 0);
            }
        }
        if (which.empty()) continue;
        ff::affine_add_batch(ff::default_batch_path(), std::span<field>(x1), std::span<field>(y1),
                             std::span<const field>(x2), std::span<const field>(y2), std::span<const uint8_t>(negate));
        for (size_t j = 0; j < which.size(); ++j) out[which[j]] = {x1[j], y1[j]};
    }
}

}  // namespace

template <class C>
fixed_base_table<C>::fixed_base_table(const ec::jacobian<C>& base, unsigned window_bits, unsigned threads)
    : base_(base), w_(window_bits), windows_(0) {
    if (window_bits < 1 || window_bits > max_window_bits)
        throw error(errc::bad_input, "fixed_base_table: window bits " + std::to_string(window_bits) +
                                         " outside 1.." + std::to_string(max_window_bits));
    windows_ = scalar_bits / w_ + 1;
    const size_t per = size_t{1} << (w_ - 1);
    // Window bases [2^(w i)] B: w doublings each, sequential (255 + w doublings in all).
    std::vector<ec::jacobian<C>> starts(windows_);
    starts[0] = base;
    for (unsigned i = 1; i < windows_; ++i) {
        starts[i] = starts[i - 1];
        for (unsigned b = 0; b < w_; ++b) starts[i] = starts[i].dbl();
    }
    std::vector<ec::jacobian<C>> jac(windows_ * per);
    table_.resize(windows_ * per);
    parallel::in_arena(threads, [&] {
        tbb::parallel_for(tbb::blocked_range<size_t>(0, windows_, 1), [&](const tbb::blocked_range<size_t>& r) {
            for (size_t i = r.begin(); i < r.end(); ++i) {
                ec::jacobian<C>* row = jac.data() + i * per;
                row[0] = starts[i];
                for (size_t j = 1; j < per; ++j) row[j] = row[j - 1] + starts[i];
            }
        });
        batch_to_affine<C>(jac, table_);
    });
}

template <class C>
unsigned fixed_base_table<C>::best_window_bits(size_t n_scalars) noexcept {
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned w = 1; w <= max_window_bits; ++w) {
        double cost = double(scalar_bits / w + 1) * (double(uint64_t{1} << (w - 1)) + double(n_scalars));
        if (w == 1 || cost < best_cost) best = w, best_cost = cost;
    }
    return best;
}

template <class C>
ec::jacobian<C> fixed_base_table<C>::mul(const ff::fr& k) const noexcept {
    const size_t per = size_t{1} << (w_ - 1);
    auto acc = ec::jacobian<C>::identity();
    for_each_digit(k, w_, windows_, [&](unsigned i, int64_t d) {
        if (d > 0)
            acc += table_[i * per + static_cast<size_t>(d - 1)];  // 7M + 4S
        else if (d < 0)
            acc += -table_[i * per + static_cast<size_t>(-d - 1)];
    });
    return acc;
}

template <class C>
void fixed_base_table<C>::mul_batch(std::span<const ff::fr> scalars, std::span<ec::affine<C>> out,
                                    unsigned threads) const {
    if (scalars.size() != out.size())
        throw error(errc::bad_input, "fixed_base_table::mul_batch: " + std::to_string(scalars.size()) +
                                         " scalars but " + std::to_string(out.size()) + " outputs");
    constexpr size_t block = 1024;
    parallel::in_arena(threads, [&] {
        tbb::parallel_for(tbb::blocked_range<size_t>(0, scalars.size(), block),
                          [&](const tbb::blocked_range<size_t>& r) {
                              mul_block_affine<C>(table_, w_, windows_, scalars.subspan(r.begin(), r.size()),
                                                  out.subspan(r.begin(), r.size()));
                          });
    });
}

template <class C>
std::vector<ec::affine<C>> fixed_base_table<C>::mul_batch(std::span<const ff::fr> scalars, unsigned threads) const {
    std::vector<ec::affine<C>> out(scalars.size());
    mul_batch(scalars, out, threads);
    return out;
}

template class fixed_base_table<ec::g1_curve>;
template class fixed_base_table<ec::g2_curve>;

}  // namespace c2lab::msm

// The device NTT run on the host: the same tables, plan, pass sequence and per-thread bodies as
// gpu/ntt/ntt_gpu.cuh, with every kernel replaced by loops over its blocks and threads (one
// loop per stretch between two barriers). It is the reference the device test compares with
// and what the host tests check against lib/poly; it is not fast (32-bit limbs, one thread).
// Host only (lib/ff).
#pragma once

#include <bit>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ff/fields.hpp"
#include "gpu/ff/convert.hpp"
#include "gpu/ntt/ntt_plan.hpp"

namespace c2lab::gpu::ntt {

// The executor of ntt_plan.hpp's sequences over host memory.
struct host_exec {
    void twiddles(fr_dev* tw, uint64_t count, const powers& p) {
        for (uint64_t j = 0; j < count; ++j) twiddle_body(tw, j, p);
    }
    void bitrev(fr_dev* x, uint32_t log_n) {
        for (uint64_t i = 0; i < (uint64_t(1) << log_n); ++i) bitrev_body(x, i, log_n);
    }
    void bitrev_scale(fr_dev* x, uint32_t log_n, const powers& p) {
        for (uint64_t i = 0; i < (uint64_t(1) << log_n); ++i) bitrev_scale_body(x, i, log_n, p);
    }
    void group(fr_dev* x, const fr_dev* tw, const group_geom& g) {
        std::vector<uint32_t> sh(tile_words);  // one block's shared memory
        const uint32_t threads = g.threads();
        for (uint64_t tile = 0; tile < g.tiles(); ++tile) {
            for (uint32_t tid = 0; tid < threads; ++tid) group_load_body(x, sh.data(), g, tile, tid);
            for (uint32_t r = 0; r < g.k; ++r)
                for (uint32_t tid = 0; tid < threads; ++tid) group_stage_body(sh.data(), tw, g, tile, tid, r);
            for (uint32_t tid = 0; tid < threads; ++tid) group_store_body(x, sh.data(), g, tile, tid);
        }
    }
    void finish(fr_dev* x, uint64_t n, const powers& s) {
        for (uint64_t k = 0; k <= n / 2; ++k) finish_inverse_body(x, k, n, s);
    }
    void pointwise(fr_dev* a, const fr_dev* b, uint64_t n, const fr_dev& z_inv) {
        for (uint64_t i = 0; i < n; ++i) h_pointwise_body(a, b, i, z_inv);
    }
    void subtract(fr_dev* a, const fr_dev* c, uint64_t n) {
        for (uint64_t i = 0; i < n; ++i) h_subtract_body(a, c, i);
    }
};

// ntt_gpu's twin on the host, for one size n = 2^k.
class ntt_emulator {
public:
    // n must be a power of two in [1, 2^32] (errc::bad_input otherwise), as
    // poly::evaluation_domain::for_size. cfg: the plan's tile shape (tests use small tiles to
    // run several strided groups at small n; the device uses the default).
    explicit ntt_emulator(size_t n, plan_config cfg = {}) {
        if (n == 0 || !std::has_single_bit(n) || n > (size_t{1} << fr_two_adicity))
            throw error(errc::bad_input, "ntt_emulator: size " + std::to_string(n) +
                                             " is not a power of two in [1, 2^32]");
        const uint32_t log_n = static_cast<uint32_t>(std::countr_zero(n));
        tables_ = make_host_tables(log_n);
        tw_.resize(n / 2);
        host_exec e;
        e.twiddles(tw_.data(), tw_.size(), tables_.set(ps_twiddle, tables_.data.data()));
        view_ = make_view(tables_, tables_.data.data(), tw_.data(), make_plan(log_n, cfg));
    }

    ntt_emulator(const ntt_emulator&) = delete;  // the view points into the tables
    ntt_emulator& operator=(const ntt_emulator&) = delete;

    size_t size() const { return static_cast<size_t>(view_.dc.n); }
    const ntt_view& view() const { return view_; }
    const host_tables& tables() const { return tables_; }
    std::span<const fr_dev> twiddles() const { return tw_; }

    void forward(std::span<ff::fr> a) { transform(a, ntt_kind::forward, "forward"); }
    void inverse(std::span<ff::fr> a) { transform(a, ntt_kind::inverse, "inverse"); }
    void coset_forward(std::span<ff::fr> a) { transform(a, ntt_kind::coset_forward, "coset_forward"); }
    void coset_inverse(std::span<ff::fr> a) { transform(a, ntt_kind::coset_inverse, "coset_inverse"); }

    // ntt_gpu::compute_h: a, b, c of equal length m <= n, padded with zeros to n; the first
    // n - 1 coefficients of h.
    std::vector<ff::fr> compute_h(std::span<const ff::fr> a, std::span<const ff::fr> b, std::span<const ff::fr> c) {
        const size_t n = size();
        if (a.size() != b.size() || a.size() != c.size() || a.size() > n)
            throw error(errc::bad_input, "ntt_emulator::compute_h: a, b, c have " + std::to_string(a.size()) + ", " +
                                             std::to_string(b.size()) + ", " + std::to_string(c.size()) +
                                             " elements; they must be equal and at most " + std::to_string(n));
        std::vector<fr_dev> da = load(a, n), db = load(b, n), dc = load(c, n);
        host_exec e;
        run_h(e, view_, da.data(), db.data(), dc.data());
        std::vector<ff::fr> h(n - 1);
        for (size_t i = 0; i + 1 < n; ++i) h[i] = to_host(da[i]);
        return h;
    }

private:
    static std::vector<fr_dev> load(std::span<const ff::fr> a, size_t n) {
        std::vector<fr_dev> d(n, fr_dev::zero());
        for (size_t i = 0; i < a.size(); ++i) d[i] = to_dev(a[i]);
        return d;
    }

    void transform(std::span<ff::fr> a, ntt_kind kind, const char* what) {
        if (a.size() != size())
            throw error(errc::bad_input, std::string("ntt_emulator::") + what + ": " + std::to_string(a.size()) +
                                             " elements for a domain of size " + std::to_string(size()));
        std::vector<fr_dev> d = load(a, a.size());
        host_exec e;
        run_transform(e, view_, d.data(), kind);
        for (size_t i = 0; i < a.size(); ++i) a[i] = to_host(d[i]);
    }

    host_tables tables_;
    std::vector<fr_dev> tw_;
    ntt_view view_;
};

// poly::compute_h's twin: n = next power of two >= max(m, 1).
inline std::vector<ff::fr> emulate_compute_h(std::span<const ff::fr> a, std::span<const ff::fr> b,
                                             std::span<const ff::fr> c, plan_config cfg = {}) {
    if (a.size() != b.size() || a.size() != c.size())
        throw error(errc::bad_input, "emulate_compute_h: a, b, c have different lengths (" + std::to_string(a.size()) +
                                         ", " + std::to_string(b.size()) + ", " + std::to_string(c.size()) + ")");
    if (a.size() > (size_t{1} << fr_two_adicity))
        throw error(errc::bad_input, "emulate_compute_h: " + std::to_string(a.size()) +
                                         " values do not fit a domain of at most 2^32 points");
    ntt_emulator e(std::bit_ceil(a.size() == 0 ? size_t{1} : a.size()), cfg);
    return e.compute_h(a, b, c);
}

}  // namespace c2lab::gpu::ntt

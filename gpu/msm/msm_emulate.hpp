// The GPU MSM pipeline (gpu/msm/msm_plan.hpp) run on the host: the same schedule and the same
// per-thread bodies, with a launch a parallel loop over the thread indices (oneTBB) and CUB's
// radix sort replaced by std::stable_sort (CUB's LSD radix sort is stable too, so the order of
// each bucket's points is the device's). The reference for the CUDA path and what the host
// tests run. Host code only.
#pragma once

#include <algorithm>
#include <cstring>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/error.hpp"
#include "gpu/ec/convert.hpp"
#include "gpu/msm/msm_plan.hpp"

namespace c2lab::gpu::pippenger {

class host_executor {
public:
    template <class Body>
    void launch(size_t count, const Body& body) {
        ++launches_;
        tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 64), [&](const tbb::blocked_range<size_t>& r) {
            for (size_t i = r.begin(); i < r.end(); ++i) body(uint32_t(i));
        });
    }
    void zero(void* p, size_t bytes) {
        if (bytes) std::memset(p, 0, bytes);
    }
    // Stable by the low end_bit bits, as cub::DeviceRadixSort::SortPairs(..., 0, end_bit); a key
    // with bits above end_bit (which CUB would silently ignore) is a planning bug.
    int sort_pairs(uint32_t* const keys[2], uint32_t* const values[2], size_t count, unsigned end_bit) {
        ++sorts_;
        const uint64_t limit = uint64_t{1} << end_bit;
        std::vector<uint32_t> order(count);
        std::iota(order.begin(), order.end(), 0u);
        for (size_t i = 0; i < count; ++i)
            if (keys[0][i] >= limit)
                throw error(errc::internal, "sort_pairs: key " + std::to_string(keys[0][i]) + " needs more than " +
                                                std::to_string(end_bit) + " bits");
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[0][a] < keys[0][b]; });
        for (size_t i = 0; i < count; ++i) {
            keys[1][i] = keys[0][order[i]];
            values[1][i] = values[0][order[i]];
        }
        return 1;
    }
    size_t launches() const { return launches_; }
    size_t sorts() const { return sorts_; }

private:
    size_t launches_ = 0;
    size_t sorts_ = 0;
};

// Host storage for every buffer of the plan, each exactly the plan's size.
template <class Dc>
struct host_buffers {
    using affine = typename Dc::affine;
    using xyzz = typename Dc::xyzz;
    std::vector<affine> bases;
    std::vector<uint32_t> scalars, keys[2], values[2], level_keys[2];
    std::vector<xyzz> level_sums[2], buckets, group_sums, window_sums;

    explicit host_buffers(const plan& p)
        : scalars(p.n * scalar_limbs), buckets(p.buckets()), group_sums(p.group_sums()), window_sums(p.windows) {
        for (int i = 0; i < 2; ++i) {
            keys[i].resize(p.pass_entries);
            values[i].resize(p.pass_entries);
            level_keys[i].resize(p.level_items[i]);
            level_sums[i].resize(p.level_items[i]);
        }
    }
    pipeline_buffers<Dc> view() {
        return {bases.data(),
                scalars.data(),
                {keys[0].data(), keys[1].data()},
                {values[0].data(), values[1].data()},
                {level_keys[0].data(), level_keys[1].data()},
                {level_sums[0].data(), level_sums[1].data()},
                buckets.data(),
                group_sums.data(),
                window_sums.data()};
    }
};

template <class C>
struct emulation {
    ec::jacobian<C> sum;
    plan used;
    std::vector<typename dev_curve_t<C>::xyzz> window_sums;
    size_t launches = 0;
    size_t sorts = 0;
};

// sum_i scalars[i] bases[i], i < scalars.size(), as the device computes it. The inputs go into
// the device layout the way msm_gpu uploads them: copied as bytes (raw_layout_matches).
// Throws c2lab::error (bad_input) as check_inputs.
template <class C>
emulation<C> msm_emulate_detailed(std::span<const ec::affine<C>> bases, std::span<const ff::fr> scalars,
                                  const plan_options& options = {}) {
    static_assert(raw_layout_matches<C>, "lib/ec points are not the device points' bytes");
    using Dc = dev_curve_t<C>;
    check_inputs("msm_emulate", bases.size(), scalars.size(), options.window_bits);
    emulation<C> r;
    r.used = make_plan(scalars.size(), options);
    host_buffers<Dc> buf(r.used);
    buf.bases.resize(scalars.size());
    if (!scalars.empty()) {
        std::memcpy(buf.bases.data(), bases.data(), scalars.size() * sizeof(ec::affine<C>));
        std::memcpy(buf.scalars.data(), scalars.data(), scalars.size() * sizeof(ff::fr));
    }
    host_executor ex;
    run_pipeline<Dc>(r.used, buf.view(), ex);
    r.launches = ex.launches();
    r.sorts = ex.sorts();
    r.window_sums = buf.window_sums;
    std::vector<ec::jacobian<C>> sums(r.used.windows);
    for (unsigned j = 0; j < r.used.windows; ++j) sums[j] = to_host_jacobian<C>(buf.window_sums[j]);
    r.sum = combine_windows(sums.data(), r.used.windows, r.used.c);
    return r;
}

template <class C>
ec::jacobian<C> msm_emulate(std::span<const ec::affine<C>> bases, std::span<const ff::fr> scalars,
                            const plan_options& options = {}) {
    return msm_emulate_detailed<C>(bases, scalars, options).sum;
}

}  // namespace c2lab::gpu::pippenger

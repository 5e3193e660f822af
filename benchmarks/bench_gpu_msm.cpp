// bench_gpu_msm: the CUDA MSM (gpu/msm) for G1 (log_n 16..26) and G2 (log_n 16..24), on one
// msm_gpu per run: the bases are uploaded and the buffers allocated (a first, untimed run)
// before the timing.
//
//   gpu/msm/g1/log_n:<k>   gpu/msm/g2/log_n:<k>
//
// Manual time: the kernels' time of each run, measured with CUDA events (gpu_timing), so the
// scalar upload and the window sums' download do not count; they are reported as counters
// h2d_ms and d2h_ms (per run, mean), with kernel_ms. points/s: n over the kernels' time; c: the
// window. Points are random multiples of the generator made cheaply (as bench_msm: chunks of
// 4096, each a walk of mixed additions with a few random steps, one batch inversion) and cached
// across runs, as are the scalars. Sizes the device memory cannot hold are skipped with the
// error. Registers nothing (one line on stderr says why) without a usable CUDA device.
// Run: bench_gpu_msm --benchmark_filter='gpu/msm/g1/.*'
#include <benchmark/benchmark.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "gpu/device.hpp"
#include "gpu/msm/msm_gpu.hpp"
#include "msm/batch_affine.hpp"

namespace {

using namespace c2lab;
using ff::fr;

constexpr size_t chunk = 4096;

// Grows to the largest n asked for; chunk k is a walk from its own seed, so a longer list
// keeps the same prefix.
template <class C>
const std::vector<ec::affine<C>>& bench_points(size_t n) {
    static std::vector<ec::affine<C>> cache;
    if (cache.size() >= n) return cache;
    const size_t chunks = (n + chunk - 1) / chunk, old = cache.size() / chunk;
    cache.resize(chunks * chunk);
    tbb::parallel_for(tbb::blocked_range<size_t>(old, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
        std::vector<ec::jacobian<C>> jac(chunk);
        for (size_t k = r.begin(); k < r.end(); ++k) {
            rng g(1000 + k);
            ec::affine<C> steps[4];
            for (auto& s : steps) s = (ec::jacobian<C>::generator() * fr::random(g)).to_affine();
            auto cur = ec::jacobian<C>::generator() * fr::random(g);
            for (auto& p : jac) p = cur = cur + steps[g.below(4)];  // 7M + 4S each
            msm::batch_to_affine_serial<C>(jac, std::span(cache).subspan(k * chunk, chunk));
        }
    });
    return cache;
}

const std::vector<fr>& bench_scalars(size_t n) {
    static std::vector<fr> cache;
    if (cache.size() >= n) return cache;
    const size_t chunks = (n + chunk - 1) / chunk, old = cache.size() / chunk;
    cache.resize(chunks * chunk);
    tbb::parallel_for(tbb::blocked_range<size_t>(old, chunks, 16), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t k = r.begin(); k < r.end(); ++k) {
            rng g(7000000 + k);
            for (size_t i = k * chunk; i < (k + 1) * chunk; ++i) cache[i] = fr::random(g);
        }
    });
    return cache;
}

template <class C>
void msm_bench(benchmark::State& state) {
    const size_t n = size_t{1} << state.range(0);
    std::unique_ptr<gpu::msm_gpu<C>> engine;
    std::span<const fr> ks;
    try {
        engine = std::make_unique<gpu::msm_gpu<C>>(std::span<const ec::affine<C>>(bench_points<C>(n).data(), n));
        ks = std::span<const fr>(bench_scalars(n).data(), n);
        benchmark::DoNotOptimize(engine->run(ks));  // allocates the pipeline's buffers
    } catch (const error& e) {
        const std::string what = std::string("gpu/msm/") + (C::name[1] == '1' ? "g1" : "g2") +
                                 " at log_n=" + std::to_string(state.range(0)) + ": " + e.what();
        state.SkipWithError(what.c_str());
        return;
    }
    gpu::gpu_timing t;
    double kernel_ms = 0, h2d_ms = 0, d2h_ms = 0;
    for (auto _ : state) {
        auto r = engine->run(ks, &t);
        benchmark::DoNotOptimize(r);
        state.SetIterationTime(t.kernel_ms / 1000);
        kernel_ms += t.kernel_ms;
        h2d_ms += t.h2d_ms;
        d2h_ms += t.d2h_ms;
    }
    const double iters = double(state.iterations());
    if (iters == 0) return;
    state.counters["points/s"] = kernel_ms > 0 ? double(n) * iters / (kernel_ms / 1000) : 0;
    state.counters["kernel_ms"] = kernel_ms / iters;
    state.counters["h2d_ms"] = h2d_ms / iters;
    state.counters["d2h_ms"] = d2h_ms / iters;
    state.counters["c"] = double(engine->window_bits());
}

void register_all() {
    if (const auto why = gpu::no_device_reason()) {
        std::cerr << "bench_gpu_msm: no GPU benchmarks registered: " << *why << "\n";
        return;
    }
    benchmark::RegisterBenchmark("gpu/msm/g1", msm_bench<ec::g1_curve>)
        ->ArgNames({"log_n"})
        ->DenseRange(16, 26, 1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("gpu/msm/g2", msm_bench<ec::g2_curve>)
        ->ArgNames({"log_n"})
        ->DenseRange(16, 24, 1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

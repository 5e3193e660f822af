// bench_gpu_ntt: the CUDA NTT (gpu/ntt): the forward transform and the whole h step
// (bellperson's 3 iNTT, 3 coset NTT, a*b - c, divide by Z, coset iNTT) for log_n 20..27, on
// one ntt_gpu per run (tables built and buffers allocated before the timing).
// Manual time: the kernels' time of each call, measured with CUDA events (gpu_timing), so the
// copies do not count; they are reported as counters h2d_ms and d2h_ms (per call, mean), with
// kernel_ms. elements/s: n per transform over the kernels' time (7 n per h step, as ntt/h of
// bench_ntt counts it). Sizes the device memory cannot hold are skipped with the need named.
// Registers nothing (one line on stderr says why) without a usable CUDA device.
// Run: bench_gpu_ntt --benchmark_filter='gpu/ntt/forward/.*'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "gpu/device.hpp"
#if defined(C2LAB_HAVE_CUDA)
#include "gpu/ntt/ntt_gpu.hpp"
#endif

namespace {

using namespace c2lab;

#if defined(C2LAB_HAVE_CUDA)

using ff::fr;

// n values: 2^16 random ones repeated (the timing does not depend on the values; drawing
// 2^27 of them would take seconds per run).
std::vector<fr> bench_values(size_t n, uint64_t seed) {
    rng g(seed);
    const size_t block = std::min<size_t>(n, size_t{1} << 16);
    std::vector<fr> v(n);
    for (size_t i = 0; i < block; ++i) v[i] = fr::random(g);
    for (size_t i = block; i < n; ++i) v[i] = v[i - block];
    return v;
}

struct totals {
    double kernel_ms = 0, h2d_ms = 0, d2h_ms = 0;
    void add(const gpu::gpu_timing& t) {
        kernel_ms += t.kernel_ms;
        h2d_ms += t.h2d_ms;
        d2h_ms += t.d2h_ms;
    }
};

void report(benchmark::State& state, double elements_per_call, const totals& s) {
    const double iters = double(state.iterations());
    if (iters == 0) return;
    state.counters["elements/s"] = s.kernel_ms > 0 ? elements_per_call * iters / (s.kernel_ms / 1000) : 0;
    state.counters["kernel_ms"] = s.kernel_ms / iters;
    state.counters["h2d_ms"] = s.h2d_ms / iters;
    state.counters["d2h_ms"] = s.d2h_ms / iters;
}

// Setup errors (device memory first of all) end the run with SkipWithError before the loop.
template <class F>
bool setup(benchmark::State& state, const char* name, F&& f) {
    try {
        f();
        return true;
    } catch (const error& e) {
        const std::string what = std::string(name) + " at log_n=" + std::to_string(state.range(0)) +
                                 (e.kind() == errc::resource ? " needs more device memory: " : ": ") + e.what();
        state.SkipWithError(what.c_str());
        return false;
    }
}

void forward_bench(benchmark::State& state) {
    const size_t n = size_t{1} << state.range(0);
    std::unique_ptr<gpu::ntt_gpu> g;
    std::vector<fr> a;
    // n/2 twiddles + n elements: 48 n bytes of device memory; the first call allocates and warms up.
    if (!setup(state, "gpu/ntt/forward", [&] {
            g = std::make_unique<gpu::ntt_gpu>(n);
            a = bench_values(n, 1);
            g->forward(a);
        }))
        return;
    gpu::gpu_timing t;
    totals sum;
    for (auto _ : state) {
        g->forward(a, &t);  // the values stay uniformly spread from one call to the next
        state.SetIterationTime(t.kernel_ms / 1000);
        sum.add(t);
    }
    report(state, double(n), sum);
}

void h_bench(benchmark::State& state) {
    const size_t n = size_t{1} << state.range(0);
    std::unique_ptr<gpu::ntt_gpu> g;
    std::vector<fr> a, b, c, h;
    // n/2 twiddles + a, b, c: 112 n bytes of device memory (15 GiB at 2^27).
    if (!setup(state, "gpu/h", [&] {
            g = std::make_unique<gpu::ntt_gpu>(n);
            a = bench_values(n, 2);
            b = bench_values(n, 3);
            c.resize(n);
            for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];  // a satisfied system
            h = g->compute_h(a, b, c);
        }))
        return;
    gpu::gpu_timing t;
    totals sum;
    for (auto _ : state) {
        h = g->compute_h(a, b, c, &t);
        benchmark::DoNotOptimize(h.data());
        state.SetIterationTime(t.kernel_ms / 1000);
        sum.add(t);
    }
    report(state, 6.0 * double(n), sum);  // six transforms per h (run_h: C takes its inverse alone)
}

#endif

void register_all() {
    if (const auto why = gpu::no_device_reason()) {
        std::cerr << "bench_gpu_ntt: no GPU benchmarks registered: " << *why << "\n";
        return;
    }
#if defined(C2LAB_HAVE_CUDA)
    benchmark::RegisterBenchmark("gpu/ntt/forward", forward_bench)
        ->ArgNames({"log_n"})
        ->DenseRange(20, 27, 1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("gpu/h", h_bench)
        ->ArgNames({"log_n"})
        ->DenseRange(20, 27, 1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
#endif
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

// bench_msm: variable-base MSM (Pippenger, lib/msm) for G1 and G2.
//
//   msm/<g>/<window>   args log_n, density (percent of points selected: 100 or 25), threads
//   msm/g1/fixed       args log_n, density, threads, c (100, 1 registered): one thread, full density, 255-bit path
//                      (msm_config.glv = false); the sweep behind the "table" window policy (lib/msm/window.cpp)
//   msm/<g>/table_255bit  args log_n, density, threads (16, 18, 20; 100; 1): the table policy without the
//                      endomorphism split (msm_config.glv = false, the 255-bit path), beside msm/<g>/table at the
//                      same arguments to show what the split and the batched affine changes give
//   msm/g1/glv_fixed   args log_n, density, threads, c: the sweep behind the split's window table (glv_bits_for)
//   msm/g2/glv_fixed   the same for G2 (2^10 .. 2^18): whether G2's costlier additions want other windows
//   msm/g1/glv_windows args log_n, density, threads, windows: the split's 128 bits spread over that many
//                      windows (msm_window=windows:N), beside glv_fixed's whole windows of c bits
//   msm/glv_split      arg log_n: the endomorphism split of each scalar alone (glv_split_signed of its
//                      canonical form, one thread), the step every G1 and G2 MSM takes per scalar before
//                      its windows; counter scalars/s
//
// The counter points/s counts the terms of the sum (selected points). Points are random
// multiples of the generator made cheaply (random walks of additions, batch to_affine) and
// cached across benchmarks, as are the scalars.
// Run: bench_msm --benchmark_filter='msm/g1/ln/log_n:16/.*'
#include <benchmark/benchmark.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <vector>

#include "core/parallel.hpp"
#include "msm/batch_affine.hpp"
#include "msm/glv.hpp"
#include "msm/pippenger.hpp"

namespace {

using namespace c2lab;
using namespace c2lab::msm;
using ff::fr;

// Grows to the largest n asked for; chunk k of 4096 points is a walk from its own seed, so
// a longer list keeps the same prefix.
template <class C>
const std::vector<ec::affine<C>>& bench_points(size_t n) {
    static std::vector<ec::affine<C>> cache;
    constexpr size_t chunk = 4096;
    if (cache.size() >= n) return cache;
    size_t chunks = (n + chunk - 1) / chunk, old = cache.size() / chunk;
    cache.resize(chunks * chunk);
    tbb::parallel_for(tbb::blocked_range<size_t>(old, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t k = r.begin(); k < r.end(); ++k) {
            rng g(1000 + k);
            std::vector<ec::jacobian<C>> steps;
            for (int i = 0; i < 4; ++i) steps.push_back(ec::jacobian<C>::generator() * fr::random(g));
            std::vector<ec::jacobian<C>> jac(chunk);
            auto cur = ec::jacobian<C>::generator() * fr::random(g);
            for (auto& p : jac) p = cur = cur + steps[g.below(steps.size())];  // 11M + 5S each
            batch_to_affine_serial<C>(jac, std::span(cache).subspan(k * chunk, chunk));
        }
    });
    return cache;
}

const std::vector<fr>& bench_scalars(size_t n) {
    static std::vector<fr> cache;
    if (cache.size() < n) {
        rng g(7 + cache.size());
        while (cache.size() < n) cache.push_back(fr::random(g));
    }
    return cache;
}

template <class C>
void msm_bench(benchmark::State& state, window_policy window, bool glv = true) {
    const size_t n = size_t{1} << state.range(0);
    const auto density_pct = static_cast<uint64_t>(state.range(1));
    const auto threads = static_cast<unsigned>(state.range(2));
    std::span<const ec::affine<C>> pts(bench_points<C>(n).data(), n);
    density_bitmap density(n, true);
    if (density_pct < 100) {
        rng g(99);
        for (size_t i = 0; i < n; ++i) density.set(i, g.below(100) < density_pct);
    }
    const size_t terms = density.count();
    std::span<const fr> ks(bench_scalars(terms).data(), terms);
    msm_config config{window, threads};
    config.glv = glv;
    for (auto _ : state) {
        auto r = density_pct < 100 ? msm_density<C>(pts, density, ks, config) : msm::msm<C>(pts, ks, config);
        benchmark::DoNotOptimize(r);
    }
    state.counters["points/s"] = benchmark::Counter(double(terms) * double(state.iterations()), benchmark::Counter::kIsRate);
    const unsigned arena = threads ? threads : unsigned(parallel::arena_concurrency());
    state.counters["c"] = double(glv ? window.glv_bits_for(terms, arena) : window.bits_for(terms));
    // Spread windows (their count a part); 0 where the windows are c bits each.
    if (glv) state.counters["windows"] = double(window.glv_windows_for(terms, arena));
}

void msm_g1_ln(benchmark::State& state) { msm_bench<ec::g1_curve>(state, window_policy::ln()); }
void msm_g1_table(benchmark::State& state) { msm_bench<ec::g1_curve>(state, window_policy::table()); }
void msm_g2_ln(benchmark::State& state) { msm_bench<ec::g2_curve>(state, window_policy::ln()); }
void msm_g2_table(benchmark::State& state) { msm_bench<ec::g2_curve>(state, window_policy::table()); }

void msm_g1_fixed(benchmark::State& state) {
    msm_bench<ec::g1_curve>(state, window_policy::fixed(static_cast<unsigned>(state.range(3))), false);
}
void msm_g1_glv_fixed(benchmark::State& state) {
    msm_bench<ec::g1_curve>(state, window_policy::fixed(static_cast<unsigned>(state.range(3))));
}
void msm_g1_table_255bit(benchmark::State& state) { msm_bench<ec::g1_curve>(state, window_policy::table(), false); }
void msm_g1_glv_windows(benchmark::State& state) {
    msm_bench<ec::g1_curve>(state, window_policy::windows(static_cast<unsigned>(state.range(3))));
}
void msm_g2_glv_fixed(benchmark::State& state) {
    msm_bench<ec::g2_curve>(state, window_policy::fixed(static_cast<unsigned>(state.range(3))));
}
void msm_g2_table_255bit(benchmark::State& state) { msm_bench<ec::g2_curve>(state, window_policy::table(), false); }

// One thread, full density, 2^16 / 2^18 / 2^20 points (G2 to 2^18).
void one_thread_sizes(benchmark::internal::Benchmark* b, int max_log_n) {
    for (int log_n = 16; log_n <= max_log_n; log_n += 2) b->Args({log_n, 100, 1});
    b->ArgNames({"log_n", "density", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

// 2^10 .. 2^max_log_n pairs, every size the table has a row for, c around the addition-count
// model's choice (the split doubles the points).
void glv_fixed_sweep(benchmark::internal::Benchmark* b, int max_log_n = 22) {
    for (int log_n = 10; log_n <= max_log_n; ++log_n) {
        const int lo = log_n < 16 ? log_n - 4 : log_n - 6, hi = log_n < 16 ? log_n : std::min(log_n - 1, 20);
        for (int c = lo; c <= hi; ++c) b->Args({log_n, 100, 1, c});
    }
    b->ArgNames({"log_n", "density", "threads", "c"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

// 2^16 .. 2^22 pairs, the window counts around whole windows of 13 to 16 bits.
void glv_windows_sweep(benchmark::internal::Benchmark* b) {
    for (int log_n = 16; log_n <= 22; ++log_n)
        for (int w = 7; w <= 10; ++w) b->Args({log_n, 100, 1, w});
    b->ArgNames({"log_n", "density", "threads", "windows"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

void sizes(benchmark::internal::Benchmark* b, int max_log_n) {
    for (int log_n = 10; log_n <= max_log_n; ++log_n)
        for (int density : {100, 25})
            for (int threads : {1, 2}) b->Args({log_n, density, threads});
    b->ArgNames({"log_n", "density", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

void fixed_sweep(benchmark::internal::Benchmark* b) {
    for (int log_n = 10; log_n <= 18; log_n += 2)
        for (int c = 5; c <= 15; ++c)
            if (c >= log_n / 2 && c <= log_n - 1) b->Args({log_n, 100, 1, c});
    b->ArgNames({"log_n", "density", "threads", "c"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

// The signed split of 2^log_n canonical scalars, one after another (each result folded into a
// checksum the compiler cannot drop).
void glv_split_bench(benchmark::State& state) {
    const size_t n = size_t{1} << state.range(0);
    const auto& scalars = bench_scalars(n);
    std::vector<ff::limbs<4>> canonical(n);
    for (size_t i = 0; i < n; ++i) canonical[i] = scalars[i].to_canonical();
    for (auto _ : state) {
        uint64_t fold = 0;
        for (const auto& k : canonical) {
            const glv_signed_split sp = glv_split_signed(k);
            fold += sp.k1[0] ^ sp.k2[1] ^ uint64_t{sp.neg1} ^ (uint64_t{sp.neg2} << 1);
        }
        benchmark::DoNotOptimize(fold);
    }
    state.counters["scalars/s"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(glv_split_bench)->Name("msm/glv_split")->Arg(16)->ArgNames({"log_n"})->Unit(benchmark::kMicrosecond);
BENCHMARK(msm_g1_ln)->Name("msm/g1/ln")->Apply([](auto* b) { sizes(b, 20); });
BENCHMARK(msm_g1_table)->Name("msm/g1/table")->Apply([](auto* b) { sizes(b, 20); });
BENCHMARK(msm_g2_ln)->Name("msm/g2/ln")->Apply([](auto* b) { sizes(b, 18); });
BENCHMARK(msm_g2_table)->Name("msm/g2/table")->Apply([](auto* b) { sizes(b, 18); });
BENCHMARK(msm_g1_fixed)->Name("msm/g1/fixed")->Apply(fixed_sweep);
BENCHMARK(msm_g1_glv_fixed)->Name("msm/g1/glv_fixed")->Apply([](auto* b) { glv_fixed_sweep(b); });
BENCHMARK(msm_g2_glv_fixed)->Name("msm/g2/glv_fixed")->Apply([](auto* b) { glv_fixed_sweep(b, 18); });
BENCHMARK(msm_g1_glv_windows)->Name("msm/g1/glv_windows")->Apply(glv_windows_sweep);
BENCHMARK(msm_g1_table_255bit)->Name("msm/g1/table_255bit")->Apply([](auto* b) { one_thread_sizes(b, 20); });
BENCHMARK(msm_g2_table_255bit)->Name("msm/g2/table_255bit")->Apply([](auto* b) { one_thread_sizes(b, 18); });


// bench_ntt: the NTT stage (lib/poly). Forward, inverse, coset forward and coset inverse
// transforms in place over Fr, and the whole bellperson h step (3 iNTT, 3 coset NTT,
// a*b - c, divide by Z, coset iNTT), for log_n 10..22 and 1 or 2 threads.
// Counters: elements/s (n per transform) and butterflies/s ((n/2)*log_n per transform).
// ntt/floor/log_n:N is the arithmetic floor of a transform of that size: (n/2) * log2(n)
// Fr multiplications and nothing else (independent products over a block that stays in
// L1, so the core overlaps them as it can in a butterfly stage); a forward transform's
// time over the floor's, measured in the same run, is its distance from the floor.
// Wall-clock time (UseRealTime), since the work runs on oneTBB worker threads.
// The h step takes the ntt_pair flag (--flag ntt_pair=natural|bit_reversed|auto; default auto), so
// `c2lab ab --binary bench_ntt --filter 'ntt/h/log_n:22/threads:2' --flag ntt_pair=bit_reversed,natural`
// compares the two forms of its transform pairs on this stage alone.
// Every transform takes the ntt_batch flag (--flag ntt_batch=auto|scalar|avx2|ifma): the kernels
// of the butterfly stages, e.g. `c2lab ab --binary bench_ntt --filter 'ntt/forward/log_n:20/threads:1'
// --flag ntt_batch=scalar,avx2`.
// Run: bench_ntt --benchmark_filter='ntt/forward/.*' (or scripts/bench.sh for the suite).
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_main.hpp"
#include "core/rng.hpp"
#include "poly/h_poly.hpp"
#include "poly/ntt.hpp"

namespace {

using namespace c2lab;
using namespace c2lab::poly;

std::vector<fr> random_vector(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<fr> v(n);
    for (auto& x : v) x = fr::random(g);
    return v;
}

void set_counters(benchmark::State& state, size_t log_n, double transforms) {
    const double n = double(size_t{1} << log_n);
    const double iters = double(state.iterations()) * transforms;
    state.counters["elements/s"] = benchmark::Counter(n * iters, benchmark::Counter::kIsRate);
    state.counters["butterflies/s"] = benchmark::Counter(n / 2 * double(log_n) * iters, benchmark::Counter::kIsRate);
}

using transform_fn = void (*)(const evaluation_domain&, std::span<fr>, const ntt_config&);

template <transform_fn F>
void transform(benchmark::State& state) {
    const size_t log_n = static_cast<size_t>(state.range(0));
    ntt_config cfg{static_cast<unsigned>(state.range(1))};
    cfg.batch = bench::opts().flags.ntt_batch;
    evaluation_domain d(log_n, cfg.threads);
    std::vector<fr> a = random_vector(d.size(), 1);
    for (auto _ : state) {
        F(d, a, cfg);  // the values stay uniformly random from one iteration to the next
        benchmark::DoNotOptimize(a.data());
        benchmark::ClobberMemory();
    }
    set_counters(state, log_n, 1);
}

// The h step on a satisfied system; the three inputs are restored (copied) outside the timing.
// The tables a first step makes are made before the timing (in a proof the ntt stage pays for
// them: 11-20 ms at 2^22 for the bit-reversed twiddles of ntt_pair=natural).
void h_step(benchmark::State& state) {
    const size_t log_n = static_cast<size_t>(state.range(0));
    ntt_config cfg{static_cast<unsigned>(state.range(1))};
    cfg.pair = bench::opts().flags.ntt_pair;
    cfg.batch = bench::opts().flags.ntt_batch;
    evaluation_domain d(log_n, cfg.threads);
    const std::vector<fr> a0 = random_vector(d.size(), 2), b0 = random_vector(d.size(), 3);
    std::vector<fr> c0(d.size());
    for (size_t i = 0; i < d.size(); ++i) c0[i] = a0[i] * b0[i];
    std::vector<fr> a = a0, b = b0, c = c0;
    // One untimed step first: the domain's tables that are made on first use (the bit-reversed
    // twiddles of ntt_pair=natural) and the kernels' per-thread buffers, so that a run of one
    // iteration times the step itself, as every later iteration does.
    compute_h_in_place(d, a, b, c, cfg);
    for (auto _ : state) {
        state.PauseTiming();
        a = a0;
        b = b0;
        c = c0;
        state.ResumeTiming();
        compute_h_in_place(d, a, b, c, cfg);
        benchmark::DoNotOptimize(a.data());
        benchmark::ClobberMemory();
    }
    set_counters(state, log_n, 6);  // six transforms per h (compute_h: C takes its inverse alone)
}

void mul_floor(benchmark::State& state) {
    const size_t log_n = static_cast<size_t>(state.range(0));
    const size_t muls = (size_t{1} << log_n) / 2 * log_n;
    constexpr size_t block = 512;  // 2 x 16 KiB: L1-resident
    std::vector<fr> x = random_vector(block, 4), w = random_vector(block, 5);
    for (auto _ : state) {
        for (size_t done = 0; done < muls; done += block)
            for (size_t i = 0; i < block; ++i) x[i] *= w[i];
        benchmark::DoNotOptimize(x.data());
        benchmark::ClobberMemory();
    }
    state.counters["muls/s"] = benchmark::Counter(double(muls) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void transform_args(benchmark::internal::Benchmark* b) {
    b->ArgsProduct({benchmark::CreateDenseRange(10, 22, 1), {1, 2}})->ArgNames({"log_n", "threads"});
}

}  // namespace

BENCHMARK(transform<forward_ntt>)->Name("ntt/forward")->Apply(transform_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(transform<inverse_ntt>)->Name("ntt/inverse")->Apply(transform_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(transform<coset_forward_ntt>)->Name("ntt/coset_forward")->Apply(transform_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(transform<coset_inverse_ntt>)->Name("ntt/coset_inverse")->Apply(transform_args)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(mul_floor)->Name("ntt/floor")->DenseRange(10, 22, 1)->ArgNames({"log_n"})->Unit(benchmark::kMillisecond);
BENCHMARK(h_step)
    ->Name("ntt/h")
    ->ArgsProduct({{10, 14, 16, 18, 20, 22}, {1, 2}})
    ->ArgNames({"log_n", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();


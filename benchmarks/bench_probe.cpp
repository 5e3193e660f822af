// bench_probe: a steady, known workload for calibrating the A/B runner (scripts/ab_calibrate.sh):
// a chain of 100,000 dependent Fr multiplications (about 2 ms on the machine of
// results/reference/), plus the test-only flag inject_slowdown's percentage more. So an A/B of
// inject_slowdown=off against 1pct..10pct has a true answer, and off against aa (the same
// code under another name) is an A/A test.
//
//   ab_probe/fr_mul_chain/inject_slowdown:<off|aa|1pct|2pct|5pct|10pct>
#include <benchmark/benchmark.h>

#include <string>

#include "bench_main.hpp"
#include "ff/fields.hpp"

namespace {

using namespace c2lab;
using ff::fr;

constexpr size_t chain = 100'000;

void probe(benchmark::State& state, unsigned pct) {
    const size_t n = chain + chain * pct / 100;
    fr x = fr::from_u64(3);
    const fr y = fr::from_u64(5);
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) x = x * y;
        benchmark::DoNotOptimize(x);
    }
    state.counters["muls/s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void register_all() {
    for (const char* v : {"off", "aa", "1pct", "2pct", "5pct", "10pct"}) {
        if (!bench::selected("inject_slowdown", v)) continue;
        const std::string s = std::string("inject_slowdown=") + v;
        const unsigned pct = pipeline::parse_all_flags(std::span<const std::string>(&s, 1)).test.inject_slowdown_pct();
        benchmark::RegisterBenchmark((std::string("ab_probe/fr_mul_chain/inject_slowdown:") + v).c_str(),
                                     [pct](benchmark::State& st) { probe(st, pct); })
            ->Unit(benchmark::kMillisecond);
    }
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

// bench_construct: the construct stage, decoded C1 output -> one circuit object per partition
// (porep::construct_circuits: count checks, domains to field elements, Merkle paths split).
//
//   construct/<dataset>        counters: partitions/s
//
// Run: bench_construct --dataset porep-32gib
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "porep/circuit.hpp"
#include "porep_fixture.hpp"

namespace {

using namespace c2lab;

void construct(benchmark::State& state, std::string name) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return;
    const bench::loaded_dataset& d = *dp;
    for (auto _ : state) {
        std::vector<porep::stacked_circuit> c = porep::construct_circuits(*d.cfg, d.file.phase1_out);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["partitions/s"] =
        benchmark::Counter(double(d.cfg->partitions) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void register_all() {
    for (const std::string& name : bench::datasets_or({"porep-2kib", "porep-512mib", "porep-32gib"}))
        benchmark::RegisterBenchmark(("construct/" + name).c_str(), [name](benchmark::State& s) { construct(s, name); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

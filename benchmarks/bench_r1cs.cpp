// bench_r1cs: synthesis of the built-in hash chain (lib/r1cs/test_circuits.hpp) into a
// proving assignment, for every lc_indexer variant and presize off/on.
//
//   synth/hash_chain/<lc_indexer>/presize:<off|on>   arg steps (constraints = steps + 2)
//
// The counter constraints/s counts the constraints synthesized (input constraints
// included). Presize takes its capacity hint from a shape_counter run outside the timing.
// Variants are registered through with_lc_indexer, the one mapping of the flag.
// Run: bench_r1cs --flag lc_indexer=vec   (or --benchmark_filter='synth/hash_chain/vec/.*')
#include <benchmark/benchmark.h>

#include <string>

#include "bench_main.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

namespace {

using namespace c2lab;
using namespace c2lab::r1cs;

template <class Indexer>
void synth_bench(benchmark::State& state, presize_mode presize) {
    const hash_chain circuit{static_cast<size_t>(state.range(0)), fr::from_u64(5), fr::from_u64(3)};
    shape_counter shape;
    circuit.synthesize(shape);
    const capacity_hint hint = shape.hint();
    for (auto _ : state) {
        proving_assignment<Indexer> pa(hint, presize);
        circuit.synthesize(pa);
        pa.enforce_input_constraints();
        benchmark::DoNotOptimize(pa.a().data());
    }
    state.counters["constraints/s"] =
        benchmark::Counter(double(hint.constraints) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void register_all() {
    for (std::string_view name : lc_indexer_names) {
        if (!bench::selected("lc_indexer", name)) continue;
        for (presize_mode p : {presize_mode::off, presize_mode::on}) {
            if (!bench::selected("presize", to_string(p))) continue;
            with_lc_indexer(name, [&](auto tag) {
                using I = typename decltype(tag)::type;
                std::string bench_name = "synth/hash_chain/" + std::string(name) + "/presize:" + std::string(to_string(p));
                benchmark::RegisterBenchmark(bench_name.c_str(), [p](benchmark::State& s) { synth_bench<I>(s, p); })
                    ->ArgNames({"steps"})
                    ->Arg(1 << 12)
                    ->Arg(1 << 16)
                    ->Unit(benchmark::kMicrosecond);
            });
        }
    }
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace


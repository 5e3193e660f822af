// bench_synth: the synthesize stage of the PoRep circuit, partition 0 of a dataset, into a
// proving assignment (a, b, c, aux, densities), per lc_indexer variant and presize; and the
// shape-only synthesis that circuit-info and setup use. cuzk's synth-only, as a benchmark:
// one stage, no parameters, no GPU.
//
//   synth/<dataset>/lc_indexer:<v>/presize:<off|on>   counters: constraints/s, constraints
//   synth_shape/<dataset>                              shape_counter only
//
// Only partition 0 is synthesized (every partition has the same shape). 32 GiB synthesis
// into an assignment needs ~20 GB and minutes: its shape-only run is registered by default,
// the full one with --dataset porep-32gib.
// Run: bench_synth --flag lc_indexer=smallvec4 --flag presize=on
#include <benchmark/benchmark.h>

#include <optional>

#include "bench_main.hpp"
#include "porep/circuit.hpp"
#include "porep_fixture.hpp"
#include "r1cs/proving_assignment.hpp"

namespace {

using namespace c2lab;

template <class Indexer>
void synth(benchmark::State& state, std::string name, r1cs::presize_mode presize) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return;
    const bench::loaded_dataset& d = *dp;
    const porep::stacked_circuit c = porep::construct_circuit(*d.cfg, d.file.phase1_out, 0);
    r1cs::shape_counter sc;
    porep::stacked_circuit::blank(*d.cfg).synthesize(sc);
    const r1cs::capacity_hint hint = sc.hint();
    for (auto _ : state) {
        r1cs::proving_assignment<Indexer> pa(hint, presize);
        c.synthesize(pa);
        pa.enforce_input_constraints();
        benchmark::DoNotOptimize(pa.a().data());
    }
    state.counters["constraints/s"] =
        benchmark::Counter(double(hint.constraints) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["constraints"] = double(hint.constraints);
}

void synth_shape(benchmark::State& state, std::string name) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return;
    const porep::porep_config& cfg = *dp->cfg;
    const porep::stacked_circuit blank = porep::stacked_circuit::blank(cfg);
    size_t n = 0;
    for (auto _ : state) {
        r1cs::shape_counter sc;
        blank.synthesize(sc);
        n = sc.num_constraints();
        benchmark::DoNotOptimize(n);
    }
    state.counters["constraints/s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["constraints"] = double(n);
}

void register_all() {
    const std::vector<std::string> full = bench::datasets_or({"porep-2kib", "porep-512mib"});
    for (const std::string& name : full)
        for (std::string_view ix : r1cs::lc_indexer_names) {
            if (!bench::selected("lc_indexer", ix)) continue;
            for (auto p : {r1cs::presize_mode::off, r1cs::presize_mode::on}) {
                if (!bench::selected("presize", r1cs::to_string(p))) continue;
                r1cs::with_lc_indexer(ix, [&](auto tag) {
                    using I = typename decltype(tag)::type;
                    const std::string bn = "synth/" + name + "/lc_indexer:" + std::string(ix) +
                                           "/presize:" + std::string(r1cs::to_string(p));
                    benchmark::RegisterBenchmark(bn.c_str(), [name, p](benchmark::State& s) { synth<I>(s, name, p); })
                        ->Unit(benchmark::kMillisecond)
                        ->UseRealTime();
                });
            }
        }
    for (const std::string& name : bench::datasets_or({"porep-2kib", "porep-32gib"}))
        benchmark::RegisterBenchmark(("synth_shape/" + name).c_str(), [name](benchmark::State& s) { synth_shape(s, name); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

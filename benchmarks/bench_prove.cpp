// bench_prove: the Groth16 prover on the built-in hash chain (lib/r1cs/test_circuits.hpp),
// synthesis excluded: setup and synthesis run once per size outside the timing, the timed
// loop is create_proof (ntt, the five MSMs, assemble).
//
//   prove/hash_chain/b_g2:<serial|parallel>   arg log_n: 2^log_n constraints (input
//                                             constraints included), domain 2^log_n
//
// Counters: the stage times of the last iteration in ms (ntt_ms, msm_h_ms, ..., assemble_ms;
// with b_g2:parallel, msm_b_g2_ms overlaps the G1 stages) and constraints/s.
// Run: bench_prove --benchmark_filter='prove/hash_chain/b_g2:serial/.*'
//
//   prove/porep/<dataset>/backend:<cpu|cuda>   one C2 partition of a PoRep dataset (default
//                                              porep-2kib): synthesis (the synth, lc_indexer and
//                                              presize flags; synth=pce loads the cached
//                                              pre-compiled circuit outside the timing) +
//                                              create_proof (msm_window, msm_split, b_g2_msm
//                                              flags), one iteration per repetition
//
// Parameters come from the cache of `c2lab setup --c1` (pipeline/params_cache.hpp) and are
// generated on first use (2 KiB: about 3 minutes and 1.1 GB on 2 cores); load_params_ms is
// their read time. Counters: every stage's ms, constraints/s. backend:cuda is registered only
// where a GPU is usable. The hash-chain cases run in the quick suite; the PoRep one in full.
// Run: bench_prove --benchmark_filter='prove/porep' --dataset porep-2kib --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <memory>
#include <string>

#include "bench_main.hpp"
#include "core/rng.hpp"
#include "gpu/backend.hpp"
#include "gpu/device.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "pipeline/pce_cache.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"
#include "pipeline/params_cache.hpp"
#include "porep/circuit.hpp"
#include "porep_fixture.hpp"

namespace {

using namespace c2lab;
using namespace c2lab::groth16;

struct prepared_case {
    parameters params;
    r1cs::proving_assignment<r1cs::vec_indexer> pa;
};

// Shared by both b_g2 variants: one setup per size.
const prepared_case& case_for(int log_n) {
    static std::map<int, std::unique_ptr<prepared_case>> cache;
    auto& slot = cache[log_n];
    if (!slot) {
        // constraints = steps + 2 (one per step, two input constraints).
        const r1cs::hash_chain circuit{(size_t{1} << log_n) - 2, fr::from_u64(5), fr::from_u64(3)};
        r1cs::constraint_matrices<r1cs::vec_indexer> cs;
        circuit.synthesize(cs);
        cs.enforce_input_constraints();
        rng g(static_cast<uint64_t>(log_n));
        slot = std::make_unique<prepared_case>();
        slot->params = generate_parameters(cs, g);
        circuit.synthesize(slot->pa);
        slot->pa.enforce_input_constraints();
    }
    return *slot;
}

void prove_bench(benchmark::State& state, b_g2_msm mode) {
    const prepared_case& c = case_for(static_cast<int>(state.range(0)));
    prover_config cfg = bench::opts().flags.prover();  // msm_window, inject_stage_slowdown (test only)
    cfg.b_g2 = mode;                                    // both variants registered, whatever the flag says
    rng g(1);
    const fr r = fr::random(g), s = fr::random(g);
    stage_report last;
    for (auto _ : state) {
        stage_report rep;
        proof p = create_proof(c.params, c.pa, r, s, cfg, &rep);
        benchmark::DoNotOptimize(p);
        last = std::move(rep);
    }
    for (const auto& [name, ms] : last.stages()) state.counters[name + "_ms"] = ms;
    state.counters["constraints/s"] = benchmark::Counter(double(c.pa.num_constraints()) * double(state.iterations()),
                                                         benchmark::Counter::kIsRate);
}

const int registered = [] {
    for (b_g2_msm mode : {b_g2_msm::serial, b_g2_msm::parallel}) {
        std::string name = "prove/hash_chain/b_g2:" + std::string(to_string(mode));
        benchmark::RegisterBenchmark(name.c_str(), [mode](benchmark::State& s) { prove_bench(s, mode); })
            ->ArgNames({"log_n"})
            ->DenseRange(10, 14, 1)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    }
    return 0;
}();

// One PoRep dataset's parameters, read once per process.
struct porep_case {
    groth16::parameters params;
    double load_ms = 0;
};

const porep_case& porep_params_for(const porep::porep_config& cfg) {
    static std::map<std::string, std::unique_ptr<porep_case>> cache;
    auto& slot = cache[cfg.registered_proof];
    if (!slot) {
        const std::string path = pipeline::ensure_porep_params(
            cfg, 0, [](const std::string& line) { std::fprintf(stderr, "[bench_prove] %s\n", line.c_str()); });
        slot = std::make_unique<porep_case>();
        const auto t0 = std::chrono::steady_clock::now();
        slot->params = read_parameters(path);
        slot->load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    return *slot;
}

void prove_porep(benchmark::State& state, const std::string& dataset, backend_kind kind) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, dataset);
    if (!dp) return;
    const bench::options& o = bench::opts();
    const porep::stacked_circuit circuit = porep::construct_circuit(*dp->cfg, dp->file.phase1_out, 0);
    const r1cs::circuit_shape sc = pipeline::count_porep_shape(*dp->cfg);
    const r1cs::capacity_hint hint = sc.hint();
    const porep_case* pc = nullptr;
    std::shared_ptr<const r1cs::precompiled_circuit> pce;  // synth=pce: loaded (or built) once, untimed
    try {
        pc = &porep_params_for(*dp->cfg);
        pce = pipeline::porep_pce_for(o.flags, *dp->cfg, sc, [](const std::string& line) {
            std::fprintf(stderr, "[bench_prove] %s\n", line.c_str());
        });
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    const auto backend = gpu::make_prover_backend(kind, o.flags.host_pinning);
    const prover_config cfg = o.flags.prover(backend.get());
    rng g(1);
    const fr r = fr::random(g), s = fr::random(g);
    stage_report last;
    for (auto _ : state) {
        stage_report rep;
        std::unique_ptr<pipeline::prepared_job> job;
        {
            scoped_stage st(&rep, "synthesize");
            job = pipeline::synthesize_porep_job(circuit, o.flags, hint, pce);  // synth, lc_indexer, presize
        }
        proof p = create_proof(pc->params, job->witness(), r, s, cfg, &rep);
        benchmark::DoNotOptimize(p);
        last = std::move(rep);
    }
    for (const auto& [name, ms] : last.stages()) state.counters[name + "_ms"] = ms;
    state.counters["load_params_ms"] = pc->load_ms;
    state.counters["constraints/s"] =
        benchmark::Counter(double(hint.constraints) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void register_porep() {
    const bool gpu = gpu::gpu_available();
    for (const std::string& name : bench::datasets_or({"porep-2kib"})) {
        for (backend_kind kind : {backend_kind::cpu, backend_kind::cuda}) {
            if (!bench::selected("backend", to_string(kind))) continue;
            if (kind == backend_kind::cuda && !gpu) continue;
            const std::string bn = "prove/porep/" + name + "/backend:" + std::string(to_string(kind));
            benchmark::RegisterBenchmark(bn.c_str(), [name, kind](benchmark::State& st) { prove_porep(st, name, kind); })
                ->Iterations(1)
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    }
}
C2LAB_BENCH_REGISTRATION(register_porep);

}  // namespace

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
//   prove/porep/<dataset>/backend:<cpu|cuda>   the C2 job of a PoRep dataset (default
//                                              porep-2kib) as `c2lab prove` runs it
//                                              (pipeline/c2_job.hpp), every partition: synthesis
//                                              (the synth, lc_indexer and presize flags; synth=pce
//                                              or auto: the cached pre-compiled circuit, loaded
//                                              outside the timing) + the prover (msm_window, msm_split,
//                                              b_g2_msm flags), one iteration per repetition
//   prove/porep_job/<dataset>/backend:<cpu|cuda>   the same job prepared in each iteration too:
//                                              C1 decode, construct, the parameters' load
//                                              (params_load=before|overlap, a warm page cache)
//                                              and the proof, all of `c2lab prove`
//
// Parameters come from the cache of `c2lab setup --c1` (pipeline/params_cache.hpp) and are
// generated on first use (2 KiB: about 3 minutes and 1.1 GB on 2 cores); load_params_ms is
// their read time (params_io flag). Counters: every stage's ms (of the first partition),
// constraints/s. backend:cuda is registered only
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
#include "pipeline/c2_job.hpp"
#include "pipeline/datasets.hpp"
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
    prover_config cfg = bench::opts().flags.prover();       // msm_window, msm_split
    cfg.on_stage = bench::opts().test_flags.stage_hook();  // inject_stage_slowdown (test only)
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

// The request `c2lab prove --c1 <dataset>` makes (the flags of the command line), its
// parameters and pre-compiled circuit made on first use as `c2lab setup --c1` leaves the cache
// (so synth=auto, the default, takes it), the blinding seeded.
pipeline::c2_request porep_request(const std::string& dataset, groth16::prover_backend* backend) {
    auto say = [](const std::string& line) { std::fprintf(stderr, "[bench_prove] %s\n", line.c_str()); };
    const bench::loaded_dataset& d = bench::dataset(dataset);
    pipeline::c2_request req;
    req.c1_paths = {pipeline::dataset_path(dataset)};
    req.params_path = pipeline::ensure_porep_params(*d.cfg, 0, say);  // generated on first use
    if (bench::opts().flags.synth != r1cs::synth_mode::direct)
        pipeline::ensure_porep_pce(*d.cfg, pipeline::count_porep_shape(*d.cfg), say);
    req.flags = bench::opts().flags;
    req.backend = backend;
    req.progress = say;
    auto g = std::make_shared<rng>(1);
    req.blinding = [g] { return std::pair{fr::random(*g), fr::random(*g)}; };
    return req;
}

// One C2 job per dataset and backend (pipeline/c2_job.hpp: decode, construct, parameters,
// pre-compiled circuit), prepared once per process outside the timing; each iteration is one
// c2_job::prove(): synthesis and the prover, as `c2lab prove` runs them.
const pipeline::c2_job& porep_job_for(const std::string& dataset, groth16::prover_backend* backend) {
    static std::map<std::pair<std::string, groth16::prover_backend*>, std::unique_ptr<pipeline::c2_job>> cache;
    auto& slot = cache[{dataset, backend}];
    if (!slot) slot = std::make_unique<pipeline::c2_job>(porep_request(dataset, backend));
    return *slot;
}

void prove_porep(benchmark::State& state, const std::string& dataset, backend_kind kind) {
    if (!bench::dataset_or_skip(state, dataset)) return;
    const bench::options& o = bench::opts();
    const pipeline::c2_job* job = nullptr;
    std::unique_ptr<prover_backend> backend;
    try {
        static std::map<backend_kind, std::unique_ptr<prover_backend>> backends;  // one per process, as the jobs
        auto& be = backends[kind];
        if (!be) be = gpu::make_prover_backend(kind, o.flags.host_pinning);
        job = &porep_job_for(dataset, be.get());
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    stage_report last;
    for (auto _ : state) {
        pipeline::c2_result res = job->prove();
        benchmark::DoNotOptimize(res.batch.jobs);
        last = std::move(res.batch.jobs.front().report);
    }
    for (const auto& [name, ms] : last.stages())
        if (name != "queue") state.counters[name + "_ms"] = ms;
    state.counters["load_params_ms"] = job->load_params_ms();
    state.counters["constraints/s"] = benchmark::Counter(double(job->shape().num_constraints()) * double(state.iterations()),
                                                         benchmark::Counter::kIsRate);
}

// The whole of `c2lab prove --c1 <dataset>` in each iteration: the job prepared (C1 decode,
// construct, the parameters' header, their load: params_load=before|overlap) and proved. The
// parameters file stays in the page cache between iterations (a warm load).
void prove_porep_job(benchmark::State& state, const std::string& dataset, backend_kind kind) {
    if (!bench::dataset_or_skip(state, dataset)) return;
    std::unique_ptr<prover_backend> backend;
    pipeline::c2_request req;
    try {
        backend = gpu::make_prover_backend(kind, bench::opts().flags.host_pinning);
        req = porep_request(dataset, backend.get());
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    stage_report last;
    double load_ms = 0, wait_ms = 0;
    for (auto _ : state) {
        const pipeline::c2_job job(req);
        pipeline::c2_result res = job.prove();
        benchmark::DoNotOptimize(res.batch.jobs);
        last = std::move(res.batch.jobs.front().report);
        load_ms = job.load_params_ms();
        wait_ms = job.params_wait_ms();
    }
    for (const auto& [name, ms] : last.stages())
        if (name != "queue") state.counters[name + "_ms"] = ms;
    state.counters["load_params_ms"] = load_ms;
    state.counters["params_wait_ms"] = wait_ms;
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
            const std::string jn = "prove/porep_job/" + name + "/backend:" + std::string(to_string(kind));
            benchmark::RegisterBenchmark(jn.c_str(), [name, kind](benchmark::State& st) { prove_porep_job(st, name, kind); })
                ->Iterations(1)
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    }
}
C2LAB_BENCH_REGISTRATION(register_porep);

}  // namespace

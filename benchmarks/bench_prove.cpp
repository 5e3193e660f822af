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
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "core/rng.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

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
    prover_config cfg;
    cfg.b_g2 = mode;
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

}  // namespace


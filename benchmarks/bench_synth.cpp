// bench_synth: the synthesize stage of the PoRep circuit, partition 0 of a dataset, into a
// proving assignment (a, b, c, aux, densities), per lc_indexer variant and presize; and the
// shape-only synthesis that circuit-info and setup use. cuzk's synth-only, as a benchmark:
// one stage, no parameters, no GPU.
//
//   synth/<dataset>/lc_indexer:<v>/presize:<off|on>   counters: constraints/s, constraints
//   synth/<dataset>/synth:<direct|pce>/presize:<p>      flag synth: direct = the proving
//                                                      assignment with the lc_indexer flag's
//                                                      indexer; pce = witness-only synthesis
//                                                      (witness_assignment) + the product of
//                                                      the pre-compiled matrices, on ONE thread
//                                                      (a per-thread rate beside direct's);
//                                                      counters witness_ms, multiply_ms (pce)
//   synth/<dataset>/synth:pce/presize:<p>/threads:<n>  the same on every core (n > 1), as the
//                                                      prover runs it: the witness on one
//                                                      thread, the pages of a, b and c faulted
//                                                      in and the product on all; presize:
//                                                      prefault (pce only) makes a, b, c before
//                                                      the witness and faults them in meanwhile
//                                                      on a thread of their own (r1cs::
//                                                      prefaulted_abc, from 1 GiB)
//   pce_eval/<dataset>/threads:<n>                     the product alone, 1 thread and every core
//   pce_build/<dataset>                                the one-time extraction (matrices of the
//                                                      blank circuit, compiled); counters entries,
//                                                      file_bytes
//   pce_load/<dataset>                                 the file's bytes back (checksum, checks)
//   pce_open/<dataset>                                 the cached file mapped, checksummed and
//                                                      checked, as prove's load_pce stage does
//   synth_shape/<dataset>                              shape_counter only
//   shape_pass/<dataset>                               the whole shape pass (densities, entries,
//                                                      the structure's SHA-256 digest) that
//                                                      circuit-info and setup run; 2 KiB by
//                                                      default, 32 GiB with --dataset porep-32gib
//
//   synth/<dataset>/witness_memory:<fresh|reuse>/lc_indexer:<v>/presize:<p>
//                                                      after one untimed synthesis, into new
//                                                      vectors (fresh) or that synthesis's
//                                                      (reuse); lc_indexer and presize are the
//                                                      flags' values (--flag presize=prefault:
//                                                      the fresh vectors' pages faulted in on
//                                                      a thread of its own; the process is not
//                                                      to be pinned to one core for that)
//
// The direct cases synthesize the challenges one after another (a per-thread rate) unless
// --flag synth_challenges=parallel is given (auto, the prover's default, is serial here: these
// cases run at 32 GiB too, where the parts would need 16.7 GB more).
// Only partition 0 is synthesized (every partition has the same shape). 32 GiB synthesis
// into an assignment needs ~20 GB and minutes: its shape-only run is registered by default,
// the full one with --dataset porep-32gib.
// Run: bench_synth --flag lc_indexer=smallvec4 --flag presize=on
//      c2lab ab --filter 'synth/porep-2kib/synth:' --flag synth=direct,pce
// The pre-compiled circuit comes from the cache beside the parameters
// (pipeline/pce_cache.hpp), built on first use.
#include <benchmark/benchmark.h>

#include <optional>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <memory>
#include <thread>

#include "bench_main.hpp"
#include "core/parallel.hpp"
#include "pipeline/params_cache.hpp"
#include "pipeline/pce_cache.hpp"
#include "porep/circuit.hpp"
#include "porep_fixture.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape_pass.hpp"

namespace {

using namespace c2lab;

// CPU time of the calling thread, in ms: on a shared machine the per-thread cost, where the
// wall time also counts the time other processes held the core.
double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

// With `memory` given (the witness_memory:<v> benchmarks), one synthesis runs first, untimed, as
// the previous partition of a job, and warms the process alike for both variants (the heap of
// the linear combinations, caches); with reuse every timed synthesis then builds on the
// vectors of the one before (r1cs::assignment_buffers), with fresh they are freed.
template <class Indexer>
void synth(benchmark::State& state, std::string name, r1cs::presize_mode presize,
           std::optional<r1cs::witness_memory> memory = std::nullopt) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return;
    const bench::loaded_dataset& d = *dp;
    porep::stacked_circuit c = porep::construct_circuit(*d.cfg, d.file.phase1_out, 0);
    c.parallel_challenges = bench::opts().flags.synth_challenges == pipeline::synth_challenges::parallel;
    r1cs::shape_counter sc;
    porep::stacked_circuit::blank(*d.cfg).synthesize(sc);
    const r1cs::capacity_hint hint = sc.hint();
    const bool reuse = memory == r1cs::witness_memory::reuse;
    r1cs::assignment_buffers kept;
    if (memory) {
        r1cs::proving_assignment<Indexer> pa(hint, presize);
        c.synthesize(pa);
        pa.enforce_input_constraints();
        if (reuse) kept = std::move(pa).take_buffers();
    }
    double cpu = 0;
    for (auto _ : state) {
        const double c0 = thread_cpu_ms();
        r1cs::proving_assignment<Indexer> pa(hint, presize, std::move(kept));
        c.synthesize(pa);
        pa.enforce_input_constraints();
        benchmark::DoNotOptimize(pa.a().data());
        if (reuse) kept = std::move(pa).take_buffers();  // fresh: freed at the end of the iteration
        cpu += thread_cpu_ms() - c0;
    }
    state.counters["constraints/s"] =
        benchmark::Counter(double(hint.constraints) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["constraints"] = double(hint.constraints);
    // constraints per second of this thread's CPU time (synthesis is single-threaded)
    state.counters["constraints/cpu_s"] = double(hint.constraints) / (cpu / double(state.iterations()) * 1e-3);
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

void shape_pass(benchmark::State& state, std::string name) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return;
    const porep::stacked_circuit blank = porep::stacked_circuit::blank(*dp->cfg);
    r1cs::circuit_shape s;
    for (auto _ : state) {
        s = r1cs::shape_of([&](r1cs::shape_pass& pass) { blank.synthesize(pass); });
        benchmark::DoNotOptimize(s.digest);
    }
    state.counters["constraints/s"] =
        benchmark::Counter(double(s.constraints) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["constraints"] = double(s.constraints);
}

using clock_type = std::chrono::steady_clock;
double ms_between(clock_type::time_point a, clock_type::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

// The dataset's pre-compiled circuit, from the cache (built and saved on first use).
std::shared_ptr<const r1cs::precompiled_circuit> pce_for(const bench::loaded_dataset& d) {
    static std::map<std::string, std::shared_ptr<const r1cs::precompiled_circuit>> cache;
    auto& slot = cache[d.cfg->registered_proof];
    if (!slot) slot = pipeline::ensure_porep_pce(*d.cfg, pipeline::count_porep_shape(*d.cfg));
    return slot;
}

// Partition 0's circuit and the dataset's pre-compiled circuit, or a skipped benchmark.
struct pce_case {
    porep::stacked_circuit circuit;
    std::shared_ptr<const r1cs::precompiled_circuit> pce;
};
std::optional<pce_case> pce_case_or_skip(benchmark::State& state, const std::string& name) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return std::nullopt;
    try {
        return pce_case{porep::construct_circuit(*dp->cfg, dp->file.phase1_out, 0), pce_for(*dp)};
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return std::nullopt;
    }
}

// synth:pce on `threads` threads: witness-only synthesis, then the product.
void synth_pce(benchmark::State& state, std::string name, r1cs::presize_mode presize, unsigned threads) {
    auto pc = pce_case_or_skip(state, name);
    if (!pc) return;
    const porep::stacked_circuit& c = pc->circuit;
    const std::shared_ptr<const r1cs::precompiled_circuit>& pce = pc->pce;
    const r1cs::capacity_hint hint = pce->shape();
    double witness_ms = 0, multiply_ms = 0, witness_cpu = 0, multiply_cpu = 0;
    parallel::in_arena(threads, [&] {
        for (auto _ : state) {
            const auto t0 = clock_type::now();
            const double c0 = thread_cpu_ms();
            r1cs::witness_assignment wa(hint, presize);
            r1cs::prefaulted_abc ahead(*pce, 0, presize);  // prefault: a, b, c faulted in meanwhile
            c.synthesize(wa);
            wa.enforce_input_constraints();
            const auto t1 = clock_type::now();
            const double c1 = thread_cpu_ms();
            const auto abc = ahead.evaluate(*pce, wa.input_assignment(), wa.aux_assignment());
            benchmark::DoNotOptimize(abc.a.data());
            const auto t2 = clock_type::now();
            const double c2 = thread_cpu_ms();
            witness_ms += ms_between(t0, t1);
            multiply_ms += ms_between(t1, t2);
            witness_cpu += c1 - c0;
            multiply_cpu += c2 - c1;
        }
    });
    const double n = double(state.iterations());
    state.counters["constraints/s"] = benchmark::Counter(double(hint.constraints) * n, benchmark::Counter::kIsRate);
    state.counters["constraints"] = double(hint.constraints);
    state.counters["witness_ms"] = witness_ms / n;
    state.counters["multiply_ms"] = multiply_ms / n;
    if (threads > 1) return;  // the CPU times below are the calling thread's alone
    state.counters["witness_cpu_ms"] = witness_cpu / n;
    state.counters["multiply_cpu_ms"] = multiply_cpu / n;
    // constraints per second of this thread's CPU time (witness + product)
    state.counters["constraints/cpu_s"] = double(hint.constraints) / ((witness_cpu + multiply_cpu) / n * 1e-3);
}

// The product alone, on `threads` threads.
void pce_eval(benchmark::State& state, std::string name) {
    auto pc = pce_case_or_skip(state, name);
    if (!pc) return;
    const porep::stacked_circuit& c = pc->circuit;
    const std::shared_ptr<const r1cs::precompiled_circuit>& pce = pc->pce;
    r1cs::witness_assignment wa(pce->shape(), r1cs::presize_mode::on);
    c.synthesize(wa);
    wa.enforce_input_constraints();
    auto abc = pce->evaluate(wa.input_assignment(), wa.aux_assignment());  // pages touched once
    parallel::in_arena(static_cast<unsigned>(state.range(0)), [&] {
        for (auto _ : state) {
            pce->evaluate(wa.input_assignment(), wa.aux_assignment(), abc.a.span(), abc.b.span(), abc.c.span());
            benchmark::DoNotOptimize(abc.a.data());
        }
    });
    state.counters["constraints/s"] =
        benchmark::Counter(double(pce->num_constraints()) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["entries/s"] =
        benchmark::Counter(double(pce->num_entries()) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void pce_build(benchmark::State& state, std::string name) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return;
    size_t entries = 0, constraints = 0, bytes = 0, dict = 0, unit = 0;
    for (auto _ : state) {
        const r1cs::precompiled_circuit p = pipeline::build_porep_pce(*dp->cfg);
        entries = p.num_entries();
        constraints = p.num_constraints();
        dict = p.coefficients().size();
        unit = 0;
        for (const auto* m : {&p.a(), &p.b(), &p.c()})
            for (const auto& e : m->entries) unit += e.coeff <= 1;  // ids 0 and 1: +1, -1
        state.PauseTiming();
        bytes = p.serialize().size();
        state.ResumeTiming();
    }
    state.counters["constraints/s"] =
        benchmark::Counter(double(constraints) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["entries"] = double(entries);
    state.counters["coefficients"] = double(dict);
    state.counters["unit_entries_pct"] = entries ? 100.0 * double(unit) / double(entries) : 0;
    state.counters["file_bytes"] = double(bytes);
}

void pce_load(benchmark::State& state, std::string name) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return;
    const std::vector<uint8_t> bytes = pipeline::build_porep_pce(*dp->cfg).serialize();
    for (auto _ : state) {
        const r1cs::precompiled_circuit p = r1cs::precompiled_circuit::deserialize(bytes, name);
        benchmark::DoNotOptimize(p.num_entries());
    }
    state.counters["bytes/s"] =
        benchmark::Counter(double(bytes.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// The cached file (pipeline/pce_cache.hpp: built on first use), as the prover takes it.
void pce_open(benchmark::State& state, std::string name) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return;
    const r1cs::circuit_shape sc = pipeline::count_porep_shape(*dp->cfg);
    pipeline::ensure_porep_pce(*dp->cfg, sc);
    const std::string path = pipeline::porep_pce_path(*dp->cfg, sc);
    const r1cs::capacity_hint hint = sc.hint();
    const std::string tag = pipeline::porep_pce_tag(*dp->cfg, sc);
    for (auto _ : state) {
        const r1cs::precompiled_circuit p = r1cs::precompiled_circuit::open(path, &hint, &tag);
        benchmark::DoNotOptimize(p.num_entries());
    }
    state.counters["bytes/s"] = benchmark::Counter(double(std::filesystem::file_size(path)) * double(state.iterations()),
                                                   benchmark::Counter::kIsRate);
}

void register_all() {
    const std::vector<std::string> full = bench::datasets_or({"porep-2kib", "porep-512mib"});
    for (const std::string& name : full)
        for (std::string_view ix : r1cs::lc_indexer_names) {
            if (!bench::selected("lc_indexer", ix) || !bench::selected("synth", "direct")) continue;
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
    // witness_memory:<fresh|reuse>: direct, with the lc_indexer and presize flags' values.
    for (const std::string& name : full)
        for (r1cs::witness_memory m : {r1cs::witness_memory::fresh, r1cs::witness_memory::reuse}) {
            if (!bench::selected("witness_memory", r1cs::to_string(m)) || !bench::selected("synth", "direct")) continue;
            const r1cs::presize_mode p = bench::opts().flags.presize;
            const std::string bn = "synth/" + name + "/witness_memory:" + std::string(r1cs::to_string(m)) +
                                   "/lc_indexer:" + bench::opts().flags.lc_indexer +
                                   "/presize:" + std::string(r1cs::to_string(p));
            r1cs::with_lc_indexer(bench::opts().flags.lc_indexer, [&](auto tag) {
                using I = typename decltype(tag)::type;
                benchmark::RegisterBenchmark(bn.c_str(), [name, p, m](benchmark::State& s) {
                    synth<I>(s, name, p, std::optional{m});
                })
                    ->Unit(benchmark::kMillisecond)
                    ->UseRealTime();
            });
        }
    // One thread, and every core where there are more: the pce cases' and pce_eval's thread counts.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<unsigned> thread_counts{1};
    if (cores > 1) thread_counts.push_back(cores);
    // synth:<mode>: direct with the lc_indexer flag's indexer (vec unless given).
    for (const std::string& name : full)
        for (r1cs::synth_mode m : {r1cs::synth_mode::direct, r1cs::synth_mode::pce}) {
            if (!bench::selected("synth", r1cs::to_string(m))) continue;
            for (auto p : {r1cs::presize_mode::off, r1cs::presize_mode::on, r1cs::presize_mode::prefault}) {
                if (!bench::selected("presize", r1cs::to_string(p))) continue;
                // prefault: the pce case's a, b, c (the direct path's is witness_memory:fresh below)
                if (p == r1cs::presize_mode::prefault && m != r1cs::synth_mode::pce) continue;
                const std::string bn = "synth/" + name + "/synth:" + std::string(r1cs::to_string(m)) +
                                       "/presize:" + std::string(r1cs::to_string(p));
                if (m == r1cs::synth_mode::pce) {
                    // One thread under the name it always had; every core with /threads:<n>. A 32 GiB
                    // partition into fresh memory spends most of its product faulting in a, b and c
                    // (12.9 GB): on the 2-core Intel Xeon of family 6 model 167, 40-57 s on one
                    // thread against 22-34 s on two (results/reference/pce-32gib-xeon-model167-2026-12-07.md).
                    for (unsigned t : thread_counts) {
                        const std::string tn = t == 1 ? bn : bn + "/threads:" + std::to_string(t);
                        benchmark::RegisterBenchmark(tn.c_str(), [name, p, t](benchmark::State& s) { synth_pce(s, name, p, t); })
                            ->Unit(benchmark::kMillisecond)
                            ->UseRealTime();
                    }
                    continue;
                }
                r1cs::with_lc_indexer(bench::opts().flags.lc_indexer, [&](auto tag) {
                    using I = typename decltype(tag)::type;
                    benchmark::RegisterBenchmark(bn.c_str(), [name, p](benchmark::State& s) { synth<I>(s, name, p); })
                        ->Unit(benchmark::kMillisecond)
                        ->UseRealTime();
                });
            }
        }
    for (const std::string& name : bench::datasets_or({"porep-2kib"})) {
        if (!bench::selected("synth", "pce")) continue;
        auto* b = benchmark::RegisterBenchmark(("pce_eval/" + name).c_str(),
                                               [name](benchmark::State& s) { pce_eval(s, name); });
        b->ArgNames({"threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
        for (unsigned t : thread_counts) b->Arg(static_cast<int64_t>(t));
        benchmark::RegisterBenchmark(("pce_build/" + name).c_str(), [name](benchmark::State& s) { pce_build(s, name); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("pce_load/" + name).c_str(), [name](benchmark::State& s) { pce_load(s, name); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("pce_open/" + name).c_str(), [name](benchmark::State& s) { pce_open(s, name); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    for (const std::string& name : bench::datasets_or({"porep-2kib", "porep-32gib"}))
        benchmark::RegisterBenchmark(("synth_shape/" + name).c_str(), [name](benchmark::State& s) { synth_shape(s, name); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    for (const std::string& name : bench::datasets_or({"porep-2kib"}))
        benchmark::RegisterBenchmark(("shape_pass/" + name).c_str(), [name](benchmark::State& s) { shape_pass(s, name); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

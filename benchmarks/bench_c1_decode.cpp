// bench_c1_decode: the c1_decode stage, C1 text (in memory) -> typed vanilla proofs, per
// decoder (flag c1_json: nlohmann, simdjson) and dataset.
//
//   c1_decode/<dataset>/c1_json:<decoder>             counters: bytes/s (of the outer file), MB
//   c1_decode/<dataset>/c1_json:simdjson/threads:1    the same in a oneTBB arena of one thread
//
// The first runs in the default arena (every core): the simdjson decoder splits the base64 and
// the challenges over it (porep/c1_layout.hpp); nlohmann's is serial. The time includes freeing
// the decoded file. The file is read and its digest checked outside the timing. cuzk's
// reference point: a 51 MB 32 GiB c1.json decodes in about 300 ms (REFERENCES.md).
// Run: bench_c1_decode --dataset porep-32gib --flag c1_json=simdjson
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_main.hpp"
#include "core/parallel.hpp"
#include "porep_fixture.hpp"

namespace {

using namespace c2lab;

// threads: 0 runs in the default arena (every core), k > 0 in an arena of k.
void c1_decode(benchmark::State& state, std::string name, porep::c1_json_decoder decoder, unsigned threads) {
    const bench::loaded_dataset* dp = bench::dataset_or_skip(state, name);
    if (!dp) return;
    const bench::loaded_dataset& d = *dp;
    parallel::in_arena(threads, [&] {
        for (auto _ : state) {
            porep::c1_file f = porep::decode_c1_file(d.text, decoder);
            benchmark::DoNotOptimize(f.phase1_out.comm_r.data());
        }
    });
    state.counters["bytes/s"] =
        benchmark::Counter(double(d.text.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["MB"] = double(d.text.size()) / 1e6;
}

void register_all() {
    for (const std::string& name : bench::datasets_or({"porep-2kib", "porep-512mib", "porep-32gib"}))
        for (auto dec : {porep::c1_json_decoder::nlohmann, porep::c1_json_decoder::simdjson}) {
            const std::string v(porep::to_string(dec));
            if (!bench::selected("c1_json", v)) continue;
            const std::string base = "c1_decode/" + name + "/c1_json:" + v;
            // nlohmann's decoder is serial; simdjson's splits the base64 and the challenges.
            for (unsigned threads : dec == porep::c1_json_decoder::simdjson ? std::vector<unsigned>{0, 1}
                                                                             : std::vector<unsigned>{0})
                benchmark::RegisterBenchmark((base + (threads ? "/threads:" + std::to_string(threads) : "")).c_str(),
                                             [name, dec, threads](benchmark::State& s) { c1_decode(s, name, dec, threads); })
                    ->Unit(benchmark::kMillisecond)
                    ->UseRealTime();
        }
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

// bench_verify: verifying one proof from files, as a verifier that starts cold does, with the
// verifying key taken from a .vk file (groth16/vk_file.hpp) or from the parameters file,
// side by side in one run:
//
//   verify/<source>/vk_file       read <parameters>.vk + decode (every point checked) + prepare
//                                 (check_verifying_key, e(alpha, beta), the G2 lines) + decode
//                                 the proof + verify
//   verify/<source>/params_file   read_parameters (checksum, every point checked) + the same
//
// source: hash_chain_2^10 (the quick suite; the `c2lab setup --circuit hash-chain --steps 1022`
// cache entry, made on first use in a second) or a PoRep dataset (porep-2kib: its partition 0;
// the parameters of `c2lab setup --c1`, made on first use as bench_prove makes them, about 3
// minutes and 1.1 GB on 2 cores; the .vk beside them written from them when missing). The proof
// is made once per source, outside the timing (the 2 KiB partition: about 12 s). Every iteration
// checks that the proof verifies. Counters: key_bytes (the file read), public_inputs.
// Run: bench_verify --benchmark_filter='verify/porep' --dataset porep-2kib
#include <benchmark/benchmark.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "core/rng.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "groth16/vk_file.hpp"
#include "pipeline/params_cache.hpp"
#include "pipeline/pce_cache.hpp"
#include "porep/circuit.hpp"
#include "porep_fixture.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

namespace {

using namespace c2lab;
using namespace c2lab::groth16;
namespace fs = std::filesystem;

constexpr int hash_chain_log_n = 10;

void say(const std::string& line) { std::fprintf(stderr, "[bench_verify] %s\n", line.c_str()); }

// What a verifier gets: the key's files, the proof's bytes and the public inputs.
struct verify_case {
    std::string params_path;
    std::string vk_path;
    std::array<uint8_t, proof_bytes> proof{};
    std::vector<fr> inputs;
};

verify_case hash_chain_case() {
    const r1cs::hash_chain circuit{(size_t{1} << hash_chain_log_n) - 2, fr::from_u64(7), fr::from_u64(3)};
    const r1cs::circuit_shape sc = r1cs::shape_of([&](r1cs::shape_pass& pass) { circuit.synthesize(pass); });
    verify_case c;
    // The entry `c2lab setup --circuit hash-chain --steps 1022` makes (seed 0).
    c.params_path = pipeline::ensure_cached_params(
                        pipeline::params_path("hash-chain", sc),
                        [&](const std::string& path) {
                            r1cs::constraint_matrices<> cs;
                            circuit.synthesize(cs);
                            cs.enforce_input_constraints();
                            rng g(0);
                            parameters p = generate_parameters(cs, g);
                            p.circuit_digest = sc.digest;
                            write_parameters_and_vk(path, p);
                        },
                        say)
                        .path;
    c.vk_path = ensure_vk_beside(c.params_path);
    const parameters params = read_parameters(c.params_path);
    r1cs::proving_assignment<r1cs::vec_indexer> pa;
    circuit.synthesize(pa);
    pa.enforce_input_constraints();
    rng g(1);
    c.proof = encode_proof(create_proof(params, pa, fr::random(g), fr::random(g)));
    c.inputs.assign(pa.input_assignment().begin() + 1, pa.input_assignment().end());
    return c;
}

verify_case porep_case(const bench::loaded_dataset& d) {
    verify_case c;
    c.params_path = pipeline::ensure_porep_params(*d.cfg, 0, say);  // bench_prove's parameters
    c.vk_path = ensure_vk_beside(c.params_path);
    const parameters params = read_parameters(c.params_path);
    const porep::stacked_circuit circuit = porep::construct_circuit(*d.cfg, d.file.phase1_out, 0);
    const r1cs::circuit_shape sc = pipeline::count_porep_shape(*d.cfg);
    say("proving partition 0 of " + d.cfg->registered_proof + " once");
    const auto job = pipeline::synthesize_porep_job(circuit, bench::opts().flags, sc.hint(), nullptr);
    rng g(1);
    c.proof = encode_proof(create_proof(params, job->witness(), fr::random(g), fr::random(g)));
    c.inputs = porep::public_inputs(*d.cfg, d.file.phase1_out, 0);
    return c;
}

// One case per source, made on first use.
template <class Make>
const verify_case* case_or_skip(benchmark::State& state, const std::string& source, Make&& make) {
    static std::map<std::string, std::unique_ptr<verify_case>> cache;
    auto& slot = cache[source];
    if (!slot) {
        try {
            slot = std::make_unique<verify_case>(make());
        } catch (const std::exception& e) {
            cache.erase(source);
            state.SkipWithError(e.what());
            return nullptr;
        }
    }
    return slot.get();
}

enum class key_source { vk_file, params_file };

void verify_bench(benchmark::State& state, const verify_case* c, key_source from) {
    if (c == nullptr) return;
    const std::string& file = from == key_source::vk_file ? c->vk_path : c->params_path;
    for (auto _ : state) {
        const verifying_key vk =
            from == key_source::vk_file ? read_verifying_key(c->vk_path) : read_parameters(c->params_path).vk;
        const prepared_verifying_key pvk = prepare_verifying_key(vk);
        const bool ok = verify_proof(pvk, decode_proof(c->proof), c->inputs);
        if (!ok) {
            state.SkipWithError("the proof does not verify");
            return;
        }
    }
    state.counters["key_bytes"] = double(fs::file_size(file));
    state.counters["public_inputs"] = double(c->inputs.size());
}

void register_source(const std::string& source, const std::function<const verify_case*(benchmark::State&)>& get) {
    for (key_source from : {key_source::vk_file, key_source::params_file}) {
        const std::string name = "verify/" + source + (from == key_source::vk_file ? "/vk_file" : "/params_file");
        benchmark::RegisterBenchmark(name.c_str(), [get, from](benchmark::State& st) { verify_bench(st, get(st), from); })
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    }
}

void register_verify() {
    const std::string hc = "hash_chain_2^" + std::to_string(hash_chain_log_n);
    register_source(hc, [hc](benchmark::State& st) { return case_or_skip(st, hc, hash_chain_case); });
    for (const std::string& name : bench::datasets_or({"porep-2kib"})) {
        register_source(name, [name](benchmark::State& st) -> const verify_case* {
            return case_or_skip(st, name, [&] { return porep_case(bench::dataset(name)); });
        });
    }
}
C2LAB_BENCH_REGISTRATION(register_verify);

}  // namespace

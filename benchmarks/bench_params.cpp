// bench_params: loading the Groth16 parameters (the SRS) as a stage of its own, the real
// system's 15 s cold. Each iteration reads and decodes one parameters file into memory
// (groth16::read_parameters: checksum, canonical and on-curve checks of every point).
//
//   params/load/<source>/params_io:<mmap|read>/cache:<warm|cold>[/host_pinning:register]
//
// source: hash_chain_2^14 (the quick suite; 2^14 constraints, about 9 MB, made on first use
// in the parameters cache) or a PoRep dataset's circuit (porep-2kib: 1.1 GB, made on first use
// as `c2lab setup --c1` would, about 3 minutes). cache:cold drops the file's pages from the
// page cache before each iteration (posix_fadvise DONTNEED, untimed; no root needed); the
// counter cold_resident_pct says how much of the file was still resident after the drop (0 on
// a machine that honours it; where it stays high, the cold numbers are warm ones). With a GPU,
// host_pinning:register also registers the loaded query vectors with cudaHostRegister (and
// unregisters them), timed: the cost the CUDA backend pays to copy from pinned memory.
// Counters: bytes/s (of file), bytes.
// Run: bench_params --benchmark_filter='params/load/hash_chain' --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "core/rng.hpp"
#include "gpu/device.hpp"
#include "gpu/memory/host_memory.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"
#include "pipeline/datasets.hpp"
#include "pipeline/params_cache.hpp"
#include "porep_fixture.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/test_circuits.hpp"

namespace {

using namespace c2lab;
namespace fs = std::filesystem;

constexpr int hash_chain_log_n = 14;

// The hash chain's parameters file in the cache, made on first use.
std::string hash_chain_params() {
    const fs::path path = pipeline::cache_dir() / "params" /
                          ("hash_chain-n" + std::to_string(1 << hash_chain_log_n) + "-seed1.params");
    if (!fs::exists(path)) {
        std::fprintf(stderr, "[bench_params] making %s\n", path.c_str());
        const r1cs::hash_chain circuit{(size_t{1} << hash_chain_log_n) - 2, ff::fr::from_u64(5), ff::fr::from_u64(3)};
        r1cs::constraint_matrices<r1cs::vec_indexer> cs;
        circuit.synthesize(cs);
        cs.enforce_input_constraints();
        rng g(1);
        fs::create_directories(path.parent_path());
        groth16::write_parameters(path.string(), groth16::generate_parameters(cs, g));
    }
    return path.string();
}

// Drops the file's pages from the page cache; returns the percentage still resident after.
double drop_page_cache(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 100;
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    const size_t size = fs::file_size(path);
    double pct = 100;
    if (void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0); p != MAP_FAILED) {
        const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        std::vector<unsigned char> v((size + page - 1) / page);
        if (::mincore(p, size, v.data()) == 0) {
            size_t resident = 0;
            for (unsigned char c : v) resident += c & 1;
            pct = v.empty() ? 0 : 100.0 * double(resident) / double(v.size());
        }
        ::munmap(p, size);
    }
    ::close(fd);
    return pct;
}

// Registers every query vector of the parameters for the lifetime of the object.
struct registered_queries {
    std::vector<gpu::host_registration> regs;
    explicit registered_queries(groth16::parameters& p) {
        auto reg = [&](auto& v) {
            // (a trusted load's queries are the mapped file's pages: registered as they lie)
            if (!v.empty()) regs.emplace_back(const_cast<void*>(static_cast<const void*>(v.data())), v.size() * sizeof(v[0]));
        };
        reg(p.h);
        reg(p.l);
        reg(p.a);
        reg(p.b_g1);
        reg(p.b_g2);
    }
};

void load(benchmark::State& state, const std::function<std::string()>& source, groth16::params_io io, bool cold,
          bool pin) {
    std::string path;
    try {
        path = source();
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    const double bytes = double(fs::file_size(path));
    double resident = 0;
    for (auto _ : state) {
        if (cold) {
            state.PauseTiming();
            resident = drop_page_cache(path);
            state.ResumeTiming();
        }
        groth16::parameters p = groth16::read_parameters(path, io, bench::opts().flags.params_check);
        if (pin) registered_queries r(p);  // registered, then unregistered: both timed
        benchmark::DoNotOptimize(p.h.data());
        state.PauseTiming();
        p = {};  // freeing is not loading
        state.ResumeTiming();
    }
    state.counters["bytes/s"] = benchmark::Counter(bytes * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["bytes"] = bytes;
    // params_check=own: 1 when the loads copied the query points (the file's origin record matched).
    state.counters["points_trusted"] = bench::opts().flags.params_check == groth16::params_check::own &&
                                       groth16::params_origin_matches(path);
    if (cold) state.counters["cold_resident_pct"] = resident;
}

void register_all() {
    struct src {
        std::string name;
        std::function<std::string()> path;
    };
    std::vector<src> sources = {{"hash_chain_2^" + std::to_string(hash_chain_log_n), hash_chain_params}};
    for (const std::string& ds : bench::datasets_or({"porep-2kib"})) {
        sources.push_back({ds, [ds] {
                               const bench::loaded_dataset& d = bench::dataset(ds);
                               return pipeline::ensure_porep_params(*d.cfg, 0, [](const std::string& line) {
                                   std::fprintf(stderr, "[bench_params] %s\n", line.c_str());
                               });
                           }});
    }
    const bool gpu = gpu::gpu_available();
    if (!gpu) std::fprintf(stderr, "bench_params: host_pinning:register not registered: %s\n", gpu::no_device_reason()->c_str());
    for (const auto& s : sources)
        for (groth16::params_io io : {groth16::params_io::mmap, groth16::params_io::read}) {
            if (!bench::selected("params_io", groth16::to_string(io))) continue;
            for (bool cold : {false, true})
                for (bool pin : {false, true}) {
                    if (pin && (!gpu || !bench::selected("host_pinning", "register"))) continue;
                    if (!pin && !bench::selected("host_pinning", "off")) continue;
                    const std::string name = "params/load/" + s.name + "/params_io:" +
                                             std::string(groth16::to_string(io)) + "/cache:" +
                                             (cold ? "cold" : "warm") + (pin ? "/host_pinning:register" : "");
                    benchmark::RegisterBenchmark(name.c_str(), [path = s.path, io, cold, pin](benchmark::State& st) {
                        load(st, path, io, cold, pin);
                    })
                        ->Unit(benchmark::kMillisecond)
                        ->UseRealTime();
                }
        }
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

// icount_probe: small, fixed workloads for instruction counting under valgrind (callgrind),
// the deterministic companion of the wall-clock benchmarks (scripts/icount.sh, README.md
// "Instruction counts (valgrind)").
//
//   icount_probe --list        the workload names, one a line
//   icount_probe --prepare     generate the datasets the workloads read (run natively first:
//                              generation under valgrind would take long)
//   icount_probe NAME          set up NAME, run it once, print "NAME <wall ms> <checksum>"
//
// Each workload runs once, inside c2lab_icount_workload (extern "C", never inlined), which
// switches callgrind's instrumentation on just before the work and off just after it
// (CALLGRIND_START/STOP_INSTRUMENTATION). Run under
//   valgrind --tool=callgrind --instr-atstart=no icount_probe NAME
// callgrind's total Ir is then the instructions of the work alone: input generation and
// dataset loading run before, uninstrumented. Outside valgrind the requests do nothing
// and the probe is an ordinary program (a smoke test of every workload). Cross-check:
// `valgrind --tool=callgrind --toggle-collect=c2lab_icount_workload` counts the same
// instructions plus the 12 of the call itself.
//
// The field and curve loops live in icount_arith.cpp, a file of their own: what GCC inlines
// there must not depend on the other workloads of this file.
//
// Everything is single-threaded (a oneTBB global_control of 1), so the count does not
// depend on scheduling. Inputs come from fixed seeds. The checksum printed is a word of
// each result: it keeps the work observable and shows that two runs did the same work.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tbb/global_control.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define C2LAB_HAVE_CALLGRIND 1
#else
#define C2LAB_HAVE_CALLGRIND 0
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define RUNNING_ON_VALGRIND 0
#endif

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/rng.hpp"
#include "ec/g1.hpp"
#include "msm/batch_affine.hpp"
#include "msm/pippenger.hpp"
#include "pipeline/datasets.hpp"
#include "poly/ntt.hpp"
#include "porep/c1_json.hpp"
#include "porep/circuit.hpp"
#include "porep/params.hpp"
#include "r1cs/proving_assignment.hpp"

namespace c2lab::icount {
// icount_arith.cpp: n dependent multiplications a = a * b, n additions a = a + b.
uint64_t fr_mul_chain(const ff::fr& a, const ff::fr& b, size_t n);
uint64_t fp_mul_chain(const ff::fp& a, const ff::fp& b, size_t n);
uint64_t g1_add_chain(const ec::g1_jacobian& a, const ec::g1_jacobian& b, size_t n);
}  // namespace c2lab::icount

namespace {

using namespace c2lab;
using ff::fp;
using ff::fr;

// A workload: setup() runs outside the counted region and returns the work, which returns
// a checksum word of its result.
struct workload {
    const char* name;
    std::function<std::function<uint64_t()>()> setup;
};

// Keeps a value alive without changing the work (as benchmark::DoNotOptimize does).
template <class T>
void keep(const T& value) {
    asm volatile("" : : "r"(&value) : "memory");
}

}  // namespace

// The counted region: callgrind instruments exactly this call's work. The name is unique
// so that callgrind_annotate --inclusive=yes shows the same number under it.
extern "C" __attribute__((noinline)) uint64_t c2lab_icount_workload(const std::function<uint64_t()>* work) {
    CALLGRIND_START_INSTRUMENTATION;
    const uint64_t checksum = (*work)();
    CALLGRIND_STOP_INSTRUMENTATION;
    return checksum;
}

namespace {

constexpr size_t mul_count = 100000;
constexpr size_t add_count = 10000;
constexpr size_t ntt_log_n = 12;
constexpr size_t msm_log_n = 12;
const std::string dataset_name = "porep-2kib";

struct loaded {
    std::string text;
    porep::c1_file file;
    const porep::porep_config* cfg = nullptr;
    // Partition 0 cut down to its first synth_challenges challenges (the synthesis workload).
    porep::porep_config few_cfg;
    porep::c1_output few_c1;
};

// The synthesis workload proves the first of the partition's 2 challenges: the same gadgets and
// the same code as the whole partition, half its 2.7M constraints. The whole partition took 89 of
// icount's 101 s under valgrind on the 2-core AMD EPYC of family 23.
constexpr size_t synth_challenges = 1;

const loaded& dataset() {
    static const loaded d = [] {
        loaded l;
        const std::vector<uint8_t> bytes = read_file(pipeline::dataset_path(dataset_name));
        l.text.assign(bytes.begin(), bytes.end());
        l.file = porep::decode_c1_file(l.text);
        l.cfg = &porep::config_for_proof(l.file.phase1_out.registered_proof);
        l.few_cfg = *l.cfg;
        l.few_cfg.challenges_per_partition = synth_challenges;
        l.few_c1 = l.file.phase1_out;
        l.few_c1.vanilla_proofs[0].resize(synth_challenges);
        return l;
    }();
    return d;
}

template <class F>
std::function<uint64_t()> field_mul_chain(uint64_t seed, uint64_t (*chain)(const F&, const F&, size_t)) {
    rng g(seed);
    const F a = F::random(g), b = F::random(g);
    return [a, b, chain] { return chain(a, b, mul_count); };
}

// Points as random walks from a few random multiples of the generator (cheap to make).
std::vector<ec::g1_affine> random_g1_points(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<ec::g1_jacobian> steps;
    for (int i = 0; i < 4; ++i) steps.push_back(ec::g1_jacobian::generator() * fr::random(g));
    std::vector<ec::g1_jacobian> jac(n);
    auto cur = ec::g1_jacobian::generator() * fr::random(g);
    for (auto& p : jac) p = cur = cur + steps[g.below(steps.size())];
    std::vector<ec::g1_affine> out(n);
    msm::batch_to_affine_serial<ec::g1_curve>(jac, out);
    return out;
}

std::vector<fr> random_scalars(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<fr> v(n);
    for (auto& x : v) x = fr::random(g);
    return v;
}

// A forward NTT of 2^ntt_log_n elements, one thread, its stages on `batch`. The domain's tables are
// made here, outside the count (which one the domain makes with it depends on the CPU).
std::function<uint64_t()> ntt_workload(poly::ntt_config::batch_kind batch) {
    auto d = std::make_shared<poly::evaluation_domain>(ntt_log_n, 1);
    poly::ntt_config cfg{1};
    cfg.batch = batch;
    (void)d->twiddles(poly::stages_path(cfg));
    (void)d->twiddles();
    auto a = std::make_shared<std::vector<fr>>(random_scalars(d->size(), 4));
    return [d, a, cfg] {
        poly::forward_ntt(*d, *a, cfg);
        return (*a)[1].to_canonical()[0];
    };
}

// A G1 MSM of 2^msm_log_n pairs, one thread, bellperson's window, the batched additions on `batch`.
std::function<uint64_t()> msm_workload(msm::msm_batch batch) {
    const size_t n = size_t{1} << msm_log_n;
    auto pts = std::make_shared<std::vector<ec::g1_affine>>(random_g1_points(n, 5));
    auto ks = std::make_shared<std::vector<fr>>(random_scalars(n, 6));
    return [pts, ks, batch] {
        msm::msm_config cfg{msm::window_policy::ln(), 1};
        cfg.batch = batch;
        const auto r = msm::msm<ec::g1_curve>(*pts, *ks, cfg);
        return r.to_affine().x.to_canonical()[0];
    };
}

const std::vector<workload>& workloads() {
    static const std::vector<workload> all = {
        {"ff/fr_mul/n:100000", [] { return field_mul_chain<fr>(1, icount::fr_mul_chain); }},
        {"ff/fp_mul/n:100000", [] { return field_mul_chain<fp>(2, icount::fp_mul_chain); }},
        {"ec/g1_add_jacobian/n:10000",
         [] {
             rng g(3);
             const auto a = ec::g1_jacobian::generator() * fr::random(g);
             const auto b = ec::g1_jacobian::generator() * fr::random(g);
             return std::function<uint64_t()>([a, b] { return icount::g1_add_chain(a, b, add_count); });
         }},
        // The kernels named, not left to ntt_batch=auto and msm_batch=auto, whose choice depends on
        // the CPU (the AVX2 kernels on AMD family 0x19): the counts stay those of any CPU.
        {"ntt/forward/log_n:12", [] { return ntt_workload(poly::ntt_config::batch_kind::scalar); }},
        {"ntt/forward/log_n:12/ntt_batch:avx2", [] { return ntt_workload(poly::ntt_config::batch_kind::avx2); }},
        {"msm/g1/ln/log_n:12",
         [] { return msm_workload(msm::msm_batch::scalar); }},
        {"msm/g1/ln/log_n:12/msm_batch:avx2",
         [] { return msm_workload(msm::msm_batch::avx2); }},
        {"c1_decode/porep-2kib/c1_json:nlohmann",
         [] {
             const loaded* d = &dataset();
             return std::function<uint64_t()>([d] {
                 const porep::c1_file f = porep::decode_c1_file(d->text, porep::c1_json_decoder::nlohmann);
                 return uint64_t{f.phase1_out.comm_r[0]} | uint64_t{f.phase1_out.comm_r[31]} << 8;
             });
         }},
        {"c1_decode/porep-2kib/c1_json:simdjson",
         [] {
             const loaded* d = &dataset();
             return std::function<uint64_t()>([d] {
                 const porep::c1_file f = porep::decode_c1_file(d->text, porep::c1_json_decoder::simdjson);
                 return uint64_t{f.phase1_out.comm_r[0]} | uint64_t{f.phase1_out.comm_r[31]} << 8;
             });
         }},
        {"construct/porep-2kib",
         [] {
             const loaded* d = &dataset();
             return std::function<uint64_t()>([d] {
                 const std::vector<porep::stacked_circuit> c = porep::construct_circuits(*d->cfg, d->file.phase1_out);
                 keep(c);
                 return uint64_t{c.size()};
             });
         }},
        {"synth/porep-2kib/challenges:1/lc_indexer:vec/presize:off",
         [] {
             const loaded* d = &dataset();
             auto c = std::make_shared<porep::stacked_circuit>(porep::construct_circuit(d->few_cfg, d->few_c1, 0));
             return std::function<uint64_t()>([c] {
                 r1cs::proving_assignment<r1cs::vec_indexer> pa({}, r1cs::presize_mode::off);
                 c->synthesize(pa);
                 pa.enforce_input_constraints();
                 return uint64_t{pa.a().size()} ^ pa.a().back().to_canonical()[0];
             });
         }},
        {"synth_shape/porep-2kib",
         [] {
             auto blank = std::make_shared<porep::stacked_circuit>(porep::stacked_circuit::blank(*dataset().cfg));
             return std::function<uint64_t()>([blank] {
                 r1cs::shape_counter sc;
                 blank->synthesize(sc);
                 return uint64_t{sc.num_constraints()};
             });
         }},
    };
    return all;
}

int usage() {
    std::fprintf(stderr,
                 "usage: icount_probe --list | --prepare | NAME\n"
                 "  runs workload NAME once; under valgrind --tool=callgrind --instr-atstart=no only the\n"
                 "  workload itself is counted (scripts/icount.sh)\n");
    return 2;
}

int run(int argc, char** argv) {
    if (argc != 2) return usage();
    const std::string_view arg = argv[1];
    if (arg == "--list") {
        for (const auto& w : workloads()) std::printf("%s\n", w.name);
        return 0;
    }
    if (arg == "--prepare") {
        std::printf("%s\n", pipeline::dataset_path(dataset_name, [](const std::string& line) {
                                std::fprintf(stderr, "%s\n", line.c_str());
                            }).c_str());
        return 0;
    }
    if (arg == "-h" || arg == "--help") {
        usage();
        return 0;
    }
    for (const auto& w : workloads()) {
        if (arg != w.name) continue;
        // One thread everywhere: oneTBB runs every parallel loop on the calling thread.
        tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
        const std::function<uint64_t()> work = w.setup();
        const auto t0 = std::chrono::steady_clock::now();
        const uint64_t checksum = c2lab_icount_workload(&work);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s %.3f %016llx%s\n", w.name, ms, static_cast<unsigned long long>(checksum),
                    RUNNING_ON_VALGRIND ? " (under valgrind)" : "");
        return 0;
    }
    std::fprintf(stderr, "icount_probe: unknown workload '%s' (see --list)\n", argv[1]);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "icount_probe: %s\n", e.what());
        return 1;
    }
}

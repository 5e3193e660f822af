// Batch proving as a pipeline, after cuzk-bench's batch mode: `count` jobs (one partition
// each) go through
//
//   synthesize   (parallel: up to `jobs` jobs at a time hold a witness)
//   queue        (waiting for the prover)
//   prove        (one job at a time: the prover's ntt, MSMs and assemble use every core)
//
// so that with jobs >= 2 the next job is synthesized while the current one is in its NTTs and
// MSMs. oneTBB's parallel_pipeline with `jobs` tokens: at most `jobs` witnesses are alive,
// which is what bounds the memory (check_memory_budget). Every stage of every job is kept
// with its start and end (timeline.hpp), and each job's stage report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/huge_pages.hpp"
#include "core/parallel.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/stage_report.hpp"
#include "poly/ntt.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape_pass.hpp"
#include "pipeline/timeline.hpp"

namespace c2lab::pipeline {

// Assignment vectors that proved jobs gave back, for the next syntheses (witness_memory=reuse).
// It never holds more sets than jobs were alive at once, so it stays inside the batch's memory
// budget (jobs x witness); its memory is freed with it.
class witness_pool {
public:
    r1cs::assignment_buffers take();  // a set given back, else empty vectors
    void give(r1cs::assignment_buffers&& b);
    std::size_t size() const;

private:
    mutable std::mutex m_;
    std::vector<r1cs::assignment_buffers> free_;
};

// One job's witness between synthesis and proving (owns the proving assignment).
class prepared_job {
public:
    virtual ~prepared_job() = default;
    // After the proof: the job's vectors into pool (nothing where the job has none to give).
    virtual void give_back(witness_pool&) {}
    virtual groth16::witness_view witness() const = 0;
    // The job's a, b, c padded with zeros to n (the prover's domain size), for a proof that is
    // their last use (groth16::abc_in_place); nullopt where the job cannot hand them over.
    // witness() still shows the m evaluations afterwards.
    virtual std::optional<groth16::abc_in_place> hand_over_abc(std::size_t n) = 0;
};

// Proves `job` as the last use of its a, b, c: the h step runs in them where the job hands them
// over (no copies), else on copies. The proof is the same either way.
groth16::proof prove_job(const groth16::parameters& params, prepared_job& job, const ff::fr& r, const ff::fr& s,
                         const groth16::prover_config& cfg, groth16::stage_report* report);

// The usual prepared job: a proving assignment (constructed from `args`, then synthesized into
// by the caller), seen by the prover through its spans.
template <class Indexer>
class assignment_job : public prepared_job {
public:
    template <class... Args>
    explicit assignment_job(Args&&... args) : pa(std::forward<Args>(args)...) {}
    groth16::witness_view witness() const override {
        const std::size_t m = padded_from_ ? *padded_from_ : pa.a().size();
        return {std::span(pa.a()).first(m), std::span(pa.b()).first(m), std::span(pa.c()).first(m),
                pa.input_assignment(), pa.aux_assignment(), pa.a_aux_density(), pa.b_input_density(),
                pa.b_aux_density()};
    }
    std::optional<groth16::abc_in_place> hand_over_abc(std::size_t n) override {
        const std::size_t m = padded_from_ ? *padded_from_ : pa.a().size();
        if (n < m) return std::nullopt;
        padded_from_ = m;
        // Each new tail is first written here: its pages faulted in by every thread at once where
        // the vectors already hold the room (presize), then the three zero-filled at once.
        std::vector<ff::fr>* const abc[] = {&pa.a(), &pa.b(), &pa.c()};
        for (std::vector<ff::fr>* v : abc)
            if (v->capacity() >= n && n > v->size())
                populate_pages_in_parallel(v->data() + v->size(), (n - v->size()) * sizeof(ff::fr), std::size_t{4} << 20);
        parallel::for_chunks(3, 1, [&](std::size_t lo, std::size_t hi) {
            for (std::size_t k = lo; k < hi; ++k) abc[k]->resize(n, ff::fr::zero());
        });
        return groth16::abc_in_place{pa.a(), pa.b(), pa.c()};
    }
    void give_back(witness_pool& pool) override { pool.give(std::move(pa).take_buffers()); }
    r1cs::proving_assignment<Indexer> pa;

private:
    std::optional<std::size_t> padded_from_;  // m, once a, b, c were padded to the domain
};

// Synthesizes job `job` (recording its stages, e.g. "synthesize", into report).
using synthesize_fn = std::function<std::unique_ptr<prepared_job>(std::size_t job, groth16::stage_report& report)>;
// The blinding r, s of one proof.
using blinding_fn = std::function<std::pair<ff::fr, ff::fr>()>;

struct batch_config {
    std::vector<std::string> job_names;  // one per job: the count
    unsigned jobs = 1;                   // pipeline depth (witnesses alive at once), >= 1
    witness_pool* pool = nullptr;        // where proved jobs give their vectors back (none: freed)
};

struct job_result {
    std::string name;
    groth16::proof proof;
    std::vector<ff::fr> public_inputs;  // the witness's input assignment without the constant one
    groth16::stage_report report;  // queue, synthesize and the prover's stages
    double start_ms = 0, end_ms = 0;  // from the batch's start: synthesis start, proof done
};

struct batch_result {
    std::vector<job_result> jobs;  // in job order
    timeline tl;
    double wall_ms = 0;
    double proofs_per_minute() const { return wall_ms > 0 ? 60000.0 * double(jobs.size()) / wall_ms : 0; }
};

// Whether the proofs of a batch of `proofs` share one evaluation domain (prove_batch, unless cfg
// brings its own): more than one. Its twiddle tables then stay through the MSMs, which the memory
// estimate counts (estimate_memory, domain_kept); a single proof frees them after its ntt stage.
inline bool batch_shares_domain(std::size_t proofs) noexcept { return proofs > 1; }

// errc::bad_input for jobs == 0 or no job. Exceptions of synthesize or the prover propagate
// (the pipeline is cancelled).
batch_result prove_batch(const groth16::parameters& params, const groth16::prover_config& cfg,
                         const batch_config& bc, const synthesize_fn& synthesize, const blinding_fn& blinding);

// Memory: estimates from the circuit's shape, what the machine can still give, and the check
// every large allocation goes through first (a refusal with the numbers rather than the OOM
// killer midway).
//
// One job's witness and the prover at work, in bytes (a, b, c padded to the domain and the
// assignment in Fr; the prover's h step: one vector of the domain's size and the domain's
// twiddle tables as the transforms of `ntt` make them, poly::twiddle_table_bytes).
struct memory_estimate {
    std::uint64_t witness_bytes = 0;
    std::uint64_t prover_bytes = 0;
    // What bounds prover_bytes, named in the "prover" term ("h step: ..." or "the MSMs'
    // scratch"); empty: the term is "prover" alone.
    std::string prover_part = {};
};
memory_estimate estimate_memory(std::size_t constraints, std::size_t inputs, std::size_t aux,
                                const poly::ntt_config& ntt = {});
// From the shape pass: the prover's term is also at least the MSMs' scratch (the densities
// size the B MSM in G2). domain_kept: the proofs share one domain (a batch of more than one,
// prove_batch), whose twiddle tables then stay beside the MSMs' scratch.
memory_estimate estimate_memory(const r1cs::circuit_shape& shape, const poly::ntt_config& ntt = {},
                                bool domain_kept = false);

// The prover's domain for a circuit of `constraints` rows: the next power of two >= it.
std::uint64_t domain_of(std::size_t constraints) noexcept;

// Groth16 parameters of a shape held in memory (groth16::parameters: h, l, a, b_g1, b_g2, ic).
// From counts alone an upper bound: every variable counted in a and b (at 32 GiB 70.2 GiB
// against 42.3 GiB with the densities). From the shape pass (r1cs::circuit_shape): exact, the
// a, b_g1 and b_g2 queries sized by the densities.
std::uint64_t estimate_params_bytes(std::size_t constraints, std::size_t inputs, std::size_t aux);
std::uint64_t estimate_params_bytes(const r1cs::circuit_shape& shape);
// The exact size of the parameters file of that shape (groth16::params_file_bytes).
std::uint64_t params_file_bytes(const r1cs::circuit_shape& shape);

// One named part of what a step needs ("parameters", "witness", ...).
struct memory_term {
    std::string name;
    std::uint64_t bytes = 0;
};
struct memory_need {
    std::string what;    // "the batch", "setup of StackedDrg2KiBV1_1", ...
    std::vector<memory_term> terms;
    std::string advice;  // appended to a refusal, e.g. "fewer jobs in flight"
    std::uint64_t total() const;
};

// generate_parameters' peak (groth16/setup.cpp): the constraint matrices (matrix_entries
// (variable, Fr) entries and the row starts, with the slack of vector growth), powers of tau
// and Lagrange coefficients, the QAP evaluations u, v, w per variable, the fixed-base scalars,
// G1 points and tables, and the parameters themselves (the G1 points are copied out of one
// batch, so held twice).
// matrix_entries 0: estimated from the constraint count (setup_entries_per_constraint).
memory_need setup_memory_need(std::size_t constraints, std::size_t inputs, std::size_t aux,
                              std::uint64_t matrix_entries = 0);
// The same with the shape pass's densities (parameters, fixed-base scalars and points) and
// its exact count of matrix entries.
memory_need setup_memory_need(const r1cs::circuit_shape& shape);
// Entries of A, B and C per constraint assumed before the matrices are recorded: the PoRep
// circuit of 2 KiB has 5.56 (14,934,693 entries for 2,687,961 constraints, input constraints
// included, counted with r1cs::constraint_matrices), the hash chain at most 5; rounded up.
inline constexpr double setup_entries_per_constraint = 6.0;

// Proving jobs_in_flight jobs at once with parameters of params_bytes: parameters +
// jobs x witness + prover.
memory_need prove_memory_need(std::string what, std::uint64_t params_bytes, const memory_estimate& e,
                              unsigned jobs_in_flight);
// The same from the shape pass: estimate_params_bytes(shape) and estimate_memory(shape).
memory_need prove_memory_need(std::string what, const r1cs::circuit_shape& shape, unsigned jobs_in_flight);

// What this process may still allocate: MemAvailable of /proc/meminfo, or less where a
// cgroup limit of this process's cgroup or an ancestor leaves less (v2: memory.max less
// memory.stat's anon; v1: memory.limit_in_bytes less total_rss; page cache is not counted,
// the kernel reclaims it); bytes 0 when unknown.
struct memory_available {
    std::uint64_t bytes = 0;
    std::string source;  // "MemAvailable", or the memory.max file that bounds it
};
memory_available available_memory();
std::uint64_t available_memory_bytes();  // available_memory().bytes
// The parsers behind it: MemAvailable in bytes (0 when absent); a cgroup's limit less the
// stat's anon_key value (UINT64_MAX for "max", v1's 2^63-ish "no limit" or unreadable text).
std::uint64_t meminfo_available_bytes(std::string_view meminfo);
std::uint64_t cgroup_headroom_bytes(std::string_view memory_max, std::string_view memory_stat,
                                    std::string_view anon_key = "anon");

// errc::resource naming the step, the total and every term, and the budget it exceeds:
// budget_bytes (--memory-budget) or, 0, available_memory() (nothing is checked when that is
// unknown).
void check_memory(const memory_need& need, std::uint64_t budget_bytes);
// True when check_memory(need, budget_bytes) would pass: a choice between variants by memory.
bool memory_fits(const memory_need& need, std::uint64_t budget_bytes);
// The batch's check: prove_memory_need("the batch", ...) with the advice to lower --jobs.
void check_memory_budget(std::uint64_t params_bytes, const memory_estimate& e, unsigned jobs,
                         std::uint64_t budget_bytes /* 0: available_memory() */);

// "1.50 GiB", "1.00 MiB", "512 bytes".
std::string format_bytes(std::uint64_t bytes);
// A --memory-budget value: a plain number is GiB (0.5), else a number with B, KiB, MiB, GiB
// or TiB (K, M, G, T alike): 1MiB, 512M, 2.5GiB. errc::bad_input naming `what` otherwise.
std::uint64_t parse_memory_size(const std::string& text, const std::string& what);

}  // namespace c2lab::pipeline

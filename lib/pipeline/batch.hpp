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
#include <string>
#include <utility>
#include <vector>

#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/stage_report.hpp"
#include "r1cs/proving_assignment.hpp"
#include "pipeline/timeline.hpp"

namespace c2lab::pipeline {

// One job's witness between synthesis and proving (owns the proving assignment).
class prepared_job {
public:
    virtual ~prepared_job() = default;
    virtual groth16::witness_view witness() const = 0;
};

// The usual prepared job: a proving assignment (constructed from `args`, then synthesized into
// by the caller), seen by the prover through its spans.
template <class Indexer>
class assignment_job : public prepared_job {
public:
    template <class... Args>
    explicit assignment_job(Args&&... args) : pa(std::forward<Args>(args)...) {}
    groth16::witness_view witness() const override {
        return {pa.a(), pa.b(), pa.c(), pa.input_assignment(), pa.aux_assignment(),
                pa.a_aux_density(), pa.b_input_density(), pa.b_aux_density()};
    }
    r1cs::proving_assignment<Indexer> pa;
};

// Synthesizes job `job` (recording its stages, e.g. "synthesize", into report).
using synthesize_fn = std::function<std::unique_ptr<prepared_job>(std::size_t job, groth16::stage_report& report)>;
// The blinding r, s of one proof.
using blinding_fn = std::function<std::pair<ff::fr, ff::fr>()>;

struct batch_config {
    std::vector<std::string> job_names;  // one per job: the count
    unsigned jobs = 1;                   // pipeline depth (witnesses alive at once), >= 1
};

struct job_result {
    std::string name;
    groth16::proof proof;
    groth16::stage_report report;  // queue, synthesize and the prover's stages
    double start_ms = 0, end_ms = 0;  // from the batch's start: synthesis start, proof done
};

struct batch_result {
    std::vector<job_result> jobs;  // in job order
    timeline tl;
    double wall_ms = 0;
    double proofs_per_minute() const { return wall_ms > 0 ? 60000.0 * double(jobs.size()) / wall_ms : 0; }
};

// errc::bad_input for jobs == 0 or no job. Exceptions of synthesize or the prover propagate
// (the pipeline is cancelled).
batch_result prove_batch(const groth16::parameters& params, const groth16::prover_config& cfg,
                         const batch_config& bc, const synthesize_fn& synthesize, const blinding_fn& blinding);

// Memory of one job's witness and of the prover at work, in bytes (estimates from the
// sizes: a, b, c and the assignment in Fr; the prover's three padded copies and h), and
// the check before a batch: params_bytes + jobs x witness + prover against the memory the
// machine has available (MemAvailable of /proc/meminfo) or the budget given. Throws
// errc::resource naming every term when it does not fit.
struct memory_estimate {
    std::uint64_t witness_bytes = 0;
    std::uint64_t prover_bytes = 0;
};
memory_estimate estimate_memory(std::size_t constraints, std::size_t inputs, std::size_t aux);
std::uint64_t available_memory_bytes();  // MemAvailable, or 0 when unknown
void check_memory_budget(std::uint64_t params_bytes, const memory_estimate& e, unsigned jobs,
                         std::uint64_t budget_bytes /* 0: MemAvailable */);

}  // namespace c2lab::pipeline

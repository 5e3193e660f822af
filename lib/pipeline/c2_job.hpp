// The C2 job: what `c2lab prove` and bench_prove ask for, done in one place.
//
//   c2_request  what to prove: C1 files (PoRep, one proof type: one set of parameters) or the
//               built-in hash chain; how many times, how many jobs in flight, the flags, the
//               backend (made by the caller: lib/ does not link gpu/), the memory budget
//   c2_job      prepares it: decodes and constructs the inputs, counts the circuit's shape,
//               checks the memory before anything large is read, checks the parameters'
//               header against the shape and loads the parameters (the cache's entry unless a
//               path is given; params_load=overlap: on a thread of their own, beside the first
//               synthesis, the first proof waiting for them), loads the
//               pre-compiled circuit for synth=pce (synth=auto: pce where the cache holds the
//               circuit's pre-compiled file, else direct; request().flags then says which,
//               and the hash chain is always direct); the circuit's shape comes from the shape
//               pass (r1cs/shape_pass.hpp: densities and the structure's digest, memoized per
//               binary for PoRep), so memory is estimated exactly and parameters made for
//               another circuit are refused by digest
//   prove()     proves every partition of every input `count` times through prove_batch (a
//               single proof is a batch of one) and returns the proofs, each job's stage report
//               and the timeline; it can be called again (bench_prove times it)
//
// Messages name what is wrong and where; they name no command-line option (the caller adds
// its own advice through c2_request::advice).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <mutex>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "groth16/keys.hpp"
#include "groth16/stage_report.hpp"
#include "pipeline/batch.hpp"
#include "pipeline/flags.hpp"
#include "porep/c1_json.hpp"
#include "porep/circuit.hpp"
#include "porep/params.hpp"
#include "r1cs/constraint_system.hpp"
#include "r1cs/shape_pass.hpp"
#include "r1cs/pce.hpp"
#include "r1cs/test_circuits.hpp"

namespace c2lab::pipeline {

using progress_fn = std::function<void(const std::string&)>;

// Advice a caller appends to the job's refusals (e.g. a CLI's "run `c2lab setup --c1 F`").
struct c2_advice {
    std::string missing_params;  // no parameters in the cache
    std::string other_circuit;   // parameters made for another circuit
};

struct c2_request {
    std::vector<std::string> c1_paths;         // PoRep: one or more C1 files of one proof type
    std::optional<r1cs::hash_chain> hash_chain;  // or the built-in hash chain (x0 set)
    std::string params_path;                   // empty: the cache's entry (PoRep only)
    unsigned count = 1;                        // every input proved this many times
    unsigned jobs = 1;                         // jobs in flight (witnesses alive at once), >= 1
    flag_values flags;
    groth16::prover_backend* backend = nullptr;  // null: the CPU
    std::uint64_t memory_budget = 0;             // bytes; 0: what the machine has available
    // One line per step (may be empty): called from one thread at a time, not always the caller's.
    progress_fn progress;
    blinding_fn blinding;                        // empty: uniform in Fr from the OS (random_fr_os)
    c2_advice advice;
};

// One input: a C1 file (all its partitions) or the hash chain.
struct c2_input {
    std::string source;  // the C1 path, or "hash-chain"
    std::string stem;    // a file stem unique in the request (PoRep: the C1 file's, numbered on a clash)
    std::size_t partitions = 1;
};

// The proofs of one input in one run, partition by partition (a proof file's content).
struct c2_proof_set {
    std::size_t input = 0, run = 0;
    std::vector<groth16::proof> proofs;
    std::vector<ff::fr> public_inputs;  // the first partition's public inputs (the hash chain's output)
};

struct c2_result {
    batch_result batch;                  // every job's proof and stage report, the timeline
    std::vector<c2_proof_set> proof_sets;  // run-major, then input order
    // One report of the whole request: c1_decode, construct and load_params (from preparing
    // it), then each prover stage summed over the jobs (queue left out).
    groth16::stage_report summed_report() const;
    groth16::stage_report prepare_report;  // c1_decode, construct, load_params
};

class c2_job {
public:
    // Prepares the request (see above). errc::bad_input for an empty or mixed request,
    // errc::io for missing parameters, errc::resource when the memory does not fit.
    explicit c2_job(c2_request request);
    ~c2_job();
    c2_job(const c2_job&) = delete;
    c2_job& operator=(const c2_job&) = delete;

    // Proves every job (see above); the request's blinding or the OS's randomness.
    c2_result prove() const;

    const std::vector<c2_input>& inputs() const noexcept { return inputs_; }
    std::string circuit_name() const;  // the registered proof, or "hash-chain (steps N)"
    const porep::porep_config* porep_config() const noexcept { return cfg_; }  // null for the hash chain
    const r1cs::circuit_shape& shape() const noexcept { return shape_; }  // counts, densities, digest
    const std::string& params_path() const noexcept { return params_path_; }
    // The parameters (waits for their load; errors of the load are thrown here).
    const groth16::parameters& params() const;
    std::size_t job_count() const noexcept { return job_names_.size(); }
    // The request as prepared: flags.synth is direct or pce (synth=auto resolved).
    const c2_request& request() const noexcept { return req_; }
    // Whether the partitions' challenges are synthesized in parallel parts (synth_challenges:
    // parallel, or auto where the memory check passed with the parts counted).
    bool parallel_challenges() const noexcept { return parallel_challenges_; }
    // The load's own time (waits for it), and how long the first proof waited for it (0 when
    // params_load=before).
    double load_params_ms() const;
    double params_wait_ms() const;
    // c1_decode (sum over the files), construct and load_params (waits for the load).
    const groth16::stage_report& prepare_report() const;

private:
    struct job_ref {
        std::size_t input, partition, run;
    };
    std::unique_ptr<prepared_job> synthesize(const job_ref& ref, witness_pool* pool) const;
    // Waits for a load started by the constructor (once; rethrows its error every time) and
    // records it in prepare_.
    void wait_params() const;

    c2_request req_;
    std::vector<c2_input> inputs_;
    std::vector<porep::c1_file> c1_files_;                    // PoRep: one per input
    std::vector<std::vector<porep::stacked_circuit>> circuits_;  // PoRep: per input, per partition
    const porep::porep_config* cfg_ = nullptr;
    bool parallel_challenges_ = false;
    r1cs::circuit_shape shape_;
    std::string params_path_;
    std::unique_ptr<groth16::parameters> params_;  // filled by the load (params_load=overlap: once wait_params returns)
    groth16::stage_report load_report_;             // written by the load's thread only, read after it ended
    std::shared_future<void> params_loaded_;        // the load on its own thread (params_load=overlap)
    mutable std::mutex wait_m_;
    mutable bool waited_ = false;
    mutable double params_wait_ms_ = 0;
    std::shared_ptr<const r1cs::precompiled_circuit> pce_;
    std::vector<job_ref> refs_;
    std::vector<std::string> job_names_;
    mutable groth16::stage_report prepare_;  // load_params joins it in wait_params
};

// A uniform element of Fr from the OS (OpenSSL's RAND_bytes, rejection sampling): the
// prover's blinding unless a request gives its own.
ff::fr random_fr_os();

// The PoRep registered proof of a C1 file, or errc::bad_input naming the file (a proof type
// the circuit does not prove says why).
const porep::porep_config& porep_config_of(const porep::c1_file& file, const std::string& path);

}  // namespace c2lab::pipeline

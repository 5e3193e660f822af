#include "pipeline/c2_job.hpp"

#include <openssl/rand.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <map>

#include <tbb/task_arena.h>

#include "core/error.hpp"
#include "groth16/params_file.hpp"
#include "pipeline/params_cache.hpp"
#include "pipeline/pce_cache.hpp"
#include "r1cs/linear_combination.hpp"
#include "r1cs/proving_assignment.hpp"

namespace c2lab::pipeline {

namespace {

std::string with_advice(std::string message, const std::string& advice) {
    return advice.empty() ? message : message + " (" + advice + ")";
}

}  // namespace

ff::fr random_fr_os() {
    using fr = ff::fr;
    constexpr uint64_t top_mask = (fr::bits % 64 == 0) ? ~uint64_t{0} : ((uint64_t{1} << (fr::bits % 64)) - 1);
    for (;;) {
        fr::repr x{};
        if (RAND_bytes(reinterpret_cast<unsigned char*>(x.data()), static_cast<int>(sizeof(x))) != 1)
            throw error(errc::internal, "RAND_bytes failed");
        x[fr::n_limbs - 1] &= top_mask;
        if (fr::is_canonical(x)) return fr::from_canonical(x);
    }
}

const porep::porep_config& porep_config_of(const porep::c1_file& file, const std::string& path) {
    try {
        return porep::config_for_proof(file.phase1_out.registered_proof);
    } catch (const error& e) {
        throw error(e.kind(), path + ": " + e.what());
    }
}

c2_job::~c2_job() {
    if (params_loaded_.valid()) params_loaded_.wait();  // the load writes into members
}

c2_job::c2_job(c2_request request) : req_(std::move(request)) {
    namespace fs = std::filesystem;
    // The jobs in flight (jobs > 1) and the pre-compiled circuit's open beside the load report
    // from threads of their own: the callback is called under a lock, one line at a time, so
    // that the caller's needs no lock of its own (a test's vector of lines, pushed from two
    // synthesis threads at once, was freed twice under ASan).
    if (req_.progress)
        req_.progress = [inner = std::move(req_.progress), m = std::make_shared<std::mutex>()](const std::string& l) {
            std::lock_guard lock(*m);
            inner(l);
        };
    auto say = [&](const std::string& line) {
        if (req_.progress) req_.progress(line);
    };
    if (req_.c1_paths.empty() == !req_.hash_chain)
        throw error(errc::bad_input, "a C2 job proves either C1 files or the hash chain, and needs one of them");
    if (req_.jobs == 0) throw error(errc::bad_input, "a C2 job needs at least one job in flight");
    if (req_.count == 0) throw error(errc::bad_input, "a C2 job proves its inputs at least once");

    // The inputs: decoded (timed as c1_decode), one proof type; or the hash chain.
    if (req_.hash_chain) {
        req_.flags.synth = resolve_synth(req_.flags.synth, nullptr, shape_);
        if (req_.flags.synth != r1cs::synth_mode::direct)
            throw error(errc::bad_input, "synth=" + std::string(r1cs::to_string(req_.flags.synth)) +
                                             " is for the PoRep circuit; the hash chain synthesizes directly");
        if (!req_.hash_chain->x0) throw error(errc::bad_input, "the hash chain needs its witness x0");
        if (req_.params_path.empty()) throw error(errc::bad_input, "the hash chain has no cached parameters: give their path");
        inputs_.push_back({"hash-chain", "hash-chain", 1});
        shape_ = r1cs::shape_of([&](r1cs::shape_pass& pass) { req_.hash_chain->synthesize(pass); });
    } else {
        std::map<std::string, int> stems;
        for (const std::string& path : req_.c1_paths) {
            say("decoding " + path + " (c1_json=" + std::string(porep::to_string(req_.flags.c1_json)) + ")");
            {
                groth16::scoped_stage st(&prepare_, "c1_decode");
                c1_files_.push_back(porep::read_c1_file(path, req_.flags.c1_json));
            }
            const porep::porep_config& cfg = porep_config_of(c1_files_.back(), path);
            if (cfg_ && cfg.registered_proof != cfg_->registered_proof)
                throw error(errc::bad_input, path + " is a " + cfg.registered_proof + " C1 file, " +
                                                 inputs_.front().source + " a " + cfg_->registered_proof +
                                                 " one: a batch shares one set of parameters, so one proof type");
            cfg_ = &cfg;
            c2_input in{path, fs::path(path).stem().string(), cfg.partitions};
            if (const int seen = stems[in.stem]++; seen > 0) in.stem += "-" + std::to_string(seen + 1);
            inputs_.push_back(std::move(in));
        }
        shape_ = count_porep_shape(*cfg_);
        // synth=auto: the pre-compiled circuit where it is cached (the 2 KiB job 0.955x with it,
        // results/ab/prove-2kib-synth-cpu-20261205).
        if (req_.flags.synth == r1cs::synth_mode::automatic) {
            req_.flags.synth = resolve_synth(req_.flags.synth, cfg_, shape_);
            if (req_.flags.synth == r1cs::synth_mode::direct)
                say("no pre-compiled circuit of " + cfg_->registered_proof +
                    " cached: synthesizing directly (synth=pce builds it once; later proofs of this circuit then "
                    "synthesize the witness only)");
        }
    }

    // Memory, before anything large: the parameters (their file's size, or the shape's estimate
    // when there is none yet) + the witnesses in flight + the prover.
    params_path_ = req_.params_path.empty() ? porep_params_path(*cfg_, shape_) : req_.params_path;
    std::error_code ec;
    const auto file_bytes = fs::file_size(params_path_, ec);
    const std::uint64_t params_bytes = ec ? 0 : std::uint64_t(file_bytes);
    const std::size_t jobs_total = inputs_.size() * inputs_.front().partitions * req_.count;
    const unsigned in_flight = static_cast<unsigned>(std::min<std::size_t>(req_.jobs, jobs_total));
    auto need_with = [&](bool parts) {
        memory_estimate estimate =
            estimate_memory(shape_, req_.flags.prover().ntt, batch_shares_domain(jobs_total));
        if (parts)  // the challenges' parts hold their A, B, C and aux values until appended
            estimate.witness_bytes += sizeof(ff::fr) * (3 * std::uint64_t{shape_.num_constraints()} + shape_.num_aux());
        memory_need need = prove_memory_need(
            "proving " + std::to_string(jobs_total) + " partition" + (jobs_total > 1 ? "s" : "") + " of " +
                circuit_name() + " (" + std::to_string(shape_.num_constraints()) + " constraints each, " +
                std::to_string(in_flight) + " in flight" + (parts ? ", challenges in parallel" : "") + ")",
            params_bytes ? params_bytes : estimate_params_bytes(shape_), estimate, in_flight);
        if (in_flight > 1) need.advice = "fewer jobs in flight: each one holds a witness";
        if (parts) need.advice += std::string(need.advice.empty() ? "" : " or ") + "--flag synth_challenges=serial";
        return need;
    };
    const synth_challenges sc = req_.flags.synth_challenges;
    parallel_challenges_ = req_.flags.synth == r1cs::synth_mode::direct &&
                           (sc == synth_challenges::parallel ||
                            (sc == synth_challenges::automatic && memory_fits(need_with(true), req_.memory_budget)));
    check_memory(need_with(parallel_challenges_), req_.memory_budget);

    // The parameters (given, or the cache's entry) must exist before anything is built.
    if (ec) {
        if (req_.params_path.empty())
            throw error(errc::io, with_advice("no parameters for " + cfg_->registered_proof + " at " + params_path_,
                                              req_.advice.missing_params));
        throw error(errc::io, params_path_ + ": cannot read the parameters (" + ec.message() + ")");
    }

    if (cfg_) {
        groth16::scoped_stage st(&prepare_, "construct");
        for (const porep::c1_file& f : c1_files_) circuits_.push_back(porep::construct_circuits(*cfg_, f.phase1_out));
        for (auto& file_circuits : circuits_)
            for (porep::stacked_circuit& c : file_circuits)
                c.parallel_challenges = parallel_challenges_;
    }

    // The header first (counts, circuit digest): a file made for another circuit is refused
    // before anything is synthesized, whichever way the rest is read.
    const groth16::params_header header = groth16::read_parameters_header(params_path_);
    try {
        check_params_circuit(header, shape_, params_path_);
    } catch (const error& e) {
        throw error(e.kind(), with_advice(e.what(), req_.advice.other_circuit));
    }
    params_ = std::make_unique<groth16::parameters>();
    const auto load = [this](groth16::stage_report& into) {
        groth16::scoped_stage st(&into, "load_params");
        *params_ = groth16::read_parameters(params_path_, req_.flags.params_io, req_.flags.params_check);
    };
    // A cached pre-compiled circuit is mapped and checked on one thread (its digest in one pass):
    // beside a load before the first synthesis it takes the core the load leaves (the load keeps
    // 1.7 of 2 busy). One that must be built is built after the load, as before (its memory and
    // the parameters' not at once).
    groth16::stage_report pce_report;  // before the future: a load that throws waits for the open first
    std::future<void> pce_opened;
    if (cfg_ && req_.flags.synth == r1cs::synth_mode::pce && req_.flags.params_load == params_load::before &&
        fs::exists(porep_pce_path(*cfg_, shape_), ec))
        pce_opened = std::async(std::launch::async, [this, &pce_report] {
            groth16::scoped_stage st(&pce_report, "load_pce");
            pce_ = ensure_porep_pce(*cfg_, shape_, req_.progress);
        });
    if (req_.flags.params_load == params_load::overlap) {
        say("loading " + params_path_ + " (beside the first synthesis)");
        // In an arena of its own: in the arena the prover's pipeline runs in, the thread that
        // starts the first synthesis stole the load's chunks first (measured: the synthesis
        // began only once the whole load was done). Here the workers go where there is work.
        params_loaded_ = std::async(std::launch::async, [this, load] {
                             tbb::task_arena arena;
                             arena.execute([&] { load(load_report_); });
                         }).share();
    } else {
        say("loading " + params_path_);
        load(prepare_);
        waited_ = true;
    }
    if (pce_opened.valid()) {
        pce_opened.get();
        prepare_.add_spans(pce_report);
    } else if (cfg_ && req_.flags.synth == r1cs::synth_mode::pce) {
        // Built here on first use (then the stage holds the build), else mapped and checked.
        groth16::scoped_stage st(&prepare_, "load_pce");
        pce_ = ensure_porep_pce(*cfg_, shape_, req_.progress);
    }

    // The jobs: every partition of every input, `count` times.
    for (std::size_t run = 0; run < req_.count; ++run)
        for (std::size_t i = 0; i < inputs_.size(); ++i)
            for (std::size_t k = 0; k < inputs_[i].partitions; ++k) {
                refs_.push_back({i, k, run});
                job_names_.push_back(inputs_[i].stem + "#" + std::to_string(k) +
                                     (req_.count > 1 ? "/run" + std::to_string(run + 1) : ""));
            }
}

std::string c2_job::circuit_name() const {
    if (cfg_) return cfg_->registered_proof;
    return "hash-chain (steps " + std::to_string(req_.hash_chain ? req_.hash_chain->steps : 0) + ")";
}

std::unique_ptr<prepared_job> c2_job::synthesize(const job_ref& ref, witness_pool* pool) const {
    if (cfg_) return synthesize_porep_job(circuits_[ref.input][ref.partition], req_.flags, shape_.hint(), pce_, pool);
    return r1cs::with_lc_indexer(req_.flags.lc_indexer, [&](auto tag) -> std::unique_ptr<prepared_job> {
        using indexer = typename decltype(tag)::type;
        auto job = std::make_unique<assignment_job<indexer>>(shape_.hint(), req_.flags.presize,
                                                             pool ? pool->take() : r1cs::assignment_buffers{});
        req_.hash_chain->synthesize(job->pa);
        job->pa.enforce_input_constraints();
        return job;
    });
}

void c2_job::wait_params() const {
    const std::lock_guard lock(wait_m_);
    if (waited_) return;
    const auto start = std::chrono::steady_clock::now();
    params_loaded_.wait();
    params_wait_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    params_loaded_.get();  // the load's error, thrown again on every later call (waited_ stays false)
    prepare_.add_spans(load_report_);
    waited_ = true;
}

const groth16::parameters& c2_job::params() const {
    wait_params();
    return *params_;
}

double c2_job::load_params_ms() const {
    wait_params();
    return prepare_.ms("load_params");
}

double c2_job::params_wait_ms() const {
    wait_params();
    return params_wait_ms_;
}

const groth16::stage_report& c2_job::prepare_report() const {
    wait_params();
    return prepare_;
}

c2_result c2_job::prove() const {
    batch_config bc;
    bc.job_names = job_names_;
    bc.jobs = req_.jobs;
    witness_pool pool;  // witness_memory=reuse: the vectors of proved jobs, freed with the batch
    if (req_.flags.witness_memory == r1cs::witness_memory::reuse) bc.pool = &pool;
    const std::size_t total = refs_.size();
    std::size_t started = 0;
    const groth16::prover_config cfg = req_.flags.prover(req_.backend);
    c2_result out;
    out.batch = prove_batch(
        *params_, cfg, bc,
        [&](std::size_t job, groth16::stage_report& rep) {
            if (req_.progress) req_.progress("synthesizing " + job_names_[job]);
            groth16::scoped_stage st(&rep, "synthesize");  // synth=direct|pce, lc_indexer, presize
            return synthesize(refs_[job], bc.pool);
        },
        [&] {  // called in job order, right before each proof
            ++started;
            wait_params();  // params_load=overlap: the first proof waits for the load
            if (req_.progress)
                req_.progress("proving " + job_names_[started - 1] + " (" + std::to_string(started) + "/" +
                              std::to_string(total) + ", " + std::to_string(shape_.num_constraints()) + " constraints)");
            return req_.blinding ? req_.blinding() : std::pair{random_fr_os(), random_fr_os()};
        });

    out.prepare_report = prepare_report();  // load_params joined it before the first proof

    // The proof sets: one per input and run, its partitions in order.
    for (std::size_t run = 0; run < req_.count; ++run)
        for (std::size_t i = 0; i < inputs_.size(); ++i) {
            c2_proof_set set{i, run, {}, {}};
            for (std::size_t j = 0; j < refs_.size(); ++j)
                if (refs_[j].input == i && refs_[j].run == run) {
                    if (set.proofs.empty()) set.public_inputs = out.batch.jobs[j].public_inputs;
                    set.proofs.push_back(out.batch.jobs[j].proof);
                }
            out.proof_sets.push_back(std::move(set));
        }
    return out;
}

groth16::stage_report c2_result::summed_report() const {
    groth16::stage_report r;
    for (const auto& [name, ms] : prepare_report.stages()) r.add(name, ms, prepare_report.cpu_ms(name));
    for (const job_result& jr : batch.jobs)
        for (const auto& [name, ms] : jr.report.stages())
            if (name != "queue") r.add(name, ms, jr.report.cpu_ms(name));
    return r;
}

}  // namespace c2lab::pipeline

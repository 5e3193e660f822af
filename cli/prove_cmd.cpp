// `c2lab prove`: parses, hands the request to the library's C2 job (pipeline/c2_job.hpp) and
// prints. One proof of a C1 file (or of the hash chain) prints its stage table; a batch
// (several --c1, --count, --jobs or --timeline) prints cuzk-bench's summary: proofs per
// minute, per-job wall and prove times (avg/min/max), each stage and the peak memory.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/cpu.hpp"
#include "core/error.hpp"
#include "gpu/backend.hpp"
#include "groth16/proof.hpp"
#include "io.hpp"
#include "pipeline/c2_job.hpp"
#include "pipeline/flags.hpp"
#include "regressions/history.hpp"

namespace c2lab::cli {

namespace {

double peak_rss_gib() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / double(1 << 20);  // KiB -> GiB
}

struct min_avg_max {
    double lo = 0, hi = 0, sum = 0;
    size_t n = 0;
    void add(double v) {
        lo = n ? std::min(lo, v) : v;
        hi = n ? std::max(hi, v) : v;
        sum += v;
        ++n;
    }
    double avg() const { return n ? sum / double(n) : 0; }
    nlohmann::json json() const { return {{"avg", avg()}, {"min", lo}, {"max", hi}}; }
};

// The run's context, as scripts/bench.sh gives the benchmarks' (the history's fingerprint of
// this machine and build, the commit of the source tree when it is a git checkout).
nlohmann::json run_context() {
    nlohmann::json c;
    for (const auto& [k, v] : build_context()) c[k] = v;
    c["num_cpus"] = std::thread::hardware_concurrency();
    return c;
}

nlohmann::json flags_json(const pipeline::flag_values& flags) {
    nlohmann::json fj = nlohmann::json::object();
    for (const auto& [k, v] : flags.as_text()) fj[k] = v;
    return fj;
}

std::vector<uint8_t> encode_all(const std::vector<groth16::proof>& proofs) {
    std::vector<uint8_t> bytes;
    for (const auto& p : proofs) {
        const auto pb = groth16::encode_proof(p);
        bytes.insert(bytes.end(), pb.begin(), pb.end());
    }
    return bytes;
}

// Prints the JSON and records it in the results history (regressions/history.hpp; kind prove,
// per stage) unless --no-history; a failure to record is a warning: the proof is made.
void print_and_record(const prove_args& a, const nlohmann::json& j) {
    const std::string text = j.dump(2);
    std::cout << text << "\n";
    if (a.no_history) return;
    const std::string db = regressions::default_history_path();
    try {
        const regressions::history_record rec =
            regressions::history_record_of_texts({{"c2lab prove --json", text}}, "c2lab prove " + a.out, "prove");
        const auto id = regressions::open_history(db)->record(rec);
        progress("prove", "recorded in the history " + db + " as run " + std::to_string(id));
    } catch (const error& e) {
        std::cerr << "warning: the proof's stages were not recorded in the history: " << e.what() << "\n";
    }
}

// One proof (a C1 file's partitions, or the hash chain) written to -o, with its stage table.
// wall_ms: from preparing the job to the last proof (the stages' total counts a load that ran
// beside the synthesis in full).
int print_single(const prove_args& a, const pipeline::c2_job& job, const pipeline::c2_result& res, double wall_ms) {
    const pipeline::c2_proof_set& set = res.proof_sets.front();
    const std::vector<uint8_t> bytes = encode_all(set.proofs);
    write_file_atomic(a.out, bytes);
    const groth16::stage_report report = res.summed_report();
    const pipeline::flag_values& flags = job.request().flags;
    const std::size_t constraints = job.shape().num_constraints();
    if (job.porep_config()) {
        const porep::porep_config& cfg = *job.porep_config();
        if (a.json) {
            nlohmann::json j = report.to_json();
            j["c1"] = a.c1.front();
            j["registered_proof"] = cfg.registered_proof;
            j["partitions"] = cfg.partitions;
            j["constraints"] = constraints;
            j["flags"] = flags_json(flags);
            j["cpu_path"] = cpu::arith_path();
            j["load_params_ms"] = job.load_params_ms();
            j["params_wait_ms"] = job.params_wait_ms();
            j["parallel_challenges"] = job.parallel_challenges();
            j["wall_ms"] = wall_ms;
            j["params"] = job.params_path();
            j["proof"] = a.out;
            j["proof_bytes"] = bytes.size();
            j["peak_rss_gib"] = peak_rss_gib();
            j["context"] = run_context();
            print_and_record(a, j);
            return exit_ok;
        }
        std::cout << "proof: " << a.out << " (" << bytes.size() << " bytes: " << cfg.partitions << " x "
                  << groth16::proof_bytes << ")\n"
                  << "circuit: " << cfg.registered_proof << ", " << constraints << " constraints per partition, "
                  << cfg.challenges_per_partition << " challenges each, synthesized "
                  << (job.parallel_challenges() ? "in parallel" : "one after another")
                  << (flags.synth == r1cs::synth_mode::pce ? ", the witness only, A, B, C from the pre-compiled circuit"
                                                           : "")
                  << "\n";
    } else {
        const std::string inputs_path = a.inputs_out.empty() ? a.out + ".inputs" : a.inputs_out;
        write_text_atomic(inputs_path, format_inputs(set.public_inputs));
        if (a.json) {
            nlohmann::json j = report.to_json();
            j["circuit"] = a.circuit.circuit;
            j["steps"] = job.request().hash_chain->steps;
            j["constraints"] = constraints;
            j["flags"] = flags_json(flags);
            j["cpu_path"] = cpu::arith_path();
            j["load_params_ms"] = job.load_params_ms();
            j["params_wait_ms"] = job.params_wait_ms();
            j["wall_ms"] = wall_ms;
            j["proof"] = a.out;
            j["inputs_file"] = inputs_path;
            nlohmann::json ij = nlohmann::json::array();
            for (const auto& x : set.public_inputs) ij.push_back(fr_to_hex(x));
            j["public_inputs"] = ij;
            j["peak_rss_gib"] = peak_rss_gib();
            j["context"] = run_context();
            print_and_record(a, j);
            return exit_ok;
        }
        std::cout << "proof: " << a.out << " (" << bytes.size() << " bytes)\n"
                  << "public inputs: " << inputs_path << "\n";
        for (const auto& x : set.public_inputs) std::cout << "  " << fr_to_hex(x) << "\n";
    }
    std::cout << "flags:";
    for (const auto& [k, v] : flags.as_text()) std::cout << " " << k << "=" << v;
    std::cout << "\n" << report.table();
    char line[200];
    if (job.request().flags.params_load == pipeline::params_load::overlap)
        std::snprintf(line, sizeof line, "wall %12.3f  (load_params ran beside synthesize; the first proof waited %.1f ms for it)\n",
                      wall_ms, job.params_wait_ms());
    else
        std::snprintf(line, sizeof line, "wall %12.3f\n", wall_ms);
    std::cout << line;
    return exit_ok;
}

// A batch: one proof file per input and run in the -o directory, and the summary.
int print_batch(const prove_args& a, const pipeline::c2_job& job, const pipeline::c2_result& res) {
    namespace fs = std::filesystem;
    fs::create_directories(a.out);
    std::vector<std::string> written;
    for (const pipeline::c2_proof_set& set : res.proof_sets) {
        const std::string path =
            (fs::path(a.out) /
             (job.inputs()[set.input].stem + (a.count > 1 ? "-run" + std::to_string(set.run + 1) : std::string()) + ".proof"))
                .string();
        write_file_atomic(path, encode_all(set.proofs));
        written.push_back(path);
    }
    const pipeline::batch_result& br = res.batch;
    if (!a.timeline.empty()) {
        write_text_atomic(a.timeline, br.tl.to_json().dump(1) + "\n");
        fs::path svg = a.timeline;
        svg.replace_extension(".svg");
        write_text_atomic(svg.string(), br.tl.to_svg());
    }

    // cuzk-bench's batch summary: wall and prove time per job (avg/min/max), proofs per minute.
    min_avg_max wall, prove_t;
    std::map<std::string, min_avg_max> per_stage;
    std::vector<std::string> stage_order;
    for (const auto& jr : br.jobs) {
        wall.add(jr.end_ms - jr.start_ms);
        double p = 0;
        for (const auto& [name, ms] : jr.report.stages()) {
            if (name != "synthesize" && name != "queue") p += ms;
            if (!per_stage.count(name)) stage_order.push_back(name);
            per_stage[name].add(ms);
        }
        prove_t.add(p);
    }
    const double prep_ms = std::max(0.0, job.prepare_report().ms("c1_decode")) +
                           std::max(0.0, job.prepare_report().ms("construct"));
    const std::size_t constraints = job.shape().num_constraints();
    if (a.json) {
        nlohmann::json j;
        j["registered_proof"] = job.circuit_name();
        j["constraints"] = constraints;
        j["count"] = br.jobs.size();
        j["jobs_in_flight"] = a.jobs;
        j["wall_ms"] = br.wall_ms;
        j["proofs_per_minute"] = br.proofs_per_minute();
        j["job_wall_ms"] = wall.json();
        j["job_prove_ms"] = prove_t.json();
        nlohmann::json st = nlohmann::json::object();
        for (const auto& n : stage_order) st[n] = per_stage[n].json();
        j["stages_ms"] = st;
        j["load_params_ms"] = job.load_params_ms();
        j["params_wait_ms"] = job.params_wait_ms();
        j["decode_construct_ms"] = prep_ms;
        j["peak_rss_gib"] = peak_rss_gib();
        j["proofs"] = written;
        j["flags"] = flags_json(job.request().flags);
        j["cpu_path"] = cpu::arith_path();
        nlohmann::json per = nlohmann::json::array();
        for (const auto& jr : br.jobs) {
            nlohmann::json r = jr.report.to_json();
            r["name"] = jr.name;
            r["start_ms"] = jr.start_ms;
            r["end_ms"] = jr.end_ms;
            per.push_back(r);
        }
        j["per_job"] = per;
        if (!a.timeline.empty()) j["timeline"] = a.timeline;
        j["context"] = run_context();
        print_and_record(a, j);
        return exit_ok;
    }
    char line[160];
    // How the PoRep partitions were synthesized (synth=auto and synth_challenges=auto resolved).
    const char* synthesis = "";
    if (job.porep_config() != nullptr)
        synthesis = job.request().flags.synth == r1cs::synth_mode::pce ? ", the witness only (pre-compiled circuit)"
                    : job.parallel_challenges() ? ", each partition's challenges synthesized in parallel"
                                                : ", each partition's challenges synthesized one after another";
    std::cout << "batch: " << br.jobs.size() << " proofs of " << job.circuit_name() << " (" << constraints
              << " constraints each), " << a.jobs << " in flight" << synthesis << "\n";
    std::snprintf(line, sizeof line, "wall %.1f s, %.2f proofs per minute, peak memory %.2f GiB\n", br.wall_ms / 1000,
                  br.proofs_per_minute(), peak_rss_gib());
    std::cout << line;
    std::snprintf(line, sizeof line, "%-12s %10s %10s %10s\n", "per job (ms)", "avg", "min", "max");
    std::cout << line;
    auto row = [&](const std::string& name, const min_avg_max& m) {
        std::snprintf(line, sizeof line, "%-12s %10.1f %10.1f %10.1f\n", name.c_str(), m.avg(), m.lo, m.hi);
        std::cout << line;
    };
    row("wall", wall);
    row("prove", prove_t);
    for (const auto& n : stage_order) row(n, per_stage[n]);
    std::cout << "parameters loaded in " << fmt_ms(job.load_params_ms())
              << (job.request().flags.params_load == pipeline::params_load::overlap
                      ? " (beside the first synthesis; the first proof waited " + fmt_ms(job.params_wait_ms()) + ")"
                      : std::string())
              << ", inputs decoded and constructed in "
              << fmt_ms(prep_ms) << "\nproofs:";
    for (const auto& w : written) std::cout << " " << w;
    std::cout << "\n";
    if (!a.timeline.empty()) std::cout << "timeline: " << a.timeline << " (and .svg)\n";
    return exit_ok;
}

}  // namespace

int run_prove(const prove_args& a) {
    namespace fs = std::filesystem;
    pipeline::c2_request req;
    req.flags = pipeline::parse_flags(a.all_flags());
    if (a.c1.empty()) {
        if (a.circuit.circuit != circuit_hash_chain)
            throw error(errc::bad_input, "unknown circuit '" + a.circuit.circuit + "' (known: hash-chain)");
        if (a.circuit.steps.empty())
            throw error(errc::bad_input, "--steps is required for the hash-chain circuit (or use --c1 for PoRep)");
        if (a.params.empty()) throw error(errc::bad_input, "--params is required for the hash-chain circuit");
        if (a.x0.empty()) throw error(errc::bad_input, "--x0 is required for the hash-chain circuit");
        r1cs::hash_chain hc;
        hc.steps = parse_u64(a.circuit.steps, "--steps");
        if (hc.steps == 0) throw error(errc::bad_input, "--steps: must be at least 1");
        hc.x0 = ff::fr::from_u64(parse_u64(a.x0, "--x0"));
        req.hash_chain = hc;
        req.advice.other_circuit = "use the --steps given to setup";
    } else {
        req.c1_paths = a.c1;
        req.advice.missing_params = "run `c2lab setup --c1 " + a.c1.front() + "` first, or give --params";
        req.advice.other_circuit = "give the parameters of this proof type, or none for the cache's";
    }
    // The backend first: a missing GPU is reported before parameters are read.
    const auto backend = gpu::make_prover_backend(req.flags.backend, req.flags.host_pinning);
    req.backend = backend.get();
    if (a.out.empty()) throw error(errc::bad_input, std::string("-o: empty output ") + (a.batch() ? "directory" : "path"));
    if (a.batch() && fs::exists(a.out) && !fs::is_directory(a.out))
        throw error(errc::bad_input, "-o " + a.out + ": a batch writes one proof file per input into a directory, and " +
                                         a.out + " is a file");
    req.params_path = a.params;
    req.count = a.count;
    req.jobs = a.jobs;
    req.memory_budget = budget_bytes(a.memory_budget_gib);
    req.progress = [](const std::string& line) { progress("prove", line); };

    const auto started = std::chrono::steady_clock::now();
    const pipeline::c2_job job(std::move(req));
    const pipeline::c2_result res = job.prove();
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return a.batch() ? print_batch(a, job, res) : print_single(a, job, res, wall_ms);
}

}  // namespace c2lab::cli

#include "pipeline/batch.hpp"

#include <tbb/parallel_pipeline.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace c2lab::pipeline {

namespace {

using clock_type = std::chrono::steady_clock;

struct token {
    std::size_t job = 0;
    std::unique_ptr<prepared_job> witness;
    groth16::stage_report report;
    clock_type::time_point start, synthesized;
};

std::string gib(std::uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GiB", double(b) / double(1ull << 30));
    return buf;
}

}  // namespace

batch_result prove_batch(const groth16::parameters& params, const groth16::prover_config& cfg,
                         const batch_config& bc, const synthesize_fn& synthesize, const blinding_fn& blinding) {
    if (bc.jobs == 0) throw error(errc::bad_input, "prove_batch: --jobs must be at least 1");
    const std::size_t count = bc.job_names.size();
    if (count == 0) throw error(errc::bad_input, "prove_batch: no job");
    batch_result out;
    out.jobs.resize(count);
    const clock_type::time_point origin = clock_type::now();
    std::size_t next = 0;
    tbb::parallel_pipeline(
        bc.jobs,
        tbb::make_filter<void, token*>(tbb::filter_mode::serial_in_order,
                                       [&](tbb::flow_control& fc) -> token* {
                                           if (next == count) {
                                               fc.stop();
                                               return nullptr;
                                           }
                                           auto* t = new token;
                                           t->job = next++;
                                           return t;
                                       }) &
            tbb::make_filter<token*, token*>(tbb::filter_mode::parallel,
                                             [&](token* t) -> token* {
                                                 std::unique_ptr<token> guard(t);
                                                 t->start = clock_type::now();
                                                 t->witness = synthesize(t->job, t->report);
                                                 t->synthesized = clock_type::now();
                                                 return guard.release();
                                             }) &
            tbb::make_filter<token*, void>(tbb::filter_mode::serial_in_order, [&](token* t) {
                std::unique_ptr<token> guard(t);
                t->report.add_span("queue", t->synthesized, clock_type::now());
                const auto [r, s] = blinding();
                job_result& jr = out.jobs[t->job];
                jr.proof = groth16::create_proof(params, t->witness->witness(), r, s, cfg, &t->report);
                t->witness.reset();  // the witness's memory goes back before the next job is proved
                jr.name = bc.job_names[t->job];
                jr.start_ms = std::chrono::duration<double, std::milli>(t->start - origin).count();
                jr.end_ms = std::chrono::duration<double, std::milli>(clock_type::now() - origin).count();
                jr.report = std::move(t->report);
            }));
    out.wall_ms = std::chrono::duration<double, std::milli>(clock_type::now() - origin).count();
    out.tl.job_names = bc.job_names;
    out.tl.wall_ms = out.wall_ms;
    for (std::size_t j = 0; j < count; ++j) out.tl.add_job_spans(j, out.jobs[j].report, origin);
    return out;
}

memory_estimate estimate_memory(std::size_t constraints, std::size_t inputs, std::size_t aux) {
    constexpr std::uint64_t fr_bytes = 32;
    std::uint64_t n = 1;
    while (n < constraints) n <<= 1;
    memory_estimate e;
    // a, b, c evaluations and the input and aux assignments (densities are bits: ignored).
    e.witness_bytes = fr_bytes * (3 * std::uint64_t(constraints) + inputs + aux);
    // compute_h's padded copies of a, b, c and h, plus the MSMs' buckets (small next to it).
    e.prover_bytes = fr_bytes * 4 * n;
    return e;
}

std::uint64_t available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return kib * 1024;
    }
    return 0;
}

void check_memory_budget(std::uint64_t params_bytes, const memory_estimate& e, unsigned jobs,
                         std::uint64_t budget_bytes) {
    const std::uint64_t need = params_bytes + std::uint64_t(jobs) * e.witness_bytes + e.prover_bytes;
    const bool given = budget_bytes != 0;
    const std::uint64_t have = given ? budget_bytes : available_memory_bytes();
    if (have == 0) return;  // unknown: nothing to check against
    if (need > have) {
        std::ostringstream m;
        m << "the batch needs about " << gib(need) << " (parameters " << gib(params_bytes) << " + " << jobs
          << " job(s) x " << gib(e.witness_bytes) << " of witness + " << gib(e.prover_bytes)
          << " for the prover), more than the " << gib(have) << (given ? " of --memory-budget" : " this machine has available")
          << "; lower --jobs" << (jobs > 1 ? " (each job in flight holds a witness)" : "")
          << (given ? " or raise --memory-budget" : "");
        throw error(errc::resource, m.str());
    }
}

}  // namespace c2lab::pipeline

#include "pipeline/batch.hpp"

#include <tbb/parallel_pipeline.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"
#include "groth16/params_file.hpp"
#include "msm/fixed_base.hpp"
#include "msm/pippenger.hpp"
#include "r1cs/constraint_matrices.hpp"

namespace c2lab::pipeline {

groth16::proof prove_job(const groth16::parameters& params, prepared_job& job, const ff::fr& r, const ff::fr& s,
                         const groth16::prover_config& cfg, groth16::stage_report* report) {
    std::optional<groth16::abc_in_place> abc;
    {
        groth16::scoped_stage st(report, "pad_abc");  // a, b, c padded with zeros to the domain, for h
        abc = job.hand_over_abc(params.domain_size());
    }
    return groth16::create_proof(params, job.witness(), r, s, cfg, report, abc ? &*abc : nullptr);
}

r1cs::assignment_buffers witness_pool::take() {
    std::lock_guard lock(m_);
    if (free_.empty()) return {};
    r1cs::assignment_buffers b = std::move(free_.back());
    free_.pop_back();
    return b;
}

void witness_pool::give(r1cs::assignment_buffers&& b) {
    std::lock_guard lock(m_);
    free_.push_back(std::move(b));
}

std::size_t witness_pool::size() const {
    std::lock_guard lock(m_);
    return free_.size();
}

namespace {

using clock_type = std::chrono::steady_clock;

struct token {
    std::size_t job = 0;
    std::unique_ptr<prepared_job> witness;
    groth16::stage_report report;
    clock_type::time_point start, synthesized;
};

}  // namespace

batch_result prove_batch(const groth16::parameters& params, const groth16::prover_config& cfg,
                         const batch_config& bc, const synthesize_fn& synthesize, const blinding_fn& blinding) {
    if (bc.jobs == 0) throw error(errc::bad_input, "prove_batch: at least one job in flight is needed");
    const std::size_t count = bc.job_names.size();
    if (count == 0) throw error(errc::bad_input, "prove_batch: no job");
    batch_result out;
    out.jobs.resize(count);
    // One domain for every proof of the batch: its twiddle tables made by the first proof's ntt
    // stage. They then stay through the MSMs (+64 MB a table at 2^22, peak RSS 1.90 -> 2.02 GiB
    // with IFMA's two): not for a batch of one, whose domain goes with its ntt stage.
    groth16::prover_config shared = cfg;
    if (!shared.domains && batch_shares_domain(count)) shared.domains = std::make_shared<poly::domain_cache>();
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
                const auto inputs = t->witness->witness().input_assignment;
                jr.public_inputs.assign(inputs.begin() + (inputs.empty() ? 0 : 1), inputs.end());
                jr.proof = prove_job(params, *t->witness, r, s, shared, &t->report);
                // The witness's memory goes back before the next job is proved: to the pool for
                // the next synthesis, or freed.
                if (bc.pool) t->witness->give_back(*bc.pool);
                t->witness.reset();
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

std::uint64_t domain_of(std::size_t constraints) noexcept {
    std::uint64_t n = 1;
    while (n < constraints) n <<= 1;
    return n;
}

namespace {
// The twiddle tables of the h step on a domain of n (a power of two) with `ntt`.
std::uint64_t h_step_tables(std::uint64_t n, const poly::ntt_config& ntt) {
    return poly::twiddle_table_bytes(static_cast<std::size_t>(std::countr_zero(n)), ntt, true);
}
}  // namespace

memory_estimate estimate_memory(std::size_t constraints, std::size_t inputs, std::size_t aux,
                                const poly::ntt_config& ntt) {
    constexpr std::uint64_t fr_bytes = sizeof(ff::fr);
    const std::uint64_t n = domain_of(constraints);
    memory_estimate e;
    // a, b, c evaluations, padded to the domain when handed to the prover (prove_job), and the
    // input and aux assignments (densities are bits: ignored).
    e.witness_bytes = fr_bytes * (3 * n + inputs + aux);
    // The h step runs in a, b, c themselves: one vector of the domain's size at most (a vector
    // that grows to n while its old storage lives, or h from a backend), and the domain's twiddle
    // tables, 16 n bytes each (one or two: 2 KiB on the scalar path 64 MiB, with IFMA 128 MiB;
    // 32 GiB 2 GiB and 4 GiB, against the vector's 4 GiB). In a proof of its own the domain is
    // gone before the MSMs; a batch's shared domain stays (the shape overload, domain_kept).
    const std::uint64_t tables = h_step_tables(n, ntt);
    e.prover_bytes = fr_bytes * n + tables;
    e.prover_part = "h step: " + format_bytes(fr_bytes * n) + " vector + " + format_bytes(tables) + " twiddle tables";
    return e;
}

memory_estimate estimate_memory(const r1cs::circuit_shape& shape, const poly::ntt_config& ntt, bool domain_kept) {
    memory_estimate e = estimate_memory(shape.num_constraints(), shape.num_inputs(), shape.num_aux(), ntt);
    // The MSMs' scratch (msm/pippenger.cpp, GLV path, the default): per block of at most
    // glv_block pairs, each pair's recoded halves (5 limbs), and where a density runs along the
    // points (msm_split's rest: msm_density) the block's points gathered beside them. The H MSM
    // (no density): n - 1 pairs of recoded scalars alone. The others, at most a point and its
    // recoded scalar a pair, bounded by the aux count (G1) or the B query (G2). The MSMs run after
    // the h step, so it is counted against the h step's vector, not on top of it: 2 KiB, the G1
    // bound about 340 MB against 128 MiB; 32 GiB, the G2 bound 973 MB against 4 GiB. Beside them
    // the buckets (kept from block to block in MSMs of more than one block): two parts of 8
    // windows of 2^15 G1 buckets at c = 16, 3 MB each in huge pages, times the point chunks a
    // window is cut into: small next to the rest, and not counted.
    const std::uint64_t block = msm::msm_config{}.glv_block, recoded = 5 * sizeof(std::uint64_t);
    const std::uint64_t n = domain_of(shape.num_constraints());
    const std::uint64_t h = std::min<std::uint64_t>(block, n - 1) * recoded;
    const std::uint64_t g1 = std::max<std::uint64_t>(
        h, std::min<std::uint64_t>(block, shape.num_aux()) * (sizeof(groth16::g1_affine) + recoded));
    const std::uint64_t g2 = std::min<std::uint64_t>(block, shape.b_query_size()) * (sizeof(groth16::g2_affine) + recoded);
    // A batch's shared domain (prove_batch) keeps its tables through the MSMs.
    const std::uint64_t kept = domain_kept ? h_step_tables(n, ntt) : 0;
    if (std::max(g1, g2) + kept > e.prover_bytes) {
        e.prover_bytes = std::max(g1, g2) + kept;
        e.prover_part = kept ? "the MSMs' scratch + " + format_bytes(kept) + " twiddle tables kept for the batch"
                             : "the MSMs' scratch";
    }
    return e;
}

namespace {
// Points of each vector of the parameters: G1 (h, ic, l, a, b_g1) and G2 (b_g2).
struct params_points {
    std::uint64_t g1 = 0, g2 = 0;
};
params_points points_of(const r1cs::circuit_shape& shape) {
    const std::uint64_t n = domain_of(shape.num_constraints());
    return {(n - 1) + shape.num_inputs() + shape.num_aux() + shape.a_query_size() + shape.b_query_size(),
            shape.b_query_size()};
}
}  // namespace

std::uint64_t estimate_params_bytes(const r1cs::circuit_shape& shape) {
    const params_points p = points_of(shape);
    return sizeof(groth16::g1_affine) * p.g1 + sizeof(groth16::g2_affine) * p.g2;
}

std::uint64_t params_file_bytes(const r1cs::circuit_shape& shape) {
    return groth16::params_file_bytes(domain_of(shape.num_constraints()), shape.num_inputs(), shape.num_aux(),
                                      shape.a_query_size(), shape.b_query_size());
}

std::uint64_t estimate_params_bytes(std::size_t constraints, std::size_t inputs, std::size_t aux) {
    constexpr std::uint64_t g1 = sizeof(groth16::g1_affine), g2 = sizeof(groth16::g2_affine);
    const std::uint64_t n = domain_of(constraints), nv = std::uint64_t(inputs) + aux;
    // h: n - 1; ic: inputs; l: aux; a and b_g1: at most every variable; b_g2: the same in G2.
    return g1 * ((n - 1) + inputs + aux + 2 * nv) + g2 * nv;
}

std::uint64_t memory_need::total() const {
    std::uint64_t t = 0;
    for (const auto& term : terms) t += term.bytes;
    return t;
}

namespace {

// generate_parameters' peak: a_points and b_points are the a and b_g1 (= b_g2) queries' sizes.
memory_need setup_need(std::size_t constraints, std::size_t inputs, std::size_t aux, std::uint64_t matrix_entries,
                       std::uint64_t params_bytes, std::uint64_t a_points, std::uint64_t b_points) {
    constexpr std::uint64_t fr_bytes = sizeof(ff::fr), g1 = sizeof(groth16::g1_affine);
    const std::uint64_t n = domain_of(constraints), nv = std::uint64_t(inputs) + aux;
    const std::uint64_t g1_scalars = (n - 1) + nv + a_points + b_points;  // h | ic + l | a | b_g1
    // The tables of msm::fixed_base_table: (255 / w + 1) windows of 2^(w - 1) affine points,
    // w as the table chooses it for the batch.
    const auto table_bytes = [](std::uint64_t point_bytes, unsigned w) {
        return (255 / w + 1) * (std::uint64_t{1} << (w - 1)) * point_bytes;
    };
    const unsigned w1 = msm::fixed_base_table<ec::g1_curve>::best_window_bits(g1_scalars);
    const unsigned w2 = msm::fixed_base_table<ec::g2_curve>::best_window_bits(b_points);
    // The matrices' entries vectors grow by doubling, so their capacity is 1x to 2x the entries:
    // 1.40x for the 2 KiB PoRep circuit (2^23 + 2^22 + 2^23 for 14.9 million), 2x for the hash
    // chain; 1.5x here.
    const std::uint64_t matrices = matrix_entries * sizeof(r1cs::matrix_entry) * 3 / 2 +
                                   3 * (std::uint64_t(constraints) + 1) * sizeof(std::size_t) * 3 / 2;
    memory_need need;
    need.terms = {
        {"parameters", params_bytes},
        {"constraint matrices", matrices},
        {"powers of tau and Lagrange coefficients", 2 * fr_bytes * n},
        {"twiddle tables", poly::twiddle_table_bytes(static_cast<std::size_t>(std::countr_zero(n)), {}, false)},
        {"A, B, C at tau", 3 * (fr_bytes + 1) * nv},
        {"fixed-base scalars and G1 points", (fr_bytes + g1) * g1_scalars + fr_bytes * b_points},
        {"fixed-base tables", table_bytes(g1, w1) + table_bytes(sizeof(groth16::g2_affine), w2)},
    };
    return need;
}

}  // namespace

memory_need setup_memory_need(std::size_t constraints, std::size_t inputs, std::size_t aux,
                              std::uint64_t matrix_entries) {
    const std::uint64_t nv = std::uint64_t(inputs) + aux;
    if (matrix_entries == 0)
        matrix_entries = std::uint64_t(setup_entries_per_constraint * double(constraints) + 0.5);
    // a and b at most every variable.
    return setup_need(constraints, inputs, aux, matrix_entries, estimate_params_bytes(constraints, inputs, aux), nv,
                      nv);
}

memory_need setup_memory_need(const r1cs::circuit_shape& shape) {
    return setup_need(shape.num_constraints(), shape.num_inputs(), shape.num_aux(), shape.matrix_entries,
                      estimate_params_bytes(shape), shape.a_query_size(), shape.b_query_size());
}

memory_need prove_memory_need(std::string what, std::uint64_t params_bytes, const memory_estimate& e,
                              unsigned jobs_in_flight) {
    memory_need need;
    need.what = std::move(what);
    need.terms = {{"parameters", params_bytes},
                  {jobs_in_flight == 1 ? std::string("witness")
                                       : std::to_string(jobs_in_flight) + " job(s) x " + format_bytes(e.witness_bytes) +
                                             " of witness",
                   std::uint64_t(jobs_in_flight) * e.witness_bytes},
                  {e.prover_part.empty() ? std::string("prover") : "prover (" + e.prover_part + ")", e.prover_bytes}};
    return need;
}

memory_need prove_memory_need(std::string what, const r1cs::circuit_shape& shape, unsigned jobs_in_flight) {
    return prove_memory_need(std::move(what), estimate_params_bytes(shape), estimate_memory(shape), jobs_in_flight);
}

std::uint64_t meminfo_available_bytes(std::string_view meminfo) {
    std::istringstream in{std::string(meminfo)};
    std::string key, unit;
    std::uint64_t kib = 0;
    while (in >> key >> kib) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return kib * 1024;
    }
    return 0;
}

std::uint64_t cgroup_headroom_bytes(std::string_view memory_max, std::string_view memory_stat,
                                    std::string_view anon_key) {
    constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t max = 0;
    const std::string text(memory_max.substr(0, memory_max.find_first_of(" \n")));
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), max);
    if (text.empty() || ec != std::errc{} || p != text.data() + text.size()) return unlimited;  // "max" or junk
    // cgroup v1 writes "no limit" as LONG_MAX rounded down to a page (9223372036854771712).
    if (max >= (std::uint64_t{1} << 62)) return unlimited;
    std::istringstream in{std::string(memory_stat)};
    std::string key;
    std::uint64_t value = 0, anon = 0;
    while (in >> key >> value)
        if (key == anon_key) anon = value;
    return max > anon ? max - anon : 0;
}

namespace {

std::string read_small_file(const std::string& path, bool* ok) {
    std::ifstream in(path);
    *ok = static_cast<bool>(in);
    std::ostringstream s;
    if (*ok) s << in.rdbuf();
    return s.str();
}

// The tightest limit of the cgroup `rel` (as /proc/self/cgroup names it) and its ancestors
// under root, each less its anonymous memory; lowers *out when tighter.
void lower_to_cgroup_limit(const std::string& root, const std::string& rel, const char* limit_file,
                           std::string_view anon_key, memory_available* out) {
    std::string dir = root + (rel == "/" ? std::string() : rel);
    for (;;) {
        bool have_max = false, have_stat = false;
        const std::string max = read_small_file(dir + "/" + limit_file, &have_max);
        if (have_max) {
            const std::string stat = read_small_file(dir + "/memory.stat", &have_stat);
            const std::uint64_t room = cgroup_headroom_bytes(max, have_stat ? stat : std::string(), anon_key);
            if (room != std::numeric_limits<std::uint64_t>::max() && (out->bytes == 0 || room < out->bytes)) {
                out->bytes = room;
                out->source = dir + "/" + limit_file + " less the cgroup's " + std::string(anon_key);
            }
        }
        if (dir.size() <= root.size()) break;
        dir = dir.substr(0, dir.find_last_of('/'));
        if (dir.size() < root.size()) dir = root;
    }
}

}  // namespace

memory_available available_memory() {
    bool ok = false;
    memory_available out;
    const std::string meminfo = read_small_file("/proc/meminfo", &ok);
    if (ok && (out.bytes = meminfo_available_bytes(meminfo)) != 0) out.source = "MemAvailable";
    // This process's cgroups: "0::/path" (v2: memory.max, memory.stat's anon) and
    // "N:memory:/path" (v1: memory.limit_in_bytes, memory.stat's total_rss). In a container the
    // path may not exist under /sys/fs/cgroup (a namespaced view): then the root's limit counts.
    const std::string cg = read_small_file("/proc/self/cgroup", &ok);
    if (!ok) return out;
    std::istringstream lines(cg);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("0::", 0) == 0) {
            lower_to_cgroup_limit("/sys/fs/cgroup", line.substr(3), "memory.max", "anon", &out);
        } else if (const auto at = line.find(":memory:"); at != std::string::npos) {
            lower_to_cgroup_limit("/sys/fs/cgroup/memory", line.substr(at + 8), "memory.limit_in_bytes", "total_rss",
                                  &out);
        }
    }
    return out;
}

std::uint64_t available_memory_bytes() { return available_memory().bytes; }

std::string format_bytes(std::uint64_t b) {
    char buf[48];
    if (b >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", double(b) / double(1ull << 30));
    else if (b >= (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.2f MiB", double(b) / double(1ull << 20));
    else if (b >= (1ull << 10))
        std::snprintf(buf, sizeof buf, "%.2f KiB", double(b) / double(1ull << 10));
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
    return buf;
}

std::uint64_t parse_memory_size(const std::string& text, const std::string& what) {
    const auto bad = [&] {
        return error(errc::bad_input, what + ": '" + text +
                                          "' is not a memory size (a number of GiB, or a number with B, KiB, MiB, GiB "
                                          "or TiB, e.g. 512MiB)");
    };
    std::size_t end = 0;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
    if (end == 0) throw bad();
    double value = 0;
    try {
        std::size_t used = 0;
        value = std::stod(text.substr(0, end), &used);
        if (used != end) throw bad();
    } catch (const std::logic_error&) {
        throw bad();
    }
    std::string unit = text.substr(end);
    while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
    double scale = 0;
    if (unit.empty()) scale = double(1ull << 30);  // a plain number: GiB
    else if (unit == "B") scale = 1;
    else if (unit == "K" || unit == "KiB") scale = double(1ull << 10);
    else if (unit == "M" || unit == "MiB") scale = double(1ull << 20);
    else if (unit == "G" || unit == "GiB") scale = double(1ull << 30);
    else if (unit == "T" || unit == "TiB") scale = double(1ull << 40);
    else throw bad();
    const double bytes = value * scale;
    if (!(bytes >= 1) || bytes > 1.8e19) throw bad();
    return static_cast<std::uint64_t>(bytes);
}

namespace {

// What a need is checked against: the budget when one is given, else what the machine has
// (bytes 0: unknown, nothing to check against).
memory_available memory_to_check(std::uint64_t budget_bytes) {
    if (budget_bytes == 0) return available_memory();
    memory_available have;
    have.bytes = budget_bytes;
    have.source = "the memory budget";
    return have;
}

}  // namespace

bool memory_fits(const memory_need& need, std::uint64_t budget_bytes) {
    const memory_available have = memory_to_check(budget_bytes);
    return have.bytes == 0 || need.total() <= have.bytes;
}

void check_memory(const memory_need& need, std::uint64_t budget_bytes) {
    const bool given = budget_bytes != 0;
    const memory_available have = memory_to_check(budget_bytes);
    if (have.bytes == 0) return;  // unknown: nothing to check against
    const std::uint64_t total = need.total();
    if (total <= have.bytes) return;
    std::ostringstream m;
    m << need.what << " needs about " << format_bytes(total) << " (";
    for (std::size_t i = 0; i < need.terms.size(); ++i)
        m << (i ? " + " : "") << need.terms[i].name << " " << format_bytes(need.terms[i].bytes);
    m << "), more than the " << format_bytes(have.bytes)
      << (given ? " of the memory budget" : " this machine has available (" + have.source + ")");
    std::string advice = need.advice;
    if (given) advice += (advice.empty() ? "" : " or ") + std::string("raise the memory budget");
    if (!advice.empty()) m << "; " << advice;
    throw error(errc::resource, m.str());
}

void check_memory_budget(std::uint64_t params_bytes, const memory_estimate& e, unsigned jobs,
                         std::uint64_t budget_bytes) {
    memory_need need = prove_memory_need("the batch", params_bytes, e, jobs);
    need.advice = std::string("fewer jobs in flight") + (jobs > 1 ? " (each one holds a witness)" : "");
    check_memory(need, budget_bytes);
}

}  // namespace c2lab::pipeline

// The batch prover on the hash-chain circuit: every proof of a batch verifies, with one job in
// flight and with two; the timeline is well formed; the memory check refuses what does not fit.
#include "pipeline/batch.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

namespace c2lab::pipeline {
namespace {

using ff::fr;
constexpr size_t steps = 300;
const fr k = fr::from_u64(5);

std::atomic<int> alive{0}, most_alive{0};

// An assignment job that counts how many are alive at once.
struct chain_job final : assignment_job<r1cs::vec_indexer> {
    explicit chain_job(uint64_t x0) {
        r1cs::hash_chain{steps, k, fr::from_u64(x0)}.synthesize(pa);
        pa.enforce_input_constraints();
        const int now = ++alive;
        int seen = most_alive.load();
        while (now > seen && !most_alive.compare_exchange_weak(seen, now)) {
        }
    }
    ~chain_job() override { --alive; }
};

const groth16::parameters& params() {
    static const groth16::parameters p = [] {
        r1cs::constraint_matrices<r1cs::vec_indexer> cs;
        r1cs::hash_chain{steps, k, std::nullopt}.synthesize(cs);
        cs.enforce_input_constraints();
        rng g(9);
        return groth16::generate_parameters(cs, g);
    }();
    return p;
}

batch_result run(unsigned jobs, size_t count) {
    batch_config bc;
    for (size_t j = 0; j < count; ++j) bc.job_names.push_back("chain#" + std::to_string(j));
    bc.jobs = jobs;
    rng g(jobs);
    alive = 0;
    most_alive = 0;
    return prove_batch(
        params(), {}, bc,
        [](size_t job, groth16::stage_report& rep) {
            groth16::scoped_stage st(&rep, "synthesize");
            return std::make_unique<chain_job>(100 + job);
        },
        [&g] { return std::pair{fr::random(g), fr::random(g)}; });
}

void expect_valid(const batch_result& r) {
    const auto pvk = groth16::prepare_verifying_key(params().vk);
    for (size_t j = 0; j < r.jobs.size(); ++j) {
        const fr out = r1cs::hash_chain::output(fr::from_u64(100 + j), k, steps);
        EXPECT_TRUE(groth16::verify_proof(pvk, r.jobs[j].proof, std::vector<fr>{out})) << "job " << j;
        // and not for another job's output: the proofs are not interchangeable
        const fr other = r1cs::hash_chain::output(fr::from_u64(100 + (j + 1) % r.jobs.size()), k, steps);
        if (r.jobs.size() > 1) {
            EXPECT_FALSE(groth16::verify_proof(pvk, r.jobs[j].proof, std::vector<fr>{other}));
        }
    }
}

void expect_well_formed(const batch_result& r) {
    EXPECT_TRUE(r.tl.problems().empty()) << r.tl.problems().front();
    for (size_t j = 0; j < r.jobs.size(); ++j) {
        std::set<std::string> stages;
        for (const auto& e : r.tl.events)
            if (e.job == j) stages.insert(e.stage);
        for (const char* s : {"synthesize", "queue", "ntt", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2", "assemble"})
            EXPECT_TRUE(stages.count(s)) << "job " << j << " has no " << s;
        EXPECT_LE(r.jobs[j].start_ms, r.jobs[j].end_ms);
        EXPECT_LE(r.jobs[j].end_ms, r.wall_ms + 1e-6);
    }
    EXPECT_GT(r.proofs_per_minute(), 0);
}

TEST(batch, one_job_in_flight_proves_every_job_in_order) {
    const batch_result r = run(1, 3);
    ASSERT_EQ(r.jobs.size(), 3u);
    expect_valid(r);
    expect_well_formed(r);
    EXPECT_EQ(most_alive.load(), 1);
    // With one token, job j+1 starts after job j's proof is done.
    for (size_t j = 0; j + 1 < r.jobs.size(); ++j) EXPECT_GE(r.jobs[j + 1].start_ms, r.jobs[j].end_ms);
}

TEST(batch, two_jobs_in_flight_prove_every_job_and_hold_at_most_two_witnesses) {
    const batch_result r = run(2, 4);
    ASSERT_EQ(r.jobs.size(), 4u);
    expect_valid(r);
    expect_well_formed(r);
    EXPECT_LE(most_alive.load(), 2);
    EXPECT_GE(most_alive.load(), 1);
}

// A pool takes back each proved job's vectors; with one job in flight every job after the first
// synthesizes into them, so the pool ends with exactly one set, of the first job's memory.
TEST(batch, proved_jobs_give_their_vectors_to_the_pool) {
    witness_pool pool;
    batch_config bc;
    for (size_t j = 0; j < 3; ++j) bc.job_names.push_back("chain#" + std::to_string(j));
    bc.pool = &pool;
    std::vector<const fr*> a_memory;
    rng g(5);
    const batch_result r = prove_batch(
        params(), {}, bc,
        [&](size_t job, groth16::stage_report&) {
            auto j = std::make_unique<assignment_job<r1cs::vec_indexer>>(r1cs::capacity_hint{}, r1cs::presize_mode::off,
                                                                           pool.take());
            r1cs::hash_chain{steps, k, fr::from_u64(100 + job)}.synthesize(j->pa);
            j->pa.enforce_input_constraints();
            a_memory.push_back(j->pa.a().data());
            return j;
        },
        [&g] { return std::pair{fr::random(g), fr::random(g)}; });
    expect_valid(r);
    ASSERT_EQ(pool.size(), 1u);
    ASSERT_EQ(a_memory.size(), 3u);
    EXPECT_EQ(a_memory[1], a_memory[0]);  // a, padded to the domain by the first proof, is big enough
    EXPECT_EQ(a_memory[2], a_memory[0]);
    EXPECT_EQ(pool.take().a.data(), a_memory[0]);
    EXPECT_TRUE(pool.take().a.empty());  // the pool is empty now
}

// prove_job hands a, b, c over and computes h in them: the same proof as create_proof on copies
// (same r, s), bit for bit; the witness still shows its m evaluations; padding the wrong size or
// other memory is refused.
TEST(prove_job, h_in_place_gives_the_proof_of_the_copies) {
    const fr r = fr::from_u64(11), s = fr::from_u64(13);
    chain_job copied(7), consumed(7);
    const groth16::proof expected = groth16::create_proof(params(), copied.witness(), r, s);
    const std::size_t m = consumed.pa.a().size(), n = params().domain_size();
    ASSERT_LT(m, n);  // the padding is real
    const std::vector<fr> a_before = consumed.pa.a();
    EXPECT_EQ(prove_job(params(), consumed, r, s, {}, nullptr), expected);
    EXPECT_EQ(consumed.witness().a.size(), m);
    EXPECT_EQ(consumed.pa.a().size(), n);  // a, b, c were padded and overwritten: scratch now
    EXPECT_NE(std::vector<fr>(consumed.pa.a().begin(), consumed.pa.a().begin() + m), a_before);

    chain_job other(7);
    const auto abc = other.hand_over_abc(n);
    ASSERT_TRUE(abc.has_value());
    groth16::abc_in_place short_a = *abc;
    short_a.a = short_a.a.first(n - 1);
    EXPECT_THROW(groth16::create_proof(params(), other.witness(), r, s, {}, nullptr, &short_a), error);
    std::vector<fr> elsewhere(abc->b.begin(), abc->b.end());
    groth16::abc_in_place moved = *abc;
    moved.b = elsewhere;
    EXPECT_THROW(groth16::create_proof(params(), other.witness(), r, s, {}, nullptr, &moved), error);
    EXPECT_FALSE(chain_job(7).hand_over_abc(m - 1).has_value());  // smaller than the witness
}

TEST(batch, bad_configurations_are_refused) {
    batch_config bc;
    bc.job_names = {"a"};
    bc.jobs = 0;
    auto synth = [](size_t, groth16::stage_report&) { return std::unique_ptr<prepared_job>(); };
    auto blind = [] { return std::pair{fr::one(), fr::one()}; };
    EXPECT_THROW(prove_batch(params(), {}, bc, synth, blind), error);
    bc.jobs = 1;
    bc.job_names.clear();
    EXPECT_THROW(prove_batch(params(), {}, bc, synth, blind), error);
}

TEST(batch, timeline_json_svg_and_problems) {
    timeline t;
    t.job_names = {"a<b>.json#0", "c.json#0"};
    t.wall_ms = 100;
    t.events = {{0, "synthesize", 0, 40}, {0, "ntt", 40, 70}, {1, "synthesize", 30, 60}, {1, "msm_h", 70, 100}};
    EXPECT_TRUE(t.problems().empty());
    const auto j = t.to_json();
    EXPECT_EQ(j["events"].size(), 4u);
    EXPECT_EQ(j["jobs"][0]["name"], "a<b>.json#0");
    const std::string svg = t.to_svg();
    EXPECT_NE(svg.find("a&lt;b&gt;.json#0"), std::string::npos);
    EXPECT_EQ(svg.find("a<b>"), std::string::npos);
    EXPECT_NE(svg.find("<title>ntt: 40.0 to 70.0 ms"), std::string::npos) << svg;
    t.events.push_back({1, "assemble", 90, 80});
    t.events.push_back({5, "ntt", 0, 1});
    t.job_names.push_back("idle");
    const auto p = t.problems();
    ASSERT_EQ(p.size(), 3u);
    EXPECT_NE(p[0].find("ends before it starts"), std::string::npos);
    EXPECT_NE(p[1].find("no such job"), std::string::npos);
    EXPECT_NE(p[2].find("job 2 has no stage"), std::string::npos);
}

TEST(batch, memory_estimate_and_budget) {
    const memory_estimate e = estimate_memory(1000, 2, 998);  // domain 1024
    EXPECT_EQ(e.witness_bytes, 32u * (3 * 1024 + 1000));  // a, b, c padded to the domain
    EXPECT_EQ(e.prover_bytes, 32u * 1024 + poly::twiddle_table_bytes(10, {}, true));  // + the domain's tables
    EXPECT_GE(e.prover_bytes, 32u * 1024 + 16u * 1024);
    EXPECT_NO_THROW(check_memory_budget(1000, e, 2, 1ull << 30));
    try {
        check_memory_budget(1ull << 30, e, 3, 1ull << 20);
        FAIL() << "a budget of 1 MiB accepted";
    } catch (const error& ex) {
        EXPECT_EQ(ex.kind(), errc::resource);
        const std::string m = ex.what();
        EXPECT_NE(m.find("3 job(s)"), std::string::npos) << m;
        EXPECT_NE(m.find("of the memory budget"), std::string::npos) << m;
        EXPECT_NE(m.find("fewer jobs in flight"), std::string::npos) << m;
    }
    EXPECT_GT(available_memory_bytes(), 0u);  // Linux: /proc/meminfo
}

// The estimates against the sizes of the vectors they stand for (not the RSS): a proving
// assignment's a, b, c and assignment; a parameters set's points; the constraint matrices'
// entries per constraint against the constant the setup check assumes before recording them.
TEST(memory, estimates_match_the_vectors_of_a_small_circuit) {
    chain_job job(3);  // a, b, c as the prover gets them: padded to the domain
    const r1cs::proving_assignment<r1cs::vec_indexer>& pa = job.pa;
    const size_t constraints = pa.a().size(), inputs = pa.num_inputs(), aux = pa.num_aux();
    ASSERT_TRUE(job.hand_over_abc(params().domain_size()).has_value());
    const memory_estimate e = estimate_memory(constraints, inputs, aux);
    EXPECT_EQ(e.witness_bytes, sizeof(fr) * (pa.a().size() + pa.b().size() + pa.c().size() + inputs + aux));
    {  // the h step's vector and the twiddle tables its domain makes on this machine's path
        const size_t n = params().domain_size();
        const poly::evaluation_domain d = poly::evaluation_domain::for_size(n);
        std::vector<fr> a(n, fr::one()), b(n, fr::one()), c(n, fr::one());
        poly::compute_h_in_place(d, a, b, c, poly::ntt_config{});
        EXPECT_EQ(e.prover_bytes, sizeof(fr) * n + d.table_bytes());
    }

    const groth16::parameters& p = params();
    const std::uint64_t g1 = sizeof(groth16::g1_affine), g2 = sizeof(groth16::g2_affine);
    const std::uint64_t held = g1 * (p.h.size() + p.l.size() + p.a.size() + p.b_g1.size() + p.vk.ic.size()) +
                               g2 * p.b_g2.size();
    const std::uint64_t estimate = estimate_params_bytes(constraints, inputs, aux);
    const std::uint64_t nv = inputs + aux;
    EXPECT_GE(estimate, held);
    // The slack is the densities alone: at most every variable once more in a, b_g1 and b_g2.
    EXPECT_LE(estimate - held, (2 * g1 + g2) * nv) << estimate << " vs " << held;

    r1cs::constraint_matrices<r1cs::vec_indexer> cs;
    r1cs::hash_chain{steps, k, std::nullopt}.synthesize(cs);
    cs.enforce_input_constraints();
    const double per_constraint =
        double(cs.a().num_entries() + cs.b().num_entries() + cs.c().num_entries()) / double(cs.num_constraints());
    EXPECT_LE(per_constraint, setup_entries_per_constraint);
    const memory_need s = setup_memory_need(constraints, inputs, aux);
    ASSERT_FALSE(s.terms.empty());
    EXPECT_EQ(s.terms[0].bytes, estimate);
    EXPECT_GT(s.total(), 2 * held);  // parameters, and the batch of G1 points they are copied from
}

// From the shape pass the parameters' size is exact, and the setup and prove estimates use the
// densities and the matrices' entries.
TEST(memory, estimates_from_the_shape_pass_are_exact_for_the_parameters) {
    const r1cs::circuit_shape shape =
        r1cs::shape_of([](r1cs::shape_pass& pass) { r1cs::hash_chain{steps, k, std::nullopt}.synthesize(pass); });
    const groth16::parameters& p = params();
    const std::uint64_t g1 = sizeof(groth16::g1_affine), g2 = sizeof(groth16::g2_affine);
    const std::uint64_t held = g1 * (p.h.size() + p.l.size() + p.a.size() + p.b_g1.size() + p.vk.ic.size()) +
                               g2 * p.b_g2.size();
    EXPECT_EQ(estimate_params_bytes(shape), held);
    EXPECT_EQ(p.a.size(), shape.a_query_size());
    EXPECT_EQ(p.b_g2.size(), shape.b_query_size());
    EXPECT_LE(estimate_params_bytes(shape),
              estimate_params_bytes(shape.num_constraints(), shape.num_inputs(), shape.num_aux()));

    r1cs::constraint_matrices<r1cs::vec_indexer> cs;
    r1cs::hash_chain{steps, k, std::nullopt}.synthesize(cs);
    cs.enforce_input_constraints();
    const std::uint64_t entries = cs.a().num_entries() + cs.b().num_entries() + cs.c().num_entries();
    EXPECT_EQ(shape.matrix_entries, entries);
    const memory_need from_shape = setup_memory_need(shape);
    const memory_need from_counts =
        setup_memory_need(shape.num_constraints(), shape.num_inputs(), shape.num_aux(), entries);
    ASSERT_EQ(from_shape.terms.size(), from_counts.terms.size());
    EXPECT_EQ(from_shape.terms[0].bytes, held);
    EXPECT_EQ(from_shape.terms[1].bytes, from_counts.terms[1].bytes);  // the matrices: the same entries
    EXPECT_LE(from_shape.total(), from_counts.total());

    const memory_estimate e = estimate_memory(shape);
    const memory_estimate c = estimate_memory(shape.num_constraints(), shape.num_inputs(), shape.num_aux());
    EXPECT_EQ(e.witness_bytes, c.witness_bytes);
    EXPECT_GE(e.prover_bytes, c.prover_bytes);
    const memory_need prove = prove_memory_need("proving", shape, 2);
    EXPECT_EQ(prove.total(), held + 2 * e.witness_bytes + e.prover_bytes);
    // A batch's shared domain: its tables beside the MSMs' scratch, named in the term.
    const memory_estimate kept = estimate_memory(shape, {}, true);
    const std::uint64_t tables = poly::twiddle_table_bytes(
        static_cast<std::size_t>(std::countr_zero(domain_of(shape.num_constraints()))), {}, true);
    ASSERT_GT(tables, 0u);
    EXPECT_EQ(kept.witness_bytes, e.witness_bytes);
    EXPECT_GE(kept.prover_bytes, e.prover_bytes);
    if (kept.prover_bytes > e.prover_bytes) {
        EXPECT_NE(kept.prover_part.find("kept for the batch"), std::string::npos) << kept.prover_part;
    }
    if (e.prover_part == "the MSMs' scratch") {
        EXPECT_EQ(kept.prover_bytes, e.prover_bytes + tables);
    }
}

TEST(memory, check_names_the_step_the_terms_and_the_budget) {
    memory_need need = prove_memory_need("proving c1.json", 3ull << 30, {1ull << 30, 2ull << 30}, 1);
    EXPECT_EQ(need.total(), 6ull << 30);
    EXPECT_NO_THROW(check_memory(need, 6ull << 30));
    // memory_fits answers what check_memory would do, at the edge too.
    EXPECT_TRUE(memory_fits(need, 6ull << 30));
    EXPECT_FALSE(memory_fits(need, (6ull << 30) - 1));
    EXPECT_FALSE(memory_fits(need, 1ull << 20));
    try {
        check_memory(need, 1ull << 20);
        FAIL() << "6 GiB within a budget of 1 MiB";
    } catch (const error& ex) {
        EXPECT_EQ(ex.kind(), errc::resource);
        const std::string m = ex.what();
        EXPECT_EQ(m.rfind("proving c1.json needs about 6.00 GiB (parameters 3.00 GiB + witness 1.00 GiB + prover "
                          "2.00 GiB), more than the 1.00 MiB of the memory budget",
                          0),
                  0u)
            << m;
        EXPECT_NE(m.find("raise the memory budget"), std::string::npos) << m;
    }
}

TEST(memory, sizes_parse_and_print) {
    EXPECT_EQ(parse_memory_size("1MiB", "--memory-budget"), 1ull << 20);
    EXPECT_EQ(parse_memory_size("512M", "--memory-budget"), 512ull << 20);
    EXPECT_EQ(parse_memory_size("0.5", "--memory-budget"), 1ull << 29);  // a plain number is GiB
    EXPECT_EQ(parse_memory_size("2GiB", "--memory-budget"), 2ull << 30);
    EXPECT_EQ(parse_memory_size("64 KiB", "--memory-budget"), 64ull << 10);
    EXPECT_EQ(parse_memory_size("1T", "--memory-budget"), 1ull << 40);
    for (const char* bad : {"", "MiB", "1XB", "0", "-1", "1.2.3", "1e3"}) {
        try {
            parse_memory_size(bad, "--memory-budget");
            FAIL() << "'" << bad << "' accepted";
        } catch (const error& ex) {
            EXPECT_EQ(ex.kind(), errc::bad_input);
            EXPECT_NE(std::string(ex.what()).find("--memory-budget"), std::string::npos);
        }
    }
    EXPECT_EQ(format_bytes(512), "512 bytes");
    EXPECT_EQ(format_bytes(3ull << 19), "1.50 MiB");
    EXPECT_EQ(format_bytes(5ull << 30), "5.00 GiB");
}

TEST(memory, available_memory_from_meminfo_and_cgroup_text) {
    EXPECT_EQ(meminfo_available_bytes("MemTotal:       16318504 kB\nMemFree:         1000000 kB\n"
                                      "MemAvailable:    8000000 kB\nBuffers:  1 kB\n"),
              8000000ull * 1024);
    EXPECT_EQ(meminfo_available_bytes("MemTotal: 1 kB\n"), 0u);
    const std::uint64_t unlimited = ~std::uint64_t{0};
    EXPECT_EQ(cgroup_headroom_bytes("max\n", "anon 100\n"), unlimited);
    EXPECT_EQ(cgroup_headroom_bytes("4294967296\n", "anon 1073741824\nfile 2147483648\n"), 3ull << 30);
    EXPECT_EQ(cgroup_headroom_bytes("1000\n", "anon 5000\n"), 0u);
    EXPECT_EQ(cgroup_headroom_bytes("1000\n", ""), 1000u);
    EXPECT_EQ(cgroup_headroom_bytes("9223372036854771712\n", "total_rss 5\n", "total_rss"), unlimited);  // v1: none
    EXPECT_EQ(cgroup_headroom_bytes("8192\n", "rss 1\ntotal_rss 4096\n", "total_rss"), 4096u);
    const memory_available now = available_memory();
    EXPECT_GT(now.bytes, 0u);  // Linux: /proc/meminfo at least
    EXPECT_FALSE(now.source.empty());
}

}  // namespace
}  // namespace c2lab::pipeline

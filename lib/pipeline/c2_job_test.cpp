// The C2 job on the hash chain (its parameters written to a file as `c2lab setup` does): a
// request proves every input `count` times, bit for bit the proof of the prover called
// directly with the same r, s; the report sums the stages; bad requests are refused naming
// what is wrong, before anything large is read.
#include "pipeline/c2_job.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape_pass.hpp"

namespace c2lab::pipeline {
namespace {

using ff::fr;
namespace fs = std::filesystem;

r1cs::hash_chain chain(std::size_t steps, std::uint64_t x0) { return {steps, fr::from_u64(7), fr::from_u64(x0)}; }

// Parameters of the chain of `steps` in a temporary file (removed at exit).
struct params_file {
    std::string path;
    groth16::parameters params;
    explicit params_file(std::size_t steps) {
        path = (fs::temp_directory_path() / ("c2_job_test-" + std::to_string(::getpid()) + "-" +
                                              std::to_string(steps) + ".params"))
                   .string();
        r1cs::constraint_matrices<r1cs::vec_indexer> cs;
        chain(steps, 0).synthesize(cs);
        cs.enforce_input_constraints();
        rng g(steps);
        params = groth16::generate_parameters(cs, g);
        params.circuit_digest = r1cs::shape_of([&](r1cs::shape_pass& p) { chain(steps, 0).synthesize(p); }).digest;
        groth16::write_parameters(path, params);
    }
    ~params_file() { fs::remove(path); }
};
const params_file& file_200() {
    static const params_file f(200);
    return f;
}

c2_request chain_request(std::uint64_t x0) {
    c2_request r;
    r.hash_chain = chain(200, x0);
    r.params_path = file_200().path;
    auto g = std::make_shared<rng>(5);
    r.blinding = [g] { return std::pair{fr::random(*g), fr::random(*g)}; };
    return r;
}

errc kind_of(const std::function<void()>& f, std::string* message = nullptr) {
    try {
        f();
    } catch (const error& e) {
        if (message) *message = e.what();
        return e.kind();
    }
    ADD_FAILURE() << "no error";
    return errc::internal;
}

TEST(c2_job, proves_every_run_bit_for_bit_as_the_prover_does) {
    c2_request req = chain_request(42);
    req.count = 3;
    req.jobs = 2;
    std::vector<std::string> lines;
    req.progress = [&](const std::string& l) { lines.push_back(l); };
    ASSERT_EQ(req.flags.synth, r1cs::synth_mode::automatic);  // the default
    const c2_job job(req);
    EXPECT_EQ(job.request().flags.synth, r1cs::synth_mode::direct);  // auto: the hash chain synthesizes directly
    EXPECT_EQ(job.job_count(), 3u);
    EXPECT_EQ(job.circuit_name(), "hash-chain (steps 200)");
    const c2_result res = job.prove();
    ASSERT_EQ(res.proof_sets.size(), 3u);

    // The same r, s sequence through the prover directly.
    rng g(5);
    r1cs::proving_assignment<r1cs::vec_indexer> pa;
    chain(200, 42).synthesize(pa);
    pa.enforce_input_constraints();
    const fr out = r1cs::hash_chain::output(fr::from_u64(42), fr::from_u64(7), 200);
    const auto pvk = groth16::prepare_verifying_key(file_200().params.vk);
    for (std::size_t run = 0; run < 3; ++run) {
        const c2_proof_set& set = res.proof_sets[run];
        EXPECT_EQ(set.run, run);
        ASSERT_EQ(set.proofs.size(), 1u);
        const fr r = fr::random(g), s = fr::random(g);
        EXPECT_EQ(set.proofs[0], groth16::create_proof(file_200().params, pa, r, s)) << "run " << run;
        EXPECT_EQ(set.public_inputs, std::vector<fr>{out});
        EXPECT_TRUE(groth16::verify_proof(pvk, set.proofs[0], set.public_inputs));
    }
    // The summed report: prepare stages, then the prover's, queue left out.
    const groth16::stage_report rep = res.summed_report();
    for (const char* s : {"load_params", "synthesize", "ntt", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2", "assemble"})
        EXPECT_GE(rep.ms(s), 0) << s;
    EXPECT_LT(rep.ms("queue"), 0);
    EXPECT_GE(res.batch.jobs.front().report.ms("queue"), 0);
    // Progress says what it does: loading, then each job synthesized and proved.
    EXPECT_NE(std::find_if(lines.begin(), lines.end(),
                           [](const std::string& l) { return l.rfind("loading " + file_200().path, 0) == 0; }),
              lines.end());
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("proving ", 0) == 0; }),
              3);
}

TEST(c2_job, lc_indexer_and_presize_give_the_same_proof) {
    const c2_result plain = c2_job(chain_request(9)).prove();
    c2_request req = chain_request(9);
    req.flags = parse_flags(std::vector<std::string>{"lc_indexer=smallvec2", "presize=on"});
    EXPECT_EQ(c2_job(req).prove().proof_sets[0].proofs, plain.proof_sets[0].proofs);
}

// witness_memory=reuse: the jobs after the first synthesize into the vectors the one before gave
// back; the proofs are those of fresh vectors, bit for bit (same blinding), with one and two jobs
// in flight.
TEST(c2_job, reused_witness_memory_gives_the_same_proofs) {
    c2_request base = chain_request(9);
    base.count = 3;
    base.flags = parse_flags(std::vector<std::string>{"witness_memory=fresh"});
    const c2_result fresh = c2_job(base).prove();
    ASSERT_EQ(fresh.proof_sets.size(), 3u);
    for (const char* jobs : {"1", "2"}) {
        SCOPED_TRACE(jobs);
        c2_request req = chain_request(9);
        req.count = 3;
        req.flags = parse_flags(std::vector<std::string>{"witness_memory=reuse"});
        req.jobs = static_cast<unsigned>(std::stoul(jobs));
        const c2_result reused = c2_job(req).prove();
        ASSERT_EQ(reused.proof_sets.size(), fresh.proof_sets.size());
        for (size_t i = 0; i < fresh.proof_sets.size(); ++i)
            EXPECT_EQ(reused.proof_sets[i].proofs, fresh.proof_sets[i].proofs) << "set " << i;
    }
}

// params_load=overlap reads the parameters on a thread of their own beside the first synthesis:
// the proofs are those of params_load=before, bit for bit, with one and two jobs in flight; the
// load is reported either way and only the overlapped one can have kept the first proof waiting.
TEST(c2_job, params_load_overlap_gives_the_proofs_of_before) {
    c2_request base = chain_request(11);
    base.count = 3;
    base.flags = parse_flags(std::vector<std::string>{"params_load=before"});
    const c2_job before(base);
    EXPECT_EQ(before.params_wait_ms(), 0);
    const c2_result expected = before.prove();
    EXPECT_GE(expected.prepare_report.ms("load_params"), 0);
    for (unsigned jobs : {1u, 2u}) {
        SCOPED_TRACE(jobs);
        c2_request req = chain_request(11);
        req.count = 3;
        req.jobs = jobs;
        req.flags = parse_flags(std::vector<std::string>{"params_load=overlap"});
        const c2_job job(req);
        const c2_result res = job.prove();
        ASSERT_EQ(res.proof_sets.size(), expected.proof_sets.size());
        for (size_t i = 0; i < res.proof_sets.size(); ++i)
            EXPECT_EQ(res.proof_sets[i].proofs, expected.proof_sets[i].proofs) << "set " << i;
        EXPECT_GE(res.prepare_report.ms("load_params"), 0);
        EXPECT_GE(job.params_wait_ms(), 0);
        EXPECT_EQ(job.params(), file_200().params);
    }
}

// A file whose header is sound and whose points are not (a byte flipped: the checksum fails):
// params_load=before refuses it while preparing the job; overlap prepares the job (the header
// checked) and refuses it when the first proof needs the parameters, with the same message,
// and again on every later call (no proof from parameters that were not read).
TEST(c2_job, a_corrupt_parameters_file_is_refused_by_either_load) {
    const std::string path = file_200().path + ".corrupt";
    fs::copy_file(file_200().path, path, fs::copy_options::overwrite_existing);
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(static_cast<std::streamoff>(fs::file_size(path) / 2));
        char c = 0;
        f.read(&c, 1);
        c = static_cast<char>(c ^ 0x20);
        f.seekp(static_cast<std::streamoff>(fs::file_size(path) / 2));
        f.write(&c, 1);
    }
    std::string m;
    c2_request req = chain_request(1);
    req.params_path = path;
    req.flags = parse_flags(std::vector<std::string>{"params_load=before"});
    EXPECT_EQ(kind_of([&] { c2_job{req}; }, &m), errc::bad_input);
    EXPECT_NE(m.find("checksum mismatch"), std::string::npos) << m;
    req.flags = parse_flags(std::vector<std::string>{"params_load=overlap"});
    const c2_job job(req);
    for (int call = 0; call < 2; ++call) {
        EXPECT_EQ(kind_of([&] { (void)job.prove(); }, &m), errc::bad_input) << call;
        EXPECT_NE(m.find("checksum mismatch"), std::string::npos) << m;
        EXPECT_NE(m.find(path), std::string::npos) << m;
    }
    EXPECT_EQ(kind_of([&] { (void)job.params(); }), errc::bad_input);

    // A truncated file fails its header: refused while preparing the job, either way.
    fs::resize_file(path, fs::file_size(path) - 1);
    for (const char* mode : {"params_load=before", "params_load=overlap"}) {
        req.flags = parse_flags(std::vector<std::string>{mode});
        EXPECT_EQ(kind_of([&] { c2_job{req}; }, &m), errc::bad_input) << mode;
        EXPECT_NE(m.find("truncated"), std::string::npos) << m;
    }
    fs::remove(path);
}

TEST(c2_job, bad_requests_are_refused_naming_what_is_wrong) {
    std::string m;
    c2_request none = chain_request(1);
    none.hash_chain.reset();
    EXPECT_EQ(kind_of([&] { c2_job{none}; }), errc::bad_input);
    c2_request both = chain_request(1);
    both.c1_paths = {"x.json"};
    EXPECT_EQ(kind_of([&] { c2_job{both}; }), errc::bad_input);
    c2_request zero = chain_request(1);
    zero.jobs = 0;
    EXPECT_EQ(kind_of([&] { c2_job{zero}; }), errc::bad_input);
    c2_request pce = chain_request(1);
    pce.flags.synth = r1cs::synth_mode::pce;
    EXPECT_EQ(kind_of([&] { c2_job{pce}; }, &m), errc::bad_input);
    EXPECT_NE(m.find("synth=pce"), std::string::npos) << m;

    c2_request missing = chain_request(1);
    missing.params_path = file_200().path + ".missing";
    EXPECT_EQ(kind_of([&] { c2_job{missing}; }, &m), errc::io);
    EXPECT_NE(m.find(".missing"), std::string::npos) << m;

    // Parameters of another chain: refused with the counts and the caller's advice.
    c2_request other = chain_request(1);
    other.hash_chain = chain(150, 1);
    other.advice.other_circuit = "the advice";
    EXPECT_EQ(kind_of([&] { c2_job{other}; }, &m), errc::bad_input);
    EXPECT_NE(m.find("made for another circuit"), std::string::npos) << m;
    EXPECT_NE(m.find("(the advice)"), std::string::npos) << m;

    // The same counts, another structure (a digest recorded for another circuit): refused.
    {
        groth16::parameters p = file_200().params;
        p.circuit_digest[0] ^= 1;
        const std::string path = file_200().path + ".other";
        groth16::write_parameters(path, p);
        c2_request same_counts = chain_request(1);
        same_counts.params_path = path;
        EXPECT_EQ(kind_of([&] { c2_job{same_counts}; }, &m), errc::bad_input);
        EXPECT_NE(m.find("another structure"), std::string::npos) << m;
        fs::remove(path);
    }

    // Over the memory budget: refused before the parameters are read, with the terms.
    c2_request small = chain_request(1);
    small.memory_budget = 1024;
    small.jobs = 2;
    small.count = 2;
    std::vector<std::string> lines;
    small.progress = [&](const std::string& l) { lines.push_back(l); };
    EXPECT_EQ(kind_of([&] { c2_job{small}; }, &m), errc::resource);
    EXPECT_NE(m.find("parameters"), std::string::npos) << m;
    EXPECT_NE(m.find("fewer jobs in flight"), std::string::npos) << m;
    for (const auto& l : lines) EXPECT_EQ(l.rfind("loading", 0), std::string::npos) << l;

    // C1 files: a missing file is named.
    c2_request c1;
    c1.c1_paths = {"/nonexistent/c1.json"};
    EXPECT_EQ(kind_of([&] { c2_job{c1}; }, &m), errc::io);
    EXPECT_NE(m.find("/nonexistent/c1.json"), std::string::npos) << m;
}

TEST(c2_job, the_os_blinding_is_uniform_enough_to_differ) {
    // Not a statistical test: two draws of 255 random bits are equal with probability 2^-255.
    EXPECT_NE(random_fr_os(), random_fr_os());
    const c2_request req = [] {
        c2_request r = chain_request(3);
        r.blinding = {};
        return r;
    }();
    const c2_job job(req);
    const c2_result a = job.prove(), b = job.prove();
    EXPECT_NE(a.proof_sets[0].proofs, b.proof_sets[0].proofs);  // fresh r, s per proof
    const auto pvk = groth16::prepare_verifying_key(file_200().params.vk);
    EXPECT_TRUE(groth16::verify_proof(pvk, a.proof_sets[0].proofs[0], a.proof_sets[0].public_inputs));
}

}  // namespace
}  // namespace c2lab::pipeline

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <tuple>
#include <fstream>
#include <sstream>
#include <iterator>
#include <string>
#include <optional>
#include <vector>

#include <mutex>
#include <map>
#include <thread>
#include <chrono>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <xxhash.h>

#include <nlohmann/json.hpp>

#include "core/hex.hpp"
#include "ec/encoding.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "poly/h_poly.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define C2LAB_G16_SMALL 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define C2LAB_G16_SMALL 1
#endif
#endif

namespace {

// The contents' digest as the origin record writes it, from xxHash itself: the XXH3-128 of each
// 64 MiB piece (canonical bytes), then the XXH3-128 of those digests, in hex.
std::string xxh3_hex(const std::vector<uint8_t>& bytes) {
    constexpr size_t piece = size_t{64} << 20;
    std::vector<uint8_t> digests;
    XXH128_canonical_t c;
    for (size_t off = 0; off < bytes.size(); off += piece) {
        XXH128_canonicalFromHash(&c, XXH3_128bits(bytes.data() + off, std::min(piece, bytes.size() - off)));
        digests.insert(digests.end(), c.digest, c.digest + sizeof c.digest);
    }
    XXH128_canonicalFromHash(&c, XXH3_128bits(digests.data(), digests.size()));
    return c2lab::to_hex(std::span<const uint8_t>(c.digest, sizeof c.digest));
}

using namespace c2lab;
using namespace c2lab::groth16;
using r1cs::constraint_matrices;
using r1cs::hash_chain;
using r1cs::proving_assignment;
using r1cs::variable;

#ifdef C2LAB_G16_SMALL
const std::vector<size_t> chain_sizes = {1, 5, 100};
#else
const std::vector<size_t> chain_sizes = {1, 5, 100, 1000};
#endif

fr small(uint64_t x) { return fr::from_u64(x); }

template <class I, class Circuit>
constraint_matrices<I> matrices(const Circuit& c) {
    constraint_matrices<I> cs;
    c.synthesize(cs);
    cs.enforce_input_constraints();
    return cs;
}
template <class I, class Circuit>
proving_assignment<I> assignment(const Circuit& c) {
    proving_assignment<I> pa;
    c.synthesize(pa);
    pa.enforce_input_constraints();
    return pa;
}

hash_chain chain(size_t steps, uint64_t x0 = 3, uint64_t k = 7) { return hash_chain{steps, small(k), small(x0)}; }

template <class E>
errc kind_of(E&& f) {
    try {
        f();
    } catch (const c2lab::error& e) {
        return e.kind();
    }
    ADD_FAILURE() << "no c2lab::error thrown";
    return errc::internal;
}
template <class E>
std::string message_of(E&& f) {
    try {
        f();
    } catch (const c2lab::error& e) {
        return e.what();
    }
    return "";
}

// A hand-made circuit for the densities (values: a0 = 3, a1 = 5, a2 = a3 = 15, x = 45, a4 = 135):
//   a0 * a1 = a2
//   (a2 + 0*a3) * (a0 + 0*a4) = x    a3, a4 in A / B only with zero coefficients
//   one * a2 = a3                    a3 appears only in C
//   a0 * x = a4                      an input in B
//   a1 * one = a1                    the one in B
// a_aux density: a0 a1 a2 set, a3 a4 clear; b_aux: a0 a1 a2 set, a3 a4 clear; b_input: both.
struct density_circuit {
    template <class CS>
    void synthesize(CS& cs) const {
        using lc = typename CS::lc_type;
        auto a0 = cs.alloc([] { return "a0"; }, [] { return small(3); });
        auto a1 = cs.alloc([] { return "a1"; }, [] { return small(5); });
        auto a2 = cs.alloc([] { return "a2"; }, [] { return small(15); });
        auto a3 = cs.alloc([] { return "a3"; }, [] { return small(15); });
        auto x = cs.alloc_input([] { return "x"; }, [] { return small(45); });
        auto a4 = cs.alloc([] { return "a4"; }, [] { return small(135); });
        auto one = CS::one();
        cs.enforce([] { return "c1"; }, [&](lc l) { return l + a0; }, [&](lc l) { return l + a1; },
                   [&](lc l) { return l + a2; });
        cs.enforce([] { return "c2"; }, [&](lc l) { return l + a2 + fr::zero() * a3; },
                   [&](lc l) { return l + a0 + fr::zero() * a4; }, [&](lc l) { return l + x; });
        cs.enforce([] { return "c3"; }, [&](lc l) { return l + one; }, [&](lc l) { return l + a2; },
                   [&](lc l) { return l + a3; });
        cs.enforce([] { return "c4"; }, [&](lc l) { return l + a0; }, [&](lc l) { return l + x; },
                   [&](lc l) { return l + a4; });
        cs.enforce([] { return "c5"; }, [&](lc l) { return l + a1; }, [&](lc l) { return l + one; },
                   [&](lc l) { return l + a1; });
    }
};

g1_affine plus_generator(const g1_affine& p) { return (p.to_jacobian() + g1_affine::generator()).to_affine(); }
g2_affine plus_generator(const g2_affine& p) { return (p.to_jacobian() + g2_affine::generator()).to_affine(); }

template <class I>
class groth16_indexers : public ::testing::Test {};
using indexer_types = ::testing::Types<r1cs::vec_indexer, r1cs::smallvec_indexer<1>, r1cs::smallvec_indexer<2>,
                                       r1cs::smallvec_indexer<4>>;
TYPED_TEST_SUITE(groth16_indexers, indexer_types);

TYPED_TEST(groth16_indexers, hash_chain_proofs_verify_and_wrong_inputs_do_not) {
    for (size_t steps : chain_sizes) {
        SCOPED_TRACE("steps " + std::to_string(steps));
        rng g(1000 + steps);
        const hash_chain c = chain(steps);
        const auto params = generate_parameters(matrices<TypeParam>(c), g);
        const auto pa = assignment<TypeParam>(c);
        EXPECT_EQ(params.a.size(), pa.num_inputs() + pa.a_aux_density().count());
        EXPECT_EQ(params.b_g1.size(), pa.b_input_density().count() + pa.b_aux_density().count());
        const proof p = create_proof(params, pa, fr::random(g), fr::random(g));
        const auto pvk = prepare_verifying_key(params.vk);
        const fr out = hash_chain::output(small(3), small(7), steps);
        ASSERT_EQ(pa.input_assignment()[1], out);
        EXPECT_TRUE(verify_proof(pvk, p, std::vector<fr>{out}));
        EXPECT_FALSE(verify_proof(pvk, p, std::vector<fr>{out + fr::one()}));
    }
}

TYPED_TEST(groth16_indexers, densities_with_unused_and_zero_coefficient_variables) {
    rng g(77);
    const density_circuit c;
    const auto cs = matrices<TypeParam>(c);
    const auto pa = assignment<TypeParam>(c);
    EXPECT_EQ(pa.a_aux_density().count(), 3u);
    EXPECT_FALSE(pa.a_aux_density().test(3));
    EXPECT_FALSE(pa.a_aux_density().test(4));
    EXPECT_EQ(pa.b_aux_density().count(), 3u);
    EXPECT_EQ(pa.b_input_density().count(), 2u);
    const auto params = generate_parameters(cs, g);
    EXPECT_EQ(params.a.size(), 2u + 3u);
    EXPECT_EQ(params.b_g1.size(), 2u + 3u);
    EXPECT_EQ(params.b_g2.size(), 2u + 3u);
    const proof p = create_proof(params, pa, fr::random(g), fr::random(g));
    const auto pvk = prepare_verifying_key(params.vk);
    EXPECT_TRUE(verify_proof(pvk, p, std::vector<fr>{small(45)}));
    EXPECT_FALSE(verify_proof(pvk, p, std::vector<fr>{small(46)}));
}

// tau = 1 = omega^0 (insecure, but Groth16 is complete for any toxic waste): L_0(1) = 1 and
// every other Lagrange coefficient is 0, so every variable outside row 0 has u_j = v_j = 0:
// identity query points whose density bits are set. They must be stored (bellperson would
// drop them and the counts would no longer match the prover's densities).
TEST(groth16, identity_query_points_with_density_set_are_kept) {
    rng g(5);
    const density_circuit c;
    const auto cs = matrices<r1cs::vec_indexer>(c);
    const auto pa = assignment<r1cs::vec_indexer>(c);
    toxic_waste tw = toxic_waste::random(g);
    tw.tau = fr::one();
    const auto params = generate_parameters(cs, tw);
    size_t identities = 0;
    for (const auto& q : params.a) identities += q.is_identity() ? 1 : 0;
    EXPECT_GE(identities, 2u);
    size_t b_identities = 0;
    for (const auto& q : params.b_g2) b_identities += q.is_identity() ? 1 : 0;
    EXPECT_GE(b_identities, 2u);
    EXPECT_EQ(params.a.size(), pa.num_inputs() + pa.a_aux_density().count());
    EXPECT_EQ(params.b_g2.size(), pa.b_input_density().count() + pa.b_aux_density().count());
    const proof p = create_proof(params, pa, fr::random(g), fr::random(g));
    EXPECT_TRUE(verify_proof(prepare_verifying_key(params.vk), p, std::vector<fr>{small(45)}));
}

// One shared setup for the format and tamper tests.
struct shared_case {
    hash_chain circuit = chain(40);
    parameters params;
    proving_assignment<r1cs::vec_indexer> pa;
    proof p;
    fr out;
    static const shared_case& get() {
        static const shared_case s = [] {
            shared_case s;
            rng g(2024);
            s.params = generate_parameters(matrices<r1cs::vec_indexer>(s.circuit), g);
            s.pa = assignment<r1cs::vec_indexer>(s.circuit);
            s.p = create_proof(s.params, s.pa, fr::random(g), fr::random(g));
            s.out = hash_chain::output(small(3), small(7), 40);
            return s;
        }();
        return s;
    }
};

TEST(groth16, tampered_proofs_are_rejected) {
    const auto& s = shared_case::get();
    const auto pvk = prepare_verifying_key(s.params.vk);
    const std::vector<fr> x{s.out};
    ASSERT_TRUE(verify_proof(pvk, s.p, x));
    proof t = s.p;
    t.a = plus_generator(t.a);
    EXPECT_FALSE(verify_proof(pvk, t, x));
    t = s.p;
    t.b = plus_generator(t.b);
    EXPECT_FALSE(verify_proof(pvk, t, x));
    t = s.p;
    t.c = plus_generator(t.c);
    EXPECT_FALSE(verify_proof(pvk, t, x));
    t = s.p;
    std::swap(t.a, t.c);
    EXPECT_FALSE(verify_proof(pvk, t, x));
    EXPECT_EQ(kind_of([&] { verify_proof(pvk, s.p, std::vector<fr>{}); }), errc::bad_input);
    EXPECT_EQ(kind_of([&] { verify_proof(pvk, s.p, std::vector<fr>{s.out, s.out}); }), errc::bad_input);
}

TEST(groth16, proof_under_other_parameters_is_rejected) {
    const auto& s = shared_case::get();
    rng g(99);
    // Same shape, other toxic waste: a valid proof for those parameters, not for s's.
    const auto other = generate_parameters(matrices<r1cs::vec_indexer>(s.circuit), g);
    const proof p2 = create_proof(other, s.pa, fr::random(g), fr::random(g));
    EXPECT_TRUE(verify_proof(prepare_verifying_key(other.vk), p2, std::vector<fr>{s.out}));
    EXPECT_FALSE(verify_proof(prepare_verifying_key(s.params.vk), p2, std::vector<fr>{s.out}));
    // Another circuit (different constant) under s's parameters: same shape, wrong statement.
    const hash_chain c3 = chain(40, 3, 8);
    const auto pa3 = assignment<r1cs::vec_indexer>(c3);
    const proof p3 = create_proof(s.params, pa3, fr::random(g), fr::random(g));
    EXPECT_FALSE(verify_proof(prepare_verifying_key(s.params.vk), p3, std::vector<fr>{pa3.input_assignment()[1]}));
    // A circuit of another size does not fit the parameters at all.
    const auto pa4 = assignment<r1cs::vec_indexer>(chain(300));
    EXPECT_EQ(kind_of([&] { create_proof(s.params, pa4, fr::one(), fr::one()); }), errc::bad_input);
    proving_assignment<r1cs::vec_indexer> unfinished;
    s.circuit.synthesize(unfinished);
    EXPECT_EQ(kind_of([&] { create_proof(s.params, unfinished, fr::one(), fr::one()); }), errc::bad_input);
}

TEST(groth16, setup_refuses_matrices_without_input_constraints) {
    constraint_matrices<r1cs::vec_indexer> cs;
    chain(4).synthesize(cs);
    rng g(1);
    EXPECT_EQ(kind_of([&] { generate_parameters(cs, g); }), errc::bad_input);
    toxic_waste tw = toxic_waste::random(g);
    tw.delta = fr::zero();
    cs.enforce_input_constraints();
    EXPECT_EQ(kind_of([&] { generate_parameters(cs, tw); }), errc::bad_input);
}

TEST(groth16, b_g2_serial_and_parallel_give_the_same_verifying_proof) {
    const auto& s = shared_case::get();
    const auto pvk = prepare_verifying_key(s.params.vk);
    const fr r = small(11), t = small(13);
    prover_config serial, par;
    serial.b_g2 = b_g2_msm::serial;
    par.b_g2 = parse_b_g2_msm("parallel");
    stage_report rep_s, rep_p;
    const proof ps = create_proof(s.params, s.pa, r, t, serial, &rep_s);
    const proof pp = create_proof(s.params, s.pa, r, t, par, &rep_p);
    EXPECT_EQ(ps, pp);
    EXPECT_TRUE(verify_proof(pvk, ps, std::vector<fr>{s.out}));
    for (const char* stage : {"ntt", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2", "assemble"}) {
        EXPECT_GE(rep_s.ms(stage), 0) << stage;
        EXPECT_GE(rep_p.ms(stage), 0) << stage;
        EXPECT_NE(rep_s.table().find(stage), std::string::npos) << stage;
    }
    EXPECT_EQ(rep_s.stages().size(), 7u);
    const auto j = rep_p.to_json();
    EXPECT_EQ(j["stages"].size(), 7u);
    EXPECT_EQ(j["stages"][0]["name"], "ntt");
    EXPECT_TRUE(j.contains("total_ms"));
    EXPECT_EQ(kind_of([] { parse_b_g2_msm("both"); }), errc::bad_input);
    EXPECT_EQ(to_string(b_g2_msm::parallel), "parallel");
}

// Proofs sharing one domain (a batch's) equal those that make their own, with h in place too.
TEST(groth16, a_shared_domain_gives_the_same_proofs) {
    const auto& s = shared_case::get();
    const auto pvk = prepare_verifying_key(s.params.vk);
    prover_config shared;
    shared.domains = std::make_shared<poly::domain_cache>();
    for (uint64_t k = 1; k <= 3; ++k) {
        const fr r = small(20 + k), t = small(30 + k);
        const proof own = create_proof(s.params, s.pa, r, t);
        EXPECT_EQ(create_proof(s.params, s.pa, r, t, shared), own) << "proof " << k;
        // In place: a, b, c padded to the domain and overwritten.
        const size_t n = s.params.domain_size();
        std::vector<fr> a(s.pa.a()), b(s.pa.b()), c(s.pa.c());
        a.resize(n, fr::zero()), b.resize(n, fr::zero()), c.resize(n, fr::zero());
        const size_t m = s.pa.a().size();
        const witness_view wm{std::span<const fr>(a).first(m), std::span<const fr>(b).first(m),
                              std::span<const fr>(c).first(m), s.pa.input_assignment(), s.pa.aux_assignment(),
                              s.pa.a_aux_density(), s.pa.b_input_density(), s.pa.b_aux_density()};
        const abc_in_place in_place{a, b, c};
        const proof p = create_proof(s.params, wm, r, t, shared, nullptr, &in_place);
        EXPECT_EQ(p, own) << "proof " << k << " in place";
        EXPECT_TRUE(verify_proof(pvk, p, std::vector<fr>{s.out}));
    }
}

TEST(groth16, msm_split_gives_the_same_proof) {
    const auto& s = shared_case::get();
    const fr r = small(11), t = small(13);
    prover_config split;
    split.msm_split = true;
    split.msm.threads = 2;
    const proof plain = create_proof(s.params, s.pa, r, t);
    const proof p = create_proof(s.params, s.pa, r, t, split);
    EXPECT_EQ(p, plain);
    EXPECT_TRUE(verify_proof(prepare_verifying_key(s.params.vk), p, std::vector<fr>{s.out}));
}

TEST(groth16, the_stage_hook_sees_every_stage_once_and_its_time_counts) {
    const auto& s = shared_case::get();
    const fr r = small(11), t = small(13);
    for (b_g2_msm mode : {b_g2_msm::serial, b_g2_msm::parallel}) {
        std::mutex mu;
        std::map<std::string, int> calls;
        prover_config cfg;
        cfg.b_g2 = mode;
        cfg.on_stage = [&](std::string_view stage, double ms) {
            EXPECT_GE(ms, 0) << stage;
            std::lock_guard lock(mu);
            ++calls[std::string(stage)];
            // Work done in the hook counts in the stage: msm_l gets 30 ms more.
            if (stage == "msm_l") std::this_thread::sleep_for(std::chrono::milliseconds(30));
        };
        stage_report rep;
        const proof p = create_proof(s.params, s.pa, r, t, cfg, &rep);
        EXPECT_EQ(p, create_proof(s.params, s.pa, r, t));  // observing changes nothing
        const std::map<std::string, int> want{{"ntt", 1},   {"msm_h", 1},    {"msm_l", 1},
                                              {"msm_a", 1}, {"msm_b_g1", 1}, {"msm_b_g2", 1}};
        EXPECT_EQ(calls, want) << to_string(mode);
        EXPECT_GE(rep.ms("msm_l"), 30.0) << to_string(mode);  // a lower bound only: sleep never returns early
    }
}

// A backend computed with the naive references (msm_naive, poly::compute_h), counting calls; with
// corrupt_h it returns a wrong h, which must make the proof fail, so the test shows the
// prover really takes its stages from the backend.
struct reference_backend final : prover_backend {
    bool corrupt_h = false;
    int h_calls = 0, g1_calls = 0, g2_calls = 0;
    std::string_view name() const noexcept override { return "reference"; }
    std::vector<fr> compute_h(std::span<const fr> a, std::span<const fr> b, std::span<const fr> c) override {
        ++h_calls;
        auto h = poly::compute_h({a.begin(), a.end()}, {b.begin(), b.end()}, {c.begin(), c.end()});
        if (corrupt_h && !h.empty()) h[0] += fr::one();
        return h;
    }
    ec::g1_jacobian msm_g1(std::span<const ec::g1_affine> bases, std::span<const fr> scalars) override {
        ++g1_calls;
        EXPECT_EQ(bases.size(), scalars.size());
        return msm::msm_naive<ec::g1_curve>(bases, scalars);
    }
    ec::g2_jacobian msm_g2(std::span<const ec::g2_affine> bases, std::span<const fr> scalars) override {
        ++g2_calls;
        EXPECT_EQ(bases.size(), scalars.size());
        return msm::msm_naive<ec::g2_curve>(bases, scalars);
    }
};

TEST(groth16, a_backend_takes_the_stages_and_gives_the_same_proof) {
    const auto& s = shared_case::get();
    const auto pvk = prepare_verifying_key(s.params.vk);
    const fr r = small(11), t = small(13);
    const proof cpu = create_proof(s.params, s.pa, r, t);
    reference_backend be;
    prover_config cfg;
    cfg.backend = &be;
    cfg.b_g2 = b_g2_msm::parallel;  // ignored with a backend: G2 runs after the G1 MSMs
    const proof via_backend = create_proof(s.params, s.pa, r, t, cfg);
    EXPECT_EQ(via_backend, cpu);
    EXPECT_TRUE(verify_proof(pvk, via_backend, std::vector<fr>{s.out}));
    EXPECT_EQ(be.h_calls, 1);
    EXPECT_EQ(be.g1_calls, 6);  // h, l, a inputs, a aux, b1 inputs, b1 aux
    EXPECT_EQ(be.g2_calls, 2);  // b2 inputs, b2 aux
    be.corrupt_h = true;
    EXPECT_FALSE(verify_proof(pvk, create_proof(s.params, s.pa, r, t, cfg), std::vector<fr>{s.out}));
}

TEST(groth16, select_by_density_keeps_the_set_bits_in_order) {
    msm::density_bitmap d(130);
    std::vector<fr> scalars;
    for (uint64_t i = 0; i < 130; ++i) scalars.push_back(small(i));
    for (size_t i : {0u, 63u, 64u, 129u}) d.set(i);
    EXPECT_EQ(select_by_density(d, scalars), (std::vector<fr>{small(0), small(63), small(64), small(129)}));
    EXPECT_EQ(kind_of([&] { select_by_density(msm::density_bitmap(3), scalars); }), errc::bad_input);
}

TEST(groth16, proof_bytes_round_trip_and_malformed_bytes_are_refused) {
    const auto& s = shared_case::get();
    const auto bytes = encode_proof(s.p);
    ASSERT_EQ(bytes.size(), 192u);
    EXPECT_EQ(decode_proof(bytes), s.p);
    std::vector<uint8_t> v(bytes.begin(), bytes.end());
    EXPECT_EQ(kind_of([&] { decode_proof(std::span<const uint8_t>(v).first(191)); }), errc::bad_length);
    v.push_back(0);
    EXPECT_EQ(kind_of([&] { decode_proof(v); }), errc::bad_length);
    v.pop_back();
    // Compression flag cleared on B: bad flags, and the message names B.
    auto w = v;
    w[48] &= 0x7f;
    EXPECT_EQ(kind_of([&] { decode_proof(w); }), errc::bad_flags);
    EXPECT_NE(message_of([&] { decode_proof(w); }).find("proof element B"), std::string::npos);
    // Off the curve: change C's x until x^3 + 4 is not a square.
    bool found = false;
    for (int d = 1; d < 64 && !found; ++d) {
        w = v;
        w[191] ^= static_cast<uint8_t>(d);
        try {
            decode_proof(w);
        } catch (const c2lab::error& e) {
            if (e.kind() == errc::not_on_curve) {
                found = true;
                EXPECT_NE(std::string(e.what()).find("proof element C"), std::string::npos) << e.what();
            }
        }
    }
    EXPECT_TRUE(found);
    // Infinity flag with nonzero bits on A.
    w = v;
    w[0] |= 0x40;
    EXPECT_NE(kind_of([&] { decode_proof(w); }), errc::internal);
}

TEST(groth16, verifying_key_round_trip) {
    const auto& s = shared_case::get();
    const auto bytes = encode_verifying_key(s.params.vk);
    EXPECT_EQ(bytes.size(), 96u * 3 + 192u * 3 + 4 + 96u * s.params.vk.ic.size());
    EXPECT_EQ(bytes[96 * 3 + 192 * 3 + 3], s.params.vk.ic.size());  // u32 big-endian count
    const auto vk = decode_verifying_key(bytes);
    EXPECT_EQ(vk, s.params.vk);
    EXPECT_TRUE(verify_proof(prepare_verifying_key(vk), s.p, std::vector<fr>{s.out}));
    std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1);
    EXPECT_EQ(kind_of([&] { decode_verifying_key(cut); }), errc::bad_length);
    auto bad = bytes;
    bad[96 * 2 + 192 + 100] ^= 1;  // inside gamma_g2 (after alpha_g1, beta_g1, beta_g2)
    EXPECT_NE(message_of([&] { decode_verifying_key(bad); }).find("gamma_g2"), std::string::npos);
}

std::string temp_dir() {
    auto d = std::filesystem::temp_directory_path() / ("c2lab_g16_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d.string();
}
std::vector<uint8_t> slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}
void spit(const std::string& path, const std::vector<uint8_t>& b) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
void rehash(std::vector<uint8_t>& b) {
    unsigned len = 0;
    EVP_Digest(b.data(), b.size() - 32, b.data() + b.size() - 32, &len, EVP_sha256(), nullptr);
}

TEST(groth16, params_file_round_trip_and_refusals) {
    const auto& s = shared_case::get();
    const std::string dir = temp_dir();
    const std::string path = dir + "/params.bin";
    write_parameters(path, s.params);
    const parameters loaded = read_parameters(path);
    EXPECT_EQ(loaded, s.params);
    // The file's size is what params_file_bytes computes from the counts.
    EXPECT_EQ(std::filesystem::file_size(path),
              params_file_bytes(s.params.domain_size(), s.params.num_inputs(), s.params.num_aux(), s.params.a.size(),
                                s.params.b_g1.size()));
    {  // the circuit digest travels with the file
        parameters tagged = s.params;
        for (size_t i = 0; i < tagged.circuit_digest.size(); ++i) tagged.circuit_digest[i] = static_cast<uint8_t>(i + 1);
        const std::string tagged_path = dir + "/tagged.bin";
        write_parameters(tagged_path, tagged);
        const parameters back = read_parameters(tagged_path);
        EXPECT_EQ(back.circuit_digest, tagged.circuit_digest);
        EXPECT_NE(back, s.params);
        std::filesystem::remove(tagged_path);
        std::filesystem::remove(params_origin_path(tagged_path));
    }
    EXPECT_EQ(read_parameters(path, params_io::read), s.params);  // read(2) instead of mmap
    {  // the header alone (what a load that runs later is checked by up front)
        const params_header h = read_parameters_header(path), want = header_of(s.params);
        EXPECT_EQ(h.n, s.params.domain_size());
        EXPECT_EQ(h.num_inputs, s.params.num_inputs());
        EXPECT_EQ(h.num_aux, s.params.num_aux());
        EXPECT_EQ(std::tie(h.h, h.l, h.a, h.b_g1, h.b_g2, h.ic), std::tie(want.h, want.l, want.a, want.b_g1, want.b_g2, want.ic));
        EXPECT_EQ(h.circuit_digest, s.params.circuit_digest);
    }
    EXPECT_EQ(parse_params_io("read"), params_io::read);
    EXPECT_EQ(to_string(params_io::mmap), "mmap");
    EXPECT_EQ(kind_of([] { (void)parse_params_io("stream"); }), errc::bad_input);
    const proof p = create_proof(loaded, s.pa, small(5), small(6));
    EXPECT_TRUE(verify_proof(prepare_verifying_key(loaded.vk), p, std::vector<fr>{s.out}));
    // Overwriting is atomic and leaves no temporary file behind: the file and its origin record.
    write_parameters(path, s.params);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator{}), 2);

    const auto good = slurp(path);
    const std::string bad = dir + "/bad.bin";
    // in_header: read_parameters_header refuses it too, with the same message; otherwise (the
    // checksum, the points) the header passes and only the full read refuses.
    auto refused = [&](const std::vector<uint8_t>& bytes, errc want, const std::string& words, bool in_header) {
        spit(bad, bytes);
        try {
            (void)read_parameters_header(bad);
            EXPECT_FALSE(in_header) << "header accepted: " << words;
        } catch (const c2lab::error& e) {
            EXPECT_TRUE(in_header) << e.what();
            EXPECT_EQ(e.kind(), want) << e.what();
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
        for (params_io io : {params_io::mmap, params_io::read}) {  // the same refusal either way
            try {
                read_parameters(bad, io);
                ADD_FAILURE() << "accepted (" << to_string(io) << "): " << words;
            } catch (const c2lab::error& e) {
                EXPECT_EQ(e.kind(), want) << e.what();
                EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
                EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
            }
        }
    };
    refused(std::vector<uint8_t>(good.begin(), good.end() - 1), errc::bad_input, "truncated", true);
    refused(std::vector<uint8_t>(good.begin(), good.begin() + 50), errc::bad_input, "truncated", true);
    refused(std::vector<uint8_t>(good.begin(), good.begin() + 4), errc::bad_input, "truncated", true);
    auto t = good;
    t.push_back(0);
    refused(t, errc::bad_input, "trailing", true);
    t = good;
    t[good.size() / 2] ^= 0x10;
    refused(t, errc::bad_input, "checksum", false);
    t = good;
    t[0] = 'X';
    refused(t, errc::bad_input, "magic", true);
    t = good;
    t[8] = 3;
    refused(t, errc::bad_input, "unsupported version 3", true);
    t = good;
    t[8] = 1;  // the format before the circuit digest: named as such
    refused(t, errc::bad_input, "version 1, written before parameters files recorded the digest", true);
    t = good;
    t[16 + 8 * 3] ^= 1;  // h count
    refused(t, errc::bad_input, "inconsistent counts", true);
    // A point off the curve, with a valid checksum: the last coordinate limb of the last
    // b_g2 point changed.
    t = good;
    t[t.size() - 32 - 8] ^= 1;
    // Without a valid checksum the same change is the checksum's mismatch (the hash runs beside
    // the decoder, and a bad point waits for its verdict), in a query point and in the vk.
    refused(t, errc::bad_input, "checksum mismatch", false);
    rehash(t);
    refused(t, errc::bad_input, "b_g2[", false);
    t = good;
    t[params_file_header_bytes + 40] ^= 1;  // alpha_g1's x
    refused(t, errc::bad_input, "checksum mismatch", false);
    // params_check=own: write_parameters left an origin record; a load that trusts it gives
    // the same parameters, and so does the full check.
    EXPECT_TRUE(std::filesystem::exists(params_origin_path(path)));
    EXPECT_TRUE(params_origin_matches(path));
    EXPECT_EQ(read_parameters(path, params_io::mmap, params_check::own), s.params);
    EXPECT_EQ(read_parameters(path, params_io::read, params_check::own), s.params);
    {
        // The trusted mapped load borrows the queries from the mapping (no copy); the others own
        // theirs. A copy shares the mapping and outlives the original.
        parameters borrowed = read_parameters(path, params_io::mmap, params_check::own);
        EXPECT_TRUE(borrowed.h.borrowed() && borrowed.l.borrowed() && borrowed.a.borrowed() &&
                    borrowed.b_g1.borrowed() && borrowed.b_g2.borrowed());
        EXPECT_FALSE(read_parameters(path, params_io::read, params_check::own).h.borrowed());
        EXPECT_FALSE(read_parameters(path, params_io::mmap, params_check::full).h.borrowed());
        std::optional<parameters> copy(borrowed);
        borrowed = parameters{};
        EXPECT_TRUE(borrowed.h.empty());
        EXPECT_TRUE(copy->b_g2.borrowed());
        EXPECT_EQ(*copy, s.params);
        const proof from_copy = create_proof(*copy, s.pa, fr::from_u64(3), fr::from_u64(4));
        EXPECT_TRUE(verify_proof(prepare_verifying_key(copy->vk), from_copy, std::vector<fr>{s.out}));
        // A query's owned vector replaces its view.
        std::vector<g1_affine>& owned = copy->h.owned();
        EXPECT_FALSE(copy->h.borrowed());
        EXPECT_TRUE(owned.empty() && copy->h.empty());
    }
    EXPECT_EQ(parse_params_check("own"), params_check::own);
    EXPECT_EQ(to_string(params_check::full), "full");
    EXPECT_EQ(kind_of([] { (void)parse_params_check("none"); }), errc::bad_input);
    {
        // A point off its curve under a valid checksum: a file with no record, or with the record
        // of other bytes, has every point checked in either mode; one whose record matches (a
        // forged record here: c2lab writes one only for bytes it wrote or checked) is copied as
        // it is: what "own" trusts is the record.
        auto u = good;
        u[u.size() - 32 - 8] ^= 1;  // the last b_g2 point
        rehash(u);
        const std::string off = dir + "/off.bin";
        spit(off, u);
        std::filesystem::copy_file(params_origin_path(path), params_origin_path(off));  // path's record: other bytes
        EXPECT_FALSE(params_origin_matches(off));
        for (params_check c : {params_check::full, params_check::own}) {
            const std::string m = message_of([&] { (void)read_parameters(off, params_io::mmap, c); });
            EXPECT_NE(m.find("b_g2["), std::string::npos) << m;
        }
        std::ifstream rec(params_origin_path(path));
        std::string line;
        std::getline(rec, line);
        // The record names this machine, the size, the stored checksum and the XXH3-128 of the
        // contents: the same line with off's checksum and digest is a record of off.
        std::istringstream fields(line);
        std::string magic, machine, size, stored, contents;
        fields >> magic >> machine >> size >> stored >> contents;
        EXPECT_EQ(magic, "c2lab-params-origin-v3");
        EXPECT_EQ(machine, this_machine_id());
        EXPECT_EQ(size, std::to_string(good.size()));
        EXPECT_EQ(stored, to_hex(std::span<const uint8_t>(good).last(32)));
        EXPECT_EQ(contents, "xxh3:" + xxh3_hex(good));
        const std::string forged = magic + " " + machine + " " + size + " " +
                                   to_hex(std::span<const uint8_t>(u).last(32)) + " xxh3:" + xxh3_hex(u);
        std::ofstream(params_origin_path(off), std::ios::trunc) << forged << "\n";
        EXPECT_TRUE(params_origin_matches(off));
        // A record of the first format (no contents' digest) is not trusted, nor one of the
        // second (the digest in one pass, not in pieces).
        std::ofstream(params_origin_path(off), std::ios::trunc)
            << "c2lab-params-origin-v1 " << machine << " " << size << " " << to_hex(std::span<const uint8_t>(u).last(32))
            << "\n";
        EXPECT_FALSE(params_origin_matches(off));
        std::ofstream(params_origin_path(off), std::ios::trunc)
            << "c2lab-params-origin-v2" << forged.substr(forged.find(' ')) << "\n";
        EXPECT_FALSE(params_origin_matches(off));
        std::ofstream(params_origin_path(off), std::ios::trunc) << forged << "\n";
        EXPECT_EQ(kind_of([&] { (void)read_parameters(off, params_io::mmap, params_check::full); }), errc::bad_input);
        const parameters copied = read_parameters(off, params_io::mmap, params_check::own);
        EXPECT_FALSE(copied.b_g2.back().is_on_curve());
        // Another machine's record is not this machine's.
        std::ofstream(params_origin_path(off), std::ios::trunc)
            << magic << " another-machine" << forged.substr(forged.find(' ', forged.find(' ') + 1)) << "\n";
        EXPECT_FALSE(params_origin_matches(off));
        EXPECT_EQ(kind_of([&] { (void)read_parameters(off, params_io::mmap, params_check::own); }), errc::bad_input);
        // Trusted or not, the checksum is verified: a flipped byte is refused.
        auto v = good;
        v[good.size() / 2] ^= 0x10;
        spit(off, v);
        std::filesystem::copy_file(params_origin_path(path), params_origin_path(off),
                                   std::filesystem::copy_options::overwrite_existing);  // same size and stored checksum
        EXPECT_TRUE(params_origin_matches(off));
        const std::string m = message_of([&] { (void)read_parameters(off, params_io::mmap, params_check::own); });
        EXPECT_NE(m.find("checksum mismatch (XXH3-128"), std::string::npos) << m;
        EXPECT_NE(m.find(params_origin_path(off)), std::string::npos) << m;
        EXPECT_NE(message_of([&] { (void)read_parameters(off, params_io::read, params_check::own); }).find("checksum mismatch"),
                  std::string::npos);
        // The full check finds the same change with the stored SHA-256.
        EXPECT_NE(message_of([&] { (void)read_parameters(off, params_io::mmap, params_check::full); })
                      .find("checksum mismatch (SHA-256"),
                  std::string::npos);
        std::filesystem::remove(off);
        std::filesystem::remove(params_origin_path(off));
    }
    {
        // A file with no record: the first own load checks every point and records it.
        const std::string fresh = dir + "/fresh.bin";
        spit(fresh, good);
        EXPECT_FALSE(params_origin_matches(fresh));
        EXPECT_EQ(read_parameters(fresh, params_io::mmap, params_check::full), s.params);
        EXPECT_FALSE(std::filesystem::exists(params_origin_path(fresh)));  // full writes nothing
        EXPECT_EQ(read_parameters(fresh, params_io::mmap, params_check::own), s.params);
        EXPECT_TRUE(params_origin_matches(fresh));
        std::filesystem::remove(fresh);
        std::filesystem::remove(params_origin_path(fresh));
    }
    // The file cannot be opened.
    EXPECT_EQ(kind_of([&] { read_parameters(dir + "/missing.bin"); }), errc::io);
    EXPECT_EQ(kind_of([&] { write_parameters(dir + "/no/such/dir/p.bin", s.params); }), errc::io);
    std::filesystem::remove_all(dir);
}

}  // namespace

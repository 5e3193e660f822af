// Soundness as a property: random corruptions of a valid proof, of its public inputs and
// of the verifying key are rejected, over many iterations. "Rejected" means: decoding
// throws c2lab::error, or preparing the key throws, or verify_proof returns false; never
// true. Corruptions:
//   proof bytes      one to three random bit flips, random bytes over a random range, the
//                    sign flag of one point
//   proof points     A, B or C plus a random multiple of the generator; A and C swapped;
//                    A and B scaled by k and 1/k (the pairing term is unchanged) but C not
//   public inputs    the input plus a random nonzero field element
//   key bytes        random bit flips anywhere in the encoded key
//   key points       any element (alpha, beta, gamma, delta in both groups, every ic) plus
//                    a random multiple of the generator, or set to the identity
// Iterations per property: C2LAB_SOUNDNESS_ITERATIONS (default 1000; 100 in a sanitizer build).
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define C2LAB_SOUNDNESS_SMALL 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define C2LAB_SOUNDNESS_SMALL 1
#endif
#endif

namespace {

using namespace c2lab;
using namespace c2lab::groth16;

size_t iterations() {
    if (const char* v = std::getenv("C2LAB_SOUNDNESS_ITERATIONS")) return std::strtoull(v, nullptr, 10);
#ifdef C2LAB_SOUNDNESS_SMALL
    return 100;
#else
    return 1000;
#endif
}

struct fixture {
    parameters params;
    proof p;
    std::vector<fr> inputs;
    static const fixture& get() {
        static const fixture f = [] {
            fixture f;
            const r1cs::hash_chain c{30, fr::from_u64(7), fr::from_u64(3)};
            r1cs::constraint_matrices<> cs;
            c.synthesize(cs);
            cs.enforce_input_constraints();
            rng g(4242);
            f.params = generate_parameters(cs, g);
            r1cs::proving_assignment<r1cs::vec_indexer> pa;
            c.synthesize(pa);
            pa.enforce_input_constraints();
            f.p = create_proof(f.params, pa, fr::random(g), fr::random(g));
            f.inputs.assign(pa.input_assignment().begin() + 1, pa.input_assignment().end());
            return f;
        }();
        return f;
    }
};

// True when the proof (as bytes) is accepted under vk for inputs; any c2lab::error on the
// way counts as a rejection.
bool accepted(std::span<const uint8_t> proof_bytes, const verifying_key& vk, std::span<const fr> inputs) {
    try {
        return verify_proof(prepare_verifying_key(vk), decode_proof(proof_bytes), inputs);
    } catch (const c2lab::error&) {
        return false;
    }
}

template <class A>
A shifted(const A& pt, rng& g) {
    return (pt.to_jacobian() + A::generator().to_jacobian() * (fr::random(g) + fr::one())).to_affine();
}

TEST(soundness, the_untouched_proof_is_accepted) {
    const auto& f = fixture::get();
    const auto bytes = encode_proof(f.p);
    EXPECT_TRUE(accepted(bytes, f.params.vk, f.inputs));
    EXPECT_NO_THROW(check_verifying_key(f.params.vk));
}

TEST(soundness, corrupted_proof_bytes_are_rejected) {
    const auto& f = fixture::get();
    const auto good = encode_proof(f.p);
    const auto pvk = prepare_verifying_key(f.params.vk);
    rng g(1);
    size_t decoded = 0;
    for (size_t it = 0; it < iterations(); ++it) {
        auto bytes = good;
        if (it % 3 == 2) {
            // The sign flag of A, B or C (compressed: A at 0, B at 48, C at 144): decodes to -P.
            static constexpr size_t starts[3] = {0, 48, 144};
            bytes[starts[g.below(3)]] ^= 0x20;
        } else if (it % 3 == 0) {
            const size_t flips = 1 + g.below(3);
            for (size_t k = 0; k < flips; ++k) bytes[g.below(bytes.size())] ^= uint8_t(1u << g.below(8));
        } else {
            const size_t at = g.below(bytes.size()), len = 1 + g.below(bytes.size() - at);
            for (size_t k = at; k < at + len; ++k) bytes[k] = uint8_t(g.below(256));
        }
        if (bytes == good) continue;
        try {
            const proof q = decode_proof(bytes);
            ++decoded;
            EXPECT_FALSE(verify_proof(pvk, q, f.inputs)) << "iteration " << it;
        } catch (const c2lab::error&) {
        }
    }
    // Sign-bit flips decode to -P: some corruptions must reach the pairing, not only the decoder.
    EXPECT_GT(decoded, 0u);
}

TEST(soundness, corrupted_proof_points_are_rejected) {
    const auto& f = fixture::get();
    const auto pvk = prepare_verifying_key(f.params.vk);
    rng g(2);
    for (size_t it = 0; it < iterations(); ++it) {
        proof q = f.p;
        switch (it % 5) {
            case 0: q.a = shifted(q.a, g); break;
            case 1: q.b = shifted(q.b, g); break;
            case 2: q.c = shifted(q.c, g); break;
            case 3: std::swap(q.a, q.c); break;
            case 4: {
                // e(kA, B/k) = e(A, B): only C is left to bind, and C is shifted.
                const fr k = fr::random(g) + fr::one();
                q.a = (q.a.to_jacobian() * k).to_affine();
                q.b = (q.b.to_jacobian() * k.inverse()).to_affine();
                EXPECT_TRUE(verify_proof(pvk, q, f.inputs)) << "rescaling A and B keeps e(A, B)";
                q.c = shifted(q.c, g);
                break;
            }
        }
        EXPECT_FALSE(verify_proof(pvk, q, f.inputs)) << "iteration " << it;
    }
}

TEST(soundness, corrupted_public_inputs_are_rejected) {
    const auto& f = fixture::get();
    const auto pvk = prepare_verifying_key(f.params.vk);
    rng g(3);
    for (size_t it = 0; it < iterations(); ++it) {
        auto x = f.inputs;
        x[g.below(x.size())] += fr::random(g) + fr::one();
        EXPECT_FALSE(verify_proof(pvk, f.p, x)) << "iteration " << it;
    }
    auto longer = f.inputs;
    longer.push_back(fr::one());
    EXPECT_THROW(verify_proof(pvk, f.p, longer), c2lab::error);
}

TEST(soundness, corrupted_key_bytes_are_rejected) {
    const auto& f = fixture::get();
    const auto good = encode_verifying_key(f.params.vk);
    const auto proof_bytes = encode_proof(f.p);
    rng g(4);
    for (size_t it = 0; it < iterations(); ++it) {
        auto bytes = good;
        const size_t flips = 1 + g.below(3);
        for (size_t k = 0; k < flips; ++k) bytes[g.below(bytes.size())] ^= uint8_t(1u << g.below(8));
        if (bytes == good) continue;
        bool ok = false;
        try {
            ok = accepted(proof_bytes, decode_verifying_key(bytes), f.inputs);
        } catch (const c2lab::error&) {
        }
        EXPECT_FALSE(ok) << "iteration " << it;
    }
}

TEST(soundness, corrupted_key_points_are_rejected) {
    const auto& f = fixture::get();
    const auto proof_bytes = encode_proof(f.p);
    rng g(5);
    const size_t fields = 6 + f.params.vk.ic.size();
    for (size_t it = 0; it < iterations(); ++it) {
        verifying_key vk = f.params.vk;
        const size_t which = it % fields;
        const bool to_identity = g.below(4) == 0;
        auto corrupt = [&](auto& pt) {
            using A = std::remove_reference_t<decltype(pt)>;
            pt = to_identity ? A::identity() : shifted(pt, g);
        };
        switch (which) {
            case 0: corrupt(vk.alpha_g1); break;
            case 1: corrupt(vk.beta_g1); break;
            case 2: corrupt(vk.beta_g2); break;
            case 3: corrupt(vk.gamma_g2); break;
            case 4: corrupt(vk.delta_g1); break;
            case 5: corrupt(vk.delta_g2); break;
            default: corrupt(vk.ic[which - 6]); break;
        }
        EXPECT_FALSE(accepted(proof_bytes, vk, f.inputs)) << "element " << which << " iteration " << it;
    }
}

// beta_g1 and delta_g1 take no part in the verification equation; without
// check_verifying_key a key with a wrong one would verify. The same for identities in
// gamma and delta, which would let anyone forge (e(C, -delta) = 1 for every C).
TEST(soundness, check_verifying_key_names_the_inconsistent_element) {
    const auto& f = fixture::get();
    auto message = [](const verifying_key& vk) {
        try {
            check_verifying_key(vk);
        } catch (const c2lab::error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    verifying_key vk = f.params.vk;
    vk.beta_g1 = (vk.beta_g1.to_jacobian() + g1_affine::generator()).to_affine();
    EXPECT_NE(message(vk).find("beta_g1"), std::string::npos) << message(vk);
    vk = f.params.vk;
    vk.delta_g1 = g1_affine::generator();
    EXPECT_NE(message(vk).find("delta_g1"), std::string::npos) << message(vk);
    vk = f.params.vk;
    vk.gamma_g2 = g2_affine::identity();
    EXPECT_NE(message(vk).find("gamma_g2"), std::string::npos) << message(vk);
    vk = f.params.vk;
    vk.delta_g2 = g2_affine::identity();
    EXPECT_NE(message(vk).find("delta_g2"), std::string::npos) << message(vk);
}

}  // namespace

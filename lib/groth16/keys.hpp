// Groth16 keys over BLS12-381, laid out as bellperson's (src/groth16/{mod.rs,params.rs}).
//
// verifying_key: alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 and
//   ic[j] = [(beta u_j(tau) + alpha v_j(tau) + w_j(tau)) / gamma] G1 for every input j
//   (input 0, the constant one, included: ic.size() == number of inputs).
// prepared_verifying_key: e(alpha, beta) in GT, -gamma and -delta with their Miller-loop
//   lines precomputed, and ic (see verifier.hpp).
// parameters: the proving key, vk plus the queries
//   h[i]    = [tau^i Z(tau) / delta] G1                   i < n - 1 (n the domain size)
//   l[j]    = [(beta u_j + alpha v_j + w_j) / delta] G1   one per aux variable
//   a       = [u_j(tau)] G1, filtered (below)
//   b_g1    = [v_j(tau)] G1, filtered
//   b_g2    = [v_j(tau)] G2, filtered
//
// Filtering of a, b_g1, b_g2 and how it meets the prover's density bitmaps
// ------------------------------------------------------------------------
// The prover (prover.hpp) gets three bitmaps from r1cs::proving_assignment: a_aux_density
// (aux j appears in some A row with a nonzero coefficient), b_input_density and
// b_aux_density (the same for B). It runs msm::msm_filtered_bases with the FULL assignment
// as scalars and the query as bases, one base per set bit, in order. So the queries hold:
//
//   a    = [u_j for EVERY input j, in order] ++ [u_j for aux j with a_aux bit set, in order]
//          (A's inputs are treated as fully dense, as bellperson's prover does: every input
//          has the input constraint input_j * 0 = 0, so its A column is never empty)
//   b_g1 = [v_j for inputs with b_input bit set] ++ [v_j for aux with b_aux bit set]
//   b_g2 = same selection as b_g1, in G2
//
// Setup (setup.hpp) computes these bits from r1cs::constraint_matrices with exactly the
// prover's rule: a variable's bit is set iff it appears in some row of that matrix with a
// nonzero coefficient (zero-coefficient terms are kept in the matrices, as in bellpepper,
// and ignored here as in the prover's evaluation). Both sides run the same circuit code, so
// the counts always agree.
//
// Difference from bellperson: bellperson's generator computes a query point for every
// variable and then drops the points at infinity (`filter(|e| !e.is_identity())`). That
// matches the density only with overwhelming probability (u_j(tau) = 0 for a variable with
// a nonzero A column needs tau to be a root of u_j). c2lab filters by the density bits
// instead, so a point that happens to be the identity but whose bit is set is STORED (as
// the identity, which every MSM skips), and the base count always equals the bit count.
// With honest random tau the two rules give identical parameters.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ec/g2.hpp"
#include "ec/pairing.hpp"
#include "groth16/query_points.hpp"

namespace c2lab::groth16 {

using ec::g1_affine;
using ec::g2_affine;
using ff::fr;

struct verifying_key {
    g1_affine alpha_g1;
    g1_affine beta_g1;
    g2_affine beta_g2;
    g2_affine gamma_g2;
    g1_affine delta_g1;
    g2_affine delta_g2;
    std::vector<g1_affine> ic;  // one per input, the constant one first

    friend bool operator==(const verifying_key&, const verifying_key&) = default;
};

struct prepared_verifying_key {
    ec::gt alpha_g1_beta_g2;        // e(alpha, beta)
    ec::g2_prepared neg_gamma_g2;   // -gamma, lines precomputed
    ec::g2_prepared neg_delta_g2;   // -delta, lines precomputed
    std::vector<g1_affine> ic;

    explicit prepared_verifying_key(const verifying_key& vk);
};

// The queries are query_points: owned vectors, or (a trusted load of a mapped parameters file,
// params_file.hpp) the file's own pages, kept mapped while the parameters or a copy live.
struct parameters {
    verifying_key vk;
    query_points<g1_affine> h;     // n - 1 points
    query_points<g1_affine> l;     // one per aux variable
    query_points<g1_affine> a;     // inputs (all) + aux with a_aux bit
    query_points<g1_affine> b_g1;  // inputs with b_input bit + aux with b_aux bit
    query_points<g2_affine> b_g2;  // same selection as b_g1
    // The digest of the structure of the circuit they were made for (r1cs::circuit_shape::
    // digest), recorded in the parameters file; all zeros: not known. Setup leaves it to the
    // caller, who has the circuit's shape.
    std::array<uint8_t, 32> circuit_digest{};

    size_t num_inputs() const noexcept { return vk.ic.size(); }
    size_t num_aux() const noexcept { return l.size(); }
    size_t domain_size() const noexcept { return h.size() + 1; }

    friend bool operator==(const parameters&, const parameters&) = default;
};

}  // namespace c2lab::groth16

// Groth16 parameter generation (bellperson's generate_parameters / generate_random_parameters,
// src/groth16/generator.rs), for TESTS AND BENCHMARKS: the toxic waste (tau, alpha, beta,
// gamma, delta) comes from a caller-given c2lab::rng (not a secure generator) or is given
// explicitly. Real ceremonies (powers-of-tau MPC, phase 2) are out of scope.
//
// Steps, for a circuit recorded by r1cs::constraint_matrices with m constraints (input
// constraints included: call enforce_input_constraints() first; checked):
//   1. domain H of size n = next power of two >= m (poly::evaluation_domain::at_least)
//   2. tau^i for i < n; Z(tau) = tau^n - 1; Lagrange coefficients L_i(tau) by one inverse NTT
//      of the powers of tau, as bellman does (L_i(X) = 1/n sum_k (X omega^-i)^k; works for
//      any tau, including tau in H)
//   3. per variable j: u_j = sum_i A[i][j] L_i(tau), v_j (B), w_j (C), from the sparse rows;
//      density bits from the same rows (nonzero coefficient; see keys.hpp)
//   4. scalars of every G1 point, multiplied by one msm::fixed_base_table of the generator
//      (mul_batch, to affine), and those of b_g2 by a G2 table
// Cost: one NTT of size n, one pass over the nonzeros of A, B, C, and about
// (n + 3 * variables) fixed-base G1 and (variables) G2 multiplications.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "core/rng.hpp"
#include "groth16/keys.hpp"
#include "r1cs/constraint_matrices.hpp"

namespace c2lab::groth16 {

struct toxic_waste {
    fr tau, alpha, beta, gamma, delta;
    // Each uniform in Fr \ {0}.
    static toxic_waste random(rng& g) noexcept;
};

// The shape setup needs: the three matrices (rows = constraints, input constraints included)
// and the variable counts (num_inputs includes the constant one).
struct r1cs_shape {
    const r1cs::sparse_matrix& a;
    const r1cs::sparse_matrix& b;
    const r1cs::sparse_matrix& c;
    size_t num_inputs;
    size_t num_aux;
};

struct setup_config {
    unsigned threads = 0;  // 0: the caller's arena (all cores); k: a task_arena of k threads
    // Called at the start of each step with a line that says what it is about to do (the
    // fixed-base multiplications take most of the time); empty: silent.
    std::function<void(const std::string&)> progress;
};

// Throws c2lab::error(errc::bad_input) when the matrices disagree in row count, refer to a
// variable out of range, lack the trailing input constraints (row m - num_inputs + i must be
// A = input_i, B = C = empty), or when gamma or delta is zero.
parameters generate_parameters(const r1cs_shape& shape, const toxic_waste& tw, const setup_config& cfg = {});

template <class Indexer>
parameters generate_parameters(const r1cs::constraint_matrices<Indexer>& cs, const toxic_waste& tw,
                               const setup_config& cfg = {}) {
    return generate_parameters(r1cs_shape{cs.a(), cs.b(), cs.c(), cs.num_inputs(), cs.num_aux()}, tw, cfg);
}
template <class Indexer>
parameters generate_parameters(const r1cs::constraint_matrices<Indexer>& cs, rng& g, const setup_config& cfg = {}) {
    return generate_parameters(cs, toxic_waste::random(g), cfg);
}

}  // namespace c2lab::groth16

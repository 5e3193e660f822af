// The h step of the Groth16 prover, exactly as bellperson's prover does it
// (groth16/prover.rs, execute_fft): given the evaluations a, b, c of the constraint
// polynomials on the domain H (one per constraint, m of them),
//
//   pad a, b, c with zeros to n = next power of two >= m (EvaluationDomain::from_coeffs)
//   a, b, c := iNTT             -> coefficients of A, B, C (degree < n)
//   a, b, c := coset NTT (g=7)  -> A, B, C at g*omega^i
//   a := a*b - c                -> (A*B - C)(g*omega^i)
//   a := a * (g^n - 1)^-1       -> divide_by_z_on_coset: Z(X) = X^n - 1 is g^n - 1 there
//   a := coset iNTT             -> coefficients of h, degree < n
//
// When a_i * b_i = c_i for every i (a satisfied system), A*B - C vanishes on H, so
// h = (A*B - C) / Z exactly; its degree is at most n - 2 and coefficient n-1 is zero.
// bellperson keeps the first n - 1 coefficients (its H query has n - 1 bases); compute_h
// does the same. Otherwise (remainder R != 0), the result is Q + R / (g^n - 1), where
// A*B - C = Q*Z + R: the unique polynomial of degree < n agreeing with (A*B-C)/Z on g*H.
//
// c2lab takes one transform fewer: the coset inverse is linear and C's coset values
// interpolate back to C's own coefficients, so
//   coset iNTT((A*B - C) / Z) = coset iNTT(A*B) / Z - C / Z,
// and c needs its iNTT alone (times 1/Z), subtracted from the last transform's result: no
// coset NTT of c. The same coefficients, bit for bit, as the seven-transform form.
//
// Costs for n = 2^k: 6 transforms of (n/2)*k butterflies each, plus about 8n
// multiplications (scalings, coset powers, a*b, division by Z) and n subtractions.
// Memory: a, b, c.
#pragma once

#include <span>
#include <vector>

#include "poly/domain.hpp"
#include "poly/ntt.hpp"

namespace c2lab::poly {

// In place on padded vectors: a, b, c must each hold d.size() evaluations (errc::bad_input
// otherwise). On return a holds all n coefficients of h (coefficient n-1 is zero for a
// satisfied system); b holds B's coset evaluations and c C's coefficients over Z (scratch).
void compute_h_in_place(const evaluation_domain& d, std::span<fr> a, std::span<fr> b, std::span<fr> c,
                        const ntt_config& cfg = {});

// bellperson's entry point: a, b, c of the same length m (errc::bad_input otherwise) are
// padded to n = next power of two >= max(m, 1); returns the first n - 1 coefficients of h
// (the n-th, always zero for a satisfied system, is dropped as bellperson drops it).
std::vector<fr> compute_h(std::vector<fr> a, std::vector<fr> b, std::vector<fr> c, const ntt_config& cfg = {});

}  // namespace c2lab::poly

// Scalar multiplication [k]P of a point of the order-r subgroup by the curve's endomorphism:
// the 255-bit product becomes a small multi-scalar multiplication of D short scalars on the
// images of P, evaluated by interleaved width-5 NAFs (one doubling chain shared by all).
//
//   G1 (GLV, D = 2): k = s1 k1 + s2 k2 m with m = x^2 and |k_i| < 2^127 (glv_split_signed);
//       [m]P = endo(P), 1M. About 128 doublings and 2 x 128 / 6 = 43 mixed additions.
//   G2 (GLS, D = 4): k = a0 + a1 |x| + a2 |x|^2 + a3 |x|^3 with a_j < |x| < 2^64 (k < r < x^4);
//       psi acts as [x] = -[|x|], so [|x|^j]P = (-1)^j psi^j(P), 2 Fp2 M each. About 64
//       doublings and 4 x 64 / 6 = 43 mixed additions.
//
// The table of odd multiples P, 3P, ..., 15P is built once (1 doubling + 7 additions),
// brought to affine with one inversion (Montgomery's trick), and mapped by the endomorphism
// to the other D - 1 tables, which stay affine. Against jacobian::mul (255 doublings and 64
// Jacobian additions with 4-bit windows), about 1.7x fewer field products on G1 and 2.4x on
// G2. Not constant time (the digits decide the additions), as jacobian::mul.
//
// Precondition: P is in the order-r subgroup (the endomorphisms act as [m] and [x] only
// there). For any other point the result is wrong; use jacobian::mul, the reference these
// are tested against.
#pragma once

#include "ec/g2.hpp"

namespace c2lab::msm {

ec::g1_jacobian g1_mul_endo(const ec::g1_jacobian& p, const ff::fr& k) noexcept;
ec::g2_jacobian g2_mul_endo(const ec::g2_jacobian& p, const ff::fr& k) noexcept;

// The width-5 NAF of k < 2^127 + 16, least significant digit first: digits in {0, +-1, +-3,
// ..., +-15}, every nonzero digit followed by at least four zeros. Returns the digit count
// (at most 129); out must hold 130.
size_t wnaf5(unsigned __int128 k, int8_t* out) noexcept;

}  // namespace c2lab::msm

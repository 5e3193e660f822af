// The endomorphism split of MSM scalars (Gallant-Lambert-Vanstone) for BLS12-381, one
// multiplier for both groups: m = x^2 (x = -0xd201000000010000 the BLS parameter), a
// 128-bit number with r = m^2 - m + 1.
//
//   G1: endo(X, Y) = (beta X, -Y) with beta a primitive cube root of unity in Fp. The map
//       (X, Y) -> (beta X, Y) acts as one of the two nontrivial cube roots of unity mod r,
//       lambda = x^2 - 1 = m - 1 or its square -m; beta is the root that makes it -m (the
//       check phi(P) == -[x^2]P of g1_in_subgroup), so its negation acts as [m]. 1M.
//   G2: endo = psi^2 (psi the untwist-Frobenius-twist map, acting as [x]); psi^2(X, Y) =
//       (X a, Y b) with a, b in Fp (the norms of psi's two constants). 4M.
//
// Both constants are derived on first use from the generators and checked there: endo(G)
// must equal [m]G (a failure is a broken build, not bad input: std::abort).
//
// A scalar k < r splits as k = k1 + k2 m with k1 = k mod m and k2 = k div m, both < 2^128
// (k2 < r / m < m), so sum k_i P_i = sum (k1_i P_i + k2_i endo(P_i)): twice the points and
// half the scalar bits (centred on zero: 127 bits and a sign each, see glv_split_signed).
// The division is Barrett's from the top bits: q = floor(floor(k / 2^127) mu / 2^130) with
// mu = floor(2^257 / m) is floor(k / m) or one less; one correction step.
#pragma once

#include <utility>

#include "ec/g2.hpp"
#include "ff/limbs.hpp"

namespace c2lab::msm {

inline constexpr unsigned glv_scalar_bits = 127;  // |k1|, |k2| < 2^127 after glv_split_signed

// m = x^2 as two little-endian limbs.
ff::limbs<2> glv_multiplier() noexcept;

// (k1, k2) with k = k1 + k2 m, k1 < m, k2 < m; k canonical (< r).
std::pair<ff::limbs<2>, ff::limbs<2>> glv_split(const ff::limbs<4>& k) noexcept;
inline std::pair<ff::limbs<2>, ff::limbs<2>> glv_split(const ff::fr& k) noexcept { return glv_split(k.to_canonical()); }

// The split centred on zero: k = s1 k1 + s2 k2 m (mod r) with signs s_i = -1 where neg_i,
// and k1, k2 <= m/2 + 1 < 2^127 (m = 1.35 * 2^127), from (k1, k2) of glv_split by
//   k2 > (m-1)/2:  k2 -> k2 - (m - 1), k1 -> k1 - 1   (since (m - 1) m = -1 mod r)
//   k1 > m/2:      k1 -> k1 - m,       k2 -> k2 + 1
// 127-bit magnitudes fit signed-digit windows of 16 bits in 8 windows (128 bits) where
// 128-bit ones need a ninth for the carry.
struct glv_signed_split {
    ff::limbs<2> k1, k2;
    bool neg1, neg2;
};
glv_signed_split glv_split_signed(const ff::limbs<4>& k) noexcept;
inline glv_signed_split glv_split_signed(const ff::fr& k) noexcept { return glv_split_signed(k.to_canonical()); }

// [m]P by the endomorphism (identity maps to identity).
ec::g1_affine glv_endo(const ec::g1_affine& p) noexcept;
ec::g2_affine glv_endo(const ec::g2_affine& p) noexcept;

}  // namespace c2lab::msm

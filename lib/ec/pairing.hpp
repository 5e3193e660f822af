// The optimal ate pairing on BLS12-381: e: G1 x G2 -> GT, GT the order-r subgroup of Fp12*.
//
//   miller_loop        f_{|x|,Q}(P) with the lines of G2 doubling/addition steps, conjugated
//                      because x < 0 (Costello, Lange and Naehrig, eprint 2009/615, Alg. 26/27
//                      adapted to a = 0, as in zkcrypto/bls12_381 src/pairings.rs)
//   final_exponentiation  f^((p^12 - 1) / r): the easy part (p^6 - 1)(p^2 + 1) by Frobenius and
//                      one inversion, the hard part by the x-chain with cyclotomic squarings
//   multi_miller_loop  the product of several Miller loops (one shared squaring per step):
//                      what a Groth16 verifier uses, with one final exponentiation
#pragma once

#include <array>
#include <span>
#include <utility>
#include <vector>

#include "ec/g2.hpp"
#include "ff/fp12.hpp"

namespace c2lab::ec {

using gt = ff::fp12;

// G2 point with the line coefficients of its Miller loop computed once (68 triples).
struct g2_prepared {
    std::vector<std::array<ff::fp2, 3>> coeffs;
    bool infinity = false;
    explicit g2_prepared(const g2_affine& q);
};

ff::fp12 miller_loop(const g1_affine& p, const g2_affine& q) noexcept;
ff::fp12 multi_miller_loop(std::span<const std::pair<g1_affine, const g2_prepared*>> terms) noexcept;
gt final_exponentiation(const ff::fp12& f) noexcept;
gt pairing(const g1_affine& p, const g2_affine& q) noexcept;

}  // namespace c2lab::ec

// G2 of BLS12-381: y^2 = x^3 + 4(1 + u) over Fp2 (the sextic twist), prime-order subgroup
// of order r. Generator from the BLS12-381 specification (zkcrypto/bls12_381 src/g2.rs).
#pragma once

#include "ec/g1.hpp"
#include "ff/fp6.hpp"

namespace c2lab::ec {

struct g2_curve {
    using field = ff::fp2;
    static constexpr const char* name = "G2";
    static constexpr field b = {ff::fp::from_u64(4), ff::fp::from_u64(4)};
    static constexpr field gx = {
        ff::fp::from_hex("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
        ff::fp::from_hex("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")};
    static constexpr field gy = {
        ff::fp::from_hex("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
        ff::fp::from_hex("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")};
};

using g2_affine = affine<g2_curve>;
using g2_jacobian = jacobian<g2_curve>;
using g2_xyzz = xyzz<g2_curve>;

// [r]P == O, the definition.
bool g2_in_subgroup_naive(const g2_affine& p) noexcept;
// psi(P) == [x]P with psi the untwist-Frobenius-twist endomorphism (eprint 2021/1130): 64 doublings.
bool g2_in_subgroup(const g2_affine& p) noexcept;
// psi(x, y) = (conj(x) / xi^((p-1)/3), conj(y) / xi^((p-1)/2)).
g2_affine g2_psi(const g2_affine& p) noexcept;

}  // namespace c2lab::ec

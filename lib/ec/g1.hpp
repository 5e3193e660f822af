// G1 of BLS12-381: y^2 = x^3 + 4 over Fp, and its prime-order subgroup of order r.
// Generator from the BLS12-381 specification (zkcrypto/bls12_381 src/g1.rs).
#pragma once

#include "ec/curve.hpp"

namespace c2lab::ec {

// The BLS parameter x = -0xd201000000010000 (|x| and its sign).
inline constexpr uint64_t bls_x_abs = 0xd201000000010000;
inline constexpr bool bls_x_is_negative = true;

struct g1_curve {
    using field = ff::fp;
    static constexpr const char* name = "G1";
    static constexpr field b = field::from_u64(4);
    static constexpr field gx = field::from_hex(
        "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    static constexpr field gy = field::from_hex(
        "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
};

using g1_affine = affine<g1_curve>;
using g1_jacobian = jacobian<g1_curve>;
using g1_xyzz = xyzz<g1_curve>;

// [r]P == O: the definition, 255 doublings. The reference for the fast check.
bool g1_in_subgroup_naive(const g1_affine& p) noexcept;
// phi(P) == -[x^2]P with phi(x, y) = (beta x, y), beta a cube root of unity
// (Scott, eprint 2021/1130, section 6; proof in eprint 2022/352): 128 doublings.
bool g1_in_subgroup(const g1_affine& p) noexcept;

}  // namespace c2lab::ec

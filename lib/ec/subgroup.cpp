#include "ec/g2.hpp"

namespace c2lab::ec {

namespace {

// beta: a primitive cube root of unity in Fp (zkcrypto/bls12_381 src/g1.rs, BETA).
constexpr ff::fp beta = ff::fp::from_hex("5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");

// Constants of psi, derived at compile time from xi = 1 + u.
constexpr ff::fp2 psi_x = ff::frobenius_v.inverse();
constexpr ff::fp2 psi_y = ff::xi.pow(ff::fp::p_minus_1_over_2).inverse();

template <class C>
jacobian<C> mul_by_abs_x(const jacobian<C>& p) noexcept {
    return p.mul(bls_x_abs);
}

}  // namespace

bool g1_in_subgroup_naive(const g1_affine& p) noexcept {
    return p.to_jacobian().mul(ff::fr::modulus).is_identity();
}

bool g1_in_subgroup(const g1_affine& p) noexcept {
    if (p.is_identity()) return true;
    // [x^2]P = [|x|]([|x|]P) since x^2 = |x|^2; the check is phi(P) == -[x^2]P.
    g1_jacobian x2p = mul_by_abs_x(mul_by_abs_x(p.to_jacobian()));
    g1_affine phi{p.x * beta, p.y};
    return phi.to_jacobian() == -x2p;
}

g2_affine g2_psi(const g2_affine& p) noexcept {
    if (p.is_identity()) return p;
    return {p.x.conjugate() * psi_x, p.y.conjugate() * psi_y};
}

bool g2_in_subgroup_naive(const g2_affine& p) noexcept {
    return p.to_jacobian().mul(ff::fr::modulus).is_identity();
}

bool g2_in_subgroup(const g2_affine& p) noexcept {
    if (p.is_identity()) return true;
    g2_jacobian xp = mul_by_abs_x(p.to_jacobian());
    if (bls_x_is_negative) xp = -xp;
    return g2_psi(p).to_jacobian() == xp;
}

}  // namespace c2lab::ec

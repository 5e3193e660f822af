#include "ec/g2.hpp"

namespace c2lab::ec {

namespace {

// beta: a primitive cube root of unity in Fp (zkcrypto/bls12_381 src/g1.rs, BETA).
constexpr ff::fp beta = ff::fp::from_hex("5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");

// Constants of psi: psi_x = 1 / xi^((p-1)/3) = 1 / frobenius_v, psi_y = 1 / xi^((p-1)/2), with
// xi = 1 + u. Literals: deriving them here with a constant-evaluated pow and inverse took 8.2 of
// this file's 9.2 s of parsing under GCC 12 (-ftime-report; the whole compile 14.9 -> 6.4 s on the
// family-23 EPYC). curve_test checks g2_psi against the formula evaluated at run time.
constexpr ff::fp2 psi_x{
    ff::fp::zero(),
    ff::fp::from_hex("1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad")};
constexpr ff::fp2 psi_y{
    ff::fp::from_hex("135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bdea2"),
    ff::fp::from_hex("06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc09")};

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

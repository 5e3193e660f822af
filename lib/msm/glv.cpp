#include "msm/glv.hpp"

#include <cstdlib>

namespace c2lab::msm {

namespace {

using u128 = unsigned __int128;

constexpr ff::limbs<2> multiplier = [] {
    u128 m = static_cast<u128>(ec::bls_x_abs) * ec::bls_x_abs;  // x^2 = |x|^2
    return ff::limbs<2>{static_cast<uint64_t>(m), static_cast<uint64_t>(m >> 64)};
}();

// r = m^2 - m + 1: the identity the split relies on (m = x^2 and r = x^4 - x^2 + 1).
static_assert([] {
    u128 m = (static_cast<u128>(multiplier[1]) << 64) | multiplier[0];
    // m^2 - m + 1 in four limbs, compared with the Fr modulus.
    uint64_t a[4] = {0, 0, 0, 0};
    u128 lo = static_cast<u128>(multiplier[0]) * multiplier[0];
    u128 mid = static_cast<u128>(multiplier[0]) * multiplier[1];
    u128 hi = static_cast<u128>(multiplier[1]) * multiplier[1];
    // m^2 = lo + 2 mid 2^64 + hi 2^128
    u128 acc = static_cast<uint64_t>(lo);
    a[0] = static_cast<uint64_t>(acc);
    acc = (lo >> 64) + static_cast<uint64_t>(mid) + static_cast<uint64_t>(mid);
    a[1] = static_cast<uint64_t>(acc);
    acc = (acc >> 64) + (mid >> 64) + (mid >> 64) + static_cast<uint64_t>(hi);
    a[2] = static_cast<uint64_t>(acc);
    acc = (acc >> 64) + (hi >> 64);
    a[3] = static_cast<uint64_t>(acc);
    ff::limbs<4> sq{a[0], a[1], a[2], a[3]};
    ff::limbs<4> ml{static_cast<uint64_t>(m), static_cast<uint64_t>(m >> 64), 0, 0};
    ff::sub_from(sq, ml);
    ff::limbs<4> one{1, 0, 0, 0};
    ff::add_to(sq, one);
    return sq == ff::fr::modulus;
}(), "r = m^2 - m + 1 with m = x^2");

// mu = floor(2^384 / m), 257 bits: schoolbook binary long division, once.
constexpr ff::limbs<5> barrett_mu = [] {
    ff::limbs<5> q{};
    ff::limbs<3> rem{};  // < 2 m < 2^129
    ff::limbs<3> m3{multiplier[0], multiplier[1], 0};
    rem[0] = 1;  // bit 384 of the dividend; its quotient bit is 0 since m > 1
    for (int i = 383; i >= 0; --i) {
        // rem = 2 rem
        rem[2] = (rem[2] << 1) | (rem[1] >> 63);
        rem[1] = (rem[1] << 1) | (rem[0] >> 63);
        rem[0] <<= 1;
        if (!ff::less_than(rem, m3)) {
            ff::sub_from(rem, m3);
            q[i / 64] |= uint64_t{1} << (i % 64);
        }
    }
    return q;
}();

// The endomorphism constants, derived from the generators and checked against [m]G.
struct endo_constants {
    ff::fp beta;      // G1: endo(X, Y) = (beta X, -Y)
    ff::fp psi2_x;    // G2: psi^2(X, Y) = (psi2_x X, psi2_y Y)
    ff::fp psi2_y;

    endo_constants() {
        // Cube roots of unity: w = 2^((p-1)/3) (2 is not a cube mod p when w != 1), and w^2.
        ff::limbs<6> e = ff::fp::p_minus_1;
        e = ff::div_small(e, 3);
        ff::fp w = ff::fp::from_u64(2).pow(e);
        const auto g1 = ec::g1_affine::generator();
        const auto want1 = ec::g1_jacobian::generator().mul(multiplier);
        beta = ff::fp::zero();
        for (ff::fp cand : {w, w.square()}) {
            if (ec::g1_affine{g1.x * cand, -g1.y}.to_jacobian() == want1) beta = cand;
        }
        // psi(X, Y) = (conj(X) a, conj(Y) b), so psi^2(X, Y) = (X N(a), Y N(b)) with N the norm
        // conj(a) a; a and b read back from psi of the generator.
        const auto g2 = ec::g2_affine::generator();
        const auto p1 = ec::g2_psi(g2);
        ff::fp2 a = p1.x * g2.x.conjugate().inverse();
        ff::fp2 b = p1.y * g2.y.conjugate().inverse();
        psi2_x = a.norm();
        psi2_y = b.norm();
        const auto want2 = ec::g2_jacobian::generator().mul(multiplier);
        const ec::g2_affine got2{g2.x * psi2_x, g2.y * psi2_y};
        // Either failure means a wrong constant: a broken build, not bad input.
        if (w.is_one() || beta.is_zero() || !(got2.to_jacobian() == want2)) std::abort();
    }
};

const endo_constants& constants() {
    static const endo_constants c;
    return c;
}

}  // namespace

ff::limbs<2> glv_multiplier() noexcept { return multiplier; }

std::pair<ff::limbs<2>, ff::limbs<2>> glv_split(const ff::limbs<4>& k) noexcept {
    // q = floor(k mu / 2^384): limbs 6 and up of the 4 x 5 limb product (q < 2^129).
    uint64_t prod[9] = {};
    for (size_t i = 0; i < 4; ++i) {
        u128 carry = 0;
        for (size_t j = 0; j < 5; ++j) {
            u128 t = static_cast<u128>(k[i]) * barrett_mu[j] + prod[i + j] + carry;
            prod[i + j] = static_cast<uint64_t>(t);
            carry = t >> 64;
        }
        prod[i + 5] = static_cast<uint64_t>(carry);
    }
    u128 q = (static_cast<u128>(prod[7]) << 64) | prod[6];
    // rem = k - q m, below 2m < 2^129: computed modulo 2^192 (three limbs).
    u128 qlo_mlo = static_cast<u128>(static_cast<uint64_t>(q)) * multiplier[0];
    u128 qlo_mhi = static_cast<u128>(static_cast<uint64_t>(q)) * multiplier[1];
    u128 qhi_mlo = static_cast<u128>(static_cast<uint64_t>(q >> 64)) * multiplier[0];
    u128 qhi_mhi = static_cast<u128>(static_cast<uint64_t>(q >> 64)) * multiplier[1];
    ff::limbs<3> qm{};
    u128 acc = static_cast<uint64_t>(qlo_mlo);
    qm[0] = static_cast<uint64_t>(acc);
    acc = (qlo_mlo >> 64) + static_cast<uint64_t>(qlo_mhi) + static_cast<uint64_t>(qhi_mlo);
    qm[1] = static_cast<uint64_t>(acc);
    acc = (acc >> 64) + (qlo_mhi >> 64) + (qhi_mlo >> 64) + static_cast<uint64_t>(qhi_mhi);
    qm[2] = static_cast<uint64_t>(acc);
    ff::limbs<3> rem{k[0], k[1], k[2]};
    ff::sub_from(rem, qm);
    ff::limbs<3> m3{multiplier[0], multiplier[1], 0};
    if (!ff::less_than(rem, m3)) {
        ff::sub_from(rem, m3);
        ++q;
    }
    return {ff::limbs<2>{rem[0], rem[1]}, ff::limbs<2>{static_cast<uint64_t>(q), static_cast<uint64_t>(q >> 64)}};
}

glv_signed_split glv_split_signed(const ff::limbs<4>& k) noexcept {
    auto [l1, l2] = glv_split(k);
    const u128 m = (static_cast<u128>(multiplier[1]) << 64) | multiplier[0];
    u128 a = (static_cast<u128>(l1[1]) << 64) | l1[0], b = (static_cast<u128>(l2[1]) << 64) | l2[0];
    // Both corrections without a branch: each condition holds for about half the scalars, so as
    // branches they were mispredicted about once per scalar (the split of a 2 KiB proof's MSMs
    // took 0.35-0.42 s on two threads, Intel Xeon). mask(c) is all ones where c holds.
    auto mask = [](bool c) { return u128{0} - static_cast<u128>(c); };
    auto pick = [](u128 msk, u128 x, u128 y) { return (x & msk) | (y & ~msk); };
    // k2 > (m-1)/2: k2 -> -((m - 1) - k2), k1 -> k1 - 1 (k1 = 0 becomes -1).
    const bool c1 = b > (m - 1) / 2;
    const u128 m1 = mask(c1);
    b = pick(m1, (m - 1) - b, b);
    bool bn = c1 & (b != 0);
    const bool a_zero = a == 0;
    a = pick(m1, pick(mask(a_zero), 1, a - 1), a);
    bool an = c1 & a_zero;
    // k1 > m/2 (and k1 not already negative): k1 -> -(m - k1), k2 -> k2 + 1 (k2 - 1 in magnitude
    // where k2 is negative).
    const bool c2 = !an & (a > m / 2);
    const u128 m2 = mask(c2);
    a = pick(m2, m - a, a);
    an = an | c2;
    const u128 b_step = pick(mask(bn), b - 1, b + 1);
    b = pick(m2, b_step, b);
    bn = bn & (!c2 | (b != 0));
    auto limbs_of = [](u128 v) { return ff::limbs<2>{static_cast<uint64_t>(v), static_cast<uint64_t>(v >> 64)}; };
    return {limbs_of(a), limbs_of(b), an, bn};
}

ec::g1_affine glv_endo(const ec::g1_affine& p) noexcept {
    if (p.is_identity()) return p;
    return {p.x * constants().beta, -p.y};
}

ec::g2_affine glv_endo(const ec::g2_affine& p) noexcept {
    if (p.is_identity()) return p;
    const auto& c = constants();
    return {p.x * c.psi2_x, p.y * c.psi2_y};
}

}  // namespace c2lab::msm

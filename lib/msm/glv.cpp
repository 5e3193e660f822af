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

// mu = floor(2^257 / m) = 2^129 + barrett_mu_lo (1.34 * 2^127 < m < 2^128): schoolbook binary
// long division, once.
constexpr ff::limbs<2> barrett_mu_lo = [] {
    ff::limbs<3> q{};
    ff::limbs<3> rem{};  // < 2 m < 2^129
    ff::limbs<3> m3{multiplier[0], multiplier[1], 0};
    rem[0] = 1;  // bit 257 of the dividend; its quotient bit is 0 since m > 1
    for (int i = 256; i >= 0; --i) {
        rem[2] = (rem[2] << 1) | (rem[1] >> 63);
        rem[1] = (rem[1] << 1) | (rem[0] >> 63);
        rem[0] <<= 1;
        if (!ff::less_than(rem, m3)) {
            ff::sub_from(rem, m3);
            q[i / 64] |= uint64_t{1} << (i % 64);
        }
    }
    if (q[2] != 2) throw "floor(2^257 / m) must be 2^129 plus less than 2^128";  // not constant: a compile error
    return ff::limbs<2>{q[0], q[1]};
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

namespace {
// glv_split's body, inlined into glv_split_signed.
[[gnu::always_inline]] inline std::pair<ff::limbs<2>, ff::limbs<2>> split_unsigned(const ff::limbs<4>& k) noexcept {
    // Barrett's quotient from the top bits: t = floor(k / 2^127) < 2^128, mu = floor(2^257 / m),
    // q = floor(t mu / 2^130). It is floor(k / m) or one less: t mu / 2^130 > k/m - k/2^257 -
    // 2^127/m > k/m - 0.23 - 0.75 (k < r < 0.91 * 2^255, m > 1.34 * 2^127). 4 products of 64 bits
    // for t mu (mu = 2^129 + mu_lo: the 2^129 part is a shift) and 4 for q m, where the quotient
    // from the whole of k (floor(k mu' / 2^384) with mu' = floor(2^384 / m), 5 limbs) took 20 and 4.
    const uint64_t t0 = (k[2] << 1) | (k[1] >> 63), t1 = (k[3] << 1) | (k[2] >> 63);
    const uint64_t mu0 = barrett_mu_lo[0], mu1 = barrett_mu_lo[1];
    const u128 a = static_cast<u128>(t0) * mu0, b = static_cast<u128>(t0) * mu1;
    const u128 c = static_cast<u128>(t1) * mu0, d = static_cast<u128>(t1) * mu1;
    // t mu_lo in four limbs (limbs 2 and 3 and the carries into them), then + t 2^129.
    u128 acc = (a >> 64) + static_cast<uint64_t>(b) + static_cast<uint64_t>(c);
    acc = (acc >> 64) + (b >> 64) + (c >> 64) + static_cast<uint64_t>(d);
    const uint64_t p2 = static_cast<uint64_t>(acc);
    acc = (acc >> 64) + (d >> 64);
    const uint64_t p3 = static_cast<uint64_t>(acc);
    acc = static_cast<u128>(p2) + (t0 << 1);
    const uint64_t s2 = static_cast<uint64_t>(acc);
    acc = (acc >> 64) + p3 + ((t1 << 1) | (t0 >> 63));
    const uint64_t s3 = static_cast<uint64_t>(acc), s4 = static_cast<uint64_t>(acc >> 64) + (t1 >> 63);
    const uint64_t q0 = (s2 >> 2) | (s3 << 62), q1 = (s3 >> 2) | (s4 << 62);
    // rem = k - q m, below 2m < 2^129: computed modulo 2^192 (three limbs).
    const u128 q0m0 = static_cast<u128>(q0) * multiplier[0], q0m1 = static_cast<u128>(q0) * multiplier[1];
    const u128 q1m0 = static_cast<u128>(q1) * multiplier[0];
    const uint64_t q1m1 = q1 * multiplier[1];  // its low limb alone reaches limb 2
    acc = (q0m0 >> 64) + static_cast<uint64_t>(q0m1) + static_cast<uint64_t>(q1m0);
    const uint64_t qm0 = static_cast<uint64_t>(q0m0), qm1 = static_cast<uint64_t>(acc);
    const uint64_t qm2 = static_cast<uint64_t>((acc >> 64) + (q0m1 >> 64) + (q1m0 >> 64) + q1m1);
    // rem = k - qm (three limbs), then rem - m: kept where it does not borrow (rem >= m), with q + 1.
    u128 diff = static_cast<u128>(k[0]) - qm0;
    const uint64_t r0 = static_cast<uint64_t>(diff);
    diff = static_cast<u128>(k[1]) - qm1 - static_cast<uint64_t>(diff >> 127);
    const uint64_t r1 = static_cast<uint64_t>(diff);
    const uint64_t r2 = k[2] - qm2 - static_cast<uint64_t>(diff >> 127);
    diff = static_cast<u128>(r0) - multiplier[0];
    const uint64_t e0 = static_cast<uint64_t>(diff);
    diff = static_cast<u128>(r1) - multiplier[1] - static_cast<uint64_t>(diff >> 127);
    const uint64_t e1 = static_cast<uint64_t>(diff);
    const uint64_t borrow = static_cast<uint64_t>((static_cast<u128>(r2) - static_cast<uint64_t>(diff >> 127)) >> 127);
    // As a branch this is mispredicted whenever the estimate is one short (a coin toss per scalar).
    const uint64_t keep = borrow - 1;  // all ones where rem >= m
    const u128 q = ((static_cast<u128>(q1) << 64) | q0) + (keep & 1);
    return {ff::limbs<2>{(e0 & keep) | (r0 & ~keep), (e1 & keep) | (r1 & ~keep)},
            ff::limbs<2>{static_cast<uint64_t>(q), static_cast<uint64_t>(q >> 64)}};
}
}  // namespace

std::pair<ff::limbs<2>, ff::limbs<2>> glv_split(const ff::limbs<4>& k) noexcept { return split_unsigned(k); }

glv_signed_split glv_split_signed(const ff::limbs<4>& k) noexcept {
    auto [l1, l2] = split_unsigned(k);
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

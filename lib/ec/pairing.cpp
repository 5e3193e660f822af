#include "ec/pairing.hpp"

#include <array>
#include <bit>

#include "ff/fp12_compressed.hpp"

namespace c2lab::ec {

namespace {

using ff::fp;
using ff::fp12;
using ff::fp2;
using line = std::array<fp2, 3>;

// Miller loop state: T in Jacobian coordinates over Fp2.
struct g2_state {
    fp2 x, y, z;
};

// Doubling step: T = 2T and the tangent line at T. 3M2 + 11S2 (eprint 2010/354, Alg. 26).
line doubling_step(g2_state& r) noexcept {
    fp2 t0 = r.x.square();
    fp2 t1 = r.y.square();
    fp2 t2 = t1.square();
    fp2 t3 = ((t1 + r.x).square() - t0 - t2).dbl();
    fp2 t4 = t0.dbl() + t0;
    fp2 t6 = r.x + t4;
    fp2 t5 = t4.square();
    fp2 zz = r.z.square();
    r.x = t5 - t3.dbl();
    r.z = (r.z + r.y).square() - t1 - zz;
    r.y = (t3 - r.x) * t4 - t2.dbl().dbl().dbl();
    fp2 c1 = -(t4 * zz).dbl();
    fp2 c2 = t6.square() - t0 - t5 - t1.dbl().dbl();
    fp2 c0 = (r.z * zz).dbl();
    return {c0, c1, c2};
}

// Addition step: T = T + Q (Q affine) and the line through T and Q. 8M2 + 6S2 (Alg. 27).
line addition_step(g2_state& r, const g2_affine& q) noexcept {
    fp2 zz = r.z.square();
    fp2 yy = q.y.square();
    fp2 t0 = zz * q.x;
    fp2 t1 = ((q.y + r.z).square() - yy - zz) * zz;
    fp2 t2 = t0 - r.x;
    fp2 t3 = t2.square();
    fp2 t4 = t3.dbl().dbl();
    fp2 t5 = t4 * t2;
    fp2 t6 = t1 - r.y.dbl();
    fp2 t9 = t6 * q.x;
    fp2 t7 = t4 * r.x;
    r.x = t6.square() - t5 - t7.dbl();
    r.z = (r.z + t2).square() - zz - t3;
    fp2 t10 = q.y + r.z;
    fp2 t8 = (t7 - r.x) * t6;
    r.y = t8 - (r.y * t5).dbl();
    t10 = t10.square() - yy - r.z.square();
    t9 = t9.dbl() - t10;
    return {r.z.dbl(), (-t6).dbl(), t9};
}

// f * l(P): the line (c0 y_P) v w + (c1 x_P) v + c2.
fp12 ell(const fp12& f, const line& l, const g1_affine& p) noexcept {
    return f.mul_by_014(l[2], l[1] * p.x, l[0] * p.y);
}

// Walks the bits of |x| / 2 (x = -0xd201000000010000 has its lowest bit 0, and the last
// doubling step stands for it), calling dbl() per doubling and add() per set bit.
//
// Every Fp12 result goes into an object that is not an operand of its call (g, h, then f),
// so the compiler builds it in place; `f = d.dbl(f)` would build it in a temporary and copy
// 576 bytes, whose loads of the product's last stores stall store-to-load forwarding.
template <class Driver>
fp12 run_miller_loop(Driver& d) noexcept {
    fp12 f = fp12::one();
    constexpr uint64_t bits = bls_x_abs >> 1;
    bool found_one = false;
    for (int b = 63; b >= 0; --b) {
        bool set = (bits >> b) & 1;
        if (!found_one) {
            found_one = set;
            continue;
        }
        const fp12 g = d.dbl(f);
        if (set) {
            const fp12 h = d.add(g);
            f = h.square();
        } else {
            f = g.square();
        }
    }
    const fp12 g = d.dbl(f);
    return bls_x_is_negative ? g.conjugate() : g;
}

}  // namespace

g2_prepared::g2_prepared(const g2_affine& q) {
    infinity = q.is_identity();
    g2_affine base = infinity ? g2_affine::generator() : q;
    struct driver {
        g2_state cur;
        const g2_affine& base;
        std::vector<line>& out;
        fp12 dbl(const fp12& f) {
            out.push_back(doubling_step(cur));
            return f;
        }
        fp12 add(const fp12& f) {
            out.push_back(addition_step(cur, base));
            return f;
        }
    } d{{base.x, base.y, fp2::one()}, base, coeffs};
    coeffs.reserve(68);
    run_miller_loop(d);
}

fp12 miller_loop(const g1_affine& p, const g2_affine& q) noexcept {
    if (p.is_identity() || q.is_identity()) return fp12::one();
    struct driver {
        g2_state cur;
        const g2_affine& base;
        const g1_affine& p;
        fp12 dbl(const fp12& f) { return ell(f, doubling_step(cur), p); }
        fp12 add(const fp12& f) { return ell(f, addition_step(cur, base), p); }
    } d{{q.x, q.y, fp2::one()}, q, p};
    return run_miller_loop(d);
}

fp12 multi_miller_loop(std::span<const std::pair<g1_affine, const g2_prepared*>> terms) noexcept {
    struct driver {
        std::span<const std::pair<g1_affine, const g2_prepared*>> terms;
        size_t index = 0;
        fp12 step(fp12 f) {
            for (const auto& [p, q] : terms)
                if (!p.is_identity() && !q->infinity) f = ell(f, q->coeffs[index], p);
            ++index;
            return f;
        }
        fp12 dbl(const fp12& f) { return step(f); }
        fp12 add(const fp12& f) { return step(f); }
    } d{terms};
    return run_miller_loop(d);
}

namespace {

// a^(2^n) by cyclotomic squarings, alternating between two objects so that each square is
// built in place (see run_miller_loop).
fp12 cyclotomic_square_n(fp12 a, int n) noexcept {
    fp12 b;
    for (; n >= 2; n -= 2) {
        b = a.cyclotomic_square();
        a = b.cyclotomic_square();
    }
    if (n == 1) b = a.cyclotomic_square();
    return n == 1 ? b : a;
}

// f^|x| by square-and-multiply with cyclotomic squarings, then conjugated (x < 0).
fp12 cyclotomic_exp_by_x_uncompressed(const fp12& f) noexcept {
    constexpr int top = std::bit_width(bls_x_abs) - 1;
    fp12 acc = f;
    int squarings = 0;
    for (int b = top - 1; b >= 0; --b) {
        ++squarings;
        if ((bls_x_abs >> b) & 1) {
            acc = cyclotomic_square_n(acc, squarings) * f;
            squarings = 0;
        }
    }
    return cyclotomic_square_n(acc, squarings).conjugate();
}

// The set bits of |x| = 0xd201000000010000, lowest first: 16, 48, 57, 60, 62, 63.
constexpr auto x_bits = [] {
    std::array<int, std::popcount(bls_x_abs)> bits{};
    for (int b = 0, k = 0; b < 64; ++b)
        if ((bls_x_abs >> b) & 1) bits[k++] = b;
    return bits;
}();

// f^|x|, conjugated: one run of 63 compressed squarings (ff/fp12_compressed.hpp: 6 Fp2
// squarings each against Granger-Scott's 9), its values f^(2^b) at the set bits b of |x|
// decompressed together (one Fp2 inversion) and multiplied: the same 5 Fp12 products as
// square-and-multiply. Where a value cannot be decompressed (z2 = 0), the uncompressed chain.
fp12 cyclotomic_exp_by_x(const fp12& f) noexcept {
    std::array<ff::fp12_compressed, x_bits.size()> at_bits;
    ff::fp12_compressed c = ff::fp12_compressed::of(f);
    int done = 0;
    for (size_t k = 0; k < x_bits.size(); ++k) {
        for (; done < x_bits[k]; ++done) c = c.square();
        at_bits[k] = c;
    }
    std::array<fp12, x_bits.size()> powers;
    if (!ff::fp12_compressed::decompress(at_bits, powers)) return cyclotomic_exp_by_x_uncompressed(f);
    fp12 acc = powers[0];
    for (size_t k = 1; k < powers.size(); ++k) acc *= powers[k];
    return acc.conjugate();
}

}  // namespace

gt final_exponentiation(const fp12& f) noexcept {
    // Easy part: f^((p^6 - 1)(p^2 + 1)); the result is in the cyclotomic subgroup.
    fp12 t0 = f.conjugate();  // f^(p^6)
    fp12 t1 = f.inverse();
    fp12 t2 = t0 * t1;
    t1 = t2;
    t2 = t2.frobenius(2) * t1;
    // Hard part: the x-chain of zkcrypto/bls12_381 (after Hayashida, Hayasaka and Teruya,
    // eprint 2020/875), which raises to a fixed multiple of (p^4 - p^2 + 1) / r.
    t1 = t2.cyclotomic_square().conjugate();
    fp12 t3 = cyclotomic_exp_by_x(t2);
    fp12 t4 = t3.cyclotomic_square();
    fp12 t5 = t1 * t3;
    t1 = cyclotomic_exp_by_x(t5);
    t0 = cyclotomic_exp_by_x(t1);
    fp12 t6 = cyclotomic_exp_by_x(t0) * t4;
    t4 = cyclotomic_exp_by_x(t6);
    t5 = t5.conjugate();
    t4 *= t5 * t2;
    t5 = t2.conjugate();
    t1 = (t1 * t2).frobenius(3);
    t6 = (t6 * t5).frobenius();
    t3 = (t3 * t0).frobenius(2) * t1 * t6;
    return t3 * t4;
}

gt pairing(const g1_affine& p, const g2_affine& q) noexcept { return final_exponentiation(miller_loop(p, q)); }

}  // namespace c2lab::ec

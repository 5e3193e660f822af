#include "ff/fp12.hpp"

#include <algorithm>
#include <array>

#include "ff/fp12_compressed.hpp"

namespace c2lab::ff {

// Every result is built from prvalues (see the note in fp6.hpp).

// Karatsuba over Fp6 with lazy reduction: 18 wide Fp2 products, 6 Fp2 reductions.
// c0 = aa + bb v = (aa.c0 + xi bb.c2, aa.c1 + bb.c0, aa.c2 + bb.c1), c1 = (a0 + a1)(b0 + b1) - aa - bb.
fp12 operator*(const fp12& a, const fp12& b) noexcept {
    const fp6::wide aa = fp6::mul_wide(a.c0, b.c0), bb = fp6::mul_wide(a.c1, b.c1);
    return {{(aa.c0 + bb.c2.mul_by_nonresidue()).reduce(), (aa.c1 + bb.c0).reduce(), (aa.c2 + bb.c1).reduce()},
            (fp6::mul_wide(a.c0 + a.c1, b.c0 + b.c1) - aa - bb).reduce()};
}

fp12 fp12::square() const noexcept {
    const fp6 ab = c0 * c1;
    return {(c1.mul_by_nonresidue() + c0) * (c0 + c1) - ab - ab.mul_by_nonresidue(), ab + ab};
}

fp12 fp12::inverse() const noexcept {
    const fp6 t = (c0.square() - c1.square().mul_by_nonresidue()).inverse();
    return {c0 * t, -(c1 * t)};
}

fp12 fp12::frobenius() const noexcept { return {c0.frobenius(), c1.frobenius() * frobenius_w}; }

// 13 wide Fp2 products, 6 reductions (the same grouping as the product above).
fp12 fp12::mul_by_014(const fp2& d0, const fp2& d1, const fp2& d4) const noexcept {
    const fp6::wide aa = c0.mul_by_01_wide(d0, d1), bb = c1.mul_by_1_wide(d4);
    return {{(aa.c0 + bb.c2.mul_by_nonresidue()).reduce(), (aa.c1 + bb.c0).reduce(), (aa.c2 + bb.c1).reduce()},
            ((c1 + c0).mul_by_01_wide(d0, d1 + d4) - aa - bb).reduce()};
}

namespace {

// (a + b s)^2 in Fp4 = Fp2[s] / (s^2 - xi): (a^2 + xi b^2, 2ab) = (a^2 + xi b^2, (a + b)^2 - a^2 - b^2).
struct fp4 {
    fp2 c0, c1;
};
// Lazy: three wide Fp2 squares, two Fp2 reductions (reduced squares would take six).
inline fp4 fp4_square(const fp2& a, const fp2& b) noexcept {
    const fp2_wide t0 = fp2_wide::square(a), t1 = fp2_wide::square(b);
    return {(t1.mul_by_nonresidue() + t0).reduce(), (fp2_wide::square(a + b) - t0 - t1).reduce()};
}

}  // namespace

// Granger-Scott: with z = (z0, z4, z3) + (z2, z1, z5) w, three Fp4 squares give
// z0' = 3 A0 - 2 z0, z1' = 3 A1 + 2 z1 (A = (z0 + z1 s)^2), and likewise for B = (z2 + z3 s)^2,
// C = (z4 + z5 s)^2: z4' = 3 B0 - 2 z4, z5' = 3 B1 + 2 z5, z2' = 3 xi C1 + 2 z2, z3' = 3 C0 - 2 z3.
fp12 fp12::cyclotomic_square() const noexcept {
    const fp2 &z0 = c0.c0, &z4 = c0.c1, &z3 = c0.c2;
    const fp2 &z2 = c1.c0, &z1 = c1.c1, &z5 = c1.c2;
    const fp4 a = fp4_square(z0, z1), b = fp4_square(z2, z3), c = fp4_square(z4, z5);
    const fp2 xc1 = c.c1.mul_by_nonresidue();
    return {{(a.c0 - z0).dbl() + a.c0, (b.c0 - z4).dbl() + b.c0, (c.c0 - z3).dbl() + c.c0},
            {(xc1 + z2).dbl() + xc1, (a.c1 + z1).dbl() + a.c1, (b.c1 + z5).dbl() + b.c1}};
}

fp12_compressed fp12_compressed::square() const noexcept {
    const fp2_wide s2 = fp2_wide::square(z2), s3 = fp2_wide::square(z3);
    const fp2_wide s4 = fp2_wide::square(z4), s5 = fp2_wide::square(z5);
    const fp2 b0 = (s3.mul_by_nonresidue() + s2).reduce();   // z2^2 + xi z3^2
    const fp2 b1 = (fp2_wide::square(z2 + z3) - s2 - s3).reduce();  // 2 z2 z3
    const fp2 c0 = (s5.mul_by_nonresidue() + s4).reduce();   // z4^2 + xi z5^2
    const fp2 xc1 = (fp2_wide::square(z4 + z5) - s4 - s5).reduce().mul_by_nonresidue();  // xi 2 z4 z5
    return {(xc1 + z2).dbl() + xc1, (c0 - z3).dbl() + c0, (b0 - z4).dbl() + b0, (b1 + z5).dbl() + b1};
}

namespace {

// decompress for at most fp12_compressed::batch values: one shared inversion, no allocation.
bool decompress_batch(std::span<const fp12_compressed> in, std::span<fp12> out) noexcept {
    const size_t n = in.size();
    // z1 = num / den with den = 4 z2; the dens inverted together (prefix products, one inversion).
    std::array<fp2, fp12_compressed::batch> num, den, prefix;
    fp2 running = fp2::one();
    for (size_t i = 0; i < n; ++i) {
        const fp12_compressed& c = in[i];
        if (c.z2.is_zero()) return false;
        const fp2 z4_sq = c.z4.square();
        num[i] = c.z5.square().mul_by_nonresidue() + (z4_sq - c.z3).dbl() + z4_sq;
        den[i] = c.z2.dbl().dbl();
        running = running * den[i];
        prefix[i] = running;
    }
    fp2 inv = running.inverse();  // 1 / (den_0 ... den_{n-1})
    for (size_t i = n; i-- > 0;) {
        const fp12_compressed& c = in[i];
        const fp2 inv_den = i == 0 ? inv : inv * prefix[i - 1];
        if (i > 0) inv = inv * den[i];
        const fp2 z1 = num[i] * inv_den;
        const fp2 z3z4 = c.z3 * c.z4;
        const fp2 t = (z1.square() - z3z4).dbl() - z3z4 + c.z2 * c.z5;  // 2 z1^2 + z2 z5 - 3 z3 z4
        out[i] = {{t.mul_by_nonresidue() + fp2::one(), c.z4, c.z3}, {c.z2, z1, c.z5}};
    }
    return true;
}

}  // namespace

bool fp12_compressed::decompress(std::span<const fp12_compressed> in, std::span<fp12> out) noexcept {
    for (size_t off = 0; off < in.size(); off += batch) {
        const size_t m = std::min(batch, in.size() - off);
        if (!decompress_batch(in.subspan(off, m), out.subspan(off, m))) return false;
    }
    return true;
}

}  // namespace c2lab::ff

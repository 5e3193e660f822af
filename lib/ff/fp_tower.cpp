#include "ff/fp12.hpp"

namespace c2lab::ff {

fp12 operator*(const fp12& a, const fp12& b) noexcept {
    fp6 aa = a.c0 * b.c0;
    fp6 bb = a.c1 * b.c1;
    fp6 c1 = (a.c0 + a.c1) * (b.c0 + b.c1) - aa - bb;
    return {bb.mul_by_nonresidue() + aa, c1};
}

fp12 fp12::square() const noexcept {
    fp6 ab = c0 * c1;
    fp6 t = (c1.mul_by_nonresidue() + c0) * (c0 + c1) - ab - ab.mul_by_nonresidue();
    return {t, ab + ab};
}

fp12 fp12::inverse() const noexcept {
    fp6 t = (c0.square() - c1.square().mul_by_nonresidue()).inverse();
    return {c0 * t, -(c1 * t)};
}

fp12 fp12::frobenius() const noexcept {
    fp6 a = c0.frobenius();
    fp6 b = c1.frobenius() * frobenius_w;
    return {a, b};
}

fp12 fp12::mul_by_014(const fp2& d0, const fp2& d1, const fp2& d4) const noexcept {
    fp6 aa = c0.mul_by_01(d0, d1);
    fp6 bb = c1.mul_by_1(d4);
    fp6 t = (c1 + c0).mul_by_01(d0, d1 + d4) - aa - bb;
    return {bb.mul_by_nonresidue() + aa, t};
}

// (a + b s)^2 in Fp4 = Fp2[s] / (s^2 - xi): returns (a^2 + xi b^2, 2ab).
static inline void fp4_square(const fp2& a, const fp2& b, fp2& c0, fp2& c1) noexcept {
    fp2 t0 = a.square();
    fp2 t1 = b.square();
    c0 = t1.mul_by_nonresidue() + t0;
    c1 = (a + b).square() - t0 - t1;
}

fp12 fp12::cyclotomic_square() const noexcept {
    fp2 z0 = c0.c0, z4 = c0.c1, z3 = c0.c2;
    fp2 z2 = c1.c0, z1 = c1.c1, z5 = c1.c2;
    fp2 t0, t1, t2, t3;

    fp4_square(z0, z1, t0, t1);
    z0 = t0 - z0;
    z0 = z0 + z0 + t0;
    z1 = t1 + z1;
    z1 = z1 + z1 + t1;

    fp4_square(z2, z3, t0, t1);
    fp4_square(z4, z5, t2, t3);
    z4 = t0 - z4;
    z4 = z4 + z4 + t0;
    z5 = t1 + z5;
    z5 = z5 + z5 + t1;

    t0 = t3.mul_by_nonresidue();
    z2 = t0 + z2;
    z2 = z2 + z2 + t0;
    z3 = t2 - z3;
    z3 = z3 + z3 + t2;
    return {{z0, z4, z3}, {z2, z1, z5}};
}

}  // namespace c2lab::ff

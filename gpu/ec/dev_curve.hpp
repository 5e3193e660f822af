// Curve points for the device (and the host), templated on a device field (gpu/ff): the
// short Weierstrass curves y^2 = x^3 + b of BLS12-381 (a = 0), G1 over fp_dev and G2 over
// fp2_dev. No formula here needs b, so a point type depends on its field only.
//
//   dev_affine<F>  (x, y); the identity is (0, 0), as in lib/ec (never on the curve)
//   dev_xyzz<F>    (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; the identity has
//                  ZZ = 0, and identity() is all zero bytes, so a zero-filled buffer (a
//                  cudaMemset) holds identities
//
// Formulas are those of lib/ec/curve.hpp (Explicit-Formulas Database,
// hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html), costs in field multiplications (M) and
// squarings (S). Additions handle the identity, P + P (they double) and P + (-P) (the
// identity) themselves, so a bucket may receive any points in any order.
//
// alignas(16): sizes are unchanged (96 and 192 bytes for G1, 192 and 384 for G2, as lib/ec's
// affine points: see gpu/ec/convert.hpp), and the device moves points with 16-byte loads and
// stores.
#pragma once

#include "gpu/ff/dev_fields.hpp"

// The point formulas are real calls on the device (__noinline__): each is compiled once per
// .cu and shared by every kernel, instead of being inlined (with all its unrolled field
// multiplications) at each use. That keeps ptxas time and code size in bounds (msm_g1.cu:
// 150 s of ptxas inlined, 18 s so); the price is passing the points through the parameter
// space and local memory per call, small next to the 8 to 14 field multiplications of a
// formula.
#if defined(__CUDACC__)
#define C2_HD_POINT __host__ __device__ __noinline__
#else
#define C2_HD_POINT inline
#endif

namespace c2lab::gpu {

template <class F>
struct alignas(16) dev_affine {
    F x, y;

    C2_HD static constexpr dev_affine identity() { return {F::zero(), F::zero()}; }
    C2_HD bool is_identity() const { return x.is_zero() && y.is_zero(); }
    // -(0, 0) = (0, -0) = (0, 0): no test needed.
    C2_HD dev_affine operator-() const { return {x, -y}; }
};

// How the point formulas multiply: inline for Fp. For Fp2 one real call per multiplication on
// the device (3 Fp multiplications inside), so that a G2 formula is not 40-odd inlined,
// unrolled Fp multiplications (ptxas took minutes over those).
template <class F>
struct dev_field_ops {
    C2_HD static F mul(const F& a, const F& b) { return a * b; }
    C2_HD static F sqr(const F& a) { return a.sqr(); }
};
template <>
struct dev_field_ops<fp2_dev> {
    C2_HD_POINT static fp2_dev mul(const fp2_dev& a, const fp2_dev& b) { return a * b; }
    C2_HD_POINT static fp2_dev sqr(const fp2_dev& a) { return a.sqr(); }
};

template <class F>
struct alignas(16) dev_xyzz {
    F x, y, zz, zzz;

    C2_HD static constexpr dev_xyzz identity() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
    C2_HD bool is_identity() const { return zz.is_zero(); }
    C2_HD static dev_xyzz from_affine(const dev_affine<F>& p) {
        if (p.is_identity()) return identity();
        return {p.x, p.y, F::one(), F::one()};
    }
    C2_HD dev_xyzz operator-() const { return {x, -y, zz, zzz}; }

    // dbl-2008-s-1 (a = 0): 6M + 3S.
    C2_HD_POINT dev_xyzz dbl() const {
        using ops = dev_field_ops<F>;
        if (is_identity()) return *this;
        const F u = y.dbl();
        const F v = ops::sqr(u);
        const F w = ops::mul(u, v);
        const F s = ops::mul(x, v);
        F m = ops::sqr(x);
        m = m.dbl() + m;
        const F x3 = ops::sqr(m) - s.dbl();
        return {x3, ops::mul(m, s - x3) - ops::mul(w, y), ops::mul(v, zz), ops::mul(w, zzz)};
    }

    // add-2008-s: 12M + 2S. P = Q doubles, P = -Q gives the identity.
    C2_HD_POINT friend dev_xyzz operator+(const dev_xyzz& p, const dev_xyzz& q) {
        using ops = dev_field_ops<F>;
        if (p.is_identity()) return q;
        if (q.is_identity()) return p;
        const F u1 = ops::mul(p.x, q.zz);
        const F u2 = ops::mul(q.x, p.zz);
        const F s1 = ops::mul(p.y, q.zzz);
        const F s2 = ops::mul(q.y, p.zzz);
        const F pd = u2 - u1;
        const F r = s2 - s1;
        if (pd.is_zero()) return r.is_zero() ? p.dbl() : identity();
        const F pp = ops::sqr(pd);
        const F ppp = ops::mul(pd, pp);
        const F qq = ops::mul(u1, pp);
        const F x3 = ops::sqr(r) - ppp - qq.dbl();
        const F y3 = ops::mul(r, qq - x3) - ops::mul(s1, ppp);
        return {x3, y3, ops::mul(ops::mul(p.zz, q.zz), pp), ops::mul(ops::mul(p.zzz, q.zzz), ppp)};
    }

    // madd-2008-s (mixed, Q affine): 8M + 2S. P = Q doubles, P = -Q gives the identity.
    C2_HD_POINT friend dev_xyzz operator+(const dev_xyzz& p, const dev_affine<F>& q) {
        using ops = dev_field_ops<F>;
        if (q.is_identity()) return p;
        if (p.is_identity()) return from_affine(q);
        const F u2 = ops::mul(q.x, p.zz);
        const F s2 = ops::mul(q.y, p.zzz);
        const F pd = u2 - p.x;
        const F r = s2 - p.y;
        if (pd.is_zero()) return r.is_zero() ? p.dbl() : identity();
        const F pp = ops::sqr(pd);
        const F ppp = ops::mul(pd, pp);
        const F qq = ops::mul(p.x, pp);
        const F x3 = ops::sqr(r) - ppp - qq.dbl();
        const F y3 = ops::mul(r, qq - x3) - ops::mul(p.y, ppp);
        return {x3, y3, ops::mul(p.zz, pp), ops::mul(p.zzz, ppp)};
    }
    C2_HD dev_xyzz& operator+=(const dev_xyzz& q) { return *this = *this + q; }
    C2_HD dev_xyzz& operator+=(const dev_affine<F>& q) { return *this = *this + q; }
};

// A curve for the kernels: its field and point types.
template <class F>
struct dev_curve {
    using field = F;
    using affine = dev_affine<F>;
    using xyzz = dev_xyzz<F>;
};

using g1_dev = dev_curve<fp_dev>;   // G1 of BLS12-381 over Fp
using g2_dev = dev_curve<fp2_dev>;  // G2 of BLS12-381 over Fp2

}  // namespace c2lab::gpu

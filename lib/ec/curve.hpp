// Short Weierstrass curves y^2 = x^3 + b (a = 0) in three representations:
//
//   affine<C>    (x, y); the point at infinity is (0, 0), which is never on the curve
//   jacobian<C>  (X, Y, Z) with x = X/Z^2, y = Y/Z^3; infinity has Z = 0
//   xyzz<C>      (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity has ZZ = 0
//
// C is a curve description: `using field`, `b`, the generator (gx, gy) and a name.
// Formula costs are in field multiplications (M) and squarings (S), as named in the
// Explicit-Formulas Database (hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html
// and auto-shortw-xyzz.html).
#pragma once

#include "ff/fields.hpp"
#include "ff/limbs.hpp"

namespace c2lab::ec {

template <class C>
struct jacobian;
template <class C>
struct xyzz;

template <class C>
struct affine {
    using field = typename C::field;
    field x, y;

    static constexpr affine identity() noexcept { return {}; }
    static constexpr affine generator() noexcept { return {C::gx, C::gy}; }

    constexpr bool is_identity() const noexcept { return x.is_zero() && y.is_zero(); }
    // y^2 = x^3 + b; the identity counts as on the curve.
    constexpr bool is_on_curve() const noexcept {
        return is_identity() || y.square() == x.square() * x + C::b;
    }
    constexpr affine operator-() const noexcept { return is_identity() ? *this : affine{x, -y}; }
    friend constexpr bool operator==(const affine&, const affine&) noexcept = default;

    constexpr jacobian<C> to_jacobian() const noexcept {
        if (is_identity()) return jacobian<C>::identity();
        return {x, y, field::one()};
    }
    constexpr xyzz<C> to_xyzz() const noexcept {
        if (is_identity()) return xyzz<C>::identity();
        return {x, y, field::one(), field::one()};
    }
};

template <class C>
struct jacobian {
    using field = typename C::field;
    field x, y, z;

    static constexpr jacobian identity() noexcept { return {field::one(), field::one(), field::zero()}; }
    static constexpr jacobian generator() noexcept { return affine<C>::generator().to_jacobian(); }

    constexpr bool is_identity() const noexcept { return z.is_zero(); }

    // Y^2 = X^3 + b Z^6.
    constexpr bool is_on_curve() const noexcept {
        if (is_identity()) return true;
        field z2 = z.square();
        field z6 = z2.square() * z2;
        return y.square() == x.square() * x + C::b * z6;
    }

    // X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3.
    friend constexpr bool operator==(const jacobian& p, const jacobian& q) noexcept {
        if (p.is_identity() || q.is_identity()) return p.is_identity() && q.is_identity();
        field z1z1 = p.z.square(), z2z2 = q.z.square();
        return p.x * z2z2 == q.x * z1z1 && p.y * (z2z2 * q.z) == q.y * (z1z1 * p.z);
    }

    constexpr jacobian operator-() const noexcept { return {x, -y, z}; }

    // dbl-2009-l: 2M + 5S.
    constexpr jacobian dbl() const noexcept {
        if (is_identity()) return *this;
        field a = x.square();
        field b = y.square();
        field c = b.square();
        field d = ((x + b).square() - a - c).dbl();
        field e = a.dbl() + a;
        field f = e.square();
        field x3 = f - d.dbl();
        field c8 = c.dbl().dbl().dbl();
        return {x3, e * (d - x3) - c8, (y * z).dbl()};
    }

    // add-2007-bl: 11M + 5S. Handles P = Q (doubles), P = -Q and the identity.
    friend constexpr jacobian operator+(const jacobian& p, const jacobian& q) noexcept {
        if (p.is_identity()) return q;
        if (q.is_identity()) return p;
        field z1z1 = p.z.square();
        field z2z2 = q.z.square();
        field u1 = p.x * z2z2;
        field u2 = q.x * z1z1;
        field s1 = p.y * q.z * z2z2;
        field s2 = q.y * p.z * z1z1;
        field h = u2 - u1;
        field r = (s2 - s1).dbl();
        if (h.is_zero()) return r.is_zero() ? p.dbl() : identity();
        field i = h.dbl().square();
        field j = h * i;
        field v = u1 * i;
        field x3 = r.square() - j - v.dbl();
        field y3 = r * (v - x3) - (s1 * j).dbl();
        field z3 = ((p.z + q.z).square() - z1z1 - z2z2) * h;
        return {x3, y3, z3};
    }

    // madd-2007-bl (mixed, Q affine): 7M + 4S.
    friend constexpr jacobian operator+(const jacobian& p, const affine<C>& q) noexcept {
        if (q.is_identity()) return p;
        if (p.is_identity()) return q.to_jacobian();
        field z1z1 = p.z.square();
        field u2 = q.x * z1z1;
        field s2 = q.y * p.z * z1z1;
        field h = u2 - p.x;
        field r = (s2 - p.y).dbl();
        if (h.is_zero()) return r.is_zero() ? p.dbl() : identity();
        field hh = h.square();
        field i = hh.dbl().dbl();
        field j = h * i;
        field v = p.x * i;
        field x3 = r.square() - j - v.dbl();
        field y3 = r * (v - x3) - (p.y * j).dbl();
        field z3 = (p.z + h).square() - z1z1 - hh;
        return {x3, y3, z3};
    }
    friend constexpr jacobian operator-(const jacobian& p, const jacobian& q) noexcept { return p + (-q); }
    constexpr jacobian& operator+=(const jacobian& q) noexcept { return *this = *this + q; }
    constexpr jacobian& operator+=(const affine<C>& q) noexcept { return *this = *this + q; }

    // One inversion + 3M + 1S.
    constexpr affine<C> to_affine() const noexcept {
        if (is_identity()) return affine<C>::identity();
        field zi = z.inverse();
        field zi2 = zi.square();
        return {x * zi2, y * zi2 * zi};
    }

    // [k]P for a plain little-endian integer k of any width: fixed 4-bit windows,
    // 14 additions of precomputation, then per window 4 doublings and one addition.
    template <size_t M>
    constexpr jacobian mul(const ff::limbs<M>& k) const noexcept {
        jacobian table[16];
        table[0] = identity();
        table[1] = *this;
        for (int i = 2; i < 16; ++i) table[i] = (i % 2 == 0) ? table[i / 2].dbl() : table[i - 1] + *this;
        jacobian acc = identity();
        size_t bits = ff::bit_length(k);
        for (size_t w = (bits + 3) / 4; w-- > 0;) {
            acc = acc.dbl().dbl().dbl().dbl();
            unsigned digit = static_cast<unsigned>((k[(4 * w) / 64] >> ((4 * w) % 64)) & 15);
            if (digit) acc += table[digit];
        }
        return acc;
    }
    constexpr jacobian mul(uint64_t k) const noexcept { return mul(ff::limbs<1>{k}); }
    jacobian operator*(const ff::fr& s) const noexcept { return mul(s.to_canonical()); }
};

template <class C>
struct xyzz {
    using field = typename C::field;
    field x, y, zz, zzz;

    static constexpr xyzz identity() noexcept { return {field::one(), field::one(), field::zero(), field::zero()}; }
    constexpr bool is_identity() const noexcept { return zz.is_zero(); }
    constexpr xyzz operator-() const noexcept { return {x, -y, zz, zzz}; }

    // dbl-2008-s-1 (a = 0): 6M + 3S.
    constexpr xyzz dbl() const noexcept {
        if (is_identity()) return *this;
        field u = y.dbl();
        field v = u.square();
        field w = u * v;
        field s = x * v;
        field m = x.square();
        m = m.dbl() + m;
        field x3 = m.square() - s.dbl();
        return {x3, m * (s - x3) - w * y, v * zz, w * zzz};
    }

    // add-2008-s: 12M + 2S. Handles P = Q, P = -Q and the identity.
    friend constexpr xyzz operator+(const xyzz& p, const xyzz& q) noexcept {
        if (p.is_identity()) return q;
        if (q.is_identity()) return p;
        field u1 = p.x * q.zz;
        field u2 = q.x * p.zz;
        field s1 = p.y * q.zzz;
        field s2 = q.y * p.zzz;
        field pd = u2 - u1;
        field r = s2 - s1;
        if (pd.is_zero()) return r.is_zero() ? p.dbl() : identity();
        field pp = pd.square();
        field ppp = pd * pp;
        field qq = u1 * pp;
        field x3 = r.square() - ppp - qq.dbl();
        field y3 = r * (qq - x3) - s1 * ppp;
        return {x3, y3, p.zz * q.zz * pp, p.zzz * q.zzz * ppp};
    }

    // madd-2008-s (mixed, Q affine): 8M + 2S.
    friend constexpr xyzz operator+(const xyzz& p, const affine<C>& q) noexcept {
        if (q.is_identity()) return p;
        if (p.is_identity()) return q.to_xyzz();
        field u2 = q.x * p.zz;
        field s2 = q.y * p.zzz;
        field pd = u2 - p.x;
        field r = s2 - p.y;
        if (pd.is_zero()) return r.is_zero() ? p.dbl() : identity();
        field pp = pd.square();
        field ppp = pd * pp;
        field qq = p.x * pp;
        field x3 = r.square() - ppp - qq.dbl();
        field y3 = r * (qq - x3) - p.y * ppp;
        return {x3, y3, p.zz * pp, p.zzz * ppp};
    }
    constexpr xyzz& operator+=(const xyzz& q) noexcept { return *this = *this + q; }
    constexpr xyzz& operator+=(const affine<C>& q) noexcept { return *this = *this + q; }

    // (X ZZ^2, Y ZZZ^2, ZZZ): 2M + 2S, no inversion.
    constexpr jacobian<C> to_jacobian() const noexcept {
        if (is_identity()) return jacobian<C>::identity();
        return {x * zz.square(), y * zzz.square(), zzz};
    }
    // One inversion of ZZ * ZZZ + 5M.
    constexpr affine<C> to_affine() const noexcept {
        if (is_identity()) return affine<C>::identity();
        field t = (zz * zzz).inverse();
        return {x * (t * zzz), y * (t * zz)};
    }
};

}  // namespace c2lab::ec

// Fp2 = Fp[u] / (u^2 + 1), the first step of the BLS12-381 tower.
// Costs in Fp multiplications (M) and squarings counted as M.
#pragma once

#include <optional>

#include "ff/fields.hpp"
#include "ff/pow.hpp"

namespace c2lab::ff {

struct fp2 {
    fp c0, c1;  // c0 + c1 u

    static constexpr fp2 zero() noexcept { return {}; }
    static constexpr fp2 one() noexcept { return {fp::one(), fp::zero()}; }
    static fp2 random(rng& g) noexcept {
        fp a = fp::random(g);
        return {a, fp::random(g)};
    }

    constexpr bool is_zero() const noexcept { return c0.is_zero() && c1.is_zero(); }
    constexpr bool is_one() const noexcept { return c0.is_one() && c1.is_zero(); }
    friend constexpr bool operator==(const fp2&, const fp2&) noexcept = default;

    friend constexpr fp2 operator+(const fp2& a, const fp2& b) noexcept { return {a.c0 + b.c0, a.c1 + b.c1}; }
    friend constexpr fp2 operator-(const fp2& a, const fp2& b) noexcept { return {a.c0 - b.c0, a.c1 - b.c1}; }
    constexpr fp2 operator-() const noexcept { return {-c0, -c1}; }
    constexpr fp2 dbl() const noexcept { return {c0.dbl(), c1.dbl()}; }

    // Karatsuba: 3M.
    friend constexpr fp2 operator*(const fp2& a, const fp2& b) noexcept {
        fp v0 = a.c0 * b.c0;
        fp v1 = a.c1 * b.c1;
        return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
    }
    constexpr fp2 operator*(const fp& s) const noexcept { return {c0 * s, c1 * s}; }
    constexpr fp2& operator+=(const fp2& b) noexcept { return *this = *this + b; }
    constexpr fp2& operator-=(const fp2& b) noexcept { return *this = *this - b; }
    constexpr fp2& operator*=(const fp2& b) noexcept { return *this = *this * b; }

    // Complex squaring: 2M.
    constexpr fp2 square() const noexcept { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }

    // Multiply by the sextic non-residue xi = 1 + u: 0M.
    constexpr fp2 mul_by_nonresidue() const noexcept { return {c0 - c1, c0 + c1}; }

    constexpr fp2 conjugate() const noexcept { return {c0, -c1}; }
    constexpr fp2 frobenius() const noexcept { return conjugate(); }  // a^p
    constexpr fp norm() const noexcept { return c0.square() + c1.square(); }

    // 1/a = conj(a) / norm(a): one Fp inversion + 4M. Zero maps to zero.
    constexpr fp2 inverse() const noexcept {
        fp t = norm().inverse();
        return {c0 * t, -(c1 * t)};
    }

    template <size_t M>
    constexpr fp2 pow(const limbs<M>& e) const noexcept {
        return pow_vartime(*this, e);
    }

    // 1 for a non-zero square, -1 for a non-square, 0 for zero (via the norm).
    constexpr int legendre() const noexcept { return norm().legendre(); }

    // Square root for p = 3 mod 4: Algorithm 9 of Adj and Rodriguez-Henriquez,
    // "Square root computation over even extension fields" (eprint 2012/685).
    constexpr std::optional<fp2> sqrt() const noexcept {
        if (is_zero()) return *this;
        constexpr auto p_minus_3_over_4 = [] {
            auto e = fp::modulus;
            e[0] -= 3;
            shr1(e);
            shr1(e);
            return e;
        }();
        fp2 a1 = pow(p_minus_3_over_4);
        fp2 alpha = a1 * (a1 * *this);
        fp2 x0 = a1 * *this;
        fp2 x;
        if (alpha == -one()) {
            x = {-x0.c1, x0.c0};  // u * x0
        } else {
            x = (alpha + one()).pow(fp::p_minus_1_over_2) * x0;
        }
        if (!(x.square() == *this)) return std::nullopt;
        return x;
    }

    // zkcrypto's sign for compressed G2 points: the imaginary part decides unless it is zero.
    constexpr bool lexicographically_largest() const noexcept {
        return c1.lexicographically_largest() || (c1.is_zero() && c0.lexicographically_largest());
    }
};

}  // namespace c2lab::ff

// Fp6 = Fp2[v] / (v^3 - xi), xi = 1 + u. Costs in Fp2 multiplications (M2).
#pragma once

#include "ff/fp2_wide.hpp"

namespace c2lab::ff {

// The sextic non-residue xi = 1 + u, and the Frobenius constants v^p = xi^((p-1)/3) v,
// (v^2)^p = xi^(2(p-1)/3) v^2, as literals (the values of zkcrypto bls12_381's fp6.rs).
// Deriving them here with a constant-evaluated pow cost about 2.5 s of compile time in every
// translation unit that includes this header (GCC 12 and clang 14 alike); fp_tower_test checks
// the literals against xi.pow at run time.
inline constexpr fp2 xi{fp::one(), fp::one()};
inline constexpr fp2 frobenius_v{
    fp::zero(),
    fp::from_hex("1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac")};
inline constexpr fp2 frobenius_v2{
    fp::from_hex("1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad"),
    fp::zero()};

struct fp6 {
    fp2 c0, c1, c2;  // c0 + c1 v + c2 v^2

    static constexpr fp6 zero() noexcept { return {}; }
    static constexpr fp6 one() noexcept { return {fp2::one(), fp2::zero(), fp2::zero()}; }
    static fp6 random(rng& g) noexcept {
        fp2 a = fp2::random(g), b = fp2::random(g);
        return {a, b, fp2::random(g)};
    }

    constexpr bool is_zero() const noexcept { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
    friend constexpr bool operator==(const fp6&, const fp6&) noexcept = default;

    friend constexpr fp6 operator+(const fp6& a, const fp6& b) noexcept {
        return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2};
    }
    friend constexpr fp6 operator-(const fp6& a, const fp6& b) noexcept {
        return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2};
    }
    constexpr fp6 operator-() const noexcept { return {-c0, -c1, -c2}; }
    // In place, coefficient by coefficient (Fp2's compound forms write from the assembly).
    constexpr fp6& operator+=(const fp6& b) noexcept {
        c0 += b.c0;
        c1 += b.c1;
        c2 += b.c2;
        return *this;
    }
    constexpr fp6& operator-=(const fp6& b) noexcept {
        c0 -= b.c0;
        c1 -= b.c1;
        c2 -= b.c2;
        return *this;
    }

    // The formulas below build every result coefficient from prvalues, so each Fp2 product
    // and sum is written in place into its destination: a named temporary copied into the
    // result costs a copy through the stack that stalls store-to-load forwarding (see
    // mod_add_into in mont_mul.hpp).

    // Karatsuba over three coefficients with lazy reduction: 6 wide Fp2 products, 3 Fp2
    // reductions (6 reduced products would take 6 reductions).
    struct wide;
    static constexpr wide mul_wide(const fp6& a, const fp6& b) noexcept;
    // a * (b0 + b1 v) and a * (b1 v), unreduced: 5 and 3 wide Fp2 products.
    constexpr wide mul_by_01_wide(const fp2& b0, const fp2& b1) const noexcept;
    constexpr wide mul_by_1_wide(const fp2& b1) const noexcept;

    friend constexpr fp6 operator*(const fp6& a, const fp6& b) noexcept;
    constexpr fp6& operator*=(const fp6& b) noexcept { return *this = *this * b; }
    constexpr fp6 operator*(const fp2& s) const noexcept { return {c0 * s, c1 * s, c2 * s}; }

    // Chung-Hasan SQR2: 2M2 + 3 squarings.
    constexpr fp6 square() const noexcept {
        const fp2 s0 = c0.square(), s1 = (c0 * c1).dbl(), s2 = (c0 - c1 + c2).square(), s3 = (c1 * c2).dbl(),
                  s4 = c2.square();
        return {s3.mul_by_nonresidue() + s0, s4.mul_by_nonresidue() + s1, s1 + s2 + s3 - s0 - s4};
    }

    // Multiply by v: (c0, c1, c2) -> (xi c2, c0, c1).
    constexpr fp6 mul_by_nonresidue() const noexcept { return {c2.mul_by_nonresidue(), c0, c1}; }

    // a * (b1 v): 3M2.
    constexpr fp6 mul_by_1(const fp2& b1) const noexcept;
    // a * (b0 + b1 v): 5M2.
    constexpr fp6 mul_by_01(const fp2& b0, const fp2& b1) const noexcept;

    template <size_t M>
    constexpr fp6 pow(const limbs<M>& e) const noexcept {
        return pow_vartime(*this, e);
    }

    constexpr fp6 inverse() const noexcept {
        fp2 t0 = c0.square() - (c1 * c2).mul_by_nonresidue();
        fp2 t1 = c2.square().mul_by_nonresidue() - c0 * c1;
        fp2 t2 = c1.square() - c0 * c2;
        fp2 d = (c0 * t0 + (c2 * t1 + c1 * t2).mul_by_nonresidue()).inverse();
        return {t0 * d, t1 * d, t2 * d};
    }

    constexpr fp6 frobenius() const noexcept {
        return {c0.frobenius(), c1.frobenius() * frobenius_v, c2.frobenius() * frobenius_v2};
    }
};

// An unreduced Fp6 element: three wide Fp2 coefficients (fp2_wide.hpp).
struct fp6::wide {
    fp2_wide c0, c1, c2;

    constexpr fp6 reduce() const noexcept { return {c0.reduce(), c1.reduce(), c2.reduce()}; }
    friend constexpr wide operator+(const wide& a, const wide& b) noexcept {
        return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2};
    }
    friend constexpr wide operator-(const wide& a, const wide& b) noexcept {
        return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2};
    }
};

constexpr fp6::wide fp6::mul_wide(const fp6& a, const fp6& b) noexcept {
    using w = fp2_wide;
    const w aa = w::product(a.c0, b.c0), bb = w::product(a.c1, b.c1), cc = w::product(a.c2, b.c2);
    return {(w::product(a.c1 + a.c2, b.c1 + b.c2) - bb - cc).mul_by_nonresidue() + aa,
            w::product(a.c0 + a.c1, b.c0 + b.c1) - aa - bb + cc.mul_by_nonresidue(),
            w::product(a.c0 + a.c2, b.c0 + b.c2) - aa - cc + bb};
}

constexpr fp6 operator*(const fp6& a, const fp6& b) noexcept { return fp6::mul_wide(a, b).reduce(); }

constexpr fp6::wide fp6::mul_by_01_wide(const fp2& b0, const fp2& b1) const noexcept {
    using w = fp2_wide;
    const w aa = w::product(c0, b0), bb = w::product(c1, b1);
    // (c1 + c2) b1 - c1 b1 = c2 b1 and (c0 + c2) b0 - c0 b0 = c2 b0: direct products, no
    // Karatsuba terms where b2 = 0 (as blst's mul_by_xy00z0_fp6x2)
    return {w::product(c2, b1).mul_by_nonresidue() + aa, w::product(c0 + c1, b0 + b1) - aa - bb,
            w::product(c2, b0) + bb};
}

constexpr fp6::wide fp6::mul_by_1_wide(const fp2& b1) const noexcept {
    using w = fp2_wide;
    return {w::product(c2, b1).mul_by_nonresidue(), w::product(c0, b1), w::product(c1, b1)};
}

constexpr fp6 fp6::mul_by_1(const fp2& b1) const noexcept { return mul_by_1_wide(b1).reduce(); }
constexpr fp6 fp6::mul_by_01(const fp2& b0, const fp2& b1) const noexcept { return mul_by_01_wide(b0, b1).reduce(); }

}  // namespace c2lab::ff

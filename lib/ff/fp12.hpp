// Fp12 = Fp6[w] / (w^2 - v): the pairing target field. Costs in Fp6 multiplications (M6).
#pragma once

#include "ff/fp6.hpp"

namespace c2lab::ff {

// w^p = xi^((p-1)/6) w, a literal for the reason given beside frobenius_v (zkcrypto bls12_381's
// fp12.rs; checked against xi.pow in fp_tower_test).
inline constexpr fp2 frobenius_w{
    fp::from_hex("1904d3bf02bb0667c231beb4202c0d1f0fd603fd3cbd5f4f7b2443d784bab9c4f67ea53d63e7813d8d0775ed92235fb8"),
    fp::from_hex("00fc3e2b36c4e03288e9e902231f9fb854a14787b6c7b36fec0c8ec971f63c5f282d5ac14d6c7ec22cf78a126ddc4af3")};

struct fp12 {
    fp6 c0, c1;  // c0 + c1 w

    static constexpr fp12 zero() noexcept { return {}; }
    static constexpr fp12 one() noexcept { return {fp6::one(), fp6::zero()}; }
    static fp12 random(rng& g) noexcept {
        fp6 a = fp6::random(g);
        return {a, fp6::random(g)};
    }

    // f^((p^6 - 1)(p^2 + 1)) for a random f: an element of the cyclotomic subgroup (tests and
    // benchmarks of the cyclotomic squarings).
    static fp12 random_cyclotomic(rng& g) noexcept {
        const fp12 f = random(g);
        const fp12 c = f.conjugate() * f.inverse();  // f^(p^6 - 1)
        return c.frobenius(2) * c;                    // then ^(p^2 + 1)
    }

    constexpr bool is_zero() const noexcept { return c0.is_zero() && c1.is_zero(); }
    bool is_one() const noexcept { return *this == one(); }
    friend constexpr bool operator==(const fp12&, const fp12&) noexcept = default;

    friend constexpr fp12 operator+(const fp12& a, const fp12& b) noexcept { return {a.c0 + b.c0, a.c1 + b.c1}; }
    friend constexpr fp12 operator-(const fp12& a, const fp12& b) noexcept { return {a.c0 - b.c0, a.c1 - b.c1}; }
    constexpr fp12 operator-() const noexcept { return {-c0, -c1}; }
    constexpr fp12& operator+=(const fp12& b) noexcept {
        c0 += b.c0;
        c1 += b.c1;
        return *this;
    }
    constexpr fp12& operator-=(const fp12& b) noexcept {
        c0 -= b.c0;
        c1 -= b.c1;
        return *this;
    }

    // Karatsuba: 3M6.
    friend fp12 operator*(const fp12& a, const fp12& b) noexcept;
    fp12& operator*=(const fp12& b) noexcept { return *this = *this * b; }
    // Complex squaring: 2M6.
    fp12 square() const noexcept;
    fp12 inverse() const noexcept;
    // The p-power Frobenius map; frobenius(k) applies it k times.
    fp12 frobenius() const noexcept;
    fp12 frobenius(unsigned k) const noexcept {
        fp12 r = *this;
        for (unsigned i = 0; i < k; ++i) r = r.frobenius();
        return r;
    }
    // a^(p^6): the inverse of an element of the cyclotomic subgroup.
    constexpr fp12 conjugate() const noexcept { return {c0, -c1}; }

    // a * (d0 + d1 v + d4 v w): the sparse line functions of the Miller loop. 13M2.
    fp12 mul_by_014(const fp2& d0, const fp2& d1, const fp2& d4) const noexcept;

    // Squaring in the cyclotomic subgroup (Granger and Scott, eprint 2009/565): 9 Fp2 squarings.
    fp12 cyclotomic_square() const noexcept;

    template <size_t M>
    fp12 pow(const limbs<M>& e) const noexcept {
        return pow_vartime(*this, e);
    }
};

}  // namespace c2lab::ff

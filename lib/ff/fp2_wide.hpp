// Unreduced ("wide") Fp2 values for lazy reduction in the tower: the Fp2 products of an Fp6,
// Fp4 or Fp12 formula are summed as 768-bit integers and each sum is reduced once, where the
// plain formulas reduce every product (blst src/fp12_tower.c keeps the same vec768 values,
// "fp2x2"; its note puts the gain at 10-13% for mul_fp12 and sqr_fp12).
//
// A wide Fp value is an integer x in [0, p 2^384), 12 limbs, standing for the field element
// x / R^2 (R = 2^384): the product of two Montgomery forms aR * bR is one, and one Montgomery
// reduction turns it into the Montgomery form abR. Sums and differences are taken modulo
// p 2^384, which keeps every value a valid input of the reduction (REDC needs x < pR).
//
//   fp2_wide::product(a, b)  Karatsuba, 3 wide products and no reduction     108 mulx
//   fp2_wide::square(a)      complex squaring, 2 wide products               72 mulx
//   reduce()                 two Montgomery reductions                       72 mulx
//   +, -, mul_by_nonresidue  modulo p 2^384 (24-limb carry chains)
// (A reduced Fp2 product costs 180 mulx: three products and two reductions.)
//
// Paths: with mulx/adcx/adox (cpu::use_adx_asm) the products and the reduction are the
// assembly of fp2_x86_64.S and the sums are asm blocks (mont_mul_x86_64_inline.hpp); the
// portable functions below compute the same integers, and fp_tower_test checks one against
// the other limb for limb.
#pragma once

#include "ff/fp2.hpp"

#if defined(C2LAB_HAVE_X86_ASM)
extern "C" {
// r = the wide product (c0 || c1, 24 limbs); r must not overlap a or b.
void c2lab_fp2_mul_wide(uint64_t r[24], const uint64_t a[12], const uint64_t b[12]);
void c2lab_fp2_sqr_wide(uint64_t r[24], const uint64_t a[12]);
// r = (REDC(a.c0), REDC(a.c1)), each fully reduced; r may equal a.
void c2lab_fp2_redc(uint64_t r[12], const uint64_t a[24]);
}
#endif

namespace c2lab::ff {

using fp_wide = limbs<12>;

// ---- portable reference -----------------------------------------------------------------

// The full 768-bit product of two 6-limb integers (schoolbook).
constexpr fp_wide mul_wide_portable(const limbs<6>& a, const limbs<6>& b) noexcept {
    fp_wide r{};
    for (size_t i = 0; i < 6; ++i) {
        uint64_t carry = 0;
        for (size_t j = 0; j < 6; ++j) {
            u128 t = static_cast<u128>(a[i]) * b[j] + r[i + j] + carry;
            r[i + j] = static_cast<uint64_t>(t);
            carry = static_cast<uint64_t>(t >> 64);
        }
        r[i + 6] = carry;
    }
    return r;
}

inline constexpr fp_wide p_squared = mul_wide_portable(fp::modulus, fp::modulus);

// Montgomery reduction of x < p 2^384: x / R mod p, fully reduced.
constexpr limbs<6> redc_portable(fp_wide x) noexcept {
    const limbs<6>& p = fp::modulus;
    for (size_t i = 0; i < 6; ++i) {
        const uint64_t m = x[i] * fp::n0;
        uint64_t carry = 0;
        for (size_t j = 0; j < 6; ++j) {
            u128 t = static_cast<u128>(m) * p[j] + x[i + j] + carry;
            x[i + j] = static_cast<uint64_t>(t);
            carry = static_cast<uint64_t>(t >> 64);
        }
        // x + m p 2^(64i) < 2p 2^384 < 2^768: the carry dies out within the 12 limbs
        for (size_t k = i + 6; k < 12 && carry != 0; ++k) carry = addc(x[k], 0, carry, x[k]);
    }
    limbs<6> r{x[6], x[7], x[8], x[9], x[10], x[11]};  // below 2p
    limbs<6> s = r;
    if (sub_from(s, p) == 0) r = s;
    return r;
}

// The high half of a 12-limb value, and writing it back.
constexpr limbs<6> high_half(const fp_wide& x) noexcept { return {x[6], x[7], x[8], x[9], x[10], x[11]}; }
constexpr void set_high_half(fp_wide& x, const limbs<6>& h) noexcept {
    for (size_t i = 0; i < 6; ++i) x[6 + i] = h[i];
}

// (a + b) mod p 2^384 and (a - b) mod p 2^384 for a, b in [0, p 2^384).
constexpr fp_wide wide_add_portable(fp_wide a, const fp_wide& b) noexcept {
    add_to(a, b);  // < 2p 2^384 < 2^768
    limbs<6> h = high_half(a), s = h;
    if (sub_from(s, fp::modulus) == 0) set_high_half(a, s);
    return a;
}
constexpr fp_wide wide_sub_portable(fp_wide a, const fp_wide& b) noexcept {
    if (sub_from(a, b) != 0) {
        limbs<6> h = high_half(a);
        add_to(h, fp::modulus);  // wraps modulo 2^384: a - b + p 2^384
        set_high_half(a, h);
    }
    return a;
}

// Unreduced sums of two 6-limb values (< 2^384 for inputs below 2p).
constexpr limbs<6> plain_add(limbs<6> a, const limbs<6>& b) noexcept {
    add_to(a, b);
    return a;
}

// ---- Fp2 --------------------------------------------------------------------------------

struct fp2_wide {
    fp_wide c0, c1;  // in [0, p 2^384) each

    friend constexpr bool operator==(const fp2_wide&, const fp2_wide&) noexcept = default;

    // The portable reference of the assembly, the same integers.
    static constexpr fp2_wide product_portable(const fp2& a, const fp2& b) noexcept {
        fp2_wide r{mul_wide_portable(a.c0.mont, b.c0.mont), {}};
        const fp_wide v1 = mul_wide_portable(a.c1.mont, b.c1.mont);
        r.c1 = mul_wide_portable(plain_add(a.c0.mont, a.c1.mont), plain_add(b.c0.mont, b.c1.mont));
        sub_from(r.c1, r.c0);
        sub_from(r.c1, v1);
        sub_from(r.c0, v1);
        add_to(r.c0, p_squared);
        return r;
    }
    static constexpr fp2_wide square_portable(const fp2& a) noexcept {
        limbs<6> d = plain_add(a.c0.mont, fp::modulus);
        sub_from(d, a.c1.mont);
        return {mul_wide_portable(plain_add(a.c0.mont, a.c1.mont), d),
                mul_wide_portable(plain_add(a.c0.mont, a.c0.mont), a.c1.mont)};
    }

    // Each result is one named object filled in place (see the note in fp6.hpp).
    static constexpr fp2_wide product(const fp2& a, const fp2& b) noexcept {
        fp2_wide r;
#if defined(C2LAB_HAVE_X86_ASM)
        if (!std::is_constant_evaluated() && cpu::use_adx_asm)
            c2lab_fp2_mul_wide(r.c0.data(), a.limb_data(), b.limb_data());
        else
#endif
            r = product_portable(a, b);
        return r;
    }
    static constexpr fp2_wide square(const fp2& a) noexcept {
        fp2_wide r;
#if defined(C2LAB_HAVE_X86_ASM)
        if (!std::is_constant_evaluated() && cpu::use_adx_asm)
            c2lab_fp2_sqr_wide(r.c0.data(), a.limb_data());
        else
#endif
            r = square_portable(a);
        return r;
    }

    constexpr fp2 reduce() const noexcept {
        fp2 r{fp(uninit), fp(uninit)};
#if defined(C2LAB_HAVE_X86_ASM)
        if (!std::is_constant_evaluated() && cpu::use_adx_asm)
            c2lab_fp2_redc(r.limb_data(), c0.data());
        else
#endif
        {
            r.c0.mont = redc_portable(c0);
            r.c1.mont = redc_portable(c1);
        }
        return r;
    }

    friend constexpr fp2_wide operator+(const fp2_wide& a, const fp2_wide& b) noexcept {
        fp2_wide r;
        add_into(r.c0, a.c0, b.c0);
        add_into(r.c1, a.c1, b.c1);
        return r;
    }
    friend constexpr fp2_wide operator-(const fp2_wide& a, const fp2_wide& b) noexcept {
        fp2_wide r;
        sub_into(r.c0, a.c0, b.c0);
        sub_into(r.c1, a.c1, b.c1);
        return r;
    }
    // times xi = 1 + u: (c0 - c1, c0 + c1)
    constexpr fp2_wide mul_by_nonresidue() const noexcept {
        fp2_wide r;
        sub_into(r.c0, c0, c1);
        add_into(r.c1, c0, c1);
        return r;
    }

private:
    [[gnu::always_inline]] static constexpr void add_into(fp_wide& r, const fp_wide& a, const fp_wide& b) noexcept {
#if defined(C2LAB_HAVE_X86_ASM) && defined(__BMI2__)
        if (!std::is_constant_evaluated()) {
            detail::wide_add_12_to(r.data(), a.data(), b.data(), fp::modulus.data());
            return;
        }
#endif
        r = wide_add_portable(a, b);
    }
    [[gnu::always_inline]] static constexpr void sub_into(fp_wide& r, const fp_wide& a, const fp_wide& b) noexcept {
#if defined(C2LAB_HAVE_X86_ASM) && defined(__BMI2__)
        if (!std::is_constant_evaluated()) {
            detail::wide_sub_12_to(r.data(), a.data(), b.data(), fp::modulus.data());
            return;
        }
#endif
        r = wide_sub_portable(a, b);
    }
};

}  // namespace c2lab::ff

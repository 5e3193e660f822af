// The BLS12-381 fields for the device: Fr (8 x 32-bit limbs), Fp (12) and Fp2 = Fp[u]/(u^2 + 1).
// Constants: the moduli of the BLS12-381 specification (zkcrypto/bls12_381 src/scalar.rs and
// src/fp.rs) as 32-bit limbs, R = 2^(32 n) mod p, R^2 mod p, m0 = -p^-1 mod 2^32; the host test
// (gpu/ff/dev_field_test.cpp) checks each against lib/ff's compile-time derivation.
#pragma once

#include "gpu/ff/dev_mont.hpp"

namespace c2lab::gpu {

struct fr_dev_params {
    static constexpr size_t n = 8;
    static constexpr uint32_t m0 = 0xffffffff;
    C2_HD static constexpr limbs32<8> modulus() {
        return {{0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753}};
    }
    C2_HD static constexpr limbs32<8> one_mont() {
        return {{0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa, 0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159}};
    }
    C2_HD static constexpr limbs32<8> rr() {
        return {{0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb, 0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9}};
    }
};

struct fp_dev_params {
    static constexpr size_t n = 12;
    static constexpr uint32_t m0 = 0xfffcfffd;
    C2_HD static constexpr limbs32<12> modulus() {
        return {{0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea}};
    }
    C2_HD static constexpr limbs32<12> one_mont() {
        return {{0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3}};
    }
    C2_HD static constexpr limbs32<12> rr() {
        return {{0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c, 0x939d83c0, 0x67eb88a9,
                 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5}};
    }
};

using fr_dev = dev_mont<fr_dev_params>;
using fp_dev = dev_mont<fp_dev_params>;

// Fp2 = Fp[u]/(u^2 + 1), as lib/ff/fp2.hpp. mul: Karatsuba, 3 Fp multiplications.
struct fp2_dev {
    fp_dev c0, c1;

    C2_HD static constexpr fp2_dev zero() { return {fp_dev::zero(), fp_dev::zero()}; }
    C2_HD static constexpr fp2_dev one() { return {fp_dev::one(), fp_dev::zero()}; }
    C2_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    C2_HD friend bool operator==(const fp2_dev& a, const fp2_dev& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
    C2_HD friend bool operator!=(const fp2_dev& a, const fp2_dev& b) { return !(a == b); }
    C2_HD friend fp2_dev operator+(const fp2_dev& a, const fp2_dev& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
    C2_HD friend fp2_dev operator-(const fp2_dev& a, const fp2_dev& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
    C2_HD fp2_dev operator-() const { return {-c0, -c1}; }
    C2_HD fp2_dev dbl() const { return {c0.dbl(), c1.dbl()}; }
    C2_HD friend fp2_dev operator*(const fp2_dev& a, const fp2_dev& b) {
        const fp_dev v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
        return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
    }
    // (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: 2 Fp multiplications.
    C2_HD fp2_dev sqr() const {
        const fp_dev t = c0 * c1;
        return {(c0 + c1) * (c0 - c1), t.dbl()};
    }
    C2_HD fp2_dev& operator+=(const fp2_dev& b) { return *this = *this + b; }
    C2_HD fp2_dev& operator-=(const fp2_dev& b) { return *this = *this - b; }
    C2_HD fp2_dev& operator*=(const fp2_dev& b) { return *this = *this * b; }
};

}  // namespace c2lab::gpu

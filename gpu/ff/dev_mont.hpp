// dev_mont<P>: a prime field in Montgomery form over 32-bit limbs, for the device and the host
// (sppark's mont_t shape: constants are compile-time parameters of the type, no globals).
//
// P provides:
//   static constexpr size_t n;                      number of 32-bit limbs
//   static constexpr uint32_t m0;                   -p^-1 mod 2^32
//   C2_HD static constexpr limbs32<n> modulus();    p, little-endian limbs
//   C2_HD static constexpr limbs32<n> one_mont();   R mod p, R = 2^(32 n)
//   C2_HD static constexpr limbs32<n> rr();         R^2 mod p
// The constants are returned by constexpr functions, not stored in static arrays, because
// device code may read a namespace- or class-scope constexpr array only in a constant
// expression; a local copy of a constexpr function's value folds into immediates.
//
// R = 2^(32 n) equals lib/ff's R = 2^(64 n/2), so a value's Montgomery limbs are the same bits
// here and in lib/ff's mont_field (gpu/ff/convert.hpp copies them).
//
// Costs (n limbs): add/sub n-limb add + n-limb conditional subtract; mul: CIOS, 2 n^2 32x32
// multiplies. Needs a spare top bit (p < 2^(32 n - 1)), true for both BLS12-381 fields.
#pragma once

#include "gpu/hd.hpp"

namespace c2lab::gpu {

template <size_t N>
struct limbs32 {
    uint32_t v[N];
};

template <class P>
struct dev_mont {
    static constexpr size_t n = P::n;
    uint32_t limb[n];

    C2_HD static constexpr dev_mont zero() {
        dev_mont r{};
        return r;
    }
    C2_HD static constexpr dev_mont one() {
        constexpr limbs32<n> o = P::one_mont();
        dev_mont r{};
        C2_UNROLL for (size_t i = 0; i < n; ++i) r.limb[i] = o.v[i];
        return r;
    }

    C2_HD bool is_zero() const {
        uint32_t acc = 0;
        C2_UNROLL for (size_t i = 0; i < n; ++i) acc |= limb[i];
        return acc == 0;
    }
    C2_HD friend bool operator==(const dev_mont& a, const dev_mont& b) {
        uint32_t acc = 0;
        C2_UNROLL for (size_t i = 0; i < n; ++i) acc |= a.limb[i] ^ b.limb[i];
        return acc == 0;
    }
    C2_HD friend bool operator!=(const dev_mont& a, const dev_mont& b) { return !(a == b); }

    // x - p if x >= p (x < 2p, so one subtraction suffices).
    C2_HD static void reduce_once(uint32_t (&x)[n]) {
        constexpr limbs32<n> p = P::modulus();
        uint32_t t[n];
        uint64_t borrow = 0;
        C2_UNROLL for (size_t i = 0; i < n; ++i) {
            const uint64_t d = uint64_t(x[i]) - p.v[i] - borrow;
            t[i] = uint32_t(d);
            borrow = (d >> 32) & 1;
        }
        if (!borrow) {
            C2_UNROLL for (size_t i = 0; i < n; ++i) x[i] = t[i];
        }
    }

    C2_HD friend dev_mont operator+(const dev_mont& a, const dev_mont& b) {
        dev_mont r;
        uint64_t carry = 0;
        C2_UNROLL for (size_t i = 0; i < n; ++i) {
            const uint64_t s = uint64_t(a.limb[i]) + b.limb[i] + carry;
            r.limb[i] = uint32_t(s);
            carry = s >> 32;
        }
        reduce_once(r.limb);  // no carry out of the top limb: a + b < 2p < 2^(32 n)
        return r;
    }
    C2_HD friend dev_mont operator-(const dev_mont& a, const dev_mont& b) {
        constexpr limbs32<n> p = P::modulus();
        dev_mont r;
        uint64_t borrow = 0;
        C2_UNROLL for (size_t i = 0; i < n; ++i) {
            const uint64_t d = uint64_t(a.limb[i]) - b.limb[i] - borrow;
            r.limb[i] = uint32_t(d);
            borrow = (d >> 32) & 1;
        }
        if (borrow) {  // a < b: add p back
            uint64_t carry = 0;
            C2_UNROLL for (size_t i = 0; i < n; ++i) {
                const uint64_t s = uint64_t(r.limb[i]) + p.v[i] + carry;
                r.limb[i] = uint32_t(s);
                carry = s >> 32;
            }
        }
        return r;
    }
    C2_HD dev_mont operator-() const { return zero() - *this; }
    C2_HD dev_mont dbl() const { return *this + *this; }

    // CIOS Montgomery multiplication (Koc, Acar, Kaliski 1996): a b R^-1 mod p.
    // Every 64-bit accumulation a_j b_i + t_j + carry <= (2^32-1)^2 + 2 (2^32-1) = 2^64 - 1.
    C2_HD friend dev_mont operator*(const dev_mont& a, const dev_mont& b) {
        constexpr limbs32<n> p = P::modulus();
        uint32_t t[n + 2] = {};
        C2_UNROLL for (size_t i = 0; i < n; ++i) {
            uint64_t c = 0;
            C2_UNROLL for (size_t j = 0; j < n; ++j) {
                c += uint64_t(a.limb[j]) * b.limb[i] + t[j];
                t[j] = uint32_t(c);
                c >>= 32;
            }
            uint64_t s = uint64_t(t[n]) + c;
            t[n] = uint32_t(s);
            t[n + 1] = uint32_t(s >> 32);
            const uint32_t m = t[0] * P::m0;
            c = (uint64_t(m) * p.v[0] + t[0]) >> 32;
            C2_UNROLL for (size_t j = 1; j < n; ++j) {
                c += uint64_t(m) * p.v[j] + t[j];
                t[j - 1] = uint32_t(c);
                c >>= 32;
            }
            s = uint64_t(t[n]) + c;
            t[n - 1] = uint32_t(s);
            t[n] = t[n + 1] + uint32_t(s >> 32);
        }
        dev_mont r;
        C2_UNROLL for (size_t i = 0; i < n; ++i) r.limb[i] = t[i];
        reduce_once(r.limb);  // t < 2p with the spare top bit
        return r;
    }
    C2_HD dev_mont sqr() const { return *this * *this; }
    C2_HD dev_mont& operator+=(const dev_mont& b) { return *this = *this + b; }
    C2_HD dev_mont& operator-=(const dev_mont& b) { return *this = *this - b; }
    C2_HD dev_mont& operator*=(const dev_mont& b) { return *this = *this * b; }

    // Canonical value <-> Montgomery form (x R mod p <-> x).
    C2_HD static dev_mont to_mont(const dev_mont& canonical) {
        constexpr limbs32<n> rr = P::rr();
        dev_mont r2;
        C2_UNROLL for (size_t i = 0; i < n; ++i) r2.limb[i] = rr.v[i];
        return canonical * r2;
    }
    C2_HD dev_mont from_mont() const {
        dev_mont one_plain{};
        one_plain.limb[0] = 1;
        return *this * one_plain;
    }

    // x^e for a small public exponent (square and multiply, most significant bit first).
    C2_HD dev_mont pow_u64(uint64_t e) const {
        dev_mont r = one();
        for (int bit = 63; bit >= 0; --bit) {
            r = r.sqr();
            if ((e >> bit) & 1) r = r * *this;
        }
        return r;
    }
};

}  // namespace c2lab::gpu

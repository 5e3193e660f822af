// The two prime fields of BLS12-381.
//   Fp: the base field, p = 0x1a0111ea...ffffaaab (381 bits, 6 limbs)
//   Fr: the scalar field, r = 0x73eda753...00000001 (255 bits, 4 limbs), 2-adicity 32
// Moduli from the BLS12-381 specification (draft-irtf-cfrg-pairing-friendly-curves,
// zkcrypto/bls12_381 src/fp.rs and src/scalar.rs).
#pragma once

#include "ff/mont_field.hpp"

namespace c2lab::ff {

struct fp_params {
    static constexpr const char* name = "Fp";
    static constexpr limbs<6> modulus = {0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
                                         0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
    static constexpr uint64_t nonresidue = 2;  // p = 3 mod 8, so 2 is not a square
    // nonresidue^t for p - 1 = 2 t (2-adicity 1): -1, that is p - 1 (canonical limbs).
    static constexpr limbs<6> two_adic_root = [] {
        limbs<6> r = modulus;
        r[0] -= 1;  // ...aaab: no borrow
        return r;
    }();
};

struct fr_params {
    static constexpr const char* name = "Fr";
    static constexpr limbs<4> modulus = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                                         0x73eda753299d7d48};
    static constexpr uint64_t nonresidue = 7;  // the multiplicative generator used by zkcrypto and bellman
    // 7^t for r - 1 = 2^32 t (canonical limbs; zkcrypto/bls12_381 src/scalar.rs, ROOT_OF_UNITY).
    static constexpr limbs<4> two_adic_root = {0x3829971f439f0d2b, 0xb63683508c2280b9, 0xd09b681922c813b4,
                                               0x16a2a19edfe81f20};
};

using fp = mont_field<fp_params>;
using fr = mont_field<fr_params>;

}  // namespace c2lab::ff

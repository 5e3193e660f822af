// Test values shared by the field-kernel tests (ifma_test.cpp, in_place_test.cpp): the Montgomery
// forms a fast path can get wrong.
#pragma once

#include <cstdint>
#include <vector>

#include "ff/limbs.hpp"

namespace c2lab::ff::test_values {

// Values a vector path can get wrong, as Montgomery forms: 0, 1, p-1, limbs of all ones under
// the modulus, single bits at the radix-52 and radix-64 limb boundaries, and raw forms 1, p-1.
template <class F>
std::vector<F> edge_values() {
    std::vector<F> v = {F::zero(), F::one(), F::from_u64(2), -F::one(), -F::from_u64(2)};
    v.push_back(F::from_mont(F::p_minus_1));  // raw p - 1
    typename F::repr one_raw{};
    one_raw[0] = 1;
    v.push_back(F::from_mont(one_raw));
    for (size_t low = 1; low < F::n_limbs; ++low) {  // the lowest `low` limbs all ones, the rest of p - 1
        typename F::repr x = F::p_minus_1;
        for (size_t i = 0; i < low; ++i) x[i] = ~uint64_t{0};
        if (F::is_canonical(x)) v.push_back(F::from_mont(x));
    }
    typename F::repr ones;  // every limb all ones except the top one (p's top limb - 1)
    ones.fill(~uint64_t{0});
    ones[F::n_limbs - 1] = F::modulus[F::n_limbs - 1] - 1;
    v.push_back(F::from_mont(ones));
    for (size_t k : {51u, 52u, 63u, 64u, 103u, 104u, 127u, 128u, 155u, 156u, 207u, 208u, 250u, 259u, 311u, 363u, 380u}) {
        if (k >= F::bits - 1) continue;
        typename F::repr x{};
        x[k / 64] = uint64_t{1} << (k % 64);
        v.push_back(F::from_mont(x));
        typename F::repr y = x;
        sub_from(y, one_raw);  // 2^k - 1: all ones below the bit
        v.push_back(F::from_mont(y));
    }
    return v;
}

}  // namespace c2lab::ff::test_values

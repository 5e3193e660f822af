// x^e by left-to-right square-and-multiply for any field-like T (one(), square(), *=) and
// a plain little-endian exponent of any width. Variable time in e: for public exponents
// (Fermat inversion, Legendre symbols, Frobenius constants, tests).
#pragma once

#include "ff/limbs.hpp"

namespace c2lab::ff {

template <class T, size_t M>
constexpr T pow_vartime(const T& x, const limbs<M>& e) noexcept {
    T acc = T::one();
    for (size_t i = bit_length(e); i-- > 0;) {
        acc = acc.square();
        if (bit(e, i)) acc *= x;
    }
    return acc;
}

}  // namespace c2lab::ff

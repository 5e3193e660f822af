// Compressed squaring in the cyclotomic subgroup of Fp12 (Karabina, "Squaring in cyclotomic
// subgroups", Math. Comp. 82 (2013); the formulas as in Aranha, Karabina, Longa, Gebotys and
// Lopez, eprint 2010/526).
//
// With the Granger-Scott numbering of fp12::cyclotomic_square, z = (z0, z4, z3) + (z2, z1, z5) w,
// the square of z gives z2, z3, z4, z5 from those four alone:
//   z2' = 3 xi (2 z4 z5) + 2 z2     z3' = 3 (z4^2 + xi z5^2) - 2 z3
//   z4' = 3 (z2^2 + xi z3^2) - 2 z4 z5' = 3 (2 z2 z3) + 2 z5
// so a run of squarings carries four Fp2 values and costs 6 Fp2 squarings each (the wide
// squares of z2, z3, z2 + z3, z4, z5, z4 + z5 and four reductions), against 9 squarings and
// six reductions for Granger-Scott. z0 and z1 come back at the end (decompress): for z2 != 0,
//   z1 = (xi z5^2 + 3 z4^2 - 2 z3) / (4 z2),   z0 = xi (2 z1^2 + z2 z5 - 3 z3 z4) + 1,
// one Fp2 division, which decompress shares among several values by one inversion.
//
// Used by the final exponentiation (ec/pairing.cpp): f^|x| as one run of 63 compressed squarings
// whose values at the set bits of |x| are decompressed together and multiplied.
#pragma once

#include <span>

#include "ff/fp12.hpp"

namespace c2lab::ff {

struct fp12_compressed {
    fp2 z2, z3, z4, z5;

    // a must lie in the cyclotomic subgroup (any output of the final exponentiation's easy part).
    static constexpr fp12_compressed of(const fp12& a) noexcept { return {a.c1.c0, a.c0.c2, a.c0.c1, a.c1.c2}; }

    // 6 wide Fp2 squares, 4 Fp2 reductions.
    fp12_compressed square() const noexcept;

    // Values decompressed with one shared inversion (the final exponentiation has 6, the set
    // bits of |x|); longer inputs take one inversion per batch. No allocation.
    static constexpr size_t batch = 8;

    // out[i] = the element that in[i] compresses, for every i, with one Fp2 inversion per batch.
    // Returns false, leaving out unspecified, when some in[i] has z2 = 0: there the formula above
    // does not apply (z2 = z3 = 0 is the element 1; z2 = 0 alone happens for about one element
    // in p^2), and the caller squares uncompressed instead. in and out have the same size.
    static bool decompress(std::span<const fp12_compressed> in, std::span<fp12> out) noexcept;
};

}  // namespace c2lab::ff

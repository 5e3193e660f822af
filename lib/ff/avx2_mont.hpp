// A 4-lane AVX2 Montgomery multiplication of Fp in radix 2^29: the experiment asked for CPUs
// with AVX2 but no AVX-512 (does a vector path pay against the mulx/adcx/adox scalar product?).
// Bit-identical to fp's operator*; measured by bench_ff ff/fp_mul_batch/path:avx2 beside
// path:scalar. Not used by the prover (see README, "AVX2 field products").
#pragma once

#include <span>

#include "ff/fields.hpp"

namespace c2lab::ff {

bool avx2_available() noexcept;
// out[i] = a[i] * b[i]; c2lab::error (errc::device) where the CPU has no AVX2.
void mul_batch_avx2(std::span<fp> out, std::span<const fp> a, std::span<const fp> b);

}  // namespace c2lab::ff

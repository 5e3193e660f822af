// The AVX2 batch path (ff/ifma.hpp, batch_path::avx2) of mul_batch and square_batch, the MSM's
// batched additions and the NTT's stages: 4 products per call of a generated kernel, or two
// independent sets of 4 in one call of the two-product kernel (lib/ff/mont_mul_avx2_x86_64.S,
// scripts/gen_mont_asm.py's gen_avx2_mul and gen_avx2_mul2), for CPUs with AVX2 and without
// AVX-512 IFMA. Internal to c2lab_ff: the public API is ifma.hpp's.
//
// Layout: 4 elements at a time, structure of arrays in radix 2^29 (limb k of the 4 elements in one
// ymm, element e in lane e): Fp's 381 bits in 14 limbs (406 bits), Fr's 255 bits in 9 (261 bits).
// The kernel divides by R' = 2^(29 n29) = R 2^s (Fp s = 22, Fr s = 5), so operand a is converted
// as a 2^s (a < 2^(bits), bits + s <= 29 n29): a 2^s b / R' = a b / R, the result of operator*,
// below 2p; one conditional subtraction makes it equal bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "ff/fields.hpp"
#include "ff/fp2.hpp"

namespace c2lab::ff::detail {

// out[e] = a[e] * b[e] (Square: a[e]^2, b not read) for e < 4 chunks; out may be a or b.
// Only where C2LAB_HAVE_X86_ASM (the kernels are x86-64 assembly).
template <class F, bool Square>
void mul_chunks_avx2(F* out, const F* a, const F* b, size_t chunks) noexcept;

// Batched affine additions over Fp (ff::affine_add_batch on batch_path::avx2, G1's bucket
// additions): (x1[i], y1[i]) <- (x1[i], y1[i]) + (x2[i], negate[i] ? -y2[i] : y2[i]), bit-identical
// to the scalar path. 8 interleaved prefix-product chains: two halves of the chunks of 4 in
// lockstep (their products in pairs, the two-product kernel), lane l of a chunk taking the
// elements i = l mod 4; every value in radix 2^29 from the loads to the stores; the two halves'
// lane totals inverted together, by Montgomery's trick on 4 values. False, with nothing written,
// where some x1[i] == x2[i] (a lane total is zero). The spans are checked by the caller (same
// lengths, no overlap). On the AMD EPYC of family 25 model 17 (Zen 4) without AVX-512, one thread,
// n = 256..4096: 185-189 ns an addition against the scalar path's 222-228 (bench_ff
// ff/affine_add_batch) with one chain of chunks, the kernel 73% of it; 0.93x that with two. The same over Fp2 (G2: Karatsuba products, canonical results) measured
// 678-690 ns against the scalar path's 553-558, whose Fp2 product reduces lazily: not kept (commit
// 72cd05f has it).
bool affine_add_batch_avx2(fp* x1, fp* y1, const fp* x2, const fp* y2, const uint8_t* negate, size_t n);

// The inverses of n >= 1 Fp2 denominators d[i] (canonical) from their norms N(d) = d0^2 + d1^2
// (norm[i]): out[i] = 1/d[i] = (d0 / N, (p - d1) / N), canonical, as G2's scalar chain forms them
// (ff::affine_add_chain). The norms' Montgomery trick runs in 4 interleaved chains in radix 2^29,
// and so do the two products of each 1/d: 5 of the 6 Fp products an addition of G2 spends on its
// inversion, the norm itself staying scalar. False, with nothing written, where some norm is zero.
bool denominators_inverse_avx2(const fp2* d, const fp* norm, fp2* out, size_t n);

// The NTT's stages over Fr (ff::butterfly_stages and ff::butterfly_row_stages on batch_path::avx2;
// shapes checked there, the same meaning): values in radix 2^29 from the first stage to the last,
// lazy between them (below (2s + 1) p after s stages, normalised limbs), reduced once at the end;
// twiddles in twiddle_form(avx2), w 2^5 (the kernel divides by 2^261 = 2^5 R). At most
// avx2_max_lazy_stages stages.
constexpr size_t avx2_max_lazy_stages = 34;
constexpr unsigned avx2_fr_shift = 5;  // 29 * 9 - 256: twiddle_form(avx2, w) = w 2^5
void butterfly_stages_avx2(fr* x, size_t len, const fr* stage_tw, size_t h_first);
void butterfly_row_stages_avx2(fr* x, size_t rows, size_t stride,
                               const std::function<void(size_t, size_t, fr*)>& twiddles);

}  // namespace c2lab::ff::detail

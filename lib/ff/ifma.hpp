// Batches of independent field multiplications: out[i] = a[i] * b[i] (and out[i] = a[i]^2),
// on c2lab's Montgomery-form Fp and Fr elements, bit-identical to mont_field's operator*.
//
// Three paths, chosen in one place (cpu::use_ifma and cpu::prefer_avx2_batches, decided once at
// start-up):
//   batch_path::ifma    AVX-512 IFMA (vpmadd52luq / vpmadd52huq), 8 multiplications per
//                       vector operation, one per 64-bit lane (ff/ifma.cpp); chunks of 8,
//                       the scalar loop for the remaining n mod 8
//   batch_path::scalar  the scalar loop over mont_field's operator* (mulx/adcx/adox assembly
//                       or the portable C++ path, as mont_mul.hpp chooses)
//   batch_path::avx2    4 multiplications per call of a generated AVX2 kernel in radix 2^29
//                       (ff/avx2_batch.hpp; on the AMD EPYC of family 25 model 17, Zen 4, 80-85
//                       cycles a product against the scalar path's 118-122): mul_batch and
//                       square_batch (chunks of 4, the scalar loop for the rest; no caller takes
//                       them), affine_add_batch (below), the MSM's batched additions, and the NTT's
//                       stages butterfly_stages and butterfly_row_stages (Fr in 9 limbs, lazy between
//                       the stages), where vector_batch_path() says so. The other butterflies refuse
//                       it (c2lab::error, errc::device).
// C2LAB_NO_AVX512=1 or C2LAB_PORTABLE=1 in the environment turns the IFMA path off
// (core/cpu.hpp). No AVX-512 intrinsic appears in this header: only ifma.cpp's kernels are
// compiled for AVX-512, so every other file stays x86-64-v3 (and runs under valgrind).
//
// out may be the same span as a or b (in-place); any other overlap is refused, as are spans
// of different lengths (c2lab::error, errc::bad_input).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "ff/fields.hpp"
#include "ff/fp2.hpp"

namespace c2lab::ff {

enum class batch_path { scalar, ifma, avx2 };

// The path mul_batch and square_batch take: ifma where cpu::use_ifma, else scalar.
batch_path default_batch_path() noexcept;
// True when batch_path::ifma can run here (the CPU has it and no environment switch is off).
bool ifma_available() noexcept;
// True when batch_path::avx2 can run here: an x86-64 build with its assembly, C2LAB_PORTABLE unset
// (c2lab is compiled for x86-64-v3, so AVX2 is there wherever c2lab runs at all).
bool avx2_available() noexcept;
const char* to_string(batch_path p) noexcept;
// The path of the vector kernels taken by default: the MSM's batched affine additions
// (affine_add_batch, G1's and G2's alike) and the NTT's stages (butterfly_stages,
// butterfly_row_stages): ifma where available, else avx2 where cpu::prefer_avx2_batches, else
// scalar. (G2's avx2 is the scalar chain with its inversion in AVX2 batches.)
batch_path vector_batch_path() noexcept;

void mul_batch(std::span<fp> out, std::span<const fp> a, std::span<const fp> b);
void mul_batch(std::span<fr> out, std::span<const fr> a, std::span<const fr> b);
void square_batch(std::span<fp> out, std::span<const fp> a);
void square_batch(std::span<fr> out, std::span<const fr> a);

// One path forced, for tests and benchmarks. batch_path::ifma where ifma_available() is
// false throws c2lab::error (errc::device).
void mul_batch(batch_path path, std::span<fp> out, std::span<const fp> a, std::span<const fp> b);
void mul_batch(batch_path path, std::span<fr> out, std::span<const fr> a, std::span<const fr> b);
void square_batch(batch_path path, std::span<fp> out, std::span<const fp> a);
void square_batch(batch_path path, std::span<fr> out, std::span<const fr> a);

// out[i] = a[i] * c: mul_batch by one factor (c broadcast into a buffer of 512 copies per thread,
// refilled only when c changes). out and a have the same length (c2lab::error otherwise); out
// may be a.
void scale_batch(std::span<fr> out, std::span<const fr> a, const fr& c);
void scale_batch(batch_path path, std::span<fr> out, std::span<const fr> a, const fr& c);

// Radix-2 Cooley-Tukey butterflies over Fr, 8 per vector operation on the IFMA path:
// (p[i], q[i]) <- (p[i] + w[i] q[i], p[i] - w[i] q[i]), bit-identical to mont_field's
// operators. p, q and w have the same length and must not overlap (c2lab::error otherwise).
void butterfly_batch(batch_path path, std::span<fr> p, std::span<fr> q, std::span<const fr> w);
// The form butterfly_stages and butterfly_row_stages take their twiddles in on `path`: w itself on
// the scalar path; on the IFMA path w 2^4 mod p. There the values stay lazy between the stages
// (below 31 p, limbs not normalised) and the radix-2^52 product divides by 2^260 = 2^4 R, so the
// 2^4 that butterfly_batch puts on q (a limb shift of a value below p) goes on the twiddle.
// On the AVX2 path w 2^5 mod p: its radix-2^29 product divides by 2^261 = 2^5 R.
fr twiddle_form(batch_path path, const fr& w) noexcept;
void twiddle_form(batch_path path, std::span<fr> w) noexcept;  // in place
// The NTT's in-cache stages over one chunk: for h = h_first, 2 h_first, ..., x.size() / 2, every
// block of 2h elements takes the butterflies (x[blk + j], x[blk + h + j]) with twiddle
// stage_tw[h + j], j < h (1 for h = 1: stage_tw[1] is not read), given in twiddle_form(path);
// the same bits as butterfly_batch stage after stage with the plain twiddles. On the IFMA path
// the chunk and the twiddles are converted to radix 2^52 once for all the stages, the values
// stay lazy between them (ifma.cpp), and the stages h = 1, 2, 4, whose pairs share a vector, run
// on permuted vectors. On the AVX2 path in radix 2^29 (9 limbs), a lane a quarter of the chunk
// from the next, so that the stages up to x.size() / 8 pair whole vectors under one twiddle, and
// the last two run on 4 vectors transposed. x.size() and h_first powers of two, 16 <= x.size(),
// h_first <= x.size() / 2, stage_tw.size() >= x.size() (c2lab::error otherwise).
void butterfly_stages(batch_path path, std::span<fr> x, std::span<const fr> stage_tw, size_t h_first);
// The NTT's stages over a column tile: x holds `rows` rows of 16 elements, row r at x[stride r]
// (stride >= 16; the elements between rows are not touched), rows a power of two >= 2, x at least
// stride (rows - 1) + 16 long; for hr = 1, 2, ..., rows / 2 and each rr < hr, twiddles(hr, rr, w)
// writes the 16 twiddles of row rr of stage hr in twiddle_form(path), and every block of 2 hr
// rows takes the butterflies (row br + rr, row br + rr + hr), column by column with w; the same
// bits as butterfly_batch row after row with the plain twiddles. On the IFMA path the tile is
// converted to radix 2^52 once (read from its rows where they lie, written back there), each
// row's twiddles once for all its blocks, and the values stay lazy between the stages; on the AVX2
// path the same in radix 2^29, 4 columns a vector. c2lab::error on other shapes.
void butterfly_row_stages(batch_path path, std::span<fr> x, size_t rows, size_t stride,
                          const std::function<void(size_t hr, size_t rr, fr* w)>& twiddles);

// The same stages in the natural order (a transform from natural-order input to bit-reversed
// output, no bit reversal first): the largest blocks first, one twiddle per block. Over a chunk:
// for h = x.size() / 2, ..., 2, 1, block b (elements [2hb, 2hb + 2h)) takes the butterflies
// (x[2hb + j], x[2hb + h + j]), j < h, all with the twiddle block_tw[chunk_index (x.size() / 2h) +
// b] (twiddle_form(path)); the NTT passes the table omega^rev(i), so the twiddle of a block is
// indexed by its position in the whole array. x.size() a power of two >= 16, block_tw at least
// (chunk_index + 1) x.size() / 2 long (c2lab::error otherwise). The same bits as butterfly_batch
// block after block; on the IFMA path in radix 2^52, lazy between the stages, as butterfly_stages.
void butterfly_stages_nr(batch_path path, std::span<fr> x, std::span<const fr> block_tw, size_t chunk_index);
// Over a column tile laid out as for butterfly_row_stages: for hr = rows / 2, ..., 1, block bi
// (rows [2 hr bi, 2 hr bi + 2 hr)) takes the butterflies (row 2 hr bi + rr, row 2 hr bi + rr + hr),
// rr < hr, column by column, with the twiddle block_tw[tile_index (rows / 2hr) + bi]. block_tw at
// least (tile_index + 1) rows / 2 long.
void butterfly_row_stages_nr(batch_path path, std::span<fr> x, size_t rows, size_t stride,
                             std::span<const fr> block_tw, size_t tile_index);

// Batched affine additions over Fp coordinates (the MSM's bucket accumulation, G1):
//   (x1[i], y1[i]) <- (x1[i], y1[i]) + (x2[i], negate[i] ? -y2[i] : y2[i])   for every i,
// lambda = (y2' - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1, with one
// shared inversion (Montgomery's trick). Results are fully reduced Montgomery forms,
// bit-identical on every path. The IFMA path runs 8 interleaved prefix-product chains (lane l
// takes the elements i = l mod 8) in radix 2^52 and inverts the 8 lane totals by Montgomery's
// trick on 8 values and one scalar inversion; the AVX2 path 4 such chains in radix 2^29. Preconditions: x1[i] != x2[i] (neither point the
// identity nor the two of equal x); an equal pair is refused (c2lab::error, errc::bad_input,
// naming the first such i) before anything is written. All five spans have the same length;
// x1 and y1 must not overlap each other or any input.
void affine_add_batch(batch_path path, std::span<fp> x1, std::span<fp> y1, std::span<const fp> x2,
                      std::span<const fp> y2, std::span<const uint8_t> negate);
// The same over Fp2 (G2's coordinates): on IFMA Karatsuba products and complex squares in radix
// 2^52, the 8 lane totals inverted in Fp2; on AVX2 the scalar chain, whose inversion (over the
// denominators' norms) and 1/d products run in 4-lane batches.
void affine_add_batch(batch_path path, std::span<fp2> x1, std::span<fp2> y1, std::span<const fp2> x2,
                      std::span<const fp2> y2, std::span<const uint8_t> negate);

}  // namespace c2lab::ff

// Variable-base multi-scalar multiplication sum_i k_i P_i (Pippenger's bucket method) for
// G1 and G2 of BLS12-381, on the CPU with oneTBB.
//
// Algorithm, for n scalars and window c = config.window.bits_for(n):
//   1. Recode each scalar (in parallel) into W = floor(255/c) + 1 signed digits
//      d_j in [-(2^(c-1) - 1), 2^(c-1)], k = sum_j d_j 2^(jc). A digit above 2^(c-1) becomes
//      d - 2^c with a carry into the next window; the extra window absorbs the last carry.
//      Done in one addition: K = k + D with D = (2^(c-1) - 1) * sum_j 2^(jc), then
//      d_j = ((K >> jc) mod 2^c) - (2^(c-1) - 1). Stored as 5 limbs (40 bytes) per scalar.
//   2. Per window and point chunk (the tasks): 2^(c-1) buckets in XYZZ form; a point with
//      digit d goes into bucket |d| with the sign of d (negating affine y is free), by a
//      mixed addition xyzz + affine: 8M + 2S. Zero digits and identity points cost nothing.
//   3. Bucket reduction by running sums: sum_b b * B_b with 2 * 2^(c-1) additions
//      xyzz + xyzz (12M + 2S each).
//   4. Chunks of a window are added (jacobian, 11M + 5S), windows combined from the top
//      by c doublings (2M + 5S each) and one addition per window.
// Total about W * (n + 2^c) additions. Tasks: W windows times enough point chunks to keep
// every thread of the arena busy (chunks are only split while a chunk keeps >= 2^c points).
//
// With msm_config.glv (the default) the scalars are first split by the endomorphism of
// glv.hpp, k = +-k1 +- k2 x^2 with k1, k2 < 2^127, and
//   sum k_i P_i = sum (+-k1_i) P_i + endo(sum (+-k2_i) P_i):
// two parts of W = floor(127/c) + 1 windows over the same points, the signs in the recoded
// digits; window j of both parts runs in one task (the points read once), and the second
// part's buckets go into the first's through endo before the reduction (one addition a
// bucket). About as many bucket additions (2n * 127/c), 1.5x the reduction's of one
// part, no point written, and room for a larger c. With batched affine buckets a point whose
// bucket already has an addition in the batch waits for the next batch (no xyzz
// accumulator per bucket), the buckets are reduced by batched affine running sums, and the
// field products write straight into their destinations (pippenger.cpp). The 255-bit
// path (glv = false) and the xyzz buckets stay as variants and test references.
//
// Inputs: affine points (the identity (0, 0) is allowed and skipped) and scalars in Fr
// (Montgomery form; the canonical conversion is done here). Output: a jacobian point.
#pragma once

#include <cstddef>
#include <span>

#include "ec/g2.hpp"
#include "msm/density.hpp"
#include "msm/window.hpp"

namespace c2lab::msm {

// How points go into buckets: xyzz + affine mixed additions (8M + 2S each), or affine
// buckets with additions batched over one shared inversion (about 6M each); automatic picks
// the batches where buckets are large enough for them to pay.
enum class bucket_add { automatic, xyzz, batch_affine };

// The kernels of the batched affine additions (the msm_batch flag): automatic takes
// ff::vector_batch_path (AVX-512 IFMA where it runs, else the AVX2 kernels where
// cpu::prefer_avx2_batches, else the scalar products); the others force one. On the AVX2 path G1's
// additions run in 4-lane batches, G2's through the scalar chain with its inversion (the norms'
// Montgomery trick and the 1/d products) in 4-lane batches.
enum class msm_batch { automatic, scalar, avx2, ifma };

struct msm_config {
    window_policy window = window_policy::ln();  // the msm_window flag; default bellperson's rule
    unsigned threads = 0;                        // 0: the caller's arena (all cores by default)
    enum bucket_add bucket_add = bucket_add::automatic;
    enum msm_batch batch = msm_batch::automatic;
    // The endomorphism split (glv.hpp): each scalar k of a pair (P, k) becomes +-k1 and
    // +-k2 with 127-bit k1, k2, taken by two parts of the windows over P (above); the window
    // is then window.glv_bits_for(n) (with windows of fewer than 3 bits, which the signed
    // halves do not fit, the 255-bit path runs instead). false: the 255-bit scalars as they
    // are (the reference path).
    bool glv = true;
    // Pairs per endomorphism block: the recoded halves of one block are held at once (40
    // bytes a pair, and the points where a density runs along them and they are gathered);
    // larger MSMs run block after block with their buckets kept. 0: one block. The 2 KiB
    // proof's H MSM (2^22 - 1 pairs) in one block instead of four of 2^20: msm_h 3.64-3.84 ->
    // 3.58-3.72 s (medians 3.79 -> 3.66 s, 5 rounds alternated, IFMA, Intel Xeon; without
    // AVX-512 unchanged), 160 MB of recoded scalars, peak RSS +65 MB.
    size_t glv_block = size_t{1} << 22;
    // Batched affine buckets: additions per batch (0: the buckets a window reaches / 8,
    // clamped to 16..1024; a given size is clamped to 16..4096), and the bucket reduction
    // by batched affine running sums over segments (0 segments: buckets / 16) instead of
    // xyzz running sums.
    size_t batch_size = 0;
    bool batched_reduction = true;
    size_t reduction_segments = 0;
    // Batched affine buckets: the bucket of the point this many positions ahead is
    // prefetched (0: none).
    size_t prefetch = 8;
    // Batched affine buckets: windows handled together by one task, sharing one batch
    // (one inversion per batch of all of them) and one pass over the points. Measured at
    // 2^16 G1 points, one thread: 1 window 352 ms, 2 357 ms, 3 363 ms, 5 369 ms: 1.
    unsigned window_group = 1;
    // msm_split: scalars per parallel chunk of the split into zeros, ones and the rest (0:
    // 2^15; rounded up to a multiple of 64). Each chunk sums its own 1-points.
    size_t split_chunk = 0;
};

// sum_i scalars[i] * points[i]. Throws c2lab::error (bad_input) when the sizes differ.
template <class C>
ec::jacobian<C> msm(std::span<const ec::affine<C>> points, std::span<const ff::fr> scalars,
                    const msm_config& config = {});

// Density-filtered MSM: points has one entry per bit of density; scalars has one entry per
// set bit, in order: the i-th scalar pairs with the point of the i-th set bit, points whose
// bit is clear are skipped. Window size is chosen for scalars.size() points.
// Throws c2lab::error (bad_input) when density.size() != points.size() or
// density.count() != scalars.size().
template <class C>
ec::jacobian<C> msm_density(std::span<const ec::affine<C>> points, const density_bitmap& density,
                            std::span<const ff::fr> scalars, const msm_config& config = {});

// bellperson's density semantics (its multiexp with a DensityTracker): the scalars are the
// full assignment, one per bit of density, and the bases were filtered at setup: one base
// per set bit, in order. Scalars whose bit is clear are skipped. Window size is chosen for
// bases.size() points. Throws c2lab::error (bad_input) when density.size() != scalars.size()
// or density.count() != bases.size().
template <class C>
ec::jacobian<C> msm_filtered_bases(std::span<const ec::affine<C>> bases, const density_bitmap& density,
                                   std::span<const ff::fr> scalars, const msm_config& config = {});

// The reference: sum of independent scalar multiplications (jacobian::mul, 4-bit windows:
// about 255 doublings and 64 additions per point). For tests only.
template <class C>
ec::jacobian<C> msm_naive(std::span<const ec::affine<C>> points, std::span<const ff::fr> scalars) {
    auto acc = ec::jacobian<C>::identity();
    for (size_t i = 0; i < points.size() && i < scalars.size(); ++i) acc += points[i].to_jacobian() * scalars[i];
    return acc;
}

extern template ec::jacobian<ec::g1_curve> msm<ec::g1_curve>(std::span<const ec::g1_affine>, std::span<const ff::fr>,
                                                             const msm_config&);
extern template ec::jacobian<ec::g2_curve> msm<ec::g2_curve>(std::span<const ec::g2_affine>, std::span<const ff::fr>,
                                                             const msm_config&);
extern template ec::jacobian<ec::g1_curve> msm_density<ec::g1_curve>(std::span<const ec::g1_affine>,
                                                                     const density_bitmap&,
                                                                     std::span<const ff::fr>, const msm_config&);
extern template ec::jacobian<ec::g2_curve> msm_density<ec::g2_curve>(std::span<const ec::g2_affine>,
                                                                     const density_bitmap&,
                                                                     std::span<const ff::fr>, const msm_config&);

extern template ec::jacobian<ec::g1_curve> msm_filtered_bases<ec::g1_curve>(std::span<const ec::g1_affine>,
                                                                            const density_bitmap&,
                                                                            std::span<const ff::fr>, const msm_config&);
extern template ec::jacobian<ec::g2_curve> msm_filtered_bases<ec::g2_curve>(std::span<const ec::g2_affine>,
                                                                            const density_bitmap&,
                                                                            std::span<const ff::fr>, const msm_config&);

}  // namespace c2lab::msm

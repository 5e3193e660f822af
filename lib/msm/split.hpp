// Scalar-aware MSM (the msm_split flag): in a SHA-256-heavy circuit most aux values are 0
// or 1, so the prover's A, B and L multi-exponentiations spend most of Pippenger's bucket
// additions on points whose scalar is 1, and all its recoding on scalars that are 0.
// supraseal (supranational/supraseal, c2/ and its msm code) splits them off first; so does
// this: scalars equal to 0 are skipped, the points of scalars equal to 1 are summed by
// batched affine addition, and Pippenger runs on the rest only.
//
// The sum of the 1-points: pairwise additions level by level (a tree), each level one
// ff::affine_add_batch (ff/ifma.hpp: denominators inverted together by Montgomery's trick, 3M
// per element plus one inversion per level and chunk, then lambda, x3, y3: 2M + 1S; 8 lanes
// at a time on AVX-512 IFMA where present). So about 5M + 1S per point, against 8M + 2S for a mixed xyzz addition and against W additions (one per
// window) that the point costs inside Pippenger. Pairs with equal x (P + P or P + (-P))
// are added in jacobian form beside the tree, so no input can break the batch. Chunks of
// points are summed in parallel on the caller's arena (config.threads).
//
// The results equal msm / msm_filtered_bases exactly (the same group element).
#pragma once

#include <cstddef>
#include <span>

#include "ec/g2.hpp"
#include "msm/density.hpp"
#include "msm/pippenger.hpp"

namespace c2lab::msm {

// How the scalars of one call split.
struct split_counts {
    size_t zeros = 0, ones = 0, rest = 0;
};

// sum_i scalars[i] * points[i], as msm(). Throws c2lab::error (bad_input) when the sizes differ.
template <class C>
ec::jacobian<C> msm_split(std::span<const ec::affine<C>> points, std::span<const ff::fr> scalars,
                          const msm_config& config = {}, split_counts* counts = nullptr);

// As msm_filtered_bases() (bellperson's density semantics: bases filtered at setup,
// scalars the full assignment). Throws c2lab::error (bad_input) on the same size mismatches.
template <class C>
ec::jacobian<C> msm_filtered_bases_split(std::span<const ec::affine<C>> bases, const density_bitmap& density,
                                         std::span<const ff::fr> scalars, const msm_config& config = {},
                                         split_counts* counts = nullptr);

// The sum of affine points by batched affine addition (identities allowed), in parallel
// on the current arena.
template <class C>
ec::jacobian<C> sum_affine(std::span<const ec::affine<C>> points);

extern template ec::jacobian<ec::g1_curve> msm_split<ec::g1_curve>(std::span<const ec::g1_affine>,
                                                                   std::span<const ff::fr>, const msm_config&,
                                                                   split_counts*);
extern template ec::jacobian<ec::g2_curve> msm_split<ec::g2_curve>(std::span<const ec::g2_affine>,
                                                                   std::span<const ff::fr>, const msm_config&,
                                                                   split_counts*);
extern template ec::jacobian<ec::g1_curve> msm_filtered_bases_split<ec::g1_curve>(std::span<const ec::g1_affine>,
                                                                                  const density_bitmap&,
                                                                                  std::span<const ff::fr>,
                                                                                  const msm_config&, split_counts*);
extern template ec::jacobian<ec::g2_curve> msm_filtered_bases_split<ec::g2_curve>(std::span<const ec::g2_affine>,
                                                                                  const density_bitmap&,
                                                                                  std::span<const ff::fr>,
                                                                                  const msm_config&, split_counts*);
extern template ec::jacobian<ec::g1_curve> sum_affine<ec::g1_curve>(std::span<const ec::g1_affine>);
extern template ec::jacobian<ec::g2_curve> sum_affine<ec::g2_curve>(std::span<const ec::g2_affine>);

}  // namespace c2lab::msm

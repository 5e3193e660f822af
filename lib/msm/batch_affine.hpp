// Jacobian -> affine for many points with one field inversion per block (Montgomery's
// trick via ff::batch_inverse of the Z coordinates).
//
// Cost per point: 3M for the batch inversion + 3M + 1S for (X Z^-2, Y Z^-3), plus one
// inversion per block of block_size points. Identities (Z = 0) come out as the affine
// identity (0, 0) and do not disturb the others. Blocks run in parallel on the current
// oneTBB arena (wrap the call in msm::in_arena to bound the threads).
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/error.hpp"
#include "ec/curve.hpp"

namespace c2lab::msm {

// One inversion for the whole span, on the calling thread.
template <class C>
void batch_to_affine_serial(std::span<const ec::jacobian<C>> in, std::span<ec::affine<C>> out) {
    using field = typename C::field;
    std::vector<field> zs(in.size());
    for (size_t i = 0; i < in.size(); ++i) zs[i] = in[i].z;  // identities have z = 0: left as 0
    ff::batch_inverse(std::span<field>(zs));
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i].is_identity()) {
            out[i] = ec::affine<C>::identity();
            continue;
        }
        field zi2 = zs[i].square();
        out[i] = {in[i].x * zi2, in[i].y * zi2 * zs[i]};
    }
}

// Blocks of block_size points in parallel (one inversion each).
template <class C>
void batch_to_affine(std::span<const ec::jacobian<C>> in, std::span<ec::affine<C>> out, size_t block_size = 4096) {
    if (in.size() != out.size())
        throw error(errc::bad_input, "batch_to_affine: " + std::to_string(in.size()) + " inputs but " +
                                         std::to_string(out.size()) + " outputs");
    if (block_size == 0) block_size = 1;
    size_t blocks = (in.size() + block_size - 1) / block_size;
    if (blocks <= 1) return batch_to_affine_serial(in, out);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, blocks), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t b = r.begin(); b < r.end(); ++b) {
            size_t lo = b * block_size, len = std::min(block_size, in.size() - lo);
            batch_to_affine_serial(in.subspan(lo, len), out.subspan(lo, len));
        }
    });
}

template <class C>
std::vector<ec::affine<C>> batch_to_affine(std::span<const ec::jacobian<C>> in) {
    std::vector<ec::affine<C>> out(in.size());
    batch_to_affine(in, std::span<ec::affine<C>>(out));
    return out;
}

}  // namespace c2lab::msm

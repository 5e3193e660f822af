// One chunk of the vector paths' batched affine additions (ff::affine_add_batch on IFMA, 8 lanes,
// and AVX2, 4 lanes): the inputs of L consecutive additions, padded past n. Internal to c2lab_ff.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace c2lab::ff::detail {

// Past n: x1 = 0, x2 = 1 (so x2 - x1 = 1 in the unused lanes: their chain product stays 1 and
// nothing is written back), y = 0. A full chunk points into the arrays, a partial one at copies.
template <class F, size_t L>
struct affine_chunk {
    const F* x1;
    const F* y1;
    const F* x2;
    const F* y2;
    unsigned neg;  // bit l set: lane l adds the negated point
    size_t count;  // elements of the chunk in [0, n): L except in the last chunk
    F pad[4][L];   // copies for a partial chunk

    void at(const F* px1, const F* py1, const F* px2, const F* py2, const uint8_t* pneg, size_t i, size_t n) {
        count = std::min<size_t>(L, n - i);
        neg = 0;
        for (size_t l = 0; l < count; ++l) neg |= unsigned(pneg[i + l] != 0) << l;
        if (count == L) {
            x1 = px1 + i, y1 = py1 + i, x2 = px2 + i, y2 = py2 + i;
            return;
        }
        const F* src[4] = {px1 + i, py1 + i, px2 + i, py2 + i};
        for (size_t v = 0; v < 4; ++v)
            for (size_t l = 0; l < L; ++l) pad[v][l] = l < count ? src[v][l] : (v == 2 ? F::one() : F::zero());
        x1 = pad[0], y1 = pad[1], x2 = pad[2], y2 = pad[3];
    }
};

}  // namespace c2lab::ff::detail

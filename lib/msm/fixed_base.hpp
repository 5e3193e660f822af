// Fixed-base scalar multiplication: many scalars times one base point (Groth16 setup:
// tau powers and the query vectors are all multiples of the generators).
//
// Table for window w (signed digits, as in pippenger.hpp): W = floor(255/w) + 1 windows,
// each with the 2^(w-1) multiples [j * 2^(w i)] B for j = 1..2^(w-1), stored affine.
// Building it: W * 2^(w-1) jacobian additions (11M + 5S) + w doublings per window, then one
// batch conversion to affine. One product [k] B: recode k, then one mixed addition
// (jacobian + affine, 7M + 4S) per nonzero digit, no doublings: about W additions.
// Memory: W * 2^(w-1) affine points (96 bytes G1, 192 bytes G2): w = 16 and G1 is 50 MB.
#pragma once

#include <span>
#include <vector>

#include "ec/g2.hpp"

namespace c2lab::msm {

template <class C>
class fixed_base_table {
public:
    static constexpr unsigned max_window_bits = 16;

    // Throws c2lab::error (bad_input) unless 1 <= window_bits <= 16. threads: 0 = the
    // caller's arena, else a task_arena of that many threads (building is parallel over windows).
    fixed_base_table(const ec::jacobian<C>& base, unsigned window_bits, unsigned threads = 0);

    // The w minimising W * (2^(w-1) + n): table work plus per-scalar work, capped at 16.
    static unsigned best_window_bits(size_t n_scalars) noexcept;

    unsigned window_bits() const noexcept { return w_; }
    unsigned windows() const noexcept { return windows_; }
    const ec::jacobian<C>& base() const noexcept { return base_; }

    ec::jacobian<C> mul(const ff::fr& k) const noexcept;

    // out[i] = [scalars[i]] B in affine: blocks of 1024 in parallel, each block window by window
    // with its additions batched in affine coordinates (one inversion per window and block,
    // ff::affine_add_batch; AVX-512 IFMA where present). Throws bad_input when the sizes differ.
    void mul_batch(std::span<const ff::fr> scalars, std::span<ec::affine<C>> out, unsigned threads = 0) const;
    std::vector<ec::affine<C>> mul_batch(std::span<const ff::fr> scalars, unsigned threads = 0) const;

private:
    ec::jacobian<C> base_;
    unsigned w_, windows_;
    std::vector<ec::affine<C>> table_;  // [i * 2^(w-1) + (j - 1)] = [j * 2^(w i)] B
};

extern template class fixed_base_table<ec::g1_curve>;
extern template class fixed_base_table<ec::g2_curve>;

}  // namespace c2lab::msm

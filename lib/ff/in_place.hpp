// Field results written straight into their destination: products, squares, sums and
// differences of Fp and Fp2 (and sums and differences of any mont_field) for the hot loops of
// the batched affine additions, and those additions themselves (affine_add_chain: the MSM's
// bucket batches in msm/pippenger.cpp and ff::affine_add_batch's scalar path). Through the
// operators a result lands in a temporary and is copied with 16-byte loads of 8-byte stores: a
// store-forwarding stall each time.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cpu.hpp"
#include "ff/avx2_batch.hpp"
#include "ff/fields.hpp"
#include "ff/fp2.hpp"
#include "ff/mont_mul.hpp"

namespace c2lab::ff {

// The portable paths of the wrappers below, out of line: inlined into them, they kept the
// wrappers out of line, a call in front of every assembly call (mul_lazy_to, 0.6% of a G1 MSM at
// 2^16 pairs in perf, no AVX-512, Intel Xeon).
template <class F>
[[gnu::noinline]] void mul_portable(F& r, const F& a, const F& b) noexcept {
    r = a * b;
}
template <class F>
[[gnu::noinline]] void sqr_portable(F& r, const F& a) noexcept {
    r = a.square();
}

[[gnu::noinline]] inline void norm_portable(fp& r, const fp2& a) noexcept { r = a.norm(); }

// r = a * b written straight into r. For Fp with the mulx/adx assembly the product goes
// from c2lab_mont_mul_6 into its destination: through operator* it lands in a temporary
// and is copied with 16-byte loads of 8-byte stores (a store-forwarding stall per product;
// perf annotate of the batched bucket loop put 11% of the MSM on that copy). r must not
// alias a or b.
[[gnu::always_inline]] inline void mul_to(fp& r, const fp& a, const fp& b) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_mont_mul_6(r.mont.data(), a.mont.data(), b.mont.data(), fp::modulus.data(), fp::n0);
        return;
    }
#endif
    mul_portable(r, a, b);
}
[[gnu::always_inline]] inline void mul_to(fp2& r, const fp2& a, const fp2& b) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_fp2_mul(r.limb_data(), a.limb_data(), b.limb_data());
        return;
    }
#endif
    mul_portable(r, a, b);
}
// The same without the final subtraction where the product only feeds other products (the
// batch's prefix products, running inverse and lambda): below 2p for factors below 2p
// (mont_mul_lazy_into). Fp2 keeps the full product.
[[gnu::always_inline]] inline void mul_lazy_to(fp& r, const fp& a, const fp& b) noexcept {
    mont_mul_lazy_into(r.mont, a.mont, b.mont, fp::modulus, fp::n0);
}
[[gnu::always_inline]] inline void mul_lazy_to(fp2& r, const fp2& a, const fp2& b) noexcept { mul_to(r, a, b); }
[[gnu::always_inline]] inline void sqr_to(fp& r, const fp& a) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_mont_sqr_6(r.mont.data(), a.mont.data(), fp::modulus.data(), fp::n0);
        return;
    }
#endif
    sqr_portable(r, a);
}
[[gnu::always_inline]] inline void sqr_to(fp2& r, const fp2& a) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_fp2_sqr(r.limb_data(), a.limb_data());
        return;
    }
#endif
    sqr_portable(r, a);
}

// r = a - b and r = a + b mod p, stored into r by the asm blocks (r may alias a or b): through
// operator- the result returns through a temporary that is then copied with 16-byte loads (a
// store-forwarding stall); perf annotate of the batched additions showed those copies as the
// hottest non-multiplication instructions.
template <class P>
[[gnu::always_inline]] inline void sub_to(mont_field<P>& r, const mont_field<P>& a, const mont_field<P>& b) noexcept {
    mod_sub_into(r.mont, a.mont, b.mont, mont_field<P>::modulus);
}
template <class P>
[[gnu::always_inline]] inline void add_to(mont_field<P>& r, const mont_field<P>& a, const mont_field<P>& b) noexcept {
    mod_add_into(r.mont, a.mont, b.mont, mont_field<P>::modulus);
}
inline void sub_to(fp2& r, const fp2& a, const fp2& b) noexcept {
    sub_to(r.c0, a.c0, b.c0);
    sub_to(r.c1, a.c1, b.c1);
}
inline void add_to(fp2& r, const fp2& a, const fp2& b) noexcept {
    add_to(r.c0, a.c0, b.c0);
    add_to(r.c1, a.c1, b.c1);
}

// r = a0^2 + a1^2, the norm of a in Fp, canonical (a's halves below 2p).
[[gnu::always_inline]] inline void norm_to(fp& r, const fp2& a) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_fp2_norm(r.mont.data(), a.limb_data());
        return;
    }
#endif
    norm_portable(r, a);
}

// Lazy forms for values that only feed products (the batch's x2 - x1, y2 -+ y1 and x1 - x3):
// a + p - b and a + b, below 2p (mont_mul.hpp lazy_sub_into, lazy_add_into), which the Fp
// products take as they are; Fp2 keeps the reduced forms (its product's additions of halves
// assume reduced inputs). Three of the six sums and differences of an addition lose their
// correction (about 40 of some 1100 instructions): G1 MSM on one thread without AVX-512, Zen 4
// EPYC, alternated, medians: 2^16 368 -> 360 ms, 2^18 1288 -> 1205 ms, 2^20 4868 -> 4883 and
// 4775 -> 4535 ms (two sets).
inline void sub_lazy_to(fp& r, const fp& a, const fp& b) noexcept { lazy_sub_into(r.mont, a.mont, b.mont, fp::modulus); }
inline void add_lazy_to(fp& r, const fp& a, const fp& b) noexcept { lazy_add_into(r.mont, a.mont, b.mont); }
inline void sub_lazy_to(fp2& r, const fp2& a, const fp2& b) noexcept { sub_to(r, a, b); }
inline void add_lazy_to(fp2& r, const fp2& a, const fp2& b) noexcept { add_to(r, a, b); }

// Fp values kept unreduced in [0, 2p) from one batch of additions to the next (the G1 buckets of
// the MSM's scalar path: affine_add_chain<true>). Fp has room: R / p = 9.84 (R = 2^384), so a
// Montgomery product of factors a, b with a b <= 9 p^2 < R p is below a b / R + p < 2p without its
// final subtraction, and sums of such values stay below 2^384. The corrections of the sums and
// differences below are by 2p instead of p.
inline constexpr limbs<6> fp_two_p = [] {
    limbs<6> t = fp::modulus;
    add_to(t, fp::modulus);
    return t;
}();
// r = a^2 / R lazily: below 2p for a below 2p (mont_sqr_lazy_into).
[[gnu::always_inline]] inline void sqr_lazy_to(fp& r, const fp& a) noexcept {
    mont_sqr_lazy_into(r.mont, a.mont, fp::modulus, fp::n0);
}
// r = a + 2p - b, congruent to a - b and in (0, a + 2p) for b below 2p; no correction.
inline void sub_lazy_2p_to(fp& r, const fp& a, const fp& b) noexcept { lazy_sub_into(r.mont, a.mont, b.mont, fp_two_p); }
// r = a - b, plus 2p where that borrows: in [0, 2p) for a and b in [0, 2p).
inline void sub_2p_to(fp& r, const fp& a, const fp& b) noexcept { mod_sub_into(r.mont, a.mont, b.mont, fp_two_p); }
// a in [0, 2p) brought below p (a - p where that does not borrow), in place.
inline void settle(fp& a) noexcept { mod_add_into(a.mont, a.mont, fp::zero().mont, fp::modulus); }
// Whether x in [0, 2p) and y in [0, p) are congruent mod p: x == y or x == y + p. The low limbs
// first, which settle almost every call (equal x coordinates are rare in a batch).
inline bool congruent_below_2p(const fp& x, const fp& y) noexcept {
    const uint64_t x0 = x.mont[0], y0 = y.mont[0];
    if (x0 != y0 && x0 != y0 + fp::modulus[0]) [[likely]] return false;
    if (x.mont == y.mont) return true;
    limbs<6> t = y.mont;
    add_to(t, fp::modulus);
    return x.mont == t;
}

// Both ends of an element (48 bytes of Fp may straddle two cache lines, 96 of Fp2 do); Write:
// for writing (the line fetched to be owned).
template <bool Write = false, class F>
[[gnu::always_inline]] inline void prefetch_element(const F* e) noexcept {
    const char* p = reinterpret_cast<const char*>(e);
    __builtin_prefetch(p, Write);
    __builtin_prefetch(p + sizeof(F) - 1, Write);
}

// c ? a : b without a branch: where c is a coin toss a branch is mispredicted half the time, and
// GCC 12 compiled the ternary (and a select by masks) into one.
template <class T>
[[gnu::always_inline]] inline T* pick(bool c, T* a, T* b) noexcept {
#if defined(__x86_64__)
    __asm__("testb %[c], %[c]\n\tcmovnzq %[a], %[b]" : [b] "+r"(b) : [a] "r"(a), [c] "q"(c) : "cc");
    return b;
#else
    return c ? a : b;
#endif
}

// Scratch of affine_add_chain, kept by its caller across batches (resized to n): the
// denominators x2_i - x1_i, and the chain the shared inversion runs along. For Fp that chain is
// over the denominators themselves; for Fp2 over their norms (norm), in Fp.
template <class F>
struct add_chain_scratch {
    std::vector<F> denom;
    std::vector<fp> norm;    // Fp2: d0^2 + d1^2 of each denominator
    std::vector<fp> prefix;  // the chain's prefix products
    std::vector<F> inverse;  // Fp2 with avx2_inverse: 1 / denom
};

// n affine additions (x1_i, y1_i) += (x2_i, y2_i), or += -(x2_i, y2_i) where neg(i), with one
// shared inversion (Montgomery's trick, fused with the additions in the backward pass): per
// addition 3M for the inversion, 2M + 1S for lambda, x3 and y3. The coordinates come through
// accessors (x1(i), y1(i): references to the running point's, written; x2(i), y2(i): the added
// point's), so each caller keeps its layout (pointers to buckets, arrays). The prefix products,
// the running inverses and lambda are lazy (mul_lazy_to, below 2p): they feed only products,
// whose results (lambda's square, y3's product) are canonical; the total is made canonical for
// its inversion. False, with nothing written, where the x2_i - x1_i multiply to zero (some
// x1_i == x2_i); n >= 1.
//
// Fp2 (G2): the shared inversion runs over the norms N(d) = d0^2 + d1^2 in Fp, and each
// 1/d = conj(d) / N(d): per addition one norm (two wide squares and one reduction, 78 mulx) and
// 5 Fp products (prefix, two in the backward pass, conj(d) scaled) in place of three Fp2 products
// (3 x 180 mulx). N(d) = 0 only for d = 0 (-1 is not a square in Fp), so the zero test holds.
// `bench_ff ff/fp2_affine_add_batch/path:scalar/n:1024`, no AVX-512, Intel Xeon family 6 model
// 167, binaries alternated three times: 523-528 -> 429-462 ns an addition (predicted 7%).
//
// Two chains, the even and the odd additions: prefix[i] = denom[i] denom[i - 2] ..., each
// parity with its own running inverse, and the backward pass takes an even and an odd addition
// per step, each product beside its twin. A product of the mulx/adcx/adox path takes about 27 ns
// after the one it depends on and 23 ns where two are independent (Intel Xeon, family 6 model
// 167); in one chain each addition's lambda, square and y3 wait on one another and the
// reorder buffer holds about three products, so the next addition's products could not start
// beside them. Two more products for the whole batch (the two parities' totals). Measured on
// that Xeon without AVX-512, binaries alternated three times, one thread pinned:
// `bench_ff ff/affine_add_batch/path:scalar/n:1024` 165-173 -> 159 ns an addition (Fp2
// 461-493 -> 450-452 ns); the MSMs against blst (G1 2^16 / 2^18) 2-3% closer, G2 within the
// noise of a busy host.
//
// Lazy (Fp only): the running points' coordinates x1, y1 may lie anywhere in [0, 2p), and the
// sums are left there too (the added points x2, y2 stay below p): lambda's square and y3's
// product skip their final subtractions, and x3, y3 are corrected by 2p instead of p. The bounds
// (fp_two_p): x2 - x1 and y2 -+ y1 as a + 2p - b lie below 3p, x1 - x3 below 4p; every product's
// factors multiply to at most 9 p^2 (3p by 3p for the first prefix products, 4p by 2p for y3),
// so every product is below 2p. The MSM's buckets take this form during their pass and are
// settled (brought below p) before anything else reads them.
//
// avx2_inverse (Fp2, x86-64 builds; the caller checks ff::avx2_available()): the inversion and
// the 1/d products run in 4-lane AVX2 batches (detail::denominators_inverse_avx2) between the
// forward pass and a backward pass without its chain: 5 of an addition's Fp products. The same
// results bit for bit.
template <bool Lazy = false, class F, class X1, class Y1, class X2, class Y2, class Neg>
bool affine_add_chain(size_t n, add_chain_scratch<F>& scratch, X1&& x1, Y1&& y1, X2&& x2, Y2&& y2, Neg&& neg,
                      bool avx2_inverse = false) {
    static_assert(std::is_same_v<F, fp> || std::is_same_v<F, fp2>);
    static_assert(!Lazy || std::is_same_v<F, fp>, "only Fp has the room for unreduced coordinates");
    // a - b as a value that only feeds products: a + p - b (a, b below p) or a + 2p - b (Lazy).
    auto sub_for_product = [](F& r, const F& a, const F& b) {
        if constexpr (Lazy) sub_lazy_2p_to(r, a, b);
        else sub_lazy_to(r, a, b);
    };
    // a - b as a coordinate: below p, or in [0, 2p) (Lazy).
    auto sub_coordinate = [](F& r, const F& a, const F& b) {
        if constexpr (Lazy) sub_2p_to(r, a, b);
        else sub_to(r, a, b);
    };
    constexpr bool by_norm = std::is_same_v<F, fp2>;
#if defined(C2LAB_HAVE_X86_ASM)
    const bool batched = by_norm && avx2_inverse;
#else
    const bool batched = false;
    (void)avx2_inverse;
#endif
    scratch.denom.resize(n);
    scratch.prefix.resize(n);
    if constexpr (by_norm) scratch.norm.resize(n);
    if (batched) scratch.inverse.resize(n);
    // The arrays through local pointers: products are calls the compiler cannot see into, and
    // after each it reloaded a vector's data pointer (and an accessor's chain of them) before
    // the next element.
    F* const dn = scratch.denom.data();
    fp* const nm = scratch.norm.data();
    fp* const pf = scratch.prefix.data();
    [[maybe_unused]] F* const iv = scratch.inverse.data();  // batched: 1 / denom (Fp2)
    // The element of the chain for addition i: its denominator, or the denominator's norm.
    auto elem = [&](size_t i) -> const fp& {
        if constexpr (by_norm) return nm[i];
        else return dn[i];
    };
    // The coordinates `ahead` additions early: through the MSM's accessors they are buckets
    // and points at random addresses, read first by the forward loop (x) and the backward loop
    // (y), and the loads of their limbs were the hottest instructions of this function (perf
    // annotate, no AVX-512). G1 MSM on one thread, Zen 4 EPYC, no AVX-512, alternated: 2^18
    // 1264 -> 1228 ms, 2^20 5128 -> 4836 ms (medians of 4-5), 2^16 unchanged (its buckets fit
    // the L2 cache), G2 2^16 960 -> 943 ms.
    constexpr size_t ahead = 8;
    for (size_t i = 0; i < n; ++i) {
        if (i + ahead < n) {
            prefetch_element(&x1(i + ahead));
            prefetch_element(&x2(i + ahead));
        }
        sub_for_product(dn[i], x2(i), x1(i));
        if constexpr (by_norm) norm_to(nm[i], dn[i]);
    }
    // inv[c][cur]: the inverse of pf[k] for the highest k of parity c not yet added; each
    // pair of additions writes the next ones into inv[c][cur ^ 1] (no product in place).
    fp inv[2][2], t;
    unsigned cur = 0;
    if (batched) {
#if defined(C2LAB_HAVE_X86_ASM)
        if constexpr (by_norm)
            if (!detail::denominators_inverse_avx2(dn, nm, iv, n)) return false;
#endif
    } else {
        for (size_t i = 0; i < n; ++i)
            if (i < 2) pf[i] = elem(i);
            else mul_lazy_to(pf[i], pf[i - 2], elem(i));
        const size_t top = n - 1, below_top = n >= 2 ? n - 2 : 0;
        mul_to(t, pf[top], n >= 2 ? pf[below_top] : fp::one());
        if (t.is_zero()) return false;
        const fp total_inv = t.inverse();
        if (n >= 2) {
            mul_lazy_to(inv[top & 1][0], total_inv, pf[below_top]);
            mul_lazy_to(inv[below_top & 1][0], total_inv, pf[top]);
        } else {
            inv[0][0] = total_inv;
        }
    }
    // lambda = (y2 - y1) / (x2 - x1); for -p2 it is -(y2 + y1) / (x2 - x1): computed without
    // the sign, which moves into y3 = lambda (x1 - x3) - y1. Additions k[0] and k[1] (the same
    // one twice for the odd one out), each step for both before the next.
    //
    // The sign picks operands, not code: y2 + y1 is taken as y2 - (p - y1), and x3 - x1 for
    // x1 - x3 by swapping the operands. The signs of the MSM's digits are coin tosses, and the
    // two branches on them an addition took were mispredicted half the time, each flush also
    // throwing away the products issued beyond it. The values are the ones the branches gave:
    // lazily y2 + p - (p - y1) = y2 + y1 exactly, and the reduced forms of Fp2 agree.
    fp elem_inv[2];
    F den_inv[2], num[2], lambda[2], l2[2], x3[2], y3[2], minus_y1[2];
    const F zero = F::zero();
    // 1/d of addition k from 1/elem(k): the same (Fp), or conj(d) / N(d) (Fp2), canonical (the
    // Fp2 product takes canonical factors): (d0 / N, (p - d1) / N), d1 canonical.
    auto den_inv_of = [&](int s, size_t k, const fp* e_inv) -> const F* {
        if constexpr (by_norm) {
            if (batched) return iv + k;
            fp minus_d1;
            mul_to(den_inv[s].c0, dn[k].c0, *e_inv);
            sub_lazy_to(minus_d1, zero.c0, dn[k].c1);
            mul_to(den_inv[s].c1, minus_d1, *e_inv);
            return &den_inv[s];
        } else {
            (void)s, (void)k;
            return e_inv;
        }
    };
    auto finish = [&](const size_t (&k)[2], const fp* (&inv_of_elem)[2]) {
        const F* inv_of_denom[2] = {den_inv_of(0, k[0], inv_of_elem[0]), den_inv_of(1, k[1], inv_of_elem[1])};
        for (int s = 0; s < 2; ++s) {
            const F& py = y1(k[s]);
            sub_for_product(minus_y1[s], zero, py);
            sub_for_product(num[s], y2(k[s]), *pick(neg(k[s]), &std::as_const(minus_y1[s]), &py));
        }
        mul_lazy_to(lambda[0], num[0], *inv_of_denom[0]);
        mul_lazy_to(lambda[1], num[1], *inv_of_denom[1]);
        if constexpr (Lazy) {
            sqr_lazy_to(l2[0], lambda[0]);
            sqr_lazy_to(l2[1], lambda[1]);
        } else {
            sqr_to(l2[0], lambda[0]);
            sqr_to(l2[1], lambda[1]);
        }
        for (int s = 0; s < 2; ++s) {
            const F& px = x1(k[s]);
            sub_coordinate(x3[s], l2[s], px);
            sub_coordinate(x3[s], x3[s], x2(k[s]));
            const bool minus = neg(k[s]);
            const F* x3s = &x3[s];
            sub_for_product(num[s], *pick(minus, x3s, &px), *pick(minus, &px, x3s));
        }
        if constexpr (Lazy) {
            mul_lazy_to(y3[0], lambda[0], num[0]);
            mul_lazy_to(y3[1], lambda[1], num[1]);
        } else {
            mul_to(y3[0], lambda[0], num[0]);
            mul_to(y3[1], lambda[1], num[1]);
        }
    };
    auto store = [&](size_t k, int s) {
        F& py = y1(k);
        sub_coordinate(py, y3[s], py);
        x1(k) = x3[s];
    };
    auto prefetch_y = [&](size_t k) {
        if (k >= ahead) {
            prefetch_element(&y1(k - ahead));
            prefetch_element(&y2(k - ahead));
            prefetch_element(&x1(k - ahead));
        }
    };
    size_t i = n;  // additions i.. are done
    if (n & 1) {  // the even top one alone (computed twice over, stored once)
        const size_t k = --i;
        prefetch_y(k);
        const fp* inv_of_elem[2] = {&inv[0][0], &inv[0][0]};
        if (k >= 2 && !batched) {
            mul_lazy_to(elem_inv[0], inv[0][0], pf[k - 2]);
            mul_lazy_to(t, inv[0][0], elem(k));
            inv_of_elem[0] = inv_of_elem[1] = &elem_inv[0];
        }
        const size_t ks[2] = {k, k};
        finish(ks, inv_of_elem);
        store(k, 0);
        if (k >= 2 && !batched) inv[0][0] = t;
    }
    for (; i >= 2; i -= 2) {  // the odd addition i - 1 and the even one i - 2
        const size_t ks[2] = {i - 1, i - 2};
        prefetch_y(ks[0]);
        prefetch_y(ks[1]);
        const fp* inv_of_elem[2] = {&inv[1][cur], &inv[0][cur]};
        if (i >= 4 && !batched) {
            mul_lazy_to(elem_inv[0], inv[1][cur], pf[ks[0] - 2]);
            mul_lazy_to(elem_inv[1], inv[0][cur], pf[ks[1] - 2]);
            mul_lazy_to(inv[1][cur ^ 1], inv[1][cur], elem(ks[0]));
            mul_lazy_to(inv[0][cur ^ 1], inv[0][cur], elem(ks[1]));
            inv_of_elem[0] = &elem_inv[0];
            inv_of_elem[1] = &elem_inv[1];
        }
        finish(ks, inv_of_elem);
        store(ks[0], 0);
        store(ks[1], 1);
        cur ^= 1;
    }
    return true;
}

}  // namespace c2lab::ff

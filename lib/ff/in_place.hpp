// Field results written straight into their destination: products, squares, sums and
// differences of Fp and Fp2 (and sums and differences of any mont_field) for the hot loops of
// the batched affine additions, and those additions themselves (affine_add_chain: the MSM's
// bucket batches in msm/pippenger.cpp and ff::affine_add_batch's scalar path). Through the
// operators a result lands in a temporary and is copied with 16-byte loads of 8-byte stores: a
// store-forwarding stall each time.
#pragma once

#include <cstddef>
#include <vector>

#include "core/cpu.hpp"
#include "ff/fields.hpp"
#include "ff/fp2.hpp"
#include "ff/mont_mul.hpp"

namespace c2lab::ff {

// r = a * b written straight into r. For Fp with the mulx/adx assembly the product goes
// from c2lab_mont_mul_6 into its destination: through operator* it lands in a temporary
// and is copied with 16-byte loads of 8-byte stores (a store-forwarding stall per product;
// perf annotate of the batched bucket loop put 11% of the MSM on that copy). r must not
// alias a or b.
inline void mul_to(fp& r, const fp& a, const fp& b) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_mont_mul_6(r.mont.data(), a.mont.data(), b.mont.data(), fp::modulus.data(), fp::n0);
        return;
    }
#endif
    r = a * b;
}
inline void mul_to(fp2& r, const fp2& a, const fp2& b) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_fp2_mul(r.limb_data(), a.limb_data(), b.limb_data());
        return;
    }
#endif
    r = a * b;
}
// The same without the final subtraction where the product only feeds other products (the
// batch's prefix products, running inverse and lambda): below 2p for factors below 2p
// (mont_mul_lazy_into). Fp2 keeps the full product.
inline void mul_lazy_to(fp& r, const fp& a, const fp& b) noexcept {
    mont_mul_lazy_into(r.mont, a.mont, b.mont, fp::modulus, fp::n0);
}
inline void mul_lazy_to(fp2& r, const fp2& a, const fp2& b) noexcept { mul_to(r, a, b); }
inline void sqr_to(fp& r, const fp& a) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_mont_sqr_6(r.mont.data(), a.mont.data(), fp::modulus.data(), fp::n0);
        return;
    }
#endif
    r = a.square();
}
inline void sqr_to(fp2& r, const fp2& a) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_fp2_sqr(r.limb_data(), a.limb_data());
        return;
    }
#endif
    r = a.square();
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

// Both ends of an element (48 bytes of Fp may straddle two cache lines, 96 of Fp2 do); Write:
// for writing (the line fetched to be owned).
template <bool Write = false, class F>
[[gnu::always_inline]] inline void prefetch_element(const F* e) noexcept {
    const char* p = reinterpret_cast<const char*>(e);
    __builtin_prefetch(p, Write);
    __builtin_prefetch(p + sizeof(F) - 1, Write);
}

// n affine additions (x1_i, y1_i) += (x2_i, y2_i), or += -(x2_i, y2_i) where neg(i), with one
// shared inversion (Montgomery's trick, fused with the additions in the backward pass): per
// addition 3M for the inversion, 2M + 1S for lambda, x3 and y3. The coordinates come through
// accessors (x1(i), y1(i): references to the running point's, written; x2(i), y2(i): the added
// point's), so each caller keeps its layout (pointers to buckets, arrays). The prefix products,
// the running inverse and lambda are lazy (mul_lazy_to, below 2p): they feed only products, whose
// results (lambda's square, y3's product) are canonical; the total is made canonical (a product
// by one) for its inversion. denom and prefix are scratch (resized to n). False, with nothing
// written, where the x2_i - x1_i multiply to zero (some x1_i == x2_i); n >= 1.
template <class F, class X1, class Y1, class X2, class Y2, class Neg>
bool affine_add_chain(size_t n, std::vector<F>& denom, std::vector<F>& prefix, X1&& x1, Y1&& y1, X2&& x2, Y2&& y2,
                      Neg&& neg) {
    denom.resize(n);
    prefix.resize(n);
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
        sub_lazy_to(denom[i], x2(i), x1(i));
    }
    prefix[0] = denom[0];
    for (size_t i = 1; i < n; ++i) mul_lazy_to(prefix[i], prefix[i - 1], denom[i]);
    F inv_buf[2], inv_i, t, lambda, l2, x3, y3;
    mul_to(t, prefix[n - 1], F::one());
    if (t.is_zero()) return false;
    inv_buf[0] = t.inverse();
    unsigned cur = 0;  // inv_buf[cur]: the inverse of prefix[i] (ping-pong: no product in place)
    for (size_t i = n; i-- > 0;) {
        if (i >= ahead) {
            prefetch_element(&y1(i - ahead));
            prefetch_element(&y2(i - ahead));
            prefetch_element(&x1(i - ahead));
        }
        const F* inv_of_denom = &inv_buf[cur];
        if (i > 0) {
            mul_lazy_to(inv_i, inv_buf[cur], prefix[i - 1]);
            mul_lazy_to(inv_buf[cur ^ 1], inv_buf[cur], denom[i]);
            cur ^= 1;
            inv_of_denom = &inv_i;
        }
        F& px = x1(i);
        F& py = y1(i);
        const F& qx = x2(i);
        const F& qy = y2(i);
        // lambda = (y2 - y1) / (x2 - x1); for -p2 it is -(y2 + y1) / (x2 - x1): computed
        // without the sign, which moves into y3 = lambda (x1 - x3) - y1.
        if (neg(i)) add_lazy_to(t, qy, py);
        else sub_lazy_to(t, qy, py);
        mul_lazy_to(lambda, t, *inv_of_denom);
        sqr_to(l2, lambda);
        sub_to(x3, l2, px);
        sub_to(x3, x3, qx);
        if (neg(i)) sub_lazy_to(t, x3, px);
        else sub_lazy_to(t, px, x3);
        mul_to(y3, lambda, t);
        sub_to(py, y3, py);
        px = x3;
    }
    return true;
}

}  // namespace c2lab::ff

// Field results written straight into their destination: products, squares, sums and
// differences of Fp and Fp2 (and sums and differences of any mont_field) for the hot loops of
// the batched affine additions (msm/pippenger.cpp's bucket batches, ff::affine_add_batch's
// scalar path). Through the operators a result lands in a temporary and is copied with 16-byte
// loads of 8-byte stores: a store-forwarding stall each time.
#pragma once

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

}  // namespace c2lab::ff

// The one place where the field multiplication backend is chosen.
//
//   compile time (constexpr)       -> mont_mul_portable
//   x86-64 with BMI2 + ADX          -> 4 limbs: inline asm (mont_mul_x86_64_inline.hpp)
//                                      6 limbs: c2lab_mont_mul_6 (mont_mul_x86_64.S), and the
//                                      square c2lab_mont_sqr_6 (mont_field::square)
//   anything else, or C2LAB_PORTABLE=1 -> mont_mul_portable
//
// Both paths compute the same function and are tested against each other. The same
// holds for modular addition and subtraction (mod_add, mod_sub): asm blocks for 4 and 6
// limbs where the compiler targets BMI2 (the default -march=x86-64-v3 does), adc/sbb
// intrinsics elsewhere on x86-64, portable loops at compile time.
#pragma once

#include <type_traits>

#include "core/cpu.hpp"
#include "ff/limbs.hpp"

#if defined(C2LAB_HAVE_X86_ASM)
#include "ff/mont_mul_x86_64_inline.hpp"
extern "C" {
void c2lab_mont_mul_6(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t p[6],
                      uint64_t n0);
// The same without the final subtraction: a b / R + (0 or p), below 2p for a, b below 2p (4p < R).
void c2lab_mont_mul_6_lazy(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t p[6],
                           uint64_t n0);
// a^2 / R mod p for a < p < 2^381: the square as 12 limbs (21 mulx) and one reduction (36 mulx).
void c2lab_mont_sqr_6(uint64_t r[6], const uint64_t a[6], const uint64_t p[6], uint64_t n0);
// The same without the final subtraction: a^2 / R + (0 or p), below 2p for a below 2p.
void c2lab_mont_sqr_6_lazy(uint64_t r[6], const uint64_t a[6], const uint64_t p[6], uint64_t n0);
// x, y and w advance by xy_step, xy_step and w_step bytes a butterfly (32: contiguous; w_step 0:
// one twiddle for all).
void c2lab_mont_butterflies_4(uint64_t* x, uint64_t* y, const uint64_t* w, size_t count, const uint64_t p[4],
                              uint64_t n0, size_t xy_step, size_t w_step);
// The same loop with the sum's and the difference's corrections by pdep (p_j or 0) instead of
// mov, cmov and adcx: two uops a limb fewer on the ports that also run the product's adcx/adox
// and the subtractions' sbb (ports 0 and 6 on Intel's recent cores). For CPUs where pdep is one
// fast uop and the loop measured faster (cpu::pdep_butterflies: Intel cores).
void c2lab_mont_butterflies_4_pdep(uint64_t* x, uint64_t* y, const uint64_t* w, size_t count,
                                   const uint64_t p[4], uint64_t n0, size_t xy_step, size_t w_step);
}
#endif

namespace c2lab::ff {

// True where an assembly multiplication exists for N limbs in this build.
template <size_t N>
inline constexpr bool has_asm_mul =
#if defined(C2LAB_HAVE_X86_ASM)
    N == 4 || N == 6;
#else
    false;
#endif

// The assembly path alone (callers must check cpu::use_adx_asm or the CPU features).
template <size_t N>
inline limbs<N> mont_sqr_asm(const limbs<N>& a, const limbs<N>& p, uint64_t n0) noexcept {
    static_assert(N == 6, "the dedicated square exists for 6 limbs");
    limbs<N> r;
#if defined(C2LAB_HAVE_X86_ASM)
    c2lab_mont_sqr_6(r.data(), a.data(), p.data(), n0);
#else
    r = mont_mul_portable(a, a, p, n0);
#endif
    return r;
}

template <size_t N>
inline limbs<N> mont_mul_asm(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p, uint64_t n0) noexcept {
    limbs<N> r;
#if defined(C2LAB_HAVE_X86_ASM)
    // 4 limbs inline with the result in registers: bench_ff ff/fr_mul went from 25.6 ns (out
    // of line, result stored and reloaded) to 23.0 ns on the 2.6 GHz Xeon of our CI machine.
    if constexpr (N == 4) r = detail::mont_mul_4_inline(a.data(), b.data(), p.data(), n0);
    else if constexpr (N == 6) c2lab_mont_mul_6(r.data(), a.data(), b.data(), p.data(), n0);
    else r = mont_mul_portable(a, b, p, n0);
#else
    r = mont_mul_portable(a, b, p, n0);
#endif
    return r;
}

template <size_t N>
constexpr limbs<N> mont_mul(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p, uint64_t n0) noexcept {
    if (std::is_constant_evaluated()) return mont_mul_portable(a, b, p, n0);
    if constexpr (has_asm_mul<N>) {
        if (cpu::use_adx_asm) [[likely]]
            return mont_mul_asm(a, b, p, n0);
    }
    return mont_mul_portable(a, b, p, n0);
}

// r = a * b / R mod p, written in place: the 6-limb assembly stores straight into r, which
// may alias a or b. (Returning the product by value costs a copy of it through the stack.)
template <size_t N>
constexpr void mont_mul_into(limbs<N>& r, const limbs<N>& a, const limbs<N>& b, const limbs<N>& p,
                             uint64_t n0) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if constexpr (N == 6) {
        if (!std::is_constant_evaluated() && cpu::use_adx_asm) [[likely]] {
            c2lab_mont_mul_6(r.data(), a.data(), b.data(), p.data(), n0);
            return;
        }
    }
#endif
    r = mont_mul(a, b, p, n0);
}

// r = a * b / R, lazily: congruent to it mod p and below 2p, for a, b below 2p where 4p < R (Fp,
// p < 2^381): the 6-limb assembly skips the final subtraction (6 mov, 6 sbb and 6 cmov of about
// 150 instructions); elsewhere the full product (below p). For chains of products whose values
// only feed other products. r may alias a or b. Inlined, its portable path out of line: with the
// portable product inlined into it, GCC kept it out of line, a call in front of every assembly
// call (1% of a G1 MSM at 2^16 pairs in perf, no AVX-512, Intel Xeon). The portable path calls
// mont_mul itself: through mont_mul_into, inlined there, it took about 16 instructions more a
// product (the instruction-count gate's G1 MSM, which valgrind runs on the portable path,
// 865.5M -> 885.9M; 861.4M this way).
[[gnu::noinline]] inline void mont_mul_lazy_portable(limbs<6>& r, const limbs<6>& a, const limbs<6>& b,
                                                     const limbs<6>& p, uint64_t n0) noexcept {
    r = mont_mul(a, b, p, n0);
}
[[gnu::always_inline]] inline void mont_mul_lazy_into(limbs<6>& r, const limbs<6>& a, const limbs<6>& b,
                                                      const limbs<6>& p, uint64_t n0) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_mont_mul_6_lazy(r.data(), a.data(), b.data(), p.data(), n0);
        return;
    }
#endif
    mont_mul_lazy_portable(r, a, b, p, n0);
}

// r = a^2 / R, lazily (below 2p for a below 2p), as mont_mul_lazy_into: the 6-limb assembly
// square without its final subtraction; elsewhere the full product a * a (below p).
[[gnu::noinline]] inline void mont_sqr_lazy_portable(limbs<6>& r, const limbs<6>& a, const limbs<6>& p,
                                                     uint64_t n0) noexcept {
    r = mont_mul(a, a, p, n0);
}
[[gnu::always_inline]] inline void mont_sqr_lazy_into(limbs<6>& r, const limbs<6>& a, const limbs<6>& p,
                                                      uint64_t n0) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if (cpu::use_adx_asm) [[likely]] {
        c2lab_mont_sqr_6_lazy(r.data(), a.data(), p.data(), n0);
        return;
    }
#endif
    mont_sqr_lazy_portable(r, a, p, n0);
}

// r = a^2 / R mod p, written in place like mont_mul_into (r may alias a): the dedicated
// 6-limb square where the assembly runs, the product a * a elsewhere.
template <size_t N>
constexpr void mont_sqr_into(limbs<N>& r, const limbs<N>& a, const limbs<N>& p, uint64_t n0) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if constexpr (N == 6) {
        if (!std::is_constant_evaluated() && cpu::use_adx_asm) [[likely]] {
            c2lab_mont_sqr_6(r.data(), a.data(), p.data(), n0);
            return;
        }
    }
#endif
    r = mont_mul(a, a, p, n0);
}

// Radix-2 butterflies over `count` elements of N limbs in Montgomery form (x, y and w point
// to contiguous arrays of count * N limbs that do not overlap; every value below p):
//   (x_i, y_i) <- (x_i + w_i y_i, x_i - w_i y_i) mod p.
// Returns false, touching nothing, where this build or CPU has no assembly loop for N; the
// caller then runs its own loop of mont_mul, mod_add and mod_sub (the same function).
// The same over elements spaced apart: butterfly i takes x + i xy_stride, y + i xy_stride and
// w + i w_stride (in elements; w_stride 0: one twiddle for every butterfly).
template <size_t N>
inline bool mont_butterflies_strided_asm(uint64_t* x, uint64_t* y, const uint64_t* w, size_t count, size_t xy_stride,
                                         size_t w_stride, const limbs<N>& p, uint64_t n0) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if constexpr (N == 4) {
        if (cpu::use_adx_asm) [[likely]] {
            (cpu::pdep_butterflies ? c2lab_mont_butterflies_4_pdep : c2lab_mont_butterflies_4)(
                x, y, w, count, p.data(), n0, 8 * N * xy_stride, 8 * N * w_stride);
            return true;
        }
    }
#endif
    (void)x, (void)y, (void)w, (void)count, (void)xy_stride, (void)w_stride, (void)p, (void)n0;
    return false;
}
template <size_t N>
inline bool mont_butterflies_asm(uint64_t* x, uint64_t* y, const uint64_t* w, size_t count, const limbs<N>& p,
                                 uint64_t n0) noexcept {
    return mont_butterflies_strided_asm<N>(x, y, w, count, 1, 1, p, n0);
}

}  // namespace c2lab::ff

namespace c2lab::ff {

template <size_t N>
constexpr limbs<N> mod_add(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
    if (std::is_constant_evaluated()) return add_mod_portable(a, b, p);
#if defined(C2LAB_HAVE_X86_ASM) && defined(__BMI2__)
    if constexpr (N == 4) return detail::mod_add_4_inline(a.data(), b.data(), p.data());
    if constexpr (N == 6) return detail::mod_add_6_inline(a.data(), b.data(), p.data());
#endif
    return add_mod(a, b, p);
}

template <size_t N>
constexpr limbs<N> mod_sub(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
    if (std::is_constant_evaluated()) return sub_mod_portable(a, b, p);
#if defined(C2LAB_HAVE_X86_ASM) && defined(__BMI2__)
    if constexpr (N == 4) return detail::mod_sub_4_inline(a.data(), b.data(), p.data());
    if constexpr (N == 6) return detail::mod_sub_6_inline(a.data(), b.data(), p.data());
#endif
    return sub_mod(a, b, p);
}

// In-place forms (r may alias a or b). The asm stores the result itself: a six-register
// result handed back to the compiler is spilled or copied through the stack inside the tower
// and curve formulas, and the copy's 16- and 32-byte loads of the 8-byte stores stall
// store-to-load forwarding (bench_ff / the blst side-by-side: an Fp2 sum took 34 ns against
// blst's 8 ns on the 2-core AMD EPYC). For 4 limbs GCC called the block out of line and
// read its result back the same way (a linear combination's `+=`, bench_synth, perf).
template <size_t N>
[[gnu::always_inline]] constexpr void mod_add_into(limbs<N>& r, const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
#if defined(C2LAB_HAVE_X86_ASM) && defined(__BMI2__)
    if (!std::is_constant_evaluated()) {
        if constexpr (N == 4) {
            detail::mod_add_4_to(r.data(), a.data(), b.data(), p.data());
            return;
        } else if constexpr (N == 6) {
            detail::mod_add_6_to(r.data(), a.data(), b.data(), p.data());
            return;
        }
    }
#endif
    r = mod_add(a, b, p);
}

template <size_t N>
[[gnu::always_inline]] constexpr void mod_sub_into(limbs<N>& r, const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
#if defined(C2LAB_HAVE_X86_ASM) && defined(__BMI2__)
    if (!std::is_constant_evaluated()) {
        if constexpr (N == 4) {
            detail::mod_sub_4_to(r.data(), a.data(), b.data(), p.data());
            return;
        } else if constexpr (N == 6) {
            detail::mod_sub_6_to(r.data(), a.data(), b.data(), p.data());
            return;
        }
    }
#endif
    r = mod_sub(a, b, p);
}

// Lazy sums and differences for values that only feed products (mont_mul_lazy_into and the
// full products take factors below 2p where 4p < R): r = a + p - b, congruent to a - b and in
// (0, 2p), and r = a + b, below 2p, for a and b below p, without the conditional correction.
// Need 2p < 2^(64 N). r may alias a or b.
template <size_t N>
[[gnu::always_inline]] constexpr void lazy_sub_into(limbs<N>& r, const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
#if defined(C2LAB_HAVE_X86_ASM) && defined(__BMI2__)
    if (!std::is_constant_evaluated()) {
        if constexpr (N == 6) {
            detail::lazy_sub_6_to(r.data(), a.data(), b.data(), p.data());
            return;
        }
    }
#endif
    limbs<N> t = a;
    add_to(t, p);
    sub_from(t, b);
    r = t;
}
template <size_t N>
[[gnu::always_inline]] constexpr void lazy_add_into(limbs<N>& r, const limbs<N>& a, const limbs<N>& b) noexcept {
#if defined(C2LAB_HAVE_X86_ASM) && defined(__BMI2__)
    if (!std::is_constant_evaluated()) {
        if constexpr (N == 6) {
            detail::lazy_add_6_to(r.data(), a.data(), b.data());
            return;
        }
    }
#endif
    limbs<N> t = a;
    add_to(t, b);
    r = t;
}

// acc = acc + a * b / R mod p, in place (acc may alias a or b): a linear combination's terms
// summed. 4 limbs with the mulx/adcx/adox assembly: one block that also adds and stores
// (mont_mul_add_4_to); elsewhere the product and mod_add.
template <size_t N>
[[gnu::always_inline]] constexpr void mont_mul_add_into(limbs<N>& acc, const limbs<N>& a, const limbs<N>& b,
                                                        const limbs<N>& p, uint64_t n0) noexcept {
#if defined(C2LAB_HAVE_X86_ASM)
    if constexpr (N == 4) {
        if (!std::is_constant_evaluated() && cpu::use_adx_asm) [[likely]] {
            detail::mont_mul_add_4_to(acc.data(), a.data(), b.data(), p.data(), n0);
            return;
        }
    }
#endif
    acc = mod_add(acc, mont_mul(a, b, p, n0), p);
}

}  // namespace c2lab::ff

// Multi-limb unsigned integers (little-endian 64-bit limbs) and the portable,
// constexpr arithmetic that the Montgomery fields are built from. Everything here
// is usable at compile time, so field constants (R, R^2, -p^-1, roots of unity)
// are derived from the modulus rather than typed in.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace c2lab::ff {

template <size_t N>
using limbs = std::array<uint64_t, N>;

using u128 = unsigned __int128;

// Tag for field storage that is written before it is read (see mont_field(uninit_t)).
struct uninit_t {
    explicit constexpr uninit_t() = default;
};
inline constexpr uninit_t uninit{};

// r = a + b + carry; returns the carry out.
constexpr uint64_t addc(uint64_t a, uint64_t b, uint64_t carry, uint64_t& r) noexcept {
    u128 s = static_cast<u128>(a) + b + carry;
    r = static_cast<uint64_t>(s);
    return static_cast<uint64_t>(s >> 64);
}

// r = a - b - borrow; returns the borrow out (0 or 1).
constexpr uint64_t subb(uint64_t a, uint64_t b, uint64_t borrow, uint64_t& r) noexcept {
    u128 d = static_cast<u128>(a) - b - borrow;
    r = static_cast<uint64_t>(d);
    return static_cast<uint64_t>(d >> 127);
}

template <size_t N>
constexpr bool is_zero(const limbs<N>& a) noexcept {
    uint64_t acc = 0;
    for (uint64_t w : a) acc |= w;
    return acc == 0;
}

// a == b without a call: std::array's operator== becomes a memcmp call that GCC leaves out of
// line (2% of a synthesis, bench_synth at 2 KiB, perf, 2-core AMD EPYC).
template <size_t N>
constexpr bool equal(const limbs<N>& a, const limbs<N>& b) noexcept {
    uint64_t diff = 0;
    for (size_t i = 0; i < N; ++i) diff |= a[i] ^ b[i];
    return diff == 0;
}

// a < b as unsigned integers.
template <size_t N>
constexpr bool less_than(const limbs<N>& a, const limbs<N>& b) noexcept {
    uint64_t borrow = 0, tmp = 0;
    for (size_t i = 0; i < N; ++i) borrow = subb(a[i], b[i], borrow, tmp);
    return borrow != 0;
}

template <size_t N>
constexpr uint64_t add_to(limbs<N>& a, const limbs<N>& b) noexcept {
    uint64_t carry = 0;
    for (size_t i = 0; i < N; ++i) carry = addc(a[i], b[i], carry, a[i]);
    return carry;
}

template <size_t N>
constexpr uint64_t sub_from(limbs<N>& a, const limbs<N>& b) noexcept {
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; ++i) borrow = subb(a[i], b[i], borrow, a[i]);
    return borrow;
}

template <size_t N>
constexpr void shr1(limbs<N>& a) noexcept {
    for (size_t i = 0; i + 1 < N; ++i) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[N - 1] >>= 1;
}

template <size_t N>
constexpr bool bit(const limbs<N>& a, size_t i) noexcept {
    return (a[i / 64] >> (i % 64)) & 1;
}

template <size_t N>
constexpr size_t bit_length(const limbs<N>& a) noexcept {
    for (size_t i = N; i-- > 0;)
        if (a[i] != 0) return 64 * i + 64 - static_cast<size_t>(__builtin_clzll(a[i]));
    return 0;
}

// x in K limbs of Bits bits (radix 2^Bits, Bits < 64): limb k holds bits [Bits k, Bits k + Bits)
// of x (the vector kernels' layouts: radix 2^52 on IFMA, 2^29 on AVX2).
template <unsigned Bits, size_t K, size_t N>
constexpr limbs<K> to_radix(const limbs<N>& x) noexcept {
    static_assert(Bits > 0 && Bits < 64);
    limbs<K> r{};
    for (size_t k = 0; k < K; ++k) {
        for (size_t w = 0; w < N; ++w) {
            const long lo = long(Bits * k), word = long(64 * w);
            if (word + 64 <= lo || word >= lo + long(Bits)) continue;
            const long sh = word - lo;
            r[k] |= sh >= 0 ? x[w] << sh : x[w] >> -sh;
        }
        r[k] &= (uint64_t{1} << Bits) - 1;
    }
    return r;
}

// -m^-1 mod 2^64 for odd m (Newton iteration: each step doubles the correct bits).
constexpr uint64_t neg_inv64(uint64_t m) noexcept {
    uint64_t inv = 1;
    for (int i = 0; i < 7; ++i) inv *= 2 - m * inv;
    return 0 - inv;
}

// (a + b) mod p for a, b < p; p must leave the top bit of its top limb free.
// The portable reference; add_mod below picks the fastest path.
template <size_t N>
constexpr limbs<N> add_mod_portable(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
    limbs<N> r = a;
    add_to(r, b);
    limbs<N> s = r;
    if (sub_from(s, p) == 0) return s;
    return r;
}

template <size_t N>
constexpr limbs<N> sub_mod_portable(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
    limbs<N> r = a;
    if (sub_from(r, b)) add_to(r, p);
    return r;
}

#if defined(__x86_64__)
// GCC spells the subtract-with-borrow builtin __builtin_ia32_sbb_u64, clang
// __builtin_ia32_subborrow_u64 (same operands, both compile to sbb).
#if defined(__clang__)
#define C2LAB_SBB_U64 __builtin_ia32_subborrow_u64
#else
#define C2LAB_SBB_U64 __builtin_ia32_sbb_u64
#endif
// Branch-free carry chains through the adc/sbb intrinsics: in a small function GCC compiles
// each loop to one straight adc (or sbb) chain; bench_ff ff/fp_add went from 8.0 ns (the
// __int128 loops above) to 5.6 ns on the 2.6 GHz Xeon of our CI machine. Inlined into large
// tower functions GCC spills the carry between limbs, hence the asm blocks of mont_mul.hpp.
template <size_t N>
inline limbs<N> add_mod_x86(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
    limbs<N> r, s;
    unsigned char c = 0;
    unsigned long long w;
    for (size_t i = 0; i < N; ++i) {
        c = __builtin_ia32_addcarryx_u64(c, a[i], b[i], &w);
        r[i] = w;
    }
    c = 0;
    for (size_t i = 0; i < N; ++i) {
        c = C2LAB_SBB_U64(c, r[i], p[i], &w);
        s[i] = w;
    }
    // borrow: r < p, keep r. Selected by cmov: GCC turns a ternary into an unpredictable
    // branch and a mask-and-or into vector code through the stack (store-forwarding stalls).
    const uint64_t keep_r = c;
    for (size_t i = 0; i < N; ++i)
        __asm__("test %[k], %[k]\n\tcmovnz %[r], %[s]" : [s] "+r"(s[i]) : [r] "r"(r[i]), [k] "r"(keep_r) : "cc");
    return s;
}

template <size_t N>
inline limbs<N> sub_mod_x86(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
    limbs<N> r;
    unsigned char c = 0;
    unsigned long long w;
    for (size_t i = 0; i < N; ++i) {
        c = C2LAB_SBB_U64(c, a[i], b[i], &w);
        r[i] = w;
    }
    const uint64_t add_p = 0 - static_cast<uint64_t>(c);  // borrow: add p back
    c = 0;
    for (size_t i = 0; i < N; ++i) {
        c = __builtin_ia32_addcarryx_u64(c, r[i], p[i] & add_p, &w);
        r[i] = w;
    }
    return r;
}
#endif

template <size_t N>
constexpr limbs<N> add_mod(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
#if defined(__x86_64__)
    if (!std::is_constant_evaluated()) return add_mod_x86(a, b, p);
#endif
    return add_mod_portable(a, b, p);
}

template <size_t N>
constexpr limbs<N> sub_mod(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) noexcept {
#if defined(__x86_64__)
    if (!std::is_constant_evaluated()) return sub_mod_x86(a, b, p);
#endif
    return sub_mod_portable(a, b, p);
}

// Portable Montgomery multiplication a * b / 2^(64N) mod p (CIOS, Koc et al. 1996),
// for a, b < p < 2^(64N - 1) (the "no-carry" variant: the accumulator never needs
// an extra limb). Cost: 2N^2 64x64 multiplications. This is the reference for the
// assembly path in mont_mul_x86_64.S.
template <size_t N>
constexpr limbs<N> mont_mul_portable(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p,
                                     uint64_t n0) noexcept {
    limbs<N> t{};
    for (size_t i = 0; i < N; ++i) {
        // t += a * b[i]
        uint64_t carry = 0;
        for (size_t j = 0; j < N; ++j) {
            u128 s = static_cast<u128>(a[j]) * b[i] + t[j] + carry;
            t[j] = static_cast<uint64_t>(s);
            carry = static_cast<uint64_t>(s >> 64);
        }
        uint64_t top = carry;
        // t = (t + m p) / 2^64
        uint64_t m = t[0] * n0;
        u128 s = static_cast<u128>(m) * p[0] + t[0];
        carry = static_cast<uint64_t>(s >> 64);
        for (size_t j = 1; j < N; ++j) {
            s = static_cast<u128>(m) * p[j] + t[j] + carry;
            t[j - 1] = static_cast<uint64_t>(s);
            carry = static_cast<uint64_t>(s >> 64);
        }
        t[N - 1] = top + carry;
    }
    limbs<N> r = t;
    if (sub_from(r, p) == 0) return r;
    return t;
}

}  // namespace c2lab::ff

namespace c2lab::ff {

// a / d for a small divisor d that divides a exactly or not (the remainder is dropped).
template <size_t N>
constexpr limbs<N> div_small(const limbs<N>& a, uint64_t d) noexcept {
    limbs<N> q{};
    u128 rem = 0;
    for (size_t i = N; i-- > 0;) {
        u128 cur = (rem << 64) | a[i];
        q[i] = static_cast<uint64_t>(cur / d);
        rem = cur % d;
    }
    return q;
}

}  // namespace c2lab::ff

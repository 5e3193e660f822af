// The AVX2 batch products (see avx2_batch.hpp): conversions between 4 elements of 64-bit limbs
// and 4-lane radix-2^29 vectors, around the generated kernels.
#include "ff/avx2_batch.hpp"

#if defined(C2LAB_HAVE_X86_ASM)

#include <immintrin.h>

#include <array>
#include <cstdint>

extern "C" {
// r = (a b + q p) / 2^(29 n), limbs in [n][4] arrays (lib/ff/mont_mul_avx2_x86_64.S).
void c2lab_mont_mul_avx2x4_14(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* k);
void c2lab_mont_mul_avx2x4_9(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* k);
}

namespace c2lab::ff::detail {
namespace {

constexpr uint64_t mask29 = (uint64_t{1} << 29) - 1;

template <class F>
struct radix29 {
    static constexpr size_t n64 = F::n_limbs;
    static constexpr size_t n29 = (64 * n64 + 28) / 29;  // R' = 2^(29 n29) >= R
    static constexpr unsigned shift = static_cast<unsigned>(29 * n29 - 64 * n64);
    static_assert(F::bits + shift <= 29 * n29, "a * 2^s must fit in the radix-2^29 limbs");
    // The kernel's constants: p's limbs, -p^-1 mod 2^29 and the mask, each in 4 lanes.
    struct alignas(32) consts_t {
        uint64_t v[n29 + 2][4];
    };
    static constexpr consts_t consts = [] {
        consts_t c{};
        for (size_t k = 0; k < n29; ++k) {
            uint64_t limb = 0;
            for (size_t w = 0; w < n64; ++w) {
                const long lo = long(29 * k), word = long(64 * w);
                if (word + 64 <= lo || word >= lo + 29) continue;
                const long sh = word - lo;
                limb |= sh >= 0 ? F::modulus[w] << sh : F::modulus[w] >> -sh;
            }
            for (auto& lane : c.v[k]) lane = limb & mask29;
        }
        for (auto& lane : c.v[n29]) lane = F::n0 & mask29;
        for (auto& lane : c.v[n29 + 1]) lane = mask29;
        return c;
    }();
};
static_assert(radix29<fp>::n29 == 14 && radix29<fp>::shift == 22);
static_assert(radix29<fr>::n29 == 9 && radix29<fr>::shift == 5);

template <size_t N>
void kernel(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* k) noexcept {
    if constexpr (N == 14) c2lab_mont_mul_avx2x4_14(r, a, b, k);
    else c2lab_mont_mul_avx2x4_9(r, a, b, k);
}

// 4 elements of N64 limbs (element e at x + N64 e) to N64 vectors (limb j of element e in lane e
// of v[j]): 4x4 transposes in registers, and for limbs 4 and 5 (Fp) one of two 128-bit halves.
template <size_t N64>
inline void load_soa(const uint64_t* x, __m256i* v) noexcept {
    auto ld = [&](size_t e, size_t j) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + N64 * e + j)); };
    const __m256i r0 = ld(0, 0), r1 = ld(1, 0), r2 = ld(2, 0), r3 = ld(3, 0);
    const __m256i t0 = _mm256_unpacklo_epi64(r0, r1), t1 = _mm256_unpackhi_epi64(r0, r1);
    const __m256i t2 = _mm256_unpacklo_epi64(r2, r3), t3 = _mm256_unpackhi_epi64(r2, r3);
    v[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    v[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    v[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    v[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
    if constexpr (N64 == 6) {
        auto ld2 = [&](size_t e) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 6 * e + 4)); };
        const __m256i h01 = _mm256_set_m128i(ld2(1), ld2(0)), h23 = _mm256_set_m128i(ld2(3), ld2(2));
        // [e0.4 e2.4 e1.4 e3.4] and [e0.5 e2.5 e1.5 e3.5], lanes 1 and 2 swapped back.
        v[4] = _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(h01, h23), 0xd8);
        v[5] = _mm256_permute4x64_epi64(_mm256_unpackhi_epi64(h01, h23), 0xd8);
    } else {
        static_assert(N64 == 4);
    }
}

// The inverse of load_soa.
template <size_t N64>
inline void store_soa(uint64_t* x, const __m256i* v) noexcept {
    auto st = [&](size_t e, size_t j, __m256i y) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(x + N64 * e + j), y); };
    const __m256i t0 = _mm256_unpacklo_epi64(v[0], v[1]), t1 = _mm256_unpackhi_epi64(v[0], v[1]);
    const __m256i t2 = _mm256_unpacklo_epi64(v[2], v[3]), t3 = _mm256_unpackhi_epi64(v[2], v[3]);
    const __m256i r0 = _mm256_permute2x128_si256(t0, t2, 0x20), r1 = _mm256_permute2x128_si256(t1, t3, 0x20);
    const __m256i r2 = _mm256_permute2x128_si256(t0, t2, 0x31), r3 = _mm256_permute2x128_si256(t1, t3, 0x31);
    if constexpr (N64 == 6) {
        // Limbs 4 and 5 first: element e's 16 bytes at +4 would be overwritten by element e+1's
        // 32-byte store of limbs 0..3 otherwise in the wrong order; stored after, they are not.
        st(0, 0, r0), st(1, 0, r1), st(2, 0, r2), st(3, 0, r3);
        const __m256i lo = _mm256_unpacklo_epi64(v[4], v[5]), hi = _mm256_unpackhi_epi64(v[4], v[5]);
        // lo = [e0.4 e0.5 e2.4 e2.5], hi = [e1.4 e1.5 e3.4 e3.5]
        auto st2 = [&](size_t e, __m128i y) { _mm_storeu_si128(reinterpret_cast<__m128i*>(x + 6 * e + 4), y); };
        st2(0, _mm256_castsi256_si128(lo)), st2(2, _mm256_extracti128_si256(lo, 1));
        st2(1, _mm256_castsi256_si128(hi)), st2(3, _mm256_extracti128_si256(hi, 1));
    } else {
        static_assert(N64 == 4);
        st(0, 0, r0), st(1, 0, r1), st(2, 0, r2), st(3, 0, r3);
    }
}

// Radix 2^64 -> 2^29 of x 2^S: limb k holds bits [29k - S, 29k - S + 29) of x. The loops unroll
// (the trip counts are constants), so every shift count is an immediate.
template <size_t N64, size_t N29, unsigned S>
inline void to_radix29(const __m256i* x, uint64_t (*r)[4]) noexcept {
    const __m256i m = _mm256_set1_epi64x(static_cast<long long>(mask29));
#pragma GCC unroll 16
    for (size_t k = 0; k < N29; ++k) {
        const long lo = long(29 * k) - long(S);
        __m256i v = _mm256_setzero_si256();
        if (lo < 0) {
            v = _mm256_slli_epi64(x[0], int(-lo));
        } else if (size_t(lo) / 64 < N64) {
            const size_t w = size_t(lo) / 64;
            const int b = int(lo % 64);
            v = _mm256_srli_epi64(x[w], b);
            if (b > 64 - 29 && w + 1 < N64) v = _mm256_or_si256(v, _mm256_slli_epi64(x[w + 1], 64 - b));
        }
        _mm256_store_si256(reinterpret_cast<__m256i*>(r[k]), _mm256_and_si256(v, m));
    }
}

// Radix 2^29 (limbs below 2^29, the value below 2^(64 N64)) -> 2^64.
template <size_t N64, size_t N29>
inline void to_radix64(const __m256i* t, __m256i* x) noexcept {
#pragma GCC unroll 8
    for (size_t w = 0; w < N64; ++w) {
        __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 16
        for (size_t k = 0; k < N29; ++k) {
            const long lo = long(29 * k), word = long(64 * w);
            if (lo + 29 <= word || lo >= word + 64) continue;
            acc = _mm256_or_si256(acc, lo >= word ? _mm256_slli_epi64(t[k], int(lo - word))
                                                  : _mm256_srli_epi64(t[k], int(word - lo)));
        }
        x[w] = acc;
    }
}

// t mod p for t < 2p in normalised limbs: t - p with a borrow chain, kept where it did not borrow.
template <class F>
inline void reduce_once(const uint64_t (*t)[4], __m256i* r) noexcept {
    constexpr size_t N = radix29<F>::n29;
    const auto& p = radix29<F>::consts.v;
    const __m256i m = _mm256_set1_epi64x(static_cast<long long>(mask29));
    __m256i tv[N], d[N], borrow = _mm256_setzero_si256();
    for (size_t k = 0; k < N; ++k) {
        tv[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(t[k]));
        const __m256i dk = _mm256_sub_epi64(_mm256_sub_epi64(tv[k], _mm256_load_si256(reinterpret_cast<const __m256i*>(p[k]))), borrow);
        borrow = _mm256_srli_epi64(dk, 63);
        d[k] = _mm256_and_si256(dk, m);
    }
    const __m256i keep_t = _mm256_sub_epi64(_mm256_setzero_si256(), borrow);  // all ones where t < p
    for (size_t k = 0; k < N; ++k) r[k] = _mm256_blendv_epi8(d[k], tv[k], keep_t);
}

}  // namespace

template <class F, bool Square>
void mul_chunks_avx2(F* out, const F* a, const F* b, size_t chunks) noexcept {
    using R = radix29<F>;
    constexpr size_t N64 = R::n64, N29 = R::n29;
    alignas(32) uint64_t av[N29][4], bv[N29][4], tv[N29][4];
    for (size_t c = 0; c < chunks; ++c) {
        __m256i x[N64];
        load_soa<N64>(a[4 * c].mont.data(), x);
        to_radix29<N64, N29, R::shift>(x, av);
        if constexpr (!Square) load_soa<N64>(b[4 * c].mont.data(), x);
        to_radix29<N64, N29, 0>(x, bv);
        kernel<N29>(&tv[0][0], &av[0][0], &bv[0][0], &R::consts.v[0][0]);
        __m256i r[N29];
        reduce_once<F>(tv, r);
        to_radix64<N64, N29>(r, x);
        store_soa<N64>(out[4 * c].mont.data(), x);
    }
}

template void mul_chunks_avx2<fp, false>(fp*, const fp*, const fp*, size_t) noexcept;
template void mul_chunks_avx2<fp, true>(fp*, const fp*, const fp*, size_t) noexcept;
template void mul_chunks_avx2<fr, false>(fr*, const fr*, const fr*, size_t) noexcept;
template void mul_chunks_avx2<fr, true>(fr*, const fr*, const fr*, size_t) noexcept;

}  // namespace c2lab::ff::detail

#endif  // C2LAB_HAVE_X86_ASM

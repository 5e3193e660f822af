// AVX-512 IFMA batch multiplication of Fp and Fr (see ifma.hpp for the API).
//
// Layout: structure of arrays in radix 2^52. A chunk of 8 elements is loaded and transposed
// in registers (limb j of the 8 elements in one zmm, element e in lane e), converted to N52
// limbs of 52 bits (Fp: 381 bits in 8 limbs, 416 bits; Fr: 255 bits in 5 limbs, 260 bits) by
// shifts and masks, multiplied with vpmadd52luq / vpmadd52huq (the low / high 52 bits of a
// 52x52-bit product added to a 64-bit lane), reduced, converted back to 64-bit limbs,
// transposed back and stored. Cost per chunk: 4 N52^2 + N52 madds (Fp 264, Fr 105). GCC 12
// emits 540 instructions per Fp chunk, 264 of them madds, without spills; 512-bit operations
// issue on two ports here, so the rest (conversions, transposes, the final carry chain and
// subtraction) costs about as much as the madds.
//
// Montgomery multiplication in radix 2^52 (operand scanning, lazy carries): for each limb
// b_i, t += a * b_i; m = t_0 * (-p^-1) mod 2^52; t += m * p; t_1 += t_0 >> 52; shift t down
// by one limb. After N52 rounds t = (a b + M p) / R' with R' = 2^(52 N52). The limbs are
// never normalised inside the loop: each of the 4 products added to a limb per round is
// below 2^52, so a limb stays below 4 N52 2^52 + 2^13 < 2^58 (Fp), far from 2^64.
//
// From c2lab's R = 2^(64 N64) to R' = 2^(52 N52), for free: the result must be a b / R
// (operator* of mont_field), and R' = R * 2^s with s = 52 N52 - 64 N64 (Fp: 416 - 384 = 32,
// Fr: 260 - 256 = 4). Instead of one extra Montgomery product by a precomputed constant (a
// second multiplication per element), operand a is taken as a' = a * 2^s, unreduced: a < p <
// 2^bits and bits + s <= 52 N52 (Fp: 381 + 32 = 413 <= 416, Fr: 255 + 4 = 259 <= 260), so a'
// still fits in N52 limbs, and the shift is only a different choice of shift counts in the
// 64 -> 52 conversion (the same cost as converting a itself). Then t = (a' b + M p) / R' <
// 2^(bits+s) p / R' + p <= 2p, and a b 2^s / R' = a b / R. One conditional subtraction of p
// makes the result fully reduced and equal to the scalar multiply bit for bit. Squaring
// takes a'' = a * 2^(s/2) for both operands: a''^2 = a^2 2^s, and a''^2 / R' < 2^(2 bits + s
// - 52 N52) (Fp 2^378, Fr 2^254) < p keeps t < 2p.
//
// Butterflies (butterfly_batch, for the NTT): v = w q as above (q taken as q * 2^s), then
// p + v and p + (p - v) in lazy limbs, each brought below p by the same carry chain and one
// conditional subtraction as the product.
#include "ff/ifma.hpp"

#include <algorithm>
#include <bit>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <tbb/cache_aligned_allocator.h>

#include "core/cpu.hpp"
#include "core/error.hpp"
#include "ff/avx2_batch.hpp"
#include "ff/batch_chunk.hpp"
#include "ff/in_place.hpp"
#include "ff/limbs.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define C2LAB_IFMA_KERNELS 1
// GCC 12 warns "'__Y' may be used uninitialized" inside immintrin.h for the intrinsics that
// start from _mm512_undefined_epi32() (shifts, permutes): a false positive, GCC bug 105593
// (reported as "is used uninitialized" where the kernel is inlined into a loop).
#if !defined(__clang__)  // clang has no -Wmaybe-uninitialized (and no such false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#endif

namespace c2lab::ff {
namespace {

// The number of radix-2^52 limbs for a field of `bits` bits held in n64 64-bit limbs, and
// the shift s that turns R = 2^(64 n64) into R' = 2^(52 n52).
template <class F>
struct radix52 {
    static constexpr size_t n64 = F::n_limbs;
    static constexpr size_t n52 = (64 * n64 + 51) / 52;
    static constexpr unsigned shift = static_cast<unsigned>(52 * n52 - 64 * n64);
    static_assert(F::bits + shift <= 52 * n52, "a * 2^s must fit in the radix-2^52 limbs");
    static_assert(shift % 2 == 0, "squaring takes a * 2^(s/2) for both operands");
    static constexpr uint64_t mask = (uint64_t{1} << 52) - 1;

    // p in radix 2^52.
    static constexpr std::array<uint64_t, n52> modulus = to_radix<52, n52>(F::modulus);
    // p 2^S in radix 2^52, normalised (the lazy NTT stages' settlement subtracts 16p, 8p, 4p, 2p
    // and p; their sums add 2p). Only where p 2^S fits the N52 limbs.
    template <unsigned S>
    static constexpr std::array<uint64_t, n52> modulus_shl = [] {
        static_assert(S < 52);
        std::array<uint64_t, n52> r{};
        for (size_t k = 0; k < n52; ++k)
            r[k] = ((modulus[k] << S) | (k == 0 || S == 0 ? 0 : modulus[k - 1] >> (52 - S))) & mask;
        if ((modulus[n52 - 1] << S) >> 52 != 0) throw "p 2^S does not fit the radix-2^52 limbs";
        return r;
    }();
    // -p^-1 mod 2^52 (the low 52 bits of -p^-1 mod 2^64).
    static constexpr uint64_t n0 = F::n0 & mask;
};

static_assert(radix52<fp>::n52 == 8 && radix52<fp>::shift == 32);
// w 2^s mod p by s doublings.
template <class F>
F doubled(F w, unsigned s) noexcept {
    for (unsigned i = 0; i < s; ++i) w = w + w;
    return w;
}
// w 2^s mod p (s = 52 N52 - 64 N64): the twiddle the IFMA path's lazy NTT stages take (see
// butterfly_stages_ifma).
template <class F>
F twiddle_form_of(F w) noexcept {
    return doubled(w, radix52<F>::shift);
}

static_assert(radix52<fr>::n52 == 5 && radix52<fr>::shift == 4);

template <class F>
void check_spans(std::span<F> out, std::span<const F> a, std::span<const F> b, const char* what) {
    if (a.size() != out.size() || b.size() != out.size())
        throw error(errc::bad_input, std::string(what) + ": spans of " + std::to_string(out.size()) + ", " +
                                         std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                                         " elements; all three must have the same length");
    // out may be a or b itself, but not overlap either at an offset.
    auto overlaps_shifted = [&](std::span<const F> in) {
        if (in.data() == out.data() || in.empty()) return false;
        std::less<const F*> lt;
        const F* o = out.data();
        return lt(o, in.data() + in.size()) && lt(in.data(), o + out.size());
    };
    if (overlaps_shifted(a) || overlaps_shifted(b))
        throw error(errc::bad_input, std::string(what) +
                                         ": out overlaps an input at an offset (only out == a or out == b is allowed)");
}

template <class F>
void mul_scalar(F* out, const F* a, const F* b, size_t n) noexcept {
    for (size_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
}

template <class F>
void square_scalar(F* out, const F* a, size_t n) noexcept {
    for (size_t i = 0; i < n; ++i) out[i] = a[i].square();
}

#if defined(C2LAB_IFMA_KERNELS)

#define C2LAB_IFMA_TARGET __attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw"), always_inline)) inline

// Transposes between 8 elements of N64 limbs in memory (element e, limb j at qword N64 e + j)
// and N64 vectors (limb j of element e in lane e of v[j]), for even N64 <= 6, in registers:
// each half of the chunk (4 elements, N64/2 vectors) goes to N64/2 vectors holding a pair of
// limbs ([limb 2i of e0..e3 | limb 2i+1 of e0..e3]) with one two-source permute (plus one
// masked one-source permute for a third vector), then a 128-bit lane shuffle joins the halves.
// Fp: 18 shuffle-port operations each way instead of 12 gathers in and 6 scatters out. With
// gathers and scatters, sbs harness n = 1024 on the 2-core Xeon: Fr 4.7 ns per multiplication,
// transposes 4.0-4.4 ns; Fp 10.4-10.5 ns either way (within the noise). A buffer and scalar
// copies instead of the scatters was slower (Fp 10.2 -> 13.4 ns, Fr 5.1 -> 8.1 ns).
template <size_t N64>
struct transpose_tables {
    static constexpr size_t regs = N64 / 2;  // vectors per half, and limb pairs
    static_assert(N64 % 2 == 0 && N64 <= 6);
    // load: lane l of pair i takes element l % 4, limb 2i + l / 4 at pos = N64 e + j of the half
    static constexpr std::array<std::array<uint64_t, 8>, regs> load_pos = [] {
        std::array<std::array<uint64_t, 8>, regs> t{};
        for (size_t i = 0; i < regs; ++i)
            for (size_t l = 0; l < 8; ++l) t[i][l] = N64 * (l % 4) + 2 * i + l / 4;
        return t;
    }();
    // store: lane l of output vector r (pos = 8r + l: element pos / N64, limb pos % N64) comes
    // from pair (limb / 2), lane (limb % 2) * 4 + element; here as pair * 8 + lane.
    static constexpr std::array<std::array<uint64_t, 8>, regs> store_src = [] {
        std::array<std::array<uint64_t, 8>, regs> t{};
        for (size_t r = 0; r < regs; ++r)
            for (size_t l = 0; l < 8; ++l) {
                const size_t pos = 8 * r + l, e = pos / N64, j = pos % N64;
                t[r][l] = (j / 2) * 8 + (j % 2) * 4 + e;
            }
        return t;
    }();
};

// The 8 entries of a compile-time table as a vector, and the mask of entries >= 16.
C2LAB_IFMA_TARGET __m512i vec_of(const std::array<uint64_t, 8>& t) {
    return _mm512_loadu_si512(t.data());
}
C2LAB_IFMA_TARGET __mmask8 mask_ge16(const std::array<uint64_t, 8>& t) {
    unsigned m = 0;
    for (size_t l = 0; l < 8; ++l) m |= unsigned(t[l] >= 16) << l;
    return static_cast<__mmask8>(m);
}

// Loads limb j of the 8 elements at x (each N64 limbs) into one vector per limb.
template <size_t N64>
C2LAB_IFMA_TARGET void load_soa(const uint64_t* x, __m512i (&v)[N64]) {
    using T = transpose_tables<N64>;
    constexpr size_t R = T::regs;
    __m512i pairs[2][R];
#pragma GCC unroll 2
    for (size_t h = 0; h < 2; ++h) {
        __m512i l[R];
#pragma GCC unroll 4
        for (size_t r = 0; r < R; ++r) l[r] = _mm512_loadu_si512(x + 4 * N64 * h + 8 * r);
#pragma GCC unroll 4
        for (size_t i = 0; i < R; ++i) {
            const __m512i idx = vec_of(T::load_pos[i]);  // only the low 4 bits (and bit 3 of the third) count
            pairs[h][i] = _mm512_permutex2var_epi64(l[0], idx, l[1]);
            if constexpr (R == 3) pairs[h][i] = _mm512_mask_permutexvar_epi64(pairs[h][i], mask_ge16(T::load_pos[i]), idx, l[2]);
        }
    }
#pragma GCC unroll 4
    for (size_t i = 0; i < R; ++i) {
        v[2 * i] = _mm512_shuffle_i64x2(pairs[0][i], pairs[1][i], 0x44);      // 128-bit lanes 0, 1 of each
        v[2 * i + 1] = _mm512_shuffle_i64x2(pairs[0][i], pairs[1][i], 0xee);  // lanes 2, 3 of each
    }
}

// The inverse of load_soa: limb j of element e from lane e of v[j] back to memory.
template <size_t N64>
C2LAB_IFMA_TARGET void store_soa(uint64_t* x, const __m512i (&v)[N64]) {
    using T = transpose_tables<N64>;
    constexpr size_t R = T::regs;
    __m512i pairs[2][R];
#pragma GCC unroll 4
    for (size_t i = 0; i < R; ++i) {
        pairs[0][i] = _mm512_shuffle_i64x2(v[2 * i], v[2 * i + 1], 0x44);
        pairs[1][i] = _mm512_shuffle_i64x2(v[2 * i], v[2 * i + 1], 0xee);
    }
#pragma GCC unroll 2
    for (size_t h = 0; h < 2; ++h)
#pragma GCC unroll 4
        for (size_t r = 0; r < R; ++r) {
            const __m512i idx = vec_of(T::store_src[r]);
            __m512i o = _mm512_permutex2var_epi64(pairs[h][0], idx, pairs[h][1]);
            if constexpr (R == 3) o = _mm512_mask_permutexvar_epi64(o, mask_ge16(T::store_src[r]), idx, pairs[h][2]);
            _mm512_storeu_si512(x + 4 * N64 * h + 8 * r, o);
        }
}

// Radix 2^64 -> 2^52 of x * 2^S (x < 2^(52 N52 - S)): limb k holds bits [52k - S, 52k - S + 52) of x.
template <size_t N64, size_t N52, unsigned S>
C2LAB_IFMA_TARGET void to_radix52(const __m512i (&x)[N64], __m512i (&r)[N52]) {
    const __m512i mask = _mm512_set1_epi64((uint64_t{1} << 52) - 1);
#pragma GCC unroll 16
    for (size_t k = 0; k < N52; ++k) {
        __m512i v = _mm512_setzero_si512();
#pragma GCC unroll 16
        for (size_t w = 0; w < N64; ++w) {
            const long lo = long(52 * k) - long(S), word = long(64 * w);
            if (word + 64 <= lo || word >= lo + 52) continue;
            const long sh = word - lo;
            v = _mm512_or_si512(v, sh >= 0 ? _mm512_slli_epi64(x[w], unsigned(sh)) : _mm512_srli_epi64(x[w], unsigned(-sh)));
        }
        r[k] = _mm512_and_si512(v, mask);
    }
}

// Radix 2^52 (normalised limbs) -> 2^64.
template <size_t N64, size_t N52>
C2LAB_IFMA_TARGET void to_radix64(const __m512i (&t)[N52], __m512i (&x)[N64]) {
#pragma GCC unroll 16
    for (size_t w = 0; w < N64; ++w) {
        __m512i v = _mm512_setzero_si512();
#pragma GCC unroll 16
        for (size_t k = 0; k < N52; ++k) {
            const long lo = long(52 * k), word = long(64 * w);
            if (lo + 52 <= word || lo >= word + 64) continue;
            const long sh = lo - word;
            v = _mm512_or_si512(v, sh >= 0 ? _mm512_slli_epi64(t[k], unsigned(sh)) : _mm512_srli_epi64(t[k], unsigned(-sh)));
        }
        x[w] = v;
    }
}

// Lazy limbs to normalised ones: every limb but the top one brought into [0, 2^52) by an
// arithmetic carry chain (limbs of up to 63 bits, signed, as p + a - b leaves them); for a value
// in [0, 2^(52 N52)) the top limb then lands in [0, 2^52) too. 3 (N52 - 1) operations.
template <class F>
C2LAB_IFMA_TARGET void normalize(__m512i* t) {
    constexpr size_t N = radix52<F>::n52;
    const __m512i mask = _mm512_set1_epi64(radix52<F>::mask);
#pragma GCC unroll 16
    for (size_t j = 0; j + 1 < N; ++j) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srai_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
}

// r = t - m where t >= m, else t; t normalised, m a constant in normalised limbs (m_limbs).
// d = t - m with a borrow chain (borrow 0 or -1 from an arithmetic shift). 4 N52 + 1 + N52
// operations.
template <size_t N>
C2LAB_IFMA_TARGET void subtract_if_at_least(const __m512i* t, const std::array<uint64_t, N>& m_limbs, __m512i* r) {
    const __m512i mask = _mm512_set1_epi64((uint64_t{1} << 52) - 1);
    const __m512i zero = _mm512_setzero_si512();
    __m512i d[N];
    __m512i borrow = zero;
#pragma GCC unroll 16
    for (size_t j = 0; j < N; ++j) {
        __m512i v = _mm512_add_epi64(_mm512_sub_epi64(t[j], _mm512_set1_epi64(m_limbs[j])), borrow);
        borrow = _mm512_srai_epi64(v, 52);
        d[j] = _mm512_and_si512(v, mask);
    }
    const __mmask8 keep_t = _mm512_cmplt_epi64_mask(borrow, zero);
#pragma GCC unroll 16
    for (size_t j = 0; j < N; ++j) r[j] = _mm512_mask_blend_epi64(keep_t, d[j], t[j]);
}

// r = t mod p for 0 <= t < 2p given in N52 lazy limbs of up to 63 bits, signed (as p + a - b
// leaves them): normalised, then t - p where that does not borrow. Fully reduced, 52-bit limbs.
template <class F>
C2LAB_IFMA_TARGET void reduce_once(__m512i* t, __m512i* r) {  // t[0, n52), r[0, n52); r may be t
    normalize<F>(t);
    subtract_if_at_least(t, radix52<F>::modulus, r);
}

// t_k = a_k b_k / 2^(52 N52) mod p, lazily: t_k < a_k b_k / 2^(52 N52) + p (below 2p where
// a_k b_k < 2^(52 N52) p, see the top of the file), its limbs not normalised (each below
// 4 N52 2^52 + 2^13, not negative); a and b normalised. For K independent chunks at once: their
// instructions interleave, so one chunk's madd latency chain (m depends on t_0, t_0 on m) hides
// behind the other's products.
template <class F, size_t K>
C2LAB_IFMA_TARGET void mont_mul_radix52_lazy(const __m512i (&a)[K][radix52<F>::n52],
                                             const __m512i (&b)[K][radix52<F>::n52], __m512i (&r)[K][radix52<F>::n52]) {
    using R = radix52<F>;
    constexpr size_t N = R::n52;
    const __m512i n0 = _mm512_set1_epi64(R::n0);
    const __m512i zero = _mm512_setzero_si512();
    __m512i t[K][N + 1];
#pragma GCC unroll 16
    for (size_t k = 0; k < K; ++k)
#pragma GCC unroll 16
        for (size_t j = 0; j <= N; ++j) t[k][j] = zero;
#pragma GCC unroll 16
    for (size_t i = 0; i < N; ++i) {
        __m512i m[K];
#pragma GCC unroll 16
        for (size_t k = 0; k < K; ++k) {
            t[k][0] = _mm512_madd52lo_epu64(t[k][0], a[k][0], b[k][i]);
            m[k] = _mm512_madd52lo_epu64(zero, t[k][0], n0);
        }
#pragma GCC unroll 16
        for (size_t j = 1; j < N; ++j)
#pragma GCC unroll 16
            for (size_t k = 0; k < K; ++k) t[k][j] = _mm512_madd52lo_epu64(t[k][j], a[k][j], b[k][i]);
#pragma GCC unroll 16
        for (size_t j = 0; j < N; ++j)
#pragma GCC unroll 16
            for (size_t k = 0; k < K; ++k) t[k][j + 1] = _mm512_madd52hi_epu64(t[k][j + 1], a[k][j], b[k][i]);
#pragma GCC unroll 16
        for (size_t j = 0; j < N; ++j)
#pragma GCC unroll 16
            for (size_t k = 0; k < K; ++k)
                t[k][j] = _mm512_madd52lo_epu64(t[k][j], m[k], _mm512_set1_epi64(R::modulus[j]));
#pragma GCC unroll 16
        for (size_t j = 0; j < N; ++j)
#pragma GCC unroll 16
            for (size_t k = 0; k < K; ++k)
                t[k][j + 1] = _mm512_madd52hi_epu64(t[k][j + 1], m[k], _mm512_set1_epi64(R::modulus[j]));
#pragma GCC unroll 16
        for (size_t k = 0; k < K; ++k) {
            // t_0 is now a multiple of 2^52: carry its high part and drop it.
            t[k][1] = _mm512_add_epi64(t[k][1], _mm512_srli_epi64(t[k][0], 52));
#pragma GCC unroll 16
            for (size_t j = 0; j < N; ++j) t[k][j] = t[k][j + 1];
            t[k][N] = zero;
        }
    }
#pragma GCC unroll 16
    for (size_t k = 0; k < K; ++k)
#pragma GCC unroll 16
        for (size_t j = 0; j < N; ++j) r[k][j] = t[k][j];
}

// r_k = a_k b_k / 2^(52 N52) mod p, fully reduced, for a_k b_k < 2^(52 N52) p.
template <class F, size_t K>
C2LAB_IFMA_TARGET void mont_mul_radix52(const __m512i (&a)[K][radix52<F>::n52], const __m512i (&b)[K][radix52<F>::n52],
                                        __m512i (&r)[K][radix52<F>::n52]) {
    __m512i t[K][radix52<F>::n52];
    mont_mul_radix52_lazy<F, K>(a, b, t);
#pragma GCC unroll 16
    for (size_t k = 0; k < K; ++k) reduce_once<F>(t[k], r[k]);
}

// K chunks of 8 elements: out = a * b (Square: b is ignored, out = a^2).
template <class F, bool Square, size_t K>
C2LAB_IFMA_TARGET void mul_chunk_group(F* out, const F* a, const F* b) {
    using R = radix52<F>;
    constexpr size_t N64 = R::n64, N52 = R::n52;
    __m512i x[N64], a52[K][N52], b52[K][N52], t52[K][N52];
#pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) {
        load_soa<N64>(a[8 * k].mont.data(), x);
        if constexpr (Square) {
            to_radix52<N64, N52, R::shift / 2>(x, a52[k]);
            to_radix52<N64, N52, R::shift / 2>(x, b52[k]);
        } else {
            to_radix52<N64, N52, R::shift>(x, a52[k]);
            load_soa<N64>(b[8 * k].mont.data(), x);
            to_radix52<N64, N52, 0>(x, b52[k]);
        }
    }
    mont_mul_radix52<F, K>(a52, b52, t52);
#pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) {
        to_radix64<N64, N52>(t52[k], x);
        store_soa<N64>(out[8 * k].mont.data(), x);
    }
}

// Chunks interleaved per kernel call: 2 for Fr (5 limbs: two chunks fit the 32 zmm
// registers), 1 for Fp (8 limbs: two chunks spill). Measured on the 2-core Xeon (Sapphire
// Rapids class) with n = 1024: Fr 5.1-5.3 ns per multiplication with 1, 4.7-4.8 with 2; Fp
// 10.2 with 1, 10.4-10.5 with 2.
template <class F>
constexpr size_t ifma_ways = radix52<F>::n52 <= 5 ? 2 : 1;

// out[e] = a[e] * b[e] for `chunks` chunks of 8 elements (Square: b is ignored, out = a^2).
template <class F, bool Square>
__attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw"))) void mul_chunks_ifma(F* out, const F* a, const F* b,
                                                                                     size_t chunks) {
    size_t c = 0;
    for (; c + ifma_ways<F> <= chunks; c += ifma_ways<F>)
        mul_chunk_group<F, Square, ifma_ways<F>>(out + 8 * c, a + 8 * c, Square ? a + 8 * c : b + 8 * c);
    for (; c < chunks; ++c) mul_chunk_group<F, Square, 1>(out + 8 * c, a + 8 * c, Square ? a + 8 * c : b + 8 * c);
}

// The two halves of a butterfly from p and v = w q (both below p, normalised limbs): s = p + v
// and d = p + (p - v), each brought below p.
template <class F>
C2LAB_IFMA_TARGET void butterfly_sums(const __m512i* p, const __m512i* v, __m512i* s, __m512i* d) {
    using R = radix52<F>;
#pragma GCC unroll 16
    for (size_t j = 0; j < R::n52; ++j) {
        s[j] = _mm512_add_epi64(p[j], v[j]);                                                  // p + v < 2p
        d[j] = _mm512_sub_epi64(_mm512_add_epi64(p[j], _mm512_set1_epi64(R::modulus[j])), v[j]);  // in (0, 2p)
    }
    reduce_once<F>(s, s);
    reduce_once<F>(d, d);
}

// K chunks of 8 butterflies: (p, q) <- (p + w q, p - w q) mod the field's modulus.
template <class F, size_t K>
C2LAB_IFMA_TARGET void butterfly_group(F* p, F* q, const F* w) {
    using R = radix52<F>;
    constexpr size_t N64 = R::n64, N52 = R::n52;
    __m512i x[N64], p52[K][N52], q52[K][N52], w52[K][N52], v52[K][N52];
#pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) {
        load_soa<N64>(q[8 * k].mont.data(), x);
        to_radix52<N64, N52, R::shift>(x, q52[k]);
        load_soa<N64>(w[8 * k].mont.data(), x);
        to_radix52<N64, N52, 0>(x, w52[k]);
        load_soa<N64>(p[8 * k].mont.data(), x);
        to_radix52<N64, N52, 0>(x, p52[k]);
    }
    mont_mul_radix52<F, K>(q52, w52, v52);  // v = w q < p
#pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) {
        __m512i s[N52], d[N52];
        butterfly_sums<F>(p52[k], v52[k], s, d);
        to_radix64<N64, N52>(s, x);
        store_soa<N64>(p[8 * k].mont.data(), x);
        to_radix64<N64, N52>(d, x);
        store_soa<N64>(q[8 * k].mont.data(), x);
    }
}

template <class F>
__attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw"))) void butterfly_chunks_ifma(F* p, F* q, const F* w,
                                                                                          size_t chunks) {
    size_t c = 0;
    for (; c + ifma_ways<F> <= chunks; c += ifma_ways<F>) butterfly_group<F, ifma_ways<F>>(p + 8 * c, q + 8 * c, w + 8 * c);
    for (; c < chunks; ++c) butterfly_group<F, 1>(p + 8 * c, q + 8 * c, w + 8 * c);
}


// The NTT's stages with the values kept in radix 2^52 (butterfly_stages, butterfly_row_stages):
// a chunk (or a column tile) is converted once into a buffer of N52 vectors per 8 elements (limb j
// of elements 8b..8b+7 in vector N52 b + j), every stage runs on the buffer, and the values go
// back to radix 2^64 once.
//
// Between the stages the values are lazy (Harvey's butterflies without their corrections): a
// butterfly takes x and q below B p, normalises q's limbs (a madd reads 52 bits of a limb),
// multiplies it by the twiddle W without the final subtraction (t < q W / R' + p < 2p, as q <
// R' = 2^(52 N52) and W < p), and stores x + t and x + 2p - t, both below (B + 2) p, their limbs
// not normalised. From canonical inputs k stages leave values below (2k + 1) p. Fr's 260 bits
// hold 35 p, so up to lazy_stages = 15 stages run between two settlements (values below 31 p,
// normalised, then 16 p, 8 p, 4 p, 2 p and p subtracted where each does not borrow: canonical
// again, so every path gives the same bits). A limb grows by less than 2^57 + 2^53 a stage:
// below 2^61 after 15.
//
// The product divides by R' = 2^260 = 2^4 R (Fr). butterfly_batch takes q times 2^4 (a limb
// shift) to land on q w / R; a lazy q up to 31 p would not fit 260 bits shifted, so these stages
// take their twiddles in twiddle_form instead: W = w 2^4 mod p, precomputed.
//
// Per 8 butterflies (Fr): 105 madds and about 45 other vector operations, against 105 and about
// 160 with the product, the sum and the difference each fully reduced (512-bit operations issue
// on two ports on the Xeon, so the others cost about as much as the madds).
template <class F>
constexpr unsigned lazy_stages = 15;

// A lazy value below 2^(lazy_stages + 1) p = 32 p (normalised or not) to its canonical form.
template <class F>
C2LAB_IFMA_TARGET void settle(__m512i* t) {
    using R = radix52<F>;
    static_assert(lazy_stages<F> == 15, "the cascade below subtracts 16 p first: values below 32 p");
    normalize<F>(t);
    subtract_if_at_least(t, R::template modulus_shl<4>, t);
    subtract_if_at_least(t, R::template modulus_shl<3>, t);
    subtract_if_at_least(t, R::template modulus_shl<2>, t);
    subtract_if_at_least(t, R::template modulus_shl<1>, t);
    subtract_if_at_least(t, R::modulus, t);
}
static_assert((radix52<fr>::modulus[radix52<fr>::n52 - 1] << 5) >> 52 == 0,
              "32 p fits Fr's 5 limbs of 52 bits, so lazy values below 31 p do");

// 8 consecutive elements to / from their N52 radix-2^52 vectors at buf (64-byte aligned); the way
// back settles lazy values first.
template <class F>
C2LAB_IFMA_TARGET void to_buffer(const F* src, __m512i* buf) {
    using R = radix52<F>;
    __m512i x[R::n64], r[R::n52];
    load_soa<R::n64>(src[0].mont.data(), x);
    to_radix52<R::n64, R::n52, 0>(x, r);
#pragma GCC unroll 16
    for (size_t j = 0; j < R::n52; ++j) _mm512_store_si512(buf + j, r[j]);
}
template <class F>
C2LAB_IFMA_TARGET void from_buffer_settled(const __m512i* buf, F* dst) {
    using R = radix52<F>;
    __m512i x[R::n64], r[R::n52];
#pragma GCC unroll 16
    for (size_t j = 0; j < R::n52; ++j) r[j] = _mm512_load_si512(buf + j);
    settle<F>(r);
    to_radix64<R::n64, R::n52>(r, x);
    store_soa<R::n64>(dst[0].mont.data(), x);
}
// Every lazy value of the buffer (blocks of 8) settled in place.
template <class F>
C2LAB_IFMA_TARGET void settle_buffer(__m512i* buf, size_t blocks) {
    constexpr size_t N52 = radix52<F>::n52;
    for (size_t b = 0; b < blocks; ++b) {
        __m512i r[N52];
#pragma GCC unroll 16
        for (size_t j = 0; j < N52; ++j) r[j] = _mm512_load_si512(buf + N52 * b + j);
        settle<F>(r);
#pragma GCC unroll 16
        for (size_t j = 0; j < N52; ++j) _mm512_store_si512(buf + N52 * b + j, r[j]);
    }
}

// The two lazy halves of a butterfly from x and t = W q (t below 2p, limbs not negative):
// s = x + t and d = x + 2p - t, limb by limb.
template <class F>
C2LAB_IFMA_TARGET void lazy_sums(const __m512i* x, const __m512i* t, __m512i* s, __m512i* d) {
    using R = radix52<F>;
#pragma GCC unroll 16
    for (size_t j = 0; j < R::n52; ++j) {
        s[j] = _mm512_add_epi64(x[j], t[j]);
        d[j] = _mm512_sub_epi64(_mm512_add_epi64(x[j], _mm512_set1_epi64(R::template modulus_shl<1>[j])), t[j]);
    }
}

// K groups of 8 lazy butterflies on the buffer: (x_k, q_k) <- (x_k + W_k q_k, x_k + 2p - W_k q_k),
// each an address of N52 vectors; W_k in twiddle_form, normalised.
template <class F, size_t K>
C2LAB_IFMA_TARGET void butterfly_group_lazy(__m512i* const (&x)[K], __m512i* const (&q)[K],
                                            const __m512i* const (&w)[K]) {
    constexpr size_t N52 = radix52<F>::n52;
    __m512i q52[K][N52], w52[K][N52], t52[K][N52];
#pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) {
#pragma GCC unroll 16
        for (size_t j = 0; j < N52; ++j) q52[k][j] = _mm512_load_si512(q[k] + j), w52[k][j] = _mm512_load_si512(w[k] + j);
        normalize<F>(q52[k]);
    }
    mont_mul_radix52_lazy<F, K>(q52, w52, t52);  // t = W q < 2p
#pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) {
        __m512i xk[N52], s[N52], d[N52];
#pragma GCC unroll 16
        for (size_t j = 0; j < N52; ++j) xk[j] = _mm512_load_si512(x[k] + j);
        lazy_sums<F>(xk, t52[k], s, d);
#pragma GCC unroll 16
        for (size_t j = 0; j < N52; ++j) _mm512_store_si512(x[k] + j, s[j]), _mm512_store_si512(q[k] + j, d[j]);
    }
}

// Stages h = 1, 2, 4 on the buffer, where the two elements of a butterfly share a vector: each
// 16 elements (two blocks) are permuted into the 8 butterflies' first elements u and second
// elements q (two-source permutes), the 8 butterflies run as in butterfly_group_lazy, and the
// halves are permuted back. twiddle(g, j): limb j of the twiddle vector of the 16 elements g, in
// twiddle_form (lane i: the twiddle of the butterfly (top[i], bot[i]) below).
template <class F, class Twiddle>
C2LAB_IFMA_TARGET void low_stage(__m512i* data, size_t blocks, unsigned h, const Twiddle& twiddle) {
    using R = radix52<F>;
    constexpr size_t N52 = R::n52;
    alignas(64) uint64_t top[8], bot[8], back0[8], back1[8];
    for (unsigned i = 0, e = 0; e < 16; ++e)
        if ((e & h) == 0) top[i] = e, bot[i] = e + h, ++i;
    for (unsigned i = 0; i < 8; ++i) {  // element top[i] takes lane i of the sums, bot[i] lane i of the differences
        (top[i] < 8 ? back0[top[i]] : back1[top[i] - 8]) = i;
        (bot[i] < 8 ? back0[bot[i]] : back1[bot[i] - 8]) = 8 + i;
    }
    const __m512i i_top = _mm512_load_si512(top), i_bot = _mm512_load_si512(bot);
    const __m512i i_back0 = _mm512_load_si512(back0), i_back1 = _mm512_load_si512(back1);
    for (size_t b = 0; b + 1 < blocks; b += 2) {
        __m512i* x0 = data + N52 * b;
        __m512i* x1 = x0 + N52;
        __m512i u[N52], q52[1][N52], w52[1][N52], t52[1][N52], s[N52], d[N52];
#pragma GCC unroll 16
        for (size_t j = 0; j < N52; ++j) {
            const __m512i a0 = _mm512_load_si512(x0 + j), a1 = _mm512_load_si512(x1 + j);
            u[j] = _mm512_permutex2var_epi64(a0, i_top, a1);
            q52[0][j] = _mm512_permutex2var_epi64(a0, i_bot, a1);
            w52[0][j] = twiddle(b / 2, j);
        }
        normalize<F>(q52[0]);
        mont_mul_radix52_lazy<F, 1>(q52, w52, t52);
        lazy_sums<F>(u, t52[0], s, d);
#pragma GCC unroll 16
        for (size_t j = 0; j < N52; ++j) {
            _mm512_store_si512(x0 + j, _mm512_permutex2var_epi64(s[j], i_back0, d[j]));
            _mm512_store_si512(x1 + j, _mm512_permutex2var_epi64(s[j], i_back1, d[j]));
        }
    }
}
// One twiddle vector for every 16 elements (butterfly_stages: twiddles by index within a block).
struct same_twiddles {
    const __m512i* w;
    C2LAB_IFMA_TARGET __m512i operator()(size_t, size_t j) const { return _mm512_load_si512(w + j); }
};

// Counts the stages run since the buffer was last settled and settles it every lazy_stages.
template <class F>
struct lazy_budget {
    __m512i* data;
    size_t blocks;
    unsigned since = 0;
    C2LAB_IFMA_TARGET void stage_done() {
        if (++since == lazy_stages<F>) settle_buffer<F>(data, blocks), since = 0;
    }
};

// Stages h = h_first .. len / 2 over x[0, len) (len >= 16), twiddle of butterfly j in stage h at
// stage_tw[h + j] in twiddle_form (1 for h = 1, not read); data and twiddles in the two buffers
// (len / 8 blocks each).
template <class F>
__attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw"))) void butterfly_stages_ifma(
    F* x, const F* stage_tw, size_t len, size_t h_first, __m512i* data, __m512i* tw) {
    constexpr size_t N52 = radix52<F>::n52, K = ifma_ways<F>;
    const size_t blocks = len / 8;
    for (size_t b = 0; b < blocks; ++b) to_buffer<F>(x + 8 * b, data + N52 * b);
    for (size_t b = std::max<size_t>(h_first, 8) / 8; b < blocks; ++b)
        to_buffer<F>(stage_tw + 8 * b, tw + N52 * b);  // rows h..2h of each stage
    lazy_budget<F> budget{data, blocks};
    const F one = twiddle_form_of(F::one());
    for (unsigned h = static_cast<unsigned>(h_first); h < 8; h <<= 1) {  // within a vector (len >= 16)
        F w[8];
        for (unsigned i = 0, e = 0; e < 16; ++e)
            if ((e & h) == 0) w[i++] = h == 1 ? one : stage_tw[h + e % h];
        to_buffer<F>(w, tw);  // block 0 is not a stage's row from h = 8 on
        low_stage<F>(data, blocks, h, same_twiddles{tw});
        budget.stage_done();
    }
    for (size_t h = std::max<size_t>(h_first, 8); h < len; h <<= 1) {
        const size_t hb = h / 8;  // blocks per half block
        for (size_t blk = 0; blk < blocks; blk += 2 * hb) {
            size_t jb = 0;
            for (; jb + K <= hb; jb += K) {
                __m512i* p[K];
                __m512i* q[K];
                const __m512i* w[K];
                for (size_t k = 0; k < K; ++k) {
                    p[k] = data + N52 * (blk + jb + k);
                    q[k] = data + N52 * (blk + hb + jb + k);
                    w[k] = tw + N52 * (hb + jb + k);
                }
                butterfly_group_lazy<F, K>(p, q, w);
            }
            for (; jb < hb; ++jb) {
                __m512i* const p[1] = {data + N52 * (blk + jb)};
                __m512i* const q[1] = {data + N52 * (blk + hb + jb)};
                const __m512i* const w[1] = {tw + N52 * (hb + jb)};
                butterfly_group_lazy<F, 1>(p, q, w);
            }
        }
        budget.stage_done();
    }
    for (size_t b = 0; b < blocks; ++b) from_buffer_settled<F>(data + N52 * b, x + 8 * b);
}

// The butterflies of rows r and r + hr of a column tile in the buffer (16 elements, two blocks a
// row), twiddle vectors wk for the row's two halves.
template <class F>
C2LAB_IFMA_TARGET void row_butterflies(__m512i* data, size_t r, size_t hr, const __m512i* const (&wk)[2]) {
    constexpr size_t N52 = radix52<F>::n52;
    __m512i* const p = data + 2 * N52 * r;
    __m512i* const q = data + 2 * N52 * (r + hr);
    __m512i* const pk[2] = {p, p + N52};
    __m512i* const qk[2] = {q, q + N52};
    butterfly_group_lazy<F, 2>(pk, qk, wk);
}

// The NTT's column-tile stages (butterfly_row_stages): rows of 16 elements (two blocks), the
// tile converted once; for each stage hr and row rr the 16 twiddles (in twiddle_form) are
// converted once and serve every block of 2 hr rows.
template <class F>
__attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw"))) void butterfly_row_stages_ifma(
    F* x, size_t rows, size_t stride, const std::function<void(size_t, size_t, F*)>& twiddles, __m512i* data) {
    constexpr size_t N52 = radix52<F>::n52;
    alignas(64) __m512i wv[2 * N52];
    F w[16];
    // Block b: the half b % 2 of row b / 2.
    auto block = [&](size_t b) { return x + stride * (b / 2) + 8 * (b % 2); };
    for (size_t b = 0; b < 2 * rows; ++b) to_buffer<F>(block(b), data + N52 * b);
    lazy_budget<F> budget{data, 2 * rows};
    for (size_t hr = 1; hr < rows; hr <<= 1) {
        for (size_t rr = 0; rr < hr; ++rr) {
            twiddles(hr, rr, w);
            to_buffer<F>(w, wv);
            to_buffer<F>(w + 8, wv + N52);
            const __m512i* const wk[2] = {wv, wv + N52};
            for (size_t br = 0; br < rows; br += 2 * hr) row_butterflies<F>(data, br + rr, hr, wk);
        }
        budget.stage_done();
    }
    for (size_t b = 0; b < 2 * rows; ++b) from_buffer_settled<F>(data + N52 * b, block(b));
}

// The natural-order stages (butterfly_stages_nr, butterfly_row_stages_nr): the same lazy
// butterflies, the stages taken from the largest blocks down, and one twiddle per block instead
// of one per butterfly index. A stage's twiddles are contiguous in the table: they are converted
// 8 at a time into a buffer (twiddles_to_buffer), and a block's twiddle is broadcast from it to
// every lane (broadcast_twiddle: a load per limb). Converting 8 copies of each block's twiddle
// instead took a chunk's stages 23% longer than butterfly_stages (perf of the h step at 2^22,
// Intel Xeon).

// tw[0, count) in radix 2^52, 8 at a time (the last 8 padded with zeros): limb j of twiddle k at
// 64-bit word ((k / 8) N52 + j) 8 + k % 8 of buf.
template <class F>
C2LAB_IFMA_TARGET void twiddles_to_buffer(const F* tw, size_t count, __m512i* buf) {
    constexpr size_t N52 = radix52<F>::n52;
    size_t k = 0;
    for (; k + 8 <= count; k += 8) to_buffer<F>(tw + k, buf + N52 * (k / 8));
    if (k < count) {
        F w8[8] = {};
        std::copy(tw + k, tw + count, w8);
        to_buffer<F>(w8, buf + N52 * (k / 8));
    }
}
// Twiddle k of such a buffer in every lane.
template <class F>
C2LAB_IFMA_TARGET void broadcast_twiddle(const __m512i* buf, size_t k, __m512i* wv) {
    constexpr size_t N52 = radix52<F>::n52;
    const auto* words = reinterpret_cast<const long long*>(buf);
#pragma GCC unroll 16
    for (size_t j = 0; j < N52; ++j) wv[j] = _mm512_set1_epi64(words[((k / 8) * N52 + j) * 8 + k % 8]);
}

// The twiddles of stages h = 4, 2, 1 in the natural order (low_stage): lane i of 16 elements g
// (two blocks of 8) takes the twiddle of the block that holds element top[i], twiddle
// k = g (8 / h) + top[i] / 2h of the stage, from tws (twiddles_to_buffer). Those 8 lie in one
// group of 8 converted twiddles, at lanes (g mod h) (8 / h) + top[i] / 2h: one permute a limb.
template <class F>
struct block_twiddles {
    const __m512i* tws;
    unsigned h;
    alignas(64) uint64_t lanes[4][8];
    block_twiddles(const __m512i* t, unsigned stage_h) : tws(t), h(stage_h) {
        for (unsigned r = 0; r < h; ++r)
            for (unsigned i = 0, e = 0; e < 16; ++e)
                if ((e & h) == 0) lanes[r][i++] = r * (8 / h) + e / (2 * h);
    }
    C2LAB_IFMA_TARGET __m512i operator()(size_t g, size_t j) const {
        const __m512i w = _mm512_load_si512(tws + radix52<F>::n52 * (g / h) + j);
        return h == 1 ? w : _mm512_permutexvar_epi64(_mm512_load_si512(lanes[g % h]), w);
    }
};

// Stages h = len / 2 .. 1 over x[0, len) (len >= 16) in the natural order: block b of stage h
// takes the twiddle block_tw[chunk_index (len / 2h) + b] (twiddle_form). tws: len / 16 + 1 groups
// of N52 vectors for a stage's twiddles.
template <class F>
__attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw"))) void butterfly_stages_nr_ifma(
    F* x, const F* block_tw, size_t len, size_t chunk_index, __m512i* data, __m512i* tws) {
    constexpr size_t N52 = radix52<F>::n52, K = ifma_ways<F>;
    const size_t blocks = len / 8;
    for (size_t b = 0; b < blocks; ++b) to_buffer<F>(x + 8 * b, data + N52 * b);
    lazy_budget<F> budget{data, blocks};
    alignas(64) __m512i wv[N52];
    for (size_t h = len / 2; h >= 8; h >>= 1) {
        const size_t hb = h / 8, count = len / (2 * h);
        twiddles_to_buffer<F>(block_tw + chunk_index * count, count, tws);
        for (size_t bi = 0; bi < count; ++bi) {
            broadcast_twiddle<F>(tws, bi, wv);
            const size_t blk = bi * 2 * hb;
            size_t jb = 0;
            for (; jb + K <= hb; jb += K) {
                __m512i* p[K];
                __m512i* q[K];
                const __m512i* w[K];
                for (size_t k = 0; k < K; ++k) {
                    p[k] = data + N52 * (blk + jb + k);
                    q[k] = data + N52 * (blk + hb + jb + k);
                    w[k] = wv;
                }
                butterfly_group_lazy<F, K>(p, q, w);
            }
            for (; jb < hb; ++jb) {
                __m512i* const p[1] = {data + N52 * (blk + jb)};
                __m512i* const q[1] = {data + N52 * (blk + hb + jb)};
                const __m512i* const w[1] = {wv};
                butterfly_group_lazy<F, 1>(p, q, w);
            }
        }
        budget.stage_done();
    }
    for (unsigned h = 4; h >= 1; h >>= 1) {
        const size_t count = len / (2 * h);
        twiddles_to_buffer<F>(block_tw + chunk_index * count, count, tws);
        low_stage<F>(data, blocks, h, block_twiddles<F>(tws, h));
        budget.stage_done();
    }
    for (size_t b = 0; b < blocks; ++b) from_buffer_settled<F>(data + N52 * b, x + 8 * b);
}

// The column-tile stages in the natural order: rows of 16 elements, stages hr = rows / 2 .. 1,
// block bi of stage hr (rows [2 hr bi, 2 hr (bi + 1))) with the twiddle
// block_tw[tile_index (rows / 2hr) + bi], broadcast to every column. tws: rows / 16 + 1 groups.
template <class F>
__attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw"))) void butterfly_row_stages_nr_ifma(
    F* x, size_t rows, size_t stride, const F* block_tw, size_t tile_index, __m512i* data, __m512i* tws) {
    constexpr size_t N52 = radix52<F>::n52;
    alignas(64) __m512i wv[N52];
    auto block = [&](size_t b) { return x + stride * (b / 2) + 8 * (b % 2); };
    for (size_t b = 0; b < 2 * rows; ++b) to_buffer<F>(block(b), data + N52 * b);
    lazy_budget<F> budget{data, 2 * rows};
    for (size_t hr = rows / 2; hr >= 1; hr >>= 1) {
        const size_t count = rows / (2 * hr);
        twiddles_to_buffer<F>(block_tw + tile_index * count, count, tws);
        for (size_t bi = 0; bi < count; ++bi) {
            broadcast_twiddle<F>(tws, bi, wv);
            const __m512i* const wk[2] = {wv, wv};
            for (size_t r = bi * 2 * hr; r < bi * 2 * hr + hr; ++r) row_butterflies<F>(data, r, hr, wk);
        }
        budget.stage_done();
    }
    for (size_t b = 0; b < 2 * rows; ++b) from_buffer_settled<F>(data + N52 * b, block(b));
}

// a * 2^S for normalised limbs, a < 2^(52 N - S): limb k takes the low 52 - S bits of a_k
// and the high S bits of a_(k-1).
template <size_t N, unsigned S>
C2LAB_IFMA_TARGET void shift_up_limbs(const __m512i* a, __m512i* r) {
    const __m512i mask = _mm512_set1_epi64((uint64_t{1} << 52) - 1);
    r[0] = _mm512_and_si512(_mm512_slli_epi64(a[0], S), mask);
#pragma GCC unroll 16
    for (size_t k = 1; k < N; ++k)
        r[k] = _mm512_and_si512(_mm512_or_si512(_mm512_slli_epi64(a[k], S), _mm512_srli_epi64(a[k - 1], 52 - S)), mask);
}

// Batched affine additions (affine_add_batch) over Fp and Fp2. Every value stays in radix
// 2^52 and in c2lab's Montgomery form (x R mod p, fully reduced, normalised 52-bit limbs) from
// the loads to the stores: a product takes its first operand times 2^32 (a limb shift, see
// shift_up) so that the radix-52 Montgomery product gives a b / R as operator* does; sums
// and differences are a + b or a + p - b in lazy limbs, brought below p by reduce_once.
// Fp2 = Fp[u] / (u^2 + 1) on pairs of them: Karatsuba products (3 Fp products), complex
// squares (2), the same canonical results as fp2's operators.
static_assert(radix52<fp>::n52 == 8 && radix52<fp>::n64 == 6);
struct f52 {
    __m512i l[8];  // limb k of the 8 lanes' elements
};
struct f52x2 {
    f52 c0, c1;
};

// a * 2^S for normalised limbs with a < 2^(416 - S) (shift_up_limbs on the 8 limbs of Fp).
template <unsigned S>
C2LAB_IFMA_TARGET f52 shift_up(const f52& a) {
    f52 r;
    shift_up_limbs<8, S>(a.l, r.l);
    return r;
}

// Lazy forms for G1's kernel (Fp), after the NTT stages' (above): values below 2p in normalised
// limbs between the steps instead of canonical ones. vmul_lazy takes a, b normalised, a below
// 2^384 (its shift by 2^32 must fit 416 bits: 9.8 p), and skips the final subtraction: t < a b /
// 2^384 + p, limbs not normalised; for a, b < 2p that is below 1.41 p (4 p^2 / 2^384 = 0.41 p).
// vnorm normalises a lazy value (21 operations against reduce_once's 62); vsettle brings a value
// below 4p to its canonical form (normalised, then 2p and p subtracted where neither borrows).
// Per 8 additions about 400 of 3000 vector operations fewer.
// vshifted(a) = a 2^32 (a below 2^384), vmul_lazy_shifted(vshifted(a), b) = vmul_lazy(a, b): where
// one factor meets two products (the running inverse, lambda) it is shifted once.
C2LAB_IFMA_TARGET f52 vshifted(const f52& a) { return shift_up<radix52<fp>::shift>(a); }
C2LAB_IFMA_TARGET f52 vmul_lazy_shifted(const f52& s, const f52& b) {
    __m512i as[1][8], bs[1][8], rs[1][8];
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; ++k) as[0][k] = s.l[k], bs[0][k] = b.l[k];
    mont_mul_radix52_lazy<fp, 1>(as, bs, rs);
    f52 r;
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; ++k) r.l[k] = rs[0][k];
    return r;
}
C2LAB_IFMA_TARGET f52 vmul_lazy(const f52& a, const f52& b) { return vmul_lazy_shifted(vshifted(a), b); }
C2LAB_IFMA_TARGET f52 vnorm(f52 t) {
    normalize<fp>(t.l);
    return t;
}
C2LAB_IFMA_TARGET f52 vsettle(f52 t) {
    normalize<fp>(t.l);
    subtract_if_at_least(t.l, radix52<fp>::modulus_shl<1>, t.l);
    subtract_if_at_least(t.l, radix52<fp>::modulus, t.l);
    return t;
}
// a + b, and (vdiff_lazy) a + k p - b for b below k p, limb by limb, not normalised.
C2LAB_IFMA_TARGET f52 vsum_lazy(const f52& a, const f52& b) {
    f52 r;
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; ++k) r.l[k] = _mm512_add_epi64(a.l[k], b.l[k]);
    return r;
}
// Lane by lane: a + b where add is set, a + p - b elsewhere; and a + p - b where m is set,
// b + p - a elsewhere (a, b below p: both below 2p). Not normalised.
C2LAB_IFMA_TARGET f52 vadd_or_sub_lazy(__mmask8 add, const f52& a, const f52& b) {
    f52 r;
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; ++k) {
        const __m512i s = _mm512_add_epi64(a.l[k], b.l[k]);
        const __m512i d = _mm512_sub_epi64(_mm512_add_epi64(a.l[k], _mm512_set1_epi64(radix52<fp>::modulus[k])), b.l[k]);
        r.l[k] = _mm512_mask_blend_epi64(add, d, s);
    }
    return r;
}
C2LAB_IFMA_TARGET f52 vsub_either_lazy(__mmask8 m, const f52& a, const f52& b) {
    f52 r;
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; ++k) {
        const __m512i p = _mm512_set1_epi64(radix52<fp>::modulus[k]);
        const __m512i ab = _mm512_sub_epi64(_mm512_add_epi64(a.l[k], p), b.l[k]);
        const __m512i ba = _mm512_sub_epi64(_mm512_add_epi64(b.l[k], p), a.l[k]);
        r.l[k] = _mm512_mask_blend_epi64(m, ba, ab);
    }
    return r;
}
template <unsigned K>
C2LAB_IFMA_TARGET f52 vdiff_lazy(const f52& a, const f52& b) {
    static_assert(K == 1 || K == 2);
    constexpr const std::array<uint64_t, 8>& kp = K == 1 ? radix52<fp>::modulus : radix52<fp>::modulus_shl<1>;
    f52 r;
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; ++k) r.l[k] = _mm512_sub_epi64(_mm512_add_epi64(a.l[k], _mm512_set1_epi64(kp[k])), b.l[k]);
    return r;
}

// The canonical forms (Fp2's products and G2's kernel): each result fully reduced, the lazy
// form brought below p by reduce_once.
C2LAB_IFMA_TARGET f52 reduced(f52 t) {
    reduce_once<fp>(t.l, t.l);
    return t;
}
// a b / R mod p (operator* of mont_field), fully reduced.
C2LAB_IFMA_TARGET f52 vmul(const f52& a, const f52& b) { return reduced(vmul_lazy(a, b)); }
// Lane by lane: a + b where add is set, a - b elsewhere (mod p, a, b < p).
C2LAB_IFMA_TARGET f52 vadd_or_sub(__mmask8 add, const f52& a, const f52& b) {
    return reduced(vadd_or_sub_lazy(add, a, b));
}
C2LAB_IFMA_TARGET f52 vsub(const f52& a, const f52& b) { return reduced(vdiff_lazy<1>(a, b)); }
C2LAB_IFMA_TARGET f52 vadd(const f52& a, const f52& b) { return reduced(vsum_lazy(a, b)); }
// Lane by lane: a - b where m is set, b - a elsewhere (mod p).
C2LAB_IFMA_TARGET f52 vsub_either(__mmask8 m, const f52& a, const f52& b) { return reduced(vsub_either_lazy(m, a, b)); }


C2LAB_IFMA_TARGET f52x2 vmul(const f52x2& a, const f52x2& b) {
    const f52 v0 = vmul(a.c0, b.c0), v1 = vmul(a.c1, b.c1);
    const f52 s = vmul(vadd(a.c0, a.c1), vadd(b.c0, b.c1));
    return {vsub(v0, v1), vsub(vsub(s, v0), v1)};
}
C2LAB_IFMA_TARGET f52x2 vsqr(const f52x2& a) {
    const f52 m = vmul(a.c0, a.c1);
    return {vmul(vadd(a.c0, a.c1), vsub(a.c0, a.c1)), vadd(m, m)};
}
C2LAB_IFMA_TARGET f52x2 vadd_or_sub(__mmask8 add, const f52x2& a, const f52x2& b) {
    return {vadd_or_sub(add, a.c0, b.c0), vadd_or_sub(add, a.c1, b.c1)};
}
C2LAB_IFMA_TARGET f52x2 vsub(const f52x2& a, const f52x2& b) { return {vsub(a.c0, b.c0), vsub(a.c1, b.c1)}; }
C2LAB_IFMA_TARGET f52x2 vsub_either(__mmask8 m, const f52x2& a, const f52x2& b) {
    return {vsub_either(m, a.c0, b.c0), vsub_either(m, a.c1, b.c1)};
}

// 8 consecutive elements (c2lab's limbs) to radix-52 lanes, and back. Fp: the in-register
// transposes; Fp2 (12 limbs per element): gathers and scatters of each limb at a stride of
// 12 words.
C2LAB_IFMA_TARGET void vload(const fp* src, f52& r) {
    __m512i x[6];
    load_soa<6>(src[0].mont.data(), x);
    to_radix52<6, 8, 0>(x, r.l);
}
C2LAB_IFMA_TARGET void vstore(fp* dst, const f52& r) {
    __m512i x[6];
    to_radix64<6, 8>(r.l, x);
    store_soa<6>(dst[0].mont.data(), x);
}
C2LAB_IFMA_TARGET __m512i fp2_stride() { return _mm512_setr_epi64(0, 12, 24, 36, 48, 60, 72, 84); }
C2LAB_IFMA_TARGET void vload(const fp2* src, f52x2& r) {
    const long long* base = reinterpret_cast<const long long*>(src[0].c0.mont.data());
    __m512i x[6];
#pragma GCC unroll 6
    for (size_t j = 0; j < 6; ++j) x[j] = _mm512_i64gather_epi64(fp2_stride(), base + j, 8);
    to_radix52<6, 8, 0>(x, r.c0.l);
#pragma GCC unroll 6
    for (size_t j = 0; j < 6; ++j) x[j] = _mm512_i64gather_epi64(fp2_stride(), base + 6 + j, 8);
    to_radix52<6, 8, 0>(x, r.c1.l);
}
C2LAB_IFMA_TARGET void vstore(fp2* dst, const f52x2& r) {
    long long* base = reinterpret_cast<long long*>(dst[0].c0.mont.data());
    __m512i x[6];
    to_radix64<6, 8>(r.c0.l, x);
#pragma GCC unroll 6
    for (size_t j = 0; j < 6; ++j) _mm512_i64scatter_epi64(base + j, fp2_stride(), x[j], 8);
    to_radix64<6, 8>(r.c1.l, x);
#pragma GCC unroll 6
    for (size_t j = 0; j < 6; ++j) _mm512_i64scatter_epi64(base + 6 + j, fp2_stride(), x[j], 8);
}
// The prefix products as plain words (64 per Fp lane vector).
C2LAB_IFMA_TARGET void vsave(uint64_t* w, const f52& v) {
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; ++k) _mm512_storeu_si512(w + 8 * k, v.l[k]);
}
C2LAB_IFMA_TARGET void vrestore(const uint64_t* w, f52& v) {
#pragma GCC unroll 8
    for (size_t k = 0; k < 8; ++k) v.l[k] = _mm512_loadu_si512(w + 8 * k);
}
C2LAB_IFMA_TARGET void vsave(uint64_t* w, const f52x2& v) { vsave(w, v.c0), vsave(w + 64, v.c1); }
C2LAB_IFMA_TARGET void vrestore(const uint64_t* w, f52x2& v) { vrestore(w, v.c0), vrestore(w + 64, v.c1); }

template <class F>
using lanes_of = std::conditional_t<std::is_same_v<F, fp>, f52, f52x2>;
template <class F>
constexpr size_t prefix_words = sizeof(F) / sizeof(fp) * 64;  // one value per chunk of 8
// What the forward pass keeps per chunk for the backward pass, in radix-52 limbs: the prefix
// product, x1, x2 and x2 - x1 (loaded again, x1 and x2 were two more transposes and
// conversions per chunk, and x2 - x1 a subtraction).
template <class F>
constexpr size_t record_words = 4 * prefix_words<F>;

template <class F>
using aff_chunk = detail::affine_chunk<F, 8>;

// Forward pass: prefix[c] = prod_{c' <= c} (x2 - x1) of chunk c', lane by lane (8 chains),
// kept as radix-52 limbs with the chunk's x1, x2 and x2 - x1 (record_words). Writes the 8
// lane totals.
template <class F>
__attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw"))) void affine_add_forward_ifma(
    const F* x1, const F* y1, const F* x2, const F* y2, const uint8_t* neg, size_t n, uint64_t* record, F* totals) {
    using V = lanes_of<F>;
    constexpr size_t W = prefix_words<F>;
    const size_t chunks = (n + 7) / 8;
    aff_chunk<F> ch;
    V acc, a, b;
    for (size_t c = 0; c < chunks; ++c) {
        ch.at(x1, y1, x2, y2, neg, 8 * c, n);
        vload(ch.x1, a);
        vload(ch.x2, b);
        V d;
        if constexpr (std::is_same_v<F, fp>) {  // lazy: d and acc below 2p, normalised
            d = vnorm(vdiff_lazy<1>(b, a));
            acc = c == 0 ? d : vnorm(vmul_lazy(acc, d));
        } else {
            d = vsub(b, a);
            acc = c == 0 ? d : vmul(acc, d);
        }
        uint64_t* rec = record + record_words<F> * c;
        vsave(rec, acc);
        vsave(rec + W, a);
        vsave(rec + 2 * W, b);
        vsave(rec + 3 * W, d);
    }
    if constexpr (std::is_same_v<F, fp>) acc = vsettle(acc);  // the totals are inverted as field elements
    vstore(totals, acc);
}

// Backward pass from inv = the lane-wise inverses of the totals: for chunk c from the last,
// 1 / (x2 - x1) = inv * prefix[c - 1], inv <- inv * (x2 - x1), then lambda, x3, y3.
template <class F>
__attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw"))) void affine_add_backward_ifma(
    F* x1, F* y1, const F* x2, const F* y2, const uint8_t* neg, size_t n, const uint64_t* record,
    const F* inverses) {
    using V = lanes_of<F>;
    constexpr size_t W = prefix_words<F>;
    const size_t chunks = (n + 7) / 8;
    aff_chunk<F> ch;
    V inv, inv_d, a, b, ya, yb;
    vload(inverses, inv);
    for (size_t c = chunks; c-- > 0;) {
        ch.at(x1, y1, x2, y2, neg, 8 * c, n);
        const uint64_t* rec = record + record_words<F> * c;
        vrestore(rec + W, a);
        vrestore(rec + 2 * W, b);
        if (c > 0) {
            V pre, d;
            vrestore(record + record_words<F> * (c - 1), pre);
            vrestore(rec + 3 * W, d);
            if constexpr (std::is_same_v<F, fp>) {  // lazy: below 2p (inv starts canonical)
                const V inv_s = vshifted(inv);
                inv_d = vnorm(vmul_lazy_shifted(inv_s, pre));
                inv = vnorm(vmul_lazy_shifted(inv_s, d));
            } else {
                inv_d = vmul(inv, pre);
                inv = vmul(inv, d);
            }
        } else {
            inv_d = inv;
        }
        // lambda = (y2 - y1) / (x2 - x1); for -p2 it is -(y2 + y1) / (x2 - x1): computed
        // without the sign, which moves into y3 = lambda (x1 - x3) - y1.
        vload(ch.y1, ya);
        vload(ch.y2, yb);
        V x3, y3;
        if constexpr (std::is_same_v<F, fp>) {
            // lambda < 1.41 p; lambda^2 < 1.2 p, x3 = lambda^2 + 2p - x1 - x2 below 3.2 p, then
            // canonical (stored, and subtracted below); x1 - x3 below 2p; y3 = lambda (x1 - x3)
            // + p - y1 below 2.3 p, then canonical.
            const V lambda = vnorm(vmul_lazy(vnorm(vadd_or_sub_lazy(__mmask8(ch.neg), yb, ya)), inv_d));
            const V lambda_s = vshifted(lambda);
            x3 = vsettle(vdiff_lazy<2>(vmul_lazy_shifted(lambda_s, lambda), vsum_lazy(a, b)));
            const V e = vnorm(vsub_either_lazy(__mmask8(ch.neg), x3, a));  // neg: x3 - x1, else x1 - x3
            y3 = vsettle(vdiff_lazy<1>(vmul_lazy_shifted(lambda_s, e), ya));
        } else {
            const V lambda = vmul(vadd_or_sub(__mmask8(ch.neg), yb, ya), inv_d);
            x3 = vsub(vsub(vsqr(lambda), a), b);
            y3 = vsub(vmul(lambda, vsub_either(__mmask8(ch.neg), x3, a)), ya);  // neg: x3 - x1, else x1 - x3
        }
        if (ch.count == 8) {
            vstore(x1 + 8 * c, x3);
            vstore(y1 + 8 * c, y3);
        } else {
            F out[2][8];
            vstore(out[0], x3);
            vstore(out[1], y3);
            for (size_t l = 0; l < ch.count; ++l) x1[8 * c + l] = out[0][l], y1[8 * c + l] = out[1][l];
        }
    }
}

#endif  // C2LAB_IFMA_KERNELS

// The storage of an element is its limbs alone: the kernels address arrays of F as limbs.
static_assert(sizeof(fp) == 6 * sizeof(uint64_t) && sizeof(fr) == 4 * sizeof(uint64_t));

// batch_path::avx2 has products (mul_batch, square_batch, scale_batch), the batched additions and
// the NTT's stages in natural-order input (butterfly_stages, butterfly_row_stages) only: the other
// butterflies refuse it rather than run another path under its name.
void refuse_avx2(batch_path path, const char* what) {
    if (path == batch_path::avx2)
        throw error(errc::device, std::string(what) + ": the AVX2 path has products (mul_batch, square_batch), "
                                                      "batched additions (affine_add_batch) and the stages "
                                                      "butterfly_stages and butterfly_row_stages only");
}

// The AVX2 stages' checks: the path on, at most detail::avx2_max_lazy_stages stages.
void check_avx2_stages(const char* what, size_t stages) {
#if defined(C2LAB_HAVE_X86_ASM)
    if (!avx2_available())
        throw error(errc::device, std::string(what) + ": the AVX2 path is off (C2LAB_PORTABLE is set)");
    if (stages > detail::avx2_max_lazy_stages)
        throw error(errc::bad_input, std::string(what) + ": " + std::to_string(stages) +
                                         " stages on the AVX2 path, at most " +
                                         std::to_string(detail::avx2_max_lazy_stages));
#else
    (void)stages;
    throw error(errc::device, std::string(what) + ": the AVX2 path is not compiled in this build");
#endif
}

template <class F, bool Square>
void run(batch_path path, F* out, const F* a, const F* b, size_t n) {
    size_t done = 0;
    if (path == batch_path::avx2) {
#if defined(C2LAB_HAVE_X86_ASM)
        if (!avx2_available())
            throw error(errc::device, "mul_batch: the AVX2 path is off (C2LAB_PORTABLE is set)");
        detail::mul_chunks_avx2<F, Square>(out, a, b, n / 4);
        done = n / 4 * 4;
#else
        throw error(errc::device, "mul_batch: the AVX2 path is not compiled in this build");
#endif
    }
    if (path == batch_path::ifma) {
#if defined(C2LAB_IFMA_KERNELS)
        if (!cpu::use_ifma)
            throw error(errc::device, "mul_batch: the AVX-512 IFMA path is not available on this CPU "
                                      "(or C2LAB_PORTABLE / C2LAB_NO_AVX512 is set)");
        mul_chunks_ifma<F, Square>(out, a, b, n / 8);
        done = n / 8 * 8;
#else
        throw error(errc::device, "mul_batch: the AVX-512 IFMA path is not compiled in this build");
#endif
    }
    if constexpr (Square) square_scalar(out + done, a + done, n - done);
    else mul_scalar(out + done, a + done, b + done, n - done);
}

template <class F>
void mul_batch_impl(batch_path path, std::span<F> out, std::span<const F> a, std::span<const F> b) {
    check_spans(out, a, b, "mul_batch");
    run<F, false>(path, out.data(), a.data(), b.data(), out.size());
}

template <class F>
void square_batch_impl(batch_path path, std::span<F> out, std::span<const F> a) {
    check_spans(out, a, a, "square_batch");
    run<F, true>(path, out.data(), a.data(), a.data(), out.size());
}

template <class F>
void butterfly_batch_impl(batch_path path, std::span<F> p, std::span<F> q, std::span<const F> w) {
    refuse_avx2(path, "butterfly_batch");
    if (q.size() != p.size() || w.size() != p.size())
        throw error(errc::bad_input, "butterfly_batch: spans of " + std::to_string(p.size()) + ", " +
                                         std::to_string(q.size()) + " and " + std::to_string(w.size()) +
                                         " elements; all three must have the same length");
    std::less<const F*> lt;
    auto overlap = [&](const F* x, size_t nx, const F* y, size_t ny) {
        return nx != 0 && ny != 0 && lt(x, y + ny) && lt(y, x + nx);
    };
    if (overlap(p.data(), p.size(), q.data(), q.size()) || overlap(p.data(), p.size(), w.data(), w.size()) ||
        overlap(q.data(), q.size(), w.data(), w.size()))
        throw error(errc::bad_input, "butterfly_batch: p, q and w must not overlap");
    const size_t n = p.size();
    size_t done = 0;
    if (path == batch_path::ifma) {
#if defined(C2LAB_IFMA_KERNELS)
        if (!cpu::use_ifma)
            throw error(errc::device, "butterfly_batch: the AVX-512 IFMA path is not available on this CPU "
                                      "(or C2LAB_PORTABLE / C2LAB_NO_AVX512 is set)");
        butterfly_chunks_ifma<F>(p.data(), q.data(), w.data(), n / 8);
        done = n / 8 * 8;
#else
        throw error(errc::device, "butterfly_batch: the AVX-512 IFMA path is not compiled in this build");
#endif
    }
    if (done < n && mont_butterflies_asm<F::n_limbs>(p[done].mont.data(), q[done].mont.data(), w[done].mont.data(),
                                                     n - done, F::modulus, F::n0))
        return;
    for (size_t i = done; i < n; ++i) {
        F u = p[i], v = q[i] * w[i];
        p[i] = u + v;
        q[i] = u - v;
    }
}

#if defined(C2LAB_IFMA_KERNELS)
// The radix-2^52 buffer of butterfly_stages and butterfly_row_stages (one per thread, 64-byte
// aligned, grown as needed): at least `vectors` zmm. Refuses where IFMA is not in use.
__m512i* resident_buffer(const char* what, size_t vectors) {
    if (!cpu::use_ifma)
        throw error(errc::device, std::string(what) + ": the AVX-512 IFMA path is not available on this CPU "
                                                      "(or C2LAB_PORTABLE / C2LAB_NO_AVX512 is set)");
    thread_local std::vector<uint64_t> storage;
    if (storage.size() < 8 * vectors + 8) storage.resize(8 * vectors + 8);
    return reinterpret_cast<__m512i*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) & ~uintptr_t{63});
}
#endif

template <class F>
void butterfly_stages_impl(batch_path path, std::span<F> x, std::span<const F> stage_tw, size_t h_first) {
    const size_t len = x.size();
    if (!std::has_single_bit(h_first) || !std::has_single_bit(len) || len < std::max<size_t>(16, 2 * h_first) ||
        stage_tw.size() < len)
        throw error(errc::bad_input, "butterfly_stages: " + std::to_string(len) + " elements, first stage " +
                                         std::to_string(h_first) + ", " + std::to_string(stage_tw.size()) +
                                         " twiddles: need powers of two, 16 <= len, h_first <= len / 2, twiddles >= len");
    if (path == batch_path::avx2) {
        check_avx2_stages("butterfly_stages", static_cast<size_t>(std::countr_zero(len) - std::countr_zero(h_first)));
#if defined(C2LAB_HAVE_X86_ASM)
        if constexpr (std::is_same_v<F, fr>) return detail::butterfly_stages_avx2(x.data(), len, stage_tw.data(), h_first);
#endif
    }
    if (path == batch_path::ifma) {
#if defined(C2LAB_IFMA_KERNELS)
        constexpr size_t N52 = radix52<F>::n52;
        __m512i* base = resident_buffer("butterfly_stages", 2 * (len / 8) * N52);  // data and twiddles
        butterfly_stages_ifma<F>(x.data(), stage_tw.data(), len, h_first, base, base + (len / 8) * N52);
        return;
#else
        throw error(errc::device, "butterfly_stages: the AVX-512 IFMA path is not compiled in this build");
#endif
    }
    const std::array<F, 1> one{F::one()};
    for (size_t h = h_first; h < len; h <<= 1)
        for (size_t blk = 0; blk < len; blk += 2 * h)
            butterfly_batch_impl<F>(path, x.subspan(blk, h), x.subspan(blk + h, h),
                                    h == 1 ? std::span<const F>(one) : stage_tw.subspan(h, h));
}

template <class F>
void butterfly_row_stages_impl(batch_path path, std::span<F> x, size_t rows, size_t stride,
                               const std::function<void(size_t, size_t, F*)>& twiddles) {
    if (rows < 2 || !std::has_single_bit(rows) || stride < 16 || x.size() < stride * (rows - 1) + 16)
        throw error(errc::bad_input, "butterfly_row_stages: " + std::to_string(x.size()) + " elements for " +
                                         std::to_string(rows) + " rows " + std::to_string(stride) +
                                         " apart: need 16 a row, rows at least 16 apart and a power of two of rows");
    if (path == batch_path::avx2) {
        check_avx2_stages("butterfly_row_stages", static_cast<size_t>(std::countr_zero(rows)));
#if defined(C2LAB_HAVE_X86_ASM)
        if constexpr (std::is_same_v<F, fr>) return detail::butterfly_row_stages_avx2(x.data(), rows, stride, twiddles);
#endif
    }
    if (path == batch_path::ifma) {
#if defined(C2LAB_IFMA_KERNELS)
        butterfly_row_stages_ifma<F>(x.data(), rows, stride, twiddles,
                                     resident_buffer("butterfly_row_stages", 2 * rows * radix52<F>::n52));
        return;
#else
        throw error(errc::device, "butterfly_row_stages: the AVX-512 IFMA path is not compiled in this build");
#endif
    }
    F w[16];
    for (size_t hr = 1; hr < rows; hr <<= 1)
        for (size_t rr = 0; rr < hr; ++rr) {
            twiddles(hr, rr, w);
            for (size_t br = 0; br < rows; br += 2 * hr)
                butterfly_batch_impl<F>(path, x.subspan(stride * (br + rr), 16), x.subspan(stride * (br + rr + hr), 16),
                                        std::span<const F>(w, 16));
        }
}


// One twiddle for all of a block's butterflies, on `path` (the reference loops of the natural-order
// stages below): w copied into a span as long as the block's half.
template <class F>
void block_butterflies(batch_path path, std::span<F> p, std::span<F> q, const F& w, std::vector<F>& ws) {
    ws.assign(p.size(), w);
    butterfly_batch_impl<F>(path, p, q, std::span<const F>(ws));
}

template <class F>
void butterfly_stages_nr_impl(batch_path path, std::span<F> x, std::span<const F> block_tw, size_t chunk_index) {
    refuse_avx2(path, "butterfly_stages_nr");
    const size_t len = x.size();
    if (!std::has_single_bit(len) || len < 16 || block_tw.size() / (len / 2) <= chunk_index)
        throw error(errc::bad_input, "butterfly_stages_nr: " + std::to_string(len) + " elements, chunk " +
                                         std::to_string(chunk_index) + ", " + std::to_string(block_tw.size()) +
                                         " twiddles: need a power of two >= 16 and (chunk + 1) len / 2 twiddles");
    if (path == batch_path::ifma) {
#if defined(C2LAB_IFMA_KERNELS)
        constexpr size_t N52 = radix52<F>::n52;
        __m512i* base = resident_buffer("butterfly_stages_nr", (len / 8 + len / 16 + 1) * N52);
        butterfly_stages_nr_ifma<F>(x.data(), block_tw.data(), len, chunk_index, base, base + (len / 8) * N52);
        return;
#else
        throw error(errc::device, "butterfly_stages_nr: the AVX-512 IFMA path is not compiled in this build");
#endif
    }
    std::vector<F> ws;
    for (size_t h = len / 2; h >= 1; h >>= 1) {
        const size_t count = len / (2 * h);
        for (size_t bi = 0; bi < count; ++bi)
            block_butterflies<F>(path, x.subspan(2 * h * bi, h), x.subspan(2 * h * bi + h, h),
                                 block_tw[chunk_index * count + bi], ws);
    }
}

template <class F>
void butterfly_row_stages_nr_impl(batch_path path, std::span<F> x, size_t rows, size_t stride,
                                  std::span<const F> block_tw, size_t tile_index) {
    refuse_avx2(path, "butterfly_row_stages_nr");
    if (rows < 2 || !std::has_single_bit(rows) || stride < 16 || x.size() < stride * (rows - 1) + 16 ||
        block_tw.size() / (rows / 2) <= tile_index)
        throw error(errc::bad_input, "butterfly_row_stages_nr: " + std::to_string(x.size()) + " elements for " +
                                         std::to_string(rows) + " rows " + std::to_string(stride) + " apart, tile " +
                                         std::to_string(tile_index) + ", " + std::to_string(block_tw.size()) +
                                         " twiddles: need 16 a row, rows at least 16 apart, a power of two of rows "
                                         "and (tile + 1) rows / 2 twiddles");
    if (path == batch_path::ifma) {
#if defined(C2LAB_IFMA_KERNELS)
        constexpr size_t N52 = radix52<F>::n52;
        __m512i* base = resident_buffer("butterfly_row_stages_nr", (2 * rows + rows / 16 + 1) * N52);
        butterfly_row_stages_nr_ifma<F>(x.data(), rows, stride, block_tw.data(), tile_index, base,
                                        base + 2 * rows * N52);
        return;
#else
        throw error(errc::device, "butterfly_row_stages_nr: the AVX-512 IFMA path is not compiled in this build");
#endif
    }
    std::vector<F> ws;
    for (size_t hr = rows / 2; hr >= 1; hr >>= 1) {
        const size_t count = rows / (2 * hr);
        for (size_t bi = 0; bi < count; ++bi)
            for (size_t rr = 0; rr < hr; ++rr) {
                const size_t r = 2 * hr * bi + rr;
                block_butterflies<F>(path, x.subspan(stride * r, 16), x.subspan(stride * (r + hr), 16),
                                     block_tw[tile_index * count + bi], ws);
            }
    }
}

template <class F>
[[noreturn]] void refuse_equal_x(std::span<const F> x1, std::span<const F> x2) {
    size_t i = 0;
    while (i < x1.size() && !(x1[i] == x2[i])) ++i;
    throw error(errc::bad_input, "affine_add_batch: x1[" + std::to_string(i) + "] == x2[" + std::to_string(i) +
                                     "] (an identity or equal x coordinates): the batched affine addition "
                                     "needs x1 != x2 for every element");
}

template <class F>
void affine_add_batch_impl(batch_path path, std::span<F> x1, std::span<F> y1, std::span<const F> x2,
                           std::span<const F> y2, std::span<const uint8_t> negate) {
    const size_t n = x1.size();
    if (y1.size() != n || x2.size() != n || y2.size() != n || negate.size() != n)
        throw error(errc::bad_input, "affine_add_batch: spans of " + std::to_string(n) + " (x1), " +
                                         std::to_string(y1.size()) + " (y1), " + std::to_string(x2.size()) +
                                         " (x2), " + std::to_string(y2.size()) + " (y2) and " +
                                         std::to_string(negate.size()) +
                                         " (negate) elements; all five must have the same length");
    std::less<const void*> lt;
    auto overlap = [&](const void* a, size_t na, const void* b, size_t nb) {
        return na != 0 && nb != 0 && lt(a, static_cast<const char*>(b) + nb) && lt(b, static_cast<const char*>(a) + na);
    };
    const size_t bytes = n * sizeof(F);
    if (overlap(x1.data(), bytes, y1.data(), bytes) || overlap(x1.data(), bytes, x2.data(), bytes) ||
        overlap(x1.data(), bytes, y2.data(), bytes) || overlap(y1.data(), bytes, x2.data(), bytes) ||
        overlap(y1.data(), bytes, y2.data(), bytes) || overlap(x1.data(), bytes, negate.data(), n) ||
        overlap(y1.data(), bytes, negate.data(), n))
        throw error(errc::bad_input, "affine_add_batch: x1 and y1 must not overlap each other or an input");
    if (n == 0) return;
    if (path == batch_path::avx2 && !avx2_available())
        throw error(errc::device, "affine_add_batch: the AVX2 path is off (C2LAB_PORTABLE is set, or not an x86-64 build)");
#if defined(C2LAB_HAVE_X86_ASM)
    if constexpr (std::is_same_v<F, fp>) {
        if (path == batch_path::avx2) {
            if (!detail::affine_add_batch_avx2(x1.data(), y1.data(), x2.data(), y2.data(), negate.data(), n))
                refuse_equal_x<F>(x1, x2);
            return;
        }
    }
#endif
    if (path == batch_path::ifma) {
#if defined(C2LAB_IFMA_KERNELS)
        if (!cpu::use_ifma)
            throw error(errc::device, "affine_add_batch: the AVX-512 IFMA path is not available on this CPU "
                                      "(or C2LAB_PORTABLE / C2LAB_NO_AVX512 is set)");
        // Per chunk of 8: the lane-wise prefix product, x1, x2 and x2 - x1 in radix-52 limbs.
        thread_local std::vector<uint64_t, tbb::cache_aligned_allocator<uint64_t>> prefix;
        prefix.resize((n + 7) / 8 * record_words<F>);
        F totals[8], inverses[8];
        affine_add_forward_ifma<F>(x1.data(), y1.data(), x2.data(), y2.data(), negate.data(), n, prefix.data(), totals);
        // The 8 lane totals inverted by Montgomery's trick on 8 values: 1 inversion + 21 products
        // (8 inversions instead: 81 to 249 ns more per Fp addition at n = 4096 to 256, measured).
        F pre[8];
        pre[0] = totals[0];
        for (size_t l = 1; l < 8; ++l) pre[l] = pre[l - 1] * totals[l];
        if (pre[7].is_zero()) refuse_equal_x<F>(x1, x2);
        F inv = pre[7].inverse();
        for (size_t l = 8; l-- > 1;) {
            inverses[l] = inv * pre[l - 1];
            inv = inv * totals[l];
        }
        inverses[0] = inv;
        affine_add_backward_ifma<F>(x1.data(), y1.data(), x2.data(), y2.data(), negate.data(), n, prefix.data(),
                                    inverses);
        return;
#else
        throw error(errc::device, "affine_add_batch: the AVX-512 IFMA path is not compiled in this build");
#endif
    }
    // The scalar path, the reference the IFMA path matches: ff::affine_add_chain (in_place.hpp),
    // the same kernel as the MSM's bucket batches.
    // (Fp2 on the AVX2 path: this chain, its inversion in AVX2 batches.)
    thread_local add_chain_scratch<F> chain;
    if (!affine_add_chain(
            n, chain, [x1](size_t i) -> F& { return x1[i]; }, [y1](size_t i) -> F& { return y1[i]; },
            [x2](size_t i) -> const F& { return x2[i]; }, [y2](size_t i) -> const F& { return y2[i]; },
            [negate](size_t i) { return negate[i] != 0; }, path == batch_path::avx2))
        refuse_equal_x<F>(x1, x2);
}

}  // namespace

void butterfly_batch(batch_path path, std::span<fr> p, std::span<fr> q, std::span<const fr> w) {
    butterfly_batch_impl(path, p, q, w);
}

fr twiddle_form(batch_path path, const fr& w) noexcept {
    if (path == batch_path::ifma) return twiddle_form_of(w);
    if (path == batch_path::avx2) return doubled(w, detail::avx2_fr_shift);
    return w;
}

void twiddle_form(batch_path path, std::span<fr> w) noexcept {
    if (path == batch_path::scalar) return;
    for (fr& x : w) x = twiddle_form(path, x);
}

void butterfly_stages(batch_path path, std::span<fr> x, std::span<const fr> stage_tw, size_t h_first) {
    butterfly_stages_impl(path, x, stage_tw, h_first);
}

void butterfly_row_stages(batch_path path, std::span<fr> x, size_t rows, size_t stride,
                          const std::function<void(size_t hr, size_t rr, fr* w)>& twiddles) {
    butterfly_row_stages_impl(path, x, rows, stride, twiddles);
}
void butterfly_stages_nr(batch_path path, std::span<fr> x, std::span<const fr> block_tw, size_t chunk_index) {
    butterfly_stages_nr_impl<fr>(path, x, block_tw, chunk_index);
}
void butterfly_row_stages_nr(batch_path path, std::span<fr> x, size_t rows, size_t stride,
                             std::span<const fr> block_tw, size_t tile_index) {
    butterfly_row_stages_nr_impl<fr>(path, x, rows, stride, block_tw, tile_index);
}

void affine_add_batch(batch_path path, std::span<fp> x1, std::span<fp> y1, std::span<const fp> x2,
                      std::span<const fp> y2, std::span<const uint8_t> negate) {
    affine_add_batch_impl(path, x1, y1, x2, y2, negate);
}
void affine_add_batch(batch_path path, std::span<fp2> x1, std::span<fp2> y1, std::span<const fp2> x2,
                      std::span<const fp2> y2, std::span<const uint8_t> negate) {
    affine_add_batch_impl(path, x1, y1, x2, y2, negate);
}

bool ifma_available() noexcept {
#if defined(C2LAB_IFMA_KERNELS)
    return cpu::use_ifma;
#else
    return false;
#endif
}

batch_path default_batch_path() noexcept { return ifma_available() ? batch_path::ifma : batch_path::scalar; }

bool avx2_available() noexcept {
    return cpu::use_avx2_asm;
}

batch_path vector_batch_path() noexcept {
    if (ifma_available()) return batch_path::ifma;
    if (avx2_available() && cpu::prefer_avx2_batches) return batch_path::avx2;
    return batch_path::scalar;
}

const char* to_string(batch_path p) noexcept {
    return p == batch_path::ifma ? "ifma" : p == batch_path::avx2 ? "avx2" : "scalar";
}

void mul_batch(std::span<fp> out, std::span<const fp> a, std::span<const fp> b) {
    mul_batch_impl(default_batch_path(), out, a, b);
}
void mul_batch(std::span<fr> out, std::span<const fr> a, std::span<const fr> b) {
    mul_batch_impl(default_batch_path(), out, a, b);
}
void square_batch(std::span<fp> out, std::span<const fp> a) { square_batch_impl(default_batch_path(), out, a); }
void square_batch(std::span<fr> out, std::span<const fr> a) { square_batch_impl(default_batch_path(), out, a); }

void scale_batch(std::span<fr> out, std::span<const fr> a, const fr& c) { scale_batch(default_batch_path(), out, a, c); }
void scale_batch(batch_path path, std::span<fr> out, std::span<const fr> a, const fr& c) {
    if (out.size() != a.size())
        throw error(errc::bad_input, "scale_batch: " + std::to_string(out.size()) + " outputs for " +
                                         std::to_string(a.size()) + " inputs; the lengths must agree");
    constexpr size_t piece = 512;
    struct broadcast {
        fr value;
        std::array<fr, piece> copies;
        bool made = false;
    };
    thread_local broadcast bc;
    if (!bc.made || bc.value != c) bc.copies.fill(c), bc.value = c, bc.made = true;
    for (size_t i = 0; i < a.size(); i += piece) {
        const size_t len = std::min(piece, a.size() - i);
        mul_batch_impl<fr>(path, out.subspan(i, len), a.subspan(i, len), std::span<const fr>(bc.copies).first(len));
    }
}

void mul_batch(batch_path path, std::span<fp> out, std::span<const fp> a, std::span<const fp> b) {
    mul_batch_impl(path, out, a, b);
}
void mul_batch(batch_path path, std::span<fr> out, std::span<const fr> a, std::span<const fr> b) {
    mul_batch_impl(path, out, a, b);
}
void square_batch(batch_path path, std::span<fp> out, std::span<const fp> a) { square_batch_impl(path, out, a); }
void square_batch(batch_path path, std::span<fr> out, std::span<const fr> a) { square_batch_impl(path, out, a); }

}  // namespace c2lab::ff

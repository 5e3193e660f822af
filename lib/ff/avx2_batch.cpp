// The AVX2 batch products (see avx2_batch.hpp): conversions between 4 elements of 64-bit limbs
// and 4-lane radix-2^29 vectors, around the generated kernels.
#include "ff/avx2_batch.hpp"

#if defined(C2LAB_HAVE_X86_ASM)

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <tbb/cache_aligned_allocator.h>

#include "ff/batch_chunk.hpp"
#include "ff/limbs.hpp"

extern "C" {
// r = (a b + q p) / 2^(29 n), limbs in [n][4] arrays (lib/ff/mont_mul_avx2_x86_64.S).
void c2lab_mont_mul_avx2x4_14(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* k);
void c2lab_mont_mul_avx2x4_9(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* k);
// Two such products, interleaved (r1 from a1 b1, r2 from a2 b2; scripts/gen_mont_asm.py's
// gen_avx2_mul2).
void c2lab_mont_mul2_avx2x4_14(uint64_t* r1, const uint64_t* a1, const uint64_t* b1, uint64_t* r2, const uint64_t* a2,
                               const uint64_t* b2, const uint64_t* k);
void c2lab_mont_mul2_avx2x4_9(uint64_t* r1, const uint64_t* a1, const uint64_t* b1, uint64_t* r2, const uint64_t* a2,
                              const uint64_t* b2, const uint64_t* k);
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
    // p in radix 2^29.
    static constexpr std::array<uint64_t, n29> modulus = to_radix<29, n29>(F::modulus);
    // The kernel's constants: p's limbs, -p^-1 mod 2^29 and the mask, each in 4 lanes.
    struct alignas(32) consts_t {
        uint64_t v[n29 + 2][4];
    };
    static constexpr consts_t consts = [] {
        consts_t c{};
        for (size_t k = 0; k < n29; ++k)
            for (auto& lane : c.v[k]) lane = modulus[k];
        for (auto& lane : c.v[n29]) lane = F::n0 & mask29;
        for (auto& lane : c.v[n29 + 1]) lane = mask29;
        return c;
    }();
};
static_assert(radix29<fp>::n29 == 14 && radix29<fp>::shift == 22);
static_assert(radix29<fr>::n29 == 9 && radix29<fr>::shift == avx2_fr_shift);

template <size_t N>
void kernel(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* k) noexcept {
    if constexpr (N == 14) c2lab_mont_mul_avx2x4_14(r, a, b, k);
    else c2lab_mont_mul_avx2x4_9(r, a, b, k);
}

// (a, b, c, d) <- their 4x4 transpose: afterwards a holds lane 0 of the four, b lane 1, and so on.
inline void transpose4x4(__m256i& a, __m256i& b, __m256i& c, __m256i& d) noexcept {
    const __m256i t0 = _mm256_unpacklo_epi64(a, b), t1 = _mm256_unpackhi_epi64(a, b);
    const __m256i t2 = _mm256_unpacklo_epi64(c, d), t3 = _mm256_unpackhi_epi64(c, d);
    a = _mm256_permute2x128_si256(t0, t2, 0x20);
    b = _mm256_permute2x128_si256(t1, t3, 0x20);
    c = _mm256_permute2x128_si256(t0, t2, 0x31);
    d = _mm256_permute2x128_si256(t1, t3, 0x31);
}

// 4 elements of N64 limbs (element e at x + N64 e) to N64 vectors (limb j of element e in lane e
// of v[j]): 4x4 transposes in registers, and for limbs 4 and 5 (Fp) one of two 128-bit halves.
// stride: words from one element's limbs to the next's (N64, 12 for a component of Fp2, or a
// multiple of N64 for elements apart).
template <size_t N64>
inline void load_soa(const uint64_t* x, __m256i* v, size_t stride = N64) noexcept {
    auto ld = [&](size_t e, size_t j) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + stride * e + j)); };
    v[0] = ld(0, 0), v[1] = ld(1, 0), v[2] = ld(2, 0), v[3] = ld(3, 0);
    transpose4x4(v[0], v[1], v[2], v[3]);
    if constexpr (N64 == 6) {
        auto ld2 = [&](size_t e) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + stride * e + 4)); };
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
inline void store_soa(uint64_t* x, const __m256i* v, size_t stride = N64) noexcept {
    auto st = [&](size_t e, size_t j, __m256i y) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(x + stride * e + j), y); };
    __m256i r0 = v[0], r1 = v[1], r2 = v[2], r3 = v[3];
    transpose4x4(r0, r1, r2, r3);
    if constexpr (N64 == 6) {
        // Limbs 0..3 of each element in one 32-byte store, limbs 4 and 5 in one of 16 bytes.
        st(0, 0, r0), st(1, 0, r1), st(2, 0, r2), st(3, 0, r3);
        const __m256i lo = _mm256_unpacklo_epi64(v[4], v[5]), hi = _mm256_unpackhi_epi64(v[4], v[5]);
        // lo = [e0.4 e0.5 e2.4 e2.5], hi = [e1.4 e1.5 e3.4 e3.5]
        auto st2 = [&](size_t e, __m128i y) { _mm_storeu_si128(reinterpret_cast<__m128i*>(x + stride * e + 4), y); };
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

// t - m where that does not borrow, else t, in place (t's N limbs normalised, m a normalised
// constant): a borrow chain, then a blend.
template <size_t N>
inline void subtract_if_at_least(uint64_t (*t)[4], const std::array<uint64_t, N>& m) noexcept {
    const __m256i mk = _mm256_set1_epi64x(static_cast<long long>(mask29));
    __m256i d[N], borrow = _mm256_setzero_si256();
#pragma GCC unroll 16
    for (size_t k = 0; k < N; ++k) {
        const __m256i v = _mm256_sub_epi64(
            _mm256_sub_epi64(_mm256_load_si256(reinterpret_cast<const __m256i*>(t[k])), _mm256_set1_epi64x(static_cast<long long>(m[k]))),
            borrow);
        borrow = _mm256_srli_epi64(v, 63);
        d[k] = _mm256_and_si256(v, mk);
    }
    const __m256i keep = _mm256_sub_epi64(_mm256_setzero_si256(), borrow);  // all ones where t < m
#pragma GCC unroll 16
    for (size_t k = 0; k < N; ++k) {
        __m256i* tk = reinterpret_cast<__m256i*>(t[k]);
        _mm256_store_si256(tk, _mm256_blendv_epi8(d[k], _mm256_load_si256(tk), keep));
    }
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
        subtract_if_at_least(tv, R::modulus);  // below 2p: now fully reduced
        __m256i r[N29];
        for (size_t k = 0; k < N29; ++k) r[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(tv[k]));
        to_radix64<N64, N29>(r, x);
        store_soa<N64>(out[4 * c].mont.data(), x);
    }
}

// Batched affine additions over Fp. Values are v29: 4 lanes, 14 limbs of 29 bits (the kernel's
// layout), normalised (every limb below 2^29) between the steps, their bounds in multiples of p:
// a product t = (a 2^22) b / R' takes a below 2^384 (its shift by 22 bits must fit 406 bits) and
// gives t < a b / 2^384 + p, below 1.41 p for a, b below 2p (4 p^2 / 2^384 = 0.41 p).
namespace {

using v4 = __m256i;
// 4 elements of F in the kernel's layout: limb k of lane e at l[k][e].
template <class F>
struct alignas(32) vec29 {
    uint64_t l[radix29<F>::n29][4];
};
using v29 = vec29<fp>;
constexpr size_t n29 = radix29<fp>::n29;

inline v4 vld(const uint64_t* p) noexcept { return _mm256_load_si256(reinterpret_cast<const v4*>(p)); }
inline void vst(uint64_t* p, v4 v) noexcept { _mm256_store_si256(reinterpret_cast<v4*>(p), v); }
inline v4 vmask() noexcept { return _mm256_set1_epi64x(static_cast<long long>(mask29)); }
inline v4 vset(uint64_t x) noexcept { return _mm256_set1_epi64x(static_cast<long long>(x)); }

// k p in radix 2^29: normalised (norm), and "borrowed" (each limb but the top one raised by 2^29
// and the next one lowered by 1: the same value with every limb below the top at least 2^29 - 1,
// so that x + kp - y keeps those limbs non-negative for a normalised y). The top limb may go
// negative in x + kp - y; the carries from below bring it back, since the value is positive.
template <class F, unsigned K>
struct multiple_of_p {
    static constexpr size_t N = radix29<F>::n29;
    std::array<uint64_t, N> norm{}, borrowed{};
    constexpr multiple_of_p() {
        uint64_t carry = 0;
        for (size_t k = 0; k < N; ++k) {
            const uint64_t v = K * radix29<F>::modulus[k] + carry;
            norm[k] = k + 1 < N ? v & mask29 : v;
            carry = v >> 29;
        }
        for (size_t k = 0; k < N; ++k)
            borrowed[k] = norm[k] + (k + 1 < N ? uint64_t{1} << 29 : 0) - (k > 0 ? 1 : 0);
    }
};
template <class F, unsigned K>
constexpr multiple_of_p<F, K> mult_p{};

// Carries up: limbs of up to 63 bits, non-negative below the top one, to 29-bit limbs.
template <class F>
inline void normalize(vec29<F>& r, const v4* t) noexcept {
    constexpr size_t N = radix29<F>::n29;
    const v4 m = vmask();
    v4 carry = _mm256_setzero_si256();
#pragma GCC unroll 16
    for (size_t k = 0; k < N; ++k) {
        const v4 v = _mm256_add_epi64(t[k], carry);
        if (k + 1 < N) {
            carry = _mm256_srli_epi64(v, 29);
            vst(r.l[k], _mm256_and_si256(v, m));
        } else {
            vst(r.l[k], v);
        }
    }
}
// r = a + b, normalised.
template <class F>
inline void add(vec29<F>& r, const vec29<F>& a, const vec29<F>& b) noexcept {
    constexpr size_t N = radix29<F>::n29;
    v4 t[N];
#pragma GCC unroll 16
    for (size_t k = 0; k < N; ++k) t[k] = _mm256_add_epi64(vld(a.l[k]), vld(b.l[k]));
    normalize(r, t);
}
// r = a + K p - b for b below K p (K = 1, 2), normalised.
template <unsigned K, class F>
inline void sub(vec29<F>& r, const vec29<F>& a, const vec29<F>& b) noexcept {
    constexpr size_t N = radix29<F>::n29;
    const auto& c = mult_p<F, K>.borrowed;
    v4 t[N];
#pragma GCC unroll 16
    for (size_t k = 0; k < N; ++k) t[k] = _mm256_sub_epi64(_mm256_add_epi64(vld(a.l[k]), vset(c[k])), vld(b.l[k]));
    normalize(r, t);
}
// Lane by lane: x where m is all ones, y elsewhere.
inline void select(v29& r, v4 m, const v29& x, const v29& y) noexcept {
#pragma GCC unroll 16
    for (size_t k = 0; k < n29; ++k) vst(r.l[k], _mm256_blendv_epi8(vld(y.l[k]), vld(x.l[k]), m));
}
// r = a 2^22 for a below 2^384 (the top limb below 2^7), the first operand of a product.
inline void shifted(v29& r, const v29& a) noexcept {
    constexpr int s = int(radix29<fp>::shift);
    const v4 m = vmask();
#pragma GCC unroll 16
    for (size_t k = n29; k-- > 0;) {
        v4 v = _mm256_slli_epi64(vld(a.l[k]), s);
        if (k > 0) v = _mm256_or_si256(v, _mm256_srli_epi64(vld(a.l[k - 1]), 29 - s));
        vst(r.l[k], _mm256_and_si256(v, m));
    }
}
// r = a_shifted b / 2^406 = a b / R, below a b / 2^384 + p; r may be either operand.
inline void mul(v29& r, const v29& a_shifted, const v29& b) noexcept {
    kernel<n29>(&r.l[0][0], &a_shifted.l[0][0], &b.l[0][0], &radix29<fp>::consts.v[0][0]);
}
// Two such products in one call of the two-product kernel (their chains through q_k interleaved:
// 20.2-21.0 against 22.1-23.3 ns a product on the Zen 4 of family 25 model 17, a loop of
// independent products); r0 may be a0 or b0 and r1 a1 or b1, no other overlap.
inline void mul2(v29& r0, const v29& a0_shifted, const v29& b0, v29& r1, const v29& a1_shifted, const v29& b1) noexcept {
    c2lab_mont_mul2_avx2x4_14(&r0.l[0][0], &a0_shifted.l[0][0], &b0.l[0][0], &r1.l[0][0], &a1_shifted.l[0][0],
                              &b1.l[0][0], &radix29<fp>::consts.v[0][0]);
}
// A normalised value below 4p to its canonical form.
inline void settle(v29& t) noexcept {
    subtract_if_at_least(t.l, mult_p<fp, 2>.norm);
    subtract_if_at_least(t.l, mult_p<fp, 1>.norm);
}
// 4 elements of F from the first one's limbs, `stride` words apart (F::n_limbs: consecutive
// elements; 12: one component of 4 elements of Fp2; or elements further apart), into the kernel's
// layout; and back (t normalised, below 2^(64 n_limbs)).
template <class F>
inline void load4(vec29<F>& r, const uint64_t* src, size_t stride = F::n_limbs) noexcept {
    constexpr size_t N64 = F::n_limbs;
    v4 x[N64];
    load_soa<N64>(src, x, stride);
    to_radix29<N64, radix29<F>::n29, 0>(x, r.l);
}
template <class F>
inline void store4(uint64_t* dst, const vec29<F>& t, size_t stride = F::n_limbs) noexcept {
    constexpr size_t N64 = F::n_limbs, N29 = radix29<F>::n29;
    v4 r[N29], x[N64];
#pragma GCC unroll 16
    for (size_t k = 0; k < N29; ++k) r[k] = vld(t.l[k]);
    to_radix64<N64, N29>(r, x);
    store_soa<N64>(dst, x, stride);
}
template <class F>
inline void load4(vec29<F>& r, const F* src, size_t stride = F::n_limbs) noexcept {
    load4(r, src[0].mont.data(), stride);
}
template <class F>
inline void store4(F* dst, const vec29<F>& t, size_t stride = F::n_limbs) noexcept {
    store4(dst[0].mont.data(), t, stride);
}

// Lanes whose bit is set in `bits`: all ones; the others zero.
inline v4 lane_mask(unsigned bits) noexcept {
    auto m = [&](unsigned l) { return (bits >> l & 1) != 0 ? -1LL : 0LL; };
    return _mm256_setr_epi64x(m(0), m(1), m(2), m(3));
}

// What the forward pass keeps per chunk for the backward pass: the prefix product, x1, x2 and
// x2 - x1.
struct record4 {
    v29 prefix, a, b, d;
};

// inv = the lane-wise inverses of the 4 totals (below 2p), canonical: Montgomery's trick on the 4
// values and one inversion. False where a total is zero.
bool invert_lanes(v29& inv, v29 total) {
    settle(total);
    fp t[4], pre[4], inv_of[4];
    store4(t, total);
    pre[0] = t[0];
    for (size_t l = 1; l < 4; ++l) pre[l] = pre[l - 1] * t[l];
    if (pre[3].is_zero()) return false;
    fp x = pre[3].inverse();
    for (size_t l = 4; l-- > 1;) {
        inv_of[l] = x * pre[l - 1];
        x = x * t[l];
    }
    inv_of[0] = x;
    load4(inv, inv_of);
    return true;
}

}  // namespace

bool affine_add_batch_avx2(fp* x1, fp* y1, const fp* x2, const fp* y2, const uint8_t* negate, size_t n) {
    // Two chains of chunks run in lockstep, chain k over chunks [k m, k m + m), so that every
    // product has an independent partner for the two-product kernel (mul2); past the last chunk,
    // chain 1 runs on padding (x2 - x1 = 1 in every lane, nothing written back).
    const size_t chunks = (n + 3) / 4, m = (chunks + 1) / 2;
    thread_local std::vector<record4, tbb::cache_aligned_allocator<record4>> rec;
    if (rec.size() < 2 * m) rec.resize(2 * m);
    affine_chunk<fp, 4> ch[2];
    auto at = [&](size_t k, size_t c) { ch[k].at(x1, y1, x2, y2, negate, std::min(4 * c, n), n); };
    // Forward: prefix[c] = prod (x2 - x1) over the chain's chunks up to c, lane by lane, below
    // 1.41 p (d below 2p).
    v29 acc_s[2];
    for (size_t i = 0; i < m; ++i) {
        for (size_t k = 0; k < 2; ++k) {
            at(k, i + k * m);
            record4& r = rec[i + k * m];
            load4(r.a, ch[k].x1);
            load4(r.b, ch[k].x2);
            sub<1>(r.d, r.b, r.a);
            if (i == 0) r.prefix = r.d;
        }
        if (i > 0) mul2(rec[i].prefix, acc_s[0], rec[i].d, rec[i + m].prefix, acc_s[1], rec[i + m].d);
        for (size_t k = 0; k < 2; ++k) shifted(acc_s[k], rec[i + k * m].prefix);
    }
    // The two chains' totals inverted together: 1 / (T0 T1), then times T1 and T0.
    v29 total, inv_v[2];
    mul(total, acc_s[0], rec[2 * m - 1].prefix);
    if (!invert_lanes(inv_v[0], total)) return false;
    shifted(acc_s[0], inv_v[0]);
    mul2(inv_v[0], acc_s[0], rec[2 * m - 1].prefix, inv_v[1], acc_s[0], rec[m - 1].prefix);
    // Backward: 1 / (x2 - x1) = inv prefix[c - 1], inv <- inv (x2 - x1) (below 1.3 p), then lambda,
    // x3 and y3. For -p2, lambda is computed without its sign, which moves into y3.
    v29 inv_s[2], inv_d[2], num[2], lambda[2], lambda_s[2], sq[2], s, x3[2], e[2], y3[2], ya[2], yb[2];
    for (size_t i = m; i-- > 0;) {
        const record4* r[2] = {&rec[i], &rec[i + m]};
        if (i > 0) {
            for (size_t k = 0; k < 2; ++k) shifted(inv_s[k], inv_v[k]);
            mul2(inv_d[0], inv_s[0], rec[i - 1].prefix, inv_d[1], inv_s[1], rec[i + m - 1].prefix);
            mul2(inv_v[0], inv_s[0], r[0]->d, inv_v[1], inv_s[1], r[1]->d);
        } else {
            inv_d[0] = inv_v[0], inv_d[1] = inv_v[1];
        }
        v4 neg[2];
        for (size_t k = 0; k < 2; ++k) {
            at(k, i + k * m);
            neg[k] = lane_mask(ch[k].neg);
            load4(ya[k], ch[k].y1);
            load4(yb[k], ch[k].y2);
            // num = y2 + y1 (negated lanes) or y2 + p - y1: below 2p.
            add(num[k], yb[k], ya[k]);
            sub<1>(s, yb[k], ya[k]);
            select(num[k], neg[k], num[k], s);
            shifted(num[k], num[k]);
        }
        mul2(lambda[0], num[0], inv_d[0], lambda[1], num[1], inv_d[1]);  // below 1.3 p
        for (size_t k = 0; k < 2; ++k) shifted(lambda_s[k], lambda[k]);
        mul2(sq[0], lambda_s[0], lambda[0], sq[1], lambda_s[1], lambda[1]);  // below 1.2 p
        for (size_t k = 0; k < 2; ++k) {
            // x3 = lambda^2 + 2p - (x1 + x2): below 3.2 p, then canonical.
            add(s, r[k]->a, r[k]->b);
            sub<2>(x3[k], sq[k], s);
            settle(x3[k]);
            // e = x3 - x1 (negated lanes) or x1 - x3, below 2p; y3 = lambda e + p - y1 below 2.3 p.
            sub<1>(e[k], x3[k], r[k]->a);
            sub<1>(s, r[k]->a, x3[k]);
            select(e[k], neg[k], e[k], s);
        }
        mul2(y3[0], lambda_s[0], e[0], y3[1], lambda_s[1], e[1]);
        for (size_t k = 0; k < 2; ++k) {
            sub<1>(y3[k], y3[k], ya[k]);
            settle(y3[k]);
            const size_t c = i + k * m;
            if (ch[k].count == 4) {
                store4(x1 + 4 * c, x3[k]);
                store4(y1 + 4 * c, y3[k]);
            } else {
                fp out[2][4];
                store4(out[0], x3[k]);
                store4(out[1], y3[k]);
                for (size_t l = 0; l < ch[k].count; ++l) x1[4 * c + l] = out[0][l], y1[4 * c + l] = out[1][l];
            }
        }
    }
    return true;
}

bool denominators_inverse_avx2(const fp2* d, const fp* norm, fp2* out, size_t n) {
    const size_t chunks = (n + 3) / 4;
    thread_local std::vector<v29, tbb::cache_aligned_allocator<v29>> prefix;
    if (prefix.size() < chunks) prefix.resize(chunks);
    // Chunk c's 4 norms, padded past n with 1 (the chains' products unchanged), and denominators
    // padded with 0.
    auto load_norms = [&](v29& r, size_t c) {
        const size_t i = 4 * c, count = std::min<size_t>(4, n - i);
        if (count == 4) return load4(r, norm + i);
        fp pad[4];
        for (size_t l = 0; l < 4; ++l) pad[l] = l < count ? norm[i + l] : fp::one();
        load4(r, pad);
    };
    // Forward: prefix[c] = prod_{c' <= c} N lane by lane, below 1.41 p.
    v29 nv, acc_s;
    for (size_t c = 0; c < chunks; ++c) {
        load_norms(nv, c);
        if (c == 0) prefix[0] = nv;
        else mul(prefix[c], acc_s, nv);
        shifted(acc_s, prefix[c]);
    }
    v29 inv;
    if (!invert_lanes(inv, prefix[chunks - 1])) return false;
    // Backward: 1/N = inv prefix[c - 1] (below 1.2 p), inv <- inv N; then 1/d = (d0 / N, (p - d1) / N)
    // as the scalar chain forms it, canonical (the products below 1.3 p, one subtraction).
    static const v29 zero{};
    v29 inv_s, e_inv, e_s, d0, d1, r0, r1;
    for (size_t c = chunks; c-- > 0;) {
        if (c > 0) {
            shifted(inv_s, inv);
            load_norms(nv, c);
            mul2(e_inv, inv_s, prefix[c - 1], inv, inv_s, nv);
        } else {
            e_inv = inv;
        }
        const size_t i = 4 * c, count = std::min<size_t>(4, n - i);
        fp2 pad[4];
        const fp2* dc = d + i;
        if (count < 4) {
            for (size_t l = 0; l < 4; ++l) pad[l] = l < count ? d[i + l] : fp2::zero();
            dc = pad;
        }
        load4(d0, dc[0].c0.mont.data(), 12);
        load4(d1, dc[0].c1.mont.data(), 12);
        sub<1>(d1, zero, d1);
        shifted(e_s, e_inv);
        mul2(r0, e_s, d0, r1, e_s, d1);
        settle(r0);
        settle(r1);
        fp2* oc = count == 4 ? out + i : pad;
        store4(oc[0].c0.mont.data(), r0, 12);
        store4(oc[0].c1.mont.data(), r1, 12);
        if (count < 4)
            for (size_t l = 0; l < count; ++l) out[i + l] = pad[l];
    }
    return true;
}

// The NTT's stages over Fr in radix 2^29 (butterfly_stages_avx2, butterfly_row_stages_avx2).
// Values are lazy between the stages: normalised limbs, below a bound B in multiples of p that
// grows by 2p a stage and is reduced once, at the end. A butterfly (p, q) <- (p + t, p + 2p - t)
// with t = q W / 2^261 (W = w 2^5, the twiddle in twiddle_form(avx2)): the kernel's result is
// below (q / 2^261 + 1) p, so below 2p for any q below 2^261 (70.5 p), and both outputs are below
// B + 2p. From canonical inputs, s stages end below (2s + 1) p: 34 stages fit 2^261.
namespace {

using f29 = vec29<fr>;
constexpr size_t fr_n29 = radix29<fr>::n29;
static_assert(2 * avx2_max_lazy_stages + 1 < 70, "(2s + 1) p below 2^261");

// (p, q) <- (p + a, p + 2p - a) for a below 2p; a may be q (every limb is read before any is written).
inline void add_sub(f29& p, f29& q, const f29& a) noexcept {
    const auto& c = mult_p<fr, 2>.borrowed;
    v4 s[fr_n29], d[fr_n29];
#pragma GCC unroll 16
    for (size_t k = 0; k < fr_n29; ++k) {
        const v4 u = vld(p.l[k]), v = vld(a.l[k]);
        s[k] = _mm256_add_epi64(u, v);
        d[k] = _mm256_sub_epi64(_mm256_add_epi64(u, vset(c[k])), v);
    }
    normalize(p, s);
    normalize(q, d);
}
// Two butterflies on distinct vectors, t = q W / 2^261 = q w / R (below 2p) for each, the products
// in one call of the two-product kernel (its two chains through q_k overlap: 8.9-9.3 against
// 9.9-10.4 ns a product on the Zen 4 of family 25 model 17, a loop of independent products).
inline void butterfly2(f29& p1, f29& q1, const f29& w1, f29& p2, f29& q2, const f29& w2) noexcept {
    f29 t[2];
    c2lab_mont_mul2_avx2x4_9(&t[0].l[0][0], &q1.l[0][0], &w1.l[0][0], &t[1].l[0][0], &q2.l[0][0], &w2.l[0][0],
                             &radix29<fr>::consts.v[0][0]);
    add_sub(p1, q1, t[0]);
    add_sub(p2, q2, t[1]);
}
// A normalised value below 2^261 to its canonical form: k = floor(v8 inv / 2^32), v8 the top limb
// and inv = floor(2^32 / (p8 + 1)), is at most floor(v / p) and falls short of v / p by less than
// 1 + v8 / 2^32 + 2^-15 < 1.2 (p8 >= 2^22); so v - k p is below 1.2 p, and one conditional
// subtraction ends it. k p (k below 2^7: 36-bit limbs) is taken off limb by limb with a
// representation of zero whose limbs below the top are at least 2^37 - 2^8 added first.
inline void reduce_lazy(f29& v) noexcept {
    constexpr auto& p = radix29<fr>::modulus;
    constexpr uint64_t inv = (uint64_t{1} << 32) / (p[fr_n29 - 1] + 1);
    static_assert(p[fr_n29 - 1] >= (uint64_t{1} << 22));
    const v4 k = _mm256_srli_epi64(_mm256_mul_epu32(vld(v.l[fr_n29 - 1]), vset(inv)), 32);
    v4 t[fr_n29];
#pragma GCC unroll 16
    for (size_t i = 0; i < fr_n29; ++i) {
        const uint64_t zero_limb = (i + 1 < fr_n29 ? uint64_t{1} << 37 : 0) - (i > 0 ? uint64_t{1} << 8 : 0);
        t[i] = _mm256_sub_epi64(_mm256_add_epi64(vld(v.l[i]), vset(zero_limb)), _mm256_mul_epu32(k, vset(p[i])));
    }
    normalize(v, t);
    subtract_if_at_least(v.l, p);
}
// A lazy value's 4 elements, reduced to canonical, `stride` words apart.
inline void store_canonical(fr* x, f29& v, size_t stride = 4) noexcept {
    reduce_lazy(v);
    store4(x, v, stride);
}
// a[e] lane l <-> a[l] lane e, limb by limb.
inline void transpose4(f29* a) noexcept {
#pragma GCC unroll 16
    for (size_t k = 0; k < fr_n29; ++k) {
        v4 r0 = vld(a[0].l[k]), r1 = vld(a[1].l[k]), r2 = vld(a[2].l[k]), r3 = vld(a[3].l[k]);
        transpose4x4(r0, r1, r2, r3);
        vst(a[0].l[k], r0), vst(a[1].l[k], r1), vst(a[2].l[k], r2), vst(a[3].l[k], r3);
    }
}
// w[0..count) (count <= 4), each broadcast to the 4 lanes of out[j].
inline void broadcast_twiddles(f29* out, const fr* w, size_t count) noexcept {
    fr pad[4] = {};
    std::copy_n(w, count, pad);
    f29 v;
    load4(v, pad);
    for (size_t j = 0; j < count; ++j) {
#pragma GCC unroll 16
        for (size_t k = 0; k < fr_n29; ++k)
            vst(out[j].l[k], _mm256_set1_epi64x(static_cast<long long>(v.l[k][j])));
    }
}

// The per-thread buffer of the stages (grown as needed, never shrunk).
f29* stage_buffer(size_t vectors) {
    thread_local std::vector<f29, tbb::cache_aligned_allocator<f29>> buf;
    if (buf.size() < vectors) buf.resize(vectors);
    return buf.data();
}

}  // namespace

void butterfly_stages_avx2(fr* x, size_t len, const fr* stage_tw, size_t h_first) {
    // Vector v, lane l holds element l q + v (q = len / 4): the stages h <= q / 2 pair vectors v and
    // v + h, every lane with the same twiddle (broadcast); the last two (h = q, 2q) pair lanes, and
    // run on groups of 4 vectors transposed, whose lanes are then 4 consecutive elements.
    const size_t q = len / 4;
    f29* xs = stage_buffer(2 * q);
    f29* ws = xs + q;  // ws[h + j]: twiddle j of stage h (2 <= h <= q / 2), broadcast
    for (size_t v = 0; v < q; ++v) load4(xs[v], x + v, 4 * q);
    for (size_t h = h_first; 2 * h <= q; h <<= 1) {
        if (h == 1) {  // twiddle 1, canonical inputs: sums and differences alone, below 2p
            for (size_t v = 0; v < q; v += 2) add_sub(xs[v], xs[v + 1], xs[v + 1]);
            continue;
        }
        for (size_t j = 0; j < h; j += 4) broadcast_twiddles(ws + h + j, stage_tw + h + j, std::min<size_t>(4, h - j));
        for (size_t blk = 0; blk < q; blk += 2 * h)
            for (size_t j = 0; j < h; j += 2)  // h >= 2
                butterfly2(xs[blk + j], xs[blk + j + h], ws[h + j], xs[blk + j + 1], xs[blk + j + 1 + h], ws[h + j + 1]);
    }
    f29 w0, w1;
    for (size_t g = 0; g < q; g += 4) {
        f29* y = xs + g;  // y[l] lane e: element l q + g + e
        transpose4(y);
        if (h_first <= q) {
            load4(w0, stage_tw + q + g);
            butterfly2(y[0], y[1], w0, y[2], y[3], w0);
        }
        load4(w0, stage_tw + 2 * q + g);
        load4(w1, stage_tw + 3 * q + g);
        butterfly2(y[0], y[2], w0, y[1], y[3], w1);
        for (size_t l = 0; l < 4; ++l) store_canonical(x + l * q + g, y[l]);
    }
}

void butterfly_row_stages_avx2(fr* x, size_t rows, size_t stride,
                               const std::function<void(size_t, size_t, fr*)>& twiddles) {
    // Row r's 16 elements in xs[4r .. 4r + 4), 4 consecutive columns a vector; each row's twiddles
    // converted once for all its blocks.
    f29* xs = stage_buffer(4 * rows + 4);
    f29* ws = xs + 4 * rows;
    for (size_t r = 0; r < rows; ++r)
        for (size_t g = 0; g < 4; ++g) load4(xs[4 * r + g], x + stride * r + 4 * g);
    fr w[16];
    for (size_t hr = 1; hr < rows; hr <<= 1)
        for (size_t rr = 0; rr < hr; ++rr) {
            twiddles(hr, rr, w);
            for (size_t g = 0; g < 4; ++g) load4(ws[g], w + 4 * g);
            for (size_t br = 0; br < rows; br += 2 * hr)
                for (size_t g = 0; g < 4; g += 2) {
                    f29* p = xs + 4 * (br + rr) + g;
                    f29* q = xs + 4 * (br + rr + hr) + g;
                    butterfly2(p[0], q[0], ws[g], p[1], q[1], ws[g + 1]);
                }
        }
    for (size_t r = 0; r < rows; ++r)
        for (size_t g = 0; g < 4; ++g) store_canonical(x + stride * r + 4 * g, xs[4 * r + g]);
}

template void mul_chunks_avx2<fp, false>(fp*, const fp*, const fp*, size_t) noexcept;
template void mul_chunks_avx2<fp, true>(fp*, const fp*, const fp*, size_t) noexcept;
template void mul_chunks_avx2<fr, false>(fr*, const fr*, const fr*, size_t) noexcept;
template void mul_chunks_avx2<fr, true>(fr*, const fr*, const fr*, size_t) noexcept;

}  // namespace c2lab::ff::detail

#endif  // C2LAB_HAVE_X86_ASM

// A 4-lane AVX2 Montgomery multiplication of Fp (an experiment: see avx2_mont.hpp).
//
// Layout: 4 elements at a time, structure of arrays in radix 2^29 (vpmuludq multiplies the low
// 32 bits of each 64-bit lane: 29 x 29 = 58-bit products). 381 bits need 14 limbs (406 bits).
// Operand scanning with lazy carries, as the IFMA kernel (ifma.cpp): for each limb a_i,
// t += a_i * b; m = t_0 * (-p^-1) mod 2^29; t += m * p; t_1 += t_0 >> 29; t shifted down by one
// limb. Each round adds two products below 2^58 to a limb, so a limb stays below
// 28 * 2^58 + 2^35 < 2^63. R' = 2^406 = R * 2^22: a is converted as a * 2^22 (bits + 22 = 403
// <= 406), so t = a 2^22 b / R' = a b / R, below 2p, and one conditional subtraction makes it
// equal to the scalar product bit for bit.
//
// Cost per 4 products: 14 * (14 + 1 + 14) = 406 vpmuludq and about as many vpaddq, plus the
// conversions (scalar shifts, per element) and the final carry chain and subtraction.
#include "ff/avx2_mont.hpp"

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace c2lab::ff {

namespace {

constexpr int n29 = 14;
constexpr uint64_t mask29 = (uint64_t{1} << 29) - 1;
constexpr int shift_a = 29 * n29 - 384;  // 22

// Bits [lo, lo + 29) of the 384-bit little-endian u (lo may be negative: zeros shifted in).
inline uint64_t bits29(const uint64_t* u, int lo) noexcept {
    if (lo <= -29 || lo >= 384) return 0;
    if (lo < 0) return (u[0] << -lo) & mask29;
    const int w = lo / 64, b = lo % 64;
    uint64_t v = u[w] >> b;
    if (b > 64 - 29 && w + 1 < 6) v |= u[w + 1] << (64 - b);
    return v & mask29;
}

struct consts {
    std::array<uint64_t, n29> p{};
    uint64_t n0 = 0;  // -p^-1 mod 2^29
};

consts make_consts() {
    consts c;
    const auto& m = fp_params::modulus;
    for (int j = 0; j < n29; ++j) c.p[size_t(j)] = bits29(m.data(), 29 * j);
    // Newton's iteration for p^-1 mod 2^64, then negated and cut to 29 bits.
    uint64_t inv = 1;
    for (int k = 0; k < 6; ++k) inv *= 2 - m[0] * inv;
    c.n0 = (0 - inv) & mask29;
    return c;
}

const consts& K() {
    static const consts c = make_consts();
    return c;
}

__attribute__((target("avx2"))) void mul4(fp* out, const fp* a, const fp* b, const consts& k) {
    alignas(32) uint64_t A[n29][4], B[n29][4];
    for (int e = 0; e < 4; ++e) {
        const uint64_t* ua = a[e].mont.data();
        const uint64_t* ub = b[e].mont.data();
        for (int j = 0; j < n29; ++j) {
            A[j][e] = bits29(ua, 29 * j - shift_a);
            B[j][e] = bits29(ub, 29 * j);
        }
    }
    __m256i bv[n29], pv[n29], t[n29 + 1];
    for (int j = 0; j < n29; ++j) {
        bv[j] = _mm256_load_si256(reinterpret_cast<const __m256i*>(B[j]));
        pv[j] = _mm256_set1_epi64x(static_cast<long long>(k.p[size_t(j)]));
        t[j] = _mm256_setzero_si256();
    }
    t[n29] = _mm256_setzero_si256();
    const __m256i n0 = _mm256_set1_epi64x(static_cast<long long>(k.n0));
    const __m256i m29 = _mm256_set1_epi64x(static_cast<long long>(mask29));
    for (int i = 0; i < n29; ++i) {
        const __m256i ai = _mm256_load_si256(reinterpret_cast<const __m256i*>(A[i]));
        for (int j = 0; j < n29; ++j) t[j] = _mm256_add_epi64(t[j], _mm256_mul_epu32(ai, bv[j]));
        const __m256i m = _mm256_and_si256(_mm256_mul_epu32(t[0], n0), m29);
        for (int j = 0; j < n29; ++j) t[j] = _mm256_add_epi64(t[j], _mm256_mul_epu32(m, pv[j]));
        const __m256i carry = _mm256_srli_epi64(t[0], 29);
        for (int j = 0; j < n29 - 1; ++j) t[j] = t[j + 1];
        t[0] = _mm256_add_epi64(t[0], carry);
        t[n29 - 1] = _mm256_setzero_si256();
    }
    // Normalise: limbs of 29 bits (the value is below 2p < 2^382: no carry out of limb 13).
    for (int j = 0; j < n29 - 1; ++j) {
        t[j + 1] = _mm256_add_epi64(t[j + 1], _mm256_srli_epi64(t[j], 29));
        t[j] = _mm256_and_si256(t[j], m29);
    }
    // s = t - p with a borrow chain; keep t where it borrowed out (t < p).
    __m256i s[n29], borrow = _mm256_setzero_si256();
    for (int j = 0; j < n29; ++j) {
        const __m256i d = _mm256_sub_epi64(_mm256_sub_epi64(t[j], pv[j]), borrow);
        borrow = _mm256_srli_epi64(d, 63);
        s[j] = _mm256_and_si256(d, m29);
    }
    const __m256i keep_t = _mm256_sub_epi64(_mm256_setzero_si256(), borrow);  // all ones where t < p
    alignas(32) uint64_t R[n29][4];
    for (int j = 0; j < n29; ++j)
        _mm256_store_si256(reinterpret_cast<__m256i*>(R[j]), _mm256_blendv_epi8(s[j], t[j], keep_t));
    for (int e = 0; e < 4; ++e) {
        fp::repr r{};
        for (int j = 0; j < n29; ++j) {
            const int lo = 29 * j, w = lo / 64, b = lo % 64;
            r[size_t(w)] |= R[j][e] << b;
            if (b > 64 - 29 && w + 1 < 6) r[size_t(w) + 1] |= R[j][e] >> (64 - b);
        }
        out[e] = fp::from_mont(r);
    }
}

}  // namespace

bool avx2_available() noexcept { return __builtin_cpu_supports("avx2"); }

void mul_batch_avx2(std::span<fp> out, std::span<const fp> a, std::span<const fp> b) {
    if (out.size() != a.size() || a.size() != b.size())
        throw error(errc::bad_input, "mul_batch_avx2: spans of different lengths");
    if (!avx2_available()) throw error(errc::device, "mul_batch_avx2: this CPU has no AVX2");
    const consts& k = K();
    size_t i = 0;
    for (; i + 4 <= out.size(); i += 4) mul4(out.data() + i, a.data() + i, b.data() + i, k);
    for (; i < out.size(); ++i) out[i] = a[i] * b[i];
}

}  // namespace c2lab::ff

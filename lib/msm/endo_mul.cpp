#include "msm/endo_mul.hpp"

#include <algorithm>
#include <array>
#include <span>

#include "msm/batch_affine.hpp"
#include "msm/glv.hpp"

namespace c2lab::msm {

namespace {

using u128 = unsigned __int128;

constexpr unsigned window = 5;
constexpr size_t table_size = size_t{1} << (window - 2);  // P, 3P, ..., 15P
constexpr size_t max_digits = 130;

template <class C>
using table = std::array<ec::affine<C>, table_size>;

// P, 3P, ..., 15P in affine (one inversion for all eight). P is not the identity and has
// order r > 15, so none of them is the identity.
template <class C>
table<C> odd_multiples(const ec::jacobian<C>& p) {
    std::array<ec::jacobian<C>, table_size> jac;
    jac[0] = p;
    const ec::jacobian<C> two_p = p.dbl();
    for (size_t i = 1; i < table_size; ++i) jac[i] = jac[i - 1] + two_p;
    table<C> out;
    batch_to_affine_serial<C>(std::span<const ec::jacobian<C>>(jac), std::span<ec::affine<C>>(out));
    return out;
}

// sum_j [k_j] T_j[0] from the tables of odd multiples of D points, one doubling chain.
template <class C, size_t D>
ec::jacobian<C> interleaved_wnaf(const std::array<table<C>, D>& tables, const std::array<u128, D>& ks) {
    int8_t digits[D][max_digits];
    size_t len[D], top = 0;
    for (size_t j = 0; j < D; ++j) {
        len[j] = wnaf5(ks[j], digits[j]);
        top = std::max(top, len[j]);
    }
    auto acc = ec::jacobian<C>::identity();
    for (size_t i = top; i-- > 0;) {
        acc = acc.dbl();
        for (size_t j = 0; j < D; ++j) {
            if (i >= len[j]) continue;
            const int d = digits[j][i];
            if (d > 0) acc += tables[j][static_cast<size_t>(d) >> 1];
            else if (d < 0) acc += -tables[j][static_cast<size_t>(-d) >> 1];
        }
    }
    return acc;
}

template <class C>
table<C> negated(table<C> t) {
    for (auto& q : t) q = -q;
    return t;
}

u128 to_u128(const ff::limbs<2>& v) { return (static_cast<u128>(v[1]) << 64) | v[0]; }

}  // namespace

size_t wnaf5(u128 k, int8_t* out) noexcept {
    constexpr int full = 1 << window, half = 1 << (window - 1);
    size_t n = 0;
    while (k != 0) {
        int d = 0;
        if (k & 1) {
            d = static_cast<int>(k & (full - 1));  // k mod 32, odd
            if (d >= half) d -= full;              // centred: -15 .. 15
            if (d > 0) k -= static_cast<u128>(d);
            else k += static_cast<u128>(-d);  // k < 2^127 + 16: no overflow
        }
        out[n++] = static_cast<int8_t>(d);
        k >>= 1;
    }
    return n;
}

ec::g1_jacobian g1_mul_endo(const ec::g1_jacobian& p, const ff::fr& k) noexcept {
    if (p.is_identity()) return p;
    const glv_signed_split s = glv_split_signed(k);
    std::array<table<ec::g1_curve>, 2> t;
    t[0] = odd_multiples(p);
    for (size_t i = 0; i < table_size; ++i) t[1][i] = glv_endo(t[0][i]);  // [m] (odd multiple)
    if (s.neg1) t[0] = negated<ec::g1_curve>(t[0]);
    if (s.neg2) t[1] = negated<ec::g1_curve>(t[1]);
    return interleaved_wnaf<ec::g1_curve, 2>(t, {to_u128(s.k1), to_u128(s.k2)});
}

ec::g2_jacobian g2_mul_endo(const ec::g2_jacobian& p, const ff::fr& k) noexcept {
    if (p.is_identity()) return p;
    // Base-|x| digits of the canonical k: three long divisions by a 64-bit divisor.
    ff::limbs<4> rest = k.to_canonical();
    std::array<u128, 4> a{};
    for (size_t j = 0; j < 3; ++j) {
        u128 rem = 0;
        for (size_t l = 4; l-- > 0;) {
            const u128 cur = (rem << 64) | rest[l];
            rest[l] = static_cast<uint64_t>(cur / ec::bls_x_abs);
            rem = cur % ec::bls_x_abs;
        }
        a[j] = rem;
    }
    a[3] = (static_cast<u128>(rest[1]) << 64) | rest[0];  // k / |x|^3 < r / |x|^3 < |x|
    std::array<table<ec::g2_curve>, 4> t;
    t[0] = odd_multiples(p);
    for (size_t j = 1; j < 4; ++j) {
        // psi^j(P) = [x^j]P = (-1)^j [|x|^j]P: T_j = -psi(T_{j-1}).
        for (size_t i = 0; i < table_size; ++i) t[j][i] = -ec::g2_psi(t[j - 1][i]);
    }
    return interleaved_wnaf<ec::g2_curve, 4>(t, a);
}

}  // namespace c2lab::msm

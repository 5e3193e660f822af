// Host-side conversion between lib/ff's fields (64-bit limbs) and the device fields (32-bit
// limbs). Both hold x R mod p with the same R, so a conversion only regroups the bits.
// Host code only (includes lib/ff); the device never sees lib/ff types.
#pragma once

#include "gpu/ff/dev_fields.hpp"
#include "ff/fields.hpp"
#include "ff/fp2.hpp"

namespace c2lab::gpu {

template <class P, class Q>
dev_mont<P> to_dev(const ff::mont_field<Q>& a) {
    static_assert(dev_mont<P>::n == 2 * ff::mont_field<Q>::n_limbs, "field widths differ");
    dev_mont<P> r{};
    for (size_t i = 0; i < ff::mont_field<Q>::n_limbs; ++i) {
        r.limb[2 * i] = uint32_t(a.mont[i]);
        r.limb[2 * i + 1] = uint32_t(a.mont[i] >> 32);
    }
    return r;
}

template <class Q, class P>
ff::mont_field<Q> to_host(const dev_mont<P>& a) {
    static_assert(dev_mont<P>::n == 2 * ff::mont_field<Q>::n_limbs, "field widths differ");
    typename ff::mont_field<Q>::repr m{};
    for (size_t i = 0; i < m.size(); ++i) m[i] = uint64_t(a.limb[2 * i]) | (uint64_t(a.limb[2 * i + 1]) << 32);
    return ff::mont_field<Q>::from_mont(m);
}

inline fr_dev to_dev(const ff::fr& a) { return to_dev<fr_dev_params>(a); }
inline fp_dev to_dev(const ff::fp& a) { return to_dev<fp_dev_params>(a); }
inline fp2_dev to_dev(const ff::fp2& a) { return {to_dev(a.c0), to_dev(a.c1)}; }
inline ff::fr to_host(const fr_dev& a) { return to_host<ff::fr_params>(a); }
inline ff::fp to_host(const fp_dev& a) { return to_host<ff::fp_params>(a); }
inline ff::fp2 to_host(const fp2_dev& a) { return {to_host(a.c0), to_host(a.c1)}; }

}  // namespace c2lab::gpu

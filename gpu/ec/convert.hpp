// Host-side conversion between lib/ec points and the device points (gpu/ec/dev_curve.hpp).
// Host code only (includes lib/ec); the device never sees lib/ec types.
//
// Layout: lib/ff holds x R mod p in 64-bit limbs, the device fields in 32-bit limbs with the
// same R; on a little-endian host the bytes are identical, so arrays of lib/ec affine points
// and Fr scalars are uploaded as they are (raw_layout_matches<C> says so at compile time).
#pragma once

#include <bit>
#include <type_traits>

#include "ec/g1.hpp"
#include "ec/g2.hpp"
#include "gpu/ec/dev_curve.hpp"
#include "gpu/ff/convert.hpp"

namespace c2lab::gpu {

// lib/ec curve -> device curve.
template <class C>
struct dev_curve_of;
template <>
struct dev_curve_of<ec::g1_curve> {
    using type = g1_dev;
};
template <>
struct dev_curve_of<ec::g2_curve> {
    using type = g2_dev;
};
template <class C>
using dev_curve_t = typename dev_curve_of<C>::type;

// True when an array of ec::affine<C> is, byte for byte, an array of the device affine points
// (and likewise ff::fr and fr_dev): then no host conversion is needed before an upload.
template <class C>
inline constexpr bool raw_layout_matches =
    std::endian::native == std::endian::little && sizeof(ec::affine<C>) == sizeof(typename dev_curve_t<C>::affine) &&
    std::is_trivially_copyable_v<ec::affine<C>> && std::is_trivially_copyable_v<typename dev_curve_t<C>::affine> &&
    sizeof(ff::fr) == sizeof(fr_dev) && std::is_trivially_copyable_v<ff::fr>;

template <class C>
typename dev_curve_t<C>::affine to_dev(const ec::affine<C>& p) {
    return {to_dev(p.x), to_dev(p.y)};
}
template <class C>
typename dev_curve_t<C>::xyzz to_dev(const ec::xyzz<C>& p) {
    if (p.is_identity()) return dev_curve_t<C>::xyzz::identity();
    return {to_dev(p.x), to_dev(p.y), to_dev(p.zz), to_dev(p.zzz)};
}

template <class C>
ec::affine<C> to_host_affine(const typename dev_curve_t<C>::affine& p) {
    return {to_host(p.x), to_host(p.y)};
}
template <class C>
ec::xyzz<C> to_host_xyzz(const typename dev_curve_t<C>::xyzz& p) {
    if (p.is_identity()) return ec::xyzz<C>::identity();
    return {to_host(p.x), to_host(p.y), to_host(p.zz), to_host(p.zzz)};
}
// (X ZZ^2, Y ZZZ^2, ZZZ) in lib/ec: 2M + 2S.
template <class C>
ec::jacobian<C> to_host_jacobian(const typename dev_curve_t<C>::xyzz& p) {
    return to_host_xyzz<C>(p).to_jacobian();
}

}  // namespace c2lab::gpu

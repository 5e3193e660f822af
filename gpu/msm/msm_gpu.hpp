// Multi-scalar multiplication on the GPU (CUDA) for G1 and G2 of BLS12-381: plain C++, no CUDA
// types. The algorithm and its kernels: gpu/msm/msm_plan.hpp; the CUDA side: msm_gpu.cuh.
//
// Two layers:
//   detail::msm_core<Dc>  the CUDA engine in device-curve terms (gpu/ec/dev_curve.hpp): bases
//                         and scalars as raw bytes (lib/ec's and lib/ff's layout, see
//                         gpu/ec/convert.hpp), window sums out. Defined in msm_gpu.cuh and
//                         instantiated in msm_g1.cu / msm_g2.cu.
//   msm_gpu<C>            the lib/ec-typed class, defined in this header on top of it (the
//                         window sums are combined on the host with lib/ec).
// The split exists because nvcc's C++ front end (EDG) cannot compile lib/ff: it rejects the
// in-class constexpr static members of mont_field's own type and gives up on the constexpr
// evaluation of the Fp6 Frobenius constants. So the .cu files see only the part of this header
// above the __CUDACC__ guard, and everything that touches lib/ec is compiled by the C++
// compiler of the code that uses msm_gpu.
//
// Without CUDA (C2LAB_HAVE_CUDA undefined) the core throws c2lab::error (device) on
// construction, so code using msm_gpu builds everywhere and asks gpu_available() first.
// Include it only from code that links c2lab_gpu (which defines C2LAB_HAVE_CUDA with CUDA).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "gpu/ec/dev_curve.hpp"
#include "gpu/timing.hpp"

namespace c2lab::gpu::detail {

template <class Dc>  // g1_dev or g2_dev
class msm_core {
public:
    using xyzz = typename Dc::xyzz;

    // Uploads n affine points (n x sizeof(Dc::affine) bytes, lib/ec's layout) to device 0,
    // once. window_bits: c for every run, 0 = pippenger::default_window_bits of each run's size.
    msm_core(const void* bases, size_t n, unsigned window_bits);
    ~msm_core();
    msm_core(const msm_core&) = delete;
    msm_core& operator=(const msm_core&) = delete;

    // count <= size() scalars (Fr, Montgomery form: 32 bytes each, lib/ff's layout) against the
    // first count bases: window_sums gets the W window sums (sum_j 2^(j c) window_sums[j] is
    // the result); returns c.
    unsigned run(const void* scalars, size_t count, std::vector<xyzz>& window_sums, gpu_timing* timing);

    size_t size() const;
    unsigned window_bits() const;  // the fixed c, or the default for size()

private:
    struct state;
    std::unique_ptr<state> s_;
};

}  // namespace c2lab::gpu::detail

#if !defined(__CUDACC__)

#include <span>
#include <string>

#include "core/error.hpp"
#include "ec/g1.hpp"
#include "ec/g2.hpp"
#include "gpu/ec/convert.hpp"
#include "gpu/msm/msm_plan.hpp"

namespace c2lab::gpu {

// Owns the device copy of one set of bases, a CUDA stream and the device buffers of the
// pipeline (grown to the largest run, kept between runs). Not thread-safe: one run at a time.
template <class C>  // ec::g1_curve or ec::g2_curve
class msm_gpu {
public:
    // Uploads the bases once (the identity (0, 0) is allowed). window_bits: 1..20, or 0 for
    // the plan's choice per run size. Throws c2lab::error: bad_input for a bad window or
    // 2^31 points or more, device for CUDA errors (no device, out of memory).
    explicit msm_gpu(std::span<const ec::affine<C>> bases, unsigned window_bits = 0);
    ~msm_gpu();
    msm_gpu(const msm_gpu&) = delete;
    msm_gpu& operator=(const msm_gpu&) = delete;

    // sum scalars[i] * bases[i] for i < scalars.size() (<= size(), errc::bad_input otherwise).
    // timing, when given, gets the host-to-device copy of the scalars, the kernels and the
    // device-to-host copy of the window sums (CUDA events on the stream).
    ec::jacobian<C> run(std::span<const ff::fr> scalars, gpu_timing* timing = nullptr);

    size_t size() const;  // the number of bases
    // The fixed window, or the plan's choice for size() points (a run with fewer scalars may
    // use a smaller one: the window follows each run's size).
    unsigned window_bits() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

// One-shot: uploads the bases, runs once. Throws as msm_gpu (bad_input when the sizes differ).
template <class C>
ec::jacobian<C> msm(std::span<const ec::affine<C>> bases, std::span<const ff::fr> scalars,
                    gpu_timing* timing = nullptr);

// ---- implementation ---------------------------------------------------------------------------

template <class C>
struct msm_gpu<C>::impl {
    static_assert(raw_layout_matches<C>, "lib/ec points are not the device points' bytes");
    using Dc = dev_curve_t<C>;
    detail::msm_core<Dc> core;
    std::vector<typename Dc::xyzz> window_sums;
    std::vector<ec::jacobian<C>> host_sums;

    impl(std::span<const ec::affine<C>> bases, unsigned window_bits)
        : core(bases.data(), bases.size(), window_bits) {}
};

template <class C>
msm_gpu<C>::msm_gpu(std::span<const ec::affine<C>> bases, unsigned window_bits) {
    pippenger::check_inputs("gpu msm", bases.size(), 0, window_bits);
    impl_ = std::make_unique<impl>(bases, window_bits);
}

template <class C>
msm_gpu<C>::~msm_gpu() = default;

template <class C>
ec::jacobian<C> msm_gpu<C>::run(std::span<const ff::fr> scalars, gpu_timing* timing) {
    pippenger::check_inputs("gpu msm", size(), scalars.size(), 0);
    const unsigned c = impl_->core.run(scalars.data(), scalars.size(), impl_->window_sums, timing);
    auto& sums = impl_->host_sums;
    sums.resize(impl_->window_sums.size());
    for (size_t j = 0; j < sums.size(); ++j) sums[j] = to_host_jacobian<C>(impl_->window_sums[j]);
    return pippenger::combine_windows(sums.data(), unsigned(sums.size()), c);
}

template <class C>
size_t msm_gpu<C>::size() const {
    return impl_->core.size();
}

template <class C>
unsigned msm_gpu<C>::window_bits() const {
    return impl_->core.window_bits();
}

template <class C>
ec::jacobian<C> msm(std::span<const ec::affine<C>> bases, std::span<const ff::fr> scalars, gpu_timing* timing) {
    if (bases.size() != scalars.size())
        throw error(errc::bad_input, "gpu msm: " + std::to_string(bases.size()) + " points but " +
                                         std::to_string(scalars.size()) + " scalars");
    return msm_gpu<C>(bases).run(scalars, timing);
}

#if defined(C2LAB_HAVE_CUDA)
namespace detail {
extern template class msm_core<g1_dev>;
extern template class msm_core<g2_dev>;
}  // namespace detail
#else
namespace detail {
template <class Dc>
struct msm_core<Dc>::state {};
template <class Dc>
msm_core<Dc>::msm_core(const void*, size_t, unsigned) {
    throw error(errc::device, "gpu msm: c2lab was built without CUDA (no nvcc when CMake configured the build)");
}
template <class Dc>
msm_core<Dc>::~msm_core() = default;
template <class Dc>
unsigned msm_core<Dc>::run(const void*, size_t, std::vector<xyzz>&, gpu_timing*) {
    throw error(errc::device, "gpu msm: c2lab was built without CUDA");
}
template <class Dc>
size_t msm_core<Dc>::size() const {
    return 0;
}
template <class Dc>
unsigned msm_core<Dc>::window_bits() const {
    return 0;
}
}  // namespace detail
#endif

}  // namespace c2lab::gpu

#endif  // !__CUDACC__

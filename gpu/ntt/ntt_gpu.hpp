// The NTT and the prover's h step on the CUDA device, for Fr (plain C++: no CUDA types).
//
// ntt_gpu owns, for one size n = 2^k: the twiddle table (n/2 elements, expanded on the device
// from small tables of powers), the coset tables, one CUDA stream with its events, and the
// device buffers: one of n elements for the transforms, three (a, b, c: the prover's memory,
// 96 n bytes) once compute_h is called. Every call copies its input to the device, runs the
// passes of gpu/ntt/ntt_plan.hpp and copies the result back; gpu_timing (when given) is
// overwritten with the three parts of this call, measured with CUDA events on the stream.
// Results equal lib/poly's bit for bit (same twiddles, same butterflies, exact arithmetic).
//
// Errors: errc::bad_input for a size that is not a power of two in [1, 2^32] or spans of the
// wrong length; errc::resource when the device memory does not suffice (the message says how
// much was asked for and how much is free); errc::device for any other CUDA failure (no
// device included). The class is defined by ntt_fr.cu, compiled only where CMake found nvcc
// (C2LAB_HAVE_CUDA); elsewhere nothing may call it (gpu/device.hpp says why not).
//
// nvcc's front end cannot compile lib/ff (mont_field's in-class constexpr members of its own
// type), so the .cu that implements the class sees ff::fr declared only; whatever needs the
// complete type is inline below, for the C++ compiler. ff::fr and gpu::fr_dev hold the same
// Montgomery bits (gpu/ff/convert.hpp), so spans are copied to the device as they are.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "gpu/timing.hpp"

#if defined(__CUDACC__)
namespace c2lab::ff {
template <class P>
class mont_field;
struct fr_params;
using fr = mont_field<fr_params>;
}  // namespace c2lab::ff
#else
#include <algorithm>
#include <bit>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "ff/fields.hpp"
#include "gpu/ff/dev_fields.hpp"
#endif

namespace c2lab::gpu {

class ntt_gpu {  // owns device buffers and twiddle tables for one size n = 2^k, a stream, the launch plan
public:
    explicit ntt_gpu(size_t n);  // errc::bad_input unless n is a power of two >= 1 and <= 2^32
    ~ntt_gpu();
    ntt_gpu(const ntt_gpu&) = delete;
    ntt_gpu& operator=(const ntt_gpu&) = delete;

    size_t size() const;

    // In place, natural order in and out, a.size() == size() (errc::bad_input otherwise):
    // the same results as poly::forward_ntt, inverse_ntt, coset_forward_ntt and
    // coset_inverse_ntt on evaluation_domain::for_size(size()).
    void forward(std::span<ff::fr> a, gpu_timing* t = nullptr);
    void inverse(std::span<ff::fr> a, gpu_timing* t = nullptr);
    void coset_forward(std::span<ff::fr> a, gpu_timing* t = nullptr);
    void coset_inverse(std::span<ff::fr> a, gpu_timing* t = nullptr);

    // bellperson's h step on the device: a, b, c of equal length m <= n (errc::bad_input
    // otherwise), padded with zeros to n = size(); returns the first n - 1 coefficients of h.
    // The same as poly::compute_h(a, b, c) when n is the next power of two >= max(m, 1), and
    // in general poly::compute_h_in_place on the padded vectors with the last coefficient dropped.
    inline std::vector<ff::fr> compute_h(std::span<const ff::fr> a, std::span<const ff::fr> b,
                                         std::span<const ff::fr> c, gpu_timing* t = nullptr);

private:
    // compute_h into h (n - 1 elements).
    void compute_h_into(std::span<const ff::fr> a, std::span<const ff::fr> b, std::span<const ff::fr> c,
                        std::span<ff::fr> h, gpu_timing* t);

    struct impl;
    std::unique_ptr<impl> impl_;
};

#if !defined(__CUDACC__)

static_assert(sizeof(ff::fr) == sizeof(fr_dev) && std::is_trivially_copyable_v<ff::fr> &&
                  std::endian::native == std::endian::little,
              "ntt_gpu copies ff::fr spans to the device as fr_dev bits");

inline std::vector<ff::fr> ntt_gpu::compute_h(std::span<const ff::fr> a, std::span<const ff::fr> b,
                                              std::span<const ff::fr> c, gpu_timing* t) {
    std::vector<ff::fr> h(size() - 1);
    compute_h_into(a, b, c, h, t);
    return h;
}

// One-shot, sized from the input: n = next power of two >= max(m, 1), as poly::compute_h
// (errc::bad_input for lengths that differ or m > 2^32). Builds the tables and allocates
// 96 n + 16 n bytes of device memory for this one call.
inline std::vector<ff::fr> compute_h(std::span<const ff::fr> a, std::span<const ff::fr> b,
                                     std::span<const ff::fr> c, gpu_timing* t = nullptr) {
    if (a.size() != b.size() || a.size() != c.size())
        throw error(errc::bad_input, "gpu::compute_h: a, b, c have different lengths (" + std::to_string(a.size()) +
                                         ", " + std::to_string(b.size()) + ", " + std::to_string(c.size()) + ")");
    if (a.size() > (size_t{1} << 32))
        throw error(errc::bad_input, "gpu::compute_h: " + std::to_string(a.size()) +
                                         " values do not fit a domain of at most 2^32 points");
    ntt_gpu g(std::bit_ceil(std::max<size_t>(a.size(), 1)));
    return g.compute_h(a, b, c, t);
}

#endif

}  // namespace c2lab::gpu

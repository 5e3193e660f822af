// The CUDA side of the GPU MSM (msm_gpu.hpp): detail::msm_core<Dc>, which owns the device
// buffers, a stream and the events, and runs pippenger::run_pipeline (msm_plan.hpp) with
//   - one kernel per launch, run_body<Body>: thread index -> the body of msm_plan.hpp;
//   - cub::DeviceRadixSort::SortPairs (the toolkit's CCCL) on 32-bit keys and values, over the
//     key bits in use only, with its double buffer (no copy back);
//   - cudaMemsetAsync for the zero fills.
// Scalars are uploaded as they are (Montgomery form) and made canonical on the device (the
// to_canonical kernel). Every CUDA call goes through C2_CUDA_CHECK, every launch is followed by
// C2_CUDA_CHECK_LAUNCH(); buffers, stream and events are RAII, so an exception frees them.
// Included by msm_g1.cu and msm_g2.cu only (one explicit instantiation each).
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/cuda_raii.cuh"
#include "gpu/msm/msm_gpu.hpp"
#include "gpu/msm/msm_plan.hpp"

namespace c2lab::gpu::detail {

template <class Body>
__global__ void __launch_bounds__(Body::block_threads) run_body(const Body body, uint32_t count) {
    const uint32_t i = blockIdx.x * Body::block_threads + threadIdx.x;
    if (i < count) body(i);
}

// The executor of run_pipeline on a stream (see msm_plan.hpp for the interface).
class cuda_executor {
public:
    cuda_executor(cudaStream_t stream, device_array<unsigned char>& sort_temp) : stream_(stream), temp_(sort_temp) {}

    template <class Body>
    void launch(size_t count, const Body& body) {
        if (count == 0) return;
        if (count > UINT32_MAX) throw error(errc::internal, "gpu msm: a launch of " + std::to_string(count) + " threads");
        const unsigned blocks = unsigned((count + Body::block_threads - 1) / Body::block_threads);
        run_body<Body><<<blocks, Body::block_threads, 0, stream_>>>(body, uint32_t(count));
        C2_CUDA_CHECK_LAUNCH();
    }

    void zero(void* p, size_t bytes) {
        if (bytes) C2_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, stream_));
    }

    // The temporary storage was sized before the first launch (sort_temp_bytes); a sort
    // needing more is a planning bug, not a reason to cudaFree while kernels are queued.
    int sort_pairs(uint32_t* const keys[2], uint32_t* const values[2], size_t count, unsigned end_bit) {
        cub::DoubleBuffer<uint32_t> k(keys[0], keys[1]), v(values[0], values[1]);
        size_t bytes = 0;
        C2_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, uint32_t(count), 0, int(end_bit), stream_));
        if (bytes > temp_.capacity())
            throw error(errc::internal, "gpu msm: the sort needs " + std::to_string(bytes) + " bytes of temporary storage, " +
                                            std::to_string(temp_.capacity()) + " reserved");
        C2_CUDA_CHECK(
            cub::DeviceRadixSort::SortPairs(temp_.get(), bytes, k, v, uint32_t(count), 0, int(end_bit), stream_));
        return k.selector;
    }

    // The largest temporary storage any pass of plan p asks for.
    static size_t sort_temp_bytes(const pippenger::plan& p) {
        size_t most = 0;
        for (unsigned pass : {0u, p.passes - 1}) {
            const unsigned wg = p.pass_windows(pass);
            cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
            size_t bytes = 0;
            C2_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, uint32_t(p.n * wg), 0,
                                                          int(pippenger::key_bits(wg * p.half))));
            if (bytes > most) most = bytes;
        }
        return most;
    }

private:
    cudaStream_t stream_;
    device_array<unsigned char>& temp_;
};

template <class Dc>
struct msm_core<Dc>::state {
    using affine = typename Dc::affine;
    size_t n = 0;
    unsigned fixed_bits = 0;
    cuda_stream stream;  // destroyed last
    cuda_event start, uploaded, computed, downloaded;
    device_array<affine> bases;
    device_array<uint32_t> scalars, keys[2], values[2], level_keys[2];
    device_array<xyzz> level_sums[2], buckets, group_sums, window_sums;
    device_array<unsigned char> sort_temp;

    ~state() { (void)cudaStreamSynchronize(stream.get()); }  // before any buffer is freed

    void reserve(const pippenger::plan& p) {
        scalars.reserve(p.n * pippenger::scalar_limbs);
        for (int i = 0; i < 2; ++i) {
            keys[i].reserve(p.pass_entries);
            values[i].reserve(p.pass_entries);
            level_keys[i].reserve(p.level_items[i]);
            level_sums[i].reserve(p.level_items[i]);
        }
        buckets.reserve(p.buckets());
        group_sums.reserve(p.group_sums());
        window_sums.reserve(p.windows);
        if (p.n) sort_temp.reserve(cuda_executor::sort_temp_bytes(p));
    }

    pippenger::pipeline_buffers<Dc> view() const {
        return {bases.get(),
                scalars.get(),
                {keys[0].get(), keys[1].get()},
                {values[0].get(), values[1].get()},
                {level_keys[0].get(), level_keys[1].get()},
                {level_sums[0].get(), level_sums[1].get()},
                buckets.get(),
                group_sums.get(),
                window_sums.get()};
    }
};

template <class Dc>
msm_core<Dc>::msm_core(const void* host_bases, size_t n, unsigned window_bits) : s_(std::make_unique<state>()) {
    pippenger::check_inputs("gpu msm", n, 0, window_bits);
    s_->n = n;
    s_->fixed_bits = window_bits;
    s_->bases.reserve(n);
    if (n) {
        C2_CUDA_CHECK(cudaMemcpyAsync(s_->bases.get(), host_bases, n * sizeof(typename Dc::affine),
                                      cudaMemcpyHostToDevice, s_->stream.get()));
        C2_CUDA_CHECK(cudaStreamSynchronize(s_->stream.get()));
    }
}

template <class Dc>
msm_core<Dc>::~msm_core() = default;

template <class Dc>
size_t msm_core<Dc>::size() const {
    return s_->n;
}

template <class Dc>
unsigned msm_core<Dc>::window_bits() const {
    return s_->fixed_bits ? s_->fixed_bits : pippenger::default_window_bits(s_->n);
}

template <class Dc>
unsigned msm_core<Dc>::run(const void* host_scalars, size_t count, std::vector<xyzz>& window_sums,
                           gpu_timing* timing) {
    pippenger::check_inputs("gpu msm", s_->n, count, s_->fixed_bits);
    pippenger::plan_options options;
    options.window_bits = s_->fixed_bits;
    const pippenger::plan p = pippenger::make_plan(count, options);
    state& s = *s_;
    s.reserve(p);  // before anything is queued: growing frees memory
    const cudaStream_t stream = s.stream.get();

    C2_CUDA_CHECK(cudaEventRecord(s.start.get(), stream));
    if (count)
        C2_CUDA_CHECK(cudaMemcpyAsync(s.scalars.get(), host_scalars, count * pippenger::scalar_limbs * sizeof(uint32_t),
                                      cudaMemcpyHostToDevice, stream));
    C2_CUDA_CHECK(cudaEventRecord(s.uploaded.get(), stream));
    cuda_executor ex(stream, s.sort_temp);
    pippenger::run_pipeline<Dc>(p, s.view(), ex);
    C2_CUDA_CHECK(cudaEventRecord(s.computed.get(), stream));
    window_sums.resize(p.windows);
    C2_CUDA_CHECK(cudaMemcpyAsync(window_sums.data(), s.window_sums.get(), p.windows * sizeof(xyzz),
                                  cudaMemcpyDeviceToHost, stream));
    C2_CUDA_CHECK(cudaEventRecord(s.downloaded.get(), stream));
    C2_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (timing) {
        float h2d = 0, kernels = 0, d2h = 0;
        C2_CUDA_CHECK(cudaEventElapsedTime(&h2d, s.start.get(), s.uploaded.get()));
        C2_CUDA_CHECK(cudaEventElapsedTime(&kernels, s.uploaded.get(), s.computed.get()));
        C2_CUDA_CHECK(cudaEventElapsedTime(&d2h, s.computed.get(), s.downloaded.get()));
        *timing = {h2d, kernels, d2h};
    }
    return p.c;
}

}  // namespace c2lab::gpu::detail

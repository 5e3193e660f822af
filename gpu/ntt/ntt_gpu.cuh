// The device side of ntt_gpu: RAII for device memory, streams and events, the kernels (each
// computes its thread's index and calls a body of gpu/ntt/ntt_plan.hpp) and the executor that
// launches them for ntt_plan.hpp's pass sequences. Included by ntt_fr.cu only (the kernels live
// in an unnamed namespace, one copy per including file).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "gpu/cuda_check.cuh"
#include "gpu/ntt/ntt_plan.hpp"

namespace c2lab::gpu::ntt {

// ---- RAII -------------------------------------------------------------------------------------

// count elements of T in device memory; a failed allocation is errc::resource with the need.
template <class T>
class device_array {
public:
    device_array() = default;
    device_array(uint64_t count, const char* what) : count_(count) {
        if (count == 0) return;
        const uint64_t bytes = count * sizeof(T);
        const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&p_), bytes);
        if (e == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            size_t free_b = 0, total_b = 0;
            (void)cudaMemGetInfo(&free_b, &total_b);
            auto mib = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20); };
            throw error(errc::resource, std::string("ntt_gpu: cannot allocate ") + mib(bytes) + " MiB of device memory for " +
                                            what + " (" + mib(free_b) + " MiB free of " + mib(total_b) + " MiB)");
        }
        C2_CUDA_CHECK(e);
    }
    device_array(device_array&& o) noexcept : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    device_array& operator=(device_array&& o) noexcept {
        if (this != &o) {
            release();
            p_ = std::exchange(o.p_, nullptr);
            count_ = std::exchange(o.count_, 0);
        }
        return *this;
    }
    ~device_array() { release(); }

    T* get() const { return p_; }
    uint64_t size() const { return count_; }
    explicit operator bool() const { return p_ != nullptr; }

private:
    void release() noexcept {
        if (p_) (void)cudaFree(p_);
        p_ = nullptr;
        count_ = 0;
    }
    T* p_ = nullptr;
    uint64_t count_ = 0;
};

class cuda_stream {
public:
    cuda_stream() { C2_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~cuda_stream() {
        if (s_) (void)cudaStreamDestroy(s_);
    }
    cuda_stream(const cuda_stream&) = delete;
    cuda_stream& operator=(const cuda_stream&) = delete;
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

class cuda_event {
public:
    cuda_event() { C2_CUDA_CHECK(cudaEventCreate(&e_)); }
    ~cuda_event() {
        if (e_) (void)cudaEventDestroy(e_);
    }
    cuda_event(const cuda_event&) = delete;
    cuda_event& operator=(const cuda_event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_ = nullptr;
};

// ---- kernels ----------------------------------------------------------------------------------

inline constexpr uint32_t elementwise_threads = 256;

namespace {

__device__ __forceinline__ uint64_t global_index() { return uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }

__global__ void twiddle_kernel(fr_dev* tw, uint64_t count, powers p) {
    const uint64_t j = global_index();
    if (j < count) twiddle_body(tw, j, p);
}

__global__ void bitrev_kernel(fr_dev* x, uint32_t log_n) {
    const uint64_t i = global_index();
    if (i < (uint64_t(1) << log_n)) bitrev_body(x, i, log_n);
}

__global__ void bitrev_scale_kernel(fr_dev* x, uint32_t log_n, powers p) {
    const uint64_t i = global_index();
    if (i < (uint64_t(1) << log_n)) bitrev_scale_body(x, i, log_n, p);
}

// One block per tile, g.threads() threads; the tile in shared memory, limb-major (a warp's
// accesses to one limb of consecutive elements fall in distinct banks).
__global__ void __launch_bounds__(tile_capacity / 2) group_kernel(fr_dev* x, const fr_dev* tw, group_geom g) {
    __shared__ uint32_t sh[tile_words];
    const uint64_t tile = blockIdx.x;
    const uint32_t tid = threadIdx.x;
    group_load_body(x, sh, g, tile, tid);
    __syncthreads();
    for (uint32_t r = 0; r < g.k; ++r) {
        group_stage_body(sh, tw, g, tile, tid, r);
        __syncthreads();
    }
    group_store_body(x, sh, g, tile, tid);
}

__global__ void finish_kernel(fr_dev* x, uint64_t n, powers s) {
    const uint64_t k = global_index();
    if (k <= n / 2) finish_inverse_body(x, k, n, s);
}

__global__ void pointwise_kernel(fr_dev* a, const fr_dev* b, const fr_dev* c, uint64_t n, fr_dev z_inv) {
    const uint64_t i = global_index();
    if (i < n) h_pointwise_body(a, b, c, i, z_inv);
}

}  // namespace

// ---- executor ---------------------------------------------------------------------------------

// ntt_plan.hpp's executor on one stream: one launch per pass, each checked. Grids stay below
// 2^31 blocks for n <= 2^32 (2^24 element-wise blocks, 2^24 tiles at most).
struct device_exec {
    cudaStream_t s;

    static unsigned blocks(uint64_t count) {
        return static_cast<unsigned>((count + elementwise_threads - 1) / elementwise_threads);
    }
    void twiddles(fr_dev* tw, uint64_t count, const powers& p) {
        if (count == 0) return;
        twiddle_kernel<<<blocks(count), elementwise_threads, 0, s>>>(tw, count, p);
        C2_CUDA_CHECK_LAUNCH();
    }
    void bitrev(fr_dev* x, uint32_t log_n) {
        bitrev_kernel<<<blocks(uint64_t(1) << log_n), elementwise_threads, 0, s>>>(x, log_n);
        C2_CUDA_CHECK_LAUNCH();
    }
    void bitrev_scale(fr_dev* x, uint32_t log_n, const powers& p) {
        bitrev_scale_kernel<<<blocks(uint64_t(1) << log_n), elementwise_threads, 0, s>>>(x, log_n, p);
        C2_CUDA_CHECK_LAUNCH();
    }
    void group(fr_dev* x, const fr_dev* tw, const group_geom& g) {
        group_kernel<<<static_cast<unsigned>(g.tiles()), g.threads(), 0, s>>>(x, tw, g);
        C2_CUDA_CHECK_LAUNCH();
    }
    void finish(fr_dev* x, uint64_t n, const powers& sc) {
        finish_kernel<<<blocks(n / 2 + 1), elementwise_threads, 0, s>>>(x, n, sc);
        C2_CUDA_CHECK_LAUNCH();
    }
    void pointwise(fr_dev* a, const fr_dev* b, const fr_dev* c, uint64_t n, const fr_dev& z_inv) {
        pointwise_kernel<<<blocks(n), elementwise_threads, 0, s>>>(a, b, c, n, z_inv);
        C2_CUDA_CHECK_LAUNCH();
    }
};

}  // namespace c2lab::gpu::ntt

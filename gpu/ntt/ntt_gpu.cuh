// The device side of ntt_gpu: the kernels (each
// computes its thread's index and calls a body of gpu/ntt/ntt_plan.hpp) and the executor that
// launches them for ntt_plan.hpp's pass sequences. Included by ntt_fr.cu only (the kernels live
// in an unnamed namespace, one copy per including file).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "gpu/cuda_check.cuh"
#include "gpu/cuda_raii.cuh"
#include "gpu/ntt/ntt_plan.hpp"

namespace c2lab::gpu::ntt {

using gpu::cuda_event;
using gpu::cuda_stream;
using gpu::device_array;

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

__global__ void pointwise_kernel(fr_dev* a, const fr_dev* b, uint64_t n, fr_dev z_inv) {
    const uint64_t i = global_index();
    if (i < n) h_pointwise_body(a, b, i, z_inv);
}

__global__ void subtract_kernel(fr_dev* a, const fr_dev* c, uint64_t n) {
    const uint64_t i = global_index();
    if (i < n) h_subtract_body(a, c, i);
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
    void pointwise(fr_dev* a, const fr_dev* b, uint64_t n, const fr_dev& z_inv) {
        pointwise_kernel<<<blocks(n), elementwise_threads, 0, s>>>(a, b, n, z_inv);
        C2_CUDA_CHECK_LAUNCH();
    }
    void subtract(fr_dev* a, const fr_dev* c, uint64_t n) {
        subtract_kernel<<<blocks(n), elementwise_threads, 0, s>>>(a, c, n);
        C2_CUDA_CHECK_LAUNCH();
    }
};

}  // namespace c2lab::gpu::ntt

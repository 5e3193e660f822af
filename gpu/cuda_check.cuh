// Every CUDA runtime call in gpu/ goes through C2_CUDA_CHECK: a failure becomes
// c2lab::error(errc::device) naming the call, the file and line, and CUDA's own message.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace c2lab::gpu {

inline void cuda_check(cudaError_t e, const char* call, const char* file, int line) {
    if (e != cudaSuccess)
        throw error(errc::device, std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                                      cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

}  // namespace c2lab::gpu

#define C2_CUDA_CHECK(call) ::c2lab::gpu::cuda_check((call), #call, __FILE__, __LINE__)
// After a kernel launch: the launch error now, the execution error at the next sync.
#define C2_CUDA_CHECK_LAUNCH() C2_CUDA_CHECK(cudaGetLastError())

#include "gpu/device.hpp"

#include <cstdio>

#include "gpu/cuda_check.cuh"

namespace c2lab::gpu {

std::optional<std::string> no_device_reason() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();  // clear the sticky error for later callers
        return std::string("no CUDA device: cudaGetDeviceCount: ") + cudaGetErrorName(e) + " (" +
               cudaGetErrorString(e) + ")";
    }
    if (count == 0) return std::string("no CUDA device: the driver reports 0 devices");
    return std::nullopt;
}

std::string device_description() {
    if (auto why = no_device_reason()) throw error(errc::device, *why);
    cudaDeviceProp prop{};
    C2_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0;
    C2_CUDA_CHECK(cudaDriverGetVersion(&driver));
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %.1f GiB, driver %d.%d)", prop.name, prop.major, prop.minor,
                  double(prop.totalGlobalMem) / double(1ull << 30), driver / 1000, (driver % 1000) / 10);
    return buf;
}

}  // namespace c2lab::gpu

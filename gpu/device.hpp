// The CUDA device as the rest of c2lab sees it: plain C++, no CUDA types, so that the CLI,
// the benchmarks and the tests include it without nvcc. Implemented in device.cu where CUDA is
// built; where it is not, gpu_available() is false with the reason "built without CUDA".
#pragma once

#include <optional>
#include <string>

namespace c2lab::gpu {

// Why no device can be used (no CUDA in this build, no driver, no GPU), or nullopt when
// device 0 is usable.
std::optional<std::string> no_device_reason();
inline bool gpu_available() { return !no_device_reason().has_value(); }

// "NVIDIA H200 (sm_90, 139.8 GiB, driver 13.0)" for device 0; throws errc::device without one.
std::string device_description();

}  // namespace c2lab::gpu

// device.hpp where c2lab is built without CUDA.
#include "gpu/device.hpp"

#include "core/error.hpp"

namespace c2lab::gpu {

std::optional<std::string> no_device_reason() {
    return std::string("c2lab was built without CUDA (no nvcc when CMake configured the build)");
}

std::string device_description() { throw error(errc::device, *no_device_reason()); }

}  // namespace c2lab::gpu

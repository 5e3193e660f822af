// host_memory.hpp where c2lab is built without CUDA: the parser works (host_memory.hpp), every
// allocation, registration and copy throws c2lab::error(errc::device).
#include "gpu/memory/host_memory.hpp"

namespace c2lab::gpu {

namespace {

[[noreturn]] void no_cuda(const char* what) {
    throw error(errc::device,
                std::string("c2lab was built without CUDA (no nvcc when CMake configured the build): ") + what +
                    " is not available");
}

}  // namespace

pinned_buffer::pinned_buffer(size_t) { no_cuda("cudaMallocHost"); }
pinned_buffer::~pinned_buffer() = default;

host_registration::host_registration(void*, size_t, register_flags) { no_cuda("cudaHostRegister"); }
host_registration::~host_registration() = default;
void host_registration::unregister() {
    if (ptr_) no_cuda("cudaHostUnregister");
}

device_buffer::device_buffer(size_t) { no_cuda("cudaMalloc"); }
device_buffer::~device_buffer() = default;

double copy_to_device_ms(device_buffer&, const void*, size_t) { no_cuda("copy_to_device_ms"); }
double copy_to_host_ms(void*, const device_buffer&, size_t) { no_cuda("copy_to_host_ms"); }

}  // namespace c2lab::gpu

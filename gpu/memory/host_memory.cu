// host_memory.hpp with CUDA.
#include "gpu/memory/host_memory.hpp"

#include <cstdio>
#include <string>

#include "gpu/cuda_check.cuh"
#include "gpu/cuda_raii.cuh"

namespace c2lab::gpu {

namespace {

// "64.0 MiB (67108864 bytes)"
std::string size_text(size_t bytes) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.1f MiB (%zu bytes)", double(bytes) / double(1ull << 20), bytes);
    return buf;
}

std::string ptr_text(const void* p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", p);
    return buf;
}

[[noreturn]] void throw_cuda(cudaError_t e, const std::string& what, const std::string& hint = {}) {
    (void)cudaGetLastError();  // do not leave a non-sticky error behind for the next caller
    throw error(errc::device, what + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")" +
                                  (hint.empty() ? "" : ": " + hint));
}

unsigned cuda_register_flags(register_flags f) {
    unsigned out = cudaHostRegisterDefault;
    if (unsigned(f) & unsigned(register_flags::portable)) out |= cudaHostRegisterPortable;
    if (unsigned(f) & unsigned(register_flags::mapped)) out |= cudaHostRegisterMapped;
    if (unsigned(f) & unsigned(register_flags::io_memory)) out |= cudaHostRegisterIoMemory;
    if (unsigned(f) & unsigned(register_flags::read_only)) out |= cudaHostRegisterReadOnly;
    return out;
}

// A stream and two events for one timed copy, released on every path.
struct timed_stream {
    cuda_stream stream_owner;
    cuda_event start_owner, stop_owner;
    cudaStream_t stream = stream_owner.get();
    cudaEvent_t start = start_owner.get(), stop = stop_owner.get();

    double copy_ms(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, const char* what) {
        C2_CUDA_CHECK(cudaEventRecord(start, stream));
        if (const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, stream); e != cudaSuccess)
            throw_cuda(e, std::string(what) + " (cudaMemcpyAsync) of " + size_text(bytes));
        C2_CUDA_CHECK(cudaEventRecord(stop, stream));
        if (const cudaError_t e = cudaEventSynchronize(stop); e != cudaSuccess)
            throw_cuda(e, std::string(what) + " of " + size_text(bytes) + " (waiting for the copy)");
        float ms = 0;
        C2_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return double(ms);
    }
};

void check_copy(const char* what, const void* host, size_t bytes, size_t device_size) {
    if (bytes > device_size)
        throw error(errc::bad_input, std::string(what) + ": " + size_text(bytes) + " does not fit the device buffer of " +
                                         size_text(device_size));
    if (bytes > 0 && host == nullptr) throw error(errc::bad_input, std::string(what) + ": null host pointer");
}

}  // namespace

// ---- pinned_buffer ----

pinned_buffer::pinned_buffer(size_t bytes) {
    if (bytes == 0) return;
    void* p = nullptr;
    if (const cudaError_t e = cudaMallocHost(&p, bytes); e != cudaSuccess)
        throw_cuda(e, "cudaMallocHost of " + size_text(bytes));
    ptr_ = p;
    size_ = bytes;
}

pinned_buffer::~pinned_buffer() {
    if (ptr_) cudaFreeHost(ptr_);
}

// ---- host_registration ----

host_registration::host_registration(void* ptr, size_t bytes, register_flags flags) {
    if (ptr == nullptr || bytes == 0)
        throw error(errc::bad_input, "cudaHostRegister: nothing to register (" +
                                         (ptr ? size_text(bytes) : std::string("null pointer")) + ")");
    if (const cudaError_t e = cudaHostRegister(ptr, bytes, cuda_register_flags(flags)); e != cudaSuccess) {
        throw_cuda(e, "cudaHostRegister of " + size_text(bytes) + " at " + ptr_text(ptr),
                   e == cudaErrorHostMemoryAlreadyRegistered
                       ? "the range is already registered, in whole or in part (the same buffer registered twice, "
                         "or an overlap with another registration)"
                       : std::string());
    }
    ptr_ = ptr;
    size_ = bytes;
}

host_registration::~host_registration() {
    if (ptr_) {
        if (cudaHostUnregister(ptr_) != cudaSuccess) (void)cudaGetLastError();
    }
}

void host_registration::unregister() {
    if (!ptr_) return;
    void* p = std::exchange(ptr_, nullptr);
    const size_t bytes = std::exchange(size_, 0);
    if (const cudaError_t e = cudaHostUnregister(p); e != cudaSuccess)
        throw_cuda(e, "cudaHostUnregister of " + size_text(bytes) + " at " + ptr_text(p));
}

// ---- device_buffer ----

device_buffer::device_buffer(size_t bytes) {
    if (bytes == 0) return;
    void* p = nullptr;
    if (const cudaError_t e = cudaMalloc(&p, bytes); e != cudaSuccess) throw_cuda(e, "cudaMalloc of " + size_text(bytes));
    ptr_ = p;
    size_ = bytes;
}

device_buffer::~device_buffer() {
    if (ptr_) cudaFree(ptr_);
}

// ---- copies ----

double copy_to_device_ms(device_buffer& dst, const void* host, size_t bytes) {
    check_copy("copy_to_device_ms", host, bytes, dst.size());
    if (bytes == 0) return 0;
    timed_stream ts;
    return ts.copy_ms(dst.data(), host, bytes, cudaMemcpyHostToDevice, "host-to-device copy");
}

double copy_to_host_ms(void* host, const device_buffer& src, size_t bytes) {
    check_copy("copy_to_host_ms", host, bytes, src.size());
    if (bytes == 0) return 0;
    timed_stream ts;
    return ts.copy_ms(host, src.data(), bytes, cudaMemcpyDeviceToHost, "device-to-host copy");
}

}  // namespace c2lab::gpu

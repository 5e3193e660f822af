// Owners of CUDA resources, shared by the host classes of gpu/ (CUDA sources only):
//   device_array<T>  device memory of count T (cudaMalloc / cudaFree), grown by reserve
//   cuda_stream      a non-blocking stream, synchronized before it is destroyed
//   cuda_event       an event for timing (cudaEventElapsedTime)
// Move-only where moving makes sense; every call checked (C2_CUDA_CHECK). A failed allocation
// is errc::resource naming what was being allocated, the MiB it needed and the MiB free.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>

#include "gpu/cuda_check.cuh"

namespace c2lab::gpu {

template <class T>
class device_array {
public:
    device_array() = default;
    device_array(size_t count, const std::string& what) { reserve(count, what); }
    device_array(device_array&& o) noexcept
        : p_(std::exchange(o.p_, nullptr)), capacity_(std::exchange(o.capacity_, 0)) {}
    device_array& operator=(device_array&& o) noexcept {
        if (this != &o) {
            release();
            p_ = std::exchange(o.p_, nullptr);
            capacity_ = std::exchange(o.capacity_, 0);
        }
        return *this;
    }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    ~device_array() { release(); }

    // At least count elements; the contents are not kept when it grows, and it never shrinks.
    // Frees the old memory first, so nothing queued may still use it.
    void reserve(size_t count, const std::string& what = "a device buffer") {
        if (p_ && count <= capacity_) return;
        release();
        const size_t bytes = (count ? count : 1) * sizeof(T);
        const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&p_), bytes);
        if (e == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            p_ = nullptr;
            size_t free_b = 0, total_b = 0;
            (void)cudaMemGetInfo(&free_b, &total_b);
            auto mib = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20); };
            throw error(errc::resource, "cannot allocate " + mib(bytes) + " MiB of device memory for " + what + " (" +
                                            mib(free_b) + " MiB free of " + mib(total_b) + " MiB)");
        }
        C2_CUDA_CHECK(e);
        capacity_ = count;
    }

    T* get() const { return p_; }
    size_t capacity() const { return capacity_; }
    explicit operator bool() const { return p_ != nullptr; }

private:
    void release() noexcept {
        if (p_) (void)cudaFree(p_);
        p_ = nullptr;
        capacity_ = 0;
    }
    T* p_ = nullptr;
    size_t capacity_ = 0;
};

class cuda_stream {
public:
    cuda_stream() { C2_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~cuda_stream() {
        if (!s_) return;
        (void)cudaStreamSynchronize(s_);  // nothing queued may outlive the buffers freed after
        (void)cudaStreamDestroy(s_);
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

}  // namespace c2lab::gpu

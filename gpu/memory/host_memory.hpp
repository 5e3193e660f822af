// The host-memory side of the CUDA backend, as the rest of c2lab sees it: plain C++, no CUDA
// types, so that the benchmarks, the CLI and the tests include it without nvcc.
//
//   pinned_buffer       page-locked host memory from cudaMallocHost (freed with cudaFreeHost)
//   host_registration   an existing host range page-locked with cudaHostRegister for as long
//                       as the object lives (cudaHostUnregister in the destructor)
//   device_buffer       device memory from cudaMalloc (freed with cudaFree)
//   copy_to_device_ms / copy_to_host_ms
//                       one cudaMemcpyAsync on a stream of its own, timed with CUDA events;
//                       synchronous for the caller (the copy is done when they return)
//   host_pinning        the variants of the host_pinning flag (declared in groth16/host_pinning.hpp):
//                       how the prover's large host buffers are page-locked (off,
//                       cudaHostRegister, cudaMallocHost)
//
// Implemented in host_memory.cu where CUDA is built; without CUDA (host_memory_none.cpp) every
// constructor and copy throws c2lab::error(errc::device) saying so. Every CUDA failure is
// c2lab::error(errc::device) naming the call, the size and CUDA's message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "groth16/host_pinning.hpp"

namespace c2lab::gpu {

// ---- the host_pinning flag: groth16/host_pinning.hpp (the engine's flags name it without gpu/) ----
using groth16::host_pinning;
using groth16::host_pinning_names;
using groth16::parse_host_pinning;
using groth16::to_string;

// ---- an owned range -----------------------------------------------------------------------

// A pointer and a size that one object owns, move-only; the derived class D releases it in its
// destructor. Moving leaves the source empty (nullptr, 0); move-assigning releases what the
// target held first (through D's destructor).
template <class D>
class owned_range {
public:
    size_t size() const noexcept { return size_; }

protected:
    owned_range() noexcept = default;
    owned_range(owned_range&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
    owned_range& operator=(owned_range&& o) noexcept {
        if (this != &o) {
            D old(std::move(static_cast<D&>(*this)));
            ptr_ = std::exchange(o.ptr_, nullptr);
            size_ = std::exchange(o.size_, 0);
        }
        return *this;
    }
    owned_range(const owned_range&) = delete;
    owned_range& operator=(const owned_range&) = delete;
    ~owned_range() = default;

    void* ptr_ = nullptr;
    size_t size_ = 0;
};

// ---- pinned host memory ------------------------------------------------------------------

// Page-locked host memory from cudaMallocHost. Move-only; an empty (default or moved-from)
// buffer has data() == nullptr and size() == 0. A size of 0 allocates nothing.
class pinned_buffer : public owned_range<pinned_buffer> {
public:
    pinned_buffer() noexcept = default;
    explicit pinned_buffer(size_t bytes);  // throws errc::device naming the size
    ~pinned_buffer();
    pinned_buffer(pinned_buffer&&) noexcept = default;
    pinned_buffer& operator=(pinned_buffer&&) noexcept = default;

    void* data() noexcept { return ptr_; }
    const void* data() const noexcept { return ptr_; }
};

// ---- registration of existing host memory ---------------------------------------------------

// cudaHostRegister's flags (combine with |). read_only needs a device that reports
// cudaDevAttrHostRegisterReadOnlySupported.
enum class register_flags : unsigned {
    none = 0,        // cudaHostRegisterDefault
    portable = 1,    // cudaHostRegisterPortable: pinned for every CUDA context
    mapped = 2,      // cudaHostRegisterMapped: also mapped into the device address space
    io_memory = 4,   // cudaHostRegisterIoMemory: the range is I/O memory
    read_only = 8,   // cudaHostRegisterReadOnly: the device only reads it
};
constexpr register_flags operator|(register_flags a, register_flags b) noexcept {
    return register_flags(unsigned(a) | unsigned(b));
}

// Page-locks [ptr, ptr + bytes) of an existing host buffer (malloc, new, mmap) with
// cudaHostRegister, which faults in and locks every page of the range; the destructor
// unregisters it (the memory itself stays the owner's and stays usable). Move-only; the
// buffer must outlive the registration. Registering a range that overlaps a registered one
// throws errc::device.
class host_registration : public owned_range<host_registration> {
public:
    host_registration() noexcept = default;
    // Throws errc::device naming the address, the size and CUDA's message.
    host_registration(void* ptr, size_t bytes, register_flags flags = register_flags::none);
    ~host_registration();  // cudaHostUnregister; a failure there is ignored (see unregister)
    host_registration(host_registration&&) noexcept = default;
    host_registration& operator=(host_registration&&) noexcept = default;

    // cudaHostUnregister now (the object becomes empty); throws errc::device on failure.
    // Nothing to do on an empty registration.
    void unregister();

    void* data() const noexcept { return ptr_; }
    bool registered() const noexcept { return ptr_ != nullptr; }
};

// ---- device memory ------------------------------------------------------------------------

// Device memory from cudaMalloc on the current device. Move-only; a size of 0 allocates
// nothing.
class device_buffer : public owned_range<device_buffer> {
public:
    device_buffer() noexcept = default;
    explicit device_buffer(size_t bytes);  // throws errc::device naming the size
    ~device_buffer();
    device_buffer(device_buffer&&) noexcept = default;
    device_buffer& operator=(device_buffer&&) noexcept = default;

    // A device pointer: not to be dereferenced on the host.
    void* data() noexcept { return ptr_; }
    const void* data() const noexcept { return ptr_; }
};

// ---- timed copies -------------------------------------------------------------------------

// Copies `bytes` from host memory (pageable or pinned) to the start of `dst` with
// cudaMemcpyAsync on a stream of its own, waits for it, and returns the milliseconds between
// CUDA events recorded on that stream before and after the copy. Throws errc::bad_input when
// bytes exceeds dst.size() (or host is null with bytes > 0), errc::device on a CUDA failure.
double copy_to_device_ms(device_buffer& dst, const void* host, size_t bytes);

// The same from the start of `src` to host memory.
double copy_to_host_ms(void* host, const device_buffer& src, size_t bytes);

}  // namespace c2lab::gpu

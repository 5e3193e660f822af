// The host_pinning flag: how the prover's large host buffers are page-locked for a device
// backend (off, cudaHostRegister, cudaMallocHost; gpu/memory/host_memory.hpp does it). Here, not
// in gpu/, so that the engine's flag registry names it without depending on the backend; light
// enough for nvcc to include.
#pragma once

#include <string>
#include <string_view>

#include "core/error.hpp"

namespace c2lab::groth16 {

enum class host_pinning {
    off,          // pageable memory: the driver stages every copy through its own pinned buffer
    register_,    // "register": cudaHostRegister on the existing (malloc/mmap) buffers
    malloc_host,  // allocate the buffers with cudaMallocHost instead
};

// "off|register|malloc_host": the variants as the user writes them.
inline std::string host_pinning_names() { return "off|register|malloc_host"; }

inline std::string_view to_string(host_pinning p) noexcept {
    switch (p) {
        case host_pinning::off: return "off";
        case host_pinning::register_: return "register";
        case host_pinning::malloc_host: return "malloc_host";
    }
    return "?";
}

// Throws c2lab::error(bad_input) naming the variant given and the valid ones.
inline host_pinning parse_host_pinning(std::string_view name) {
    if (name == "off") return host_pinning::off;
    if (name == "register") return host_pinning::register_;
    if (name == "malloc_host") return host_pinning::malloc_host;
    throw error(errc::bad_input,
                "host_pinning: unknown variant '" + std::string(name) + "' (expected " + host_pinning_names() + ")");
}

}  // namespace c2lab::groth16

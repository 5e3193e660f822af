// backend.hpp where c2lab is built without CUDA: only the CPU.
#include "gpu/backend.hpp"

#include "core/error.hpp"
#include "gpu/device.hpp"

namespace c2lab::gpu {

std::unique_ptr<groth16::prover_backend> make_prover_backend(groth16::backend_kind kind, host_pinning) {
    if (kind == groth16::backend_kind::cpu) return nullptr;
    throw error(errc::device, "--backend cuda: " + *no_device_reason());
}

}  // namespace c2lab::gpu

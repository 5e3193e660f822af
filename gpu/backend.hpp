// The prover backend named by the `backend` flag (groth16/backend.hpp):
//   cpu   nullptr: the prover runs its own CPU stages (lib/poly, lib/msm), the reference
//   cuda  the CUDA backend on device 0: compute_h with gpu::ntt_gpu, the MSMs with
//         gpu::msm_gpu (each query's bases uploaded once and kept on the device for the
//         backend's lifetime, so a second proof with the same parameters copies scalars only)
// host_pinning (the flag of that name, cuda only) decides how the host arrays the stages
// read reach the device: off copies them as they are (pageable: the driver stages each copy),
// register pins them in place for the stage (cudaHostRegister, read-only, then
// cudaHostUnregister: the cost DESIGN.md's story measured), malloc_host copies them into
// pinned memory first. The pinning time is part of the stage's time.
//
// "cuda" throws c2lab::error(errc::device) with the reason where no device can be used or
// c2lab was built without CUDA.
#pragma once

#include <memory>

#include "gpu/memory/host_memory.hpp"
#include "groth16/backend.hpp"

namespace c2lab::gpu {

std::unique_ptr<groth16::prover_backend> make_prover_backend(groth16::backend_kind kind,
                                                             host_pinning pinning = host_pinning::off);

}  // namespace c2lab::gpu

// The GPU MSM for G1 (Fp): kernels and host side from msm_gpu.cuh.
#include "gpu/msm/msm_gpu.cuh"

template class c2lab::gpu::detail::msm_core<c2lab::gpu::g1_dev>;

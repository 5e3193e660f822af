// The GPU MSM for G2 (Fp2): kernels and host side from msm_gpu.cuh.
#include "gpu/msm/msm_gpu.cuh"

template class c2lab::gpu::detail::msm_core<c2lab::gpu::g2_dev>;

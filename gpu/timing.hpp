// Where a device operation's time went, measured with CUDA events on the operation's stream:
// host-to-device copies, kernels, device-to-host copies (milliseconds). The GPU benchmarks
// report kernel_ms (or the sum) as manual time.
#pragma once

namespace c2lab::gpu {

struct gpu_timing {
    double h2d_ms = 0;
    double kernel_ms = 0;
    double d2h_ms = 0;
    double total_ms() const { return h2d_ms + kernel_ms + d2h_ms; }
};

}  // namespace c2lab::gpu

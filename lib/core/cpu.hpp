// Run-time CPU features and the switches that choose code paths from them.
// The choice of a field multiplication backend is made once, here, at start-up:
// the mulx/adcx/adox assembly where the CPU has BMI2 and ADX, else the portable
// C++ path. Setting the environment variable C2LAB_PORTABLE=1 forces the portable
// path everywhere (for A/B runs and for tools that do not model these instructions).
#pragma once

namespace c2lab::cpu {

struct features {
    bool bmi2 = false;
    bool adx = false;
    bool avx512f = false;
    bool avx512ifma = false;
};

// What the processor reports (cpuid), independent of any override.
const features& detected() noexcept;

// True when the mulx/adcx/adox field multiplication is in use.
extern const bool use_adx_asm;

}  // namespace c2lab::cpu

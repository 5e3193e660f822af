// Run-time CPU features and the switches that choose code paths from them.
// The choice of a field multiplication backend is made once, here, at start-up:
// the mulx/adcx/adox assembly where the CPU has BMI2 and ADX, else the portable
// C++ path. Setting the environment variable C2LAB_PORTABLE=1 forces the portable
// path everywhere (for A/B runs and for tools that do not model these instructions).
//
// The AVX-512 IFMA batch multiplication (ff/ifma.hpp) is chosen the same way: use_ifma is
// true where the CPU has AVX-512 F, VL, BW and IFMA and the OS saves the zmm state, unless
// the environment sets C2LAB_PORTABLE=1 (every fast path off) or C2LAB_NO_AVX512=1 (only the
// AVX-512 paths off: for valgrind, which stops at AVX-512 instructions, and for A/B runs).
// The rest of c2lab is compiled for x86-64-v3; only the kernels of ff/ifma.cpp carry an
// AVX-512 target attribute and they run only when use_ifma is true.
#pragma once

namespace c2lab::cpu {

struct features {
    bool bmi2 = false;
    bool adx = false;
    bool avx512f = false;
    bool avx512ifma = false;
    bool avx512vl = false;
    bool avx512bw = false;
    bool os_saves_zmm = false;  // OSXSAVE and XCR0 enables the opmask and zmm state
    bool amd = false;           // vendor AuthenticAMD or HygonGenuine
    unsigned family = 0;        // display family (base + extended)
};

// What the processor reports (cpuid), independent of any override.
const features& detected() noexcept;

// True when the mulx/adcx/adox field multiplication is in use.
extern const bool use_adx_asm;

// True where the NTT's scalar butterflies correct their sum and difference with pdep
// (c2lab_mont_butterflies_4_pdep, ff/mont_mul.hpp) rather than cmov: Intel cores with BMI2, where
// pdep moves 8 uops a butterfly off the ports of the product's carry chains (the Intel Xeon:
// forward 2^22 971-1025 -> 926-941 ms). Not on AMD: before Zen 3 (family 0x19) pdep is microcode
// at a cost that grows with the set bits of its mask, and on Zen 4 (family 0x19 model 0x11) the
// cmov loop measured faster (2.2% a butterfly in cache; forward 2^22 930-940 -> 917-927 ms, one
// thread, C2LAB_NO_AVX512=1; results/reference/epyc-zen4-2026-12-06.md). Zen 3, not measured,
// takes Zen 4's choice.
extern const bool pdep_butterflies;
// True when the AVX-512 IFMA batch multiplication (ff/ifma.hpp) is in use; false when the
// CPU or OS lacks it, or C2LAB_PORTABLE=1 or C2LAB_NO_AVX512=1 is set in the environment.
extern const bool use_ifma;

// True when the AVX2 assembly kernels (ff/ifma.hpp's batch_path::avx2) may run: an x86-64 build
// with its assembly, C2LAB_PORTABLE unset. c2lab is compiled for x86-64-v3: AVX2 is present
// wherever it runs at all.
extern const bool use_avx2_asm;

// True where the MSM's batched affine additions (G1's, and G2's inversion) take the AVX2 kernels
// when AVX-512 IFMA does not run (ff::vector_batch_path): AMD cores of family 0x19 (Zen 3, Zen 4),
// where the scalar product is slow (its mulx and adds do not overlap). Decided from measurements
// on Zen 4 without AVX-512 (lib/ff/avx2_batch.hpp, results/reference/epyc-zen4-avx2-2026-12-07.md:
// the 2 KiB proof 0.902x); Zen 3, not measured, takes Zen 4's choice.
extern const bool prefer_avx2_batches;

// False when C2LAB_PORTABLE=1 or C2LAB_NO_AVX512=1 is set: no AVX-512 instruction is to run,
// whatever the CPU has (also read by the libraries that choose their own kernels: simdjson).
extern const bool avx512_allowed;

// The arithmetic path in use, for reports and benchmark contexts: "avx512-ifma" (IFMA batches,
// mulx/adcx/adox scalars), "adx" (mulx/adcx/adox) or "portable".
const char* arith_path() noexcept;

}  // namespace c2lab::cpu

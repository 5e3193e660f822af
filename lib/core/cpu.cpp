#include "core/cpu.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace c2lab::cpu {

static features probe() noexcept {
    features f;
#if defined(__x86_64__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
        f.bmi2 = (ebx >> 8) & 1;
        f.adx = (ebx >> 19) & 1;
        f.avx512f = (ebx >> 16) & 1;
        f.avx512ifma = (ebx >> 21) & 1;
        f.avx512bw = (ebx >> 30) & 1;
        f.avx512vl = (ebx >> 31) & 1;
    }
    if (__get_cpuid(0, &eax, &ebx, &ecx, &edx)) {
        char vendor[13] = {};
        std::memcpy(vendor, &ebx, 4), std::memcpy(vendor + 4, &edx, 4), std::memcpy(vendor + 8, &ecx, 4);
        f.amd = std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "HygonGenuine") == 0;
    }
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
        const unsigned base = (eax >> 8) & 0xf, ext = (eax >> 20) & 0xff;
        f.family = base == 0xf ? base + ext : base;
        // The OS must save the opmask and zmm registers: OSXSAVE (leaf 1, ecx bit 27), then
        // XCR0 bits 1, 2 (SSE, AVX) and 5, 6, 7 (opmask, ZMM_Hi256, Hi16_ZMM).
        if ((ecx >> 27) & 1) {
            unsigned lo = 0, hi = 0;
            __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            f.os_saves_zmm = (lo & 0xe6) == 0xe6;
        }
    }
#endif
    return f;
}

const features& detected() noexcept {
    static const features f = probe();
    return f;
}

static bool env_flag_set(const char* name) noexcept {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

static bool portable_forced() noexcept { return env_flag_set("C2LAB_PORTABLE"); }

#if defined(C2LAB_HAVE_X86_ASM)
const bool use_adx_asm = detected().bmi2 && detected().adx && !portable_forced();
#else
const bool use_adx_asm = false;
#endif

#if defined(C2LAB_HAVE_X86_ASM)
const bool use_avx2_asm = !portable_forced();
#else
const bool use_avx2_asm = false;
#endif

const bool prefer_avx2_batches = use_avx2_asm && detected().amd && detected().family == 0x19;

const bool pdep_butterflies = detected().bmi2 && !detected().amd;

const bool avx512_allowed = !portable_forced() && !env_flag_set("C2LAB_NO_AVX512");

#if defined(__x86_64__)
const bool use_ifma = detected().avx512f && detected().avx512ifma && detected().avx512vl &&
                      detected().avx512bw && detected().os_saves_zmm && avx512_allowed;
#else
const bool use_ifma = false;
#endif

const char* arith_path() noexcept { return use_ifma ? "avx512-ifma" : use_adx_asm ? "adx" : "portable"; }

}  // namespace c2lab::cpu

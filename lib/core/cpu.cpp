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
    }
#endif
    return f;
}

const features& detected() noexcept {
    static const features f = probe();
    return f;
}

static bool portable_forced() noexcept {
    const char* v = std::getenv("C2LAB_PORTABLE");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

#if defined(C2LAB_HAVE_X86_ASM)
const bool use_adx_asm = detected().bmi2 && detected().adx && !portable_forced();
#else
const bool use_adx_asm = false;
#endif

}  // namespace c2lab::cpu

// bench_pinning: what page-locking host buffers costs (the B1 story of DESIGN.md: registering
// ~125 GiB of a/b/c touched every page and cost 5.7 s). Each iteration maps a fresh anonymous
// buffer (mmap, untouched: no page is backed yet) and times one of:
//
//   pinning/first_touch/mib:<n>     write one byte per 4 KiB page: the page faults alone
//   pinning/mlock/mib:<n>           mlock (faults in and locks every page) + munlock
//   pinning/mlock_touched/mib:<n>   the buffer touched first (untimed), then mlock + munlock:
//                                   the cost of locking alone, as when done ahead of time
//
// Counters: GiB/s (of buffer; 1000 / GiB/s = ms per GiB) and pages (4 KiB). cudaHostRegister / cudaMallocHost
// belong to the CUDA backend (gpu/), which this CPU build does not have. mlock needs
// RLIMIT_MEMLOCK at least the buffer size (root, or `ulimit -l`); when it is lower the
// benchmark is skipped with the reason.
#include <benchmark/benchmark.h>

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "bench_main.hpp"

namespace {

constexpr size_t page = 4096;

enum class mode { first_touch, mlock_cold, mlock_touched };

void touch(uint8_t* p, size_t bytes) {
    for (size_t i = 0; i < bytes; i += page) p[i] = 1;
    benchmark::ClobberMemory();
}

void pinning(benchmark::State& state, mode m) {
    const size_t bytes = size_t(state.range(0)) << 20;
    for (auto _ : state) {
        state.PauseTiming();
        void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED) {
            state.SkipWithError((std::string("mmap: ") + std::strerror(errno)).c_str());
            return;
        }
        auto* p = static_cast<uint8_t*>(mem);
        if (m == mode::mlock_touched) touch(p, bytes);
        state.ResumeTiming();
        if (m == mode::first_touch) {
            touch(p, bytes);
        } else {
            if (mlock(p, bytes) != 0) {
                const int e = errno;
                state.PauseTiming();
                munmap(mem, bytes);
                rlimit rl{};
                getrlimit(RLIMIT_MEMLOCK, &rl);
                state.SkipWithError((std::string("mlock: ") + std::strerror(e) + " (RLIMIT_MEMLOCK " +
                                     std::to_string(rl.rlim_cur) + " bytes; raise it with ulimit -l)")
                                        .c_str());
                return;
            }
            munlock(p, bytes);
        }
        state.PauseTiming();
        munmap(mem, bytes);
        state.ResumeTiming();
    }
    const double gib = double(bytes) / double(1ull << 30);
    state.counters["GiB/s"] = benchmark::Counter(gib * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["pages"] = double(bytes / page);
}

void register_all() {
    const std::pair<const char*, mode> modes[] = {
        {"pinning/first_touch", mode::first_touch}, {"pinning/mlock", mode::mlock_cold},
        {"pinning/mlock_touched", mode::mlock_touched}};
    for (const auto& [name, m] : modes)
        benchmark::RegisterBenchmark(name, [m = m](benchmark::State& s) { pinning(s, m); })
            ->ArgNames({"mib"})
            ->Arg(64)
            ->Arg(256)
            ->Arg(1024)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

// bench_pinning: what page-locking host buffers costs (the B1 story of DESIGN.md: registering
// ~125 GiB of a/b/c touched every page and cost 5.7 s), and what pinned memory buys back in
// copy bandwidth. The page-locking benchmarks map a fresh anonymous buffer (mmap, untouched:
// no page is backed yet) each iteration and time one of:
//
//   pinning/first_touch/mib:<n>     write one byte per 4 KiB page: the page faults alone
//   pinning/mlock/mib:<n>           mlock (faults in and locks every page) + munlock
//   pinning/mlock_touched/mib:<n>   the buffer touched first (untimed), then mlock + munlock:
//                                   the cost of locking alone, as when done ahead of time
//
// With a usable CUDA device (gpu/memory/host_memory.hpp; the CUDA context is created before
// any timing):
//
//   pinning/cuda_host_register/mib:<n>          cudaHostRegister + cudaHostUnregister of the
//                                               untouched buffer (registration faults in every page)
//   pinning/cuda_host_register_touched/mib:<n>  the same on a buffer touched first (untimed)
//   pinning/cuda_malloc_host/mib:<n>            cudaMallocHost + cudaFreeHost (no mmap)
//   pinning/h2d/<pageable|pinned>/mib:<n>       one host-to-device copy of the whole buffer
//   pinning/d2h/<pageable|pinned>/mib:<n>       one device-to-host copy of the whole buffer
//
// The copies reuse one touched host buffer (pageable: mmap; pinned: cudaMallocHost) and one
// device buffer per benchmark, and report manual time from CUDA events around the copy
// (Google Benchmark appends /manual_time to their names). Without a device (or without CUDA
// in the build) none of them is registered and one line on stderr says why.
//
// Sizes: 64, 256 and 1024 MiB; 4096, 16384 and 65536 MiB as well where the environment variable
// C2LAB_PINNING_MAX_MIB allows them (default 1024; e.g. C2LAB_PINNING_MAX_MIB=65536 for 1..64
// GiB on a large machine: the 64 GiB copies need that much free host and device memory).
//
// Counters: GiB/s (of buffer; 1000 / GiB/s = ms per GiB) and pages (4 KiB). mlock needs
// RLIMIT_MEMLOCK at least the buffer size (root, or `ulimit -l`); when it is lower the
// benchmark is skipped with the reason. A CUDA call that fails (e.g. out of memory at the
// larger sizes) skips that benchmark with CUDA's message.
#include <benchmark/benchmark.h>

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "core/error.hpp"
#include "gpu/device.hpp"
#include "gpu/memory/host_memory.hpp"

namespace {

constexpr size_t page = 4096;

enum class mode { first_touch, mlock_cold, mlock_touched };

void touch(uint8_t* p, size_t bytes) {
    for (size_t i = 0; i < bytes; i += page) p[i] = 1;
    benchmark::ClobberMemory();
}

// A fresh anonymous mapping, unmapped on every path.
struct mapping {
    void* p = MAP_FAILED;
    size_t n = 0;
    explicit mapping(size_t bytes) : n(bytes) {
        p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            throw c2lab::error(c2lab::errc::resource,
                               "mmap of " + std::to_string(bytes >> 20) + " MiB: " + std::strerror(errno));
    }
    ~mapping() {
        if (p != MAP_FAILED) munmap(p, n);
    }
    mapping(const mapping&) = delete;
    mapping& operator=(const mapping&) = delete;
    uint8_t* bytes() const { return static_cast<uint8_t*>(p); }
};

// GiB/s of buffer per iteration and its page count.
void report_rate(benchmark::State& state, size_t bytes) {
    const double gib = double(bytes) / double(1ull << 30);
    state.counters["GiB/s"] = benchmark::Counter(gib * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["pages"] = double(bytes / page);
}

void pinning(benchmark::State& state, mode m) {
    const size_t bytes = size_t(state.range(0)) << 20;
    try {
        for (auto _ : state) {
            state.PauseTiming();
            {
                mapping buf(bytes);
                if (m == mode::mlock_touched) touch(buf.bytes(), bytes);
                state.ResumeTiming();
                if (m == mode::first_touch) {
                    touch(buf.bytes(), bytes);
                } else {
                    if (mlock(buf.p, bytes) != 0) {
                        const int e = errno;
                        state.PauseTiming();
                        rlimit rl{};
                        getrlimit(RLIMIT_MEMLOCK, &rl);
                        state.SkipWithError((std::string("mlock: ") + std::strerror(e) + " (RLIMIT_MEMLOCK " +
                                             std::to_string(rl.rlim_cur) + " bytes; raise it with ulimit -l)")
                                                .c_str());
                        return;
                    }
                    munlock(buf.p, bytes);
                }
                state.PauseTiming();
            }  // munmap, untimed
            state.ResumeTiming();
        }
    } catch (const c2lab::error& e) {
        state.SkipWithError(e.what());
        return;
    }
    report_rate(state, bytes);
}

// ---- CUDA ----

enum class cuda_mode { host_register, host_register_touched, malloc_host };

void cuda_pinning(benchmark::State& state, cuda_mode m) {
    namespace gpu = c2lab::gpu;
    const size_t bytes = size_t(state.range(0)) << 20;
    try {
        for (auto _ : state) {
            if (m == cuda_mode::malloc_host) {
                gpu::pinned_buffer b(bytes);
                benchmark::DoNotOptimize(b.data());
                continue;  // cudaFreeHost in the destructor, timed
            }
            state.PauseTiming();
            {
                mapping buf(bytes);
                if (m == cuda_mode::host_register_touched) touch(buf.bytes(), bytes);
                state.ResumeTiming();
                gpu::host_registration r(buf.p, bytes);
                r.unregister();
                state.PauseTiming();
            }  // munmap, untimed
            state.ResumeTiming();
        }
    } catch (const c2lab::error& e) {
        state.SkipWithError(e.what());
        return;
    }
    report_rate(state, bytes);
}

// One copy of the whole buffer per iteration, timed with CUDA events (manual time).
void cuda_copy(benchmark::State& state, bool to_device, bool pinned) {
    namespace gpu = c2lab::gpu;
    const size_t bytes = size_t(state.range(0)) << 20;
    double total_ms = 0;
    try {
        gpu::device_buffer dev(bytes);
        std::optional<mapping> pageable;
        gpu::pinned_buffer pin;
        void* host = nullptr;
        if (pinned) {
            pin = gpu::pinned_buffer(bytes);
            host = pin.data();
        } else {
            pageable.emplace(bytes);
            host = pageable->p;
        }
        std::memset(host, 0x5a, bytes);  // every page backed: the copy is timed, not the faults
        auto copy = [&] {
            return to_device ? gpu::copy_to_device_ms(dev, host, bytes) : gpu::copy_to_host_ms(host, dev, bytes);
        };
        copy();  // warm-up, untimed
        for (auto _ : state) {
            const double ms = copy();
            state.SetIterationTime(ms / 1e3);
            total_ms += ms;
        }
    } catch (const c2lab::error& e) {
        state.SkipWithError(e.what());
        return;
    }
    const double gib = double(bytes) / double(1ull << 30);
    if (total_ms > 0) state.counters["GiB/s"] = gib * double(state.iterations()) / (total_ms / 1e3);
}

// 64, 256, 1024 MiB, and the larger sizes up to C2LAB_PINNING_MAX_MIB.
std::vector<int64_t> sizes_mib() {
    int64_t max_mib = 1024;
    if (const char* v = std::getenv("C2LAB_PINNING_MAX_MIB"); v && *v) {
        char* end = nullptr;
        errno = 0;
        const long long n = std::strtoll(v, &end, 10);
        if (errno == 0 && end && *end == '\0' && n > 0)
            max_mib = n;
        else
            std::cerr << "bench_pinning: ignoring C2LAB_PINNING_MAX_MIB='" << v
                      << "' (expected a positive number of MiB); the largest size stays 1024 MiB\n";
    }
    std::vector<int64_t> out{64, 256, 1024};
    for (int64_t n : {4096, 16384, 65536})
        if (n <= max_mib) out.push_back(n);
    return out;
}

void register_all() {
    const std::vector<int64_t> sizes = sizes_mib();
    auto with_sizes = [&](benchmark::internal::Benchmark* b) {
        b->ArgNames({"mib"});
        for (int64_t n : sizes) b->Arg(n);
        b->Unit(benchmark::kMillisecond);
        return b;
    };

    const std::pair<const char*, mode> modes[] = {
        {"pinning/first_touch", mode::first_touch}, {"pinning/mlock", mode::mlock_cold},
        {"pinning/mlock_touched", mode::mlock_touched}};
    for (const auto& [name, m] : modes)
        with_sizes(benchmark::RegisterBenchmark(name, [m = m](benchmark::State& s) { pinning(s, m); }))->UseRealTime();

    if (const auto why = c2lab::gpu::no_device_reason()) {
        std::cerr << "bench_pinning: CUDA benchmarks not registered: " << *why << "\n";
        return;
    }
    try {
        c2lab::gpu::device_buffer warm(1);  // creates the CUDA context outside every timing
    } catch (const c2lab::error& e) {
        std::cerr << "bench_pinning: CUDA benchmarks not registered: " << e.what() << "\n";
        return;
    }
    const std::pair<const char*, cuda_mode> cuda_modes[] = {
        {"pinning/cuda_host_register", cuda_mode::host_register},
        {"pinning/cuda_host_register_touched", cuda_mode::host_register_touched},
        {"pinning/cuda_malloc_host", cuda_mode::malloc_host}};
    for (const auto& [name, m] : cuda_modes)
        with_sizes(benchmark::RegisterBenchmark(name, [m = m](benchmark::State& s) { cuda_pinning(s, m); }))
            ->UseRealTime();
    for (const bool to_device : {true, false})
        for (const bool pinned : {false, true}) {
            const std::string name =
                std::string("pinning/") + (to_device ? "h2d/" : "d2h/") + (pinned ? "pinned" : "pageable");
            with_sizes(benchmark::RegisterBenchmark(
                           name.c_str(), [=](benchmark::State& s) { cuda_copy(s, to_device, pinned); }))
                ->UseManualTime();
        }
}
C2LAB_BENCH_REGISTRATION(register_all);

}  // namespace

// Transparent huge pages for large buffers: 2 MiB pages mean 512 times fewer page faults on the
// first touch and fewer TLB misses on random reads. Where THP is in "madvise" mode (Debian's
// default) only advised memory gets them. Advice only: nothing fails where the kernel declines.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <stop_token>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include "core/parallel.hpp"

namespace c2lab {

inline constexpr size_t huge_page_bytes = size_t{2} << 20;

// MADV_HUGEPAGE over the whole 2 MiB pages inside [p, p + bytes); for memory not yet touched
// (the kernel backs a page with a huge one at its first fault).
inline void advise_huge_pages(const void* p, size_t bytes) noexcept {
    const auto lo = (reinterpret_cast<uintptr_t>(p) + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    const auto hi = (reinterpret_cast<uintptr_t>(p) + bytes) / huge_page_bytes * huge_page_bytes;
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
}

// Faults in the pages of [p, p + bytes) writable (MADV_POPULATE_WRITE, Linux 5.14) in one
// call, without a trap per page: for memory about to be written in full. Best effort: nothing
// happens where the kernel does not know the advice. Callers split large ranges over threads.
inline void populate_pages(void* p, size_t bytes) noexcept {
#ifdef MADV_POPULATE_WRITE
    constexpr uintptr_t page = 4096;
    const auto lo = reinterpret_cast<uintptr_t>(p) / page * page;
    const auto hi = (reinterpret_cast<uintptr_t>(p) + bytes + page - 1) / page * page;
    if (bytes != 0) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
#else
    (void)p, (void)bytes;
#endif
}

// populate_pages over [p, p + bytes) in pieces of `grain` bytes on the current arena's threads.
inline void populate_pages_in_parallel(void* p, size_t bytes, size_t grain = size_t{16} << 20) {
    char* base = static_cast<char*>(p);
    parallel::for_chunks(bytes, grain, [base](size_t lo, size_t hi) { populate_pages(base + lo, hi - lo); });
}

// populate_pages over several ranges on a thread of its own, beside a writer that moves through
// them in step (the vectors a synthesis appends to): each range is cut into the same number of
// slices of about `slice` bytes (the largest range's), and slice k of every range is populated
// before slice k + 1 of any, so that the pages ahead of the writer are mapped when it gets there.
// The page faults, the kernel's zeroing of the pages and, on a VM, the backing of guest memory then
// cost another core, not the writer's. Best effort: where the thread cannot start, nothing is
// populated. stop() (and the destructor, and a move assignment over a running one) ends it after
// the slice under way and joins the thread; the ranges must stay mapped until then.
class background_populate {
public:
    background_populate() = default;
    explicit background_populate(std::vector<std::pair<void*, size_t>> ranges, size_t slice = size_t{16} << 20) {
        size_t largest = 0;
        for (const auto& r : ranges) largest = std::max(largest, r.second);
        if (largest == 0) return;
        const size_t rounds = (largest + slice - 1) / std::max<size_t>(slice, 1);
        try {
            thread_ = std::jthread([ranges = std::move(ranges), rounds](std::stop_token stop) {
                for (size_t k = 0; k < rounds && !stop.stop_requested(); ++k)
                    for (const auto& [p, bytes] : ranges) {
                        const size_t lo = bytes * k / rounds, hi = bytes * (k + 1) / rounds;
                        populate_pages(static_cast<char*>(p) + lo, hi - lo);
                    }
            });
        } catch (const std::system_error&) {
            // no thread: the writer faults its pages in itself
        }
    }
    background_populate(background_populate&&) noexcept = default;
    background_populate& operator=(background_populate&&) noexcept = default;

    // Ends the population after the slice under way and waits for it; no-op when not running.
    void stop() noexcept {
        if (!thread_.joinable()) return;
        thread_.request_stop();
        thread_.join();
    }
    // Waits until every range is populated (or the population was stopped); no-op when not running.
    void wait() noexcept {
        if (thread_.joinable()) thread_.join();
    }
    // A thread was started and not yet joined (it may have finished its ranges).
    bool running() const noexcept { return thread_.joinable(); }

private:
    std::jthread thread_;
};

struct free_deleter {
    void operator()(void* p) const noexcept { std::free(p); }
};

// Uninitialised storage of `bytes`: 2 MiB aligned and advised from 2 MiB up, 64-byte aligned
// below. Throws std::bad_alloc.
inline std::unique_ptr<void, free_deleter> alloc_huge_aligned(size_t bytes) {
    const size_t align = bytes >= huge_page_bytes ? huge_page_bytes : 64;
    const size_t rounded = (std::max<size_t>(bytes, 1) + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded);
    if (p == nullptr) throw std::bad_alloc();
    if (align == huge_page_bytes) advise_huge_pages(p, rounded);
    return std::unique_ptr<void, free_deleter>(p);
}

// An allocator for std::vector and the like over alloc_huge_aligned: huge pages from 2 MiB up
// (large arrays read at random, such as an MSM's buckets), a cache line below.
template <class T>
struct huge_page_allocator {
    using value_type = T;
    huge_page_allocator() = default;
    template <class U>
    huge_page_allocator(const huge_page_allocator<U>&) noexcept {}
    T* allocate(size_t n) { return static_cast<T*>(alloc_huge_aligned(n * sizeof(T)).release()); }
    void deallocate(T* p, size_t) noexcept { std::free(p); }
    friend bool operator==(const huge_page_allocator&, const huge_page_allocator&) noexcept { return true; }
};

}  // namespace c2lab

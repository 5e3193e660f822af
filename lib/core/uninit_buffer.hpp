// uninit_buffer<T>: a growable array whose elements are left uninitialised, for large
// scratch arrays that a parallel loop then writes in full. A std::vector value-initialises
// its elements in the calling thread, so every page is first touched (faulted in and
// zeroed) by one thread before the parallel loop starts: a serial prefix of the MSM's
// endomorphism split (when it wrote 2^21 points and recoded scalars, 280 MB, at 2^20 pairs; now
// the recoded scalars, 40 MB) and of the evaluation domain's twiddle tables (64 MB at 2^22).
// Here the page faults happen in the threads that write the elements.
//
// T must be trivially copyable and trivially destructible (an implicit-lifetime type: the
// storage from std::aligned_alloc holds its objects as soon as they are assigned).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <type_traits>

#include "core/huge_pages.hpp"

namespace c2lab {

// HugePages: storage from alloc_huge_aligned (huge pages from 2 MiB up), for tables read at
// strides or at random; else on a cache line.
template <class T, bool HugePages = false>
class uninit_buffer {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "uninit_buffer holds plain data only");

public:
    uninit_buffer() = default;

    // Makes room for n elements; the contents are undefined afterwards (not preserved).
    // Keeps the storage when it is large enough already.
    void resize_discard(size_t n) {
        if (n > capacity_) {
            mem_.reset();
            // On a cache line: the vector kernels' 64-byte loads then never straddle two lines,
            // and a 96-byte point spans two lines, never three.
            void* p = HugePages ? alloc_huge_aligned(n * sizeof(T)).release()
                                : std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
            if (p == nullptr) throw std::bad_alloc();
            mem_.reset(static_cast<T*>(p));
            capacity_ = n;
        }
        size_ = n;
    }

    T* data() noexcept { return mem_.get(); }
    const T* data() const noexcept { return mem_.get(); }
    size_t size() const noexcept { return size_; }
    T& operator[](size_t i) noexcept { return mem_.get()[i]; }
    const T& operator[](size_t i) const noexcept { return mem_.get()[i]; }
    std::span<T> span() noexcept { return {mem_.get(), size_}; }
    std::span<const T> span() const noexcept { return {mem_.get(), size_}; }

private:
    struct deleter {
        void operator()(T* p) const noexcept { std::free(p); }
    };
    std::unique_ptr<T, deleter> mem_;
    size_t size_ = 0, capacity_ = 0;
};

}  // namespace c2lab

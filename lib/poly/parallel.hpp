// Thread control for the poly layer: run work in a oneTBB arena of a chosen size and
// split index ranges into chunks. Internal to lib/poly (the NTT, the domain, h).
//
// threads == 0 runs in the caller's arena (by default oneTBB's, which uses every core);
// threads == k > 0 runs inside a tbb::task_arena of k slots (the caller plus k-1 workers).
// Every split here is over independent elements: results never depend on the thread count.
#pragma once

#include <cstddef>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace c2lab::poly::detail {

// Work below this many elements (or butterflies) stays on the calling thread: a oneTBB
// task costs about a microsecond, a field multiplication about 10 ns.
inline constexpr size_t parallel_grain = size_t{1} << 12;

template <class F>
void with_threads(unsigned threads, F&& f) {
    if (threads == 0) {
        std::forward<F>(f)();
        return;
    }
    tbb::task_arena arena(static_cast<int>(threads));
    arena.execute(std::forward<F>(f));
}

// body(lo, hi) over [0, n) in chunks of at most about `grain` (serial when n <= grain).
template <class Body>
void for_chunks(size_t n, size_t grain, const Body& body) {
    if (n <= grain) {
        if (n) body(size_t{0}, n);
        return;
    }
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, grain),
                      [&](const tbb::blocked_range<size_t>& r) { body(r.begin(), r.end()); });
}

}  // namespace c2lab::poly::detail

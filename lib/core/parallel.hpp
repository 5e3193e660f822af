// Thread control shared by every parallel stage (oneTBB).
//
// in_arena(threads, f): threads == 0 runs f in the caller's arena (by default oneTBB's
// global one, every core); threads == k > 0 runs it inside a tbb::task_arena of k slots
// (the caller plus k-1 workers). for_chunks splits an index range into chunks. Results of
// c2lab's stages never depend on the thread count: the split changes, the answer does not.
#pragma once

#include <cstddef>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace c2lab::parallel {

// Work below this many elements stays on the calling thread: a oneTBB task costs about a
// microsecond, a field multiplication about 20 ns.
inline constexpr size_t default_grain = size_t{1} << 12;

template <class F>
auto in_arena(unsigned threads, F&& f) -> decltype(f()) {
    if (threads == 0) return f();
    tbb::task_arena arena(static_cast<int>(threads));
    return arena.execute(f);
}

// The parallelism the current arena offers (1 when running single-threaded).
inline unsigned arena_concurrency() noexcept {
    int c = tbb::this_task_arena::max_concurrency();
    return c > 0 ? static_cast<unsigned>(c) : 1;
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

}  // namespace c2lab::parallel

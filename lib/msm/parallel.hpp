// Thread control for the msm layer. threads == 0 runs in the caller's oneTBB arena (by
// default oneTBB's global one, which uses every core); threads == k > 0 runs inside a
// tbb::task_arena of k slots. Results never depend on the thread count: the work split
// changes, the group element does not.
#pragma once

#include <tbb/task_arena.h>

namespace c2lab::msm {

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

}  // namespace c2lab::msm

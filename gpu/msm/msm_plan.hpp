// The GPU multi-scalar multiplication sum_i k_i P_i (Pippenger, sort-based bucket assignment in
// the manner of supranational/sppark msm/pippenger.cuh): the launch plan, the per-thread
// bodies of every kernel, and the schedule that strings them together. Plain C++ with C2_HD
// bodies and no CUDA types: gpu/msm/msm_gpu.cuh runs the schedule with CUDA launches and CUB's
// radix sort, gpu/msm/msm_emulate.hpp with host loops and std::stable_sort, so the host tests
// exercise the very code (bodies and schedule) that the device runs.
//
// Algorithm, for n points and window c (W = floor(255/c) + 1 windows, H = 2^(c-1) buckets each):
//   1. to_canonical: scalars arrive in Montgomery form (ff::fr's bits) and are converted to
//      canonical integers on the device, in place (one Fr multiplication each).
//   2. digits: each scalar is recoded into W signed digits in [-(H - 1), H] (carry into the
//      next window; the extra window takes the last carry). Windows are processed in passes of
//      up to windows_per_pass windows (a memory bound on the sort). For each window j of the
//      pass and point i: key = (j - w0) H + |d| - 1 (the bucket), value = i | sign(d) << 31.
//      Zero digits get the key `sentinel` = (windows in pass) H, which sorts last and is
//      skipped.
//   3. sort of the (key, value) pairs by key (CUB radix sort, only the bits the keys use):
//      each bucket's points become one contiguous run.
//   4. accumulation, a segmented reduction by key that is balanced whatever the digits (all
//      scalars equal puts every point into one bucket, and real witnesses have many 0 and 1):
//      the sorted array is cut into segments of L entries, one thread each. A thread sums
//      each run of equal keys in its segment (xyzz + affine, negating for negative digits);
//      a run that lies wholly in the segment is a finished bucket and is written out; the run
//      at either end of the segment that continues into the neighbour is written as a partial
//      sum to the next level's slot 2t or 2t+1 (an empty slot gets a key flagged no_data).
//      The next level (2 slots per segment, still sorted by key) is reduced the same way,
//      with xyzz + xyzz additions, until one segment covers a level. Every bucket is written
//      exactly once: at the level where all its data fits in one segment.
//   5. bucket reduction per window, sum_b b B_b, split into groups of G buckets, one thread
//      each: a running sum over its G buckets from the top gives sum (b - b0) B_b and sum
//      B_b, then sum B_b times the offset b0 (double and add) is added. Group sums are added
//      by a tree (log2(groups) launches) and gathered into one sum per window.
//   6. on the host: Horner over the window sums with c doublings per window.
// Additions: about W n mixed (8M + 2S) plus 2 W H full (12M + 2S) plus the partial sums of
// the upper levels (about 2 W n / L).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "gpu/ec/dev_curve.hpp"

namespace c2lab::gpu::pippenger {

inline constexpr unsigned scalar_bits = 255;      // r < 2^255
inline constexpr unsigned scalar_limbs = 8;       // 32-bit limbs of an Fr element
inline constexpr unsigned min_window_bits = 1;
inline constexpr unsigned max_window_bits = 20;   // digits and keys fit; buckets stay < 1 GiB per window
inline constexpr uint32_t sign_bit = 0x80000000u;  // in a sort value: the point is negated
inline constexpr uint32_t no_data = 0x80000000u;   // in a level key: the slot holds no sum
inline constexpr uint32_t key_mask = 0x7fffffffu;
inline constexpr size_t max_points = size_t{1} << 31;  // point indices take 31 bits of a value
// Threads worth having in an accumulation launch: segments are shortened (down to 4 entries)
// until a level has this many. An H100/H200 keeps about 2^16 of these register-heavy threads
// resident (132 SMs).
inline constexpr size_t accumulate_threads = size_t{1} << 16;

// ---- window size --------------------------------------------------------------------------

constexpr unsigned ceil_log2(size_t n) {
    unsigned l = 0;
    while ((size_t{1} << l) < n) ++l;
    return l;
}

// W = floor(255/c) + 1: windows covering 255 bits plus the final carry.
C2_HD constexpr unsigned window_count(unsigned c) { return scalar_bits / c + 1; }

// The window for n points: ceil(log2 n) - 4, in [4, 20]. With the accumulation balanced by the
// segmented reduction and the bucket reduction parallel, the work is about W (n + 3 H) point
// additions; c = log2 n - 4 is near its minimum (2^20 points: c = 16, W = 16), and 20 bounds
// the bucket memory (W H xyzz points: 13 x 2^19 x 192 bytes for G1 at c = 20).
constexpr unsigned default_window_bits(size_t n) {
    const unsigned l = ceil_log2(n);
    return l < 8 ? 4 : (l - 4 > max_window_bits ? max_window_bits : l - 4);
}

// ---- signed digits ------------------------------------------------------------------------

// Bits [j c, j c + c) of the 256-bit little-endian k (c <= 20: at most two limbs).
C2_HD uint32_t window_value(const uint32_t* k, unsigned j, unsigned c) {
    const unsigned bit = j * c;
    if (bit >= 32 * scalar_limbs) return 0;
    const unsigned limb = bit / 32, off = bit % 32;
    uint64_t w = k[limb] >> off;
    if (off + c > 32 && limb + 1 < scalar_limbs) w |= uint64_t(k[limb + 1]) << (32 - off);
    return uint32_t(w) & ((uint32_t{1} << c) - 1);
}

// One step of the signed recoding, windows taken from the lowest: d = w + carry, and a d above
// 2^(c-1) becomes d - 2^c with a carry into the next window. Digits lie in
// [-(2^(c-1) - 1), 2^(c-1)]; the top window of a k < 2^255 holds fewer than c bits, so it never
// carries out.
C2_HD int32_t signed_digit(uint32_t w, uint32_t& carry, unsigned c) {
    const uint32_t d = w + carry;
    carry = d > (uint32_t{1} << (c - 1)) ? 1u : 0u;
    return int32_t(d) - int32_t(carry << c);
}

// All W digits of a canonical k < 2^255 (8 limbs): k = sum_j out[j] 2^(j c).
C2_HD void signed_digits(const uint32_t* k, unsigned c, int32_t* out) {
    uint32_t carry = 0;
    const unsigned windows = window_count(c);
    for (unsigned j = 0; j < windows; ++j) out[j] = signed_digit(window_value(k, j, c), carry, c);
}

// ---- sort keys and values -----------------------------------------------------------------

// Bucket |d| of window j (counted within the pass): bucket indices start at 0 for |d| = 1.
C2_HD uint32_t bucket_key(unsigned window_in_pass, int32_t digit, uint32_t half) {
    const uint32_t mag = digit < 0 ? uint32_t(-digit) : uint32_t(digit);
    return window_in_pass * half + mag - 1;
}
C2_HD uint32_t pack_point(uint32_t index, bool negate) { return index | (negate ? sign_bit : 0u); }
C2_HD uint32_t point_index(uint32_t value) { return value & ~sign_bit; }
C2_HD bool point_negated(uint32_t value) { return (value & sign_bit) != 0; }

// ---- the plan -----------------------------------------------------------------------------

struct plan_options {
    unsigned window_bits = 0;                       // c; 0: default_window_bits(n)
    size_t max_pass_entries = size_t{1} << 27;      // (window, point) pairs sorted at once (16 bytes each, double-buffered)
    unsigned max_segment = 64;                      // longest segment of one accumulation thread (power of two >= 4)
    unsigned reduce_group = 32;                     // buckets per bucket-reduction thread (power of two)
};

// A level's segment length: max_segment, halved (down to 4) while the level would have fewer
// than accumulate_threads segments.
constexpr uint32_t segment_length(size_t items, unsigned max_segment) {
    uint32_t len = max_segment < 4 ? 4 : max_segment;
    while (len > 4 && (items + len - 1) / len < accumulate_threads) len /= 2;
    return len;
}

// The levels of the accumulation of one pass with `entries` sorted pairs: fn(level, items,
// segment length, segments). Level l reads `items` entries (the sort's output for l = 0, else
// level buffer (l - 1) % 2) and writes 2 slots per segment into level buffer l % 2. The last
// level has one segment (or none, for no entries).
template <class Fn>
constexpr void for_each_level(size_t entries, unsigned max_segment, Fn&& fn) {
    size_t items = entries;
    for (unsigned level = 0;; ++level) {
        const uint32_t len = segment_length(items, max_segment);
        const size_t segments = (items + len - 1) / len;
        fn(level, items, len, segments);
        if (segments <= 1) return;
        items = 2 * segments;
    }
}

constexpr unsigned key_bits(uint32_t max_key) {
    unsigned b = 0;
    while (b < 32 && (uint64_t{1} << b) <= max_key) ++b;
    return b;
}

struct plan {
    size_t n = 0;                   // points (= scalars) of the run
    unsigned c = 0;                 // window bits
    unsigned windows = 0;           // W
    uint32_t half = 0;              // H = 2^(c-1): buckets per window
    unsigned windows_per_pass = 0;  // windows sorted together
    unsigned passes = 0;
    unsigned max_segment = 0;
    uint32_t group = 0;             // buckets per bucket-reduction thread (power of two, <= H)
    uint32_t groups = 0;            // H / group per window
    size_t pass_entries = 0;        // n * windows_per_pass: the sort buffers (each of 4)
    size_t level_items[2] = {2, 2}; // the level buffers

    unsigned pass_windows(unsigned pass) const {
        const unsigned w0 = pass * windows_per_pass;
        return windows - w0 < windows_per_pass ? windows - w0 : windows_per_pass;
    }
    size_t buckets() const { return size_t(windows) * half; }
    size_t group_sums() const { return size_t(windows) * groups; }
};

// Throws c2lab::error (bad_input) for more than max_points points, scalars.size() above the
// bases, or a window outside [1, 20] (0 = the default).
inline void check_inputs(const char* who, size_t bases, size_t scalars, unsigned window_bits) {
    if (bases >= max_points)
        throw error(errc::bad_input, std::string(who) + ": " + std::to_string(bases) + " points (at most 2^31 - 1)");
    if (scalars > bases)
        throw error(errc::bad_input, std::string(who) + ": " + std::to_string(scalars) + " scalars but only " +
                                         std::to_string(bases) + " points");
    if (window_bits != 0 && (window_bits < min_window_bits || window_bits > max_window_bits))
        throw error(errc::bad_input, std::string(who) + ": window of " + std::to_string(window_bits) +
                                         " bits (1 to 20, or 0 for the default)");
}

// The plan for n points; options as checked by check_inputs.
inline plan make_plan(size_t n, const plan_options& o = {}) {
    plan p;
    p.n = n;
    p.c = o.window_bits ? o.window_bits : default_window_bits(n);
    p.windows = window_count(p.c);
    p.half = uint32_t{1} << (p.c - 1);
    size_t per_pass = n == 0 ? p.windows : o.max_pass_entries / n;
    if (per_pass < 1) per_pass = 1;
    if (per_pass > p.windows) per_pass = p.windows;
    p.passes = unsigned((p.windows + per_pass - 1) / per_pass);
    p.windows_per_pass = (p.windows + p.passes - 1) / p.passes;  // the passes as even as can be
    p.max_segment = o.max_segment < 4 ? 4 : o.max_segment;
    p.group = 1;
    while (p.group * 2 <= o.reduce_group && p.group * 2 <= p.half) p.group *= 2;
    p.groups = p.half / p.group;
    p.pass_entries = n * p.windows_per_pass;
    for (unsigned pass : {0u, p.passes - 1}) {
        for_each_level(n * p.pass_windows(pass), p.max_segment, [&](unsigned level, size_t, uint32_t, size_t segments) {
            if (2 * segments > p.level_items[level % 2]) p.level_items[level % 2] = 2 * segments;
        });
    }
    return p;
}

// ---- kernel bodies ------------------------------------------------------------------------
// Each body is a trivially copyable struct of device pointers and sizes; operator()(i) is the
// work of thread i (launched with exactly the count the schedule gives). block_threads is the
// CUDA block size.

// Montgomery -> canonical, in place: x R * 1 * R^-1 (one CIOS multiplication).
struct to_canonical_body {
    static constexpr unsigned block_threads = 256;
    uint32_t* scalars;  // n x 8 limbs

    C2_HD void operator()(uint32_t i) const {
        fr_dev s;
        uint32_t* k = scalars + size_t(i) * scalar_limbs;
        C2_UNROLL for (unsigned l = 0; l < scalar_limbs; ++l) s.limb[l] = k[l];
        s = s.from_mont();
        C2_UNROLL for (unsigned l = 0; l < scalar_limbs; ++l) k[l] = s.limb[l];
    }
};

// The digits of windows [w0, w0 + wg) of scalar i: pairs at (j - w0) n + i, so that a warp's
// stores are contiguous. The carry is walked up from window 0 (integer work only).
struct digits_body {
    static constexpr unsigned block_threads = 256;
    const uint32_t* scalars;  // canonical, n x 8 limbs
    uint32_t* keys;
    uint32_t* values;
    uint32_t n;
    unsigned c, w0, wg;

    C2_HD void operator()(uint32_t i) const {
        uint32_t k[scalar_limbs];
        C2_UNROLL for (unsigned l = 0; l < scalar_limbs; ++l) k[l] = scalars[size_t(i) * scalar_limbs + l];
        const uint32_t half = uint32_t{1} << (c - 1), sentinel = wg * half;
        uint32_t carry = 0;
        for (unsigned j = 0; j < w0 + wg; ++j) {
            const int32_t d = signed_digit(window_value(k, j, c), carry, c);
            if (j < w0) continue;
            const size_t at = size_t(j - w0) * n + i;
            keys[at] = d == 0 ? sentinel : bucket_key(j - w0, d, half);
            values[at] = pack_point(i, d < 0);
        }
    }
};

// Segment t of a sorted level: entries [t len, min((t + 1) len, items)). See step 4 above.
// add(acc, j) adds entry j's point into acc; entries flagged no_data are skipped, keys >=
// sentinel (zero digits) are neither added nor written. One flat loop with one addition site,
// so that a warp's threads add in step whatever their run boundaries; only the (cheap) flush
// of a finished run diverges.
template <class X, class Add>
C2_HD void reduce_segment(uint32_t t, const uint32_t* keys, size_t items, uint32_t len, uint32_t sentinel,
                          X* buckets, uint32_t* out_keys, X* out_sums, const Add& add) {
    const size_t begin = size_t(t) * len;
    const size_t end = begin + len < items ? begin + len : items;
    const bool head_open = begin > 0 && (keys[begin - 1] & key_mask) == (keys[begin] & key_mask);
    const bool tail_open = end < items && (keys[end] & key_mask) == (keys[end - 1] & key_mask);
    bool wrote0 = false, wrote1 = false;
    // A finished run of key k: the whole bucket, or a partial sum for the next level when the
    // run continues into a neighbouring segment.
    auto flush = [&](uint32_t k, const X& acc, bool data, bool open_left, bool open_right) {
        if (open_left || open_right) {
            const size_t slot = 2 * size_t(t) + (open_left ? 0 : 1);
            out_keys[slot] = k | (data ? 0u : no_data);
            if (data) out_sums[slot] = acc;
            (open_left ? wrote0 : wrote1) = true;
        } else if (data) {
            buckets[k] = acc;
        }
    };
    uint32_t run_key = keys[begin] & key_mask;
    bool first_run = true, data = false;
    X acc = X::identity();
    for (size_t j = begin; j < end; ++j) {
        const uint32_t raw = keys[j], k = raw & key_mask;
        if (k != run_key) {
            flush(run_key, acc, data, first_run && head_open, false);
            first_run = false;
            run_key = k;
            acc = X::identity();
            data = false;
        }
        if (k < sentinel && !(raw & no_data)) {
            add(acc, j);
            data = true;
        }
    }
    flush(run_key, acc, data, first_run && head_open, tail_open);
    // Empty slots keep the level sorted: the segment's first and last keys.
    if (!wrote0) out_keys[2 * size_t(t)] = (keys[begin] & key_mask) | no_data;
    if (!wrote1) out_keys[2 * size_t(t) + 1] = (keys[end - 1] & key_mask) | no_data;
}

// Level 0: the sorted (bucket, point) pairs, mixed additions xyzz + affine (8M + 2S).
template <class Dc>
struct accumulate_points_body {
    using affine = typename Dc::affine;
    using xyzz = typename Dc::xyzz;
    static constexpr unsigned block_threads = 128;
    const uint32_t* keys;
    const uint32_t* values;
    size_t items;
    uint32_t len, sentinel;
    const affine* bases;
    xyzz* buckets;  // this pass's first bucket
    uint32_t* out_keys;
    xyzz* out_sums;

    C2_HD void operator()(uint32_t t) const {
        reduce_segment(t, keys, items, len, sentinel, buckets, out_keys, out_sums, [this](xyzz& acc, size_t j) {
            const uint32_t v = values[j];
            const affine p = bases[point_index(v)];
            acc += point_negated(v) ? -p : p;
        });
    }
};

// Levels 1, 2, ...: partial sums, xyzz + xyzz (12M + 2S).
template <class Dc>
struct accumulate_sums_body {
    using xyzz = typename Dc::xyzz;
    static constexpr unsigned block_threads = 128;
    const uint32_t* keys;
    const xyzz* sums;
    size_t items;
    uint32_t len, sentinel;
    xyzz* buckets;
    uint32_t* out_keys;
    xyzz* out_sums;

    C2_HD void operator()(uint32_t t) const {
        reduce_segment(t, keys, items, len, sentinel, buckets, out_keys, out_sums,
                       [this](xyzz& acc, size_t j) { acc += sums[j]; });
    }
};

// [e] p by double and add from the top bit (doublings of the identity cost nothing).
template <class X>
C2_HD X mul_small(const X& p, uint32_t e) {
    X acc = X::identity();
    for (int bit = 31; bit >= 0; --bit) {
        acc = acc.dbl();
        if ((e >> bit) & 1u) acc += p;
    }
    return acc;
}

// Thread i = (window w, group g) of buckets b = g G + 1 .. (g + 1) G (stored at b - 1):
// sum_b b B_b over the group. Running sums from the top: 2 G additions, then the offset
// g G times sum B_b (at most 2 log2(H) more).
template <class Dc>
struct bucket_reduce_body {
    using xyzz = typename Dc::xyzz;
    static constexpr unsigned block_threads = 128;
    const xyzz* buckets;  // windows x half
    xyzz* group_sums;     // windows x groups
    uint32_t half, group, groups;

    C2_HD void operator()(uint32_t i) const {
        const uint32_t w = i / groups, g = i % groups;
        const xyzz* b = buckets + size_t(w) * half + size_t(g) * group;
        xyzz running = xyzz::identity(), sum = xyzz::identity();
        for (uint32_t k = group; k-- > 0;) {
            running += b[k];
            sum += running;  // adds B_{g G + k + 1} (k + 1) times in all
        }
        group_sums[i] = sum + mul_small(running, g * group);
    }
};

// One step of the tree over each window's group sums: s[g] += s[g + stride], g < stride.
template <class Dc>
struct group_tree_body {
    using xyzz = typename Dc::xyzz;
    static constexpr unsigned block_threads = 128;
    xyzz* group_sums;
    uint32_t groups, stride;

    C2_HD void operator()(uint32_t i) const {
        xyzz* s = group_sums + size_t(i / stride) * groups + i % stride;
        *s += s[stride];
    }
};

template <class Dc>
struct gather_windows_body {
    using xyzz = typename Dc::xyzz;
    static constexpr unsigned block_threads = 32;
    const xyzz* group_sums;
    xyzz* window_sums;
    uint32_t groups;

    C2_HD void operator()(uint32_t w) const { window_sums[w] = group_sums[size_t(w) * groups]; }
};

// ---- the schedule ---------------------------------------------------------------------------

// Where the pipeline's data lives (device memory for CUDA, host vectors for the emulation);
// sizes from the plan.
template <class Dc>
struct pipeline_buffers {
    const typename Dc::affine* bases;  // >= n points
    uint32_t* scalars;                 // n x 8 limbs, Montgomery in, canonical after step 1
    uint32_t* keys[2];                 // pass_entries each: the sort's double buffer
    uint32_t* values[2];
    uint32_t* level_keys[2];           // level_items[0], level_items[1]
    typename Dc::xyzz* level_sums[2];
    typename Dc::xyzz* buckets;        // buckets()
    typename Dc::xyzz* group_sums;     // group_sums()
    typename Dc::xyzz* window_sums;    // windows: the result
};

// Runs the MSM of plan p on an executor providing
//   launch(count, body)                      body(i) for i < count (one kernel)
//   zero(pointer, bytes)                     a memset
//   sort_pairs(keys[2], values[2], count, end_bit) -> s
//                                            a stable sort by the low end_bit bits of the
//                                            keys from keys[0]/values[0]; the result is in
//                                            keys[s]/values[s] (CUB's DoubleBuffer selector)
// and leaves the W window sums in b.window_sums.
template <class Dc, class Exec>
void run_pipeline(const plan& p, const pipeline_buffers<Dc>& b, Exec& ex) {
    using xyzz = typename Dc::xyzz;
    if (p.n == 0) {
        ex.zero(b.window_sums, sizeof(xyzz) * p.windows);
        return;
    }
    const uint32_t n = uint32_t(p.n);
    ex.launch(p.n, to_canonical_body{b.scalars});
    ex.zero(b.buckets, sizeof(xyzz) * p.buckets());
    for (unsigned pass = 0; pass < p.passes; ++pass) {
        const unsigned w0 = pass * p.windows_per_pass, wg = p.pass_windows(pass);
        const uint32_t sentinel = wg * p.half;
        ex.launch(p.n, digits_body{b.scalars, b.keys[0], b.values[0], n, p.c, w0, wg});
        const int s = ex.sort_pairs(b.keys, b.values, p.n * wg, key_bits(sentinel));
        xyzz* const pass_buckets = b.buckets + size_t(w0) * p.half;
        for_each_level(p.n * wg, p.max_segment, [&](unsigned level, size_t items, uint32_t len, size_t segments) {
            const unsigned in = (level + 1) % 2, out = level % 2;
            if (level == 0)
                ex.launch(segments, accumulate_points_body<Dc>{b.keys[s], b.values[s], items, len, sentinel, b.bases,
                                                               pass_buckets, b.level_keys[out], b.level_sums[out]});
            else
                ex.launch(segments, accumulate_sums_body<Dc>{b.level_keys[in], b.level_sums[in], items, len, sentinel,
                                                             pass_buckets, b.level_keys[out], b.level_sums[out]});
        });
    }
    ex.launch(p.group_sums(), bucket_reduce_body<Dc>{b.buckets, b.group_sums, p.half, p.group, p.groups});
    for (uint32_t stride = p.groups / 2; stride >= 1; stride /= 2)
        ex.launch(size_t(p.windows) * stride, group_tree_body<Dc>{b.group_sums, p.groups, stride});
    ex.launch(p.windows, gather_windows_body<Dc>{b.group_sums, b.window_sums, p.groups});
}

// Step 6, on the host: sum_j 2^(j c) S_j by Horner from the top window (c doublings and one
// addition per window). P: any point type with identity(), dbl() and +.
template <class P>
P combine_windows(const P* window_sums, unsigned windows, unsigned c) {
    P acc = P::identity();
    for (unsigned j = windows; j-- > 0;) {
        for (unsigned d = 0; d < c; ++d) acc = acc.dbl();
        acc = acc + window_sums[j];
    }
    return acc;
}

}  // namespace c2lab::gpu::pippenger

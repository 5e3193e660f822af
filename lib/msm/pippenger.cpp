#include "msm/pippenger.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/cache_aligned_allocator.h>
#include <tbb/parallel_for.h>

#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "core/parallel.hpp"
#include "core/uninit_buffer.hpp"
#include "ff/ifma.hpp"
#include "ff/in_place.hpp"
#include "msm/batch_affine.hpp"
#include "msm/glv.hpp"

namespace c2lab::msm {

namespace {

constexpr unsigned full_scalar_bits = 255;  // r < 2^255
using recoded = ff::limbs<5>;               // k + D < 2^(c * windows) <= 2^275

// The windows of a part: `part_windows` of c bits each (the extra one takes the last carry), or
// spread: a given number of windows over part_bits bits, their widths differing by at most one
// (the wider ones on top). At 2^22 pairs, 7 windows of 18 and 19 bits take 7 passes over the
// points where c = 16 takes 8 and c = 19 (also 7) reduces twice the buckets in 5 of them.
struct plan {
    static constexpr unsigned max_windows = full_scalar_bits / min_window_bits + 1;
    unsigned bits;          // scalar bits: 255, or 127 after the endomorphism split
    unsigned c;             // window bits: the widest window's
    unsigned part_windows;  // windows of a part
    unsigned part_bits;     // S: their widths together, > bits (the top window takes the last carry)
    unsigned parts;         // scalars per pair in one recoded value: 1, or 2 (k1, k2) after the split
    unsigned windows;       // parts * part_windows: part i's windows are [i, i + 1) * part_windows
    std::array<uint8_t, max_windows> width;    // of window j (both parts)
    std::array<uint16_t, max_windows> shift;   // of window j in the recoded value
    recoded bias;           // D = sum_j offset_j 2^shift_j over all windows, offset_j = 2^(width_j - 1) - 1

    // part_windows of window_bits each: floor(scalar_bits / window_bits) + 1.
    plan(unsigned window_bits, unsigned scalar_bits, unsigned scalar_parts = 1)
        : plan(scalar_bits / window_bits + 1, window_bits * (scalar_bits / window_bits + 1), scalar_bits, scalar_parts) {}

    // `count` windows a part over `total` bits; total / count >= 1, and >= 3 with two parts
    // (recode_signed).
    static plan spread(unsigned count, unsigned total, unsigned scalar_bits, unsigned scalar_parts) {
        return plan(count, total, scalar_bits, scalar_parts);
    }

    // Half of a window's digit range: digits of window j lie in [-(half_of(j) - 1), half_of(j)].
    uint64_t half_of(unsigned j) const noexcept { return uint64_t{1} << (width[j] - 1); }

private:
    plan(unsigned count, unsigned total, unsigned scalar_bits, unsigned scalar_parts)
        : bits(scalar_bits), c((total + count - 1) / count), part_windows(count), part_bits(total),
          parts(scalar_parts), windows(scalar_parts * count), width{}, shift{}, bias{} {
        for (unsigned j = 0, at = 0; j < windows; ++j) {
            const unsigned i = j % count;
            // The low count - total % count windows take floor(total / count) bits, the rest one more.
            width[j] = static_cast<uint8_t>(total / count + (i >= count - total % count ? 1 : 0));
            shift[j] = static_cast<uint16_t>(at);
            at += width[j];
            add_shifted(bias, half_of(j) - 1, shift[j]);
        }
    }

public:
    // r += v * 2^shift (mod 2^320) for v < 2^64.
    static void add_shifted(recoded& r, uint64_t v, unsigned shift) noexcept {
        recoded term{};
        term[shift / 64] = v << (shift % 64);
        if (shift % 64 != 0 && shift / 64 + 1 < term.size()) term[shift / 64 + 1] = v >> (64 - shift % 64);
        ff::add_to(r, term);
    }

    template <size_t N>
    recoded recode(const ff::limbs<N>& k) const noexcept {
        recoded r{};
        for (size_t i = 0; i < N; ++i) r[i] = k[i];
        ff::add_to(r, bias);
        return r;
    }
    recoded recode(const ff::fr& s) const noexcept { return recode(s.to_canonical()); }

    // Both halves of a signed split in one value (parts = 2):
    //   K = D + s1 k1 + 2^S s2 k2   (mod 2^320),
    // so that windows [0, part_windows) hold the signed digits of s1 k1 and the rest those of
    // s2 k2: the signs are in the digits and the points stay as they are. Each part's
    // D_part + s k lies in [0, 2^S) (no borrow or carry between the parts): below as
    // |k| <= m/2 + 1 < 0.68 * 2^127 (glv.hpp) lies below D_part >= 3/7 (2^S - 1) >= 0.85 * 2^128
    // for windows of at least 3 bits (each offset_j >= 3/7 (2^width_j - 1), and the
    // (2^width_j - 1) 2^shift_j sum to 2^S - 1); above, as D_part = 2^(S-1) - 1 - sum_(j>0)
    // 2^(shift_j - 1) < 2^(S-1) and |k| < 2^127 <= 2^(S-1). (For c < 3 the split is not taken:
    // pippenger.)
    recoded recode_signed(const glv_signed_split& sp) const noexcept {
        // The second part starts at S in [128, 127 + c] (c (floor(127 / c) + 1), or 128 spread):
        // bit S - 128 of limb 2 (c <= max_window_bits < 64), so s2 k2 2^S spans limbs 2 to 4.
        // Both terms negated in two's complement modulo 2^320 (-t = ~t + 1) without a branch, in
        // one pass over the limbs (it was three 5-limb additions a part: each limb of k shifted
        // into a term and added, then the term negated and added).
        const unsigned off = part_bits - 128;
        const uint64_t f1 = uint64_t{0} - uint64_t{sp.neg1}, f2 = uint64_t{0} - uint64_t{sp.neg2};
        const uint64_t a[5] = {sp.k1[0], sp.k1[1], 0, 0, 0};
        // x >> (64 - off) as (x >> 1) >> (63 - off): 0 where off = 0, never a shift by 64.
        const uint64_t b[5] = {0, 0, sp.k2[0] << off, (sp.k2[1] << off) | ((sp.k2[0] >> 1) >> (63 - off)),
                               (sp.k2[1] >> 1) >> (63 - off)};
        recoded r;
        unsigned __int128 acc = static_cast<unsigned __int128>(sp.neg1) + sp.neg2;
        for (size_t i = 0; i < r.size(); ++i) {
            acc += static_cast<unsigned __int128>(bias[i]) + (a[i] ^ f1) + (b[i] ^ f2);
            r[i] = static_cast<uint64_t>(acc);
            acc >>= 64;
        }
        return r;
    }

    // The signed digit of window j: ((K >> shift_j) mod 2^width_j) - offset_j.
    int64_t digit(const recoded& k, unsigned j) const noexcept {
        const unsigned at = shift[j], w_bits = width[j], limb = at / 64, off = at % 64;
        uint64_t w = k[limb] >> off;
        if (off + w_bits > 64 && limb + 1 < k.size()) w |= k[limb + 1] << (64 - off);
        const uint64_t mask = (uint64_t{1} << w_bits) - 1, offset = (uint64_t{1} << (w_bits - 1)) - 1;
        return static_cast<int64_t>(w & mask) - static_cast<int64_t>(offset);
    }

    // Buckets window j can reach: all of them, except in a part's top window whose few scalar
    // bits (plus the carry) give digits of at most 2^bits_left in magnitude.
    uint64_t reach(unsigned j) const noexcept {
        const unsigned at = shift[j % part_windows];
        const unsigned bits_left = bits > at ? bits - at : 0;
        if (bits_left >= width[j]) return half_of(j);
        return std::min<uint64_t>(half_of(j), uint64_t{1} << bits_left);
    }
};

// Canonical conversion and recoding of every scalar, in parallel (one Montgomery
// multiplication and one 5-limb addition each).
std::vector<recoded> recode_all(const plan& p, std::span<const ff::fr> scalars) {
    std::vector<recoded> out(scalars.size());
    tbb::parallel_for(tbb::blocked_range<size_t>(0, scalars.size(), 4096), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) out[i] = p.recode(scalars[i]);
    });
    return out;
}

// Which list the density bitmap runs along (see pippenger.hpp).
enum class density_on { none, points, scalars };

// One batch of affine additions p1 += (neg ? -p2 : p2), p1.x != p2.x, both not the
// identity, with one shared inversion (Montgomery's trick, fused with the additions in the
// backward pass): per addition 3M for the inversion, 2M + 1S for lambda, x3 and y3.
// dst[i] is the running point; the negation of p2 is folded into lambda's sign.
template <class C>
struct affine_adder {
    using A = ec::affine<C>;
    using F = typename C::field;
    // The queued additions, [0, count) of these arrays; they only grow (their size is the
    // largest batch yet), so that push() writes by index without a capacity check per array.
    // src is kept where the coordinates are not gathered (the scalar path reads the points).
    std::vector<A*> dst;
    std::vector<const A*> src;
    std::vector<uint8_t> neg;
    size_t count = 0;
    ff::add_chain_scratch<F> chain;
    // G1 and G2 where AVX-512 IFMA runs: the batch's coordinates, copied into arrays as the
    // additions are queued (the caller has just read both points, so they are in L1; copied
    // in run() instead, the buckets had often left it: that loop was 7% of a G1 MSM at 2^20
    // pairs, perf, one thread, Intel Xeon). Gathered for the scalar path too (its two chains
    // over the arrays, their prefetches dropped): G1 on one thread against blst in one process,
    // four rounds alternated, Intel Xeon family 6 model 167, medians 2^16 0.539 -> 0.531 and
    // 0.538, 2^18 0.520 -> 0.528 and 0.526 of blst's time: nothing the noise lets through, so
    // the scalar path reads the points where they lie.
    static constexpr bool ifma_curve = std::is_same_v<C, ec::g1_curve> || std::is_same_v<C, ec::g2_curve>;
    // The kernels of run(): ff::affine_add_batch on `path` over the gathered coordinates (IFMA;
    // AVX2: G1's additions, G2's chain with its inversion in AVX2 batches), or the scalar chain
    // through the points (gather false). G2 on the AVX2 path gathers too: its chain over the
    // arrays, not through the buckets, G2 2^16 / 2^18 against blst on the Zen 4 without AVX-512,
    // medians of 15 / 6 rounds alternated in a noisy hour: 0.517 -> 0.504, 0.542 -> 0.490
    // (results/reference/epyc-zen4-avx2-2026-12-07/g2-gather-*.txt).
    ff::batch_path path = ff::batch_path::scalar;
    bool gather = false;

    explicit affine_adder(msm_batch choice = msm_batch::automatic) {
        if constexpr (ifma_curve) {
            path = choice == msm_batch::scalar ? ff::batch_path::scalar
                   : choice == msm_batch::ifma ? ff::batch_path::ifma
                   : choice == msm_batch::avx2 ? ff::batch_path::avx2
                                               : ff::vector_batch_path();
            gather = path != ff::batch_path::scalar;
        }
    }
    std::vector<F, tbb::cache_aligned_allocator<F>> gx1, gy1, gx2, gy2;

    void clear() noexcept { count = 0; }
    size_t size() const noexcept { return count; }
    [[gnu::noinline]] void grow() {
        const size_t grown = std::max<size_t>(2 * dst.size(), 1024);
        dst.resize(grown), neg.resize(grown);
        if (gather) gx1.resize(grown), gy1.resize(grown), gx2.resize(grown), gy2.resize(grown);
        else src.resize(grown);
    }
    // p1 is not changed and p2 not written until run().
    [[gnu::always_inline]] void push(A* p1, const A* p2, bool negate) {
        if (count == dst.size()) [[unlikely]] grow();
        const size_t i = count++;
        dst[i] = p1;
        neg[i] = negate;
        if (gather) gx1[i] = p1->x, gy1[i] = p1->y, gx2[i] = p2->x, gy2[i] = p2->y;
        else src[i] = p2;
    }

    // Whether the scalar path leaves the running points unreduced (affine_add_chain<true>): G1
    // where the assembly products run (elsewhere the products are full ones and there is nothing
    // to save). Their coordinates then lie in [0, 2p) until settled (settle_buckets).
    static constexpr bool lazy_curve = std::is_same_v<F, ff::fp>;
    bool can_run_lazy() const noexcept {
        if constexpr (lazy_curve) return !gather && cpu::use_adx_asm;
        else return false;
    }

    // lazy: the running points (dst) may lie in [0, 2p) and are left there (can_run_lazy()).
    void run(bool lazy = false) {
        const size_t n = count;
        if (n == 0) return;
        // 8 additions per vector operation (ff::affine_add_batch, bit-identical to the scalar
        // path below), the sums scattered back.
        if constexpr (ifma_curve) {
            if (gather) {
                ff::affine_add_batch(path, std::span(gx1).first(n), std::span(gy1).first(n),
                                     std::span<const F>(gx2).first(n), std::span<const F>(gy2).first(n),
                                     std::span<const uint8_t>(neg).first(n));
                // The buckets written back are prefetched for writing 8 ahead: between the push
                // and this loop the kernel's own arrays (about 1 MB for a batch of 2048) have
                // often pushed them out of L2. G1 2^20 on one thread, Zen 4 EPYC, alternated:
                // 2000 -> 1972 and 2003 -> 1950 ms (medians of 5 and 4); 2^18 and the 2 KiB
                // proof's msm_h within their spread.
                constexpr size_t ahead = 8;
                for (size_t i = 0; i < n; ++i) {
                    if (i + ahead < n) {
                        ff::prefetch_element<true>(&dst[i + ahead]->x);
                        ff::prefetch_element<true>(&dst[i + ahead]->y);
                    }
                    dst[i]->x = gx1[i], dst[i]->y = gy1[i];
                }
                return;
            }
        }
        // The scalar path: the additions through the points as they lie (no gathering). The
        // accessors hold the arrays' pointers by value: through `this` each access reloaded the
        // vector's data pointer after every product (an opaque call), four dependent loads.
        A* const* const d = dst.data();
        const A* const* const s = src.data();
        const uint8_t* const ng = neg.data();
        // add_or_queue keeps equal x coordinates out of the batch; a zero denominator here
        // would leave the batch unwritten, a wrong sum.
        auto chain_of = [&]<bool Lazy>() {
            if (!ff::affine_add_chain<Lazy>(
                    n, chain, [d](size_t i) -> F& { return d[i]->x; }, [d](size_t i) -> F& { return d[i]->y; },
                    [s](size_t i) -> const F& { return s[i]->x; }, [s](size_t i) -> const F& { return s[i]->y; },
                    [ng](size_t i) { return ng[i] != 0; })) [[unlikely]]
                throw error(errc::internal, "msm: a batch of affine additions met equal x coordinates");
        };
        if constexpr (lazy_curve) {
            if (lazy) {
                chain_of.template operator()<true>();
                return;
            }
        }
        chain_of.template operator()<false>();
    }
};

// a += (neg ? -b : b) at once where that is cheap or special (an identity, equal x: P + P or
// P - P), else queued in the batch (a must not be queued twice in one batch). True when queued.
// BNonzero: the caller has seen that b is not the identity (the bucket pass checks each point
// once for all its windows).
// ALazy: a's coordinates may lie in [0, 2p) (a G1 bucket during a lazy pass), b's below p; a is
// settled before anything but the batch reads it.
template <class C, bool BNonzero = false, bool ALazy = false>
[[gnu::always_inline]] inline bool add_or_queue(affine_adder<C>& adder, ec::affine<C>& a, const ec::affine<C>& b, bool neg = false) {
    if constexpr (!BNonzero)
        if (b.is_identity()) return false;
    constexpr bool lazy_a = ALazy && affine_adder<C>::lazy_curve;
    auto same_x = [&] {
        if constexpr (lazy_a) return ff::congruent_below_2p(a.x, b.x);
        else return a.x == b.x;
    };
    if (a.is_identity()) {  // (0, 0) exactly: no point of the subgroup has y = 0 or y = p
        a = neg ? -b : b;
    } else if (same_x()) {
        if constexpr (lazy_a) ff::settle(a.x), ff::settle(a.y);
        const bool same = neg ? a.y == -b.y : a.y == b.y;
        a = same ? a.to_jacobian().dbl().to_affine() : ec::affine<C>::identity();
    } else {
        adder.push(&a, &b, neg);
        return true;
    }
    return false;
}

// Buckets accumulated in affine form, additions batched so that one field inversion
// (Montgomery's trick) serves a whole batch: per addition 3M for the shared inversion,
// then lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1:
// about 5M + 1S, against 8M + 2S for xyzz + affine. The batch refers to the input points
// (no copies; a negative digit is a flag). A bucket takes at most one addition per batch;
// a second point for it in the same batch waits in a queue and goes into the next batch.
// The queue holds at most a quarter batch: beyond it (equal scalars send every point to
// one bucket) a point goes into that bucket's xyzz overflow accumulator, so the batches
// never stall. Equal x coordinates (P + P, P - P) are settled at once, off the batch (rare).
template <class C>
struct affine_batch_buckets {
    using A = ec::affine<C>;
    using X = ec::xyzz<C>;
    struct waiting {
        uint32_t b;
        bool neg;
        const A* pt;
    };
    // (0, 0) = empty. Read at random: in huge pages from 2 MiB up (a G1 window of c = 16 holds
    // 2^15 buckets, 3 MB).
    std::vector<A, huge_page_allocator<A>> bucket;
    // Points that found neither a batch slot nor a queue slot, summed per bucket: the accumulator
    // of bucket b is overflow[overflow_at[b] - 1] where overflow_at[b] != 0. Compact (a few
    // hundred of 32768 buckets overflow), so a window's buckets take 100 bytes each (G1), not 297.
    std::vector<std::pair<uint32_t, X>> overflow;
    std::vector<uint32_t> overflow_at;
    // The buckets with an addition in the current batch: one bit each (2^18 buckets, c = 19,
    // in 32 KB, which stay in the L1 and L2 caches where a 32-bit stamp a bucket took 1 MB read
    // at random), all cleared when the batch has run (32 KB stored against a batch of some
    // hundred microseconds; a list of the bits set, cleared one by one, cost 2-3% at 2^16 with
    // IFMA).
    std::vector<uint64_t> busy;
    affine_adder<C>* batch = nullptr;     // shared by the windows of a group (window_group)
    std::vector<waiting> queue, requeue;  // waiting for the next batch
    size_t batch_size = 256;
    bool any_overflow = false;

    void reset(size_t buckets, size_t size, affine_adder<C>* adder) {
        bucket.assign(buckets, A::identity());
        overflow.clear();
        overflow_at.assign(buckets, 0);
        busy.assign((buckets + 63) / 64, 0);
        batch = adder;
        queue.clear();
        batch_size = size;
        any_overflow = false;
    }

    // The same buckets under another batch (the next endomorphism block's task, on any thread):
    // every batch of the block before has run, so no bucket is busy.
    void resume(affine_adder<C>* adder) { batch = adder; }

    bool is_busy(uint32_t b) const noexcept { return (busy[b / 64] >> (b % 64)) & 1; }

    // b has no addition in the current batch; pt is not the identity. The bucket may be
    // unreduced (a lazy pass).
    [[gnu::always_inline]] void place(uint32_t b, const A* pt, bool neg) {
        if (add_or_queue<C, true, true>(*batch, bucket[b], *pt, neg)) busy[b / 64] |= uint64_t{1} << (b % 64);
    }

    // Every bucket brought below p after a lazy pass (affine_adder::run(true)).
    void settle_buckets() {
        if constexpr (affine_adder<C>::lazy_curve)
            for (auto& a : bucket) ff::settle(a.x), ff::settle(a.y);
    }

    void to_overflow(uint32_t b, const A* pt, bool neg) {
        const A q = neg ? -*pt : *pt;
        if (overflow_at[b] == 0) {
            overflow.emplace_back(b, q.to_xyzz());
            overflow_at[b] = static_cast<uint32_t>(overflow.size());
            any_overflow = true;
        } else {
            overflow[overflow_at[b] - 1].second += q;  // 8M + 2S
        }
    }

    // The caller runs the shared batch when it is full (run_batch of every window sharing it).
    // pt is not the identity.
    [[gnu::always_inline]] void put(uint32_t b, const A* pt, bool neg) {
        if (is_busy(b)) {
            if (queue.size() < batch_size / 4) queue.push_back({b, neg, pt});
            else to_overflow(b, pt, neg);
            return;
        }
        place(b, pt, neg);
    }

    // After the shared batch ran: no bucket is busy, and the queue opens the new batch.
    void after_batch() {
        std::fill(busy.begin(), busy.end(), uint64_t{0});
        // The queue opens the next batch (at most a quarter of it); a second point for
        // the same bucket among them goes to the overflow.
        requeue.swap(queue);
        queue.clear();
        for (const auto& w : requeue) {
            if (is_busy(w.b)) to_overflow(w.b, w.pt, w.neg);
            else place(w.b, w.pt, w.neg);
        }
        requeue.clear();
    }

};

// The overflow accumulators added into their affine buckets, once the window's points are all
// in: one conversion to affine for all of them (one inversion) and one batch of additions (each
// bucket takes at most one). Then the reduction sees affine buckets alone. Summing (b + 1) O_b by
// xyzz running sums instead walked every bucket with an xyzz addition (12M + 2S) once any bucket
// had overflowed, and every window of the G1 MSMs at 2^16, 2^18 and 2^20 pairs had (95 to 730
// of 4096 to 32768 buckets, counted once): 2^15 such additions a window at c = 16, 10% of a G1
// MSM at 2^18 with IFMA (perf, one thread, Intel Xeon).
template <class C>
void fold_overflow(affine_batch_buckets<C>& acc, affine_adder<C>& adder) {
    if (!acc.any_overflow) return;
    std::vector<uint32_t> at;
    std::vector<ec::jacobian<C>> jac;
    for (const auto& [b, o] : acc.overflow) {
        at.push_back(b);
        jac.push_back(o.to_jacobian());
        acc.overflow_at[b] = 0;
    }
    acc.overflow.clear();
    acc.any_overflow = false;
    std::vector<ec::affine<C>> aff(jac.size());
    batch_to_affine_serial<C>(jac, aff);
    adder.clear();
    for (size_t i = 0; i < at.size(); ++i) add_or_queue(adder, acc.bucket[at[i]], aff[i]);
    adder.run();
    adder.clear();
}

// The buckets of the split's second part folded into the first's, window by window (plan::parts):
//   sum_b b A_b + endo(sum_b b B_b) = sum_b b (A_b + endo(B_b)),
// one batched addition and one endo (G1: 1M) a bucket where reducing B apart from A took two
// additions a bucket. B's buckets are left holding endo(B_b).
template <class C>
void merge_endo(affine_batch_buckets<C>& into, affine_batch_buckets<C>& from, affine_adder<C>& adder) {
    constexpr size_t batch = 1024;
    adder.clear();
    for (size_t b = 0; b < into.bucket.size(); ++b) {
        ec::affine<C>& e = from.bucket[b];
        if (e.is_identity()) continue;
        e = glv_endo(e);
        add_or_queue(adder, into.bucket[b], e);
        if (adder.size() == batch) {
            adder.run();
            adder.clear();
        }
    }
    adder.run();
    adder.clear();
}

// sum_b (b + 1) * B_b over affine buckets B (identities allowed), with the additions of the
// running sums batched: the buckets are cut into S segments of L, each with its own
// running sum and sum (affine), and one step adds bucket i of every segment at once (one
// inversion per step): 2 affine additions per bucket (about 6M each) instead of
// xyzz + affine and xyzz + xyzz (8M + 2S and 12M + 2S). Then
//   sum = sum_s (sum_s + s L running_s),
// the second term by xyzz running sums over the segments and one multiplication by L.
template <class C>
struct batched_reduction {
    using A = ec::affine<C>;
    using X = ec::xyzz<C>;
    using J = ec::jacobian<C>;
    std::vector<A> running, sum;
    affine_adder<C> adder;

    explicit batched_reduction(msm_batch choice) : adder(choice) {}

    void add(A& a, const A& b) { add_or_queue(adder, a, b); }

    J reduce(std::span<const A> buckets, size_t segments) {
        const size_t h = buckets.size();
        if (h == 0) return J::identity();
        segments = std::clamp<size_t>(segments, 1, h);
        const size_t len = (h + segments - 1) / segments;
        segments = (h + len - 1) / len;
        running.assign(segments, A::identity());
        sum.assign(segments, A::identity());
        for (size_t i = len; i-- > 0;) {
            adder.clear();
            for (size_t s = 0; s < segments; ++s) {
                size_t b = s * len + i;
                if (b < h) add(running[s], buckets[b]);
            }
            adder.run();
            adder.clear();
            for (size_t s = 0; s < segments; ++s) add(sum[s], running[s]);
            adder.run();
        }
        // sum_s sum_s + L * sum_s s * running_s.
        X total = X::identity(), acc = X::identity(), weighted = X::identity();
        for (size_t s = segments; s-- > 0;) {
            total += sum[s];
            if (s > 0) {
                acc += running[s];
                weighted += acc;
            }
        }
        return total.to_jacobian() + weighted.to_jacobian().mul(uint64_t{len});
    }
};

// Per-task scratch, reused across the tasks a thread runs.
template <class C>
struct bucket_scratch {
    std::vector<ec::xyzz<C>> xyzz;
    std::vector<affine_batch_buckets<C>> affine;  // one per window of a group
    affine_adder<C> adder;                         // the batch the group's windows share
    batched_reduction<C> reduction;

    explicit bucket_scratch(const msm_config& config) : adder(config.batch), reduction(config.batch) {}
};

// Walks the pairs of positions [begin, end) of the list the density runs along (the points
// when there is none): f(point, recoded scalar) for each. `other_at` is the index in the
// other list of the chunk's first pair: a position whose bit is set takes the next entry.
template <class C, class F>
void for_pairs(std::span<const ec::affine<C>> points, const density_bitmap* density, density_on along,
               std::span<const recoded> ks, size_t begin, size_t end, size_t other_at, F&& f) {
    size_t s = other_at;
    if (along == density_on::none) {
        for (size_t i = begin; i < end; ++i) f(points[i], ks[i]);
    } else if (along == density_on::points) {
        for (size_t i = begin; i < end; ++i)
            if (density->test(i)) f(points[i], ks[s++]);
    } else {
        for (size_t i = begin; i < end; ++i)
            if (density->test(i)) f(points[s++], ks[i]);
    }
}

// Whether window j of a chunk of `len` pairs uses batched affine buckets. auto: batches pay
// off when every bucket the window reaches sees several points and conflicts are rare (a
// batch of reach / 8 buckets); not in a top window whose few scalar bits reach only a
// handful of buckets. With the split's two parts a task's twin windows share one batch and
// one reduction: counted as the pairs' 2 len points, the threshold of the layout it was set
// for (+-P and +-endo(P) in one window); counted per part, 2^14 pairs at c = 14 fell back to
// xyzz buckets and took 234 against 47 ms at c = 13 (G1, IFMA, one thread, Intel Xeon).
inline bool use_batches(const plan& p, unsigned j, size_t len, const msm_config& config) {
    const uint64_t reach = p.reach(j);
    return config.bucket_add == bucket_add::batch_affine ||
           (config.bucket_add == bucket_add::automatic && reach >= 256 && p.parts * len >= 4 * reach);
}

// One window with xyzz buckets (8M + 2S per point), reduced by xyzz running sums:
// sum = sum_b (b + 1) * buckets[b], 2 * half additions.
template <class C>
ec::jacobian<C> window_xyzz(const plan& p, unsigned j, std::span<const ec::affine<C>> points,
                            const density_bitmap* density, density_on along, std::span<const recoded> ks,
                            size_t begin, size_t end, size_t other_at, bucket_scratch<C>& scratch) {
    using X = ec::xyzz<C>;
    auto& buckets = scratch.xyzz;
    buckets.assign(p.half_of(j), X::identity());
    for_pairs<C>(points, density, along, ks, begin, end, other_at, [&](const ec::affine<C>& pt, const recoded& k) {
        int64_t d = p.digit(k, j);
        if (d > 0) buckets[d - 1] += pt;
        else if (d < 0) buckets[-d - 1] += -pt;
    });
    X running = X::identity(), sum = X::identity();
    for (size_t b = buckets.size(); b-- > 0;) {
        running += buckets[b];
        sum += running;
    }
    return sum.to_jacobian();
}

// Buckets kept from one endomorphism block to the next (pippenger_glv): per task slot (chunk k,
// window j, at k * windows + j) the affine buckets with their overflow accumulators. Every
// block's points go into the same buckets and each window is reduced once, after the last block,
// instead of once a block (2 * 2^(c-1) additions a window: at c = 16 and blocks of 2^20 pairs, 3%
// of a block's additions), and the buckets are cleared once. The blocks share one task layout,
// made for plan_n points.
template <class C>
struct kept_buckets {
    std::vector<affine_batch_buckets<C>> slots;
    size_t plan_n = 0;
    bool reduce = false;  // this block is the last: its tasks reduce the kept buckets
};

// One task: the windows `wins` over one chunk of pairs, out[j] = sum_b b * B_b of window j
// (out and kept indexed by window). Windows with batched affine buckets share one batch (and so
// one inversion per batch: the group's additions per inversion, and the points read once for
// all of them). A window of the split's second part whose twin (the same window of the first
// part) is in the group is merged into it before the reduction (merge_endo) and gives the
// identity.
template <class C>
void window_group(const plan& p, std::span<const unsigned> wins, std::span<const ec::affine<C>> points,
                  const density_bitmap* density, density_on along, std::span<const recoded> ks, size_t begin,
                  size_t end, size_t other_at, const msm_config& config, bucket_scratch<C>& scratch,
                  std::span<ec::jacobian<C>> out, affine_batch_buckets<C>* kept = nullptr, size_t plan_len = 0,
                  bool reduce = true) {
    // Windows that do not batch run alone with xyzz buckets; the rest form the group. With kept
    // buckets (one slot a window) the choice follows the blocks' common layout.
    if (!kept) plan_len = end - begin;
    std::vector<unsigned> batched;
    for (unsigned j : wins) {
        if (use_batches(p, j, plan_len, config)) batched.push_back(j);
        else out[j] = window_xyzz<C>(p, j, points, density, along, ks, begin, end, other_at, scratch);
    }
    if (batched.empty()) return;
    const size_t m = batched.size();
    if (scratch.affine.size() < m) scratch.affine.resize(m);
    std::vector<affine_batch_buckets<C>*> accs(m);
    for (size_t w = 0; w < m; ++w) accs[w] = kept ? &kept[batched[w]] : &scratch.affine[w];
    auto acc_of = [&](size_t w) -> affine_batch_buckets<C>& { return *accs[w]; };
    auto& adder = scratch.adder;
    adder.clear();
    size_t full = 0;  // the shared batch runs at the sum of the windows' batch sizes
    for (size_t w = 0; w < m; ++w) {
        // nb / 8, at most 1024: at 2^18 points and c = 16 (32768 buckets) batches of 1024 took
        // 1315 ms, of 2048 1341 ms and of 4096 1384 ms; at c = 13 batches of 2048 (half the
        // buckets) conflict too often (G1, one thread, the machine of window.cpp).
        const size_t nb = p.reach(batched[w]);  // a top window's digits are at most 2^bits_left
        const size_t size = config.batch_size ? std::clamp<size_t>(config.batch_size, 16, 4096)
                                              : std::clamp<size_t>(nb / 8, 16, 1024);
        if (kept && !acc_of(w).bucket.empty()) acc_of(w).resume(&adder);
        else acc_of(w).reset(nb, size, &adder);
        full += acc_of(w).batch_size;
    }
    // The buckets stay unreduced through the pass where the scalar path can leave them so, and
    // are settled before the overflow, the merge and the reduction read them.
    const bool lazy = adder.can_run_lazy();
    auto run_batch = [&] {
        adder.run(lazy);
        adder.clear();
        for (size_t w = 0; w < m; ++w) acc_of(w).after_batch();
    };
    // The point's digit in each window of the group (d[w]) into its bucket.
    // The sign of a digit is a coin toss: as a branch (one put for each sign) it was mispredicted
    // half the time; here it is data (|d| and d < 0 without a branch), and only d = 0 (one digit
    // in 2^(c-1)) branches.
    auto put_digits = [&](const ec::affine<C>& pt, const int64_t* d) {
        if (pt.is_identity()) return;
        for (size_t w = 0; w < m; ++w) {
            const int64_t v = d[w];
            if (v == 0) [[unlikely]] continue;
            const bool negative = v < 0;
            const uint64_t magnitude = static_cast<uint64_t>(negative ? -v : v);
            accs[w]->put(static_cast<uint32_t>(magnitude - 1), &pt, negative);
        }
        if (adder.size() >= full) run_batch();
    };
    std::vector<int64_t> pair_digits(m);
    auto put_pair = [&](const ec::affine<C>& pt, const recoded& k) {
        for (size_t w = 0; w < m; ++w) pair_digits[w] = p.digit(k, batched[w]);
        put_digits(pt, pair_digits.data());
    };
    if (along == density_on::none && config.prefetch > 0) {
        // The buckets of the point `prefetch` positions ahead are fetched while this one is
        // placed: with 2^15 buckets (3 MB for G1) they no longer fit the L2 cache.
        const size_t ahead = config.prefetch;
        const size_t far = 4 * ahead;
        // Each pair's digits are extracted once, `ahead` pairs early, kept in a ring until the
        // pair is placed.
        const size_t ring = std::bit_ceil(ahead + 1);
        std::vector<int64_t> digits(ring * m);
        auto digits_of = [&](size_t i) { return digits.data() + (i & (ring - 1)) * m; };
        auto look_ahead = [&](size_t j) {
            int64_t* d = digits_of(j);
            for (size_t w = 0; w < m; ++w) {
                d[w] = p.digit(ks[j], batched[w]);
                if (d[w] == 0) continue;
                size_t b = static_cast<size_t>(d[w] > 0 ? d[w] : -d[w]) - 1;
                const char* at = reinterpret_cast<const char*>(&accs[w]->bucket[b]);
                for (size_t off = 0; off < sizeof(ec::affine<C>); off += 64) __builtin_prefetch(at + off, 1);
            }
        };
        for (size_t j = begin; j < std::min(end, begin + ahead); ++j) look_ahead(j);
        for (size_t i = begin; i < end; ++i) {
            if (i + far < end) {
                // The points and recoded scalars further ahead: sequential streams, but among
                // the random bucket accesses the hardware prefetcher leaves them to miss (the
                // point's first load was half of this loop's time, perf). G1 2^20 pairs, one
                // thread, Intel Xeon, 5 runs alternated, medians: IFMA 2391 -> 2285 ms at 32 ahead
                // (2352 at 64); without AVX-512 about 3%; 2^16 and 2^18 unchanged.
                const char* pt = reinterpret_cast<const char*>(&points[i + far]);
                for (size_t off = 0; off < sizeof(ec::affine<C>); off += 64) __builtin_prefetch(pt + off);
                __builtin_prefetch(&ks[i + far]);
            }
            if (i + ahead < end) look_ahead(i + ahead);
            put_digits(points[i], digits_of(i));
        }
    } else {
        for_pairs<C>(points, density, along, ks, begin, end, other_at, put_pair);
    }
    auto pending = [&] {
        if (adder.size() != 0) return true;
        for (size_t w = 0; w < m; ++w)
            if (!accs[w]->queue.empty()) return true;
        return false;
    };
    while (pending()) run_batch();
    if (!reduce) {  // kept for the next block: this one contributes through the last block's sums
        for (size_t w = 0; w < m; ++w) out[batched[w]] = ec::jacobian<C>::identity();
        return;
    }
    if (lazy)
        for (size_t w = 0; w < m; ++w) acc_of(w).settle_buckets();
    for (size_t w = 0; w < m; ++w) fold_overflow(acc_of(w), adder);
    std::vector<bool> merged(m, false);
    if (p.parts == 2)
        for (size_t w = 0; w < m; ++w)
            for (size_t t = 0; t < m; ++t)
                if (batched[t] == batched[w] + p.part_windows) {
                    merge_endo(acc_of(w), acc_of(t), adder);
                    merged[t] = true;
                }
    for (size_t w = 0; w < m; ++w) {
        if (merged[w]) {
            out[batched[w]] = ec::jacobian<C>::identity();
            continue;
        }
        auto& acc = acc_of(w);
        const size_t nb = acc.bucket.size();
        ec::jacobian<C> r;
        if (config.batched_reduction) {
            size_t segments = config.reduction_segments ? config.reduction_segments : std::max<size_t>(nb / 16, 1);
            r = scratch.reduction.reduce(acc.bucket, segments);
        } else {
            ec::xyzz<C> running = ec::xyzz<C>::identity(), sum = ec::xyzz<C>::identity();
            for (size_t b = nb; b-- > 0;) {  // running sums, as in window_xyzz (overflow folded above)
                running += acc.bucket[b];
                sum += running;
            }
            r = sum.to_jacobian();
        }
        out[batched[w]] = r;
    }
}

// The bucket method proper over recoded scalars: tasks of (window group, point chunk),
// then the windows combined, one sum per part of the scalars (the second the identity where
// there is one part). Runs in the caller's arena.
template <class C>
std::array<ec::jacobian<C>, 2> run_windows(const plan& p, std::span<const ec::affine<C>> points, const density_bitmap* density,
                            density_on along, std::span<const recoded> ks, size_t n, const msm_config& config,
                            kept_buckets<C>* kept = nullptr) {
    using J = ec::jacobian<C>;
    // Groups of g windows of the first part; with two parts each takes its twins along (window
    // j + part_windows for j in the group), to be merged into them before the reduction.
    const unsigned g = std::clamp<unsigned>(config.window_group, 1, p.part_windows);
    const size_t groups = (p.part_windows + g - 1) / g;
    // Point chunks per group: enough tasks for every thread (4 per thread for balance),
    // but no chunk below 2^c points, where bucket reduction would dominate.
    // chunking is over the list the density runs along (the points when there is none)
    const size_t span_len = along == density_on::scalars ? ks.size() : points.size();
    const unsigned threads = parallel::arena_concurrency();
    if (kept) n = kept->plan_n;  // every block in the layout of the first
    size_t chunks = 1;
    if (threads > 1) {
        size_t want = (size_t{4} * threads + groups - 1) / groups;
        size_t most = std::max<size_t>(1, n >> p.c);
        chunks = std::clamp<size_t>(want, 1, most);
    }
    // With one chunk a group and a group count the threads do not divide (11 windows on 2
    // threads: 6 against 5, at most 11/6 = 1.83x one thread), the last groups % threads groups
    // are cut into `threads` chunks each instead: then every thread has the same share (5
    // windows and half of the eleventh), for one more bucket reduction per extra chunk. Not
    // where such a chunk would hold fewer than 2^c points.
    size_t split_groups = 0, split_chunks = 1;
    if (threads > 1 && chunks == 1 && groups % threads != 0 && (n >> p.c) >= threads) {
        split_groups = groups % threads;
        split_chunks = threads;
    }
    // bounds[k], other_at[k]: where chunk k of `count` starts along the list the density runs
    // along (the points when there is none), and in the other list.
    struct cuts {
        std::vector<size_t> bounds, other_at;
    };
    auto cut = [&](size_t count) {
        cuts r{std::vector<size_t>(count + 1), std::vector<size_t>(count + 1, 0)};
        for (size_t k = 0; k <= count; ++k) r.bounds[k] = span_len * k / count;
        if (density != nullptr)
            for (size_t k = 1; k <= count; ++k)
                r.other_at[k] = r.other_at[k - 1] + density->count(r.bounds[k - 1], r.bounds[k]);
        else
            r.other_at = r.bounds;
        return r;
    };
    const cuts whole_cuts = cut(chunks), split_cuts = split_groups ? cut(split_chunks) : cuts{};

    const size_t whole_tasks = (groups - split_groups) * chunks;
    const size_t tasks = whole_tasks + split_groups * split_chunks;
    const size_t rows = std::max(chunks, split_chunks);
    // partial[k * windows + j]: window j over chunk k (the identity where a group has fewer chunks)
    std::vector<J> partial(rows * p.windows, J::identity());
    if (kept && kept->slots.size() < rows * p.windows) kept->slots.resize(rows * p.windows);
    auto run_task = [&](size_t t, bucket_scratch<C>& buckets) {
        const bool whole = t < whole_tasks;
        const size_t per_group = whole ? chunks : split_chunks;
        const size_t u = whole ? t : t - whole_tasks;
        const size_t group = (whole ? 0 : groups - split_groups) + u / per_group, k = u % per_group;
        const cuts& at = whole ? whole_cuts : split_cuts;
        const unsigned j0 = static_cast<unsigned>(group) * g;
        unsigned wins[full_scalar_bits / min_window_bits + 1];  // the most windows a plan has (c = 1)
        unsigned count = 0;
        for (unsigned j = j0; j < std::min(j0 + g, p.part_windows); ++j)
            for (unsigned part = 0; part < p.parts; ++part) wins[count++] = j + part * p.part_windows;
        window_group<C>(p, std::span<const unsigned>(wins, count), points, density, along, ks, at.bounds[k],
                        at.bounds[k + 1], at.other_at[k], config, buckets,
                        std::span<J>(partial).subspan(k * p.windows, p.windows),
                        kept ? &kept->slots[k * p.windows] : nullptr, kept ? n / per_group : 0,
                        kept ? kept->reduce : true);
    };
    if (threads == 1) {
        bucket_scratch<C> buckets(config);
        for (size_t t = 0; t < tasks; ++t) run_task(t, buckets);
    } else {
        // Each worker takes the next task in order (the whole groups first, the cut ones
        // last), so the threads end within a fraction of a window of each other.
        std::atomic<size_t> next{0};
        tbb::parallel_for(tbb::blocked_range<unsigned>(0, threads, 1), [&](const tbb::blocked_range<unsigned>&) {
            bucket_scratch<C> buckets(config);
            for (size_t t; (t = next.fetch_add(1, std::memory_order_relaxed)) < tasks;) run_task(t, buckets);
        });
    }

    // Horner over each part's windows from the top: acc = 2^width_j * acc + W_j.
    std::array<J, 2> sums{J::identity(), J::identity()};
    for (unsigned part = 0; part < p.parts; ++part) {
        J& acc = sums[part];
        for (size_t j = (part + 1) * p.part_windows; j-- > part * p.part_windows;) {
            for (unsigned b = 0; b < p.width[j]; ++b) acc = acc.dbl();
            for (size_t k = 0; k < rows; ++k) acc += partial[k * p.windows + j];
        }
    }
    return sums;
}

// R^-1 (Montgomery form 1): a scalar times it is its canonical value; taken in pieces of
// canonical_piece scalars.
constexpr size_t canonical_piece = 512;
constexpr ff::fr r_inverse = ff::fr::from_mont(ff::fr::repr{1, 0, 0, 0});

// The endomorphism path (glv.hpp): the pairs that take part, in blocks of at most
// config.glv_block pairs, each scalar split into signed 127-bit halves k = s1 k1 + s2 k2 m and
// recoded into one value (plan::recode_signed), then the bucket method with two parts of
// 127-bit windows over the block's points as they are:
//   sum k_i P_i = sum s1 k1_i P_i + endo(sum s2 k2_i P_i),
// endo applied once to the second part's sum. No point is written (where the split wrote
// +-P and +-endo(P) for every pair, 2 * 96 bytes and for G1 an Fp product each, the 2 KiB
// proof's H MSM spent 0.31 s in its splits); a block's points are copied only where the
// density runs along them (to make them contiguous). Window j of both parts runs in one task
// (the points read once for both), and the second part's buckets are merged into the first's
// before the reduction (merge_endo): 2^(c-1) additions a window pair more than one part's
// reduction, against the 2n of its points; endo of the second part's sum remains for the
// windows without batches (window_xyzz), which are not merged.
template <class C>
ec::jacobian<C> pippenger_glv(const plan& p, std::span<const ec::affine<C>> points, const density_bitmap* density,
                              density_on along, std::span<const ff::fr> scalars, size_t n, const msm_config& config) {
    using A = ec::affine<C>;
    using J = ec::jacobian<C>;
    const size_t block = config.glv_block ? config.glv_block : n;
    const size_t span_len = along == density_on::scalars ? scalars.size() : points.size();
    J total = J::identity();
    uninit_buffer<A> gathered;  // every element is written by the split below
    uninit_buffer<recoded> ks;
    std::vector<std::pair<size_t, size_t>> pairs;  // (point index, scalar index)
    // One window size for every block (the first block's, the largest: chosen by the caller);
    // with more than one block the buckets are kept from block to block and reduced after the
    // last (kept_buckets).
    kept_buckets<C> kept;
    kept.plan_n = std::min(n, block);
    kept_buckets<C>* const keep = n > block ? &kept : nullptr;
    size_t pos = 0, other = 0, done = 0;
    while (pos < span_len) {
        // Without a density the block's pairs are (first + i, first + i): no list is made (made on
        // one thread while the other waited, it took 13 ms for the H MSM's first block of 2^20
        // pairs, its 16 MB faulted in, and 2.5 ms for each of the three others; Intel Xeon).
        const size_t first = pos, first_other = other;
        size_t m = 0;
        if (density == nullptr) {
            m = std::min(block, span_len - pos);
            pos += m;
        } else {
            // The set bits a word at a time (bit by bit, the 44k pairs of the 2 KiB proof's L MSM
            // rest took 3.4 ms to find among 2.7 million positions, on one thread).
            pairs.clear();
            while (pairs.size() < block && (pos = density->next_set(pos)) < span_len) {
                if (along == density_on::points) pairs.emplace_back(pos, other++);
                else pairs.emplace_back(other++, pos);
                ++pos;
            }
            m = pairs.size();
        }
        if (m == 0) continue;
        done += m;
        kept.reduce = done == n;
        // The block's points: the input's own where they are contiguous (no density, or a density
        // along the scalars: then the points are the selected ones in order), else gathered.
        const bool gather = along == density_on::points;
        if (gather) gathered.resize_discard(m);
        const std::span<const A> block_points = gather ? std::as_const(gathered).span()
                                                : points.subspan(density ? first_other : first, m);
        ks.resize_discard(m);
        tbb::parallel_for(tbb::blocked_range<size_t>(0, m, 4096), [&](const tbb::blocked_range<size_t>& r) {
            // The scalars in canonical form a piece at a time: their products with R^-1 (the
            // element whose Montgomery form is 1) by ff::mul_batch, 8 at a time on IFMA, where
            // to_canonical one by one took 18-24 ns a scalar.
            constexpr size_t piece = canonical_piece;
            std::array<ff::fr, piece> in, canon;
            for (size_t i0 = r.begin(); i0 < r.end(); i0 += piece) {
                const size_t len = std::min(piece, r.end() - i0);
                std::span<const ff::fr> from = density ? std::span<const ff::fr>(in).first(len) : scalars.subspan(first + i0, len);
                for (size_t t = 0; t < len; ++t) {
                    const size_t i = i0 + t;
                    if (gather) gathered[i] = points[pairs[i].first];
                    if (density) in[t] = scalars[pairs[i].second];
                }
                ff::scale_batch(std::span<ff::fr>(canon).first(len), from, r_inverse);
                for (size_t t = 0; t < len; ++t) ks[i0 + t] = p.recode_signed(glv_split_signed(canon[t].mont));
            }
        });
        const auto sums = run_windows<C>(p, block_points, nullptr, density_on::none, std::as_const(ks).span(), m,
                                         config, keep);
        total += sums[0];
        if (!sums[1].is_identity()) total += glv_endo(sums[1].to_affine());
    }
    return total;
}

template <class C>
ec::jacobian<C> pippenger(std::span<const ec::affine<C>> points, const density_bitmap* density, density_on along,
                          std::span<const ff::fr> scalars, const msm_config& config) {
    using J = ec::jacobian<C>;
    // n: the number of pairs that take part (the window is chosen for it).
    const size_t n = along == density_on::scalars ? points.size() : scalars.size();
    if (n == 0) return J::identity();
    return parallel::in_arena(config.threads, [&]() -> J {
        if (config.glv) {
            // The signed recoding of the split's halves needs c >= 3 (plan::recode_signed); smaller
            // windows (fixed:1 and fixed:2 alone) take the 255-bit path.
            const size_t block = config.glv_block ? std::min(config.glv_block, n) : n;
            static_assert(spread_bits == glv_scalar_bits + 1);
            const unsigned threads = parallel::arena_concurrency();
            const unsigned spread = config.window.glv_windows_for(block, threads);
            const plan p = spread ? plan::spread(spread, spread_bits, glv_scalar_bits, 2)
                                  : plan(config.window.glv_bits_for(block, threads), glv_scalar_bits, 2);
            if (p.c >= 3) return pippenger_glv<C>(p, points, density, along, scalars, n, config);
        }
        const plan p(config.window.bits_for(n), full_scalar_bits);
        std::vector<recoded> ks = recode_all(p, scalars);
        return run_windows<C>(p, points, density, along, ks, n, config)[0];
    });
}

}  // namespace

template <class C>
ec::jacobian<C> msm(std::span<const ec::affine<C>> points, std::span<const ff::fr> scalars, const msm_config& config) {
    if (points.size() != scalars.size())
        throw error(errc::bad_input, std::string("msm (") + C::name + "): " + std::to_string(points.size()) +
                                         " points but " + std::to_string(scalars.size()) + " scalars");
    return pippenger<C>(points, nullptr, density_on::none, scalars, config);
}

// A density runs along one list (one bit per entry) and selects as many entries of the
// other list as it has set bits; refuse inputs that break either count, naming both.
static void check_density(const std::string& what, const density_bitmap& density, size_t along, const char* along_name,
                   size_t other, const char* other_name) {
    if (density.size() != along)
        throw error(errc::bad_input, what + ": density has " + std::to_string(density.size()) +
                                         " bits but there are " + std::to_string(along) + " " + along_name);
    size_t set = density.count();
    if (set != other)
        throw error(errc::bad_input, what + ": density has " + std::to_string(set) + " set bits but there are " +
                                         std::to_string(other) + " " + other_name);
}

template <class C>
ec::jacobian<C> msm_density(std::span<const ec::affine<C>> points, const density_bitmap& density,
                            std::span<const ff::fr> scalars, const msm_config& config) {
    check_density(std::string("msm_density (") + C::name + ")", density, points.size(), "points", scalars.size(),
                  "scalars");
    return pippenger<C>(points, &density, density_on::points, scalars, config);
}

template <class C>
ec::jacobian<C> msm_filtered_bases(std::span<const ec::affine<C>> bases, const density_bitmap& density,
                                   std::span<const ff::fr> scalars, const msm_config& config) {
    check_density(std::string("msm_filtered_bases (") + C::name + ")", density, scalars.size(), "scalars",
                  bases.size(), "bases");
    return pippenger<C>(bases, &density, density_on::scalars, scalars, config);
}

template ec::jacobian<ec::g1_curve> msm<ec::g1_curve>(std::span<const ec::g1_affine>, std::span<const ff::fr>,
                                                      const msm_config&);
template ec::jacobian<ec::g2_curve> msm<ec::g2_curve>(std::span<const ec::g2_affine>, std::span<const ff::fr>,
                                                      const msm_config&);
template ec::jacobian<ec::g1_curve> msm_density<ec::g1_curve>(std::span<const ec::g1_affine>, const density_bitmap&,
                                                              std::span<const ff::fr>, const msm_config&);
template ec::jacobian<ec::g2_curve> msm_density<ec::g2_curve>(std::span<const ec::g2_affine>, const density_bitmap&,
                                                              std::span<const ff::fr>, const msm_config&);
template ec::jacobian<ec::g1_curve> msm_filtered_bases<ec::g1_curve>(std::span<const ec::g1_affine>,
                                                                     const density_bitmap&, std::span<const ff::fr>,
                                                                     const msm_config&);
template ec::jacobian<ec::g2_curve> msm_filtered_bases<ec::g2_curve>(std::span<const ec::g2_affine>,
                                                                     const density_bitmap&, std::span<const ff::fr>,
                                                                     const msm_config&);

}  // namespace c2lab::msm

#include "msm/split.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/cache_aligned_allocator.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/uninit_buffer.hpp"
#include "ff/ifma.hpp"

namespace c2lab::msm {

namespace {

// Below this many points a level of the tree is not worth an inversion: the rest is added
// in jacobian form (an inversion costs about 200 multiplications, see ff/mont_field.hpp).
constexpr size_t tree_floor = 64;
// Points per parallel chunk: large enough that the per-level inversions amortise.
constexpr size_t chunk_points = size_t{1} << 14;

// Points as two coordinate arrays, on cache lines (the IFMA kernel's 64-byte loads and stores
// then never split across two).
template <class C>
struct soa_points {
    using F = typename C::field;
    std::vector<F, tbb::cache_aligned_allocator<F>> x, y;
    void clear() noexcept { x.clear(), y.clear(); }
    void push(const ec::affine<C>& p) { x.push_back(p.x), y.push_back(p.y); }
    size_t size() const noexcept { return x.size(); }
    void resize(size_t n) { x.resize(n), y.resize(n); }
};

// The sum of pts (no identities), destroying pts. Each level adds the second half to the first
// in place, pairs (i, i + h), with ff::affine_add_batch (one shared inversion; AVX-512 IFMA where
// present): the halves are the kernel's arrays as they lie, where pairs of neighbours had to be
// copied into four arrays and back. The 1-point sums of a 2 KiB proof's L, A, B (G1) and B (G2)
// MSMs, two threads: 104 + 100 + 31 + 79 ms that way, 88 + 84 + 26 + 70 ms this way (Intel Xeon,
// IFMA). A level with equal x in a pair (P + P, P - P: rare) copies its other pairs out, as before.
template <class C>
ec::jacobian<C> sum_chunk(soa_points<C>& pts) {
    using field = typename C::field;
    using J = ec::jacobian<C>;
    J side = J::identity();  // pairs with equal x, and the leftovers
    soa_points<C> a, b;      // a level's pairs where some pair has equal x
    std::vector<uint8_t> negate;
    while (pts.size() > tree_floor) {
        const size_t n = pts.size(), h = n / 2;
        bool clash = false;
        for (size_t i = 0; i < h && !clash; ++i) clash = pts.x[i] == pts.x[i + h];
        size_t out = h;
        if (!clash) {
            negate.assign(h, 0);
            ff::affine_add_batch(ff::default_batch_path(), std::span<field>(pts.x).first(h),
                                 std::span<field>(pts.y).first(h), std::span<const field>(pts.x).subspan(h, h),
                                 std::span<const field>(pts.y).subspan(h, h), negate);
        } else {
            a.clear();
            b.clear();
            for (size_t i = 0; i < h; ++i) {
                const ec::affine<C> p{pts.x[i], pts.y[i]}, q{pts.x[i + h], pts.y[i + h]};
                if (p.x == q.x) {
                    side += p.to_jacobian() + q.to_jacobian();  // doubling or P + (-P)
                    continue;
                }
                a.push(p);
                b.push(q);
            }
            negate.assign(a.size(), 0);
            ff::affine_add_batch(ff::default_batch_path(), std::span<field>(a.x), std::span<field>(a.y),
                                 std::span<const field>(b.x), std::span<const field>(b.y), negate);
            out = a.size();
            std::copy(a.x.begin(), a.x.end(), pts.x.begin());
            std::copy(a.y.begin(), a.y.end(), pts.y.begin());
        }
        if (n % 2) {  // the odd one out moves down behind the sums (out <= h < n - 1)
            pts.x[out] = pts.x[n - 1];
            pts.y[out] = pts.y[n - 1];
            ++out;
        }
        pts.resize(out);
    }
    for (size_t i = 0; i < pts.size(); ++i) side += ec::affine<C>{pts.x[i], pts.y[i]};
    return side;
}

template <class C>
ec::jacobian<C> sum_points(std::span<const ec::affine<C>> points) {
    using J = ec::jacobian<C>;
    const size_t chunks = (points.size() + chunk_points - 1) / chunk_points;
    return tbb::parallel_reduce(
        tbb::blocked_range<size_t>(0, chunks, 1), J::identity(),
        [&](const tbb::blocked_range<size_t>& r, J acc) {
            soa_points<C> pts;
            for (size_t c = r.begin(); c < r.end(); ++c) {
                const size_t lo = c * chunk_points, hi = std::min(points.size(), lo + chunk_points);
                pts.clear();
                for (size_t i = lo; i < hi; ++i)
                    if (!points[i].is_identity()) pts.push(points[i]);
                acc += sum_chunk<C>(pts);
            }
            return acc;
        },
        [](const J& a, const J& b) { return a + b; });
}

// The split of one call, shared by msm_split (density null: base i for scalar i) and
// msm_filtered_bases_split (the scalars whose density bit is set, in order, take the bases).
// Both passes run over chunks of the scalars in parallel: the first counts each chunk's rest
// (and bases), the second sums the chunk's 1-points (sum_chunk) and writes its rest scalars and
// bits at the offsets the counts give. Split on one thread, with the 1-points copied into one
// vector, it left the second core idle for a third of the L, A and B MSMs of a 2 KiB proof.
template <class C>
ec::jacobian<C> split_and_run(std::span<const ec::affine<C>> bases, const density_bitmap* density,
                              std::span<const ff::fr> scalars, const msm_config& config, split_counts* counts) {
    using J = ec::jacobian<C>;
    const size_t n = scalars.size();
    const size_t len = config.split_chunk ? (config.split_chunk + 63) / 64 * 64 : size_t{1} << 15;
    const size_t chunks = (n + len - 1) / len;
    struct tally {
        size_t zeros = 0, ones = 0, rest = 0, bases = 0;
    };
    std::vector<tally> t(chunks);
    // Calls f(base index, scalar) for every scalar of chunk k that takes part; bases are
    // numbered from the chunk's first (j0).
    auto walk = [&](size_t k, size_t j0, auto&& f) {
        const size_t lo = k * len, hi = std::min(n, lo + len);
        size_t j = j0;
        if (density == nullptr) {
            for (size_t i = lo; i < hi; ++i) f(j++, scalars[i]);
        } else {
            for (size_t i = density->next_set(lo); i < hi; i = density->next_set(i + 1)) f(j++, scalars[i]);
        }
        return j - j0;
    };
    return parallel::in_arena(config.threads, [&] {
        tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
            for (size_t k = r.begin(); k < r.end(); ++k) {
                tally& c = t[k];
                c.bases = walk(k, 0, [&](size_t, const ff::fr& s) {  // counted without a branch
                    const bool zero = s.is_zero(), one = s.is_one();
                    c.zeros += zero;
                    c.ones += one;
                    c.rest += !(zero | one);
                });
            }
        });
        split_counts total;
        std::vector<size_t> rest_at(chunks + 1, 0), base_at(chunks + 1, 0);
        for (size_t k = 0; k < chunks; ++k) {
            total.zeros += t[k].zeros, total.ones += t[k].ones, total.rest += t[k].rest;
            rest_at[k + 1] = rest_at[k] + t[k].rest;
            base_at[k + 1] = base_at[k] + t[k].bases;
        }
        if (counts) *counts = total;
        density_bitmap rest(bases.size());
        uninit_buffer<ff::fr> rest_scalars;
        rest_scalars.resize_discard(total.rest);
        const J ones = tbb::parallel_reduce(
            tbb::blocked_range<size_t>(0, chunks, 1), J::identity(),
            [&](const tbb::blocked_range<size_t>& r, J acc) {
                soa_points<C> pts;
                for (size_t k = r.begin(); k < r.end(); ++k) {
                    pts.clear();
                    size_t at = rest_at[k];
                    walk(k, base_at[k], [&](size_t j, const ff::fr& s) {
                        if (s.is_zero()) return;
                        if (s.is_one()) {
                            if (!bases[j].is_identity()) pts.push(bases[j]);
                            return;
                        }
                        rest.set_concurrently(j);  // a chunk's first and last words may be its neighbours'
                        rest_scalars[at++] = s;
                    });
                    acc += sum_chunk<C>(pts);
                }
                return acc;
            },
            [](const J& a, const J& b) { return a + b; });
        return ones + msm_density<C>(bases, rest, std::as_const(rest_scalars).span(), config);
    });
}

}  // namespace

template <class C>
ec::jacobian<C> sum_affine(std::span<const ec::affine<C>> points) {
    return sum_points<C>(points);
}

template <class C>
ec::jacobian<C> msm_split(std::span<const ec::affine<C>> points, std::span<const ff::fr> scalars,
                          const msm_config& config, split_counts* counts) {
    if (points.size() != scalars.size())
        throw error(errc::bad_input, "msm_split: " + std::to_string(points.size()) + " points but " +
                                         std::to_string(scalars.size()) + " scalars");
    return split_and_run<C>(points, nullptr, scalars, config, counts);
}

template <class C>
ec::jacobian<C> msm_filtered_bases_split(std::span<const ec::affine<C>> bases, const density_bitmap& density,
                                         std::span<const ff::fr> scalars, const msm_config& config,
                                         split_counts* counts) {
    if (density.size() != scalars.size() || density.count() != bases.size())
        throw error(errc::bad_input, "msm_filtered_bases_split: " + std::to_string(density.size()) +
                                         " density bits (" + std::to_string(density.count()) + " set) for " +
                                         std::to_string(scalars.size()) + " scalars and " +
                                         std::to_string(bases.size()) + " bases");
    return split_and_run<C>(bases, &density, scalars, config, counts);
}

#define C2LAB_MSM_SPLIT(C, A)                                                                                  \
    template ec::jacobian<C> msm_split<C>(std::span<const A>, std::span<const ff::fr>, const msm_config&,     \
                                          split_counts*);                                                      \
    template ec::jacobian<C> msm_filtered_bases_split<C>(std::span<const A>, const density_bitmap&,           \
                                                         std::span<const ff::fr>, const msm_config&,           \
                                                         split_counts*);                                       \
    template ec::jacobian<C> sum_affine<C>(std::span<const A>);
C2LAB_MSM_SPLIT(ec::g1_curve, ec::g1_affine)
C2LAB_MSM_SPLIT(ec::g2_curve, ec::g2_affine)
#undef C2LAB_MSM_SPLIT

}  // namespace c2lab::msm

#include "msm/pippenger.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace c2lab::msm {

namespace {

constexpr unsigned scalar_bits = 255;  // r < 2^255
using recoded = ff::limbs<5>;          // k + D < 2^(c * windows) <= 2^275

struct plan {
    unsigned c;        // window bits
    unsigned windows;  // floor(255 / c) + 1: the extra window takes the last carry
    uint64_t half;     // 2^(c-1): buckets per window, digits in [-(half - 1), half]
    uint64_t offset;   // half - 1: the per-window bias of the recoded scalar
    uint64_t mask;     // 2^c - 1
    recoded bias;      // D = offset * sum_j 2^(jc)

    explicit plan(unsigned bits)
        : c(bits), windows(scalar_bits / bits + 1), half(uint64_t{1} << (bits - 1)), offset(half - 1),
          mask((uint64_t{1} << bits) - 1), bias{} {
        for (unsigned j = 0; j < windows; ++j) {
            unsigned shift = j * c;
            recoded term{};
            term[shift / 64] = offset << (shift % 64);
            if (shift % 64 != 0 && shift / 64 + 1 < term.size()) term[shift / 64 + 1] = offset >> (64 - shift % 64);
            ff::add_to(bias, term);
        }
    }

    recoded recode(const ff::fr& s) const noexcept {
        auto k = s.to_canonical();
        recoded r{k[0], k[1], k[2], k[3], 0};
        ff::add_to(r, bias);
        return r;
    }

    // The signed digit of window j: ((K >> jc) mod 2^c) - offset.
    int64_t digit(const recoded& k, unsigned j) const noexcept {
        unsigned shift = j * c, limb = shift / 64, off = shift % 64;
        uint64_t w = k[limb] >> off;
        if (off + c > 64 && limb + 1 < k.size()) w |= k[limb + 1] << (64 - off);
        return static_cast<int64_t>(w & mask) - static_cast<int64_t>(offset);
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

// Buckets accumulated in affine form, additions batched so that one field inversion
// (Montgomery's trick) serves a whole batch: per addition 3M for the shared inversion,
// then lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1:
// about 5M + 1S, against 8M + 2S for xyzz + affine. A bucket takes at most one addition
// per batch; a second point for it in the same batch goes into that bucket's xyzz
// overflow accumulator instead (so equal scalars, which send every point to one bucket,
// cost what the xyzz path costs and never stall the batches). Equal x coordinates
// (P + P, P - P) are settled at once, off the batch (rare).
template <class C>
struct affine_batch_buckets {
    using A = ec::affine<C>;
    using X = ec::xyzz<C>;
    using F = typename C::field;
    std::vector<A> bucket;        // (0, 0) = empty
    std::vector<X> overflow;      // second and later points of a bucket within one batch
    std::vector<uint32_t> stamp;  // batch id in which the bucket already has an addition
    std::vector<uint32_t> idx;    // the batch: bucket indices
    std::vector<A> add;           // the batch: points to add
    std::vector<F> denom;         // the batch: x2 - x1, inverted together
    uint32_t batch_id = 1;
    size_t batch_size = 256;

    void reset(size_t buckets, size_t batch) {
        bucket.assign(buckets, A::identity());
        overflow.assign(buckets, X::identity());
        stamp.assign(buckets, 0);
        idx.clear();
        add.clear();
        batch_id = 1;
        batch_size = batch;
    }

    void put(uint32_t b, const A& pt) {
        A& cur = bucket[b];
        if (stamp[b] == batch_id) {
            overflow[b] += pt;  // 8M + 2S
        } else if (cur.is_identity()) {
            cur = pt;
        } else if (cur.x == pt.x) {
            cur = (cur.y == pt.y) ? cur.to_jacobian().dbl().to_affine() : A::identity();
        } else {
            stamp[b] = batch_id;
            idx.push_back(b);
            add.push_back(pt);
            if (idx.size() >= batch_size) run_batch();
        }
    }

    void run_batch() {
        if (idx.empty()) return;
        denom.resize(idx.size());
        for (size_t i = 0; i < idx.size(); ++i) denom[i] = add[i].x - bucket[idx[i]].x;
        ff::batch_inverse(std::span<F>(denom));
        for (size_t i = 0; i < idx.size(); ++i) {
            A& p1 = bucket[idx[i]];
            const A& p2 = add[i];
            F lambda = (p2.y - p1.y) * denom[i];
            F x3 = lambda.square() - p1.x - p2.x;
            p1.y = lambda * (p1.x - x3) - p1.y;
            p1.x = x3;
        }
        idx.clear();
        add.clear();
        ++batch_id;
    }
};

// Per-task scratch, reused across the tasks a thread runs.
template <class C>
struct bucket_scratch {
    std::vector<ec::xyzz<C>> xyzz;
    affine_batch_buckets<C> affine;
};

// One task: positions [begin, end) of the list the density runs along (the points when
// there is none), window j, buckets reduced to sum_b b * B_b. `other_at` is the index in
// the other list of the chunk's first pair: a position whose bit is set takes the next
// entry of the other list.
template <class C>
ec::jacobian<C> window_chunk(const plan& p, unsigned j, std::span<const ec::affine<C>> points,
                             const density_bitmap* density, density_on along, std::span<const recoded> ks,
                             size_t begin, size_t end, size_t other_at, bucket_add mode,
                             bucket_scratch<C>& scratch) {
    using X = ec::xyzz<C>;
    // auto: batches pay off when every bucket sees several points and conflicts are rare
    // (a batch of half / 16 buckets out of half). Not in a top window whose few scalar bits
    // reach only a handful of buckets: most of its points would go to the overflow.
    const unsigned bits_left = scalar_bits > j * p.c ? scalar_bits - j * p.c : 0;
    const bool narrow_window = bits_left < p.c;  // digits there stay below 2^bits_left + 1
    const bool batched = mode == bucket_add::batch_affine ||
                         (mode == bucket_add::automatic && !narrow_window && p.half >= 1024 &&
                          end - begin >= 4 * p.half);
    auto visit = [&](auto&& put) {
        auto put_digit = [&](const ec::affine<C>& pt, const recoded& k) {
            int64_t d = p.digit(k, j);
            if (d > 0) put(static_cast<uint32_t>(d - 1), pt);
            else if (d < 0) put(static_cast<uint32_t>(-d - 1), -pt);
        };
        size_t s = other_at;
        if (along == density_on::none) {
            for (size_t i = begin; i < end; ++i) put_digit(points[i], ks[i]);
        } else if (along == density_on::points) {
            for (size_t i = begin; i < end; ++i)
                if (density->test(i)) put_digit(points[i], ks[s++]);
        } else {
            for (size_t i = begin; i < end; ++i)
                if (density->test(i)) put_digit(points[s++], ks[i]);
        }
    };
    X running = X::identity(), sum = X::identity();
    if (batched) {
        auto& acc = scratch.affine;
        acc.reset(p.half, std::clamp<size_t>(p.half / 8, 16, 512));
        visit([&](uint32_t b, const ec::affine<C>& pt) {
            if (!pt.is_identity()) acc.put(b, pt);
        });
        acc.run_batch();
        for (size_t b = p.half; b-- > 0;) {  // running sums, as below
            running += acc.bucket[b];
            if (!acc.overflow[b].is_identity()) running += acc.overflow[b];
            sum += running;
        }
        return sum.to_jacobian();
    }
    auto& buckets = scratch.xyzz;
    buckets.assign(p.half, X::identity());
    visit([&](uint32_t b, const ec::affine<C>& pt) { buckets[b] += pt; });  // 8M + 2S
    // Running sums from the top bucket: sum = sum_b (b + 1) * buckets[b]; 2 * half additions.
    for (size_t b = p.half; b-- > 0;) {
        running += buckets[b];
        sum += running;
    }
    return sum.to_jacobian();
}

template <class C>
ec::jacobian<C> pippenger(std::span<const ec::affine<C>> points, const density_bitmap* density, density_on along,
                          std::span<const ff::fr> scalars, const msm_config& config) {
    using J = ec::jacobian<C>;
    // n: the number of pairs that take part (the window is chosen for it).
    const size_t n = along == density_on::scalars ? points.size() : scalars.size();
    if (n == 0) return J::identity();
    const plan p(config.window.bits_for(n));
    return parallel::in_arena(config.threads, [&]() -> J {
        std::vector<recoded> ks = recode_all(p, scalars);

        // Point chunks per window: enough tasks for every thread (4 per thread for balance),
        // but no chunk below 2^c points, where bucket reduction would dominate.
        // chunking is over the list the density runs along (the points when there is none)
        const size_t span_len = along == density_on::scalars ? scalars.size() : points.size();
        const unsigned threads = parallel::arena_concurrency();
        size_t chunks = 1;
        if (threads > 1) {
            size_t want = (size_t{4} * threads + p.windows - 1) / p.windows;
            size_t most = std::max<size_t>(1, n >> p.c);
            chunks = std::clamp<size_t>(want, 1, most);
        }
        std::vector<size_t> bounds(chunks + 1), other_at(chunks + 1, 0);
        for (size_t k = 0; k <= chunks; ++k) bounds[k] = span_len * k / chunks;
        if (density != nullptr)
            for (size_t k = 1; k <= chunks; ++k)
                other_at[k] = other_at[k - 1] + density->count(bounds[k - 1], bounds[k]);
        else
            other_at = bounds;

        const size_t tasks = size_t{p.windows} * chunks;
        std::vector<J> partial(tasks, J::identity());
        auto run_task = [&](size_t t, bucket_scratch<C>& buckets) {
            unsigned j = static_cast<unsigned>(t / chunks);
            size_t k = t % chunks;
            partial[t] =
                window_chunk<C>(p, j, points, density, along, ks, bounds[k], bounds[k + 1], other_at[k],
                                config.bucket_add, buckets);
        };
        if (threads == 1) {
            bucket_scratch<C> buckets;
            for (size_t t = 0; t < tasks; ++t) run_task(t, buckets);
        } else {
            tbb::parallel_for(tbb::blocked_range<size_t>(0, tasks, 1), [&](const tbb::blocked_range<size_t>& r) {
                bucket_scratch<C> buckets;
                for (size_t t = r.begin(); t < r.end(); ++t) run_task(t, buckets);
            });
        }

        // Horner over windows from the top: acc = 2^c * acc + W_j.
        J acc = J::identity();
        for (size_t j = p.windows; j-- > 0;) {
            for (unsigned b = 0; b < p.c; ++b) acc = acc.dbl();
            for (size_t k = 0; k < chunks; ++k) acc += partial[j * chunks + k];
        }
        return acc;
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

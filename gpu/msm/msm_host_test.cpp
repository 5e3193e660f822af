// The GPU MSM's code on the host (g++): the device curve formulas against lib/ec, the signed
// digits, the plan, and the whole pipeline (gpu/msm/msm_emulate.hpp: the device's schedule and
// bodies) against lib/msm, for G1 and G2.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/rng.hpp"
#include "ec/g2.hpp"
#include "gpu/ec/convert.hpp"
#include "gpu/msm/msm_emulate.hpp"
#include "msm/batch_affine.hpp"
#include "msm/pippenger.hpp"

namespace c2lab::gpu {
namespace {

using ff::fr;
using namespace pippenger;

// n random points: a walk of mixed additions from a random multiple of the generator with a
// few random steps, then one batch inversion.
template <class C>
std::vector<ec::affine<C>> random_points(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<ec::affine<C>> steps;
    for (int i = 0; i < 4; ++i) steps.push_back((ec::jacobian<C>::generator() * fr::random(g)).to_affine());
    std::vector<ec::jacobian<C>> jac(n);
    auto cur = ec::jacobian<C>::generator() * fr::random(g);
    for (auto& p : jac) p = cur = cur + steps[g.below(steps.size())];
    std::vector<ec::affine<C>> out(n);
    msm::batch_to_affine_serial<C>(jac, out);
    return out;
}

std::vector<fr> random_scalars(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<fr> v(n);
    for (auto& s : v) s = fr::random(g);
    return v;
}

// 0, 1, r - 1, 2, -2 and random, in a repeating pattern.
std::vector<fr> mixed_scalars(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<fr> v(n);
    const fr edge[] = {fr::zero(), fr::one(), -fr::one(), fr::from_u64(2), -fr::from_u64(2)};
    for (size_t i = 0; i < n; ++i) v[i] = i % 3 == 0 ? edge[(i / 3) % 5] : fr::random(g);
    return v;
}

template <class C>
class dev_curve_test : public ::testing::Test {};
using curves = ::testing::Types<ec::g1_curve, ec::g2_curve>;
TYPED_TEST_SUITE(dev_curve_test, curves);

TYPED_TEST(dev_curve_test, formulas_match_lib_ec) {
    using C = TypeParam;
    using J = ec::jacobian<C>;
    using X = typename dev_curve_t<C>::xyzz;
    using A = typename dev_curve_t<C>::affine;
    const auto pts = random_points<C>(6, 11);
    // Points in xyzz with ZZ != 1: P + Q for the pairs of pts.
    std::vector<J> jac;
    std::vector<X> dev;
    for (size_t i = 0; i < pts.size(); ++i) {
        jac.push_back(pts[i].to_jacobian());
        dev.push_back(X::from_affine(to_dev(pts[i])));
        const size_t j = (i + 1) % pts.size();
        jac.push_back(pts[i].to_jacobian() + pts[j].to_jacobian());
        dev.push_back(X::from_affine(to_dev(pts[i])) + to_dev(pts[j]));
    }
    jac.push_back(J::identity());
    dev.push_back(X::identity());
    for (size_t i = 0; i < jac.size(); ++i) {
        const X& p = dev[i];
        ASSERT_EQ(to_host_jacobian<C>(p), jac[i]) << i;
        EXPECT_TRUE(to_host_jacobian<C>(p).is_on_curve());
        EXPECT_EQ(to_host_jacobian<C>(p.dbl()), jac[i].dbl()) << i;
        EXPECT_EQ(to_host_jacobian<C>(-p), -jac[i]) << i;
        // lib/ec's xyzz agrees coordinate for coordinate (same formulas, same field elements).
        if (!p.is_identity()) {
            ec::xyzz<C> h = to_host_xyzz<C>(p);
            EXPECT_EQ(to_dev(h.dbl()).x, p.dbl().x);
            EXPECT_EQ(to_dev(h.dbl()).zzz, p.dbl().zzz);
        }
        for (size_t j = 0; j < jac.size(); ++j) {
            ASSERT_EQ(to_host_jacobian<C>(p + dev[j]), jac[i] + jac[j]) << i << " " << j;
        }
        for (const auto& q : pts) {
            ASSERT_EQ(to_host_jacobian<C>(p + to_dev(q)), jac[i] + q.to_jacobian()) << i;
        }
        ASSERT_EQ(to_host_jacobian<C>(p + A::identity()), jac[i]);
    }
}

TYPED_TEST(dev_curve_test, identity_doubling_and_cancellation) {
    using C = TypeParam;
    using J = ec::jacobian<C>;
    using X = typename dev_curve_t<C>::xyzz;
    using A = typename dev_curve_t<C>::affine;
    const auto pts = random_points<C>(2, 12);
    const A a = to_dev(pts[0]);
    const X p = X::from_affine(a);
    const X q = p + to_dev(pts[1]);  // ZZ != 1
    const J pj = pts[0].to_jacobian(), qj = pj + pts[1].to_jacobian();
    // The identity: all zero, and doubling or negating it gives it back.
    X zero;
    std::memset(&zero, 0, sizeof zero);
    EXPECT_TRUE(zero.is_identity());
    EXPECT_TRUE(X::identity().dbl().is_identity());
    EXPECT_TRUE((-X::identity()).is_identity());
    EXPECT_TRUE(A::identity().is_identity());
    EXPECT_TRUE((-A::identity()).is_identity());
    EXPECT_TRUE(X::from_affine(A::identity()).is_identity());
    EXPECT_EQ(to_host_affine<C>(A::identity()), ec::affine<C>::identity());
    // O + P, P + O (both kinds of addition).
    EXPECT_EQ(to_host_jacobian<C>(X::identity() + q), qj);
    EXPECT_EQ(to_host_jacobian<C>(q + X::identity()), qj);
    EXPECT_EQ(to_host_jacobian<C>(X::identity() + a), pj);
    EXPECT_EQ(to_host_jacobian<C>(q + A::identity()), qj);
    EXPECT_TRUE((X::identity() + A::identity()).is_identity());
    // P + P doubles, P + (-P) cancels: xyzz + xyzz with different Z, and xyzz + affine.
    const X q2 = (q + p) + (-p);  // q with other coordinates
    EXPECT_EQ(to_host_jacobian<C>(q2), qj);
    EXPECT_EQ(to_host_jacobian<C>(q + q2), qj.dbl());
    EXPECT_TRUE((q + (-q2)).is_identity());
    EXPECT_EQ(to_host_jacobian<C>(p + a), pj.dbl());
    EXPECT_TRUE((p + (-a)).is_identity());
    const X q_plus_p = q + a;
    EXPECT_EQ(to_host_jacobian<C>(q_plus_p + -a), qj);  // xyzz (ZZ != 1) + affine
    X pa = X::from_affine(a);
    pa += a;  // P + P through the mixed formula from a doubled-up accumulator
    pa += a;
    EXPECT_EQ(to_host_jacobian<C>(pa), pj.mul(3));
    // Small multiples.
    EXPECT_EQ(to_host_jacobian<C>(mul_small(q, 0)), J::identity());
    EXPECT_EQ(to_host_jacobian<C>(mul_small(q, 1)), qj);
    EXPECT_EQ(to_host_jacobian<C>(mul_small(q, 1000003)), qj.mul(1000003));
    EXPECT_EQ(to_host_jacobian<C>(mul_small(q, 0xffffffffu)), qj.mul(0xffffffffull));
}

TYPED_TEST(dev_curve_test, raw_layout_is_to_dev) {
    using C = TypeParam;
    using A = typename dev_curve_t<C>::affine;
    static_assert(raw_layout_matches<C>);
    auto pts = random_points<C>(3, 13);
    pts.push_back(ec::affine<C>::identity());
    for (const auto& p : pts) {
        A raw;
        std::memcpy(&raw, &p, sizeof raw);
        const A conv = to_dev(p);
        EXPECT_EQ(raw.x, conv.x);
        EXPECT_EQ(raw.y, conv.y);
        EXPECT_EQ(to_host_affine<C>(raw), p);
    }
    rng g(5);
    for (int i = 0; i < 8; ++i) {
        const fr s = fr::random(g);
        fr_dev raw;
        std::memcpy(&raw, &s, sizeof raw);
        EXPECT_EQ(raw, to_dev(s));
    }
}

// ---- signed digits ----------------------------------------------------------------------------

using wide = std::array<uint64_t, 5>;  // 320-bit unsigned

void add_shifted(wide& acc, uint64_t v, unsigned shift) {
    unsigned __int128 carry = 0;
    for (size_t l = 0; l < acc.size(); ++l) {
        unsigned __int128 term = 0;
        if (l == shift / 64) term = (unsigned __int128)(v << (shift % 64));
        else if (l == shift / 64 + 1 && shift % 64) term = v >> (64 - shift % 64);
        const unsigned __int128 s = (unsigned __int128)acc[l] + term + carry;
        acc[l] = uint64_t(s);
        carry = s >> 64;
    }
}

std::array<uint32_t, 8> limbs32_of(const ff::limbs<4>& k) {
    std::array<uint32_t, 8> r{};
    for (int i = 0; i < 4; ++i) {
        r[2 * i] = uint32_t(k[i]);
        r[2 * i + 1] = uint32_t(k[i] >> 32);
    }
    return r;
}

// k = sum_j d_j 2^(j c) exactly (positive and negative parts summed apart), digits in range.
void expect_recombines(const ff::limbs<4>& k, unsigned c) {
    const auto k32 = limbs32_of(k);
    std::vector<int32_t> d(window_count(c));
    signed_digits(k32.data(), c, d.data());
    const int64_t half = int64_t{1} << (c - 1);
    wide pos{}, neg{};
    for (unsigned j = 0; j < d.size(); ++j) {
        ASSERT_LE(d[j], half) << "c " << c << " j " << j;
        ASSERT_GE(d[j], -(half - 1)) << "c " << c << " j " << j;
        if (d[j] > 0) add_shifted(pos, uint64_t(d[j]), j * c);
        if (d[j] < 0) add_shifted(neg, uint64_t(-int64_t(d[j])), j * c);
    }
    wide expect{};
    for (int i = 0; i < 4; ++i) expect[i] = k[i];
    // pos - neg == k  <=>  pos == k + neg
    for (size_t l = 0; l < neg.size(); ++l) add_shifted(expect, neg[l], unsigned(64 * l));
    EXPECT_EQ(pos, expect) << "c " << c;
}

TEST(gpu_msm_digits, recombine_to_the_scalar) {
    rng g(21);
    for (unsigned c = min_window_bits; c <= max_window_bits; ++c) {
        std::vector<ff::limbs<4>> ks = {fr::zero().to_canonical(), fr::one().to_canonical(),
                                        (-fr::one()).to_canonical()};
        ff::limbs<4> low{};
        low[0] = (uint64_t{1} << c) - 1;  // 2^c - 1: the first window full, a carry
        ks.push_back(low);
        low[0] = uint64_t{1} << (c - 1);  // 2^(c-1): the largest digit without a carry
        ks.push_back(low);
        low[0] += 1;
        ks.push_back(low);
        ks.push_back({~0ull, ~0ull, ~0ull, (1ull << 62) - 1});  // 2^254 - 1: every window full
        wide halves{};  // every window 2^(c-1): the largest digits, no carry at all
        for (unsigned j = 0; (j + 1) * c <= 254; ++j) add_shifted(halves, uint64_t{1} << (c - 1), j * c);
        ks.push_back({halves[0], halves[1], halves[2], halves[3]});
        wide above{};  // every window 2^(c-1) + 1: a carry out of every window
        for (unsigned j = 0; (j + 1) * c <= 254; ++j) add_shifted(above, (uint64_t{1} << (c - 1)) + 1, j * c);
        ks.push_back({above[0], above[1], above[2], above[3]});
        for (int i = 0; i < 20; ++i) ks.push_back(fr::random(g).to_canonical());
        for (const auto& k : ks) expect_recombines(k, c);
    }
}

TEST(gpu_msm_digits, keys_and_values) {
    for (unsigned c : {1u, 4u, 13u, 20u}) {
        const uint32_t half = uint32_t{1} << (c - 1);
        EXPECT_EQ(bucket_key(0, 1, half), 0u);
        EXPECT_EQ(bucket_key(0, -1, half), 0u);
        EXPECT_EQ(bucket_key(0, int32_t(half), half), half - 1);
        if (c >= 2) {
            EXPECT_EQ(bucket_key(3, -int32_t(half - 1), half), 3 * half + half - 2);
        }
        EXPECT_EQ(bucket_key(2, 1, half), 2 * half);
    }
    for (uint32_t i : {0u, 1u, 12345u, uint32_t(max_points - 1)}) {
        for (bool neg : {false, true}) {
            EXPECT_EQ(point_index(pack_point(i, neg)), i);
            EXPECT_EQ(point_negated(pack_point(i, neg)), neg);
        }
    }
}

// ---- the plan -------------------------------------------------------------------------------

TEST(gpu_msm_plan, windows_and_sizes) {
    EXPECT_EQ(default_window_bits(0), 4u);
    EXPECT_EQ(default_window_bits(1), 4u);
    EXPECT_EQ(default_window_bits(size_t{1} << 12), 8u);
    EXPECT_EQ(default_window_bits(size_t{1} << 16), 12u);
    EXPECT_EQ(default_window_bits(size_t{1} << 20), 16u);
    EXPECT_EQ(default_window_bits((size_t{1} << 20) + 1), 17u);
    EXPECT_EQ(default_window_bits(size_t{1} << 26), 20u);
    EXPECT_EQ(window_count(1), 256u);
    EXPECT_EQ(window_count(5), 52u);  // 255 = 51 x 5, plus the carry window
    EXPECT_EQ(window_count(16), 16u);
    EXPECT_EQ(window_count(20), 13u);
    for (unsigned c = 1; c <= max_window_bits; ++c) EXPECT_LT(scalar_bits, window_count(c) * c) << c;

    const plan p = make_plan(size_t{1} << 20);
    EXPECT_EQ(p.c, 16u);
    EXPECT_EQ(p.windows, 16u);
    EXPECT_EQ(p.half, 32768u);
    EXPECT_EQ(p.passes * p.windows_per_pass >= p.windows, true);
    EXPECT_LE(p.pass_entries, size_t{1} << 27);
    EXPECT_EQ(p.group * p.groups, p.half);

    // Passes: a small sort bound splits the windows evenly.
    plan_options o;
    o.window_bits = 8;  // 32 windows
    o.max_pass_entries = 1000 * 5;
    const plan q = make_plan(1000, o);
    EXPECT_EQ(q.windows, 32u);
    EXPECT_EQ(q.passes, 7u);
    EXPECT_EQ(q.windows_per_pass, 5u);
    EXPECT_EQ(q.pass_windows(6), 2u);
    unsigned total = 0;
    for (unsigned s = 0; s < q.passes; ++s) total += q.pass_windows(s);
    EXPECT_EQ(total, q.windows);

    // Levels: each shrinks, the last has one segment, the buffers hold every level's output.
    for (size_t entries : {size_t{1}, size_t{5}, size_t{64}, size_t{65}, size_t{100000}, size_t{1} << 27}) {
        size_t last_segments = 0, prev_items = 0;
        unsigned levels = 0;
        for_each_level(entries, 64, [&](unsigned level, size_t items, uint32_t len, size_t segments) {
            EXPECT_GE(len, 4u);
            EXPECT_LE(len, 64u);
            EXPECT_EQ(segments, (items + len - 1) / len);
            if (level > 0) {
                EXPECT_LT(items, prev_items);
            }
            prev_items = items;
            last_segments = segments;
            ++levels;
        });
        EXPECT_EQ(last_segments, 1u) << entries;
        EXPECT_LT(levels, 30u);
    }
    EXPECT_THROW(check_inputs("t", 10, 11, 0), error);
    EXPECT_THROW(check_inputs("t", 10, 10, 21), error);
    EXPECT_THROW(check_inputs("t", max_points, 0, 0), error);
    EXPECT_NO_THROW(check_inputs("t", 10, 10, 20));
}

// ---- the emulated pipeline against lib/msm --------------------------------------------------

template <class C>
class gpu_msm_emulate : public ::testing::Test {};
TYPED_TEST_SUITE(gpu_msm_emulate, curves);

// Small n against msm_naive for several windows (c = 1 and 5 divide 255, 7 and 13 do not),
// with the default segments and with the smallest ones (many levels, groups of one bucket,
// one window per pass).
TYPED_TEST(gpu_msm_emulate, small_against_naive) {
    using C = TypeParam;
    const bool g2 = std::is_same_v<C, ec::g2_curve>;
    const auto pts = random_points<C>(100, 31);
    const std::vector<size_t> sizes = g2 ? std::vector<size_t>{0, 1, 17, 100} : std::vector<size_t>{0, 1, 2, 17, 100};
    const std::vector<unsigned> windows = g2 ? std::vector<unsigned>{0, 5, 7} : std::vector<unsigned>{0, 1, 4, 5, 7, 13};
    for (size_t n : sizes) {
        const auto ks = mixed_scalars(n, 40 + n);
        const std::span<const ec::affine<C>> bases(pts.data(), n);
        const auto expect = msm::msm_naive<C>(bases, ks);
        for (unsigned c : windows) {
            plan_options o;
            o.window_bits = c;
            ASSERT_EQ(pippenger::msm_emulate<C>(bases, ks, o), expect) << "n " << n << " c " << c;
            o.max_segment = 4;
            o.reduce_group = 1;
            o.max_pass_entries = 1;
            ASSERT_EQ(pippenger::msm_emulate<C>(bases, ks, o), expect) << "n " << n << " c " << c << " small";
        }
    }
    // Fewer scalars than points: the prefix.
    const auto ks = random_scalars(10, 3);
    EXPECT_EQ(pippenger::msm_emulate<C>(std::span<const ec::affine<C>>(pts), ks),
              msm::msm_naive<C>(std::span<const ec::affine<C>>(pts.data(), 10), ks));
    EXPECT_THROW(pippenger::msm_emulate<C>(std::span<const ec::affine<C>>(pts.data(), 5), ks), error);
}

// Identity points, repeated and opposite points in the same bucket (P + P and P - P inside the
// accumulation), scalars 0, 1, r - 1.
TYPED_TEST(gpu_msm_emulate, edge_points_and_scalars) {
    using C = TypeParam;
    auto pts = random_points<C>(40, 32);
    for (size_t i = 0; i < pts.size(); i += 7) pts[i] = ec::affine<C>::identity();
    for (size_t i = 1; i + 1 < pts.size(); i += 5) pts[i + 1] = (i % 2) ? pts[i] : -pts[i];
    std::vector<std::vector<fr>> scalar_sets;
    scalar_sets.push_back(std::vector<fr>(pts.size(), fr::zero()));
    scalar_sets.push_back(std::vector<fr>(pts.size(), fr::one()));
    scalar_sets.push_back(std::vector<fr>(pts.size(), -fr::one()));
    scalar_sets.push_back(std::vector<fr>(pts.size(), fr::from_u64(12345)));
    scalar_sets.push_back(mixed_scalars(pts.size(), 9));
    for (const auto& ks : scalar_sets) {
        const auto expect = msm::msm_naive<C>(pts, ks);
        for (unsigned c : {0u, 3u, 8u}) {
            for (unsigned seg : {4u, 64u}) {
                plan_options o;
                o.window_bits = c;
                o.max_segment = seg;
                ASSERT_EQ(pippenger::msm_emulate<C>(pts, ks, o), expect) << "c " << c << " seg " << seg;
            }
        }
    }
}

// n = 2^12 (G1) / 2^10 (G2) random against lib/msm's Pippenger: the default plan, then small
// segments and passes (many levels, several sorts), then every scalar equal (one bucket per
// window holds every point: the long runs cross many segments).
TYPED_TEST(gpu_msm_emulate, large_against_lib_msm) {
    using C = TypeParam;
    const size_t n = std::is_same_v<C, ec::g1_curve> ? 4096 : 1024;
    const auto pts = random_points<C>(n, 33);
    const auto ks = random_scalars(n, 34);
    const auto expect = msm::msm<C>(pts, ks);
    const auto r = pippenger::msm_emulate_detailed<C>(pts, ks);
    EXPECT_EQ(r.sum, expect);
    EXPECT_EQ(r.used.c, default_window_bits(n));
    EXPECT_EQ(r.sorts, r.used.passes);

    plan_options o;
    o.max_segment = 4;
    o.reduce_group = 4;
    o.max_pass_entries = 3 * n;
    const auto small = pippenger::msm_emulate_detailed<C>(pts, ks, o);
    EXPECT_EQ(small.sum, expect);
    EXPECT_GT(small.used.passes, 1u);

    const std::vector<fr> same(n, fr::from_u64(0xabcdef));
    const auto expect_same = msm::msm<C>(pts, same);
    EXPECT_EQ(pippenger::msm_emulate<C>(pts, same), expect_same);
    EXPECT_EQ(pippenger::msm_emulate<C>(pts, same, o), expect_same);

    const auto mixed = mixed_scalars(n, 35);
    EXPECT_EQ(pippenger::msm_emulate<C>(pts, mixed), msm::msm<C>(pts, mixed));
}

}  // namespace
}  // namespace c2lab::gpu

// The GPU MSM on the device against lib/msm (skipped, with the reason, without a usable GPU):
// G1 for n = 1, 100, 2^12, 2^16, 2^20, G2 for 2^10, 2^17, random scalars with edge ones (0, 1, r - 1)
// and identity / repeated / opposite points mixed in; a reused msm_gpu run with different
// scalars and sizes; the errors for bad inputs.
#include <gtest/gtest.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <vector>

#include "core/rng.hpp"
#include "gpu/device.hpp"
#include "gpu/msm/msm_gpu.hpp"
#include "msm/batch_affine.hpp"
#include "msm/pippenger.hpp"

namespace c2lab::gpu {
namespace {

using ff::fr;

#define C2_REQUIRE_GPU()                                               \
    do {                                                               \
        if (auto why = no_device_reason()) GTEST_SKIP() << *why;       \
    } while (0)

// n points: chunks of 1024, each a walk of mixed additions from its own random start and steps,
// one batch inversion per chunk; then some identities, repeated and opposite points.
template <class C>
std::vector<ec::affine<C>> test_points(size_t n, uint64_t seed) {
    constexpr size_t chunk = 1024;
    std::vector<ec::affine<C>> out(n);
    const size_t chunks = (n + chunk - 1) / chunk;
    tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks, 1), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t k = r.begin(); k < r.end(); ++k) {
            rng g(seed * 1000 + k);
            std::vector<ec::affine<C>> steps;
            for (int i = 0; i < 4; ++i) steps.push_back((ec::jacobian<C>::generator() * fr::random(g)).to_affine());
            const size_t lo = k * chunk, len = std::min(chunk, n - lo);
            std::vector<ec::jacobian<C>> jac(len);
            auto cur = ec::jacobian<C>::generator() * fr::random(g);
            for (auto& p : jac) p = cur = cur + steps[g.below(steps.size())];
            msm::batch_to_affine_serial<C>(jac, std::span(out).subspan(lo, len));
        }
    });
    for (size_t i = 5; i < n; i += 97) out[i] = ec::affine<C>::identity();
    for (size_t i = 11; i + 1 < n; i += 89) out[i + 1] = (i % 2) ? out[i] : -out[i];
    return out;
}

std::vector<fr> test_scalars(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<fr> v(n);
    for (auto& s : v) s = fr::random(g);
    const fr edge[] = {fr::zero(), fr::one(), -fr::one()};
    for (size_t i = 0; i < n; i += 13) v[i] = edge[(i / 13) % 3];
    return v;
}

template <class C>
void expect_matches_cpu(size_t n, uint64_t seed) {
    const auto pts = test_points<C>(n, seed);
    const auto ks = test_scalars(n, seed + 1);
    gpu_timing t;
    const auto got = gpu::msm<C>(std::span<const ec::affine<C>>(pts), std::span<const fr>(ks), &t);
    EXPECT_EQ(got, msm::msm<C>(pts, ks)) << C::name << " n = " << n;
    EXPECT_GE(t.kernel_ms, 0.0);
}

TEST(gpu_msm, g1_against_cpu) {
    C2_REQUIRE_GPU();
    for (size_t n : {size_t{1}, size_t{100}, size_t{1} << 12, size_t{1} << 16}) expect_matches_cpu<ec::g1_curve>(n, n);
}

TEST(gpu_msm, g2_against_cpu) {
    C2_REQUIRE_GPU();
    expect_matches_cpu<ec::g2_curve>(size_t{1} << 10, 7);
}

// The sizes of a proof's MSMs: the window the plan picks there, many points per bucket and the
// segmented reductions at full length (the CPU reference takes a second or two on many cores).
TEST(gpu_msm, large_against_cpu) {
    C2_REQUIRE_GPU();
    expect_matches_cpu<ec::g1_curve>(size_t{1} << 20, 21);
    expect_matches_cpu<ec::g2_curve>(size_t{1} << 17, 22);
}

TEST(gpu_msm, reused_with_other_scalars_sizes_and_windows) {
    C2_REQUIRE_GPU();
    const size_t n = size_t{1} << 12;
    const auto pts = test_points<ec::g1_curve>(n, 3);
    msm_gpu<ec::g1_curve> engine(pts);
    EXPECT_EQ(engine.size(), n);
    EXPECT_EQ(engine.window_bits(), pippenger::default_window_bits(n));
    for (uint64_t seed : {10, 11}) {
        const auto ks = test_scalars(n, seed);
        EXPECT_EQ(engine.run(ks), msm::msm<ec::g1_curve>(pts, ks)) << seed;
    }
    // A prefix (a smaller plan on the same buffers), no scalars, every scalar equal.
    const auto ks = test_scalars(1000, 12);
    EXPECT_EQ(engine.run(ks), msm::msm_naive<ec::g1_curve>(std::span(pts).first(1000), ks));
    EXPECT_EQ(engine.run({}), ec::g1_jacobian::identity());
    const std::vector<fr> same(n, fr::from_u64(77));
    EXPECT_EQ(engine.run(same), msm::msm<ec::g1_curve>(pts, same));
    // A fixed window that does not divide 255, and one that does.
    for (unsigned c : {7u, 15u}) {
        msm_gpu<ec::g1_curve> fixed(pts, c);
        EXPECT_EQ(fixed.window_bits(), c);
        const auto k2 = test_scalars(n, 20 + c);
        EXPECT_EQ(fixed.run(k2), msm::msm<ec::g1_curve>(pts, k2)) << c;
    }
}

TEST(gpu_msm, bad_inputs) {
    C2_REQUIRE_GPU();
    const auto pts = test_points<ec::g1_curve>(8, 4);
    msm_gpu<ec::g1_curve> engine(pts);
    const auto ks = test_scalars(9, 5);
    EXPECT_THROW(engine.run(ks), error);
    EXPECT_THROW(msm_gpu<ec::g1_curve>(pts, 21), error);
    EXPECT_THROW(gpu::msm<ec::g1_curve>(pts, std::span(ks).first(7)), error);
}

}  // namespace
}  // namespace c2lab::gpu

// ntt_gpu on the device against lib/poly: the four transforms and compute_h for n = 2^1, 2^10,
// 2^16, 2^20 on random inputs, one ntt_gpu reused across calls, and the errors. Skips, saying
// why, where no CUDA device is usable; the size checks run everywhere (they precede CUDA).
#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "gpu/device.hpp"
#include "gpu/ntt/ntt_gpu.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"
#include "poly/ntt.hpp"

namespace c2lab::gpu {
namespace {

using ff::fr;

std::vector<fr> random_vector(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<fr> v(n);
    for (auto& x : v) x = fr::random(g);
    return v;
}

template <class F>
errc error_kind(F&& f) {
    try {
        f();
    } catch (const error& e) {
        return e.kind();
    }
    return errc::internal;
}

#define C2_REQUIRE_GPU()                                              \
    do {                                                              \
        if (!gpu_available()) GTEST_SKIP() << *no_device_reason();    \
    } while (0)

const size_t sizes[] = {size_t{1} << 1, size_t{1} << 10, size_t{1} << 16, size_t{1} << 20};

TEST(ntt_gpu, bad_sizes) {  // checked before any CUDA call
    EXPECT_EQ(error_kind([] { ntt_gpu g(0); }), errc::bad_input);
    EXPECT_EQ(error_kind([] { ntt_gpu g(3); }), errc::bad_input);
    EXPECT_EQ(error_kind([] { ntt_gpu g(size_t{1} << 33); }), errc::bad_input);
    std::vector<fr> a(3), b(4);
    EXPECT_EQ(error_kind([&] { compute_h(a, b, a); }), errc::bad_input);
}

TEST(ntt_gpu, transforms_equal_lib_poly) {
    C2_REQUIRE_GPU();
    for (size_t n : sizes) {
        SCOPED_TRACE(n);
        const poly::evaluation_domain d = poly::evaluation_domain::for_size(n);
        ntt_gpu g(n);
        EXPECT_EQ(g.size(), n);
        const std::vector<fr> x = random_vector(n, n);
        std::vector<fr> want = x, got = x;
        poly::forward_ntt(d, want);
        g.forward(got);
        ASSERT_EQ(got, want);
        poly::inverse_ntt(d, want);
        g.inverse(got);
        ASSERT_EQ(got, want);
        ASSERT_EQ(got, x);
        poly::coset_forward_ntt(d, want);
        g.coset_forward(got);
        ASSERT_EQ(got, want);
        want = random_vector(n, n + 1);
        got = want;
        poly::coset_inverse_ntt(d, want);
        g.coset_inverse(got);
        ASSERT_EQ(got, want);
    }
}

TEST(ntt_gpu, compute_h_equals_lib_poly) {
    C2_REQUIRE_GPU();
    for (size_t n : sizes)
        for (bool satisfied : {true, false}) {
            SCOPED_TRACE(testing::Message() << "n " << n << " satisfied " << satisfied);
            const size_t m = n > 4 ? n - 3 : n;  // padded
            const std::vector<fr> a = random_vector(m, 2 * n), b = random_vector(m, 2 * n + 1);
            std::vector<fr> c = random_vector(m, 2 * n + 2);
            if (satisfied)
                for (size_t i = 0; i < m; ++i) c[i] = a[i] * b[i];
            const std::vector<fr> want = poly::compute_h(a, b, c);
            gpu_timing t;
            ASSERT_EQ(compute_h(a, b, c, &t), want);
            EXPECT_GE(t.kernel_ms, 0.0);
            if (n >= 1024) {
                EXPECT_GT(t.kernel_ms, 0.0);
            }
            ntt_gpu g(n);
            ASSERT_EQ(g.compute_h(a, b, c), want);
        }
}

TEST(ntt_gpu, reused) {
    C2_REQUIRE_GPU();
    const size_t n = size_t{1} << 16;
    const poly::evaluation_domain d = poly::evaluation_domain::for_size(n);
    ntt_gpu g(n);
    for (uint64_t round = 0; round < 3; ++round) {
        std::vector<fr> want = random_vector(n, 300 + round), got = want;
        gpu_timing t;
        poly::coset_forward_ntt(d, want);
        g.coset_forward(got, &t);
        ASSERT_EQ(got, want);
        EXPECT_GT(t.h2d_ms, 0.0);
        EXPECT_GT(t.kernel_ms, 0.0);
        EXPECT_GT(t.d2h_ms, 0.0);
        // h on the same object, between transforms, then a transform again
        const size_t m = n - 100 * (round + 1);
        const std::vector<fr> a = random_vector(m, 400 + round), b = random_vector(m, 500 + round);
        std::vector<fr> c(m);
        for (size_t i = 0; i < m; ++i) c[i] = a[i] * b[i];
        ASSERT_EQ(g.compute_h(a, b, c, &t), poly::compute_h(a, b, c));
        want = random_vector(n, 600 + round);
        got = want;
        poly::inverse_ntt(d, want);
        g.inverse(got);
        ASSERT_EQ(got, want);
    }
}

TEST(ntt_gpu, wrong_lengths) {
    C2_REQUIRE_GPU();
    ntt_gpu g(16);
    std::vector<fr> v(8), w(16), big(17);
    EXPECT_EQ(error_kind([&] { g.forward(v); }), errc::bad_input);
    EXPECT_EQ(error_kind([&] { g.coset_inverse(big); }), errc::bad_input);
    EXPECT_EQ(error_kind([&] { g.compute_h(w, w, v); }), errc::bad_input);
    EXPECT_EQ(error_kind([&] { g.compute_h(big, big, big); }), errc::bad_input);
    // the object stays usable
    std::vector<fr> x = random_vector(16, 1), y = x;
    poly::forward_ntt(poly::evaluation_domain::for_size(16), y);
    g.forward(x);
    EXPECT_EQ(x, y);
}

}  // namespace
}  // namespace c2lab::gpu

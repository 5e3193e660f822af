// The AVX2 radix-2^29 product against fp's operator* (the scalar path), bit for bit.
#include "ff/avx2_mont.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/rng.hpp"

namespace c2lab::ff {
namespace {

TEST(avx2_mont, equals_the_scalar_product_on_random_and_edge_values) {
    if (!avx2_available()) GTEST_SKIP() << "this CPU has no AVX2";
    rng g(29);
    std::vector<fp> a, b;
    const fp edges[] = {fp::zero(), fp::one(), -fp::one(), fp::from_u64(2), -fp::from_u64(2)};
    for (const fp& x : edges)
        for (const fp& y : edges) a.push_back(x), b.push_back(y);
    for (int i = 0; i < 4000; ++i) a.push_back(fp::random(g)), b.push_back(fp::random(g));
    a.push_back(fp::random(g)), b.push_back(fp::random(g));  // a tail of fewer than 4
    std::vector<fp> out(a.size());
    mul_batch_avx2(out, a, b);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(out[i], a[i] * b[i]) << "element " << i;
    std::vector<fp> shorter(3);
    EXPECT_THROW(mul_batch_avx2(shorter, a, b), error);
}

}  // namespace
}  // namespace c2lab::ff

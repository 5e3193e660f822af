// The device NTT's code on the host (ntt_emulate.hpp) against lib/poly: the domain constants
// and tables, the launch plan's index arithmetic (every element in exactly one tile, every
// stage's butterflies a partition of the tile with the right twiddles: no two threads of a
// pass touch one element), the four transforms and the h step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "gpu/ntt/ntt_emulate.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"
#include "poly/ntt.hpp"

namespace c2lab::gpu::ntt {
namespace {

using ff::fr;

std::vector<fr> random_vector(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<fr> v(n);
    for (auto& x : v) x = fr::random(g);
    return v;
}

// ---- constants and tables ---------------------------------------------------------------------

TEST(ntt_tables, domain_constants_equal_lib_poly) {
    for (uint32_t log_n : {0u, 1u, 2u, 3u, 7u, 10u, 14u}) {
        SCOPED_TRACE(log_n);
        const poly::evaluation_domain d(log_n);
        const domain_consts c = make_domain_consts(log_n);
        EXPECT_EQ(c.n, d.size());
        EXPECT_EQ(to_host(c.omega), d.omega());
        EXPECT_EQ(to_host(c.size_inv), d.size_inv());
        EXPECT_EQ(to_host(c.g), d.coset_generator());
        EXPECT_EQ(to_host(c.g_inv), d.coset_generator_inv());
        EXPECT_EQ(to_host(c.z_coset_inv), d.z_on_coset_inverse());
    }
    // log_n = 32 without building the 2^31-entry twiddle table.
    const domain_consts c = make_domain_consts(32);
    EXPECT_EQ(to_host(fr_from_limbs(fr_root_of_unity_2_32())), fr::root_of_unity(32));
    EXPECT_EQ(to_host(c.omega), fr::root_of_unity(32));
    EXPECT_EQ(to_host(c.size_inv), fr::from_u64(uint64_t{1} << 32).inverse());
    EXPECT_EQ(to_host(c.z_coset_inv), (fr::from_u64(7).pow(uint64_t{1} << 32) - fr::one()).inverse());
}

TEST(ntt_tables, inverse_and_from_u64) {
    for (const fr& x : random_vector(8, 5)) EXPECT_EQ(to_host(fr_inverse(to_dev(x))), x.inverse());
    EXPECT_EQ(to_host(fr_from_u64(0xfedcba9876543210ULL)), fr::from_u64(0xfedcba9876543210ULL));
}

TEST(ntt_tables, fr_spans_are_fr_dev_bits) {
    // ntt_gpu copies std::span<ff::fr> to the device as fr_dev without conversion.
    static_assert(sizeof(fr) == sizeof(fr_dev));
    for (const fr& x : random_vector(16, 6)) {
        fr_dev d;
        std::memcpy(&d, &x, sizeof d);
        EXPECT_EQ(d, to_dev(x));
    }
}

TEST(ntt_tables, bit_reverse) {
    for (uint32_t log_n : {0u, 1u, 5u, 17u, 32u})
        for (uint64_t i : {uint64_t{0}, uint64_t{1}, uint64_t{6}, uint64_t{12345}, uint64_t{0xdeadbeef}}) {
            const uint64_t x = log_n == 0 ? 0 : i & ((uint64_t{1} << log_n) - 1);
            uint64_t want = 0;
            for (uint32_t b = 0; b < log_n; ++b)
                if ((x >> b) & 1) want |= uint64_t{1} << (log_n - 1 - b);
            EXPECT_EQ(bit_reverse(x, log_n), want) << log_n << " " << x;
        }
}

TEST(ntt_tables, twiddles_equal_lib_poly) {
    for (size_t n : {size_t{1}, size_t{2}, size_t{4}, size_t{1} << 10, size_t{1} << 14}) {
        SCOPED_TRACE(n);
        const poly::evaluation_domain d = poly::evaluation_domain::for_size(n);
        const ntt_emulator e(n);
        ASSERT_EQ(e.twiddles().size(), d.twiddles().size());
        for (size_t j = 0; j < n / 2; ++j) ASSERT_EQ(to_host(e.twiddles()[j]), d.twiddles()[j]) << j;
    }
}

TEST(ntt_tables, powers_tables) {
    const uint32_t log_n = 9;
    const host_tables t = make_host_tables(log_n);
    const fr g = fr::from_u64(7), n_inv = fr::from_u64(512).inverse();
    for (uint64_t k : {0u, 1u, 31u, 32u, 33u, 255u, 511u}) {
        EXPECT_EQ(to_host(t.set(ps_twiddle, t.data.data()).at(k)), fr::root_of_unity(log_n).pow(k));
        EXPECT_EQ(to_host(t.set(ps_coset, t.data.data()).at(k)), g.pow(k));
        EXPECT_EQ(to_host(t.set(ps_inv_coset, t.data.data()).at(k)), n_inv * g.pow(k));
        EXPECT_EQ(to_host(t.set(ps_coset_inv, t.data.data()).at(k)), n_inv * g.inverse().pow(k));
    }
}

// ---- the plan ---------------------------------------------------------------------------------

const plan_config configs[] = {{}, {1, 2, 0}, {2, 3, 1}, {3, 4, 2}, {4, 6, 3}, {10, 5, 2}};

TEST(ntt_plan, every_stage_once_and_tiles_fit) {
    for (const plan_config& cfg : configs)
        for (uint32_t log_n = 0; log_n <= 32; ++log_n) {
            const ntt_plan p = make_plan(log_n, cfg);
            uint32_t next = 0;
            for (uint32_t i = 0; i < p.count; ++i) {
                const group_geom& g = p.g[i];
                EXPECT_EQ(g.log_n, log_n);
                EXPECT_EQ(g.s0, next);
                EXPECT_GE(g.k, 1u);
                EXPECT_LE(g.c, g.s0);
                EXPECT_LE(g.k + g.c, max_tile_log);
                EXPECT_LE(g.k + g.c, log_n);
                if (&cfg == &configs[0]) {
                    EXPECT_LT(g.tiles(), uint64_t{1} << 31);  // the device's grid
                }
                next += g.k;
            }
            EXPECT_EQ(next, log_n);
        }
    // The device's default: 2^20 in 3 passes, 2^27 in 4.
    EXPECT_EQ(make_plan(20).count, 3u);
    EXPECT_EQ(make_plan(27).count, 4u);
}

// Every element in exactly one tile slot; every stage's butterflies partition the tile and pair
// indices i, i + 2^s with bit s of i clear, with twiddle omega^((i mod 2^s) n / 2^(s+1)).
TEST(ntt_plan, tile_indices_and_butterflies) {
    for (const plan_config& cfg : configs)
        for (uint32_t log_n = 1; log_n <= 12; ++log_n) {
            const ntt_plan p = make_plan(log_n, cfg);
            const uint64_t n = uint64_t{1} << log_n;
            for (uint32_t gi = 0; gi < p.count; ++gi) {
                const group_geom& g = p.g[gi];
                const uint32_t tile_size = 1u << (g.k + g.c);
                std::vector<int> seen(n, 0);
                for (uint64_t tile = 0; tile < g.tiles(); ++tile) {
                    std::vector<uint64_t> idx(tile_size);
                    for (uint32_t e = 0; e < tile_size; ++e) {
                        idx[e] = tile_element_index(g, tile, e);
                        ASSERT_LT(idx[e], n);
                        ++seen[idx[e]];
                    }
                    for (uint32_t r = 0; r < g.k; ++r) {
                        const uint32_t s = g.s0 + r;
                        std::vector<int> used(tile_size, 0);
                        for (uint32_t tid = 0; tid < g.threads(); ++tid) {
                            const butterfly bf = stage_butterfly(g, tile, tid, r);
                            ASSERT_LT(bf.e2, tile_size);
                            ++used[bf.e1];
                            ++used[bf.e2];
                            const uint64_t i = idx[bf.e1];
                            ASSERT_EQ(idx[bf.e2], i + (uint64_t{1} << s));
                            ASSERT_EQ((i >> s) & 1, 0u);
                            ASSERT_EQ(bf.tw_index, (i & ((uint64_t{1} << s) - 1)) << (log_n - 1 - s));
                        }
                        for (uint32_t e = 0; e < tile_size; ++e) ASSERT_EQ(used[e], 1) << "stage " << s;
                    }
                }
                for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "log_n " << log_n << " group " << gi;
            }
        }
}

// ---- transforms -------------------------------------------------------------------------------

using poly_fn = void (*)(const poly::evaluation_domain&, std::span<fr>, const poly::ntt_config&);
using emu_fn = void (ntt_emulator::*)(std::span<fr>);

struct transform_case {
    const char* name;
    poly_fn poly;
    emu_fn emu;
};
const transform_case transforms[] = {
    {"forward", poly::forward_ntt, &ntt_emulator::forward},
    {"inverse", poly::inverse_ntt, &ntt_emulator::inverse},
    {"coset_forward", poly::coset_forward_ntt, &ntt_emulator::coset_forward},
    {"coset_inverse", poly::coset_inverse_ntt, &ntt_emulator::coset_inverse},
};

void expect_transforms_equal(size_t n, const plan_config& cfg, uint64_t seed) {
    const poly::evaluation_domain d = poly::evaluation_domain::for_size(n);
    ntt_emulator e(n, cfg);
    for (const transform_case& tc : transforms) {
        SCOPED_TRACE(tc.name);
        const std::vector<fr> x = random_vector(n, seed++);
        std::vector<fr> want = x, got = x;
        tc.poly(d, want, {});
        (e.*tc.emu)(got);
        ASSERT_EQ(got, want) << "n = " << n;
    }
}

TEST(ntt_emulated, transforms_equal_lib_poly) {
    for (size_t n : {size_t{1}, size_t{2}, size_t{4}, size_t{8}, size_t{1} << 10, size_t{1} << 11, size_t{1} << 14})
        expect_transforms_equal(n, {}, 100 + n);
}

TEST(ntt_emulated, transforms_with_small_tiles) {
    // Several strided groups at small n: the index arithmetic of 2^20..2^27 on the device.
    for (const plan_config& cfg : configs)
        for (size_t n : {size_t{2}, size_t{16}, size_t{1} << 7, size_t{1} << 10}) expect_transforms_equal(n, cfg, 7 * n);
}

TEST(ntt_emulated, forward_in_three_passes) {
    const size_t n = size_t{1} << 18;  // 10 + 4 + 4 stages: the default plan's strided groups
    ASSERT_EQ(make_plan(18).count, 3u);
    const poly::evaluation_domain d(18);
    std::vector<fr> want = random_vector(n, 18), got = want;
    poly::forward_ntt(d, want);
    ntt_emulator(n).forward(got);
    EXPECT_EQ(got, want);
}

TEST(ntt_emulated, inverse_of_forward_is_identity) {
    for (size_t n : {size_t{1}, size_t{2}, size_t{1} << 10, size_t{1} << 14}) {
        ntt_emulator e(n);
        const std::vector<fr> x = random_vector(n, 9);
        std::vector<fr> y = x;
        e.forward(y);
        e.inverse(y);
        EXPECT_EQ(y, x);
        e.coset_forward(y);
        e.coset_inverse(y);
        EXPECT_EQ(y, x);
    }
}

// ---- the h step -------------------------------------------------------------------------------

struct system3 {
    std::vector<fr> a, b, c;
};

system3 random_system(size_t m, bool satisfied, uint64_t seed) {
    system3 s{random_vector(m, seed), random_vector(m, seed + 1), {}};
    if (satisfied) {
        s.c.resize(m);
        for (size_t i = 0; i < m; ++i) s.c[i] = s.a[i] * s.b[i];
    } else {
        s.c = random_vector(m, seed + 2);
    }
    return s;
}

TEST(ntt_emulated, compute_h_satisfied) {
    for (size_t m : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{1000}, size_t{3000}}) {
        SCOPED_TRACE(m);
        const system3 s = random_system(m, true, 40 + m);
        const std::vector<fr> want = poly::compute_h(s.a, s.b, s.c);
        EXPECT_EQ(emulate_compute_h(s.a, s.b, s.c), want);
        EXPECT_EQ(emulate_compute_h(s.a, s.b, s.c, {3, 4, 2}), want);
        if (m > 2) {
            // the remainder is zero: h's degree is at most n - 2, and h(X) Z(X) = A B - C
            EXPECT_EQ(want.size(), std::bit_ceil(m) - 1);
        }
    }
}

TEST(ntt_emulated, compute_h_unsatisfied) {
    for (size_t m : {size_t{1}, size_t{7}, size_t{1000}}) {
        SCOPED_TRACE(m);
        const system3 s = random_system(m, false, 60 + m);
        EXPECT_EQ(emulate_compute_h(s.a, s.b, s.c), poly::compute_h(s.a, s.b, s.c));
    }
}

TEST(ntt_emulated, compute_h_on_a_larger_domain) {
    // m = 1000 on n = 2048: compute_h_in_place on the padded vectors, last coefficient dropped.
    const system3 s = random_system(1000, true, 80);
    const size_t n = 2048;
    std::vector<fr> a = s.a, b = s.b, c = s.c;
    a.resize(n);
    b.resize(n);
    c.resize(n);
    poly::compute_h_in_place(poly::evaluation_domain::for_size(n), a, b, c);
    a.resize(n - 1);
    EXPECT_EQ(ntt_emulator(n).compute_h(s.a, s.b, s.c), a);
}

TEST(ntt_emulated, bad_input) {
    auto kind = [](auto&& f) {
        try {
            f();
        } catch (const error& e) {
            return e.kind();
        }
        return errc::internal;
    };
    EXPECT_EQ(kind([] { ntt_emulator e(0); }), errc::bad_input);
    EXPECT_EQ(kind([] { ntt_emulator e(3); }), errc::bad_input);
    EXPECT_EQ(kind([] { ntt_emulator e(size_t{1} << 33); }), errc::bad_input);
    ntt_emulator e(8);
    std::vector<fr> v(4), w(8);
    EXPECT_EQ(kind([&] { e.forward(v); }), errc::bad_input);
    EXPECT_EQ(kind([&] { e.coset_inverse(v); }), errc::bad_input);
    EXPECT_EQ(kind([&] { e.compute_h(w, w, v); }), errc::bad_input);
    std::vector<fr> big(9);
    EXPECT_EQ(kind([&] { e.compute_h(big, big, big); }), errc::bad_input);
    EXPECT_EQ(kind([&] { emulate_compute_h(w, v, w); }), errc::bad_input);
}

}  // namespace
}  // namespace c2lab::gpu::ntt

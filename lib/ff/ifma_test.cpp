// mul_batch / square_batch on both paths (scalar, AVX-512 IFMA) against an independent
// reference: the portable CIOS multiplication of limbs.hpp (mont_mul_portable), element by
// element. The IFMA path runs wherever the CPU has it; the scalar path always.
// affine_add_batch: the scalar path against the textbook formula (one inversion per
// element), and on real G1 points against Jacobian addition; the IFMA path bit for bit
// against the scalar path.
#include "ff/ifma.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/cpu.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "ec/g1.hpp"
#include "ec/g2.hpp"
#include "ff/edge_values_test.hpp"
#include "ff/in_place.hpp"

namespace c2lab::ff {
namespace {

template <class F>
F reference_mul(const F& a, const F& b) {
    return F::from_mont(mont_mul_portable(a.mont, b.mont, F::modulus, F::n0));
}

bool env_set(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' && std::string(v) != "0";
}

TEST(ifma_dispatch, uses_ifma_exactly_when_the_cpu_has_it_and_no_switch_is_off) {
    const auto& f = cpu::detected();
    const bool cpu_has = f.avx512f && f.avx512ifma && f.avx512vl && f.avx512bw && f.os_saves_zmm;
    const bool switched_off = env_set("C2LAB_PORTABLE") || env_set("C2LAB_NO_AVX512");
    EXPECT_EQ(cpu::use_ifma, cpu_has && !switched_off);
    EXPECT_EQ(ifma_available(), cpu::use_ifma);
    EXPECT_EQ(default_batch_path(), cpu::use_ifma ? batch_path::ifma : batch_path::scalar);
    std::cout << "[ mul_batch ] AVX-512 IFMA: cpu " << (cpu_has ? "has it" : "lacks it") << ", path in use: "
              << to_string(default_batch_path()) << "\n";
}

TEST(avx2_dispatch, available_in_every_x86_64_build_unless_portable_is_forced) {
#if defined(C2LAB_HAVE_X86_ASM)
    EXPECT_EQ(avx2_available(), !env_set("C2LAB_PORTABLE"));
#else
    EXPECT_FALSE(avx2_available());
#endif
    EXPECT_EQ(avx2_available(), cpu::use_avx2_asm);
    EXPECT_STREQ(to_string(batch_path::avx2), "avx2");
}

// The AVX2 path has products, batched additions and the natural-input stages only: the other
// butterflies refuse it by name rather than run another path, and write nothing.
TEST(avx2_dispatch, functions_without_an_avx2_path_refuse_it) {
    std::vector<fr> p(16, fr::one()), q(16, fr::one()), w(16, fr::one());
    for (const auto& run : std::vector<std::function<void()>>{
             [&] { butterfly_batch(batch_path::avx2, std::span<fr>(p), std::span<fr>(q), std::span<const fr>(w)); },
             [&] { butterfly_stages_nr(batch_path::avx2, std::span<fr>(p), std::span<const fr>(w), 0); }}) {
        try {
            run();
            ADD_FAILURE() << "a butterfly function ran on batch_path::avx2";
        } catch (const error& e) {
            EXPECT_NE(std::string(e.what()).find("AVX2"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(p[0], fr::one()) << "nothing written";
}

using test_values::edge_values;

template <class F>
std::vector<F> random_vector(size_t n, rng& g) {
    std::vector<F> v(n);
    for (auto& x : v) x = F::random(g);
    return v;
}

// n of the edge values, element i the edge (i a + i / b) mod their count: every pair of edges
// meets somewhere in a butterfly of the stages.
template <class F>
std::vector<F> edge_vector(size_t n, size_t a, size_t b) {
    const auto e = edge_values<F>();
    std::vector<F> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = e[(i * a + i / b) % e.size()];
    return v;
}

template <class F>
class batch_mul : public ::testing::Test {
protected:
    // Both paths where available; the IFMA path is skipped (with a message) only where the
    // CPU lacks it or an environment switch turned it off.
    static std::vector<batch_path> paths() {
        std::vector<batch_path> p = {batch_path::scalar};
        if (ifma_available()) p.push_back(batch_path::ifma);
        else std::cout << "[ mul_batch ] AVX-512 IFMA not available here: no ifma path\n";
        if (avx2_available()) p.push_back(batch_path::avx2);
        else std::cout << "[ mul_batch ] AVX2 kernels off here (C2LAB_PORTABLE, or not an x86-64 build): no avx2 path\n";
        return p;
    }

    static void expect_matches(batch_path path, const std::vector<F>& a, const std::vector<F>& b) {
        std::vector<F> out(a.size());
        mul_batch(path, std::span<F>(out), std::span<const F>(a), std::span<const F>(b));
        for (size_t i = 0; i < a.size(); ++i)
            ASSERT_EQ(out[i].mont, reference_mul(a[i], b[i]).mont) << to_string(path) << " element " << i << " of " << a.size();
        std::vector<F> sq(a.size());
        square_batch(path, std::span<F>(sq), std::span<const F>(a));
        for (size_t i = 0; i < a.size(); ++i)
            ASSERT_EQ(sq[i].mont, reference_mul(a[i], a[i]).mont) << to_string(path) << " square " << i << " of " << a.size();
    }
};
using field_types = ::testing::Types<fp, fr>;
TYPED_TEST_SUITE(batch_mul, field_types);

TYPED_TEST(batch_mul, random_batches_of_many_sizes) {
    using F = TypeParam;
    rng g(101);
    for (batch_path path : this->paths())
        for (size_t n : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 1000u, 8192u}) {
            auto a = random_vector<F>(n, g), b = random_vector<F>(n, g);
            this->expect_matches(path, a, b);
        }
}

TYPED_TEST(batch_mul, every_pair_of_edge_values) {
    using F = TypeParam;
    const auto e = edge_values<F>();
    std::vector<F> a, b;
    for (const F& x : e)
        for (const F& y : e) {
            a.push_back(x);
            b.push_back(y);
        }
    for (batch_path path : this->paths()) this->expect_matches(path, a, b);
}

// Products whose result is p - 1, 0 or 1 exactly (b = target / a), and products of the
// largest Montgomery forms: the final conditional subtraction decides these.
TYPED_TEST(batch_mul, results_at_the_edges_of_the_final_subtraction) {
    using F = TypeParam;
    rng g(102);
    std::vector<F> a, b;
    const F targets[] = {F::from_mont(F::p_minus_1), -F::one(), F::one(), F::from_mont(typename F::repr{1})};
    for (const F& target : targets)
        for (int i = 0; i < 64; ++i) {
            F x = F::random(g);
            a.push_back(x);
            b.push_back(target * x.inverse());
        }
    for (int i = 0; i < 64; ++i) {  // a, b in [p - 2^20, p)
        typename F::repr x = F::p_minus_1, y = F::p_minus_1;
        x[0] -= g() & 0xfffff;
        y[0] -= g() & 0xfffff;
        a.push_back(F::from_mont(x));
        b.push_back(F::from_mont(y));
    }
    for (batch_path path : this->paths()) this->expect_matches(path, a, b);
}

TYPED_TEST(batch_mul, out_may_alias_either_input) {
    using F = TypeParam;
    rng g(103);
    for (batch_path path : this->paths())
        for (size_t n : {5u, 8u, 21u, 64u}) {
            const auto a0 = random_vector<F>(n, g), b0 = random_vector<F>(n, g);
            std::vector<F> expect(n), expect_sq(n);
            for (size_t i = 0; i < n; ++i) {
                expect[i] = reference_mul(a0[i], b0[i]);
                expect_sq[i] = reference_mul(a0[i], a0[i]);
            }
            auto a = a0, b = b0;
            mul_batch(path, std::span<F>(a), std::span<const F>(a), std::span<const F>(b));  // out == a
            EXPECT_EQ(a, expect) << to_string(path) << " out == a, n " << n;
            a = a0;
            mul_batch(path, std::span<F>(b), std::span<const F>(a), std::span<const F>(b));  // out == b
            EXPECT_EQ(b, expect) << to_string(path) << " out == b, n " << n;
            a = a0;
            mul_batch(path, std::span<F>(a), std::span<const F>(a), std::span<const F>(a));  // out == a == b
            EXPECT_EQ(a, expect_sq) << to_string(path) << " out == a == b, n " << n;
            a = a0;
            square_batch(path, std::span<F>(a), std::span<const F>(a));
            EXPECT_EQ(a, expect_sq) << to_string(path) << " square in place, n " << n;
        }
}

TYPED_TEST(batch_mul, default_path_matches_reference) {
    using F = TypeParam;
    rng g(104);
    auto a = random_vector<F>(333, g), b = random_vector<F>(333, g);
    std::vector<F> out(333);
    mul_batch(std::span<F>(out), std::span<const F>(a), std::span<const F>(b));
    for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], a[i] * b[i]) << "element " << i;
    square_batch(std::span<F>(out), std::span<const F>(a));
    for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], a[i].square()) << "element " << i;
}

TYPED_TEST(batch_mul, refuses_mismatched_lengths_and_shifted_overlap) {
    using F = TypeParam;
    rng g(105);
    auto a = random_vector<F>(16, g), b = random_vector<F>(16, g);
    std::vector<F> out(15);
    for (batch_path path : this->paths()) {
        EXPECT_THROW(mul_batch(path, std::span<F>(out), std::span<const F>(a), std::span<const F>(b)), error);
        EXPECT_THROW(square_batch(path, std::span<F>(out), std::span<const F>(a)), error);
        // out = a[1..16) overlapping a[0..15)
        EXPECT_THROW(mul_batch(path, std::span<F>(a).subspan(1), std::span<const F>(a).first(15),
                               std::span<const F>(b).first(15)),
                     error);
    }
}

// (p, q) <- (p + w q, p - w q) against the portable limb arithmetic of limbs.hpp.
void expect_butterflies_match(batch_path path, const std::vector<fr>& p0, const std::vector<fr>& q0,
                              const std::vector<fr>& w) {
    auto p = p0, q = q0;
    butterfly_batch(path, std::span<fr>(p), std::span<fr>(q), std::span<const fr>(w));
    for (size_t i = 0; i < p.size(); ++i) {
        const auto v = reference_mul(q0[i], w[i]).mont;
        ASSERT_EQ(p[i].mont, add_mod_portable(p0[i].mont, v, fr::modulus)) << to_string(path) << " p " << i;
        ASSERT_EQ(q[i].mont, sub_mod_portable(p0[i].mont, v, fr::modulus)) << to_string(path) << " q " << i;
    }
}

std::vector<batch_path> available_paths() {
    std::vector<batch_path> p = {batch_path::scalar};
    if (ifma_available()) p.push_back(batch_path::ifma);
    return p;
}
// The paths of butterfly_stages and butterfly_row_stages: those above and the AVX2 one.
std::vector<batch_path> stage_paths() {
    std::vector<batch_path> p = available_paths();
    if (avx2_available()) p.push_back(batch_path::avx2);
    else std::cout << "[ butterfly_stages ] AVX2 kernels off here (C2LAB_PORTABLE, or not an x86-64 build): no avx2 path\n";
    return p;
}

TEST(butterfly_batch, random_batches_of_many_sizes) {
    rng g(201);
    for (batch_path path : available_paths())
        for (size_t n : {0u, 1u, 7u, 8u, 9u, 16u, 17u, 24u, 1000u}) {
            auto p = random_vector<fr>(n, g), q = random_vector<fr>(n, g), w = random_vector<fr>(n, g);
            expect_butterflies_match(path, p, q, w);
        }
}

// scale_batch on both paths against the product by the one factor: lengths around the 512-copy
// buffer, in place, and a new factor on the same thread after an old one (the buffer refilled);
// mismatched lengths refused.
TEST(scale_batch, matches_the_products_by_one_factor) {
    rng g(209);
    const auto edges = edge_values<fr>();
    for (batch_path path : available_paths())
        for (size_t n : {0u, 1u, 7u, 511u, 512u, 513u, 1500u}) {
            const auto a = random_vector<fr>(n, g);
            for (const fr& c : {fr::random(g), fr::random(g), edges.back(), fr::one()}) {
                std::vector<fr> out(n), in_place = a;
                scale_batch(path, out, a, c);
                scale_batch(path, in_place, in_place, c);
                for (size_t i = 0; i < n; ++i) {
                    ASSERT_EQ(out[i], a[i] * c) << "n " << n << ", i " << i << ", path " << to_string(path);
                    ASSERT_EQ(in_place[i], out[i]) << "in place, n " << n << ", i " << i;
                }
            }
        }
    std::vector<fr> x(4), y(5);
    EXPECT_THROW(scale_batch(batch_path::scalar, x, y, fr::one()), error);
}

TEST(butterfly_batch, edge_values) {
    const auto e = edge_values<fr>();
    std::vector<fr> p, q, w;
    for (const fr& x : e)
        for (const fr& y : e) {
            p.push_back(x);
            q.push_back(y);
            w.push_back(fr::one());  // v = q: p + q and p - q at the edges
            p.push_back(x);
            q.push_back(y);
            w.push_back(y);  // v = q^2
        }
    for (batch_path path : available_paths()) expect_butterflies_match(path, p, q, w);
}

TEST(butterfly_batch, refuses_overlap_and_mismatched_lengths) {
    rng g(202);
    auto x = random_vector<fr>(32, g), w = random_vector<fr>(16, g);
    for (batch_path path : available_paths()) {
        std::span<fr> s(x);
        EXPECT_THROW(butterfly_batch(path, s.first(16), s.subspan(8, 16), std::span<const fr>(w)), error);
        EXPECT_THROW(butterfly_batch(path, s.first(16), s.subspan(16, 15), std::span<const fr>(w).first(15)), error);
        EXPECT_THROW(butterfly_batch(path, s.first(16), s.subspan(16), std::span<const fr>(x).subspan(8, 16)), error);
        EXPECT_NO_THROW(butterfly_batch(path, s.first(16), s.subspan(16), std::span<const fr>(w)));
    }
}


// butterfly_stages on both paths against the stages written out with the field operators: every
// chunk size from 16 (one group of two vectors) to 4096, every first stage (1, 2 and 4 permute
// within a vector, 8 and up pair whole vectors), random values and twiddles, and the edges. 2^16
// and 2^17 elements run 16 and 17 stages: the IFMA path's lazy values are settled after 15, the
// AVX2 path's grow to 35 p (the lanes of its first stages are a quarter of the chunk apart, its
// last two stages run transposed: every first stage meets both).
TEST(butterfly_stages, every_path_matches_the_stages_written_out) {
    rng g(203);
    for (size_t len : {16u, 32u, 64u, 128u, 4096u, 65536u, 131072u})
        for (size_t h_first : {1u, 2u, 4u, 8u, 16u}) {
            if (2 * h_first > len || (len > 4096 && h_first > 2)) continue;
            std::vector<std::vector<fr>> inputs = {random_vector<fr>(len, g)};
            const std::vector<fr> edges = edge_vector<fr>(len, 5, 7);
            inputs.push_back(edges);
            for (const auto& x0 : inputs) {
                const auto tw = random_vector<fr>(len, g);
                std::vector<fr> want = x0;
                for (size_t h = h_first; h < len; h <<= 1)
                    for (size_t blk = 0; blk < len; blk += 2 * h)
                        for (size_t j = 0; j < h; ++j) {
                            const fr u = want[blk + j], v = want[blk + h + j] * (h == 1 ? fr::one() : tw[h + j]);
                            want[blk + j] = u + v;
                            want[blk + h + j] = u - v;
                        }
                for (batch_path path : stage_paths()) {
                    std::vector<fr> got = x0, tw_path = tw;
                    twiddle_form(path, tw_path);
                    butterfly_stages(path, got, tw_path, h_first);
                    ASSERT_EQ(got, want) << "len " << len << ", first stage " << h_first << ", path "
                                         << to_string(path);
                }
            }
        }
}

// butterfly_row_stages on both paths against the row stages written out: 2 to 2^16 rows of 16 (16
// stages: the IFMA path's lazy values are settled after 15), twiddles that differ per stage, row
// and column, random values and the edges.
TEST(butterfly_row_stages, every_path_matches_the_stages_written_out) {
    rng g(205);
    const auto table = random_vector<fr>(4096, g);
    auto twiddles = [&](size_t hr, size_t rr, fr* w) {
        for (size_t t = 0; t < 16; ++t) w[t] = table[(hr * 31 + rr * 17 + t * 5) % table.size()];
    };
    for (size_t rows : {2u, 4u, 8u, 64u, 1024u, 65536u}) {
        const std::vector<fr> edges = edge_vector<fr>(16 * rows, 3, 11);
        for (const auto& x0 : {random_vector<fr>(16 * rows, g), edges}) {
            std::vector<fr> want = x0;
            fr w[16];
            for (size_t hr = 1; hr < rows; hr <<= 1)
                for (size_t rr = 0; rr < hr; ++rr) {
                    twiddles(hr, rr, w);
                    for (size_t br = 0; br < rows; br += 2 * hr)
                        for (size_t t = 0; t < 16; ++t) {
                            fr& a = want[16 * (br + rr) + t];
                            fr& b = want[16 * (br + rr + hr) + t];
                            const fr u = a, v = b * w[t];
                            a = u + v;
                            b = u - v;
                        }
                }
            for (batch_path path : stage_paths()) {
                auto tw = [&](size_t hr, size_t rr, fr* w) {
                    twiddles(hr, rr, w);
                    twiddle_form(path, std::span<fr>(w, 16));
                };
                std::vector<fr> got = x0;
                butterfly_row_stages(path, got, rows, 16, tw);
                ASSERT_EQ(got, want) << rows << " rows, path " << to_string(path);
                if (rows > 1024) continue;
                // The same rows 40 elements apart (as the NTT's tiles lie in memory): the same
                // results, and the elements between the rows untouched.
                constexpr size_t stride = 40;
                std::vector<fr> spread = random_vector<fr>(stride * (rows - 1) + 16, g);
                const std::vector<fr> around = spread;
                for (size_t r = 0; r < rows; ++r) std::copy_n(x0.begin() + 16 * r, 16, spread.begin() + stride * r);
                butterfly_row_stages(path, spread, rows, stride, tw);
                for (size_t i = 0; i < spread.size(); ++i) {
                    const size_t r = i / stride, t = i % stride;
                    ASSERT_EQ(spread[i], t < 16 ? want[16 * r + t] : around[i])
                        << rows << " rows, element " << i << ", path " << to_string(path);
                }
            }
        }
    }
    std::vector<fr> x(48);
    for (batch_path path : stage_paths()) {
        EXPECT_THROW(butterfly_row_stages(path, x, 3, 16, twiddles), error);                          // 3 rows
        EXPECT_THROW(butterfly_row_stages(path, std::span<fr>(x).first(32), 4, 16, twiddles), error);  // 2 rows given
        EXPECT_THROW(butterfly_row_stages(path, std::span<fr>(x).first(16), 1, 16, twiddles), error);  // one row
        EXPECT_THROW(butterfly_row_stages(path, x, 2, 8, twiddles), error);                          // rows overlap
        EXPECT_THROW(butterfly_row_stages(path, std::span<fr>(x).first(40), 2, 32, twiddles), error);  // short
    }
}

// butterfly_stages_nr on both paths against the natural-order stages written out: every stage
// from len / 2 down to 1 with one twiddle per block, taken at chunk_index (len / 2h) + b of the
// table (chunks 0 and 3 of a table of random twiddles: a wrong block or stage offset shows),
// random values and the edges; 2^16 and 2^17 elements run 16 and 17 stages (settled after 15).
TEST(butterfly_stages_nr, both_paths_match_the_stages_written_out) {
    rng g(207);
    for (size_t len : {16u, 32u, 64u, 4096u, 65536u, 131072u})
        for (size_t chunk_index : {0u, 3u}) {
            if (len > 4096 && chunk_index > 0) continue;
            const auto tw = random_vector<fr>((chunk_index + 1) * len / 2, g);
            const std::vector<fr> edges = edge_vector<fr>(len, 5, 7);
            for (const auto& x0 : {random_vector<fr>(len, g), edges}) {
                std::vector<fr> want = x0;
                for (size_t h = len / 2; h >= 1; h >>= 1)
                    for (size_t bi = 0; bi < len / (2 * h); ++bi)
                        for (size_t j = 0; j < h; ++j) {
                            fr& a = want[2 * h * bi + j];
                            fr& b = want[2 * h * bi + h + j];
                            const fr u = a, v = b * tw[chunk_index * (len / (2 * h)) + bi];
                            a = u + v;
                            b = u - v;
                        }
                for (batch_path path : available_paths()) {
                    std::vector<fr> got = x0, tw_path = tw;
                    twiddle_form(path, tw_path);
                    butterfly_stages_nr(path, got, tw_path, chunk_index);
                    ASSERT_EQ(got, want) << "len " << len << ", chunk " << chunk_index << ", path " << to_string(path);
                }
            }
        }
    std::vector<fr> x(64), t(64);
    for (batch_path path : available_paths()) {
        std::span<fr> s(x);
        EXPECT_THROW(butterfly_stages_nr(path, s.first(8), t, 0), error);                          // fewer than 16
        EXPECT_THROW(butterfly_stages_nr(path, s.first(48), t, 0), error);                         // not a power of two
        EXPECT_THROW(butterfly_stages_nr(path, s, std::span<const fr>(t).first(31), 0), error);  // too few twiddles
        EXPECT_THROW(butterfly_stages_nr(path, s, t, 2), error);                                  // chunk 2 needs 96
        EXPECT_NO_THROW(butterfly_stages_nr(path, s, t, 1));
    }
}

// butterfly_row_stages_nr on both paths against the natural-order row stages written out: 2 to
// 2^16 rows, tiles 0 and 5, the rows 16 and 40 elements apart (the elements between untouched).
TEST(butterfly_row_stages_nr, both_paths_match_the_stages_written_out) {
    rng g(208);
    for (size_t rows : {2u, 4u, 8u, 64u, 1024u, 65536u})
        for (size_t tile : {0u, 5u}) {
            if (rows > 1024 && tile > 0) continue;
            const auto tw = random_vector<fr>((tile + 1) * rows / 2, g);
            const std::vector<fr> edges = edge_vector<fr>(16 * rows, 3, 11);
            for (const auto& x0 : {random_vector<fr>(16 * rows, g), edges}) {
                std::vector<fr> want = x0;
                for (size_t hr = rows / 2; hr >= 1; hr >>= 1)
                    for (size_t bi = 0; bi < rows / (2 * hr); ++bi)
                        for (size_t rr = 0; rr < hr; ++rr)
                            for (size_t t = 0; t < 16; ++t) {
                                fr& a = want[16 * (2 * hr * bi + rr) + t];
                                fr& b = want[16 * (2 * hr * bi + rr + hr) + t];
                                const fr u = a, v = b * tw[tile * (rows / (2 * hr)) + bi];
                                a = u + v;
                                b = u - v;
                            }
                for (batch_path path : available_paths()) {
                    std::vector<fr> tw_path = tw;
                    twiddle_form(path, tw_path);
                    for (size_t stride : {16u, 40u}) {
                        if (stride != 16 && rows > 1024) continue;
                        std::vector<fr> spread = random_vector<fr>(stride * (rows - 1) + 16, g);
                        const std::vector<fr> around = spread;
                        for (size_t r = 0; r < rows; ++r) std::copy_n(x0.begin() + 16 * r, 16, spread.begin() + stride * r);
                        butterfly_row_stages_nr(path, spread, rows, stride, tw_path, tile);
                        for (size_t i = 0; i < spread.size(); ++i) {
                            const size_t r = i / stride, t = i % stride;
                            ASSERT_EQ(spread[i], t < 16 ? want[16 * r + t] : around[i])
                                << rows << " rows, tile " << tile << ", stride " << stride << ", element " << i
                                << ", path " << to_string(path);
                        }
                    }
                }
            }
        }
    std::vector<fr> x(48), t(4);
    for (batch_path path : available_paths()) {
        EXPECT_THROW(butterfly_row_stages_nr(path, x, 3, 16, t, 0), error);                          // 3 rows
        EXPECT_THROW(butterfly_row_stages_nr(path, std::span<fr>(x).first(16), 1, 16, t, 0), error);  // one row
        EXPECT_THROW(butterfly_row_stages_nr(path, x, 2, 8, t, 0), error);                           // rows overlap
        EXPECT_THROW(butterfly_row_stages_nr(path, x, 2, 16, t, 4), error);                          // tile 4 needs 5
        EXPECT_NO_THROW(butterfly_row_stages_nr(path, x, 2, 16, t, 3));
    }
}

// twiddle_form: w times 2^4 on the IFMA path (the radix-2^52 product's 2^260 over Fr's R = 2^256),
// 2^5 on the AVX2 path (radix 2^29: 2^261), w itself on the scalar path; both forms of the span and of one element agree.
TEST(twiddle_form, is_w_times_16_on_the_ifma_path_32_on_the_avx2_path_and_w_on_the_scalar_path) {
    rng g(206);
    auto w = random_vector<fr>(64, g);
    const auto e = edge_values<fr>();
    w.insert(w.end(), e.begin(), e.end());
    for (batch_path path : {batch_path::scalar, batch_path::ifma, batch_path::avx2}) {
        std::vector<fr> got = w;
        twiddle_form(path, got);
        for (size_t i = 0; i < w.size(); ++i) {
            const fr want = path == batch_path::ifma ? w[i] * fr::from_u64(16)
                            : path == batch_path::avx2 ? w[i] * fr::from_u64(32)
                                                       : w[i];
            ASSERT_EQ(got[i], want) << i;
            ASSERT_EQ(twiddle_form(path, w[i]), want) << i;
        }
    }
}

TEST(butterfly_stages, refuses_bad_sizes) {
    rng g(204);
    auto x = random_vector<fr>(64, g), tw = random_vector<fr>(64, g);
    std::span<fr> s(x);
    std::span<const fr> t(tw);
    for (batch_path path : stage_paths()) {
        EXPECT_THROW(butterfly_stages(path, s.first(8), t, 1), error);        // fewer than 16
        EXPECT_THROW(butterfly_stages(path, s.first(48), t, 1), error);       // not a power of two
        EXPECT_THROW(butterfly_stages(path, s, t, 3), error);                 // first stage not a power of two
        EXPECT_THROW(butterfly_stages(path, s, t, 64), error);                // first stage beyond len / 2
        EXPECT_THROW(butterfly_stages(path, s, t.first(63), 1), error);       // too few twiddles
        EXPECT_NO_THROW(butterfly_stages(path, s, t, 32));
    }
}

// affine_add_batch: the scalar path against the textbook formula with one inversion per
// element and the sign applied to y2 itself (not folded into lambda as both paths do), and
// the IFMA path against the scalar path bit for bit.
template <class F>
struct affine_inputs {
    std::vector<F> x1, y1, x2, y2;
    std::vector<uint8_t> neg;
};

template <class F>
affine_inputs<F> random_affine_inputs(size_t n, rng& g) {
    affine_inputs<F> in;
    in.x1 = random_vector<F>(n, g);
    in.y1 = random_vector<F>(n, g);
    in.x2 = random_vector<F>(n, g);
    in.y2 = random_vector<F>(n, g);
    for (size_t i = 0; i < n; ++i) {
        while (in.x2[i] == in.x1[i]) in.x2[i] = F::random(g);
        in.neg.push_back(static_cast<uint8_t>(g() % 3 == 0 ? 0 : (g() & 1) * (1 + g() % 200)));  // 0 or any non-zero
    }
    return in;
}

// (x3, y3) = (x1, y1) + (x2, +-y2) by lambda = (y2' - y1) / (x2 - x1), one inversion each.
template <class F>
std::pair<std::vector<F>, std::vector<F>> reference_affine_add(const affine_inputs<F>& in) {
    std::vector<F> x3(in.x1.size()), y3(in.x1.size());
    for (size_t i = 0; i < in.x1.size(); ++i) {
        const F y2 = in.neg[i] ? -in.y2[i] : in.y2[i];
        const F lambda = (y2 - in.y1[i]) * (in.x2[i] - in.x1[i]).inverse();
        x3[i] = lambda * lambda - in.x1[i] - in.x2[i];
        y3[i] = lambda * (in.x1[i] - x3[i]) - in.y1[i];
    }
    return {x3, y3};
}

template <class F>
std::pair<std::vector<F>, std::vector<F>> run_affine_add(batch_path path, const affine_inputs<F>& in) {
    auto x = in.x1, y = in.y1;
    affine_add_batch(path, std::span<F>(x), std::span<F>(y), std::span<const F>(in.x2), std::span<const F>(in.y2),
                     std::span<const uint8_t>(in.neg));
    return {x, y};
}

// The paths of affine_add_batch over F that run here: scalar, ifma where available, and avx2
// where its kernels may run (over Fp2 the scalar chain with its inversion in AVX2 batches).
template <class F>
std::vector<batch_path> affine_paths() {
    std::vector<batch_path> p = {batch_path::scalar};
    if (ifma_available()) p.push_back(batch_path::ifma);
    if (avx2_available()) p.push_back(batch_path::avx2);
    return p;
}

template <class F>
void expect_affine_adds_match(const affine_inputs<F>& in, const std::string& what) {
    const auto ref = reference_affine_add(in);
    const auto scalar = run_affine_add(batch_path::scalar, in);
    for (size_t i = 0; i < in.x1.size(); ++i) {
        ASSERT_EQ(scalar.first[i], ref.first[i]) << what << ": scalar x3 " << i << " of " << in.x1.size();
        ASSERT_EQ(scalar.second[i], ref.second[i]) << what << ": scalar y3 " << i << " of " << in.x1.size();
    }
    for (batch_path path : affine_paths<F>()) {
        if (path == batch_path::scalar) continue;
        const auto vec = run_affine_add(path, in);
        for (size_t i = 0; i < in.x1.size(); ++i) {
            ASSERT_EQ(vec.first[i], scalar.first[i]) << what << ": " << to_string(path) << " x3 " << i << " of " << in.x1.size();
            ASSERT_EQ(vec.second[i], scalar.second[i]) << what << ": " << to_string(path) << " y3 " << i << " of " << in.x1.size();
        }
    }
}

// ff::pick, the chains' branch-free select of an operand by the sign: both ways, for a flag read
// from memory as the chains read theirs.
TEST(affine_add_batch, pick_selects_either_operand) {
    const fp a = fp::from_u64(1), b = fp::from_u64(2);
    const std::vector<uint8_t> flags{0, 1, 1, 0};
    for (size_t i = 0; i < flags.size(); ++i) {
        const bool c = flags[i] != 0;
        EXPECT_EQ(pick(c, &a, &b), c ? &a : &b) << i;
        EXPECT_EQ(*pick(c, &b, &a), c ? b : a) << i;
    }
}

TEST(affine_add_batch, random_coordinates_of_many_sizes) {
    rng g(301);
    for (size_t n : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 64u, 65u, 1000u})
        expect_affine_adds_match(random_affine_inputs<fp>(n, g), "random, n " + std::to_string(n));
}

TEST(affine_add_batch, edge_coordinates) {
    // Coordinates at the edges of the field (0, 1, p - 1, limb boundaries) in every role.
    const auto e = edge_values<fp>();
    affine_inputs<fp> in;
    for (size_t i = 0; i < e.size(); ++i)
        for (size_t j = 0; j < e.size(); ++j) {
            if (e[i] == e[j]) continue;
            in.x1.push_back(e[i]);
            in.x2.push_back(e[j]);
            in.y1.push_back(e[j]);
            in.y2.push_back(e[(i + j) % e.size()]);
            in.neg.push_back(static_cast<uint8_t>((i + j) & 1));
        }
    expect_affine_adds_match(in, "edge values");
}

template <class C>
void expect_curve_points_match(uint64_t seed) {
    using A = ec::affine<C>;
    using J = ec::jacobian<C>;
    using F = typename C::field;
    rng g(seed);
    for (size_t n : {1u, 9u, 64u, 65u, 300u}) {
        // P_i = (a + 3 i s) G and Q_i = (a + (3 i + 1) s) G for random odd a, s: P_i != +-Q_i
        // (checked below by their x).
        std::vector<A> p(n), q(n);
        J acc = J::generator().mul(g() | 1);
        const J step = J::generator().mul(g() | 1);
        for (size_t i = 0; i < n; ++i) {
            p[i] = acc.to_affine();
            acc = acc + step;
            q[i] = acc.to_affine();
            acc = acc + step + step;
        }
        affine_inputs<F> in;
        for (size_t i = 0; i < n; ++i) {
            ASSERT_NE(p[i].x, q[i].x);
            in.x1.push_back(p[i].x);
            in.y1.push_back(p[i].y);
            in.x2.push_back(q[i].x);
            in.y2.push_back(q[i].y);
            in.neg.push_back(static_cast<uint8_t>(g() & 1));
        }
        for (batch_path path : affine_paths<F>()) {
            const auto r = run_affine_add(path, in);
            for (size_t i = 0; i < n; ++i) {
                const A expect = (p[i].to_jacobian() + (in.neg[i] ? -q[i] : q[i]).to_jacobian()).to_affine();
                ASSERT_EQ(r.first[i], expect.x) << to_string(path) << " x of point " << i << " of " << n;
                ASSERT_EQ(r.second[i], expect.y) << to_string(path) << " y of point " << i << " of " << n;
            }
        }
        expect_affine_adds_match(in, std::string(C::name) + " points, n " + std::to_string(n));
    }
}

TEST(affine_add_batch, real_g1_points_against_jacobian_addition) { expect_curve_points_match<ec::g1_curve>(302); }

TEST(affine_add_batch, real_g2_points_against_jacobian_addition) { expect_curve_points_match<ec::g2_curve>(304); }

TEST(affine_add_batch, fp2_random_coordinates_of_many_sizes) {
    rng g(305);
    for (size_t n : {0u, 1u, 7u, 8u, 9u, 63u, 64u, 65u, 1000u})
        expect_affine_adds_match(random_affine_inputs<fp2>(n, g), "fp2 random, n " + std::to_string(n));
}

TEST(affine_add_batch, fp2_edge_coordinates) {
    // Fp edge values in either component.
    const auto e = edge_values<fp>();
    affine_inputs<fp2> in;
    for (size_t i = 0; i < e.size(); ++i)
        for (size_t j = 0; j < e.size(); ++j) {
            const fp2 a{e[i], e[j]}, b{e[j], e[(i + 1) % e.size()]};
            if (a == b) continue;
            in.x1.push_back(a);
            in.x2.push_back(b);
            in.y1.push_back(fp2{e[(i + j) % e.size()], e[i]});
            in.y2.push_back(fp2{e[j], e[(2 * i + j) % e.size()]});
            in.neg.push_back(static_cast<uint8_t>((i + j) & 1));
        }
    expect_affine_adds_match(in, "fp2 edge values");
}

TEST(affine_add_batch, refuses_equal_x_before_writing_and_bad_spans) {
    rng g(303);
    for (batch_path path : affine_paths<fp>())
        for (size_t n : {1u, 2u, 7u, 8u, 20u}) {  // the equal x at an even and at an odd index
            auto in = random_affine_inputs<fp>(n, g);
            in.x2[n / 2] = in.x1[n / 2];
            auto x = in.x1, y = in.y1;
            try {
                affine_add_batch(path, std::span<fp>(x), std::span<fp>(y), std::span<const fp>(in.x2),
                                 std::span<const fp>(in.y2), std::span<const uint8_t>(in.neg));
                ADD_FAILURE() << to_string(path) << ": equal x accepted, n " << n;
            } catch (const error& e) {
                EXPECT_NE(std::string(e.what()).find("x1[" + std::to_string(n / 2) + "]"), std::string::npos) << e.what();
            }
            EXPECT_EQ(x, in.x1) << to_string(path) << ": x1 written before the refusal";
            EXPECT_EQ(y, in.y1) << to_string(path) << ": y1 written before the refusal";
            // a short span, and y1 overlapping x2
            EXPECT_THROW(affine_add_batch(path, std::span<fp>(x), std::span<fp>(y).first(n - 1), std::span<const fp>(in.x2),
                                          std::span<const fp>(in.y2), std::span<const uint8_t>(in.neg)),
                         error);
            EXPECT_THROW(affine_add_batch(path, std::span<fp>(x), std::span<fp>(in.x2), std::span<const fp>(in.x2),
                                          std::span<const fp>(in.y2), std::span<const uint8_t>(in.neg)),
                         error);
        }
}

TEST(ifma_dispatch, forcing_ifma_where_unavailable_throws) {
    if (ifma_available()) GTEST_SKIP() << "IFMA is available here: nothing to refuse";
    std::vector<fr> a(8), out(8);
    EXPECT_THROW(mul_batch(batch_path::ifma, std::span<fr>(out), std::span<const fr>(a), std::span<const fr>(a)), error);
    std::vector<fp> x(8), y(8), x2(8, fp::one());
    std::vector<uint8_t> neg(8);
    EXPECT_THROW(affine_add_batch(batch_path::ifma, std::span<fp>(x), std::span<fp>(y), std::span<const fp>(x2),
                                  std::span<const fp>(x2), std::span<const uint8_t>(neg)),
                 error);
}

}  // namespace
}  // namespace c2lab::ff

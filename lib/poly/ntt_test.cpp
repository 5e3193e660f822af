// NTT, cosets and the h step against naive O(n^2) arithmetic.
#include "poly/ntt.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "ff/ifma.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"

namespace c2lab::poly {
namespace {

using bk = ntt_config::batch_kind;

// The butterfly choices that run here: auto and scalar, and each vector path the CPU and build have.
std::vector<bk> batch_kinds() {
    std::vector<bk> k = {bk::automatic, bk::scalar};
    if (ff::avx2_available()) k.push_back(bk::avx2);
    if (ff::ifma_available()) k.push_back(bk::ifma);
    return k;
}

std::vector<fr> random_vector(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<fr> v(n);
    for (auto& x : v) x = fr::random(g);
    return v;
}

// out_k = sum_j x_j * (shift * w^k)^j, by Horner: O(n^2).
std::vector<fr> naive_eval(const std::vector<fr>& x, const fr& w, const fr& shift = fr::one()) {
    const size_t n = x.size();
    std::vector<fr> out(n);
    fr point = shift;
    for (size_t k = 0; k < n; ++k) {
        fr acc = fr::zero();
        for (size_t j = n; j-- > 0;) acc = acc * point + x[j];
        out[k] = acc;
        point *= w;
    }
    return out;
}

// Coefficients of the polynomial of degree < n with the values y at omega^i.
std::vector<fr> naive_interpolate(const evaluation_domain& d, const std::vector<fr>& y) {
    std::vector<fr> c = naive_eval(y, d.omega_inv());
    for (auto& v : c) v *= d.size_inv();
    return c;
}

std::vector<fr> schoolbook_mul(const std::vector<fr>& p, const std::vector<fr>& q) {
    std::vector<fr> r(p.size() + q.size() - 1);
    for (size_t i = 0; i < p.size(); ++i)
        for (size_t j = 0; j < q.size(); ++j) r[i + j] += p[i] * q[j];
    return r;
}

// p = q * (X^n - 1) + rem with deg rem < n; returns q (n - 1 coefficients for deg p <= 2n-2).
std::vector<fr> divide_by_vanishing(std::vector<fr> p, size_t n, std::vector<fr>& rem) {
    std::vector<fr> q(p.size() > n ? p.size() - n : 0);
    for (size_t deg = p.size(); deg-- > n;) {
        q[deg - n] = p[deg];
        p[deg - n] += p[deg];  // X^deg = X^(deg-n) * (X^n - 1) + X^(deg-n)
        p[deg] = fr::zero();
    }
    p.resize(std::min(p.size(), n));
    rem = p;
    return q;
}

TEST(evaluation_domain, constants) {
    for (size_t log_n : {0u, 1u, 2u, 5u, 10u}) {
        evaluation_domain d(log_n);
        const size_t n = d.size();
        EXPECT_EQ(n, size_t{1} << log_n);
        EXPECT_TRUE(d.omega().pow(static_cast<uint64_t>(n)).is_one());
        if (n > 1) {
            EXPECT_EQ(d.omega().pow(static_cast<uint64_t>(n / 2)), -fr::one());  // primitive
        }
        EXPECT_TRUE((d.omega() * d.omega_inv()).is_one());
        EXPECT_TRUE((d.size_inv() * fr::from_u64(n)).is_one());
        EXPECT_EQ(d.coset_generator(), fr::from_u64(7));
        EXPECT_TRUE((d.coset_generator() * d.coset_generator_inv()).is_one());
        EXPECT_EQ(d.z_on_coset(), fr::from_u64(7).pow(static_cast<uint64_t>(n)) - fr::one());
        EXPECT_TRUE((d.z_on_coset() * d.z_on_coset_inverse()).is_one());
        // X^n - 1 at g*omega^i is the same constant for every i.
        fr x = d.coset_generator();
        for (size_t i = 0; i < std::min<size_t>(n, 8); ++i, x *= d.omega())
            EXPECT_EQ(x.pow(static_cast<uint64_t>(n)) - fr::one(), d.z_on_coset());
        ASSERT_EQ(d.twiddles().size(), n / 2);
        fr w = fr::one();
        for (size_t j = 0; j < n / 2; ++j, w *= d.omega()) ASSERT_EQ(d.twiddles()[j], w) << "j = " << j;
    }
}

TEST(evaluation_domain, parallel_twiddles_match_serial) {
    evaluation_domain d1(16, 1), d2(16, 2), d0(16);
    ASSERT_EQ(d1.twiddles().size(), size_t{1} << 15);
    for (size_t j = 0; j < d1.twiddles().size(); ++j) {
        ASSERT_EQ(d1.twiddles()[j], d2.twiddles()[j]) << j;
        ASSERT_EQ(d1.twiddles()[j], d0.twiddles()[j]) << j;
    }
    EXPECT_EQ(d1.twiddles()[12345], d1.omega().pow(uint64_t{12345}));
}

// The table in each path's form: the scalar path's is twiddles() itself; the IFMA path's is
// omega^j 2^4 and the AVX2 path's omega^j 2^5 (ff::twiddle_form) where the path is available,
// refused where it is not; each made once and shared by copies of the domain.
TEST(evaluation_domain, twiddles_in_each_paths_form) {
    for (size_t log_n : {1u, 5u, 13u}) {
        evaluation_domain d(log_n, 2);
        const evaluation_domain copy = d;
        const auto plain = d.twiddles();
        const auto scalar = d.twiddles(ff::batch_path::scalar);
        ASSERT_EQ(scalar.data(), plain.data());
        for (auto [path, factor] : {std::pair{ff::batch_path::ifma, 16u}, std::pair{ff::batch_path::avx2, 32u}}) {
            if (path == ff::batch_path::ifma ? !ff::ifma_available() : !ff::avx2_available()) {
                EXPECT_THROW(d.twiddles(path), error) << ff::to_string(path);
                continue;
            }
            const auto form = d.twiddles(path);
            ASSERT_EQ(form.size(), plain.size());
            for (size_t j = 0; j < plain.size(); ++j)
                ASSERT_EQ(form[j], plain[j] * fr::from_u64(factor)) << ff::to_string(path) << ", j = " << j;
            EXPECT_EQ(copy.twiddles(path).data(), form.data()) << ff::to_string(path);
        }
    }
}

// The bit-reversed tables: entry i is the path's table at rev(i) over log2(n/2) bits, in each
// path's form (the IFMA one refused where that path is not available); made once per path and
// shared by copies of the domain.
TEST(evaluation_domain, twiddles_bit_reversed_in_each_paths_form) {
    for (size_t log_n : {1u, 2u, 6u, 13u}) {
        evaluation_domain d(log_n, 2);
        const evaluation_domain copy = d;
        const size_t bits = log_n - 1;
        auto rev = [&](size_t i) {
            size_t r = 0;
            for (size_t b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
            return r;
        };
        for (ff::batch_path path : {ff::batch_path::scalar, ff::batch_path::ifma, ff::batch_path::avx2}) {
            if ((path == ff::batch_path::ifma && !ff::ifma_available()) ||
                (path == ff::batch_path::avx2 && !ff::avx2_available())) {
                EXPECT_THROW(d.twiddles_bit_reversed(path), error);
                continue;
            }
            const auto natural = d.twiddles(path);
            const auto table = d.twiddles_bit_reversed(path);
            ASSERT_EQ(table.size(), natural.size());
            for (size_t i = 0; i < table.size(); ++i) ASSERT_EQ(table[i], natural[rev(i)]) << "log_n " << log_n << ", i " << i;
            EXPECT_EQ(copy.twiddles_bit_reversed(path).data(), table.data());
        }
    }
}

// bit_reverse_permute against the permutation written out, tiled sizes included; wrong lengths refused.
TEST(ntt, bit_reverse_permute_matches_the_definition) {
    for (size_t log_n : {0u, 1u, 3u, 7u, 8u, 9u, 12u, 15u}) {
        const std::vector<fr> x = random_vector(size_t{1} << log_n, 600 + log_n);
        std::vector<fr> got = x;
        bit_reverse_permute(got, log_n);
        for (size_t i = 0; i < x.size(); ++i) {
            size_t r = 0;
            for (size_t b = 0; b < log_n; ++b) r |= ((i >> b) & 1) << (log_n - 1 - b);
            ASSERT_EQ(got[r], x[i]) << "log_n " << log_n << ", i " << i;
        }
    }
    std::vector<fr> x(12);
    EXPECT_THROW(bit_reverse_permute(x, 3), error);
    EXPECT_THROW(bit_reverse_permute(x, 4), error);
}

// The scalar table is made once, on the first call, however many threads ask at once (where
// IFMA runs it is made lazily), and a copy of the domain shares it.
TEST(evaluation_domain, scalar_twiddles_made_once_for_every_caller) {
    evaluation_domain d(14, 2);
    const evaluation_domain copy = d;
    std::vector<const fr*> seen(4, nullptr);
    std::vector<std::thread> callers;
    for (size_t t = 0; t < seen.size(); ++t)
        callers.emplace_back([&, t] { seen[t] = (t % 2 ? copy : d).twiddles().data(); });
    for (auto& c : callers) c.join();
    for (const fr* p : seen) EXPECT_EQ(p, seen[0]);
    fr w = fr::one();
    for (size_t j = 0; j < d.twiddles().size(); ++j, w *= d.omega()) ASSERT_EQ(d.twiddles()[j], w) << "j = " << j;
}

// domain_cache hands out the same domain (the same tables, those made later too) for every m
// of one power of two and thread count, and makes another for another size or thread count.
TEST(domain_cache, keeps_the_domain_of_one_size_and_replaces_it_for_another) {
    domain_cache cache;
    const evaluation_domain a = cache.at_least(1000, 2);  // 2^10
    const evaluation_domain b = cache.at_least(1024, 2);
    EXPECT_EQ(a.size(), 1024u);
    EXPECT_EQ(b.size(), 1024u);
    EXPECT_EQ(a.twiddles().data(), b.twiddles().data());  // made once, by the first to ask
    const fr* reversed = a.twiddles_bit_reversed(ff::batch_path::scalar).data();
    EXPECT_EQ(cache.at_least(600, 2).twiddles_bit_reversed(ff::batch_path::scalar).data(), reversed);

    const evaluation_domain bigger = cache.at_least(1025, 2);  // 2^11: another domain
    EXPECT_EQ(bigger.size(), 2048u);
    EXPECT_NE(bigger.twiddles().data(), a.twiddles().data());
    const evaluation_domain smaller = cache.at_least(512, 2);  // 2^9
    EXPECT_EQ(smaller.size(), 512u);
    EXPECT_EQ(cache.at_least(1, 2).size(), 1u);
    EXPECT_EQ(cache.at_least(0, 2).size(), 1u);
    const evaluation_domain t1 = cache.at_least(1024, 1), t1_again = cache.at_least(1024, 1);
    EXPECT_EQ(t1.twiddles().data(), t1_again.twiddles().data());
    EXPECT_NE(t1.twiddles().data(), a.twiddles().data());  // another thread count: made again
    // Every copy is the domain at_least makes.
    const evaluation_domain fresh = evaluation_domain::at_least(1024, 1);
    EXPECT_EQ(t1.omega(), fresh.omega());
    for (size_t j = 0; j < fresh.twiddles().size(); ++j) ASSERT_EQ(t1.twiddles()[j], fresh.twiddles()[j]) << j;
    EXPECT_THROW(cache.at_least((size_t{1} << 32) + 1, 1), error);
}

TEST(evaluation_domain, refuses_bad_sizes) {
    auto expect_bad_input = [](auto&& f) {
        try {
            f();
            ADD_FAILURE() << "no error";
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input) << e.what();
        }
    };
    expect_bad_input([] { evaluation_domain d(33); });
    expect_bad_input([] { evaluation_domain d(64); });
    expect_bad_input([] { evaluation_domain::for_size(0); });
    expect_bad_input([] { evaluation_domain::for_size(3); });
    expect_bad_input([] { evaluation_domain::for_size(1000); });
    expect_bad_input([] { evaluation_domain::for_size(size_t{1} << 33); });
    expect_bad_input([] { evaluation_domain::at_least((size_t{1} << 32) + 1); });
    EXPECT_EQ(evaluation_domain::for_size(1024).log_size(), 10u);
    EXPECT_EQ(evaluation_domain::at_least(0).size(), 1u);
    EXPECT_EQ(evaluation_domain::at_least(1).size(), 1u);
    EXPECT_EQ(evaluation_domain::at_least(5).size(), 8u);
    EXPECT_EQ(evaluation_domain::at_least(8).size(), 8u);

    evaluation_domain d(3);
    std::vector<fr> wrong(7), right(8);
    expect_bad_input([&] { forward_ntt(d, wrong); });
    expect_bad_input([&] { inverse_ntt(d, wrong); });
    expect_bad_input([&] { coset_forward_ntt(d, wrong); });
    expect_bad_input([&] { coset_inverse_ntt(d, std::span<fr>(right).first(4)); });
    expect_bad_input([&] { coset_inverse_ntt_scaled(d, wrong, fr::one()); });
    expect_bad_input([&] { inverse_ntt_scaled(d, wrong, fr::one()); });
    expect_bad_input([&] { coset_values_from_values(d, wrong); });
    expect_bad_input([&] { compute_h_in_place(d, right, right, wrong); });
    expect_bad_input([&] { compute_h(std::vector<fr>(5), std::vector<fr>(5), std::vector<fr>(4)); });
}

TEST(ntt, forward_and_inverse_match_naive_dft_up_to_1024) {
    for (size_t log_n = 0; log_n <= 10; ++log_n) {
        evaluation_domain d(log_n);
        const size_t n = d.size();
        const std::vector<fr> x = random_vector(n, 100 + log_n);
        const std::vector<fr> fwd = naive_eval(x, d.omega());
        const std::vector<fr> inv = naive_interpolate(d, x);
        // block_log 0 (auto: every stage in one cache block at these sizes) and small blocks,
        // so that the stage-by-stage path for large blocks is checked against the naive DFT too.
        for (unsigned block_log : {0u, 1u, 2u, 5u}) {
            const ntt_config cfg{0, block_log};
            std::vector<fr> y = x;
            forward_ntt(d, y, cfg);
            ASSERT_EQ(y, fwd) << "forward, n = " << n << ", block_log = " << block_log;
            y = x;
            inverse_ntt(d, y, cfg);
            ASSERT_EQ(y, inv) << "inverse, n = " << n << ", block_log = " << block_log;
        }
    }
}

// Blocks of 2 and 4 elements: the column tiles cover 1024 rows (2048 and 4096 elements), so at
// 2^12 with 2-element blocks the last stage runs on its own pass, and both passes meet the
// naive DFT; at 2^11 the tiles take every stage above the blocks.
TEST(ntt, forward_matches_naive_dft_past_one_column_tile) {
    for (size_t log_n : {11u, 12u}) {
        evaluation_domain d(log_n);
        const std::vector<fr> x = random_vector(d.size(), 150 + log_n);
        const std::vector<fr> fwd = naive_eval(x, d.omega());
        for (unsigned block_log : {1u, 2u, 0u}) {
            std::vector<fr> y = x;
            forward_ntt(d, y, ntt_config{0, block_log});
            ASSERT_EQ(y, fwd) << "forward, log_n = " << log_n << ", block_log = " << block_log;
        }
    }
}

TEST(ntt, known_small_transforms) {
    // n = 2: (a0, a1) -> (a0 + a1, a0 - a1). n = 4 with x = (1, 0, 0, 0) -> all ones; x = delta_1 -> omega^k.
    evaluation_domain d1(1);
    std::vector<fr> v = {fr::from_u64(5), fr::from_u64(3)};
    forward_ntt(d1, v);
    EXPECT_EQ(v[0], fr::from_u64(8));
    EXPECT_EQ(v[1], fr::from_u64(2));
    evaluation_domain d2(2);
    std::vector<fr> e0 = {fr::one(), fr::zero(), fr::zero(), fr::zero()};
    forward_ntt(d2, e0);
    for (const fr& y : e0) EXPECT_TRUE(y.is_one());
    std::vector<fr> e1 = {fr::zero(), fr::one(), fr::zero(), fr::zero()};
    forward_ntt(d2, e1);
    for (size_t k = 0; k < 4; ++k) EXPECT_EQ(e1[k], d2.omega().pow(uint64_t{k}));
    evaluation_domain d0(0);
    std::vector<fr> one = {fr::from_u64(9)};
    forward_ntt(d0, one);
    inverse_ntt(d0, one);
    coset_forward_ntt(d0, one);
    EXPECT_EQ(one[0], fr::from_u64(9));
}

TEST(ntt, round_trips_up_to_2_16) {
    for (size_t log_n = 0; log_n <= 16; ++log_n) {
        evaluation_domain d(log_n);
        const std::vector<fr> x = random_vector(d.size(), 200 + log_n);
        std::vector<fr> y = x;
        forward_ntt(d, y);
        if (d.size() > 1) {
            ASSERT_NE(y, x);
        }
        inverse_ntt(d, y);
        ASSERT_EQ(y, x) << "inverse(forward(x)), log_n = " << log_n;
        inverse_ntt(d, y);
        forward_ntt(d, y);
        ASSERT_EQ(y, x) << "forward(inverse(x)), log_n = " << log_n;
        coset_forward_ntt(d, y);
        if (d.size() > 1) {
            ASSERT_NE(y, x);
        }
        coset_inverse_ntt(d, y);
        ASSERT_EQ(y, x) << "coset round trip, log_n = " << log_n;
    }
}

TEST(ntt, coset_matches_naive_evaluation_at_g_omega_i) {
    for (size_t log_n = 0; log_n <= 8; ++log_n) {
        evaluation_domain d(log_n);
        std::vector<fr> x = random_vector(d.size(), 300 + log_n);
        std::vector<fr> y = x;
        coset_forward_ntt(d, y);
        std::vector<fr> expected = naive_eval(x, d.omega(), d.coset_generator());
        ASSERT_EQ(y, expected) << "coset forward, n = " << d.size();
        // Coset inverse of evaluations at g*omega^i gives back the coefficients.
        coset_inverse_ntt(d, expected);
        ASSERT_EQ(expected, x) << "coset inverse, n = " << d.size();
    }
}

// The fused and scaled forms against the transforms they stand for, at sizes 1 to 2^13, one and
// two threads.
TEST(ntt, fused_coset_forms_match_the_composed_transforms) {
    for (size_t log_n = 0; log_n <= 13; ++log_n) {
        evaluation_domain d(log_n);
        const std::vector<fr> x = random_vector(d.size(), 400 + log_n);
        const fr scale = fr::from_u64(12345 + log_n);
        for (unsigned threads : {1u, 2u}) {
            std::vector<fr> want = x, got = x;
            inverse_ntt(d, want, {threads});
            coset_forward_ntt(d, want, {threads});
            coset_values_from_values(d, got, {threads});
            ASSERT_EQ(got, want) << "coset_values_from_values, log_n = " << log_n;
            using plain_fn = void (*)(const evaluation_domain&, std::span<fr>, const ntt_config&);
            using scaled_fn = void (*)(const evaluation_domain&, std::span<fr>, const fr&, const ntt_config&);
            const std::tuple<plain_fn, scaled_fn, const char*> scaled_forms[] = {
                {coset_inverse_ntt, coset_inverse_ntt_scaled, "coset_inverse_ntt_scaled"},
                {inverse_ntt, inverse_ntt_scaled, "inverse_ntt_scaled"}};
            for (const auto& [plain, scaled, name] : scaled_forms) {
                want = x;
                got = x;
                plain(d, want, {threads});
                for (fr& v : want) v *= scale;
                scaled(d, got, scale, {threads});
                ASSERT_EQ(got, want) << name << ", log_n = " << log_n;
            }
        }
    }
}

// coset_values_from_values runs from natural order to natural order without a bit reversal on
// the IFMA path from 2^10 (the natural-order transform, the rescaling in bit-reversed order, the
// transform from bit-reversed input): the same bits as the composed transforms, with cache
// blocks small enough that the column tiles and the stages beyond a super-block run too
// (block_log 1: chunks of 2; 2: chunks of 4, super-blocks of 4096; 5: chunks of 32, super-blocks
// of 32768), on
// every butterfly choice, one and two threads.
TEST(ntt, natural_order_pair_matches_the_composed_transforms) {
    for (size_t log_n : {10u, 11u, 12u, 13u, 14u, 17u}) {
        evaluation_domain d(log_n);
        const std::vector<fr> x = random_vector(d.size(), 700 + log_n);
        for (unsigned block_log : {0u, 1u, 2u, 3u, 5u})
            for (unsigned threads : {1u, 2u})
                for (bk batch : batch_kinds()) {
                    if (log_n == 17 && (threads == 1 || block_log == 1 || block_log == 3)) continue;
                    using po = ntt_config::pair_order;
                    const ntt_config cfg{threads, block_log, batch, po::natural};
                    EXPECT_TRUE(uses_natural_pair(cfg));
                    std::vector<fr> want = x, got = x;
                    inverse_ntt(d, want, cfg);
                    coset_forward_ntt(d, want, cfg);
                    coset_values_from_values(d, got, cfg);
                    ASSERT_EQ(got, want) << "log_n " << log_n << ", block_log " << block_log << ", threads " << threads
                                         << ", butterflies " << to_string(batch);
                    for (po order : {po::bit_reversed, po::automatic}) {  // the flag's other forms
                        got = x;
                        coset_values_from_values(d, got, ntt_config{threads, block_log, batch, order});
                        ASSERT_EQ(got, want) << to_string(order) << " pair, log_n " << log_n << ", block_log " << block_log;
                    }
                }
    }
}

// auto takes the natural pair exactly where the IFMA butterflies run; the flag's names round-trip.
TEST(ntt, pair_order_auto_follows_the_butterflies) {
    using po = ntt_config::pair_order;
    EXPECT_EQ(uses_natural_pair(ntt_config{}), uses_ifma(ntt_config{}));
    EXPECT_FALSE(uses_natural_pair(ntt_config{0, 0, bk::scalar}));  // the scalar butterflies: bit_reversed
    EXPECT_FALSE(uses_natural_pair(ntt_config{0, 0, bk::avx2}));    // so are the AVX2 stages
    EXPECT_TRUE(uses_natural_pair(ntt_config{0, 0, bk::scalar, po::natural}));
    EXPECT_FALSE(uses_natural_pair(ntt_config{0, 0, bk::automatic, po::bit_reversed}));
    for (po p : {po::automatic, po::natural, po::bit_reversed}) EXPECT_EQ(parse_ntt_pair(to_string(p)), p);
    EXPECT_THROW(parse_ntt_pair("reversed"), error);
    for (bk b : {bk::automatic, bk::scalar, bk::avx2, bk::ifma}) EXPECT_EQ(parse_ntt_batch(to_string(b)), b);
    EXPECT_THROW(parse_ntt_batch("avx512"), error);
    // automatic resolves to the vector path c2lab takes by default; the others are what they say.
    EXPECT_EQ(stages_path(ntt_config{}), ff::vector_batch_path());
    EXPECT_EQ(stages_path(ntt_config{0, 0, bk::avx2}), ff::batch_path::avx2);
    EXPECT_EQ(stages_path(ntt_config{0, 0, bk::scalar}), ff::batch_path::scalar);
}

// The twiddle tables a fresh domain holds after the h step's transforms (or one transform) are
// what twiddle_table_bytes predicts, the memory estimate's term for them: both pair orders,
// both butterfly choices, and cache blocks small enough for the stages beyond a super-block
// (block_log 2 at 2^13: super-blocks of 4096), where the IFMA transforms scale their IFMA-form
// twiddles back instead of reading scalar tables. The counts come from the transforms' own
// requests, so a table a transform starts asking for without the prediction following fails here.
TEST(ntt, twiddle_table_bytes_match_the_tables_the_transforms_make) {
    using po = ntt_config::pair_order;
    size_t cases = 0;
    for (size_t log_n : {1u, 4u, 9u, 10u, 13u})
        for (unsigned block_log : {0u, 2u, 5u})
            for (bk batch : batch_kinds())
                for (po order : {po::automatic, po::natural, po::bit_reversed}) {
                    const ntt_config cfg{1, block_log, batch, order};
                    const std::string where = "log_n " + std::to_string(log_n) + ", block_log " +
                                              std::to_string(block_log) + ", butterflies " +
                                              std::string(to_string(batch)) + ", " + std::string(to_string(order));
                    const size_t n = size_t{1} << log_n;
                    {
                        const evaluation_domain d(log_n, 1);
                        std::vector<fr> a = random_vector(n, 1), b = random_vector(n, 2), c = random_vector(n, 3);
                        compute_h_in_place(d, a, b, c, cfg);
                        ASSERT_EQ(d.table_bytes(), twiddle_table_bytes(log_n, cfg, true)) << "h step, " << where;
                    }
                    {
                        const evaluation_domain d(log_n, 1);
                        std::vector<fr> a = random_vector(n, 4);
                        inverse_ntt(d, a, cfg);
                        coset_forward_ntt(d, a, cfg);
                        ASSERT_EQ(d.table_bytes(), twiddle_table_bytes(log_n, cfg, false)) << "one transform, " << where;
                    }
                    ++cases;
                }
    EXPECT_EQ(cases, 45 * batch_kinds().size());
    // 16 n bytes a table: at least one, at most four.
    const std::uint64_t t22 = twiddle_table_bytes(22, ntt_config{}, true), table = 32ull << 21;
    EXPECT_GE(t22, table);
    EXPECT_LE(t22, 4 * table);
    EXPECT_EQ(t22 % table, 0u);
    // Beyond a super-block (2^22 at the default blocks) the IFMA transforms keep to the IFMA form:
    // its natural and bit-reversed tables, 4 GiB at 2^27 (8 when they read the scalar form too).
    if (uses_ifma(ntt_config{})) EXPECT_EQ(twiddle_table_bytes(27, ntt_config{}, true), 2 * (32ull << 26));
    else EXPECT_EQ(twiddle_table_bytes(27, ntt_config{}, true), 32ull << 26);
    EXPECT_EQ(twiddle_table_bytes(0, ntt_config{}, true), 0u);
}

TEST(ntt, distribute_powers) {
    std::vector<fr> x = random_vector(10000, 7), y = x;
    const fr first = fr::from_u64(3), ratio = fr::from_u64(11);
    distribute_powers(y, first, ratio, {2});
    fr p = first;
    for (size_t j = 0; j < x.size(); ++j, p *= ratio) ASSERT_EQ(y[j], x[j] * p) << j;
}

// The vector butterflies (AVX-512 IFMA where the CPU has it, the AVX2 stages) against the scalar
// ones, bit for bit: every size up to 2^14 and 2^17, with default and small cache blocks (the
// large-block stages then run at small sizes too; block_log 3 and 5 leave 2^17 with stages beyond
// a super-block), one and two threads, every transform.
TEST(ntt, vector_butterflies_match_scalar_bit_for_bit) {
    using transform = void (*)(const evaluation_domain&, std::span<fr>, const ntt_config&);
    const transform transforms[] = {forward_ntt, inverse_ntt, coset_forward_ntt, coset_inverse_ntt};
    for (bk batch : {bk::ifma, bk::avx2}) {
        if (batch == bk::ifma && !ff::ifma_available()) {
            std::cout << "[ ntt ] AVX-512 IFMA not available here (or switched off): no ifma butterflies\n";
            continue;
        }
        if (batch == bk::avx2 && !ff::avx2_available()) {
            std::cout << "[ ntt ] AVX2 kernels off here (C2LAB_PORTABLE, or not an x86-64 build): no avx2 stages\n";
            continue;
        }
        std::cout << "[ ntt ] comparing the " << to_string(batch) << " butterflies with the scalar ones\n";
        for (size_t log_n : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u, 17u})
            for (unsigned block_log : {0u, 3u, 5u})
                for (unsigned threads : {1u, 2u}) {
                    evaluation_domain d(log_n);
                    const std::vector<fr> x = random_vector(d.size(), 500 + log_n);
                    for (size_t t = 0; t < 4; ++t) {
                        std::vector<fr> fast = x, ref = x;
                        transforms[t](d, fast, ntt_config{threads, block_log, batch});
                        transforms[t](d, ref, ntt_config{threads, block_log, bk::scalar});
                        ASSERT_EQ(fast, ref) << to_string(batch) << ", transform " << t << ", log_n " << log_n
                                             << ", block_log " << block_log << ", threads " << threads;
                    }
                }
    }
}

TEST(ntt, thread_counts_give_identical_results) {
    for (size_t log_n : {3u, 12u, 13u, 17u}) {
        evaluation_domain d(log_n);
        const std::vector<fr> x = random_vector(d.size(), 400 + log_n);
        std::vector<std::vector<fr>> fwd, inv, cfwd, cinv;
        // (threads, block_log): serial first; then 2 threads and all cores, with the default
        // cache blocks and with small ones (more stages on the parallel large-block path).
        const ntt_config cfgs[] = {{1, 0}, {2, 0}, {0, 0}, {2, 3}};
        for (const ntt_config& cfg : cfgs) {
            std::vector<fr> y = x;
            forward_ntt(d, y, cfg);
            fwd.push_back(y);
            y = x;
            inverse_ntt(d, y, cfg);
            inv.push_back(y);
            y = x;
            coset_forward_ntt(d, y, cfg);
            cfwd.push_back(y);
            y = x;
            coset_inverse_ntt(d, y, cfg);
            cinv.push_back(y);
        }
        for (size_t i = 1; i < std::size(cfgs); ++i) {
            ASSERT_EQ(fwd[0], fwd[i]) << "log_n = " << log_n;
            ASSERT_EQ(inv[0], inv[i]) << "log_n = " << log_n;
            ASSERT_EQ(cfwd[0], cfwd[i]) << "log_n = " << log_n;
            ASSERT_EQ(cinv[0], cinv[i]) << "log_n = " << log_n;
        }
        // And the large transform is really a DFT: spot-check a few outputs by Horner.
        for (size_t k : {size_t{0}, size_t{1}, size_t{77}, size_t{4096 + 77}, d.size() / 2 + 3, d.size() - 1}) {
            if (k >= d.size()) continue;
            const fr point = d.omega().pow(static_cast<uint64_t>(k));
            fr acc = fr::zero();
            for (size_t j = d.size(); j-- > 0;) acc = acc * point + x[j];
            ASSERT_EQ(fwd[0][k], acc) << "log_n = " << log_n << ", k = " << k;
        }
    }
}

// Evaluations with a_i * b_i = c_i on the domain (a satisfied system), zero-padded from m.
struct abc {
    std::vector<fr> a, b, c;
};
abc satisfied_abc(size_t m, uint64_t seed) {
    abc r{random_vector(m, seed), random_vector(m, seed + 1), {}};
    for (size_t i = 0; i < m; ++i) r.c.push_back(r.a[i] * r.b[i]);
    return r;
}

std::vector<fr> padded(std::vector<fr> v, size_t n) {
    v.resize(n, fr::zero());
    return v;
}

// A*B - C = Q*Z + R by interpolation, schoolbook multiplication and long division by
// Z = X^n - 1: returns Q, R in rem.
std::vector<fr> naive_quotient(const evaluation_domain& d, const abc& in, std::vector<fr>& rem) {
    const size_t n = d.size();
    std::vector<fr> A = naive_interpolate(d, padded(in.a, n));
    std::vector<fr> B = naive_interpolate(d, padded(in.b, n));
    std::vector<fr> C = naive_interpolate(d, padded(in.c, n));
    std::vector<fr> p = schoolbook_mul(A, B);
    for (size_t i = 0; i < n; ++i) p[i] -= C[i];
    return divide_by_vanishing(p, n, rem);
}

TEST(h_poly, matches_naive_quotient_for_satisfied_systems) {
    for (size_t m : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 16u, 17u, 31u, 33u, 64u}) {
        evaluation_domain d = evaluation_domain::at_least(m);
        const size_t n = d.size();
        abc in = satisfied_abc(m, 500 + m);
        std::vector<fr> rem;
        std::vector<fr> q = naive_quotient(d, in, rem);
        for (const fr& r : rem) ASSERT_TRUE(r.is_zero()) << "m = " << m << ": A*B - C not divisible by Z";
        ASSERT_EQ(q.size(), n - 1);

        std::vector<fr> h = compute_h(in.a, in.b, in.c);
        ASSERT_EQ(h.size(), n - 1) << "m = " << m;
        ASSERT_EQ(h, q) << "m = " << m;

        // The in-place form keeps all n coefficients; the dropped one is zero.
        std::vector<fr> a = padded(in.a, n), b = padded(in.b, n), c = padded(in.c, n);
        compute_h_in_place(d, a, b, c);
        ASSERT_TRUE(a[n - 1].is_zero()) << "m = " << m;
        a.resize(n - 1);
        ASSERT_EQ(a, q) << "m = " << m;
    }
}

TEST(h_poly, unsatisfied_system_gives_quotient_plus_scaled_remainder) {
    // A*B - C = Q*Z + R: the coset computation returns Q + R / (g^n - 1) (degree < n).
    for (size_t m : {4u, 6u, 16u}) {
        evaluation_domain d = evaluation_domain::at_least(m);
        const size_t n = d.size();
        abc in = satisfied_abc(m, 600 + m);
        in.c[1] += fr::one();  // one constraint violated
        std::vector<fr> rem;
        std::vector<fr> q = naive_quotient(d, in, rem);
        std::vector<fr> expected(n);
        for (size_t i = 0; i < n; ++i) expected[i] = (i < q.size() ? q[i] : fr::zero()) + rem[i] * d.z_on_coset_inverse();
        std::vector<fr> a = padded(in.a, n), b = padded(in.b, n), c = padded(in.c, n);
        compute_h_in_place(d, a, b, c);
        ASSERT_EQ(a, expected) << "m = " << m;
        EXPECT_FALSE(a[n - 1].is_zero());
    }
}

TEST(h_poly, thread_counts_give_identical_results) {
    const size_t m = (size_t{1} << 14) - 5;
    abc in = satisfied_abc(m, 700);
    std::vector<fr> h1 = compute_h(in.a, in.b, in.c, {1});
    std::vector<fr> h2 = compute_h(in.a, in.b, in.c, {2});
    ASSERT_EQ(h1.size(), (size_t{1} << 14) - 1);
    ASSERT_EQ(h1, h2);
    // h really is the quotient: h * Z = A*B - C at a random point, with A, B, C from
    // inverse NTTs (naive interpolation is too slow here).
    evaluation_domain d = evaluation_domain::at_least(m);
    std::vector<fr> A = padded(in.a, d.size()), B = padded(in.b, d.size()), C = padded(in.c, d.size());
    inverse_ntt(d, A);
    inverse_ntt(d, B);
    inverse_ntt(d, C);
    rng g(701);
    const fr x = fr::random(g);
    auto eval = [&](const std::vector<fr>& v) {
        fr acc = fr::zero();
        for (size_t j = v.size(); j-- > 0;) acc = acc * x + v[j];
        return acc;
    };
    const fr z = x.pow(static_cast<uint64_t>(d.size())) - fr::one();
    EXPECT_EQ(eval(h1) * z, eval(A) * eval(B) - eval(C));
}

}  // namespace
}  // namespace c2lab::poly

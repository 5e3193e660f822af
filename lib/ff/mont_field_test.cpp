// One generic suite for every prime field (Fp and Fr), plus known answers per field.
#include "ff/mont_field.hpp"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "core/cpu.hpp"
#include "core/rng.hpp"
#include "ff/fields.hpp"
#include "ff/in_place.hpp"

namespace c2lab::ff {
namespace {

template <class F>
class prime_field : public ::testing::Test {};
using field_types = ::testing::Types<fp, fr>;
TYPED_TEST_SUITE(prime_field, field_types);

template <class F>
typename F::repr repr_of(uint64_t low) {
    typename F::repr r{};
    r[0] = low;
    return r;
}

// Values a fast path can get wrong: 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, 2^k - 1, 2^k, and
// all-ones limbs under the modulus.
template <class F>
std::vector<F> edge_values() {
    std::vector<F> v = {F::zero(), F::one(), F::from_u64(2), -F::one(), -F::from_u64(2)};
    v.push_back(F::from_canonical(F::p_minus_1_over_2));
    v.push_back(F::from_canonical(F::p_minus_1_over_2) + F::one());
    for (size_t k : {63u, 64u, 65u, 127u, 128u, 191u, 192u, 250u}) {
        if (k >= F::bits) continue;
        typename F::repr x{};
        x[k / 64] = uint64_t{1} << (k % 64);
        v.push_back(F::from_canonical(x));
        v.push_back(F::from_canonical(x) - F::one());
    }
    typename F::repr ones;
    ones.fill(~uint64_t{0});
    ones[F::n_limbs - 1] = F::modulus[F::n_limbs - 1] - 1;
    v.push_back(F::from_canonical(ones));
    // Montgomery forms at the edges too: raw limbs 1 and p-1.
    v.push_back(F::from_mont(repr_of<F>(1)));
    v.push_back(F::from_mont(F::p_minus_1));
    return v;
}

TYPED_TEST(prime_field, derived_constants) {
    using F = TypeParam;
    EXPECT_EQ(F::n0 * F::modulus[0], ~uint64_t{0});  // n0 = -p^-1 mod 2^64
    EXPECT_EQ(F::one().to_canonical(), repr_of<F>(1));
    EXPECT_EQ(F::from_u64(12345).to_canonical(), repr_of<F>(12345));
    // R * R^-1 = 1: multiplying R^2 (Montgomery form of R) by 1 gives R.
    EXPECT_EQ(F::from_mont(F::r2).to_canonical(), F::r1);
}

// Loops that feed an operation the same addresses each time, with the values behind them
// changed in between. The inline asm of the additions reads its operands through pointers:
// when GCC took it for a function of those pointers alone, w = w + w four times gave 2w (the
// loop's four blocks merged into one). Out of line so the loop is compiled as such.
template <class F>
[[gnu::noinline]] F doubled_4_times(F w) {
    for (int i = 0; i < 4; ++i) w = w + w;
    return w;
}
template <class F>
[[gnu::noinline]] F plus_4_times(F w, F x) {
    for (int i = 0; i < 4; ++i) w = w + x;
    return w;
}
template <class F>
[[gnu::noinline]] F minus_4_times(F w, F x) {
    for (int i = 0; i < 4; ++i) w = w - x;
    return w;
}
template <class F>
[[gnu::noinline]] F squared_4_times(F w) {
    for (int i = 0; i < 4; ++i) w = w * w;
    return w;
}

TYPED_TEST(prime_field, inline_asm_reads_memory_each_time) {
    using F = TypeParam;
    for (const F& w : edge_values<F>()) {
        const F x = w + F::from_u64(3);
        EXPECT_EQ(doubled_4_times(w), w * F::from_u64(16));
        EXPECT_EQ(plus_4_times(w, x), w + x * F::from_u64(4));
        EXPECT_EQ(minus_4_times(w, x), w - x * F::from_u64(4));
        EXPECT_EQ(squared_4_times(w), w.pow(uint64_t{16}));
    }
}

TYPED_TEST(prime_field, asm_matches_portable_on_edges_and_random) {
    using F = TypeParam;
    if (!has_asm_mul<F::n_limbs> || !cpu::detected().adx || !cpu::detected().bmi2)
        GTEST_SKIP() << "no mulx/adcx/adox path on this build or CPU; the portable path is the only one";
    auto check = [](const F& a, const F& b) {
        auto fast = mont_mul_asm(a.mont, b.mont, F::modulus, F::n0);
        auto slow = mont_mul_portable(a.mont, b.mont, F::modulus, F::n0);
        ASSERT_EQ(fast, slow);
        ASSERT_TRUE(F::is_canonical(fast));
    };
    auto edges = edge_values<F>();
    for (const F& a : edges)
        for (const F& b : edges) check(a, b);
    rng g(1);
    for (int i = 0; i < 100000; ++i) check(F::random(g), F::random(g));
    // Products that land exactly on the final subtraction: a * a^-1 = 1.
    for (int i = 0; i < 1000; ++i) {
        F a = F::random(g);
        check(a, a.inverse());
    }
}

// An Fp element from a representation below 2p (the lazy forms' bound, ff::fp_two_p).
fp reduced_below_2p(limbs<6> x) {
    if (!less_than(x, fp::modulus)) sub_from(x, fp::modulus);
    return fp::from_mont(x);
}

// The lazy product (mont_mul_lazy_into: no final subtraction) on inputs below 2p, the edges
// p .. 2p - 1 included: below 2p, and congruent to the full product of the inputs reduced. The
// full product and the square take such inputs too, and give canonical results.
TEST(fp, lazy_product_is_below_2p_and_congruent) {
    using F = fp;
    const limbs<6>& two_p = fp_two_p;
    const auto reduced = reduced_below_2p;
    std::vector<limbs<6>> in;
    for (const F& e : edge_values<F>()) {
        in.push_back(e.mont);
        limbs<6> hi = e.mont;
        add_to(hi, F::modulus);  // e + p: the same value, above p
        in.push_back(hi);
    }
    limbs<6> top = two_p;
    sub_from(top, repr_of<F>(1));  // 2p - 1
    in.push_back(top);
    rng g(77);
    for (int i = 0; i < 64; ++i) {
        limbs<6> r = F::random(g).mont;
        if (i % 2) add_to(r, F::modulus);
        in.push_back(r);
    }
    for (const auto& a : in)
        for (const auto& b : in) {
            limbs<6> r;
            mont_mul_lazy_into(r, a, b, F::modulus, F::n0);
            ASSERT_TRUE(less_than(r, two_p));
            ASSERT_EQ(reduced(r), reduced(a) * reduced(b));
            limbs<6> alias = a;  // r may alias an input
            mont_mul_lazy_into(alias, alias, b, F::modulus, F::n0);
            ASSERT_EQ(alias, r);
        }
    // Such a lazy value may feed the full product and the square, whose results are canonical.
    for (const auto& a : in) {
        limbs<6> sq, pr;
        mont_sqr_into(sq, a, F::modulus, F::n0);
        mont_mul_into(pr, a, in.back(), F::modulus, F::n0);
        ASSERT_TRUE(less_than(sq, F::modulus) && less_than(pr, F::modulus));
        ASSERT_EQ(F::from_mont(sq), reduced(a).square());
        ASSERT_EQ(F::from_mont(pr), reduced(a) * reduced(in.back()));
    }
}

// The lazy sum and difference (lazy_add_into, lazy_sub_into: no correction) of canonical
// inputs, the edges included: below 2p, congruent to the reduced sum and difference, exactly
// a + b and a + p - b as integers (the asm path against the limb arithmetic), r aliasing either
// input; and the lazy difference feeds the lazy product.
TEST(fp, lazy_sum_and_difference_are_below_2p_and_congruent) {
    using F = fp;
    const limbs<6>& two_p = fp_two_p;
    const auto reduced = reduced_below_2p;
    std::vector<F> in = edge_values<F>();
    rng g(78);
    for (int i = 0; i < 64; ++i) in.push_back(F::random(g));
    for (const F& a : in)
        for (const F& b : in) {
            limbs<6> want_sum = a.mont, want_diff = a.mont;
            add_to(want_sum, b.mont);
            add_to(want_diff, F::modulus);
            sub_from(want_diff, b.mont);
            limbs<6> s, d;
            lazy_add_into(s, a.mont, b.mont);
            lazy_sub_into(d, a.mont, b.mont, F::modulus);
            ASSERT_EQ(s, want_sum);
            ASSERT_EQ(d, want_diff);
            ASSERT_TRUE(less_than(s, two_p) && less_than(d, two_p));
            ASSERT_FALSE(is_zero(d));  // a + p - b > 0: a zero difference is p
            ASSERT_EQ(reduced(s), a + b);
            ASSERT_EQ(reduced(d), a - b);
            limbs<6> alias = a.mont;
            lazy_sub_into(alias, alias, b.mont, F::modulus);
            ASSERT_EQ(alias, d);
            alias = b.mont;
            lazy_sub_into(alias, a.mont, alias, F::modulus);
            ASSERT_EQ(alias, d);
            alias = b.mont;
            lazy_add_into(alias, a.mont, alias);
            ASSERT_EQ(alias, s);
            limbs<6> pr;
            mont_mul_lazy_into(pr, d, s, F::modulus, F::n0);
            ASSERT_EQ(reduced(pr), (a - b) * (a + b));
        }
    // The portable branch (what a build without the asm runs), evaluated at compile time, against
    // the branch this build runs, on p - 1 and a mixed-limb value in both orders.
    constexpr limbs<6> pm1 = [] {
        limbs<6> x = F::modulus;
        x[0] -= 1;
        return x;
    }();
    constexpr limbs<6> mixed{0x0123456789abcdefULL, 0xfedcba9876543210ULL, 0, ~0ULL, 0x8000000000000000ULL, 0x0f};
    constexpr auto portable = [](const limbs<6>& a, const limbs<6>& b) {
        std::array<limbs<6>, 2> r{};
        lazy_sub_into(r[0], a, b, F::modulus);
        lazy_add_into(r[1], a, b);
        return r;
    };
    constexpr auto c1 = portable(pm1, mixed), c2 = portable(mixed, pm1);
    for (const auto& [a, b, want] : {std::tuple{pm1, mixed, c1}, std::tuple{mixed, pm1, c2}}) {
        limbs<6> d, s;
        lazy_sub_into(d, a, b, F::modulus);
        lazy_add_into(s, a, b);
        EXPECT_EQ(d, want[0]);
        EXPECT_EQ(s, want[1]);
    }
}

// The dedicated 6-limb square of Fp (c2lab_mont_sqr_6) against the portable product a * a.
TEST(fp, asm_square_matches_portable_on_edges_and_random) {
    using F = fp;
    if (!has_asm_mul<F::n_limbs> || !cpu::detected().adx || !cpu::detected().bmi2)
        GTEST_SKIP() << "no mulx/adcx/adox path on this build or CPU; the portable path is the only one";
    auto check = [](const F& a) {
        auto fast = mont_sqr_asm(a.mont, F::modulus, F::n0);
        auto slow = mont_mul_portable(a.mont, a.mont, F::modulus, F::n0);
        ASSERT_EQ(fast, slow);
        ASSERT_TRUE(F::is_canonical(fast));
        if (cpu::use_adx_asm) {
            F x = a;
            x = x.square();  // through the operator, result over its operand
            ASSERT_EQ(x.mont, slow);
        }
    };
    for (const F& a : edge_values<F>()) check(a);
    rng g(2);
    for (int i = 0; i < 100000; ++i) check(F::random(g));
    // one limb all ones (carries through the doubling and the diagonal squares)
    for (int i = 0; i < 1000; ++i) {
        F::repr x = F::random(g).to_canonical();
        x[static_cast<size_t>(i) % (F::n_limbs - 1)] = ~uint64_t{0};
        if (F::is_canonical(x)) check(F::from_mont(x));
    }
}

#if defined(C2LAB_HAVE_X86_ASM)
// Both assembly loops of the NTT's butterflies (corrections by cmov, and by pdep on Intel cores;
// the one in use is chosen by cpu::pdep_butterflies), each called directly, against the portable
// product, sum and difference: edge values pairwise and random ones.
TEST(fr, both_asm_butterfly_loops_match_portable) {
    using F = fr;
    if (!cpu::detected().adx || !cpu::detected().bmi2)
        GTEST_SKIP() << "no mulx/adcx/adox on this CPU; the portable butterflies are the only ones";
    std::vector<F> x, y, w;
    const auto edges = edge_values<F>();
    for (const F& a : edges)
        for (const F& b : edges) {
            x.push_back(a), y.push_back(b), w.push_back(F::one());  // v = b: a + b and a - b at the edges
            x.push_back(a), y.push_back(b), w.push_back(b);         // v = b^2
        }
    rng g(12);
    for (int i = 0; i < 5000; ++i) x.push_back(F::random(g)), y.push_back(F::random(g)), w.push_back(F::random(g));
    using loop_fn = void (*)(uint64_t*, uint64_t*, const uint64_t*, size_t, const uint64_t*, uint64_t, size_t, size_t);
    for (const auto& [name, loop] : {std::pair<const char*, loop_fn>{"cmov", c2lab_mont_butterflies_4},
                                     std::pair<const char*, loop_fn>{"pdep", c2lab_mont_butterflies_4_pdep}}) {
        auto xs = x, ys = y;
        loop(xs[0].mont.data(), ys[0].mont.data(), w[0].mont.data(), x.size(), F::modulus.data(), F::n0, 32, 32);
        for (size_t i = 0; i < x.size(); ++i) {
            const auto v = mont_mul_portable(w[i].mont, y[i].mont, F::modulus, F::n0);
            ASSERT_EQ(xs[i].mont, add_mod_portable(x[i].mont, v, F::modulus)) << name << " x " << i;
            ASSERT_EQ(ys[i].mont, sub_mod_portable(x[i].mont, v, F::modulus)) << name << " y " << i;
        }
        // Spaced out: the pairs (3i, 3i + 1) of one array with the one twiddle w[5] (steps of 3
        // elements and 0); the elements 3i + 2 between them untouched.
        auto zs = x;
        const size_t pairs = zs.size() / 3;
        loop(zs[0].mont.data(), zs[1].mont.data(), w[5].mont.data(), pairs, F::modulus.data(), F::n0, 96, 0);
        for (size_t i = 0; i < zs.size(); ++i) {
            if (i % 3 == 2 || i >= 3 * pairs) {
                ASSERT_EQ(zs[i], x[i]) << name << " untouched " << i;
                continue;
            }
            const size_t a = i - i % 3;
            const auto v = mont_mul_portable(w[5].mont, x[a + 1].mont, F::modulus, F::n0);
            ASSERT_EQ(zs[i].mont, i % 3 == 0 ? add_mod_portable(x[a].mont, v, F::modulus) : sub_mod_portable(x[a].mont, v, F::modulus))
                << name << " spaced " << i;
        }
    }
}
#endif

TYPED_TEST(prime_field, add_and_sub_fast_paths_match_portable) {
    using F = TypeParam;
    auto check = [](const F& a, const F& b) {
        ASSERT_EQ(add_mod(a.mont, b.mont, F::modulus), add_mod_portable(a.mont, b.mont, F::modulus));
        ASSERT_EQ(sub_mod(a.mont, b.mont, F::modulus), sub_mod_portable(a.mont, b.mont, F::modulus));
        ASSERT_EQ(mod_add(a.mont, b.mont, F::modulus), add_mod_portable(a.mont, b.mont, F::modulus));
        ASSERT_EQ(mod_sub(a.mont, b.mont, F::modulus), sub_mod_portable(a.mont, b.mont, F::modulus));
        // The in-place forms (the 6-limb asm stores the result itself), also with the result
        // aliasing either operand, and the operators built on them.
        typename F::repr r{};
        mod_add_into(r, a.mont, b.mont, F::modulus);
        ASSERT_EQ(r, add_mod_portable(a.mont, b.mont, F::modulus));
        mod_sub_into(r, a.mont, b.mont, F::modulus);
        ASSERT_EQ(r, sub_mod_portable(a.mont, b.mont, F::modulus));
        r = a.mont;
        mod_add_into(r, r, b.mont, F::modulus);
        ASSERT_EQ(r, add_mod_portable(a.mont, b.mont, F::modulus));
        r = b.mont;
        mod_sub_into(r, a.mont, r, F::modulus);
        ASSERT_EQ(r, sub_mod_portable(a.mont, b.mont, F::modulus));
        F x = a;
        x += b;
        ASSERT_EQ(x.mont, add_mod_portable(a.mont, b.mont, F::modulus));
        x -= b;
        ASSERT_EQ(x, a);
        ASSERT_EQ((-b).mont, sub_mod_portable(typename F::repr{}, b.mont, F::modulus));
        x = a;
        x *= b;
        ASSERT_EQ(x.mont, mont_mul_portable(a.mont, b.mont, F::modulus, F::n0));
        // acc + a * b, acc at the edges too, and with acc aliasing an operand.
        const auto ab = mont_mul_portable(a.mont, b.mont, F::modulus, F::n0);
        for (const F& acc0 : {F::zero(), a, -F::one(), b}) {
            x = acc0;
            x.add_product(a, b);
            ASSERT_EQ(x.mont, add_mod_portable(acc0.mont, ab, F::modulus));
        }
        x = a;
        x.add_product(x, b);
        ASSERT_EQ(x.mont, add_mod_portable(a.mont, ab, F::modulus));
        x = b;
        x.add_product(a, x);
        ASSERT_EQ(x.mont, add_mod_portable(b.mont, ab, F::modulus));
    };
    auto edges = edge_values<F>();
    for (const F& a : edges)
        for (const F& b : edges) check(a, b);
    rng g(11);
    for (int i = 0; i < 20000; ++i) check(F::random(g), F::random(g));
}

TYPED_TEST(prime_field, ring_axioms) {
    using F = TypeParam;
    rng g(2);
    for (int i = 0; i < 2000; ++i) {
        F a = F::random(g), b = F::random(g), c = F::random(g);
        ASSERT_EQ(a + b, b + a);
        ASSERT_EQ(a * b, b * a);
        ASSERT_EQ((a + b) + c, a + (b + c));
        ASSERT_EQ((a * b) * c, a * (b * c));
        ASSERT_EQ(a * (b + c), a * b + a * c);
        ASSERT_EQ(a - b, a + (-b));
        ASSERT_EQ(a + F::zero(), a);
        ASSERT_EQ(a * F::one(), a);
        ASSERT_EQ(a * F::zero(), F::zero());
        ASSERT_EQ(a.dbl(), a + a);
        ASSERT_EQ(a.square(), a * a);
        ASSERT_EQ(a.halve().dbl(), a);
        ASSERT_TRUE((a - a).is_zero());
    }
    for (const F& a : edge_values<F>()) {
        ASSERT_EQ(a + (-a), F::zero());
        ASSERT_EQ(-(-a), a);
        ASSERT_TRUE(F::is_canonical(a.mont));
    }
}

TYPED_TEST(prime_field, inverse_pow_and_fermat) {
    using F = TypeParam;
    rng g(3);
    EXPECT_TRUE(F::zero().inverse().is_zero());
    for (int i = 0; i < 200; ++i) {
        F a = F::random(g);
        if (a.is_zero()) continue;
        ASSERT_EQ(a * a.inverse(), F::one());
        ASSERT_EQ(a.pow(F::p_minus_1), F::one());
        ASSERT_EQ(a.pow(5), a * a * a * a * a);
    }
}

TYPED_TEST(prime_field, gcd_inverse_matches_fermat) {
    using F = TypeParam;
    for (const F& a : edge_values<F>()) ASSERT_EQ(a.inverse(), a.inverse_fermat());
    rng g(12);
    for (int i = 0; i < 2000; ++i) {
        F a = F::random(g);
        ASSERT_EQ(a.inverse(), a.inverse_fermat());
    }
    // Montgomery representations the binary GCD's approximations treat specially: short ones
    // (both a and b below 2^64 early), powers of two, p - 1, p - 2, (p + 1) / 2, and random
    // values of one to N - 1 limbs.
    using repr = typename F::repr;
    std::vector<repr> reprs;
    for (size_t k = 0; k < F::bits - 1; k += 7) {
        repr r{};
        r[k / 64] = uint64_t{1} << (k % 64);
        reprs.push_back(r);
    }
    repr pm1 = F::modulus;
    pm1[0] -= 1;
    repr pm2 = F::modulus;
    pm2[0] -= 2;
    repr half = pm1;  // (p - 1) / 2 + 1
    for (size_t i = 0; i < half.size(); ++i) half[i] = (half[i] >> 1) | (i + 1 < half.size() ? half[i + 1] << 63 : 0);
    half[0] += 1;
    reprs.insert(reprs.end(), {pm1, pm2, half, repr{3}, repr{0xffffffffffffffffull}});
    for (size_t limbs = 1; limbs < F::n_limbs; ++limbs)
        for (int i = 0; i < 50; ++i) {
            repr r{};
            for (size_t j = 0; j < limbs; ++j) r[j] = g.next();
            reprs.push_back(r);
        }
    for (const repr& r : reprs) {
        const F a = F::from_mont(r);
        ASSERT_EQ(a.inverse(), a.inverse_fermat()) << "mont limb 0 " << r[0];
        ASSERT_EQ(a * a.inverse(), F::one());
    }
}

TYPED_TEST(prime_field, batch_inverse_matches_single_and_keeps_zeros) {
    using F = TypeParam;
    rng g(4);
    std::vector<F> xs;
    for (int i = 0; i < 100; ++i) xs.push_back(i % 7 == 3 ? F::zero() : F::random(g));
    std::vector<F> ys = xs;
    batch_inverse(std::span<F>(ys));
    for (size_t i = 0; i < xs.size(); ++i) ASSERT_EQ(ys[i], xs[i].inverse()) << "at " << i;
    std::vector<F> empty;
    batch_inverse(std::span<F>(empty));
}

TYPED_TEST(prime_field, sqrt_and_legendre) {
    using F = TypeParam;
    rng g(5);
    int squares = 0, non_squares = 0;
    for (int i = 0; i < 200; ++i) {
        F a = F::random(g);
        auto r = a.square().sqrt();
        ASSERT_TRUE(r.has_value());
        ASSERT_TRUE(*r == a || *r == -a);
        auto s = a.sqrt();
        int l = a.legendre();
        ASSERT_EQ(s.has_value(), l >= 0);
        if (s) {
            ASSERT_EQ(s->square(), a);
        }
        (l == 1 ? squares : non_squares)++;
    }
    EXPECT_GT(squares, 50);
    EXPECT_GT(non_squares, 50);
    EXPECT_EQ(F::from_u64(F::nonresidue).legendre(), -1);
    EXPECT_EQ(F::zero().sqrt(), F::zero());
}

TYPED_TEST(prime_field, roots_of_unity) {
    using F = TypeParam;
    // The literal of the field's parameters is the power it stands for.
    EXPECT_EQ(F::two_adic_root, F::from_u64(F::nonresidue).pow(F::odd_part));
    for (size_t k = 1; k <= F::two_adicity; ++k) {
        F w = F::root_of_unity(k);
        F x = w;
        for (size_t i = 1; i < k; ++i) x = x.square();
        ASSERT_EQ(x, -F::one()) << "w^(2^(k-1)) must be -1 for k = " << k;
        ASSERT_EQ(x.square(), F::one());
    }
}

TYPED_TEST(prime_field, canonical_bytes_round_trip_and_rejection) {
    using F = TypeParam;
    rng g(6);
    std::array<uint8_t, F::bytes> le{}, be{};
    for (int i = 0; i < 100; ++i) {
        F a = F::random(g);
        a.to_bytes_le(le);
        a.to_bytes_be(be);
        ASSERT_EQ(F::from_bytes_le(le), a);
        ASSERT_EQ(F::from_bytes_be(be), a);
        for (size_t j = 0; j < F::bytes; ++j) ASSERT_EQ(le[j], be[F::bytes - 1 - j]);
    }
    // p - 1 is accepted, p and p + 1 and all-ones are refused.
    (-F::one()).to_bytes_le(le);
    EXPECT_EQ(F::from_bytes_le(le), -F::one());
    auto encode_le = [&](typename F::repr x) {
        for (size_t i = 0; i < F::bytes; ++i) le[i] = static_cast<uint8_t>(x[i / 8] >> (8 * (i % 8)));
    };
    typename F::repr p = F::modulus;
    encode_le(p);
    try {
        (void)F::from_bytes_le(le, "test value");
        FAIL() << "p was accepted";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::non_canonical);
        EXPECT_NE(std::string(e.what()).find("test value"), std::string::npos);
    }
    p[0] += 1;
    encode_le(p);
    EXPECT_THROW((void)F::from_bytes_le(le), error);
    le.fill(0xff);
    EXPECT_THROW((void)F::from_bytes_le(le), error);
    be.fill(0xff);
    EXPECT_THROW((void)F::from_bytes_be(be), error);
}

TEST(fr, known_constants_match_zkcrypto) {
    // zkcrypto/bls12_381 src/scalar.rs: GENERATOR = 7, ROOT_OF_UNITY = 7^t, both in Montgomery form.
    EXPECT_EQ(fr::from_u64(7).mont,
              (fr::repr{0x0000000efffffff1, 0x17e363d300189c0f, 0xff9c57876f8457b0, 0x351332208fc5a8c4}));
    EXPECT_EQ(fr::two_adic_root.mont,
              (fr::repr{0xb9b58d8c5f0e466a, 0x5b1b4c801819d7ec, 0x0af53ae352a31e64, 0x5bf3adda19e9b27b}));
    EXPECT_EQ(fr::r2, (fr::repr{0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f, 0x0748d9d99f59ff11}));
    EXPECT_EQ(fr::two_adicity, 32u);
    EXPECT_EQ(fr::bits, 255u);
    EXPECT_EQ(fp::bits, 381u);
    EXPECT_EQ(fp::two_adicity, 1u);
}

TEST(fp, hex_constants_and_errors) {
    fp three = fp::from_hex("0x03");
    EXPECT_EQ(three, fp::from_u64(3));
    EXPECT_THROW((void)fp::from_hex("xyz"), error);
    EXPECT_THROW((void)fp::from_hex("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab"),
                 error);  // exactly p
}

}  // namespace
}  // namespace c2lab::ff

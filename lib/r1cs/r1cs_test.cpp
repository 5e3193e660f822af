// r1cs layer: linear-combination fast paths against a naive map-based LC for every
// lc_indexer variant; evaluation; proving_assignment (a*b == c, densities, presize, input
// constraints, recycled vectors); shape_counter; test_constraint_system naming the broken
// constraint; constraint_matrices reproducing a, b, c; the lc_indexer, presize and
// witness_memory flag parsers.
#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"
#include "r1cs/test_constraint_system.hpp"

namespace c2lab::r1cs {
namespace {

static_assert(constraint_system<shape_counter>);
static_assert(constraint_system<proving_assignment<vec_indexer>>);
static_assert(constraint_system<proving_assignment<smallvec_indexer<4>>>);
static_assert(constraint_system<test_constraint_system<>>);
static_assert(constraint_system<constraint_matrices<smallvec_indexer<1>>>);

// The reference: variable -> coefficient in an ordered map.
using naive_lc = std::map<variable, fr>;

template <class I>
naive_lc to_naive(const linear_combination<I>& lc) {
    naive_lc m;
    for (const auto& [i, k] : lc.inputs()) m[variable::input(i)] += k;
    for (const auto& [i, k] : lc.aux()) m[variable::aux(i)] += k;
    return m;
}

template <class I>
void expect_sorted_unique(const I& side) {
    for (size_t j = 1; j < side.size(); ++j) EXPECT_LT(side[j - 1].first, side[j].first) << "at " << j;
}

template <class I>
void expect_same(const linear_combination<I>& lc, const naive_lc& want, const std::string& what) {
    expect_sorted_unique(lc.inputs());
    expect_sorted_unique(lc.aux());
    EXPECT_EQ(lc.size(), want.size()) << what;
    EXPECT_TRUE(to_naive(lc) == want) << what;
}

template <class I>
class indexer_suite : public ::testing::Test {};
using indexer_types = ::testing::Types<vec_indexer, smallvec_indexer<1>, smallvec_indexer<2>, smallvec_indexer<4>>;
TYPED_TEST_SUITE(indexer_suite, indexer_types);

fr small(uint64_t x) { return fr::from_u64(x); }

TYPED_TEST(indexer_suite, in_order_repeated_and_out_of_order_inserts_match_naive) {
    using lc_t = linear_combination<TypeParam>;
    // In order: the append path.
    {
        lc_t lc;
        naive_lc want;
        for (size_t i = 0; i < 20; ++i) {
            lc.add(variable::aux(2 * i), small(i + 1));
            want[variable::aux(2 * i)] += small(i + 1);
        }
        expect_same(lc, want, "in order");
    }
    // Repeated: the add-to-last path.
    {
        lc_t lc = lc_t::zero() + variable::input(3) + variable::input(3) + variable::input(3);
        ASSERT_EQ(lc.inputs().size(), 1u);
        EXPECT_EQ(lc.inputs()[0].second, small(3));
        lc = lc - variable::input(3);
        EXPECT_EQ(lc.inputs()[0].second, small(2));
    }
    // Out of order (descending, then random with repeats): binary-search insert and update.
    {
        lc_t lc;
        naive_lc want;
        for (size_t i = 30; i-- > 0;) {
            lc.add(variable::input(i), small(i + 5));
            want[variable::input(i)] += small(i + 5);
        }
        expect_same(lc, want, "descending");
    }
    rng g(7);
    for (int round = 0; round < 50; ++round) {
        lc_t lc;
        naive_lc want;
        const size_t n = g.below(40), span = 1 + g.below(25);
        for (size_t t = 0; t < n; ++t) {
            variable v = g.below(2) ? variable::input(g.below(span)) : variable::aux(g.below(span));
            fr k = g.below(4) == 0 ? fr::random(g) : small(g.below(3));
            if (g.below(3) == 0) {
                lc = lc - k * v;
                want[v] -= k;
            } else {
                lc = lc + k * v;
                want[v] += k;
            }
        }
        expect_same(lc, want, "random round " + std::to_string(round));
    }
}

TYPED_TEST(indexer_suite, lc_plus_lc_merges_and_scales) {
    using lc_t = linear_combination<TypeParam>;
    rng g(11);
    auto random_lc = [&](size_t lo, size_t hi, size_t n) {
        lc_t lc;
        for (size_t t = 0; t < n; ++t) {
            size_t i = lo + g.below(hi - lo);
            lc.add(g.below(2) ? variable::input(i) : variable::aux(i), fr::random(g));
        }
        return lc;
    };
    auto naive_add = [](naive_lc a, const naive_lc& b, const fr& s) {
        for (const auto& [v, k] : b) a[v] += s * k;
        return a;
    };
    for (int round = 0; round < 40; ++round) {
        // Overlapping ranges (merge), disjoint ranges (append), single terms.
        size_t n1 = g.below(12), n2 = g.below(12);
        lc_t x = random_lc(0, 20, n1);
        lc_t y = round % 3 == 0 ? random_lc(20, 40, n2) : random_lc(0, 20, n2);
        const fr s = fr::random(g);
        expect_same(x + y, naive_add(to_naive(x), to_naive(y), fr::one()), "x + y");
        expect_same(y + x, naive_add(to_naive(y), to_naive(x), fr::one()), "y + x");
        expect_same(x - y, naive_add(to_naive(x), to_naive(y), -fr::one()), "x - y");
        expect_same(x + s * y, naive_add(to_naive(x), to_naive(y), s), "x + s*y");
        expect_same(x - s * y, naive_add(to_naive(x), to_naive(y), -s), "x - s*y");
        lc_t self = x;
        self += self;
        expect_same(self, naive_add(to_naive(x), to_naive(x), fr::one()), "x += x");
        naive_lc scaled;
        for (const auto& [v, k] : to_naive(x)) scaled[v] = k * s;
        expect_same(x * s, scaled, "x * s");
    }
}

TYPED_TEST(indexer_suite, evaluate_matches_naive_sum) {
    using lc_t = linear_combination<TypeParam>;
    rng g(13);
    // Values and coefficients as the gadgets make them, beside random ones: bits (the evaluation
    // skips the product of a 0 or 1 value), -1, and powers of two (a packing's weights).
    auto value = [&] {
        switch (g.below(4)) {
            case 0: return fr::zero();
            case 1: return fr::one();
            case 2: return -fr::one();
            default: return fr::random(g);
        }
    };
    std::vector<fr> in(10), aux(30);
    for (auto& v : in) v = value();
    for (auto& v : aux) v = value();
    for (int round = 0; round < 60; ++round) {
        lc_t lc;
        for (size_t t = g.below(15); t-- > 0;) {
            fr k;
            switch (g.below(5)) {
                case 0: k = fr::one(); break;
                case 1: k = -fr::one(); break;
                case 2: k = fr::from_u64(uint64_t{1} << g.below(64)); break;
                case 3: k = g.below(4) == 0 ? fr::zero() : fr::random(g); break;
                default: k = fr::random(g); break;
            }
            lc.add(g.below(2) ? variable::input(g.below(10)) : variable::aux(g.below(30)), k);
        }
        fr want = fr::zero();
        for (const auto& [v, k] : to_naive(lc)) want += k * (v.is_input() ? in[v.index] : aux[v.index]);
        EXPECT_EQ(lc.evaluate(in, aux), want) << "round " << round;
    }
    // One hand-checked value: 2*in1 + 3*aux2 - aux0 with in1 = 5, aux2 = 7, aux0 = 4 -> 27.
    std::vector<fr> i2 = {fr::one(), small(5)}, a2 = {small(4), small(0), small(7)};
    lc_t lc = lc_t::zero() + small(2) * variable::input(1) + small(3) * variable::aux(2) - variable::aux(0);
    EXPECT_EQ(lc.evaluate(i2, a2), small(27));
}

TYPED_TEST(indexer_suite, proving_assignment_satisfies_hash_chain) {
    const hash_chain circuit{25, small(9), small(3)};
    proving_assignment<TypeParam> pa;
    variable out = circuit.synthesize(pa);
    pa.enforce_input_constraints();
    EXPECT_EQ(out, variable::input(1));
    EXPECT_EQ(pa.input_assignment()[1], hash_chain::output(small(3), small(9), 25));
    ASSERT_EQ(pa.num_constraints(), 25u + 2u);
    ASSERT_EQ(pa.a().size(), pa.num_constraints());
    for (size_t i = 0; i < pa.num_constraints(); ++i) EXPECT_EQ(pa.a()[i] * pa.b()[i], pa.c()[i]) << "constraint " << i;
    // The two input constraints: a = input value, b = c = 0.
    EXPECT_EQ(pa.a()[25], fr::one());
    EXPECT_EQ(pa.a()[26], pa.input_assignment()[1]);
    EXPECT_TRUE(pa.b()[26].is_zero() && pa.c()[26].is_zero());
    EXPECT_THROW(pa.enforce_input_constraints(), error);
    EXPECT_THROW(pa.alloc_input([] { return "late"; }, [] { return fr::one(); }), error);

    // A broken chain is caught by a*b != c (the checks above can fail).
    proving_assignment<TypeParam> bad;
    const variable x = bad.alloc([] { return "x"; }, [] { return small(3); });
    const variable y = bad.alloc([] { return "y"; }, [] { return small(10); });  // should be 9
    bad.enforce([] { return "sq"; }, [&](auto lc) { return lc + x; }, [&](auto lc) { return lc + x; },
                [&](auto lc) { return lc + y; });
    EXPECT_NE(bad.a()[0] * bad.b()[0], bad.c()[0]);
}

// A hand-made circuit with known densities.
//   inputs: one, in1 = 2, in2 = 3; aux: a0 = 5, a1 = 1, a2 = 49, a3 = 15
//   c0: (a0 + in1) * (a1 + 2 in2) = a2
//   c1: (3 one) * (a0 + 0 a3) = a3          a zero coefficient sets no bit
//   c2: (a1 - a1) * (one) = 0               a cancelled term sets no bit
template <class CS>
void hand_made(CS& cs) {
    const variable one = CS::one();
    const variable in1 = cs.alloc_input([] { return "in1"; }, [] { return small(2); });
    const variable in2 = cs.alloc_input([] { return "in2"; }, [] { return small(3); });
    const variable a0 = cs.alloc([] { return "a0"; }, [] { return small(5); });
    const variable a1 = cs.alloc([] { return "a1"; }, [] { return small(1); });
    const variable a2 = cs.alloc([] { return "a2"; }, [] { return small(49); });
    const variable a3 = cs.alloc([] { return "a3"; }, [] { return small(15); });
    cs.enforce([] { return "c0"; }, [&](auto lc) { return lc + a0 + in1; },
               [&](auto lc) { return lc + a1 + small(2) * in2; }, [&](auto lc) { return lc + a2; });
    cs.enforce([] { return "c1"; }, [&](auto lc) { return lc + small(3) * one; },
               [&](auto lc) { return lc + a0 + fr::zero() * a3; }, [&](auto lc) { return lc + a3; });
    cs.enforce([] { return "c2"; }, [&](auto lc) { return lc + a1 - a1; }, [&](auto lc) { return lc + one; },
               [&](auto lc) { return lc; });
}

std::vector<bool> bits(const density_bitmap& d) {
    std::vector<bool> out;
    for (size_t i = 0; i < d.size(); ++i) out.push_back(d.test(i));
    return out;
}

TYPED_TEST(indexer_suite, densities_on_hand_made_circuit) {
    proving_assignment<TypeParam> pa;
    hand_made(pa);
    EXPECT_EQ(bits(pa.a_aux_density()), (std::vector<bool>{true, false, false, false}));
    EXPECT_EQ(bits(pa.b_input_density()), (std::vector<bool>{true, false, true}));
    EXPECT_EQ(bits(pa.b_aux_density()), (std::vector<bool>{true, true, false, false}));
    EXPECT_EQ(pa.a(), (std::vector<fr>{small(7), small(3), fr::zero()}));
    EXPECT_EQ(pa.b(), (std::vector<fr>{small(7), small(5), fr::one()}));
    EXPECT_EQ(pa.c(), (std::vector<fr>{small(49), small(15), fr::zero()}));
    const density_bitmap a_aux = pa.a_aux_density(), b_in = pa.b_input_density(), b_aux = pa.b_aux_density();
    pa.enforce_input_constraints();  // changes no density
    EXPECT_EQ(pa.a_aux_density(), a_aux);
    EXPECT_EQ(pa.b_input_density(), b_in);
    EXPECT_EQ(pa.b_aux_density(), b_aux);
    EXPECT_EQ(pa.num_constraints(), 6u);
    EXPECT_EQ(std::vector<fr>(pa.a().begin() + 3, pa.a().end()), (std::vector<fr>{fr::one(), small(2), small(3)}));
}

// Every vector and density of two assignments.
template <class Indexer>
void expect_same_assignment(const proving_assignment<Indexer>& x, const proving_assignment<Indexer>& y) {
    EXPECT_EQ(x.a(), y.a());
    EXPECT_EQ(x.b(), y.b());
    EXPECT_EQ(x.c(), y.c());
    EXPECT_EQ(x.input_assignment(), y.input_assignment());
    EXPECT_EQ(x.aux_assignment(), y.aux_assignment());
    EXPECT_EQ(x.a_aux_density(), y.a_aux_density());
    EXPECT_EQ(x.b_input_density(), y.b_input_density());
    EXPECT_EQ(x.b_aux_density(), y.b_aux_density());
}

TYPED_TEST(indexer_suite, presize_on_off_and_prefault_give_identical_assignments) {
    const hash_chain circuit{40, small(4), small(12)};
    shape_counter shape;
    circuit.synthesize(shape);
    proving_assignment<TypeParam> off({}, presize_mode::off);
    proving_assignment<TypeParam> on(shape.hint(), presize_mode::on);
    // the population started for this small reservation too (no minimum size)
    proving_assignment<TypeParam> prefault(shape.hint(), presize_mode::prefault, {}, 0);
    for (auto* pa : {&on, &prefault}) {
        EXPECT_GE(pa->a().capacity(), shape.hint().constraints);
        // a, b, c at the prover's domain size (padded there for h without a reallocation).
        EXPECT_GE(pa->c().capacity(), std::bit_ceil(shape.hint().constraints));
        EXPECT_GE(pa->aux_assignment().capacity(), 40u);
    }
    for (auto* pa : {&off, &on, &prefault}) {
        circuit.synthesize(*pa);
        pa->enforce_input_constraints();
    }
    expect_same_assignment(on, off);
    expect_same_assignment(prefault, off);
    EXPECT_EQ(on.a().size(), shape.hint().constraints);  // the hint was exact
    // Its vectors given back while the population may still run (take_buffers stops it first).
    assignment_buffers kept = std::move(prefault).take_buffers();
    EXPECT_EQ(kept.a.size(), shape.hint().constraints);
}

// witness_memory=reuse: an assignment built on the vectors of another (a larger circuit's, so
// they hold stale values past the new sizes) is the fresh one, in the same memory.
TYPED_TEST(indexer_suite, recycled_buffers_give_the_fresh_assignment_in_the_same_memory) {
    const hash_chain big{60, small(5), small(9)}, circuit{40, small(4), small(12)};
    shape_counter shape;
    circuit.synthesize(shape);
    proving_assignment<TypeParam> first(shape.hint(), presize_mode::on);
    big.synthesize(first);
    first.enforce_input_constraints();
    const fr* a_mem = first.a().data();
    const fr* aux_mem = first.aux_assignment().data();
    assignment_buffers kept = std::move(first).take_buffers();
    EXPECT_TRUE(first.a().empty());
    ASSERT_EQ(kept.a.data(), a_mem);

    proving_assignment<TypeParam> fresh(shape.hint(), presize_mode::on);
    proving_assignment<TypeParam> reused(shape.hint(), presize_mode::on, std::move(kept));
    EXPECT_EQ(reused.num_inputs(), 1u);  // emptied, then input 0 = one as always
    EXPECT_EQ(reused.num_constraints(), 0u);
    for (auto* pa : {&fresh, &reused}) {
        circuit.synthesize(*pa);
        pa->enforce_input_constraints();
    }
    EXPECT_EQ(reused.a().data(), a_mem);  // no new allocation: the hint fits the old capacity
    EXPECT_EQ(reused.aux_assignment().data(), aux_mem);
    expect_same_assignment(reused, fresh);
}

TYPED_TEST(indexer_suite, matrices_reproduce_a_b_c) {
    for (int which = 0; which < 2; ++which) {
        proving_assignment<TypeParam> pa;
        constraint_matrices<TypeParam> m;
        if (which == 0) {
            hash_chain{17, small(2), small(5)}.synthesize(pa);
            hash_chain{17, small(2), std::nullopt}.synthesize(m);  // no witness needed
        } else {
            hand_made(pa);
            hand_made(m);
        }
        pa.enforce_input_constraints();
        m.enforce_input_constraints();
        ASSERT_EQ(m.num_constraints(), pa.num_constraints());
        EXPECT_EQ(m.num_inputs(), pa.num_inputs());
        EXPECT_EQ(m.num_aux(), pa.num_aux());
        for (size_t i = 0; i < m.num_constraints(); ++i) {
            EXPECT_EQ(evaluate_row(m.a().row(i), pa.input_assignment(), pa.aux_assignment()), pa.a()[i]) << i;
            EXPECT_EQ(evaluate_row(m.b().row(i), pa.input_assignment(), pa.aux_assignment()), pa.b()[i]) << i;
            EXPECT_EQ(evaluate_row(m.c().row(i), pa.input_assignment(), pa.aux_assignment()), pa.c()[i]) << i;
        }
        // The input-constraint rows: A = input_i, B = C = empty.
        const size_t first = m.num_constraints() - m.num_inputs();
        for (size_t i = 0; i < m.num_inputs(); ++i) {
            auto row = m.a().row(first + i);
            ASSERT_EQ(row.size(), 1u);
            EXPECT_EQ(row[0].first, variable::input(i));
            EXPECT_EQ(row[0].second, fr::one());
            EXPECT_TRUE(m.b().row(first + i).empty());
            EXPECT_TRUE(m.c().row(first + i).empty());
        }
    }
}

// vec grows as Rust's Vec (bellperson's linear combinations): 4 terms at the first
// allocation, then at least twice the capacity; appending a longer list takes what it needs.
TEST(vec_indexer, grows_as_rusts_vec) {
    vec_indexer v;
    EXPECT_EQ(v.terms().capacity(), 0u);
    v.add(3, fr::one());
    EXPECT_EQ(v.terms().capacity(), 4u);
    for (size_t i = 4; i < 7; ++i) v.add(i, fr::one());
    EXPECT_EQ(v.terms().capacity(), 4u);
    v.add(9, fr::one());
    EXPECT_EQ(v.terms().capacity(), 8u);
    v.add(1, fr::one());  // an insert before the end grows as std::vector's insert does
    EXPECT_GE(v.terms().capacity(), 6u);
    vec_indexer six;  // indices 10 .. 15
    for (size_t i = 10; i < 16; ++i) six.add(i, fr::one());
    vec_indexer w;
    w.add_all(six, nullptr);  // appended to an empty one: max(needed 6, twice 0, 4)
    EXPECT_EQ(w.terms().capacity(), 6u);
    vec_indexer one_term;
    one_term.add(0, fr::one());
    one_term.add_all(six, nullptr);  // appended: max(needed 7, twice 4, 4)
    EXPECT_EQ(one_term.size(), 7u);
    EXPECT_EQ(one_term.terms().capacity(), 8u);
}

TEST(shape_counter, counts_match_proving_assignment_and_calls_nothing) {
    for (size_t steps : {1u, 2u, 100u}) {
        shape_counter shape;
        hash_chain{steps, small(1), std::nullopt}.synthesize(shape);  // a value call would throw
        proving_assignment<vec_indexer> pa;
        hash_chain{steps, small(1), small(2)}.synthesize(pa);
        EXPECT_EQ(shape.hint().constraints, steps + 2);
        pa.enforce_input_constraints();
        shape.enforce_input_constraints();
        EXPECT_EQ(shape.num_constraints(), pa.num_constraints());
        EXPECT_EQ(shape.num_inputs(), pa.num_inputs());
        EXPECT_EQ(shape.num_aux(), pa.num_aux());
        EXPECT_EQ(shape.hint(), (capacity_hint{pa.num_constraints(), pa.num_aux(), pa.num_inputs()}));
    }
    // Neither names nor values nor linear combinations are evaluated by the counter; the
    // proving assignment evaluates values and LCs but never names.
    int names = 0, values = 0, lcs = 0;
    auto name = [&] { ++names; return std::string("n"); };
    auto value = [&] { ++values; return fr::one(); };
    auto run = [&](auto& cs) {
        cs.push_namespace(name);
        variable v = cs.alloc(name, value);
        cs.alloc_input(name, value);
        cs.enforce(name, [&](auto lc) { ++lcs; return lc + v; }, [&](auto lc) { ++lcs; return lc + v; },
                   [&](auto lc) { ++lcs; return lc + v; });
        cs.pop_namespace();
    };
    shape_counter shape;
    run(shape);
    EXPECT_EQ(names + values + lcs, 0);
    proving_assignment<vec_indexer> pa;
    run(pa);
    EXPECT_EQ(names, 0);
    EXPECT_EQ(values, 2);
    EXPECT_EQ(lcs, 3);
    test_constraint_system<> t;
    run(t);
    EXPECT_EQ(names, 4);
}

TEST(test_constraint_system, names_the_first_unsatisfied_constraint) {
    test_constraint_system<> cs;
    hash_chain{6, small(3), small(2)}.synthesize(cs);
    EXPECT_EQ(cs.num_constraints(), 6u);
    EXPECT_EQ(cs.num_inputs(), 2u);
    EXPECT_EQ(cs.num_aux(), 6u);
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
    EXPECT_EQ(cs.constraints()[4].name, "step 4/square");
    // Break x_3 (aux 3): step 2 (its C) and step 3 (its A and B) fail; step 2 comes first.
    cs.set_aux(3, cs.aux_assignment()[3] + fr::one());
    EXPECT_FALSE(cs.is_satisfied());
    EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("step 2/square"));
    // Break the public output instead.
    test_constraint_system<smallvec_indexer<2>> cs2;
    hash_chain{6, small(3), small(2)}.synthesize(cs2);
    cs2.set_input(1, fr::zero());
    EXPECT_EQ(cs2.which_is_unsatisfied(), std::optional<std::string>("step 5/square"));
}

TEST(test_constraint_system, nested_namespaces_and_duplicate_names) {
    test_constraint_system<> cs;
    {
        namespace_guard outer(cs, [] { return "outer"; });
        namespace_guard inner(cs, [] { return std::string("inner"); });
        cs.enforce([] { return "k"; }, [](auto lc) { return lc; }, [](auto lc) { return lc; },
                   [](auto lc) { return lc; });
    }
    cs.enforce([] { return "k"; }, [](auto lc) { return lc; }, [](auto lc) { return lc; }, [](auto lc) { return lc; });
    EXPECT_EQ(cs.constraints()[0].name, "outer/inner/k");
    EXPECT_EQ(cs.constraints()[1].name, "k");
    EXPECT_THROW(cs.enforce([] { return "k"; }, [](auto lc) { return lc; }, [](auto lc) { return lc; },
                            [](auto lc) { return lc; }),
                 error);
    EXPECT_THROW(cs.pop_namespace(), error);
    EXPECT_TRUE(cs.is_satisfied());
}

// f throws c2lab::error of kind bad_input whose message holds `needle`.
void expect_bad_input(const std::function<void()>& f, const std::string& needle) {
    try {
        f();
        ADD_FAILURE() << "no error";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(flags, with_lc_indexer_maps_every_name_and_refuses_others) {
    for (std::string_view name : lc_indexer_names) {
        std::string_view got = with_lc_indexer(name, [](auto tag) { return decltype(tag)::type::name; });
        EXPECT_EQ(got, name);
    }
    EXPECT_TRUE((with_lc_indexer("vec", [](auto tag) { return std::is_same_v<typename decltype(tag)::type, vec_indexer>; })));
    EXPECT_TRUE((with_lc_indexer("smallvec2", [](auto tag) {
        return std::is_same_v<typename decltype(tag)::type, smallvec_indexer<2>>;
    })));
    EXPECT_EQ(with_lc_indexer("smallvec4", [](auto tag) { return decltype(tag)::type::inline_capacity; }), 4u);
    // Runs a synthesis through the switch: every variant gives the same a.
    std::vector<fr> ref;
    for (std::string_view name : lc_indexer_names) {
        std::vector<fr> a = with_lc_indexer(name, [](auto tag) {
            proving_assignment<typename decltype(tag)::type> pa;
            hash_chain{8, small(5), small(6)}.synthesize(pa);
            return pa.a();
        });
        if (ref.empty()) ref = a;
        EXPECT_EQ(a, ref) << name;
    }
    expect_bad_input([] { with_lc_indexer("bogus", [](auto) { return 0; }); }, "'bogus'");
    EXPECT_THROW(with_lc_indexer("", [](auto) { return 0; }), error);
    EXPECT_THROW(with_lc_indexer("smallvec3", [](auto) { return 0; }), error);
}

TEST(flags, witness_memory_parses_fresh_and_reuse) {
    EXPECT_EQ(parse_witness_memory("fresh"), witness_memory::fresh);
    EXPECT_EQ(parse_witness_memory("reuse"), witness_memory::reuse);
    EXPECT_EQ(to_string(witness_memory::reuse), "reuse");
    EXPECT_EQ(to_string(witness_memory::fresh), "fresh");
    expect_bad_input([] { parse_witness_memory("pooled"); }, "'pooled'");
    expect_bad_input([] { parse_witness_memory("pooled"); }, "fresh or reuse");
}

TEST(flags, presize_parses_on_off_and_prefault) {
    EXPECT_EQ(parse_presize("on"), presize_mode::on);
    EXPECT_EQ(parse_presize("off"), presize_mode::off);
    EXPECT_EQ(parse_presize("prefault"), presize_mode::prefault);
    for (presize_mode m : {presize_mode::off, presize_mode::on, presize_mode::prefault})
        EXPECT_EQ(parse_presize(to_string(m)), m);
    expect_bad_input([] { parse_presize("bogus"); }, "bogus");
    expect_bad_input([] { parse_presize("bogus"); }, "off, on or prefault");
}

}  // namespace
}  // namespace c2lab::r1cs

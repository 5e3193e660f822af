// Boolean gadgets (bellpepper-core boolean.rs layout): allocated bits and their ops, the
// constant folding of boolean ops, sha256_ch / sha256_maj over every mix of constant,
// allocated and negated operands, enforce_equal, bit decompositions of u64 and Fr, the
// num bit gadgets (to_bits_le, to_bits_le_strict, pack_bits), multipack. Every gadget is
// checked against the native value, for satisfaction, for a named unsatisfied constraint
// after a tampered witness, and for the same count under shape_counter (no values).
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <type_traits>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "gadgets/boolean.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/num.hpp"
#include "r1cs/test_constraint_system.hpp"

namespace c2lab::gadgets {
namespace {

using test_cs = r1cs::test_constraint_system<>;

fr fr_bit(bool b) { return b ? fr::one() : fr::zero(); }

// Flips every aux value in turn (x -> x + 1) and expects a named unsatisfied constraint.
void expect_every_aux_is_constrained(const test_cs& cs) {
    for (size_t i = 0; i < cs.num_aux(); ++i) {
        test_cs t = cs;
        t.set_aux(i, t.aux_assignment()[i] + fr::one());
        auto which = t.which_is_unsatisfied();
        EXPECT_TRUE(which.has_value()) << "aux " << i << " is not constrained";
        if (which) {
            EXPECT_FALSE(which->empty());
        }
    }
}

TEST(allocated_bit, values_constraint_and_tamper) {
    for (bool v : {false, true}) {
        test_cs cs;
        allocated_bit b = allocated_bit::alloc(cs, v);
        EXPECT_EQ(b.value, v);
        EXPECT_EQ(cs.aux_assignment()[b.var.index], fr_bit(v));
        EXPECT_EQ(cs.num_constraints(), 1u);
        EXPECT_TRUE(cs.is_satisfied());
        EXPECT_EQ(cs.constraints()[0].name, "boolean constraint");
        cs.set_aux(b.var.index, fr::from_u64(2));
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("boolean constraint"));
    }
}

TEST(allocated_bit, missing_witness_throws_in_the_test_system) {
    test_cs cs;
    EXPECT_THROW(allocated_bit::alloc(cs, std::nullopt), error);
    r1cs::shape_counter sc;
    allocated_bit::alloc(sc, std::nullopt);
    EXPECT_EQ(sc.num_constraints(), 1u);
    EXPECT_EQ(sc.num_aux(), 1u);
}

TEST(allocated_bit, alloc_conditionally) {
    for (bool must : {false, true})
        for (bool v : {false, true}) {
            test_cs cs;
            allocated_bit m = allocated_bit::alloc(cs, must);
            r1cs::namespace_guard ns(cs, [] { return "conditional"; });
            allocated_bit b = allocated_bit::alloc_conditionally(cs, v, m);
            EXPECT_EQ(b.value, v);
            EXPECT_EQ(cs.is_satisfied(), !(must && v)) << must << v;
            if (must && v) {
                EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("conditional/boolean constraint"));
            }
        }
}

TEST(allocated_bit, binary_ops_truth_tables) {
    struct op {
        const char* name;
        bool (*f)(bool, bool);
        allocated_bit (*g)(test_cs&, const allocated_bit&, const allocated_bit&);
    };
    const op ops[] = {
        {"xor constraint", [](bool a, bool b) { return a != b; },
         [](test_cs& cs, const allocated_bit& a, const allocated_bit& b) { return bit_xor(cs, a, b); }},
        {"and constraint", [](bool a, bool b) { return a && b; },
         [](test_cs& cs, const allocated_bit& a, const allocated_bit& b) { return bit_and(cs, a, b); }},
        {"and not constraint", [](bool a, bool b) { return a && !b; },
         [](test_cs& cs, const allocated_bit& a, const allocated_bit& b) { return bit_and_not(cs, a, b); }},
        {"nor constraint", [](bool a, bool b) { return !a && !b; },
         [](test_cs& cs, const allocated_bit& a, const allocated_bit& b) { return bit_nor(cs, a, b); }},
    };
    for (const auto& o : ops)
        for (bool a : {false, true})
            for (bool b : {false, true}) {
                test_cs cs;
                allocated_bit x, y;
                {
                    r1cs::namespace_guard ns(cs, [] { return "a"; });
                    x = allocated_bit::alloc(cs, a);
                }
                {
                    r1cs::namespace_guard ns(cs, [] { return "b"; });
                    y = allocated_bit::alloc(cs, b);
                }
                allocated_bit r = o.g(cs, x, y);
                EXPECT_EQ(r.value, o.f(a, b)) << o.name << a << b;
                EXPECT_EQ(cs.aux_assignment()[r.var.index], fr_bit(o.f(a, b)));
                EXPECT_EQ(cs.num_constraints(), 3u);
                EXPECT_TRUE(cs.is_satisfied());
                cs.set_aux(r.var.index, fr_bit(!o.f(a, b)));
                EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>(o.name));
            }
}

// The six kinds of boolean operand: constant false/true, allocated 0/1, negated 0/1.
struct operand {
    int kind;  // 0 constant, 1 is, 2 negated
    bool bit;  // the constant, or the allocated bit's value
    bool value() const { return kind == 2 ? !bit : bit; }
};
std::vector<operand> all_operands() {
    std::vector<operand> v;
    for (int k = 0; k < 3; ++k)
        for (bool b : {false, true}) v.push_back({k, b});
    return v;
}
template <class CS>
boolean make(CS& cs, const operand& o, const char* name) {
    if (o.kind == 0) return boolean::constant(o.bit);
    r1cs::namespace_guard ns(cs, [name] { return name; });
    std::optional<bool> v;
    if constexpr (std::is_same_v<CS, test_cs>) v = o.bit;
    boolean b(allocated_bit::alloc(cs, v));
    return o.kind == 2 ? b.negated() : b;
}

TEST(boolean, not_and_value_and_lc) {
    test_cs cs;
    boolean t = boolean::constant(true);
    EXPECT_EQ(t.negated().value(), false);
    boolean a(allocated_bit::alloc(cs, true));
    EXPECT_EQ(a.value(), true);
    EXPECT_EQ(a.negated().value(), false);
    EXPECT_EQ(a.negated().negated().get_kind(), boolean::kind::is);
    auto lc = a.negated().lc<test_cs::lc_type>(fr::from_u64(3));
    // 3 * one - 3 * a = 0 for a = 1
    EXPECT_EQ(lc.evaluate(cs.input_assignment(), cs.aux_assignment()), fr::zero());
}

template <class F, class G>
void check_binary(const char* what, F gadget, G native, size_t general_cost) {
    for (const auto& oa : all_operands())
        for (const auto& ob : all_operands()) {
            test_cs cs;
            boolean a = make(cs, oa, "a"), b = make(cs, ob, "b");
            const size_t before = cs.num_constraints();
            boolean r = gadget(cs, a, b);
            const size_t cost = cs.num_constraints() - before;
            SCOPED_TRACE(std::string(what) + " kinds " + std::to_string(oa.kind) + std::to_string(ob.kind) +
                         " bits " + std::to_string(oa.bit) + std::to_string(ob.bit));
            EXPECT_EQ(r.value(), native(oa.value(), ob.value()));
            EXPECT_TRUE(cs.is_satisfied());
            EXPECT_EQ(cost, (oa.kind == 0 || ob.kind == 0) ? 0u : general_cost);
            if (!r.is_constant() && cost > 0) {
                cs.set_aux(r.bit().var.index, cs.aux_assignment()[r.bit().var.index] + fr::one());
                EXPECT_TRUE(cs.which_is_unsatisfied().has_value());
            }
            // the same shape without values
            r1cs::shape_counter sc;
            boolean sa = make(sc, oa, "a"), sb = make(sc, ob, "b");
            (void)gadget(sc, sa, sb);
            EXPECT_EQ(sc.num_constraints(), before + cost);
        }
}

TEST(boolean, xor_and_or_fold_constants_and_match) {
    check_binary("xor", [](auto& cs, const boolean& a, const boolean& b) { return bit_xor(cs, a, b); },
                 [](bool a, bool b) { return a != b; }, 1);
    check_binary("and", [](auto& cs, const boolean& a, const boolean& b) { return bit_and(cs, a, b); },
                 [](bool a, bool b) { return a && b; }, 1);
    check_binary("or", [](auto& cs, const boolean& a, const boolean& b) { return bit_or(cs, a, b); },
                 [](bool a, bool b) { return a || b; }, 1);
}

template <class F, class G>
void check_ternary(const char* what, F gadget, G native) {
    for (const auto& oa : all_operands())
        for (const auto& ob : all_operands())
            for (const auto& oc : all_operands()) {
                test_cs cs;
                boolean a = make(cs, oa, "a"), b = make(cs, ob, "b"), c = make(cs, oc, "c");
                const size_t before = cs.num_constraints();
                boolean r;
                {
                    r1cs::namespace_guard ns(cs, [] { return "op"; });
                    r = gadget(cs, a, b, c);
                }
                SCOPED_TRACE(std::string(what) + " kinds " + std::to_string(oa.kind) + std::to_string(ob.kind) +
                             std::to_string(oc.kind) + " bits " + std::to_string(oa.bit) + std::to_string(ob.bit) +
                             std::to_string(oc.bit));
                EXPECT_EQ(r.value(), native(oa.value(), ob.value(), oc.value()));
                EXPECT_TRUE(cs.is_satisfied());
                if (oa.kind != 0 && ob.kind != 0 && oc.kind != 0) {
                    // no constant: the general constraint(s)
                    EXPECT_EQ(cs.num_constraints() - before, std::string(what) == "ch" ? 1u : 2u);
                }
                if (cs.num_constraints() > before) {
                    const size_t last = cs.num_aux() - 1;
                    test_cs t = cs;
                    t.set_aux(last, t.aux_assignment()[last] + fr::one());
                    EXPECT_TRUE(t.which_is_unsatisfied().has_value());
                }
                r1cs::shape_counter sc;
                boolean sa = make(sc, oa, "a"), sb = make(sc, ob, "b"), scc = make(sc, oc, "c");
                (void)gadget(sc, sa, sb, scc);
                EXPECT_EQ(sc.num_constraints(), cs.num_constraints());
                EXPECT_EQ(sc.num_aux(), cs.num_aux());
            }
}

TEST(boolean, sha256_ch_every_operand_mix) {
    check_ternary("ch", [](auto& cs, const boolean& a, const boolean& b, const boolean& c) { return sha256_ch(cs, a, b, c); },
                  [](bool a, bool b, bool c) { return (a && b) != (!a && c); });
}

TEST(boolean, sha256_maj_every_operand_mix) {
    check_ternary("maj",
                  [](auto& cs, const boolean& a, const boolean& b, const boolean& c) { return sha256_maj(cs, a, b, c); },
                  [](bool a, bool b, bool c) { return ((a && b) != (a && c)) != (b && c); });
}

TEST(boolean, enforce_equal_every_operand_mix) {
    for (const auto& oa : all_operands())
        for (const auto& ob : all_operands()) {
            SCOPED_TRACE("kinds " + std::to_string(oa.kind) + std::to_string(ob.kind) + " bits " +
                         std::to_string(oa.bit) + std::to_string(ob.bit));
            test_cs cs;
            boolean a = make(cs, oa, "a"), b = make(cs, ob, "b");
            const bool equal = oa.value() == ob.value();
            if (oa.kind == 0 && ob.kind == 0) {
                if (equal)
                    EXPECT_NO_THROW(enforce_equal(cs, [] { return "eq"; }, a, b));
                else
                    EXPECT_THROW(enforce_equal(cs, [] { return "eq"; }, a, b), error);
                continue;
            }
            enforce_equal(cs, [] { return "eq"; }, a, b);
            auto which = cs.which_is_unsatisfied();
            EXPECT_EQ(!which.has_value(), equal);
            if (which) {
                EXPECT_EQ(which->rfind("eq/enforce equal", 0), 0u) << *which;
            }
        }
}

TEST(boolean, u64_into_boolean_vec_le) {
    rng g(11);
    for (uint64_t v : {uint64_t{0}, ~uint64_t{0}, uint64_t{1} << 63, g(), g()}) {
        test_cs cs;
        auto bits = u64_into_boolean_vec_le(cs, v);
        ASSERT_EQ(bits.size(), 64u);
        for (size_t i = 0; i < 64; ++i) EXPECT_EQ(bits[i].value(), ((v >> i) & 1) != 0);
        EXPECT_EQ(cs.num_constraints(), 64u);
        EXPECT_TRUE(cs.is_satisfied());
        EXPECT_EQ(cs.constraints()[5].name, "bit 5/boolean constraint");
        cs.set_aux(7, fr::from_u64(2));
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("bit 7/boolean constraint"));
    }
}

TEST(boolean, field_into_allocated_bits_le) {
    rng g(12);
    std::vector<fr> values = {fr::zero(), fr::one(), -fr::one(), fr::random(g), fr::random(g)};
    for (const fr& v : values) {
        test_cs cs;
        auto bits = field_into_allocated_bits_le(cs, v);
        ASSERT_EQ(bits.size(), 255u);
        fr::repr x = v.to_canonical();
        for (size_t i = 0; i < 255; ++i) EXPECT_EQ(bits[i].value, ((x[i / 64] >> (i % 64)) & 1) != 0) << i;
        EXPECT_TRUE(cs.is_satisfied());
    }
}

TEST(boolean, bytes_into_boolean_vec_be_and_reverse_bit_numbering) {
    const std::vector<uint8_t> bytes = {0x80, 0x01, 0xa5};
    test_cs cs;
    auto bits = bytes_into_boolean_vec_be(cs, std::span<const uint8_t>(bytes), 0);
    ASSERT_EQ(bits.size(), 24u);
    EXPECT_EQ(bits[0].value(), true);
    EXPECT_EQ(bits[1].value(), false);
    EXPECT_EQ(bits[15].value(), true);
    EXPECT_EQ(bits[8].value(), false);
    EXPECT_TRUE(cs.is_satisfied());
    auto rev = reverse_bit_numbering(bits);
    EXPECT_EQ(rev[7].value(), true);
    EXPECT_EQ(rev[8].value(), true);
    // a partial byte is padded with constant false before the reversal
    std::vector<boolean> nine(9, boolean::constant(true));
    auto r9 = reverse_bit_numbering(nine);
    ASSERT_EQ(r9.size(), 16u);
    for (size_t i = 8; i < 15; ++i) EXPECT_EQ(r9[i].value(), false) << i;
    EXPECT_EQ(r9[15].value(), true);
    r1cs::shape_counter sc;
    EXPECT_EQ(bytes_into_boolean_vec_be(sc, std::nullopt, 24).size(), 24u);
    EXPECT_EQ(sc.num_constraints(), 24u);
}

TEST(num, to_bits_le_matches_value_and_costs_256) {
    rng g(13);
    std::vector<fr> values = {fr::zero(), fr::one(), -fr::one(), fr::random(g), fr::random(g)};
    for (const fr& v : values) {
        test_cs cs;
        allocated_num n = allocated_num::alloc(cs, [] { return "n"; }, v);
        auto bits = n.to_bits_le(cs);
        ASSERT_EQ(bits.size(), 255u);
        fr::repr x = v.to_canonical();
        for (size_t i = 0; i < 255; ++i) EXPECT_EQ(bits[i].value(), ((x[i / 64] >> (i % 64)) & 1) != 0) << i;
        EXPECT_EQ(cs.num_constraints(), 256u);
        EXPECT_TRUE(cs.is_satisfied());
        expect_every_aux_is_constrained(cs);
    }
    r1cs::shape_counter sc;
    allocated_num n = allocated_num::alloc(sc, [] { return "n"; }, std::nullopt);
    (void)n.to_bits_le(sc);
    EXPECT_EQ(sc.num_constraints(), 256u);
}

// The bits of x + r fit in 255 bits for a small x: the plain decomposition accepts them,
// the strict one does not.
TEST(num, to_bits_le_strict_rejects_the_non_canonical_decomposition) {
    rng g(14);
    std::vector<fr> values = {fr::zero(), fr::one(), -fr::one(), fr::from_u64(5), fr::random(g), fr::random(g)};
    size_t strict_cost = 0;
    for (const fr& v : values) {
        test_cs cs;
        allocated_num n = allocated_num::alloc(cs, [] { return "n"; }, v);
        auto bits = n.to_bits_le_strict(cs);
        ASSERT_EQ(bits.size(), 255u);
        fr::repr x = v.to_canonical();
        for (size_t i = 0; i < 255; ++i) EXPECT_EQ(bits[i].value(), ((x[i / 64] >> (i % 64)) & 1) != 0) << i;
        EXPECT_TRUE(cs.is_satisfied());
        if (strict_cost == 0) strict_cost = cs.num_constraints();
        EXPECT_EQ(cs.num_constraints(), strict_cost);
        r1cs::shape_counter sc;
        allocated_num sn = allocated_num::alloc(sc, [] { return "n"; }, std::nullopt);
        (void)sn.to_bits_le_strict(sc);
        EXPECT_EQ(sc.num_constraints(), strict_cost);
    }
    std::cout << "to_bits_le_strict: " << strict_cost << " constraints\n";

    // 5 + r as bits (255 of them)
    const fr::repr r = fr::modulus;
    fr::repr bad = r;
    bad[0] += 5;  // no carry: r's low limb is 1
    auto set_bits = [&](test_cs& cs, const std::vector<boolean>& bits) {
        for (size_t i = 0; i < 255; ++i)
            cs.set_aux(bits[i].bit().var.index, fr_bit(((bad[i / 64] >> (i % 64)) & 1) != 0));
    };
    {
        test_cs cs;
        allocated_num n = allocated_num::alloc(cs, [] { return "n"; }, fr::from_u64(5));
        auto bits = n.to_bits_le(cs);
        set_bits(cs, bits);
        EXPECT_TRUE(cs.is_satisfied()) << "the plain decomposition accepts x + r";
    }
    {
        test_cs cs;
        allocated_num n = allocated_num::alloc(cs, [] { return "n"; }, fr::from_u64(5));
        auto bits = n.to_bits_le_strict(cs);
        set_bits(cs, bits);
        // the run ANDs still hold the old values; recompute nothing: some constraint breaks
        EXPECT_TRUE(cs.which_is_unsatisfied().has_value());
    }
}

TEST(num, pack_bits_one_constraint_first_254_bits) {
    rng g(15);
    for (size_t n : {size_t{0}, size_t{1}, size_t{64}, size_t{254}, size_t{256}}) {
        test_cs cs;
        std::vector<boolean> bits;
        fr::repr want{};
        for (size_t i = 0; i < n; ++i) {
            const bool b = (g() & 1) != 0;
            if (i % 3 == 0) {
                bits.push_back(boolean::constant(b));
            } else {
                r1cs::namespace_guard ns(cs, [i] { return "bit " + std::to_string(i); });
                boolean x(allocated_bit::alloc(cs, i % 3 == 2 ? !b : b));
                bits.push_back(i % 3 == 2 ? x.negated() : x);
            }
            if (b && i < 254) want[i / 64] |= uint64_t{1} << (i % 64);
        }
        const size_t before = cs.num_constraints();
        allocated_num p = pack_bits(cs, std::span<const boolean>(bits));
        EXPECT_EQ(cs.num_constraints() - before, 1u);
        ASSERT_TRUE(p.value.has_value());
        EXPECT_EQ(*p.value, fr::from_canonical(want));
        EXPECT_TRUE(cs.is_satisfied());
        cs.set_aux(p.var.index, *p.value + fr::one());
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("packing constraint"));
    }
}

TEST(multipack, pack_into_inputs_matches_compute_multipacking) {
    rng g(16);
    for (size_t n : {size_t{1}, size_t{253}, size_t{254}, size_t{255}, size_t{600}}) {
        test_cs cs;
        std::vector<bool> raw;
        std::vector<boolean> bits;
        for (size_t i = 0; i < n; ++i) {
            const bool b = (g() & 1) != 0;
            raw.push_back(b);
            r1cs::namespace_guard ns(cs, [i] { return "bit " + std::to_string(i); });
            bits.emplace_back(allocated_bit::alloc(cs, b));
        }
        pack_into_inputs(cs, std::span<const boolean>(bits));
        std::vector<fr> want = compute_multipacking(raw);
        ASSERT_EQ(cs.num_inputs(), 1 + want.size());
        EXPECT_EQ(want.size(), (n + 253) / 254);
        for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(cs.input_assignment()[1 + i], want[i]);
        EXPECT_EQ(cs.num_constraints(), n + want.size());
        EXPECT_TRUE(cs.is_satisfied());
        cs.set_input(1, want[0] + fr::one());
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("packing constraint 0"));
    }
    const std::vector<uint8_t> bytes = {0x01, 0x80};
    std::vector<bool> be = bytes_to_bits(bytes), le = bytes_to_bits_le(bytes);
    EXPECT_TRUE(be[7] && be[8]);
    EXPECT_TRUE(le[0] && le[15]);
    EXPECT_EQ(compute_multipacking(le)[0], fr::from_u64(0x8001));
}

}  // namespace
}  // namespace c2lab::gadgets

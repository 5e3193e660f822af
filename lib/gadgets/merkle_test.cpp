// Merkle inclusion gadget (gadgets/merkle.hpp) and the insertion permutation
// (gadgets/insertion.hpp), against native trees built with a toy hasher that has an exact
// native twin: toy(c_0..c_{n-1}) = sum_i (i + 1) c_i^2 + c_i (n + 1 constraints).
// Constraint counts are those of rust-fil-proofs storage-proofs-core gadgets/insertion.rs
// (test_insert, test_select) and gadgets/por.rs.
#include <gtest/gtest.h>

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "gadgets/insertion.hpp"
#include "gadgets/merkle.hpp"
#include "r1cs/constraint_system.hpp"
#include "r1cs/test_constraint_system.hpp"

namespace c2lab::gadgets {
namespace {

using r1cs::shape_counter;
using tcs = r1cs::test_constraint_system<>;

// ---- the toy hasher and its native twin ------------------------------------------------

fr toy_native(std::span<const fr> c) {
    fr acc = fr::zero();
    for (size_t i = 0; i < c.size(); ++i) acc += fr::from_u64(i + 1) * c[i].square() + c[i];
    return acc;
}

struct toy_hasher {
    template <class CS>
    static allocated_num hash(CS& cs, std::span<const allocated_num> c) {
        std::vector<allocated_num> sq;
        sq.reserve(c.size());
        for (size_t i = 0; i < c.size(); ++i) {
            r1cs::namespace_guard ns(cs, [i] { return "square " + std::to_string(i); });
            sq.push_back(c[i].square(cs));
        }
        std::optional<fr> v = fr::zero();
        for (size_t i = 0; i < c.size() && v; ++i) {
            if (!c[i].value || !sq[i].value) v.reset();
            else *v += fr::from_u64(i + 1) * *sq[i].value + *c[i].value;
        }
        allocated_num out = allocated_num::alloc(cs, [] { return "toy hash"; }, v);
        cs.enforce([] { return "toy sum"; },
                   [&](auto lc) {
                       for (size_t i = 0; i < c.size(); ++i) {
                           lc += fr::from_u64(i + 1) * sq[i].var;
                           lc += c[i].var;
                       }
                       return lc;
                   },
                   [](auto lc) { return lc + CS::one(); }, [&](auto lc) { return lc + out.var; });
        return out;
    }
    static constexpr size_t cost(size_t arity) noexcept { return arity + 1; }
};

// ---- native compound tree ----------------------------------------------------------------

// levels[0] = leaves of one base tree, ..., levels.back() = {root}.
using tree_levels = std::vector<std::vector<fr>>;

tree_levels build_tree(std::vector<fr> leaves, size_t arity) {
    tree_levels t{std::move(leaves)};
    while (t.back().size() > 1) {
        const auto& cur = t.back();
        std::vector<fr> next;
        for (size_t i = 0; i < cur.size(); i += arity)
            next.push_back(toy_native(std::span<const fr>(cur).subspan(i, arity)));
        t.push_back(std::move(next));
    }
    return t;
}

struct native_tree {
    tree_shape shape;
    std::vector<fr> leaves;
    std::vector<tree_levels> base;  // one per base tree
    std::vector<fr> sub_roots;      // roots of the sub trees (top shape) or {root}
    fr root;

    native_tree(tree_shape s, std::vector<fr> l) : shape(s), leaves(std::move(l)) {
        const size_t trees = shape.base_tree_count();
        const size_t per = leaves.size() / trees;
        std::vector<fr> base_roots;
        for (size_t t = 0; t < trees; ++t) {
            base.push_back(build_tree(std::vector<fr>(leaves.begin() + t * per, leaves.begin() + (t + 1) * per),
                                      shape.base_arity));
            base_roots.push_back(base.back().back()[0]);
        }
        if (!shape.sub_arity) {
            root = base_roots[0];
            return;
        }
        for (size_t i = 0; i < base_roots.size(); i += shape.sub_arity)
            sub_roots.push_back(toy_native(std::span<const fr>(base_roots).subspan(i, shape.sub_arity)));
        root = shape.top_arity ? toy_native(std::span<const fr>(sub_roots)) : sub_roots[0];
    }

    // The proof's levels, leaf upward: (siblings, position).
    std::vector<std::pair<std::vector<fr>, uint64_t>> levels(uint64_t index) const {
        std::vector<std::pair<std::vector<fr>, uint64_t>> out;
        auto level_of = [](const std::vector<fr>& row, size_t arity, size_t pos) {
            const size_t first = pos / arity * arity;
            std::vector<fr> sib;
            for (size_t k = first; k < first + arity; ++k)
                if (k != pos) sib.push_back(row[k]);
            return std::pair<std::vector<fr>, uint64_t>(std::move(sib), pos % arity);
        };
        const size_t per = leaves.size() / shape.base_tree_count();
        const size_t tree = index / per;
        size_t pos = index % per;
        const tree_levels& t = base[tree];
        for (size_t l = 0; l + 1 < t.size(); ++l) {
            out.push_back(level_of(t[l], shape.base_arity, pos));
            pos /= shape.base_arity;
        }
        if (shape.sub_arity) {
            std::vector<fr> base_roots;
            for (const auto& b : base) base_roots.push_back(b.back()[0]);
            out.push_back(level_of(base_roots, shape.sub_arity, tree));
        }
        if (shape.top_arity) out.push_back(level_of(sub_roots, shape.top_arity, tree / shape.sub_arity));
        return out;
    }

    auth_path path(uint64_t index) const {
        auto l = levels(index);
        return auth_path::from_levels(shape, std::span<const std::pair<std::vector<fr>, uint64_t>>(l));
    }
};

std::vector<fr> random_leaves(rng& g, size_t n) {
    std::vector<fr> v;
    v.reserve(n);
    for (size_t i = 0; i < n; ++i) v.push_back(fr::random(g));
    return v;
}

size_t log2_of(size_t x) {
    size_t k = 0;
    while ((size_t{1} << k) < x) ++k;
    return k;
}

// ---- insertion ---------------------------------------------------------------------------

struct insert_setup {
    tcs cs;
    std::vector<allocated_num> siblings;
    allocated_num x;
    std::vector<boolean> bits;
    size_t base_constraints = 0;

    insert_setup(rng& g, size_t size, size_t index) {
        for (size_t i = 0; i + 1 < size; ++i)
            siblings.push_back(
                allocated_num::alloc(cs, [i] { return "element " + std::to_string(i); }, fr::random(g)));
        x = allocated_num::alloc(cs, [] { return "insert"; }, fr::random(g));
        for (size_t b = 0; (size_t{1} << b) < size; ++b) {
            r1cs::namespace_guard ns(cs, [b] { return "index bit " + std::to_string(b); });
            bits.emplace_back(allocated_bit::alloc(cs, ((index >> b) & 1) != 0));
        }
        base_constraints = cs.num_constraints();
    }
};

void expect_inserted(const std::vector<allocated_num>& out, const insert_setup& s, size_t index) {
    ASSERT_EQ(out.size(), s.siblings.size() + 1);
    for (size_t pos = 0; pos < out.size(); ++pos) {
        const allocated_num& want = pos < index ? s.siblings[pos] : pos == index ? s.x : s.siblings[pos - 1];
        ASSERT_TRUE(out[pos].value.has_value());
        EXPECT_EQ(*out[pos].value, *want.value) << "position " << pos << " index " << index;
        // The assignment agrees with the gadget's value.
        EXPECT_EQ(s.cs.aux_assignment()[out[pos].var.index], *want.value);
    }
}

TEST(Insertion, EveryPositionWithSourceCounts) {
    rng g(1);
    for (size_t size : {2, 4, 8, 16}) {
        for (size_t index = 0; index < size; ++index) {
            insert_setup s(g, size, index);
            EXPECT_EQ(s.base_constraints, log2_of(size));  // one booleanity constraint per bit
            auto out = insert(s.cs, s.x, std::span<const boolean>(s.bits), std::span<const allocated_num>(s.siblings));
            EXPECT_TRUE(s.cs.is_satisfied()) << *s.cs.which_is_unsatisfied();
            expect_inserted(out, s, index);
            const size_t expected = size == 2 ? 2 : size == 4 ? 8 : size == 8 ? 22 : size * (size - 1);
            EXPECT_EQ(s.cs.num_constraints() - s.base_constraints, expected) << "size " << size;
            EXPECT_EQ(insert_constraints(size), expected);
        }
    }
}

TEST(Insertion, GeneralAlgorithmAgreesForSmallSizes) {
    rng g(2);
    for (size_t size : {2, 4, 8}) {
        for (size_t index = 0; index < size; ++index) {
            insert_setup s(g, size, index);
            auto out = insert_general(s.cs, s.x, std::span<const boolean>(s.bits),
                                      std::span<const allocated_num>(s.siblings));
            EXPECT_TRUE(s.cs.is_satisfied());
            expect_inserted(out, s, index);
            EXPECT_EQ(s.cs.num_constraints() - s.base_constraints, size * (size - 1));
        }
    }
}

TEST(Insertion, WrongBitBreaksThePicks) {
    rng g(3);
    for (size_t size : {2, 4, 8}) {
        for (size_t index = 0; index < size; ++index) {
            for (size_t b = 0; (size_t{1} << b) < size; ++b) {
                insert_setup s(g, size, index);
                (void)insert(s.cs, s.x, std::span<const boolean>(s.bits), std::span<const allocated_num>(s.siblings));
                ASSERT_TRUE(s.cs.is_satisfied());
                // Flip the bit in the assignment only: some pick no longer holds.
                const size_t var = s.bits[b].bit().var.index;
                const bool old = s.cs.aux_assignment()[var] == fr::one();
                s.cs.set_aux(var, old ? fr::zero() : fr::one());
                EXPECT_FALSE(s.cs.is_satisfied()) << "size " << size << " index " << index << " bit " << b;
            }
        }
    }
}

TEST(Insertion, SelectPicksTheIndexedElement) {
    rng g(4);
    for (size_t log_size = 1; log_size <= 4; ++log_size) {
        const size_t size = size_t{1} << log_size;
        for (size_t index = 0; index < size; ++index) {
            tcs cs;
            std::vector<allocated_num> from;
            for (size_t i = 0; i < size; ++i)
                from.push_back(allocated_num::alloc(cs, [i] { return "element " + std::to_string(i); }, fr::random(g)));
            std::vector<boolean> bits;
            for (size_t b = 0; b < log_size; ++b) {
                r1cs::namespace_guard ns(cs, [b] { return "bit " + std::to_string(b); });
                bits.emplace_back(allocated_bit::alloc(cs, ((index >> b) & 1) != 0));
            }
            const size_t before = cs.num_constraints();
            allocated_num r = select(cs, std::span<const allocated_num>(from), std::span<const boolean>(bits));
            EXPECT_TRUE(cs.is_satisfied());
            EXPECT_EQ(*r.value, *from[index].value);
            EXPECT_EQ(cs.num_constraints() - before, size - 1);
        }
    }
}

TEST(Insertion, PickWithNegatedAndConstantConditions) {
    rng g(5);
    tcs cs;
    allocated_num a = allocated_num::alloc(cs, [] { return "a"; }, fr::random(g));
    allocated_num b = allocated_num::alloc(cs, [] { return "b"; }, fr::random(g));
    boolean t;
    {
        r1cs::namespace_guard ns(cs, [] { return "t"; });
        t = boolean(allocated_bit::alloc(cs, true));
    }
    struct {
        boolean cond;
        bool expect_a;
    } cases[] = {{t, true}, {t.negated(), false}, {boolean::constant(true), true}, {boolean::constant(false), false}};
    for (size_t i = 0; i < 4; ++i) {
        r1cs::namespace_guard ns(cs, [i] { return "case " + std::to_string(i); });
        allocated_num c = pick(cs, cases[i].cond, a, b);
        EXPECT_EQ(*c.value, cases[i].expect_a ? *a.value : *b.value);
    }
    EXPECT_TRUE(cs.is_satisfied());
}

TEST(Insertion, Insert8NeedsPlainBits) {
    rng g(6);
    insert_setup s(g, 8, 3);
    std::vector<boolean> bits = s.bits;
    bits[0] = bits[0].negated();
    EXPECT_THROW((void)insert(s.cs, s.x, std::span<const boolean>(bits), std::span<const allocated_num>(s.siblings)),
                 c2lab::error);
    // Wrong number of bits for the siblings.
    EXPECT_THROW((void)insert(s.cs, s.x, std::span<const boolean>(bits).first(2),
                              std::span<const allocated_num>(s.siblings)),
                 c2lab::error);
}

TEST(Insertion, ShapeOnlyNeedsNoValues) {
    for (size_t size : {2, 4, 8, 16}) {
        shape_counter cs;
        std::vector<allocated_num> sib;
        for (size_t i = 0; i + 1 < size; ++i) sib.push_back(allocated_num::alloc(cs, [] { return "s"; }, std::nullopt));
        allocated_num x = allocated_num::alloc(cs, [] { return "x"; }, std::nullopt);
        std::vector<boolean> bits;
        for (size_t b = 0; (size_t{1} << b) < size; ++b) bits.emplace_back(allocated_bit::alloc(cs, std::nullopt));
        auto out = insert(cs, x, std::span<const boolean>(bits), std::span<const allocated_num>(sib));
        EXPECT_EQ(out.size(), size);
        for (const auto& o : out) EXPECT_FALSE(o.value.has_value());
        EXPECT_EQ(cs.num_constraints(), log2_of(size) + insert_constraints(size));
    }
}

// ---- Merkle inclusion --------------------------------------------------------------------

struct shape_case {
    tree_shape shape;
    size_t leaves;
};

const shape_case shape_cases[] = {
    {{2, 0, 0}, 64},    // tree_d's shape (binary)
    {{4, 0, 0}, 64},    //
    {{8, 0, 0}, 64},    // 2 KiB tree_c / tree_r_last
    {{8, 2, 0}, 128},   // 4 KiB
    {{8, 8, 0}, 512},   // 16 KiB, and 32 GiB's shape
    {{8, 8, 2}, 1024},  // 32 KiB, and 64 GiB's shape
    {{8, 4, 2}, 512},   //
    {{16, 0, 0}, 256},  // the general insertion
};

size_t expected_por_constraints(const shape_case& c) {
    auto level = [](size_t a) { return log2_of(a) + insert_constraints(a) + toy_hasher::cost(a); };
    size_t n = base_path_length(c.shape, c.leaves) * level(c.shape.base_arity);
    if (c.shape.sub_arity) n += level(c.shape.sub_arity);
    if (c.shape.top_arity) n += level(c.shape.top_arity);
    return n + 2;  // path packing, root equality
}

TEST(Merkle, BasePathLength) {
    EXPECT_EQ(base_path_length({2, 0, 0}, 64), 6u);
    EXPECT_EQ(base_path_length({8, 0, 0}, 64), 2u);
    EXPECT_EQ(base_path_length({8, 8, 0}, uint64_t{1} << 30), 9u);      // 32 GiB
    EXPECT_EQ(base_path_length({8, 8, 2}, uint64_t{1} << 31), 9u);      // 64 GiB
    EXPECT_EQ(path_bit_count({8, 8, 0}, uint64_t{1} << 30), 30u);
    EXPECT_EQ(path_bit_count({8, 8, 2}, uint64_t{1} << 31), 31u);
    EXPECT_EQ(path_bit_count({2, 0, 0}, uint64_t{1} << 30), 30u);
    EXPECT_THROW((void)base_path_length({8, 0, 0}, 32), c2lab::error);
    EXPECT_THROW((void)base_path_length({8, 0, 2}, 64), c2lab::error);
    EXPECT_THROW((void)base_path_length({6, 0, 0}, 36), c2lab::error);
}

TEST(Merkle, InclusionOfRandomLeaves) {
    rng g(10);
    for (const auto& c : shape_cases) {
        native_tree t(c.shape, random_leaves(g, c.leaves));
        for (int trial = 0; trial < 6; ++trial) {
            const uint64_t index = trial == 0 ? 0 : trial == 1 ? c.leaves - 1 : g.below(c.leaves);
            tcs cs;
            allocated_num leaf = allocated_num::alloc(cs, [] { return "leaf"; }, t.leaves[index]);
            allocated_num root = allocated_num::alloc(cs, [] { return "root"; }, t.root);
            const size_t before = cs.num_constraints();
            {
                merkle_path_result r;
                {
                    r1cs::namespace_guard ns(cs, [] { return "computed"; });
                    r = compute_root<toy_hasher>(cs, c.shape, leaf, t.path(index));
                }
                ASSERT_TRUE(r.root.value.has_value());
                EXPECT_EQ(*r.root.value, t.root) << "arity " << c.shape.base_arity << " index " << index;
                EXPECT_EQ(r.path_bits.size(), path_bit_count(c.shape, c.leaves));
                uint64_t packed = 0;
                for (size_t k = 0; k < r.path_bits.size(); ++k)
                    if (*r.path_bits[k].value()) packed |= uint64_t{1} << k;
                EXPECT_EQ(packed, index);
            }
            {
                r1cs::namespace_guard ns(cs, [] { return "por"; });
                por_circuit<toy_hasher>(cs, c.shape, leaf, t.path(index), root, true);
            }
            EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
            // compute_root alone, then the full circuit: 2 * levels + 2.
            EXPECT_EQ(cs.num_constraints() - before, 2 * expected_por_constraints(c) - 2);
            EXPECT_EQ(compute_root_constraints(c.shape, c.leaves, toy_hasher::cost), expected_por_constraints(c) - 2);
            // One public input: the leaf index, as PoRCompound::generate_public_inputs.
            ASSERT_EQ(cs.num_inputs(), 2u);
            EXPECT_EQ(cs.input_assignment()[1], por_public_inputs(index)[0]);
        }
    }
}

TEST(Merkle, PorCircuitCountsAndPublicRoot) {
    rng g(11);
    for (const auto& c : shape_cases) {
        native_tree t(c.shape, random_leaves(g, c.leaves));
        const uint64_t index = g.below(c.leaves);
        for (bool private_root : {true, false}) {
            tcs cs;
            por_circuit<toy_hasher>(cs, c.shape, std::optional<fr>(t.leaves[index]), t.path(index),
                                    std::optional<fr>(t.root), private_root);
            EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
            EXPECT_EQ(cs.num_constraints(), expected_por_constraints(c) + (private_root ? 0 : 1));
            auto want = por_public_inputs(index, private_root ? std::nullopt : std::optional<fr>(t.root));
            ASSERT_EQ(cs.num_inputs(), 1 + want.size());
            for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(cs.input_assignment()[1 + i], want[i]);

            // The same shape with no values at all (blank circuit).
            shape_counter sc;
            por_circuit<toy_hasher>(sc, c.shape, std::optional<fr>(), auth_path::blank(c.shape, c.leaves),
                                    std::optional<fr>(), private_root);
            EXPECT_EQ(sc.num_constraints(), cs.num_constraints());
            EXPECT_EQ(sc.num_inputs(), cs.num_inputs());
            EXPECT_EQ(sc.num_aux(), cs.num_aux());
        }
    }
}

TEST(Merkle, WrongSiblingIsUnsatisfied) {
    rng g(12);
    for (const auto& c : shape_cases) {
        native_tree t(c.shape, random_leaves(g, c.leaves));
        const uint64_t index = g.below(c.leaves);
        auth_path good = t.path(index);
        std::vector<std::vector<path_element_witness>*> parts{&good.base, &good.sub, &good.top};
        for (auto* part : parts) {
            for (size_t l = 0; l < part->size(); ++l) {
                auth_path bad = t.path(index);
                auto& level = (part == &good.base ? bad.base : part == &good.sub ? bad.sub : bad.top)[l];
                const size_t k = g.below(level.hashes.size());
                *level.hashes[k] += fr::one();
                tcs cs;
                por_circuit<toy_hasher>(cs, c.shape, std::optional<fr>(t.leaves[index]), bad, std::optional<fr>(t.root),
                                        true);
                auto broken = cs.which_is_unsatisfied();
                ASSERT_TRUE(broken.has_value()) << "level " << l;
                EXPECT_EQ(*broken, "enforce root is correct");
            }
        }
    }
}

TEST(Merkle, WrongIndexIsUnsatisfied) {
    rng g(13);
    for (const auto& c : shape_cases) {
        native_tree t(c.shape, random_leaves(g, c.leaves));
        const uint64_t index = g.below(c.leaves);
        // A witness with a wrong position at one level: the leaf lands elsewhere, the root
        // differs.
        auth_path bad = t.path(index);
        auto& level = bad.base[g.below(bad.base.size())];
        *level.index ^= 1;
        {
            tcs cs;
            por_circuit<toy_hasher>(cs, c.shape, std::optional<fr>(t.leaves[index]), bad, std::optional<fr>(t.root),
                                    true);
            EXPECT_FALSE(cs.is_satisfied());
        }
        // A correct witness with one index bit flipped in the assignment afterwards.
        tcs cs;
        allocated_num leaf = allocated_num::alloc(cs, [] { return "leaf"; }, t.leaves[index]);
        allocated_num root = allocated_num::alloc(cs, [] { return "root"; }, t.root);
        merkle_path_result r = compute_root<toy_hasher>(cs, c.shape, leaf, t.path(index));
        pack_path_bits(cs, std::span<const boolean>(r.path_bits));
        enforce_root(cs, r.root, root);
        ASSERT_TRUE(cs.is_satisfied());
        for (size_t k = 0; k < r.path_bits.size(); ++k) {
            const size_t var = r.path_bits[k].bit().var.index;
            const fr old = cs.aux_assignment()[var];
            cs.set_aux(var, old.is_one() ? fr::zero() : fr::one());
            EXPECT_FALSE(cs.is_satisfied()) << "bit " << k;
            cs.set_aux(var, old);
        }
        EXPECT_TRUE(cs.is_satisfied());
    }
}

TEST(Merkle, WrongLeafIsUnsatisfied) {
    rng g(14);
    native_tree t({8, 8, 2}, random_leaves(g, 1024));
    const uint64_t index = 777;
    tcs cs;
    por_circuit<toy_hasher>(cs, t.shape, std::optional<fr>(t.leaves[index] + fr::one()), t.path(index),
                            std::optional<fr>(t.root), true);
    EXPECT_FALSE(cs.is_satisfied());
}

TEST(Merkle, FromLevelsSplitsSubAndTop) {
    rng g(15);
    native_tree t({8, 8, 2}, random_leaves(g, 1024));
    auth_path p = t.path(1000);
    EXPECT_EQ(p.base.size(), 2u);
    ASSERT_EQ(p.sub.size(), 1u);
    ASSERT_EQ(p.top.size(), 1u);
    EXPECT_EQ(p.base[0].hashes.size(), 7u);
    EXPECT_EQ(p.sub[0].hashes.size(), 7u);
    EXPECT_EQ(p.top[0].hashes.size(), 1u);
    // 1000 = 1 * 512 + 7 * 64 + 5 * 8 + 0: base positions 0, 5; sub 7; top 1.
    EXPECT_EQ(*p.base[0].index, 0u);
    EXPECT_EQ(*p.base[1].index, 5u);
    EXPECT_EQ(*p.sub[0].index, 7u);
    EXPECT_EQ(*p.top[0].index, 1u);

    auth_path blank = auth_path::blank({8, 8, 0}, uint64_t{1} << 30);
    EXPECT_EQ(blank.base.size(), 9u);
    EXPECT_EQ(blank.sub.size(), 1u);
    EXPECT_TRUE(blank.top.empty());
}

TEST(Merkle, MalformedPathsThrow) {
    rng g(16);
    native_tree t({8, 0, 0}, random_leaves(g, 64));
    {
        auth_path p = t.path(9);
        p.base[0].hashes.pop_back();
        tcs cs;
        EXPECT_THROW(por_circuit<toy_hasher>(cs, t.shape, std::optional<fr>(t.leaves[9]), p, std::optional<fr>(t.root),
                                             true),
                     c2lab::error);
    }
    {
        auth_path p = t.path(9);
        p.base[1].index = 8;
        tcs cs;
        EXPECT_THROW(por_circuit<toy_hasher>(cs, t.shape, std::optional<fr>(t.leaves[9]), p, std::optional<fr>(t.root),
                                             true),
                     c2lab::error);
    }
    {
        auth_path p = t.path(9);
        tcs cs;
        EXPECT_THROW(por_circuit<toy_hasher>(cs, tree_shape{8, 8, 0}, std::optional<fr>(t.leaves[9]), p,
                                             std::optional<fr>(t.root), true),
                     c2lab::error);
    }
}

// A stand-in with Poseidon's constraint counts per arity (neptune src/circuit.rs
// test_poseidon_hash: 311, 377, 505 for arity 2, 4, 8): the PoR totals must be those of
// rust-fil-proofs storage-proofs-core/tests/por_circuit.rs (64 leaves per base tree).
struct poseidon_cost_hasher {
    static size_t cost(size_t arity) { return arity == 2 ? 311 : arity == 4 ? 377 : 505; }
    template <class CS>
    static allocated_num hash(CS& cs, std::span<const allocated_num> c) {
        allocated_num out = allocated_num::alloc(cs, [] { return "h"; }, std::nullopt);
        for (size_t i = 0; i < cost(c.size()); ++i)
            cs.enforce([] { return "c"; }, [](auto lc) { return lc; }, [](auto lc) { return lc; },
                       [](auto lc) { return lc; });
        return out;
    }
};

TEST(Merkle, PorCountsMatchTheSource) {
    struct {
        tree_shape shape;
        size_t public_root, private_root;
    } cases[] = {
        {{2, 0, 0}, 1887, 1886}, {{4, 0, 0}, 1164, 1163}, {{8, 0, 0}, 1063, 1062}, {{8, 2, 0}, 1377, 0},
        {{8, 8, 0}, 1593, 0},    {{8, 8, 2}, 1907, 0},    {{8, 4, 2}, 1764, 0},    {{8, 2, 4}, 1764, 0},
    };
    for (const auto& c : cases) {
        const uint64_t leaves = 64 * c.shape.base_tree_count();
        for (bool private_root : {false, true}) {
            const size_t want = private_root ? c.private_root : c.public_root;
            if (want == 0) continue;
            shape_counter cs;
            por_circuit<poseidon_cost_hasher>(cs, c.shape, std::optional<fr>(), auth_path::blank(c.shape, leaves),
                                              std::optional<fr>(), private_root);
            EXPECT_EQ(cs.num_constraints(), want) << c.shape.base_arity << "," << c.shape.sub_arity << ","
                                                  << c.shape.top_arity;
            EXPECT_EQ(cs.num_inputs(), private_root ? 2u : 3u);
        }
    }
}

}  // namespace
}  // namespace c2lab::gadgets

// Poseidon (neptune, HashType::MerkleTree): constants (Grain round constants against the
// reference script's output, Cauchy MDS), optimised native == textbook native, published
// known answers from neptune and rust-fil-proofs, and the gadget: constraint counts (neptune
// circuit.rs as rust-fil-proofs uses it), equality with the native hash, satisfaction, a
// tampered witness caught, shape-only synthesis, and the template-replaying gadget against
// the direct port (same constraints, names and assignment).
#include <gtest/gtest.h>

#include <array>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "gadgets/poseidon.hpp"
#include "r1cs/test_constraint_system.hpp"

namespace c2lab::gadgets {
namespace {

using r1cs::shape_counter;
using tcs = r1cs::test_constraint_system<>;

constexpr std::array<size_t, 7> all_arities = {2, 4, 8, 11, 16, 24, 36};

// A canonical value from four little-endian 64-bit limbs, as neptune's scalar_from_u64s and
// rust-fil-proofs' u64s_to_u8s write them.
fr from_limbs(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
    return fr::from_canonical_checked(fr::repr{l0, l1, l2, l3});
}

std::vector<fr> random_frs(rng& g, size_t n) {
    std::vector<fr> v(n);
    for (auto& x : v) x = fr::random(g);
    return v;
}

std::vector<allocated_num> alloc_preimage(tcs& cs, const std::vector<fr>& values) {
    std::vector<allocated_num> out;
    for (size_t i = 0; i < values.size(); ++i)
        out.push_back(allocated_num::alloc(cs, [i] { return "data " + std::to_string(i); }, values[i]));
    return out;
}

size_t expected_constraints(size_t arity) {
    const size_t t = arity + 1, rp = poseidon_partial_rounds(arity);
    const size_t sboxes = t * poseidon_full_rounds + rp;
    return 3 * (sboxes - 1) + (sboxes - arity);
}

// First: the first use of arity 24, from several threads at once.
TEST(PoseidonConstants, ConcurrentFirstUse) {
    std::vector<std::thread> ts;
    std::array<const poseidon_constants*, 4> seen{};
    for (size_t i = 0; i < seen.size(); ++i) ts.emplace_back([&seen, i] { seen[i] = &poseidon_constants_for(24); });
    for (auto& t : ts) t.join();
    for (auto* p : seen) EXPECT_EQ(p, seen[0]);
}

// ---- constants ---------------------------------------------------------------------------

TEST(PoseidonConstants, RoundNumbersAndCounts) {
    const std::array<size_t, 7> rp = {55, 56, 57, 57, 59, 59, 60};
    for (size_t n = 0; n < all_arities.size(); ++n) {
        const auto& c = poseidon_constants_for(all_arities[n]);
        EXPECT_EQ(c.arity, all_arities[n]);
        EXPECT_EQ(c.width, c.arity + 1);
        EXPECT_EQ(c.full_rounds, 8u);
        EXPECT_EQ(c.partial_rounds, rp[n]);
        EXPECT_EQ(c.domain_tag, fr::from_u64((uint64_t{1} << c.arity) - 1));
        EXPECT_EQ(c.round_constants.size(), c.width * (c.full_rounds + c.partial_rounds));
        for (const fr& x : c.round_constants) EXPECT_TRUE(fr::is_canonical(x.to_canonical()));
        EXPECT_EQ(c.compressed_round_constants.size(), c.width * c.full_rounds + c.partial_rounds);
        EXPECT_EQ(c.sparse_w_hat.size(), c.partial_rounds * c.width);
        EXPECT_EQ(c.sparse_v_rest.size(), c.partial_rounds * (c.width - 1));
        EXPECT_EQ(c.pre_sparse_matrix.size(), c.width * c.width);
        EXPECT_EQ(c.circuit.constraints.size(), c.gadget_constraints());
        EXPECT_LE(c.circuit.num_registers, poseidon_max_registers);
    }
    EXPECT_EQ(&poseidon_constants_for(8), &poseidon_constants_for(8));  // computed once
}

TEST(PoseidonConstants, UnsupportedArityThrows) {
    for (size_t a : {0, 1, 3, 5, 9, 12, 37}) {
        try {
            (void)poseidon_constants_for(a);
            ADD_FAILURE() << "arity " << a << " accepted";
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
        }
    }
    std::vector<fr> three(3, fr::one());
    EXPECT_THROW((void)poseidon_hash(three), error);
}

// Output of the Poseidon reference script (create_rcs_grain.sage 1 1 255 9 8 57 <p>) stored
// in argumentcomputer/neptune, parameters/round_constants-1-1-255-9-8-57-73EDA...001.txt and
// checked there by src/round_constants.rs test_round_constants.
TEST(PoseidonConstants, GrainMatchesReferenceScriptT9) {
    const auto& c = poseidon_constants_for(8);
    ASSERT_EQ(c.round_constants.size(), 585u);
    EXPECT_EQ(c.round_constants[0], fr::from_hex("0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9"));
    EXPECT_EQ(c.round_constants[1], fr::from_hex("0x0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39"));
    EXPECT_EQ(c.round_constants[2], fr::from_hex("0x513ad11016ab7bb8c7ce9ae51256040e062487edf7168d206ba1b86dfe963629"));
    EXPECT_EQ(c.round_constants[583], fr::from_hex("0x5861985c6ad8159e1a4f056d02df583d9c79c96bae8c3b9313812b4e0b3bda60"));
    EXPECT_EQ(c.round_constants[584], fr::from_hex("0x3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c"));
    EXPECT_EQ(poseidon_grain_round_constants(9, 8, 57), c.round_constants);
}

TEST(PoseidonConstants, MdsIsCauchyAndInvertible) {
    for (size_t a : all_arities) {
        const auto& c = poseidon_constants_for(a);
        const size_t t = c.width;
        for (size_t i = 0; i < t; ++i)
            for (size_t j = 0; j < t; ++j) {
                EXPECT_EQ(c.mds_at(i, j) * fr::from_u64(i + t + j), fr::one());
                EXPECT_EQ(c.mds_at(i, j), c.mds_at(j, i));
                fr acc = fr::zero();
                for (size_t k = 0; k < t; ++k) acc += c.mds[i * t + k] * c.mds_inverse[k * t + j];
                EXPECT_EQ(acc, i == j ? fr::one() : fr::zero()) << "arity " << a << " (" << i << "," << j << ")";
            }
    }
}

// The sparse factorisation reproduces the partial rounds' linear layers: P * S_0 * ... *
// S_{R_P - 1} (row-vector convention) equals M^(R_P + 1), applied to a random vector.
TEST(PoseidonConstants, SparseFactorisationMatchesMds) {
    rng g(7);
    for (size_t a : {2, 11}) {
        const auto& c = poseidon_constants_for(a);
        const size_t t = c.width;
        std::vector<fr> x = random_frs(g, t), y = x, tmp(t);
        for (size_t r = 0; r <= c.partial_rounds; ++r) {  // y <- M y, R_P + 1 times
            for (size_t i = 0; i < t; ++i) {
                tmp[i] = fr::zero();
                for (size_t j = 0; j < t; ++j) tmp[i] += c.mds_at(i, j) * y[j];
            }
            y = tmp;
        }
        for (size_t j = 0; j < t; ++j) {  // x <- x P
            tmp[j] = fr::zero();
            for (size_t i = 0; i < t; ++i) tmp[j] += c.pre_sparse_matrix[i * t + j] * x[i];
        }
        x = tmp;
        for (size_t r = 0; r < c.partial_rounds; ++r) {
            fr first = fr::zero();
            for (size_t i = 0; i < t; ++i) first += c.sparse_w_hat[r * t + i] * x[i];
            for (size_t j = 1; j < t; ++j) x[j] += c.sparse_v_rest[r * (t - 1) + j - 1] * x[0];
            x[0] = first;
        }
        EXPECT_EQ(x, y) << "arity " << a;
    }
}

// ---- native hash -------------------------------------------------------------------------

TEST(PoseidonNative, OptimisedEqualsTextbook) {
    rng g(1);
    for (size_t a : all_arities)
        for (int rep = 0; rep < 4; ++rep) {
            auto in = random_frs(g, a);
            const fr h = poseidon_hash_textbook(in);
            EXPECT_EQ(poseidon_hash_optimized(in), h) << "arity " << a;
            EXPECT_EQ(poseidon_hash(in), h);
        }
}

// argumentcomputer/neptune, src/poseidon.rs, test hash_values (Strength::Standard,
// HashType::MerkleTree, preimage 0, 1, ..., arity - 1).
TEST(PoseidonNative, NeptuneKnownAnswers) {
    struct kat {
        size_t arity;
        std::array<uint64_t, 4> limbs;
    };
    const kat kats[] = {
        {2, {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b}},
        {4, {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a}},
        {8, {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55}},
        {11, {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28}},
        {16, {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a}},
        {24, {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15}},
        {36, {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f}},
    };
    for (const auto& k : kats) {
        std::vector<fr> in(k.arity);
        for (size_t i = 0; i < k.arity; ++i) in[i] = fr::from_u64(i);
        const fr expected = from_limbs(k.limbs[0], k.limbs[1], k.limbs[2], k.limbs[3]);
        EXPECT_EQ(poseidon_hash(in), expected) << "arity " << k.arity;
        EXPECT_EQ(poseidon_hash_textbook(in), expected) << "arity " << k.arity;
    }
}

// filecoin-project/rust-fil-proofs, filecoin-hashers/src/poseidon.rs, test
// test_poseidon_hasher: a binary Poseidon Merkle tree over the leaves 1, 0, 0, 1.
TEST(PoseidonNative, RustFilProofsBinaryTree) {
    const fr one = fr::one(), zero = fr::zero();
    const std::array<fr, 2> l01 = {one, zero}, l23 = {zero, one};
    const fr i1 = poseidon_hash(l01), i2 = poseidon_hash(l23);
    EXPECT_EQ(i1, from_limbs(0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3));
    const std::array<fr, 2> top = {i1, i2};
    EXPECT_EQ(poseidon_hash(top),
              from_limbs(0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb));
}

// filecoin-project/rust-fil-proofs, filecoin-hashers/src/poseidon.rs, tests test_hash_md and
// test_hash_md_circuit: 71 ones through arity-36 Poseidon, Merkle-Damgard style (the
// running hash, then 35 new elements), and 2770 constraints for the two circuit hashes.
TEST(PoseidonNative, RustFilProofsHashMdArity36) {
    const size_t n = 71, arity = 36;
    std::vector<fr> data(n, fr::one());
    fr acc = data[0];
    for (size_t start = 1; start < n; start += arity - 1) {
        std::vector<fr> pre(arity, fr::zero());
        pre[0] = acc;
        for (size_t i = 0; i + 1 < arity && start + i < n; ++i) pre[i + 1] = data[start + i];
        acc = poseidon_hash(pre);
    }
    EXPECT_EQ(acc, from_limbs(0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7));

    tcs cs;
    auto nums = alloc_preimage(cs, data);
    allocated_num h = nums[0];
    for (size_t start = 1; start < n; start += arity - 1) {
        std::vector<allocated_num> pre(arity);
        pre[0] = h;
        for (size_t i = 0; i + 1 < arity; ++i) pre[i + 1] = nums[start + i];  // 70 = 2 * 35: no padding
        r1cs::namespace_guard ns(cs, [start] { return "hash md " + std::to_string(start); });
        h = poseidon_hash_gadget(cs, std::span<const allocated_num>(pre));
    }
    EXPECT_EQ(cs.num_constraints(), 2770u);
    EXPECT_TRUE(cs.is_satisfied());
    ASSERT_TRUE(h.value.has_value());
    EXPECT_EQ(*h.value, acc);
}

// ---- gadget ------------------------------------------------------------------------------

TEST(PoseidonGadget, ConstraintCounts) {
    EXPECT_EQ(expected_constraints(2), 311u);
    EXPECT_EQ(expected_constraints(8), 505u);
    EXPECT_EQ(expected_constraints(11), 598u);
    EXPECT_EQ(expected_constraints(36), 1385u);
    rng g(2);
    for (size_t a : all_arities) {
        tcs cs;
        auto pre = alloc_preimage(cs, random_frs(g, a));
        const size_t aux0 = cs.num_aux();
        const allocated_num h = poseidon_hash_gadget(cs, std::span<const allocated_num>(pre));
        EXPECT_TRUE(cs.is_satisfied()) << "arity " << a;
        std::vector<fr> in;
        for (const auto& p : pre) in.push_back(*p.value);
        EXPECT_EQ(h.value, std::optional<fr>(poseidon_hash(in))) << "arity " << a;
        EXPECT_EQ(cs.num_constraints(), expected_constraints(a)) << "arity " << a;
        EXPECT_EQ(cs.num_aux() - aux0, expected_constraints(a)) << "arity " << a;
        EXPECT_EQ(cs.num_inputs(), 1u);

        shape_counter sc;
        std::vector<allocated_num> shape_pre;
        for (size_t i = 0; i < a; ++i) shape_pre.push_back(allocated_num::alloc(sc, [] { return "x"; }, std::nullopt));
        const allocated_num out = poseidon_hash_gadget(sc, std::span<const allocated_num>(shape_pre));
        EXPECT_FALSE(out.value.has_value());
        EXPECT_EQ(sc.num_constraints(), expected_constraints(a)) << "arity " << a;
        EXPECT_EQ(sc.num_aux(), a + expected_constraints(a));

        shape_counter sc_ref;
        (void)poseidon_hash_gadget_reference(sc_ref, std::span<const allocated_num>(shape_pre),
                                             poseidon_constants_for(a));
        EXPECT_EQ(sc_ref.num_constraints(), expected_constraints(a)) << "arity " << a;
        EXPECT_EQ(sc_ref.num_aux(), expected_constraints(a));  // no preimage allocated in sc_ref
    }
    EXPECT_EQ(poseidon_constants_for(2).gadget_constraints(), 311u);
    EXPECT_EQ(poseidon_constants_for(11).gadget_constraints(), 598u);
    EXPECT_EQ(poseidon_constants_for(8).gadget_constraints(), 505u);
}

TEST(PoseidonGadget, MatchesNativeAndCatchesTampering) {
    rng g(3);
    for (size_t a : {2, 8, 11}) {
        for (int rep = 0; rep < 3; ++rep) {
            const auto in = random_frs(g, a);
            tcs cs;
            auto pre = alloc_preimage(cs, in);
            const allocated_num out = poseidon_hash_gadget(cs, std::span<const allocated_num>(pre));
            ASSERT_TRUE(out.value.has_value());
            EXPECT_EQ(*out.value, poseidon_hash_textbook(in)) << "arity " << a;
            EXPECT_EQ(cs.aux_assignment()[out.var.index], *out.value);
            EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();

            // Tamper with one gadget variable (a different one each time), and the output.
            const size_t n = cs.num_aux() - a;
            const size_t victim = a + (rep * 97 + 13) % n;
            tcs bad = cs;
            bad.set_aux(victim, cs.aux_assignment()[victim] + fr::one());
            const auto broken = bad.which_is_unsatisfied();
            ASSERT_TRUE(broken.has_value());
            EXPECT_FALSE(broken->empty());
            tcs bad_out = cs;
            bad_out.set_aux(out.var.index, *out.value + fr::one());
            EXPECT_EQ(bad_out.which_is_unsatisfied(), std::optional<std::string>("hash result/enforce num allocation preserves lc"));
        }
    }
}

// The template-replaying gadget produces exactly the direct port's constraint system.
TEST(PoseidonGadget, SameSystemAsDirectPort) {
    rng g(4);
    for (size_t a : {2, 8, 11}) {
        const auto in = random_frs(g, a);
        tcs fast, ref;
        auto pf = alloc_preimage(fast, in);
        auto pr = alloc_preimage(ref, in);
        r1cs::namespace_guard nf(fast, [] { return "outer"; });
        r1cs::namespace_guard nr(ref, [] { return "outer"; });
        const auto of = poseidon_hash_gadget(fast, std::span<const allocated_num>(pf));
        const auto orf = poseidon_hash_gadget_reference(ref, std::span<const allocated_num>(pr), poseidon_constants_for(a));
        EXPECT_EQ(of.var, orf.var);
        EXPECT_EQ(of.value, orf.value);
        ASSERT_EQ(fast.num_constraints(), ref.num_constraints());
        EXPECT_EQ(fast.aux_assignment(), ref.aux_assignment());
        for (size_t k = 0; k < fast.num_constraints(); ++k) {
            const auto& x = fast.constraints()[k];
            const auto& y = ref.constraints()[k];
            EXPECT_EQ(x.name, y.name);
            EXPECT_TRUE(x.a == y.a && x.b == y.b && x.c == y.c) << "arity " << a << " constraint " << x.name;
        }
        EXPECT_TRUE(ref.is_satisfied());
        if (a == 2) {
            EXPECT_EQ(fast.constraints().front().name, "outer/first round/quintic s-box 1/(l+rk)^2/squared sum constraint");
            EXPECT_EQ(fast.constraints()[6].name,
                      "outer/initial full round 1/quintic s-box 0/S-box input/enforce num allocation preserves lc");
            EXPECT_EQ(fast.constraints().back().name, "outer/hash result/enforce num allocation preserves lc");
        }
    }
}

// The same variable twice in the preimage, and a public input as a preimage element.
TEST(PoseidonGadget, RepeatedAndInputVariables) {
    rng g(5);
    const fr x = fr::random(g), y = fr::random(g);
    tcs cs;
    const auto ax = allocated_num::alloc(cs, [] { return "x"; }, x);
    const auto ay = allocated_num::alloc_input(cs, [] { return "y"; }, y);
    const std::array<allocated_num, 8> pre = {ax, ax, ay, ax, ay, ay, ax, ax};
    const auto out = poseidon_hash_gadget(cs, std::span<const allocated_num>(pre));
    const std::array<fr, 8> in = {x, x, y, x, y, y, x, x};
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_EQ(out.value, std::optional<fr>(poseidon_hash(in)));
}

// Shape-only synthesis calls no value function: the preimage has no values, and a value
// function called on it would throw.
TEST(PoseidonGadget, ShapeOnlyCallsNoValueFunction) {
    shape_counter sc;
    std::vector<allocated_num> pre;
    for (size_t i = 0; i < 11; ++i) pre.push_back(allocated_num::alloc(sc, [] { return "x"; }, std::nullopt));
    EXPECT_NO_THROW((void)poseidon_hash_gadget(sc, std::span<const allocated_num>(pre)));
    // A system that calls value functions reports the missing witness.
    tcs cs;
    std::vector<allocated_num> pre2;
    for (size_t i = 0; i < 2; ++i) pre2.push_back({variable::aux(i), std::nullopt});
    cs.alloc([] { return "a"; }, [] { return fr::zero(); });
    cs.alloc([] { return "b"; }, [] { return fr::zero(); });
    EXPECT_THROW((void)poseidon_hash_gadget(cs, std::span<const allocated_num>(pre2)), error);
}

}  // namespace
}  // namespace c2lab::gadgets

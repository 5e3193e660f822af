// shape_pass: counts, densities and entries equal the proving assignment's and the
// constraint matrices' (hash chain, and a circuit with zero coefficients, repeated terms and
// variables only in C); the digest is stable from run to run and changes with one
// coefficient, with terms swapped between A and B, with an added constraint, with a term
// moved from one variable to another, and with the input / aux kind of a variable; and the
// digest is SHA-256 of the encoding shape_pass.hpp documents, written out byte by byte from
// the constraint matrices.
#include "r1cs/shape_pass.hpp"

#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <cstring>

#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

namespace c2lab::r1cs {
namespace {

static_assert(constraint_system<shape_pass>);

// A small circuit whose structure the test varies: two inputs, four aux, constraints with
// zero coefficients (never dense), a variable only in C, a repeated variable, -1.
struct variant {
    uint64_t coeff = 5;        // the coefficient of aux 1 in constraint 0's A
    bool swap_a_b = false;     // constraint 1's A and B exchanged
    bool extra = false;        // one more constraint at the end
    bool move_term = false;    // constraint 2's C term on aux 3 instead of aux 2
    bool aux_not_input = false;  // the second public value allocated as aux
};

template <class CS>
void synthesize_variant(CS& cs, const variant& v) {
    auto val = [] { return fr::from_u64(3); };
    const variable x = cs.alloc([] { return "x"; }, val);
    const variable y = cs.alloc([] { return "y"; }, val);
    const variable z = cs.alloc([] { return "z"; }, val);
    const variable w = cs.alloc([] { return "w"; }, val);  // only in C
    const variable in1 = cs.alloc_input([] { return "in1"; }, val);
    const variable in2 = v.aux_not_input ? cs.alloc([] { return "in2"; }, val) : cs.alloc_input([] { return "in2"; }, val);
    const fr k = fr::from_u64(v.coeff);
    cs.enforce([] { return "c0"; }, [&](auto lc) { return lc + x + k * y; }, [&](auto lc) { return lc + in1; },
               [&](auto lc) { return lc + fr::zero() * z + w; });
    auto lhs = [&](auto lc) { return lc + x - y; };
    auto rhs = [&](auto lc) { return lc + in2 + fr::zero() * w; };
    if (v.swap_a_b)
        cs.enforce([] { return "c1"; }, rhs, lhs, [&](auto lc) { return lc + CS::one(); });
    else
        cs.enforce([] { return "c1"; }, lhs, rhs, [&](auto lc) { return lc + CS::one(); });
    const variable c_var = v.move_term ? w : z;
    cs.enforce([] { return "c2"; }, [&](auto lc) { return lc + y + y; }, [&](auto lc) { return lc - CS::one(); },
               [&](auto lc) { return lc + c_var; });
    if (v.extra)
        cs.enforce([] { return "c3"; }, [&](auto lc) { return lc + x; }, [&](auto lc) { return lc + x; },
                   [&](auto lc) { return lc + y; });
}

circuit_shape shape_of_variant(const variant& v) {
    return shape_of([&](shape_pass& p) { synthesize_variant(p, v); });
}

// The digest's encoding (shape_pass.hpp, version 1) written out naively from the constraint
// matrices, each integer byte by byte, and hashed in one call.
std::array<uint8_t, 32> reference_digest(const constraint_matrices<>& cm) {
    std::vector<uint8_t> bytes;
    const char prefix[] = "c2lab r1cs shape v1";
    bytes.insert(bytes.end(), prefix, prefix + sizeof prefix);  // the terminating zero included
    auto u64 = [&](uint64_t x) {
        for (int i = 0; i < 8; ++i) bytes.push_back(uint8_t(x >> (8 * i)));
    };
    const fr minus_one = -fr::one();
    for (size_t r = 0; r < cm.num_constraints(); ++r) {
        for (const sparse_matrix* m : {&cm.a(), &cm.b(), &cm.c()}) {
            const auto row = m->row(r);
            uint64_t inputs = 0;
            for (const auto& [v, k] : row) inputs += v.is_input();
            u64(inputs);
            u64(row.size() - inputs);
            for (const auto& [v, k] : row) {  // inputs first, then aux, each sorted by index
                const uint64_t tag = k == fr::zero() ? 3 : k == fr::one() ? 0 : k == minus_one ? 1 : 2;
                u64(uint64_t(v.index) << 2 | tag);
                if (tag == 2)
                    for (uint64_t limb : k.mont) u64(limb);
            }
        }
    }
    u64(cm.num_constraints());
    u64(cm.num_inputs());
    u64(cm.num_aux());
    std::array<uint8_t, 32> out{};
    SHA256(bytes.data(), bytes.size(), out.data());
    return out;
}

TEST(shape_pass, digest_is_sha256_of_the_documented_encoding) {
    // The variants (zero coefficients, -1, a coefficient of 5, inputs and aux), and hash chains
    // long enough that the pass's 64 KiB buffer fills many times (2000 steps: about 0.2 MB).
    for (const variant& v : {variant{}, variant{.coeff = 1}, variant{.aux_not_input = true}}) {
        constraint_matrices<> cm;
        synthesize_variant(cm, v);
        cm.enforce_input_constraints();
        EXPECT_EQ(shape_of_variant(v).digest, reference_digest(cm)) << v.coeff;
    }
    for (size_t steps : {1, 2000}) {
        hash_chain blank;
        blank.steps = steps;
        constraint_matrices<> cm;
        blank.synthesize(cm);
        cm.enforce_input_constraints();
        EXPECT_EQ(shape_of([&](shape_pass& p) { blank.synthesize(p); }).digest, reference_digest(cm)) << steps;
    }
}

TEST(shape_pass, hash_chain_counts_and_densities_equal_the_proving_assignment) {
    for (size_t steps : {1, 2, 17, 300}) {
        hash_chain with, blank;
        with.steps = blank.steps = steps;
        with.x0 = fr::from_u64(42);
        proving_assignment<vec_indexer> pa;
        with.synthesize(pa);
        pa.enforce_input_constraints();
        shape_pass pass;
        blank.synthesize(pass);
        const circuit_shape s = pass.finish();  // enforces the input constraints itself
        EXPECT_EQ(s.num_constraints(), pa.num_constraints()) << steps;
        EXPECT_EQ(s.num_inputs(), pa.num_inputs());
        EXPECT_EQ(s.num_aux(), pa.num_aux());
        EXPECT_EQ(s.a_aux_density, pa.a_aux_density().count());
        EXPECT_EQ(s.b_input_density, pa.b_input_density().count());
        EXPECT_EQ(s.b_aux_density, pa.b_aux_density().count());
        // x_steps (the input) and the one are in C only; every aux (x_0 .. x_{steps-1}) is in A and B.
        EXPECT_EQ(s.b_input_density, 0u);
        EXPECT_EQ(s.a_aux_density, steps);
        constraint_matrices<> cm;
        blank.synthesize(cm);
        cm.enforce_input_constraints();
        EXPECT_EQ(s.matrix_entries, cm.a().num_entries() + cm.b().num_entries() + cm.c().num_entries());
    }
}

TEST(shape_pass, densities_skip_zero_coefficients_and_ignore_c) {
    for (bool aux_not_input : {false, true}) {
        variant v;
        v.aux_not_input = aux_not_input;
        proving_assignment<vec_indexer> pa;
        synthesize_variant(pa, v);
        pa.enforce_input_constraints();
        constraint_matrices<> cm;
        synthesize_variant(cm, v);
        cm.enforce_input_constraints();
        shape_pass pass;
        synthesize_variant(pass, v);
        pass.enforce_input_constraints();
        EXPECT_EQ(pass.a_aux_density(), pa.a_aux_density());
        EXPECT_EQ(pass.b_input_density(), pa.b_input_density());
        EXPECT_EQ(pass.b_aux_density(), pa.b_aux_density());
        const circuit_shape s = pass.finish();
        EXPECT_EQ(s.num_constraints(), pa.num_constraints());
        EXPECT_EQ(s.num_inputs(), pa.num_inputs());
        EXPECT_EQ(s.num_aux(), pa.num_aux());
        EXPECT_EQ(s.matrix_entries, cm.a().num_entries() + cm.b().num_entries() + cm.c().num_entries());
        // z (zero coefficient in C only) and w (C only, zero in B) are in neither query.
        EXPECT_FALSE(pa.a_aux_density().test(2));
        EXPECT_FALSE(pa.b_aux_density().test(3));
        EXPECT_EQ(s.a_aux_density, 2u);  // x, y
    }
}

TEST(shape_pass, digest_is_stable_and_follows_every_structural_change) {
    const circuit_shape base = shape_of_variant({});
    EXPECT_EQ(shape_of_variant({}).digest, base.digest);
    EXPECT_EQ(base.digest_hex().size(), 64u);
    EXPECT_EQ(base.digest_key(), base.digest_hex().substr(0, 16));

    variant coeff;
    coeff.coeff = 6;
    variant swapped;
    swapped.swap_a_b = true;
    variant extra;
    extra.extra = true;
    variant moved;
    moved.move_term = true;
    variant kind;
    kind.aux_not_input = true;
    for (const variant& v : {coeff, swapped, extra, moved, kind}) {
        const circuit_shape s = shape_of_variant(v);
        EXPECT_NE(s.digest, base.digest);
    }
    // Counts equal where only the structure changed: a counts-only key would reuse the entry.
    for (const variant& v : {coeff, swapped, moved}) {
        const circuit_shape s = shape_of_variant(v);
        EXPECT_EQ(s.hint(), base.hint());
        EXPECT_EQ(s.matrix_entries, base.matrix_entries);
    }
    // Swapping A and B changes the densities too; a changed coefficient does not.
    EXPECT_EQ(shape_of_variant(coeff).a_aux_density, base.a_aux_density);
    EXPECT_NE(shape_of_variant(swapped).b_aux_density, base.b_aux_density);
}

TEST(shape_pass, hash_chain_digest_depends_on_the_length_and_the_constant) {
    hash_chain a, b, c;
    a.steps = b.steps = 10;
    c.steps = 11;
    b.k = fr::from_u64(8);
    const auto sa = shape_of([&](shape_pass& p) { a.synthesize(p); });
    const auto sb = shape_of([&](shape_pass& p) { b.synthesize(p); });
    const auto sc = shape_of([&](shape_pass& p) { c.synthesize(p); });
    EXPECT_EQ(sa, shape_of([&](shape_pass& p) { a.synthesize(p); }));
    EXPECT_NE(sa.digest, sb.digest);
    EXPECT_EQ(sa.hint(), sb.hint());
    EXPECT_NE(sa.digest, sc.digest);
}

TEST(shape_pass, misuse_is_an_internal_error) {
    shape_pass p;
    p.enforce_input_constraints();
    EXPECT_THROW(p.enforce_input_constraints(), error);
    EXPECT_THROW(p.alloc_input([] { return "late"; }, [] { return fr::one(); }), error);
    EXPECT_THROW(p.enforce([] { return ""; }, [](auto lc) { return lc; }, [](auto lc) { return lc; },
                           [](auto lc) { return lc; }),
                 error);
    const circuit_shape s = p.finish();
    EXPECT_EQ(s.num_constraints(), 1u);  // the one's input constraint
    EXPECT_THROW(p.finish(), error);
}

}  // namespace
}  // namespace c2lab::r1cs

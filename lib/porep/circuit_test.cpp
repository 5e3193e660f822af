// The StackedDRG circuit against rust-fil-proofs' counts, and against C1 files from the
// generator: every constraint satisfied, the public inputs the verifier derives, and
// tampering caught.
#include "porep/circuit.hpp"

#include <gtest/gtest.h>

#include "porep/generator.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_constraint_system.hpp"

namespace c2lab::porep {
namespace {

constexpr uint64_t kib2 = 2048;

// The first index where a * b != c, or -1.
long first_unsatisfied(const r1cs::proving_assignment<r1cs::vec_indexer>& pa) {
    for (size_t i = 0; i < pa.num_constraints(); ++i)
        if (!(pa.a()[i] * pa.b()[i] == pa.c()[i])) return static_cast<long>(i);
    return -1;
}

r1cs::proving_assignment<r1cs::vec_indexer> synthesize(const stacked_circuit& c) {
    r1cs::proving_assignment<r1cs::vec_indexer> pa;
    c.synthesize(pa);
    return pa;
}

// The counts of storage-proofs-porep's layout (stacked/circuit tests, with the SHA-256 and
// Poseidon costs of bellperson and neptune): constraints before the input constraints, and
// public inputs with the one.
TEST(stacked_circuit, shape_2kib_matches_rust_fil_proofs) {
    const porep_config& cfg = config_for_sector(kib2);
    r1cs::shape_counter sc;
    stacked_circuit::blank(cfg).synthesize(sc);
    EXPECT_EQ(sc.num_constraints(), 2'687'921u);
    EXPECT_EQ(sc.num_inputs(), 40u);
}

// One 2 KiB file, generated once for the tests below.
const c1_file& file_2kib() {
    static const c1_file f = generate_c1(config_for_sector(kib2), 7);
    return f;
}

TEST(stacked_circuit, generated_2kib_is_satisfied_with_the_derived_inputs) {
    const porep_config& cfg = config_for_sector(kib2);
    const c1_output& c1 = file_2kib().phase1_out;
    const stacked_circuit c = construct_circuit(cfg, c1, 0);
    auto pa = synthesize(c);
    EXPECT_EQ(first_unsatisfied(pa), -1);
    r1cs::shape_counter sc;
    stacked_circuit::blank(cfg).synthesize(sc);
    EXPECT_EQ(pa.num_constraints(), sc.num_constraints());
    EXPECT_EQ(pa.num_aux(), sc.num_aux());
    // The circuit's public inputs are the ones the verifier derives from the commitments,
    // the seed and the graph.
    const std::vector<fr> derived = public_inputs(cfg, c1, 0);
    ASSERT_EQ(pa.num_inputs(), derived.size() + 1);
    for (size_t i = 0; i < derived.size(); ++i) EXPECT_EQ(pa.input_assignment()[i + 1], derived[i]) << "input " << i + 1;
    // Another seed gives other challenges, so other inputs.
    std::array<uint8_t, 32> seed = c1.seed;
    seed[0] ^= 1;
    EXPECT_NE(public_inputs(cfg, c1.replica_id, c1.comm_d, c1.comm_r, seed, 0), derived);
}

// synth_challenges=parallel: the challenges synthesized on several threads into forked parts and
// appended give the serial assignment bit for bit, densities included, in every indexer the
// prover synthesizes into; and it is still satisfied.
template <class Indexer>
void expect_same_assignment(const r1cs::proving_assignment<Indexer>& got,
                            const r1cs::proving_assignment<Indexer>& want) {
    ASSERT_EQ(got.num_constraints(), want.num_constraints());
    EXPECT_TRUE(got.a() == want.a());
    EXPECT_TRUE(got.b() == want.b());
    EXPECT_TRUE(got.c() == want.c());
    EXPECT_TRUE(got.input_assignment() == want.input_assignment());
    EXPECT_TRUE(got.aux_assignment() == want.aux_assignment());
    EXPECT_TRUE(got.a_aux_density() == want.a_aux_density());
    EXPECT_TRUE(got.b_aux_density() == want.b_aux_density());
    EXPECT_TRUE(got.b_input_density() == want.b_input_density());
}

template <class Indexer>
void expect_parallel_equals_serial() {
    const porep_config& cfg = config_for_sector(kib2);
    stacked_circuit c = construct_circuit(cfg, file_2kib().phase1_out, 0);
    ASSERT_GE(c.challenges.size(), 2u);
    r1cs::proving_assignment<Indexer> serial, parallel;
    c.synthesize(serial);
    EXPECT_GT(serial.b_aux_density().count(), 0u);
    c.parallel_challenges = true;
    c.synthesize(parallel);
    expect_same_assignment(parallel, serial);
    // Again on the vectors it gives up (witness_memory=reuse): the parts' vectors come along
    // and the next forks write into them.
    r1cs::assignment_buffers kept = std::move(parallel).take_buffers();
    EXPECT_EQ(kept.parts.size(), c.challenges.size());
    const fr* part_a = kept.parts.front().a.data();
    r1cs::proving_assignment<Indexer> again({}, r1cs::presize_mode::off, std::move(kept));
    c.synthesize(again);
    expect_same_assignment(again, serial);
    kept = std::move(again).take_buffers();
    ASSERT_EQ(kept.parts.size(), c.challenges.size());
    bool reused = false;
    for (const auto& p : kept.parts) reused = reused || p.a.data() == part_a;
    EXPECT_TRUE(reused) << "a part's vector was not reused";
}

TEST(stacked_circuit, parallel_challenges_give_the_serial_assignment) {
    expect_parallel_equals_serial<r1cs::vec_indexer>();
    expect_parallel_equals_serial<r1cs::smallvec_indexer<2>>();
}

TEST(stacked_circuit, append_takes_siblings_in_order_and_refuses_a_stale_part) {
    r1cs::proving_assignment<r1cs::vec_indexer> pa;
    pa.push_aux(fr::one());
    auto first = fork_part(pa, 1), second = fork_part(pa, 1);
    first.push_aux(fr::from_u64(2));
    second.push_aux(fr::from_u64(3));
    second.push_input(fr::from_u64(4));
    append_part(pa, std::move(first));
    append_part(pa, std::move(second));  // a sibling: forked from the same state
    ASSERT_EQ(pa.num_aux(), 3u);
    EXPECT_EQ(pa.aux_assignment()[1], fr::from_u64(2));
    EXPECT_EQ(pa.aux_assignment()[2], fr::from_u64(3));
    ASSERT_EQ(pa.num_inputs(), 2u);  // the one, then the part's input
    EXPECT_EQ(pa.input_assignment()[1], fr::from_u64(4));
    auto stale = fork_part(pa, 1);
    pa.push_aux(fr::from_u64(5));  // allocated here after the fork
    EXPECT_THROW(append_part(pa, std::move(stale)), error);
    pa.enforce_input_constraints();
    EXPECT_THROW((void)fork_part(pa, 1), error);
}

TEST(stacked_circuit, generation_is_deterministic) {
    const porep_config& cfg = config_for_sector(kib2);
    EXPECT_EQ(generate_c1(cfg, 7), file_2kib());
    EXPECT_NE(generate_c1(cfg, 8).phase1_out.comm_r, file_2kib().phase1_out.comm_r);
}

// Tampering with the vanilla proofs breaks a constraint: each of these values is bound.
TEST(stacked_circuit, tampered_witness_is_unsatisfied) {
    // Each changed value in challenge 0 is caught by a circuit of that challenge alone (half the
    // synthesis); the two in challenge 1 by the whole partition's, so that a challenge after the
    // first is checked too.
    porep_config one = config_for_sector(kib2);
    one.challenges_per_partition = 1;
    const c1_output& good = file_2kib().phase1_out;
    auto flip = [](domain& d) { d[3] ^= 0x10; };
    struct tamper {
        const char* name;
        size_t challenge;
        std::function<void(c1_output&)> mutate;
    };
    const std::vector<tamper> cases = {
        {"data leaf", 0, [&](c1_output& o) { flip(o.vanilla_proofs[0][0].comm_d_proofs.leaf); }},
        {"comm_d sibling", 1, [&](c1_output& o) { flip(o.vanilla_proofs[0][1].comm_d_proofs.base_path[2].hashes[0]); }},
        {"drg parent row", 0, [&](c1_output& o) { flip(o.vanilla_proofs[0][0].replica_column_proofs.drg_parents[3].col.rows[1]); }},
        {"exp parent row", 0, [&](c1_output& o) { flip(o.vanilla_proofs[0][0].replica_column_proofs.exp_parents[7].col.rows[0]); }},
        {"tree_c sibling", 0, [&](c1_output& o) { flip(o.vanilla_proofs[0][0].replica_column_proofs.c_x.inclusion_proof.base_path[1].hashes[6]); }},
        {"tree_r_last sibling", 1, [&](c1_output& o) { flip(o.vanilla_proofs[0][1].comm_r_last_proof.base_path[0].hashes[0]); }},
        {"comm_r", 0, [&](c1_output& o) { flip(o.comm_r); }},
        {"path index", 0, [&](c1_output& o) { auto& e = o.vanilla_proofs[0][0].comm_r_last_proof.base_path[0]; e.index = (e.index + 1) % 8; }},
    };
    {
        c1_output c1 = good;  // the untampered one-challenge circuit is satisfied
        c1.vanilla_proofs[0].resize(1);
        EXPECT_EQ(first_unsatisfied(synthesize(construct_circuit(one, c1, 0))), -1);
    }
    for (const tamper& t : cases) {
        c1_output bad = good;
        t.mutate(bad);
        if (t.challenge == 0) bad.vanilla_proofs[0].resize(1);
        const porep_config& cfg = t.challenge == 0 ? one : config_for_sector(kib2);
        EXPECT_NE(first_unsatisfied(synthesize(construct_circuit(cfg, bad, 0))), -1) << t.name;
    }
}

// With names: a reduced 2 KiB configuration (one challenge) in the test constraint system,
// to check namespaces are unique and that the failing constraint is named.
TEST(stacked_circuit, named_constraints_one_challenge) {
    porep_config cfg = config_for_sector(kib2);
    cfg.challenges_per_partition = 1;
    c1_output c1 = file_2kib().phase1_out;
    c1.vanilla_proofs[0].resize(1);
    const stacked_circuit c = construct_circuit(cfg, c1, 0);
    r1cs::test_constraint_system<> cs;
    c.synthesize(cs);
    EXPECT_FALSE(cs.which_is_unsatisfied().has_value());
    EXPECT_EQ(cs.num_inputs(), 22u);  // as rust-fil-proofs' one-challenge test
    c1.vanilla_proofs[0][0].replica_column_proofs.drg_parents[0].col.rows[0][0] ^= 1;
    r1cs::test_constraint_system<> cs_bad;
    construct_circuit(cfg, c1, 0).synthesize(cs_bad);
    auto which = cs_bad.which_is_unsatisfied();
    ASSERT_TRUE(which.has_value());
    EXPECT_NE(which->find("challenge_0/drg_parent_0_inclusion"), std::string::npos) << *which;
}

TEST(stacked_circuit, construct_names_bad_counts) {
    const porep_config& cfg = config_for_sector(kib2);
    auto expect_error = [&](std::function<void(c1_output&)> mutate, const std::string& needle) {
        c1_output bad = file_2kib().phase1_out;
        mutate(bad);
        try {
            (void)construct_circuit(cfg, bad, 0);
            ADD_FAILURE() << "accepted: " << needle;
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expect_error([](c1_output& o) { o.vanilla_proofs[0].pop_back(); }, "challenges");
    expect_error([](c1_output& o) { o.vanilla_proofs[0][1].replica_column_proofs.drg_parents.pop_back(); },
                 "vanilla_proofs[0][1].replica_column_proofs.drg_parents");
    expect_error([](c1_output& o) { o.vanilla_proofs[0][0].replica_column_proofs.exp_parents[2].col.rows.pop_back(); },
                 "exp_parents[2].column.rows");
    expect_error([](c1_output& o) { o.vanilla_proofs[0][0].comm_d_proofs.base_path.pop_back(); },
                 "comm_d_proofs.base_path");
    expect_error([](c1_output& o) { o.vanilla_proofs[0][0].comm_r_last_proof.base_path[1].hashes.pop_back(); },
                 "comm_r_last_proof.base_path[1].hashes");
    expect_error([](c1_output& o) { o.vanilla_proofs[0][0].comm_r_last_proof.base_path[1].index = 8; },
                 "comm_r_last_proof.base_path[1].index");
    expect_error([](c1_output& o) { o.registered_proof = "StackedDrg8MiBV1_1"; }, "registered_proof");
}

}  // namespace
}  // namespace c2lab::porep

// The shape pass on the PoRep circuit and what is keyed by it: counts and densities equal
// the proving assignment's (2 KiB, partition 0 of a generated sector), the structure does not
// depend on the witness, the parameters file has exactly the size the shape gives (hash
// chain; 2 KiB through the cache, optimised build only), the cache entries are named by the
// digest and parameters of another structure are refused, and the shape memo round-trips,
// refuses what is not its own and is used by count_porep_shape.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

#include "core/rng.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"
#include "pipeline/scoped_cache_dir.hpp"
#include "pipeline/batch.hpp"
#include "pipeline/params_cache.hpp"
#include "pipeline/shape_memo.hpp"
#include "porep/circuit.hpp"
#include "porep/generator.hpp"
#include "r1cs/test_circuits.hpp"

namespace c2lab::pipeline {
namespace {

namespace fs = std::filesystem;

// A fresh C2LAB_CACHE_DIR per test.
class with_cache : public ::testing::Test {
protected:
    void SetUp() override {
        cache_.emplace(std::string("shape-test-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        dir_ = cache_->path();
    }
    void TearDown() override { cache_.reset(); }
    std::optional<scoped_cache_dir> cache_;
    fs::path dir_;
};

TEST(porep_shape, pass_matches_the_proving_assignment_2kib) {
    const porep::porep_config& cfg = porep::config_for_sector(2048);
    const r1cs::circuit_shape blank = synthesize_porep_shape(cfg);
    const porep::c1_file file = porep::generate_c1(cfg, 1);
    const porep::stacked_circuit c = porep::construct_circuit(cfg, file.phase1_out, 0);
    // The structure of the circuit with its witness is the blank circuit's.
    EXPECT_EQ(r1cs::shape_of([&](r1cs::shape_pass& p) { c.synthesize(p); }), blank);

    r1cs::proving_assignment<r1cs::vec_indexer> pa;
    c.synthesize(pa);
    pa.enforce_input_constraints();
    EXPECT_EQ(blank.num_constraints(), pa.num_constraints());
    EXPECT_EQ(blank.num_inputs(), pa.num_inputs());
    EXPECT_EQ(blank.num_aux(), pa.num_aux());
    EXPECT_EQ(blank.a_aux_density, pa.a_aux_density().count());
    EXPECT_EQ(blank.b_input_density, pa.b_input_density().count());
    EXPECT_EQ(blank.b_aux_density, pa.b_aux_density().count());
    // Sparse enough that the filtered queries matter (the reason the estimate needs them).
    EXPECT_LT(blank.b_aux_density, blank.num_aux() / 2);
}

TEST_F(with_cache, hash_chain_parameters_file_has_the_shape_size_and_digest) {
    const r1cs::hash_chain chain{500, ff::fr::from_u64(7), std::nullopt};
    const r1cs::circuit_shape shape = r1cs::shape_of([&](r1cs::shape_pass& p) { chain.synthesize(p); });
    r1cs::constraint_matrices<> cs;
    chain.synthesize(cs);
    cs.enforce_input_constraints();
    rng g(3);
    groth16::parameters params = groth16::generate_parameters(cs, g);
    params.circuit_digest = shape.digest;
    const std::string path = params_path("hash-chain", shape);
    EXPECT_NE(path.find("hash-chain-" + shape.digest_key() + ".params"), std::string::npos) << path;
    fs::create_directories(fs::path(path).parent_path());
    groth16::write_parameters(path, params);
    EXPECT_EQ(fs::file_size(path), params_file_bytes(shape));
    const groth16::parameters back = groth16::read_parameters(path);
    EXPECT_EQ(back.circuit_digest, shape.digest);
    EXPECT_NO_THROW(check_params_circuit(back, shape, path));

    // Another constant: the same counts and densities, another structure, another entry; its
    // parameters are refused for this circuit with both digests named.
    const r1cs::hash_chain other{500, ff::fr::from_u64(8), std::nullopt};
    const r1cs::circuit_shape other_shape = r1cs::shape_of([&](r1cs::shape_pass& p) { other.synthesize(p); });
    EXPECT_EQ(other_shape.hint(), shape.hint());
    EXPECT_EQ(other_shape.b_query_size(), shape.b_query_size());
    EXPECT_NE(params_path("hash-chain", other_shape), path);
    try {
        check_params_circuit(back, other_shape, path);
        FAIL() << "parameters of another structure accepted";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        const std::string m = e.what();
        EXPECT_NE(m.find(shape.digest_hex()), std::string::npos) << m;
        EXPECT_NE(m.find(other_shape.digest_hex()), std::string::npos) << m;
        EXPECT_NE(m.find(path), std::string::npos) << m;
    }
    // Parameters that recorded no digest are refused too.
    groth16::parameters unknown = back;
    unknown.circuit_digest = {};
    EXPECT_THROW(check_params_circuit(unknown, shape, path), error);
    // Another length: refused by the counts.
    const r1cs::hash_chain longer{501, ff::fr::from_u64(7), std::nullopt};
    const r1cs::circuit_shape longer_shape = r1cs::shape_of([&](r1cs::shape_pass& p) { longer.synthesize(p); });
    EXPECT_THROW(check_params_circuit(back, longer_shape, path), error);
}

// About 3 minutes of setup on 2 cores: left out of the sanitizer run (scripts/test.sh).
// The 2 KiB circuit's cached parameters against the shape pass (the entry's name by digest, its
// exact size) are checked by cli/porep_e2e_test.sh, which makes them anyway: a setup of 2 KiB
// here would cost another 90-110 s of CI.

TEST_F(with_cache, shape_memo_round_trip_refusals_and_use) {
    const std::string id = binary_build_id();
    ASSERT_FALSE(id.empty()) << "the test binary has no GNU build-id (link with -Wl,--build-id)";
    EXPECT_EQ(id.size() % 2, 0u);
    const porep::porep_config& cfg = porep::config_for_sector(2048);
    const std::string path = shape_memo_path(cfg.registered_proof);
    EXPECT_NE(path.find(cfg.registered_proof + "-" + id + ".shape"), std::string::npos) << path;
    EXPECT_FALSE(read_shape_memo(path, cfg.registered_proof, id).has_value());

    // The first count makes the memo; it holds what the pass finds.
    const r1cs::circuit_shape s = count_porep_shape(cfg);
    ASSERT_TRUE(fs::exists(path));
    const auto memo = read_shape_memo(path, cfg.registered_proof, id);
    ASSERT_TRUE(memo.has_value());
    EXPECT_EQ(*memo, s);
    EXPECT_EQ(*memo, synthesize_porep_shape(cfg));

    auto refused = [&](const std::string& proof, const std::string& build, const std::string& words) {
        try {
            (void)read_shape_memo(path, proof, build);
            ADD_FAILURE() << "accepted: " << words;
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
    };
    refused("StackedDrg8MiBV1_1", id, "expected StackedDrg8MiBV1_1");
    refused(cfg.registered_proof, "00", "build id");

    // A memo is what count_porep_shape returns for this binary (here one with another digest).
    r1cs::circuit_shape planted = s;
    planted.digest[0] ^= 1;
    write_shape_memo(path, cfg.registered_proof, id, planted);
    EXPECT_EQ(count_porep_shape(cfg), planted);

    // A damaged memo is refused by its checksum, and count_porep_shape makes it again.
    {
        std::fstream f(path, std::ios::in | std::ios::out);
        f.seekp(20);
        f.put('#');
    }
    refused(cfg.registered_proof, id, "checksum mismatch");
    EXPECT_EQ(count_porep_shape(cfg), s);
    EXPECT_EQ(read_shape_memo(path, cfg.registered_proof, id), s);

    // A custom shape is never memoized.
    const porep::porep_config custom = cfg;  // a copy: not one of the registered configs
    EXPECT_FALSE(is_registered_config(custom));
    EXPECT_TRUE(is_registered_config(cfg));
}

}  // namespace
}  // namespace c2lab::pipeline

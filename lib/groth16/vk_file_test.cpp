#include "groth16/vk_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/rng.hpp"
#include "ec/encoding.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

namespace {

using namespace c2lab;
using namespace c2lab::groth16;
namespace fs = std::filesystem;

constexpr size_t fixed_bytes = 96 * 3 + 192 * 3 + 4;  // the six points and the ic count

// A hash chain's parameters and one proof of it.
struct chain_case {
    parameters params;
    proof p;
    fr out;

    static const chain_case& get() {
        static const chain_case c = [] {
            const r1cs::hash_chain chain{20, fr::from_u64(7), fr::from_u64(3)};
            r1cs::constraint_matrices<> cs;
            chain.synthesize(cs);
            cs.enforce_input_constraints();
            rng g(11);
            chain_case s;
            s.params = generate_parameters(cs, g);
            r1cs::proving_assignment<r1cs::vec_indexer> pa;
            chain.synthesize(pa);
            pa.enforce_input_constraints();
            s.p = create_proof(s.params, pa, fr::random(g), fr::random(g));
            s.out = r1cs::hash_chain::output(fr::from_u64(3), fr::from_u64(7), 20);
            return s;
        }();
        return c;
    }
};

class vk_file : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("c2lab_vk_file_" + std::to_string(::getpid()) + "_" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    // The c2lab::error that read_verifying_key(file) throws, after writing bytes to file.
    error refusal(const std::string& file, const std::vector<uint8_t>& bytes) const {
        write_file_atomic(file, bytes);
        try {
            read_verifying_key(file);
        } catch (const error& e) {
            EXPECT_EQ(std::string(e.what()).rfind(file + ": ", 0), 0u) << "the message starts with the path: " << e.what();
            return e;
        }
        ADD_FAILURE() << file << " was accepted";
        return error(errc::internal, "");
    }

private:
    fs::path dir_;
};

bool contains(const error& e, const std::string& needle) { return std::string(e.what()).find(needle) != std::string::npos; }

TEST_F(vk_file, written_beside_the_parameters_and_read_back) {
    const chain_case& c = chain_case::get();
    const std::string params = path("chain.params");
    EXPECT_EQ(vk_path_beside(params), params + ".vk");
    write_parameters_and_vk(params, c.params);
    const std::vector<uint8_t> bytes = read_file(params + ".vk");
    EXPECT_EQ(bytes, encode_verifying_key(c.params.vk));  // bellperson's layout, byte for byte
    EXPECT_EQ(bytes.size(), fixed_bytes + 96 * c.params.vk.ic.size());
    const verifying_key vk = read_verifying_key(params + ".vk");
    EXPECT_EQ(vk, c.params.vk);
    EXPECT_EQ(vk, read_parameters(params).vk);
    const prepared_verifying_key pvk = prepare_verifying_key(vk);
    EXPECT_TRUE(verify_proof(pvk, c.p, std::vector<fr>{c.out}));
    EXPECT_FALSE(verify_proof(pvk, c.p, std::vector<fr>{c.out + fr::one()}));
}

TEST_F(vk_file, ensure_vk_beside_makes_a_missing_one_and_keeps_an_existing_one) {
    const chain_case& c = chain_case::get();
    const std::string params = path("chain.params");
    write_parameters(params, c.params);  // parameters alone, as an older c2lab wrote them
    ASSERT_FALSE(fs::exists(params + ".vk"));
    EXPECT_EQ(ensure_vk_beside(params), params + ".vk");
    EXPECT_EQ(read_file(params + ".vk"), encode_verifying_key(c.params.vk));
    write_file_atomic(params + ".vk", std::vector<uint8_t>{1, 2, 3});
    ensure_vk_beside(params);  // there: left alone
    EXPECT_EQ(read_file(params + ".vk").size(), 3u);
    write_parameters_and_vk(params, c.params);  // a new setup replaces it
    EXPECT_EQ(read_file(params + ".vk"), encode_verifying_key(c.params.vk));
}

TEST_F(vk_file, missing_file_is_an_io_error_naming_it) {
    const std::string file = path("absent.vk");
    try {
        read_verifying_key(file);
        FAIL();
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::io);
        EXPECT_TRUE(contains(e, file)) << e.what();
    }
}

TEST_F(vk_file, truncated_and_overlong_files_are_refused) {
    const std::vector<uint8_t> good = encode_verifying_key(chain_case::get().params.vk);
    for (size_t size : {size_t{0}, size_t{95}, fixed_bytes - 1, fixed_bytes, good.size() - 96, good.size() - 1}) {
        const error e = refusal(path("cut.vk"), std::vector<uint8_t>(good.begin(), good.begin() + long(size)));
        EXPECT_EQ(e.kind(), errc::bad_length) << size << ": " << e.what();
        EXPECT_TRUE(contains(e, "truncated")) << e.what();
    }
    std::vector<uint8_t> longer = good;
    longer.push_back(0);
    const error e = refusal(path("long.vk"), longer);
    EXPECT_EQ(e.kind(), errc::bad_length);
    EXPECT_TRUE(contains(e, "ic count")) << e.what();
    EXPECT_TRUE(contains(e, "trailing bytes")) << e.what();
}

TEST_F(vk_file, a_flipped_byte_makes_the_point_invalid) {
    const std::vector<uint8_t> good = encode_verifying_key(chain_case::get().params.vk);
    const struct {
        size_t offset;  // the last byte of the element (its y coordinate's lowest byte)
        const char* element;
    } cases[] = {
        {95, "alpha_g1"},
        {96 + 95, "beta_g1"},
        {192 + 191, "beta_g2"},
        {192 + 192 + 191, "gamma_g2"},
        {576 + 95, "delta_g1"},
        {672 + 191, "delta_g2"},
        {fixed_bytes + 95, "ic[0]"},
        {fixed_bytes + 96 + 95, "ic[1]"},
    };
    for (const auto& c : cases) {
        std::vector<uint8_t> bad = good;
        bad[c.offset] ^= 0x01;
        const error e = refusal(path("flipped.vk"), bad);
        EXPECT_EQ(e.kind(), errc::not_on_curve) << c.element << ": " << e.what();
        EXPECT_TRUE(contains(e, std::string("verifying key ") + c.element)) << e.what();
    }
    // The compression flag set on an uncompressed encoding.
    std::vector<uint8_t> flagged = good;
    flagged[0] |= 0x80;
    EXPECT_EQ(refusal(path("flag.vk"), flagged).kind(), errc::bad_flags);
}

TEST_F(vk_file, a_point_outside_the_subgroup_is_refused) {
    verifying_key vk = chain_case::get().params.vk;
    for (uint64_t i = 1;; ++i) {  // a point of E(Fp) outside G1 (the cofactor is large: the first one found)
        const ff::fp x = ff::fp::from_u64(i);
        const auto y = (x.square() * x + ec::g1_curve::b).sqrt();
        if (!y) continue;
        vk.ic[1] = g1_affine{x, *y};
        break;
    }
    const error e = refusal(path("subgroup.vk"), encode_verifying_key(vk));
    EXPECT_EQ(e.kind(), errc::not_in_subgroup) << e.what();
    EXPECT_TRUE(contains(e, "verifying key ic[1]")) << e.what();
}

TEST_F(vk_file, an_ic_count_that_does_not_match_is_refused) {
    const chain_case& c = chain_case::get();
    std::vector<uint8_t> bytes = encode_verifying_key(c.params.vk);
    ASSERT_EQ(c.params.vk.ic.size(), 2u);  // the constant one and the chain's output
    // The count says 3, two points follow.
    bytes[fixed_bytes - 1] = 3;
    error e = refusal(path("count.vk"), bytes);
    EXPECT_EQ(e.kind(), errc::bad_length);
    EXPECT_TRUE(contains(e, "ic count 3")) << e.what();
    // A consistent file with one point fewer decodes, and verification refuses the inputs.
    bytes[fixed_bytes - 1] = 1;
    bytes.resize(bytes.size() - 96);
    write_file_atomic(path("short.vk"), bytes);
    const verifying_key vk = read_verifying_key(path("short.vk"));
    EXPECT_EQ(vk.ic.size(), 1u);
    try {
        verify_proof(prepare_verifying_key(vk), c.p, std::vector<fr>{c.out});
        FAIL();
    } catch (const error& err) {
        EXPECT_EQ(err.kind(), errc::bad_input);
        EXPECT_TRUE(contains(err, "1 public inputs, the verifying key expects 0")) << err.what();
    }
}

}  // namespace

// The pre-compiled circuit's cache and the prove paths' jobs: the cache builds, writes and
// reloads the same circuit, rebuilds a corrupt file, and a synth=pce job hands the prover
// the same witness as a synth=direct one (every span and density, compared exactly).
#include "pipeline/scoped_cache_dir.hpp"
#include "pipeline/pce_cache.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

#include "pipeline/params_cache.hpp"
#include "porep/generator.hpp"

namespace c2lab::pipeline {
namespace {

namespace fs = std::filesystem;

class pce_cache : public ::testing::Test {
protected:
    void SetUp() override {
        cache_.emplace("pce-cache-test");
        dir_ = cache_->path();
    }
    void TearDown() override { cache_.reset(); }
    std::optional<scoped_cache_dir> cache_;
    fs::path dir_;
};

bool same(std::span<const ff::fr> x, std::span<const ff::fr> y) { return std::equal(x.begin(), x.end(), y.begin(), y.end()); }

TEST_F(pce_cache, builds_reloads_and_rebuilds_a_corrupt_file) {
    const porep::porep_config& cfg = porep::config_for_sector(2048);
    const r1cs::circuit_shape sc = count_porep_shape(cfg);
    const std::string path = porep_pce_path(cfg, sc);
    EXPECT_EQ(fs::path(path).parent_path(), fs::path(porep_params_path(cfg, sc)).parent_path());
    EXPECT_EQ(fs::path(path).extension(), ".pce");

    // synth=auto: direct until the cache holds the circuit's pre-compiled file, then pce; direct
    // and pce as they are; direct for a circuit that is not PoRep's.
    using r1cs::synth_mode;
    EXPECT_EQ(resolve_synth(synth_mode::automatic, &cfg, sc), synth_mode::direct);
    EXPECT_EQ(resolve_synth(synth_mode::pce, &cfg, sc), synth_mode::pce);

    std::vector<std::string> said;
    auto progress = [&](const std::string& l) { said.push_back(l); };
    const auto built = ensure_porep_pce(cfg, sc, progress);
    ASSERT_TRUE(fs::exists(path));
    EXPECT_EQ(resolve_synth(synth_mode::automatic, &cfg, sc), synth_mode::pce);
    EXPECT_EQ(resolve_synth(synth_mode::direct, &cfg, sc), synth_mode::direct);
    EXPECT_EQ(resolve_synth(synth_mode::automatic, nullptr, sc), synth_mode::direct);
    EXPECT_EQ(built->shape(), sc.hint());
    EXPECT_EQ(built->tag(), porep_pce_tag(cfg, sc));  // the registered proof and the whole digest
    EXPECT_NE(path.find(sc.digest_key()), std::string::npos) << path;
    EXPECT_EQ(built->b_aux_density().count(), sc.b_aux_density);
    {  // the file of another structure is refused by its tag
        r1cs::circuit_shape other = sc;
        other.digest[31] ^= 1;
        const std::string other_tag = porep_pce_tag(cfg, other);
        EXPECT_THROW(r1cs::precompiled_circuit::load(path, nullptr, &other_tag), error);
    }
    said.clear();
    const auto loaded = ensure_porep_pce(cfg, sc, progress);
    EXPECT_TRUE(said.empty());  // from the file, silently
    EXPECT_EQ(*loaded, *built);

    {  // one byte flipped in the middle: refused, then rebuilt and replaced
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(fs::file_size(path) / 2));
        f.put('\x5a');
    }
    said.clear();
    const auto rebuilt = ensure_porep_pce(cfg, sc, progress);
    EXPECT_EQ(*rebuilt, *built);
    ASSERT_FALSE(said.empty());
    EXPECT_NE(said.front().find("checksum mismatch"), std::string::npos) << said.front();
    EXPECT_EQ(r1cs::precompiled_circuit::load(path), *built);
}

TEST_F(pce_cache, pce_and_direct_jobs_give_the_prover_the_same_witness) {
    const porep::porep_config& cfg = porep::config_for_sector(2048);
    const r1cs::circuit_shape sc = count_porep_shape(cfg);
    const porep::c1_file file = porep::generate_c1(cfg, 1);
    const porep::stacked_circuit c = porep::construct_circuit(cfg, file.phase1_out, 0);
    flag_values direct, pce;
    direct.presize = r1cs::presize_mode::on;
    pce.synth = r1cs::synth_mode::pce;
    const auto p = ensure_porep_pce(cfg, sc);
    ASSERT_NE(p, nullptr);
    EXPECT_THROW(synthesize_porep_job(c, pce, sc.hint(), nullptr), error);

    const auto jd = synthesize_porep_job(c, direct, sc.hint(), p);  // direct ignores p
    const auto jp = synthesize_porep_job(c, pce, sc.hint(), p);
    const groth16::witness_view d = jd->witness(), w = jp->witness();
    EXPECT_TRUE(same(d.a, w.a));
    EXPECT_TRUE(same(d.b, w.b));
    EXPECT_TRUE(same(d.c, w.c));
    EXPECT_TRUE(same(d.input_assignment, w.input_assignment));
    EXPECT_TRUE(same(d.aux_assignment, w.aux_assignment));
    EXPECT_EQ(d.a_aux_density, w.a_aux_density);
    EXPECT_EQ(d.b_input_density, w.b_input_density);
    EXPECT_EQ(d.b_aux_density, w.b_aux_density);
    EXPECT_EQ(d.a.size(), sc.num_constraints());

    // Both hand a, b, c over padded with zeros to the domain, the evaluations first (the direct
    // job's vectors may move as they grow: d's spans are not read after this).
    const std::vector<ff::fr> c_expected(d.c.begin(), d.c.end());
    std::size_t n = 1;
    while (n < sc.num_constraints()) n <<= 1;
    for (prepared_job* j : {jd.get(), jp.get()}) {
        const auto abc = j->hand_over_abc(n);
        ASSERT_TRUE(abc.has_value());
        ASSERT_EQ(abc->c.size(), n);
        EXPECT_EQ(abc->c.data(), j->witness().c.data());
        EXPECT_TRUE(same(abc->c.first(sc.num_constraints()), c_expected));
        EXPECT_TRUE(std::all_of(abc->c.begin() + sc.num_constraints(), abc->c.end(), [](const ff::fr& x) { return x.is_zero(); }));
    }
    EXPECT_FALSE(jp->hand_over_abc(2 * n).has_value());  // the pce buffers are sized for its domain only
}

}  // namespace
}  // namespace c2lab::pipeline

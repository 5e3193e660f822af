// The pre-compiled path against the direct one: for the same circuit and witness, the
// product of the pre-compiled matrices with (inputs ++ aux) must give exactly the a, b, c,
// densities, inputs and aux that proving_assignment computes constraint by constraint
// (an independent evaluation: the linear combinations themselves, with bellperson's
// density rules). Then the file: a round trip, and corrupt or mismatched files refused.
#include "r1cs/pce.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <unistd.h>

#include <xxhash.h>

#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "porep/circuit.hpp"
#include "porep/generator.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"
#include "r1cs/witness_assignment.hpp"

namespace c2lab::r1cs {
namespace {

// A circuit of random linear combinations: terms over inputs (the one included) and aux,
// with coefficients 1, -1, 2^k, 0 (kept in the lc, never a density bit) and random ones,
// repeated variables (merged by the lc) and empty sides. The witness is random.
struct random_circuit {
    size_t inputs = 5, aux = 60, constraints = 300;
    uint64_t seed = 1;
    bool with_values = true;

    template <class CS>
    void synthesize(CS& cs) const {
        rng g(seed);
        std::vector<variable> in{CS::one()}, ax;
        for (size_t i = 1; i < inputs; ++i) {
            const fr v = fr::random(g);
            in.push_back(cs.alloc_input([] { return "in"; }, [&] { return v; }));
        }
        for (size_t i = 0; i < aux; ++i) {
            const fr v = fr::random(g);
            ax.push_back(cs.alloc([] { return "aux"; }, [&] { return v; }));
        }
        auto coeff = [&g]() -> fr {
            switch (g.next() % 6) {
                case 0: return fr::one();
                case 1: return -fr::one();
                case 2: return fr::from_u64(uint64_t{1} << (g.next() % 60));
                case 3: return fr::zero();
                case 4: return fr::from_u64(g.next() % 5);  // a small dictionary: repeats
                default: return fr::random(g);
            }
        };
        auto side = [&](auto lc) {
            const size_t n = g.next() % 6;  // 0..5 terms; 0: an empty side
            for (size_t t = 0; t < n; ++t) {
                const bool input = g.next() % 4 == 0;
                const variable v = input ? in[g.next() % in.size()] : ax[g.next() % ax.size()];
                lc.add(v, coeff());
            }
            return lc;
        };
        for (size_t k = 0; k < constraints; ++k) {
            auto a = side(typename CS::lc_type{});
            auto b = side(typename CS::lc_type{});
            auto c = side(typename CS::lc_type{});
            cs.enforce([] { return "c"; }, [&](auto) { return a; }, [&](auto) { return b; }, [&](auto) { return c; });
        }
    }
};

// Through the recorded matrices, and compiled as the circuit synthesizes (what the cache
// builds): both must give the same circuit, file bytes included.
template <class Circuit>
precompiled_circuit compile(const Circuit& circuit, const std::string& tag = "test") {
    constraint_matrices<> m;
    circuit.synthesize(m);
    m.enforce_input_constraints();
    precompiled_circuit recorded = precompiled_circuit::from_matrices(m, tag);
    pce_constraint_system<> cs;
    circuit.synthesize(cs);
    cs.enforce_input_constraints();
    const precompiled_circuit streamed = std::move(cs).finish(tag);
    EXPECT_TRUE(streamed == recorded) << "pce_constraint_system and from_matrices differ";
    EXPECT_EQ(streamed.serialize(), recorded.serialize());
    return recorded;
}

// Every output of the two paths, compared exactly.
template <class Circuit>
void expect_paths_agree(const Circuit& circuit, const precompiled_circuit& pce, unsigned threads = 0) {
    proving_assignment<vec_indexer> pa;
    circuit.synthesize(pa);
    pa.enforce_input_constraints();
    witness_assignment wa;
    circuit.synthesize(wa);
    wa.enforce_input_constraints();

    ASSERT_EQ(wa.num_constraints(), pa.num_constraints());
    ASSERT_EQ(pce.num_constraints(), pa.num_constraints());
    EXPECT_EQ(wa.input_assignment(), pa.input_assignment());
    EXPECT_EQ(wa.aux_assignment(), pa.aux_assignment());
    const auto e = parallel::in_arena(threads, [&] { return pce.evaluate(wa.input_assignment(), wa.aux_assignment()); });
    size_t first_diff = SIZE_MAX;
    for (size_t i = 0; i < pa.num_constraints() && first_diff == SIZE_MAX; ++i)
        if (!(e.a.data()[i] == pa.a()[i]) || !(e.b.data()[i] == pa.b()[i]) || !(e.c.data()[i] == pa.c()[i]))
            first_diff = i;
    EXPECT_EQ(first_diff, SIZE_MAX) << "a, b or c differs first at constraint " << first_diff;
    EXPECT_EQ(pce.a_aux_density(), pa.a_aux_density());
    EXPECT_EQ(pce.b_input_density(), pa.b_input_density());
    EXPECT_EQ(pce.b_aux_density(), pa.b_aux_density());
}

TEST(pce, hash_chain_matches_the_proving_assignment) {
    const hash_chain circuit{50, fr::from_u64(9), fr::from_u64(4)};
    const precompiled_circuit pce = compile(hash_chain{50, fr::from_u64(9), std::nullopt});  // no witness needed
    expect_paths_agree(circuit, pce);
}

TEST(pce, random_circuits_match_serial_and_parallel) {
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        // 40000 constraints: more rows than one parallel chunk.
        const random_circuit circuit{7, 500, seed % 2 ? 300u : 40000u, seed};
        const precompiled_circuit pce = compile(circuit);
        expect_paths_agree(circuit, pce, 1);
        expect_paths_agree(circuit, pce, 2);
    }
}

// prefaulted_abc (presize=prefault's a, b and c made ahead and faulted in by a thread of their
// own): the same bits as evaluate, the padding zero, and no thread below the threshold or with
// presize off / on.
TEST(pce, prefaulted_abc_evaluates_as_evaluate) {
    const random_circuit circuit{7, 500, 40000, 3};
    const precompiled_circuit pce = compile(circuit);
    witness_assignment wa;
    circuit.synthesize(wa);
    wa.enforce_input_constraints();
    const size_t m = pce.num_constraints(), padded = std::bit_ceil(m);
    const auto want = pce.evaluate(wa.input_assignment(), wa.aux_assignment(), padded);
    auto same = [&](const precompiled_circuit::evaluation& e, const char* what) {
        ASSERT_EQ(e.a.size(), padded) << what;
        ASSERT_EQ(e.b.size(), padded) << what;
        ASSERT_EQ(e.c.size(), padded) << what;
        for (size_t i = 0; i < padded; ++i) {
            ASSERT_TRUE(e.a.data()[i] == want.a.data()[i] && e.b.data()[i] == want.b.data()[i] &&
                        e.c.data()[i] == want.c.data()[i])
                << what << ": differs at " << i;
            if (i >= m) {
                ASSERT_TRUE(e.a.data()[i].is_zero() && e.b.data()[i].is_zero() && e.c.data()[i].is_zero());
            }
        }
    };
    for (unsigned threads : {1u, 2u}) {
        prefaulted_abc ahead(pce, padded, presize_mode::prefault, /*min_bytes=*/0);
        EXPECT_TRUE(ahead.started());
        same(parallel::in_arena(threads, [&] { return ahead.evaluate(pce, wa.input_assignment(), wa.aux_assignment()); }),
             "prefault");
    }
    for (presize_mode p : {presize_mode::off, presize_mode::on}) {
        prefaulted_abc ahead(pce, padded, p, 0);
        EXPECT_FALSE(ahead.started()) << to_string(p);
        same(ahead.evaluate(pce, wa.input_assignment(), wa.aux_assignment()), "off / on");
    }
    prefaulted_abc below(pce, padded, presize_mode::prefault);  // 3 x 64 Ki x 32 bytes: under 1 GiB
    EXPECT_FALSE(below.started());
    same(below.evaluate(pce, wa.input_assignment(), wa.aux_assignment()), "below the threshold");
    // Buffers of another size are refused before anything is written.
    auto small = pce.make_evaluation(m - 1);
    EXPECT_EQ(small.a.size(), m);  // at least the constraints
    precompiled_circuit::evaluation mixed{fr_buffer(m), fr_buffer(m + 1), fr_buffer(m)};
    EXPECT_THROW(pce.evaluate_into(wa.input_assignment(), wa.aux_assignment(), mixed), error);
    precompiled_circuit::evaluation short_one{fr_buffer(m - 1), fr_buffer(m - 1), fr_buffer(m - 1)};
    EXPECT_THROW(pce.evaluate_into(wa.input_assignment(), wa.aux_assignment(), short_one), error);
}

// A = 0*x + y, B = x - x (a zero after merging), C = 0*y.
struct zero_terms_circuit {
    template <class CS>
    void synthesize(CS& cs) const {
        variable x = cs.alloc([] { return "x"; }, [] { return fr::from_u64(3); });
        variable y = cs.alloc([] { return "y"; }, [] { return fr::from_u64(5); });
        cs.enforce([] { return "c"; }, [&](auto lc) { return lc + fr::zero() * x + y; },
                   [&](auto lc) { return lc + x - x; }, [&](auto lc) { return lc + fr::zero() * y; });
    }
};

TEST(pce, zero_coefficients_are_dropped_and_mark_no_density) {
    using circuit = zero_terms_circuit;
    const precompiled_circuit pce = compile(circuit{});
    EXPECT_EQ(pce.num_entries(), 1u + 1u);  // y in A, the input row's one in A
    EXPECT_FALSE(pce.a_aux_density().test(0));
    EXPECT_TRUE(pce.a_aux_density().test(1));
    EXPECT_FALSE(pce.b_aux_density().test(0));
    expect_paths_agree(circuit{}, pce);
}

TEST(pce, witness_assignment_calls_no_lc_function) {
    witness_assignment wa;
    bool called = false;
    variable x = wa.alloc([] { return "x"; }, [] { return fr::from_u64(2); });
    wa.enforce([] { return "c"; },
               [&](auto lc) {
                   called = true;
                   return lc + x;
               },
               [&](auto lc) {
                   called = true;
                   return lc;
               },
               [&](auto lc) {
                   called = true;
                   return lc;
               });
    EXPECT_FALSE(called);
    EXPECT_EQ(wa.num_constraints(), 1u);
    wa.enforce_input_constraints();
    EXPECT_EQ(wa.num_constraints(), 2u);
    EXPECT_THROW(wa.enforce_input_constraints(), error);
    EXPECT_THROW(wa.alloc_input([] { return "late"; }, [] { return fr::one(); }), error);
}

TEST(pce, evaluate_refuses_a_witness_of_another_shape) {
    const precompiled_circuit pce = compile(hash_chain{5, fr::from_u64(1), std::nullopt});
    std::vector<fr> in(pce.num_inputs()), aux(pce.num_aux() + 1);
    EXPECT_THROW(pce.evaluate(in, aux), error);
}

TEST(pce, the_compiler_refuses_terms_past_the_assignment_and_unfinished_systems) {
    pce_compiler comp;
    comp.add(0, variable::aux(3), fr::from_u64(5));
    comp.end_constraint();
    try {
        std::move(comp).finish(1, 3, "t");  // aux 3 of 3 aux variables: past the end
        FAIL() << "finish accepted a term past the assignment";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::internal);
        EXPECT_NE(std::string(e.what()).find("matrix A term 0 names a variable past the assignment"), std::string::npos)
            << e.what();
    }
    pce_compiler ok;
    ok.add(1, variable::input(1), fr::from_u64(5));
    ok.add(2, variable::aux(0), fr::zero());  // dropped
    ok.end_constraint();
    const precompiled_circuit p = std::move(ok).finish(2, 1, "t");
    ASSERT_EQ(p.b().entries.size(), 1u);
    EXPECT_EQ(p.b().entries[0].column, 1u);
    EXPECT_EQ(p.c().entries.size(), 0u);
    EXPECT_THROW(pce_compiler{}.finish(0, 1, "t"), error);  // no input: not even the one
    pce_constraint_system<> cs;
    EXPECT_THROW(std::move(cs).finish("t"), error);  // before enforce_input_constraints
}

TEST(pce, synth_mode_parses) {
    EXPECT_EQ(parse_synth_mode("direct"), synth_mode::direct);
    EXPECT_EQ(parse_synth_mode("pce"), synth_mode::pce);
    EXPECT_EQ(to_string(synth_mode::pce), "pce");
    try {
        parse_synth_mode("fast");
        FAIL();
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("'fast'"), std::string::npos);
    }
}

// ---- the 2 KiB PoRep circuit ----

TEST(pce, porep_2kib_matches_the_proving_assignment) {
    const porep::porep_config& cfg = porep::config_for_sector(2048);
    // The committed fixture datasets/fixtures/porep-2kib.json is this file (generator seed 1).
    const porep::c1_file file = porep::generate_c1(cfg, 1);
    const precompiled_circuit pce = compile(porep::stacked_circuit::blank(cfg), cfg.registered_proof);
    EXPECT_EQ(pce.num_constraints(), 2'687'921u + 40u);  // rust-fil-proofs' count + one row per input
    expect_paths_agree(porep::construct_circuit(cfg, file.phase1_out, 0), pce);
}

// ---- the file ----

class pce_file : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("c2lab-pce-test-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_);
        pce_ = compile(random_circuit{7, 500, 3000, 3}, "random-3000");
        bytes_ = pce_.serialize();
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    // The message of the error deserialize throws, or "" when it does not.
    std::string refusal(std::span<const uint8_t> b, const capacity_hint* shape = nullptr,
                        const std::string* tag = nullptr) {
        try {
            precompiled_circuit::deserialize(b, "f.pce", shape, tag);
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            return e.what();
        }
        return "";
    }
    // The XXH3-128 (canonical bytes) of everything but the last 16 bytes, from xxHash itself.
    static std::array<uint8_t, 16> checksum_of(std::span<const uint8_t> b) {
        XXH128_canonical_t c;
        XXH128_canonicalFromHash(&c, XXH3_128bits(b.data(), b.size() - 16));
        std::array<uint8_t, 16> d;
        std::memcpy(d.data(), c.digest, d.size());
        return d;
    }
    // Rewrites the trailing checksum so that a change passes it.
    static void reseal(std::vector<uint8_t>& b) {
        const auto d = checksum_of(b);
        std::memcpy(b.data() + b.size() - 16, d.data(), d.size());
    }

    std::filesystem::path dir_;
    precompiled_circuit pce_;
    std::vector<uint8_t> bytes_;
};

// Byte offsets of the header (pce.hpp): magic 0, version 8, tag length 12, constraints 16,
// inputs 24, aux 32, dictionary 40, entries 48, 56, 64; the tag at 72.
constexpr size_t off_version = 8, off_constraints = 16, off_aux = 32, off_nnz_a = 48, off_tag = 72;

TEST_F(pce_file, round_trip_through_bytes_and_a_file) {
    const capacity_hint shape = pce_.shape();
    const std::string tag = "random-3000";
    EXPECT_EQ(precompiled_circuit::deserialize(bytes_, "f.pce", &shape, &tag), pce_);
    const std::string path = (dir_ / "c.pce").string();
    pce_.save(path);
    const precompiled_circuit back = precompiled_circuit::load(path, &shape, &tag);
    EXPECT_EQ(back, pce_);
    EXPECT_EQ(back.a_aux_density(), pce_.a_aux_density());
    EXPECT_EQ(back.b_input_density(), pce_.b_input_density());
    EXPECT_EQ(back.b_aux_density(), pce_.b_aux_density());
    EXPECT_EQ(std::filesystem::file_size(path), bytes_.size());
    // and it still evaluates as the direct path does
    expect_paths_agree(random_circuit{7, 500, 3000, 3}, back);
}

TEST_F(pce_file, truncated_files_are_refused) {
    for (size_t n : {size_t{0}, size_t{10}, size_t{100}, bytes_.size() / 2, bytes_.size() - 1}) {
        const std::string m = refusal(std::span<const uint8_t>(bytes_).first(n));
        EXPECT_NE(m.find("f.pce"), std::string::npos) << m;
        EXPECT_NE(m.find("truncated"), std::string::npos) << n << ": " << m;
    }
    std::vector<uint8_t> longer = bytes_;
    longer.push_back(0);
    EXPECT_NE(refusal(longer).find("padded"), std::string::npos);
}

TEST_F(pce_file, ends_with_the_xxh3_128_of_its_contents) {
    ASSERT_GT(bytes_.size(), size_t{16});
    const auto d = checksum_of(bytes_);
    EXPECT_TRUE(std::equal(d.begin(), d.end(), bytes_.end() - 16));
    uint32_t version = 0;
    std::memcpy(&version, bytes_.data() + off_version, 4);
    EXPECT_EQ(version, 2u);  // version 1 ended with a SHA-256
    std::vector<uint8_t> b = bytes_;
    b[off_version] = 1;
    reseal(b);
    EXPECT_NE(refusal(b).find("format version 1, this c2lab reads version 2"), std::string::npos) << refusal(b);
}

TEST_F(pce_file, a_flipped_byte_is_refused) {
    for (size_t at : {off_tag + 3, bytes_.size() / 2, bytes_.size() - 40, bytes_.size() - 1}) {
        std::vector<uint8_t> b = bytes_;
        b[at] ^= 0x20;
        EXPECT_NE(refusal(b).find("checksum mismatch"), std::string::npos) << "byte " << at;
    }
    std::vector<uint8_t> b = bytes_;
    b[0] ^= 1;
    EXPECT_NE(refusal(b).find("bad magic"), std::string::npos);
    b = bytes_;
    b[off_version] = 9;
    EXPECT_NE(refusal(b).find("format version 9"), std::string::npos);
}

TEST_F(pce_file, hostile_sizes_are_refused_before_allocating) {
    // 2^40 constraints: the sizes no longer add up to the file's (nothing is allocated).
    std::vector<uint8_t> b = bytes_;
    const uint64_t huge = uint64_t{1} << 40;
    std::memcpy(b.data() + off_constraints, &huge, 8);
    reseal(b);
    EXPECT_NE(refusal(b).find("header's sizes"), std::string::npos);
    // Sizes that overflow 64 bits.
    b = bytes_;
    const uint64_t max = ~uint64_t{0};
    std::memcpy(b.data() + off_nnz_a, &max, 8);
    reseal(b);
    EXPECT_NE(refusal(b).find("overflow"), std::string::npos);
    // A column past the variables, with a valid checksum: fewer aux than the entries name.
    b = bytes_;
    uint64_t aux = 0;
    std::memcpy(&aux, b.data() + off_aux, 8);
    aux -= 100;
    std::memcpy(b.data() + off_aux, &aux, 8);
    reseal(b);
    EXPECT_NE(refusal(b).find("out of range"), std::string::npos);
    // 2^32 - 8 aux in a file of a few kB: more variables than entries, refused before the
    // densities (a bitmap a variable) are allocated.
    b = bytes_;
    aux = (uint64_t{1} << 32) - 8;
    std::memcpy(b.data() + off_aux, &aux, 8);
    reseal(b);
    const std::string m = refusal(b);
    EXPECT_NE(m.find("more variables than entries (3007 constraints, 7 inputs, 4294967288 aux"), std::string::npos) << m;
}

TEST_F(pce_file, a_coefficient_not_below_the_modulus_is_refused) {
    // The dictionary follows the tag ("random-3000"): 1, -1, then the circuit's coefficients.
    const size_t at = off_tag + std::string("random-3000").size() + 2 * fr::bytes;
    ASSERT_LT(at + fr::bytes, bytes_.size());
    std::vector<uint8_t> b = bytes_;
    std::memcpy(b.data() + at, fr::modulus.data(), fr::bytes);  // r itself, little-endian limbs
    reseal(b);
    const std::string m = refusal(b);
    EXPECT_NE(m.find("f.pce: dictionary coefficient 2 is not below the Fr modulus"), std::string::npos) << m;
    // r - 1 is a coefficient like any other: the file reads (the circuit differs).
    uint64_t below[4];
    std::memcpy(below, fr::modulus.data(), fr::bytes);
    below[0] -= 1;
    std::memcpy(b.data() + at, below, fr::bytes);
    reseal(b);
    EXPECT_EQ(refusal(b), "");
}

TEST_F(pce_file, another_shape_or_circuit_is_refused) {
    capacity_hint shape = pce_.shape();
    shape.aux += 1;
    const std::string m = refusal(bytes_, &shape);
    EXPECT_NE(m.find("shape 3007 constraints, 7 inputs, 500 aux"), std::string::npos) << m;
    EXPECT_NE(m.find("expected 3007 constraints, 7 inputs, 501 aux"), std::string::npos) << m;
    const std::string other = "StackedDrg2KiBV1_1";
    EXPECT_NE(refusal(bytes_, nullptr, &other).find("expected 'StackedDrg2KiBV1_1'"), std::string::npos);
}

TEST_F(pce_file, load_refuses_corrupt_files_as_deserialize_does) {
    const std::string path = (dir_ / "bad.pce").string();
    auto write = [&](std::span<const uint8_t> b) {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        ASSERT_EQ(std::fwrite(b.data(), 1, b.size(), f), b.size());
        std::fclose(f);
    };
    // load and open (mapped) must refuse alike.
    auto load_refusal = [&]() -> std::string {
        std::string loaded, opened;
        try {
            precompiled_circuit::load(path);
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            loaded = e.what();
        }
        try {
            precompiled_circuit::open(path);
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            opened = e.what();
        }
        EXPECT_EQ(opened, loaded);
        return loaded;
    };
    write(std::span<const uint8_t>(bytes_).first(bytes_.size() - 7));
    std::string m = load_refusal();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find("truncated"), std::string::npos) << m;
    std::vector<uint8_t> b = bytes_;
    b[b.size() / 3] ^= 4;
    write(b);
    EXPECT_NE(load_refusal().find("checksum mismatch"), std::string::npos);
    // A bad column under a valid checksum: found by the checks after it.
    b = bytes_;
    const uint64_t tag_len = 11, dict = pce_.coefficients().size(), rows = pce_.num_constraints() + 1;
    const size_t first_entry_of_a = off_tag + tag_len + dict * 32 + rows * 8;
    b[first_entry_of_a + 3] = 0xff;  // column 0xff......: past every variable
    reseal(b);
    write(b);
    EXPECT_NE(load_refusal().find("matrix A: entry 0 names a column or coefficient out of range"), std::string::npos);
    write(bytes_);
    EXPECT_EQ(precompiled_circuit::load(path), pce_);
}

TEST_F(pce_file, a_mapped_file_evaluates_as_the_loaded_one) {
    const std::string path = (dir_ / "m.pce").string();
    pce_.save(path);
    const capacity_hint shape = pce_.shape();
    const std::string tag = "random-3000";
    const precompiled_circuit m = precompiled_circuit::open(path, &shape, &tag);
    ASSERT_TRUE(m.mapped());
    EXPECT_FALSE(pce_.mapped());
    EXPECT_TRUE(m.a().entries.empty());  // nothing copied
    EXPECT_EQ(m, pce_);                   // the rows compared where they lie
    EXPECT_EQ(m.num_entries(), pce_.num_entries());
    EXPECT_EQ(m.coefficients(), pce_.coefficients());
    expect_paths_agree(random_circuit{7, 500, 3000, 3}, m, 1);
    expect_paths_agree(random_circuit{7, 500, 3000, 3}, m, 2);
    EXPECT_THROW(m.serialize(), error);  // its bytes are the file's
    // A shape or tag it is not refused, as load does.
    capacity_hint other = shape;
    other.constraints += 1;
    EXPECT_THROW(precompiled_circuit::open(path, &other), error);
    const std::string other_tag = "StackedDrg2KiBV1_1";
    EXPECT_THROW(precompiled_circuit::open(path, nullptr, &other_tag), error);
}

TEST_F(pce_file, a_mapped_file_changed_after_opening_is_caught_by_evaluate) {
    const std::string path = (dir_ / "c.pce").string();
    pce_.save(path);
    const precompiled_circuit m = precompiled_circuit::open(path);
    // Overwrite the first entry of B in place (the mapping is of the file: Linux shows the
    // change through it), a column past every variable.
    const uint64_t tag_len = 11, dict = pce_.coefficients().size(), rows = pce_.num_constraints() + 1;
    const size_t first_entry_of_b = off_tag + tag_len + dict * 32 + rows * 8 + pce_.a().entries.size() * 8 + rows * 8;
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fseek(f, long(first_entry_of_b), SEEK_SET), 0);
    const uint8_t bad[4] = {0xff, 0xff, 0xff, 0x7f};
    ASSERT_EQ(std::fwrite(bad, 1, sizeof bad, f), sizeof bad);
    std::fclose(f);
    EXPECT_FALSE(m == pce_);  // equality reads the rows through the mapping
    witness_assignment wa;
    random_circuit{7, 500, 3000, 3}.synthesize(wa);
    wa.enforce_input_constraints();
    try {
        m.evaluate(wa.input_assignment(), wa.aux_assignment());
        FAIL() << "a column past every variable was evaluated";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        EXPECT_NE(std::string(e.what()).find("matrix B entry 0 out of range"), std::string::npos) << e.what();
    }
}

TEST_F(pce_file, a_missing_file_is_an_io_error) {
    try {
        precompiled_circuit::load((dir_ / "absent.pce").string());
        FAIL();
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::io);
    }
}

}  // namespace
}  // namespace c2lab::r1cs

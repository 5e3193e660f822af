// fuzz_seeds <dir>: writes valid inputs for the byte-format fuzz targets (scripts/fuzz.sh):
//   <dir>/mont_field_fuzz/  Fr (32 bytes) and Fp (48 bytes) encodings: 0, 1, p - 1, random
//   <dir>/encoding_fuzz/    G1 / G2 points, compressed and uncompressed: generators, multiples,
//                           the identity
//   <dir>/proof_fuzz/       a 192-byte proof and a verifying key of a tiny hash chain
//   <dir>/params_file_fuzz/ the parameters files of hash chains of 1 and 3 steps
//   <dir>/pce_fuzz/         their pre-compiled circuits
// Deterministic (a seeded rng), so the corpus is the same on every machine.
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/rng.hpp"
#include "ec/encoding.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/pce.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

namespace {

using namespace c2lab;
using ff::fp;
using ff::fr;
namespace fs = std::filesystem;

void put(const fs::path& dir, const std::string& name, std::span<const uint8_t> bytes) {
    fs::create_directories(dir);
    write_file_atomic((dir / name).string(), bytes);
}

template <class F>
void fields(const fs::path& dir, const char* name, rng& g) {
    const F values[] = {F::zero(), F::one(), -F::one(), F::random(g), F::random(g)};
    for (size_t i = 0; i < std::size(values); ++i) {
        std::array<uint8_t, F::bytes> b;
        values[i].to_bytes_le(std::span<uint8_t, F::bytes>(b));
        put(dir, std::string(name) + "_le_" + std::to_string(i), b);
        values[i].to_bytes_be(std::span<uint8_t, F::bytes>(b));
        put(dir, std::string(name) + "_be_" + std::to_string(i), b);
    }
}

template <class A>
void points(const fs::path& dir, const char* name, rng& g) {
    std::vector<A> ps = {A::identity(), A::generator()};
    for (int i = 0; i < 3; ++i) ps.push_back((A::generator().to_jacobian() * fr::random(g)).to_affine());
    for (size_t i = 0; i < ps.size(); ++i) {
        put(dir, std::string(name) + "_compressed_" + std::to_string(i), ec::to_compressed(ps[i]));
        put(dir, std::string(name) + "_uncompressed_" + std::to_string(i), ec::to_uncompressed(ps[i]));
    }
}

// The parameters of a hash chain, its witness into pa and its pre-compiled circuit into pce.
groth16::parameters chain_parameters(size_t steps, rng& g, r1cs::proving_assignment<r1cs::vec_indexer>& pa,
                                     std::vector<uint8_t>& pce) {
    const r1cs::hash_chain circuit{steps, fr::from_u64(7), fr::from_u64(3)};
    r1cs::constraint_matrices<r1cs::vec_indexer> cs;
    circuit.synthesize(cs);
    cs.enforce_input_constraints();
    circuit.synthesize(pa);
    pa.enforce_input_constraints();
    pce = r1cs::precompiled_circuit::from_matrices(cs, "hash-chain").serialize();
    return groth16::generate_parameters(cs, g);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_seeds <dir>\n");
        return 2;
    }
    try {
        const fs::path out = argv[1];
        rng g(20261203);
        fields<fr>(out / "mont_field_fuzz", "fr", g);
        fields<fp>(out / "mont_field_fuzz", "fp", g);
        points<ec::g1_affine>(out / "encoding_fuzz", "g1", g);
        points<ec::g2_affine>(out / "encoding_fuzz", "g2", g);
        for (size_t steps : {1, 3}) {
            r1cs::proving_assignment<r1cs::vec_indexer> pa;
            std::vector<uint8_t> pce;
            const groth16::parameters params = chain_parameters(steps, g, pa, pce);
            const std::string tag = "chain" + std::to_string(steps);
            put(out / "pce_fuzz", tag + ".pce", pce);
            const std::string params_path = (out / "params_file_fuzz" / (tag + ".params")).string();
            fs::create_directories(out / "params_file_fuzz");
            groth16::write_parameters(params_path, params);
            const groth16::proof p = groth16::create_proof(params, pa, fr::random(g), fr::random(g));
            put(out / "proof_fuzz", tag + ".proof", groth16::encode_proof(p));
            put(out / "proof_fuzz", tag + ".vk", groth16::encode_verifying_key(params.vk));
        }
    } catch (const c2lab::error& e) {
        std::fprintf(stderr, "fuzz_seeds: %s\n", e.what());
        return 2;
    }
    return 0;
}

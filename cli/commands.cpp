#include "commands.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/cpu.hpp"
#include "core/error.hpp"
#include "pipeline/flags.hpp"
#include "gpu/backend.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/stage_report.hpp"
#include "groth16/verifier.hpp"
#include "groth16/vk_file.hpp"
#include "io.hpp"
#include "pipeline/batch.hpp"
#include "pipeline/params_cache.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/constraint_system.hpp"
#include "r1cs/linear_combination.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/test_circuits.hpp"

namespace c2lab::cli {

using pipeline::flag_values;
using pipeline::flags_table;
using pipeline::parse_flags;

namespace {

using ff::fr;

r1cs::hash_chain make_hash_chain(const circuit_args& a) {
    if (a.circuit != circuit_hash_chain)
        throw error(errc::bad_input, "unknown circuit '" + a.circuit + "' (known: hash-chain)");
    if (a.steps.empty())
        throw error(errc::bad_input, "--steps is required for the hash-chain circuit (or use --c1 / --sector for PoRep)");
    r1cs::hash_chain hc;
    hc.steps = parse_u64(a.steps, "--steps");
    if (hc.steps == 0) throw error(errc::bad_input, "--steps: must be at least 1");
    return hc;
}

// The shape pass (counts, densities, digest) of the blank chain.
r1cs::circuit_shape count_shape(const r1cs::hash_chain& hc) {
    return r1cs::shape_of([&](r1cs::shape_pass& pass) { hc.synthesize(pass); });
}

}  // namespace

uint64_t parse_u64(const std::string& text, const std::string& what) {
    uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v, 10);
    if (text.empty() || ec != std::errc{} || p != end)
        throw error(errc::bad_input, what + ": '" + text + "' is not a decimal unsigned 64-bit integer");
    return v;
}

int run_circuit_info(const circuit_args& a) {
    if (!a.sector.empty()) return run_porep_circuit_info(a.sector);
    const r1cs::hash_chain hc = make_hash_chain(a);
    const r1cs::circuit_shape sc = count_shape(hc);
    std::cout << "circuit: " << a.circuit << " (steps " << hc.steps << ")\n"
              << "constraints: " << sc.num_constraints() << "\n"
              << "public inputs: " << sc.num_inputs() - 1 << "\n"
              << "aux: " << sc.num_aux() << "\n"
              << "input variables: " << sc.num_inputs() << " (public inputs + the constant one)\n";
    print_shape_details(std::cout, sc);
    return exit_ok;
}

int run_setup(const setup_args& a) {
    if (!a.c1.empty()) return run_porep_setup(a);
    const r1cs::hash_chain hc = make_hash_chain(a.circuit);
    setup_request r;
    r.name = a.circuit.circuit;
    r.shape = count_shape(hc);
    r.synthesize = [&](r1cs::constraint_matrices<>& cs) {
        hc.synthesize(cs);
        cs.enforce_input_constraints();
    };
    r.seed = parse_u64(a.seed, "--seed");
    r.out = a.out;
    r.force = a.force;
    r.memory_budget = budget_bytes(a.memory_budget_gib);
    return run_setup_request(r);
}

int run_verify(const verify_args& a) {
    if (!a.c1.empty()) {
        if (!a.inputs_file.empty() || !a.inputs_hex.empty())
            throw error(errc::bad_input, "--c1 derives the public inputs itself: drop --inputs / --input");
        return run_porep_verify(a);
    }
    if (!a.params.empty() && !a.vk.empty()) throw error(errc::bad_input, "give the key with --params or --vk, not both");
    if (a.params.empty() && a.vk.empty())
        throw error(errc::bad_input, "--params or --vk is required (or --c1 for a PoRep proof)");
    if (a.inputs_file.empty() == a.inputs_hex.empty())
        throw error(errc::bad_input, "give the public inputs with either --inputs FILE or --input HEX (not both)");
    const std::vector<uint8_t> proof_bytes = read_file(a.proof);
    if (proof_bytes.size() != groth16::proof_bytes)
        throw error(errc::bad_length, a.proof + ": a proof is " + std::to_string(groth16::proof_bytes) +
                                          " bytes, the file has " + std::to_string(proof_bytes.size()));
    groth16::proof pf;
    try {
        pf = groth16::decode_proof(proof_bytes);
    } catch (const error& e) {
        throw error(e.kind(), a.proof + ": " + e.what());
    }
    std::vector<fr> inputs;
    if (!a.inputs_file.empty()) {
        const std::vector<uint8_t> text = read_file(a.inputs_file);
        inputs = parse_inputs(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()), a.inputs_file);
    } else {
        for (size_t i = 0; i < a.inputs_hex.size(); ++i)
            inputs.push_back(fr_from_hex(a.inputs_hex[i], "--input #" + std::to_string(i + 1)));
    }
    // The key: a .vk file (bellperson's layout, groth16/vk_file.hpp), or the parameters file's.
    const std::string& source = a.vk.empty() ? a.params : a.vk;
    groth16::verifying_key vk;
    if (!a.vk.empty()) {
        vk = groth16::read_verifying_key(a.vk);
    } else {
        check_params_memory(a.params);
        vk = groth16::read_parameters(a.params).vk;
    }
    if (vk.ic.empty()) throw error(errc::bad_input, source + ": verifying key: no ic points (one per input is needed)");
    if (inputs.size() + 1 != vk.ic.size())
        throw error(errc::bad_input, "wrong number of public inputs: got " + std::to_string(inputs.size()) + ", " +
                                         source + " expects " + std::to_string(vk.ic.size() - 1) +
                                         (a.vk.empty() ? "" : " (its ic count is " + std::to_string(vk.ic.size()) + ")"));
    const groth16::prepared_verifying_key pvk = prepare_key(vk, source);
    if (groth16::verify_proof(pvk, pf, inputs)) {
        std::cout << "valid\n";
        return exit_ok;
    }
    std::cout << "invalid\n";
    return exit_invalid;
}

int run_export_vk(const export_vk_args& a) {
    if (!a.c1.empty()) return run_porep_export_vk(a);
    if (a.params.empty()) throw error(errc::bad_input, "--params or --c1 is required");
    return export_verifying_key(a.params, a.out);
}

int run_bench(const std::vector<std::string>& args) {
    const std::string script = std::string(C2LAB_SOURCE_DIR) + "/scripts/bench.sh";
    if (::access(script.c_str(), R_OK) != 0)
        throw error(errc::io, "cannot find " + script + " (c2lab bench runs the source tree's scripts/bench.sh)");
    std::vector<std::string> argv_s{"bash", script};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp("bash", argv.data());
    throw error(errc::io, std::string("cannot run bash: ") + std::strerror(errno));
}

int run_flags() {
    std::cout << flags_table();
    return exit_ok;
}

}  // namespace c2lab::cli

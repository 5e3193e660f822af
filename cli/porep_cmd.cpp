// The PoRep C2 commands of the c2lab CLI: gen, circuit-info --sector (or an explicit shape),
// parents, inputs, setup / prove / verify with --c1. The stages are the library's (porep/generator, c1_json, circuit; groth16); this
// file times them, reports progress on stderr and results on stdout.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/cpu.hpp"
#include "core/error.hpp"
#include "core/hex.hpp"
#include "pipeline/flags.hpp"
#include "gpu/backend.hpp"
#include "pipeline/batch.hpp"
#include "pipeline/params_cache.hpp"
#include "pipeline/shape_memo.hpp"
#include "pipeline/pce_cache.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/stage_report.hpp"
#include "groth16/verifier.hpp"
#include "groth16/vk_file.hpp"
#include "io.hpp"
#include "porep/c1_json.hpp"
#include "porep/circuit.hpp"
#include "porep/generator.hpp"
#include "porep/params.hpp"
#include "porep/seal_inputs.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"

namespace c2lab::cli {

using pipeline::flag_values;
using pipeline::flags_table;
using pipeline::parse_flags;

namespace {

using ff::fr;

std::string hex32(const std::array<uint8_t, 32>& d) { return to_hex(std::span<const uint8_t>(d)); }

// 32 bytes from 64 hex digits (an optional 0x prefix); c2lab::error(bad_input) naming the option.
std::array<uint8_t, 32> parse_hex32(const std::string& text, const std::string& what) {
    std::vector<uint8_t> v;
    try {
        v = from_hex(text);
    } catch (const error& e) {
        throw error(errc::bad_input, what + ": " + e.what());
    }
    if (v.size() != 32)
        throw error(errc::bad_input, what + ": " + std::to_string(v.size()) + " bytes, expected 32 (64 hex digits)");
    std::array<uint8_t, 32> out;
    std::copy(v.begin(), v.end(), out.begin());
    return out;
}

std::string list(const std::vector<uint64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

// base[-sub[-top]], e.g. "8", "8-8", "8-8-2".
std::array<uint32_t, 3> parse_tree(const std::string& text) {
    std::array<uint32_t, 3> a{0, 0, 0};
    size_t part = 0, pos = 0;
    while (true) {
        const size_t dash = text.find('-', pos);
        const std::string piece = text.substr(pos, dash == std::string::npos ? std::string::npos : dash - pos);
        if (part == 3 || piece.empty() || piece.find_first_not_of("0123456789") != std::string::npos ||
            piece.size() > 2)
            throw error(errc::bad_input, "--tree \"" + text + "\": expected base[-sub[-top]] arities, e.g. 8, 8-8, 8-8-2");
        a[part++] = static_cast<uint32_t>(std::stoul(piece));
        if (dash == std::string::npos) break;
        pos = dash + 1;
    }
    return a;
}

using pipeline::count_porep_shape;
struct loaded_c1 {
    porep::c1_file file;
    const porep::porep_config* cfg = nullptr;
    double decode_ms = 0;
};

loaded_c1 load_c1(const std::string& path, porep::c1_json_decoder decoder) {
    loaded_c1 l;
    const auto t0 = clock_type::now();
    l.file = porep::read_c1_file(path, decoder);
    l.decode_ms = ms_since(t0);
    try {
        l.cfg = &porep::config_for_proof(l.file.phase1_out.registered_proof);
    } catch (const error& e) {
        throw error(e.kind(), path + ": " + e.what());
    }
    return l;
}

std::string resolve_params(const std::string& given, const porep::porep_config& cfg, const r1cs::circuit_shape& sc,
                           const std::string& c1_path) {
    if (!given.empty()) return given;
    const std::string p = pipeline::porep_params_path(cfg, sc);
    if (!std::filesystem::exists(p))
        throw error(errc::io, "no parameters for " + cfg.registered_proof + " at " + p + " (run `c2lab setup --c1 " +
                                  c1_path + "` first, or give --params)");
    return p;
}

void check_params_shape(const groth16::parameters& params, const r1cs::circuit_shape& sc, const std::string& path) {
    pipeline::check_params_circuit(params, sc, path);  // counts, query sizes and the circuit digest
}

}  // namespace

int run_gen(const gen_args& a) {
    const porep::porep_config& cfg = porep::config_for_sector(porep::parse_sector_size(a.sector));
    const uint64_t seed = parse_u64(a.seed, "--seed");
    if (a.out.empty()) throw error(errc::bad_input, "-o: empty output path");
    porep::seal_input_overrides given;
    if (!a.prover_id.empty()) given.prover_id = parse_hex32(a.prover_id, "--prover-id");
    if (!a.sector_id.empty()) given.sector_id = parse_u64(a.sector_id, "--sector-id");
    if (!a.ticket.empty()) given.ticket = parse_hex32(a.ticket, "--ticket");
    if (!a.interactive_seed.empty()) given.seed = parse_hex32(a.interactive_seed, "--interactive-seed");
    const porep::seal_input_values sealing = porep::resolve_seal_inputs(cfg, seed, given);
    progress("gen", cfg.registered_proof + ": " + std::to_string(cfg.partitions) + " partitions x " +
                        std::to_string(cfg.challenges_per_partition) + " challenges, " + std::to_string(cfg.layers) +
                        " layers, seed " + std::to_string(seed));
    const auto t0 = clock_type::now();
    std::string last_stage;
    uint64_t last_pct = 101;
    const porep::c1_file f = porep::generate_c1(cfg, seed, given, [&](std::string_view stage, uint64_t done, uint64_t total) {
        const uint64_t pct = total ? done * 100 / total : 100;
        if (stage != last_stage || (pct / 10 != last_pct / 10 && pct % 10 == 0) || done == total) {
            if (stage != last_stage || done == total || pct != last_pct)
                progress("gen", std::string(stage) + " " + std::to_string(done) + "/" + std::to_string(total));
            last_stage = stage;
            last_pct = pct;
        }
    });
    const double t_gen = ms_since(t0);
    const auto t1 = clock_type::now();
    const std::string text = porep::encode_c1_file(f);
    write_text_atomic(a.out, text);
    const double t_write = ms_since(t1);
    std::cout << "c1: " << a.out << " (" << text.size() << " bytes)\n"
              << "registered_proof: " << cfg.registered_proof << "\n"
              << "sector: " << porep::format_sector_size(cfg.sector_size) << " (" << cfg.nodes << " nodes), seed "
              << seed << "\n"
              << "partitions: " << cfg.partitions << "  challenges: " << cfg.proven_challenges() << "\n"
              << "comm_d: " << hex32(f.phase1_out.comm_d) << "\n"
              << "comm_r: " << hex32(f.phase1_out.comm_r) << "\n"
              << "prover_id: " << hex32(sealing.prover_id) << "  sector_id: " << sealing.sector_id << "\n"
              << "ticket: " << hex32(sealing.ticket) << "\n"
              << "seed: " << hex32(sealing.seed) << "\n"
              << "replica_id: " << hex32(f.phase1_out.replica_id) << "\n"
              << "time: generate " << fmt_ms(t_gen) << ", encode and write " << fmt_ms(t_write) << "\n";
    return exit_ok;
}

int run_porep_circuit_info(const std::string& sector) {
    const porep::porep_config& cfg = porep::config_for_sector(porep::parse_sector_size(sector));
    const auto t0 = clock_type::now();
    bool memo = false;
    const r1cs::circuit_shape sc = count_porep_shape(cfg, &memo);
    const double t = ms_since(t0);
    std::cout << "circuit: " << cfg.registered_proof << " (one partition of " << cfg.partitions << "; "
              << cfg.challenges_per_partition << " challenges, " << cfg.layers << " layers)\n"
              << "constraints: " << sc.num_constraints() << "\n"
              << "public inputs: " << sc.num_inputs() - 1 << "\n"
              << "aux: " << sc.num_aux() << "\n"
              << "input variables: " << sc.num_inputs() << " (public inputs + the constant one)\n";
    print_shape_details(std::cout, sc);
    if (memo)
        std::cout << "shape pass: memoized (" << pipeline::shape_memo_path(cfg.registered_proof) << "), read in "
                  << fmt_ms(t) << "\n";
    else
        std::cout << "shape pass: " << fmt_ms(t) << "\n";
    return exit_ok;
}

int run_porep_shape_info(const circuit_args& a) {
    const uint64_t nodes = parse_u64(a.nodes, "--nodes");
    const uint64_t layers = parse_u64(a.layers, "--layers");
    const uint64_t challenges = parse_u64(a.challenges, "--challenges");
    const uint64_t id_byte = parse_u64(a.porep_id_byte, "--porep-id-byte");
    if (id_byte > 255) throw error(errc::bad_input, "--porep-id-byte: " + std::to_string(id_byte) + " is above 255");
    if (layers > 36 || challenges > (1u << 16))
        throw error(errc::bad_input, "--layers / --challenges: out of range (at most 36 layers, 65536 challenges)");
    const auto arity = parse_tree(a.tree);
    const porep::porep_config cfg =
        porep::custom_config(nodes, static_cast<uint32_t>(layers), static_cast<uint32_t>(challenges), arity[0],
                             arity[1], arity[2], static_cast<uint8_t>(id_byte));
    const auto t0 = clock_type::now();
    r1cs::shape_pass pass;
    porep::stacked_circuit::blank(cfg).synthesize(pass);
    const size_t synthesized = pass.num_constraints();
    const r1cs::circuit_shape sc = pass.finish();
    const double t = ms_since(t0);
    std::cout << "circuit: StackedDRG " << cfg.nodes << " nodes, " << cfg.layers << " layers, "
              << cfg.challenges_per_partition << " challenges, tree " << a.tree << ", porep id [" << id_byte
              << "; 32]\n"
              << "constraints: " << sc.num_constraints() << "\n"
              << "public inputs: " << sc.num_inputs() - 1 << "\n"
              << "aux: " << sc.num_aux() << "\n"
              << "input variables: " << sc.num_inputs() << " (public inputs + the constant one)\n"
              << "synthesized constraints: " << synthesized << " (before the input constraints)\n";
    print_shape_details(std::cout, sc);
    std::cout << "shape pass: " << fmt_ms(t) << "\n";
    return exit_ok;
}

int run_parents(const parents_args& a) {
    const porep::porep_config cfg =
        porep::config_for_api(porep::parse_sector_size(a.sector), porep::parse_api_version(a.api_version));
    if (a.digest == !a.node.empty())
        throw error(errc::bad_input, "parents: give either --digest or --node N");
    const porep::stacked_graph graph(cfg);
    std::cout << "registered_proof: " << cfg.registered_proof << " (api " << porep::to_string(cfg.api) << ", porep_id "
              << hex32(cfg.porep_id) << ")\n"
              << "nodes: " << cfg.nodes << "\n";
    if (!a.node.empty()) {
        const uint64_t node = parse_u64(a.node, "--node");
        if (node >= cfg.nodes)
            throw error(errc::bad_input, "--node: " + std::to_string(node) + " is not below " + std::to_string(cfg.nodes));
        std::array<uint32_t, porep::total_degree> p;
        graph.parents(node, std::span<uint32_t, porep::total_degree>(p));
        std::cout << "node: " << node << "\n"
                  << "base: " << list(std::vector<uint64_t>(p.begin(), p.begin() + porep::base_degree)) << "\n"
                  << "expansion: " << list(std::vector<uint64_t>(p.begin() + porep::base_degree, p.end())) << "\n";
        return exit_ok;
    }
    const auto t0 = clock_type::now();
    uint64_t last_pct = 0;
    const auto digest = porep::parent_cache_digest(graph, [&](uint64_t done) {
        const uint64_t pct = done * 100 / cfg.nodes;
        if (cfg.nodes > (uint64_t{1} << 20) && pct / 5 != last_pct / 5) {
            progress("parents", std::to_string(done) + "/" + std::to_string(cfg.nodes) + " nodes");
            last_pct = pct;
        }
    });
    std::cout << "cache: " << porep::parent_cache_id(graph) << "\n"
              << "bytes: " << cfg.nodes * porep::parent_cache_entry_bytes << "\n"
              << "digest: " << hex32(digest) << "\n"
              << "time: " << fmt_ms(ms_since(t0)) << "\n";
    return exit_ok;
}

int run_inputs(const inputs_args& a) {
    const porep::porep_config cfg =
        porep::config_for_api(porep::parse_sector_size(a.sector), porep::parse_api_version(a.api_version));
    const auto prover_id = parse_hex32(a.prover_id, "--prover-id");
    const uint64_t sector_id = parse_u64(a.sector_id, "--sector-id");
    const auto ticket = parse_hex32(a.ticket, "--ticket");
    const auto seed = parse_hex32(a.seed, "--seed");
    const auto comm_d = parse_hex32(a.comm_d, "--comm-d");
    const porep::domain replica_id = porep::derive_replica_id(prover_id, sector_id, ticket, comm_d, cfg.porep_id);
    std::cout << "registered_proof: " << cfg.registered_proof << " (porep_id " << hex32(cfg.porep_id) << ")\n"
              << "replica_id: " << hex32(replica_id) << "\n"
              << "partitions: " << cfg.partitions << " x " << cfg.challenges_per_partition << " challenges\n";
    for (const auto& c : porep::derive_all_challenges(cfg, replica_id, seed)) std::cout << "challenges: " << list(c) << "\n";
    return exit_ok;
}

int run_porep_setup(const setup_args& a) {
    const uint64_t seed = parse_u64(a.seed, "--seed");
    const loaded_c1 l = load_c1(a.c1, porep::c1_json_decoder::nlohmann);
    const porep::porep_config& cfg = *l.cfg;
    setup_request r;
    r.name = cfg.registered_proof;
    r.shape = count_porep_shape(cfg);
    r.synthesize = [&](r1cs::constraint_matrices<>& cs) {
        porep::stacked_circuit::blank(cfg).synthesize(cs);
        cs.enforce_input_constraints();
    };
    r.seed = seed;
    r.out = a.out;
    r.force = a.force;
    r.memory_budget = budget_bytes(a.memory_budget_gib);
    const int rc = run_setup_request(r);
    if (rc != exit_ok || a.no_pce) return rc;
    // The pre-compiled circuit, once per circuit structure: prove's synth=auto takes it where cached.
    pipeline::ensure_porep_pce(cfg, r.shape, [](const std::string& line) { progress("setup", line); });
    const std::string pce = pipeline::porep_pce_path(cfg, r.shape);
    std::cout << "pre-compiled circuit: " << pce << " (" << std::filesystem::file_size(pce) << " bytes)\n";
    return exit_ok;
}

int run_porep_verify(const verify_args& a) {
    const loaded_c1 l = load_c1(a.c1, porep::c1_json_decoder::nlohmann);
    const porep::porep_config& cfg = *l.cfg;
    const r1cs::circuit_shape sc = count_porep_shape(cfg);
    const std::vector<uint8_t> proof_bytes = read_file(a.proof);
    const size_t want = size_t{cfg.partitions} * groth16::proof_bytes;
    if (proof_bytes.size() != want)
        throw error(errc::bad_length, a.proof + ": a " + cfg.registered_proof + " proof is " + std::to_string(want) +
                                          " bytes (" + std::to_string(cfg.partitions) + " x " +
                                          std::to_string(groth16::proof_bytes) + "), the file has " +
                                          std::to_string(proof_bytes.size()));
    std::vector<groth16::proof> proofs;
    for (uint32_t k = 0; k < cfg.partitions; ++k) {
        try {
            proofs.push_back(groth16::decode_proof(
                std::span<const uint8_t>(proof_bytes).subspan(k * groth16::proof_bytes, groth16::proof_bytes)));
        } catch (const error& e) {
            throw error(e.kind(), a.proof + ": partition " + std::to_string(k) + ": " + e.what());
        }
    }
    // The key: --vk; --params; else the cache's .vk beside the entry when it is there (868 + 96 x
    // inputs bytes, read in microseconds), else the cached parameters (their vk; seconds).
    if (!a.vk.empty() && !a.params.empty()) throw error(errc::bad_input, "give the key with --params or --vk, not both");
    std::string vk_path = a.vk;
    if (vk_path.empty() && a.params.empty()) {
        const std::string cached = groth16::vk_path_beside(pipeline::porep_params_path(cfg, sc));
        if (std::filesystem::exists(cached)) vk_path = cached;
    }
    groth16::verifying_key vk;
    std::string source;
    if (!vk_path.empty()) {
        source = vk_path;
        progress("verify", "verifying key " + vk_path);
        vk = groth16::read_verifying_key(vk_path);
        if (vk.ic.size() != sc.num_inputs())
            throw error(errc::bad_input, vk_path + " was made for another circuit (ic count " +
                                             std::to_string(vk.ic.size()) + ", for " +
                                             std::to_string(vk.ic.empty() ? 0 : vk.ic.size() - 1) +
                                             " public inputs; " + cfg.registered_proof + " has " +
                                             std::to_string(sc.num_inputs() - 1) + ")");
    } else {
        source = resolve_params(a.params, cfg, sc, a.c1);
        progress("verify", "verifying key from the parameters " + source);
        check_params_memory(source);
        const groth16::parameters params = groth16::read_parameters(source);
        check_params_shape(params, sc, source);
        vk = params.vk;
    }
    const groth16::prepared_verifying_key pvk = prepare_key(vk, source);
    bool all = true;
    for (uint32_t k = 0; k < cfg.partitions; ++k) {
        const std::vector<fr> inputs = porep::public_inputs(cfg, l.file.phase1_out, k);
        const bool ok = groth16::verify_proof(pvk, proofs[k], inputs);
        if (cfg.partitions > 1) std::cout << "partition " << k << ": " << (ok ? "valid" : "invalid") << "\n";
        all = all && ok;
    }
    std::cout << (all ? "valid" : "invalid") << "\n";
    return all ? exit_ok : exit_invalid;
}

int run_porep_export_vk(const export_vk_args& a) {
    if (!a.params.empty()) throw error(errc::bad_input, "give --params or --c1, not both");
    const loaded_c1 l = load_c1(a.c1, porep::c1_json_decoder::nlohmann);
    const r1cs::circuit_shape sc = count_porep_shape(*l.cfg);
    return export_verifying_key(resolve_params({}, *l.cfg, sc, a.c1), a.out);
}

}  // namespace c2lab::cli

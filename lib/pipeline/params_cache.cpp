#include "pipeline/params_cache.hpp"

#include <cstdlib>

#include "core/rng.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"
#include "porep/circuit.hpp"
#include "r1cs/constraint_matrices.hpp"

namespace c2lab::pipeline {

namespace fs = std::filesystem;

fs::path cache_dir() {
    if (const char* d = std::getenv("C2LAB_CACHE_DIR"); d && *d) return fs::path(d);
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return fs::path(d) / "c2lab";
    if (const char* d = std::getenv("HOME"); d && *d) return fs::path(d) / ".cache" / "c2lab";
    return fs::path(".c2lab-cache");
}

r1cs::shape_counter count_porep_shape(const porep::porep_config& cfg) {
    r1cs::shape_counter sc;
    porep::stacked_circuit::blank(cfg).synthesize(sc);
    sc.enforce_input_constraints();
    return sc;
}

std::string porep_params_path(const porep::porep_config& cfg, const r1cs::shape_counter& sc) {
    const std::string name = cfg.registered_proof + "-c" + std::to_string(sc.num_constraints()) + "-i" +
                             std::to_string(sc.num_inputs()) + "-a" + std::to_string(sc.num_aux()) + ".params";
    return (cache_dir() / "params" / name).string();
}

std::string ensure_porep_params(const porep::porep_config& cfg, uint64_t seed,
                                const std::function<void(const std::string&)>& progress) {
    const r1cs::shape_counter sc = count_porep_shape(cfg);
    const std::string path = porep_params_path(cfg, sc);
    if (fs::exists(path)) return path;
    auto say = [&](const std::string& line) {
        if (progress) progress(line);
    };
    say("no cached parameters for " + cfg.registered_proof + "; generating " + path + " (" +
        std::to_string(sc.num_constraints()) + " constraints)");
    r1cs::constraint_matrices<> cs;
    porep::stacked_circuit::blank(cfg).synthesize(cs);
    cs.enforce_input_constraints();
    rng g(seed);
    groth16::setup_config scfg;
    scfg.progress = say;
    const groth16::parameters params = groth16::generate_parameters(cs, g, scfg);
    fs::create_directories(fs::path(path).parent_path());
    say("writing " + path);
    groth16::write_parameters(path, params);
    return path;
}

}  // namespace c2lab::pipeline

#include "pipeline/params_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/hex.hpp"
#include "core/rng.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"
#include "groth16/vk_file.hpp"
#include "pipeline/batch.hpp"
#include "pipeline/shape_memo.hpp"
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

r1cs::circuit_shape synthesize_porep_shape(const porep::porep_config& cfg) {
    return r1cs::shape_of([&](r1cs::shape_pass& pass) { porep::stacked_circuit::blank(cfg).synthesize(pass); });
}

r1cs::circuit_shape count_porep_shape(const porep::porep_config& cfg, bool* from_memo) {
    if (from_memo) *from_memo = false;
    const std::string id = is_registered_config(cfg) ? binary_build_id() : std::string();
    if (id.empty()) return synthesize_porep_shape(cfg);
    const std::string memo = shape_memo_path(cfg.registered_proof);
    try {
        if (auto s = read_shape_memo(memo, cfg.registered_proof, id)) {
            if (from_memo) *from_memo = true;
            return *s;
        }
    } catch (const error& e) {
        if (e.kind() != errc::bad_input && e.kind() != errc::io) throw;
        // Malformed or unreadable: made again below.
    }
    const r1cs::circuit_shape s = synthesize_porep_shape(cfg);
    try {
        write_shape_memo(memo, cfg.registered_proof, id, s);
    } catch (const error&) {
        // The memo only saves time: a cache that cannot be written leaves the shape as it is.
    }
    return s;
}

std::string params_path(const std::string& name, const r1cs::circuit_shape& shape) {
    return (cache_dir() / "params" / (name + "-" + shape.digest_key() + ".params")).string();
}

std::string porep_params_path(const porep::porep_config& cfg, const r1cs::circuit_shape& shape) {
    return params_path(cfg.registered_proof, shape);
}

void check_params_circuit(const groth16::params_header& params, const r1cs::circuit_shape& shape,
                          const std::string& path) {
    if (params.num_inputs != shape.num_inputs() || params.num_aux != shape.num_aux() ||
        params.a != shape.a_query_size() || params.b_g1 != shape.b_query_size())
        throw error(errc::bad_input, path + " was made for another circuit (" + std::to_string(params.num_inputs) +
                                         " inputs, " + std::to_string(params.num_aux) + " aux, a " +
                                         std::to_string(params.a) + " and b " + std::to_string(params.b_g1) +
                                         " points; this circuit has " + std::to_string(shape.num_inputs()) +
                                         " inputs, " + std::to_string(shape.num_aux()) + " aux, a " +
                                         std::to_string(shape.a_query_size()) + " and b " +
                                         std::to_string(shape.b_query_size()) + ")");
    if (params.circuit_digest != shape.digest)  // zeros (made without one) included: nothing stale is used
        throw error(errc::bad_input,
                    path + " was made for another circuit: its circuit digest is " + to_hex(params.circuit_digest) +
                        ", this circuit's is " + shape.digest_hex() +
                        " (the same counts, another structure: the parameters must be made again)");
}

void check_params_circuit(const groth16::parameters& params, const r1cs::circuit_shape& shape,
                          const std::string& path) {
    check_params_circuit(groth16::header_of(params), shape, path);
}

namespace {

// An exclusive flock held for the owner's life (closing the descriptor releases it).
class entry_lock {
public:
    explicit entry_lock(const std::string& lock_path) : path_(lock_path) {
        fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) throw error(errc::io, "cannot create the lock file " + lock_path + ": " + std::strerror(errno));
    }
    ~entry_lock() { ::close(fd_); }
    entry_lock(const entry_lock&) = delete;
    entry_lock& operator=(const entry_lock&) = delete;
    bool try_lock() { return lock(LOCK_EX | LOCK_NB); }
    void lock() { lock(LOCK_EX); }

private:
    bool lock(int how) {
        for (;;) {
            if (::flock(fd_, how) == 0) return true;
            if (errno == EINTR) continue;
            if (errno == EWOULDBLOCK && (how & LOCK_NB)) return false;
            throw error(errc::io, "cannot lock " + path_ + ": " + std::strerror(errno));
        }
    }
    std::string path_;
    int fd_ = -1;
};

}  // namespace

cached_params ensure_cached_params(const std::string& path, const std::function<void(const std::string&)>& make,
                                   const std::function<void(const std::string&)>& progress, bool force) {
    auto say = [&](const std::string& line) {
        if (progress) progress(line);
    };
    cached_params out{path, false, false};
    if (!force && fs::exists(path)) {
        say("parameters: cached " + path);
        return out;
    }
    const fs::path dir = fs::path(path).parent_path();
    if (!dir.empty()) {
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) throw error(errc::io, dir.string() + ": cannot create the directory: " + ec.message());
    }
    entry_lock lock(path + ".lock");
    if (!lock.try_lock()) {
        say("parameters: waiting for another c2lab process generating " + path);
        out.waited = true;
        lock.lock();
    }
    // Looked for again under the lock: the process that held it may have made the entry.
    if (fs::exists(path) && (!force || out.waited)) {
        say("parameters: cached " + path);
        return out;
    }
    make(path);
    out.generated = true;
    return out;
}

std::string ensure_porep_params(const porep::porep_config& cfg, uint64_t seed,
                                const std::function<void(const std::string&)>& progress) {
    const r1cs::circuit_shape sc = count_porep_shape(cfg);
    auto say = [&](const std::string& line) {
        if (progress) progress(line);
    };
    const auto make = [&](const std::string& path) {
        say("no cached parameters for " + cfg.registered_proof + "; generating " + path + " (" +
            std::to_string(sc.num_constraints()) + " constraints)");
        memory_need need = setup_memory_need(sc);
        need.what = "setup of " + cfg.registered_proof;
        check_memory(need, 0);
        r1cs::constraint_matrices<> cs;
        porep::stacked_circuit::blank(cfg).synthesize(cs);
        cs.enforce_input_constraints();
        rng g(seed);
        groth16::setup_config scfg;
        scfg.progress = say;
        groth16::parameters params = groth16::generate_parameters(cs, g, scfg);
        params.circuit_digest = sc.digest;
        say("writing " + path + " and its .vk");
        groth16::write_parameters_and_vk(path, params);
    };
    return ensure_cached_params(porep_params_path(cfg, sc), make, progress).path;
}

}  // namespace c2lab::pipeline

// The Groth16 parameters cache of the PoRep circuits, shared by `c2lab setup --c1`,
// `c2lab prove --c1` and bench_prove: one file per circuit structure under
//   $C2LAB_CACHE_DIR, else $XDG_CACHE_HOME/c2lab, else $HOME/.cache/c2lab, else ./.c2lab-cache
// then params/<registered proof>-<key>.params, key = the first 16 hex digits of the digest
// of the circuit's structure (r1cs/shape_pass.hpp: every term of every constraint, and the
// counts), its verifying key beside it as <entry>.vk (groth16/vk_file.hpp) and the
// pre-compiled circuit as <entry without .params>.pce (pce_cache.hpp). Any change to the
// circuit, even one that keeps its counts, changes the name. The file itself is versioned and
// checksummed (groth16/params_file.hpp), written atomically, and records the whole digest:
// check_params_circuit refuses parameters made for another circuit, wherever they come from.
//
// Processes share the cache: an entry is made under an exclusive flock of <entry>.lock (the
// lock file stays; the kernel releases the lock when its holder ends, however it ends), and
// looked for again once the lock is taken, so a process that waited for another one uses what
// that one made. Readers need no lock: the entry appears by rename, whole or not at all.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "groth16/keys.hpp"
#include "groth16/params_file.hpp"
#include "porep/params.hpp"
#include "r1cs/shape_pass.hpp"

namespace c2lab::pipeline {

std::filesystem::path cache_dir();

// The PoRep circuit's shape (counts with the input constraints, densities, entries, digest):
// the shape pass over the blank circuit, memoized on disk for a registered proof
// (shape_memo.hpp: per registered proof and build id of the binary).
// *from_memo (when given) says whether the shape came from the memo.
r1cs::circuit_shape count_porep_shape(const porep::porep_config& cfg, bool* from_memo = nullptr);
// The same, always synthesized (no memo).
r1cs::circuit_shape synthesize_porep_shape(const porep::porep_config& cfg);

std::string porep_params_path(const porep::porep_config& cfg, const r1cs::circuit_shape& shape);
// The entry of any circuit: params/<name>-<shape.digest_key()>.params.
std::string params_path(const std::string& name, const r1cs::circuit_shape& shape);

// errc::bad_input naming `path` when params were made for another circuit than `shape`: a
// recorded digest that differs (parameters made without one, all zeros, included), or other
// counts. The header form checks a file before its points are read (the same checks).
void check_params_circuit(const groth16::parameters& params, const r1cs::circuit_shape& shape,
                          const std::string& path);
void check_params_circuit(const groth16::params_header& params, const r1cs::circuit_shape& shape,
                          const std::string& path);

struct cached_params {
    std::string path;
    bool generated = false;  // false: the entry was there, or another process made it meanwhile
    bool waited = false;     // another process held the entry's lock first
};

// The entry `path`, made by make(path) (which writes it, atomically) when absent or, with
// force, in any case (unless another process made it while this one waited for the lock).
// progress gets "parameters: waiting for another c2lab process generating <path>" when the
// lock is held elsewhere, and "parameters: cached <path>" when the entry is used as it is.
// errc::io naming the lock file when it cannot be created or locked.
cached_params ensure_cached_params(const std::string& path, const std::function<void(const std::string& path)>& make,
                                   const std::function<void(const std::string&)>& progress = {}, bool force = false);

// The cached parameters' path, generating them first (test toxic waste from `seed`, as
// `c2lab setup --c1 --seed`) when the cache has none, with the .vk beside them. progress gets
// one line per step.
std::string ensure_porep_params(const porep::porep_config& cfg, uint64_t seed,
                                const std::function<void(const std::string&)>& progress = {});

}  // namespace c2lab::pipeline

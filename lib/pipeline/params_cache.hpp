// The Groth16 parameters cache of the PoRep circuits, shared by `c2lab setup --c1`,
// `c2lab prove --c1` and bench_prove: one file per circuit shape under
//   $C2LAB_CACHE_DIR, else $XDG_CACHE_HOME/c2lab, else $HOME/.cache/c2lab, else ./.c2lab-cache
// then params/<registered proof>-c<constraints>-i<inputs>-a<aux>.params. A change to the
// circuit changes the counts, and so the name; the file itself is versioned and checksummed
// (groth16/params_file.hpp) and written atomically.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "porep/params.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::pipeline {

std::filesystem::path cache_dir();

// The PoRep circuit's shape (constraints, inputs, aux; input constraints included): a
// shape-only synthesis of the blank circuit (seconds for 32 GiB).
r1cs::shape_counter count_porep_shape(const porep::porep_config& cfg);

std::string porep_params_path(const porep::porep_config& cfg, const r1cs::shape_counter& sc);

// The cached parameters' path, generating them first (test toxic waste from `seed`, as
// `c2lab setup --c1 --seed`) when the cache has none. progress gets one line per step.
std::string ensure_porep_params(const porep::porep_config& cfg, uint64_t seed,
                                const std::function<void(const std::string&)>& progress = {});

}  // namespace c2lab::pipeline

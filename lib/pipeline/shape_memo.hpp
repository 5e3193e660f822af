// The shape pass of a registered PoRep circuit (r1cs/shape_pass.hpp), kept on disk.
//
// The pass builds every linear combination of the blank circuit: measured with c2lab
// circuit-info on the 2-core AMD EPYC (other builds running), 1.9 to 2.3 s for 2 KiB and 53 to
// 74 s for 32 GiB, where the counts-only pass (r1cs::shape_counter) takes 0.06 s and 1.7 s;
// read from the memo, 1.5 ms. Every prove, setup and
// export-vk needs the shape to find its cache entry, so count_porep_shape
// (params_cache.hpp) memoizes it per registered proof and binary:
//   <cache_dir()>/shapes/<registered proof>-<build id>.shape
// where the build id is the GNU build-id of the ELF object that holds this code
// (dl_iterate_phdr; GCC and clang on Debian link with --build-id by default). The circuit is
// compiled into that object, so the same build id means the same circuit code; any rebuild
// that changes the code changes it and the memo is not found. Without a build id there is no
// memo (the pass runs every time).
//
// The file is text, written atomically:
//   c2lab-shape 1
//   proof <registered proof>
//   build-id <hex>
//   constraints <n>  inputs <n>  aux <n>  a_aux_density <n>  b_input_density <n>
//   b_aux_density <n>  matrix_entries <n>     (one "key value" per line, in this order)
//   digest <64 hex>
//   sha256 <64 hex of every byte before this line>
// read_shape_memo throws c2lab::error(errc::bad_input) naming the file and the line for
// anything else (count_porep_shape then runs the pass and writes the file again).
#pragma once

#include <optional>
#include <string>

#include "porep/params.hpp"
#include "r1cs/shape_pass.hpp"

namespace c2lab::pipeline {

// The lowercase hex GNU build-id of the object this function is linked into; empty if none.
std::string binary_build_id();

// The memo file of a registered proof for this binary; empty when there is no build id.
std::string shape_memo_path(const std::string& registered_proof);

void write_shape_memo(const std::string& path, const std::string& registered_proof, const std::string& build_id,
                      const r1cs::circuit_shape& shape);
// std::nullopt when the file does not exist; errc::bad_input when it is malformed, for
// another proof or another build id.
std::optional<r1cs::circuit_shape> read_shape_memo(const std::string& path, const std::string& registered_proof,
                                                   const std::string& build_id);

// Whether cfg is one of porep::registered_configs() (a custom shape is never memoized).
bool is_registered_config(const porep::porep_config& cfg) noexcept;

}  // namespace c2lab::pipeline

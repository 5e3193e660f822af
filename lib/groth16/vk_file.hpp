// Verifying-key files: a verifying key alone, in bellperson's VerifyingKey::write layout
// (bellperson src/groth16/mod.rs; encode_verifying_key in proof.hpp): alpha_g1, beta_g1,
// beta_g2, gamma_g2, delta_g1, delta_g2 uncompressed, the ic count as u32 big-endian, the ic
// points uncompressed. 868 + 96 * ic bytes: a verifier reads it in microseconds, where the
// parameters file that also holds it is megabytes to gigabytes.
//
// `c2lab setup` writes one beside every parameters file it writes, `<parameters>.vk` (in the
// parameters cache too), through write_parameters_and_vk: the old .vk is removed first, then
// the parameters and the new .vk are written, each atomically (core/file.hpp). So a .vk beside
// a parameters file was made from that file, or there is none (an interrupted write, an
// older c2lab) and readers fall back to the parameters; ensure_vk_beside makes the missing one.
#pragma once

#include <string>

#include "groth16/keys.hpp"

namespace c2lab::groth16 {

// <params_path>.vk
std::string vk_path_beside(const std::string& params_path);

// Atomic (core/file.hpp); errc::io naming the path.
void write_verifying_key(const std::string& path, const verifying_key& vk);

// Reads and decodes a .vk file: errc::io when it cannot be read; the decoder's error otherwise
// (bad_length for a truncated or overlong file or a wrong ic count, not_on_curve,
// not_in_subgroup, bad_flags, non_canonical for a bad point), the message starting with the
// path and naming the element ("<path>: verifying key ic[3]: ..."). The key's own consistency
// (check_verifying_key) is checked when it is prepared (verifier.hpp).
verifying_key read_verifying_key(const std::string& path);

// write_parameters (params_file.hpp) to path and the key to vk_path_beside(path), removing a
// .vk already there first.
void write_parameters_and_vk(const std::string& path, const parameters& params);

// The .vk beside a parameters file, written from the file (read_parameters) when it is not
// there; returns its path.
std::string ensure_vk_beside(const std::string& params_path);

}  // namespace c2lab::groth16

// Small file helpers of the c2lab CLI: whole-file reads and atomic writes (a temporary file
// in the same directory, fsync, rename over the target), and the public-inputs text format:
// one Fr element per line, hex of its 32 canonical little-endian bytes (bellperson's Fr
// repr); blank lines and lines starting with '#' are ignored.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ff/fields.hpp"

namespace c2lab::cli {

// Throws c2lab::error(io) naming the path when the file cannot be opened or read.
std::vector<uint8_t> read_file(const std::string& path);
// Throws c2lab::error(io) naming the path on any failure; the target is then untouched.
void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

std::string fr_to_hex(const ff::fr& x);
// Throws c2lab::error(bad_input / bad_length / non_canonical) naming `what`.
ff::fr fr_from_hex(std::string_view text, const std::string& what);

std::string format_inputs(std::span<const ff::fr> inputs);
std::vector<ff::fr> parse_inputs(std::string_view text, const std::string& source);

// A uniform element of Fr from OpenSSL's RAND_bytes (rejection sampling).
ff::fr random_fr_os();

}  // namespace c2lab::cli

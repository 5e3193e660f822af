// Small helpers of the c2lab CLI (files are read and written atomically with
// core/file.hpp): the public-inputs text format:
// one Fr element per line, hex of its 32 canonical little-endian bytes (bellperson's Fr
// repr); blank lines and lines starting with '#' are ignored.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/file.hpp"
#include "ff/fields.hpp"

namespace c2lab::cli {

using c2lab::read_file;
using c2lab::write_file_atomic;

// Text (a report, JSON, SVG, markdown) written atomically as its bytes.
inline void write_text_atomic(const std::string& path, std::string_view text) {
    write_file_atomic(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::string fr_to_hex(const ff::fr& x);
// Throws c2lab::error(bad_input / bad_length / non_canonical) naming `what`.
ff::fr fr_from_hex(std::string_view text, const std::string& what);

std::string format_inputs(std::span<const ff::fr> inputs);
std::vector<ff::fr> parse_inputs(std::string_view text, const std::string& source);

// A uniform element of Fr from OpenSSL's RAND_bytes (rejection sampling).
ff::fr random_fr_os();

// Timing and progress of the commands: one progress line per step on stderr ("[cmd] msg"),
// stdout stays for results.
using clock_type = std::chrono::steady_clock;
inline double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}
void progress(const std::string& cmd, const std::string& msg);
std::string fmt_ms(double ms);

}  // namespace c2lab::cli

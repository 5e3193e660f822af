#include "io.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

#include <openssl/rand.h>

#include "core/error.hpp"
#include "core/hex.hpp"

namespace c2lab::cli {

std::string fr_to_hex(const ff::fr& x) {
    std::array<uint8_t, ff::fr::bytes> b{};
    x.to_bytes_le(b);
    return to_hex(b);
}

ff::fr fr_from_hex(std::string_view text, const std::string& what) {
    std::vector<uint8_t> b;
    try {
        b = from_hex(text);
    } catch (const error& e) {
        throw error(e.kind(), what + ": " + e.what());
    }
    if (b.size() != ff::fr::bytes)
        throw error(errc::bad_length, what + ": expected " + std::to_string(ff::fr::bytes) + " bytes (" +
                                          std::to_string(2 * ff::fr::bytes) + " hex digits), got " +
                                          std::to_string(b.size()));
    return ff::fr::from_bytes_le(std::span<const uint8_t, ff::fr::bytes>(b.data(), ff::fr::bytes), what);
}

std::string format_inputs(std::span<const ff::fr> inputs) {
    std::string out;
    for (const auto& x : inputs) out += fr_to_hex(x) + "\n";
    return out;
}

std::vector<ff::fr> parse_inputs(std::string_view text, const std::string& source) {
    std::vector<ff::fr> out;
    std::istringstream in{std::string(text)};
    std::string line;
    for (size_t lineno = 1; std::getline(in, line); ++lineno) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') continue;
        out.push_back(fr_from_hex(std::string_view(line).substr(start), source + ":" + std::to_string(lineno)));
    }
    return out;
}

ff::fr random_fr_os() {
    using fr = ff::fr;
    constexpr uint64_t top_mask = (fr::bits % 64 == 0) ? ~uint64_t{0} : ((uint64_t{1} << (fr::bits % 64)) - 1);
    for (;;) {
        fr::repr x{};
        if (RAND_bytes(reinterpret_cast<unsigned char*>(x.data()), static_cast<int>(sizeof(x))) != 1)
            throw error(errc::internal, "RAND_bytes failed");
        x[fr::n_limbs - 1] &= top_mask;
        if (fr::is_canonical(x)) return fr::from_canonical(x);
    }
}

void progress(const std::string& cmd, const std::string& msg) { std::cerr << "[" << cmd << "] " << msg << std::endl; }

std::string fmt_ms(double ms) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f ms", ms);
    return b;
}

}  // namespace c2lab::cli

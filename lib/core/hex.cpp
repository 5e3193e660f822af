#include "core/hex.hpp"

#include "core/error.hpp"

namespace c2lab {

std::string to_hex(std::span<const uint8_t> bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * bytes.size());
    for (uint8_t b : bytes) {
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 15]);
    }
    return out;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::vector<uint8_t> from_hex(std::string_view text) {
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
    if (text.size() % 2 != 0)
        throw error(errc::bad_input, "hex: odd number of digits (" + std::to_string(text.size()) + ")");
    std::vector<uint8_t> out(text.size() / 2);
    for (size_t i = 0; i < text.size(); ++i) {
        int v = hex_value(text[i]);
        if (v < 0)
            throw error(errc::bad_input, "hex: invalid character at position " + std::to_string(i));
        out[i / 2] = static_cast<uint8_t>((out[i / 2] << 4) | v);
    }
    return out;
}

}  // namespace c2lab

#include "core/base64.hpp"

#include <array>
#include <cstdio>

#include "core/error.hpp"

namespace c2lab {

namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr uint8_t invalid = 0xff;

constexpr std::array<uint8_t, 256> decode_table = [] {
    std::array<uint8_t, 256> t{};
    for (auto& v : t) v = invalid;
    for (int i = 0; i < 64; ++i) t[static_cast<uint8_t>(alphabet[i])] = static_cast<uint8_t>(i);
    return t;
}();

std::string describe_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    char buf[16];
    if (u >= 0x21 && u < 0x7f)
        std::snprintf(buf, sizeof buf, "'%c'", c);
    else
        std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
}

[[noreturn]] void bad_char(std::string_view text, size_t offset) {
    if (text[offset] == '=')
        throw error(errc::bad_input, "base64: bad padding: '=' at offset " + std::to_string(offset) +
                                         " before the end of the text");
    throw error(errc::bad_input, "base64: invalid character " + describe_char(text[offset]) + " at offset " +
                                     std::to_string(offset));
}

// The position of the first character of text[begin, begin + n) outside the alphabet.
[[noreturn]] void find_bad_char(std::string_view text, size_t begin, size_t n) {
    for (size_t i = begin; i < begin + n; ++i)
        if (decode_table[static_cast<uint8_t>(text[i])] == invalid) bad_char(text, i);
    throw error(errc::internal, "base64: bad character not found");
}

size_t padding_of(std::string_view text) {
    if (text.size() % 4 != 0)
        throw error(errc::bad_input,
                    "base64: bad length: " + std::to_string(text.size()) + " characters is not a multiple of 4");
    if (text.empty()) return 0;
    const size_t n = text.size();
    if (text[n - 1] != '=') return 0;
    if (text[n - 2] != '=') return 1;
    if (text[n - 3] == '=')
        throw error(errc::bad_input, "base64: bad padding: more than two '=' at the end (from offset " +
                                         std::to_string(n - 3) + ")");
    return 2;
}

}  // namespace

std::string base64_encode(std::span<const uint8_t> bytes) {
    std::string out;
    out.resize((bytes.size() + 2) / 3 * 4);
    char* o = out.data();
    size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = alphabet[v & 63];
    }
    const size_t rest = bytes.size() - i;
    if (rest == 1) {
        const uint32_t v = uint32_t{bytes[i]} << 16;
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    } else if (rest == 2) {
        const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8);
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = '=';
    }
    return out;
}

std::string base64_encode(std::string_view bytes) {
    return base64_encode(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

size_t base64_decoded_size(std::string_view text) { return text.size() / 4 * 3 - padding_of(text); }

void base64_decode_to(std::string_view text, std::span<uint8_t> out) {
    const size_t pad = padding_of(text);
    if (out.size() != text.size() / 4 * 3 - pad)
        throw error(errc::internal, "base64: output buffer of " + std::to_string(out.size()) + " bytes for " +
                                        std::to_string(text.size() / 4 * 3 - pad));
    if (text.empty()) return;
    const auto* in = reinterpret_cast<const uint8_t*>(text.data());
    uint8_t* o = out.data();
    const size_t full = text.size() - 4;  // every group but the last
    for (size_t i = 0; i < full; i += 4) {
        const uint32_t a = decode_table[in[i]], b = decode_table[in[i + 1]], c = decode_table[in[i + 2]],
                       d = decode_table[in[i + 3]];
        if ((a | b | c | d) & 0x80) find_bad_char(text, i, 4);
        const uint32_t v = (a << 18) | (b << 12) | (c << 6) | d;
        o[0] = static_cast<uint8_t>(v >> 16);
        o[1] = static_cast<uint8_t>(v >> 8);
        o[2] = static_cast<uint8_t>(v);
        o += 3;
    }
    // The last group, with its padding.
    const size_t i = full;
    const size_t data_chars = 4 - pad;
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
        uint32_t x = 0;
        if (k < data_chars) {
            x = decode_table[in[i + k]];
            if (x == invalid) bad_char(text, i + k);
        }
        v = (v << 6) | x;
    }
    const uint32_t dropped_mask = pad == 2 ? 0xffff : pad == 1 ? 0xff : 0;
    if (v & dropped_mask)
        throw error(errc::bad_input, "base64: bad padding: non-zero unused bits in character " +
                                         describe_char(text[i + data_chars - 1]) + " at offset " +
                                         std::to_string(i + data_chars - 1));
    o[0] = static_cast<uint8_t>(v >> 16);
    if (pad < 2) o[1] = static_cast<uint8_t>(v >> 8);
    if (pad < 1) o[2] = static_cast<uint8_t>(v);
}

std::vector<uint8_t> base64_decode(std::string_view text) {
    std::vector<uint8_t> out(base64_decoded_size(text));
    base64_decode_to(text, out);
    return out;
}

}  // namespace c2lab

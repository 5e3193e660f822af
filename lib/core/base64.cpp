#include "core/base64.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "core/error.hpp"
#include "core/parallel.hpp"

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

namespace {

// Four tables that place a character's six bits where they land in the three output bytes
// (little-endian: output byte k is bits 8k..8k+7), so a group is the OR of four lookups; a
// character outside the alphabet sets bit 24 in every table, which no valid group has.
constexpr uint32_t bad_bit = uint32_t{1} << 24;
constexpr std::array<std::array<uint32_t, 256>, 4> group_tables = [] {
    std::array<std::array<uint32_t, 256>, 4> t{};
    for (int c = 0; c < 256; ++c) {
        const uint32_t v = decode_table[c];
        if (v == invalid) {
            for (auto& tk : t) tk[c] = bad_bit;
            continue;
        }
        t[0][c] = v << 2;                                     // byte 0: a << 2 | b >> 4
        t[1][c] = (v >> 4) | ((v & 15) << 12);                // byte 0 low, byte 1: (b & 15) << 4 | c >> 2
        t[2][c] = ((v >> 2) << 8) | ((v & 3) << 22);          // byte 1 low, byte 2: (c & 3) << 6 | d
        t[3][c] = v << 16;
    }
    return t;
}();

// Decodes `groups` groups of four characters without padding from `in` into `out`, writing
// one byte past the 3 * groups output bytes. Returns false if a character is outside the
// alphabet (out is then partly written).
bool decode_groups_scalar(const uint8_t* in, size_t groups, uint8_t* out) noexcept {
    uint32_t bad = 0;
    for (size_t g = 0; g < groups; ++g, in += 4, out += 3) {
        const uint32_t w = group_tables[0][in[0]] | group_tables[1][in[1]] | group_tables[2][in[2]] |
                           group_tables[3][in[3]];
        bad |= w;
        std::memcpy(out, &w, 4);
    }
    return (bad & bad_bit) == 0;
}

#if defined(__AVX2__)
// 32 characters to 24 bytes per step with AVX2 (Wojciech Mula and Daniel Lemire, "Faster
// Base64 Encoding and Decoding Using AVX2 Instructions", ACM TOW 2018; the classification by
// nibble and the multiply-add packing of their decoder). Returns the number of characters
// decoded (a multiple of 32, stopping before the first block with a character outside the
// alphabet); writes 8 bytes past the 3/4 of that many bytes.
size_t decode_blocks_avx2(const uint8_t* in, size_t n, uint8_t* out) noexcept {
    // lut_lo[low nibble] & lut_hi[high nibble] != 0 exactly for the bytes outside A-Z a-z 0-9 + /.
    const __m256i lut_lo = _mm256_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1a,
                                            0x1b, 0x1b, 0x1b, 0x1a, 0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
                                            0x11, 0x11, 0x13, 0x1a, 0x1b, 0x1b, 0x1b, 0x1a);
    const __m256i lut_hi = _mm256_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10,
                                            0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08,
                                            0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
    // What to add to a character to get its value, by high nibble ('/' looked up at index 1).
    const __m256i lut_roll = _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 19, 4,
                                              -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i slash = _mm256_set1_epi8(0x2f);
    const __m256i merge_pairs = _mm256_set1_epi32(0x01400140);
    const __m256i merge_quads = _mm256_set1_epi32(0x00011000);
    const __m256i pack = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, 2, 1, 0, 6, 5, 4,
                                          10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i gather = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    size_t i = 0;
    for (; i + 32 <= n; i += 32, out += 24) {
        const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi32(c, 4), nibble);
        const __m256i lo = _mm256_and_si256(c, nibble);
        const __m256i bad = _mm256_and_si256(_mm256_shuffle_epi8(lut_lo, lo), _mm256_shuffle_epi8(lut_hi, hi));
        if (!_mm256_testz_si256(bad, bad)) break;
        const __m256i roll = _mm256_shuffle_epi8(lut_roll, _mm256_add_epi8(_mm256_cmpeq_epi8(c, slash), hi));
        const __m256i v = _mm256_add_epi8(c, roll);
        const __m256i ab_cd = _mm256_maddubs_epi16(v, merge_pairs);  // a << 6 | b, c << 6 | d
        const __m256i abcd = _mm256_madd_epi16(ab_cd, merge_quads);  // 24 bits per 32-bit lane
        const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(abcd, pack), gather);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), bytes);
    }
    return i;
}
#endif

// The groups of text[begin, end) (whole groups, no padding) into out (3/4 of their size),
// which may be written up to `slack` bytes past that. Returns the offset of a group holding
// a character outside the alphabet, or npos.
constexpr size_t npos = ~size_t{0};
size_t decode_plain(std::string_view text, size_t begin, size_t end, uint8_t* out, size_t slack) noexcept {
    const auto* in = reinterpret_cast<const uint8_t*>(text.data());
    size_t i = begin;
#if defined(__AVX2__)
    // The vector loop stores 32 bytes for 24: keep 8 bytes of output (11 characters) behind it.
    if (end - begin >= 64) {
        const size_t stop = slack >= 8 ? end : end - 12;
        i += decode_blocks_avx2(in + i, (stop - i) / 32 * 32, out);
        out += (i - begin) / 4 * 3;
    }
#endif
    // The scalar loop stores 4 bytes for 3: its last group is done apart unless there is slack.
    size_t groups = (end - i) / 4;
    const size_t last = slack >= 1 || groups == 0 ? groups : groups - 1;
    constexpr size_t block = 256;  // groups between checks, so the error names its group
    for (size_t g = 0; g < last; g += block) {
        const size_t k = std::min(block, last - g);
        if (!decode_groups_scalar(in + i + 4 * g, k, out + 3 * g)) return i + 4 * g;
    }
    if (last < groups) {
        uint8_t tmp[4];
        if (!decode_groups_scalar(in + i + 4 * last, 1, tmp)) return i + 4 * last;
        std::memcpy(out + 3 * last, tmp, 3);
    }
    return npos;
}

}  // namespace

void base64_decode_to(std::string_view text, std::span<uint8_t> out) {
    const size_t pad = padding_of(text);
    if (out.size() != text.size() / 4 * 3 - pad)
        throw error(errc::internal, "base64: output buffer of " + std::to_string(out.size()) + " bytes for " +
                                        std::to_string(text.size() / 4 * 3 - pad));
    if (text.empty()) return;
    const auto* in = reinterpret_cast<const uint8_t*>(text.data());
    uint8_t* o = out.data();
    const size_t full = text.size() - 4;  // every group but the last
    // The last group follows: 1 to 3 bytes of output the plain groups may overwrite.
    const size_t at = decode_plain(text, 0, full, o, 3 - pad >= 1 ? 1 : 0);
    if (at != npos) find_bad_char(text, at, full - at);
    o += full / 4 * 3;
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

void base64_decode_to_parallel(std::string_view text, std::span<uint8_t> out, size_t grain) {
    const size_t pad = padding_of(text);
    const size_t groups = text.size() / 4;
    if (groups <= 1 || out.size() != text.size() / 4 * 3 - pad || grain / 4 >= groups) {
        base64_decode_to(text, out);
        return;
    }
    // Every group but the last in chunks of whole groups; a chunk may write into the next
    // one's first bytes only before that chunk runs, so each writes exactly its own bytes.
    const size_t plain_groups = groups - 1;
    const size_t chunk_groups = std::max<size_t>(grain / 4, 16);
    const size_t chunks = (plain_groups + chunk_groups - 1) / chunk_groups;
    std::atomic<bool> bad{false};
    parallel::for_chunks(chunks, 1, [&](size_t lo, size_t hi) {
        for (size_t c = lo; c < hi; ++c) {
            const size_t g0 = c * chunk_groups, g1 = std::min(plain_groups, g0 + chunk_groups);
            if (decode_plain(text, 4 * g0, 4 * g1, out.data() + 3 * g0, 0) != npos) bad = true;
        }
    });
    if (bad) {
        base64_decode_to(text, out);  // throws, naming the first bad character
        throw error(errc::internal, "base64: a chunk failed that decodes as a whole");
    }
    // The last group with its padding checks; an error is named by offset in the whole text.
    const size_t tail = 4 * plain_groups;
    try {
        base64_decode_to(text.substr(tail), out.subspan(3 * plain_groups));
    } catch (const error&) {
        base64_decode_to(text, out);
        throw;
    }
}

std::vector<uint8_t> base64_decode(std::string_view text) {
    std::vector<uint8_t> out(base64_decoded_size(text));
    base64_decode_to(text, out);
    return out;
}

}  // namespace c2lab

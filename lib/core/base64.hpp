// Base64 (RFC 4648 section 4): the standard alphabet A-Z a-z 0-9 + / with '=' padding, as
// Go's encoding/json writes a []byte (lotus-bench / curio write a C1 file's Phase1Out so).
//
// Decoding is strict: the text length must be a multiple of 4, every character must be in
// the alphabet, '=' may only end the text (at most two), and the bits that padding drops
// must be zero (RFC 4648 section 3.5), so that every byte string has exactly one encoding.
// No whitespace or line breaks are accepted. Failures throw c2lab::error (errc::bad_input)
// whose message names the offset and the character.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace c2lab {

std::string base64_encode(std::span<const uint8_t> bytes);
std::string base64_encode(std::string_view bytes);

// The number of bytes `text` decodes to; checks the length and the padding only.
size_t base64_decoded_size(std::string_view text);

// Decodes `text` into `out`, which must hold exactly base64_decoded_size(text) bytes.
// 32 characters a step with AVX2 where the compiler targets it (x86-64-v3, the default
// build), 4 with four 256-entry tables otherwise; an error names the first bad character.
void base64_decode_to(std::string_view text, std::span<uint8_t> out);

// The same result and errors, the text split into chunks of about `grain` characters decoded
// in parallel in the current oneTBB arena (serially when the text is shorter than `grain`).
inline constexpr size_t base64_parallel_grain = size_t{1} << 20;
void base64_decode_to_parallel(std::string_view text, std::span<uint8_t> out,
                               size_t grain = base64_parallel_grain);

std::vector<uint8_t> base64_decode(std::string_view text);

}  // namespace c2lab

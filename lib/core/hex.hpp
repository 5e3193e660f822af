// Hexadecimal text <-> bytes. Decoding accepts an optional "0x" prefix and either case,
// and refuses odd lengths and non-hex characters with c2lab::error naming the position.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace c2lab {

std::string to_hex(std::span<const uint8_t> bytes);
std::vector<uint8_t> from_hex(std::string_view text);

}  // namespace c2lab

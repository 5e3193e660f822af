// libFuzzer target: base64 decoding (core/base64.hpp).
//
// Contract: bad text is c2lab::error(bad_input); anything else escaping is a bug. Decoding is
// strict, so every byte string has exactly one encoding: when decode(x) succeeds,
// encode(decode(x)) == x, and decode(encode(b)) == b for every b (the input read as bytes).
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "core/base64.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const std::vector<uint8_t> bytes = c2lab::base64_decode(text);
        if (bytes.size() != c2lab::base64_decoded_size(text)) std::abort();
        if (c2lab::base64_encode(bytes) != text) std::abort();  // one encoding per byte string
    } catch (const c2lab::error& e) {
        if (e.kind() != c2lab::errc::bad_input) std::abort();
    }
    // The input as bytes: encode, then decode back.
    const std::string encoded = c2lab::base64_encode(std::span<const uint8_t>(data, size));
    if (encoded.size() != (size + 2) / 3 * 4) std::abort();
    if (c2lab::base64_decode(encoded) != std::vector<uint8_t>(data, data + size)) std::abort();
    return 0;
}

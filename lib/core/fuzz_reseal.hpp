// For the libFuzzer targets of files that end with a checksum of their contents (the parameters
// file's SHA-256, the pre-compiled circuit's XXH3-128): almost every mutation breaks the
// checksum, and the reader stops there. reseal_and_read runs `read` on the input as it is, then
// on a copy whose last digest bytes are `digest` of the rest (where that changes anything), so
// mutations reach the checks behind the checksum too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <tuple>
#include <type_traits>
#include <vector>

namespace c2lab {

// digest(bytes) returns a std::array<uint8_t, N>; the input's last N bytes are its digest.
template <class Digest, class Read>
void reseal_and_read(std::span<const uint8_t> input, Digest&& digest, Read&& read) {
    read(input);
    using digest_type = std::remove_cvref_t<decltype(digest(input))>;
    constexpr size_t n = std::tuple_size_v<digest_type>;
    if (input.size() < n) return;
    const digest_type d = digest(input.first(input.size() - n));
    if (std::memcmp(d.data(), input.data() + input.size() - n, n) == 0) return;
    std::vector<uint8_t> fixed(input.begin(), input.end());
    std::memcpy(fixed.data() + fixed.size() - n, d.data(), n);
    read(std::span<const uint8_t>(fixed));
}

}  // namespace c2lab

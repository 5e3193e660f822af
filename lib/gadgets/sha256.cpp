// Native SHA-256 over OpenSSL, the twins of the gadgets in sha256.hpp.
#include "gadgets/sha256.hpp"

#include <algorithm>

#include <openssl/sha.h>

namespace c2lab::gadgets {

sha256_digest sha256_native(std::span<const uint8_t> data) {
    sha256_digest out{};
    SHA256(data.data(), data.size(), out.data());
    return out;
}

sha256_digest sha256_hash2_native(const std::array<uint8_t, 32>& a, const std::array<uint8_t, 32>& b) {
    std::array<uint8_t, 64> buf;
    std::copy(a.begin(), a.end(), buf.begin());
    std::copy(b.begin(), b.end(), buf.begin() + 32);
    sha256_digest d = sha256_native(buf);
    trim_to_fr32(d);
    return d;
}

}  // namespace c2lab::gadgets

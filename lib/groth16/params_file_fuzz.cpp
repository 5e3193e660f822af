// libFuzzer target: the parameters file decoder (groth16/params_file.hpp decode_parameters,
// what read_parameters runs on the mapped or read bytes).
//
// Each input is decoded twice: as it is, and with its last 32 bytes replaced by the SHA-256
// of the rest (core/fuzz_reseal.hpp), so that mutations get past the checksum into the counts
// and point checks.
// Contract: bad bytes are c2lab::error(bad_input); counts are checked against the input's
// size before anything is allocated (scripts/fuzz.sh runs this with -rss_limit_mb=2048 to
// catch a count that is not). Parameters that decode account for every byte of the input.
#include <openssl/evp.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "core/fuzz_reseal.hpp"
#include "groth16/params_file.hpp"

namespace {

void decode(std::span<const uint8_t> bytes) {
    namespace g = c2lab::groth16;
    try {
        const g::parameters p = g::decode_parameters("fuzz input", bytes);
        // The layout of params_file.hpp: header, six vk points, the vectors, the digest.
        const size_t g1 = p.vk.ic.size() + p.h.size() + p.l.size() + p.a.size() + p.b_g1.size() + 3;
        const size_t g2 = p.b_g2.size() + 3;
        if (g::params_file_header_bytes + 96 * g1 + 192 * g2 + 32 != bytes.size()) std::abort();
    } catch (const c2lab::error& e) {
        if (e.kind() != c2lab::errc::bad_input) std::abort();
    }
}

std::array<uint8_t, 32> sha256_of(std::span<const uint8_t> bytes) {
    std::array<uint8_t, 32> d;
    unsigned len = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), d.data(), &len, EVP_sha256(), nullptr) != 1 || len != d.size())
        std::abort();
    return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    c2lab::reseal_and_read(std::span<const uint8_t>(data, size), sha256_of, decode);
    return 0;
}

// libFuzzer target: Groth16 proof and verifying-key decoding (groth16/proof.hpp).
//
// The whole input is offered to both decoders (a proof is exactly 192 bytes, a verifying key
// 868 + 96 * ic bytes). Contract: bad bytes are c2lab::error; what decodes encodes back to
// exactly the input (every point encoding is unique, the ic count is checked against the
// length).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "groth16/proof.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace g = c2lab::groth16;
    const std::span<const uint8_t> in(data, size);
    try {
        const g::proof p = g::decode_proof(in);
        const auto back = g::encode_proof(p);
        if (size != back.size() || !std::equal(back.begin(), back.end(), data)) std::abort();
    } catch (const c2lab::error&) {
    }
    try {
        const g::verifying_key vk = g::decode_verifying_key(in);
        if (g::encode_verifying_key(vk) != std::vector<uint8_t>(data, data + size)) std::abort();
    } catch (const c2lab::error&) {
    }
    return 0;
}

// A Groth16 proof (A in G1, B in G2, C in G1) and the byte formats:
//
//   proof: 192 bytes = A (G1 compressed, 48) || B (G2 compressed, 96) || C (G1 compressed, 48),
//          zkcrypto/bls12_381 encodings (ec/encoding.hpp), as bellperson's Proof::write.
//   verifying key (bellperson's VerifyingKey::write): uncompressed points alpha_g1 (96),
//          beta_g1 (96), beta_g2 (192), gamma_g2 (192), delta_g1 (96), delta_g2 (192), then
//          the ic count as u32 big-endian and the ic points (96 each).
//
// Decoding checks everything (lengths, flags, canonical coordinates, on curve, in the
// subgroup) and throws c2lab::error with the kind of the first failure and a message naming
// the element ("proof element B (G2): ...", "verifying key ic[3]: ...").
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "groth16/keys.hpp"

namespace c2lab::groth16 {

struct proof {
    g1_affine a;
    g2_affine b;
    g1_affine c;
    friend bool operator==(const proof&, const proof&) = default;
};

inline constexpr size_t proof_bytes = 192;

std::array<uint8_t, proof_bytes> encode_proof(const proof& p) noexcept;
proof decode_proof(std::span<const uint8_t> bytes);

std::vector<uint8_t> encode_verifying_key(const verifying_key& vk);
verifying_key decode_verifying_key(std::span<const uint8_t> bytes);

}  // namespace c2lab::groth16

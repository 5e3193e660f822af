// Point encodings compatible with zkcrypto/bls12_381 (and blst, and Filecoin's proofs):
//
//   G1 compressed 48 bytes: x big-endian; G1 uncompressed 96 bytes: x || y.
//   G2 compressed 96 bytes: x.c1 || x.c0; G2 uncompressed 192: x.c1 || x.c0 || y.c1 || y.c0.
//   Flags in the three top bits of the first byte:
//     0x80 compression (set in compressed form, clear in uncompressed form)
//     0x40 infinity    (then every other bit must be zero)
//     0x20 sort        (compressed only: y is the lexicographically largest root)
//
// Decoding refuses, with c2lab::error naming the rule: a wrong length (bad_length),
// flag combinations that are not allowed (bad_flags), coordinates >= p (non_canonical),
// points off the curve (not_on_curve) and, unless told not to, points outside the
// prime-order subgroup (not_in_subgroup).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "ec/g2.hpp"

namespace c2lab::ec {

enum class subgroup_check : bool { off = false, on = true };

std::array<uint8_t, 48> to_compressed(const g1_affine& p) noexcept;
std::array<uint8_t, 96> to_uncompressed(const g1_affine& p) noexcept;
std::array<uint8_t, 96> to_compressed(const g2_affine& p) noexcept;
std::array<uint8_t, 192> to_uncompressed(const g2_affine& p) noexcept;

g1_affine g1_from_compressed(std::span<const uint8_t> bytes, subgroup_check check = subgroup_check::on);
g1_affine g1_from_uncompressed(std::span<const uint8_t> bytes, subgroup_check check = subgroup_check::on);
g2_affine g2_from_compressed(std::span<const uint8_t> bytes, subgroup_check check = subgroup_check::on);
g2_affine g2_from_uncompressed(std::span<const uint8_t> bytes, subgroup_check check = subgroup_check::on);

}  // namespace c2lab::ec

// The Groth16 verifier (bellperson's verify_proof, src/groth16/verifier.rs):
//
//   acc = ic[0] + sum_i x_i ic[i + 1]         (x: the public inputs, without the constant one)
//   accept iff  e(A, B) * e(acc, -gamma) * e(C, -delta) == e(alpha, beta)
//
// computed as one multi-Miller loop over the three pairs and one final exponentiation.
#pragma once

#include <span>

#include "groth16/keys.hpp"
#include "groth16/proof.hpp"

namespace c2lab::groth16 {

prepared_verifying_key prepare_verifying_key(const verifying_key& vk);

// Throws c2lab::error(errc::bad_input) when public_inputs.size() + 1 != pvk.ic.size().
// The proof's points are taken as they are (decode_proof checks subgroups).
bool verify_proof(const prepared_verifying_key& pvk, const proof& p, std::span<const fr> public_inputs);

}  // namespace c2lab::groth16

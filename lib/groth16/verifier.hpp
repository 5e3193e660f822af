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

// The key's own consistency, checked before any proof is verified under it:
//   alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 are not the identity (with
//   gamma or delta the identity, the equation no longer binds the inputs or C);
//   e(beta_g1, g2) == e(g1, beta_g2) and e(delta_g1, g2) == e(g1, delta_g2) (the G1 copies
//   take no part in verification; a key whose copies disagree did not come from a setup).
// Two multi-pairings (about 1.4 ms). Throws c2lab::error(errc::bad_input) naming the element.
void check_verifying_key(const verifying_key& vk);

// Checks the key (check_verifying_key), then prepares it.
prepared_verifying_key prepare_verifying_key(const verifying_key& vk);

// Throws c2lab::error(errc::bad_input) when public_inputs.size() + 1 != pvk.ic.size().
// The proof's points are taken as they are (decode_proof checks subgroups).
bool verify_proof(const prepared_verifying_key& pvk, const proof& p, std::span<const fr> public_inputs);

}  // namespace c2lab::groth16

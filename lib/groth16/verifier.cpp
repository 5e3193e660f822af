#include "groth16/verifier.hpp"

#include <string>
#include <utility>

#include "core/error.hpp"
#include "msm/pippenger.hpp"

namespace c2lab::groth16 {

prepared_verifying_key::prepared_verifying_key(const verifying_key& vk)
    : alpha_g1_beta_g2(ec::pairing(vk.alpha_g1, vk.beta_g2)),
      neg_gamma_g2(-vk.gamma_g2),
      neg_delta_g2(-vk.delta_g2),
      ic(vk.ic) {}

prepared_verifying_key prepare_verifying_key(const verifying_key& vk) { return prepared_verifying_key(vk); }

bool verify_proof(const prepared_verifying_key& pvk, const proof& p, std::span<const fr> public_inputs) {
    if (pvk.ic.empty() || public_inputs.size() + 1 != pvk.ic.size())
        throw error(errc::bad_input, "verify_proof: " + std::to_string(public_inputs.size()) +
                                         " public inputs, the verifying key expects " +
                                         std::to_string(pvk.ic.empty() ? 0 : pvk.ic.size() - 1));
    ec::g1_jacobian acc = pvk.ic[0].to_jacobian();
    std::span<const g1_affine> ic(pvk.ic);
    if (public_inputs.size() < 16) {
        for (size_t i = 0; i < public_inputs.size(); ++i) acc += ic[i + 1].to_jacobian() * public_inputs[i];
    } else {
        acc += msm::msm<ec::g1_curve>(ic.subspan(1), public_inputs);
    }
    const ec::g2_prepared b(p.b);  // B changes with every proof: prepared here
    const std::pair<g1_affine, const ec::g2_prepared*> terms[3] = {
        {p.a, &b}, {acc.to_affine(), &pvk.neg_gamma_g2}, {p.c, &pvk.neg_delta_g2}};
    return ec::final_exponentiation(ec::multi_miller_loop(terms)) == pvk.alpha_g1_beta_g2;
}

}  // namespace c2lab::groth16

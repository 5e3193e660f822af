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

void check_verifying_key(const verifying_key& vk) {
    auto nonzero = [](bool identity, const char* name) {
        if (identity) throw error(errc::bad_input, std::string("verifying key: ") + name + " is the identity");
    };
    nonzero(vk.alpha_g1.is_identity(), "alpha_g1");
    nonzero(vk.beta_g1.is_identity(), "beta_g1");
    nonzero(vk.beta_g2.is_identity(), "beta_g2");
    nonzero(vk.gamma_g2.is_identity(), "gamma_g2");
    nonzero(vk.delta_g1.is_identity(), "delta_g1");
    nonzero(vk.delta_g2.is_identity(), "delta_g2");
    // e(x_g1, -g2) * e(g1, x_g2) == 1 for x = beta, delta.
    const ec::g2_prepared neg_g2(-g2_affine::generator());
    auto same_scalar = [&](const g1_affine& x1, const g2_affine& x2, const char* name) {
        const ec::g2_prepared x2p(x2);
        const std::pair<g1_affine, const ec::g2_prepared*> terms[2] = {{x1, &neg_g2}, {g1_affine::generator(), &x2p}};
        if (!(ec::final_exponentiation(ec::multi_miller_loop(terms)) == ec::gt::one()))
            throw error(errc::bad_input, std::string("verifying key: ") + name +
                                             "_g1 and " + name + "_g2 are not the same scalar times the generators");
    };
    same_scalar(vk.beta_g1, vk.beta_g2, "beta");
    same_scalar(vk.delta_g1, vk.delta_g2, "delta");
}

prepared_verifying_key prepare_verifying_key(const verifying_key& vk) {
    check_verifying_key(vk);
    return prepared_verifying_key(vk);
}

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

// The prover's heavy stages behind one interface, so that another engine (the CUDA backend in
// gpu/) can take them over while the CPU stays the default and the reference:
//
//   compute_h   the ntt stage: bellperson's h step (poly::compute_h's contract: a, b, c of one
//               length m, returns the first n - 1 coefficients of h, n = next power of two >= m)
//   msm_g1      sum scalars[i] * bases[i] in G1 (scalars.size() == bases.size())
//   msm_g2      the same in G2
//
// The prover passes dense inputs: where a query's bases were filtered by a density bitmap at
// setup, it selects the matching scalars first (select_by_density), so a backend sees plain
// MSMs only. A null backend in prover_config means the CPU code of lib/poly and lib/msm,
// called directly.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "ec/g1.hpp"
#include "ec/g2.hpp"
#include "ff/fields.hpp"
#include "msm/density.hpp"

namespace c2lab::groth16 {

// The backend flag: "cpu" (the prover's own code, no backend object) or "cuda" (gpu/).
enum class backend_kind { cpu, cuda };
backend_kind parse_backend_kind(std::string_view name);  // errc::bad_input naming the variants
std::string_view to_string(backend_kind k) noexcept;

class prover_backend {
public:
    virtual ~prover_backend() = default;
    virtual std::string_view name() const noexcept = 0;
    virtual std::vector<ff::fr> compute_h(std::span<const ff::fr> a, std::span<const ff::fr> b,
                                          std::span<const ff::fr> c) = 0;
    virtual ec::g1_jacobian msm_g1(std::span<const ec::g1_affine> bases, std::span<const ff::fr> scalars) = 0;
    virtual ec::g2_jacobian msm_g2(std::span<const ec::g2_affine> bases, std::span<const ff::fr> scalars) = 0;
};

// The scalars whose density bit is set, in order (bellperson's filtered-bases semantics).
// errc::bad_input when density.size() != scalars.size().
std::vector<ff::fr> select_by_density(const msm::density_bitmap& density, std::span<const ff::fr> scalars);

}  // namespace c2lab::groth16

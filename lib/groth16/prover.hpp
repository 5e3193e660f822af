// The Groth16 prover on the CPU, step for step bellperson's (src/groth16/prover/):
//
//   ntt       h = compute_h(a, b, c): n - 1 coefficients of (A*B - C) / Z (poly/h_poly.hpp),
//             in a, b, c themselves when the caller hands them over (abc_in_place)
//   msm_h     H = sum h_i * h_query_i
//   msm_l     L = sum aux_j * l_j
//   msm_a     A = sum over inputs (all) + sum over aux (a_aux density)       (msm_filtered_bases)
//   msm_b_g1  B1 = inputs (b_input density) + aux (b_aux density), in G1
//   msm_b_g2  B2 = the same in G2
//   assemble  A = alpha + A + r delta;  B = beta2 + B2 + s delta2;  B1 = beta1 + B1 + s delta1
//             C = s A + r B1 - r s delta + H + L;  everything to affine
//
// The msm_split flag: with on, the MSMs whose scalars are the assignment (L, A, B1, B2; not
// H, whose scalars are the h coefficients) skip 0-scalars and sum the points of 1-scalars
// by batched affine addition before Pippenger runs on the rest (msm/split.hpp).
//
// The b_g2_msm flag: serial runs the G2 MSM after the G1 MSMs; parallel runs it as a
// tbb::task_group task concurrently with them (each MSM still parallel inside). With
// parallel, msm_b_g2's time overlaps the G1 stages in the report.
//
// With cfg.backend set (groth16/backend.hpp), the ntt stage and the five MSMs run there (the
// G2 MSM serially after the G1 ones whatever b_g2_msm says); msm and ntt settings are the CPU's.
//
// Sizes are checked against the parameters: a mismatch (another circuit's parameters, or an
// assignment without its input constraints) throws c2lab::error(errc::bad_input).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "groth16/backend.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/stage_report.hpp"
#include "msm/pippenger.hpp"
#include "poly/domain.hpp"
#include "poly/ntt.hpp"
#include "r1cs/proving_assignment.hpp"

namespace c2lab::groth16 {

enum class b_g2_msm { serial, parallel };

// The b_g2_msm flag: "serial" or "parallel"; anything else throws errc::bad_input.
b_g2_msm parse_b_g2_msm(std::string_view name);
std::string_view to_string(b_g2_msm m) noexcept;

// An observer of the prover's stages: (stage name, milliseconds its work took), called on the
// thread that ran the stage (msm_b_g2 may run beside the G1 stages: the hook must be safe to
// call concurrently). Instrumentation, e.g. the benchmarks' test-only stage slowdown
// (pipeline/test_flags.hpp); time it spends counts in the stage's report.
using stage_hook = std::function<void(std::string_view stage, double ms)>;

struct prover_config {
    msm::msm_config msm;                 // window policy and threads of every MSM
    b_g2_msm b_g2 = b_g2_msm::serial;    // the b_g2_msm flag
    bool msm_split = false;              // the msm_split flag: L, A, B1, B2 via msm/split.hpp (CPU only)
    poly::ntt_config ntt;                // the h step
    prover_backend* backend = nullptr;   // null: the CPU (lib/poly, lib/msm); else ntt and MSMs go there
    // The ntt stage's domain (CPU, h in place) from here, made by the first proof and kept for the
    // next (a batch: pipeline::prove_batch sets one); null: each proof makes its own.
    std::shared_ptr<poly::domain_cache> domains;
    // Called at the end of every stage but assemble, inside its timing (empty: nothing).
    stage_hook on_stage;
};

// What the prover reads from a proving assignment (spans into it).
struct witness_view {
    std::span<const fr> a, b, c;  // evaluations, one per constraint (input constraints included)
    std::span<const fr> input_assignment, aux_assignment;
    const msm::density_bitmap& a_aux_density;
    const msm::density_bitmap& b_input_density;
    const msm::density_bitmap& b_aux_density;
};

// a, b, c handed to the prover to overwrite, for a proof that is their last use: each span
// holds n = params.domain_size() elements, the m evaluations that witness_view::a, b, c show
// first (the same memory) and zeros after. The ntt stage then runs in them
// (poly::compute_h_in_place) and the H MSM reads h from a, instead of three copies padded to n:
// 3 x 2^27 x 32 bytes = 12 GiB less at the peak of a 32 GiB partition. Afterwards they hold
// scratch. Ignored with a backend (it copies a, b, c to its device).
struct abc_in_place {
    std::span<fr> a, b, c;
};

// r, s: the prover's blinding randomness (uniform in Fr for zero knowledge). in_place: see
// abc_in_place (errc::bad_input when its spans are not of the domain's size or not w's memory).
proof create_proof(const parameters& params, const witness_view& w, const fr& r, const fr& s,
                   const prover_config& cfg = {}, stage_report* report = nullptr,
                   const abc_in_place* in_place = nullptr);

// The assignment must have had enforce_input_constraints() called (errc::bad_input if not).
template <class Indexer>
proof create_proof(const parameters& params, const r1cs::proving_assignment<Indexer>& pa, const fr& r, const fr& s,
                   const prover_config& cfg = {}, stage_report* report = nullptr) {
    if (!pa.input_constraints_enforced())
        throw error(errc::bad_input, "create_proof: call enforce_input_constraints() on the assignment first");
    return create_proof(params,
                        witness_view{pa.a(), pa.b(), pa.c(), pa.input_assignment(), pa.aux_assignment(),
                                     pa.a_aux_density(), pa.b_input_density(), pa.b_aux_density()},
                        r, s, cfg, report);
}

}  // namespace c2lab::groth16

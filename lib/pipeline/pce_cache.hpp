// The pre-compiled PoRep circuits (r1cs/pce.hpp, flag synth=pce), cached like the parameters
// (params_cache.hpp): one file per circuit structure, in the same directory,
//   <cache_dir()>/params/<registered proof>-<first 16 hex digits of the circuit digest>.pce
// versioned, checksummed and written atomically; built on first use (2 KiB: seconds). Its tag
// (r1cs/pce.hpp) is "<registered proof> <the whole digest in hex>" (porep_pce_tag), checked on
// load: a file of another circuit is refused and rebuilt. A cached file is mapped
// (r1cs/pce.hpp: open), its rows read from the page cache (32 GiB: an 8.9 GB file beside
// 16.7 GB of witness and a, b, c on a 24 GB machine); the one just built is kept in memory
// unless it is larger than a quarter of the memory available.
//
// synthesize_porep_job: one partition's prepared job, the way the flags say: synth=direct
// synthesizes into a proving assignment (lc_indexer, presize); synth=pce into a
// witness_assignment (presize), then multiplies the pre-compiled matrices. The prover sees
// the same witness_view either way.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "pipeline/batch.hpp"
#include "pipeline/flags.hpp"
#include "porep/circuit.hpp"
#include "r1cs/pce.hpp"
#include "r1cs/witness_assignment.hpp"

namespace c2lab::pipeline {

std::string porep_pce_path(const porep::porep_config& cfg, const r1cs::circuit_shape& shape);
std::string porep_pce_tag(const porep::porep_config& cfg, const r1cs::circuit_shape& shape);

// The blank circuit's matrices (input rows included), compiled, with the given tag (empty:
// the registered proof).
// With the shape (count_porep_shape), its constraint and term counts reserve the rows' storage
// once instead of growing it by doubling.
r1cs::precompiled_circuit build_porep_pce(const porep::porep_config& cfg, std::string tag = {},
                                          const r1cs::circuit_shape* shape = nullptr);

// The cached pre-compiled circuit of cfg's shape (sc: count_porep_shape(cfg)), built and
// saved first when the cache has none. A cached file that is refused (corrupt, another
// format version, another shape) is rebuilt and replaced; progress gets a line saying why.
std::shared_ptr<const r1cs::precompiled_circuit> ensure_porep_pce(
    const porep::porep_config& cfg, const r1cs::circuit_shape& shape,
    const std::function<void(const std::string&)>& progress = {});

// synth=auto for a PoRep circuit (cfg; nullptr for another circuit, which synthesizes directly):
// pce where the cache holds cfg's pre-compiled file (built by `c2lab setup --c1` or an earlier
// synth=pce job), else direct. auto does not build it: that takes a blank synthesis and the file
// (184 MB at 2 KiB, 8.9 GB at 32 GiB). direct and pce come back as they are.
r1cs::synth_mode resolve_synth(r1cs::synth_mode m, const porep::porep_config* cfg, const r1cs::circuit_shape& shape);

// A job of the pre-compiled path: the witness and a, b, c from the product; the densities
// are the pre-compiled circuit's (the same for every witness of the shape).
class pce_job : public prepared_job {
public:
    pce_job(std::shared_ptr<const r1cs::precompiled_circuit> pce, const r1cs::capacity_hint& hint,
            r1cs::presize_mode presize);
    // After synthesis into wa: enforces the input constraints, checks the shape and
    // multiplies (errc::bad_input when the witness does not fit the pre-compiled shape).
    void evaluate();
    groth16::witness_view witness() const override {
        const std::size_t m = pce_->num_constraints();
        return {abc_.a.span().first(m), abc_.b.span().first(m), abc_.c.span().first(m), wa.input_assignment(),
                wa.aux_assignment(), pce_->a_aux_density(), pce_->b_input_density(), pce_->b_aux_density()};
    }
    // a, b, c are evaluated padded to the domain (next power of two >= m), ready to hand over.
    std::optional<groth16::abc_in_place> hand_over_abc(std::size_t n) override {
        if (abc_.a.size() != n) return std::nullopt;
        return groth16::abc_in_place{abc_.a.span(), abc_.b.span(), abc_.c.span()};
    }

private:
    std::shared_ptr<const r1cs::precompiled_circuit> pce_;
    r1cs::precompiled_circuit::evaluation abc_;

public:
    r1cs::witness_assignment wa;

private:
    // presize=prefault: a, b and c made here and faulted in while wa synthesizes (after wa, so
    // that its own pages are faulted in first and its thread is stopped first).
    r1cs::prefaulted_abc ahead_;
};

// Synthesizes circuit c (shape hint) as flags.synth says; pce is required for synth=pce
// (ensure_porep_pce) and ignored otherwise. The input constraints are enforced. With a pool,
// synth=direct builds on vectors a proved job gave back (witness_memory=reuse).
std::unique_ptr<prepared_job> synthesize_porep_job(const porep::stacked_circuit& c, const flag_values& flags,
                                                   const r1cs::capacity_hint& hint,
                                                   const std::shared_ptr<const r1cs::precompiled_circuit>& pce,
                                                   witness_pool* pool = nullptr);

}  // namespace c2lab::pipeline

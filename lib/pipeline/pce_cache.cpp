#include "pipeline/pce_cache.hpp"

#include <filesystem>

#include "pipeline/params_cache.hpp"

namespace c2lab::pipeline {

namespace fs = std::filesystem;

std::string porep_pce_path(const porep::porep_config& cfg, const r1cs::circuit_shape& shape) {
    fs::path p = porep_params_path(cfg, shape);
    p.replace_extension(".pce");
    return p.string();
}

std::string porep_pce_tag(const porep::porep_config& cfg, const r1cs::circuit_shape& shape) {
    return cfg.registered_proof + " " + shape.digest_hex();
}

r1cs::precompiled_circuit build_porep_pce(const porep::porep_config& cfg, std::string tag,
                                          const r1cs::circuit_shape* shape) {
    // Compiled as the blank circuit synthesizes: at 32 GiB the matrices with their field
    // coefficients would take 52.8 GiB, the compiled rows 8.9 GB.
    r1cs::pce_constraint_system<> cs;
    if (shape) cs.reserve(shape->constraints, shape->matrix_entries);
    porep::stacked_circuit::blank(cfg).synthesize(cs);
    cs.enforce_input_constraints();
    return std::move(cs).finish(tag.empty() ? cfg.registered_proof : std::move(tag));
}

std::shared_ptr<const r1cs::precompiled_circuit> ensure_porep_pce(
    const porep::porep_config& cfg, const r1cs::circuit_shape& sc,
    const std::function<void(const std::string&)>& progress) {
    auto say = [&](const std::string& line) {
        if (progress) progress(line);
    };
    const std::string path = porep_pce_path(cfg, sc);
    const std::string tag = porep_pce_tag(cfg, sc);
    const r1cs::capacity_hint shape = sc.hint();
    // Made under the entry's lock (params_cache.hpp), so processes sharing the cache build it once.
    std::shared_ptr<const r1cs::precompiled_circuit> built;
    auto make = [&](const std::string& to) {
        say("building the pre-compiled circuit of " + cfg.registered_proof + " into " + to);
        auto p = std::make_shared<const r1cs::precompiled_circuit>(build_porep_pce(cfg, tag, &sc));
        if (p->shape() != shape || p->a_aux_density().count() != sc.a_aux_density ||
            p->b_input_density().count() != sc.b_input_density || p->b_aux_density().count() != sc.b_aux_density)
            throw error(errc::internal, "pre-compiled " + cfg.registered_proof +
                                            ": its shape or densities differ from the shape pass's");
        fs::create_directories(fs::path(to).parent_path());
        p->save(to);
        built = std::move(p);
    };
    // A cached file is mapped (r1cs/pce.hpp: open): its rows are read from the page cache, no
    // copy in memory (the 2 KiB circuit's 184 MB: 52-53 ms mapped and checked against 172-175
    // ms read into memory, Intel Xeon), and at 32 GiB its 8.9 GB stay evictable beside 16.7 GB
    // of witness. The circuit just built is kept as it is unless it is more than a quarter of
    // the memory available (then mapped, its memory given back first).
    auto too_large = [&] {
        std::error_code ec;
        const auto bytes = fs::file_size(path, ec);
        const std::uint64_t avail = available_memory_bytes();
        return !ec && avail != 0 && std::uint64_t(bytes) > avail / 4;
    };
    auto take = [&]() -> std::shared_ptr<const r1cs::precompiled_circuit> {
        if (built && !too_large()) return built;
        built.reset();
        return std::make_shared<const r1cs::precompiled_circuit>(r1cs::precompiled_circuit::open(path, &shape, &tag));
    };
    // The cache's lines name parameters: only the wait is worth a line here, renamed.
    auto lock_progress = [&](const std::string& line) {
        const std::string waiting = "parameters: waiting";
        if (line.rfind(waiting, 0) == 0) say("pre-compiled circuit: waiting" + line.substr(waiting.size()));
    };
    ensure_cached_params(path, make, lock_progress);
    try {
        return take();
    } catch (const error& e) {
        if (e.kind() != errc::bad_input) throw;
        say(std::string(e.what()) + "; rebuilding it");
    }
    ensure_cached_params(path, make, lock_progress, /*force=*/true);
    return take();
}

r1cs::synth_mode resolve_synth(r1cs::synth_mode m, const porep::porep_config* cfg, const r1cs::circuit_shape& shape) {
    if (m != r1cs::synth_mode::automatic) return m;
    std::error_code ec;
    return cfg && fs::exists(porep_pce_path(*cfg, shape), ec) ? r1cs::synth_mode::pce : r1cs::synth_mode::direct;
}

pce_job::pce_job(std::shared_ptr<const r1cs::precompiled_circuit> pce, const r1cs::capacity_hint& hint,
                 r1cs::presize_mode presize)
    : pce_(std::move(pce)), wa(hint, presize), ahead_(*pce_, domain_of(pce_->num_constraints()), presize) {}

void pce_job::evaluate() {
    wa.enforce_input_constraints();
    if (wa.num_constraints() != pce_->num_constraints())
        throw error(errc::bad_input, "synth=pce: the circuit synthesized " + std::to_string(wa.num_constraints()) +
                                         " constraints, its pre-compiled shape has " +
                                         std::to_string(pce_->num_constraints()));
    abc_ = ahead_.evaluate(*pce_, wa.input_assignment(), wa.aux_assignment());
}

std::unique_ptr<prepared_job> synthesize_porep_job(const porep::stacked_circuit& c, const flag_values& flags,
                                                   const r1cs::capacity_hint& hint,
                                                   const std::shared_ptr<const r1cs::precompiled_circuit>& pce,
                                                   witness_pool* pool) {
    if (flags.synth == r1cs::synth_mode::pce) {
        if (!pce) throw error(errc::internal, "synth=pce without a pre-compiled circuit");
        auto job = std::make_unique<pce_job>(pce, hint, flags.presize);
        c.synthesize(job->wa);
        job->evaluate();
        return job;
    }
    return r1cs::with_lc_indexer(flags.lc_indexer, [&](auto tag) -> std::unique_ptr<prepared_job> {
        using indexer = typename decltype(tag)::type;
        auto job = std::make_unique<assignment_job<indexer>>(hint, flags.presize,
                                                             pool ? pool->take() : r1cs::assignment_buffers{});
        c.synthesize(job->pa);
        job->pa.enforce_input_constraints();
        return job;
    });
}

}  // namespace c2lab::pipeline

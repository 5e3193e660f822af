#include "groth16/prover.hpp"

#include <chrono>
#include <string>

#include <tbb/task_group.h>

#include "core/error.hpp"
#include "msm/endo_mul.hpp"
#include "msm/split.hpp"
#include "poly/h_poly.hpp"

namespace c2lab::groth16 {

b_g2_msm parse_b_g2_msm(std::string_view name) {
    if (name == "serial") return b_g2_msm::serial;
    if (name == "parallel") return b_g2_msm::parallel;
    throw error(errc::bad_input, "b_g2_msm: unknown variant '" + std::string(name) + "' (expected serial or parallel)");
}

std::string_view to_string(b_g2_msm m) noexcept { return m == b_g2_msm::serial ? "serial" : "parallel"; }

namespace {

void expect(bool ok, const std::string& what) {
    if (!ok) throw error(errc::bad_input, "create_proof: " + what);
}
std::string sz(size_t n) { return std::to_string(n); }

}  // namespace

backend_kind parse_backend_kind(std::string_view name) {
    if (name == "cpu") return backend_kind::cpu;
    if (name == "cuda") return backend_kind::cuda;
    throw error(errc::bad_input, "backend: unknown variant '" + std::string(name) + "' (expected cpu or cuda)");
}
std::string_view to_string(backend_kind k) noexcept { return k == backend_kind::cpu ? "cpu" : "cuda"; }

std::vector<fr> select_by_density(const msm::density_bitmap& density, std::span<const fr> scalars) {
    if (density.size() != scalars.size())
        throw error(errc::bad_input, "select_by_density: " + sz(density.size()) + " density bits for " +
                                         sz(scalars.size()) + " scalars");
    std::vector<fr> out;
    out.reserve(density.count());
    for (size_t i = 0; i < scalars.size(); ++i)
        if (density.test(i)) out.push_back(scalars[i]);
    return out;
}

proof create_proof(const parameters& params, const witness_view& w, const fr& r, const fr& s,
                   const prover_config& cfg, stage_report* report, const abc_in_place* in_place) {
    const size_t ni = w.input_assignment.size(), na = w.aux_assignment.size();
    const size_t m = w.a.size();
    expect(w.b.size() == m && w.c.size() == m, "a, b, c have different lengths");
    expect(ni == params.num_inputs(), sz(ni) + " inputs, parameters for " + sz(params.num_inputs()));
    expect(na == params.num_aux(), sz(na) + " aux variables, parameters for " + sz(params.num_aux()));
    expect(m >= ni, "fewer constraints than inputs (input constraints missing)");
    size_t n = 1;
    while (n < m) n <<= 1;
    expect(n == params.domain_size(),
           sz(m) + " constraints need a domain of " + sz(n) + ", parameters have " + sz(params.domain_size()));
    expect(w.a_aux_density.size() == na && w.b_aux_density.size() == na && w.b_input_density.size() == ni,
           "density bitmaps do not match the assignment");
    const size_t a_aux = w.a_aux_density.count(), b_in = w.b_input_density.count(), b_aux = w.b_aux_density.count();
    expect(params.a.size() == ni + a_aux,
           "A query has " + sz(params.a.size()) + " points, the densities select " + sz(ni + a_aux));
    expect(params.b_g1.size() == b_in + b_aux && params.b_g2.size() == b_in + b_aux,
           "B queries have " + sz(params.b_g1.size()) + " (G1) and " + sz(params.b_g2.size()) +
               " (G2) points, the densities select " + sz(b_in + b_aux));

    using J1 = ec::g1_jacobian;
    using J2 = ec::g2_jacobian;
    std::span<const g1_affine> a_q(params.a), b1_q(params.b_g1);
    std::span<const g2_affine> b2_q(params.b_g2);

    // The stages, on the CPU or on cfg.backend.
    prover_backend* const be = cfg.backend;
    // h's scalars are never split (they are the h coefficients, not the assignment).
    const bool split = cfg.msm_split && !be;
    auto msm_g1 = [&](std::span<const g1_affine> bases, std::span<const fr> scalars, bool splittable = true) {
        if (be) return be->msm_g1(bases, scalars);
        return split && splittable ? msm::msm_split<ec::g1_curve>(bases, scalars, cfg.msm)
                                   : msm::msm<ec::g1_curve>(bases, scalars, cfg.msm);
    };
    auto msm_g1_filtered = [&](std::span<const g1_affine> bases, const msm::density_bitmap& d,
                               std::span<const fr> scalars) {
        if (be) return be->msm_g1(bases, select_by_density(d, scalars));
        return split ? msm::msm_filtered_bases_split<ec::g1_curve>(bases, d, scalars, cfg.msm)
                     : msm::msm_filtered_bases<ec::g1_curve>(bases, d, scalars, cfg.msm);
    };
    auto msm_g2_filtered = [&](std::span<const g2_affine> bases, const msm::density_bitmap& d,
                               std::span<const fr> scalars) {
        if (be) return be->msm_g2(bases, select_by_density(d, scalars));
        return split ? msm::msm_filtered_bases_split<ec::g2_curve>(bases, d, scalars, cfg.msm)
                     : msm::msm_filtered_bases<ec::g2_curve>(bases, d, scalars, cfg.msm);
    };
    const bool b2_parallel = cfg.b_g2 == b_g2_msm::parallel && !be;
    // One stage: timed into the report, then cfg.on_stage told how long its work took.
    auto run_stage = [&](const char* name, auto&& work) {
        scoped_stage t(report, name);
        const auto t0 = std::chrono::steady_clock::now();
        work();
        if (cfg.on_stage)
            cfg.on_stage(name, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    };

    J2 b2 = J2::identity();
    std::chrono::steady_clock::time_point b2_start, b2_end;
    double b2_cpu = 0;  // the process's CPU time over the G2 MSM (the other stages' too when parallel)
    auto run_b_g2 = [&] {
        b2_cpu = process_cpu_ms();
        b2_start = std::chrono::steady_clock::now();
        b2 = msm_g2_filtered(b2_q.first(b_in), w.b_input_density, w.input_assignment) +
             msm_g2_filtered(b2_q.subspan(b_in), w.b_aux_density, w.aux_assignment);
        if (cfg.on_stage)
            cfg.on_stage("msm_b_g2", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b2_start).count());
        b2_end = std::chrono::steady_clock::now();
        b2_cpu = process_cpu_ms() - b2_cpu;
    };
    tbb::task_group g2_group;
    if (b2_parallel) g2_group.run(run_b_g2);

    if (in_place) {
        auto same = [&](std::span<const fr> view, std::span<fr> buf) {
            return buf.size() == n && view.data() == buf.data();
        };
        expect(same(w.a, in_place->a) && same(w.b, in_place->b) && same(w.c, in_place->c),
               "a, b, c handed over in place must be the witness's own, padded to the domain of " + sz(n));
    }
    const bool h_in_place = in_place && !be;

    J1 h_acc, l_acc, a_acc, b1_acc;
    try {
        std::vector<fr> h_copy;
        std::span<const fr> h;
        run_stage("ntt", [&] {
            if (h_in_place) {  // a, b, c are not read again: h is computed in them
                const poly::evaluation_domain d = cfg.domains ? cfg.domains->at_least(n, cfg.ntt.threads)
                                                              : poly::evaluation_domain::at_least(n, cfg.ntt.threads);
                poly::compute_h_in_place(d, in_place->a, in_place->b, in_place->c, cfg.ntt);
                h = in_place->a.first(n - 1);  // bellperson's H query has n - 1 bases
            } else {
                auto copy = [](std::span<const fr> v) { return std::vector<fr>(v.begin(), v.end()); };
                h_copy = be ? be->compute_h(w.a, w.b, w.c) : poly::compute_h(copy(w.a), copy(w.b), copy(w.c), cfg.ntt);
                h = h_copy;
            }
        });
        run_stage("msm_h", [&] { h_acc = msm_g1(params.h, h, false); });
        run_stage("msm_l", [&] { l_acc = msm_g1(params.l, w.aux_assignment); });
        run_stage("msm_a", [&] {
            a_acc = msm_g1(a_q.first(ni), w.input_assignment) +
                    msm_g1_filtered(a_q.subspan(ni), w.a_aux_density, w.aux_assignment);
        });
        run_stage("msm_b_g1", [&] {
            b1_acc = msm_g1_filtered(b1_q.first(b_in), w.b_input_density, w.input_assignment) +
                     msm_g1_filtered(b1_q.subspan(b_in), w.b_aux_density, w.aux_assignment);
        });
    } catch (...) {
        g2_group.wait();
        throw;
    }
    if (b2_parallel)
        g2_group.wait();  // rethrows an exception of the G2 task
    else
        run_b_g2();
    if (report) report->add_span("msm_b_g2", b2_start, b2_end, b2_cpu);

    scoped_stage t(report, "assemble");
    const auto& vk = params.vk;
    const J1 delta1 = vk.delta_g1.to_jacobian();
    // Every point here is in the order-r subgroup (parameter points are checked on load, the
    // MSM sums are sums of them), as msm::g1_mul_endo / g2_mul_endo require.
    const J1 a_pt = a_acc + vk.alpha_g1 + msm::g1_mul_endo(delta1, r);
    const J2 b_pt = b2 + vk.beta_g2 + msm::g2_mul_endo(vk.delta_g2.to_jacobian(), s);
    const J1 b1_pt = b1_acc + vk.beta_g1 + msm::g1_mul_endo(delta1, s);
    const J1 c_pt = msm::g1_mul_endo(a_pt, s) + msm::g1_mul_endo(b1_pt, r) - msm::g1_mul_endo(delta1, r * s) + h_acc + l_acc;
    return proof{a_pt.to_affine(), b_pt.to_affine(), c_pt.to_affine()};
}

}  // namespace c2lab::groth16

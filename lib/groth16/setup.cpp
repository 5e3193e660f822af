#include "groth16/setup.hpp"

#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "msm/fixed_base.hpp"
#include "poly/domain.hpp"
#include "poly/ntt.hpp"

namespace c2lab::groth16 {

namespace {

fr nonzero_random(rng& g) noexcept {
    for (;;) {
        fr x = fr::random(g);
        if (!x.is_zero()) return x;
    }
}

// Adds coeff * L_i(tau) into out[var] for every entry of every row; sets the density bit
// of a variable with a nonzero coefficient. out: inputs first, then aux.
void accumulate(const r1cs::sparse_matrix& m, std::span<const fr> lagrange, size_t num_inputs, size_t num_aux,
                std::vector<fr>& out, std::vector<char>& dense, const char* name) {
    for (size_t i = 0; i < m.num_rows(); ++i) {
        for (const auto& [v, k] : m.row(i)) {
            size_t limit = v.is_input() ? num_inputs : num_aux;
            if (v.index >= limit)
                throw error(errc::bad_input, std::string("generate_parameters: matrix ") + name + " row " +
                                                 std::to_string(i) + " refers to " +
                                                 (v.is_input() ? "input " : "aux ") + std::to_string(v.index) +
                                                 " of " + std::to_string(limit));
            if (k.is_zero()) continue;
            size_t j = v.is_input() ? v.index : num_inputs + v.index;
            out[j] += k * lagrange[i];
            dense[j] = 1;
        }
    }
}

}  // namespace

toxic_waste toxic_waste::random(rng& g) noexcept {
    toxic_waste t;
    t.tau = nonzero_random(g);
    t.alpha = nonzero_random(g);
    t.beta = nonzero_random(g);
    t.gamma = nonzero_random(g);
    t.delta = nonzero_random(g);
    return t;
}

parameters generate_parameters(const r1cs_shape& shape, const toxic_waste& tw, const setup_config& cfg) {
    const size_t m = shape.a.num_rows();
    const size_t ni = shape.num_inputs, na = shape.num_aux;
    if (shape.b.num_rows() != m || shape.c.num_rows() != m)
        throw error(errc::bad_input, "generate_parameters: matrices A, B, C have " + std::to_string(m) + ", " +
                                         std::to_string(shape.b.num_rows()) + ", " +
                                         std::to_string(shape.c.num_rows()) + " rows");
    if (ni == 0 || m < ni)
        throw error(errc::bad_input, "generate_parameters: " + std::to_string(m) + " constraints cannot hold the " +
                                         std::to_string(ni) + " input constraints");
    for (size_t i = 0; i < ni; ++i) {
        size_t row = m - ni + i;
        auto a = shape.a.row(row);
        bool ok = a.size() == 1 && a[0].first == r1cs::variable::input(i) && a[0].second == fr::one() &&
                  shape.b.row(row).empty() && shape.c.row(row).empty();
        if (!ok)
            throw error(errc::bad_input, "generate_parameters: row " + std::to_string(row) +
                                             " is not the input constraint of input " + std::to_string(i) +
                                             " (call enforce_input_constraints() after synthesis)");
    }
    if (tw.gamma.is_zero() || tw.delta.is_zero())
        throw error(errc::bad_input, "generate_parameters: gamma and delta must be nonzero");

    return parallel::in_arena(cfg.threads, [&]() -> parameters {
        const poly::evaluation_domain domain = poly::evaluation_domain::at_least(m);
        const size_t n = domain.size();
        poly::ntt_config ntt;
        auto say = [&](const std::string& line) {
            if (cfg.progress) cfg.progress(line);
        };
        say("domain 2^" + std::to_string(domain.log_size()) + ": powers of tau and Lagrange coefficients");

        // Powers of tau, then Lagrange coefficients by an inverse NTT.
        std::vector<fr> powers(n);
        powers[0] = fr::one();
        for (size_t i = 1; i < n; ++i) powers[i] = powers[i - 1] * tw.tau;
        const fr z_tau = powers[n - 1] * tw.tau - fr::one();
        std::vector<fr> lagrange = powers;
        poly::inverse_ntt(domain, lagrange, ntt);

        const size_t nv = ni + na;
        std::vector<fr> u(nv), v(nv), w(nv);
        std::vector<char> a_dense(nv), b_dense(nv), c_dense(nv);
        say("evaluating A, B, C at tau (" + std::to_string(nv) + " variables)");
        accumulate(shape.a, lagrange, ni, na, u, a_dense, "A");
        accumulate(shape.b, lagrange, ni, na, v, b_dense, "B");
        accumulate(shape.c, lagrange, ni, na, w, c_dense, "C");

        const fr gamma_inv = tw.gamma.inverse(), delta_inv = tw.delta.inverse();

        // Every G1 scalar in one vector: h | ic | l | a | b_g1.
        std::vector<fr> s1;
        const size_t nh = n - 1;
        size_t n_a = ni, n_b = 0;
        for (size_t j = ni; j < nv; ++j) n_a += a_dense[j] ? 1 : 0;
        for (size_t j = 0; j < nv; ++j) n_b += b_dense[j] ? 1 : 0;
        s1.reserve(nh + nv + n_a + n_b);
        const fr h_scale = z_tau * delta_inv;
        for (size_t i = 0; i < nh; ++i) s1.push_back(powers[i] * h_scale);
        for (size_t j = 0; j < nv; ++j)
            s1.push_back((tw.beta * u[j] + tw.alpha * v[j] + w[j]) * (j < ni ? gamma_inv : delta_inv));
        for (size_t j = 0; j < nv; ++j)
            if (j < ni || a_dense[j]) s1.push_back(u[j]);
        std::vector<fr> s2;
        s2.reserve(n_b);
        for (size_t j = 0; j < nv; ++j)
            if (b_dense[j]) {
                s1.push_back(v[j]);
                s2.push_back(v[j]);
            }

        const msm::fixed_base_table<ec::g1_curve> t1(ec::g1_jacobian::generator(),
                                                     msm::fixed_base_table<ec::g1_curve>::best_window_bits(s1.size()));
        const msm::fixed_base_table<ec::g2_curve> t2(ec::g2_jacobian::generator(),
                                                     msm::fixed_base_table<ec::g2_curve>::best_window_bits(s2.size()));
        say("G1 fixed-base multiplications: " + std::to_string(s1.size()) + " points");
        std::vector<g1_affine> p1 = t1.mul_batch(s1);

        parameters p;
        auto take = [&](size_t& at, size_t count) {
            std::vector<g1_affine> out(p1.begin() + static_cast<std::ptrdiff_t>(at),
                                       p1.begin() + static_cast<std::ptrdiff_t>(at + count));
            at += count;
            return out;
        };
        size_t at = 0;
        p.h = take(at, nh);
        p.vk.ic = take(at, ni);
        p.l = take(at, na);
        p.a = take(at, n_a);
        p.b_g1 = take(at, n_b);
        say("G2 fixed-base multiplications: " + std::to_string(s2.size()) + " points");
        p.b_g2 = t2.mul_batch(s2);

        p.vk.alpha_g1 = t1.mul(tw.alpha).to_affine();
        p.vk.beta_g1 = t1.mul(tw.beta).to_affine();
        p.vk.delta_g1 = t1.mul(tw.delta).to_affine();
        p.vk.beta_g2 = t2.mul(tw.beta).to_affine();
        p.vk.gamma_g2 = t2.mul(tw.gamma).to_affine();
        p.vk.delta_g2 = t2.mul(tw.delta).to_affine();
        return p;
    });
}

}  // namespace c2lab::groth16

// The CUDA prover backend (built with CUDA only; backend_none.cpp otherwise). Plain C++ over
// the host classes of msm_gpu.hpp, ntt_gpu.hpp and host_memory.hpp.
#include "gpu/backend.hpp"

#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "gpu/device.hpp"
#include "gpu/msm/msm_gpu.hpp"
#include "gpu/ntt/ntt_gpu.hpp"

namespace c2lab::gpu {

namespace {

// A host array as the device copy will read it, under the host_pinning policy: registered in
// place, or copied into pinned memory, or (off) as it is. Lives for one stage.
class pinned_view {
public:
    pinned_view(std::span<const ff::fr> a, host_pinning p) : view_(a) {
        if (a.empty() || p == host_pinning::off) return;
        if (p == host_pinning::register_) {
            reg_.emplace(const_cast<ff::fr*>(a.data()), a.size_bytes(), register_flags::read_only);
        } else {
            staged_.emplace(a.size_bytes());
            std::memcpy(staged_->data(), a.data(), a.size_bytes());
            view_ = {static_cast<const ff::fr*>(staged_->data()), a.size()};
        }
    }
    std::span<const ff::fr> span() const { return view_; }

private:
    std::span<const ff::fr> view_;
    std::optional<host_registration> reg_;
    std::optional<pinned_buffer> staged_;
};

class cuda_backend final : public groth16::prover_backend {
public:
    explicit cuda_backend(host_pinning p) : pinning_(p) {}
    std::string_view name() const noexcept override { return "cuda"; }

    std::vector<ff::fr> compute_h(std::span<const ff::fr> a, std::span<const ff::fr> b,
                                  std::span<const ff::fr> c) override {
        const pinned_view pa(a, pinning_), pb(b, pinning_), pc(c, pinning_);
        return gpu::compute_h(pa.span(), pb.span(), pc.span());
    }
    ec::g1_jacobian msm_g1(std::span<const ec::g1_affine> bases, std::span<const ff::fr> scalars) override {
        return run(g1_, bases, scalars);
    }
    ec::g2_jacobian msm_g2(std::span<const ec::g2_affine> bases, std::span<const ff::fr> scalars) override {
        return run(g2_, bases, scalars);
    }

private:
    // One device copy of each query's bases: keyed by the host array's address and length,
    // which are stable for the parameters' lifetime.
    template <class C>
    using cache = std::map<std::pair<const void*, size_t>, std::unique_ptr<msm_gpu<C>>>;

    template <class C>
    ec::jacobian<C> run(cache<C>& c, std::span<const ec::affine<C>> bases, std::span<const ff::fr> scalars) {
        if (bases.empty()) return ec::jacobian<C>::identity();
        auto& slot = c[{bases.data(), bases.size()}];
        if (!slot) slot = std::make_unique<msm_gpu<C>>(bases);
        const pinned_view s(scalars, pinning_);
        return slot->run(s.span());
    }

    host_pinning pinning_;
    cache<ec::g1_curve> g1_;
    cache<ec::g2_curve> g2_;
};

}  // namespace

std::unique_ptr<groth16::prover_backend> make_prover_backend(groth16::backend_kind kind, host_pinning pinning) {
    if (kind == groth16::backend_kind::cpu) return nullptr;
    if (auto why = no_device_reason()) throw error(errc::device, "--backend cuda: " + *why);
    return std::make_unique<cuda_backend>(pinning);
}

}  // namespace c2lab::gpu

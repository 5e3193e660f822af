// ntt_gpu for Fr: the device state and the host calls around ntt_plan.hpp's pass sequences.
#include <bit>
#include <string>

#include "gpu/ntt/ntt_gpu.cuh"
#include "gpu/ntt/ntt_gpu.hpp"

namespace c2lab::gpu {

namespace {

std::string size_name(uint64_t n) { return "n = 2^" + std::to_string(std::countr_zero(n)); }

}  // namespace

struct ntt_gpu::impl {
    uint64_t n;
    uint32_t log_n;
    ntt::host_tables host;
    ntt::cuda_stream stream;
    ntt::cuda_event ev[4];  // before h2d, after h2d, after the kernels, after d2h
    ntt::device_array<fr_dev> tables, tw, a, b, c;
    ntt::ntt_view view;

    explicit impl(uint64_t size)
        : n(size),
          log_n(static_cast<uint32_t>(std::countr_zero(size))),
          host(ntt::make_host_tables(log_n)),
          tables(host.data.size(), "the NTT's tables of powers (" + size_name(n) + ")"),
          tw(n / 2, "the twiddle table (" + size_name(n) + ")") {
        C2_CUDA_CHECK(cudaMemcpyAsync(tables.get(), host.data.data(), host.data.size() * sizeof(fr_dev),
                                      cudaMemcpyHostToDevice, stream.get()));
        view = ntt::make_view(host, tables.get(), tw.get(), ntt::make_plan(log_n));
        ntt::device_exec e{stream.get()};
        e.twiddles(tw.get(), n / 2, host.set(ntt::ps_twiddle, tables.get()));
        C2_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    }

    void ensure(ntt::device_array<fr_dev>& buf, const char* what) {
        buf.reserve(n, std::string(what) + " (" + size_name(n) + ")");
    }
    void record(int i) { C2_CUDA_CHECK(cudaEventRecord(ev[i].get(), stream.get())); }
    void finish_timing(gpu_timing* t) {
        C2_CUDA_CHECK(cudaEventSynchronize(ev[3].get()));
        C2_CUDA_CHECK(cudaGetLastError());  // an execution error of a kernel, if any
        if (!t) return;
        float ms[3] = {};
        for (int i = 0; i < 3; ++i) C2_CUDA_CHECK(cudaEventElapsedTime(&ms[i], ev[i].get(), ev[i + 1].get()));
        t->h2d_ms = ms[0];
        t->kernel_ms = ms[1];
        t->d2h_ms = ms[2];
    }

    void transform(void* x, size_t count, ntt::ntt_kind kind, const char* what, gpu_timing* t) {
        if (count != n)
            throw error(errc::bad_input, std::string("ntt_gpu::") + what + ": " + std::to_string(count) +
                                             " elements for a domain of size " + std::to_string(n));
        ensure(a, "the transform buffer");
        const size_t bytes = n * sizeof(fr_dev);
        record(0);
        C2_CUDA_CHECK(cudaMemcpyAsync(a.get(), x, bytes, cudaMemcpyHostToDevice, stream.get()));
        record(1);
        ntt::device_exec e{stream.get()};
        ntt::run_transform(e, view, a.get(), kind);
        record(2);
        C2_CUDA_CHECK(cudaMemcpyAsync(x, a.get(), bytes, cudaMemcpyDeviceToHost, stream.get()));
        record(3);
        finish_timing(t);
    }

    void h(const void* ha, const void* hb, const void* hc, size_t m, void* out, gpu_timing* t) {
        ensure(a, "the h step's buffer a");
        ensure(b, "the h step's buffer b");
        ensure(c, "the h step's buffer c");
        record(0);
        for (auto [dst, src] : {std::pair{a.get(), ha}, std::pair{b.get(), hb}, std::pair{c.get(), hc}}) {
            if (m > 0)
                C2_CUDA_CHECK(cudaMemcpyAsync(dst, src, m * sizeof(fr_dev), cudaMemcpyHostToDevice, stream.get()));
            if (m < n) C2_CUDA_CHECK(cudaMemsetAsync(dst + m, 0, (n - m) * sizeof(fr_dev), stream.get()));
        }
        record(1);
        ntt::device_exec e{stream.get()};
        ntt::run_h(e, view, a.get(), b.get(), c.get());
        record(2);
        if (n > 1)
            C2_CUDA_CHECK(cudaMemcpyAsync(out, a.get(), (n - 1) * sizeof(fr_dev), cudaMemcpyDeviceToHost, stream.get()));
        record(3);
        finish_timing(t);
    }
};

ntt_gpu::ntt_gpu(size_t n) {
    if (n == 0 || !std::has_single_bit(n) || n > (size_t{1} << ntt::fr_two_adicity))
        throw error(errc::bad_input, "ntt_gpu: size " + std::to_string(n) + " is not a power of two in [1, 2^32]");
    impl_ = std::make_unique<impl>(n);
}

ntt_gpu::~ntt_gpu() = default;

size_t ntt_gpu::size() const { return static_cast<size_t>(impl_->n); }

void ntt_gpu::forward(std::span<ff::fr> a, gpu_timing* t) {
    impl_->transform(a.data(), a.size(), ntt::ntt_kind::forward, "forward", t);
}
void ntt_gpu::inverse(std::span<ff::fr> a, gpu_timing* t) {
    impl_->transform(a.data(), a.size(), ntt::ntt_kind::inverse, "inverse", t);
}
void ntt_gpu::coset_forward(std::span<ff::fr> a, gpu_timing* t) {
    impl_->transform(a.data(), a.size(), ntt::ntt_kind::coset_forward, "coset_forward", t);
}
void ntt_gpu::coset_inverse(std::span<ff::fr> a, gpu_timing* t) {
    impl_->transform(a.data(), a.size(), ntt::ntt_kind::coset_inverse, "coset_inverse", t);
}

void ntt_gpu::compute_h_into(std::span<const ff::fr> a, std::span<const ff::fr> b, std::span<const ff::fr> c,
                             std::span<ff::fr> h, gpu_timing* t) {
    const size_t n = size();
    if (a.size() != b.size() || a.size() != c.size() || a.size() > n)
        throw error(errc::bad_input, "ntt_gpu::compute_h: a, b, c have " + std::to_string(a.size()) + ", " +
                                         std::to_string(b.size()) + ", " + std::to_string(c.size()) +
                                         " elements; they must be equal and at most " + std::to_string(n));
    if (h.size() != n - 1)
        throw error(errc::internal, "ntt_gpu::compute_h: output of " + std::to_string(h.size()) + " elements for n = " +
                                        std::to_string(n));
    impl_->h(a.data(), b.data(), c.data(), a.size(), h.data(), t);
}

}  // namespace c2lab::gpu

// bench_ff: arithmetic of BLS12-381 (fields, curves, pairing). Each benchmark measures
// latency: every iteration depends on the previous result, as in a real dependency chain.
// Run: bench_ff --benchmark_format=json (or scripts/bench.sh for the whole suite).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include <tbb/cache_aligned_allocator.h>

#include "core/cpu.hpp"
#include "ec/pairing.hpp"
#include "ff/fp12_compressed.hpp"
#include "ff/ifma.hpp"
#include "msm/endo_mul.hpp"

namespace {

using namespace c2lab;
using namespace c2lab::ff;
using namespace c2lab::ec;

template <class F>
void field_mul(benchmark::State& state) {
    rng g(1);
    F a = F::random(g), b = F::random(g);
    for (auto _ : state) {
        a = a * b;
        benchmark::DoNotOptimize(a);
    }
}

template <class F, bool Asm>
void field_mul_path(benchmark::State& state) {
    if (Asm && !cpu::use_adx_asm) {
        state.SkipWithError("the mulx/adcx/adox path is not available on this CPU or build");
        return;
    }
    rng g(1);
    F a = F::random(g), b = F::random(g);
    for (auto _ : state) {
        a.mont = Asm ? mont_mul_asm(a.mont, b.mont, F::modulus, F::n0)
                     : mont_mul_portable(a.mont, b.mont, F::modulus, F::n0);
        benchmark::DoNotOptimize(a);
    }
}

template <class F>
void field_square(benchmark::State& state) {
    rng g(2);
    F a = F::random(g);
    for (auto _ : state) {
        a = a.square();
        benchmark::DoNotOptimize(a);
    }
}

// Squarings in the cyclotomic subgroup, where the final exponentiation spends most of its
// time: Granger-Scott on the whole element (9 Fp2 squarings) against Karabina's compressed
// form (6), side by side; the compressed one leaves out its decompression (one per run).
void fp12_cyclotomic_square(benchmark::State& state) {
    rng g(4);
    ff::fp12 a = ff::fp12::random_cyclotomic(g);
    for (auto _ : state) {
        a = a.cyclotomic_square();
        benchmark::DoNotOptimize(a);
    }
}

void fp12_cyclotomic_square_compressed(benchmark::State& state) {
    rng g(4);
    ff::fp12_compressed a = ff::fp12_compressed::of(ff::fp12::random_cyclotomic(g));
    for (auto _ : state) {
        a = a.square();
        benchmark::DoNotOptimize(a);
    }
}

template <class F>
void field_add(benchmark::State& state) {
    rng g(3);
    F a = F::random(g), b = F::random(g);
    for (auto _ : state) {
        a = a + b;
        benchmark::DoNotOptimize(a);
    }
}

template <class F>
void field_inverse(benchmark::State& state) {
    rng g(4);
    F a = F::random(g);
    for (auto _ : state) {
        a = a.inverse() + F::one();
        benchmark::DoNotOptimize(a);
    }
}

template <class F>
void field_batch_inverse(benchmark::State& state) {
    rng g(5);
    std::vector<F> xs(static_cast<size_t>(state.range(0)));
    for (auto& x : xs) x = F::random(g);
    for (auto _ : state) {
        batch_inverse(std::span<F>(xs));
        benchmark::DoNotOptimize(xs.data());
    }
    state.counters["elements/s"] = benchmark::Counter(double(xs.size()) * state.iterations(), benchmark::Counter::kIsRate);
}

// Throughput of n independent multiplications out[i] = a[i] * b[i] on one path (ff/ifma.hpp):
// path:scalar is the mulx loop over the same data, for the side-by-side ratio with path:ifma and
// path:avx2 (4 products per AVX2 kernel call, conversions to and from radix 2^29 included).
// Counters: muls/s, and time/mul (seconds per multiplication, CPU time).
template <class F, batch_path Path>
void field_mul_batch(benchmark::State& state) {
    if (Path == batch_path::ifma && !ifma_available()) {
        state.SkipWithError("the AVX-512 IFMA path is not available on this CPU (or C2LAB_NO_AVX512 is set)");
        return;
    }
    if (Path == batch_path::avx2 && !avx2_available()) {
        state.SkipWithError("the AVX2 kernels are off (C2LAB_PORTABLE is set, or not an x86-64 build)");
        return;
    }
    const size_t n = static_cast<size_t>(state.range(0));
    rng g(15);
    std::vector<F> a(n), b(n), out(n);
    for (auto& x : a) x = F::random(g);
    for (auto& x : b) x = F::random(g);
    for (auto _ : state) {
        mul_batch(Path, std::span<F>(out), std::span<const F>(a), std::span<const F>(b));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    const double muls = double(n) * double(state.iterations());
    state.counters["muls/s"] = benchmark::Counter(muls, benchmark::Counter::kIsRate);
    state.counters["time/mul"] = benchmark::Counter(muls, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Throughput of n batched affine additions (x1, y1) += (x2, +-y2) over Fp or Fp2
// (ff::affine_add_batch, the MSM's bucket accumulation for G1 / G2) on one path: one shared inversion, about 5M + 1S per
// addition. The inputs are restored from a copy each iteration (not timed: PauseTiming would
// cost more than a small batch, so the copy is timed and reported by ff/affine_add_batch/copy).
// The arrays sit on cache lines, as the MSM's gathered coordinates do (malloc's 16-byte alignment
// split the kernel's 64-byte loads: IFMA n = 1024 took 86-88 instead of 79-80 us, Intel Xeon).
// Counters: adds/s and time/add (seconds per addition, CPU time).
template <class F, int Path>  // Path: 0 scalar, 1 ifma, 2 avx2, -1 the copy alone
void affine_add_batch_bench(benchmark::State& state) {
    constexpr bool copy_only = Path < 0;
    const batch_path path = Path == 1 ? batch_path::ifma : Path == 2 ? batch_path::avx2 : batch_path::scalar;
    if (path == batch_path::ifma && !ifma_available()) {
        state.SkipWithError("the AVX-512 IFMA path is not available on this CPU (or C2LAB_NO_AVX512 is set)");
        return;
    }
    if (path == batch_path::avx2 && !avx2_available()) {
        state.SkipWithError("the AVX2 kernels are off (C2LAB_PORTABLE is set, or not an x86-64 build)");
        return;
    }
    const size_t n = static_cast<size_t>(state.range(0));
    rng g(16);
    std::vector<F, tbb::cache_aligned_allocator<F>> x1(n), y1(n), x2(n), y2(n);
    std::vector<uint8_t> neg(n);
    for (size_t i = 0; i < n; ++i) {
        x1[i] = F::random(g), y1[i] = F::random(g), x2[i] = F::random(g), y2[i] = F::random(g);
        neg[i] = static_cast<uint8_t>(g() & 1);
    }
    std::vector<F, tbb::cache_aligned_allocator<F>> x(n), y(n);
    for (auto _ : state) {
        std::copy(x1.begin(), x1.end(), x.begin());
        std::copy(y1.begin(), y1.end(), y.begin());
        if (!copy_only)
            affine_add_batch(path, std::span<F>(x), std::span<F>(y), std::span<const F>(x2), std::span<const F>(y2),
                             std::span<const uint8_t>(neg));
        benchmark::DoNotOptimize(x.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    const double adds = double(n) * double(state.iterations());
    state.counters["adds/s"] = benchmark::Counter(adds, benchmark::Counter::kIsRate);
    state.counters["time/add"] = benchmark::Counter(adds, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void fp_sqrt(benchmark::State& state) {
    rng g(6);
    fp a = fp::random(g).square();
    for (auto _ : state) {
        auto r = a.sqrt();
        benchmark::DoNotOptimize(r);
        a += fp::one();
    }
}

template <class C>
jacobian<C> random_point(rng& g) {
    return jacobian<C>::generator() * fr::random(g);
}

template <class C>
void point_add(benchmark::State& state) {
    rng g(7);
    auto a = random_point<C>(g), b = random_point<C>(g);
    for (auto _ : state) {
        a = a + b;
        benchmark::DoNotOptimize(a);
    }
}

template <class C>
void point_add_mixed(benchmark::State& state) {
    rng g(8);
    auto a = random_point<C>(g);
    auto b = random_point<C>(g).to_affine();
    for (auto _ : state) {
        a = a + b;
        benchmark::DoNotOptimize(a);
    }
}

template <class C>
void point_dbl(benchmark::State& state) {
    rng g(9);
    auto a = random_point<C>(g);
    for (auto _ : state) {
        a = a.dbl();
        benchmark::DoNotOptimize(a);
    }
}

template <class C>
void point_add_xyzz_mixed(benchmark::State& state) {
    rng g(10);
    auto a = random_point<C>(g).to_affine().to_xyzz();
    auto b = random_point<C>(g).to_affine();
    for (auto _ : state) {
        a = a + b;
        benchmark::DoNotOptimize(a);
    }
}

template <class C>
void point_add_xyzz(benchmark::State& state) {
    rng g(11);
    auto a = random_point<C>(g).to_affine().to_xyzz();
    auto b = (random_point<C>(g).to_affine().to_xyzz() + random_point<C>(g).to_affine());
    for (auto _ : state) {
        a = a + b;
        benchmark::DoNotOptimize(a);
    }
}

// [k]P by the plain 4-bit window (jacobian::mul), or with Endo by the endomorphism
// (msm/endo_mul.hpp), on the same chain.
template <class C, bool Endo = false>
void point_mul(benchmark::State& state) {
    rng g(12);
    auto a = random_point<C>(g);
    fr k = fr::random(g);
    for (auto _ : state) {
        if constexpr (!Endo) a = a * k;
        else if constexpr (std::is_same_v<C, g1_curve>) a = msm::g1_mul_endo(a, k);
        else a = msm::g2_mul_endo(a, k);
        benchmark::DoNotOptimize(a);
    }
}

void g1_subgroup_check(benchmark::State& state) {
    rng g(13);
    auto p = random_point<g1_curve>(g).to_affine();
    for (auto _ : state) benchmark::DoNotOptimize(g1_in_subgroup(p));
}

void g2_subgroup_check(benchmark::State& state) {
    rng g(14);
    auto p = random_point<g2_curve>(g).to_affine();
    for (auto _ : state) benchmark::DoNotOptimize(g2_in_subgroup(p));
}

void miller_loop_bench(benchmark::State& state) {
    auto p = g1_affine::generator();
    auto q = g2_affine::generator();
    for (auto _ : state) benchmark::DoNotOptimize(miller_loop(p, q));
}

void final_exp_bench(benchmark::State& state) {
    fp12 f = miller_loop(g1_affine::generator(), g2_affine::generator());
    for (auto _ : state) {
        f = final_exponentiation(f);
        benchmark::DoNotOptimize(f);
    }
}

void pairing_bench(benchmark::State& state) {
    auto p = g1_affine::generator();
    auto q = g2_affine::generator();
    for (auto _ : state) benchmark::DoNotOptimize(pairing(p, q));
}

#if defined(__x86_64__)
// The instruction mixes behind the scalar Fp product's cost (README, "Why 2x blst without AVX-512
// is out of reach of this algorithm"): a loop of one body, reported as cycles a loop from a chain
// of dependent adds timed just before it (one add a cycle on every x86-64 core). On the Zen 4 EPYC
// (family 25 model 17, one thread pinned, 3 repetitions): mulx16 16.0, add16 4.3, imul8_add16 8.0,
// mulx8_add16 13.3, mulx8_adcx_adox16 12.0: there a 128-bit product does not overlap with the
// adds, as the low half alone (imul) does, so the product (72 mulx, 149 adds) costs about
// 72 + 149 / 4 cycles. A CPU where mulx8_add16 reads about 8 would leave room for the adds.
// mulx8_add16_avx2: the same with 8 vpmuludq and 8 vpaddq on ymm registers beside it, which tells
// whether the vector units would run 4-lane products for free while the scalar product runs (on
// the Zen 4: 13.0 cycles, as without them).
enum class isa_mix { mulx16, add16, imul8_add16, mulx8_add16, mulx8_adcx_adox16, mulx8_add16_avx2 };

#define C2LAB_X4(s) s s s s
// 8 mulx and 16 adds on 4 registers: the scalar part of mulx8_add16 and mulx8_add16_avx2.
#define C2LAB_MULX8_ADD16                                                                  \
    C2LAB_X4("mulx %%rdx, %%rax, %%rcx\n\tadd %%rdx, %%r8\n\tadd %%rdx, %%r12\n\t"   \
             "mulx %%rdx, %%rsi, %%rdi\n\tadd %%rdx, %%r9\n\tadd %%rdx, %%r13\n\t")
template <isa_mix M>
[[gnu::always_inline]] inline void isa_mix_body(uint64_t d) noexcept {
    // Registers written: rax, rcx, rsi, rdi, r8-r15 (clobbered); rdx holds mulx's implicit operand.
    if constexpr (M == isa_mix::mulx16)
        __asm__ volatile(C2LAB_X4("mulx %%rdx, %%r8, %%r9\n\tmulx %%rdx, %%r10, %%r11\n\tmulx %%rdx, %%r12, %%r13\n\tmulx %%rdx, %%r14, %%r15\n\t")
                         : : "d"(d) : "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
    else if constexpr (M == isa_mix::add16)
        __asm__ volatile("add %%rdx, %%r8\n\tadd %%rdx, %%r9\n\tadd %%rdx, %%r10\n\tadd %%rdx, %%r11\n\t"
                         "add %%rdx, %%r12\n\tadd %%rdx, %%r13\n\tadd %%rdx, %%r14\n\tadd %%rdx, %%r15\n\t"
                         "add %%rdx, %%r8\n\tadd %%rdx, %%r9\n\tadd %%rdx, %%r10\n\tadd %%rdx, %%r11\n\t"
                         "add %%rdx, %%r12\n\tadd %%rdx, %%r13\n\tadd %%rdx, %%r14\n\tadd %%rdx, %%r15\n\t"
                         : : "d"(d) : "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc");
    else if constexpr (M == isa_mix::imul8_add16)
        // Eight destinations: each takes one imul a loop, so their 3-cycle latency stays hidden.
        __asm__ volatile("imul %%rdx, %%rax\n\tadd %%rdx, %%r12\n\tadd %%rdx, %%r13\n\t"
                         "imul %%rdx, %%rcx\n\tadd %%rdx, %%r14\n\tadd %%rdx, %%r15\n\t"
                         "imul %%rdx, %%rsi\n\tadd %%rdx, %%r12\n\tadd %%rdx, %%r13\n\t"
                         "imul %%rdx, %%rdi\n\tadd %%rdx, %%r14\n\tadd %%rdx, %%r15\n\t"
                         "imul %%rdx, %%r8\n\tadd %%rdx, %%r12\n\tadd %%rdx, %%r13\n\t"
                         "imul %%rdx, %%r9\n\tadd %%rdx, %%r14\n\tadd %%rdx, %%r15\n\t"
                         "imul %%rdx, %%r10\n\tadd %%rdx, %%r12\n\tadd %%rdx, %%r13\n\t"
                         "imul %%rdx, %%r11\n\tadd %%rdx, %%r14\n\tadd %%rdx, %%r15\n\t"
                         : : "d"(d) : "rax", "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc");
    else if constexpr (M == isa_mix::mulx8_add16)
        __asm__ volatile(C2LAB_MULX8_ADD16 : : "d"(d) : "rax", "rcx", "rsi", "rdi", "r8", "r9", "r12", "r13", "cc");
    else if constexpr (M == isa_mix::mulx8_add16_avx2)
        __asm__ volatile(C2LAB_MULX8_ADD16
                         "vpmuludq %%ymm0, %%ymm1, %%ymm2\n\tvpmuludq %%ymm0, %%ymm1, %%ymm3\n\t"
                         "vpmuludq %%ymm0, %%ymm1, %%ymm4\n\tvpmuludq %%ymm0, %%ymm1, %%ymm5\n\t"
                         "vpmuludq %%ymm0, %%ymm1, %%ymm6\n\tvpmuludq %%ymm0, %%ymm1, %%ymm7\n\t"
                         "vpmuludq %%ymm0, %%ymm1, %%ymm2\n\tvpmuludq %%ymm0, %%ymm1, %%ymm3\n\t"
                         "vpaddq %%ymm0, %%ymm2, %%ymm2\n\tvpaddq %%ymm0, %%ymm3, %%ymm3\n\t"
                         "vpaddq %%ymm0, %%ymm4, %%ymm4\n\tvpaddq %%ymm0, %%ymm5, %%ymm5\n\t"
                         "vpaddq %%ymm0, %%ymm6, %%ymm6\n\tvpaddq %%ymm0, %%ymm7, %%ymm7\n\t"
                         "vpaddq %%ymm0, %%ymm2, %%ymm2\n\tvpaddq %%ymm0, %%ymm3, %%ymm3\n\t"
                         : : "d"(d)
                         : "rax", "rcx", "rsi", "rdi", "r8", "r9", "r12", "r13", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
                           "xmm5", "xmm6", "xmm7", "cc");
    else
        __asm__ volatile(C2LAB_X4("mulx %%rdx, %%rax, %%rcx\n\tadcx %%rax, %%r8\n\tadox %%rcx, %%r9\n\t"
                                  "mulx %%rdx, %%rsi, %%rdi\n\tadcx %%rsi, %%r10\n\tadox %%rdi, %%r11\n\t")
                         : : "d"(d) : "rax", "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11", "cc");
}
#undef C2LAB_MULX8_ADD16
#undef C2LAB_X4

// Nanoseconds of `loops` chains of 16 dependent adds (an add a cycle on every x86-64 core).
double dependent_adds_ns(long loops) {
    uint64_t a = 1;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < loops; ++i)
        __asm__ volatile(
            "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
            "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
            "add %1, %0\n\tadd %1, %0\n\t"
            : "+r"(a) : "r"(uint64_t{3}) : "cc");
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

// Each iteration times the reference chain and then the body, so the cycles are a ratio of two
// times taken at the same clock (the counter: the ratio of the sums over all iterations).
template <isa_mix M>
void isa_mix_bench(benchmark::State& state) {
    if (!cpu::use_adx_asm) {  // mulx (BMI2) and adcx/adox (ADX) absent, or C2LAB_PORTABLE=1
        state.SkipWithError("this CPU path has no mulx/adcx/adox");
        return;
    }
    if (M == isa_mix::mulx8_add16_avx2 && !__builtin_cpu_supports("avx2")) {
        state.SkipWithError("this CPU has no AVX2");
        return;
    }
    constexpr long loops = 1 << 14, ref_loops = 1 << 12;
    double body_ns = 0, ref_ns = 0;
    for (auto _ : state) {
        ref_ns += dependent_adds_ns(ref_loops);
        const auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < loops; ++i) isa_mix_body<M>(7);
        if constexpr (M == isa_mix::mulx8_add16_avx2) __asm__ volatile("vzeroupper" ::: "memory");
        const double dt = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        state.SetIterationTime(dt * 1e-9);
        body_ns += dt;
    }
    const double cycles_per_ns = 16.0 * double(ref_loops) * double(state.iterations()) / ref_ns;
    state.counters["cycles/loop"] = body_ns * cycles_per_ns / (double(loops) * double(state.iterations()));
    state.counters["GHz"] = cycles_per_ns;
}
#endif

}  // namespace

BENCHMARK(field_mul<fr>)->Name("ff/fr_mul");
BENCHMARK(field_mul_path<fr, false>)->Name("ff/fr_mul/portable");
BENCHMARK(field_mul_path<fr, true>)->Name("ff/fr_mul/asm");
BENCHMARK(field_square<fr>)->Name("ff/fr_square");
BENCHMARK(field_add<fr>)->Name("ff/fr_add");
BENCHMARK(field_inverse<fr>)->Name("ff/fr_inverse");
BENCHMARK(field_batch_inverse<fr>)->Name("ff/fr_batch_inverse")->Arg(1 << 12)->ArgNames({"n"});
BENCHMARK(field_mul<fp>)->Name("ff/fp_mul");
BENCHMARK(field_mul_path<fp, false>)->Name("ff/fp_mul/portable");
BENCHMARK(field_mul_path<fp, true>)->Name("ff/fp_mul/asm");
BENCHMARK(field_square<fp>)->Name("ff/fp_square");
BENCHMARK(field_add<fp>)->Name("ff/fp_add");
BENCHMARK(field_inverse<fp>)->Name("ff/fp_inverse");
BENCHMARK(fp_sqrt)->Name("ff/fp_sqrt");
BENCHMARK(field_mul<fp2>)->Name("ff/fp2_mul");
BENCHMARK(field_square<fp2>)->Name("ff/fp2_square");
BENCHMARK(field_mul<fp12>)->Name("ff/fp12_mul");
BENCHMARK(field_square<fp12>)->Name("ff/fp12_square");
BENCHMARK(fp12_cyclotomic_square)->Name("ff/fp12_cyclotomic_square");
BENCHMARK(fp12_cyclotomic_square_compressed)->Name("ff/fp12_cyclotomic_square_compressed");
// Batches of independent multiplications, scalar loop and AVX-512 IFMA side by side.
BENCHMARK(field_mul_batch<fr, batch_path::scalar>)->Name("ff/fr_mul_batch/path:scalar")->Arg(8)->Arg(64)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(field_mul_batch<fr, batch_path::ifma>)->Name("ff/fr_mul_batch/path:ifma")->Arg(8)->Arg(64)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(field_mul_batch<fp, batch_path::scalar>)->Name("ff/fp_mul_batch/path:scalar")->Arg(8)->Arg(64)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(field_mul_batch<fp, batch_path::ifma>)->Name("ff/fp_mul_batch/path:ifma")->Arg(8)->Arg(64)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(field_mul_batch<fr, batch_path::avx2>)->Name("ff/fr_mul_batch/path:avx2")->Arg(8)->Arg(64)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(field_mul_batch<fp, batch_path::avx2>)->Name("ff/fp_mul_batch/path:avx2")->Arg(8)->Arg(64)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(affine_add_batch_bench<fp, 0>)->Name("ff/affine_add_batch/path:scalar")->Arg(256)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(affine_add_batch_bench<fp, 1>)->Name("ff/affine_add_batch/path:ifma")->Arg(256)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(affine_add_batch_bench<fp, 2>)->Name("ff/affine_add_batch/path:avx2")->Arg(256)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(affine_add_batch_bench<fp, -1>)->Name("ff/affine_add_batch/copy")->Arg(256)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(affine_add_batch_bench<fp2, 0>)->Name("ff/fp2_affine_add_batch/path:scalar")->Arg(256)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(affine_add_batch_bench<fp2, 1>)->Name("ff/fp2_affine_add_batch/path:ifma")->Arg(256)->Arg(1024)->Arg(4096)->ArgNames({"n"});
BENCHMARK(affine_add_batch_bench<fp2, 2>)->Name("ff/fp2_affine_add_batch/path:avx2")->Arg(256)->Arg(1024)->Arg(4096)->ArgNames({"n"});

BENCHMARK(point_add<g1_curve>)->Name("ec/g1_add_jacobian");
BENCHMARK(point_add_mixed<g1_curve>)->Name("ec/g1_add_mixed");
BENCHMARK(point_dbl<g1_curve>)->Name("ec/g1_double");
BENCHMARK(point_add_xyzz<g1_curve>)->Name("ec/g1_add_xyzz");
BENCHMARK(point_add_xyzz_mixed<g1_curve>)->Name("ec/g1_add_xyzz_mixed");
BENCHMARK(point_mul<g1_curve>)->Name("ec/g1_mul")->Unit(benchmark::kMicrosecond);
BENCHMARK(point_mul<g1_curve, true>)->Name("ec/g1_mul_endo")->Unit(benchmark::kMicrosecond);
BENCHMARK(g1_subgroup_check)->Name("ec/g1_subgroup_check")->Unit(benchmark::kMicrosecond);
BENCHMARK(point_add<g2_curve>)->Name("ec/g2_add_jacobian");
BENCHMARK(point_add_mixed<g2_curve>)->Name("ec/g2_add_mixed");
BENCHMARK(point_dbl<g2_curve>)->Name("ec/g2_double");
BENCHMARK(point_add_xyzz<g2_curve>)->Name("ec/g2_add_xyzz");
BENCHMARK(point_add_xyzz_mixed<g2_curve>)->Name("ec/g2_add_xyzz_mixed");
BENCHMARK(point_mul<g2_curve>)->Name("ec/g2_mul")->Unit(benchmark::kMicrosecond);
BENCHMARK(point_mul<g2_curve, true>)->Name("ec/g2_mul_endo")->Unit(benchmark::kMicrosecond);
BENCHMARK(g2_subgroup_check)->Name("ec/g2_subgroup_check")->Unit(benchmark::kMicrosecond);

#if defined(__x86_64__)
BENCHMARK(isa_mix_bench<isa_mix::mulx16>)->Name("ff/isa_mix/mulx16")->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(isa_mix_bench<isa_mix::add16>)->Name("ff/isa_mix/add16")->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(isa_mix_bench<isa_mix::imul8_add16>)->Name("ff/isa_mix/imul8_add16")->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(isa_mix_bench<isa_mix::mulx8_add16>)->Name("ff/isa_mix/mulx8_add16")->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(isa_mix_bench<isa_mix::mulx8_adcx_adox16>)->Name("ff/isa_mix/mulx8_adcx_adox16")->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(isa_mix_bench<isa_mix::mulx8_add16_avx2>)->Name("ff/isa_mix/mulx8_add16_avx2")->UseManualTime()->Unit(benchmark::kMicrosecond);
#endif

BENCHMARK(miller_loop_bench)->Name("pairing/miller_loop")->Unit(benchmark::kMicrosecond);
BENCHMARK(final_exp_bench)->Name("pairing/final_exponentiation")->Unit(benchmark::kMicrosecond);
BENCHMARK(pairing_bench)->Name("pairing/pairing")->Unit(benchmark::kMicrosecond);


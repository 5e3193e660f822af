// Number-theoretic transforms over an evaluation_domain, in place, natural order in and out.
//
//   forward_ntt:         coefficients a_j      -> evaluations A(omega^i)
//   inverse_ntt:         evaluations A(omega^i) -> coefficients (includes the 1/n scaling)
//   coset_forward_ntt:   coefficients           -> evaluations A(g*omega^i)
//                        (multiply a_j by g^j, then forward)
//   coset_inverse_ntt:   evaluations A(g*omega^i) -> coefficients
//                        (inverse, then multiply coefficient j by g^-j)
//
// Algorithm: iterative radix-2 decimation in time: a bit-reversal permutation (in 16 x 16
// tiles), then log2(n) stages of Cooley-Tukey butterflies (u, v) -> (u + w*v, u - w*v) with
// twiddles w from the domain's table. The first stages (blocks of up to 2^block_log elements,
// by default 4096 = 128 KiB with IFMA and 2^15 = 1 MiB on the scalar path) run chunk by chunk, so
// one chunk stays in cache through all of them; the later ones (up to 10 of them; beyond, one at a time) run on column tiles copied
// into a contiguous buffer, one pass over memory for all of them. Both are split across
// threads with oneTBB.
// coset_values_from_values (from 2^10; ntt_config::pair, by default on the IFMA path) runs
// without a bit reversal: a natural-order transform first (the same butterflies, the stages from the largest blocks down,
// one twiddle per block from the domain's bit-reversed table), its output left in bit-reversed
// order, rescaled there (the inverse's k <-> n-k becomes an end-for-end swap within each dyadic
// block), and the second transform starts from that order. bench_ntt's h step at 2^22 on two
// threads, Intel Xeon: 1220-1233 -> 1149-1178 ms with IFMA, 3542-3604 -> 3500-3582 ms without
// AVX-512 (the scalar stages one assembly call per block, ff::mont_butterflies_strided_asm with
// one twiddle, the first block of each stage sums and differences alone; the 2 KiB proof showed
// no gain there, so pair_order::automatic keeps the bit reversals without IFMA).
// The inverse uses the identity DFT_{omega^-1}(y)_k = DFT_omega(y)_{(n-k) mod n}: a
// forward transform, then one pass that swaps k <-> n-k and scales by 1/n (and by g^-k
// for the coset inverse), so one twiddle table serves both directions.
//
// Costs for n = 2^k: (n/2)*k butterflies, i.e. at most (n/2)*k multiplications (those with
// twiddle 1 are skipped) and n*k additions/subtractions, plus the bit-reversal pass (n/2
// swaps at most). Inverse: + n multiplications. Coset forward / inverse: + n
// multiplications each (+ one exponentiation per 4096 elements).
//
// Butterflies: where cpu::use_ifma (AVX-512 IFMA, core/cpu.hpp), 8 butterflies per vector
// operation, the values kept in radix 2^52 through all the stages of a chunk and of a column tile
// (ff::butterfly_stages, ff::butterfly_row_stages: converted in and out once, not per stage, and
// lazy between the stages, below 31 p, settled once; their twiddles in ff::twiddle_form); without
// IFMA on AMD family 0x19 (cpu::prefer_avx2_batches) the same stages on 4 lanes of radix 2^29 in
// AVX2 (lazy below (2s + 1) p after s stages, one reduction at the end); elsewhere, and with
// ntt_batch=scalar, one assembly loop of mulx/adcx/adox butterflies (ff::mont_butterflies_asm),
// and with C2LAB_PORTABLE=1 the field operators. All give the same bits (ntt_config::batch, the
// ntt_batch flag, chooses). bench_ntt ntt/forward log_n 20, one thread, on the 2-core AMD EPYC:
// 207-221 ms scalar, 114 ms IFMA (before the radix-2^52 stages), against 175 ms for the products
// alone (ntt/floor; results/reference/ntt-2026-12-04.md); on the Zen 4 (family 25 model 17)
// without AVX-512, 216 ms scalar and 156 ms on the AVX2 stages, the floor 172 ms; 2^22 982 and
// 695 ms (results/reference/epyc-zen4-avx2-ntt-2026-12-08.md).
//
// Every transform throws c2lab::error(errc::bad_input) when the span's length is not the
// domain size. Any power-of-two size works, 1 and 2 included. Results do not depend on
// the thread count.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ff/ifma.hpp"
#include "poly/domain.hpp"

namespace c2lab::poly {

struct ntt_config {
    unsigned threads = 0;    // worker threads: 0 = all cores (oneTBB's default arena), k = a task_arena of k
    unsigned block_log = 0;  // stages with blocks of up to 2^block_log elements run chunk by chunk, in
                             // cache; 0 = auto (IFMA 12: 128 KiB chunks; scalar 15: 1 MiB, less below
                             // 2^18 elements). A tuning knob; results never change.
    // The butterflies' kernels (the ntt_batch flag): automatic takes ff::vector_batch_path() (AVX-512
    // IFMA where it runs, else the AVX2 stages where cpu::prefer_avx2_batches, else scalar); scalar
    // is the reference in tests; avx2 and ifma force one (errc::device where it cannot run). The
    // AVX2 path runs the stages of the chunks and column tiles (ff::butterfly_stages,
    // ff::butterfly_row_stages); the natural-order transform of ntt_pair=natural, the scaling
    // passes and the stages beyond a super-block stay scalar there. Same results.
    enum class batch_kind { automatic, scalar, avx2, ifma } batch = batch_kind::automatic;
    // coset_values_from_values (the ntt_pair flag): from 2^10 without bit reversals (natural), or
    // each transform bit-reversing its input first (bit_reversed); automatic: natural where the
    // IFMA butterflies run (uses_ifma), bit_reversed elsewhere, where `c2lab ab` showed the two
    // the same (the natural pair's bit-reversed twiddle table, 16 n bytes, buys nothing there).
    // Same results.
    enum class pair_order { automatic, natural, bit_reversed } pair = pair_order::automatic;
};

// The path of cfg's butterfly stages (cfg.batch, automatic resolved).
ff::batch_path stages_path(const ntt_config& cfg);
// Whether cfg's transforms (butterflies and scaling passes) run on the AVX-512 IFMA products.
bool uses_ifma(const ntt_config& cfg);
ntt_config::batch_kind parse_ntt_batch(std::string_view name);  // auto|scalar|avx2|ifma; errc::bad_input
std::string_view to_string(ntt_config::batch_kind b) noexcept;
// Whether coset_values_from_values runs cfg's pair in natural order (cfg.pair, automatic resolved).
bool uses_natural_pair(const ntt_config& cfg);
// The bytes of twiddle tables a fresh domain of 2^log_n holds (evaluation_domain::table_bytes)
// once transforms ran on it with cfg: the table made with the domain and those the transforms ask
// for. h_step: the transforms of compute_h_in_place (coset_values_from_values, then
// coset_inverse_ntt_scaled); else forward, inverse and coset transforms alone. 16 n bytes a table:
// at 2^27 (a 32 GiB partition) 2 GiB on the scalar path, 4 GiB with IFMA (the IFMA form, natural
// and bit-reversed; the stages beyond a super-block scale its twiddles back to the scalar form).
// What the prover's memory estimate counts for its h step (pipeline::estimate_memory).
std::uint64_t twiddle_table_bytes(size_t log_n, const ntt_config& cfg, bool h_step);
// The ntt_pair flag's variants: "natural", "bit_reversed", "auto"; anything else throws
// errc::bad_input naming the flag.
ntt_config::pair_order parse_ntt_pair(std::string_view name);
std::string_view to_string(ntt_config::pair_order p) noexcept;

void forward_ntt(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg = {});
void inverse_ntt(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg = {});
void coset_forward_ntt(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg = {});
void coset_inverse_ntt(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg = {});
// inverse_ntt and coset_inverse_ntt, the result also multiplied by scale (folded into the 1/n
// and the powers of g^-1: no extra pass).
void inverse_ntt_scaled(const evaluation_domain& d, std::span<fr> a, const fr& scale, const ntt_config& cfg = {});
void coset_inverse_ntt_scaled(const evaluation_domain& d, std::span<fr> a, const fr& scale, const ntt_config& cfg = {});
// The values of a polynomial at the domain's points -> its values at g * omega^i: inverse_ntt then
// coset_forward_ntt with the same bits, the 1/n of the one and the powers of g of the other
// applied in one pass (two passes and n multiplications fewer).
void coset_values_from_values(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg = {});

// a[i] <-> a[rev(i)], rev reversing the log_n bits of i, in 16 x 16 tiles (parallel in the caller's
// arena). errc::bad_input unless a.size() == 2^log_n.
void bit_reverse_permute(std::span<fr> a, size_t log_n);

// a_j *= first * ratio^j for every j (bellperson's distribute_powers when first = 1):
// n multiplications (+ one exponentiation per chunk). Throws nothing.
void distribute_powers(std::span<fr> a, const fr& first, const fr& ratio, const ntt_config& cfg = {});

}  // namespace c2lab::poly

#include "poly/ntt.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/uninit_buffer.hpp"
#include "ff/ifma.hpp"

namespace c2lab::poly {
namespace {

// Stages whose blocks fit in one chunk of 2^block_log elements run chunk by chunk: 12 to 15
// stages per pass over memory instead of one. The chunk's default size by path: with IFMA and
// AVX2 4096 elements (128 KiB of Fr; 160 KiB in radix 2^52, 288 KiB in radix 2^29 with as much
// again for the AVX2 stages' broadcast twiddles: in a 1 MiB L2); on the scalar path 2^15 (1 MiB,
// from 2^18 elements; 2^(log_n - 3) below, so that the threads still have 8 chunks, and never below 4096), which leaves 7 stages
// instead of 10 to the column tiles at 2^22. bench_ntt on the family-23 EPYC (L2 512 KiB, L3
// 8 MiB), alternated: the h step at 2^22 on two threads 7409-7644 ms at 2^12, 7088-7490 at 2^14,
// 6731-7244 at 2^15, 6833-7141 at 2^16; the forward transform at 2^22 on one thread 1770-1901 ->
// 1703-1792 ms (in huge pages or not); 2^14 to 2^20 unchanged (2^20: 386-403 ms either way).
constexpr unsigned vector_block_log = 12, scalar_block_log = 15, min_block_log = 12;
unsigned default_block_log(size_t n, ff::batch_path path) {
    if (path != ff::batch_path::scalar) return vector_block_log;
    const int log_n = std::bit_width(n) - 1;
    return static_cast<unsigned>(std::clamp<int>(log_n - 3, min_block_log, scalar_block_log));
}
// Rows of a column tile: a super-block is chunk * max_tile_rows elements.
constexpr size_t max_tile_rows = 1024;

// How a transform of n elements runs its stages (forward_core_path, forward_nr_path): chunks of
// `chunk` elements in cache, column tiles up to super-blocks of `super`, one pass a stage beyond;
// vec: the chunks and tiles on the vector path (radix 2^52 with IFMA, 2^29 with AVX2; from chunks
// of 16) with its form of the twiddles; plain_table: the scalar-form table is read (everywhere
// else). On a vector path the stages beyond a super-block (n > 2^22 at the default chunk) take
// their few twiddles from the vector form too, scaled back (plain_of_form_factor): the scalar
// tables are then never made, at 2^27 (a 32 GiB partition) 4 GiB of the 8 the h step's four
// tables took.
// twiddle_table_bytes counts the tables from the same plan.
struct stage_plan {
    size_t chunk = 1, super = 1;
    bool vec = false, plain_table = false;
};
stage_plan plan_stages(size_t n, unsigned block_log, ff::batch_path path) {
    if (block_log == 0) block_log = default_block_log(n, path);
    stage_plan p;
    p.chunk = std::min(n, size_t{1} << std::min<unsigned>(block_log, 32));
    p.vec = path != ff::batch_path::scalar && p.chunk >= 16;
    p.super = std::min(n, p.chunk * max_tile_rows);
    p.plain_table = !p.vec;
    return p;
}

// w from its form on a vector path (ff::twiddle_form: w 2^4 with IFMA, w 2^5 with AVX2): times
// the inverse of that power of two.
fr plain_of_form_factor(ff::batch_path path) {
    static const fr ifma = ff::twiddle_form(ff::batch_path::ifma, fr::one()).inverse();
    static const fr avx2 = ff::twiddle_form(ff::batch_path::avx2, fr::one()).inverse();
    return path == ff::batch_path::ifma ? ifma : avx2;
}

void check_size(const evaluation_domain& d, std::span<fr> a, const char* what) {
    if (a.size() != d.size())
        throw error(errc::bad_input, std::string(what) + ": " + std::to_string(a.size()) +
                                         " elements for a domain of size " + std::to_string(d.size()));
}

uint64_t bit_reverse64(uint64_t x) noexcept {
    x = __builtin_bswap64(x);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    return x;
}

// a[i] <-> a[rev(i)]. From 2^8 elements on, in tiles: write i = (a, m, b) with a and b of
// tile_bits bits each (a the top bits); then rev(i) = (rev(b), rev(m), rev(a)), so the 16 x 16
// elements (*, m, *) trade places with (*, rev(m), *) alone: 2 x 16 rows of 16 consecutive
// elements (512 bytes), which stay in L1 while they are swapped. The plain loop over i instead
// reads x[rev(i)] at random, a cache (and TLB) miss for each swap once the array outgrows the
// caches (8% of a forward transform at 2^22 with the scalar butterflies, perf, 2-core AMD EPYC).
// Each tile pair is handled by its smaller m, so parallel chunks never touch the same element.
void bit_reverse_permute_tiles(std::span<fr> a, size_t log_n) {
    if (log_n == 0) return;
    fr* x = a.data();
    constexpr unsigned tile_bits = 4;
    constexpr size_t side = size_t{1} << tile_bits;
    auto rev = [](size_t v, size_t bits) { return bits == 0 ? 0 : static_cast<size_t>(bit_reverse64(v) >> (64 - bits)); };
    if (log_n < 2 * tile_bits) {
        for (size_t i = 0; i < a.size(); ++i) {
            size_t j = rev(i, log_n);
            if (i < j) std::swap(x[i], x[j]);
        }
        return;
    }
    const size_t mid_bits = log_n - 2 * tile_bits, hi_shift = log_n - tile_bits;
    std::array<size_t, side> rev_side;
    for (size_t v = 0; v < side; ++v) rev_side[v] = rev(v, tile_bits);
    parallel::for_chunks(size_t{1} << mid_bits, parallel::default_grain / (side * side), [&](size_t lo, size_t hi) {
        for (size_t m = lo; m < hi; ++m) {
            const size_t mr = rev(m, mid_bits);
            if (mr < m) continue;  // done from the other tile
            for (size_t ta = 0; ta < side; ++ta) {
                fr* row = x + ((ta << hi_shift) | (m << tile_bits));
                const size_t col = rev_side[ta];
                for (size_t tb = 0; tb < side; ++tb) {
                    const size_t j = (rev_side[tb] << hi_shift) | (mr << tile_bits) | col;
                    // within one tile (m == rev(m)) each pair is met twice: swap it once
                    if (mr != m || (row - x) + tb < j) std::swap(row[tb], x[j]);
                }
            }
        }
    });
}

// (p[t], q[t]) <- (p[t] + w[t] q[t], p[t] - w[t] q[t]) for t < count. Ifma: 8 butterflies per
// vector operation in ff::butterfly_batch's AVX-512 IFMA kernel (the same bits); the scalar
// butterflies on the other paths (the AVX2 path has stages only).
template <ff::batch_path P>
inline void butterflies(fr* p, fr* q, const fr* w, size_t count) noexcept {
    if constexpr (P == ff::batch_path::ifma) {
        ff::butterfly_batch(ff::batch_path::ifma, std::span<fr>(p, count), std::span<fr>(q, count),
                            std::span<const fr>(w, count));
    } else {
        // One assembly loop with every value in registers (mont_mul.hpp) where the CPU has
        // BMI2 and ADX; else the operators.
        if (count == 0 ||
            ff::mont_butterflies_asm<4>(p->mont.data(), q->mont.data(), w->mont.data(), count, fr::modulus, fr::n0))
            return;
        for (size_t t = 0; t < count; ++t) {
            fr u = p[t], v = q[t] * w[t];
            p[t] = u + v;
            q[t] = u - v;
        }
    }
}

// All stages with blocks of 2h <= len inside x[0, len). stage_tw[h + j] is the twiddle of
// butterfly j in stage h (omega^(j (n/2)/h)), contiguous per stage. On a vector path (from 16
// elements) every stage in its radix (2^52 with IFMA, 8 butterflies per vector operation; 2^29
// with AVX2, 4), the chunk converted once (ff::butterfly_stages), stage_tw then in the path's
// ff::twiddle_form.
template <ff::batch_path P>
void local_stages(fr* x, size_t len, const fr* stage_tw) {
    if (len < 2) return;
    if (P != ff::batch_path::scalar && len >= 16) {
        ff::butterfly_stages(P, std::span<fr>(x, len), std::span<const fr>(stage_tw, len), 1);
        return;
    }
    for (size_t i = 0; i < len; i += 2) {  // h = 1: every twiddle is 1
        fr u = x[i], v = x[i + 1];
        x[i] = u + v;
        x[i + 1] = u - v;
    }
    for (size_t h = 2; h < len; h <<= 1) {
        const fr* w = stage_tw + h;
        for (size_t blk = 0; blk < len; blk += 2 * h) {
            fr* p = x + blk;
            fr* q = p + h;
            fr u = p[0], v = q[0];  // w[0] = 1
            p[0] = u + v;
            q[0] = u - v;
            butterflies<ff::batch_path::scalar>(p + 1, q + 1, w + 1, h - 1);
        }
    }
}

// Forward DFT with omega, natural order in and out (the caller holds the arena).
// bit_reversed_input: a is in bit-reversed order already (forward_nr's output, rescaled), so the
// permutation is skipped.
template <ff::batch_path P>
void forward_core_path(const evaluation_domain& d, std::span<fr> a, unsigned block_log, bool bit_reversed_input) {
    const size_t n = a.size(), log_n = d.log_size(), half_n = n / 2;
    if (n == 1) return;
    if (!bit_reversed_input) bit_reverse_permute_tiles(a, log_n);
    fr* x = a.data();

    // Where the chunks and the column tiles run on a vector path (ff::butterfly_stages and
    // ff::butterfly_row_stages: from 16 elements), their twiddles come in the path's form, and so
    // do those of the stages beyond a super-block (scaled back, below): the scalar table is not
    // asked for (the domain makes it on first use where a vector path runs).
    const stage_plan plan = plan_stages(n, block_log, P);
    const size_t chunk = plan.chunk;
    const bool vec_stages = plan.vec;
    const fr* tw = plan.plain_table ? d.twiddles().data() : nullptr;
    const fr* stage_table = vec_stages ? d.twiddles(P).data() : tw;
    // The in-cache stages' twiddles, gathered once into one contiguous row per stage (chunk
    // entries): every chunk reads them, and in the domain table they lie (n/2)/h apart.
    std::vector<fr> stage_tw(chunk);
    for (size_t h = 2; h < chunk; h <<= 1)
        for (size_t j = 0; j < h; ++j) stage_tw[h + j] = stage_table[j * (half_n / h)];
    parallel::for_chunks(n / chunk, 1, [&](size_t lo, size_t hi) {
        for (size_t c = lo; c < hi; ++c) local_stages<P>(x + c * chunk, chunk, stage_tw.data());
    });

    // Stages with blocks larger than a chunk. Seen as rows of `chunk` elements, such a stage
    // pairs elements of the same column: a task copies `cols` adjacent columns of up to
    // max_tile_rows rows (a "super-block" of chunk * rows elements) into a contiguous buffer
    // (16 columns of 1024 rows: 512 KiB, in L2), runs all these stages there and copies the
    // columns back: one pass over memory for up to 10 stages. In place, the rows lie
    // chunk * 32 bytes (128 KiB) apart and all fall into the same few cache sets, so the
    // tile did not stay in L2: 10 stages at 2^22 took 490-580 ms against 440 ms for the 12
    // stages of the chunks (scalar butterflies, 2-core AMD EPYC). The twiddles of row r,
    // omega^(j (n/2)/h) for j = r chunk + column, are gathered once per stage and row and
    // serve every block. Stages with blocks beyond a super-block (n > 2^22 at IFMA's default
    // chunk, n > 2^25 at the scalar path's) then run one at a time as below.
    const size_t super = plan.super;
    if (chunk < super) {
        const size_t cols = std::min<size_t>(chunk, 16), tiles_per_super = chunk / cols, rows = super / chunk;
        parallel::for_chunks((n / super) * tiles_per_super, 1, [&](size_t lo, size_t hi) {
            fr w[16];
            uninit_buffer<fr> tile;
            if (!vec_stages) tile.resize_discard(rows * cols);
            fr* buf = tile.data();
            for (size_t task = lo; task < hi; ++task) {
                fr* base = x + (task / tiles_per_super) * super + (task % tiles_per_super) * cols;
                const size_t c0 = (task % tiles_per_super) * cols;
                // The twiddles of row rr in the stage of blocks of 2 hr rows (h = hr * chunk).
                auto row_twiddles = [&](size_t hr, size_t rr, fr* wr) {
                    const size_t stride = half_n / (hr * chunk), j0 = rr * chunk + c0;
                    for (size_t t = 0; t < cols; ++t) wr[t] = stage_table[(j0 + t) * stride];
                    if (rr + 1 < hr)  // the next row's twiddles: a cache line each where stride > 1
                        for (size_t t = 0; t < cols; ++t) __builtin_prefetch(stage_table + (j0 + chunk + t) * stride);
                };
                if (vec_stages) {
                    // cols == 16: in the path's radix from the first stage to the last, the tile
                    // converted straight from its rows into the kernel's buffer and back (the copy
                    // into `buf` and out again was 8-10% of the h step at 2^22, perf, Intel Xeon).
                    ff::butterfly_row_stages(P, std::span<fr>(base, (rows - 1) * chunk + cols), rows, chunk, row_twiddles);
                    continue;
                }
                for (size_t r = 0; r < rows; ++r) std::copy_n(base + r * chunk, cols, buf + r * cols);
                for (size_t hr = 1; hr < rows; hr <<= 1)
                    for (size_t rr = 0; rr < hr; ++rr) {  // row rr of each block
                        row_twiddles(hr, rr, w);
                        for (size_t br = 0; br < rows; br += 2 * hr)
                            butterflies<P>(buf + (br + rr) * cols, buf + (br + rr + hr) * cols, w, cols);
                    }
                for (size_t r = 0; r < rows; ++r) std::copy_n(buf + r * cols, cols, base + r * chunk);
            }
        });
    }
    // The stages beyond a super-block, one pass each, tiled over the twiddle index: a task
    // takes up to 64 consecutive j, loads their twiddles once, and runs the butterflies
    // (blk*2h + j, blk*2h + j + h) of every block (walking b in order instead would read one
    // twiddle per butterfly at a stride of (n/2)/h entries).
    for (size_t h = super; h < n; h <<= 1) {
        const size_t stride = half_n / h;
        const size_t tile = std::min<size_t>(h, 64);
        parallel::for_chunks(h / tile, 1, [&](size_t lo, size_t hi) {
            fr w[64];
            for (size_t jt = lo; jt < hi; ++jt) {
                const size_t j0 = jt * tile;
                if (tw) {
                    for (size_t t = 0; t < tile; ++t) w[t] = tw[(j0 + t) * stride];
                } else {  // a vector path: its form, scaled back (64 products for up to 64 blocks' butterflies)
                    for (size_t t = 0; t < tile; ++t) w[t] = stage_table[(j0 + t) * stride];
                    ff::scale_batch(P, std::span<fr>(w, tile), std::span<const fr>(w, tile), plain_of_form_factor(P));
                }
                for (size_t blk = 0; blk < n; blk += 2 * h) butterflies<P>(x + blk + j0, x + blk + j0 + h, w, tile);
            }
        });
    }
}

// The butterflies on cfg's path (stages_path: by default ff::vector_batch_path, chosen once for
// the process); every path gives the same bits.
void forward_core(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg, bool bit_reversed_input = false) {
    switch (stages_path(cfg)) {
        case ff::batch_path::ifma: return forward_core_path<ff::batch_path::ifma>(d, a, cfg.block_log, bit_reversed_input);
        case ff::batch_path::avx2: return forward_core_path<ff::batch_path::avx2>(d, a, cfg.block_log, bit_reversed_input);
        case ff::batch_path::scalar: break;
    }
    forward_core_path<ff::batch_path::scalar>(d, a, cfg.block_log, bit_reversed_input);
}

// count butterflies (p[t s], q[t s]) with twiddles w[t ws] (strides in elements; ws = 0: one
// twiddle for all): the scalar path's assembly loop (ff::mont_butterflies_strided_asm) where the
// CPU has one, else the field operators.
inline void strided_butterflies(fr* p, fr* q, const fr* w, size_t count, size_t s, size_t ws) noexcept {
    if (count == 0 || ff::mont_butterflies_strided_asm<4>(p->mont.data(), q->mont.data(), w->mont.data(), count, s, ws,
                                                          fr::modulus, fr::n0))
        return;
    for (size_t t = 0; t < count; ++t) {
        fr u = p[t * s], v = q[t * s] * w[t * ws];
        p[t * s] = u + v;
        q[t * s] = u - v;
    }
}

// The count butterflies (p[t], q[t]) of one block of a natural-order stage, with its twiddle w.
// first: the stage's first block, whose twiddle is 1: on the scalar path the sums and differences
// alone (about n of the (n/2) log2 n butterflies, as the j = 0 ones that forward_core_path skips).
// Ifma (blocks below the radix-2^52 stages' 16): ff::butterfly_batch, w copied per butterfly.
template <bool Ifma>
void nr_block(fr* p, fr* q, const fr& w, size_t count, bool first) {
    if constexpr (Ifma) {
        fr ws[64];
        std::fill_n(ws, std::min<size_t>(count, 64), w);
        for (size_t t = 0; t < count; t += 64)
            butterflies<ff::batch_path::ifma>(p + t, q + t, ws, std::min<size_t>(64, count - t));
    } else if (first) {
        for (size_t t = 0; t < count; ++t) {
            fr u = p[t], v = q[t];
            p[t] = u + v;
            q[t] = u - v;
        }
    } else {
        strided_butterflies(p, q, &w, count, 1, 0);
    }
}

// Forward DFT with omega from natural-order input to bit-reversed output: a[q] := A(omega^rev(q))
// (rev over log2 n bits). The transpose of forward_core_path's factorisation: the stages run from
// the largest blocks down, with the same Cooley-Tukey butterflies, and block b of the stage of
// blocks of 2h elements takes the one twiddle omega^rev(b) (rev over log2(n/2) bits), entry b of
// the domain's bit-reversed table. No bit reversal; the chunks read their twiddles contiguously
// and the column tiles one per block instead of a strided row of 16 per row. Where it feeds
// forward_core_path(bit_reversed_input = true) the pair runs without either permutation. The
// same layout of passes as forward_core_path (the super-block stages, then the column tiles, then
// the chunks: the order reversed). The caller holds the arena.
template <bool Ifma>
void forward_nr_path(const evaluation_domain& d, std::span<fr> a, unsigned block_log) {
    const size_t n = a.size(), half_n = n / 2;
    if (n == 1) return;
    fr* x = a.data();
    const stage_plan plan = plan_stages(n, block_log, Ifma ? ff::batch_path::ifma : ff::batch_path::scalar);
    const size_t chunk = plan.chunk, super = plan.super;
    const bool radix52_stages = plan.vec;
    // The plain table where the stages run off radix 2^52 (the scalar path, chunks below 16); in
    // radix 2^52 every stage takes the IFMA form (beyond a super-block scaled back, below).
    const fr* plain = plan.plain_table ? d.twiddles_bit_reversed(ff::batch_path::scalar).data() : nullptr;
    const std::span<const fr> nr_table =
        radix52_stages ? d.twiddles_bit_reversed(ff::batch_path::ifma) : std::span<const fr>(plain, half_n);

    for (size_t h = half_n; h >= super; h >>= 1) {  // blocks beyond a super-block, one pass each
        const size_t tile = std::min<size_t>(h, 64), tiles = h / tile;
        parallel::for_chunks((n / (2 * h)) * tiles, 1, [&](size_t lo, size_t hi) {
            for (size_t t = lo; t < hi; ++t) {
                const size_t bi = t / tiles, j0 = (t % tiles) * tile;
                const fr w = plain ? plain[bi] : nr_table[bi] * plain_of_form_factor(ff::batch_path::ifma);
                nr_block<Ifma>(x + 2 * h * bi + j0, x + 2 * h * bi + h + j0, w, tile, bi == 0);
            }
        });
    }
    if (chunk < super) {  // the column tiles: rows of `chunk`, blocks of 2 hr rows, hr = rows / 2 .. 1
        const size_t cols = std::min<size_t>(chunk, 16), tiles_per_super = chunk / cols, rows = super / chunk;
        parallel::for_chunks((n / super) * tiles_per_super, 1, [&](size_t lo, size_t hi) {
            uninit_buffer<fr> tile;
            if (!radix52_stages) tile.resize_discard(rows * cols);
            fr* buf = tile.data();
            for (size_t task = lo; task < hi; ++task) {
                const size_t s = task / tiles_per_super;
                fr* base = x + s * super + (task % tiles_per_super) * cols;
                if (radix52_stages) {
                    ff::butterfly_row_stages_nr(ff::batch_path::ifma, std::span<fr>(base, (rows - 1) * chunk + cols), rows,
                                                chunk, nr_table, s);
                    continue;
                }
                for (size_t r = 0; r < rows; ++r) std::copy_n(base + r * chunk, cols, buf + r * cols);
                for (size_t hr = rows / 2; hr >= 1; hr >>= 1) {
                    // In the tile the rows of a block's halves are contiguous: one call a block.
                    const size_t count = rows / (2 * hr);
                    for (size_t bi = 0; bi < count; ++bi) {
                        fr* p = buf + 2 * hr * bi * cols;
                        nr_block<Ifma>(p, p + hr * cols, plain[s * count + bi], hr * cols, s * count + bi == 0);
                    }
                }
                for (size_t r = 0; r < rows; ++r) std::copy_n(buf + r * cols, cols, base + r * chunk);
            }
        });
    }
    parallel::for_chunks(n / chunk, 1, [&](size_t lo, size_t hi) {  // the chunks: h = chunk / 2 .. 1
        for (size_t c = lo; c < hi; ++c) {
            fr* y = x + c * chunk;
            if (radix52_stages) {
                ff::butterfly_stages_nr(ff::batch_path::ifma, std::span<fr>(y, chunk), nr_table, c);
                continue;
            }
            for (size_t h = chunk / 2; h >= 1; h >>= 1) {
                const size_t count = chunk / (2 * h);
                const fr* tw = plain + c * count;
                if (!Ifma && h <= 2) {
                    // Blocks of 2 and 4: the stage in h calls, butterfly j of every block, each
                    // block's twiddle in turn (elements 2h apart).
                    for (size_t j = 0; j < h; ++j) strided_butterflies(y + j, y + h + j, tw, count, 2 * h, 1);
                    continue;
                }
                for (size_t bi = 0; bi < count; ++bi)
                    nr_block<Ifma>(y + 2 * h * bi, y + 2 * h * bi + h, tw[bi], h, c * count + bi == 0);
            }
        }
    });
}

void forward_nr(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg) {
    if (uses_ifma(cfg))
        forward_nr_path<true>(d, a, cfg.block_log);
    else
        forward_nr_path<false>(d, a, cfg.block_log);
}

// The scaling passes on the IFMA path, in blocks of scale_block elements: a block's powers are
// a table of ratio^j times the block's first power, products independent of each other, where
// the scalar loop steps a chain of dependent products (one product's latency, about 24 ns, per
// element). The scaling pass of a coset inverse transform took 72 ms of its 299 at 2^22 on two
// threads (bench_ntt, Intel Xeon).
constexpr size_t scale_block = 512;

// ratio^j and ratio_inv^j for j < scale_block, and both to the power scale_block.
struct power_table {
    std::vector<fr> up, down;
    fr up_step, down_step;
    power_table(const fr& ratio, const fr& ratio_inv) : up(scale_block), down(scale_block) {
        up[0] = down[0] = fr::one();
        for (size_t j = 1; j < scale_block; ++j) up[j] = up[j - 1] * ratio, down[j] = down[j - 1] * ratio_inv;
        up_step = up.back() * ratio;
        down_step = down.back() * ratio_inv;
    }
};

// Per-thread buffers of scale_block elements.
struct scale_buffers {
    std::vector<fr> up, down, lo, hi;
    scale_buffers() : up(scale_block), down(scale_block), lo(scale_block), hi(scale_block) {}
    static scale_buffers& local() {
        thread_local scale_buffers b;
        return b;
    }
};

// out[j] = first * t[j] for j < out.size().
void powers_from(std::span<fr> out, const std::vector<fr>& t, const fr& first) {
    ff::scale_batch(ff::batch_path::ifma, out, std::span<const fr>(t).first(out.size()), first);
}

// finish_inverse for k in [lo, hi), 1 <= lo < hi <= n/2, on the IFMA batch products.
template <bool WithPowers>
void finish_pairs_ifma(fr* x, size_t n, size_t lo, size_t hi, const fr& scale, const fr& ratio, const power_table* t) {
    scale_buffers& b = scale_buffers::local();
    fr up0 = scale, down0 = scale;
    if constexpr (WithPowers) {
        up0 = scale * ratio.pow(static_cast<uint64_t>(lo));
        down0 = scale * ratio.pow(static_cast<uint64_t>(n - lo));
    } else {
        std::fill(b.up.begin(), b.up.end(), scale);
    }
    for (size_t k0 = lo; k0 < hi; k0 += scale_block) {
        const size_t m = std::min(scale_block, hi - k0);
        std::span<const fr> up(b.up.data(), m), down(b.up.data(), m);
        if constexpr (WithPowers) {
            powers_from(std::span<fr>(b.up).first(m), t->up, up0);
            powers_from(std::span<fr>(b.down).first(m), t->down, down0);
            down = std::span<const fr>(b.down.data(), m);
            up0 *= t->up_step;
            down0 *= t->down_step;
        }
        for (size_t j = 0; j < m; ++j) b.lo[j] = x[k0 + j], b.hi[j] = x[n - k0 - j];
        ff::mul_batch(ff::batch_path::ifma, std::span<fr>(x + k0, m), std::span<const fr>(b.hi).first(m), up);
        ff::mul_batch(ff::batch_path::ifma, std::span<fr>(b.hi).first(m), std::span<const fr>(b.lo).first(m), down);
        for (size_t j = 0; j < m; ++j) x[n - k0 - j] = b.hi[j];
    }
}

// After forward_core: a_k := scale * ratio^k * a_{(n-k) mod n}, which turns a forward DFT
// into the inverse DFT times n * scale (then times ratio^k). One pass over k < n/2 that
// handles the pair (k, n-k); n multiplications (2n with powers).
template <bool WithPowers>
void finish_inverse(std::span<fr> a, const fr& scale, const fr& ratio, const fr& ratio_inv, bool ifma) {
    const size_t n = a.size(), half_n = n / 2;
    fr* x = a.data();
    if (n == 1) {
        x[0] *= scale;
        return;
    }
    std::optional<power_table> table;
    if (ifma && WithPowers) table.emplace(ratio, ratio_inv);
    parallel::for_chunks(half_n, parallel::default_grain, [&](size_t lo, size_t hi) {
        if (ifma) {
            if (lo == 0) x[0] *= scale;  // a_0 stays in place
            const size_t from = std::max<size_t>(lo, 1);
            if (from < hi) finish_pairs_ifma<WithPowers>(x, n, from, hi, scale, ratio, table ? &*table : nullptr);
            return;
        }
        if constexpr (WithPowers) {
            // up = scale * ratio^k for k rising from lo; down = scale * ratio^(n-k) falling.
            fr up = scale * ratio.pow(static_cast<uint64_t>(lo));
            fr down = scale * ratio.pow(static_cast<uint64_t>(n - lo));
            for (size_t k = lo; k < hi; ++k) {
                if (k == 0) {
                    x[0] *= up;  // a_0 stays in place
                } else {
                    fr t = x[k];
                    x[k] = x[n - k] * up;
                    x[n - k] = t * down;
                }
                up *= ratio;
                down *= ratio_inv;
            }
        } else {
            for (size_t k = lo; k < hi; ++k) {
                if (k == 0) {
                    x[0] *= scale;
                } else {
                    fr t = x[k];
                    x[k] = x[n - k] * scale;
                    x[n - k] = t * scale;
                }
            }
        }
    });
    // k = n/2 maps to itself.
    x[half_n] *= WithPowers ? scale * ratio.pow(static_cast<uint64_t>(half_n)) : scale;
}

void distribute_powers_core(std::span<fr> a, const fr& first, const fr& ratio, bool ifma) {
    fr* x = a.data();
    std::optional<power_table> table;
    if (ifma) table.emplace(ratio, fr::one());
    parallel::for_chunks(a.size(), parallel::default_grain, [&](size_t lo, size_t hi) {
        fr p = first * ratio.pow(static_cast<uint64_t>(lo));
        if (ifma) {
            scale_buffers& b = scale_buffers::local();
            for (size_t j0 = lo; j0 < hi; j0 += scale_block) {
                const size_t m = std::min(scale_block, hi - j0);
                powers_from(std::span<fr>(b.up).first(m), table->up, p);
                ff::mul_batch(ff::batch_path::ifma, std::span<fr>(x + j0, m), std::span<const fr>(x + j0, m),
                              std::span<const fr>(b.up).first(m));
                p *= table->up_step;
            }
            return;
        }
        for (size_t j = lo; j < hi; ++j) {
            x[j] *= p;
            p *= ratio;
        }
    });
}

// The smallest transform that takes the natural-order pair (forward_nr, then
// finish_inverse_bit_reversed's runs of 512): below, the transforms keep their bit reversals.
constexpr size_t nr_min_log = bit_reversed_powers::run_bits + 1;

// After forward_nr (a[q] = DFT_omega(a)_rev(q)): a[q] := scale * ratio^rev(q) * DFT_omega(a)_(-rev(q)),
// that is coefficient k = rev(q) of the inverse transform times n * scale * ratio^k, left in
// bit-reversed order for forward_core_path(bit_reversed_input = true). -rev(q) mod n is rev of
// mirror(q), q with its bits below the top one flipped: within each dyadic block [2^t, 2^(t+1))
// the values trade places end for end, so the pass reads both ends of each block (as
// finish_inverse reads k and n - k). The powers come in runs of 512 positions
// (bit_reversed_powers). n multiplications for the powers and n for the values, as
// finish_inverse<true>, but independent ones. log_n >= nr_min_log.
void finish_inverse_bit_reversed(std::span<fr> a, size_t log_n, const fr& scale, const fr& ratio, bool ifma) {
    constexpr size_t run = bit_reversed_powers::run;
    const ff::batch_path path = ifma ? ff::batch_path::ifma : ff::batch_path::scalar;
    const bit_reversed_powers powers(ratio, log_n, path);
    fr* x = a.data();
    // out[l] = v[l] * pw[l] for l < 512
    auto mul = [&](fr* out, const fr* v, const fr* pw) {
        ff::mul_batch(path, std::span<fr>(out, run), std::span<const fr>(v, run), std::span<const fr>(pw, run));
    };
    // Run u (positions [512 u, 512 u + 512)) takes the values of run u2 read backwards:
    // mirror(512 u + l) = 512 u2 + 511 - l for the runs of one dyadic block.
    parallel::for_chunks(a.size() / (2 * run), 4, [&](size_t lo, size_t hi) {
        std::vector<fr> ra(run), rb(run), pw(run);
        for (size_t i = lo; i < hi; ++i) {
            if (i == 0) {
                // Run 0 holds the blocks t < 9 (mirror inside the run); run 1 is the block t = 9.
                std::copy_n(x, run, ra.data());
                for (size_t q = 0; q < run; ++q) {
                    const size_t t = std::bit_width(q) - 1;
                    rb[q] = q < 2 ? ra[q] : ra[3 * (size_t{1} << t) - 1 - q];
                }
                powers.fill(0, scale, pw.data());
                mul(x, rb.data(), pw.data());
                std::reverse_copy(x + run, x + 2 * run, rb.data());
                powers.fill(1, scale, pw.data());
                mul(x + run, rb.data(), pw.data());
                continue;
            }
            // i in [2^v, 2^(v+1)): run u = i + 2^v of the left half of the run block [2^(v+1), 2^(v+2)),
            // its mirror u2 = 3 2^(v+1) - 1 - u.
            const size_t v = std::bit_width(i) - 1, u = i + (size_t{1} << v), u2 = 3 * (size_t{2} << v) - 1 - u;
            fr* xu = x + run * u;
            fr* xu2 = x + run * u2;
            std::reverse_copy(xu, xu + run, ra.data());
            std::reverse_copy(xu2, xu2 + run, rb.data());
            powers.fill(u, scale, pw.data());
            mul(xu, rb.data(), pw.data());
            powers.fill(u2, scale, pw.data());
            mul(xu2, ra.data(), pw.data());
        }
    });
}

// The inverse transform (Coset: the coset inverse, coefficient k also times g^-k) times scale
// (1 for inverse_ntt and coset_inverse_ntt).
template <bool Coset>
void inverse_core(const evaluation_domain& d, std::span<fr> a, const fr& scale, const ntt_config& cfg,
                  const char* name) {
    check_size(d, a, name);
    parallel::in_arena(cfg.threads, [&] {
        forward_core(d, a, cfg);
        if constexpr (Coset)
            finish_inverse<true>(a, d.size_inv() * scale, d.coset_generator_inv(), d.coset_generator(), uses_ifma(cfg));
        else
            finish_inverse<false>(a, d.size_inv() * scale, fr::one(), fr::one(), uses_ifma(cfg));
    });
}

}  // namespace

void forward_ntt(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg) {
    check_size(d, a, "forward_ntt");
    parallel::in_arena(cfg.threads, [&] { forward_core(d, a, cfg); });
}

void inverse_ntt(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg) {
    inverse_core<false>(d, a, fr::one(), cfg, "inverse_ntt");
}

void inverse_ntt_scaled(const evaluation_domain& d, std::span<fr> a, const fr& scale, const ntt_config& cfg) {
    inverse_core<false>(d, a, scale, cfg, "inverse_ntt_scaled");
}

void coset_forward_ntt(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg) {
    check_size(d, a, "coset_forward_ntt");
    parallel::in_arena(cfg.threads, [&] {
        distribute_powers_core(a, fr::one(), d.coset_generator(), uses_ifma(cfg));
        forward_core(d, a, cfg);
    });
}

void coset_inverse_ntt(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg) {
    inverse_core<true>(d, a, fr::one(), cfg, "coset_inverse_ntt");
}

void coset_inverse_ntt_scaled(const evaluation_domain& d, std::span<fr> a, const fr& scale, const ntt_config& cfg) {
    inverse_core<true>(d, a, scale, cfg, "coset_inverse_ntt_scaled");
}

void coset_values_from_values(const evaluation_domain& d, std::span<fr> a, const ntt_config& cfg) {
    check_size(d, a, "coset_values_from_values");
    parallel::in_arena(cfg.threads, [&] {
        if (uses_natural_pair(cfg) && d.log_size() >= nr_min_log) {
            // Natural order in, bit-reversed between, natural order out: no bit reversal.
            forward_nr(d, a, cfg);
            finish_inverse_bit_reversed(a, d.log_size(), d.size_inv(), d.coset_generator(), uses_ifma(cfg));
            forward_core(d, a, cfg, true);
            return;
        }
        forward_core(d, a, cfg);
        // coefficient k times g^k / n
        finish_inverse<true>(a, d.size_inv(), d.coset_generator(), d.coset_generator_inv(), uses_ifma(cfg));
        forward_core(d, a, cfg);
    });
}

void bit_reverse_permute(std::span<fr> a, size_t log_n) {
    if (log_n >= 64 || a.size() != size_t{1} << log_n)
        throw error(errc::bad_input, "bit_reverse_permute: " + std::to_string(a.size()) + " elements, not 2^" +
                                         std::to_string(log_n));
    bit_reverse_permute_tiles(a, log_n);
}

std::uint64_t twiddle_table_bytes(size_t log_n, const ntt_config& cfg, bool h_step) {
    if (log_n == 0 || log_n > fr::two_adicity) return 0;
    const size_t n = size_t{1} << log_n;
    auto index = [](ff::batch_path p) { return static_cast<size_t>(p); };  // as the domain keeps its tables
    bool natural[3] = {}, reversed[3] = {};
    natural[index(ff::vector_batch_path())] = true;  // made with the domain
    const ff::batch_path path = stages_path(cfg);
    const stage_plan plan = plan_stages(n, cfg.block_log, path);
    natural[index(plan.vec ? path : ff::batch_path::scalar)] = true;  // forward_core_path
    // forward_nr_path (IFMA or scalar): the bit-reversed table in the form its stages read.
    if (h_step && uses_natural_pair(cfg) && log_n >= nr_min_log) {
        const ff::batch_path nr_path = path == ff::batch_path::ifma ? path : ff::batch_path::scalar;
        reversed[index(plan_stages(n, cfg.block_log, nr_path).vec ? nr_path : ff::batch_path::scalar)] = true;
    }
    unsigned tables = 0;
    for (size_t i = 0; i < 3; ++i) tables += unsigned{natural[i]} + unsigned{reversed[i]};
    return std::uint64_t{sizeof(fr)} * (n / 2) * tables;
}

bool uses_natural_pair(const ntt_config& cfg) {
    using po = ntt_config::pair_order;
    return cfg.pair == po::natural || (cfg.pair == po::automatic && uses_ifma(cfg));
}

ntt_config::pair_order parse_ntt_pair(std::string_view name) {
    using po = ntt_config::pair_order;
    if (name == "natural") return po::natural;
    if (name == "bit_reversed") return po::bit_reversed;
    if (name == "auto") return po::automatic;
    throw error(errc::bad_input, "ntt_pair: unknown variant '" + std::string(name) +
                                     "' (expected natural, bit_reversed or auto)");
}

std::string_view to_string(ntt_config::pair_order p) noexcept {
    using po = ntt_config::pair_order;
    return p == po::natural ? "natural" : p == po::bit_reversed ? "bit_reversed" : "auto";
}

ff::batch_path stages_path(const ntt_config& cfg) {
    using bk = ntt_config::batch_kind;
    switch (cfg.batch) {
        case bk::scalar: return ff::batch_path::scalar;
        case bk::avx2: return ff::batch_path::avx2;
        case bk::ifma: return ff::batch_path::ifma;
        case bk::automatic: break;
    }
    return ff::vector_batch_path();
}

bool uses_ifma(const ntt_config& cfg) { return stages_path(cfg) == ff::batch_path::ifma; }

ntt_config::batch_kind parse_ntt_batch(std::string_view name) {
    using bk = ntt_config::batch_kind;
    if (name == "auto") return bk::automatic;
    if (name == "scalar") return bk::scalar;
    if (name == "avx2") return bk::avx2;
    if (name == "ifma") return bk::ifma;
    throw error(errc::bad_input, "ntt_batch: unknown variant '" + std::string(name) + "' (expected auto, scalar, avx2 or ifma)");
}

std::string_view to_string(ntt_config::batch_kind b) noexcept {
    using bk = ntt_config::batch_kind;
    return b == bk::scalar ? "scalar" : b == bk::avx2 ? "avx2" : b == bk::ifma ? "ifma" : "auto";
}

void distribute_powers(std::span<fr> a, const fr& first, const fr& ratio, const ntt_config& cfg) {
    parallel::in_arena(cfg.threads, [&] { distribute_powers_core(a, first, ratio, uses_ifma(cfg)); });
}

}  // namespace c2lab::poly

// The NTT over Fr as the device runs it, written once for the device and the host:
//
//  - per-thread bodies (C2_HD): the bit-reversal swap (optionally scaling by powers, for the
//    coset forward transform), the butterflies of a group of stages inside one tile of shared
//    memory, the inverse's reorder k <-> n-k with its scaling (1/n, or 1/n * g^+-k), the h
//    step's pointwise (a*b - c) * (g^n - 1)^-1, and the twiddle table's expansion;
//  - the launch plan (which stages each tile kernel runs) and the order of the passes of every
//    transform and of the h step, as templates over an executor: the device executor launches
//    one kernel per pass (gpu/ntt/ntt_gpu.cuh), the host one runs the same bodies in loops
//    (gpu/ntt/ntt_emulate.hpp, the reference the host tests check against lib/poly);
//  - the host side of the tables: the domain's constants and small tables of powers, computed
//    with the device field's own arithmetic on the host, then uploaded.
//
// Semantics are lib/poly/ntt.hpp's: natural order in and out; forward = bit-reversal, then
// radix-2 decimation-in-time stages (u, v) -> (u + w v, u - w v) with w = omega^(j n/2h); the
// inverse = forward, then a_k := a_(n-k mod n) / n; coset forward multiplies a_j by g^j first;
// coset inverse scales coefficient k by g^-k / n. Field arithmetic is exact, so the device's
// results equal lib/poly's bit for bit.
//
// Stages and tiles (sppark's ntt/ntt.cuh does the same in spirit). After the bit reversal,
// stage s (half-block h = 2^s) pairs elements i and i + h, i.e. it acts on bit s of the index.
// A group of k consecutive stages s0..s0+k-1 therefore only mixes elements whose indices
// differ in bits s0..s0+k-1: a tile of 2^k such elements (times 2^c neighbours differing in the
// lowest c bits, so that a warp reads 2^c consecutive elements = 32*2^c bytes per row) is loaded
// into shared memory, runs the k stages there and is written back. One pass over memory per
// group instead of one per stage: the first group (s0 = 0, contiguous tiles) runs the first 10
// stages, the later groups (strided tiles, c = 3) up to 7 each: 2^20 takes 3 passes of
// butterflies, 2^27 four. Between two stages every thread of a tile touches its own pair of
// elements only, so any interleaving of the threads (the host's loop included) gives the same
// result; the bodies of every other pass also touch disjoint elements per thread.
//
// Costs per transform of n = 2^k: (n/2) k butterflies (one multiplication each, twiddle 1
// included), a bit-reversal pass, 1 + ceil((k - 10) / 7) tile passes, one twiddle read per
// butterfly (from an n/2-entry table); inverse and coset variants: + n multiplications
// (coset: + n more for the table lookup g^j = lo[j mod 2^b] * hi[j >> b]).
#pragma once

#include <vector>

#include "gpu/ff/dev_fields.hpp"
#include "gpu/hd.hpp"

namespace c2lab::gpu::ntt {

// ---- Fr constants and host-side helpers ------------------------------------------------------

inline constexpr uint32_t fr_two_adicity = 32;

// A primitive 2^32-th root of unity of Fr in Montgomery form: 7^t for p - 1 = 2^32 t, as
// lib/ff derives it (mont_field::root_of_unity(32)); the host test checks it.
C2_HD constexpr limbs32<8> fr_root_of_unity_2_32() {
    return {{0x5f0e466a, 0xb9b58d8c, 0x1819d7ec, 0x5b1b4c80, 0x52a31e64, 0x0af53ae3, 0x19e9b27b, 0x5bf3adda}};
}

C2_HD fr_dev fr_from_limbs(const limbs32<8>& l) {
    fr_dev r{};
    for (int i = 0; i < 8; ++i) r.limb[i] = l.v[i];
    return r;
}

// v (< 2^64 < r) as a field element.
C2_HD fr_dev fr_from_u64(uint64_t v) {
    fr_dev c{};
    c.limb[0] = uint32_t(v);
    c.limb[1] = uint32_t(v >> 32);
    return fr_dev::to_mont(c);
}

// x^e for a 256-bit exponent (square and multiply): 256 squarings, popcount(e) multiplications.
C2_HD fr_dev fr_pow_limbs(const fr_dev& x, const limbs32<8>& e) {
    fr_dev r = fr_dev::one();
    for (int bit = 255; bit >= 0; --bit) {
        r = r.sqr();
        if ((e.v[bit / 32] >> (bit % 32)) & 1) r = r * x;
    }
    return r;
}

// x^-1 = x^(r-2) (Fermat); 0 for x = 0. Host-side table setup only: a few per domain.
C2_HD fr_dev fr_inverse(const fr_dev& x) {
    limbs32<8> e = fr_dev_params::modulus();
    uint64_t borrow = 2;
    for (int i = 0; i < 8; ++i) {
        const uint64_t d = uint64_t(e.v[i]) - borrow;
        e.v[i] = uint32_t(d);
        borrow = (d >> 32) & 1;
    }
    return fr_pow_limbs(x, e);
}

// The reversal of the low log_n bits of i (i < 2^log_n); 0 for log_n = 0.
C2_HD uint64_t bit_reverse(uint64_t i, uint32_t log_n) {
    if (log_n == 0) return 0;
#if defined(__CUDA_ARCH__)
    return __brevll(i) >> (64 - log_n);
#else
    uint64_t x = i;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
    x = ((x >> 8) & 0x00ff00ff00ff00ffULL) | ((x & 0x00ff00ff00ff00ffULL) << 8);
    x = ((x >> 16) & 0x0000ffff0000ffffULL) | ((x & 0x0000ffff0000ffffULL) << 16);
    x = (x >> 32) | (x << 32);
    return x >> (64 - log_n);
#endif
}

// ---- powers: first * ratio^k from two small tables --------------------------------------------

// first * ratio^k for k < 2^log_n as lo[k mod 2^lo_bits] * hi[k >> lo_bits], lo[i] = first *
// ratio^i, hi[i] = ratio^(i 2^lo_bits): 2 * 2^(log_n/2) entries and one multiplication per
// lookup instead of an n-entry table. lo == nullptr means the constant `constant`.
struct powers {
    const fr_dev* lo = nullptr;
    const fr_dev* hi = nullptr;
    uint32_t lo_bits = 0;
    fr_dev constant{};

    C2_HD fr_dev at(uint64_t k) const {
        if (lo == nullptr) return constant;
        return lo[k & ((uint64_t(1) << lo_bits) - 1)] * hi[k >> lo_bits];
    }
};

struct powers_layout {
    uint32_t lo_bits = 0;
    uint64_t lo_size = 1, hi_size = 1;
    uint64_t size() const { return lo_size + hi_size; }
};

// The tables for exponents k < 2^log_n: lo_bits = ceil(log_n / 2).
inline powers_layout powers_layout_for(uint32_t log_n) {
    powers_layout l;
    l.lo_bits = (log_n + 1) / 2;
    l.lo_size = uint64_t(1) << l.lo_bits;
    l.hi_size = uint64_t(1) << (log_n - l.lo_bits);
    return l;
}

// out[0, lo_size) = first * ratio^i, out[lo_size, size) = ratio^(i 2^lo_bits).
inline void fill_powers(fr_dev* out, const powers_layout& l, const fr_dev& first, const fr_dev& ratio) {
    fr_dev x = first;
    for (uint64_t i = 0; i < l.lo_size; ++i) {
        out[i] = x;
        x = x * ratio;
    }
    fr_dev step = ratio;
    for (uint32_t i = 0; i < l.lo_bits; ++i) step = step.sqr();
    fr_dev y = fr_dev::one();
    for (uint64_t i = 0; i < l.hi_size; ++i) {
        out[l.lo_size + i] = y;
        y = y * step;
    }
}

inline powers powers_at(const fr_dev* base, const powers_layout& l) { return {base, base + l.lo_size, l.lo_bits, {}}; }
inline powers constant_powers(const fr_dev& c) { return {nullptr, nullptr, 0, c}; }

// ---- the domain and its tables ---------------------------------------------------------------

// lib/poly's evaluation_domain values for n = 2^log_n (log_n <= 32), in the device field.
struct domain_consts {
    uint32_t log_n = 0;
    uint64_t n = 1;
    fr_dev omega{}, size_inv{}, g{}, g_inv{}, z_coset_inv{};  // z_coset_inv = (g^n - 1)^-1, g = 7
};

// Host: about 32 squarings and four inversions (about 1300 multiplications).
inline domain_consts make_domain_consts(uint32_t log_n) {
    domain_consts d;
    d.log_n = log_n;
    d.n = uint64_t(1) << log_n;
    fr_dev w = fr_from_limbs(fr_root_of_unity_2_32());
    for (uint32_t i = log_n; i < fr_two_adicity; ++i) w = w.sqr();
    d.omega = w;
    d.size_inv = fr_inverse(fr_from_u64(d.n));
    d.g = fr_from_u64(7);
    d.g_inv = fr_inverse(d.g);
    d.z_coset_inv = fr_inverse(d.g.pow_u64(d.n) - fr_dev::one());
    return d;
}

// The small tables one domain needs, back to back (powers_layout_for(log_n) each):
enum power_set : uint32_t {
    ps_twiddle = 0,    // omega^j: seeds the n/2-entry twiddle table (expanded on the device)
    ps_coset = 1,      // g^j: the coset forward transform's scaling
    ps_inv_coset = 2,  // g^j / n: inverse transform followed by coset scaling (the h step)
    ps_coset_inv = 3,  // g^-j / n: the coset inverse transform's scaling
    ps_count = 4,
};

struct host_tables {
    domain_consts dc;
    powers_layout layout;
    std::vector<fr_dev> data;  // ps_count * layout.size() entries, to upload as they are

    // The set's powers in a copy of `data` starting at base (device or host memory).
    powers set(power_set s, const fr_dev* base) const { return powers_at(base + uint64_t(s) * layout.size(), layout); }
};

// Host: 4 * 2 * 2^(log_n/2) multiplications (2^16 * 8 at log_n = 32).
inline host_tables make_host_tables(uint32_t log_n) {
    host_tables t;
    t.dc = make_domain_consts(log_n);
    t.layout = powers_layout_for(log_n);
    t.data.resize(ps_count * t.layout.size());
    const domain_consts& d = t.dc;
    fr_dev* p = t.data.data();
    const uint64_t sz = t.layout.size();
    fill_powers(p + ps_twiddle * sz, t.layout, fr_dev::one(), d.omega);
    fill_powers(p + ps_coset * sz, t.layout, fr_dev::one(), d.g);
    fill_powers(p + ps_inv_coset * sz, t.layout, d.size_inv, d.g);
    fill_powers(p + ps_coset_inv * sz, t.layout, d.size_inv, d.g_inv);
    return t;
}

// ---- launch plan ------------------------------------------------------------------------------

// A tile holds at most 2^10 elements: 32 KiB of shared memory, 512 threads of one butterfly each.
inline constexpr uint32_t max_tile_log = 10;
inline constexpr uint32_t tile_capacity = 1u << max_tile_log;
inline constexpr uint32_t tile_words = 8 * tile_capacity;  // limb-major: word l * capacity + e

struct plan_config {
    uint32_t first_log = 10;  // stages of the first (contiguous) group
    uint32_t tile_log = 10;   // elements per tile of the later groups, 2^tile_log
    uint32_t c = 3;           // consecutive elements per row of a later group's tile (2^c)
};

// Stages s0..s0+k-1 on tiles of 2^(k+c) elements: 2^(k+c-1) threads, n / 2^(k+c) tiles.
struct group_geom {
    uint32_t log_n = 0, s0 = 0, k = 0, c = 0;
    C2_HD uint32_t threads() const { return 1u << (k + c - 1); }
    C2_HD uint64_t tiles() const { return uint64_t(1) << (log_n - k - c); }
};

struct ntt_plan {
    uint32_t log_n = 0, count = 0;
    group_geom g[fr_two_adicity]{};
};

// Every stage exactly once, in order: the first group s0 = 0 with min(log_n, first_log) stages
// and c = 0, then the remaining stages split as evenly as possible into groups of at most
// tile_log - c stages. Out-of-range settings are clamped into what the device allows.
inline ntt_plan make_plan(uint32_t log_n, plan_config cfg = {}) {
    auto clamp = [](uint32_t v, uint32_t lo, uint32_t hi) { return v < lo ? lo : v > hi ? hi : v; };
    cfg.first_log = clamp(cfg.first_log, 1, max_tile_log);
    cfg.tile_log = clamp(cfg.tile_log, 2, max_tile_log);
    cfg.c = clamp(cfg.c, 0, cfg.tile_log - 1 < cfg.first_log ? cfg.tile_log - 1 : cfg.first_log);
    ntt_plan p;
    p.log_n = log_n;
    if (log_n == 0) return p;
    const uint32_t first = log_n < cfg.first_log ? log_n : cfg.first_log;
    p.g[p.count++] = {log_n, 0, first, 0};
    const uint32_t rest = log_n - first, per = cfg.tile_log - cfg.c;
    if (rest == 0) return p;
    const uint32_t groups = (rest + per - 1) / per;
    uint32_t s0 = first;
    for (uint32_t i = 0; i < groups; ++i) {
        const uint32_t k = rest / groups + (i < rest % groups ? 1 : 0);
        p.g[p.count++] = {log_n, s0, k, cfg.c};  // c <= first <= s0
        s0 += k;
    }
    return p;
}

// ---- tile bodies ------------------------------------------------------------------------------

// Global index of element e (< 2^(k+c)) of a tile: e = t 2^c + l, the tile number holds the
// low group (bits c..s0-1) and the high bits (above s0+k):
//   index = low_group 2^c + l + t 2^s0 + high 2^(s0+k).
C2_HD uint64_t tile_element_index(const group_geom& g, uint64_t tile, uint32_t e) {
    const uint32_t l = e & ((1u << g.c) - 1), t = e >> g.c;
    const uint32_t low_log = g.s0 - g.c;
    const uint64_t low_group = tile & ((uint64_t(1) << low_log) - 1), high = tile >> low_log;
    return (low_group << g.c) + l + (uint64_t(t) << g.s0) + (high << (g.s0 + g.k));
}

// Butterfly `tid` of local stage r (global stage s0 + r): tile elements e1 and e2 = e1 +
// 2^(r+c), and j: the butterfly's position inside its block of the stage (twiddle omega^(j
// n/2^(s0+r+1)), i.e. table entry j << (log_n - 1 - s0 - r)).
struct butterfly {
    uint32_t e1, e2;
    uint64_t tw_index;
};

C2_HD butterfly stage_butterfly(const group_geom& g, uint64_t tile, uint32_t tid, uint32_t r) {
    const uint32_t l = tid & ((1u << g.c) - 1), b = tid >> g.c;
    const uint32_t t_lo = b & ((1u << r) - 1);
    const uint32_t t = ((b >> r) << (r + 1)) | t_lo;
    const uint64_t low_group = tile & ((uint64_t(1) << (g.s0 - g.c)) - 1);
    const uint64_t j = (low_group << g.c) + l + (uint64_t(t_lo) << g.s0);
    return {(t << g.c) | l, ((t + (1u << r)) << g.c) | l, j << (g.log_n - 1 - g.s0 - r)};
}

C2_HD fr_dev tile_get(const uint32_t* sh, uint32_t e) {
    fr_dev v;
    C2_UNROLL for (uint32_t i = 0; i < 8; ++i) v.limb[i] = sh[i * tile_capacity + e];
    return v;
}
C2_HD void tile_put(uint32_t* sh, uint32_t e, const fr_dev& v) {
    C2_UNROLL for (uint32_t i = 0; i < 8; ++i) sh[i * tile_capacity + e] = v.limb[i];
}

// Thread tid (< threads()) loads elements tid and tid + threads() of the tile.
C2_HD void group_load_body(const fr_dev* x, uint32_t* sh, const group_geom& g, uint64_t tile, uint32_t tid) {
    const uint32_t half = g.threads();
    tile_put(sh, tid, x[tile_element_index(g, tile, tid)]);
    tile_put(sh, tid + half, x[tile_element_index(g, tile, tid + half)]);
}

C2_HD void group_stage_body(uint32_t* sh, const fr_dev* tw, const group_geom& g, uint64_t tile, uint32_t tid,
                            uint32_t r) {
    const butterfly bf = stage_butterfly(g, tile, tid, r);
    const fr_dev u = tile_get(sh, bf.e1);
    const fr_dev v = tile_get(sh, bf.e2) * tw[bf.tw_index];
    tile_put(sh, bf.e1, u + v);
    tile_put(sh, bf.e2, u - v);
}

C2_HD void group_store_body(fr_dev* x, const uint32_t* sh, const group_geom& g, uint64_t tile, uint32_t tid) {
    const uint32_t half = g.threads();
    x[tile_element_index(g, tile, tid)] = tile_get(sh, tid);
    x[tile_element_index(g, tile, tid + half)] = tile_get(sh, tid + half);
}

// ---- element-wise bodies ----------------------------------------------------------------------

// tw[j] = omega^j, j < n/2.
C2_HD void twiddle_body(fr_dev* tw, uint64_t j, const powers& p) { tw[j] = p.at(j); }

// Index i < n: swaps a[i] and a[rev(i)] when i < rev(i).
C2_HD void bitrev_body(fr_dev* x, uint64_t i, uint32_t log_n) {
    const uint64_t j = bit_reverse(i, log_n);
    if (i < j) {
        const fr_dev t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

// The same with the scaling a_j *= p(j) applied before the permutation.
C2_HD void bitrev_scale_body(fr_dev* x, uint64_t i, uint32_t log_n, const powers& p) {
    const uint64_t j = bit_reverse(i, log_n);
    if (i < j) {
        const fr_dev t = x[i];
        x[i] = x[j] * p.at(j);
        x[j] = t * p.at(i);
    } else if (i == j) {
        x[i] = x[i] * p.at(i);
    }
}

// After the forward stages, k in [0, n/2]: a_k := s(k) a_(n-k mod n) for the pair (k, n-k),
// which turns the forward DFT into the inverse one (lib/poly's finish_inverse).
C2_HD void finish_inverse_body(fr_dev* x, uint64_t k, uint64_t n, const powers& s) {
    if (k == 0 || 2 * k == n) {
        x[k] = x[k] * s.at(k);
    } else {
        const fr_dev t = x[k];
        x[k] = x[n - k] * s.at(k);
        x[n - k] = t * s.at(n - k);
    }
}

// The h step on the coset: a_i := a_i b_i (g^n - 1)^-1 (C is subtracted from the coefficients,
// h_subtract_body).
C2_HD void h_pointwise_body(fr_dev* a, const fr_dev* b, uint64_t i, const fr_dev& z_inv) {
    a[i] = a[i] * b[i] * z_inv;
}

// The h step's last pass: a_i := a_i - c_i (coefficients of A B / Z and of C / Z).
C2_HD void h_subtract_body(fr_dev* a, const fr_dev* c, uint64_t i) { a[i] = a[i] - c[i]; }

// ---- pass sequences ---------------------------------------------------------------------------

// What a run needs, pointing into the executor's memory (device, or host for the emulation).
struct ntt_view {
    domain_consts dc;
    ntt_plan plan;
    const fr_dev* tw = nullptr;  // n/2 entries
    powers coset, inv_coset, coset_inv, inv;
    powers inv_z;  // 1 / (n (g^n - 1)): C's inverse transform in the h step, divided by Z on the coset
};

inline ntt_view make_view(const host_tables& h, const fr_dev* tables_base, const fr_dev* tw, const ntt_plan& plan) {
    ntt_view v;
    v.dc = h.dc;
    v.plan = plan;
    v.tw = tw;
    v.coset = h.set(ps_coset, tables_base);
    v.inv_coset = h.set(ps_inv_coset, tables_base);
    v.coset_inv = h.set(ps_coset_inv, tables_base);
    v.inv = constant_powers(h.dc.size_inv);
    v.inv_z = constant_powers(h.dc.size_inv * h.dc.z_coset_inv);
    return v;
}

enum class ntt_kind { forward, inverse, coset_forward, coset_inverse };

// An executor E runs one pass over all elements:
//   e.twiddles(tw, count, p)        twiddle_body for j < count
//   e.bitrev(x, log_n)              bitrev_body for i < 2^log_n
//   e.bitrev_scale(x, log_n, p)     bitrev_scale_body for i < 2^log_n
//   e.group(x, tw, geom)            load, k stages, store for every tile
//   e.finish(x, n, s)               finish_inverse_body for k <= n/2
//   e.pointwise(a, b, n, z_inv)     h_pointwise_body for i < n
//   e.subtract(a, c, n)             h_subtract_body for i < n

template <class E>
void run_stages(E& e, const ntt_view& v, fr_dev* x) {
    for (uint32_t i = 0; i < v.plan.count; ++i) e.group(x, v.tw, v.plan.g[i]);
}

// finish_scale: the inverse kinds' last pass scaled by these powers instead of the view's own
// (v.inv, v.coset_inv).
template <class E>
void run_transform(E& e, const ntt_view& v, fr_dev* x, ntt_kind kind, const powers* finish_scale = nullptr) {
    const uint32_t log_n = v.dc.log_n;
    if (kind == ntt_kind::coset_forward)
        e.bitrev_scale(x, log_n, v.coset);
    else if (log_n > 0)
        e.bitrev(x, log_n);
    run_stages(e, v, x);
    if (kind == ntt_kind::inverse) e.finish(x, v.dc.n, finish_scale ? *finish_scale : v.inv);
    if (kind == ntt_kind::coset_inverse) e.finish(x, v.dc.n, finish_scale ? *finish_scale : v.coset_inv);
}

// bellperson's h step on padded a, b, c (n each); a ends as the n coefficients of h. The
// inverse transform's 1/n and the coset's g^j are one pass (inv_coset). As lib/poly's
// compute_h_in_place: the coset inverse is linear and C's coset values interpolate back to C, so
// coset_inverse((A B - C) / Z) = coset_inverse(A B) / Z - C / Z, and c takes its inverse
// transform alone (times 1/Z): six transforms, not seven.
template <class E>
void run_h(E& e, const ntt_view& v, fr_dev* a, fr_dev* b, fr_dev* c) {
    const uint32_t log_n = v.dc.log_n;
    for (fr_dev* x : {a, b}) {
        if (log_n > 0) e.bitrev(x, log_n);
        run_stages(e, v, x);
        e.finish(x, v.dc.n, v.inv_coset);  // coefficients, times g^j
        if (log_n > 0) e.bitrev(x, log_n);
        run_stages(e, v, x);  // values on g*H
    }
    run_transform(e, v, c, ntt_kind::inverse, &v.inv_z);  // coefficients of C / Z
    e.pointwise(a, b, v.dc.n, v.dc.z_coset_inv);
    run_transform(e, v, a, ntt_kind::coset_inverse);  // coefficients of A B / Z
    e.subtract(a, c, v.dc.n);
}

}  // namespace c2lab::gpu::ntt

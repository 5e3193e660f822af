#include "msm/window.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <span>

#include "core/error.hpp"
#include "ff/ifma.hpp"

namespace c2lab::msm {

namespace {

std::string range_text(unsigned lo, unsigned hi) { return std::to_string(lo) + ".." + std::to_string(hi); }

[[noreturn]] void refuse(std::string_view text, std::string_view why) {
    throw error(errc::bad_input, "msm_window: bad value \"" + std::string(text) + "\": " + std::string(why) +
                                     " (expected ln, table, fixed:N with N in " +
                                     range_text(min_window_bits, max_window_bits) + " or windows:N with N in " +
                                     range_text(min_spread_windows, max_spread_windows) + ")");
}

// The fixed or spread policy of `value` (window bits, or the count of windows), refused where the
// value is out of its range; `text` is what the user wrote, quoted in the error (the policy's own
// spelling where empty).
window_policy in_range(window_kind kind, unsigned value, std::string_view text = {}) {
    const bool spread = kind == window_kind::windows;
    const unsigned lo = spread ? min_spread_windows : min_window_bits;
    const unsigned hi = spread ? max_spread_windows : max_window_bits;
    if (value < lo || value > hi)
        refuse(text.empty() ? (spread ? "windows:" : "fixed:") + std::to_string(value) : std::string(text),
               std::string(spread ? "the window count" : "window bits") + " must be in " + range_text(lo, hi));
    return {kind, value};
}

// Measured table, indexed by ceil(log2 n). Source: bench_msm msm/g1/fixed (G1, one thread,
// full density, Release, -march=x86-64-v3, batched affine buckets where they are chosen
// automatically) on a shared 2-vCPU "Intel(R) Xeon(R) Processor" VM; a few percent of
// noise. Time per MSM by c, best marked *:
//   log_n 10: c=7 27.3 ms, c=8 14.4 ms*, c=9 21.3 ms                 (ln rule: 7)
//   log_n 12: c=9 48.2 ms, c=10 47.9 ms, c=11 46.2 ms*               (ln rule: 9)
//   log_n 14: c=11 148 ms, c=12 143 ms*, c=13 149 ms                 (ln rule: 10)
//   log_n 16: c=12 505 ms, c=13 468 ms*, c=14 492 ms                 (ln rule: 12)
//   log_n 18: c=12 2023 ms, c=13 1739 ms*, c=14 1761 ms, c=15 1784   (ln rule: 13)
// Sizes not listed (odd log_n, below 2^10, above 2^18) were not measured: the ln rule.
struct table_row {
    unsigned log_n;
    unsigned bits;
    unsigned windows = 0;  // the split's windows spread (window_policy::glv_windows_for), or 0
    unsigned whole = 0;    // with windows: the best whole-window size, for more than one thread
};
constexpr table_row measured[] = {{10, 8}, {12, 11}, {14, 12}, {16, 13}, {18, 13}};

// The endomorphism split (two parts of 127-bit windows), indexed by ceil(log2 n) of the pairs,
// one table per batch path (ff::default_batch_path(): the bucket additions on AVX-512 IFMA, or
// the scalar ADX/portable field products): IFMA makes the additions cheaper against the memory
// traffic of the buckets, so its best windows can differ. Source: bench_msm msm/g1/glv_fixed (G1,
// one thread pinned, full density, Release, -march=x86-64-v3, batched affine buckets, repetitions
// interleaved at random, medians), the scalar path with C2LAB_NO_AVX512=1.
// Since the split's two parts share the points (no split points written), their buckets are
// merged before one reduction and the buckets sit in huge pages, on the 2-core Intel Xeon
// (family 6 model 207, L2 2 MiB per core), 2 repetitions, time per MSM by c, best marked *:
// IFMA:
//   log_n 10: c=6 18.7, c=7 17.0, c=8 16.1, c=9 7.9, c=10 7.4* ms
//   log_n 12: c=8 55.8, c=9 24.0, c=10 19.9, c=11 18.7*, c=12 19.5 ms
//   log_n 14: c=10 70.6, c=11 61.1, c=12 56.8, c=13 47.1*, c=14 62.0 ms
//   log_n 16: c=10 274, c=11 239, c=12 215, c=13 154*, c=14 184, c=15 210 ms
//   log_n 18: c=12 804, c=13 583, c=14 665, c=15 698, c=16 518*, c=17 635 ms
//   log_n 20: c=14 2725, c=15 2691, c=16 1878*, c=17 2163, c=18 2603, c=19 2475 ms
//   log_n 22: c=16 7282*, c=17 8363, c=19 8821, c=20 55546 ms (one run each)
// scalar (mulx/adcx/adox):
//   log_n 10: c=6 18.7, c=7 17.0, c=8 16.2, c=9 11.6*, c=10 12.2 ms
//   log_n 12: c=8 56.4, c=9 38.3, c=10 33.9, c=11 32.5*, c=12 33.6 ms
//   log_n 14: c=10 125, c=11 115, c=12 108, c=13 101*, c=14 117 ms
//   log_n 16: c=10 492, c=11 442, c=12 408, c=13 362*, c=14 378, c=15 385 ms
//   log_n 18: c=12 1610, c=13 1400, c=14 1427, c=15 1378, c=16 1218*, c=17 1334 ms
//   log_n 20: c=14 5659, c=15 5373, c=16 4617*, c=17 4791, c=18 5143, c=19 4924 ms
//   log_n 22: c=16 20420*, c=19 20880 ms (with the split points written, before the huge pages)
// With the split points written (each window over +-P and +-endo(P)), before the huge pages, the
// same windows won except the scalar path's 2^10 (c = 10: 11.5 ms against 13.0 at c = 9).
// Before the fold, on the shared 2-core "AMD EPYC" (family 25 model 17, L2 1 MiB per core, L3
// 32 MiB), the same rows except the scalar path's 2^10 (c = 8: 17.3 ms against 19.4 at c = 10)
// and 2^14 (c = 12: 140 against 146 ms at c = 13). Again there on 2026-12-06 (the current code, 2
// repetitions interleaved): c = 16 best at 2^18 and 2^20 on both paths (IFMA 532-616 and
// 2015-2109 ms, the next best c = 13 591-602 and c = 17 2180-2258; scalar 1275-1344 and 4883-4954,
// the next c = 17 1359-1406 and c = 19 4946-5040) and at 2^22 with IFMA (c = 16 7956-8079 ms, c = 17
// 8489-9205); results/reference/epyc-zen4-2026-12-06.md.
// G2 takes the same rows: bench_msm msm/g2/glv_fixed without AVX-512 on the Xeon of family 6 model
// 167 (2026-12-07, after its batches inverted the norms; 3 repetitions interleaved, medians):
//   log_n 16: c=12 787, c=13 682*, c=14 712, c=15 671 ms (13 and 15 within the noise)
//   log_n 18: c=13 2394, c=14 2797, c=15 2693, c=16 2266*, c=17 2625 ms
// The odd sizes, on the Xeon of family 6 model 167 (2026-12-07), msm::msm with fixed:c (or
// windows:N) alternated in one process, one thread pinned, G1, medians (the G2 check beside):
// IFMA:
//   log_n 11: c=9 10.7, c=10 9.4*, c=11 9.5 ms
//   log_n 13: c=11 25.3, c=12 24.9, c=13 22.8*, c=14 127.1 ms (G2: c=11 74.9, c=13 70.9* ms)
//   log_n 15: c=12 87.2, c=13 68.0*, c=14 86.0, c=15 101.5, 9 windows 73.3 ms
//   log_n 19: c=15 1079, c=16 762*, c=17 926, 7 windows 1036, 9 windows 801 ms
//   log_n 21: c=16 2928*, c=17 3353, 7 windows 3171 ms
// scalar:
//   log_n 11: c=9 15.1, c=10 13.8*, c=11 14.2 ms (G2: c=9 35.9, c=10 34.4*, c=11 35.9 ms)
//   log_n 13: c=11 46.1, c=12 44.9, c=13 45.0, c=14 133.2 ms (within the noise: c = 11 kept)
//   log_n 15: c=12 163.5, c=13 146.5*, c=14 161.5, c=15 178.5, 9 windows 152.4 ms
//   log_n 19: c=15 2131, c=16 1836*, c=17 1979, 7 windows 2185, 9 windows 1955 ms
// and the rows of 2^10, 2^12 and 2^14 again there: every one kept (scalar 2^10 c=9 9.1 and c=10
// 8.9 ms, within the noise; 2^14 c=13 and 10 windows the same on both paths). Before the odd
// rows a size between two rows took the smaller of their windows: c = 11 at IFMA's 2^13 and c = 9
// at the scalar 2^11, 8-10% slower than these (bench_msm msm/g1/glv_fixed, 5 repetitions
// interleaved: IFMA 2^13 c=11 27.3, c=13 24.4 ms; scalar 2^11 c=9 16.3, c=10 15.0 ms).
// The small rows checked on the Zen 4 EPYC (family 25 model 17, 2026-12-07; bench_msm
// msm/g1/glv_fixed/log_n:10..15, one thread pinned, 3 repetitions interleaved, medians): IFMA's
// best c is the row's at every size (2^11 c=10 10.57 and c=11 10.53 ms, a tie); on the scalar path
// every row is within 3% of the best: 2^10 c=9 10.71 against c=10 10.50 ms, 2^13 c=11 56.90
// against c=13 55.40 ms, the rest the row's own c. Kept. The scalar path's spread rows there: 2^16
// 9 windows 329.1 against c=13 336.7 ms (8 repetitions, medians), 2^17 9 windows 649.5, c=16
// 652.3, c=13 662.8 ms (3): the same order as on the Xeon.
// A row for every size from 2^first_glv_row to 2^last_glv_row; outside it, glv_model_window_bits.
constexpr unsigned first_glv_row = 10, last_glv_row = 22;
constexpr table_row measured_glv_ifma[] = {{10, 10}, {11, 10}, {12, 11}, {13, 13}, {14, 13}, {15, 13}, {16, 13},
                                           {17, 13}, {18, 16}, {19, 16}, {20, 16}, {21, 16}, {22, 16}};
// Spread windows (window_policy::windows: the 128 bits over N windows of unequal widths), on the
// scalar path, G1 without AVX-512, one thread pinned, on the 2-core Intel Xeon of family 6 model
// 167 (2026-12-07), each MSM of one process alternated with the others, medians (min):
//   log_n 16: c=13 253.2 (245.8), 9 windows (7 x 14 + 2 x 15) 245.4 (242.8), 10 windows 255.5 ms
//   log_n 17: c=13 516.5, c=14 539.5, c=16 497.9, 9 windows 475.5 ms
//   log_n 18: c=16 907.1, c=13 1016.0, 9 windows 916.8, 10 windows 995.9 ms
//   log_n 20: c=16 3238.9, 7 windows 3467.8, 9 windows 3590.7 ms
//   log_n 21: c=16 6986.7, c=19 7039.7, 7 windows 6802.4 ms (a busier hour), but against blst in one
//             process 7 windows 0.510-0.520 of its time and c=16 0.508-0.522: c = 16
//   log_n 22: c=16 13107 (12498), c=19 12353 (12162), 7 windows (5 x 18 + 2 x 19) 12244 (12009) ms
// At 2^22 the 7 windows pass over the points 7 times where c = 16 takes 8, and reduce half of
// c = 19's buckets in 5 of them; at 2^16 and 2^17, 9 windows take the pass that 10 of c = 13 and
// 8 of c = 16 trade against larger and smaller bucket sets. G2 on the scalar path, the same way:
// 2^16 c=13 592.7, 9 windows 578.1, 10 windows 585.4 ms; 2^17 c=13 1216.3, c=16 1176.9, 9 windows
// 1152.4 ms; 2^22 c=16 29828-30414, 7 windows 28109-28326 ms. The IFMA path (G1), medians:
//   log_n 16: c=13 118.8, 9 windows 114.0, 10 windows 114.1 ms
//   log_n 17: c=13 226.1, c=16 227.7, 9 windows 212.1 ms
//   log_n 18: c=16 411.2, 8 windows 411.0, 9 windows 401.7 ms (within the noise: c = 16 kept)
//   log_n 20: c=16 1409.9, 7 windows 1644.3, 9 windows 1526.6 ms
//   log_n 22: c=16 5457.5 and 5411.6, 7 windows 5352.7 and 5483.2 ms (two runs: c = 16 kept)
// but against blst in one process, separate processes alternated three times, 9 windows at 2^16
// were slower: G1 0.229-0.230 -> 0.233-0.239 and G2 0.264-0.269 -> 0.274-0.278 of blst's time
// (its additions cheaper, the 3 MB of a 15-bit window's buckets weigh more): IFMA keeps whole
// windows.
// The spread rows hold on one thread. On two, 7 windows against c = 16 (msm::msm, G1, full
// density, no AVX-512, alternated in one process, Xeon of model 167, 2026-12-07): 2^22 0.962 /
// 0.969 on one thread but 0.996 / 1.030 on two; 2.67 M pairs (the 2 KiB proof's A and L, which
// take the 2^22 row) 0.986 / 1.019 on one, 1.042 / 1.022 on two; in the whole proof (c2lab ab,
// 10 rounds) msm_a 1.090 [1.028, 1.127] slower. An odd count of windows leaves one thread a
// window more, or a window cut into chunks with 2^18 buckets each. More threads take the row's
// whole windows (`whole`: the best c measured beside the spread ones above).
constexpr table_row measured_glv_scalar[] = {{10, 9},  {11, 10}, {12, 11},          {13, 11},          {14, 13},
                                             {15, 13}, {16, 15, 9, 13}, {17, 15, 9, 16}, {18, 16}, {19, 16},
                                             {20, 16}, {21, 16},        {22, 19, 7, 16}};

// Every size of the range has its row, in order (glv_row indexes them by size).
template <size_t N>
constexpr bool one_row_a_size(const table_row (&rows)[N]) {
    for (size_t i = 0; i < N; ++i)
        if (rows[i].log_n != first_glv_row + i) return false;
    return N == last_glv_row - first_glv_row + 1;
}
static_assert(one_row_a_size(measured_glv_ifma) && one_row_a_size(measured_glv_scalar));

unsigned ceil_log2(size_t n) noexcept {
    unsigned log_n = 0;
    while (log_n < 63 && (size_t{1} << log_n) < n) ++log_n;
    return log_n;
}

}  // namespace

window_policy window_policy::fixed(unsigned bits) { return in_range(window_kind::fixed, bits); }

window_policy window_policy::windows(unsigned count) { return in_range(window_kind::windows, count); }

window_policy window_policy::parse(std::string_view text) {
    if (text == "ln") return ln();
    if (text == "table") return table();
    const bool spread = text.starts_with("windows:");
    const std::string_view prefix = spread ? "windows:" : "fixed:";
    if (text.substr(0, prefix.size()) != prefix) refuse(text, "unknown policy");
    std::string_view digits = text.substr(prefix.size());
    if (digits.empty()) refuse(text, spread ? "missing window count" : "missing window bits");
    unsigned value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc{} || end != digits.data() + digits.size())
        refuse(text, spread ? "the window count is not a decimal number" : "window bits are not a decimal number");
    return in_range(spread ? window_kind::windows : window_kind::fixed, value, text);
}

std::string window_policy::to_string() const {
    switch (kind) {
        case window_kind::ln: return "ln";
        case window_kind::table: return "table";
        case window_kind::fixed: return "fixed:" + std::to_string(fixed_bits);
        case window_kind::windows: return "windows:" + std::to_string(fixed_bits);
    }
    return "?";
}

unsigned window_policy::bits_for(size_t n) const noexcept {
    switch (kind) {
        case window_kind::ln: return ln_window_bits(n);
        case window_kind::table: return table_window_bits(n);
        case window_kind::fixed: return fixed_bits;
        case window_kind::windows: return std::min(max_window_bits, (256 + fixed_bits - 1) / fixed_bits);
    }
    return ln_window_bits(n);
}

unsigned window_policy::glv_bits_for(size_t n, unsigned threads) const noexcept {
    switch (kind) {
        case window_kind::ln: return glv_model_window_bits(n);
        case window_kind::table: return threads > 1 ? glv_table_whole_bits(n) : glv_table_window_bits(n);
        case window_kind::fixed: return fixed_bits;
        case window_kind::windows: return spread_window_bits(fixed_bits);
    }
    return glv_model_window_bits(n);
}

unsigned window_policy::glv_windows_for(size_t n, unsigned threads) const noexcept {
    switch (kind) {
        case window_kind::table: return threads > 1 ? 0 : glv_table_windows(n);
        case window_kind::windows: return fixed_bits;
        default: return 0;
    }
}

unsigned spread_window_bits(unsigned count) noexcept { return (spread_bits + count - 1) / count; }

unsigned glv_table_window_bits(size_t n) noexcept { return glv_table_window_bits(n, ff::default_batch_path()); }

namespace {

// The table's row for the split of n pairs, or none (the model).
std::optional<table_row> glv_row(size_t n, ff::batch_path path) noexcept {
    const std::span<const table_row> rows = path == ff::batch_path::ifma ? std::span<const table_row>(measured_glv_ifma)
                                                                         : std::span<const table_row>(measured_glv_scalar);
    const unsigned log_n = ceil_log2(n);
    if (log_n < first_glv_row || log_n > last_glv_row) return std::nullopt;
    return rows[log_n - first_glv_row];
}

}  // namespace

unsigned glv_table_window_bits(size_t n, ff::batch_path path) noexcept {
    const auto row = glv_row(n, path);
    return row ? row->bits : glv_model_window_bits(n);
}

unsigned glv_table_windows(size_t n) noexcept { return glv_table_windows(n, ff::default_batch_path()); }

unsigned glv_table_windows(size_t n, ff::batch_path path) noexcept {
    const auto row = glv_row(n, path);
    return row ? row->windows : 0;
}

unsigned glv_table_whole_bits(size_t n) noexcept { return glv_table_whole_bits(n, ff::default_batch_path()); }

unsigned glv_table_whole_bits(size_t n, ff::batch_path path) noexcept {
    const auto row = glv_row(n, path);
    if (!row) return glv_model_window_bits(n);
    return row->windows ? row->whole : row->bits;
}

unsigned glv_model_window_bits(size_t n) noexcept {
    // Additions for n pairs split into two 127-bit halves: W(c) = floor(127/c) + 1 windows of
    // each half, a pair of them taking 2n bucket additions, 2^(c-1) to merge the second half's
    // buckets into the first's and 2 * 2^(c-1) to reduce them; c capped at 16 (at 2^18
    // points c = 17 took 1693 ms against 1420 ms for c = 16: 2^16 buckets leave the L2 cache).
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= 16; ++c) {
        double windows = 127 / c + 1;
        double cost = windows * (2.0 * static_cast<double>(n) + 1.5 * std::ldexp(1.0, static_cast<int>(c)));
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

unsigned ln_window_bits(size_t n) noexcept {
    if (n < 32) return 3;
    double c = std::ceil(std::log(static_cast<double>(n)));
    return c > max_window_bits ? max_window_bits : static_cast<unsigned>(c);
}

unsigned table_window_bits(size_t n) noexcept {
    const unsigned log_n = ceil_log2(n);
    for (const auto& row : measured)
        if (row.log_n == log_n) return row.bits;
    return ln_window_bits(n);
}

}  // namespace c2lab::msm

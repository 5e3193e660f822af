#include "msm/window.hpp"

#include <charconv>
#include <cmath>

#include "core/error.hpp"

namespace c2lab::msm {

namespace {

[[noreturn]] void refuse(std::string_view text, std::string_view why) {
    throw error(errc::bad_input, "msm_window: bad value \"" + std::string(text) + "\": " + std::string(why) +
                                     " (expected ln, table or fixed:N with N in 1..20)");
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
};
constexpr table_row measured[] = {{10, 8}, {12, 11}, {14, 12}, {16, 13}, {18, 13}};

// The endomorphism split (2n points, 128-bit scalars), indexed by ceil(log2 n) of the pairs.
// Source: the side-by-side harness of results/reference/msm-vs-blst-2026-12-03.md (G1, one
// thread, full density, Release, -march=x86-64-v3, batched affine buckets, medians of 2-5
// interleaved runs, CPU time: the shared 2-vCPU "Intel(R) Xeon(R) Processor" VM was
// oversubscribed, wall time 2-6x CPU time). Time per MSM by c, best marked *:
//   log_n 16: c=12 402 ms, c=13 352 ms*, c=14 377 ms, c=15 409 ms
//   log_n 18: c=13 1409 ms, c=15 1402 ms, c=16 1312 ms*, c=17 1619 ms
//   log_n 20: c=15 5239 ms, c=16 4697 ms*, c=17 5390 ms
// Sizes not listed: glv_model_window_bits (which gives these three as well).
constexpr table_row measured_glv[] = {{16, 13}, {18, 16}, {20, 16}};

unsigned ceil_log2(size_t n) noexcept {
    unsigned log_n = 0;
    while (log_n < 63 && (size_t{1} << log_n) < n) ++log_n;
    return log_n;
}

}  // namespace

window_policy window_policy::fixed(unsigned bits) {
    if (bits < min_window_bits || bits > max_window_bits)
        throw error(errc::bad_input, "msm_window: bad value \"fixed:" + std::to_string(bits) +
                                         "\": window bits must be in 1..20");
    return {window_kind::fixed, bits};
}

window_policy window_policy::parse(std::string_view text) {
    if (text == "ln") return ln();
    if (text == "table") return table();
    constexpr std::string_view prefix = "fixed:";
    if (text.substr(0, prefix.size()) != prefix) refuse(text, "unknown policy");
    std::string_view digits = text.substr(prefix.size());
    if (digits.empty()) refuse(text, "missing window bits");
    unsigned bits = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
    if (ec != std::errc{} || end != digits.data() + digits.size()) refuse(text, "window bits are not a decimal number");
    if (bits < min_window_bits || bits > max_window_bits) refuse(text, "window bits must be in 1..20");
    return {window_kind::fixed, bits};
}

std::string window_policy::to_string() const {
    switch (kind) {
        case window_kind::ln: return "ln";
        case window_kind::table: return "table";
        case window_kind::fixed: return "fixed:" + std::to_string(fixed_bits);
    }
    return "?";
}

unsigned window_policy::bits_for(size_t n) const noexcept {
    switch (kind) {
        case window_kind::ln: return ln_window_bits(n);
        case window_kind::table: return table_window_bits(n);
        case window_kind::fixed: return fixed_bits;
    }
    return ln_window_bits(n);
}

unsigned window_policy::glv_bits_for(size_t n) const noexcept {
    switch (kind) {
        case window_kind::ln: return glv_model_window_bits(n);
        case window_kind::table: return glv_table_window_bits(n);
        case window_kind::fixed: return fixed_bits;
    }
    return glv_model_window_bits(n);
}

unsigned glv_table_window_bits(size_t n) noexcept {
    unsigned log_n = ceil_log2(n);
    for (const auto& row : measured_glv)
        if (row.log_n == log_n) return row.bits;
    return glv_model_window_bits(n);
}

unsigned glv_model_window_bits(size_t n) noexcept {
    // Additions for 2n points and 127-bit scalars: W(c) = floor(127/c) + 1 windows of 2n
    // bucket additions and 2 * 2^(c-1) reduction additions each; c capped at 16 (at 2^18
    // points c = 17 took 1693 ms against 1420 ms for c = 16: 2^16 buckets leave the L2 cache).
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= 16; ++c) {
        double windows = 127 / c + 1;
        double cost = windows * (2.0 * static_cast<double>(n) + std::ldexp(1.0, static_cast<int>(c)));
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
    unsigned log_n = 0;
    while (log_n < 63 && (size_t{1} << log_n) < n) ++log_n;  // ceil(log2 n)
    for (const auto& row : measured)
        if (row.log_n == log_n) return row.bits;
    return ln_window_bits(n);
}

}  // namespace c2lab::msm

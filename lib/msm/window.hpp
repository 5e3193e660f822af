// The window policy of the msm_window flag: how many bits c a Pippenger window gets for
// an MSM of n points.
//
//   ln        bellperson's CPU rule: c = ceil(ln n) (natural log), 3 when n < 32
//   fixed:N   c = N for every size, 1 <= N <= 20
//   table     a per-size table measured on a reference machine (see window.cpp), the ln
//             rule where nothing was measured; its spread windows on one thread only
//   windows:N the endomorphism split's 128 bits in N windows whose widths differ by at most
//             one bit, 7 <= N <= 42 (19 to 3 bits; at 2^22 pairs 7 windows of 18 and 19 bits);
//             the 255-bit path takes windows of ceil(256 / N) bits, at most 20
//
// Cost model behind the choice (signed digits, see pippenger.hpp): about
// (255/c + 1) * (n + 2^c) point additions, so c near log2(n) - log2(log2(n)) is optimal in
// additions alone; cache footprint of the 2^(c-1) buckets moves it down on real machines.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace c2lab::ff {
enum class batch_path;  // ff/ifma.hpp
}

namespace c2lab::msm {

inline constexpr unsigned min_window_bits = 1;
inline constexpr unsigned max_window_bits = 20;
// The bits a part of the endomorphism split spreads over its windows: a 127-bit magnitude and
// the last carry of its signed digits.
inline constexpr unsigned spread_bits = 128;
inline constexpr unsigned min_spread_windows = 7;   // 128 bits in windows of at most 19
inline constexpr unsigned max_spread_windows = 42;  // ... and at least 3 (the signed split's least)

enum class window_kind { ln, fixed, table, windows };

struct window_policy {
    window_kind kind = window_kind::ln;
    unsigned fixed_bits = 0;  // kind == fixed: 1..20; kind == windows: the count, 7..42

    static window_policy ln() noexcept { return {window_kind::ln, 0}; }
    static window_policy table() noexcept { return {window_kind::table, 0}; }
    // Throws c2lab::error (bad_input) when bits is outside 1..20.
    static window_policy fixed(unsigned bits);
    // Throws c2lab::error (bad_input) when count is outside 7..42.
    static window_policy windows(unsigned count);

    // "ln", "table", "fixed:N" (N decimal, 1..20) or "windows:N" (7..42). Anything else: c2lab::error
    // (bad_input) with a message that quotes the bad text.
    static window_policy parse(std::string_view text);
    std::string to_string() const;

    // The window size c for an MSM of n points (n = 0 is treated as 1).
    unsigned bits_for(size_t n) const noexcept;
    // The window size c for an MSM of n points whose scalars are split by the endomorphism
    // (two 127-bit halves of every scalar; pippenger.hpp), run on `threads` threads: ln: the
    // addition-count model glv_model_window_bits (bellperson's ln rule has no such variant:
    // ln(2n) would pick c = 14 at 2^19 points, a window size that leaves a 1-bit top window);
    // table: its own measured table (window.cpp), the model elsewhere; fixed: N.
    unsigned glv_bits_for(size_t n, unsigned threads = 1) const noexcept;
    // Where the split's windows are spread (windows:N, or a table row that says so): their
    // number a part, each of 128 / N bits rounded down or up (glv_bits_for gives the wider);
    // 0 where they are glv_bits_for(n, threads) bits each. The table spreads them on one thread
    // only: its spread rows were measured there, and their odd window counts (7, 9) do not
    // split evenly over two (window.cpp).
    unsigned glv_windows_for(size_t n, unsigned threads = 1) const noexcept;

    friend bool operator==(const window_policy&, const window_policy&) = default;
};

// ceil(ln n), 3 when n < 32; clamped to max_window_bits (reached only past e^20 points).
unsigned ln_window_bits(size_t n) noexcept;
// The measured table (window.cpp); falls back to ln_window_bits outside its range.
unsigned table_window_bits(size_t n) noexcept;
// The measured table for the endomorphism split of n pairs, of the batch path that runs here
// (ff::default_batch_path()) or of the one named; falls back to the model.
unsigned glv_table_window_bits(size_t n) noexcept;
unsigned glv_table_window_bits(size_t n, ff::batch_path path) noexcept;
// The table's spread window count for the split of n pairs (0: windows of
// glv_table_window_bits each), of the batch path that runs here or of the one named.
unsigned glv_table_windows(size_t n) noexcept;
unsigned glv_table_windows(size_t n, ff::batch_path path) noexcept;
// The table's whole windows for the split of n pairs on more than one thread: where its row
// spreads the windows, the whole-window size measured beside them; else glv_table_window_bits.
unsigned glv_table_whole_bits(size_t n) noexcept;
unsigned glv_table_whole_bits(size_t n, ff::batch_path path) noexcept;
// The windows a part where the split's 128 bits are spread over `count` of them: the widest's bits.
unsigned spread_window_bits(unsigned count) noexcept;
// The c in 1..16 minimising (floor(127/c) + 1) * (2n + 1.5 * 2^c): windows times bucket, merge
// and reduction additions for the split of n pairs (pippenger.cpp).
unsigned glv_model_window_bits(size_t n) noexcept;

}  // namespace c2lab::msm

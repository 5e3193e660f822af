#include "poly/domain.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace c2lab::poly {

evaluation_domain::evaluation_domain(size_t log_n, unsigned threads) {
    if (log_n > fr::two_adicity)
        throw error(errc::bad_input, "evaluation_domain: log_n = " + std::to_string(log_n) +
                                         " exceeds the 2-adicity of Fr (" + std::to_string(fr::two_adicity) + ")");
    log_n_ = log_n;
    n_ = size_t{1} << log_n;
    omega_ = fr::root_of_unity(log_n);
    omega_inv_ = omega_.inverse();
    size_inv_ = fr::from_u64(n_).inverse();  // n <= 2^32 < r: never zero
    g_ = fr::from_u64(7);
    g_inv_ = g_.inverse();
    z_coset_ = g_.pow(static_cast<uint64_t>(n_)) - fr::one();
    z_coset_inv_ = z_coset_.inverse();

    threads_ = threads;
    for (auto& t : natural_) t = std::make_shared<lazy_table>();
    for (auto& t : bit_reversed_) t = std::make_shared<lazy_table>();
    // The table of the default path is made now, the others on first use: the IFMA (or AVX2)
    // transforms up to 2^22 read only theirs, and each table is 64 MB of fresh pages at 2^22.
    (void)twiddles(ff::vector_batch_path());
}

void evaluation_domain::allocate(uninit_buffer<fr, true>& table, const char* which) const {
    try {
        table.resize_discard(n_ / 2);
    } catch (const std::bad_alloc&) {
        throw error(errc::resource, std::string("evaluation_domain: cannot allocate ") + which +
                                        std::to_string(n_ / 2) + " twiddles for n = 2^" + std::to_string(log_n_));
    }
}

// omega^j for j < n/2: each chunk starts from omega^lo (one pow, ~log2(lo) squarings), then
// rows of `row` powers, each omega^j0 times the base row omega^0 .. omega^(row-1): independent
// products (ff::mul_batch, 8 at a time on IFMA) where a chain x *= omega waits for each product in
// turn. Then, for the IFMA or AVX2 path's table, its form. The domain of a 2 KiB proof (2^22, both
// tables) took 92-97 ms with the chain and 80-83 ms with the rows; 47 ms for one table without
// AVX-512, most of it the first writes to its 64 MB (Intel Xeon, two threads).
void evaluation_domain::fill_powers(fr* tw, ff::batch_path form) const {
    const size_t half = n_ / 2;
    const fr w = omega_;
    constexpr size_t row = 512;
    std::vector<fr> base(std::min(row, half));
    if (!base.empty()) base[0] = fr::one();
    for (size_t j = 1; j < base.size(); ++j) base[j] = base[j - 1] * w;
    const fr w_row = base.empty() ? fr::one() : base.back() * w;  // omega^row
    parallel::in_arena(threads_, [&] {
        parallel::for_chunks(half, parallel::default_grain, [&](size_t lo, size_t hi) {
            fr x = w.pow(static_cast<uint64_t>(lo));
            for (size_t j0 = lo; j0 < hi; j0 += row) {
                const size_t m = std::min(row, hi - j0);
                ff::scale_batch(std::span<fr>(tw + j0, m), std::span<const fr>(base).first(m), x);
                x *= w_row;
            }
            ff::twiddle_form(form, std::span<fr>(tw + lo, hi - lo));
        });
    });
}

// The tables are indexed by the path's value.
static_assert(static_cast<size_t>(ff::batch_path::scalar) == 0 && static_cast<size_t>(ff::batch_path::ifma) == 1 &&
              static_cast<size_t>(ff::batch_path::avx2) == 2);

std::span<const fr> evaluation_domain::twiddles() const { return twiddles(ff::batch_path::scalar); }

std::uint64_t evaluation_domain::table_bytes() const noexcept {
    std::uint64_t entries = 0;
    for (const auto& t : natural_) entries += t->values.size();
    for (const auto& t : bit_reversed_) entries += t->values.size();
    return entries * sizeof(fr);
}

std::span<const fr> evaluation_domain::twiddles(ff::batch_path path) const {
    if (path == ff::batch_path::ifma && !ff::ifma_available())
        throw error(errc::device, "evaluation_domain: no IFMA twiddle table (the AVX-512 IFMA path is not available)");
    if (path == ff::batch_path::avx2 && !ff::avx2_available())
        throw error(errc::device, "evaluation_domain: no AVX2 twiddle table (the AVX2 path is off)");
    lazy_table& t = *natural_[static_cast<size_t>(path)];
    std::call_once(t.once, [&] {
        allocate(t.values, path == ff::batch_path::ifma   ? "the IFMA path's "
                           : path == ff::batch_path::avx2 ? "the AVX2 path's "
                                                          : "");
        fill_powers(t.values.data(), path);
    });
    return std::as_const(t.values).span();
}

namespace {
uint64_t reverse_bits(uint64_t v, size_t bits) noexcept {
    uint64_t r = 0;
    for (size_t b = 0; b < bits; ++b, v >>= 1) r = (r << 1) | (v & 1);
    return r;
}
}  // namespace

bit_reversed_powers::bit_reversed_powers(const fr& base, size_t bits, ff::batch_path path)
    : base_(base), hi_bits_(bits - run_bits), path_(path), table_(run) {
    if (bits < run_bits || bits >= 64)
        throw error(errc::bad_input, "bit_reversed_powers: " + std::to_string(bits) + " bits (need 9 to 63)");
    fr big = base;
    for (size_t i = 0; i < hi_bits_; ++i) big = big.square();
    fr p = fr::one();
    for (size_t l = 0; l < run; ++l, p *= big) table_[reverse_bits(l, run_bits)] = p;
}

void bit_reversed_powers::fill(size_t u, const fr& factor, fr* out) const {
    ff::scale_batch(path_, std::span<fr>(out, run), table_, factor * base_.pow(reverse_bits(u, hi_bits_)));
}

// omega^rev(i) computed in place of the natural table's entries (bit_reversed_powers: a run of 512
// per task, then the IFMA or AVX2 path's 2^4 or 2^5 in the run's factor). A copy of the natural table
// bit-reversed in tiles took 29 ms at 2^22 (IFMA form, two threads, Intel Xeon): one pass more.
std::span<const fr> evaluation_domain::twiddles_bit_reversed(ff::batch_path path) const {
    if (path == ff::batch_path::ifma && !ff::ifma_available()) (void)twiddles(path);  // refuses
    if (path == ff::batch_path::avx2 && !ff::avx2_available()) (void)twiddles(path);
    lazy_table& t = *bit_reversed_[static_cast<size_t>(path)];
    std::call_once(t.once, [&] {
        allocate(t.values, "bit-reversed ");
        fr* out = t.values.data();
        const size_t half = n_ / 2, bits = log_n_ == 0 ? 0 : log_n_ - 1;
        if (bits < bit_reversed_powers::run_bits) {  // up to 2^9: from the natural table
            const std::span<const fr> natural = twiddles(path);
            for (size_t i = 0; i < half; ++i) out[i] = natural[reverse_bits(i, bits)];
            return;
        }
        const fr factor = ff::twiddle_form(path, fr::one());
        const bit_reversed_powers powers(omega_, bits, ff::default_batch_path());
        parallel::in_arena(threads_, [&] {
            parallel::for_chunks(half / bit_reversed_powers::run, 16, [&](size_t lo, size_t hi) {
                for (size_t u = lo; u < hi; ++u) powers.fill(u, factor, out + u * bit_reversed_powers::run);
            });
        });
    });
    return std::as_const(t.values).span();
}

evaluation_domain evaluation_domain::for_size(size_t n, unsigned threads) {
    if (n == 0 || !std::has_single_bit(n))
        throw error(errc::bad_input, "evaluation_domain: size " + std::to_string(n) + " is not a power of two");
    return evaluation_domain(static_cast<size_t>(std::countr_zero(n)), threads);
}

evaluation_domain domain_cache::at_least(size_t m, unsigned threads) {
    const size_t want = std::max<size_t>(m, 1);
    const std::lock_guard lock(mutex_);
    // Kept where it is the smallest power of two holding m, as at_least would make it.
    const bool same = domain_ && threads_ == threads && domain_->size() >= want &&
                      (domain_->size() == 1 || domain_->size() / 2 < want);
    if (!same) {
        domain_.reset();  // the old tables go before the new ones are made
        domain_.emplace(evaluation_domain::at_least(m, threads));
        threads_ = threads;
    }
    return *domain_;
}

evaluation_domain evaluation_domain::at_least(size_t m, unsigned threads) {
    if (m > (size_t{1} << fr::two_adicity))
        throw error(errc::bad_input, "evaluation_domain: " + std::to_string(m) +
                                         " values do not fit a domain of at most 2^32 points");
    return for_size(std::bit_ceil(m == 0 ? size_t{1} : m), threads);
}

}  // namespace c2lab::poly

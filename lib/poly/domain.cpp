#include "poly/domain.hpp"

#include <algorithm>
#include <bit>
#include <new>
#include <string>

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

    const size_t half = n_ / 2;
    auto allocate = [&](std::vector<fr>& table, const char* which) {
        try {
            table.resize(half);
        } catch (const std::bad_alloc&) {
            throw error(errc::resource, std::string("evaluation_domain: cannot allocate ") + which +
                                            std::to_string(half) + " twiddles for n = 2^" + std::to_string(log_n));
        }
    };
    allocate(twiddles_, "");
    // The IFMA path's form of the table (ff::twiddle_form), made beside the first.
    const bool ifma = ff::ifma_available();
    if (ifma) allocate(twiddles_ifma_, "the IFMA path's ");
    // omega^j: each chunk starts from omega^lo (one pow, ~log2(lo) squarings) and then
    // multiplies by omega: about n/2 multiplications in all.
    fr* tw = twiddles_.data();
    const fr w = omega_;
    fr* tw_ifma = twiddles_ifma_.data();
    parallel::in_arena(threads, [&] {
        parallel::for_chunks(half, parallel::default_grain, [&](size_t lo, size_t hi) {
            fr x = w.pow(static_cast<uint64_t>(lo));
            for (size_t j = lo; j < hi; ++j) {
                tw[j] = x;
                x *= w;
            }
            if (ifma) {
                std::copy(tw + lo, tw + hi, tw_ifma + lo);
                ff::twiddle_form(ff::batch_path::ifma, std::span<fr>(tw_ifma + lo, hi - lo));
            }
        });
    });
}

std::span<const fr> evaluation_domain::twiddles(ff::batch_path path) const {
    if (path == ff::batch_path::scalar) return twiddles_;
    if (twiddles_ifma_.size() != twiddles_.size())
        throw error(errc::device, "evaluation_domain: no IFMA twiddle table (the AVX-512 IFMA path was not available "
                                  "when the domain was made)");
    return twiddles_ifma_;
}

evaluation_domain evaluation_domain::for_size(size_t n, unsigned threads) {
    if (n == 0 || !std::has_single_bit(n))
        throw error(errc::bad_input, "evaluation_domain: size " + std::to_string(n) + " is not a power of two");
    return evaluation_domain(static_cast<size_t>(std::countr_zero(n)), threads);
}

evaluation_domain evaluation_domain::at_least(size_t m, unsigned threads) {
    if (m > (size_t{1} << fr::two_adicity))
        throw error(errc::bad_input, "evaluation_domain: " + std::to_string(m) +
                                         " values do not fit a domain of at most 2^32 points");
    return for_size(std::bit_ceil(m == 0 ? size_t{1} : m), threads);
}

}  // namespace c2lab::poly

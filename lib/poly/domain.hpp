// evaluation_domain: the multiplicative subgroup {omega^i : i < n} of Fr for n = 2^log_n,
// with everything an NTT over it needs, computed once: omega, omega^-1, n^-1, the coset
// generator g = 7 (Fr's multiplicative generator, as in bellperson) and its inverse,
// Z(g*omega^i)^-1, and the twiddle table omega^j for j < n/2.
//
// The vanishing polynomial of the domain is Z(X) = X^n - 1. On the coset g*H it is the
// constant g^n - 1 (since (g*omega^i)^n = g^n), which is never zero because g generates
// Fr^* and n < r - 1.
//
// Costs: construction is about n/2 field multiplications for the twiddles (split across
// threads when n is large) plus three inversions; memory is 16*n bytes (n/2 elements of
// 32 bytes), twice that where the AVX-512 IFMA path is available and the scalar table is asked
// for too (the IFMA path's own form of the table is made first there). log_n may be at most Fr's 2-adicity, 32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "core/uninit_buffer.hpp"
#include "ff/fields.hpp"
#include "ff/ifma.hpp"

namespace c2lab::poly {

using ff::fr;

// Powers of `base` in bit-reversed order, 512 positions at a time: run u holds
// factor * base^rev(512 u + l) for l < 512, rev over `bits` bits (bits >= 9). As
// rev(512 u + l) = rev9(l) 2^(bits - 9) + rev(u) (rev(u) over bits - 9 bits), a run is a table of
// 512 powers of base^(2^(bits - 9)) times one power: independent products (ff::mul_batch on
// `path`) instead of a chain. The domain's bit-reversed twiddles and the NTT's rescaling in
// bit-reversed order take their powers from it.
class bit_reversed_powers {
public:
    static constexpr size_t run_bits = 9, run = size_t{1} << run_bits;
    bit_reversed_powers(const fr& base, size_t bits, ff::batch_path path);
    // out[l] = factor * base^rev(512 u + l) for l < 512; u < 2^(bits - 9).
    void fill(size_t u, const fr& factor, fr* out) const;

private:
    fr base_;
    size_t hi_bits_;
    ff::batch_path path_;
    std::vector<fr> table_;  // (base^(2^hi_bits))^rev9(l)
};

class evaluation_domain {
public:
    // The domain of size 2^log_n. Throws c2lab::error(errc::bad_input) when log_n > 32 and
    // errc::resource when the twiddle table cannot be allocated. threads: 0 = all cores.
    explicit evaluation_domain(size_t log_n, unsigned threads = 0);

    // The domain of size n; n must be a power of two in [1, 2^32] (else errc::bad_input).
    static evaluation_domain for_size(size_t n, unsigned threads = 0);
    // The smallest domain holding m values (n = next power of two >= max(m, 1)), as
    // bellperson's EvaluationDomain::from_coeffs pads; errc::bad_input past 2^32.
    static evaluation_domain at_least(size_t m, unsigned threads = 0);

    size_t size() const noexcept { return n_; }
    size_t log_size() const noexcept { return log_n_; }

    const fr& omega() const noexcept { return omega_; }          // primitive n-th root of unity
    const fr& omega_inv() const noexcept { return omega_inv_; }  // omega^-1
    const fr& size_inv() const noexcept { return size_inv_; }    // n^-1
    const fr& coset_generator() const noexcept { return g_; }    // g = 7
    const fr& coset_generator_inv() const noexcept { return g_inv_; }
    // Z(g*omega^i) = g^n - 1 for every i, and its inverse (what divide_by_z_on_coset uses).
    const fr& z_on_coset() const noexcept { return z_coset_; }
    const fr& z_on_coset_inverse() const noexcept { return z_coset_inv_; }

    // omega^j for j < n/2 (empty for n = 1). Stage s of a radix-2 NTT (blocks of 2h
    // elements) uses entry j * (n / 2h) for its j-th butterfly. Where ff::vector_batch_path() is
    // not scalar the table is made on the first call (thread-safe; errc::resource when it cannot
    // be allocated): the IFMA and AVX2 transforms up to 2^22 read only their table below.
    std::span<const fr> twiddles() const;
    // The same table in the form the NTT's stages take on `path` (ff::twiddle_form): twiddles()
    // itself on the scalar path; on the IFMA and AVX2 paths a table of their own (omega^j 2^4,
    // omega^j 2^5), made on the first call (errc::device where the path cannot run). The domain
    // makes the table of ff::vector_batch_path() with it, and no other.
    std::span<const fr> twiddles(ff::batch_path path) const;
    // The twiddles in bit-reversed order: entry i is omega^rev(i), rev reversing the log2(n/2) bits
    // of i, in `path`'s form (ff::twiddle_form). Where a transform runs from natural-order input
    // (its largest blocks first, one twiddle per block), block b of the stage of blocks of 2h
    // elements takes entry b: the twiddles of a stage are the table's first n/2h entries, those of
    // one chunk contiguous. Made on the first call (computed in place, bit_reversed_powers;
    // another 16 n bytes), thread-safe; errc::resource when it cannot be allocated, errc::device
    // for the IFMA form where twiddles(path) refuses it.
    std::span<const fr> twiddles_bit_reversed(ff::batch_path path) const;

    // The bytes of the twiddle tables made so far (copies share them), read once no transform
    // runs on the domain: what twiddle_table_bytes (ntt.hpp) predicts, checked in ntt_test.
    std::uint64_t table_bytes() const noexcept;

private:
    // A table's n/2 entries are written once, in parallel (fill_powers): no serial zero fill
    // first, and huge pages (uninit_buffer) for the strided reads of the NTT's column stages.
    struct lazy_table {
        std::once_flag once;
        uninit_buffer<fr, true> values;
    };
    void allocate(uninit_buffer<fr, true>& table, const char* which) const;
    void fill_powers(fr* table, ff::batch_path form) const;

    size_t log_n_ = 0;
    size_t n_ = 1;
    unsigned threads_ = 0;
    fr omega_, omega_inv_, size_inv_, g_, g_inv_, z_coset_, z_coset_inv_;
    // twiddles(path) and twiddles_bit_reversed(path), indexed by ff::batch_path (scalar, ifma, avx2);
    // shared by copies of the domain.
    std::shared_ptr<lazy_table> natural_[3], bit_reversed_[3];
};

// A domain kept from one proof to the next: the proofs of a batch share its twiddle tables
// instead of making them each (the 2 KiB partition's 2^22: 37-46 ms and 64 MB for the IFMA
// table, 11-20 ms and 64 MB more for the bit-reversed one, a proof). at_least makes the domain
// on its first call, inside the caller's timing, and hands out copies of it after (copies share
// the tables, those made later too); a call for another size or thread count replaces it.
// Thread-safe.
class domain_cache {
public:
    evaluation_domain at_least(size_t m, unsigned threads = 0);

private:
    std::mutex mutex_;
    std::optional<evaluation_domain> domain_;
    unsigned threads_ = 0;
};

}  // namespace c2lab::poly

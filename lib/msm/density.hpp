// density_bitmap: which of a list of bases take part in an MSM (bellperson's DensityTracker:
// a bit is set when a variable appears with a nonzero coefficient). Plain 64-bit words,
// little-endian bit order (bit i is bit i%64 of word i/64); bits past size() stay zero.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace c2lab::msm {

class density_bitmap {
public:
    density_bitmap() = default;
    explicit density_bitmap(size_t n, bool value = false) : words_((n + 63) / 64, value ? ~uint64_t{0} : 0), size_(n) {
        clear_tail();
    }
    static density_bitmap from_bools(const std::vector<bool>& bits) {
        density_bitmap d(bits.size());
        for (size_t i = 0; i < bits.size(); ++i)
            if (bits[i]) d.set(i);
        return d;
    }

    size_t size() const noexcept { return size_; }
    bool test(size_t i) const noexcept { return (words_[i / 64] >> (i % 64)) & 1; }
    void set(size_t i, bool value = true) noexcept {
        uint64_t m = uint64_t{1} << (i % 64);
        words_[i / 64] = value ? (words_[i / 64] | m) : (words_[i / 64] & ~m);
    }
    // set(i) for writers on several threads at once (neighbouring bits share a word).
    void set_concurrently(size_t i) noexcept {
        std::atomic_ref<uint64_t>(words_[i / 64]).fetch_or(uint64_t{1} << (i % 64), std::memory_order_relaxed);
    }
    void push_back(bool value) {
        if (size_ % 64 == 0) words_.push_back(0);
        ++size_;
        set(size_ - 1, value);
    }

    // Number of set bits in [begin, end): popcounts of whole words.
    size_t count(size_t begin, size_t end) const noexcept {
        if (begin >= end) return 0;
        size_t first = begin / 64, last = (end - 1) / 64;
        uint64_t lo = ~uint64_t{0} << (begin % 64);
        uint64_t hi = ~uint64_t{0} >> (63 - (end - 1) % 64);
        if (first == last) return static_cast<size_t>(std::popcount(words_[first] & lo & hi));
        size_t c = static_cast<size_t>(std::popcount(words_[first] & lo));
        for (size_t w = first + 1; w < last; ++w) c += static_cast<size_t>(std::popcount(words_[w]));
        return c + static_cast<size_t>(std::popcount(words_[last] & hi));
    }
    size_t count() const noexcept { return count(0, size_); }

    // The first set bit at or after i, or size() where there is none: a word at a time.
    size_t next_set(size_t i) const noexcept {
        if (i >= size_) return size_;
        size_t w = i / 64;
        uint64_t bits = words_[w] & (~uint64_t{0} << (i % 64));
        while (bits == 0) {
            if (++w == words_.size()) return size_;
            bits = words_[w];
        }
        return w * 64 + static_cast<size_t>(std::countr_zero(bits));  // bits past size() are zero
    }

    std::span<const uint64_t> words() const noexcept { return words_; }
    friend bool operator==(const density_bitmap&, const density_bitmap&) = default;

private:
    void clear_tail() noexcept {
        if (size_ % 64 != 0) words_.back() &= ~uint64_t{0} >> (64 - size_ % 64);
    }
    std::vector<uint64_t> words_;
    size_t size_ = 0;
};

}  // namespace c2lab::msm

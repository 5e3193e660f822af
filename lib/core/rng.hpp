// Deterministic, seedable pseudo-random generator for tests, benchmarks and datasets:
// xoshiro256** (Blackman and Vigna) seeded through splitmix64. Not for secrets.
#pragma once

#include <cstdint>

namespace c2lab {

class rng {
public:
    explicit constexpr rng(uint64_t seed = 0) noexcept {
        for (auto& word : s_) word = splitmix64(seed);
    }
    constexpr uint64_t next() noexcept {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    constexpr uint64_t operator()() noexcept { return next(); }
    // Uniform in [0, bound) for bound > 0 (Lemire's multiply-shift, with rejection).
    constexpr uint64_t below(uint64_t bound) noexcept {
        for (;;) {
            unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
            uint64_t low = static_cast<uint64_t>(m);
            if (low >= (0 - bound) % bound) return static_cast<uint64_t>(m >> 64);
        }
    }

private:
    static constexpr uint64_t rotl(uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
    static constexpr uint64_t splitmix64(uint64_t& state) noexcept {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    uint64_t s_[4]{};
};

}  // namespace c2lab

// Packing bits into field elements (bellpepper crates/bellpepper/src/gadgets/multipack.rs):
// pack_into_inputs exposes a bit string as public inputs, 254 (Fr::CAPACITY) bits per
// input, least significant first; compute_multipacking is the verifier's twin, giving the
// input values. pack_bits (one private number) is in gadgets/num.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gadgets/boolean.hpp"
#include "gadgets/num.hpp"

namespace c2lab::gadgets {

// One public input "input <i>" per chunk of 254 bits, with "packing constraint <i>":
// (sum 2^j b_j) * 1 = input.
template <class CS>
void pack_into_inputs(CS& cs, std::span<const boolean> bits) {
    for (size_t start = 0, i = 0; start < bits.size(); start += fr_capacity, ++i) {
        const size_t n = bits.size() - start < fr_capacity ? bits.size() - start : fr_capacity;
        std::span<const boolean> chunk = bits.subspan(start, n);
        variable input = cs.alloc_input([i] { return "input " + std::to_string(i); }, [&] {
            fr acc = fr::zero();
            for (size_t j = 0; j < n; ++j) {
                std::optional<bool> b = chunk[j].value();
                if (!b) throw error(errc::bad_input, "pack_into_inputs: witness missing");
                if (*b) acc += pow2(j);
            }
            return acc;
        });
        cs.enforce([i] { return "packing constraint " + std::to_string(i); },
                   [&](auto lc) {
                       for (size_t j = 0; j < n; ++j) chunk[j].add_to(lc, pow2(j));
                       return lc;
                   },
                   [](auto lc) { return lc + CS::one(); }, [&](auto lc) { return lc + input; });
    }
}

// The bits of bytes, most significant bit of each byte first (bellpepper bytes_to_bits).
inline std::vector<bool> bytes_to_bits(std::span<const uint8_t> bytes) {
    std::vector<bool> bits;
    bits.reserve(bytes.size() * 8);
    for (uint8_t v : bytes)
        for (int i = 7; i >= 0; --i) bits.push_back(((v >> i) & 1) != 0);
    return bits;
}

// The bits of bytes, least significant bit of each byte first (bellpepper bytes_to_bits_le).
inline std::vector<bool> bytes_to_bits_le(std::span<const uint8_t> bytes) {
    std::vector<bool> bits;
    bits.reserve(bytes.size() * 8);
    for (uint8_t v : bytes)
        for (int i = 0; i < 8; ++i) bits.push_back(((v >> i) & 1) != 0);
    return bits;
}

// The public input values that pack_into_inputs allocates for these bits.
inline std::vector<fr> compute_multipacking(const std::vector<bool>& bits) {
    std::vector<fr> out;
    for (size_t start = 0; start < bits.size(); start += fr_capacity) {
        const size_t end = bits.size() - start < fr_capacity ? bits.size() : start + fr_capacity;
        fr::repr x{};
        for (size_t i = start; i < end; ++i)
            if (bits[i]) x[(i - start) / 64] |= uint64_t{1} << ((i - start) % 64);
        out.push_back(fr::from_canonical(x));
    }
    return out;
}

}  // namespace c2lab::gadgets

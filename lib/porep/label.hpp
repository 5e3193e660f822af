// The StackedDRG label of a node: its gadget (rust-fil-proofs
// storage-proofs-porep/src/stacked/circuit/create_label.rs, create_label_circuit) and its
// native twin (storage-proofs-porep/src/stacked/vanilla/create_label/single.rs, create_label
// and create_label_exp, with the parent order of graph.rs copy_parents_data_inner[_exp]).
//
// The hashed buffer, 39 * 32 = 1248 bytes:
//   replica_id (32) | layer as u32 big-endian (4) | node as u64 big-endian (8) | 20 zero bytes |
//   37 parent labels of 32 bytes each
// The label is SHA-256 of it with the top two bits of the last byte cleared: a 32-byte
// little-endian Fr element. Parents repeat to make 37: a layer-1 node has 6 (base) parents,
// taken 6 times then the first once more; a later layer has 14 (6 base, 8 expander), taken
// twice then the first 9.
//
// The circuit costs 532,025 constraints in rust-fil-proofs' test_create_label setup (replica
// id and 37 parents allocated as bits: 9,728 of them; then 20 SHA-256 blocks and the packing).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gadgets/boolean.hpp"
#include "gadgets/num.hpp"
#include "gadgets/sha256.hpp"
#include "gadgets/uint32.hpp"
#include "porep/vanilla_proof.hpp"

namespace c2lab::porep {

inline constexpr size_t label_base_degree = 6;
inline constexpr size_t label_exp_degree = 8;
inline constexpr size_t label_total_parents = 37;
inline constexpr size_t label_buffer_bytes = (1 + 1 + label_total_parents) * 32;  // 1248

// The 37 parents that are hashed, from a node's 6 (layer 1) or 14 (later layers) parents,
// as rust-fil-proofs repeats them (stacked/circuit/params.rs, graph.rs); 37 are returned
// as they are.
template <class T>
std::vector<T> expand_label_parents(std::span<const T> parents) {
    std::vector<T> out;
    out.reserve(label_total_parents);
    if (parents.size() == label_total_parents) {
        out.assign(parents.begin(), parents.end());
    } else if (parents.size() == label_base_degree) {
        for (int r = 0; r < 6; ++r) out.insert(out.end(), parents.begin(), parents.end());  // 36
        out.push_back(parents[0]);                                                          // 37
    } else if (parents.size() == label_base_degree + label_exp_degree) {
        out.insert(out.end(), parents.begin(), parents.end());      // 14
        out.insert(out.end(), parents.begin(), parents.end());      // 28
        out.insert(out.end(), parents.begin(), parents.begin() + 9);  // 37
    } else {
        throw error(errc::bad_input, "label: " + std::to_string(parents.size()) +
                                         " parents (expected 6, 14 or 37)");
    }
    return out;
}

// The label gadget (create_label_circuit). replica_id: 32 to 256 bits, in hash order (the
// bytes of the little-endian encoding, most significant bit of each byte first), padded with
// zeros to 256; parents: 37 bit strings of at most 256 bits each, in the same order, each
// padded to 256. The digest bits are put back in little-endian order and the first 254
// packed ("result_num"). SHA-256 runs in namespace "hash".
template <class CS>
gadgets::allocated_num create_label_circuit(CS& cs, std::span<const gadgets::boolean> replica_id,
                                            std::span<const std::vector<gadgets::boolean>> parents,
                                            const gadgets::uint32& layer_index, const gadgets::uint64& node) {
    using gadgets::boolean;
    if (replica_id.size() < 32 || replica_id.size() > 256)
        throw error(errc::bad_input, "create_label_circuit: replica id of " + std::to_string(replica_id.size()) +
                                         " bits (expected 32 to 256)");
    if (parents.size() != label_total_parents)
        throw error(errc::bad_input, "create_label_circuit: " + std::to_string(parents.size()) +
                                         " parents (expected 37)");
    std::vector<boolean> buf;
    buf.reserve(label_buffer_bytes * 8);
    buf.assign(replica_id.begin(), replica_id.end());
    buf.resize(256, boolean::constant(false));
    for (const auto& b : layer_index.into_bits_be()) buf.push_back(b);
    for (const auto& b : node.to_bits_be()) buf.push_back(b);
    buf.resize(512, boolean::constant(false));
    for (const auto& p : parents) {
        buf.insert(buf.end(), p.begin(), p.end());
        while (buf.size() % 256 != 0) buf.push_back(boolean::constant(false));
    }
    if (buf.size() != label_buffer_bytes * 8)
        throw error(errc::bad_input, "create_label_circuit: a parent is longer than 256 bits");

    std::vector<boolean> digest;
    {
        gadgets::namespace_guard ns(cs, [] { return "hash"; });
        digest = gadgets::sha256(cs, buf);
    }
    std::vector<boolean> le = gadgets::reverse_bit_numbering(digest);
    gadgets::namespace_guard ns(cs, [] { return "result_num"; });
    return gadgets::pack_bits(cs, std::span<const boolean>(le).first(gadgets::fr_capacity));
}

// The native label (create_label / create_label_exp). parents: 6, 14 or 37 labels (see
// expand_label_parents). Node 0 has no parents in rust-fil-proofs: its label is SHA-256 of the
// first 64 bytes only, and `parents` is ignored (the circuit never proves node 0: challenges
// start at 1).
inline domain label_native(const domain& replica_id, uint32_t layer, uint64_t node, std::span<const domain> parents) {
    std::array<uint8_t, label_buffer_bytes> buf{};
    std::memcpy(buf.data(), replica_id.data(), 32);
    for (int i = 0; i < 4; ++i) buf[32 + i] = static_cast<uint8_t>(layer >> (8 * (3 - i)));
    for (int i = 0; i < 8; ++i) buf[36 + i] = static_cast<uint8_t>(node >> (8 * (7 - i)));
    size_t len = 64;
    if (node != 0) {
        const size_t n = parents.size();
        if (n != label_base_degree && n != label_base_degree + label_exp_degree && n != label_total_parents)
            throw error(errc::bad_input, "label_native: " + std::to_string(n) + " parents (expected 6, 14 or 37)");
        // parent i of the 37 is parents[i % n] for each of the three counts
        for (size_t i = 0; i < label_total_parents; ++i) std::memcpy(buf.data() + 64 + 32 * i, parents[i % n].data(), 32);
        len = label_buffer_bytes;
    }
    gadgets::sha256_digest d = gadgets::sha256_native(std::span<const uint8_t>(buf.data(), len));
    gadgets::trim_to_fr32(d);
    return d;
}

}  // namespace c2lab::porep

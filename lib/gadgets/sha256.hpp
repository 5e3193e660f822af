// SHA-256 in the circuit, with bellpepper's constraint layout
// (bellpepper crates/bellpepper/src/gadgets/sha256.rs), Filecoin's SHA-256 hasher circuits
// (rust-fil-proofs filecoin-hashers/src/sha256.rs: hash_circuit, hash2_circuit,
// hash_leaf_bits_circuit: the digest's bytes read as a little-endian number, truncated to
// 254 bits and packed into one Fr) and their native twins over OpenSSL.
//
// Bit order: a message is a sequence of bits, most significant bit of each byte first, and
// the digest comes back the same way (256 bits, big-endian words).
//
// Counts: one compression of 512 allocated bits with the constant IV is 25840 constraints
// (bellpepper test_full_block); a padded one-block hash of 512 allocated bits 44874.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gadgets/boolean.hpp"
#include "gadgets/num.hpp"
#include "gadgets/uint32.hpp"

namespace c2lab::gadgets {

// FIPS 180-4, 4.2.2 and 5.3.3.
inline constexpr std::array<uint32_t, 64> sha256_round_constants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
inline constexpr std::array<uint32_t, 8> sha256_iv_words = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

using sha256_state = std::array<uint32, 8>;
using sha256_digest = std::array<uint8_t, 32>;

// The IV as constant words.
inline sha256_state sha256_iv() noexcept {
    sha256_state s;
    for (size_t i = 0; i < 8; ++i) s[i] = uint32::constant(sha256_iv_words[i]);
    return s;
}

namespace detail {

// A word that is either known as bits or still a list of operands to add (bellpepper's
// Maybe::Deferred): the additions that make a and e are merged with the next ones.
struct deferred_word {
    uint32 concrete;
    std::array<uint32, 8> ops;
    size_t n_ops = 0;  // 0: concrete

    static deferred_word of(const uint32& w) {
        deferred_word d;
        d.concrete = w;
        return d;
    }
    template <class CS>
    uint32 compute(multieq<CS>& cs, std::span<const uint32> others) {
        if (n_ops == 0) return concrete;
        for (const auto& o : others) ops[n_ops++] = o;
        return uint32::addmany(cs, std::span<const uint32>(ops.data(), n_ops));
    }
};

}  // namespace detail

// The SHA-256 compression of one 512-bit block (most significant bit of each word first)
// into `current` (bellpepper sha256_compression_function).
template <class CS>
sha256_state sha256_compression_function(CS& outer, std::span<const boolean> input, const sha256_state& current) {
    if (input.size() != 512) throw error(errc::internal, "sha256_compression_function: needs 512 input bits");
    std::array<uint32, 64> w;
    for (size_t i = 0; i < 16; ++i) w[i] = uint32::from_bits_be(input.subspan(32 * i, 32));

    multieq<CS> cs(outer);
    for (size_t i = 16; i < 64; ++i) {
        namespace_guard ns(cs, [i] { return "w extension " + std::to_string(i); });
        uint32 s0 = w[i - 15].rotr(7);
        {
            namespace_guard n2(cs, [] { return "first xor for s0"; });
            s0 = s0.xor_with(cs, w[i - 15].rotr(18));
        }
        {
            namespace_guard n2(cs, [] { return "second xor for s0"; });
            s0 = s0.xor_with(cs, w[i - 15].shr(3));
        }
        uint32 s1 = w[i - 2].rotr(17);
        {
            namespace_guard n2(cs, [] { return "first xor for s1"; });
            s1 = s1.xor_with(cs, w[i - 2].rotr(19));
        }
        {
            namespace_guard n2(cs, [] { return "second xor for s1"; });
            s1 = s1.xor_with(cs, w[i - 2].shr(10));
        }
        namespace_guard n2(cs, [] { return "computation of w[i]"; });
        const std::array<uint32, 4> ops = {w[i - 16], s0, w[i - 7], s1};
        w[i] = uint32::addmany(cs, std::span<const uint32>(ops));
    }

    detail::deferred_word a = detail::deferred_word::of(current[0]);
    uint32 b = current[1], c = current[2], d = current[3];
    detail::deferred_word e = detail::deferred_word::of(current[4]);
    uint32 f = current[5], g = current[6], h = current[7];

    for (size_t i = 0; i < 64; ++i) {
        namespace_guard ns(cs, [i] { return "compression round " + std::to_string(i); });
        uint32 new_e;
        {
            namespace_guard n2(cs, [] { return "deferred e computation"; });
            new_e = e.compute(cs, {});
        }
        uint32 s1 = new_e.rotr(6);
        {
            namespace_guard n2(cs, [] { return "first xor for s1"; });
            s1 = s1.xor_with(cs, new_e.rotr(11));
        }
        {
            namespace_guard n2(cs, [] { return "second xor for s1"; });
            s1 = s1.xor_with(cs, new_e.rotr(25));
        }
        uint32 ch;
        {
            namespace_guard n2(cs, [] { return "ch"; });
            ch = uint32::sha256_ch(cs, new_e, f, g);
        }
        // temp1 = h + S1 + ch + k[i] + w[i]
        const std::array<uint32, 5> temp1 = {h, s1, ch, uint32::constant(sha256_round_constants[i]), w[i]};

        uint32 new_a;
        {
            namespace_guard n2(cs, [] { return "deferred a computation"; });
            new_a = a.compute(cs, {});
        }
        uint32 s0 = new_a.rotr(2);
        {
            namespace_guard n2(cs, [] { return "first xor for s0"; });
            s0 = s0.xor_with(cs, new_a.rotr(13));
        }
        {
            namespace_guard n2(cs, [] { return "second xor for s0"; });
            s0 = s0.xor_with(cs, new_a.rotr(22));
        }
        uint32 maj;
        {
            namespace_guard n2(cs, [] { return "maj"; });
            maj = uint32::sha256_maj(cs, new_a, b, c);
        }
        // temp2 = S0 + maj

        h = g;
        g = f;
        f = new_e;
        // e = d + temp1, a = temp1 + temp2, both deferred
        e.n_ops = 0;
        for (const auto& t : temp1) e.ops[e.n_ops++] = t;
        e.ops[e.n_ops++] = d;
        d = c;
        c = b;
        b = new_a;
        a.n_ops = 0;
        for (const auto& t : temp1) a.ops[a.n_ops++] = t;
        a.ops[a.n_ops++] = s0;
        a.ops[a.n_ops++] = maj;
    }

    sha256_state out;
    {
        namespace_guard ns(cs, [] { return "deferred h0 computation"; });
        out[0] = a.compute(cs, std::span<const uint32>(&current[0], 1));
    }
    auto add2 = [&](size_t k, const uint32& x, const char* name) {
        namespace_guard ns(cs, [name] { return name; });
        const std::array<uint32, 2> ops = {current[k], x};
        out[k] = uint32::addmany(cs, std::span<const uint32>(ops));
    };
    add2(1, b, "new h1");
    add2(2, c, "new h2");
    add2(3, d, "new h3");
    {
        namespace_guard ns(cs, [] { return "deferred h4 computation"; });
        out[4] = e.compute(cs, std::span<const uint32>(&current[4], 1));
    }
    add2(5, f, "new h5");
    add2(6, g, "new h6");
    add2(7, h, "new h7");
    cs.finish();
    return out;
}

// The 256 digest bits, most significant first, of a state.
inline std::vector<boolean> sha256_state_bits_be(const sha256_state& s) {
    std::vector<boolean> out;
    out.reserve(256);
    for (const auto& word : s)
        for (const auto& b : word.into_bits_be()) out.push_back(b);
    return out;
}

// One compression of a 512-bit block with the IV, no padding (bellpepper
// sha256_block_no_padding).
template <class CS>
std::vector<boolean> sha256_block_no_padding(CS& cs, std::span<const boolean> input) {
    if (input.size() != 512) throw error(errc::internal, "sha256_block_no_padding: needs 512 input bits");
    return sha256_state_bits_be(sha256_compression_function(cs, input, sha256_iv()));
}

// SHA-256 of a message of whole bytes with the standard padding (constant bits), block i in
// namespace "block <i>" (bellpepper sha256). Returns the 256 digest bits.
template <class CS>
std::vector<boolean> sha256(CS& cs, std::span<const boolean> input) {
    if (input.size() % 8 != 0)
        throw error(errc::bad_input, "sha256 gadget: message of " + std::to_string(input.size()) +
                                         " bits is not whole bytes");
    std::vector<boolean> padded;
    padded.reserve((input.size() + 1 + 64 + 511) / 512 * 512);
    padded.assign(input.begin(), input.end());
    const uint64_t len = input.size();
    padded.push_back(boolean::constant(true));
    while ((padded.size() + 64) % 512 != 0) padded.push_back(boolean::constant(false));
    for (int i = 63; i >= 0; --i) padded.push_back(boolean::constant(((len >> i) & 1) != 0));

    sha256_state cur = sha256_iv();
    for (size_t i = 0; i * 512 < padded.size(); ++i) {
        namespace_guard ns(cs, [i] { return "block " + std::to_string(i); });
        cur = sha256_compression_function(cs, std::span<const boolean>(padded).subspan(512 * i, 512), cur);
    }
    return sha256_state_bits_be(cur);
}

// Filecoin's SHA-256 hasher circuit (filecoin-hashers Sha256Hasher::hash_circuit): the
// digest in namespace "hash", its bytes read as a little-endian number, the first 254 bits
// packed in namespace "pack_le".
template <class CS>
allocated_num sha256_hash_circuit(CS& cs, std::span<const boolean> bits) {
    std::vector<boolean> be;
    {
        namespace_guard ns(cs, [] { return "hash"; });
        be = sha256(cs, bits);
    }
    std::vector<boolean> le = reverse_bit_numbering(be);
    namespace_guard ns(cs, [] { return "pack_le"; });
    return pack_bits(cs, std::span<const boolean>(le).first(fr_capacity));
}

// Sha256Hasher::hash_leaf_bits_circuit: two little-endian bit strings, each padded to whole
// bytes and put in byte order (reverse_bit_numbering), then hash_circuit.
template <class CS>
allocated_num sha256_hash_leaf_bits_circuit(CS& cs, std::span<const boolean> left, std::span<const boolean> right) {
    std::vector<boolean> preimage = reverse_bit_numbering(left);
    std::vector<boolean> r = reverse_bit_numbering(right);
    preimage.insert(preimage.end(), r.begin(), r.end());
    return sha256_hash_circuit(cs, preimage);
}

// Sha256Hasher::hash2_circuit: SHA-256 of the 32-byte little-endian encodings of a and b
// (to_bits_le in namespaces "a_bits" and "b_bits"), truncated to 254 bits. The bits are
// not range-checked, as in rust-fil-proofs.
template <class CS>
allocated_num sha256_hash2_circuit(CS& cs, const allocated_num& a, const allocated_num& b) {
    std::vector<boolean> a_bits, b_bits;
    {
        namespace_guard ns(cs, [] { return "a_bits"; });
        a_bits = a.to_bits_le(cs);
    }
    {
        namespace_guard ns(cs, [] { return "b_bits"; });
        b_bits = b.to_bits_le(cs);
    }
    return sha256_hash_leaf_bits_circuit(cs, a_bits, b_bits);
}

// ---- native ------------------------------------------------------------------------------

// SHA-256 of bytes (OpenSSL).
sha256_digest sha256_native(std::span<const uint8_t> data);

// Clears the top two bits of the last byte, so that the digest read as a little-endian
// number is below 2^254 < r (Sha256Domain::trim_to_fr32).
inline void trim_to_fr32(sha256_digest& d) noexcept { d[31] &= 0x3f; }

// Sha256Function::hash2: SHA-256(a || b), trimmed to 254 bits. a and b are 32-byte
// little-endian field elements (porep domains).
sha256_digest sha256_hash2_native(const std::array<uint8_t, 32>& a, const std::array<uint8_t, 32>& b);

}  // namespace c2lab::gadgets

// The StackedDRG graph of rust-fil-proofs and the PoRep challenges:
//  - chacha_rng: rand_chacha 0.3 ChaCha{8,20}Rng with rand_core 0.6 BlockRng buffering;
//  - feistel_*: storage-proofs-core/src/crypto/feistel.rs (BLAKE2b-512 round function);
//  - stacked_graph: drgraph.rs BucketGraph (6 base parents) and
//    storage-proofs-porep/src/stacked/vanilla/graph.rs StackedGraph (8 expansion parents),
//    computed per node (no parent cache);
//  - derive_challenges: storage-proofs-porep/src/stacked/vanilla/challenges.rs
//    InteractiveChallenges::derive.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "porep/params.hpp"
#include "porep/vanilla_proof.hpp"

namespace c2lab::porep {

// ---- ChaCha ----

// One ChaCha block (Bernstein's layout: 64-bit block counter in words 12..13, 64-bit
// stream id / nonce in words 14..15), `rounds` even; out = the 16 keystream words.
void chacha_block(const std::array<uint32_t, 8>& key, uint64_t counter, uint64_t stream, unsigned rounds,
                  std::array<uint32_t, 16>& out) noexcept;

// rand_chacha ChaChaXRng::from_seed (stream 0, counter 0) behind rand_core's BlockRng: a
// buffer of 64 words (4 blocks, rand_chacha BUF_BLOCKS), refilled when used up; next_u64
// reads two words low first, and straddles a refill as BlockRng::next_u64 does.
template <unsigned Rounds>
class chacha_rng {
public:
    explicit chacha_rng(const std::array<uint8_t, 32>& seed) noexcept {
        for (int i = 0; i < 8; ++i)
            key_[i] = uint32_t(seed[4 * i]) | uint32_t(seed[4 * i + 1]) << 8 | uint32_t(seed[4 * i + 2]) << 16 |
                      uint32_t(seed[4 * i + 3]) << 24;
    }
    static chacha_rng from_seed(const std::array<uint8_t, 32>& seed) noexcept { return chacha_rng(seed); }

    uint32_t next_u32() noexcept {
        if (index_ >= buffer_words) refill(0);
        return results_[index_++];
    }
    uint64_t next_u64() noexcept {
        if (index_ < buffer_words - 1) {
            const uint64_t v = uint64_t(results_[index_ + 1]) << 32 | results_[index_];
            index_ += 2;
            return v;
        }
        if (index_ >= buffer_words) {
            refill(2);
            return uint64_t(results_[1]) << 32 | results_[0];
        }
        const uint64_t lo = results_[buffer_words - 1];
        refill(1);
        return uint64_t(results_[0]) << 32 | lo;
    }

private:
    static constexpr unsigned buffer_words = 64;
    void refill(unsigned index) noexcept {
        std::array<uint32_t, 16> block;
        for (unsigned b = 0; b < 4; ++b) {
            chacha_block(key_, counter_ + b, 0, Rounds, block);
            for (unsigned w = 0; w < 16; ++w) results_[16 * b + w] = block[w];
        }
        counter_ += 4;
        index_ = index;
    }

    std::array<uint32_t, 8> key_{};
    uint64_t counter_ = 0;
    std::array<uint32_t, buffer_words> results_{};
    unsigned index_ = buffer_words;
};
using chacha8_rng = chacha_rng<8>;
using chacha20_rng = chacha_rng<20>;

// ---- hashes ----

// BLAKE2b with a 64-byte digest (blake2b_simd::blake2b's default), via OpenSSL.
std::array<uint8_t, 64> blake2b_512(std::span<const uint8_t> data);
std::array<uint8_t, 32> sha256_digest(std::span<const uint8_t> data);

// ---- seeds (storage-proofs-core/src/crypto/mod.rs, drgraph.rs, stacked/vanilla/graph.rs) ----

inline constexpr std::string_view drsample_dst = "Filecoin_DRSample";
inline constexpr std::string_view feistel_dst = "Filecoin_Feistel";

// SHA-256(dst || porep_id).
std::array<uint8_t, 32> derive_porep_domain_seed(std::string_view dst, const porep_id_bytes& porep_id);
// The first 28 bytes of the DRSample seed (derive_drg_seed).
std::array<uint8_t, 28> derive_drg_seed(const porep_id_bytes& porep_id);
// The Feistel seed as four u64 LE (derive_feistel_keys).
std::array<uint64_t, 4> derive_feistel_keys(const porep_id_bytes& porep_id);

// ---- Feistel permutation (storage-proofs-core/src/crypto/feistel.rs) ----

inline constexpr unsigned feistel_rounds = 3;  // FEISTEL_ROUNDS; only keys[0..3) are used

struct feistel_precomputed {
    uint64_t left_mask = 0;
    uint64_t right_mask = 0;
    uint64_t half_bits = 0;
};
// The smallest 4^k >= num_elements (k >= 1) split in two halves of k bits.
feistel_precomputed feistel_precompute(uint64_t num_elements) noexcept;
// One pass of the network over the 2k-bit domain (feistel.rs encode / decode).
uint64_t feistel_encode(uint64_t index, const std::array<uint64_t, 4>& keys, const feistel_precomputed& p);
uint64_t feistel_decode(uint64_t index, const std::array<uint64_t, 4>& keys, const feistel_precomputed& p);
// A permutation of [0, num_elements) by cycle walking (permute / invert_permute).
uint64_t feistel_permute(uint64_t num_elements, uint64_t index, const std::array<uint64_t, 4>& keys,
                         const feistel_precomputed& p);
uint64_t feistel_invert_permute(uint64_t num_elements, uint64_t index, const std::array<uint64_t, 4>& keys,
                                const feistel_precomputed& p);

// ---- the graph ----

class stacked_graph {
public:
    // nodes in [2, 2^32); throws c2lab::error(errc::bad_input) otherwise.
    stacked_graph(uint64_t nodes, const porep_id_bytes& porep_id, api_version api);
    explicit stacked_graph(const porep_config& config);

    uint64_t nodes() const noexcept { return nodes_; }
    api_version api() const noexcept { return api_; }
    const std::array<uint8_t, 28>& drg_seed() const noexcept { return drg_seed_; }
    const std::array<uint64_t, 4>& feistel_keys() const noexcept { return feistel_keys_; }

    // BucketGraph::parents. Nodes 0 and 1: all six are 0. Otherwise the predecessor node - 1
    // is parents[0] (V1_1_0, V1_2_0) or parents[5] (V1_0_0), the other five bucket-sampled
    // with a ChaCha8Rng seeded by drg_seed || node (u32 LE); every parent < node.
    void base_parents(uint64_t node, std::span<uint32_t, base_degree> parents) const;
    // StackedGraph::expanded_parents: correspondent(node, i) = feistel_permute(8 * nodes,
    // 8 * node + i) / 8 for i = 0..7; any node of the previous layer (even >= node).
    void expansion_parents(uint64_t node, std::span<uint32_t, expansion_degree> parents) const;
    // StackedGraph::parents: base parents in [0, 6), expansion parents in [6, 14).
    void parents(uint64_t node, std::span<uint32_t, total_degree> parents) const;

private:
    uint64_t nodes_;
    api_version api_;
    std::array<uint8_t, 28> drg_seed_;
    std::array<uint64_t, 4> feistel_keys_;
    feistel_precomputed feistel_;
};

// The 37 parent labels hashed into a node's label (graph.rs copy_parents_data_inner{,_exp},
// create_label/single.rs): slots index parents() as returned. Layer 1 hashes the six base
// parents six times and then parents[0]; later layers hash all 14 twice and then
// parents[0..9). Base parents are read from the layer being labelled, expansion parents
// (slots with index >= 6) from the previous layer. Node 0 hashes no parents.
inline constexpr uint32_t label_parent_count = 37;
std::array<uint8_t, label_parent_count> label_parent_slots(uint32_t layer) noexcept;

// ---- challenges ----

// InteractiveChallenges::derive for partition k: for i in [0, challenges_per_partition),
// j = challenges_per_partition * k + i (u32) and challenge = SHA-256(replica_id || seed ||
// j LE) read as a little-endian integer, mod (nodes - 1), + 1: in [1, nodes).
std::vector<uint64_t> derive_challenges(uint64_t nodes, uint32_t challenges_per_partition, const domain& replica_id,
                                        const std::array<uint8_t, 32>& seed, uint32_t partition);
// The same with nodes and challenges_per_partition of the config; partition must be
// < config.partitions (c2lab::error(errc::bad_input) otherwise).
std::vector<uint64_t> derive_challenges(const porep_config& config, const domain& replica_id,
                                        const std::array<uint8_t, 32>& seed, uint32_t partition);

}  // namespace c2lab::porep

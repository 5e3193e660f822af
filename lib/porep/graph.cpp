// StackedDRG graph, Feistel permutation, ChaCha8 and PoRep challenges after rust-fil-proofs
// (storage-proofs-core/src/{drgraph.rs,crypto/mod.rs,crypto/feistel.rs},
// storage-proofs-porep/src/stacked/vanilla/{graph.rs,challenges.rs}) and rand_chacha 0.3.1 /
// rand_core 0.6 (rust-random/rand: rand_chacha/src/{chacha.rs,guts.rs}, rand_core/src/block.rs).
//
// Checked: the SHA-256 of the whole parent cache (every node's 14 parents, u32 LE) and the
// cache file name equal the entries of storage-proofs-porep/parent_cache.json for 2 KiB
// (V1_0_0, V1_1_0) and 8 MiB (V1_1_0) in graph_test.cpp, and, by a one-off run, for 8 MiB
// (V1_0_0) and 512 MiB (V1_1_0); 32 and 64 GiB (2^30, 2^31 nodes) were not run in full.
//
// Deviations from rust-fil-proofs (none changes a parent or a challenge):
//  - No parent cache: parents are computed per node on demand (graph.rs without ParentCache).
//  - n_buckets = ceil(log2(node * 5)) is computed on integers (bit width of node * 5 - 1)
//    instead of through f64 log2. Equal for every graph of at most 2^32 nodes (metagraph
//    nodes < 2^35): just above 2^k, log2 exceeds k by about 1 / (x ln 2), far more than the
//    f64 rounding error there (tested against std::log2 up to 2^35).
//  - The ChaCha8 buffer is refilled by a portable block function (4 blocks per refill, as
//    rand_chacha's refill4); the keystream and the BlockRng index logic are the same.
//  - Input checks that rust-fil-proofs leaves to its callers or to debug asserts: a node must
//    be < nodes, nodes must be in [2, 2^32), a partition must be < 256 (rust-fil-proofs
//    casts k to u8) and, with a porep_config, < its partitions; violations throw
//    c2lab::error(errc::bad_input).
//  - Only the interactive challenges (InteractiveChallenges) are derived: the synthetic and
//    non-interactive PoRep challenge schemes are not implemented.
#include "porep/graph.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace c2lab::porep {

namespace {

constexpr uint32_t rotl32(uint32_t x, int k) noexcept { return (x << k) | (x >> (32 - k)); }

inline void quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) noexcept {
    a += b; d ^= a; d = rotl32(d, 16);
    c += d; b ^= c; b = rotl32(b, 12);
    a += b; d ^= a; d = rotl32(d, 8);
    c += d; b ^= c; b = rotl32(b, 7);
}

// A digest context per thread with the algorithm fetched once: parents() is called per node,
// from several threads, and an implicit fetch per call would dominate the cost.
struct md_ctx_deleter {
    void operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }
};

const EVP_MD* blake2b_md() {
    static const EVP_MD* md = [] {
        const EVP_MD* m = EVP_MD_fetch(nullptr, "BLAKE2B-512", nullptr);
        return m ? m : EVP_blake2b512();
    }();
    return md;
}

EVP_MD_CTX* thread_ctx() {
    thread_local std::unique_ptr<EVP_MD_CTX, md_ctx_deleter> ctx(EVP_MD_CTX_new());
    if (!ctx) throw error(errc::resource, "graph: EVP_MD_CTX_new failed");
    return ctx.get();
}

template <size_t N>
void digest(const EVP_MD* md, std::span<const uint8_t> a, std::span<const uint8_t> b, std::array<uint8_t, N>& out) {
    EVP_MD_CTX* ctx = thread_ctx();
    unsigned len = 0;
    if (EVP_DigestInit_ex(ctx, md, nullptr) != 1 || EVP_DigestUpdate(ctx, a.data(), a.size()) != 1 ||
        (!b.empty() && EVP_DigestUpdate(ctx, b.data(), b.size()) != 1) ||
        EVP_DigestFinal_ex(ctx, out.data(), &len) != 1 || len != N)
        throw error(errc::internal, "graph: OpenSSL digest failed");
}

// feistel.rs feistel(): BLAKE2b-512 of right (u64 BE) || key (u64 BE); the first 8 digest
// bytes read big-endian, masked to the right half.
uint64_t feistel_round(uint64_t right, uint64_t key, uint64_t right_mask) {
    std::array<uint8_t, 16> data;
    for (int i = 0; i < 8; ++i) {
        data[i] = static_cast<uint8_t>(right >> (56 - 8 * i));
        data[8 + i] = static_cast<uint8_t>(key >> (56 - 8 * i));
    }
    std::array<uint8_t, 64> h;
    digest(blake2b_md(), data, {}, h);
    uint64_t r = 0;
    for (int i = 0; i < 8; ++i) r = (r << 8) | h[i];
    return r & right_mask;
}

void check_node(uint64_t node, uint64_t nodes) {
    if (node >= nodes)
        throw error(errc::bad_input, "graph: node " + std::to_string(node) + " is out of range (the graph has " +
                                         std::to_string(nodes) + " nodes)");
}

}  // namespace

void chacha_block(const std::array<uint32_t, 8>& key, uint64_t counter, uint64_t stream, unsigned rounds,
                  std::array<uint32_t, 16>& out) noexcept {
    // "expand 32-byte k", key, counter (lo, hi), stream (lo, hi): rand_chacha guts.rs init_chacha.
    const std::array<uint32_t, 16> s = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,
                                        key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
                                        static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32),
                                        static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
    std::array<uint32_t, 16> x = s;
    for (unsigned r = 0; r < rounds; r += 2) {
        quarter_round(x[0], x[4], x[8], x[12]);
        quarter_round(x[1], x[5], x[9], x[13]);
        quarter_round(x[2], x[6], x[10], x[14]);
        quarter_round(x[3], x[7], x[11], x[15]);
        quarter_round(x[0], x[5], x[10], x[15]);
        quarter_round(x[1], x[6], x[11], x[12]);
        quarter_round(x[2], x[7], x[8], x[13]);
        quarter_round(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; ++i) out[i] = x[i] + s[i];
}

std::array<uint8_t, 64> blake2b_512(std::span<const uint8_t> data) {
    std::array<uint8_t, 64> out;
    digest(blake2b_md(), data, {}, out);
    return out;
}

std::array<uint8_t, 32> sha256_digest(std::span<const uint8_t> data) {
    std::array<uint8_t, 32> out;
    digest(EVP_sha256(), data, {}, out);
    return out;
}

std::array<uint8_t, 32> derive_porep_domain_seed(std::string_view dst, const porep_id_bytes& porep_id) {
    std::array<uint8_t, 32> out;
    digest(EVP_sha256(), std::span(reinterpret_cast<const uint8_t*>(dst.data()), dst.size()), porep_id, out);
    return out;
}

std::array<uint8_t, 28> derive_drg_seed(const porep_id_bytes& porep_id) {
    const auto raw = derive_porep_domain_seed(drsample_dst, porep_id);
    std::array<uint8_t, 28> seed;
    std::copy_n(raw.begin(), 28, seed.begin());
    return seed;
}

std::array<uint64_t, 4> derive_feistel_keys(const porep_id_bytes& porep_id) {
    const auto raw = derive_porep_domain_seed(feistel_dst, porep_id);
    std::array<uint64_t, 4> keys{};
    for (int k = 0; k < 4; ++k)
        for (int i = 7; i >= 0; --i) keys[k] = (keys[k] << 8) | raw[8 * k + i];
    return keys;
}

feistel_precomputed feistel_precompute(uint64_t num_elements) noexcept {
    uint64_t next_pow4 = 4;
    uint64_t log4 = 1;
    while (next_pow4 < num_elements) {
        next_pow4 *= 4;
        ++log4;
    }
    feistel_precomputed p;
    p.right_mask = (uint64_t{1} << log4) - 1;
    p.left_mask = p.right_mask << log4;
    p.half_bits = log4;
    return p;
}

uint64_t feistel_encode(uint64_t index, const std::array<uint64_t, 4>& keys, const feistel_precomputed& p) {
    uint64_t left = (index & p.left_mask) >> p.half_bits;
    uint64_t right = index & p.right_mask;
    for (unsigned i = 0; i < feistel_rounds; ++i) {
        const uint64_t l = right;
        const uint64_t r = left ^ feistel_round(right, keys[i], p.right_mask);
        left = l;
        right = r;
    }
    return (left << p.half_bits) | right;
}

uint64_t feistel_decode(uint64_t index, const std::array<uint64_t, 4>& keys, const feistel_precomputed& p) {
    uint64_t left = (index & p.left_mask) >> p.half_bits;
    uint64_t right = index & p.right_mask;
    for (unsigned i = feistel_rounds; i-- > 0;) {
        const uint64_t l = right ^ feistel_round(left, keys[i], p.right_mask);
        const uint64_t r = left;
        left = l;
        right = r;
    }
    return (left << p.half_bits) | right;
}

uint64_t feistel_permute(uint64_t num_elements, uint64_t index, const std::array<uint64_t, 4>& keys,
                         const feistel_precomputed& p) {
    uint64_t u = feistel_encode(index, keys, p);
    while (u >= num_elements) u = feistel_encode(u, keys, p);  // cycle walking back into range
    return u;
}

uint64_t feistel_invert_permute(uint64_t num_elements, uint64_t index, const std::array<uint64_t, 4>& keys,
                                const feistel_precomputed& p) {
    uint64_t u = feistel_decode(index, keys, p);
    while (u >= num_elements) u = feistel_decode(u, keys, p);
    return u;
}

stacked_graph::stacked_graph(uint64_t nodes, const porep_id_bytes& porep_id, api_version api)
    : nodes_(nodes), api_(api), drg_seed_(derive_drg_seed(porep_id)), feistel_keys_(derive_feistel_keys(porep_id)) {
    // graph.rs StackedGraph::new: nodes <= u32::MAX. Below 2 nodes there are no challenges.
    if (nodes < 2 || nodes > UINT32_MAX)
        throw error(errc::bad_input, "graph: " + std::to_string(nodes) + " nodes is out of range [2, 2^32)");
    feistel_ = feistel_precompute(nodes * expansion_degree);
}

stacked_graph::stacked_graph(const porep_config& config) : stacked_graph(config.nodes, config.porep_id, config.api) {}

void stacked_graph::base_parents(uint64_t node, std::span<uint32_t, base_degree> parents) const {
    check_node(node, nodes_);
    // drgraph.rs BucketGraph::parents: nodes 0 and 1 have only node 0 as parent.
    if (node < 2) {
        std::fill(parents.begin(), parents.end(), 0u);
        return;
    }
    const uint32_t n = static_cast<uint32_t>(node);
    std::array<uint8_t, 32> seed;
    std::copy(drg_seed_.begin(), drg_seed_.end(), seed.begin());
    for (int i = 0; i < 4; ++i) seed[28 + i] = static_cast<uint8_t>(n >> (8 * i));
    chacha8_rng rng(seed);

    constexpr uint64_t m_prime = base_degree - 1;
    const uint64_t metagraph_node = uint64_t{n} * m_prime;
    // ceil(log2(metagraph_node)) for metagraph_node >= 10.
    const uint64_t n_buckets = static_cast<uint64_t>(std::bit_width(metagraph_node - 1));

    const bool legacy = api_ == api_version::v1_0_0;
    const size_t first = legacy ? 0 : 1;  // V1_0_0 fills [0, 5), later versions [1, 6)
    // rng.gen::<u64>() is next_u64 (rand 0.8 Standard); drgraph.rs reduces it with %, not gen_range.
    for (size_t k = 0; k < m_prime; ++k) {
        const uint64_t bucket_index = (rng.next_u64() % n_buckets) + 1;
        const uint64_t largest = std::min(metagraph_node, uint64_t{1} << bucket_index);
        const uint64_t smallest = std::max<uint64_t>(2, largest >> 1);
        const uint64_t n_distances = largest - smallest + 1;
        const uint64_t distance = smallest + (rng.next_u64() % n_distances);
        const uint64_t metagraph_parent = metagraph_node - distance;
        const uint32_t mapped = static_cast<uint32_t>(metagraph_parent / m_prime);
        parents[first + k] = mapped == n ? n - 1 : mapped;
    }
    parents[legacy ? m_prime : 0] = n - 1;  // the immediate predecessor
}

void stacked_graph::expansion_parents(uint64_t node, std::span<uint32_t, expansion_degree> parents) const {
    check_node(node, nodes_);
    const uint64_t domain_size = nodes_ * expansion_degree;
    for (uint32_t i = 0; i < expansion_degree; ++i) {
        // graph.rs correspondent(node, i).
        const uint64_t a = node * expansion_degree + i;
        const uint64_t transformed = feistel_permute(domain_size, a, feistel_keys_, feistel_);
        if (api_ == api_version::v1_0_0)
            parents[i] = static_cast<uint32_t>(transformed) / expansion_degree;  // the legacy u32 truncation
        else
            parents[i] = static_cast<uint32_t>(transformed / expansion_degree);
    }
}

void stacked_graph::parents(uint64_t node, std::span<uint32_t, total_degree> parents) const {
    base_parents(node, parents.subspan<0, base_degree>());
    expansion_parents(node, parents.subspan<base_degree, expansion_degree>());
}

std::array<uint8_t, label_parent_count> label_parent_slots(uint32_t layer) noexcept {
    std::array<uint8_t, label_parent_count> slots{};
    if (layer <= 1) {
        for (uint32_t i = 0; i < 36; ++i) slots[i] = static_cast<uint8_t>(i % base_degree);
        slots[36] = 0;
    } else {
        for (uint32_t i = 0; i < 28; ++i) slots[i] = static_cast<uint8_t>(i % total_degree);
        for (uint32_t i = 28; i < 37; ++i) slots[i] = static_cast<uint8_t>(i - 28);
    }
    return slots;
}

std::vector<uint64_t> derive_challenges(uint64_t nodes, uint32_t challenges_per_partition, const domain& replica_id,
                                        const std::array<uint8_t, 32>& seed, uint32_t partition) {
    if (nodes < 2 || nodes > UINT32_MAX)
        throw error(errc::bad_input, "challenges: " + std::to_string(nodes) + " nodes is out of range [2, 2^32)");
    if (partition > 255)
        throw error(errc::bad_input, "challenges: partition " + std::to_string(partition) + " is above 255");
    const uint64_t modulus = nodes - 1;
    std::vector<uint64_t> out;
    out.reserve(challenges_per_partition);
    std::array<uint8_t, 68> input;
    std::copy(replica_id.begin(), replica_id.end(), input.begin());
    std::copy(seed.begin(), seed.end(), input.begin() + 32);
    for (uint32_t i = 0; i < challenges_per_partition; ++i) {
        const uint32_t j = challenges_per_partition * partition + i;
        for (int b = 0; b < 4; ++b) input[64 + b] = static_cast<uint8_t>(j >> (8 * b));
        const auto hash = sha256_digest(input);
        // The digest as a 256-bit little-endian integer (BigUint::from_bytes_le), reduced mod
        // (nodes - 1) in 32-bit limbs from the most significant end (modulus < 2^32).
        uint64_t rem = 0;
        for (int limb = 7; limb >= 0; --limb) {
            uint64_t w = 0;
            for (int b = 3; b >= 0; --b) w = (w << 8) | hash[4 * limb + b];
            rem = ((rem << 32) | w) % modulus;
        }
        out.push_back(rem + 1);
    }
    return out;
}

std::vector<uint64_t> derive_challenges(const porep_config& config, const domain& replica_id,
                                        const std::array<uint8_t, 32>& seed, uint32_t partition) {
    if (partition >= config.partitions)
        throw error(errc::bad_input, "challenges: partition " + std::to_string(partition) + " is out of range (" +
                                         config.registered_proof + " has " + std::to_string(config.partitions) +
                                         " partitions)");
    return derive_challenges(config.nodes, config.challenges_per_partition, replica_id, seed, partition);
}

}  // namespace c2lab::porep

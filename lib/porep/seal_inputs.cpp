#include "porep/seal_inputs.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/hex.hpp"
#include "core/parallel.hpp"

namespace c2lab::porep {

namespace {

struct sha256_stream {
    struct deleter {
        void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
    };
    std::unique_ptr<EVP_MD_CTX, deleter> ctx{EVP_MD_CTX_new()};
    sha256_stream() {
        if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
            throw error(errc::internal, "sha256: OpenSSL init failed");
    }
    void update(std::span<const uint8_t> data) {
        if (!data.empty() && EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1)
            throw error(errc::internal, "sha256: OpenSSL update failed");
    }
    bytes32 finish() {
        bytes32 out;
        unsigned len = 0;
        if (EVP_DigestFinal_ex(ctx.get(), out.data(), &len) != 1 || len != out.size())
            throw error(errc::internal, "sha256: OpenSSL final failed");
        return out;
    }
};

}  // namespace

domain derive_replica_id(const bytes32& prover_id, uint64_t sector_id, const bytes32& ticket, const domain& comm_d,
                         const porep_id_bytes& porep_id) {
    std::array<uint8_t, 8> sector_be;
    for (int i = 0; i < 8; ++i) sector_be[i] = static_cast<uint8_t>(sector_id >> (56 - 8 * i));
    sha256_stream h;
    h.update(prover_id);
    h.update(sector_be);
    h.update(ticket);
    h.update(comm_d);
    h.update(porep_id);
    domain d = h.finish();
    d[31] &= 0x3f;
    return d;
}

std::vector<std::vector<uint64_t>> derive_all_challenges(const porep_config& cfg, const domain& replica_id,
                                                         const bytes32& seed) {
    std::vector<std::vector<uint64_t>> out;
    out.reserve(cfg.partitions);
    for (uint32_t k = 0; k < cfg.partitions; ++k) out.push_back(derive_challenges(cfg, replica_id, seed, k));
    return out;
}

void fill_parent_cache(const stacked_graph& graph, uint64_t first, uint64_t count, std::span<uint8_t> out) {
    if (out.size() != count * parent_cache_entry_bytes)
        throw error(errc::internal, "parent cache: output of " + std::to_string(out.size()) + " bytes for " +
                                        std::to_string(count) + " nodes");
    if (first > graph.nodes() || count > graph.nodes() - first)
        throw error(errc::bad_input, "parent cache: nodes [" + std::to_string(first) + ", " +
                                         std::to_string(first + count) + ") are outside the graph of " +
                                         std::to_string(graph.nodes()) + " nodes");
    parallel::for_chunks(count, 256, [&](size_t lo, size_t hi) {
        std::array<uint32_t, total_degree> p;
        for (size_t i = lo; i < hi; ++i) {
            graph.parents(first + i, std::span<uint32_t, total_degree>(p));
            uint8_t* o = out.data() + i * parent_cache_entry_bytes;
            for (uint32_t x : p) {
                o[0] = static_cast<uint8_t>(x);
                o[1] = static_cast<uint8_t>(x >> 8);
                o[2] = static_cast<uint8_t>(x >> 16);
                o[3] = static_cast<uint8_t>(x >> 24);
                o += 4;
            }
        }
    });
}

void stream_parent_cache(const stacked_graph& graph, const std::function<void(std::span<const uint8_t>)>& sink,
                         uint64_t batch_nodes) {
    if (batch_nodes == 0) batch_nodes = 1;
    std::vector<uint8_t> buf;
    for (uint64_t first = 0; first < graph.nodes(); first += batch_nodes) {
        const uint64_t count = std::min(batch_nodes, graph.nodes() - first);
        buf.resize(count * parent_cache_entry_bytes);
        fill_parent_cache(graph, first, count, buf);
        sink(buf);
    }
}

bytes32 parent_cache_digest(const stacked_graph& graph, const std::function<void(uint64_t nodes_done)>& progress) {
    sha256_stream h;
    uint64_t done = 0;
    stream_parent_cache(graph, [&](std::span<const uint8_t> piece) {
        h.update(piece);
        done += piece.size() / parent_cache_entry_bytes;
        if (progress) progress(done);
    });
    return h.finish();
}

std::string parent_cache_id(const stacked_graph& graph) {
    // Display of StackedGraph and BucketGraph (graph.rs, drgraph.rs) with the Poseidon hasher
    // of the V1 caches.
    const std::string hasher = "poseidon_hasher";
    const std::string ident = "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: " +
                              std::to_string(graph.nodes()) + "; degree: 6; hasher: " + hasher + "} }";
    std::vector<uint8_t> buf(hasher.begin(), hasher.end());
    buf.insert(buf.end(), ident.begin(), ident.end());
    for (uint64_t k : graph.feistel_keys())
        for (int i = 0; i < 8; ++i) buf.push_back(static_cast<uint8_t>(k >> (8 * i)));
    for (int i = 0; i < 4; ++i) buf.push_back(static_cast<uint8_t>(graph.nodes() >> (8 * i)));
    const auto d = sha256_digest(buf);
    return "v28-sdr-parent-" + to_hex(std::span<const uint8_t>(d));
}

}  // namespace c2lab::porep

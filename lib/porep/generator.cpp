#include "porep/generator.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/error.hpp"
#include "ff/fields.hpp"
#include "gadgets/poseidon.hpp"
#include "gadgets/sha256.hpp"
#include "porep/graph.hpp"
#include "porep/label.hpp"
#include "porep/seal_inputs.hpp"
#include "porep/sparse_tree.hpp"

namespace c2lab::porep {

namespace {

using ff::fr;

void put_u64(std::vector<uint8_t>& buf, uint64_t v) {
    for (int i = 0; i < 8; ++i) buf.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

std::array<uint8_t, 32> prf_bytes(std::string_view tag, uint64_t sector_size, uint64_t seed, uint64_t a, uint64_t b) {
    static constexpr std::string_view domain_tag = "c2lab/dataset/v1";
    std::vector<uint8_t> buf(domain_tag.begin(), domain_tag.end());
    put_u64(buf, tag.size());
    buf.insert(buf.end(), tag.begin(), tag.end());
    put_u64(buf, sector_size);
    put_u64(buf, seed);
    put_u64(buf, a);
    put_u64(buf, b);
    return gadgets::sha256_native(buf);
}

fr to_fr(const domain& d) { return fr::from_bytes_le(std::span<const uint8_t, 32>(d), "domain"); }
domain to_domain(const fr& x) {
    domain d;
    x.to_bytes_le(std::span<uint8_t, 32>(d));
    return d;
}

domain poseidon_domain(std::span<const domain> children) {
    std::array<fr, 16> buf;
    if (children.size() > buf.size()) throw error(errc::internal, "generator: poseidon arity too large");
    for (size_t i = 0; i < children.size(); ++i) buf[i] = to_fr(children[i]);
    return to_domain(gadgets::poseidon_hash(std::span<const fr>(buf.data(), children.size())));
}

// Levels of an LCTree<base, sub, top> over cfg.nodes leaves, from the bottom.
std::vector<uint32_t> tree_r_arities(const porep_config& cfg) {
    std::vector<uint32_t> a;
    for (uint64_t n = cfg.base_tree_leaves; n > 1; n /= cfg.base_arity) a.push_back(cfg.base_arity);
    if (cfg.sub_arity) a.push_back(cfg.sub_arity);
    if (cfg.top_arity) a.push_back(cfg.top_arity);
    return a;
}

size_t base_levels(const porep_config& cfg) {
    size_t l = 0;
    for (uint64_t n = cfg.base_tree_leaves; n > 1; n /= cfg.base_arity) ++l;
    return l;
}

// The data tree: the sector's data repeats a block of `period` nodes (a power of two,
// min(nodes, 1024)), node i holding dataset_prf("data", i mod period). Level l < log2(period)
// of the tree repeats the block tree's level l; above it every node of a level is the same.
struct data_tree {
    uint64_t period = 0;
    std::vector<std::vector<domain>> block;  // block[l]: the block tree's level l
    std::vector<domain> above;               // above[l]: the value of every node of level l >= log2(period)
    uint32_t block_levels = 0;

    data_tree(const porep_config& cfg, const std::function<domain(uint64_t)>& leaf) {
        period = std::min<uint64_t>(cfg.nodes, 1024);
        block.emplace_back();
        for (uint64_t i = 0; i < period; ++i) block[0].push_back(leaf(i));
        while (block.back().size() > 1) {
            const auto& lo = block.back();
            std::vector<domain> up;
            for (size_t i = 0; i < lo.size(); i += 2) up.push_back(gadgets::sha256_hash2_native(lo[i], lo[i + 1]));
            block.push_back(std::move(up));
        }
        block_levels = static_cast<uint32_t>(block.size() - 1);
        uint32_t height = 0;
        for (uint64_t n = cfg.nodes; n > 1; n /= 2) ++height;
        above.assign(height + 1, domain{});
        above[block_levels] = block.back()[0];
        for (uint32_t l = block_levels; l < height; ++l) above[l + 1] = gadgets::sha256_hash2_native(above[l], above[l]);
    }
    domain node(uint32_t level, uint64_t index) const {
        if (level < block_levels) return block[level][index % block[level].size()];
        return above[level];
    }
    domain root() const { return above.back(); }
};

}  // namespace

seal_input_values resolve_seal_inputs(const porep_config& cfg, uint64_t seed, const seal_input_overrides& given) {
    seal_input_values v;
    v.prover_id = given.prover_id ? *given.prover_id : prf_bytes("prover_id", cfg.sector_size, seed, 0, 0);
    v.sector_id = given.sector_id ? *given.sector_id : seed;
    v.ticket = given.ticket ? *given.ticket : prf_bytes("ticket", cfg.sector_size, seed, 0, 0);
    v.seed = given.seed ? *given.seed : prf_bytes("seed", cfg.sector_size, seed, 0, 0);
    return v;
}

domain generated_comm_d(const porep_config& cfg, uint64_t seed) {
    return data_tree(cfg, [&](uint64_t i) { return dataset_prf("data", cfg.sector_size, seed, i, 0); }).root();
}

domain dataset_prf(std::string_view tag, uint64_t sector_size, uint64_t seed, uint64_t a, uint64_t b) noexcept {
    domain d = prf_bytes(tag, sector_size, seed, a, b);
    d[31] &= 0x3f;
    return d;
}

c1_file generate_c1(const porep_config& cfg, uint64_t seed, const progress_fn& progress) {
    return generate_c1(cfg, seed, seal_input_overrides{}, progress);
}

c1_file generate_c1(const porep_config& cfg, uint64_t seed, const seal_input_overrides& inputs,
                    const progress_fn& progress) {
    auto report = [&](std::string_view stage, uint64_t done, uint64_t total) {
        if (progress) progress(stage, done, total);
    };
    auto prf = [&](std::string_view tag, uint64_t a, uint64_t b) { return dataset_prf(tag, cfg.sector_size, seed, a, b); };

    const seal_input_values sealing = resolve_seal_inputs(cfg, seed, inputs);
    c1_file file;
    file.sector_num = sealing.sector_id;
    file.sector_size = cfg.sector_size;
    c1_output& out = file.phase1_out;
    out.registered_proof = cfg.registered_proof;
    // The data and its tree first: comm_d, then the replica id as filecoin-proofs derives it.
    const data_tree data(cfg, [&](uint64_t i) { return prf("data", i, 0); });
    out.comm_d = data.root();
    out.replica_id = derive_replica_id(sealing.prover_id, sealing.sector_id, sealing.ticket, out.comm_d, cfg.porep_id);
    out.seed = sealing.seed;
    out.ticket = sealing.ticket;

    // Challenges of every partition, and the set of nodes whose labels are computed.
    std::vector<std::vector<uint64_t>> challenges(cfg.partitions);
    std::set<uint64_t> challenged;
    for (uint32_t k = 0; k < cfg.partitions; ++k) {
        challenges[k] = derive_challenges(cfg, out.replica_id, out.seed, k);
        challenged.insert(challenges[k].begin(), challenges[k].end());
    }

    const stacked_graph graph(cfg);
    std::map<uint64_t, std::array<uint32_t, total_degree>> parents_of;
    for (uint64_t c : challenged) graph.parents(c, std::span<uint32_t, total_degree>(parents_of[c]));

    // Labels: computed for challenged nodes, layer by layer in ascending node order.
    std::map<std::pair<uint32_t, uint64_t>, domain> computed;
    auto label = [&](uint32_t layer, uint64_t node) -> domain {
        auto it = computed.find({layer, node});
        return it != computed.end() ? it->second : prf("label", layer, node);
    };
    // The parents' labels a node's label in `layer` is computed from: the base parents in
    // this layer, then (above layer 1) the expansion parents in the layer below.
    auto parent_labels = [&](uint32_t layer, uint64_t node) {
        std::vector<domain> p;
        const auto& par = parents_of.at(node);
        for (uint32_t i = 0; i < base_degree; ++i) p.push_back(label(layer, par[i]));
        if (layer > 1)
            for (uint32_t i = base_degree; i < total_degree; ++i) p.push_back(label(layer - 1, par[i]));
        return p;
    };
    const uint64_t label_total = uint64_t{cfg.layers} * challenged.size();
    uint64_t label_done = 0;
    for (uint32_t layer = 1; layer <= cfg.layers; ++layer)
        for (uint64_t c : challenged) {
            computed[{layer, c}] = label_native(out.replica_id, layer, c, parent_labels(layer, c));
            report("labels", ++label_done, label_total);
        }

    // tree_c: column hashes of every challenged node and of every parent.
    std::set<uint64_t> column_nodes = challenged;
    for (const auto& [c, par] : parents_of) column_nodes.insert(par.begin(), par.end());
    auto column_of = [&](uint64_t node) {
        column col;
        col.index = static_cast<uint32_t>(node);
        for (uint32_t l = 1; l <= cfg.layers; ++l) col.rows.push_back(label(l, node));
        return col;
    };
    const std::vector<uint32_t> r_arities = tree_r_arities(cfg);
    const size_t r_base = base_levels(cfg);
    const size_t r_sub = cfg.sub_arity ? 1 : 0;
    sparse_tree tree_c(r_arities, poseidon_domain, [&](uint32_t l, uint64_t i) { return prf("tree_c", l, i); });
    uint64_t col_done = 0;
    for (uint64_t n : column_nodes) {
        tree_c.set_leaf(n, poseidon_domain(column_of(n).rows));
        report("columns", ++col_done, column_nodes.size());
    }

    // tree_d (data, SHA-256 binary) and tree_r_last (replica = data + key, Poseidon).
    std::vector<uint32_t> d_arities;
    for (uint64_t n = cfg.nodes; n > 1; n /= 2) d_arities.push_back(2);
    sparse_tree tree_d(
        d_arities, [](std::span<const domain> c) { return gadgets::sha256_hash2_native(c[0], c[1]); },
        [&](uint32_t l, uint64_t i) { return data.node(l, i); });
    sparse_tree tree_r(r_arities, poseidon_domain, [&](uint32_t l, uint64_t i) { return prf("tree_r_last", l, i); });
    for (uint64_t c : challenged) {
        const domain leaf = data.node(0, c);
        tree_d.set_leaf(c, leaf);
        tree_r.set_leaf(c, to_domain(to_fr(leaf) + to_fr(label(cfg.layers, c))));
    }
    report("roots", 0, 3);
    if (tree_d.root() != out.comm_d) throw error(errc::internal, "generator: tree_d root differs from comm_d");
    report("roots", 1, 3);
    const domain comm_c = tree_c.root();
    report("roots", 2, 3);
    const domain comm_r_last = tree_r.root();
    report("roots", 3, 3);
    const std::array<domain, 2> cr{comm_c, comm_r_last};
    out.comm_r = poseidon_domain(cr);

    // The vanilla proofs, partition by partition.
    out.vanilla_proofs.resize(cfg.partitions);
    uint64_t proof_done = 0;
    for (uint32_t k = 0; k < cfg.partitions; ++k) {
        for (uint64_t c : challenges[k]) {
            challenge_proof p;
            p.comm_d_proofs = tree_d.proof(c, d_arities.size(), 0);
            p.comm_r_last_proof = tree_r.proof(c, r_base, r_sub);
            const auto& par = parents_of.at(c);
            p.replica_column_proofs.c_x = {column_of(c), tree_c.proof(c, r_base, r_sub)};
            for (uint32_t i = 0; i < total_degree; ++i) {
                column_proof cp{column_of(par[i]), tree_c.proof(par[i], r_base, r_sub)};
                (i < base_degree ? p.replica_column_proofs.drg_parents : p.replica_column_proofs.exp_parents)
                    .push_back(std::move(cp));
            }
            // As rust-fil-proofs' vanilla prover: the 37 hashed parent labels (the parents
            // repeated, expand_label_parents) of every layer, and of the last for the encoding.
            auto hashed_parents = [&](uint32_t layer) {
                const std::vector<domain> p6_14 = parent_labels(layer, c);
                return expand_label_parents(std::span<const domain>(p6_14));
            };
            for (uint32_t layer = 1; layer <= cfg.layers; ++layer)
                p.labeling_proofs.push_back({hashed_parents(layer), layer, c});
            p.encoding_proof = {hashed_parents(cfg.layers), cfg.layers, c};
            out.vanilla_proofs[k].push_back(std::move(p));
            report("proofs", ++proof_done, cfg.proven_challenges());
        }
    }
    return file;
}

}  // namespace c2lab::porep

#include "porep/circuit.hpp"

#include "porep/graph.hpp"

namespace c2lab::porep {

namespace {

using gadgets::auth_path;
using gadgets::path_element_witness;

fr to_fr(const domain& d, const std::string& where) {
    return fr::from_bytes_le(std::span<const uint8_t, 32>(d), where);
}

// One part (base, sub or top) of a vanilla Merkle path, checked against the expected number
// of levels and arity.
std::vector<path_element_witness> convert_levels(const std::vector<path_element>& levels, size_t expect_levels,
                                                 size_t arity, const std::string& where) {
    if (levels.size() != expect_levels)
        throw error(errc::bad_input, where + ": " + std::to_string(levels.size()) + " levels, expected " +
                                         std::to_string(expect_levels));
    std::vector<path_element_witness> out;
    out.reserve(levels.size());
    for (size_t l = 0; l < levels.size(); ++l) {
        const std::string at = where + "[" + std::to_string(l) + "]";
        if (levels[l].hashes.size() != arity - 1)
            throw error(errc::bad_input, at + ".hashes: " + std::to_string(levels[l].hashes.size()) +
                                             " siblings, expected " + std::to_string(arity - 1));
        if (levels[l].index >= arity)
            throw error(errc::bad_input, at + ".index: " + std::to_string(levels[l].index) + " is not below the arity " +
                                             std::to_string(arity));
        path_element_witness e;
        e.index = levels[l].index;
        for (size_t k = 0; k < levels[l].hashes.size(); ++k)
            e.hashes.emplace_back(to_fr(levels[l].hashes[k], at + ".hashes[" + std::to_string(k) + "]"));
        out.push_back(std::move(e));
    }
    return out;
}

auth_path convert_path(const merkle_proof& p, const gadgets::tree_shape& shape, uint64_t leaves,
                       const std::string& where) {
    auth_path a;
    a.base = convert_levels(p.base_path, gadgets::base_path_length(shape, leaves), shape.base_arity, where + ".base_path");
    a.sub = convert_levels(p.sub_path, shape.sub_arity ? 1 : 0, shape.sub_arity, where + ".sub_path");
    a.top = convert_levels(p.top_path, shape.top_arity ? 1 : 0, shape.top_arity, where + ".top_path");
    return a;
}

column_witness convert_column(const column_proof& cp, const porep_config& cfg, const std::string& where) {
    column_witness c;
    if (cp.col.rows.size() != cfg.layers)
        throw error(errc::bad_input, where + ".column.rows: " + std::to_string(cp.col.rows.size()) +
                                         " rows, expected " + std::to_string(cfg.layers) + " (one per layer)");
    for (size_t r = 0; r < cp.col.rows.size(); ++r)
        c.rows.emplace_back(to_fr(cp.col.rows[r], where + ".column.rows[" + std::to_string(r) + "]"));
    c.path = convert_path(cp.inclusion_proof, tree_r_shape(cfg), cfg.nodes, where + ".inclusion_proof");
    return c;
}

}  // namespace

gadgets::tree_shape tree_r_shape(const porep_config& cfg) noexcept {
    return {cfg.base_arity, cfg.sub_arity, cfg.top_arity};
}

stacked_circuit stacked_circuit::blank(const porep_config& cfg) {
    stacked_circuit c;
    c.config = &cfg;
    const gadgets::tree_shape r_shape = tree_r_shape(cfg);
    challenge_witness w;
    w.comm_d_path = auth_path::blank(tree_d_shape, cfg.nodes);
    w.comm_r_last_path = auth_path::blank(r_shape, cfg.nodes);
    w.comm_c_path = w.comm_r_last_path;
    column_witness col{std::vector<std::optional<fr>>(cfg.layers), w.comm_r_last_path};
    w.drg_parents.assign(base_degree, col);
    w.exp_parents.assign(expansion_degree, col);
    c.challenges.assign(cfg.challenges_per_partition, w);
    return c;
}

stacked_circuit construct_circuit(const porep_config& cfg, const c1_output& c1, uint32_t partition) {
    if (c1.registered_proof != cfg.registered_proof)
        throw error(errc::bad_input, "registered_proof: the C1 output is " + c1.registered_proof +
                                         ", the circuit is " + cfg.registered_proof);
    if (c1.vanilla_proofs.size() != cfg.partitions)
        throw error(errc::bad_input, "vanilla_proofs: " + std::to_string(c1.vanilla_proofs.size()) +
                                         " partitions, " + cfg.registered_proof + " has " +
                                         std::to_string(cfg.partitions));
    if (partition >= cfg.partitions)
        throw error(errc::bad_input, "partition " + std::to_string(partition) + " of " + std::to_string(cfg.partitions));
    const auto& proofs = c1.vanilla_proofs[partition];
    const std::string pwhere = "vanilla_proofs[" + std::to_string(partition) + "]";
    if (proofs.size() != cfg.challenges_per_partition)
        throw error(errc::bad_input, pwhere + ": " + std::to_string(proofs.size()) + " challenges, " +
                                         cfg.registered_proof + " has " + std::to_string(cfg.challenges_per_partition));

    stacked_circuit c;
    c.config = &cfg;
    c.replica_id = to_fr(c1.replica_id, "replica_id");
    c.comm_d = to_fr(c1.comm_d, "comm_d");
    c.comm_r = to_fr(c1.comm_r, "comm_r");
    const gadgets::tree_shape r_shape = tree_r_shape(cfg);
    for (size_t i = 0; i < proofs.size(); ++i) {
        const challenge_proof& p = proofs[i];
        const std::string where = pwhere + "[" + std::to_string(i) + "]";
        if (p.labeling_proofs.empty())
            throw error(errc::bad_input, where + ".labeling_proofs: empty (the challenge is read from it)");
        const auto& rcp = p.replica_column_proofs;
        if (rcp.drg_parents.size() != base_degree)
            throw error(errc::bad_input, where + ".replica_column_proofs.drg_parents: " +
                                             std::to_string(rcp.drg_parents.size()) + " columns, expected 6");
        if (rcp.exp_parents.size() != expansion_degree)
            throw error(errc::bad_input, where + ".replica_column_proofs.exp_parents: " +
                                             std::to_string(rcp.exp_parents.size()) + " columns, expected 8");
        challenge_witness w;
        w.challenge = p.labeling_proofs[0].node;
        if (*w.challenge >= cfg.nodes)
            throw error(errc::bad_input, where + ".labeling_proofs[0].node: " + std::to_string(*w.challenge) +
                                             " is not a node of a " + std::to_string(cfg.nodes) + "-node sector");
        w.data_leaf = to_fr(p.comm_d_proofs.leaf, where + ".comm_d_proofs.leaf");
        w.comm_d_path = convert_path(p.comm_d_proofs, tree_d_shape, cfg.nodes, where + ".comm_d_proofs");
        w.comm_r_last_path = convert_path(p.comm_r_last_proof, r_shape, cfg.nodes, where + ".comm_r_last_proof");
        w.comm_c_path = convert_path(rcp.c_x.inclusion_proof, r_shape, cfg.nodes,
                                     where + ".replica_column_proofs.c_x.inclusion_proof");
        for (size_t k = 0; k < base_degree; ++k)
            w.drg_parents.push_back(convert_column(
                rcp.drg_parents[k], cfg, where + ".replica_column_proofs.drg_parents[" + std::to_string(k) + "]"));
        for (size_t k = 0; k < expansion_degree; ++k)
            w.exp_parents.push_back(convert_column(
                rcp.exp_parents[k], cfg, where + ".replica_column_proofs.exp_parents[" + std::to_string(k) + "]"));
        if (i == 0) {
            c.comm_r_last = to_fr(p.comm_r_last_proof.root, where + ".comm_r_last_proof.root");
            c.comm_c = to_fr(rcp.c_x.inclusion_proof.root, where + ".replica_column_proofs.c_x.inclusion_proof.root");
        }
        c.challenges.push_back(std::move(w));
    }
    return c;
}

std::vector<stacked_circuit> construct_circuits(const porep_config& cfg, const c1_output& c1) {
    std::vector<stacked_circuit> out;
    out.reserve(cfg.partitions);
    for (uint32_t k = 0; k < cfg.partitions; ++k) out.push_back(construct_circuit(cfg, c1, k));
    return out;
}

std::vector<fr> public_inputs(const porep_config& cfg, const domain& replica_id, const domain& comm_d,
                              const domain& comm_r, const std::array<uint8_t, 32>& seed, uint32_t partition) {
    std::vector<fr> in;
    in.reserve(3 + 18 * size_t{cfg.challenges_per_partition});
    in.push_back(to_fr(replica_id, "replica_id"));
    in.push_back(to_fr(comm_d, "comm_d"));
    in.push_back(to_fr(comm_r, "comm_r"));
    const stacked_graph graph(cfg);
    for (uint64_t c : derive_challenges(cfg, replica_id, seed, partition)) {
        std::array<uint32_t, total_degree> parents;
        graph.parents(c, std::span<uint32_t, total_degree>(parents));
        in.push_back(fr::from_u64(c));  // comm_d path
        for (uint32_t p : parents) in.push_back(fr::from_u64(p));  // 6 base, 8 expansion parents' tree_c paths
        in.push_back(fr::from_u64(c));  // the challenge number
        in.push_back(fr::from_u64(c));  // tree_r_last path
        in.push_back(fr::from_u64(c));  // c_x tree_c path
    }
    return in;
}

}  // namespace c2lab::porep

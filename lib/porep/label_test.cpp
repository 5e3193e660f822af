// The PoRep label gadget and its native twin (rust-fil-proofs
// storage-proofs-porep/src/stacked/circuit/create_label.rs and vanilla/create_label/).
//
// rust_fil_proofs_setup_counts_532025 follows that file's test_create_label: 14 parent
// labels (6 base from the layer, 8 expander from the previous layer) repeated to 37, each
// allocated as 256 bits with bytes_into_boolean_vec_be in namespace "parents <i>", then the
// replica id's 32 bytes in namespace "id", layer 3 and node 22 as constants, and the gadget in
// namespace "create_label": 532,025 constraints. The parents there come from a
// StackedBucketGraph of 64 nodes; here they are picked at random from the same kind of data
// (the count does not depend on which nodes they are), and the value is checked against
// label_native.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "gadgets/sha256.hpp"
#include "porep/label.hpp"
#include "r1cs/test_constraint_system.hpp"

namespace c2lab::porep {
namespace {

using gadgets::allocated_num;
using gadgets::boolean;
using gadgets::fr;
using test_cs = r1cs::test_constraint_system<>;

domain domain_of(const fr& x) {
    domain d;
    x.to_bytes_le(d);
    return d;
}
fr fr_of(const domain& d) { return fr::from_bytes_le(std::span<const uint8_t, 32>(d)); }

// The test_create_label synthesis, with or without values (shape_counter).
template <class CS>
gadgets::allocated_num synthesize_rust_setup(CS& cs, const domain& id, const std::vector<domain>& parents37,
                                             uint32_t layer, uint64_t node, bool with_values) {
    std::vector<std::vector<boolean>> parents_bits;
    for (size_t i = 0; i < parents37.size(); ++i) {
        r1cs::namespace_guard ns(cs, [i] { return "parents " + std::to_string(i); });
        std::optional<std::span<const uint8_t>> v;
        if (with_values) v = std::span<const uint8_t>(parents37[i]);
        parents_bits.push_back(gadgets::bytes_into_boolean_vec_be(cs, v, 256));
    }
    std::vector<boolean> id_bits;
    {
        r1cs::namespace_guard ns(cs, [] { return "id"; });
        std::optional<std::span<const uint8_t>> v;
        if (with_values) v = std::span<const uint8_t>(id);
        id_bits = gadgets::bytes_into_boolean_vec_be(cs, v, 256);
    }
    const gadgets::uint32 layer_alloc = gadgets::uint32::constant(layer);
    const gadgets::uint64 node_alloc = gadgets::uint64::constant(node);
    r1cs::namespace_guard ns(cs, [] { return "create_label"; });
    return create_label_circuit(cs, id_bits, parents_bits, layer_alloc, node_alloc);
}

TEST(label, rust_fil_proofs_setup_counts_532025) {
    rng g(41);
    const size_t size = 64;
    const domain id = domain_of(fr::random(g));
    const uint32_t layer = 3;
    const uint64_t node = 22;
    std::vector<domain> data;  // 2 * size nodes: this layer, then the previous one
    for (size_t i = 0; i < 2 * size; ++i) data.push_back(domain_of(fr::random(g)));
    std::vector<domain> raw;  // 6 base parents (below node), 8 expander parents
    for (size_t i = 0; i < 6; ++i) raw.push_back(data[g.below(node)]);
    for (size_t i = 0; i < 8; ++i) raw.push_back(data[size + g.below(size)]);
    std::vector<domain> parents = raw;                                   // 14
    parents.insert(parents.end(), raw.begin(), raw.end());              // 28
    parents.insert(parents.end(), raw.begin(), raw.begin() + 9);        // 37
    ASSERT_EQ(parents.size(), label_total_parents);

    test_cs cs;
    allocated_num out = synthesize_rust_setup(cs, id, parents, layer, node, true);
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_EQ(cs.num_constraints(), 532025u);
    std::cout << "create_label (rust-fil-proofs test setup): " << cs.num_constraints() << " constraints, "
              << cs.num_aux() << " aux, " << cs.num_inputs() << " inputs\n";

    const domain want = label_native(id, layer, node, raw);
    EXPECT_EQ(want, label_native(id, layer, node, parents));
    ASSERT_TRUE(out.value.has_value());
    EXPECT_EQ(*out.value, fr_of(want)) << "circuit and non circuit do not match";

    r1cs::shape_counter sc;
    (void)synthesize_rust_setup(sc, id, parents, layer, node, false);
    EXPECT_EQ(sc.num_constraints(), cs.num_constraints());
    EXPECT_EQ(sc.num_aux(), cs.num_aux());
    EXPECT_EQ(sc.num_inputs(), cs.num_inputs());

    // tampered: the packed label, then one bit of the first SHA-256 block
    test_cs bad = cs;
    bad.set_aux(out.var.index, *out.value + fr::one());
    EXPECT_EQ(bad.which_is_unsatisfied(), std::optional<std::string>("create_label/result_num/packing constraint"));
    bad = cs;
    const size_t k = 9728 + 5000;  // past the 37 * 256 + 256 input bits
    bad.set_aux(k, bad.aux_assignment()[k] + fr::one());
    auto which = bad.which_is_unsatisfied();
    ASSERT_TRUE(which.has_value());
    EXPECT_EQ(which->rfind("create_label/hash/block 0/", 0), 0u) << *which;
}

// As the StackedDRG circuit uses it (stacked/circuit/params.rs, proof.rs): the replica id and
// the parent labels are allocated numbers, turned into bits with to_bits_le and
// reverse_bit_numbering; the node is an allocated UInt64 (the challenge); layer 1 has 6
// parents repeated to 37, later layers 14.
template <class CS>
allocated_num synthesize_stacked_style(CS& cs, const std::optional<domain>& id, const std::vector<std::optional<domain>>& parents,
                                       uint32_t layer, std::optional<uint64_t> node) {
    auto num = [&](const std::optional<domain>& d, auto name) {
        std::optional<fr> v;
        if (d) v = fr_of(*d);
        return allocated_num::alloc(cs, name, v);
    };
    allocated_num id_num = num(id, [] { return "replica_id"; });
    std::vector<boolean> id_bits;
    {
        r1cs::namespace_guard ns(cs, [] { return "replica_id_bits"; });
        id_bits = gadgets::reverse_bit_numbering(id_num.to_bits_le(cs));
    }
    gadgets::uint64 challenge;
    {
        r1cs::namespace_guard ns(cs, [] { return "challenge"; });
        challenge = gadgets::uint64::alloc(cs, node);
    }
    std::vector<std::vector<boolean>> bits;
    for (size_t i = 0; i < parents.size(); ++i) {
        allocated_num p = num(parents[i], [] { return "parent"; });
        r1cs::namespace_guard ns(cs, [i] { return "parent_" + std::to_string(i) + "_bits"; });
        bits.push_back(gadgets::reverse_bit_numbering(p.to_bits_le(cs)));
    }
    std::vector<std::vector<boolean>> expanded = expand_label_parents(std::span<const std::vector<boolean>>(bits));
    r1cs::namespace_guard ns(cs, [] { return "create_label"; });
    return create_label_circuit(cs, id_bits, expanded, gadgets::uint32::constant(layer), challenge);
}

TEST(label, gadget_matches_native_on_random_inputs) {
    rng g(42);
    for (int trial = 0; trial < 4; ++trial) {
        const bool first_layer = trial % 2 == 0;
        const uint32_t layer = first_layer ? 1 : 2 + static_cast<uint32_t>(g.below(10));
        const uint64_t node = trial == 3 ? ~uint64_t{0} >> 1 : 1 + g.below(uint64_t{1} << 40);
        const domain id = domain_of(fr::random(g));
        std::vector<domain> parents(first_layer ? 6 : 14);
        for (auto& p : parents) p = domain_of(fr::random(g));
        SCOPED_TRACE("layer " + std::to_string(layer) + " node " + std::to_string(node));

        test_cs cs;
        std::vector<std::optional<domain>> ps(parents.begin(), parents.end());
        allocated_num out = synthesize_stacked_style(cs, id, ps, layer, node);
        EXPECT_TRUE(cs.is_satisfied());
        ASSERT_TRUE(out.value.has_value());
        const domain want = label_native(id, layer, node, parents);
        EXPECT_EQ((want[31] & 0xc0), 0);
        EXPECT_EQ(*out.value, fr_of(want));

        r1cs::shape_counter sc;
        std::vector<std::optional<domain>> none(parents.size());
        (void)synthesize_stacked_style(sc, std::nullopt, none, layer, std::nullopt);
        EXPECT_EQ(sc.num_constraints(), cs.num_constraints());
        EXPECT_EQ(sc.num_aux(), cs.num_aux());
        if (trial < 2) std::cout << "label, layer " << layer << " (stacked circuit style): " << cs.num_constraints() << " constraints\n";

        // a wrong parent value is caught by its bit decomposition
        test_cs bad = cs;
        bad.set_aux(0, bad.aux_assignment()[0] + fr::one());
        EXPECT_EQ(bad.which_is_unsatisfied(), std::optional<std::string>("replica_id_bits/unpacking constraint"));
    }
}

TEST(label, native_layout) {
    rng g(43);
    const domain id = domain_of(fr::random(g));
    std::vector<domain> p14(14);
    for (auto& p : p14) p = domain_of(fr::random(g));
    const uint32_t layer = 0x01020304;
    const uint64_t node = 0x1122334455667788;
    // the 1248-byte buffer written out by hand
    std::vector<uint8_t> buf(id.begin(), id.end());
    for (uint8_t b : {0x01, 0x02, 0x03, 0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}) buf.push_back(b);
    buf.resize(64, 0);
    for (size_t i = 0; i < 37; ++i) {
        const domain& p = i < 28 ? p14[i % 14] : p14[i - 28];
        buf.insert(buf.end(), p.begin(), p.end());
    }
    ASSERT_EQ(buf.size(), label_buffer_bytes);
    gadgets::sha256_digest d = gadgets::sha256_native(buf);
    d[31] &= 0x3f;
    EXPECT_EQ(label_native(id, layer, node, p14), d);

    // layer 1: six parents, six times, then the first
    std::vector<domain> p6(p14.begin(), p14.begin() + 6);
    std::vector<domain> p37;
    for (int r = 0; r < 6; ++r) p37.insert(p37.end(), p6.begin(), p6.end());
    p37.push_back(p6[0]);
    EXPECT_EQ(label_native(id, 1, 5, p6), label_native(id, 1, 5, p37));
    EXPECT_EQ(expand_label_parents(std::span<const domain>(p6)), p37);

    // node 0 hashes the first 64 bytes only
    std::vector<uint8_t> head(id.begin(), id.end());
    head.resize(64, 0);
    head[35] = 1;  // layer 1 big-endian
    gadgets::sha256_digest d0 = gadgets::sha256_native(head);
    d0[31] &= 0x3f;
    EXPECT_EQ(label_native(id, 1, 0, {}), d0);

    EXPECT_THROW(label_native(id, 2, 3, std::span<const domain>(p14).first(13)), error);
    test_cs cs;
    std::vector<std::vector<boolean>> few(36, std::vector<boolean>(256));
    std::vector<boolean> idb(256);
    EXPECT_THROW(create_label_circuit(cs, idb, few, gadgets::uint32::constant(1), gadgets::uint64::constant(1)), error);
}

}  // namespace
}  // namespace c2lab::porep

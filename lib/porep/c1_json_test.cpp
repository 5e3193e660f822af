#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

#include "core/base64.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "porep/c1_json.hpp"

namespace c2lab::porep {
namespace {

using ojson = nlohmann::ordered_json;

constexpr c1_json_decoder both_decoders[] = {c1_json_decoder::nlohmann, c1_json_decoder::simdjson};

// r - 1, the largest canonical Fr element, little-endian.
domain r_minus_1() {
    domain d{};
    const uint64_t limbs[4] = {0xffffffff00000000, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48};
    for (size_t i = 0; i < 32; ++i) d[i] = static_cast<uint8_t>(limbs[i / 8] >> (8 * (i % 8)));
    return d;
}

domain random_domain(rng& g) {
    domain d;
    for (auto& b : d) b = static_cast<uint8_t>(g());
    d[31] &= 0x3f;  // < 2^254 < r, as rust-fil-proofs truncates SHA-256 digests
    return d;
}

std::vector<domain> random_domains(rng& g, size_t n) {
    std::vector<domain> v(n);
    for (auto& d : v) d = random_domain(g);
    return v;
}

std::vector<path_element> random_path(rng& g, size_t levels, size_t arity) {
    std::vector<path_element> p(levels);
    for (auto& e : p) {
        e.hashes = random_domains(g, arity - 1);
        e.index = g.below(arity);
    }
    return p;
}

merkle_proof random_merkle(rng& g, size_t base_levels, size_t arity, size_t sub_levels = 0, size_t top_levels = 0) {
    merkle_proof m;
    m.root = random_domain(g);
    m.leaf = random_domain(g);
    m.base_path = random_path(g, base_levels, arity);
    m.sub_path = random_path(g, sub_levels, 8);
    m.top_path = random_path(g, top_levels, 2);
    return m;
}

// The shape of one challenge's proof: tree_r_last / tree_c paths (base levels of arity 8, sub
// and top levels), comm_d levels (binary), layers.
struct shape {
    std::string registered_proof;
    uint64_t sector_size;
    size_t partitions, challenges, base_levels, sub_levels, top_levels, comm_d_levels, layers;
};

// 2 KiB: 64 nodes, so tree_r_last and tree_c are 2 levels of 8-ary and comm_d 6 binary levels.
const shape shape_2kib{"StackedDrg2KiBV1_1", 2048, 1, 2, 2, 0, 0, 6, 2};

column_proof random_column_proof(rng& g, const shape& s) {
    column_proof cp;
    cp.col.index = static_cast<uint32_t>(g());
    cp.col.rows = random_domains(g, s.layers);
    cp.inclusion_proof = random_merkle(g, s.base_levels, 8, s.sub_levels, s.top_levels);
    return cp;
}

// storage-proofs-porep stacked/vanilla/proof.rs: 6 DRG and 8 expander parent columns; labeling
// and encoding proofs carry TOTAL_PARENTS = 37 parent labels (the 14 parents repeated).
challenge_proof random_challenge(rng& g, const shape& s) {
    challenge_proof c;
    c.comm_d_proofs = random_merkle(g, s.comm_d_levels, 2);
    c.comm_r_last_proof = random_merkle(g, s.base_levels, 8, s.sub_levels, s.top_levels);
    c.replica_column_proofs.c_x = random_column_proof(g, s);
    for (int i = 0; i < 6; ++i) c.replica_column_proofs.drg_parents.push_back(random_column_proof(g, s));
    for (int i = 0; i < 8; ++i) c.replica_column_proofs.exp_parents.push_back(random_column_proof(g, s));
    const uint64_t node = g();
    for (size_t layer = 1; layer <= s.layers; ++layer)
        c.labeling_proofs.push_back({random_domains(g, 37), static_cast<uint32_t>(layer), node});
    c.encoding_proof = {random_domains(g, 37), static_cast<uint32_t>(s.layers), node};
    return c;
}

c1_file random_c1(uint64_t seed, const shape& s = shape_2kib) {
    rng g(seed);
    c1_file f;
    f.sector_num = g();
    f.sector_size = s.sector_size;
    c1_output& o = f.phase1_out;
    o.registered_proof = s.registered_proof;
    o.vanilla_proofs.resize(s.partitions);
    for (auto& part : o.vanilla_proofs)
        for (size_t i = 0; i < s.challenges; ++i) part.push_back(random_challenge(g, s));
    o.comm_r = random_domain(g);
    o.comm_d = r_minus_1();
    o.replica_id = random_domain(g);
    for (auto& b : o.seed) b = static_cast<uint8_t>(g());
    for (auto& b : o.ticket) b = static_cast<uint8_t>(g());
    o.seed[31] = 0xff;  // seed and ticket are raw bytes: no canonical rule
    o.ticket[0] = 0xff;
    return f;
}

// An outer C1 file around an inner JSON text, written as lotus-bench does.
std::string wrap(const std::string& inner, uint64_t sector_size = 2048, uint64_t sector_num = 7) {
    return "{\"SectorNum\":" + std::to_string(sector_num) + ",\"Phase1Out\":\"" + base64_encode(inner) +
           "\",\"SectorSize\":" + std::to_string(sector_size) + "}";
}

// ---- round trips ----------------------------------------------------------------------------

TEST(c1_json, round_trip_2kib_both_decoders) {
    const c1_file f = random_c1(1);
    const std::string text = encode_c1_file(f);
    const c1_file a = decode_c1_file(text, c1_json_decoder::nlohmann);
    const c1_file b = decode_c1_file(text, c1_json_decoder::simdjson);
    EXPECT_EQ(a, f);
    EXPECT_EQ(b, f);
    EXPECT_EQ(a, b);
    // Re-encoding what was decoded gives the same bytes.
    EXPECT_EQ(encode_c1_file(a), text);
    EXPECT_EQ(encode_c1_file(b), text);
    ASSERT_EQ(a.phase1_out.vanilla_proofs.size(), 1u);
    ASSERT_EQ(a.phase1_out.vanilla_proofs[0].size(), 2u);
    EXPECT_EQ(a.phase1_out.vanilla_proofs[0][1].labeling_proofs[1].parents.size(), 37u);
}

TEST(c1_json, round_trip_inner_json_both_decoders) {
    const c1_file f = random_c1(2);
    const std::string inner = encode_c1_output_json(f.phase1_out);
    for (auto d : both_decoders) EXPECT_EQ(decode_c1_output_json(inner, d), f.phase1_out) << to_string(d);
}

TEST(c1_json, round_trip_sub_and_top_merkle_proofs) {
    // 32 GiB: tree_r_last <8,8,0> (ProofData::Sub); 64 GiB: <8,8,2> (ProofData::Top). Fewer
    // levels than the real trees: the format does not care.
    const shape s32{"StackedDrg32GiBV1_1", uint64_t{32} << 30, 2, 1, 3, 1, 0, 5, 3};
    const shape s64{"StackedDrg64GiBV1_1", uint64_t{64} << 30, 1, 2, 3, 1, 1, 5, 3};
    for (const auto& s : {s32, s64}) {
        const c1_file f = random_c1(3, s);
        const std::string text = encode_c1_file(f);
        const std::string inner = encode_c1_output_json(f.phase1_out);
        EXPECT_NE(inner.find(s.top_levels ? "{\"Top\":{\"base_proof\":{\"path\":[" : "{\"Sub\":{\"base_proof\":{\"path\":["),
                  std::string::npos);
        for (auto d : both_decoders) EXPECT_EQ(decode_c1_file(text, d), f) << s.registered_proof << " " << to_string(d);
    }
}

// The exact bytes serde_json writes for a minimal output (no partitions, zero hashes).
TEST(c1_json, encodes_serde_layout) {
    c1_output o;
    o.registered_proof = "StackedDrg2KiBV1_1";
    o.vanilla_proofs.resize(1);
    challenge_proof c;
    c.comm_d_proofs.base_path = {{{domain{}}, 1}};
    c.replica_column_proofs.c_x.col = {5, {domain{}}};
    c.labeling_proofs = {{{}, 1, 9}};
    c.encoding_proof = {{}, 1, 9};
    o.vanilla_proofs[0].push_back(c);
    const std::string z = "[" + [] {
        std::string s;
        for (int i = 0; i < 32; ++i) s += i ? ",0" : "0";
        return s;
    }() + "]";
    const std::string empty_single = "{\"data\":{\"Single\":{\"root\":" + z + ",\"leaf\":" + z + ",\"path\":{\"path\":[]}}}}";
    const std::string expected =
        "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[{"
        "\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":" + z + ",\"leaf\":" + z +
        ",\"path\":{\"path\":[{\"hashes\":[" + z + "],\"index\":1}]}}}},"
        "\"comm_r_last_proof\":" + empty_single + ","
        "\"replica_column_proofs\":{\"c_x\":{\"column\":{\"index\":5,\"rows\":[" + z + "],\"_h\":null},"
        "\"inclusion_proof\":" + empty_single + "},\"drg_parents\":[],\"exp_parents\":[]},"
        "\"labeling_proofs\":[{\"parents\":[],\"layer_index\":1,\"node\":9}],"
        "\"encoding_proof\":{\"parents\":[],\"layer_index\":1,\"node\":9}}]]},"
        "\"comm_r\":" + z + ",\"comm_d\":" + z + ",\"replica_id\":" + z + ",\"seed\":" + z + ",\"ticket\":" + z + "}";
    EXPECT_EQ(encode_c1_output_json(o), expected);
    c1_file f{3, 2048, o};
    EXPECT_EQ(encode_c1_file(f), "{\"SectorNum\":3,\"Phase1Out\":\"" + base64_encode(expected) + "\",\"SectorSize\":2048}");
    for (auto d : both_decoders) EXPECT_EQ(decode_c1_file(encode_c1_file(f), d), f);
}

TEST(c1_json, accepts_whitespace_unknown_keys_and_missing_phantom) {
    const c1_file f = random_c1(4);
    ojson j = ojson::parse(encode_c1_output_json(f.phase1_out));
    j["extra_field"] = {1, 2, 3};  // serde ignores unknown fields
    j["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["replica_column_proofs"]["c_x"]["column"].erase("_h");
    const std::string inner = j.dump(2);  // pretty-printed
    const std::string text = "\n{ \"SectorNum\" : " + std::to_string(f.sector_num) + ",\n  \"Phase1Out\": \"" +
                             base64_encode(inner) + "\", \"SectorSize\": 2048, \"Other\": null }\n";
    for (auto d : both_decoders) EXPECT_EQ(decode_c1_file(text, d), f) << to_string(d);
}

TEST(c1_json, duplicate_keys_take_the_last_value_in_both_decoders) {
    const c1_file f = random_c1(5);
    std::string inner = encode_c1_output_json(f.phase1_out);
    inner.insert(1, "\"comm_r\":[1,2,3],\"seed\":\"x\",");
    for (auto d : both_decoders) EXPECT_EQ(decode_c1_output_json(inner, d), f.phase1_out) << to_string(d);
}

// The documented difference (c1_json.hpp), met by c1_json_fuzz: 1100 nested arrays under an
// ignored key decode with nlohmann; simdjson refuses them as too deep, while parsing.
TEST(c1_json, nesting_deeper_than_simdjson_allows) {
    const c1_file f = random_c1(6);
    const std::string inner = encode_c1_output_json(f.phase1_out);
    const std::string deep =
        "{\"deep\":" + std::string(1100, '[') + std::string(1100, ']') + "," + inner.substr(1);
    EXPECT_EQ(decode_c1_output_json(deep, c1_json_decoder::nlohmann), f.phase1_out);
    try {
        decode_c1_output_json(deep, c1_json_decoder::simdjson);
        ADD_FAILURE() << "simdjson accepted 1100 levels";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        EXPECT_NE(std::string(e.what()).find("too deep"), std::string::npos) << e.what();
    }
    // 1000 levels (within simdjson's limit): both decode.
    const std::string ok = "{\"deep\":" + std::string(1000, '[') + std::string(1000, ']') + "," + inner.substr(1);
    for (auto d : both_decoders) EXPECT_EQ(decode_c1_output_json(ok, d), f.phase1_out) << to_string(d);
}

TEST(c1_json, read_c1_file_both_decoders_and_errors_name_the_path) {
    const c1_file f = random_c1(6);
    const auto dir = std::filesystem::temp_directory_path();
    const std::string path = (dir / ("c1_json_test_" + std::to_string(::getpid()) + ".json")).string();
    {
        std::ofstream out(path, std::ios::binary);
        out << encode_c1_file(f);
    }
    for (auto d : both_decoders) EXPECT_EQ(read_c1_file(path, d), f);
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << "{\"SectorNum\":1}";
    }
    for (auto d : both_decoders) {
        try {
            read_c1_file(path, d);
            ADD_FAILURE();
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::bad_input);
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("Phase1Out: missing field"), std::string::npos) << e.what();
        }
    }
    std::filesystem::remove(path);
    for (auto d : both_decoders) {
        try {
            read_c1_file(path, d);
            ADD_FAILURE();
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), errc::io);
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
    }
}

TEST(c1_json, decoder_names) {
    EXPECT_EQ(parse_c1_json_decoder("nlohmann"), c1_json_decoder::nlohmann);
    EXPECT_EQ(parse_c1_json_decoder("simdjson"), c1_json_decoder::simdjson);
    EXPECT_EQ(to_string(c1_json_decoder::nlohmann), "nlohmann");
    EXPECT_EQ(to_string(c1_json_decoder::simdjson), "simdjson");
    try {
        parse_c1_json_decoder("rapidjson");
        FAIL();
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        const std::string msg = e.what();
        EXPECT_NE(msg.find("rapidjson"), std::string::npos);
        EXPECT_NE(msg.find("nlohmann"), std::string::npos);
        EXPECT_NE(msg.find("simdjson"), std::string::npos);
    }
}

// ---- malformed input: every class, both decoders, the same error kind --------------------------

// Decodes `text` as a C1 file with both decoders; both must fail with `kind` and a message
// containing every needle.
void expect_file_error(const std::string& text, errc kind, std::initializer_list<std::string> needles) {
    for (auto d : both_decoders) {
        try {
            decode_c1_file(text, d);
            ADD_FAILURE() << to_string(d) << ": decoded without error";
        } catch (const error& e) {
            EXPECT_EQ(e.kind(), kind) << to_string(d) << ": " << e.what();
            const std::string msg = e.what();
            for (const auto& n : needles)
                EXPECT_NE(msg.find(n), std::string::npos) << to_string(d) << ": '" << n << "' not in: " << msg;
        }
    }
}

// The fixture: a valid 2 KiB file whose inner JSON a test edits.
struct malformed : ::testing::Test {
    c1_file f = random_c1(11);
    ojson inner = ojson::parse(encode_c1_output_json(f.phase1_out));
    ojson& proof(size_t p, size_t c) { return inner["vanilla_proofs"]["StackedDrg2KiBV1"][p][c]; }
    std::string text() const { return wrap(inner.dump()); }
    static constexpr const char* proof01 = "Phase1Out.vanilla_proofs.StackedDrg2KiBV1[0][1]";
};

TEST_F(malformed, valid_fixture_decodes) {
    for (auto d : both_decoders) EXPECT_EQ(decode_c1_file(text(), d).phase1_out, f.phase1_out);
}

TEST_F(malformed, not_json_or_truncated) {
    expect_file_error("", errc::bad_input, {"C1 file", "not valid JSON"});
    expect_file_error("SectorNum=1", errc::bad_input, {"C1 file", "not valid JSON"});
    const std::string good = text();
    expect_file_error(good.substr(0, good.size() / 2), errc::bad_input, {"C1 file", "not valid JSON"});
    expect_file_error(good + "}", errc::bad_input, {"C1 file", "not valid JSON"});
    const std::string in = inner.dump();
    expect_file_error(wrap(in.substr(0, in.size() - 7)), errc::bad_input, {"Phase1Out", "not valid JSON"});
    expect_file_error(wrap("not json"), errc::bad_input, {"Phase1Out", "not valid JSON"});
    expect_file_error(wrap(""), errc::bad_input, {"Phase1Out", "not valid JSON"});
    for (auto d : both_decoders)
        EXPECT_THROW(decode_c1_output_json(in.substr(0, 100), d), error);
}

TEST_F(malformed, missing_field) {
    expect_file_error("{\"SectorNum\":1,\"Phase1Out\":\"\"}", errc::bad_input, {"SectorSize: missing field"});
    expect_file_error("{\"Phase1Out\":\"\",\"SectorSize\":2048}", errc::bad_input, {"SectorNum: missing field"});
    inner.erase("comm_d");
    expect_file_error(text(), errc::bad_input, {"Phase1Out.comm_d: missing field"});
    inner = ojson::parse(encode_c1_output_json(f.phase1_out));
    proof(0, 1)["encoding_proof"].erase("node");
    expect_file_error(text(), errc::bad_input, {std::string(proof01) + ".encoding_proof.node: missing field"});
    inner = ojson::parse(encode_c1_output_json(f.phase1_out));
    proof(0, 0)["replica_column_proofs"]["exp_parents"][7]["column"].erase("rows");
    expect_file_error(text(), errc::bad_input,
                      {"Phase1Out.vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.exp_parents[7].column."
                       "rows: missing field"});
    inner = ojson::parse(encode_c1_output_json(f.phase1_out));
    proof(0, 1)["comm_r_last_proof"]["data"]["Single"]["path"]["path"][1].erase("index");
    expect_file_error(text(), errc::bad_input,
                      {std::string(proof01) + ".comm_r_last_proof.data.Single.path.path[1].index: missing field"});
}

TEST_F(malformed, wrong_json_type) {
    expect_file_error("[1,2]", errc::bad_input, {"C1 file: expected an object", "got an array"});
    expect_file_error("{\"SectorNum\":\"5\",\"Phase1Out\":\"\",\"SectorSize\":2048}", errc::bad_input,
                      {"SectorNum: expected an integer (u64), got a string"});
    expect_file_error("{\"SectorNum\":5,\"Phase1Out\":null,\"SectorSize\":2048}", errc::bad_input,
                      {"Phase1Out: expected a string", "got null"});
    ojson saved = inner;
    inner["seed"] = "00ff";
    expect_file_error(text(), errc::bad_input, {"Phase1Out.seed: expected an array of 32 bytes, got a string"});
    inner = saved;
    inner["registered_proof"] = 5;
    expect_file_error(text(), errc::bad_input, {"Phase1Out.registered_proof: expected a string"});
    inner = saved;
    inner["vanilla_proofs"] = ojson::array();
    expect_file_error(text(), errc::bad_input, {"Phase1Out.vanilla_proofs: expected an object", "got an array"});
    inner = saved;
    proof(0, 1)["comm_d_proofs"]["data"]["Single"]["path"]["path"][3]["hashes"][0] = {{"a", 1}};
    expect_file_error(text(), errc::bad_input,
                      {std::string(proof01) + ".comm_d_proofs.data.Single.path.path[3].hashes[0]: expected an array "
                                              "of 32 bytes, got an object"});
    inner = saved;
    proof(0, 0)["replica_column_proofs"]["drg_parents"][2]["column"]["_h"] = 0;
    expect_file_error(text(), errc::bad_input,
                      {"replica_column_proofs.drg_parents[2].column._h: expected null", "got the integer 0"});
    inner = saved;
    proof(0, 0)["labeling_proofs"] = ojson::object();
    expect_file_error(text(), errc::bad_input, {".labeling_proofs: expected an array", "got an object"});
    inner = saved;
    proof(0, 0)["comm_r_last_proof"]["data"]["Single"] = true;
    expect_file_error(text(), errc::bad_input, {".comm_r_last_proof.data.Single: expected an object", "got a boolean"});
}

TEST_F(malformed, bad_base64) {
    std::string good = text();
    const size_t at = good.find("Phase1Out\":\"") + 12;
    std::string bad = good;
    bad[at + 5] = '!';
    expect_file_error(bad, errc::bad_input, {"Phase1Out: base64: invalid character '!' at offset 5"});
    bad = good;
    bad.insert(at + 8, "A");
    expect_file_error(bad, errc::bad_input, {"Phase1Out: base64: bad length"});
    expect_file_error("{\"SectorNum\":1,\"Phase1Out\":\"e30=e30=\",\"SectorSize\":2048}", errc::bad_input,
                      {"Phase1Out: base64: bad padding"});
    // The URL-safe alphabet is not Go's []byte encoding.
    expect_file_error("{\"SectorNum\":1,\"Phase1Out\":\"e3-_\",\"SectorSize\":2048}", errc::bad_input,
                      {"Phase1Out: base64: invalid character '-' at offset 2"});
}

TEST_F(malformed, wrong_array_length) {
    ojson saved = inner;
    proof(0, 1)["comm_d_proofs"]["data"]["Single"]["path"]["path"][3]["hashes"][0].erase(31);
    expect_file_error(text(), errc::bad_length,
                      {std::string(proof01) +
                       ".comm_d_proofs.data.Single.path.path[3].hashes[0]: expected an array of 32 bytes, got 31 "
                       "elements"});
    inner = saved;
    inner["ticket"].push_back(0);
    expect_file_error(text(), errc::bad_length, {"Phase1Out.ticket: expected an array of 32 bytes, got 33 elements"});
    inner = saved;
    inner["replica_id"] = ojson::array();
    expect_file_error(text(), errc::bad_length, {"Phase1Out.replica_id: expected an array of 32 bytes, got 0 elements"});
    inner = saved;
    proof(0, 0)["encoding_proof"]["parents"][36] = ojson::array({1, 2});
    expect_file_error(text(), errc::bad_length,
                      {"StackedDrg2KiBV1[0][0].encoding_proof.parents[36]: expected an array of 32 bytes, got 2"});
}

TEST_F(malformed, byte_out_of_range) {
    ojson saved = inner;
    inner["comm_r"][5] = 256;
    expect_file_error(text(), errc::bad_input, {"Phase1Out.comm_r[5]: byte value 256 is out of range 0..255"});
    inner = saved;
    inner["seed"][0] = -1;
    expect_file_error(text(), errc::bad_input, {"Phase1Out.seed[0]: byte value -1 is out of range 0..255"});
    inner = saved;
    proof(0, 1)["replica_column_proofs"]["c_x"]["column"]["rows"][1][31] = 1000;
    expect_file_error(text(), errc::bad_input,
                      {std::string(proof01) + ".replica_column_proofs.c_x.column.rows[1][31]: byte value 1000"});
    inner = saved;
    inner["ticket"][3] = 1.5;
    expect_file_error(text(), errc::bad_input,
                      {"Phase1Out.ticket[3]: expected a byte (an integer 0..255), got the floating-point number 1.5"});
    inner = saved;
    inner["ticket"][3] = "7";
    expect_file_error(text(), errc::bad_input, {"Phase1Out.ticket[3]: expected a byte", "got a string"});
}

TEST_F(malformed, non_canonical_field_element) {
    auto bytes = [](const domain& d) {
        ojson a = ojson::array();
        for (uint8_t b : d) a.push_back(b);
        return a;
    };
    domain r = r_minus_1();
    r[0] += 1;  // r itself
    domain ones;
    ones.fill(0xff);
    ojson saved = inner;
    inner["replica_id"] = bytes(ones);
    expect_file_error(text(), errc::non_canonical, {"Phase1Out.replica_id: not a canonical field element"});
    inner = saved;
    inner["comm_r"] = bytes(r);
    expect_file_error(text(), errc::non_canonical, {"Phase1Out.comm_r: not a canonical field element"});
    inner = saved;
    proof(0, 1)["comm_r_last_proof"]["data"]["Single"]["path"]["path"][1]["hashes"][6] = bytes(r);
    expect_file_error(text(), errc::non_canonical,
                      {std::string(proof01) + ".comm_r_last_proof.data.Single.path.path[1].hashes[6]: not a canonical"});
    inner = saved;
    proof(0, 0)["labeling_proofs"][1]["parents"][20] = bytes(ones);
    expect_file_error(text(), errc::non_canonical, {"[0][0].labeling_proofs[1].parents[20]: not a canonical"});
    // seed and ticket are raw bytes.
    inner = saved;
    inner["seed"] = bytes(ones);
    inner["ticket"] = bytes(r);
    for (auto d : both_decoders) EXPECT_EQ(decode_c1_file(text(), d).phase1_out.seed, ones);
}

TEST_F(malformed, unknown_registered_proof) {
    for (const char* name : {"StackedDrg4KiBV1_1", "stackeddrg2kibv1_1", "StackedDrg2KiBV1_2", ""}) {
        inner["registered_proof"] = name;
        expect_file_error(text(), errc::bad_input,
                          {"Phase1Out.registered_proof: unknown registered proof \"" + std::string(name) + "\"",
                           "(supported: StackedDrg2KiBV1_1, StackedDrg8MiBV1_1, StackedDrg512MiBV1_1, "
                           "StackedDrg32GiBV1_1, StackedDrg64GiBV1_1)"});
    }
}

// Registered proofs that the circuit does not prove are refused by the decoder, with the reason
// (porep/params.hpp: one table for both).
TEST_F(malformed, unsupported_registered_proof) {
    const struct {
        const char* name;
        const char* why;
    } cases[] = {
        {"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "NI-PoRep (non-interactive PoRep) is not supported"},
        {"StackedDrg2KiBV1_1_Feat_SyntheticPoRep", "Synthetic PoRep is not supported"},
        {"StackedDrg2KiBV1", "API version 1.0.0 proofs are not supported"},
    };
    for (const auto& c : cases) {
        inner["registered_proof"] = c.name;
        expect_file_error(text(), errc::bad_input,
                          {"Phase1Out.registered_proof: registered proof \"" + std::string(c.name) + "\": " + c.why,
                           "(supported: StackedDrg2KiBV1_1,"});
    }
}

// A whole NI-PoRep C1 file as the encoder writes it (the encoder writes any registered proof):
// refused, by both decoders, whatever its sector size.
TEST(c1_json, non_interactive_porep_file_is_refused) {
    for (const char* name : {"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep"}) {
        c1_file f = random_c1(4);
        f.phase1_out.registered_proof = name;
        const std::string text = encode_c1_file(f);
        for (auto d : both_decoders) {
            try {
                decode_c1_file(text, d);
                ADD_FAILURE() << name << " decoded with " << to_string(d);
            } catch (const error& e) {
                EXPECT_EQ(e.kind(), errc::bad_input);
                EXPECT_NE(std::string(e.what()).find("NI-PoRep (non-interactive PoRep) is not supported"),
                          std::string::npos)
                    << e.what();
            }
        }
        f.phase1_out.registered_proof = "StackedDrg2KiBV1_1";  // the same file with a supported name decodes
        EXPECT_EQ(decode_c1_file(encode_c1_file(f)), f);
    }
}

TEST_F(malformed, unknown_vanilla_proofs_variant) {
    ojson saved = inner;
    ojson partitions = inner["vanilla_proofs"]["StackedDrg2KiBV1"];
    inner["vanilla_proofs"] = {{"StackedDrg2KiBV1_1", partitions}};
    expect_file_error(text(), errc::bad_input,
                      {"Phase1Out.vanilla_proofs: unknown VanillaSealProof variant \"StackedDrg2KiBV1_1\"",
                       "StackedDrg2KiBV1, StackedDrg8MiBV1, StackedDrg512MiBV1, StackedDrg32GiBV1, StackedDrg64GiBV1"});
    inner["vanilla_proofs"] = {{"StackedDrg32GiBV1", partitions}};  // valid variant, wrong sector size
    expect_file_error(text(), errc::bad_input,
                      {"Phase1Out.vanilla_proofs.StackedDrg32GiBV1: variant does not match registered_proof "
                       "\"StackedDrg2KiBV1_1\", which expects \"StackedDrg2KiBV1\""});
    inner["vanilla_proofs"] = {{"StackedDrg2KiBV1", partitions}, {"StackedDrg8MiBV1", partitions}};
    expect_file_error(text(), errc::bad_input, {"Phase1Out.vanilla_proofs: expected an object with one key", "got 2 keys"});
    inner["vanilla_proofs"] = ojson::object();
    expect_file_error(text(), errc::bad_input, {"Phase1Out.vanilla_proofs: expected an object with one key", "got 0 keys"});
    // The Merkle proof's ProofData enum, too.
    inner = saved;
    ojson& data = proof(0, 1)["comm_d_proofs"]["data"];
    data = {{"Double", data["Single"]}};
    expect_file_error(text(), errc::bad_input,
                      {std::string(proof01) + ".comm_d_proofs.data: unknown ProofData variant \"Double\" (expected "
                                              "one of: Single, Sub, Top)"});
}

TEST_F(malformed, sector_size_inconsistent_with_registered_proof) {
    expect_file_error(wrap(inner.dump(), uint64_t{32} << 30), errc::bad_input,
                      {"SectorSize: 34359738368 does not match Phase1Out.registered_proof \"StackedDrg2KiBV1_1\"",
                       "2048 bytes"});
    expect_file_error(wrap(inner.dump(), 0), errc::bad_input, {"SectorSize: 0 does not match"});
}

TEST_F(malformed, negative_or_non_integer_numbers) {
    const std::string b64 = base64_encode(inner.dump());
    auto outer = [&](const std::string& num, const std::string& size) {
        return "{\"SectorNum\":" + num + ",\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":" + size + "}";
    };
    expect_file_error(outer("-1", "2048"), errc::bad_input,
                      {"SectorNum: expected a non-negative integer (u64), got the negative integer -1"});
    expect_file_error(outer("1", "2048.0"), errc::bad_input,
                      {"SectorSize: expected a non-negative integer (u64), got the floating-point number 2048.0"});
    expect_file_error(outer("1", "2.048e3"), errc::bad_input, {"SectorSize: expected a non-negative integer"});
    expect_file_error(outer("1.5", "2048"), errc::bad_input, {"SectorNum: expected a non-negative integer", "1.5"});
    for (auto d : both_decoders)
        EXPECT_EQ(decode_c1_file(outer("18446744073709551615", "2048"), d).sector_num, UINT64_MAX);
    ojson saved = inner;
    proof(0, 1)["encoding_proof"]["node"] = -5;
    expect_file_error(text(), errc::bad_input,
                      {std::string(proof01) + ".encoding_proof.node: expected a non-negative integer (u64), got the "
                                              "negative integer -5"});
    inner = saved;
    proof(0, 0)["comm_d_proofs"]["data"]["Single"]["path"]["path"][0]["index"] = 0.5;
    expect_file_error(text(), errc::bad_input,
                      {".comm_d_proofs.data.Single.path.path[0].index: expected a non-negative integer (u64), got the "
                       "floating-point number 0.5"});
    inner = saved;
    proof(0, 0)["labeling_proofs"][0]["layer_index"] = uint64_t{1} << 32;
    expect_file_error(text(), errc::bad_input,
                      {"[0][0].labeling_proofs[0].layer_index: value 4294967296 is out of range for u32"});
    inner = saved;
    proof(0, 0)["replica_column_proofs"]["c_x"]["column"]["index"] = -3;
    expect_file_error(text(), errc::bad_input,
                      {".replica_column_proofs.c_x.column.index: expected a non-negative integer (u32)"});
}

// Differential: single-character edits of a small file; the decoders must agree on every one
// (both accept with equal results, or both refuse with the same error kind).
TEST(c1_json, decoders_agree_on_mutated_input) {
    const shape tiny{"StackedDrg2KiBV1_1", 2048, 1, 1, 1, 0, 0, 2, 1};
    const c1_file f = random_c1(21, tiny);
    const std::string inner = encode_c1_output_json(f.phase1_out);
    const std::string outer = encode_c1_file(f);
    static constexpr std::string_view alphabet = "0123456789-+.eE,:[]{}\" \"nulltrue_hx";
    rng g(22);
    size_t refused = 0;
    for (int round = 0; round < 1500; ++round) {
        const bool mutate_outer = round % 5 == 0;
        std::string t = mutate_outer ? outer : inner;
        const size_t at = g.below(t.size());
        const char c = alphabet[g.below(alphabet.size())];
        switch (g.below(3)) {
            case 0: t.erase(at, 1); break;
            case 1: t.insert(at, 1, c); break;
            default: t[at] = c; break;
        }
        const std::string text = mutate_outer ? t : wrap(t, 2048, f.sector_num);
        std::optional<c1_file> result[2];
        std::optional<errc> kind[2];
        std::string message[2];
        for (int d = 0; d < 2; ++d) {
            try {
                result[d] = decode_c1_file(text, both_decoders[d]);
            } catch (const error& e) {
                kind[d] = e.kind();
                message[d] = e.what();
            }
        }
        ASSERT_EQ(kind[0], kind[1]) << "round " << round << "\nnlohmann: " << message[0]
                                    << "\nsimdjson: " << message[1];
        if (result[0]) {
            ASSERT_EQ(*result[0], *result[1]) << "round " << round;
        } else {
            ++refused;
        }
    }
    EXPECT_GT(refused, 500u);
}

// A 32 GiB-shaped file (10 partitions x 18 challenges, 11 layers, <8,8,0> trees): about 50 MB.
// Run with --gtest_also_run_disabled_tests to see the decoders' times.
TEST(c1_json, DISABLED_timing_32gib_shape) {
    const shape s32{"StackedDrg32GiBV1_1", uint64_t{32} << 30, 10, 18, 9, 1, 0, 30, 11};
    const c1_file f = random_c1(9, s32);
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    const std::string text = encode_c1_file(f);
    auto t1 = clock::now();
    std::printf("encode: %.1f MB in %.0f ms\n", text.size() / 1e6,
                std::chrono::duration<double, std::milli>(t1 - t0).count());
    for (auto d : both_decoders) {
        for (int rep = 0; rep < 2; ++rep) {
            auto a = clock::now();
            const c1_file g = decode_c1_file(text, d);
            auto b = clock::now();
            std::printf("decode %s: %.0f ms\n", std::string(to_string(d)).c_str(),
                        std::chrono::duration<double, std::milli>(b - a).count());
            EXPECT_EQ(g, f);
        }
    }
}

}  // namespace
}  // namespace c2lab::porep

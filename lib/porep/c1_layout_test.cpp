// The layout reader against the JSON decoders: whatever it accepts, nlohmann's DOM walker
// decodes to the same value; what it refuses, the decoders judge (c1_json_test.cpp tests them).
#include "porep/c1_layout.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/base64.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "porep/c1_json.hpp"
#include "porep/generator.hpp"

namespace c2lab::porep {
namespace {

const c1_file& generated_2kib() {
    static const c1_file f = generate_c1(config_for_sector(2048), 1);
    return f;
}

std::optional<c1_output> layout(std::string_view inner) {
    c1_output out;
    if (!read_c1_output_layout(inner, out)) return std::nullopt;
    return out;
}

// nlohmann's result, or the kind of its error.
struct outcome {
    std::optional<c1_output> value;
    std::optional<errc> kind;
};
outcome dom(std::string_view inner, c1_json_decoder d = c1_json_decoder::nlohmann) {
    try {
        return {decode_c1_output_json(inner, d), std::nullopt};
    } catch (const error& e) {
        return {std::nullopt, e.kind()};
    }
}

// The layout reader accepts `inner` only if nlohmann decodes it to the same value, and the two
// decoders (simdjson's tries the layout first) agree.
void expect_consistent(const std::string& inner, const std::string& what) {
    const std::optional<c1_output> fast = layout(inner);
    const outcome n = dom(inner);
    const outcome s = dom(inner, c1_json_decoder::simdjson);
    if (fast) {
        ASSERT_TRUE(n.value) << what << ": the layout reader accepted what nlohmann refuses";
        ASSERT_EQ(*fast, *n.value) << what;
    }
    ASSERT_EQ(n.kind, s.kind) << what;
    if (n.value) {
        ASSERT_EQ(*n.value, *s.value) << what;
    }
}

TEST(c1_layout, reads_what_the_encoder_writes) {
    const c1_file& f = generated_2kib();
    c1_file got;
    ASSERT_TRUE(read_c1_file_layout(encode_c1_file(f), got));
    EXPECT_EQ(got, f);
    EXPECT_EQ(layout(encode_c1_output_json(f.phase1_out)), f.phase1_out);
}

// Partitions of different sizes, long enough (several MB) to be split into pieces, read in
// arenas of 1 to 4 threads: the same value as written.
TEST(c1_layout, pieces_in_parallel_match_the_file) {
    c1_output o = generated_2kib().phase1_out;
    const challenge_proof c = o.vanilla_proofs.at(0).at(0);
    o.vanilla_proofs.clear();
    uint64_t node = 0;
    for (size_t n : {7u, 1u, 30u, 12u, 1u, 1u, 25u, 40u}) {
        auto& part = o.vanilla_proofs.emplace_back();
        for (size_t i = 0; i < n; ++i) {
            part.push_back(c);
            part.back().encoding_proof.node = ++node;  // every challenge tells where it belongs
        }
    }
    const std::string inner = encode_c1_output_json(o);
    ASSERT_GT(inner.size(), size_t{4} << 20);
    for (unsigned threads : {1u, 2u, 3u, 4u})
        parallel::in_arena(threads, [&] { EXPECT_EQ(layout(inner), o) << threads << " threads"; });
    // An empty partition: the layout reader may refuse it, the decoders read it.
    c1_output e = o;
    e.vanilla_proofs.insert(e.vanilla_proofs.begin() + 3, std::vector<challenge_proof>{});
    const std::string with_empty = encode_c1_output_json(e);
    parallel::in_arena(2, [&] {
        if (auto got = layout(with_empty)) {
            EXPECT_EQ(*got, e);
        }
        EXPECT_EQ(decode_c1_output_json(with_empty, c1_json_decoder::simdjson), e);
    });
    // Truncated inside the last piece: refused.
    parallel::in_arena(2, [&] { EXPECT_FALSE(layout(inner.substr(0, inner.size() - 5000))); });
}

// Replaces the array after the first occurrence of `key` in `inner` with `array`.
std::string with_array(const std::string& inner, const std::string& key, const std::string& array) {
    const size_t at = inner.find(key);
    EXPECT_NE(at, std::string::npos) << key;
    const size_t begin = at + key.size();
    const size_t end = inner.find(']', begin) + 1;
    return inner.substr(0, begin) + array + inner.substr(end);
}

std::string array_of(const std::vector<std::string>& numbers) {
    std::string s = "[";
    for (size_t i = 0; i < numbers.size(); ++i) s += (i ? "," : "") + numbers[i];
    return s + "]";
}

// Every byte value at the first, the last and a middle place of a hash array, as serde writes
// it: read, on the vector path (an array in the first challenge) and near the end of the text
// (the ticket, read with bounds checks).
TEST(c1_layout, every_byte_value) {
    const std::string inner = encode_c1_output_json(generated_2kib().phase1_out);
    for (const std::string key : {"\"root\":", "\"ticket\":"})
        for (int v = 0; v < 256; ++v)
            for (size_t i : {size_t{0}, static_cast<size_t>(v % 31), size_t{31}}) {
                if (i == 31 && key == "\"root\":" && v >= 0x73) continue;  // >= r: refuses_what_the_walker_reports
                std::vector<std::string> numbers(32, "1");
                numbers[i] = std::to_string(v);
                const auto got = layout(with_array(inner, key, array_of(numbers)));
                ASSERT_TRUE(got) << key << " " << v << " at " << i;
                const std::array<uint8_t, 32>& bytes = key == "\"ticket\":" ? got->ticket
                                                                            : got->vanilla_proofs[0][0].comm_d_proofs.root;
                for (size_t k = 0; k < 32; ++k) ASSERT_EQ(bytes[k], k == i ? v : 1) << key << " " << v << " at " << i;
            }
}

// Numbers serde would not write, arrays of the wrong length, whitespace: the layout reader
// refuses what nlohmann refuses, and whatever it accepts decodes the same.
TEST(c1_layout, spellings_of_a_byte) {
    const std::string inner = encode_c1_output_json(generated_2kib().phase1_out);
    const std::vector<std::string> spellings = {"0",   "00",  "01",  "007", "255", "256", "300", "999", "1000",
                                                "-0",  "-1",  "1.0", "1e1", "",    " 1", "1 ", "+1",  "0x1",
                                                "\"1\"", "null", "[1]", "2555", "25 5", "9", "10", "199", "200"};
    for (const std::string key : {"\"root\":", "\"ticket\":", "\"hashes\":["})
        for (const auto& s : spellings)
            for (size_t i : {size_t{0}, size_t{13}, size_t{31}}) {
                std::vector<std::string> numbers(32, "42");
                numbers[i] = s;
                const std::string text = with_array(inner, key, array_of(numbers));
                expect_consistent(text, key + " '" + s + "' at " + std::to_string(i));
                const bool serde = s == "0" || s == "255" || s == "9" || s == "10" || s == "199" || s == "200";
                const bool accept = serde && (key == "\"ticket\":" || i != 31 || std::stoi(s) < 0x73);
                EXPECT_EQ(layout(text).has_value(), accept) << key << " '" << s << "' at " << i;
            }
    for (size_t n : {0u, 1u, 31u, 33u, 40u}) {
        const std::string text = with_array(inner, "\"root\":", array_of(std::vector<std::string>(n, "5")));
        expect_consistent(text, std::to_string(n) + " elements");
        EXPECT_FALSE(layout(text)) << n;
    }
}

// Single edits of digits, commas and brackets, where the arrays are: agreement every time.
TEST(c1_layout, edits_of_number_arrays_agree_with_the_decoders) {
    c1_output o = generated_2kib().phase1_out;
    o.vanilla_proofs.at(0).resize(1);
    const std::string inner = encode_c1_output_json(o);
    static constexpr std::string_view alphabet = "0123456789,,]][ -.e";
    rng g(5);
    size_t accepted = 0;
    for (int round = 0; round < 1500; ++round) {
        std::string t = inner;
        size_t at = g.below(t.size());
        while (at < t.size() && !(t[at] >= '0' && t[at] <= '9') && t[at] != ',') ++at;  // into an array
        if (at == t.size()) continue;
        const char c = alphabet[g.below(alphabet.size())];
        switch (g.below(3)) {
            case 0: t.erase(at, 1); break;
            case 1: t.insert(at, 1, c); break;
            default: t[at] = c; break;
        }
        if (layout(t)) ++accepted;
        expect_consistent(t, "round " + std::to_string(round));
        if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(accepted, 40u);  // digit for digit edits that stay below 256 and canonical
}

TEST(c1_layout, refuses_other_layouts_which_the_decoders_read) {
    const c1_file& f = generated_2kib();
    const std::string inner = encode_c1_output_json(f.phase1_out);
    std::string spaced = inner;
    spaced.insert(spaced.find("\"comm_r\""), " ");
    std::string escaped = inner;
    escaped.replace(escaped.find("KiB"), 3, "Ki\\u0042");
    std::string reordered = inner;  // seed and ticket swapped
    const size_t seed = reordered.find(",\"seed\":"), ticket = reordered.find(",\"ticket\":");
    reordered = reordered.substr(0, seed) + reordered.substr(ticket, reordered.size() - 1 - ticket) +
                reordered.substr(seed, ticket - seed) + "}";
    for (const std::string& t : {spaced, escaped, reordered}) {
        EXPECT_FALSE(layout(t));
        EXPECT_EQ(decode_c1_output_json(t, c1_json_decoder::simdjson), f.phase1_out);
    }
    // The outer object: whitespace, an escaped character, another key order, a number serde would not write.
    const std::string b64 = base64_encode(inner);
    std::string b64_escaped = b64;  // "eyJ..." with its 'e' as \u0065
    ASSERT_EQ(b64_escaped[0], 'e');
    b64_escaped.replace(0, 1, "\\u0065");
    const std::string outers[] = {
        "{ \"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":2048}",
        "{\"SectorNum\":1,\"Phase1Out\":\"" + b64_escaped + "\",\"SectorSize\":2048}",
        "{\"SectorSize\":2048,\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\"}",
        "{\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":2048.0}",
        "{\"SectorNum\":01,\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":2048}",
        "{\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":2048}\n",
        "{\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"x\":\"y\",\"SectorSize\":2048}",  // a key between
        "{\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":}",
        "{\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":2048",
        "{\"SectorNum\":1,\"Phase1Out\":\"\",\"SectorSize\":2048}",
        "{\"SectorNum\":1,\"Phase1Out\":\"SectorSize\":2048}",
    };
    for (const auto& t : outers) {
        c1_file got;
        EXPECT_FALSE(read_c1_file_layout(t, got)) << t.substr(0, 40);
        std::optional<errc> kind[2];
        std::optional<c1_file> value[2];
        for (int d = 0; d < 2; ++d) try {
                value[d] = decode_c1_file(t, d == 0 ? c1_json_decoder::nlohmann : c1_json_decoder::simdjson);
            } catch (const error& e) {
                kind[d] = e.kind();
            }
        EXPECT_EQ(kind[0], kind[1]) << t.substr(0, 40);
        EXPECT_EQ(value[0], value[1]) << t.substr(0, 40);
    }
    c1_file plain;
    EXPECT_TRUE(read_c1_file_layout("{\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":2048}", plain));
    EXPECT_EQ(plain.phase1_out, f.phase1_out);
}

// The layout reader never names errors: a non-canonical hash, a proof c2lab does not prove, bad
// base64 are refused, and the decoder's walker reports them.
TEST(c1_layout, refuses_what_the_walker_reports) {
    const c1_file& f = generated_2kib();
    const std::string inner = encode_c1_output_json(f.phase1_out);
    std::vector<std::string> r(32, "255");  // 2^256 - 1 >= r
    EXPECT_FALSE(layout(with_array(inner, "\"leaf\":", array_of(r))));
    std::string unsupported = inner;
    unsupported.replace(unsupported.find("V1_1"), 4, "V1");
    EXPECT_FALSE(layout(unsupported));
    std::string outer = encode_c1_file(f);
    outer[outer.find("Phase1Out") + 20] = '!';
    c1_file got;
    EXPECT_FALSE(read_c1_file_layout(outer, got));
    try {
        decode_c1_file(outer, c1_json_decoder::simdjson);
        ADD_FAILURE() << "decoded bad base64";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        EXPECT_NE(std::string(e.what()).find("invalid character '!'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace c2lab::porep

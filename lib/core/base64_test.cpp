#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/base64.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"

namespace c2lab {
namespace {

std::vector<uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

// RFC 4648 section 10 test vectors.
TEST(base64, rfc4648_vectors) {
    const std::pair<const char*, const char*> vectors[] = {
        {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},         {"foo", "Zm9v"},
        {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
    };
    for (const auto& [plain, encoded] : vectors) {
        EXPECT_EQ(base64_encode(std::string_view(plain)), encoded);
        EXPECT_EQ(base64_decode(encoded), bytes_of(plain)) << encoded;
        EXPECT_EQ(base64_decoded_size(encoded), std::string_view(plain).size());
    }
}

TEST(base64, all_byte_values_and_lengths_round_trip) {
    rng g(42);
    for (size_t n = 0; n < 200; ++n) {
        std::vector<uint8_t> b(n);
        for (auto& x : b) x = static_cast<uint8_t>(g());
        const std::string e = base64_encode(b);
        EXPECT_EQ(e.size(), (n + 2) / 3 * 4);
        EXPECT_EQ(base64_decode(e), b);
    }
    std::vector<uint8_t> all(256);
    for (int i = 0; i < 256; ++i) all[i] = static_cast<uint8_t>(i);
    EXPECT_EQ(base64_decode(base64_encode(all)), all);
    // '+' and '/' are the standard alphabet's (not the URL-safe '-' and '_').
    EXPECT_EQ(base64_encode(std::vector<uint8_t>{0xfb, 0xff}), "+/8=");
}

// Asserts that decoding `text` fails with bad_input and a message containing every needle.
void expect_bad(std::string_view text, std::initializer_list<std::string_view> needles) {
    try {
        base64_decode(text);
        ADD_FAILURE() << "decoded: " << text;
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input) << text;
        const std::string msg = e.what();
        for (auto n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "'" << n << "' not in: " << msg;
    }
}

TEST(base64, rejects_bad_characters_naming_offset_and_character) {
    expect_bad("Zm9v!mFy", {"invalid character", "'!'", "offset 4"});
    expect_bad("Zm9vYmF-", {"'-'", "offset 7"});         // URL-safe alphabet
    expect_bad("Zm9v_mFy", {"'_'", "offset 4"});
    expect_bad("Zm9v YmFy", {"length"});                 // 9 characters
    expect_bad("Zm9v\nYmF", {"byte 0x0a", "offset 4"});  // no line breaks
    expect_bad("Zm9vYmF\x80", {"byte 0x80", "offset 7"});
}

TEST(base64, rejects_bad_length) {
    expect_bad("Z", {"bad length", "1 characters"});
    expect_bad("Zg=", {"bad length", "3 characters"});
    expect_bad("Zm9vY", {"bad length", "5 characters"});
    EXPECT_THROW(base64_decoded_size("abcde"), error);
}

TEST(base64, rejects_bad_padding) {
    expect_bad("Zg==Zg==", {"bad padding", "offset 2"});  // padding in the middle
    expect_bad("Z===", {"bad padding"});
    expect_bad("====", {"bad padding"});
    expect_bad("=Zm9", {"bad padding", "offset 0"});
    expect_bad("Zm=v", {"bad padding", "offset 2"});
    // Non-canonical: the bits that padding drops must be zero (RFC 4648 section 3.5).
    expect_bad("Zh==", {"bad padding", "non-zero", "'h'", "offset 1"});
    expect_bad("Zm9=", {"bad padding", "non-zero", "'9'", "offset 2"});
    EXPECT_EQ(base64_decode("Zg=="), bytes_of("f"));
    EXPECT_EQ(base64_decode("Zm8="), bytes_of("fo"));
}

TEST(base64, decode_to_checks_the_output_size) {
    std::vector<uint8_t> out(2);
    EXPECT_THROW(base64_decode_to("Zm9v", out), error);
    out.resize(3);
    base64_decode_to("Zm9v", out);
    EXPECT_EQ(out, bytes_of("foo"));
}

}  // namespace
}  // namespace c2lab

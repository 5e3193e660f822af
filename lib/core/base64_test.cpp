#include <gtest/gtest.h>

#include <openssl/evp.h>

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


// OpenSSL's decoder (EVP_DecodeBlock, which keeps the bytes of the padding as zeros) as an
// independent reference for valid text.
std::vector<uint8_t> openssl_decode(const std::string& text) {
    std::vector<uint8_t> out(text.size() / 4 * 3 + 1);
    const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                  static_cast<int>(text.size()));
    if (n < 0) return {};
    size_t pad = 0;
    if (!text.empty() && text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
    out.resize(static_cast<size_t>(n) - pad);
    return out;
}

std::string random_bytes_text(rng& g, size_t n) {
    std::vector<uint8_t> b(n);
    for (auto& x : b) x = static_cast<uint8_t>(g());
    return base64_encode(b);
}

// The vector loop (32 characters a step), the table loop and the chunked parallel decode
// agree with OpenSSL on every length around their block edges and on a large text.
TEST(base64, fast_paths_agree_with_openssl) {
    rng g(7);
    std::vector<size_t> sizes;
    for (size_t n = 0; n < 400; ++n) sizes.push_back(n);
    for (size_t n : {1000u, 3071u, 3072u, 3073u, 100000u, 300001u}) sizes.push_back(n);
    for (size_t n : sizes) {
        const std::string text = random_bytes_text(g, n);
        const std::vector<uint8_t> want = openssl_decode(text);
        ASSERT_EQ(want.size(), n);
        EXPECT_EQ(base64_decode(text), want) << n;
        for (size_t grain : {size_t{4}, size_t{64}, size_t{100}, size_t{4096}, base64_parallel_grain}) {
            std::vector<uint8_t> out(base64_decoded_size(text), 0xaa);
            base64_decode_to_parallel(text, out, grain);
            EXPECT_EQ(out, want) << n << " grain " << grain;
        }
    }
}

std::string error_of(const std::string& text, bool parallel, size_t grain = 64) {
    std::vector<uint8_t> out(base64_decoded_size(text));
    try {
        if (parallel)
            base64_decode_to_parallel(text, out, grain);
        else
            base64_decode_to(text, out);
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        return e.what();
    }
    return "decoded";
}

// Every byte value at every position of a text long enough for the vector loop: valid exactly
// for the alphabet, and an error names the character and its offset, the same serially and
// in parallel.
TEST(base64, every_byte_at_every_position) {
    rng g(11);
    const std::string good = random_bytes_text(g, 150);  // 200 characters, no padding
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t at = 0; at < good.size(); ++at)
        for (int c = 0; c < 256; ++c) {
            std::string text = good;
            text[at] = static_cast<char>(c);
            const bool valid = alphabet.find(static_cast<char>(c)) != std::string::npos;
            const std::string serial = error_of(text, false);
            if (valid) {
                EXPECT_EQ(serial, "decoded") << at << " " << c;
                if (serial == "decoded") {
                    EXPECT_EQ(base64_decode(text), openssl_decode(text));
                }
                continue;
            }
            if (c == '=' && at + 1 == good.size()) continue;  // padding: rejects_bad_padding
            EXPECT_NE(serial.find("offset " + std::to_string(at)), std::string::npos) << serial;
            if (c == '=') {
                EXPECT_NE(serial.find("bad padding"), std::string::npos) << serial;
            }
            EXPECT_EQ(error_of(text, true), serial) << at << " " << c;
        }
}

// A second bad character after the first: the error names the first, serially and in parallel
// (the parallel decode may meet the later one first).
TEST(base64, names_the_first_bad_character) {
    rng g(12);
    std::string text = random_bytes_text(g, 3000);
    text[3000] = '!';
    text[100] = '-';
    EXPECT_NE(error_of(text, false).find("'-' at offset 100"), std::string::npos) << error_of(text, false);
    EXPECT_EQ(error_of(text, true, 64), error_of(text, false));
    std::string pad = random_bytes_text(g, 3001);  // ends with "=="
    pad[pad.size() - 3] = 'h';                       // non-zero bits under the padding
    EXPECT_NE(error_of(pad, true, 64).find("non-zero"), std::string::npos);
    EXPECT_EQ(error_of(pad, true, 64), error_of(pad, false));
    std::string mid = random_bytes_text(g, 3000);
    mid[63] = '=';  // padding at the end of a parallel chunk is not the text's end
    EXPECT_NE(error_of(mid, true, 64).find("bad padding: '=' at offset 63"), std::string::npos)
        << error_of(mid, true, 64);
    std::vector<uint8_t> five(5);
    EXPECT_THROW(base64_decode_to_parallel("Zm9vYmF", five), error);  // length
}

}  // namespace
}  // namespace c2lab

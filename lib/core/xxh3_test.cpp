// XXH3-128 in pieces (core/xxh3.hpp): the streamed and the parallel digest agree with each other
// and with the definition computed from xxHash directly, for every way of cutting the input.
#include "core/xxh3.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/rng.hpp"

namespace c2lab {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
    rng g(seed);
    std::vector<uint8_t> b(n);
    for (auto& x : b) x = static_cast<uint8_t>(g());
    return b;
}

// The definition: XXH3-128 of each piece, canonical bytes concatenated, XXH3-128 of those.
xxh3_digest by_definition(const std::vector<uint8_t>& b, size_t piece) {
    std::vector<uint8_t> cat;
    XXH128_canonical_t c;
    for (size_t off = 0; off < b.size(); off += piece) {
        XXH128_canonicalFromHash(&c, XXH3_128bits(b.data() + off, std::min(piece, b.size() - off)));
        cat.insert(cat.end(), c.digest, c.digest + 16);
    }
    XXH128_canonicalFromHash(&c, XXH3_128bits(cat.data(), cat.size()));
    xxh3_digest d;
    std::memcpy(d.data(), c.digest, 16);
    return d;
}

TEST(xxh3_pieces, stream_and_parallel_match_the_definition) {
    constexpr size_t piece = 1000;
    for (size_t n : {size_t{0}, size_t{1}, piece - 1, piece, piece + 1, 3 * piece, 7 * piece + 123}) {
        const std::vector<uint8_t> b = random_bytes(n, n + 1);
        const xxh3_digest want = by_definition(b, piece);
        EXPECT_EQ(xxh3_pieces_of(b, piece), want) << n;
        for (size_t step : {size_t{1}, size_t{7}, piece, piece + 13, size_t{5000}}) {  // any cut of the stream
            xxh3_pieces_stream s(piece);
            for (size_t off = 0; off < n; off += step) s.update(b.data() + off, std::min(step, n - off));
            EXPECT_EQ(s.digest(), want) << n << " in steps of " << step;
        }
    }
}

TEST(xxh3_pieces, a_changed_byte_or_another_piece_size_changes_the_digest) {
    std::vector<uint8_t> b = random_bytes(5000, 9);
    const xxh3_digest d = xxh3_pieces_of(b, 1024);
    EXPECT_NE(xxh3_pieces_of(b, 2048), d);
    EXPECT_NE(d, xxh3_of(b.data(), b.size()));  // not the one-pass digest
    b[4321] ^= 1;
    EXPECT_NE(xxh3_pieces_of(b, 1024), d);
}

}  // namespace
}  // namespace c2lab

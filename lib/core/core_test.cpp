#include <gtest/gtest.h>

#include "core/cpu.hpp"
#include "core/error.hpp"
#include "core/hex.hpp"
#include "core/rng.hpp"

namespace c2lab {
namespace {

TEST(hex, round_trip_and_prefix) {
    std::vector<uint8_t> b = {0x00, 0x01, 0xab, 0xff};
    EXPECT_EQ(to_hex(b), "0001abff");
    EXPECT_EQ(from_hex("0001abff"), b);
    EXPECT_EQ(from_hex("0x0001ABFF"), b);
    EXPECT_TRUE(from_hex("").empty());
}

TEST(hex, rejects_bad_input_naming_the_position) {
    try {
        from_hex("00zz");
        FAIL();
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        EXPECT_NE(std::string(e.what()).find("position 2"), std::string::npos);
    }
    EXPECT_THROW(from_hex("abc"), error);
}

TEST(rng, deterministic_and_spread) {
    rng a(7), b(7), c(8);
    for (int i = 0; i < 10; ++i) {
        uint64_t x = a(), y = b();
        EXPECT_EQ(x, y);
    }
    EXPECT_NE(a(), c());
    std::array<int, 10> counts{};
    rng g(1);
    for (int i = 0; i < 100000; ++i) counts[g.below(10)]++;
    for (int n : counts) {
        EXPECT_GT(n, 9500);
        EXPECT_LT(n, 10500);
    }
}

TEST(cpu, asm_choice_follows_features) {
    const auto& f = cpu::detected();
    if (cpu::use_adx_asm) {
        EXPECT_TRUE(f.adx && f.bmi2);
    }
}

}  // namespace
}  // namespace c2lab

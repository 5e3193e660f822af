#include <gtest/gtest.h>

#include "core/cpu.hpp"
#include "core/error.hpp"
#include "core/file.hpp"

#include <cstdlib>
#include <filesystem>
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

TEST(file, atomic_write_replaces_or_leaves_the_old_file) {
    namespace fs = std::filesystem;
    std::string dir_template = (fs::temp_directory_path() / "c2lab-file-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir_template.data()), nullptr);
    const fs::path dir = dir_template;
    const std::string path = (dir / "out.bin").string();
    const std::vector<uint8_t> first = {1, 2, 3}, second = {4, 5};
    write_file_atomic(path, first);
    EXPECT_EQ(read_file(path), first);
    write_file_atomic(path, second);
    EXPECT_EQ(read_file(path), second);
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    // A failure while writing (here: the filler throws) keeps the old content, leaves no temp.
    EXPECT_THROW(write_file_atomic(path,
                                   [](int fd, const std::string& tmp) {
                                       const uint8_t junk[4] = {9, 9, 9, 9};
                                       write_all(fd, junk, sizeof junk, tmp);
                                       throw error(errc::io, "disk full (simulated)");
                                   }),
                 error);
    EXPECT_EQ(read_file(path), second);
    size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
    EXPECT_EQ(entries, 1u);
    // A directory that does not exist: errc::io naming the path.
    try {
        write_file_atomic((dir / "missing" / "x.bin").string(), first);
        FAIL();
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::io);
        EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_file((dir / "nope").string()), error);
    fs::remove_all(dir);
}

TEST(cpu, asm_choice_follows_features) {
    const auto& f = cpu::detected();
    if (cpu::use_adx_asm) {
        EXPECT_TRUE(f.adx && f.bmi2);
    }
}

}  // namespace
}  // namespace c2lab

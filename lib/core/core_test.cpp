#include <gtest/gtest.h>

#include "core/cpu.hpp"
#include "core/error.hpp"
#include "core/file.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>
#include "core/hex.hpp"
#include "core/rng.hpp"
#include "core/huge_pages.hpp"
#include "core/uninit_buffer.hpp"

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

// use_ifma only where AVX-512 is allowed (C2LAB_NO_AVX512 / C2LAB_PORTABLE unset) and present.
TEST(cpu, ifma_only_where_avx512_is_allowed) {
    if (cpu::use_ifma) {
        EXPECT_TRUE(cpu::avx512_allowed);
        EXPECT_TRUE(cpu::detected().avx512f && cpu::detected().avx512ifma);
    }
    const char* off = std::getenv("C2LAB_NO_AVX512");
    if (off != nullptr && std::string(off) == "1") {
        EXPECT_FALSE(cpu::avx512_allowed);
        EXPECT_FALSE(cpu::use_ifma);
    }
}

TEST(uninit_buffer, grows_keeps_its_storage_and_holds_what_is_written) {
    uninit_buffer<uint64_t> b;
    EXPECT_EQ(b.size(), 0u);
    b.resize_discard(1000);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_EQ(b.size(), 1000u);
    EXPECT_EQ(b.span().size(), 1000u);
    for (size_t i = 0; i < b.size(); ++i) b[i] = i * i;
    for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], i * i);
    const uint64_t* first = b.data();
    b.resize_discard(10);  // smaller: the same storage
    EXPECT_EQ(b.data(), first);
    EXPECT_EQ(b.size(), 10u);
    b.resize_discard(1000);  // back within the capacity: still the same storage
    EXPECT_EQ(b.data(), first);
    b.resize_discard(100000);  // larger: new storage, all of it writable
    EXPECT_EQ(b.size(), 100000u);
    for (size_t i = 0; i < b.size(); ++i) b[i] = ~i;
    EXPECT_EQ(b[99999], ~uint64_t{99999});
}

// The storage's alignment: a cache line below 2 MiB, the huge page from 2 MiB up (the kernel's
// advice needs whole aligned pages), for uninit_buffer<T, true> and huge_page_allocator alike.
TEST(huge_pages, storage_is_aligned_and_usable) {
    auto aligned = [](const void* p, uintptr_t to) { return reinterpret_cast<uintptr_t>(p) % to == 0; };
    uninit_buffer<uint64_t> plain;
    plain.resize_discard(size_t{1} << 20);  // 8 MiB, plain pages
    EXPECT_TRUE(aligned(plain.data(), 64));
    uninit_buffer<uint64_t, true> small, large;
    small.resize_discard(100);
    EXPECT_TRUE(aligned(small.data(), 64));
    large.resize_discard(huge_page_bytes / sizeof(uint64_t) + 1);  // just past one huge page
    EXPECT_TRUE(aligned(large.data(), huge_page_bytes));
    for (size_t i = 0; i < large.size(); ++i) large[i] = i ^ 0x5555;
    EXPECT_EQ(large[large.size() - 1], (large.size() - 1) ^ 0x5555);

    std::vector<uint32_t, huge_page_allocator<uint32_t>> v(huge_page_bytes / 4 * 3 / 2, 7u);  // 3 MiB
    EXPECT_TRUE(aligned(v.data(), huge_page_bytes));
    EXPECT_EQ(v.back(), 7u);
    v.assign(10, 9u);  // shrinking keeps the storage
    EXPECT_EQ(v.size(), 10u);
    std::vector<uint32_t, huge_page_allocator<uint32_t>> w(16, 1u);  // below 2 MiB: a cache line
    EXPECT_TRUE(aligned(w.data(), 64));
    w = v;  // copies between vectors of the allocator
    EXPECT_EQ(w, v);
}

// Resident pages of [p, p + bytes) by mincore (whole pages of an mmap'ed region).
size_t resident_pages(void* p, size_t bytes) {
    const size_t page = 4096, pages = (bytes + page - 1) / page;
    std::vector<unsigned char> in(pages);
    if (::mincore(p, bytes, in.data()) != 0) ADD_FAILURE() << "mincore failed";
    return static_cast<size_t>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return (c & 1) != 0; }));
}

// An anonymous private mapping, unmapped at the end: its pages are not resident until touched.
struct fresh_mapping {
    explicit fresh_mapping(size_t n) : bytes(n) {
        p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) p = nullptr;
        if (p) ::madvise(p, bytes, MADV_NOHUGEPAGE);  // counted in 4 KiB pages
    }
    ~fresh_mapping() {
        if (p) ::munmap(p, bytes);
    }
    char* at(size_t off) const { return static_cast<char*>(p) + off; }
    void* p = nullptr;
    size_t bytes;
};

// Whether this kernel populates on advice (MADV_POPULATE_WRITE, Linux 5.14).
bool kernel_populates() {
#ifdef MADV_POPULATE_WRITE
    fresh_mapping m(size_t{1} << 16);
    return m.p && ::madvise(m.p, m.bytes, MADV_POPULATE_WRITE) == 0 && resident_pages(m.p, m.bytes) == 16;
#else
    return false;
#endif
}

TEST(huge_pages, background_populate_maps_every_range_and_leaves_the_rest) {
    if (!kernel_populates()) GTEST_SKIP() << "this kernel does not populate pages on MADV_POPULATE_WRITE (Linux 5.14+)";
    const size_t mib = size_t{1} << 20;
    fresh_mapping m(16 * mib);
    ASSERT_NE(m.p, nullptr);
    ASSERT_EQ(resident_pages(m.p, m.bytes), 0u);
    // Three ranges of different sizes (one empty, one not page-aligned at either end), and a gap
    // between them that must stay untouched.
    {
        background_populate bp({{m.at(0), 5 * mib}, {m.at(6 * mib), 0}, {m.at(8 * mib + 100), 3 * mib - 200}}, 256 << 10);
        EXPECT_TRUE(bp.running());
        bp.wait();
        EXPECT_FALSE(bp.running());
    }
    EXPECT_EQ(resident_pages(m.at(0), 5 * mib), 5 * mib / 4096);
    EXPECT_EQ(resident_pages(m.at(5 * mib), 3 * mib), 0u);  // the gap
    EXPECT_EQ(resident_pages(m.at(8 * mib), 3 * mib), 3 * mib / 4096);  // the partial pages at its ends too
    EXPECT_EQ(resident_pages(m.at(11 * mib), 5 * mib), 0u);
    // Moved while running: the new owner waits for it.
    fresh_mapping n(4 * mib);
    background_populate moved;
    {
        background_populate bp({{n.p, n.bytes}}, 64 << 10);
        moved = std::move(bp);
    }
    moved.wait();
    EXPECT_EQ(resident_pages(n.p, n.bytes), 4 * mib / 4096);
    // Nothing to populate: no thread.
    EXPECT_FALSE(background_populate({{n.p, 0}}).running());
    EXPECT_FALSE(background_populate(std::vector<std::pair<void*, size_t>>{}).running());
}

TEST(huge_pages, background_populate_stops_early) {
    if (!kernel_populates()) GTEST_SKIP() << "this kernel does not populate pages on MADV_POPULATE_WRITE (Linux 5.14+)";
    const size_t bytes = size_t{256} << 20;
    fresh_mapping m(bytes);
    ASSERT_NE(m.p, nullptr);
    background_populate bp({{m.p, bytes}}, 64 << 10);  // 4096 slices
    bp.stop();  // at most the slice under way when the request is seen
    EXPECT_FALSE(bp.running());
    const size_t resident = resident_pages(m.p, bytes);
    EXPECT_LT(resident, bytes / 4096 / 2) << "stop() did not end the population early";
    bp.stop();  // a second stop is a no-op
}

}  // namespace
}  // namespace c2lab

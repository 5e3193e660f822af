// gpu/memory: the host_pinning parser everywhere; pinned and registered host memory, device
// buffers and timed copies where a CUDA device is usable (skipped elsewhere with the reason).
#include "gpu/memory/host_memory.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gpu/device.hpp"

namespace c2lab::gpu {
namespace {

#define C2_SKIP_WITHOUT_DEVICE()                                  \
    do {                                                          \
        if (const auto why = no_device_reason()) GTEST_SKIP() << *why; \
    } while (0)

// Runs f, which must throw c2lab::error of `kind`; returns its message.
template <class F>
std::string error_message(F&& f, errc kind) {
    try {
        f();
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no c2lab::error thrown";
    return {};
}

void fill(uint8_t* p, size_t n, uint32_t seed) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = uint8_t(x);
    }
}

struct mmap_region {
    void* p = MAP_FAILED;
    size_t n = 0;
    explicit mmap_region(size_t bytes) : n(bytes) {
        p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    ~mmap_region() {
        if (p != MAP_FAILED) munmap(p, n);
    }
    uint8_t* bytes() const { return static_cast<uint8_t*>(p); }
};

// ---- the host_pinning parser (no device needed) ----

TEST(HostPinning, ParsesEveryVariant) {
    EXPECT_EQ(parse_host_pinning("off"), host_pinning::off);
    EXPECT_EQ(parse_host_pinning("register"), host_pinning::register_);
    EXPECT_EQ(parse_host_pinning("malloc_host"), host_pinning::malloc_host);
}

TEST(HostPinning, ToStringRoundTrips) {
    for (auto p : {host_pinning::off, host_pinning::register_, host_pinning::malloc_host})
        EXPECT_EQ(parse_host_pinning(to_string(p)), p);
    EXPECT_EQ(to_string(host_pinning::register_), "register");
    EXPECT_EQ(host_pinning_names(), "off|register|malloc_host");
}

TEST(HostPinning, RejectsUnknownNamesNamingTheValidOnes) {
    for (const char* bad : {"", "on", "register_", "Register", "mlock", "cuda_register", "malloc_host "}) {
        const std::string msg = error_message([&] { parse_host_pinning(bad); }, errc::bad_input);
        EXPECT_NE(msg.find("host_pinning"), std::string::npos) << msg;
        std::string quoted = "'";
        quoted += bad;
        quoted += '\'';
        EXPECT_NE(msg.find(quoted), std::string::npos) << msg;
        for (const char* ok : {"off", "register", "malloc_host"}) EXPECT_NE(msg.find(ok), std::string::npos) << msg;
    }
}

// ---- without a usable device ----

TEST(HostMemoryNoDevice, AllocationsThrowDeviceErrors) {
    if (!no_device_reason()) GTEST_SKIP() << "a device is available: " << device_description();
    std::vector<uint8_t> host(4096);
    error_message([] { pinned_buffer b(4096); }, errc::device);
    error_message([] { device_buffer b(4096); }, errc::device);
    error_message([&] { host_registration r(host.data(), host.size()); }, errc::device);
}

TEST(HostMemoryNoDevice, EmptyObjectsNeedNoDevice) {
    pinned_buffer p;
    device_buffer d;
    host_registration r;
    EXPECT_EQ(p.data(), nullptr);
    EXPECT_EQ(p.size(), 0u);
    EXPECT_EQ(d.data(), nullptr);
    EXPECT_FALSE(r.registered());
    r.unregister();  // nothing to do
    pinned_buffer moved(std::move(p));
    EXPECT_EQ(moved.size(), 0u);
}

// ---- with a device ----

TEST(PinnedBuffer, AllocateWriteRead) {
    C2_SKIP_WITHOUT_DEVICE();
    const size_t n = 8u << 20;
    pinned_buffer b(n);
    ASSERT_NE(b.data(), nullptr);
    ASSERT_EQ(b.size(), n);
    auto* p = static_cast<uint8_t*>(b.data());
    fill(p, n, 1);
    std::vector<uint8_t> expect(n);
    fill(expect.data(), n, 1);
    EXPECT_EQ(std::memcmp(p, expect.data(), n), 0);

    pinned_buffer moved(std::move(b));
    EXPECT_EQ(b.data(), nullptr);
    EXPECT_EQ(moved.size(), n);
    EXPECT_EQ(std::memcmp(moved.data(), expect.data(), n), 0);
    moved = pinned_buffer(4096);  // the old allocation is freed
    EXPECT_EQ(moved.size(), 4096u);

    pinned_buffer empty(0);
    EXPECT_EQ(empty.data(), nullptr);
}

TEST(HostRegistration, MallocBufferRegistersAndStaysUsable) {
    C2_SKIP_WITHOUT_DEVICE();
    const size_t n = 16u << 20;
    std::unique_ptr<uint8_t, decltype(&std::free)> buf(static_cast<uint8_t*>(std::malloc(n)), &std::free);
    ASSERT_TRUE(buf);
    fill(buf.get(), n, 2);
    {
        host_registration r(buf.get(), n, register_flags::portable);
        EXPECT_TRUE(r.registered());
        EXPECT_EQ(r.data(), buf.get());
        EXPECT_EQ(r.size(), n);
        // Registered memory is a valid copy source.
        device_buffer d(n);
        EXPECT_GE(copy_to_device_ms(d, buf.get(), n), 0.0);
        r.unregister();
        EXPECT_FALSE(r.registered());
    }
    // Still the owner's memory after unregistration.
    std::vector<uint8_t> expect(n);
    fill(expect.data(), n, 2);
    EXPECT_EQ(std::memcmp(buf.get(), expect.data(), n), 0);
    fill(buf.get(), n, 3);
    // Registering it again after unregistration works.
    host_registration again(buf.get(), n);
    EXPECT_TRUE(again.registered());
}

TEST(HostRegistration, UntouchedMmapBufferRegistersAndUnregisters) {
    C2_SKIP_WITHOUT_DEVICE();
    const size_t n = 32u << 20;
    mmap_region m(n);
    ASSERT_NE(m.p, MAP_FAILED) << std::strerror(errno);
    {
        host_registration r(m.p, n);  // faults in every page
        EXPECT_TRUE(r.registered());
        fill(m.bytes(), n, 4);
    }  // the destructor unregisters
    std::vector<uint8_t> expect(n);
    fill(expect.data(), n, 4);
    EXPECT_EQ(std::memcmp(m.p, expect.data(), n), 0);
    fill(m.bytes(), n, 5);  // still writable
    host_registration r2(m.p, n, register_flags::portable | register_flags::mapped);
    EXPECT_TRUE(r2.registered());
}

TEST(HostRegistration, RegisteringTwiceIsADeviceError) {
    C2_SKIP_WITHOUT_DEVICE();
    const size_t n = 1u << 20;
    mmap_region m(n);
    ASSERT_NE(m.p, MAP_FAILED) << std::strerror(errno);
    host_registration first(m.p, n);
    const std::string msg = error_message([&] { host_registration second(m.p, n); }, errc::device);
    EXPECT_NE(msg.find("cudaHostRegister"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1.0 MiB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("already registered"), std::string::npos) << msg;
    // The first registration is untouched by the failed second one.
    EXPECT_TRUE(first.registered());
    first.unregister();
}

TEST(HostRegistration, NothingToRegisterIsBadInput) {
    // Checked before any CUDA call, so with or without a device (but not without CUDA).
#if !defined(C2LAB_HAVE_CUDA)
    GTEST_SKIP() << *no_device_reason();
#else
    error_message([] { host_registration r(nullptr, 4096); }, errc::bad_input);
#endif
}

TEST(DeviceBuffer, RoundTrip64MiB) {
    C2_SKIP_WITHOUT_DEVICE();
    const size_t n = 64u << 20;
    std::vector<uint8_t> src(n), back(n, 0);
    fill(src.data(), n, 6);
    device_buffer d(n);
    ASSERT_EQ(d.size(), n);
    ASSERT_NE(d.data(), nullptr);

    // Pageable host memory both ways.
    EXPECT_GT(copy_to_device_ms(d, src.data(), n), 0.0);
    EXPECT_GT(copy_to_host_ms(back.data(), d, n), 0.0);
    EXPECT_EQ(std::memcmp(src.data(), back.data(), n), 0);

    // Pinned host memory both ways.
    pinned_buffer pin(n);
    std::memset(pin.data(), 0, n);
    EXPECT_GT(copy_to_host_ms(pin.data(), d, n), 0.0);
    EXPECT_EQ(std::memcmp(src.data(), pin.data(), n), 0);
    fill(static_cast<uint8_t*>(pin.data()), n, 7);
    EXPECT_GT(copy_to_device_ms(d, pin.data(), n), 0.0);
    std::fill(back.begin(), back.end(), 0);
    copy_to_host_ms(back.data(), d, n);
    EXPECT_EQ(std::memcmp(pin.data(), back.data(), n), 0);
}

TEST(DeviceBuffer, CopyLargerThanTheBufferIsBadInput) {
    C2_SKIP_WITHOUT_DEVICE();
    device_buffer d(4096);
    std::vector<uint8_t> host(8192);
    const std::string msg = error_message([&] { copy_to_device_ms(d, host.data(), host.size()); }, errc::bad_input);
    EXPECT_NE(msg.find("8192 bytes"), std::string::npos) << msg;
    error_message([&] { copy_to_host_ms(host.data(), d, host.size()); }, errc::bad_input);
    EXPECT_EQ(copy_to_device_ms(d, host.data(), 0), 0.0);
}

}  // namespace
}  // namespace c2lab::gpu

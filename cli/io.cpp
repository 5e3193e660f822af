#include "io.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include <openssl/rand.h>

#include "core/error.hpp"
#include "core/hex.hpp"

namespace c2lab::cli {

namespace {
std::string sys_error() { return std::strerror(errno); }
}  // namespace

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw error(errc::io, "cannot open " + path + ": " + sys_error());
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw error(errc::io, "cannot read " + path);
    return bytes;
}

void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
    std::string tmp = path + ".tmp.XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw error(errc::io, "cannot create a temporary file for " + path + ": " + sys_error());
    auto fail = [&](const std::string& what) {
        const std::string msg = what + ": " + sys_error();
        ::close(fd);
        ::unlink(tmp.c_str());
        throw error(errc::io, msg);
    };
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("cannot write " + tmp);
        }
        done += static_cast<size_t>(n);
    }
    if (::fchmod(fd, 0644) != 0) fail("cannot chmod " + tmp);
    if (::fsync(fd) != 0) fail("cannot fsync " + tmp);
    if (::close(fd) != 0) {
        ::unlink(tmp.c_str());
        throw error(errc::io, "cannot close " + tmp + ": " + sys_error());
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string msg = "cannot rename " + tmp + " to " + path + ": " + sys_error();
        ::unlink(tmp.c_str());
        throw error(errc::io, msg);
    }
}

std::string fr_to_hex(const ff::fr& x) {
    std::array<uint8_t, ff::fr::bytes> b{};
    x.to_bytes_le(b);
    return to_hex(b);
}

ff::fr fr_from_hex(std::string_view text, const std::string& what) {
    std::vector<uint8_t> b;
    try {
        b = from_hex(text);
    } catch (const error& e) {
        throw error(e.kind(), what + ": " + e.what());
    }
    if (b.size() != ff::fr::bytes)
        throw error(errc::bad_length, what + ": expected " + std::to_string(ff::fr::bytes) + " bytes (" +
                                          std::to_string(2 * ff::fr::bytes) + " hex digits), got " +
                                          std::to_string(b.size()));
    return ff::fr::from_bytes_le(std::span<const uint8_t, ff::fr::bytes>(b.data(), ff::fr::bytes), what);
}

std::string format_inputs(std::span<const ff::fr> inputs) {
    std::string out;
    for (const auto& x : inputs) out += fr_to_hex(x) + "\n";
    return out;
}

std::vector<ff::fr> parse_inputs(std::string_view text, const std::string& source) {
    std::vector<ff::fr> out;
    std::istringstream in{std::string(text)};
    std::string line;
    for (size_t lineno = 1; std::getline(in, line); ++lineno) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') continue;
        out.push_back(fr_from_hex(std::string_view(line).substr(start), source + ":" + std::to_string(lineno)));
    }
    return out;
}

ff::fr random_fr_os() {
    using fr = ff::fr;
    constexpr uint64_t top_mask = (fr::bits % 64 == 0) ? ~uint64_t{0} : ((uint64_t{1} << (fr::bits % 64)) - 1);
    for (;;) {
        fr::repr x{};
        if (RAND_bytes(reinterpret_cast<unsigned char*>(x.data()), static_cast<int>(sizeof(x))) != 1)
            throw error(errc::internal, "RAND_bytes failed");
        x[fr::n_limbs - 1] &= top_mask;
        if (fr::is_canonical(x)) return fr::from_canonical(x);
    }
}

}  // namespace c2lab::cli

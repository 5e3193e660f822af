#include "core/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/error.hpp"

namespace c2lab {

namespace {

std::string sys_error() { return std::strerror(errno); }

std::string directory_of(const std::string& path) {
    auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw error(errc::io, "cannot open " + path + ": " + sys_error());
    std::vector<uint8_t> bytes;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) bytes.reserve(static_cast<size_t>(st.st_size));
    // One read per 64 KiB block (a file that grows or shrinks while read is read as it is).
    uint8_t block[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, block, sizeof block);
        if (n < 0) {
            if (errno == EINTR) continue;
            const std::string why = sys_error();
            ::close(fd);
            throw error(errc::io, "cannot read " + path + ": " + why);
        }
        if (n == 0) break;
        bytes.insert(bytes.end(), block, block + n);
    }
    ::close(fd);
    return bytes;
}

void write_all(int fd, const uint8_t* data, size_t size, const std::string& name) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw error(errc::io, "cannot write " + name + ": " + sys_error());
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
}

void write_file_atomic(const std::string& path, const std::function<void(int fd, const std::string& tmp)>& fill) {
    std::string tmp = path + ".tmp.XXXXXX";
    int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw error(errc::io, "cannot create a temporary file beside " + path + ": " + sys_error());
    try {
        fill(fd, tmp);
        if (::fchmod(fd, 0644) != 0) throw error(errc::io, "cannot chmod " + tmp + ": " + sys_error());
        if (::fsync(fd) != 0) throw error(errc::io, "cannot fsync " + tmp + ": " + sys_error());
        const int rc = ::close(fd);
        fd = -1;
        if (rc != 0) throw error(errc::io, "cannot close " + tmp + ": " + sys_error());
        if (::rename(tmp.c_str(), path.c_str()) != 0)
            throw error(errc::io, "cannot rename " + tmp + " to " + path + ": " + sys_error());
    } catch (...) {
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    const int dfd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)::fsync(dfd);  // best effort: the rename is durable once the directory is
        ::close(dfd);
    }
}

void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
    write_file_atomic(path, [&](int fd, const std::string& tmp) { write_all(fd, bytes.data(), bytes.size(), tmp); });
}

}  // namespace c2lab

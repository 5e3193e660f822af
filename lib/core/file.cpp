#include "core/file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>

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

// The registry of unlink_on_signal: slots claimed with a compare-exchange (0 free, 1 being
// filled, 2 holds a path); the handler only reads slots in state 2. Lock-free atomics and
// unlink are async-signal-safe. PATH_MAX (4096 on Linux) bytes per path.
constexpr int registry_slots = 64;
constexpr std::size_t registry_path_bytes = 4096;
struct registry_slot {
    std::atomic<int> state{0};
    char path[registry_path_bytes];
};
registry_slot registry[registry_slots];
static_assert(std::atomic<int>::is_always_lock_free);

constexpr std::array<int, 3> cleanup_signals = {SIGINT, SIGTERM, SIGHUP};

extern "C" void unlink_registered_and_reraise(int sig) {
    const int saved_errno = errno;
    for (auto& s : registry)
        if (s.state.load(std::memory_order_acquire) == 2) ::unlink(s.path);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    // The signal is blocked in this thread while the handler runs: it is delivered, with the
    // default action (the process ends, status 128 + sig), as soon as the handler returns.
    ::raise(sig);
    errno = saved_errno;
}

// A name beside path that does not exist yet: path.tmp.XXXXXX (mkstemp's alphabet).
std::string temp_name(const std::string& path) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    thread_local std::mt19937_64 g{std::random_device{}() ^ (uint64_t(::getpid()) << 32)};
    std::string name = path + ".tmp.";
    for (int i = 0; i < 6; ++i) name += alphabet[g() % (sizeof alphabet - 1)];
    return name;
}

// O_TMPFILE needs the kernel's support in the target's filesystem, and linkat of
// /proc/self/fd/N needs /proc; C2LAB_NAMED_TEMP_FILES=1 asks for the named path anyway.
std::atomic<bool> unnamed_unusable{false};  // a linkat through /proc was refused once
bool want_unnamed_temp() {
    if (const char* e = std::getenv("C2LAB_NAMED_TEMP_FILES"); e && *e && std::strcmp(e, "0") != 0) return false;
    static const bool proc = ::access("/proc/self/fd", X_OK) == 0;
    return proc && !unnamed_unusable.load(std::memory_order_relaxed);
}

void finish_file(int fd, const std::string& path) {
    if (::fchmod(fd, 0644) != 0) throw error(errc::io, "cannot chmod " + path + ": " + sys_error());
    if (::fsync(fd) != 0) throw error(errc::io, "cannot fsync " + path + ": " + sys_error());
}

void fsync_directory(const std::string& path) {
    const int dfd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)::fsync(dfd);  // best effort: the rename is durable once the directory is
        ::close(dfd);
    }
}

struct fd_owner {
    int fd = -1;
    ~fd_owner() {
        if (fd >= 0) ::close(fd);
    }
    void close_checked(const std::string& path) {
        const int rc = ::close(fd);
        fd = -1;
        if (rc != 0) throw error(errc::io, "cannot close " + path + ": " + sys_error());
    }
};

// Renames tmp over path, or removes tmp and throws.
void rename_into_place(const std::string& tmp, const std::string& path) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = sys_error();
        ::unlink(tmp.c_str());
        throw error(errc::io, "cannot rename " + tmp + " to " + path + ": " + why);
    }
}

// The unnamed temporary: false when the filesystem has no O_TMPFILE, or the finished file
// cannot be linked (nothing is left behind; the content is to be written again).
bool write_unnamed(const std::string& path, const std::function<void(int, const std::string&)>& fill) {
    fd_owner f;
    f.fd = ::open(directory_of(path).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (f.fd < 0) {
        if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) return false;
        throw error(errc::io, "cannot create a temporary file beside " + path + ": " + sys_error());
    }
    fill(f.fd, path);
    finish_file(f.fd, path);
    const std::string proc = "/proc/self/fd/" + std::to_string(f.fd);
    for (int attempt = 0;; ++attempt) {
        const std::string tmp = temp_name(path);
        unlink_on_signal guard(tmp);
        if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) != 0) {
            if (errno == EEXIST && attempt < 100) continue;
            // /proc without linkat rights (a sandbox): named temporaries from now on; the caller
            // writes the content again.
            if (errno == ENOENT || errno == EPERM || errno == EACCES || errno == EXDEV || errno == EINVAL) {
                unnamed_unusable.store(true, std::memory_order_relaxed);
                return false;
            }
            throw error(errc::io, "cannot link the finished temporary file of " + path + " as " + tmp + ": " +
                                      sys_error());
        }
        try {
            f.close_checked(path);
        } catch (...) {
            ::unlink(tmp.c_str());
            throw;
        }
        rename_into_place(tmp, path);
        return true;
    }
}

void write_named(const std::string& path, const std::function<void(int, const std::string&)>& fill) {
    for (int attempt = 0;; ++attempt) {
        const std::string tmp = temp_name(path);
        // Registered before it exists: a signal between open and the registration cannot leak it.
        unlink_on_signal guard(tmp);
        fd_owner f;
        f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (f.fd < 0) {
            if (errno == EEXIST && attempt < 100) continue;
            throw error(errc::io, "cannot create a temporary file beside " + path + ": " + sys_error());
        }
        try {
            fill(f.fd, path);
            finish_file(f.fd, path);
            f.close_checked(path);
        } catch (...) {
            ::unlink(tmp.c_str());
            throw;
        }
        rename_into_place(tmp, path);
        return;
    }
}

}  // namespace

unlink_on_signal::unlink_on_signal(const std::string& path) {
    install_signal_cleanup();
    if (path.size() >= registry_path_bytes) return;
    for (int i = 0; i < registry_slots; ++i) {
        int expected = 0;
        if (registry[i].state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
            std::memcpy(registry[i].path, path.c_str(), path.size() + 1);
            registry[i].state.store(2, std::memory_order_release);
            slot_ = i;
            return;
        }
    }
}

unlink_on_signal::~unlink_on_signal() {
    if (slot_ >= 0) registry[slot_].state.store(0, std::memory_order_release);
}

void install_signal_cleanup() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (int sig : cleanup_signals) {
            struct sigaction old {};
            if (::sigaction(sig, nullptr, &old) != 0) continue;
            if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;  // ignored, or someone's handler
            struct sigaction sa {};
            sa.sa_handler = unlink_registered_and_reraise;
            sigemptyset(&sa.sa_mask);
            for (int other : cleanup_signals) sigaddset(&sa.sa_mask, other);
            ::sigaction(sig, &sa, nullptr);
        }
    });
}

readonly_fd::readonly_fd(const std::string& path, const std::string& context) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw error(errc::io, context + "cannot open " + path + ": " + sys_error());
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const std::string e = sys_error();
        ::close(fd_);
        throw error(errc::io, context + "cannot stat " + path + ": " + e);
    }
    size_ = static_cast<size_t>(st.st_size);
}

readonly_fd::~readonly_fd() { ::close(fd_); }

void read_exact(int fd, uint8_t* p, size_t n, const std::string& path, const std::string& context) {
    while (n > 0) {
        const ssize_t r = ::read(fd, p, std::min<size_t>(n, size_t{1} << 30));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            throw error(errc::io, context + "cannot read " + path + ": " +
                                      (r < 0 ? sys_error() : std::string("the file shrank while being read")));
        p += r;
        n -= static_cast<size_t>(r);
    }
}

mapped_file::mapped_file(const std::string& path, const std::string& context) {
    const readonly_fd fd(path, context);
    size_ = fd.size();
    if (size_ > 0) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd.get(), 0);
        if (p == MAP_FAILED) throw error(errc::io, context + "cannot map " + path + ": " + sys_error());
        data_ = static_cast<const uint8_t*>(p);
    }
}

mapped_file::~mapped_file() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

void mapped_file::release(const uint8_t* begin, const uint8_t* end) const noexcept {
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const uintptr_t lo = (reinterpret_cast<uintptr_t>(begin) + page - 1) / page * page;
    const uintptr_t hi = reinterpret_cast<uintptr_t>(end) / page * page;
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

void mapped_file::advise_sequential() const noexcept {
    if (data_) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_SEQUENTIAL);
}

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

void write_file_atomic(const std::string& path, const std::function<void(int fd, const std::string& name)>& fill) {
    install_signal_cleanup();
    struct stat st {};
    const bool existed = ::stat(path.c_str(), &st) == 0;
    try {
        if (!want_unnamed_temp() || !write_unnamed(path, fill)) write_named(path, fill);
    } catch (const error& e) {
        throw error(e.kind(), std::string(e.what()) + " (" + path +
                                  (existed ? " is left as it was)" : " was not written)"));
    }
    fsync_directory(path);
}

void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
    write_file_atomic(path, [&](int fd, const std::string& name) { write_all(fd, bytes.data(), bytes.size(), name); });
}

}  // namespace c2lab

// Whole files, read and written the way c2lab writes every result: atomically.
//
// write_file_atomic(path, fill) lets fill write the content through write_all into a
// temporary file in path's directory, fsyncs it, gives it mode 0644, puts it in place with
// rename and fsyncs the directory. Readers see the old file or the new one, never a part.
//
// The temporary is unnamed where the filesystem allows it (O_TMPFILE: ext4, xfs, btrfs,
// tmpfs): nothing exists by name until the content is complete, so even SIGKILL (the OOM
// killer) leaves nothing behind; then it is linked (linkat through /proc/self/fd) to a
// unique path.tmp.XXXXXX and renamed over path. Elsewhere, or with C2LAB_NAMED_TEMP_FILES=1
// in the environment, it is path.tmp.XXXXXX from the start. Either way the name is in the
// registry below while it exists, so SIGINT, SIGTERM or SIGHUP removes it before the
// process ends.
//
// Whatever fails on the way (a full disk, a file-size limit, an exception of fill) removes
// the temporary and leaves the old path untouched; the c2lab::error (errc::io) names the
// step, the file and the system's reason, and says that path was left as it was.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace c2lab {

std::vector<uint8_t> read_file(const std::string& path);

// An open, read-only file descriptor and the file's size; closed on destruction. errc::io
// "<context>cannot open <path>: <reason>" (or cannot stat).
class readonly_fd {
public:
    explicit readonly_fd(const std::string& path, const std::string& context = {});
    ~readonly_fd();
    readonly_fd(const readonly_fd&) = delete;
    readonly_fd& operator=(const readonly_fd&) = delete;
    int get() const noexcept { return fd_; }
    size_t size() const noexcept { return size_; }

private:
    int fd_ = -1;
    size_t size_ = 0;
};

// n bytes from fd's current offset into p (short reads and EINTR retried); errc::io
// "<context>cannot read <path>: <reason>", or that the file shrank when it ends first.
void read_exact(int fd, uint8_t* p, size_t n, const std::string& path, const std::string& context = {});

// A whole file mapped read-only and private; unmapped on destruction. Its pages come in as
// they are touched and, being the file's, can be dropped again under memory pressure.
class mapped_file {
public:
    explicit mapped_file(const std::string& path, const std::string& context = {});
    ~mapped_file();
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;
    std::span<const uint8_t> bytes() const noexcept { return {data_, size_}; }
    // Drops the pages wholly inside [begin, end) from this process (MADV_DONTNEED): they stay
    // in the page cache, and a later touch maps them again with their contents (a private
    // mapping that was never written).
    void release(const uint8_t* begin, const uint8_t* end) const noexcept;
    // Advice (MADV_SEQUENTIAL): read ahead, and drop pages behind the reader first.
    void advise_sequential() const noexcept;

private:
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

// Writes all of data to fd (retrying short writes and EINTR); `name` is for the message.
void write_all(int fd, const uint8_t* data, size_t size, const std::string& name);

// fill(fd, name): write the content to fd; name is the file to speak of in messages (path).
// fill may be called a second time (on a fresh file) when the unnamed temporary cannot be
// linked into place, so it writes from its data, not from a stream it consumes.
void write_file_atomic(const std::string& path, const std::function<void(int fd, const std::string& name)>& fill);
void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

// Paths to remove if the process is ended by SIGINT, SIGTERM or SIGHUP: while an
// unlink_on_signal lives, its path is in a fixed registry (64 paths at once; more are not
// registered) that the signal handler walks, unlinking each (async-signal-safe: unlink
// only), before it re-raises the signal with the default action (so the exit status stays
// 128 + signal). The handlers are installed by the first registration, and only for signals
// whose disposition is still the default (an ignored SIGINT stays ignored).
class unlink_on_signal {
public:
    explicit unlink_on_signal(const std::string& path);
    ~unlink_on_signal();
    unlink_on_signal(const unlink_on_signal&) = delete;
    unlink_on_signal& operator=(const unlink_on_signal&) = delete;

private:
    int slot_ = -1;
};

// Installs the handlers of unlink_on_signal now (idempotent).
void install_signal_cleanup();

}  // namespace c2lab

#include "groth16/params_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <openssl/evp.h>
#include <tbb/task_group.h>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/hex.hpp"
#include "core/huge_pages.hpp"
#include "core/parallel.hpp"
#include "core/xxh3.hpp"

namespace c2lab::groth16 {

namespace {

using ff::fp;
constexpr size_t g1_bytes = 96, g2_bytes = 192, digest_bytes = 32;
constexpr size_t n_counts = 9;

// An origin record holds the XXH3-128 in 64 MiB pieces (core/xxh3.hpp: xxh3_pieces) of a file's
// whole contents, the stored checksum included.

// The origin record of a file just written or fully checked here (see params_file.hpp), with
// the XXH3-128 of the bytes that were written or checked.
void record_origin(const std::string& path, const xxh3_digest& contents) noexcept;

// ---- writing ------------------------------------------------------------------------

class hashing_writer {
public:
    hashing_writer(int fd, const std::string& path) : fd_(fd), path_(path), ctx_(EVP_MD_CTX_new()) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1)
            throw error(errc::internal, "write_parameters: cannot start SHA-256");
        buf_.reserve(capacity);
    }
    ~hashing_writer() { EVP_MD_CTX_free(ctx_); }
    hashing_writer(const hashing_writer&) = delete;
    hashing_writer& operator=(const hashing_writer&) = delete;

    void put(const void* data, size_t len) {
        const auto* p = static_cast<const uint8_t*>(data);
        buf_.insert(buf_.end(), p, p + len);
        if (buf_.size() >= capacity) flush();
    }
    void put_u32(uint32_t x) {
        uint8_t b[4];
        for (int i = 0; i < 4; ++i) b[i] = static_cast<uint8_t>(x >> (8 * i));
        put(b, 4);
    }
    void put_u64(uint64_t x) {
        uint8_t b[8];
        for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(x >> (8 * i));
        put(b, 8);
    }
    void put_fp(const fp& x) {
        for (uint64_t limb : x.mont) put_u64(limb);
    }
    void put(const g1_affine& p) {
        put_fp(p.x);
        put_fp(p.y);
    }
    void put(const g2_affine& p) {
        put_fp(p.x.c0);
        put_fp(p.x.c1);
        put_fp(p.y.c0);
        put_fp(p.y.c1);
    }
    template <class Points>
    void put_all(const Points& ps) {
        for (const auto& p : ps) put(p);
    }
    // Writes the buffered bytes and the digest of everything; returns the XXH3-128 of all the
    // bytes written (the digest included).
    xxh3_digest finish() {
        flush();
        uint8_t md[EVP_MAX_MD_SIZE];
        unsigned len = 0;
        if (EVP_DigestFinal_ex(ctx_, md, &len) != 1 || len != digest_bytes)
            throw error(errc::internal, "write_parameters: SHA-256 failed");
        write_raw(md, len);
        return whole_.digest();
    }

private:
    static constexpr size_t capacity = size_t{1} << 20;
    void flush() {
        if (buf_.empty()) return;
        if (EVP_DigestUpdate(ctx_, buf_.data(), buf_.size()) != 1)
            throw error(errc::internal, "write_parameters: SHA-256 failed");
        write_raw(buf_.data(), buf_.size());
        buf_.clear();
    }
    void write_raw(const uint8_t* p, size_t len) {
        whole_.update(p, len);
        write_all(fd_, p, len, path_);
    }
    int fd_;
    const std::string& path_;
    EVP_MD_CTX* ctx_;
    xxh3_pieces_stream whole_;
    std::vector<uint8_t> buf_;
};

// ---- reading ------------------------------------------------------------------------

// The file mapped (params_io::mmap, core/file.hpp's mapped_file): pages come in as the decoder
// touches them, and decode hands back (release) what both the hash and the decoder have passed.
// Without it the decoder's pass over the file would keep the whole file resident beside the
// decoded points, twice the parameters at the peak of the load (2 KiB: a 2.19 GB peak RSS of
// `prove` for 1.1 GB of parameters).
constexpr const char* read_context = "read_parameters: ";

// The whole file read into memory with read(2) first (params_io::read).
class read_file_bytes {
public:
    explicit read_file_bytes(const std::string& path) {
        const readonly_fd fd(path, read_context);
        try {
            data_.resize(fd.size());
        } catch (const std::bad_alloc&) {
            throw error(errc::resource, "read_parameters: " + path + ": cannot allocate " + std::to_string(fd.size()) +
                                            " bytes to read it (try params_io=mmap)");
        }
        read_exact(fd.get(), data_.data(), data_.size(), path, read_context);
    }
    std::span<const uint8_t> bytes() const noexcept { return data_; }

private:
    std::vector<uint8_t> data_;
};

uint64_t get_u64(const uint8_t* p) noexcept {
    if constexpr (std::endian::native == std::endian::little) {  // one load (GCC 12 left the byte loop as shifts)
        uint64_t x;
        std::memcpy(&x, p, sizeof x);
        return x;
    }
    uint64_t x = 0;
    for (int i = 7; i >= 0; --i) x = (x << 8) | p[i];
    return x;
}
uint32_t get_u32(const uint8_t* p) noexcept {
    uint32_t x = 0;
    for (int i = 3; i >= 0; --i) x = (x << 8) | p[i];
    return x;
}

// false when the limbs are not below p.
bool get_fp(const uint8_t* p, fp& out) noexcept {
    fp::repr r;
    for (size_t i = 0; i < r.size(); ++i) r[i] = get_u64(p + 8 * i);
    if (!fp::is_canonical(r)) return false;
    out = fp::from_mont(r);
    return true;
}

enum class point_problem { none, non_canonical, not_on_curve };

point_problem get_point(const uint8_t* p, g1_affine& out) noexcept {
    if (!get_fp(p, out.x) || !get_fp(p + 48, out.y)) return point_problem::non_canonical;
    return out.is_on_curve() ? point_problem::none : point_problem::not_on_curve;
}
point_problem get_point(const uint8_t* p, g2_affine& out) noexcept {
    if (!get_fp(p, out.x.c0) || !get_fp(p + 48, out.x.c1) || !get_fp(p + 96, out.y.c0) || !get_fp(p + 144, out.y.c1))
        return point_problem::non_canonical;
    return out.is_on_curve() ? point_problem::none : point_problem::not_on_curve;
}

[[noreturn]] void bad(const std::string& path, const std::string& what) {
    throw error(errc::bad_input, "read_parameters: " + path + ": " + what);
}

// Called with byte ranges of the file the decoder is done with (mapped files release them).
using release_fn = std::function<void(const uint8_t* begin, const uint8_t* end)>;

// Hands a range of the file back (release_fn) once both the hashing task and the decoder have
// passed it; each reports how far it got.
class release_tracker {
public:
    enum reader { hasher, decoder };
    release_tracker(const uint8_t* base, const release_fn& release) : base_(base), release_(release) {}
    void passed(reader r, size_t offset) {
        if (!release_) return;
        const std::lock_guard lock(m_);
        (r == hasher ? hashed_ : decoded_) = offset;
        const size_t upto = std::min(hashed_, decoded_);
        if (upto > released_) {
            release_(base_ + released_, base_ + upto);
            released_ = upto;
        }
    }

private:
    const uint8_t* base_;
    const release_fn& release_;
    std::mutex m_;
    size_t hashed_ = 0, decoded_ = 0, released_ = 0;
};

// f(piece) over bytes in 64 MiB pieces, each reported to the tracker once f has passed it.
template <class Fn>
void hash_pieces(std::span<const uint8_t> bytes, release_tracker& tracker, Fn&& f) {
    constexpr size_t piece = size_t{64} << 20;
    for (size_t off = 0; off < bytes.size(); off += piece) {
        const size_t len = std::min(piece, bytes.size() - off);
        f(bytes.data() + off, len);
        tracker.passed(release_tracker::hasher, off + len);
    }
}

// SHA-256 of every byte before the stored checksum against it; the XXH3-128 in pieces of all the
// bytes (for the origin record) into *whole.
bool checksum_matches(std::span<const uint8_t> bytes, release_tracker& tracker, xxh3_digest* whole) {
    const size_t size = bytes.size();
    uint8_t md[EVP_MAX_MD_SIZE];
    unsigned md_len = 0;
    xxh3_pieces_stream x;
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1;
    if (ok)
        hash_pieces(bytes.first(size - digest_bytes), tracker, [&](const uint8_t* p, size_t len) {
            ok = ok && EVP_DigestUpdate(ctx, p, len) == 1;
            x.update(p, len);
        });
    ok = ok && EVP_DigestFinal_ex(ctx, md, &md_len) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok || md_len != digest_bytes) throw error(errc::internal, "read_parameters: SHA-256 failed");
    x.update(bytes.data() + size - digest_bytes, digest_bytes);
    *whole = x.digest();
    tracker.passed(release_tracker::hasher, size);
    return std::memcmp(md, bytes.data() + size - digest_bytes, digest_bytes) == 0;
}

// A file this machine wrote or checked (params_check::own): the XXH3-128 in pieces of all its
// bytes against the origin record's, the pieces on every thread (xxh3_pieces_of). XXH3 runs at
// about 8 GB/s on one core against SHA-256's 1.3 GB/s (Intel Xeon, SHA extensions), which was the
// longest thread of such a load; in pieces on two threads the 2 KiB parameters' 1.1 GB took
// 109-111 ms against 216-220 ms in one pass. The mapped range is handed back once it is all hashed.
bool contents_match(std::span<const uint8_t> bytes, release_tracker& tracker, const xxh3_digest& recorded) {
    const bool match = xxh3_pieces_of(bytes) == recorded;
    tracker.passed(release_tracker::hasher, bytes.size());
    return match;
}

// The in-memory point is the file's record (x then y, Montgomery limbs, the identity all zeros).
static_assert(sizeof(g1_affine) == g1_bytes && sizeof(g2_affine) == g2_bytes);
static_assert(std::is_trivially_copyable_v<g1_affine> && std::is_trivially_copyable_v<g2_affine>);

// A query vector of count points, its pages faulted in by all threads first: resize then
// zero-fills them at memory speed instead of taking 270,000 page faults one by one at 2 KiB
// (1.1 GB in all).
template <class P>
void make_room(std::vector<P>& out, size_t count) {
    out.clear();
    out.reserve(count);
    populate_pages_in_parallel(out.data(), count * sizeof(P));
    out.resize(count);
}

// out must have count elements (make_room).
template <class P>
void read_points(const std::string& path, const char* name, const uint8_t*& at, size_t count, std::vector<P>& out,
                 const std::function<void()>& done = {}, bool trusted = false) {
    constexpr size_t bytes = sizeof(typename P::field) == sizeof(fp) ? g1_bytes : g2_bytes;
    if (out.size() != count) make_room(out, count);
    const uint8_t* base = at;
    if (trusted && std::endian::native == std::endian::little) {
        // A file whose origin record matches (params_check::own): the records are copied as they
        // are; the checksum, hashed beside, still has to match.
        parallel::for_chunks(count, 8192, [&](size_t lo, size_t hi) {
            std::memcpy(static_cast<void*>(out.data() + lo), base + lo * bytes, (hi - lo) * bytes);
        });
        at += count * bytes;
        if (done) done();
        return;
    }
    std::atomic<size_t> first_bad{std::numeric_limits<size_t>::max()};
    parallel::for_chunks(count, 1024, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
            point_problem pr = get_point(base + i * bytes, out[i]);
            if (pr != point_problem::none) {
                size_t cur = first_bad.load();
                while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
                }
                return;
            }
        }
    });
    at += count * bytes;
    if (done) done();
    size_t i = first_bad.load();
    if (i != std::numeric_limits<size_t>::max()) {
        // The first bad point, whichever chunk found it: decode it again to name the problem.
        P tmp;
        point_problem pr = get_point(base + i * bytes, tmp);
        bad(path, std::string("point ") + name + "[" + std::to_string(i) + "] " +
                      (pr == point_problem::non_canonical ? "has a coordinate not below p" : "is not on the curve"));
    }
}

// A trusted query borrowed where it lies: count records at `at` (the in-memory points), kept
// alive by keeper. Records are 96 or 192 bytes from an offset that is a multiple of 8 in a
// page-aligned mapping, so the points are aligned.
template <class P>
void borrow_points(const std::shared_ptr<const void>& keeper, const uint8_t*& at, size_t count, query_points<P>& out) {
    if (reinterpret_cast<uintptr_t>(at) % alignof(P) != 0)
        throw error(errc::internal, "read_parameters: a query's records are not aligned for its points");
    out = query_points<P>(keeper, reinterpret_cast<const P*>(at), count);
    at += count * sizeof(P);
}

template <class P>
P read_vk_point(const std::string& path, const char* name, const uint8_t*& at) {
    std::vector<P> one;
    read_points(path, name, at, 1, one);
    bool ok;
    if constexpr (sizeof(typename P::field) == sizeof(fp))
        ok = ec::g1_in_subgroup(one[0]);
    else
        ok = ec::g2_in_subgroup(one[0]);
    if (!ok) bad(path, std::string("verifying key point ") + name + " is not in the prime-order subgroup");
    return one[0];
}

}  // namespace

uint64_t params_file_bytes(uint64_t n, uint64_t num_inputs, uint64_t num_aux, uint64_t a_points,
                           uint64_t b_points) noexcept {
    // vk (3 G1, 3 G2), ic, h (n - 1), l, a, b_g1, b_g2, the checksum.
    return params_file_header_bytes + 3 * g1_bytes + 3 * g2_bytes +
           g1_bytes * (num_inputs + (n - 1) + num_aux + a_points + b_points) + g2_bytes * b_points + digest_bytes;
}

void write_parameters(const std::string& path, const parameters& params) {
    xxh3_digest written{};
    try {
        write_file_atomic(path, [&](int fd, const std::string& tmp) {
            hashing_writer w(fd, tmp);
            w.put(params_file_magic, sizeof params_file_magic);
            w.put_u32(params_file_version);
            w.put_u32(0);
            const auto& vk = params.vk;
            for (uint64_t c : {uint64_t(params.domain_size()), uint64_t(params.num_inputs()), uint64_t(params.num_aux()),
                               uint64_t(params.h.size()), uint64_t(params.l.size()), uint64_t(params.a.size()),
                               uint64_t(params.b_g1.size()), uint64_t(params.b_g2.size()), uint64_t(vk.ic.size())})
                w.put_u64(c);
            w.put(params.circuit_digest.data(), params.circuit_digest.size());
            w.put(vk.alpha_g1);
            w.put(vk.beta_g1);
            w.put(vk.beta_g2);
            w.put(vk.gamma_g2);
            w.put(vk.delta_g1);
            w.put(vk.delta_g2);
            w.put_all(vk.ic);
            w.put_all(params.h);
            w.put_all(params.l);
            w.put_all(params.a);
            w.put_all(params.b_g1);
            w.put_all(params.b_g2);
            written = w.finish();
        });
    } catch (const error& e) {
        throw error(e.kind(), std::string("write_parameters: ") + e.what());
    }
    record_origin(path, written);
}

namespace {

// The header's checks (magic, version, counts against each other and against the file size),
// on the first params_file_header_bytes of a file of `size` bytes (fewer when the file is shorter).
params_header parse_header(const std::string& path, std::span<const uint8_t> head, uint64_t size) {
    if (size < sizeof params_file_magic)
        bad(path, "truncated: " + std::to_string(size) + " bytes, not even the magic");
    if (std::memcmp(head.data(), params_file_magic, sizeof params_file_magic) != 0)
        bad(path, "bad magic (not a C2LABPRM parameters file)");
    if (size < params_file_header_bytes + digest_bytes)
        bad(path, "truncated: " + std::to_string(size) + " bytes, shorter than the header");
    const uint32_t version = get_u32(head.data() + 8);
    if (version == 1)
        bad(path, "version 1, written before parameters files recorded the digest of their circuit's structure "
                  "(this build reads version " + std::to_string(params_file_version) +
                  "); they must be made again");
    if (version != params_file_version)
        bad(path, "unsupported version " + std::to_string(version) + " (this build reads version " +
                      std::to_string(params_file_version) + ")");
    uint64_t c[n_counts];
    for (size_t i = 0; i < n_counts; ++i) c[i] = get_u64(head.data() + 16 + 8 * i);
    params_header h;
    h.n = c[0], h.num_inputs = c[1], h.num_aux = c[2], h.h = c[3], h.l = c[4], h.a = c[5], h.b_g1 = c[6],
    h.b_g2 = c[7], h.ic = c[8];
    std::memcpy(h.circuit_digest.data(), head.data() + 16 + 8 * n_counts, h.circuit_digest.size());
    const uint64_t n = h.n, ni = h.num_inputs, na = h.num_aux, nh = h.h, nl = h.l, n_a = h.a, nb1 = h.b_g1,
                   nb2 = h.b_g2, nic = h.ic;
    // Every count is bounded by the file size before any arithmetic on it.
    for (size_t i = 0; i < n_counts; ++i)
        if (c[i] > size) bad(path, "inconsistent counts: count " + std::to_string(i) + " is " + std::to_string(c[i]) +
                                       ", more than the file has bytes");
    if (n == 0 || (n & (n - 1)) != 0) bad(path, "inconsistent counts: domain size " + std::to_string(n) + " is not a power of two");
    if (nh != n - 1) bad(path, "inconsistent counts: h has " + std::to_string(nh) + " points for a domain of " + std::to_string(n));
    if (ni == 0 || nic != ni) bad(path, "inconsistent counts: ic has " + std::to_string(nic) + " points for " + std::to_string(ni) + " inputs");
    if (nl != na) bad(path, "inconsistent counts: l has " + std::to_string(nl) + " points for " + std::to_string(na) + " aux variables");
    if (n_a < ni || n_a > ni + na) bad(path, "inconsistent counts: a has " + std::to_string(n_a) + " points");
    if (nb1 != nb2 || nb1 > ni + na)
        bad(path, "inconsistent counts: b_g1 has " + std::to_string(nb1) + " points, b_g2 " + std::to_string(nb2));
    const uint64_t expect = params_file_bytes(n, ni, na, n_a, nb1);
    if (size < expect) bad(path, "truncated: " + std::to_string(size) + " bytes, the counts need " + std::to_string(expect));
    if (size > expect) bad(path, "trailing bytes: " + std::to_string(size) + " bytes, the counts need " + std::to_string(expect));

    return h;
}

// recorded: the XXH3-128 of an origin record that matches the file (params_check::own): then the
// points are taken unchecked and the contents compared with it instead of the SHA-256. Else
// every point is checked, and *whole (when given) gets the XXH3-128 of the bytes checked.
// keeper: what keeps `bytes` alive (a mapped file); given, a trusted decode borrows the query
// points where they lie in bytes instead of copying them (query_points).
parameters decode(const std::string& path, std::span<const uint8_t> bytes, const release_fn& release,
                  const std::optional<xxh3_digest>& recorded = std::nullopt, xxh3_digest* whole = nullptr,
                  const std::shared_ptr<const void>& keeper = nullptr) {
    const bool trusted = recorded.has_value();
    const bool borrow = trusted && keeper != nullptr && std::endian::native == std::endian::little;
    const size_t size = bytes.size();
    const params_header head = parse_header(path, bytes.first(std::min<size_t>(size, params_file_header_bytes)), size);
    const uint64_t nic = head.ic, nh = head.h, nl = head.l, n_a = head.a, nb1 = head.b_g1, nb2 = head.b_g2;

    // The checksum and the points at once: one task hashes the file in 64 MiB pieces while the
    // other threads decode and check the points (on a 2-core machine the hash took a third of
    // the load when it ran first). A mapped piece is handed back once both have passed it. A bad
    // point in a file whose checksum does not match is reported as the checksum mismatch.
    release_tracker tracker(bytes.data(), release);
    bool hash_ok = false;
    xxh3_digest checked{};
    tbb::task_group hashing;
    hashing.run([&] {
        hash_ok = trusted ? contents_match(bytes, tracker, *recorded) : checksum_matches(bytes, tracker, &checked);
    });
    parameters p;
    std::exception_ptr decode_error;  // reported only when the checksum matches
    try {
        p.circuit_digest = head.circuit_digest;
        const uint8_t* at = bytes.data() + params_file_header_bytes;
        const auto decoded = [&] { tracker.passed(release_tracker::decoder, size_t(at - bytes.data())); };
        auto& vk = p.vk;
        // The vectors made at once, each on a thread of its own: their zero-fills (about 0.14 s
        // for 1.1 GB on one thread) then overlap. Borrowed queries need none.
        tbb::task_group rooms;
        rooms.run([&] { make_room(vk.ic, nic); });
        if (!borrow) {
            rooms.run([&] { make_room(p.h.owned(), nh); });
            rooms.run([&] { make_room(p.l.owned(), nl); });
            rooms.run([&] { make_room(p.a.owned(), n_a); });
            rooms.run([&] { make_room(p.b_g1.owned(), nb1); });
            rooms.run([&] { make_room(p.b_g2.owned(), nb2); });
        }
        rooms.wait();
        vk.alpha_g1 = read_vk_point<g1_affine>(path, "alpha_g1", at);
        vk.beta_g1 = read_vk_point<g1_affine>(path, "beta_g1", at);
        vk.beta_g2 = read_vk_point<g2_affine>(path, "beta_g2", at);
        vk.gamma_g2 = read_vk_point<g2_affine>(path, "gamma_g2", at);
        vk.delta_g1 = read_vk_point<g1_affine>(path, "delta_g1", at);
        vk.delta_g2 = read_vk_point<g2_affine>(path, "delta_g2", at);
        read_points(path, "ic", at, nic, vk.ic, decoded, trusted);
        if (borrow) {
            borrow_points(keeper, at, nh, p.h);
            borrow_points(keeper, at, nl, p.l);
            borrow_points(keeper, at, n_a, p.a);
            borrow_points(keeper, at, nb1, p.b_g1);
            borrow_points(keeper, at, nb2, p.b_g2);
        } else {
            read_points(path, "h", at, nh, p.h.owned(), decoded, trusted);
            read_points(path, "l", at, nl, p.l.owned(), decoded, trusted);
            read_points(path, "a", at, n_a, p.a.owned(), decoded, trusted);
            read_points(path, "b_g1", at, nb1, p.b_g1.owned(), decoded, trusted);
            read_points(path, "b_g2", at, nb2, p.b_g2.owned(), decoded, trusted);
        }
        tracker.passed(release_tracker::decoder, size);
    } catch (...) {
        decode_error = std::current_exception();
    }
    hashing.wait();
    if (!hash_ok && trusted)
        bad(path, "checksum mismatch (XXH3-128 of the contents differs from the one in " + params_origin_path(path) +
                      ", recorded when this machine wrote or checked the file: it changed since)");
    if (!hash_ok) bad(path, "checksum mismatch (SHA-256 of the contents differs from the stored one)");
    if (decode_error) std::rethrow_exception(decode_error);
    if (whole != nullptr && !trusted) *whole = checked;
    return p;
}

}  // namespace

parameters decode_parameters(const std::string& path, std::span<const uint8_t> bytes) {
    return decode(path, bytes, {});
}

params_header read_parameters_header(const std::string& path) {
    const readonly_fd fd(path, read_context);
    uint8_t head[params_file_header_bytes];
    const size_t got = std::min<size_t>(fd.size(), sizeof head);
    read_exact(fd.get(), head, got, path, read_context);
    return parse_header(path, std::span<const uint8_t>(head, got), fd.size());
}

params_header header_of(const parameters& p) noexcept {
    params_header h;
    h.n = p.domain_size(), h.num_inputs = p.num_inputs(), h.num_aux = p.num_aux(), h.h = p.h.size(),
    h.l = p.l.size(), h.a = p.a.size(), h.b_g1 = p.b_g1.size(), h.b_g2 = p.b_g2.size(), h.ic = p.vk.ic.size();
    h.circuit_digest = p.circuit_digest;
    return h;
}

std::string params_origin_path(const std::string& path) { return path + ".origin"; }

std::string this_machine_id() {
    static const std::string id = [] {  // read once: a load asks two or three times
        for (const char* f : {"/etc/machine-id", "/var/lib/dbus/machine-id"}) {
            std::ifstream in(f);
            std::string line;
            if (in >> line && !line.empty()) return line;
        }
        char host[256] = {};
        if (::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') return std::string("host:") + host;
        return std::string();
    }();
    return id;
}

namespace {

// v2 added the XXH3-128 of the contents, v3 takes it in 64 MiB pieces (hashed on every thread); a
// record of an earlier version matches no file, so its file is checked in full once more and
// recorded again.
constexpr const char* origin_magic = "c2lab-params-origin-v3";

// All but the contents' digest: magic, machine, size, stored checksum.
std::string origin_prefix(uint64_t size, std::span<const uint8_t> checksum) {
    return std::string(origin_magic) + " " + this_machine_id() + " " + std::to_string(size) + " " + to_hex(checksum) + " ";
}

// The file's size and stored checksum (its last 32 bytes), read with pread; nullopt when it is
// shorter than a checksum or unreadable (the load itself then reports why).
std::optional<std::pair<uint64_t, std::array<uint8_t, digest_bytes>>> size_and_checksum(const std::string& path) {
    try {
        const readonly_fd fd(path, read_context);
        if (fd.size() < digest_bytes) return std::nullopt;
        std::array<uint8_t, digest_bytes> d{};
        if (::pread(fd.get(), d.data(), d.size(), static_cast<off_t>(fd.size() - digest_bytes)) !=
            static_cast<ssize_t>(d.size()))
            return std::nullopt;
        return std::pair{uint64_t(fd.size()), d};
    } catch (const error&) {
        return std::nullopt;
    }
}

// Best effort: a directory c2lab cannot write into keeps no record, and its loads check every point.
void record_origin(const std::string& path, const xxh3_digest& contents) noexcept {
    try {
        const auto sc = size_and_checksum(path);
        if (!sc || this_machine_id().empty()) return;
        const std::string line = origin_prefix(sc->first, sc->second) + "xxh3:" + to_hex(contents) + "\n";
        write_file_atomic(params_origin_path(path),
                          std::span(reinterpret_cast<const uint8_t*>(line.data()), line.size()));
    } catch (...) {
    }
}

}  // namespace

namespace {

// The contents' digest of the origin record of the file at path, when the record is this
// machine's and names the file's size and stored checksum.
std::optional<xxh3_digest> recorded_contents(const std::string& path) {
    const auto sc = size_and_checksum(path);
    if (!sc || this_machine_id().empty()) return std::nullopt;
    std::ifstream in(params_origin_path(path));
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    const std::string prefix = origin_prefix(sc->first, sc->second) + "xxh3:";
    if (line.size() != prefix.size() + 32 || line.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    try {
        const std::vector<uint8_t> d = from_hex(std::string_view(line).substr(prefix.size()));
        xxh3_digest r{};
        std::copy(d.begin(), d.end(), r.begin());
        return r;
    } catch (const error&) {
        return std::nullopt;
    }
}

}  // namespace

bool params_origin_matches(const std::string& path) { return recorded_contents(path).has_value(); }

parameters read_parameters(const std::string& path, params_io io, params_check check) {
    const std::optional<xxh3_digest> recorded =
        check == params_check::own ? recorded_contents(path) : std::optional<xxh3_digest>{};
    parameters p;
    xxh3_digest checked{};
    if (io == params_io::read) {
        const read_file_bytes file(path);
        p = decode(path, file.bytes(), {}, recorded, &checked);
    } else if (recorded) {
        // Trusted: the query points are the mapped file's pages, used where they lie (no copy);
        // the mapping lives as long as the parameters (or a copy of them).
        const auto file = std::make_shared<const mapped_file>(path, read_context);
        p = decode(path, file->bytes(), {}, recorded, &checked, file);
    } else {
        const mapped_file file(path, read_context);
        p = decode(path, file.bytes(), [&](const uint8_t* b, const uint8_t* e) { file.release(b, e); }, recorded,
                   &checked);
    }
    // Every point checked and the checksum matched: the record of these bytes lets the next
    // loads skip the point checks.
    if (check == params_check::own && !recorded) record_origin(path, checked);
    return p;
}

params_check parse_params_check(std::string_view name) {
    if (name == "full") return params_check::full;
    if (name == "own") return params_check::own;
    throw error(errc::bad_input, "params_check: unknown variant '" + std::string(name) + "' (expected full or own)");
}
std::string_view to_string(params_check c) noexcept { return c == params_check::own ? "own" : "full"; }

params_io parse_params_io(std::string_view name) {
    if (name == "mmap") return params_io::mmap;
    if (name == "read") return params_io::read;
    throw error(errc::bad_input, "params_io: unknown variant '" + std::string(name) + "' (expected mmap or read)");
}
std::string_view to_string(params_io io) noexcept { return io == params_io::mmap ? "mmap" : "read"; }

}  // namespace c2lab::groth16

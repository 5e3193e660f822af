#include "r1cs/pce.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <unordered_map>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.hpp"
#include "core/parallel.hpp"
#include "core/xxh3.hpp"
#include "r1cs/linear_combination.hpp"

namespace c2lab::r1cs {

synth_mode parse_synth_mode(std::string_view name) {
    if (name == "direct") return synth_mode::direct;
    if (name == "pce") return synth_mode::pce;
    if (name == "auto") return synth_mode::automatic;
    throw error(errc::bad_input, "synth: unknown variant '" + std::string(name) + "' (expected direct, pce or auto)");
}

std::string_view to_string(synth_mode m) noexcept {
    return m == synth_mode::pce ? "pce" : m == synth_mode::automatic ? "auto" : "direct";
}

fr_buffer::fr_buffer(size_t n) : n_(n) {
    if (n == 0) return;
    if (n > std::numeric_limits<size_t>::max() / sizeof(fr)) throw std::bad_alloc();
    // fr is trivially copyable and destructible: the storage holds its objects once written.
    // In 4 KiB pages, not huge ones: on the 2-core Intel Xeon VM the 2 KiB circuit's product
    // (3 x 128 MB, first touch) took 0.20 s in huge pages only where the process before had
    // freed huge pages; after a synth=direct run it took 1.31-1.47 s, the kernel zeroing
    // 2 MiB pages the hypervisor had not backed yet (clear_page_erms, perf). In 4 KiB pages:
    // 0.24-0.27 s either way.
    const size_t bytes = (n * sizeof(fr) + 63) / 64 * 64;
    p_.reset(static_cast<fr*>(std::aligned_alloc(64, bytes)));
    if (p_ == nullptr) throw std::bad_alloc();
}

namespace {

constexpr char magic[8] = {'C', '2', 'L', 'A', 'B', 'P', 'C', 'E'};
// Version 2: the checksum is XXH3-128 (16 bytes) instead of SHA-256 (32): a cache c2lab writes
// for itself, where the question is corruption. Loading the 2 KiB circuit's 184 MB took 284-297
// ms with SHA-256 (Intel Xeon, read into memory); a version-1 file is refused and rebuilt.
constexpr uint32_t format_version = 2;
constexpr size_t max_tag_bytes = 256;
constexpr size_t header_bytes = 8 + 4 + 4 + 8 * 3 + 8 + 8 * 3;  // 72
constexpr size_t digest_bytes = std::tuple_size_v<xxh3_digest>;
constexpr uint32_t id_one = 0, id_minus_one = 1;
constexpr const char* matrix_names[3] = {"A", "B", "C"};

struct fr_hash {
    size_t operator()(const fr& x) const noexcept {
        return static_cast<size_t>(x.mont[0] ^ (x.mont[1] * 0x9e3779b97f4a7c15ull) ^ (x.mont[2] >> 7) ^ x.mont[3]);
    }
};

class dictionary {
public:
    dictionary() {
        id(fr::one());
        id(-fr::one());
    }
    uint32_t id(const fr& k) {
        auto [it, fresh] = ids_.try_emplace(k, static_cast<uint32_t>(coeffs_.size()));
        if (fresh) {
            if (coeffs_.size() >= std::numeric_limits<uint32_t>::max())
                throw error(errc::bad_input, "precompiled_circuit: more than 2^32 distinct coefficients");
            coeffs_.push_back(k);
        }
        return it->second;
    }
    std::vector<fr> take() { return std::move(coeffs_); }

private:
    std::unordered_map<fr, uint32_t, fr_hash> ids_;
    std::vector<fr> coeffs_;
};

// Loads from the rows' bytes (a mapped file's sections need not be 8-byte aligned).
inline uint64_t load_u64(const uint8_t* p) noexcept {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline pce_entry load_entry(const uint8_t* p) noexcept {
    pce_entry e;
    std::memcpy(&e, p, sizeof e);
    return e;
}

// out[r] = sum over row r of coefficient * z[column], z = inputs ++ aux, for r in [lo, hi).
// checked (a mapped file): every row start, column and coefficient id is checked as it is
// read, errc::bad_input naming the matrix otherwise.
template <bool checked>
void evaluate_rows(const uint8_t* starts, const uint8_t* entries, uint64_t nnz, size_t lo, size_t hi,
                   const fr* inputs, const fr* aux, uint32_t ni, uint64_t columns, const fr* coeffs, uint64_t dict,
                   fr* out, const char* which) {
    uint64_t s0 = load_u64(starts + 8 * lo);
    for (size_t r = lo; r < hi; ++r) {
        const uint64_t s1 = load_u64(starts + 8 * (r + 1));
        if constexpr (checked)
            if (s1 < s0 || s1 > nnz)
                throw error(errc::bad_input, std::string("pre-compiled circuit: matrix ") + which + " row " +
                                                 std::to_string(r) + " has bad bounds (the file changed after it was opened?)");
        fr acc = fr::zero();
        for (uint64_t i = s0; i < s1; ++i) {
            const pce_entry e = load_entry(entries + 8 * i);
            if constexpr (checked)
                if (e.column >= columns || e.coeff >= dict)
                    throw error(errc::bad_input, std::string("pre-compiled circuit: matrix ") + which + " entry " +
                                                     std::to_string(i) +
                                                     " out of range (the file changed after it was opened?)");
            const fr& x = e.column < ni ? inputs[e.column] : aux[e.column - ni];
            if (e.coeff == id_one)
                acc += x;
            else if (e.coeff == id_minus_one)
                acc -= x;
            else
                detail::add_weighted(acc, x, coeffs[e.coeff]);
        }
        out[r] = acc;
        s0 = s1;
    }
}

// ---- the file ----

struct byte_sink {
    std::vector<uint8_t>* out = nullptr;
    int fd = -1;
    std::string name;
    xxh3_stream* md = nullptr;
    void put(const void* p, size_t n) {
        if (n == 0) return;
        md->update(p, n);
        if (out) {
            const auto* b = static_cast<const uint8_t*>(p);
            out->insert(out->end(), b, b + n);
        } else {
            write_all(fd, static_cast<const uint8_t*>(p), n, name);
        }
    }
    template <class T>
    void put_le(T v) {
        static_assert(std::endian::native == std::endian::little);
        put(&v, sizeof v);
    }
    void finish() {
        const xxh3_digest d = md->digest();
        if (out)
            out->insert(out->end(), d.begin(), d.end());
        else
            write_all(fd, d.data(), d.size(), name);
    }
};

[[noreturn]] void bad(const std::string& name, const std::string& what) {
    throw error(errc::bad_input, "pre-compiled circuit " + name + ": " + what);
}

// a + b, or nullopt-like false when it overflows.
bool add_ok(uint64_t& acc, uint64_t x) {
    if (acc > std::numeric_limits<uint64_t>::max() - x) return false;
    acc += x;
    return true;
}
bool mul_ok(uint64_t a, uint64_t b, uint64_t& out) {
    if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return false;
    out = a * b;
    return true;
}

std::string shape_text(uint64_t constraints, uint64_t inputs, uint64_t aux) {
    return std::to_string(constraints) + " constraints, " + std::to_string(inputs) + " inputs, " +
           std::to_string(aux) + " aux";
}

}  // namespace

// ---- the compiler ----

// Until finish() knows the counts, a column is tagged: input i as input_bit | i, aux j as j.
constexpr uint32_t input_bit = uint32_t{1} << 31;

struct pce_compiler::state {
    dictionary dict;
    pce_matrix m[3];
};

pce_compiler::pce_compiler() : s_(std::make_unique<state>()) {}
pce_compiler::~pce_compiler() = default;
pce_compiler::pce_compiler(pce_compiler&&) noexcept = default;
pce_compiler& pce_compiler::operator=(pce_compiler&&) noexcept = default;

void pce_compiler::reserve(uint64_t rows, uint64_t entries) {
    for (pce_matrix& mx : s_->m) {
        mx.starts.reserve(rows + 1);
        mx.entries.reserve(entries);
    }
}

void pce_compiler::add(unsigned m, variable v, const fr& k) {
    if (k.is_zero()) return;  // adds nothing, marks no density
    if (v.index >= input_bit)
        throw error(errc::bad_input, "precompiled_circuit: variable index " + std::to_string(v.index) +
                                         " does not fit a u32 column");
    const uint32_t col = v.is_input() ? (input_bit | static_cast<uint32_t>(v.index)) : static_cast<uint32_t>(v.index);
    // +-1 (68.7% of the 2 KiB circuit's terms) without hashing.
    const uint32_t id = k.is_one() ? id_one : (k == detail::minus_one_fr ? id_minus_one : s_->dict.id(k));
    s_->m[m].entries.push_back({col, id});
}

void pce_compiler::end_constraint() {
    for (pce_matrix& mx : s_->m) mx.starts.push_back(mx.entries.size());
}

size_t pce_compiler::num_constraints() const noexcept { return s_->m[0].num_rows(); }

precompiled_circuit pce_compiler::finish(size_t num_inputs, size_t num_aux, std::string tag) && {
    if (num_inputs == 0 || num_inputs + num_aux > std::numeric_limits<uint32_t>::max())
        throw error(errc::bad_input, "precompiled_circuit: " + std::to_string(num_inputs + num_aux) +
                                         " variables do not fit a u32 column (or no input)");
    if (tag.size() > max_tag_bytes) throw error(errc::bad_input, "precompiled_circuit: tag longer than 256 bytes");
    const uint32_t ni = static_cast<uint32_t>(num_inputs);
    for (int k = 0; k < 3; ++k) {
        pce_entry* e = s_->m[k].entries.data();
        const size_t n = s_->m[k].entries.size();
        for (size_t i = 0; i < n; ++i) {
            const uint32_t col = e[i].column;
            const bool input = col & input_bit;
            const uint32_t index = col & ~input_bit;
            if (index >= (input ? num_inputs : num_aux))
                throw error(errc::internal, std::string("precompiled_circuit: matrix ") + matrix_names[k] + " term " +
                                                std::to_string(i) + " names a variable past the assignment");
            e[i].column = input ? index : ni + index;
        }
    }
    precompiled_circuit p;
    p.num_constraints_ = num_constraints();
    p.num_inputs_ = num_inputs;
    p.num_aux_ = num_aux;
    p.tag_ = std::move(tag);
    p.a_ = std::move(s_->m[0]);
    p.b_ = std::move(s_->m[1]);
    p.c_ = std::move(s_->m[2]);
    for (int k = 0; k < 3; ++k) p.nnz_[k] = p.view(k).nnz;
    p.coeffs_ = s_->dict.take();
    p.compute_densities();
    return p;
}

precompiled_circuit precompiled_circuit::from_matrices(const sparse_matrix& a, const sparse_matrix& b,
                                                       const sparse_matrix& c, size_t num_inputs, size_t num_aux,
                                                       std::string tag) {
    if (a.num_rows() != b.num_rows() || a.num_rows() != c.num_rows())
        throw error(errc::internal, "precompiled_circuit: A, B and C differ in rows");
    pce_compiler comp;
    comp.reserve(a.num_rows(), std::max({a.num_entries(), b.num_entries(), c.num_entries()}));
    const sparse_matrix* ms[3] = {&a, &b, &c};
    for (size_t r = 0; r < a.num_rows(); ++r) {
        for (unsigned m = 0; m < 3; ++m)
            for (const auto& [v, k] : ms[m]->row(r)) comp.add(m, v, k);
        comp.end_constraint();
    }
    return std::move(comp).finish(num_inputs, num_aux, std::move(tag));
}

precompiled_circuit::rows_view precompiled_circuit::view(int k) const noexcept {
    if (map_) {
        const uint8_t* base = map_->bytes().data();
        return {base + map_starts_[k], base + map_entries_[k], nnz_[k]};
    }
    const pce_matrix& m = k == 0 ? a_ : (k == 1 ? b_ : c_);
    return {reinterpret_cast<const uint8_t*>(m.starts.data()), reinterpret_cast<const uint8_t*>(m.entries.data()),
            m.entries.size()};
}

bool precompiled_circuit::same_rows(const precompiled_circuit& o) const noexcept {
    if (num_constraints_ != o.num_constraints_) return false;
    for (int k = 0; k < 3; ++k) {
        const rows_view x = view(k), y = o.view(k);
        if (x.nnz != y.nnz || std::memcmp(x.starts, y.starts, (num_constraints_ + 1) * sizeof(uint64_t)) != 0 ||
            (x.nnz != 0 && std::memcmp(x.entries, y.entries, x.nnz * sizeof(pce_entry)) != 0))
            return false;
    }
    return true;
}

void precompiled_circuit::compute_densities(const std::string* file) {
    const uint32_t ni = static_cast<uint32_t>(num_inputs_);
    const uint64_t columns = num_inputs_ + num_aux_, dict = coeffs_.size();
    a_aux_density_ = density_bitmap(num_aux_);
    b_input_density_ = density_bitmap(num_inputs_);
    b_aux_density_ = density_bitmap(num_aux_);
    // Zero coefficients were dropped: every entry of A and B marks its variable (A's inputs
    // untracked). A file's entries are checked in the same pass, C's too.
    auto scan = [&](int k, auto&& mark) {
        const rows_view v = view(k);
        for (uint64_t i = 0; i < v.nnz; ++i) {
            const pce_entry e = load_entry(v.entries + 8 * i);
            if (file && (e.column >= columns || e.coeff >= dict))
                bad(*file, std::string("matrix ") + matrix_names[k] + ": entry " + std::to_string(i) +
                               " names a column or coefficient out of range");
            mark(e.column);
        }
    };
    scan(0, [&](uint32_t col) {
        if (col >= ni) a_aux_density_.set(col - ni);
    });
    scan(1, [&](uint32_t col) {
        if (col < ni)
            b_input_density_.set(col);
        else
            b_aux_density_.set(col - ni);
    });
    if (file) scan(2, [](uint32_t) {});
}

void precompiled_circuit::evaluate(std::span<const fr> inputs, std::span<const fr> aux, std::span<fr> a,
                                   std::span<fr> b, std::span<fr> c) const {
    if (inputs.size() != num_inputs_ || aux.size() != num_aux_)
        throw error(errc::bad_input, "precompiled_circuit: an assignment of " + std::to_string(inputs.size()) +
                                         " inputs and " + std::to_string(aux.size()) + " aux for a circuit of " +
                                         shape_text(num_constraints_, num_inputs_, num_aux_) +
                                         (tag_.empty() ? "" : " (" + tag_ + ")"));
    if (a.size() != num_constraints_ || b.size() != num_constraints_ || c.size() != num_constraints_)
        throw error(errc::bad_input, "precompiled_circuit: output of the wrong size");
    const uint32_t ni = static_cast<uint32_t>(num_inputs_);
    const uint64_t columns = num_inputs_ + num_aux_, dict = coeffs_.size();
    const fr* in = inputs.data();
    const fr* ax = aux.data();
    const fr* k = coeffs_.data();
    const rows_view v[3] = {view(0), view(1), view(2)};
    fr* out[3] = {a.data(), b.data(), c.data()};
    const bool checked = mapped();
    auto rows = [&](int m, size_t lo, size_t hi) {
        if (checked)
            evaluate_rows<true>(v[m].starts, v[m].entries, v[m].nnz, lo, hi, in, ax, ni, columns, k, dict, out[m], matrix_names[m]);
        else
            evaluate_rows<false>(v[m].starts, v[m].entries, v[m].nnz, lo, hi, in, ax, ni, columns, k, dict, out[m], matrix_names[m]);
    };
    // In memory: row blocks, the three matrices of each together, as a block's A, B and C rows
    // name mostly the same aux variables, which B and C then find in cache (pce_eval 2 KiB, one
    // thread: 116 -> 103 ms). Mapped: matrix after matrix, each read once in order; at 32 GiB,
    // with the page cache short of the whole file, six streams at once took 11.3-26.4 s against
    // 9.0 s (one thread, the product alone). About 5 entries per row and 4 ns per entry: 2^14
    // rows are a few hundred microseconds, well above a oneTBB task's microsecond.
    constexpr size_t block = size_t{1} << 14;
    const bool serial = parallel::arena_concurrency() == 1;
    if (checked) {
        for (int m = 0; m < 3; ++m) {
            if (serial) rows(m, 0, num_constraints_);
            else parallel::for_chunks(num_constraints_, block, [&](size_t lo, size_t hi) { rows(m, lo, hi); });
        }
        return;
    }
    auto body = [&](size_t lo, size_t hi) {
        for (size_t b = lo; b < hi; b += block) {
            const size_t e = std::min(hi, b + block);
            for (int m = 0; m < 3; ++m) rows(m, b, e);
        }
    };
    if (serial) body(0, num_constraints_);
    else parallel::for_chunks(num_constraints_, block, body);
}

precompiled_circuit::evaluation precompiled_circuit::evaluate(std::span<const fr> inputs, std::span<const fr> aux,
                                                              size_t padded_to) const {
    evaluation e = make_evaluation(padded_to);
    evaluate_into(inputs, aux, e);
    return e;
}

precompiled_circuit::evaluation precompiled_circuit::make_evaluation(size_t padded_to) const {
    const size_t size = std::max(num_constraints_, padded_to);
    return {fr_buffer(size), fr_buffer(size), fr_buffer(size)};
}

void precompiled_circuit::evaluate_into(std::span<const fr> inputs, std::span<const fr> aux, evaluation& e) const {
    const size_t size = e.a.size();
    if (size < num_constraints_ || e.b.size() != size || e.c.size() != size)
        throw error(errc::internal, "precompiled_circuit::evaluate_into: buffers of " + std::to_string(e.a.size()) +
                                        ", " + std::to_string(e.b.size()) + " and " + std::to_string(e.c.size()) +
                                        " elements for " + std::to_string(num_constraints_) + " constraints");
    // Every page faulted in first, by one call per 4 MiB on the arena's threads instead of a trap
    // per page, then the padding zeroed, the three buffers side by side (it was one thread). The
    // 2 KiB partition's synthesize stage in `c2lab prove`, the buffers 3 x 134 MB: 270-281 ->
    // 217-233 ms (2-core AMD EPYC of family 25, IFMA path, old and new alternated). Faulting
    // them in beside the witness's synthesis instead slowed that synthesis 2x (90-104 -> 194-207
    // ms, its thread off the CPU half the time: both threads faulting pages at once).
    fr_buffer* const abc[] = {&e.a, &e.b, &e.c};
    for (fr_buffer* v : abc) populate_pages_in_parallel(v->data(), size * sizeof(fr), size_t{4} << 20);
    parallel::for_chunks(3, 1, [&](size_t lo, size_t hi) {
        for (size_t k = lo; k < hi; ++k) std::fill(abc[k]->data() + num_constraints_, abc[k]->data() + size, fr::zero());
    });
    evaluate(inputs, aux, e.a.span().first(num_constraints_), e.b.span().first(num_constraints_),
             e.c.span().first(num_constraints_));
}

prefaulted_abc::prefaulted_abc(const precompiled_circuit& pce, size_t padded_to, presize_mode presize,
                               size_t min_bytes)
    : padded_to_(padded_to) {
    const size_t size = std::max(pce.num_constraints(), padded_to);
    if (presize != presize_mode::prefault || 3 * size * sizeof(fr) < min_bytes) return;
    abc_ = pce.make_evaluation(padded_to);
    ahead_ = true;
    std::vector<std::pair<void*, size_t>> ranges;
    for (fr_buffer* v : {&abc_.a, &abc_.b, &abc_.c}) ranges.emplace_back(v->data(), v->size() * sizeof(fr));
    populate_ = background_populate(std::move(ranges));
}

precompiled_circuit::evaluation prefaulted_abc::evaluate(const precompiled_circuit& pce, std::span<const fr> inputs,
                                                         std::span<const fr> aux) {
    populate_.stop();
    if (!ahead_) return pce.evaluate(inputs, aux, padded_to_);
    ahead_ = false;
    pce.evaluate_into(inputs, aux, abc_);
    return std::move(abc_);
}

template <class Sink>
void precompiled_circuit::write_to(Sink& s) const {
    if (map_) throw error(errc::internal, "precompiled_circuit: a mapped circuit is written by the file it maps");
    s.put(magic, sizeof magic);
    s.put_le(format_version);
    s.put_le(static_cast<uint32_t>(tag_.size()));
    s.put_le(static_cast<uint64_t>(num_constraints_));
    s.put_le(static_cast<uint64_t>(num_inputs_));
    s.put_le(static_cast<uint64_t>(num_aux_));
    s.put_le(static_cast<uint64_t>(coeffs_.size()));
    for (const pce_matrix* m : {&a_, &b_, &c_}) s.put_le(static_cast<uint64_t>(m->entries.size()));
    s.put(tag_.data(), tag_.size());
    for (const fr& k : coeffs_) {
        uint8_t b[fr::bytes];
        k.to_bytes_le(b);
        s.put(b, sizeof b);
    }
    for (const pce_matrix* m : {&a_, &b_, &c_}) {
        s.put(m->starts.data(), m->starts.size() * sizeof(uint64_t));
        s.put(m->entries.data(), m->entries.size() * sizeof(pce_entry));
    }
    s.finish();
}

std::vector<uint8_t> precompiled_circuit::serialize() const {
    xxh3_stream md;
    std::vector<uint8_t> out;
    out.reserve(header_bytes + tag_.size() + coeffs_.size() * fr::bytes +
                3 * (num_constraints_ + 1) * sizeof(uint64_t) + num_entries() * sizeof(pce_entry) + digest_bytes);
    byte_sink s{&out, -1, "bytes", &md};
    write_to(s);
    return out;
}

void precompiled_circuit::save(const std::string& path) const {
    write_file_atomic(path, [&](int fd, const std::string& name) {
        xxh3_stream md;
        byte_sink s{nullptr, fd, name, &md};
        write_to(s);
    });
}

namespace {

// Where the file's bytes come from: memory, or a file read section by section into the
// vectors that keep them (no copy of the whole file: a 32 GiB circuit's is gigabytes).
class span_source {
public:
    span_source(std::span<const uint8_t> b, const std::string& name) : b_(b), name_(name) {}
    uint64_t size() const noexcept { return b_.size(); }
    void get(void* p, size_t n) {
        if (n > b_.size() - pos_) bad(name_, "truncated");
        if (n) std::memcpy(p, b_.data() + pos_, n);
        pos_ += n;
    }
    uint64_t pos() const noexcept { return pos_; }
    // The next n bytes where they are, no copy.
    const uint8_t* next(size_t n) {
        if (n > b_.size() - pos_) bad(name_, "truncated");
        const uint8_t* p = b_.data() + pos_;
        pos_ += n;
        return p;
    }

private:
    std::span<const uint8_t> b_;
    const std::string& name_;
    size_t pos_ = 0;
};

class fd_source {
public:
    explicit fd_source(const std::string& path) : name_(path), fd_(path) {
        ::posix_fadvise(fd_.get(), 0, 0, POSIX_FADV_SEQUENTIAL);  // advice only
    }
    uint64_t size() const noexcept { return fd_.size(); }
    void get(void* p, size_t n) { read_exact(fd_.get(), static_cast<uint8_t*>(p), n, name_); }

private:
    std::string name_;
    readonly_fd fd_;
};

// Reads from a source and hashes what it reads.
template <class Source>
class hashing_reader {
public:
    hashing_reader(Source& src, const std::string& name) : src_(src), name_(name) {}
    void get(void* p, size_t n) {
        src_.get(p, n);
        md_.update(p, n);
    }
    template <class T>
    T get_le() {
        T v;
        get(&v, sizeof v);
        return v;
    }
    // Hashes the next n bytes where they lie (a source in memory); returns their offset.
    uint64_t skip(size_t n) {
        const uint64_t at = src_.pos();
        const uint8_t* p = src_.next(n);
        md_.update(p, n);
        return at;
    }
    // Reads the stored digest (not hashed) and compares.
    void check_digest() {
        xxh3_digest stored;
        src_.get(stored.data(), stored.size());
        if (md_.digest() != stored)
            bad(name_, "checksum mismatch (XXH3-128 of the contents differs from the stored one: corrupt)");
    }

private:
    Source& src_;
    const std::string& name_;
    xxh3_stream md_;
};

}  // namespace

template <class Source>
precompiled_circuit precompiled_circuit::read_from(Source& src, const std::string& name,
                                                   const capacity_hint* expected, const std::string* expected_tag,
                                                   std::shared_ptr<const mapped_file> map) {
    static_assert(std::endian::native == std::endian::little);
    const uint64_t file_size = src.size();
    if (file_size < header_bytes + digest_bytes)
        bad(name, "truncated (" + std::to_string(file_size) + " bytes, a header alone is " +
                      std::to_string(header_bytes + digest_bytes) + ")");
    hashing_reader<Source> r(src, name);
    char m[8];
    r.get(m, sizeof m);
    if (std::memcmp(m, magic, sizeof m) != 0) bad(name, "not a c2lab pre-compiled circuit (bad magic)");
    const uint32_t version = r.template get_le<uint32_t>();
    if (version != format_version)
        bad(name, "format version " + std::to_string(version) + ", this c2lab reads version " +
                      std::to_string(format_version) + " (delete it: it is rebuilt)");
    const uint32_t tag_len = r.template get_le<uint32_t>();
    const uint64_t constraints = r.template get_le<uint64_t>();
    const uint64_t inputs = r.template get_le<uint64_t>();
    const uint64_t aux = r.template get_le<uint64_t>();
    const uint64_t dict = r.template get_le<uint64_t>();
    uint64_t nnz[3];
    for (auto& n : nnz) n = r.template get_le<uint64_t>();

    // Sizes first: they must add up to the file's size before anything is allocated.
    if (tag_len > max_tag_bytes) bad(name, "tag of " + std::to_string(tag_len) + " bytes (at most 256)");
    if (inputs == 0 || inputs + aux < inputs || inputs + aux > std::numeric_limits<uint32_t>::max())
        bad(name, "impossible shape (" + shape_text(constraints, inputs, aux) + ")");
    if (dict < 2 || dict > std::numeric_limits<uint32_t>::max())
        bad(name, "impossible dictionary size " + std::to_string(dict));
    uint64_t expect = header_bytes + tag_len + digest_bytes, t = 0;
    bool ok = mul_ok(dict, fr::bytes, t) && add_ok(expect, t);
    for (uint64_t n : nnz) {
        uint64_t rows = constraints + 1;
        ok = ok && rows != 0 && mul_ok(rows, sizeof(uint64_t), t) && add_ok(expect, t) &&
             mul_ok(n, sizeof(pce_entry), t) && add_ok(expect, t);
    }
    if (!ok || expect != file_size)
        bad(name, ok ? "truncated or padded: the header's sizes make " + std::to_string(expect) +
                           " bytes, the file has " + std::to_string(file_size)
                     : "sizes in the header overflow");
    // The variables are not bytes of the file: a few hundred bytes could claim 2^32 of them and
    // make the densities take 1 GiB. Every variable of a circuit c2lab compiles stands in some
    // entry (the inputs in their input constraints), so there are at most as many as entries.
    const uint64_t entries = nnz[0] + nnz[1] + nnz[2];  // no overflow: each fits the file
    if (inputs + aux > entries)
        bad(name, "more variables than entries (" + shape_text(constraints, inputs, aux) + ", " +
                      std::to_string(entries) + " entries in A, B and C)");

    std::string tag(tag_len, '\0');
    r.get(tag.data(), tag_len);
    std::vector<uint8_t> dict_bytes(dict * fr::bytes);
    r.get(dict_bytes.data(), dict_bytes.size());
    precompiled_circuit p;
    pce_matrix* ms[3] = {&p.a_, &p.b_, &p.c_};
    for (int k = 0; k < 3; ++k) {
        if constexpr (requires { src.next(0); }) {
            if (map) {  // hashed where they lie in the mapping
                p.map_starts_[k] = r.skip((constraints + 1) * sizeof(uint64_t));
                p.map_entries_[k] = r.skip(nnz[k] * sizeof(pce_entry));
                continue;
            }
        }
        pce_matrix& mx = *ms[k];
        mx.starts.resize(constraints + 1);
        r.get(mx.starts.data(), mx.starts.size() * sizeof(uint64_t));
        mx.entries.resize(nnz[k]);
        r.get(mx.entries.data(), mx.entries.size() * sizeof(pce_entry));
    }
    // The checksum before trusting the contents.
    r.check_digest();

    if (expected && (expected->constraints != constraints || expected->inputs != inputs || expected->aux != aux))
        bad(name, "shape " + shape_text(constraints, inputs, aux) + ", expected " +
                      shape_text(expected->constraints, expected->inputs, expected->aux));
    if (expected_tag && !expected_tag->empty() && *expected_tag != tag)
        bad(name, "circuit '" + tag + "', expected '" + *expected_tag + "'");

    p.num_constraints_ = constraints;
    p.num_inputs_ = inputs;
    p.num_aux_ = aux;
    p.tag_ = std::move(tag);
    for (int k = 0; k < 3; ++k) p.nnz_[k] = nnz[k];
    p.map_ = std::move(map);
    p.coeffs_.reserve(dict);
    for (uint64_t i = 0; i < dict; ++i) {
        try {
            p.coeffs_.push_back(fr::from_bytes_le(std::span<const uint8_t, fr::bytes>(dict_bytes.data() + i * fr::bytes, fr::bytes)));
        } catch (const error&) {  // its one refusal, errc::non_canonical, named here as the file's
            bad(name, "dictionary coefficient " + std::to_string(i) + " is not below the Fr modulus");
        }
    }
    if (!(p.coeffs_[id_one] == fr::one()) || !(p.coeffs_[id_minus_one] == -fr::one()))
        bad(name, "the dictionary does not start with 1 and -1");
    for (int k = 0; k < 3; ++k) {
        const rows_view v = p.view(k);
        if (load_u64(v.starts) != 0 || load_u64(v.starts + 8 * constraints) != nnz[k])
            bad(name, std::string("matrix ") + matrix_names[k] + ": row starts do not span its " + std::to_string(nnz[k]) +
                          " entries");
        uint64_t prev = 0;
        for (uint64_t i = 1; i <= constraints; ++i) {
            const uint64_t s = load_u64(v.starts + 8 * i);
            if (s < prev)
                bad(name, std::string("matrix ") + matrix_names[k] + ": row " + std::to_string(i - 1) + " ends before it starts");
            prev = s;
        }
    }
    p.compute_densities(&name);  // and every entry's column and coefficient id checked
    return p;
}

precompiled_circuit precompiled_circuit::deserialize(std::span<const uint8_t> bytes, const std::string& name,
                                                     const capacity_hint* expected, const std::string* expected_tag) {
    span_source src(bytes, name);
    return read_from(src, name, expected, expected_tag);
}

precompiled_circuit precompiled_circuit::load(const std::string& path, const capacity_hint* expected,
                                              const std::string* expected_tag) {
    fd_source src(path);
    return read_from(src, path, expected, expected_tag);
}

precompiled_circuit precompiled_circuit::open(const std::string& path, const capacity_hint* expected,
                                              const std::string* expected_tag) {
    auto map = std::make_shared<const mapped_file>(path);
    map->advise_sequential();
    span_source src(map->bytes(), path);
    return read_from(src, path, expected, expected_tag, std::move(map));
}

}  // namespace c2lab::r1cs

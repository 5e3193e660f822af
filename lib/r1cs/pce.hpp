// precompiled_circuit: a circuit's A, B and C extracted once per shape as sparse matrices
// (the pre-compiled constraint evaluator of cuzk, the Filecoin C2 prover: synthesis only
// computes the witness, then a, b, c = M * (inputs ++ aux); cuzk measured 50.4 s -> 35.5 s
// of synthesis for ten 32 GiB partitions). Flag synth=direct|pce: direct evaluates A, B, C
// per constraint while synthesizing (proving_assignment), pce synthesizes into a
// witness_assignment and multiplies. Both give identical a, b, c, densities and assignments.
//
// Layout: per matrix, CSR rows of 8-byte entries {u32 column, u32 coefficient id}; column
// i < num_inputs is input i, the others aux (column - num_inputs); the ids index one
// dictionary of distinct coefficients shared by the three matrices, with id 0 = 1 and
// id 1 = -1 (added or subtracted without a multiplication). Zero coefficients are dropped:
// they add nothing and never mark a density bit. Measured on the 2 KiB PoRep circuit
// (bench_synth pce_build): 14.93 million entries for 2,687,961 rows, 68.7% of them +-1, a
// dictionary of 1,526 coefficients (the Poseidon constants and the powers of two of the
// packing and multieq constraints); 8 bytes per entry against 40 for a (variable, fr) pair;
// a 184 MB file (entries 119 MB, row starts 65 MB). Most other entries weigh a bit (0 or 1)
// by 2^i, so the product adds the coefficient for a one and skips a zero rather than
// multiplying (pce_eval on one thread: 164 -> 135 ms of CPU on this 2 KiB circuit).
//
// The densities are the proving assignment's (proving_assignment.hpp): a_aux_density = aux
// variables with a nonzero coefficient in some row of A (A's inputs are not tracked),
// b_input_density and b_aux_density the same for B, C untracked. They depend on the shape
// only and are computed once, from the matrices.
//
// The file (save / load; serialize / deserialize for bytes), little-endian:
//   magic "C2LABPCE", u32 version, u32 tag length, u64 constraints, inputs, aux,
//   u64 dictionary size, u64 entries of A, B, C; the tag (the circuit's name, at most 256
//   bytes); the dictionary (32-byte canonical little-endian Fr each); per matrix its
//   num_constraints + 1 row starts (u64) and its entries; the XXH3-128 of all of the above (16
//   bytes, core/xxh3.hpp: the file is a cache c2lab writes for itself).
// Loading checks, before allocating anything, that the header's sizes add up to the file's
// size and that it counts no more variables than entries in A, B and C (every variable of a
// circuit stands in some entry; the densities take a bit a variable); then the checksum, the
// shape against the expected one, every row start, column and coefficient id. Any mismatch is
// a c2lab::error (errc::bad_input) naming the file and what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/huge_pages.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/proving_assignment.hpp"  // presize_mode, default_prefault_min_bytes

namespace c2lab::r1cs {

// The flag synth=direct|pce|auto (auto: the job decides, pipeline/c2_job.hpp).
enum class synth_mode { direct, pce, automatic };
// "direct", "pce" or "auto"; anything else throws c2lab::error(errc::bad_input) naming the value.
synth_mode parse_synth_mode(std::string_view name);
std::string_view to_string(synth_mode m) noexcept;

// One entry of a pre-compiled row.
struct pce_entry {
    uint32_t column;  // input i: i; aux j: num_inputs + j
    uint32_t coeff;   // into the dictionary; 0: one, 1: minus one
    friend bool operator==(const pce_entry&, const pce_entry&) = default;
};
static_assert(sizeof(pce_entry) == 8);

struct pce_matrix {
    std::vector<uint64_t> starts{0};  // num_rows + 1
    std::vector<pce_entry> entries;
    size_t num_rows() const noexcept { return starts.size() - 1; }
    friend bool operator==(const pce_matrix&, const pce_matrix&) = default;
};

// Storage of n field elements left uninitialised (the evaluation writes every one; zeroing
// 3 x 86 MB first would cost about as much as the product on the 2 KiB circuit).
class fr_buffer {
public:
    fr_buffer() = default;
    explicit fr_buffer(size_t n);
    fr* data() noexcept { return p_.get(); }
    const fr* data() const noexcept { return p_.get(); }
    size_t size() const noexcept { return n_; }
    std::span<fr> span() noexcept { return {p_.get(), n_}; }
    std::span<const fr> span() const noexcept { return {p_.get(), n_}; }
    operator std::span<const fr>() const noexcept { return span(); }

private:
    std::unique_ptr<fr, free_deleter> p_;
    size_t n_ = 0;
};

class precompiled_circuit;

// Compiles constraints into pre-compiled rows as they come, one constraint at a time (its A,
// B and C terms, then end_constraint()): the matrices are never held with their field
// coefficients (40 bytes a term; 52.8 GiB for the 722,388,891 terms of a 32 GiB partition,
// against 8 bytes a term here). Columns are tagged input or aux while the counts are still
// open and renumbered by finish(). from_matrices and pce_constraint_system both go through it.
class pce_compiler {
public:
    pce_compiler();
    ~pce_compiler();
    pce_compiler(pce_compiler&&) noexcept;
    pce_compiler& operator=(pce_compiler&&) noexcept;

    // Capacity for `rows` constraints and at most `entries` terms per matrix (an upper bound:
    // memory that is never written is never backed by pages).
    void reserve(uint64_t rows, uint64_t entries);
    // A term of the current constraint in matrix m (0: A, 1: B, 2: C); zeros are dropped.
    void add(unsigned m, variable v, const fr& k);
    void end_constraint();
    size_t num_constraints() const noexcept;
    // The circuit, with num_inputs inputs (the one included) and num_aux aux variables. Throws
    // errc::internal when a term names a variable past them, errc::bad_input when the counts
    // do not fit u32 columns or the tag is longer than 256 bytes.
    precompiled_circuit finish(size_t num_inputs, size_t num_aux, std::string tag) &&;

private:
    struct state;
    std::unique_ptr<state> s_;
};

// A constraint system (the interface of constraint_matrices) that compiles as it goes: the
// blank circuit synthesized into it, then enforce_input_constraints(), then finish().
template <class Indexer = vec_indexer>
class pce_constraint_system {
public:
    using indexer_type = Indexer;
    using lc_type = linear_combination<Indexer>;

    static constexpr variable one() noexcept { return variable::one(); }
    // Optional: constraints and terms expected (r1cs/shape_pass.hpp counts both).
    void reserve(uint64_t constraints, uint64_t entries) { compiler_.reserve(constraints, entries); }

    template <class NameFn, class ValueFn>
    variable alloc(NameFn&&, ValueFn&&) noexcept {
        return variable::aux(aux_++);
    }
    template <class NameFn, class ValueFn>
    variable alloc_input(NameFn&&, ValueFn&&) {
        if (finished_) throw error(errc::internal, "pce_constraint_system: input allocated after the input constraints");
        return variable::input(inputs_++);
    }
    template <class NameFn, class AFn, class BFn, class CFn>
    void enforce(NameFn&&, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
        add(0, std::invoke(std::forward<AFn>(a_fn), lc_type{}));
        add(1, std::invoke(std::forward<BFn>(b_fn), lc_type{}));
        add(2, std::invoke(std::forward<CFn>(c_fn), lc_type{}));
        compiler_.end_constraint();
    }
    template <class NameFn>
    void push_namespace(NameFn&&) noexcept {}
    void pop_namespace() noexcept {}

    // input_i * 0 = 0 for every input, as in proving_assignment. Once, after synthesis.
    void enforce_input_constraints() {
        if (finished_) throw error(errc::internal, "pce_constraint_system: input constraints enforced twice");
        finished_ = true;
        for (size_t i = 0; i < inputs_; ++i) {
            compiler_.add(0, variable::input(i), fr::one());
            compiler_.end_constraint();
        }
    }
    size_t num_inputs() const noexcept { return inputs_; }
    size_t num_aux() const noexcept { return aux_; }
    precompiled_circuit finish(std::string tag = {}) &&;

private:
    // The terms in constraint_matrices' order: inputs, then aux, each by index.
    void add(unsigned m, const lc_type& lc) {
        for (const auto& [i, k] : lc.inputs()) compiler_.add(m, variable::input(i), k);
        for (const auto& [i, k] : lc.aux()) compiler_.add(m, variable::aux(i), k);
    }
    pce_compiler compiler_;
    size_t inputs_ = 1;  // the one
    size_t aux_ = 0;
    bool finished_ = false;
};

class precompiled_circuit {
public:
    precompiled_circuit() = default;

    // From recorded matrices (enforce_input_constraints() must have been called: the input
    // rows are part of the product). tag names the circuit in the file. Throws
    // errc::bad_input when a count does not fit the u32 columns.
    template <class Indexer>
    static precompiled_circuit from_matrices(const constraint_matrices<Indexer>& cs, std::string tag = {});
    static precompiled_circuit from_matrices(const sparse_matrix& a, const sparse_matrix& b, const sparse_matrix& c,
                                             size_t num_inputs, size_t num_aux, std::string tag = {});

    capacity_hint shape() const noexcept { return {num_constraints_, num_aux_, num_inputs_}; }
    size_t num_constraints() const noexcept { return num_constraints_; }
    size_t num_inputs() const noexcept { return num_inputs_; }
    size_t num_aux() const noexcept { return num_aux_; }
    const std::string& tag() const noexcept { return tag_; }
    // The matrices of a circuit held in memory (empty for a mapped one, see open).
    const pce_matrix& a() const noexcept { return a_; }
    const pce_matrix& b() const noexcept { return b_; }
    const pce_matrix& c() const noexcept { return c_; }
    const std::vector<fr>& coefficients() const noexcept { return coeffs_; }
    size_t num_entries() const noexcept { return nnz_[0] + nnz_[1] + nnz_[2]; }
    bool mapped() const noexcept { return map_ != nullptr; }

    const density_bitmap& a_aux_density() const noexcept { return a_aux_density_; }
    const density_bitmap& b_input_density() const noexcept { return b_input_density_; }
    const density_bitmap& b_aux_density() const noexcept { return b_aux_density_; }

    // a, b, c (each num_constraints long) = A, B, C times (inputs ++ aux), rows split over
    // the current oneTBB arena (serial when it has one thread). errc::bad_input when a size
    // differs from the shape.
    void evaluate(std::span<const fr> inputs, std::span<const fr> aux, std::span<fr> a, std::span<fr> b,
                  std::span<fr> c) const;
    struct evaluation {
        fr_buffer a, b, c;
    };
    // Each buffer holds max(num_constraints, padded_to) elements: the products first, zeros after
    // (padded_to = the prover's domain size lets it compute h in these buffers).
    evaluation evaluate(std::span<const fr> inputs, std::span<const fr> aux, size_t padded_to = 0) const;
    // The same in two steps: the buffers (uninitialised), then their pages faulted in on the
    // arena's threads (a walk of the page tables where a thread of its own did it already,
    // prefaulted_abc), the padding zeroed and the products written.
    evaluation make_evaluation(size_t padded_to = 0) const;
    void evaluate_into(std::span<const fr> inputs, std::span<const fr> aux, evaluation& e) const;

    // The file's bytes (see above) and back. name is what messages call the bytes (a path).
    std::vector<uint8_t> serialize() const;
    // expected: the shape (and tag, when not empty) the caller needs; nullptr: any.
    static precompiled_circuit deserialize(std::span<const uint8_t> bytes, const std::string& name,
                                           const capacity_hint* expected = nullptr,
                                           const std::string* expected_tag = nullptr);
    // Atomic write (write_file_atomic); load reads the file straight into the matrices (no
    // copy of the whole file in memory) with the same checks as deserialize.
    void save(const std::string& path) const;
    static precompiled_circuit load(const std::string& path, const capacity_hint* expected = nullptr,
                                    const std::string* expected_tag = nullptr);
    // The file mapped instead of read: the same checks as load, in one pass over the mapping,
    // and no copy of the matrices; evaluate reads their rows from the mapping, where the page
    // cache holds them as long as memory allows and drops them under pressure (they are read
    // again from the file). For circuits whose matrices do not fit beside the witness: a 32 GiB
    // partition's file is 8.9 GB, its witness and a, b, c 16.7 GB. evaluate checks every row
    // start, column and coefficient id again as it reads them (the file could change under
    // the mapping; one truncated in place would end the process with SIGBUS, as under any
    // mapped reader: the cache replaces its files by rename, never in place). A mapped circuit
    // cannot be saved or serialized (errc::internal).
    static precompiled_circuit open(const std::string& path, const capacity_hint* expected = nullptr,
                                    const std::string* expected_tag = nullptr);

    // Equal matrices, dictionary, shape and tag (held in memory or mapped alike).
    friend bool operator==(const precompiled_circuit& x, const precompiled_circuit& y) {
        return x.num_constraints_ == y.num_constraints_ && x.num_inputs_ == y.num_inputs_ &&
               x.num_aux_ == y.num_aux_ && x.tag_ == y.tag_ && x.coeffs_ == y.coeffs_ && x.same_rows(y);
    }

private:
    friend class pce_compiler;
    // A matrix's row starts (u64) and entries as bytes: the vectors, or the mapped file.
    struct rows_view {
        const uint8_t* starts;
        const uint8_t* entries;
        uint64_t nnz;
    };
    rows_view view(int k) const noexcept;
    bool same_rows(const precompiled_circuit& o) const noexcept;  // the three matrices, byte for byte
    // The densities from A and B; with a file's name, every entry is also checked (errc::bad_input).
    void compute_densities(const std::string* file = nullptr);
    template <class Sink>
    void write_to(Sink& sink) const;
    // The one reader behind deserialize (bytes) and load (a file, read section by section).
    template <class Source>
    static precompiled_circuit read_from(Source& src, const std::string& name, const capacity_hint* expected,
                                         const std::string* expected_tag, std::shared_ptr<const mapped_file> map = {});

    size_t num_constraints_ = 0, num_inputs_ = 0, num_aux_ = 0;
    std::string tag_;
    std::vector<fr> coeffs_;
    pce_matrix a_, b_, c_;
    uint64_t nnz_[3] = {0, 0, 0};
    std::shared_ptr<const mapped_file> map_;  // mapped: the file; the matrices' offsets in it
    uint64_t map_starts_[3] = {0, 0, 0}, map_entries_[3] = {0, 0, 0};
    density_bitmap a_aux_density_, b_input_density_, b_aux_density_;
};

template <class Indexer>
precompiled_circuit precompiled_circuit::from_matrices(const constraint_matrices<Indexer>& cs, std::string tag) {
    return from_matrices(cs.a(), cs.b(), cs.c(), cs.num_inputs(), cs.num_aux(), std::move(tag));
}

template <class Indexer>
precompiled_circuit pce_constraint_system<Indexer>::finish(std::string tag) && {
    if (!finished_) throw error(errc::internal, "pce_constraint_system: finish() before enforce_input_constraints()");
    return std::move(compiler_).finish(inputs_, aux_, std::move(tag));
}

// a, b and c of one evaluation made before the witness is synthesized: with presize=prefault,
// where they take default_prefault_min_bytes or more together, a thread of their own faults their
// pages in while the witness synthesizes on one thread (background_populate), as the direct path's
// prefault does for its vectors. The first touch of a 32 GiB partition's a, b and c (12.9 GB,
// padded to the domain) took 26-33 s of the product on one thread and most of it on two; with
// this, one partition on two threads 20.84 -> 18.2 s (c2lab ab, 0.873 [0.826, 0.925]; 2-core
// Intel Xeon, family 6 model 167; results/reference/pce-32gib-xeon-model167-2026-12-07.md).
// Below the threshold, or with presize off or on, nothing is made ahead and evaluate() is
// precompiled_circuit::evaluate.
class prefaulted_abc {
public:
    prefaulted_abc() = default;
    prefaulted_abc(const precompiled_circuit& pce, size_t padded_to, presize_mode presize,
                   size_t min_bytes = default_prefault_min_bytes);
    // Ends the faulting-in where it has not finished, then evaluates (into the buffers made ahead,
    // or new ones); the buffers move out.
    precompiled_circuit::evaluation evaluate(const precompiled_circuit& pce, std::span<const fr> inputs,
                                             std::span<const fr> aux);
    // A thread of their own is faulting the pages in (or has, until evaluate stops it; for tests).
    bool started() const noexcept { return populate_.running(); }

private:
    size_t padded_to_ = 0;
    bool ahead_ = false;
    precompiled_circuit::evaluation abc_;
    background_populate populate_;  // last: stopped before the buffers go
};

}  // namespace c2lab::r1cs

// shape_pass: a constraint system that learns, without a witness, everything about a circuit
// that setup, the parameters cache and the memory estimates need, in one synthesis:
//
//   counts       constraints (input constraints included), inputs (the one included), aux
//   densities    exactly the proving assignment's (proving_assignment.hpp, bellperson's
//                eval_with_trackers): a_aux = aux variables with a nonzero coefficient in
//                some A, b_input / b_aux = inputs / aux variables with a nonzero coefficient
//                in some B; C untracked. They size the parameters' a, b_g1 and b_g2 queries
//                (groth16/keys.hpp): a = inputs + a_aux, b_g1 = b_g2 = b_input + b_aux.
//   entries      terms of A, B and C as constraint_matrices records them (zero coefficients
//                kept): setup's matrix memory
//   digest       SHA-256 of the circuit's structure (below): the key of the parameters and
//                pre-compiled circuit caches, so that an edit of the circuit that keeps its
//                counts still gets new entries
//
// Unlike shape_counter (constraint_system.hpp), which only counts, it builds every
// constraint's linear combinations (as constraint_matrices does, without keeping them), so
// it costs about a synthesis without the witness. It calls no name or value function.
//
// The digest, version 1: SHA-256 over
//   "c2lab r1cs shape v1\0"
//   per constraint, in order (the input constraints last, as the prover adds them), for each
//   of A, B, C: u64 number of input terms, u64 number of aux terms, then the input terms
//   and the aux terms, each sorted by index as the linear combination keeps them, one term
//   being a u64 word (index << 2 | tag) followed, for tag 2 only, by the coefficient's 32
//   bytes (its four Montgomery limbs, little-endian: a bijection of the value):
//     tag 0: coefficient 1, tag 1: coefficient -1, tag 2: any other nonzero, tag 3: zero
//   and last u64 constraints, inputs, aux.
// All integers little-endian. The encoding is injective, so two circuits with the same
// digest have the same constraints term for term (up to a SHA-256 collision). The +-1 tags
// halve the bytes hashed (69% of the 2 KiB PoRep circuit's terms are +-1, r1cs/pce.hpp).
// SHA-256 rather than a faster non-cryptographic hash: OpenSSL's runs at 1.74 GB/s on the
// 2-core AMD EPYC of family 25 and 1.2 GB/s on the one of family 23 (`openssl speed -evp
// sha256`, 64 KiB blocks, SHA-NI on both). The 2 KiB circuit hashes about 400 MB (a third each
// the term words, the coefficients other than +-1, the two counts per linear combination):
// `perf record` of a 2 KiB pass put 17.8% (family 25) and 19% (family 23) of the samples in
// libcrypto. The rest is building the linear combinations (malloc / free, merges, the
// gadgets), which any digest pays, and encoding the terms (13% on family 23 while each word
// went through std::vector::insert, about 9% with the buffer's stores). A hash twice as fast
// would save a tenth of the pass, and its result is memoized on disk anyway
// (pipeline/shape_memo.hpp); the digest stays the cache key that old entries were made under.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "r1cs/constraint_system.hpp"

namespace c2lab::r1cs {

// What a shape pass found (see above).
struct circuit_shape {
    size_t constraints = 0;  // input constraints included
    size_t inputs = 0;       // the one included
    size_t aux = 0;
    size_t a_aux_density = 0;    // aux variables in some A (nonzero coefficient)
    size_t b_input_density = 0;  // inputs in some B
    size_t b_aux_density = 0;    // aux variables in some B
    uint64_t matrix_entries = 0;  // terms of A, B, C (zero coefficients included)
    std::array<uint8_t, 32> digest{};

    size_t num_constraints() const noexcept { return constraints; }
    size_t num_inputs() const noexcept { return inputs; }
    size_t num_aux() const noexcept { return aux; }
    capacity_hint hint() const noexcept { return {constraints, aux, inputs}; }
    // Points of the parameters' filtered queries (groth16/keys.hpp).
    size_t a_query_size() const noexcept { return inputs + a_aux_density; }
    size_t b_query_size() const noexcept { return b_input_density + b_aux_density; }
    // The digest in lowercase hex (64 characters), and its first 16 (the cache entries' key).
    std::string digest_hex() const;
    std::string digest_key() const { return digest_hex().substr(0, 16); }

    friend bool operator==(const circuit_shape&, const circuit_shape&) = default;
};

class shape_pass {
public:
    using lc_type = linear_combination<vec_indexer>;

    shape_pass();
    ~shape_pass();
    shape_pass(const shape_pass&) = delete;
    shape_pass& operator=(const shape_pass&) = delete;

    static constexpr variable one() noexcept { return variable::one(); }

    template <class NameFn, class ValueFn>
    variable alloc(NameFn&&, ValueFn&&) {
        a_aux_density_.push_back(false);
        b_aux_density_.push_back(false);
        return variable::aux(aux_++);
    }
    template <class NameFn, class ValueFn>
    variable alloc_input(NameFn&&, ValueFn&&) {
        return push_input();
    }
    template <class NameFn, class AFn, class BFn, class CFn>
    void enforce(NameFn&&, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
        record(std::invoke(std::forward<AFn>(a_fn), lc_type{}), std::invoke(std::forward<BFn>(b_fn), lc_type{}),
               std::invoke(std::forward<CFn>(c_fn), lc_type{}));
    }
    template <class NameFn>
    void push_namespace(NameFn&&) noexcept {}
    void pop_namespace() noexcept {}

    // The non-template halves of alloc_input / enforce.
    variable push_input();
    void record(const lc_type& a, const lc_type& b, const lc_type& c);

    // input_i * 0 = 0 for every input, as the prover adds them (A = input_i, untracked;
    // B = C = empty). Once, after synthesis; errc::internal for a second call or an input
    // allocated afterwards.
    void enforce_input_constraints();

    size_t num_constraints() const noexcept { return constraints_; }
    size_t num_inputs() const noexcept { return b_input_density_.size(); }
    size_t num_aux() const noexcept { return aux_; }
    const density_bitmap& a_aux_density() const noexcept { return a_aux_density_; }
    const density_bitmap& b_input_density() const noexcept { return b_input_density_; }
    const density_bitmap& b_aux_density() const noexcept { return b_aux_density_; }

    // The shape; enforces the input constraints first when not done yet. The pass is spent
    // afterwards (errc::internal on further use).
    circuit_shape finish();

private:
    class hasher;
    void put_lc(const lc_type& lc, density_bitmap* input_density, density_bitmap* aux_density);

    std::unique_ptr<hasher> h_;
    density_bitmap a_aux_density_, b_input_density_, b_aux_density_;
    size_t constraints_ = 0;
    size_t aux_ = 0;
    uint64_t entries_ = 0;
    bool inputs_enforced_ = false;
    bool finished_ = false;
};

// The shape of any circuit: synthesize(cs) runs the circuit into the pass (a blank circuit:
// no value is asked for); the input constraints are added after it.
circuit_shape shape_of(const std::function<void(shape_pass&)>& synthesize);

}  // namespace c2lab::r1cs

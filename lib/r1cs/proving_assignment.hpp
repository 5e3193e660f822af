// proving_assignment<Indexer>: the constraint system the Groth16 prover synthesizes into
// (bellperson's ProvingAssignment, src/groth16/prover/).
//
// Per constraint it evaluates A, B and C at the current assignment and appends the three
// values to a, b, c; it keeps the input and aux assignments and three density bitmaps:
//   a_aux_density    aux variables that appear in some A (A's inputs: treated as dense)
//   b_input_density  inputs that appear in some B
//   b_aux_density    aux variables that appear in some B
// (C is not tracked). A bit is set when the variable appears with a nonzero coefficient
// (bellperson's eval_with_trackers skips zero coefficients).
//
// The constructor allocates input 0 = one, as create_proof does before synthesis. After
// synthesis, enforce_input_constraints() adds bellperson's `input_i * 0 = 0` per public
// input i (input 0 included): A = input_i, B = C = 0. It appends a[i] = input value,
// b = c = 0; A's inputs are not tracked and B is empty, so no density bit changes. It is
// what makes the query polynomials of the inputs linearly independent in the QAP.
//
// presize (flag presize: off|on|prefault): with on, the vectors are reserved from the capacity
// hint at construction (a, b, c: hint.constraints rounded up to a power of two, the prover's
// domain; aux: hint.aux; inputs: hint.inputs). With prefault, as with on, and where that
// reservation is new memory (not a recycled assignment's) of at least a GiB, a thread of its own
// faults its pages in ahead of the synthesis (background_populate, core/huge_pages.hpp): a, b, c
// and aux in step, so the appends find their pages mapped and the first touch of every page costs
// another core.
// The density bitmaps (density_bitmap, reused) have no reserve and grow by whole words.
// Name functions are never called.
//
// Memory of a previous assignment (flag witness_memory: fresh|reuse): an assignment may be
// built on the vectors another one gave up (take_buffers), emptied but with their capacity, so
// that synthesis writes into pages that are already mapped. A fresh vector's first write to
// each page costs a page fault and the kernel's zeroing of it: 36-38% of the synthesis of one
// 32 GiB partition on the 2-core AMD EPYC VM, where a page first touched is also backed by the
// hypervisor (results/reference/synth-32gib-profile-2026-12-03.md).
#pragma once

#include <algorithm>
#include <bit>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tbb/parallel_invoke.h>

#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::r1cs {

enum class presize_mode { off, on, prefault };

// presize=prefault starts its thread only where the new memory is at least this large: one 32 GiB
// partition's 17 GB into fresh memory, one thread, 48.8 -> 28.3 s (c2lab ab, 0.579 [0.553,
// 0.620]); the 2 KiB partition's 0.47 GB, eight processes each way: 559-632 ms in six against
// 608-681 ms for presize=on, but 842 and 953 ms in two, the synthesis thread waiting off its core
// (2-core Intel Xeon, family 6 model 167). The pre-compiled path's a, b and c take the same rule
// (pce.hpp, prefaulted_abc).
inline constexpr size_t default_prefault_min_bytes = size_t{1} << 30;

// The presize flag: "off", "on" or "prefault"; anything else throws c2lab::error(errc::bad_input).
presize_mode parse_presize(std::string_view name);
std::string_view to_string(presize_mode m) noexcept;

// The witness_memory flag: "fresh" (every assignment allocates its vectors) or "reuse" (a job
// builds the next assignment on the vectors of the one it proved); else errc::bad_input.
enum class witness_memory { fresh, reuse };
witness_memory parse_witness_memory(std::string_view name);
std::string_view to_string(witness_memory m) noexcept;

// The vectors of a proving assignment, kept between two syntheses (see above).
struct assignment_buffers {
    std::vector<fr> a, b, c, inputs, aux;
    std::vector<assignment_buffers> parts;  // the vectors of parallel parts (fork_part), for the next forks
};

template <class Indexer>
class proving_assignment {
public:
    using indexer_type = Indexer;
    using lc_type = linear_combination<Indexer>;

    explicit proving_assignment(const capacity_hint& hint = {}, presize_mode presize = presize_mode::off,
                                assignment_buffers recycled = {},
                                size_t prefault_min_bytes = default_prefault_min_bytes);

    // The vectors, for the next assignment (this one is left empty).
    assignment_buffers take_buffers() && noexcept {
        populate_.stop();
        return {std::move(a_), std::move(b_), std::move(c_), std::move(input_assignment_), std::move(aux_assignment_),
                std::move(spare_parts_)};
    }

    static constexpr variable one() noexcept { return variable::one(); }

    template <class NameFn, class ValueFn>
    variable alloc(NameFn&&, ValueFn&& value_fn) {
        return push_aux(std::invoke(std::forward<ValueFn>(value_fn)));
    }
    template <class NameFn, class ValueFn>
    variable alloc_input(NameFn&&, ValueFn&& value_fn) {
        return push_input(std::invoke(std::forward<ValueFn>(value_fn)));
    }
    template <class NameFn, class AFn, class BFn, class CFn>
    void enforce(NameFn&&, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
        record(std::invoke(std::forward<AFn>(a_fn), lc_type{}), std::invoke(std::forward<BFn>(b_fn), lc_type{}),
               std::invoke(std::forward<CFn>(c_fn), lc_type{}));
    }
    template <class NameFn>
    void push_namespace(NameFn&&) noexcept {}
    void pop_namespace() noexcept {}

    // The non-template halves of alloc / alloc_input / enforce.
    variable push_aux(const fr& value);
    variable push_input(const fr& value);
    void record(const lc_type& a, const lc_type& b, const lc_type& c);

    // Synthesis in parallel parts (the challenges of a PoRep partition): fork_part makes a child
    // that starts from a copy of this assignment's inputs and aux values (the part every child
    // refers to) and records nothing else; append_part(parent, child) then adds, in call order,
    // the child's constraints' evaluations, its own inputs and aux values and density bits, and
    // ORs its density bits of the shared part into this one. A direct-mode assignment keeps
    // values, not variable indices, so children that each number their own variables from
    // the shared part on append into the same assignment a serial synthesis makes, bit for bit
    // (stacked_circuit's test). Siblings forked from one state may be appended one after
    // another; a child forked before anything else was allocated or enforced here is refused
    // (errc::internal).
    // fork_part(parent, parts) also reserves, in the child, a share of the parent's unused capacity
    // (presize) for its own constraints and aux values: reserved pages are not touched, so a
    // generous share costs nothing, and a child that grows by doubling copies its vectors.
    // (Free functions, not members: the class is instantiated explicitly in
    // proving_assignment.cpp, and these members there cost the per-constraint record() its
    // inlining, +6% instructions in the 2 KiB synthesis; icount gate.)
    template <class I>
    friend proving_assignment<I> fork_part(const proving_assignment<I>& parent, size_t parts);
    template <class I>
    friend void append_part(proving_assignment<I>& parent, proving_assignment<I>&& child);
    // input_i * 0 = 0 for every input (see above). Call once, after synthesis; inputs
    // allocated afterwards, or a second call, throw c2lab::error(errc::internal).
    void enforce_input_constraints();
    bool input_constraints_enforced() const noexcept { return finished_; }

    size_t num_constraints() const noexcept { return a_.size(); }
    size_t num_inputs() const noexcept { return input_assignment_.size(); }
    size_t num_aux() const noexcept { return aux_assignment_.size(); }

    // The evaluations (mutable: the prover transforms them in place).
    std::vector<fr>& a() noexcept { return a_; }
    std::vector<fr>& b() noexcept { return b_; }
    std::vector<fr>& c() noexcept { return c_; }
    const std::vector<fr>& a() const noexcept { return a_; }
    const std::vector<fr>& b() const noexcept { return b_; }
    const std::vector<fr>& c() const noexcept { return c_; }
    const std::vector<fr>& input_assignment() const noexcept { return input_assignment_; }
    const std::vector<fr>& aux_assignment() const noexcept { return aux_assignment_; }
    const density_bitmap& a_aux_density() const noexcept { return a_aux_density_; }
    const density_bitmap& b_input_density() const noexcept { return b_input_density_; }
    const density_bitmap& b_aux_density() const noexcept { return b_aux_density_; }

private:
    std::vector<fr> a_, b_, c_;
    std::vector<fr> input_assignment_, aux_assignment_;
    density_bitmap a_aux_density_, b_input_density_, b_aux_density_;
    bool finished_ = false;
    size_t shared_inputs_ = 0, shared_aux_ = 0;  // a child's copied part (fork_part)
    // Vectors of appended parts (and of a recycled assignment's), for the next fork_part: with
    // witness_memory=reuse the parts of the next partition write into pages already mapped.
    mutable std::vector<assignment_buffers> spare_parts_;
    uint64_t generation_ = 0;                     // allocations and constraints, not appends
    uint64_t forked_at_ = ~uint64_t{0};           // a child: its parent's generation_ at fork_part
    // presize=prefault: the thread faulting in the fresh reservation (last: stopped and joined
    // before the vectors go).
    background_populate populate_;
};

template <class Indexer>
proving_assignment<Indexer>::proving_assignment(const capacity_hint& hint, presize_mode presize,
                                                assignment_buffers recycled, size_t prefault_min_bytes)
    : a_(std::move(recycled.a)),
      b_(std::move(recycled.b)),
      c_(std::move(recycled.c)),
      input_assignment_(std::move(recycled.inputs)),
      aux_assignment_(std::move(recycled.aux)),
      spare_parts_(std::move(recycled.parts)) {
    for (std::vector<fr>* v : {&a_, &b_, &c_, &input_assignment_, &aux_assignment_}) v->clear();  // capacity kept
    if (presize != presize_mode::off) {
        // a, b, c at the evaluation domain's size (the power of two at or above the constraint
        // count): the prover pads them to it and computes h in them (groth16::abc_in_place), so
        // the padding needs no second allocation, copy and page faults (perf: 0.9% of a 2 KiB
        // proof's samples, single-threaded, in the reallocation).
        const size_t domain = std::bit_ceil(std::max<size_t>(hint.constraints, 1));
        // In huge pages where the room is new (advice on untouched memory): the NTTs' column
        // stages read them in rows 128 KiB apart, and 512 times fewer page faults.
        std::vector<std::pair<void*, size_t>> fresh_ranges;
        for (std::vector<fr>* v : {&a_, &b_, &c_}) {
            const bool fresh = v->capacity() < domain;
            v->reserve(domain);
            if (fresh) {
                advise_huge_pages(v->data(), v->capacity() * sizeof(fr));
                fresh_ranges.emplace_back(v->data(), v->capacity() * sizeof(fr));
            }
        }
        if (aux_assignment_.capacity() < hint.aux) {
            aux_assignment_.reserve(hint.aux);
            fresh_ranges.emplace_back(aux_assignment_.data(), aux_assignment_.capacity() * sizeof(fr));
        }
        input_assignment_.reserve(hint.inputs);
        size_t fresh_bytes = 0;
        for (const auto& r : fresh_ranges) fresh_bytes += r.second;
        if (presize == presize_mode::prefault && fresh_bytes >= prefault_min_bytes)
            populate_ = background_populate(std::move(fresh_ranges));
    }
    push_input(fr::one());
}

template <class Indexer>
variable proving_assignment<Indexer>::push_aux(const fr& value) {
    ++generation_;
    aux_assignment_.push_back(value);
    a_aux_density_.push_back(false);
    b_aux_density_.push_back(false);
    return variable::aux(aux_assignment_.size() - 1);
}

template <class Indexer>
variable proving_assignment<Indexer>::push_input(const fr& value) {
    if (finished_) throw error(errc::internal, "proving_assignment: input allocated after the input constraints");
    ++generation_;
    input_assignment_.push_back(value);
    b_input_density_.push_back(false);
    return variable::input(input_assignment_.size() - 1);
}

template <class Indexer>
void proving_assignment<Indexer>::record(const lc_type& a, const lc_type& b, const lc_type& c) {
    ++generation_;
    a_.push_back(a.evaluate(input_assignment_, aux_assignment_, nullptr, &a_aux_density_));
    b_.push_back(b.evaluate(input_assignment_, aux_assignment_, &b_input_density_, &b_aux_density_));
    c_.push_back(c.evaluate(input_assignment_, aux_assignment_, nullptr, nullptr));
}

template <class Indexer>
proving_assignment<Indexer> fork_part(const proving_assignment<Indexer>& parent, size_t parts) {
    const proving_assignment<Indexer>& p = parent;
    if (p.finished_) throw error(errc::internal, "proving_assignment: fork after the input constraints");
    assignment_buffers recycled;
    if (!p.spare_parts_.empty()) {  // forks are made by one thread; the parts run after it
        recycled = std::move(p.spare_parts_.back());
        p.spare_parts_.pop_back();
    }
    proving_assignment<Indexer> child({}, presize_mode::off, std::move(recycled));
    parts = std::max<size_t>(parts, 1);
    const size_t constraints = (p.a_.capacity() - p.a_.size()) / parts;
    child.a_.reserve(constraints);
    child.b_.reserve(constraints);
    child.c_.reserve(constraints);
    child.aux_assignment_.reserve(p.aux_assignment_.size() +
                                  (p.aux_assignment_.capacity() - p.aux_assignment_.size()) / parts);
    child.input_assignment_ = p.input_assignment_;
    child.aux_assignment_ = p.aux_assignment_;
    child.a_aux_density_ = density_bitmap(p.aux_assignment_.size());
    child.b_aux_density_ = density_bitmap(p.aux_assignment_.size());
    child.b_input_density_ = density_bitmap(p.input_assignment_.size());
    child.shared_inputs_ = p.input_assignment_.size();
    child.shared_aux_ = p.aux_assignment_.size();
    child.forked_at_ = p.generation_;
    return child;
}

template <class Indexer>
void append_part(proving_assignment<Indexer>& parent, proving_assignment<Indexer>&& child) {
    auto& p = parent;
    if (p.finished_ || child.finished_ || child.forked_at_ != p.generation_ ||
        child.shared_inputs_ > p.input_assignment_.size() || child.shared_aux_ > p.aux_assignment_.size())
        throw error(errc::internal, "proving_assignment: appending a child that was not forked from this state");
    auto merge = [](density_bitmap& into, const density_bitmap& from, size_t shared) {
        for (size_t i = 0; i < shared; ++i)
            if (from.test(i)) into.set(i);
        for (size_t i = shared; i < from.size(); ++i) into.push_back(from.test(i));
    };
    // Independent vectors, copied side by side: the copies' first writes to the reserved pages
    // are page faults, and so several threads share them.
    tbb::parallel_invoke([&] { p.a_.insert(p.a_.end(), child.a_.begin(), child.a_.end()); },
                         [&] { p.b_.insert(p.b_.end(), child.b_.begin(), child.b_.end()); },
                         [&] { p.c_.insert(p.c_.end(), child.c_.begin(), child.c_.end()); },
                         [&] {
                             p.aux_assignment_.insert(p.aux_assignment_.end(),
                                                    child.aux_assignment_.begin() + child.shared_aux_,
                                                    child.aux_assignment_.end());
                             p.input_assignment_.insert(p.input_assignment_.end(),
                                                      child.input_assignment_.begin() + child.shared_inputs_,
                                                      child.input_assignment_.end());
                         },
                         [&] {
                             merge(p.a_aux_density_, child.a_aux_density_, child.shared_aux_);
                             merge(p.b_aux_density_, child.b_aux_density_, child.shared_aux_);
                             merge(p.b_input_density_, child.b_input_density_, child.shared_inputs_);
                         });
    assignment_buffers spent = std::move(child).take_buffers();
    for (auto& q : spent.parts) p.spare_parts_.push_back(std::move(q));
    spent.parts.clear();
    p.spare_parts_.push_back(std::move(spent));
    child = proving_assignment<Indexer>{};
}

template <class Indexer>
void proving_assignment<Indexer>::enforce_input_constraints() {
    if (finished_) throw error(errc::internal, "proving_assignment: input constraints enforced twice");
    finished_ = true;
    for (size_t i = 0; i < input_assignment_.size(); ++i) {
        // A = input_i (untracked), B = C = 0.
        a_.push_back(input_assignment_[i]);
        b_.push_back(fr::zero());
        c_.push_back(fr::zero());
    }
}

extern template class proving_assignment<vec_indexer>;
extern template class proving_assignment<smallvec_indexer<1>>;
extern template class proving_assignment<smallvec_indexer<2>>;
extern template class proving_assignment<smallvec_indexer<4>>;

}  // namespace c2lab::r1cs

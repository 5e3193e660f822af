// The constraint-system interface gadgets are written against (bellpepper's
// ConstraintSystem, in C++ form), and the cheapest system: shape_counter.
//
//   variable alloc(name_fn, value_fn)        a private (aux) variable
//   variable alloc_input(name_fn, value_fn)  a public input
//   void enforce(name_fn, a_fn, b_fn, c_fn)  the constraint A * B = C, where each of a_fn,
//                                            b_fn, c_fn takes an empty lc_type by value and
//                                            returns the linear combination built on it
//   void push_namespace(name_fn), pop_namespace(); namespace_guard for RAII
//   static variable one()                    the constant one (input 0)
//   size_t num_constraints(), num_inputs(), num_aux()
//
// name_fn: a callable returning something convertible to std::string. Only systems that
// keep names call it (test_constraint_system), so names cost nothing while proving.
// value_fn: a callable returning ff::fr; only systems that keep values call it (the
// proving assignment and the test system). It may throw (a missing witness).
//
// After synthesis, provers and setup add one constraint input_i * 0 = 0 per public input
// (input 0, the one, included), as bellperson does after circuit.synthesize() in
// create_proof and in generate_parameters: enforce_input_constraints() does it where it
// matters (proving_assignment, constraint_matrices, shape_counter for equal counts).
#pragma once

#include <concepts>
#include <cstddef>
#include <string>

#include "r1cs/linear_combination.hpp"
#include "r1cs/variable.hpp"

namespace c2lab::r1cs {

namespace detail {
struct name_fn_archetype {
    std::string operator()() const;
};
struct value_fn_archetype {
    fr operator()() const;
};
template <class LC>
struct lc_fn_archetype {
    LC operator()(LC) const;
};
}  // namespace detail

template <class CS>
concept constraint_system = requires(CS& cs, const CS& ccs) {
    typename CS::lc_type;
    { CS::one() } -> std::same_as<variable>;
    { cs.alloc(detail::name_fn_archetype{}, detail::value_fn_archetype{}) } -> std::same_as<variable>;
    { cs.alloc_input(detail::name_fn_archetype{}, detail::value_fn_archetype{}) } -> std::same_as<variable>;
    cs.enforce(detail::name_fn_archetype{}, detail::lc_fn_archetype<typename CS::lc_type>{},
               detail::lc_fn_archetype<typename CS::lc_type>{}, detail::lc_fn_archetype<typename CS::lc_type>{});
    cs.push_namespace(detail::name_fn_archetype{});
    cs.pop_namespace();
    { ccs.num_constraints() } -> std::convertible_to<size_t>;
    { ccs.num_inputs() } -> std::convertible_to<size_t>;
    { ccs.num_aux() } -> std::convertible_to<size_t>;
};

// Enters a namespace for its lifetime: namespace_guard ns(cs, [] { return "hash"; });
template <class CS>
class [[nodiscard]] namespace_guard {
public:
    template <class NameFn>
    namespace_guard(CS& cs, NameFn&& name_fn) : cs_(cs) {
        cs_.push_namespace(std::forward<NameFn>(name_fn));
    }
    ~namespace_guard() { cs_.pop_namespace(); }
    namespace_guard(const namespace_guard&) = delete;
    namespace_guard& operator=(const namespace_guard&) = delete;

private:
    CS& cs_;
};
template <class CS, class NameFn>
namespace_guard(CS&, NameFn&&) -> namespace_guard<CS>;

// Sizes of a circuit, e.g. from shape_counter: the capacity hint of a proving assignment.
struct capacity_hint {
    size_t constraints = 0;  // including the input constraints
    size_t aux = 0;
    size_t inputs = 0;  // including the one
    friend bool operator==(const capacity_hint&, const capacity_hint&) = default;
};

// Counts constraints, inputs and aux variables; stores nothing else and calls no name,
// value or linear-combination function.
class shape_counter {
public:
    using lc_type = linear_combination<vec_indexer>;

    static constexpr variable one() noexcept { return variable::one(); }

    template <class NameFn, class ValueFn>
    variable alloc(NameFn&&, ValueFn&&) noexcept {
        return variable::aux(aux_++);
    }
    template <class NameFn, class ValueFn>
    variable alloc_input(NameFn&&, ValueFn&&) noexcept {
        return variable::input(inputs_++);
    }
    template <class NameFn, class AFn, class BFn, class CFn>
    void enforce(NameFn&&, AFn&&, BFn&&, CFn&&) noexcept {
        ++constraints_;
    }
    template <class NameFn>
    void push_namespace(NameFn&&) noexcept {}
    void pop_namespace() noexcept {}

    // One constraint per public input, as the prover adds them.
    void enforce_input_constraints() noexcept {
        constraints_ += inputs_;
        inputs_enforced_ = true;
    }

    size_t num_constraints() const noexcept { return constraints_; }
    size_t num_inputs() const noexcept { return inputs_; }
    size_t num_aux() const noexcept { return aux_; }
    // The sizes a proving assignment will reach, input constraints included (whether or
    // not enforce_input_constraints() has been called here).
    capacity_hint hint() const noexcept { return {constraints_ + (inputs_enforced_ ? 0 : inputs_), aux_, inputs_}; }

private:
    size_t constraints_ = 0;
    size_t inputs_ = 1;  // the one
    size_t aux_ = 0;
    bool inputs_enforced_ = false;
};

}  // namespace c2lab::r1cs

// witness_assignment: the constraint system of the pre-compiled synthesis path (pce.hpp,
// flag synth=pce). It keeps only the input and aux assignments: alloc / alloc_input call
// their value function and store the value; enforce only counts (it never calls the name or
// linear-combination functions, so gadgets pay nothing for them). A, B and C are evaluated
// afterwards by multiplying the circuit's pre-compiled matrices with (inputs ++ aux).
//
// Like proving_assignment it allocates input 0 = one at construction, and
// enforce_input_constraints() counts bellperson's `input_i * 0 = 0` per public input (the
// pre-compiled matrices hold those rows). presize reserves the two assignments from the
// capacity hint, as proving_assignment does.
//
// witness_only = true tells gadgets that keep side lists only to build linear combinations
// later (gadgets::multieq) that they may skip them, as for shape_counter.
#pragma once

#include <functional>
#include <vector>

#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "r1cs/constraint_system.hpp"
#include "r1cs/proving_assignment.hpp"  // presize_mode

namespace c2lab::r1cs {

class witness_assignment {
public:
    // enforce never builds one; the type only satisfies the concept.
    using lc_type = linear_combination<vec_indexer>;
    static constexpr bool witness_only = true;

    explicit witness_assignment(const capacity_hint& hint = {}, presize_mode presize = presize_mode::off) {
        if (presize != presize_mode::off) {
            aux_assignment_.reserve(hint.aux);
            input_assignment_.reserve(hint.inputs);
            // The aux values' pages faulted in on the arena's threads before the synthesis, which
            // runs on one and took them one trap at a time (44 of its 88-100 ms in the kernel,
            // the 2 KiB partition's 86 MB, 2-core AMD EPYC of family 25).
            populate_pages_in_parallel(aux_assignment_.data(), hint.aux * sizeof(fr), std::size_t{4} << 20);
        }
        input_assignment_.push_back(fr::one());
    }

    static constexpr variable one() noexcept { return variable::one(); }

    template <class NameFn, class ValueFn>
    variable alloc(NameFn&&, ValueFn&& value_fn) {
        aux_assignment_.push_back(std::invoke(std::forward<ValueFn>(value_fn)));
        return variable::aux(aux_assignment_.size() - 1);
    }
    template <class NameFn, class ValueFn>
    variable alloc_input(NameFn&&, ValueFn&& value_fn) {
        if (finished_) throw error(errc::internal, "witness_assignment: input allocated after the input constraints");
        input_assignment_.push_back(std::invoke(std::forward<ValueFn>(value_fn)));
        return variable::input(input_assignment_.size() - 1);
    }
    template <class NameFn, class AFn, class BFn, class CFn>
    void enforce(NameFn&&, AFn&&, BFn&&, CFn&&) noexcept {
        ++constraints_;
    }
    template <class NameFn>
    void push_namespace(NameFn&&) noexcept {}
    void pop_namespace() noexcept {}

    // Counts one constraint per input (the rows are in the pre-compiled matrices). Once,
    // after synthesis; a second call throws c2lab::error(errc::internal).
    void enforce_input_constraints() {
        if (finished_) throw error(errc::internal, "witness_assignment: input constraints enforced twice");
        finished_ = true;
        constraints_ += input_assignment_.size();
    }
    bool input_constraints_enforced() const noexcept { return finished_; }

    size_t num_constraints() const noexcept { return constraints_; }
    size_t num_inputs() const noexcept { return input_assignment_.size(); }
    size_t num_aux() const noexcept { return aux_assignment_.size(); }

    const std::vector<fr>& input_assignment() const noexcept { return input_assignment_; }
    const std::vector<fr>& aux_assignment() const noexcept { return aux_assignment_; }
    // For a prepared job that takes the values over.
    std::vector<fr>& input_assignment() noexcept { return input_assignment_; }
    std::vector<fr>& aux_assignment() noexcept { return aux_assignment_; }

private:
    std::vector<fr> input_assignment_, aux_assignment_;
    size_t constraints_ = 0;
    bool finished_ = false;
};

}  // namespace c2lab::r1cs

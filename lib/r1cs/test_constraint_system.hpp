// test_constraint_system: for gadget tests (bellpepper's TestConstraintSystem). Keeps every
// constraint with its full namespaced name ("outer/inner/name"), the linear combinations
// and the assignment; which_is_unsatisfied() names the first constraint with A*B != C.
// Calls every name and value function. A constraint name used twice throws
// c2lab::error(errc::internal), as does pop_namespace() with no namespace open.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/error.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::r1cs {

template <class Indexer = vec_indexer>
class test_constraint_system {
public:
    using indexer_type = Indexer;
    using lc_type = linear_combination<Indexer>;

    struct constraint {
        std::string name;
        lc_type a, b, c;
    };

    test_constraint_system() { inputs_.push_back(fr::one()); }

    static constexpr variable one() noexcept { return variable::one(); }

    template <class NameFn, class ValueFn>
    variable alloc(NameFn&& name_fn, ValueFn&& value_fn) {
        (void)path(std::invoke(std::forward<NameFn>(name_fn)));
        aux_.push_back(std::invoke(std::forward<ValueFn>(value_fn)));
        return variable::aux(aux_.size() - 1);
    }
    template <class NameFn, class ValueFn>
    variable alloc_input(NameFn&& name_fn, ValueFn&& value_fn) {
        (void)path(std::invoke(std::forward<NameFn>(name_fn)));
        inputs_.push_back(std::invoke(std::forward<ValueFn>(value_fn)));
        return variable::input(inputs_.size() - 1);
    }
    template <class NameFn, class AFn, class BFn, class CFn>
    void enforce(NameFn&& name_fn, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
        std::string name = path(std::invoke(std::forward<NameFn>(name_fn)));
        if (!names_.insert(name).second)
            throw error(errc::internal, "test_constraint_system: constraint name used twice: " + name);
        constraints_.push_back({std::move(name), std::invoke(std::forward<AFn>(a_fn), lc_type{}),
                                std::invoke(std::forward<BFn>(b_fn), lc_type{}),
                                std::invoke(std::forward<CFn>(c_fn), lc_type{})});
    }
    template <class NameFn>
    void push_namespace(NameFn&& name_fn) {
        stack_.push_back(path(std::invoke(std::forward<NameFn>(name_fn))));
    }
    void pop_namespace() {
        if (stack_.empty()) throw error(errc::internal, "test_constraint_system: pop_namespace with none open");
        stack_.pop_back();
    }

    // The name of the first constraint with A * B != C at the current assignment.
    std::optional<std::string> which_is_unsatisfied() const {
        for (const auto& k : constraints_) {
            fr a = k.a.evaluate(inputs_, aux_), b = k.b.evaluate(inputs_, aux_), c = k.c.evaluate(inputs_, aux_);
            if (!(a * b == c)) return k.name;
        }
        return std::nullopt;
    }
    bool is_satisfied() const { return !which_is_unsatisfied(); }

    size_t num_constraints() const noexcept { return constraints_.size(); }
    size_t num_inputs() const noexcept { return inputs_.size(); }
    size_t num_aux() const noexcept { return aux_.size(); }
    const std::vector<constraint>& constraints() const noexcept { return constraints_; }
    const std::vector<fr>& input_assignment() const noexcept { return inputs_; }
    const std::vector<fr>& aux_assignment() const noexcept { return aux_; }
    // Overwrite a value, to check that a gadget's constraints catch a bad witness.
    void set_aux(size_t i, const fr& value) { aux_.at(i) = value; }
    void set_input(size_t i, const fr& value) { inputs_.at(i) = value; }

private:
    std::string path(std::string name) const {
        if (stack_.empty()) return name;
        return stack_.back() + "/" + name;
    }

    std::vector<fr> inputs_, aux_;
    std::vector<constraint> constraints_;
    std::vector<std::string> stack_;  // full paths of the open namespaces
    std::unordered_set<std::string> names_;
};

}  // namespace c2lab::r1cs

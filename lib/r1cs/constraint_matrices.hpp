// constraint_matrices<Indexer>: records A, B and C as sparse rows, for setup (the QAP
// evaluation at tau needs, per variable, the sum over constraints of coefficient * L_i(tau))
// and for the pre-compiled synthesis path. Calls no name or value function; builds each
// constraint's linear combinations and copies their terms (inputs first, then aux, each
// sorted by index). enforce_input_constraints() adds the same rows as
// proving_assignment's: A = input_i, B = C = empty.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::r1cs {

using matrix_entry = std::pair<variable, fr>;

// Compressed sparse rows of (variable, coefficient).
class sparse_matrix {
public:
    size_t num_rows() const noexcept { return starts_.size() - 1; }
    size_t num_entries() const noexcept { return entries_.size(); }
    std::span<const matrix_entry> row(size_t i) const noexcept {
        return {entries_.data() + starts_[i], starts_[i + 1] - starts_[i]};
    }
    template <class Indexer>
    void push_row(const linear_combination<Indexer>& lc) {
        for (const auto& [i, k] : lc.inputs()) entries_.emplace_back(variable::input(i), k);
        for (const auto& [i, k] : lc.aux()) entries_.emplace_back(variable::aux(i), k);
        starts_.push_back(entries_.size());
    }
    void push_row(std::span<const matrix_entry> entries) {
        entries_.insert(entries_.end(), entries.begin(), entries.end());
        starts_.push_back(entries_.size());
    }

private:
    std::vector<size_t> starts_{0};
    std::vector<matrix_entry> entries_;
};

// sum of coefficient * value over a row.
inline fr evaluate_row(std::span<const matrix_entry> row, std::span<const fr> input_assignment,
                       std::span<const fr> aux_assignment) noexcept {
    fr acc = fr::zero();
    for (const auto& [v, k] : row) acc += (v.is_input() ? input_assignment[v.index] : aux_assignment[v.index]) * k;
    return acc;
}

template <class Indexer = vec_indexer>
class constraint_matrices {
public:
    using indexer_type = Indexer;
    using lc_type = linear_combination<Indexer>;

    static constexpr variable one() noexcept { return variable::one(); }

    template <class NameFn, class ValueFn>
    variable alloc(NameFn&&, ValueFn&&) noexcept {
        return variable::aux(aux_++);
    }
    template <class NameFn, class ValueFn>
    variable alloc_input(NameFn&&, ValueFn&&) {
        if (finished_) throw error(errc::internal, "constraint_matrices: input allocated after the input constraints");
        return variable::input(inputs_++);
    }
    template <class NameFn, class AFn, class BFn, class CFn>
    void enforce(NameFn&&, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
        a_.push_row(std::invoke(std::forward<AFn>(a_fn), lc_type{}));
        b_.push_row(std::invoke(std::forward<BFn>(b_fn), lc_type{}));
        c_.push_row(std::invoke(std::forward<CFn>(c_fn), lc_type{}));
    }
    template <class NameFn>
    void push_namespace(NameFn&&) noexcept {}
    void pop_namespace() noexcept {}

    // input_i * 0 = 0 for every input, as in proving_assignment. Once, after synthesis.
    void enforce_input_constraints() {
        if (finished_) throw error(errc::internal, "constraint_matrices: input constraints enforced twice");
        finished_ = true;
        for (size_t i = 0; i < inputs_; ++i) {
            matrix_entry e{variable::input(i), fr::one()};
            a_.push_row(std::span<const matrix_entry>(&e, 1));
            b_.push_row(std::span<const matrix_entry>{});
            c_.push_row(std::span<const matrix_entry>{});
        }
    }

    size_t num_constraints() const noexcept { return a_.num_rows(); }
    size_t num_inputs() const noexcept { return inputs_; }
    size_t num_aux() const noexcept { return aux_; }
    const sparse_matrix& a() const noexcept { return a_; }
    const sparse_matrix& b() const noexcept { return b_; }
    const sparse_matrix& c() const noexcept { return c_; }

private:
    sparse_matrix a_, b_, c_;
    size_t inputs_ = 1;  // the one
    size_t aux_ = 0;
    bool finished_ = false;
};

}  // namespace c2lab::r1cs

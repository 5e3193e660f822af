// linear_combination<Indexer>: sum of coefficient * variable, kept as two indexers (inputs
// and aux) of (index, coefficient) pairs sorted by index, as bellpepper-core's
// LinearCombination (crates/bellpepper-core/src/lc.rs).
//
// The indexer is the storage of one side and a compile-time choice: the lc_indexer flag
// (vec, smallvec1, smallvec2, smallvec4; see DESIGN.md for the story). with_lc_indexer() at
// the bottom of this file is the one place where the flag's names are mapped to types.
//
// Adding a term uses bellpepper's fast paths: append when the index is greater than the last
// one, add to the last coefficient when it is equal, otherwise binary search and insert (or
// add to the entry found). Terms with a zero coefficient are kept, as in bellpepper; they
// cost nothing in evaluation and never mark a density bit.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "core/error.hpp"
#include "ff/fields.hpp"
#include "msm/density.hpp"
#include "r1cs/variable.hpp"

namespace c2lab::r1cs {

using ff::fr;
using density_bitmap = msm::density_bitmap;

// One (index, coefficient) entry of an indexer. size_t, not uint32_t: with a 32-byte
// coefficient the pair is 40 bytes either way.
using lc_term = std::pair<size_t, fr>;

// Sorted (index, coefficient) storage over any vector-like container.
template <class Container>
class basic_indexer {
public:
    using container_type = Container;
    using value_type = lc_term;
    using const_iterator = typename Container::const_iterator;

    const_iterator begin() const noexcept { return terms_.begin(); }
    const_iterator end() const noexcept { return terms_.end(); }
    size_t size() const noexcept { return terms_.size(); }
    bool empty() const noexcept { return terms_.empty(); }
    const lc_term& operator[](size_t i) const noexcept { return terms_[i]; }
    const Container& terms() const noexcept { return terms_; }

    // entry[index] += coeff (inserting the entry when absent), with bellpepper's fast paths.
    void add(size_t index, fr coeff) {
        if (terms_.empty() || terms_.back().first < index) {
            reserve_more(1);
            terms_.emplace_back(index, coeff);
            return;
        }
        if (terms_.back().first == index) {
            terms_.back().second += coeff;
            return;
        }
        auto it = std::lower_bound(terms_.begin(), terms_.end(), index,
                                   [](const lc_term& t, size_t i) { return t.first < i; });
        if (it->first == index)  // it != end: the last index is greater than `index`
            it->second += coeff;
        else
            terms_.insert(it, lc_term{index, coeff});
    }

    // *this += scale * other. Appends when every index of other is past ours, merges the two
    // sorted lists otherwise (one term: the single-term path).
    void add_all(const basic_indexer& other, const fr* scale);

    void scale(const fr& k) noexcept {
        for (auto& t : terms_) t.second *= k;
    }

    friend bool operator==(const basic_indexer& a, const basic_indexer& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    // Room for `extra` more terms, grown as Rust's Vec grows (bellperson's linear combinations
    // are Vecs): to at least twice the capacity and never to fewer than 4 terms (RawVec's
    // MIN_NON_ZERO_CAP for elements up to 1 KiB). std::vector alone would allocate 1, 2, 4 ...
    // terms; a 3-term combination then costs three allocations instead of one. The inline
    // small_vector variants keep their own growth.
    static constexpr bool grows_as_rust_vec = std::is_same_v<Container, std::vector<lc_term>>;
    void reserve_more(size_t extra) {
        if constexpr (grows_as_rust_vec) {
            const size_t need = terms_.size() + extra;
            if (need > terms_.capacity()) terms_.reserve(std::max({need, 2 * terms_.capacity(), size_t{4}}));
        }
    }
    Container terms_;
};

template <class Container>
void basic_indexer<Container>::add_all(const basic_indexer& other, const fr* scale) {
    if (other.empty()) return;
    auto scaled = [scale](const fr& c) { return scale ? c * *scale : c; };
    if (other.size() == 1) {
        lc_term t = other.terms_.front();  // a copy: other may be *this
        add(t.first, scaled(t.second));
        return;
    }
    if (terms_.empty() || terms_.back().first < other.terms_.front().first) {
        if constexpr (grows_as_rust_vec)
            reserve_more(other.size());
        else
            terms_.reserve(terms_.size() + other.size());
        for (const auto& t : other.terms_) terms_.emplace_back(t.first, scaled(t.second));
        return;
    }
    Container merged;
    merged.reserve(terms_.size() + other.size());
    auto i = terms_.begin(), ie = terms_.end();
    auto j = other.terms_.begin(), je = other.terms_.end();
    while (i != ie && j != je) {
        if (i->first < j->first) {
            merged.push_back(*i++);
        } else if (j->first < i->first) {
            merged.emplace_back(j->first, scaled(j->second));
            ++j;
        } else {
            merged.emplace_back(i->first, i->second + scaled(j->second));
            ++i, ++j;
        }
    }
    for (; i != ie; ++i) merged.push_back(*i);
    for (; j != je; ++j) merged.emplace_back(j->first, scaled(j->second));
    terms_ = std::move(merged);
}

// The lc_indexer variants. Distinct class types (not aliases) so that each has its name.
class vec_indexer : public basic_indexer<std::vector<lc_term>> {
public:
    static constexpr size_t inline_capacity = 0;
    static constexpr std::string_view name = "vec";
};

template <size_t K>
class smallvec_indexer : public basic_indexer<boost::container::small_vector<lc_term, K>> {
public:
    static constexpr size_t inline_capacity = K;
    static constexpr std::string_view name = K == 1 ? "smallvec1" : K == 2 ? "smallvec2" : K == 4 ? "smallvec4" : "smallvec";
};

template <class Indexer>
class linear_combination;

// k * x and k * lc, to write `lc + k * x` and `lc - k * other` as in bellpepper's (k, x).
struct scaled_variable {
    fr coeff;
    variable var;
};
inline scaled_variable operator*(const fr& k, variable v) noexcept { return {k, v}; }

template <class Indexer>
struct scaled_lc {
    fr coeff;
    const linear_combination<Indexer>& lc;
};

template <class Indexer>
class linear_combination {
public:
    using indexer_type = Indexer;

    linear_combination() = default;
    static linear_combination zero() { return {}; }

    // *this += coeff * v
    linear_combination& add(variable v, const fr& coeff) {
        (v.is_input() ? inputs_ : aux_).add(v.index, coeff);
        return *this;
    }
    // *this += other (scale == nullptr) or *this += *scale * other
    linear_combination& add(const linear_combination& other, const fr* scale = nullptr) {
        inputs_.add_all(other.inputs_, scale);
        aux_.add_all(other.aux_, scale);
        return *this;
    }

    linear_combination& operator+=(variable v) { return add(v, fr::one()); }
    linear_combination& operator-=(variable v) { return add(v, -fr::one()); }
    linear_combination& operator+=(const scaled_variable& t) { return add(t.var, t.coeff); }
    linear_combination& operator-=(const scaled_variable& t) { return add(t.var, -t.coeff); }
    linear_combination& operator+=(const linear_combination& o) { return add(o); }
    linear_combination& operator-=(const linear_combination& o) {
        const fr m = -fr::one();
        return add(o, &m);
    }
    linear_combination& operator+=(const scaled_lc<Indexer>& t) { return add(t.lc, &t.coeff); }
    linear_combination& operator-=(const scaled_lc<Indexer>& t) {
        const fr m = -t.coeff;
        return add(t.lc, &m);
    }
    // Multiplies every coefficient by k.
    linear_combination& operator*=(const fr& k) noexcept {
        inputs_.scale(k);
        aux_.scale(k);
        return *this;
    }

    template <class T>
    friend linear_combination operator+(linear_combination lc, const T& t) requires requires(linear_combination& l, const T& x) { l += x; }
    {
        lc += t;
        return lc;
    }
    template <class T>
    friend linear_combination operator-(linear_combination lc, const T& t) requires requires(linear_combination& l, const T& x) { l -= x; }
    {
        lc -= t;
        return lc;
    }
    friend linear_combination operator*(linear_combination lc, const fr& k) noexcept { return lc *= k; }
    friend scaled_lc<Indexer> operator*(const fr& k, const linear_combination& lc) noexcept { return {k, lc}; }

    const Indexer& inputs() const noexcept { return inputs_; }
    const Indexer& aux() const noexcept { return aux_; }
    size_t size() const noexcept { return inputs_.size() + aux_.size(); }
    bool empty() const noexcept { return inputs_.empty() && aux_.empty(); }

    // sum of coeff * assignment[index] over both sides. Indices must be within the
    // assignments (a variable of this constraint system: not checked).
    fr evaluate(std::span<const fr> input_assignment, std::span<const fr> aux_assignment) const noexcept {
        return evaluate(input_assignment, aux_assignment, nullptr, nullptr);
    }
    // As above, and sets the density bit of every variable with a nonzero coefficient in
    // the given bitmaps (bellperson's eval_with_trackers; nullptr: not tracked).
    fr evaluate(std::span<const fr> input_assignment, std::span<const fr> aux_assignment,
                density_bitmap* input_density, density_bitmap* aux_density) const noexcept;

    friend bool operator==(const linear_combination&, const linear_combination&) = default;

private:
    Indexer inputs_;
    Indexer aux_;
};

namespace detail {
// acc += k * x for a coefficient k other than 1 and -1 (the callers add or subtract x for
// those). Most such terms weigh a bit by 2^i (the gadgets' packings of UInt32 words and of
// hash outputs), so x is 0 or 1 far more often than not: then the product is 0 or k and is
// skipped (a Montgomery product of Fr is 32 mulx). Shared by the direct synthesis and the
// pre-compiled circuit's rows (pce.cpp). With -1 subtracted in evaluate_side as well, the 2 KiB
// synthesis went from 1.75-1.84 to 2.02-2.06 M constraints/s on one thread of a family-23 EPYC
// (Zen 1, binaries alternated; results/reference/synth-bits-2026-12-06.md).
inline void add_weighted(fr& acc, const fr& x, const fr& k) noexcept {
    if (x.is_one())
        acc += k;
    else if (!x.is_zero())
        acc.add_product(x, k);
}

// -1, the coefficient the r1cs layer takes as a subtraction (here, the shape pass's encoding tag,
// the pre-compiled circuit's coefficient id).
inline constexpr fr minus_one_fr = -fr::one();

template <class Indexer>
fr evaluate_side(const Indexer& side, std::span<const fr> assignment, density_bitmap* density) noexcept {
    fr acc = fr::zero();
    for (const auto& [index, coeff] : side) {
        if (coeff.is_zero()) continue;
        const fr& x = assignment[index];
        if (coeff.is_one())
            acc += x;
        else if (coeff == minus_one_fr)
            acc -= x;
        else
            add_weighted(acc, x, coeff);
        if (density) density->set(index);
    }
    return acc;
}
}  // namespace detail

template <class Indexer>
fr linear_combination<Indexer>::evaluate(std::span<const fr> input_assignment, std::span<const fr> aux_assignment,
                                         density_bitmap* input_density, density_bitmap* aux_density) const noexcept {
    return detail::evaluate_side(inputs_, input_assignment, input_density) +
           detail::evaluate_side(aux_, aux_assignment, aux_density);
}

// The compiled variants are instantiated once, in r1cs.cpp.
extern template class basic_indexer<std::vector<lc_term>>;
extern template class basic_indexer<boost::container::small_vector<lc_term, 1>>;
extern template class basic_indexer<boost::container::small_vector<lc_term, 2>>;
extern template class basic_indexer<boost::container::small_vector<lc_term, 4>>;
extern template class linear_combination<vec_indexer>;
extern template class linear_combination<smallvec_indexer<1>>;
extern template class linear_combination<smallvec_indexer<2>>;
extern template class linear_combination<smallvec_indexer<4>>;

// ---- the lc_indexer flag ---------------------------------------------------------------

template <class Indexer>
struct indexer_tag {
    using type = Indexer;
    static constexpr std::string_view name = Indexer::name;
};

// Every variant of the flag, in order; the first is the default.
inline constexpr std::string_view lc_indexer_names[] = {"vec", "smallvec1", "smallvec2", "smallvec4"};
inline constexpr std::string_view lc_indexer_default = "vec";

// Calls f(indexer_tag<I>{}) for the indexer I named by the lc_indexer flag value `name`
// and returns what it returns (f must return the same type for every variant). Throws
// c2lab::error(errc::bad_input) naming the value when it is not a variant.
template <class F>
decltype(auto) with_lc_indexer(std::string_view name, F&& f) {
    if (name == vec_indexer::name) return std::forward<F>(f)(indexer_tag<vec_indexer>{});
    if (name == smallvec_indexer<1>::name) return std::forward<F>(f)(indexer_tag<smallvec_indexer<1>>{});
    if (name == smallvec_indexer<2>::name) return std::forward<F>(f)(indexer_tag<smallvec_indexer<2>>{});
    if (name == smallvec_indexer<4>::name) return std::forward<F>(f)(indexer_tag<smallvec_indexer<4>>{});
    throw error(errc::bad_input, "lc_indexer: unknown variant '" + std::string(name) +
                                     "' (expected one of vec, smallvec1, smallvec2, smallvec4)");
}

}  // namespace c2lab::r1cs

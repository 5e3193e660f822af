// allocated_num: a field element allocated in a constraint system, with its value when the
// witness is known (bellpepper's AllocatedNum, crates/bellpepper-core/src/gadgets/num.rs).
//
// Gadget pattern (libsnark): allocate, constrain, and compute the witness only when given.
// A value is std::optional: nullopt during shape-only synthesis, where the constraint
// system never calls a value function. A system that does call one for a missing value
// gets c2lab::error(errc::bad_input, "... witness missing").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "ff/fields.hpp"
#include "gadgets/boolean.hpp"  // boolean, allocated_bit; also using r1cs::namespace_guard
#include "r1cs/constraint_system.hpp"

namespace c2lab::gadgets {

using ff::fr;
using r1cs::variable;

// The value of an optional witness, or an error naming what is missing.
template <class T>
const T& witness(const std::optional<T>& v, const char* what) {
    if (!v) throw error(errc::bad_input, std::string(what) + ": witness missing");
    return *v;
}

struct allocated_num {
    variable var;
    std::optional<fr> value;

    // A private variable holding v.
    template <class CS, class NameFn>
    static allocated_num alloc(CS& cs, NameFn&& name_fn, std::optional<fr> v) {
        variable x = cs.alloc(std::forward<NameFn>(name_fn), [&] { return witness(v, "allocated_num"); });
        return {x, v};
    }

    // A public input holding v.
    template <class CS, class NameFn>
    static allocated_num alloc_input(CS& cs, NameFn&& name_fn, std::optional<fr> v) {
        variable x = cs.alloc_input(std::forward<NameFn>(name_fn), [&] { return witness(v, "allocated_num"); });
        return {x, v};
    }

    // Exposes this value as a new public input: input * 1 = self (1 constraint, as
    // bellpepper's AllocatedNum::inputize).
    template <class CS>
    variable inputize(CS& cs) const {
        namespace_guard ns(cs, [] { return "inputize"; });
        variable in = cs.alloc_input([] { return "input variable"; }, [&] { return witness(value, "inputize"); });
        cs.enforce([] { return "enforce input is correct"; }, [&](auto lc) { return lc + in; },
                   [](auto lc) { return lc + CS::one(); }, [&](auto lc) { return lc + var; });
        return in;
    }

    // self * other, allocated (1 constraint).
    template <class CS>
    allocated_num mul(CS& cs, const allocated_num& other) const {
        std::optional<fr> p;
        if (value && other.value) p = *value * *other.value;
        allocated_num r = alloc(cs, [] { return "product num"; }, p);
        cs.enforce([] { return "multiplication constraint"; }, [&](auto lc) { return lc + var; },
                   [&](auto lc) { return lc + other.var; }, [&](auto lc) { return lc + r.var; });
        return r;
    }

    // self^2, allocated (1 constraint).
    template <class CS>
    allocated_num square(CS& cs) const {
        std::optional<fr> p;
        if (value) p = value->square();
        allocated_num r = alloc(cs, [] { return "squared num"; }, p);
        cs.enforce([] { return "squaring constraint"; }, [&](auto lc) { return lc + var; },
                   [&](auto lc) { return lc + var; }, [&](auto lc) { return lc + r.var; });
        return r;
    }

    // The 255 little-endian bits of this value: field_into_allocated_bits_le and the
    // "unpacking constraint" 0 * 0 = sum 2^i b_i - self (bellpepper AllocatedNum::to_bits_le;
    // 256 constraints). Not range-checked: a value and value + r share no bits only because
    // the caller's other constraints say so; use to_bits_le_strict for that.
    template <class CS>
    std::vector<boolean> to_bits_le(CS& cs) const {
        std::vector<allocated_bit> bits = field_into_allocated_bits_le(cs, value);
        cs.enforce([] { return "unpacking constraint"; }, [](auto lc) { return lc; }, [](auto lc) { return lc; },
                   [&](auto lc) {
                       for (size_t i = 0; i < bits.size(); ++i) lc.add(bits[i].var, pow2(i));
                       lc -= var;
                       return lc;
                   });
        std::vector<boolean> out;
        out.reserve(bits.size());
        for (const auto& b : bits) out.emplace_back(b);
        return out;
    }

    // The 255 little-endian bits, constrained to be the canonical representation (the bits
    // as a number are at most r - 1), as bellpepper AllocatedNum::to_bits_le_strict: the
    // bits under the runs of ones of r - 1 are plain bits ("bit <i>", i counting from the
    // most significant), each run is AND-ed with the previous ones ("run ending at <i>"),
    // and a bit under a zero of r - 1 must be 0 while everything above equals r - 1.
    template <class CS>
    std::vector<boolean> to_bits_le_strict(CS& cs) const {
        static constexpr fr::repr r_minus_1 = (-fr::one()).to_canonical();
        auto bit_of = [](const fr::repr& x, size_t i) { return ((x[i / 64] >> (i % 64)) & 1) != 0; };
        std::optional<fr::repr> a;
        if (value) a = value->to_canonical();

        std::vector<allocated_bit> result;  // most significant first
        result.reserve(fr_num_bits);
        std::optional<allocated_bit> last_run;
        std::vector<allocated_bit> current_run;
        bool found_one = false;
        size_t i = 0;
        for (size_t pos = fr::n_limbs * 64; pos-- > 0;) {
            const bool b = bit_of(r_minus_1, pos);
            std::optional<bool> a_bit;
            if (a) a_bit = bit_of(*a, pos);
            found_one |= b;
            if (!found_one) continue;  // above the top bit of r - 1: a's bit is 0 too
            if (b) {
                namespace_guard ns(cs, [i] { return "bit " + std::to_string(i); });
                allocated_bit ab = allocated_bit::alloc(cs, a_bit);
                current_run.push_back(ab);
                result.push_back(ab);
            } else {
                if (!current_run.empty()) {
                    if (last_run) current_run.push_back(*last_run);
                    namespace_guard ns(cs, [i] { return "run ending at " + std::to_string(i); });
                    allocated_bit cur = current_run.front();
                    for (size_t k = 1; k < current_run.size(); ++k) {
                        namespace_guard and_ns(cs, [k] { return "and " + std::to_string(k); });
                        cur = bit_and(cs, cur, current_run[k]);
                    }
                    last_run = cur;
                    current_run.clear();
                }
                namespace_guard ns(cs, [i] { return "bit " + std::to_string(i); });
                result.push_back(allocated_bit::alloc_conditionally(cs, a_bit, *last_run));
            }
            ++i;
        }
        cs.enforce([] { return "unpacking constraint"; }, [](auto lc) { return lc; }, [](auto lc) { return lc; },
                   [&](auto lc) {
                       for (size_t k = 0; k < result.size(); ++k) lc.add(result[result.size() - 1 - k].var, pow2(k));
                       lc -= var;
                       return lc;
                   });
        std::vector<boolean> out;
        out.reserve(result.size());
        for (size_t k = result.size(); k-- > 0;) out.emplace_back(result[k]);
        return out;
    }
};

// a == b: a * 1 = b (1 constraint).
template <class CS, class NameFn>
void enforce_equal(CS& cs, NameFn&& name_fn, const allocated_num& a, const allocated_num& b) {
    cs.enforce(std::forward<NameFn>(name_fn), [&](auto lc) { return lc + a.var; },
               [](auto lc) { return lc + CS::one(); }, [&](auto lc) { return lc + b.var; });
}

// Packs the first min(bits.size(), 254) bits, least significant first, into one allocated
// number: "input" with "packing constraint" (sum 2^i b_i) * 1 = input (1 constraint; bellpepper
// multipack::pack_bits, rust-fil-proofs storage-proofs-core gadgets/multipack.rs).
template <class CS>
allocated_num pack_bits(CS& cs, std::span<const boolean> bits) {
    const size_t n = bits.size() < fr_capacity ? bits.size() : fr_capacity;
    std::optional<fr> v;
    {
        fr::repr x{};
        bool known = true;
        for (size_t i = 0; i < n && known; ++i) {
            std::optional<bool> b = bits[i].value();
            if (!b) known = false;
            else if (*b) x[i / 64] |= uint64_t{1} << (i % 64);
        }
        if (known) v = fr::from_canonical(x);  // below 2^254 < r
    }
    allocated_num r = allocated_num::alloc(cs, [] { return "input/num"; }, v);
    cs.enforce([] { return "packing constraint"; },
               [&](auto lc) {
                   for (size_t i = 0; i < n; ++i) bits[i].add_to(lc, pow2(i));
                   return lc;
               },
               [](auto lc) { return lc + CS::one(); }, [&](auto lc) { return lc + r.var; });
    return r;
}

}  // namespace c2lab::gadgets

// Insertion permutation: put one allocated number into the arity - 1 siblings of a Merkle
// path level, at the position given by little-endian index bits (rust-fil-proofs
// storage-proofs-core/src/gadgets/insertion.rs).
//
//   pick(cs, cond, a, b)                 cond ? a : b, 1 constraint: (b - a) * cond = b - c
//   select(cs, from, bits)               from[n], n = bits little-endian; size - 1 picks
//   insert(cs, x, bits, siblings)        siblings[0..n] ++ [x] ++ siblings[n..]
//
// Constraint counts, as the source (its test_insert): arity 2: 2 (insert_2, the binary
// conditional reverse); arity 4: 8 (insert_4); arity 8: 22 (insert_8: one nor, one and, 20
// picks); other powers of two: size * (size - 1) (one select per output position; 240 for
// 16). insert_8 needs bits 0 and 1 to be unnegated allocated bits, as the source (which
// panics otherwise); this version throws c2lab::error(errc::bad_input).
//
// Names follow the source: insert_2's picks are "binary insert 0/1", insert_4's and
// insert_8's are named after the output they build ("p0_x0", "p0", ...), the general case
// uses "choice at <pos>" / "pick <i>, <j>". The caller opens the enclosing namespace.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gadgets/boolean.hpp"
#include "gadgets/num.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::gadgets {

// cond ? a : b: allocates "pick result" c and enforces "pick": (b - a) * cond = (b - c).
// The value needs the condition and the chosen operand only.
template <class CS>
allocated_num pick(CS& cs, const boolean& cond, const allocated_num& a, const allocated_num& b) {
    using lc_t = typename CS::lc_type;
    std::optional<fr> v;
    if (std::optional<bool> c = cond.value()) v = *c ? a.value : b.value;
    allocated_num r = allocated_num::alloc(cs, [] { return "pick result"; }, v);
    cs.enforce([] { return "pick"; }, [&](lc_t lc) { return lc + b.var - a.var; },
               [&](lc_t) { return cond.template lc<lc_t>(fr::one()); }, [&](lc_t lc) { return lc + b.var - r.var; });
    return r;
}

namespace detail {

// pick inside its own namespace, the way the source calls pick(cs.namespace(name), ...).
template <class CS, class NameFn>
allocated_num named_pick(CS& cs, NameFn&& name_fn, const boolean& cond, const allocated_num& a,
                         const allocated_num& b) {
    namespace_guard ns(cs, std::forward<NameFn>(name_fn));
    return pick(cs, cond, a, b);
}

inline void check_insert_sizes(size_t elements, size_t bits) {
    if (bits >= 8 * sizeof(size_t) || (size_t{1} << bits) != elements + 1)
        throw error(errc::bad_input, "insert: " + std::to_string(elements) + " siblings need " +
                                         "log2(siblings + 1) index bits, got " + std::to_string(bits));
}

// The allocated bit under an unnegated boolean (insert_8's nor / and need them).
inline allocated_bit plain_bit(const boolean& b) {
    if (b.get_kind() != boolean::kind::is)
        throw error(errc::bad_input, "insert_8: index bits must be allocated and unnegated");
    return b.bit();
}

}  // namespace detail

// from[n] where bits are n, least significant first: a binary mux tree consuming the most
// significant bit first, "pick <i>, <j>" = pick(bit, state[half + j], state[j]); from.size()
// must be 2^bits.size(); from.size() - 1 constraints.
template <class CS>
allocated_num select(CS& cs, std::span<const allocated_num> from, std::span<const boolean> bits) {
    if (bits.size() >= 8 * sizeof(size_t) || (size_t{1} << bits.size()) != from.size())
        throw error(errc::bad_input, "select: " + std::to_string(from.size()) + " elements for " +
                                         std::to_string(bits.size()) + " bits");
    std::vector<allocated_num> state(from.begin(), from.end());
    size_t half = from.size() / 2;
    for (size_t i = 0; i < bits.size(); ++i) {
        const boolean& bit = bits[bits.size() - 1 - i];
        std::vector<allocated_num> next;
        next.reserve(half);
        for (size_t j = 0; j < half; ++j)
            next.push_back(detail::named_pick(
                cs, [i, j] { return "pick " + std::to_string(i) + ", " + std::to_string(j); }, bit, state[half + j],
                state[j]));
        state = std::move(next);
        half /= 2;
    }
    return state.front();
}

// Arity 2 (2 constraints): [b0 ? s0 : x, b0 ? x : s0].
template <class CS>
std::vector<allocated_num> insert_2(CS& cs, const allocated_num& x, std::span<const boolean> bits,
                                    std::span<const allocated_num> s) {
    detail::check_insert_sizes(s.size(), bits.size());
    if (s.size() != 1) throw error(errc::bad_input, "insert_2: needs 1 sibling");
    std::vector<allocated_num> out;
    out.push_back(detail::named_pick(cs, [] { return "binary insert 0"; }, bits[0], s[0], x));
    out.push_back(detail::named_pick(cs, [] { return "binary insert 1"; }, bits[0], x, s[0]));
    return out;
}

// Arity 4 (8 constraints). With x = element, s = siblings, n = b0 + 2 b1:
//   n=0: x s0 s1 s2   n=1: s0 x s1 s2   n=2: s0 s1 x s2   n=3: s0 s1 s2 x
// each output is two picks, the first on b0, the second on b1.
template <class CS>
std::vector<allocated_num> insert_4(CS& cs, const allocated_num& x, std::span<const boolean> bits,
                                    std::span<const allocated_num> s) {
    detail::check_insert_sizes(s.size(), bits.size());
    if (s.size() != 3) throw error(errc::bad_input, "insert_4: needs 3 siblings");
    const boolean &b0 = bits[0], &b1 = bits[1];
    auto p = [&](const char* name, const boolean& c, const allocated_num& a, const allocated_num& b) {
        return detail::named_pick(cs, [name] { return name; }, c, a, b);
    };
    allocated_num p0_x0 = p("p0_x0", b0, s[0], x);
    allocated_num p0 = p("p0", b1, s[0], p0_x0);
    allocated_num p1_x0 = p("p1_x0", b0, x, s[0]);
    allocated_num p1 = p("p1", b1, s[1], p1_x0);
    allocated_num p2_x1 = p("p2_x1", b0, s[2], x);
    allocated_num p2 = p("p2", b1, p2_x1, s[1]);
    allocated_num p3_x1 = p("p3_x1", b0, x, s[2]);
    allocated_num p3 = p("p3", b1, p3_x1, s[2]);
    return {p0, p1, p2, p3};
}

// Arity 8 (22 constraints): nor = (1 - b0)(1 - b1) and and = b0 b1 first ("b0 nor b1",
// "b0 and b1"), then 20 picks; output k takes x when n = k, s[k - 1] when n < k, s[k] when
// n > k. The picks and their order are the source's.
template <class CS>
std::vector<allocated_num> insert_8(CS& cs, const allocated_num& x, std::span<const boolean> bits,
                                    std::span<const allocated_num> s) {
    detail::check_insert_sizes(s.size(), bits.size());
    if (s.size() != 7) throw error(errc::bad_input, "insert_8: needs 7 siblings");
    const boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
    const allocated_bit a0 = detail::plain_bit(b0);
    const allocated_bit a1 = detail::plain_bit(b1);
    boolean b0_nor_b1, b0_and_b1;
    {
        namespace_guard ns(cs, [] { return "b0 nor b1"; });
        b0_nor_b1 = boolean(bit_nor(cs, a0, a1));
    }
    {
        namespace_guard ns(cs, [] { return "b0 and b1"; });
        b0_and_b1 = boolean(bit_and(cs, a0, a1));
    }
    auto p = [&](const char* name, const boolean& c, const allocated_num& a, const allocated_num& b) {
        return detail::named_pick(cs, [name] { return name; }, c, a, b);
    };
    allocated_num p0_xx0 = p("p0_xx0", b0_nor_b1, x, s[0]);
    allocated_num p0 = p("p0", b2, s[0], p0_xx0);

    allocated_num p1_x00 = p("p1_x00", b0, x, s[0]);
    allocated_num p1_xx0 = p("p1_xx0", b1, s[1], p1_x00);
    allocated_num p1 = p("p1", b2, s[1], p1_xx0);

    allocated_num p2_x10 = p("p2_x10", b0, s[2], x);
    allocated_num p2_xx0 = p("p2_xx0", b1, p2_x10, s[1]);
    allocated_num p2 = p("p2", b2, s[2], p2_xx0);

    allocated_num p3_xx0 = p("p3_xx0", b0_and_b1, x, s[2]);
    allocated_num p3 = p("p3", b2, s[3], p3_xx0);

    allocated_num p4_xx1 = p("p4_xx1", b0_nor_b1, x, s[4]);
    allocated_num p4 = p("p4", b2, p4_xx1, s[3]);

    allocated_num p5_x01 = p("p5_x01", b0, x, s[4]);
    allocated_num p5_xx1 = p("p5_xx1", b1, s[5], p5_x01);
    allocated_num p5 = p("p5", b2, p5_xx1, s[4]);

    allocated_num p6_x11 = p("p6_x11", b0, s[6], x);
    allocated_num p6_xx1 = p("p6_xx1", b1, p6_x11, s[5]);
    allocated_num p6 = p("p6", b2, p6_xx1, s[5]);

    allocated_num p7_xx1 = p("p7_xx1", b0_and_b1, x, s[6]);
    allocated_num p7 = p("p7", b2, p7_xx1, s[6]);
    return {p0, p1, p2, p3, p4, p5, p6, p7};
}

// Any power of two (the source's general algorithm): output pos = select over the candidates
// result_n[pos] for every n, in namespace "choice at <pos>"; size * (size - 1) constraints.
template <class CS>
std::vector<allocated_num> insert_general(CS& cs, const allocated_num& x, std::span<const boolean> bits,
                                          std::span<const allocated_num> s) {
    detail::check_insert_sizes(s.size(), bits.size());
    const size_t size = s.size() + 1;
    std::vector<allocated_num> out;
    out.reserve(size);
    std::vector<allocated_num> choices(size);
    for (size_t pos = 0; pos < size; ++pos) {
        for (size_t n = 0; n < size; ++n) choices[n] = pos < n ? s[pos] : pos == n ? x : s[pos - 1];
        namespace_guard ns(cs, [pos] { return "choice at " + std::to_string(pos); });
        out.push_back(select(cs, std::span<const allocated_num>(choices), bits));
    }
    return out;
}

// Inserts x among the siblings at position n = bits (little-endian): the hand-optimised
// layouts for 2, 4 and 8 elements, the general one otherwise.
template <class CS>
std::vector<allocated_num> insert(CS& cs, const allocated_num& x, std::span<const boolean> bits,
                                  std::span<const allocated_num> siblings) {
    detail::check_insert_sizes(siblings.size(), bits.size());
    switch (siblings.size() + 1) {
        case 2: return insert_2(cs, x, bits, siblings);
        case 4: return insert_4(cs, x, bits, siblings);
        case 8: return insert_8(cs, x, bits, siblings);
        default: return insert_general(cs, x, bits, siblings);
    }
}

// Constraints of insert for `size` = siblings + 1 elements.
constexpr size_t insert_constraints(size_t size) noexcept {
    switch (size) {
        case 2: return 2;
        case 4: return 8;
        case 8: return 22;
        default: return size * (size - 1);
    }
}

}  // namespace c2lab::gadgets

// Boolean gadgets with bellpepper's exact constraint layout
// (bellpepper-core crates/bellpepper-core/src/gadgets/boolean.rs):
//
//   allocated_bit   a variable constrained to 0 or 1: (1 - x) * x = 0
//   boolean         constant / allocated / negated allocated bit, so that NOT is free
//   bit_xor, bit_and, bit_and_not, bit_nor on allocated bits (1 constraint each);
//   bit_xor, bit_and, bit_or, sha256_ch, sha256_maj on booleans, with bellpepper's
//   constant folding (a constant operand costs nothing or less)
//   enforce_equal(cs, name, a, b) on booleans
//   u64_into_boolean_vec_le, field_into_allocated_bits_le; bytes_into_boolean_vec[_be],
//   reverse_bit_numbering (rust-fil-proofs storage-proofs-core/src/util.rs)
//
// Every gadget takes the constraint system by reference and names its variables and
// constraints as bellpepper does; the caller opens the namespaces (namespace_guard). Values
// are std::optional: nullopt during shape-only synthesis, where no value is computed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ff/fields.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::gadgets {

using ff::fr;
using r1cs::namespace_guard;
using r1cs::variable;

// Fr::CAPACITY: the number of bits that always fit in an element (255 - 1).
inline constexpr size_t fr_num_bits = fr::bits;  // 255
inline constexpr size_t fr_capacity = fr::bits - 1;

namespace detail {

// 2^k in Fr for k < 256, computed at compile time.
inline constexpr std::array<fr, 256> pow2_table = [] {
    std::array<fr, 256> t{};
    fr x = fr::one();
    for (auto& e : t) {
        e = x;
        x = x + x;
    }
    return t;
}();

inline fr bit_value(const std::optional<bool>& v, const char* what) {
    if (!v) throw error(errc::bad_input, std::string(what) + ": witness missing");
    return *v ? fr::one() : fr::zero();
}

inline std::optional<bool> both(const std::optional<bool>& a, const std::optional<bool>& b, bool (*f)(bool, bool)) {
    if (a && b) return f(*a, *b);
    return std::nullopt;
}

}  // namespace detail

// 2^k for k < 256.
inline const fr& pow2(size_t k) noexcept { return detail::pow2_table[k]; }

// A variable constrained to be a bit (bellpepper AllocatedBit).
struct allocated_bit {
    variable var;
    std::optional<bool> value;

    // Allocates "boolean" with "boolean constraint" (1 - x) * x = 0.
    template <class CS>
    static allocated_bit alloc(CS& cs, std::optional<bool> v) {
        variable x = cs.alloc([] { return "boolean"; }, [&] { return detail::bit_value(v, "allocated_bit"); });
        cs.enforce([] { return "boolean constraint"; }, [&](auto lc) { return lc + CS::one() - x; },
                   [&](auto lc) { return lc + x; }, [](auto lc) { return lc; });
        return {x, v};
    }

    // A bit that must be 0 when must_be_false is 1: (1 - must_be_false - x) * x = 0.
    template <class CS>
    static allocated_bit alloc_conditionally(CS& cs, std::optional<bool> v, const allocated_bit& must_be_false) {
        variable x = cs.alloc([] { return "boolean"; }, [&] { return detail::bit_value(v, "allocated_bit"); });
        cs.enforce([] { return "boolean constraint"; },
                   [&](auto lc) { return lc + CS::one() - must_be_false.var - x; }, [&](auto lc) { return lc + x; },
                   [](auto lc) { return lc; });
        return {x, v};
    }
};

// a XOR b: (2a) * b = a + b - c (1 constraint).
template <class CS>
allocated_bit bit_xor(CS& cs, const allocated_bit& a, const allocated_bit& b) {
    std::optional<bool> v = detail::both(a.value, b.value, [](bool x, bool y) { return x != y; });
    variable c = cs.alloc([] { return "xor result"; }, [&] { return detail::bit_value(v, "xor"); });
    cs.enforce([] { return "xor constraint"; }, [&](auto lc) { return lc + a.var + a.var; },
               [&](auto lc) { return lc + b.var; }, [&](auto lc) { return lc + a.var + b.var - c; });
    return {c, v};
}

// a AND b: a * b = c.
template <class CS>
allocated_bit bit_and(CS& cs, const allocated_bit& a, const allocated_bit& b) {
    std::optional<bool> v = detail::both(a.value, b.value, [](bool x, bool y) { return x && y; });
    variable c = cs.alloc([] { return "and result"; }, [&] { return detail::bit_value(v, "and"); });
    cs.enforce([] { return "and constraint"; }, [&](auto lc) { return lc + a.var; },
               [&](auto lc) { return lc + b.var; }, [&](auto lc) { return lc + c; });
    return {c, v};
}

// a AND (NOT b): a * (1 - b) = c.
template <class CS>
allocated_bit bit_and_not(CS& cs, const allocated_bit& a, const allocated_bit& b) {
    std::optional<bool> v = detail::both(a.value, b.value, [](bool x, bool y) { return x && !y; });
    variable c = cs.alloc([] { return "and not result"; }, [&] { return detail::bit_value(v, "and not"); });
    cs.enforce([] { return "and not constraint"; }, [&](auto lc) { return lc + a.var; },
               [&](auto lc) { return lc + CS::one() - b.var; }, [&](auto lc) { return lc + c; });
    return {c, v};
}

// (NOT a) AND (NOT b): (1 - a) * (1 - b) = c.
template <class CS>
allocated_bit bit_nor(CS& cs, const allocated_bit& a, const allocated_bit& b) {
    std::optional<bool> v = detail::both(a.value, b.value, [](bool x, bool y) { return !x && !y; });
    variable c = cs.alloc([] { return "nor result"; }, [&] { return detail::bit_value(v, "nor"); });
    cs.enforce([] { return "nor constraint"; }, [&](auto lc) { return lc + CS::one() - a.var; },
               [&](auto lc) { return lc + CS::one() - b.var; }, [&](auto lc) { return lc + c; });
    return {c, v};
}

// A constant, an allocated bit, or the negation of one (bellpepper Boolean).
class boolean {
public:
    enum class kind : uint8_t { constant, is, negated };

    constexpr boolean() noexcept = default;  // constant false
    explicit constexpr boolean(const allocated_bit& b) noexcept : var_(b.var), bit_value_(b.value), kind_(kind::is) {}
    static constexpr boolean constant(bool b) noexcept {
        boolean r;
        r.constant_ = b;
        return r;
    }

    constexpr kind get_kind() const noexcept { return kind_; }
    constexpr bool is_constant() const noexcept { return kind_ == kind::constant; }
    // The underlying allocated bit (meaningless for a constant).
    constexpr allocated_bit bit() const noexcept { return {var_, bit_value_}; }
    // The constant's value (only for a constant).
    constexpr bool constant_value() const noexcept { return constant_; }

    std::optional<bool> value() const noexcept {
        switch (kind_) {
            case kind::constant: return constant_;
            case kind::is: return bit_value_;
            case kind::negated: return bit_value_ ? std::optional<bool>(!*bit_value_) : std::nullopt;
        }
        return std::nullopt;
    }

    // NOT: free.
    constexpr boolean negated() const noexcept {
        boolean r = *this;
        switch (kind_) {
            case kind::constant: r.constant_ = !constant_; break;
            case kind::is: r.kind_ = kind::negated; break;
            case kind::negated: r.kind_ = kind::is; break;
        }
        return r;
    }

    // lc += coeff * self: constant true -> coeff * one; bit -> coeff * x; negated ->
    // coeff * one - coeff * x (bellpepper Boolean::lc).
    template <class LC>
    void add_to(LC& lc, const fr& coeff) const {
        switch (kind_) {
            case kind::constant:
                if (constant_) lc.add(variable::one(), coeff);
                break;
            case kind::is: lc.add(var_, coeff); break;
            case kind::negated:
                lc.add(variable::one(), coeff);
                lc.add(var_, -coeff);
                break;
        }
    }
    template <class LC>
    LC lc(const fr& coeff = fr::one()) const {
        LC r;
        add_to(r, coeff);
        return r;
    }

private:
    // the fields of the allocated bit, unpacked so that the whole fits in 24 bytes
    variable var_{};
    std::optional<bool> bit_value_;
    kind kind_ = kind::constant;
    bool constant_ = false;
};
static_assert(sizeof(boolean) <= 24);

// a == b (bellpepper Boolean::enforce_equal): 0 * 0 = a - b, or nothing for two equal
// constants; two different constants are unsatisfiable (c2lab::error bad_input).
template <class CS, class NameFn>
void enforce_equal(CS& cs, NameFn&& name_fn, const boolean& a, const boolean& b) {
    using lc_t = typename CS::lc_type;
    if (a.is_constant() && b.is_constant()) {
        if (a.constant_value() != b.constant_value())
            throw error(errc::bad_input, "boolean enforce_equal: two different constants");
        return;
    }
    const fr one = fr::one();
    auto zero_fn = [](lc_t lc) { return lc; };
    auto is_const = [](const boolean& x, bool v) { return x.is_constant() && x.constant_value() == v; };
    if (is_const(a, true) || is_const(b, true)) {
        const boolean& x = is_const(a, true) ? b : a;
        namespace_guard ns(cs, std::forward<NameFn>(name_fn));
        cs.enforce([] { return "enforce equal to one"; }, zero_fn, zero_fn, [&](lc_t lc) {
            lc += CS::one();
            lc -= x.template lc<lc_t>(one);
            return lc;
        });
    } else if (is_const(a, false) || is_const(b, false)) {
        const boolean& x = is_const(a, false) ? b : a;
        namespace_guard ns(cs, std::forward<NameFn>(name_fn));
        cs.enforce([] { return "enforce equal to zero"; }, zero_fn, zero_fn,
                   [&](lc_t) { return x.template lc<lc_t>(one); });
    } else {
        namespace_guard ns(cs, std::forward<NameFn>(name_fn));
        cs.enforce([] { return "enforce equal"; }, zero_fn, zero_fn, [&](lc_t) {
            lc_t lc = a.template lc<lc_t>(one);
            lc -= b.template lc<lc_t>(one);
            return lc;
        });
    }
}

// XOR of booleans (bellpepper Boolean::xor): constants fold; Is/Not pairs reduce to one
// allocated xor.
template <class CS>
boolean bit_xor(CS& cs, const boolean& a, const boolean& b) {
    using K = boolean::kind;
    if (a.is_constant() && !a.constant_value()) return b;
    if (b.is_constant() && !b.constant_value()) return a;
    if (a.is_constant()) return b.negated();  // a is true
    if (b.is_constant()) return a.negated();
    if (a.get_kind() != b.get_kind()) {
        const boolean& is = a.get_kind() == K::is ? a : b;
        const boolean& nt = a.get_kind() == K::is ? b : a;
        return bit_xor(cs, is, nt.negated()).negated();
    }
    return boolean(bit_xor(cs, a.bit(), b.bit()));
}

// AND of booleans (bellpepper Boolean::and).
template <class CS>
boolean bit_and(CS& cs, const boolean& a, const boolean& b) {
    using K = boolean::kind;
    if ((a.is_constant() && !a.constant_value()) || (b.is_constant() && !b.constant_value()))
        return boolean::constant(false);
    if (a.is_constant()) return b;  // a is true
    if (b.is_constant()) return a;
    if (a.get_kind() == K::is && b.get_kind() == K::negated) return boolean(bit_and_not(cs, a.bit(), b.bit()));
    if (a.get_kind() == K::negated && b.get_kind() == K::is) return boolean(bit_and_not(cs, b.bit(), a.bit()));
    if (a.get_kind() == K::negated) return boolean(bit_nor(cs, a.bit(), b.bit()));
    return boolean(bit_and(cs, a.bit(), b.bit()));
}

// OR: NOT (NOT a AND NOT b), in namespace "not and (not a) (not b)".
template <class CS>
boolean bit_or(CS& cs, const boolean& a, const boolean& b) {
    namespace_guard ns(cs, [] { return "not and (not a) (not b)"; });
    return bit_and(cs, a.negated(), b.negated()).negated();
}

// SHA-256 ch = (a AND b) XOR ((NOT a) AND c), one constraint in general
// (bellpepper Boolean::sha256_ch): (b - c) * a = ch - c.
template <class CS>
boolean sha256_ch(CS& cs, const boolean& a, const boolean& b, const boolean& c) {
    using lc_t = typename CS::lc_type;
    std::optional<bool> v;
    if (auto av = a.value(), bv = b.value(), cv = c.value(); av && bv && cv) v = (*av && *bv) != (!*av && *cv);
    auto is_const = [](const boolean& x, bool val) { return x.is_constant() && x.constant_value() == val; };
    if (a.is_constant() && b.is_constant() && c.is_constant()) return boolean::constant(*v);
    if (is_const(a, false)) return c;
    if (is_const(b, false)) return bit_and(cs, a.negated(), c);
    if (is_const(c, false)) return bit_and(cs, a, b);
    if (is_const(c, true)) return bit_and(cs, a, b.negated()).negated();
    if (is_const(b, true)) return bit_and(cs, a.negated(), c.negated()).negated();
    // a constant true, or none constant: the general constraint.
    const fr one = fr::one();
    variable ch = cs.alloc([] { return "ch"; }, [&] { return detail::bit_value(v, "sha256_ch"); });
    cs.enforce(
        [] { return "ch computation"; },
        [&](lc_t) {
            lc_t lc = b.template lc<lc_t>(one);
            lc -= c.template lc<lc_t>(one);
            return lc;
        },
        [&](lc_t) { return a.template lc<lc_t>(one); },
        [&](lc_t lc) {
            lc += ch;
            lc -= c.template lc<lc_t>(one);
            return lc;
        });
    return boolean(allocated_bit{ch, v});
}

// SHA-256 maj = (a AND b) XOR (a AND c) XOR (b AND c), two constraints in general
// (bellpepper Boolean::sha256_maj): bc = b AND c, (2bc - b - c) * a = bc - maj.
template <class CS>
boolean sha256_maj(CS& cs, const boolean& a, const boolean& b, const boolean& c) {
    using lc_t = typename CS::lc_type;
    std::optional<bool> v;
    if (auto av = a.value(), bv = b.value(), cv = c.value(); av && bv && cv)
        v = ((*av && *bv) != (*av && *cv)) != (*bv && *cv);
    auto is_const = [](const boolean& x, bool val) { return x.is_constant() && x.constant_value() == val; };
    if (a.is_constant() && b.is_constant() && c.is_constant()) return boolean::constant(*v);
    if (is_const(a, false)) return bit_and(cs, b, c);
    if (is_const(b, false)) return bit_and(cs, a, c);
    if (is_const(c, false)) return bit_and(cs, a, b);
    if (is_const(c, true)) return bit_and(cs, a.negated(), b.negated()).negated();
    if (is_const(b, true)) return bit_and(cs, a.negated(), c.negated()).negated();
    if (is_const(a, true)) return bit_and(cs, b.negated(), c.negated()).negated();
    const fr one = fr::one();
    variable maj = cs.alloc([] { return "maj"; }, [&] { return detail::bit_value(v, "sha256_maj"); });
    boolean bc;
    {
        namespace_guard ns(cs, [] { return "b and c"; });
        bc = bit_and(cs, b, c);
    }
    cs.enforce(
        [] { return "maj computation"; },
        [&](lc_t) {
            lc_t lc = bc.template lc<lc_t>(one);
            lc += bc.template lc<lc_t>(one);
            lc -= b.template lc<lc_t>(one);
            lc -= c.template lc<lc_t>(one);
            return lc;
        },
        [&](lc_t) { return a.template lc<lc_t>(one); },
        [&](lc_t) {
            lc_t lc = bc.template lc<lc_t>(one);
            lc -= maj;
            return lc;
        });
    return boolean(allocated_bit{maj, v});
}

// 64 allocated bits of a u64, least significant first, each in namespace "bit <i>"
// (bellpepper u64_into_boolean_vec_le).
template <class CS>
std::vector<boolean> u64_into_boolean_vec_le(CS& cs, std::optional<uint64_t> value) {
    std::vector<boolean> bits;
    bits.reserve(64);
    for (size_t i = 0; i < 64; ++i) {
        namespace_guard ns(cs, [i] { return "bit " + std::to_string(i); });
        std::optional<bool> b;
        if (value) b = ((*value >> i) & 1) != 0;
        bits.emplace_back(allocated_bit::alloc(cs, b));
    }
    return bits;
}

// The 255 (Fr::NUM_BITS) allocated bits of a field element, least significant first, each
// in namespace "bit <i>" (bellpepper field_into_allocated_bits_le). Not range-checked.
template <class CS>
std::vector<allocated_bit> field_into_allocated_bits_le(CS& cs, const std::optional<fr>& value) {
    std::optional<fr::repr> x;
    if (value) x = value->to_canonical();
    std::vector<allocated_bit> bits;
    bits.reserve(fr_num_bits);
    for (size_t i = 0; i < fr_num_bits; ++i) {
        namespace_guard ns(cs, [i] { return "bit " + std::to_string(i); });
        std::optional<bool> b;
        if (x) b = (((*x)[i / 64] >> (i % 64)) & 1) != 0;
        bits.push_back(allocated_bit::alloc(cs, b));
    }
    return bits;
}

namespace detail {
// The bits of `bytes` (or size_bits bits without values), each allocated in namespace
// "bit <i>", most (msb_first) or least significant bit of each byte first.
template <class CS>
std::vector<boolean> bytes_into_allocated_bits(CS& cs, std::optional<std::span<const uint8_t>> value, size_t size_bits,
                                               bool msb_first) {
    const size_t n = value ? value->size() * 8 : size_bits;
    std::vector<boolean> bits;
    bits.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        namespace_guard ns(cs, [i] { return "bit " + std::to_string(i); });
        std::optional<bool> b;
        if (value) b = (((*value)[i / 8] >> (msb_first ? 7 - i % 8 : i % 8)) & 1) != 0;
        bits.emplace_back(allocated_bit::alloc(cs, b));
    }
    return bits;
}
}  // namespace detail

// One allocated bit per bit of `bytes`, most significant bit of each byte first, each in
// namespace "bit <i>" (rust-fil-proofs storage-proofs-core util::bytes_into_boolean_vec_be).
// value == nullopt: `size_bits` bits without values.
template <class CS>
std::vector<boolean> bytes_into_boolean_vec_be(CS& cs, std::optional<std::span<const uint8_t>> value, size_t size_bits) {
    return detail::bytes_into_allocated_bits(cs, value, size_bits, true);
}

// As bytes_into_boolean_vec_be, least significant bit of each byte first
// (storage-proofs-core util::bytes_into_boolean_vec).
template <class CS>
std::vector<boolean> bytes_into_boolean_vec(CS& cs, std::optional<std::span<const uint8_t>> value, size_t size_bits) {
    return detail::bytes_into_allocated_bits(cs, value, size_bits, false);
}

// Pads with constant false to whole bytes, then reverses the bit order within each byte
// (rust-fil-proofs storage-proofs-core util::reverse_bit_numbering).
inline std::vector<boolean> reverse_bit_numbering(std::span<const boolean> bits) {
    const size_t n = (bits.size() + 7) / 8 * 8;
    std::vector<boolean> out(n);
    for (size_t i = 0; i < n; ++i) {
        const size_t src = i / 8 * 8 + (7 - i % 8);
        out[i] = src < bits.size() ? bits[src] : boolean::constant(false);
    }
    return out;
}

}  // namespace c2lab::gadgets

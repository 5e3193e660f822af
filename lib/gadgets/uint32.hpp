// 32- and 64-bit unsigned integers as bits, with bellpepper's constraint layout:
//   multieq  bellpepper crates/bellpepper/src/gadgets/multieq.rs: batches the equalities of
//            several additions into one constraint, while the shifted terms fit in 254 bits
//   uint32   bellpepper crates/bellpepper/src/gadgets/uint32.rs (rotr, shr are free; xor is
//            32 boolean xors; addmany allocates the sum's bits and hands lhs == rhs to multieq)
//   uint64   rust-fil-proofs storage-proofs-core/src/gadgets/uint64.rs
// Bits are kept least significant first.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gadgets/boolean.hpp"
#include "gadgets/multipack.hpp"

namespace c2lab::gadgets {

// bit * 2^exp, a term of a multieq side.
struct weighted_bit {
    boolean bit;
    uint32_t exp = 0;
};

// A constraint system that forwards everything to `cs` and also collects equalities
// lhs == rhs (each a sum of weighted bits below 2^num_bits), packing them side by side,
// shifted, into one constraint "multieq <n>": (sum lhs) * 1 = (sum rhs), emitted when the
// next equality would not fit below Fr::CAPACITY bits and at finish(). The linear
// combinations are built only when the constraint system asks for them.
template <class CS>
class multieq {
public:
    using lc_type = typename CS::lc_type;
    using root_type = CS;
    // Whether the pending terms are kept: not for shape_counter or a witness-only system
    // (CS::witness_only, r1cs/witness_assignment.hpp), which never build a linear
    // combination (shape-only synthesis then only counts).
    static constexpr bool keeps_terms =
        !std::is_same_v<CS, r1cs::shape_counter> && !requires { requires CS::witness_only; };

    explicit multieq(CS& cs) : cs_(cs) {}
    multieq(const multieq&) = delete;
    multieq& operator=(const multieq&) = delete;
    // Emits the pending constraint unless finish() did (and not while unwinding).
    ~multieq() noexcept(false) {
        if (bits_used_ > 0 && std::uncaught_exceptions() == 0) accumulate();
    }

    static constexpr variable one() noexcept { return CS::one(); }
    template <class NameFn, class ValueFn>
    variable alloc(NameFn&& name_fn, ValueFn&& value_fn) {
        return cs_.alloc(std::forward<NameFn>(name_fn), std::forward<ValueFn>(value_fn));
    }
    template <class NameFn, class ValueFn>
    variable alloc_input(NameFn&& name_fn, ValueFn&& value_fn) {
        return cs_.alloc_input(std::forward<NameFn>(name_fn), std::forward<ValueFn>(value_fn));
    }
    template <class NameFn, class AFn, class BFn, class CFn>
    void enforce(NameFn&& name_fn, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
        cs_.enforce(std::forward<NameFn>(name_fn), std::forward<AFn>(a_fn), std::forward<BFn>(b_fn),
                    std::forward<CFn>(c_fn));
    }
    template <class NameFn>
    void push_namespace(NameFn&& name_fn) {
        cs_.push_namespace(std::forward<NameFn>(name_fn));
    }
    void pop_namespace() { cs_.pop_namespace(); }
    size_t num_constraints() const { return cs_.num_constraints(); }
    size_t num_inputs() const { return cs_.num_inputs(); }
    size_t num_aux() const { return cs_.num_aux(); }
    CS& root() noexcept { return cs_; }

    // Adds lhs == rhs, both sides below 2^num_bits (bellpepper MultiEq::enforce_equal).
    void enforce_equal(size_t num_bits, std::span<const weighted_bit> lhs, std::span<const weighted_bit> rhs) {
        if (fr_capacity <= bits_used_ + num_bits) accumulate();
        if (fr_capacity <= bits_used_ + num_bits)
            throw error(errc::internal, "multieq: an equality of " + std::to_string(num_bits) + " bits does not fit");
        if constexpr (keeps_terms) {
            for (const auto& t : lhs) lhs_.push_back({t.bit, t.exp + static_cast<uint32_t>(bits_used_)});
            for (const auto& t : rhs) rhs_.push_back({t.bit, t.exp + static_cast<uint32_t>(bits_used_)});
        }
        bits_used_ += num_bits;
    }

    // Reusable buffers for the caller's two sides (uint32::addmany), to spare an allocation
    // per addition.
    std::vector<weighted_bit>& scratch_lhs() noexcept { return scratch_lhs_; }
    std::vector<weighted_bit>& scratch_rhs() noexcept { return scratch_rhs_; }

    // Emits the pending constraint, if any (bellpepper does it when MultiEq is dropped).
    void finish() {
        if (bits_used_ > 0) accumulate();
    }

private:
    // lc += sum of the terms. The terms come in no particular variable order; adding them
    // sorted keeps every insertion an append (or an add to the last entry) instead of an
    // insertion into the middle. The result is the same linear combination, zero
    // coefficients included, as adding them one by one in bellpepper's order (the terms of one
    // variable are summed, and a sum does not depend on its order). The sort moves 16-byte keys
    // (the variable's order as one word, the weight's exponent and sign), not the 48-byte
    // (variable, coefficient) pairs, and std::sort allocates nothing where std::stable_sort took a
    // buffer per call.
    void add_sorted(lc_type& lc, const std::vector<weighted_bit>& terms) {
        scratch_.clear();
        auto push = [&](variable v, uint32_t exp, bool negative) {
            scratch_.push_back({(uint64_t{v.is_aux()} << 63) | v.index, exp, negative});
        };
        for (const auto& t : terms) {
            switch (t.bit.get_kind()) {
                case boolean::kind::constant:
                    if (t.bit.constant_value()) push(CS::one(), t.exp, false);
                    break;
                case boolean::kind::is: push(t.bit.bit().var, t.exp, false); break;
                case boolean::kind::negated:
                    push(CS::one(), t.exp, false);
                    push(t.bit.bit().var, t.exp, true);
                    break;
            }
        }
        std::sort(scratch_.begin(), scratch_.end(), [](const sort_term& x, const sort_term& y) { return x.key < y.key; });
        constexpr uint64_t aux_bit = uint64_t{1} << 63;
        for (const sort_term& t : scratch_) {
            const variable v = (t.key & aux_bit) ? variable::aux(t.key & ~aux_bit) : variable::input(t.key);
            if (t.negative)
                lc.add(v, -pow2(t.exp));
            else
                lc.add(v, pow2(t.exp));
        }
    }

    void accumulate() {
        const size_t ops = ops_;
        cs_.enforce([ops] { return "multieq " + std::to_string(ops); },
                    [&](lc_type lc) {
                        add_sorted(lc, lhs_);
                        return lc;
                    },
                    [](lc_type lc) { return lc + CS::one(); },
                    [&](lc_type lc) {
                        add_sorted(lc, rhs_);
                        return lc;
                    });
        lhs_.clear();
        rhs_.clear();
        bits_used_ = 0;
        ++ops_;
    }

    CS& cs_;
    size_t ops_ = 0;
    size_t bits_used_ = 0;
    std::vector<weighted_bit> lhs_, rhs_, scratch_lhs_, scratch_rhs_;
    // A term of add_sorted: inputs order before aux variables (the top bit), then by index.
    struct sort_term {
        uint64_t key;
        uint32_t exp;
        bool negative;
    };
    static_assert(sizeof(sort_term) == 16);
    std::vector<sort_term> scratch_;
};

namespace detail {

// Fills `out` (least significant bit first) from N bits given most (big_endian) or least
// significant first, and returns the word's value when every bit's value is known.
template <size_t N>
auto word_from_bits(std::span<const boolean> bits, bool big_endian, std::array<boolean, N>& out, const char* what)
    -> std::optional<std::conditional_t<N == 32, uint32_t, uint64_t>> {
    using word = std::conditional_t<N == 32, uint32_t, uint64_t>;
    if (bits.size() != N) throw error(errc::internal, std::string(what) + ": needs " + std::to_string(N) + " bits");
    std::optional<word> v = word{0};
    for (size_t i = 0; i < N; ++i) {
        out[i] = bits[big_endian ? N - 1 - i : i];
        const std::optional<bool> b = out[i].value();
        if (!b)
            v.reset();
        else if (v && *b)
            *v |= word{1} << i;
    }
    return v;
}

// out[i] = bit i of v (constants), least significant first.
template <size_t N, class Word>
void word_constant_bits(Word v, std::array<boolean, N>& out) noexcept {
    for (size_t i = 0; i < N; ++i) out[i] = boolean::constant(((v >> i) & 1) != 0);
}

// out[i] = a bit allocated in namespace "allocated bit <i>" holding bit i of v (when known).
template <size_t N, class CS, class Word>
void alloc_word_bits(CS& cs, const std::optional<Word>& v, std::array<boolean, N>& out) {
    for (size_t i = 0; i < N; ++i) {
        namespace_guard ns(cs, [i] { return "allocated bit " + std::to_string(i); });
        std::optional<bool> b;
        if (v) b = ((*v >> i) & 1) != 0;
        out[i] = boolean(allocated_bit::alloc(cs, b));
    }
}

}  // namespace detail

// A 32-bit unsigned integer as 32 booleans (bellpepper UInt32).
struct uint32 {
    std::array<boolean, 32> bits{};  // least significant first
    std::optional<uint32_t> value;

    static uint32 constant(uint32_t v) noexcept {
        uint32 r;
        detail::word_constant_bits(v, r.bits);
        r.value = v;
        return r;
    }

    // 32 allocated bits, each in namespace "allocated bit <i>".
    template <class CS>
    static uint32 alloc(CS& cs, std::optional<uint32_t> v) {
        uint32 r;
        detail::alloc_word_bits(cs, v, r.bits);
        r.value = v;
        return r;
    }

    std::array<boolean, 32> into_bits_be() const noexcept {
        std::array<boolean, 32> r;
        for (size_t i = 0; i < 32; ++i) r[i] = bits[31 - i];
        return r;
    }
    const std::array<boolean, 32>& into_bits_le() const noexcept { return bits; }

    // From 32 bits, most significant first.
    static uint32 from_bits_be(std::span<const boolean> be) {
        uint32 r;
        r.value = detail::word_from_bits(be, true, r.bits, "uint32::from_bits_be");
        return r;
    }
    // From 32 bits, least significant first.
    static uint32 from_bits_le(std::span<const boolean> le) {
        uint32 r;
        r.value = detail::word_from_bits(le, false, r.bits, "uint32::from_bits_le");
        return r;
    }

    uint32 rotr(size_t by) const noexcept {
        by %= 32;
        uint32 r;
        for (size_t i = 0; i < 32; ++i) r.bits[i] = bits[(i + by) % 32];
        if (value) r.value = std::rotr(*value, static_cast<int>(by));
        return r;
    }
    uint32 shr(size_t by) const noexcept {
        by %= 32;
        uint32 r;
        for (size_t i = 0; i < 32; ++i) r.bits[i] = i + by < 32 ? bits[i + by] : boolean::constant(false);
        if (value) r.value = *value >> by;
        return r;
    }

    // Bitwise XOR, bit i in namespace "xor of bit <i>".
    template <class CS>
    uint32 xor_with(CS& cs, const uint32& other) const {
        uint32 r;
        for (size_t i = 0; i < 32; ++i) {
            namespace_guard ns(cs, [i] { return "xor of bit " + std::to_string(i); });
            r.bits[i] = bit_xor(cs, bits[i], other.bits[i]);
        }
        if (value && other.value) r.value = *value ^ *other.value;
        return r;
    }

    // SHA-256 ch and maj bitwise, bit i in namespace "ch <i>" / "maj <i>".
    template <class CS>
    static uint32 sha256_ch(CS& cs, const uint32& a, const uint32& b, const uint32& c) {
        uint32 r;
        for (size_t i = 0; i < 32; ++i) {
            namespace_guard ns(cs, [i] { return "ch " + std::to_string(i); });
            r.bits[i] = gadgets::sha256_ch(cs, a.bits[i], b.bits[i], c.bits[i]);
        }
        if (a.value && b.value && c.value) r.value = (*a.value & *b.value) ^ (~*a.value & *c.value);
        return r;
    }
    template <class CS>
    static uint32 sha256_maj(CS& cs, const uint32& a, const uint32& b, const uint32& c) {
        uint32 r;
        for (size_t i = 0; i < 32; ++i) {
            namespace_guard ns(cs, [i] { return "maj " + std::to_string(i); });
            r.bits[i] = gadgets::sha256_maj(cs, a.bits[i], b.bits[i], c.bits[i]);
        }
        if (a.value && b.value && c.value)
            r.value = (*a.value & *b.value) ^ (*a.value & *c.value) ^ (*b.value & *c.value);
        return r;
    }

    // The sum of 2..10 operands mod 2^32 (bellpepper UInt32::addmany): all constant operands
    // fold to a constant; otherwise the full sum's bits are allocated ("result bit <i>", 33 to
    // 36 of them) and sum(operands) == sum(result bits) goes to the multieq. The carry bits
    // are dropped.
    template <class CS>
    static uint32 addmany(multieq<CS>& cs, std::span<const uint32> operands) {
        if (operands.size() < 2 || operands.size() > 10)
            throw error(errc::internal, "uint32::addmany: needs 2 to 10 operands");
        uint64_t max_value = operands.size() * uint64_t{0xffffffff};
        uint64_t sum = 0;
        bool known = true;
        bool all_constants = true;
        constexpr bool keep = multieq<CS>::keeps_terms;
        std::vector<weighted_bit>& lhs = cs.scratch_lhs();
        lhs.clear();
        for (const auto& op : operands) {
            if (op.value) sum += *op.value;
            else known = false;
            for (size_t j = 0; j < 32; ++j) {
                if constexpr (keep) lhs.push_back({op.bits[j], static_cast<uint32_t>(j)});
                all_constants &= op.bits[j].is_constant();
            }
        }
        std::optional<uint32_t> modular;
        if (known) modular = static_cast<uint32_t>(sum);
        if (all_constants && modular) return constant(*modular);

        uint32 r;
        std::vector<weighted_bit>& rhs = cs.scratch_rhs();
        rhs.clear();
        size_t i = 0;
        for (; max_value != 0; max_value >>= 1, ++i) {
            namespace_guard ns(cs, [i] { return "result bit " + std::to_string(i); });
            std::optional<bool> b;
            if (known) b = ((sum >> i) & 1) != 0;
            const boolean bit(allocated_bit::alloc(cs, b));
            if (i < 32) r.bits[i] = bit;
            if constexpr (keep) rhs.push_back({bit, static_cast<uint32_t>(i)});
        }
        cs.enforce_equal(i, lhs, rhs);
        r.value = modular;
        return r;
    }
};

// A 64-bit unsigned integer as 64 booleans (rust-fil-proofs UInt64).
struct uint64 {
    std::array<boolean, 64> bits{};  // least significant first
    std::optional<uint64_t> value;

    static uint64 constant(uint64_t v) noexcept {
        uint64 r;
        detail::word_constant_bits(v, r.bits);
        r.value = v;
        return r;
    }

    // 64 allocated bits, each in namespace "allocated bit <i>".
    template <class CS>
    static uint64 alloc(CS& cs, std::optional<uint64_t> v) {
        uint64 r;
        detail::alloc_word_bits(cs, v, r.bits);
        r.value = v;
        return r;
    }

    // Exposes the 64 bits as one public input (multipack::pack_into_inputs: "input 0" and
    // "packing constraint 0").
    template <class CS>
    void pack_into_input(CS& cs) const {
        pack_into_inputs(cs, std::span<const boolean>(bits));
    }

    std::array<boolean, 64> to_bits_be() const noexcept {
        std::array<boolean, 64> r;
        for (size_t i = 0; i < 64; ++i) r[i] = bits[63 - i];
        return r;
    }
    const std::array<boolean, 64>& to_bits_le() const noexcept { return bits; }

    static uint64 from_bits_be(std::span<const boolean> be) {
        uint64 r;
        r.value = detail::word_from_bits(be, true, r.bits, "uint64::from_bits_be");
        return r;
    }
    static uint64 from_bits_le(std::span<const boolean> le) {
        uint64 r;
        r.value = detail::word_from_bits(le, false, r.bits, "uint64::from_bits_le");
        return r;
    }
};

}  // namespace c2lab::gadgets

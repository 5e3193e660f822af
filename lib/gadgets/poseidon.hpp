// Poseidon over BLS12-381 Fr as Filecoin uses it: neptune's hasher (argumentcomputer/neptune,
// src/poseidon.rs) with HashType::MerkleTree, Strength::Standard, as rust-fil-proofs calls it
// for tree hashing, column hashing and comm_r (filecoin-hashers/src/poseidon.rs).
//
// Parameters (neptune src/round_numbers.rs, src/round_constants.rs, src/mds.rs):
//   width t = arity + 1, S-box x^5, R_F = 8 full rounds, R_P partial rounds:
//   55 (t=3), 56 (t=5), 57 (t=9, t=12), 59 (t=17, t=25), 60 (t=37);
//   round constants from the Grain LFSR (field 1, sbox 1, n = 255 bits, t, R_F, R_P);
//   MDS: the Cauchy matrix M[i][j] = 1 / (i + (t + j)) (symmetric);
//   state[0] = domain tag 2^arity - 1, state[1..] = preimage; the digest is state[1].
//
// Native hash, twice: poseidon_hash_textbook (every round adds its constants, applies the
// S-boxes and the full MDS matrix: neptune's HashMode::Correct, src/poseidon_alt.rs) and
// poseidon_hash_optimized (neptune's HashMode::OptimizedStatic: compressed round constants
// added after the S-boxes, sparse matrices in the partial rounds; src/preprocessing.rs,
// src/mds.rs). poseidon_hash is the optimised one.
//
// Gadget: neptune's circuit that rust-fil-proofs synthesizes, neptune::circuit::poseidon_hash
// (src/circuit.rs, the "legacy" circuit kept for the existing trusted setups; neptune's
// newer circuit2.rs skips the S-box input allocations and constrains the tag's S-box:
// 3 (t R_F + R_P) + 1, 238 for arity 2, a different system). Per S-box 3 constraints (x^2,
// x^4, x^5 + key), and every S-box input that is a linear combination is first allocated
// (1 constraint); the first S-box of the first round acts on the constant domain tag and is
// computed as a constant. Constraints:
//   3 (t R_F + R_P - 1) + (t R_F + R_P - arity)
// = 311 (arity 2), 505 (arity 8), 598 (arity 11), 1385 (arity 36).
//
// poseidon_hash_gadget_reference is the direct port: it tracks the state as linear
// combinations (neptune's Elt) and multiplies them through the MDS and sparse matrices.
// Since every coefficient of every constraint depends only on the constants, that port is
// run once per arity, symbolically, when the constants are built, and the result kept as a
// template (poseidon_circuit_template): poseidon_hash_gadget, the one to use, only replays
// it, copying precomputed terms into the constraint system, with the values from the
// optimised native permutation (poseidon_witness_stream). Both produce the same
// constraints, names and assignment (tested).
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
#include "gadgets/num.hpp"
#include "r1cs/constraint_system.hpp"

namespace c2lab::gadgets {

inline constexpr size_t poseidon_full_rounds = 8;
inline constexpr size_t poseidon_max_width = 37;        // arity 36
inline constexpr size_t poseidon_max_registers = 256;   // see poseidon_circuit_template

// One term of a precomputed linear combination: coeff * (register reg).
struct poseidon_term {
    uint32_t reg;  // 0: the constant one; 1..arity: the preimage; others: gadget variables
    fr coeff;
};

// The gadget's constraints with their coefficients, recorded from the reference gadget.
// Each constraint k allocates one new variable just before it, written to register
// constraints[k].reg, and has the form A * B = new + constant * one (checked when the
// template is built). Registers are reused once a variable is no longer referenced.
struct poseidon_circuit_template {
    struct constraint {
        uint32_t a_begin, b_begin, c_begin, c_end;  // A: terms[a_begin, b_begin), B, C likewise
        uint32_t reg;                               // the register of the new variable
        std::string alloc_name, name;  // relative to the caller's namespace
    };
    std::vector<poseidon_term> terms;
    std::vector<constraint> constraints;
    size_t num_registers = 0;  // registers used, the one and the preimage included
};

struct poseidon_constants {
    size_t arity = 0;
    size_t width = 0;  // arity + 1
    size_t full_rounds = poseidon_full_rounds;
    size_t half_full_rounds = poseidon_full_rounds / 2;
    size_t partial_rounds = 0;
    fr domain_tag;  // 2^arity - 1 (HashType::MerkleTree)

    // Grain LFSR output, width * (R_F + R_P); round r uses [r * width, (r + 1) * width).
    std::vector<fr> round_constants;
    // width x width, row-major: mds[i * width + j] = 1 / (i + width + j); and its inverse.
    std::vector<fr> mds;
    std::vector<fr> mds_inverse;

    // Preprocessed (neptune src/preprocessing.rs): width (added before the first S-boxes),
    // then per round the constants added after its S-boxes: width per full round but the
    // last, one per partial round; width * R_F + R_P in all.
    std::vector<fr> compressed_round_constants;
    // The matrix applied after the last initial full round (row-major; applied as
    // state <- state * P, a row vector times P, as neptune does), and per partial round
    // the sparse matrix M'' as w_hat (its first column, width) and v_rest (its first row
    // past the corner, width - 1): new[0] = sum_i w_hat[i] state[i],
    // new[j] = state[j] + v_rest[j - 1] state[0].
    std::vector<fr> pre_sparse_matrix;
    std::vector<fr> sparse_w_hat;   // partial_rounds x width
    std::vector<fr> sparse_v_rest;  // partial_rounds x (width - 1)

    poseidon_circuit_template circuit;

    const fr& mds_at(size_t i, size_t j) const noexcept { return mds[i * width + j]; }
    const fr& round_constant(size_t round, size_t i) const noexcept { return round_constants[round * width + i]; }
    // Constraints of the gadget: 3 (t R_F + R_P - 1) + (t R_F + R_P - arity).
    size_t gadget_constraints() const noexcept {
        const size_t sboxes = width * full_rounds + partial_rounds;
        return 3 * (sboxes - 1) + (sboxes - arity);
    }
};

// The constants for arity 2, 4, 8, 11, 16, 24 or 36, computed once on first use
// (thread-safe). Any other arity throws c2lab::error(errc::bad_input).
const poseidon_constants& poseidon_constants_for(size_t arity);

// The partial-round count for an arity (throws as above).
size_t poseidon_partial_rounds(size_t arity);

// The Grain LFSR round constants for (t, R_F, R_P), neptune's generate_constants(1, 1, 255,
// t, R_F, R_P); exposed for tests.
std::vector<fr> poseidon_grain_round_constants(size_t width, size_t full_rounds, size_t partial_rounds);

// Poseidon with the Merkle-tree domain tag; the arity is preimage.size(). Throws
// c2lab::error(errc::bad_input) for an unsupported arity.
fr poseidon_hash(std::span<const fr> preimage);
fr poseidon_hash_optimized(std::span<const fr> preimage);
fr poseidon_hash_textbook(std::span<const fr> preimage);

// ---- the gadget ---------------------------------------------------------------------------

// The values of the variables the gadget allocates, in allocation order, computed with the
// optimised permutation: per S-box its input (when allocated), x^2, x^4 and x^5 + key, then
// the digest. Fixed-size state; next() past the end throws c2lab::error(errc::internal).
class poseidon_witness_stream {
public:
    poseidon_witness_stream(const poseidon_constants& c, std::span<const fr> preimage);
    fr next() {
        if (pos_ == size_) fill();
        return group_[pos_++];
    }

private:
    void fill();

    const poseidon_constants* c_;
    std::array<fr, poseidon_max_width> s_{};
    std::array<fr, 4> group_{};
    size_t pos_ = 0, size_ = 0;
    size_t round_ = 0, elem_ = 1, offset_ = 0;  // next S-box: round, element; next key
    bool done_ = false;
};

// Poseidon of the preimage (arity = preimage.size()), allocated. Values are computed when
// every preimage value is known; otherwise (shape-only synthesis) no value function is
// called and the result's value is nullopt.
template <class CS>
allocated_num poseidon_hash_gadget(CS& cs, std::span<const allocated_num> preimage) {
    const poseidon_constants& k = poseidon_constants_for(preimage.size());
    const poseidon_circuit_template& tpl = k.circuit;

    bool have_values = true;
    for (const auto& p : preimage) have_values = have_values && p.value.has_value();
    std::optional<poseidon_witness_stream> values;
    if (have_values) {
        std::array<fr, poseidon_max_width> in;
        for (size_t i = 0; i < preimage.size(); ++i) in[i] = *preimage[i].value;
        values.emplace(k, std::span<const fr>(in.data(), preimage.size()));
    }

    std::array<variable, poseidon_max_registers> regs;
    regs[0] = CS::one();
    for (size_t i = 0; i < preimage.size(); ++i) regs[i + 1] = preimage[i].var;

    const poseidon_term* terms = tpl.terms.data();
    auto build = [&](auto lc, uint32_t b, uint32_t e) {
        for (uint32_t i = b; i < e; ++i) lc.add(regs[terms[i].reg], terms[i].coeff);
        return lc;
    };

    allocated_num out;
    for (const auto& c : tpl.constraints) {
        std::optional<fr> v;
        if (values) v = values->next();
        variable x = cs.alloc([&c] { return c.alloc_name; }, [&v] { return witness(v, "poseidon_hash_gadget"); });
        regs[c.reg] = x;
        cs.enforce([&c] { return c.name; }, [&](auto lc) { return build(std::move(lc), c.a_begin, c.b_begin); },
                   [&](auto lc) { return build(std::move(lc), c.b_begin, c.c_begin); },
                   [&](auto lc) { return build(std::move(lc), c.c_begin, c.c_end); });
        out = {x, v};
    }
    return out;
}

// ---- the reference gadget: a direct port of neptune's src/circuit.rs ----------------------

namespace poseidon_detail {

// neptune's Elt: an allocated number, or a linear combination with its value.
template <class CS>
struct elt {
    using lc_type = typename CS::lc_type;
    bool allocated = false;
    allocated_num num{};
    lc_type lc{};
    std::optional<fr> value;

    static elt from_allocated(const allocated_num& n) {
        elt e;
        e.allocated = true;
        e.num = n;
        return e;
    }
    // Num::zero().add_bool_with_coeff(one, Boolean::Constant(true), c)
    static elt constant(const fr& c) {
        elt e;
        e.lc.add(CS::one(), c);
        e.value = c;
        return e;
    }
    static elt zero() {
        elt e;
        e.value = fr::zero();
        return e;
    }
    std::optional<fr> val() const { return allocated ? num.value : value; }
    lc_type to_lc() const {
        if (!allocated) return lc;
        lc_type l;
        l.add(num.var, fr::one());
        return l;
    }
    // Num::scale (an allocated number becomes a Num first).
    elt scaled(const fr& s) const {
        elt e;
        e.lc = to_lc();
        e.lc *= s;
        if (auto v = val()) e.value = *v * s;
        return e;
    }
    // Num::add (both operands are Nums in this circuit).
    void add_assign(const elt& o) {
        if (allocated || o.allocated) throw error(errc::internal, "poseidon: only numbers may be added");
        lc += o.lc;
        value = (value && o.value) ? std::optional<fr>(*value + *o.value) : std::nullopt;
    }
};

template <class CS>
allocated_num ensure_allocated(CS& cs, const elt<CS>& e) {
    if (e.allocated) return e.num;
    variable v;
    {
        namespace_guard ns(cs, [] { return "allocate for Elt::Num"; });
        v = cs.alloc([] { return "num"; }, [&] { return witness(e.value, "poseidon"); });
    }
    cs.enforce([] { return "enforce num allocation preserves lc"; }, [&](auto lc) { return lc + e.lc; },
               [](auto lc) { return lc + CS::one(); }, [&](auto lc) { return lc + v; });
    return {v, e.value};
}

// (l + to_add)^2
template <class CS>
allocated_num square_sum(CS& cs, const fr& to_add, const allocated_num& l) {
    std::optional<fr> r;
    if (l.value) r = (*l.value + to_add).square();
    variable v = cs.alloc([] { return "squared sum"; }, [&] { return witness(r, "poseidon"); });
    cs.enforce([] { return "squared sum constraint"; }, [&](auto lc) { return lc + l.var + to_add * CS::one(); },
               [&](auto lc) { return lc + l.var + to_add * CS::one(); }, [&](auto lc) { return lc + v; });
    return {v, r};
}

// a * (b + pre) + post
template <class CS>
allocated_num mul_sum(CS& cs, const allocated_num& a, const allocated_num& b, const std::optional<fr>& pre,
                      const std::optional<fr>& post) {
    std::optional<fr> r;
    if (a.value && b.value) {
        fr t = *b.value;
        if (pre) t += *pre;
        t *= *a.value;
        if (post) t += *post;
        r = t;
    }
    variable v = cs.alloc([] { return "mul_sum"; }, [&] { return witness(r, "poseidon"); });
    auto a_lc = [&](auto lc) {
        lc += b.var;
        if (pre) lc += *pre * CS::one();
        return lc;
    };
    auto b_lc = [&](auto lc) { return lc + a.var; };
    auto c_lc = [&](auto lc) {
        lc += v;
        if (post) lc += (-*post) * CS::one();
        return lc;
    };
    const char* name = post ? (pre ? "mul sum constraint pre-post-add" : "mul sum constraint post-add")
                            : (pre ? "mul sum constraint pre-add" : "mul sum constraint");
    cs.enforce([name] { return name; }, a_lc, b_lc, c_lc);
    return {v, r};
}

}  // namespace poseidon_detail

template <class CS>
allocated_num poseidon_hash_gadget_reference(CS& cs, std::span<const allocated_num> preimage,
                                             const poseidon_constants& k) {
    using namespace poseidon_detail;
    using E = elt<CS>;
    if (preimage.size() != k.arity) throw error(errc::bad_input, "poseidon: preimage size is not the arity");
    const size_t t = k.width;
    std::vector<E> el;
    el.reserve(t);
    el.push_back(E::constant(k.domain_tag));
    for (const auto& p : preimage) el.push_back(E::from_allocated(p));

    size_t offset = 0;  // into compressed_round_constants
    size_t current_round = 0;

    auto scalar_product = [&](const std::vector<E>& xs, auto&& coeff) {
        E acc = E::zero();
        for (size_t i = 0; i < xs.size(); ++i) acc.add_assign(xs[i].scaled(coeff(i)));
        return acc;
    };
    auto product_mds = [&] {
        const size_t sparse_offset = k.half_full_rounds - 1;
        std::vector<E> res;
        res.reserve(t);
        if (current_round > sparse_offset && current_round < k.half_full_rounds + k.partial_rounds) {
            const size_t idx = current_round - sparse_offset - 1;
            const fr* w_hat = &k.sparse_w_hat[idx * t];
            const fr* v_rest = &k.sparse_v_rest[idx * (t - 1)];
            res.push_back(scalar_product(el, [&](size_t i) { return w_hat[i]; }));
            for (size_t j = 1; j < t; ++j) {
                E e = el[j];
                e.add_assign(el[0].scaled(v_rest[j - 1]));
                res.push_back(std::move(e));
            }
        } else {
            const std::vector<fr>& m = current_round == sparse_offset ? k.pre_sparse_matrix : k.mds;
            for (size_t j = 0; j < t; ++j) res.push_back(scalar_product(el, [&](size_t i) { return m[i * t + j]; }));
        }
        el = std::move(res);
        ++current_round;
    };

    auto quintic = [&](CS& c, const E& e, const std::optional<fr>& pre, const std::optional<fr>& post) {
        allocated_num l;
        {
            namespace_guard ns(c, [] { return "S-box input"; });
            l = ensure_allocated(c, e);
        }
        allocated_num l2, l4;
        if (pre) {
            namespace_guard ns(c, [] { return "(l+rk)^2"; });
            l2 = square_sum(c, *pre, l);
        } else {
            namespace_guard ns(c, [] { return "l^2"; });
            l2 = l.square(c);
        }
        {
            namespace_guard ns(c, [] { return "l^4"; });
            l4 = l2.square(c);
        }
        namespace_guard ns(c, [&] { return pre ? "l4 * (l + rk)" : "(l4 * l) + rk)"; });
        return E::from_allocated(mul_sum(c, l4, l, pre, post));
    };

    auto full_round = [&](bool first, bool last) {
        std::optional<size_t> pre_at, post_at;
        if (first) pre_at = offset, offset += t;
        if (first || !last) post_at = offset, offset += t;
        for (size_t i = 0; i < t; ++i) {
            std::optional<fr> pre, post;
            if (pre_at) pre = k.compressed_round_constants[*pre_at + i];
            if (post_at) post = k.compressed_round_constants[*post_at + i];
            if (first && i == 0) {
                // The S-box on the constant tag is a constant.
                fr x = *el[0].val() + *pre;
                el[0] = E::constant(x.square().square() * x + *post);
                continue;
            }
            namespace_guard ns(cs, [i] { return "quintic s-box " + std::to_string(i); });
            el[i] = quintic(cs, el[i], pre, post);
        }
        product_mds();
    };

    {
        namespace_guard ns(cs, [] { return "first round"; });
        full_round(true, false);
    }
    for (size_t i = 1; i < k.half_full_rounds; ++i) {
        namespace_guard ns(cs, [i] { return "initial full round " + std::to_string(i); });
        full_round(false, false);
    }
    for (size_t i = 0; i < k.partial_rounds; ++i) {
        namespace_guard ns(cs, [i] { return "partial round " + std::to_string(i); });
        const fr key = k.compressed_round_constants[offset++];
        {
            namespace_guard ns2(cs, [] { return "solitary quintic s-box"; });
            el[0] = quintic(cs, el[0], std::nullopt, key);
        }
        product_mds();
    }
    for (size_t i = 0; i + 1 < k.half_full_rounds; ++i) {
        namespace_guard ns(cs, [i] { return "final full round " + std::to_string(i); });
        full_round(false, false);
    }
    {
        namespace_guard ns(cs, [] { return "terminal full round"; });
        full_round(false, true);
    }
    if (offset != k.compressed_round_constants.size())
        throw error(errc::internal, "poseidon: round constants not all consumed");
    namespace_guard ns(cs, [] { return "hash result"; });
    return ensure_allocated(cs, el[1]);
}

}  // namespace c2lab::gadgets

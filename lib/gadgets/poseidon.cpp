// Poseidon constants (Grain LFSR round constants, Cauchy MDS, neptune's preprocessing), the
// native hash (textbook and optimised) and the gadget template. See poseidon.hpp.
#include "gadgets/poseidon.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "r1cs/linear_combination.hpp"

namespace c2lab::gadgets {

namespace {

using repr = fr::repr;

[[noreturn]] void bad_arity(size_t arity) {
    throw error(errc::bad_input, "poseidon: unsupported arity " + std::to_string(arity) +
                                     " (expected 2, 4, 8, 11, 16, 24 or 36)");
}

// ---- small dense matrices over Fr (neptune src/matrix.rs: rows of columns) -----------------

struct matrix {
    size_t n = 0;
    std::vector<fr> a;  // row-major

    explicit matrix(size_t size) : n(size), a(size * size) {}
    fr& operator()(size_t i, size_t j) { return a[i * n + j]; }
    const fr& operator()(size_t i, size_t j) const { return a[i * n + j]; }

    static matrix identity(size_t size) {
        matrix m(size);
        for (size_t i = 0; i < size; ++i) m(i, i) = fr::one();
        return m;
    }
};

matrix mat_mul(const matrix& x, const matrix& y) {
    matrix r(x.n);
    for (size_t i = 0; i < x.n; ++i)
        for (size_t k = 0; k < x.n; ++k) {
            const fr& xik = x(i, k);
            if (xik.is_zero()) continue;
            for (size_t j = 0; j < x.n; ++j) r(i, j) += xik * y(k, j);
        }
    return r;
}

matrix transpose(const matrix& m) {
    matrix r(m.n);
    for (size_t i = 0; i < m.n; ++i)
        for (size_t j = 0; j < m.n; ++j) r(j, i) = m(i, j);
    return r;
}

// m without row 0 and column 0.
matrix minor00(const matrix& m) {
    matrix r(m.n - 1);
    for (size_t i = 1; i < m.n; ++i)
        for (size_t j = 1; j < m.n; ++j) r(i - 1, j - 1) = m(i, j);
    return r;
}

// Gauss-Jordan elimination; nullopt when m is singular. (The inverse is unique, so any
// elimination order gives neptune's result.)
std::optional<matrix> invert(matrix m) {
    const size_t n = m.n;
    matrix inv = matrix::identity(n);
    for (size_t col = 0; col < n; ++col) {
        size_t p = col;
        while (p < n && m(p, col).is_zero()) ++p;
        if (p == n) return std::nullopt;
        if (p != col)
            for (size_t j = 0; j < n; ++j) std::swap(m(p, j), m(col, j)), std::swap(inv(p, j), inv(col, j));
        const fr s = m(col, col).inverse();
        for (size_t j = 0; j < n; ++j) m(col, j) *= s, inv(col, j) *= s;
        for (size_t i = 0; i < n; ++i) {
            if (i == col || m(i, col).is_zero()) continue;
            const fr f = m(i, col);
            for (size_t j = 0; j < n; ++j) m(i, j) -= f * m(col, j), inv(i, j) -= f * inv(col, j);
        }
    }
    return inv;
}

// m v, v a column vector (neptune's left_apply_matrix).
std::vector<fr> left_apply(const matrix& m, std::span<const fr> v) {
    std::vector<fr> r(m.n);
    for (size_t i = 0; i < m.n; ++i)
        for (size_t j = 0; j < m.n; ++j) r[i] += m(i, j) * v[j];
    return r;
}

// ---- round numbers and constants -----------------------------------------------------------

// neptune src/round_numbers.rs (test_round_numbers_against_known_values), R_F = 8.
size_t partial_rounds_for(size_t arity) {
    switch (arity) {
        case 2: return 55;
        case 4: return 56;
        case 8: return 57;
        case 11: return 57;
        case 16: return 59;
        case 24: return 59;
        case 36: return 60;
        default: bad_arity(arity);
    }
}

// The Grain LFSR in self-shrinking mode (neptune src/round_constants.rs, after the Poseidon
// reference script generate_parameters_grain.sage).
class grain {
public:
    grain(size_t width, size_t full_rounds, size_t partial_rounds) {
        size_t pos = 0;
        auto put = [&](uint64_t v, size_t bits) {
            for (size_t i = bits; i-- > 0;) state_[pos++] = static_cast<uint8_t>((v >> i) & 1);
        };
        put(1, 2);                     // field: GF(p)
        put(1, 4);                     // S-box, as neptune passes it
        put(255, 12);                  // field size in bits
        put(width, 12);                // t
        put(full_rounds, 10);          // R_F
        put(partial_rounds, 10);       // R_P
        put((uint64_t{1} << 30) - 1, 30);
        for (int i = 0; i < 160; ++i) step();
    }

    // A 255-bit big-endian integer from the output bits, retried while >= p.
    fr next_field_element() {
        for (;;) {
            repr x{};
            for (size_t i = 0; i < 255; ++i) {
                for (size_t l = x.size(); l-- > 1;) x[l] = (x[l] << 1) | (x[l - 1] >> 63);
                x[0] = (x[0] << 1) | static_cast<uint64_t>(next_bit());
            }
            if (fr::is_canonical(x)) return fr::from_canonical(x);
        }
    }

private:
    // b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i
    uint8_t step() {
        auto b = [&](size_t i) { return state_[(head_ + i) % 80]; };
        const uint8_t nb = b(62) ^ b(51) ^ b(38) ^ b(23) ^ b(13) ^ b(0);
        state_[head_] = nb;  // b_i leaves, the new bit becomes the last
        head_ = (head_ + 1) % 80;
        return nb;
    }
    // Pairs of bits: a first bit 1 outputs the second, a first bit 0 discards it.
    uint8_t next_bit() {
        for (;;) {
            const uint8_t first = step();
            const uint8_t second = step();
            if (first) return second;
        }
    }

    std::array<uint8_t, 80> state_{};
    size_t head_ = 0;
};

// neptune src/preprocessing.rs compress_round_constants, all partial rounds preprocessed.
std::vector<fr> compress_round_constants(const poseidon_constants& c, const matrix& m_inv) {
    const size_t t = c.width, half = c.half_full_rounds, rp = c.partial_rounds;
    auto keys = [&](size_t r) { return std::span<const fr>(c.round_constants).subspan(r * t, t); };
    std::vector<fr> res;
    res.reserve(t * c.full_rounds + rp);

    auto first = keys(0);
    res.insert(res.end(), first.begin(), first.end());
    // Post-S-box constants of the initial full rounds but the last: the next round's, pulled
    // back through the MDS matrix.
    for (size_t i = 0; i + 1 < half; ++i) {
        auto inv = left_apply(m_inv, keys(i + 1));
        res.insert(res.end(), inv.begin(), inv.end());
    }
    // The partial rounds' constants, pushed back from the last one: each round keeps only
    // the constant of its S-box; the rest accumulates into the last initial full round's.
    const size_t final_round = half + rp;
    auto k0 = keys(final_round);
    std::vector<fr> acc(k0.begin(), k0.end());
    std::vector<fr> partial_keys;
    for (size_t i = 0; i < rp; ++i) {
        auto prev = keys(final_round - i - 1);
        auto inv = left_apply(m_inv, acc);
        partial_keys.push_back(inv[0]);
        inv[0] = fr::zero();
        for (size_t j = 0; j < t; ++j) acc[j] = prev[j] + inv[j];
    }
    auto last_initial = left_apply(m_inv, acc);
    res.insert(res.end(), last_initial.begin(), last_initial.end());
    res.insert(res.end(), partial_keys.rbegin(), partial_keys.rend());
    // Post-S-box constants of the final full rounds but the last.
    for (size_t i = 1; i < half; ++i) {
        auto inv = left_apply(m_inv, keys(i + final_round));
        res.insert(res.end(), inv.begin(), inv.end());
    }
    if (res.size() != t * c.full_rounds + rp) throw error(errc::internal, "poseidon: compressed constants count");
    return res;
}

// neptune src/mds.rs factor_to_sparse_matrices: M = M' M'' repeatedly, from the last partial
// round back; the product left over is the pre-sparse matrix.
void factor_sparse(poseidon_constants& c, const matrix& base) {
    const size_t t = c.width, rp = c.partial_rounds;
    std::vector<std::vector<fr>> w_hats, v_rests;
    matrix curr = base;
    for (size_t r = 0; r < rp; ++r) {
        auto m_hat_inv = invert(minor00(curr));
        if (!m_hat_inv) throw error(errc::internal, "poseidon: singular MDS minor");
        std::vector<fr> w(t - 1), v(t - 1);
        for (size_t i = 1; i < t; ++i) w[i - 1] = curr(i, 0), v[i - 1] = curr(0, i);
        auto w_tail = left_apply(*m_hat_inv, w);
        std::vector<fr> w_hat;
        w_hat.reserve(t);
        w_hat.push_back(curr(0, 0));
        w_hat.insert(w_hat.end(), w_tail.begin(), w_tail.end());
        w_hats.push_back(std::move(w_hat));
        v_rests.push_back(std::move(v));
        // M': 1 in the corner, the minor of curr below and right of it.
        matrix m_prime(t);
        m_prime(0, 0) = fr::one();
        for (size_t i = 1; i < t; ++i)
            for (size_t j = 1; j < t; ++j) m_prime(i, j) = curr(i, j);
        curr = mat_mul(base, m_prime);
    }
    c.pre_sparse_matrix = curr.a;
    c.sparse_w_hat.clear();
    c.sparse_v_rest.clear();
    for (size_t r = rp; r-- > 0;) {
        c.sparse_w_hat.insert(c.sparse_w_hat.end(), w_hats[r].begin(), w_hats[r].end());
        c.sparse_v_rest.insert(c.sparse_v_rest.end(), v_rests[r].begin(), v_rests[r].end());
    }
}

// ---- the gadget template -------------------------------------------------------------------

// Records allocations and constraints, with full names; variables are slots: aux(i) for
// the preimage (i < arity), aux(arity + k) for the k-th allocation. Calls no value function.
class recording_cs {
public:
    using lc_type = r1cs::linear_combination<r1cs::vec_indexer>;
    struct record {
        std::string alloc_name, name;
        size_t slot;
        lc_type a, b, c;
    };

    explicit recording_cs(size_t first_slot) : next_(first_slot) {}

    static constexpr variable one() noexcept { return variable::one(); }

    template <class NameFn, class ValueFn>
    variable alloc(NameFn&& name_fn, ValueFn&&) {
        if (pending_) throw error(errc::internal, "poseidon template: two allocations in a row");
        pending_ = true;
        pending_name_ = path(std::string(name_fn()));
        return variable::aux(next_++);
    }
    template <class NameFn, class ValueFn>
    variable alloc_input(NameFn&&, ValueFn&&) {
        throw error(errc::internal, "poseidon template: the gadget allocates no input");
    }
    template <class NameFn, class AFn, class BFn, class CFn>
    void enforce(NameFn&& name_fn, AFn&& a_fn, BFn&& b_fn, CFn&& c_fn) {
        if (!pending_) throw error(errc::internal, "poseidon template: a constraint without its allocation");
        pending_ = false;
        records_.push_back({std::move(pending_name_), path(std::string(name_fn())), next_ - 1, a_fn(lc_type{}),
                            b_fn(lc_type{}), c_fn(lc_type{})});
    }
    template <class NameFn>
    void push_namespace(NameFn&& name_fn) {
        stack_.push_back(path(std::string(name_fn())));
    }
    void pop_namespace() { stack_.pop_back(); }

    size_t num_constraints() const noexcept { return records_.size(); }
    size_t num_inputs() const noexcept { return 1; }
    size_t num_aux() const noexcept { return next_; }
    std::vector<record>& records() noexcept { return records_; }

private:
    std::string path(std::string name) const { return stack_.empty() ? name : stack_.back() + "/" + name; }

    size_t next_;
    bool pending_ = false;
    std::string pending_name_;
    std::vector<record> records_;
    std::vector<std::string> stack_;
};

static_assert(r1cs::constraint_system<recording_cs>);

poseidon_circuit_template build_template(const poseidon_constants& c) {
    const size_t arity = c.arity;
    recording_cs cs(arity);
    std::vector<allocated_num> preimage;
    for (size_t i = 0; i < arity; ++i) preimage.push_back({variable::aux(i), std::nullopt});
    const allocated_num out = poseidon_hash_gadget_reference(cs, std::span<const allocated_num>(preimage), c);
    auto& recs = cs.records();
    const size_t n = recs.size();
    if (n != c.gadget_constraints() || out.var != variable::aux(arity + n - 1))
        throw error(errc::internal, "poseidon template: unexpected gadget shape");

    // Last constraint referencing each slot.
    const size_t slots = arity + n;
    std::vector<size_t> last_use(slots, 0);
    auto note = [&](const recording_cs::lc_type& lc, size_t k) {
        for (const auto& [i, coeff] : lc.inputs())
            if (i != 0) throw error(errc::internal, "poseidon template: an input other than the one");
        for (const auto& [i, coeff] : lc.aux()) last_use[i] = std::max(last_use[i], k);
    };
    for (size_t k = 0; k < n; ++k) note(recs[k].a, k), note(recs[k].b, k), note(recs[k].c, k);

    poseidon_circuit_template tpl;
    std::vector<uint32_t> reg_of(slots, 0);
    std::vector<std::vector<size_t>> dies_after(n);
    std::array<bool, poseidon_max_registers> used{};
    used[0] = true;
    for (size_t i = 0; i < arity; ++i) {
        reg_of[i] = static_cast<uint32_t>(i + 1);
        used[i + 1] = true;
    }
    tpl.num_registers = arity + 1;
    for (size_t s = 0; s < slots; ++s) dies_after[last_use[s]].push_back(s);

    auto push_lc = [&](const recording_cs::lc_type& lc) {
        for (const auto& [i, coeff] : lc.inputs()) tpl.terms.push_back({0, coeff});
        for (const auto& [i, coeff] : lc.aux()) tpl.terms.push_back({reg_of[i], coeff});
        return static_cast<uint32_t>(tpl.terms.size());
    };
    for (size_t k = 0; k < n; ++k) {
        auto& r = recs[k];
        const size_t slot = arity + k;
        if (r.slot != slot) throw error(errc::internal, "poseidon template: allocation order");
        size_t reg = 1;
        while (reg < poseidon_max_registers && used[reg]) ++reg;
        if (reg == poseidon_max_registers) throw error(errc::internal, "poseidon template: out of registers");
        used[reg] = true;
        reg_of[slot] = static_cast<uint32_t>(reg);
        tpl.num_registers = std::max(tpl.num_registers, reg + 1);

        // C must be the new variable plus a constant.
        if (r.c.aux().size() != 1 || r.c.aux()[0].first != slot || !r.c.aux()[0].second.is_one() ||
            r.c.inputs().size() > 1)
            throw error(errc::internal, "poseidon template: C is not new variable + constant");

        poseidon_circuit_template::constraint con;
        con.a_begin = static_cast<uint32_t>(tpl.terms.size());
        con.b_begin = push_lc(r.a);
        con.c_begin = push_lc(r.b);
        con.c_end = push_lc(r.c);
        con.reg = static_cast<uint32_t>(reg);
        con.alloc_name = std::move(r.alloc_name);
        con.name = std::move(r.name);
        tpl.constraints.push_back(std::move(con));

        for (size_t s : dies_after[k]) used[reg_of[s]] = false;
    }
    return tpl;
}

poseidon_constants make_constants(size_t arity) {
    poseidon_constants c;
    c.arity = arity;
    c.width = arity + 1;
    c.partial_rounds = partial_rounds_for(arity);
    c.domain_tag = fr::from_u64((uint64_t{1} << arity) - 1);
    const size_t t = c.width;

    c.round_constants = poseidon_grain_round_constants(t, c.full_rounds, c.partial_rounds);

    // neptune src/mds.rs generate_mds: x_i = i, y_j = t + j, M[i][j] = 1 / (x_i + y_j).
    matrix m(t);
    for (size_t i = 0; i < t; ++i)
        for (size_t j = 0; j < t; ++j) m(i, j) = (fr::from_u64(i) + fr::from_u64(t + j)).inverse();
    auto m_inv = invert(m);
    if (!m_inv) throw error(errc::internal, "poseidon: singular MDS matrix");
    c.mds = m.a;
    c.mds_inverse = m_inv->a;

    c.compressed_round_constants = compress_round_constants(c, *m_inv);
    factor_sparse(c, transpose(m));
    c.circuit = build_template(c);
    return c;
}

// x^5
inline fr quintic(const fr& x) noexcept { return x.square().square() * x; }

// The linear layer after round `round` of the optimised permutation (neptune src/poseidon.rs
// round_product_mds): the pre-sparse matrix after the last initial full round (as a row
// vector times it), a sparse matrix after each partial round, M otherwise.
void mix_optimized(const poseidon_constants& c, fr* s, size_t round) noexcept {
    const size_t t = c.width, half = c.half_full_rounds;
    std::array<fr, poseidon_max_width> tmp;
    if (round == half - 1) {
        const fr* p = c.pre_sparse_matrix.data();
        for (size_t j = 0; j < t; ++j) {
            fr acc = fr::zero();
            for (size_t i = 0; i < t; ++i) acc += p[i * t + j] * s[i];
            tmp[j] = acc;
        }
    } else if (round >= half && round < half + c.partial_rounds) {
        const size_t idx = round - half;
        const fr* w_hat = &c.sparse_w_hat[idx * t];
        const fr* v_rest = &c.sparse_v_rest[idx * (t - 1)];
        fr first = fr::zero();
        for (size_t i = 0; i < t; ++i) first += w_hat[i] * s[i];
        for (size_t j = 1; j < t; ++j) s[j] += v_rest[j - 1] * s[0];
        s[0] = first;
        return;
    } else {
        for (size_t i = 0; i < t; ++i) {
            fr acc = fr::zero();
            for (size_t j = 0; j < t; ++j) acc += c.mds_at(i, j) * s[j];
            tmp[i] = acc;
        }
    }
    std::copy(tmp.begin(), tmp.begin() + t, s);
}

}  // namespace

size_t poseidon_partial_rounds(size_t arity) { return partial_rounds_for(arity); }

std::vector<fr> poseidon_grain_round_constants(size_t width, size_t full_rounds, size_t partial_rounds) {
    grain g(width, full_rounds, partial_rounds);
    std::vector<fr> out(width * (full_rounds + partial_rounds));
    for (auto& x : out) x = g.next_field_element();
    return out;
}

const poseidon_constants& poseidon_constants_for(size_t arity) {
    switch (arity) {
        case 2: {
            static const poseidon_constants c = make_constants(2);
            return c;
        }
        case 4: {
            static const poseidon_constants c = make_constants(4);
            return c;
        }
        case 8: {
            static const poseidon_constants c = make_constants(8);
            return c;
        }
        case 11: {
            static const poseidon_constants c = make_constants(11);
            return c;
        }
        case 16: {
            static const poseidon_constants c = make_constants(16);
            return c;
        }
        case 24: {
            static const poseidon_constants c = make_constants(24);
            return c;
        }
        case 36: {
            static const poseidon_constants c = make_constants(36);
            return c;
        }
        default: bad_arity(arity);
    }
}

// neptune src/poseidon_alt.rs hash_correct: constants, S-boxes, full MDS in every round.
fr poseidon_hash_textbook(std::span<const fr> preimage) {
    const poseidon_constants& c = poseidon_constants_for(preimage.size());
    const size_t t = c.width;
    std::array<fr, poseidon_max_width> s{}, tmp{};
    s[0] = c.domain_tag;
    std::copy(preimage.begin(), preimage.end(), s.begin() + 1);
    size_t round = 0;
    auto mix = [&] {
        for (size_t i = 0; i < t; ++i) {
            fr acc = fr::zero();
            for (size_t j = 0; j < t; ++j) acc += c.mds_at(i, j) * s[j];
            tmp[i] = acc;
        }
        std::copy(tmp.begin(), tmp.begin() + t, s.begin());
    };
    auto full = [&] {
        for (size_t i = 0; i < t; ++i) s[i] = quintic(s[i] + c.round_constant(round, i));
        ++round;
        mix();
    };
    auto partial = [&] {
        for (size_t i = 0; i < t; ++i) s[i] += c.round_constant(round, i);
        s[0] = quintic(s[0]);
        ++round;
        mix();
    };
    for (size_t r = 0; r < c.half_full_rounds; ++r) full();
    for (size_t r = 0; r < c.partial_rounds; ++r) partial();
    for (size_t r = 0; r < c.half_full_rounds; ++r) full();
    return s[1];
}

// neptune src/poseidon.rs hash_optimized_static.
fr poseidon_hash_optimized(std::span<const fr> preimage) {
    const poseidon_constants& c = poseidon_constants_for(preimage.size());
    const size_t t = c.width, half = c.half_full_rounds;
    const fr* keys = c.compressed_round_constants.data();
    std::array<fr, poseidon_max_width> s{};
    s[0] = c.domain_tag;
    std::copy(preimage.begin(), preimage.end(), s.begin() + 1);
    for (size_t i = 0; i < t; ++i) s[i] += keys[i];
    size_t offset = t, round = 0;

    auto mix = [&] { mix_optimized(c, s.data(), round++); };
    auto full = [&](bool last) {
        for (size_t i = 0; i < t; ++i) {
            s[i] = quintic(s[i]);
            if (!last) s[i] += keys[offset + i];
        }
        if (!last) offset += t;
        mix();
    };
    auto partial = [&] {
        s[0] = quintic(s[0]) + keys[offset++];
        mix();
    };
    for (size_t r = 0; r < half; ++r) full(false);
    for (size_t r = 0; r < c.partial_rounds; ++r) partial();
    for (size_t r = 1; r < half; ++r) full(false);
    full(true);
    return s[1];
}

fr poseidon_hash(std::span<const fr> preimage) { return poseidon_hash_optimized(preimage); }

poseidon_witness_stream::poseidon_witness_stream(const poseidon_constants& c, std::span<const fr> preimage) : c_(&c) {
    if (preimage.size() != c.arity) throw error(errc::bad_input, "poseidon: preimage size is not the arity");
    s_[0] = c.domain_tag;
    std::copy(preimage.begin(), preimage.end(), s_.begin() + 1);
    for (size_t i = 0; i < c.width; ++i) s_[i] += c.compressed_round_constants[i];
    offset_ = c.width;
}

// The next S-box's values (the circuit's order: round by round, element by element; the
// first round's element 0 is the constant tag and allocates nothing), or the digest.
void poseidon_witness_stream::fill() {
    const poseidon_constants& c = *c_;
    const size_t t = c.width, half = c.half_full_rounds, rounds = c.full_rounds + c.partial_rounds;
    if (done_) throw error(errc::internal, "poseidon_witness_stream: read past the end");
    pos_ = 0;
    if (round_ == rounds) {
        group_[0] = s_[1];
        size_ = 1;
        done_ = true;
        return;
    }
    const bool partial = round_ >= half && round_ < half + c.partial_rounds;
    const bool terminal = round_ + 1 == rounds;
    const fr& x = s_[elem_];
    const fr x2 = x.square(), x4 = x2.square();
    fr x5 = x4 * x;
    if (!terminal) x5 += c.compressed_round_constants[offset_ + (partial ? 0 : elem_)];
    if (round_ == 0) {
        group_ = {x2, x4, x5, fr::zero()};
        size_ = 3;
    } else {
        group_ = {x, x2, x4, x5};
        size_ = 4;
    }
    s_[elem_] = x5;
    if (!partial && elem_ + 1 < t) {
        ++elem_;
        return;
    }
    // The round is complete.
    if (round_ == 0) s_[0] = quintic(s_[0]) + c.compressed_round_constants[offset_];
    if (!terminal) offset_ += partial ? 1 : t;
    mix_optimized(c, s_.data(), round_);
    ++round_;
    elem_ = 0;
}

}  // namespace c2lab::gadgets

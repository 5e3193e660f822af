// mont_field<P>: a prime field in Montgomery form, one template for every modulus.
//
// P supplies only the modulus (little-endian limbs) and a small quadratic
// non-residue that generates the 2-Sylow subgroup (for sqrt and roots of unity);
// R = 2^(64N) mod p, R^2, -p^-1 mod 2^64, the 2-adicity and the primitive 2^s-th
// root of unity are derived from them at compile time.
//
// Representation: `mont` holds a * R mod p, always fully reduced (< p). Inputs from
// outside go through the canonical (de)serializers, which refuse values >= p.
#pragma once

#include <algorithm>
#include <bit>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "ff/mont_mul.hpp"
#include "ff/pow.hpp"

namespace c2lab::ff {

template <class P>
class mont_field {
public:
    static constexpr size_t n_limbs = P::modulus.size();
    using repr = limbs<n_limbs>;

    static constexpr repr modulus = P::modulus;
    static constexpr uint64_t nonresidue = P::nonresidue;  // generates the 2-Sylow subgroup
    static constexpr uint64_t n0 = neg_inv64(modulus[0]);
    static constexpr size_t bits = bit_length(modulus);
    static constexpr size_t bytes = (bits + 7) / 8;
    static_assert(modulus[n_limbs - 1] < (uint64_t{1} << 63), "mont_field needs a spare top bit");

    repr mont;  // a * R mod p

    constexpr mont_field() noexcept : mont{} {}
    // Storage that the caller overwrites before reading (an assembly routine's output):
    // no zeroing, so the result can be written straight into its destination.
    explicit constexpr mont_field(uninit_t) noexcept {}

    // ---- constants ------------------------------------------------------------
    static constexpr repr r_mod_p() noexcept {  // 2^(64N) mod p by doubling 1
        repr r{};
        r[0] = 1;
        for (size_t i = 0; i < 64 * n_limbs; ++i) r = add_mod(r, r, modulus);
        return r;
    }
    static constexpr repr r1 = r_mod_p();
    static constexpr repr r2 = [] {
        repr r = r1;
        for (size_t i = 0; i < 64 * n_limbs; ++i) r = add_mod(r, r, modulus);
        return r;
    }();

    static constexpr repr r3 = mont_mul_portable(r2, r2, modulus, n0);  // R^3 mod p

    static constexpr mont_field zero() noexcept { return {}; }
    static constexpr mont_field one() noexcept { return from_mont(r1); }

    // ---- conversions ----------------------------------------------------------
    static constexpr mont_field from_mont(const repr& m) noexcept {
        mont_field f(uninit);
        f.mont = m;
        return f;
    }
    // From a canonical integer; the caller guarantees x < p (see from_canonical_checked).
    static constexpr mont_field from_canonical(const repr& x) noexcept {
        return from_mont(mont_mul(x, r2, modulus, n0));
    }
    static constexpr bool is_canonical(const repr& x) noexcept { return less_than(x, modulus); }
    static mont_field from_canonical_checked(const repr& x, std::string_view what = "field element") {
        if (!is_canonical(x))
            throw error(errc::non_canonical, std::string(what) + ": value is not below the " +
                                                 std::string(P::name) + " modulus");
        return from_canonical(x);
    }
    static constexpr mont_field from_u64(uint64_t x) noexcept {
        repr r{};
        r[0] = x;
        if (!is_canonical(r)) sub_from(r, modulus);  // only for tiny moduli; never for BLS12-381
        return from_canonical(r);
    }
    constexpr repr to_canonical() const noexcept {
        repr one_raw{};
        one_raw[0] = 1;
        return mont_mul(mont, one_raw, modulus, n0);
    }

    // Big-endian hex of a canonical value (at most 2*bytes digits, optional 0x).
    // Used for constants: a bad constant is a compile-time error.
    static constexpr mont_field from_hex(std::string_view hex) {
        if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
        if (hex.size() > 16 * n_limbs) throw error(errc::bad_input, "field hex: too many digits");
        repr x{};
        size_t nibble = 0;
        for (size_t i = hex.size(); i-- > 0; ++nibble) {
            char c = hex[i];
            uint64_t v = (c >= '0' && c <= '9')   ? uint64_t(c - '0')
                         : (c >= 'a' && c <= 'f') ? uint64_t(c - 'a' + 10)
                         : (c >= 'A' && c <= 'F') ? uint64_t(c - 'A' + 10)
                                                  : throw error(errc::bad_input, "field hex: bad digit");
            x[nibble / 16] |= v << (4 * (nibble % 16));
        }
        if (!is_canonical(x)) throw error(errc::non_canonical, "field hex: value >= modulus");
        return from_canonical(x);
    }

    // Canonical byte encodings of exactly `bytes` bytes. Decoding refuses values >= p.
    void to_bytes_le(std::span<uint8_t, bytes> out) const noexcept {
        repr x = to_canonical();
        for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<uint8_t>(x[i / 8] >> (8 * (i % 8)));
    }
    void to_bytes_be(std::span<uint8_t, bytes> out) const noexcept {
        repr x = to_canonical();
        for (size_t i = 0; i < bytes; ++i) out[bytes - 1 - i] = static_cast<uint8_t>(x[i / 8] >> (8 * (i % 8)));
    }
    static mont_field from_bytes_le(std::span<const uint8_t, bytes> in, std::string_view what = "field element") {
        repr x{};
        for (size_t i = 0; i < bytes; ++i) x[i / 8] |= uint64_t{in[i]} << (8 * (i % 8));
        return from_canonical_checked(x, what);
    }
    static mont_field from_bytes_be(std::span<const uint8_t, bytes> in, std::string_view what = "field element") {
        repr x{};
        for (size_t i = 0; i < bytes; ++i) x[i / 8] |= uint64_t{in[bytes - 1 - i]} << (8 * (i % 8));
        return from_canonical_checked(x, what);
    }

    // Uniform in [0, p) by rejection sampling.
    static mont_field random(rng& g) noexcept {
        constexpr uint64_t top_mask = (bits % 64 == 0) ? ~uint64_t{0} : ((uint64_t{1} << (bits % 64)) - 1);
        for (;;) {
            repr x;
            for (auto& w : x) w = g();
            x[n_limbs - 1] &= top_mask;
            if (is_canonical(x)) return from_mont(x);  // a uniform Montgomery form is a uniform value
        }
    }

    // ---- arithmetic -------------------------------------------------------------
    constexpr bool is_zero() const noexcept { return ff::is_zero(mont); }
    constexpr bool is_one() const noexcept { return ff::equal(mont, r1); }
    friend constexpr bool operator==(const mont_field& a, const mont_field& b) noexcept { return ff::equal(a.mont, b.mont); }

    // Binary operators and negation hand back values (a = a + b chains measured fastest that
    // way in bench_ff); the compound forms write in place (see mod_add_into in mont_mul.hpp for
    // why the 6-limb paths store from the asm).
    friend constexpr mont_field operator+(const mont_field& a, const mont_field& b) noexcept {
        return from_mont(mod_add(a.mont, b.mont, modulus));
    }
    friend constexpr mont_field operator-(const mont_field& a, const mont_field& b) noexcept {
        return from_mont(mod_sub(a.mont, b.mont, modulus));
    }
    constexpr mont_field operator-() const noexcept {
        if (is_zero()) return *this;
        repr r = modulus;
        sub_from(r, mont);
        return from_mont(r);
    }
    // With the 6-limb assembly the product is written in place, in the caller's object: both
    // returns are prvalues (guaranteed elision) and product_asm returns one named result (NRVO).
    // Returning mont_mul's limbs through from_mont copied the product out of a temporary with
    // 16-byte loads of the assembly's 8-byte stores, which stall store-to-load forwarding (a G1
    // doubling 1.07-1.10x blst's time on the 2-core AMD EPYC, each of its Fp products followed by
    // such a copy). The portable path keeps its by-value form (written through a named result,
    // GCC's code for it counted 8% more instructions in scripts/icount.sh).
    friend constexpr mont_field operator*(const mont_field& a, const mont_field& b) noexcept {
        if constexpr (has_asm_mul<n_limbs> && n_limbs == 6) {
            if (!std::is_constant_evaluated() && cpu::use_adx_asm) [[likely]]
                return product_asm(a, b);
        }
        return from_mont(mont_mul(a.mont, b.mont, modulus, n0));
    }
    constexpr mont_field& operator+=(const mont_field& b) noexcept {
        mod_add_into(mont, mont, b.mont, modulus);
        return *this;
    }
    constexpr mont_field& operator-=(const mont_field& b) noexcept {
        mod_sub_into(mont, mont, b.mont, modulus);
        return *this;
    }
    constexpr mont_field& operator*=(const mont_field& b) noexcept {
        mont_mul_into(mont, mont, b.mont, modulus, n0);
        return *this;
    }

    // *this += a * b, in one step (mont_mul_add_into: one asm block for 4 limbs).
    constexpr mont_field& add_product(const mont_field& a, const mont_field& b) noexcept {
        mont_mul_add_into(mont, a.mont, b.mont, modulus, n0);
        return *this;
    }

    constexpr mont_field dbl() const noexcept { return *this + *this; }
    // 6 limbs with the assembly: a dedicated square (c2lab_mont_sqr_6, 57 mulx against 72).
    // Machine-dependent: it took a G1 doubling from 1.01 to 0.95x blst where it was written,
    // but on the Intel Xeon of family 6 model 167 it is no faster than the product a * a
    // (1024 independent calls, pinned: 26.3 against 25.3 ns; a chain of dependent ones, bench_ff
    // ff/fp_square against ff/fp_mul: 32.4 against 32.0 ns). Its square and reduction pass
    // through a stack frame, where the product keeps its limbs in registers.
    constexpr mont_field square() const noexcept {
        if constexpr (has_asm_mul<n_limbs> && n_limbs == 6) {
            if (!std::is_constant_evaluated() && cpu::use_adx_asm) [[likely]]
                return square_asm(*this);
        }
        return *this * *this;
    }
    // a / 2
    constexpr mont_field halve() const noexcept {
        repr r = mont;
        uint64_t carry = 0;
        if (r[0] & 1) carry = add_to(r, modulus);
        shr1(r);
        r[n_limbs - 1] |= carry << 63;
        return from_mont(r);
    }

    // Left-to-right square-and-multiply; the exponent is a plain integer (any width).
    template <size_t M>
    constexpr mont_field pow(const limbs<M>& e) const noexcept {
        return pow_vartime(*this, e);
    }
    constexpr mont_field pow(uint64_t e) const noexcept { return pow(limbs<1>{e}); }

    // a^(p-2) (Fermat): the reference, and the path at compile time. Zero maps to zero.
    constexpr mont_field inverse_fermat() const noexcept { return pow(p_minus_2); }

    // Pornin's optimised binary GCD ("Optimized Binary GCD for Modular Inversion", IACR ePrint
    // 2020/972, algorithm 2) on the Montgomery representation: (aR)^-1 mod p, then one Montgomery
    // product with R^3 gives a^-1 R. Each outer step runs 31 binary-GCD steps on 64-bit
    // approximations of a and b (their low 31 and top 33 bits), collecting them in a matrix
    // (f0 g0; f1 g1) of entries at most 2^31, then applies it to the full a, b (divided by
    // 2^31, exactly) and to u, v (divided by 2^31 mod p, Montgomery style), keeping
    // a = u x, b = v x (mod p). At most ceil((2 bits(p) - 1) / 31) outer steps (Fp 25, Fr 17)
    // reach a = 0 and b = 1, so v = x^-1; the loop stops at the first step that reaches a = 0.
    // The inner steps are branch-free; the whole is variable time in the bit lengths it reads
    // and in the number of outer steps (c2lab inverts public or benchmark data). Zero maps to
    // zero.
    // bench_ff, the old and new binaries alternated on the 2-core AMD EPYC: ff/fp_inverse 7.1-7.5 us
    // (the binary extended Euclid it replaced) -> 3.7-3.8 us, ff/fr_inverse 3.5-3.6 -> 2.1-2.4 us.
    // Then the stop at a = 0 (Fp 3.2-4.2 -> 2.8 us) and the runs of even steps taken at once by
    // one count of trailing zeros (-> 2.3 us; Fr 1.8-2.2 -> 1.3-1.6 us), one core busy with
    // another benchmark. Side by side with blst's constant-time inversion in one process: Fp
    // 0.87x and Fr 0.78x of its time (results/reference/inverse-vs-blst-2026-12-03.md).
    constexpr mont_field inverse() const noexcept {
        if (is_zero()) return *this;
        if (std::is_constant_evaluated()) return inverse_fermat();
        using i128 = __int128;
        repr a = mont, b = modulus, u{}, v{};
        u[0] = 1;
        constexpr uint64_t low31 = (uint64_t{1} << 31) - 1;
        constexpr unsigned outer = (2 * unsigned(bits) - 1 + 30) / 31;
        // 33 bits of x from bit `lo` on (lo + 33 <= 64 N).
        auto top33 = [](const repr& x, unsigned lo) -> uint64_t {
            const size_t w = lo / 64;
            const unsigned sh = lo % 64;
            uint64_t t = x[w] >> sh;
            if (sh > 64 - 33 && w + 1 < n_limbs) t |= x[w + 1] << (64 - sh);
            return t & ((uint64_t{1} << 33) - 1);
        };
        // t = x f + y g over N + 1 limbs, two's complement, for x, y < 2^(64 N) and |f|, |g| <= 2^31;
        // returns the top limb, signed.
        auto combine = [](const repr& x, const repr& y, int64_t f, int64_t g, uint64_t (&t)[n_limbs + 1]) -> i128 {
            i128 carry = 0;
            for (size_t i = 0; i < n_limbs; ++i) {
                const i128 acc = static_cast<i128>(static_cast<u128>(x[i])) * f +
                                 static_cast<i128>(static_cast<u128>(y[i])) * g + carry;
                t[i] = static_cast<uint64_t>(acc);
                carry = acc >> 64;
            }
            t[n_limbs] = static_cast<uint64_t>(carry);
            return carry;
        };
        // The low N limbs of t / 2^31.
        auto shift31 = [](const uint64_t (&t)[n_limbs + 1], repr& out) {
            for (size_t i = 0; i < n_limbs; ++i) out[i] = (t[i] >> 31) | (t[i + 1] << 33);
        };
        // (x f + y g) / 2^31 for non-negative x, y: exact when the low 31 bits of x f + y g are
        // zero (a, b); returns whether it was negative (then negated).
        auto combine_exact = [&](const repr& x, const repr& y, int64_t f, int64_t g, repr& out) -> bool {
            uint64_t t[n_limbs + 1];
            const bool neg = combine(x, y, f, g, t) < 0;
            if (neg) {  // two's complement negation over N + 1 limbs
                uint64_t c = 1;
                for (size_t i = 0; i <= n_limbs; ++i) {
                    t[i] = ~t[i] + c;
                    c = (c && t[i] == 0) ? 1 : 0;
                }
            }
            shift31(t, out);
            return neg;
        };
        // (x f + y g) / 2^31 mod p for x, y < p: the multiple k p (k < 2^31) that makes the sum
        // divisible by 2^31 is added first; the result lies in (-2p, 3p) and is brought below p.
        auto combine_mod = [&](const repr& x, const repr& y, int64_t f, int64_t g, repr& out) {
            uint64_t t[n_limbs + 1];
            i128 carry = combine(x, y, f, g, t);
            const uint64_t k = (t[0] * n0) & low31;
            u128 c2 = 0;
            for (size_t i = 0; i < n_limbs; ++i) {
                const u128 acc = static_cast<u128>(k) * modulus[i] + t[i] + c2;
                t[i] = static_cast<uint64_t>(acc);
                c2 = acc >> 64;
            }
            carry += static_cast<i128>(c2);  // the top limb, signed (|value| < 2^(64 N + 33))
            t[n_limbs] = static_cast<uint64_t>(carry);
            shift31(t, out);
            // The value is out + top 2^(64 N), in (-2p, 3p) (3p passes 2^256 for Fr): p added
            // while negative, subtracted while at least p.
            int64_t top = static_cast<int64_t>(t[n_limbs]) >> 31;
            while (top < 0) top += static_cast<int64_t>(add_to(out, modulus));
            while (top > 0 || !less_than(out, modulus)) top -= static_cast<int64_t>(sub_from(out, modulus));
        };
        for (unsigned step = 0; step < outer; ++step) {
            const unsigned n = unsigned(std::max({ff::bit_length(a), ff::bit_length(b), size_t{64}}));
            uint64_t ab = (a[0] & low31) | (top33(a, n - 33) << 31);
            uint64_t bb = (b[0] & low31) | (top33(b, n - 33) << 31);
            int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
            // The 31 steps, a run of even steps at a time: an even a is halved (f1, g1 doubled)
            // as often as it has trailing zeros, up to the steps left; an odd a then takes
            // (a, b) <- (|a - b|, min(a, b)) (the rows swapped where a < b, then row 0 minus
            // row 1), which leaves a even. Same matrix as 31 single steps, with about half the
            // iterations. The zeros are counted on a - b itself (|a - b| has the same) and the
            // steps left are compared beside the shift, so the loop's dependent path is the
            // difference, its count and the shift (the count had waited on the swap). bench_ff,
            // binaries alternated three times, one thread pinned, Intel Xeon family 6 model 167:
            // ff/fp_inverse 1912-1987 -> 1729-1786 ns, ff/fr_inverse 1046-1059 -> 939-954 ns
            // (predicted about 20%: the loop is about 38 instructions an iteration, so the
            // instruction throughput bounds it nearly as much as the dependent path).
            unsigned left = 31;
            auto halve = [&](uint64_t from, unsigned z) {
                ab = from >> z, f1 = static_cast<int64_t>(static_cast<uint64_t>(f1) << z),
                g1 = static_cast<int64_t>(static_cast<uint64_t>(g1) << z);
                left -= z;
            };
            for (uint64_t zeros_of = ab, from = ab;;) {
                const unsigned z = unsigned(std::countr_zero(zeros_of));  // zeros_of = 0: 64
                if (z >= left) {
                    halve(from, left);  // ab no longer matters: the matrix takes the last steps
                    break;
                }
                halve(from, z);
                const uint64_t d = ab - bb;
                const uint64_t swap = 0 - static_cast<uint64_t>(ab < bb);
                bb ^= (ab ^ bb) & swap;  // min(a, b)
                const int64_t sm = static_cast<int64_t>(swap);
                const int64_t tf = (f0 ^ f1) & sm, tg = (g0 ^ g1) & sm;
                f0 ^= tf, f1 ^= tf, g0 ^= tg, g1 ^= tg;
                f0 -= f1, g0 -= g1;
                zeros_of = d, from = (d ^ swap) - swap;  // |a - b|
            }
            repr na, nb;
            if (combine_exact(a, b, f0, g0, na)) f0 = -f0, g0 = -g0;
            if (combine_exact(a, b, f1, g1, nb)) f1 = -f1, g1 = -g1;
            a = na, b = nb;
            repr nv;
            combine_mod(u, v, f1, g1, nv);
            // a = 0: b = gcd = 1, so v = x^-1 already (the bound `outer` is for the worst case;
            // random inputs finish in about 0.7 of it). u is not needed any more.
            if (ff::is_zero(a)) {
                v = nv;
                break;
            }
            repr nu;
            combine_mod(u, v, f0, g0, nu);
            u = nu, v = nv;
        }
        return from_mont(mont_mul(v, r3, modulus, n0));
    }

    // Legendre symbol: 1 for a non-zero square, -1 for a non-square, 0 for zero.
    constexpr int legendre() const noexcept {
        if (is_zero()) return 0;
        return pow(p_minus_1_over_2).is_one() ? 1 : -1;
    }

    // Tonelli-Shanks with the 2-Sylow generator; nullopt when a is not a square.
    constexpr std::optional<mont_field> sqrt() const noexcept {
        if (is_zero()) return *this;
        mont_field w = pow(t_minus_1_over_2);  // a^((t-1)/2)
        mont_field x = *this * w;              // a^((t+1)/2)
        mont_field b = x * w;                  // a^t
        mont_field c = two_adic_root;
        size_t m = two_adicity;
        while (!b.is_one()) {
            size_t i = 0;
            mont_field b2 = b;
            while (!b2.is_one()) {
                b2 = b2.square();
                if (++i == m) return std::nullopt;
            }
            mont_field z = c;
            for (size_t k = 0; k + i + 1 < m; ++k) z = z.square();
            x *= z;
            c = z.square();
            b *= c;
            m = i;
        }
        return x;
    }

    // The "sign" of zkcrypto's point encodings: true when a > (p-1)/2.
    constexpr bool lexicographically_largest() const noexcept {
        return less_than(p_minus_1_over_2, to_canonical());
    }

    // ---- derived exponents and roots of unity --------------------------------------
    static constexpr repr p_minus_1 = [] { repr r = modulus; r[0] -= 1; return r; }();
    static constexpr repr p_minus_2 = [] { repr r = modulus; r[0] -= 2; return r; }();
    static constexpr repr p_minus_1_over_2 = [] { repr r = p_minus_1; shr1(r); return r; }();
    static constexpr size_t two_adicity = [] {
        size_t s = 0;
        while (!bit(p_minus_1, s)) ++s;
        return s;
    }();
    static constexpr repr odd_part = [] {  // t with p - 1 = 2^s * t
        repr t = p_minus_1;
        for (size_t i = 0; i < two_adicity; ++i) shr1(t);
        return t;
    }();
    static constexpr repr t_minus_1_over_2 = [] { repr t = odd_part; t[0] -= 1; shr1(t); return t; }();
    // A primitive 2^s-th root of unity: g^t for the non-residue g, a literal of P (computing the
    // pow here cost every translation unit that took a square root in Fp 2.1 s of GCC 12's
    // constant evaluation, and one that took an Fr root 0.5 s; mont_field_test checks it against
    // the pow at run time). Defined (constexpr) after the class: a constexpr member of the
    // class's own type needs the complete type (clang).
    static const mont_field two_adic_root;

    // A primitive 2^log_n-th root of unity, for log_n <= two_adicity.
    static constexpr mont_field root_of_unity(size_t log_n) noexcept {
        mont_field w = two_adic_root;
        for (size_t i = log_n; i < two_adicity; ++i) w = w.square();
        return w;
    }

private:
    // The assembly product and square into one named result (see operator*).
    static mont_field product_asm(const mont_field& a, const mont_field& b) noexcept {
        mont_field r(uninit);
        mont_mul_into(r.mont, a.mont, b.mont, modulus, n0);
        return r;
    }
    static mont_field square_asm(const mont_field& a) noexcept {
        mont_field r(uninit);
        mont_sqr_into(r.mont, a.mont, modulus, n0);
        return r;
    }
};

template <class P>
inline constexpr mont_field<P> mont_field<P>::two_adic_root = mont_field<P>::from_canonical(P::two_adic_root);

// Montgomery's trick: invert every element with one inversion and 3(n-1) multiplications.
// Zeros stay zero and do not disturb the others.
template <class F>
void batch_inverse(std::span<F> xs) {
    if (xs.empty()) return;
    std::vector<F> prefix(xs.size());
    F acc = F::one();
    for (size_t i = 0; i < xs.size(); ++i) {
        prefix[i] = acc;
        if (!xs[i].is_zero()) acc *= xs[i];
    }
    F inv = acc.inverse();
    for (size_t i = xs.size(); i-- > 0;) {
        if (xs[i].is_zero()) continue;
        F next = inv * xs[i];
        xs[i] = inv * prefix[i];
        inv = next;
    }
}

}  // namespace c2lab::ff

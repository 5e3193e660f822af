// libFuzzer target: canonical field element decoding (ff/mont_field.hpp from_bytes_le /
// from_bytes_be, which go through from_canonical_checked) for Fr (32 bytes) and Fp (48 bytes).
//
// A 32-byte input is read as Fr, a 48-byte one as Fp, both little- and big-endian; the first
// 32 bytes of any longer input are read as Fr too. Contract: a value >= the modulus is
// c2lab::error(non_canonical), checked here against an independent byte-wise comparison with
// the modulus; a value below it decodes, and encodes back to the same bytes.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "core/error.hpp"
#include "ff/fields.hpp"

namespace {

// The modulus as little-endian bytes, from its limbs.
template <class F>
std::array<uint8_t, F::bytes> modulus_le() {
    std::array<uint8_t, F::bytes> m{};
    for (size_t i = 0; i < F::bytes; ++i) m[i] = static_cast<uint8_t>(F::modulus[i / 8] >> (8 * (i % 8)));
    return m;
}

// x < modulus for little-endian bytes: compare from the most significant byte.
template <class F>
bool below_modulus_le(const uint8_t* x) {
    static const auto m = modulus_le<F>();
    for (size_t i = F::bytes; i-- > 0;)
        if (x[i] != m[i]) return x[i] < m[i];
    return false;
}

template <class F>
void check(const uint8_t* in) {
    constexpr size_t n = F::bytes;
    std::array<uint8_t, n> le, be;
    for (size_t i = 0; i < n; ++i) le[i] = in[i], be[n - 1 - i] = in[i];
    const bool canonical = below_modulus_le<F>(le.data());
    // Little-endian, then the same value written big-endian.
    for (int endian = 0; endian < 2; ++endian) {
        try {
            F x = endian == 0 ? F::from_bytes_le(std::span<const uint8_t, n>(le)) : F::from_bytes_be(std::span<const uint8_t, n>(be));
            if (!canonical) std::abort();  // accepted a value >= the modulus
            std::array<uint8_t, n> out;
            if (endian == 0) {
                x.to_bytes_le(std::span<uint8_t, n>(out));
                if (out != le) std::abort();
            } else {
                x.to_bytes_be(std::span<uint8_t, n>(out));
                if (out != be) std::abort();
            }
            if (!F::is_canonical(x.to_canonical())) std::abort();
        } catch (const c2lab::error& e) {
            if (canonical || e.kind() != c2lab::errc::non_canonical) std::abort();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using c2lab::ff::fp;
    using c2lab::ff::fr;
    if (size >= fr::bytes) check<fr>(data);
    if (size == fp::bytes) check<fp>(data);
    return 0;
}

#include "ec/encoding.hpp"

#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"

namespace c2lab::ec {

namespace {

constexpr uint8_t flag_compressed = 0x80;
constexpr uint8_t flag_infinity = 0x40;
constexpr uint8_t flag_sort = 0x20;
constexpr size_t fp_bytes = ff::fp::bytes;  // 48

// One field coordinate: Fp as 48 big-endian bytes, Fp2 as c1 || c0.
void write_coord(const ff::fp& a, uint8_t* out) noexcept { a.to_bytes_be(std::span<uint8_t, fp_bytes>(out, fp_bytes)); }
void write_coord(const ff::fp2& a, uint8_t* out) noexcept {
    write_coord(a.c1, out);
    write_coord(a.c0, out + fp_bytes);
}

// The first byte is passed with its flag bits already cleared.
void read_coord(ff::fp& a, const uint8_t* in, const std::string& what) {
    a = ff::fp::from_bytes_be(std::span<const uint8_t, fp_bytes>(in, fp_bytes), what);
}
void read_coord(ff::fp2& a, const uint8_t* in, const std::string& what) {
    read_coord(a.c1, in, what + " (imaginary part)");
    read_coord(a.c0, in + fp_bytes, what + " (real part)");
}

template <class C>
constexpr size_t coord_bytes = sizeof(typename C::field) / sizeof(ff::fp) * fp_bytes;

template <class C>
bool in_subgroup(const affine<C>& p) noexcept {
    if constexpr (std::is_same_v<C, g1_curve>) return g1_in_subgroup(p);
    else return g2_in_subgroup(p);
}

template <class C, size_t Bytes>
std::array<uint8_t, Bytes> encode(const affine<C>& p, bool compressed) noexcept {
    std::array<uint8_t, Bytes> out{};
    if (p.is_identity()) {
        out[0] = flag_infinity | (compressed ? flag_compressed : 0);
        return out;
    }
    write_coord(p.x, out.data());
    if (compressed) {
        out[0] |= flag_compressed;
        if (p.y.lexicographically_largest()) out[0] |= flag_sort;
    } else {
        write_coord(p.y, out.data() + coord_bytes<C>);
    }
    return out;
}

template <class C>
affine<C> decode(std::span<const uint8_t> bytes, bool compressed, subgroup_check check) {
    const std::string what = std::string(C::name) + (compressed ? " compressed point" : " uncompressed point");
    const size_t expected = compressed ? coord_bytes<C> : 2 * coord_bytes<C>;
    if (bytes.size() != expected)
        throw error(errc::bad_length, what + ": expected " + std::to_string(expected) + " bytes, got " +
                                          std::to_string(bytes.size()));
    const uint8_t flags = bytes[0] & 0xe0;
    const bool c_flag = flags & flag_compressed, i_flag = flags & flag_infinity, s_flag = flags & flag_sort;
    if (c_flag != compressed)
        throw error(errc::bad_flags, what + ": the compression flag (0x80) must be " + (compressed ? "set" : "clear"));
    std::vector<uint8_t> buf(bytes.begin(), bytes.end());
    buf[0] &= 0x1f;
    if (i_flag) {
        if (s_flag) throw error(errc::bad_flags, what + ": the point at infinity has the sort flag (0x20) set");
        for (uint8_t b : buf)
            if (b != 0) throw error(errc::bad_flags, what + ": the point at infinity has non-zero coordinate bits");
        return affine<C>::identity();
    }
    if (!compressed && s_flag)
        throw error(errc::bad_flags, what + ": the sort flag (0x20) is not allowed in uncompressed form");
    affine<C> p;
    read_coord(p.x, buf.data(), what + " x coordinate");
    if (compressed) {
        auto y = (p.x.square() * p.x + C::b).sqrt();
        if (!y) throw error(errc::not_on_curve, what + ": x^3 + b has no square root (x is not on the curve)");
        p.y = (y->lexicographically_largest() == s_flag) ? *y : -*y;
    } else {
        read_coord(p.y, buf.data() + coord_bytes<C>, what + " y coordinate");
        if (!p.is_on_curve()) throw error(errc::not_on_curve, what + ": (x, y) does not satisfy the curve equation");
        if (p.is_identity()) throw error(errc::not_on_curve, what + ": (0, 0) without the infinity flag");
    }
    if (check == subgroup_check::on && !in_subgroup(p))
        throw error(errc::not_in_subgroup, what + ": the point is on the curve but not in the prime-order subgroup");
    return p;
}

}  // namespace

std::array<uint8_t, 48> to_compressed(const g1_affine& p) noexcept { return encode<g1_curve, 48>(p, true); }
std::array<uint8_t, 96> to_uncompressed(const g1_affine& p) noexcept { return encode<g1_curve, 96>(p, false); }
std::array<uint8_t, 96> to_compressed(const g2_affine& p) noexcept { return encode<g2_curve, 96>(p, true); }
std::array<uint8_t, 192> to_uncompressed(const g2_affine& p) noexcept { return encode<g2_curve, 192>(p, false); }

g1_affine g1_from_compressed(std::span<const uint8_t> bytes, subgroup_check check) {
    return decode<g1_curve>(bytes, true, check);
}
g1_affine g1_from_uncompressed(std::span<const uint8_t> bytes, subgroup_check check) {
    return decode<g1_curve>(bytes, false, check);
}
g2_affine g2_from_compressed(std::span<const uint8_t> bytes, subgroup_check check) {
    return decode<g2_curve>(bytes, true, check);
}
g2_affine g2_from_uncompressed(std::span<const uint8_t> bytes, subgroup_check check) {
    return decode<g2_curve>(bytes, false, check);
}

}  // namespace c2lab::ec

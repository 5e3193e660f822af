// libFuzzer target: point decoding (ec/encoding.hpp), G1 and G2, compressed and uncompressed,
// with the subgroup check on.
//
// The whole input is offered to all four decoders (each wants its own length: 48, 96, 96, 192
// bytes). Contract: bad bytes are c2lab::error; a decoded point is on the curve and in the
// subgroup (by the naive [r]P = O check, independent of the decoder's fast one), and encodes
// back to exactly the input (the encodings are unique: flags, canonical coordinates and the
// sort bit are all checked).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "core/error.hpp"
#include "ec/encoding.hpp"

namespace {

template <class Decode, class Check>
void try_decode(std::span<const uint8_t> in, Decode&& decode, Check&& check) {
    try {
        check(decode(in));
    } catch (const c2lab::error&) {
    }
}

template <class A>
void same_bytes(const A& encoded, std::span<const uint8_t> in) {
    if (encoded.size() != in.size() || !std::equal(encoded.begin(), encoded.end(), in.begin())) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace ec = c2lab::ec;
    const std::span<const uint8_t> in(data, size);
    try_decode(in, [](auto s) { return ec::g1_from_compressed(s, ec::subgroup_check::on); },
               [&](const ec::g1_affine& p) {
                   if (!p.is_on_curve() || !ec::g1_in_subgroup_naive(p)) std::abort();
                   same_bytes(ec::to_compressed(p), in);
               });
    try_decode(in, [](auto s) { return ec::g1_from_uncompressed(s, ec::subgroup_check::on); },
               [&](const ec::g1_affine& p) {
                   if (!p.is_on_curve() || !ec::g1_in_subgroup_naive(p)) std::abort();
                   same_bytes(ec::to_uncompressed(p), in);
               });
    try_decode(in, [](auto s) { return ec::g2_from_compressed(s, ec::subgroup_check::on); },
               [&](const ec::g2_affine& p) {
                   if (!p.is_on_curve() || !ec::g2_in_subgroup_naive(p)) std::abort();
                   same_bytes(ec::to_compressed(p), in);
               });
    try_decode(in, [](auto s) { return ec::g2_from_uncompressed(s, ec::subgroup_check::on); },
               [&](const ec::g2_affine& p) {
                   if (!p.is_on_curve() || !ec::g2_in_subgroup_naive(p)) std::abort();
                   same_bytes(ec::to_uncompressed(p), in);
               });
    return 0;
}

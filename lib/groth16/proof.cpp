#include "groth16/proof.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "ec/encoding.hpp"

namespace c2lab::groth16 {

namespace {

// Runs decode; a c2lab::error is rethrown with its kind and `what` in front.
template <class F>
auto named(const std::string& what, F&& decode) {
    try {
        return decode();
    } catch (const error& e) {
        throw error(e.kind(), what + ": " + e.what());
    }
}

template <size_t N>
void append(std::vector<uint8_t>& out, const std::array<uint8_t, N>& a) {
    out.insert(out.end(), a.begin(), a.end());
}

}  // namespace

std::array<uint8_t, proof_bytes> encode_proof(const proof& p) noexcept {
    std::array<uint8_t, proof_bytes> out;
    auto a = ec::to_compressed(p.a);
    auto b = ec::to_compressed(p.b);
    auto c = ec::to_compressed(p.c);
    std::copy(a.begin(), a.end(), out.begin());
    std::copy(b.begin(), b.end(), out.begin() + 48);
    std::copy(c.begin(), c.end(), out.begin() + 144);
    return out;
}

proof decode_proof(std::span<const uint8_t> bytes) {
    if (bytes.size() != proof_bytes)
        throw error(errc::bad_length, "proof: expected " + std::to_string(proof_bytes) + " bytes, got " +
                                          std::to_string(bytes.size()));
    proof p;
    p.a = named("proof element A (G1)", [&] { return ec::g1_from_compressed(bytes.subspan(0, 48)); });
    p.b = named("proof element B (G2)", [&] { return ec::g2_from_compressed(bytes.subspan(48, 96)); });
    p.c = named("proof element C (G1)", [&] { return ec::g1_from_compressed(bytes.subspan(144, 48)); });
    return p;
}

std::vector<uint8_t> encode_verifying_key(const verifying_key& vk) {
    std::vector<uint8_t> out;
    out.reserve(96 * 3 + 192 * 3 + 4 + 96 * vk.ic.size());
    append(out, ec::to_uncompressed(vk.alpha_g1));
    append(out, ec::to_uncompressed(vk.beta_g1));
    append(out, ec::to_uncompressed(vk.beta_g2));
    append(out, ec::to_uncompressed(vk.gamma_g2));
    append(out, ec::to_uncompressed(vk.delta_g1));
    append(out, ec::to_uncompressed(vk.delta_g2));
    const uint32_t n = static_cast<uint32_t>(vk.ic.size());
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(n >> shift));
    for (const auto& p : vk.ic) append(out, ec::to_uncompressed(p));
    return out;
}

verifying_key decode_verifying_key(std::span<const uint8_t> bytes) {
    constexpr size_t fixed = 96 * 3 + 192 * 3 + 4;
    if (bytes.size() < fixed)
        throw error(errc::bad_length, "verifying key: " + std::to_string(bytes.size()) +
                                          " bytes, shorter than the fixed part (" + std::to_string(fixed) +
                                          "): truncated");
    size_t at = 0;
    auto g1 = [&](const std::string& what) {
        auto s = bytes.subspan(at, 96);
        at += 96;
        return named("verifying key " + what, [&] { return ec::g1_from_uncompressed(s); });
    };
    auto g2 = [&](const std::string& what) {
        auto s = bytes.subspan(at, 192);
        at += 192;
        return named("verifying key " + what, [&] { return ec::g2_from_uncompressed(s); });
    };
    verifying_key vk;
    vk.alpha_g1 = g1("alpha_g1");
    vk.beta_g1 = g1("beta_g1");
    vk.beta_g2 = g2("beta_g2");
    vk.gamma_g2 = g2("gamma_g2");
    vk.delta_g1 = g1("delta_g1");
    vk.delta_g2 = g2("delta_g2");
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n = (n << 8) | bytes[at++];
    if (bytes.size() - at != size_t{96} * n)
        throw error(errc::bad_length, "verifying key: ic count " + std::to_string(n) + " needs " +
                                          std::to_string(size_t{96} * n) + " bytes, " +
                                          std::to_string(bytes.size() - at) + " follow (" +
                                          (bytes.size() - at < size_t{96} * n ? "truncated" : "trailing bytes") + ")");
    vk.ic.reserve(n);
    for (uint32_t i = 0; i < n; ++i) vk.ic.push_back(g1("ic[" + std::to_string(i) + "]"));
    return vk;
}

}  // namespace c2lab::groth16

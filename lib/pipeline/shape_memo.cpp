#include "pipeline/shape_memo.hpp"

#include <elf.h>
#include <link.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include <openssl/evp.h>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/hex.hpp"
#include "pipeline/params_cache.hpp"

namespace c2lab::pipeline {

namespace fs = std::filesystem;

namespace {

struct build_id_search {
    uintptr_t address = 0;  // an address inside the object sought
    std::string hex;
};

// The NT_GNU_BUILD_ID note of the object holding search->address, if it has one.
int find_build_id(dl_phdr_info* info, size_t, void* data) {
    auto* search = static_cast<build_id_search*>(data);
    bool holds = false;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum && !holds; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
        holds = ph.p_type == PT_LOAD && search->address >= lo && search->address < lo + ph.p_memsz;
    }
    if (!holds) return 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_NOTE) continue;
        const auto* p = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
        const uint8_t* end = p + ph.p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) nh;
            std::memcpy(&nh, p, sizeof nh);
            const uint8_t* name = p + sizeof nh;
            const uint8_t* desc = name + ((nh.n_namesz + 3) & ~3u);
            const uint8_t* next = desc + ((nh.n_descsz + 3) & ~3u);
            if (next > end) break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                search->hex = to_hex(std::span<const uint8_t>(desc, nh.n_descsz));
                return 1;
            }
            p = next;
        }
    }
    return 1;  // the object, without a build id
}

std::string sha256_hex(const std::string& text) {
    uint8_t md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    if (EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr) != 1)
        throw error(errc::internal, "shape memo: SHA-256 failed");
    return to_hex(std::span<const uint8_t>(md, len));
}

constexpr const char* count_keys[] = {"constraints",   "inputs",        "aux",           "a_aux_density",
                                      "b_input_density", "b_aux_density", "matrix_entries"};

}  // namespace

std::string binary_build_id() {
    build_id_search s;
    s.address = reinterpret_cast<uintptr_t>(&binary_build_id);
    dl_iterate_phdr(find_build_id, &s);
    return s.hex;
}

std::string shape_memo_path(const std::string& registered_proof) {
    const std::string id = binary_build_id();
    if (id.empty()) return {};
    return (cache_dir() / "shapes" / (registered_proof + "-" + id + ".shape")).string();
}

bool is_registered_config(const porep::porep_config& cfg) noexcept {
    const auto all = porep::registered_configs();
    return &cfg >= all.data() && &cfg < all.data() + all.size();
}

void write_shape_memo(const std::string& path, const std::string& registered_proof, const std::string& build_id,
                      const r1cs::circuit_shape& s) {
    std::ostringstream out;
    out << "c2lab-shape 1\n"
        << "proof " << registered_proof << "\n"
        << "build-id " << build_id << "\n";
    const uint64_t counts[] = {s.constraints,   s.inputs,        s.aux,           s.a_aux_density,
                               s.b_input_density, s.b_aux_density, s.matrix_entries};
    for (size_t i = 0; i < std::size(counts); ++i) out << count_keys[i] << " " << counts[i] << "\n";
    out << "digest " << s.digest_hex() << "\n";
    std::string text = out.str();
    text += "sha256 " + sha256_hex(text) + "\n";
    const fs::path dir = fs::path(path).parent_path();
    if (!dir.empty()) {
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) throw error(errc::io, dir.string() + ": cannot create the directory: " + ec.message());
    }
    write_file_atomic(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::optional<r1cs::circuit_shape> read_shape_memo(const std::string& path, const std::string& registered_proof,
                                                   const std::string& build_id) {
    if (!fs::exists(path)) return std::nullopt;
    const std::vector<uint8_t> bytes = read_file(path);
    const std::string text(bytes.begin(), bytes.end());
    auto bad = [&](size_t line, const std::string& what) -> error {
        return error(errc::bad_input, path + ":" + std::to_string(line) + ": " + what);
    };
    std::vector<std::string> lines;
    for (size_t at = 0; at < text.size();) {
        const size_t nl = text.find('\n', at);
        if (nl == std::string::npos) throw bad(lines.size() + 1, "no newline at the end (truncated?)");
        lines.push_back(text.substr(at, nl - at));
        at = nl + 1;
    }
    const size_t expected_lines = 3 + std::size(count_keys) + 2;
    if (lines.size() != expected_lines)
        throw bad(lines.size(), std::to_string(lines.size()) + " lines, a shape memo has " +
                                    std::to_string(expected_lines));
    // The checksum first: it covers every line before the last.
    const std::string& last = lines.back();
    const size_t body = text.size() - last.size() - 1;
    if (last.rfind("sha256 ", 0) != 0 || last.substr(7) != sha256_hex(text.substr(0, body)))
        throw bad(lines.size(), "checksum mismatch");
    auto value = [&](size_t i, const std::string& key) {
        const std::string& l = lines[i];
        if (l.size() <= key.size() || l.compare(0, key.size(), key) != 0 || l[key.size()] != ' ')
            throw bad(i + 1, "expected '" + key + " ...', found '" + l + "'");
        return l.substr(key.size() + 1);
    };
    if (lines[0] != "c2lab-shape 1") throw bad(1, "not a c2lab shape memo of version 1: '" + lines[0] + "'");
    if (value(1, "proof") != registered_proof)
        throw bad(2, "the shape of " + value(1, "proof") + ", expected " + registered_proof);
    if (value(2, "build-id") != build_id)
        throw bad(3, "made by the binary of build id " + value(2, "build-id") + ", this one is " + build_id);
    r1cs::circuit_shape s;
    uint64_t counts[std::size(count_keys)];
    for (size_t k = 0; k < std::size(count_keys); ++k) {
        const std::string v = value(3 + k, count_keys[k]);
        const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), counts[k]);
        if (v.empty() || ec != std::errc{} || p != v.data() + v.size())
            throw bad(4 + k, std::string(count_keys[k]) + ": '" + v + "' is not a number");
    }
    s.constraints = counts[0];
    s.inputs = counts[1];
    s.aux = counts[2];
    s.a_aux_density = counts[3];
    s.b_input_density = counts[4];
    s.b_aux_density = counts[5];
    s.matrix_entries = counts[6];
    const size_t digest_line = 3 + std::size(count_keys);
    std::vector<uint8_t> d;
    try {
        d = from_hex(value(digest_line, "digest"));
    } catch (const error& e) {
        throw bad(digest_line + 1, std::string("digest: ") + e.what());
    }
    if (d.size() != s.digest.size()) throw bad(digest_line + 1, "digest: not 32 bytes");
    std::copy(d.begin(), d.end(), s.digest.begin());
    return s;
}

}  // namespace c2lab::pipeline

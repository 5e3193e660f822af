#include "groth16/vk_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "core/file.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"

namespace c2lab::groth16 {

std::string vk_path_beside(const std::string& params_path) { return params_path + ".vk"; }

void write_verifying_key(const std::string& path, const verifying_key& vk) {
    write_file_atomic(path, encode_verifying_key(vk));
}

verifying_key read_verifying_key(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file(path);
    try {
        return decode_verifying_key(bytes);
    } catch (const error& e) {
        throw error(e.kind(), path + ": " + e.what());
    }
}

void write_parameters_and_vk(const std::string& path, const parameters& params) {
    const std::string vk = vk_path_beside(path);
    if (std::remove(vk.c_str()) != 0 && errno != ENOENT)
        throw error(errc::io, "cannot remove the old " + vk + ": " + std::strerror(errno));
    write_parameters(path, params);
    write_verifying_key(vk, params.vk);
}

std::string ensure_vk_beside(const std::string& params_path) {
    const std::string vk = vk_path_beside(params_path);
    if (!std::filesystem::exists(vk)) write_verifying_key(vk, read_parameters(params_path).vk);
    return vk;
}

}  // namespace c2lab::groth16

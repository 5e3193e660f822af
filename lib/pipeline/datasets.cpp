#include "pipeline/datasets.hpp"

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/hex.hpp"
#include "gadgets/sha256.hpp"
#include "porep/c1_json.hpp"
#include "porep/generator.hpp"
#include "porep/params.hpp"

#ifndef C2LAB_SOURCE_DIR
#define C2LAB_SOURCE_DIR "."
#endif

namespace c2lab::pipeline {

std::string datasets_dir() {
    if (const char* d = std::getenv("C2LAB_DATASETS"); d && *d) return d;
    return std::string(C2LAB_SOURCE_DIR) + "/datasets";
}

std::vector<dataset_info> read_manifest(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file(path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(bytes.begin(), bytes.end());
    } catch (const nlohmann::json::exception& e) {
        throw error(errc::bad_input, path + ": not JSON: " + e.what());
    }
    if (!j.is_object() || !j.contains("datasets") || !j["datasets"].is_array())
        throw error(errc::bad_input, path + ": expected {\"datasets\": [...]}");
    std::vector<dataset_info> out;
    for (size_t i = 0; i < j["datasets"].size(); ++i) {
        const auto& e = j["datasets"][i];
        const std::string at = path + ": datasets[" + std::to_string(i) + "]";
        auto str = [&](const char* key, bool required) -> std::string {
            if (!e.contains(key)) {
                if (required) throw error(errc::bad_input, at + "." + key + ": missing");
                return {};
            }
            if (!e[key].is_string()) throw error(errc::bad_input, at + "." + key + ": expected a string");
            return e[key].get<std::string>();
        };
        dataset_info d;
        d.name = str("name", true);
        d.sector = str("sector", true);
        d.sha256 = str("sha256", false);
        d.note = str("note", false);
        if (!e.contains("seed") || !e["seed"].is_number_unsigned())
            throw error(errc::bad_input, at + ".seed: expected an unsigned integer");
        d.seed = e["seed"].get<uint64_t>();
        (void)porep::parse_sector_size(d.sector);  // names the bad size
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<dataset_info> manifest() { return read_manifest(datasets_dir() + "/manifest.json"); }

const dataset_info& find_dataset(const std::vector<dataset_info>& all, std::string_view name) {
    for (const auto& d : all)
        if (d.name == name) return d;
    std::string known;
    for (const auto& d : all) known += (known.empty() ? "" : ", ") + d.name;
    throw error(errc::bad_input, "unknown dataset '" + std::string(name) + "' (known: " + known + ")");
}

std::string file_sha256(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file(path);
    const auto d = gadgets::sha256_native(bytes);
    return to_hex(std::span<const uint8_t>(d));
}

std::string dataset_path(std::string_view name, const std::function<void(const std::string&)>& progress) {
    auto say = [&](const std::string& s) {
        if (progress) progress(s);
    };
    const std::vector<dataset_info> all = manifest();
    const dataset_info& d = find_dataset(all, name);
    const std::string dir = datasets_dir() + "/cache";
    const std::string path = dir + "/" + d.name + ".json";
    if (!std::filesystem::exists(path)) {
        std::filesystem::create_directories(dir);
        say("generating dataset " + d.name + " (" + d.sector + ", seed " + std::to_string(d.seed) + ") into " + path);
        const porep::porep_config& cfg = porep::config_for_sector(porep::parse_sector_size(d.sector));
        const std::string text = porep::encode_c1_file(porep::generate_c1(cfg, d.seed));
        write_file_atomic(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    }
    if (!d.sha256.empty()) {
        const std::string got = file_sha256(path);
        if (got != d.sha256)
            throw error(errc::bad_input, path + ": SHA-256 " + got + " differs from the manifest's " + d.sha256 +
                                             " for dataset " + d.name +
                                             " (delete the file to generate it again; if the generator changed on "
                                             "purpose, update datasets/manifest.json)");
    }
    return path;
}

}  // namespace c2lab::pipeline

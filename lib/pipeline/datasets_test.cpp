#include "pipeline/datasets.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/hex.hpp"
#include "gadgets/sha256.hpp"
#include "porep/c1_json.hpp"
#include "porep/circuit.hpp"
#include "porep/generator.hpp"
#include "porep/params.hpp"

namespace c2lab::pipeline {
namespace {

// The generator, encoded, reproduces every small dataset's pinned digest (the large ones are
// checked when a benchmark opens them).
TEST(datasets, manifest_digests_reproduce) {
    for (const auto& d : manifest()) {
        const porep::porep_config& cfg = porep::config_for_sector(porep::parse_sector_size(d.sector));
        if (cfg.partitions > 1) continue;
        const std::string text = porep::encode_c1_file(porep::generate_c1(cfg, d.seed));
        const auto digest = gadgets::sha256_native(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
        EXPECT_EQ(to_hex(std::span<const uint8_t>(digest)), d.sha256) << d.name;
    }
}

// The committed fixture decodes with both decoders to the generator's output, and its
// circuit's public inputs are the derived ones.
TEST(datasets, committed_fixture_decodes) {
    const std::string path = datasets_dir() + "/fixtures/porep-2kib.json";
    const porep::c1_file a = porep::read_c1_file(path, porep::c1_json_decoder::nlohmann);
    const porep::c1_file b = porep::read_c1_file(path, porep::c1_json_decoder::simdjson);
    EXPECT_EQ(a, b);
    const std::vector<dataset_info> all = manifest();
    const dataset_info& d = find_dataset(all, "porep-2kib");
    EXPECT_EQ(file_sha256(path), d.sha256);
    const porep::porep_config& cfg = porep::config_for_sector(2048);
    EXPECT_EQ(a, porep::generate_c1(cfg, d.seed));
}

TEST(datasets, unknown_name_lists_the_known) {
    try {
        (void)find_dataset(manifest(), "porep-3kib");
        FAIL() << "accepted";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("porep-2kib"), std::string::npos) << e.what();
    }
}

TEST(datasets, bad_manifest_names_the_key) {
    const std::string dir = testing::TempDir() + "c2lab_manifest_test";
    std::filesystem::create_directories(dir);
    auto check = [&](const std::string& text, const std::string& needle) {
        const std::string p = dir + "/m.json";
        std::ofstream(p) << text;
        try {
            (void)read_manifest(p);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const error& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    check("{", "not JSON");
    check("{\"sets\": []}", "datasets");
    check("{\"datasets\": [{\"sector\": \"2KiB\", \"seed\": 1}]}", "datasets[0].name");
    check("{\"datasets\": [{\"name\": \"x\", \"sector\": \"2KiB\", \"seed\": -1}]}", "datasets[0].seed");
    check("{\"datasets\": [{\"name\": \"x\", \"sector\": \"3KiB\", \"seed\": 1}]}", "3KiB");
}

// A cached file that does not match its digest is refused, not used.
TEST(datasets, corrupt_cache_is_refused) {
    const std::string dir = testing::TempDir() + "c2lab_datasets_test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir + "/cache");
    std::filesystem::copy_file(datasets_dir() + "/manifest.json", dir + "/manifest.json");
    setenv("C2LAB_DATASETS", dir.c_str(), 1);
    const std::string path = dataset_path("porep-2kib");  // generated
    EXPECT_TRUE(std::filesystem::exists(path));
    {
        std::ofstream f(path, std::ios::app);
        f << " ";
    }
    try {
        (void)dataset_path("porep-2kib");
        ADD_FAILURE() << "a corrupt cache file was used";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("SHA-256"), std::string::npos) << e.what();
    }
    unsetenv("C2LAB_DATASETS");
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace c2lab::pipeline

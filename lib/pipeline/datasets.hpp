// Named datasets (DESIGN.md, Datasets): datasets/manifest.json lists each C1 file by name with
// the (sector size, seed) that generate it and the SHA-256 of the file. A dataset is
// generated on first use into datasets/cache/<name>.json (git-ignored) and checked against
// its digest every time it is opened, so a benchmark never runs on a stale or corrupt file.
//
// The datasets directory is $C2LAB_DATASETS, else the one of the source tree c2lab was built
// from (C2LAB_SOURCE_DIR at compile time).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "porep/vanilla_proof.hpp"

namespace c2lab::pipeline {

struct dataset_info {
    std::string name;       // e.g. "porep-2kib"
    std::string sector;     // e.g. "2KiB"
    uint64_t seed = 0;
    std::string sha256;     // hex of the C1 file's SHA-256 (empty: not pinned)
    std::string note;
};

std::string datasets_dir();
// The manifest's entries; throws c2lab::error naming the file and the key on a bad manifest.
std::vector<dataset_info> read_manifest(const std::string& path);
std::vector<dataset_info> manifest();
const dataset_info& find_dataset(const std::vector<dataset_info>& all, std::string_view name);

// The path of the dataset's C1 file, generated (atomically) when missing, its digest checked
// (errc::bad_input on a mismatch, naming both digests). progress: one line per step.
std::string dataset_path(std::string_view name, const std::function<void(const std::string&)>& progress = {});

// SHA-256 of a file, hex.
std::string file_sha256(const std::string& path);

}  // namespace c2lab::pipeline

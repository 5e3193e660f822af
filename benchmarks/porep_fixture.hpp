// Shared by the PoRep stage benchmarks: datasets opened once per process (generated into
// datasets/cache on first use, digest checked), kept as text and decoded.
#pragma once

#include <map>
#include <string>

#include "core/file.hpp"
#include "pipeline/datasets.hpp"
#include "porep/c1_json.hpp"
#include "porep/params.hpp"

namespace c2lab::bench {

struct loaded_dataset {
    std::string text;       // the C1 file
    porep::c1_file file;    // decoded (nlohmann)
    const porep::porep_config* cfg = nullptr;
};

inline const loaded_dataset& dataset(const std::string& name) {
    static std::map<std::string, loaded_dataset> cache;
    auto it = cache.find(name);
    if (it != cache.end()) return it->second;
    loaded_dataset d;
    const std::vector<uint8_t> bytes = read_file(pipeline::dataset_path(name));
    d.text.assign(bytes.begin(), bytes.end());
    d.file = porep::decode_c1_file(d.text);
    d.cfg = &porep::config_for_proof(d.file.phase1_out.registered_proof);
    return cache.emplace(name, std::move(d)).first->second;
}

// The dataset, or nullptr after state.SkipWithError with the reason (a digest mismatch, a
// bad manifest): a benchmark reports the problem instead of ending the process.
template <class State>
const loaded_dataset* dataset_or_skip(State& state, const std::string& name) {
    try {
        return &dataset(name);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return nullptr;
    }
}

}  // namespace c2lab::bench

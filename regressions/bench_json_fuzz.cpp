// libFuzzer target: Google Benchmark JSON as the gate reads it (regressions/bench_json.hpp
// parse_bench_json).
//
// Contract: malformed input is c2lab::error(bad_input); anything else escaping is a bug.
// A parsed run keeps its promises: names unique and non-empty, and every benchmark has one
// real_time and one cpu_time sample per repetition, all finite.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "regressions/bench_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace r = c2lab::regressions;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const r::bench_run run = r::parse_bench_json(text, "fuzz.json");
        std::set<std::string> names;
        for (const auto& b : run.benchmarks) {
            if (b.name.empty() || !names.insert(b.name).second || b.repetitions == 0) std::abort();
            for (const char* key : {"real_time", "cpu_time"}) {
                const auto it = b.metrics.find(key);
                if (it == b.metrics.end() || it->second.size() != b.repetitions) std::abort();
            }
            for (const auto& [metric, samples] : b.metrics)
                for (double x : samples)
                    if (!std::isfinite(x) && metric != "real_time" && metric != "cpu_time") std::abort();
        }
    } catch (const c2lab::error& e) {
        if (e.kind() != c2lab::errc::bad_input) std::abort();
    }
    return 0;
}

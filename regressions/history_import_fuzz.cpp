// libFuzzer target: what `c2lab history record` and `import` read before anything is written
// (regressions/history.hpp history_record_of_texts): Google Benchmark JSON, or `c2lab prove
// --json` output (single proof or batch).
//
// Contract: malformed input is c2lab::error(bad_input); anything else escaping is a bug. A
// record keeps its promises: a kind of history_kinds, one file with a 64-hex-digit digest,
// benchmark names unique and non-empty, every metric with at least one sample.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "regressions/history.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace r = c2lab::regressions;
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const r::history_record rec = r::history_record_of_texts({{"fuzz.json", text}}, "fuzz");
        bool known_kind = false;
        for (const char* k : r::history_kinds) known_kind = known_kind || rec.meta.kind == k;
        if (!known_kind || rec.meta.files.size() != 1 || rec.meta.files[0].sha256.size() != 64) std::abort();
        std::set<std::string> names;
        for (const auto& b : rec.run.benchmarks) {
            if (b.name.empty() || !names.insert(b.name).second) std::abort();
            for (const auto& [metric, samples] : b.metrics)
                if (metric.empty() || samples.empty()) std::abort();
        }
    } catch (const c2lab::error& e) {
        if (e.kind() != c2lab::errc::bad_input) std::abort();
    }
    return 0;
}

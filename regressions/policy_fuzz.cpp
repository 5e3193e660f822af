// libFuzzer target: the gate's policy file (regressions/policy.hpp parse_policy).
//
// Contract: malformed input, unknown keys, wrong types, out-of-range values and invalid
// regexes are c2lab::error(bad_input); anything else escaping is a bug. A parsed policy keeps
// the documented ranges: alpha in (0, 1), margin in [0, 1), min_repetitions >= 2.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.hpp"
#include "regressions/policy.hpp"

namespace {

void check_rule(double alpha, double margin, size_t min_repetitions) {
    if (!(alpha > 0 && alpha < 1) || !(margin >= 0 && margin < 1) || min_repetitions < 2) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace r = c2lab::regressions;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const r::policy p = r::parse_policy(text, "fuzz.json");
        check_rule(p.defaults.alpha, p.defaults.margin, p.defaults.min_repetitions);
        for (const auto& o : p.overrides) {
            if (o.re.pattern().empty()) std::abort();
            if (o.has_alpha || o.has_margin || o.has_min)
                check_rule(o.has_alpha ? o.alpha : 0.5, o.has_margin ? o.margin : 0, o.has_min ? o.min_repetitions : 2);
        }
    } catch (const c2lab::error& e) {
        if (e.kind() != c2lab::errc::bad_input) std::abort();
    }
    return 0;
}

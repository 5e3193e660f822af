// The gate's policy: which metric each benchmark is judged on, in which direction, and
// how strictly. A JSON file (regressions/README.md documents every key; the lab's default
// is results/policies/default.json):
//
//   {
//     "defaults": {"metric": "real_time", "direction": "lower_is_better", "alpha": 0.05,
//                  "margin": 0.05, "adjustment": "holm", "min_repetitions": 5},
//     "overrides": [{"match": "ff/.*", "metric": "cpu_time", "margin": 0.03},
//                   {"match": "msm/.*", "metric": "points/s", "direction": "higher_is_better"}],
//     "ignore": ["gpu/.*"]
//   }
//
// "deterministic": true (in "defaults" or an override) marks a metric that does not vary
// between runs of the same code, such as valgrind instruction counts
// (results/policies/icount.json): when each side's samples are all equal (one sample
// included) the gate judges the ratio current / baseline alone, against the margin, with
// no test and no minimum of repetitions (gate.hpp). Samples that differ fall back to the
// statistical path, min_repetitions included.
//
// Regexes are RE2's (name_regex.hpp) and must match the whole benchmark name. Every
// override whose "match" matches applies, in file order, each setting the keys it names
// (a later one wins). "adjustment" is run-wide and lives in "defaults" only. Unknown keys,
// wrong types and out-of-range values are c2lab::error(bad_input) naming the key, and so is an
// invalid regex or one longer than name_regex::max_chars.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "regressions/name_regex.hpp"

#include "regressions/stats.hpp"

namespace c2lab::regressions {

struct metric_rule {
    std::string metric = "real_time";           // real_time, cpu_time (ns) or a counter's name
    direction dir = direction::lower_is_better;
    double alpha = 0.05;                        // in (0, 1)
    double margin = 0.05;                       // in [0, 1)
    std::size_t min_repetitions = 5;            // >= 2, on each side
    bool deterministic = false;                 // equal samples: judged by the ratio alone
};

struct rule_override {
    name_regex re{".*"};  // "match" (re.pattern(): as written)
    // Only the keys present in the file are set.
    std::string metric;
    bool has_metric = false, has_direction = false, has_alpha = false, has_margin = false, has_min = false;
    bool has_deterministic = false;
    bool deterministic = false;
    direction dir = direction::lower_is_better;
    double alpha = 0, margin = 0;
    std::size_t min_repetitions = 0;
};

struct policy {
    metric_rule defaults{};
    adjustment adjust = adjustment::holm;
    std::vector<rule_override> overrides;
    std::vector<name_regex> ignore;  // each with its pattern as written

    bool ignored(std::string_view name) const;
    metric_rule rule_for(std::string_view name) const;  // defaults + matching overrides
};

// `source` names the file in messages. An empty object gives the defaults above.
policy parse_policy(std::string_view text, const std::string& source);
policy read_policy(const std::string& path);

std::string_view to_string(direction d) noexcept;
std::string_view to_string(adjustment a) noexcept;

}  // namespace c2lab::regressions

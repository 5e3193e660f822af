#include "pipeline/test_flags.hpp"

#include <chrono>

#include "core/parallel.hpp"

namespace c2lab::pipeline {

namespace {

using tv = test_flag_values;

constexpr std::pair<std::string_view, unsigned> slowdowns[] = {{"off", 0}, {"aa", 0}, {"1pct", 1},
                                                               {"2pct", 2},  {"5pct", 5}, {"10pct", 10}};

constexpr flag_def<tv> test_registry[] = {
    {"inject_stage_slowdown", "off|ntt|msm_h|msm_l", "off", "test",
     "bench_prove: that prover stage takes four times as long as its work took, a known slowdown for the gate's "
     "stage tracing",
     [](tv& v, const std::string& x) {
         v.inject_stage_slowdown = pick_variant("inject_stage_slowdown", x, {"off", "ntt", "msm_h", "msm_l"});
     },
     [](const tv& v) { return v.inject_stage_slowdown; }},
    {"inject_slowdown", "off|aa|1pct|2pct|5pct|10pct", "off", "test",
     "bench_probe: extra work added by the ab_probe benchmarks, to calibrate `c2lab ab`; aa = off under another name",
     [](tv& v, const std::string& x) {
         v.inject_slowdown = pick_variant("inject_slowdown", x, {"off", "aa", "1pct", "2pct", "5pct", "10pct"});
     },
     [](const tv& v) { return v.inject_slowdown; }},
};

}  // namespace

std::span<const flag_def<test_flag_values>> test_flag_registry() noexcept { return test_registry; }

unsigned test_flag_values::inject_slowdown_pct() const noexcept {
    for (const auto& [name, pct] : slowdowns)
        if (name == inject_slowdown) return pct;
    return 0;
}

groth16::stage_hook test_flag_values::stage_hook() const {
    if (inject_stage_slowdown == "off") return {};
    // The stage's threads stay busy three times as long again, as they would on work that took
    // four times as long. Four, not two: a neighbour busy on one of a 2-core machine's cores
    // doubles a two-thread stage by itself, and a doubled stage then met a loaded baseline's
    // (msm_h 28 ms a side, 14 ms unloaded) often enough that the gate could not call it slower.
    // A sleep let both cores idle instead, and once the stage after it ran 1.7x slower on
    // the side with the injection (msm_l after a sleeping msm_h, 62.6 -> 105.9 ms on the 2-core
    // family-23 EPYC VM in a slow hour), which the gate rightly called a second regression.
    return [stage = inject_stage_slowdown](std::string_view name, double ms) {
        if (name != stage) return;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(3 * ms);
        parallel::for_chunks(parallel::arena_concurrency(), 1, [&](size_t, size_t) {
            while (std::chrono::steady_clock::now() < deadline) {
            }
        });
    };
}

all_flag_values parse_all_flags(std::span<const std::string> settings) {
    all_flag_values v;
    for (const std::string& s : settings) {
        const auto [name, value] = split_flag_setting(s);
        if (const auto* f = find_flag(flag_registry(), name)) {
            set_flag(*f, v.engine, value);
        } else if (const auto* t = find_flag(test_flag_registry(), name)) {
            set_flag(*t, v.test, value);
        } else {
            throw error(errc::bad_input, "unknown flag '" + name + "' (known: " + flag_names(flag_registry()) + ", " +
                                             flag_names(test_flag_registry()) + ")");
        }
    }
    return v;
}

}  // namespace c2lab::pipeline

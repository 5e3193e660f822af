// The A/B runner of optimisation flags (`c2lab ab`): a factorial design of engine flags
// (and the process allocator), measured in interleaved, freshly started benchmark
// processes, compared with the statistics of stats.hpp.
//
// The method, and why:
//   - every variant runs in its own process (`<bench> --flag ... --benchmark_repetitions=1`),
//     so no variant inherits another's heap, page cache state or code layout;
//   - a round runs every variant once, in an order shuffled per round (seeded c2lab::rng):
//     slow drift (thermal throttling, a neighbour's load) hits all variants alike instead of
//     whichever happened to run last;
//   - each process gives one sample per benchmark; a variant's samples are compared with the
//     baseline's (the first value of every --flag list, glibc first) by the ratio of medians
//     with its bootstrap CI and a Mann-Whitney p, Holm-adjusted over every comparison of
//     the run, and judged by decide() (stats.hpp) with lower_is_better:
//        slower        p_adj < alpha and the whole CI above 1 + margin
//        faster        p_adj < alpha and the whole CI below 1 - margin
//        same          the whole CI inside [1 - margin, 1 + margin] (a significant change
//                      smaller than the margin is real but negligible: ratio and p show it)
//        inconclusive  anything else (more rounds, or a quieter machine, may tell)
//
// The engine is free of processes: collect() calls a runner callback for each process, so
// tests inject fake runs; the command (cli/ab_cmd.cpp) spawns the real ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "regressions/stats.hpp"

namespace c2lab::regressions::ab {

// ---------------------------------------------------------------------------------------
// Allocators: process level, chosen by LD_PRELOAD of the library (glibc: no preload).
struct allocator_info {
    std::string_view name;     // "glibc", "jemalloc", "mimalloc"
    std::string_view library;  // "libjemalloc.so.2"; empty for glibc
    std::string_view package;  // Debian package that installs it
};
std::span<const allocator_info> allocators() noexcept;
// Throws bad_input naming the allocator and the known ones.
const allocator_info& find_allocator(std::string_view name);
// The library's path: the first of dirs holding a readable `library`; "" for glibc. A
// missing library is bad_input naming the file, the directories and the package to install.
std::string locate_allocator(std::string_view name, std::span<const std::string> dirs);
// The directories searched by default: the multiarch lib dirs, then /usr/local/lib,
// /usr/lib, /lib.
std::vector<std::string> default_library_dirs();

// ---------------------------------------------------------------------------------------
// The design.
struct factor {
    std::string name;                 // a flag of the registry (pipeline/flags.hpp)
    std::vector<std::string> levels;  // its values, in the given order (the first: baseline)
};

struct design {
    std::vector<factor> flags;                   // in --flag order
    std::vector<std::string> allocators{"glibc"};  // the first: baseline
};

// Checks one "name=value" setting against the engine's flag registry, throwing c2lab::error
// with the registry's message when the name or the value is unknown. The judge does not know
// the engine's flags: the caller gives the check (`c2lab ab` passes pipeline::parse_flags).
using flag_check = std::function<void(const std::string& setting)>;

// "name=v1,v2,...": the name and every value go through `check` (when given), so the messages
// are the registry's. An empty list or value, or a value given twice, is bad_input.
factor parse_flag_factor(const std::string& spec, const flag_check& check = {});

// Every --flag spec and the allocator list (empty: glibc only). A flag given twice, an
// unknown or repeated allocator, or a design with fewer than two variants is bad_input.
design make_design(std::span<const std::string> flag_specs, std::span<const std::string> allocator_names,
                   const flag_check& check = {});

struct variant {
    std::vector<std::pair<std::string, std::string>> flags;   // every flag's value, design order
    std::vector<std::pair<std::string, std::string>> varied;  // those of flags with 2+ levels
    std::string allocator = "glibc";
    std::string label;  // the varied factors: "lc_indexer=smallvec4 allocator=jemalloc"
};

// The cross product: the first flag outermost, the allocator innermost; [0] is the baseline.
std::vector<variant> expand(const design& d);

// A benchmark's name with every segment that carries one of the variant's varied flag
// values replaced by "<flag>:*": "/<flag>:<value>" and, as bench_r1cs writes them, a bare
// "/<value>" (never the first segment), so the names of all variants coincide.
std::string normalize_name(std::string_view name, std::span<const std::pair<std::string, std::string>> varied);

// rounds x variants: row r is a permutation of 0..variants-1, Fisher-Yates with c2lab::rng
// seeded once with `seed` (deterministic).
std::vector<std::vector<std::size_t>> shuffled_order(std::size_t variants, std::size_t rounds, uint64_t seed);

// ---------------------------------------------------------------------------------------
// Collection.
struct config {
    std::string filter;              // --benchmark_filter
    std::string dataset;             // empty: the binary's own
    std::string metric = "real_time";  // or "cpu_time"
    double min_time = 0.1;           // --benchmark_min_time, seconds
    std::size_t rounds = 10;
    std::size_t warmup = 1;          // extra rounds run first and discarded (a cold first process)
    uint64_t seed = 1;               // shuffle and bootstrap
    double alpha = 0.05;
    double margin = 0.02;
    double level = 0.95;             // bootstrap interval
    std::size_t resamples = 2000;
};
// Checks the ranges (rounds >= 2, min_time > 0, alpha in (0, 1), margin in [0, 1),
// metric real_time or cpu_time, filter not empty); bad_input naming the option.
void check_config(const config& c);

// The arguments after the binary for one process of `v`.
std::vector<std::string> benchmark_args(const variant& v, const config& c);

struct bench_value {
    std::string name;        // as the binary reported it
    std::string normalized;  // normalize_name(name, variant.varied)
    double real_time_ns = 0;
    double cpu_time_ns = 0;
};

struct run_record {
    std::size_t round = 0;     // 1-based; warm-up rounds are numbered 1..warmup too
    bool warmup = false;
    std::size_t position = 0;  // 1-based place in the round's order
    std::size_t variant = 0;
    double wall_ms = 0;        // the whole process, start to exit
    std::string load_avg;      // from the run's context, when the binary reports it
    std::vector<bench_value> benchmarks;
};

struct collection {
    std::vector<std::vector<std::size_t>> order;  // warm-up rounds first, then the measured ones
    std::vector<run_record> runs;                 // in the order run
    std::string context_json;                     // the first run's Google Benchmark context
};

// Runs one process of the variant with these arguments and returns its stdout (Google
// Benchmark JSON); throws c2lab::error when the process fails.
using runner = std::function<std::string(const variant&, const std::vector<std::string>& args)>;
// Called after each process with its record and a progress line
// ("[ab] round 3/10  lc_indexer=smallvec4  synth/...  1.273 ms").
using progress = std::function<void(const run_record&, const std::string& line)>;

// Every round in its shuffled order. A run whose JSON is malformed, holds a benchmark that
// reported an error, or holds no benchmark at all, is a c2lab::error naming the variant.
collection collect(std::span<const variant> variants, const config& c, const runner& run, const progress& on_run = {});

// ---------------------------------------------------------------------------------------
// Statistics.
enum class outcome { baseline, faster, slower, same, inconclusive };
std::string_view to_string(outcome o) noexcept;

// One step of `c2lab bisect`: whether the candidate commit already has the change sought
// (sought: slower or faster; "bad" in git bisect's terms). vs_good is the candidate measured
// against the good commit's binary; when that is inconclusive, vs_bad, the candidate measured
// against the bad commit's binary (its ratio candidate / bad), decides: measurably on the good
// side of the bad commit -> not bad; measurably beyond it -> bad; inconclusive too -> the end
// the candidate is nearer to, |log ratio| against each. Throws c2lab::error (bad_input) when
// vs_good is inconclusive and vs_bad is absent, or sought is not slower or faster.
struct step_comparison {
    outcome verdict = outcome::inconclusive;
    double ratio = 1;
};
bool bisect_candidate_is_bad(outcome sought, const step_comparison& vs_good,
                             const std::optional<step_comparison>& vs_bad);

struct row {
    std::string benchmark;        // normalized name
    std::size_t variant = 0;
    std::vector<double> samples;  // metric, ns, in the order run
    double median = 0;
    bool tested = false;          // false: baseline, or see note
    std::string note;             // why not tested
    comparison cmp{};             // against the baseline, when tested
    outcome verdict = outcome::inconclusive;
};

struct skipped_benchmark {
    std::string benchmark;              // normalized name
    std::vector<std::size_t> variants;  // the variants that reported it
};

struct result {
    config cfg;
    std::vector<variant> variants;
    std::vector<row> rows;  // benchmark by benchmark (first appearance), variants in order
    std::vector<skipped_benchmark> skipped;
    std::size_t comparisons = 0;      // tested rows (the Holm family)
    double smallest_possible_p = 0;   // Holm-adjusted, for the smallest samples tested
    std::size_t count(outcome o) const;
};

// Samples per (benchmark, variant) from the measured rounds, the comparisons with the
// baseline, Holm over all of them, the verdicts.
result analyse(std::span<const variant> variants, const collection& data, const config& c);

// Main effects of a factorial design (two or more varied factors: flags, and the allocator
// when it varies): for each factor level against the factor's first level, the geometric mean
// over every combination of the other factors of median(level) / median(first level), per
// benchmark. Empty for a one-factor design (the comparisons are the effects).
struct main_effect {
    std::string benchmark;
    std::string factor;  // a flag name, or "allocator"
    std::string level, baseline_level;
    double ratio = 1;    // geometric mean of the paired ratios of medians
    std::size_t pairs = 0;
};
std::vector<main_effect> main_effects(const result& r);

// ---------------------------------------------------------------------------------------
// Reports.
struct run_info {
    std::string binary;                    // the benchmark binary run
    std::vector<std::string> command_line;  // c2lab's own
    std::string commit;                    // "" when unknown
    std::string started_utc, finished_utc;
    std::vector<std::pair<std::string, std::string>> machine;  // cpu_model, num_cpus, host, ...
    std::vector<std::pair<std::string, std::string>> libraries;  // allocator -> preloaded path
};

// Heading, the table (benchmark, variant, n, median, ratio [CI], p (holm), verdict), the
// counts, the skipped benchmarks and a note when the rounds are too few for significance.
std::string markdown(const result& r, const run_info& info);
// One panel per benchmark: each variant's samples as dots, its median as a bar, the
// baseline median as a dashed line, a labelled time axis, the ratio and verdict.
std::string svg(const result& r, const run_info& info);
// ab.json: context (machine, commit, command line, binary, config, allocators), variants,
// order, every run with its samples, the results and the skipped benchmarks.
std::string to_json(const result& r, const collection& data, const run_info& info);

// One variant's measured samples (warm-up rounds left out) as Google Benchmark JSON, one
// iteration row per process and benchmark (times in ns), its context the collection's
// (the first run's) with `context` added in order (a later pair overrides an earlier one, and the
// collection's): what the results history records of an A/B run.
std::string variant_run_json(const collection& data, std::size_t variant,
                             const std::vector<std::pair<std::string, std::string>>& context);

// "1.273 ms", "812.4 us": a time in ns with 4 significant digits.
std::string format_time(double ns);

}  // namespace c2lab::regressions::ab

// Google Benchmark JSON, as scripts/bench.sh writes it, read for the regression gate.
//
// A file is {"context": {...}, "benchmarks": [row, ...]}. Only per-repetition rows count
// ("run_type": "iteration", or no run_type at all, as older library versions write);
// aggregate rows (mean, median, stddev, cv) and rows with "error_occurred": true are
// skipped. Rows are grouped by "run_name" (falling back to "name") in the order of their
// first appearance; each row adds one sample to every metric it carries:
//   - "real_time", "cpu_time": converted to nanoseconds with the row's "time_unit"
//     (ns, us, ms, s; ns when absent);
//   - counters: every other numeric field of the row, under its own name ("points/s",
//     "msm_b_g2_ms", ...), as Google Benchmark reports it (no unit conversion). The row's
//     bookkeeping fields (family_index, per_family_instance_index, repetitions,
//     repetition_index, threads, iterations) are not counters.
//
// Machine fingerprint, from the context:
//   cpu_model   "cpu_model" (written by scripts/bench.sh from /proc/cpuinfo), else the
//               first of "model name", "model_name", "cpu" present; "" when none is
//   num_cpus    "num_cpus" (Google Benchmark's own); 0 when absent
//   build_type  "build_type" (scripts/bench.sh: the CMake build type of c2lab); "" when
//               absent. Google Benchmark's "library_build_type" is the benchmark
//               library's own build and is not used.
//   compiler    "compiler" (scripts/bench.sh: `c++ --version | head -1`); "" when absent
//   cpu_id      "cpu_id" (scripts/bench.sh and `c2lab prove`: "family F model M" from
//               /proc/cpuinfo); "" when absent. Virtual machines often show one model name for
//               several generations ("AMD EPYC" for Zen 1 and Zen 4 alike)
//   cpu_path    "cpu_path" (the benchmarks' own: avx512-ifma, adx, portable); "" when absent
// The gate refuses to compare runs whose cpu_model, num_cpus or build_type differ, and runs
// whose cpu_id or cpu_path differ where both runs record one (runs written before these were
// recorded still compare); the compiler is reported but not compared (a compiler upgrade is a
// change one may measure).
//
// Every malformed input (bad JSON, no "benchmarks" array, a row without a name, a
// non-numeric time, an unknown time unit) is c2lab::error(bad_input) naming the file and,
// where there is one, the row and field.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace c2lab::regressions {

struct machine_fingerprint {
    std::string cpu_model;
    long long num_cpus = 0;
    std::string build_type;
    std::string compiler;
    // The counting tool of an instruction-count run (context "valgrind", as scripts/icount.sh
    // writes it); empty for a timed run. Instruction counts depend on the code and the toolchain
    // that built and counted it, not on the CPU model: such runs are matched by toolchain.
    std::string valgrind;
    std::string cpu_id;    // "family F model M"; "" where the run does not record it
    std::string cpu_path;  // the arithmetic path that ran (avx512-ifma, adx, portable); "" where unrecorded

    bool counts_instructions() const noexcept { return !valgrind.empty(); }
};

// "field: baseline 'a', current 'b'" for every compared field that differs; empty when the
// fingerprints match. Timed runs compare the machine (cpu_model, num_cpus, build_type, and
// cpu_id and cpu_path where both runs have them);
// two instruction-count runs compare the toolchain (compiler, valgrind, build_type); a timed
// run and a count never match.
std::vector<std::string> fingerprint_differences(const machine_fingerprint& baseline,
                                                 const machine_fingerprint& current);

// The name of a run's baseline folder (results/baselines/<name>): lower case, every run of
// characters other than [a-z0-9] one '-'. Timed runs: "<cpu_model>-<cpu_id>-<num_cpus>cpu-<build_type>"
// ("amd-epyc-family-25-model-17-2cpu-release"), without the cpu_id where the run has none or
// with_cpu_id is false ("intel-r-xeon-r-processor-2cpu-release", the name baselines had before
// runs recorded it); instruction-count runs: "toolchain-<compiler>-<valgrind>-<build_type>",
// shared by every CPU model. Empty when the fingerprint has nothing to name it by (no
// cpu_model, or no compiler for a count).
std::string baseline_name(const machine_fingerprint& m, bool with_cpu_id = true);

// `text` in the form baseline_name gives: lower case [a-z0-9] runs joined by '-'.
std::string sanitize_machine_name(std::string_view text);

struct benchmark_samples {
    std::string name;                                   // run_name
    std::size_t repetitions = 0;                        // iteration rows seen
    std::map<std::string, std::vector<double>> metrics;  // metric -> one value per row
};

struct bench_run {
    std::string source;  // file or directory it was read from (for messages)
    machine_fingerprint machine;
    std::vector<benchmark_samples> benchmarks;  // first-appearance order, names unique
    // Every key of the JSON context: strings as they are, other values as compact JSON text
    // (read_bench_run of a directory: the first file's).
    std::map<std::string, std::string> context;

    const benchmark_samples* find(std::string_view name) const;
};

// The stage a counter times: "ntt" for "ntt_ms" (bench_prove writes one "<stage>_ms" counter
// per prover stage), nullopt for any other metric. The gate and `c2lab ab` judge these stage
// by stage.
std::optional<std::string> stage_of_counter(std::string_view metric);

// Parses one file's text; `source` names it in error messages.
bench_run parse_bench_json(std::string_view text, const std::string& source);

// Reads a file, or every "*.json" file of a directory (sorted by name, merged: their
// fingerprints must agree and a benchmark name may appear in one file only).
bench_run read_bench_run(const std::string& path);

// Converts a value in `unit` ("ns", "us", "ms", "s") to nanoseconds; bad_input otherwise.
double to_nanoseconds(double value, std::string_view unit, const std::string& where);

}  // namespace c2lab::regressions

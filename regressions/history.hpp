// The results history: every benchmark run c2lab measures, stored raw (one row per sample), so
// that baselines, noise levels and trends come from many runs instead of one stored file.
//
// A run is one recording: the Google Benchmark JSON of one file, or of every "*.json" of a
// directory (merged as read_bench_run merges them: one machine, each benchmark in one file).
// Its metadata comes from the JSON context (bench_json.hpp for the machine fingerprint):
//   commit, branch   "commit", "branch" (scripts/bench.sh and scripts/icount.sh write the
//                    commit; `c2lab history record --branch` sets the branch); "" when absent
//   dirty            "dirty" is "yes" or true
//   run_date         "date" (Google Benchmark's own: when the run started)
//   cpu_path         "cpu_path", else "path", else "ifma" (the arithmetic path a run took);
//                    "" when none is written
//   flags            every "flag.<name>" key (bench_main.cpp: --flag name=variant), as a JSON
//                    object text {"name": "variant", ...}; "{}" when none
//   dataset          "dataset" (--dataset NAME)
// and its kind: bench, icount (instruction counts, scripts/icount.sh), ab or prove.
//
// The schema is plain SQL (TEXT, INTEGER, BIGINT, DOUBLE PRECISION; ids assigned by the
// store, not by an auto-increment) so that a PostgreSQL store can share it:
//   schema_version(version)
//   runs(id, recorded_at, run_date, commit_id, branch, dirty, cpu_model, num_cpus, build_type,
//        compiler, valgrind, cpu_path, kind, flags, dataset, source, cpu_id)
//                                         cpu_id since version 2 ('' for older runs)
//   run_files(run_id, name, sha256)       one row per JSON file; sha256 unique: a file's
//                                         content is recorded once
//   samples(run_id, bench_index, benchmark, metric, repetition, value)
//                                         raw values as bench_json reads them (times in ns),
//                                         repetition = the index in the metric's samples
// Opening a database migrates it to the newest version this c2lab knows; a database at a
// newer version is refused (c2lab::error bad_input naming both versions). Recording is one
// transaction that excludes other writers: a run is stored whole or not at all, and several
// machines may record into one PostgreSQL server at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "regressions/bench_json.hpp"
#include "regressions/policy.hpp"

namespace c2lab::regressions {

// The newest schema version this c2lab writes and reads.
inline constexpr int history_schema_version = 2;

// The kinds of run the history knows.
inline constexpr const char* history_kinds[] = {"bench", "icount", "ab", "prove"};

struct history_file {
    std::string name;    // file name (or path) as read
    std::string sha256;  // hex digest of the file's bytes
    std::vector<std::string> benchmarks;  // read_history_record: the benchmarks it holds (not stored)
};

struct history_run {
    std::int64_t id = 0;      // assigned by the store
    std::string recorded_at;  // UTC, ISO 8601 ("2026-12-03T10:15:00Z"), set by the store
    std::string run_date;     // context "date"
    std::string commit;
    std::string branch;
    bool dirty = false;
    machine_fingerprint machine;  // its cpu_path: the arithmetic path the run took (stored as runs.cpu_path)
    std::string kind;          // one of history_kinds
    std::string flags = "{}";  // JSON object text
    std::string dataset;
    std::string source;        // the file or directory it was read from
    std::vector<history_file> files;
    std::size_t benchmark_count = 0;  // list_runs: benchmarks with samples in the run
};

// A run ready to record: metadata and samples.
struct history_record {
    history_run meta;
    bench_run run;
};

// One run's samples of one benchmark (every metric).
struct series_point {
    std::int64_t run_id = 0;
    std::map<std::string, std::vector<double>> metrics;  // metric -> values by repetition
};

class history_store {
public:
    virtual ~history_store() = default;

    // The schema version of the open database (after migration: history_schema_version).
    virtual int schema_version() const = 0;

    // Stores a run in one transaction and returns its id; on any failure nothing is stored
    // (c2lab::error io naming the database, the source and the reason).
    virtual std::int64_t record(const history_record& r) = 0;

    // Every run, oldest (lowest id) first, with its files and benchmark count.
    virtual std::vector<history_run> list_runs() const = 0;

    // The run holding a file with this content digest.
    virtual std::optional<std::int64_t> find_file(std::string_view sha256) const = 0;

    // Every benchmark name in the store, sorted.
    virtual std::vector<std::string> benchmark_names() const = 0;

    // The samples of one benchmark in every run that has it, by run id.
    virtual std::vector<series_point> series(std::string_view benchmark) const = 0;

    // One run's samples as a bench_run (benchmarks in their recorded order; machine from the
    // run's metadata). bad_input when there is no such run.
    virtual bench_run load_run(std::int64_t id) const = 0;
};

// Opens a history database and migrates it to history_schema_version: a PostgreSQL server for
// a "postgresql://..." URL (sql_db.hpp), else an SQLite file (created with its directory when
// missing). bad_input when it is not such a database or its schema is newer than this c2lab
// knows; io when it cannot be opened or reached.
std::unique_ptr<history_store> open_history(const std::string& db);

// $C2LAB_DB (a PostgreSQL URL shared by machines, or a path) when set and not empty, else
// $C2LAB_HISTORY, else results/history.sqlite.
std::string default_history_path();

// Hex SHA-256 of bytes (OpenSSL).
std::string sha256_hex(std::string_view bytes);

// Reads a file, or every "*.json" of a directory (sorted), parses all of it (bad_input on any
// malformed file: nothing is half-read) and returns the record: metadata from the first
// file's context, the machine and samples merged as read_bench_run merges them, the files'
// digests. kind "" picks icount when the context names valgrind, else bench; other kinds
// must be one of history_kinds. branch "" takes the context's "branch".
// A file may also be the output of `c2lab prove --json`: one proof becomes the benchmark
// "prove/<circuit>" (one sample: real_time = the report's total, a "<stage>_ms" counter per
// stage, as bench_prove writes them), a batch "prove_batch/<circuit>/jobs:<N>" (its wall time
// and proofs per minute) and ".../job" (one sample per job: its wall time and stages); the
// machine from its "context", the flags from "flags"; kind "" then picks prove.
history_record read_history_record(const std::string& path, const std::string& kind = "",
                                   const std::string& branch = "");

// read_history_record of texts already in memory: (name, text) per file, `source` naming them all.
history_record history_record_of_texts(const std::vector<std::pair<std::string, std::string>>& texts,
                                       const std::string& source, const std::string& kind = "",
                                       const std::string& branch = "");

// Whether text is `c2lab prove --json` output, and its conversion (bad_input naming the source
// and the field for anything malformed).
bool is_prove_json(std::string_view text);
bench_run parse_prove_json(std::string_view text, const std::string& source);

// Leaves out of r the files whose content the store already holds, with their benchmarks;
// returns them, each with the run that holds it. r is empty (no files, no benchmarks) when
// every file was recorded before.
std::vector<std::pair<history_file, std::int64_t>> drop_recorded_files(history_record& r, const history_store& store);

// The baseline of `current` from the history: for every benchmark of current, the samples of
// the last `last_n` runs (highest ids) that hold it, whose fingerprint matches current's
// (fingerprint_differences is empty: the machine for timings, the toolchain for instruction
// counts) and that are not in `exclude`, pooled per metric.
struct history_baseline {
    bench_run run;                         // machine: the newest contributing run's
    std::vector<std::int64_t> run_ids;     // contributing runs, ascending
    std::map<std::int64_t, std::size_t> benchmarks_per_run;  // how many benchmarks each gave
    std::size_t other_machine_runs = 0;    // runs left out for their fingerprint
    std::size_t excluded_runs = 0;         // runs left out by `exclude` (the current run itself)
    std::size_t not_ancestor_runs = 0;     // runs left out as not at an ancestor commit
};
// With `ancestor` given, a run whose commit is recorded and not an ancestor of the current
// one (ancestor(commit) false: another branch, or a later commit) is left out too. (The CLI
// asks git; a commit that clone does not know is kept.)
history_baseline baseline_from_history(const history_store& store, const bench_run& current, std::size_t last_n,
                                       const std::set<std::int64_t>& exclude = {},
                                       const std::function<bool(const std::string& commit)>& ancestor = {});

// Noise-aware margins from the history, after rustc-perf (docs/comparison-analysis.md): for
// each benchmark of `current`, the absolute relative changes between consecutive runs' medians
// of its rule's metric over the last `last_n` + 1 matching runs (the fingerprint as in
// baseline_from_history, `exclude` left out), and their upper fence Q3 + 3 x IQR: a change
// smaller than that is within what the series does from run to run. Series with fewer than
// `min_changes` changes get no threshold.
struct series_noise {
    std::string benchmark;
    std::string metric;
    std::size_t changes = 0;  // consecutive pairs measured
    double threshold = 0;     // the fence, as a fraction (0.07 = 7%)
};
std::vector<series_noise> noise_from_history(const history_store& store, const bench_run& current, const policy& pol,
                                             std::size_t last_n = 30, const std::set<std::int64_t>& exclude = {},
                                             std::size_t min_changes = 5);

// pol with each noisy series' margin raised to its threshold (an override matching the name
// exactly) where the threshold is above the rule's margin; series whose threshold is at least
// too_noisy are ignored instead and listed in *too_noisy_out. The widened ones in *widened.
policy with_noise_margins(policy pol, const std::vector<series_noise>& noise, double too_noisy = 0.25,
                          std::vector<series_noise>* widened = nullptr,
                          std::vector<series_noise>* too_noisy_out = nullptr);

}  // namespace c2lab::regressions

// The subcommands of c2lab, separated from the command-line parsing (main.cpp). Each returns
// the process exit code: 0 success, 1 a proof that does not verify; errors are thrown as
// c2lab::error and reported by main (exit 2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace c2lab::regressions {
struct gate_result;
}

namespace c2lab::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_invalid = 1;
inline constexpr int exit_regression = 1;  // `c2lab gate`: a regression; `c2lab ab --fail-on slower`: a slower variant
inline constexpr int exit_error = 2;

// The built-in test circuits the CLI knows (the PoRep circuit is chosen with --sector / --c1).
inline constexpr const char* circuit_hash_chain = "hash-chain";

struct circuit_args {
    std::string circuit = circuit_hash_chain;
    std::string steps;   // decimal, >= 1
    std::string sector;  // circuit-info: the PoRep circuit of this sector size instead
    // circuit-info: an explicit StackedDRG shape (porep::custom_config) when nodes is given.
    std::string nodes;
    std::string layers = "2";
    std::string challenges = "1";
    std::string tree = "8";           // base[-sub[-top]] arities of tree_c / tree_r_last
    std::string porep_id_byte = "0";  // the porep id is 32 copies of this byte
};

struct gen_args {
    std::string sector;
    std::string seed = "1";
    std::string out;
    // Sealing inputs; empty: derived from the sector size and seed.
    std::string prover_id;         // 64 hex digits
    std::string sector_id;         // decimal u64
    std::string ticket;            // 64 hex digits
    std::string interactive_seed;  // 64 hex digits (the C1's "seed")
};

// `c2lab parents`: the parent cache of a registered proof's graph.
struct parents_args {
    std::string sector;
    std::string api_version = "V1_1";
    std::string node;  // decimal: print this node's 14 parents
    bool digest = false;
};

// `c2lab inputs`: replica id and interactive challenges from the sealing inputs.
struct inputs_args {
    std::string sector;
    std::string api_version = "V1_1";
    std::string prover_id, sector_id, ticket, seed, comm_d;
};

struct setup_args {
    circuit_args circuit;
    std::string c1;  // the PoRep circuit of this C1 file instead of a test circuit
    std::string out;
    std::string seed = "0";
    bool force = false;
    bool no_pce = false;           // PoRep: skip the pre-compiled circuit
    double memory_budget_gib = 0;  // 0 = the machine's available memory
};

struct prove_args {
    circuit_args circuit;
    std::vector<std::string> c1;  // one file, or several for a batch
    unsigned count = 1;           // batch: prove the files this many times
    unsigned jobs = 1;            // batch: jobs in flight (witnesses held at once)
    double memory_budget_gib = 0; // batch: 0 = the machine's available memory
    std::string timeline;         // batch: timeline JSON path (and .svg beside it)
    std::string params;
    std::string x0;
    std::string out;
    std::string inputs_out;  // empty: <out>.inputs
    std::vector<std::string> flags;
    std::string backend;  // empty: the backend flag decides (default cpu)
    bool json = false;
    bool no_history = false;  // --json: do not record the run in the results history
    // --flag settings with --backend appended (it wins).
    std::vector<std::string> all_flags() const {
        auto f = flags;
        if (!backend.empty()) f.push_back("backend=" + backend);
        return f;
    }
    bool batch() const { return c1.size() > 1 || count > 1 || jobs > 1 || !timeline.empty(); }
};

struct verify_args {
    std::string c1;
    std::string params;
    std::string vk;  // a verifying-key file (<parameters>.vk) instead of the parameters
    std::string proof;
    std::string inputs_file;
    std::vector<std::string> inputs_hex;
};

// `c2lab export-vk`: the verifying key of a parameters file as a .vk file.
struct export_vk_args {
    std::string params;
    std::string c1;   // instead of params: the cached parameters of this C1 file's proof type
    std::string out;  // empty: <parameters>.vk
};

struct gate_args {
    std::string baseline;  // Google Benchmark JSON file, or a directory of them
    std::string current;
    std::string policy;    // empty: the built-in defaults (regressions/policy.hpp)
    std::string markdown;  // empty: stdout only
    std::string html;      // empty: no HTML report
    bool allow_other_machine = false;
    std::string db;        // --baseline history[:N]: the history database (empty: the default)
    std::size_t rows = 0;  // stdout: at most this many rows of the table (0: every row)
};

// `c2lab history record | import | list`.
struct history_args {
    std::string db;                    // empty: $C2LAB_HISTORY, else results/history.sqlite
    std::string from;                  // record: a Google Benchmark JSON file or a directory of them
    std::string kind;                  // record: bench, icount, ab, prove; empty: from the context
    std::string branch;                // record: empty: the context's "branch"
    std::string results = "results";   // import: the results directory
    std::string bench;                 // list: a regex of benchmark names
    std::string metric = "real_time";  // list --bench, changes: the metric whose medians are used
    std::string method = "otava";      // changes, report: otava or e-divisive
    std::size_t window = 50;           // changes (otava): runs per window
    std::size_t min_size = 3;          // changes (e-divisive): shortest segment
    double alpha = 0;                  // changes: significance of a split; 0: the method's default
    std::string out;                   // report: the HTML file
};

struct ab_args {
    std::string binary;     // a name in the benchmarks directory, or a path; empty: found by --filter
    std::string filter;     // --benchmark_filter
    std::vector<std::string> flags;       // "name=v1,v2", one per flag
    std::vector<std::string> allocators;  // glibc, jemalloc, mimalloc; empty: glibc
    std::size_t rounds = 10;
    std::size_t warmup = 1;  // discarded rounds first: the first process of a run starts cold
    double min_time = 0.1;
    std::string dataset;
    std::string bench_dir;  // empty: build/release/benchmarks, then <c2lab's build>/benchmarks
    std::string out;        // empty: results/ab/<UTC stamp>
    std::string metric = "real_time";
    std::string seed = "1";
    double alpha = 0.05;
    double margin = 0.02;
    std::string fail_on;    // "slower": exit 1 when a variant is slower than the baseline
    bool no_history = false;  // do not record the variants' samples in the results history
    bool json = false;
    std::vector<std::string> command_line;  // recorded in ab.json
};

// `c2lab bisect`: the first commit between good and bad that made a benchmark slower.
struct bisect_args {
    std::string good, bad;         // revisions, good an ancestor of bad
    std::string filter;            // --benchmark_filter of the benchmark to follow
    std::string binary;            // the benchmark binary's path in a built worktree
    std::string build_cmd = "scripts/build.sh release";  // run by bash in each commit's worktree
    std::vector<std::string> flags;  // engine flags passed to both binaries
    std::size_t rounds = 10;       // A/B rounds per step (doubled once when inconclusive)
    double min_time = 0.1;
    double margin = 0.02;
    std::string metric = "real_time";  // or cpu_time (less sensitive to a loaded machine's preemption)
    std::string work;              // worktrees and logs; empty: <repository>/build/bisect
    std::string find = "slower";   // slower: the first slower commit; faster: the first faster one
};

struct baseline_update_args {
    std::string from;              // results/runs/<stamp>
    std::string machine;           // empty: derived from the fingerprint
    std::string results = "results";
    bool path_only = false;  // `baseline path`: print the directory, copy nothing
};

// Decimal u64 (no sign, no prefix); throws c2lab::error(bad_input) naming `what`.
uint64_t parse_u64(const std::string& text, const std::string& what);

int run_circuit_info(const circuit_args& a);
int run_gen(const gen_args& a);  // porep_cmd.cpp
// Replaces the process with bash scripts/bench.sh <args> of the source tree (commands.cpp).
int run_bench(const std::vector<std::string>& args);
// porep_cmd.cpp: the PoRep forms, called by run_circuit_info / run_setup / ... when --sector or
// --c1 is given.
int run_porep_circuit_info(const std::string& sector);
int run_porep_shape_info(const circuit_args& a);  // circuit-info --nodes ...
int run_parents(const parents_args& a);           // porep_cmd.cpp
int run_inputs(const inputs_args& a);             // porep_cmd.cpp
int run_porep_setup(const setup_args& a);
int run_porep_verify(const verify_args& a);
int run_setup(const setup_args& a);
int run_prove(const prove_args& a);  // prove_cmd.cpp: the C2 job (pipeline/c2_job.hpp)
int run_verify(const verify_args& a);
int run_export_vk(const export_vk_args& a);
int run_porep_export_vk(const export_vk_args& a);  // porep_cmd.cpp: --c1
int run_flags();
int run_bisect(const bisect_args& a);  // bisect_cmd.cpp
int run_gate(const gate_args& a);                        // gate_cmd.cpp: 0 pass, 1 regression
int run_baseline_update(const baseline_update_args& a);  // gate_cmd.cpp
int run_ab(const ab_args& a);
int run_history_record(const history_args& a);  // history_cmd.cpp
int run_history_import(const history_args& a);
int run_history_list(const history_args& a);
int run_history_changes(const history_args& a);
int run_history_report(const history_args& a);
// gate_cmd.cpp: `c2lab gate --baseline history[:N]` (history_cmd.cpp).
int run_gate_history(const gate_args& a);                            // ab_cmd.cpp: 0, or 1 with --fail-on slower
// gate_cmd.cpp: head and the summary on stdout (at most a.rows rows of its table), and whole in the
// --markdown file (atomically).
void write_gate_summary(const gate_args& a, const std::string& head, const regressions::gate_result& result);

}  // namespace c2lab::cli

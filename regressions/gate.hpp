// The regression gate: a current benchmark run against a baseline run, benchmark by
// benchmark, under a policy (policy.hpp), with the statistics of stats.hpp.
//
//   1. The machine fingerprints (bench_json.hpp) must agree on cpu_model, num_cpus and
//      build_type (two instruction-count runs: on compiler, valgrind and build_type, whatever
//      the CPU); otherwise run_gate throws c2lab::error(bad_input) naming every field
//      that differs, unless gate_options::allow_other_machine (then the differences are
//      kept in the result and shown in the summary).
//   2. Benchmarks matching an "ignore" regex are skipped (and counted). Benchmarks in only
//      one of the runs are listed, not failed.
//   3. Each remaining benchmark is judged on its rule's metric. It is inconclusive without
//      a test when either side has fewer than min_repetitions samples ("too few
//      repetitions"), when the metric is missing on a side ("metric missing"), or when a
//      value is <= 0 ("non-positive values": the ratio of medians needs positive values).
//      Under a deterministic rule (policy.hpp), a benchmark whose samples are all equal on
//      each side (one sample each, typically: instruction counts) is judged by the exact
//      ratio alone instead (decide_exact; no test, no minimum of repetitions, not part of
//      the p-value adjustment); its row has exact = true. A deterministic rule whose
//      samples differ on a side goes through the statistical path below, as any rule.
//   4. The others get compare_samples (Mann-Whitney p, bootstrap CI of current / baseline);
//      their p-values are adjusted together (the policy's "adjustment") and each verdict is
//      decide(p_adjusted, ci, {its direction, alpha, margin}).
//   5. exit_status(): 1 when at least one benchmark regressed, else 0.
//   6. Stage tracing: a compared benchmark whose rows carry stage counters ("<stage>_ms", as
//      bench_prove and `c2lab prove --json` write them) has each stage compared too, as a
//      benchmark of its own (lower is better, the benchmark's alpha and margin, p-values
//      adjusted over that benchmark's stages; with one sample a side a stage is not judged). Stages that
//      regressed or improved are named with their ratio and the command that runs the stage's
//      own benchmark (stage_benchmark_command). Stage verdicts explain; they do not gate.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "regressions/bench_json.hpp"
#include "regressions/policy.hpp"
#include "regressions/stats.hpp"

namespace c2lab::regressions {

struct gate_options {
    bool allow_other_machine = false;
    std::size_t resamples = 2000;  // bootstrap
    double level = 0.95;           // bootstrap interval level
    uint64_t seed = 0;             // bootstrap seed (the result is deterministic)
};

struct gate_row {
    std::string name;
    metric_rule rule;         // the rule applied (defaults + overrides)
    bool tested = false;      // false: inconclusive without a test, see note
    std::string note;         // why not tested: "too few repetitions", "metric missing", ...
    bool exact = false;       // judged by the exact ratio (deterministic rule, equal samples)
    comparison cmp{};         // n_base / n_cur always set; the rest when tested (exact:
                              // the medians, and ci.ratio = ci.lo = ci.hi = the ratio)
    verdict result = verdict::inconclusive;

    std::string verdict_text() const;  // "regressed", "inconclusive (too few repetitions)", ...
};

// One stage of a benchmark with stage counters (step 6).
struct stage_row {
    std::string benchmark;  // e.g. "prove/porep/porep-2kib/backend:cpu/iterations:1/real_time"
    std::string stage;      // e.g. "msm_h" (the counter is msm_h_ms)
    bool tested = false;
    std::string note;  // why not tested ("one sample a side", "non-positive values")
    comparison cmp{};  // untested: the medians and ci.ratio only
    verdict result = verdict::inconclusive;
};

// The command that benchmarks a prover stage alone ("" for a stage without one, e.g.
// assemble): synthesize -> bench_synth, ntt -> bench_ntt's ntt/h, msm_h, msm_l, msm_a,
// msm_b_g1 -> bench_msm's G1 cases, msm_b_g2 -> its G2 cases, c1_decode, construct,
// load_params -> their own benchmarks.
std::string stage_benchmark_command(std::string_view stage);

struct gate_result {
    machine_fingerprint baseline_machine, current_machine;
    std::vector<std::string> machine_differences;  // non-empty only with allow_other_machine
    adjustment adjust = adjustment::holm;
    double level = 0.95;
    std::vector<gate_row> rows;                    // baseline order
    std::vector<std::string> only_baseline, only_current, ignored;
    std::vector<stage_row> stages;                 // step 6, per benchmark in row order

    std::size_t count(verdict v) const;
    int exit_status() const;  // 0 pass, 1 at least one regression
};

// The verdict of a deterministic metric from r = current / baseline alone: for
// lower_is_better, regressed when r > 1 + margin, improved when r < 1 - margin, else
// equivalent; mirrored for higher_is_better (regressed when r < 1 - margin, improved when
// r > 1 + margin). A margin of 0 flags every change. bad_input unless r is finite and > 0
// and the margin in [0, 1).
verdict decide_exact(double ratio, direction dir, double margin);

gate_result run_gate(const bench_run& baseline, const bench_run& current, const policy& p,
                     const gate_options& options = {});

// The summary: a heading with PASS / FAIL, the machine warning if any, a table (benchmark,
// metric, reps, baseline median, current median, ratio [CI], p (adjusted), verdict; a row
// judged by the exact ratio shows "ratio (exact)" and no p), the
// counts, and the lists of benchmarks in one run only and ignored. max_rows (0: every row): a
// table of at most that many rows (more only where there are more regressions and improvements),
// those first, then the largest changes, and a line saying how many of how many it shows; the
// lists of benchmarks in one run only or ignored cut at as many names.
std::string markdown_summary(const gate_result& result, std::size_t max_rows = 0);

}  // namespace c2lab::regressions

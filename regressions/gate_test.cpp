// The gate end to end on synthetic Google Benchmark JSON: samples from c2lab::rng with a
// controlled median and lognormal noise, written as the library writes them.
#include "regressions/gate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "regressions/bench_json.hpp"
#include "regressions/policy.hpp"

namespace c2lab::regressions {
namespace {

using nlohmann::json;

double uniform01(rng& gen) { return (static_cast<double>(gen.next() >> 11) + 0.5) * 0x1.0p-53; }
double standard_normal(rng& gen) {
    const double u1 = uniform01(gen), u2 = uniform01(gen);
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

struct bench_spec {
    std::string name;
    double center;              // median real_time, in `unit`
    std::string unit = "us";
    std::size_t reps = 10;
    double noise = 0.01;        // relative (lognormal sigma)
    std::string counter;        // optional counter name, value = counter_center * noise
    double counter_center = 0;
};

bench_spec spec(std::string name, double center, std::string unit, std::string counter = {}, double counter_center = 0) {
    bench_spec s;
    s.name = std::move(name);
    s.center = center;
    s.unit = std::move(unit);
    s.counter = std::move(counter);
    s.counter_center = counter_center;
    return s;
}

json context(const std::string& cpu = "Test CPU @ 3.0GHz", int cpus = 8, const std::string& build = "Release") {
    return {{"date", "2026-12-02T15:33:28+00:00"}, {"host_name", "vm"},   {"num_cpus", cpus},
            {"mhz_per_cpu", 3000},                 {"library_build_type", "debug"},
            {"build_type", build},                 {"commit", "abc123"}, {"compiler", "c++ 12.2.0"},
            {"cpu_model", cpu},                    {"dirty", "no"},      {"suite", "quick"}};
}

// A run as Google Benchmark writes it with --benchmark_repetitions: the iteration rows
// of a benchmark, then its aggregates (which the reader must skip).
json make_run(rng& gen, const std::vector<bench_spec>& specs, json ctx = context()) {
    json rows = json::array();
    for (const auto& s : specs) {
        for (std::size_t i = 0; i < s.reps; ++i) {
            const double t = s.center * std::exp(s.noise * standard_normal(gen));
            json row = {{"name", s.name},       {"family_index", 0},   {"per_family_instance_index", 0},
                        {"run_name", s.name},   {"run_type", "iteration"}, {"repetitions", s.reps},
                        {"repetition_index", i}, {"threads", 1},       {"iterations", 100},
                        {"real_time", t},       {"cpu_time", t * 0.99}, {"time_unit", s.unit}};
            if (!s.counter.empty()) row[s.counter] = s.counter_center * std::exp(s.noise * standard_normal(gen));
            rows.push_back(row);
        }
        rows.push_back({{"name", s.name + "_median"}, {"run_name", s.name}, {"run_type", "aggregate"},
                        {"aggregate_name", "median"}, {"real_time", 1e12}, {"cpu_time", 1e12}, {"time_unit", "ns"}});
    }
    return {{"context", ctx}, {"benchmarks", rows}};
}

bench_run parse(const json& j, const std::string& src) { return parse_bench_json(j.dump(), src); }

policy default_policy() { return parse_policy("{}", "default"); }

std::vector<bench_spec> suite() {
    return {spec("ff/fp_mul", 32.7, "ns"), spec("msm/g1/log_n:14", 141.8, "ms", "points/s", 115.5e3),
            spec("ntt/forward/log_n:16", 2.5, "ms"), spec("pairing/pairing", 686.9, "us")};
}

// Expects c2lab::error(bad_input) whose message contains every fragment.
template <class F>
void expect_bad_input(F&& f, std::initializer_list<const char*> fragments) {
    try {
        f();
        FAIL() << "no error";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        for (const char* frag : fragments) EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << e.what();
    }
}

TEST(BenchJson, GroupsRepetitionsConvertsUnitsAndReadsFingerprint) {
    rng gen(1);
    const bench_run r = parse(make_run(gen, suite()), "run.json");
    ASSERT_EQ(r.benchmarks.size(), 4u);
    EXPECT_EQ(r.benchmarks[0].name, "ff/fp_mul");
    EXPECT_EQ(r.benchmarks[1].repetitions, 10u);  // aggregates skipped
    const auto& msm = *r.find("msm/g1/log_n:14");
    ASSERT_EQ(msm.metrics.at("real_time").size(), 10u);
    EXPECT_NEAR(median(msm.metrics.at("real_time")), 141.8e6, 141.8e6 * 0.02);  // ms -> ns
    EXPECT_EQ(msm.metrics.at("points/s").size(), 10u);
    EXPECT_EQ(msm.metrics.count("iterations"), 0u);
    EXPECT_EQ(msm.metrics.count("repetition_index"), 0u);
    EXPECT_NEAR(median(r.find("pairing/pairing")->metrics.at("cpu_time")), 686.9e3 * 0.99, 686.9e3 * 0.02);
    EXPECT_EQ(r.machine.cpu_model, "Test CPU @ 3.0GHz");
    EXPECT_EQ(r.machine.num_cpus, 8);
    EXPECT_EQ(r.machine.build_type, "Release");
    EXPECT_EQ(r.machine.compiler, "c++ 12.2.0");
}

TEST(BenchJson, ModelNameFallback) {
    json ctx = context();
    ctx.erase("cpu_model");
    ctx["model name"] = "Other CPU";
    rng gen(2);
    EXPECT_EQ(parse(make_run(gen, suite(), ctx), "x").machine.cpu_model, "Other CPU");
}

TEST(BenchJson, MalformedInputNamesFileAndField) {
    expect_bad_input([] { parse_bench_json("{\"benchmarks\": [", "broken.json"); }, {"broken.json", "malformed JSON"});
    expect_bad_input([] { parse_bench_json("{\"context\": {}}", "nobench.json"); }, {"nobench.json", "'benchmarks'"});
    expect_bad_input([] { parse_bench_json("{\"benchmarks\": 3}", "b.json"); }, {"b.json", "'benchmarks'"});
    expect_bad_input(
        [] {
            parse_bench_json(R"({"benchmarks": [{"name": "a", "run_type": "iteration", "real_time": "fast",
                                 "cpu_time": 1, "time_unit": "ns"}]})",
                             "t.json");
        },
        {"t.json", "benchmarks[0]", "'real_time'"});
    expect_bad_input(
        [] {
            parse_bench_json(R"({"benchmarks": [{"name": "a", "real_time": 1, "cpu_time": 1, "time_unit": "min"}]})",
                             "u.json");
        },
        {"u.json", "time_unit", "min"});
    expect_bad_input([] { parse_bench_json(R"({"benchmarks": [{"name": "a", "real_time": 1}]})", "c.json"); },
                     {"c.json", "'cpu_time'"});
}

// A number out of double's range makes nlohmann throw out_of_range, not parse_error; it escaped
// as a non-c2lab exception (found by policy_fuzz in parse_policy, which had the same catch).
TEST(BenchJson, NumberOutOfRangeIsMalformedJson) {
    expect_bad_input([] { parse_bench_json(R"({"benchmarks": [], "x": 1e400})", "big.json"); },
                     {"big.json", "malformed JSON", "1e400"});
}

// Google Benchmark writes the cv of a counter that is 0 in every repetition as a bare NaN (not
// JSON; bench_params' cold_resident_pct with --benchmark_repetitions=5 did). Non-finite tokens
// outside strings read as null: aggregates are skipped, a null counter is no metric; a "NaN"
// inside a string is left alone.
TEST(BenchJson, NonFiniteTokensOfGoogleBenchmarkAreRead) {
    const std::string text = R"({"context": {"note": "NaN inf"}, "benchmarks": [
      {"name": "a", "run_name": "a", "run_type": "iteration", "real_time": 1.0, "cpu_time": 1.0,
       "time_unit": "ns", "zero": 0.0, "bad": -nan},
      {"name": "a_cv", "run_name": "a", "run_type": "aggregate", "aggregate_name": "cv",
       "real_time": NaN, "cpu_time": inf, "time_unit": "ns", "zero": NaN}]})";
    const bench_run run = parse_bench_json(text, "nan.json");
    ASSERT_EQ(run.benchmarks.size(), 1u);
    EXPECT_EQ(run.benchmarks[0].repetitions, 1u);
    EXPECT_TRUE(run.benchmarks[0].metrics.count("zero"));
    EXPECT_FALSE(run.benchmarks[0].metrics.count("bad"));
    expect_bad_input([] { parse_bench_json(R"({"benchmarks": [], "x": nonsense})", "x.json"); },
                     {"x.json", "malformed JSON"});
}

TEST(Gate, UnchangedRunPasses) {
    rng gen(3);
    const bench_run base = parse(make_run(gen, suite()), "base.json");
    const bench_run cur = parse(make_run(gen, suite()), "cur.json");
    const gate_result g = run_gate(base, cur, default_policy());
    ASSERT_EQ(g.rows.size(), 4u);
    for (const auto& r : g.rows) {
        EXPECT_TRUE(r.result == verdict::equivalent || r.result == verdict::inconclusive) << r.name;
        EXPECT_TRUE(r.tested);
    }
    EXPECT_EQ(g.exit_status(), 0);
    const std::string md = markdown_summary(g);
    EXPECT_NE(md.find("PASS"), std::string::npos);
    EXPECT_NE(md.find("| ff/fp_mul |"), std::string::npos);
}

TEST(Gate, TwentyPercentSlowerIsRegressed) {
    rng gen(4);
    auto specs = suite();
    const bench_run base = parse(make_run(gen, specs), "base.json");
    specs[2].center *= 1.20;  // ntt 20% slower, 10 reps, 1% noise
    const bench_run cur = parse(make_run(gen, specs), "cur.json");
    const gate_result g = run_gate(base, cur, default_policy());
    for (const auto& r : g.rows) {
        EXPECT_FALSE(r.exact) << r.name;
        if (r.name == "ntt/forward/log_n:16") {
            EXPECT_EQ(r.result, verdict::regressed);
            EXPECT_NEAR(r.cmp.ci.ratio, 1.20, 0.02);
            EXPECT_LT(r.cmp.p_adjusted, 0.05);
            EXPECT_GE(r.cmp.p_adjusted, r.cmp.p);  // Holm never lowers p
        } else {
            EXPECT_NE(r.result, verdict::regressed) << r.name;
        }
    }
    EXPECT_EQ(g.count(verdict::regressed), 1u);
    EXPECT_EQ(g.exit_status(), 1);
    const std::string md = markdown_summary(g);
    EXPECT_NE(md.find("FAIL (1 regression)"), std::string::npos) << md;
    EXPECT_NE(md.find("| ntt/forward/log_n:16 | real_time | 10/10 |"), std::string::npos) << md;
    EXPECT_NE(md.find("**regressed**"), std::string::npos) << md;
    EXPECT_NE(md.find("- ntt/forward/log_n:16: real_time ratio 1.2"), std::string::npos) << md;
}

TEST(Gate, SummaryOfAtMostMaxRowsShowsJudgedRowsThenTheLargestChanges) {
    rng gen(11);
    auto one = [](std::string name, double center) {
        bench_spec s = spec(std::move(name), center, "ms");
        s.reps = 1;
        s.noise = 0;  // one sample a side: the ratio of the two values, exactly
        return s;
    };
    std::vector<bench_spec> specs = {spec("r/slow", 10, "ms"), one("x/small", 100), one("x/big", 100), one("x/mid", 100),
                                     one("x/none", 100)};
    const bench_run base = parse(make_run(gen, specs), "base.json");
    specs[0].center *= 1.20;
    specs[1].center *= 1.01;
    specs[2].center *= 1.50;
    specs[3].center *= 0.90;
    const gate_result g = run_gate(base, parse(make_run(gen, specs), "cur.json"), default_policy());
    ASSERT_EQ(g.count(verdict::regressed), 1u);
    auto row_at = [](const std::string& md, const std::string& name) { return md.find("| " + name + " |"); };

    const std::string all = markdown_summary(g);  // 0: every row, as compared, no note
    for (const char* n : {"r/slow", "x/small", "x/big", "x/mid", "x/none"}) EXPECT_NE(row_at(all, n), std::string::npos) << n;
    EXPECT_EQ(all.find("rows shown"), std::string::npos);
    EXPECT_EQ(markdown_summary(g, 5), all);  // as many as there are: the same

    const std::string three = markdown_summary(g, 3);
    const auto slow = row_at(three, "r/slow"), big = row_at(three, "x/big"), mid = row_at(three, "x/mid");
    ASSERT_NE(slow, std::string::npos) << three;
    ASSERT_NE(big, std::string::npos) << three;
    ASSERT_NE(mid, std::string::npos) << three;
    EXPECT_LT(slow, big);  // the regression first, then by |log ratio|: 1.5 before 0.9
    EXPECT_LT(big, mid);
    EXPECT_EQ(row_at(three, "x/small"), std::string::npos) << three;
    EXPECT_EQ(row_at(three, "x/none"), std::string::npos) << three;
    EXPECT_NE(three.find("3 of 5 rows shown"), std::string::npos) << three;
    EXPECT_NE(three.find("regressed: 1, improved: 0"), std::string::npos) << three;  // the counts cover every row

    // Fewer rows than judged benchmarks: the judged ones all the same.
    const std::string just_one = markdown_summary(g, 1);
    EXPECT_NE(row_at(just_one, "r/slow"), std::string::npos);
    EXPECT_EQ(row_at(just_one, "x/big"), std::string::npos);
    EXPECT_NE(just_one.find("1 of 5 rows shown"), std::string::npos) << just_one;

    // The list of benchmarks in one run only, cut at as many names.
    specs.push_back(one("y/extra1", 1));
    specs.push_back(one("y/extra2", 1));
    const gate_result more = run_gate(base, parse(make_run(gen, specs), "cur.json"), default_policy());
    ASSERT_EQ(more.only_current.size(), 2u);
    const std::string cut = markdown_summary(more, 1);
    EXPECT_NE(cut.find("- y/extra1\n- ... and 1 more\n"), std::string::npos) << cut;
    EXPECT_EQ(cut.find("- y/extra2"), std::string::npos) << cut;
    EXPECT_NE(markdown_summary(more).find("- y/extra2"), std::string::npos);
}

TEST(Gate, FasterRunImproves) {
    rng gen(5);
    auto specs = suite();
    const bench_run base = parse(make_run(gen, specs), "base.json");
    specs[0].center *= 0.8;
    const gate_result g = run_gate(base, parse(make_run(gen, specs), "cur.json"), default_policy());
    EXPECT_EQ(g.rows[0].result, verdict::improved);
    EXPECT_EQ(g.exit_status(), 0);
}

TEST(Gate, HigherIsBetterCounterFlipsDirection) {
    rng gen(6);
    auto specs = suite();
    const bench_run base = parse(make_run(gen, specs), "base.json");
    specs[1].counter_center *= 0.8;  // throughput down 20%: a regression
    const bench_run worse = parse(make_run(gen, specs), "worse.json");
    specs[1].counter_center /= 0.8 * 0.8;  // throughput up 25%: an improvement
    const bench_run better = parse(make_run(gen, specs), "better.json");

    const policy p = parse_policy(
        R"({"overrides": [{"match": "msm/.*", "metric": "points/s", "direction": "higher_is_better"}]})", "p.json");
    EXPECT_EQ(p.rule_for("msm/g1/log_n:14").dir, direction::higher_is_better);

    const gate_result gw = run_gate(base, worse, p);
    EXPECT_EQ(gw.rows[1].rule.metric, "points/s");
    EXPECT_EQ(gw.rows[1].result, verdict::regressed);
    EXPECT_LT(gw.rows[1].cmp.ci.ratio, 1.0);
    EXPECT_EQ(gw.exit_status(), 1);
    EXPECT_NE(markdown_summary(gw).find("points/s (higher is better)"), std::string::npos);

    const gate_result gb = run_gate(base, better, p);
    EXPECT_EQ(gb.rows[1].result, verdict::improved);
    EXPECT_EQ(gb.exit_status(), 0);

    // The same drop judged as lower_is_better would be an improvement.
    const policy wrong = parse_policy(R"({"overrides": [{"match": "msm/.*", "metric": "points/s"}]})", "w.json");
    EXPECT_EQ(run_gate(base, worse, wrong).rows[1].result, verdict::improved);
}

TEST(Gate, PolicyOverridesByRegex) {
    const policy p = parse_policy(R"({
        "defaults": {"metric": "real_time", "margin": 0.05, "alpha": 0.01, "adjustment": "bh", "min_repetitions": 3},
        "overrides": [{"match": "ff/.*", "metric": "cpu_time", "margin": 0.03},
                      {"match": "ff/fp_.*", "min_repetitions": 8},
                      {"match": "ff", "margin": 0.5}]})",
                                  "p.json");
    EXPECT_EQ(p.adjust, adjustment::benjamini_hochberg);
    const metric_rule ff = p.rule_for("ff/fp_mul");
    EXPECT_EQ(ff.metric, "cpu_time");
    EXPECT_DOUBLE_EQ(ff.margin, 0.03);  // "ff" must match the whole name: not applied
    EXPECT_EQ(ff.min_repetitions, 8u);
    EXPECT_DOUBLE_EQ(ff.alpha, 0.01);
    const metric_rule other = p.rule_for("pairing/pairing");
    EXPECT_EQ(other.metric, "real_time");
    EXPECT_DOUBLE_EQ(other.margin, 0.05);
    EXPECT_EQ(other.min_repetitions, 3u);

    // A 4% slowdown: beyond ff's 3% margin (regressed, judged on cpu_time), within the 5%
    // default margin elsewhere (not regressed).
    rng gen(7);
    auto specs = suite();
    for (auto& s : specs) s.noise = 0.002;
    const bench_run base = parse(make_run(gen, specs), "base.json");
    for (auto& s : specs) s.center *= 1.04;
    const gate_result g = run_gate(base, parse(make_run(gen, specs), "cur.json"), p);
    EXPECT_EQ(g.rows[0].rule.metric, "cpu_time");
    EXPECT_EQ(g.rows[0].result, verdict::regressed);
    for (std::size_t i = 1; i < g.rows.size(); ++i) EXPECT_NE(g.rows[i].result, verdict::regressed) << g.rows[i].name;
}

TEST(Gate, IgnoredAndOneSidedBenchmarksAreListedNotJudged) {
    rng gen(8);
    auto specs = suite();
    const bench_run base = parse(make_run(gen, specs), "base.json");
    specs[3].center *= 2;  // pairing much slower, but ignored
    specs.erase(specs.begin());                      // ff/fp_mul only in baseline
    specs.push_back(spec("r1cs/synthesize", 5, "ms"));   // only in current
    const bench_run cur = parse(make_run(gen, specs), "cur.json");
    const policy p = parse_policy(R"({"ignore": ["pairing/.*"]})", "p.json");
    const gate_result g = run_gate(base, cur, p);
    ASSERT_EQ(g.rows.size(), 2u);
    EXPECT_EQ(g.ignored, std::vector<std::string>{"pairing/pairing"});
    EXPECT_EQ(g.only_baseline, std::vector<std::string>{"ff/fp_mul"});
    EXPECT_EQ(g.only_current, std::vector<std::string>{"r1cs/synthesize"});
    EXPECT_EQ(g.exit_status(), 0);
    const std::string md = markdown_summary(g);
    EXPECT_NE(md.find("Ignored by the policy:\n- pairing/pairing"), std::string::npos) << md;
    EXPECT_NE(md.find("Only in the baseline (not judged):\n- ff/fp_mul"), std::string::npos) << md;
    EXPECT_NE(md.find("Only in the current run (not judged):\n- r1cs/synthesize"), std::string::npos) << md;
}

TEST(Gate, DifferentMachineRefusedUnlessAllowed) {
    rng gen(9);
    const bench_run base = parse(make_run(gen, suite()), "base.json");
    const bench_run cur = parse(make_run(gen, suite(), context("Another CPU")), "cur.json");
    expect_bad_input([&] { run_gate(base, cur, default_policy()); },
                     {"cpu_model", "Test CPU @ 3.0GHz", "Another CPU", "--allow-other-machine"});
    const bench_run cores = parse(make_run(gen, suite(), context("Test CPU @ 3.0GHz", 4)), "c.json");
    expect_bad_input([&] { run_gate(base, cores, default_policy()); }, {"num_cpus"});
    const bench_run debug = parse(make_run(gen, suite(), context("Test CPU @ 3.0GHz", 8, "Debug")), "d.json");
    expect_bad_input([&] { run_gate(base, debug, default_policy()); }, {"build_type"});

    gate_options o;
    o.allow_other_machine = true;
    const gate_result g = run_gate(base, cur, default_policy(), o);
    ASSERT_EQ(g.machine_differences.size(), 1u);
    EXPECT_NE(markdown_summary(g).find("different machines"), std::string::npos);
    EXPECT_EQ(g.exit_status(), 0);
}

TEST(Gate, TooFewRepetitionsIsInconclusive) {
    rng gen(10);
    auto specs = suite();
    specs[0].reps = 3;
    const bench_run base = parse(make_run(gen, specs), "base.json");
    specs[0].center *= 1.5;  // a big slowdown, but only 3 repetitions
    const gate_result g = run_gate(base, parse(make_run(gen, specs), "cur.json"), default_policy());
    EXPECT_FALSE(g.rows[0].tested);
    EXPECT_EQ(g.rows[0].result, verdict::inconclusive);
    EXPECT_EQ(g.rows[0].verdict_text(), "inconclusive (too few repetitions)");
    EXPECT_EQ(g.exit_status(), 0);
    EXPECT_NE(markdown_summary(g).find("inconclusive (too few repetitions)"), std::string::npos);
}

TEST(Gate, MissingMetricIsInconclusive) {
    rng gen(11);
    const bench_run base = parse(make_run(gen, suite()), "base.json");
    const bench_run cur = parse(make_run(gen, suite()), "cur.json");
    const policy p = parse_policy(R"({"overrides": [{"match": "ff/.*", "metric": "points/s"}]})", "p.json");
    const gate_result g = run_gate(base, cur, p);
    EXPECT_EQ(g.rows[0].verdict_text(), "inconclusive (metric 'points/s' missing)");
}

// ---------------------------------------------------------------------------------------
// Deterministic metrics (instruction counts): one sample a side, judged by the ratio alone.

// A run as scripts/icount.sh writes it: one iteration row per benchmark, with the
// "instructions" counter, the wall time of the valgrind run, and a string field.
json make_icount_run(const std::vector<std::pair<std::string, double>>& counts, json ctx = context()) {
    ctx["mode"] = "instructions";
    json rows = json::array();
    for (const auto& [name, ir] : counts)
        rows.push_back({{"name", name},          {"run_name", name},    {"run_type", "iteration"},
                        {"repetitions", 1},      {"repetition_index", 0}, {"threads", 1},
                        {"iterations", 1},       {"real_time", 1234.5}, {"cpu_time", 1200.25},
                        {"time_unit", "ms"},     {"instructions", ir},  {"checksum", "00ff"}});
    return {{"context", ctx}, {"benchmarks", rows}};
}

const char* icount_policy_text = R"({"defaults": {"metric": "instructions", "deterministic": true, "margin": 0.01}})";

std::vector<std::pair<std::string, double>> icount_suite() {
    return {{"icount/ff/fr_mul", 36638306},
            {"icount/msm/g1", 1476100811},
            {"icount/synth", 12197453338.0},
            {"icount/c1_decode", 6270771}};
}

json icount_context(const std::string& cpu, const std::string& compiler = "c++ 12.2.0",
                    const std::string& valgrind = "valgrind-3.19.0") {
    json ctx = context(cpu, 2);
    ctx["compiler"] = compiler;
    ctx["valgrind"] = valgrind;
    return ctx;
}

// Instruction counts depend on the toolchain, not on the CPU: counts from another CPU model
// with the same compiler and valgrind are judged (a 1% regression fails, the same counts pass),
// counts from another toolchain are refused by name, and timed runs still match by machine.
TEST(Deterministic, CountsMatchByToolchainNotByCpu) {
    const policy pol = parse_policy(icount_policy_text, "icount.json");
    auto counts = icount_suite();
    const bench_run base = parse(make_icount_run(counts, icount_context("Intel(R) Xeon(R) Processor")), "base.json");
    const bench_run same = parse(make_icount_run(counts, icount_context("AMD EPYC")), "amd.json");
    EXPECT_TRUE(fingerprint_differences(base.machine, same.machine).empty());
    EXPECT_EQ(run_gate(base, same, pol).exit_status(), 0);
    counts[1].second *= 1.011;  // +1.1% instructions in one workload
    const bench_run slower = parse(make_icount_run(counts, icount_context("AMD EPYC")), "amd-slower.json");
    const gate_result g = run_gate(base, slower, pol);
    EXPECT_EQ(g.exit_status(), 1);
    EXPECT_EQ(g.rows[1].result, verdict::regressed) << g.rows[1].name;

    const bench_run other_gcc =
        parse(make_icount_run(icount_suite(), icount_context("AMD EPYC", "c++ 13.1.0")), "gcc13.json");
    expect_bad_input([&] { run_gate(base, other_gcc, pol); }, {"compiler", "c++ 12.2.0", "c++ 13.1.0"});
    const bench_run other_valgrind =
        parse(make_icount_run(icount_suite(), icount_context("Intel(R) Xeon(R) Processor", "c++ 12.2.0", "valgrind-3.22.0")),
              "vg.json");
    expect_bad_input([&] { run_gate(base, other_valgrind, pol); }, {"valgrind", "valgrind-3.22.0"});
    // A count against a timed run is never judged by toolchain.
    rng gen(21);
    const bench_run timed = parse(make_run(gen, suite(), context("AMD EPYC", 2)), "timed.json");
    expect_bad_input([&] { run_gate(timed, same, pol); }, {"kind", "timings", "instruction counts"});
}

TEST(Deterministic, BaselineNamesAreToolchainsForCountsAndMachinesForTimes) {
    const bench_run counts = parse(make_icount_run(icount_suite(), icount_context("AMD EPYC")), "c.json");
    EXPECT_EQ(baseline_name(counts.machine), "toolchain-c-12-2-0-valgrind-3-19-0-release");
    rng gen(22);
    const bench_run timed = parse(make_run(gen, suite(), context("Intel(R) Xeon(R) Processor", 2)), "t.json");
    EXPECT_EQ(baseline_name(timed.machine), "intel-r-xeon-r-processor-2cpu-release");
    EXPECT_EQ(sanitize_machine_name("--AMD EPYC 7B13 (x2)--"), "amd-epyc-7b13-x2");
    machine_fingerprint none;
    EXPECT_EQ(baseline_name(none), "");
    none.valgrind = "valgrind-3.19.0";  // a count without a compiler cannot be keyed
    EXPECT_EQ(baseline_name(none), "");
    // A run that records its cpu_id is named by it too (the older name on request).
    json ctx = context("AMD EPYC", 2);
    ctx["cpu_id"] = "family 25 model 17";
    const bench_run zen4 = parse(make_run(gen, suite(), ctx), "z.json");
    EXPECT_EQ(zen4.machine.cpu_id, "family 25 model 17");
    EXPECT_EQ(baseline_name(zen4.machine), "amd-epyc-family-25-model-17-2cpu-release");
    EXPECT_EQ(baseline_name(zen4.machine, false), "amd-epyc-2cpu-release");
    const bench_run counts_with_id = parse(make_icount_run(icount_suite(), [] {
        json c = icount_context("AMD EPYC");
        c["cpu_id"] = "family 23 model 1";
        return c;
    }()), "ci.json");
    EXPECT_EQ(baseline_name(counts_with_id.machine), "toolchain-c-12-2-0-valgrind-3-19-0-release");
}

// One model name, two CPUs: "AMD EPYC" is what a Zen 1 and a Zen 4 virtual machine both show. Runs
// that record their cpu_id (family and model) or their arithmetic path are compared only with
// runs of the same one; a run that records neither (a baseline stored before) still compares.
TEST(Deterministic, CpuIdAndPathSeparateMachinesOfOneModelName) {
    rng gen(23);
    auto with = [](const char* id, const char* path) {
        json c = context("AMD EPYC", 2);
        if (*id) c["cpu_id"] = id;
        if (*path) c["cpu_path"] = path;
        return c;
    };
    const auto specs = suite();
    const bench_run zen4 = parse(make_run(gen, specs, with("family 25 model 17", "avx512-ifma")), "zen4.json");
    const bench_run zen1 = parse(make_run(gen, specs, with("family 23 model 1", "adx")), "zen1.json");
    const bench_run zen4_adx = parse(make_run(gen, specs, with("family 25 model 17", "adx")), "zen4-adx.json");
    const bench_run older = parse(make_run(gen, specs, with("", "")), "older.json");
    const bench_run zen4_again = parse(make_run(gen, specs, with("family 25 model 17", "avx512-ifma")), "again.json");
    EXPECT_EQ(zen4.machine.cpu_path, "avx512-ifma");
    expect_bad_input([&] { run_gate(zen4, zen1, default_policy()); }, {"cpu_id", "family 25 model 17", "family 23 model 1"});
    expect_bad_input([&] { run_gate(zen4, zen4_adx, default_policy()); }, {"cpu_path", "avx512-ifma", "adx"});
    EXPECT_TRUE(fingerprint_differences(older.machine, zen1.machine).empty());
    EXPECT_TRUE(fingerprint_differences(zen4.machine, older.machine).empty());
    EXPECT_TRUE(fingerprint_differences(zen4.machine, zen4_again.machine).empty());
    EXPECT_NO_THROW(run_gate(zen4, zen4_again, default_policy()));
}

TEST(Deterministic, DecideExactIsTheRatioAgainstTheMargin) {
    using enum verdict;
    const auto lower = direction::lower_is_better, higher = direction::higher_is_better;
    EXPECT_EQ(decide_exact(1.02, lower, 0.01), regressed);
    EXPECT_EQ(decide_exact(0.98, lower, 0.01), improved);
    EXPECT_EQ(decide_exact(1.005, lower, 0.01), equivalent);
    EXPECT_EQ(decide_exact(0.995, lower, 0.01), equivalent);
    EXPECT_EQ(decide_exact(1.0, lower, 0.01), equivalent);
    EXPECT_EQ(decide_exact(1.0, lower, 0.0), equivalent);
    EXPECT_EQ(decide_exact(1.000001, lower, 0.0), regressed);  // margin 0: every change counts
    EXPECT_EQ(decide_exact(0.999999, lower, 0.0), improved);
    EXPECT_EQ(decide_exact(1.02, higher, 0.01), improved);
    EXPECT_EQ(decide_exact(0.98, higher, 0.01), regressed);
    EXPECT_EQ(decide_exact(1.005, higher, 0.01), equivalent);
    expect_bad_input([] { decide_exact(0, direction::lower_is_better, 0.01); }, {"ratio"});
    expect_bad_input([] { decide_exact(std::nan(""), direction::lower_is_better, 0.01); }, {"ratio"});
    expect_bad_input([] { decide_exact(1, direction::lower_is_better, 1.5); }, {"margin"});
}

TEST(Deterministic, PolicyKeyInDefaultsAndOverrides) {
    EXPECT_FALSE(default_policy().defaults.deterministic);
    const policy p = parse_policy(R"({"defaults": {"deterministic": true},
        "overrides": [{"match": "icount/ff/.*", "deterministic": false}, {"match": "icount/.*", "margin": 0.02}]})",
                                  "p.json");
    EXPECT_TRUE(p.defaults.deterministic);
    EXPECT_FALSE(p.rule_for("icount/ff/fr_mul").deterministic);
    EXPECT_TRUE(p.rule_for("icount/msm/g1").deterministic);  // an override without the key keeps it
    EXPECT_DOUBLE_EQ(p.rule_for("icount/msm/g1").margin, 0.02);
    expect_bad_input([] { parse_policy(R"({"defaults": {"deterministic": "yes"}})", "p.json"); },
                     {"p.json", "defaults.deterministic", "true or false"});
    expect_bad_input([] { parse_policy(R"({"overrides": [{"match": "a", "deterministic": 1}]})", "p.json"); },
                     {"overrides[0].deterministic"});
}

TEST(Deterministic, OneSampleEachSideIsJudgedByTheRatio) {
    auto counts = icount_suite();
    const bench_run base = parse(make_icount_run(counts), "base.json");
    counts[0].second *= 1.02;   // +2%: regressed
    counts[1].second *= 0.97;   // -3%: improved
    counts[2].second *= 1.005;  // +0.5%: within the margin
    const bench_run cur = parse(make_icount_run(counts), "cur.json");  // c1_decode unchanged
    const gate_result g = run_gate(base, cur, parse_policy(icount_policy_text, "icount.json"));
    ASSERT_EQ(g.rows.size(), 4u);
    for (const auto& r : g.rows) {
        EXPECT_TRUE(r.exact) << r.name;
        EXPECT_FALSE(r.tested) << r.name;  // no test, and no part in the p-value adjustment
        EXPECT_EQ(r.rule.metric, "instructions");
        EXPECT_EQ(r.cmp.n_base, 1u);
        EXPECT_EQ(r.cmp.n_cur, 1u);
        EXPECT_DOUBLE_EQ(r.cmp.ci.lo, r.cmp.ci.ratio);
        EXPECT_DOUBLE_EQ(r.cmp.ci.hi, r.cmp.ci.ratio);
    }
    EXPECT_EQ(g.rows[0].result, verdict::regressed);
    EXPECT_NEAR(g.rows[0].cmp.ci.ratio, 1.02, 1e-12);
    EXPECT_DOUBLE_EQ(g.rows[0].cmp.median_base, 36638306);
    EXPECT_EQ(g.rows[1].result, verdict::improved);
    EXPECT_EQ(g.rows[2].result, verdict::equivalent);
    EXPECT_EQ(g.rows[3].result, verdict::equivalent);
    EXPECT_DOUBLE_EQ(g.rows[3].cmp.ci.ratio, 1.0);
    EXPECT_EQ(g.rows[0].verdict_text(), "regressed");
    EXPECT_EQ(g.exit_status(), 1);
    const std::string md = markdown_summary(g);
    EXPECT_NE(md.find("FAIL (1 regression)"), std::string::npos) << md;
    EXPECT_NE(md.find("| icount/ff/fr_mul | instructions | 1/1 | 36.64M | 37.37M | 1.0200 (exact) | - | **regressed** |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("- icount/ff/fr_mul: instructions ratio 1.0200 (exact)"), std::string::npos) << md;
    EXPECT_NE(md.find("4 compared, 4 of them by the exact ratio"), std::string::npos) << md;

    // Unchanged counts pass.
    const gate_result same = run_gate(base, parse(make_icount_run(icount_suite()), "same.json"),
                                      parse_policy(icount_policy_text, "icount.json"));
    for (const auto& r : same.rows) EXPECT_EQ(r.result, verdict::equivalent) << r.name;
    EXPECT_EQ(same.exit_status(), 0);
    EXPECT_NE(markdown_summary(same).find("PASS"), std::string::npos);
}

TEST(Deterministic, HigherIsBetterFlipsTheRatio) {
    const bench_run base = parse(make_icount_run({{"x", 1000}, {"y", 1000}}), "base.json");
    const bench_run cur = parse(make_icount_run({{"x", 980}, {"y", 1020}}), "cur.json");
    const policy p = parse_policy(
        R"({"defaults": {"metric": "instructions", "deterministic": true, "margin": 0.01,
                          "direction": "higher_is_better"}})",
        "p.json");
    const gate_result g = run_gate(base, cur, p);
    EXPECT_EQ(g.rows[0].result, verdict::regressed);
    EXPECT_EQ(g.rows[1].result, verdict::improved);
    EXPECT_EQ(g.exit_status(), 1);
}

TEST(Deterministic, WithoutTheKeyOneSampleStaysInconclusive) {
    auto counts = icount_suite();
    const bench_run base = parse(make_icount_run(counts), "base.json");
    for (auto& c : counts) c.second *= 1.5;
    const bench_run cur = parse(make_icount_run(counts), "cur.json");
    const gate_result g = run_gate(base, cur, parse_policy(R"({"defaults": {"metric": "instructions"}})", "p.json"));
    for (const auto& r : g.rows) {
        EXPECT_FALSE(r.exact);
        EXPECT_EQ(r.verdict_text(), "inconclusive (too few repetitions)");
    }
    EXPECT_EQ(g.exit_status(), 0);
}

TEST(Deterministic, IdenticalRepeatedSamplesAreExactAndNonPositiveIsInconclusive) {
    json base = make_icount_run({{"a", 500}, {"z", 0}});
    json cur = make_icount_run({{"a", 520}, {"z", 0}});
    // Three equal repetitions of "a" on the baseline side.
    base["benchmarks"].push_back(base["benchmarks"][0]);
    base["benchmarks"].push_back(base["benchmarks"][0]);
    const gate_result g = run_gate(parse(base, "b.json"), parse(cur, "c.json"), parse_policy(icount_policy_text, "p.json"));
    EXPECT_TRUE(g.rows[0].exact);
    EXPECT_EQ(g.rows[0].cmp.n_base, 3u);
    EXPECT_EQ(g.rows[0].result, verdict::regressed);
    EXPECT_FALSE(g.rows[1].exact);
    EXPECT_EQ(g.rows[1].verdict_text(), "inconclusive (non-positive values)");
}

// Samples that differ go through the statistics even under "deterministic": the verdicts,
// p-values and intervals are those of the same policy without the key.
TEST(Deterministic, DifferingSamplesKeepTheStatisticalPath) {
    rng gen(12);
    auto specs = suite();
    const bench_run base = parse(make_run(gen, specs), "base.json");
    specs[2].center *= 1.20;
    const bench_run cur = parse(make_run(gen, specs), "cur.json");
    const gate_result plain = run_gate(base, cur, default_policy());
    const gate_result det = run_gate(base, cur, parse_policy(R"({"defaults": {"deterministic": true}})", "d.json"));
    ASSERT_EQ(plain.rows.size(), det.rows.size());
    for (std::size_t i = 0; i < det.rows.size(); ++i) {
        EXPECT_FALSE(det.rows[i].exact);
        EXPECT_TRUE(det.rows[i].tested);
        EXPECT_EQ(det.rows[i].result, plain.rows[i].result);
        EXPECT_DOUBLE_EQ(det.rows[i].cmp.p_adjusted, plain.rows[i].cmp.p_adjusted);
        EXPECT_DOUBLE_EQ(det.rows[i].cmp.ci.lo, plain.rows[i].cmp.ci.lo);
    }
    EXPECT_EQ(det.rows[2].result, verdict::regressed);
    EXPECT_EQ(markdown_summary(det), markdown_summary(plain));
}

// Exact rows take no part in the p-value adjustment: adding instruction counts to a run does
// not change the Holm-adjusted p of its timed benchmarks.
TEST(Deterministic, ExactRowsStayOutOfTheAdjustment) {
    rng gen(13);
    json base = make_run(gen, suite());
    json cur = make_run(gen, suite());
    const policy p = parse_policy(
        R"({"overrides": [{"match": "icount/.*", "metric": "instructions", "deterministic": true, "margin": 0.01}]})",
        "p.json");
    const gate_result timed_only = run_gate(parse(base, "b.json"), parse(cur, "c.json"), p);
    const json counts = make_icount_run(icount_suite());
    for (const auto& row : counts["benchmarks"]) {
        base["benchmarks"].push_back(row);
        cur["benchmarks"].push_back(row);
    }
    const gate_result mixed = run_gate(parse(base, "b.json"), parse(cur, "c.json"), p);
    ASSERT_EQ(mixed.rows.size(), timed_only.rows.size() + 4);
    for (std::size_t i = 0; i < timed_only.rows.size(); ++i) {
        EXPECT_FALSE(mixed.rows[i].exact);
        EXPECT_DOUBLE_EQ(mixed.rows[i].cmp.p_adjusted, timed_only.rows[i].cmp.p_adjusted) << mixed.rows[i].name;
    }
    for (std::size_t i = timed_only.rows.size(); i < mixed.rows.size(); ++i) EXPECT_TRUE(mixed.rows[i].exact);
}

TEST(Policy, BadPolicyNamesTheKey) {
    expect_bad_input([] { parse_policy("{\"defaults\": ", "p.json"); }, {"p.json", "malformed JSON"});
    expect_bad_input([] { parse_policy(R"({"defaults": {"alpha": 2}})", "p.json"); }, {"p.json", "defaults.alpha"});
    expect_bad_input([] { parse_policy(R"({"defaults": {"margin": "5%"}})", "p.json"); }, {"defaults.margin"});
    expect_bad_input([] { parse_policy(R"({"defaults": {"adjustment": "bonferroni"}})", "p.json"); },
                     {"defaults.adjustment", "bonferroni"});
    expect_bad_input([] { parse_policy(R"({"defaults": {"direction": "up"}})", "p.json"); }, {"defaults.direction"});
    expect_bad_input([] { parse_policy(R"({"defaults": {"min_repetitions": 1}})", "p.json"); },
                     {"defaults.min_repetitions"});
    expect_bad_input([] { parse_policy(R"({"defaults": {"metrc": "cpu_time"}})", "p.json"); }, {"defaults.metrc"});
    expect_bad_input([] { parse_policy(R"({"overide": []})", "p.json"); }, {"'overide'"});
    expect_bad_input([] { parse_policy(R"({"overrides": [{"metric": "cpu_time"}]})", "p.json"); },
                     {"overrides[0].match"});
    expect_bad_input([] { parse_policy(R"({"overrides": [{"match": "ff/(", "margin": 0.1}]})", "p.json"); },
                     {"overrides[0].match", "regex"});
    expect_bad_input([] { parse_policy(R"({"overrides": [{"match": "a", "adjustment": "bh"}]})", "p.json"); },
                     {"overrides[0].adjustment"});
    expect_bad_input([] { parse_policy(R"({"ignore": ["ok", "[x"]})", "p.json"); }, {"ignore[1]"});
    expect_bad_input([] { parse_policy(R"({"ignore": "x"})", "p.json"); }, {"'ignore'"});
}

// Found by policy_fuzz: {"description": 1e400} escaped as nlohmann's out_of_range.
TEST(Policy, NumberOutOfRangeIsMalformedJson) {
    expect_bad_input([] { parse_policy(R"({"description": 1e400})", "p.json"); }, {"p.json", "malformed JSON", "1e400"});
}

// A 200,000-character regex overflowed the stack inside std::regex's recursive compiler (found
// by probing policy_fuzz's regexes past its 4 KiB inputs); patterns are now bounded.
TEST(Policy, OverlongRegexIsRefused) {
    const std::string long_re = "{\"ignore\": [\"" + std::string(200000, 'a') + "\"]}";
    expect_bad_input([&] { parse_policy(long_re, "p.json"); }, {"p.json", "ignore[0]", "200000 characters"});
    const std::string nested = "{\"overrides\": [{\"match\": \"" + std::string(100000, '(') + "a" +
                               std::string(100000, ')') + "\"}]}";
    expect_bad_input([&] { parse_policy(nested, "p.json"); }, {"overrides[0].match", "at most 1024"});
    const std::string ok = "{\"ignore\": [\"" + std::string(1024, 'a') + "\"]}";
    EXPECT_EQ(parse_policy(ok, "p.json").ignore.size(), 1u);
}

// Found by policy_fuzz: a long back reference in an "ignore" regex was a signed overflow inside
// libstdc++'s std::regex compiler (undefined behaviour); the patterns are RE2's now.
TEST(Policy, LongBackReferenceIsBadInput) {
    expect_bad_input([] { parse_policy(R"({"ignore": ["icou(tt\\8888888888888888888888dt?tt"]})", "p.json"); },
                     {"p.json", "ignore[0]", "not a valid regex"});
}

TEST(Policy, DefaultPolicyFileParses) {
    const policy p = read_policy(C2LAB_SOURCE_DIR "/results/policies/default.json");
    EXPECT_EQ(p.defaults.metric, "real_time");
    EXPECT_EQ(p.defaults.dir, direction::lower_is_better);
    EXPECT_EQ(p.adjust, adjustment::holm);
    EXPECT_FALSE(p.defaults.deterministic);
}

TEST(Policy, IcountPolicyFileParses) {
    const policy p = read_policy(C2LAB_SOURCE_DIR "/results/policies/icount.json");
    const metric_rule r = p.rule_for("icount/ff/fr_mul/n:100000");
    EXPECT_EQ(r.metric, "instructions");
    EXPECT_EQ(r.dir, direction::lower_is_better);
    EXPECT_TRUE(r.deterministic);
    EXPECT_DOUBLE_EQ(r.margin, 0.01);
}

// A prove benchmark with stage counters, as bench_prove writes it: reps rows, each stage's
// counter drawn around its center with 2% noise, real_time the sum.
json prove_run(rng& gen, const std::vector<std::pair<std::string, double>>& stages, std::size_t reps) {
    json rows = json::array();
    const std::string name = "prove/porep/porep-2kib/backend:cpu/iterations:1/real_time";
    for (std::size_t i = 0; i < reps; ++i) {
        json row = {{"name", name},       {"run_name", name},    {"run_type", "iteration"},
                    {"repetitions", reps}, {"repetition_index", i}, {"iterations", 1},
                    {"time_unit", "ms"}};
        double total = 0;
        for (const auto& [stage, center] : stages) {
            const double v = center * std::exp(0.02 * standard_normal(gen));
            row[stage + "_ms"] = v;
            total += v;
        }
        row["real_time"] = total;
        row["cpu_time"] = total;
        rows.push_back(row);
    }
    return {{"context", context()}, {"benchmarks", rows}};
}

TEST(Gate, StageTracingNamesTheStageThatMovedAndItsBenchmark) {
    rng gen(11);
    const std::vector<std::pair<std::string, double>> base = {
        {"synthesize", 1600}, {"ntt", 8800}, {"msm_h", 23600}, {"msm_b_g2", 1240}};
    auto slowed = base;
    slowed[1].second *= 1.30;  // ntt 30% slower, every other stage unchanged
    const bench_run b = parse(prove_run(gen, base, 8), "base.json");
    const bench_run c = parse(prove_run(gen, slowed, 8), "cur.json");
    const gate_result g = run_gate(b, c, default_policy());
    ASSERT_EQ(g.stages.size(), 4u);
    for (const stage_row& st : g.stages) {
        EXPECT_TRUE(st.tested) << st.stage;
        if (st.stage == "ntt") {
            EXPECT_EQ(st.result, verdict::regressed);
            EXPECT_NEAR(st.cmp.ci.ratio, 1.30, 0.05);
        } else {
            EXPECT_NE(st.result, verdict::regressed) << st.stage;
            EXPECT_NE(st.result, verdict::improved) << st.stage;
        }
    }
    const std::string md = markdown_summary(g);
    EXPECT_NE(md.find("- ntt: **slower**"), std::string::npos) << md;
    EXPECT_NE(md.find("bench_ntt --benchmark_filter='ntt/h/'"), std::string::npos) << md;
    EXPECT_EQ(md.find("- msm_h:"), std::string::npos) << md;
}

TEST(Gate, StageTracingWithOneSampleASideJudgesNothing) {
    rng gen(12);
    const std::vector<std::pair<std::string, double>> base = {{"synthesize", 1600}, {"msm_h", 23600}};
    auto faster = base;
    faster[1].second *= 0.5;
    const gate_result g = run_gate(parse(prove_run(gen, base, 1), "a.json"), parse(prove_run(gen, faster, 1), "b.json"),
                                   default_policy());
    ASSERT_EQ(g.stages.size(), 2u);
    for (const stage_row& st : g.stages) {
        EXPECT_FALSE(st.tested);
        EXPECT_EQ(st.note, "one sample a side");
        EXPECT_EQ(st.result, verdict::inconclusive);
    }
    const std::string md = markdown_summary(g);
    EXPECT_EQ(md.find("msm_h: faster"), std::string::npos) << md;
    EXPECT_NE(md.find("2 stage time(s) not judged"), std::string::npos) << md;
    EXPECT_EQ(stage_benchmark_command("assemble"), "");
    EXPECT_NE(stage_benchmark_command("msm_b_g2").find("msm/g2/"), std::string::npos);
}

}  // namespace
}  // namespace c2lab::regressions

// The A/B engine on fake processes: the runner callback returns Google Benchmark JSON with
// samples from c2lab::rng (a controlled median and lognormal noise per variant).
#include "regressions/ab.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "pipeline/test_flags.hpp"

namespace c2lab::regressions::ab {
namespace {

// make_design with the engine's registry as its flag check, as `c2lab ab` calls it.
design make_design_checked(std::span<const std::string> fl, std::span<const std::string> al) {
    return make_design(fl, al, [](const std::string& setting) { pipeline::parse_all_flags(std::span(&setting, 1)); });
}

using nlohmann::json;

double uniform01(rng& gen) { return (static_cast<double>(gen.next() >> 11) + 0.5) * 0x1.0p-53; }
double standard_normal(rng& gen) {
    const double u1 = uniform01(gen), u2 = uniform01(gen);
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

// The message of the c2lab::error that fn throws ("" when it does not throw).
template <class F>
std::string error_of(F&& fn) {
    try {
        fn();
    } catch (const error& e) {
        return e.what();
    }
    return "";
}

std::vector<std::string> specs(std::initializer_list<const char*> l) { return {l.begin(), l.end()}; }

// ---------------------------------------------------------------------------------------
TEST(AbDesign, FactorialExpansion) {
    const auto fl = specs({"lc_indexer=vec,smallvec2,smallvec4", "presize=off,on"});
    const auto al = specs({"glibc", "jemalloc"});
    const design d = make_design_checked(fl, al);
    const auto vs = expand(d);
    ASSERT_EQ(vs.size(), 3u * 2u * 2u);
    // The baseline is the first value of every list, glibc.
    EXPECT_EQ(vs[0].label, "lc_indexer=vec presize=off allocator=glibc");
    EXPECT_EQ(vs[0].allocator, "glibc");
    // Every combination exactly once.
    std::set<std::string> labels;
    for (const auto& v : vs) {
        labels.insert(v.label);
        EXPECT_EQ(v.flags.size(), 2u);
        EXPECT_EQ(v.varied.size(), 2u);
    }
    EXPECT_EQ(labels.size(), vs.size());
    EXPECT_TRUE(labels.count("lc_indexer=smallvec4 presize=on allocator=jemalloc"));
    // Allocator innermost, the first flag outermost.
    EXPECT_EQ(vs[1].label, "lc_indexer=vec presize=off allocator=jemalloc");
    EXPECT_EQ(vs[2].label, "lc_indexer=vec presize=on allocator=glibc");
    EXPECT_EQ(vs.back().label, "lc_indexer=smallvec4 presize=on allocator=jemalloc");
}

TEST(AbDesign, FixedFlagsAreNotInTheLabelButAreRun) {
    const auto fl = specs({"lc_indexer=vec,smallvec2", "presize=on"});
    const auto vs = expand(make_design_checked(fl, {}));
    ASSERT_EQ(vs.size(), 2u);
    EXPECT_EQ(vs[0].label, "lc_indexer=vec");
    EXPECT_EQ(vs[1].label, "lc_indexer=smallvec2");
    EXPECT_EQ(vs[1].varied.size(), 1u);
    config c;
    c.filter = "steps:4096";
    c.dataset = "porep-2kib";
    c.min_time = 0.01;
    const auto args = benchmark_args(vs[1], c);
    const std::vector<std::string> want = {"--flag",
                                           "lc_indexer=smallvec2",
                                           "--flag",
                                           "presize=on",
                                           "--dataset",
                                           "porep-2kib",
                                           "--benchmark_filter=steps:4096",
                                           "--benchmark_repetitions=1",
                                           "--benchmark_min_time=0.01",
                                           "--benchmark_format=json"};
    EXPECT_EQ(args, want);
}

TEST(AbDesign, AllocatorsOnly) {
    const auto al = specs({"glibc", "jemalloc", "mimalloc"});
    const auto vs = expand(make_design_checked({}, al));
    ASSERT_EQ(vs.size(), 3u);
    EXPECT_EQ(vs[0].label, "allocator=glibc");
    EXPECT_EQ(vs[2].allocator, "mimalloc");
}

TEST(AbDesign, BadInputNamesTheCulprit) {
    auto design_error = [](std::vector<std::string> fl, std::vector<std::string> al = {}) {
        return error_of([&] { make_design_checked(fl, al); });
    };
    EXPECT_NE(design_error({"bogus=a,b"}).find("bogus"), std::string::npos);
    const std::string bad_variant = design_error({"lc_indexer=vec,list"});
    EXPECT_NE(bad_variant.find("lc_indexer"), std::string::npos) << bad_variant;
    EXPECT_NE(bad_variant.find("list"), std::string::npos) << bad_variant;
    EXPECT_NE(design_error({"lc_indexer="}).find("empty list"), std::string::npos);
    EXPECT_NE(design_error({"lc_indexer=vec,,smallvec2"}).find("empty value"), std::string::npos);
    EXPECT_NE(design_error({"lc_indexer"}).find("lc_indexer"), std::string::npos);
    EXPECT_NE(design_error({"lc_indexer=vec,vec"}).find("twice"), std::string::npos);
    EXPECT_NE(design_error({"lc_indexer=vec,smallvec2", "lc_indexer=smallvec4"}).find("twice"), std::string::npos);
    const std::string alloc = design_error({"lc_indexer=vec,smallvec2"}, {"glibc", "tcmalloc"});
    EXPECT_NE(alloc.find("tcmalloc"), std::string::npos) << alloc;
    EXPECT_NE(alloc.find("jemalloc"), std::string::npos) << alloc;  // lists the known ones
    EXPECT_NE(design_error({"lc_indexer=vec"}).find("nothing to compare"), std::string::npos);
    EXPECT_NE(design_error({}).find("nothing to compare"), std::string::npos);
    EXPECT_EQ(design_error({"msm_window=ln,fixed:8,table"}), "");
    // The judge itself knows no engine flags: without a check any name and value make a design.
    const std::vector<std::string> unknown{"bogus=a,b"};
    EXPECT_EQ(make_design(unknown, {}).flags.at(0).levels, (std::vector<std::string>{"a", "b"}));
}

TEST(AbDesign, LocateAllocator) {
    const auto dir = std::filesystem::temp_directory_path() / ("ab_test_libs_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::vector<std::string> dirs = {(dir / "none").string(), dir.string()};
    EXPECT_EQ(locate_allocator("glibc", dirs), "");
    const std::string missing = error_of([&] { locate_allocator("jemalloc", dirs); });
    EXPECT_NE(missing.find("libjemalloc.so.2"), std::string::npos) << missing;
    EXPECT_NE(missing.find("libjemalloc2"), std::string::npos) << missing;  // the package
    std::ofstream((dir / "libmimalloc.so.2").string()) << "x";
    EXPECT_EQ(locate_allocator("mimalloc", dirs), (dir / "libmimalloc.so.2").string());
    EXPECT_NE(error_of([&] { locate_allocator("tcmalloc", dirs); }).find("tcmalloc"), std::string::npos);
    std::filesystem::remove_all(dir);
}

// ---------------------------------------------------------------------------------------
TEST(AbNames, FlagValueSegments) {
    const std::vector<std::pair<std::string, std::string>> v = {{"lc_indexer", "smallvec4"}, {"presize", "on"}};
    EXPECT_EQ(normalize_name("synth/porep-2kib/lc_indexer:smallvec4/presize:on/real_time", v),
              "synth/porep-2kib/lc_indexer:*/presize:*/real_time");
    const std::vector<std::pair<std::string, std::string>> w = {{"lc_indexer", "vec"}, {"presize", "off"}};
    EXPECT_EQ(normalize_name("synth/porep-2kib/lc_indexer:vec/presize:off/real_time", w),
              "synth/porep-2kib/lc_indexer:*/presize:*/real_time");
    // Only the varied flags are replaced.
    const std::vector<std::pair<std::string, std::string>> only = {{"c1_json", "simdjson"}};
    EXPECT_EQ(normalize_name("c1_decode/porep-2kib/c1_json:simdjson/real_time", only),
              "c1_decode/porep-2kib/c1_json:*/real_time");
    EXPECT_EQ(normalize_name("synth/porep-2kib/lc_indexer:vec/presize:off/real_time", only),
              "synth/porep-2kib/lc_indexer:vec/presize:off/real_time");
}

TEST(AbNames, BareValueSegments) {
    // bench_r1cs: "synth/hash_chain/<indexer>/presize:<p>/steps:<n>"
    const std::vector<std::pair<std::string, std::string>> a = {{"lc_indexer", "smallvec2"}};
    const std::vector<std::pair<std::string, std::string>> b = {{"lc_indexer", "vec"}};
    const std::string na = normalize_name("synth/hash_chain/smallvec2/presize:off/steps:4096", a);
    const std::string nb = normalize_name("synth/hash_chain/vec/presize:off/steps:4096", b);
    EXPECT_EQ(na, "synth/hash_chain/lc_indexer:*/presize:off/steps:4096");
    EXPECT_EQ(na, nb);
    // Another value's segment is left alone, and so is a prefix match or the first segment.
    EXPECT_EQ(normalize_name("synth/hash_chain/smallvec4/presize:off", a), "synth/hash_chain/smallvec4/presize:off");
    EXPECT_EQ(normalize_name("smallvec2/x/smallvec2x", a), "smallvec2/x/smallvec2x");
    // Mixed: a bare indexer and a flag:value presize.
    const std::vector<std::pair<std::string, std::string>> c = {{"lc_indexer", "smallvec2"}, {"presize", "on"}};
    EXPECT_EQ(normalize_name("synth/hash_chain/smallvec2/presize:on/steps:4096", c),
              "synth/hash_chain/lc_indexer:*/presize:*/steps:4096");
}

// ---------------------------------------------------------------------------------------
TEST(AbShuffle, PermutationsDeterministicAndVaried) {
    const auto a = shuffled_order(6, 50, 1);
    const auto b = shuffled_order(6, 50, 1);
    const auto c = shuffled_order(6, 50, 2);
    ASSERT_EQ(a.size(), 50u);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    std::set<std::vector<std::size_t>> distinct;
    std::vector<std::size_t> first_counts(6, 0);
    for (const auto& r : a) {
        ASSERT_EQ(r.size(), 6u);
        std::vector<std::size_t> sorted = r;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(sorted[i], i);
        distinct.insert(r);
        ++first_counts[r[0]];
    }
    EXPECT_GT(distinct.size(), 30u);  // 720 orders: 50 rounds rarely repeat
    for (std::size_t n : first_counts) EXPECT_GT(n, 0u);  // every variant goes first sometimes
}

// ---------------------------------------------------------------------------------------
// Fake processes. A variant's benchmark time: center * factor(variant) * lognormal(noise).
struct fake_bench {
    std::string name_pattern;  // "{v}" is replaced by the lc_indexer value
    double center_ns;
};

struct fake_runner {
    rng gen;
    double noise;
    std::map<std::string, double> factor;  // label -> time factor
    std::vector<fake_bench> benches;
    std::vector<std::string> labels_run;
    std::set<std::string> missing;  // "label|pattern": not reported by that variant

    std::string operator()(const variant& v, const std::vector<std::string>& args) {
        labels_run.push_back(v.label);
        EXPECT_EQ(args.back(), "--benchmark_format=json");
        std::string indexer = "vec";
        for (const auto& [k, val] : v.flags)
            if (k == "lc_indexer") indexer = val;
        json rows = json::array();
        for (const auto& b : benches) {
            if (missing.count(v.label + "|" + b.name_pattern)) continue;
            std::string name = b.name_pattern;
            if (auto at = name.find("{v}"); at != std::string::npos) name.replace(at, 3, indexer);
            const double f = factor.count(v.label) ? factor.at(v.label) : 1.0;
            const double t = b.center_ns * f * std::exp(noise * standard_normal(gen));
            rows.push_back({{"name", name},
                            {"run_name", name},
                            {"run_type", "iteration"},
                            {"repetitions", 1},
                            {"repetition_index", 0},
                            {"iterations", 100},
                            {"real_time", t / 1e3},
                            {"cpu_time", t / 1e3 * 0.9},
                            {"time_unit", "us"}});
        }
        json ctx = {{"num_cpus", 2}, {"load_avg", {0.5, 0.4, 0.3}}};
        return json{{"context", ctx}, {"benchmarks", rows}}.dump();
    }
};

std::vector<variant> two_indexers() {
    const auto fl = specs({"lc_indexer=vec,smallvec2"});
    return expand(make_design_checked(fl, {}));
}

config cfg(std::size_t rounds, uint64_t seed = 1) {
    config c;
    c.filter = "steps:4096";
    c.rounds = rounds;
    c.seed = seed;
    return c;
}

const row& find_row(const result& r, std::size_t variant, const std::string& bench = {}) {
    for (const auto& row : r.rows)
        if (row.variant == variant && (bench.empty() || row.benchmark == bench)) return row;
    throw std::runtime_error("row not found");
}

TEST(AbCollect, InterleavedRoundsFollowTheOrder) {
    const auto vs = expand(make_design_checked(specs({"lc_indexer=vec,smallvec2,smallvec4"}), {}));
    fake_runner fake{rng(3), 0.01, {}, {{"synth/hash_chain/{v}/presize:off/steps:4096", 2e6}}, {}, {}};
    config c = cfg(4);
    c.warmup = 1;
    std::vector<std::string> lines;
    const collection data = collect(
        vs, c, [&](const variant& v, const std::vector<std::string>& a) { return fake(v, a); },
        [&](const run_record&, const std::string& line) { lines.push_back(line); });
    ASSERT_EQ(data.runs.size(), 5u * 3u);
    ASSERT_EQ(data.order.size(), 5u);
    EXPECT_EQ(data.order, shuffled_order(3, 5, c.seed));
    for (std::size_t i = 0; i < data.runs.size(); ++i) {
        const auto& run = data.runs[i];
        EXPECT_EQ(run.variant, data.order[i / 3][i % 3]);
        EXPECT_EQ(fake.labels_run[i], vs[run.variant].label);
        EXPECT_EQ(run.warmup, i < 3);
        EXPECT_EQ(run.benchmarks.size(), 1u);
        EXPECT_EQ(run.benchmarks[0].normalized, "synth/hash_chain/lc_indexer:*/presize:off/steps:4096");
        EXPECT_EQ(run.load_avg, "[0.5,0.4,0.3]");
    }
    ASSERT_EQ(lines.size(), 15u);
    EXPECT_EQ(lines[0].rfind("[ab] warm-up 1/1  ", 0), 0u) << lines[0];
    EXPECT_EQ(lines[3].rfind("[ab] round 1/4  ", 0), 0u) << lines[3];
    EXPECT_NE(lines[3].find(" ms"), std::string::npos) << lines[3];
    const result r = analyse(vs, data, c);
    for (const auto& row : r.rows) EXPECT_EQ(row.samples.size(), 4u);  // the warm-up is not counted
}

TEST(AbStats, TenPercentSlowerIsSlower) {
    const auto vs = two_indexers();
    fake_runner fake{rng(11), 0.01, {{"lc_indexer=smallvec2", 1.10}},
                     {{"synth/hash_chain/{v}/presize:off/steps:4096", 2e6}}, {}, {}};
    const config c = cfg(10);
    const collection data = collect(vs, c, std::ref(fake));
    const result r = analyse(vs, data, c);
    ASSERT_EQ(r.rows.size(), 2u);
    EXPECT_EQ(find_row(r, 0).verdict, outcome::baseline);
    const row& s = find_row(r, 1);
    EXPECT_EQ(s.verdict, outcome::slower) << s.cmp.ci.ratio << " [" << s.cmp.ci.lo << ", " << s.cmp.ci.hi
                                          << "] p " << s.cmp.p_adjusted;
    EXPECT_NEAR(s.cmp.ci.ratio, 1.10, 0.02);
    EXPECT_EQ(r.count(outcome::slower), 1u);
}

// A prove benchmark with stage counters: the second variant's ntt stage is 30% slower, its
// msm_h stage unchanged; the verdicts must say so stage by stage, and for the total.
TEST(AbStats, StageCountersGetTheirOwnVerdicts) {
    const auto vs = two_indexers();
    rng gen(21);
    auto run = [&](const variant& v, const std::vector<std::string>&) {
        const bool slow = v.label == "lc_indexer=smallvec2";
        const double ntt = 8800 * (slow ? 1.3 : 1.0) * std::exp(0.01 * standard_normal(gen));
        const double msm = 23600 * std::exp(0.01 * standard_normal(gen));
        const std::string name = "prove/porep/porep-2kib/backend:cpu/real_time";
        json rows = json::array({{{"name", name},
                                  {"run_name", name},
                                  {"run_type", "iteration"},
                                  {"repetitions", 1},
                                  {"repetition_index", 0},
                                  {"iterations", 1},
                                  {"real_time", ntt + msm},
                                  {"cpu_time", ntt + msm},
                                  {"time_unit", "ms"},
                                  {"ntt_ms", ntt},
                                  {"msm_h_ms", msm}}});
        return json{{"context", json::object()}, {"benchmarks", rows}}.dump();
    };
    const config c = cfg(10);
    const result r = analyse(vs, collect(vs, c, run), c);
    const std::string base = "prove/porep/porep-2kib/backend:cpu/real_time";
    EXPECT_EQ(find_row(r, 1, base).verdict, outcome::slower);
    const row& ntt = find_row(r, 1, base + " stage:ntt");
    EXPECT_EQ(ntt.verdict, outcome::slower);
    EXPECT_NEAR(ntt.cmp.ci.ratio, 1.3, 0.03);
    EXPECT_NEAR(ntt.median, 8800 * 1.3 * 1e6, 8800 * 1.3 * 1e6 * 0.03);  // ms counters become ns
    const outcome msm = find_row(r, 1, base + " stage:msm_h").verdict;
    EXPECT_TRUE(msm == outcome::same || msm == outcome::inconclusive) << to_string(msm);
}

TEST(AbStats, TenPercentFasterIsFaster) {
    const auto vs = two_indexers();
    fake_runner fake{rng(12), 0.01, {{"lc_indexer=smallvec2", 0.90}},
                     {{"synth/hash_chain/{v}/presize:off/steps:4096", 2e6}}, {}, {}};
    const config c = cfg(10);
    const result r = analyse(vs, collect(vs, c, std::ref(fake)), c);
    EXPECT_EQ(find_row(r, 1).verdict, outcome::faster);
}

TEST(AbStats, IdenticalDistributionsAreNeverSlower) {
    const auto vs = two_indexers();
    std::size_t same = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        fake_runner fake{rng(100 + seed), 0.01, {}, {{"synth/hash_chain/{v}/presize:off/steps:4096", 2e6}}, {}, {}};
        const config c = cfg(10, seed);
        const result r = analyse(vs, collect(vs, c, std::ref(fake)), c);
        const outcome o = find_row(r, 1).verdict;
        EXPECT_NE(o, outcome::slower) << "seed " << seed;
        EXPECT_NE(o, outcome::faster) << "seed " << seed;
        same += o == outcome::same;
    }
    EXPECT_GE(same, 15u);  // 1% noise, 10 rounds, margin 2%: the interval is almost always inside
}

TEST(AbStats, ThreeRoundsCannotBeSignificant) {
    const auto vs = two_indexers();
    fake_runner fake{rng(13), 0.01, {{"lc_indexer=smallvec2", 1.5}},
                     {{"synth/hash_chain/{v}/presize:off/steps:4096", 2e6}}, {}, {}};
    const config c = cfg(3);
    const result r = analyse(vs, collect(vs, c, std::ref(fake)), c);
    EXPECT_EQ(find_row(r, 1).verdict, outcome::inconclusive);
    EXPECT_GE(r.smallest_possible_p, c.alpha);
    EXPECT_NE(markdown(r, {}).find("no variant can be called faster or slower"), std::string::npos);
}

TEST(AbStats, HolmOverAllComparisonsAndSkipped) {
    // 2 x 2 design, two benchmarks (one missing in a variant): 3 comparisons for the first.
    const auto vs = expand(make_design_checked(specs({"lc_indexer=vec,smallvec2", "presize=off,on"}), {}));
    fake_runner fake{rng(14), 0.01, {{"lc_indexer=smallvec2 presize=on", 1.2}},
                     {{"synth/porep-2kib/lc_indexer:{v}/presize:PRESIZE/real_time", 5e8}, {"other/{v}/x", 1e6}}, {}, {}};
    // presize is in the name too: give each variant its own presize segment.
    auto runner = [&](const variant& v, const std::vector<std::string>& a) {
        std::string p = "off";
        for (const auto& [k, val] : v.flags)
            if (k == "presize") p = val;
        fake.benches[0].name_pattern = "synth/porep-2kib/lc_indexer:{v}/presize:" + p + "/real_time";
        if (v.label == "lc_indexer=vec presize=on")
            fake.missing.insert(v.label + "|other/{v}/x");
        return fake(v, a);
    };
    const config c = cfg(8);
    const result r = analyse(vs, collect(vs, c, runner), c);
    EXPECT_EQ(r.comparisons, 3u);
    ASSERT_EQ(r.skipped.size(), 1u);
    EXPECT_EQ(r.skipped[0].benchmark, "other/lc_indexer:*/x");
    EXPECT_EQ(r.skipped[0].variants.size(), 3u);
    const std::string bench = "synth/porep-2kib/lc_indexer:*/presize:*/real_time";
    const row& slow = find_row(r, 3, bench);
    EXPECT_EQ(vs[3].label, "lc_indexer=smallvec2 presize=on");
    EXPECT_EQ(slow.verdict, outcome::slower);
    // The adjusted p-values are Holm's over the three comparisons of the run.
    std::vector<double> raw;
    for (std::size_t v = 1; v < 4; ++v) raw.push_back(find_row(r, v, bench).cmp.p);
    const std::vector<double> holm = holm_adjust(raw);
    for (std::size_t v = 1; v < 4; ++v) {
        const row& rw = find_row(r, v, bench);
        EXPECT_DOUBLE_EQ(rw.cmp.p_adjusted, holm[v - 1]);
        if (v < 3) {
            EXPECT_NE(rw.verdict, outcome::slower);
        }
    }
    EXPECT_GT(find_row(r, 3, bench).cmp.p_adjusted, find_row(r, 3, bench).cmp.p);
    const std::string md = markdown(r, {});
    EXPECT_NE(md.find("other/lc_indexer:*/x: only"), std::string::npos) << md;
    // Main effects: only (smallvec2, on) is 1.2x slower, so each factor's effect is the
    // geometric mean of 1.0 and 1.2 over the other factor's two levels: sqrt(1.2) = 1.095.
    std::size_t effects = 0;
    for (const auto& e : main_effects(r)) {
        if (e.benchmark != bench) continue;
        ++effects;
        EXPECT_TRUE((e.factor == "lc_indexer" && e.level == "smallvec2" && e.baseline_level == "vec") ||
                    (e.factor == "presize" && e.level == "on" && e.baseline_level == "off"))
            << e.factor << "=" << e.level;
        EXPECT_EQ(e.pairs, 2u);
        EXPECT_NEAR(e.ratio, std::sqrt(1.2), 0.02);
    }
    EXPECT_EQ(effects, 2u);
    EXPECT_NE(md.find("Main effects"), std::string::npos) << md;
    // The verdict in words, with the size of the change and its interval.
    EXPECT_NE(md.find(": lc_indexer=smallvec2 presize=on is "), std::string::npos) << md;
    EXPECT_NE(md.find("% slower than lc_indexer=vec presize=off (95% CI +"), std::string::npos) << md;
}

TEST(AbCollect, FailuresNameTheVariant) {
    const auto vs = two_indexers();
    const config c = cfg(2);
    const std::string not_json = error_of([&] { collect(vs, c, [](const variant&, const auto&) { return "oops"; }); });
    EXPECT_NE(not_json.find("not JSON"), std::string::npos) << not_json;
    EXPECT_NE(not_json.find("lc_indexer="), std::string::npos) << not_json;
    const std::string silent = error_of([&] { collect(vs, c, [](const variant&, const auto&) { return " \n"; }); });
    EXPECT_NE(silent.find("printed nothing"), std::string::npos) << silent;
    const std::string none = error_of([&] {
        collect(vs, c, [](const variant&, const auto&) { return std::string(R"({"benchmarks": []})"); });
    });
    EXPECT_NE(none.find("matched no benchmark"), std::string::npos) << none;
    const std::string errored = error_of([&] {
        collect(vs, c, [](const variant&, const auto&) {
            return std::string(
                R"({"benchmarks": [{"name": "b", "run_type": "iteration", "error_occurred": true, "error_message": "dataset missing"}]})");
        });
    });
    EXPECT_NE(errored.find("dataset missing"), std::string::npos) << errored;
    config bad = c;
    bad.rounds = 1;
    EXPECT_NE(error_of([&] { check_config(bad); }).find("--rounds"), std::string::npos);
    bad = c;
    bad.metric = "items";
    EXPECT_NE(error_of([&] { check_config(bad); }).find("items"), std::string::npos);
    bad = c;
    bad.filter = "";
    EXPECT_NE(error_of([&] { check_config(bad); }).find("--filter"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Tags balance: every <x ...> is closed by </x> in order, or is self-closing.
bool balanced_tags(const std::string& s, std::string& why) {
    std::vector<std::string> stack;
    for (std::size_t i = s.find('<'); i != std::string::npos; i = s.find('<', i + 1)) {
        const auto end = s.find('>', i);
        if (end == std::string::npos) {
            why = "unterminated tag";
            return false;
        }
        const std::string tag = s.substr(i + 1, end - i - 1);
        if (tag.empty()) {
            why = "empty tag";
            return false;
        }
        if (tag[0] == '/') {
            if (stack.empty() || stack.back() != tag.substr(1)) {
                why = "unexpected </" + tag.substr(1) + ">";
                return false;
            }
            stack.pop_back();
        } else if (tag.back() != '/') {
            stack.push_back(tag.substr(0, tag.find(' ')));
        }
        if (s.find('<', i + 1) != std::string::npos && s.find('<', i + 1) < end) {
            why = "'<' inside a tag";
            return false;
        }
    }
    if (!stack.empty()) why = "unclosed <" + stack.back() + ">";
    return stack.empty();
}

TEST(AbReports, SvgMarkdownJson) {
    const auto vs = expand(make_design_checked(specs({"lc_indexer=vec,smallvec2,smallvec4"}), specs({"glibc", "jemalloc"})));
    fake_runner fake{rng(15), 0.02, {{"lc_indexer=smallvec4 allocator=jemalloc", 1.1}},
                     {{"synth/hash_chain/{v}/presize:off/steps:4096", 2e6}, {"synth/hash_chain/{v}/presize:on/steps:4096", 1.5e6}},
                     {}, {}};
    const config c = cfg(6);
    const collection data = collect(vs, c, std::ref(fake));
    const result r = analyse(vs, data, c);
    run_info info;
    info.binary = "bench_r1cs";
    info.command_line = {"c2lab", "ab", "--flag", "lc_indexer=vec,smallvec2,smallvec4"};
    info.machine = {{"cpu_model", "Test <CPU> & co"}};
    info.commit = "abc123";

    const std::string s = svg(r, info);
    std::string why;
    EXPECT_TRUE(balanced_tags(s, why)) << why;
    EXPECT_EQ(s.rfind("<svg ", 0), 0u);
    for (const auto& v : vs) EXPECT_NE(s.find(v.label), std::string::npos) << v.label;
    EXPECT_NE(s.find("synth/hash_chain/lc_indexer:*/presize:off/steps:4096"), std::string::npos);
    EXPECT_NE(s.find("synth/hash_chain/lc_indexer:*/presize:on/steps:4096"), std::string::npos);
    std::size_t circles = 0;
    for (auto at = s.find("<circle"); at != std::string::npos; at = s.find("<circle", at + 1)) ++circles;
    EXPECT_EQ(circles, 2u * vs.size() * c.rounds);  // one dot per sample
    EXPECT_EQ(s.find("nan"), std::string::npos);

    const std::string md = markdown(r, info);
    const std::string table = md.substr(0, md.find("Main effects"));  // the comparison table
    std::size_t table_rows = 0;
    for (auto at = table.find("\n| synth/"); at != std::string::npos; at = table.find("\n| synth/", at + 1)) ++table_rows;
    EXPECT_EQ(table_rows, 2u * vs.size());
    for (const auto& v : vs) EXPECT_NE(md.find("| " + v.label), std::string::npos) << v.label;
    EXPECT_NE(md.find("(baseline)"), std::string::npos);

    const json j = json::parse(to_json(r, data, info));
    EXPECT_EQ(j["variants"].size(), vs.size());
    EXPECT_EQ(j["runs"].size(), vs.size() * (c.warmup + c.rounds));  // warm-up runs are kept
    EXPECT_EQ(j["results"].size(), 2u * vs.size());
    EXPECT_EQ(j["order"].size(), c.warmup + c.rounds);
    EXPECT_EQ(j["context"]["commit"], "abc123");
    EXPECT_EQ(j["context"]["machine"]["cpu_model"], "Test <CPU> & co");
    EXPECT_EQ(j["context"]["benchmark_context"]["num_cpus"], 2);
    EXPECT_EQ(j["runs"][0]["benchmarks"].size(), 2u);
}

TEST(AbReports, FormatTime) {
    EXPECT_EQ(format_time(1273.4e6), "1.273 s");
    EXPECT_EQ(format_time(1.2734e6), "1.273 ms");
    EXPECT_EQ(format_time(812.4e3), "812.4 us");
    EXPECT_EQ(format_time(12), "12 ns");
}


// bisect's step rule, on the comparisons a step can measure.
TEST(AbBisectStep, SignificantAgainstTheGoodCommitDecides) {
    using c2lab::regressions::ab::outcome;
    EXPECT_TRUE(bisect_candidate_is_bad(outcome::slower, {outcome::slower, 1.06}, std::nullopt));
    EXPECT_FALSE(bisect_candidate_is_bad(outcome::slower, {outcome::same, 1.00}, std::nullopt));
    EXPECT_FALSE(bisect_candidate_is_bad(outcome::slower, {outcome::faster, 0.90}, std::nullopt));
    EXPECT_TRUE(bisect_candidate_is_bad(outcome::faster, {outcome::faster, 0.85}, std::nullopt));
    EXPECT_FALSE(bisect_candidate_is_bad(outcome::faster, {outcome::slower, 1.10}, std::nullopt));
}

TEST(AbBisectStep, InconclusiveAsksTheBadCommit) {
    using c2lab::regressions::ab::outcome;
    // An unchanged commit measured -7.5% against the good one while the faster commit is -15%:
    // beyond the midpoint of the two, but measurably slower than the bad commit's binary.
    EXPECT_FALSE(bisect_candidate_is_bad(outcome::faster, {outcome::inconclusive, 0.925}, step_comparison{outcome::slower, 1.09}));
    // The same distances, the bad commit's binary no different from the candidate's.
    EXPECT_TRUE(bisect_candidate_is_bad(outcome::faster, {outcome::inconclusive, 0.925}, step_comparison{outcome::inconclusive, 1.01}));
    // A slowdown sought: the candidate measurably faster than the bad commit -> good; as slow as it,
    // or slower -> bad.
    EXPECT_FALSE(bisect_candidate_is_bad(outcome::slower, {outcome::inconclusive, 1.04}, step_comparison{outcome::faster, 0.95}));
    EXPECT_TRUE(bisect_candidate_is_bad(outcome::slower, {outcome::inconclusive, 1.04}, step_comparison{outcome::same, 1.00}));
    EXPECT_TRUE(bisect_candidate_is_bad(outcome::slower, {outcome::inconclusive, 1.04}, step_comparison{outcome::slower, 1.05}));
    // Both inconclusive: the nearer end, by |log ratio|.
    EXPECT_TRUE(bisect_candidate_is_bad(outcome::slower, {outcome::inconclusive, 1.04}, step_comparison{outcome::inconclusive, 0.99}));
    EXPECT_FALSE(bisect_candidate_is_bad(outcome::slower, {outcome::inconclusive, 1.01}, step_comparison{outcome::inconclusive, 0.97}));
}

TEST(AbBisectStep, RefusesWhatItCannotDecide) {
    using c2lab::regressions::ab::outcome;
    EXPECT_THROW(bisect_candidate_is_bad(outcome::slower, {outcome::inconclusive, 1.03}, std::nullopt), c2lab::error);
    EXPECT_THROW(bisect_candidate_is_bad(outcome::same, {outcome::slower, 1.03}, std::nullopt), c2lab::error);
    EXPECT_THROW(bisect_candidate_is_bad(outcome::slower, {outcome::inconclusive, 1.03}, step_comparison{outcome::inconclusive, 0}), c2lab::error);
}

}  // namespace
}  // namespace c2lab::regressions::ab

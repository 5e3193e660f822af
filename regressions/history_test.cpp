// The results history on generated Google Benchmark JSON: round trip, atomic recording, schema
// versions, malformed input, duplicate files, and the gate's baseline from the history.
#include "regressions/history.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "regressions/gate.hpp"
#include "regressions/policy.hpp"
#include "regressions/sql_db.hpp"

namespace c2lab::regressions {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

double uniform01(rng& gen) { return (static_cast<double>(gen.next() >> 11) + 0.5) * 0x1.0p-53; }
double standard_normal(rng& gen) {
    const double u1 = uniform01(gen), u2 = uniform01(gen);
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

json context(const std::string& cpu = "Test CPU @ 3.0GHz", const std::string& commit = "abc1234") {
    return {{"date", "2026-12-02T15:33:28+00:00"}, {"num_cpus", 8},     {"build_type", "Release"},
            {"commit", commit},                    {"compiler", "c++ 12.2.0"}, {"cpu_model", cpu},
            {"dirty", "yes"},                      {"flag.presize", "on"}, {"dataset", "porep-2kib"}};
}

// Iteration rows of each benchmark (real_time = center * lognormal noise, in us; one counter),
// then a median aggregate the reader skips.
json make_run(rng& gen, const std::vector<std::pair<std::string, double>>& benches, json ctx = context(),
              std::size_t reps = 8) {
    json rows = json::array();
    for (const auto& [name, center] : benches) {
        for (std::size_t i = 0; i < reps; ++i) {
            const double t = center * std::exp(0.01 * standard_normal(gen));
            rows.push_back({{"name", name}, {"run_name", name}, {"run_type", "iteration"}, {"repetitions", reps},
                            {"repetition_index", i}, {"iterations", 100}, {"real_time", t}, {"cpu_time", t * 0.99},
                            {"time_unit", "us"}, {"items/s", 1e6 / t}});
        }
        rows.push_back({{"name", name + "_median"}, {"run_name", name}, {"run_type", "aggregate"},
                        {"real_time", 1e12}, {"cpu_time", 1e12}, {"time_unit", "ns"}});
    }
    return {{"context", ctx}, {"benchmarks", rows}};
}

// Every store test runs on SQLite (a file in a temporary directory) and, where
// $C2LAB_TEST_POSTGRES names a server's socket directory, port and user ("DIR PORT USER",
// history_postgres_test.sh starts one), on PostgreSQL in a fresh database per test.
std::string postgres_base() {
    const char* env = std::getenv("C2LAB_TEST_POSTGRES");
    if (!env || !*env) return {};
    std::istringstream in(env);
    std::string dir, port, user;
    in >> dir >> port >> user;
    return "postgresql:///?host=" + dir + "&port=" + port + "&user=" + user;
}
std::string postgres_url(const std::string& dbname) {
    const std::string base = postgres_base();
    return "postgresql:///" + dbname + base.substr(std::string("postgresql:///").size());
}

class HistoryTest : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        std::string tag = test.substr(0, test.find('/'));
        dir_ = fs::temp_directory_path() / ("c2lab-history-test-" + std::to_string(::getpid()) + "-" + tag + "-" + GetParam());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        if (GetParam() == "postgresql") {
            for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            pg_name_ = std::string("t").append(std::to_string(::getpid())).append("_").append(tag.substr(0, 40));
            auto admin = open_sql_db(postgres_url("postgres"));
            admin->exec("DROP DATABASE IF EXISTS " + pg_name_);
            admin->exec("CREATE DATABASE " + pg_name_);
        }
    }
    void TearDown() override {
        fs::remove_all(dir_);
        if (!pg_name_.empty()) open_sql_db(postgres_url("postgres"))->exec("DROP DATABASE IF EXISTS " + pg_name_ + " WITH (FORCE)");
    }

    std::string write(const std::string& rel, const std::string& text) {
        const fs::path p = dir_ / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
        return p.string();
    }
    std::string sqlite_path() const { return (dir_ / "h" / "history.sqlite").string(); }
    // The database under test: an SQLite path or a PostgreSQL URL.
    std::string db() const { return pg_name_.empty() ? sqlite_path() : postgres_url(pg_name_); }
    bool sqlite() const { return pg_name_.empty(); }

    fs::path dir_;
    std::string pg_name_;
};

std::vector<std::string> drivers() {
    std::vector<std::string> d{"sqlite"};
    if (!postgres_base().empty()) d.push_back("postgresql");
    return d;
}
INSTANTIATE_TEST_SUITE_P(drivers, HistoryTest, ::testing::ValuesIn(drivers()),
                         [](const auto& info) { return info.param; });

template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST_P(HistoryTest, RoundTripKeepsEverySampleAndTheContext) {
    rng gen(1);
    const std::string file = write("run/bench_ff.json", make_run(gen, {{"ff/fp_mul", 0.0327}, {"msm/g1", 141.8}}).dump());
    const history_record rec = read_history_record(file);
    auto store = open_history(db());  // creates h/
    EXPECT_EQ(store->schema_version(), history_schema_version);
    const std::int64_t id = store->record(rec);
    EXPECT_EQ(id, 1);

    const bench_run back = store->load_run(id);
    ASSERT_EQ(back.benchmarks.size(), 2u);
    for (std::size_t b = 0; b < 2; ++b) {
        EXPECT_EQ(back.benchmarks[b].name, rec.run.benchmarks[b].name);
        EXPECT_EQ(back.benchmarks[b].repetitions, 8u);
        EXPECT_EQ(back.benchmarks[b].metrics, rec.run.benchmarks[b].metrics);  // bit for bit, in order
    }
    EXPECT_EQ(back.benchmarks[1].metrics.at("real_time").size(), 8u);
    EXPECT_EQ(back.machine.cpu_model, "Test CPU @ 3.0GHz");

    const auto series = store->series("msm/g1");
    ASSERT_EQ(series.size(), 1u);
    EXPECT_EQ(series[0].run_id, id);
    EXPECT_EQ(series[0].metrics, rec.run.benchmarks[1].metrics);
    EXPECT_EQ(store->benchmark_names(), (std::vector<std::string>{"ff/fp_mul", "msm/g1"}));

    const auto runs = store->list_runs();
    ASSERT_EQ(runs.size(), 1u);
    const history_run& r = runs[0];
    EXPECT_EQ(r.commit, "abc1234");
    EXPECT_TRUE(r.dirty);
    EXPECT_EQ(r.kind, "bench");
    EXPECT_EQ(r.dataset, "porep-2kib");
    EXPECT_EQ(json::parse(r.flags), json({{"presize", "on"}}));
    EXPECT_EQ(r.run_date, "2026-12-02T15:33:28+00:00");
    EXPECT_EQ(r.machine.num_cpus, 8);
    EXPECT_EQ(r.benchmark_count, 2u);
    ASSERT_EQ(r.files.size(), 1u);
    EXPECT_EQ(r.files[0].sha256, rec.meta.files[0].sha256);
    EXPECT_EQ(r.files[0].sha256.size(), 64u);
    EXPECT_EQ(r.recorded_at.size(), 20u);  // 2026-12-03T10:15:00Z

    // Reopened, the same.
    store.reset();
    auto again = open_history(db());
    EXPECT_EQ(again->load_run(id).benchmarks[0].metrics, rec.run.benchmarks[0].metrics);
}

TEST(History, AnUnreachableServerIsAnIoErrorWithoutThePassword) {
    try {
        open_history("postgresql://someone:secret@127.0.0.1:1/nothing?connect_timeout=2");
        FAIL() << "no error";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::io);
        const std::string m = e.what();
        EXPECT_NE(m.find("cannot connect to the history database"), std::string::npos) << m;
        EXPECT_EQ(m.find("secret"), std::string::npos) << m;
        EXPECT_NE(m.find("someone:***@127.0.0.1"), std::string::npos) << m;
    }
    EXPECT_TRUE(is_postgres_url("postgres://h/db"));
    EXPECT_FALSE(is_postgres_url("results/history.sqlite"));
}

TEST_P(HistoryTest, KnownDigestOfSha256) {
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_P(HistoryTest, InstructionCountsAreKindIcount) {
    rng gen(2);
    json ctx = context();
    ctx["valgrind"] = "valgrind-3.19.0";
    EXPECT_EQ(read_history_record(write("icount.json", make_run(gen, {{"icount/x", 1}}, ctx, 1).dump())).meta.kind, "icount");
    EXPECT_NE(error_of([&] { read_history_record(write("y.json", make_run(gen, {{"y", 1}}).dump()), "nightly"); })
                  .find("unknown run kind 'nightly'"),
              std::string::npos);
}

TEST_P(HistoryTest, AFailingInsertLeavesNoPartialRun) {
    rng gen(3);
    auto store = open_history(db());
    const history_record first = read_history_record(write("a.json", make_run(gen, {{"a", 10}}).dump()));
    store->record(first);

    // A benchmark twice in one run: the second one's samples break the primary key after the
    // run row and the first benchmark's samples were inserted.
    history_record dup = read_history_record(write("b.json", make_run(gen, {{"b", 10}, {"c", 20}}).dump()));
    dup.run.benchmarks.push_back(dup.run.benchmarks[1]);
    const std::string msg = error_of([&] { store->record(dup); });
    EXPECT_NE(msg.find("not recorded (nothing was written)"), std::string::npos) << msg;
    EXPECT_TRUE(msg.find("UNIQUE") != std::string::npos || msg.find("unique") != std::string::npos) << msg;

    // A file already recorded: the run row and every sample go in, then its digest fails.
    history_record again = read_history_record(write("d.json", make_run(gen, {{"d", 10}}).dump()));
    again.meta.files.push_back(first.meta.files[0]);
    EXPECT_NE(error_of([&] { store->record(again); }).find("sha256"), std::string::npos);

    EXPECT_EQ(store->list_runs().size(), 1u);
    EXPECT_TRUE(store->series("b").empty());
    EXPECT_TRUE(store->series("c").empty());
    EXPECT_TRUE(store->series("d").empty());
    EXPECT_EQ(store->benchmark_names(), std::vector<std::string>{"a"});
    // And the store goes on: the next run gets the next id.
    EXPECT_EQ(store->record(read_history_record(write("e.json", make_run(gen, {{"e", 10}}).dump()))), 2);
}

// Version 2 adds the runs' cpu_id. A version-1 history (the column dropped again, the version set
// back) is migrated when opened: its runs stay, with no cpu_id, and new runs keep theirs and
// their arithmetic path in the machine fingerprint the gate and the trends match by.
TEST_P(HistoryTest, AVersionOneHistoryIsMigratedAndKeepsItsRuns) {
    rng gen(31);
    open_history(db())->record(read_history_record(write("old/a.json", make_run(gen, {{"a", 10}}).dump())));
    open_sql_db(db())->exec("ALTER TABLE runs DROP COLUMN cpu_id");
    open_sql_db(db())->exec("UPDATE schema_version SET version = 1");
    auto store = open_history(db());
    EXPECT_EQ(store->schema_version(), 2);
    json ctx = context();
    ctx["cpu_id"] = "family 25 model 17";
    ctx["cpu_path"] = "avx512-ifma";
    store->record(read_history_record(write("new/a.json", make_run(gen, {{"a", 10}}, ctx).dump())));
    const auto runs = store->list_runs();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].machine.cpu_id, "");
    EXPECT_EQ(runs[0].machine.cpu_path, "");
    EXPECT_EQ(runs[1].machine.cpu_id, "family 25 model 17");
    EXPECT_EQ(runs[1].machine.cpu_path, "avx512-ifma");
    const bench_run back = store->load_run(runs[1].id);
    EXPECT_EQ(back.machine.cpu_id, "family 25 model 17");
    EXPECT_EQ(back.machine.cpu_path, "avx512-ifma");
    EXPECT_EQ(store->load_run(runs[0].id).machine.cpu_id, "");
}

TEST_P(HistoryTest, ANewerSchemaIsRefusedNamingBothVersions) {
    open_history(db());
    open_sql_db(db())->exec("UPDATE schema_version SET version = 7");
    const std::string msg = error_of([&] { open_history(db()); });
    EXPECT_NE(msg.find("schema version 7, this c2lab knows up to " + std::to_string(history_schema_version)),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find(sqlite() ? db() : pg_name_), std::string::npos) << msg;
    // A database with other tables and no schema_version is not a history.
    const std::string other = sqlite() ? (dir_ / "other.sqlite").string() : db();
    if (!sqlite()) open_sql_db(db())->exec("DROP TABLE samples; DROP TABLE run_files; DROP TABLE runs; DROP TABLE schema_version");
    open_sql_db(other)->exec("CREATE TABLE unrelated (x INTEGER)");
    EXPECT_NE(error_of([&] { open_history(other); }).find("not a c2lab history database"), std::string::npos);
    if (!sqlite()) return;

    const std::string junk = write("junk.sqlite", std::string(4096, 'x'));
    EXPECT_NE(error_of([&] { open_history(junk); }).find("junk.sqlite"), std::string::npos);
}

TEST_P(HistoryTest, MalformedJsonIsRefusedBeforeAnythingIsWritten) {
    rng gen(4);
    write("run/a.json", make_run(gen, {{"a", 10}}).dump());
    write("run/b.json", "{\"benchmarks\": [");
    try {
        read_history_record((dir_ / "run").string());
        FAIL() << "no error";
    } catch (const error& e) {
        EXPECT_EQ(e.kind(), errc::bad_input);
        EXPECT_NE(std::string(e.what()).find("b.json: malformed JSON"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(sqlite_path()));
}

TEST_P(HistoryTest, RecordedFilesAreDroppedOnImport) {
    rng gen(5);
    const std::string a = write("run/bench_a.json", make_run(gen, {{"a/1", 10}, {"a/2", 20}}).dump());
    write("run/bench_b.json", make_run(gen, {{"b/1", 30}}).dump());
    auto store = open_history(db());
    history_record single = read_history_record(a);
    EXPECT_TRUE(drop_recorded_files(single, *store).empty());
    const std::int64_t first = store->record(single);

    // The directory holds that file again (a baseline copied from a run) and a new one.
    history_record both = read_history_record((dir_ / "run").string());
    ASSERT_EQ(both.run.benchmarks.size(), 3u);
    const auto dropped = drop_recorded_files(both, *store);
    ASSERT_EQ(dropped.size(), 1u);
    EXPECT_EQ(dropped[0].second, first);
    EXPECT_EQ(dropped[0].first.name, a);
    ASSERT_EQ(both.run.benchmarks.size(), 1u);
    EXPECT_EQ(both.run.benchmarks[0].name, "b/1");
    ASSERT_EQ(both.meta.files.size(), 1u);
    store->record(both);

    history_record third = read_history_record((dir_ / "run").string());
    EXPECT_EQ(drop_recorded_files(third, *store).size(), 2u);
    EXPECT_TRUE(third.run.benchmarks.empty());
    EXPECT_TRUE(third.meta.files.empty());
    EXPECT_EQ(store->list_runs().size(), 2u);
    EXPECT_EQ(store->series("a/1").size(), 1u);
}

TEST_P(HistoryTest, GateAgainstTheHistoryUsesTheLastMatchingRuns) {
    rng gen(6);
    const std::vector<std::pair<std::string, double>> base = {{"x", 100}, {"y", 250}};
    auto scaled = [&](double f) {
        auto v = base;
        for (auto& b : v) b.second *= f;
        return v;
    };
    auto store = open_history(db());
    auto add = [&](const std::string& name, const json& run) {
        return store->record(read_history_record(write(name, run.dump())));
    };
    // Oldest: 10% faster, outside the window of the last 3 runs of this machine.
    add("r1.json", make_run(gen, scaled(0.9), context("Test CPU @ 3.0GHz", "c1")));
    const auto r2 = add("r2.json", make_run(gen, scaled(1.0), context("Test CPU @ 3.0GHz", "c2")));
    // Another machine, 10% faster: never part of this machine's baseline.
    add("other.json", make_run(gen, scaled(0.9), context("Other CPU")));
    const auto r4 = add("r4.json", make_run(gen, scaled(1.0), context("Test CPU @ 3.0GHz", "c4")));
    json counts = context();
    counts["valgrind"] = "valgrind-3.19.0";
    add("icount.json", make_run(gen, scaled(0.9), counts, 1));  // a count never matches a timing
    const auto r6 = add("r6.json", make_run(gen, scaled(1.0), context("Test CPU @ 3.0GHz", "c6")));

    const policy pol = parse_policy("{}", "default");
    const bench_run same = parse_bench_json(make_run(gen, scaled(1.0)).dump(), "same.json");
    const history_baseline hb = baseline_from_history(*store, same, 3);
    EXPECT_EQ(hb.run_ids, (std::vector<std::int64_t>{r2, r4, r6}));
    EXPECT_EQ(hb.other_machine_runs, 2u);
    EXPECT_EQ(hb.benchmarks_per_run.at(r4), 2u);
    ASSERT_EQ(hb.run.benchmarks.size(), 2u);
    EXPECT_EQ(hb.run.benchmarks[0].repetitions, 24u);
    EXPECT_EQ(hb.run.benchmarks[0].metrics.at("real_time").size(), 24u);
    EXPECT_EQ(hb.run.machine.cpu_model, "Test CPU @ 3.0GHz");

    const gate_result pass = run_gate(hb.run, same, pol);
    EXPECT_EQ(pass.exit_status(), 0) << markdown_summary(pass);
    EXPECT_EQ(pass.count(verdict::regressed), 0u);

    const bench_run slow = parse_bench_json(make_run(gen, scaled(1.1)).dump(), "slow.json");
    const gate_result fail = run_gate(baseline_from_history(*store, slow, 3).run, slow, pol);
    EXPECT_EQ(fail.exit_status(), 1) << markdown_summary(fail);
    EXPECT_EQ(fail.count(verdict::regressed), 2u);

    // With the last 4 the 10% faster oldest run joins; excluded runs are left out.
    EXPECT_EQ(baseline_from_history(*store, same, 4).run_ids, (std::vector<std::int64_t>{1, r2, r4, r6}));
    const history_baseline ex = baseline_from_history(*store, same, 3, {r6});
    EXPECT_EQ(ex.run_ids, (std::vector<std::int64_t>{1, r2, r4}));
    EXPECT_EQ(ex.excluded_runs, 1u);

    // Instruction counts pick the toolchain's runs only, whatever the CPU.
    json other_cpu_counts = counts;
    other_cpu_counts["cpu_model"] = "Another CPU";
    const bench_run icount = parse_bench_json(make_run(gen, scaled(0.9), other_cpu_counts, 1).dump(), "i.json");
    EXPECT_EQ(baseline_from_history(*store, icount, 5).run_ids, (std::vector<std::int64_t>{5}));
    EXPECT_NE(error_of([&] { baseline_from_history(*store, same, 0); }).find("N >= 1"), std::string::npos);

    // Only ancestors: c4 is on another branch here, so the last 3 are r1, r2, r6.
    const auto on_branch = [](const std::string& c) { return c != "c4"; };
    const history_baseline anc = baseline_from_history(*store, same, 3, {}, on_branch);
    EXPECT_EQ(anc.run_ids, (std::vector<std::int64_t>{1, r2, r6}));
    EXPECT_EQ(anc.not_ancestor_runs, 1u);
}

TEST_P(HistoryTest, NoiseFromTheHistoryWidensMarginsAndNamesSeriesTooNoisyToJudge) {
    rng gen(11);
    auto store = open_history(db());
    // 12 runs: "quiet" steady, "noisy" alternating 100 / 112, "wild" alternating 100 / 150.
    for (int k = 0; k < 12; ++k) {
        const double odd = k % 2;
        store->record(read_history_record(write(std::string("n").append(std::to_string(k)).append(".json"),
                                                make_run(gen, {{"quiet", 100}, {"noisy", 100 + 12 * odd}, {"wild", 100 + 50 * odd}})
                                                    .dump())));
    }
    const policy pol = parse_policy("{}", "default");
    const bench_run cur = parse_bench_json(make_run(gen, {{"quiet", 100}, {"noisy", 110}, {"wild", 100}}).dump(), "cur.json");
    const auto noise = noise_from_history(*store, cur, pol, 30);
    ASSERT_EQ(noise.size(), 3u);
    std::map<std::string, double> t;
    for (const auto& n : noise) {
        EXPECT_EQ(n.changes, 11u);
        t[n.benchmark] = n.threshold;
    }
    EXPECT_LT(t["quiet"], 0.05);
    EXPECT_GT(t["noisy"], 0.107);  // every change is 10.7% or 12%
    EXPECT_LT(t["noisy"], 0.25);
    EXPECT_GT(t["wild"], 0.25);

    std::vector<series_noise> widened, too_noisy;
    const policy p2 = with_noise_margins(pol, noise, 0.25, &widened, &too_noisy);
    ASSERT_EQ(widened.size(), 1u);
    EXPECT_EQ(widened[0].benchmark, "noisy");
    EXPECT_DOUBLE_EQ(p2.rule_for("noisy").margin, t["noisy"]);
    EXPECT_DOUBLE_EQ(p2.rule_for("quiet").margin, pol.rule_for("quiet").margin);
    ASSERT_EQ(too_noisy.size(), 1u);
    EXPECT_TRUE(p2.ignored("wild"));
    EXPECT_FALSE(p2.ignored("quiet"));

    // +10% on "noisy" against its last run at 100 (run 11; run 12 is at 112): a regression against
    // the flat 5% margin, not against the series' own run-to-run noise.
    const history_baseline hb = baseline_from_history(*store, cur, 1, {12});
    ASSERT_EQ(hb.run_ids, std::vector<std::int64_t>{11});
    auto verdict_of = [&](const gate_result& g, const std::string& name) {
        for (const auto& row : g.rows)
            if (row.name == name) return row.result;
        return verdict::inconclusive;
    };
    EXPECT_EQ(verdict_of(run_gate(hb.run, cur, pol), "noisy"), verdict::regressed);
    EXPECT_NE(verdict_of(run_gate(hb.run, cur, p2), "noisy"), verdict::regressed);
    // Names with regex characters are matched exactly.
    EXPECT_TRUE(name_regex::exactly("a/b:1.5(x)").full_match("a/b:1.5(x)"));
    EXPECT_FALSE(name_regex::exactly("a/b:1.5(x)").full_match("a/b:105(x)"));
}

}  // namespace
}  // namespace c2lab::regressions

// `c2lab history record | import | list` and `c2lab gate --baseline history[:N]`: the results
// history's front door (the store is regressions/history.hpp).
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "core/error.hpp"
#include "io.hpp"
#include "regressions/bench_json.hpp"
#include "regressions/gate.hpp"
#include "regressions/history.hpp"
#include "regressions/sql_db.hpp"
#include "regressions/html_report.hpp"
#include "regressions/name_regex.hpp"
#include "regressions/policy.hpp"
#include "regressions/stats.hpp"
#include "regressions/change_points.hpp"
#include "regressions/trend_report.hpp"

namespace c2lab::cli {

namespace fs = std::filesystem;
namespace rg = c2lab::regressions;

namespace {

std::string db_path(const std::string& given) { return given.empty() ? rg::default_history_path() : given; }

std::string machine_name(const rg::machine_fingerprint& m) {
    const std::string n = rg::baseline_name(m);
    return n.empty() ? "(unknown)" : n;
}

std::string short_commit(const rg::history_run& r) {
    std::string c = r.commit.empty() ? "-" : r.commit.substr(0, 10);
    if (r.dirty) c += "*";
    return c;
}

// "2026-12-02T15:33:28": when the run was measured, else when it was recorded.
std::string run_time(const rg::history_run& r) { return (r.run_date.empty() ? r.recorded_at : r.run_date).substr(0, 19); }

std::string format_value(double v, const std::string& metric) {
    char b[64];
    if (metric == "real_time" || metric == "cpu_time") {
        if (v >= 1e9) std::snprintf(b, sizeof b, "%.4g s", v / 1e9);
        else if (v >= 1e6) std::snprintf(b, sizeof b, "%.4g ms", v / 1e6);
        else if (v >= 1e3) std::snprintf(b, sizeof b, "%.4g us", v / 1e3);
        else std::snprintf(b, sizeof b, "%.4g ns", v);
    } else {
        std::snprintf(b, sizeof b, "%.6g", v);
    }
    return b;
}

// The history database `db` for reading: a PostgreSQL URL, or an SQLite file that must exist
// (opening would create an empty one).
std::unique_ptr<rg::history_store> open_existing_history(const std::string& db) {
    if (!rg::is_postgres_url(db) && !fs::exists(db))
        throw error(errc::bad_input, db + ": no history database (record runs first: c2lab history record --from DIR)");
    return rg::open_history(db);
}

// --bench as a regex (searched); empty: every benchmark.
rg::name_regex bench_regex(const std::string& bench) {
    return rg::name_regex(bench.empty() ? std::string(".") : bench, "--bench");
}

// --method, --window, --min-size and --alpha of `history changes` and `history report`.
rg::change_point_config change_config(const history_args& a) {
    rg::change_point_config cfg;
    try {
        cfg.method = rg::parse_change_method(a.method);
    } catch (const error& e) {
        throw error(errc::bad_input, std::string("--method: ") + e.what());
    }
    cfg.window = a.window;
    cfg.min_size = a.min_size;
    cfg.alpha = a.alpha;
    if (a.alpha != 0 && !(cfg.alpha > 0 && cfg.alpha < 1)) throw error(errc::bad_input, "--alpha: must be in (0, 1)");
    return cfg;
}

// One line saying how the change points are found.
std::string describe(const rg::change_point_config& cfg) {
    char buf[256];
    if (cfg.method == rg::change_method::otava)
        std::snprintf(buf, sizeof buf,
                      "Apache Otava's analysis (E-Divisive candidates in windows of %zu runs, Student's t-test, "
                      "merged at p < %g)", cfg.window, cfg.significance());
    else
        std::snprintf(buf, sizeof buf,
                      "E-Divisive means, each split tested with %zu permutations at alpha %g, segments of at "
                      "least %zu runs", cfg.permutations, cfg.significance(), cfg.min_size);
    return buf;
}

// Every run of the store by id.
std::map<std::int64_t, rg::history_run> runs_by_id(const rg::history_store& store) {
    std::map<std::int64_t, rg::history_run> runs;
    for (auto& r : store.list_runs()) runs.emplace(r.id, std::move(r));
    return runs;
}

std::size_t sample_count(const rg::bench_run& r) {
    std::size_t n = 0;
    for (const auto& b : r.benchmarks)
        for (const auto& [metric, values] : b.metrics) n += values.size();
    return n;
}

// Records one parsed run unless every file of it is in the store already; prints what it did.
// Returns the new run's id, or 0 when nothing was new.
std::int64_t record_new(rg::history_store& store, rg::history_record rec) {
    for (const auto& [file, id] : rg::drop_recorded_files(rec, store))
        std::cout << "already recorded: " << file.name << " (run " << id << ")\n";
    if (rec.meta.files.empty()) return 0;
    const std::int64_t id = store.record(rec);
    std::cout << "recorded run " << id << ": " << rec.meta.source << " (" << rec.meta.kind << ", commit "
              << (rec.meta.commit.empty() ? "-" : rec.meta.commit) << ", " << machine_name(rec.meta.machine) << "), "
              << rec.run.benchmarks.size() << " benchmark(s), " << sample_count(rec.run) << " sample(s)\n";
    return id;
}

}  // namespace

int run_history_record(const history_args& a) {
    rg::history_record rec = rg::read_history_record(a.from, a.kind, a.branch);  // before the store is touched
    auto store = rg::open_history(db_path(a.db));
    record_new(*store, std::move(rec));
    return exit_ok;
}

int run_history_import(const history_args& a) {
    const fs::path results(a.results);
    std::error_code ec;
    if (!fs::is_directory(results, ec)) throw error(errc::bad_input, "--results: '" + a.results + "' is not a directory");
    // The candidates: each run directory, each baseline file, each A/B entry.
    std::vector<std::string> sources;
    auto entries = [&](const fs::path& dir, bool dirs, bool json_files) {
        std::vector<std::string> out;
        if (!fs::is_directory(dir, ec)) return out;
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            if (dirs && e.is_directory()) out.push_back(e.path().string());
            if (json_files && e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path().string());
        }
        if (ec) throw error(errc::io, dir.string() + ": cannot list the directory: " + ec.message());
        std::sort(out.begin(), out.end());
        return out;
    };
    for (const auto& d : entries(results / "runs", true, false)) sources.push_back(d);
    for (const auto& m : entries(results / "baselines", true, false))
        for (const auto& f : entries(m, false, true)) sources.push_back(f);
    for (const auto& e : entries(results / "ab", true, true)) sources.push_back(e);

    // Everything is parsed before anything is written; what is not Google Benchmark JSON (A/B
    // reports, empty run directories) is passed over with the reason.
    std::vector<rg::history_record> parsed;
    std::size_t passed_over = 0;
    for (const auto& s : sources) {
        try {
            const bool ab = s.rfind((results / "ab").string(), 0) == 0;
            parsed.push_back(rg::read_history_record(s, ab ? "ab" : ""));
        } catch (const error& e) {
            ++passed_over;
            std::cerr << "not imported: " << e.what() << "\n";
        }
    }
    // Oldest measurement first, so that run ids follow time.
    std::stable_sort(parsed.begin(), parsed.end(),
                     [](const auto& x, const auto& y) { return x.meta.run_date < y.meta.run_date; });
    auto store = rg::open_history(db_path(a.db));
    std::size_t recorded = 0, known = 0;
    for (auto& rec : parsed) {
        if (record_new(*store, std::move(rec)))
            ++recorded;
        else
            ++known;
    }
    std::cout << "import from " << a.results << ": " << recorded << " run(s) recorded, " << known
              << " already in the history, " << passed_over << " not Google Benchmark JSON (see stderr); "
              << db_path(a.db) << " holds " << store->list_runs().size() << " run(s)\n";
    return exit_ok;
}

int run_history_list(const history_args& a) {
    const std::string db = db_path(a.db);
    auto store = open_existing_history(db);
    const std::vector<rg::history_run> runs = store->list_runs();
    std::map<std::int64_t, const rg::history_run*> by_id;
    for (const auto& r : runs) by_id[r.id] = &r;

    char line[512];
    if (a.bench.empty()) {
        std::snprintf(line, sizeof line, "%5s  %-19s  %-11s  %-6s  %-44s  %10s  %s\n", "id", "time (UTC)", "commit", "kind",
                      "machine", "benchmarks", "source");
        std::cout << line;
        for (const auto& r : runs) {
            std::snprintf(line, sizeof line, "%5lld  %-19s  %-11s  %-6s  %-44s  %10zu  %s\n", static_cast<long long>(r.id),
                          run_time(r).c_str(), short_commit(r).c_str(), r.kind.c_str(), machine_name(r.machine).c_str(),
                          r.benchmark_count, r.source.c_str());
            std::cout << line;
        }
        std::cout << runs.size() << " run(s) in " << db << " (schema version " << store->schema_version()
                  << "; * after a commit: uncommitted changes)\n";
        return exit_ok;
    }

    const rg::name_regex rx = bench_regex(a.bench);
    std::size_t shown = 0;
    for (const std::string& name : store->benchmark_names()) {
        if (!rx.search(name)) continue;
        if (shown++) std::cout << "\n";
        std::cout << name << ": " << a.metric << ", median per run\n";
        std::snprintf(line, sizeof line, "%5s  %-19s  %-11s  %-44s  %5s  %12s\n", "run", "time (UTC)", "commit", "machine",
                      "reps", "median");
        std::cout << line;
        for (const auto& p : store->series(name)) {
            const rg::history_run& r = *by_id.at(p.run_id);
            auto it = p.metrics.find(a.metric);
            const std::string med = it == p.metrics.end() || it->second.empty()
                                        ? std::string("-")
                                        : format_value(rg::median(it->second), a.metric);
            const std::size_t reps = it == p.metrics.end() ? 0 : it->second.size();
            std::snprintf(line, sizeof line, "%5lld  %-19s  %-11s  %-44s  %5zu  %12s\n", static_cast<long long>(r.id),
                          run_time(r).c_str(), short_commit(r).c_str(), machine_name(r.machine).c_str(), reps, med.c_str());
            std::cout << line;
        }
    }
    if (shown == 0) throw error(errc::bad_input, "--bench: no benchmark in " + db + " matches '" + a.bench + "'");
    return exit_ok;
}

int run_history_changes(const history_args& a) {
    const std::string db = db_path(a.db);
    auto store = open_existing_history(db);
    const std::map<std::int64_t, rg::history_run> runs = runs_by_id(*store);
    const rg::name_regex rx = bench_regex(a.bench);
    const rg::change_point_config cfg = change_config(a);
    std::cout << "change points: " << describe(cfg) << "; " << a.metric << ", the median of each run; one series per benchmark and machine (instruction counts: "
                 "per toolchain)\n";
    std::size_t series_count = 0, too_short = 0, changes = 0, matched = 0;
    char line[512];
    for (const std::string& name : store->benchmark_names()) {
        if (!rx.search(name)) continue;
        ++matched;
        // Split by machine, in run order.
        std::map<std::string, std::vector<std::pair<std::int64_t, double>>> by_machine;
        for (const auto& p : store->series(name)) {
            auto it = p.metrics.find(a.metric);
            if (it == p.metrics.end() || it->second.empty()) continue;
            by_machine[machine_name(runs.at(p.run_id).machine)].push_back({p.run_id, rg::median(it->second)});
        }
        for (const auto& [machine, pts] : by_machine) {
            ++series_count;
            if (pts.size() < cfg.shortest_series()) {
                ++too_short;
                continue;
            }
            std::vector<double> v;
            for (const auto& pt : pts) v.push_back(pt.second);
            for (const rg::change_point& c : rg::find_change_points(v, cfg)) {
                if (changes++ == 0) {
                    std::snprintf(line, sizeof line, "%-48s  %-36s  %5s  %-11s  %12s  %12s  %8s  %8s\n", "benchmark",
                                  "machine", "run", "commit", "before", "after", "change", "p");
                    std::cout << line;
                }
                const rg::history_run& r = runs.at(pts[c.index].first);
                std::snprintf(line, sizeof line, "%-48s  %-36s  %5lld  %-11s  %12s  %12s  %+7.2f%%  %8.2g\n", name.c_str(),
                              machine.c_str(), static_cast<long long>(r.id), short_commit(r).c_str(),
                              format_value(c.mean_before, a.metric).c_str(), format_value(c.mean_after, a.metric).c_str(),
                              100 * c.relative_change(), c.p_value);
                std::cout << line;
            }
        }
    }
    if (matched == 0) throw error(errc::bad_input, "--bench: no benchmark in " + db + " matches '" + a.bench + "'");
    std::cout << changes << " change point(s) in " << series_count << " series";
    if (too_short) std::cout << " (" << too_short << " with fewer than " << cfg.shortest_series() << " runs: not searched)";
    std::cout << "; run = the first run after the change\n";
    return exit_ok;
}

int run_history_report(const history_args& a) {
    if (a.out.empty()) throw error(errc::bad_input, "-o: the report's path is required (an .html file)");
    const std::string db = db_path(a.db);
    auto store = open_existing_history(db);
    const std::map<std::int64_t, rg::history_run> runs = runs_by_id(*store);
    const rg::name_regex rx = bench_regex(a.bench);
    const rg::change_point_config cfg = change_config(a);
    std::vector<rg::trend_series> all;
    for (const std::string& name : store->benchmark_names()) {
        if (!rx.search(name)) continue;
        rg::trend_series s{name, a.metric, {}};
        std::map<std::string, std::size_t> line_of;
        for (const auto& p : store->series(name)) {
            auto it = p.metrics.find(a.metric);
            if (it == p.metrics.end() || it->second.empty()) continue;
            const rg::history_run& r = runs.at(p.run_id);
            const std::string m = machine_name(r.machine);
            if (!line_of.count(m)) {
                line_of[m] = s.lines.size();
                s.lines.push_back({m, {}, {}});
            }
            s.lines[line_of[m]].points.push_back({r.id, short_commit(r), run_time(r), rg::median(it->second),
                                                  rg::quantile(it->second, 0.25), rg::quantile(it->second, 0.75),
                                                  it->second.size()});
        }
        if (s.lines.empty()) continue;
        for (auto& l : s.lines) {
            std::vector<double> v;
            for (const auto& p : l.points) v.push_back(p.median);
            l.changes = rg::find_change_points(v, cfg);
        }
        all.push_back(std::move(s));
    }
    if (all.empty())
        throw error(errc::bad_input, "--bench: no benchmark in " + db + " with " + a.metric + " samples matches '" + a.bench + "'");
    write_text_atomic(a.out, rg::trend_report_html(all, "c2lab history: " + (a.bench.empty() ? std::string("every benchmark") : a.bench) +
                                                            " (" + db + ")"));
    std::size_t changes = 0;
    for (const auto& s : all)
        for (const auto& l : s.lines) changes += l.changes.size();
    std::cout << "report: " << a.out << " (" << all.size() << " series, " << changes << " change point(s))\n";
    return exit_ok;
}

int run_gate_history(const gate_args& a) {
    // "history" or "history:N".
    std::size_t last_n = 5;
    if (a.baseline != "history") {
        const std::string n = a.baseline.substr(std::string("history:").size());
        last_n = parse_u64(n, "--baseline history:N");
        if (last_n == 0) throw error(errc::bad_input, "--baseline history:N needs N >= 1, not " + n);
    }
    const rg::history_record cur_rec = rg::read_history_record(a.current);
    const rg::bench_run& cur = cur_rec.run;
    const std::string db = db_path(a.db);
    auto store = open_existing_history(db);

    // The current run, when it was recorded, is not its own baseline.
    std::set<std::int64_t> self;
    for (const auto& f : cur_rec.meta.files)
        if (auto id = store->find_file(f.sha256)) self.insert(*id);
    // Only runs at ancestors of the checked-out commit, where this is a git checkout.
    std::map<std::string, bool> known;
    const bool in_git = std::system("git rev-parse --is-inside-work-tree >/dev/null 2>&1") == 0;
    const auto ancestor = [&](const std::string& commit) {
        if (commit.find_first_not_of("0123456789abcdef") != std::string::npos) return true;  // not a commit id: kept
        auto [it, fresh] = known.emplace(commit, false);
        if (fresh) {  // exit 1: known and not an ancestor; 128 (unknown to this clone): kept
            const int st = std::system(("git merge-base --is-ancestor " + commit + " HEAD >/dev/null 2>&1").c_str());
            it->second = !(WIFEXITED(st) && WEXITSTATUS(st) == 1);
        }
        return it->second;
    };
    const rg::history_baseline hb =
        rg::baseline_from_history(*store, cur, last_n, self, in_git ? std::function<bool(const std::string&)>(ancestor) : nullptr);

    const bool counts = cur.machine.counts_instructions();
    const std::string matching = counts ? "toolchain (compiler, valgrind, build_type)" : "machine (cpu_model, num_cpus, build_type; cpu_id and cpu_path where both runs record them)";
    if (hb.run_ids.empty())
        throw error(errc::bad_input, db + ": no recorded run on this " + matching + " holds a benchmark of " + a.current +
                                         " (" + machine_name(cur.machine) + "; " + std::to_string(hb.other_machine_runs) +
                                         " run(s) of others" + (self.empty() ? "" : ", the current run itself left out") + ")");

    const std::map<std::int64_t, rg::history_run> runs = runs_by_id(*store);
    std::ostringstream head;
    head << "Baseline: " << db << ", per benchmark the last " << last_n << " run(s) on this " << matching << " ("
         << machine_name(hb.run.machine) << "), samples pooled: run(s) ";
    for (std::size_t k = 0; k < hb.run_ids.size(); ++k) {
        const rg::history_run& r = runs.at(hb.run_ids[k]);
        head << (k ? ", " : "") << r.id << " (" << short_commit(r) << ", " << run_time(r) << ", "
             << hb.benchmarks_per_run.at(r.id) << " benchmark(s))";
    }
    head << ".";
    if (hb.other_machine_runs) head << " " << hb.other_machine_runs << " run(s) of other machines or kinds left out.";
    if (hb.not_ancestor_runs)
        head << " " << hb.not_ancestor_runs << " run(s) at commits that are not ancestors of HEAD left out.";
    if (!self.empty()) {
        head << " Left out as the current run itself: run(s)";
        for (auto id : self) head << " " << id;
        head << ".";
    }
    head << "\n";

    const rg::policy given =
        a.policy.empty() ? rg::parse_policy("{}", "(built-in defaults)") : rg::read_policy(a.policy);
    // Noise-aware margins: each series' run-to-run changes over its last 30 runs here.
    std::vector<rg::series_noise> widened, too_noisy;
    const auto noise = rg::noise_from_history(*store, cur, given, 30, self);
    const rg::policy pol = rg::with_noise_margins(given, noise, 0.25, &widened, &too_noisy);
    {
        char b[64];
        head << "Noise from the history (rustc-perf's significance threshold: Q3 + 3 x IQR of the run-to-run changes of "
                "each series' medians, last 30 runs on this "
             << (counts ? "toolchain" : "machine") << "): " << noise.size() << " series measured";
        if (widened.empty() && too_noisy.empty()) head << ", none noisier than its margin.\n\n";
        else head << ".\n";
        for (const auto& n : widened) {
            std::snprintf(b, sizeof b, "%.1f%%", 100 * n.threshold);
            head << "- " << n.benchmark << ": margin raised to " << b << " (" << n.changes << " changes)\n";
        }
        for (const auto& n : too_noisy) {
            std::snprintf(b, sizeof b, "%.1f%%", 100 * n.threshold);
            head << "- " << n.benchmark << ": **too noisy to judge** (threshold " << b << ", " << n.changes
                 << " changes): ignored\n";
        }
        if (!widened.empty() || !too_noisy.empty()) head << "\n";
    }
    rg::gate_options opt;
    opt.allow_other_machine = a.allow_other_machine;
    const rg::gate_result result = rg::run_gate(hb.run, cur, pol, opt);
    if (!a.html.empty())
        write_text_atomic(a.html, rg::html_report(result, "c2lab gate: " + a.current + " vs " + a.baseline + " (" + db + ")",
                                                  &hb.run, &cur));
    write_gate_summary(a, head.str(), result);
    return result.exit_status() ? exit_regression : exit_ok;
}

}  // namespace c2lab::cli

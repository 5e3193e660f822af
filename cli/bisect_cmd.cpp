// `c2lab bisect`: the first commit between --good and --bad that made a benchmark slower (or,
// with --find faster, faster).
//
// Each commit git bisect proposes is checked out in its own worktree (<work>/<commit>, kept:
// a rerun and the compiler cache reuse it) and built with --build-cmd; its benchmark binary is
// then measured against the good commit's, interleaved process by process with `c2lab ab`'s
// engine (regressions/ab.hpp: shuffled rounds, ratio of medians with its bootstrap interval,
// Mann-Whitney, the margin). slower -> `git bisect bad`; same or faster -> `git bisect good`
// (--find faster: the other way round);
// inconclusive -> the rounds doubled once, then the candidate measured against the bad commit's
// binary as well: measurably on the good side of it -> good; else the end it is nearer to, by the
// two ratios of those interleaved runs (not by the bad commit's ratio measured earlier, in another
// minute of a noisy machine); a failed build -> `git bisect skip`.
// git bisect runs in a worktree of its own, so the user's checkout is never touched.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <map>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/error.hpp"
#include "io.hpp"
#include "regressions/ab.hpp"
#include "regressions/history.hpp"

namespace c2lab::cli {

namespace {

namespace fs = std::filesystem;
namespace ab = regressions::ab;

// Runs `bash -c script` in dir; (exit status, stdout + stderr).
std::pair<int, std::string> shell(const fs::path& dir, const std::string& script) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    const process_output po = spawn_capture("/bin/bash", {"-c", "cd \"$0\" && " + script, dir.string()}, env);
    return {po.status, po.out + po.err};
}
bool ok(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

struct bisector {
    const bisect_args& a;
    fs::path repo, work;
    std::size_t builds = 0;
    std::vector<std::string> log;

    std::string git(const fs::path& dir, const std::string& args) {
        const auto [st, out] = shell(dir, "git " + args);
        if (!ok(st)) throw error(errc::bad_input, "git " + args + " (in " + dir.string() + "): " + trim(out));
        return trim(out);
    }

    // The commit's benchmark binary, built in its worktree; nullopt when the build fails.
    std::optional<std::string> build(const std::string& commit) {
        const fs::path dir = work / commit.substr(0, 12);
        if (!fs::exists(dir / ".git")) git(repo, "worktree add --detach --force \"" + dir.string() + "\" " + commit);
        progress("bisect", "building " + commit.substr(0, 12) + ": " + a.build_cmd);
        ++builds;
        const auto [st, out] = shell(dir, a.build_cmd);
        std::ofstream(work / (commit.substr(0, 12) + ".build.log")) << out;
        const fs::path bin = dir / a.binary;
        if (!ok(st) || !fs::exists(bin)) {
            progress("bisect", "build of " + commit.substr(0, 12) + " failed (" + describe_status(st) + "); log: " +
                                   (work / (commit.substr(0, 12) + ".build.log")).string());
            return std::nullopt;
        }
        return bin.string();
    }

    // The candidate's binary against the good one's: the verdict of the first benchmark.
    struct judged {
        ab::outcome verdict = ab::outcome::inconclusive;
        double ratio = 0, lo = 0, hi = 0;
        std::string benchmark;
    };
    // The candidate's samples of one comparison as a history run (kind ab, its commit; the
    // good commit's samples are the first variant's and are not recorded again). A failure to
    // record is a warning.
    void record(const std::string& commit, const ab::collection& data) {
        // The candidate was built by --build-cmd (default: a Release build), at its own commit.
        auto ctx = build_context();
        ctx.insert(ctx.end(), {{"build_type", "Release"}, {"commit", commit.substr(0, 12)}, {"bisect", "candidate"}});
        try {
            const std::string text = ab::variant_run_json(data, 1, ctx);
            regressions::open_history(regressions::default_history_path())
                ->record(regressions::history_record_of_texts({{"bisect " + commit, text}}, "c2lab bisect " + commit, "ab"));
        } catch (const error& e) {
            std::cerr << "warning: a bisect step was not recorded in the history: " << e.what() << "\n";
        }
    }

    // record: false for the second look at an inconclusive candidate (against the bad commit),
    // whose samples the history already holds from its first comparison.
    judged compare(const std::string& good_bin, const std::string& cand_bin, std::size_t rounds,
                   const std::string& cand_commit, bool record_samples = true) {
        ab::config c;
        c.filter = a.filter;
        c.rounds = rounds;
        c.min_time = a.min_time;
        c.margin = a.margin;
        c.metric = a.metric;
        c.seed = builds;
        std::vector<ab::variant> vs(2);
        vs[0].label = "good";
        vs[1].label = "candidate";
        for (auto& v : vs)
            for (const std::string& f : a.flags) {
                const auto eq = f.find('=');
                if (eq == std::string::npos) throw error(errc::bad_input, "--flag " + f + ": expected name=value");
                v.flags.emplace_back(f.substr(0, eq), f.substr(eq + 1));
            }
        std::vector<std::string> env;
        for (char** e = environ; *e; ++e) env.emplace_back(*e);
        const ab::runner run = [&](const ab::variant& v, const std::vector<std::string>& args) {
            const std::string& bin = v.label == "good" ? good_bin : cand_bin;
            const process_output po = spawn_capture(bin, args, env);
            if (!ok(po.status))
                throw error(errc::io, bin + ": the benchmark failed (" + describe_status(po.status) + "): " + tail_lines(po.err));
            return po.out;
        };
        const ab::collection data = ab::collect(vs, c, run);
        const ab::result r = ab::analyse(vs, data, c);
        if (record_samples) record(cand_commit, data);
        for (const ab::row& row : r.rows)
            if (row.variant == 1) return {row.verdict, row.cmp.ci.ratio, row.cmp.ci.lo, row.cmp.ci.hi, row.benchmark};
        throw error(errc::bad_input, "--filter '" + a.filter + "' matched no benchmark of both binaries");
    }
};

std::string pct(double ratio) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.1f%%", 100 * (ratio - 1));
    return b;
}

}  // namespace

int run_bisect(const bisect_args& a) {
    if (a.filter.empty()) throw error(errc::bad_input, "--filter: the benchmark to follow is required");
    if (a.binary.empty()) throw error(errc::bad_input, "--binary: the benchmark binary's path in a build is required");
    bisector b{a, {}, {}, 0, {}};
    {
        const auto [st, out] = shell(fs::current_path(), "git rev-parse --show-toplevel");
        if (!ok(st)) throw error(errc::bad_input, "c2lab bisect runs in a git repository: " + trim(out));
        b.repo = trim(out);
    }
    const std::string good = b.git(b.repo, "rev-parse --verify \"" + a.good + "^{commit}\"");
    const std::string bad = b.git(b.repo, "rev-parse --verify \"" + a.bad + "^{commit}\"");
    if (!ok(shell(b.repo, "git merge-base --is-ancestor " + good + " " + bad).first))
        throw error(errc::bad_input, "--good " + a.good + " is not an ancestor of --bad " + a.bad);
    const std::size_t n = std::stoul(b.git(b.repo, "rev-list --count " + good + ".." + bad));
    b.work = a.work.empty() ? b.repo / "build" / "bisect" : fs::path(a.work);
    fs::create_directories(b.work);
    progress("bisect", std::to_string(n) + " commit(s) after " + good.substr(0, 12) + " up to " + bad.substr(0, 12) +
                           "; worktrees and build logs in " + b.work.string());

    // The change sought: --bad is slower (or, --find faster, faster) than --good, and so is every
    // commit from the first one that changed it on ("bad" in git bisect's terms).
    const ab::outcome sought = a.find == "faster" ? ab::outcome::faster : ab::outcome::slower;
    const std::string word = a.find == "faster" ? "faster" : "slower";
    const std::optional<std::string> good_bin = b.build(good);
    if (!good_bin) throw error(errc::io, "the good commit " + good.substr(0, 12) + " does not build (see its log)");
    const std::optional<std::string> bad_bin = b.build(bad);
    if (!bad_bin) throw error(errc::io, "the bad commit " + bad.substr(0, 12) + " does not build (see its log)");
    // The premise first: --bad is slower (faster) than --good.
    {
        bisector::judged j = b.compare(*good_bin, *bad_bin, 2 * a.rounds, bad);
        if (j.verdict == ab::outcome::inconclusive) {
            progress("bisect", bad.substr(0, 12) + " (bad): inconclusive (" + pct(j.ratio) + "), measuring again with " +
                                   std::to_string(4 * a.rounds) + " rounds");
            j = b.compare(*good_bin, *bad_bin, 4 * a.rounds, bad);
        }
        progress("bisect", bad.substr(0, 12) + " (bad) against " + good.substr(0, 12) + " (good): " +
                               std::string(ab::to_string(j.verdict)) + " " + pct(j.ratio));
        if (j.verdict != sought)
            throw error(errc::bad_input, "--bad " + a.bad + " is not measurably " + word + " than --good " + a.good + " on " +
                                             j.benchmark + " (" + std::string(ab::to_string(j.verdict)) + ", " +
                                             pct(j.ratio) + "): nothing to bisect");
    }

    // git bisect in a worktree of its own.
    const fs::path driver = b.work / "driver";
    if (fs::exists(driver)) b.git(b.repo, "worktree remove --force \"" + driver.string() + "\"");
    b.git(b.repo, "worktree add --detach --force \"" + driver.string() + "\" " + bad);
    std::string out = b.git(driver, "bisect start " + bad + " " + good);
    std::string first_bad;
    std::optional<bisector::judged> first_bad_effect;
    std::map<std::string, bisector::judged> effects;
    for (std::size_t step = 1; step <= 64; ++step) {
        if (out.find("is the first bad commit") != std::string::npos) {
            first_bad = out.substr(0, out.find(' '));
            break;
        }
        if (out.find("There are only 'skip'ped commits left") != std::string::npos) break;
        const std::string cand = b.git(driver, "rev-parse HEAD");
        std::string verdict = "skip";
        if (const auto bin = b.build(cand)) {
            bisector::judged j = b.compare(*good_bin, *bin, a.rounds, cand);
            if (j.verdict == ab::outcome::inconclusive) {
                progress("bisect", cand.substr(0, 12) + ": inconclusive (" + pct(j.ratio) + "), measuring again with " +
                                       std::to_string(2 * a.rounds) + " rounds");
                j = b.compare(*good_bin, *bin, 2 * a.rounds, cand);
            }
            effects[cand] = j;
            // Still inconclusive with twice the rounds (a noisy machine, or an effect near the
            // margin): the candidate against the bad commit's binary too, interleaved in the same
            // way; ab::bisect_candidate_is_bad judges the step from one or both comparisons.
            std::optional<ab::step_comparison> vs_bad;
            std::string against_bad;
            if (j.verdict == ab::outcome::inconclusive) {
                const bisector::judged jb = b.compare(*bad_bin, *bin, 2 * a.rounds, cand, false);
                vs_bad = ab::step_comparison{jb.verdict, jb.ratio};
                against_bad = "; against the bad commit " + std::string(ab::to_string(jb.verdict)) + " " + pct(jb.ratio);
            }
            verdict = ab::bisect_candidate_is_bad(sought, {j.verdict, j.ratio}, vs_bad) ? "bad" : "good";
            char line[320];
            std::snprintf(line, sizeof line, "%s: %s %s [%+.1f%%, %+.1f%%] against the good commit%s -> %s",
                          cand.substr(0, 12).c_str(), std::string(ab::to_string(j.verdict)).c_str(), pct(j.ratio).c_str(),
                          100 * (j.lo - 1), 100 * (j.hi - 1), against_bad.c_str(), verdict.c_str());
            progress("bisect", line);
            b.log.push_back(line);
        } else {
            b.log.push_back(cand.substr(0, 12) + ": build failed -> skip");
        }
        out = b.git(driver, "bisect " + verdict);
    }
    shell(driver, "git bisect reset --quiet");
    b.git(b.repo, "worktree remove --force \"" + driver.string() + "\"");

    std::cout << "bisect: " << a.filter << " between " << good.substr(0, 12) << " (good) and " << bad.substr(0, 12)
              << " (bad), " << n << " commit(s); " << b.builds << " build(s) including the good commit's\n";
    for (const auto& l : b.log) std::cout << "  " << l << "\n";
    if (first_bad.empty()) {
        std::cout << "no single first " << word << " commit (only skipped commits left: builds failed or measurements were "
                     "inconclusive)\n";
        return exit_error;
    }
    const std::string subject = b.git(b.repo, "log -1 --format=%s " + first_bad);
    std::cout << "first " << word << " commit: " << first_bad << " " << subject << "\n";
    if (auto it = effects.find(first_bad); it != effects.end()) {
        char line[160];
        std::snprintf(line, sizeof line, "its effect: %s against the good commit, 95%% interval [%+.1f%%, %+.1f%%] (%s)\n",
                      pct(it->second.ratio).c_str(), 100 * (it->second.lo - 1), 100 * (it->second.hi - 1),
                      it->second.benchmark.c_str());
        std::cout << line;
    }
    return exit_ok;
}

}  // namespace c2lab::cli

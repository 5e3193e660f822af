// `c2lab ab`: the A/B runner's front door. The engine (design, rounds, statistics, reports)
// is regressions/ab.hpp; this file finds the benchmark binary and the allocator libraries,
// spawns the processes (posix_spawn, stdout and stderr through pipes, LD_PRELOAD in the
// child's environment only) and writes the outputs atomically.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "io.hpp"
#include "regressions/history.hpp"
#include "pipeline/test_flags.hpp"
#include "regressions/ab.hpp"

extern char** environ;

namespace c2lab::cli {

namespace fs = std::filesystem;
namespace ab = regressions::ab;

namespace {

// The environment of this process without LD_PRELOAD, plus `preload` when not empty.
std::vector<std::string> child_environment(const std::string& preload) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e)
        if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env.emplace_back(*e);
    if (!preload.empty()) env.push_back("LD_PRELOAD=" + preload);
    return env;
}

bool is_executable_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// Where benchmark binaries are looked for: --bench-dir, else ./build/release/benchmarks,
// then the benchmarks directory beside this executable's (<build>/cli/../benchmarks).
std::vector<fs::path> bench_dirs(const std::string& given) {
    if (!given.empty()) return {fs::path(given)};
    std::vector<fs::path> dirs{fs::path("build/release/benchmarks")};
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) dirs.push_back(self.parent_path().parent_path() / "benchmarks");
    return dirs;
}

std::string list_dirs(const std::vector<fs::path>& dirs) {
    std::string s;
    for (const auto& d : dirs) s += (s.empty() ? "" : ", ") + d.string();
    return s;
}

// The benchmark names the binary lists for the filter (no --flag: every variant's).
std::vector<std::string> list_tests(const std::string& bin, const std::vector<std::string>& pre,
                                    const std::string& filter) {
    std::vector<std::string> args = pre;
    args.push_back("--benchmark_list_tests=true");
    args.push_back("--benchmark_filter=" + filter);
    const process_output po = spawn_capture(bin, args, child_environment(""));
    if (!WIFEXITED(po.status) || WEXITSTATUS(po.status) != 0)
        throw error(errc::bad_input, bin + " --benchmark_list_tests failed (" + describe_status(po.status) +
                                         "):\n" + tail_lines(po.err));
    std::vector<std::string> names;
    std::istringstream in(po.out);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) names.push_back(line);
    return names;
}

std::string resolve_binary(const ab_args& a) {
    const auto dirs = bench_dirs(a.bench_dir);
    if (!a.binary.empty()) {
        if (a.binary.find('/') != std::string::npos) {
            if (!is_executable_file(a.binary))
                throw error(errc::bad_input, "--binary '" + a.binary + "': not an executable file");
            return a.binary;
        }
        for (const auto& d : dirs)
            if (is_executable_file(d / a.binary)) return (d / a.binary).string();
        throw error(errc::bad_input, "--binary '" + a.binary + "': not found in " + list_dirs(dirs) +
                                         " (build it, or pass --bench-dir DIR or a path)");
    }
    // No --binary: the one bench_* binary whose list matches the filter, in the first
    // directory where any matches.
    std::vector<std::string> pre;
    if (!a.dataset.empty()) pre = {"--dataset", a.dataset};
    std::size_t searched = 0;
    for (const auto& d : dirs) {
        std::error_code ec;
        if (!fs::is_directory(d, ec)) continue;
        std::vector<fs::path> bins;
        for (const auto& e : fs::directory_iterator(d, ec))
            if (e.path().filename().string().rfind("bench_", 0) == 0 && is_executable_file(e.path()))
                bins.push_back(e.path());
        searched += bins.size();
        std::sort(bins.begin(), bins.end());
        std::vector<std::string> matching;
        for (const auto& b : bins)
            if (!list_tests(b.string(), pre, a.filter).empty()) matching.push_back(b.string());
        if (matching.size() == 1) {
            std::cerr << "[ab] binary: " << matching[0] << " (the only one whose benchmarks match the filter)\n";
            return matching[0];
        }
        if (matching.size() > 1) {
            std::string names;
            for (const auto& m : matching) names += "\n  " + m;
            throw error(errc::bad_input,
                        "--filter '" + a.filter + "' matches benchmarks of several binaries; pass --binary:" + names);
        }
    }
    if (searched == 0)
        throw error(errc::bad_input, "no --binary and no bench_* binaries in " + list_dirs(dirs) +
                                         " (build the benchmarks, or pass --bench-dir DIR)");
    throw error(errc::bad_input, "--filter '" + a.filter + "' matches no benchmark of the bench_* binaries in " +
                                     list_dirs(dirs) + "; pass --binary");
}

// Records each variant's measured samples in the results history as one run of kind ab (its
// flags and allocator in the context: one series per variant); a failure to record is a
// warning, the A/B result stands.
void record_variants(const std::vector<ab::variant>& variants, const ab::collection& data, const ab::run_info& info,
                     const fs::path& out_dir) {
    std::vector<std::pair<std::string, std::string>> base = build_context();
    base.emplace_back("date", info.started_utc);  // a later setting wins: the run's start
    const std::string db = regressions::default_history_path();
    try {
        auto store = regressions::open_history(db);
        std::vector<std::int64_t> ids;
        for (std::size_t k = 0; k < variants.size(); ++k) {
            auto ctx = base;
            for (const auto& [name, value] : variants[k].flags) ctx.emplace_back("flag." + name, value);
            ctx.emplace_back("allocator", variants[k].allocator);
            const std::string text = ab::variant_run_json(data, k, ctx);
            ids.push_back(store->record(regressions::history_record_of_texts(
                {{(out_dir / ("variant-" + std::to_string(k + 1))).string(), text}}, out_dir.string(), "ab")));
        }
        std::cerr << "[ab] recorded in the history " << db << " as run(s) " << ids.front() << ".." << ids.back() << "\n";
    } catch (const error& e) {
        std::cerr << "warning: the A/B runs were not recorded in the history: " << e.what() << "\n";
    }
}

void write_text(const fs::path& p, const std::string& s) {
    write_text_atomic(p.string(), s);
}

}  // namespace

int run_ab(const ab_args& a) {
    // Everything that can be checked before a process runs is checked first.
    ab::config c;
    c.filter = a.filter;
    c.dataset = a.dataset;
    c.metric = a.metric;
    c.min_time = a.min_time;
    c.rounds = a.rounds;
    c.warmup = a.warmup;
    c.seed = parse_u64(a.seed, "--seed");
    c.alpha = a.alpha;
    c.margin = a.margin;
    ab::check_config(c);
    if (!a.fail_on.empty() && a.fail_on != "slower")
        throw error(errc::bad_input, "--fail-on '" + a.fail_on + "': expected slower");
    const ab::design d = ab::make_design(a.flags, a.allocators,
                                         [](const std::string& setting) { pipeline::parse_all_flags(std::span(&setting, 1)); });
    const std::vector<ab::variant> variants = ab::expand(d);

    ab::run_info info;
    const auto dirs = ab::default_library_dirs();
    std::map<std::string, std::string> preload;
    for (const auto& name : d.allocators) {
        preload[name] = ab::locate_allocator(name, dirs);
        info.libraries.emplace_back(name, preload[name].empty() ? "(none: glibc malloc)" : preload[name]);
    }
    if (const char* p = std::getenv("LD_PRELOAD"); p && *p)
        std::cerr << "[ab] note: LD_PRELOAD=" << p << " of this process is not passed to the benchmarks\n";

    const std::string bin = resolve_binary(a);
    info.binary = bin;
    info.command_line = a.command_line;
    info.commit = current_commit();
    info.machine = machine_info();
    info.started_utc = utc_stamp("%Y-%m-%dT%H:%M:%SZ");

    const fs::path out_dir = a.out.empty() ? fs::path("results/ab") / utc_stamp("%Y%m%dT%H%M%SZ") : fs::path(a.out);
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) throw error(errc::io, out_dir.string() + ": cannot create the directory: " + ec.message());

    std::cerr << "[ab] " << variants.size() << " variants x " << c.rounds << " rounds"
              << (c.warmup ? " (+" + std::to_string(c.warmup) + " warm-up)" : "") << " of " << bin << ", filter '"
              << c.filter << "', baseline: " << variants.front().label << "\n";

    const ab::runner runner = [&](const ab::variant& v, const std::vector<std::string>& args) {
        const process_output po = spawn_capture(bin, args, child_environment(preload.at(v.allocator)));
        const bool failed = !WIFEXITED(po.status) || WEXITSTATUS(po.status) != 0;
        const bool silent = po.out.find_first_not_of(" \t\r\n") == std::string::npos;
        if (failed || silent) {
            std::string cmd = bin;
            for (const auto& x : args) cmd += " " + x;
            if (!preload.at(v.allocator).empty()) cmd = "LD_PRELOAD=" + preload.at(v.allocator) + " " + cmd;
            throw error(errc::io, "variant '" + v.label + "': the benchmark process " +
                                      (failed ? "failed (" + describe_status(po.status) + ")"
                                              : "printed nothing (does --filter match a benchmark of this variant?)") +
                                      ": " + cmd + "\nits stderr:\n" + tail_lines(po.err));
        }
        return po.out;
    };
    const ab::collection data =
        ab::collect(variants, c, runner, [](const ab::run_record&, const std::string& line) { std::cerr << line << "\n"; });
    info.finished_utc = utc_stamp("%Y-%m-%dT%H:%M:%SZ");

    const ab::result r = ab::analyse(variants, data, c);
    const std::string md = ab::markdown(r, info);
    const std::string js = ab::to_json(r, data, info);
    write_text(out_dir / "ab.json", js);
    write_text(out_dir / "ab.md", md);
    write_text(out_dir / "ab.svg", ab::svg(r, info));
    std::cout << (a.json ? js : md);
    std::cerr << "[ab] wrote " << (out_dir / "ab.md").string() << ", ab.svg, ab.json\n";
    if (!a.no_history) record_variants(variants, data, info, out_dir);
    if (a.fail_on == "slower" && r.count(ab::outcome::slower) > 0) return exit_regression;
    return exit_ok;
}

}  // namespace c2lab::cli

// `c2lab gate` and `c2lab baseline update`: the regression gate's front door (the work is
// in regressions/gate.hpp).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "io.hpp"
#include "regressions/bench_json.hpp"
#include "regressions/gate.hpp"
#include "regressions/html_report.hpp"
#include "regressions/policy.hpp"

namespace c2lab::cli {

namespace fs = std::filesystem;

void write_gate_summary(const gate_args& a, const std::string& head, const regressions::gate_result& result) {
    if (!a.markdown.empty()) write_text_atomic(a.markdown, head + regressions::markdown_summary(result));
    std::cout << head << regressions::markdown_summary(result, a.rows);
}

int run_gate(const gate_args& a) {
    if (a.baseline == "history" || a.baseline.starts_with("history:")) return run_gate_history(a);
    const regressions::bench_run base = regressions::read_bench_run(a.baseline);
    const regressions::bench_run cur = regressions::read_bench_run(a.current);
    const regressions::policy pol =
        a.policy.empty() ? regressions::parse_policy("{}", "(built-in defaults)") : regressions::read_policy(a.policy);
    regressions::gate_options opt;
    opt.allow_other_machine = a.allow_other_machine;
    const regressions::gate_result result = regressions::run_gate(base, cur, pol, opt);
    if (!a.html.empty()) {
        const std::string html = regressions::html_report(result, "c2lab gate: " + a.current + " vs " + a.baseline, &base, &cur);
        write_text_atomic(a.html, html);
    }
    write_gate_summary(a, "", result);
    return result.exit_status() ? exit_regression : exit_ok;
}

int run_baseline_update(const baseline_update_args& a) {
    std::error_code ec;
    if (!fs::is_directory(a.from, ec)) throw error(errc::bad_input, "--from: '" + a.from + "' is not a directory");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(a.from, ec))
        if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    if (ec) throw error(errc::io, a.from + ": cannot list the directory: " + ec.message());
    if (files.empty()) throw error(errc::bad_input, "--from: no *.json files in '" + a.from + "'");
    std::sort(files.begin(), files.end());

    // Every file must parse and come from one machine (read_bench_run checks both).
    const regressions::bench_run run = regressions::read_bench_run(a.from);

    std::string machine;
    if (!a.machine.empty()) {
        if (a.machine != regressions::sanitize_machine_name(a.machine))
            throw error(errc::bad_input, "--machine: '" + a.machine + "' must be made of [a-z0-9-] (try '" +
                                             regressions::sanitize_machine_name(a.machine) + "')");
        machine = a.machine;
    } else {
        machine = regressions::baseline_name(run.machine);
        if (machine.empty())
            throw error(errc::bad_input, a.from + (run.machine.counts_instructions()
                                                       ? ": the instruction counts have no compiler in their context"
                                                       : ": the runs have no cpu_model in their context") +
                                             "; pass --machine NAME");
    }
    if (machine.empty()) throw error(errc::bad_input, "the machine name is empty; pass --machine NAME");

    fs::path dir = fs::path(a.results) / "baselines" / machine;
    if (a.path_only) {
        // A baseline stored before runs recorded their cpu_id is named without it: where the
        // run's own folder does not exist, that one (the gate still compares the cpu_path).
        if (a.machine.empty() && !fs::is_directory(dir, ec)) {
            const fs::path older = fs::path(a.results) / "baselines" / regressions::baseline_name(run.machine, false);
            if (fs::is_directory(older, ec)) dir = older;
        }
        std::cout << dir.string() << "\n";
        return exit_ok;
    }
    fs::create_directories(dir, ec);
    if (ec) throw error(errc::io, dir.string() + ": cannot create the directory: " + ec.message());
    for (const auto& f : files) {
        const std::vector<uint8_t> bytes = read_file(f.string());
        const fs::path to = dir / f.filename();
        write_file_atomic(to.string(), bytes);
        std::cout << "wrote " << to.string() << " (" << bytes.size() << " bytes, from " << f.string() << ")\n";
    }
    std::cout << "baseline for " << (run.machine.counts_instructions() ? "toolchain" : "machine") << " '" << machine << "': " << files.size() << " file(s), " << run.benchmarks.size()
              << " benchmark(s)\n";
    return exit_ok;
}

}  // namespace c2lab::cli

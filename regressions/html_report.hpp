// The gate's result as one self-contained HTML page (no scripts, no external files): the
// verdict, the machine, a forest plot of every benchmark's ratio current / baseline with its
// confidence interval against the margin band (the picture a table of 100 ratios hides:
// which benchmarks moved, how far, how sure), then the table of markdown_summary's columns.
#pragma once

#include <string>

#include "regressions/bench_json.hpp"
#include "regressions/gate.hpp"

namespace c2lab::regressions {

// With the runs (optional), the page also shows every benchmark's samples
// (distributions_svg) under the forest plot.
std::string html_report(const gate_result& result, const std::string& title, const bench_run* baseline = nullptr,
                        const bench_run* current = nullptr);

// Per tested benchmark, the baseline's and the current run's samples of its metric as two
// strips of dots, each value divided by the baseline median, on one shared log axis: the
// spread and the overlap behind each ratio. At most `max_rows` benchmarks (the largest
// changes first).
std::string distributions_svg(const gate_result& result, const bench_run& baseline, const bench_run& current,
                              std::size_t max_rows = 60);

// The forest plot alone (SVG): one row per tested benchmark, the ratio as a dot coloured by
// verdict, its interval as a bar, 1.0 and the +-margin band of each row's rule marked; the
// x axis is logarithmic and spans every interval.
std::string forest_plot_svg(const gate_result& result);

}  // namespace c2lab::regressions

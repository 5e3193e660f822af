// The gate's result as one self-contained HTML page (no scripts, no external files): the
// verdict, the machine, a forest plot of every benchmark's ratio current / baseline with its
// confidence interval against the margin band (the picture a table of 100 ratios hides:
// which benchmarks moved, how far, how sure), then the table of markdown_summary's columns.
#pragma once

#include <string>

#include "regressions/gate.hpp"

namespace c2lab::regressions {

std::string html_report(const gate_result& result, const std::string& title);

// The forest plot alone (SVG): one row per tested benchmark, the ratio as a dot coloured by
// verdict, its interval as a bar, 1.0 and the +-margin band of each row's rule marked; the
// x axis is logarithmic and spans every interval.
std::string forest_plot_svg(const gate_result& result);

}  // namespace c2lab::regressions

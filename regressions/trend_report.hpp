// The history as pictures: one self-contained HTML page (no scripts, no external files) with,
// per benchmark, an SVG line plot of every run's median and interquartile range in run order
// (one line and colour per machine, the change points of change_points.hpp marked with their
// change in percent) and the table of the same numbers beside it. `c2lab history report`
// writes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "regressions/change_points.hpp"

namespace c2lab::regressions {

struct trend_point {
    std::int64_t run_id = 0;
    std::string commit;  // short, "*" when dirty
    std::string time;    // "2026-12-02T15:33:28"
    double median = 0, q1 = 0, q3 = 0;  // of the run's samples
    std::size_t samples = 0;
};

struct trend_line {
    std::string machine;
    std::vector<trend_point> points;      // run order
    std::vector<change_point> changes;    // indexes into points
};

struct trend_series {
    std::string benchmark;
    std::string metric;  // real_time, cpu_time (ns) or a counter
    std::vector<trend_line> lines;
};

// The SVG plot of one series: x = the runs of every line in run-id order, y = the metric
// (time units chosen from the data), a dot per run with its interquartile range as a bar.
std::string trend_svg(const trend_series& s);

// The page: a heading and a summary (series, runs, change points), then per series its plot
// and table.
std::string trend_report_html(const std::vector<trend_series>& series, const std::string& title);

}  // namespace c2lab::regressions

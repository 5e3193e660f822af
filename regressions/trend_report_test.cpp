// The trend page's structure: a plot per series with a line per machine, a marker per change
// point, every name escaped, the table's rows; rendering is checked in Chromium by
// trend_report_chromium_test.sh.
#include "regressions/trend_report.hpp"

#include <gtest/gtest.h>

namespace c2lab::regressions {
namespace {

std::size_t count(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
}

trend_series sample() {
    trend_series s{"msm/<g1>&co", "real_time", {}};
    for (int m = 0; m < 2; ++m) {
        trend_line l{m ? "machine-b" : "machine-\"a\"", {}, {}};
        for (int i = 0; i < 10; ++i) {
            const double v = (i < 5 ? 1.0e6 : 1.06e6) * (1 + 0.01 * m);
            l.points.push_back({2 * i + m + 1, std::string("c").append(std::to_string(i)), "2026-12-03T10:00:00", v, v * 0.99, v * 1.01, 6});
        }
        l.changes.push_back({5, 1.0, 0.005, 1.0e6, 1.06e6});
        s.lines.push_back(l);
    }
    return s;
}

TEST(trend_report, one_plot_per_series_a_line_per_machine_and_the_changes_marked) {
    const trend_series s = sample();
    const std::string svg = trend_svg(s);
    EXPECT_EQ(count(svg, "<svg"), 1u);
    EXPECT_EQ(count(svg, "<polyline class=\"median\""), 2u);
    EXPECT_EQ(count(svg, "<g class=\"change\""), 2u);
    EXPECT_EQ(count(svg, "<g class=\"run\""), 20u);
    EXPECT_EQ(count(svg, "<g"), count(svg, "</g>"));
    EXPECT_NE(svg.find("+6.0% (run 11"), std::string::npos) << "the change of the first machine, at its 6th run";
    EXPECT_NE(svg.find(" ms</text>"), std::string::npos);  // 1e6 ns is shown in ms
    // Names are escaped, never raw.
    EXPECT_EQ(svg.find("<g1>"), std::string::npos);
    EXPECT_NE(svg.find("msm/&lt;g1&gt;&amp;co"), std::string::npos);
    EXPECT_NE(svg.find("machine-&quot;a&quot;"), std::string::npos);
}

TEST(trend_report, the_page_has_every_series_and_its_table) {
    trend_series other = sample();
    other.benchmark = "ntt/h";
    const std::string page = trend_report_html({sample(), other}, "history <test>");
    EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_EQ(count(page, "<svg"), 2u);
    EXPECT_EQ(count(page, "<table>"), 2u);
    EXPECT_EQ(count(page, "<tr class=\"chg\">"), 4u);  // each line's first run after its change
    EXPECT_EQ(count(page, "<tr"), 2u * (1 + 20));
    EXPECT_NE(page.find("2 series, 40 run medians, 4 change point(s)"), std::string::npos);
    EXPECT_NE(page.find("<title>history &lt;test&gt;</title>"), std::string::npos);
    EXPECT_NE(page.find("<th>median (ms)</th>"), std::string::npos);
}

TEST(trend_report, a_flat_or_single_run_series_still_draws) {
    trend_series s{"x", "items/s", {{"m", {{1, "c", "t", 5, 5, 5, 1}}, {}}}};
    const std::string svg = trend_svg(s);
    EXPECT_EQ(count(svg, "<circle"), 1u);
    EXPECT_EQ(svg.find("nan"), std::string::npos);
    EXPECT_EQ(svg.find("inf"), std::string::npos);
}

}  // namespace
}  // namespace c2lab::regressions

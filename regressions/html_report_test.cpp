#include "regressions/html_report.hpp"

#include <gtest/gtest.h>

namespace c2lab::regressions {
namespace {

gate_row row(const std::string& name, double ratio, double lo, double hi, verdict v, bool tested = true) {
    gate_row r;
    r.name = name;
    r.tested = tested;
    r.cmp.n_base = r.cmp.n_cur = 10;
    r.cmp.median_base = 100;
    r.cmp.median_cur = 100 * ratio;
    r.cmp.ci = {ratio, lo, hi};
    r.cmp.p_adjusted = 0.01;
    r.result = v;
    if (!tested) r.note = "too few repetitions";
    return r;
}

size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}

gate_result sample() {
    gate_result r;
    r.current_machine.cpu_model = "Test CPU";
    r.current_machine.num_cpus = 2;
    r.rows = {row("msm/g1<14>", 1.25, 1.2, 1.3, verdict::regressed), row("ntt/fwd", 0.8, 0.75, 0.85, verdict::improved),
              row("ff/mul", 1.0, 0.99, 1.01, verdict::equivalent), row("synth/x", 1, 1, 1, verdict::inconclusive, false)};
    r.only_current = {"new/bench"};
    return r;
}

TEST(html_report, says_fail_and_lists_every_benchmark) {
    const std::string h = html_report(sample(), "gate");
    EXPECT_NE(h.find("gate: FAIL"), std::string::npos);
    for (const char* n : {"msm/g1&lt;14&gt;", "ntt/fwd", "ff/mul", "synth/x", "new/bench"})
        EXPECT_NE(h.find(n), std::string::npos) << n;
    EXPECT_EQ(h.find("msm/g1<14>"), std::string::npos);  // escaped everywhere
    EXPECT_NE(h.find("1.250 [1.200, 1.300]"), std::string::npos);
    EXPECT_NE(h.find("too few repetitions"), std::string::npos);
}

TEST(html_report, pass_without_regressions) {
    gate_result r = sample();
    r.rows.erase(r.rows.begin());
    EXPECT_NE(html_report(r, "gate").find("gate: PASS"), std::string::npos);
}

TEST(html_report, forest_plot_has_one_mark_per_tested_row_and_balanced_tags) {
    const std::string svg = forest_plot_svg(sample());
    EXPECT_EQ(count(svg, "<circle"), 3u);  // the untested row has no mark
    EXPECT_EQ(count(svg, "<svg"), 1u);
    EXPECT_EQ(count(svg, "</svg>"), 1u);
    EXPECT_EQ(count(svg, "<text"), count(svg, "</text>"));
    EXPECT_EQ(count(svg, "<circle"), count(svg, "</circle>"));
    // The regression is drawn right of 1.0 and the improvement left of it: the x of the
    // regressed dot is larger than the improved one's.
    auto cx = [&](size_t nth) {
        size_t at = 0;
        for (size_t i = 0; i <= nth; ++i) at = svg.find("<circle cx=\"", at) + 12;
        return std::stod(svg.substr(at));
    };
    EXPECT_GT(cx(0), cx(2));
    EXPECT_GT(cx(2), cx(1));
}

TEST(html_report, empty_result_is_still_a_page) {
    gate_result r;
    const std::string h = html_report(r, "nothing");
    EXPECT_NE(h.find("no benchmark could be tested"), std::string::npos);
    EXPECT_NE(h.find("</html>"), std::string::npos);
}

}  // namespace
}  // namespace c2lab::regressions

namespace c2lab::regressions {
namespace {

TEST(html_report, distributions_show_every_sample_of_both_runs) {
    const char* base_json = R"({"context": {"cpu_model": "Test CPU", "num_cpus": 2, "build_type": "Release"},
      "benchmarks": [
        {"name": "a", "run_name": "a", "run_type": "iteration", "repetitions": 3, "repetition_index": 0, "iterations": 1, "real_time": 100, "cpu_time": 100, "time_unit": "ns"},
        {"name": "a", "run_name": "a", "run_type": "iteration", "repetitions": 3, "repetition_index": 1, "iterations": 1, "real_time": 101, "cpu_time": 101, "time_unit": "ns"},
        {"name": "a", "run_name": "a", "run_type": "iteration", "repetitions": 3, "repetition_index": 2, "iterations": 1, "real_time": 99, "cpu_time": 99, "time_unit": "ns"}]})";
    std::string cur_json = base_json;
    for (auto [from, to] : {std::pair{"\"real_time\": 100", "\"real_time\": 130"}, {"\"real_time\": 101", "\"real_time\": 131"},
                            {"\"real_time\": 99", "\"real_time\": 129"}})
        cur_json.replace(cur_json.find(from), std::string(from).size(), to);
    const bench_run b = parse_bench_json(base_json, "base");
    const bench_run c = parse_bench_json(cur_json, "cur");
    gate_result r;
    gate_row row;
    row.name = "a";
    row.tested = true;
    row.cmp.median_base = 100;
    row.cmp.median_cur = 130;
    row.cmp.ci = {1.3, 1.28, 1.32};
    row.result = verdict::regressed;
    r.rows = {row};
    const std::string svg = distributions_svg(r, b, c);
    size_t circles = 0, grey = 0;
    for (size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++circles;
    for (size_t at = svg.find("fill=\"#999\""); at != std::string::npos; at = svg.find("fill=\"#999\"", at + 1)) ++grey;
    EXPECT_EQ(circles, 6u);
    EXPECT_EQ(grey, 3u);
    EXPECT_NE(html_report(r, "t", &b, &c).find("<h2>Samples</h2>"), std::string::npos);
}

}  // namespace
}  // namespace c2lab::regressions

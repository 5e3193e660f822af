#include "regressions/html_report.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace c2lab::regressions {

namespace {

std::string esc(const std::string& s) { return xml_escape(s); }

std::string num(double v, const char* fmt = "%.4g") {
    char b[64];
    std::snprintf(b, sizeof b, fmt, v);
    return b;
}

const char* colour(verdict v) {
    switch (v) {
        case verdict::regressed: return "#c0392b";
        case verdict::improved: return "#1e8449";
        case verdict::equivalent: return "#2c3e50";
        case verdict::inconclusive: return "#999999";
    }
    return "#999999";
}

}  // namespace

std::string forest_plot_svg(const gate_result& r) {
    std::vector<const gate_row*> rows;
    for (const auto& row : r.rows)
        if (row.tested) rows.push_back(&row);
    const double label_w = 380, plot_w = 420, row_h = 18, top = 30, right = 150;
    const double height = top + row_h * double(std::max<size_t>(rows.size(), 1)) + 40;
    const double width = label_w + plot_w + right;
    // Log-scale x range covering every interval and the margins, at least [0.9, 1.1].
    double lo = 0.9, hi = 1.1;
    for (const auto* row : rows) {
        lo = std::min({lo, row->cmp.ci.lo, 1 - row->rule.margin});
        hi = std::max({hi, row->cmp.ci.hi, 1 + row->rule.margin});
    }
    lo = std::max(lo, 1e-3);
    const double llo = std::log(lo) - 0.02, lhi = std::log(hi) + 0.02;
    auto x = [&](double v) { return label_w + plot_w * (std::log(std::max(v, 1e-9)) - llo) / (lhi - llo); };

    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    o << "<text x=\"" << label_w << "\" y=\"16\" font-size=\"12\">current / baseline (log scale); bar: "
      << num(r.level * 100, "%.0f") << "% interval; band: the rule's margin</text>\n";
    if (rows.empty()) o << "<text x=\"10\" y=\"" << top + 12 << "\">no benchmark could be tested</text>\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        const gate_row& row = *rows[i];
        const double y = top + row_h * double(i) + row_h / 2;
        const double m = row.rule.margin;
        o << "<rect x=\"" << x(1 - m) << "\" y=\"" << y - row_h / 2 << "\" width=\"" << x(1 + m) - x(1 - m)
          << "\" height=\"" << row_h << "\" fill=\"#eef2f7\"/>\n";
        o << "<text x=\"" << label_w - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">" << esc(row.name)
          << "</text>\n";
        o << "<line x1=\"" << x(row.cmp.ci.lo) << "\" x2=\"" << x(row.cmp.ci.hi) << "\" y1=\"" << y << "\" y2=\"" << y
          << "\" stroke=\"" << colour(row.result) << "\" stroke-width=\"2\"/>\n";
        o << "<circle cx=\"" << x(row.cmp.ci.ratio) << "\" cy=\"" << y << "\" r=\"4\" fill=\"" << colour(row.result)
          << "\"><title>" << esc(row.name) << ": " << num(row.cmp.ci.ratio) << " [" << num(row.cmp.ci.lo) << ", "
          << num(row.cmp.ci.hi) << "] " << esc(row.verdict_text()) << "</title></circle>\n";
        o << "<text x=\"" << label_w + plot_w + 8 << "\" y=\"" << y + 4 << "\" fill=\"" << colour(row.result) << "\">"
          << num(row.cmp.ci.ratio, "%.3f") << " " << esc(std::string(to_string(row.result))) << "</text>\n";
    }
    const double axis_y = top + row_h * double(std::max<size_t>(rows.size(), 1)) + 4;
    o << "<line x1=\"" << x(1) << "\" x2=\"" << x(1) << "\" y1=\"" << top - 4 << "\" y2=\"" << axis_y
      << "\" stroke=\"#555\" stroke-dasharray=\"3,3\"/>\n";
    o << "<line x1=\"" << label_w << "\" x2=\"" << label_w + plot_w << "\" y1=\"" << axis_y << "\" y2=\"" << axis_y
      << "\" stroke=\"#555\"/>\n";
    for (double t : {0.5, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.25, 1.5, 2.0}) {
        if (t < std::exp(llo) || t > std::exp(lhi)) continue;
        o << "<line x1=\"" << x(t) << "\" x2=\"" << x(t) << "\" y1=\"" << axis_y << "\" y2=\"" << axis_y + 4
          << "\" stroke=\"#555\"/><text x=\"" << x(t) << "\" y=\"" << axis_y + 16 << "\" text-anchor=\"middle\">"
          << num(t, "%g") << "</text>\n";
    }
    o << "</svg>\n";
    return o.str();
}

std::string distributions_svg(const gate_result& r, const bench_run& base, const bench_run& cur, std::size_t max_rows) {
    struct strip {
        const gate_row* row;
        std::vector<double> b, c;  // relative to the baseline median
    };
    std::vector<strip> strips;
    for (const auto& row : r.rows) {
        if (!row.tested || row.cmp.median_base <= 0) continue;
        const benchmark_samples* sb = base.find(row.name);
        const benchmark_samples* sc = cur.find(row.name);
        if (!sb || !sc) continue;
        auto values = [&](const benchmark_samples* s) {
            std::vector<double> v;
            if (auto it = s->metrics.find(row.rule.metric); it != s->metrics.end())
                for (double x : it->second)
                    if (x > 0) v.push_back(x / row.cmp.median_base);
            return v;
        };
        strips.push_back({&row, values(sb), values(sc)});
    }
    std::stable_sort(strips.begin(), strips.end(), [](const strip& a, const strip& b) {
        return std::fabs(std::log(a.row->cmp.ci.ratio)) > std::fabs(std::log(b.row->cmp.ci.ratio));
    });
    if (strips.size() > max_rows) strips.resize(max_rows);
    double lo = 0.95, hi = 1.05;
    for (const auto& s : strips) {
        for (double v : s.b) lo = std::min(lo, v), hi = std::max(hi, v);
        for (double v : s.c) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    lo = std::max(lo, 0.25);
    hi = std::min(hi, 4.0);
    const double label_w = 380, plot_w = 420, row_h = 20, top = 30;
    const double llo = std::log(lo) - 0.01, lhi = std::log(hi) + 0.01;
    auto x = [&](double v) {
        const double l = std::min(std::max(std::log(v), llo), lhi);
        return label_w + plot_w * (l - llo) / (lhi - llo);
    };
    const double height = top + row_h * double(std::max<size_t>(strips.size(), 1)) + 36;
    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << label_w + plot_w + 40 << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    o << "<text x=\"" << label_w << "\" y=\"16\" font-size=\"12\">samples / baseline median (log scale): grey "
         "baseline, coloured current</text>\n";
    for (size_t i = 0; i < strips.size(); ++i) {
        const auto& s = strips[i];
        const double y = top + row_h * double(i) + row_h / 2;
        o << "<text x=\"" << label_w - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">" << esc(s.row->name)
          << "</text>\n";
        for (double v : s.b)
            o << "<circle cx=\"" << x(v) << "\" cy=\"" << y - 4 << "\" r=\"2.5\" fill=\"#999\" fill-opacity=\"0.7\"/>\n";
        for (double v : s.c)
            o << "<circle cx=\"" << x(v) << "\" cy=\"" << y + 4 << "\" r=\"2.5\" fill=\"" << colour(s.row->result)
              << "\" fill-opacity=\"0.8\"/>\n";
    }
    const double axis_y = top + row_h * double(std::max<size_t>(strips.size(), 1)) + 4;
    o << "<line x1=\"" << x(1) << "\" x2=\"" << x(1) << "\" y1=\"" << top - 4 << "\" y2=\"" << axis_y
      << "\" stroke=\"#555\" stroke-dasharray=\"3,3\"/>\n";
    o << "<line x1=\"" << label_w << "\" x2=\"" << label_w + plot_w << "\" y1=\"" << axis_y << "\" y2=\"" << axis_y
      << "\" stroke=\"#555\"/>\n";
    for (double t : {0.5, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0})
        if (t >= std::exp(llo) && t <= std::exp(lhi))
            o << "<text x=\"" << x(t) << "\" y=\"" << axis_y + 16 << "\" text-anchor=\"middle\">" << num(t, "%g")
              << "</text>\n";
    o << "</svg>\n";
    return o.str();
}

std::string html_report(const gate_result& r, const std::string& title, const bench_run* base, const bench_run* cur) {
    const bool fail = r.exit_status() != 0;
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << esc(title) << "</title>\n"
      << "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;font-size:13px}"
         "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
         ".regressed{color:#c0392b;font-weight:bold}.improved{color:#1e8449}.inconclusive{color:#888}</style>\n"
      << "</head><body>\n<h1>" << esc(title) << ": " << (fail ? "FAIL" : "PASS") << "</h1>\n";
    o << "<p>" << r.count(verdict::regressed) << " regressed, " << r.count(verdict::improved) << " improved, "
      << r.count(verdict::equivalent) << " equivalent, " << r.count(verdict::inconclusive) << " inconclusive. "
      << "Machine: " << esc(r.current_machine.cpu_model) << ", " << r.current_machine.num_cpus << " CPUs, "
      << esc(r.current_machine.build_type) << ".</p>\n";
    if (!r.machine_differences.empty()) {
        o << "<p class=\"regressed\">The runs come from different machines:";
        for (const auto& d : r.machine_differences) o << " " << esc(d) << ";";
        o << "</p>\n";
    }
    o << forest_plot_svg(r);
    if (base && cur) o << "<h2>Samples</h2>\n" << distributions_svg(r, *base, *cur);
    o << "<table>\n<tr><th>benchmark</th><th>metric</th><th>reps</th><th>baseline</th><th>current</th>"
         "<th>ratio [CI]</th><th>p (adj.)</th><th>verdict</th></tr>\n";
    for (const auto& row : r.rows) {
        const std::string cls(to_string(row.result));
        o << "<tr><td>" << esc(row.name) << "</td><td>" << esc(row.rule.metric) << "</td><td>" << row.cmp.n_base
          << " / " << row.cmp.n_cur << "</td>";
        if (row.tested)
            o << "<td>" << num(row.cmp.median_base) << "</td><td>" << num(row.cmp.median_cur) << "</td><td>"
              << num(row.cmp.ci.ratio, "%.3f") << " [" << num(row.cmp.ci.lo, "%.3f") << ", "
              << num(row.cmp.ci.hi, "%.3f") << "]</td><td>" << (row.exact ? "exact" : num(row.cmp.p_adjusted, "%.2g"))
              << "</td>";
        else
            o << "<td></td><td></td><td></td><td></td>";
        o << "<td class=\"" << cls << "\">" << esc(row.verdict_text()) << "</td></tr>\n";
    }
    o << "</table>\n";
    auto list = [&](const char* what, const std::vector<std::string>& names) {
        if (names.empty()) return;
        o << "<p>" << what << ":";
        for (const auto& n : names) o << " " << esc(n);
        o << "</p>\n";
    };
    list("Only in the baseline", r.only_baseline);
    list("Only in the current run", r.only_current);
    list("Ignored by the policy", r.ignored);
    o << "</body></html>\n";
    return o.str();
}

}  // namespace c2lab::regressions

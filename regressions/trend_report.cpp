#include "regressions/trend_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/text.hpp"

namespace c2lab::regressions {

namespace {

// A colour per machine (the first eight distinct, then repeated).
const char* const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

struct unit {
    double scale;  // divide ns by this
    const char* name;
};
unit unit_for(const std::string& metric, double max_value) {
    if (metric != "real_time" && metric != "cpu_time") return {1, ""};
    if (max_value >= 1e9) return {1e9, "s"};
    if (max_value >= 1e6) return {1e6, "ms"};
    if (max_value >= 1e3) return {1e3, "us"};
    return {1, "ns"};
}

std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}
std::string px(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

}  // namespace

std::string trend_svg(const trend_series& s) {
    // The x positions: every run id of every line, in order.
    std::vector<std::int64_t> ids;
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& l : s.lines)
        for (const auto& p : l.points) {
            ids.push_back(p.run_id);
            lo = std::min({lo, p.q1, p.median});
            hi = std::max({hi, p.q3, p.median});
        }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::map<std::int64_t, std::size_t> x_of;
    for (std::size_t i = 0; i < ids.size(); ++i) x_of[ids[i]] = i;
    if (ids.empty()) {
        lo = 0;
        hi = 1;
    }
    const unit u = unit_for(s.metric, hi);
    // y from a little under the lowest to a little over the highest value (a flat series
    // gets +-5% around it), so that a 6% step fills the plot.
    double span = hi - lo;
    if (span <= 0) span = std::abs(hi) * 0.1 + 1e-12;
    const double y0 = lo - span * 0.08, y1 = hi + span * 0.08;

    const double left = 70, right = 20, top = 20, bottom = 40, plot_w = 640, plot_h = 240;
    const double width = left + plot_w + right, height = top + plot_h + bottom;
    auto X = [&](std::size_t i) { return left + (ids.size() <= 1 ? plot_w / 2 : plot_w * double(i) / double(ids.size() - 1)); };
    auto Y = [&](double v) { return top + plot_h * (1 - (v - y0) / (y1 - y0)); };

    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    o << "<title>" << xml_escape(s.benchmark + " (" + s.metric + ")") << "</title>\n";
    o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n";
    // y axis: five ticks.
    for (int k = 0; k <= 4; ++k) {
        const double v = y0 + (y1 - y0) * k / 4;
        o << "<line x1=\"" << left - 4 << "\" x2=\"" << left + plot_w << "\" y1=\"" << px(Y(v)) << "\" y2=\"" << px(Y(v))
          << "\" stroke=\"#e4e4e4\"/><text x=\"" << left - 6 << "\" y=\"" << px(Y(v) + 4)
          << "\" text-anchor=\"end\">" << num(v / u.scale) << (u.name[0] ? " " : "") << u.name << "</text>\n";
    }
    // x axis: the run ids (at most ~12 labels).
    const std::size_t every = std::max<std::size_t>(1, (ids.size() + 11) / 12);
    for (std::size_t i = 0; i < ids.size(); i += every)
        o << "<text x=\"" << px(X(i)) << "\" y=\"" << top + plot_h + 16 << "\" text-anchor=\"middle\">" << ids[i]
          << "</text>\n";
    o << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << height - 6 << "\" text-anchor=\"middle\">run</text>\n";

    for (std::size_t li = 0; li < s.lines.size(); ++li) {
        const trend_line& l = s.lines[li];
        const char* colour = palette[li % std::size(palette)];
        // Change points first, under the data: a dashed rule before the first run after the change.
        for (const change_point& c : l.changes) {
            if (c.index == 0 || c.index >= l.points.size()) continue;
            const double x = (X(x_of[l.points[c.index - 1].run_id]) + X(x_of[l.points[c.index].run_id])) / 2;
            char pct[32];
            std::snprintf(pct, sizeof pct, "%+.1f%%", 100 * c.relative_change());
            o << "<g class=\"change\"><line x1=\"" << px(x) << "\" x2=\"" << px(x) << "\" y1=\"" << top << "\" y2=\""
              << top + plot_h << "\" stroke=\"" << colour << "\" stroke-dasharray=\"4 3\"/><text x=\"" << px(x + 3)
              << "\" y=\"" << top + 12 << "\" fill=\"" << colour << "\">" << pct << " (run " << l.points[c.index].run_id
              << ", p " << num(c.p_value) << ")</text></g>\n";
        }
        o << "<polyline class=\"median\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" points=\"";
        for (const auto& p : l.points) o << px(X(x_of[p.run_id])) << "," << px(Y(p.median)) << " ";
        o << "\"/>\n";
        for (const auto& p : l.points) {
            const double x = X(x_of[p.run_id]);
            o << "<g class=\"run\"><title>" << xml_escape(l.machine) << ": run " << p.run_id << " (" << xml_escape(p.commit)
              << ", " << xml_escape(p.time) << "): median " << num(p.median / u.scale) << " " << u.name << ", IQR "
              << num(p.q1 / u.scale) << "-" << num(p.q3 / u.scale) << ", " << p.samples << " samples</title>"
              << "<line x1=\"" << px(x) << "\" x2=\"" << px(x) << "\" y1=\"" << px(Y(p.q1)) << "\" y2=\"" << px(Y(p.q3))
              << "\" stroke=\"" << colour << "\" stroke-opacity=\"0.5\" stroke-width=\"3\"/><circle cx=\"" << px(x)
              << "\" cy=\"" << px(Y(p.median)) << "\" r=\"2.5\" fill=\"" << colour << "\"/></g>\n";
        }
        // Legend.
        o << "<rect x=\"" << left + 8 << "\" y=\"" << top + plot_h - 14 - 14 * double(li) << "\" width=\"10\" height=\"10\" fill=\""
          << colour << "\"/><text x=\"" << left + 22 << "\" y=\"" << top + plot_h - 5 - 14 * double(li) << "\">"
          << xml_escape(l.machine) << "</text>\n";
    }
    o << "</svg>\n";
    return o.str();
}

std::string trend_report_html(const std::vector<trend_series>& series, const std::string& title) {
    std::size_t runs = 0, changes = 0;
    for (const auto& s : series)
        for (const auto& l : s.lines) {
            runs += l.points.size();
            changes += l.changes.size();
        }
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << xml_escape(title) << "</title>\n"
      << "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;font-size:12px}"
         "td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}th{background:#f3f3f3}"
         ".series{display:flex;gap:2em;align-items:flex-start;flex-wrap:wrap;margin-bottom:2em}"
         ".tbl{max-height:300px;overflow-y:auto}.chg{background:#fff2cc}</style></head><body>\n"
      << "<h1>" << xml_escape(title) << "</h1>\n<p>" << series.size() << " series, " << runs << " run medians, " << changes
      << " change point(s) (marked by dashed rules). Each dot is a run's median, its bar the "
         "interquartile range of the run's samples; one colour per machine.</p>\n";
    for (const auto& s : series) {
        double hi = 0;
        for (const auto& l : s.lines)
            for (const auto& p : l.points) hi = std::max(hi, p.q3);
        const unit u = unit_for(s.metric, hi);
        const std::string in = u.name[0] ? std::string(" (") + u.name + ")" : std::string();
        o << "<h2>" << xml_escape(s.benchmark) << " <small>(" << xml_escape(s.metric) << ")</small></h2>\n"
          << "<div class=\"series\">\n" << trend_svg(s) << "<div class=\"tbl\"><table><tr><th>machine</th><th>run</th>"
          << "<th>commit</th><th>time (UTC)</th><th>median" << in << "</th><th>q1</th><th>q3</th><th>n</th></tr>\n";
        for (const auto& l : s.lines)
            for (std::size_t i = 0; i < l.points.size(); ++i) {
                const trend_point& p = l.points[i];
                const bool at_change = std::any_of(l.changes.begin(), l.changes.end(),
                                                   [&](const change_point& c) { return c.index == i; });
                o << "<tr" << (at_change ? " class=\"chg\"" : "") << "><td>" << xml_escape(l.machine) << "</td><td>"
                  << p.run_id << "</td><td>" << xml_escape(p.commit) << "</td><td>" << xml_escape(p.time) << "</td><td>"
                  << num(p.median / u.scale) << "</td><td>" << num(p.q1 / u.scale) << "</td><td>" << num(p.q3 / u.scale)
                  << "</td><td>" << p.samples
                  << "</td></tr>\n";
            }
        o << "</table></div></div>\n";
    }
    o << "</body></html>\n";
    return o.str();
}

}  // namespace c2lab::regressions

#include "pipeline/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/text.hpp"

namespace c2lab::pipeline {

void timeline::add_job_spans(std::size_t job, const groth16::stage_report& report,
                             std::chrono::steady_clock::time_point origin) {
    auto ms = [&](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double, std::milli>(t - origin).count();
    };
    for (const auto& s : report.spans()) events.push_back({job, s.name, ms(s.start), ms(s.end)});
}

std::vector<std::string> timeline::problems() const {
    std::vector<std::string> out;
    std::vector<std::size_t> per_job(job_names.size(), 0);
    for (const auto& e : events) {
        const std::string what = "job " + std::to_string(e.job) + " stage " + e.stage;
        if (e.job >= job_names.size()) {
            out.push_back(what + ": no such job");
            continue;
        }
        ++per_job[e.job];
        if (e.start_ms < 0) out.push_back(what + " starts before the batch");
        if (e.end_ms < e.start_ms) out.push_back(what + " ends before it starts");
        if (e.end_ms > wall_ms + 1e-6) out.push_back(what + " ends after the batch");
    }
    for (std::size_t j = 0; j < per_job.size(); ++j)
        if (per_job[j] == 0) out.push_back("job " + std::to_string(j) + " has no stage");
    return out;
}

nlohmann::json timeline::to_json() const {
    nlohmann::json jobs = nlohmann::json::array(), evs = nlohmann::json::array();
    for (std::size_t j = 0; j < job_names.size(); ++j) jobs.push_back({{"job", j}, {"name", job_names[j]}});
    for (const auto& e : events)
        evs.push_back({{"job", e.job}, {"stage", e.stage}, {"start_ms", e.start_ms}, {"end_ms", e.end_ms}});
    return {{"wall_ms", wall_ms}, {"jobs", jobs}, {"events", evs}};
}

namespace {

// A fixed colour per known stage; others cycle through the rest.
std::string colour_of(const std::string& stage, std::map<std::string, std::string>& assigned) {
    static const std::map<std::string, std::string> known = {
        {"queue", "#d9d9d9"},   {"synthesize", "#4e79a7"}, {"ntt", "#f28e2b"},     {"msm_h", "#e15759"},
        {"msm_l", "#76b7b2"},   {"msm_a", "#59a14f"},      {"msm_b_g1", "#edc948"}, {"msm_b_g2", "#b07aa1"},
        {"assemble", "#ff9da7"}, {"construct", "#9c755f"}, {"c1_decode", "#bab0ac"}};
    if (auto it = known.find(stage); it != known.end()) return it->second;
    static const char* spare[] = {"#8cd17d", "#86bcb6", "#f1ce63", "#d37295", "#a0cbe8"};
    auto [it, fresh] = assigned.try_emplace(stage, spare[assigned.size() % 5]);
    return it->second;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

}  // namespace

std::string timeline::to_svg() const {
    const double left = 170, right = 30, top = 40, lane = 26, bar = 18, width = 1000;
    const double span = std::max(wall_ms, 1e-3);
    const double plot_w = width - left - right;
    const double height = top + lane * double(std::max<std::size_t>(job_names.size(), 1)) + 70;
    auto x = [&](double ms) { return left + plot_w * ms / span; };
    std::map<std::string, std::string> spare;
    std::vector<std::string> legend;
    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    o << "<text x=\"" << num(left) << "\" y=\"20\" font-size=\"14\">c2lab batch timeline: " << job_names.size()
      << " jobs, " << num(wall_ms / 1000) << " s</text>\n";
    // time axis: about 10 ticks at a round step
    const double raw = span / 10;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    const double axis_y = top + lane * double(job_names.size()) + 8;
    for (double t = 0; t <= span + 1e-9; t += step) {
        o << "<line x1=\"" << num(x(t)) << "\" y1=\"" << num(top - 4) << "\" x2=\"" << num(x(t)) << "\" y2=\""
          << num(axis_y) << "\" stroke=\"#eeeeee\"/>\n";
        o << "<text x=\"" << num(x(t)) << "\" y=\"" << num(axis_y + 14) << "\" text-anchor=\"middle\">"
          << num(t / 1000) << " s</text>\n";
    }
    for (std::size_t j = 0; j < job_names.size(); ++j)
        o << "<text x=\"" << num(left - 6) << "\" y=\"" << num(top + lane * double(j) + bar - 4)
          << "\" text-anchor=\"end\">" << xml_escape(job_names[j]) << "</text>\n";
    for (const auto& e : events) {
        if (e.job >= job_names.size()) continue;
        const std::string c = colour_of(e.stage, spare);
        if (std::find(legend.begin(), legend.end(), e.stage) == legend.end()) legend.push_back(e.stage);
        const double w = std::max(x(e.end_ms) - x(e.start_ms), 0.5);
        o << "<rect x=\"" << num(x(e.start_ms)) << "\" y=\"" << num(top + lane * double(e.job)) << "\" width=\""
          << num(w) << "\" height=\"" << num(bar) << "\" fill=\"" << c << "\"><title>" << xml_escape(e.stage) << ": "
          << num(e.start_ms) << " to " << num(e.end_ms) << " ms (" << num(e.end_ms - e.start_ms)
          << " ms)</title></rect>\n";
    }
    double lx = left;
    const double ly = axis_y + 34;
    for (const auto& st : legend) {
        o << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly - 10) << "\" width=\"12\" height=\"12\" fill=\""
          << colour_of(st, spare) << "\"/><text x=\"" << num(lx + 16) << "\" y=\"" << num(ly) << "\">"
          << xml_escape(st) << "</text>\n";
        lx += 24 + 7.5 * double(st.size());
    }
    o << "</svg>\n";
    return o.str();
}

}  // namespace c2lab::pipeline

#include "groth16/stage_report.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

namespace c2lab::groth16 {

double process_cpu_ms() noexcept {
    timespec t{};
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

void stage_report::add(std::string_view name, double ms, double cpu_ms) {
    for (size_t i = 0; i < stages_.size(); ++i)
        if (stages_[i].first == name) {
            stages_[i].second += ms;
            if (cpu_ms >= 0) cpu_[i] = std::max(cpu_[i], 0.0) + cpu_ms;
            return;
        }
    stages_.emplace_back(std::string(name), ms);
    cpu_.push_back(cpu_ms >= 0 ? cpu_ms : -1);
}

void stage_report::add_span(std::string_view name, std::chrono::steady_clock::time_point start,
                            std::chrono::steady_clock::time_point end, double cpu_ms) {
    add(name, std::chrono::duration<double, std::milli>(end - start).count(), cpu_ms);
    spans_.push_back({std::string(name), start, end, cpu_ms});
}

void stage_report::add_spans(const stage_report& from) {
    for (const stage_span& sp : from.spans_) add_span(sp.name, sp.start, sp.end, sp.cpu_ms);
}

double stage_report::cpu_ms(std::string_view name) const noexcept {
    for (size_t i = 0; i < stages_.size(); ++i)
        if (stages_[i].first == name) return cpu_[i];
    return -1;
}

double stage_report::ms(std::string_view name) const noexcept {
    for (const auto& [n, v] : stages_)
        if (n == name) return v;
    return -1;
}

double stage_report::total_ms() const noexcept {
    double t = 0;
    for (const auto& [n, v] : stages_) t += v;
    return t;
}

std::string stage_report::table() const {
    // cores: cpu_ms / ms, the cores the stage kept busy on average (blank where not measured,
    // or where the stage took under a millisecond: the ratio is noise there).
    std::string out = "stage              ms      cpu_ms  cores\n";
    char line[128];
    for (size_t i = 0; i < stages_.size(); ++i) {
        const auto& [n, v] = stages_[i];
        const double c = cpu_[i];
        if (c < 0)
            std::snprintf(line, sizeof line, "%-12s %10.3f\n", n.c_str(), v);
        else if (v < 1)
            std::snprintf(line, sizeof line, "%-12s %10.3f %11.3f\n", n.c_str(), v, c);
        else
            std::snprintf(line, sizeof line, "%-12s %10.3f %11.3f %6.2f\n", n.c_str(), v, c, c / v);
        out += line;
    }
    std::snprintf(line, sizeof line, "%-12s %10.3f\n", "total", total_ms());
    return out + line;
}

nlohmann::json stage_report::to_json() const {
    nlohmann::json stages = nlohmann::json::array();
    for (size_t i = 0; i < stages_.size(); ++i) {
        nlohmann::json s = {{"name", stages_[i].first}, {"ms", stages_[i].second}};
        if (cpu_[i] >= 0) s["cpu_ms"] = cpu_[i];
        stages.push_back(std::move(s));
    }
    return {{"stages", stages}, {"total_ms", total_ms()}};
}

}  // namespace c2lab::groth16

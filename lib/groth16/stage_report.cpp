#include "groth16/stage_report.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace c2lab::groth16 {

void stage_report::add(std::string_view name, double ms) {
    for (auto& [n, v] : stages_)
        if (n == name) {
            v += ms;
            return;
        }
    stages_.emplace_back(std::string(name), ms);
}

void stage_report::add_span(std::string_view name, std::chrono::steady_clock::time_point start,
                            std::chrono::steady_clock::time_point end) {
    add(name, std::chrono::duration<double, std::milli>(end - start).count());
    spans_.push_back({std::string(name), start, end});
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
    std::string out = "stage              ms\n";
    char line[96];
    for (const auto& [n, v] : stages_) {
        std::snprintf(line, sizeof line, "%-12s %10.3f\n", n.c_str(), v);
        out += line;
    }
    std::snprintf(line, sizeof line, "%-12s %10.3f\n", "total", total_ms());
    return out + line;
}

nlohmann::json stage_report::to_json() const {
    nlohmann::json stages = nlohmann::json::array();
    for (const auto& [n, v] : stages_) stages.push_back({{"name", n}, {"ms", v}});
    return {{"stages", stages}, {"total_ms", total_ms()}};
}

}  // namespace c2lab::groth16

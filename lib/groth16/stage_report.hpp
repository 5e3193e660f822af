// stage_report: wall time per named stage, in the order stages were first recorded
// (a stage recorded twice accumulates). Filled by scoped_stage, printable as a table and
// as JSON ({"stages": [{"name": ..., "ms": ...}, ...], "total_ms": ...}). Stages recorded with
// their start and end (add_span, scoped_stage) are also kept as spans, for a timeline.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace c2lab::groth16 {

struct stage_span {
    std::string name;
    std::chrono::steady_clock::time_point start, end;
};

class stage_report {
public:
    void add(std::string_view name, double ms);
    // add(name, end - start) and the span itself.
    void add_span(std::string_view name, std::chrono::steady_clock::time_point start,
                  std::chrono::steady_clock::time_point end);
    const std::vector<stage_span>& spans() const noexcept { return spans_; }
    // Milliseconds of the stage, or -1 when it was never recorded.
    double ms(std::string_view name) const noexcept;
    const std::vector<std::pair<std::string, double>>& stages() const noexcept { return stages_; }
    // Sum of the stages (overlapping stages, e.g. a parallel msm_b_g2, are counted in full).
    double total_ms() const noexcept;
    std::string table() const;
    nlohmann::json to_json() const;

private:
    std::vector<std::pair<std::string, double>> stages_;
    std::vector<stage_span> spans_;
};

// Adds the time from construction to destruction to report (when not null) under name.
class scoped_stage {
public:
    scoped_stage(stage_report* report, std::string_view name)
        : report_(report), name_(name), start_(std::chrono::steady_clock::now()) {}
    ~scoped_stage() {
        if (report_) report_->add_span(name_, start_, std::chrono::steady_clock::now());
    }
    scoped_stage(const scoped_stage&) = delete;
    scoped_stage& operator=(const scoped_stage&) = delete;

private:
    stage_report* report_;
    std::string_view name_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace c2lab::groth16

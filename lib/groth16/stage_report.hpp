// stage_report: wall time per named stage, in the order stages were first recorded
// (a stage recorded twice accumulates). Filled by scoped_stage, printable as a table and
// as JSON ({"stages": [{"name": ..., "ms": ..., "cpu_ms": ...}, ...], "total_ms": ...}). Stages
// recorded with their start and end (add_span, scoped_stage) are also kept as spans, for a
// timeline.
//
// cpu_ms is the process's CPU time (every thread, user + system) while the stage ran, where it
// was measured (scoped_stage measures it); over the wall time it says how many cores the stage
// kept busy: on 2 cores, 1.0 is a stage that left one idle. Where stages overlap (a batch's jobs
// in flight, params_load=overlap, b_g2_msm=parallel) it counts the CPU time of the others too.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace c2lab::groth16 {

// CPU time of the whole process (every thread, user + system), in milliseconds.
double process_cpu_ms() noexcept;

struct stage_span {
    std::string name;
    std::chrono::steady_clock::time_point start, end;
    double cpu_ms = -1;  // -1: not measured
};

class stage_report {
public:
    // cpu_ms < 0: not measured (the stage's CPU time stays unknown unless a later add of the
    // same name measures it; then only the measured parts add up).
    void add(std::string_view name, double ms, double cpu_ms = -1);
    // add(name, end - start, cpu_ms) and the span itself.
    void add_span(std::string_view name, std::chrono::steady_clock::time_point start,
                  std::chrono::steady_clock::time_point end, double cpu_ms = -1);
    const std::vector<stage_span>& spans() const noexcept { return spans_; }
    // Every span of `from` added here (add_span), with its CPU time: a report filled on another
    // thread, joined once that thread is done.
    void add_spans(const stage_report& from);
    // Milliseconds of the stage, or -1 when it was never recorded.
    double ms(std::string_view name) const noexcept;
    // CPU milliseconds of the stage, or -1 when it was never recorded or never measured.
    double cpu_ms(std::string_view name) const noexcept;
    const std::vector<std::pair<std::string, double>>& stages() const noexcept { return stages_; }
    // Sum of the stages (overlapping stages, e.g. a parallel msm_b_g2, are counted in full).
    double total_ms() const noexcept;
    std::string table() const;
    nlohmann::json to_json() const;

private:
    std::vector<std::pair<std::string, double>> stages_;
    std::vector<double> cpu_;  // per entry of stages_; -1: not measured
    std::vector<stage_span> spans_;
};

// Adds the time from construction to destruction to report (when not null) under name, with the
// process's CPU time over it.
class scoped_stage {
public:
    scoped_stage(stage_report* report, std::string_view name)
        : report_(report), name_(name), cpu_start_(report ? process_cpu_ms() : 0), start_(std::chrono::steady_clock::now()) {}
    ~scoped_stage() {
        if (report_) {
            const auto end = std::chrono::steady_clock::now();
            report_->add_span(name_, start_, end, process_cpu_ms() - cpu_start_);
        }
    }
    scoped_stage(const scoped_stage&) = delete;
    scoped_stage& operator=(const scoped_stage&) = delete;

private:
    stage_report* report_;
    std::string_view name_;
    double cpu_start_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace c2lab::groth16

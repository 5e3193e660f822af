// The timeline of a batch of proofs: every stage of every job, with its start and end in
// milliseconds from the batch's start, so that a person sees overlap (the next job's synthesis
// during this job's MSMs), idle gaps and the bottleneck stage at a glance.
//
//   to_json():  {"wall_ms": W, "jobs": [{"job": 0, "name": "a.json#0"}, ...],
//                "events": [{"job": 0, "stage": "synthesize", "start_ms": 0.0, "end_ms": 812.5}, ...]}
//   to_svg():   one lane per job, one bar per stage (a colour per stage name, with a legend),
//               a time axis in seconds; hovering a bar shows its stage and times.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "groth16/stage_report.hpp"

namespace c2lab::pipeline {

struct timeline_event {
    std::size_t job = 0;
    std::string stage;
    double start_ms = 0, end_ms = 0;
};

struct timeline {
    std::vector<std::string> job_names;  // index = job
    std::vector<timeline_event> events;  // in the order recorded
    double wall_ms = 0;

    // The spans of one job's report, relative to origin.
    void add_job_spans(std::size_t job, const groth16::stage_report& report,
                       std::chrono::steady_clock::time_point origin);

    // What is wrong with it, if anything: an event that ends before it starts or starts
    // before 0, an event of an unknown job, a job without events. Empty when well formed.
    std::vector<std::string> problems() const;

    nlohmann::json to_json() const;
    std::string to_svg() const;
};

}  // namespace c2lab::pipeline

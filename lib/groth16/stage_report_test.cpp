// stage_report: wall and CPU time per stage, the table's cores column and the JSON.
#include "groth16/stage_report.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using namespace c2lab::groth16;

// Burns CPU on the calling thread until the process has used `ms` more of it.
void spin_for_cpu(double ms) {
    const double until = process_cpu_ms() + ms;
    volatile unsigned long sink = 0;
    while (process_cpu_ms() < until)
        for (int i = 0; i < 10000; ++i) sink = sink + i;
}

// This thread's CPU time, so that two spinning threads each count their own.
double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

TEST(stage_report, a_sleeping_stage_takes_wall_time_and_hardly_any_cpu) {
    stage_report rep;
    {
        scoped_stage st(&rep, "sleep");
        std::this_thread::sleep_for(std::chrono::milliseconds(40));
    }
    EXPECT_GE(rep.ms("sleep"), 40);
    EXPECT_GE(rep.cpu_ms("sleep"), 0);
    EXPECT_LT(rep.cpu_ms("sleep"), 20);
}

TEST(stage_report, cpu_time_counts_every_thread_of_the_process) {
    stage_report rep;
    {
        scoped_stage st(&rep, "two_threads");
        std::atomic<int> started{0};
        auto burn = [&] {
            ++started;
            while (started.load() < 2) {
            }
            const double until = thread_cpu_ms() + 30;
            volatile unsigned long sink = 0;
            while (thread_cpu_ms() < until)
                for (int i = 0; i < 10000; ++i) sink = sink + i;
        };
        std::thread a(burn), b(burn);
        a.join();
        b.join();
    }
    // 30 ms of CPU on each thread: at least 60 in all, whatever the wall time was.
    EXPECT_GE(rep.cpu_ms("two_threads"), 60);
    EXPECT_GT(rep.ms("two_threads"), 0);
}

TEST(stage_report, table_and_json_carry_the_cpu_time_where_measured) {
    stage_report rep;
    {
        scoped_stage st(&rep, "busy");
        spin_for_cpu(25);
    }
    rep.add("unmeasured", 12.5);
    EXPECT_GE(rep.cpu_ms("busy"), 25);
    EXPECT_EQ(rep.cpu_ms("unmeasured"), -1);
    EXPECT_EQ(rep.cpu_ms("absent"), -1);

    const std::string t = rep.table();
    EXPECT_NE(t.find("cpu_ms"), std::string::npos);
    EXPECT_NE(t.find("cores"), std::string::npos);
    const auto line_of = [&](const std::string& name) {
        const auto at = t.find(name);
        return t.substr(at, t.find('\n', at) - at);
    };
    // busy: name, ms, cpu_ms and the cores (cpu / wall); unmeasured: name and ms alone.
    std::vector<std::string> busy_fields, unmeasured_fields;
    for (auto [line, out] : {std::pair{line_of("busy"), &busy_fields}, std::pair{line_of("unmeasured"), &unmeasured_fields}}) {
        size_t i = 0;
        while (i < line.size()) {
            const size_t s = line.find_first_not_of(' ', i);
            if (s == std::string::npos) break;
            const size_t e = line.find(' ', s);
            out->push_back(line.substr(s, e == std::string::npos ? std::string::npos : e - s));
            i = e == std::string::npos ? line.size() : e;
        }
    }
    ASSERT_EQ(busy_fields.size(), 4u) << line_of("busy");
    EXPECT_NEAR(std::stod(busy_fields[3]), std::stod(busy_fields[2]) / std::stod(busy_fields[1]), 0.01);
    EXPECT_EQ(unmeasured_fields.size(), 2u) << line_of("unmeasured");

    const nlohmann::json j = rep.to_json();
    ASSERT_EQ(j["stages"].size(), 2u);
    EXPECT_EQ(j["stages"][0]["name"], "busy");
    EXPECT_GE(j["stages"][0]["cpu_ms"].get<double>(), 25);
    EXPECT_FALSE(j["stages"][1].contains("cpu_ms"));
}

TEST(stage_report, cpu_time_accumulates_over_the_measured_parts) {
    stage_report rep;
    rep.add("msm", 10, 5);
    rep.add("msm", 10);  // not measured: the wall time adds, the CPU time stays
    rep.add("msm", 10, 7);
    EXPECT_DOUBLE_EQ(rep.ms("msm"), 30);
    EXPECT_DOUBLE_EQ(rep.cpu_ms("msm"), 12);
    rep.add("late", 4);
    rep.add("late", 4, 3);  // measured only the second time
    EXPECT_DOUBLE_EQ(rep.cpu_ms("late"), 3);
}

// A report filled elsewhere joins another span by span, each with its own CPU time (two spans
// of one name add up, the unmeasured one leaving the CPU time alone).
TEST(stage_report, add_spans_joins_each_span_with_its_cpu_time) {
    using clock = std::chrono::steady_clock;
    const clock::time_point t0 = clock::now(), t1 = t0 + std::chrono::milliseconds(10),
                            t2 = t1 + std::chrono::milliseconds(5);
    stage_report from, into;
    from.add_span("load", t0, t1, 4);
    from.add_span("load", t1, t2, 3);
    from.add_span("open", t0, t2);
    into.add_span("synthesize", t2, t2 + std::chrono::milliseconds(1), 1);
    into.add_spans(from);
    ASSERT_EQ(into.spans().size(), 4u);
    EXPECT_EQ(into.spans()[1].name, "load");
    EXPECT_DOUBLE_EQ(into.spans()[1].cpu_ms, 4);
    EXPECT_DOUBLE_EQ(into.spans()[2].cpu_ms, 3);
    EXPECT_DOUBLE_EQ(into.ms("load"), 15);
    EXPECT_DOUBLE_EQ(into.cpu_ms("load"), 7);
    EXPECT_EQ(into.cpu_ms("open"), -1);
    EXPECT_DOUBLE_EQ(into.cpu_ms("synthesize"), 1);
}

}  // namespace

// The main of the c2lab benchmark binaries: the c2lab arguments are taken out of argv before
// Google Benchmark parses the rest.
//
//   --flag name=variant   (repeatable) run only that variant of the flag's benchmarks; the
//                         names and variants are the registry's (`c2lab flags`), the
//                         test-only flags included
//   --dataset NAME        the C1 dataset of the PoRep stage benchmarks (datasets/manifest.json)
//
// The chosen flags and dataset go into the JSON context ("flag.<name>", "dataset"), so a run
// says which variant it measured. Harnesses register their benchmarks in functions added
// with C2LAB_BENCH_REGISTRATION, run after the arguments are known: a harness registers only
// the selected variants (bench::selected) and so one binary serves every variant of an A/B.
#pragma once

#include <string>
#include <string_view>

#include "pipeline/flags.hpp"
#include "pipeline/test_flags.hpp"

namespace c2lab::bench {

struct options {
    pipeline::flag_values flags;  // every flag's value: the default unless given
    pipeline::test_flag_values test_flags;  // the test-only flags (pipeline/test_flags.hpp)
    std::vector<std::pair<std::string, std::string>> given;  // --flag settings, as given
    std::string dataset;          // empty: the harness's own list
};

const options& opts() noexcept;

// True unless --flag `flag`=... was given with another variant.
bool selected(std::string_view flag, std::string_view variant);

// The dataset names to run: --dataset, else `defaults`.
std::vector<std::string> datasets_or(std::vector<std::string> defaults);

int add_registration(void (*fn)());

}  // namespace c2lab::bench

#define C2LAB_BENCH_CONCAT2(a, b) a##b
#define C2LAB_BENCH_CONCAT(a, b) C2LAB_BENCH_CONCAT2(a, b)
#define C2LAB_BENCH_REGISTRATION(fn) \
    static const int C2LAB_BENCH_CONCAT(c2lab_bench_registration_, __LINE__) = ::c2lab::bench::add_registration(fn)

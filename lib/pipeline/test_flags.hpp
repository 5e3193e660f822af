// The test-only flags: known slowdowns that calibrate the judge, kept apart from the engine's
// flags (flags.hpp) so that no production type carries them. The benchmark binaries take them
// with `--flag` beside the engine's (parse_all_flags), `c2lab ab` accepts them in a design,
// `c2lab flags` lists them under their own heading, and `c2lab prove` refuses them.
//
//   inject_slowdown        ab_probe/* (bench_probe) does that much more work: off, aa (off
//                          under another name, for A/A runs), 1pct, 2pct, 5pct, 10pct
//   inject_stage_slowdown  bench_prove's hash-chain proofs: the named prover stage (ntt,
//                          msm_h, msm_l) takes four times as long as its work took, its
//                          threads busy meanwhile, through the prover's stage hook
//                          (groth16::prover_config::stage_hook)
#pragma once

#include <span>
#include <string>
#include <vector>

#include "pipeline/flags.hpp"

namespace c2lab::pipeline {

struct test_flag_values {
    std::string inject_slowdown = "off";
    std::string inject_stage_slowdown = "off";

    unsigned inject_slowdown_pct() const noexcept;
    // The prover's stage hook for inject_stage_slowdown, empty when it is off.
    groth16::stage_hook stage_hook() const;
};

std::span<const flag_def<test_flag_values>> test_flag_registry() noexcept;

// Engine and test-only values from one list of settings (the benchmark binaries' --flag).
struct all_flag_values {
    flag_values engine;
    test_flag_values test;
};
// As parse_flags, over both tables; errc::bad_input for a name in neither.
all_flag_values parse_all_flags(std::span<const std::string> settings);

}  // namespace c2lab::pipeline

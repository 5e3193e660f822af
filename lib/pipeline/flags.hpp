// The flag registry of c2lab: every engine variant a run can choose with
// `--flag name=value`, its variants, default and the pipeline stage it affects. This table is
// the one list the CLI and the benchmarks read (`c2lab flags` prints it; `--flag` is checked
// against it); the
// parsing of each value is the library's own (with_lc_indexer, parse_presize,
// window_policy::parse, parse_b_g2_msm, parse_backend_kind, parse_params_io,
// groth16::parse_host_pinning), so the messages match the library's.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "groth16/host_pinning.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "msm/window.hpp"
#include "porep/c1_json.hpp"
#include "r1cs/pce.hpp"
#include "r1cs/proving_assignment.hpp"

namespace c2lab::pipeline {

struct flag_info {
    std::string_view name;
    std::string_view variants;  // as the user writes them, "|"-separated
    std::string_view default_value;
    std::string_view stage;
    std::string_view description;
};

std::span<const flag_info> flag_registry() noexcept;

// The chosen value of every flag (defaults unless set).
struct flag_values {
    std::string lc_indexer = "vec";
    r1cs::presize_mode presize = r1cs::presize_mode::off;
    msm::window_policy msm_window = msm::window_policy::ln();
    groth16::b_g2_msm b_g2 = groth16::b_g2_msm::serial;
    bool msm_split = false;        // msm_split=on: 0/1 scalars summed before Pippenger
    r1cs::synth_mode synth = r1cs::synth_mode::direct;  // synth=direct|pce
    porep::c1_json_decoder c1_json = porep::c1_json_decoder::nlohmann;
    groth16::params_io params_io = groth16::params_io::mmap;
    groth16::backend_kind backend = groth16::backend_kind::cpu;
    groth16::host_pinning host_pinning = groth16::host_pinning::off;
    // Test only (the A/B runner's calibration): extra work in percent that the probe
    // benchmark ab_probe/* adds; "aa" is a second name for 0, for A/A runs.
    std::string inject_slowdown = "off";
    // Test only (the gate's stage tracing): "off", or a prover stage done twice.
    std::string inject_stage_slowdown = "off";
    // prover_config::repeat_stage for it ("" when off).
    std::string repeat_stage() const { return inject_stage_slowdown == "off" ? "" : inject_stage_slowdown; }
    unsigned inject_slowdown_pct() const noexcept;

    // The prover's settings these flags choose (msm_window, b_g2_msm, the test-only stage
    // slowdown), with `backend` (from gpu::make_prover_backend(backend, host_pinning); null = CPU).
    groth16::prover_config prover(groth16::prover_backend* backend = nullptr) const;

    // name -> value as text, in registry order.
    std::vector<std::pair<std::string, std::string>> as_text() const;
};

// Applies "name=value" settings in order (a later one wins). Throws c2lab::error(bad_input)
// naming the flag for a missing '=', an unknown name or a bad value.
flag_values parse_flags(std::span<const std::string> settings);

// The registry as an aligned text table.
std::string flags_table();

}  // namespace c2lab::pipeline

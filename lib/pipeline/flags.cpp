#include "pipeline/flags.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "r1cs/linear_combination.hpp"

namespace c2lab::pipeline {

namespace {
constexpr flag_info registry[] = {
    {"lc_indexer", "vec|smallvec1|smallvec2|smallvec4", "vec", "synthesize",
     "storage of a linear combination's terms (std::vector or small_vector with N inline terms)"},
    {"presize", "off|on", "off", "synthesize",
     "reserve the proving assignment's vectors from a shape count before synthesis"},
    {"msm_window", "ln|table|fixed:N (N 1..20)", "ln", "msm",
     "Pippenger window size: bellperson's ceil(ln n), the measured table, or fixed N bits"},
    {"b_g2_msm", "serial|parallel", "serial", "msm",
     "run the G2 MSM after the G1 MSMs, or concurrently with them"},
    {"msm_split", "off|on", "off", "msm",
     "sum the points of 0/1 scalars by batched addition (0s skipped) before Pippenger on the rest"},
    {"synth", "direct|pce", "direct", "synthesize",
     "evaluate A, B, C while synthesizing, or synthesize the witness only and multiply the pre-compiled "
     "sparse A, B, C of the circuit's shape"},
    {"c1_json", "nlohmann|simdjson", "nlohmann", "c1_decode",
     "decoder of the C1 file: nlohmann's DOM, or simdjson's (the writers' layout read directly, "
     "simdjson's DOM for any other text); both give identical structures"},
    {"params_io", "mmap|read", "mmap", "load_params",
     "how the parameters file is loaded: mapped (pages fault in as decoded) or read(2) into memory first"},
    {"backend", "cpu|cuda", "cpu", "ntt+msm",
     "engine of the prover's ntt and MSM stages: the CPU (the reference), or CUDA on device 0"},
    {"host_pinning", "off|register|malloc_host", "off", "ntt+msm",
     "backend cuda: host buffers copied to the GPU as they are (pageable), registered with cudaHostRegister "
     "for the copy, or staged through cudaMallocHost memory"},
    {"inject_stage_slowdown", "off|ntt|msm_h|msm_l", "off", "test",
     "TEST ONLY: the prover does that stage's work twice, a known slowdown for the gate's stage tracing"},
    {"inject_slowdown", "off|aa|1pct|2pct|5pct|10pct", "off", "test",
     "TEST ONLY: extra work added by the ab_probe benchmarks (bench_probe), to calibrate `c2lab ab`; "
     "aa = off under another name"},
};

constexpr std::pair<std::string_view, unsigned> slowdowns[] = {{"off", 0}, {"aa", 0}, {"1pct", 1},
                                                               {"2pct", 2},  {"5pct", 5}, {"10pct", 10}};
}  // namespace

std::span<const flag_info> flag_registry() noexcept { return registry; }

unsigned flag_values::inject_slowdown_pct() const noexcept {
    for (const auto& [name, pct] : slowdowns)
        if (name == inject_slowdown) return pct;
    return 0;
}

std::vector<std::pair<std::string, std::string>> flag_values::as_text() const {
    // inject_slowdown is left out: a test-only knob that only the probe benchmark reads.
    return {{"lc_indexer", lc_indexer},
            {"presize", std::string(r1cs::to_string(presize))},
            {"msm_window", msm_window.to_string()},
            {"b_g2_msm", std::string(groth16::to_string(b_g2))},
            {"msm_split", msm_split ? "on" : "off"},
            {"synth", std::string(r1cs::to_string(synth))},
            {"c1_json", std::string(porep::to_string(c1_json))},
            {"params_io", std::string(groth16::to_string(params_io))},
            {"backend", std::string(groth16::to_string(backend))},
            {"host_pinning", std::string(groth16::to_string(host_pinning))}};
}

groth16::prover_config flag_values::prover(groth16::prover_backend* backend) const {
    groth16::prover_config cfg;
    cfg.msm.window = msm_window;
    cfg.b_g2 = b_g2;
    cfg.msm_split = msm_split;
    cfg.backend = backend;
    cfg.repeat_stage = repeat_stage();
    return cfg;
}

flag_values parse_flags(std::span<const std::string> settings) {
    flag_values v;
    for (const std::string& s : settings) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0)
            throw error(errc::bad_input, "--flag '" + s + "': expected name=value (see `c2lab flags`)");
        const std::string name = s.substr(0, eq);
        const std::string value = s.substr(eq + 1);
        if (std::none_of(std::begin(registry), std::end(registry), [&](const flag_info& f) { return f.name == name; })) {
            std::string known;
            for (const auto& f : registry) known += (known.empty() ? "" : ", ") + std::string(f.name);
            throw error(errc::bad_input, "unknown flag '" + name + "' (known: " + known + "; see `c2lab flags`)");
        }
        try {
            if (name == "lc_indexer") {
                r1cs::with_lc_indexer(value, [](auto) {});  // validates the name
                v.lc_indexer = value;
            } else if (name == "presize") {
                v.presize = r1cs::parse_presize(value);
            } else if (name == "msm_window") {
                v.msm_window = msm::window_policy::parse(value);
            } else if (name == "b_g2_msm") {
                v.b_g2 = groth16::parse_b_g2_msm(value);
            } else if (name == "msm_split") {
                if (value != "off" && value != "on")
                    throw error(errc::bad_input, "msm_split: unknown variant '" + value + "' (expected off or on)");
                v.msm_split = value == "on";
            } else if (name == "synth") {
                v.synth = r1cs::parse_synth_mode(value);
            } else if (name == "c1_json") {
                v.c1_json = porep::parse_c1_json_decoder(value);
            } else if (name == "inject_stage_slowdown") {
                if (value != "off" && value != "ntt" && value != "msm_h" && value != "msm_l")
                    throw error(errc::bad_input, "inject_stage_slowdown: unknown variant '" + value +
                                                     "' (expected off, ntt, msm_h, msm_l)");
                v.inject_stage_slowdown = value;
            } else if (name == "host_pinning") {
                v.host_pinning = groth16::parse_host_pinning(value);
            } else if (name == "params_io") {
                v.params_io = groth16::parse_params_io(value);
            } else if (name == "backend") {
                v.backend = groth16::parse_backend_kind(value);
            } else {
                if (std::none_of(std::begin(slowdowns), std::end(slowdowns),
                                 [&](const auto& sd) { return sd.first == value; }))
                    throw error(errc::bad_input, "inject_slowdown: unknown variant '" + value +
                                                     "' (expected off, aa, 1pct, 2pct, 5pct, 10pct)");
                v.inject_slowdown = value;
            }
        } catch (const error& e) {
            throw error(errc::bad_input, "--flag " + s + ": " + e.what());
        }
    }
    return v;
}

std::string flags_table() {
    size_t wn = 4, wv = 8, wd = 7, ws = 5;
    for (const auto& f : registry) {
        wn = std::max(wn, f.name.size());
        wv = std::max(wv, f.variants.size());
        wd = std::max(wd, f.default_value.size());
        ws = std::max(ws, f.stage.size());
    }
    std::ostringstream out;
    auto row = [&](std::string_view n, std::string_view v, std::string_view d, std::string_view s,
                   std::string_view desc) {
        out << n << std::string(wn - n.size() + 2, ' ') << v << std::string(wv - v.size() + 2, ' ') << d
            << std::string(wd - d.size() + 2, ' ') << s << std::string(ws - s.size() + 2, ' ') << desc << '\n';
    };
    row("flag", "variants", "default", "stage", "what");
    for (const auto& f : registry) row(f.name, f.variants, f.default_value, f.stage, f.description);
    return out.str();
}

}  // namespace c2lab::pipeline

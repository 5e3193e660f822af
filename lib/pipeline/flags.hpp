// The flag registry of c2lab: every engine variant a run can choose with
// `--flag name=value`, declared once in one table (flags.cpp). Each entry gives the name,
// the variants as the user writes them, the default, the pipeline stage it affects, a line
// of description, and two functions: `set` parses a value into the typed options
// (flag_values) with the library's own parser (with_lc_indexer, parse_presize,
// window_policy::parse, ...), so the messages match the library's, and `get` prints the
// value back. Parsing (`parse_flags`), `c2lab flags` (`flags_table`), the benchmarks'
// `--flag` and the JSON context (`as_text`) all read that table: a new flag is one entry
// and one field of flag_values.
//
// The test-only flags (calibration of the A/B runner, the gate's stage tracing) have their
// own table and values in test_flags.hpp: nothing here, and nothing the prover reads, knows
// them.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "groth16/host_pinning.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "msm/window.hpp"
#include "porep/c1_json.hpp"
#include "r1cs/pce.hpp"
#include "r1cs/proving_assignment.hpp"

namespace c2lab::pipeline {

// One flag of a table over the options type Values.
template <class Values>
struct flag_def {
    std::string_view name;
    std::string_view variants;  // as the user writes them, "|"-separated
    std::string_view default_value;
    std::string_view stage;
    std::string_view description;
    void (*set)(Values&, const std::string& value);  // errc::bad_input for a bad value
    std::string (*get)(const Values&);               // the value as text (a variant name)
};

// When a C2 job reads its parameters file (checksum and point checks included): before the
// first synthesis, or on a thread of its own beside the first synthesis, the first proof waiting
// for it (params_load=before|overlap). The header (counts, circuit digest) is read and checked
// up front either way.
enum class params_load { before, overlap };

// How a PoRep partition's challenges are synthesized with synth=direct: one after another, or on
// oneTBB's threads into parts appended in order (the same assignment; each part's A, B, C values
// are copied once more into the partition's, and held twice until then); auto: parallel where
// the memory check passes with the parts counted, else serial.
enum class synth_challenges { serial, parallel, automatic };

// The chosen value of every engine flag (defaults unless set).
// The defaults are the fastest settings `c2lab ab` has shown (presize=on: synthesis 0.78x,
// results/ab/synth-2kib-lc_indexer-x-presize-cpu-20261203.md; msm_split=on: the 2 KiB proof
// 0.79x, results/ab/prove-2kib-msm_split-cpu-20261203; c1_json=simdjson: the C1 decode,
// results/ab/c1-decode-c1_json-cpu-20261203; witness_memory=reuse: synthesis after a first
// partition 0.73x, results/ab/synth-2kib-witness_memory-cpu-20261203; params_check=own: the
// parameters load 0.65x, results/ab/params-load-2kib-params_check-cpu-20261204;
// synth_challenges=auto, parallel where memory allows: the 2 KiB job 0.955x, its synthesis 0.673x,
// results/ab/prove-2kib-synth_challenges-cpu-20261204; synth=auto, the pre-compiled circuit where
// it is cached: the 2 KiB job with pce 0.955x, results/ab/prove-2kib-synth-cpu-20261205;
// presize=prefault: a 32 GiB partition into fresh memory 0.579x, one thread,
// results/ab/synth-32gib-fresh-presize-prefault-cpu-20261207); the other
// variants stay for A/B. params_load=overlap was not shown faster on the whole 2 KiB job (2 cores: 0.992
// [0.900, 1.053], results/ab/prove-2kib-params_load-cpu-20261204: the synthesis, sharing the cores
// with the load, took 1.57x as long), so the load stays before the synthesis.
// ntt_pair=auto: natural on the IFMA path, the 2 KiB proof's ntt stage 0.939x, and bit_reversed
// without AVX-512, where the two measured the same (results/ab/prove-2kib-ntt_pair-cpu-20261205,
// results/ab/prove-2kib-ntt_pair-no-avx512-cpu-20261205).
// ntt_batch=auto: the AVX2 stages where msm_batch=auto takes the AVX2 kernels (AMD family 0x19
// without AVX-512), the 2 KiB proof's ntt stage 0.777 there
// (results/ab/prove-2kib-ntt_batch-no-avx512-zen4-cpu-20261208); IFMA where it runs.
// lc_indexer=vec and msm_window=ln are the seeds' (bellperson's) choices, and no other variant
// was shown faster on the whole proof.
struct flag_values {
    std::string lc_indexer = "vec";
    r1cs::presize_mode presize = r1cs::presize_mode::prefault;
    r1cs::witness_memory witness_memory = r1cs::witness_memory::reuse;
    msm::window_policy msm_window = msm::window_policy::ln();
    msm::msm_batch msm_batch = msm::msm_batch::automatic;
    groth16::b_g2_msm b_g2 = groth16::b_g2_msm::serial;
    bool msm_split = true;         // msm_split=on: 0/1 scalars summed before Pippenger
    r1cs::synth_mode synth = r1cs::synth_mode::automatic;  // synth=direct|pce|auto
    pipeline::synth_challenges synth_challenges = pipeline::synth_challenges::automatic;
    porep::c1_json_decoder c1_json = porep::c1_json_decoder::simdjson;
    groth16::params_io params_io = groth16::params_io::mmap;
    pipeline::params_load params_load = pipeline::params_load::before;
    groth16::params_check params_check = groth16::params_check::own;
    poly::ntt_config::pair_order ntt_pair = poly::ntt_config::pair_order::automatic;  // ntt_pair=natural|bit_reversed|auto
    poly::ntt_config::batch_kind ntt_batch = poly::ntt_config::batch_kind::automatic;  // ntt_batch=auto|scalar|avx2|ifma
    groth16::backend_kind backend = groth16::backend_kind::cpu;
    groth16::host_pinning host_pinning = groth16::host_pinning::off;

    // The prover's settings these flags choose (msm_window, b_g2_msm, msm_split), with
    // `backend` (from gpu::make_prover_backend(backend, host_pinning); null = CPU).
    groth16::prover_config prover(groth16::prover_backend* backend = nullptr) const;

    // name -> value as text, in registry order.
    std::vector<std::pair<std::string, std::string>> as_text() const;
};

std::span<const flag_def<flag_values>> flag_registry() noexcept;

// The entry of `name` in `table`, or nullptr.
template <class Values>
const flag_def<Values>* find_flag(std::span<const flag_def<Values>> table, std::string_view name) noexcept {
    for (const auto& f : table)
        if (f.name == name) return &f;
    return nullptr;
}

// "name=value" split at the first '='; errc::bad_input when there is none or the name is empty.
std::pair<std::string, std::string> split_flag_setting(const std::string& setting);

// Applies "name=value" settings in order (a later one wins). Throws c2lab::error(bad_input)
// naming the flag for a missing '=', an unknown name (a test-only one says so) or a bad value.
flag_values parse_flags(std::span<const std::string> settings);

// The registry as an aligned text table (the test-only flags after it, under a heading).
std::string flags_table();

// --- helpers shared by the tables ---------------------------------------------------

// Sets one flag of `table` from `value`, the error prefixed with "flag name=value: ".
template <class Values>
void set_flag(const flag_def<Values>& f, Values& v, const std::string& value) {
    try {
        f.set(v, value);
    } catch (const error& e) {
        throw error(errc::bad_input, "flag " + std::string(f.name) + "=" + value + ": " + e.what());
    }
}

// The names of a table, comma-separated.
template <class Values>
std::string flag_names(std::span<const flag_def<Values>> table) {
    std::string s;
    for (const auto& f : table) s += (s.empty() ? "" : ", ") + std::string(f.name);
    return s;
}

// name -> get(v) for every entry.
template <class Values>
std::vector<std::pair<std::string, std::string>> flags_as_text(std::span<const flag_def<Values>> table,
                                                               const Values& v) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& f : table) out.emplace_back(std::string(f.name), f.get(v));
    return out;
}

// A variant of a fixed list, or errc::bad_input listing them ("msm_split: unknown variant 'x'
// (expected off or on)").
std::string_view pick_variant(std::string_view flag, const std::string& value,
                              std::initializer_list<std::string_view> variants);

}  // namespace c2lab::pipeline

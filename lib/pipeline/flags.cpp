#include "pipeline/flags.hpp"

#include <algorithm>
#include <sstream>

#include "pipeline/test_flags.hpp"
#include "r1cs/linear_combination.hpp"

namespace c2lab::pipeline {

namespace {

using fv = flag_values;

// The table: one entry per flag. `set` checks the value with the library's parser.
constexpr flag_def<fv> registry[] = {
    {"lc_indexer", "vec|smallvec1|smallvec2|smallvec4", "vec", "synthesize",
     "storage of a linear combination's terms (std::vector or small_vector with N inline terms)",
     [](fv& v, const std::string& x) {
         r1cs::with_lc_indexer(x, [](auto) {});  // validates the name
         v.lc_indexer = x;
     },
     [](const fv& v) { return v.lc_indexer; }},
    {"presize", "off|on|prefault", "prefault", "synthesize",
     "reserve the proving assignment's vectors from a shape count before synthesis; prefault: and, where that is "
     "new memory of a GiB or more, fault its pages in on a thread of its own ahead of the synthesis (direct: the "
     "assignment's vectors; pce: a, b and c, made before the witness, whose own pages are faulted in before it "
     "starts either way)",
     [](fv& v, const std::string& x) { v.presize = r1cs::parse_presize(x); },
     [](const fv& v) { return std::string(r1cs::to_string(v.presize)); }},
    {"witness_memory", "fresh|reuse", "reuse", "synthesize",
     "allocate every partition's witness vectors anew, or build the next partition's on the vectors of the one "
     "just proved (pages already mapped: no page faults or zeroing on first write)",
     [](fv& v, const std::string& x) { v.witness_memory = r1cs::parse_witness_memory(x); },
     [](const fv& v) { return std::string(r1cs::to_string(v.witness_memory)); }},
    {"msm_window", "ln|table|fixed:N (N 1..20)|windows:N (N 7..42)", "ln", "msm",
     "Pippenger window size: bellperson's ceil(ln n), the measured table (its spread windows on one thread "
     "only), fixed N bits, or the endomorphism split's 128 bits spread over N windows",
     [](fv& v, const std::string& x) { v.msm_window = msm::window_policy::parse(x); },
     [](const fv& v) { return v.msm_window.to_string(); }},
    {"msm_batch", "auto|scalar|avx2|ifma", "auto", "msm",
     "kernels of the MSM's batched affine additions: auto takes AVX-512 IFMA where it runs, else the 4-lane "
     "AVX2 kernels on AMD family 0x19 (Zen 3, Zen 4: G1's additions, G2's inversion), else the scalar "
     "products; the others force one (ifma where the CPU lacks it fails)",
     [](fv& v, const std::string& x) {
         const std::string_view k = pick_variant("msm_batch", x, {"auto", "scalar", "avx2", "ifma"});
         v.msm_batch = k == "scalar" ? msm::msm_batch::scalar
                       : k == "avx2" ? msm::msm_batch::avx2
                       : k == "ifma" ? msm::msm_batch::ifma
                                     : msm::msm_batch::automatic;
     },
     [](const fv& v) {
         switch (v.msm_batch) {
             case msm::msm_batch::scalar: return std::string("scalar");
             case msm::msm_batch::avx2: return std::string("avx2");
             case msm::msm_batch::ifma: return std::string("ifma");
             case msm::msm_batch::automatic: break;
         }
         return std::string("auto");
     }},
    {"b_g2_msm", "serial|parallel", "serial", "msm", "run the G2 MSM after the G1 MSMs, or concurrently with them",
     [](fv& v, const std::string& x) { v.b_g2 = groth16::parse_b_g2_msm(x); },
     [](const fv& v) { return std::string(groth16::to_string(v.b_g2)); }},
    {"msm_split", "off|on", "on", "msm",
     "sum the points of 0/1 scalars by batched addition (0s skipped) before Pippenger on the rest (CPU backend)",
     [](fv& v, const std::string& x) { v.msm_split = pick_variant("msm_split", x, {"off", "on"}) == "on"; },
     [](const fv& v) { return std::string(v.msm_split ? "on" : "off"); }},
    {"synth", "direct|pce|auto", "auto", "synthesize",
     "evaluate A, B, C while synthesizing, or synthesize the witness only and multiply the pre-compiled "
     "sparse A, B, C of the circuit's shape (built and cached on first use); auto: pce where the cache "
     "holds the circuit's pre-compiled file (c2lab setup --c1 builds it), else direct",
     [](fv& v, const std::string& x) { v.synth = r1cs::parse_synth_mode(x); },
     [](const fv& v) { return std::string(r1cs::to_string(v.synth)); }},
    {"synth_challenges", "serial|parallel|auto", "auto", "synthesize",
     "synth=direct: synthesize a partition's challenges one after another, or on several threads into parts "
     "appended in order (the same assignment; the parts' A, B, C values held twice until appended); auto: "
     "parallel where the memory check passes with the parts counted",
     [](fv& v, const std::string& x) {
         const std::string_view p = pick_variant("synth_challenges", x, {"serial", "parallel", "auto"});
         v.synth_challenges = p == "parallel" ? synth_challenges::parallel
                              : p == "auto"   ? synth_challenges::automatic
                                              : synth_challenges::serial;
     },
     [](const fv& v) {
         return std::string(v.synth_challenges == synth_challenges::parallel  ? "parallel"
                            : v.synth_challenges == synth_challenges::automatic ? "auto"
                                                                                 : "serial");
     }},
    {"c1_json", "nlohmann|simdjson", "simdjson", "c1_decode",
     "decoder of the C1 file: nlohmann's DOM, or simdjson's (the writers' layout read directly, simdjson's DOM for "
     "any other text); both give identical structures",
     [](fv& v, const std::string& x) { v.c1_json = porep::parse_c1_json_decoder(x); },
     [](const fv& v) { return std::string(porep::to_string(v.c1_json)); }},
    {"params_io", "mmap|read", "mmap", "load_params",
     "how the parameters file is loaded: mapped (pages fault in as decoded) or read(2) into memory first",
     [](fv& v, const std::string& x) { v.params_io = groth16::parse_params_io(x); },
     [](const fv& v) { return std::string(groth16::to_string(v.params_io)); }},
    {"params_check", "full|own", "own", "load_params",
     "check every point of the parameters on every load, or only until this machine wrote or checked the file "
     "(an origin record beside it, with the XXH3-128 of the bytes written or checked; a load compares the "
     "contents with that digest, or with the stored SHA-256 when it checks every point)",
     [](fv& v, const std::string& x) { v.params_check = groth16::parse_params_check(x); },
     [](const fv& v) { return std::string(groth16::to_string(v.params_check)); }},
    {"params_load", "before|overlap", "before", "load_params",
     "read and check the parameters before the first synthesis, or on a thread of their own beside it (the "
     "first proof waits for them; their header is checked up front either way)",
     [](fv& v, const std::string& x) {
         v.params_load = pick_variant("params_load", x, {"before", "overlap"}) == "overlap" ? params_load::overlap
                                                                                            : params_load::before;
     },
     [](const fv& v) { return std::string(v.params_load == params_load::overlap ? "overlap" : "before"); }},
    {"ntt_pair", "natural|bit_reversed|auto", "auto", "ntt",
     "the h step's transform pairs (values to coefficients to coset values): the first from natural order to "
     "bit-reversed output and the second from there, no bit reversal; or each transform bit-reversing its input "
     "first; auto: natural where the AVX-512 IFMA butterflies run, else bit_reversed. The same results",
     [](fv& v, const std::string& x) { v.ntt_pair = poly::parse_ntt_pair(x); },
     [](const fv& v) { return std::string(poly::to_string(v.ntt_pair)); }},
    {"ntt_batch", "auto|scalar|avx2|ifma", "auto", "ntt",
     "kernels of the NTT's butterfly stages: auto takes AVX-512 IFMA where it runs, else the 4-lane AVX2 stages "
     "on AMD family 0x19 (Zen 3, Zen 4), else the scalar butterflies; the others force one (ifma where the CPU "
     "lacks it fails). The same results",
     [](fv& v, const std::string& x) {
         v.ntt_batch = poly::parse_ntt_batch(pick_variant("ntt_batch", x, {"auto", "scalar", "avx2", "ifma"}));
     },
     [](const fv& v) { return std::string(poly::to_string(v.ntt_batch)); }},
    {"backend", "cpu|cuda", "cpu", "ntt+msm",
     "engine of the prover's ntt and MSM stages: the CPU (the reference), or CUDA on device 0",
     [](fv& v, const std::string& x) { v.backend = groth16::parse_backend_kind(x); },
     [](const fv& v) { return std::string(groth16::to_string(v.backend)); }},
    {"host_pinning", "off|register|malloc_host", "off", "ntt+msm",
     "backend cuda: host buffers copied to the GPU as they are (pageable), registered with cudaHostRegister "
     "for the copy, or staged through cudaMallocHost memory",
     [](fv& v, const std::string& x) { v.host_pinning = groth16::parse_host_pinning(x); },
     [](const fv& v) { return std::string(groth16::to_string(v.host_pinning)); }},
};

// Name and value columns of one table's rows.
template <class Values>
void table_rows(std::ostringstream& out, std::span<const flag_def<Values>> table, const std::size_t (&w)[4]) {
    for (const auto& f : table) {
        const std::string_view cols[] = {f.name, f.variants, f.default_value, f.stage};
        for (std::size_t i = 0; i < 4; ++i) out << cols[i] << std::string(w[i] - cols[i].size() + 2, ' ');
        out << f.description << '\n';
    }
}

}  // namespace

std::span<const flag_def<flag_values>> flag_registry() noexcept { return registry; }

std::string_view pick_variant(std::string_view flag, const std::string& value,
                              std::initializer_list<std::string_view> variants) {
    for (std::string_view v : variants)
        if (v == value) return v;
    std::string list;
    std::size_t i = 0;
    for (std::string_view v : variants)
        list += (i++ == 0 ? "" : (i == variants.size() ? " or " : ", ")) + std::string(v);
    throw error(errc::bad_input, std::string(flag) + ": unknown variant '" + value + "' (expected " + list + ")");
}

std::pair<std::string, std::string> split_flag_setting(const std::string& s) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
        throw error(errc::bad_input, "flag setting '" + s + "': expected name=value");
    return {s.substr(0, eq), s.substr(eq + 1)};
}

std::vector<std::pair<std::string, std::string>> flag_values::as_text() const {
    return flags_as_text(flag_registry(), *this);
}

groth16::prover_config flag_values::prover(groth16::prover_backend* backend) const {
    groth16::prover_config cfg;
    cfg.msm.window = msm_window;
    cfg.msm.batch = msm_batch;
    cfg.b_g2 = b_g2;
    cfg.msm_split = msm_split;
    cfg.ntt.pair = ntt_pair;
    cfg.ntt.batch = ntt_batch;
    cfg.backend = backend;
    return cfg;
}

flag_values parse_flags(std::span<const std::string> settings) {
    flag_values v;
    for (const std::string& s : settings) {
        const auto [name, value] = split_flag_setting(s);
        const flag_def<flag_values>* f = find_flag(flag_registry(), name);
        if (!f) {
            if (find_flag(test_flag_registry(), name))
                throw error(errc::bad_input, "flag '" + name +
                                                 "' is test-only: the benchmark binaries and the A/B runner take it, "
                                                 "the prover does not");
            throw error(errc::bad_input,
                        "unknown flag '" + name + "' (known: " + flag_names(flag_registry()) + ")");
        }
        set_flag(*f, v, value);
    }
    return v;
}

std::string flags_table() {
    std::size_t w[4] = {4, 8, 7, 5};
    auto widen = [&](auto table) {
        for (const auto& f : table) {
            const std::string_view cols[] = {f.name, f.variants, f.default_value, f.stage};
            for (std::size_t i = 0; i < 4; ++i) w[i] = std::max(w[i], cols[i].size());
        }
    };
    widen(flag_registry());
    widen(test_flag_registry());
    std::ostringstream out;
    const std::string_view head[] = {"flag", "variants", "default", "stage"};
    for (std::size_t i = 0; i < 4; ++i) out << head[i] << std::string(w[i] - head[i].size() + 2, ' ');
    out << "what\n";
    table_rows(out, flag_registry(), w);
    out << "\ntest only (benchmark binaries and `c2lab ab`; the prover never reads them):\n";
    table_rows(out, test_flag_registry(), w);
    return out.str();
}

}  // namespace c2lab::pipeline

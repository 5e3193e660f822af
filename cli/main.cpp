// c2lab: the front-door CLI (DESIGN.md, "The front door: one CLI, c2lab"). This file only
// parses the command line (CLI11) and maps failures to exit codes; the work is in
// commands.cpp, gate_cmd.cpp and ab_cmd.cpp. Exit codes: 0 success, 1 a proof that does not verify
// (verify), a benchmark that regressed (gate) or a slower variant (ab --fail-on slower), 2 bad input or any
// other error, printed on stderr as "c2lab: error: <message>".
#include <signal.h>

#include <exception>
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "gpu/device.hpp"
#include "pipeline/batch.hpp"

namespace {

using namespace c2lab::cli;

// The built-in test circuit's options (the PoRep forms take --c1 or --sector instead).
CLI::Option* add_circuit_options(CLI::App& sub, circuit_args& a) {
    sub.add_option("--circuit", a.circuit, "built-in test circuit: hash-chain (x_{i+1} = x_i^2 + x_i + 7)")
        ->check(CLI::IsMember({std::string(circuit_hash_chain)}))
        ->capture_default_str();
    return sub.add_option("--steps", a.steps, "number of hash-chain steps (decimal, >= 1; hash-chain only)")
        ->type_name("N");
}

}  // namespace

int main(int argc, char** argv) {
    // Interrupted and limited runs: SIGINT, SIGTERM and SIGHUP remove the temporary files of
    // writes in flight before the process ends (core/file.hpp); a file-size limit (ulimit -f)
    // makes write() fail with EFBIG, reported as an error naming the file, instead of SIGXFSZ
    // ending the process mid-write.
    c2lab::install_signal_cleanup();
    ::signal(SIGXFSZ, SIG_IGN);
    CLI::App app{
        "c2lab: a Groth16 / BLS12-381 performance lab shaped after Filecoin's PoRep C2 prover: C1 files, the\n"
        "StackedDRG circuit, parameters, proofs, verification, and the regression gate.\n"
        "Exit codes: 0 success, 1 proof invalid (verify), a regression (gate) or a slower variant (ab --fail-on\n"
        "slower), 2 bad input or error."};
    app.name("c2lab");
    app.require_subcommand(1);
    app.footer(
        "Example (PoRep C2 on a generated 2 KiB sector):\n"
        "  c2lab gen --sector 2KiB --seed 7 -o c1.json\n"
        "  c2lab circuit-info --sector 32GiB\n"
        "  c2lab setup --c1 c1.json\n"
        "  c2lab prove --c1 c1.json -o proof.bin\n"
        "  c2lab verify --c1 c1.json --proof proof.bin\n"
        "  c2lab export-vk --c1 c1.json -o porep-2kib.vk\n"
        "Example (the hash-chain test circuit):\n"
        "  c2lab circuit-info --circuit hash-chain --steps 1000\n"
        "  c2lab setup --circuit hash-chain --steps 1000 -o params.bin\n"
        "  c2lab prove --params params.bin --steps 1000 --x0 42 -o proof.bin\n"
        "  c2lab verify --params params.bin --proof proof.bin --inputs proof.bin.inputs\n"
        "Gate a benchmark run against a baseline:\n"
        "  c2lab gate --baseline base.json --current run.json --policy results/policies/default.json\n"
        "A/B test of engine flags (interleaved processes, shuffled rounds):\n"
        "  c2lab ab --binary bench_synth --filter 'synth/porep-2kib' --flag lc_indexer=vec,smallvec4\n"
        "The results history (every recorded run, SQLite):\n"
        "  c2lab history list\n"
        "  c2lab gate --baseline history:5 --current results/runs/<stamp>\n"
        "Run `c2lab <command> --help` for a command's options.");

    circuit_args info;
    auto* s_info = app.add_subcommand(
        "circuit-info",
        "The shape pass (a synthesis without a witness): prints the number of constraints, public inputs and aux "
        "variables, the A and B densities (the sizes of the parameters' a and b queries), the digest of the "
        "circuit's structure (the key of the parameters cache), the exact size of the parameters file and the "
        "memory setup and prove are estimated to need.");
    auto* o_info_steps = add_circuit_options(*s_info, info);
    auto* o_info_sector = s_info->add_option("--sector", info.sector,
                                             "the PoRep circuit of one partition for this sector size: 2KiB, 8MiB, "
                                             "512MiB, 32GiB, 64GiB")
                              ->type_name("SIZE");
    o_info_sector->excludes(o_info_steps);
    auto* o_info_nodes = s_info->add_option("--nodes", info.nodes,
                                            "an explicit StackedDRG shape instead of a registered proof: the node "
                                            "count (a power of two; with --layers, --challenges, --tree, "
                                            "--porep-id-byte)")
                             ->type_name("N");
    o_info_nodes->excludes(o_info_steps);
    o_info_nodes->excludes(o_info_sector);
    s_info->add_option("--layers", info.layers, "explicit shape: layers")->type_name("L")->capture_default_str()->needs(o_info_nodes);
    s_info->add_option("--challenges", info.challenges, "explicit shape: challenges (one partition)")
        ->type_name("C")
        ->capture_default_str()
        ->needs(o_info_nodes);
    s_info->add_option("--tree", info.tree, "explicit shape: tree_c / tree_r_last arities base[-sub[-top]], e.g. 8, 8-8, 8-8-2, 2")
        ->type_name("B[-S[-T]]")
        ->capture_default_str()
        ->needs(o_info_nodes);
    s_info->add_option("--porep-id-byte", info.porep_id_byte, "explicit shape: the porep id is 32 copies of this byte")
        ->type_name("B")
        ->capture_default_str()
        ->needs(o_info_nodes);
    s_info->footer(
        "With --sector: the StackedDRG circuit of one partition (rust-fil-proofs' circuitinfo); it counts\n"
        "without storing anything, so 32GiB runs on a small machine in seconds.\n"
        "With --nodes: an explicit shape, as rust-fil-proofs' circuit tests build them; it also prints the\n"
        "count before the input constraints (storage-proofs-porep tests/stacked_circuit.rs: --nodes 8 --tree 8\n"
        "--porep-id-byte 44 gives 1199620 and 22 inputs with the one).\n"
        "Output:\n"
        "  constraints: N     includes bellperson's input constraints (input_i * 0 = 0, one per input variable,\n"
        "                     the constant one included): for hash-chain, steps + 2 - the rows of the QAP\n"
        "  public inputs: M   the values the verifier gets (without the constant one): 1 for hash-chain\n"
        "  aux: K             private variables: steps for hash-chain\n"
        "Example:\n"
        "  c2lab circuit-info --sector 32GiB\n"
        "  c2lab circuit-info --nodes 64 --layers 2 --challenges 1 --tree 8-4-2 --porep-id-byte 44\n"
        "  c2lab circuit-info --circuit hash-chain --steps 10");

    gen_args gen;
    auto* s_gen = app.add_subcommand(
        "gen",
        "Generate a C1 file (lotus-bench / curio layout) for a sector size: vanilla proofs consistent with the "
        "circuit, without the sector (only challenged paths are materialised; everything else is pseudo-random "
        "but fixed by the seed).");
    s_gen->add_option("--sector", gen.sector, "sector size: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB")->type_name("SIZE")->required();
    s_gen->add_option("--seed", gen.seed, "dataset seed (decimal u64): same size and seed, same file")
        ->type_name("N")
        ->capture_default_str();
    s_gen->add_option("-o,--output", gen.out, "C1 file to write (atomically)")->type_name("PATH")->required();
    s_gen->add_option("--prover-id", gen.prover_id, "sealing input: prover id, 64 hex digits (default: from --seed)")
        ->type_name("HEX");
    s_gen->add_option("--sector-id", gen.sector_id, "sealing input: sector number, decimal u64 (default: --seed)")
        ->type_name("N");
    s_gen->add_option("--ticket", gen.ticket, "sealing input: ticket, 64 hex digits (default: from --seed)")
        ->type_name("HEX");
    s_gen->add_option("--interactive-seed", gen.interactive_seed,
                      "sealing input: the interactive randomness (the C1's seed), 64 hex digits (default: from --seed)")
        ->type_name("HEX");
    s_gen->footer(
        "The data comes first (comm_d depends on the size and --seed only); then, as filecoin-proofs does,\n"
        "replica_id = SHA-256(prover_id || sector_id BE || ticket || comm_d || porep_id) (top two bits\n"
        "cleared) and each partition's challenges from replica_id and the interactive seed; `c2lab inputs`\n"
        "derives the same from the printed values.\n"
        "Progress goes to stderr; the commitments, sealing inputs and times to stdout.\n"
        "Example:\n"
        "  c2lab gen --sector 2KiB --seed 7 -o c1.json\n"
        "  c2lab gen --sector 2KiB --seed 7 --prover-id $(printf '01%.0s' {1..32}) --sector-id 42 -o c1.json\n"
        "  c2lab gen --sector 32GiB --seed 1 -o c1-32g.json");

    parents_args parents;
    auto* s_parents = app.add_subcommand(
        "parents",
        "The StackedDRG parent cache of a registered proof (rust-fil-proofs' layout: per node 6 base then 8 "
        "expansion parents, u32 little-endian): its name and SHA-256 (--digest), or one node's parents.");
    s_parents->add_option("--sector", parents.sector, "sector size: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB")
        ->type_name("SIZE")
        ->required();
    s_parents->add_option("--api-version", parents.api_version,
                          "V1_0 (StackedDrg<size>V1, ids 0..4), V1_1 (ids 5..9) or V1_2 (the SyntheticPoRep proofs, "
                          "ids 10..14)")
        ->type_name("V")
        ->capture_default_str();
    auto* o_digest = s_parents->add_flag("--digest", parents.digest,
                                         "hash the whole cache, streamed (compare with rust-fil-proofs' "
                                         "storage-proofs-porep/parent_cache.json)");
    s_parents->add_option("--node", parents.node, "print this node's 14 parents instead")->type_name("N")->excludes(o_digest);
    s_parents->footer(
        "The cache is computed in pieces (oneTBB), never held whole: 8MiB takes seconds, 32GiB (60 GB of\n"
        "cache) hours on a small machine. Output: registered_proof, nodes, then cache (file name), bytes,\n"
        "digest; or node, base, expansion.\n"
        "Example:\n"
        "  c2lab parents --sector 2KiB --digest\n"
        "  c2lab parents --sector 8MiB --api-version V1_0 --digest\n"
        "  c2lab parents --sector 32GiB --node 1000");

    inputs_args inputs;
    auto* s_inputs = app.add_subcommand(
        "inputs",
        "Derive a sector's replica_id and the interactive challenges of every partition from its sealing inputs, "
        "as filecoin-proofs does.");
    s_inputs->add_option("--sector", inputs.sector, "sector size: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB")
        ->type_name("SIZE")
        ->required();
    s_inputs->add_option("--api-version", inputs.api_version, "V1_0, V1_1 or V1_2 (selects the porep id)")
        ->type_name("V")
        ->capture_default_str();
    s_inputs->add_option("--prover-id", inputs.prover_id, "prover id, 64 hex digits")->type_name("HEX")->required();
    s_inputs->add_option("--sector-id", inputs.sector_id, "sector number, decimal u64")->type_name("N")->required();
    s_inputs->add_option("--ticket", inputs.ticket, "ticket, 64 hex digits")->type_name("HEX")->required();
    s_inputs->add_option("--seed", inputs.seed, "interactive randomness, 64 hex digits")->type_name("HEX")->required();
    s_inputs->add_option("--comm-d", inputs.comm_d, "comm_d, 64 hex digits")->type_name("HEX")->required();
    s_inputs->footer(
        "replica_id = SHA-256(prover_id || sector_id as u64 big-endian || ticket || comm_d || porep_id), top two\n"
        "bits cleared; challenge i of partition k = SHA-256(replica_id || seed || (k * per_partition + i) as u32\n"
        "LE) as a little-endian integer, mod (nodes - 1), + 1. One `challenges:` line per partition.\n"
        "Example:\n"
        "  c2lab inputs --sector 2KiB --prover-id $(printf '01%.0s' {1..32}) --sector-id 7 \\\n"
        "      --ticket $(printf '02%.0s' {1..32}) --seed $(printf '03%.0s' {1..32}) --comm-d $(printf '04%.0s' {1..32})");

    setup_args setup;
    auto* s_setup = app.add_subcommand(
        "setup",
        "Generate Groth16 parameters for a circuit and write them (atomically) to a c2lab parameters file. "
        "This is a TEST setup, not a ceremony: the toxic waste comes from a deterministic generator seeded by "
        "--seed, so anyone who knows the seed can forge proofs.");
    auto* o_setup_steps = add_circuit_options(*s_setup, setup.circuit);
    s_setup->add_option("--c1", setup.c1, "PoRep: parameters for the circuit of this C1 file's proof type")
        ->type_name("PATH")
        ->excludes(o_setup_steps);
    s_setup->add_option("-o,--output", setup.out,
                        "parameters file to write (default: the cache: $C2LAB_CACHE_DIR, else ~/.cache/c2lab, then "
                        "params/<proof or circuit>-c<constraints>-i<inputs>-a<aux>.params, made once even when "
                        "several c2lab processes ask for it at the same time)")
        ->type_name("PATH");
    s_setup->add_flag("--force", setup.force, "make the cached parameters again even when they are there");
    s_setup->add_flag("--no-pce", setup.no_pce,
                      "PoRep: do not build the pre-compiled circuit beside the parameters (prove then synthesizes "
                      "directly; its file is 184 MB at 2 KiB, 8.9 GB at 32 GiB)")
        ->needs(s_setup->get_option("--c1"));
    s_setup->add_option("--seed", setup.seed, "seed of the toxic-waste generator (decimal u64)")->type_name("S")->capture_default_str();
    std::string setup_budget;
    s_setup->add_option("--memory-budget", setup_budget,
                        "memory the setup may use: GiB (0.5) or with a unit (512MiB, 2GiB); default: what the machine "
                        "has available. Checked before the constraint matrices are recorded: parameters, matrices, "
                        "powers of tau, fixed-base scalars and points")
        ->type_name("SIZE");
    s_setup->footer(
        "Progress goes to stderr, one line per stage; sizes and times to stdout. Without -o the parameters go\n"
        "to the cache; processes asking for the same entry at once make it once (the others print \"waiting\n"
        "for another c2lab process\" and use it). Interrupted (SIGINT, SIGTERM), setup leaves no partial file.\n"
        "With --c1 setup also builds the circuit's pre-compiled A, B, C into the cache (unless --no-pce): `prove`\n"
        "then synthesizes the witness only and multiplies them (synth=auto; the 2 KiB proof 0.955x).\n"
        "Example:\n"
        "  c2lab setup --c1 c1.json\n"
        "  c2lab setup --circuit hash-chain --steps 1000 -o params.bin --seed 7\n"
        "  c2lab setup --circuit hash-chain --steps 65536 --memory-budget 512MiB");

    prove_args prove;
    auto* s_prove = app.add_subcommand(
        "prove",
        "Synthesize the circuit with a witness and create a Groth16 proof: writes the 192-byte proof and the "
        "public inputs, and prints a per-stage timing table.");
    auto* o_prove_steps = add_circuit_options(*s_prove, prove.circuit);
    auto* o_prove_c1 = s_prove->add_option("--c1", prove.c1,
                                           "PoRep C2: prove every partition of this C1 file (parameters from the "
                                           "cache of `c2lab setup --c1`, or --params); repeat for a batch")
                           ->type_name("PATH")
                           ->excludes(o_prove_steps);
    s_prove->add_option("--count", prove.count, "batch: prove the --c1 files this many times")
        ->type_name("N")
        ->check(CLI::Range(1u, 100000u))
        ->needs(o_prove_c1);
    s_prove->add_option("--jobs", prove.jobs,
                        "batch: jobs in flight; 2 synthesizes the next partition while the current one is in its "
                        "NTTs and MSMs (each job in flight holds a witness in memory)")
        ->type_name("J")
        ->check(CLI::Range(1u, 64u))
        ->needs(o_prove_c1);
    std::string prove_budget;
    s_prove->add_option("--memory-budget", prove_budget,
                        "memory the proof (or the batch) may use: GiB (0.5) or with a unit (512MiB, 2GiB); default: "
                        "what the machine has available (MemAvailable, or a lower cgroup limit). Checked before the "
                        "parameters are read: parameters + witness (one per job in flight) + prover")
        ->type_name("SIZE");
    s_prove->add_option("--timeline", prove.timeline,
                        "batch: write every stage's start and end of every job as JSON to PATH, and as a chart to "
                        "PATH with .svg for .json")
        ->type_name("PATH")
        ->needs(o_prove_c1);
    s_prove->add_option("--params", prove.params, "parameters file from `c2lab setup` (same circuit)")
        ->type_name("PATH");
    s_prove->add_option("--x0", prove.x0, "hash-chain: the private start of the chain (decimal u64)")->type_name("V");
    s_prove->add_option("-o,--output", prove.out,
                        "proof file to write (192 bytes per partition, bellperson's encoding)")
        ->type_name("PATH")
        ->required();
    s_prove->add_option("--inputs-out", prove.inputs_out,
                        "public-inputs file to write (default: <output>.inputs): one hex line per input, the 32 "
                        "little-endian bytes of the Fr element")
        ->type_name("PATH");
    s_prove->add_option("--flag", prove.flags, "engine variant name=value, repeatable (list: `c2lab flags`)")
        ->type_name("K=V");
    s_prove->add_option("--backend", prove.backend,
                        "engine of the ntt and MSM stages: cpu (default, the reference) or cuda (device 0); "
                        "the same as --flag backend=NAME")
        ->type_name("NAME");
    s_prove->add_flag("--json", prove.json,
                      "print the result and stage times as JSON instead of a table, and record them in the results "
                      "history ($C2LAB_DB, else $C2LAB_HISTORY, else results/history.sqlite; kind prove, per stage)");
    s_prove->add_flag("--no-history", prove.no_history, "with --json: do not record the run in the results history");
    s_prove->footer(
        "The blinding scalars r, s are fresh for every proof: uniform in Fr from OpenSSL's RAND_bytes\n"
        "(rejection sampling). Both files are written atomically (temporary file + rename). The stage\n"
        "table is synthesize (into the proving assignment) then the prover's stages (ntt, msm_*, assemble).\n"
        "With --c1 the table is c1_decode, construct, then per partition (summed) synthesize and the\n"
        "prover's stages; the proof file holds one 192-byte proof per partition, in order. Each row\n"
        "gives the stage's wall ms, the process's CPU ms over it (every thread) and their ratio, the\n"
        "cores it kept busy: a stage near 1.0 on a 2-core machine left a core idle.\n"
        "A batch (several --c1, --count, --jobs or --timeline) proves every partition of every file as a\n"
        "pipeline: -o is then a directory that gets <file stem>.proof per file (and run), and the report\n"
        "gives proofs per minute, per-job wall and prove times (avg/min/max), each stage and peak memory.\n"
        "Before reading the parameters, prove checks that parameters + witness (one per job in flight) +\n"
        "prover fit in the available memory or --memory-budget, and refuses with the numbers otherwise.\n"
        "Example:\n"
        "  c2lab prove --c1 c1.json -o proof.bin --flag c1_json=simdjson\n"
        "  c2lab prove --c1 c1.json -o proof.bin --backend cuda\n"
        "  c2lab prove --c1 a.json --c1 b.json --jobs 2 -o proofs/ --timeline proofs/timeline.json\n"
        "  c2lab prove --params params.bin --steps 1000 --x0 42 -o proof.bin \\\n"
        "      --flag lc_indexer=smallvec2 --flag presize=on --flag msm_window=fixed:8 --json");

    verify_args verify;
    auto* s_verify = app.add_subcommand(
        "verify", "Verify a proof: prints \"valid\" and exits 0, or prints \"invalid\" and exits 1.");
    s_verify->add_option("--c1", verify.c1,
                         "PoRep: the C1 file the proof answers; the public inputs of every partition are derived "
                         "from its commitments, seed and the graph")
        ->type_name("PATH");
    auto* o_verify_params = s_verify->add_option("--params", verify.params,
                                                 "parameters file (its verifying key is used); with --c1 the default "
                                                 "is the cache (its .vk when there, else its parameters)")
                                ->type_name("PATH");
    s_verify->add_option("--vk", verify.vk,
                         "verifying-key file instead of the parameters (bellperson's VerifyingKey layout, as `c2lab "
                         "setup` writes beside the parameters and `c2lab export-vk` exports): milliseconds instead of "
                         "seconds")
        ->type_name("PATH")
        ->excludes(o_verify_params);
    s_verify->add_option("--proof", verify.proof, "proof file (192 bytes per partition)")->type_name("PATH")->required();
    auto* o_inputs = s_verify->add_option("--inputs", verify.inputs_file,
                                          "public-inputs file (as written by `c2lab prove`: one hex Fr per line)")
                        ->type_name("PATH");
    auto* o_input =
        s_verify->add_option("--input", verify.inputs_hex, "one public input as 64 hex digits (Fr little-endian), repeatable")
            ->type_name("HEX");
    o_inputs->excludes(o_input);
    s_verify->footer(
        "The key: --vk FILE, or the verifying key inside --params FILE; with --c1 and neither, the cached\n"
        "<entry>.vk when it is there, else the cached parameters (the key used is named on stderr).\n"
        "Exit 2 on bad input: unreadable files, a malformed proof or verifying key (wrong length, point not\n"
        "on the curve or not in the subgroup), a key for another circuit, or a wrong number of public inputs.\n"
        "Example:\n"
        "  c2lab verify --c1 c1.json --proof proof.bin\n"
        "  c2lab verify --c1 c1.json --proof proof.bin --vk params.bin.vk\n"
        "  c2lab verify --params params.bin --proof proof.bin --inputs proof.bin.inputs\n"
        "  c2lab verify --vk params.bin.vk --proof proof.bin --inputs proof.bin.inputs");

    export_vk_args export_vk;
    auto* s_export_vk = app.add_subcommand(
        "export-vk",
        "Write the verifying key of a parameters file as a .vk file (bellperson's VerifyingKey::write layout: "
        "alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 uncompressed, the ic count as u32 big-endian, "
        "the ic points uncompressed), atomically.");
    auto* o_export_params =
        s_export_vk->add_option("--params", export_vk.params, "parameters file to read")->type_name("PATH");
    s_export_vk->add_option("--c1", export_vk.c1, "instead of --params: the cached parameters of this C1 file's proof type")
        ->type_name("PATH")
        ->excludes(o_export_params);
    s_export_vk->add_option("-o,--output", export_vk.out, "verifying-key file to write (default: <parameters>.vk)")
        ->type_name("PATH");
    s_export_vk->footer(
        "`c2lab setup` already writes <parameters>.vk beside every parameters file; export-vk makes it again,\n"
        "or elsewhere, from the parameters (read whole and checked: seconds for a PoRep circuit).\n"
        "Example:\n"
        "  c2lab export-vk --params params.bin                 # -> params.bin.vk\n"
        "  c2lab export-vk --c1 c1.json -o porep-2kib.vk\n"
        "  c2lab verify --vk porep-2kib.vk --c1 c1.json --proof proof.bin");

    std::vector<std::string> bench_pass;
    auto* s_bench = app.add_subcommand(
        "bench",
        "Run the per-stage benchmarks (scripts/bench.sh of the source tree: set-up, Release build, the suite, JSON "
        "under results/runs/<stamp>/, a table, and the comparison with this machine's stored baseline).");
    s_bench->allow_extras();
    s_bench->prefix_command();
    s_bench->footer(
        "Options are those of scripts/bench.sh: --suite quick|full, --filter REGEX, --repetitions N,\n"
        "--min-time S, --flag name=variant (repeatable), --dataset NAME.\n"
        "Example:\n"
        "  c2lab bench --suite quick\n"
        "  c2lab bench --filter 'synth/' --flag lc_indexer=smallvec4 --repetitions 10");

    bisect_args bis;
    auto* s_bisect = app.add_subcommand(
        "bisect", "Find the first commit between --good and --bad that made a benchmark slower (--find faster: "
                  "faster): git bisect over builds "
                  "of each commit in its own worktree, each measured against the good commit's binary with c2lab ab's "
                  "interleaved rounds and statistics.");
    s_bisect->add_option("--good", bis.good, "the older revision, before the change (where the benchmark is fast)")
        ->required()
        ->type_name("REV");
    s_bisect->add_option("--bad", bis.bad, "a later revision, after the change (where it is slower)")
        ->required()
        ->type_name("REV");
    s_bisect->add_option("--filter", bis.filter, "the benchmark to follow (--benchmark_filter)")->required()->type_name("REGEX");
    s_bisect->add_option("--binary", bis.binary,
                         "the benchmark binary's path in a built checkout, e.g. build/release/benchmarks/bench_msm")
        ->required()
        ->type_name("PATH");
    s_bisect->add_option("--build-cmd", bis.build_cmd, "how a checkout is built (bash, in its worktree)")
        ->capture_default_str()
        ->type_name("CMD");
    s_bisect->add_option("--flag", bis.flags, "engine flag name=value passed to every benchmark process (repeatable)")
        ->type_name("NAME=VALUE");
    s_bisect->add_option("--rounds", bis.rounds, "interleaved rounds per comparison (doubled once when inconclusive)")
        ->check(CLI::Range(2, 1000))
        ->capture_default_str();
    s_bisect->add_option("--min-time", bis.min_time, "--benchmark_min_time of each process, seconds")->capture_default_str();
    s_bisect->add_option("--margin", bis.margin, "changes smaller than this fraction count as the same")->capture_default_str();
    s_bisect->add_option("--metric", bis.metric, "real_time, or cpu_time on a loaded machine")
        ->check(CLI::IsMember({"real_time", "cpu_time"}))
        ->capture_default_str();
    s_bisect->add_option("--find", bis.find,
                         "slower: the first commit that made the benchmark slower; faster: the first that made it "
                         "faster (then --good is the older, slow revision and --bad the newer, fast one)")
        ->check(CLI::IsMember({"slower", "faster"}))
        ->capture_default_str();
    s_bisect->add_option("--work", bis.work, "worktrees and build logs (default: <repository>/build/bisect)")->type_name("DIR");
    s_bisect->footer(
        "Each step: the proposed commit is built (a failed build: git bisect skip) and its binary measured against\n"
        "the good commit's: slower -> bad, same or faster -> good, inconclusive -> the rounds doubled, then the\n"
        "candidate measured against --bad's binary too: measurably on --good's side of it -> good, else the end\n"
        "it is nearer to (the smaller of the two ratios' distances from 1).\n"
        "--bad is first checked to be slower than --good. Builds: the good and bad commits, then about log2(n) steps.\n"
        "Example:\n"
        "  c2lab bisect --good v1 --bad HEAD --binary build/release/benchmarks/bench_msm \\\n"
        "    --filter 'msm/g1/table/log_n:16/' --min-time 0.2");
    auto* s_flags = app.add_subcommand("flags", "List every engine flag with its variants, default and stage.");
    s_flags->footer(
        "Flags are set with `c2lab prove --flag name=value` (repeatable).\n"
        "Example:\n"
        "  c2lab flags");

    auto* s_gpu = app.add_subcommand("gpu-info",
                                     "Say whether the CUDA backend can run here: the GPU it would use, or why none "
                                     "(exit 0 with a device, 2 without).");
    s_gpu->footer(
        "The CUDA backend is built where nvcc was found when the build was configured; it runs on device 0.\n"
        "Example:\n"
        "  c2lab gpu-info");

    gate_args gate;
    auto* s_gate = app.add_subcommand(
        "gate",
        "Compare a benchmark run with a baseline, benchmark by benchmark (Mann-Whitney U, bootstrap CI of the "
        "ratio of medians, p-values adjusted over the run): prints a markdown table and exits 1 when at least one "
        "benchmark regressed.");
    s_gate->add_option("--baseline", gate.baseline,
                       "baseline Google Benchmark JSON (a file, or a directory of *.json), or history[:N]: the last N "
                       "(default 5) recorded runs on a matching machine, per benchmark, samples pooled (`c2lab history`)")
        ->type_name("PATH")
        ->required();
    s_gate->add_option("--current", gate.current, "current Google Benchmark JSON (a file, or a directory of *.json)")
        ->type_name("PATH")
        ->required();
    s_gate->add_option("--policy", gate.policy,
                       "policy JSON (metric, direction, alpha, margin, adjustment, min_repetitions, overrides, ignore; "
                       "regressions/README.md); default: built-in defaults")
        ->type_name("PATH");
    s_gate->add_option("--markdown", gate.markdown, "also write the markdown summary to this file (atomically)")
        ->type_name("PATH");
    s_gate->add_option("--html", gate.html,
                       "also write an HTML report (atomically): a forest plot of every ratio with its interval "
                       "against the margin, and the table")
        ->type_name("PATH");
    s_gate->add_option("--db", gate.db,
                       "with --baseline history[:N]: the history database, an SQLite file or postgresql://... (default: "
                       "$C2LAB_DB, else $C2LAB_HISTORY, else results/history.sqlite)")
        ->type_name("PATH");
    s_gate->add_option("--rows", gate.rows,
                       "print at most N rows of the table: every regression and improvement, then the largest "
                       "changes (the --markdown and --html files keep every row)")
        ->type_name("N");
    s_gate->add_flag("--allow-other-machine", gate.allow_other_machine,
                     "compare even when the fingerprints (cpu_model, num_cpus, build_type; cpu_id and cpu_path where both runs "
                     "record them) differ");
    s_gate->footer(
        "Exit codes: 0 no regression, 1 at least one benchmark regressed, 2 bad input (unreadable or malformed\n"
        "JSON or policy, runs from different machines). Benchmarks present in only one run are listed, not\n"
        "failed; fewer than min_repetitions repetitions is inconclusive. Run benchmarks with repetitions, e.g.\n"
        "scripts/bench.sh --repetitions 10.\n"
        "Example:\n"
        "  c2lab gate --baseline results/baselines/intel-r-xeon-r-processor-2cpu-release/bench_ff.json \\\n"
        "      --current results/runs/20261202T153256Z/bench_ff.json \\\n"
        "      --policy results/policies/default.json --markdown gate.md\n"
        "  c2lab gate --baseline history:5 --current results/runs/20261202T153256Z   # the last 5 recorded runs\n"
        "With --baseline history[:N] the baseline of each benchmark is the samples of the last N runs recorded\n"
        "in the history that hold it and match the current run's machine (cpu_model, num_cpus, build_type, and\n"
        "cpu_id and cpu_path where both runs record them; instruction counts: compiler, valgrind, build_type), the\n"
        "current run itself left out; the report\n"
        "names those runs.");

    ab_args abx;
    abx.command_line.assign(argv, argv + argc);
    auto* s_ab = app.add_subcommand(
        "ab",
        "A/B test of engine flags (and the malloc): runs every variant of a factorial design as fresh benchmark "
        "processes, interleaved in shuffled rounds, and compares each variant with the baseline (ratio of medians "
        "with a bootstrap CI, Mann-Whitney p adjusted by Holm): prints a markdown table and writes ab.md, ab.svg "
        "and ab.json.");
    s_ab->add_option("--binary", abx.binary,
                     "benchmark binary: a name in --bench-dir (bench_synth) or a path; default: the one bench_* binary "
                     "whose benchmarks match --filter")
        ->type_name("NAME|PATH");
    s_ab->add_option("--filter,--bench", abx.filter, "Google Benchmark filter (regex) of the benchmarks to compare")
        ->type_name("REGEX")
        ->required();
    s_ab->add_option("--flag", abx.flags,
                     "a flag and its values, name=v1,v2,... (repeatable, one per flag; the first value is the "
                     "baseline; list: `c2lab flags`)")
        ->type_name("K=V,..");
    s_ab->add_option("--allocator", abx.allocators,
                     "process allocators to cross with the flags: glibc (no preload), jemalloc (LD_PRELOAD "
                     "libjemalloc.so.2), mimalloc (libmimalloc.so.2); comma-separated, the first is the baseline")
        ->type_name("A,..")
        ->delimiter(',');
    s_ab->add_option("--rounds,--reps", abx.rounds, "rounds; each runs every variant once, in a shuffled order (>= 2)")
        ->type_name("N")
        ->capture_default_str();
    s_ab->add_option("--warmup", abx.warmup, "rounds run first and discarded")->type_name("N")->capture_default_str();
    s_ab->add_option("--min-time", abx.min_time, "--benchmark_min_time of each process, seconds")
        ->type_name("S")
        ->capture_default_str();
    s_ab->add_option("--dataset", abx.dataset, "--dataset of the benchmark binary (C1 dataset name)")->type_name("NAME");
    s_ab->add_option("--bench-dir", abx.bench_dir,
                     "where benchmark binaries are (default: build/release/benchmarks, then the benchmarks directory "
                     "of c2lab's own build)")
        ->type_name("DIR");
    s_ab->add_option("--out", abx.out, "output directory (default: results/ab/<UTC stamp>)")->type_name("DIR");
    s_ab->add_option("--metric", abx.metric, "real_time or cpu_time")
        ->check(CLI::IsMember({std::string("real_time"), std::string("cpu_time")}))
        ->capture_default_str();
    s_ab->add_option("--alpha", abx.alpha, "significance level of the Holm-adjusted p")->type_name("A")->capture_default_str();
    s_ab->add_option("--margin", abx.margin,
                     "relative change that matters: faster / slower need the whole CI beyond 1 -/+ margin, same needs "
                     "it inside")
        ->type_name("M")
        ->capture_default_str();
    s_ab->add_option("--seed", abx.seed, "seed of the round shuffles and the bootstrap (decimal u64)")
        ->type_name("S")
        ->capture_default_str();
    s_ab->add_option("--fail-on", abx.fail_on, "slower: exit 1 when a variant is significantly slower than the baseline")
        ->check(CLI::IsMember({std::string("slower")}))
        ->type_name("slower");
    s_ab->add_flag("--json", abx.json, "print ab.json on stdout instead of the markdown table");
    s_ab->add_flag("--no-history", abx.no_history,
                   "do not record the variants' samples in the results history ($C2LAB_DB, else $C2LAB_HISTORY, else "
                   "results/history.sqlite; one run of kind ab per variant)");
    s_ab->footer(
        "Method: the variants are the cross product of every --flag list and the --allocator list; the\n"
        "baseline is the first value of each (glibc first). Each round runs every variant once, each as a\n"
        "fresh process (<binary> --flag ... --benchmark_filter=F --benchmark_repetitions=1\n"
        "--benchmark_min_time=S --benchmark_format=json), in an order shuffled per round (seeded), so drift\n"
        "(heat, other load) hits every variant alike; one process gives one sample per benchmark; --warmup\n"
        "rounds (default 1: the first process of a run starts cold) run first and are discarded. Names are\n"
        "matched across variants with the varied flag's segment replaced by <flag>:*; a benchmark missing in\n"
        "some variant is listed and skipped. Each variant vs the baseline: ratio of medians with its bootstrap\n"
        "95% CI, Mann-Whitney p adjusted by Holm over all comparisons of the run; verdict faster / slower\n"
        "(p_adj < alpha and the CI beyond 1 -/+ margin), same (CI inside 1 +- margin), else inconclusive.\n"
        "With few rounds nothing can be significant (3 rounds: p >= 0.1); use 10 or more.\n"
        "Progress goes to stderr, one line per process. Exit codes: 0 done, 1 with --fail-on slower when a\n"
        "variant is slower, 2 bad input or a failing benchmark process (its stderr is shown).\n"
        "Example:\n"
        "  c2lab ab --binary bench_synth --filter 'synth/porep-2kib' --flag lc_indexer=vec,smallvec4 \\\n"
        "      --flag presize=off,on --rounds 10\n"
        "  c2lab ab --binary bench_r1cs --filter 'steps:4096' --flag lc_indexer=vec,smallvec2 \\\n"
        "      --allocator glibc,jemalloc,mimalloc --rounds 12 --min-time 0.05 --out results/ab/r1cs\n"
        "  c2lab ab --filter 'c1_decode/porep-2kib' --flag c1_json=nlohmann,simdjson --fail-on slower");

    auto* s_baseline = app.add_subcommand("baseline", "Manage stored baselines (results/baselines/<machine>/).");
    s_baseline->require_subcommand(1);
    baseline_update_args bupdate;
    auto* s_bupdate = s_baseline->add_subcommand(
        "update",
        "Copy a run's Google Benchmark JSON files into results/baselines/<machine>/ (each written atomically) and "
        "print what was written.");
    s_bupdate->add_option("--from", bupdate.from, "run directory, e.g. results/runs/<stamp>")->type_name("DIR")->required();
    s_bupdate->add_option("--machine", bupdate.machine,
                          "machine name, [a-z0-9-] (default: from the fingerprint: <cpu_model>-<cpu_id>-<num_cpus>cpu-<build_type>, "
                          "sanitized, the cpu_id (\"family F model M\") where the run records one; for instruction counts "
                          "toolchain-<compiler>-<valgrind>-<build_type>, any CPU)")
        ->type_name("NAME");
    s_bupdate->add_option("--results", bupdate.results, "results directory holding baselines/")
        ->type_name("DIR")
        ->capture_default_str();
    s_bupdate->footer(
        "Every file must parse and all must share one machine fingerprint. Files already in the baseline\n"
        "directory with the same names are replaced; others are left alone.\n"
        "Example:\n"
        "  c2lab baseline update --from results/runs/20261202T153256Z\n"
        "  c2lab baseline update --from results/runs/20261202T153256Z --machine ci-runner-1");
    baseline_update_args bpath;
    bpath.path_only = true;
    auto* s_bpath = s_baseline->add_subcommand(
        "path",
        "Print the baseline directory of a run's machine (results/baselines/<machine>), whether or not it exists; where "
        "it does not and one named without the run's cpu_id does (stored before runs recorded it), that one.");
    s_bpath->add_option("--from", bpath.from, "run directory, e.g. results/runs/<stamp>")->type_name("DIR")->required();
    s_bpath->add_option("--results", bpath.results, "results directory holding baselines/")
        ->type_name("DIR")
        ->capture_default_str();
    s_bpath->footer(
        "Example (compare a run with its machine's baseline when there is one):\n"
        "  dir=$(c2lab baseline path --from results/runs/<stamp>) && [ -d \"$dir\" ] && \\\n"
        "    c2lab gate --baseline \"$dir\" --current results/runs/<stamp>");

    auto* s_history = app.add_subcommand(
        "history",
        "The results history: every recorded run's raw samples in an SQLite database ($C2LAB_HISTORY, else "
        "results/history.sqlite); scripts/bench.sh and scripts/icount.sh record each run.");
    s_history->require_subcommand(1);
    s_history->footer(
        "Example:\n"
        "  c2lab history import\n"
        "  c2lab history record --from results/runs/20261202T153256Z\n"
        "  c2lab history list --bench 'ff/fp_mul'\n"
        "  c2lab gate --baseline history:5 --current results/runs/20261202T153256Z");
    history_args hrecord;
    auto* s_hrecord = s_history->add_subcommand(
        "record", "Record a run: Google Benchmark JSON (a file, or every *.json of a directory as one run) with its context.");
    s_hrecord->add_option("--from", hrecord.from, "a Google Benchmark JSON file, or a run directory, e.g. results/runs/<stamp>")
        ->type_name("DIR|FILE")
        ->required();
    s_hrecord->add_option("--kind", hrecord.kind,
                          "what measured it: bench, icount, ab, prove (default: icount when the context names valgrind, "
                          "else bench)")
        ->check(CLI::IsMember({std::string("bench"), std::string("icount"), std::string("ab"), std::string("prove")}))
        ->type_name("KIND");
    s_hrecord->add_option("--branch", hrecord.branch, "the branch the run measured (default: the context's \"branch\")")
        ->type_name("NAME");
    s_hrecord->add_option("--db", hrecord.db, "history database: an SQLite file, or a shared PostgreSQL server as postgresql://[user@]host[:port]/dbname (default: $C2LAB_DB, else $C2LAB_HISTORY, else results/history.sqlite)")
        ->type_name("PATH");
    s_hrecord->footer(
        "Every file is parsed before anything is written, and the run is stored in one transaction: whole or\n"
        "not at all. A file whose content (SHA-256) was recorded before is not recorded again.\n"
        "Example:\n"
        "  c2lab history record --from results/runs/20261202T153256Z\n"
        "  c2lab history record --from results/runs/20261202T160000Z-icount/icount.json --db /tmp/h.sqlite");
    history_args himport;
    auto* s_himport = s_history->add_subcommand(
        "import",
        "Record the JSON already under results/: each run directory (runs/*), each baseline file (baselines/*/*.json) "
        "and each A/B entry (ab/*) that is Google Benchmark JSON, each once.");
    s_himport->add_option("--results", himport.results, "the results directory")->type_name("DIR")->capture_default_str();
    s_himport->add_option("--db", himport.db, "history database: an SQLite file, or a shared PostgreSQL server as postgresql://[user@]host[:port]/dbname (default: $C2LAB_DB, else $C2LAB_HISTORY, else results/history.sqlite)")
        ->type_name("PATH");
    s_himport->footer(
        "Files recorded before (same SHA-256, e.g. a baseline copied from a run) are skipped, so import can run\n"
        "again at any time; runs are recorded oldest first. Other JSON (A/B reports) is named on stderr and passed\n"
        "over.\n"
        "Example:\n"
        "  c2lab history import\n"
        "  c2lab history import --results results --db /tmp/h.sqlite");
    history_args hlist;
    auto* s_hlist = s_history->add_subcommand(
        "list", "List the recorded runs (id, time, commit, kind, machine, benchmarks, source), or with --bench the "
                "median of each matching benchmark per run.");
    s_hlist->add_option("--bench", hlist.bench, "a regex (searched) of benchmark names: their series instead")
        ->type_name("REGEX");
    s_hlist->add_option("--metric", hlist.metric, "with --bench: the metric (real_time, cpu_time or a counter)")
        ->type_name("NAME")
        ->capture_default_str();
    s_hlist->add_option("--db", hlist.db, "history database: an SQLite file, or a shared PostgreSQL server as postgresql://[user@]host[:port]/dbname (default: $C2LAB_DB, else $C2LAB_HISTORY, else results/history.sqlite)")
        ->type_name("PATH");
    s_hlist->footer(
        "Example:\n"
        "  c2lab history list\n"
        "  c2lab history list --bench '^msm/g1/table/log_n:14'");
    history_args hchanges;
    auto* s_hchanges = s_history->add_subcommand(
        "changes",
        "Find change points in the history: per benchmark and machine, the series of each run's median, split by "
        "Apache Otava's analysis (default) or by E-Divisive means with a permutation test.");
    s_hchanges->add_option("--bench", hchanges.bench, "a regex (searched) of benchmark names (default: every one)")
        ->type_name("REGEX");
    s_hchanges->add_option("--metric", hchanges.metric, "the metric (real_time, cpu_time or a counter)")
        ->type_name("NAME")
        ->capture_default_str();
    s_hchanges->add_option("--method", hchanges.method,
                           "otava: Apache Otava's default analysis (windows, t-test, merge); e-divisive: E-Divisive "
                           "means over the whole series with a permutation test and a minimum segment length")
        ->check(CLI::IsMember({"otava", "e-divisive"}))
        ->capture_default_str();
    s_hchanges->add_option("--window", hchanges.window, "otava: runs per window of the split step")
        ->check(CLI::Range(2, 100000))
        ->capture_default_str();
    s_hchanges->add_option("--min-size", hchanges.min_size,
                           "e-divisive: shortest segment, in runs, on either side of a change (a single spike is "
                           "never a change)")
        ->check(CLI::Range(2, 1000))
        ->capture_default_str();
    s_hchanges->add_option("--alpha", hchanges.alpha,
                           "significance level of a change (default: otava 0.001, as Otava; e-divisive 0.05)");
    s_hchanges->add_option("--db", hchanges.db, "history database: an SQLite file, or postgresql://... (default: $C2LAB_DB, else $C2LAB_HISTORY, else results/history.sqlite)")
        ->type_name("PATH");
    s_hchanges->footer(
        "Prints one line per change: the benchmark, the machine, the first run after the change (id, commit), the\n"
        "means of the runs' medians before and after (up to the neighbouring changes), the change in percent and\n"
        "the p-value. The otava method is a port of Apache Otava 0.8's default analysis, checked against Otava's\n"
        "own output (regressions/change_points.hpp).\n"
        "Example:\n"
        "  c2lab history changes --bench '^prove/'");
    history_args hreport;
    auto* s_hreport = s_history->add_subcommand(
        "report", "Write the history as one HTML page: per benchmark a line plot of every run's median and "
                  "interquartile range (a line per machine, change points marked) and its table.");
    s_hreport->add_option("-o,--output", hreport.out, "the HTML file (written atomically)")->type_name("PATH")->required();
    s_hreport->add_option("--bench", hreport.bench, "a regex (searched) of benchmark names (default: every one)")
        ->type_name("REGEX");
    s_hreport->add_option("--metric", hreport.metric, "the metric (real_time, cpu_time or a counter)")
        ->type_name("NAME")
        ->capture_default_str();
    s_hreport->add_option("--method", hreport.method, "change points: otava or e-divisive (see history changes)")
        ->check(CLI::IsMember({"otava", "e-divisive"}))
        ->capture_default_str();
    s_hreport->add_option("--window", hreport.window, "change points (otava): runs per window")
        ->check(CLI::Range(2, 100000))
        ->capture_default_str();
    s_hreport->add_option("--min-size", hreport.min_size, "change points (e-divisive): shortest segment, in runs")
        ->check(CLI::Range(2, 1000))
        ->capture_default_str();
    s_hreport->add_option("--alpha", hreport.alpha, "change points: significance level (default: the method's)");
    s_hreport->add_option("--db", hreport.db, "history database: an SQLite file, or postgresql://... (default: $C2LAB_DB, else $C2LAB_HISTORY, else results/history.sqlite)")
        ->type_name("PATH");
    s_hreport->footer("Example:\n  c2lab history report --bench '^prove/' -o trend.html");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "c2lab: error: " << e.what() << "\nRun with --help for more information.\n";
        return exit_error;
    }

    try {
        if (!prove_budget.empty())
            prove.memory_budget_gib =
                double(c2lab::pipeline::parse_memory_size(prove_budget, "--memory-budget")) / double(1ull << 30);
        if (!setup_budget.empty())
            setup.memory_budget_gib =
                double(c2lab::pipeline::parse_memory_size(setup_budget, "--memory-budget")) / double(1ull << 30);
        if (*s_info) return info.nodes.empty() ? run_circuit_info(info) : run_porep_shape_info(info);
        if (*s_gen) return run_gen(gen);
        if (*s_parents) return run_parents(parents);
        if (*s_inputs) return run_inputs(inputs);
        if (*s_bench) return run_bench(s_bench->remaining());
        if (*s_setup) return run_setup(setup);
        if (*s_prove) return run_prove(prove);
        if (*s_verify) return run_verify(verify);
        if (*s_export_vk) return run_export_vk(export_vk);
        if (*s_flags) return run_flags();
        if (*s_bisect) return run_bisect(bis);
        if (*s_gpu) {
            std::cout << c2lab::gpu::device_description() << "\n";
            return 0;
        }
        if (*s_gate) return run_gate(gate);
        if (*s_bupdate) return run_baseline_update(bupdate);
        if (*s_bpath) return run_baseline_update(bpath);
        if (*s_ab) return run_ab(abx);
        if (*s_hrecord) return run_history_record(hrecord);
        if (*s_himport) return run_history_import(himport);
        if (*s_hlist) return run_history_list(hlist);
        if (*s_hchanges) return run_history_changes(hchanges);
        if (*s_hreport) return run_history_report(hreport);
        return exit_error;
    } catch (const c2lab::error& e) {
        std::cerr << "c2lab: error: " << e.what() << "\n";
    } catch (const std::bad_alloc&) {
        std::cerr << "c2lab: error: out of memory\n";
    } catch (const std::exception& e) {
        std::cerr << "c2lab: error: " << e.what() << "\n";
    }
    return exit_error;
}

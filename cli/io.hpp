// Small helpers of the c2lab CLI (files are read and written atomically with
// core/file.hpp): the public-inputs text format:
// one Fr element per line, hex of its 32 canonical little-endian bytes (bellperson's Fr
// repr); blank lines and lines starting with '#' are ignored.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/file.hpp"
#include "ff/fields.hpp"
#include "groth16/keys.hpp"
#include "r1cs/constraint_matrices.hpp"
#include "r1cs/constraint_system.hpp"
#include "r1cs/shape_pass.hpp"

namespace c2lab::cli {

using c2lab::read_file;
using c2lab::write_file_atomic;

// Text (a report, JSON, SVG, markdown) written atomically as its bytes.
inline void write_text_atomic(const std::string& path, std::string_view text) {
    write_file_atomic(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::string fr_to_hex(const ff::fr& x);
// Throws c2lab::error(bad_input / bad_length / non_canonical) naming `what`.
ff::fr fr_from_hex(std::string_view text, const std::string& what);

std::string format_inputs(std::span<const ff::fr> inputs);
std::vector<ff::fr> parse_inputs(std::string_view text, const std::string& source);


// Timing and progress of the commands: one progress line per step on stderr ("[cmd] msg"),
// stdout stays for results.
using clock_type = std::chrono::steady_clock;
inline double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}
void progress(const std::string& cmd, const std::string& msg);
std::string fmt_ms(double ms);

// `c2lab setup` of any circuit: a TEST setup (toxic waste from `seed`) written atomically to
// `out`, or, out empty, to the parameters cache entry of `name` and the shape
// (pipeline/params_cache.hpp: made once under the entry's lock, reused when there). Before
// anything large is allocated, the memory the setup needs (pipeline::setup_memory_need) is
// checked against memory_budget (bytes; 0: what the machine has available). The parameters
// record the shape's digest. Prints the parameters, counts and times on stdout; returns the
// exit code.
struct setup_request {
    std::string name;                 // "hash-chain", "StackedDrg2KiBV1_1"
    r1cs::circuit_shape shape;        // the shape pass's: counts (input constraints included), densities, digest
    std::function<void(r1cs::constraint_matrices<>&)> synthesize;  // records A, B, C (and the input constraints)
    uint64_t seed = 0;
    std::string out;                  // empty: the cache
    bool force = false;               // with the cache: make the entry again
    uint64_t memory_budget = 0;
};
int run_setup_request(const setup_request& r);

// circuit-info's lines from the shape pass: the A and B densities and the query sizes, the
// matrices' entries, the circuit digest, the exact size of the parameters file and the memory
// setup and one prove (one partition) are estimated to need.
void print_shape_details(std::ostream& out, const r1cs::circuit_shape& shape);

// Before reading a parameters file whole (verify): its size against the available memory.
void check_params_memory(const std::string& path);

// verify's key: prepare_verifying_key (its consistency checked) with `source` (the .vk or
// parameters file it came from) in front of any error.
groth16::prepared_verifying_key prepare_key(const groth16::verifying_key& vk, const std::string& source);

// export-vk: writes the verifying key of the parameters file `params` to `out` (empty:
// <params>.vk) and prints what it wrote.
int export_verifying_key(const std::string& params, const std::string& out);

// --memory-budget as given to the CLI (GiB; 0: none) in bytes.
inline uint64_t budget_bytes(double gib) { return gib > 0 ? uint64_t(gib * double(1ull << 30)) : 0; }

// The UTC time now in strftime's `format` ("%Y-%m-%dT%H:%M:%SZ").
std::string utc_stamp(const char* format);
// The commit of the repository holding the current directory, read from its .git (HEAD, the
// ref's file or packed-refs); "" when there is none.
std::string current_commit();
// This machine: cpu_model (/proc/cpuinfo), num_cpus, host_name, kernel, load_avg_at_start.
std::vector<std::pair<std::string, std::string>> machine_info();

// A child process's exit and output.
struct process_output {
    int status = 0;  // waitpid status
    std::string out, err;
};
// Runs path with args (argv[0] = path) and env; stdin is /dev/null, stdout and stderr are
// captured (both pipes are drained together, so neither can fill up and block the child).
process_output spawn_capture(const std::string& path, const std::vector<std::string>& args,
                             const std::vector<std::string>& env);
// "exit 3", "killed by signal 9".
std::string describe_status(int status);
// The last max_chars of s, from a line start.
std::string tail_lines(const std::string& s, std::size_t max_chars = 4000);

// The context a run of this c2lab records in the results history, as scripts/bench.sh gives
// the benchmarks': cpu_model, build_type, compiler, date, and the commit (7 digits) when the
// current directory is in a git checkout.
std::vector<std::pair<std::string, std::string>> build_context();

}  // namespace c2lab::cli

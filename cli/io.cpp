#include "io.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <unistd.h>
#include <sys/utsname.h>
#include <ctime>
#include <thread>
#include <fstream>
#include <filesystem>
#include <optional>
#include <iostream>
#include <sstream>

#include <openssl/rand.h>

#include "core/error.hpp"
#include "core/hex.hpp"
#include "core/rng.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "groth16/vk_file.hpp"
#include "pipeline/batch.hpp"
#include "pipeline/params_cache.hpp"

namespace c2lab::cli {

std::string fr_to_hex(const ff::fr& x) {
    std::array<uint8_t, ff::fr::bytes> b{};
    x.to_bytes_le(b);
    return to_hex(b);
}

ff::fr fr_from_hex(std::string_view text, const std::string& what) {
    std::vector<uint8_t> b;
    try {
        b = from_hex(text);
    } catch (const error& e) {
        throw error(e.kind(), what + ": " + e.what());
    }
    if (b.size() != ff::fr::bytes)
        throw error(errc::bad_length, what + ": expected " + std::to_string(ff::fr::bytes) + " bytes (" +
                                          std::to_string(2 * ff::fr::bytes) + " hex digits), got " +
                                          std::to_string(b.size()));
    return ff::fr::from_bytes_le(std::span<const uint8_t, ff::fr::bytes>(b.data(), ff::fr::bytes), what);
}

std::string format_inputs(std::span<const ff::fr> inputs) {
    std::string out;
    for (const auto& x : inputs) out += fr_to_hex(x) + "\n";
    return out;
}

std::vector<ff::fr> parse_inputs(std::string_view text, const std::string& source) {
    std::vector<ff::fr> out;
    std::istringstream in{std::string(text)};
    std::string line;
    for (size_t lineno = 1; std::getline(in, line); ++lineno) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') continue;
        out.push_back(fr_from_hex(std::string_view(line).substr(start), source + ":" + std::to_string(lineno)));
    }
    return out;
}

void progress(const std::string& cmd, const std::string& msg) { std::cerr << "[" << cmd << "] " << msg << std::endl; }

std::string fmt_ms(double ms) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f ms", ms);
    return b;
}

void check_params_memory(const std::string& path) {
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    if (ec) return;  // reading it reports the problem
    pipeline::memory_need need;
    need.what = "reading " + path;
    need.terms = {{"parameters", uint64_t(bytes)}};
    pipeline::check_memory(need, 0);
}

groth16::prepared_verifying_key prepare_key(const groth16::verifying_key& vk, const std::string& source) {
    try {
        return groth16::prepare_verifying_key(vk);
    } catch (const error& e) {
        throw error(e.kind(), source + ": " + e.what());
    }
}

int export_verifying_key(const std::string& params, const std::string& out) {
    const std::string path = out.empty() ? groth16::vk_path_beside(params) : out;
    if (path == params) throw error(errc::bad_input, "-o: " + path + " is the parameters file itself");
    check_params_memory(params);
    progress("export-vk", "reading " + params);
    const auto t0 = clock_type::now();
    const groth16::verifying_key vk = groth16::read_parameters(params).vk;
    groth16::write_verifying_key(path, vk);
    std::cout << "verifying key: " << path << " (" << std::filesystem::file_size(path) << " bytes, ic "
              << vk.ic.size() << ": " << vk.ic.size() - 1 << " public inputs)\n"
              << "parameters: " << params << "\n"
              << "time: " << fmt_ms(ms_since(t0)) << "\n";
    return 0;
}

namespace {
std::string share(uint64_t part, uint64_t whole) {
    if (whole == 0) return "-";
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(1);
    s << 100.0 * double(part) / double(whole) << "%";
    return s.str();
}
std::string terms_of(const pipeline::memory_need& need) {
    std::string t;
    for (const auto& term : need.terms)
        t += (t.empty() ? "" : " + ") + term.name + " " + pipeline::format_bytes(term.bytes);
    return t;
}
}  // namespace

void print_shape_details(std::ostream& out, const r1cs::circuit_shape& s) {
    const uint64_t file = pipeline::params_file_bytes(s);
    const pipeline::memory_need setup = pipeline::setup_memory_need(s);
    const pipeline::memory_need prove = pipeline::prove_memory_need("prove", s, 1);
    out << "a density: " << s.a_aux_density << " of " << s.num_aux() << " aux (" << share(s.a_aux_density, s.num_aux())
        << "); a query: " << s.a_query_size() << " points (every input + those aux)\n"
        << "b density: " << s.b_input_density << " of " << s.num_inputs() << " inputs, " << s.b_aux_density << " of "
        << s.num_aux() << " aux (" << share(s.b_aux_density, s.num_aux()) << "); b query: " << s.b_query_size()
        << " points in G1 and in G2\n"
        << "matrix entries: " << s.matrix_entries << " (A, B, C)\n"
        << "circuit digest: " << s.digest_hex() << "\n"
        << "parameters file: " << file << " bytes (" << pipeline::format_bytes(file) << ", exact)\n"
        << "memory estimate, setup: " << pipeline::format_bytes(setup.total()) << " (" << terms_of(setup) << ")\n"
        << "memory estimate, prove: " << pipeline::format_bytes(prove.total()) << " (" << terms_of(prove) << ")\n";
}

int run_setup_request(const setup_request& r) {
    namespace fs = std::filesystem;
    const r1cs::circuit_shape& sc = r.shape;
    pipeline::memory_need need = pipeline::setup_memory_need(sc);
    need.what = "setup of " + r.name;
    const auto t_all = clock_type::now();
    double t_synth = 0, t_gen = 0, t_write = 0;
    std::optional<groth16::parameters> made;
    const auto make = [&](const std::string& out) {
        pipeline::check_memory(need, r.memory_budget);
        progress("setup", r.name + ": recording the constraint matrices (" + std::to_string(sc.num_constraints()) +
                              " constraints)");
        auto t0 = clock_type::now();
        r1cs::constraint_matrices<> cs;
        r.synthesize(cs);
        t_synth = ms_since(t0);
        progress("setup", "generating parameters (test toxic waste from seed " + std::to_string(r.seed) + ")");
        t0 = clock_type::now();
        rng g(r.seed);
        groth16::setup_config scfg;
        scfg.progress = [](const std::string& line) { progress("setup", line); };
        made.emplace(groth16::generate_parameters(cs, g, scfg));
        made->circuit_digest = sc.digest;
        t_gen = ms_since(t0);
        const fs::path dir = fs::path(out).parent_path();
        if (!dir.empty()) fs::create_directories(dir);
        progress("setup", "writing " + out);
        t0 = clock_type::now();
        groth16::write_parameters_and_vk(out, *made);  // and <out>.vk, bellperson's VerifyingKey layout
        t_write = ms_since(t0);
    };
    std::string path = r.out;
    if (path.empty()) {
        const pipeline::cached_params c = pipeline::ensure_cached_params(
            pipeline::params_path(r.name, sc), make, [](const std::string& line) { progress("setup", line); }, r.force);
        path = c.path;
        if (!c.generated) {
            // An entry made by an older c2lab (or interrupted after the parameters) has no .vk yet.
            const bool vk_missing = !fs::exists(groth16::vk_path_beside(path));
            if (vk_missing) progress("setup", "writing the missing " + groth16::vk_path_beside(path));
            const std::string vk = groth16::ensure_vk_beside(path);
            std::cout << "parameters: " << path << " (cached" << (c.waited ? ", made by another c2lab process" : "")
                      << "; --force to make them again)\n"
                      << "verifying key: " << vk << " (" << fs::file_size(vk) << " bytes"
                      << (vk_missing ? ", written now" : "") << ")\n"
                      << "circuit: " << r.name << "\n"
                      << "constraints: " << sc.num_constraints() << "  inputs: " << sc.num_inputs()
                      << "  aux: " << sc.num_aux() << "\n"
                      << "circuit digest: " << sc.digest_hex() << "\n";
            return 0;
        }
    } else {
        make(path);
    }
    const groth16::parameters& p = *made;
    const std::string vk = groth16::vk_path_beside(path);
    std::cout << "parameters: " << path << " (" << fs::file_size(path) << " bytes)\n"
              << "verifying key: " << vk << " (" << fs::file_size(vk) << " bytes)\n"
              << "circuit: " << r.name << "\n"
              << "constraints: " << sc.num_constraints() << "  domain: " << p.domain_size()
              << "  inputs: " << p.num_inputs() << "  aux: " << p.num_aux() << "\n"
              << "points: h " << p.h.size() << ", l " << p.l.size() << ", a " << p.a.size() << ", b_g1 "
              << p.b_g1.size() << ", b_g2 " << p.b_g2.size() << ", ic " << p.vk.ic.size() << "\n"
              << "circuit digest: " << sc.digest_hex() << "\n"
              << "memory: estimated " << pipeline::format_bytes(need.total()) << " before the setup\n"
              << "time: synthesize " << fmt_ms(t_synth) << ", generate " << fmt_ms(t_gen) << ", write "
              << fmt_ms(t_write) << ", total " << fmt_ms(ms_since(t_all)) << "\n";
    return 0;
}


std::string utc_stamp(const char* format) {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char b[64];
    std::strftime(b, sizeof b, format, &tm);
    return b;
}

// The commit of the repository holding the current directory, read from its .git (HEAD, the
// ref's file or packed-refs); "" when there is none.
std::string current_commit() {
    std::error_code ec;
    for (std::filesystem::path dir = std::filesystem::current_path(ec); !ec && !dir.empty(); dir = dir.parent_path()) {
        std::filesystem::path git = dir / ".git";
        if (std::filesystem::is_regular_file(git, ec)) {  // a worktree or submodule: "gitdir: <path>"
            std::ifstream f(git);
            std::string line;
            std::getline(f, line);
            if (line.rfind("gitdir: ", 0) != 0) return "";
            git = std::filesystem::path(line.substr(8));
            if (git.is_relative()) git = dir / git;
        } else if (!std::filesystem::is_directory(git, ec)) {
            if (dir == dir.root_path()) return "";
            continue;
        }
        std::ifstream head(git / "HEAD");
        std::string h;
        std::getline(head, h);
        if (h.rfind("ref: ", 0) != 0) return h;  // detached
        const std::string ref = h.substr(5);
        std::filesystem::path common = git;
        if (std::ifstream cd(git / "commondir"); cd) {
            std::string c;
            std::getline(cd, c);
            common = std::filesystem::path(c).is_relative() ? git / c : std::filesystem::path(c);
        }
        for (const std::filesystem::path& base : {git, common}) {
            std::ifstream rf(base / ref);
            std::string id;
            if (rf && std::getline(rf, id) && !id.empty()) return id;
        }
        std::ifstream packed(common / "packed-refs");
        for (std::string line; std::getline(packed, line);)
            if (line.size() > 41 && line.substr(41) == ref) return line.substr(0, 40);
        return "";
    }
    return "";
}

std::vector<std::pair<std::string, std::string>> machine_info() {
    std::vector<std::pair<std::string, std::string>> m;
    // The first processor's "model name", and its "cpu family" and "model" as cpu_id ("family 25
    // model 17"): virtual machines often show one model name for several generations.
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string family, model;
    for (std::string line; std::getline(cpuinfo, line) && !line.empty();) {
        const auto colon = line.find(':');
        if (colon == std::string::npos || colon + 2 > line.size()) continue;
        const std::string value = line.substr(colon + 2);
        if (line.rfind("model name", 0) == 0) m.emplace_back("cpu_model", value);
        else if (line.rfind("cpu family", 0) == 0) family = value;
        else if (line.rfind("model", 0) == 0 && line.find_first_not_of(" \t", 5) == colon) model = value;
    }
    if (!family.empty() && !model.empty()) m.emplace_back("cpu_id", "family " + family + " model " + model);
    m.emplace_back("num_cpus", std::to_string(std::thread::hardware_concurrency()));
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) m.emplace_back("host_name", host);
    utsname u{};
    if (::uname(&u) == 0) m.emplace_back("kernel", std::string(u.sysname) + " " + u.release + " " + u.machine);
    double load[3];
    if (::getloadavg(load, 3) == 3) {
        char b[64];
        std::snprintf(b, sizeof b, "%.2f %.2f %.2f", load[0], load[1], load[2]);
        m.emplace_back("load_avg_at_start", b);
    }
    return m;
}


// Runs path with args (argv[0] = path) and env; stdin is /dev/null, stdout and stderr are
// captured (both pipes are drained together, so neither can fill up and block the child).
process_output spawn_capture(const std::string& path, const std::vector<std::string>& args,
                             const std::vector<std::string>& env) {
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw error(errc::resource, "pipe: " + std::string(std::strerror(errno)));
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        ::close(out_pipe[0]);
        ::close(out_pipe[1]);
        throw error(errc::resource, "pipe: " + std::string(std::strerror(errno)));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);

    std::vector<char*> argv{const_cast<char*>(path.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);

    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, path.c_str(), &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (rc != 0) {
        ::close(out_pipe[0]);
        ::close(err_pipe[0]);
        throw error(errc::io, path + ": cannot start: " + std::strerror(rc));
    }

    process_output po;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&po.out, &po.err};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[i]->append(buf, static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0) ::close(f.fd);
    while (::waitpid(pid, &po.status, 0) < 0 && errno == EINTR) {
    }
    return po;
}

// "exit 3", "killed by signal 9".
std::string describe_status(int status) {
    if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "status " + std::to_string(status);
}

std::string tail_lines(const std::string& s, std::size_t max_chars) {
    std::string t = s.size() > max_chars ? "...\n" + s.substr(s.size() - max_chars) : s;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    return t.empty() ? "(no stderr)" : t;
}

std::vector<std::pair<std::string, std::string>> build_context() {
    std::vector<std::pair<std::string, std::string>> c;
    for (const auto& [k, v] : machine_info())
        if (k == "cpu_model" || k == "cpu_id") c.emplace_back(k, v);
    c.emplace_back("build_type", C2LAB_BUILD_TYPE);
    c.emplace_back("compiler", std::string("c++ ") + __VERSION__);
    c.emplace_back("date", utc_stamp("%Y-%m-%dT%H:%M:%S+00:00"));
    const std::string commit = current_commit();
    if (!commit.empty()) c.emplace_back("commit", commit.substr(0, 7));
    return c;
}

}  // namespace c2lab::cli

#include "regressions/bench_json.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/file.hpp"

namespace c2lab::regressions {

namespace {

using nlohmann::json;

std::string context_string(const json& ctx, const char* key) {
    auto it = ctx.find(key);
    if (it == ctx.end() || it->is_null()) return {};
    if (it->is_string()) return it->get<std::string>();
    return it->dump();
}

bool is_bookkeeping(const std::string& key) {
    static const std::set<std::string> keys = {
        "family_index", "per_family_instance_index", "repetitions", "repetition_index", "threads",
        "iterations",   "real_time",                 "cpu_time"};
    return keys.count(key) != 0;
}

std::string show(const std::string& s) { return s.empty() ? "(missing)" : "'" + s + "'"; }

}  // namespace

double to_nanoseconds(double value, std::string_view unit, const std::string& where) {
    if (unit == "ns") return value;
    if (unit == "us") return value * 1e3;
    if (unit == "ms") return value * 1e6;
    if (unit == "s") return value * 1e9;
    throw_bad_input(where + ": unknown time_unit '" + std::string(unit) + "' (expected ns, us, ms or s)");
}

std::vector<std::string> fingerprint_differences(const machine_fingerprint& b, const machine_fingerprint& c) {
    std::vector<std::string> out;
    auto kind = [](const machine_fingerprint& m) { return m.counts_instructions() ? "instruction counts" : "timings"; };
    if (b.counts_instructions() != c.counts_instructions())
        out.push_back(std::string("kind: baseline ") + kind(b) + ", current " + kind(c));
    if (b.counts_instructions() && c.counts_instructions()) {
        if (b.compiler != c.compiler)
            out.push_back("compiler: baseline " + show(b.compiler) + ", current " + show(c.compiler));
        if (b.valgrind != c.valgrind)
            out.push_back("valgrind: baseline " + show(b.valgrind) + ", current " + show(c.valgrind));
    } else {
        if (b.cpu_model != c.cpu_model)
            out.push_back("cpu_model: baseline " + show(b.cpu_model) + ", current " + show(c.cpu_model));
        if (b.num_cpus != c.num_cpus)
            out.push_back("num_cpus: baseline " + std::to_string(b.num_cpus) + ", current " + std::to_string(c.num_cpus));
        // Recorded by newer runs only: compared where both have them.
        if (!b.cpu_id.empty() && !c.cpu_id.empty() && b.cpu_id != c.cpu_id)
            out.push_back("cpu_id: baseline " + show(b.cpu_id) + ", current " + show(c.cpu_id));
        if (!b.cpu_path.empty() && !c.cpu_path.empty() && b.cpu_path != c.cpu_path)
            out.push_back("cpu_path: baseline " + show(b.cpu_path) + ", current " + show(c.cpu_path));
    }
    if (b.build_type != c.build_type)
        out.push_back("build_type: baseline " + show(b.build_type) + ", current " + show(c.build_type));
    return out;
}

std::string sanitize_machine_name(std::string_view text) {
    std::string out;
    bool dash = false;
    for (unsigned char ch : text) {
        if (std::isalnum(ch) && ch < 0x80) {
            if (dash && !out.empty()) out += '-';
            dash = false;
            out += static_cast<char>(std::tolower(ch));
        } else {
            dash = true;
        }
    }
    return out;
}

std::string baseline_name(const machine_fingerprint& m, bool with_cpu_id) {
    if (m.counts_instructions()) {
        if (m.compiler.empty()) return {};
        return sanitize_machine_name("toolchain-" + m.compiler + "-" + m.valgrind + "-" + m.build_type);
    }
    if (m.cpu_model.empty()) return {};
    const std::string id = with_cpu_id && !m.cpu_id.empty() ? "-" + m.cpu_id : "";
    return sanitize_machine_name(m.cpu_model + id + "-" + std::to_string(m.num_cpus) + "cpu-" + m.build_type);
}

const benchmark_samples* bench_run::find(std::string_view name) const {
    for (const auto& b : benchmarks)
        if (b.name == name) return &b;
    return nullptr;
}

std::optional<std::string> stage_of_counter(std::string_view metric) {
    constexpr std::string_view suffix = "_ms";
    if (metric.size() <= suffix.size() || !metric.ends_with(suffix)) return std::nullopt;
    return std::string(metric.substr(0, metric.size() - suffix.size()));
}

namespace {

// Google Benchmark writes a non-finite double as a bare NaN, -nan, inf or -inf (for example
// the cv aggregate of a counter that is 0 in every repetition: 0 / 0), which is not JSON.
// Outside strings, such a token becomes null: an aggregate row is skipped anyway, and a null
// counter of an iteration row is not a number (and so not a metric).
std::string nonfinite_to_null(std::string_view text) {
    static constexpr std::string_view tokens[] = {"-Infinity", "Infinity", "-nan", "-NaN", "NaN", "nan", "-inf", "inf"};
    std::string out;
    out.reserve(text.size());
    bool in_string = false;
    for (std::size_t i = 0; i < text.size();) {
        const char ch = text[i];
        if (in_string) {
            out += ch;
            if (ch == '\\' && i + 1 < text.size()) {
                out += text[i + 1];
                i += 2;
                continue;
            }
            if (ch == '"') in_string = false;
            ++i;
            continue;
        }
        if (ch == '"') {
            in_string = true;
            out += ch;
            ++i;
            continue;
        }
        bool replaced = false;
        for (std::string_view t : tokens) {
            if (text.substr(i, t.size()) == t) {
                out += "null";
                i += t.size();
                replaced = true;
                break;
            }
        }
        if (!replaced) out += text[i++];
    }
    return out;
}

}  // namespace

bench_run parse_bench_json(std::string_view raw_text, const std::string& source) {
    json doc;
    try {
        const std::string text = nonfinite_to_null(raw_text);
        doc = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {  // parse_error, or out_of_range for a number such as 1e400
        throw_bad_input(source + ": malformed JSON: " + e.what());
    }
    if (!doc.is_object()) throw_bad_input(source + ": the top level is not a JSON object");

    bench_run run;
    run.source = source;
    if (auto ctx = doc.find("context"); ctx != doc.end()) {
        if (!ctx->is_object()) throw_bad_input(source + ": field 'context' is not an object");
        for (auto kv = ctx->begin(); kv != ctx->end(); ++kv)
            run.context[kv.key()] = kv->is_string() ? kv->get<std::string>() : kv->dump();
        for (const char* key : {"cpu_model", "model name", "model_name", "cpu"}) {
            run.machine.cpu_model = context_string(*ctx, key);
            if (!run.machine.cpu_model.empty()) break;
        }
        if (auto n = ctx->find("num_cpus"); n != ctx->end() && !n->is_null()) {
            if (!n->is_number_integer()) throw_bad_input(source + ": field 'context.num_cpus' is not an integer");
            run.machine.num_cpus = n->get<long long>();
        }
        run.machine.build_type = context_string(*ctx, "build_type");
        run.machine.compiler = context_string(*ctx, "compiler");
        run.machine.valgrind = context_string(*ctx, "valgrind");
        run.machine.cpu_id = context_string(*ctx, "cpu_id");
        run.machine.cpu_path = context_string(*ctx, "cpu_path");
    }

    auto rows = doc.find("benchmarks");
    if (rows == doc.end()) throw_bad_input(source + ": missing field 'benchmarks'");
    if (!rows->is_array()) throw_bad_input(source + ": field 'benchmarks' is not an array");

    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < rows->size(); ++i) {
        const json& row = (*rows)[i];
        const std::string where = source + ": benchmarks[" + std::to_string(i) + "]";
        if (!row.is_object()) throw_bad_input(where + " is not an object");
        if (auto rt = row.find("run_type"); rt != row.end()) {
            if (!rt->is_string()) throw_bad_input(where + ": field 'run_type' is not a string");
            if (rt->get<std::string>() != "iteration") continue;  // aggregates
        }
        if (auto err = row.find("error_occurred"); err != row.end() && err->is_boolean() && err->get<bool>()) continue;

        auto name_it = row.find("run_name");
        if (name_it == row.end()) name_it = row.find("name");
        if (name_it == row.end()) throw_bad_input(where + ": missing field 'run_name' (and 'name')");
        if (!name_it->is_string() || name_it->get<std::string>().empty())
            throw_bad_input(where + ": field '" + name_it.key() + "' is not a non-empty string");
        const std::string name = name_it->get<std::string>();
        const std::string here = where + " (" + name + ")";

        std::string unit = "ns";
        if (auto u = row.find("time_unit"); u != row.end()) {
            if (!u->is_string()) throw_bad_input(here + ": field 'time_unit' is not a string");
            unit = u->get<std::string>();
        }

        auto [it, fresh] = index.emplace(name, run.benchmarks.size());
        if (fresh) run.benchmarks.push_back({name, 0, {}});
        benchmark_samples& b = run.benchmarks[it->second];
        ++b.repetitions;

        for (const char* key : {"real_time", "cpu_time"}) {
            auto t = row.find(key);
            if (t == row.end()) throw_bad_input(here + ": missing field '" + key + "'");
            if (!t->is_number()) throw_bad_input(here + ": field '" + key + "' is not a number");
            const double v = t->get<double>();
            if (!std::isfinite(v)) throw_bad_input(here + ": field '" + key + "' is not finite");
            b.metrics[key].push_back(to_nanoseconds(v, unit, here));
        }
        for (auto f = row.begin(); f != row.end(); ++f) {
            if (!f->is_number() || is_bookkeeping(f.key())) continue;
            const double v = f->get<double>();
            if (!std::isfinite(v)) throw_bad_input(here + ": counter '" + f.key() + "' is not finite");
            b.metrics[f.key()].push_back(v);
        }
    }
    return run;
}

bench_run read_bench_run(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
        const std::vector<uint8_t> bytes = read_file(path);
        return parse_bench_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
    }
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(path, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path().string());
    if (ec) throw error(errc::io, path + ": cannot list the directory: " + ec.message());
    if (files.empty()) throw_bad_input(path + ": no *.json files in the directory");
    std::sort(files.begin(), files.end());

    bench_run merged;
    merged.source = path;
    std::map<std::string, std::string> origin;  // benchmark -> file
    for (std::size_t k = 0; k < files.size(); ++k) {
        bench_run one = read_bench_run(files[k]);
        if (k == 0) {
            merged.machine = one.machine;
            merged.context = one.context;
        } else if (auto diff = fingerprint_differences(merged.machine, one.machine); !diff.empty()) {
            throw_bad_input(files[k] + ": machine fingerprint differs from " + files[0] + " (" + diff.front() + ")");
        }
        // A field that only some files record (compared where both have it) is the run's.
        for (auto field : {&machine_fingerprint::cpu_id, &machine_fingerprint::cpu_path})
            if ((merged.machine.*field).empty()) merged.machine.*field = one.machine.*field;
        for (auto& b : one.benchmarks) {
            auto [it, fresh] = origin.emplace(b.name, files[k]);
            if (!fresh) throw_bad_input(files[k] + ": benchmark '" + b.name + "' also appears in " + it->second);
            merged.benchmarks.push_back(std::move(b));
        }
    }
    return merged;
}

}  // namespace c2lab::regressions

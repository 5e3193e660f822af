#include "regressions/history.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/file.hpp"
#include "regressions/sql_db.hpp"
#include "regressions/stats.hpp"

namespace c2lab::regressions {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Schema. Migration k (1-based) takes a database from version k - 1 to k; each runs in the
// transaction that also sets schema_version. Plain SQL only: the same statements create a
// PostgreSQL schema.

namespace {

const char* const migrations[] = {
    // 1: runs, their files, their samples.
    "CREATE TABLE schema_version (version INTEGER NOT NULL);"
    "INSERT INTO schema_version (version) VALUES (0);"
    "CREATE TABLE runs ("
    "  id BIGINT PRIMARY KEY,"
    "  recorded_at TEXT NOT NULL,"
    "  run_date TEXT NOT NULL,"
    "  commit_id TEXT NOT NULL,"
    "  branch TEXT NOT NULL,"
    "  dirty INTEGER NOT NULL,"
    "  cpu_model TEXT NOT NULL,"
    "  num_cpus BIGINT NOT NULL,"
    "  build_type TEXT NOT NULL,"
    "  compiler TEXT NOT NULL,"
    "  valgrind TEXT NOT NULL,"
    "  cpu_path TEXT NOT NULL,"
    "  kind TEXT NOT NULL CHECK (kind IN ('bench', 'icount', 'ab', 'prove')),"
    "  flags TEXT NOT NULL,"
    "  dataset TEXT NOT NULL,"
    "  source TEXT NOT NULL);"
    "CREATE TABLE run_files ("
    "  run_id BIGINT NOT NULL REFERENCES runs (id),"
    "  name TEXT NOT NULL,"
    "  sha256 TEXT NOT NULL UNIQUE,"
    "  PRIMARY KEY (run_id, name));"
    "CREATE TABLE samples ("
    "  run_id BIGINT NOT NULL REFERENCES runs (id),"
    "  bench_index INTEGER NOT NULL,"
    "  benchmark TEXT NOT NULL,"
    "  metric TEXT NOT NULL,"
    "  repetition INTEGER NOT NULL,"
    "  value DOUBLE PRECISION NOT NULL,"
    "  PRIMARY KEY (run_id, benchmark, metric, repetition));"
    "CREATE INDEX samples_by_benchmark ON samples (benchmark, run_id);",
    // 2: the CPU's family and model ("family F model M"; '' for runs recorded before): virtual
    // machines show one model name for several generations.
    "ALTER TABLE runs ADD COLUMN cpu_id TEXT NOT NULL DEFAULT '';",
};
static_assert(std::size(migrations) == history_schema_version);

std::string utc_now() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return b;
}

// The history over either driver (sql_db.hpp): every statement below runs on both.
class sql_history final : public history_store {
public:
    explicit sql_history(std::unique_ptr<sql_db> db) : db_(std::move(db)) { migrate(); }

    int schema_version() const override { return version_; }

    std::int64_t record(const history_record& r) override {
        const history_run& m = r.meta;
        const std::string& src = m.source.empty() ? r.run.source : m.source;
        if (std::find(std::begin(history_kinds), std::end(history_kinds), m.kind) == std::end(history_kinds))
            throw error(errc::bad_input, src + ": unknown run kind '" + m.kind + "' (bench, icount, ab or prove)");
        std::int64_t id = 0;
        try {
            db_->begin_write();
            try {
                {
                    auto next = db_->query("SELECT COALESCE(MAX(id), 0) + 1 FROM runs");
                    next->next();
                    id = next->int64(0);
                }
                db_->query("INSERT INTO runs (id, recorded_at, run_date, commit_id, branch, dirty, cpu_model, num_cpus, "
                           "build_type, compiler, valgrind, cpu_path, kind, flags, dataset, source, cpu_id) "
                           "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
                           {id, utc_now(), m.run_date, m.commit, m.branch, std::int64_t{m.dirty ? 1 : 0},
                            m.machine.cpu_model, std::int64_t{m.machine.num_cpus}, m.machine.build_type,
                            m.machine.compiler, m.machine.valgrind, m.machine.cpu_path, m.kind, m.flags, m.dataset, src,
                            m.machine.cpu_id})
                    ->next();
                for (std::size_t b = 0; b < r.run.benchmarks.size(); ++b) {
                    const benchmark_samples& bs = r.run.benchmarks[b];
                    for (const auto& [metric, values] : bs.metrics)
                        for (std::size_t k = 0; k < values.size(); ++k)
                            db_->query("INSERT INTO samples (run_id, bench_index, benchmark, metric, repetition, value) "
                                       "VALUES ($1, $2, $3, $4, $5, $6)",
                                       {id, static_cast<std::int64_t>(b), bs.name, metric, static_cast<std::int64_t>(k),
                                        values[k]})
                                ->next();
                }
                for (const history_file& f : m.files)
                    db_->query("INSERT INTO run_files (run_id, name, sha256) VALUES ($1, $2, $3)", {id, f.name, f.sha256})
                        ->next();
                db_->commit();
            } catch (...) {
                db_->rollback();
                throw;
            }
        } catch (const error& e) {
            throw error(e.kind(), "the run from " + src + " was not recorded (nothing was written): " + e.what());
        }
        return id;
    }

    std::vector<history_run> list_runs() const override {
        std::vector<history_run> out;
        std::map<std::int64_t, std::size_t> at;
        auto q = db_->query("SELECT id, recorded_at, run_date, commit_id, branch, dirty, cpu_model, num_cpus, build_type, "
                            "compiler, valgrind, cpu_path, kind, flags, dataset, source, cpu_id FROM runs ORDER BY id");
        while (q->next()) {
            history_run r;
            r.id = q->int64(0);
            r.recorded_at = q->text(1);
            r.run_date = q->text(2);
            r.commit = q->text(3);
            r.branch = q->text(4);
            r.dirty = q->int64(5) != 0;
            r.machine.cpu_model = q->text(6);
            r.machine.num_cpus = q->int64(7);
            r.machine.build_type = q->text(8);
            r.machine.compiler = q->text(9);
            r.machine.valgrind = q->text(10);
            r.machine.cpu_path = q->text(11);
            r.kind = q->text(12);
            r.flags = q->text(13);
            r.dataset = q->text(14);
            r.source = q->text(15);
            r.machine.cpu_id = q->text(16);
            at[r.id] = out.size();
            out.push_back(std::move(r));
        }
        auto files = db_->query("SELECT run_id, name, sha256 FROM run_files ORDER BY run_id, name");
        while (files->next())
            if (auto it = at.find(files->int64(0)); it != at.end())
                out[it->second].files.push_back({files->text(1), files->text(2), {}});
        auto counts = db_->query("SELECT run_id, COUNT(DISTINCT benchmark) FROM samples GROUP BY run_id");
        while (counts->next())
            if (auto it = at.find(counts->int64(0)); it != at.end())
                out[it->second].benchmark_count = static_cast<std::size_t>(counts->int64(1));
        return out;
    }

    std::optional<std::int64_t> find_file(std::string_view sha256) const override {
        auto q = db_->query("SELECT run_id FROM run_files WHERE sha256 = $1", {std::string(sha256)});
        if (q->next()) return q->int64(0);
        return std::nullopt;
    }

    std::vector<std::string> benchmark_names() const override {
        std::vector<std::string> out;
        auto q = db_->query("SELECT DISTINCT benchmark FROM samples ORDER BY benchmark");
        while (q->next()) out.push_back(q->text(0));
        return out;
    }

    std::vector<series_point> series(std::string_view benchmark) const override {
        std::vector<series_point> out;
        auto q = db_->query("SELECT run_id, metric, value FROM samples WHERE benchmark = $1 "
                            "ORDER BY run_id, metric, repetition",
                            {std::string(benchmark)});
        while (q->next()) {
            const std::int64_t id = q->int64(0);
            if (out.empty() || out.back().run_id != id) out.push_back({id, {}});
            out.back().metrics[q->text(1)].push_back(q->real(2));
        }
        return out;
    }

    bench_run load_run(std::int64_t id) const override {
        bench_run run;
        run.source = db_->name() + " run " + std::to_string(id);
        {
            auto q = db_->query(
                "SELECT cpu_model, num_cpus, build_type, compiler, valgrind, cpu_id, cpu_path FROM runs WHERE id = $1", {id});
            if (!q->next()) throw error(errc::bad_input, db_->name() + ": no run " + std::to_string(id) + " in the history");
            run.machine = {q->text(0), q->int64(1), q->text(2), q->text(3), q->text(4), q->text(5), q->text(6)};
        }
        auto q = db_->query("SELECT bench_index, benchmark, metric, value FROM samples WHERE run_id = $1 "
                            "ORDER BY bench_index, metric, repetition",
                            {id});
        std::int64_t current = -1;
        while (q->next()) {
            if (q->int64(0) != current) {
                current = q->int64(0);
                run.benchmarks.push_back({q->text(1), 0, {}});
            }
            auto& values = run.benchmarks.back().metrics[q->text(2)];
            values.push_back(q->real(3));
            run.benchmarks.back().repetitions = std::max(run.benchmarks.back().repetitions, values.size());
        }
        return run;
    }

private:
    // 0 for a database without tables; bad_input for one with tables but no schema_version.
    int read_version() {
        if (!db_->has_table("schema_version")) {
            if (db_->has_any_table())
                throw error(errc::bad_input, db_->name() + ": not a c2lab history database (tables, but no schema_version)");
            return 0;
        }
        auto v = db_->query("SELECT MAX(version) FROM schema_version");
        v->next();
        return static_cast<int>(v->int64(0));
    }

    void refuse_newer(int v) const {
        if (v > history_schema_version)
            throw error(errc::bad_input, db_->name() + ": the history database has schema version " + std::to_string(v) +
                                             ", this c2lab knows up to " + std::to_string(history_schema_version) +
                                             " (a newer c2lab wrote it; use that one, or another --db)");
    }

    void migrate() {
        // Without the lock first (the common case: a database at the newest version). Another
        // process may be committing a migration between the two table checks of read_version,
        // which then sees tables but no schema_version: the answer under the lock decides.
        int v = -1;
        try {
            v = read_version();
        } catch (const error& e) {
            if (e.kind() != errc::bad_input) throw;
        }
        refuse_newer(v);
        if (v == history_schema_version) {
            version_ = v;
            return;
        }
        db_->begin_write();
        try {
            v = read_version();  // another process may have migrated it meanwhile
            refuse_newer(v);
            for (; v < history_schema_version; ++v) {
                db_->exec(migrations[v]);
                db_->query("UPDATE schema_version SET version = $1", {std::int64_t{v + 1}})->next();
            }
            db_->commit();
        } catch (...) {
            db_->rollback();
            throw;
        }
        version_ = v;
    }

    std::unique_ptr<sql_db> db_;
    int version_ = 0;
};

bool truthy(const std::string& s) { return s == "yes" || s == "true" || s == "1"; }

std::string context_value(const bench_run& r, const char* key) {
    auto it = r.context.find(key);
    return it == r.context.end() ? std::string() : it->second;
}

}  // namespace

std::unique_ptr<history_store> open_history(const std::string& db) {
    return std::make_unique<sql_history>(open_sql_db(db));
}

std::string default_history_path() {
    for (const char* var : {"C2LAB_DB", "C2LAB_HISTORY"}) {
        const char* env = std::getenv(var);
        if (env && *env) return env;
    }
    return "results/history.sqlite";
}

std::string sha256_hex(std::string_view bytes) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1)
        throw error(errc::internal, "SHA-256 failed (OpenSSL EVP_Digest)");
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 15];
    }
    return out;
}

bool is_prove_json(std::string_view text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    return j.is_object() && !j.contains("benchmarks") && j.contains("flags") &&
           (j.contains("stages") || j.contains("per_job"));
}

bench_run parse_prove_json(std::string_view text, const std::string& source) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw error(errc::bad_input, source + ": malformed JSON: " + e.what());
    }
    auto bad = [&](const std::string& what) { return error(errc::bad_input, source + ": " + what); };
    auto number = [&](const nlohmann::json& o, const char* key, const std::string& where) {
        if (!o.is_object() || !o.contains(key) || !o[key].is_number()) throw bad(where + ": no number \"" + key + "\"");
        return o[key].get<double>();
    };
    // The stages of one report as "<stage>_ms" counters (as bench_prove writes them).
    auto add_stages = [&](const nlohmann::json& report, benchmark_samples& b, const std::string& where) {
        if (!report.contains("stages") || !report["stages"].is_array()) throw bad(where + ": no \"stages\" array");
        for (const auto& st : report["stages"]) {
            if (!st.is_object() || !st.contains("name") || !st["name"].is_string()) throw bad(where + ": a stage without a name");
            b.metrics[st["name"].get<std::string>() + "_ms"].push_back(number(st, "ms", where));
        }
    };
    bench_run run;
    run.source = source;
    if (j.contains("context") && j["context"].is_object())
        for (const auto& [k, v] : j["context"].items()) run.context[k] = v.is_string() ? v.get<std::string>() : v.dump();
    if (j["flags"].is_object())
        for (const auto& [k, v] : j["flags"].items())
            if (v.is_string()) run.context["flag." + k] = v.get<std::string>();
    if (j.contains("cpu_path") && j["cpu_path"].is_string()) run.context["cpu_path"] = j["cpu_path"].get<std::string>();
    auto text_of = [&](const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string(); };
    std::string circuit = text_of("registered_proof");
    if (circuit.empty()) circuit = text_of("circuit") + (j.contains("steps") ? "/steps:" + j["steps"].dump() : "");
    if (circuit.empty()) throw bad("neither \"registered_proof\" nor \"circuit\"");
    if (j.contains("per_job")) {
        if (!j["per_job"].is_array() || j["per_job"].empty()) throw bad("\"per_job\" is not a non-empty array");
        const std::string name = "prove_batch/" + circuit + "/jobs:" + (j.contains("jobs_in_flight") ? j["jobs_in_flight"].dump() : "1");
        benchmark_samples per_job{name + "/job", 0, {}};
        for (std::size_t k = 0; k < j["per_job"].size(); ++k) {
            const auto& jr = j["per_job"][k];
            const std::string where = "per_job[" + std::to_string(k) + "]";
            per_job.metrics["real_time"].push_back((number(jr, "end_ms", where) - number(jr, "start_ms", where)) * 1e6);
            add_stages(jr, per_job, where);
            ++per_job.repetitions;
        }
        benchmark_samples batch{name, 1, {}};
        batch.metrics["real_time"].push_back(number(j, "wall_ms", "the batch") * 1e6);
        batch.metrics["proofs_per_minute"].push_back(number(j, "proofs_per_minute", "the batch"));
        run.benchmarks.push_back(std::move(batch));
        run.benchmarks.push_back(std::move(per_job));
    } else {
        benchmark_samples b{"prove/" + circuit, 1, {}};
        b.metrics["real_time"].push_back(number(j, "total_ms", "the proof") * 1e6);
        add_stages(j, b, "the proof");
        run.benchmarks.push_back(std::move(b));
    }
    const auto ctx = [&](const char* key) {
        auto it = run.context.find(key);
        return it == run.context.end() ? std::string() : it->second;
    };
    run.machine.cpu_model = ctx("cpu_model");
    run.machine.build_type = ctx("build_type");
    run.machine.compiler = ctx("compiler");
    run.machine.cpu_id = ctx("cpu_id");
    run.machine.cpu_path = ctx("cpu_path");
    const std::string cpus = ctx("num_cpus");
    if (!cpus.empty()) {
        std::size_t used = 0;
        try {
            run.machine.num_cpus = std::stoll(cpus, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != cpus.size()) throw bad("context.num_cpus is not an integer");
    }
    return run;
}

history_record read_history_record(const std::string& path, const std::string& kind, const std::string& branch) {
    std::error_code ec;
    std::vector<std::string> files;
    if (fs::is_directory(path, ec)) {
        for (const auto& entry : fs::directory_iterator(path, ec))
            if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path().string());
        if (ec) throw error(errc::io, path + ": cannot list the directory: " + ec.message());
        if (files.empty()) throw error(errc::bad_input, path + ": no *.json files in the directory");
        std::sort(files.begin(), files.end());
    } else {
        files.push_back(path);
    }

    // Everything is read and parsed before the caller writes anything.
    std::vector<std::pair<std::string, std::string>> texts;
    for (const std::string& f : files) {
        const std::vector<uint8_t> bytes = read_file(f);
        texts.emplace_back(f, std::string(bytes.begin(), bytes.end()));
    }
    return history_record_of_texts(texts, path, kind, branch);
}

history_record history_record_of_texts(const std::vector<std::pair<std::string, std::string>>& texts,
                                       const std::string& source, const std::string& kind, const std::string& branch) {
    if (texts.empty()) throw error(errc::bad_input, source + ": nothing to record");
    std::vector<std::string> files;
    for (const auto& t : texts) files.push_back(t.first);
    history_record rec;
    rec.run.source = source;
    rec.meta.source = source;
    std::map<std::string, std::string> origin;  // benchmark -> file
    bool any_prove = false;
    for (std::size_t k = 0; k < files.size(); ++k) {
        const std::string_view text = texts[k].second;
        const bool prove = is_prove_json(text);  // `c2lab prove --json` output
        any_prove = any_prove || prove;
        bench_run one = prove ? parse_prove_json(text, files[k]) : parse_bench_json(text, files[k]);
        history_file f{files[k], sha256_hex(text), {}};
        if (k == 0) {
            rec.run.machine = one.machine;
            rec.run.context = one.context;
        } else if (auto diff = fingerprint_differences(rec.run.machine, one.machine); !diff.empty()) {
            throw error(errc::bad_input, files[k] + ": machine fingerprint differs from " + files[0] + " (" + diff.front() + ")");
        }
        for (auto& b : one.benchmarks) {
            auto [it, fresh] = origin.emplace(b.name, files[k]);
            if (!fresh) throw error(errc::bad_input, files[k] + ": benchmark '" + b.name + "' also appears in " + it->second);
            f.benchmarks.push_back(b.name);
            rec.run.benchmarks.push_back(std::move(b));
        }
        rec.meta.files.push_back(std::move(f));
    }

    history_run& m = rec.meta;
    const bench_run& r = rec.run;
    m.machine = r.machine;
    m.run_date = context_value(r, "date");
    m.commit = context_value(r, "commit");
    m.branch = branch.empty() ? context_value(r, "branch") : branch;
    m.dirty = truthy(context_value(r, "dirty"));
    for (const char* key : {"cpu_path", "path", "ifma"}) {
        m.machine.cpu_path = context_value(r, key);
        if (!m.machine.cpu_path.empty()) break;
    }
    nlohmann::json flags = nlohmann::json::object();
    for (const auto& [key, value] : r.context)
        if (key.starts_with("flag.")) flags[key.substr(5)] = value;
    m.flags = flags.dump();
    m.dataset = context_value(r, "dataset");
    if (kind.empty()) {
        m.kind = any_prove ? "prove" : r.machine.counts_instructions() ? "icount" : "bench";
    } else {
        if (std::find(std::begin(history_kinds), std::end(history_kinds), kind) == std::end(history_kinds))
            throw error(errc::bad_input, "unknown run kind '" + kind + "' (bench, icount, ab or prove)");
        m.kind = kind;
    }
    return rec;
}

std::vector<std::pair<history_file, std::int64_t>> drop_recorded_files(history_record& r, const history_store& store) {
    std::vector<std::pair<history_file, std::int64_t>> dropped;
    std::vector<history_file> kept;
    for (history_file& f : r.meta.files) {
        if (auto id = store.find_file(f.sha256)) {
            std::erase_if(r.run.benchmarks, [&](const benchmark_samples& b) {
                return std::find(f.benchmarks.begin(), f.benchmarks.end(), b.name) != f.benchmarks.end();
            });
            dropped.emplace_back(std::move(f), *id);
        } else {
            kept.push_back(std::move(f));
        }
    }
    r.meta.files = std::move(kept);
    return dropped;
}

history_baseline baseline_from_history(const history_store& store, const bench_run& current, std::size_t last_n,
                                       const std::set<std::int64_t>& exclude,
                                       const std::function<bool(const std::string& commit)>& ancestor) {
    if (last_n == 0) throw error(errc::bad_input, "history:N needs N >= 1");
    history_baseline out;
    out.run.source = "history";
    out.run.machine = current.machine;
    std::map<std::int64_t, machine_fingerprint> matching;
    for (const history_run& r : store.list_runs()) {
        if (exclude.count(r.id)) {
            ++out.excluded_runs;
        } else if (!fingerprint_differences(r.machine, current.machine).empty()) {
            ++out.other_machine_runs;
        } else if (ancestor && !r.commit.empty() && !ancestor(r.commit)) {
            ++out.not_ancestor_runs;
        } else {
            matching.emplace(r.id, r.machine);
        }
    }
    std::set<std::int64_t> used;
    for (const benchmark_samples& b : current.benchmarks) {
        std::vector<series_point> points = store.series(b.name);
        std::erase_if(points, [&](const series_point& p) { return !matching.count(p.run_id); });
        if (points.empty()) continue;
        const std::size_t from = points.size() > last_n ? points.size() - last_n : 0;
        benchmark_samples pooled{b.name, 0, {}};
        for (std::size_t k = from; k < points.size(); ++k) {
            std::size_t reps = 0;
            for (const auto& [metric, values] : points[k].metrics) {
                auto& dst = pooled.metrics[metric];
                dst.insert(dst.end(), values.begin(), values.end());
                reps = std::max(reps, values.size());
            }
            pooled.repetitions += reps;
            used.insert(points[k].run_id);
            ++out.benchmarks_per_run[points[k].run_id];
        }
        out.run.benchmarks.push_back(std::move(pooled));
    }
    out.run_ids.assign(used.begin(), used.end());
    if (!used.empty()) out.run.machine = matching.at(*used.rbegin());
    return out;
}

std::vector<series_noise> noise_from_history(const history_store& store, const bench_run& current, const policy& pol,
                                             std::size_t last_n, const std::set<std::int64_t>& exclude,
                                             std::size_t min_changes) {
    std::set<std::int64_t> matching;
    for (const history_run& r : store.list_runs())
        if (!exclude.count(r.id) && fingerprint_differences(r.machine, current.machine).empty()) matching.insert(r.id);
    std::vector<series_noise> out;
    for (const benchmark_samples& b : current.benchmarks) {
        if (pol.ignored(b.name)) continue;
        const std::string metric = pol.rule_for(b.name).metric;
        std::vector<double> medians;
        for (const series_point& p : store.series(b.name)) {
            if (!matching.count(p.run_id)) continue;
            auto it = p.metrics.find(metric);
            if (it != p.metrics.end() && !it->second.empty()) medians.push_back(median(it->second));
        }
        if (medians.size() > last_n + 1) medians.erase(medians.begin(), medians.end() - std::ptrdiff_t(last_n + 1));
        std::vector<double> changes;
        for (std::size_t i = 1; i < medians.size(); ++i)
            if (medians[i - 1] != 0) changes.push_back(std::abs(medians[i] / medians[i - 1] - 1));
        if (changes.size() < min_changes) continue;
        const double q1 = quantile(changes, 0.25), q3 = quantile(changes, 0.75);
        out.push_back({b.name, metric, changes.size(), q3 + 3 * (q3 - q1)});
    }
    return out;
}

policy with_noise_margins(policy pol, const std::vector<series_noise>& noise, double too_noisy,
                          std::vector<series_noise>* widened, std::vector<series_noise>* too_noisy_out) {
    for (const series_noise& n : noise) {
        const metric_rule rule = pol.rule_for(n.benchmark);
        if (!(n.threshold > rule.margin)) continue;
        const name_regex exact = name_regex::exactly(n.benchmark);
        if (n.threshold >= too_noisy) {
            pol.ignore.push_back(exact);
            if (too_noisy_out) too_noisy_out->push_back(n);
            continue;
        }
        rule_override o;
        o.re = exact;
        o.has_margin = true;
        o.margin = n.threshold;
        pol.overrides.push_back(std::move(o));
        if (widened) widened->push_back(n);
    }
    return pol;
}

}  // namespace c2lab::regressions

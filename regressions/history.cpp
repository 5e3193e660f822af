#include "regressions/history.hpp"

#include <sqlite3.h>

#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/file.hpp"

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
};
static_assert(std::size(migrations) == history_schema_version);

// RAII over one prepared statement; every failure is c2lab::error naming the database.
class statement {
public:
    statement(sqlite3* db, const std::string& db_path, const char* sql) : db_(db), path_(db_path) {
        if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("cannot prepare a statement");
    }
    ~statement() { sqlite3_finalize(stmt_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;

    statement& bind(int i, std::string_view text) {
        check(sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
        return *this;
    }
    statement& bind(int i, std::int64_t v) {
        check(sqlite3_bind_int64(stmt_, i, v));
        return *this;
    }
    statement& bind(int i, double v) {
        check(sqlite3_bind_double(stmt_, i, v));
        return *this;
    }
    // true while there is a row.
    bool step() {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail("statement failed");
    }
    void run_once() {
        step();
        sqlite3_reset(stmt_);
        sqlite3_clear_bindings(stmt_);
    }
    std::string text(int col) const {
        const auto* p = sqlite3_column_text(stmt_, col);
        return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
                 : std::string();
    }
    std::int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
    double real(int col) const { return sqlite3_column_double(stmt_, col); }

private:
    void check(int rc) {
        if (rc != SQLITE_OK) fail("cannot bind a value");
    }
    [[noreturn]] void fail(const char* what) const {
        const int code = sqlite3_errcode(db_);
        const errc kind = (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) ? errc::bad_input : errc::io;
        throw error(kind, path_ + ": " + what + ": " + sqlite3_errmsg(db_));
    }
    sqlite3* db_;
    std::string path_;
    sqlite3_stmt* stmt_ = nullptr;
};

std::string utc_now() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return b;
}

class sqlite_history final : public history_store {
public:
    explicit sqlite_history(const std::string& path) : path_(path) {
        std::error_code ec;
        const fs::path parent = fs::path(path).parent_path();
        if (!parent.empty() && !fs::exists(parent, ec)) {
            fs::create_directories(parent, ec);
            if (ec) throw error(errc::io, parent.string() + ": cannot create the directory: " + ec.message());
        }
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
            const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw error(errc::io, path + ": cannot open the history database: " + why);
        }
        try {
            sqlite3_busy_timeout(db_, 10000);  // scripts/bench.sh and a user may record at once
            exec("PRAGMA foreign_keys = ON");
            migrate();
        } catch (...) {
            sqlite3_close(db_);
            throw;
        }
    }
    ~sqlite_history() override { sqlite3_close(db_); }

    int schema_version() const override { return version_; }

    std::int64_t record(const history_record& r) override {
        const history_run& m = r.meta;
        const std::string& src = m.source.empty() ? r.run.source : m.source;
        if (std::find(std::begin(history_kinds), std::end(history_kinds), m.kind) == std::end(history_kinds))
            throw error(errc::bad_input, src + ": unknown run kind '" + m.kind + "' (bench, icount, ab or prove)");
        std::int64_t id = 0;
        try {
            exec("BEGIN IMMEDIATE");
            try {
                statement next(db_, path_, "SELECT COALESCE(MAX(id), 0) + 1 FROM runs");
                next.step();
                id = next.int64(0);
                statement run(db_, path_,
                              "INSERT INTO runs (id, recorded_at, run_date, commit_id, branch, dirty, cpu_model, num_cpus, "
                              "build_type, compiler, valgrind, cpu_path, kind, flags, dataset, source) "
                              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)");
                run.bind(1, id).bind(2, utc_now()).bind(3, m.run_date).bind(4, m.commit).bind(5, m.branch);
                run.bind(6, std::int64_t{m.dirty ? 1 : 0}).bind(7, m.machine.cpu_model).bind(8, std::int64_t{m.machine.num_cpus});
                run.bind(9, m.machine.build_type).bind(10, m.machine.compiler).bind(11, m.machine.valgrind);
                run.bind(12, m.cpu_path).bind(13, m.kind).bind(14, m.flags).bind(15, m.dataset).bind(16, src);
                run.run_once();
                statement sample(db_, path_,
                                 "INSERT INTO samples (run_id, bench_index, benchmark, metric, repetition, value) "
                                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
                for (std::size_t b = 0; b < r.run.benchmarks.size(); ++b) {
                    const benchmark_samples& bs = r.run.benchmarks[b];
                    for (const auto& [metric, values] : bs.metrics)
                        for (std::size_t k = 0; k < values.size(); ++k) {
                            sample.bind(1, id).bind(2, static_cast<std::int64_t>(b)).bind(3, bs.name).bind(4, metric);
                            sample.bind(5, static_cast<std::int64_t>(k)).bind(6, values[k]);
                            sample.run_once();
                        }
                }
                statement file(db_, path_, "INSERT INTO run_files (run_id, name, sha256) VALUES (?1, ?2, ?3)");
                for (const history_file& f : m.files) {
                    file.bind(1, id).bind(2, f.name).bind(3, f.sha256);
                    file.run_once();
                }
                exec("COMMIT");
            } catch (...) {
                sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
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
        statement q(db_, path_,
                    "SELECT id, recorded_at, run_date, commit_id, branch, dirty, cpu_model, num_cpus, build_type, compiler, "
                    "valgrind, cpu_path, kind, flags, dataset, source FROM runs ORDER BY id");
        while (q.step()) {
            history_run r;
            r.id = q.int64(0);
            r.recorded_at = q.text(1);
            r.run_date = q.text(2);
            r.commit = q.text(3);
            r.branch = q.text(4);
            r.dirty = q.int64(5) != 0;
            r.machine.cpu_model = q.text(6);
            r.machine.num_cpus = q.int64(7);
            r.machine.build_type = q.text(8);
            r.machine.compiler = q.text(9);
            r.machine.valgrind = q.text(10);
            r.cpu_path = q.text(11);
            r.kind = q.text(12);
            r.flags = q.text(13);
            r.dataset = q.text(14);
            r.source = q.text(15);
            at[r.id] = out.size();
            out.push_back(std::move(r));
        }
        statement files(db_, path_, "SELECT run_id, name, sha256 FROM run_files ORDER BY run_id, name");
        while (files.step())
            if (auto it = at.find(files.int64(0)); it != at.end())
                out[it->second].files.push_back({files.text(1), files.text(2), {}});
        statement counts(db_, path_, "SELECT run_id, COUNT(DISTINCT benchmark) FROM samples GROUP BY run_id");
        while (counts.step())
            if (auto it = at.find(counts.int64(0)); it != at.end())
                out[it->second].benchmark_count = static_cast<std::size_t>(counts.int64(1));
        return out;
    }

    std::optional<std::int64_t> find_file(std::string_view sha256) const override {
        statement q(db_, path_, "SELECT run_id FROM run_files WHERE sha256 = ?1");
        q.bind(1, sha256);
        if (q.step()) return q.int64(0);
        return std::nullopt;
    }

    std::vector<std::string> benchmark_names() const override {
        std::vector<std::string> out;
        statement q(db_, path_, "SELECT DISTINCT benchmark FROM samples ORDER BY benchmark");
        while (q.step()) out.push_back(q.text(0));
        return out;
    }

    std::vector<series_point> series(std::string_view benchmark) const override {
        std::vector<series_point> out;
        statement q(db_, path_,
                    "SELECT run_id, metric, value FROM samples WHERE benchmark = ?1 ORDER BY run_id, metric, repetition");
        q.bind(1, benchmark);
        while (q.step()) {
            const std::int64_t id = q.int64(0);
            if (out.empty() || out.back().run_id != id) out.push_back({id, {}});
            out.back().metrics[q.text(1)].push_back(q.real(2));
        }
        return out;
    }

    bench_run load_run(std::int64_t id) const override {
        bench_run run;
        run.source = path_ + " run " + std::to_string(id);
        {
            statement q(db_, path_, "SELECT cpu_model, num_cpus, build_type, compiler, valgrind FROM runs WHERE id = ?1");
            q.bind(1, id);
            if (!q.step()) throw error(errc::bad_input, path_ + ": no run " + std::to_string(id) + " in the history");
            run.machine = {q.text(0), q.int64(1), q.text(2), q.text(3), q.text(4)};
        }
        statement q(db_, path_,
                    "SELECT bench_index, benchmark, metric, value FROM samples WHERE run_id = ?1 "
                    "ORDER BY bench_index, metric, repetition");
        q.bind(1, id);
        std::int64_t current = -1;
        while (q.step()) {
            if (q.int64(0) != current) {
                current = q.int64(0);
                run.benchmarks.push_back({q.text(1), 0, {}});
            }
            auto& values = run.benchmarks.back().metrics[q.text(2)];
            values.push_back(q.real(3));
            run.benchmarks.back().repetitions = std::max(run.benchmarks.back().repetitions, values.size());
        }
        return run;
    }

private:
    void exec(const char* sql) {
        char* msg = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
            const std::string why = msg ? msg : sqlite3_errmsg(db_);
            sqlite3_free(msg);
            const int code = sqlite3_errcode(db_);
            throw error(code == SQLITE_NOTADB || code == SQLITE_CORRUPT ? errc::bad_input : errc::io, path_ + ": " + why);
        }
    }

    // -1: no schema_version table (0 when the database is empty otherwise).
    int read_version() {
        statement t(db_, path_, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
        t.step();
        if (t.int64(0) == 0) {
            statement any(db_, path_, "SELECT COUNT(*) FROM sqlite_master");
            any.step();
            if (any.int64(0) != 0)
                throw error(errc::bad_input, path_ + ": not a c2lab history database (an SQLite database without a schema_version table)");
            return 0;
        }
        statement v(db_, path_, "SELECT MAX(version) FROM schema_version");
        v.step();
        return static_cast<int>(v.int64(0));
    }

    void refuse_newer(int v) const {
        if (v > history_schema_version)
            throw error(errc::bad_input, path_ + ": the history database has schema version " + std::to_string(v) +
                                             ", this c2lab knows up to " + std::to_string(history_schema_version) +
                                             " (a newer c2lab wrote it; use that one, or another --db)");
    }

    void migrate() {
        int v = read_version();
        refuse_newer(v);
        if (v == history_schema_version) {
            version_ = v;
            return;
        }
        exec("BEGIN IMMEDIATE");
        try {
            v = read_version();  // another process may have migrated it meanwhile
            refuse_newer(v);
            for (; v < history_schema_version; ++v) {
                exec(migrations[v]);
                statement set(db_, path_, "UPDATE schema_version SET version = ?1");
                set.bind(1, std::int64_t{v + 1});
                set.run_once();
            }
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
        version_ = v;
    }

    std::string path_;
    sqlite3* db_ = nullptr;
    int version_ = 0;
};

bool truthy(const std::string& s) { return s == "yes" || s == "true" || s == "1"; }

std::string context_value(const bench_run& r, const char* key) {
    auto it = r.context.find(key);
    return it == r.context.end() ? std::string() : it->second;
}

}  // namespace

std::unique_ptr<history_store> open_sqlite_history(const std::string& path) {
    return std::make_unique<sqlite_history>(path);
}

std::string default_history_path() {
    const char* env = std::getenv("C2LAB_HISTORY");
    if (env && *env) return env;
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
    history_record rec;
    rec.run.source = path;
    rec.meta.source = path;
    std::map<std::string, std::string> origin;  // benchmark -> file
    for (std::size_t k = 0; k < files.size(); ++k) {
        const std::vector<uint8_t> bytes = read_file(files[k]);
        const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        bench_run one = parse_bench_json(text, files[k]);
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
        m.cpu_path = context_value(r, key);
        if (!m.cpu_path.empty()) break;
    }
    nlohmann::json flags = nlohmann::json::object();
    for (const auto& [key, value] : r.context)
        if (key.starts_with("flag.")) flags[key.substr(5)] = value;
    m.flags = flags.dump();
    m.dataset = context_value(r, "dataset");
    if (kind.empty()) {
        m.kind = r.machine.counts_instructions() ? "icount" : "bench";
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
                                       const std::set<std::int64_t>& exclude) {
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

}  // namespace c2lab::regressions

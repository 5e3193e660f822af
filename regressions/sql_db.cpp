#include "regressions/sql_db.hpp"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/error.hpp"

namespace c2lab::regressions {

namespace fs = std::filesystem;

bool is_postgres_url(std::string_view db) noexcept {
    return db.starts_with("postgresql://") || db.starts_with("postgres://");
}

std::unique_ptr<sql_db> open_sql_db(const std::string& db) {
    return is_postgres_url(db) ? open_postgres_db(db) : open_sqlite_db(db);
}

namespace {

// ---------------------------------------------------------------------------------------------
// SQLite

[[noreturn]] void sqlite_fail(sqlite3* db, const std::string& name, const std::string& what) {
    const int code = sqlite3_errcode(db);
    const errc kind = (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) ? errc::bad_input : errc::io;
    throw error(kind, name + ": " + what + ": " + sqlite3_errmsg(db));
}

class sqlite_rows final : public sql_rows {
public:
    sqlite_rows(sqlite3* db, const std::string& name, sqlite3_stmt* stmt) : db_(db), name_(name), stmt_(stmt) {}
    ~sqlite_rows() override {
        sqlite3_reset(stmt_);
        sqlite3_clear_bindings(stmt_);
    }
    bool next() override {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        sqlite_fail(db_, name_, "statement failed");
    }
    std::string text(int col) const override {
        const auto* p = sqlite3_column_text(stmt_, col);
        return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
                 : std::string();
    }
    std::int64_t int64(int col) const override { return sqlite3_column_int64(stmt_, col); }
    double real(int col) const override { return sqlite3_column_double(stmt_, col); }

private:
    sqlite3* db_;
    const std::string& name_;
    sqlite3_stmt* stmt_;
};

class sqlite_db final : public sql_db {
public:
    explicit sqlite_db(const std::string& path) : name_(path) {
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
        sqlite3_busy_timeout(db_, 10000);  // scripts/bench.sh and a user may record at once
        try {
            exec("PRAGMA foreign_keys = ON");
        } catch (...) {
            sqlite3_close(db_);
            throw;
        }
    }
    ~sqlite_db() override {
        for (auto& [sql, stmt] : prepared_) sqlite3_finalize(stmt);
        sqlite3_close(db_);
    }
    const std::string& name() const noexcept override { return name_; }
    std::string_view driver() const noexcept override { return "sqlite"; }

    void exec(const std::string& sql) override {
        char* msg = nullptr;
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
            const std::string why = msg ? msg : sqlite3_errmsg(db_);
            sqlite3_free(msg);
            const int code = sqlite3_errcode(db_);
            throw error(code == SQLITE_NOTADB || code == SQLITE_CORRUPT ? errc::bad_input : errc::io, name_ + ": " + why);
        }
    }

    // Statements are prepared once and kept (a run's samples reuse one INSERT).
    std::unique_ptr<sql_rows> query(const std::string& sql, const std::vector<sql_value>& params) override {
        sqlite3_stmt*& stmt = prepared_[sql];
        if (!stmt && sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
            sqlite_fail(db_, name_, "cannot prepare a statement");
        for (std::size_t i = 0; i < params.size(); ++i) {
            const int k = static_cast<int>(i + 1);
            int rc = SQLITE_OK;
            if (const auto* s = std::get_if<std::string>(&params[i]))
                rc = sqlite3_bind_text(stmt, k, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
            else if (const auto* n = std::get_if<std::int64_t>(&params[i]))
                rc = sqlite3_bind_int64(stmt, k, *n);
            else
                rc = sqlite3_bind_double(stmt, k, std::get<double>(params[i]));
            if (rc != SQLITE_OK) {
                sqlite3_clear_bindings(stmt);
                sqlite_fail(db_, name_, "cannot bind a value");
            }
        }
        return std::make_unique<sqlite_rows>(db_, name_, stmt);
    }

    void begin_write() override { exec("BEGIN IMMEDIATE"); }
    void commit() override { exec("COMMIT"); }
    void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

    bool has_table(std::string_view table) override {
        auto q = query("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = $1", {std::string(table)});
        q->next();
        return q->int64(0) != 0;
    }
    bool has_any_table() override {
        auto q = query("SELECT COUNT(*) FROM sqlite_master", {});
        q->next();
        return q->int64(0) != 0;
    }

private:
    std::string name_;
    sqlite3* db_ = nullptr;
    std::map<std::string, sqlite3_stmt*> prepared_;
};

// ---------------------------------------------------------------------------------------------
// PostgreSQL (libpq): parameters and results in text form.

// The advisory lock key of c2lab's history writers (any constant: "c2la" in ASCII).
constexpr long long history_lock_key = 0x6332'6c61;

class pg_rows final : public sql_rows {
public:
    pg_rows(PGresult* res, const std::string& name) : res_(res), name_(name), rows_(PQntuples(res)) {}
    ~pg_rows() override { PQclear(res_); }
    bool next() override { return ++row_ < rows_; }
    std::string text(int col) const override {
        return std::string(PQgetvalue(res_, row_, col), static_cast<std::size_t>(PQgetlength(res_, row_, col)));
    }
    std::int64_t int64(int col) const override {
        const std::string t = text(col);
        std::int64_t v = 0;
        const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (ec != std::errc{} || p != t.data() + t.size())
            throw error(errc::bad_input, name_ + ": expected an integer in column " + std::to_string(col) + ", got '" + t + "'");
        return v;
    }
    double real(int col) const override {
        const std::string t = text(col);
        double v = 0;
        const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (ec != std::errc{} || p != t.data() + t.size())
            throw error(errc::bad_input, name_ + ": expected a number in column " + std::to_string(col) + ", got '" + t + "'");
        return v;
    }

private:
    PGresult* res_;
    const std::string& name_;
    int rows_;
    int row_ = -1;
};

class pg_db final : public sql_db {
public:
    explicit pg_db(const std::string& url) {
        conn_ = PQconnectdb(url.c_str());
        // The name: host:port/dbname as libpq resolved them (the URL may hold a password).
        if (conn_ && PQstatus(conn_) == CONNECTION_OK) {
            const char* host = PQhost(conn_);
            name_ = std::string("postgresql://") + (host ? host : "") + ":" + (PQport(conn_) ? PQport(conn_) : "") + "/" +
                    (PQdb(conn_) ? PQdb(conn_) : "");
        } else {
            const std::string why = conn_ ? PQerrorMessage(conn_) : "out of memory";
            PQfinish(conn_);
            throw error(errc::io, "cannot connect to the history database " + redacted(url) + ": " + trim(why));
        }
        exec("SET client_min_messages = warning");  // no NOTICE lines on stderr
        exec("SET extra_float_digits = 3");         // doubles round-trip exactly in text (PostgreSQL < 12)
    }
    ~pg_db() override { PQfinish(conn_); }
    const std::string& name() const noexcept override { return name_; }
    std::string_view driver() const noexcept override { return "postgresql"; }

    void exec(const std::string& sql) override {
        PGresult* res = PQexec(conn_, sql.c_str());
        const auto st = PQresultStatus(res);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(res);
        PQclear(res);
    }

    std::unique_ptr<sql_rows> query(const std::string& sql, const std::vector<sql_value>& params) override {
        std::vector<std::string> text(params.size());
        std::vector<const char*> values(params.size());
        for (std::size_t i = 0; i < params.size(); ++i) {
            if (const auto* s = std::get_if<std::string>(&params[i])) {
                text[i] = *s;
            } else {
                char b[64];
                const auto r = std::holds_alternative<std::int64_t>(params[i])
                                   ? std::to_chars(b, b + sizeof b, std::get<std::int64_t>(params[i]))
                                   : std::to_chars(b, b + sizeof b, std::get<double>(params[i]));  // shortest exact
                text[i].assign(b, r.ptr);
            }
            values[i] = text[i].c_str();
        }
        PGresult* res = PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr, values.data(), nullptr,
                                     nullptr, 0);
        const auto st = PQresultStatus(res);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(res);
        return std::make_unique<pg_rows>(res, name_);
    }

    void begin_write() override {
        exec("BEGIN");
        try {
            exec("SELECT pg_advisory_xact_lock(" + std::to_string(history_lock_key) + ")");
        } catch (...) {
            rollback();
            throw;
        }
    }
    void commit() override { exec("COMMIT"); }
    void rollback() noexcept override { PQclear(PQexec(conn_, "ROLLBACK")); }

    bool has_table(std::string_view table) override {
        auto q = query("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() "
                       "AND table_name = $1",
                       {std::string(table)});
        q->next();
        return q->int64(0) != 0;
    }
    bool has_any_table() override {
        auto q = query("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()", {});
        q->next();
        return q->int64(0) != 0;
    }

private:
    static std::string trim(std::string s) {
        while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
        return s;
    }
    // The URL without a password ("postgresql://user:secret@host" -> "postgresql://user:***@host").
    static std::string redacted(const std::string& url) {
        const auto scheme = url.find("://");
        const auto at = url.find('@', scheme == std::string::npos ? 0 : scheme + 3);
        if (scheme == std::string::npos || at == std::string::npos) return url;
        const auto colon = url.find(':', scheme + 3);
        if (colon == std::string::npos || colon > at) return url;
        return url.substr(0, colon + 1) + "***" + url.substr(at);
    }
    [[noreturn]] void fail(PGresult* res) {
        const std::string why = trim(PQresultErrorMessage(res));
        PQclear(res);
        const bool gone = PQstatus(conn_) != CONNECTION_OK;
        throw error(errc::io, name_ + ": " + (gone ? "connection lost: " : "") + why);
    }

    PGconn* conn_ = nullptr;
    std::string name_;
};

}  // namespace

std::unique_ptr<sql_db> open_sqlite_db(const std::string& path) { return std::make_unique<sqlite_db>(path); }
std::unique_ptr<sql_db> open_postgres_db(const std::string& url) { return std::make_unique<pg_db>(url); }

}  // namespace c2lab::regressions

// The small SQL interface the results history is written against, with two drivers: SQLite
// (Debian's libsqlite3; a file, the default) and PostgreSQL (Debian's libpq; a server shared
// by many machines). The history's statements are the same text for both: parameters are
// written $1, $2, ... in order of first use (SQLite numbers "$1" parameters by appearance,
// PostgreSQL by their number), types are TEXT, INTEGER, BIGINT and DOUBLE PRECISION.
//
// Every failure is a c2lab::error naming the database (an SQLite path, or PostgreSQL's
// host:port/dbname, never a password): io for a database that cannot be reached, opened or
// written, bad_input for a file that is not an SQLite database.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace c2lab::regressions {

using sql_value = std::variant<std::string, std::int64_t, double>;

// The rows of one query, read forward.
class sql_rows {
public:
    virtual ~sql_rows() = default;
    virtual bool next() = 0;  // true while there is a row
    virtual std::string text(int col) const = 0;
    virtual std::int64_t int64(int col) const = 0;
    virtual double real(int col) const = 0;
};

class sql_db {
public:
    virtual ~sql_db() = default;
    virtual const std::string& name() const noexcept = 0;  // for messages
    virtual std::string_view driver() const noexcept = 0;  // "sqlite" or "postgresql"
    // Statements without parameters, possibly several separated by ';'.
    virtual void exec(const std::string& sql) = 0;
    // One statement with parameters $1..$n; its rows (none for INSERT / UPDATE).
    virtual std::unique_ptr<sql_rows> query(const std::string& sql, const std::vector<sql_value>& params = {}) = 0;
    // A transaction that excludes every other writer of the database until commit or
    // rollback (SQLite: BEGIN IMMEDIATE; PostgreSQL: BEGIN and a transaction-scoped
    // advisory lock), so that ids taken as MAX(id) + 1 cannot collide.
    virtual void begin_write() = 0;
    virtual void commit() = 0;
    virtual void rollback() noexcept = 0;
    // Whether a table of this name exists (in the current schema), and whether any does.
    virtual bool has_table(std::string_view table) = 0;
    virtual bool has_any_table() = 0;
};

// "postgresql://..." or "postgres://..." (libpq's URI form): a PostgreSQL server; anything
// else is an SQLite file path (created with its directory when missing).
bool is_postgres_url(std::string_view db) noexcept;
std::unique_ptr<sql_db> open_sql_db(const std::string& db);
std::unique_ptr<sql_db> open_sqlite_db(const std::string& path);
std::unique_ptr<sql_db> open_postgres_db(const std::string& url);

}  // namespace c2lab::regressions

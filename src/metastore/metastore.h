// Metastore: the driver-agnostic SQL store under the catalog. One interface, two backends:
// SQLite (a file path; the embedded default) and PostgreSQL (a `postgresql://` URI, libpq).
//
// SQL is written once in a portable subset: `?` placeholders (rewritten to `$n` for PostgreSQL),
// RETURNING, INSERT ... ON CONFLICT, BIGINT/TEXT/BLOB values, timestamps as int64 microseconds.
// Every statement runs inside RunInTransaction, which retries serialization failures and
// lock timeouts invisibly and rolls back when the callback returns an error.
// No driver header is visible here: sqlite3.h and libpq-fe.h stay in the backends' .cc files.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tarn/status.h"

namespace tarn {

enum class SqlType : unsigned char { kNull, kInt64, kDouble, kText, kBlob };

// One SQL value: a bound parameter or a column of a result row.
class SqlValue {
 public:
  SqlValue() = default;                                         // NULL
  SqlValue(std::nullptr_t) {}                                   // NOLINT: implicit by design
  SqlValue(bool v) : type_(SqlType::kInt64), v_(int64_t{v}) {}  // NOLINT
  SqlValue(int v) : type_(SqlType::kInt64), v_(int64_t{v}) {}   // NOLINT
  SqlValue(int64_t v) : type_(SqlType::kInt64), v_(v) {}        // NOLINT
  SqlValue(double v) : type_(SqlType::kDouble), v_(v) {}        // NOLINT
  SqlValue(std::string v) : type_(SqlType::kText), v_(std::move(v)) {}         // NOLINT
  SqlValue(std::string_view v) : type_(SqlType::kText), v_(std::string(v)) {}  // NOLINT
  SqlValue(const char* v) : type_(SqlType::kText), v_(std::string(v)) {}       // NOLINT

  static SqlValue Null() { return {}; }
  static SqlValue Blob(std::string_view bytes);
  // NULL when `v` is empty.
  static SqlValue OptionalInt64(std::optional<int64_t> v);
  static SqlValue OptionalText(std::optional<std::string_view> v);

  SqlType type() const { return type_; }
  bool is_null() const { return type_ == SqlType::kNull; }
  // Typed access; a NULL or a value of another type is kInternal (the SQL and the code disagree).
  // AsDouble also accepts an int64; AsText and AsBlob accept either text or blob bytes.
  Result<int64_t> AsInt64() const;
  Result<double> AsDouble() const;
  Result<std::string_view> AsText() const;
  Result<std::string_view> AsBlob() const;
  // For tests and error messages: 42, 1.5, 'text', x'00ff', NULL.
  std::string DebugString() const;

  bool operator==(const SqlValue& other) const = default;

 private:
  SqlType type_ = SqlType::kNull;
  std::variant<std::monostate, int64_t, double, std::string> v_;
};

using SqlParams = std::vector<SqlValue>;

// One result row. Column access is bound-checked: an index past the end is kInternal.
class Row {
 public:
  Row() = default;
  explicit Row(std::vector<SqlValue> values) : values_(std::move(values)) {}

  size_t size() const { return values_.size(); }
  const std::vector<SqlValue>& values() const { return values_; }
  // True for NULL and for an index past the end.
  bool IsNull(size_t col) const;
  Result<const SqlValue*> Get(size_t col) const;
  Result<int64_t> Int64(size_t col) const;
  Result<double> Double(size_t col) const;
  Result<std::string_view> Text(size_t col) const;
  Result<std::string_view> Blob(size_t col) const;
  // NULL reads as std::nullopt; another type is still an error.
  Result<std::optional<int64_t>> OptionalInt64(size_t col) const;
  Result<std::optional<std::string_view>> OptionalText(size_t col) const;

 private:
  std::vector<SqlValue> values_;
};

enum class MetastoreBackend : unsigned char { kSqlite, kPostgres };

namespace metastore_internal {
class Connection;
}
class MetastoreFaults;  // metastore/fault/fault_metastore.h

// The statements of one database transaction. Only valid inside the RunInTransaction callback
// that received it; not thread-safe. Do not run a statement from inside a QueryEach callback
// (the connection is busy streaming); collect with Query first.
//
// The first statement that fails aborts the transaction on both backends (as PostgreSQL does):
// later statements fail, and the transaction rolls back with that error even if the callback
// ignores it and returns OK. Use INSERT ... ON CONFLICT rather than catching kAlreadyExists.
//
// Errors: unique violation -> kAlreadyExists; foreign key -> kFailedPrecondition; NOT NULL or
// CHECK -> kInvalidArgument; serialization failure, deadlock or lock timeout -> kUnavailable
// (and the whole transaction is retried by RunInTransaction, whatever the callback returns);
// connection lost -> kUnavailable; SQL the database rejects -> kInternal.
class Transaction {
 public:
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  MetastoreBackend backend() const { return backend_; }
  // Runs a statement and returns the number of rows it changed (rows of a RETURNING clause are
  // read and dropped).
  Result<int64_t> Execute(std::string_view sql, const SqlParams& params = {});
  // Queues a statement whose row count and rows are not needed. PostgreSQL sends it together
  // with the next statement or with COMMIT (one round trip for all); its error then surfaces
  // from that call or from the commit (RunInTransaction's result). SQLite runs it at once.
  Status ExecuteDeferred(std::string_view sql, const SqlParams& params = {});
  // Runs a query and returns all its rows.
  Result<std::vector<Row>> Query(std::string_view sql, const SqlParams& params = {});
  // Runs a query and returns its only row, or nullopt when it returns none; more than one row
  // is kInternal.
  Result<std::optional<Row>> QueryOne(std::string_view sql, const SqlParams& params = {});
  // Streams the rows of a query to `fn` one at a time (memory stays bounded); an error from
  // `fn` stops the query and is returned.
  Status QueryEach(std::string_view sql, const SqlParams& params,
                   const std::function<Status(const Row&)>& fn);
  // Runs `fn`'s statements inside a savepoint: when `fn` fails (its error, or a statement's
  // that does not doom the whole transaction), they are rolled back, the transaction goes on
  // as if `fn` had not run, and the error is returned. A serialization failure, deadlock or
  // lost connection still aborts the whole transaction (RunInTransaction retries or fails it).
  // Not nested.
  Status Savepoint(const std::function<Status()>& fn);

 private:
  friend class Metastore;
  Transaction(metastore_internal::Connection* conn, MetastoreBackend backend)
      : conn_(conn), backend_(backend) {}
  // Records the first database error: it aborts the transaction (later statements fail with
  // it, and RunInTransaction returns it even if the callback returns OK); a retryable one
  // makes RunInTransaction run the callback again.
  Status Note(Status st);
  Status Aborted() const;
  // The fault rules' verdict on the next statement (Note()d when it is an error).
  Status Injected();

  metastore_internal::Connection* conn_;
  MetastoreBackend backend_;
  MetastoreFaults* faults_ = nullptr;
  bool must_retry_ = false;
  Status failed_;
};

// One schema migration: applied once, in version order, at Open.
//
// `sql` may hold several statements separated by `;` and these portable macros:
//   ${ID}    an auto-assigned 64-bit integer primary key column type
//            (SQLite `INTEGER PRIMARY KEY`; PostgreSQL `BIGINT GENERATED BY DEFAULT AS IDENTITY
//            PRIMARY KEY`)
//   ${BLOB}  a byte string column type (SQLite `BLOB`; PostgreSQL `BYTEA`)
// `sqlite_sql`, when not empty, is what SQLite runs instead of `sql`, for the rare step the two
// cannot say alike (SQLite drops a constraint by rebuilding the table).
struct Migration {
  int64_t version;
  std::string name;
  std::string sql;
  std::string sqlite_sql = {};
};

struct MetastoreOptions {
  // Migrations applied at Open, in ascending version order; versions must be unique and > 0.
  // Defaults to the steps the linked modules contributed (SchemaMigrations()).
  std::optional<std::vector<Migration>> migrations;
  // How often a transaction that lost a serialization race or a lock is attempted in all.
  int max_attempts = 64;
  // Backoff between attempts: full jitter, doubling from base up to max.
  int retry_base_delay_ms = 1;
  int retry_max_delay_ms = 100;
  // SQLite: how long one statement waits for another connection's lock before SQLITE_BUSY.
  int sqlite_busy_timeout_ms = 5000;
  // SQLite: queue this process's writers on one mutex per database file before BEGIN IMMEDIATE
  // (SQLite's busy handler polls and is unfair). Correctness never depends on it.
  bool sqlite_serialize_local_writers = true;
  // PostgreSQL: seconds to wait for a connection.
  int pg_connect_timeout_s = 10;
  // Connections this handle opens at most (kept open for reuse once opened); a transaction that
  // finds them all busy waits for one, up to pool_wait_s (then kUnavailable). Opening a
  // PostgreSQL connection costs a backend fork, so a pool that closed connections under load
  // spent its time forking: 32 x 3 servers stays under PostgreSQL's default 100.
  int max_connections = 32;
  int pool_wait_s = 30;
};

enum class TxMode : unsigned char {
  // Reads and writes, serializable: SQLite BEGIN IMMEDIATE (one writer at a time);
  // PostgreSQL ISOLATION LEVEL SERIALIZABLE (retried on SQLSTATE 40001/40P01).
  kReadWrite,
  // Reads and writes where the caller serializes through row locks: PostgreSQL READ COMMITTED,
  // each statement seeing the latest committed rows, so a transaction that starts by locking
  // its hot row (`UPDATE datasets SET ... WHERE id = ? RETURNING ...`) waits for the holder and
  // then proceeds instead of failing and retrying as SERIALIZABLE would. The caller must lock
  // every row whose read decides a write. SQLite: the same as kReadWrite.
  kLockingWrite,
  // A consistent snapshot, no writes: SQLite BEGIN DEFERRED (never blocks the writer in WAL);
  // PostgreSQL REPEATABLE READ READ ONLY.
  kReadOnly,
};

// A handle on one catalog database. Thread-safe: each RunInTransaction takes a connection of
// its own from an internal pool of at most options.max_connections (no transaction may open a
// nested one: with every connection held that would wait for the pool's timeout).
class Metastore {
 public:
  // Opens `uri` (`postgresql://...` or `postgres://...` for PostgreSQL; anything else is a
  // SQLite file path, created when missing) and applies pending migrations under a
  // cross-process lock. A database whose schema is newer than `options.migrations` is
  // kFailedPrecondition; an unreachable server is kUnavailable; a bad path is kIOError.
  static Result<std::unique_ptr<Metastore>> Open(std::string_view uri,
                                                 MetastoreOptions options = {});
  ~Metastore();

  MetastoreBackend backend() const { return backend_; }
  // What it was opened with (a SQLite path or a postgresql:// URI, password included).
  const std::string& uri() const { return uri_; }

  // Runs `fn` in one database transaction and commits when it returns OK; when it returns an
  // error, rolls back and returns that error. A serialization failure, deadlock or lock timeout
  // (in a statement or at COMMIT) rolls back and calls `fn` again after a backoff, so `fn` must
  // have no effects outside the transaction; after options.max_attempts attempts the result is
  // kUnavailable. A connection lost mid-transaction is kUnavailable and not retried (a lost
  // COMMIT may have committed). Never call RunInTransaction from inside `fn`: that would be a
  // second, independent transaction (and on SQLite it deadlocks on the writer lock).
  Status RunInTransaction(const std::function<Status(Transaction&)>& fn,
                          TxMode mode = TxMode::kReadWrite);

  // One trivial read-only transaction: OK when the database answers (health checks), else the
  // error RunInTransaction gives (kUnavailable for a server that is down).
  Status Ping();

  // The versions recorded in schema_migrations, ascending.
  Result<std::vector<int64_t>> AppliedMigrations();

  // Tests: every transaction started from now on runs its statements and COMMIT through
  // `faults` (nullptr removes it). See metastore/fault/fault_metastore.h.
  void SetFaults(std::shared_ptr<MetastoreFaults> faults);

 private:
  Metastore(std::string uri, MetastoreBackend backend, MetastoreOptions options);
  Result<std::unique_ptr<metastore_internal::Connection>> Connect();
  Result<std::unique_ptr<metastore_internal::Connection>> Acquire();
  void Release(std::unique_ptr<metastore_internal::Connection> conn);
  Status Migrate();
  std::shared_ptr<MetastoreFaults> Faults();

  std::string uri_;
  MetastoreBackend backend_;
  MetastoreOptions options_;
  std::shared_ptr<std::mutex> local_writer_mutex_;  // SQLite only, shared per file
  std::mutex pool_mu_;
  std::condition_variable pool_cv_;
  int open_ = 0;  // connections handed out or idle
  std::vector<std::unique_ptr<metastore_internal::Connection>> idle_;
  std::shared_ptr<MetastoreFaults> faults_;  // guarded by pool_mu_
};

// The schema is one ordered list of migrations, but each module that owns tables defines its
// own steps, with their global version numbers, beside the statements on those tables (catalog:
// src/catalog/store.cc, access_store.cc; upload: src/upload/store.cc). A module contributes its
// steps from a static initializer in that file, which every use of its store links in:
//
//   [[maybe_unused]] const bool kTables = ContributeMigrations({{4, "uploads", kUploads}});
//
// Returns true. Duplicate versions across modules make Metastore::Open fail (kInvalidArgument).
bool ContributeMigrations(std::vector<Migration> steps);
// Every contributed step, by version: the default of MetastoreOptions::migrations.
std::vector<Migration> SchemaMigrations();

// Rewrites `?` placeholders to `$1`, `$2`, ... outside string literals, quoted identifiers and
// comments; returns the number of placeholders in `*count`.
std::string RewritePlaceholders(std::string_view sql, int* count);
// Expands ${ID} and ${BLOB} in migration SQL for `backend`.
std::string ExpandMigrationSql(std::string_view sql, MetastoreBackend backend);

}  // namespace tarn

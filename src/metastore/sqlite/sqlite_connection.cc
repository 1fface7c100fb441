// The SQLite backend: WAL journal, synchronous=FULL (an acknowledged commit survives power
// loss, not only a process crash), foreign keys on, a busy timeout, and a per-connection cache of
// prepared statements.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <unordered_map>

#include "metastore/connection_internal.h"

namespace tarn::metastore_internal {
namespace {

// Prepared statements kept per connection; past this the cache starts over.
constexpr size_t kMaxCachedStatements = 512;

// Maps a SQLite result code (extended) to a Status.
Status SqliteError(sqlite3* db, int rc, std::string_view what) {
  std::string msg =
      "sqlite: " + std::string(what) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
      return Status::AlreadyExists(std::move(msg));
    case SQLITE_CONSTRAINT_FOREIGNKEY:
      return Status::FailedPrecondition(std::move(msg));
    case SQLITE_CONSTRAINT_NOTNULL:
    case SQLITE_CONSTRAINT_CHECK:
      return Status::InvalidArgument(std::move(msg));
    default:
      break;
  }
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return MarkRetryable(Status::Unavailable(std::move(msg)));
    case SQLITE_CONSTRAINT:
      return Status::FailedPrecondition(std::move(msg));
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return Status::IOError(std::move(msg));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(std::move(msg));
    default:
      return Status::Internal(std::move(msg));
  }
}

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  ~SqliteConnection() override {
    for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }

  Status Begin(BeginMode mode) override {
    if (mode == BeginMode::kReadOnly) {
      // query_only makes a write in a read-only transaction fail, as it does on PostgreSQL.
      TARN_RETURN_NOT_OK(Exec("PRAGMA query_only=1"));
      query_only_ = true;
      Status st = Exec("BEGIN DEFERRED");
      if (!st.ok()) EndQueryOnly();
      return st;
    }
    return Exec("BEGIN IMMEDIATE");
  }

  Status Commit() override {
    // A COMMIT that fails with BUSY leaves the transaction open; the caller rolls back.
    Status st = Exec("COMMIT");
    if (st.ok()) EndQueryOnly();
    return st;
  }

  void Rollback() override {
    if (!sqlite3_get_autocommit(db_) &&
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr) != SQLITE_OK &&
        !sqlite3_get_autocommit(db_)) {
      broken_ = true;
    }
    EndQueryOnly();
  }

  Result<int64_t> Execute(std::string_view sql, const SqlParams& params) override {
    TARN_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql, params));
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    }
    if (rc != SQLITE_DONE) return Finish(stmt, rc, sql);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return static_cast<int64_t>(sqlite3_changes64(db_));
  }

  Status Query(std::string_view sql, const SqlParams& params,
               const std::function<Status(const Row&)>& fn) override {
    TARN_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql, params));
    int rc;
    std::vector<SqlValue> values;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      int n = sqlite3_column_count(stmt);
      values.clear();
      values.reserve(n);
      for (int i = 0; i < n; ++i) values.push_back(Column(stmt, i));
      Row row(std::move(values));
      Status st = fn(row);
      if (!st.ok()) {
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
        return st;
      }
      values = std::vector<SqlValue>();
    }
    if (rc != SQLITE_DONE) return Finish(stmt, rc, sql);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return Status::OK();
  }

  Status ExecScript(std::string_view sql) override { return Exec(std::string(sql)); }

  bool broken() const override { return broken_; }

  Status Configure(const MetastoreOptions& options) {
    sqlite3_busy_timeout(db_, std::max(0, options.sqlite_busy_timeout_ms));
    sqlite3_extended_result_codes(db_, 1);
    // journal_mode=WAL needs a moment of exclusive access when the file is new; another process
    // opening at the same time makes it BUSY despite the timeout, so try a few times.
    Status st;
    for (int i = 0; i < 50; ++i) {
      st = Exec("PRAGMA journal_mode=WAL");
      if (st.ok() || !IsTxRetryable(st)) break;
      sqlite3_sleep(20);
    }
    TARN_RETURN_NOT_OK(st);
    TARN_RETURN_NOT_OK(Exec("PRAGMA synchronous=FULL"));
    TARN_RETURN_NOT_OK(Exec("PRAGMA foreign_keys=ON"));
    return Status::OK();
  }

 private:
  void EndQueryOnly() {
    if (query_only_ &&
        sqlite3_exec(db_, "PRAGMA query_only=0", nullptr, nullptr, nullptr) != SQLITE_OK) {
      broken_ = true;
    }
    query_only_ = false;
  }

  Status Error(int rc, std::string_view what) {
    if (query_only_ && (rc & 0xff) == SQLITE_READONLY) {
      return Status::Internal("sqlite: write in a read-only transaction: " +
                              std::string(sqlite3_errmsg(db_)));
    }
    return SqliteError(db_, rc, what);
  }

  Status Exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    if (err) sqlite3_free(err);
    if (rc != SQLITE_OK) return Error(sqlite3_extended_errcode(db_), "exec");
    return Status::OK();
  }

  Status Finish(sqlite3_stmt* stmt, int rc, std::string_view sql) {
    Status st = Error(sqlite3_extended_errcode(db_), "statement");
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    (void)rc;
    (void)sql;
    return st;
  }

  Result<sqlite3_stmt*> Prepare(std::string_view sql, const SqlParams& params) {
    auto it = cache_.find(std::string(sql));
    sqlite3_stmt* stmt = nullptr;
    if (it != cache_.end()) {
      stmt = it->second;
    } else {
      if (cache_.size() >= kMaxCachedStatements) {
        for (auto c = cache_.begin(); c != cache_.end();) {
          if (sqlite3_stmt_busy(c->second)) {
            ++c;  // being stepped by a caller up the stack
          } else {
            sqlite3_finalize(c->second);
            c = cache_.erase(c);
          }
        }
      }
      if (sql.size() > static_cast<size_t>(INT32_MAX)) {
        return Status::InvalidArgument("sqlite: statement too long");
      }
      const char* tail = nullptr;
      int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                  SQLITE_PREPARE_PERSISTENT, &stmt, &tail);
      if (rc != SQLITE_OK) return SqliteError(db_, rc, "prepare");
      if (stmt == nullptr) return Status::Internal("sqlite: empty statement");
      for (const char* p = tail; p && p < sql.data() + sql.size(); ++p) {
        if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r' && *p != ';') {
          sqlite3_finalize(stmt);
          return Status::Internal("sqlite: one statement at a time (ExecScript runs scripts)");
        }
      }
      cache_.emplace(std::string(sql), stmt);
    }
    int expected = sqlite3_bind_parameter_count(stmt);
    if (expected != static_cast<int>(params.size())) {
      return Status::Internal("sqlite: statement has " + std::to_string(expected) +
                              " placeholders, got " + std::to_string(params.size()) +
                              " parameters");
    }
    for (int i = 0; i < expected; ++i) {
      const SqlValue& v = params[i];
      int rc = SQLITE_OK;
      switch (v.type()) {
        case SqlType::kNull:
          rc = sqlite3_bind_null(stmt, i + 1);
          break;
        case SqlType::kInt64:
          rc = sqlite3_bind_int64(stmt, i + 1, *v.AsInt64());
          break;
        case SqlType::kDouble:
          rc = sqlite3_bind_double(stmt, i + 1, *v.AsDouble());
          break;
        case SqlType::kText: {
          std::string_view s = *v.AsText();
          rc = sqlite3_bind_text64(stmt, i + 1, s.data(), s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
          break;
        }
        case SqlType::kBlob: {
          std::string_view s = *v.AsBlob();
          rc = sqlite3_bind_blob64(stmt, i + 1, s.data(), s.size(), SQLITE_TRANSIENT);
          break;
        }
      }
      if (rc != SQLITE_OK) {
        sqlite3_clear_bindings(stmt);
        return SqliteError(db_, rc, "bind");
      }
    }
    return stmt;
  }

  static SqlValue Column(sqlite3_stmt* stmt, int i) {
    switch (sqlite3_column_type(stmt, i)) {
      case SQLITE_INTEGER:
        return SqlValue(static_cast<int64_t>(sqlite3_column_int64(stmt, i)));
      case SQLITE_FLOAT:
        return SqlValue(sqlite3_column_double(stmt, i));
      case SQLITE_TEXT: {
        const char* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
        int n = sqlite3_column_bytes(stmt, i);
        return SqlValue(std::string_view(p ? p : "", p ? n : 0));
      }
      case SQLITE_BLOB: {
        const char* p = static_cast<const char*>(sqlite3_column_blob(stmt, i));
        int n = sqlite3_column_bytes(stmt, i);
        return SqlValue::Blob(std::string_view(p ? p : "", p ? n : 0));
      }
      default:
        return SqlValue();
    }
  }

  sqlite3* db_;
  bool broken_ = false;
  bool query_only_ = false;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

}  // namespace

namespace {

// The database holds the token signing keys and every dataset's metadata, so it is the owner's
// only. SQLite creates a new database 0644 less the umask, and its -wal, -shm and -journal
// with the database's mode (unix VFS robustFchmod), so the database is created 0600 here
// before SQLite opens it. A database that exists already with group or other bits (made by
// an older tarn, or by hand) is tightened to 0600, with its side files; a file of another
// user, or a path that is not a regular file, is left to SQLite.
void MakeDatabaseOwnerOnly(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.starts_with("file:")) return;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::fchmod(fd, 0600);  // an empty file is an empty database to SQLite
    ::close(fd);
    return;
  }
  if (errno != EEXIST) return;  // SQLite reports what is wrong with the path
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::string p = path + suffix;
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    if ((st.st_mode & 077) != 0) ::chmod(p.c_str(), st.st_mode & 0700);
  }
}

}  // namespace

Result<std::unique_ptr<Connection>> OpenSqlite(const std::string& path,
                                               const MetastoreOptions& options) {
  MakeDatabaseOwnerOnly(path);
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Status st = Status::IOError("sqlite: cannot open " + path + ": " +
                                (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
    sqlite3_close_v2(db);
    return st;
  }
  auto conn = std::make_unique<SqliteConnection>(db);
  Status st = conn->Configure(options);
  if (!st.ok()) return st.WithContext("opening " + path);
  return std::unique_ptr<Connection>(std::move(conn));
}

}  // namespace tarn::metastore_internal

#include "metastore/metastore.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "common/clock.h"
#include "common/hex.h"
#include "metastore/connection_internal.h"
#include "metastore/error_codes.h"
#include "metastore/fault/fault_metastore.h"

namespace tarn {

using metastore_internal::BeginMode;
using metastore_internal::Connection;
using metastore_internal::IsTxRetryable;

// ---- SqlValue and Row ----

SqlValue SqlValue::Blob(std::string_view bytes) {
  SqlValue v(bytes);
  v.type_ = SqlType::kBlob;
  return v;
}

SqlValue SqlValue::OptionalInt64(std::optional<int64_t> v) { return v ? SqlValue(*v) : SqlValue(); }

SqlValue SqlValue::OptionalText(std::optional<std::string_view> v) {
  return v ? SqlValue(*v) : SqlValue();
}

namespace {

const char* TypeName(SqlType t) {
  switch (t) {
    case SqlType::kNull:
      return "NULL";
    case SqlType::kInt64:
      return "int64";
    case SqlType::kDouble:
      return "double";
    case SqlType::kText:
      return "text";
    case SqlType::kBlob:
      return "blob";
  }
  return "?";
}

Status TypeMismatch(SqlType have, const char* want) {
  return Status::Internal(std::string("metastore: value is ") + TypeName(have) + ", not " + want);
}

}  // namespace

Result<int64_t> SqlValue::AsInt64() const {
  if (type_ != SqlType::kInt64) return TypeMismatch(type_, "int64");
  return std::get<int64_t>(v_);
}

Result<double> SqlValue::AsDouble() const {
  if (type_ == SqlType::kDouble) return std::get<double>(v_);
  if (type_ == SqlType::kInt64) return static_cast<double>(std::get<int64_t>(v_));
  return TypeMismatch(type_, "double");
}

Result<std::string_view> SqlValue::AsText() const {
  if (type_ != SqlType::kText && type_ != SqlType::kBlob) return TypeMismatch(type_, "text");
  return std::string_view(std::get<std::string>(v_));
}

Result<std::string_view> SqlValue::AsBlob() const {
  if (type_ != SqlType::kText && type_ != SqlType::kBlob) return TypeMismatch(type_, "blob");
  return std::string_view(std::get<std::string>(v_));
}

std::string SqlValue::DebugString() const {
  switch (type_) {
    case SqlType::kNull:
      return "NULL";
    case SqlType::kInt64:
      return std::to_string(std::get<int64_t>(v_));
    case SqlType::kDouble: {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.17g", std::get<double>(v_));
      return buf;
    }
    case SqlType::kText:
      return "'" + std::get<std::string>(v_) + "'";
    case SqlType::kBlob: {
      return "x'" + HexEncode(std::get<std::string>(v_)) + "'";
    }
  }
  return "?";
}

bool Row::IsNull(size_t col) const { return col >= values_.size() || values_[col].is_null(); }

Result<const SqlValue*> Row::Get(size_t col) const {
  if (col >= values_.size()) {
    return Status::Internal("metastore: column " + std::to_string(col) + " of a row of " +
                            std::to_string(values_.size()));
  }
  return &values_[col];
}

Result<int64_t> Row::Int64(size_t col) const {
  TARN_ASSIGN_OR_RETURN(const SqlValue* v, Get(col));
  return v->AsInt64();
}
Result<double> Row::Double(size_t col) const {
  TARN_ASSIGN_OR_RETURN(const SqlValue* v, Get(col));
  return v->AsDouble();
}
Result<std::string_view> Row::Text(size_t col) const {
  TARN_ASSIGN_OR_RETURN(const SqlValue* v, Get(col));
  return v->AsText();
}
Result<std::string_view> Row::Blob(size_t col) const {
  TARN_ASSIGN_OR_RETURN(const SqlValue* v, Get(col));
  return v->AsBlob();
}
Result<std::optional<int64_t>> Row::OptionalInt64(size_t col) const {
  TARN_ASSIGN_OR_RETURN(const SqlValue* v, Get(col));
  if (v->is_null()) return std::optional<int64_t>();
  TARN_ASSIGN_OR_RETURN(int64_t x, v->AsInt64());
  return std::optional<int64_t>(x);
}
Result<std::optional<std::string_view>> Row::OptionalText(size_t col) const {
  TARN_ASSIGN_OR_RETURN(const SqlValue* v, Get(col));
  if (v->is_null()) return std::optional<std::string_view>();
  TARN_ASSIGN_OR_RETURN(std::string_view x, v->AsText());
  return std::optional<std::string_view>(x);
}

// ---- SQL text helpers ----

std::string RewritePlaceholders(std::string_view sql, int* count) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  size_t i = 0;
  while (i < sql.size()) {
    char c = sql[i];
    if (c == '\'' || c == '"') {  // literal or quoted identifier; a doubled quote stays inside
      size_t j = i + 1;
      while (j < sql.size()) {
        if (sql[j] == c) {
          if (j + 1 < sql.size() && sql[j + 1] == c) {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      size_t end = std::min(j + 1, sql.size());
      out.append(sql.substr(i, end - i));
      i = end;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      size_t j = sql.find('\n', i);
      size_t end = j == std::string_view::npos ? sql.size() : j;
      out.append(sql.substr(i, end - i));
      i = end;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      size_t j = sql.find("*/", i + 2);
      size_t end = j == std::string_view::npos ? sql.size() : j + 2;
      out.append(sql.substr(i, end - i));
      i = end;
    } else if (c == '?') {
      out += '$';
      out += std::to_string(++n);
      ++i;
    } else {
      out += c;
      ++i;
    }
  }
  if (count) *count = n;
  return out;
}

std::string ExpandMigrationSql(std::string_view sql, MetastoreBackend backend) {
  const bool pg = backend == MetastoreBackend::kPostgres;
  const std::pair<std::string_view, std::string_view> macros[] = {
      {"${ID}", pg ? "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" : "INTEGER PRIMARY KEY"},
      {"${BLOB}", pg ? "BYTEA" : "BLOB"},
  };
  std::string out;
  out.reserve(sql.size() + 64);
  size_t i = 0;
  while (i < sql.size()) {
    bool replaced = false;
    if (sql[i] == '$') {
      for (const auto& [name, value] : macros) {
        if (sql.substr(i, name.size()) == name) {
          out.append(value);
          i += name.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += sql[i++];
  }
  return out;
}

// ---- Transaction ----

Status Transaction::Note(Status st) {
  if (st.ok() || !failed_.ok()) return st;
  failed_ = st;
  if (IsTxRetryable(st)) must_retry_ = true;
  return st;
}

Status Transaction::Aborted() const {
  Status st(failed_.kind(),
            "metastore: transaction aborted by an earlier error: " + failed_.message());
  return must_retry_ ? metastore_internal::MarkRetryable(std::move(st)) : st;
}

Status Transaction::Injected() {
  if (!faults_) return Status::OK();
  return Note(faults_->OnStatement());
}

Status Transaction::Savepoint(const std::function<Status()>& fn) {
  TARN_RETURN_NOT_OK(Execute("SAVEPOINT tarn_savepoint").status());
  Status st = fn();
  // Kept, not released: COMMIT releases it, and a round trip is saved (a later savepoint of
  // the same name hides it).
  if (st.ok() && failed_.ok()) return st;
  if (st.ok()) st = failed_;
  if (must_retry_) return st;
  failed_ = Status::OK();
  TARN_RETURN_NOT_OK(Execute("ROLLBACK TO SAVEPOINT tarn_savepoint").status());
  return st;
}

Result<int64_t> Transaction::Execute(std::string_view sql, const SqlParams& params) {
  if (!failed_.ok()) return Aborted();
  TARN_RETURN_NOT_OK(Injected());
  auto r = conn_->Execute(sql, params);
  if (!r.ok()) return Note(std::move(r).status());
  return r;
}

Status Transaction::ExecuteDeferred(std::string_view sql, const SqlParams& params) {
  if (!failed_.ok()) return Aborted();
  TARN_RETURN_NOT_OK(Injected());
  Status st = conn_->ExecuteDeferred(sql, params);
  if (!st.ok()) return Note(std::move(st));
  return st;
}

Status Transaction::QueryEach(std::string_view sql, const SqlParams& params,
                              const std::function<Status(const Row&)>& fn) {
  if (!failed_.ok()) return Aborted();
  TARN_RETURN_NOT_OK(Injected());
  // An error from `fn` is the caller's, not the database's: it does not abort the transaction.
  Status from_fn;
  Status st = conn_->Query(sql, params, [&](const Row& row) {
    from_fn = fn(row);
    return from_fn;
  });
  if (!st.ok() && !from_fn.ok()) return st;
  return Note(std::move(st));
}

Result<std::vector<Row>> Transaction::Query(std::string_view sql, const SqlParams& params) {
  std::vector<Row> rows;
  TARN_RETURN_NOT_OK(QueryEach(sql, params, [&](const Row& row) {
    rows.push_back(row);
    return Status::OK();
  }));
  return rows;
}

Result<std::optional<Row>> Transaction::QueryOne(std::string_view sql, const SqlParams& params) {
  std::optional<Row> one;
  bool many = false;
  TARN_RETURN_NOT_OK(QueryEach(sql, params, [&](const Row& row) {
    if (one) {
      many = true;
      return Status::Internal("metastore: QueryOne got more than one row");
    }
    one = row;
    return Status::OK();
  }));
  if (many) return Status::Internal("metastore: QueryOne got more than one row");
  return one;
}

// ---- Metastore ----

namespace {

bool IsPostgresUri(std::string_view uri) {
  return uri.starts_with("postgresql://") || uri.starts_with("postgres://");
}

// One writer mutex per SQLite file per process (see sqlite_serialize_local_writers).
std::shared_ptr<std::mutex> LocalWriterMutex(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<std::mutex>>* table =
      new std::map<std::string, std::weak_ptr<std::mutex>>();
  std::error_code ec;
  std::string key = std::filesystem::weakly_canonical(path, ec).string();
  if (ec) key = path;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*table)[key];
  auto m = slot.lock();
  if (!m) {
    m = std::make_shared<std::mutex>();
    slot = m;
  }
  return m;
}

}  // namespace

Metastore::Metastore(std::string uri, MetastoreBackend backend, MetastoreOptions options)
    : uri_(std::move(uri)), backend_(backend), options_(std::move(options)) {}

Metastore::~Metastore() = default;

Result<std::unique_ptr<Metastore>> Metastore::Open(std::string_view uri, MetastoreOptions options) {
  if (uri.empty()) return Status::InvalidArgument("metastore: empty database URI");
  if (options.max_attempts < 1) options.max_attempts = 1;
  if (!options.migrations) options.migrations = SchemaMigrations();
  auto& migrations = *options.migrations;
  std::sort(migrations.begin(), migrations.end(),
            [](const Migration& a, const Migration& b) { return a.version < b.version; });
  for (size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version <= 0 ||
        (i > 0 && migrations[i].version == migrations[i - 1].version)) {
      return Status::InvalidArgument("metastore: migration versions must be unique and > 0");
    }
  }
  MetastoreBackend backend =
      IsPostgresUri(uri) ? MetastoreBackend::kPostgres : MetastoreBackend::kSqlite;
  std::unique_ptr<Metastore> ms(new Metastore(std::string(uri), backend, std::move(options)));
  if (backend == MetastoreBackend::kSqlite && ms->options_.sqlite_serialize_local_writers) {
    ms->local_writer_mutex_ = LocalWriterMutex(ms->uri_);
  }
  TARN_ASSIGN_OR_RETURN(auto conn, ms->Acquire());
  ms->Release(std::move(conn));
  TARN_RETURN_NOT_OK(ms->Migrate());
  return ms;
}

Result<std::unique_ptr<Connection>> Metastore::Connect() {
  if (backend_ == MetastoreBackend::kPostgres) {
    return metastore_internal::OpenPostgres(uri_, options_);
  }
  return metastore_internal::OpenSqlite(uri_, options_);
}

Result<std::unique_ptr<Connection>> Metastore::Acquire() {
  {
    std::unique_lock<std::mutex> lock(pool_mu_);
    const int max = std::max(1, options_.max_connections);
    bool ready = pool_cv_.wait_for(lock, std::chrono::seconds(options_.pool_wait_s),
                                   [&] { return !idle_.empty() || open_ < max; });
    if (!ready) {
      return Status::Of(codes::kMetastorePoolExhausted,
                        "all " + std::to_string(max) + " metastore connections stayed busy for " +
                            std::to_string(options_.pool_wait_s) + " s");
    }
    if (!idle_.empty()) {
      auto conn = std::move(idle_.back());
      idle_.pop_back();
      return conn;
    }
    ++open_;
  }
  auto conn = Connect();
  if (!conn.ok()) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    --open_;
    pool_cv_.notify_one();
  }
  return conn;
}

void Metastore::Release(std::unique_ptr<Connection> conn) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (!conn || conn->broken()) {
    --open_;
  } else {
    idle_.push_back(std::move(conn));
  }
  pool_cv_.notify_one();
}

namespace {

void Backoff(int attempt, const MetastoreOptions& o) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  int64_t cap = o.retry_base_delay_ms;
  for (int i = 1; i < attempt && cap < o.retry_max_delay_ms; ++i) cap *= 2;
  cap = std::clamp<int64_t>(cap, 1, std::max(1, o.retry_max_delay_ms));
  std::uniform_int_distribution<int64_t> dist(0, cap * 1000);
  std::this_thread::sleep_for(std::chrono::microseconds(dist(rng)));
}

}  // namespace

Status Metastore::RunInTransaction(const std::function<Status(Transaction&)>& fn, TxMode mode) {
  Status last;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    if (attempt > 1) Backoff(attempt - 1, options_);
    TARN_ASSIGN_OR_RETURN(auto conn, Acquire());
    std::unique_lock<std::mutex> writer_lock;
    if (local_writer_mutex_ && mode != TxMode::kReadOnly) {
      writer_lock = std::unique_lock<std::mutex>(*local_writer_mutex_);
    }
    Status st = conn->Begin(mode == TxMode::kReadOnly       ? BeginMode::kReadOnly
                            : mode == TxMode::kLockingWrite ? BeginMode::kLockingWrite
                                                            : BeginMode::kReadWrite);
    if (!st.ok()) {
      // Nothing ran yet: a lock timeout, or a pooled connection that died while idle, is safe
      // to retry (the broken connection is dropped by Release).
      bool retry = IsTxRetryable(st) || conn->broken();
      if (!conn->broken()) conn->Rollback();
      Release(std::move(conn));
      if (retry) {
        last = std::move(st);
        continue;
      }
      return st;
    }
    std::shared_ptr<MetastoreFaults> faults = Faults();
    Transaction tx(conn.get(), backend_);
    tx.faults_ = faults.get();
    st = fn(tx);
    if (tx.must_retry_) {
      conn->Rollback();
      Release(std::move(conn));
      last = tx.failed_;
      continue;
    }
    if (st.ok() && !tx.failed_.ok()) st = tx.failed_;  // a statement failed, the callback went on
    if (!st.ok()) {
      conn->Rollback();
      Release(std::move(conn));
      return st;
    }
    bool commit_first = false;  // an injected lost reply: commit, then report the error
    Status injected = faults ? faults->OnCommit(&commit_first) : Status::OK();
    if (!injected.ok() && !commit_first) {
      conn->Rollback();
      Release(std::move(conn));
      if (IsTxRetryable(injected)) {
        last = std::move(injected);
        continue;
      }
      return injected;
    }
    st = conn->Commit();
    if (!st.ok()) {
      if (!conn->broken()) conn->Rollback();
      Release(std::move(conn));
      if (IsTxRetryable(st)) {
        last = std::move(st);
        continue;
      }
      return st;
    }
    Release(std::move(conn));
    return injected;
  }
  return Status::Unavailable("metastore: transaction gave up after " +
                             std::to_string(options_.max_attempts) +
                             " attempts; last: " + last.message());
}

Status Metastore::Migrate() {
  const auto& migrations = *options_.migrations;
  TARN_ASSIGN_OR_RETURN(auto conn, Acquire());
  Status last;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    if (attempt > 1) Backoff(attempt - 1, options_);
    std::unique_lock<std::mutex> writer_lock;
    if (local_writer_mutex_) writer_lock = std::unique_lock<std::mutex>(*local_writer_mutex_);
    Status st = conn->Begin(BeginMode::kMigration);
    auto body = [&]() -> Status {
      TARN_RETURN_NOT_OK(conn->ExecScript(
          "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, "
          "name TEXT NOT NULL, applied_at BIGINT NOT NULL)"));
      // Every missing version is applied, not only those above the newest: a binary that
      // links fewer of the modules owning tables (a test) leaves their steps out, and a later
      // binary then fills them in.
      int64_t current = 0;
      std::set<int64_t> applied;
      TARN_RETURN_NOT_OK(
          conn->Query("SELECT version FROM schema_migrations", {}, [&](const Row& row) -> Status {
            TARN_ASSIGN_OR_RETURN(int64_t v, row.Int64(0));
            applied.insert(v);
            current = std::max(current, v);
            return Status::OK();
          }));
      int64_t known = migrations.empty() ? 0 : migrations.back().version;
      if (current > known) {
        return Status::FailedPrecondition(
            "metastore: the database schema is at version " + std::to_string(current) +
            ", newer than this tarn knows (" + std::to_string(known) + "); upgrade tarn");
      }
      for (const Migration& m : migrations) {
        if (applied.count(m.version)) continue;
        const std::string& sql =
            backend_ == MetastoreBackend::kSqlite && !m.sqlite_sql.empty() ? m.sqlite_sql : m.sql;
        Status ms = conn->ExecScript(ExpandMigrationSql(sql, backend_));
        if (!ms.ok()) {
          return ms.WithContext("migration " + std::to_string(m.version) + " (" + m.name + ")");
        }
        int64_t now = Clock::Real()->NowMicros();
        TARN_RETURN_NOT_OK(
            conn->Execute("INSERT INTO schema_migrations (version, name, applied_at) "
                          "VALUES (?, ?, ?)",
                          {m.version, m.name, now})
                .status());
      }
      return Status::OK();
    };
    if (st.ok()) st = body();
    if (st.ok()) st = conn->Commit();
    if (st.ok()) {
      Release(std::move(conn));
      return Status::OK();
    }
    if (!conn->broken()) conn->Rollback();
    if (!IsTxRetryable(st)) {
      Release(std::move(conn));
      return st.WithContext("metastore: applying migrations");
    }
    last = std::move(st);
    if (conn->broken()) {
      Release(std::move(conn));  // frees its slot in the pool
      TARN_ASSIGN_OR_RETURN(conn, Acquire());
    }
  }
  Release(std::move(conn));
  return Status::Unavailable("metastore: applying migrations gave up after " +
                             std::to_string(options_.max_attempts) +
                             " attempts; last: " + last.message());
}

void Metastore::SetFaults(std::shared_ptr<MetastoreFaults> faults) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  faults_ = std::move(faults);
}

std::shared_ptr<MetastoreFaults> Metastore::Faults() {
  std::lock_guard<std::mutex> lock(pool_mu_);
  return faults_;
}

Status Metastore::Ping() {
  return RunInTransaction([](Transaction& tx) { return tx.Query("SELECT 1").status(); },
                          TxMode::kReadOnly);
}

Result<std::vector<int64_t>> Metastore::AppliedMigrations() {
  std::vector<int64_t> out;
  TARN_RETURN_NOT_OK(RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.clear();
        return tx.QueryEach("SELECT version FROM schema_migrations ORDER BY version", {},
                            [&](const Row& row) -> Status {
                              TARN_ASSIGN_OR_RETURN(int64_t v, row.Int64(0));
                              out.push_back(v);
                              return Status::OK();
                            });
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace tarn

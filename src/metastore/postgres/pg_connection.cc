// The PostgreSQL backend (libpq): statements prepared once per connection (named s1, s2, ...),
// parameters sent as text (blobs in binary), rows streamed in single-row mode.
//
// Round trips are what a commit pays for beyond its flush, so transactions pipeline (libpq
// pipeline mode): BEGIN is sent with the first statement, and deferred statements
// (ExecuteDeferred) go with the next statement or with COMMIT. The COMMIT of a read-only
// transaction is sent without waiting for its reply, which the connection's next use reads
// first: the transaction's reads are complete when the caller has its rows, so a read costs
// the round trips of its statements and no more.
#include <libpq-fe.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "common/hex.h"
#include "metastore/connection_internal.h"

namespace tarn::metastore_internal {
namespace {

// Type OIDs from pg_type.h (stable across versions).
constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kOidOid = 26;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kNumericOid = 1700;

// Prepared statements kept per connection; past this the cache starts over (SQL built with a
// variable number of placeholders must not grow it without bound).
constexpr size_t kMaxCachedStatements = 512;

// Advisory lock key that serializes migrations across processes ("tarnmigr").
constexpr int64_t kMigrationLockKey = 0x7461726e6d696772;

void IgnoreNotice(void*, const char*) {}

std::string Trimmed(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  char buf[24];
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(buf, &end, 10);
  if (errno != 0 || end != buf + s.size()) return false;
  *out = v;
  return true;
}

class PgConnection final : public Connection {
 public:
  explicit PgConnection(PGconn* conn) : conn_(conn) {
    PQsetNoticeProcessor(conn_, IgnoreNotice, nullptr);
  }
  ~PgConnection() override { PQfinish(conn_); }

  Status Begin(BeginMode mode) override {
    read_only_ = false;
    switch (mode) {
      case BeginMode::kReadWrite:
        pending_begin_ = "BEGIN ISOLATION LEVEL SERIALIZABLE";
        return Status::OK();
      case BeginMode::kLockingWrite:
        pending_begin_ = "BEGIN ISOLATION LEVEL READ COMMITTED";
        return Status::OK();
      case BeginMode::kReadOnly:
        pending_begin_ = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
        read_only_ = true;
        return Status::OK();
      case BeginMode::kMigration:
        // READ COMMITTED: every statement after the lock sees what the previous holder committed.
        TARN_RETURN_NOT_OK(Simple("BEGIN ISOLATION LEVEL READ COMMITTED"));
        return Simple("SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLockKey) + ")");
    }
    return Status::Internal("postgres: unknown begin mode");
  }

  Status Commit() override {
    Status st;
    if (!pending_begin_.empty() && deferred_.empty()) {
      pending_begin_.clear();  // nothing was sent: nothing to commit
      return Status::OK();
    }
    if (read_only_ && deferred_.empty()) {
      // Its reads are done and nothing can be lost: the reply is read by the next use.
      if (!PQsendQuery(conn_, "COMMIT")) return Error(nullptr, "send");
      commit_in_flight_ = true;
      return Status::OK();
    }
    if (!pending_begin_.empty() || !deferred_.empty()) {
      st = Pipeline(nullptr, {}, nullptr, nullptr, /*commit=*/true);
    } else {
      st = Simple("COMMIT");
    }
    // A COMMIT of an aborted transaction "succeeds" with ROLLBACK as its command tag.
    if (st.ok() && last_tag_ == "ROLLBACK") {
      return Status::Internal("postgres: transaction was rolled back at COMMIT");
    }
    return st;
  }

  Status ExecuteDeferred(std::string_view sql, const SqlParams& params) override {
    TARN_ASSIGN_OR_RETURN(Statement stmt, Prepared(sql));
    if (params.size() != static_cast<size_t>(stmt.params)) return ParamCountError(stmt, params);
    deferred_.push_back(Deferred{std::move(stmt), params});
    return Status::OK();
  }

  void Rollback() override {
    pending_begin_.clear();
    deferred_.clear();
    if (!DrainCommit().ok()) return;
    if (PQstatus(conn_) != CONNECTION_OK) {
      broken_ = true;
      return;
    }
    if (PQtransactionStatus(conn_) == PQTRANS_IDLE) return;
    if (!Simple("ROLLBACK").ok()) broken_ = true;
  }

  Result<int64_t> Execute(std::string_view sql, const SqlParams& params) override {
    int64_t affected = 0;
    TARN_RETURN_NOT_OK(Run(sql, params, nullptr, &affected));
    return affected;
  }

  Status Query(std::string_view sql, const SqlParams& params,
               const std::function<Status(const Row&)>& fn) override {
    return Run(sql, params, &fn, nullptr);
  }

  Status ExecScript(std::string_view sql) override { return Simple(std::string(sql)); }

  bool broken() const override { return broken_ || PQstatus(conn_) != CONNECTION_OK; }

 private:
  // Maps a failed result (or a connection failure when `res` is null) to a Status.
  Status Error(const PGresult* res, std::string_view what) {
    if (PQstatus(conn_) != CONNECTION_OK) {
      broken_ = true;
      return Status::Unavailable("postgres: connection lost during " + std::string(what) + ": " +
                                 Trimmed(PQerrorMessage(conn_)));
    }
    const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    std::string code = state ? state : "";
    std::string msg = "postgres: " + std::string(what) + ": " +
                      Trimmed(res ? PQresultErrorMessage(res) : PQerrorMessage(conn_));
    if (!code.empty()) msg += " (SQLSTATE " + code + ")";
    if (code == "23505") return Status::AlreadyExists(std::move(msg));
    if (code == "23503") return Status::FailedPrecondition(std::move(msg));
    if (code == "23502" || code == "23514") return Status::InvalidArgument(std::move(msg));
    if (code == "40001" || code == "40P01" || code == "55P03") {
      return MarkRetryable(Status::Unavailable(std::move(msg)));
    }
    if (code.starts_with("08") || code.starts_with("57P") || code.starts_with("53")) {
      if (code.starts_with("08") || code == "57P01" || code == "57P02" || code == "57P03") {
        broken_ = true;
      }
      return Status::Unavailable(std::move(msg));
    }
    if (code.starts_with("23")) return Status::FailedPrecondition(std::move(msg));
    if (code.starts_with("22")) return Status::InvalidArgument(std::move(msg));
    return Status::Internal(std::move(msg));
  }

  // Runs a parameterless command (or several) and drains its results.
  Status Simple(const std::string& sql) {
    TARN_RETURN_NOT_OK(DrainCommit());
    if (!PQsendQuery(conn_, sql.c_str())) return Error(nullptr, "send");
    Status first;
    last_tag_.clear();
    while (PGresult* res = PQgetResult(conn_)) {
      ExecStatusType s = PQresultStatus(res);
      if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && s != PGRES_EMPTY_QUERY && first.ok()) {
        first = Error(res, "exec");
      } else if (s == PGRES_COMMAND_OK) {
        last_tag_ = PQcmdStatus(res);
      }
      PQclear(res);
    }
    if (first.ok() && PQstatus(conn_) != CONNECTION_OK) return Error(nullptr, "exec");
    return first;
  }

  struct Statement {
    std::string name;
    int params;
  };
  struct Deferred {
    Statement stmt;
    SqlParams params;
  };

  Result<Statement> Prepared(std::string_view sql) {
    Status drained = DrainCommit();
    if (!drained.ok()) return Unsent(std::move(drained));
    std::string key(sql);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    if (cache_.size() >= kMaxCachedStatements) {
      TARN_RETURN_NOT_OK(Simple("DEALLOCATE ALL"));
      cache_.clear();
    }
    int count = 0;
    std::string text = RewritePlaceholders(sql, &count);
    Statement stmt{"s" + std::to_string(++statement_counter_), count};
    PGresult* res = PQprepare(conn_, stmt.name.c_str(), text.c_str(), 0, nullptr);
    if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
      Status st = Error(res, "prepare");
      PQclear(res);
      return Unsent(std::move(st));
    }
    PQclear(res);
    cache_.emplace(std::move(key), stmt);
    return stmt;
  }

  static Status ParamCountError(const Statement& stmt, const SqlParams& params) {
    return Status::Internal("postgres: statement has " + std::to_string(stmt.params) +
                            " placeholders, got " + std::to_string(params.size()) + " parameters");
  }

  // Parameters in libpq's form; `texts` owns the bytes `values` point to.
  struct Bound {
    std::vector<std::string> texts;
    std::vector<const char*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
  };

  Status Run(std::string_view sql, const SqlParams& params,
             const std::function<Status(const Row&)>* fn, int64_t* affected) {
    TARN_ASSIGN_OR_RETURN(Statement stmt, Prepared(sql));
    if (params.size() != static_cast<size_t>(stmt.params)) return ParamCountError(stmt, params);
    if (!pending_begin_.empty() || !deferred_.empty()) {
      return Pipeline(&stmt, params, fn, affected, /*commit=*/false);
    }
    Bound b;
    TARN_RETURN_NOT_OK(Bind(params, &b));
    const int n = stmt.params;
    if (!PQsendQueryPrepared(conn_, stmt.name.c_str(), n, b.values.data(), b.lengths.data(),
                             b.formats.data(), 0)) {
      return Error(nullptr, "send");
    }
    if (fn && !PQsetSingleRowMode(conn_)) {
      // Not fatal: the rows then arrive in one result.
    }
    Status st;
    while (PGresult* res = PQgetResult(conn_)) {
      ConsumeResult(res, fn, affected, &st);
      PQclear(res);
    }
    if (st.ok() && PQstatus(conn_) != CONNECTION_OK) st = Error(nullptr, "statement");
    return st;
  }

  // Sends the pending BEGIN, the deferred statements and then `stmt` (or COMMIT) in one
  // pipeline and reads their results; the first error wins (later statements are aborted).
  Status Pipeline(const Statement* stmt, const SqlParams& params,
                  const std::function<Status(const Row&)>* fn, int64_t* affected, bool commit) {
    TARN_RETURN_NOT_OK(DrainCommit());
    std::string begin = std::move(pending_begin_);
    pending_begin_.clear();
    std::vector<Deferred> deferred = std::move(deferred_);
    deferred_.clear();
    std::vector<Bound> bound(deferred.size() + 1);
    for (size_t i = 0; i < deferred.size(); ++i) {
      TARN_RETURN_NOT_OK(Bind(deferred[i].params, &bound[i]));
    }
    if (stmt) TARN_RETURN_NOT_OK(Bind(params, &bound.back()));
    if (!PQenterPipelineMode(conn_)) return Error(nullptr, "pipeline");
    int sent = 0;
    bool ok = true;
    auto send_plain = [&](const std::string& sql) {
      ok = ok && PQsendQueryParams(conn_, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0);
      ++sent;
    };
    auto send_prepared = [&](const Statement& s, const Bound& b) {
      ok = ok && PQsendQueryPrepared(conn_, s.name.c_str(), s.params, b.values.data(),
                                     b.lengths.data(), b.formats.data(), 0);
      ++sent;
    };
    if (!begin.empty()) send_plain(begin);
    for (size_t i = 0; i < deferred.size(); ++i) send_prepared(deferred[i].stmt, bound[i]);
    if (stmt) send_prepared(*stmt, bound.back());
    if (commit) send_plain("COMMIT");
    ok = ok && PQpipelineSync(conn_);
    if (!ok) {
      broken_ = true;
      return Error(nullptr, "send");
    }
    Status st;
    last_tag_.clear();
    const int last = sent - 1;  // the statement whose rows and count the caller wants
    for (int q = 0; q < sent; ++q) {
      // Rows one at a time, as outside a pipeline (a listing may be long); activated per query,
      // before its first result. Not fatal when refused: the rows then come in one result.
      if (q == last && !commit && fn) PQsetSingleRowMode(conn_);
      while (PGresult* res = PQgetResult(conn_)) {
        ExecStatusType s = PQresultStatus(res);
        if (s == PGRES_PIPELINE_ABORTED) {
          // Skipped after an earlier error, which `st` already holds.
        } else if (q == last && !commit) {
          ConsumeResult(res, fn, affected, &st);
        } else if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
          if (s == PGRES_COMMAND_OK) last_tag_ = PQcmdStatus(res);
        } else if (st.ok()) {
          st = Error(res, q == 0 && !begin.empty() ? "begin" : "statement");
        }
        PQclear(res);
      }
    }
    // The sync point, then leave pipeline mode.
    while (PGresult* res = PQgetResult(conn_)) {
      bool sync = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
      PQclear(res);
      if (sync) break;
    }
    if (!PQexitPipelineMode(conn_)) {
      broken_ = true;
      if (st.ok()) st = Error(nullptr, "pipeline");
    }
    if (st.ok() && PQstatus(conn_) != CONNECTION_OK) st = Error(nullptr, "statement");
    // The connection was lost in the round trip that began the transaction and held no COMMIT
    // (a pooled connection that died while idle): nothing can have committed, so the
    // transaction may run again on a new connection.
    if (!st.ok() && broken() && !begin.empty() && !commit) st = MarkRetryable(std::move(st));
    return st;
  }

  // A lost connection before anything of the transaction was sent (its BEGIN is still pending):
  // the transaction may run again on a new connection.
  Status Unsent(Status st) {
    if (!st.ok() && broken() && !pending_begin_.empty()) return MarkRetryable(std::move(st));
    return st;
  }

  // Reads the reply of a read-only transaction's COMMIT (Commit) before the connection is used
  // again. Its error changes nothing that transaction returned, so only a lost connection is
  // reported (the next statement could not run).
  Status DrainCommit() {
    if (!commit_in_flight_) return Status::OK();
    commit_in_flight_ = false;
    while (PGresult* res = PQgetResult(conn_)) PQclear(res);
    if (PQstatus(conn_) != CONNECTION_OK) return Error(nullptr, "commit");
    return Status::OK();
  }

  // Handles one result of a statement: rows to `fn`, the count to `affected`, errors to `st`.
  void ConsumeResult(PGresult* res, const std::function<Status(const Row&)>* fn, int64_t* affected,
                     Status* st) {
    ExecStatusType s = PQresultStatus(res);
    if (s == PGRES_SINGLE_TUPLE || s == PGRES_TUPLES_OK) {
      if (fn && st->ok()) {
        int rows = PQntuples(res);
        int cols = PQnfields(res);
        std::vector<SqlValue> row_values;
        for (int r = 0; r < rows && st->ok(); ++r) {
          row_values.clear();
          row_values.reserve(cols);
          for (int c = 0; c < cols && st->ok(); ++c) {
            auto v = Value(res, r, c);
            if (!v.ok()) {
              *st = v.status();
            } else {
              row_values.push_back(std::move(*v));
            }
          }
          if (st->ok()) {
            Row row(std::move(row_values));
            *st = (*fn)(row);
            row_values = std::vector<SqlValue>();
          }
        }
      }
      if (s == PGRES_TUPLES_OK && affected) *affected = ParseAffected(res);
    } else if (s == PGRES_COMMAND_OK) {
      if (affected) *affected = ParseAffected(res);
    } else if (st->ok()) {
      *st = Error(res, "statement");
    }
  }

  Status Bind(const SqlParams& params, Bound* out) {
    const int n = static_cast<int>(params.size());
    auto& texts = out->texts;
    auto& values = out->values;
    auto& lengths = out->lengths;
    auto& formats = out->formats;
    texts.assign(n, std::string());
    values.assign(n, nullptr);
    lengths.assign(n, 0);
    formats.assign(n, 0);
    for (int i = 0; i < n; ++i) {
      const SqlValue& v = params[i];
      switch (v.type()) {
        case SqlType::kNull:
          break;
        case SqlType::kInt64:
          texts[i] = std::to_string(*v.AsInt64());
          values[i] = texts[i].c_str();
          break;
        case SqlType::kDouble: {
          double d = *v.AsDouble();
          if (std::isnan(d)) {
            texts[i] = "NaN";
          } else if (std::isinf(d)) {
            texts[i] = d > 0 ? "Infinity" : "-Infinity";
          } else {
            char buf[40];
            std::snprintf(buf, sizeof(buf), "%.17g", d);
            texts[i] = buf;
          }
          values[i] = texts[i].c_str();
          break;
        }
        case SqlType::kText:
          texts[i] = std::string(*v.AsText());
          if (texts[i].find('\0') != std::string::npos) {
            return Status::InvalidArgument("postgres: text parameter contains a NUL byte");
          }
          values[i] = texts[i].c_str();
          break;
        case SqlType::kBlob: {
          std::string_view b = *v.AsBlob();
          if (b.size() > static_cast<size_t>(INT32_MAX)) {
            return Status::TooLarge("postgres: blob parameter over 2 GiB");
          }
          texts[i] = std::string(b);
          values[i] = texts[i].data();
          lengths[i] = static_cast<int>(b.size());
          formats[i] = 1;
          break;
        }
      }
    }
    return Status::OK();
  }

  static int64_t ParseAffected(PGresult* res) {
    int64_t v = 0;
    const char* s = PQcmdTuples(res);
    if (s && *s && ParseInt64(s, &v)) return v;
    return 0;
  }

  static Result<SqlValue> Value(PGresult* res, int r, int c) {
    if (PQgetisnull(res, r, c)) return SqlValue();
    const char* p = PQgetvalue(res, r, c);
    std::string_view s(p, PQgetlength(res, r, c));
    switch (PQftype(res, c)) {
      case kInt8Oid:
      case kInt4Oid:
      case kInt2Oid:
      case kOidOid: {
        int64_t v;
        if (!ParseInt64(s, &v)) return Status::Internal("postgres: bad integer " + std::string(s));
        return SqlValue(v);
      }
      case kBoolOid:
        return SqlValue(s == "t");
      case kNumericOid: {
        int64_t v;
        if (ParseInt64(s, &v)) return SqlValue(v);
        [[fallthrough]];
      }
      case kFloat4Oid:
      case kFloat8Oid: {
        std::string buf(s);
        char* end = nullptr;
        double d = std::strtod(buf.c_str(), &end);
        if (end != buf.c_str() + buf.size()) {
          return Status::Internal("postgres: bad number " + buf);
        }
        return SqlValue(d);
      }
      case kByteaOid: {
        // Text format of bytea: \x followed by hex digits.
        if (s.size() < 2 || s[0] != '\\' || s[1] != 'x' || s.size() % 2 != 0) {
          return Status::Internal("postgres: unexpected bytea encoding");
        }
        auto out = HexDecode(s.substr(2));
        if (!out) return Status::Internal("postgres: bad bytea hex");
        return SqlValue::Blob(*out);
      }
      default:
        return SqlValue(s);
    }
  }

  PGconn* conn_;
  bool broken_ = false;
  std::string last_tag_;
  std::string pending_begin_;       // BEGIN not yet sent (goes with the first statement)
  bool read_only_ = false;          // the transaction began with BeginMode::kReadOnly
  bool commit_in_flight_ = false;   // a read-only COMMIT's reply is still to be read
  std::vector<Deferred> deferred_;  // statements not yet sent (go with the next one or COMMIT)
  int64_t statement_counter_ = 0;
  std::unordered_map<std::string, Statement> cache_;
};

}  // namespace

Result<std::unique_ptr<Connection>> OpenPostgres(const std::string& uri,
                                                 const MetastoreOptions& options) {
  std::string timeout = std::to_string(std::max(1, options.pg_connect_timeout_s));
  const char* keys[] = {"dbname", "connect_timeout", "application_name", nullptr};
  const char* values[] = {uri.c_str(), timeout.c_str(), "tarn", nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (!conn) return Status::Unavailable("postgres: out of memory connecting");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = Trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return Status::Unavailable("postgres: cannot connect: " + msg);
  }
  // Catalog statements are short: JIT compilation (PostgreSQL >= 11) only adds tens of
  // milliseconds to the few that read many rows. Servers without the setting ignore the error.
  PQclear(PQexec(conn, "SET jit = off"));
  return std::unique_ptr<Connection>(std::make_unique<PgConnection>(conn));
}

}  // namespace tarn::metastore_internal

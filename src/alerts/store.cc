// The table `alerts` (migration 11) and every statement on it (store.h, and ListAlerts).
//
// Why one statement is enough across processes: the raise is an upsert on the fingerprint's
// row, and both backends run INSERT ... ON CONFLICT DO UPDATE with the row locked, evaluating
// the SET on the latest committed version (PostgreSQL waits for a concurrent upsert of the same
// row and then sees its result, at READ COMMITTED too; SQLite has one writer at a time). So of
// any number of servers raising the same failure, exactly one sees the cool-off expired and
// moves last_delivered_at; the others see it moved. The raise that delivered is told apart by
// delivered_count (raise_count at the last delivery), not by its time: two servers may well
// raise within the same microsecond.
#include "alerts/store.h"

#include <iterator>
#include <limits>

#include "alerts/alerts.h"

namespace tarn::alerts {

namespace store {

namespace {

// Portable rules as in catalog/store.cc: timestamps BIGINT microseconds since the Unix epoch,
// JSON as TEXT. Never edit a released migration: add a new one (with the next global version).
constexpr char kAlerts[] = R"sql(
CREATE TABLE alerts (
  fingerprint TEXT PRIMARY KEY,
  code TEXT NOT NULL,
  severity TEXT NOT NULL,
  object TEXT NOT NULL,
  summary TEXT NOT NULL,
  component TEXT NOT NULL,
  environment TEXT NOT NULL,
  detail TEXT NOT NULL,
  first_raised_at BIGINT NOT NULL,
  last_raised_at BIGINT NOT NULL,
  last_delivered_at BIGINT NOT NULL,
  raise_count BIGINT NOT NULL,
  delivered_count BIGINT NOT NULL
);
CREATE INDEX alerts_last_raised ON alerts (last_raised_at);
CREATE INDEX alerts_code ON alerts (code, last_raised_at);
)sql";

}  // namespace

const std::vector<Migration>& AlertTables() {
  static const std::vector<Migration>* steps = new std::vector<Migration>{{11, "alerts", kAlerts}};
  return *steps;
}

namespace {
[[maybe_unused]] const bool kContributed = ContributeMigrations(AlertTables());
}  // namespace

Result<RaiseOutcome> RecordRaise(Metastore& ms, const RaiseRow& row, int64_t now_us,
                                 int64_t cooloff_us) {
  // Delivered when the last delivery is at or before this bound (cool-off 0: always).
  int64_t due;
  if (__builtin_sub_overflow(now_us, cooloff_us, &due)) due = std::numeric_limits<int64_t>::min();
  RaiseOutcome out;
  Status st = ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(
            auto r,
            tx.QueryOne(
                "INSERT INTO alerts (fingerprint, code, severity, object, summary, component, "
                "environment, detail, first_raised_at, last_raised_at, last_delivered_at, "
                "raise_count, delivered_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1) "
                "ON CONFLICT (fingerprint) DO UPDATE SET "
                "code = excluded.code, severity = excluded.severity, object = excluded.object, "
                "summary = excluded.summary, component = excluded.component, "
                "environment = excluded.environment, detail = excluded.detail, "
                "raise_count = alerts.raise_count + 1, "
                "last_raised_at = CASE WHEN alerts.last_raised_at < excluded.last_raised_at "
                "THEN excluded.last_raised_at ELSE alerts.last_raised_at END, "
                "last_delivered_at = CASE WHEN alerts.last_delivered_at <= ? "
                "THEN excluded.last_delivered_at ELSE alerts.last_delivered_at END, "
                "delivered_count = CASE WHEN alerts.last_delivered_at <= ? "
                "THEN alerts.raise_count + 1 ELSE alerts.delivered_count END "
                "RETURNING raise_count, delivered_count",
                {row.fingerprint, row.code, row.severity, row.object, row.summary, row.component,
                 row.environment, row.detail_json, now_us, now_us, now_us, due, due}));
        if (!r) return Status::Internal("alerts: the upsert returned no row");
        TARN_ASSIGN_OR_RETURN(out.count, r->Int64(0));
        TARN_ASSIGN_OR_RETURN(int64_t delivered_count, r->Int64(1));
        out.delivered = delivered_count == out.count;
        return Status::OK();
      },
      // PostgreSQL READ COMMITTED: the upsert locks the row, so racing raises wait instead of
      // failing serialization and retrying. SQLite: the same as kReadWrite.
      TxMode::kLockingWrite);
  if (!st.ok()) return st;
  return out;
}

}  // namespace store

Result<std::vector<AlertRecord>> ListAlerts(Metastore& ms, const AlertQuery& query) {
  if (query.limit < 1 || query.limit > 10000) {
    return Status::InvalidArgument("alerts: limit must be 1..10000, not " +
                                   std::to_string(query.limit));
  }
  std::string sql =
      "SELECT fingerprint, code, severity, object, summary, component, environment, detail, "
      "first_raised_at, last_raised_at, last_delivered_at, raise_count FROM alerts "
      "WHERE last_raised_at >= ?";
  SqlParams params{query.since_us};
  if (!query.code.empty()) {
    sql += " AND code = ?";
    params.emplace_back(query.code);
  }
  if (!query.workspace.empty()) {
    // The workspace itself or an object inside it ("w.c.d"); substr, not LIKE: '_' is a
    // wildcard there and a legal character of a name.
    std::string prefix = query.workspace + ".";
    sql += " AND (object = ? OR substr(object, 1, ?) = ?)";
    params.emplace_back(query.workspace);
    params.emplace_back(static_cast<int64_t>(prefix.size()));
    params.emplace_back(prefix);
  }
  sql += " ORDER BY last_raised_at DESC, fingerprint LIMIT ?";
  params.emplace_back(static_cast<int64_t>(query.limit));
  std::vector<AlertRecord> out;
  Status st = ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.clear();
        return tx.QueryEach(sql, params, [&](const Row& r) -> Status {
          AlertRecord a;
          std::string* texts[] = {&a.fingerprint, &a.code,      &a.severity,    &a.object,
                                  &a.summary,     &a.component, &a.environment, &a.detail_json};
          for (size_t i = 0; i < std::size(texts); ++i) {
            TARN_ASSIGN_OR_RETURN(auto t, r.Text(i));
            texts[i]->assign(t);
          }
          TARN_ASSIGN_OR_RETURN(a.first_raised_at_us, r.Int64(8));
          TARN_ASSIGN_OR_RETURN(a.last_raised_at_us, r.Int64(9));
          TARN_ASSIGN_OR_RETURN(a.last_delivered_at_us, r.Int64(10));
          TARN_ASSIGN_OR_RETURN(a.count, r.Int64(11));
          out.push_back(std::move(a));
          return Status::OK();
        });
      },
      TxMode::kReadOnly);
  if (!st.ok()) return st.WithContext("listing alerts");
  return out;
}

}  // namespace tarn::alerts

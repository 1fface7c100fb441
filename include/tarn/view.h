// Views (docs/features.md V1): SQL stored in the catalog under a `workspace.collection.name`,
// readable by name in a query. The value types of the view API; the operations are members of
// tarn::Client (tarn/client.h). Design: docs/design/views.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/data_type.h"
#include "tarn/dataset.h"
#include "tarn/query.h"
#include "tarn/status.h"

namespace tarn {

// The dialect tarn's SQL engine (DuckDB) runs; views of any other dialect are stored and shown,
// and running one is unsupported_dialect.
inline constexpr char kDuckDbDialect[] = "duckdb";

// Checks a dialect name: 1 to 32 characters of [a-z0-9_]; kInvalidArgument
// (code=invalid_dialect) otherwise.
Status ValidateDialect(std::string_view dialect);

// The most SQL text a view keeps.
inline constexpr size_t kMaxViewSqlBytes = 1 << 20;

// What a view is made of; each create or replace stores it as a new statement version.
struct ViewDefinition {
  std::string sql;  // stored verbatim; required, at most 1 MiB
  std::string dialect = kDuckDbDialect;
  std::string description;
  // The schema the author declares the result to have (optional; shown, not enforced).
  std::optional<Schema> schema;
};

// Checks a definition: its dialect, SQL that is not blank, at most kMaxViewSqlBytes and has no
// NUL byte (code=invalid_view_sql), a description of at most 4096 bytes, a declared schema with
// a column. kInvalidArgument otherwise.
Status ValidateViewDefinition(const ViewDefinition& def);

// One statement version of a view (1, 2, ... in the order they were stored).
struct ViewVersion {
  int64_t version = 0;
  std::string sql;
  std::string dialect;
  std::string description;
  std::optional<Schema> schema;
  std::string author;
  int64_t created_at_us = 0;
};

// A view and what tarn recorded the last time a query ran it.
struct ViewInfo {
  DatasetName name;  // workspace, collection and the view's name (in `dataset`)
  // The current statement version (its sql, dialect, description, schema, author and time).
  ViewVersion current;
  std::string created_by;  // the author of version 1
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;  // of the current version
  // Execution metadata, updated by each query that reads the view (Client::Query): when it
  // ran, the rows that query returned and its wall time.
  // (RecordViewRun takes seconds; the time is kept in whole microseconds.) nullopt until the first
  // run.
  std::optional<int64_t> last_run_at_us;
  std::optional<int64_t> last_row_count;
  std::optional<int64_t> last_run_us;  // wall time in microseconds
};

// ---- materialized views and their triggers (V2, V3; docs/design/views.md) ----

// A commit trigger: a commit on `dataset` (a user-created one) records a job that refreshes
// `target`. Named "refresh__<collection>__<view>" for a materialized view's.
inline constexpr char kRefreshTriggerKind[] = "materialized_view_refresh";
// The firing floor a new trigger gets (seconds); 0 means none.
inline constexpr int64_t kDefaultTriggerIntervalS = 120;

struct TriggerInfo {
  std::string dataset;  // the source whose commits fire it (qualified)
  std::string name;
  std::string kind = kRefreshTriggerKind;
  std::string target;  // the materialized view it refreshes (qualified)
  // Fires at most once per this many seconds (commits inside are "throttled"); nullopt: every
  // commit fires.
  std::optional<int64_t> minimum_interval_s;
  std::optional<int64_t> last_fired_at_us;
  std::string last_fired_status;  // "fired", "throttled", "fire_failed"; empty: never
  // The next fire's window starts after this snapshot of `dataset` (throttled commits widen it).
  int64_t window_from_snapshot = 0;
  std::string author;
  int64_t created_at_us = 0;
};

// How a refresh ended (last_refresh_status, a job's state).
inline constexpr char kRefreshSucceeded[] = "succeeded";
inline constexpr char kRefreshFailed[] = "failed";
inline constexpr char kRefreshDenied[] = "denied";
inline constexpr char kRefreshEgressBlocked[] = "egress_blocked";
inline constexpr char kRefreshThrottled[] = "throttled";

// How a materialized view refreshes (MaterializedViewInfo::refresh_kind, RefreshRecord::mode):
// full recomputes its SQL; incremental (a projection and filter of one dataset: no aggregate,
// join, window, subquery, DISTINCT, ORDER BY or LIMIT) runs the SQL over the rows its source
// added since the last refresh and deletes the rows whose source rows were deleted, matched by
// row lineage: the view's data carries each row's source row id in kSourceRowIdColumn, which
// tarn sql never shows. docs/design/views.md "Incremental refresh".
inline constexpr char kRefreshFull[] = "full";
inline constexpr char kRefreshIncremental[] = "incremental";
inline constexpr char kSourceRowIdColumn[] = "_tarn_source_row_id";

// What a refresh reports back to the catalog (Client::RecordRefresh).
struct RefreshRecord {
  std::string status;  // one of the kRefresh* above
  std::string mode;    // how it ran (succeeded): kRefreshFull, kRefreshIncremental
  std::string job_id;  // empty for a refresh run by hand
  std::string error;   // why, when not succeeded
  // The snapshot of each source the view's data now reflects (succeeded only).
  std::vector<ReadReference> sources;
  std::optional<int64_t> snapshot_id;  // the view's snapshot the refresh committed
  // A windowed task run that succeeded: the snapshot of its window source it covered through
  // (the task's next window starts after it).
  std::optional<int64_t> window_to;
};

// A materialized view: a dataset that also carries SQL (versioned like a view's), its sources
// (every dataset the SQL reads, through views) and one refresh trigger on each source.
struct MaterializedViewInfo {
  ViewInfo view;  // name, the current statement and its versions' numbering, created/updated
  std::string dataset_uuid;
  std::vector<std::string> sources;         // qualified dataset names
  std::string refresh_kind = kRefreshFull;  // what its SQL allows (kRefreshIncremental)
  std::string last_refresh_status;          // empty: never refreshed since it was created
  std::string last_refresh_mode;            // how the last successful refresh ran
  std::optional<int64_t> last_refresh_at_us;
  std::string last_refresh_job;
  std::string last_refresh_error;
  std::vector<ReadReference> last_refresh_sources;  // at creation: what the first run read
  std::optional<int64_t> last_refresh_snapshot_id;
  std::vector<TriggerInfo> triggers;  // on its sources, targeting it
};

// Client::CreateMaterializedView's options.
struct MaterializedViewOptions {
  bool replace = false;        // CREATE OR REPLACE: a new SQL version, triggers rewritten
  CommitMeta meta;             // of the snapshot the first run commits (author required)
  std::string partition_spec;  // of the dataset created (create only)
  std::string sort_order;
  QueryOptions query;  // how the SQL runs
};

// Client::RefreshMaterializedView's options.
struct RefreshOptions {
  std::string job_id;  // the idempotency key of the refresh's commit, when a job runs it
  std::string author;  // of that commit (required)
  bool full = false;   // recompute even when an incremental refresh could run
  QueryOptions query;  // query.pinned_snapshots: a job reads its source at the window's end
};

struct RefreshResult {
  RefreshRecord record;  // also stored on the view
  std::optional<SnapshotInfo> snapshot;
  int64_t rows = 0;
};

// ---- jobs: what a trigger's fire records (V3) ----

// A job's states: queued (waiting, or waiting to be retried), running (claimed by a runner,
// until its lease ends), then one of succeeded, failed, denied, egress_blocked.
inline constexpr char kJobQueued[] = "queued";
inline constexpr char kJobRunning[] = "running";

// One refresh of `target` fired by a commit on `source`: it covers the source's snapshots
// (from_snapshot, to_snapshot] and reads the source at to_snapshot.
struct JobInfo {
  std::string id;
  std::string kind = "refresh";
  std::string workspace;  // the target's
  std::string trigger;
  std::string target;  // the materialized view or the task (qualified)
  std::string source;  // the dataset whose commit fired it (qualified); "" for a signal
  std::string source_uuid;
  int64_t from_snapshot = 0;
  int64_t to_snapshot = 0;
  std::string fired_by;  // who committed (or signalled): a refresh runs with their rights
  // A task's run has this client's rights instead (the task's runs_as, tarn/task.h); empty
  // for a refresh.
  std::string runs_as;
  std::string state;
  int64_t attempts = 0;
  std::string error;
  std::optional<int64_t> result_snapshot;  // the target's snapshot the refresh committed
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  int64_t next_attempt_at_us = 0;
  std::optional<int64_t> lease_until_us;
  int64_t purge_at_us = 0;  // the record goes after this (TARN_JOB_TTL_DAYS, default 14)
};

// What a job's runner reports when it is done (Client::ReportJobOutcome).
struct JobOutcomeReport {
  std::string state;  // succeeded, failed, denied, egress_blocked
  std::string error;
  std::optional<int64_t> result_snapshot;
  bool retry = false;  // a transient failure: queue the job again (with backoff)
};

// Jobs newest first (by creation time, then job id). `after` / `before` are job ids (exclusive):
// with `after` the first `limit` jobs listed after it (older), with `before` alone the last
// `limit` listed before it (newer; both: between them, from `after`). A cursor that names no
// job (never one, or purged) is kInvalidArgument naming it. A page of `limit` jobs continues
// after its last job (read with `before` alone: before its first); a shorter one is the end.
struct JobQuery {
  std::string state;      // empty: any
  std::string target;     // a materialized view or a task (qualified); empty: any
  std::string workspace;  // the target's workspace; empty: any
  int64_t limit = 100;    // 1..10000
  std::string after;      // a job id; empty: none
  std::string before;     // a job id; empty: none
};

}  // namespace tarn

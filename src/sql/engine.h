// tarn's SQL engine: DuckDB, embedded through its C API (docs/design/sql.md).
//
// A query runs in this process, over any tarn::Client: `w.c.d` names and tarn_scan('w.c.d',
// ...) read datasets through the client (embedded: the files straight from the warehouse, in
// parallel; remote: streamed by `tarn serve` under the client's token), at one snapshot per
// dataset for the whole query. Each call opens its own in-memory DuckDB database, so calls
// share nothing and may run on several threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/client.h"
#include "tarn/column.h"
#include "tarn/dataset.h"
#include "tarn/query.h"
#include "tarn/status.h"

namespace tarn::sql {

// The options and result types are the SDK's (tarn/query.h); Client::Query calls this.

// Runs one query (SELECT, WITH, VALUES, FROM-first ...) and hands its rows to `fn` in batches
// of up to 2048 rows (returning an error from `fn` stops the query; that error is returned).
// Errors: sql_engine_unavailable (kUnavailable) without libduckdb.so; sql_not_a_query;
// sql_syntax_error (field position); sql_binder_error (fields line, column);
// sql_unsupported_type; sql_error; sql_interrupted and sql_timeout (kCancelled); the client's
// errors for the datasets read (dataset_not_found naming the dataset, permission_denied,
// snapshot_not_found, predicate errors of `filter :=` ...).
Result<QueryResult> RunQuery(Client& client, std::string_view sql, const QueryOptions& options,
                             const std::function<Status(const RecordBatch&)>& fn);
// The same, handing each batch over: a consumer that keeps batches (a queue) moves them.
Result<QueryResult> RunQueryOwned(Client& client, std::string_view sql, const QueryOptions& options,
                                  const std::function<Status(RecordBatch&&)>& fn);

// Parses `sql` with DuckDB's parser: OK for one query (SELECT, WITH, VALUES, FROM ...), else
// sql_syntax_error or sql_not_a_query. OK without a check when libduckdb.so cannot be loaded.
Status CheckQueryText(std::string_view sql);

// The incremental form of a materialized view's SQL (docs/design/views.md "Incremental
// refresh"): when `sql` is a projection and filter of the one dataset `source` (named directly,
// not through a view: no aggregate, window, join, subquery, CTE, DISTINCT, ORDER BY, LIMIT,
// set operation or sample), the same query with the source's row id added as the column
// kSourceRowIdColumn, for a read of `source` with row ids (QueryOptions::incremental_reads);
// nullopt for any other query. `source` is the name the query reads (the caller checks that it
// names a dataset, not a view). Errors: sql_engine_unavailable; sql_syntax_error,
// sql_not_a_query.
struct IncrementalQuery {
  std::string source;  // qualified
  std::string sql;
};
Result<std::optional<IncrementalQuery>> IncrementalForm(std::string_view sql);

// The relation a windowed task run's SQL reads its window from (QueryOptions::window).
inline constexpr char kWindowRelation[] = "tarn_window";

// How a refresh job ended, for the job record: its state (succeeded, failed, denied,
// egress_blocked), the error, the view's snapshot it committed, and whether to try again
// later (a transient failure: the catalog or the warehouse was unavailable).
struct JobOutcome {
  std::string state;
  std::string error;
  std::optional<int64_t> snapshot;
  bool retry = false;
};
// Runs a refresh job over `client` (whose rights are the job's fired_by's): the view's SQL with
// the source pinned at the job's window end, committed with the job's id as idempotency key
// (a job run twice commits once). A job whose view already reflects that snapshot of the
// source or a later one (a newer job ran first) succeeds without work.
JobOutcome RunRefreshJob(Client& client, const JobInfo& job);
// Runs a task job over `client` (whose rights are the task's runs_as): the task's SQL (a
// commit-fired run reads the source at the job's snapshot), committed with the job's id as
// idempotency key, the run recorded on the task (tasks.cc).
JobOutcome RunTaskJob(Client& client, const JobInfo& job);
// The run of any job, by its kind (refresh, task); another kind fails.
JobOutcome RunJob(Client& client, const JobInfo& job);

// For a process that runs queries and exits (`tarn sql`, the benchmark): keeps the decoded
// columns of each file in the heap for the next file instead of returning them to the kernel
// and faulting fresh pages in again (glibc's mmap and trim thresholds raised; measured in
// bench/README.md, "SQL"). Process-wide: not for a long-running server.
void TuneAllocatorForQueries();

}  // namespace tarn::sql

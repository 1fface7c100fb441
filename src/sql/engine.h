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
#include <string>
#include <string_view>
#include <vector>

#include "tarn/client.h"
#include "tarn/column.h"
#include "tarn/dataset.h"
#include "tarn/status.h"

namespace tarn::sql {

struct QueryOptions {
  int threads = 0;             // DuckDB's worker threads; 0: one per core
  std::string memory_limit;    // DuckDB's memory_limit ("4GB"); empty: DuckDB's (80% of RAM)
  std::string temp_directory;  // where DuckDB spills past the memory limit; empty: no spilling
  double timeout_s = 0;        // 0: none; past it the query stops with sql_timeout
  // Polled every 50 ms while the query runs; true stops it with sql_interrupted.
  const std::atomic<bool>* cancel = nullptr;
  // Called about every 250 ms from another thread with DuckDB's progress in [0, 1] (not at all
  // when DuckDB cannot tell).
  std::function<void(double)> progress;
  // Lets the query read and write local files (read_parquet('x.parquet'), COPY ... TO); off,
  // the query sees tarn's datasets only.
  bool allow_local_files = false;
  // Called once the query is bound and its result's schema known, before any row reaches the
  // callback, with every dataset it reads: an error stops the query and is returned.
  std::function<Status(const Schema&, const std::vector<ReadReference>&)> on_start;
};

struct QueryResult {
  Schema schema;     // of the result, also when it has no rows
  int64_t rows = 0;  // rows handed to the callback
  // Every dataset the query read, once per (dataset, selector), in the order first bound,
  // with the snapshot it resolved to and how (resolved_by: "current", "snapshot", "time",
  // "tag:<name>").
  std::vector<ReadReference> reads;
  // Embedded only: the data files opened and the bytes read from the warehouse (footers and
  // the column chunks of the columns the query used).
  int64_t files_read = 0;
  int64_t bytes_read = 0;
};

// Runs one query (SELECT, WITH, VALUES, FROM-first ...) and hands its rows to `fn` in batches
// of up to 2048 rows (returning an error from `fn` stops the query; that error is returned).
// Errors: sql_engine_unavailable (kUnavailable) without libduckdb.so; sql_not_a_query;
// sql_syntax_error (field position); sql_binder_error (fields line, column);
// sql_unsupported_type; sql_error; sql_interrupted and sql_timeout (kCancelled); the client's
// errors for the datasets read (dataset_not_found naming the dataset, permission_denied,
// snapshot_not_found, predicate errors of `filter :=` ...).
Result<QueryResult> RunQuery(Client& client, std::string_view sql, const QueryOptions& options,
                             const std::function<Status(const RecordBatch&)>& fn);

}  // namespace tarn::sql

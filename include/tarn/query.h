// SQL over a catalog (docs/design/sql.md): the options and results of Client::Query and
// Client::QueryInto. The query runs in the caller's process, in DuckDB (libduckdb.so, loaded at
// the first query), reading datasets through the client, embedded or remote.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tarn/column.h"
#include "tarn/dataset.h"
#include "tarn/status.h"

namespace tarn {

// A windowed task run's window (docs/design/tasks.md "Windows"): the relation `tarn_window` in
// the query is the rows of `source` in files it added after snapshot `after`, read at `to`
// (nullopt: its current snapshot).
struct QueryWindow {
  std::string source;  // qualified
  int64_t after = 0;
  std::optional<int64_t> to;
};

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
  // Datasets (qualified names) the query names without a selector are read at these snapshots
  // instead of their current ones (a refresh job reads its source at the window's end).
  std::map<std::string, int64_t> pinned_snapshots;
  // An incremental refresh's reads: datasets (qualified names) the query names read with their
  // row ids (the column _tarn_row_id) and, when the value is set, only the rows of files added
  // after that snapshot.
  std::map<std::string, std::optional<int64_t>> incremental_reads;
  // A windowed task run: what `tarn_window` reads. Without one, a query naming tarn_window is
  // window_unbound.
  std::optional<QueryWindow> window;
  // Embedded on a local warehouse: a dataset without deleted rows is read by DuckDB's own
  // Parquet reader over its files (columns mapped by field id), which hands DuckDB dictionary
  // vectors and column statistics; the results are the same as tarn's reader's. Off: tarn's
  // reader (tarn_scan) reads every dataset.
  bool direct_reads = true;
};

struct QueryResult {
  Schema schema;     // of the result, also when it has no rows
  int64_t rows = 0;  // rows handed to the callback (or written, for QueryInto)
  // Every dataset the query read, once per (dataset, selector), in the order first bound,
  // with the snapshot it resolved to and how (resolved_by: "current", "version", "previous",
  // "tag" with the tag's name, "date"; tarn/dataset.h ResolvedBy).
  std::vector<ReadReference> reads;
  // Embedded only: the data files the query read; the bytes tarn's reader read from the
  // warehouse (footers and the column chunks of the columns the query used); and how many of
  // the files DuckDB's own reader read directly (QueryOptions::direct_reads: tarn read only
  // their footers, counted in bytes_read; DuckDB's reads of them are not).
  int64_t files_read = 0;
  int64_t bytes_read = 0;
  int64_t direct_files = 0;
};

enum class QueryIntoMode : uint8_t {
  kCreate,     // a new dataset of the result's columns (fails when it exists)
  kAppend,     // rows added to an existing dataset
  kOverwrite,  // every live row replaced
};

struct QueryIntoOptions {
  std::string target;  // workspace.collection.dataset
  QueryIntoMode mode = QueryIntoMode::kAppend;
  CommitMeta meta;  // author (required), message, idempotency key; the receipt is filled in
  // The receipt's produced_by: "view:w.c.v" or "task:w.c.t" when a catalog object runs the
  // query (that object is also what SECURE must sanction); absent for a hand-run query.
  std::optional<std::string> produced_by;
  // kCreate only: the new dataset's partition spec and sort order.
  std::string partition_spec;
  std::string sort_order;
  // kAppend only: also delete the target's rows this predicate matches, in the same snapshot
  // (Client::ReplaceWhere). An incremental refresh passes the rows whose source rows went.
  std::optional<std::string> replace_where;
  // With replace_where: the target's snapshot the caller computed against; the commit is
  // refused (commit_conflict) when the target changed since.
  std::optional<int64_t> read_snapshot_id;
};

struct QueryIntoResult {
  QueryResult query;
  // nullopt when nothing was committed: an append of no rows, or a create of an empty result
  // (the dataset exists, without a snapshot).
  std::optional<SnapshotInfo> snapshot;
  bool created = false;
};

}  // namespace tarn

// The state one query shares between the engine (engine.cc) and the tarn_scan table function
// (scan.cc): the client, the datasets resolved so far, and the first tarn error a callback
// hit (DuckDB only carries a message across its C API; the engine returns this Status
// instead, with its kind and fields). Internal to src/sql.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sql/duckdb_api.h"
#include "tarn/client.h"
#include "tarn/dataset.h"

namespace tarn {
class ObjectStore;
}

namespace tarn::sql {

// A dataset as one query reads it: loaded once per (name, selector), so every reference in
// the query sees the same snapshot and schema.
struct ResolvedDataset {
  std::string name;  // qualified
  DatasetInfo info;  // schema: the selected snapshot's, or the current one
  // The snapshot the reads pin (nullopt: the dataset has no snapshot yet, no rows).
  std::optional<int64_t> snapshot_id;
};

struct QuerySession {
  const DuckDbApi* api = nullptr;
  Client* client = nullptr;
  // The warehouse of an embedded catalog: files are read from it directly, in parallel.
  // Null for a remote client, whose scans stream from the server.
  ObjectStore* warehouse = nullptr;
  int threads = 1;
  // Direct reads (sql/direct.h): the local warehouse's root directory, empty when off; the
  // files DuckDB's own reader may open, the only ones the query may open.
  std::string direct_root;
  std::vector<std::string> direct_paths;

  std::mutex mu;
  std::map<std::string, std::shared_ptr<ResolvedDataset>> resolved;  // by name + selector
  std::vector<ReadReference> reads;
  std::vector<std::string> views;         // the views the query reads (qualified), each once
  std::map<std::string, int64_t> pinned;  // QueryOptions::pinned_snapshots
  std::map<std::string, std::optional<int64_t>> incremental;  // QueryOptions::incremental_reads
  std::optional<QueryWindow> window;                          // QueryOptions::window
  Status first_error;

  // Loads `name` at `at` once per query. Errors: the client's.
  Result<std::shared_ptr<ResolvedDataset>> Resolve(const std::string& name,
                                                   const SnapshotSelector& at);
  // Keeps the first error; returns its message for DuckDB.
  std::string Fail(const Status& st);
};

// Registers tarn_scan(name, snapshot :=, tag :=, at :=, filter := (or "where" :=), row_ids :=) on
// `con`.
Status RegisterTarnScan(QuerySession* session, duckdb_connection con);

}  // namespace tarn::sql

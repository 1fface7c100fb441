// The catalog's tables: their migrations (versions 1, 2 and 5 of the one global order) and
// typed statements on them. Internal to the catalog module.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metastore/metastore.h"
#include "tarn/dataset.h"

namespace tarn::catalog_store {

// "(?, ?, ?), (?, ?, ?)": the VALUES list of a multi-row INSERT of `rows` rows of `cols`
// parameters, for every store of the catalog's tables.
std::string Placeholders(size_t rows, size_t cols);

// Migrations 1 (catalog core), 2 (datasets at work) and 5 (file isolation), contributed to
// SchemaMigrations().
const std::vector<Migration>& CatalogTables();

// ---- datasets: the commit's lock ----

// What one commit group adds to the dataset row it locks.
struct LockDelta {
  int64_t snapshots = 0;  // snapshot ids allocated (last_snapshot_id and current_snapshot_id)
  int64_t row_ids = 0;    // row ids allocated (next_row_id)
  int64_t files = 0, records = 0, bytes = 0;  // added to the running totals
};
// The dataset row as the lock-and-allocate UPDATE returned it.
struct LockedDataset {
  int64_t id = 0;
  std::string uuid;
  int64_t last_snapshot_id = 0;  // after the update
  int64_t next_row_id = 0;       // after the update
  int64_t commit_at = 0;
  int64_t schema_id = 0;
  int64_t spec_id = 0;
  int64_t total_files = 0, total_records = 0, total_bytes = 0;  // after the update
  int64_t expired_through = 0;
  int64_t trigger_count = 0;   // triggers on the dataset (migration 8): 0 = nothing to fire
  int64_t trigger_due_at = 0;  // before this time every trigger is in its floor (migration 9)
  std::string sources;         // the standing source list (migration 10, provenance.h)
};
// Locks the live dataset `n` (the per-dataset serialization point of commits: under
// TxMode::kLockingWrite a concurrent commit waits here) and applies `delta`; commit time never
// goes backwards (last_commit_at = max(last_commit_at, now_us)). nullopt when there is no live
// dataset of that name.
Result<std::optional<LockedDataset>> LockDataset(Transaction& tx, const DatasetName& n,
                                                 const LockDelta& delta, int64_t now_us);

// ---- data_files ----

// Whether any data file row (live or removed, of any dataset) has this path.
Result<bool> PathRegistered(Transaction& tx, std::string_view path);

// ---- snapshots ----

// Queues the insert of `snaps` (the rows of one commit group of dataset `dataset_id`), in one
// statement (on PostgreSQL sent with the next statement or COMMIT). sources[i] is the standing
// source list snaps[i] leaves (provenance.h).
Status InsertSnapshots(Transaction& tx, int64_t dataset_id,
                       const std::vector<const SnapshotInfo*>& snaps,
                       const std::vector<std::string>& sources);

}  // namespace tarn::catalog_store

// The catalog's tables: their migrations (versions 1, 2, 5, 12, 15, 16 and 18 of the one global
// order) and typed statements on them (store.cc; snapshot_store.cc for snapshots, tags, offsets,
// planning and the change feed). Internal to the catalog module.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metastore/metastore.h"
#include "objectstore/object_store.h"
#include "table/predicate.h"
#include "tarn/dataset.h"

namespace tarn::catalog_store {

// "(?, ?, ?), (?, ?, ?)": the VALUES list of a multi-row INSERT of `rows` rows of `cols`
// parameters, for every store of the catalog's tables.
std::string Placeholders(size_t rows, size_t cols);

// Migrations 1 (catalog core), 2 (datasets at work), 5 (file isolation), 12 (periodic runs),
// 15 (the snapshots' row id watermark) and 16 (deletion vectors by file), contributed to
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

// ---- snapshots (snapshot_store.cc) ----

// Whether the dataset has a snapshot row with this id (an expired one has none).
Result<bool> SnapshotExists(Transaction& tx, int64_t dataset_id, int64_t snapshot_id);
// The newest snapshot committed at or before `at_us`; nullopt when none is (left).
Result<std::optional<int64_t>> SnapshotAtTime(Transaction& tx, int64_t dataset_id, int64_t at_us);
// The parent of a snapshot; nullopt for the first one or a snapshot without a row.
Result<std::optional<int64_t>> ParentSnapshot(Transaction& tx, int64_t dataset_id,
                                              int64_t snapshot_id);
Result<std::optional<SnapshotInfo>> SnapshotById(Transaction& tx, int64_t dataset_id,
                                                 int64_t snapshot_id);
// The snapshot a commit with this idempotency key made, if any.
Result<std::optional<SnapshotInfo>> SnapshotByIdempotencyKey(Transaction& tx, int64_t dataset_id,
                                                             std::string_view key);
// One keyset page (SnapshotQuery, limit already checked), in snapshot id order: read upwards,
// or with `before` alone downwards and returned reversed.
Result<std::vector<SnapshotInfo>> SnapshotsPage(Transaction& tx, int64_t dataset_id,
                                                const SnapshotQuery& query);

// ---- tags (snapshot_store.cc) ----

// The snapshot a tag names; nullopt when the dataset has no such tag.
Result<std::optional<int64_t>> TagTarget(Transaction& tx, int64_t dataset_id, std::string_view tag);
// Creates the tag, or moves it when `replace`; false when it exists and !replace.
Result<bool> PutTag(Transaction& tx, int64_t dataset_id, std::string_view tag, int64_t snapshot_id,
                    int64_t now_us, bool replace);
// False when there was no such tag.
Result<bool> DeleteTag(Transaction& tx, int64_t dataset_id, std::string_view tag);
// By name.
Result<std::vector<TagInfo>> Tags(Transaction& tx, int64_t dataset_id);

// ---- consumer offsets (snapshot_store.cc) ----

// Moves the consumer's offset to `snapshot_id` (creating it); false, changing nothing, when it
// is already past it (offsets only move forward).
Result<bool> AdvanceOffset(Transaction& tx, int64_t dataset_id, std::string_view consumer,
                           int64_t snapshot_id, int64_t now_us);
// nullopt when the consumer never committed.
Result<std::optional<int64_t>> Offset(Transaction& tx, int64_t dataset_id,
                                      std::string_view consumer);

// ---- data files: planning and the change feed (snapshot_store.cc) ----

// Which live files of a snapshot LiveFiles streams.
struct LiveFileQuery {
  int64_t dataset_id = 0;
  int64_t snapshot_id = 0;
  bool current = false;  // snapshot_id is the dataset's current snapshot
  // The pushdown of a predicate on the current spec's partition key: the files of `spec_id`
  // whose key falls in the range, those whose key is NULL, and every file of an older spec;
  // each a range scan of data_files_live_partition, never an OR across them. nullopt: all.
  std::optional<KeyRange> key_range;
  int32_t spec_id = 0;
  // Paging by path: exclusive bounds, the order and the row count (keyset queries on the
  // index of live paths). Without `limit` the order is unspecified.
  std::optional<std::string> path_after, path_before;
  bool descending = false;
  std::optional<int64_t> limit;
};
// A live file as LiveFiles returns it: the file with its live deletion vector and that
// vector's row id.
struct LiveFile {
  PlannedFile planned;
  std::optional<int64_t> vector_id;
};
// Streams the rows of `query` to `fn`, which must not run statements (the connection is
// streaming).
Status LiveFiles(Transaction& tx, const LiveFileQuery& query,
                 const std::function<Status(LiveFile&)>& fn);
// The files the snapshots in (from, to] added (or, with `removed`, removed), by that snapshot
// then file id.
Result<std::vector<DataFile>> ChangedFiles(Transaction& tx, int64_t dataset_id, int64_t from,
                                           int64_t to, bool removed);
// The deletion vectors those snapshots added (or removed), likewise ordered.
Result<std::vector<ChangeSet::VectorChange>> ChangedVectors(Transaction& tx, int64_t dataset_id,
                                                            int64_t from, int64_t to, bool removed);

// ---- snapshots: the commit's inserts ----

// Queues the insert of `snaps` (the rows of one commit group of dataset `dataset_id`), in one
// statement (on PostgreSQL sent with the next statement or COMMIT). sources[i] is the standing
// source list snaps[i] leaves (provenance.h).
Status InsertSnapshots(Transaction& tx, int64_t dataset_id,
                       const std::vector<const SnapshotInfo*>& snaps,
                       const std::vector<std::string>& sources);

// ---- orphans: the rule Cleanup and the integrity sweep share ----

// Of `objects` (a warehouse listing), those last modified at least `grace_us` before `now_us`
// whose key no data_files row names (any dataset, incarnation or workspace; live, removed or
// of a dropped dataset) and no pending removal (removal_ledger, not yet deleted) names: what
// Cleanup may delete and the sweep reports as orphan_object. Run after the listing, so a file
// committed while the listing ran counts as named. Deletion vectors are stored inline (no
// vector names an object yet), so vectors are not looked up. Manifest objects (keys of
// ParseManifestKey's form) are never orphans: their snapshot names them, and StaleManifests
// decides the ones whose snapshot is gone. Indexed lookups by path, a few hundred keys a
// statement.
Result<std::vector<ObjectInfo>> Orphans(Transaction& tx, const std::vector<ObjectInfo>& objects,
                                        int64_t now_us, int64_t grace_us);

// ---- manifests (manifest.on_commit, tarn/manifest.h) ----

// The dataset uuid and snapshot id of a manifest key ("datasets/<uuid>/manifests/<id>.parquet",
// ManifestKey), nullopt for any other key.
struct ManifestRef {
  std::string dataset_uuid;
  int64_t snapshot_id = 0;
};
std::optional<ManifestRef> ParseManifestKey(std::string_view key);
// Of `objects`, the manifest objects last modified at least `grace_us` before `now_us` whose
// snapshot no longer exists (expired, or its dataset purged) and that no data_files row or
// pending removal names: what Cleanup deletes. A few hundred keys a statement.
Result<std::vector<ObjectInfo>> StaleManifests(Transaction& tx,
                                               const std::vector<ObjectInfo>& objects,
                                               int64_t now_us, int64_t grace_us);

// ---- the integrity sweep (fsck.cc) ----

// A live dataset as the sweep walks them.
struct SweepDataset {
  int64_t id = 0;
  std::string uuid;
  std::string name;  // w.c.d
  std::optional<int64_t> current_snapshot_id;
  int64_t total_files = 0, total_records = 0, total_bytes = 0;  // the dataset row's
};
// Live datasets with id > after_id (of `workspace` when not empty), by id, at most `limit`.
Result<std::vector<SweepDataset>> LiveDatasetsPage(Transaction& tx, std::string_view workspace,
                                                   int64_t after_id, int64_t limit);
// Ids above `after_id` (ascending, at most `limit`) of the datasets with live files whose
// statistics are pending (deferred statistics); dropped datasets included.
Result<std::vector<int64_t>> DatasetsWithPendingStats(Transaction& tx, int64_t after_id,
                                                      int64_t limit);
// The live dataset with this id as it is now; nullopt when it was dropped or purged.
Result<std::optional<SweepDataset>> LiveDatasetById(Transaction& tx, int64_t id);

// The name (w.c.d) of the live dataset whose uuid is `uuid`; nullopt when it was dropped or
// purged.
Result<std::optional<std::string>> LiveDatasetName(Transaction& tx, std::string_view uuid);

// What the sweep reads of a dataset's current snapshot.
struct SweepSnapshot {
  int64_t snapshot_id = 0;
  int64_t committed_at_us = 0;
  bool user_created = true;
  std::string operation;
  std::string receipt;  // as stored: "{}" = not recorded
  int64_t total_files = 0, total_records = 0, total_bytes = 0;
};
// nullopt when the dataset has no row for that snapshot.
Result<std::optional<SweepSnapshot>> SnapshotForSweep(Transaction& tx, int64_t dataset_id,
                                                      int64_t snapshot_id);

// One live data file with its live deletion vector's cardinality (0 without one).
struct SweepFile {
  std::string path;
  int64_t record_count = 0, file_size_bytes = 0, first_row_id = 0, deleted = 0;
  bool stores_row_ids = false;  // its stats name the row id field (DataFile::StoresRowIds)
};
// Streams the dataset's live data files to `fn`, by first_row_id (then id). `fn` must not run
// statements (the connection is streaming).
Status ForEachLiveFile(Transaction& tx, int64_t dataset_id,
                       const std::function<Status(const SweepFile&)>& fn);
// Streams every object key a row of the dataset names (data files live, removed but retained,
// and vectors stored as objects), each with what names it ("data file", "deletion vector").
Status ForEachReferencedKey(
    Transaction& tx, int64_t dataset_id,
    const std::function<Status(std::string_view key, std::string_view kind)>& fn);
// Of `keys`, those a row of the dataset still names.
Result<std::vector<std::string>> StillReferenced(Transaction& tx, int64_t dataset_id,
                                                 const std::vector<std::string>& keys);

// ---- periodic runs (migration 12) ----

// Claims the slot of periodic `step` due at or before `now`: moves its due time to
// `next_due` and names `runner`. False when the step is not due (another server ran it).
Result<bool> ClaimPeriodicRun(Transaction& tx, std::string_view step, int64_t now, int64_t next_due,
                              std::string_view runner);

}  // namespace tarn::catalog_store

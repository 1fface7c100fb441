// The catalog's tables and every statement on them, as typed functions: the callers keep the
// rules, the store keeps the SQL and the row mappings. Internal to the catalog module. Which
// file holds what:
//   store.cc             migrations 1, 2, 5, 12, 15, 16, 17, 18, 19 and 20 of the one global order;
//                        data file paths, the orphan rule, stale manifests, the integrity
//                        sweep's reads, periodic runs
//   dataset_store.cc     workspaces, collections, datasets, schema/spec/sort versions, the
//                        purge, location grants and file ownership (for datasets.cc, catalog.cc,
//                        catalog_internal.cc, locations.cc)
//   commit_store.cc      the commit's lock, its inserts of files and snapshots, file and vector
//                        removal, rollback's restore, the conflict checks' reads (commit.cc)
//   snapshot_store.cc    snapshots, tags, consumer offsets, planning and the change feed
//   maintenance_store.cc expiry, the removal ledger, deferred statistics (maintenance.cc,
//                        stats_hydration.cc)
//   provenance_store.cc  migration 10 and every statement on the provenance tables
//                        (provenance.h)
//   bounds_store.cc      the bounds index (migration 19): its rows, their upkeep and its query
//   inlined_store.cc     inlined files (migration 20): the bytes of small appends' files
// Access control and views have their own stores (access_store.h, views_store.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/provenance.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"
#include "table/bounds_index.h"
#include "table/predicate.h"
#include "tarn/dataset.h"
#include "tarn/provenance.h"

namespace tarn::catalog_store {

// "(?, ?, ?), (?, ?, ?)": the VALUES list of a multi-row INSERT of `rows` rows of `cols`
// parameters, for every store of the catalog's tables.
std::string Placeholders(size_t rows, size_t cols);
// "workspace.collection.dataset" from the three text columns of `r` starting at `first` (the
// w.name, c.name, d.name of a join from datasets to their collection and workspace).
Result<std::string> QualifiedNameAt(const Row& r, int first);

// Migrations 1 (catalog core), 2 (datasets at work), 5 (file isolation), 12 (periodic runs),
// 15 (the snapshots' row id watermark), 16 (deletion vectors by file), 17 (deferred statistics)
// and 18 (expiry without foreign-key checks), contributed to SchemaMigrations() (store.cc).
const std::vector<Migration>& CatalogTables();

// A field the dataset indexes, with its type in the schema of the moment
// (bounds_store.cc).
struct BoundsField {
  int32_t field_id = 0;
  DataType type;
};

// ---- workspaces (dataset_store.cc) ----

// The id of the workspace of that name; nullopt when there is none.
Result<std::optional<int64_t>> WorkspaceIdByName(Transaction& tx, std::string_view name);
// The workspace of that name with its collection count; nullopt when there is none.
Result<std::optional<WorkspaceInfo>> WorkspaceByName(Transaction& tx, std::string_view name);
// Every workspace, by name; empty when there is none.
Result<std::vector<WorkspaceInfo>> Workspaces(Transaction& tx);
// Creates the workspace (properties without the protection keys, which go to their columns;
// nullopt: never set); false, changing nothing, when one of that name exists.
Result<bool> InsertWorkspace(Transaction& tx, std::string_view name, const PropertyMap& properties,
                             std::optional<std::string_view> deletion_protection,
                             std::optional<std::string_view> egress_protection, int64_t now_us);
// Writes w's properties and both protection values over the row w.id (no row: nothing changes).
Status UpdateWorkspaceProperties(Transaction& tx, const WorkspaceInfo& w, int64_t now_us);
// Deletes the workspace row (no row: nothing changes; a collection of it: kFailedPrecondition).
Status DeleteWorkspace(Transaction& tx, int64_t workspace_id);
// The raw deletion_protection of the workspace of that name; nullopt when never set or there
// is no such workspace.
Result<std::optional<std::string>> WorkspaceDeletionProtection(Transaction& tx,
                                                               std::string_view workspace);

// ---- collections (dataset_store.cc) ----

// The id of the workspace's collection of that name; nullopt when there is none.
Result<std::optional<int64_t>> CollectionIdByName(Transaction& tx, int64_t workspace_id,
                                                  std::string_view name);
// A collection row's id and properties as stored ("description" among them).
struct StoredCollection {
  int64_t id = 0;
  PropertyMap properties;
};
// The workspace's collection of that name; nullopt when there is none.
Result<std::optional<StoredCollection>> StoredCollectionByName(Transaction& tx,
                                                               int64_t workspace_id,
                                                               std::string_view name);
// Creates the collection (properties with "description"); false, changing nothing, when the
// workspace has one of that name.
Result<bool> InsertCollection(Transaction& tx, int64_t workspace_id, std::string_view name,
                              const PropertyMap& properties, int64_t now_us);
// The workspace's collections with their dataset counts, by name; empty when it has none.
Result<std::vector<CollectionInfo>> Collections(Transaction& tx, int64_t workspace_id);
// The workspace's collection of that name with its dataset counts; nullopt when there is none.
Result<std::optional<CollectionInfo>> CollectionByName(Transaction& tx, int64_t workspace_id,
                                                       std::string_view name);
// How many dataset rows (live and dropped) the collection holds; 0 when none.
Result<int64_t> CountDatasets(Transaction& tx, int64_t collection_id);
// Deletes the collection row (no row: nothing changes; a dataset of it: kFailedPrecondition).
Status DeleteCollection(Transaction& tx, int64_t collection_id);
// Replaces the collection's properties (no row: nothing changes).
Status UpdateCollectionProperties(Transaction& tx, int64_t collection_id,
                                  const PropertyMap& properties, int64_t now_us);

// ---- datasets (dataset_store.cc) ----

// A dataset to create: its row, schema 0 and partition spec 0.
struct NewDataset {
  std::string uuid;
  int64_t collection_id = 0;
  std::string name;
  std::string description;
  PropertyMap properties;
  int32_t last_field_id = 0;
  SortOrder sort_order;
  Schema schema;
  PartitionSpec spec;
};
// Creates the live dataset with its schema 0 and spec 0 and returns its id; nullopt, inserting
// nothing, when the collection has a live dataset of that name.
Result<std::optional<int64_t>> InsertDataset(Transaction& tx, const NewDataset& d, int64_t now_us);
// The live dataset of that name with its current schema and spec (`specs` left empty); nullopt
// when there is none.
Result<std::optional<DatasetInfo>> LiveDatasetByName(Transaction& tx, const DatasetName& n);
// The collection's live datasets, likewise, by name; empty when it has none.
Result<std::vector<DatasetInfo>> LiveDatasetsOf(Transaction& tx, int64_t collection_id);
// A dataset name of a collection and whether that incarnation was dropped.
struct DatasetNameRow {
  std::string name;
  bool dropped = false;
};
// Every dataset row's name in the collection, live and dropped, by name; empty when none.
Result<std::vector<DatasetNameRow>> DatasetNamesOf(Transaction& tx, int64_t collection_id);
// Locks the live dataset row without changing it (catalog_internal::LockDataset); false when
// there is none.
Result<bool> LockLiveDatasetRow(Transaction& tx, const DatasetName& n);
// Whether a live dataset named `name` is in the collection of dataset `dataset_id`; false when
// none is.
Result<bool> SiblingNamed(Transaction& tx, int64_t dataset_id, std::string_view name);
// Renames the dataset row (no row: nothing changes).
Status SetDatasetName(Transaction& tx, int64_t dataset_id, std::string_view name, int64_t now_us);
// One incarnation of a dataset name.
struct DatasetIncarnation {
  int64_t id = 0;
  std::string uuid;
  bool live = false;  // not dropped
};
// Every incarnation of the name, live and dropped; empty when there is none.
Result<std::vector<DatasetIncarnation>> DatasetIncarnations(Transaction& tx, const DatasetName& n);
// Marks the dataset dropped (no row: nothing changes).
Status MarkDatasetDropped(Transaction& tx, int64_t dataset_id, int64_t dropped_at_us,
                          int64_t updated_at_us);
// The purge of one incarnation: its file paths enter the removal ledger (reason purge, unless
// there already), its ledger rows stop naming it, and its rows of tags, consumer_offsets,
// deletion_vectors, data_files, snapshots, dataset_schemas, dataset_partition_specs,
// dataset_locations and datasets are deleted, in that order (no row: nothing changes).
Status PurgeDatasetRows(Transaction& tx, int64_t dataset_id, int64_t now_us);
// Replaces the dataset's properties and description (no row: nothing changes).
Status UpdateDatasetProperties(Transaction& tx, int64_t dataset_id, const PropertyMap& properties,
                               std::string_view description, int64_t now_us);

// ---- schemas, partition specs and sort orders (dataset_store.cc) ----

// The dataset's schema with that id; nullopt when it has none.
Result<std::optional<Schema>> SchemaById(Transaction& tx, int64_t dataset_id, int64_t schema_id);
// The dataset's partition spec with that id; nullopt when it has none.
Result<std::optional<PartitionSpec>> SpecById(Transaction& tx, int64_t dataset_id, int64_t spec_id);
// Every partition spec of the dataset, by id; empty when it has none.
Result<std::vector<PartitionSpec>> Specs(Transaction& tx, int64_t dataset_id);
// The schema id a snapshot was committed with; nullopt when the dataset has no such snapshot.
Result<std::optional<int64_t>> SnapshotSchemaId(Transaction& tx, int64_t dataset_id,
                                                int64_t snapshot_id);
// The highest schema id of the dataset (a dataset always has schema 0; none is an error).
Result<int64_t> MaxSchemaId(Transaction& tx, int64_t dataset_id);
// Adds a schema version (an existing id: kAlreadyExists).
Status InsertSchema(Transaction& tx, int64_t dataset_id, int64_t schema_id, const Schema& schema,
                    int64_t now_us);
// Makes `schema_id` the dataset's current schema (no row: nothing changes).
Status SetCurrentSchema(Transaction& tx, int64_t dataset_id, int64_t schema_id,
                        int32_t last_field_id, int64_t now_us);
// The highest partition spec id of the dataset (a dataset always has spec 0; none is an error).
Result<int64_t> MaxSpecId(Transaction& tx, int64_t dataset_id);
// Adds a partition spec version with id `spec_id` (an existing id: kAlreadyExists).
Status InsertSpec(Transaction& tx, int64_t dataset_id, int64_t spec_id, const PartitionSpec& spec,
                  int64_t now_us);
// Makes `spec_id` the dataset's current partition spec (no row: nothing changes).
Status SetCurrentSpec(Transaction& tx, int64_t dataset_id, int64_t spec_id, int64_t now_us);
// Replaces the dataset's sort order (no row: nothing changes).
Status SetSortOrder(Transaction& tx, int64_t dataset_id, const SortOrder& order, int64_t now_us);

// ---- location grants and file ownership (dataset_store.cc) ----

// A dataset row's id and uuid (its incarnation).
struct DatasetKey {
  int64_t id = 0;
  std::string uuid;
};
// The id and uuid of the live dataset of that name; nullopt when there is none.
Result<std::optional<DatasetKey>> LiveDatasetKey(Transaction& tx, const DatasetName& n);
// Whether the dataset has a snapshot committed with this idempotency key; false when none.
Result<bool> IdempotencyKeyCommitted(Transaction& tx, int64_t dataset_id, std::string_view key);
// The location prefixes granted to the dataset, in no order; empty when none.
Result<std::vector<std::string>> GrantedPrefixes(Transaction& tx, int64_t dataset_id);
// One of `paths` that a data_files row of another dataset (any workspace, incarnation, live or
// in history) or a pending removal not of this dataset names, a few hundred paths a statement;
// nullopt when none is.
Result<std::optional<std::string>> PathOfAnotherDataset(Transaction& tx, int64_t dataset_id,
                                                        const std::vector<std::string>& paths);
// The prefixes granted to the other live datasets, in no order; empty when none.
Result<std::vector<std::string>> OtherLiveDatasetsPrefixes(Transaction& tx, int64_t dataset_id);
// Grants the location (already granted: nothing changes).
Status InsertLocation(Transaction& tx, int64_t dataset_id, std::string_view prefix,
                      std::string_view granted_by, int64_t now_us);
// Revokes the location; false when it was not granted.
Result<bool> DeleteLocation(Transaction& tx, int64_t dataset_id, std::string_view prefix);
// The dataset's grants, by prefix; empty when none.
Result<std::vector<LocationGrant>> Locations(Transaction& tx, int64_t dataset_id);

// ---- commits (commit_store.cc) ----

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
  std::vector<int32_t> bounds_fields;  // the fields the bounds index holds (migration 19)
};
// Locks the live dataset `n` (the per-dataset serialization point of commits: under
// TxMode::kLockingWrite a concurrent commit waits here) and applies `delta`; commit time never
// goes backwards (last_commit_at = max(last_commit_at, now_us)). nullopt when there is no live
// dataset of that name.
Result<std::optional<LockedDataset>> LockDataset(Transaction& tx, const DatasetName& n,
                                                 const LockDelta& delta, int64_t now_us);

// The schema and partition spec versions a commit writes with.
struct DefinitionVersions {
  Schema schema;
  PartitionSpec spec;
};
// The dataset's schema `schema_id` and spec `spec_id`; nullopt when either is missing.
Result<std::optional<DefinitionVersions>> Definitions(Transaction& tx, int64_t dataset_id,
                                                      int64_t schema_id, int64_t spec_id);
// The dataset's expiry frontier (an id without a row is an error).
Result<int64_t> ExpiredThrough(Transaction& tx, int64_t dataset_id);
// Queues adding to the dataset's running totals (deferred like InsertSnapshots; no row:
// nothing changes).
Status AddDatasetTotals(Transaction& tx, int64_t dataset_id, int64_t files, int64_t records,
                        int64_t bytes);
// The snapshot the live dataset `n` committed with idempotency key `key`; nullopt when none
// did (or there is no such live dataset).
Result<std::optional<SnapshotInfo>> LiveSnapshotByIdempotencyKey(Transaction& tx,
                                                                 const DatasetName& n,
                                                                 std::string_view key);
// How many snapshots in (after, through] are neither appends nor row deletes; 0 when none.
Result<int64_t> CountRewritesBetween(Transaction& tx, int64_t dataset_id, int64_t after,
                                     int64_t through);
// Queues the insert of `snaps` (the rows of one commit group of dataset `dataset_id`), in one
// statement (on PostgreSQL sent with the next statement or COMMIT). sources[i] is the standing
// source list snaps[i] leaves (provenance.h). Nothing for none.
Status InsertSnapshots(Transaction& tx, int64_t dataset_id,
                       const std::vector<const SnapshotInfo*>& snaps,
                       const std::vector<std::string>& sources);

// Queues the inserts of data file rows (their added_snapshot_id and first_row_id already
// assigned; the partition key from `spec` and `schema`), several hundred a statement, with
// their bounds index rows for `bounds` (InsertFileBounds, queued too). Nothing for none.
Status InsertDataFiles(Transaction& tx, int64_t dataset_id, const std::vector<DataFile*>& files,
                       const PartitionSpec& spec, const Schema& schema,
                       const std::vector<BoundsField>& bounds);
// What marking files removed took out of the dataset.
struct RemovedFiles {
  int64_t files = 0, records = 0, bytes = 0;
  int64_t deleted_rows = 0;  // the cardinality of the live deletion vectors removed with them
};
// Marks every live file of the dataset removed at `snapshot_id`, with its live deletion
// vector; all zero when there is none.
Result<RemovedFiles> MarkLiveFilesRemoved(Transaction& tx, int64_t dataset_id, int64_t snapshot_id);
// The same for the live files added after snapshot `after`.
Result<RemovedFiles> MarkFilesAddedAfterRemoved(Transaction& tx, int64_t dataset_id,
                                                int64_t snapshot_id, int64_t after);
// The same for the live files at `paths`, a few hundred a statement (a path not live is
// skipped: compare `files` with the count asked for).
Result<RemovedFiles> MarkFilesRemoved(Transaction& tx, int64_t dataset_id, int64_t snapshot_id,
                                      const std::vector<std::string>& paths);
// A live file with its live deletion vector, if any.
struct LiveFileVector {
  int64_t file_id = 0, record_count = 0, file_size_bytes = 0;
  std::optional<int64_t> vector_id;  // nullopt: no live vector (cardinality 0, no positions)
  int64_t cardinality = 0;
  std::string positions;  // the encoded vector (table/deletion_vector.h)
};
// The dataset's live file at `path`; nullopt when no live file has that path.
Result<std::optional<LiveFileVector>> LiveFileByPath(Transaction& tx, int64_t dataset_id,
                                                     std::string_view path);
// Marks one file row removed at `snapshot_id` (no row: nothing changes).
Status MarkFileRemoved(Transaction& tx, int64_t file_id, int64_t snapshot_id);
// The files live at snapshot `target` but removed since whose path no live row has (what a
// rollback to it restores); empty when none.
Result<std::vector<DataFile>> FilesToRestore(Transaction& tx, int64_t dataset_id, int64_t target);
// Copies a file row as added at `snapshot_id` (same path, rows and statistics) and returns the
// new row's id (an id without a row is an error).
Result<int64_t> CopyFileRow(Transaction& tx, int64_t file_id, int64_t snapshot_id);
// Whether every one of `paths` (a compaction's inputs) is a live file of the dataset added at
// or before `read` no deletion vector of which was added or removed after `read`, a few hundred
// paths a statement; false at the first group that is not (true for none).
Result<bool> CompactInputsUnchanged(Transaction& tx, int64_t dataset_id, int64_t read,
                                    const std::vector<std::string>& paths);

// Adds a deletion vector of a file, live from `snapshot_id` (`positions` encoded).
Status InsertDeletionVector(Transaction& tx, int64_t dataset_id, int64_t file_id,
                            int64_t snapshot_id, int64_t cardinality, std::string_view positions);
// Marks one deletion vector removed at `snapshot_id` (no row: nothing changes).
Status MarkVectorRemoved(Transaction& tx, int64_t vector_id, int64_t snapshot_id);
// The same, returning the vector's cardinality (an id without a row is an error).
Result<int64_t> MarkVectorRemovedCounted(Transaction& tx, int64_t vector_id, int64_t snapshot_id);
// A deletion vector as stored.
struct StoredVector {
  int64_t cardinality = 0;
  std::string positions;
};
// The file's deletion vector live at `snapshot_id`; nullopt when it had none.
Result<std::optional<StoredVector>> VectorAt(Transaction& tx, int64_t file_id, int64_t snapshot_id);
// A live file's deletion vector now and at a snapshot (ids; nullopt: none).
struct FileVectors {
  int64_t file_id = 0;
  std::optional<int64_t> now, then;
};
// For every file live now and at snapshot `target`, its live vector and the one live at the
// target; empty when no file is.
Result<std::vector<FileVectors>> VectorsNowAndAt(Transaction& tx, int64_t dataset_id,
                                                 int64_t target);
// The snapshot that added each of the dataset's deletion vectors `vector_ids` (ids without a
// row are left out).
Result<std::map<int64_t, int64_t>> VectorsAddedAt(Transaction& tx, int64_t dataset_id,
                                                  const std::vector<int64_t>& vector_ids);
// Copies a deletion vector to file `file_id`, live from `snapshot_id`, and returns its
// cardinality (an id without a row is an error).
Result<int64_t> CopyVector(Transaction& tx, int64_t vector_id, int64_t file_id,
                           int64_t snapshot_id);

// ---- inlined files (inlined_store.cc) ----
// The bytes of data files kept in the metastore (docs/design/catalog-core.md "Inlined
// appends"), by path.

struct InlinedFile {
  std::string path;
  std::string bytes;
};
// Deferred: sent with the commit's next statement. Each file is (path, bytes).
Status InsertInlinedFiles(Transaction& tx, int64_t dataset_id,
                          const std::vector<std::pair<std::string_view, std::string_view>>& files,
                          int64_t now_us);
// The bytes of one file, nullopt when none are kept for it (never inlined, written out, or
// deleted).
Result<std::optional<std::string>> InlinedFileBytes(Transaction& tx, std::string_view path);
// Forgets the kept bytes of `paths`; returns those that were kept (the others were forgotten
// already, or never kept).
Result<std::vector<std::string>> DeleteInlinedFiles(Transaction& tx,
                                                    const std::vector<std::string>& paths);
// A page of a dataset's inlined files by path: those after `after_path`, at most `limit`.
Result<std::vector<InlinedFile>> InlinedFilesPage(Transaction& tx, int64_t dataset_id,
                                                  std::string_view after_path, int64_t limit);
// How many files a dataset keeps inlined, and their bytes.
struct InlinedTotals {
  int64_t files = 0;
  int64_t bytes = 0;
};
Result<InlinedTotals> InlinedFileTotals(Transaction& tx, int64_t dataset_id);
// The ids of the datasets (dropped ones included) that keep any inlined file, ascending: one
// statement over the table's dataset index, so housekeeping's flush step costs nothing more
// where nothing is inlined.
Result<std::vector<int64_t>> DatasetsWithInlinedFiles(Transaction& tx);

// ---- data_files (store.cc) ----

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
// The dataset's snapshot with this id; nullopt when it has none.
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
  // Only these file rows (the bounds index's candidates), a few hundred ids a statement; then
  // `key_range`, `descending` and `limit` are not used and the order is unspecified.
  const std::vector<int64_t>* file_ids = nullptr;
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

// ---- the bounds index (bounds_store.cc; migration 19, table/bounds_index.h) ----

// The field ids of `datasets.bounds_fields` ("3,7"; empty: none).
std::vector<int32_t> ParseBoundsFields(std::string_view text);
// The fields the dataset indexes (its `bounds_fields`).
Result<std::vector<int32_t>> BoundsFields(Transaction& tx, int64_t dataset_id);
// The fields of `ids` in `schema`, with their types (ids no longer in it are left out).
std::vector<BoundsField> BoundsFieldsIn(const std::vector<int32_t>& ids, const Schema& schema);
// Sets them.
Status SetBoundsFields(Transaction& tx, int64_t dataset_id, const std::vector<int32_t>& ids);
// Queues the index rows of files just inserted as live rows (found by their live paths), a
// few hundred rows a statement. Nothing when `fields` is empty.
Status InsertFileBounds(Transaction& tx, int64_t dataset_id, const std::vector<DataFile*>& files,
                        const std::vector<BoundsField>& fields);
// The rows of every file row of the dataset (live and removed) for `fields`, replacing any.
// Reads every file's statistics: the cost of a full listing.
Status BuildFieldBounds(Transaction& tx, int64_t dataset_id,
                        const std::vector<BoundsField>& fields);
// The rows of the file rows at `path` (live or not) again, from their statistics (deferred
// statistics just filled in). Nothing when `fields` is empty.
Status RebuildFileBounds(Transaction& tx, int64_t dataset_id, std::string_view path,
                         const std::vector<BoundsField>& fields);
// Removes the rows of field `field_id`.
Status DeleteFieldBounds(Transaction& tx, int64_t dataset_id, int32_t field_id);
// Copies the rows of file row `from` to file row `to` (rollback's restore).
Status CopyFileBounds(Transaction& tx, int64_t from, int64_t to);
// A file row whose index row for a field differs from what its statistics give
// (CheckFileBounds): missing, stale (other bounds, or a file that needs none), or stored at the
// wrong node. `want` and `have` say each side in words.
struct BoundsMismatch {
  std::string path;
  int64_t file_id = 0;
  int32_t field_id = 0;
  std::string field;  // its name in the current schema
  std::string want, have;
};
// Compares the index rows of every file row of the dataset (live and removed, as the planner
// asks them) with the entries their statistics give for each field the dataset indexes
// (`bounds_fields`, in the current schema); `fn` gets each mismatch. One streamed pass over the
// file rows per indexed field: the cost of a full listing each.
Status CheckFileBounds(Transaction& tx, int64_t dataset_id,
                       const std::function<Status(const BoundsMismatch&)>& fn);
// The ids of the file rows whose entry for `field_id` meets any of `intervals` or is unknown,
// sorted and distinct, whether live or not; nullopt when there are more than `limit`.
Result<std::optional<std::vector<int64_t>>> BoundsCandidates(
    Transaction& tx, int64_t dataset_id, int32_t field_id,
    const std::vector<bounds_index::Interval>& intervals, int64_t limit);

// ---- expiry (maintenance_store.cc) ----

// The newest snapshot committed before `before_us`; nullopt when none was.
Result<std::optional<int64_t>> LastSnapshotBefore(Transaction& tx, int64_t dataset_id,
                                                  int64_t before_us);
// The lowest snapshot a consumer offset of the dataset holds; nullopt when it has none.
Result<std::optional<int64_t>> LowestConsumerOffset(Transaction& tx, int64_t dataset_id);
// How many snapshots at or before `through` no tag holds (what expiry to `through` deletes); 0
// when none.
Result<int64_t> CountExpirableSnapshots(Transaction& tx, int64_t dataset_id, int64_t through);
// How many paths expiry to `through` releases: of the file rows nothing retained needs then
// (no tagged snapshot sees them), the paths no surviving row names and the ledger does not
// hold yet; 0 when none.
Result<int64_t> CountReleasablePaths(Transaction& tx, int64_t dataset_id, int64_t through);
// Records those paths in the removal ledger (reason expired) and returns how many; 0 when none.
Result<int64_t> LedgerReleasedPaths(Transaction& tx, int64_t dataset_id, int64_t through,
                                    int64_t now_us);
// Deletes the file rows nothing retained needs at `through` (every vector of them first) and
// the vectors replaced at or before it that no tagged snapshot sees (none: nothing changes).
Status DeleteDeadFiles(Transaction& tx, int64_t dataset_id, int64_t through);
// Deletes the snapshots at or before `through`, never a tagged one (none: nothing changes).
Status DeleteExpiredSnapshots(Transaction& tx, int64_t dataset_id, int64_t through);
// Moves the dataset's expiry frontier (no row: nothing changes).
Status SetExpiredThrough(Transaction& tx, int64_t dataset_id, int64_t through);

// ---- the removal ledger (maintenance_store.cc) ----

// A pending removal: a ledger row whose object is not deleted yet.
struct PendingRemoval {
  int64_t id = 0;
  std::string path;
};
// Pending removals with id > after_id that no data_files row names, by id, at most `limit`;
// empty when none.
Result<std::vector<PendingRemoval>> PendingRemovalsPage(Transaction& tx, int64_t after_id,
                                                        int64_t limit);
// Records the ledger row's object deleted (no row: nothing changes).
Status MarkRemovalDeleted(Transaction& tx, int64_t id, int64_t now_us);

// ---- deferred statistics (maintenance_store.cc) ----

// A live file registered with its statistics pending.
struct PendingStatsFile {
  std::string path;
  int64_t record_count = 0;
  int64_t file_size_bytes = 0;
};
// The dataset's live files with statistics pending, by row id, at most `limit` (0: all); empty
// when none.
Result<std::vector<PendingStatsFile>> PendingStatsFiles(Transaction& tx, int64_t dataset_id,
                                                        int64_t limit);
// Fills the statistics of every row of the dataset at `path` still pending and returns how many
// it filled; 0 when none was.
Result<int64_t> FillPendingStats(Transaction& tx, int64_t dataset_id, std::string_view path,
                                 const std::vector<ColumnStats>& stats);
// How many live files of the dataset have their statistics pending; 0 when none.
Result<int64_t> CountPendingStats(Transaction& tx, int64_t dataset_id);

// ---- provenance (provenance_store.cc; migration 10, provenance.h) ----

// Queues the commit's reads into the readers index, each once (deferred; nothing for none).
Status InsertSnapshotReads(Transaction& tx, int64_t dataset_id,
                           const std::vector<provenance::ReadRow>& rows);
// Queues writing `after` as the dataset's standing source list and bringing the consumers
// index from `before` up to it (deferred).
Status StoreSourceList(Transaction& tx, int64_t dataset_id, const provenance::SourceList& before,
                       const provenance::SourceList& after);
// The source list snapshot `snapshot_id` left; nullopt when the row has none (before migration
// 10) or there is no such snapshot.
Result<std::optional<std::string>> SnapshotSourceList(Transaction& tx, int64_t dataset_id,
                                                      int64_t snapshot_id);
// Expiry: forgets the reads of snapshots <= through that no tag keeps (none: nothing changes).
Status ForgetExpiredReads(Transaction& tx, int64_t dataset_id, int64_t through);
// Purge: deletes every row of the dataset's own reads and consumers index (none: nothing
// changes).
Status ForgetProvenance(Transaction& tx, int64_t dataset_id);
// Live datasets whose standing list names `source_uuid`, by name, at most limit + 1; empty
// when none.
Result<std::vector<Consumer>> Consumers(Transaction& tx, std::string_view source_uuid,
                                        size_t limit);
// Snapshots whose receipt read `source_uuid` (at `version` when set), newest first, at most
// limit + 1; empty when none.
Result<std::vector<ReaderEntry>> Readers(Transaction& tx, std::string_view source_uuid,
                                         std::optional<int64_t> version, size_t limit);
// The dataset's snapshots (only `snapshot` when set), newest first, at most `limit`; empty when
// none.
Result<std::vector<SnapshotInfo>> LineageSnapshots(Transaction& tx, int64_t dataset_id,
                                                   std::optional<int64_t> snapshot, size_t limit);

// ---- orphans: the rule Cleanup and the integrity sweep share (store.cc) ----

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

// ---- manifests (manifest.on_commit, tarn/manifest.h; store.cc) ----

// The dataset uuid and snapshot id of a manifest key ("datasets/<uuid>/manifests/<id>.parquet",
// ManifestKey) or of an object of the Iceberg metadata of a snapshot (IcebergMetadataDir, then
// "<id>-<name>": iceberg.cc), nullopt for any other key. Snapshot 0 names the metadata of a
// dataset without snapshots (stale once it is old: a later request writes it again).
struct ManifestRef {
  std::string dataset_uuid;
  int64_t snapshot_id = 0;
};
std::optional<ManifestRef> ParseManifestKey(std::string_view key);
// Where the Iceberg metadata of a dataset is kept, for one way of naming objects (`flavour`, one
// key segment): "datasets/<uuid>/iceberg/<flavour>/metadata/" (docs/design/iceberg.md).
std::string IcebergMetadataDir(std::string_view dataset_uuid, std::string_view flavour);
// Of `objects`, the manifest objects last modified at least `grace_us` before `now_us` whose
// snapshot no longer exists (expired, or its dataset purged) and that no data_files row or
// pending removal names: what Cleanup deletes. A few hundred keys a statement.
Result<std::vector<ObjectInfo>> StaleManifests(Transaction& tx,
                                               const std::vector<ObjectInfo>& objects,
                                               int64_t now_us, int64_t grace_us);

// ---- the integrity sweep (fsck.cc; store.cc) ----

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

// ---- periodic runs (migration 12; store.cc) ----

// Claims the slot of periodic `step` due at or before `now`: moves its due time to
// `next_due` and names `runner`. False when the step is not due (another server ran it).
Result<bool> ClaimPeriodicRun(Transaction& tx, std::string_view step, int64_t now, int64_t next_due,
                              std::string_view runner);

}  // namespace tarn::catalog_store

// Helpers shared by the catalog's .cc files. Not part of the catalog's interface.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "catalog/views_store.h"
#include "datafile/writer.h"
#include "metastore/metastore.h"

namespace tarn::catalog_internal {

// The embedded layout of a directory: `<dir>/catalog.db` and `<dir>/warehouse`, created
// (0700) when missing.
struct EmbeddedPaths {
  std::string metastore, warehouse;
};
Result<EmbeddedPaths> EmbeddedLayout(std::string_view dir);

Status WorkspaceNotFound(std::string_view name);
Status CollectionNotFound(const CollectionName& n);
// kNotFound with code=dataset_not_found (or the workspace/collection error when that is what is
// missing).
Status DatasetNotFound(Transaction& tx, const DatasetName& n);

std::string EncodeProperties(const PropertyMap& props);
Result<PropertyMap> DecodeProperties(std::string_view text);
Status ValidatePropertyKeys(const PropertyMap& props);

Result<int64_t> WorkspaceId(Transaction& tx, std::string_view name);
// The id of a collection; kNotFound (workspace_not_found / collection_not_found).
Result<int64_t> CollectionId(Transaction& tx, const CollectionName& cn);

// The live dataset of that name (dropped ones are invisible), or kNotFound.
Result<DatasetInfo> LoadLiveDataset(Transaction& tx, const DatasetName& n);
// Locks the live dataset row (PostgreSQL: until commit, so run in TxMode::kLockingWrite or
// expect retries; SQLite holds the write lock anyway) and returns the dataset as committed now,
// or kNotFound. Expiry and tag changes take it, commits lock the same row
// (catalog_store::LockDataset): on one dataset they take turns and each sees the others' whole.
Result<DatasetInfo> LockDataset(Transaction& tx, const DatasetName& n);
// The schema with id `schema_id` of a dataset.
Result<Schema> LoadSchema(Transaction& tx, int64_t dataset_id, int64_t schema_id);
Result<PartitionSpec> LoadSpec(Transaction& tx, int64_t dataset_id, int64_t spec_id);
// Every partition spec of a dataset, by id.
Result<std::vector<PartitionSpec>> LoadSpecs(Transaction& tx, int64_t dataset_id);
// Replaces ds->schema (and schema_id) with the schema snapshot `snapshot_id` was committed with.
Status UseSnapshotSchema(Transaction& tx, DatasetInfo* ds, int64_t snapshot_id);

// Snapshot rows: columns for SnapshotFromRow over `snapshots sn JOIN datasets d`, shared by
// the store files (snapshot_store.cc, commit_store.cc, provenance_store.cc).
extern const char kSnapshotColumns[];
Result<SnapshotInfo> SnapshotFromRow(const Row& r);
// The snapshot id a selector resolves to for the dataset, with how it was resolved
// ("current", "snapshot", "time", "tag:<name>"); kNotFound (code=snapshot_not_found) when there
// is none, kExpired (code=snapshot_expired) when it expired. nullopt for the current snapshot of
// a dataset without commits.
struct ResolvedSnapshot {
  std::optional<int64_t> snapshot_id;
  std::string resolved_by;
};
Result<ResolvedSnapshot> ResolveSnapshot(Transaction& tx, const DatasetInfo& ds,
                                         const SnapshotSelector& at);

// The snapshot of a live dataset committed with `key`, if any (marked idempotent_replay).
Result<std::optional<SnapshotInfo>> FindByIdempotencyKey(Metastore& ms, const DatasetName& n,
                                                         const std::string& key);

// Reserved tag names: they resolve to snapshots and cannot be created.
bool IsReservedTag(std::string_view name);

// The data_files columns for DataFileFromRow (alias f), shared by the store files
// (snapshot_store.cc, commit_store.cc).
extern const char kDataFileColumns[];
inline constexpr int kDataFileColumnCount = 12;
Result<DataFile> DataFileFromRow(const Row& r, size_t first_col = 0);

// Deletes files a failed write left (best effort: an error is logged, Cleanup finds the rest).
void DeleteQuietly(ObjectStore& store, const std::vector<DataFile>& files);
// Whether a row may name one of `files` (written together) after a commit of them failed: true
// when one does, or when that cannot be read (the files then stay for Cleanup's orphan sweep).
bool MayBeRegistered(Metastore& ms, const std::vector<DataFile>& files);

// The warehouse key prefix of a dataset's files: "datasets/<uuid>/".
std::string DatasetPrefix(std::string_view uuid);

// invalid_property (field property) when `props` sets kBloomFilterColumnsProperty to a name
// that is not a flat, non-BOOLEAN column or STRUCT member of `schema` (datasets.cc).
Status ValidateBloomFilterSetting(const PropertyMap& props, const Schema& schema);
// invalid_property (field property) when `props` sets kBoundsIndexColumnsProperty to a name
// that is not a scalar column or STRUCT member of `schema` (datasets.cc).
Status ValidateBoundsIndexSetting(const PropertyMap& props, const Schema& schema);
// A column list property `key` of `props` (kBloomFilterColumnsProperty,
// kBoundsIndexColumnsProperty) after a schema change from `before` to `after`: renamed columns
// under their new names, dropped ones left out (nullopt: nothing to change).
std::optional<std::string> ColumnListSettingAfter(const PropertyMap& props, std::string_view key,
                                                  const Schema& before, const Schema& after);
// Brings the bounds index of dataset `dataset_id` in line with its kBoundsIndexColumnsProperty
// in `props` and its schema `after` (changed from `before`, or nullptr when it did not change):
// rows of fields that left it go, fields that joined it (or changed type) get rows for every
// file row, and datasets.bounds_fields is updated. Run under the dataset's lock.
Status SyncBoundsIndex(Transaction& tx, int64_t dataset_id, const PropertyMap& props,
                       const Schema* before, const Schema& after);
// The field ids of BloomFilterColumns(props, schema): the columns and members whose `=` and IN
// predicates planning asks the files' bloom filters about.
std::vector<int32_t> BloomFilterFieldIds(const PropertyMap& props, const Schema& schema);
// How the catalog writes data files of `ds` as `schema` (its current one, or the one a
// compaction writes): under the dataset's prefix, with the bloom filters its property names.
DataWriteOptions DataWriteOptionsFor(const DatasetInfo& ds, const Schema& schema);

// Streams the live files of `ds` at `snapshot_id` (`current`: the dataset's current snapshot)
// that `pred` may match (every one without a predicate), each with its live deletion vector and
// that vector's row id in deletion_vectors (planning.cc; PlanFiles and the manifest export).
// `fn` must not run statements (the connection is streaming).
Status ForEachPlannedFile(
    Transaction& tx, const DatasetInfo& ds, int64_t snapshot_id, bool current,
    const BoundPredicate* pred,
    const std::function<Status(const PlannedFile&, std::optional<int64_t> vector_id)>& fn);
// kInvalidArgument (code=invalid_property) when `props` sets manifest.on_commit to anything but
// true or false (any case) (manifest.cc).
Status ValidateManifestSetting(const PropertyMap& props);
// invalid_property (field property) for a `retention` that is not a duration, or a
// `retention.consumer_floor` or `compaction.auto` that is not true/false, among properties
// being set (maintenance.cc).
Status ValidateRetentionSetting(const PropertyMap& props);

// What CheckAddedFiles checks beyond ownership.
struct AddedFileChecks {
  // Keys under this prefix count as the dataset's own too (an upload contract's staging area).
  std::string also_owned_prefix;
  // Head every file: it must exist and be a regular object.
  bool head = true;
  // The files state their sizes (a Head must agree); else the sizes are taken from the Heads.
  bool sizes_stated = true;
};

// Checks that every file `part` adds may be registered into its dataset (locations.cc): its
// key (normalised in place by WarehouseKey) is under the live dataset's own prefix
// "datasets/<uuid>/", `also_owned_prefix` or a location granted to the dataset, and no other
// dataset references it (data_files or a pending removal); otherwise kPermissionDenied
// code=path_not_owned, one answer for every such case. Then each file must exist
// (code=file_not_found), be a regular object (code=not_a_regular_file) and have the stated
// size (code=file_size_mismatch). Pins part.expected_uuid to the incarnation checked. A keyed
// part whose key already committed is not checked (the commit answers it as a replay): the
// result is true then, so a caller skips its own reads of the files too.
Result<bool> CheckAddedFiles(Metastore& ms, ObjectStore& warehouse, DatasetCommit& part,
                             const AddedFileChecks& checks);

// kNotFound code=view_not_found (views.cc).
Status ViewNotFound(const DatasetName& n);
// view_exists when the collection has a plain view named n.dataset: a dataset may not take a
// view's name (views.cc).
Status CheckNoViewNamed(Transaction& tx, int64_t collection_id, const DatasetName& n);

// ---- firing (jobs.cc), in the commit's own transaction (commit.cc) ----

// Whether commits fire triggers (TARN_TRIGGER_FIRING is not "0").
bool TriggerFiringEnabled();
// Fires `candidates` (the triggers on the snapshot's dataset) for snapshot `s`: each trigger's
// floor is claimed on its row; a claimed one records a job over (window_from, s] and moves the
// window, a throttled one is marked so; each audited (trigger.fired, trigger.throttled). The
// commit runs this inside a savepoint, so a failure here never fails the commit.
Status FireTriggersInTx(Transaction& tx, int64_t dataset_id,
                        const std::vector<views_store::FireCandidate>& candidates,
                        const SnapshotInfo& s, const std::string& fired_by, int64_t now);
// The alerter a catalog starts with: configured from TARN_ALERTS_* (a malformed variable is
// reported on stderr once and the defaults used), its cool-off shared through `ms`.
std::shared_ptr<alerts::Alerter> DefaultAlerter(Metastore* ms, const Clock* clock);
// A commit that carried no receipt: alerted once the commit is durable (its audit row is
// written in the commit's transaction).
struct MissingReceipt {
  std::string dataset;
  int64_t snapshot_id = 0;
  std::string operation;
};
void ReportMissingReceipt(alerts::Alerter* alerter, const MissingReceipt& m);
// A fire that failed: reported once the commit is durable.
struct FireFailure {
  std::string dataset;
  int64_t snapshot_id = 0;
  std::string fired_by;
  Status error;
};
// A commit inside every trigger's floor: the triggers marked throttled and one
// trigger.throttled audit row, all deferred to the commit's own round trip.
Status MarkThrottled(Transaction& tx, int64_t dataset_id, const std::string& source,
                     int64_t snapshot_id, int64_t throttled, const std::string& fired_by,
                     int64_t now);
// The trigger_fire_failed alert and a trigger.fire_failed audit record (best effort).
void ReportFireFailure(Metastore& ms, const Clock& clock, alerts::Alerter* alerter,
                       const FireFailure& f);
// A refresh of `view` the egress lock refused (RecordRefresh with status egress_blocked): the
// mv.refresh_egress_blocked audit row, written in the transaction that records the status,
// and the egress_blocked alert, raised once that transaction is durable.
// `action`: mv.refresh_egress_blocked, task.run_egress_blocked.
AuditRecord EgressBlockedAudit(const std::string& action, const std::string& object,
                               const RefreshRecord& record, const std::string& actor, int64_t now);
void ReportEgressBlocked(alerts::Alerter* alerter, const std::string& view,
                         const RefreshRecord& record);

// A queued job of `target` (a materialized view or a task) fired by `fired_by`: a new id, the
// purge time of TARN_JOB_TTL_DAYS (jobs.cc). The caller sets kind, source and window.
JobInfo NewJob(const std::string& workspace, const std::string& trigger, const std::string& target,
               const std::string& fired_by, int64_t now);
// A windowed task's job covers its window as it is now (tasks.cc): from_snapshot the task's
// window end, to_snapshot its window source's current snapshot. Nothing for other tasks.
Status SetJobWindow(Transaction& tx, int64_t task_view_id, JobInfo* job);
// The first slot of a five-field cron `schedule` in IANA zone `time_zone` strictly after
// `after_us` (tasks.cc, over src/schedule). invalid_schedule, unknown_time_zone otherwise.
Result<int64_t> NextScheduledRun(const std::string& schedule, const std::string& time_zone,
                                 int64_t after_us);

// The name of the refresh trigger a materialized view puts on each source (materialized.cc).
std::string RefreshTriggerName(const DatasetName& view);
// What goes with a dataset that is dropped (in its transaction): its materialized view's
// definition and triggers, the triggers on it, its place in views' sources.
Status ForgetDataset(Transaction& tx, int64_t dataset_id);
// has_triggers (kFailedPrecondition) for a dataset that carries triggers or is a materialized
// view: names reference it, so it cannot be renamed.
Status CheckRenamable(Transaction& tx, const DatasetInfo& ds);

}  // namespace tarn::catalog_internal

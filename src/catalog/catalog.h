// Catalog: workspaces and collections (docs/features.md C1, C2) over the metastore.
//
// Every mutation is one metastore transaction; correctness under concurrency (threads or
// processes) comes from the database's unique constraints, never from in-process locks.
// Datasets, commits, snapshots, planning and maintenance: catalog.h declares them, dataset.h
// holds their value types, and datasets.cc, commit.cc, snapshots.cc, planning.cc and
// maintenance.cc implement them.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "datafile/reader.h"
#include "tarn/client.h"
#include "tarn/dataset.h"
#include "tarn/integrity.h"
#include "tarn/status.h"

namespace tarn::alerts {
class Alerter;
}  // namespace tarn::alerts

namespace tarn {

class Metastore;
class ObjectStore;
class BoundPredicate;
struct RecordBatch;
class CommitQueue;

// Workspace property keys stored in their own columns rather than in the properties map.
inline constexpr char kDeletionProtection[] = "deletion_protection";
inline constexpr char kEgressProtection[] = "egress_protection";
// The collection property that carries its description.
inline constexpr char kDescriptionProperty[] = "description";

// The warehouse key of `path`: a key relative to the warehouse root, or a URI / absolute path
// inside it (file:// and a plain absolute path name the same local file), normalised: empty
// and "." segments dropped, ".." resolved lexically. Anything that leaves the root or is not a
// valid key is kInvalidArgument, code=path_outside_warehouse (the message does not name the
// root). Symbolic links are not resolved here: the stores never follow them (objectstore/).
Result<std::string> WarehouseKey(const ObjectStore& warehouse, std::string_view path);

// The dataset property naming the columns whose data files get Parquet bloom filters (one per
// column chunk; equality and IN predicates on them skip files when planning and row groups and
// files when scanning): comma-separated column names or STRUCT member paths (`payload.status`),
// each flat and not BOOLEAN (invalid_property otherwise, when set). Renames and drops of those
// columns and members carry over to it.
inline constexpr char kBloomFilterColumnsProperty[] = "parquet.bloom-filter-columns";
// The dataset property naming the columns the bounds index holds (docs/design/catalog-core.md
// "The bounds index"): predicates that confine one of them to ranges or values plan through an
// index of the files' bounds instead of reading every live file's statistics. Comma-separated
// column names or STRUCT member paths, each a scalar type (not VARIANT; invalid_property
// otherwise). Setting it builds the index for the dataset's files in the same transaction (the
// cost of a full listing); each commit then adds its files' rows. Renames and drops carry over.
inline constexpr char kBoundsIndexColumnsProperty[] = "planning.bounds-index-columns";
// The names of the columns and members (dotted) of `schema` that the data files written under
// `properties` carry bloom filters for (the property's names as `schema` spells them; names it
// no longer holds, or no longer as a field that supports a filter, are left out).
std::vector<std::string> BloomFilterColumns(const PropertyMap& properties, const Schema& schema);

// The field ids of `columns` (names, in that order) in `schema`, as a scan reads them; a STRUCT
// member by its dotted path (`payload.status`, a column of its own in the scan's output):
// kInvalidArgument, code=column_not_found (field column) for a name `dataset` lacks.
Result<std::vector<int32_t>> ScanFieldIds(const Schema& schema,
                                          const std::vector<std::string>& columns,
                                          std::string_view dataset);

// A handle on one catalog: its metastore and its warehouse; the embedded tarn::Client.
// Thread-safe.
class Catalog : public Client {
 public:
  // Opens the metastore at `metastore_uri` (SQLite path or postgresql:// URI; migrations are
  // applied) and the object store of `warehouse_uri`. Every time the catalog stores or compares
  // is read from `clock` (tests pass a ManualClock).
  static Result<std::unique_ptr<Catalog>> Open(std::string_view metastore_uri,
                                               std::string_view warehouse_uri,
                                               std::shared_ptr<Clock> clock = Clock::Real());
  // The same over a warehouse object store the caller built (e.g. fault injection in tests).
  static Result<std::unique_ptr<Catalog>> Open(std::string_view metastore_uri,
                                               std::shared_ptr<ObjectStore> warehouse,
                                               std::shared_ptr<Clock> clock = Clock::Real());
  // The embedded layout: `<dir>/catalog.db` (SQLite) and `<dir>/warehouse` (local objects);
  // `dir` is created when missing.
  static Result<std::unique_ptr<Catalog>> OpenEmbedded(
      std::string_view dir, std::shared_ptr<Clock> clock = Clock::Real());
  // The embedded layout as a person or program on this machine opens it (Client::Connect, so
  // the CLI and the terminal app): every mutation also writes an audit row, actor
  // local:<user> (local_audit.cc). `tarn serve` opens the catalog with OpenEmbedded or Open
  // and audits its requests itself.
  static Result<std::unique_ptr<Catalog>> OpenLocal(std::string_view dir,
                                                    std::shared_ptr<Clock> clock = Clock::Real());
  ~Catalog();

  bool remote() const override { return false; }
  // "local:<user>" from $USER (or the uid).
  std::string actor() const override;
  // The actor this catalog audits its mutations as (OpenLocal), nullopt when it does not (a
  // server's catalog: the server audits). Services over the catalog (uploads) audit theirs
  // when this is set.
  virtual std::optional<std::string> local_actor() const { return std::nullopt; }

  Metastore& metastore() { return *metastore_; }
  // The warehouse as the catalog reads it: the object store, and the bytes of inlined files
  // kept in the metastore (inlined.h), so a data file's path reads the same either way.
  ObjectStore& warehouse() { return *warehouse_; }
  // The object store itself, for what reads files without the catalog (DuckDB's own Parquet
  // reader, an Iceberg engine given the store's settings): an inlined file is not in it until
  // FlushInlined wrote it out.
  ObjectStore& warehouse_files();
  // The clock this catalog reads; the upload service and the token authority over it read the
  // same one unless given their own.
  const Clock& clock() const { return *clock_; }
  const std::shared_ptr<Clock>& shared_clock() const { return clock_; }
  // Where platform inconsistencies are raised (src/alerts): by default configured from the
  // TARN_ALERTS_* environment (a malformed one is reported on stderr and the defaults used),
  // sharing its cool-off through this catalog's metastore. SetAlerter (before the catalog is
  // used from other threads) replaces it; nullptr restores the default.
  alerts::Alerter& alerter() { return *alerter_; }
  void SetAlerter(std::shared_ptr<alerts::Alerter> alerter);

  // Workspaces (C1). A missing workspace is kNotFound with field code=workspace_not_found.
  // Properties may include deletion_protection / egress_protection (stored raw).
  Result<WorkspaceInfo> GetWorkspace(std::string_view name) override;
  // GetWorkspace, creating the workspace first when `create_if_missing`.
  Result<WorkspaceInfo> OpenWorkspace(std::string_view name, bool create_if_missing = false);
  Result<std::vector<WorkspaceInfo>> ListWorkspaces() override;
  Status SetWorkspaceProperties(std::string_view name, const PropertyMap& set) override;
  // Unsetting a protection key returns it to its default (on).
  Status UnsetWorkspaceProperties(std::string_view name,
                                  const std::vector<std::string>& keys) override;
  // Refused (kFailedPrecondition) while deletion protection is on or collections remain.
  Status DropWorkspace(std::string_view name) override;
  Status MarkSecure(std::string_view workspace, std::string_view object,
                    const std::vector<std::string>& destinations, std::string_view author) override;
  Status ClearSecure(std::string_view workspace, std::string_view object) override;

  // Collections (C2), named `workspace.collection`. A missing one is kNotFound with
  // code=collection_not_found.
  Result<std::vector<CollectionInfo>> ListCollections(std::string_view workspace) override;
  Result<CollectionInfo> GetCollection(std::string_view qualified) override;
  // Refused (kFailedPrecondition) while the collection holds datasets (live or dropped ones
  // whose history is kept).
  Status DropCollection(std::string_view qualified) override;
  Status SetCollectionProperties(std::string_view qualified, const PropertyMap& set) override;
  Status UnsetCollectionProperties(std::string_view qualified,
                                   const std::vector<std::string>& keys) override;

  // ---- datasets (C3), named `workspace.collection.dataset` ----
  // A missing dataset is kNotFound with code=dataset_not_found.
  Result<std::vector<DatasetInfo>> ListDatasets(std::string_view collection) override;
  // The names of every dataset of the collection, live (dropped = false) and dropped ones
  // whose history is kept, for counting what a restricted token may see.
  struct DatasetEntry {
    std::string name;
    bool dropped = false;
  };
  Result<std::vector<DatasetEntry>> ListDatasetNames(std::string_view collection);
  // Renames within its collection (`new_name` is the bare dataset name).
  Status RenameDataset(std::string_view qualified, std::string_view new_name) override;
  // Partition spec (C7) and sort order evolution: later writes use them.
  Result<DatasetInfo> SetPartitionSpec(std::string_view qualified, std::string_view spec) override;
  Result<DatasetInfo> SetSortOrder(std::string_view qualified, std::string_view order) override;

  // ---- commits (C4) ----
  // Commits every part in one database transaction: one snapshot per dataset, all or nothing.
  // Appends (kAppend/kAddFiles) to one dataset from threads of this process are grouped into
  // one transaction, each still its own snapshot.
  // Errors: kConflict (code=commit_conflict, retryable) when a non-append part's dataset
  // committed after its read snapshot; kStale (code=incarnation_changed) when the dataset's
  // uuid is not the expected one; kInvalidArgument for a missing author or bad files.
  // Every added file is checked first (catalog_internal::CheckAddedFiles): it must be under
  // the dataset's own prefix or a location granted to it, referenced by no other dataset
  // (kPermissionDenied code=path_not_owned), and exist as a regular object of the stated size
  // (kInvalidArgument code=file_not_found, not_a_regular_file, file_size_mismatch).
  Result<std::vector<SnapshotInfo>> Commit(std::vector<DatasetCommit> parts) override;
  Result<SnapshotInfo> Commit(DatasetCommit part);
  // An upload contract's commit: keys under `staging_prefix` (its own staging area) count as
  // the dataset's own; everything else is checked as Commit does.
  Result<SnapshotInfo> CommitStaged(DatasetCommit part, std::string_view staging_prefix);
  // Commit without the checks of added files, for files this process wrote itself under the
  // dataset's prefix (Append) and for exercising the commit engine (benchmarks, tests). Never
  // pass files a client named.
  Result<std::vector<SnapshotInfo>> CommitWritten(std::vector<DatasetCommit> parts);
  // AppendStream (DoAppendStream below) writes a data file every ~kAppendFlushRows rows or
  // kAppendFlushBytes bytes.
  static constexpr int64_t kAppendFlushRows = 1'000'000;
  static constexpr int64_t kAppendFlushBytes = 256ll << 20;
  // Marks the rows matching `where` deleted with deletion vectors (rows stay in their files).
  Result<SnapshotInfo> DeleteRows(std::string_view qualified, std::string_view where,
                                  CommitMeta meta) override;
  Result<SnapshotInfo> Rollback(std::string_view qualified, int64_t to_snapshot_id,
                                CommitMeta meta) override;

  // ---- external locations (locations.cc) ----
  // Grants the warehouse prefix `prefix` (a key prefix or a URI / absolute path inside the
  // warehouse; stored normalised with a trailing '/') to the live dataset: add_files and
  // commits may then register files under it. kInvalidArgument code=invalid_location for the
  // whole warehouse, a path outside it or one inside a tarn-managed area (datasets/, uploads/);
  // kFailedPrecondition code=location_in_use when it overlaps another live dataset's location.
  // Granting twice is fine. `granted_by` defaults to actor().
  Status GrantLocation(std::string_view qualified, std::string_view prefix) override;
  Status GrantLocation(std::string_view qualified, std::string_view prefix,
                       std::string_view granted_by);
  // Files already registered stay; new ones under the prefix are refused. kNotFound
  // code=location_not_found when not granted.
  Status RevokeLocation(std::string_view qualified, std::string_view prefix) override;
  Result<std::vector<LocationGrant>> ListLocations(std::string_view qualified) override;

  // ---- snapshots, time travel and tags (C5) ----
  Result<SnapshotInfo> GetSnapshot(std::string_view qualified, const SnapshotSelector& at) override;
  Status DropTag(std::string_view qualified, std::string_view tag) override;
  Result<std::vector<TagInfo>> ListTags(std::string_view qualified) override;
  Result<LineageResult> Lineage(std::string_view qualified, std::optional<int64_t> snapshot,
                                size_t limit) override;
  Result<ImpactResult> Impact(std::string_view qualified) override;
  Result<ReadersResult> Readers(std::string_view qualified,
                                std::optional<int64_t> version) override;

  // ---- manifest export (C12; manifest.cc) ----
  // The snapshot's live files from one read transaction, streamed into the Parquet writer.
  Result<ManifestInfo> ExportManifest(
      std::string_view qualified, const SnapshotSelector& at,
      const std::function<Status(std::string_view bytes)>& write) override;
  // ---- Iceberg metadata (iceberg.cc; docs/design/iceberg.md) ----
  Result<IcebergTableInfo> IcebergTable(std::string_view qualified,
                                        const IcebergRequest& request) override;
  // iceberg_register.cc. Reads the table's metadata, manifest lists, manifests and position
  // delete files whole, each at most register_read_limit() bytes (a larger one is
  // iceberg_unsupported naming it, before any byte of it is read).
  Result<IcebergRegisterResult> RegisterIcebergTable(
      std::string_view qualified, const IcebergRegisterRequest& request) override;
  static constexpr int64_t kRegisterReadLimit = int64_t{256} << 20;
  int64_t register_read_limit() const { return register_read_limit_; }
  void set_register_read_limit(int64_t n) { register_read_limit_ = n; }
  // What the REST facade's file route serves: the live dataset whose uuid is `uuid`, and
  // whether warehouse key `key` is one of its objects (under its prefix or a location granted
  // to it). nullopt when no live dataset has the uuid.
  struct DatasetObject {
    std::string dataset;  // w.c.d
    bool owned = false;
  };
  Result<std::optional<DatasetObject>> DatasetObjectOf(std::string_view uuid, std::string_view key);
  // Manifests manifest.on_commit failed to write since this catalog was opened (each also
  // raised as the alert manifest_write_failed).
  int64_t manifest_write_failures() const;
  // What Scan read since this catalog was opened, added up: the files and row groups it
  // opened, those the bloom filters of a `where`'s equality and IN columns ruled out
  // (kBloomFilterColumnsProperty) so that none of their columns was read, and of the rest the
  // row groups and data pages the statistics (Parquet page index) ruled out (ReadStats).
  ReadStats scan_stats() const;
  // What planning (PlanFiles) read of the files' bloom filters since this catalog was opened:
  // the files whose footers it read, the filters read, and the files they ruled out.
  ReadStats plan_stats() const;
  // An unpaged plan asks the bloom filters of at most this many candidate files (the ones the
  // statistics leave), holding them meanwhile; with more, the statistics alone decide and the
  // files stream as without filters (scans still skip by them). Default kBloomProbeLimit.
  static constexpr size_t kBloomProbeLimit = 10000;
  void set_bloom_probe_limit(size_t n) { bloom_probe_limit_ = n; }
  // Writes the manifest of the dataset's current snapshot at ManifestKey when its
  // manifest.on_commit is on and the object is missing (`rewrite`: whatever is there, e.g.
  // after hydration changed what the files' statistics say). True when it wrote one. A failure
  // is alerted and counted as manifest.on_commit's are, and returned. Used by housekeeping's
  // manifest step (retrying writes that failed at commit) and by HydrateStats.
  Result<bool> RefreshManifest(std::string_view qualified, bool rewrite);

  // ---- change feed (C9) ----
  // Consumer offsets only move forward (kFailedPrecondition, code=offset_regression).
  Status CommitOffset(std::string_view qualified, std::string_view consumer,
                      int64_t snapshot_id) override;
  Result<std::optional<int64_t>> GetOffset(std::string_view qualified,
                                           std::string_view consumer) override;

  // ---- maintenance (C11) ----
  Result<ExpiryResult> ExpireSnapshots(std::string_view qualified,
                                       const ExpiryOptions& options) override;
  Result<RetentionResult> ApplyRetention(const RetentionOptions& options) override;
  // Deferred statistics (stats_hydration.cc; docs/design/maintenance.md "Deferred statistics").
  Result<StatsHydrationResult> HydrateStats(std::string_view qualified,
                                            const StatsHydrationOptions& options) override;
  // Inlined appends (inlined.cc; docs/design/catalog-core.md "Inlined appends").
  Result<InlineFlushResult> FlushInlined(std::string_view qualified) override;
  // Compaction (compaction.cc; docs/design/maintenance.md "Compaction").
  Result<CompactionResult> Compact(std::string_view qualified, const CompactionOptions& options,
                                   CommitMeta meta) override;
  // Compact's two halves, apart so tests can commit in between: the plan (a dry run's result,
  // with the dataset and the files it read), and its execution (read, rewrite, commit).
  struct CompactionPlan {
    CompactionResult result;
    DatasetInfo dataset;                           // as loaded for the plan
    std::vector<std::vector<PlannedFile>> inputs;  // per result.outputs entry
  };
  Result<CompactionPlan> PlanCompaction(std::string_view qualified,
                                        const CompactionOptions& options);
  Result<CompactionResult> RunCompaction(CompactionPlan plan, CommitMeta meta);

  // ---- views (V1; views.cc) ----
  // A view and a dataset of one collection never share a name (a serializable transaction
  // reads both).
  Result<std::vector<ViewInfo>> ListViews(std::string_view collection) override;
  Result<std::vector<ViewVersion>> ListViewVersions(std::string_view qualified) override;
  Status DropView(std::string_view qualified) override;
  Status RecordViewRun(std::string_view qualified, int64_t row_count, double seconds) override;
  // CreateView as `author` (the server passes the caller's client id).
  Result<ViewInfo> CreateView(std::string_view qualified, const ViewDefinition& def, bool replace,
                              std::string_view author);
  using Client::CreateView;

  // ---- materialized views and triggers (V2, V3; materialized.cc) ----
  Result<MaterializedViewInfo> RegisterMaterializedView(std::string_view qualified,
                                                        const ViewDefinition& def,
                                                        const std::vector<std::string>& sources,
                                                        bool replace,
                                                        std::string_view refresh_kind) override;
  // As `author` (the server passes the caller's client id), recording `first_run` as the
  // view's refresh state in the same transaction.
  Result<MaterializedViewInfo> RegisterMaterializedView(
      std::string_view qualified, const ViewDefinition& def,
      const std::vector<std::string>& sources, bool replace, std::string_view refresh_kind,
      std::string_view author, const std::optional<RefreshRecord>& first_run = std::nullopt);
  Result<MaterializedViewInfo> GetMaterializedView(std::string_view qualified) override;
  Result<std::vector<MaterializedViewInfo>> ListMaterializedViews(
      std::string_view collection) override;
  Status DropMaterializedView(std::string_view qualified, bool purge) override;
  Status RecordRefresh(std::string_view qualified, const RefreshRecord& record) override;
  Result<std::vector<TriggerInfo>> ListTriggers(std::string_view dataset) override;
  Status SetTriggerInterval(std::string_view dataset, std::string_view trigger,
                            std::optional<int64_t> seconds) override;

  // ---- tasks (V3; tasks.cc) ----
  Result<TaskInfo> RegisterTask(std::string_view qualified, const TaskDefinition& def,
                                const std::vector<std::string>& reads, bool replace) override;
  // As `author` (the server passes the caller's client id).
  Result<TaskInfo> RegisterTask(std::string_view qualified, const TaskDefinition& def,
                                const std::vector<std::string>& reads, bool replace,
                                std::string_view author);
  Result<TaskInfo> GetTask(std::string_view qualified) override;
  Result<std::vector<TaskInfo>> ListTasks(std::string_view collection) override;
  Status DropTask(std::string_view qualified) override;
  Result<JobInfo> SignalTask(std::string_view qualified) override;
  // Signalled by `fired_by` (the server passes the caller's client id).
  Result<JobInfo> SignalTask(std::string_view qualified, std::string_view fired_by);
  Status RecordTaskRun(std::string_view qualified, const RefreshRecord& record) override;
  // The schedule tick (tarn serve once a minute on every server, tarn jobs run embedded): for
  // each schedule task due now (at most `limit`, earliest first), claims its slot (its next
  // due time moved past now, so slots missed while nothing ticked fire once, and of ticks
  // racing on several servers one claims each slot) and records a job (kind task, trigger
  // schedule, fired_by "schedule", the task's runs_as), all in one transaction. Returns the
  // jobs recorded. A schedule that no longer computes stops and is alerted (schedule_broken).
  Result<std::vector<JobInfo>> FireDueSchedules(int64_t limit = 1000);

  // ---- jobs (V3; jobs.cc) ----
  Result<std::vector<JobInfo>> ListJobs(const JobQuery& query) override;
  Result<JobInfo> GetJob(std::string_view id) override;
  Result<JobInfo> RetryJob(std::string_view id) override;
  Result<JobInfo> ReportJobOutcome(std::string_view id, const JobOutcomeReport& report) override;
  // A runner's side (tarn jobs run, the server's dispatcher): takes the oldest runnable job
  // (queued and due, or running past its lease), marks it running with one more attempt and
  // a lease of `lease_us`; nullopt when none is runnable. Jobs taken at once by several
  // runners (threads, processes, servers) are all different.
  Result<std::optional<JobInfo>> ClaimJob(int64_t lease_us);
  // Ends a claimed job in `state` (succeeded, failed, denied, egress_blocked) with its error
  // and the snapshot it committed, or, with retry_at_us, queues it again until then.
  Status CompleteJob(std::string_view id, std::string_view state, std::string_view error,
                     std::optional<int64_t> result_snapshot,
                     std::optional<int64_t> retry_at_us = std::nullopt);
  // Deletes the jobs past their purge time; how many.
  Result<int64_t> PurgeJobs();

  // ---- access tokens and audit (V5; access.cc) ----
  // A random client id ("tarn_" + 20 base32 chars) and secret (40 base32 chars) unless the spec
  // names them; the secret is stored as an Argon2id hash. kNotFound for a missing workspace
  // (other than "*"); kAlreadyExists for a client id in use.
  Result<NewAccessToken> CreateAccessToken(const AccessTokenSpec& spec) override;
  // The same, recording `created_by` (the server passes the caller's client id).
  Result<NewAccessToken> CreateAccessToken(const AccessTokenSpec& spec,
                                           std::string_view created_by);
  Result<std::vector<AccessTokenInfo>> ListAccessTokens(std::string_view workspace) override;
  // kNotFound (code=token_not_found) for an unknown client id; revoking twice is fine.
  Status RevokeAccessToken(std::string_view client_id) override;
  Result<AccessTokenInfo> GetAccessToken(std::string_view client_id);
  // Checks a client secret against its stored hash (slow on purpose) and records last use.
  // kUnauthenticated (code=invalid_client) for an unknown, revoked or wrong credential; the
  // three are not told apart.
  Result<AccessTokenInfo> VerifyClientSecret(std::string_view client_id,
                                             std::string_view client_secret);
  // Whether any access token exists (a new server creates its bootstrap owner when none does).
  Result<bool> HasAccessTokens();
  // CreateAccessToken only while the metastore holds no access token, atomically: of concurrent
  // callers (threads or servers) exactly one creates. nullopt when a token exists already.
  Result<std::optional<NewAccessToken>> CreateFirstAccessToken(const AccessTokenSpec& spec,
                                                               std::string_view created_by);
  // ---- federation rules (federation.cc) ----
  // kInvalidArgument for a bad issuer (code=invalid_issuer) or subject (code=invalid_subject:
  // empty, over 1024 bytes, not printable; for Google's issuer not the numeric id); kNotFound
  // (code=token_not_found) for an unknown client; kAlreadyExists (code=federation_rule_exists)
  // when the issuer and subject already map to a client.
  Result<FederationRule> CreateFederationRule(const FederationRuleSpec& spec) override;
  Result<FederationRule> CreateFederationRule(const FederationRuleSpec& spec,
                                              std::string_view created_by);
  Result<std::vector<FederationRule>> ListFederationRules() override;
  // kNotFound (code=federation_rule_not_found).
  Status DeleteFederationRule(std::string_view id) override;
  // The rule of exactly this issuer and subject, nullopt when none.
  Result<std::optional<FederationRule>> FindFederationRule(std::string_view issuer,
                                                           std::string_view subject);
  // Whether any rule names `issuer` (only such issuers are ever contacted).
  Result<bool> HasFederationIssuer(std::string_view issuer);
  // Records a federated sign-in of `client_id` as its last use.
  Status TouchAccessToken(std::string_view client_id);

  // Appends rows to the audit log, in one transaction.
  Status WriteAudit(const std::vector<AuditRecord>& records);
  Result<std::vector<AuditRecord>> ListAudit(const AuditQuery& query) override;
  // The rows of the shared alerts table (src/alerts), filtered by query.
  Result<std::vector<AlertRecord>> ListAlerts(const AlertQuery& query) override;

 protected:
  // The methods of tarn::Client with default arguments: callers use the public ones (the
  // defaults are stated there, once), which run these.

  Status DoCreateWorkspace(std::string_view name, bool exists_ok,
                           const PropertyMap& properties) override;
  Status DoCreateCollection(std::string_view qualified, bool exists_ok,
                            std::string_view description, const PropertyMap& properties) override;

  // ---- datasets ----
  Result<DatasetInfo> DoCreateDataset(std::string_view qualified, DatasetDefinition def,
                                      bool exists_ok) override;
  // The dataset with its current schema, or with the schema of the selected snapshot.
  Result<DatasetInfo> DoLoadDataset(std::string_view qualified,
                                    const SnapshotSelector& at) override;
  // Drops the dataset: its name is free at once. Without `purge` its history is kept (the
  // collection stays non-empty); with `purge` every row goes and its files enter the removal
  // ledger, refused while the workspace has deletion protection on.
  Status DoDropDataset(std::string_view qualified, bool purge,
                       std::optional<std::string> expected_uuid) override;
  Status DoSetDatasetProperties(std::string_view qualified, const PropertyMap& set,
                                const std::vector<std::string>& unset) override;
  // Schema evolution (C6): one new schema version; field ids never change or get reused.
  // With `read_snapshot_id`, refused (kConflict) when the dataset committed since.
  Result<DatasetInfo> DoAlterSchema(std::string_view qualified,
                                    const std::vector<SchemaChange>& changes,
                                    std::optional<int64_t> read_snapshot_id) override;

  // ---- commits ----
  // Writes `batches` (already in the dataset's current types, matched by field id or name)
  // as Parquet under the warehouse, sorted and split by partition, and commits them.
  Result<SnapshotInfo> DoAppend(std::string_view qualified, const std::vector<RecordBatch>& batches,
                                CommitMeta meta, CommitOperation op,
                                std::optional<std::string> expected_uuid) override;
  // The same for input of any size: pulls batches from `next` until it returns nullopt, writes
  // data files every ~kAppendFlushRows rows (memory stays bounded), and commits them all as one
  // snapshot. An error from `next` or the commit deletes every file written.
  Result<SnapshotInfo> DoAppendStream(std::string_view qualified, const BatchSource& next,
                                      CommitMeta meta, CommitOperation op,
                                      std::optional<std::string> expected_uuid) override;
  Result<SnapshotInfo> DoReplaceWhere(std::string_view qualified, std::string_view where,
                                      const BatchSource& next, CommitMeta meta,
                                      std::optional<std::string> expected_uuid,
                                      std::optional<int64_t> read_snapshot_id) override;
  // Registers files already in the warehouse (paths relative to its root, or URIs inside it);
  // stats come from their footers. Ownership is decided first, from the keys alone: a path the
  // dataset may not register is code=path_not_owned whether or not it exists. Files it may
  // register (its own prefix, its granted locations: what a writer of the dataset may read)
  // are then told apart: code=file_not_found, not_a_regular_file, not_parquet.
  Result<SnapshotInfo> DoAddFiles(std::string_view qualified, const std::vector<std::string>& paths,
                                  CommitMeta meta, bool truncate_first) override;

  // ---- tags, change feed, maintenance ----
  Status DoCreateTag(std::string_view qualified, std::string_view tag, const SnapshotSelector& at,
                     bool replace) override;
  // Files added and removed in (from, to]; `to` defaults to the current snapshot. A range
  // reaching into expired snapshots is kExpired (code=changes_expired). A page ends at
  // from + limit (snapshot ids are the cursor).
  Result<ChangeSet> DoChanges(std::string_view qualified, const ChangeQuery& query) override;
  // Planning (C8): streams the live files at the selected snapshot that may hold rows matching
  // `where` (empty = all), one read transaction, memory bounded by one file. Unpaged, one range
  // scan per partition-key branch (planning.cc); paged, keyset queries on (dataset, path),
  // batches until the page is full when a predicate drops files. When the predicate's = and IN
  // leaves compare columns the bloom filter property names, the files the statistics leave are
  // also asked about their bloom filters (footers read in parallel; unpaged, after the
  // transaction, holding the candidates).
  Status DoPlanFiles(std::string_view qualified, const SnapshotSelector& at, std::string_view where,
                     const FileQuery& page,
                     const std::function<Status(const PlannedFile&)>& fn) override;
  // DoPlanFiles, asking the bloom filters or not (a scan does not: reading a file asks them).
  Status PlanFilesImpl(std::string_view qualified, const SnapshotSelector& at,
                       std::string_view where, const FileQuery& page, bool bloom_filters,
                       const std::function<Status(const PlannedFile&)>& fn);
  // One keyset query: ORDER BY snapshot_id with the cursors as bounds, LIMIT limit.
  Result<std::vector<SnapshotInfo>> DoListSnapshots(std::string_view qualified,
                                                    const SnapshotQuery& query) override;
  // Deletes the objects in the removal ledger (nothing live or retained references them) and
  // reports orphans: objects under dataset prefixes that no catalog row references.
  Result<CleanupResult> DoCleanup(bool delete_orphans) override;

 public:
  // The integrity sweep (fsck.cc, tarn/integrity.h; docs/design/provenance.md "The integrity
  // sweep"): reads the metastore (kReadOnly transactions, a dataset at a time) and, with
  // options.check_objects, lists the warehouse; writes nothing but one alert per platform
  // finding, raised through alerter() once the sweep is done. kNotFound
  // (code=workspace_not_found) for a workspace that does not exist; kInvalidArgument for a
  // negative grace; metastore and warehouse errors as they come.
  Result<FsckReport> Fsck(const FsckOptions& options) override;

  // Periodic work shared by every server on this metastore (table periodic_runs): true when
  // `step` was due and this call claimed its slot (the next due time is now + interval_us, the
  // runner recorded); false when it is not due, another server having run it. A server runs
  // the step only on true. kInvalidArgument for an interval below one second.
  Result<bool> ClaimPeriodicRun(std::string_view step, int64_t interval_us,
                                std::string_view runner);

  // Server-run housekeeping (housekeeping.cc; docs/design/maintenance.md "Housekeeping"): one
  // pass of `step` over the whole catalog. kExpire applies every retention policy, kCleanup
  // deletes released files and orphans past their grace, kCompact runs one compaction (rule
  // auto) of each live dataset whose property compaction.auto is true, kHydrate fills in the
  // statistics of every dataset's pending files (HydrateStats), kManifest writes the missing
  // manifest of each current snapshot whose dataset has manifest.on_commit on (RefreshManifest),
  // kFlush writes out the inlined files of each live dataset that keeps any and whose
  // compaction.auto is not true (FlushInlined; compaction moves those out itself). Each
  // dataset's outcome is audited as actor tarn:housekeeping (action housekeeping.<step>); a
  // dataset that fails is counted and the pass goes on. `cancelled` is asked between datasets.
  enum class HousekeepingStep : uint8_t {
    kExpire,
    kCleanup,
    kCompact,
    kHydrate,
    kManifest,
    kFlush
  };
  // expire, cleanup, compact, hydrate, manifest, flush
  static std::string_view HousekeepingStepName(HousekeepingStep step);
  struct HousekeepingReport {
    int64_t datasets = 0;  // datasets the step acted on (a policy, compaction.auto)
    int64_t failures = 0;  // of them, those that failed
    int64_t snapshots_expired = 0, files_released = 0;  // kExpire
    int64_t objects_deleted = 0, bytes_deleted = 0;     // kCleanup
    int64_t files_rewritten = 0, bytes_rewritten = 0;   // kCompact: inputs replaced
    int64_t files_hydrated = 0;                         // kHydrate
    int64_t manifests_written = 0;                      // kManifest
    int64_t files_flushed = 0, bytes_flushed = 0;       // kFlush: written out to the warehouse
  };
  Result<HousekeepingReport> RunHousekeeping(HousekeepingStep step,
                                             const std::function<bool()>& cancelled = nullptr);

 protected:
  // Streams the rows of the dataset at the snapshot, deletion vectors applied and filtered by
  // `where`, in the snapshot's schema (only `columns` when given, plus `_tarn_row_id` when
  // asked), one batch per file.
  Status DoScan(std::string_view qualified, const ScanOptions& options,
                const std::function<Status(const RecordBatch&)>& fn) override;
  Result<ViewInfo> DoCreateView(std::string_view qualified, const ViewDefinition& def,
                                bool replace) override;
  Result<ViewInfo> DoGetView(std::string_view qualified, std::optional<int64_t> version) override;

 protected:
  Catalog(std::unique_ptr<Metastore> metastore, std::shared_ptr<ObjectStore> warehouse,
          std::shared_ptr<Clock> clock);

 private:
  Result<std::vector<SnapshotInfo>> CommitDirect(std::vector<DatasetCommit>& parts);
  // manifest.on_commit (manifest.cc): writes the manifest of each new snapshot in `snapshots`
  // (snapshots[i] committed parts[i]) whose dataset has the property on, at ManifestKey. Called
  // by CommitWritten once the commit is durable: a failure is alerted and counted, never
  // returned. Whether a dataset has it off is cached per dataset for kManifestSettingTtlUs (a
  // change by another process is seen that late; one by this catalog at once).
  static constexpr int64_t kManifestSettingTtlUs = 1'000'000;
  void WriteCommitManifests(const std::vector<DatasetCommit>& parts,
                            const std::vector<SnapshotInfo>& snapshots);
  // Forgets the kept bytes of the inlined files an export (manifest, Iceberg metadata) wrote
  // out to the warehouse (inlined.h ForgetWrittenOut), after its transaction; best effort.
  void ForgetExportedInlined(const std::vector<std::string>& written_out);
  // Forgets the cached manifest.on_commit settings (after this catalog changed properties).
  void ManifestSettingsChanged();
  // Forgets what appends and manifest.on_commit keep of datasets' definitions, after this
  // catalog changed one (created, renamed, dropped, altered, properties, spec, sort order).
  void DefinitionsChanged();

  // The live rows appends read (operations.cc PrepareAppend) are kept for
  // kAppendDefinitionTtlUs, so that a stream of small appends does not read its dataset each
  // time. Rows with a column the kept row does not know are written after a fresh read; an
  // append that used a kept row and failed in a way a newer row could change (its rows did not
  // conform to it, or the commit found another incarnation) is made once more after a fresh
  // read; a stream that does not fit in memory (the inline limit) is written against a fresh
  // row.
  static constexpr int64_t kAppendDefinitionTtlUs = 1'000'000;
  struct AppendDefinitions;
  static std::shared_ptr<AppendDefinitions> NewAppendDefinitions();
  struct PreparedAppend {
    DatasetInfo ds;
    bool kept = false;  // from the kept rows, not read now
  };
  // The dataset an append writes to, checked before any byte is written; a kept row when
  // `may_keep` (an append, not an overwrite, which reads the current snapshot).
  Result<PreparedAppend> PrepareAppend(std::string_view qualified, const CommitMeta& meta,
                                       CommitOperation op,
                                       const std::optional<std::string>& expected_uuid,
                                       bool may_keep);
  void ForgetAppendDefinition(std::string_view qualified);
  // Writes `batches` (inlined or as files) and commits them, made once more after a fresh
  // read when `prepared` was kept and proved stale.
  Result<SnapshotInfo> AppendBatches(std::string_view qualified,
                                     const std::vector<RecordBatch>& batches,
                                     const CommitMeta& meta, CommitOperation op,
                                     const std::optional<std::string>& expected_uuid,
                                     PreparedAppend prepared);
  struct ManifestSettings;
  static std::shared_ptr<ManifestSettings> NewManifestSettings();

  std::unique_ptr<Metastore> metastore_;
  std::shared_ptr<ObjectStore> warehouse_;
  std::shared_ptr<Clock> clock_;
  std::shared_ptr<alerts::Alerter> alerter_;  // after metastore_: it writes the cool-off table
  std::unique_ptr<CommitQueue> commit_queue_;
  std::shared_ptr<ManifestSettings> manifest_settings_ = NewManifestSettings();
  std::shared_ptr<AppendDefinitions> append_definitions_ = NewAppendDefinitions();
  struct ScanCounters;  // scan_stats() (planning.cc)
  static std::shared_ptr<ScanCounters> NewScanCounters();
  std::shared_ptr<ScanCounters> scan_counters_ = NewScanCounters();
  std::atomic<size_t> bloom_probe_limit_{kBloomProbeLimit};
  std::atomic<int64_t> register_read_limit_{kRegisterReadLimit};
};

}  // namespace tarn

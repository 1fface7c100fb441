// Datasets, commits and snapshots: the value types of the catalog's dataset API (docs/features.md
// C3 to C11). The operations are members of tarn::Client (tarn/client.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tarn/access.h"
#include "tarn/data_file.h"
#include "tarn/data_type.h"
#include "tarn/partition.h"
#include "tarn/sort_order.h"
#include "tarn/status.h"

namespace tarn {

using PropertyMap = std::map<std::string, std::string>;

// Whether a protection flag is on: only an explicit false (case-insensitive "false") turns it
// off; unset (nullopt) and any other value, malformed included, read as on (fail closed).
bool ProtectionOn(const std::optional<std::string>& raw);

struct WorkspaceInfo {
  int64_t id = 0;
  std::string name;
  PropertyMap properties;  // without the two protection keys
  // The raw values as set; nullopt when never set (reads as on).
  std::optional<std::string> deletion_protection;
  std::optional<std::string> egress_protection;
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  int64_t collection_count = 0;

  bool DeletionProtected() const { return ProtectionOn(deletion_protection); }
  bool EgressProtected() const { return ProtectionOn(egress_protection); }
};

// SECURE, the egress lock's sanctioned exemption (docs/design/egress.md): `object` (the view,
// task or dataset that writes the copy, w.c.name) may copy the workspace's data into each of
// `destinations`, with the lock left on for everything else. Stored in the SOURCE workspace's
// reserved property kSecureObjectsProperty, written only through Client::MarkSecure and
// ClearSecure.
struct SecureObject {
  std::string object;
  std::vector<std::string> destinations;
  std::string author;
  int64_t marked_at_us = 0;
};
inline constexpr char kSecureObjectsProperty[] = "secure_objects";

// The exemptions the workspace's reserved property holds, in object order. Anything malformed
// reads as not sanctioned: a document that is not the shape MarkSecure writes holds none, and a
// malformed record is left out.
std::vector<SecureObject> SecureObjectsOf(const WorkspaceInfo& workspace);
// The property's value for `objects` (the shape SecureObjectsOf reads).
std::string SecureObjectsJson(const std::vector<SecureObject>& objects);
// Whether `source` sanctions `object` copying its data into `destination`: both must match one
// well-formed record.
bool EgressSanctioned(const WorkspaceInfo& source, std::string_view object,
                      std::string_view destination);

struct CollectionInfo {
  int64_t id = 0;
  std::string workspace;
  std::string name;
  std::string description;
  PropertyMap properties;  // without "description"
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  int64_t dataset_count = 0;          // live datasets
  int64_t dropped_dataset_count = 0;  // dropped datasets whose history is kept
};

// Checks one identifier against ^[A-Za-z_][A-Za-z0-9_-]{0,127}$; kInvalidArgument naming
// `what` (e.g. "workspace name") and the bad value otherwise.
Status ValidateIdentifier(std::string_view what, std::string_view name);

// A `workspace.collection` name, split and validated.
struct CollectionName {
  std::string workspace;
  std::string collection;
  std::string ToString() const { return workspace + "." + collection; }
};
Result<CollectionName> ParseCollectionName(std::string_view qualified);

// A `workspace.collection.dataset` name, split and validated.
struct DatasetName {
  std::string workspace;
  std::string collection;
  std::string dataset;
  std::string ToString() const { return workspace + "." + collection + "." + dataset; }
};
Result<DatasetName> ParseDatasetName(std::string_view qualified);

struct DatasetDefinition {
  Schema schema;               // field ids assigned at create when -1
  std::string partition_spec;  // PartitionSpec::Parse syntax; empty = unpartitioned
  std::string sort_order;      // SortOrder::Parse syntax; empty = unsorted
  std::string description;
  PropertyMap properties;
};

// A dataset named in a standing source list: the name it was read by, and its incarnation.
struct SourceRef {
  std::string dataset;
  std::string dataset_uuid;
  bool operator==(const SourceRef& o) const {
    return dataset == o.dataset && dataset_uuid == o.dataset_uuid;
  }
};

struct DatasetInfo {
  int64_t id = 0;
  std::string uuid;  // the incarnation: a dataset dropped and recreated gets a new one
  DatasetName name;
  std::string description;
  PropertyMap properties;
  int32_t schema_id = 0;
  Schema schema;  // the current schema, or the snapshot's when loaded at a snapshot
  int32_t last_field_id = 0;
  PartitionSpec spec;
  std::vector<PartitionSpec> specs;  // every spec the dataset has had, by id (LoadDataset only)
  SortOrder sort_order;
  std::optional<int64_t> current_snapshot_id;  // nullopt before the first commit
  int64_t next_row_id = 0;
  int64_t total_files = 0;
  int64_t total_records = 0;  // live rows: rows in live files minus rows deleted by vectors
  int64_t total_bytes = 0;
  int64_t expired_through = 0;  // snapshots with ids <= this are expired
  // The standing source list (docs/design/provenance.md): what the current content was built
  // from, most recent first, at most 64, kept by the commit path from the receipts.
  // sources_complete is false when a name may be missing (a commit without a receipt, the cap).
  std::vector<SourceRef> sources;
  bool sources_complete = true;
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  std::optional<int64_t> dropped_at_us;
};

// Which snapshot a read resolves to (C5). Empty = the current snapshot.
struct SnapshotSelector {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> at_time_us;  // the latest snapshot committed at or before this time
  std::optional<std::string> tag;     // a tag name, or current / previous / head / last
  bool empty() const { return !snapshot_id && !at_time_us && !tag; }
  std::string ToString() const;  // "snapshot 4", "time 2024-...", "tag nightly", "current"
};

enum class CommitOperation : uint8_t {
  kAppend,          // rows in: tarn wrote the files
  kAddFiles,        // existing files registered
  kOverwrite,       // every live file replaced by the added files (rows in)
  kTruncateAndAdd,  // every live file replaced by registered files
  kDeleteRows,      // deletion vectors
  kDeleteFiles,     // files removed
  kMerge,           // add, remove and delete rows in one snapshot
  kRollback,        // the file set of an earlier snapshot restored
  kCompact,         // maintenance rewrite (user_created = false)
};
std::string_view CommitOperationName(CommitOperation op);
Result<CommitOperation> ParseCommitOperation(std::string_view name);
// Appends and add_files never conflict with each other; the rest need an unchanged dataset.
bool IsAppendOnly(CommitOperation op);

// What a commit read and what produced it: its receipt (docs/features.md V4,
// docs/design/provenance.md). Written once with the snapshot, never edited.
//
// One (dataset, snapshot) the producing statement read.
struct ReadReference {
  std::string dataset;  // qualified name, as it was read
  std::string dataset_uuid;
  int64_t snapshot_id = 0;  // 0: the dataset had no snapshot yet
  // How the name was resolved: "current", "version" (a snapshot id), "previous" (the reserved
  // tag), "tag" (a tag, named in `tag`) or "date" (a point in time).
  std::string resolved_by;
  std::string tag;  // resolved_by == "tag"
};
// How a selector resolves, in the receipt's vocabulary: {"version", ""}, {"date", ""},
// {"previous", ""}, {"tag", name}, {"current", ""} (the reserved tags current/head/last).
std::pair<std::string, std::string> ResolvedBy(const SnapshotSelector& at);

// A receipt holds at most this many reads; more set read_sources_truncated.
inline constexpr size_t kMaxReadSources = 256;

struct Receipt {
  std::vector<ReadReference> read_sources;  // one per (dataset, snapshot), in reading order
  bool read_sources_truncated = false;
  // kind:name: "task:w.c.t", "view:w.c.v" (catalog objects) or "upload:<channel>"; absent for
  // a hand-run statement or command (CLI, SDK), whatever it did.
  std::optional<std::string> produced_by;

  // Adds a read unless the same (dataset uuid, snapshot) is there; past kMaxReadSources sets
  // read_sources_truncated instead.
  void AddRead(ReadReference read);
  // A receipt of `reads` (each added with AddRead) produced by `produced_by`.
  static Receipt Of(const std::vector<ReadReference>& reads,
                    std::optional<std::string> produced_by = std::nullopt);
  // The bare names and name@snapshot of every read ("w.c.d", "w.c.d@7"), each once.
  std::vector<std::string> ReadSourceKeys() const;
  // {"read_sources": [...], "read_sources_truncated": bool, "read_source_keys": [...],
  //  "produced_by": "..."} (produced_by left out when absent).
  std::string ToJson() const;
  // Also reads the shape stored before receipts had this vocabulary ({"reads", "producer"}).
  static Result<Receipt> FromJson(std::string_view json);
};
// A receipt's produced_by must be task:<w.c.name>, view:<w.c.name> or upload:<channel>;
// kInvalidArgument code=invalid_receipt otherwise, and for a read without a dataset name or
// with a resolved_by outside the vocabulary.
Status ValidateReceipt(const Receipt& receipt);

struct CommitMeta {
  std::string author;  // required
  std::string message;
  std::optional<std::string> idempotency_key;  // a retry with the same key returns the original
  // What the commit read and what produced it. Every commit should carry one (reads nothing:
  // an empty Receipt); a commit without one lands, but raises the receipt_missing alert,
  // writes a dataset.missing_receipt audit row and marks the standing source list incomplete.
  std::optional<Receipt> receipt;
  bool user_created = true;
  // Files an append writes are registered with their statistics pending (not computed while
  // writing); housekeeping or `tarn stats hydrate` fills them in from the files' footers.
  bool defer_stats = false;
  // Set by a server: the audit row written in the commit's own transaction (target, workspace,
  // outcome and the snapshot id in the detail are filled in by the commit).
  std::optional<AuditRecord> audit;
};

// Row deletions in one live file: positions (0-based row ordinals in the file).
struct FileDeletes {
  std::string path;
  std::vector<uint64_t> positions;
};

// One dataset's part of a commit.
struct DatasetCommit {
  std::string dataset;                       // qualified name
  std::optional<std::string> expected_uuid;  // incarnation guard
  std::optional<int64_t> read_snapshot_id;   // the snapshot the writer read (0 = empty dataset)
  CommitOperation operation = CommitOperation::kAppend;
  std::vector<DataFile> added;             // paths relative to the warehouse root
  std::vector<std::string> removed_paths;  // kDeleteFiles, kMerge
  std::vector<FileDeletes> deletes;        // kDeleteRows, kMerge
  std::optional<int32_t> written_spec_id;  // the spec the added files' partitions follow
  std::optional<int64_t> rollback_to;      // kRollback
  CommitMeta meta;
  // The bytes of `added` files kept in the metastore instead of the warehouse, as (path, bytes)
  // (inlined appends, below). Set by the catalog's own appends only: Commit refuses a part
  // that carries any, and any added path under a dataset's "inline/" prefix.
  std::vector<std::pair<std::string, std::string>> inlined;
};

struct SnapshotInfo {
  std::string dataset_uuid;
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t committed_at_us = 0;
  std::string author;
  std::string message;
  std::string operation;
  bool user_created = true;
  int32_t schema_id = 0;
  int32_t spec_id = 0;
  int64_t added_files = 0, deleted_files = 0, total_files = 0;
  int64_t added_records = 0, deleted_records = 0, total_records = 0;
  int64_t added_bytes = 0, deleted_bytes = 0, total_bytes = 0;
  std::optional<std::string> idempotency_key;
  std::string commit_id;  // shared by the snapshots of one multi-dataset commit
  // nullopt: not recorded (committed without a receipt, or before receipts existed), which is
  // not the same as a receipt that read nothing.
  std::optional<Receipt> receipt;
  // Row ids below this were given out at or before this snapshot; the rows a later snapshot
  // added have ids at or above it (compaction keeps ids, so this tells a compacted row that is
  // new since this snapshot from one that is not). nullopt for snapshots committed before it
  // was recorded (migration 15).
  std::optional<int64_t> next_row_id;
  bool idempotent_replay = false;  // true when an earlier commit with the same key was returned
};

// The largest page of a snapshot listing (Client::ListSnapshots with a SnapshotQuery; the
// default page of GET .../snapshots).
inline constexpr int64_t kMaxSnapshotPage = 10000;

// A page of a dataset's snapshots, in snapshot id order (docs/design/serve.md "Paging"): the
// snapshots with an id above `after` and below `before` (both exclusive); the first `limit` of
// them, or with `before` alone the last `limit` (still in id order). A page of `limit` rows
// continues after its last id (or, read with `before` alone, before its first); a shorter one
// is the end.
struct SnapshotQuery {
  std::optional<int64_t> limit;  // 1..kMaxSnapshotPage; nullopt: every one
  std::optional<int64_t> after;
  std::optional<int64_t> before;
};

struct TagInfo {
  std::string name;
  int64_t snapshot_id = 0;
  int64_t created_at_us = 0;
};

// An external location granted to a dataset: a warehouse key prefix (ending in '/') outside
// every tarn-managed area, whose files the dataset may register (add_files, commits).
struct LocationGrant {
  std::string prefix;
  std::string granted_by;
  int64_t granted_at_us = 0;
};

// What a scan reads (C8): a snapshot, a predicate, the columns (by name, in that order; empty:
// every column of the schema) and whether to add the _tarn_row_id column.
// ScanOptions::batch_rows by default.
inline constexpr int64_t kDefaultScanBatchRows = 16384;

struct ScanOptions {
  SnapshotSelector at;
  std::string where;
  std::vector<std::string> columns;
  bool with_row_ids = false;
  // Only the rows of files added after this snapshot (an incremental read: what snapshots
  // (added_after, at] appended, as it is at `at`).
  std::optional<int64_t> added_after;
  // Rows per batch at most. A file of more rows whose rows are all read is decoded a few pages
  // at a time and handed over in batches of this many (after deletes, fewer), so a scan holds
  // one batch of a large file, not the file, and a consumer can work on one batch while the
  // next is decoded. A filtered read the statistics narrow is one batch per file. 0: one batch
  // per file.
  int64_t batch_rows = kDefaultScanBatchRows;
};

// A live file at a snapshot with its deletion vector, as planning returns it (C8).
struct PlannedFile {
  DataFile file;
  int64_t deleted_rows = 0;                    // cardinality of the live deletion vector
  std::optional<std::string> deletion_vector;  // its encoding (table/deletion_vector.h)
};

// The largest page of a file listing (Client::PlanFiles with a FileQuery).
inline constexpr int64_t kMaxFilePage = 10000;

// A page of the live files of a snapshot, in path order (docs/design/serve.md "Paging"): the
// files (matching the predicate, if any) whose path sorts above `after` and below `before`
// (both exclusive; the metastore's text order); the first `limit` of them, or with `before`
// alone the last `limit` (still in path order). A page of `limit` files continues after its
// last path (or, read with `before` alone, before its first); a shorter one is the end.
struct FileQuery {
  std::optional<int64_t> limit;  // 1..kMaxFilePage; nullopt: every one
  std::optional<std::string> after;
  std::optional<std::string> before;
};

// Schema evolution (C6). Columns are addressed by name in the current schema.
struct SchemaChange {
  enum class Kind : uint8_t {
    kAddColumn,
    kDropColumn,
    kRenameColumn,
    kPromoteColumn,
    kMoveColumn,
    kSetNullable
  };
  Kind kind = Kind::kAddColumn;
  std::string column;
  std::string new_name;              // kRenameColumn
  std::optional<DataType> type;      // kAddColumn, kPromoteColumn
  bool nullable = true;              // kAddColumn (must be true), kSetNullable
  std::optional<std::string> after;  // kAddColumn / kMoveColumn: place after this column
  bool first = false;                // kMoveColumn / kAddColumn: place first
};
// Parses "add score FLOAT64", "drop c", "rename a TO b", "promote n INT64", "move c FIRST",
// "move c AFTER b", "set nullable c" / "drop not null c".
Result<SchemaChange> ParseSchemaChange(std::string_view text);

// The largest page of the change feed, in snapshots (Client::Changes with a ChangeQuery; the
// default page of GET .../changes).
inline constexpr int64_t kMaxChangePage = 10000;

// A page of the change feed (C9): the changes of snapshots in (from, to], at most `limit`
// snapshot ids of them: (from, min(to, from + limit)]. A page always ends on a snapshot, so
// its to_snapshot_id is an offset a consumer can commit.
struct ChangeQuery {
  int64_t from = 0;
  std::optional<int64_t> to;     // default: the current snapshot
  std::optional<int64_t> limit;  // 1..kMaxChangePage; nullopt: the whole range
};

// The change feed between two snapshots (C9): (from, to].
struct ChangeSet {
  int64_t from_snapshot_id = 0;
  int64_t to_snapshot_id = 0;
  // Set when the page stopped before the range's end: the `from` of the next page (this
  // page's to_snapshot_id).
  std::optional<int64_t> next_from;
  std::vector<DataFile> added_files;
  std::vector<DataFile> removed_files;
  struct VectorChange {
    std::string path;  // the data file
    int64_t snapshot_id = 0;
    int64_t cardinality = 0;
    bool removed = false;  // the vector was replaced or its file removed
  };
  std::vector<VectorChange> deletion_vectors;
};

struct ExpiryOptions {
  int64_t older_than_us = 0;  // snapshots committed before this time may expire
  bool respect_consumer_offsets = true;
  bool dry_run = false;
};
struct ExpiryResult {
  std::string dataset;
  int64_t expired_snapshots = 0;
  int64_t expired_through = 0;
  // Paths queued for deletion (the removal ledger): a file no retained snapshot needs, whose
  // path no live row names again (a rollback may have restored it) and is not queued already.
  int64_t files_released = 0;
};

// Retention policies (docs/design/maintenance.md "Retention"): the workspace and dataset
// properties `retention` (a duration: 7d, 12h) and `retention.consumer_floor` (true/false,
// default true: never expire past a consumer's offset); a dataset's beat its workspace's.
inline constexpr char kRetentionProperty[] = "retention";
inline constexpr char kRetentionConsumerFloorProperty[] = "retention.consumer_floor";
// Server-run compaction (docs/design/maintenance.md "Housekeeping"): "true" opts a dataset in.
inline constexpr char kCompactionAutoProperty[] = "compaction.auto";
struct RetentionOptions {
  std::string workspace;  // only this workspace's datasets; empty: every workspace
  bool dry_run = false;
};
// One dataset with a policy, and what applying it did.
struct RetentionApplied {
  std::string dataset;
  std::string retention;       // the duration as the property says it
  std::string source;          // "dataset" or "workspace": whose property it is
  bool consumer_floor = true;  // offsets respected
  ExpiryResult expiry;
  // When this dataset failed (the others still ran): the error's code and message.
  std::string error_code, error;
};
struct RetentionResult {
  bool dry_run = false;
  std::vector<RetentionApplied> datasets;  // every live dataset with a policy, by name
  int64_t without_policy = 0;              // live datasets with none
};
struct CleanupResult {
  int64_t objects_deleted = 0;
  int64_t bytes_deleted = 0;
  int64_t pending = 0;               // ledger entries left (errors)
  std::vector<std::string> orphans;  // objects under dataset prefixes nobody references
};

// Deferred statistics (docs/design/maintenance.md "Deferred statistics"): files registered with
// their statistics pending get them from their footers.
struct StatsHydrationOptions {
  int64_t limit = 0;  // at most this many files in one call (0: every pending file)
};
struct StatsHydrationFailure {
  std::string path;
  std::string code;  // stats_mismatch, not_found, corruption, ...
  std::string message;
};
struct StatsHydrationResult {
  std::string dataset;
  int64_t files_hydrated = 0;
  // Live files still pending after the call: the failed ones and those beyond the limit.
  int64_t files_pending = 0;
  std::vector<StatsHydrationFailure> failures;  // each stays pending (retried next time)
};

// Inlined appends (docs/design/catalog-core.md "Inlined appends"): an append whose rows take at
// most the dataset's `inline.max_bytes` (bytes of the rows in memory, as the append flushes by;
// 0 or unset: never) keeps its data file's bytes in the metastore, in the commit's own
// transaction, instead of writing, fsyncing and renaming a file in the warehouse. The file has
// a path like any other (under "<dataset prefix>inline/") and every reader reads it through the
// catalog; FlushInlined writes such files out to the warehouse at those same paths. At most
// kMaxInlineBytes.
inline constexpr char kInlineMaxBytesProperty[] = "inline.max_bytes";
// Whether `path` (a warehouse key) names an inlined file: "datasets/<uuid>/inline/...".
bool IsInlinedPath(std::string_view path);
inline constexpr int64_t kMaxInlineBytes = 1 << 20;
struct InlineFlushResult {
  std::string dataset;
  int64_t files_written = 0;  // written out to the warehouse and no longer kept inlined
  int64_t bytes_written = 0;
};

// Compaction (C11; docs/design/maintenance.md "Compaction"). kAuto is kSortAware when the
// dataset has a sort order, else kBrute.
enum class CompactionRule : uint8_t { kAuto, kBrute, kSortAware };
std::string_view CompactionRuleName(CompactionRule rule);  // "auto", "brute", "sort_aware"
// Errors: kInvalidArgument naming the rules for anything else.
Result<CompactionRule> ParseCompactionRule(std::string_view name);

struct CompactionOptions {
  CompactionRule rule = CompactionRule::kAuto;
  bool dry_run = false;  // plan only: nothing is read, written or committed
  // A predicate on partition source columns only: the partitions to compact (empty: all).
  std::string where;
};

// One output file of a compaction and the live files it replaces, all of one partition spec
// and partition value.
struct CompactionOutput {
  int32_t spec_id = 0;
  std::string partition;  // the partition path ("region=eu/ts_day=2024-01-01"), "" unpartitioned
  std::vector<std::string> inputs;
  int64_t input_bytes = 0;
  int64_t input_rows = 0;    // rows in the input files, deleted ones included
  int64_t deleted_rows = 0;  // rows the inputs' deletion vectors delete: they are not written
  std::string reason;        // why these files (small files, deleted rows)
  // After the run (empty in a plan):
  std::string path;
  int64_t bytes = 0;
  int64_t rows = 0;
};

struct CompactionResult {
  std::string dataset;
  CompactionRule rule = CompactionRule::kBrute;  // as resolved: never kAuto
  bool dry_run = false;
  int64_t read_snapshot_id = 0;        // the snapshot the plan was made at
  std::optional<int64_t> snapshot_id;  // the compaction's snapshot (not in a plan or a no-op)
  // The thresholds in force (dataset properties or their defaults), bytes.
  int64_t target_file_size = 0, min_file_size = 0, max_file_size = 0;
  std::vector<CompactionOutput> outputs;
  // Non-empty when there is nothing to compact: why (not an error).
  std::string nothing_to_do;
  int64_t files_in() const;
  int64_t bytes_in() const;
  int64_t rows_out() const;  // in a plan: the rows that will be written
};

}  // namespace tarn

// tarn's C++ SDK: one interface for a catalog, embedded or remote (docs/features.md I1-I4).
//
//   auto client = tarn::Client::Connect("/data/tarn", {});                 // embedded
//   auto client = tarn::Client::Connect("http://127.0.0.1:8181", creds);   // tarn serve
//
// The embedded implementation is the Catalog itself (src/catalog/catalog.h); the remote one
// speaks the HTTP API of docs/openapi.json (src/client). Both return the same Status kinds and
// error fields for the same failures, so code written against this header does not care where
// the catalog lives. Value types are those of tarn/dataset.h and tarn/access.h.
//
// Libraries (cmake --install, then find_package(tarn)): tarn::tarn has everything; tarn::client
// only the remote client (Client::ConnectRemote, Uploads::ForRemote), without the embedded
// engine and so without SQLite, libpq and argon2.
//
// Errors. Every failure is a Status (tarn/status.h): its kind, and usually a field "code" (read
// it with ErrorField(status, "code"), tarn/upload.h) naming the failure. Below, each method says
// "Errors:" as code (kind). Besides those, any method may return:
//   - a malformed name (workspace, collection, dataset, column): kInvalidArgument; embedded
//     without a code, remotely code=invalid_identifier.
//   - remotely, for any call: server_unreachable and overloaded and shutting_down
//     (kUnavailable, retryable), truncated_body and truncated_stream (kIOError), bad_response
//     and bad_frame (kCorruption: the server's answer did not decode), unauthenticated and
//     invalid_token and invalid_token_response (kUnauthenticated), permission_denied
//     (kPermissionDenied: the credential's role or pattern does not cover the target),
//     too_large (kTooLarge), request_timeout (kInvalidArgument), internal (kInternal, with the
//     field reference that the server's log carries).
//   - embedded: kIOError and kCorruption from the metastore or the warehouse, kUnavailable when
//     a PostgreSQL metastore cannot be reached, kInternal for a bug.
// Workspace, collection and dataset lookups fail with workspace_not_found,
// collection_not_found and dataset_not_found (kNotFound; the fields workspace, collection,
// dataset); "not_found" below stands for whichever of them applies.
//
// Thread safety: every implementation may be used from several threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tarn/access.h"
#include "tarn/alert.h"
#include "tarn/column.h"
#include "tarn/dataset.h"
#include "tarn/iceberg.h"
#include "tarn/integrity.h"
#include "tarn/manifest.h"
#include "tarn/provenance.h"
#include "tarn/query.h"
#include "tarn/status.h"
#include "tarn/task.h"
#include "tarn/view.h"

namespace tarn {

// How to reach a remote catalog. Credentials: a client id and secret (exchanged at
// POST /v1/token for a short-lived bearer token, refreshed before it expires), or a bearer
// token taken as is. Without either, an OpenID Connect ID token from the environment is
// exchanged instead when there is one (docs/design/federation.md): the file named by
// TARN_OIDC_TOKEN_FILE (read again at each exchange), a GitHub Actions job's token endpoint
// (ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN), or a GCP VM's metadata server. Ignored by the
// embedded catalog.
struct ClientOptions {
  std::string client_id;
  std::string client_secret;
  std::string token;
  // The audience asked for when the client fetches an ID token (the server's --oidc-audience);
  // empty: "tarn".
  std::string oidc_audience;
  // Whether to look for an ID token in the environment when no credential is given.
  bool federated_sign_in = true;
  double connect_timeout_s = 10;
  double request_timeout_s = 300;  // per request; streams reset it on progress
  std::string user_agent = "tarn-sdk/0.1";
  // Fills the three credentials from TARN_CLIENT_ID / TARN_CLIENT_SECRET / TARN_TOKEN, and
  // oidc_audience from TARN_OIDC_AUDIENCE, where they are empty.
  void FillFromEnvironment();
};

class Client {
 public:
  virtual ~Client() = default;

  // `target`: a directory (the embedded catalog, created when missing) or an http(s):// URL of
  // `tarn serve`. Part of tarn::tarn only (it links the embedded engine).
  // Errors: kInvalidArgument for an empty target; remote: invalid_url (kInvalidArgument),
  // invalid_client (kUnauthenticated: the client id and secret were refused),
  // id_token_unavailable (kUnauthenticated or kNotFound: no usable ID token), server_unreachable
  // (kUnavailable); embedded: kIOError when the directory cannot be created or opened.
  static Result<std::unique_ptr<Client>> Connect(std::string_view target,
                                                 ClientOptions options = {});
  // An http(s):// URL of `tarn serve` only: the entry point of tarn::client, the library
  // without the embedded engine (no SQLite, libpq or argon2); also in tarn::tarn.
  // Errors: Connect's remote ones; invalid_url (kInvalidArgument) for anything but such a URL.
  static Result<std::unique_ptr<Client>> ConnectRemote(std::string_view url,
                                                       ClientOptions options = {});

  // True for a remote catalog.
  virtual bool remote() const = 0;
  // Who the calls run as: the client id remotely, "local:<user>" embedded.
  virtual std::string actor() const = 0;

  // ---- workspaces (C1) ----
  // Errors: kAlreadyExists (field workspace) unless exists_ok; kInvalidArgument for a bad
  // property key or value.
  Status CreateWorkspace(std::string_view name, bool exists_ok = false,
                         const PropertyMap& properties = {}) {
    return DoCreateWorkspace(name, exists_ok, properties);
  }
  // Errors: workspace_not_found.
  virtual Result<WorkspaceInfo> GetWorkspace(std::string_view name) = 0;
  // Remotely only the workspaces the credential may see.
  virtual Result<std::vector<WorkspaceInfo>> ListWorkspaces() = 0;
  // Errors (both): workspace_not_found; kInvalidArgument for a bad key or value.
  virtual Status SetWorkspaceProperties(std::string_view name, const PropertyMap& set) = 0;
  virtual Status UnsetWorkspaceProperties(std::string_view name,
                                          const std::vector<std::string>& keys) = 0;
  // Errors: workspace_not_found; deletion_protected and workspace_not_empty
  // (kFailedPrecondition).
  virtual Status DropWorkspace(std::string_view name) = 0;
  // SECURE (SecureObject): lets `object` (w.c.name: the view, task or dataset that writes the
  // copy) copy `workspace`'s data into each of `destinations` despite its egress lock; a mark
  // for an object already marked replaces its destinations. `author` is recorded (empty:
  // actor(); remotely the server records the caller's client id). Run against the SOURCE
  // workspace: remotely, an owner of it. Errors: workspace_not_found; kInvalidArgument for an
  // object that is not w.c.name, no destination, a malformed one, or the source itself (a copy
  // within one workspace is never egress); remotely permission_denied.
  virtual Status MarkSecure(std::string_view workspace, std::string_view object,
                            const std::vector<std::string>& destinations,
                            std::string_view author) = 0;
  // Withdraws `object`'s exemption. Errors: workspace_not_found; secure_object_not_found
  // (kNotFound, field object); remotely permission_denied.
  virtual Status ClearSecure(std::string_view workspace, std::string_view object) = 0;
  // What `workspace` has sanctioned, with who and when (SecureObjectsOf). Errors: GetWorkspace's.
  Result<std::vector<SecureObject>> ListSecure(std::string_view workspace) {
    TARN_ASSIGN_OR_RETURN(WorkspaceInfo w, GetWorkspace(workspace));
    return SecureObjectsOf(w);
  }

  // ---- collections (C2) ----
  // Errors: workspace_not_found; kAlreadyExists (field collection) unless exists_ok;
  // kInvalidArgument for a name that is not workspace.collection or a bad property.
  Status CreateCollection(std::string_view qualified, bool exists_ok = false,
                          std::string_view description = {}, const PropertyMap& properties = {}) {
    return DoCreateCollection(qualified, exists_ok, description, properties);
  }
  // Errors: workspace_not_found.
  virtual Result<std::vector<CollectionInfo>> ListCollections(std::string_view workspace) = 0;
  // Errors: not_found.
  virtual Result<CollectionInfo> GetCollection(std::string_view qualified) = 0;
  // Errors: not_found; collection_not_empty (kFailedPrecondition: live datasets remain).
  virtual Status DropCollection(std::string_view qualified) = 0;
  // Errors (both): not_found; kInvalidArgument for a bad key or value.
  virtual Status SetCollectionProperties(std::string_view qualified, const PropertyMap& set) = 0;
  virtual Status UnsetCollectionProperties(std::string_view qualified,
                                           const std::vector<std::string>& keys) = 0;

  // ---- datasets (C3, C6, C7) ----
  // Errors: not_found (workspace, collection); dataset_exists (kAlreadyExists) unless
  // exists_ok; invalid_name (kInvalidArgument, a column name); kInvalidArgument for an empty
  // schema, a bad partition spec or sort order, a bad property.
  Result<DatasetInfo> CreateDataset(std::string_view qualified, DatasetDefinition def,
                                    bool exists_ok = false) {
    return DoCreateDataset(qualified, std::move(def), exists_ok);
  }
  // Errors: not_found; with `at`: snapshot_not_found and tag_not_found (kNotFound),
  // snapshot_expired (kExpired, field expired_through).
  Result<DatasetInfo> LoadDataset(std::string_view qualified, const SnapshotSelector& at = {}) {
    return DoLoadDataset(qualified, at);
  }
  // Errors: not_found (workspace, collection).
  virtual Result<std::vector<DatasetInfo>> ListDatasets(std::string_view collection) = 0;
  // Within its collection. Errors: not_found; dataset_exists (kAlreadyExists) for a taken name.
  virtual Status RenameDataset(std::string_view qualified, std::string_view new_name) = 0;
  // Errors: not_found; deletion_protected (kFailedPrecondition); incarnation_changed (kStale)
  // when expected_uuid is not the live dataset's.
  Status DropDataset(std::string_view qualified, bool purge = false,
                     std::optional<std::string> expected_uuid = std::nullopt) {
    return DoDropDataset(qualified, purge, std::move(expected_uuid));
  }
  // Errors: not_found; kInvalidArgument for a bad key or value.
  Status SetDatasetProperties(std::string_view qualified, const PropertyMap& set,
                              const std::vector<std::string>& unset = {}) {
    return DoSetDatasetProperties(qualified, set, unset);
  }
  // Errors: not_found; column_not_found, promotion_not_lossless and invalid_name
  // (kInvalidArgument); kAlreadyExists (field column) for an added or renamed column that
  // exists; commit_conflict (kConflict) when read_snapshot_id is not the current snapshot.
  Result<DatasetInfo> AlterSchema(std::string_view qualified,
                                  const std::vector<SchemaChange>& changes,
                                  std::optional<int64_t> read_snapshot_id = std::nullopt) {
    return DoAlterSchema(qualified, changes, read_snapshot_id);
  }
  // Errors (both): not_found; kInvalidArgument for bad syntax, an unknown column or an
  // inapplicable transform.
  virtual Result<DatasetInfo> SetPartitionSpec(std::string_view qualified,
                                               std::string_view spec) = 0;
  virtual Result<DatasetInfo> SetSortOrder(std::string_view qualified, std::string_view order) = 0;

  // ---- commits (C4) ----
  // Every added file must already be in the warehouse (paths relative to its root), under the
  // dataset's own prefix or a location granted to it, referenced by no other dataset
  // (code=path_not_owned), and exist with the stated size (code=file_not_found,
  // not_a_regular_file, file_size_mismatch).
  // All parts commit or none. Errors: not_found; author_required (kInvalidArgument);
  // path_outside_warehouse, file_not_found, not_a_regular_file, file_size_mismatch
  // (kInvalidArgument); path_not_owned (kPermissionDenied); commit_conflict and spec_changed
  // (kConflict: re-read and retry); incarnation_changed (kStale); snapshot_not_found and
  // snapshot_expired for a rollback target. A retry with the same idempotency key returns the
  // first commit's snapshots.
  virtual Result<std::vector<SnapshotInfo>> Commit(std::vector<DatasetCommit> parts) = 0;
  Result<SnapshotInfo> Commit(DatasetCommit part) {
    std::vector<DatasetCommit> parts;
    parts.push_back(std::move(part));
    TARN_ASSIGN_OR_RETURN(auto snapshots, Commit(std::move(parts)));
    return std::move(snapshots.front());
  }
  // Writes the batches as Parquet and commits them (op: kAppend or kOverwrite). Errors:
  // not_found; author_required and no_rows (kInvalidArgument); kInvalidArgument for a batch
  // that does not fit the schema; incarnation_changed (kStale); commit_conflict (kConflict,
  // overwrite only).
  Result<SnapshotInfo> Append(std::string_view qualified, const std::vector<RecordBatch>& batches,
                              CommitMeta meta, CommitOperation op = CommitOperation::kAppend,
                              std::optional<std::string> expected_uuid = std::nullopt) {
    return DoAppend(qualified, batches, std::move(meta), op, std::move(expected_uuid));
  }
  // Pulls batches from `next` until it returns nullopt; memory stays bounded (remote: the
  // batches stream to the server, which writes and commits them as one snapshot). Errors: as
  // Append, and whatever `next` returns.
  using BatchSource = std::function<Result<std::optional<RecordBatch>>()>;
  Result<SnapshotInfo> AppendStream(std::string_view qualified, const BatchSource& next,
                                    CommitMeta meta, CommitOperation op = CommitOperation::kAppend,
                                    std::optional<std::string> expected_uuid = std::nullopt) {
    return DoAppendStream(qualified, next, std::move(meta), op, std::move(expected_uuid));
  }
  // Deletes the rows `where` matches (empty: none) and appends the rows `next` yields, as one
  // snapshot (operation merge): a reader sees both or neither. The deletes are planned after
  // the rows are written, against the snapshot the commit replaces, and planned again when
  // another commit came first. No row to delete or add commits nothing (snapshot_id 0).
  // Memory as AppendStream. With read_snapshot_id (the snapshot the caller computed the rows
  // against) the commit is refused with commit_conflict when the dataset changed since, instead
  // of planning again. Errors: AppendStream's; DeleteRows' for `where`; commit_conflict
  // (kConflict) when other commits kept coming first.
  Result<SnapshotInfo> ReplaceWhere(std::string_view qualified, std::string_view where,
                                    const BatchSource& next, CommitMeta meta,
                                    std::optional<std::string> expected_uuid = std::nullopt,
                                    std::optional<int64_t> read_snapshot_id = std::nullopt) {
    return DoReplaceWhere(qualified, where, next, std::move(meta), std::move(expected_uuid),
                          read_snapshot_id);
  }
  // Registers existing Parquet files (truncate_first: replacing every live file). Errors: those
  // of Commit for added files; not_parquet (kInvalidArgument); file_changed (kConflict: a file
  // changed while it was read).
  Result<SnapshotInfo> AddFiles(std::string_view qualified, const std::vector<std::string>& paths,
                                CommitMeta meta, bool truncate_first = false) {
    return DoAddFiles(qualified, paths, std::move(meta), truncate_first);
  }
  // Errors: not_found; kInvalidArgument for a bad predicate (code predicate_invalid_literal or
  // predicate_type_mismatch for a literal that does not fit its column); commit_conflict.
  virtual Result<SnapshotInfo> DeleteRows(std::string_view qualified, std::string_view where,
                                          CommitMeta meta) = 0;
  // Errors: not_found; snapshot_not_found; snapshot_expired (kExpired); commit_conflict.
  virtual Result<SnapshotInfo> Rollback(std::string_view qualified, int64_t to_snapshot_id,
                                        CommitMeta meta) = 0;

  // ---- external locations: warehouse prefixes an owner granted to one dataset ----
  // Files under a granted prefix may be registered in that dataset (add_files, commits);
  // otherwise only files under its own prefix may. Remote: owner role on the workspace.
  // Errors: not_found; invalid_location (kInvalidArgument: not a prefix outside every
  // tarn-managed area); location_in_use (kFailedPrecondition: granted to another dataset).
  virtual Status GrantLocation(std::string_view qualified, std::string_view prefix) = 0;
  // Errors: not_found; location_not_found (kNotFound).
  virtual Status RevokeLocation(std::string_view qualified, std::string_view prefix) = 0;
  // Errors: not_found.
  virtual Result<std::vector<LocationGrant>> ListLocations(std::string_view qualified) = 0;

  // ---- snapshots, time travel and tags (C5) ----
  // Every snapshot, by snapshot id (remotely fetched in pages of kMaxSnapshotPage).
  // Errors: not_found.
  Result<std::vector<SnapshotInfo>> ListSnapshots(std::string_view qualified) {
    return DoListSnapshots(qualified, SnapshotQuery{});
  }
  // One page of them, by snapshot id (SnapshotQuery: the cursors are snapshot ids). Errors:
  // not_found; kInvalidArgument (field limit) for a limit outside 1..kMaxSnapshotPage.
  Result<std::vector<SnapshotInfo>> ListSnapshots(std::string_view qualified,
                                                  const SnapshotQuery& query) {
    return DoListSnapshots(qualified, query);
  }
  // Errors: not_found; snapshot_not_found and tag_not_found (kNotFound); snapshot_expired
  // (kExpired).
  virtual Result<SnapshotInfo> GetSnapshot(std::string_view qualified,
                                           const SnapshotSelector& at) = 0;
  // For a read of what snapshots after `snapshot_id` added (ScanOptions::added_after): the
  // lowest row id a row new since then can have (that snapshot's SnapshotInfo::next_row_id);
  // of a file a compaction wrote after it (DataFile::StoresRowIds), only rows at or above it
  // are new: the others were rewritten, keeping their ids. nullopt
  // when every row of a newer file counts: snapshot 0, a snapshot committed before the
  // watermark was recorded, or one expired or unknown. Errors: the others of GetSnapshot.
  Result<std::optional<int64_t>> AddedAfterWatermark(std::string_view qualified,
                                                     int64_t snapshot_id) {
    if (snapshot_id <= 0) return std::optional<int64_t>();
    SnapshotSelector at;
    at.snapshot_id = snapshot_id;
    auto s = GetSnapshot(qualified, at);
    if (!s.ok()) {
      const ErrorKind kind = s.status().kind();
      if (kind == ErrorKind::kExpired || kind == ErrorKind::kNotFound) {
        return std::optional<int64_t>();
      }
      return s.status();
    }
    return s->next_row_id;
  }
  // Errors: those of GetSnapshot for `at`; reserved_name (kInvalidArgument: current, previous,
  // head, last); kAlreadyExists (field tag) unless replace; remotely ambiguous_selector
  // (kInvalidArgument) for more than one selector.
  Status CreateTag(std::string_view qualified, std::string_view tag, const SnapshotSelector& at,
                   bool replace = false) {
    return DoCreateTag(qualified, tag, at, replace);
  }
  // Errors: not_found; tag_not_found.
  virtual Status DropTag(std::string_view qualified, std::string_view tag) = 0;
  // Errors: not_found.
  virtual Result<std::vector<TagInfo>> ListTags(std::string_view qualified) = 0;

  // ---- provenance (docs/design/provenance.md) ----
  // What each snapshot was built from: receipts newest first (at most `limit`, 1..10000), or
  // only `snapshot`, with a readable "how", and the standing source list now.
  // Errors: not_found; snapshot_not_found (kNotFound); kInvalidArgument for a bad limit.
  virtual Result<LineageResult> Lineage(std::string_view qualified, std::optional<int64_t> snapshot,
                                        size_t limit) = 0;
  // Who consumes the dataset now: live datasets whose standing source list names it, in any
  // workspace, named in full even where the caller cannot read them (a name is not data), at
  // most kMaxConsumers. Errors: not_found.
  virtual Result<ImpactResult> Impact(std::string_view qualified) = 0;
  // Whose commits read the dataset (at `version` when set), from the receipts, newest first, at
  // most kMaxConsumers; named in full like Impact. Errors: not_found.
  virtual Result<ReadersResult> Readers(std::string_view qualified,
                                        std::optional<int64_t> version) = 0;

  // ---- planning (C8) and scans; both stream, memory bounded by one file ----
  // Errors (both): those of GetSnapshot for `at`; kInvalidArgument for a bad `where`
  // (predicate_invalid_literal, predicate_type_mismatch); whatever `fn` returns, which stops
  // the stream. Scan also: file_metadata_mismatch (kCorruption: a data file is not what the
  // catalog recorded), kNotFound / kIOError for a data file that cannot be read.
  Status PlanFiles(std::string_view qualified, const SnapshotSelector& at, std::string_view where,
                   const std::function<Status(const PlannedFile&)>& fn) {
    return DoPlanFiles(qualified, at, where, FileQuery{}, fn);
  }
  // One page of them, by path (FileQuery: the cursors are paths). Also kInvalidArgument (field
  // limit) for a limit outside 1..kMaxFilePage.
  Status PlanFiles(std::string_view qualified, const SnapshotSelector& at, std::string_view where,
                   const FileQuery& page, const std::function<Status(const PlannedFile&)>& fn) {
    return DoPlanFiles(qualified, at, where, page, fn);
  }
  Status Scan(std::string_view qualified, const SnapshotSelector& at, std::string_view where,
              bool with_row_ids, const std::function<Status(const RecordBatch&)>& fn) {
    ScanOptions options;
    options.at = at;
    options.where = std::string(where);
    options.with_row_ids = with_row_ids;
    return DoScan(qualified, options, fn);
  }
  // The same with only `options.columns` (by name, in that order; empty: every column), so
  // only their column chunks are read (remotely: only they cross the network). Also:
  // column_not_found (kInvalidArgument, field column) for a name the schema lacks.
  Status Scan(std::string_view qualified, const ScanOptions& options,
              const std::function<Status(const RecordBatch&)>& fn) {
    return DoScan(qualified, options, fn);
  }

  // ---- manifest export (C12; tarn/manifest.h) ----
  // Writes the manifest of the dataset at `at` (default: the current snapshot) to `write`, in
  // order, as one Parquet file: a row per live data file of the snapshot (path, format, counts,
  // partition values, row-id range, deletion vector, per-column statistics; the schema is in
  // docs/design/maintenance.md "Manifest export"). Memory stays bounded by a row group of the
  // manifest. An error from `write` stops the export and is returned (what was written before
  // is then no manifest).
  // Errors: not_found; snapshot_not_found (kNotFound, also for a dataset without commits),
  // tag_not_found; snapshot_expired (kExpired); remotely ambiguous_selector, and
  // truncated_stream (kIOError) when the export was cut.
  virtual Result<ManifestInfo> ExportManifest(
      std::string_view qualified, const SnapshotSelector& at,
      const std::function<Status(std::string_view bytes)>& write) = 0;

  // ---- Iceberg (tarn/iceberg.h; docs/design/iceberg.md) ----
  // The Iceberg table metadata of the dataset at request.at, produced when first asked and kept
  // (immutable) under the dataset's prefix: the snapshot's manifests, a position delete file per
  // deletion vector, the manifest list and the metadata JSON, which lists the snapshot, the
  // snapshots its tags name (produced too) and those produced before. A second request finds
  // them and writes at most a new metadata JSON (when tags or the produced set changed).
  // Errors: not_found; snapshot_not_found, tag_not_found; snapshot_expired; iceberg_unsupported
  // (kInvalidArgument) for a format version other than 2, a file_base given to a remote client,
  // or a dataset a reader could not be shown (a partition over a column Iceberg cannot type).
  virtual Result<IcebergTableInfo> IcebergTable(std::string_view qualified,
                                                const IcebergRequest& request) = 0;
  // Creates dataset `qualified` from an existing Iceberg table's current snapshot, without
  // copying data: its schema with the table's field ids, its default partition spec, its data
  // files with their statistics (one add_files snapshot: each file checked as add_files checks
  // it, the table's location granted to the dataset), and its position deletes as deletion
  // vectors (a second snapshot). Everything is read and checked before the dataset is created;
  // if a commit fails after, the dataset is dropped again. Owner role remotely.
  // Errors: dataset_exists; path_outside_warehouse (the metadata or a file outside the
  // warehouse); not_found for a missing metadata, manifest or delete file; iceberg_unsupported
  // (kInvalidArgument) naming what tarn cannot hold (types, equality deletes, files of another
  // partition spec than the table's default, formats other than Parquet); kCorruption for
  // metadata or manifests that are not Iceberg; and the errors of GrantLocation and add_files
  // (invalid_location when the table lies in a tarn-managed area, file_not_found,
  // file_size_mismatch, path_not_owned).
  virtual Result<IcebergRegisterResult> RegisterIcebergTable(
      std::string_view qualified, const IcebergRegisterRequest& request) = 0;

  // ---- change feed (C9) ----
  // The whole range (remotely fetched in pages of kMaxChangePage snapshots). Errors:
  // not_found; kInvalidArgument for a range outside (0, current]; changes_expired (kExpired:
  // part of the range has expired).
  Result<ChangeSet> Changes(std::string_view qualified, int64_t from_snapshot_id,
                            std::optional<int64_t> to_snapshot_id = std::nullopt) {
    ChangeQuery query;
    query.from = from_snapshot_id;
    query.to = to_snapshot_id;
    return DoChanges(qualified, query);
  }
  // One page of it (ChangeQuery: at most `limit` snapshots; ChangeSet::next_from continues).
  // Also kInvalidArgument (field limit) for a limit outside 1..kMaxChangePage.
  Result<ChangeSet> Changes(std::string_view qualified, const ChangeQuery& query) {
    return DoChanges(qualified, query);
  }
  // Errors: not_found; offset_out_of_range (kInvalidArgument: no such snapshot);
  // offset_regression (kFailedPrecondition: behind the consumer's committed offset).
  virtual Status CommitOffset(std::string_view qualified, std::string_view consumer,
                              int64_t snapshot_id) = 0;
  // nullopt when the consumer never committed. Errors: not_found.
  virtual Result<std::optional<int64_t>> GetOffset(std::string_view qualified,
                                                   std::string_view consumer) = 0;

  // ---- maintenance (C11) ----
  // Errors: not_found.
  virtual Result<ExpiryResult> ExpireSnapshots(std::string_view qualified,
                                               const ExpiryOptions& options) = 0;
  // Applies every retention policy (docs/design/maintenance.md "Retention") of the live
  // datasets of options.workspace (empty: all): ExpireSnapshots with older_than = now minus
  // the dataset's `retention` (else its workspace's) and consumer offsets respected unless
  // `retention.consumer_floor` is false. A dataset that fails is reported in its entry
  // (error_code, error) and the others go on; a malformed policy is invalid_property there.
  // Remotely: owner of the workspace (every workspace when none is named). Errors: not_found
  // for an unknown workspace; the store's.
  virtual Result<RetentionResult> ApplyRetention(const RetentionOptions& options) = 0;
  // Objects that cannot be deleted stay pending (CleanupResult::pending), not an error.
  Result<CleanupResult> Cleanup(bool delete_orphans = false) { return DoCleanup(delete_orphans); }
  // One compaction pass (docs/design/maintenance.md "Compaction"): the live files of each
  // partition that are under the minimum size or carry deleted rows are rewritten into files of
  // the target size, their rows keeping their row ids, and committed as one snapshot of
  // operation compact (user_created false: no trigger fires). With options.dry_run only the
  // plan. Nothing to do is a result (CompactionResult::nothing_to_do), not an error. The meta's
  // author is the snapshot's (empty: the caller); user_created and the receipt are the
  // compaction's own. Remotely: owner. Errors: not_found; kInvalidArgument for a malformed
  // options.where, compaction_filter_not_partition (field column) for one that names a column
  // no partition field reads; invalid_property (kInvalidArgument, field property) for a
  // malformed compaction.* size property; commit_conflict (kConflict,
  // retryable) when rows of the files it rewrote were deleted, or those files replaced, while
  // it ran (appends never conflict); the store's errors.
  virtual Result<CompactionResult> Compact(std::string_view qualified,
                                           const CompactionOptions& options, CommitMeta meta) = 0;
  // Fills in the statistics of the dataset's live files registered with statistics pending
  // (DataFile::stats_pending; commits with `stats: "pending"`, appends with
  // CommitMeta::defer_stats) from their Parquet footers. No snapshot is made: the files, their
  // rows and row ids stay as they are; planning prunes them by column statistics from then on.
  // A file whose footer cannot be read, or whose record count or size is not the registered
  // one (stats_mismatch), is a failure entry and stays pending. Remotely: writer. Errors:
  // not_found; kInvalidArgument for a negative limit; the store's.
  virtual Result<StatsHydrationResult> HydrateStats(std::string_view qualified,
                                                    const StatsHydrationOptions& options) = 0;
  // Writes the dataset's inlined files (kInlineMaxBytesProperty) out to the warehouse at their
  // paths and stops keeping their bytes in the metastore. No snapshot is made: the files, their
  // rows and row ids stay as they are; readers that read the warehouse without tarn (an
  // Iceberg engine, DuckDB's own reader) find them from then on. Files appended inlined later
  // are kept until the next call. Remotely: writer. Errors: not_found; the store's.
  virtual Result<InlineFlushResult> FlushInlined(std::string_view qualified) = 0;

  // ---- views (V1; tarn/view.h, docs/design/views.md) ----
  // Views and datasets of a collection share one namespace. `replace`: a new statement version
  // of an existing view (created when missing). The author is the caller (embedded: actor()).
  // Remotely: owner on the workspace. Errors: not_found (workspace, collection); view_exists
  // (kAlreadyExists, field view) unless replace; dataset_exists (a dataset has the name);
  // invalid_dialect and invalid_view_sql (kInvalidArgument); kInvalidArgument for a bad
  // description or declared schema.
  Result<ViewInfo> CreateView(std::string_view qualified, const ViewDefinition& def,
                              bool replace = false) {
    return DoCreateView(qualified, def, replace);
  }
  // The view with its current statement, or with statement `version` in `current`.
  // Errors: not_found (workspace, collection); view_not_found (kNotFound, field view);
  // view_version_not_found (kNotFound).
  Result<ViewInfo> GetView(std::string_view qualified,
                           std::optional<int64_t> version = std::nullopt) {
    return DoGetView(qualified, version);
  }
  // By name. Errors: not_found (workspace, collection).
  virtual Result<std::vector<ViewInfo>> ListViews(std::string_view collection) = 0;
  // Every statement version, oldest first. Errors: view_not_found.
  virtual Result<std::vector<ViewVersion>> ListViewVersions(std::string_view qualified) = 0;
  // The view and its versions go. Remotely: owner. Errors: view_not_found.
  virtual Status DropView(std::string_view qualified) = 0;
  // Records a run of the view (Client::Query does after each query that read it): now, the
  // rows and seconds of that query. Remotely: reader. Errors: view_not_found; kInvalidArgument
  // for negative numbers.
  virtual Status RecordViewRun(std::string_view qualified, int64_t row_count, double seconds) = 0;

  // ---- materialized views and triggers (V2, V3; docs/design/views.md) ----
  // Not virtual (the SQL runs in this process, like Query; part of tarn::tarn only). Creates
  // the dataset by running the SQL (as QueryInto with kCreate), then registers it: the SQL
  // (version 1), its sources (every dataset it read, through views) and one refresh trigger on
  // each source (minimum interval 120 s), in one transaction. With options.replace on an
  // existing materialized view: a new SQL version, its data overwritten by the new SQL's
  // result, the triggers rewritten to the new sources (a kept trigger keeps its interval); the
  // trigger graph is checked before anything is written.
  // Errors: QueryInto's (egress_blocked, dataset_exists for a dataset that is no
  // materialized view, the SQL's); trigger_cycle (kFailedPrecondition: a source is fed by this
  // view); view_exists (a plain view has the name).
  Result<MaterializedViewInfo> CreateMaterializedView(std::string_view qualified,
                                                      const ViewDefinition& def,
                                                      const MaterializedViewOptions& options);
  // Runs the view's SQL and overwrites its data with the result as one snapshot (receipt:
  // producer view:<name>, every source at the snapshot read), then records the outcome on the
  // view (RecordRefresh): succeeded, or failed / denied / egress_blocked with the error. The
  // returned status is the refresh's own error when it did not succeed.
  // Errors: materialized_view_not_found; QueryInto's; permission_denied (remotely: the caller
  // may not write the view).
  Result<RefreshResult> RefreshMaterializedView(std::string_view qualified,
                                                const RefreshOptions& options);
  // Registers an existing dataset as the materialized view of `def` over `sources` (what
  // CreateMaterializedView does after its first run), refreshed as `refresh_kind` says
  // (kRefreshFull or kRefreshIncremental: the caller decides from the SQL; an incremental
  // view's data carries kSourceRowIdColumn). Remotely: owner. Also kInvalidArgument for
  // another refresh kind.
  // Errors: not_found; dataset_not_found for a source; trigger_cycle; view_exists;
  // materialized_view_exists (kAlreadyExists) unless replace.
  virtual Result<MaterializedViewInfo> RegisterMaterializedView(
      std::string_view qualified, const ViewDefinition& def,
      const std::vector<std::string>& sources, bool replace, std::string_view refresh_kind) = 0;
  // Errors: materialized_view_not_found (kNotFound, field view).
  virtual Result<MaterializedViewInfo> GetMaterializedView(std::string_view qualified) = 0;
  virtual Result<std::vector<MaterializedViewInfo>> ListMaterializedViews(
      std::string_view collection) = 0;
  // Removes its triggers, then its definition, then drops its dataset (history kept unless
  // purge). Remotely: owner. Errors: materialized_view_not_found; DropDataset's.
  virtual Status DropMaterializedView(std::string_view qualified, bool purge) = 0;
  // Stores how a refresh ended. Remotely: writer. Errors: materialized_view_not_found.
  virtual Status RecordRefresh(std::string_view qualified, const RefreshRecord& record) = 0;
  // The triggers a dataset carries. Errors: not_found.
  virtual Result<std::vector<TriggerInfo>> ListTriggers(std::string_view dataset) = 0;
  // Sets a trigger's minimum interval (0: none; nullopt: the field removed, every commit
  // fires). Remotely: owner. Errors: trigger_not_found (kNotFound); kInvalidArgument for a
  // negative interval.
  virtual Status SetTriggerInterval(std::string_view dataset, std::string_view trigger,
                                    std::optional<int64_t> seconds) = 0;

  // ---- tasks (V3; tarn/task.h, docs/design/tasks.md) ----
  // Not virtual (the SQL is bound in this process, like CreateMaterializedView; part of
  // tarn::tarn only). Splits `INSERT INTO w.c.d <query>` when def.target is empty, binds the
  // query to learn every dataset it reads (nothing runs, nothing is written), then
  // RegisterTask with that declaration. With replace on an existing task: a new statement
  // version, the declaration and the trigger rewritten.
  // Errors: invalid_task (kInvalidArgument, field: sql, target, mode, trigger, on, schedule,
  // time_zone, runs_as); the query's (sql_syntax_error, dataset_not_found, ...); RegisterTask's.
  Result<TaskInfo> CreateTask(std::string_view qualified, const TaskDefinition& def,
                              bool replace = false);
  // Runs the task's query and writes its rows into its target as one snapshot (append or
  // overwrite; receipt: producer task:<name>, every dataset read at its snapshot), then records
  // the outcome on the task (RecordTaskRun): succeeded, or failed / denied / egress_blocked.
  // The returned status is the run's own error when it did not succeed.
  // Errors: task_not_found; author_required; QueryInto's (egress_blocked, permission_denied
  // remotely when the caller may not write the target, the SQL's).
  Result<TaskRunResult> RunTask(std::string_view qualified, const TaskRunOptions& options);
  // Stores a task with the datasets its SQL reads (`reads`, its declaration). The creator is
  // the caller (embedded: actor()); runs_as defaults to it. Remotely: owner of the task's
  // workspace. Errors: not_found (workspace, collection); dataset_not_found (target, on, a
  // read); invalid_task; task_exists (kAlreadyExists) unless replace; view_exists,
  // materialized_view_exists, dataset_exists (another object has the name); trigger_cycle (a
  // commit trigger whose source the target feeds); token_not_found (runs_as names no client).
  virtual Result<TaskInfo> RegisterTask(std::string_view qualified, const TaskDefinition& def,
                                        const std::vector<std::string>& reads, bool replace) = 0;
  // Errors: task_not_found (kNotFound, field task).
  virtual Result<TaskInfo> GetTask(std::string_view qualified) = 0;
  // By name. Errors: not_found (workspace, collection).
  virtual Result<std::vector<TaskInfo>> ListTasks(std::string_view collection) = 0;
  // The task, its trigger and declaration go (its jobs stay, to their purge time). Remotely:
  // owner. Errors: task_not_found.
  virtual Status DropTask(std::string_view qualified) = 0;
  // Records a run of a signal task: a job whose fired_by is the caller and whose run has the
  // task's runs_as rights. Remotely: writer on the task's workspace. Errors: task_not_found;
  // task_not_signalled (kFailedPrecondition) for a task with another trigger.
  virtual Result<JobInfo> SignalTask(std::string_view qualified) = 0;
  // Stores how a run ended (RunTask does). Remotely: writer. Errors: task_not_found;
  // kInvalidArgument for a status other than succeeded, failed, denied, egress_blocked.
  virtual Status RecordTaskRun(std::string_view qualified, const RefreshRecord& record) = 0;

  // ---- jobs (V3): the refreshes commits fire ----
  // Newest first, a page of `query.limit` from the cursors (JobQuery). Remotely: the jobs of
  // the workspaces the credential may read. Errors: kInvalidArgument for a bad state, target,
  // limit or cursor (a job id naming no job; field after / before).
  virtual Result<std::vector<JobInfo>> ListJobs(const JobQuery& query) = 0;
  // Errors: job_not_found (kNotFound).
  virtual Result<JobInfo> GetJob(std::string_view id) = 0;
  // Queues a job that ended failed, denied or egress_blocked again (remotely: writer on its
  // target). Errors: job_not_found; job_not_retryable (kFailedPrecondition) for a job queued,
  // running or succeeded.
  virtual Result<JobInfo> RetryJob(std::string_view id) = 0;
  // A runner's report on a running job (tarn worker's, with the job's token): the job ends in
  // report.state (or, with retry, is queued again with backoff) and a refresh that did not
  // succeed is recorded on the view. A report on a job no longer running changes nothing.
  // Remotely only with that job's token (permission_denied otherwise).
  // Errors: job_not_found; kInvalidArgument for a bad state.
  virtual Result<JobInfo> ReportJobOutcome(std::string_view id, const JobOutcomeReport& report) = 0;

  // ---- access tokens and audit (V5) ----
  // The creator is recorded on the token (embedded: actor(); remotely the caller's client id).
  // Errors: workspace_not_found; invalid_role and invalid_pattern (kInvalidArgument);
  // kInvalidArgument for a bad description or given id/secret; token_exists (kAlreadyExists);
  // remotely unsupported_remotely (kInvalidArgument) for a given client id or secret.
  virtual Result<NewAccessToken> CreateAccessToken(const AccessTokenSpec& spec) = 0;
  // `workspace` empty = every token the caller may see.
  virtual Result<std::vector<AccessTokenInfo>> ListAccessTokens(std::string_view workspace) = 0;
  // Bearer tokens already issued for the client stop working within the server's revocation
  // check interval (see docs/design/serve.md). Errors: token_not_found (kNotFound).
  virtual Status RevokeAccessToken(std::string_view client_id) = 0;
  // A page of the audit log in row id order (AuditQuery: the newest `limit` rows, or from the
  // `after` / `before` row ids). Errors: kInvalidArgument for a bad limit or time range.
  virtual Result<std::vector<AuditRecord>> ListAudit(const AuditQuery& query) = 0;
  // The alerts raised on this catalog (tarn/alert.h): one record per distinct failure, newest
  // first. Remotely: owner of query.workspace, or without one, of every workspace ("*"; a
  // token scoped to one workspace is given that workspace's alerts). Errors: kInvalidArgument
  // for a limit outside 1..10000.
  virtual Result<std::vector<AlertRecord>> ListAlerts(const AlertQuery& query) = 0;
  // The integrity sweep (tarn/integrity.h, `tarn fsck`): read-only; platform findings are also
  // alerted. Remotely: owner of options.workspace, or of every workspace without one.
  // Errors: workspace_not_found (kNotFound); kInvalidArgument for a negative grace.
  virtual Result<FsckReport> Fsck(const FsckOptions& options) = 0;

  // ---- SQL (docs/design/sql.md) ----
  // Not virtual: the query runs in this process, in DuckDB (libduckdb.so, loaded at the first
  // query), reading datasets through this client, embedded or remote, one snapshot per dataset
  // and selector for the whole query. Part of tarn::tarn only (tarn::client leaves the engine
  // out). Safe to call from several threads at once (each call has its own DuckDB database).
  //
  // Runs one query (SELECT, WITH, VALUES, FROM ...); `fn` receives its rows in batches of up
  // to 2048 (an error from `fn` stops the query and is returned). `w.c.d` names a dataset at
  // its current snapshot; tarn_scan('w.c.d', snapshot := N | tag := 'T' | at := TIMESTAMP
  // '...', filter := '...', row_ids := true) at another, pruned, with row ids.
  // Errors: sql_engine_unavailable (kUnavailable: no libduckdb.so); sql_syntax_error (field
  // position), sql_binder_error (fields line, column), sql_not_a_query, sql_unsupported_type
  // (field column), sql_error (field duckdb_error) (all kInvalidArgument); sql_interrupted and
  // sql_timeout (kCancelled); not_found for a dataset the query names; the errors of
  // LoadDataset and PlanFiles/Scan for the datasets read (snapshot_not_found, predicate
  // errors of filter :=; remotely permission_denied).
  Result<QueryResult> Query(std::string_view sql, const QueryOptions& options,
                            const std::function<Status(const RecordBatch&)>& fn);
  // Runs the query and commits its rows into `into.target` as one snapshot (tarn's writer, the
  // target's partition spec and sort order) whose receipt lists every dataset read, at the
  // snapshot each resolved to and how. Before anything is written, a read of another workspace
  // whose egress lock is on is refused. Append and overwrite match columns by name (defined
  // casts; a missing nullable column is NULL). Nothing is committed when the query fails
  // part-way; a dataset created for it is dropped again. An append of no rows commits nothing
  // (snapshot nullopt).
  // Errors: Query's; not_found for the target (append, overwrite); dataset_exists
  // (kAlreadyExists, create); egress_blocked (kPermissionDenied, fields workspace,
  // destination); column_not_found (a result column the target lacks); invalid_name (a
  // result column that is no valid column name: alias it); kInvalidArgument for a type that
  // does not cast or a NOT NULL column the result lacks; AppendStream's.
  Result<QueryIntoResult> QueryInto(std::string_view sql, const QueryOptions& options,
                                    const QueryIntoOptions& into);

  // ---- federated sign-in (docs/design/federation.md); remotely: owner on every workspace ----
  // ID tokens of spec.issuer with `sub` == spec.subject then sign in as spec.client_id.
  // Errors: invalid_issuer and invalid_subject (kInvalidArgument, field issuer / subject);
  // kInvalidArgument for a bad description; token_not_found (no such client);
  // federation_rule_exists (kAlreadyExists).
  virtual Result<FederationRule> CreateFederationRule(const FederationRuleSpec& spec) = 0;
  virtual Result<std::vector<FederationRule>> ListFederationRules() = 0;
  // Errors: federation_rule_not_found (kNotFound).
  virtual Status DeleteFederationRule(std::string_view id) = 0;

 protected:
  // What the public methods above that take default arguments run (the non-virtual interface
  // idiom): the defaults are stated once, on the public method, and an implementation
  // overrides these, which take every argument. Each is documented at its public method.
  virtual Status DoCreateWorkspace(std::string_view name, bool exists_ok,
                                   const PropertyMap& properties) = 0;
  virtual Status DoCreateCollection(std::string_view qualified, bool exists_ok,
                                    std::string_view description,
                                    const PropertyMap& properties) = 0;
  virtual Result<DatasetInfo> DoCreateDataset(std::string_view qualified, DatasetDefinition def,
                                              bool exists_ok) = 0;
  virtual Result<DatasetInfo> DoLoadDataset(std::string_view qualified,
                                            const SnapshotSelector& at) = 0;
  virtual Status DoDropDataset(std::string_view qualified, bool purge,
                               std::optional<std::string> expected_uuid) = 0;
  virtual Status DoSetDatasetProperties(std::string_view qualified, const PropertyMap& set,
                                        const std::vector<std::string>& unset) = 0;
  virtual Result<DatasetInfo> DoAlterSchema(std::string_view qualified,
                                            const std::vector<SchemaChange>& changes,
                                            std::optional<int64_t> read_snapshot_id) = 0;
  virtual Result<SnapshotInfo> DoAppend(std::string_view qualified,
                                        const std::vector<RecordBatch>& batches, CommitMeta meta,
                                        CommitOperation op,
                                        std::optional<std::string> expected_uuid) = 0;
  virtual Result<SnapshotInfo> DoAppendStream(std::string_view qualified, const BatchSource& next,
                                              CommitMeta meta, CommitOperation op,
                                              std::optional<std::string> expected_uuid) = 0;
  virtual Result<SnapshotInfo> DoReplaceWhere(std::string_view qualified, std::string_view where,
                                              const BatchSource& next, CommitMeta meta,
                                              std::optional<std::string> expected_uuid,
                                              std::optional<int64_t> read_snapshot_id) = 0;
  virtual Result<SnapshotInfo> DoAddFiles(std::string_view qualified,
                                          const std::vector<std::string>& paths, CommitMeta meta,
                                          bool truncate_first) = 0;
  virtual Status DoCreateTag(std::string_view qualified, std::string_view tag,
                             const SnapshotSelector& at, bool replace) = 0;
  virtual Result<ChangeSet> DoChanges(std::string_view qualified, const ChangeQuery& query) = 0;
  virtual Status DoPlanFiles(std::string_view qualified, const SnapshotSelector& at,
                             std::string_view where, const FileQuery& page,
                             const std::function<Status(const PlannedFile&)>& fn) = 0;
  virtual Result<std::vector<SnapshotInfo>> DoListSnapshots(std::string_view qualified,
                                                            const SnapshotQuery& query) = 0;
  virtual Result<CleanupResult> DoCleanup(bool delete_orphans) = 0;
  virtual Status DoScan(std::string_view qualified, const ScanOptions& options,
                        const std::function<Status(const RecordBatch&)>& fn) = 0;
  virtual Result<ViewInfo> DoCreateView(std::string_view qualified, const ViewDefinition& def,
                                        bool replace) = 0;
  virtual Result<ViewInfo> DoGetView(std::string_view qualified,
                                     std::optional<int64_t> version) = 0;
};

}  // namespace tarn

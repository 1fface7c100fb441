// tarn's C++ SDK: one interface for a catalog, embedded or remote (PRODUCT.md section 6).
//
//   auto client = tarn::Client::Connect("/data/tarn", {});                 // embedded
//   auto client = tarn::Client::Connect("http://127.0.0.1:8181", creds);   // tarn serve
//
// The embedded implementation is the Catalog itself (src/catalog/catalog.h); the remote one
// speaks the HTTP API of docs/openapi.json (src/client). Both return the same Status kinds and
// error fields for the same failures, so code written against this header does not care where
// the catalog lives. Value types are those of src/catalog/dataset.h and access.h.
//
// Thread safety: every implementation may be used from several threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/access.h"
#include "catalog/dataset.h"
#include "common/status.h"
#include "types/column.h"

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
  // `tarn serve`. Remote: kUnauthenticated when the credentials are refused, kUnavailable when
  // the server cannot be reached.
  static Result<std::unique_ptr<Client>> Connect(std::string_view target,
                                                 ClientOptions options = {});

  // True for a remote catalog.
  virtual bool remote() const = 0;
  // Who the calls run as: the client id remotely, "local:<user>" embedded.
  virtual std::string actor() const = 0;

  // ---- workspaces (C1) ----
  virtual Status CreateWorkspace(std::string_view name, bool exists_ok = false,
                                 const PropertyMap& properties = {}) = 0;
  virtual Result<WorkspaceInfo> GetWorkspace(std::string_view name) = 0;
  virtual Result<std::vector<WorkspaceInfo>> ListWorkspaces() = 0;
  virtual Status SetWorkspaceProperties(std::string_view name, const PropertyMap& set) = 0;
  virtual Status UnsetWorkspaceProperties(std::string_view name,
                                          const std::vector<std::string>& keys) = 0;
  virtual Status DropWorkspace(std::string_view name) = 0;

  // ---- collections (C2) ----
  virtual Status CreateCollection(std::string_view qualified, bool exists_ok = false,
                                  std::string_view description = {},
                                  const PropertyMap& properties = {}) = 0;
  virtual Result<std::vector<CollectionInfo>> ListCollections(std::string_view workspace) = 0;
  virtual Result<CollectionInfo> GetCollection(std::string_view qualified) = 0;
  virtual Status DropCollection(std::string_view qualified) = 0;
  virtual Status SetCollectionProperties(std::string_view qualified, const PropertyMap& set) = 0;
  virtual Status UnsetCollectionProperties(std::string_view qualified,
                                           const std::vector<std::string>& keys) = 0;

  // ---- datasets (C3, C6, C7) ----
  virtual Result<DatasetInfo> CreateDataset(std::string_view qualified, DatasetDefinition def,
                                            bool exists_ok = false) = 0;
  virtual Result<DatasetInfo> LoadDataset(std::string_view qualified,
                                          const SnapshotSelector& at = {}) = 0;
  virtual Result<std::vector<DatasetInfo>> ListDatasets(std::string_view collection) = 0;
  virtual Status RenameDataset(std::string_view qualified, std::string_view new_name) = 0;
  virtual Status DropDataset(std::string_view qualified, bool purge = false,
                             std::optional<std::string> expected_uuid = std::nullopt) = 0;
  virtual Status SetDatasetProperties(std::string_view qualified, const PropertyMap& set,
                                      const std::vector<std::string>& unset = {}) = 0;
  virtual Result<DatasetInfo> AlterSchema(
      std::string_view qualified, const std::vector<SchemaChange>& changes,
      std::optional<int64_t> read_snapshot_id = std::nullopt) = 0;
  virtual Result<DatasetInfo> SetPartitionSpec(std::string_view qualified,
                                               std::string_view spec) = 0;
  virtual Result<DatasetInfo> SetSortOrder(std::string_view qualified, std::string_view order) = 0;

  // ---- commits (C4) ----
  // Every added file must already be in the warehouse (paths relative to its root), under the
  // dataset's own prefix or a location granted to it, referenced by no other dataset
  // (code=path_not_owned), and exist with the stated size (code=file_not_found,
  // not_a_regular_file, file_size_mismatch).
  virtual Result<std::vector<SnapshotInfo>> Commit(std::vector<DatasetCommit> parts) = 0;
  Result<SnapshotInfo> Commit(DatasetCommit part) {
    std::vector<DatasetCommit> parts;
    parts.push_back(std::move(part));
    TARN_ASSIGN_OR_RETURN(auto snapshots, Commit(std::move(parts)));
    return std::move(snapshots.front());
  }
  virtual Result<SnapshotInfo> Append(std::string_view qualified,
                                      const std::vector<RecordBatch>& batches, CommitMeta meta,
                                      CommitOperation op = CommitOperation::kAppend,
                                      std::optional<std::string> expected_uuid = std::nullopt) = 0;
  // Pulls batches from `next` until it returns nullopt; memory stays bounded (remote: the
  // batches stream to the server, which writes and commits them as one snapshot).
  using BatchSource = std::function<Result<std::optional<RecordBatch>>()>;
  virtual Result<SnapshotInfo> AppendStream(
      std::string_view qualified, const BatchSource& next, CommitMeta meta,
      CommitOperation op = CommitOperation::kAppend,
      std::optional<std::string> expected_uuid = std::nullopt) = 0;
  virtual Result<SnapshotInfo> AddFiles(std::string_view qualified,
                                        const std::vector<std::string>& paths, CommitMeta meta,
                                        bool truncate_first = false) = 0;
  virtual Result<SnapshotInfo> DeleteRows(std::string_view qualified, std::string_view where,
                                          CommitMeta meta) = 0;
  virtual Result<SnapshotInfo> Rollback(std::string_view qualified, int64_t to_snapshot_id,
                                        CommitMeta meta) = 0;

  // ---- external locations: warehouse prefixes an owner granted to one dataset ----
  // Files under a granted prefix may be registered in that dataset (add_files, commits);
  // otherwise only files under its own prefix may. Remote: owner role on the workspace.
  virtual Status GrantLocation(std::string_view qualified, std::string_view prefix) = 0;
  virtual Status RevokeLocation(std::string_view qualified, std::string_view prefix) = 0;
  virtual Result<std::vector<LocationGrant>> ListLocations(std::string_view qualified) = 0;

  // ---- snapshots, time travel and tags (C5) ----
  virtual Result<std::vector<SnapshotInfo>> ListSnapshots(std::string_view qualified) = 0;
  virtual Result<SnapshotInfo> GetSnapshot(std::string_view qualified,
                                           const SnapshotSelector& at) = 0;
  virtual Status CreateTag(std::string_view qualified, std::string_view tag,
                           const SnapshotSelector& at, bool replace = false) = 0;
  virtual Status DropTag(std::string_view qualified, std::string_view tag) = 0;
  virtual Result<std::vector<TagInfo>> ListTags(std::string_view qualified) = 0;

  // ---- planning (C8) and scans; both stream, memory bounded by one file ----
  virtual Status PlanFiles(std::string_view qualified, const SnapshotSelector& at,
                           std::string_view where,
                           const std::function<Status(const PlannedFile&)>& fn) = 0;
  virtual Status Scan(std::string_view qualified, const SnapshotSelector& at,
                      std::string_view where, bool with_row_ids,
                      const std::function<Status(const RecordBatch&)>& fn) = 0;

  // ---- change feed (C9) ----
  virtual Result<ChangeSet> Changes(std::string_view qualified, int64_t from_snapshot_id,
                                    std::optional<int64_t> to_snapshot_id = std::nullopt) = 0;
  virtual Status CommitOffset(std::string_view qualified, std::string_view consumer,
                              int64_t snapshot_id) = 0;
  virtual Result<std::optional<int64_t>> GetOffset(std::string_view qualified,
                                                   std::string_view consumer) = 0;

  // ---- maintenance (C11) ----
  virtual Result<ExpiryResult> ExpireSnapshots(std::string_view qualified,
                                               const ExpiryOptions& options) = 0;
  virtual Result<CleanupResult> Cleanup(bool delete_orphans = false) = 0;

  // ---- access tokens and audit (V5) ----
  // `created_by` is recorded on the token; remotely the server uses the caller's client id.
  virtual Result<NewAccessToken> CreateAccessToken(const AccessTokenSpec& spec) = 0;
  // `workspace` empty = every token the caller may see.
  virtual Result<std::vector<AccessTokenInfo>> ListAccessTokens(std::string_view workspace) = 0;
  // Bearer tokens already issued for the client stop working within the server's revocation
  // check interval (see docs/design/serve.md).
  virtual Status RevokeAccessToken(std::string_view client_id) = 0;
  virtual Result<std::vector<AuditRecord>> ListAudit(const AuditQuery& query) = 0;

  // ---- federated sign-in (docs/design/federation.md); remotely: owner on every workspace ----
  // ID tokens of spec.issuer with `sub` == spec.subject then sign in as spec.client_id.
  virtual Result<FederationRule> CreateFederationRule(const FederationRuleSpec& spec) = 0;
  virtual Result<std::vector<FederationRule>> ListFederationRules() = 0;
  virtual Status DeleteFederationRule(std::string_view id) = 0;
};

}  // namespace tarn

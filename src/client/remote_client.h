// The remote tarn::Client: every call is one HTTP request to `tarn serve` (docs/design/serve.md,
// docs/openapi.json), encoded with the wire codec of src/api.
//
//   ClientOptions o;
//   o.client_id = "tarn_...";  o.client_secret = "...";
//   auto c = client::RemoteClient::Connect("http://127.0.0.1:8181", o);   // checks whoami
//
// Thread-safe: calls from several threads use separate keep-alive connections from a small
// pool. Errors: the server's error body comes back as the same Status (kind, message, fields);
// a server that cannot be reached is kUnavailable naming the URL; a stream that ends without its
// end marker is kIOError.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/token_cache.h"
#include "common/clock.h"
#include "common/hex.h"
#include "tarn/client.h"

namespace tarn::client {

// An http(s) base URL split into its parts. `base_path` is "" or starts with '/' and has no
// trailing '/' (a server behind a path prefix).
struct ServerUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // without brackets for IPv6
  int port = 0;
  std::string base_path;
  // "http://host:port" (IPv6 hosts in brackets), what httplib connects to.
  std::string Origin() const;
  // Origin() + base_path.
  std::string ToString() const;
};

// Whether `target` names a remote catalog (starts with http:// or https://, any case).
bool IsRemoteTarget(std::string_view target);
// Parses "http(s)://host[:port][/prefix]"; the port defaults to 80/443. kInvalidArgument
// (code=invalid_url) for anything else: other schemes, user info, query or fragment, empty
// host, bad port.
Result<ServerUrl> ParseServerUrl(std::string_view url);

// A response value that did not decode (the server and this client disagree): kCorruption with
// code bad_response naming `what`, the decoder's fields kept (its code as decode_error).
Status BadResponse(std::string_view what, const Status& decode_error);

// Path segments, query values and form fields are percent-encoded but for RFC 3986 unreserved
// characters: the common encoder with its default.
using tarn::PercentEncode;
// "?a=1&b=x%20y" from pairs ("" when empty).
std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params);

// GET /v1/whoami: who the credentials speak for.
struct WhoAmI {
  std::string client_id;
  std::string workspace;
  std::string role;
  std::string pattern;
  int64_t expires_at_us = 0;
};

class RemoteClient : public Client {
 public:
  // Connects to `url` and verifies the credentials at once (GET /v1/whoami): kUnauthenticated
  // when they are refused, kUnavailable when the server cannot be reached.
  static Result<std::unique_ptr<RemoteClient>> Connect(std::string_view url,
                                                       ClientOptions options = {});
  // The same without the whoami round trip (nothing is sent until the first call).
  static Result<std::unique_ptr<RemoteClient>> Make(std::string_view url,
                                                    ClientOptions options = {});
  // Connect with the clock that decides when bearer tokens are refreshed (tests move a
  // ManualClock past a token's lifetime instead of sleeping through it).
  static Result<std::unique_ptr<RemoteClient>> Connect(std::string_view url, ClientOptions options,
                                                       std::shared_ptr<Clock> clock);
  ~RemoteClient() override;

  const ServerUrl& url() const { return url_; }
  Result<WhoAmI> GetWhoAmI();

  bool remote() const override { return true; }
  // The client id the credentials speak for (known after Connect; else the configured one).
  std::string actor() const override;

  Result<WorkspaceInfo> GetWorkspace(std::string_view name) override;
  Result<std::vector<WorkspaceInfo>> ListWorkspaces() override;
  Status SetWorkspaceProperties(std::string_view name, const PropertyMap& set) override;
  Status UnsetWorkspaceProperties(std::string_view name,
                                  const std::vector<std::string>& keys) override;
  Status DropWorkspace(std::string_view name) override;
  Status MarkSecure(std::string_view workspace, std::string_view object,
                    const std::vector<std::string>& destinations, std::string_view author) override;
  Status ClearSecure(std::string_view workspace, std::string_view object) override;

  Result<std::vector<CollectionInfo>> ListCollections(std::string_view workspace) override;
  Result<CollectionInfo> GetCollection(std::string_view qualified) override;
  Status DropCollection(std::string_view qualified) override;
  Status SetCollectionProperties(std::string_view qualified, const PropertyMap& set) override;
  Status UnsetCollectionProperties(std::string_view qualified,
                                   const std::vector<std::string>& keys) override;

  Result<std::vector<DatasetInfo>> ListDatasets(std::string_view collection) override;
  Status RenameDataset(std::string_view qualified, std::string_view new_name) override;
  Result<DatasetInfo> SetPartitionSpec(std::string_view qualified, std::string_view spec) override;
  Result<DatasetInfo> SetSortOrder(std::string_view qualified, std::string_view order) override;

  using Client::Commit;
  Result<std::vector<SnapshotInfo>> Commit(std::vector<DatasetCommit> parts) override;
  Result<SnapshotInfo> DeleteRows(std::string_view qualified, std::string_view where,
                                  CommitMeta meta) override;
  Result<SnapshotInfo> Rollback(std::string_view qualified, int64_t to_snapshot_id,
                                CommitMeta meta) override;

  Result<SnapshotInfo> GetSnapshot(std::string_view qualified, const SnapshotSelector& at) override;
  Status DropTag(std::string_view qualified, std::string_view tag) override;
  Result<std::vector<TagInfo>> ListTags(std::string_view qualified) override;
  Result<LineageResult> Lineage(std::string_view qualified, std::optional<int64_t> snapshot,
                                size_t limit) override;
  Result<ImpactResult> Impact(std::string_view qualified) override;
  Result<ReadersResult> Readers(std::string_view qualified,
                                std::optional<int64_t> version) override;
  Status GrantLocation(std::string_view qualified, std::string_view prefix) override;
  Status RevokeLocation(std::string_view qualified, std::string_view prefix) override;
  Result<std::vector<LocationGrant>> ListLocations(std::string_view qualified) override;

  Result<std::vector<ViewInfo>> ListViews(std::string_view collection) override;
  Result<std::vector<ViewVersion>> ListViewVersions(std::string_view qualified) override;
  Status DropView(std::string_view qualified) override;
  Status RecordViewRun(std::string_view qualified, int64_t row_count, double seconds) override;

  Result<MaterializedViewInfo> RegisterMaterializedView(std::string_view qualified,
                                                        const ViewDefinition& def,
                                                        const std::vector<std::string>& sources,
                                                        bool replace,
                                                        std::string_view refresh_kind) override;
  Result<MaterializedViewInfo> GetMaterializedView(std::string_view qualified) override;
  Result<std::vector<MaterializedViewInfo>> ListMaterializedViews(
      std::string_view collection) override;
  Status DropMaterializedView(std::string_view qualified, bool purge) override;
  Status RecordRefresh(std::string_view qualified, const RefreshRecord& record) override;
  Result<TaskInfo> RegisterTask(std::string_view qualified, const TaskDefinition& def,
                                const std::vector<std::string>& reads, bool replace) override;
  Result<TaskInfo> GetTask(std::string_view qualified) override;
  Result<std::vector<TaskInfo>> ListTasks(std::string_view collection) override;
  Status DropTask(std::string_view qualified) override;
  Result<JobInfo> SignalTask(std::string_view qualified) override;
  Status RecordTaskRun(std::string_view qualified, const RefreshRecord& record) override;
  Result<std::vector<TriggerInfo>> ListTriggers(std::string_view dataset) override;
  Status SetTriggerInterval(std::string_view dataset, std::string_view trigger,
                            std::optional<int64_t> seconds) override;
  Result<std::vector<JobInfo>> ListJobs(const JobQuery& query) override;
  Result<JobInfo> GetJob(std::string_view id) override;
  Result<JobInfo> RetryJob(std::string_view id) override;
  Result<JobInfo> ReportJobOutcome(std::string_view id, const JobOutcomeReport& report) override;

  // GET .../manifest at the snapshot `at` resolves to now (asked first, so the export and the
  // info agree on it): the Parquet bytes streamed to `write`, checked to end like a Parquet file.
  Result<ManifestInfo> ExportManifest(
      std::string_view qualified, const SnapshotSelector& at,
      const std::function<Status(std::string_view bytes)>& write) override;

  // GET .../iceberg (the metadata named by the warehouse's URIs); a file_base is refused.
  Result<IcebergTableInfo> IcebergTable(std::string_view qualified,
                                        const IcebergRequest& request) override;
  // POST .../register.
  Result<IcebergRegisterResult> RegisterIcebergTable(
      std::string_view qualified, const IcebergRegisterRequest& request) override;

  Status CommitOffset(std::string_view qualified, std::string_view consumer,
                      int64_t snapshot_id) override;
  Result<std::optional<int64_t>> GetOffset(std::string_view qualified,
                                           std::string_view consumer) override;

  Result<ExpiryResult> ExpireSnapshots(std::string_view qualified,
                                       const ExpiryOptions& options) override;
  Result<CompactionResult> Compact(std::string_view qualified, const CompactionOptions& options,
                                   CommitMeta meta) override;
  Result<StatsHydrationResult> HydrateStats(std::string_view qualified,
                                            const StatsHydrationOptions& options) override;
  // POST .../inlined/flush.
  Result<InlineFlushResult> FlushInlined(std::string_view qualified) override;
  Result<RetentionResult> ApplyRetention(const RetentionOptions& options) override;

  Result<NewAccessToken> CreateAccessToken(const AccessTokenSpec& spec) override;
  Result<std::vector<AccessTokenInfo>> ListAccessTokens(std::string_view workspace) override;
  Status RevokeAccessToken(std::string_view client_id) override;
  Result<std::vector<AuditRecord>> ListAudit(const AuditQuery& query) override;
  Result<std::vector<AlertRecord>> ListAlerts(const AlertQuery& query) override;
  Result<FsckReport> Fsck(const FsckOptions& options) override;

  Result<FederationRule> CreateFederationRule(const FederationRuleSpec& spec) override;
  Result<std::vector<FederationRule>> ListFederationRules() override;
  Status DeleteFederationRule(std::string_view id) override;

  // ---- for the other remote services over the same connections and bearer token
  // (RemoteUploads). `path` starts with "/v1"; the URL's base path is prepended. ----
  struct RawResponse {
    int status = 0;
    std::string body;
  };
  // One request with an optional JSON body, answered as it came (any status). Repeated once
  // after a refused bearer token, and after a dead keep-alive connection when `idempotent`.
  Result<RawResponse> SendJson(const char* method, const std::string& path,
                               const std::string* json_body, bool idempotent);
  // Fills up to `n` bytes of a body and returns how many; 0 at its end.
  using BodyReader = std::function<Result<size_t>(char* out, size_t n)>;
  // One request whose body is pulled from `read` chunk by chunk: `length` bytes with a
  // Content-Length, or chunked when `length` is -1. `rewind` (optional) restarts the body so the
  // request can be repeated once after a refused bearer token; a request is also repeated when
  // its connection was dead before any byte was pulled. An error from `read` aborts the request
  // and is returned as is.
  Result<RawResponse> SendBody(const char* method, const std::string& path,
                               const std::string& content_type, int64_t length,
                               const BodyReader& read, const std::function<Status()>& rewind);

  class Transport;  // remote_client.cc: the connection pool over cpp-httplib

 protected:
  // The methods of tarn::Client with default arguments: callers use the public ones (the
  // defaults are stated there, once), which run these.
  Status DoCreateWorkspace(std::string_view name, bool exists_ok,
                           const PropertyMap& properties) override;
  Status DoCreateCollection(std::string_view qualified, bool exists_ok,
                            std::string_view description, const PropertyMap& properties) override;
  Result<DatasetInfo> DoCreateDataset(std::string_view qualified, DatasetDefinition def,
                                      bool exists_ok) override;
  Result<DatasetInfo> DoLoadDataset(std::string_view qualified,
                                    const SnapshotSelector& at) override;
  Status DoDropDataset(std::string_view qualified, bool purge,
                       std::optional<std::string> expected_uuid) override;
  Status DoSetDatasetProperties(std::string_view qualified, const PropertyMap& set,
                                const std::vector<std::string>& unset) override;
  Result<DatasetInfo> DoAlterSchema(std::string_view qualified,
                                    const std::vector<SchemaChange>& changes,
                                    std::optional<int64_t> read_snapshot_id) override;
  Result<SnapshotInfo> DoAppend(std::string_view qualified, const std::vector<RecordBatch>& batches,
                                CommitMeta meta, CommitOperation op,
                                std::optional<std::string> expected_uuid) override;
  Result<SnapshotInfo> DoAppendStream(std::string_view qualified, const BatchSource& next,
                                      CommitMeta meta, CommitOperation op,
                                      std::optional<std::string> expected_uuid) override;
  Result<SnapshotInfo> DoReplaceWhere(std::string_view qualified, std::string_view where,
                                      const BatchSource& next, CommitMeta meta,
                                      std::optional<std::string> expected_uuid,
                                      std::optional<int64_t> read_snapshot_id) override;
  Result<SnapshotInfo> DoAddFiles(std::string_view qualified, const std::vector<std::string>& paths,
                                  CommitMeta meta, bool truncate_first) override;
  Status DoCreateTag(std::string_view qualified, std::string_view tag, const SnapshotSelector& at,
                     bool replace) override;
  // Without a limit, the whole range: pages of kMaxChangePage snapshots, following next_from.
  Result<ChangeSet> DoChanges(std::string_view qualified, const ChangeQuery& query) override;
  // GET .../plan streamed as NDJSON, checked against its end line.
  Status DoPlanFiles(std::string_view qualified, const SnapshotSelector& at, std::string_view where,
                     const FileQuery& page,
                     const std::function<Status(const PlannedFile&)>& fn) override;
  Result<std::vector<SnapshotInfo>> DoListSnapshots(std::string_view qualified,
                                                    const SnapshotQuery& query) override;
  Result<CleanupResult> DoCleanup(bool delete_orphans) override;
  Status DoScan(std::string_view qualified, const ScanOptions& options,
                const std::function<Status(const RecordBatch&)>& fn) override;
  Result<ViewInfo> DoCreateView(std::string_view qualified, const ViewDefinition& def,
                                bool replace) override;
  Result<ViewInfo> DoGetView(std::string_view qualified, std::optional<int64_t> version) override;

 private:
  Result<SnapshotInfo> PostAppend(std::string_view qualified,
                                  const std::vector<std::pair<std::string, std::string>>& query,
                                  const std::optional<std::string>& where, const BatchSource& next,
                                  CommitMeta meta);
  RemoteClient(ServerUrl url, ClientOptions options, std::shared_ptr<Clock> clock);

  ServerUrl url_;
  ClientOptions options_;
  std::unique_ptr<Transport> transport_;  // the pool, and the token cache with a client secret
  mutable std::mutex actor_mu_;
  std::string actor_;
};

}  // namespace tarn::client

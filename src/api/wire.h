// The wire format of the HTTP API (docs/design/serve.md, docs/openapi.json): JSON of every value
// type of tarn::Client, error bodies, and the batch frame stream. Shared by src/server and
// src/client so both sides agree by construction.
//
// Decoders are strict: a missing required field, a wrong JSON type, a value out of range or an
// unknown field is kInvalidArgument with fields code (missing_field / wrong_type /
// unknown_field / ...) and field (a JSON pointer such as "/parts/0/meta/author"). They never
// throw and never crash on any input (fuzz/api_wire_fuzz.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/io.h"
#include "tarn/access.h"
#include "tarn/alert.h"
#include "tarn/column.h"
#include "tarn/dataset.h"
#include "tarn/iceberg.h"
#include "tarn/integrity.h"
#include "tarn/provenance.h"
#include "tarn/status.h"
#include "tarn/task.h"
#include "tarn/view.h"

namespace tarn::api {

using Json = nlohmann::json;

// Parses a request/response body: kInvalidArgument (code=malformed_json, HTTP 400 at the server)
// when it is not JSON, not an object, or has a key twice in one object at any depth (then
// field is the JSON pointer of the repeated key). Every JSON body a client sends goes here.
Result<Json> ParseObject(std::string_view body);
// Compact JSON text; invalid UTF-8 in strings is replaced, never thrown on.
std::string Dump(const Json& j);

// ---- errors ----
// {"error":{"code","message","kind","retryable",...fields}}; code is the field "code" when set,
// else the kind's name.
Json ErrorBody(const Status& status);
// The Status an error body stands for (same kind, message and fields); `http_status` is used
// when the body is not an error object (then the kind follows the status).
Status StatusFromErrorBody(int http_status, std::string_view body);

// ---- value types: ToJson / XxxFromJson pairs, lossless ----
Json ToJson(const WorkspaceInfo& v);
Result<WorkspaceInfo> WorkspaceFromJson(const Json& j);
Json ToJson(const CollectionInfo& v);
Result<CollectionInfo> CollectionFromJson(const Json& j);

Json ToJson(const Schema& v);  // {"fields":[{"id","name","type","nullable",...}]} (schema_json.h)
Result<Schema> SchemaFromJson(const Json& j);
Json ToJson(const DatasetDefinition& v);  // {schema, partition_spec, sort_order, description,
                                          //  properties}
Result<DatasetDefinition> DefinitionFromJson(const Json& j);
// Every field; name as workspace/collection/name; spec, specs and sort_order in their Iceberg
// JSON forms (lossless, unlike the text forms which need a schema).
Json ToJson(const DatasetInfo& v);
Result<DatasetInfo> DatasetFromJson(const Json& j);

Json ToJson(const Receipt& v);
Result<Receipt> ReceiptFromJson(const Json& j);
// {author, message, idempotency_key, receipt}; `audit` and `user_created` are never on the wire
// (a server sets them).
Json ToJson(const CommitMeta& v);
Result<CommitMeta> CommitMetaFromJson(const Json& j);

Json ToJson(const DataFile& v);  // stats bounds as base64, partition values as JSON
Result<DataFile> DataFileFromJson(const Json& j);
Json ToJson(const DatasetCommit& v);
Result<DatasetCommit> DatasetCommitFromJson(const Json& j);
Json ToJson(const SnapshotInfo& v);
Result<SnapshotInfo> SnapshotFromJson(const Json& j);
Json ToJson(const TagInfo& v);
Result<TagInfo> TagFromJson(const Json& j);
// Provenance (tarn/provenance.h): receipts as ToJson(Receipt), "not recorded" as null.
Json ToJson(const LineageResult& v);
Result<LineageResult> LineageFromJson(const Json& j);
Json ToJson(const ImpactResult& v);
Result<ImpactResult> ImpactFromJson(const Json& j);
Json ToJson(const ReadersResult& v);
Result<ReadersResult> ReadersFromJson(const Json& j);
Json ToJson(const LocationGrant& v);
Result<LocationGrant> LocationFromJson(const Json& j);
Json ToJson(const PlannedFile& v);
Result<PlannedFile> PlannedFileFromJson(const Json& j);
Json ToJson(const ChangeSet& v);
Result<ChangeSet> ChangeSetFromJson(const Json& j);
Json ToJson(const SchemaChange& v);
Result<SchemaChange> SchemaChangeFromJson(const Json& j);
Json ToJson(const RetentionResult& v);
Result<RetentionResult> RetentionResultFromJson(const Json& j);
Json ToJson(const CompactionOptions& v);
Result<CompactionOptions> CompactionOptionsFromJson(const Json& j);
Json ToJson(const CompactionResult& v);
Result<CompactionResult> CompactionResultFromJson(const Json& j);
Json ToJson(const StatsHydrationResult& v);
Result<StatsHydrationResult> StatsHydrationResultFromJson(const Json& j);
Json ToJson(const InlineFlushResult& v);
Result<InlineFlushResult> InlineFlushResultFromJson(const Json& j);
Json ToJson(const ExpiryOptions& v);
Result<ExpiryOptions> ExpiryOptionsFromJson(const Json& j);
Json ToJson(const ExpiryResult& v);
Result<ExpiryResult> ExpiryResultFromJson(const Json& j);
// The metadata travels as a JSON object ("metadata"), not as text.
Json ToJson(const IcebergTableInfo& v);
Result<IcebergTableInfo> IcebergTableInfoFromJson(const Json& j);
Json ToJson(const IcebergRegisterResult& v);
Result<IcebergRegisterResult> IcebergRegisterResultFromJson(const Json& j);
Json ToJson(const CleanupResult& v);
Result<CleanupResult> CleanupResultFromJson(const Json& j);
Json ToJson(const AccessTokenInfo& v);
Result<AccessTokenInfo> AccessTokenFromJson(const Json& j);
Json ToJson(const NewAccessToken& v);  // the info's fields plus client_secret
Result<NewAccessToken> NewAccessTokenFromJson(const Json& j);
Json ToJson(const AccessTokenSpec& v);
Result<AccessTokenSpec> AccessTokenSpecFromJson(const Json& j);
Json ToJson(const AuditRecord& v);
Result<AuditRecord> AuditRecordFromJson(const Json& j);
// Alerts (tarn/alert.h): detail as a JSON object (text when it is not JSON).
Json ToJson(const AlertRecord& v);
Result<AlertRecord> AlertRecordFromJson(const Json& j);
// The integrity sweep (tarn/integrity.h).
Json ToJson(const FsckReport& v);
Result<FsckReport> FsckReportFromJson(const Json& j);
Json ToJson(const FederationRuleSpec& v);
Result<FederationRuleSpec> FederationRuleSpecFromJson(const Json& j);
Json ToJson(const FederationRule& v);
Result<FederationRule> FederationRuleFromJson(const Json& j);
Json ToJson(const PropertyMap& v);
Result<PropertyMap> PropertiesFromJson(const Json& j);
// Views: {sql, dialect, description, schema}; a version adds version, author, created_at_us;
// a view is {workspace, collection, name, current (a version), created_by, created_at_us,
// updated_at_us, last_run_at_us, last_row_count, last_run_us} (seconds as whole microseconds).
Json ToJson(const ViewDefinition& v);
Result<ViewDefinition> ViewDefinitionFromJson(const Json& j);
Json ToJson(const ViewVersion& v);
Result<ViewVersion> ViewVersionFromJson(const Json& j);
Json ToJson(const ViewInfo& v);
Result<ViewInfo> ViewFromJson(const Json& j);
// Materialized views and triggers: reads lists ("sources" of a refresh) as Receipt reads.
Json ToJson(const TriggerInfo& v);
Result<TriggerInfo> TriggerFromJson(const Json& j);
Json ToJson(const RefreshRecord& v);
Result<RefreshRecord> RefreshRecordFromJson(const Json& j);
Json ToJson(const MaterializedViewInfo& v);
Result<MaterializedViewInfo> MaterializedViewFromJson(const Json& j);
Json ToJson(const JobInfo& v);
Result<JobInfo> JobFromJson(const Json& j);
// Tasks (tarn/task.h): a definition is {"sql", "dialect", "description", "target", "mode",
// "trigger", "on", "schedule", "time_zone", "runs_as"} (all but sql optional in a request).
Json ToJson(const TaskDefinition& v);
Result<TaskDefinition> TaskDefinitionFromJson(const Json& j);
Json ToJson(const TaskInfo& v);
Result<TaskInfo> TaskFromJson(const Json& j);

// A snapshot selector as query parameters: {"snapshot_id": "4"} / {"at_us": ...} / {"tag": ...}.
std::vector<std::pair<std::string, std::string>> SelectorParams(const SnapshotSelector& at);
// From query parameters (a lookup returning nullopt when absent); more than one is
// kInvalidArgument (code=ambiguous_selector).
Result<SnapshotSelector> SelectorFromParams(
    const std::function<std::optional<std::string>(std::string_view)>& param);

// The error of a decoder about the value at `pointer`: kInvalidArgument with fields code and
// field (for codecs built on ObjectReader elsewhere, e.g. contract_wire.h).
Status FieldError(const ErrorCode& code, const std::string& pointer, std::string message);
// code=wrong_type: "expected <expected>, got <what j is>".
Status WrongType(const std::string& pointer, const Json& j, const char* expected);

// A strict reader over one JSON object: takes fields by name and, at the end, reports any field
// nobody took as unknown_field. `path` prefixes field pointers in errors.
class ObjectReader {
 public:
  static Result<ObjectReader> Make(const Json& j, std::string path = "");
  Result<std::string> String(const char* key);  // required
  Result<std::optional<std::string>> OptString(const char* key);
  Result<int64_t> Int(const char* key);
  Result<std::optional<int64_t>> OptInt(const char* key);
  Result<bool> Bool(const char* key, bool fallback);
  Result<const Json*> Value(const char* key);     // required, any type
  Result<const Json*> OptValue(const char* key);  // nullptr when absent or null
  std::string Pointer(const char* key) const;     // path + "/" + key
  // kInvalidArgument (code=unknown_field, field=pointer) for a field not taken.
  Status Finish() const;

 private:
  const Json* j_ = nullptr;
  std::string path_;
  std::vector<std::string> taken_;
};

// While one is alive, decoders on this thread ignore unknown fields instead of refusing them:
// for responses, which may grow new fields at any time (requests stay strict).
class AllowUnknownFields {
 public:
  AllowUnknownFields();
  ~AllowUnknownFields();
  AllowUnknownFields(const AllowUnknownFields&) = delete;
  AllowUnknownFields& operator=(const AllowUnknownFields&) = delete;
};

// ---- batch frames (application/vnd.tarn.frames) ----
// M: the commit meta (first); W: a delete predicate (second, in a merge append only);
// P: a batch; E: the end; X: an error.
enum class FrameKind : char { kMeta = 'M', kWhere = 'W', kParquet = 'P', kEnd = 'E', kError = 'X' };
inline constexpr size_t kFrameHeaderBytes = 5;
inline constexpr uint32_t kMaxFrameBytes = 256u << 20;

// The 5-byte header of a frame with `payload_bytes` bytes.
std::string FrameHeader(FrameKind kind, size_t payload_bytes);
// A whole frame: header + payload.
std::string EncodeFrame(FrameKind kind, std::string_view payload);
// One batch as a Parquet file in memory (LZ4, plain encodings, one row group), framed as kParquet.
Result<std::string> EncodeBatchFrame(const RecordBatch& batch);
// Decodes the payload of a kParquet frame back into one batch (all row groups concatenated).
Result<RecordBatch> DecodeBatchPayload(std::string payload);

// Incremental frame parser: feed bytes as they arrive, take complete frames out.
// kCorruption (code=bad_frame) for an unknown kind or a length past kMaxFrameBytes.
class FrameParser {
 public:
  Status Feed(std::string_view bytes);
  // The next complete frame, or nullopt when more bytes are needed.
  std::optional<std::pair<FrameKind, std::string>> Next();
  // Bytes received but not yet returned as a frame.
  size_t buffered() const { return buffer_.size() - consumed_; }

 private:
  std::string buffer_;
  size_t consumed_ = 0;  // bytes of buffer_ already returned by Next()
  size_t scan_ = 0;      // end of the last complete frame whose header was validated
  Status error_;
};

}  // namespace tarn::api

// The wire format of the upload service (/v1/contracts, docs/design/upload.md "HTTP"): JSON of
// the value types of include/tarn/upload.h and of the request bodies of the contract routes.
// Shared by src/server and the remote uploads of src/client.
//
// Same rules as wire.h: decoders are strict (missing_field, wrong_type, out_of_range,
// unknown_field, invalid_value, invalid_base64, each with a JSON pointer in `field`), never throw
// and never crash on any input (fuzz/api_wire_fuzz.cc). Sample bytes travel as base64.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/wire.h"
#include "sdk/upload_json.h"
#include "tarn/upload.h"

namespace tarn::api {

// {"target", "schema": {"source", "columns": [{"name","type"}], "mode"}, "samples": [...],
//  "retype": {column: type}, "ignore": [...], "channel", "ttl_s"}. A request that does not say
// where the types come from (SchemaSourceKind::kNone) has no "schema"; the service refuses it
// with schema_source_required.
Json ToJson(const NegotiateRequest& v);
Result<NegotiateRequest> NegotiateRequestFromJson(const Json& j);
// {"name", "bytes" (base64), "file_size", "whole_file", "content_type", "content_encoding"}
Json ToJson(const UploadSample& v);
Result<UploadSample> UploadSampleFromJson(const Json& j);

Json ToJson(const Contract& v);  // every field; "committed" is null until committed
Result<Contract> ContractFromJson(const Json& j);
Json ToJson(const PlanEntry& v);
Result<PlanEntry> PlanEntryFromJson(const Json& j);
Json ToJson(const ContractIssue& v);
Result<ContractIssue> ContractIssueFromJson(const Json& j);
Json ToJson(const ContractFile& v);
Result<ContractFile> ContractFileFromJson(const Json& j);
Json ToJson(const ContractPart& v);
Result<ContractPart> ContractPartFromJson(const Json& j);
Json ToJson(const WriteResult& v);  // {"contract_id", "part": ContractPart}
Result<WriteResult> WriteResultFromJson(const Json& j);
Json ToJson(const UploadCommitResult& v);
Result<UploadCommitResult> UploadCommitResultFromJson(const Json& j);
Json ToJson(const CommitRequest& v);  // {"message", "idempotency_key", "author"}
Result<CommitRequest> CommitRequestFromJson(const Json& j);

// The bodies of POST /v1/contracts/{id}/retype, /ignore and /accept.
Json RetypeBody(const std::map<std::string, std::string>& types);  // {"types": {column: type}}
Result<std::map<std::string, std::string>> RetypeFromJson(const Json& j);
Json IgnoreBody(const std::vector<std::string>& columns);  // {"columns": [...]}
Result<std::vector<std::string>> IgnoreFromJson(const Json& j);
Json AcceptBody(std::string_view fingerprint);  // {"fingerprint": "..."}
Result<std::string> AcceptFromJson(const Json& j);

}  // namespace tarn::api

// Fuzzes the HTTP API's wire codecs (src/api/wire.h, src/api/contract_wire.h) with
// request/response bodies: any bytes must
// give a JSON object or a 400 malformed_json, every XxxFromJson decoder must return a value or
// a kInvalidArgument (never crash, throw or hang), and whatever decodes must round-trip:
// ToJson(decode(ToJson(v))) == ToJson(v). Error bodies and snapshot-selector parameters too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "api/contract_wire.h"
#include "api/wire.h"

namespace {

using tarn::Result;
using tarn::Status;
using tarn::api::Json;

[[noreturn]] void Fail(const char* decoder, const char* what, const std::string& detail) {
  std::fprintf(stderr, "api_wire_fuzz: %s: %s: %s\n", decoder, what, detail.c_str());
  std::abort();
}

template <typename T>
void RoundTrip(const char* name, const Json& j, Result<T> (*decode)(const Json&)) {
  Result<T> v = decode(j);
  if (!v.ok()) {
    if (v.status().kind() != tarn::ErrorKind::kInvalidArgument) {
      Fail(name, "refused with a kind other than invalid_argument", v.status().ToString());
    }
    return;
  }
  Json once = tarn::api::ToJson(*v);
  Result<T> back = decode(once);
  if (!back.ok()) {
    Fail(name, "its own encoding does not decode",
         back.status().ToString() + " in " + tarn::api::Dump(once));
  }
  Json twice = tarn::api::ToJson(*back);
  if (once != twice) {
    Fail(name, "does not round-trip", tarn::api::Dump(once) + " vs " + tarn::api::Dump(twice));
  }
}

std::vector<std::pair<std::string, std::string>> SortedFields(const Status& st) {
  auto f = st.fields();
  std::sort(f.begin(), f.end());
  return f;
}

void ErrorBodies(std::string_view body) {
  Status first = tarn::api::StatusFromErrorBody(400, body);
  if (first.ok()) Fail("StatusFromErrorBody", "gave OK", std::string(body.substr(0, 200)));
  Status second = tarn::api::StatusFromErrorBody(tarn::HttpStatusFor(first.kind()),
                                                 tarn::api::Dump(tarn::api::ErrorBody(first)));
  Status third = tarn::api::StatusFromErrorBody(tarn::HttpStatusFor(second.kind()),
                                                tarn::api::Dump(tarn::api::ErrorBody(second)));
  if (second.kind() != first.kind()) {
    Fail("ErrorBody", "kind changed", first.ToString() + " vs " + second.ToString());
  }
  if (third.kind() != second.kind() || third.message() != second.message() ||
      SortedFields(third) != SortedFields(second)) {
    Fail("ErrorBody", "not stable", second.ToString() + " vs " + third.ToString());
  }
}

// The bodies of the contract routes that decode to plain values: decode, encode, decode again.
template <typename T, typename Encode>
void BodyRoundTrip(const char* name, const Json& j, Result<T> (*decode)(const Json&),
                   Encode encode) {
  Result<T> v = decode(j);
  if (!v.ok()) {
    if (v.status().kind() != tarn::ErrorKind::kInvalidArgument) {
      Fail(name, "refused with a kind other than invalid_argument", v.status().ToString());
    }
    return;
  }
  Json once = encode(*v);
  Result<T> back = decode(once);
  if (!back.ok()) Fail(name, "its own encoding does not decode", back.status().ToString());
  if (*back != *v) Fail(name, "does not round-trip", tarn::api::Dump(once));
}

void Selectors(const Json& j) {
  auto lookup = [&](const Json& obj) {
    return [&obj](std::string_view name) -> std::optional<std::string> {
      auto it = obj.find(std::string(name));
      if (it == obj.end() || !it->is_string()) return std::nullopt;
      return it->get<std::string>();
    };
  };
  auto sel = tarn::api::SelectorFromParams(lookup(j));
  if (!sel.ok()) return;
  Json params = Json::object();
  for (const auto& [k, v] : tarn::api::SelectorParams(*sel)) params[k] = v;
  auto back = tarn::api::SelectorFromParams(lookup(params));
  if (!back.ok())
    Fail("SelectorFromParams", "its own params do not decode", back.status().ToString());
  if (tarn::api::SelectorParams(*back) != tarn::api::SelectorParams(*sel)) {
    Fail("SelectorFromParams", "does not round-trip", tarn::api::Dump(params));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  ErrorBodies(body);
  auto parsed = tarn::api::ParseObject(body);
  if (!parsed.ok()) {
    if (parsed.status().kind() != tarn::ErrorKind::kInvalidArgument) {
      Fail("ParseObject", "refused with a kind other than invalid_argument",
           parsed.status().ToString());
    }
    return 0;
  }
  const Json& j = *parsed;
  if (!j.is_object()) Fail("ParseObject", "accepted a non-object", tarn::api::Dump(j));
  namespace api = tarn::api;
  RoundTrip("WorkspaceFromJson", j, &api::WorkspaceFromJson);
  RoundTrip("CollectionFromJson", j, &api::CollectionFromJson);
  RoundTrip("SchemaFromJson", j, &api::SchemaFromJson);
  RoundTrip("DefinitionFromJson", j, &api::DefinitionFromJson);
  RoundTrip("DatasetFromJson", j, &api::DatasetFromJson);
  RoundTrip("ReceiptFromJson", j, &api::ReceiptFromJson);
  RoundTrip("CommitMetaFromJson", j, &api::CommitMetaFromJson);
  RoundTrip("DataFileFromJson", j, &api::DataFileFromJson);
  RoundTrip("DatasetCommitFromJson", j, &api::DatasetCommitFromJson);
  RoundTrip("SnapshotFromJson", j, &api::SnapshotFromJson);
  RoundTrip("TagFromJson", j, &api::TagFromJson);
  RoundTrip("PlannedFileFromJson", j, &api::PlannedFileFromJson);
  RoundTrip("ChangeSetFromJson", j, &api::ChangeSetFromJson);
  RoundTrip("SchemaChangeFromJson", j, &api::SchemaChangeFromJson);
  RoundTrip("ExpiryOptionsFromJson", j, &api::ExpiryOptionsFromJson);
  RoundTrip("ExpiryResultFromJson", j, &api::ExpiryResultFromJson);
  RoundTrip("CleanupResultFromJson", j, &api::CleanupResultFromJson);
  RoundTrip("AccessTokenFromJson", j, &api::AccessTokenFromJson);
  RoundTrip("NewAccessTokenFromJson", j, &api::NewAccessTokenFromJson);
  RoundTrip("AccessTokenSpecFromJson", j, &api::AccessTokenSpecFromJson);
  RoundTrip("AuditRecordFromJson", j, &api::AuditRecordFromJson);
  RoundTrip("PropertiesFromJson", j, &api::PropertiesFromJson);
  RoundTrip("ViewDefinitionFromJson", j, &api::ViewDefinitionFromJson);
  RoundTrip("ViewVersionFromJson", j, &api::ViewVersionFromJson);
  RoundTrip("ViewFromJson", j, &api::ViewFromJson);
  RoundTrip("TriggerFromJson", j, &api::TriggerFromJson);
  RoundTrip("RefreshRecordFromJson", j, &api::RefreshRecordFromJson);
  RoundTrip("MaterializedViewFromJson", j, &api::MaterializedViewFromJson);
  RoundTrip("JobFromJson", j, &api::JobFromJson);
  RoundTrip("NegotiateRequestFromJson", j, &api::NegotiateRequestFromJson);
  RoundTrip("UploadSampleFromJson", j, &api::UploadSampleFromJson);
  RoundTrip("ContractFromJson", j, &api::ContractFromJson);
  RoundTrip("PlanEntryFromJson", j, &api::PlanEntryFromJson);
  RoundTrip("ContractIssueFromJson", j, &api::ContractIssueFromJson);
  RoundTrip("ContractFileFromJson", j, &api::ContractFileFromJson);
  RoundTrip("ContractPartFromJson", j, &api::ContractPartFromJson);
  RoundTrip("WriteResultFromJson", j, &api::WriteResultFromJson);
  RoundTrip("UploadCommitResultFromJson", j, &api::UploadCommitResultFromJson);
  RoundTrip("CommitRequestFromJson", j, &api::CommitRequestFromJson);
  BodyRoundTrip("RetypeFromJson", j, &api::RetypeFromJson, api::RetypeBody);
  BodyRoundTrip("IgnoreFromJson", j, &api::IgnoreFromJson, api::IgnoreBody);
  BodyRoundTrip("AcceptFromJson", j, &api::AcceptFromJson,
                [](const std::string& f) { return api::AcceptBody(f); });
  Selectors(j);
  return 0;
}

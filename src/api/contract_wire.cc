#include "api/contract_wire.h"

#include <limits>
#include <utility>

#include "api/error_codes.h"
#include "types/value_text.h"

namespace tarn::api {

namespace {

Json OptJson(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(nullptr); }
Json OptJson(const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); }

Result<int32_t> Int32At(int64_t v, const std::string& pointer) {
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return FieldError(codes::kOutOfRange, pointer, "integer out of the 32-bit range");
  }
  return static_cast<int32_t>(v);
}

Result<std::string> StringAt(const Json& v, const std::string& pointer) {
  if (!v.is_string()) return WrongType(pointer, v, "a string");
  return v.get<std::string>();
}

// Decodes every element of the array at `key` (absent or null: none) with `fn(element,
// pointer)`.
template <typename T, typename Fn>
Result<std::vector<T>> ListAt(ObjectReader& r, const char* key, Fn fn) {
  std::vector<T> out;
  TARN_ASSIGN_OR_RETURN(const Json* arr, r.OptValue(key));
  if (arr == nullptr) return out;
  std::string pointer = r.Pointer(key);
  if (!arr->is_array()) return WrongType(pointer, *arr, "an array");
  out.reserve(arr->size());
  for (size_t i = 0; i < arr->size(); ++i) {
    TARN_ASSIGN_OR_RETURN(T v, fn((*arr)[i], pointer + "/" + std::to_string(i)));
    out.push_back(std::move(v));
  }
  return out;
}

template <typename T>
Json ListJson(const std::vector<T>& items) {
  Json a = Json::array();
  for (const auto& v : items) a.push_back(ToJson(v));
  return a;
}

Json StringsJson(const std::vector<std::string>& items) {
  Json a = Json::array();
  for (const auto& s : items) a.push_back(s);
  return a;
}

Result<std::string> OptText(ObjectReader& r, const char* key) {
  TARN_ASSIGN_OR_RETURN(auto v, r.OptString(key));
  return v.value_or("");
}

Result<int64_t> OptInt(ObjectReader& r, const char* key, int64_t fallback) {
  TARN_ASSIGN_OR_RETURN(auto v, r.OptInt(key));
  return v.value_or(fallback);
}

// {column: type text}: every value a string.
Result<std::map<std::string, std::string>> StringMapAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));  // for the pointers
  std::map<std::string, std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_string())
      return WrongType(r.Pointer(it.key().c_str()), it.value(), "a string");
    out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

Json StringMapJson(const std::map<std::string, std::string>& m) {
  Json o = Json::object();
  for (const auto& [k, v] : m) o[k] = v;
  return o;
}

// A vocabulary word of a contract read with `from_name` (ContractStateFromName, ...); any other
// string is invalid_value at `pointer`, listing the words `allowed`.
template <typename FromName>
auto WordAt(const std::string& text, FromName from_name, const std::string& pointer,
            const char* what, const char* allowed)
    -> Result<typename decltype(from_name(std::string_view()))::value_type> {
  auto value = from_name(text);
  if (!value) {
    return FieldError(
        codes::kInvalidValue, pointer,
        std::string(what) + " must be " + allowed + ", got '" + text.substr(0, 64) + "'");
  }
  return *value;
}

constexpr SchemaSourceKind kSourceKinds[] = {SchemaSourceKind::kDeclared,
                                             SchemaSourceKind::kInferred,
                                             SchemaSourceKind::kDataset, SchemaSourceKind::kAuto};

Result<SchemaSource> SchemaSourceAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  SchemaSource s;
  TARN_ASSIGN_OR_RETURN(std::string source, r.String("source"));
  bool known = false;
  for (SchemaSourceKind k : kSourceKinds) {
    if (source == SchemaSourceName(k)) {
      s.kind = k;
      known = true;
    }
  }
  if (!known) {
    return FieldError(codes::kInvalidValue, r.Pointer("source"),
                      "schema source must be declared, inferred, dataset or auto, got '" +
                          source.substr(0, 64) + "'");
  }
  TARN_ASSIGN_OR_RETURN(
      s.declared,
      (ListAt<std::pair<std::string, std::string>>(
          r, "columns",
          [](const Json& e, const std::string& p) -> Result<std::pair<std::string, std::string>> {
            TARN_ASSIGN_OR_RETURN(ObjectReader cr, ObjectReader::Make(e, p));
            TARN_ASSIGN_OR_RETURN(std::string name, cr.String("name"));
            TARN_ASSIGN_OR_RETURN(std::string type, cr.String("type"));
            TARN_RETURN_NOT_OK(cr.Finish());
            return std::make_pair(std::move(name), std::move(type));
          })));
  TARN_ASSIGN_OR_RETURN(auto mode, r.OptString("mode"));
  if (mode) {
    if (*mode == WriteModeName(WriteMode::kAppend)) {
      s.mode = WriteMode::kAppend;
    } else if (*mode == WriteModeName(WriteMode::kOverwrite)) {
      s.mode = WriteMode::kOverwrite;
    } else {
      return FieldError(codes::kInvalidValue, r.Pointer("mode"),
                        "mode must be append or overwrite, got '" + mode->substr(0, 64) + "'");
    }
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return s;
}

Json SchemaSourceJson(const SchemaSource& s) {
  Json columns = Json::array();
  for (const auto& [name, type] : s.declared) columns.push_back({{"name", name}, {"type", type}});
  return Json{{"source", std::string(SchemaSourceName(s.kind))},
              {"columns", std::move(columns)},
              {"mode", std::string(WriteModeName(s.mode))}};
}

Result<UploadSample> SampleAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  UploadSample s;
  TARN_ASSIGN_OR_RETURN(s.name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(std::string b64, r.String("bytes"));
  auto bytes = DecodeBase64(b64);
  if (!bytes.ok()) {
    return FieldError(codes::kInvalidBase64, r.Pointer("bytes"), bytes.status().message());
  }
  s.bytes = std::move(*bytes);
  TARN_ASSIGN_OR_RETURN(s.file_size, OptInt(r, "file_size", -1));
  TARN_ASSIGN_OR_RETURN(s.whole_file, r.Bool("whole_file", false));
  TARN_ASSIGN_OR_RETURN(s.content_type, OptText(r, "content_type"));
  TARN_ASSIGN_OR_RETURN(s.content_encoding, OptText(r, "content_encoding"));
  TARN_RETURN_NOT_OK(r.Finish());
  return s;
}

Result<PlanEntry> PlanEntryAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  PlanEntry e;
  TARN_ASSIGN_OR_RETURN(e.column, r.String("column"));
  TARN_ASSIGN_OR_RETURN(e.from, OptText(r, "from"));
  TARN_ASSIGN_OR_RETURN(e.to, OptText(r, "to"));
  TARN_ASSIGN_OR_RETURN(std::string action, r.String("action"));
  TARN_ASSIGN_OR_RETURN(e.action, WordAt(action, PlanActionFromName, r.Pointer("action"), "action",
                                         "keep, retag, widen, cast, unsupported, undeclared, "
                                         "ignored or missing"));
  TARN_ASSIGN_OR_RETURN(e.sample, OptText(r, "sample"));
  TARN_ASSIGN_OR_RETURN(e.changes_values, r.Bool("changes_values", false));
  TARN_ASSIGN_OR_RETURN(e.retyped, r.Bool("retyped", false));
  TARN_RETURN_NOT_OK(r.Finish());
  return e;
}

Result<ContractIssue> IssueAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  ContractIssue i;
  TARN_ASSIGN_OR_RETURN(i.code, r.String("code"));
  TARN_ASSIGN_OR_RETURN(i.column, OptText(r, "column"));
  TARN_ASSIGN_OR_RETURN(i.detail, OptText(r, "detail"));
  TARN_ASSIGN_OR_RETURN(std::string severity, r.String("severity"));
  TARN_ASSIGN_OR_RETURN(i.severity, WordAt(severity, IssueSeverityFromName, r.Pointer("severity"),
                                           "severity", "blocking or warning"));
  TARN_ASSIGN_OR_RETURN(const Json* fields, r.OptValue("fields"));
  if (fields) {
    TARN_ASSIGN_OR_RETURN(i.fields, StringMapAt(*fields, r.Pointer("fields")));
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return i;
}

Result<ContractFile> FileAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  ContractFile f;
  TARN_ASSIGN_OR_RETURN(f.name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(f.format, OptText(r, "format"));
  TARN_ASSIGN_OR_RETURN(f.compression, OptText(r, "compression"));
  TARN_ASSIGN_OR_RETURN(f.file_size, OptInt(r, "file_size", -1));
  TARN_ASSIGN_OR_RETURN(f.sampled_rows, OptInt(r, "sampled_rows", 0));
  TARN_ASSIGN_OR_RETURN(f.sampled_bytes, OptInt(r, "sampled_bytes", 0));
  TARN_RETURN_NOT_OK(r.Finish());
  return f;
}

Result<ContractPart> PartAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  ContractPart p;
  TARN_ASSIGN_OR_RETURN(int64_t seq, r.Int("seq"));
  TARN_ASSIGN_OR_RETURN(p.seq, Int32At(seq, r.Pointer("seq")));
  TARN_ASSIGN_OR_RETURN(p.name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(p.rows, OptInt(r, "rows", 0));
  TARN_ASSIGN_OR_RETURN(p.bytes_read, OptInt(r, "bytes_read", 0));
  TARN_ASSIGN_OR_RETURN(p.bytes_written, OptInt(r, "bytes_written", 0));
  TARN_ASSIGN_OR_RETURN(int64_t files, OptInt(r, "files", 0));
  TARN_ASSIGN_OR_RETURN(p.files, Int32At(files, r.Pointer("files")));
  TARN_ASSIGN_OR_RETURN(p.written_at_us, OptInt(r, "written_at_us", 0));
  TARN_RETURN_NOT_OK(r.Finish());
  return p;
}

Result<UploadCommitResult> CommitResultAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  UploadCommitResult c;
  TARN_ASSIGN_OR_RETURN(c.target, r.String("target"));
  TARN_ASSIGN_OR_RETURN(c.snapshot_id, r.Int("snapshot_id"));
  TARN_ASSIGN_OR_RETURN(c.commit_id, OptText(r, "commit_id"));
  TARN_ASSIGN_OR_RETURN(c.rows_written, OptInt(r, "rows_written", 0));
  TARN_ASSIGN_OR_RETURN(c.files, OptInt(r, "files", 0));
  TARN_ASSIGN_OR_RETURN(c.bytes, OptInt(r, "bytes", 0));
  TARN_ASSIGN_OR_RETURN(c.created_dataset, r.Bool("created_dataset", false));
  TARN_ASSIGN_OR_RETURN(c.idempotent_replay, r.Bool("idempotent_replay", false));
  TARN_RETURN_NOT_OK(r.Finish());
  return c;
}

}  // namespace

// ---- negotiation ----

Json ToJson(const UploadSample& v) {
  std::string b64;
  AppendBase64(v.bytes, &b64);
  return Json{{"name", v.name},
              {"bytes", std::move(b64)},
              {"file_size", v.file_size},
              {"whole_file", v.whole_file},
              {"content_type", v.content_type},
              {"content_encoding", v.content_encoding}};
}

Result<UploadSample> UploadSampleFromJson(const Json& j) { return SampleAt(j, ""); }

Json ToJson(const NegotiateRequest& v) {
  Json o = {{"target", v.target},
            {"samples", ListJson(v.samples)},
            {"retype", StringMapJson(v.retype)},
            {"ignore", StringsJson(v.ignore)},
            {"channel", v.channel},
            {"ttl_s", OptJson(v.ttl_s)}};
  if (v.schema.kind != SchemaSourceKind::kNone) o["schema"] = SchemaSourceJson(v.schema);
  return o;
}

Result<NegotiateRequest> NegotiateRequestFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  NegotiateRequest v;
  TARN_ASSIGN_OR_RETURN(v.target, r.String("target"));
  TARN_ASSIGN_OR_RETURN(const Json* schema, r.OptValue("schema"));
  if (schema != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.schema, SchemaSourceAt(*schema, r.Pointer("schema")));
  }
  TARN_ASSIGN_OR_RETURN(const Json* samples, r.Value("samples"));
  (void)samples;  // required; decoded below
  TARN_ASSIGN_OR_RETURN(v.samples, ListAt<UploadSample>(r, "samples", SampleAt));
  TARN_ASSIGN_OR_RETURN(const Json* retype, r.OptValue("retype"));
  if (retype != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.retype, StringMapAt(*retype, r.Pointer("retype")));
  }
  TARN_ASSIGN_OR_RETURN(v.ignore, ListAt<std::string>(r, "ignore", StringAt));
  TARN_ASSIGN_OR_RETURN(auto channel, r.OptString("channel"));
  v.channel = channel.value_or("sdk");
  TARN_ASSIGN_OR_RETURN(v.ttl_s, r.OptInt("ttl_s"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

// ---- the contract ----

Json ToJson(const PlanEntry& v) {
  return Json{{"column", v.column},  {"from", v.from},
              {"to", v.to},          {"action", std::string(PlanActionName(v.action))},
              {"sample", v.sample},  {"changes_values", v.changes_values},
              {"retyped", v.retyped}};
}
Result<PlanEntry> PlanEntryFromJson(const Json& j) { return PlanEntryAt(j, ""); }

Json ToJson(const ContractIssue& v) {
  Json j{{"code", v.code},
         {"column", v.column},
         {"detail", v.detail},
         {"severity", std::string(IssueSeverityName(v.severity))}};
  if (!v.fields.empty()) j["fields"] = StringMapJson(v.fields);
  return j;
}
Result<ContractIssue> ContractIssueFromJson(const Json& j) { return IssueAt(j, ""); }

Json ToJson(const ContractFile& v) {
  return Json{{"name", v.name},
              {"format", v.format},
              {"compression", v.compression},
              {"file_size", v.file_size},
              {"sampled_rows", v.sampled_rows},
              {"sampled_bytes", v.sampled_bytes}};
}
Result<ContractFile> ContractFileFromJson(const Json& j) { return FileAt(j, ""); }

Json ToJson(const ContractPart& v) {
  return Json{{"seq", v.seq},
              {"name", v.name},
              {"rows", v.rows},
              {"bytes_read", v.bytes_read},
              {"bytes_written", v.bytes_written},
              {"files", v.files},
              {"written_at_us", v.written_at_us}};
}
Result<ContractPart> ContractPartFromJson(const Json& j) { return PartAt(j, ""); }

Json ToJson(const UploadCommitResult& v) {
  return Json{{"target", v.target},
              {"snapshot_id", v.snapshot_id},
              {"commit_id", v.commit_id},
              {"rows_written", v.rows_written},
              {"files", v.files},
              {"bytes", v.bytes},
              {"created_dataset", v.created_dataset},
              {"idempotent_replay", v.idempotent_replay}};
}
Result<UploadCommitResult> UploadCommitResultFromJson(const Json& j) {
  return CommitResultAt(j, "");
}

Json ToJson(const Contract& v) {
  return Json{{"id", v.id},
              {"state", std::string(ContractStateName(v.state))},
              {"target", v.target},
              {"requested_source", v.requested_source},
              {"schema_source", v.schema_source},
              {"mode", std::string(SchemaModeName(v.mode))},
              {"dataset_exists", v.dataset_exists},
              {"dataset_uuid", v.dataset_uuid},
              {"dataset_schema_id", v.dataset_schema_id},
              {"channel", v.channel},
              {"files", ListJson(v.files)},
              {"plan", ListJson(v.plan)},
              {"issues", ListJson(v.issues)},
              {"fingerprint", v.fingerprint},
              {"parts", ListJson(v.parts)},
              {"rows_written", v.rows_written},
              {"bytes_written", v.bytes_written},
              {"created_by", v.created_by},
              {"created_at_us", v.created_at_us},
              {"updated_at_us", v.updated_at_us},
              {"expires_at_us", v.expires_at_us},
              {"committed", v.committed ? ToJson(*v.committed) : Json(nullptr)}};
}

Result<Contract> ContractFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  Contract v;
  TARN_ASSIGN_OR_RETURN(v.id, r.String("id"));
  TARN_ASSIGN_OR_RETURN(std::string state, r.String("state"));
  // "committing" is the store's own: a server never sends it.
  TARN_ASSIGN_OR_RETURN(v.state, WordAt(state, ContractStateFromName, r.Pointer("state"), "state",
                                        "proposed, accepted, writing, committed, stale, "
                                        "abandoned or expired"));
  if (v.state == ContractState::kCommitting) {
    return FieldError(codes::kInvalidValue, r.Pointer("state"),
                      "state must be proposed, accepted, writing, committed, stale, abandoned or "
                      "expired, got 'committing'");
  }
  TARN_ASSIGN_OR_RETURN(v.target, r.String("target"));
  TARN_ASSIGN_OR_RETURN(v.requested_source, OptText(r, "requested_source"));
  TARN_ASSIGN_OR_RETURN(v.schema_source, OptText(r, "schema_source"));
  TARN_ASSIGN_OR_RETURN(auto mode, r.OptString("mode"));
  if (mode) {  // absent: the default, create
    TARN_ASSIGN_OR_RETURN(v.mode, WordAt(*mode, SchemaModeFromName, r.Pointer("mode"), "mode",
                                         "create, append or overwrite"));
  }
  TARN_ASSIGN_OR_RETURN(v.dataset_exists, r.Bool("dataset_exists", false));
  TARN_ASSIGN_OR_RETURN(v.dataset_uuid, OptText(r, "dataset_uuid"));
  TARN_ASSIGN_OR_RETURN(int64_t schema_id, OptInt(r, "dataset_schema_id", 0));
  TARN_ASSIGN_OR_RETURN(v.dataset_schema_id, Int32At(schema_id, r.Pointer("dataset_schema_id")));
  TARN_ASSIGN_OR_RETURN(v.channel, OptText(r, "channel"));
  TARN_ASSIGN_OR_RETURN(v.files, ListAt<ContractFile>(r, "files", FileAt));
  TARN_ASSIGN_OR_RETURN(v.plan, ListAt<PlanEntry>(r, "plan", PlanEntryAt));
  TARN_ASSIGN_OR_RETURN(v.issues, ListAt<ContractIssue>(r, "issues", IssueAt));
  TARN_ASSIGN_OR_RETURN(v.fingerprint, OptText(r, "fingerprint"));
  TARN_ASSIGN_OR_RETURN(v.parts, ListAt<ContractPart>(r, "parts", PartAt));
  TARN_ASSIGN_OR_RETURN(v.rows_written, OptInt(r, "rows_written", 0));
  TARN_ASSIGN_OR_RETURN(v.bytes_written, OptInt(r, "bytes_written", 0));
  TARN_ASSIGN_OR_RETURN(v.created_by, OptText(r, "created_by"));
  TARN_ASSIGN_OR_RETURN(v.created_at_us, OptInt(r, "created_at_us", 0));
  TARN_ASSIGN_OR_RETURN(v.updated_at_us, OptInt(r, "updated_at_us", 0));
  TARN_ASSIGN_OR_RETURN(v.expires_at_us, OptInt(r, "expires_at_us", 0));
  TARN_ASSIGN_OR_RETURN(const Json* committed, r.OptValue("committed"));
  if (committed != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.committed, CommitResultAt(*committed, r.Pointer("committed")));
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

// ---- writes and commits ----

Json ToJson(const WriteResult& v) {
  return Json{{"contract_id", v.contract_id}, {"part", ToJson(v.part)}};
}

Result<WriteResult> WriteResultFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  WriteResult v;
  TARN_ASSIGN_OR_RETURN(v.contract_id, r.String("contract_id"));
  TARN_ASSIGN_OR_RETURN(const Json* part, r.Value("part"));
  TARN_ASSIGN_OR_RETURN(v.part, PartAt(*part, r.Pointer("part")));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const CommitRequest& v) {
  return Json{{"message", v.message},
              {"idempotency_key", OptJson(v.idempotency_key)},
              {"author", v.author}};
}

Result<CommitRequest> CommitRequestFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  CommitRequest v;
  TARN_ASSIGN_OR_RETURN(v.message, OptText(r, "message"));
  TARN_ASSIGN_OR_RETURN(v.idempotency_key, r.OptString("idempotency_key"));
  TARN_ASSIGN_OR_RETURN(v.author, OptText(r, "author"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

// ---- retype, ignore, accept ----

Json RetypeBody(const std::map<std::string, std::string>& types) {
  return Json{{"types", StringMapJson(types)}};
}

Result<std::map<std::string, std::string>> RetypeFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  TARN_ASSIGN_OR_RETURN(const Json* types, r.Value("types"));
  TARN_ASSIGN_OR_RETURN(auto out, StringMapAt(*types, r.Pointer("types")));
  TARN_RETURN_NOT_OK(r.Finish());
  return out;
}

Json IgnoreBody(const std::vector<std::string>& columns) {
  return Json{{"columns", StringsJson(columns)}};
}

Result<std::vector<std::string>> IgnoreFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  TARN_ASSIGN_OR_RETURN(const Json* columns, r.Value("columns"));
  (void)columns;  // required; decoded below
  TARN_ASSIGN_OR_RETURN(auto out, ListAt<std::string>(r, "columns", StringAt));
  TARN_RETURN_NOT_OK(r.Finish());
  return out;
}

Json AcceptBody(std::string_view fingerprint) {
  return Json{{"fingerprint", std::string(fingerprint)}};
}

Result<std::string> AcceptFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  TARN_ASSIGN_OR_RETURN(std::string fingerprint, r.String("fingerprint"));
  TARN_RETURN_NOT_OK(r.Finish());
  return fingerprint;
}

}  // namespace tarn::api

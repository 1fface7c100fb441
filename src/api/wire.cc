#include "api/wire.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "api/error_codes.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "table/schema_json.h"
#include "types/value_text.h"

namespace tarn::api {

namespace {

// RFC 6901 escaping of one reference token.
std::string EscapePointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Shown(const std::string& pointer) { return pointer.empty() ? "(body)" : pointer; }

}  // namespace

Status FieldError(const ErrorCode& code, const std::string& pointer, std::string message) {
  return Status(code.kind, Shown(pointer) + ": " + message)
      .WithCode(code)
      .WithField("field", pointer);
}

namespace {

const char* TypeName(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number";
    default:
      return "a value";
  }
}

}  // namespace

Status WrongType(const std::string& pointer, const Json& j, const char* expected) {
  return FieldError(codes::kWrongType, pointer,
                    std::string("expected ") + expected + ", got " + TypeName(j));
}

namespace {

// An error from a library parser (schema JSON, partition spec, ...) about the value at
// `pointer`: keeps its kind and message, adds code=invalid_value (unless it has a code) and the
// field pointer.
Status AtField(const Status& st, const std::string& pointer) {
  Status out = Status(st.kind(), Shown(pointer) + ": " + st.message());
  bool has_code = false;
  for (const auto& [k, v] : st.fields()) {
    if (k == "field") continue;
    if (k == "code") has_code = true;
    out = std::move(out).WithField(k, v);
  }
  if (!has_code) out = std::move(out).WithCode(codes::kInvalidValue);
  return std::move(out).WithField("field", pointer);
}

Result<int64_t> IntAt(const Json& v, const std::string& pointer) {
  if (!v.is_number_integer()) return WrongType(pointer, v, "an integer");
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return FieldError(codes::kOutOfRange, pointer, "integer out of the 64-bit signed range");
  }
  return v.get<int64_t>();
}

Result<int32_t> Int32Of(int64_t v, const std::string& pointer) {
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return FieldError(codes::kOutOfRange, pointer, "integer out of the 32-bit range");
  }
  return static_cast<int32_t>(v);
}

Json OptJson(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(nullptr); }
Json OptJson(const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); }

std::string Base64(std::string_view bytes) {
  std::string out;
  AppendBase64(bytes, &out);
  return out;
}

Result<std::string> Base64At(const std::string& text, const std::string& pointer) {
  auto bytes = DecodeBase64(text);
  if (!bytes.ok()) return FieldError(codes::kInvalidBase64, pointer, bytes.status().message());
  return std::move(bytes).value();
}

// Parses JSON text produced by a library ToJson (always valid).
Json ParseTrusted(const std::string& text) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? Json(nullptr) : j;
}

// Iterates the elements of an array field: `fn(element, pointer)`.
template <typename Fn>
Status ForEachIn(const Json& arr, const std::string& pointer, Fn fn) {
  if (!arr.is_array()) return WrongType(pointer, arr, "an array");
  for (size_t i = 0; i < arr.size(); ++i) {
    TARN_RETURN_NOT_OK(fn(arr[i], pointer + "/" + std::to_string(i)));
  }
  return Status::OK();
}

Result<std::string> StringAt(const Json& v, const std::string& pointer) {
  if (!v.is_string()) return WrongType(pointer, v, "a string");
  return v.get<std::string>();
}

Result<std::vector<std::string>> StringsAt(const Json& v, const std::string& pointer) {
  std::vector<std::string> out;
  TARN_RETURN_NOT_OK(ForEachIn(v, pointer, [&](const Json& e, const std::string& p) -> Status {
    TARN_ASSIGN_OR_RETURN(std::string s, StringAt(e, p));
    out.push_back(std::move(s));
    return Status::OK();
  }));
  return out;
}

Json StringsJson(const std::vector<std::string>& v) {
  Json arr = Json::array();
  for (const auto& s : v) arr.push_back(s);
  return arr;
}

// ---- decoders with a pointer prefix ----

Result<PropertyMap> PropertiesAt(const Json& j, const std::string& path) {
  if (!j.is_object()) return WrongType(path, j, "an object");
  PropertyMap out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string p = path + "/" + EscapePointerToken(it.key());
    if (!it.value().is_string()) return WrongType(p, it.value(), "a string");
    out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

Result<PropertyMap> OptProperties(ObjectReader& r, const char* key) {
  TARN_ASSIGN_OR_RETURN(const Json* v, r.OptValue(key));
  if (v == nullptr) return PropertyMap{};
  return PropertiesAt(*v, r.Pointer(key));
}

Result<Schema> SchemaAt(const Json& j, const std::string& path) {
  if (!j.is_object()) return WrongType(path, j, "an object");
  auto s = tarn::SchemaFromJson(Dump(j));
  if (!s.ok()) return AtField(s.status(), path);
  return std::move(s).value();
}

Result<PartitionSpec> SpecAt(const Json& j, const std::string& path) {
  if (!j.is_object()) return WrongType(path, j, "an object");
  auto s = PartitionSpec::FromJson(Dump(j));
  if (!s.ok()) return AtField(s.status(), path);
  return std::move(s).value();
}

Result<SortOrder> SortOrderAt(const Json& j, const std::string& path) {
  if (!j.is_object()) return WrongType(path, j, "an object");
  auto s = SortOrder::FromJson(Dump(j));
  if (!s.ok()) return AtField(s.status(), path);
  return std::move(s).value();
}

Result<std::vector<ReadReference>> ReadSourcesAt(const Json& j, const std::string& path) {
  std::vector<ReadReference> out;
  TARN_RETURN_NOT_OK(ForEachIn(j, path, [&](const Json& e, const std::string& p) -> Status {
    TARN_ASSIGN_OR_RETURN(ObjectReader er, ObjectReader::Make(e, p));
    ReadReference ref;
    TARN_ASSIGN_OR_RETURN(ref.dataset, er.String("dataset"));
    TARN_ASSIGN_OR_RETURN(auto uuid, er.OptString("dataset_uuid"));
    ref.dataset_uuid = uuid.value_or("");
    TARN_ASSIGN_OR_RETURN(ref.snapshot_id, er.Int("snapshot_id"));
    TARN_ASSIGN_OR_RETURN(ref.resolved_by, er.String("resolved_by"));
    TARN_ASSIGN_OR_RETURN(auto tag, er.OptString("tag"));
    ref.tag = tag.value_or("");
    TARN_RETURN_NOT_OK(er.Finish());
    out.push_back(std::move(ref));
    return Status::OK();
  }));
  return out;
}

Json SourcesJson(const std::vector<SourceRef>& sources) {
  Json out = Json::array();
  for (const auto& s : sources) {
    out.push_back({{"dataset", s.dataset}, {"dataset_uuid", s.dataset_uuid}});
  }
  return out;
}

Result<std::vector<SourceRef>> SourcesAt(const Json& j, const std::string& path) {
  std::vector<SourceRef> out;
  TARN_RETURN_NOT_OK(ForEachIn(j, path, [&](const Json& e, const std::string& p) -> Status {
    TARN_ASSIGN_OR_RETURN(ObjectReader er, ObjectReader::Make(e, p));
    SourceRef s;
    TARN_ASSIGN_OR_RETURN(s.dataset, er.String("dataset"));
    TARN_ASSIGN_OR_RETURN(s.dataset_uuid, er.String("dataset_uuid"));
    TARN_RETURN_NOT_OK(er.Finish());
    out.push_back(std::move(s));
    return Status::OK();
  }));
  return out;
}

Result<Receipt> ReceiptAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  Receipt out;
  TARN_ASSIGN_OR_RETURN(out.produced_by, r.OptString("produced_by"));
  TARN_ASSIGN_OR_RETURN(out.read_sources_truncated, r.Bool("read_sources_truncated", false));
  TARN_ASSIGN_OR_RETURN(const Json* reads, r.OptValue("read_sources"));
  if (reads != nullptr) {
    TARN_ASSIGN_OR_RETURN(out.read_sources, ReadSourcesAt(*reads, r.Pointer("read_sources")));
  }
  // Derived from read_sources; accepted so a receipt read back can be sent again.
  TARN_RETURN_NOT_OK(r.OptValue("read_source_keys").status());
  TARN_RETURN_NOT_OK(r.Finish());
  return out;
}

Result<CommitMeta> CommitMetaAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  CommitMeta m;
  TARN_ASSIGN_OR_RETURN(auto author, r.OptString("author"));
  m.author = author.value_or("");
  TARN_ASSIGN_OR_RETURN(auto message, r.OptString("message"));
  m.message = message.value_or("");
  TARN_ASSIGN_OR_RETURN(m.idempotency_key, r.OptString("idempotency_key"));
  TARN_ASSIGN_OR_RETURN(m.defer_stats, r.Bool("defer_stats", false));
  TARN_ASSIGN_OR_RETURN(const Json* receipt, r.OptValue("receipt"));
  if (receipt != nullptr && !receipt->is_null()) {
    TARN_ASSIGN_OR_RETURN(m.receipt, ReceiptAt(*receipt, r.Pointer("receipt")));
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return m;
}

Json StatsJson(const ColumnStats& s) {
  Json o = {{"field_id", s.field_id},
            {"value_count", s.value_count},
            {"null_count", s.null_count},
            {"nan_count", OptJson(s.nan_count)}};
  o["lower"] = s.lower ? Json(Base64(*s.lower)) : Json(nullptr);
  o["upper"] = s.upper ? Json(Base64(*s.upper)) : Json(nullptr);
  return o;
}

Result<ColumnStats> StatsAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  ColumnStats s;
  TARN_ASSIGN_OR_RETURN(int64_t id, r.Int("field_id"));
  TARN_ASSIGN_OR_RETURN(s.field_id, Int32Of(id, r.Pointer("field_id")));
  TARN_ASSIGN_OR_RETURN(auto values, r.OptInt("value_count"));
  s.value_count = values.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto nulls, r.OptInt("null_count"));
  s.null_count = nulls.value_or(0);
  TARN_ASSIGN_OR_RETURN(s.nan_count, r.OptInt("nan_count"));
  for (const char* key : {"lower", "upper"}) {
    TARN_ASSIGN_OR_RETURN(auto b64, r.OptString(key));
    if (!b64) continue;
    TARN_ASSIGN_OR_RETURN(std::string bytes, Base64At(*b64, r.Pointer(key)));
    (std::strcmp(key, "lower") == 0 ? s.lower : s.upper) = std::move(bytes);
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return s;
}

Result<DataFile> DataFileAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  DataFile f;
  TARN_ASSIGN_OR_RETURN(f.path, r.String("path"));
  TARN_ASSIGN_OR_RETURN(auto format, r.OptString("format"));
  f.format = format.value_or("parquet");
  TARN_ASSIGN_OR_RETURN(f.record_count, r.Int("record_count"));
  TARN_ASSIGN_OR_RETURN(f.file_size_bytes, r.Int("file_size_bytes"));
  TARN_ASSIGN_OR_RETURN(auto spec_id, r.OptInt("spec_id"));
  TARN_ASSIGN_OR_RETURN(f.spec_id, Int32Of(spec_id.value_or(0), r.Pointer("spec_id")));
  TARN_ASSIGN_OR_RETURN(const Json* partition, r.OptValue("partition"));
  if (partition != nullptr) {
    TARN_RETURN_NOT_OK(ForEachIn(*partition, r.Pointer("partition"),
                                 [&](const Json& e, const std::string& p) -> Status {
                                   if (e.is_null()) {
                                     f.partition.push_back(std::nullopt);
                                     return Status::OK();
                                   }
                                   TARN_ASSIGN_OR_RETURN(std::string s, StringAt(e, p));
                                   f.partition.push_back(std::move(s));
                                   return Status::OK();
                                 }));
  }
  TARN_ASSIGN_OR_RETURN(const Json* columns, r.OptValue("columns"));
  if (columns != nullptr) {
    TARN_RETURN_NOT_OK(ForEachIn(*columns, r.Pointer("columns"),
                                 [&](const Json& e, const std::string& p) -> Status {
                                   TARN_ASSIGN_OR_RETURN(ColumnStats s, StatsAt(e, p));
                                   f.columns.push_back(std::move(s));
                                   return Status::OK();
                                 }));
  }
  // "stats" in a commit request, "stats_state" in what the catalog returns: "pending" or
  // "complete". Both name the same thing and must agree when both are present.
  std::optional<bool> pending;
  for (const char* key : {"stats", "stats_state"}) {
    TARN_ASSIGN_OR_RETURN(auto state, r.OptString(key));
    if (!state) continue;
    if (*state != "pending" && *state != "complete") {
      return FieldError(codes::kInvalidValue, r.Pointer(key),
                        std::string(key) + " must be \"pending\" or \"complete\"");
    }
    if (pending && *pending != (*state == "pending")) {
      return FieldError(codes::kInvalidValue, r.Pointer(key),
                        "\"stats\" and \"stats_state\" disagree");
    }
    pending = *state == "pending";
  }
  f.stats_pending = pending.value_or(false);
  TARN_ASSIGN_OR_RETURN(auto file_id, r.OptInt("file_id"));
  f.file_id = file_id.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto first_row_id, r.OptInt("first_row_id"));
  f.first_row_id = first_row_id.value_or(-1);
  TARN_ASSIGN_OR_RETURN(auto added, r.OptInt("added_snapshot_id"));
  f.added_snapshot_id = added.value_or(0);
  TARN_ASSIGN_OR_RETURN(f.removed_snapshot_id, r.OptInt("removed_snapshot_id"));
  TARN_RETURN_NOT_OK(r.Finish());
  return f;
}

Result<std::vector<DataFile>> DataFilesAt(const Json& j, const std::string& path) {
  std::vector<DataFile> out;
  TARN_RETURN_NOT_OK(ForEachIn(j, path, [&](const Json& e, const std::string& p) -> Status {
    TARN_ASSIGN_OR_RETURN(DataFile f, DataFileAt(e, p));
    out.push_back(std::move(f));
    return Status::OK();
  }));
  return out;
}

Json DataFilesJson(const std::vector<DataFile>& files) {
  Json arr = Json::array();
  for (const auto& f : files) arr.push_back(ToJson(f));
  return arr;
}

Result<SchemaChange> SchemaChangeAt(const Json& j, const std::string& path);
Result<AccessTokenInfo> AccessTokenAt(ObjectReader& r);

struct KindName {
  SchemaChange::Kind kind;
  const char* name;
};
constexpr KindName kChangeKinds[] = {
    {SchemaChange::Kind::kAddColumn, "add_column"},
    {SchemaChange::Kind::kDropColumn, "drop_column"},
    {SchemaChange::Kind::kRenameColumn, "rename_column"},
    {SchemaChange::Kind::kPromoteColumn, "promote_column"},
    {SchemaChange::Kind::kMoveColumn, "move_column"},
    {SchemaChange::Kind::kSetNullable, "set_nullable"},
};

Result<SchemaChange> SchemaChangeAt(const Json& j, const std::string& path) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, path));
  SchemaChange c;
  TARN_ASSIGN_OR_RETURN(std::string kind, r.String("kind"));
  bool known = false;
  for (const auto& k : kChangeKinds) {
    if (kind == k.name) {
      c.kind = k.kind;
      known = true;
    }
  }
  if (!known) {
    return FieldError(codes::kInvalidValue, r.Pointer("kind"),
                      "unknown schema change kind '" + kind.substr(0, 64) + "'");
  }
  TARN_ASSIGN_OR_RETURN(c.column, r.String("column"));
  TARN_ASSIGN_OR_RETURN(auto new_name, r.OptString("new_name"));
  c.new_name = new_name.value_or("");
  TARN_ASSIGN_OR_RETURN(auto type, r.OptString("type"));
  if (type) {
    auto dt = DataType::Parse(*type);
    if (!dt.ok()) return AtField(dt.status(), r.Pointer("type"));
    c.type = *dt;
  }
  TARN_ASSIGN_OR_RETURN(c.nullable, r.Bool("nullable", true));
  TARN_ASSIGN_OR_RETURN(c.after, r.OptString("after"));
  TARN_ASSIGN_OR_RETURN(c.first, r.Bool("first", false));
  TARN_RETURN_NOT_OK(r.Finish());
  return c;
}

Result<AccessTokenInfo> AccessTokenAt(ObjectReader& r) {
  AccessTokenInfo t;
  TARN_ASSIGN_OR_RETURN(t.client_id, r.String("client_id"));
  TARN_ASSIGN_OR_RETURN(t.workspace, r.String("workspace"));
  TARN_ASSIGN_OR_RETURN(std::string role, r.String("role"));
  auto parsed = ParseRole(role);
  if (!parsed.ok()) return AtField(parsed.status(), r.Pointer("role"));
  t.role = *parsed;
  TARN_ASSIGN_OR_RETURN(auto pattern, r.OptString("pattern"));
  t.pattern = pattern.value_or("*");
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  t.description = description.value_or("");
  TARN_ASSIGN_OR_RETURN(auto created_by, r.OptString("created_by"));
  t.created_by = created_by.value_or("");
  TARN_ASSIGN_OR_RETURN(auto created, r.OptInt("created_at_us"));
  t.created_at_us = created.value_or(0);
  TARN_ASSIGN_OR_RETURN(t.last_used_at_us, r.OptInt("last_used_at_us"));
  TARN_ASSIGN_OR_RETURN(t.revoked_at_us, r.OptInt("revoked_at_us"));
  return t;
}

void PutTokenInfo(const AccessTokenInfo& v, Json* o) {
  (*o)["client_id"] = v.client_id;
  (*o)["workspace"] = v.workspace;
  (*o)["role"] = std::string(RoleName(v.role));
  (*o)["pattern"] = v.pattern;
  (*o)["description"] = v.description;
  (*o)["created_by"] = v.created_by;
  (*o)["created_at_us"] = v.created_at_us;
  (*o)["last_used_at_us"] = OptJson(v.last_used_at_us);
  (*o)["revoked_at_us"] = OptJson(v.revoked_at_us);
}

// Reads an int64 from query-parameter text (the whole text, base 10).
Result<int64_t> ParamInt(std::string_view name, const std::string& text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return Status::Of(codes::kInvalidValue, "query parameter " + std::string(name) +
                                                " must be an integer, got '" + text.substr(0, 64) +
                                                "'")
        .WithField("field", std::string(name));
  }
  return v;
}

ErrorKind KindForHttpStatus(int http_status) {
  switch (http_status) {
    case 400:
    case 422:
      return ErrorKind::kInvalidArgument;
    case 401:
      return ErrorKind::kUnauthenticated;
    case 403:
      return ErrorKind::kPermissionDenied;
    case 404:
      return ErrorKind::kNotFound;
    case 409:
      return ErrorKind::kConflict;
    case 410:
      return ErrorKind::kExpired;
    case 413:
    case 431:
      return ErrorKind::kTooLarge;
    case 499:
      return ErrorKind::kCancelled;
    case 502:
    case 503:
    case 504:
      return ErrorKind::kUnavailable;
    default:
      return http_status >= 400 && http_status < 500 ? ErrorKind::kInvalidArgument
                                                     : ErrorKind::kInternal;
  }
}

constexpr ErrorKind kAllKinds[] = {
    ErrorKind::kInvalidArgument,  ErrorKind::kNotFound,
    ErrorKind::kAlreadyExists,    ErrorKind::kFailedPrecondition,
    ErrorKind::kConflict,         ErrorKind::kStale,
    ErrorKind::kExpired,          ErrorKind::kUnauthenticated,
    ErrorKind::kPermissionDenied, ErrorKind::kTooLarge,
    ErrorKind::kCorruption,       ErrorKind::kUnavailable,
    ErrorKind::kIOError,          ErrorKind::kCancelled,
    ErrorKind::kInternal,
};

std::optional<ErrorKind> KindByName(std::string_view name) {
  for (ErrorKind k : kAllKinds) {
    if (ErrorKindName(k) == name) return k;
  }
  return std::nullopt;
}

}  // namespace

// ---- JSON text ----

namespace {

// Finds the first key that repeats within one object, at any depth (nlohmann keeps the last
// value silently, so two readers of the same body could disagree on what it says). Fed the
// parser's events; `pointer` is the JSON pointer of the first repeated key.
class DuplicateKeyFinder {
 public:
  bool found() const { return found_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& key() const { return key_; }

  bool operator()(int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start: {
        Frame f;
        f.object = event == Json::parse_event_t::object_start;
        f.pointer = ChildPointer();
        frames_.push_back(std::move(f));
      } break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!frames_.empty() && parsed.is_string()) {
          Frame& f = frames_.back();
          f.last_key = parsed.get<std::string>();
          if (!f.keys.insert(f.last_key).second && !found_) {
            found_ = true;
            key_ = f.last_key;
            pointer_ = f.pointer + "/" + EscapePointerToken(f.last_key);
          }
        }
        break;
      case Json::parse_event_t::value:
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().next_index;
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object = false;
    std::unordered_set<std::string> keys;
    std::string pointer;
    std::string last_key;
    size_t next_index = 0;
  };
  // The pointer of a container that starts now (an array element's index is taken).
  std::string ChildPointer() {
    if (frames_.empty()) return "";
    Frame& f = frames_.back();
    if (f.object) return f.pointer + "/" + EscapePointerToken(f.last_key);
    return f.pointer + "/" + std::to_string(f.next_index++);
  }

  std::vector<Frame> frames_;
  bool found_ = false;
  std::string pointer_, key_;
};

}  // namespace

Result<Json> ParseObject(std::string_view body) {
  DuplicateKeyFinder dups;
  Json j = Json::parse(
      body.begin(), body.end(),
      [&dups](int depth, Json::parse_event_t event, Json& parsed) {
        return dups(depth, event, parsed);
      },
      /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return Status::Of(codes::kMalformedJson, "the body is not valid JSON").WithField("field", "");
  }
  if (dups.found()) {
    return Status::Of(codes::kMalformedJson, "the body has the key " +
                                                 Dump(Json(dups.key().substr(0, 60))) +
                                                 " twice in one object (at " + dups.pointer() + ")")
        .WithField("field", dups.pointer());
  }
  if (!j.is_object()) {
    return Status::Of(codes::kMalformedJson,
                      std::string("the body must be a JSON object, got ") + TypeName(j))
        .WithField("field", "");
  }
  return j;
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// ---- errors ----

Json ErrorBody(const Status& status) {
  Json e = Json::object();
  std::string code(ErrorKindName(status.kind()));
  for (const auto& [k, v] : status.fields()) {
    if (k == "code") code = v;
  }
  e["code"] = code;
  e["message"] = status.message();
  e["kind"] = std::string(ErrorKindName(status.kind()));
  e["retryable"] = IsRetryable(status.kind());
  for (const auto& [k, v] : status.fields()) {
    if (k == "code" || k == "message" || k == "kind" || k == "retryable") continue;
    e[k] = v;
  }
  return Json{{"error", std::move(e)}};
}

Status StatusFromErrorBody(int http_status, std::string_view body) {
  ErrorKind fallback = KindForHttpStatus(http_status);
  if (fallback == ErrorKind::kOk) fallback = ErrorKind::kInternal;
  Json j = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  const Json* e = nullptr;
  if (!j.is_discarded() && j.is_object()) {
    auto it = j.find("error");
    if (it != j.end() && it->is_object()) e = &*it;
  }
  if (e == nullptr) {
    std::string text(body.substr(0, 200));
    std::string msg = "HTTP " + std::to_string(http_status);
    if (!text.empty()) msg += ": " + text;
    return Status(fallback, msg).WithField("http_status", std::to_string(http_status));
  }
  ErrorKind kind = fallback;
  if (auto it = e->find("kind"); it != e->end() && it->is_string()) {
    if (auto k = KindByName(it->get<std::string>())) kind = *k;
  } else if (auto c = e->find("code"); c != e->end() && c->is_string()) {
    if (auto k = KindByName(c->get<std::string>())) kind = *k;
  }
  std::string message = "HTTP " + std::to_string(http_status);
  if (auto it = e->find("message"); it != e->end() && it->is_string()) {
    message = it->get<std::string>();
  }
  Status st(kind, std::move(message));
  if (auto it = e->find("code"); it != e->end() && it->is_string()) {
    if (it->get<std::string>() != ErrorKindName(kind)) {
      st = std::move(st).WithField("code", it->get<std::string>());
    }
  }
  for (auto it = e->begin(); it != e->end(); ++it) {
    const std::string& k = it.key();
    if (k == "code" || k == "message" || k == "kind" || k == "retryable") continue;
    st = std::move(st).WithField(k, it->is_string() ? it->get<std::string>() : Dump(*it));
  }
  return st;
}

// ---- ObjectReader ----

namespace {
thread_local int allow_unknown_fields = 0;
}  // namespace

AllowUnknownFields::AllowUnknownFields() { ++allow_unknown_fields; }
AllowUnknownFields::~AllowUnknownFields() { --allow_unknown_fields; }

Result<ObjectReader> ObjectReader::Make(const Json& j, std::string path) {
  if (!j.is_object()) return WrongType(path, j, "an object");
  ObjectReader r;
  r.j_ = &j;
  r.path_ = std::move(path);
  return r;
}

std::string ObjectReader::Pointer(const char* key) const {
  return path_ + "/" + EscapePointerToken(key);
}

Result<const Json*> ObjectReader::OptValue(const char* key) {
  taken_.emplace_back(key);
  auto it = j_->find(key);
  if (it == j_->end() || it->is_null()) return static_cast<const Json*>(nullptr);
  return &*it;
}

Result<const Json*> ObjectReader::Value(const char* key) {
  taken_.emplace_back(key);
  auto it = j_->find(key);
  if (it == j_->end()) {
    return FieldError(codes::kMissingField, Pointer(key), "required field is missing");
  }
  return &*it;
}

Result<std::string> ObjectReader::String(const char* key) {
  TARN_ASSIGN_OR_RETURN(const Json* v, Value(key));
  return StringAt(*v, Pointer(key));
}

Result<std::optional<std::string>> ObjectReader::OptString(const char* key) {
  TARN_ASSIGN_OR_RETURN(const Json* v, OptValue(key));
  if (v == nullptr) return std::optional<std::string>();
  TARN_ASSIGN_OR_RETURN(std::string s, StringAt(*v, Pointer(key)));
  return std::optional<std::string>(std::move(s));
}

Result<int64_t> ObjectReader::Int(const char* key) {
  TARN_ASSIGN_OR_RETURN(const Json* v, Value(key));
  return IntAt(*v, Pointer(key));
}

Result<std::optional<int64_t>> ObjectReader::OptInt(const char* key) {
  TARN_ASSIGN_OR_RETURN(const Json* v, OptValue(key));
  if (v == nullptr) return std::optional<int64_t>();
  TARN_ASSIGN_OR_RETURN(int64_t i, IntAt(*v, Pointer(key)));
  return std::optional<int64_t>(i);
}

Result<bool> ObjectReader::Bool(const char* key, bool fallback) {
  TARN_ASSIGN_OR_RETURN(const Json* v, OptValue(key));
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) return WrongType(Pointer(key), *v, "a boolean");
  return v->get<bool>();
}

Status ObjectReader::Finish() const {
  if (allow_unknown_fields > 0) return Status::OK();
  for (auto it = j_->begin(); it != j_->end(); ++it) {
    if (std::find(taken_.begin(), taken_.end(), it.key()) == taken_.end()) {
      std::string pointer = path_ + "/" + EscapePointerToken(it.key());
      return FieldError(codes::kUnknownField, pointer, "unknown field");
    }
  }
  return Status::OK();
}

// ---- value types ----

Json ToJson(const PropertyMap& v) {
  Json o = Json::object();
  for (const auto& [k, val] : v) o[k] = val;
  return o;
}

Result<PropertyMap> PropertiesFromJson(const Json& j) { return PropertiesAt(j, ""); }

Json ToJson(const WorkspaceInfo& v) {
  return Json{{"id", v.id},
              {"name", v.name},
              {"properties", ToJson(v.properties)},
              {"deletion_protection", OptJson(v.deletion_protection)},
              {"egress_protection", OptJson(v.egress_protection)},
              {"created_at_us", v.created_at_us},
              {"updated_at_us", v.updated_at_us},
              {"collection_count", v.collection_count}};
}

Result<WorkspaceInfo> WorkspaceFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  WorkspaceInfo v;
  TARN_ASSIGN_OR_RETURN(v.id, r.Int("id"));
  TARN_ASSIGN_OR_RETURN(v.name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(v.properties, OptProperties(r, "properties"));
  TARN_ASSIGN_OR_RETURN(v.deletion_protection, r.OptString("deletion_protection"));
  TARN_ASSIGN_OR_RETURN(v.egress_protection, r.OptString("egress_protection"));
  TARN_ASSIGN_OR_RETURN(v.created_at_us, r.Int("created_at_us"));
  TARN_ASSIGN_OR_RETURN(v.updated_at_us, r.Int("updated_at_us"));
  TARN_ASSIGN_OR_RETURN(auto count, r.OptInt("collection_count"));
  v.collection_count = count.value_or(0);
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const CollectionInfo& v) {
  return Json{{"id", v.id},
              {"workspace", v.workspace},
              {"name", v.name},
              {"description", v.description},
              {"properties", ToJson(v.properties)},
              {"created_at_us", v.created_at_us},
              {"updated_at_us", v.updated_at_us},
              {"dataset_count", v.dataset_count},
              {"dropped_dataset_count", v.dropped_dataset_count}};
}

Result<CollectionInfo> CollectionFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  CollectionInfo v;
  TARN_ASSIGN_OR_RETURN(v.id, r.Int("id"));
  TARN_ASSIGN_OR_RETURN(v.workspace, r.String("workspace"));
  TARN_ASSIGN_OR_RETURN(v.name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  v.description = description.value_or("");
  TARN_ASSIGN_OR_RETURN(v.properties, OptProperties(r, "properties"));
  TARN_ASSIGN_OR_RETURN(v.created_at_us, r.Int("created_at_us"));
  TARN_ASSIGN_OR_RETURN(v.updated_at_us, r.Int("updated_at_us"));
  TARN_ASSIGN_OR_RETURN(auto count, r.OptInt("dataset_count"));
  v.dataset_count = count.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto dropped, r.OptInt("dropped_dataset_count"));
  v.dropped_dataset_count = dropped.value_or(0);
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const Schema& v) { return ParseTrusted(SchemaToJson(v)); }

Result<Schema> SchemaFromJson(const Json& j) { return SchemaAt(j, ""); }

Json ToJson(const DatasetDefinition& v) {
  return Json{{"schema", ToJson(v.schema)},
              {"partition_spec", v.partition_spec},
              {"sort_order", v.sort_order},
              {"description", v.description},
              {"properties", ToJson(v.properties)}};
}

namespace {
// The fields of a definition, read from `r` (also used by the create-dataset request body).
Status ReadDefinition(ObjectReader& r, DatasetDefinition* v) {
  TARN_ASSIGN_OR_RETURN(const Json* schema, r.Value("schema"));
  TARN_ASSIGN_OR_RETURN(v->schema, SchemaAt(*schema, r.Pointer("schema")));
  TARN_ASSIGN_OR_RETURN(auto spec, r.OptString("partition_spec"));
  v->partition_spec = spec.value_or("");
  TARN_ASSIGN_OR_RETURN(auto order, r.OptString("sort_order"));
  v->sort_order = order.value_or("");
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  v->description = description.value_or("");
  TARN_ASSIGN_OR_RETURN(v->properties, OptProperties(r, "properties"));
  return Status::OK();
}
}  // namespace

Result<DatasetDefinition> DefinitionFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  DatasetDefinition v;
  TARN_RETURN_NOT_OK(ReadDefinition(r, &v));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

// ---- views ----

namespace {

Status ReadViewDefinition(ObjectReader& r, ViewDefinition* v) {
  TARN_ASSIGN_OR_RETURN(v->sql, r.String("sql"));
  TARN_ASSIGN_OR_RETURN(auto dialect, r.OptString("dialect"));
  v->dialect = dialect.value_or(kDuckDbDialect);
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  v->description = description.value_or("");
  TARN_ASSIGN_OR_RETURN(const Json* schema, r.OptValue("schema"));
  if (schema != nullptr) {
    TARN_ASSIGN_OR_RETURN(auto parsed, SchemaAt(*schema, r.Pointer("schema")));
    v->schema = std::move(parsed);
  }
  return Status::OK();
}

Json ViewDefinitionJson(const std::string& sql, const std::string& dialect,
                        const std::string& description, const std::optional<Schema>& schema) {
  return Json{{"sql", sql},
              {"dialect", dialect},
              {"description", description},
              {"schema", schema ? ToJson(*schema) : Json(nullptr)}};
}

Result<ViewInfo> ViewAt(const Json& j, const std::string& pointer);

Result<ViewVersion> ViewVersionAt(const Json& j, const std::string& pointer) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, pointer));
  ViewDefinition def;
  TARN_RETURN_NOT_OK(ReadViewDefinition(r, &def));
  ViewVersion v;
  v.sql = std::move(def.sql);
  v.dialect = std::move(def.dialect);
  v.description = std::move(def.description);
  v.schema = std::move(def.schema);
  TARN_ASSIGN_OR_RETURN(v.version, r.Int("version"));
  TARN_ASSIGN_OR_RETURN(v.author, r.String("author"));
  TARN_ASSIGN_OR_RETURN(v.created_at_us, r.Int("created_at_us"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

}  // namespace

Json ToJson(const ViewDefinition& v) {
  return ViewDefinitionJson(v.sql, v.dialect, v.description, v.schema);
}

Result<ViewDefinition> ViewDefinitionFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  ViewDefinition v;
  TARN_RETURN_NOT_OK(ReadViewDefinition(r, &v));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const ViewVersion& v) {
  Json j = ViewDefinitionJson(v.sql, v.dialect, v.description, v.schema);
  j["version"] = v.version;
  j["author"] = v.author;
  j["created_at_us"] = v.created_at_us;
  return j;
}

Result<ViewVersion> ViewVersionFromJson(const Json& j) { return ViewVersionAt(j, ""); }

Json ToJson(const ViewInfo& v) {
  return Json{{"workspace", v.name.workspace},
              {"collection", v.name.collection},
              {"name", v.name.dataset},
              {"current", ToJson(v.current)},
              {"created_by", v.created_by},
              {"created_at_us", v.created_at_us},
              {"updated_at_us", v.updated_at_us},
              {"last_run_at_us", OptJson(v.last_run_at_us)},
              {"last_row_count", OptJson(v.last_row_count)},
              {"last_run_us", OptJson(v.last_run_us)}};
}

Result<ViewInfo> ViewFromJson(const Json& j) { return ViewAt(j, ""); }

namespace {

Result<ViewInfo> ViewAt(const Json& j, const std::string& pointer) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, pointer));
  ViewInfo v;
  TARN_ASSIGN_OR_RETURN(v.name.workspace, r.String("workspace"));
  TARN_ASSIGN_OR_RETURN(v.name.collection, r.String("collection"));
  TARN_ASSIGN_OR_RETURN(v.name.dataset, r.String("name"));
  TARN_ASSIGN_OR_RETURN(const Json* current, r.Value("current"));
  TARN_ASSIGN_OR_RETURN(v.current, ViewVersionAt(*current, r.Pointer("current")));
  TARN_ASSIGN_OR_RETURN(v.created_by, r.String("created_by"));
  TARN_ASSIGN_OR_RETURN(v.created_at_us, r.Int("created_at_us"));
  TARN_ASSIGN_OR_RETURN(v.updated_at_us, r.Int("updated_at_us"));
  TARN_ASSIGN_OR_RETURN(v.last_run_at_us, r.OptInt("last_run_at_us"));
  TARN_ASSIGN_OR_RETURN(v.last_row_count, r.OptInt("last_row_count"));
  TARN_ASSIGN_OR_RETURN(v.last_run_us, r.OptInt("last_run_us"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

}  // namespace

Json ToJson(const DatasetInfo& v) {
  Json specs = Json::array();
  for (const auto& s : v.specs) specs.push_back(ParseTrusted(s.ToJson()));
  return Json{{"id", v.id},
              {"uuid", v.uuid},
              {"workspace", v.name.workspace},
              {"collection", v.name.collection},
              {"name", v.name.dataset},
              {"description", v.description},
              {"properties", ToJson(v.properties)},
              {"schema_id", v.schema_id},
              {"schema", ToJson(v.schema)},
              {"last_field_id", v.last_field_id},
              {"spec", ParseTrusted(v.spec.ToJson())},
              {"specs", std::move(specs)},
              {"sort_order", ParseTrusted(v.sort_order.ToJson())},
              {"current_snapshot_id", OptJson(v.current_snapshot_id)},
              {"next_row_id", v.next_row_id},
              {"total_files", v.total_files},
              {"total_records", v.total_records},
              {"total_bytes", v.total_bytes},
              {"expired_through", v.expired_through},
              {"created_at_us", v.created_at_us},
              {"updated_at_us", v.updated_at_us},
              {"dropped_at_us", OptJson(v.dropped_at_us)},
              {"sources", SourcesJson(v.sources)},
              {"sources_complete", v.sources_complete}};
}

Result<DatasetInfo> DatasetFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  DatasetInfo v;
  TARN_ASSIGN_OR_RETURN(v.id, r.Int("id"));
  TARN_ASSIGN_OR_RETURN(v.uuid, r.String("uuid"));
  TARN_ASSIGN_OR_RETURN(v.name.workspace, r.String("workspace"));
  TARN_ASSIGN_OR_RETURN(v.name.collection, r.String("collection"));
  TARN_ASSIGN_OR_RETURN(v.name.dataset, r.String("name"));
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  v.description = description.value_or("");
  TARN_ASSIGN_OR_RETURN(v.properties, OptProperties(r, "properties"));
  TARN_ASSIGN_OR_RETURN(int64_t schema_id, r.Int("schema_id"));
  TARN_ASSIGN_OR_RETURN(v.schema_id, Int32Of(schema_id, r.Pointer("schema_id")));
  TARN_ASSIGN_OR_RETURN(const Json* schema, r.Value("schema"));
  TARN_ASSIGN_OR_RETURN(v.schema, SchemaAt(*schema, r.Pointer("schema")));
  TARN_ASSIGN_OR_RETURN(int64_t last, r.Int("last_field_id"));
  TARN_ASSIGN_OR_RETURN(v.last_field_id, Int32Of(last, r.Pointer("last_field_id")));
  TARN_ASSIGN_OR_RETURN(const Json* spec, r.OptValue("spec"));
  if (spec != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.spec, SpecAt(*spec, r.Pointer("spec")));
  }
  TARN_ASSIGN_OR_RETURN(const Json* specs, r.OptValue("specs"));
  if (specs != nullptr) {
    TARN_RETURN_NOT_OK(
        ForEachIn(*specs, r.Pointer("specs"), [&](const Json& e, const std::string& p) -> Status {
          TARN_ASSIGN_OR_RETURN(PartitionSpec s, SpecAt(e, p));
          v.specs.push_back(std::move(s));
          return Status::OK();
        }));
  }
  TARN_ASSIGN_OR_RETURN(const Json* order, r.OptValue("sort_order"));
  if (order != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.sort_order, SortOrderAt(*order, r.Pointer("sort_order")));
  }
  TARN_ASSIGN_OR_RETURN(v.current_snapshot_id, r.OptInt("current_snapshot_id"));
  TARN_ASSIGN_OR_RETURN(auto next_row_id, r.OptInt("next_row_id"));
  v.next_row_id = next_row_id.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto files, r.OptInt("total_files"));
  v.total_files = files.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto records, r.OptInt("total_records"));
  v.total_records = records.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto bytes, r.OptInt("total_bytes"));
  v.total_bytes = bytes.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto expired, r.OptInt("expired_through"));
  v.expired_through = expired.value_or(0);
  TARN_ASSIGN_OR_RETURN(v.created_at_us, r.Int("created_at_us"));
  TARN_ASSIGN_OR_RETURN(v.updated_at_us, r.Int("updated_at_us"));
  TARN_ASSIGN_OR_RETURN(v.dropped_at_us, r.OptInt("dropped_at_us"));
  TARN_ASSIGN_OR_RETURN(const Json* sources, r.OptValue("sources"));
  if (sources != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.sources, SourcesAt(*sources, r.Pointer("sources")));
  }
  TARN_ASSIGN_OR_RETURN(v.sources_complete, r.Bool("sources_complete", true));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const Receipt& v) { return Json::parse(v.ToJson()); }

Result<Receipt> ReceiptFromJson(const Json& j) { return ReceiptAt(j, ""); }

// ---- materialized views and triggers ----

namespace {

Json ReadsJson(const std::vector<ReadReference>& reads) {
  Receipt r;
  r.read_sources = reads;
  return ToJson(r)["read_sources"];
}

Result<std::vector<ReadReference>> ReadsAt(const Json* j, const std::string& pointer) {
  if (j == nullptr) return std::vector<ReadReference>();
  return ReadSourcesAt(*j, pointer);
}

Result<TriggerInfo> TriggerAt(const Json& j, const std::string& pointer) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j, pointer));
  TriggerInfo v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(v.name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(v.kind, r.String("kind"));
  TARN_ASSIGN_OR_RETURN(v.target, r.String("target"));
  TARN_ASSIGN_OR_RETURN(v.minimum_interval_s, r.OptInt("minimum_interval_s"));
  TARN_ASSIGN_OR_RETURN(v.last_fired_at_us, r.OptInt("last_fired_at_us"));
  TARN_ASSIGN_OR_RETURN(auto status, r.OptString("last_fired_status"));
  v.last_fired_status = status.value_or("");
  TARN_ASSIGN_OR_RETURN(auto from, r.OptInt("window_from_snapshot"));
  v.window_from_snapshot = from.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto author, r.OptString("author"));
  v.author = author.value_or("");
  TARN_ASSIGN_OR_RETURN(auto created, r.OptInt("created_at_us"));
  v.created_at_us = created.value_or(0);
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

}  // namespace

Json ToJson(const TriggerInfo& v) {
  return Json{{"dataset", v.dataset},
              {"name", v.name},
              {"kind", v.kind},
              {"target", v.target},
              {"minimum_interval_s", OptJson(v.minimum_interval_s)},
              {"last_fired_at_us", OptJson(v.last_fired_at_us)},
              {"last_fired_status", v.last_fired_status},
              {"window_from_snapshot", v.window_from_snapshot},
              {"author", v.author},
              {"created_at_us", v.created_at_us}};
}

Result<TriggerInfo> TriggerFromJson(const Json& j) { return TriggerAt(j, ""); }

Json ToJson(const RefreshRecord& v) {
  return Json{{"status", v.status},
              {"mode", v.mode},
              {"job_id", v.job_id},
              {"error", v.error},
              {"sources", ReadsJson(v.sources)},
              {"snapshot_id", OptJson(v.snapshot_id)},
              {"window_to", OptJson(v.window_to)}};
}

Result<RefreshRecord> RefreshRecordFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  RefreshRecord v;
  TARN_ASSIGN_OR_RETURN(v.status, r.String("status"));
  TARN_ASSIGN_OR_RETURN(auto mode, r.OptString("mode"));
  v.mode = mode.value_or("");
  TARN_ASSIGN_OR_RETURN(auto job, r.OptString("job_id"));
  v.job_id = job.value_or("");
  TARN_ASSIGN_OR_RETURN(auto error, r.OptString("error"));
  v.error = error.value_or("");
  TARN_ASSIGN_OR_RETURN(const Json* sources, r.OptValue("sources"));
  TARN_ASSIGN_OR_RETURN(v.sources, ReadsAt(sources, r.Pointer("sources")));
  TARN_ASSIGN_OR_RETURN(v.snapshot_id, r.OptInt("snapshot_id"));
  TARN_ASSIGN_OR_RETURN(v.window_to, r.OptInt("window_to"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const MaterializedViewInfo& v) {
  Json triggers = Json::array();
  for (const auto& t : v.triggers) triggers.push_back(ToJson(t));
  return Json{{"view", ToJson(v.view)},
              {"dataset_uuid", v.dataset_uuid},
              {"sources", v.sources},
              {"refresh_kind", v.refresh_kind},
              {"last_refresh_status", v.last_refresh_status},
              {"last_refresh_mode", v.last_refresh_mode},
              {"last_refresh_at_us", OptJson(v.last_refresh_at_us)},
              {"last_refresh_job", v.last_refresh_job},
              {"last_refresh_error", v.last_refresh_error},
              {"last_refresh_sources", ReadsJson(v.last_refresh_sources)},
              {"last_refresh_snapshot_id", OptJson(v.last_refresh_snapshot_id)},
              {"triggers", std::move(triggers)}};
}

Result<MaterializedViewInfo> MaterializedViewFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  MaterializedViewInfo v;
  TARN_ASSIGN_OR_RETURN(const Json* view, r.Value("view"));
  TARN_ASSIGN_OR_RETURN(v.view, ViewAt(*view, r.Pointer("view")));
  TARN_ASSIGN_OR_RETURN(v.dataset_uuid, r.String("dataset_uuid"));
  TARN_ASSIGN_OR_RETURN(const Json* sources, r.OptValue("sources"));
  if (sources != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.sources, StringsAt(*sources, r.Pointer("sources")));
  }
  TARN_ASSIGN_OR_RETURN(auto kind, r.OptString("refresh_kind"));
  v.refresh_kind = kind.value_or(kRefreshFull);
  TARN_ASSIGN_OR_RETURN(auto status, r.OptString("last_refresh_status"));
  v.last_refresh_status = status.value_or("");
  TARN_ASSIGN_OR_RETURN(auto last_mode, r.OptString("last_refresh_mode"));
  v.last_refresh_mode = last_mode.value_or("");
  TARN_ASSIGN_OR_RETURN(v.last_refresh_at_us, r.OptInt("last_refresh_at_us"));
  TARN_ASSIGN_OR_RETURN(auto job, r.OptString("last_refresh_job"));
  v.last_refresh_job = job.value_or("");
  TARN_ASSIGN_OR_RETURN(auto error, r.OptString("last_refresh_error"));
  v.last_refresh_error = error.value_or("");
  TARN_ASSIGN_OR_RETURN(const Json* reads, r.OptValue("last_refresh_sources"));
  TARN_ASSIGN_OR_RETURN(v.last_refresh_sources, ReadsAt(reads, r.Pointer("last_refresh_sources")));
  TARN_ASSIGN_OR_RETURN(v.last_refresh_snapshot_id, r.OptInt("last_refresh_snapshot_id"));
  TARN_ASSIGN_OR_RETURN(const Json* triggers, r.OptValue("triggers"));
  if (triggers != nullptr) {
    TARN_RETURN_NOT_OK(ForEachIn(*triggers, r.Pointer("triggers"),
                                 [&](const Json& e, const std::string& p) -> Status {
                                   TARN_ASSIGN_OR_RETURN(auto t, TriggerAt(e, p));
                                   v.triggers.push_back(std::move(t));
                                   return Status::OK();
                                 }));
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const JobInfo& v) {
  return Json{{"id", v.id},
              {"kind", v.kind},
              {"workspace", v.workspace},
              {"trigger", v.trigger},
              {"target", v.target},
              {"source", v.source},
              {"source_uuid", v.source_uuid},
              {"from_snapshot", v.from_snapshot},
              {"to_snapshot", v.to_snapshot},
              {"fired_by", v.fired_by},
              {"state", v.state},
              {"attempts", v.attempts},
              {"error", v.error},
              {"result_snapshot", OptJson(v.result_snapshot)},
              {"created_at_us", v.created_at_us},
              {"updated_at_us", v.updated_at_us},
              {"next_attempt_at_us", v.next_attempt_at_us},
              {"lease_until_us", OptJson(v.lease_until_us)},
              {"purge_at_us", v.purge_at_us},
              {"runs_as", v.runs_as}};
}

Result<JobInfo> JobFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  JobInfo v;
  for (auto [key, field] : {std::pair<const char*, std::string*>{"id", &v.id},
                            {"kind", &v.kind},
                            {"workspace", &v.workspace},
                            {"trigger", &v.trigger},
                            {"target", &v.target},
                            {"source", &v.source},
                            {"source_uuid", &v.source_uuid},
                            {"fired_by", &v.fired_by},
                            {"state", &v.state}}) {
    TARN_ASSIGN_OR_RETURN(*field, r.String(key));
  }
  TARN_ASSIGN_OR_RETURN(v.from_snapshot, r.Int("from_snapshot"));
  TARN_ASSIGN_OR_RETURN(v.to_snapshot, r.Int("to_snapshot"));
  TARN_ASSIGN_OR_RETURN(v.attempts, r.Int("attempts"));
  TARN_ASSIGN_OR_RETURN(auto error, r.OptString("error"));
  v.error = error.value_or("");
  TARN_ASSIGN_OR_RETURN(v.result_snapshot, r.OptInt("result_snapshot"));
  TARN_ASSIGN_OR_RETURN(v.created_at_us, r.Int("created_at_us"));
  TARN_ASSIGN_OR_RETURN(v.updated_at_us, r.Int("updated_at_us"));
  TARN_ASSIGN_OR_RETURN(v.next_attempt_at_us, r.Int("next_attempt_at_us"));
  TARN_ASSIGN_OR_RETURN(v.lease_until_us, r.OptInt("lease_until_us"));
  TARN_ASSIGN_OR_RETURN(v.purge_at_us, r.Int("purge_at_us"));
  TARN_ASSIGN_OR_RETURN(auto runs_as, r.OptString("runs_as"));
  v.runs_as = runs_as.value_or("");
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const TaskDefinition& v) {
  return Json{{"sql", v.sql},
              {"dialect", v.dialect},
              {"description", v.description},
              {"target", v.target},
              {"mode", v.mode},
              {"trigger", v.trigger},
              {"on", v.on},
              {"schedule", v.schedule},
              {"time_zone", v.time_zone},
              {"runs_as", v.runs_as},
              {"window_source", v.window_source}};
}

namespace {

// The fields of a TaskDefinition from `r` (an object holding them, maybe among others).
Status TaskDefinitionFields(ObjectReader& r, TaskDefinition* v) {
  TARN_ASSIGN_OR_RETURN(v->sql, r.String("sql"));
  for (auto [key, field] : {std::pair<const char*, std::string*>{"dialect", &v->dialect},
                            {"description", &v->description},
                            {"target", &v->target},
                            {"mode", &v->mode},
                            {"trigger", &v->trigger},
                            {"on", &v->on},
                            {"schedule", &v->schedule},
                            {"time_zone", &v->time_zone},
                            {"runs_as", &v->runs_as},
                            {"window_source", &v->window_source}}) {
    TARN_ASSIGN_OR_RETURN(auto text, r.OptString(key));
    if (text) *field = std::move(*text);
  }
  return Status::OK();
}

}  // namespace

Result<TaskDefinition> TaskDefinitionFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  TaskDefinition v;
  TARN_RETURN_NOT_OK(TaskDefinitionFields(r, &v));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const TaskInfo& v) {
  return Json{{"name", v.name.ToString()},
              {"version", v.version},
              {"definition", ToJson(v.definition)},
              {"reads", v.reads},
              {"created_by", v.created_by},
              {"created_at_us", v.created_at_us},
              {"updated_at_us", v.updated_at_us},
              {"next_due_at_us", OptJson(v.next_due_at_us)},
              {"window_end", v.window_end},
              {"last_run_status", v.last_run_status},
              {"last_run_at_us", OptJson(v.last_run_at_us)},
              {"last_run_job", v.last_run_job},
              {"last_run_error", v.last_run_error},
              {"last_run_snapshot_id", OptJson(v.last_run_snapshot_id)}};
}

Result<TaskInfo> TaskFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  TaskInfo v;
  TARN_ASSIGN_OR_RETURN(auto name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(v.name, ParseDatasetName(name));
  TARN_ASSIGN_OR_RETURN(v.version, r.Int("version"));
  TARN_ASSIGN_OR_RETURN(const Json* def, r.Value("definition"));
  TARN_ASSIGN_OR_RETURN(ObjectReader d, ObjectReader::Make(*def, r.Pointer("definition")));
  TARN_RETURN_NOT_OK(TaskDefinitionFields(d, &v.definition));
  TARN_RETURN_NOT_OK(d.Finish());
  TARN_ASSIGN_OR_RETURN(const Json* reads, r.OptValue("reads"));
  if (reads != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.reads, StringsAt(*reads, r.Pointer("reads")));
  }
  TARN_ASSIGN_OR_RETURN(v.created_by, r.String("created_by"));
  TARN_ASSIGN_OR_RETURN(v.created_at_us, r.Int("created_at_us"));
  TARN_ASSIGN_OR_RETURN(v.updated_at_us, r.Int("updated_at_us"));
  TARN_ASSIGN_OR_RETURN(v.next_due_at_us, r.OptInt("next_due_at_us"));
  TARN_ASSIGN_OR_RETURN(auto window_end, r.OptInt("window_end"));
  v.window_end = window_end.value_or(0);
  for (auto [key, field] :
       {std::pair<const char*, std::string*>{"last_run_status", &v.last_run_status},
        {"last_run_job", &v.last_run_job},
        {"last_run_error", &v.last_run_error}}) {
    TARN_ASSIGN_OR_RETURN(auto text, r.OptString(key));
    *field = text.value_or("");
  }
  TARN_ASSIGN_OR_RETURN(v.last_run_at_us, r.OptInt("last_run_at_us"));
  TARN_ASSIGN_OR_RETURN(v.last_run_snapshot_id, r.OptInt("last_run_snapshot_id"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const CommitMeta& v) {
  return Json{{"author", v.author},
              {"message", v.message},
              {"idempotency_key", OptJson(v.idempotency_key)},
              {"defer_stats", v.defer_stats},
              {"receipt", v.receipt ? ToJson(*v.receipt) : Json(nullptr)}};
}

Result<CommitMeta> CommitMetaFromJson(const Json& j) { return CommitMetaAt(j, ""); }

Json ToJson(const DataFile& v) {
  Json partition = Json::array();
  for (const auto& p : v.partition) partition.push_back(OptJson(p));
  Json columns = Json::array();
  for (const auto& c : v.columns) columns.push_back(StatsJson(c));
  return Json{{"path", v.path},
              {"format", v.format},
              {"record_count", v.record_count},
              {"file_size_bytes", v.file_size_bytes},
              {"spec_id", v.spec_id},
              {"partition", std::move(partition)},
              {"columns", std::move(columns)},
              {"stats_state", v.stats_pending ? "pending" : "complete"},
              {"file_id", v.file_id},
              {"first_row_id", v.first_row_id},
              {"added_snapshot_id", v.added_snapshot_id},
              {"removed_snapshot_id", OptJson(v.removed_snapshot_id)}};
}

Result<DataFile> DataFileFromJson(const Json& j) { return DataFileAt(j, ""); }

Json ToJson(const DatasetCommit& v) {
  Json deletes = Json::array();
  for (const auto& d : v.deletes) {
    Json positions = Json::array();
    for (uint64_t p : d.positions) positions.push_back(p);
    deletes.push_back({{"path", d.path}, {"positions", std::move(positions)}});
  }
  Json o = {{"dataset", v.dataset},
            {"expected_uuid", OptJson(v.expected_uuid)},
            {"read_snapshot_id", OptJson(v.read_snapshot_id)},
            {"operation", std::string(CommitOperationName(v.operation))},
            {"added", DataFilesJson(v.added)},
            {"removed_paths", StringsJson(v.removed_paths)},
            {"deletes", std::move(deletes)},
            {"rollback_to", OptJson(v.rollback_to)},
            {"meta", ToJson(v.meta)}};
  o["written_spec_id"] = v.written_spec_id ? Json(*v.written_spec_id) : Json(nullptr);
  return o;
}

Result<DatasetCommit> DatasetCommitFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  DatasetCommit v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(v.expected_uuid, r.OptString("expected_uuid"));
  TARN_ASSIGN_OR_RETURN(v.read_snapshot_id, r.OptInt("read_snapshot_id"));
  TARN_ASSIGN_OR_RETURN(std::string op, r.String("operation"));
  auto parsed = ParseCommitOperation(op);
  if (!parsed.ok()) return AtField(parsed.status(), r.Pointer("operation"));
  v.operation = *parsed;
  TARN_ASSIGN_OR_RETURN(const Json* added, r.OptValue("added"));
  if (added != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.added, DataFilesAt(*added, r.Pointer("added")));
  }
  TARN_ASSIGN_OR_RETURN(const Json* removed, r.OptValue("removed_paths"));
  if (removed != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.removed_paths, StringsAt(*removed, r.Pointer("removed_paths")));
  }
  TARN_ASSIGN_OR_RETURN(const Json* deletes, r.OptValue("deletes"));
  if (deletes != nullptr) {
    TARN_RETURN_NOT_OK(ForEachIn(
        *deletes, r.Pointer("deletes"), [&](const Json& e, const std::string& p) -> Status {
          TARN_ASSIGN_OR_RETURN(ObjectReader dr, ObjectReader::Make(e, p));
          FileDeletes d;
          TARN_ASSIGN_OR_RETURN(d.path, dr.String("path"));
          TARN_ASSIGN_OR_RETURN(const Json* positions, dr.Value("positions"));
          TARN_RETURN_NOT_OK(
              ForEachIn(*positions, dr.Pointer("positions"),
                        [&](const Json& pos, const std::string& pp) -> Status {
                          if (!pos.is_number_unsigned() &&
                              !(pos.is_number_integer() && pos.get<int64_t>() >= 0)) {
                            return WrongType(pp, pos, "a non-negative integer");
                          }
                          d.positions.push_back(pos.get<uint64_t>());
                          return Status::OK();
                        }));
          TARN_RETURN_NOT_OK(dr.Finish());
          v.deletes.push_back(std::move(d));
          return Status::OK();
        }));
  }
  TARN_ASSIGN_OR_RETURN(auto spec_id, r.OptInt("written_spec_id"));
  if (spec_id) {
    TARN_ASSIGN_OR_RETURN(v.written_spec_id, Int32Of(*spec_id, r.Pointer("written_spec_id")));
  }
  TARN_ASSIGN_OR_RETURN(v.rollback_to, r.OptInt("rollback_to"));
  TARN_ASSIGN_OR_RETURN(const Json* meta, r.OptValue("meta"));
  if (meta != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.meta, CommitMetaAt(*meta, r.Pointer("meta")));
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const SnapshotInfo& v) {
  return Json{{"dataset_uuid", v.dataset_uuid},
              {"snapshot_id", v.snapshot_id},
              {"parent_snapshot_id", OptJson(v.parent_snapshot_id)},
              {"committed_at_us", v.committed_at_us},
              {"author", v.author},
              {"message", v.message},
              {"operation", v.operation},
              {"user_created", v.user_created},
              {"schema_id", v.schema_id},
              {"spec_id", v.spec_id},
              {"added_files", v.added_files},
              {"deleted_files", v.deleted_files},
              {"total_files", v.total_files},
              {"added_records", v.added_records},
              {"deleted_records", v.deleted_records},
              {"total_records", v.total_records},
              {"added_bytes", v.added_bytes},
              {"deleted_bytes", v.deleted_bytes},
              {"total_bytes", v.total_bytes},
              {"idempotency_key", OptJson(v.idempotency_key)},
              {"commit_id", v.commit_id},
              // null: not recorded (no receipt), unlike a receipt that read nothing
              {"receipt", v.receipt ? ToJson(*v.receipt) : Json(nullptr)},
              {"next_row_id", OptJson(v.next_row_id)},
              {"idempotent_replay", v.idempotent_replay}};
}

Result<SnapshotInfo> SnapshotFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  SnapshotInfo v;
  TARN_ASSIGN_OR_RETURN(v.dataset_uuid, r.String("dataset_uuid"));
  TARN_ASSIGN_OR_RETURN(v.snapshot_id, r.Int("snapshot_id"));
  TARN_ASSIGN_OR_RETURN(v.parent_snapshot_id, r.OptInt("parent_snapshot_id"));
  TARN_ASSIGN_OR_RETURN(v.committed_at_us, r.Int("committed_at_us"));
  TARN_ASSIGN_OR_RETURN(auto author, r.OptString("author"));
  v.author = author.value_or("");
  TARN_ASSIGN_OR_RETURN(auto message, r.OptString("message"));
  v.message = message.value_or("");
  TARN_ASSIGN_OR_RETURN(v.operation, r.String("operation"));
  TARN_ASSIGN_OR_RETURN(v.user_created, r.Bool("user_created", true));
  TARN_ASSIGN_OR_RETURN(auto schema_id, r.OptInt("schema_id"));
  TARN_ASSIGN_OR_RETURN(v.schema_id, Int32Of(schema_id.value_or(0), r.Pointer("schema_id")));
  TARN_ASSIGN_OR_RETURN(auto spec_id, r.OptInt("spec_id"));
  TARN_ASSIGN_OR_RETURN(v.spec_id, Int32Of(spec_id.value_or(0), r.Pointer("spec_id")));
  struct {
    const char* key;
    int64_t* out;
  } counts[] = {{"added_files", &v.added_files},         {"deleted_files", &v.deleted_files},
                {"total_files", &v.total_files},         {"added_records", &v.added_records},
                {"deleted_records", &v.deleted_records}, {"total_records", &v.total_records},
                {"added_bytes", &v.added_bytes},         {"deleted_bytes", &v.deleted_bytes},
                {"total_bytes", &v.total_bytes}};
  for (const auto& c : counts) {
    TARN_ASSIGN_OR_RETURN(auto n, r.OptInt(c.key));
    *c.out = n.value_or(0);
  }
  TARN_ASSIGN_OR_RETURN(v.idempotency_key, r.OptString("idempotency_key"));
  TARN_ASSIGN_OR_RETURN(auto commit_id, r.OptString("commit_id"));
  v.commit_id = commit_id.value_or("");
  TARN_ASSIGN_OR_RETURN(const Json* receipt, r.OptValue("receipt"));
  if (receipt != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.receipt, ReceiptAt(*receipt, r.Pointer("receipt")));
  }
  TARN_ASSIGN_OR_RETURN(v.next_row_id, r.OptInt("next_row_id"));
  TARN_ASSIGN_OR_RETURN(v.idempotent_replay, r.Bool("idempotent_replay", false));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const TagInfo& v) {
  return Json{{"name", v.name}, {"snapshot_id", v.snapshot_id}, {"created_at_us", v.created_at_us}};
}

Result<TagInfo> TagFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  TagInfo v;
  TARN_ASSIGN_OR_RETURN(v.name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(v.snapshot_id, r.Int("snapshot_id"));
  TARN_ASSIGN_OR_RETURN(auto created, r.OptInt("created_at_us"));
  v.created_at_us = created.value_or(0);
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const LocationGrant& v) {
  return Json{
      {"prefix", v.prefix}, {"granted_by", v.granted_by}, {"granted_at_us", v.granted_at_us}};
}

Result<LocationGrant> LocationFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  LocationGrant v;
  TARN_ASSIGN_OR_RETURN(v.prefix, r.String("prefix"));
  TARN_ASSIGN_OR_RETURN(auto by, r.OptString("granted_by"));
  v.granted_by = by.value_or("");
  TARN_ASSIGN_OR_RETURN(auto at, r.OptInt("granted_at_us"));
  v.granted_at_us = at.value_or(0);
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const PlannedFile& v) {
  return Json{
      {"file", ToJson(v.file)},
      {"deleted_rows", v.deleted_rows},
      {"deletion_vector", v.deletion_vector ? Json(Base64(*v.deletion_vector)) : Json(nullptr)}};
}

Result<PlannedFile> PlannedFileFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  PlannedFile v;
  TARN_ASSIGN_OR_RETURN(const Json* file, r.Value("file"));
  TARN_ASSIGN_OR_RETURN(v.file, DataFileAt(*file, r.Pointer("file")));
  TARN_ASSIGN_OR_RETURN(auto deleted, r.OptInt("deleted_rows"));
  v.deleted_rows = deleted.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto dv, r.OptString("deletion_vector"));
  if (dv) {
    TARN_ASSIGN_OR_RETURN(v.deletion_vector, Base64At(*dv, r.Pointer("deletion_vector")));
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const ChangeSet& v) {
  Json vectors = Json::array();
  for (const auto& c : v.deletion_vectors) {
    vectors.push_back({{"path", c.path},
                       {"snapshot_id", c.snapshot_id},
                       {"cardinality", c.cardinality},
                       {"removed", c.removed}});
  }
  Json out{{"from_snapshot_id", v.from_snapshot_id},
           {"to_snapshot_id", v.to_snapshot_id},
           {"added_files", DataFilesJson(v.added_files)},
           {"removed_files", DataFilesJson(v.removed_files)},
           {"deletion_vectors", std::move(vectors)}};
  if (v.next_from) out["next_from"] = *v.next_from;
  return out;
}

Result<ChangeSet> ChangeSetFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  ChangeSet v;
  TARN_ASSIGN_OR_RETURN(v.from_snapshot_id, r.Int("from_snapshot_id"));
  TARN_ASSIGN_OR_RETURN(v.to_snapshot_id, r.Int("to_snapshot_id"));
  TARN_ASSIGN_OR_RETURN(v.next_from, r.OptInt("next_from"));
  TARN_ASSIGN_OR_RETURN(const Json* added, r.OptValue("added_files"));
  if (added != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.added_files, DataFilesAt(*added, r.Pointer("added_files")));
  }
  TARN_ASSIGN_OR_RETURN(const Json* removed, r.OptValue("removed_files"));
  if (removed != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.removed_files, DataFilesAt(*removed, r.Pointer("removed_files")));
  }
  TARN_ASSIGN_OR_RETURN(const Json* vectors, r.OptValue("deletion_vectors"));
  if (vectors != nullptr) {
    TARN_RETURN_NOT_OK(ForEachIn(*vectors, r.Pointer("deletion_vectors"),
                                 [&](const Json& e, const std::string& p) -> Status {
                                   TARN_ASSIGN_OR_RETURN(ObjectReader vr, ObjectReader::Make(e, p));
                                   ChangeSet::VectorChange c;
                                   TARN_ASSIGN_OR_RETURN(c.path, vr.String("path"));
                                   TARN_ASSIGN_OR_RETURN(c.snapshot_id, vr.Int("snapshot_id"));
                                   TARN_ASSIGN_OR_RETURN(c.cardinality, vr.Int("cardinality"));
                                   TARN_ASSIGN_OR_RETURN(c.removed, vr.Bool("removed", false));
                                   TARN_RETURN_NOT_OK(vr.Finish());
                                   v.deletion_vectors.push_back(std::move(c));
                                   return Status::OK();
                                 }));
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const SchemaChange& v) {
  const char* kind = "add_column";
  for (const auto& k : kChangeKinds) {
    if (k.kind == v.kind) kind = k.name;
  }
  Json o = {{"kind", kind}, {"column", v.column}};
  if (!v.new_name.empty()) o["new_name"] = v.new_name;
  if (v.type) o["type"] = v.type->ToString();
  o["nullable"] = v.nullable;
  if (v.after) o["after"] = *v.after;
  o["first"] = v.first;
  return o;
}

Result<SchemaChange> SchemaChangeFromJson(const Json& j) { return SchemaChangeAt(j, ""); }

Json ToJson(const ExpiryOptions& v) {
  return Json{{"older_than_us", v.older_than_us},
              {"respect_consumer_offsets", v.respect_consumer_offsets},
              {"dry_run", v.dry_run}};
}

Result<ExpiryOptions> ExpiryOptionsFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  ExpiryOptions v;
  TARN_ASSIGN_OR_RETURN(v.older_than_us, r.Int("older_than_us"));
  TARN_ASSIGN_OR_RETURN(v.respect_consumer_offsets, r.Bool("respect_consumer_offsets", true));
  TARN_ASSIGN_OR_RETURN(v.dry_run, r.Bool("dry_run", false));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const ExpiryResult& v) {
  return Json{{"dataset", v.dataset},
              {"expired_snapshots", v.expired_snapshots},
              {"expired_through", v.expired_through},
              {"files_released", v.files_released}};
}

Result<ExpiryResult> ExpiryResultFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  ExpiryResult v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(v.expired_snapshots, r.Int("expired_snapshots"));
  TARN_ASSIGN_OR_RETURN(v.expired_through, r.Int("expired_through"));
  TARN_ASSIGN_OR_RETURN(v.files_released, r.Int("files_released"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const IcebergTableInfo& v) {
  Json omitted = Json::array();
  for (const auto& o : v.omitted) omitted.push_back({{"path", o.path}, {"reason", o.reason}});
  Json out{{"dataset", v.dataset},
           {"dataset_uuid", v.dataset_uuid},
           {"metadata_location", v.metadata_location},
           {"metadata", Json::parse(v.metadata)},
           {"produced", v.produced},
           {"snapshots", v.snapshots},
           {"omitted", std::move(omitted)}};
  out["snapshot_id"] = v.snapshot_id ? Json(*v.snapshot_id) : Json(nullptr);
  return out;
}

Result<IcebergTableInfo> IcebergTableInfoFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  IcebergTableInfo v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(v.dataset_uuid, r.String("dataset_uuid"));
  TARN_ASSIGN_OR_RETURN(v.snapshot_id, r.OptInt("snapshot_id"));
  TARN_ASSIGN_OR_RETURN(v.metadata_location, r.String("metadata_location"));
  TARN_ASSIGN_OR_RETURN(const Json* metadata, r.Value("metadata"));
  if (!metadata->is_object()) return WrongType(r.Pointer("metadata"), *metadata, "an object");
  v.metadata = metadata->dump();
  TARN_ASSIGN_OR_RETURN(v.produced, r.Bool("produced", false));
  TARN_ASSIGN_OR_RETURN(const Json* snapshots, r.Value("snapshots"));
  TARN_RETURN_NOT_OK(ForEachIn(*snapshots, r.Pointer("snapshots"),
                               [&](const Json& e, const std::string& p) -> Status {
                                 if (!e.is_number_integer()) return WrongType(p, e, "an integer");
                                 v.snapshots.push_back(e.get<int64_t>());
                                 return Status::OK();
                               }));
  TARN_ASSIGN_OR_RETURN(const Json* omitted, r.Value("omitted"));
  TARN_RETURN_NOT_OK(
      ForEachIn(*omitted, r.Pointer("omitted"), [&](const Json& e, const std::string& p) -> Status {
        TARN_ASSIGN_OR_RETURN(ObjectReader o, ObjectReader::Make(e, p));
        IcebergOmittedColumn c;
        TARN_ASSIGN_OR_RETURN(c.path, o.String("path"));
        TARN_ASSIGN_OR_RETURN(c.reason, o.String("reason"));
        TARN_RETURN_NOT_OK(o.Finish());
        v.omitted.push_back(std::move(c));
        return Status::OK();
      }));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const IcebergRegisterResult& v) {
  Json snapshots = Json::array();
  for (const SnapshotInfo& s : v.snapshots) snapshots.push_back(ToJson(s));
  return Json{{"dataset", ToJson(v.dataset)},
              {"source_snapshot_id", v.source_snapshot_id},
              {"files", v.files},
              {"records", v.records},
              {"deleted_rows", v.deleted_rows},
              {"snapshots", std::move(snapshots)}};
}

Result<IcebergRegisterResult> IcebergRegisterResultFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  IcebergRegisterResult v;
  TARN_ASSIGN_OR_RETURN(const Json* dataset, r.Value("dataset"));
  auto ds = DatasetFromJson(*dataset);
  if (!ds.ok()) return AtField(ds.status(), r.Pointer("dataset"));
  v.dataset = std::move(*ds);
  TARN_ASSIGN_OR_RETURN(v.source_snapshot_id, r.Int("source_snapshot_id"));
  TARN_ASSIGN_OR_RETURN(v.files, r.Int("files"));
  TARN_ASSIGN_OR_RETURN(v.records, r.Int("records"));
  TARN_ASSIGN_OR_RETURN(v.deleted_rows, r.Int("deleted_rows"));
  TARN_ASSIGN_OR_RETURN(const Json* snapshots, r.Value("snapshots"));
  TARN_RETURN_NOT_OK(ForEachIn(*snapshots, r.Pointer("snapshots"),
                               [&](const Json& e, const std::string& p) -> Status {
                                 auto s = SnapshotFromJson(e);
                                 if (!s.ok()) return AtField(s.status(), p);
                                 v.snapshots.push_back(std::move(*s));
                                 return Status::OK();
                               }));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const RetentionResult& v) {
  Json datasets = Json::array();
  for (const auto& d : v.datasets) {
    Json e{{"dataset", d.dataset},
           {"retention", d.retention},
           {"source", d.source},
           {"consumer_floor", d.consumer_floor},
           {"expiry", ToJson(d.expiry)}};
    if (!d.error_code.empty()) {
      e["error_code"] = d.error_code;
      e["error"] = d.error;
    }
    datasets.push_back(std::move(e));
  }
  return Json{{"dry_run", v.dry_run},
              {"datasets", std::move(datasets)},
              {"without_policy", v.without_policy}};
}

Result<RetentionResult> RetentionResultFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  RetentionResult v;
  TARN_ASSIGN_OR_RETURN(v.dry_run, r.Bool("dry_run", false));
  TARN_ASSIGN_OR_RETURN(v.without_policy, r.Int("without_policy"));
  TARN_ASSIGN_OR_RETURN(const Json* datasets, r.Value("datasets"));
  TARN_RETURN_NOT_OK(ForEachIn(
      *datasets, r.Pointer("datasets"), [&](const Json& e, const std::string& p) -> Status {
        TARN_ASSIGN_OR_RETURN(ObjectReader er, ObjectReader::Make(e, p));
        RetentionApplied d;
        TARN_ASSIGN_OR_RETURN(d.dataset, er.String("dataset"));
        TARN_ASSIGN_OR_RETURN(d.retention, er.String("retention"));
        TARN_ASSIGN_OR_RETURN(d.source, er.String("source"));
        TARN_ASSIGN_OR_RETURN(d.consumer_floor, er.Bool("consumer_floor", true));
        TARN_ASSIGN_OR_RETURN(const Json* expiry, er.Value("expiry"));
        auto parsed = ExpiryResultFromJson(*expiry);
        if (!parsed.ok()) return AtField(parsed.status(), er.Pointer("expiry"));
        d.expiry = *parsed;
        TARN_ASSIGN_OR_RETURN(auto code, er.OptString("error_code"));
        d.error_code = code.value_or("");
        TARN_ASSIGN_OR_RETURN(auto error, er.OptString("error"));
        d.error = error.value_or("");
        TARN_RETURN_NOT_OK(er.Finish());
        v.datasets.push_back(std::move(d));
        return Status::OK();
      }));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const StatsHydrationResult& v) {
  Json failures = Json::array();
  for (const auto& f : v.failures) {
    failures.push_back({{"path", f.path}, {"code", f.code}, {"message", f.message}});
  }
  return Json{{"dataset", v.dataset},
              {"files_hydrated", v.files_hydrated},
              {"files_pending", v.files_pending},
              {"failures", std::move(failures)}};
}

Result<StatsHydrationResult> StatsHydrationResultFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  StatsHydrationResult v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(v.files_hydrated, r.Int("files_hydrated"));
  TARN_ASSIGN_OR_RETURN(v.files_pending, r.Int("files_pending"));
  TARN_ASSIGN_OR_RETURN(const Json* failures, r.Value("failures"));
  TARN_RETURN_NOT_OK(ForEachIn(*failures, r.Pointer("failures"),
                               [&](const Json& e, const std::string& p) -> Status {
                                 TARN_ASSIGN_OR_RETURN(ObjectReader er, ObjectReader::Make(e, p));
                                 StatsHydrationFailure f;
                                 TARN_ASSIGN_OR_RETURN(f.path, er.String("path"));
                                 TARN_ASSIGN_OR_RETURN(f.code, er.String("code"));
                                 TARN_ASSIGN_OR_RETURN(f.message, er.String("message"));
                                 TARN_RETURN_NOT_OK(er.Finish());
                                 v.failures.push_back(std::move(f));
                                 return Status::OK();
                               }));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const InlineFlushResult& v) {
  return Json{{"dataset", v.dataset},
              {"files_written", v.files_written},
              {"bytes_written", v.bytes_written}};
}

Result<InlineFlushResult> InlineFlushResultFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  InlineFlushResult v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(v.files_written, r.Int("files_written"));
  TARN_ASSIGN_OR_RETURN(v.bytes_written, r.Int("bytes_written"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const CompactionOptions& v) {
  return Json{{"rule", std::string(CompactionRuleName(v.rule))},
              {"dry_run", v.dry_run},
              {"where", v.where}};
}

Result<CompactionOptions> CompactionOptionsFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  CompactionOptions v;
  TARN_ASSIGN_OR_RETURN(auto rule, r.OptString("rule"));
  if (rule) {
    auto parsed = ParseCompactionRule(*rule);
    if (!parsed.ok()) return AtField(parsed.status(), r.Pointer("rule"));
    v.rule = *parsed;
  }
  TARN_ASSIGN_OR_RETURN(v.dry_run, r.Bool("dry_run", false));
  TARN_ASSIGN_OR_RETURN(auto where, r.OptString("where"));
  v.where = where.value_or("");
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const CompactionResult& v) {
  Json outputs = Json::array();
  for (const auto& o : v.outputs) {
    Json e{{"spec_id", o.spec_id},
           {"partition", o.partition},
           {"inputs", StringsJson(o.inputs)},
           {"input_bytes", o.input_bytes},
           {"input_rows", o.input_rows},
           {"deleted_rows", o.deleted_rows},
           {"reason", o.reason}};
    if (!o.path.empty()) {
      e["path"] = o.path;
      e["bytes"] = o.bytes;
      e["rows"] = o.rows;
    }
    outputs.push_back(std::move(e));
  }
  Json o{{"dataset", v.dataset},
         {"rule", std::string(CompactionRuleName(v.rule))},
         {"dry_run", v.dry_run},
         {"read_snapshot_id", v.read_snapshot_id},
         {"snapshot_id", OptJson(v.snapshot_id)},
         {"target_file_size", v.target_file_size},
         {"min_file_size", v.min_file_size},
         {"max_file_size", v.max_file_size},
         {"outputs", std::move(outputs)},
         {"files_in", v.files_in()},
         {"files_out", static_cast<int64_t>(v.outputs.size())},
         {"bytes_in", v.bytes_in()},
         {"rows_out", v.rows_out()}};
  if (!v.nothing_to_do.empty()) o["nothing_to_do"] = v.nothing_to_do;
  return o;
}

Result<CompactionResult> CompactionResultFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  CompactionResult v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(std::string rule, r.String("rule"));
  auto parsed = ParseCompactionRule(rule);
  if (!parsed.ok()) return AtField(parsed.status(), r.Pointer("rule"));
  v.rule = *parsed;
  TARN_ASSIGN_OR_RETURN(v.dry_run, r.Bool("dry_run", false));
  TARN_ASSIGN_OR_RETURN(v.read_snapshot_id, r.Int("read_snapshot_id"));
  TARN_ASSIGN_OR_RETURN(v.snapshot_id, r.OptInt("snapshot_id"));
  TARN_ASSIGN_OR_RETURN(v.target_file_size, r.Int("target_file_size"));
  TARN_ASSIGN_OR_RETURN(v.min_file_size, r.Int("min_file_size"));
  TARN_ASSIGN_OR_RETURN(v.max_file_size, r.Int("max_file_size"));
  TARN_ASSIGN_OR_RETURN(auto nothing, r.OptString("nothing_to_do"));
  v.nothing_to_do = nothing.value_or("");
  // Totals are derived from the outputs.
  for (const char* derived : {"files_in", "files_out", "bytes_in", "rows_out"}) {
    TARN_RETURN_NOT_OK(r.OptValue(derived).status());
  }
  TARN_ASSIGN_OR_RETURN(const Json* outputs, r.Value("outputs"));
  TARN_RETURN_NOT_OK(
      ForEachIn(*outputs, r.Pointer("outputs"), [&](const Json& e, const std::string& p) -> Status {
        TARN_ASSIGN_OR_RETURN(ObjectReader er, ObjectReader::Make(e, p));
        CompactionOutput o;
        TARN_ASSIGN_OR_RETURN(int64_t spec_id, er.Int("spec_id"));
        o.spec_id = static_cast<int32_t>(spec_id);
        TARN_ASSIGN_OR_RETURN(o.partition, er.String("partition"));
        TARN_ASSIGN_OR_RETURN(const Json* inputs, er.Value("inputs"));
        TARN_ASSIGN_OR_RETURN(o.inputs, StringsAt(*inputs, er.Pointer("inputs")));
        TARN_ASSIGN_OR_RETURN(o.input_bytes, er.Int("input_bytes"));
        TARN_ASSIGN_OR_RETURN(o.input_rows, er.Int("input_rows"));
        TARN_ASSIGN_OR_RETURN(o.deleted_rows, er.Int("deleted_rows"));
        TARN_ASSIGN_OR_RETURN(o.reason, er.String("reason"));
        TARN_ASSIGN_OR_RETURN(auto path, er.OptString("path"));
        o.path = path.value_or("");
        TARN_ASSIGN_OR_RETURN(auto bytes, er.OptInt("bytes"));
        o.bytes = bytes.value_or(0);
        TARN_ASSIGN_OR_RETURN(auto rows, er.OptInt("rows"));
        o.rows = rows.value_or(0);
        TARN_RETURN_NOT_OK(er.Finish());
        v.outputs.push_back(std::move(o));
        return Status::OK();
      }));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const CleanupResult& v) {
  return Json{{"objects_deleted", v.objects_deleted},
              {"bytes_deleted", v.bytes_deleted},
              {"pending", v.pending},
              {"orphans", StringsJson(v.orphans)}};
}

Result<CleanupResult> CleanupResultFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  CleanupResult v;
  TARN_ASSIGN_OR_RETURN(v.objects_deleted, r.Int("objects_deleted"));
  TARN_ASSIGN_OR_RETURN(v.bytes_deleted, r.Int("bytes_deleted"));
  TARN_ASSIGN_OR_RETURN(v.pending, r.Int("pending"));
  TARN_ASSIGN_OR_RETURN(const Json* orphans, r.OptValue("orphans"));
  if (orphans != nullptr) {
    TARN_ASSIGN_OR_RETURN(v.orphans, StringsAt(*orphans, r.Pointer("orphans")));
  }
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const FederationRuleSpec& v) {
  return Json{{"issuer", v.issuer},
              {"subject", v.subject},
              {"client_id", v.client_id},
              {"description", v.description}};
}

Result<FederationRuleSpec> FederationRuleSpecFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  FederationRuleSpec v;
  TARN_ASSIGN_OR_RETURN(v.issuer, r.String("issuer"));
  TARN_ASSIGN_OR_RETURN(v.subject, r.String("subject"));
  TARN_ASSIGN_OR_RETURN(v.client_id, r.String("client_id"));
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  v.description = description.value_or("");
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const FederationRule& v) {
  return Json{{"id", v.id},
              {"issuer", v.issuer},
              {"subject", v.subject},
              {"client_id", v.client_id},
              {"workspace", v.workspace},
              {"description", v.description},
              {"created_by", v.created_by},
              {"created_at_us", v.created_at_us}};
}

Result<FederationRule> FederationRuleFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  FederationRule v;
  TARN_ASSIGN_OR_RETURN(v.id, r.String("id"));
  TARN_ASSIGN_OR_RETURN(v.issuer, r.String("issuer"));
  TARN_ASSIGN_OR_RETURN(v.subject, r.String("subject"));
  TARN_ASSIGN_OR_RETURN(v.client_id, r.String("client_id"));
  TARN_ASSIGN_OR_RETURN(v.workspace, r.String("workspace"));
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  v.description = description.value_or("");
  TARN_ASSIGN_OR_RETURN(auto created_by, r.OptString("created_by"));
  v.created_by = created_by.value_or("");
  TARN_ASSIGN_OR_RETURN(auto created, r.OptInt("created_at_us"));
  v.created_at_us = created.value_or(0);
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const AccessTokenInfo& v) {
  Json o = Json::object();
  PutTokenInfo(v, &o);
  return o;
}

Result<AccessTokenInfo> AccessTokenFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  TARN_ASSIGN_OR_RETURN(AccessTokenInfo v, AccessTokenAt(r));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const NewAccessToken& v) {
  Json o = Json::object();
  PutTokenInfo(v.info, &o);
  o["client_secret"] = v.client_secret;
  return o;
}

Result<NewAccessToken> NewAccessTokenFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  NewAccessToken v;
  TARN_ASSIGN_OR_RETURN(v.info, AccessTokenAt(r));
  TARN_ASSIGN_OR_RETURN(v.client_secret, r.String("client_secret"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const AccessTokenSpec& v) {
  Json o = {{"workspace", v.workspace},
            {"role", std::string(RoleName(v.role))},
            {"pattern", v.pattern},
            {"description", v.description}};
  if (v.client_id) o["client_id"] = *v.client_id;
  if (v.client_secret) o["client_secret"] = *v.client_secret;
  return o;
}

Result<AccessTokenSpec> AccessTokenSpecFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  AccessTokenSpec v;
  TARN_ASSIGN_OR_RETURN(v.workspace, r.String("workspace"));
  TARN_ASSIGN_OR_RETURN(std::string role, r.String("role"));
  auto parsed = ParseRole(role);
  if (!parsed.ok()) return AtField(parsed.status(), r.Pointer("role"));
  v.role = *parsed;
  TARN_ASSIGN_OR_RETURN(auto pattern, r.OptString("pattern"));
  v.pattern = pattern.value_or("*");
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  v.description = description.value_or("");
  TARN_ASSIGN_OR_RETURN(v.client_id, r.OptString("client_id"));
  TARN_ASSIGN_OR_RETURN(v.client_secret, r.OptString("client_secret"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

namespace {

// An audit or alert record's detail: its JSON object on the wire, kept as text when the
// stored text is not JSON; read back as text ("{}" when absent).
Json DetailJson(const std::string& text) {
  Json detail = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (detail.is_discarded()) return Json(text);
  return detail;
}

Result<std::string> DetailText(ObjectReader& r) {
  TARN_ASSIGN_OR_RETURN(const Json* detail, r.OptValue("detail"));
  if (detail == nullptr) return std::string("{}");
  if (detail->is_string()) return detail->get<std::string>();
  return Dump(*detail);
}

}  // namespace

Json ToJson(const AuditRecord& v) {
  Json detail = DetailJson(v.detail_json);
  return Json{{"id", v.id},
              {"at_us", v.at_us},
              {"request_id", v.request_id},
              {"actor", v.actor},
              {"action", v.action},
              {"target", v.target},
              {"workspace", v.workspace},
              {"outcome", v.outcome},
              {"detail", std::move(detail)}};
}

Result<AuditRecord> AuditRecordFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  AuditRecord v;
  TARN_ASSIGN_OR_RETURN(v.id, r.Int("id"));
  TARN_ASSIGN_OR_RETURN(v.at_us, r.Int("at_us"));
  TARN_ASSIGN_OR_RETURN(auto request_id, r.OptString("request_id"));
  v.request_id = request_id.value_or("");
  TARN_ASSIGN_OR_RETURN(v.actor, r.String("actor"));
  TARN_ASSIGN_OR_RETURN(v.action, r.String("action"));
  TARN_ASSIGN_OR_RETURN(auto target, r.OptString("target"));
  v.target = target.value_or("");
  TARN_ASSIGN_OR_RETURN(auto workspace, r.OptString("workspace"));
  v.workspace = workspace.value_or("");
  TARN_ASSIGN_OR_RETURN(v.outcome, r.String("outcome"));
  TARN_ASSIGN_OR_RETURN(v.detail_json, DetailText(r));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

// ---- alerts and the integrity sweep ----

Json ToJson(const AlertRecord& v) {
  Json detail = DetailJson(v.detail_json);
  return Json{{"fingerprint", v.fingerprint},
              {"code", v.code},
              {"severity", v.severity},
              {"object", v.object},
              {"summary", v.summary},
              {"component", v.component},
              {"environment", v.environment},
              {"detail", std::move(detail)},
              {"first_raised_at_us", v.first_raised_at_us},
              {"last_raised_at_us", v.last_raised_at_us},
              {"last_delivered_at_us", v.last_delivered_at_us},
              {"count", v.count}};
}

Result<AlertRecord> AlertRecordFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  AlertRecord v;
  TARN_ASSIGN_OR_RETURN(v.fingerprint, r.String("fingerprint"));
  TARN_ASSIGN_OR_RETURN(v.code, r.String("code"));
  TARN_ASSIGN_OR_RETURN(v.severity, r.String("severity"));
  TARN_ASSIGN_OR_RETURN(v.object, r.String("object"));
  TARN_ASSIGN_OR_RETURN(v.summary, r.String("summary"));
  TARN_ASSIGN_OR_RETURN(v.component, r.String("component"));
  TARN_ASSIGN_OR_RETURN(v.environment, r.String("environment"));
  TARN_ASSIGN_OR_RETURN(v.detail_json, DetailText(r));
  TARN_ASSIGN_OR_RETURN(v.first_raised_at_us, r.Int("first_raised_at_us"));
  TARN_ASSIGN_OR_RETURN(v.last_raised_at_us, r.Int("last_raised_at_us"));
  TARN_ASSIGN_OR_RETURN(v.last_delivered_at_us, r.Int("last_delivered_at_us"));
  TARN_ASSIGN_OR_RETURN(v.count, r.Int("count"));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const FsckReport& v) {
  Json findings = Json::array();
  for (const auto& f : v.findings) {
    findings.push_back({{"code", f.code},
                        {"object", f.object},
                        {"dataset", f.dataset},
                        {"detail", f.detail},
                        {"platform", f.platform}});
  }
  return Json{{"findings", std::move(findings)},
              {"datasets_checked", v.datasets_checked},
              {"files_checked", v.files_checked},
              {"objects_listed", v.objects_listed},
              {"clean", v.clean()}};
}

Result<FsckReport> FsckReportFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  FsckReport v;
  TARN_ASSIGN_OR_RETURN(const Json* findings, r.Value("findings"));
  TARN_RETURN_NOT_OK(ForEachIn(*findings, r.Pointer("findings"),
                               [&](const Json& e, const std::string& p) -> Status {
                                 TARN_ASSIGN_OR_RETURN(ObjectReader f, ObjectReader::Make(e, p));
                                 FsckFinding out;
                                 TARN_ASSIGN_OR_RETURN(out.code, f.String("code"));
                                 TARN_ASSIGN_OR_RETURN(out.object, f.String("object"));
                                 TARN_ASSIGN_OR_RETURN(auto dataset, f.OptString("dataset"));
                                 out.dataset = dataset.value_or("");
                                 TARN_ASSIGN_OR_RETURN(out.detail, f.String("detail"));
                                 TARN_ASSIGN_OR_RETURN(out.platform, f.Bool("platform", true));
                                 TARN_RETURN_NOT_OK(f.Finish());
                                 v.findings.push_back(std::move(out));
                                 return Status::OK();
                               }));
  TARN_ASSIGN_OR_RETURN(v.datasets_checked, r.Int("datasets_checked"));
  TARN_ASSIGN_OR_RETURN(v.files_checked, r.Int("files_checked"));
  TARN_ASSIGN_OR_RETURN(v.objects_listed, r.Int("objects_listed"));
  TARN_RETURN_NOT_OK(r.Bool("clean", false).status());  // derived from the findings
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

// ---- snapshot selectors ----

std::vector<std::pair<std::string, std::string>> SelectorParams(const SnapshotSelector& at) {
  std::vector<std::pair<std::string, std::string>> out;
  if (at.snapshot_id) out.emplace_back("snapshot_id", std::to_string(*at.snapshot_id));
  if (at.at_time_us) out.emplace_back("at_us", std::to_string(*at.at_time_us));
  if (at.tag) out.emplace_back("tag", *at.tag);
  return out;
}

Result<SnapshotSelector> SelectorFromParams(
    const std::function<std::optional<std::string>(std::string_view)>& param) {
  SnapshotSelector at;
  int given = 0;
  if (auto v = param("snapshot_id")) {
    ++given;
    TARN_ASSIGN_OR_RETURN(at.snapshot_id, ParamInt("snapshot_id", *v));
  }
  if (auto v = param("at_us")) {
    ++given;
    TARN_ASSIGN_OR_RETURN(at.at_time_us, ParamInt("at_us", *v));
  }
  if (auto v = param("tag")) {
    ++given;
    if (v->empty()) {
      return Status::Of(codes::kInvalidValue, "query parameter tag must not be empty")
          .WithField("field", "tag");
    }
    at.tag = std::move(*v);
  }
  if (given > 1) {
    return Status::Of(codes::kAmbiguousSelector, "give at most one of snapshot_id, at_us and tag");
  }
  return at;
}

// ---- frames ----

std::string FrameHeader(FrameKind kind, size_t payload_bytes) {
  std::string h(kFrameHeaderBytes, '\0');
  uint32_t n = static_cast<uint32_t>(payload_bytes);
  for (int i = 0; i < 4; ++i) h[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  h[4] = static_cast<char>(kind);
  return h;
}

std::string EncodeFrame(FrameKind kind, std::string_view payload) {
  std::string out = FrameHeader(kind, payload.size());
  out.append(payload);
  return out;
}

Result<std::string> EncodeBatchFrame(const RecordBatch& batch) {
  auto sink = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* bytes = sink.get();
  // Cheap to encode and decode on both ends (the server rewrites the rows as the dataset's own
  // files anyway): LZ4 and plain encodings. bench/README.md, "Service".
  parquet::WriterOptions options;
  options.codec = CompressionCodec::kLz4Raw;
  options.enable_dictionary = false;
  options.row_group_rows = std::numeric_limits<int64_t>::max();
  options.row_group_bytes = std::numeric_limits<int64_t>::max();
  options.threads = 1;
  options.write_statistics = false;
  TARN_ASSIGN_OR_RETURN(auto writer,
                        parquet::FileWriter::Open(std::move(sink), batch.schema, options));
  TARN_RETURN_NOT_OK(writer->Write(batch));
  TARN_RETURN_NOT_OK(writer->Close());
  if (bytes->bytes().size() > kMaxFrameBytes) {
    return Status::Of(codes::kFrameTooLarge,
                      "a batch of " + std::to_string(batch.num_rows) + " rows encodes to " +
                          std::to_string(bytes->bytes().size()) +
                          " bytes, past the frame limit of " + std::to_string(kMaxFrameBytes));
  }
  return EncodeFrame(FrameKind::kParquet, bytes->bytes());
}

Result<RecordBatch> DecodeBatchPayload(std::string payload) {
  parquet::ReaderOptions options;
  options.threads = 1;
  auto reader = parquet::FileReader::Open(MemoryFile(std::move(payload), "<batch frame>"), options);
  if (!reader.ok()) return reader.status().WithContext("batch frame");
  auto batch = (*reader)->ReadAll();
  if (!batch.ok()) return batch.status().WithContext("batch frame");
  return std::move(batch).value();
}

Status FrameParser::Feed(std::string_view bytes) {
  TARN_RETURN_NOT_OK(error_);
  if (consumed_ > 0 && consumed_ >= buffer_.size() / 2) {
    buffer_.erase(0, consumed_);
    scan_ -= consumed_;
    consumed_ = 0;
  }
  buffer_.append(bytes);
  // Validate every frame header now buffered, so a bad frame fails at once.
  while (buffer_.size() - scan_ >= kFrameHeaderBytes) {
    const auto* h = reinterpret_cast<const unsigned char*>(buffer_.data() + scan_);
    uint32_t n = static_cast<uint32_t>(h[0]) | static_cast<uint32_t>(h[1]) << 8 |
                 static_cast<uint32_t>(h[2]) << 16 | static_cast<uint32_t>(h[3]) << 24;
    char kind = static_cast<char>(h[4]);
    if (kind != 'M' && kind != 'W' && kind != 'P' && kind != 'E' && kind != 'X') {
      error_ = Status::Of(codes::kBadFrame, "bad frame: unknown frame kind byte " +
                                                std::to_string(static_cast<int>(h[4])));
      return error_;
    }
    if (n > kMaxFrameBytes) {
      error_ = Status::Of(codes::kBadFrame, "bad frame: a frame of " + std::to_string(n) +
                                                " bytes is past the limit of " +
                                                std::to_string(kMaxFrameBytes));
      return error_;
    }
    size_t end = scan_ + kFrameHeaderBytes + n;
    if (end > buffer_.size()) break;
    scan_ = end;
  }
  return Status::OK();
}

std::optional<std::pair<FrameKind, std::string>> FrameParser::Next() {
  if (!error_.ok()) return std::nullopt;
  // Frames before scan_ are complete and validated.
  if (scan_ <= consumed_) return std::nullopt;
  const auto* h = reinterpret_cast<const unsigned char*>(buffer_.data() + consumed_);
  uint32_t n = static_cast<uint32_t>(h[0]) | static_cast<uint32_t>(h[1]) << 8 |
               static_cast<uint32_t>(h[2]) << 16 | static_cast<uint32_t>(h[3]) << 24;
  auto kind = static_cast<FrameKind>(h[4]);
  std::string payload = buffer_.substr(consumed_ + kFrameHeaderBytes, n);
  consumed_ += kFrameHeaderBytes + n;
  return std::make_pair(kind, std::move(payload));
}

}  // namespace tarn::api

namespace tarn::api {

// ---- provenance (tarn/provenance.h) ----

Json ToJson(const LineageResult& v) {
  Json snapshots = Json::array();
  for (const auto& e : v.snapshots) {
    snapshots.push_back({{"snapshot_id", e.snapshot_id},
                         {"committed_at_us", e.committed_at_us},
                         {"operation", e.operation},
                         {"author", e.author},
                         {"receipt", e.receipt ? ToJson(*e.receipt) : Json(nullptr)},
                         {"how", e.how}});
  }
  return Json{{"dataset", v.dataset},
              {"snapshots", std::move(snapshots)},
              {"sources", SourcesJson(v.sources)},
              {"sources_complete", v.sources_complete}};
}

Result<LineageResult> LineageFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  LineageResult v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(const Json* snapshots, r.Value("snapshots"));
  TARN_RETURN_NOT_OK(ForEachIn(
      *snapshots, r.Pointer("snapshots"), [&](const Json& e, const std::string& p) -> Status {
        TARN_ASSIGN_OR_RETURN(ObjectReader er, ObjectReader::Make(e, p));
        LineageEntry x;
        TARN_ASSIGN_OR_RETURN(x.snapshot_id, er.Int("snapshot_id"));
        TARN_ASSIGN_OR_RETURN(x.committed_at_us, er.Int("committed_at_us"));
        TARN_ASSIGN_OR_RETURN(x.operation, er.String("operation"));
        TARN_ASSIGN_OR_RETURN(x.author, er.String("author"));
        TARN_ASSIGN_OR_RETURN(const Json* receipt, er.OptValue("receipt"));
        if (receipt != nullptr) {
          TARN_ASSIGN_OR_RETURN(x.receipt, ReceiptAt(*receipt, er.Pointer("receipt")));
        }
        TARN_ASSIGN_OR_RETURN(x.how, er.String("how"));
        TARN_RETURN_NOT_OK(er.Finish());
        v.snapshots.push_back(std::move(x));
        return Status::OK();
      }));
  TARN_ASSIGN_OR_RETURN(const Json* sources, r.Value("sources"));
  TARN_ASSIGN_OR_RETURN(v.sources, SourcesAt(*sources, r.Pointer("sources")));
  TARN_ASSIGN_OR_RETURN(v.sources_complete, r.Bool("sources_complete", true));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const ImpactResult& v) {
  Json consumers = Json::array();
  for (const auto& c : v.consumers) {
    consumers.push_back({{"dataset", c.dataset}, {"dataset_uuid", c.dataset_uuid}});
  }
  return Json{
      {"dataset", v.dataset}, {"consumers", std::move(consumers)}, {"truncated", v.truncated}};
}

Result<ImpactResult> ImpactFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  ImpactResult v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(const Json* consumers, r.Value("consumers"));
  TARN_ASSIGN_OR_RETURN(auto list, SourcesAt(*consumers, r.Pointer("consumers")));
  for (auto& s : list) v.consumers.push_back({std::move(s.dataset), std::move(s.dataset_uuid)});
  TARN_ASSIGN_OR_RETURN(v.truncated, r.Bool("truncated", false));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

Json ToJson(const ReadersResult& v) {
  Json readers = Json::array();
  for (const auto& e : v.readers) {
    readers.push_back({{"dataset", e.dataset},
                       {"snapshot_id", e.snapshot_id},
                       {"committed_at_us", e.committed_at_us},
                       {"read_snapshot_id", e.read_snapshot_id},
                       {"produced_by", OptJson(e.produced_by)}});
  }
  return Json{{"dataset", v.dataset},
              {"version", OptJson(v.version)},
              {"readers", std::move(readers)},
              {"truncated", v.truncated}};
}

Result<ReadersResult> ReadersFromJson(const Json& j) {
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(j));
  ReadersResult v;
  TARN_ASSIGN_OR_RETURN(v.dataset, r.String("dataset"));
  TARN_ASSIGN_OR_RETURN(v.version, r.OptInt("version"));
  TARN_ASSIGN_OR_RETURN(const Json* readers, r.Value("readers"));
  TARN_RETURN_NOT_OK(
      ForEachIn(*readers, r.Pointer("readers"), [&](const Json& e, const std::string& p) -> Status {
        TARN_ASSIGN_OR_RETURN(ObjectReader er, ObjectReader::Make(e, p));
        ReaderEntry x;
        TARN_ASSIGN_OR_RETURN(x.dataset, er.String("dataset"));
        TARN_ASSIGN_OR_RETURN(x.snapshot_id, er.Int("snapshot_id"));
        TARN_ASSIGN_OR_RETURN(x.committed_at_us, er.Int("committed_at_us"));
        TARN_ASSIGN_OR_RETURN(x.read_snapshot_id, er.Int("read_snapshot_id"));
        TARN_ASSIGN_OR_RETURN(x.produced_by, er.OptString("produced_by"));
        TARN_RETURN_NOT_OK(er.Finish());
        v.readers.push_back(std::move(x));
        return Status::OK();
      }));
  TARN_ASSIGN_OR_RETURN(v.truncated, r.Bool("truncated", false));
  TARN_RETURN_NOT_OK(r.Finish());
  return v;
}

}  // namespace tarn::api

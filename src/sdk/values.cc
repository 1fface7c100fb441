// The functions and members of the SDK's value types (include/tarn/dataset.h, access.h) that
// need no catalog: names, vocabularies, receipts and schema-change text. Part of both tarn::tarn
// and the remote-only tarn::client.
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "sdk/error_codes.h"
#include "tarn/access.h"
#include "tarn/dataset.h"
#include "tarn/view.h"

namespace tarn {

using nlohmann::json;

namespace {

constexpr std::pair<CommitOperation, std::string_view> kOperationNames[] = {
    {CommitOperation::kAppend, "append"},
    {CommitOperation::kAddFiles, "add_files"},
    {CommitOperation::kOverwrite, "overwrite"},
    {CommitOperation::kTruncateAndAdd, "truncate_and_add_files"},
    {CommitOperation::kDeleteRows, "delete_rows"},
    {CommitOperation::kDeleteFiles, "delete_files"},
    {CommitOperation::kMerge, "merge"},
    {CommitOperation::kRollback, "rollback"},
    {CommitOperation::kCompact, "compact"},
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "word rest" at the first run of spaces.
std::pair<std::string_view, std::string_view> NextWord(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  size_t sp = s.find(' ');
  std::string_view word = s.substr(0, sp);
  std::string_view rest = sp == std::string_view::npos ? std::string_view() : s.substr(sp);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  return {word, rest};
}

}  // namespace

bool ProtectionOn(const std::optional<std::string>& raw) {
  if (!raw) return true;
  static constexpr std::string_view kFalse = "false";
  if (raw->size() != kFalse.size()) return true;
  for (size_t i = 0; i < kFalse.size(); ++i) {
    char c = (*raw)[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kFalse[i]) return true;
  }
  return false;
}

Status ValidateIdentifier(std::string_view what, std::string_view name) {
  auto bad = [&](std::string_view why) {
    std::string shown(name.substr(0, 140));
    return Status::InvalidArgument(std::string(what) + " '" + shown + "' " + std::string(why) +
                                   " (must match ^[A-Za-z_][A-Za-z0-9_-]{0,127}$)");
  };
  if (name.empty()) return bad("is empty");
  if (name.size() > 128) return bad("is longer than 128 characters");
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(name[0])) return bad("must start with a letter or '_'");
  for (char c : name.substr(1)) {
    if (!alpha(c) && !(c >= '0' && c <= '9') && c != '-') return bad("has an invalid character");
  }
  return Status::OK();
}

Status ValidateDialect(std::string_view dialect) {
  bool ok = !dialect.empty() && dialect.size() <= 32;
  for (char c : dialect) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  if (ok) return Status::OK();
  return Status::Of(codes::kInvalidDialect, "dialect '" + std::string(dialect.substr(0, 40)) +
                                                "' must be 1 to 32 characters of [a-z0-9_]")
      .WithField("dialect", std::string(dialect.substr(0, 40)));
}

Status ValidateViewDefinition(const ViewDefinition& def) {
  TARN_RETURN_NOT_OK(ValidateDialect(def.dialect));
  size_t first = def.sql.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    return Status::Of(codes::kInvalidViewSql, "a view's SQL must not be empty");
  }
  if (def.sql.size() > kMaxViewSqlBytes) {
    return Status::Of(codes::kInvalidViewSql, "a view's SQL is " + std::to_string(def.sql.size()) +
                                                  " bytes; at most " +
                                                  std::to_string(kMaxViewSqlBytes) + " are kept");
  }
  if (def.sql.find('\0') != std::string::npos) {
    return Status::Of(codes::kInvalidViewSql, "a view's SQL must not contain a NUL byte");
  }
  if (def.description.size() > 4096) {
    return Status::InvalidArgument("a view's description is longer than 4096 bytes");
  }
  if (def.schema && def.schema->fields.empty()) {
    return Status::InvalidArgument("a view's declared schema has no column");
  }
  return Status::OK();
}

Result<CollectionName> ParseCollectionName(std::string_view qualified) {
  size_t dot = qualified.find('.');
  if (dot == std::string_view::npos || qualified.find('.', dot + 1) != std::string_view::npos) {
    return Status::InvalidArgument("collection name '" + std::string(qualified.substr(0, 300)) +
                                   "' must be workspace.collection");
  }
  CollectionName n{std::string(qualified.substr(0, dot)), std::string(qualified.substr(dot + 1))};
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", n.workspace));
  TARN_RETURN_NOT_OK(ValidateIdentifier("collection name", n.collection));
  return n;
}

Result<DatasetName> ParseDatasetName(std::string_view qualified) {
  size_t d1 = qualified.find('.');
  size_t d2 = d1 == std::string_view::npos ? d1 : qualified.find('.', d1 + 1);
  if (d2 == std::string_view::npos || qualified.find('.', d2 + 1) != std::string_view::npos) {
    return Status::InvalidArgument("dataset name '" + std::string(qualified.substr(0, 300)) +
                                   "' must be workspace.collection.dataset");
  }
  DatasetName n{std::string(qualified.substr(0, d1)),
                std::string(qualified.substr(d1 + 1, d2 - d1 - 1)),
                std::string(qualified.substr(d2 + 1))};
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", n.workspace));
  TARN_RETURN_NOT_OK(ValidateIdentifier("collection name", n.collection));
  TARN_RETURN_NOT_OK(ValidateIdentifier("dataset name", n.dataset));
  return n;
}

Result<SchemaChange> ParseSchemaChange(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("schema change '" + std::string(text.substr(0, 200)) +
                                   "': " + std::string(why));
  };
  auto [verb, rest] = NextWord(text);
  std::string v = Lower(verb);
  SchemaChange ch;
  if (v == "add") {
    auto [col, type] = NextWord(rest);
    if (Lower(col) == "column") std::tie(col, type) = NextWord(type);
    if (col.empty() || type.empty()) return bad("expected 'add COLUMN TYPE'");
    ch.kind = SchemaChange::Kind::kAddColumn;
    ch.column = std::string(col);
    std::string t(type);
    std::string lt = Lower(t);
    if (lt.size() > 6 && lt.compare(lt.size() - 6, 6, " first") == 0) {
      ch.first = true;
      t.resize(t.size() - 6);
    } else if (size_t at = lt.rfind(" after "); at != std::string::npos) {
      ch.after = t.substr(at + 7);
      t.resize(at);
    }
    // A trailing NOT NULL is the column's; one inside STRUCT<...> belongs to the type.
    std::string lt2 = Lower(t);
    while (!lt2.empty() && lt2.back() == ' ') lt2.pop_back();
    if (lt2.size() > 9 && lt2.compare(lt2.size() - 9, 9, " not null") == 0) {
      ch.nullable = false;
      t.resize(lt2.size() - 9);
    }
    auto dt = DataType::Parse(t);
    if (!dt.ok()) return bad(dt.status().message());
    ch.type = *dt;
    return ch;
  }
  if (v == "drop") {
    auto [col, more] = NextWord(rest);
    if (Lower(col) == "not" && Lower(more).rfind("null ", 0) == 0) {
      ch.kind = SchemaChange::Kind::kSetNullable;
      ch.column = std::string(NextWord(more).second);
      ch.nullable = true;
      if (ch.column.empty()) return bad("expected 'drop not null COLUMN'");
      return ch;
    }
    if (Lower(col) == "column") std::tie(col, more) = NextWord(more);
    if (col.empty() || !more.empty()) return bad("expected 'drop COLUMN'");
    ch.kind = SchemaChange::Kind::kDropColumn;
    ch.column = std::string(col);
    return ch;
  }
  if (v == "rename") {
    auto [col, more] = NextWord(rest);
    if (Lower(col) == "column") std::tie(col, more) = NextWord(more);
    auto [to, name] = NextWord(more);
    if (col.empty() || Lower(to) != "to" || name.empty()) return bad("expected 'rename A TO B'");
    ch.kind = SchemaChange::Kind::kRenameColumn;
    ch.column = std::string(col);
    ch.new_name = std::string(name);
    return ch;
  }
  if (v == "promote") {
    auto [col, type] = NextWord(rest);
    if (col.empty() || type.empty()) return bad("expected 'promote COLUMN TYPE'");
    auto dt = DataType::Parse(type);
    if (!dt.ok()) return bad(dt.status().message());
    ch.kind = SchemaChange::Kind::kPromoteColumn;
    ch.column = std::string(col);
    ch.type = *dt;
    return ch;
  }
  if (v == "move") {
    auto [col, more] = NextWord(rest);
    auto [where, target] = NextWord(more);
    ch.kind = SchemaChange::Kind::kMoveColumn;
    ch.column = std::string(col);
    if (Lower(where) == "first" && target.empty()) {
      ch.first = true;
    } else if (Lower(where) == "after" && !target.empty()) {
      ch.after = std::string(target);
    } else {
      return bad("expected 'move COLUMN FIRST' or 'move COLUMN AFTER OTHER'");
    }
    return ch;
  }
  if (v == "set") {
    auto [what, col] = NextWord(rest);
    if (Lower(what) != "nullable" || col.empty()) return bad("expected 'set nullable COLUMN'");
    ch.kind = SchemaChange::Kind::kSetNullable;
    ch.column = std::string(col);
    return ch;
  }
  return bad("expected add, drop, rename, promote, move or set nullable");
}

std::string_view CommitOperationName(CommitOperation op) {
  for (const auto& [o, name] : kOperationNames) {
    if (o == op) return name;
  }
  return "unknown";
}

Result<CommitOperation> ParseCommitOperation(std::string_view name) {
  for (const auto& [o, n] : kOperationNames) {
    if (n == name) return o;
  }
  return Status::InvalidArgument("unknown commit operation '" + std::string(name) + "'");
}

bool IsInlinedPath(std::string_view path) {
  constexpr std::string_view kDatasets = "datasets/", kInline = "inline/";
  if (path.substr(0, kDatasets.size()) != kDatasets) return false;
  path.remove_prefix(kDatasets.size());
  const size_t slash = path.find('/');
  if (slash == std::string_view::npos || slash == 0) return false;
  path.remove_prefix(slash + 1);
  return path.size() > kInline.size() && path.substr(0, kInline.size()) == kInline;
}

std::string_view CompactionRuleName(CompactionRule rule) {
  switch (rule) {
    case CompactionRule::kAuto:
      return "auto";
    case CompactionRule::kBrute:
      return "brute";
    case CompactionRule::kSortAware:
      return "sort_aware";
  }
  return "auto";
}

Result<CompactionRule> ParseCompactionRule(std::string_view name) {
  for (CompactionRule r :
       {CompactionRule::kAuto, CompactionRule::kBrute, CompactionRule::kSortAware}) {
    if (CompactionRuleName(r) == name) return r;
  }
  return Status::InvalidArgument("unknown compaction rule '" + std::string(name) +
                                 "' (auto, brute or sort_aware)");
}

int64_t CompactionResult::files_in() const {
  int64_t n = 0;
  for (const auto& o : outputs) n += static_cast<int64_t>(o.inputs.size());
  return n;
}

int64_t CompactionResult::bytes_in() const {
  int64_t n = 0;
  for (const auto& o : outputs) n += o.input_bytes;
  return n;
}

int64_t CompactionResult::rows_out() const {
  int64_t n = 0;
  for (const auto& o : outputs) n += o.path.empty() ? o.input_rows - o.deleted_rows : o.rows;
  return n;
}

bool IsAppendOnly(CommitOperation op) {
  return op == CommitOperation::kAppend || op == CommitOperation::kAddFiles;
}

std::string SnapshotSelector::ToString() const {
  if (snapshot_id) return "snapshot " + std::to_string(*snapshot_id);
  if (at_time_us) return "time " + std::to_string(*at_time_us) + " us";
  if (tag) return "tag " + *tag;
  return "current";
}

std::vector<SecureObject> SecureObjectsOf(const WorkspaceInfo& workspace) {
  std::vector<SecureObject> out;
  auto it = workspace.properties.find(kSecureObjectsProperty);
  if (it == workspace.properties.end()) return out;
  json j = json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return out;
  for (const auto& [object, record] : j.items()) {
    if (!record.is_object() || !ParseDatasetName(object).ok()) continue;
    auto to = record.find("to");
    if (to == record.end() || !to->is_array() || to->empty()) continue;
    SecureObject s;
    s.object = object;
    bool ok = true;
    for (const auto& d : *to) {
      ok = ok && d.is_string() && ValidateIdentifier("workspace", d.get<std::string>()).ok();
      if (ok) s.destinations.push_back(d.get<std::string>());
    }
    if (!ok) continue;
    if (auto by = record.find("by"); by != record.end() && by->is_string()) s.author = *by;
    if (auto at = record.find("at"); at != record.end() && at->is_number_integer()) {
      s.marked_at_us = at->get<int64_t>();
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string SecureObjectsJson(const std::vector<SecureObject>& objects) {
  json j = json::object();
  for (const SecureObject& s : objects) {
    j[s.object] = {{"to", s.destinations}, {"by", s.author}, {"at", s.marked_at_us}};
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool EgressSanctioned(const WorkspaceInfo& source, std::string_view object,
                      std::string_view destination) {
  for (const SecureObject& s : SecureObjectsOf(source)) {
    if (s.object != object) continue;
    for (const auto& d : s.destinations) {
      if (d == destination) return true;
    }
  }
  return false;
}

std::pair<std::string, std::string> ResolvedBy(const SnapshotSelector& at) {
  if (at.snapshot_id) return {"version", ""};
  if (at.at_time_us) return {"date", ""};
  if (at.tag) {
    if (*at.tag == "previous") return {"previous", ""};
    if (*at.tag == "current" || *at.tag == "head" || *at.tag == "last") return {"current", ""};
    return {"tag", *at.tag};
  }
  return {"current", ""};
}

void Receipt::AddRead(ReadReference read) {
  for (const auto& r : read_sources) {
    if (r.dataset_uuid == read.dataset_uuid && r.dataset == read.dataset &&
        r.snapshot_id == read.snapshot_id) {
      return;
    }
  }
  if (read_sources.size() >= kMaxReadSources) {
    read_sources_truncated = true;
    return;
  }
  read_sources.push_back(std::move(read));
}

Receipt Receipt::Of(const std::vector<ReadReference>& reads,
                    std::optional<std::string> produced_by) {
  Receipt r;
  for (const auto& read : reads) r.AddRead(read);
  r.produced_by = std::move(produced_by);
  return r;
}

std::vector<std::string> Receipt::ReadSourceKeys() const {
  std::vector<std::string> out;
  auto add = [&](std::string key) {
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(std::move(key));
  };
  for (const auto& r : read_sources) {
    add(r.dataset);
    add(r.dataset + "@" + std::to_string(r.snapshot_id));
  }
  return out;
}

std::string Receipt::ToJson() const {
  json reads = json::array();
  for (const auto& r : read_sources) {
    json e = {{"dataset", r.dataset},
              {"dataset_uuid", r.dataset_uuid},
              {"snapshot_id", r.snapshot_id},
              {"resolved_by", r.resolved_by}};
    if (!r.tag.empty()) e["tag"] = r.tag;
    reads.push_back(std::move(e));
  }
  json j = {{"read_sources", std::move(reads)},
            {"read_sources_truncated", read_sources_truncated},
            {"read_source_keys", ReadSourceKeys()}};
  if (produced_by) j["produced_by"] = *produced_by;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// The vocabulary receipts stored before issue 18 used: snapshot, time, tag:<name>.
void MapLegacyResolvedBy(ReadReference* ref) {
  if (ref->resolved_by == "snapshot") {
    ref->resolved_by = "version";
  } else if (ref->resolved_by == "time") {
    ref->resolved_by = "date";
  } else if (ref->resolved_by.rfind("tag:", 0) == 0) {
    std::string tag = ref->resolved_by.substr(4);
    if (tag == "previous") {
      ref->resolved_by = "previous";
    } else {
      ref->resolved_by = "tag";
      ref->tag = std::move(tag);
    }
  }
}

}  // namespace

Result<Receipt> Receipt::FromJson(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::InvalidArgument("a receipt must be a JSON object");
  Receipt r;
  const bool legacy = !j.contains("read_sources") && !j.contains("produced_by");
  const char* producer_key = legacy ? "producer" : "produced_by";
  if (auto it = j.find(producer_key); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return Status::InvalidArgument("receipt produced_by must be a string");
    std::string producer = it->get<std::string>();
    // Before issue 18 hand-run commands recorded "cli:<command>" / "sdk:query"; the seed's
    // vocabulary has no such kind: a hand-run statement has no producer.
    bool hand_run = legacy && (producer.empty() || producer.rfind("cli:", 0) == 0 ||
                               producer.rfind("sdk:", 0) == 0 || producer == "test");
    if (!hand_run) r.produced_by = std::move(producer);
  }
  if (auto it = j.find("read_sources_truncated"); it != j.end()) {
    if (!it->is_boolean()) {
      return Status::InvalidArgument("receipt read_sources_truncated must be a boolean");
    }
    r.read_sources_truncated = it->get<bool>();
  }
  if (auto it = j.find(legacy ? "reads" : "read_sources"); it != j.end()) {
    if (!it->is_array()) return Status::InvalidArgument("receipt read_sources must be an array");
    for (const auto& e : *it) {
      if (!e.is_object()) return Status::InvalidArgument("a receipt read must be an object");
      ReadReference ref;
      auto str = [&](const char* key, std::string* out) -> Status {
        auto f = e.find(key);
        if (f == e.end()) return Status::OK();
        if (!f->is_string()) {
          return Status::InvalidArgument(std::string("receipt read '") + key +
                                         "' must be a string");
        }
        *out = f->get<std::string>();
        return Status::OK();
      };
      TARN_RETURN_NOT_OK(str("dataset", &ref.dataset));
      TARN_RETURN_NOT_OK(str("dataset_uuid", &ref.dataset_uuid));
      TARN_RETURN_NOT_OK(str("resolved_by", &ref.resolved_by));
      TARN_RETURN_NOT_OK(str("tag", &ref.tag));
      if (auto f = e.find("snapshot_id"); f != e.end()) {
        if (!f->is_number_integer()) {
          return Status::InvalidArgument("receipt read 'snapshot_id' must be an integer");
        }
        ref.snapshot_id = f->get<int64_t>();
      }
      if (legacy) MapLegacyResolvedBy(&ref);
      r.read_sources.push_back(std::move(ref));
    }
  }
  return r;
}

Status ValidateReceipt(const Receipt& receipt) {
  auto bad = [](std::string message) {
    return Status::Of(codes::kInvalidReceipt, std::move(message)).WithField("field", "receipt");
  };
  if (receipt.produced_by) {
    const std::string& p = *receipt.produced_by;
    auto colon = p.find(':');
    std::string kind = colon == std::string::npos ? "" : p.substr(0, colon);
    std::string name = colon == std::string::npos ? "" : p.substr(colon + 1);
    if (kind == "task" || kind == "view") {
      if (!ParseDatasetName(name).ok()) {
        return bad("produced_by '" + p.substr(0, 200) + "' must name a " + kind + " as " + kind +
                   ":workspace.collection.name");
      }
    } else if (kind == "upload") {
      // The upload service's channel rule: 1-64 letters, digits, '-', '_' and '.'.
      bool ok =
          !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
          });
      if (!ok) {
        return bad("produced_by '" + p.substr(0, 200) +
                   "' must name its channel as upload:<channel> (1-64 letters, digits, -, _, .)");
      }
    } else {
      return bad("produced_by '" + p.substr(0, 200) +
                 "' must be task:<name>, view:<name> or upload:<channel>, or absent for a "
                 "hand-run statement");
    }
  }
  if (receipt.read_sources.size() > kMaxReadSources) {
    return bad("a receipt holds at most " + std::to_string(kMaxReadSources) +
               " read sources; set read_sources_truncated instead");
  }
  for (const auto& r : receipt.read_sources) {
    if (!ParseDatasetName(r.dataset).ok()) {
      return bad("receipt read '" + r.dataset.substr(0, 200) +
                 "' is not a workspace.collection.dataset name");
    }
    const std::string& how = r.resolved_by;
    if (how != "current" && how != "version" && how != "previous" && how != "tag" &&
        how != "date") {
      return bad("receipt read of '" + r.dataset + "' has resolved_by '" + how.substr(0, 64) +
                 "'; expected current, version, previous, tag or date");
    }
    if ((how == "tag") == r.tag.empty()) {
      return bad("receipt read of '" + r.dataset + "' names a tag exactly when resolved_by is tag");
    }
    if (r.snapshot_id < 0)
      return bad("receipt read of '" + r.dataset + "' has a negative snapshot");
  }
  return Status::OK();
}

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kReader:
      return "reader";
    case Role::kWriter:
      return "writer";
    case Role::kOwner:
      return "owner";
  }
  return "unknown";
}

Result<Role> ParseRole(std::string_view name) {
  if (name == "reader") return Role::kReader;
  if (name == "writer") return Role::kWriter;
  if (name == "owner") return Role::kOwner;
  return Status::Of(codes::kInvalidRole, "role '" + std::string(name.substr(0, 64)) +
                                             "' must be reader, writer or owner")
      .WithField("field", "role");
}

}  // namespace tarn

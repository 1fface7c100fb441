// The contract store: the tables upload_contracts / upload_parts (migration 4), the JSON bodies
// of their rows, and every statement on them.
#include "upload/store.h"

#include <nlohmann/json.hpp>

#include "sdk/upload_json.h"
#include "table/schema_json.h"
#include "tarn/data_file.h"

namespace tarn::upload::internal {

const std::vector<Migration>& UploadTables();

namespace {

// Upload contracts (docs/features.md U1-U5, docs/design/upload.md): one row per contract, its
// request, plan, issues and write schema in `body` (JSON); one row per staged part with the
// DataFiles it wrote (`files`, a JSON array). Every state change is an UPDATE guarded by the
// previous state.
constexpr char kUploads[] = R"sql(
CREATE TABLE upload_contracts (
  id TEXT PRIMARY KEY,
  target TEXT NOT NULL,
  state TEXT NOT NULL,
  created_by TEXT NOT NULL,
  body TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  idempotency_key TEXT,
  commit_result TEXT
);
CREATE INDEX upload_contracts_expiry ON upload_contracts (state, expires_at);

CREATE TABLE upload_parts (
  contract_id TEXT NOT NULL REFERENCES upload_contracts (id),
  seq BIGINT NOT NULL,
  name TEXT NOT NULL,
  row_count BIGINT NOT NULL,
  bytes_read BIGINT NOT NULL,
  bytes_written BIGINT NOT NULL,
  file_count BIGINT NOT NULL,
  written_at BIGINT NOT NULL,
  files TEXT NOT NULL,
  PRIMARY KEY (contract_id, seq)
);
)sql";

[[maybe_unused]] const bool kContributed = ContributeMigrations(UploadTables());

using nlohmann::json;

constexpr auto kReplace = json::error_handler_t::replace;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, kReplace); }

Result<formats::Format> ParseFormat(const std::string& s) {
  for (auto f : {formats::Format::kCsv, formats::Format::kNdjson, formats::Format::kParquet}) {
    if (formats::FormatName(f) == s) return f;
  }
  return Status::Internal("stored contract: unknown format '" + s + "'");
}

Result<formats::InputCompression> ParseCompression(const std::string& s) {
  using C = formats::InputCompression;
  for (auto c : {C::kNone, C::kGzip, C::kZstd, C::kBrotli, C::kDeflate}) {
    if (formats::InputCompressionName(c) == s) return c;
  }
  return Status::Internal("stored contract: unknown compression '" + s + "'");
}

Result<SchemaSourceKind> ParseSource(const std::string& s) {
  for (auto k : {SchemaSourceKind::kDeclared, SchemaSourceKind::kInferred,
                 SchemaSourceKind::kDataset, SchemaSourceKind::kAuto}) {
    if (SchemaSourceName(k) == s) return k;
  }
  return Status::Internal("stored contract: unknown schema source '" + s + "'");
}

// A stored vocabulary word read back with `from_name` (ContractStateFromName, ...); a word the
// SDK does not know is kCorruption naming `what`.
template <typename FromName>
auto ParseStored(std::string_view text, FromName from_name, const char* what)
    -> Result<typename decltype(from_name(text))::value_type> {
  auto value = from_name(text);
  if (!value) {
    return Status::Corruption(std::string("stored contract: unknown ") + what + " '" +
                              std::string(text.substr(0, 64)) + "'");
  }
  return *value;
}

json EntryToJson(const PlanEntry& e) {
  return json{{"column", e.column},  {"from", e.from},
              {"to", e.to},          {"action", std::string(PlanActionName(e.action))},
              {"sample", e.sample},  {"changes_values", e.changes_values},
              {"retyped", e.retyped}};
}

Result<PlanEntry> EntryFromJson(const json& j) {
  PlanEntry e;
  e.column = j.at("column").get<std::string>();
  e.from = j.at("from").get<std::string>();
  e.to = j.at("to").get<std::string>();
  TARN_ASSIGN_OR_RETURN(
      e.action, ParseStored(j.at("action").get<std::string>(), PlanActionFromName, "plan action"));
  e.sample = j.at("sample").get<std::string>();
  e.changes_values = j.at("changes_values").get<bool>();
  e.retyped = j.at("retyped").get<bool>();
  return e;
}

json FileToJson(const DataFile& f) {
  return json{{"path", f.path},
              {"format", f.format},
              {"record_count", f.record_count},
              {"file_size_bytes", f.file_size_bytes},
              {"spec_id", f.spec_id},
              {"partition", PartitionValuesToJson(f.partition)},
              {"stats", StatsToJson(f.columns)}};
}

Result<DataFile> FileFromJson(const json& j) {
  DataFile f;
  f.path = j.at("path").get<std::string>();
  f.format = j.at("format").get<std::string>();
  f.record_count = j.at("record_count").get<int64_t>();
  f.file_size_bytes = j.at("file_size_bytes").get<int64_t>();
  f.spec_id = j.at("spec_id").get<int32_t>();
  TARN_ASSIGN_OR_RETURN(f.partition, PartitionValuesFromJson(j.at("partition").get<std::string>()));
  TARN_ASSIGN_OR_RETURN(f.columns, StatsFromJson(j.at("stats").get<std::string>()));
  return f;
}

Status BodyFromJsonImpl(const json& j, ContractRecord* r) {
  r->requested_source = j.at("requested_source").get<std::string>();
  TARN_ASSIGN_OR_RETURN(r->source, ParseSource(j.at("schema_source").get<std::string>()));
  TARN_ASSIGN_OR_RETURN(r->mode,
                        ParseStored(j.at("mode").get<std::string>(), SchemaModeFromName, "mode"));
  r->declared.clear();
  for (const auto& d : j.at("declared")) {
    r->declared.emplace_back(d.at(0).get<std::string>(), d.at(1).get<std::string>());
  }
  r->channel = j.at("channel").get<std::string>();
  r->ttl_s = j.at("ttl_s").get<int64_t>();
  r->dataset.reset();
  if (j.contains("dataset") && !j.at("dataset").is_null()) {
    const json& d = j.at("dataset");
    AgreedDataset a;
    a.uuid = d.at("uuid").get<std::string>();
    a.schema_id = d.at("schema_id").get<int32_t>();
    a.spec_id = d.at("spec_id").get<int32_t>();
    TARN_ASSIGN_OR_RETURN(a.schema, SchemaFromJson(d.at("schema").get<std::string>()));
    a.spec_text = d.at("spec").get<std::string>();
    r->dataset = std::move(a);
  }
  r->files.clear();
  r->file_info.clear();
  for (const auto& f : j.at("files")) {
    ContractFile info;
    info.name = f.at("name").get<std::string>();
    info.format = f.at("format").get<std::string>();
    info.compression = f.at("compression").get<std::string>();
    info.file_size = f.at("file_size").get<int64_t>();
    info.sampled_rows = f.at("sampled_rows").get<int64_t>();
    info.sampled_bytes = f.at("sampled_bytes").get<int64_t>();
    SampledFile s;
    s.name = info.name;
    const json& inf = f.at("inferred");
    TARN_ASSIGN_OR_RETURN(s.schema.format, ParseFormat(inf.at("format").get<std::string>()));
    TARN_ASSIGN_OR_RETURN(s.schema.compression,
                          ParseCompression(inf.at("compression").get<std::string>()));
    s.schema.rows = inf.at("rows").get<int64_t>();
    s.schema.sample_bytes = inf.at("sample_bytes").get<int64_t>();
    s.schema.truncated = inf.at("truncated").get<bool>();
    std::string delim = inf.at("delimiter").get<std::string>();
    s.schema.delimiter = delim.empty() ? ',' : delim[0];
    s.schema.header = inf.at("header").get<bool>();
    for (const auto& c : inf.at("columns")) {
      formats::InferredColumn col;
      col.name = c.at("name").get<std::string>();
      auto type = DataType::Parse(c.at("type").get<std::string>());
      if (!type.ok()) return type.status();
      col.type = *type;
      col.sample = c.at("sample").get<std::string>();
      col.values = c.at("values").get<int64_t>();
      col.nulls = c.at("nulls").get<int64_t>();
      col.all_null = c.at("all_null").get<bool>();
      if (c.contains("note")) col.note = c.at("note").get<std::string>();
      s.schema.columns.push_back(std::move(col));
    }
    r->file_info.push_back(std::move(info));
    r->files.push_back(std::move(s));
  }
  r->retype.clear();
  for (const auto& [k, v] : j.at("retype").items()) r->retype[k] = v.get<std::string>();
  r->ignore = j.at("ignore").get<std::vector<std::string>>();
  const json& p = j.at("plan");
  r->plan = Plan{};
  for (const auto& e : p.at("entries")) {
    TARN_ASSIGN_OR_RETURN(PlanEntry entry, EntryFromJson(e));
    r->plan.entries.push_back(std::move(entry));
  }
  for (const auto& i : p.at("issues")) {
    ContractIssue issue;
    issue.code = i.at("code").get<std::string>();
    issue.column = i.at("column").get<std::string>();
    issue.detail = i.at("detail").get<std::string>();
    TARN_ASSIGN_OR_RETURN(issue.severity, ParseStored(i.at("severity").get<std::string>(),
                                                      IssueSeverityFromName, "issue severity"));
    if (i.contains("fields")) {
      for (const auto& [k, v] : i.at("fields").items()) issue.fields[k] = v.get<std::string>();
    }
    r->plan.issues.push_back(std::move(issue));
  }
  TARN_ASSIGN_OR_RETURN(r->plan.write_schema,
                        SchemaFromJson(p.at("write_schema").get<std::string>()));
  r->plan.ignored = p.at("ignored").get<std::vector<std::string>>();
  r->plan.fingerprint = r->fingerprint;
  r->created_uuid.reset();
  if (j.contains("created_uuid") && j.at("created_uuid").is_string()) {
    r->created_uuid = j.at("created_uuid").get<std::string>();
  }
  return Status::OK();
}

Result<ContractRecord> RecordFromRow(const Row& row) {
  ContractRecord r;
  TARN_ASSIGN_OR_RETURN(auto id, row.Text(0));
  r.id = std::string(id);
  TARN_ASSIGN_OR_RETURN(auto target, row.Text(1));
  r.target = std::string(target);
  TARN_ASSIGN_OR_RETURN(auto state, row.Text(2));
  TARN_ASSIGN_OR_RETURN(r.state, ParseStored(state, ContractStateFromName, "state"));
  TARN_ASSIGN_OR_RETURN(auto by, row.Text(3));
  r.created_by = std::string(by);
  TARN_ASSIGN_OR_RETURN(auto fp, row.Text(5));
  r.fingerprint = std::string(fp);
  TARN_ASSIGN_OR_RETURN(r.created_at_us, row.Int64(6));
  TARN_ASSIGN_OR_RETURN(r.updated_at_us, row.Int64(7));
  TARN_ASSIGN_OR_RETURN(r.expires_at_us, row.Int64(8));
  TARN_ASSIGN_OR_RETURN(auto key, row.OptionalText(9));
  if (key) r.idempotency_key = std::string(*key);
  TARN_ASSIGN_OR_RETURN(auto result, row.OptionalText(10));
  if (result) {
    TARN_ASSIGN_OR_RETURN(auto cr, CommitResultFromJson(*result));
    r.commit_result = std::move(cr);
  }
  TARN_ASSIGN_OR_RETURN(auto body, row.Text(4));
  TARN_RETURN_NOT_OK(BodyFromJson(body, &r));
  return r;
}

}  // namespace

Contract ContractRecord::ToContract() const {
  Contract c;
  c.id = id;
  c.state = state == ContractState::kCommitting ? ContractState::kWriting : state;
  c.target = target;
  c.requested_source = requested_source;
  c.schema_source = std::string(SchemaSourceName(source));
  c.mode = mode;
  c.dataset_exists = dataset.has_value();
  if (dataset) {
    c.dataset_uuid = dataset->uuid;
    c.dataset_schema_id = dataset->schema_id;
  }
  c.channel = channel;
  c.files = file_info;
  c.plan = plan.entries;
  c.issues = plan.issues;
  c.fingerprint = fingerprint;
  for (const StoredPart& p : parts) {
    c.parts.push_back(p.part);
    c.rows_written += p.part.rows;
    c.bytes_written += p.part.bytes_written;
  }
  c.created_by = created_by;
  c.created_at_us = created_at_us;
  c.updated_at_us = updated_at_us;
  c.expires_at_us = expires_at_us;
  if (state == ContractState::kCommitted) c.committed = commit_result;
  return c;
}

PlanInput ContractRecord::ToPlanInput(DatasetInfo* holder) const {
  PlanInput in;
  in.target = target;
  in.source = source;
  in.mode = mode;
  in.declared = declared;
  if (dataset) {
    holder->uuid = dataset->uuid;
    holder->schema_id = dataset->schema_id;
    holder->schema = dataset->schema;
    in.dataset = holder;
  }
  in.files = files;
  in.retype = retype;
  in.ignore = ignore;
  return in;
}

std::string BodyToJson(const ContractRecord& r) {
  json j;
  j["requested_source"] = r.requested_source;
  j["schema_source"] = std::string(SchemaSourceName(r.source));
  j["mode"] = std::string(SchemaModeName(r.mode));
  json declared = json::array();
  for (const auto& [n, t] : r.declared) declared.push_back(json::array({n, t}));
  j["declared"] = std::move(declared);
  j["channel"] = r.channel;
  j["ttl_s"] = r.ttl_s;
  if (r.dataset) {
    j["dataset"] = json{{"uuid", r.dataset->uuid},
                        {"schema_id", r.dataset->schema_id},
                        {"spec_id", r.dataset->spec_id},
                        {"schema", SchemaToJson(r.dataset->schema)},
                        {"spec", r.dataset->spec_text}};
  } else {
    j["dataset"] = nullptr;
  }
  json files = json::array();
  for (size_t i = 0; i < r.files.size() && i < r.file_info.size(); ++i) {
    const ContractFile& info = r.file_info[i];
    const formats::InferredSchema& s = r.files[i].schema;
    json cols = json::array();
    for (const auto& c : s.columns) {
      json col{{"name", c.name},     {"type", c.type.ToString()}, {"sample", c.sample},
               {"values", c.values}, {"nulls", c.nulls},          {"all_null", c.all_null}};
      if (!c.note.empty()) col["note"] = c.note;  // absent in records from before notes
      cols.push_back(std::move(col));
    }
    files.push_back(
        json{{"name", info.name},
             {"format", info.format},
             {"compression", info.compression},
             {"file_size", info.file_size},
             {"sampled_rows", info.sampled_rows},
             {"sampled_bytes", info.sampled_bytes},
             {"inferred",
              json{{"format", std::string(FormatName(s.format))},
                   {"compression", std::string(formats::InputCompressionName(s.compression))},
                   {"rows", s.rows},
                   {"sample_bytes", s.sample_bytes},
                   {"truncated", s.truncated},
                   {"delimiter", std::string(1, s.delimiter)},
                   {"header", s.header},
                   {"columns", std::move(cols)}}}});
  }
  j["files"] = std::move(files);
  json retype = json::object();
  for (const auto& [k, v] : r.retype) retype[k] = v;
  j["retype"] = std::move(retype);
  j["ignore"] = r.ignore;
  json entries = json::array();
  for (const auto& e : r.plan.entries) entries.push_back(EntryToJson(e));
  json issues = json::array();
  for (const auto& i : r.plan.issues) {
    json issue{{"code", i.code},
               {"column", i.column},
               {"detail", i.detail},
               {"severity", std::string(IssueSeverityName(i.severity))}};
    if (!i.fields.empty()) issue["fields"] = i.fields;
    issues.push_back(std::move(issue));
  }
  j["plan"] = json{{"entries", std::move(entries)},
                   {"issues", std::move(issues)},
                   {"write_schema", SchemaToJson(r.plan.write_schema)},
                   {"ignored", r.plan.ignored}};
  if (r.created_uuid) j["created_uuid"] = *r.created_uuid;
  return Dump(j);
}

Status BodyFromJson(std::string_view text, ContractRecord* r) {
  try {
    json j = json::parse(text);
    return BodyFromJsonImpl(j, r);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("stored contract body is malformed: ") + e.what());
  }
}

std::string CommitResultToJson(const UploadCommitResult& r) {
  return Dump(json{{"target", r.target},
                   {"snapshot_id", r.snapshot_id},
                   {"commit_id", r.commit_id},
                   {"rows_written", r.rows_written},
                   {"files", r.files},
                   {"bytes", r.bytes},
                   {"created_dataset", r.created_dataset}});
}

Result<UploadCommitResult> CommitResultFromJson(std::string_view text) {
  try {
    json j = json::parse(text);
    UploadCommitResult r;
    r.target = j.at("target").get<std::string>();
    r.snapshot_id = j.at("snapshot_id").get<int64_t>();
    r.commit_id = j.at("commit_id").get<std::string>();
    r.rows_written = j.at("rows_written").get<int64_t>();
    r.files = j.at("files").get<int64_t>();
    r.bytes = j.at("bytes").get<int64_t>();
    r.created_dataset = j.at("created_dataset").get<bool>();
    return r;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("stored commit result is malformed: ") + e.what());
  }
}

std::string FilesToJson(const std::vector<DataFile>& files) {
  json a = json::array();
  for (const auto& f : files) a.push_back(FileToJson(f));
  return Dump(a);
}

Result<std::vector<DataFile>> FilesFromJson(std::string_view text) {
  try {
    json a = json::parse(text);
    std::vector<DataFile> out;
    for (const auto& f : a) {
      TARN_ASSIGN_OR_RETURN(auto file, FileFromJson(f));
      out.push_back(std::move(file));
    }
    return out;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("stored part files are malformed: ") + e.what());
  }
}

Result<std::optional<ContractRecord>> LoadRecord(Transaction& tx, std::string_view id) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT id, target, state, created_by, body, "
                                              "fingerprint, created_at, updated_at, expires_at, "
                                              "idempotency_key, commit_result FROM "
                                              "upload_contracts WHERE id = ?",
                                              {id}));
  if (!row) return std::optional<ContractRecord>();
  TARN_ASSIGN_OR_RETURN(ContractRecord r, RecordFromRow(*row));
  TARN_ASSIGN_OR_RETURN(auto parts,
                        tx.Query("SELECT seq, name, row_count, bytes_read, bytes_written, "
                                 "file_count, written_at, files FROM upload_parts WHERE "
                                 "contract_id = ? ORDER BY seq",
                                 {id}));
  for (const Row& p : parts) {
    StoredPart sp;
    TARN_ASSIGN_OR_RETURN(auto seq, p.Int64(0));
    sp.part.seq = static_cast<int32_t>(seq);
    TARN_ASSIGN_OR_RETURN(auto name, p.Text(1));
    sp.part.name = std::string(name);
    TARN_ASSIGN_OR_RETURN(sp.part.rows, p.Int64(2));
    TARN_ASSIGN_OR_RETURN(sp.part.bytes_read, p.Int64(3));
    TARN_ASSIGN_OR_RETURN(sp.part.bytes_written, p.Int64(4));
    TARN_ASSIGN_OR_RETURN(auto files, p.Int64(5));
    sp.part.files = static_cast<int32_t>(files);
    TARN_ASSIGN_OR_RETURN(sp.part.written_at_us, p.Int64(6));
    TARN_ASSIGN_OR_RETURN(auto json_text, p.Text(7));
    TARN_ASSIGN_OR_RETURN(sp.files, FilesFromJson(json_text));
    r.parts.push_back(std::move(sp));
  }
  return std::optional<ContractRecord>(std::move(r));
}

Status InsertRecord(Transaction& tx, const ContractRecord& r) {
  return tx
      .Execute(
          "INSERT INTO upload_contracts (id, target, state, created_by, body, fingerprint, "
          "created_at, updated_at, expires_at, idempotency_key, commit_result) VALUES "
          "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {r.id, r.target, ContractStateName(r.state), r.created_by, BodyToJson(r), r.fingerprint,
           r.created_at_us, r.updated_at_us, r.expires_at_us,
           SqlValue::OptionalText(r.idempotency_key
                                      ? std::optional<std::string_view>(*r.idempotency_key)
                                      : std::nullopt),
           r.commit_result ? SqlValue(CommitResultToJson(*r.commit_result)) : SqlValue::Null()})
      .status();
}

Result<bool> UpdateRecord(Transaction& tx, const ContractRecord& r, ContractState expected_state) {
  TARN_ASSIGN_OR_RETURN(
      int64_t n,
      tx.Execute(
          "UPDATE upload_contracts SET state = ?, body = ?, fingerprint = ?, updated_at = ?, "
          "expires_at = ?, idempotency_key = ?, commit_result = ? WHERE id = ? AND state = ?",
          {ContractStateName(r.state), BodyToJson(r), r.fingerprint, r.updated_at_us,
           r.expires_at_us,
           SqlValue::OptionalText(r.idempotency_key
                                      ? std::optional<std::string_view>(*r.idempotency_key)
                                      : std::nullopt),
           r.commit_result ? SqlValue(CommitResultToJson(*r.commit_result)) : SqlValue::Null(),
           r.id, ContractStateName(expected_state)}));
  return n == 1;
}

Status InsertPart(Transaction& tx, std::string_view id, const StoredPart& p) {
  return tx
      .Execute(
          "INSERT INTO upload_parts (contract_id, seq, name, row_count, bytes_read, "
          "bytes_written, file_count, written_at, files) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {id, int64_t{p.part.seq}, p.part.name, p.part.rows, p.part.bytes_read,
           p.part.bytes_written, int64_t{p.part.files}, p.part.written_at_us, FilesToJson(p.files)})
      .status();
}

Status DeleteParts(Transaction& tx, std::string_view id) {
  return tx.Execute("DELETE FROM upload_parts WHERE contract_id = ?", {id}).status();
}

const std::vector<Migration>& UploadTables() {
  static const std::vector<Migration>* steps = new std::vector<Migration>{{4, "uploads", kUploads}};
  return *steps;
}

Result<std::optional<std::string>> LoadTarget(Transaction& tx, std::string_view id) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne("SELECT target FROM upload_contracts WHERE id = ?", {id}));
  if (!row) return std::optional<std::string>();
  TARN_ASSIGN_OR_RETURN(auto t, row->Text(0));
  return std::optional<std::string>(std::string(t));
}

Result<std::vector<std::string>> ListDueContracts(Transaction& tx, int64_t now_us, int64_t limit) {
  TARN_ASSIGN_OR_RETURN(
      auto rows, tx.Query("SELECT id FROM upload_contracts WHERE state IN ('proposed', 'accepted', "
                          "'writing') AND expires_at <= ? ORDER BY expires_at LIMIT ?",
                          {now_us, limit}));
  std::vector<std::string> ids;
  for (const Row& row : rows) {
    TARN_ASSIGN_OR_RETURN(auto id, row.Text(0));
    ids.emplace_back(id);
  }
  return ids;
}

}  // namespace tarn::upload::internal

#include "cli/dataset_render.h"

#include "cli/catalog_common.h"
#include "common/hex.h"
#include "table/field_path.h"
#include "table/schema_json.h"
#include "types/iceberg.h"
#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn::cli {

using nlohmann::json;

namespace {

std::string Hex(const std::string& bytes) { return "0x" + HexEncode(bytes); }

// A bound as JSON (like a scan value), or its hex when it does not decode as `type`.
json BoundJson(const DataType& type, const std::string& bytes) {
  auto col = DecodeBound(type, bytes);
  if (!col.ok()) return Hex(bytes);
  std::string text;
  AppendJsonValue(*col, 0, &text);
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Hex(bytes);
  return j;
}

json OptionalId(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }

bool SpecApplies(const DataFile& f, const PartitionSpec& spec) {
  return f.spec_id == spec.spec_id && f.partition.size() == spec.fields.size();
}

}  // namespace

// The standing source list, as the HTTP API shows it.
json SourcesJson(const std::vector<SourceRef>& sources) {
  json out = json::array();
  for (const auto& s : sources)
    out.push_back({{"dataset", s.dataset}, {"dataset_uuid", s.dataset_uuid}});
  return out;
}

json DatasetJson(const DatasetInfo& ds) {
  json schema = json::parse(SchemaToJson(ds.schema), nullptr, false);
  json fields = schema.is_object() && schema.contains("fields") ? schema["fields"] : json::array();
  json spec_fields = json::array();
  for (const PartitionField& pf : ds.spec.fields) {
    const Field* src = FindFieldById(ds.schema, pf.source_id);
    spec_fields.push_back({{"field_id", pf.field_id},
                           {"name", pf.name},
                           {"source_id", pf.source_id},
                           {"source", src ? json(src->name) : json(nullptr)},
                           {"transform", pf.transform.ToString()}});
  }
  json sort_fields = json::array();
  for (const SortField& sf : ds.sort_order.fields) {
    const Field* src = FindFieldById(ds.schema, sf.field_id);
    sort_fields.push_back({{"field_id", sf.field_id},
                           {"column", src ? json(src->name) : json(nullptr)},
                           {"direction", sf.descending ? "desc" : "asc"},
                           {"nulls", sf.nulls_first ? "first" : "last"}});
  }
  json j = {{"name", ds.name.ToString()},
            {"workspace", ds.name.workspace},
            {"collection", ds.name.collection},
            {"dataset", ds.name.dataset},
            {"uuid", ds.uuid},
            {"description", ds.description},
            {"properties", PropsJson(ds.properties)},
            {"schema_id", ds.schema_id},
            {"schema", fields},
            {"last_field_id", ds.last_field_id},
            {"partition",
             {{"spec_id", ds.spec.spec_id},
              {"text", ds.spec.ToString(ds.schema)},
              {"fields", spec_fields}}},
            {"sort_order", {{"text", ds.sort_order.ToString(ds.schema)}, {"fields", sort_fields}}},
            {"current_snapshot_id", OptionalId(ds.current_snapshot_id)},
            {"next_row_id", ds.next_row_id},
            {"total_files", ds.total_files},
            {"total_records", ds.total_records},
            {"total_bytes", ds.total_bytes},
            {"expired_through", ds.expired_through},
            {"sources", SourcesJson(ds.sources)},
            {"sources_complete", ds.sources_complete},
            {"created_at", FormatTime(ds.created_at_us)},
            {"updated_at", FormatTime(ds.updated_at_us)}};
  if (ds.dropped_at_us) j["dropped_at"] = FormatTime(*ds.dropped_at_us);
  return j;
}

json SnapshotJson(const SnapshotInfo& s) {
  // null: not recorded (no receipt), unlike a receipt that read nothing.
  json receipt = s.receipt ? json::parse(s.receipt->ToJson(), nullptr, false) : json(nullptr);
  return {{"snapshot_id", s.snapshot_id},
          {"parent_snapshot_id", OptionalId(s.parent_snapshot_id)},
          {"committed_at", FormatTime(s.committed_at_us)},
          {"committed_at_us", s.committed_at_us},
          {"author", s.author},
          {"message", s.message},
          {"operation", s.operation},
          {"user_created", s.user_created},
          {"schema_id", s.schema_id},
          {"spec_id", s.spec_id},
          {"added_files", s.added_files},
          {"deleted_files", s.deleted_files},
          {"total_files", s.total_files},
          {"added_records", s.added_records},
          {"deleted_records", s.deleted_records},
          {"total_records", s.total_records},
          {"added_bytes", s.added_bytes},
          {"deleted_bytes", s.deleted_bytes},
          {"total_bytes", s.total_bytes},
          {"idempotency_key", s.idempotency_key ? json(*s.idempotency_key) : json(nullptr)},
          {"commit_id", s.commit_id},
          {"dataset_uuid", s.dataset_uuid},
          {"receipt", receipt},
          {"idempotent_replay", s.idempotent_replay}};
}

json FileJson(const DataFile& f, int64_t deleted_rows, const Schema& schema,
              const PartitionSpec& spec) {
  json partition = json::object();
  bool named = SpecApplies(f, spec);
  for (size_t i = 0; i < f.partition.size(); ++i) {
    std::string key = named ? spec.fields[i].name : std::to_string(i);
    partition[key] = f.partition[i] ? json(*f.partition[i]) : json(nullptr);
  }
  json columns = json::object();
  Field row_id;
  row_id.name = "_tarn_row_id";
  row_id.type = DataType::Int64();
  row_id.field_id = kRowIdFieldId;
  for (const ColumnStats& st : f.columns) {
    const std::optional<FieldPath> path = FindFieldPath(schema, st.field_id);
    const Field* field = st.field_id == kRowIdFieldId ? &row_id : path ? path->field : nullptr;
    json c = {{"field_id", st.field_id}, {"values", st.value_count}, {"nulls", st.null_count}};
    if (st.nan_count) c["nans"] = *st.nan_count;
    if (st.lower) c["lower"] = field ? BoundJson(field->type, *st.lower) : json(Hex(*st.lower));
    if (st.upper) c["upper"] = field ? BoundJson(field->type, *st.upper) : json(Hex(*st.upper));
    columns[path ? path->Text() : field ? field->name : "#" + std::to_string(st.field_id)] =
        std::move(c);
  }
  json j = {{"path", f.path},
            {"format", f.format},
            {"records", f.record_count},
            {"bytes", f.file_size_bytes},
            {"spec_id", f.spec_id},
            {"partition", partition},
            {"first_row_id", f.first_row_id},
            // A compacted file stores its rows' ids: the range may have gaps.
            {"last_row_id", f.RowIdRange() ? json(f.RowIdRange()->second) : json(nullptr)},
            {"row_ids_stored", f.StoresRowIds()},
            {"deleted_rows", deleted_rows},
            {"added_snapshot_id", f.added_snapshot_id},
            {"stats_state", f.stats_pending ? "pending" : "complete"},
            {"columns", columns}};
  return j;
}

std::string PartitionText(const DataFile& f, const PartitionSpec& spec) {
  bool named = SpecApplies(f, spec);
  std::string out;
  for (size_t i = 0; i < f.partition.size(); ++i) {
    if (!out.empty()) out += "/";
    out += (named ? spec.fields[i].name : std::to_string(i)) + "=" +
           (f.partition[i] ? *f.partition[i] : "null");
  }
  return out;
}

std::string BoundText(const DataType& type, const std::optional<std::string>& bytes) {
  if (!bytes) return "";
  auto col = DecodeBound(type, *bytes);
  if (!col.ok()) return Hex(*bytes);
  return ValueText(*col, 0);
}

json ChangeSetJson(const ChangeSet& c) {
  auto files = [](const std::vector<DataFile>& v) {
    json arr = json::array();
    for (const DataFile& f : v) {
      arr.push_back({{"path", f.path},
                     {"records", f.record_count},
                     {"bytes", f.file_size_bytes},
                     {"spec_id", f.spec_id},
                     {"partition_values",
                      [&] {
                        json p = json::array();
                        for (const auto& v : f.partition) p.push_back(v ? json(*v) : json(nullptr));
                        return p;
                      }()},
                     {"first_row_id", f.first_row_id},
                     {"added_snapshot_id", f.added_snapshot_id},
                     {"removed_snapshot_id",
                      f.removed_snapshot_id ? json(*f.removed_snapshot_id) : json(nullptr)}});
    }
    return arr;
  };
  json dvs = json::array();
  for (const auto& v : c.deletion_vectors) {
    dvs.push_back({{"path", v.path},
                   {"snapshot_id", v.snapshot_id},
                   {"cardinality", v.cardinality},
                   {"removed", v.removed}});
  }
  json out = {{"from_snapshot_id", c.from_snapshot_id},
              {"to_snapshot_id", c.to_snapshot_id},
              {"added_files", files(c.added_files)},
              {"removed_files", files(c.removed_files)},
              {"deletion_vectors", dvs}};
  if (c.next_from) out["next_from"] = *c.next_from;
  return out;
}

std::string SnapshotLine(const SnapshotInfo& s) {
  return "snapshot " + std::to_string(s.snapshot_id) + " (" + s.operation +
         "): " + std::to_string(s.added_files) + " files, " + std::to_string(s.added_records) +
         " rows added, " + std::to_string(s.deleted_records) + " rows removed; dataset now " +
         std::to_string(s.total_files) + " files, " + std::to_string(s.total_records) + " rows" +
         (s.idempotent_replay ? " (idempotent replay)" : "");
}

}  // namespace tarn::cli

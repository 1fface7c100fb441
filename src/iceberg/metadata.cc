#include "iceberg/metadata.h"

#include <algorithm>
#include <set>

namespace tarn::iceberg {
namespace {

Status Invalid(const std::string& why) {
  return Status::InvalidArgument("Iceberg metadata: " + why);
}

// The top-level field ids a reader of `schema_json` sees.
std::set<int64_t> VisibleIds(const Json& schema_json) {
  std::set<int64_t> ids;
  for (const Json& f : schema_json["fields"]) ids.insert(f["id"].get<int64_t>());
  return ids;
}

}  // namespace

std::string_view SummaryOperation(std::string_view op) {
  if (op == "append" || op == "add_files") return "append";
  if (op == "delete_rows" || op == "delete_files") return "delete";
  if (op == "compact") return "replace";
  return "overwrite";
}

std::map<std::string, std::string> SnapshotSummary(const SnapshotInfo& s) {
  auto n = [](int64_t v) { return std::to_string(v); };
  return {{"operation", std::string(SummaryOperation(s.operation))},
          {"added-data-files", n(s.added_files)},
          {"deleted-data-files", n(s.deleted_files)},
          {"added-records", n(s.added_records)},
          {"deleted-records", n(s.deleted_records)},
          {"added-files-size", n(s.added_bytes)},
          {"removed-files-size", n(s.deleted_bytes)},
          {"total-data-files", n(s.total_files)},
          {"total-records", n(s.total_records)},
          {"total-files-size", n(s.total_bytes)},
          {"tarn.operation", s.operation}};
}

Result<Json> TableMetadataJson(const TableMetadata& m, std::vector<OmittedColumn>* omitted) {
  const int v = m.format_version;
  if (v < kMinFormatVersion || v > kMaxFormatVersion) {
    return Invalid("format version " + std::to_string(v) + " is not written (2 or 3)");
  }
  // Schemas, each id once; what the current one omits decides the sort order and the specs.
  Json schemas = Json::array();
  std::set<int32_t> schema_ids;
  std::set<std::string> omitted_paths;
  const Json* current_schema = nullptr;
  for (const auto& [id, schema] : m.schemas) {
    if (!schema_ids.insert(id).second) return Invalid("schema id " + std::to_string(id) + " twice");
    std::vector<OmittedColumn> left;
    TARN_ASSIGN_OR_RETURN(Json s, SchemaJson(schema, id, v, &left));
    for (OmittedColumn& o : left) {
      if (omitted_paths.insert(o.path).second) omitted->push_back(std::move(o));
    }
    schemas.push_back(std::move(s));
  }
  for (const Json& s : schemas) {
    if (s["schema-id"].get<int32_t>() == m.current_schema_id) current_schema = &s;
  }
  if (current_schema == nullptr) {
    return Invalid("the current schema " + std::to_string(m.current_schema_id) + " is not listed");
  }
  const std::set<int64_t> visible = VisibleIds(*current_schema);

  // Partition specs: every source column must be one a reader sees.
  Json specs = Json::array();
  std::set<int32_t> spec_ids;
  int32_t last_partition_id = 999;  // Iceberg's start: partition field ids begin at 1000
  for (const PartitionSpec& spec : m.specs) {
    if (!spec_ids.insert(spec.spec_id).second) {
      return Invalid("partition spec id " + std::to_string(spec.spec_id) + " twice");
    }
    for (const PartitionField& f : spec.fields) {
      last_partition_id = std::max(last_partition_id, f.field_id);
      if (spec.spec_id == m.default_spec_id && !visible.count(f.source_id)) {
        return Invalid("partition field '" + f.name + "' is computed from column " +
                       std::to_string(f.source_id) + ", which an Iceberg reader would not see");
      }
    }
    specs.push_back(Json::parse(spec.ToJson()));
  }
  if (!spec_ids.count(m.default_spec_id)) {
    return Invalid("the default partition spec " + std::to_string(m.default_spec_id) +
                   " is not listed");
  }

  // Sort orders: unsorted (0) always; the current one (1) unless it sorts by a hidden column.
  Json sort_orders = Json::array({Json::parse(SortOrder{}.ToJson())});
  int32_t default_sort_order_id = 0;
  const bool sortable = std::all_of(m.sort_order.fields.begin(), m.sort_order.fields.end(),
                                    [&](const SortField& f) { return visible.count(f.field_id); });
  if (!m.sort_order.unsorted() && sortable) {
    Json order = Json::parse(m.sort_order.ToJson());
    default_sort_order_id = order["order-id"].get<int32_t>();
    sort_orders.push_back(std::move(order));
  }

  // Snapshots by id, parents before children, one sequence number each.
  Json snapshots = Json::array();
  std::set<int64_t> snapshot_ids;
  int64_t last_sequence_number = 0;
  for (const SnapshotEntry& s : m.snapshots) {
    if (!snapshot_ids.insert(s.snapshot_id).second) {
      return Invalid("snapshot " + std::to_string(s.snapshot_id) + " twice");
    }
    if (!s.summary.count("operation")) {
      return Invalid("snapshot " + std::to_string(s.snapshot_id) + " has no operation");
    }
    Json j = {{"snapshot-id", s.snapshot_id},   {"sequence-number", s.sequence_number},
              {"timestamp-ms", s.timestamp_ms}, {"manifest-list", s.manifest_list},
              {"summary", s.summary},           {"schema-id", s.schema_id}};
    if (s.parent_snapshot_id) j["parent-snapshot-id"] = *s.parent_snapshot_id;
    if (v >= 3) {
      if (!s.first_row_id || !s.added_rows) {
        return Invalid("snapshot " + std::to_string(s.snapshot_id) +
                       " has no row lineage (format version 3)");
      }
      j["first-row-id"] = *s.first_row_id;
      j["added-rows"] = *s.added_rows;
    }
    last_sequence_number = std::max(last_sequence_number, s.sequence_number);
    snapshots.push_back(std::move(j));
  }
  Json refs = Json::object();
  if (m.current_snapshot_id) {
    if (!snapshot_ids.count(*m.current_snapshot_id)) {
      return Invalid("the current snapshot " + std::to_string(*m.current_snapshot_id) +
                     " is not listed");
    }
    refs["main"] = {{"snapshot-id", *m.current_snapshot_id}, {"type", "branch"}};
  }
  for (const auto& [name, id] : m.tags) {
    if (name == "main") return Invalid("a tag may not be named main (the branch)");
    if (!snapshot_ids.count(id)) {
      return Invalid("tag '" + name + "' names snapshot " + std::to_string(id) +
                     ", which is not listed");
    }
    refs[name] = {{"snapshot-id", id}, {"type", "tag"}};
  }
  Json snapshot_log = Json::array();
  for (const Json& s : snapshots) {
    snapshot_log.push_back(
        {{"timestamp-ms", s["timestamp-ms"]}, {"snapshot-id", s["snapshot-id"]}});
  }

  std::map<std::string, std::string> properties = m.properties;
  if (!omitted->empty()) {
    std::string names;
    for (const OmittedColumn& o : *omitted) names += (names.empty() ? "" : ",") + o.path;
    properties["tarn.iceberg.omitted-columns"] = names;
  }
  Json out = {{"format-version", v},
              {"table-uuid", m.table_uuid},
              {"location", m.location},
              {"last-sequence-number", last_sequence_number},
              {"last-updated-ms", m.last_updated_ms},
              {"last-column-id", m.last_column_id},
              {"schemas", std::move(schemas)},
              {"current-schema-id", m.current_schema_id},
              {"partition-specs", std::move(specs)},
              {"default-spec-id", m.default_spec_id},
              {"last-partition-id", last_partition_id},
              {"sort-orders", std::move(sort_orders)},
              {"default-sort-order-id", default_sort_order_id},
              {"properties", properties},
              {"snapshots", std::move(snapshots)},
              {"snapshot-log", std::move(snapshot_log)},
              {"metadata-log", Json::array()},
              {"refs", std::move(refs)}};
  if (m.current_snapshot_id) out["current-snapshot-id"] = *m.current_snapshot_id;
  if (v >= 3) out["next-row-id"] = m.next_row_id;
  return out;
}

}  // namespace tarn::iceberg

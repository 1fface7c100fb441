#include "catalog/catalog_internal.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "catalog/error_codes.h"
#include "catalog/provenance.h"
#include "table/schema_json.h"

namespace tarn::catalog_internal {

using nlohmann::json;

Status WorkspaceNotFound(std::string_view name) {
  return Status::Of(codes::kWorkspaceNotFound,
                    "workspace '" + std::string(name) + "' does not exist")
      .WithField("workspace", std::string(name));
}

Status CollectionNotFound(const CollectionName& n) {
  return Status::Of(codes::kCollectionNotFound, "collection '" + n.ToString() + "' does not exist")
      .WithField("collection", n.ToString());
}

std::string EncodeProperties(const PropertyMap& props) {
  json j = json::object();
  for (const auto& [k, v] : props) j[k] = v;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Properties as stored; a document that is not an object of strings is kCorruption.
Result<PropertyMap> DecodeProperties(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Corruption("stored properties are not a JSON object");
  PropertyMap out;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) return Status::Corruption("stored property '" + k + "' is not a string");
    out[k] = v.get<std::string>();
  }
  return out;
}

Status ValidatePropertyKeys(const PropertyMap& props) {
  for (const auto& [k, v] : props) {
    if (k.empty()) return Status::InvalidArgument("property key must not be empty");
  }
  return Status::OK();
}

Result<int64_t> WorkspaceId(Transaction& tx, std::string_view name) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT id FROM workspaces WHERE name = ?", {name}));
  if (!row) return WorkspaceNotFound(name);
  return row->Int64(0);
}

Result<int64_t> CollectionId(Transaction& tx, const CollectionName& cn) {
  TARN_ASSIGN_OR_RETURN(int64_t ws_id, WorkspaceId(tx, cn.workspace));
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT id FROM collections WHERE workspace_id = ? AND name = ?",
                            {ws_id, cn.collection}));
  if (!row) return CollectionNotFound(cn);
  return row->Int64(0);
}

Status DatasetNotFound(Transaction& tx, const DatasetName& n) {
  TARN_RETURN_NOT_OK(CollectionId(tx, CollectionName{n.workspace, n.collection}).status());
  return Status::Of(codes::kDatasetNotFound, "dataset '" + n.ToString() + "' does not exist")
      .WithField("dataset", n.ToString());
}

const char kDatasetColumns[] =
    "d.id, d.uuid, w.name, c.name, d.name, d.description, d.properties, d.schema_id, "
    "d.last_field_id, d.spec_id, d.sort_order, d.current_snapshot_id, d.next_row_id, "
    "d.total_files, d.total_records, d.total_bytes, d.expired_through, d.created_at, "
    "d.updated_at, d.dropped_at, s.schema_json, p.spec_json, d.sources";
const char kDatasetFrom[] =
    " FROM datasets d JOIN collections c ON c.id = d.collection_id"
    " JOIN workspaces w ON w.id = c.workspace_id"
    " JOIN dataset_schemas s ON s.dataset_id = d.id AND s.schema_id = d.schema_id"
    " JOIN dataset_partition_specs p ON p.dataset_id = d.id AND p.spec_id = d.spec_id";

Result<DatasetInfo> DatasetFromRow(const Row& r) {
  DatasetInfo d;
  TARN_ASSIGN_OR_RETURN(d.id, r.Int64(0));
  TARN_ASSIGN_OR_RETURN(auto uuid, r.Text(1));
  d.uuid = std::string(uuid);
  TARN_ASSIGN_OR_RETURN(auto ws, r.Text(2));
  TARN_ASSIGN_OR_RETURN(auto coll, r.Text(3));
  TARN_ASSIGN_OR_RETURN(auto name, r.Text(4));
  d.name = DatasetName{std::string(ws), std::string(coll), std::string(name)};
  TARN_ASSIGN_OR_RETURN(auto desc, r.OptionalText(5));
  if (desc) d.description = std::string(*desc);
  TARN_ASSIGN_OR_RETURN(auto props, r.Text(6));
  TARN_ASSIGN_OR_RETURN(d.properties, DecodeProperties(props));
  TARN_ASSIGN_OR_RETURN(int64_t schema_id, r.Int64(7));
  TARN_ASSIGN_OR_RETURN(int64_t last_field_id, r.Int64(8));
  d.schema_id = static_cast<int32_t>(schema_id);
  d.last_field_id = static_cast<int32_t>(last_field_id);
  TARN_ASSIGN_OR_RETURN(auto sort_json, r.Text(10));
  TARN_ASSIGN_OR_RETURN(d.sort_order, SortOrder::FromJson(sort_json));
  TARN_ASSIGN_OR_RETURN(d.current_snapshot_id, r.OptionalInt64(11));
  TARN_ASSIGN_OR_RETURN(d.next_row_id, r.Int64(12));
  TARN_ASSIGN_OR_RETURN(d.total_files, r.Int64(13));
  TARN_ASSIGN_OR_RETURN(d.total_records, r.Int64(14));
  TARN_ASSIGN_OR_RETURN(d.total_bytes, r.Int64(15));
  TARN_ASSIGN_OR_RETURN(d.expired_through, r.Int64(16));
  TARN_ASSIGN_OR_RETURN(d.created_at_us, r.Int64(17));
  TARN_ASSIGN_OR_RETURN(d.updated_at_us, r.Int64(18));
  TARN_ASSIGN_OR_RETURN(d.dropped_at_us, r.OptionalInt64(19));
  TARN_ASSIGN_OR_RETURN(auto schema_json, r.Text(20));
  TARN_ASSIGN_OR_RETURN(d.schema, SchemaFromJson(schema_json));
  TARN_ASSIGN_OR_RETURN(auto spec_json, r.Text(21));
  TARN_ASSIGN_OR_RETURN(d.spec, PartitionSpec::FromJson(spec_json));
  TARN_ASSIGN_OR_RETURN(auto sources, r.Text(22));
  provenance::SourceList list = provenance::ParseSourceList(std::string(sources));
  d.sources = std::move(list.sources);
  d.sources_complete = list.complete;
  return d;
}

Result<DatasetInfo> LoadLiveDataset(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne(std::string("SELECT ") + kDatasetColumns + kDatasetFrom +
                                        " WHERE w.name = ? AND c.name = ? AND d.name = ? AND "
                                        "d.dropped_at IS NULL",
                                    {n.workspace, n.collection, n.dataset}));
  if (!row) return DatasetNotFound(tx, n);
  return DatasetFromRow(*row);
}

Result<DatasetInfo> LockDataset(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("UPDATE datasets SET updated_at = updated_at WHERE dropped_at IS NULL AND "
                  "name = ? AND collection_id = (SELECT c.id FROM collections c JOIN workspaces "
                  "w ON w.id = c.workspace_id WHERE w.name = ? AND c.name = ?) RETURNING id",
                  {n.dataset, n.workspace, n.collection}));
  if (!row) return DatasetNotFound(tx, n);
  return LoadLiveDataset(tx, n);
}

Result<Schema> LoadSchema(Transaction& tx, int64_t dataset_id, int64_t schema_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT schema_json FROM dataset_schemas WHERE dataset_id = ? AND "
                            "schema_id = ?",
                            {dataset_id, schema_id}));
  if (!row) {
    return Status::Corruption("schema " + std::to_string(schema_id) + " of dataset " +
                              std::to_string(dataset_id) + " is missing");
  }
  TARN_ASSIGN_OR_RETURN(auto text, row->Text(0));
  return SchemaFromJson(text);
}

Result<PartitionSpec> LoadSpec(Transaction& tx, int64_t dataset_id, int64_t spec_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT spec_json FROM dataset_partition_specs WHERE dataset_id = ? "
                            "AND spec_id = ?",
                            {dataset_id, spec_id}));
  if (!row) {
    return Status::Corruption("partition spec " + std::to_string(spec_id) + " of dataset " +
                              std::to_string(dataset_id) + " is missing");
  }
  TARN_ASSIGN_OR_RETURN(auto text, row->Text(0));
  return PartitionSpec::FromJson(text);
}

Result<std::vector<PartitionSpec>> LoadSpecs(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("SELECT spec_json FROM dataset_partition_specs "
                                            "WHERE dataset_id = ? ORDER BY spec_id",
                                            {dataset_id}));
  std::vector<PartitionSpec> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto text, r.Text(0));
    TARN_ASSIGN_OR_RETURN(auto spec, PartitionSpec::FromJson(text));
    out.push_back(std::move(spec));
  }
  return out;
}

Status UseSnapshotSchema(Transaction& tx, DatasetInfo* ds, int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne("SELECT schema_id FROM snapshots WHERE dataset_id = ? AND "
                                    "snapshot_id = ?",
                                    {ds->id, snapshot_id}));
  if (!row) return Status::Internal("resolved snapshot vanished");
  TARN_ASSIGN_OR_RETURN(int64_t schema_id, row->Int64(0));
  if (schema_id != ds->schema_id) {
    TARN_ASSIGN_OR_RETURN(ds->schema, LoadSchema(tx, ds->id, schema_id));
    ds->schema_id = static_cast<int32_t>(schema_id);
  }
  return Status::OK();
}

bool IsReservedTag(std::string_view name) {
  return name == "current" || name == "previous" || name == "head" || name == "last";
}

std::string DatasetPrefix(std::string_view uuid) { return "datasets/" + std::string(uuid) + "/"; }

}  // namespace tarn::catalog_internal

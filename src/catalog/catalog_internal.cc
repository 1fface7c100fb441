#include "catalog/catalog_internal.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "catalog/error_codes.h"
#include "catalog/store.h"

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
  TARN_ASSIGN_OR_RETURN(auto id, catalog_store::WorkspaceIdByName(tx, name));
  if (!id) return WorkspaceNotFound(name);
  return *id;
}

Result<int64_t> CollectionId(Transaction& tx, const CollectionName& cn) {
  TARN_ASSIGN_OR_RETURN(int64_t ws_id, WorkspaceId(tx, cn.workspace));
  TARN_ASSIGN_OR_RETURN(auto id, catalog_store::CollectionIdByName(tx, ws_id, cn.collection));
  if (!id) return CollectionNotFound(cn);
  return *id;
}

Status DatasetNotFound(Transaction& tx, const DatasetName& n) {
  TARN_RETURN_NOT_OK(CollectionId(tx, CollectionName{n.workspace, n.collection}).status());
  return Status::Of(codes::kDatasetNotFound, "dataset '" + n.ToString() + "' does not exist")
      .WithField("dataset", n.ToString());
}

Result<DatasetInfo> LoadLiveDataset(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(auto ds, catalog_store::LiveDatasetByName(tx, n));
  if (!ds) return DatasetNotFound(tx, n);
  return std::move(*ds);
}

Result<DatasetInfo> LockDataset(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(bool locked, catalog_store::LockLiveDatasetRow(tx, n));
  if (!locked) return DatasetNotFound(tx, n);
  return LoadLiveDataset(tx, n);
}

Result<Schema> LoadSchema(Transaction& tx, int64_t dataset_id, int64_t schema_id) {
  TARN_ASSIGN_OR_RETURN(auto schema, catalog_store::SchemaById(tx, dataset_id, schema_id));
  if (!schema) {
    return Status::Corruption("schema " + std::to_string(schema_id) + " of dataset " +
                              std::to_string(dataset_id) + " is missing");
  }
  return std::move(*schema);
}

Result<PartitionSpec> LoadSpec(Transaction& tx, int64_t dataset_id, int64_t spec_id) {
  TARN_ASSIGN_OR_RETURN(auto spec, catalog_store::SpecById(tx, dataset_id, spec_id));
  if (!spec) {
    return Status::Corruption("partition spec " + std::to_string(spec_id) + " of dataset " +
                              std::to_string(dataset_id) + " is missing");
  }
  return std::move(*spec);
}

Result<std::vector<PartitionSpec>> LoadSpecs(Transaction& tx, int64_t dataset_id) {
  return catalog_store::Specs(tx, dataset_id);
}

Status UseSnapshotSchema(Transaction& tx, DatasetInfo* ds, int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(auto schema_id, catalog_store::SnapshotSchemaId(tx, ds->id, snapshot_id));
  if (!schema_id) return Status::Internal("resolved snapshot vanished");
  if (*schema_id != ds->schema_id) {
    TARN_ASSIGN_OR_RETURN(ds->schema, LoadSchema(tx, ds->id, *schema_id));
    ds->schema_id = static_cast<int32_t>(*schema_id);
  }
  return Status::OK();
}

bool IsReservedTag(std::string_view name) {
  return name == "current" || name == "previous" || name == "head" || name == "last";
}

std::string DatasetPrefix(std::string_view uuid) { return "datasets/" + std::string(uuid) + "/"; }

}  // namespace tarn::catalog_internal

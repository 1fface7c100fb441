// The catalog's statements on workspaces, collections and datasets, their schema, partition spec
// and sort order versions, the purge of a dataset's rows, and the location grants and file
// ownership checks of locations.cc (store.h), with the row mappings of workspaces, collections
// and datasets.
#include <algorithm>

#include "catalog/catalog_internal.h"
#include "catalog/provenance.h"
#include "catalog/store.h"
#include "table/schema_json.h"

namespace tarn::catalog_store {

using catalog_internal::DecodeProperties;
using catalog_internal::EncodeProperties;

namespace {

Result<std::optional<int64_t>> OptionalId(const std::optional<Row>& row) {
  if (!row) return std::optional<int64_t>();
  TARN_ASSIGN_OR_RETURN(int64_t id, row->Int64(0));
  return std::optional<int64_t>(id);
}

constexpr char kWorkspaceColumns[] =
    "w.id, w.name, w.properties, w.deletion_protection, w.egress_protection, w.created_at, "
    "w.updated_at, (SELECT COUNT(*) FROM collections c WHERE c.workspace_id = w.id)";

Result<WorkspaceInfo> WorkspaceFromRow(const Row& r) {
  WorkspaceInfo w;
  TARN_ASSIGN_OR_RETURN(w.id, r.Int64(0));
  TARN_ASSIGN_OR_RETURN(auto name, r.Text(1));
  w.name = std::string(name);
  TARN_ASSIGN_OR_RETURN(auto props, r.Text(2));
  TARN_ASSIGN_OR_RETURN(w.properties, DecodeProperties(props));
  TARN_ASSIGN_OR_RETURN(auto dp, r.OptionalText(3));
  TARN_ASSIGN_OR_RETURN(auto ep, r.OptionalText(4));
  if (dp) w.deletion_protection = std::string(*dp);
  if (ep) w.egress_protection = std::string(*ep);
  TARN_ASSIGN_OR_RETURN(w.created_at_us, r.Int64(5));
  TARN_ASSIGN_OR_RETURN(w.updated_at_us, r.Int64(6));
  TARN_ASSIGN_OR_RETURN(w.collection_count, r.Int64(7));
  return w;
}

constexpr char kCollectionColumns[] =
    "c.id, w.name, c.name, c.properties, c.created_at, c.updated_at, "
    "(SELECT COUNT(*) FROM datasets d WHERE d.collection_id = c.id AND d.dropped_at IS NULL), "
    "(SELECT COUNT(*) FROM datasets d WHERE d.collection_id = c.id AND d.dropped_at IS NOT NULL)";

Result<CollectionInfo> CollectionFromRow(const Row& r) {
  CollectionInfo c;
  TARN_ASSIGN_OR_RETURN(c.id, r.Int64(0));
  TARN_ASSIGN_OR_RETURN(auto ws, r.Text(1));
  TARN_ASSIGN_OR_RETURN(auto name, r.Text(2));
  c.workspace = std::string(ws);
  c.name = std::string(name);
  TARN_ASSIGN_OR_RETURN(auto props, r.Text(3));
  TARN_ASSIGN_OR_RETURN(c.properties, DecodeProperties(props));
  if (auto it = c.properties.find(kDescriptionProperty); it != c.properties.end()) {
    c.description = std::move(it->second);
    c.properties.erase(it);
  }
  TARN_ASSIGN_OR_RETURN(c.created_at_us, r.Int64(4));
  TARN_ASSIGN_OR_RETURN(c.updated_at_us, r.Int64(5));
  TARN_ASSIGN_OR_RETURN(c.dataset_count, r.Int64(6));
  TARN_ASSIGN_OR_RETURN(c.dropped_dataset_count, r.Int64(7));
  return c;
}

// The columns of a dataset row with its current schema and spec, over kDatasetFrom.
constexpr char kDatasetColumns[] =
    "d.id, d.uuid, w.name, c.name, d.name, d.description, d.properties, d.schema_id, "
    "d.last_field_id, d.spec_id, d.sort_order, d.current_snapshot_id, d.next_row_id, "
    "d.total_files, d.total_records, d.total_bytes, d.expired_through, d.created_at, "
    "d.updated_at, d.dropped_at, s.schema_json, p.spec_json, d.sources";
constexpr char kDatasetFrom[] =
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

// Paths a statement: SQLite's default limit is 999 parameters.
constexpr size_t kPathChunk = 400;

}  // namespace

// ---- workspaces ----

Result<std::optional<int64_t>> WorkspaceIdByName(Transaction& tx, std::string_view name) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT id FROM workspaces WHERE name = ?", {name}));
  return OptionalId(row);
}

Result<std::optional<WorkspaceInfo>> WorkspaceByName(Transaction& tx, std::string_view name) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(std::string("SELECT ") + kWorkspaceColumns +
                                                  " FROM workspaces w WHERE w.name = ?",
                                              {name}));
  if (!row) return std::optional<WorkspaceInfo>();
  TARN_ASSIGN_OR_RETURN(auto w, WorkspaceFromRow(*row));
  return std::optional<WorkspaceInfo>(std::move(w));
}

Result<std::vector<WorkspaceInfo>> Workspaces(Transaction& tx) {
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query(std::string("SELECT ") + kWorkspaceColumns +
                                            " FROM workspaces w ORDER BY w.name"));
  std::vector<WorkspaceInfo> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto w, WorkspaceFromRow(r));
    out.push_back(std::move(w));
  }
  return out;
}

Result<bool> InsertWorkspace(Transaction& tx, std::string_view name, const PropertyMap& properties,
                             std::optional<std::string_view> deletion_protection,
                             std::optional<std::string_view> egress_protection, int64_t now_us) {
  TARN_ASSIGN_OR_RETURN(
      int64_t n,
      tx.Execute("INSERT INTO workspaces (name, properties, deletion_protection, "
                 "egress_protection, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT (name) DO NOTHING",
                 {name, EncodeProperties(properties), SqlValue::OptionalText(deletion_protection),
                  SqlValue::OptionalText(egress_protection), now_us, now_us}));
  return n != 0;
}

Status UpdateWorkspaceProperties(Transaction& tx, const WorkspaceInfo& w, int64_t now_us) {
  auto opt = [](const std::optional<std::string>& s) {
    return s ? SqlValue(*s) : SqlValue::Null();
  };
  return tx
      .Execute(
          "UPDATE workspaces SET properties = ?, deletion_protection = ?, "
          "egress_protection = ?, updated_at = ? WHERE id = ?",
          {EncodeProperties(w.properties), opt(w.deletion_protection), opt(w.egress_protection),
           now_us, w.id})
      .status();
}

Status DeleteWorkspace(Transaction& tx, int64_t workspace_id) {
  return tx.Execute("DELETE FROM workspaces WHERE id = ?", {workspace_id}).status();
}

Result<std::optional<std::string>> WorkspaceDeletionProtection(Transaction& tx,
                                                               std::string_view workspace) {
  TARN_ASSIGN_OR_RETURN(
      auto ws,
      tx.QueryOne("SELECT deletion_protection FROM workspaces WHERE name = ?", {workspace}));
  std::optional<std::string> dp;
  if (ws && !ws->IsNull(0)) {
    TARN_ASSIGN_OR_RETURN(auto v, ws->Text(0));
    dp = std::string(v);
  }
  return dp;
}

// ---- collections ----

Result<std::optional<int64_t>> CollectionIdByName(Transaction& tx, int64_t workspace_id,
                                                  std::string_view name) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT id FROM collections WHERE workspace_id = ? AND name = ?",
                            {workspace_id, name}));
  return OptionalId(row);
}

Result<std::optional<StoredCollection>> StoredCollectionByName(Transaction& tx,
                                                               int64_t workspace_id,
                                                               std::string_view name) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT id, properties FROM collections WHERE workspace_id = ? AND "
                            "name = ?",
                            {workspace_id, name}));
  if (!row) return std::optional<StoredCollection>();
  StoredCollection out;
  TARN_ASSIGN_OR_RETURN(out.id, row->Int64(0));
  TARN_ASSIGN_OR_RETURN(auto props, row->Text(1));
  TARN_ASSIGN_OR_RETURN(out.properties, DecodeProperties(props));
  return std::optional<StoredCollection>(std::move(out));
}

Result<bool> InsertCollection(Transaction& tx, int64_t workspace_id, std::string_view name,
                              const PropertyMap& properties, int64_t now_us) {
  TARN_ASSIGN_OR_RETURN(
      int64_t changed,
      tx.Execute("INSERT INTO collections (workspace_id, name, properties, created_at, "
                 "updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace_id, name) DO NOTHING",
                 {workspace_id, name, EncodeProperties(properties), now_us, now_us}));
  return changed != 0;
}

Result<std::vector<CollectionInfo>> Collections(Transaction& tx, int64_t workspace_id) {
  TARN_ASSIGN_OR_RETURN(auto rows,
                        tx.Query(std::string("SELECT ") + kCollectionColumns +
                                     " FROM collections c JOIN workspaces w ON w.id = "
                                     "c.workspace_id WHERE c.workspace_id = ? ORDER BY c.name",
                                 {workspace_id}));
  std::vector<CollectionInfo> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto c, CollectionFromRow(r));
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::optional<CollectionInfo>> CollectionByName(Transaction& tx, int64_t workspace_id,
                                                       std::string_view name) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne(std::string("SELECT ") + kCollectionColumns +
                                        " FROM collections c JOIN workspaces w ON w.id = "
                                        "c.workspace_id WHERE c.workspace_id = ? AND c.name = ?",
                                    {workspace_id, name}));
  if (!row) return std::optional<CollectionInfo>();
  TARN_ASSIGN_OR_RETURN(auto c, CollectionFromRow(*row));
  return std::optional<CollectionInfo>(std::move(c));
}

Result<int64_t> CountDatasets(Transaction& tx, int64_t collection_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("SELECT COUNT(*) FROM datasets WHERE collection_id = ?", {collection_id}));
  int64_t datasets = 0;
  if (row) {
    TARN_ASSIGN_OR_RETURN(datasets, row->Int64(0));
  }
  return datasets;
}

Status DeleteCollection(Transaction& tx, int64_t collection_id) {
  return tx.Execute("DELETE FROM collections WHERE id = ?", {collection_id}).status();
}

Status UpdateCollectionProperties(Transaction& tx, int64_t collection_id,
                                  const PropertyMap& properties, int64_t now_us) {
  return tx
      .Execute("UPDATE collections SET properties = ?, updated_at = ? WHERE id = ?",
               {EncodeProperties(properties), now_us, collection_id})
      .status();
}

// ---- datasets ----

Result<std::optional<int64_t>> InsertDataset(Transaction& tx, const NewDataset& d, int64_t now_us) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("INSERT INTO datasets (uuid, collection_id, name, description, properties, "
                  "schema_id, last_field_id, spec_id, sort_order, created_at, updated_at) "
                  "VALUES (?, ?, ?, ?, ?, 0, ?, 0, ?, ?, ?) "
                  "ON CONFLICT (collection_id, name) WHERE dropped_at IS NULL DO NOTHING "
                  "RETURNING id",
                  {d.uuid, d.collection_id, d.name, d.description, EncodeProperties(d.properties),
                   int64_t{d.last_field_id}, d.sort_order.ToJson(), now_us, now_us}));
  if (!row) return std::optional<int64_t>();
  TARN_ASSIGN_OR_RETURN(int64_t id, row->Int64(0));
  TARN_RETURN_NOT_OK(tx.Execute("INSERT INTO dataset_schemas (dataset_id, schema_id, "
                                "schema_json, created_at) VALUES (?, 0, ?, ?)",
                                {id, SchemaToJson(d.schema), now_us})
                         .status());
  TARN_RETURN_NOT_OK(tx.Execute("INSERT INTO dataset_partition_specs (dataset_id, spec_id, "
                                "spec_json, created_at) VALUES (?, 0, ?, ?)",
                                {id, d.spec.ToJson(), now_us})
                         .status());
  return std::optional<int64_t>(id);
}

Result<std::optional<DatasetInfo>> LiveDatasetByName(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne(std::string("SELECT ") + kDatasetColumns + kDatasetFrom +
                                        " WHERE w.name = ? AND c.name = ? AND d.name = ? AND "
                                        "d.dropped_at IS NULL",
                                    {n.workspace, n.collection, n.dataset}));
  if (!row) return std::optional<DatasetInfo>();
  TARN_ASSIGN_OR_RETURN(auto d, DatasetFromRow(*row));
  return std::optional<DatasetInfo>(std::move(d));
}

Result<std::vector<DatasetInfo>> LiveDatasetsOf(Transaction& tx, int64_t collection_id) {
  TARN_ASSIGN_OR_RETURN(auto rows,
                        tx.Query(std::string("SELECT ") + kDatasetColumns + kDatasetFrom +
                                     " WHERE d.collection_id = ? AND d.dropped_at IS "
                                     "NULL ORDER BY d.name",
                                 {collection_id}));
  std::vector<DatasetInfo> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto d, DatasetFromRow(r));
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<DatasetNameRow>> DatasetNamesOf(Transaction& tx, int64_t collection_id) {
  std::vector<DatasetNameRow> out;
  TARN_RETURN_NOT_OK(
      tx.QueryEach("SELECT name, CASE WHEN dropped_at IS NULL THEN 0 ELSE 1 END FROM datasets "
                   "WHERE collection_id = ? ORDER BY name",
                   {collection_id}, [&](const Row& r) -> Status {
                     TARN_ASSIGN_OR_RETURN(auto name, r.Text(0));
                     TARN_ASSIGN_OR_RETURN(int64_t dropped, r.Int64(1));
                     out.push_back(DatasetNameRow{std::string(name), dropped != 0});
                     return Status::OK();
                   }));
  return out;
}

Result<bool> LockLiveDatasetRow(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("UPDATE datasets SET updated_at = updated_at WHERE dropped_at IS NULL AND "
                  "name = ? AND collection_id = (SELECT c.id FROM collections c JOIN workspaces "
                  "w ON w.id = c.workspace_id WHERE w.name = ? AND c.name = ?) RETURNING id",
                  {n.dataset, n.workspace, n.collection}));
  return row.has_value();
}

Result<bool> SiblingNamed(Transaction& tx, int64_t dataset_id, std::string_view name) {
  TARN_ASSIGN_OR_RETURN(auto clash,
                        tx.QueryOne("SELECT id FROM datasets WHERE collection_id = (SELECT "
                                    "collection_id FROM datasets WHERE id = ?) AND name = ? AND "
                                    "dropped_at IS NULL",
                                    {dataset_id, name}));
  return clash.has_value();
}

Status SetDatasetName(Transaction& tx, int64_t dataset_id, std::string_view name, int64_t now_us) {
  return tx
      .Execute("UPDATE datasets SET name = ?, updated_at = ? WHERE id = ?",
               {name, now_us, dataset_id})
      .status();
}

Result<std::vector<DatasetIncarnation>> DatasetIncarnations(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query("SELECT d.id, d.uuid, d.dropped_at FROM datasets d JOIN collections c ON c.id = "
               "d.collection_id JOIN workspaces w ON w.id = c.workspace_id WHERE w.name = ? "
               "AND c.name = ? AND d.name = ?",
               {n.workspace, n.collection, n.dataset}));
  std::vector<DatasetIncarnation> out;
  out.reserve(rows.size());
  for (const Row& r : rows) {
    DatasetIncarnation d;
    TARN_ASSIGN_OR_RETURN(d.id, r.Int64(0));
    TARN_ASSIGN_OR_RETURN(auto uuid, r.Text(1));
    d.uuid = std::string(uuid);
    d.live = r.IsNull(2);
    out.push_back(std::move(d));
  }
  return out;
}

Status MarkDatasetDropped(Transaction& tx, int64_t dataset_id, int64_t dropped_at_us,
                          int64_t updated_at_us) {
  return tx
      .Execute("UPDATE datasets SET dropped_at = ?, updated_at = ? WHERE id = ?",
               {dropped_at_us, updated_at_us, dataset_id})
      .status();
}

Status PurgeDatasetRows(Transaction& tx, int64_t dataset_id, int64_t now_us) {
  TARN_RETURN_NOT_OK(
      tx.Execute("INSERT INTO removal_ledger (dataset_id, path, reason, recorded_at) "
                 "SELECT NULL, path, 'purge', ? FROM data_files WHERE dataset_id = ? "
                 "ON CONFLICT (path) DO NOTHING",
                 {now_us, dataset_id})
          .status());
  // No foreign key keeps these (migration 18): the ledger's rows outlive the dataset naming
  // none, and its tags and vectors go before the snapshots and files they name.
  TARN_RETURN_NOT_OK(
      tx.Execute("UPDATE removal_ledger SET dataset_id = NULL WHERE dataset_id = ?", {dataset_id})
          .status());
  for (const char* table : {"tags", "consumer_offsets", "deletion_vectors", "file_bounds",
                            "inlined_files", "data_files", "snapshots", "dataset_schemas",
                            "dataset_partition_specs", "dataset_locations"}) {
    TARN_RETURN_NOT_OK(
        tx.Execute(std::string("DELETE FROM ") + table + " WHERE dataset_id = ?", {dataset_id})
            .status());
  }
  return tx.Execute("DELETE FROM datasets WHERE id = ?", {dataset_id}).status();
}

Status UpdateDatasetProperties(Transaction& tx, int64_t dataset_id, const PropertyMap& properties,
                               std::string_view description, int64_t now_us) {
  return tx
      .Execute(
          "UPDATE datasets SET properties = ?, description = ?, updated_at = ? WHERE "
          "id = ?",
          {EncodeProperties(properties), description, now_us, dataset_id})
      .status();
}

// ---- schemas, partition specs and sort orders ----

Result<std::optional<Schema>> SchemaById(Transaction& tx, int64_t dataset_id, int64_t schema_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT schema_json FROM dataset_schemas WHERE dataset_id = ? AND "
                            "schema_id = ?",
                            {dataset_id, schema_id}));
  if (!row) return std::optional<Schema>();
  TARN_ASSIGN_OR_RETURN(auto text, row->Text(0));
  TARN_ASSIGN_OR_RETURN(auto schema, SchemaFromJson(text));
  return std::optional<Schema>(std::move(schema));
}

Result<std::optional<PartitionSpec>> SpecById(Transaction& tx, int64_t dataset_id,
                                              int64_t spec_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT spec_json FROM dataset_partition_specs WHERE dataset_id = ? "
                            "AND spec_id = ?",
                            {dataset_id, spec_id}));
  if (!row) return std::optional<PartitionSpec>();
  TARN_ASSIGN_OR_RETURN(auto text, row->Text(0));
  TARN_ASSIGN_OR_RETURN(auto spec, PartitionSpec::FromJson(text));
  return std::optional<PartitionSpec>(std::move(spec));
}

Result<std::vector<PartitionSpec>> Specs(Transaction& tx, int64_t dataset_id) {
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

Result<std::optional<int64_t>> SnapshotSchemaId(Transaction& tx, int64_t dataset_id,
                                                int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne("SELECT schema_id FROM snapshots WHERE dataset_id = ? AND "
                                    "snapshot_id = ?",
                                    {dataset_id, snapshot_id}));
  return OptionalId(row);
}

Result<int64_t> MaxSchemaId(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("SELECT MAX(schema_id) FROM dataset_schemas WHERE dataset_id = ?", {dataset_id}));
  return row->Int64(0);
}

Status InsertSchema(Transaction& tx, int64_t dataset_id, int64_t schema_id, const Schema& schema,
                    int64_t now_us) {
  return tx
      .Execute(
          "INSERT INTO dataset_schemas (dataset_id, schema_id, "
          "schema_json, created_at) VALUES (?, ?, ?, ?)",
          {dataset_id, schema_id, SchemaToJson(schema), now_us})
      .status();
}

Status SetCurrentSchema(Transaction& tx, int64_t dataset_id, int64_t schema_id,
                        int32_t last_field_id, int64_t now_us) {
  return tx
      .Execute(
          "UPDATE datasets SET schema_id = ?, last_field_id = ?, updated_at = ? "
          "WHERE id = ?",
          {schema_id, int64_t{last_field_id}, now_us, dataset_id})
      .status();
}

Result<int64_t> MaxSpecId(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne("SELECT MAX(spec_id) FROM dataset_partition_specs WHERE "
                                    "dataset_id = ?",
                                    {dataset_id}));
  return row->Int64(0);
}

Status InsertSpec(Transaction& tx, int64_t dataset_id, int64_t spec_id, const PartitionSpec& spec,
                  int64_t now_us) {
  return tx
      .Execute(
          "INSERT INTO dataset_partition_specs (dataset_id, "
          "spec_id, spec_json, created_at) VALUES (?, ?, ?, ?)",
          {dataset_id, spec_id, spec.ToJson(), now_us})
      .status();
}

Status SetCurrentSpec(Transaction& tx, int64_t dataset_id, int64_t spec_id, int64_t now_us) {
  return tx
      .Execute("UPDATE datasets SET spec_id = ?, updated_at = ? WHERE id = ?",
               {spec_id, now_us, dataset_id})
      .status();
}

Status SetSortOrder(Transaction& tx, int64_t dataset_id, const SortOrder& order, int64_t now_us) {
  return tx
      .Execute("UPDATE datasets SET sort_order = ?, updated_at = ? WHERE id = ?",
               {order.ToJson(), now_us, dataset_id})
      .status();
}

// ---- location grants and file ownership ----

Result<std::optional<DatasetKey>> LiveDatasetKey(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT d.id, d.uuid FROM datasets d JOIN collections c ON c.id = "
                            "d.collection_id JOIN workspaces w ON w.id = c.workspace_id WHERE "
                            "w.name = ? AND c.name = ? AND d.name = ? AND d.dropped_at IS NULL",
                            {n.workspace, n.collection, n.dataset}));
  if (!row) return std::optional<DatasetKey>();
  DatasetKey key;
  TARN_ASSIGN_OR_RETURN(key.id, row->Int64(0));
  TARN_ASSIGN_OR_RETURN(auto uuid, row->Text(1));
  key.uuid = std::string(uuid);
  return std::optional<DatasetKey>(std::move(key));
}

Result<bool> IdempotencyKeyCommitted(Transaction& tx, int64_t dataset_id, std::string_view key) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT 1 FROM snapshots WHERE dataset_id = ? AND "
                                              "idempotency_key = ?",
                                              {dataset_id, key}));
  return row.has_value();
}

Result<std::vector<std::string>> GrantedPrefixes(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query("SELECT prefix FROM dataset_locations WHERE dataset_id = ?", {dataset_id}));
  std::vector<std::string> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto p, r.Text(0));
    out.emplace_back(p);
  }
  return out;
}

Result<std::optional<std::string>> PathOfAnotherDataset(Transaction& tx, int64_t dataset_id,
                                                        const std::vector<std::string>& paths) {
  for (size_t start = 0; start < paths.size(); start += kPathChunk) {
    size_t k = std::min(kPathChunk, paths.size() - start);
    SqlParams params;
    for (size_t i = start; i < start + k; ++i) params.push_back(paths[i]);
    params.push_back(dataset_id);
    const std::string in = Placeholders(1, k);  // (?, ?, ...)
    TARN_ASSIGN_OR_RETURN(auto hit, tx.Query("SELECT path FROM data_files WHERE path IN " + in +
                                                 " AND dataset_id <> ? LIMIT 1",
                                             params));
    if (hit.empty()) {
      TARN_ASSIGN_OR_RETURN(hit, tx.Query("SELECT path FROM removal_ledger WHERE path IN " + in +
                                              " AND deleted_at IS NULL AND (dataset_id IS NULL OR "
                                              "dataset_id <> ?) LIMIT 1",
                                          params));
    }
    if (!hit.empty()) {
      TARN_ASSIGN_OR_RETURN(auto p, hit[0].Text(0));
      return std::optional<std::string>(std::string(p));
    }
  }
  return std::optional<std::string>();
}

Result<std::vector<std::string>> OtherLiveDatasetsPrefixes(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(
      auto rows, tx.Query("SELECT l.prefix FROM dataset_locations l JOIN datasets d ON d.id = "
                          "l.dataset_id WHERE d.dropped_at IS NULL AND l.dataset_id <> ?",
                          {dataset_id}));
  std::vector<std::string> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto other, r.Text(0));
    out.emplace_back(other);
  }
  return out;
}

Status InsertLocation(Transaction& tx, int64_t dataset_id, std::string_view prefix,
                      std::string_view granted_by, int64_t now_us) {
  return tx
      .Execute(
          "INSERT INTO dataset_locations (dataset_id, prefix, granted_by, granted_at) "
          "VALUES (?, ?, ?, ?) ON CONFLICT (dataset_id, prefix) DO NOTHING",
          {dataset_id, prefix, granted_by, now_us})
      .status();
}

Result<bool> DeleteLocation(Transaction& tx, int64_t dataset_id, std::string_view prefix) {
  TARN_ASSIGN_OR_RETURN(
      int64_t changed,
      tx.Execute("DELETE FROM dataset_locations WHERE dataset_id = ? AND prefix = ?",
                 {dataset_id, prefix}));
  return changed != 0;
}

Result<std::vector<LocationGrant>> Locations(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto rows,
                        tx.Query("SELECT prefix, granted_by, granted_at FROM "
                                 "dataset_locations WHERE dataset_id = ? ORDER BY prefix",
                                 {dataset_id}));
  std::vector<LocationGrant> out;
  for (const Row& r : rows) {
    LocationGrant g;
    TARN_ASSIGN_OR_RETURN(auto p, r.Text(0));
    TARN_ASSIGN_OR_RETURN(auto by, r.Text(1));
    g.prefix = std::string(p);
    g.granted_by = std::string(by);
    TARN_ASSIGN_OR_RETURN(g.granted_at_us, r.Int64(2));
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace tarn::catalog_store

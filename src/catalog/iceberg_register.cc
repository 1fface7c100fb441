// Registering an existing Iceberg table as a dataset (docs/design/iceberg.md "Import"; tarn/
// iceberg.h): the table's metadata, manifest list, manifests and position delete files are read
// and checked first (iceberg/import.h), then the dataset is created, the table's location
// granted to it, its data files committed as add_files (checked as any add_files is) and its
// position deletes as deletion vectors. A failure after the creation drops the dataset again.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "common/discard.h"
#include "iceberg/import.h"
#include "objectstore/object_store.h"
#include "table/field_path.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

Status Unsupported(std::string_view dataset, const std::string& why) {
  return Status::Of(codes::kIcebergUnsupported, "the Iceberg table cannot be registered as '" +
                                                    std::string(dataset) + "': " + why)
      .WithField("dataset", std::string(dataset));
}

// What the import refuses as a table tarn cannot hold (kInvalidArgument) is iceberg_unsupported
// naming the dataset; corruption and I/O errors stay what they are.
Status AsRegisterError(std::string_view dataset, const Status& st) {
  if (st.kind() == ErrorKind::kInvalidArgument && st.fields().empty()) {
    return Unsupported(dataset, st.message());
  }
  return st;
}

// Every field id of `schema`, nested members included: the statistics a dataset keeps.
std::set<int32_t> FieldIds(const Schema& schema) {
  std::set<int32_t> ids;
  std::function<void(const Field&)> walk = [&](const Field& f) {
    ids.insert(f.field_id);
    for (const Field& c : f.type.children()) walk(c);
  };
  for (const Field& f : schema.fields) walk(f);
  return ids;
}

// The table as it will be committed.
struct Registration {
  iceberg::ImportedTable table;
  std::vector<DataFile> files;
  std::map<std::string, std::vector<uint64_t>> deletes;  // warehouse key -> positions
  std::string location;  // the key prefix granted ('/' ended; "" is the whole warehouse)
};

}  // namespace

Result<IcebergRegisterResult> Catalog::RegisterIcebergTable(std::string_view qualified,
                                                            const IcebergRegisterRequest& request) {
  TARN_RETURN_NOT_OK(ParseDatasetName(qualified).status());
  const int64_t limit = register_read_limit();
  auto read = [&](std::string_view uri) -> Result<std::string> {
    TARN_ASSIGN_OR_RETURN(std::string key, WarehouseKey(*warehouse_, uri));
    // Each is read whole: a huge object named as one must not be (the owner may not know).
    TARN_ASSIGN_OR_RETURN(ObjectInfo head, warehouse_->Head(key));
    if (static_cast<int64_t>(head.size) > limit) {
      return Unsupported(qualified, "'" + std::string(uri) + "' is " + std::to_string(head.size) +
                                        " bytes; a metadata, manifest or delete file is read "
                                        "whole, at most " +
                                        std::to_string(limit) + " bytes")
          .WithField("path", std::string(uri));
    }
    return warehouse_->Get(key);
  };
  auto fail = [&](const Status& st) { return AsRegisterError(qualified, st); };

  // 1. Read and check everything.
  Registration reg;
  TARN_ASSIGN_OR_RETURN(std::string metadata, read(request.metadata));
  auto table = iceberg::ParseTableMetadata(metadata);
  if (!table.ok()) return fail(table.status());
  reg.table = std::move(*table);
  const iceberg::ImportedTable& t = reg.table;
  const std::set<int32_t> ids = FieldIds(t.schema);
  std::vector<std::string> delete_files;
  if (t.current_snapshot) {
    auto list_bytes = read(t.current_snapshot->manifest_list);
    if (!list_bytes.ok()) return list_bytes.status();
    auto list = iceberg::ReadManifestList(std::move(*list_bytes));
    if (!list.ok()) return fail(list.status());
    for (const iceberg::ManifestFile& mf : *list) {
      const PartitionSpec* spec = t.FindSpec(mf.partition_spec_id);
      if (spec == nullptr) {
        return Status::Corruption("manifest " + mf.manifest_path + " names partition spec " +
                                  std::to_string(mf.partition_spec_id) +
                                  ", which the table does not list");
      }
      TARN_ASSIGN_OR_RETURN(std::string bytes, read(mf.manifest_path));
      auto entries = iceberg::ReadManifest(std::move(bytes), mf, *spec, t.schema);
      if (!entries.ok()) return fail(entries.status());
      for (iceberg::ManifestEntry& e : *entries) {
        if (e.status == iceberg::EntryStatus::kDeleted) continue;
        if (e.content == iceberg::kContentPositionDeletes) {
          delete_files.push_back(e.file_path);
          continue;
        }
        if (e.content != iceberg::kContentData) {
          return Unsupported(qualified, "it has equality deletes (" + e.file_path +
                                            "), which tarn does not represent");
        }
        if (mf.partition_spec_id != t.default_spec_id) {
          return Unsupported(qualified, "data file " + e.file_path + " follows partition spec " +
                                            std::to_string(mf.partition_spec_id) +
                                            ", not the table's default " +
                                            std::to_string(t.default_spec_id));
        }
        DataFile f;
        TARN_ASSIGN_OR_RETURN(f.path, WarehouseKey(*warehouse_, e.file_path));
        f.record_count = e.record_count;
        f.file_size_bytes = e.file_size_in_bytes;
        f.partition = std::move(e.partition);
        for (ColumnStats& st : e.stats) {
          if (ids.count(st.field_id)) f.columns.push_back(std::move(st));
        }
        reg.files.push_back(std::move(f));
      }
    }
    for (const std::string& uri : delete_files) {
      TARN_ASSIGN_OR_RETURN(std::string bytes, read(uri));
      auto positions = iceberg::ReadPositionDeletes(std::move(bytes));
      if (!positions.ok()) return fail(positions.status());
      for (auto& [data_uri, list] : *positions) {
        TARN_ASSIGN_OR_RETURN(std::string key, WarehouseKey(*warehouse_, data_uri));
        auto& into = reg.deletes[key];
        into.insert(into.end(), list.begin(), list.end());
      }
    }
    // A delete for a file the snapshot does not have is an inconsistent table.
    std::set<std::string> paths;
    for (const DataFile& f : reg.files) paths.insert(f.path);
    for (auto& [key, list] : reg.deletes) {
      if (!paths.count(key)) {
        return Status::Corruption("a position delete file names " + key +
                                  ", which is not a live data file of the snapshot");
      }
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
  }
  // The location granted: the deepest directory holding every data file (Iceberg tables may
  // keep data outside their `location`, write.data.path). GrantLocation refuses the whole
  // warehouse and tarn-managed areas.
  for (const DataFile& f : reg.files) {
    if (&f == &reg.files.front()) {
      reg.location = f.path.substr(0, f.path.rfind('/') + 1);
      continue;
    }
    size_t n = 0;  // the common prefix, cut back to its last '/'
    while (n < reg.location.size() && n < f.path.size() && reg.location[n] == f.path[n]) ++n;
    const size_t slash = n == 0 ? std::string::npos : reg.location.rfind('/', n - 1);
    reg.location.resize(slash == std::string::npos ? 0 : slash + 1);
  }

  // 2. The dataset, its location, its files, its deletes.
  DatasetDefinition def;
  def.schema = t.schema;
  def.partition_spec = t.default_spec().ToString(t.schema);
  def.description = "registered from the Iceberg table " + t.location;
  TARN_ASSIGN_OR_RETURN(DatasetInfo created, CreateDataset(qualified, def));
  IcebergRegisterResult out;
  auto undo = [&](const Status& st) -> Status {
    DiscardError(DropDataset(qualified, /*purge=*/false, created.uuid),
                 "dropping " + std::string(qualified) + " after its registration failed");
    return st;
  };
  if (!reg.files.empty()) {
    Status granted = reg.location.rfind(DatasetPrefix(created.uuid), 0) == 0
                         ? Status::OK()
                         : GrantLocation(qualified, reg.location);
    if (!granted.ok()) return undo(granted);
    DatasetCommit add;
    add.dataset = std::string(qualified);
    add.expected_uuid = created.uuid;
    add.operation = CommitOperation::kAddFiles;
    add.added = reg.files;
    add.meta = request.meta;
    for (const DataFile& f : reg.files) out.records += f.record_count;
    auto committed = Commit(std::move(add));
    if (!committed.ok()) return undo(committed.status());
    out.snapshots.push_back(*committed);
  }
  if (!reg.deletes.empty()) {
    DatasetCommit del;
    del.dataset = std::string(qualified);
    del.expected_uuid = created.uuid;
    del.operation = CommitOperation::kDeleteRows;
    for (auto& [key, list] : reg.deletes) {
      out.deleted_rows += static_cast<int64_t>(list.size());
      del.deletes.push_back({key, std::move(list)});
    }
    del.meta = request.meta;
    del.meta.idempotency_key.reset();
    auto committed = Commit(std::move(del));
    if (!committed.ok()) return undo(committed.status());
    out.snapshots.push_back(*committed);
  }
  TARN_ASSIGN_OR_RETURN(out.dataset, LoadDataset(qualified));
  out.source_snapshot_id = t.current_snapshot ? t.current_snapshot->snapshot_id : 0;
  out.files = static_cast<int64_t>(reg.files.size());
  return out;
}

}  // namespace tarn

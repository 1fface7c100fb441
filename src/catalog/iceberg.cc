// Iceberg metadata of dataset snapshots, produced on demand and kept (docs/design/iceberg.md
// "Metadata on demand, immutable, cached"; tarn/iceberg.h).
//
// For snapshot N the catalog writes, under IcebergMetadataDir(uuid, flavour):
//   <N>-m<spec>.avro         the data manifest of each partition spec: every live file of N
//   <N>-d<vector>.parquet    a position delete file per live deletion vector
//   <N>-x<spec>.avro         the delete manifest of each spec naming those files
//   <N>-list.avro            the manifest list (written after what it names)
//   <N>-<hash>.metadata.json the table metadata (written last; named by its content's hash)
// Every object's bytes follow from the catalog's state at N alone (Avro sync markers are
// derived from the names), so two servers producing the same snapshot write the same bytes. A
// snapshot's manifests are produced once: a manifest list present means they are whole. The
// metadata JSON is computed on every request (tags move, other snapshots get produced) and
// written only when no file of its hash exists. Cleanup deletes the objects of snapshots that
// are gone (ParseManifestKey, StaleManifests).
#include <algorithm>
#include <map>
#include <set>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/inlined.h"
#include "catalog/store.h"
#include "common/digest.h"
#include "common/hex.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "iceberg/position_deletes.h"
#include "iceberg/schema.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"
#include "table/deletion_vector.h"
#include "table/field_path.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

using Json = iceberg::Json;

Status Unsupported(const DatasetName& n, const std::string& why) {
  return Status::Of(codes::kIcebergUnsupported,
                    "dataset '" + n.ToString() + "' cannot be shown as an Iceberg table: " + why)
      .WithField("dataset", n.ToString());
}

// How one request names objects: the warehouse's own URIs, or a file route's base.
struct Naming {
  std::string flavour;  // the key segment of this naming's metadata files
  std::string file_base;
  std::string uuid;
  const ObjectStore* warehouse = nullptr;

  std::string Uri(std::string_view key) const {
    if (file_base.empty()) return warehouse->UriOf(key);
    // An http URL: every byte of the key but the unreserved ones and '/' percent-encoded (keys
    // of files added from outside may hold spaces, '%', '?' or '#').
    return file_base + uuid + "/" + PercentEncode(key, std::string(kUriUnreserved) + "/");
  }
};

Naming NamingFor(const IcebergRequest& req, const DatasetInfo& ds, const ObjectStore& warehouse) {
  Naming n;
  n.flavour = "v" + std::to_string(req.format_version);
  if (!req.file_base.empty()) {
    n.flavour += "-" + HexEncode(Sha256(req.file_base).substr(0, 8));
  }
  n.file_base = req.file_base;
  n.uuid = ds.uuid;
  n.warehouse = &warehouse;
  return n;
}

// A sync marker that follows from the object's key: the same snapshot gives the same bytes.
avro::SyncMarker SyncFor(std::string_view key) {
  const std::string digest = Sha256(key);
  avro::SyncMarker sync{};
  std::copy_n(digest.begin(), sync.size(), sync.begin());
  return sync;
}

// Every field id of an Iceberg schema JSON, nested members included.
void CollectIds(const Json& type, std::vector<int32_t>* ids) {
  if (!type.is_object()) return;
  if (type.contains("fields")) {
    for (const Json& f : type["fields"]) {
      ids->push_back(f["id"].get<int32_t>());
      CollectIds(f["type"], ids);
    }
  }
  if (type.contains("element")) CollectIds(type["element"], ids);
  if (type.contains("key")) CollectIds(type["key"], ids);
  if (type.contains("value")) CollectIds(type["value"], ids);
}

// The newest of `schemas` holding every source column of `spec` (a spec may be older than the
// snapshot's schema, and its columns dropped since).
const Schema* SchemaForSpec(const PartitionSpec& spec, const std::map<int32_t, Schema>& schemas,
                            int32_t preferred) {
  auto holds = [&](const Schema& s) {
    return std::all_of(spec.fields.begin(), spec.fields.end(), [&](const PartitionField& f) {
      return FindFieldPath(s, f.source_id).has_value();
    });
  };
  auto it = schemas.find(preferred);
  if (it != schemas.end() && holds(it->second)) return &it->second;
  for (auto r = schemas.rbegin(); r != schemas.rend(); ++r) {
    if (holds(r->second)) return &r->second;
  }
  return nullptr;
}

// What the catalog reads once per request.
struct DatasetState {
  DatasetInfo ds;
  std::optional<int64_t> snapshot_id;
  std::map<int32_t, Schema> schemas;  // every schema of the dataset, by id
  std::map<int32_t, PartitionSpec> specs;
  std::vector<TagInfo> tags;
};

// A position delete file written for one deletion vector, until its manifest is written.
struct DeleteFileRec {
  int64_t vector_id = 0;
  int32_t spec_id = 0;
  PartitionValues partition;
  std::string uri;
  std::string data_uri;
  int64_t size = 0;
  int64_t count = 0;
  uint64_t min_pos = 0, max_pos = 0;
};

std::string LongBound(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

// Writes one manifest per spec as entries come; a writer is opened at the first entry of its
// spec.
class ManifestSet {
 public:
  ManifestSet(ObjectStore* warehouse, const Naming& naming, std::string dir, int64_t snapshot_id,
              iceberg::ManifestContent content, char tag, const DatasetState& state,
              int32_t schema_id, std::string schema_json, std::vector<int32_t> stats_ids)
      : warehouse_(warehouse),
        naming_(naming),
        dir_(std::move(dir)),
        snapshot_id_(snapshot_id),
        content_(content),
        tag_(tag),
        state_(state),
        schema_id_(schema_id),
        schema_json_(std::move(schema_json)),
        stats_ids_(std::move(stats_ids)) {}

  Status Add(int32_t spec_id, const iceberg::ManifestEntry& entry) {
    auto it = writers_.find(spec_id);
    if (it == writers_.end()) {
      TARN_ASSIGN_OR_RETURN(auto w, Open(spec_id));
      it = writers_.emplace(spec_id, std::move(w)).first;
    }
    return it->second.writer->Add(entry);
  }

  // Closes every manifest and appends what the list names to *out.
  Status Finish(std::vector<iceberg::ManifestFile>* out) {
    for (auto& [spec_id, w] : writers_) {
      TARN_ASSIGN_OR_RETURN(iceberg::ManifestFile file, w.writer->Finish());
      file.manifest_path = naming_.Uri(w.key);
      out->push_back(std::move(file));
    }
    writers_.clear();
    return Status::OK();
  }

 private:
  struct Open_ {
    std::string key;
    std::unique_ptr<iceberg::ManifestWriter> writer;
  };

  Result<Open_> Open(int32_t spec_id) {
    auto spec = state_.specs.find(spec_id);
    if (spec == state_.specs.end()) {
      return Status::Internal("a live file names partition spec " + std::to_string(spec_id) +
                              ", which the dataset does not have");
    }
    const Schema* source = SchemaForSpec(spec->second, state_.schemas, schema_id_);
    if (source == nullptr) {
      return Unsupported(state_.ds.name, "no schema holds the source columns of partition spec " +
                                             std::to_string(spec_id));
    }
    iceberg::ManifestOptions options;
    options.format_version = 2;
    options.content = content_;
    options.schema_json = schema_json_;
    options.schema_id = schema_id_;
    options.spec = spec->second;
    options.source_schema = *source;
    options.stats_field_ids = stats_ids_;
    options.snapshot_id = snapshot_id_;
    options.sequence_number = snapshot_id_;  // tarn's snapshot ids are its sequence numbers
    Open_ out;
    out.key = dir_ + std::to_string(snapshot_id_) + "-" + tag_ + std::to_string(spec_id) + ".avro";
    options.avro.sync = SyncFor(out.key);
    TARN_ASSIGN_OR_RETURN(auto sink, warehouse_->OpenWrite(out.key));
    auto writer = iceberg::ManifestWriter::Open(std::move(sink), options);
    if (!writer.ok()) {
      // A spec the manifest cannot type (a partition over a column Iceberg cannot show).
      if (writer.status().kind() != ErrorKind::kInvalidArgument) return writer.status();
      return Unsupported(state_.ds.name, writer.status().message());
    }
    out.writer = std::move(*writer);
    return out;
  }

  ObjectStore* warehouse_;
  const Naming& naming_;
  std::string dir_;
  int64_t snapshot_id_;
  iceberg::ManifestContent content_;
  char tag_;
  const DatasetState& state_;
  int32_t schema_id_;
  std::string schema_json_;
  std::vector<int32_t> stats_ids_;
  std::map<int32_t, Open_> writers_;
};

// Writes the manifests, delete files and manifest list of snapshot `snap` (a snapshot of
// state.ds that has none yet under `naming`).
// The inlined files the metadata names are written out first (`written_out`: their paths, for
// the caller to forget; Catalog::ForgetExportedInlined).
Status ProduceSnapshot(Metastore& metastore, ObjectStore& warehouse, const DatasetState& state,
                       const SnapshotInfo& snap, const Naming& naming,
                       std::vector<std::string>* written_out) {
  const std::string dir = catalog_store::IcebergMetadataDir(state.ds.uuid, naming.flavour);
  const int64_t n = snap.snapshot_id;
  DatasetInfo at = state.ds;
  at.schema = state.schemas.at(snap.schema_id);
  at.schema_id = snap.schema_id;

  std::vector<iceberg::OmittedColumn> omitted;
  TARN_ASSIGN_OR_RETURN(Json schema_json,
                        iceberg::SchemaJson(at.schema, snap.schema_id, 2, &omitted));
  std::vector<int32_t> visible;
  CollectIds(schema_json, &visible);
  std::sort(visible.begin(), visible.end());
  ManifestSet data(&warehouse, naming, dir, n, iceberg::ManifestContent::kData, 'm', state,
                   snap.schema_id, schema_json.dump(), visible);
  std::vector<DeleteFileRec> deletes;
  const bool current = state.ds.current_snapshot_id == n;
  TARN_RETURN_NOT_OK(metastore.RunInTransaction(
      [&](Transaction& tx) -> Status {
        deletes.clear();
        written_out->clear();
        std::vector<std::string> inlined;  // written out before the metadata names them
        TARN_RETURN_NOT_OK(ForEachPlannedFile(
            tx, at, n, current, nullptr,
            [&](const PlannedFile& pf, std::optional<int64_t> vector_id) -> Status {
              const DataFile& f = pf.file;
              if (IsInlinedPath(f.path)) inlined.push_back(f.path);
              iceberg::ManifestEntry e;
              e.status = f.added_snapshot_id == n ? iceberg::EntryStatus::kAdded
                                                  : iceberg::EntryStatus::kExisting;
              e.snapshot_id = f.added_snapshot_id;
              e.sequence_number = f.added_snapshot_id;
              e.file_sequence_number = f.added_snapshot_id;
              e.file_path = naming.Uri(f.path);
              e.file_format = "PARQUET";
              e.partition = f.partition;
              e.record_count = f.record_count;
              e.file_size_in_bytes = f.file_size_bytes;
              e.stats = f.columns;
              TARN_RETURN_NOT_OK(data.Add(f.spec_id, e));
              if (!pf.deletion_vector || !vector_id) return Status::OK();
              TARN_ASSIGN_OR_RETURN(auto positions, DecodeDeletionVector(*pf.deletion_vector));
              if (positions.empty()) return Status::OK();
              DeleteFileRec d;
              d.vector_id = *vector_id;
              d.spec_id = f.spec_id;
              d.partition = f.partition;
              d.data_uri = e.file_path;
              d.count = static_cast<int64_t>(positions.size());
              d.min_pos = positions.front();
              d.max_pos = positions.back();
              const std::string key =
                  dir + std::to_string(n) + "-d" + std::to_string(*vector_id) + ".parquet";
              TARN_ASSIGN_OR_RETURN(auto bytes, iceberg::PositionDeleteFile(d.data_uri, positions));
              TARN_RETURN_NOT_OK(warehouse.Put(key, bytes, {}));
              d.uri = naming.Uri(key);
              d.size = static_cast<int64_t>(bytes.size());
              deletes.push_back(std::move(d));
              return Status::OK();
            }));
        return WriteOutInlined(tx, warehouse, inlined, written_out);
      },
      TxMode::kReadOnly));
  std::vector<iceberg::ManifestFile> manifests;
  TARN_RETURN_NOT_OK(data.Finish(&manifests));

  if (!deletes.empty()) {
    std::vector<int64_t> ids;
    for (const DeleteFileRec& d : deletes) ids.push_back(d.vector_id);
    std::map<int64_t, int64_t> added_at;
    TARN_RETURN_NOT_OK(metastore.RunInTransaction(
        [&](Transaction& tx) -> Status {
          TARN_ASSIGN_OR_RETURN(added_at, catalog_store::VectorsAddedAt(tx, state.ds.id, ids));
          return Status::OK();
        },
        TxMode::kReadOnly));
    ManifestSet del(&warehouse, naming, dir, n, iceberg::ManifestContent::kDeletes, 'x', state,
                    snap.schema_id, schema_json.dump(),
                    {iceberg::kDeletePosFieldId, iceberg::kDeleteFilePathFieldId});
    for (const DeleteFileRec& d : deletes) {
      auto it = added_at.find(d.vector_id);
      const int64_t s = it == added_at.end() ? n : it->second;
      iceberg::ManifestEntry e;
      e.status = s == n ? iceberg::EntryStatus::kAdded : iceberg::EntryStatus::kExisting;
      e.snapshot_id = s;
      e.sequence_number = s;
      e.file_sequence_number = s;
      e.content = iceberg::kContentPositionDeletes;
      e.file_path = d.uri;
      e.partition = d.partition;
      e.record_count = d.count;
      e.file_size_in_bytes = d.size;
      ColumnStats path_stats{
          iceberg::kDeleteFilePathFieldId, d.count, 0, std::nullopt, d.data_uri, d.data_uri};
      ColumnStats pos_stats{
          iceberg::kDeletePosFieldId, d.count, 0, std::nullopt, LongBound(d.min_pos),
          LongBound(d.max_pos)};
      e.stats = {pos_stats, path_stats};
      TARN_RETURN_NOT_OK(del.Add(d.spec_id, e));
    }
    TARN_RETURN_NOT_OK(del.Finish(&manifests));
  }

  iceberg::ManifestListOptions list;
  list.format_version = 2;
  list.snapshot_id = n;
  list.parent_snapshot_id = snap.parent_snapshot_id;
  list.sequence_number = n;
  const std::string list_key = dir + std::to_string(n) + "-list.avro";
  list.avro.sync = SyncFor(list_key);
  TARN_ASSIGN_OR_RETURN(auto sink, warehouse.OpenWrite(list_key));
  return iceberg::WriteManifestList(std::move(sink), list, manifests);
}

}  // namespace

Result<IcebergTableInfo> Catalog::IcebergTable(std::string_view qualified,
                                               const IcebergRequest& request) {
  TARN_ASSIGN_OR_RETURN(auto name, ParseDatasetName(qualified));
  if (request.format_version != kIcebergFormatVersion) {
    return Unsupported(name, "format version " + std::to_string(request.format_version) +
                                 " is not produced (only 2: version 3 needs Puffin deletion "
                                 "vectors, not written yet)");
  }
  // 1. What the dataset is at the snapshot asked for.
  DatasetState state;
  std::map<int64_t, SnapshotInfo> wanted;  // the asked snapshot and its tags' (<= it)
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        wanted.clear();
        state.schemas.clear();
        state.specs.clear();
        TARN_ASSIGN_OR_RETURN(state.ds, LoadLiveDataset(tx, name));
        TARN_ASSIGN_OR_RETURN(auto resolved, ResolveSnapshot(tx, state.ds, request.at));
        state.snapshot_id = resolved.snapshot_id;
        TARN_ASSIGN_OR_RETURN(int64_t max_schema, catalog_store::MaxSchemaId(tx, state.ds.id));
        for (int64_t id = 0; id <= max_schema; ++id) {
          TARN_ASSIGN_OR_RETURN(auto s, catalog_store::SchemaById(tx, state.ds.id, id));
          if (s) state.schemas.emplace(static_cast<int32_t>(id), std::move(*s));
        }
        TARN_ASSIGN_OR_RETURN(auto specs, LoadSpecs(tx, state.ds.id));
        for (PartitionSpec& s : specs) state.specs.emplace(s.spec_id, std::move(s));
        TARN_ASSIGN_OR_RETURN(state.tags, catalog_store::Tags(tx, state.ds.id));
        if (!state.snapshot_id) return Status::OK();
        std::set<int64_t> ids{*state.snapshot_id};
        for (const TagInfo& t : state.tags) {
          if (t.snapshot_id <= *state.snapshot_id && t.snapshot_id > state.ds.expired_through) {
            ids.insert(t.snapshot_id);
          }
        }
        for (int64_t id : ids) {
          TARN_ASSIGN_OR_RETURN(auto snap, catalog_store::SnapshotById(tx, state.ds.id, id));
          if (snap) wanted.emplace(id, std::move(*snap));
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  const Naming naming = NamingFor(request, state.ds, *warehouse_);
  const std::string dir = catalog_store::IcebergMetadataDir(state.ds.uuid, naming.flavour);

  // 2. The snapshots whose manifests exist under this naming.
  std::set<int64_t> produced;
  TARN_ASSIGN_OR_RETURN(auto objects, warehouse_->ListAll(dir));
  for (const ObjectInfo& o : objects) {
    std::string_view file = std::string_view(o.key).substr(dir.size());
    constexpr std::string_view kList = "-list.avro";
    if (file.size() <= kList.size() || file.substr(file.size() - kList.size()) != kList) continue;
    auto ref = catalog_store::ParseManifestKey(o.key);
    if (ref) produced.insert(ref->snapshot_id);
  }

  // 3. Produce what is missing: the asked snapshot and its tags'.
  IcebergTableInfo info;
  for (const auto& [id, snap] : wanted) {
    if (produced.count(id)) continue;
    std::vector<std::string> written_out;
    TARN_RETURN_NOT_OK(
        ProduceSnapshot(*metastore_, *warehouse_, state, snap, naming, &written_out));
    ForgetExportedInlined(written_out);
    produced.insert(id);
    if (id == state.snapshot_id) info.produced = true;
  }

  // 4. The metadata: every produced snapshot up to the asked one that still exists.
  iceberg::TableMetadata m;
  m.format_version = request.format_version;
  m.table_uuid = state.ds.uuid;
  m.location = naming.Uri(DatasetPrefix(state.ds.uuid));
  if (!m.location.empty() && m.location.back() == '/') m.location.pop_back();
  m.last_column_id = state.ds.last_field_id;
  m.sort_order = state.ds.sort_order;
  m.properties = state.ds.properties;
  m.last_updated_ms = state.ds.created_at_us / 1000;
  int32_t current_schema = state.ds.schema_id, default_spec = state.ds.spec.spec_id;
  std::vector<int64_t> listed;
  for (int64_t id : produced) {
    if (state.snapshot_id && id <= *state.snapshot_id && id > state.ds.expired_through) {
      listed.push_back(id);
    }
  }
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        m.snapshots.clear();
        for (int64_t id : listed) {
          std::optional<SnapshotInfo> snap;
          if (auto w = wanted.find(id); w != wanted.end()) {
            snap = w->second;
          } else {
            TARN_ASSIGN_OR_RETURN(snap, catalog_store::SnapshotById(tx, state.ds.id, id));
          }
          if (!snap) continue;  // expired meanwhile
          iceberg::SnapshotEntry e;
          e.snapshot_id = id;
          e.parent_snapshot_id = snap->parent_snapshot_id;
          e.sequence_number = id;
          e.timestamp_ms = snap->committed_at_us / 1000;
          e.manifest_list = naming.Uri(dir + std::to_string(id) + "-list.avro");
          e.summary = iceberg::SnapshotSummary(*snap);
          e.schema_id = snap->schema_id;
          m.snapshots.push_back(std::move(e));
          if (id == state.snapshot_id) {
            current_schema = snap->schema_id;
            default_spec = snap->spec_id;
            m.last_updated_ms = snap->committed_at_us / 1000;
          }
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  std::set<int64_t> listed_ids;
  for (const auto& e : m.snapshots) listed_ids.insert(e.snapshot_id);
  // A parent that is not listed is left out (a reader walks no further back than the list).
  for (auto& e : m.snapshots) {
    if (e.parent_snapshot_id && !listed_ids.count(*e.parent_snapshot_id)) {
      e.parent_snapshot_id.reset();
    }
  }
  // The schemas up to the newest a listed snapshot (or the current one) uses.
  int32_t max_schema = current_schema;
  for (const auto& e : m.snapshots) max_schema = std::max(max_schema, e.schema_id);
  for (const auto& [id, schema] : state.schemas) {
    if (id <= max_schema) m.schemas.emplace_back(id, schema);
  }
  m.current_schema_id = current_schema;
  int32_t max_spec = default_spec;
  for (const auto& [id, spec] : state.specs) {
    if (id <= max_spec) m.specs.push_back(spec);
  }
  m.default_spec_id = default_spec;
  if (state.snapshot_id) m.current_snapshot_id = state.snapshot_id;
  for (const TagInfo& t : state.tags) {
    if (listed_ids.count(t.snapshot_id) && t.name != "main") m.tags[t.name] = t.snapshot_id;
  }
  std::vector<iceberg::OmittedColumn> omitted;
  auto json = iceberg::TableMetadataJson(m, &omitted);
  if (!json.ok()) return Unsupported(name, json.status().message());
  info.metadata = json->dump();

  // 5. The metadata file, named by its content.
  const std::string hash = HexEncode(Sha256(info.metadata).substr(0, 8));
  const int64_t n = state.snapshot_id.value_or(0);
  const std::string key = dir + std::to_string(n) + "-" + hash + ".metadata.json";
  auto head = warehouse_->Head(key);
  if (!head.ok()) {
    if (head.status().kind() != ErrorKind::kNotFound) return head.status();
    TARN_RETURN_NOT_OK(warehouse_->Put(key, info.metadata, {}));
  }
  info.dataset = state.ds.name.ToString();
  info.dataset_uuid = state.ds.uuid;
  info.snapshot_id = state.snapshot_id;
  info.metadata_location = naming.Uri(key);
  info.snapshots.assign(listed_ids.begin(), listed_ids.end());
  for (auto& o : omitted) info.omitted.push_back({std::move(o.path), std::move(o.reason)});
  return info;
}

Result<std::optional<Catalog::DatasetObject>> Catalog::DatasetObjectOf(std::string_view uuid,
                                                                       std::string_view key) {
  std::optional<DatasetObject> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.reset();
        TARN_ASSIGN_OR_RETURN(auto name, catalog_store::LiveDatasetName(tx, uuid));
        if (!name) return Status::OK();
        out.emplace();
        out->dataset = std::move(*name);
        out->owned = key.rfind(DatasetPrefix(uuid), 0) == 0;
        if (out->owned) return Status::OK();
        TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(out->dataset));
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(auto grants, catalog_store::GrantedPrefixes(tx, ds.id));
        for (const std::string& g : grants) out->owned = out->owned || key.rfind(g, 0) == 0;
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace tarn

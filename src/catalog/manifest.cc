// Manifest export (C12; docs/design/maintenance.md "Manifest export"): the live data files of a
// snapshot as one Parquet file, written by tarn's own writer, for engines that plan from files.
//
// Both the export (Client::ExportManifest) and manifest.on_commit read the snapshot in one
// read-only transaction and stream its files (ForEachPlannedFile, the query PlanFiles runs)
// into the writer, so memory stays bounded by a row group of the manifest whatever the number
// of files. manifest.on_commit runs after the commit is durable: its failure is an alert and a
// count, never the commit's error.
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

#include "alerts/alerts.h"
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/inlined.h"
#include "catalog/store.h"
#include "common/discard.h"
#include "common/text.h"
#include "datafile/reader.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"
#include "parquet/writer.h"
#include "table/deletion_vector.h"
#include "table/field_path.h"
#include "table/schema_json.h"
#include "types/iceberg.h"
#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

struct Catalog::ManifestSettings {
  struct Entry {
    bool on = false;
    int64_t read_at_us = 0;
  };
  std::mutex mu;
  std::unordered_map<std::string, Entry> by_uuid;  // manifest.on_commit as last read
  uint64_t generation = 0;                         // moved by every ManifestSettingsChanged
  std::atomic<int64_t> failures{0};
};

std::shared_ptr<Catalog::ManifestSettings> Catalog::NewManifestSettings() {
  return std::make_shared<ManifestSettings>();
}

namespace {

// The manifest's columns, in this order (docs/design/maintenance.md "Manifest export").
enum Col : size_t {
  kPath,
  kFileFormat,
  kRecordCount,
  kFileSizeBytes,
  kSpecId,
  kPartition,
  kAddedSnapshotId,
  kFirstRowId,
  kLastRowId,
  kRowIdsStored,
  kDeletionVectorId,
  kDeletedRows,
  kDeletedPositions,
  kColumnStats,
  kStatsState,
  kColumns,
};

Schema ManifestSchema() {
  Schema s;
  auto add = [&](const char* name, DataType type, bool nullable) {
    Field f;
    f.name = name;
    f.type = std::move(type);
    f.nullable = nullable;
    f.field_id = static_cast<int32_t>(s.fields.size()) + 1;
    s.fields.push_back(std::move(f));
  };
  add("path", DataType::Varchar(), false);
  add("file_format", DataType::Varchar(), false);
  add("record_count", DataType::Int64(), false);
  add("file_size_bytes", DataType::Int64(), false);
  add("spec_id", DataType::Int32(), false);
  add("partition", DataType::Json(), true);
  add("added_snapshot_id", DataType::Int64(), false);
  add("first_row_id", DataType::Int64(), true);
  add("last_row_id", DataType::Int64(), true);
  add("row_ids_stored", DataType::Boolean(), false);
  add("deletion_vector_id", DataType::Int64(), true);
  add("deleted_rows", DataType::Int64(), false);
  add("deleted_positions", DataType::Array(DataType::Int64(), kColumns + 1, false), true);
  add("column_stats", DataType::Json(), false);
  add("stats_state", DataType::Varchar(), false);
  return s;
}

// Whether manifest.on_commit is on in `props`.
bool ManifestOn(const PropertyMap& props) {
  auto it = props.find(kManifestOnCommitProperty);
  return it != props.end() && AsciiLower(it->second) == "true";
}

void AppendOptionalInt(std::optional<int64_t> v, std::string* out) {
  if (v) {
    AppendInt64(*v, out);
  } else {
    *out += "null";
  }
}

// A bound as its canonical text (types/value_text.h), JSON-quoted; null when absent or when it
// does not decode as `type`.
void AppendBound(const DataType& type, const std::optional<std::string>& bytes, std::string* out) {
  if (!bytes) {
    *out += "null";
    return;
  }
  auto col = DecodeBound(type, *bytes);
  if (!col.ok()) {
    *out += "null";
    return;
  }
  AppendJsonString(ValueText(*col, 0), out);
}

// {"<column>":{"field_id":..,"type":..,"value_count":..,"null_count":..,"nan_count":..,
// "lower":..,"upper":..},...} in field-id order: the columns of `schema` (the snapshot's) and
// the stored row id column, STRUCT members by their dotted paths; statistics of fields the
// schema no longer has are left out.
std::string ColumnStatsJson(const DataFile& f, const Schema& schema) {
  static const DataType kInt64 = DataType::Int64();
  std::string out = "{";
  for (const ColumnStats& st : f.columns) {
    const std::optional<FieldPath> path = FindFieldPath(schema, st.field_id);
    std::string name;
    const DataType* type = nullptr;
    if (path) {
      name = path->Text();  // a STRUCT member's as `payload.status`
      type = &path->field->type;
    } else if (st.field_id == kRowIdFieldId) {
      name = kRowIdColumnName;
      type = &kInt64;
    } else {
      continue;
    }
    if (out.size() > 1) out += ',';
    AppendJsonString(name, &out);
    out += ":{\"field_id\":";
    AppendInt64(st.field_id, &out);
    out += ",\"type\":";
    AppendJsonString(type->ToString(), &out);
    out += ",\"value_count\":";
    AppendInt64(st.value_count, &out);
    out += ",\"null_count\":";
    AppendInt64(st.null_count, &out);
    out += ",\"nan_count\":";
    AppendOptionalInt(st.nan_count, &out);
    out += ",\"lower\":";
    AppendBound(*type, st.lower, &out);
    out += ",\"upper\":";
    AppendBound(*type, st.upper, &out);
    out += '}';
  }
  out += '}';
  return out;
}

// {"<partition field>":"<value text>"|null,...} named by the file's own spec (positions "0",
// "1", ... when that spec is unknown); nullopt for an unpartitioned file.
std::optional<std::string> PartitionJson(const DataFile& f,
                                         const std::map<int32_t, PartitionSpec>& specs) {
  if (f.partition.empty()) return std::nullopt;
  auto it = specs.find(f.spec_id);
  const bool named = it != specs.end() && it->second.fields.size() == f.partition.size();
  std::string out = "{";
  for (size_t i = 0; i < f.partition.size(); ++i) {
    if (i) out += ',';
    AppendJsonString(named ? it->second.fields[i].name : std::to_string(i), &out);
    out += ':';
    if (f.partition[i]) {
      AppendJsonString(*f.partition[i], &out);
    } else {
      out += "null";
    }
  }
  out += '}';
  return out;
}

// Passes what the Parquet writer writes on to the caller's function, in pieces of at least
// kPiece bytes (each may become a chunk of an HTTP response), counting them.
class CallbackStream final : public OutputStream {
 public:
  static constexpr size_t kPiece = 256 << 10;
  CallbackStream(const std::function<Status(std::string_view)>& write, int64_t* sent)
      : write_(write), sent_(sent) {}
  Status Write(const uint8_t* data, size_t n) override {
    buffer_.append(reinterpret_cast<const char*>(data), n);
    pos_ += n;
    return buffer_.size() >= kPiece ? Send() : Status::OK();
  }
  uint64_t Tell() const override { return pos_; }
  Status Close() override { return Send(); }

 private:
  Status Send() {
    if (buffer_.empty()) return Status::OK();
    *sent_ += static_cast<int64_t>(buffer_.size());
    Status st = write_(buffer_);
    buffer_.clear();
    return st;
  }
  const std::function<Status(std::string_view)>& write_;
  int64_t* sent_;
  std::string buffer_;
  uint64_t pos_ = 0;
};

// Builds the manifest's rows a batch at a time and hands them to the Parquet writer.
class ManifestWriter {
 public:
  static constexpr int64_t kBatchRows = 1024;

  static Result<std::unique_ptr<ManifestWriter>> Open(std::unique_ptr<OutputStream> sink,
                                                      std::vector<parquet::KeyValue> meta) {
    parquet::WriterOptions options;
    options.row_group_rows = 8 * kBatchRows;
    options.row_group_bytes = 32ll << 20;
    options.threads = 1;
    options.key_value_metadata = std::move(meta);
    auto out = std::unique_ptr<ManifestWriter>(new ManifestWriter());
    TARN_ASSIGN_OR_RETURN(out->writer_,
                          parquet::FileWriter::Open(std::move(sink), out->schema_, options));
    out->Reset();
    return out;
  }

  Status Add(const PlannedFile& pf, std::optional<int64_t> vector_id, const Schema& schema,
             const std::map<int32_t, PartitionSpec>& specs) {
    const DataFile& f = pf.file;
    std::vector<Column>& c = batch_.columns;
    c[kPath].AppendBytes(f.path);
    c[kFileFormat].AppendBytes(f.format);
    c[kRecordCount].AppendFixed<int64_t>(f.record_count);
    c[kFileSizeBytes].AppendFixed<int64_t>(f.file_size_bytes);
    c[kSpecId].AppendFixed<int32_t>(f.spec_id);
    if (auto p = PartitionJson(f, specs)) {
      c[kPartition].AppendBytes(*p);
    } else {
      c[kPartition].AppendNull();
    }
    c[kAddedSnapshotId].AppendFixed<int64_t>(f.added_snapshot_id);
    if (auto range = f.RowIdRange()) {
      c[kFirstRowId].AppendFixed<int64_t>(range->first);
      c[kLastRowId].AppendFixed<int64_t>(range->second);
    } else {
      c[kFirstRowId].AppendNull();
      c[kLastRowId].AppendNull();
    }
    c[kRowIdsStored].AppendFixed<uint8_t>(f.StoresRowIds() ? 1 : 0);
    if (vector_id) {
      c[kDeletionVectorId].AppendFixed<int64_t>(*vector_id);
    } else {
      c[kDeletionVectorId].AppendNull();
    }
    c[kDeletedRows].AppendFixed<int64_t>(pf.deleted_rows);
    if (pf.deletion_vector) {
      TARN_ASSIGN_OR_RETURN(auto positions, DecodeDeletionVector(*pf.deletion_vector));
      for (uint64_t p : positions) c[kDeletedPositions].child->AppendFixed<int64_t>(int64_t(p));
      c[kDeletedPositions].AppendArrayRow();
    } else {
      c[kDeletedPositions].AppendNull();
    }
    c[kColumnStats].AppendBytes(ColumnStatsJson(f, schema));
    c[kStatsState].AppendBytes(f.stats_pending ? "pending" : "complete");
    ++rows_;
    if (++batch_.num_rows >= kBatchRows) return Flush();
    return Status::OK();
  }

  // Writes what is left and the footer, and closes the sink: only then is the manifest whole.
  Status Close() {
    TARN_RETURN_NOT_OK(Flush());
    return writer_->Close();
  }
  int64_t rows() const { return rows_; }

 private:
  ManifestWriter() : schema_(ManifestSchema()) {}
  void Reset() {
    batch_ = RecordBatch();
    batch_.schema = schema_;
    for (const Field& f : schema_.fields) batch_.columns.emplace_back(f.type);
  }
  Status Flush() {
    if (batch_.num_rows == 0) return Status::OK();
    TARN_RETURN_NOT_OK(writer_->Write(batch_));
    Reset();
    return Status::OK();
  }

  Schema schema_;
  std::unique_ptr<parquet::FileWriter> writer_;
  RecordBatch batch_;
  int64_t rows_ = 0;
};

Status NoSnapshotYet(const DatasetInfo& ds) {
  return Status::Of(codes::kSnapshotNotFound,
                    "dataset '" + ds.name.ToString() + "' has no snapshot yet")
      .WithField("dataset", ds.name.ToString());
}

// Writes the manifest of `ds` at `snapshot_id` (a snapshot it has) into the sink `open` returns,
// inside the read transaction `tx`, and closes it. The inlined files it names are written out
// to `files` (the warehouse) first, so that a reader of the manifest finds every file; their
// paths are `written_out`, for the caller to forget after the transaction
// (ForgetWrittenOut).
Status WriteManifest(Transaction& tx, ObjectStore& files, const DatasetInfo& ds,
                     int64_t snapshot_id,
                     const std::function<Result<std::unique_ptr<OutputStream>>()>& open,
                     ManifestInfo* info, std::vector<std::string>* written_out) {
  written_out->clear();  // this attempt's
  TARN_ASSIGN_OR_RETURN(auto found, catalog_store::SnapshotById(tx, ds.id, snapshot_id));
  if (!found) return Status::Internal("resolved snapshot vanished");
  SnapshotInfo snap = std::move(*found);
  DatasetInfo at = ds;  // the snapshot's schema names the columns of its statistics
  if (snap.schema_id != ds.schema_id) {
    TARN_ASSIGN_OR_RETURN(at.schema, LoadSchema(tx, ds.id, snap.schema_id));
    at.schema_id = snap.schema_id;
  }
  TARN_ASSIGN_OR_RETURN(auto all_specs, LoadSpecs(tx, ds.id));
  std::map<int32_t, PartitionSpec> specs;
  std::string specs_json = "[";
  for (auto& spec : all_specs) {
    if (specs_json.size() > 1) specs_json += ',';
    specs_json += spec.ToJson();
    specs.emplace(spec.spec_id, std::move(spec));
  }
  specs_json += ']';
  std::vector<parquet::KeyValue> meta = {
      {"tarn.manifest.version", std::to_string(kManifestFormatVersion)},
      {"tarn.dataset", ds.name.ToString()},
      {"tarn.dataset_uuid", ds.uuid},
      {"tarn.snapshot_id", std::to_string(snapshot_id)},
      {"tarn.committed_at_us", std::to_string(snap.committed_at_us)},
      {"tarn.schema_id", std::to_string(snap.schema_id)},
      {"tarn.dataset_schema", SchemaToJson(at.schema)},
      {"tarn.spec_id", std::to_string(snap.spec_id)},
      {"tarn.partition_specs", specs_json},
  };
  TARN_ASSIGN_OR_RETURN(auto sink, open());
  TARN_ASSIGN_OR_RETURN(auto writer, ManifestWriter::Open(std::move(sink), std::move(meta)));
  const bool current = ds.current_snapshot_id == snapshot_id;
  std::vector<std::string> inlined;  // written out before the manifest that names them
  TARN_RETURN_NOT_OK(
      ForEachPlannedFile(tx, at, snapshot_id, current, nullptr,
                         [&](const PlannedFile& f, std::optional<int64_t> vector_id) {
                           if (IsInlinedPath(f.file.path)) inlined.push_back(f.file.path);
                           return writer->Add(f, vector_id, at.schema, specs);
                         }));
  TARN_RETURN_NOT_OK(WriteOutInlined(tx, files, inlined, written_out));
  TARN_RETURN_NOT_OK(writer->Close());
  info->dataset = ds.name.ToString();
  info->dataset_uuid = ds.uuid;
  info->snapshot_id = snapshot_id;
  info->files = writer->rows();
  return Status::OK();
}

// Whether this process acts on manifest.on_commit (TARN_MANIFEST_ON_COMMIT is not "0"): an
// operator's switch, and how the metastore fault suite counts a commit's statements alone.
bool ManifestsOnCommitEnabled() {
  const char* v = std::getenv("TARN_MANIFEST_ON_COMMIT");
  return !(v && std::string_view(v) == "0");
}

// The alert of a manifest manifest.on_commit owed (or, when reading the setting failed, may
// have owed) and did not write.
void ReportManifestFailure(alerts::Alerter* alerter, const std::string& dataset,
                           int64_t snapshot_id, bool known_on, const Status& error) {
  DiscardError(error, "writing the manifest of snapshot " + std::to_string(snapshot_id) + " of " +
                          dataset + " (manifest.on_commit)");
  if (alerter == nullptr) return;
  alerts::Alert alert;
  alert.code = "manifest_write_failed";
  alert.severity = alerts::Severity::kError;
  alert.object = dataset;
  alert.summary = "the manifest of snapshot " + std::to_string(snapshot_id) + " of " + dataset +
                  (known_on ? " (manifest.on_commit) was not written: "
                            : " may be missing (whether manifest.on_commit is on could not be "
                              "read): ") +
                  error.ToString();
  alert.detail = {{"snapshot_id", std::to_string(snapshot_id)}, {"error", error.ToString()}};
  alerter->Raise(alert);
}

}  // namespace

Status catalog_internal::ValidateManifestSetting(const PropertyMap& props) {
  auto it = props.find(kManifestOnCommitProperty);
  if (it == props.end()) return Status::OK();
  const std::string v = AsciiLower(it->second);
  if (v == "true" || v == "false") return Status::OK();
  return Status::Of(codes::kInvalidProperty, std::string(kManifestOnCommitProperty) +
                                                 " must be true or false, not '" + it->second + "'")
      .WithField("property", kManifestOnCommitProperty);
}

Result<ManifestInfo> Catalog::ExportManifest(
    std::string_view qualified, const SnapshotSelector& at,
    const std::function<Status(std::string_view bytes)>& write) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  ManifestInfo info;
  int64_t sent = 0;
  std::vector<std::string> written_out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        // A read-only transaction is retried only on a lost race, which it cannot have; if one
        // ever is, bytes already sent cannot be taken back.
        if (sent > 0) return Status::Unavailable("the manifest export was retried part-way");
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(auto resolved, ResolveSnapshot(tx, ds, at));
        if (!resolved.snapshot_id) return NoSnapshotYet(ds);
        return WriteManifest(
            tx, *warehouse_, ds, *resolved.snapshot_id,
            [&]() -> Result<std::unique_ptr<OutputStream>> {
              std::unique_ptr<OutputStream> sink = std::make_unique<CallbackStream>(write, &sent);
              return sink;
            },
            &info, &written_out);
      },
      TxMode::kReadOnly));
  ForgetExportedInlined(written_out);
  info.bytes = sent;
  return info;
}

void Catalog::ForgetExportedInlined(const std::vector<std::string>& written_out) {
  // Best effort: bytes still kept are only written out again by the next export.
  DiscardError(ForgetWrittenOut(*metastore_, warehouse_files(), written_out),
               "forgetting the bytes of inlined files a manifest or Iceberg metadata wrote out");
}

int64_t Catalog::manifest_write_failures() const { return manifest_settings_->failures.load(); }

Result<bool> Catalog::RefreshManifest(std::string_view qualified, bool rewrite) {
  if (!ManifestsOnCommitEnabled()) return false;
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  bool written = false;
  int64_t snapshot_id = 0;
  std::vector<std::string> written_out;
  Status st = metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        written = false;
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        if (!ManifestOn(ds.properties) || !ds.current_snapshot_id) return Status::OK();
        snapshot_id = *ds.current_snapshot_id;
        const std::string key = ManifestKey(ds.uuid, snapshot_id);
        if (!rewrite) {
          auto head = warehouse_->Head(key);
          if (head.ok()) return Status::OK();
          if (head.status().kind() != ErrorKind::kNotFound) return head.status();
        }
        ManifestInfo info;
        TARN_RETURN_NOT_OK(WriteManifest(
            tx, *warehouse_, ds, snapshot_id, [&] { return warehouse_->OpenWrite(key); }, &info,
            &written_out));
        written = true;
        return Status::OK();
      },
      TxMode::kReadOnly);
  if (st.ok()) {
    ForgetExportedInlined(written_out);
    return written;
  }
  if (snapshot_id > 0) {  // owed and not written (not: a dataset that is gone)
    manifest_settings_->failures.fetch_add(1);
    ReportManifestFailure(alerter_.get(), n.ToString(), snapshot_id, true, st);
  }
  return st;
}

void Catalog::ManifestSettingsChanged() {
  std::lock_guard<std::mutex> lock(manifest_settings_->mu);
  manifest_settings_->by_uuid.clear();
  ++manifest_settings_->generation;
}

void Catalog::WriteCommitManifests(const std::vector<DatasetCommit>& parts,
                                   const std::vector<SnapshotInfo>& snapshots) {
  if (!ManifestsOnCommitEnabled()) return;
  ManifestSettings& settings = *manifest_settings_;
  for (size_t i = 0; i < snapshots.size() && i < parts.size(); ++i) {
    const SnapshotInfo& s = snapshots[i];
    // A replay's snapshot had its manifest written (or alerted) by its first commit.
    if (s.idempotent_replay || s.snapshot_id <= 0 || s.dataset_uuid.empty()) continue;
    const int64_t now = clock_->NowMicros();
    uint64_t generation = 0;
    bool known = false, on = false;
    {
      std::lock_guard<std::mutex> lock(settings.mu);
      generation = settings.generation;
      auto it = settings.by_uuid.find(s.dataset_uuid);
      if (it != settings.by_uuid.end() && now - it->second.read_at_us < kManifestSettingTtlUs) {
        known = true;
        on = it->second.on;
      }
    }
    if (known && !on) continue;
    // Read and written in one snapshot of the metastore: the dataset (by its incarnation, so a
    // rename since the commit does not matter), its property, the snapshot, its files.
    std::string dataset = parts[i].dataset;
    bool read = false;  // whether `on` was read from the metastore
    std::vector<std::string> written_out;
    Status st = metastore_->RunInTransaction(
        [&](Transaction& tx) -> Status {
          read = false;
          TARN_ASSIGN_OR_RETURN(auto name, catalog_store::LiveDatasetName(tx, s.dataset_uuid));
          on = false;
          if (!name) return Status::OK();  // dropped since: no manifest is owed
          dataset = *name;
          TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(*name));
          TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
          on = ManifestOn(ds.properties);
          read = true;
          if (!on) return Status::OK();
          TARN_ASSIGN_OR_RETURN(bool snap, catalog_store::SnapshotExists(tx, ds.id, s.snapshot_id));
          if (!snap) return Status::OK();  // expired since: no manifest is owed
          ManifestInfo info;
          const std::string key = ManifestKey(s.dataset_uuid, s.snapshot_id);
          return WriteManifest(
              tx, *warehouse_, ds, s.snapshot_id, [&] { return warehouse_->OpenWrite(key); }, &info,
              &written_out);
        },
        TxMode::kReadOnly);
    if (st.ok()) {
      ForgetExportedInlined(written_out);
      std::lock_guard<std::mutex> lock(settings.mu);
      // A change of the setting while it was read leaves it to be read again.
      if (settings.generation == generation) {
        if (settings.by_uuid.size() >= 100'000) settings.by_uuid.clear();
        settings.by_uuid[s.dataset_uuid] = {on, now};
      }
      continue;
    }
    settings.failures.fetch_add(1);
    ReportManifestFailure(alerter_.get(), dataset, s.snapshot_id, read || known, st);
  }
}

}  // namespace tarn

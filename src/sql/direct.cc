#include "sql/direct.h"

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "datafile/reader.h"
#include "sql/quote.h"
#include "tarn/view.h"

namespace tarn::sql {

namespace {

// Past this many files a dataset reads through tarn_scan: the file list is a literal of the
// query's text and of DuckDB's allowed paths.
constexpr size_t kMaxDirectFiles = 10000;
constexpr const char* kGlobCharacters = "*?[{\\";

// DuckDB's name of `type` when DuckDB's Parquet reader reads tarn's encoding of it as the same
// DuckDB type tarn_scan declares (sql/vectors.h), else nullopt. IPV4 and JSON (tarn_scan turns
// them into text), TIME, ARRAY and timestamps of other units than microseconds read tarn_scan.
std::optional<std::string> DirectTypeName(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return "BOOLEAN";
    case TypeId::kInt8:
      return "TINYINT";
    case TypeId::kInt16:
      return "SMALLINT";
    case TypeId::kInt32:
      return "INTEGER";
    case TypeId::kInt64:
      return "BIGINT";
    case TypeId::kUInt8:
      return "UTINYINT";
    case TypeId::kUInt16:
      return "USMALLINT";
    case TypeId::kUInt32:
      return "UINTEGER";
    case TypeId::kUInt64:
      return "UBIGINT";
    case TypeId::kFloat32:
      return "FLOAT";
    case TypeId::kFloat64:
      return "DOUBLE";
    case TypeId::kDecimal:
      return "DECIMAL(" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) +
             ")";
    case TypeId::kVarchar:
      return "VARCHAR";
    case TypeId::kBlob:
      return "BLOB";
    case TypeId::kDate:
      return "DATE";
    case TypeId::kTimestamp:
      if (type.unit() == TimeUnit::kMicro) return "TIMESTAMP";
      return std::nullopt;
    case TypeId::kTimestampTz:
      return "TIMESTAMPTZ";
    case TypeId::kUuid:
      return "UUID";
    default:
      return std::nullopt;
  }
}

}  // namespace

Result<std::optional<std::string>> DirectReadSource(QuerySession& session,
                                                    const ResolvedDataset& ds) {
  const std::optional<std::string> tarn_scan;
  if (session.direct_root.empty() || !session.warehouse || !ds.snapshot_id) return tarn_scan;
  const Schema& schema = ds.info.schema;
  // The columns as tarn_scan declares them: every field but an MV's lineage column.
  std::string map;
  for (const Field& f : schema.fields) {
    if (f.name == kSourceRowIdColumn) continue;
    auto name = DirectTypeName(f.type);
    if (!name) return tarn_scan;
    map += std::string(map.empty() ? "" : ", ") + std::to_string(f.field_id) +
           ": {name: " + QuoteLiteral(f.name) + ", type: '" + *name + "', default_value: NULL}";
  }
  if (map.empty()) return tarn_scan;
  std::vector<DataFile> files;
  SnapshotSelector pinned;
  pinned.snapshot_id = ds.snapshot_id;
  bool deletes = false;
  TARN_RETURN_NOT_OK(session.client->PlanFiles(ds.name, pinned, "", [&](const PlannedFile& f) {
    deletes = deletes || f.deletion_vector.has_value() || f.deleted_rows > 0;
    files.push_back(f.file);
    return Status::OK();
  }));
  if (deletes || files.empty() || files.size() > kMaxDirectFiles) return tarn_scan;
  // DuckDB expands glob characters in a path (a registered file named "a[1].parquet" would
  // read "a1.parquet"): such a file is read by tarn.
  for (const DataFile& file : files) {
    if (file.path.find_first_of(kGlobCharacters) != std::string::npos) return tarn_scan;
  }
  // An inlined file (docs/design/catalog-core.md "Inlined appends") is read by tarn until it is
  // written out: the object appears whole (the local store renames it into place) before the
  // metastore forgets its bytes, so a file on disk is the file.
  for (const DataFile& file : files) {
    if (IsInlinedPath(file.path) &&
        !std::filesystem::exists(session.direct_root + "/" + file.path)) {
      return tarn_scan;
    }
  }
  // Every file must hold each column as tarn_scan would read it: by field id, of the schema's
  // type or one that widens to it (DuckDB's cast of a widening is exact), or absent (NULL).
  // The footers are read on the query's threads.
  auto exact = [&](const DataFile& file) {
    auto columns = InspectDataFile(*session.warehouse, file, schema);
    if (!columns.ok() || !columns->by_field_id) return false;
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      if (schema.fields[i].name == kSourceRowIdColumn) continue;
      const FileColumnMatch m = columns->fields[i];
      if (m == FileColumnMatch::kUnreadable) return false;
      if (m == FileColumnMatch::kWidened && !DirectTypeName(columns->file_types[i])) return false;
    }
    return true;
  };
  std::atomic<size_t> next{0};
  std::atomic<bool> all_exact{true};
  auto work = [&] {
    for (size_t i = next++; i < files.size() && all_exact; i = next++) {
      if (!exact(files[i])) all_exact = false;
    }
  };
  std::vector<std::thread> helpers;
  const size_t extra = std::min<size_t>(files.size() / 8, std::max(1, session.threads) - 1);
  for (size_t t = 0; t < extra; ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
  if (!all_exact) return tarn_scan;
  std::vector<std::string> paths;
  for (const DataFile& file : files) paths.push_back(session.direct_root + "/" + file.path);
  {
    std::lock_guard<std::mutex> lock(session.mu);
    session.direct_paths.insert(session.direct_paths.end(), paths.begin(), paths.end());
  }
  return std::optional<std::string>("read_parquet(" + QuoteList(paths) + ", schema := MAP {" + map +
                                    "}, hive_partitioning := false)");
}

}  // namespace tarn::sql

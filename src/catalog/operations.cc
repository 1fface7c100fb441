// The data operations built on Commit: append (tarn writes the Parquet), add_files (stats from
// footers), delete_rows (deletion vectors from a predicate) and rollback.
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "datafile/reader.h"
#include "datafile/writer.h"
#include "objectstore/object_store.h"
#include "table/deletion_vector.h"
#include "table/predicate.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

// How often DeleteRows re-plans after losing a race to another commit.
constexpr int kDeleteAttempts = 8;

void DeleteQuietly(ObjectStore& store, const std::vector<DataFile>& files) {
  std::vector<std::string> keys;
  for (const auto& f : files) keys.push_back(f.path);
  if (!keys.empty()) (void)store.DeleteMany(keys);
}

}  // namespace

// The warehouse key of `path`: a key relative to the warehouse root, or a URI / absolute path
// inside the warehouse. Anything else is refused (no file outside the warehouse is ever
// registered).
Result<std::string> WarehouseKey(const ObjectStore& warehouse, std::string_view path) {
  auto outside = [&] {
    // The warehouse's own URI stays out of the message: it is the server's (issue 14).
    return Status::InvalidArgument("path '" + std::string(path.substr(0, 500)) +
                                   "' is outside the warehouse")
        .WithField("code", "path_outside_warehouse")
        .WithField("path", std::string(path.substr(0, 500)));
  };
  std::string root = warehouse.uri();
  while (!root.empty() && root.back() == '/') root.pop_back();
  std::string key;
  if (path.find("://") != std::string_view::npos || (!path.empty() && path.front() == '/')) {
    std::string p(path);
    // file:///x and /x name the same local path.
    auto strip_file = [](std::string s) { return s.rfind("file://", 0) == 0 ? s.substr(7) : s; };
    std::string r = strip_file(root), q = strip_file(p);
    if (q.size() <= r.size() + 1 || q.compare(0, r.size(), r) != 0 || q[r.size()] != '/') {
      return outside();
    }
    key = q.substr(r.size() + 1);
  } else {
    key = std::string(path);
  }
  if (key.empty() || key.find("..") != std::string::npos || key.front() == '/') return outside();
  return key;
}

namespace {

// The dataset an append writes to, checked before any byte is written.
Result<DatasetInfo> PrepareAppend(Catalog& cat, std::string_view qualified, const CommitMeta& meta,
                                  CommitOperation op,
                                  const std::optional<std::string>& expected_uuid) {
  if (op != CommitOperation::kAppend && op != CommitOperation::kOverwrite) {
    return Status::InvalidArgument("Append writes rows for append or overwrite only");
  }
  if (meta.author.empty()) {
    return Status::InvalidArgument("a commit needs an author").WithField("code", "author_required");
  }
  TARN_ASSIGN_OR_RETURN(auto ds, cat.LoadDataset(qualified));
  if (expected_uuid && *expected_uuid != ds.uuid) {
    return Status::Stale("dataset '" + ds.name.ToString() + "' was recreated (its uuid is " +
                         ds.uuid + ", expected " + *expected_uuid + ")")
        .WithField("code", "incarnation_changed")
        .WithField("dataset", ds.name.ToString());
  }
  return ds;
}

Status WriteChunk(Catalog& cat, const DatasetInfo& ds, const std::vector<RecordBatch>& batches,
                  std::vector<DataFile>* files) {
  DataWriteOptions options;
  options.prefix = DatasetPrefix(ds.uuid) + "data/";
  TARN_ASSIGN_OR_RETURN(auto written, WriteDataFiles(cat.warehouse(), ds.schema, ds.spec,
                                                     ds.sort_order, batches, options));
  for (auto& f : written) files->push_back(std::move(f));
  return Status::OK();
}

// Commits the written files as one snapshot; on failure they are deleted.
Result<SnapshotInfo> FinishAppend(Catalog& cat, const DatasetInfo& ds, std::vector<DataFile> files,
                                  int64_t rows, CommitMeta meta, CommitOperation op) {
  if (rows == 0 && op == CommitOperation::kAppend) {
    DeleteQuietly(cat.warehouse(), files);
    return Status::InvalidArgument("nothing to append: the input has no rows")
        .WithField("code", "no_rows");
  }
  DatasetCommit part;
  part.dataset = ds.name.ToString();
  part.expected_uuid = ds.uuid;
  part.operation = op;
  if (op == CommitOperation::kOverwrite) part.read_snapshot_id = ds.current_snapshot_id.value_or(0);
  part.written_spec_id = ds.spec.spec_id;
  part.added = files;
  part.meta = std::move(meta);
  auto result = cat.Commit(std::move(part));
  // A replay of an earlier commit with the same key did not use these files.
  if (!result.ok() || result->idempotent_replay) DeleteQuietly(cat.warehouse(), files);
  return result;
}

// A retry of a keyed commit that already landed: its snapshot, before any byte is written.
Result<std::optional<SnapshotInfo>> EarlierCommit(Catalog& cat, std::string_view qualified,
                                                  const CommitMeta& meta) {
  if (!meta.idempotency_key) return std::optional<SnapshotInfo>();
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  return FindByIdempotencyKey(cat.metastore(), n, *meta.idempotency_key);
}

int64_t BatchBytes(const RecordBatch& b) {
  int64_t n = 0;
  for (const auto& c : b.columns) {
    n += static_cast<int64_t>(c.data.size() + c.validity.size() + c.offsets.size() * 8);
    if (c.child) n += static_cast<int64_t>(c.child->data.size() + c.child->offsets.size() * 8);
  }
  return n;
}

}  // namespace

Result<SnapshotInfo> Catalog::Append(std::string_view qualified,
                                     const std::vector<RecordBatch>& batches, CommitMeta meta,
                                     CommitOperation op, std::optional<std::string> expected_uuid) {
  TARN_ASSIGN_OR_RETURN(auto ds, PrepareAppend(*this, qualified, meta, op, expected_uuid));
  TARN_ASSIGN_OR_RETURN(auto earlier, EarlierCommit(*this, qualified, meta));
  if (earlier) return std::move(*earlier);
  int64_t rows = 0;
  for (const auto& b : batches) rows += b.num_rows;
  std::vector<DataFile> files;
  if (rows > 0) TARN_RETURN_NOT_OK(WriteChunk(*this, ds, batches, &files));
  return FinishAppend(*this, ds, std::move(files), rows, std::move(meta), op);
}

Result<SnapshotInfo> Catalog::AppendStream(std::string_view qualified, const BatchSource& next,
                                           CommitMeta meta, CommitOperation op,
                                           std::optional<std::string> expected_uuid) {
  TARN_ASSIGN_OR_RETURN(auto ds, PrepareAppend(*this, qualified, meta, op, expected_uuid));
  TARN_ASSIGN_OR_RETURN(auto earlier, EarlierCommit(*this, qualified, meta));
  if (earlier) return std::move(*earlier);
  std::vector<DataFile> files;
  std::vector<RecordBatch> buffer;
  int64_t rows = 0, buffered_rows = 0, buffered_bytes = 0;
  auto flush = [&]() -> Status {
    if (buffer.empty()) return Status::OK();
    Status st = WriteChunk(*this, ds, buffer, &files);
    buffer.clear();
    buffered_rows = buffered_bytes = 0;
    return st;
  };
  Status st;
  while (true) {
    auto batch = next();
    if (!batch.ok()) {
      st = batch.status();
      break;
    }
    if (!*batch) break;
    RecordBatch& b = **batch;
    if (b.num_rows == 0) continue;
    rows += b.num_rows;
    buffered_rows += b.num_rows;
    buffered_bytes += BatchBytes(b);
    buffer.push_back(std::move(b));
    if (buffered_rows >= kAppendFlushRows || buffered_bytes >= kAppendFlushBytes) {
      st = flush();
      if (!st.ok()) break;
    }
  }
  if (st.ok()) st = flush();
  if (!st.ok()) {
    DeleteQuietly(warehouse(), files);
    return st;
  }
  return FinishAppend(*this, ds, std::move(files), rows, std::move(meta), op);
}

Result<SnapshotInfo> Catalog::AddFiles(std::string_view qualified,
                                       const std::vector<std::string>& paths, CommitMeta meta,
                                       bool truncate_first) {
  if (paths.empty() && !truncate_first) {
    return Status::InvalidArgument("add_files needs at least one file");
  }
  TARN_ASSIGN_OR_RETURN(auto ds, LoadDataset(qualified));
  DatasetCommit part;
  part.dataset = ds.name.ToString();
  part.expected_uuid = ds.uuid;
  part.operation = truncate_first ? CommitOperation::kTruncateAndAdd : CommitOperation::kAddFiles;
  if (truncate_first) part.read_snapshot_id = ds.current_snapshot_id.value_or(0);
  part.written_spec_id = ds.spec.spec_id;
  for (const auto& p : paths) {
    TARN_ASSIGN_OR_RETURN(std::string key, WarehouseKey(*warehouse_, p));
    auto file = DataFileFromFooter(*warehouse_, key, ds.schema, ds.spec);
    if (!file.ok()) return file.status().WithContext("file '" + key + "'");
    part.added.push_back(std::move(*file));
  }
  part.meta = std::move(meta);
  return Commit(std::move(part));
}

Result<SnapshotInfo> Catalog::DeleteRows(std::string_view qualified, std::string_view where,
                                         CommitMeta meta) {
  if (where.empty()) {
    return Status::InvalidArgument("delete needs a predicate (use TRUE to delete every row)");
  }
  TARN_ASSIGN_OR_RETURN(auto earlier, EarlierCommit(*this, qualified, meta));
  if (earlier) return std::move(*earlier);
  Status last;
  for (int attempt = 0; attempt < kDeleteAttempts; ++attempt) {
    TARN_ASSIGN_OR_RETURN(auto ds, LoadDataset(qualified));
    // Bound before anything is planned, even on an empty dataset: a predicate of the wrong
    // type family (`name > 5` on a VARCHAR) is refused, never evaluated as text.
    TARN_ASSIGN_OR_RETURN(auto pred, ParseAndBindPredicate(where, ds.schema));
    if (!ds.current_snapshot_id) {
      SnapshotInfo nothing;
      nothing.dataset_uuid = ds.uuid;
      return nothing;  // snapshot_id 0: nothing committed
    }
    SnapshotSelector at;
    at.snapshot_id = ds.current_snapshot_id;
    std::vector<PlannedFile> files;
    TARN_RETURN_NOT_OK(PlanFiles(qualified, at, where, [&](const PlannedFile& f) {
      files.push_back(f);
      return Status::OK();
    }));
    ReadOptions options;
    options.field_ids = ReferencedFieldIds(pred);
    if (options.field_ids.empty() && !ds.schema.fields.empty()) {
      options.field_ids.push_back(ds.schema.fields[0].field_id);
    }
    DatasetCommit part;
    part.dataset = ds.name.ToString();
    part.expected_uuid = ds.uuid;
    part.read_snapshot_id = *ds.current_snapshot_id;
    part.operation = CommitOperation::kDeleteRows;
    part.meta = meta;
    for (const PlannedFile& f : files) {
      std::vector<uint64_t> already;
      if (f.deletion_vector) {
        TARN_ASSIGN_OR_RETURN(already, DecodeDeletionVector(*f.deletion_vector));
      }
      TARN_ASSIGN_OR_RETURN(auto batch,
                            ReadDataFile(*warehouse_, f.file, ds.schema, {}, nullptr, options));
      TARN_ASSIGN_OR_RETURN(auto mask, EvaluatePredicate(pred, batch));
      FileDeletes d;
      d.path = f.file.path;
      size_t a = 0;
      for (size_t i = 0; i < mask.size(); ++i) {
        if (!mask[i]) continue;
        while (a < already.size() && already[a] < i) ++a;
        if (a < already.size() && already[a] == i) continue;
        d.positions.push_back(i);
      }
      if (!d.positions.empty()) part.deletes.push_back(std::move(d));
    }
    if (part.deletes.empty()) {
      SnapshotInfo nothing;
      nothing.dataset_uuid = ds.uuid;
      return nothing;
    }
    auto result = Commit(std::move(part));
    if (result.ok() || result.status().kind() != ErrorKind::kConflict) return result;
    last = result.status();
  }
  return last;
}

Result<SnapshotInfo> Catalog::Rollback(std::string_view qualified, int64_t to_snapshot_id,
                                       CommitMeta meta) {
  TARN_ASSIGN_OR_RETURN(auto ds, LoadDataset(qualified));
  SnapshotSelector at;
  at.snapshot_id = to_snapshot_id;
  TARN_RETURN_NOT_OK(GetSnapshot(qualified, at).status());
  DatasetCommit part;
  part.dataset = ds.name.ToString();
  part.expected_uuid = ds.uuid;
  part.operation = CommitOperation::kRollback;
  part.rollback_to = to_snapshot_id;
  part.meta = std::move(meta);
  return Commit(std::move(part));
}

}  // namespace tarn

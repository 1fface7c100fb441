// The data operations built on Commit: append (tarn writes the Parquet), add_files (stats from
// footers), delete_rows (deletion vectors from a predicate) and rollback.
#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/inlined.h"
#include "catalog/store.h"
#include "common/discard.h"
#include "datafile/reader.h"
#include "datafile/writer.h"
#include "objectstore/memory/memory_store.h"
#include "objectstore/object_store.h"
#include "table/deletion_vector.h"
#include "table/predicate.h"
#include "types/batch.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

// How often DeleteRows re-plans after losing a race to another commit.
constexpr int kDeleteAttempts = 8;

}  // namespace

void catalog_internal::DeleteQuietly(ObjectStore& store, const std::vector<DataFile>& files) {
  std::vector<std::string> keys;
  for (const auto& f : files) keys.push_back(f.path);
  if (!keys.empty()) DiscardError(store.DeleteMany(keys), "deleting written data files");
}

bool catalog_internal::MayBeRegistered(Metastore& ms, const std::vector<DataFile>& files) {
  if (files.empty()) return false;
  bool registered = true;
  Status st = ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(registered, catalog_store::PathRegistered(tx, files.front().path));
        return Status::OK();
      },
      TxMode::kReadOnly);
  return !st.ok() || registered;
}

namespace {

// `path`'s segments with empty and "." ones dropped and ".." resolved; nullopt when a ".."
// would climb above the start.
std::optional<std::vector<std::string_view>> Segments(std::string_view path) {
  std::vector<std::string_view> segs;
  for (size_t start = 0; start <= path.size();) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view seg = path.substr(start, slash - start);
    if (seg == "..") {
      if (segs.empty()) return std::nullopt;
      segs.pop_back();
    } else if (!seg.empty() && seg != ".") {
      segs.push_back(seg);
    }
    start = slash + 1;
  }
  return segs;
}

// "scheme://authority" of a URI ("" for a plain path) and the path after it.
std::pair<std::string_view, std::string_view> SplitUri(std::string_view uri) {
  if (uri.rfind("file://", 0) == 0) return {"", uri.substr(7)};
  size_t scheme = uri.find("://");
  if (scheme == std::string_view::npos) return {"", uri};
  size_t slash = uri.find('/', scheme + 3);
  if (slash == std::string_view::npos) return {uri, ""};
  return {uri.substr(0, slash), uri.substr(slash)};
}

}  // namespace

// The warehouse key of `path` (catalog.h).
Result<std::string> WarehouseKey(const ObjectStore& warehouse, std::string_view path) {
  const std::string shown(path.substr(0, 500));
  auto outside = [&] {
    return Status::Of(codes::kPathOutsideWarehouse,
                      "path '" + shown + "' is not inside the warehouse")
        .WithField("path", shown);
  };
  if (path.find('\0') != std::string_view::npos) return outside();
  std::vector<std::string_view> segs;
  if (path.find("://") != std::string_view::npos || (!path.empty() && path.front() == '/')) {
    // A URI or absolute path: same scheme and authority as the root (file:///x and /x name the
    // same local path), and the root's segments first.
    auto [root_head, root_path] = SplitUri(warehouse.uri());
    auto [head, rest] = SplitUri(path);
    if (head != root_head) return outside();
    auto root_segs = Segments(root_path);
    auto path_segs = Segments(rest);
    if (!root_segs || !path_segs || path_segs->size() <= root_segs->size() ||
        !std::equal(root_segs->begin(), root_segs->end(), path_segs->begin())) {
      return outside();
    }
    segs.assign(path_segs->begin() + static_cast<std::ptrdiff_t>(root_segs->size()),
                path_segs->end());
  } else {
    // A relative key: never above the root.
    auto path_segs = Segments(path);
    if (!path_segs) return outside();
    segs = std::move(*path_segs);
  }
  std::string key;
  for (auto seg : segs) {
    if (!key.empty()) key += '/';
    key += seg;
  }
  if (key.empty() || !ValidateKey(key).ok()) return outside();
  return key;
}

namespace {

Status WriteChunk(Catalog& cat, const DatasetInfo& ds, const std::vector<RecordBatch>& batches,
                  bool defer_stats, std::vector<DataFile>* files) {
  DataWriteOptions options = DataWriteOptionsFor(ds, ds.schema);
  options.defer_stats = defer_stats;
  TARN_ASSIGN_OR_RETURN(auto written, WriteDataFiles(cat.warehouse(), ds.schema, ds.spec,
                                                     ds.sort_order, batches, options));
  for (auto& f : written) files->push_back(std::move(f));
  return Status::OK();
}

// The bytes of a dataset's rows that an append keeps in the metastore (inline.max_bytes).
using InlinedBytes = std::vector<std::pair<std::string, std::string>>;

// Writes rows of an inlined append (docs/design/catalog-core.md "Inlined appends"): the files
// WriteDataFiles makes of them, encoded in memory and named under the dataset's inline prefix,
// their bytes for the commit to keep.
Status WriteInlined(const DatasetInfo& ds, const std::vector<RecordBatch>& batches,
                    bool defer_stats, std::vector<DataFile>* files, InlinedBytes* inlined) {
  MemoryObjectStore memory("inline");
  DataWriteOptions options = DataWriteOptionsFor(ds, ds.schema);
  options.prefix = InlinePrefix(ds.uuid);
  options.defer_stats = defer_stats;
  TARN_ASSIGN_OR_RETURN(
      auto written, WriteDataFiles(memory, ds.schema, ds.spec, ds.sort_order, batches, options));
  for (auto& f : written) {
    TARN_ASSIGN_OR_RETURN(std::string bytes, memory.Get(f.path));
    inlined->emplace_back(f.path, std::move(bytes));
    files->push_back(std::move(f));
  }
  return Status::OK();
}

// Whether every column of `batches` is one of `schema`'s (by field id, by name without one).
// The writer leaves other columns out, which is right against the dataset as it is, and wrong
// against a kept row older than the column (Catalog::PrepareAppend).
bool ColumnsKnown(const std::vector<RecordBatch>& batches, const Schema& schema) {
  for (const auto& b : batches) {
    for (const Field& f : b.schema.fields) {
      const bool known = f.field_id >= 0
                             ? std::any_of(schema.fields.begin(), schema.fields.end(),
                                           [&](const Field& s) { return s.field_id == f.field_id; })
                             : schema.FieldIndex(f.name) >= 0;
      if (!known) return false;
    }
  }
  return true;
}

int64_t BatchesBytes(const std::vector<RecordBatch>& batches) {
  int64_t bytes = 0;
  for (const auto& b : batches) bytes += BatchBytes(b);
  return bytes;
}

// Commits the written files as one snapshot; on failure they are deleted unless the commit may
// have landed. Inlined files were never written: nothing of them is left to delete.
Result<SnapshotInfo> FinishAppend(Catalog& cat, const DatasetInfo& ds, std::vector<DataFile> files,
                                  InlinedBytes inlined, int64_t rows, CommitMeta meta,
                                  CommitOperation op) {
  // What this call wrote to the warehouse: none when the files are inlined (all or none are).
  const std::vector<DataFile> written = inlined.empty() ? files : std::vector<DataFile>();
  if (rows == 0 && op == CommitOperation::kAppend) {
    DeleteQuietly(cat.warehouse(), written);
    return Status::Of(codes::kNoRows, "nothing to append: the input has no rows");
  }
  DatasetCommit part;
  part.dataset = ds.name.ToString();
  part.expected_uuid = ds.uuid;
  part.operation = op;
  if (op == CommitOperation::kOverwrite) part.read_snapshot_id = ds.current_snapshot_id.value_or(0);
  part.written_spec_id = ds.spec.spec_id;
  part.added = std::move(files);
  part.inlined = std::move(inlined);
  part.meta = std::move(meta);
  // Files this call just wrote under the dataset's own prefix: nothing to check.
  std::vector<DatasetCommit> parts;
  parts.push_back(std::move(part));
  auto committed = cat.CommitWritten(std::move(parts));
  Result<SnapshotInfo> result =
      committed.ok() ? Result<SnapshotInfo>(std::move((*committed)[0])) : committed.status();
  // A replay of an earlier commit with the same key did not use these files. A failed commit
  // may have landed all the same (its COMMIT reply lost): then its files stay.
  if (!written.empty() &&
      (result.ok() ? result->idempotent_replay : !MayBeRegistered(cat.metastore(), written))) {
    DeleteQuietly(cat.warehouse(), written);
  }
  return result;
}

// A retry of a keyed commit that already landed: its snapshot, before any byte is written.
Result<std::optional<SnapshotInfo>> EarlierCommit(Catalog& cat, std::string_view qualified,
                                                  const CommitMeta& meta) {
  if (!meta.idempotency_key) return std::optional<SnapshotInfo>();
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  return FindByIdempotencyKey(cat.metastore(), n, *meta.idempotency_key);
}

}  // namespace

struct Catalog::AppendDefinitions {
  struct Entry {
    DatasetInfo ds;
    int64_t read_at_us = 0;
  };
  std::mutex mu;
  std::unordered_map<std::string, Entry> by_name;  // live rows as last read, by qualified name
  // Moved by every DefinitionsChanged: a row read before a change this catalog made is not
  // kept after it.
  uint64_t generation = 0;
};

std::shared_ptr<Catalog::AppendDefinitions> Catalog::NewAppendDefinitions() {
  return std::make_shared<AppendDefinitions>();
}

void Catalog::DefinitionsChanged() {
  {
    std::lock_guard<std::mutex> lock(append_definitions_->mu);
    append_definitions_->by_name.clear();
    ++append_definitions_->generation;
  }
  ManifestSettingsChanged();
}

Result<Catalog::PreparedAppend> Catalog::PrepareAppend(
    std::string_view qualified, const CommitMeta& meta, CommitOperation op,
    const std::optional<std::string>& expected_uuid, bool may_keep) {
  if (op != CommitOperation::kAppend && op != CommitOperation::kOverwrite) {
    return Status::InvalidArgument("Append writes rows for append or overwrite only");
  }
  if (meta.author.empty()) {
    return Status::Of(codes::kAuthorRequired, "a commit needs an author");
  }
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  const std::string name = n.ToString();
  PreparedAppend out;
  // An overwrite reads the current snapshot, which only a fresh read knows.
  may_keep = may_keep && op == CommitOperation::kAppend;
  const int64_t now = clock_->NowMicros();
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(append_definitions_->mu);
    generation = append_definitions_->generation;
    auto it =
        may_keep ? append_definitions_->by_name.find(name) : append_definitions_->by_name.end();
    if (it != append_definitions_->by_name.end() &&
        now - it->second.read_at_us < kAppendDefinitionTtlUs &&
        (!expected_uuid || *expected_uuid == it->second.ds.uuid)) {
      out.ds = it->second.ds;
      out.kept = true;
      return out;
    }
  }
  // Its live row alone (schema, current spec, sort order, properties): one statement, where
  // LoadDataset also reads every partition spec the dataset ever had.
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out.ds, LoadLiveDataset(tx, n));
        return Status::OK();
      },
      TxMode::kReadOnly));
  {
    std::lock_guard<std::mutex> lock(append_definitions_->mu);
    if (append_definitions_->generation == generation) {
      append_definitions_->by_name[name] = AppendDefinitions::Entry{out.ds, now};
    }
  }
  if (expected_uuid && *expected_uuid != out.ds.uuid) {
    return Status::Of(codes::kIncarnationChanged,
                      "dataset '" + name + "' was recreated (its uuid is " + out.ds.uuid +
                          ", expected " + *expected_uuid + ")")
        .WithField("dataset", name);
  }
  return out;
}

void Catalog::ForgetAppendDefinition(std::string_view qualified) {
  std::lock_guard<std::mutex> lock(append_definitions_->mu);
  append_definitions_->by_name.erase(std::string(qualified));
}

Result<SnapshotInfo> Catalog::AppendBatches(std::string_view qualified,
                                            const std::vector<RecordBatch>& batches,
                                            const CommitMeta& meta, CommitOperation op,
                                            const std::optional<std::string>& expected_uuid,
                                            PreparedAppend prepared) {
  if (prepared.kept && !ColumnsKnown(batches, prepared.ds.schema)) {
    TARN_ASSIGN_OR_RETURN(prepared, PrepareAppend(qualified, meta, op, expected_uuid, false));
  }
  for (;;) {
    const DatasetInfo& ds = prepared.ds;
    TARN_ASSIGN_OR_RETURN(const int64_t inline_limit, InlineLimit(ds.properties));
    int64_t rows = 0;
    for (const auto& b : batches) rows += b.num_rows;
    std::vector<DataFile> files;
    InlinedBytes inlined;
    Status written;
    if (rows > 0 && inline_limit > 0 && BatchesBytes(batches) <= inline_limit) {
      written = WriteInlined(ds, batches, meta.defer_stats, &files, &inlined);
    } else if (rows > 0) {
      written = WriteChunk(*this, ds, batches, meta.defer_stats, &files);
    }
    // A kept row may be older than a change another process made. Rows that did not conform to
    // it (nothing was committed), and a commit refused for a kept row's incarnation (the
    // dataset was recreated meanwhile; the refusal committed nothing), are made once more
    // against a fresh read.
    if (!written.ok()) {
      if (!prepared.kept) return written;
    } else {
      auto committed =
          FinishAppend(*this, ds, std::move(files), std::move(inlined), rows, meta, op);
      if (committed.ok() || !prepared.kept || !committed.status().Is(codes::kIncarnationChanged)) {
        return committed;
      }
    }
    ForgetAppendDefinition(ds.name.ToString());
    TARN_ASSIGN_OR_RETURN(prepared, PrepareAppend(qualified, meta, op, expected_uuid, false));
  }
}

Result<SnapshotInfo> Catalog::DoAppend(std::string_view qualified,
                                       const std::vector<RecordBatch>& batches, CommitMeta meta,
                                       CommitOperation op,
                                       std::optional<std::string> expected_uuid) {
  TARN_ASSIGN_OR_RETURN(auto prepared, PrepareAppend(qualified, meta, op, expected_uuid, true));
  TARN_ASSIGN_OR_RETURN(auto earlier, EarlierCommit(*this, qualified, meta));
  if (earlier) return std::move(*earlier);
  return AppendBatches(qualified, batches, meta, op, expected_uuid, std::move(prepared));
}

namespace {

// WriteStream for rows that need neither sorting nor splitting by partition: each batch goes
// into the open file as it arrives, so its encoding overlaps the making of the next batch, and
// memory holds a batch and the file's open row group, not the file's rows.
Status WriteStreamDirect(Catalog& cat, const DatasetInfo& ds, const Client::BatchSource& next,
                         bool defer_stats, std::vector<DataFile>* files, int64_t* rows) {
  DataWriteOptions options = DataWriteOptionsFor(ds, ds.schema);
  options.defer_stats = defer_stats;
  std::unique_ptr<DataFileWriter> open;  // destroyed unfinished: its file is deleted
  int64_t file_bytes = 0;
  auto finish = [&]() -> Status {
    if (!open) return Status::OK();
    Result<DataFile> written = open->Finish();
    open.reset();
    file_bytes = 0;
    if (!written.ok()) return written.status();
    files->push_back(std::move(*written));
    return Status::OK();
  };
  Status st;
  while (st.ok()) {
    auto batch = next();
    if (!batch.ok()) {
      st = batch.status();
      break;
    }
    if (!*batch) break;
    const RecordBatch& b = **batch;
    if (b.num_rows == 0) continue;
    if (!open) {
      auto opened =
          DataFileWriter::Open(cat.warehouse(), ds.schema, ds.spec, PartitionValues{}, options);
      if (!opened.ok()) {
        st = opened.status();
        break;
      }
      open = std::move(*opened);
    }
    st = open->Write(b);
    if (!st.ok()) break;
    *rows += b.num_rows;
    file_bytes += BatchBytes(b);
    if (open->rows() >= Catalog::kAppendFlushRows || file_bytes >= Catalog::kAppendFlushBytes) {
      st = finish();
    }
  }
  if (st.ok()) st = finish();
  open.reset();
  if (!st.ok()) DeleteQuietly(cat.warehouse(), *files);
  return st;
}

// Writes the rows `next` yields as data files of `ds` (a file every ~kAppendFlushRows rows or
// kAppendFlushBytes bytes); on an error, every file written is deleted again.
Status WriteStream(Catalog& cat, const DatasetInfo& ds, const Client::BatchSource& next,
                   bool defer_stats, std::vector<DataFile>* files, int64_t* rows) {
  if (ds.spec.unpartitioned() && ds.sort_order.unsorted()) {
    return WriteStreamDirect(cat, ds, next, defer_stats, files, rows);
  }
  // Rows to sort or split: a file's worth is buffered, then written by WriteDataFiles.
  std::vector<RecordBatch> buffer;
  int64_t buffered_rows = 0, buffered_bytes = 0;
  auto flush = [&]() -> Status {
    if (buffer.empty()) return Status::OK();
    Status st = WriteChunk(cat, ds, buffer, defer_stats, files);
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
    *rows += b.num_rows;
    buffered_rows += b.num_rows;
    buffered_bytes += BatchBytes(b);
    buffer.push_back(std::move(b));
    if (buffered_rows >= Catalog::kAppendFlushRows ||
        buffered_bytes >= Catalog::kAppendFlushBytes) {
      st = flush();
      if (!st.ok()) break;
    }
  }
  if (st.ok()) st = flush();
  if (!st.ok()) DeleteQuietly(cat.warehouse(), *files);
  return st;
}

// The rows of `ds`'s current snapshot that `pred` matches and no deletion vector holds yet,
// per file.
Result<std::vector<FileDeletes>> PlanDeletes(Catalog& cat, const DatasetInfo& ds,
                                             std::string_view where, const BoundPredicate& pred) {
  std::vector<FileDeletes> out;
  if (!ds.current_snapshot_id) return out;
  SnapshotSelector at;
  at.snapshot_id = ds.current_snapshot_id;
  std::vector<PlannedFile> files;
  TARN_RETURN_NOT_OK(cat.PlanFiles(ds.name.ToString(), at, where, [&](const PlannedFile& f) {
    files.push_back(f);
    return Status::OK();
  }));
  ReadOptions options;
  options.field_ids = ReferencedColumnIds(pred);
  if (options.field_ids.empty() && !ds.schema.fields.empty()) {
    options.field_ids.push_back(ds.schema.fields[0].field_id);
  }
  for (const PlannedFile& f : files) {
    std::vector<uint64_t> already;
    if (f.deletion_vector) {
      TARN_ASSIGN_OR_RETURN(already, DecodeDeletionVector(*f.deletion_vector));
    }
    TARN_ASSIGN_OR_RETURN(auto batch,
                          ReadDataFile(cat.warehouse(), f.file, ds.schema, {}, nullptr, options));
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
    if (!d.positions.empty()) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

Result<SnapshotInfo> Catalog::DoAppendStream(std::string_view qualified, const BatchSource& next,
                                             CommitMeta meta, CommitOperation op,
                                             std::optional<std::string> expected_uuid) {
  TARN_ASSIGN_OR_RETURN(auto prepared, PrepareAppend(qualified, meta, op, expected_uuid, true));
  TARN_ASSIGN_OR_RETURN(auto earlier, EarlierCommit(*this, qualified, meta));
  if (earlier) return std::move(*earlier);
  DatasetInfo& ds = prepared.ds;
  TARN_ASSIGN_OR_RETURN(const int64_t inline_limit, InlineLimit(ds.properties));
  // Batches up to the inline limit are read first: a stream that ends within it is inlined, a
  // longer one is written from its first batch on.
  std::vector<RecordBatch> head;
  int64_t head_bytes = 0;
  bool ended = inline_limit <= 0;
  while (!ended && head_bytes <= inline_limit) {
    TARN_ASSIGN_OR_RETURN(auto batch, next());
    if (!batch) {
      ended = true;
      break;
    }
    if (batch->num_rows == 0) continue;
    head_bytes += BatchBytes(*batch);
    head.push_back(std::move(*batch));
  }
  // The whole stream is in memory: an append of batches (it may be made again).
  if (inline_limit > 0 && ended) {
    return AppendBatches(qualified, head, meta, op, expected_uuid, std::move(prepared));
  }
  // Rows that cannot be read again are written against a fresh row.
  if (prepared.kept) {
    TARN_ASSIGN_OR_RETURN(prepared, PrepareAppend(qualified, meta, op, expected_uuid, false));
  }
  size_t replayed = 0;
  const BatchSource from_head = [&]() -> Result<std::optional<RecordBatch>> {
    if (replayed < head.size()) return std::optional<RecordBatch>(std::move(head[replayed++]));
    return next();
  };
  std::vector<DataFile> files;
  int64_t rows = 0;
  TARN_RETURN_NOT_OK(WriteStream(*this, ds, from_head, meta.defer_stats, &files, &rows));
  return FinishAppend(*this, ds, std::move(files), {}, rows, std::move(meta), op);
}

Result<SnapshotInfo> Catalog::DoReplaceWhere(std::string_view qualified, std::string_view where,
                                             const BatchSource& next, CommitMeta meta,
                                             std::optional<std::string> expected_uuid,
                                             std::optional<int64_t> read_snapshot_id) {
  // A merge reads the current snapshot: never a kept row.
  TARN_ASSIGN_OR_RETURN(auto prepared, PrepareAppend(qualified, meta, CommitOperation::kAppend,
                                                     expected_uuid, false));
  DatasetInfo ds = std::move(prepared.ds);
  TARN_ASSIGN_OR_RETURN(auto earlier, EarlierCommit(*this, qualified, meta));
  if (earlier) return std::move(*earlier);
  // A predicate that does not bind is refused before any byte is written.
  if (!where.empty()) TARN_RETURN_NOT_OK(ParseAndBindPredicate(where, ds.schema).status());
  std::vector<DataFile> files;
  int64_t rows = 0;
  TARN_RETURN_NOT_OK(WriteStream(*this, ds, next, meta.defer_stats, &files, &rows));
  Status last;
  for (int attempt = 0; attempt < kDeleteAttempts; ++attempt) {
    if (attempt > 0) {
      auto reloaded = PrepareAppend(qualified, meta, CommitOperation::kAppend, ds.uuid, false);
      if (!reloaded.ok()) {
        DeleteQuietly(warehouse(), files);
        return reloaded.status();
      }
      ds = std::move(reloaded->ds);
    }
    std::vector<FileDeletes> deletes;
    if (!where.empty()) {
      auto pred = ParseAndBindPredicate(where, ds.schema);
      auto planned = pred.ok() ? PlanDeletes(*this, ds, where, *pred)
                               : Result<std::vector<FileDeletes>>(pred.status());
      if (!planned.ok()) {
        DeleteQuietly(warehouse(), files);
        return planned.status();
      }
      deletes = std::move(*planned);
    }
    if (rows == 0 && deletes.empty()) {
      DeleteQuietly(warehouse(), files);
      SnapshotInfo nothing;
      nothing.dataset_uuid = ds.uuid;
      return nothing;
    }
    DatasetCommit part;
    part.dataset = ds.name.ToString();
    part.expected_uuid = ds.uuid;
    // Without deletes it is an append, which never conflicts with another, unless the caller
    // computed its rows against a snapshot that must still be the current one.
    const bool guarded = read_snapshot_id.has_value();
    part.operation =
        deletes.empty() && !guarded ? CommitOperation::kAppend : CommitOperation::kMerge;
    if (part.operation == CommitOperation::kMerge) {
      part.read_snapshot_id = guarded ? *read_snapshot_id : ds.current_snapshot_id.value_or(0);
    }
    part.written_spec_id = ds.spec.spec_id;
    part.added = files;
    part.deletes = std::move(deletes);
    part.meta = meta;
    std::vector<DatasetCommit> parts;
    parts.push_back(std::move(part));
    auto committed = CommitWritten(std::move(parts));
    if (committed.ok()) {
      if ((*committed)[0].idempotent_replay) DeleteQuietly(warehouse(), files);
      return std::move((*committed)[0]);
    }
    last = committed.status();
    if (last.kind() != ErrorKind::kConflict || guarded) {
      if (!MayBeRegistered(metastore(), files)) DeleteQuietly(warehouse(), files);
      return last;
    }
  }
  DeleteQuietly(warehouse(), files);
  return last;
}

Result<SnapshotInfo> Catalog::DoAddFiles(std::string_view qualified,
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
  part.meta = std::move(meta);
  for (const auto& p : paths) {
    DataFile f;
    f.path = p;
    part.added.push_back(std::move(f));
  }
  // Ownership from the keys alone, before anything is read: the answer for a path the dataset
  // may not register does not depend on what is there. Then existence and type, then footers.
  AddedFileChecks checks;
  checks.sizes_stated = false;
  TARN_ASSIGN_OR_RETURN(const bool replay, CheckAddedFiles(*metastore_, *warehouse_, part, checks));
  // A retry of a keyed add that landed reads nothing: the commit answers with its snapshot.
  if (!replay) {
    for (auto& f : part.added) {
      auto file = DataFileFromFooter(*warehouse_, f.path, ds.schema, ds.spec);
      if (!file.ok()) {
        const Status& st = file.status();
        if (st.kind() == ErrorKind::kInvalidArgument) {
          return st.WithContext("file '" + f.path +
                                "'");  // a readable Parquet file that does not fit
        }
        return Status::Of(codes::kNotParquet, "file '" + f.path + "' is not a Parquet file")
            .WithField("path", f.path);
      }
      if (file->file_size_bytes != f.file_size_bytes) {
        return Status::Of(codes::kFileChanged,
                          "file '" + f.path + "' changed while it was being added")
            .WithField("path", f.path);
      }
      f = std::move(*file);
    }
  }
  std::vector<DatasetCommit> parts;
  parts.push_back(std::move(part));
  TARN_ASSIGN_OR_RETURN(auto out, CommitWritten(std::move(parts)));
  return std::move(out[0]);
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
    DatasetCommit part;
    part.dataset = ds.name.ToString();
    part.expected_uuid = ds.uuid;
    part.read_snapshot_id = *ds.current_snapshot_id;
    part.operation = CommitOperation::kDeleteRows;
    part.meta = meta;
    TARN_ASSIGN_OR_RETURN(part.deletes, PlanDeletes(*this, ds, where, pred));
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

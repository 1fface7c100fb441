// Planning and scans (C8), the change feed and consumer offsets (C9); their statements are in
// snapshot_store.cc.
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/store.h"
#include "datafile/reader.h"
#include "metastore/metastore.h"
#include "table/deletion_vector.h"
#include "table/field_path.h"
#include "table/predicate.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

// Prunes live files with the predicate: the partition values of files written under older specs
// with their own spec (the store has already narrowed the current spec's by partition key).
class FilePruner {
 public:
  static Result<FilePruner> Make(Transaction& tx, const DatasetInfo& ds,
                                 const BoundPredicate* pred) {
    FilePruner out(ds, pred);
    out.specs_[ds.spec.spec_id] = ds.spec;
    if (pred && ds.spec.spec_id > 0) {
      TARN_ASSIGN_OR_RETURN(auto all, LoadSpecs(tx, ds.id));
      for (auto& spec : all) out.specs_[spec.spec_id] = std::move(spec);
    }
    return out;
  }

  // False when the predicate rules the file out.
  bool MayMatch(const DataFile& file) const {
    if (!pred_) return true;
    static const PartitionSpec kUnpartitioned;
    auto it = specs_.find(file.spec_id);
    // Without its spec at hand, the partition values cannot be used; the bounds still can.
    if (it == specs_.end()) {
      DataFile probe = file;
      probe.partition.clear();
      return MightMatch(*pred_, probe, kUnpartitioned, ds_->schema);
    }
    return MightMatch(*pred_, file, it->second, ds_->schema);
  }

 private:
  FilePruner(const DatasetInfo& ds, const BoundPredicate* pred) : ds_(&ds), pred_(pred) {}

  const DatasetInfo* ds_;
  const BoundPredicate* pred_;
  std::map<int32_t, PartitionSpec> specs_;
};

catalog_store::LiveFileQuery LiveFilesOf(const DatasetInfo& ds, int64_t snapshot_id, bool current) {
  catalog_store::LiveFileQuery q;
  q.dataset_id = ds.id;
  q.snapshot_id = snapshot_id;
  q.current = current;
  q.spec_id = ds.spec.spec_id;
  return q;
}

// One page of the live files in path order (FileQuery): keyset queries on (dataset, path), the
// unique index of live paths for the current snapshot. Without a predicate every row read is on
// the page, so one query of `limit` rows; with one, batches of 4 x `limit` rows (64 to
// kMaxFilePage) until the page is full or the files run out. Read with `before` alone, the page
// is read downwards, held, and returned in path order.
Status ForEachPlannedFileInPage(Transaction& tx, const DatasetInfo& ds, int64_t snapshot_id,
                                bool current, const BoundPredicate* pred, const FileQuery& page,
                                const std::function<Status(const PlannedFile&)>& fn) {
  const bool backward = page.before && !page.after && page.limit;
  const int64_t want = page.limit.value_or(INT64_MAX);
  const int64_t batch = !pred                      ? std::min(want, kMaxFilePage)
                        : want >= kMaxFilePage / 4 ? kMaxFilePage
                                                   : std::max<int64_t>(want * 4, 64);
  TARN_ASSIGN_OR_RETURN(auto pruner, FilePruner::Make(tx, ds, pred));
  catalog_store::LiveFileQuery q = LiveFilesOf(ds, snapshot_id, current);
  q.path_after = page.after;
  q.path_before = page.before;
  q.descending = backward;
  q.limit = batch;
  std::vector<PlannedFile> held;
  int64_t on_page = 0;
  while (on_page < want) {
    int64_t rows = 0;
    std::string last;
    TARN_RETURN_NOT_OK(catalog_store::LiveFiles(tx, q, [&](catalog_store::LiveFile& f) -> Status {
      ++rows;
      if (on_page >= want) return Status::OK();  // the page filled up inside this batch
      last = f.planned.file.path;
      if (!pruner.MayMatch(f.planned.file)) return Status::OK();
      ++on_page;
      if (backward) {
        held.push_back(std::move(f.planned));
        return Status::OK();
      }
      return fn(f.planned);
    }));
    if (rows < batch) break;
    (backward ? q.path_before : q.path_after) = last;
  }
  for (auto it = held.rbegin(); it != held.rend(); ++it) TARN_RETURN_NOT_OK(fn(*it));
  return Status::OK();
}

}  // namespace

Status catalog_internal::ForEachPlannedFile(
    Transaction& tx, const DatasetInfo& ds, int64_t snapshot_id, bool current,
    const BoundPredicate* pred,
    const std::function<Status(const PlannedFile&, std::optional<int64_t> vector_id)>& fn) {
  catalog_store::LiveFileQuery q = LiveFilesOf(ds, snapshot_id, current);
  if (pred && !ds.spec.unpartitioned()) q.key_range = PartitionKeyRange(*pred, ds.spec, ds.schema);
  TARN_ASSIGN_OR_RETURN(auto pruner, FilePruner::Make(tx, ds, pred));
  return catalog_store::LiveFiles(tx, q, [&](catalog_store::LiveFile& f) -> Status {
    if (!pruner.MayMatch(f.planned.file)) return Status::OK();
    return fn(f.planned, f.vector_id);
  });
}

Status Catalog::DoPlanFiles(std::string_view qualified, const SnapshotSelector& at,
                            std::string_view where, const FileQuery& page,
                            const std::function<Status(const PlannedFile&)>& fn) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  if (page.limit && (*page.limit < 1 || *page.limit > kMaxFilePage)) {
    return Status::InvalidArgument("a file page's limit is 1 to " + std::to_string(kMaxFilePage))
        .WithField("field", "limit");
  }
  const bool paged = page.limit || page.after || page.before;
  return metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(auto resolved, ResolveSnapshot(tx, ds, at));
        if (!resolved.snapshot_id) {  // no commits yet: no files, but a bad predicate is refused
          if (!where.empty()) TARN_RETURN_NOT_OK(ParseAndBindPredicate(where, ds.schema).status());
          return Status::OK();
        }
        bool current = resolved.snapshot_id == ds.current_snapshot_id;
        // A read at a selected snapshot uses that snapshot's schema (it differs from the
        // dataset's after an ALTER, even when the snapshot is the current one); a read of the
        // current state uses the dataset's current schema.
        if (!at.empty()) TARN_RETURN_NOT_OK(UseSnapshotSchema(tx, &ds, *resolved.snapshot_id));
        std::optional<BoundPredicate> pred;
        if (!where.empty()) {
          TARN_ASSIGN_OR_RETURN(pred, ParseAndBindPredicate(where, ds.schema));
        }
        if (paged) {
          return ForEachPlannedFileInPage(tx, ds, *resolved.snapshot_id, current,
                                          pred ? &*pred : nullptr, page, fn);
        }
        return ForEachPlannedFile(
            tx, ds, *resolved.snapshot_id, current, pred ? &*pred : nullptr,
            [&](const PlannedFile& f, std::optional<int64_t>) { return fn(f); });
      },
      TxMode::kReadOnly);
}

Result<std::vector<int32_t>> ScanFieldIds(const Schema& schema,
                                          const std::vector<std::string>& columns,
                                          std::string_view dataset) {
  std::vector<int32_t> ids;
  for (const std::string& name : columns) {
    int i = schema.FieldIndex(name);
    if (i >= 0) {
      ids.push_back(schema.fields[i].field_id);
      continue;
    }
    // A STRUCT member by its dotted path (column names have no dots).
    std::vector<std::string> parts;
    for (size_t at = 0;;) {
      const size_t dot = name.find('.', at);
      parts.push_back(name.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
      if (dot == std::string::npos) break;
      at = dot + 1;
    }
    Result<FieldPath> path = parts.size() > 1 ? ResolveFieldPath(schema, parts)
                                              : Result<FieldPath>(Status::InvalidArgument(""));
    if (!path.ok()) {
      std::string why = parts.size() > 1 ? ": " + path.status().message() : "";
      const std::string shown = name.substr(0, 200);  // a request's text: echoed cut
      return Status::Of(codes::kColumnNotFound,
                        "'" + std::string(dataset) + "' has no column '" + shown + "'" + why)
          .WithField("column", shown);
    }
    ids.push_back(path->field->field_id);
  }
  return ids;
}

struct Catalog::ScanCounters {
  std::mutex mu;
  ReadStats totals;
};

std::shared_ptr<Catalog::ScanCounters> Catalog::NewScanCounters() {
  return std::make_shared<ScanCounters>();
}

ReadStats Catalog::scan_stats() const {
  std::lock_guard<std::mutex> lock(scan_counters_->mu);
  return scan_counters_->totals;
}

Status Catalog::DoScan(std::string_view qualified, const ScanOptions& options,
                       const std::function<Status(const RecordBatch&)>& fn) {
  // Both use the same rule for the schema: the selected snapshot's, or the current one.
  TARN_ASSIGN_OR_RETURN(auto ds, LoadDataset(qualified, options.at));
  std::optional<BoundPredicate> pred;
  if (!options.where.empty()) {
    TARN_ASSIGN_OR_RETURN(pred, ParseAndBindPredicate(options.where, ds.schema));
  }
  ReadOptions read;
  read.with_row_ids = options.with_row_ids;
  TARN_ASSIGN_OR_RETURN(read.field_ids, ScanFieldIds(ds.schema, options.columns, qualified));
  if (!ds.current_snapshot_id) return Status::OK();
  // Of a compacted file added in the window only the rows new since its start count.
  std::optional<int64_t> watermark;
  if (options.added_after) {
    TARN_ASSIGN_OR_RETURN(watermark, AddedAfterWatermark(qualified, *options.added_after));
  }
  std::vector<PlannedFile> files;
  TARN_RETURN_NOT_OK(PlanFiles(qualified, options.at, options.where, [&](const PlannedFile& f) {
    if (!options.added_after || f.file.added_snapshot_id > *options.added_after) {
      files.push_back(f);
    }
    return Status::OK();
  }));
  // What the reads did, added to scan_stats() however the scan ends.
  ReadStats stats;
  read.stats = &stats;
  struct AddUp {
    ScanCounters& counters;
    const ReadStats& stats;
    ~AddUp() {
      std::lock_guard<std::mutex> lock(counters.mu);
      counters.totals += stats;
    }
  } add_up{*scan_counters_, stats};
  for (const PlannedFile& f : files) {
    std::vector<uint64_t> deleted;
    if (f.deletion_vector) {
      TARN_ASSIGN_OR_RETURN(deleted, DecodeDeletionVector(*f.deletion_vector));
    }
    read.min_row_id = f.file.StoresRowIds() ? watermark : std::nullopt;
    TARN_ASSIGN_OR_RETURN(auto batch, ReadDataFile(*warehouse_, f.file, ds.schema, deleted,
                                                   pred ? &*pred : nullptr, read));
    if (batch.num_rows == 0) continue;
    TARN_RETURN_NOT_OK(fn(batch));
  }
  return Status::OK();
}

Result<ChangeSet> Catalog::DoChanges(std::string_view qualified, const ChangeQuery& query) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  if (query.limit && (*query.limit < 1 || *query.limit > kMaxChangePage)) {
    return Status::InvalidArgument("a change page's limit is 1 to " +
                                   std::to_string(kMaxChangePage) + " snapshots")
        .WithField("field", "limit");
  }
  const int64_t from_snapshot_id = query.from;
  ChangeSet out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out = ChangeSet();
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        int64_t current = ds.current_snapshot_id.value_or(0);
        int64_t to = query.to.value_or(current);
        if (from_snapshot_id < 0 || to < from_snapshot_id || to > current) {
          return Status::InvalidArgument("change range (" + std::to_string(from_snapshot_id) +
                                         ", " + std::to_string(to) + "] is not within (0, " +
                                         std::to_string(current) + "]");
        }
        // A page covers `limit` snapshot ids and ends on one, so its end is an offset.
        if (query.limit && to - from_snapshot_id > *query.limit) {
          to = from_snapshot_id + *query.limit;
          out.next_from = to;
        }
        if (from_snapshot_id < ds.expired_through) {
          return Status::Of(codes::kChangesExpired, "changes of '" + n.ToString() +
                                                        "' after snapshot " +
                                                        std::to_string(from_snapshot_id) +
                                                        " have expired (snapshots up to " +
                                                        std::to_string(ds.expired_through) +
                                                        " are gone); reconcile from a full scan")
              .WithField("expired_through", std::to_string(ds.expired_through));
        }
        out.from_snapshot_id = from_snapshot_id;
        out.to_snapshot_id = to;
        TARN_ASSIGN_OR_RETURN(out.added_files,
                              catalog_store::ChangedFiles(tx, ds.id, from_snapshot_id, to, false));
        TARN_ASSIGN_OR_RETURN(out.removed_files,
                              catalog_store::ChangedFiles(tx, ds.id, from_snapshot_id, to, true));
        for (bool removed : {false, true}) {
          TARN_ASSIGN_OR_RETURN(auto vectors, catalog_store::ChangedVectors(
                                                  tx, ds.id, from_snapshot_id, to, removed));
          out.deletion_vectors.insert(out.deletion_vectors.end(),
                                      std::make_move_iterator(vectors.begin()),
                                      std::make_move_iterator(vectors.end()));
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::CommitOffset(std::string_view qualified, std::string_view consumer,
                             int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(ValidateIdentifier("consumer name", consumer));
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
    int64_t current = ds.current_snapshot_id.value_or(0);
    if (snapshot_id < 0 || snapshot_id > current) {
      return Status::Of(codes::kOffsetOutOfRange, "offset " + std::to_string(snapshot_id) +
                                                      " is past the current snapshot " +
                                                      std::to_string(current));
    }
    TARN_ASSIGN_OR_RETURN(bool moved, catalog_store::AdvanceOffset(tx, ds.id, consumer, snapshot_id,
                                                                   clock_->NowMicros()));
    if (!moved) {
      TARN_ASSIGN_OR_RETURN(auto now_at, catalog_store::Offset(tx, ds.id, consumer));
      std::string at = now_at ? std::to_string(*now_at) : "?";
      return Status::Of(codes::kOffsetRegression, "consumer '" + std::string(consumer) +
                                                      "' is already at snapshot " + at +
                                                      "; offsets only move forward")
          .WithField("offset", at);
    }
    return Status::OK();
  });
}

Result<std::optional<int64_t>> Catalog::GetOffset(std::string_view qualified,
                                                  std::string_view consumer) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  std::optional<int64_t> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(out, catalog_store::Offset(tx, ds.id, consumer));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace tarn

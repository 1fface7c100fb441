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
#include "common/parallel.h"
#include "datafile/reader.h"
#include "metastore/metastore.h"
#include "table/bounds_index.h"
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

// Planning by bloom filters (docs/design/catalog-core.md "Bloom filters"): when the = and IN
// leaves of the predicate compare columns or STRUCT members the dataset's
// kBloomFilterColumnsProperty names, the files the statistics leave are asked, in parallel,
// whether their filters rule the predicate out (footer and filters read, no data page).
// Holds copies of what it needs, so it outlives the transaction that made it.
class BloomProbe {
 public:
  // nullopt when nothing can be asked.
  static std::optional<BloomProbe> Make(ObjectStore& store, const DatasetInfo& ds,
                                        const BoundPredicate* pred) {
    if (pred == nullptr) return std::nullopt;
    const std::vector<int32_t> filtered = BloomFilterFieldIds(ds.properties, ds.schema);
    for (int32_t id : MembershipFieldIds(*pred)) {
      if (std::find(filtered.begin(), filtered.end(), id) != filtered.end()) {
        return BloomProbe(store, ds.schema, *pred);
      }
    }
    return std::nullopt;
  }

  // keep[i - begin]: whether files[i] may match, for i in [begin, end).
  std::vector<bool> Keep(const std::vector<PlannedFile>& files, size_t begin, size_t end) {
    constexpr size_t kThreads = 16;  // footer and filter reads: latency, not CPU
    std::vector<ReadStats> stats(end - begin);
    std::vector<bool> keep(end - begin);
    std::vector<char> kept(end - begin);  // vector<bool> is not safe to write from threads
    ParallelFor(end - begin, kThreads, [&](size_t i) {
      kept[i] = MayMatchByBloomFilters(*store_, files[begin + i].file, schema_, pred_, &stats[i]);
    });
    for (size_t i = 0; i < kept.size(); ++i) {
      keep[i] = kept[i] != 0;
      stats_ += stats[i];
    }
    return keep;
  }

  const ReadStats& stats() const { return stats_; }

 private:
  BloomProbe(ObjectStore& store, Schema schema, BoundPredicate pred)
      : store_(&store), schema_(std::move(schema)), pred_(std::move(pred)) {}

  ObjectStore* store_;
  Schema schema_;
  BoundPredicate pred_;
  ReadStats stats_;
};

// More candidates than this from the bounds index and planning reads every live file instead:
// past a tenth of a million-file dataset the id lookups cost more than the full read saves.
constexpr int64_t kMaxIndexCandidates = 100'000;

// The bounds index's candidates (docs/design/catalog-core.md "The bounds index"): the ids of
// the file rows (live or not) whose bounds of each indexed field the predicate confines meet
// what it confines the field to, intersected over those fields. nullopt when no indexed field
// is confined, or each confined one has more than kMaxIndexCandidates candidates.
Result<std::optional<std::vector<int64_t>>> IndexCandidates(Transaction& tx, const DatasetInfo& ds,
                                                            const BoundPredicate* pred) {
  using Ids = std::optional<std::vector<int64_t>>;
  // The property and datasets.bounds_fields change in one transaction, and `ds` was read in
  // this one: without the property there is no index and no need to ask for its fields.
  if (pred == nullptr || !ds.properties.count(kBoundsIndexColumnsProperty)) return Ids();
  TARN_ASSIGN_OR_RETURN(std::vector<int32_t> fields, catalog_store::BoundsFields(tx, ds.id));
  Ids acc;
  for (int32_t id : fields) {
    std::optional<std::vector<bounds_index::Interval>> confined = bounds_index::Confine(*pred, id);
    if (!confined) continue;
    if (confined->empty()) return Ids(std::vector<int64_t>{});  // no row can match
    TARN_ASSIGN_OR_RETURN(
        Ids ids, catalog_store::BoundsCandidates(tx, ds.id, id, *confined, kMaxIndexCandidates));
    if (!ids) continue;
    if (!acc) {
      acc = std::move(ids);
      continue;
    }
    std::vector<int64_t> both;
    std::set_intersection(acc->begin(), acc->end(), ids->begin(), ids->end(),
                          std::back_inserter(both));
    acc = std::move(both);
  }
  return acc;
}

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
// is read downwards, held, and returned in path order. With `probe`, the files of a batch that
// the statistics leave are asked about their bloom filters, as many at a time as could still
// fill the page.
Status ForEachPlannedFileInPage(Transaction& tx, const DatasetInfo& ds, int64_t snapshot_id,
                                bool current, const BoundPredicate* pred, BloomProbe* probe,
                                const FileQuery& page,
                                const std::function<Status(const PlannedFile&)>& fn) {
  const bool backward = page.before && !page.after && page.limit;
  const int64_t want = page.limit.value_or(INT64_MAX);
  const int64_t batch = !pred                      ? std::min(want, kMaxFilePage)
                        : want >= kMaxFilePage / 4 ? kMaxFilePage
                                                   : std::max<int64_t>(want * 4, 64);
  TARN_ASSIGN_OR_RETURN(auto pruner, FilePruner::Make(tx, ds, pred));
  TARN_ASSIGN_OR_RETURN(auto indexed, IndexCandidates(tx, ds, pred));
  catalog_store::LiveFileQuery q = LiveFilesOf(ds, snapshot_id, current);
  q.path_after = page.after;
  q.path_before = page.before;
  q.descending = backward;
  q.limit = batch;
  if (indexed) q.file_ids = &*indexed;  // one pass over the candidates, sorted here
  std::vector<PlannedFile> held;
  int64_t on_page = 0;
  while (on_page < want) {
    int64_t rows = 0;
    std::string last;
    std::vector<PlannedFile> candidates;  // of this batch, those the statistics leave
    TARN_RETURN_NOT_OK(catalog_store::LiveFiles(tx, q, [&](catalog_store::LiveFile& f) -> Status {
      ++rows;
      last = f.planned.file.path;
      if (pruner.MayMatch(f.planned.file)) candidates.push_back(std::move(f.planned));
      return Status::OK();
    }));
    if (indexed) {
      std::sort(candidates.begin(), candidates.end(),
                [&](const PlannedFile& a, const PlannedFile& b) {
                  return backward ? a.file.path > b.file.path : a.file.path < b.file.path;
                });
      rows = 0;  // nothing more to read
    }
    for (size_t at = 0; at < candidates.size() && on_page < want;) {
      const size_t n = probe ? std::min<size_t>(candidates.size() - at,
                                                 static_cast<size_t>(std::min<int64_t>(
                                                     want - on_page, 64)))
                             : candidates.size() - at;
      const std::vector<bool> keep =
          probe ? probe->Keep(candidates, at, at + n) : std::vector<bool>(n, true);
      for (size_t i = 0; i < n && on_page < want; ++i) {
        if (!keep[i]) continue;
        ++on_page;
        if (backward) {
          held.push_back(std::move(candidates[at + i]));
        } else {
          TARN_RETURN_NOT_OK(fn(candidates[at + i]));
        }
      }
      at += n;
    }
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
  TARN_ASSIGN_OR_RETURN(auto indexed, IndexCandidates(tx, ds, pred));
  if (indexed) q.file_ids = &*indexed;
  return catalog_store::LiveFiles(tx, q, [&](catalog_store::LiveFile& f) -> Status {
    if (!pruner.MayMatch(f.planned.file)) return Status::OK();
    return fn(f.planned, f.vector_id);
  });
}

struct Catalog::ScanCounters {
  std::mutex mu;
  ReadStats totals;
  ReadStats planned;  // plan_stats()
};

Status Catalog::DoPlanFiles(std::string_view qualified, const SnapshotSelector& at,
                            std::string_view where, const FileQuery& page,
                            const std::function<Status(const PlannedFile&)>& fn) {
  return PlanFilesImpl(qualified, at, where, page, /*bloom_filters=*/true, fn);
}

Status Catalog::PlanFilesImpl(std::string_view qualified, const SnapshotSelector& at,
                              std::string_view where, const FileQuery& page, bool bloom_filters,
                              const std::function<Status(const PlannedFile&)>& fn) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  if (page.limit && (*page.limit < 1 || *page.limit > kMaxFilePage)) {
    return Status::InvalidArgument("a file page's limit is 1 to " + std::to_string(kMaxFilePage))
        .WithField("field", "limit");
  }
  const bool paged = page.limit || page.after || page.before;
  // Unpaged with a bloom filter probe, the files the statistics leave are held and asked after
  // the read transaction (object-store reads do not hold it open); paged, a page's are asked
  // within it, as few as fill the page.
  std::optional<BloomProbe> probe;
  std::vector<PlannedFile> held;
  bool unprobed = false;  // more candidates than bloom_probe_limit(): not asked
  const size_t limit = bloom_probe_limit_.load();
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        probe.reset();
        held.clear();
        unprobed = false;
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
        if (bloom_filters) probe = BloomProbe::Make(*warehouse_, ds, pred ? &*pred : nullptr);
        if (paged) {
          return ForEachPlannedFileInPage(tx, ds, *resolved.snapshot_id, current,
                                          pred ? &*pred : nullptr, probe ? &*probe : nullptr,
                                          page, fn);
        }
        return ForEachPlannedFile(tx, ds, *resolved.snapshot_id, current, pred ? &*pred : nullptr,
                                  [&](const PlannedFile& f, std::optional<int64_t>) {
                                    if (!probe || unprobed) return fn(f);
                                    if (held.size() < limit) {
                                      held.push_back(f);
                                      return Status::OK();
                                    }
                                    // Too many to hold: the statistics alone decide, streamed.
                                    unprobed = true;
                                    for (const PlannedFile& h : held) TARN_RETURN_NOT_OK(fn(h));
                                    held.clear();
                                    return fn(f);
                                  });
      },
      TxMode::kReadOnly));
  if (!probe || unprobed) return Status::OK();
  constexpr size_t kChunk = 256;  // files asked at a time, then given out in path order
  for (size_t begin = 0; begin < held.size(); begin += kChunk) {
    const size_t end = std::min(held.size(), begin + kChunk);
    const std::vector<bool> keep = probe->Keep(held, begin, end);
    for (size_t i = begin; i < end; ++i) {
      if (keep[i - begin]) TARN_RETURN_NOT_OK(fn(held[i]));
    }
  }
  std::lock_guard<std::mutex> lock(scan_counters_->mu);
  scan_counters_->planned += probe->stats();
  return Status::OK();
}

Result<std::vector<int32_t>> ScanFieldIds(const Schema& schema,
                                          const std::vector<std::string>& columns,
                                          std::string_view dataset) {
  std::vector<int32_t> ids;
  for (const std::string& name : columns) {
    Result<FieldPath> path = ResolveColumnOrMember(schema, name);
    if (!path.ok()) {
      // Column names have no dots: why a dotted path names no member is told.
      const bool dotted = name.find('.') != std::string::npos;
      std::string why = dotted ? ": " + path.status().message() : "";
      const std::string shown = name.substr(0, 200);  // a request's text: echoed cut
      return Status::Of(codes::kColumnNotFound,
                        "'" + std::string(dataset) + "' has no column '" + shown + "'" + why)
          .WithField("column", shown);
    }
    ids.push_back(path->field->field_id);
  }
  return ids;
}

std::shared_ptr<Catalog::ScanCounters> Catalog::NewScanCounters() {
  return std::make_shared<ScanCounters>();
}

ReadStats Catalog::scan_stats() const {
  std::lock_guard<std::mutex> lock(scan_counters_->mu);
  return scan_counters_->totals;
}

ReadStats Catalog::plan_stats() const {
  std::lock_guard<std::mutex> lock(scan_counters_->mu);
  return scan_counters_->planned;
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
  // Not asking the bloom filters here: reading each file asks them with the footer it reads.
  TARN_RETURN_NOT_OK(PlanFilesImpl(qualified, options.at, options.where, FileQuery{},
                                   /*bloom_filters=*/false, [&](const PlannedFile& f) {
                                     if (!options.added_after ||
                                         f.file.added_snapshot_id > *options.added_after) {
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
    TARN_RETURN_NOT_OK(ReadDataFileBatches(*warehouse_, f.file, ds.schema, deleted,
                                           pred ? &*pred : nullptr, read, options.batch_rows,
                                           [&](RecordBatch&& batch) { return fn(batch); }));
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

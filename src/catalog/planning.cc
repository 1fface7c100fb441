// Planning and scans (C8), the change feed and consumer offsets (C9).
#include <algorithm>
#include <cstdint>
#include <map>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "datafile/reader.h"
#include "metastore/metastore.h"
#include "table/deletion_vector.h"
#include "table/predicate.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

// The WHERE conditions (after dataset and liveness) of the queries that together return every
// live file a predicate may match: for files of the current spec, a range (or set) of
// `partition_key` plus the files whose key is NULL; files of older specs are all returned (their
// partition values are pruned per file). Each condition leads with (spec_id, partition_key) so
// that it is one range scan of data_files_live_partition: an OR across them would make the
// database read every live file.
struct Branch {
  std::string sql;
  SqlParams params;
};
std::vector<Branch> PushdownBranches(const BoundPredicate* pred, const DatasetInfo& ds) {
  std::optional<KeyRange> range;
  if (pred && !ds.spec.unpartitioned()) range = PartitionKeyRange(*pred, ds.spec, ds.schema);
  if (!range) return {Branch{"", {}}};
  std::vector<Branch> out;
  const int64_t spec_id = ds.spec.spec_id;
  if (!range->empty) {
    Branch b{" AND f.spec_id = ?", {spec_id}};
    if (!range->in.empty()) {
      b.sql += " AND f.partition_key IN (";
      for (size_t i = 0; i < range->in.size(); ++i) {
        b.sql += i ? ", ?" : "?";
        b.params.push_back(SqlValue::Blob(range->in[i]));
      }
      b.sql += ")";
    } else {
      b.sql += " AND f.partition_key IS NOT NULL";
      if (range->lo) {
        b.sql += " AND f.partition_key >= ?";
        b.params.push_back(SqlValue::Blob(*range->lo));
      }
      if (range->hi) {
        b.sql += " AND f.partition_key <= ?";
        b.params.push_back(SqlValue::Blob(*range->hi));
      }
    }
    out.push_back(std::move(b));
  }
  out.push_back(Branch{" AND f.spec_id = ? AND f.partition_key IS NULL", {spec_id}});
  if (spec_id > 0) out.push_back(Branch{" AND f.spec_id < ?", {spec_id}});
  return out;
}

// The SELECT of a snapshot's live files, each with its live deletion vector (cardinality,
// positions, row id), through the WHERE conditions of dataset and liveness.
Branch LiveFilesSelect(const DatasetInfo& ds, int64_t snapshot_id, bool current) {
  Branch out;
  out.sql = std::string("SELECT ") + kDataFileColumns +
            ", dv.cardinality, dv.positions, dv.id FROM data_files f LEFT JOIN "
            "deletion_vectors dv ON dv.data_file_id = f.id AND ";
  if (current) {
    out.sql +=
        "dv.removed_snapshot_id IS NULL WHERE f.dataset_id = ? AND "
        "f.removed_snapshot_id IS NULL";
    out.params = {ds.id};
  } else {
    out.sql +=
        "dv.added_snapshot_id <= ? AND (dv.removed_snapshot_id IS NULL OR "
        "dv.removed_snapshot_id > ?) WHERE f.dataset_id = ? AND f.added_snapshot_id <= ? AND "
        "(f.removed_snapshot_id IS NULL OR f.removed_snapshot_id > ?)";
    out.params = {snapshot_id, snapshot_id, ds.id, snapshot_id, snapshot_id};
  }
  return out;
}

// Decodes the rows of LiveFilesSelect and prunes them with the predicate: the partition values
// of files written under older specs with their own spec.
class PlannedFileReader {
 public:
  static Result<PlannedFileReader> Make(Transaction& tx, const DatasetInfo& ds,
                                        const BoundPredicate* pred) {
    PlannedFileReader out(ds, pred);
    out.specs_[ds.spec.spec_id] = ds.spec;
    if (pred && ds.spec.spec_id > 0) {
      TARN_ASSIGN_OR_RETURN(auto all, LoadSpecs(tx, ds.id));
      for (auto& spec : all) out.specs_[spec.spec_id] = std::move(spec);
    }
    return out;
  }

  // Fills `pf` and `vector_id`; false when the predicate rules the file out.
  Result<bool> Read(const Row& r, PlannedFile* pf, std::optional<int64_t>* vector_id) const {
    TARN_ASSIGN_OR_RETURN(pf->file, DataFileFromRow(r));
    constexpr int kVector = kDataFileColumnCount;  // dv.cardinality, dv.positions, dv.id
    if (!r.IsNull(kVector)) {
      TARN_ASSIGN_OR_RETURN(pf->deleted_rows, r.Int64(kVector));
      TARN_ASSIGN_OR_RETURN(auto blob, r.Blob(kVector + 1));
      pf->deletion_vector = std::string(blob);
      TARN_ASSIGN_OR_RETURN(*vector_id, r.Int64(kVector + 2));
    }
    if (!pred_) return true;
    static const PartitionSpec kUnpartitioned;
    auto it = specs_.find(pf->file.spec_id);
    // Without its spec at hand, the partition values cannot be used; the bounds still can.
    if (it == specs_.end()) {
      DataFile probe = pf->file;
      probe.partition.clear();
      return MightMatch(*pred_, probe, kUnpartitioned, ds_->schema);
    }
    return MightMatch(*pred_, pf->file, it->second, ds_->schema);
  }

 private:
  PlannedFileReader(const DatasetInfo& ds, const BoundPredicate* pred) : ds_(&ds), pred_(pred) {}

  const DatasetInfo* ds_;
  const BoundPredicate* pred_;
  std::map<int32_t, PartitionSpec> specs_;
};

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
  TARN_ASSIGN_OR_RETURN(auto reader, PlannedFileReader::Make(tx, ds, pred));
  const Branch head = LiveFilesSelect(ds, snapshot_id, current);
  std::optional<std::string> lo = page.after;
  std::optional<std::string> hi = page.before;
  std::vector<PlannedFile> held;
  int64_t on_page = 0;
  while (on_page < want) {
    std::string sql = head.sql;
    SqlParams params = head.params;
    if (lo) {
      sql += " AND f.path > ?";
      params.emplace_back(*lo);
    }
    if (hi) {
      sql += " AND f.path < ?";
      params.emplace_back(*hi);
    }
    sql += backward ? " ORDER BY f.path DESC LIMIT ?" : " ORDER BY f.path LIMIT ?";
    params.emplace_back(batch);
    int64_t rows = 0;
    std::string last;
    TARN_RETURN_NOT_OK(tx.QueryEach(sql, params, [&](const Row& r) -> Status {
      ++rows;
      if (on_page >= want) return Status::OK();  // the page filled up inside this batch
      PlannedFile pf;
      std::optional<int64_t> vector_id;
      TARN_ASSIGN_OR_RETURN(bool keep, reader.Read(r, &pf, &vector_id));
      last = pf.file.path;
      if (!keep) return Status::OK();
      ++on_page;
      if (backward) {
        held.push_back(std::move(pf));
        return Status::OK();
      }
      return fn(pf);
    }));
    if (rows < batch) break;
    (backward ? hi : lo) = last;
  }
  for (auto it = held.rbegin(); it != held.rend(); ++it) TARN_RETURN_NOT_OK(fn(*it));
  return Status::OK();
}

}  // namespace

Status catalog_internal::ForEachPlannedFile(
    Transaction& tx, const DatasetInfo& ds, int64_t snapshot_id, bool current,
    const BoundPredicate* pred,
    const std::function<Status(const PlannedFile&, std::optional<int64_t> vector_id)>& fn) {
  const Branch head = LiveFilesSelect(ds, snapshot_id, current);
  std::string sql;
  SqlParams params;
  for (const Branch& b : PushdownBranches(pred, ds)) {
    if (!sql.empty()) sql += " UNION ALL ";
    sql += head.sql + b.sql;
    params.insert(params.end(), head.params.begin(), head.params.end());
    params.insert(params.end(), b.params.begin(), b.params.end());
  }
  TARN_ASSIGN_OR_RETURN(auto reader, PlannedFileReader::Make(tx, ds, pred));
  return tx.QueryEach(sql, params, [&](const Row& r) -> Status {
    PlannedFile pf;
    std::optional<int64_t> vector_id;
    TARN_ASSIGN_OR_RETURN(bool keep, reader.Read(r, &pf, &vector_id));
    if (!keep) return Status::OK();
    return fn(pf, vector_id);
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
    if (i < 0) {
      return Status::Of(codes::kColumnNotFound,
                        "'" + std::string(dataset) + "' has no column '" + name + "'")
          .WithField("column", name);
    }
    ids.push_back(schema.fields[i].field_id);
  }
  return ids;
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
        auto collect = [&](const char* column, std::vector<DataFile>* into) {
          return tx.QueryEach(std::string("SELECT ") + kDataFileColumns +
                                  " FROM data_files f WHERE f.dataset_id = ? AND f." + column +
                                  " > ? AND f." + column + " <= ? ORDER BY f." + column + ", f.id",
                              {ds.id, from_snapshot_id, to}, [&](const Row& r) -> Status {
                                TARN_ASSIGN_OR_RETURN(auto f, DataFileFromRow(r));
                                into->push_back(std::move(f));
                                return Status::OK();
                              });
        };
        TARN_RETURN_NOT_OK(collect("added_snapshot_id", &out.added_files));
        TARN_RETURN_NOT_OK(collect("removed_snapshot_id", &out.removed_files));
        for (const char* column : {"added_snapshot_id", "removed_snapshot_id"}) {
          bool removed = std::string_view(column) == "removed_snapshot_id";
          TARN_RETURN_NOT_OK(tx.QueryEach(
              std::string("SELECT f.path, dv.") + column +
                  ", dv.cardinality FROM deletion_vectors dv JOIN data_files f ON f.id = "
                  "dv.data_file_id WHERE dv.dataset_id = ? AND dv." +
                  column + " > ? AND dv." + column + " <= ? ORDER BY dv." + column + ", dv.id",
              {ds.id, from_snapshot_id, to}, [&](const Row& r) -> Status {
                ChangeSet::VectorChange v;
                TARN_ASSIGN_OR_RETURN(auto path, r.Text(0));
                v.path = std::string(path);
                TARN_ASSIGN_OR_RETURN(v.snapshot_id, r.Int64(1));
                TARN_ASSIGN_OR_RETURN(v.cardinality, r.Int64(2));
                v.removed = removed;
                out.deletion_vectors.push_back(std::move(v));
                return Status::OK();
              }));
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
    TARN_ASSIGN_OR_RETURN(
        int64_t changed,
        tx.Execute("INSERT INTO consumer_offsets (dataset_id, consumer, snapshot_id, updated_at) "
                   "VALUES (?, ?, ?, ?) ON CONFLICT (dataset_id, consumer) DO UPDATE SET "
                   "snapshot_id = excluded.snapshot_id, updated_at = excluded.updated_at WHERE "
                   "consumer_offsets.snapshot_id <= excluded.snapshot_id",
                   {ds.id, consumer, snapshot_id, clock_->NowMicros()}));
    if (changed == 0) {
      TARN_ASSIGN_OR_RETURN(
          auto row, tx.QueryOne("SELECT snapshot_id FROM consumer_offsets WHERE dataset_id = ? "
                                "AND consumer = ?",
                                {ds.id, consumer}));
      std::string at = row ? std::to_string(*row->Int64(0)) : "?";
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
        TARN_ASSIGN_OR_RETURN(
            auto row, tx.QueryOne("SELECT snapshot_id FROM consumer_offsets WHERE dataset_id = ? "
                                  "AND consumer = ?",
                                  {ds.id, consumer}));
        out.reset();
        if (row) {
          TARN_ASSIGN_OR_RETURN(int64_t v, row->Int64(0));
          out = v;
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace tarn

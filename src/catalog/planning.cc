// Planning and scans (C8), the change feed and consumer offsets (C9).
#include <map>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "datafile/reader.h"
#include "metastore/metastore.h"
#include "table/deletion_vector.h"
#include "table/predicate.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

// SQL condition and parameters restricting `f.partition_key` for files of the current spec.
void AddPartitionPushdown(const BoundPredicate& pred, const DatasetInfo& ds, std::string* sql,
                          SqlParams* params) {
  if (ds.spec.unpartitioned()) return;
  std::optional<KeyRange> range = PartitionKeyRange(pred, ds.spec, ds.schema);
  if (!range) return;
  std::string cond;
  if (range->empty) {
    cond = "1 = 0";
  } else if (!range->in.empty()) {
    cond = "f.partition_key IN (";
    for (size_t i = 0; i < range->in.size(); ++i) {
      cond += i ? ", ?" : "?";
    }
    cond += ")";
  } else {
    cond = "1 = 1";
    if (range->lo) cond += " AND f.partition_key >= ?";
    if (range->hi) cond += " AND f.partition_key <= ?";
  }
  *sql += " AND (f.spec_id <> ? OR f.partition_key IS NULL OR (" + cond + "))";
  params->push_back(int64_t{ds.spec.spec_id});
  if (range->empty) return;
  if (!range->in.empty()) {
    for (const auto& k : range->in) params->push_back(SqlValue::Blob(k));
    return;
  }
  if (range->lo) params->push_back(SqlValue::Blob(*range->lo));
  if (range->hi) params->push_back(SqlValue::Blob(*range->hi));
}

// Streams the live files of `ds` at `snapshot_id` with their live deletion vectors.
Status ForEachLiveFile(Transaction& tx, const DatasetInfo& ds, int64_t snapshot_id, bool current,
                       const BoundPredicate* pred,
                       const std::function<Status(const PlannedFile&)>& fn) {
  std::string sql = std::string("SELECT ") + kDataFileColumns +
                    ", dv.cardinality, dv.positions FROM data_files f LEFT JOIN "
                    "deletion_vectors dv ON dv.data_file_id = f.id AND ";
  SqlParams params;
  if (current) {
    sql += "dv.removed_snapshot_id IS NULL WHERE f.dataset_id = ? AND f.removed_snapshot_id IS NULL";
    params = {ds.id};
  } else {
    sql += "dv.added_snapshot_id <= ? AND (dv.removed_snapshot_id IS NULL OR "
           "dv.removed_snapshot_id > ?) WHERE f.dataset_id = ? AND f.added_snapshot_id <= ? AND "
           "(f.removed_snapshot_id IS NULL OR f.removed_snapshot_id > ?)";
    params = {snapshot_id, snapshot_id, ds.id, snapshot_id, snapshot_id};
  }
  if (pred) AddPartitionPushdown(*pred, ds, &sql, &params);
  sql += " ORDER BY f.id";
  // Partition values of files written under older specs are pruned with their own spec.
  std::map<int32_t, PartitionSpec> specs;
  specs[ds.spec.spec_id] = ds.spec;
  if (pred && ds.spec.spec_id > 0) {
    TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("SELECT spec_json FROM dataset_partition_specs "
                                              "WHERE dataset_id = ?",
                                              {ds.id}));
    for (const Row& r : rows) {
      TARN_ASSIGN_OR_RETURN(auto text, r.Text(0));
      TARN_ASSIGN_OR_RETURN(auto spec, PartitionSpec::FromJson(text));
      specs[spec.spec_id] = std::move(spec);
    }
  }
  return tx.QueryEach(sql, params, [&](const Row& r) -> Status {
    PlannedFile pf;
    TARN_ASSIGN_OR_RETURN(pf.file, DataFileFromRow(r));
    if (!r.IsNull(11)) {
      TARN_ASSIGN_OR_RETURN(pf.deleted_rows, r.Int64(11));
      TARN_ASSIGN_OR_RETURN(auto blob, r.Blob(12));
      pf.deletion_vector = std::string(blob);
    }
    if (pred) {
      static const PartitionSpec kUnpartitioned;
      auto it = specs.find(pf.file.spec_id);
      // Without its spec at hand, the partition values cannot be used; the bounds still can.
      const PartitionSpec& spec = it != specs.end() ? it->second : kUnpartitioned;
      DataFile probe;
      const DataFile* file = &pf.file;
      if (it == specs.end()) {
        probe = pf.file;
        probe.partition.clear();
        file = &probe;
      }
      if (!MightMatch(*pred, *file, spec, ds.schema)) return Status::OK();
    }
    return fn(pf);
  });
}

}  // namespace

Status Catalog::PlanFiles(std::string_view qualified, const SnapshotSelector& at,
                          std::string_view where,
                          const std::function<Status(const PlannedFile&)>& fn) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  return metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(auto resolved, ResolveSnapshot(tx, ds, at));
        if (!resolved.snapshot_id) return Status::OK();  // no commits yet: no files
        bool current = resolved.snapshot_id == ds.current_snapshot_id;
        // A read at a selected snapshot uses that snapshot's schema (it differs from the
        // dataset's after an ALTER, even when the snapshot is the current one); a read of the
        // current state uses the dataset's current schema.
        TARN_ASSIGN_OR_RETURN(
            auto row, tx.QueryOne("SELECT schema_id FROM snapshots WHERE dataset_id = ? AND "
                                  "snapshot_id = ?",
                                  {ds.id, *resolved.snapshot_id}));
        if (!row) return Status::Internal("resolved snapshot vanished");
        TARN_ASSIGN_OR_RETURN(int64_t schema_id, row->Int64(0));
        if (!at.empty() && schema_id != ds.schema_id) {
          TARN_ASSIGN_OR_RETURN(ds.schema, LoadSchema(tx, ds.id, schema_id));
        }
        std::optional<BoundPredicate> pred;
        if (!where.empty()) {
          TARN_ASSIGN_OR_RETURN(pred, ParseAndBindPredicate(where, ds.schema));
        }
        return ForEachLiveFile(tx, ds, *resolved.snapshot_id, current,
                               pred ? &*pred : nullptr, fn);
      },
      TxMode::kReadOnly);
}

Status Catalog::Scan(std::string_view qualified, const SnapshotSelector& at,
                     std::string_view where, bool with_row_ids,
                     const std::function<Status(const RecordBatch&)>& fn) {
  // Both use the same rule for the schema: the selected snapshot's, or the current one.
  TARN_ASSIGN_OR_RETURN(auto ds, LoadDataset(qualified, at));
  if (!ds.current_snapshot_id) return Status::OK();
  std::optional<BoundPredicate> pred;
  if (!where.empty()) {
    TARN_ASSIGN_OR_RETURN(pred, ParseAndBindPredicate(where, ds.schema));
  }
  std::vector<PlannedFile> files;
  TARN_RETURN_NOT_OK(PlanFiles(qualified, at, where, [&](const PlannedFile& f) {
    files.push_back(f);
    return Status::OK();
  }));
  ReadOptions options;
  options.with_row_ids = with_row_ids;
  for (const PlannedFile& f : files) {
    std::vector<uint64_t> deleted;
    if (f.deletion_vector) {
      TARN_ASSIGN_OR_RETURN(deleted, DecodeDeletionVector(*f.deletion_vector));
    }
    TARN_ASSIGN_OR_RETURN(auto batch, ReadDataFile(*warehouse_, f.file, ds.schema, deleted,
                                                   pred ? &*pred : nullptr, options));
    if (batch.num_rows == 0) continue;
    TARN_RETURN_NOT_OK(fn(batch));
  }
  return Status::OK();
}

Result<ChangeSet> Catalog::Changes(std::string_view qualified, int64_t from_snapshot_id,
                                   std::optional<int64_t> to_snapshot_id) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  ChangeSet out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out = ChangeSet();
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        int64_t current = ds.current_snapshot_id.value_or(0);
        int64_t to = to_snapshot_id.value_or(current);
        if (from_snapshot_id < 0 || to < from_snapshot_id || to > current) {
          return Status::InvalidArgument("change range (" + std::to_string(from_snapshot_id) +
                                         ", " + std::to_string(to) + "] is not within (0, " +
                                         std::to_string(current) + "]");
        }
        if (from_snapshot_id < ds.expired_through) {
          return Status::Expired("changes of '" + n.ToString() + "' after snapshot " +
                                 std::to_string(from_snapshot_id) +
                                 " have expired (snapshots up to " +
                                 std::to_string(ds.expired_through) +
                                 " are gone); reconcile from a full scan")
              .WithField("code", "changes_expired")
              .WithField("expired_through", std::to_string(ds.expired_through));
        }
        out.from_snapshot_id = from_snapshot_id;
        out.to_snapshot_id = to;
        auto collect = [&](const char* column, std::vector<DataFile>* into) {
          return tx.QueryEach(std::string("SELECT ") + kDataFileColumns +
                                  " FROM data_files f WHERE f.dataset_id = ? AND f." + column +
                                  " > ? AND f." + column + " <= ? ORDER BY f." + column +
                                  ", f.id",
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
      return Status::InvalidArgument("offset " + std::to_string(snapshot_id) +
                                     " is past the current snapshot " + std::to_string(current))
          .WithField("code", "offset_out_of_range");
    }
    TARN_ASSIGN_OR_RETURN(
        int64_t changed,
        tx.Execute("INSERT INTO consumer_offsets (dataset_id, consumer, snapshot_id, updated_at) "
                   "VALUES (?, ?, ?, ?) ON CONFLICT (dataset_id, consumer) DO UPDATE SET "
                   "snapshot_id = excluded.snapshot_id, updated_at = excluded.updated_at WHERE "
                   "consumer_offsets.snapshot_id <= excluded.snapshot_id",
                   {ds.id, consumer, snapshot_id, NowMicros()}));
    if (changed == 0) {
      TARN_ASSIGN_OR_RETURN(
          auto row, tx.QueryOne("SELECT snapshot_id FROM consumer_offsets WHERE dataset_id = ? "
                                "AND consumer = ?",
                                {ds.id, consumer}));
      std::string at = row ? std::to_string(*row->Int64(0)) : "?";
      return Status::FailedPrecondition("consumer '" + std::string(consumer) +
                                        "' is already at snapshot " + at +
                                        "; offsets only move forward")
          .WithField("code", "offset_regression")
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

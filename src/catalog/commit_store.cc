// The commit's statements (store.h): the lock-and-allocate UPDATE of the dataset row, the
// inserts of data files and snapshot rows, the removal of files and deletion vectors, the
// restore of a rollback, and the reads the conflict checks make.
#include <algorithm>

#include "catalog/catalog_internal.h"
#include "catalog/store.h"
#include "table/field_path.h"
#include "table/ordered_key.h"
#include "table/schema_json.h"

namespace tarn::catalog_store {

using catalog_internal::DataFileFromRow;
using catalog_internal::kDataFileColumns;
using catalog_internal::kSnapshotColumns;
using catalog_internal::SnapshotFromRow;

namespace {

// The order-preserving key of a file's first partition value (NULL when unpartitioned or null).
Result<SqlValue> PartitionKey(const DataFile& f, const PartitionSpec& spec, const Schema& schema) {
  if (spec.fields.empty() || f.partition.empty() || !f.partition[0]) return SqlValue::Null();
  const PartitionField& pf = spec.fields[0];
  const std::optional<FieldPath> path = FindFieldPath(schema, pf.source_id);
  if (!path) return SqlValue::Null();
  const Field* source = path->field;
  TARN_ASSIGN_OR_RETURN(DataType type, pf.transform.ResultType(source->type));
  TARN_ASSIGN_OR_RETURN(std::string key, OrderedKeyFromText(type, *f.partition[0]));
  return SqlValue::Blob(key);
}

// Marks the files removed at `snapshot_id` (with their live deletion vectors), given a WHERE
// clause over data_files beyond dataset and liveness; adds what went to `out`.
Status RemoveWhere(Transaction& tx, int64_t dataset_id, int64_t snapshot_id,
                   const std::string& where, const SqlParams& where_params, RemovedFiles* out) {
  SqlParams params = {snapshot_id, dataset_id};
  params.insert(params.end(), where_params.begin(), where_params.end());
  TARN_ASSIGN_OR_RETURN(
      auto rows, tx.Query("UPDATE data_files SET removed_snapshot_id = ? WHERE dataset_id = ? AND "
                          "removed_snapshot_id IS NULL" +
                              where + " RETURNING id, record_count, file_size_bytes",
                          params));
  if (rows.empty()) return Status::OK();
  std::vector<int64_t> ids;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(int64_t id, r.Int64(0));
    TARN_ASSIGN_OR_RETURN(int64_t records, r.Int64(1));
    TARN_ASSIGN_OR_RETURN(int64_t bytes, r.Int64(2));
    ids.push_back(id);
    out->files += 1;
    out->records += records;
    out->bytes += bytes;
  }
  constexpr size_t kChunk = 500;
  for (size_t start = 0; start < ids.size(); start += kChunk) {
    size_t n = std::min(kChunk, ids.size() - start);
    SqlParams p = {snapshot_id};
    std::string in;
    for (size_t i = 0; i < n; ++i) {
      in += i ? ", ?" : "?";
      p.push_back(ids[start + i]);
    }
    TARN_ASSIGN_OR_RETURN(auto dvs,
                          tx.Query("UPDATE deletion_vectors SET removed_snapshot_id = ? WHERE "
                                   "removed_snapshot_id IS NULL AND data_file_id IN (" +
                                       in + ") RETURNING cardinality",
                                   p));
    for (const Row& r : dvs) {
      TARN_ASSIGN_OR_RETURN(int64_t card, r.Int64(0));
      out->deleted_rows += card;
    }
  }
  return Status::OK();
}

}  // namespace

// ---- the dataset row ----

Result<std::optional<LockedDataset>> LockDataset(Transaction& tx, const DatasetName& n,
                                                 const LockDelta& d, int64_t now) {
  if (tx.backend() == MetastoreBackend::kPostgres) {
    // Commits queue for the row on an advisory lock first, granted in arrival order (sent
    // with the UPDATE: no round trip). Waiting on the row lock itself, each waiter wakes when
    // the holder ends, follows the row to the version that holder wrote and races for it
    // again; 8 processes committing to one dataset spent a quarter more CPU per commit so and
    // committed 15-27% less (bench/README.md "Commits from many processes").
    TARN_RETURN_NOT_OK(tx.ExecuteDeferred(
        "SELECT pg_advisory_xact_lock(7403, hashtext(current_schema() || '.' || ?))",
        {n.ToString()}));
  }
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne(
          "UPDATE datasets SET last_snapshot_id = last_snapshot_id + ?, current_snapshot_id = "
          "last_snapshot_id + ?, next_row_id = next_row_id + ?, total_files = total_files + ?, "
          "total_records = total_records + ?, total_bytes = total_bytes + ?, last_commit_at = "
          "CASE WHEN last_commit_at > ? THEN last_commit_at ELSE ? END, updated_at = ? WHERE "
          "dropped_at IS NULL AND name = ? AND collection_id = (SELECT c.id FROM collections c "
          "JOIN workspaces w ON w.id = c.workspace_id WHERE w.name = ? AND c.name = ?) "
          "RETURNING id, uuid, last_snapshot_id, next_row_id, last_commit_at, schema_id, "
          "spec_id, total_files, total_records, total_bytes, expired_through, trigger_count, "
          "trigger_due_at, sources, bounds_fields",
          {d.snapshots, d.snapshots, d.row_ids, d.files, d.records, d.bytes, now, now, now,
           n.dataset, n.workspace, n.collection}));
  if (!row) return std::optional<LockedDataset>();
  LockedDataset lk;
  TARN_ASSIGN_OR_RETURN(lk.id, row->Int64(0));
  TARN_ASSIGN_OR_RETURN(auto uuid, row->Text(1));
  lk.uuid = std::string(uuid);
  TARN_ASSIGN_OR_RETURN(lk.last_snapshot_id, row->Int64(2));
  TARN_ASSIGN_OR_RETURN(lk.next_row_id, row->Int64(3));
  TARN_ASSIGN_OR_RETURN(lk.commit_at, row->Int64(4));
  TARN_ASSIGN_OR_RETURN(lk.schema_id, row->Int64(5));
  TARN_ASSIGN_OR_RETURN(lk.spec_id, row->Int64(6));
  TARN_ASSIGN_OR_RETURN(lk.total_files, row->Int64(7));
  TARN_ASSIGN_OR_RETURN(lk.total_records, row->Int64(8));
  TARN_ASSIGN_OR_RETURN(lk.total_bytes, row->Int64(9));
  TARN_ASSIGN_OR_RETURN(lk.expired_through, row->Int64(10));
  TARN_ASSIGN_OR_RETURN(lk.trigger_count, row->Int64(11));
  TARN_ASSIGN_OR_RETURN(lk.trigger_due_at, row->Int64(12));
  TARN_ASSIGN_OR_RETURN(auto sources, row->Text(13));
  lk.sources = std::string(sources);
  TARN_ASSIGN_OR_RETURN(auto bounds_fields, row->Text(14));
  lk.bounds_fields = ParseBoundsFields(bounds_fields);
  return std::optional<LockedDataset>(std::move(lk));
}

Result<std::optional<DefinitionVersions>> Definitions(Transaction& tx, int64_t dataset_id,
                                                      int64_t schema_id, int64_t spec_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT s.schema_json, p.spec_json FROM dataset_schemas s, "
                            "dataset_partition_specs p WHERE s.dataset_id = ? AND s.schema_id = ? "
                            "AND p.dataset_id = ? AND p.spec_id = ?",
                            {dataset_id, schema_id, dataset_id, spec_id}));
  if (!row) return std::optional<DefinitionVersions>();
  DefinitionVersions out;
  TARN_ASSIGN_OR_RETURN(auto schema_json, row->Text(0));
  TARN_ASSIGN_OR_RETURN(auto spec_json, row->Text(1));
  TARN_ASSIGN_OR_RETURN(out.schema, SchemaFromJson(schema_json));
  TARN_ASSIGN_OR_RETURN(out.spec, PartitionSpec::FromJson(spec_json));
  return std::optional<DefinitionVersions>(std::move(out));
}

Result<int64_t> ExpiredThrough(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(
      auto exists, tx.QueryOne("SELECT expired_through FROM datasets WHERE id = ?", {dataset_id}));
  return exists->Int64(0);
}

Status AddDatasetTotals(Transaction& tx, int64_t dataset_id, int64_t files, int64_t records,
                        int64_t bytes) {
  return tx.ExecuteDeferred(
      "UPDATE datasets SET total_files = total_files + ?, total_records = "
      "total_records + ?, total_bytes = total_bytes + ? WHERE id = ?",
      {files, records, bytes, dataset_id});
}

// ---- snapshots ----

Result<std::optional<SnapshotInfo>> LiveSnapshotByIdempotencyKey(Transaction& tx,
                                                                 const DatasetName& n,
                                                                 std::string_view key) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne(std::string("SELECT ") + kSnapshotColumns +
                                " FROM snapshots sn JOIN datasets d ON d.id = sn.dataset_id "
                                "JOIN collections c ON c.id = d.collection_id JOIN "
                                "workspaces w ON w.id = c.workspace_id WHERE w.name = ? AND "
                                "c.name = ? AND d.name = ? AND d.dropped_at IS NULL AND "
                                "sn.idempotency_key = ?",
                            {n.workspace, n.collection, n.dataset, key}));
  if (!row) return std::optional<SnapshotInfo>();
  TARN_ASSIGN_OR_RETURN(auto s, SnapshotFromRow(*row));
  return std::optional<SnapshotInfo>(std::move(s));
}

Result<int64_t> CountRewritesBetween(Transaction& tx, int64_t dataset_id, int64_t after,
                                     int64_t through) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne("SELECT COUNT(*) FROM snapshots WHERE dataset_id = ? AND "
                                    "snapshot_id > ? AND snapshot_id <= ? AND operation NOT IN "
                                    "('append', 'add_files', 'delete_rows')",
                                    {dataset_id, after, through}));
  return row->Int64(0);
}

Status InsertSnapshots(Transaction& tx, int64_t dataset_id,
                       const std::vector<const SnapshotInfo*>& snaps,
                       const std::vector<std::string>& sources) {
  constexpr size_t kCols = 24;
  if (snaps.empty()) return Status::OK();
  SqlParams params;
  params.reserve(snaps.size() * kCols);
  for (size_t i = 0; i < snaps.size(); ++i) {
    const SnapshotInfo& s = *snaps[i];
    params.insert(params.end(),
                  {dataset_id,
                   s.snapshot_id,
                   SqlValue::OptionalInt64(s.parent_snapshot_id),
                   s.committed_at_us,
                   s.author,
                   s.message,
                   s.operation,
                   s.user_created,
                   int64_t{s.schema_id},
                   int64_t{s.spec_id},
                   s.added_files,
                   s.deleted_files,
                   s.total_files,
                   s.added_records,
                   s.deleted_records,
                   s.total_records,
                   s.added_bytes,
                   s.deleted_bytes,
                   s.total_bytes,
                   s.receipt ? s.receipt->ToJson() : std::string("{}"),
                   s.idempotency_key ? SqlValue(*s.idempotency_key) : SqlValue::Null(),
                   s.commit_id,
                   sources[i],
                   SqlValue::OptionalInt64(s.next_row_id)});
  }
  return tx.ExecuteDeferred(
      "INSERT INTO snapshots (dataset_id, snapshot_id, parent_snapshot_id, committed_at, author, "
      "message, operation, user_created, schema_id, spec_id, added_files, deleted_files, "
      "total_files, added_records, deleted_records, total_records, added_bytes, deleted_bytes, "
      "total_bytes, receipt, idempotency_key, commit_id, sources, next_row_id) VALUES " +
          Placeholders(snaps.size(), kCols),
      params);
}

// ---- data files ----

Status InsertDataFiles(Transaction& tx, int64_t dataset_id, const std::vector<DataFile*>& files,
                       const PartitionSpec& spec, const Schema& schema,
                       const std::vector<BoundsField>& bounds) {
  constexpr size_t kCols = 12, kChunk = 400;
  for (size_t start = 0; start < files.size(); start += kChunk) {
    size_t n = std::min(kChunk, files.size() - start);
    SqlParams params;
    params.reserve(n * kCols);
    for (size_t i = start; i < start + n; ++i) {
      const DataFile& f = *files[i];
      const int64_t snapshot_id = f.added_snapshot_id;
      TARN_ASSIGN_OR_RETURN(SqlValue key, PartitionKey(f, spec, schema));
      params.insert(params.end(),
                    {dataset_id, f.path, f.format, snapshot_id, f.record_count, f.file_size_bytes,
                     int64_t{f.spec_id}, PartitionValuesToJson(f.partition), StatsToJson(f.columns),
                     f.first_row_id, std::move(key), int64_t{f.stats_pending ? 1 : 0}});
    }
    TARN_RETURN_NOT_OK(
        tx.ExecuteDeferred("INSERT INTO data_files (dataset_id, path, file_format, "
                           "added_snapshot_id, record_count, file_size_bytes, spec_id, "
                           "partition_values, stats, first_row_id, partition_key, "
                           "stats_pending) VALUES " +
                               Placeholders(n, kCols),
                           params));
  }
  return InsertFileBounds(tx, dataset_id, files, bounds);
}

Result<RemovedFiles> MarkLiveFilesRemoved(Transaction& tx, int64_t dataset_id,
                                          int64_t snapshot_id) {
  RemovedFiles out;
  TARN_RETURN_NOT_OK(RemoveWhere(tx, dataset_id, snapshot_id, "", {}, &out));
  return out;
}

Result<RemovedFiles> MarkFilesAddedAfterRemoved(Transaction& tx, int64_t dataset_id,
                                                int64_t snapshot_id, int64_t after) {
  RemovedFiles out;
  TARN_RETURN_NOT_OK(
      RemoveWhere(tx, dataset_id, snapshot_id, " AND added_snapshot_id > ?", {after}, &out));
  return out;
}

Result<RemovedFiles> MarkFilesRemoved(Transaction& tx, int64_t dataset_id, int64_t snapshot_id,
                                      const std::vector<std::string>& paths) {
  // A few hundred paths a statement: a compaction can replace tens of thousands, past SQLite's
  // limit on parameters.
  constexpr size_t kChunk = 400;
  RemovedFiles out;
  for (size_t start = 0; start < paths.size(); start += kChunk) {
    const size_t n = std::min(kChunk, paths.size() - start);
    SqlParams params(paths.begin() + start, paths.begin() + start + n);
    TARN_RETURN_NOT_OK(RemoveWhere(tx, dataset_id, snapshot_id,
                                   " AND path IN " + Placeholders(1, n), params, &out));
  }
  return out;
}

Result<std::optional<LiveFileVector>> LiveFileByPath(Transaction& tx, int64_t dataset_id,
                                                     std::string_view path) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("SELECT f.id, f.record_count, f.file_size_bytes, dv.id, dv.cardinality, "
                  "dv.positions FROM data_files f LEFT JOIN deletion_vectors dv ON "
                  "dv.data_file_id = f.id AND dv.removed_snapshot_id IS NULL WHERE "
                  "f.dataset_id = ? AND f.path = ? AND f.removed_snapshot_id IS NULL",
                  {dataset_id, path}));
  if (!row) return std::optional<LiveFileVector>();
  LiveFileVector out;
  TARN_ASSIGN_OR_RETURN(out.file_id, row->Int64(0));
  TARN_ASSIGN_OR_RETURN(out.record_count, row->Int64(1));
  TARN_ASSIGN_OR_RETURN(out.file_size_bytes, row->Int64(2));
  if (!row->IsNull(3)) {
    TARN_ASSIGN_OR_RETURN(int64_t dv_id, row->Int64(3));
    out.vector_id = dv_id;
    TARN_ASSIGN_OR_RETURN(out.cardinality, row->Int64(4));
    TARN_ASSIGN_OR_RETURN(auto blob, row->Blob(5));
    out.positions = std::string(blob);
  }
  return std::optional<LiveFileVector>(std::move(out));
}

Status MarkFileRemoved(Transaction& tx, int64_t file_id, int64_t snapshot_id) {
  return tx
      .Execute("UPDATE data_files SET removed_snapshot_id = ? WHERE id = ?", {snapshot_id, file_id})
      .status();
}

Result<std::vector<DataFile>> FilesToRestore(Transaction& tx, int64_t dataset_id, int64_t target) {
  TARN_ASSIGN_OR_RETURN(
      auto back,
      tx.Query(std::string("SELECT ") + kDataFileColumns +
                   " FROM data_files f WHERE f.dataset_id = ? AND "
                   "f.added_snapshot_id <= ? AND f.removed_snapshot_id > ? AND NOT EXISTS "
                   "(SELECT 1 FROM data_files g WHERE g.dataset_id = f.dataset_id AND g.path = "
                   "f.path AND g.removed_snapshot_id IS NULL)",
               {dataset_id, target, target}));
  std::vector<DataFile> out;
  out.reserve(back.size());
  for (const Row& r : back) {
    TARN_ASSIGN_OR_RETURN(DataFile f, DataFileFromRow(r));
    out.push_back(std::move(f));
  }
  return out;
}

Result<int64_t> CopyFileRow(Transaction& tx, int64_t file_id, int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(
      auto ins,
      tx.QueryOne("INSERT INTO data_files (dataset_id, path, file_format, added_snapshot_id, "
                  "record_count, file_size_bytes, spec_id, partition_values, stats, "
                  "first_row_id, partition_key, stats_pending) SELECT dataset_id, path, "
                  "file_format, ?, record_count, file_size_bytes, spec_id, partition_values, "
                  "stats, first_row_id, partition_key, stats_pending FROM data_files WHERE id "
                  "= ? RETURNING id",
                  {snapshot_id, file_id}));
  TARN_ASSIGN_OR_RETURN(int64_t id, ins->Int64(0));
  TARN_RETURN_NOT_OK(CopyFileBounds(tx, file_id, id));
  return id;
}

Result<bool> CompactInputsUnchanged(Transaction& tx, int64_t dataset_id, int64_t read,
                                    const std::vector<std::string>& paths) {
  constexpr size_t kChunk = 400;
  for (size_t start = 0; start < paths.size(); start += kChunk) {
    const size_t n = std::min(kChunk, paths.size() - start);
    SqlParams params = {read, read, read, dataset_id};
    for (size_t i = start; i < start + n; ++i) params.push_back(paths[i]);
    TARN_ASSIGN_OR_RETURN(
        auto row,
        tx.QueryOne("SELECT COUNT(*), SUM(CASE WHEN f.added_snapshot_id > ? OR EXISTS (SELECT 1 "
                    "FROM deletion_vectors dv WHERE dv.data_file_id = f.id AND "
                    "(dv.added_snapshot_id > ? OR dv.removed_snapshot_id > ?)) THEN 1 ELSE 0 "
                    "END) FROM data_files f WHERE f.dataset_id = ? AND f.removed_snapshot_id IS "
                    "NULL AND f.path IN " +
                        Placeholders(1, n),
                    params));
    TARN_ASSIGN_OR_RETURN(int64_t live, row->Int64(0));
    int64_t changed = 0;
    if (!row->IsNull(1)) {
      TARN_ASSIGN_OR_RETURN(changed, row->Int64(1));
    }
    if (live != static_cast<int64_t>(n) || changed != 0) return false;
  }
  return true;
}

// ---- deletion vectors ----

Status InsertDeletionVector(Transaction& tx, int64_t dataset_id, int64_t file_id,
                            int64_t snapshot_id, int64_t cardinality, std::string_view positions) {
  return tx
      .Execute(
          "INSERT INTO deletion_vectors (dataset_id, data_file_id, added_snapshot_id, "
          "cardinality, positions) VALUES (?, ?, ?, ?, ?)",
          {dataset_id, file_id, snapshot_id, cardinality, SqlValue::Blob(positions)})
      .status();
}

Status MarkVectorRemoved(Transaction& tx, int64_t vector_id, int64_t snapshot_id) {
  return tx
      .Execute(
          "UPDATE deletion_vectors SET removed_snapshot_id = ? WHERE "
          "id = ?",
          {snapshot_id, vector_id})
      .status();
}

Result<int64_t> MarkVectorRemovedCounted(Transaction& tx, int64_t vector_id, int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(
      auto c, tx.QueryOne("UPDATE deletion_vectors SET removed_snapshot_id = ? WHERE id = ? "
                          "RETURNING cardinality",
                          {snapshot_id, vector_id}));
  return c->Int64(0);
}

Result<std::optional<StoredVector>> VectorAt(Transaction& tx, int64_t file_id,
                                             int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(auto dv,
                        tx.QueryOne("SELECT cardinality, positions FROM deletion_vectors WHERE "
                                    "data_file_id = ? AND added_snapshot_id <= ? AND "
                                    "(removed_snapshot_id IS NULL OR removed_snapshot_id > ?)",
                                    {file_id, snapshot_id, snapshot_id}));
  if (!dv) return std::optional<StoredVector>();
  StoredVector out;
  TARN_ASSIGN_OR_RETURN(out.cardinality, dv->Int64(0));
  TARN_ASSIGN_OR_RETURN(auto blob, dv->Blob(1));
  out.positions = std::string(blob);
  return std::optional<StoredVector>(std::move(out));
}

Result<std::map<int64_t, int64_t>> VectorsAddedAt(Transaction& tx, int64_t dataset_id,
                                                  const std::vector<int64_t>& vector_ids) {
  constexpr size_t kChunk = 400;  // SQLite's default limit is 999 parameters
  std::map<int64_t, int64_t> out;
  for (size_t start = 0; start < vector_ids.size(); start += kChunk) {
    const size_t n = std::min(kChunk, vector_ids.size() - start);
    SqlParams params{dataset_id};
    for (size_t i = start; i < start + n; ++i) params.push_back(vector_ids[i]);
    TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("SELECT id, added_snapshot_id FROM deletion_vectors "
                                              "WHERE dataset_id = ? AND id IN " +
                                                  Placeholders(1, n),
                                              params));
    for (const Row& r : rows) {
      TARN_ASSIGN_OR_RETURN(int64_t id, r.Int64(0));
      TARN_ASSIGN_OR_RETURN(out[id], r.Int64(1));
    }
  }
  return out;
}

Result<std::vector<FileVectors>> VectorsNowAndAt(Transaction& tx, int64_t dataset_id,
                                                 int64_t target) {
  TARN_ASSIGN_OR_RETURN(
      auto kept,
      tx.Query("SELECT f.id, (SELECT dv.id FROM deletion_vectors dv WHERE dv.data_file_id = "
               "f.id AND dv.removed_snapshot_id IS NULL), (SELECT dv.id FROM deletion_vectors dv "
               "WHERE dv.data_file_id = f.id AND dv.added_snapshot_id <= ? AND "
               "(dv.removed_snapshot_id IS NULL OR dv.removed_snapshot_id > ?)) FROM data_files "
               "f WHERE f.dataset_id = ? AND f.removed_snapshot_id IS NULL AND "
               "f.added_snapshot_id <= ?",
               {target, target, dataset_id, target}));
  std::vector<FileVectors> out;
  out.reserve(kept.size());
  for (const Row& r : kept) {
    FileVectors v;
    TARN_ASSIGN_OR_RETURN(v.now, r.OptionalInt64(1));
    TARN_ASSIGN_OR_RETURN(v.then, r.OptionalInt64(2));
    TARN_ASSIGN_OR_RETURN(v.file_id, r.Int64(0));
    out.push_back(v);
  }
  return out;
}

Result<int64_t> CopyVector(Transaction& tx, int64_t vector_id, int64_t file_id,
                           int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(
      auto c, tx.QueryOne("INSERT INTO deletion_vectors (dataset_id, data_file_id, "
                          "added_snapshot_id, cardinality, positions) SELECT dataset_id, ?, "
                          "?, cardinality, positions FROM deletion_vectors WHERE id = ? "
                          "RETURNING cardinality",
                          {file_id, snapshot_id, vector_id}));
  return c->Int64(0);
}

}  // namespace tarn::catalog_store

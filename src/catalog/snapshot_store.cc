// The catalog's statements on snapshots, tags, consumer offsets and the reads of data files
// that planning and the change feed make (store.h), with the row mappings of snapshots and
// data files (catalog_internal.h) that the commit and provenance code share.
#include <algorithm>

#include "catalog/catalog_internal.h"
#include "catalog/store.h"
#include "metastore/metastore.h"

namespace tarn {

namespace catalog_internal {

const char kSnapshotColumns[] =
    "sn.snapshot_id, sn.parent_snapshot_id, sn.committed_at, sn.author, sn.message, "
    "sn.operation, sn.user_created, sn.schema_id, sn.spec_id, sn.added_files, sn.deleted_files, "
    "sn.total_files, sn.added_records, sn.deleted_records, sn.total_records, sn.added_bytes, "
    "sn.deleted_bytes, sn.total_bytes, sn.receipt, sn.idempotency_key, sn.commit_id, d.uuid, "
    "sn.next_row_id";

Result<SnapshotInfo> SnapshotFromRow(const Row& r) {
  SnapshotInfo s;
  TARN_ASSIGN_OR_RETURN(s.snapshot_id, r.Int64(0));
  TARN_ASSIGN_OR_RETURN(s.parent_snapshot_id, r.OptionalInt64(1));
  TARN_ASSIGN_OR_RETURN(s.committed_at_us, r.Int64(2));
  TARN_ASSIGN_OR_RETURN(auto author, r.Text(3));
  s.author = std::string(author);
  TARN_ASSIGN_OR_RETURN(auto message, r.OptionalText(4));
  if (message) s.message = std::string(*message);
  TARN_ASSIGN_OR_RETURN(auto op, r.Text(5));
  s.operation = std::string(op);
  TARN_ASSIGN_OR_RETURN(int64_t user_created, r.Int64(6));
  s.user_created = user_created != 0;
  TARN_ASSIGN_OR_RETURN(int64_t schema_id, r.Int64(7));
  TARN_ASSIGN_OR_RETURN(int64_t spec_id, r.Int64(8));
  s.schema_id = static_cast<int32_t>(schema_id);
  s.spec_id = static_cast<int32_t>(spec_id);
  int64_t* counters[] = {&s.added_files,   &s.deleted_files,   &s.total_files,
                         &s.added_records, &s.deleted_records, &s.total_records,
                         &s.added_bytes,   &s.deleted_bytes,   &s.total_bytes};
  for (size_t i = 0; i < 9; ++i) {
    TARN_ASSIGN_OR_RETURN(*counters[i], r.Int64(9 + i));
  }
  TARN_ASSIGN_OR_RETURN(auto receipt, r.Text(18));
  // '{}': not recorded (no receipt, or committed before receipts existed).
  if (receipt != "{}") {
    auto parsed = Receipt::FromJson(receipt);
    if (parsed.ok()) s.receipt = std::move(parsed).value();
  }
  TARN_ASSIGN_OR_RETURN(auto key, r.OptionalText(19));
  if (key) s.idempotency_key = std::string(*key);
  TARN_ASSIGN_OR_RETURN(auto commit_id, r.OptionalText(20));
  if (commit_id) s.commit_id = std::string(*commit_id);
  TARN_ASSIGN_OR_RETURN(auto uuid, r.Text(21));
  s.dataset_uuid = std::string(uuid);
  TARN_ASSIGN_OR_RETURN(s.next_row_id, r.OptionalInt64(22));
  return s;
}

const char kDataFileColumns[] =
    "f.id, f.path, f.file_format, f.added_snapshot_id, f.record_count, f.file_size_bytes, "
    "f.spec_id, f.partition_values, f.stats, f.first_row_id, f.removed_snapshot_id, "
    "f.stats_pending";

Result<DataFile> DataFileFromRow(const Row& r, size_t c) {
  DataFile f;
  TARN_ASSIGN_OR_RETURN(f.file_id, r.Int64(c + 0));
  TARN_ASSIGN_OR_RETURN(auto path, r.Text(c + 1));
  f.path = std::string(path);
  TARN_ASSIGN_OR_RETURN(auto format, r.Text(c + 2));
  f.format = std::string(format);
  TARN_ASSIGN_OR_RETURN(f.added_snapshot_id, r.Int64(c + 3));
  TARN_ASSIGN_OR_RETURN(f.record_count, r.Int64(c + 4));
  TARN_ASSIGN_OR_RETURN(f.file_size_bytes, r.Int64(c + 5));
  TARN_ASSIGN_OR_RETURN(int64_t spec_id, r.Int64(c + 6));
  f.spec_id = static_cast<int32_t>(spec_id);
  TARN_ASSIGN_OR_RETURN(auto partition, r.Text(c + 7));
  TARN_ASSIGN_OR_RETURN(f.partition, PartitionValuesFromJson(partition));
  TARN_ASSIGN_OR_RETURN(auto stats, r.Text(c + 8));
  TARN_ASSIGN_OR_RETURN(f.columns, StatsFromJson(stats));
  TARN_ASSIGN_OR_RETURN(f.first_row_id, r.Int64(c + 9));
  TARN_ASSIGN_OR_RETURN(f.removed_snapshot_id, r.OptionalInt64(c + 10));
  TARN_ASSIGN_OR_RETURN(int64_t pending, r.Int64(c + 11));
  f.stats_pending = pending != 0;
  return f;
}

}  // namespace catalog_internal

namespace catalog_store {

using catalog_internal::DataFileFromRow;
using catalog_internal::kDataFileColumnCount;
using catalog_internal::kDataFileColumns;
using catalog_internal::kSnapshotColumns;
using catalog_internal::SnapshotFromRow;

namespace {

constexpr char kSnapshotRows[] = " FROM snapshots sn JOIN datasets d ON d.id = sn.dataset_id";

Result<std::optional<int64_t>> OptionalId(const std::optional<Row>& row) {
  if (!row || row->IsNull(0)) return std::optional<int64_t>();
  TARN_ASSIGN_OR_RETURN(int64_t id, row->Int64(0));
  return std::optional<int64_t>(id);
}

Result<std::optional<SnapshotInfo>> OptionalSnapshot(const std::optional<Row>& row) {
  if (!row) return std::optional<SnapshotInfo>();
  TARN_ASSIGN_OR_RETURN(auto s, SnapshotFromRow(*row));
  return std::optional<SnapshotInfo>(std::move(s));
}

// A condition of LiveFiles and its parameters.
struct Condition {
  std::string sql;
  SqlParams params;
};

// The pushdown branches of a key range (LiveFileQuery::key_range): one range scan each.
std::vector<Condition> KeyBranches(const LiveFileQuery& q) {
  if (!q.key_range) return {Condition{"", {}}};
  const KeyRange& range = *q.key_range;
  const int64_t spec_id = q.spec_id;
  std::vector<Condition> out;
  if (!range.empty) {
    Condition b{" AND f.spec_id = ?", {spec_id}};
    if (!range.in.empty()) {
      b.sql += " AND f.partition_key IN (";
      for (size_t i = 0; i < range.in.size(); ++i) {
        b.sql += i ? ", ?" : "?";
        b.params.push_back(SqlValue::Blob(range.in[i]));
      }
      b.sql += ")";
    } else {
      b.sql += " AND f.partition_key IS NOT NULL";
      if (range.lo) {
        b.sql += " AND f.partition_key >= ?";
        b.params.push_back(SqlValue::Blob(*range.lo));
      }
      if (range.hi) {
        b.sql += " AND f.partition_key <= ?";
        b.params.push_back(SqlValue::Blob(*range.hi));
      }
    }
    out.push_back(std::move(b));
  }
  out.push_back(Condition{" AND f.spec_id = ? AND f.partition_key IS NULL", {spec_id}});
  if (spec_id > 0) out.push_back(Condition{" AND f.spec_id < ?", {spec_id}});
  return out;
}

}  // namespace

// ---- snapshots ----

Result<bool> SnapshotExists(Transaction& tx, int64_t dataset_id, int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT 1 FROM snapshots WHERE dataset_id = ? AND snapshot_id = ?",
                            {dataset_id, snapshot_id}));
  return row.has_value();
}

Result<std::optional<int64_t>> SnapshotAtTime(Transaction& tx, int64_t dataset_id, int64_t at_us) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT MAX(snapshot_id) FROM snapshots WHERE dataset_id = ? AND "
                            "committed_at <= ?",
                            {dataset_id, at_us}));
  return OptionalId(row);
}

Result<std::optional<int64_t>> ParentSnapshot(Transaction& tx, int64_t dataset_id,
                                              int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT parent_snapshot_id FROM snapshots WHERE "
                                              "dataset_id = ? AND snapshot_id = ?",
                                              {dataset_id, snapshot_id}));
  return OptionalId(row);
}

Result<std::optional<SnapshotInfo>> SnapshotById(Transaction& tx, int64_t dataset_id,
                                                 int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne(std::string("SELECT ") + kSnapshotColumns + kSnapshotRows +
                                        " WHERE sn.dataset_id = ? AND sn.snapshot_id = ?",
                                    {dataset_id, snapshot_id}));
  return OptionalSnapshot(row);
}

Result<std::optional<SnapshotInfo>> SnapshotByIdempotencyKey(Transaction& tx, int64_t dataset_id,
                                                             std::string_view key) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne(std::string("SELECT ") + kSnapshotColumns + kSnapshotRows +
                                        " WHERE sn.dataset_id = ? AND sn.idempotency_key = ?",
                                    {dataset_id, key}));
  return OptionalSnapshot(row);
}

Result<std::vector<SnapshotInfo>> SnapshotsPage(Transaction& tx, int64_t dataset_id,
                                                const SnapshotQuery& query) {
  const bool backward = query.before && !query.after && query.limit;
  std::string sql =
      std::string("SELECT ") + kSnapshotColumns + kSnapshotRows + " WHERE sn.dataset_id = ?";
  SqlParams params{dataset_id};
  if (query.after) {
    sql += " AND sn.snapshot_id > ?";
    params.emplace_back(*query.after);
  }
  if (query.before) {
    sql += " AND sn.snapshot_id < ?";
    params.emplace_back(*query.before);
  }
  sql += backward ? " ORDER BY sn.snapshot_id DESC" : " ORDER BY sn.snapshot_id";
  if (query.limit) {
    sql += " LIMIT ?";
    params.emplace_back(*query.limit);
  }
  std::vector<SnapshotInfo> out;
  TARN_RETURN_NOT_OK(tx.QueryEach(sql, params, [&](const Row& r) -> Status {
    TARN_ASSIGN_OR_RETURN(auto s, SnapshotFromRow(r));
    out.push_back(std::move(s));
    return Status::OK();
  }));
  if (backward) std::reverse(out.begin(), out.end());
  return out;
}

// ---- tags ----

Result<std::optional<int64_t>> TagTarget(Transaction& tx, int64_t dataset_id,
                                         std::string_view tag) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT snapshot_id FROM tags WHERE dataset_id = ? AND name = ?",
                            {dataset_id, tag}));
  return OptionalId(row);
}

Result<bool> PutTag(Transaction& tx, int64_t dataset_id, std::string_view tag, int64_t snapshot_id,
                    int64_t now_us, bool replace) {
  std::string sql =
      "INSERT INTO tags (dataset_id, name, snapshot_id, created_at) VALUES (?, ?, ?, ?) "
      "ON CONFLICT (dataset_id, name) DO ";
  sql += replace ? "UPDATE SET snapshot_id = excluded.snapshot_id, created_at = "
                   "excluded.created_at"
                 : "NOTHING";
  TARN_ASSIGN_OR_RETURN(int64_t changed, tx.Execute(sql, {dataset_id, tag, snapshot_id, now_us}));
  return changed != 0;
}

Result<bool> DeleteTag(Transaction& tx, int64_t dataset_id, std::string_view tag) {
  TARN_ASSIGN_OR_RETURN(
      int64_t changed,
      tx.Execute("DELETE FROM tags WHERE dataset_id = ? AND name = ?", {dataset_id, tag}));
  return changed != 0;
}

Result<std::vector<TagInfo>> Tags(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("SELECT name, snapshot_id, created_at FROM tags "
                                            "WHERE dataset_id = ? ORDER BY name",
                                            {dataset_id}));
  std::vector<TagInfo> out;
  for (const Row& r : rows) {
    TagInfo t;
    TARN_ASSIGN_OR_RETURN(auto name, r.Text(0));
    t.name = std::string(name);
    TARN_ASSIGN_OR_RETURN(t.snapshot_id, r.Int64(1));
    TARN_ASSIGN_OR_RETURN(t.created_at_us, r.Int64(2));
    out.push_back(std::move(t));
  }
  return out;
}

// ---- consumer offsets ----

Result<bool> AdvanceOffset(Transaction& tx, int64_t dataset_id, std::string_view consumer,
                           int64_t snapshot_id, int64_t now_us) {
  TARN_ASSIGN_OR_RETURN(
      int64_t changed,
      tx.Execute("INSERT INTO consumer_offsets (dataset_id, consumer, snapshot_id, updated_at) "
                 "VALUES (?, ?, ?, ?) ON CONFLICT (dataset_id, consumer) DO UPDATE SET "
                 "snapshot_id = excluded.snapshot_id, updated_at = excluded.updated_at WHERE "
                 "consumer_offsets.snapshot_id <= excluded.snapshot_id",
                 {dataset_id, consumer, snapshot_id, now_us}));
  return changed != 0;
}

Result<std::optional<int64_t>> Offset(Transaction& tx, int64_t dataset_id,
                                      std::string_view consumer) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT snapshot_id FROM consumer_offsets WHERE "
                                              "dataset_id = ? AND consumer = ?",
                                              {dataset_id, consumer}));
  return OptionalId(row);
}

// ---- data files: planning and the change feed ----

Status LiveFiles(Transaction& tx, const LiveFileQuery& q,
                 const std::function<Status(LiveFile&)>& fn) {
  std::string head = std::string("SELECT ") + kDataFileColumns +
                     ", dv.cardinality, dv.positions, dv.id FROM data_files f LEFT JOIN "
                     "deletion_vectors dv ON dv.data_file_id = f.id AND ";
  SqlParams head_params;
  // With ids the rows are found by primary key: `+` keeps both backends' planners from
  // preferring an index on dataset_id (a scan of every live row of the dataset).
  const std::string dataset = q.file_ids ? "+f.dataset_id = ?" : "f.dataset_id = ?";
  if (q.current) {
    head +=
        "dv.removed_snapshot_id IS NULL WHERE " + dataset + " AND f.removed_snapshot_id IS NULL";
    head_params = {q.dataset_id};
  } else {
    head +=
        "dv.added_snapshot_id <= ? AND (dv.removed_snapshot_id IS NULL OR "
        "dv.removed_snapshot_id > ?) WHERE " +
        dataset +
        " AND f.added_snapshot_id <= ? AND (f.removed_snapshot_id IS NULL OR "
        "f.removed_snapshot_id > ?)";
    head_params = {q.snapshot_id, q.snapshot_id, q.dataset_id, q.snapshot_id, q.snapshot_id};
  }
  if (q.path_after) {
    head += " AND f.path > ?";
    head_params.emplace_back(*q.path_after);
  }
  if (q.path_before) {
    head += " AND f.path < ?";
    head_params.emplace_back(*q.path_before);
  }
  auto row_fn = [&](const Row& r) -> Status {
    LiveFile f;
    TARN_ASSIGN_OR_RETURN(f.planned.file, DataFileFromRow(r));
    constexpr int kVector = kDataFileColumnCount;  // dv.cardinality, dv.positions, dv.id
    if (!r.IsNull(kVector)) {
      TARN_ASSIGN_OR_RETURN(f.planned.deleted_rows, r.Int64(kVector));
      TARN_ASSIGN_OR_RETURN(auto blob, r.Blob(kVector + 1));
      f.planned.deletion_vector = std::string(blob);
      TARN_ASSIGN_OR_RETURN(f.vector_id, r.Int64(kVector + 2));
    }
    return fn(f);
  };
  if (q.file_ids) {
    constexpr size_t kChunk = 500;
    const std::vector<int64_t>& ids = *q.file_ids;
    for (size_t start = 0; start < ids.size(); start += kChunk) {
      const size_t n = std::min(kChunk, ids.size() - start);
      SqlParams params = head_params;
      params.insert(params.end(), ids.begin() + static_cast<std::ptrdiff_t>(start),
                    ids.begin() + static_cast<std::ptrdiff_t>(start + n));
      TARN_RETURN_NOT_OK(tx.QueryEach(head + " AND f.id IN " + Placeholders(1, n), params, row_fn));
    }
    return Status::OK();
  }
  std::string sql;
  SqlParams params;
  for (const Condition& b : KeyBranches(q)) {
    if (!sql.empty()) sql += " UNION ALL ";
    sql += head + b.sql;
    params.insert(params.end(), head_params.begin(), head_params.end());
    params.insert(params.end(), b.params.begin(), b.params.end());
  }
  if (q.limit) {
    // Over a UNION the order names the output column (f.path is the second).
    const char* key = q.key_range ? "2" : "f.path";
    sql += std::string(" ORDER BY ") + key + (q.descending ? " DESC" : "") + " LIMIT ?";
    params.emplace_back(*q.limit);
  }
  return tx.QueryEach(sql, params, row_fn);
}

Result<std::vector<DataFile>> ChangedFiles(Transaction& tx, int64_t dataset_id, int64_t from,
                                           int64_t to, bool removed) {
  const std::string column = removed ? "f.removed_snapshot_id" : "f.added_snapshot_id";
  std::vector<DataFile> out;
  TARN_RETURN_NOT_OK(tx.QueryEach(std::string("SELECT ") + kDataFileColumns +
                                      " FROM data_files f WHERE f.dataset_id = ? AND " + column +
                                      " > ? AND " + column + " <= ? ORDER BY " + column + ", f.id",
                                  {dataset_id, from, to}, [&](const Row& r) -> Status {
                                    TARN_ASSIGN_OR_RETURN(auto f, DataFileFromRow(r));
                                    out.push_back(std::move(f));
                                    return Status::OK();
                                  }));
  return out;
}

Result<std::vector<ChangeSet::VectorChange>> ChangedVectors(Transaction& tx, int64_t dataset_id,
                                                            int64_t from, int64_t to,
                                                            bool removed) {
  const std::string column = removed ? "dv.removed_snapshot_id" : "dv.added_snapshot_id";
  std::vector<ChangeSet::VectorChange> out;
  TARN_RETURN_NOT_OK(
      tx.QueryEach("SELECT f.path, " + column +
                       ", dv.cardinality FROM deletion_vectors dv JOIN data_files f ON f.id = "
                       "dv.data_file_id WHERE dv.dataset_id = ? AND " +
                       column + " > ? AND " + column + " <= ? ORDER BY " + column + ", dv.id",
                   {dataset_id, from, to}, [&](const Row& r) -> Status {
                     ChangeSet::VectorChange v;
                     TARN_ASSIGN_OR_RETURN(auto path, r.Text(0));
                     v.path = std::string(path);
                     TARN_ASSIGN_OR_RETURN(v.snapshot_id, r.Int64(1));
                     TARN_ASSIGN_OR_RETURN(v.cardinality, r.Int64(2));
                     v.removed = removed;
                     out.push_back(std::move(v));
                     return Status::OK();
                   }));
  return out;
}

}  // namespace catalog_store
}  // namespace tarn

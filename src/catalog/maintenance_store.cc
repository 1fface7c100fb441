// The statements of maintenance (store.h): snapshot expiry (maintenance.cc), the removal
// ledger's pages Cleanup walks, and the pending statistics of deferred statistics
// (stats_hydration.cc).
//
// No foreign key checks expiry's statements row by row (migration 18 dropped the three expiry
// paid for); the rules they kept hold here: the ledger rows name the dataset the caller locked;
// the vectors of every file row that goes are deleted before it (the same DeadFile rule, under
// the lock, so the same rows); and a tagged snapshot never goes.
#include "catalog/store.h"

namespace tarn::catalog_store {

namespace {

// A data_files row `x` that nothing retained needs once the frontier is E (the parameter), for
// dataset `x.dataset_id`.
std::string DeadFile(const char* x) {
  std::string a(x);
  return a + ".removed_snapshot_id IS NOT NULL AND " + a +
         ".removed_snapshot_id <= ? AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.dataset_id = " +
         a + ".dataset_id AND t.snapshot_id >= " + a + ".added_snapshot_id AND t.snapshot_id < " +
         a + ".removed_snapshot_id)";
}

// The file rows of dataset ? that go at frontier ? whose paths no surviving row names (a
// rollback may have re-added the same path) and the ledger does not hold yet (parameters:
// dataset id, E, E): what expiry releases.
std::string Released() {
  return "FROM data_files f WHERE f.dataset_id = ? AND " + DeadFile("f") +
         " AND NOT EXISTS (SELECT 1 FROM data_files g WHERE "
         "g.dataset_id = f.dataset_id AND g.path = f.path AND g.id <> "
         "f.id AND NOT (" +
         DeadFile("g") +
         ")) AND NOT EXISTS (SELECT 1 FROM removal_ledger l WHERE "
         "l.path = f.path)";
}

}  // namespace

// ---- expiry ----

Result<std::optional<int64_t>> LastSnapshotBefore(Transaction& tx, int64_t dataset_id,
                                                  int64_t before_us) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT MAX(snapshot_id) FROM snapshots WHERE "
                                              "dataset_id = ? AND committed_at < ?",
                                              {dataset_id, before_us}));
  if (!row || row->IsNull(0)) return std::optional<int64_t>();
  TARN_ASSIGN_OR_RETURN(int64_t e, row->Int64(0));
  return std::optional<int64_t>(e);
}

Result<std::optional<int64_t>> LowestConsumerOffset(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto floor, tx.QueryOne("SELECT MIN(snapshot_id) FROM consumer_offsets "
                                                "WHERE dataset_id = ?",
                                                {dataset_id}));
  if (!floor || floor->IsNull(0)) return std::optional<int64_t>();
  TARN_ASSIGN_OR_RETURN(int64_t f, floor->Int64(0));
  return std::optional<int64_t>(f);
}

Result<int64_t> CountExpirableSnapshots(Transaction& tx, int64_t dataset_id, int64_t through) {
  TARN_ASSIGN_OR_RETURN(auto count,
                        tx.QueryOne("SELECT COUNT(*) FROM snapshots sn WHERE sn.dataset_id = ? AND "
                                    "sn.snapshot_id <= ? AND NOT EXISTS (SELECT 1 FROM tags t "
                                    "WHERE t.dataset_id = sn.dataset_id AND t.snapshot_id = "
                                    "sn.snapshot_id)",
                                    {dataset_id, through}));
  return count->Int64(0);
}

Result<int64_t> CountReleasablePaths(Transaction& tx, int64_t dataset_id, int64_t through) {
  TARN_ASSIGN_OR_RETURN(auto files, tx.QueryOne("SELECT COUNT(DISTINCT f.path) " + Released(),
                                                {dataset_id, through, through}));
  return files->Int64(0);
}

Result<int64_t> LedgerReleasedPaths(Transaction& tx, int64_t dataset_id, int64_t through,
                                    int64_t now_us) {
  return tx.Execute(
      "INSERT INTO removal_ledger (dataset_id, path, reason, removed_snapshot_id, "
      "recorded_at) SELECT f.dataset_id, f.path, 'expired', "
      "MAX(f.removed_snapshot_id), ? " +
          Released() + " GROUP BY f.dataset_id, f.path ON CONFLICT (path) DO NOTHING",
      {now_us, dataset_id, through, through});
}

Status DeleteDeadFiles(Transaction& tx, int64_t dataset_id, int64_t through) {
  // Every vector of a file row that goes, first: no vector names a missing file.
  TARN_RETURN_NOT_OK(
      tx.Execute("DELETE FROM deletion_vectors WHERE dataset_id = ? AND data_file_id IN "
                 "(SELECT f.id FROM data_files f WHERE f.dataset_id = ? AND " +
                     DeadFile("f") + ")",
                 {dataset_id, dataset_id, through})
          .status());
  // Vectors replaced at or before E that no tagged snapshot sees.
  TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM deletion_vectors WHERE dataset_id = ? AND " +
                                    DeadFile("deletion_vectors"),
                                {dataset_id, through})
                         .status());
  // Their bounds index rows likewise.
  TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM file_bounds WHERE dataset_id = ? AND data_file_id IN "
                                "(SELECT f.id FROM data_files f WHERE f.dataset_id = ? AND " +
                                    DeadFile("f") + ")",
                                {dataset_id, dataset_id, through})
                         .status());
  return tx
      .Execute("DELETE FROM data_files WHERE dataset_id = ? AND " + DeadFile("data_files"),
               {dataset_id, through})
      .status();
}

Status DeleteExpiredSnapshots(Transaction& tx, int64_t dataset_id, int64_t through) {
  return tx
      .Execute(
          "DELETE FROM snapshots WHERE dataset_id = ? AND snapshot_id <= ? AND NOT "
          "EXISTS (SELECT 1 FROM tags t WHERE t.dataset_id = snapshots.dataset_id "
          "AND t.snapshot_id = snapshots.snapshot_id)",
          {dataset_id, through})
      .status();
}

Status SetExpiredThrough(Transaction& tx, int64_t dataset_id, int64_t through) {
  return tx.Execute("UPDATE datasets SET expired_through = ? WHERE id = ?", {through, dataset_id})
      .status();
}

// ---- the removal ledger ----

Result<std::vector<PendingRemoval>> PendingRemovalsPage(Transaction& tx, int64_t after_id,
                                                        int64_t limit) {
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query("SELECT l.id, l.path FROM removal_ledger l WHERE l.deleted_at IS NULL AND "
               "l.id > ? AND NOT EXISTS (SELECT 1 FROM data_files f WHERE f.path = "
               "l.path) ORDER BY l.id LIMIT ?",
               {after_id, limit}));
  std::vector<PendingRemoval> out;
  for (const Row& r : rows) {
    PendingRemoval p;
    TARN_ASSIGN_OR_RETURN(p.id, r.Int64(0));
    TARN_ASSIGN_OR_RETURN(auto path, r.Text(1));
    p.path = std::string(path);
    out.push_back(std::move(p));
  }
  return out;
}

Status MarkRemovalDeleted(Transaction& tx, int64_t id, int64_t now_us) {
  return tx.Execute("UPDATE removal_ledger SET deleted_at = ? WHERE id = ?", {now_us, id}).status();
}

// ---- deferred statistics ----

Result<std::vector<PendingStatsFile>> PendingStatsFiles(Transaction& tx, int64_t dataset_id,
                                                        int64_t limit) {
  std::string sql =
      "SELECT path, record_count, file_size_bytes FROM data_files WHERE dataset_id = ? AND "
      "stats_pending = 1 AND removed_snapshot_id IS NULL ORDER BY id";
  SqlParams params;
  params.reserve(2);
  params.emplace_back(dataset_id);
  if (limit > 0) {
    sql += " LIMIT ?";
    params.emplace_back(limit);
  }
  std::vector<PendingStatsFile> out;
  TARN_RETURN_NOT_OK(tx.QueryEach(sql, params, [&](const Row& r) -> Status {
    PendingStatsFile f;
    TARN_ASSIGN_OR_RETURN(auto path, r.Text(0));
    f.path = std::string(path);
    TARN_ASSIGN_OR_RETURN(f.record_count, r.Int64(1));
    TARN_ASSIGN_OR_RETURN(f.file_size_bytes, r.Int64(2));
    out.push_back(std::move(f));
    return Status::OK();
  }));
  return out;
}

Result<int64_t> FillPendingStats(Transaction& tx, int64_t dataset_id, std::string_view path,
                                 const std::vector<ColumnStats>& stats) {
  return tx.Execute(
      "UPDATE data_files SET stats = ?, stats_pending = "
      "0 WHERE dataset_id = ? AND path = ? AND "
      "stats_pending = 1",
      {StatsToJson(stats), dataset_id, path});
}

Result<int64_t> CountPendingStats(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT COUNT(*) FROM data_files WHERE dataset_id "
                                              "= ? AND stats_pending = 1 AND removed_snapshot_id "
                                              "IS NULL",
                                              {dataset_id}));
  return row->Int64(0);
}

}  // namespace tarn::catalog_store

// Maintenance (C11): snapshot expiry, the removal ledger and orphan detection.
//
// Expiry moves the frontier `expired_through` = E forward: snapshots <= E go (tagged ones stay),
// and a file row whose removal snapshot is <= E is no longer needed by any retained snapshot or
// by the change feed from E, unless a tagged snapshot still sees it. Such rows leave the catalog
// and their paths enter the removal ledger, in the same transaction. Cleanup then deletes the
// ledger's objects from storage, checking again that no catalog row names them.
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/provenance.h"
#include "catalog/store.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

// Objects younger than this are never called orphans: an append writes its files before it
// commits them.
constexpr int64_t kOrphanGraceUs = int64_t{3600} * 1000 * 1000;

// A data_files row `x` that nothing retained needs once the frontier is E (the parameter), for
// dataset `x.dataset_id`.
std::string DeadFile(const char* x) {
  std::string a(x);
  return a + ".removed_snapshot_id IS NOT NULL AND " + a +
         ".removed_snapshot_id <= ? AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.dataset_id = " +
         a + ".dataset_id AND t.snapshot_id >= " + a + ".added_snapshot_id AND t.snapshot_id < " +
         a + ".removed_snapshot_id)";
}

}  // namespace

Result<ExpiryResult> Catalog::ExpireSnapshots(std::string_view qualified,
                                              const ExpiryOptions& options) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  ExpiryResult out;
  out.dataset = n.ToString();
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out = ExpiryResult{n.ToString()};
        // Lock the dataset row: expiry and commits on one dataset take turns.
        TARN_ASSIGN_OR_RETURN(
            auto locked,
            tx.QueryOne("UPDATE datasets SET updated_at = updated_at WHERE dropped_at IS NULL AND "
                        "name = ? AND collection_id = (SELECT c.id FROM collections c JOIN "
                        "workspaces w ON w.id = c.workspace_id WHERE w.name = ? AND c.name = ?) "
                        "RETURNING id",
                        {n.dataset, n.workspace, n.collection}));
        if (!locked) return DatasetNotFound(tx, n);
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        out.expired_through = ds.expired_through;
        if (!ds.current_snapshot_id) return Status::OK();
        int64_t current = *ds.current_snapshot_id;
        TARN_ASSIGN_OR_RETURN(
            auto row, tx.QueryOne("SELECT MAX(snapshot_id) FROM snapshots WHERE dataset_id = ? "
                                  "AND committed_at < ?",
                                  {ds.id, options.older_than_us}));
        if (!row || row->IsNull(0)) return Status::OK();
        TARN_ASSIGN_OR_RETURN(int64_t e, row->Int64(0));
        e = std::min(e, current - 1);  // the current snapshot always stays
        if (options.respect_consumer_offsets) {
          TARN_ASSIGN_OR_RETURN(auto floor,
                                tx.QueryOne("SELECT MIN(snapshot_id) FROM consumer_offsets WHERE "
                                            "dataset_id = ?",
                                            {ds.id}));
          if (floor && !floor->IsNull(0)) {
            TARN_ASSIGN_OR_RETURN(int64_t f, floor->Int64(0));
            e = std::min(e, f);
          }
        }
        if (e <= ds.expired_through) return Status::OK();
        TARN_ASSIGN_OR_RETURN(
            auto count, tx.QueryOne("SELECT COUNT(*) FROM snapshots sn WHERE sn.dataset_id = ? AND "
                                    "sn.snapshot_id <= ? AND NOT EXISTS (SELECT 1 FROM tags t "
                                    "WHERE t.dataset_id = sn.dataset_id AND t.snapshot_id = "
                                    "sn.snapshot_id)",
                                    {ds.id, e}));
        TARN_ASSIGN_OR_RETURN(out.expired_snapshots, count->Int64(0));
        TARN_ASSIGN_OR_RETURN(
            auto files, tx.QueryOne("SELECT COUNT(*) FROM data_files f WHERE f.dataset_id = ? "
                                    "AND " +
                                        DeadFile("f"),
                                    {ds.id, e}));
        TARN_ASSIGN_OR_RETURN(out.files_released, files->Int64(0));
        out.expired_through = e;
        if (options.dry_run) return Status::OK();
        int64_t now = clock_->NowMicros();
        // Paths no surviving row names (a rollback may have re-added the same path) enter the
        // ledger.
        TARN_RETURN_NOT_OK(
            tx.Execute("INSERT INTO removal_ledger (dataset_id, path, reason, removed_snapshot_id, "
                       "recorded_at) SELECT f.dataset_id, f.path, 'expired', "
                       "f.removed_snapshot_id, ? FROM data_files f WHERE f.dataset_id = ? AND " +
                           DeadFile("f") +
                           " AND NOT EXISTS (SELECT 1 FROM data_files g WHERE g.dataset_id = "
                           "f.dataset_id AND g.path = f.path AND g.id <> f.id AND NOT (" +
                           DeadFile("g") + ")) ON CONFLICT (path) DO NOTHING",
                       {now, ds.id, e, e})
                .status());
        TARN_RETURN_NOT_OK(
            tx.Execute("DELETE FROM deletion_vectors WHERE dataset_id = ? AND data_file_id IN "
                       "(SELECT f.id FROM data_files f WHERE f.dataset_id = ? AND " +
                           DeadFile("f") + ")",
                       {ds.id, ds.id, e})
                .status());
        // Vectors replaced at or before E that no tagged snapshot sees.
        TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM deletion_vectors WHERE dataset_id = ? AND " +
                                          DeadFile("deletion_vectors"),
                                      {ds.id, e})
                               .status());
        TARN_RETURN_NOT_OK(
            tx.Execute("DELETE FROM data_files WHERE dataset_id = ? AND " + DeadFile("data_files"),
                       {ds.id, e})
                .status());
        TARN_RETURN_NOT_OK(provenance::ForgetExpiredReads(tx, ds.id, e));
        TARN_RETURN_NOT_OK(
            tx.Execute("DELETE FROM snapshots WHERE dataset_id = ? AND snapshot_id <= ? AND NOT "
                       "EXISTS (SELECT 1 FROM tags t WHERE t.dataset_id = snapshots.dataset_id "
                       "AND t.snapshot_id = snapshots.snapshot_id)",
                       {ds.id, e})
                .status());
        return tx.Execute("UPDATE datasets SET expired_through = ? WHERE id = ?", {e, ds.id})
            .status();
      },
      TxMode::kLockingWrite));
  return out;
}

Result<CleanupResult> Catalog::DoCleanup(bool delete_orphans) {
  CleanupResult out;
  // 1. The ledger, a page at a time.
  constexpr int64_t kPage = 500;
  int64_t after_id = 0;
  while (true) {
    std::vector<std::pair<int64_t, std::string>> page;
    TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
        [&](Transaction& tx) -> Status {
          page.clear();
          TARN_ASSIGN_OR_RETURN(
              auto rows,
              tx.Query("SELECT l.id, l.path FROM removal_ledger l WHERE l.deleted_at IS NULL AND "
                       "l.id > ? AND NOT EXISTS (SELECT 1 FROM data_files f WHERE f.path = "
                       "l.path) ORDER BY l.id LIMIT ?",
                       {after_id, kPage}));
          for (const Row& r : rows) {
            TARN_ASSIGN_OR_RETURN(int64_t id, r.Int64(0));
            TARN_ASSIGN_OR_RETURN(auto path, r.Text(1));
            page.emplace_back(id, std::string(path));
          }
          return Status::OK();
        },
        TxMode::kReadOnly));
    if (page.empty()) break;
    std::vector<int64_t> done;
    for (const auto& [id, path] : page) {
      after_id = id;
      auto info = warehouse_->Head(path);
      if (!info.ok() && info.status().kind() != ErrorKind::kNotFound) {
        ++out.pending;
        continue;
      }
      if (info.ok()) {
        Status st = warehouse_->Delete(path);
        if (!st.ok() && st.kind() != ErrorKind::kNotFound) {
          ++out.pending;
          continue;
        }
        ++out.objects_deleted;
        out.bytes_deleted += static_cast<int64_t>(info->size);
      }
      done.push_back(id);
    }
    if (!done.empty()) {
      TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
        int64_t now = clock_->NowMicros();
        for (int64_t id : done) {
          TARN_RETURN_NOT_OK(
              tx.Execute("UPDATE removal_ledger SET deleted_at = ? WHERE id = ?", {now, id})
                  .status());
        }
        return Status::OK();
      }));
    }
  }

  // 2. Orphans: objects under datasets/ that no catalog row references, a page of the listing
  // at a time (catalog_store::Orphans, the rule the integrity sweep shares), each page looked up
  // after it was listed, so a file committed meanwhile counts as referenced. The manifests
  // manifest.on_commit wrote for snapshots that are gone (catalog_store::StaleManifests) are
  // deleted whatever delete_orphans says.
  std::string token;
  std::vector<std::string> to_delete;
  std::vector<ObjectInfo> stale_manifests;
  do {
    TARN_ASSIGN_OR_RETURN(auto page, warehouse_->List("datasets/", token, 1000));
    std::vector<ObjectInfo> orphans, stale;
    TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
        [&](Transaction& tx) -> Status {
          const int64_t now = clock_->NowMicros();
          TARN_ASSIGN_OR_RETURN(orphans,
                                catalog_store::Orphans(tx, page.objects, now, kOrphanGraceUs));
          TARN_ASSIGN_OR_RETURN(
              stale, catalog_store::StaleManifests(tx, page.objects, now, kOrphanGraceUs));
          return Status::OK();
        },
        TxMode::kReadOnly));
    for (const auto& obj : orphans) {
      out.orphans.push_back(obj.key);
      if (delete_orphans) to_delete.push_back(obj.key);
    }
    stale_manifests.insert(stale_manifests.end(), stale.begin(), stale.end());
    token = page.next_token;
  } while (!token.empty());
  if (!stale_manifests.empty()) {
    std::vector<std::string> keys;
    int64_t bytes = 0;
    for (const auto& obj : stale_manifests) {
      keys.push_back(obj.key);
      bytes += static_cast<int64_t>(obj.size);
    }
    if (warehouse_->DeleteMany(keys).ok()) {
      out.objects_deleted += static_cast<int64_t>(keys.size());
      out.bytes_deleted += bytes;
    } else {
      out.pending += static_cast<int64_t>(keys.size());  // found again by the next cleanup
    }
  }
  if (!to_delete.empty()) TARN_RETURN_NOT_OK(warehouse_->DeleteMany(to_delete));
  return out;
}

}  // namespace tarn

// Maintenance (C11): snapshot expiry, the removal ledger and orphan detection.
//
// Expiry moves the frontier `expired_through` = E forward: snapshots <= E go (tagged ones stay),
// and a file row whose removal snapshot is <= E is no longer needed by any retained snapshot or
// by the change feed from E, unless a tagged snapshot still sees it. Such rows leave the catalog
// and their paths enter the removal ledger, in the same transaction. Cleanup then deletes the
// ledger's objects from storage, checking again that no catalog row names them.
//
// No foreign key checks these statements row by row (migration 18 dropped the three expiry
// paid for); the rules they kept hold here: the ledger rows name the dataset locked below; the
// vectors of every file row that goes are deleted before it (the same DeadFile rule, under the
// lock, so the same rows); and a tagged snapshot never goes (tags change only under the lock,
// snapshots.cc). DropDataset's purge (datasets.cc) is the other place rows of these tables go.
#include <algorithm>
#include <map>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/provenance.h"
#include "catalog/store.h"
#include "common/units.h"
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
        // Lock the dataset row: expiry, commits and tag changes on one dataset take turns, so
        // the tags and files every statement below reads stay as the first one saw them.
        TARN_ASSIGN_OR_RETURN(auto ds, LockDataset(tx, n));
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
        // Paths no surviving row names (a rollback may have re-added the same path) enter the
        // ledger; those are what expiry releases (counted, not the rows that go).
        const std::string released = "FROM data_files f WHERE f.dataset_id = ? AND " +
                                     DeadFile("f") +
                                     " AND NOT EXISTS (SELECT 1 FROM data_files g WHERE "
                                     "g.dataset_id = f.dataset_id AND g.path = f.path AND g.id <> "
                                     "f.id AND NOT (" +
                                     DeadFile("g") +
                                     ")) AND NOT EXISTS (SELECT 1 FROM removal_ledger l WHERE "
                                     "l.path = f.path)";
        out.expired_through = e;
        if (options.dry_run) {
          TARN_ASSIGN_OR_RETURN(
              auto files, tx.QueryOne("SELECT COUNT(DISTINCT f.path) " + released, {ds.id, e, e}));
          TARN_ASSIGN_OR_RETURN(out.files_released, files->Int64(0));
          return Status::OK();
        }
        int64_t now = clock_->NowMicros();
        TARN_ASSIGN_OR_RETURN(
            out.files_released,
            tx.Execute("INSERT INTO removal_ledger (dataset_id, path, reason, removed_snapshot_id, "
                       "recorded_at) SELECT f.dataset_id, f.path, 'expired', "
                       "MAX(f.removed_snapshot_id), ? " +
                           released +
                           " GROUP BY f.dataset_id, f.path ON CONFLICT (path) DO NOTHING",
                       {now, ds.id, e, e}));
        // Every vector of a file row that goes, first: no vector names a missing file.
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
        // Never a tagged snapshot.
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

namespace {

Status BadRetention(const std::string& key, const std::string& value, const std::string& want) {
  return Status::Of(codes::kInvalidProperty,
                    "property " + key + " is '" + value + "': expected " + want)
      .WithField("property", key);
}

// A policy as properties state it, or nullopt when `props` names none.
struct Policy {
  std::string retention;
  int64_t retention_us = 0;
  std::optional<bool> consumer_floor;
};
Result<std::optional<Policy>> PolicyOf(const PropertyMap& props) {
  std::optional<Policy> out;
  if (auto it = props.find(kRetentionProperty); it != props.end()) {
    auto d = ParseDuration(it->second);
    if (!d.ok()) return BadRetention(kRetentionProperty, it->second, "a duration such as 7d");
    out = Policy{it->second, *d, std::nullopt};
  }
  if (auto it = props.find(kRetentionConsumerFloorProperty); it != props.end()) {
    if (it->second != "true" && it->second != "false") {
      return BadRetention(kRetentionConsumerFloorProperty, it->second, "true or false");
    }
    if (!out) out = Policy{};
    out->consumer_floor = it->second == "true";
  }
  return out;
}

}  // namespace

Status catalog_internal::ValidateRetentionSetting(const PropertyMap& props) {
  if (auto it = props.find(kCompactionAutoProperty);
      it != props.end() && it->second != "true" && it->second != "false") {
    return BadRetention(kCompactionAutoProperty, it->second, "true or false");
  }
  return PolicyOf(props).status();
}

Result<RetentionResult> Catalog::ApplyRetention(const RetentionOptions& options) {
  RetentionResult out;
  out.dry_run = options.dry_run;
  if (!options.workspace.empty()) TARN_RETURN_NOT_OK(GetWorkspace(options.workspace).status());
  std::map<std::string, Result<std::optional<Policy>>> workspaces;  // by name, as read
  int64_t after_id = 0;
  for (;;) {
    std::vector<catalog_store::SweepDataset> page;
    TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
        [&](Transaction& tx) -> Status {
          TARN_ASSIGN_OR_RETURN(
              page, catalog_store::LiveDatasetsPage(tx, options.workspace, after_id, 500));
          return Status::OK();
        },
        TxMode::kReadOnly));
    if (page.empty()) break;
    after_id = page.back().id;
    for (const auto& d : page) {
      RetentionApplied applied;
      applied.dataset = d.name;
      auto fail = [&](const Status& st) {
        applied.error_code = st.code();
        applied.error = st.message();
        out.datasets.push_back(applied);
      };
      auto ds = LoadDataset(d.name);
      if (!ds.ok()) {
        if (ds.status().kind() == ErrorKind::kNotFound) continue;  // dropped meanwhile
        fail(ds.status());
        continue;
      }
      const std::string ws = ds->name.workspace;
      auto wit = workspaces.find(ws);
      if (wit == workspaces.end()) {
        auto info = GetWorkspace(ws);
        wit = workspaces
                  .emplace(ws, info.ok() ? PolicyOf(info->properties)
                                         : Result<std::optional<Policy>>(info.status()))
                  .first;
      }
      auto own = PolicyOf(ds->properties);
      if (!own.ok()) {
        fail(own.status());
        continue;
      }
      if (!wit->second.ok()) {
        fail(wit->second.status());
        continue;
      }
      // The dataset's keys beat the workspace's, each on its own.
      const std::optional<Policy>& mine = *own;
      const std::optional<Policy>& theirs = *wit->second;
      Policy p;
      if (mine && !mine->retention.empty()) {
        p.retention = mine->retention;
        p.retention_us = mine->retention_us;
        applied.source = "dataset";
      } else if (theirs && !theirs->retention.empty()) {
        p.retention = theirs->retention;
        p.retention_us = theirs->retention_us;
        applied.source = "workspace";
      } else {
        ++out.without_policy;
        continue;
      }
      applied.retention = p.retention;
      applied.consumer_floor = mine && mine->consumer_floor       ? *mine->consumer_floor
                               : theirs && theirs->consumer_floor ? *theirs->consumer_floor
                                                                  : true;
      ExpiryOptions expiry;
      expiry.older_than_us = clock_->NowMicros() - p.retention_us;
      expiry.respect_consumer_offsets = applied.consumer_floor;
      expiry.dry_run = options.dry_run;
      auto r = ExpireSnapshots(d.name, expiry);
      if (!r.ok()) {
        if (r.status().kind() == ErrorKind::kNotFound) continue;
        fail(r.status());
        continue;
      }
      applied.expiry = *r;
      out.datasets.push_back(std::move(applied));
    }
  }
  std::sort(
      out.datasets.begin(), out.datasets.end(),
      [](const RetentionApplied& a, const RetentionApplied& b) { return a.dataset < b.dataset; });
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

// Maintenance (C11): snapshot expiry, the removal ledger and orphan detection.
//
// Expiry moves the frontier `expired_through` = E forward: snapshots <= E go (tagged ones stay),
// and a file row whose removal snapshot is <= E is no longer needed by any retained snapshot or
// by the change feed from E, unless a tagged snapshot still sees it. Such rows leave the catalog
// and their paths enter the removal ledger, in the same transaction. Cleanup then deletes the
// ledger's objects from storage, checking again that no catalog row names them.
//
// No foreign key checks these statements row by row (migration 18 dropped the three expiry
// paid for); the rules they kept hold under the dataset lock taken below, and in the statements
// (maintenance_store.cc): the ledger rows name the dataset locked; the vectors of every file
// row that goes are deleted before it (the same DeadFile rule, under the lock, so the same
// rows); and a tagged snapshot never goes (tags change only under the lock, snapshots.cc).
// DropDataset's purge (datasets.cc, catalog_store::PurgeDatasetRows) is the other place rows of
// these tables go.
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
        TARN_ASSIGN_OR_RETURN(auto last,
                              catalog_store::LastSnapshotBefore(tx, ds.id, options.older_than_us));
        if (!last) return Status::OK();
        int64_t e = std::min(*last, current - 1);  // the current snapshot always stays
        if (options.respect_consumer_offsets) {
          TARN_ASSIGN_OR_RETURN(auto floor, catalog_store::LowestConsumerOffset(tx, ds.id));
          if (floor) e = std::min(e, *floor);
        }
        if (e <= ds.expired_through) return Status::OK();
        TARN_ASSIGN_OR_RETURN(out.expired_snapshots,
                              catalog_store::CountExpirableSnapshots(tx, ds.id, e));
        // Paths no surviving row names (a rollback may have re-added the same path) enter the
        // ledger; those are what expiry releases (counted, not the rows that go).
        out.expired_through = e;
        if (options.dry_run) {
          TARN_ASSIGN_OR_RETURN(out.files_released,
                                catalog_store::CountReleasablePaths(tx, ds.id, e));
          return Status::OK();
        }
        int64_t now = clock_->NowMicros();
        TARN_ASSIGN_OR_RETURN(out.files_released,
                              catalog_store::LedgerReleasedPaths(tx, ds.id, e, now));
        // Every vector of a file row that goes, first; then the rows themselves.
        TARN_RETURN_NOT_OK(catalog_store::DeleteDeadFiles(tx, ds.id, e));
        TARN_RETURN_NOT_OK(catalog_store::ForgetExpiredReads(tx, ds.id, e));
        // Never a tagged snapshot.
        TARN_RETURN_NOT_OK(catalog_store::DeleteExpiredSnapshots(tx, ds.id, e));
        return catalog_store::SetExpiredThrough(tx, ds.id, e);
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
    std::vector<catalog_store::PendingRemoval> page;
    TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
        [&](Transaction& tx) -> Status {
          page.clear();
          TARN_ASSIGN_OR_RETURN(page, catalog_store::PendingRemovalsPage(tx, after_id, kPage));
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
          TARN_RETURN_NOT_OK(catalog_store::MarkRemovalDeleted(tx, id, now));
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

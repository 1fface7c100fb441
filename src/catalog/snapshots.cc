// Snapshots, time travel and tags (C5): selectors resolved, listings, tags (their statements
// in snapshot_store.cc).
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/store.h"
#include "metastore/metastore.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

Status SnapshotNotFound(const DatasetInfo& ds, const std::string& what) {
  return Status::Of(codes::kSnapshotNotFound, "dataset '" + ds.name.ToString() + "' has no " + what)
      .WithField("dataset", ds.name.ToString());
}

Status SnapshotExpired(const DatasetInfo& ds, const std::string& what) {
  return Status::Of(codes::kSnapshotExpired, "dataset '" + ds.name.ToString() + "': " + what +
                                                 " has expired (snapshots up to " +
                                                 std::to_string(ds.expired_through) + " are gone)")
      .WithField("dataset", ds.name.ToString())
      .WithField("expired_through", std::to_string(ds.expired_through));
}

}  // namespace

namespace catalog_internal {

Result<ResolvedSnapshot> ResolveSnapshot(Transaction& tx, const DatasetInfo& ds,
                                         const SnapshotSelector& at) {
  ResolvedSnapshot out;
  auto exists = [&](int64_t id) { return catalog_store::SnapshotExists(tx, ds.id, id); };
  if (at.snapshot_id) {
    int64_t id = *at.snapshot_id;
    out.resolved_by = "snapshot";
    TARN_ASSIGN_OR_RETURN(bool found, exists(id));
    if (found) {
      out.snapshot_id = id;
      return out;
    }
    if (id > 0 && id <= ds.expired_through) {
      return SnapshotExpired(ds, "snapshot " + std::to_string(id));
    }
    return SnapshotNotFound(ds, "snapshot " + std::to_string(id));
  }
  if (at.at_time_us) {
    out.resolved_by = "time";
    TARN_ASSIGN_OR_RETURN(auto id, catalog_store::SnapshotAtTime(tx, ds.id, *at.at_time_us));
    if (id) {
      out.snapshot_id = id;
      return out;
    }
    if (ds.expired_through > 0) {
      return SnapshotExpired(ds, "the snapshot current at that time");
    }
    return SnapshotNotFound(ds, "snapshot at or before that time");
  }
  if (at.tag) {
    const std::string& tag = *at.tag;
    out.resolved_by = "tag:" + tag;
    if (tag == "current" || tag == "head" || tag == "last") {
      out.snapshot_id = ds.current_snapshot_id;
      return out;
    }
    if (tag == "previous") {
      if (!ds.current_snapshot_id) return SnapshotNotFound(ds, "previous snapshot");
      TARN_ASSIGN_OR_RETURN(auto parent,
                            catalog_store::ParentSnapshot(tx, ds.id, *ds.current_snapshot_id));
      if (!parent) return SnapshotNotFound(ds, "previous snapshot");
      TARN_ASSIGN_OR_RETURN(bool found, exists(*parent));
      if (!found) return SnapshotExpired(ds, "the previous snapshot");
      out.snapshot_id = parent;
      return out;
    }
    TARN_ASSIGN_OR_RETURN(auto id, catalog_store::TagTarget(tx, ds.id, tag));
    if (!id) {
      return Status::Of(codes::kTagNotFound,
                        "dataset '" + ds.name.ToString() + "' has no tag '" + tag + "'")
          .WithField("tag", tag);
    }
    out.snapshot_id = id;
    return out;
  }
  out.resolved_by = "current";
  out.snapshot_id = ds.current_snapshot_id;
  return out;
}

Result<std::optional<SnapshotInfo>> FindByIdempotencyKey(Metastore& ms, const DatasetName& n,
                                                         const std::string& key) {
  std::optional<SnapshotInfo> out;
  TARN_RETURN_NOT_OK(ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.reset();
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(out, catalog_store::SnapshotByIdempotencyKey(tx, ds.id, key));
        if (out) out->idempotent_replay = true;
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace catalog_internal

Result<std::vector<SnapshotInfo>> Catalog::DoListSnapshots(std::string_view qualified,
                                                           const SnapshotQuery& query) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  if (query.limit && (*query.limit < 1 || *query.limit > kMaxSnapshotPage)) {
    return Status::InvalidArgument("a snapshot page's limit is 1 to " +
                                   std::to_string(kMaxSnapshotPage))
        .WithField("field", "limit");
  }
  std::vector<SnapshotInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(out, catalog_store::SnapshotsPage(tx, ds.id, query));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<SnapshotInfo> Catalog::GetSnapshot(std::string_view qualified, const SnapshotSelector& at) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  SnapshotInfo out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(auto resolved, ResolveSnapshot(tx, ds, at));
        if (!resolved.snapshot_id) return SnapshotNotFound(ds, "snapshot yet");
        TARN_ASSIGN_OR_RETURN(auto snap,
                              catalog_store::SnapshotById(tx, ds.id, *resolved.snapshot_id));
        if (!snap) return Status::Internal("resolved snapshot vanished");
        out = std::move(*snap);
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::DoCreateTag(std::string_view qualified, std::string_view tag,
                            const SnapshotSelector& at, bool replace) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(ValidateIdentifier("tag name", tag));
  if (IsReservedTag(tag)) {
    return Status::Of(codes::kReservedName, "tag name '" + std::string(tag) +
                                                "' is reserved (current, previous, head, last)")
        .WithField("tag", std::string(tag));
  }
  // A tag names a snapshot that exists (no foreign key says so since migration 18): the
  // dataset row is locked before the snapshot is resolved, so an expiry, which takes the same
  // lock, either ran before (the snapshot is found expired) or runs after and sees the tag.
  return metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LockDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(auto resolved, ResolveSnapshot(tx, ds, at));
        if (!resolved.snapshot_id) return SnapshotNotFound(ds, "snapshot to tag");
        TARN_ASSIGN_OR_RETURN(bool put, catalog_store::PutTag(tx, ds.id, tag, *resolved.snapshot_id,
                                                              clock_->NowMicros(), replace));
        if (!put) {
          return Status::AlreadyExists("tag '" + std::string(tag) + "' already exists on '" +
                                       n.ToString() + "'")
              .WithField("tag", std::string(tag));
        }
        return Status::OK();
      },
      TxMode::kLockingWrite);
}

Status Catalog::DropTag(std::string_view qualified, std::string_view tag) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  // Under the dataset's lock: an expiry never sees the tags change halfway through.
  return metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LockDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(bool deleted, catalog_store::DeleteTag(tx, ds.id, tag));
        if (!deleted) {
          return Status::Of(codes::kTagNotFound,
                            "dataset '" + n.ToString() + "' has no tag '" + std::string(tag) + "'")
              .WithField("tag", std::string(tag));
        }
        return Status::OK();
      },
      TxMode::kLockingWrite);
}

Result<std::vector<TagInfo>> Catalog::ListTags(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  std::vector<TagInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(out, catalog_store::Tags(tx, ds.id));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace tarn

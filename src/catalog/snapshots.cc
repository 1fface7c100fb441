// Snapshots, time travel and tags (C5); the receipt and operation vocabularies.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "metastore/metastore.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog
using nlohmann::json;

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

Result<ResolvedSnapshot> ResolveSnapshot(Transaction& tx, const DatasetInfo& ds,
                                         const SnapshotSelector& at) {
  ResolvedSnapshot out;
  auto exists = [&](int64_t id) -> Result<bool> {
    TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT 1 FROM snapshots WHERE dataset_id = ? "
                                                "AND snapshot_id = ?",
                                                {ds.id, id}));
    return row.has_value();
  };
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
    TARN_ASSIGN_OR_RETURN(
        auto row, tx.QueryOne("SELECT MAX(snapshot_id) FROM snapshots WHERE dataset_id = ? AND "
                              "committed_at <= ?",
                              {ds.id, *at.at_time_us}));
    if (row && !row->IsNull(0)) {
      TARN_ASSIGN_OR_RETURN(int64_t id, row->Int64(0));
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
      TARN_ASSIGN_OR_RETURN(
          auto row, tx.QueryOne("SELECT parent_snapshot_id FROM snapshots WHERE dataset_id = ? "
                                "AND snapshot_id = ?",
                                {ds.id, *ds.current_snapshot_id}));
      if (!row || row->IsNull(0)) return SnapshotNotFound(ds, "previous snapshot");
      TARN_ASSIGN_OR_RETURN(int64_t parent, row->Int64(0));
      TARN_ASSIGN_OR_RETURN(bool found, exists(parent));
      if (!found) return SnapshotExpired(ds, "the previous snapshot");
      out.snapshot_id = parent;
      return out;
    }
    TARN_ASSIGN_OR_RETURN(
        auto row, tx.QueryOne("SELECT snapshot_id FROM tags WHERE dataset_id = ? AND name = ?",
                              {ds.id, tag}));
    if (!row) {
      return Status::Of(codes::kTagNotFound,
                        "dataset '" + ds.name.ToString() + "' has no tag '" + tag + "'")
          .WithField("tag", tag);
    }
    TARN_ASSIGN_OR_RETURN(int64_t id, row->Int64(0));
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
        TARN_ASSIGN_OR_RETURN(auto row,
                              tx.QueryOne(std::string("SELECT ") + kSnapshotColumns +
                                              " FROM snapshots sn JOIN datasets d ON d.id = "
                                              "sn.dataset_id WHERE sn.dataset_id = ? AND "
                                              "sn.idempotency_key = ?",
                                          {ds.id, key}));
        if (!row) return Status::OK();
        TARN_ASSIGN_OR_RETURN(auto s, SnapshotFromRow(*row));
        s.idempotent_replay = true;
        out = std::move(s);
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
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

Result<std::vector<SnapshotInfo>> Catalog::DoListSnapshots(std::string_view qualified,
                                                           const SnapshotQuery& query) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  if (query.limit && (*query.limit < 1 || *query.limit > kMaxSnapshotPage)) {
    return Status::InvalidArgument("a snapshot page's limit is 1 to " +
                                   std::to_string(kMaxSnapshotPage))
        .WithField("field", "limit");
  }
  // With `before` alone the page is the last `limit` below it: read downwards, then reverse.
  const bool backward = query.before && !query.after && query.limit;
  std::vector<SnapshotInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.clear();
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        std::string sql = std::string("SELECT ") + kSnapshotColumns +
                          " FROM snapshots sn JOIN datasets d ON d.id = sn.dataset_id "
                          "WHERE sn.dataset_id = ?";
        SqlParams params{ds.id};
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
        return tx.QueryEach(sql, params, [&](const Row& r) -> Status {
          TARN_ASSIGN_OR_RETURN(auto s, SnapshotFromRow(r));
          out.push_back(std::move(s));
          return Status::OK();
        });
      },
      TxMode::kReadOnly));
  if (backward) std::reverse(out.begin(), out.end());
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
        TARN_ASSIGN_OR_RETURN(auto row,
                              tx.QueryOne(std::string("SELECT ") + kSnapshotColumns +
                                              " FROM snapshots sn JOIN datasets d ON d.id = "
                                              "sn.dataset_id WHERE sn.dataset_id = ? AND "
                                              "sn.snapshot_id = ?",
                                          {ds.id, *resolved.snapshot_id}));
        if (!row) return Status::Internal("resolved snapshot vanished");
        TARN_ASSIGN_OR_RETURN(out, SnapshotFromRow(*row));
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
        std::string sql =
            "INSERT INTO tags (dataset_id, name, snapshot_id, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (dataset_id, name) DO ";
        sql += replace ? "UPDATE SET snapshot_id = excluded.snapshot_id, created_at = "
                         "excluded.created_at"
                       : "NOTHING";
        TARN_ASSIGN_OR_RETURN(int64_t changed, tx.Execute(sql, {ds.id, tag, *resolved.snapshot_id,
                                                                clock_->NowMicros()}));
        if (changed == 0) {
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
        TARN_ASSIGN_OR_RETURN(
            int64_t changed,
            tx.Execute("DELETE FROM tags WHERE dataset_id = ? AND name = ?", {ds.id, tag}));
        if (changed == 0) {
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
        out.clear();
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("SELECT name, snapshot_id, created_at FROM "
                                                  "tags WHERE dataset_id = ? ORDER BY name",
                                                  {ds.id}));
        for (const Row& r : rows) {
          TagInfo t;
          TARN_ASSIGN_OR_RETURN(auto name, r.Text(0));
          t.name = std::string(name);
          TARN_ASSIGN_OR_RETURN(t.snapshot_id, r.Int64(1));
          TARN_ASSIGN_OR_RETURN(t.created_at_us, r.Int64(2));
          out.push_back(std::move(t));
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace tarn

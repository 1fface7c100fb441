// Commits (C4): one metastore transaction per commit group, one snapshot per dataset part.
//
// The dataset row is the serialization point: `UPDATE datasets SET last_snapshot_id =
// last_snapshot_id + n ...` both locks it (PostgreSQL READ COMMITTED row lock, SQLite's write
// lock) and hands out dense snapshot ids and row-id ranges. Appends to one dataset from threads
// of this process queue in a CommitQueue; a leader commits everything queued in one
// transaction, each part still its own snapshot, so the lock is taken once per group.
#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "catalog/access_store.h"
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/commit_queue.h"
#include "catalog/error_codes.h"
#include "catalog/inlined.h"
#include "catalog/provenance.h"
#include "catalog/store.h"
#include "common/random.h"
#include "metastore/metastore.h"
#include "table/deletion_vector.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

Status Incarnation(const std::string& dataset, std::string_view actual, std::string_view expected) {
  return Status::Of(codes::kIncarnationChanged,
                    "dataset '" + dataset + "' was recreated (its uuid is " + std::string(actual) +
                        ", the commit expected " + std::string(expected) + ")")
      .WithField("dataset", dataset)
      .WithField("dataset_uuid", std::string(actual));
}

Status ConflictSince(const std::string& dataset, int64_t read, int64_t now) {
  return Status::Of(codes::kCommitConflict, "dataset '" + dataset + "' changed since snapshot " +
                                                std::to_string(read) + " (now at " +
                                                std::to_string(now) + "); reload and retry")
      .WithField("dataset", dataset)
      .WithField("current_snapshot_id", std::to_string(now));
}

Status ValidatePart(const DatasetCommit& p) {
  if (p.meta.author.empty()) {
    return Status::Of(codes::kAuthorRequired, "a commit needs an author");
  }
  if (p.meta.idempotency_key && p.meta.idempotency_key->empty()) {
    return Status::InvalidArgument("an idempotency key must not be empty");
  }
  if (p.meta.receipt) {
    TARN_RETURN_NOT_OK(ValidateReceipt(*p.meta.receipt));
    for (const auto& r : p.meta.receipt->read_sources) {
      if (r.dataset_uuid.empty()) {
        return Status::Of(
                   codes::kInvalidReceipt,
                   "receipt read of '" + r.dataset + "' needs the dataset's uuid (its incarnation)")
            .WithField("field", "receipt");
      }
    }
  }
  for (const DataFile& f : p.added) {
    if (f.path.empty() || f.path.front() == '/' || f.path.find("..") != std::string::npos) {
      return Status::InvalidArgument("data file path '" + f.path +
                                     "' must be a key inside the warehouse")
          .WithField("path", f.path);
    }
    if (f.record_count < 0 || f.file_size_bytes < 0) {
      return Status::InvalidArgument("data file '" + f.path + "' has negative counts");
    }
    if (f.stats_pending && !f.columns.empty()) {
      return Status::InvalidArgument("data file '" + f.path +
                                     "' has its statistics pending and also carries some")
          .WithField("path", f.path);
    }
    // Only compaction writes files that store their rows' ids (row lineage, C10).
    if (f.StoresRowIds() != (p.operation == CommitOperation::kCompact) ||
        (p.operation == CommitOperation::kCompact && !f.RowIdRange())) {
      return Status::InvalidArgument("data file '" + f.path + "' names the reserved row id field " +
                                     std::to_string(kRowIdFieldId) + " in its statistics")
          .WithField("path", f.path);
    }
  }
  if (!p.inlined.empty()) {
    std::set<std::string_view> added;
    for (const DataFile& f : p.added) added.insert(f.path);
    for (const auto& [path, bytes] : p.inlined) {
      if (!IsInlinedPath(path) || !added.count(path) || bytes.empty()) {
        return Status::Internal("inlined bytes for '" + path + "', not an inlined added file");
      }
    }
  }
  switch (p.operation) {
    case CommitOperation::kAppend:
    case CommitOperation::kAddFiles:
      if (!p.removed_paths.empty() || !p.deletes.empty()) {
        return Status::InvalidArgument("an append cannot remove files or rows");
      }
      break;
    case CommitOperation::kDeleteRows:
      if (p.deletes.empty()) return Status::InvalidArgument("delete_rows needs row positions");
      break;
    case CommitOperation::kDeleteFiles:
      if (p.removed_paths.empty()) return Status::InvalidArgument("delete_files needs paths");
      break;
    case CommitOperation::kRollback:
      if (!p.rollback_to) return Status::InvalidArgument("rollback needs a target snapshot");
      break;
    case CommitOperation::kCompact:
      if (p.removed_paths.empty() || !p.read_snapshot_id || !p.deletes.empty()) {
        return Status::InvalidArgument("a compaction replaces files it read at a snapshot");
      }
      break;
    default:
      break;
  }
  return Status::OK();
}

// What one part changed, for its snapshot's summary.
struct Delta {
  int64_t added_files = 0, deleted_files = 0;
  int64_t added_records = 0, deleted_records = 0;
  int64_t added_bytes = 0, deleted_bytes = 0;
};

// The dataset row as the lock-and-allocate UPDATE returned it.
using Locked = catalog_store::LockedDataset;

// Adds what removing files took out to `delta` and returns how many files went. Rows already
// deleted by vectors were counted out of the totals when they were deleted.
int64_t CountRemoved(const catalog_store::RemovedFiles& removed, Delta* delta) {
  delta->deleted_files += removed.files;
  delta->deleted_records += removed.records - removed.deleted_rows;
  delta->deleted_bytes += removed.bytes;
  return removed.files;
}

// Applies row deletions to live files: the new vector is the union with the live one; a file
// whose every row is deleted is removed instead.
Status DeleteRowsIn(Transaction& tx, int64_t dataset_id, int64_t snapshot_id,
                    const std::vector<FileDeletes>& deletes, const std::string& dataset,
                    Delta* delta) {
  for (const FileDeletes& d : deletes) {
    TARN_ASSIGN_OR_RETURN(auto row, catalog_store::LiveFileByPath(tx, dataset_id, d.path));
    if (!row) {
      return Status::Of(codes::kCommitConflict, "file '" + d.path + "' is no longer live in '" +
                                                    dataset + "'; reload and retry")
          .WithField("path", d.path);
    }
    const int64_t file_id = row->file_id;
    const int64_t records = row->record_count;
    const int64_t bytes = row->file_size_bytes;
    std::vector<uint64_t> positions = d.positions;
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    if (!positions.empty() && positions.back() >= static_cast<uint64_t>(records)) {
      return Status::InvalidArgument("row position " + std::to_string(positions.back()) +
                                     " is past the end of '" + d.path + "' (" +
                                     std::to_string(records) + " rows)")
          .WithField("path", d.path);
    }
    int64_t old_card = 0;
    const std::optional<int64_t> old_dv = row->vector_id;
    if (old_dv) {
      old_card = row->cardinality;
      TARN_ASSIGN_OR_RETURN(auto old_positions, DecodeDeletionVector(row->positions));
      positions = UnionPositions(old_positions, positions);
    }
    int64_t card = static_cast<int64_t>(positions.size());
    if (card == old_card) continue;  // nothing new
    if (old_dv) TARN_RETURN_NOT_OK(catalog_store::MarkVectorRemoved(tx, *old_dv, snapshot_id));
    if (card == records) {
      // Every row is gone: the file leaves the snapshot.
      TARN_RETURN_NOT_OK(catalog_store::MarkFileRemoved(tx, file_id, snapshot_id));
      delta->deleted_files += 1;
      delta->deleted_bytes += bytes;
      delta->deleted_records += records - old_card;
      continue;
    }
    TARN_RETURN_NOT_OK(catalog_store::InsertDeletionVector(tx, dataset_id, file_id, snapshot_id,
                                                           card, EncodeDeletionVector(positions)));
    delta->deleted_records += card - old_card;
  }
  return Status::OK();
}

// Restores the file set (and deletion vectors) of snapshot `target` as snapshot `snapshot_id`.
Status RollbackTo(Transaction& tx, int64_t dataset_id, int64_t snapshot_id, int64_t target,
                  Delta* delta) {
  // Files live now that were added after the target leave.
  TARN_ASSIGN_OR_RETURN(
      auto removed, catalog_store::MarkFilesAddedAfterRemoved(tx, dataset_id, snapshot_id, target));
  CountRemoved(removed, delta);
  // Files live at the target but removed since come back as new rows (same path, same rows).
  TARN_ASSIGN_OR_RETURN(auto back, catalog_store::FilesToRestore(tx, dataset_id, target));
  for (const DataFile& f : back) {
    TARN_ASSIGN_OR_RETURN(int64_t new_id, catalog_store::CopyFileRow(tx, f.file_id, snapshot_id));
    delta->added_files += 1;
    delta->added_records += f.record_count;
    delta->added_bytes += f.file_size_bytes;
    // Its vector at the target, if any, comes back with it.
    TARN_ASSIGN_OR_RETURN(auto dv, catalog_store::VectorAt(tx, f.file_id, target));
    if (dv) {
      TARN_RETURN_NOT_OK(catalog_store::InsertDeletionVector(tx, dataset_id, new_id, snapshot_id,
                                                             dv->cardinality, dv->positions));
      delta->added_records -= dv->cardinality;
    }
  }
  // Files live both then and now: their vector must be the one live at the target.
  TARN_ASSIGN_OR_RETURN(auto kept, catalog_store::VectorsNowAndAt(tx, dataset_id, target));
  for (const auto& v : kept) {
    if (v.now == v.then) continue;
    if (v.now) {
      TARN_ASSIGN_OR_RETURN(int64_t card,
                            catalog_store::MarkVectorRemovedCounted(tx, *v.now, snapshot_id));
      delta->added_records += card;  // rows come back
    }
    if (v.then) {
      TARN_ASSIGN_OR_RETURN(int64_t card,
                            catalog_store::CopyVector(tx, *v.then, v.file_id, snapshot_id));
      delta->deleted_records += card;
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const DefinitionCache::Entry>> DefinitionCache::Get(Transaction& tx,
                                                                           int64_t dataset_id,
                                                                           const std::string& uuid,
                                                                           int64_t schema_id,
                                                                           int64_t spec_id) {
  std::string key = uuid + "/" + std::to_string(schema_id) + "/" + std::to_string(spec_id);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = entries_.find(key); it != entries_.end()) {
      return std::shared_ptr<const Entry>(it->second);
    }
  }
  TARN_ASSIGN_OR_RETURN(auto defs, catalog_store::Definitions(tx, dataset_id, schema_id, spec_id));
  if (!defs) {
    return Status::Corruption("schema " + std::to_string(schema_id) + " or partition spec " +
                              std::to_string(spec_id) + " of dataset " + uuid + " is missing");
  }
  auto entry = std::make_shared<Entry>();
  entry->schema = std::move(defs->schema);
  entry->spec = std::move(defs->spec);
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_[key] = entry;
  return std::shared_ptr<const Entry>(entry);
}

namespace {

// A part based on an older snapshot than `before` (the one it commits on top of). Row and file
// deletes commit over appends and other row deletes in between: they touch only the files they
// name, each of which must still be live (checked when applied), and vectors are merged with
// the live one. Anything else in between (overwrite, rollback, DDL-like rewrites) conflicts.
Status CheckIntervening(Transaction& tx, const Locked& lk, const DatasetCommit& p,
                        const std::string& dataset, int64_t before) {
  int64_t read = *p.read_snapshot_id;
  bool deletes =
      p.operation == CommitOperation::kDeleteRows || p.operation == CommitOperation::kDeleteFiles;
  if (!deletes || read > before || read < lk.expired_through) {
    return ConflictSince(dataset, read, before);
  }
  TARN_ASSIGN_OR_RETURN(int64_t others,
                        catalog_store::CountRewritesBetween(tx, lk.id, read, before));
  if (others > 0) return ConflictSince(dataset, read, before);
  return Status::OK();
}

// A compaction (the inputs it read at `read`, removed_paths) commits over anything that left
// those files as they were: each is still live, was added at or before `read`, and no deletion
// vector of it was added or replaced since (a delete of rows in it would be lost). Appends,
// schema changes and commits touching other files in between do not conflict.
Status CheckCompactInputs(Transaction& tx, const Locked& lk, const DatasetCommit& p,
                          const std::string& dataset, int64_t before) {
  const int64_t read = *p.read_snapshot_id;
  if (read > before || read < lk.expired_through) return ConflictSince(dataset, read, before);
  TARN_ASSIGN_OR_RETURN(bool unchanged,
                        catalog_store::CompactInputsUnchanged(tx, lk.id, read, p.removed_paths));
  if (!unchanged) {
    return Status::Of(codes::kCommitConflict, "files the compaction of '" + dataset +
                                                  "' rewrote were changed since "
                                                  "snapshot " +
                                                  std::to_string(read) +
                                                  " (rows deleted or files "
                                                  "replaced); run it again")
        .WithField("dataset", dataset)
        .WithField("current_snapshot_id", std::to_string(before));
  }
  return Status::OK();
}

// One dataset's parts of a commit group, in order.
struct DatasetGroup {
  std::string dataset;
  std::vector<DatasetCommit*> parts;
  std::vector<SnapshotInfo*> results;
  std::vector<FireFailure> fire_failures;        // of this attempt, reported after the commit
  std::vector<MissingReceipt> missing_receipts;  // of this attempt, alerted after the commit
};

// Fires the triggers on the group's dataset for each user-created snapshot it commits
// (docs/design/views.md "Triggers and jobs"), in the commit's transaction but inside a
// savepoint: a failure to record is rolled back alone and reported after the commit.
Status FireGroup(Transaction& tx, DatasetGroup& g, const std::vector<size_t>& todo,
                 const catalog_store::LockedDataset& lk, int64_t now) {
  g.fire_failures.clear();
  if (lk.trigger_count == 0 || !TriggerFiringEnabled()) return Status::OK();
  const int64_t dataset_id = lk.id;
  if (now < lk.trigger_due_at) {
    // Every trigger is inside its floor: throttled, recorded with the commit's own statements.
    for (size_t k : todo) {
      const DatasetCommit& p = *g.parts[k];
      const SnapshotInfo& s = *g.results[k];
      if (!s.user_created) continue;
      const std::string& fired_by =
          p.meta.audit && !p.meta.audit->actor.empty() ? p.meta.audit->actor : p.meta.author;
      TARN_RETURN_NOT_OK(
          MarkThrottled(tx, dataset_id, g.dataset, s.snapshot_id, lk.trigger_count, fired_by, now));
    }
    return Status::OK();
  }
  TARN_ASSIGN_OR_RETURN(auto candidates, views_store::FireCandidates(tx, dataset_id));
  if (candidates.empty()) return Status::OK();
  for (size_t k : todo) {
    const DatasetCommit& p = *g.parts[k];
    const SnapshotInfo& s = *g.results[k];
    if (!s.user_created) continue;
    // Who committed: the server's caller (its client id), else the commit's author.
    const std::string fired_by =
        p.meta.audit && !p.meta.audit->actor.empty() ? p.meta.audit->actor : p.meta.author;
    Status st = tx.Savepoint(
        [&] { return FireTriggersInTx(tx, dataset_id, candidates, s, fired_by, now); });
    if (!st.ok()) g.fire_failures.push_back({g.dataset, s.snapshot_id, fired_by, st});
  }
  return Status::OK();
}

// The audit rows of the parts a server committed (CommitMeta::audit), in the commit's own
// transaction: an acknowledged commit always has its row. Deferred like the snapshot rows.
Status InsertCommitAudit(Transaction& tx, const DatasetGroup& g, const std::vector<size_t>& todo,
                         int64_t commit_at) {
  std::vector<AuditRecord> rows;
  for (size_t k : todo) {
    const DatasetCommit& p = *g.parts[k];
    if (!p.meta.audit) continue;
    const AuditRecord& a = *p.meta.audit;
    const SnapshotInfo& s = *g.results[k];
    std::string detail = "{\"snapshot_id\":" + std::to_string(s.snapshot_id) + ",\"operation\":\"" +
                         s.operation + "\",\"commit_id\":\"" + s.commit_id + "\"}";
    std::string action =
        a.action.empty() ? "dataset." + std::string(CommitOperationName(p.operation)) : a.action;
    AuditRecord row;
    row.at_us = a.at_us ? a.at_us : commit_at;
    row.request_id = a.request_id;
    row.actor = a.actor;
    row.action = std::move(action);
    row.target = g.dataset;
    row.workspace = g.dataset.substr(0, g.dataset.find('.'));
    row.outcome = "ok";
    row.detail_json = std::move(detail);
    rows.push_back(std::move(row));
  }
  // A commit without a receipt lands, and says so (docs/design/provenance.md).
  for (size_t k : todo) {
    const DatasetCommit& p = *g.parts[k];
    if (p.meta.receipt) continue;
    const SnapshotInfo& s = *g.results[k];
    AuditRecord row;
    row.at_us = commit_at;
    if (p.meta.audit) row.request_id = p.meta.audit->request_id;
    row.actor = p.meta.audit && !p.meta.audit->actor.empty() ? p.meta.audit->actor : p.meta.author;
    row.action = "dataset.missing_receipt";
    row.target = g.dataset;
    row.workspace = g.dataset.substr(0, g.dataset.find('.'));
    row.outcome = "ok";
    row.detail_json = "{\"snapshot_id\":" + std::to_string(s.snapshot_id) + ",\"operation\":\"" +
                      s.operation + "\"}";
    rows.push_back(std::move(row));
  }
  return access_store::InsertAuditRows(tx, rows);
}

Status CommitDatasetGroup(Transaction& tx, DatasetGroup& g, const std::string& commit_id,
                          bool shared_commit_id, int64_t now, DefinitionCache& cache) {
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(g.dataset));
  // Idempotent replays first: a part whose key already committed returns that snapshot.
  std::vector<size_t> todo;
  for (size_t i = 0; i < g.parts.size(); ++i) {
    const auto& key = g.parts[i]->meta.idempotency_key;
    if (key) {
      TARN_ASSIGN_OR_RETURN(auto replay, catalog_store::LiveSnapshotByIdempotencyKey(tx, n, *key));
      if (replay) {
        *g.results[i] = std::move(*replay);
        g.results[i]->idempotent_replay = true;
        continue;
      }
    }
    todo.push_back(i);
  }
  if (todo.empty()) return Status::OK();

  // Lock the dataset row and allocate snapshot ids and row ids. Appends add their totals here.
  int64_t n_snaps = static_cast<int64_t>(todo.size());
  int64_t add_rows = 0;
  Delta append_sum;
  for (size_t i : todo) {
    const DatasetCommit& p = *g.parts[i];
    // A compaction's rows keep the ids they have.
    if (p.operation != CommitOperation::kCompact) {
      for (const DataFile& f : p.added) add_rows += f.record_count;
    }
    if (IsAppendOnly(p.operation)) {
      for (const DataFile& f : p.added) {
        append_sum.added_files += 1;
        append_sum.added_records += f.record_count;
        append_sum.added_bytes += f.file_size_bytes;
      }
    }
  }
  catalog_store::LockDelta delta;
  delta.snapshots = n_snaps;
  delta.row_ids = add_rows;
  delta.files = append_sum.added_files;
  delta.records = append_sum.added_records;
  delta.bytes = append_sum.added_bytes;
  TARN_ASSIGN_OR_RETURN(auto locked, catalog_store::LockDataset(tx, n, delta, now));
  if (!locked) return DatasetNotFound(tx, n);
  Locked& lk = *locked;
  // The schema and spec are read after the lock, in their own statement: under READ COMMITTED a
  // subquery in the locking UPDATE would see the snapshot taken before it waited, and miss a
  // schema version committed meanwhile. Versions never change, so a process-wide cache keyed by
  // (uuid, version) spares most commits the round trip.
  TARN_ASSIGN_OR_RETURN(auto defs, cache.Get(tx, lk.id, lk.uuid, lk.schema_id, lk.spec_id));
  const Schema& schema = defs->schema;
  const PartitionSpec& spec = defs->spec;

  const int64_t base = lk.last_snapshot_id - n_snaps;  // the snapshot before this group
  int64_t next_row_id = lk.next_row_id - add_rows;
  int64_t total_files = lk.total_files - append_sum.added_files;
  int64_t total_records = lk.total_records - append_sum.added_records;
  int64_t total_bytes = lk.total_bytes - append_sum.added_bytes;
  Delta other_sum;                   // totals of non-append parts, applied at the end
  std::vector<DataFile*> new_files;  // of every part, inserted together
  std::vector<std::pair<std::string_view, std::string_view>> inlined;  // their kept bytes
  // The standing source list, carried through the group (docs/design/provenance.md).
  const provenance::SourceList sources_before = provenance::ParseSourceList(lk.sources);
  provenance::SourceList sources = sources_before;
  std::vector<std::string> sources_after(todo.size());
  std::vector<provenance::ReadRow> reads;
  g.missing_receipts.clear();

  for (size_t k = 0; k < todo.size(); ++k) {
    DatasetCommit& p = *g.parts[todo[k]];
    const int64_t snap = base + 1 + static_cast<int64_t>(k);
    const int64_t before = snap - 1;
    if (p.expected_uuid && *p.expected_uuid != lk.uuid) {
      return Incarnation(g.dataset, lk.uuid, *p.expected_uuid);
    }
    // Inlined files are named for the incarnation they were written for (the append's
    // expected uuid, checked above).
    for (const auto& f : p.inlined) {
      if (f.first.rfind(InlinePrefix(lk.uuid), 0) != 0) {
        return Status::Internal("inlined file '" + f.first + "' is not named for dataset '" +
                                g.dataset + "' (uuid " + lk.uuid + ")");
      }
      inlined.emplace_back(f.first, f.second);
    }
    const bool compact = p.operation == CommitOperation::kCompact;
    if (compact) {
      TARN_RETURN_NOT_OK(CheckCompactInputs(tx, lk, p, g.dataset, before));
    } else if (!IsAppendOnly(p.operation) && p.read_snapshot_id && *p.read_snapshot_id != before) {
      TARN_RETURN_NOT_OK(CheckIntervening(tx, lk, p, g.dataset, before));
    }
    // A compaction's files keep the spec of the files they replace (checked by the compactor).
    if (!p.added.empty() && !compact) {
      int64_t written = p.written_spec_id.value_or(p.added.front().spec_id);
      for (const DataFile& f : p.added) {
        if (f.spec_id != written) written = -1;
      }
      if (written != lk.spec_id) {
        return Status::Of(codes::kSpecChanged,
                          "the partition spec of '" + g.dataset +
                              "' changed since the files were written; rewrite and retry")
            .WithField("dataset", g.dataset);
      }
      for (const DataFile& f : p.added) {
        if (f.partition.size() != spec.fields.size()) {
          return Status::InvalidArgument(
                     "data file '" + f.path + "' has " + std::to_string(f.partition.size()) +
                     " partition values; the spec has " + std::to_string(spec.fields.size()))
              .WithField("path", f.path);
        }
      }
    }
    Delta d;
    switch (p.operation) {
      case CommitOperation::kOverwrite:
      case CommitOperation::kTruncateAndAdd: {
        TARN_ASSIGN_OR_RETURN(auto removed, catalog_store::MarkLiveFilesRemoved(tx, lk.id, snap));
        CountRemoved(removed, &d);
        break;
      }
      case CommitOperation::kDeleteFiles:
      case CommitOperation::kCompact:
      case CommitOperation::kMerge: {
        if (!p.removed_paths.empty()) {
          TARN_ASSIGN_OR_RETURN(auto files,
                                catalog_store::MarkFilesRemoved(tx, lk.id, snap, p.removed_paths));
          const int64_t removed = CountRemoved(files, &d);
          if (removed != static_cast<int64_t>(p.removed_paths.size())) {
            return Status::Of(codes::kCommitConflict,
                              "some files to remove are no longer live in '" + g.dataset +
                                  "'; reload and retry")
                .WithField("dataset", g.dataset);
          }
        }
        break;
      }
      case CommitOperation::kRollback: {
        if (*p.rollback_to > before || *p.rollback_to < 0) {
          return Status::InvalidArgument("cannot roll back to snapshot " +
                                         std::to_string(*p.rollback_to));
        }
        TARN_ASSIGN_OR_RETURN(int64_t expired_through, catalog_store::ExpiredThrough(tx, lk.id));
        if (*p.rollback_to < expired_through) {
          return Status::Of(codes::kSnapshotExpired, "snapshot " + std::to_string(*p.rollback_to) +
                                                         " of '" + g.dataset + "' has expired");
        }
        TARN_RETURN_NOT_OK(RollbackTo(tx, lk.id, snap, *p.rollback_to, &d));
        break;
      }
      default:
        break;
    }
    if (!p.deletes.empty()) {
      TARN_RETURN_NOT_OK(DeleteRowsIn(tx, lk.id, snap, p.deletes, g.dataset, &d));
    }
    if (!p.added.empty()) {
      for (DataFile& f : p.added) {
        if (!compact) {
          f.first_row_id = next_row_id;
          next_row_id += f.record_count;
        }
        f.added_snapshot_id = snap;
        new_files.push_back(&f);
        d.added_files += 1;
        d.added_records += f.record_count;
        d.added_bytes += f.file_size_bytes;
      }
    }
    if (!IsAppendOnly(p.operation)) {
      // Appends' totals went into the locking UPDATE; everything else is summed here.
      other_sum.added_files += d.added_files;
      other_sum.deleted_files += d.deleted_files;
      other_sum.added_records += d.added_records;
      other_sum.deleted_records += d.deleted_records;
      other_sum.added_bytes += d.added_bytes;
      other_sum.deleted_bytes += d.deleted_bytes;
    }
    total_files += d.added_files - d.deleted_files;
    total_records += d.added_records - d.deleted_records;
    total_bytes += d.added_bytes - d.deleted_bytes;

    SnapshotInfo& s = *g.results[todo[k]];
    s.dataset_uuid = lk.uuid;
    s.snapshot_id = snap;
    if (before > 0) s.parent_snapshot_id = before;
    s.committed_at_us = lk.commit_at;
    s.author = p.meta.author;
    s.message = p.meta.message;
    s.operation = std::string(CommitOperationName(p.operation));
    s.user_created = p.meta.user_created;
    s.schema_id = static_cast<int32_t>(lk.schema_id);
    s.spec_id = static_cast<int32_t>(lk.spec_id);
    s.added_files = d.added_files;
    s.deleted_files = d.deleted_files;
    s.total_files = total_files;
    s.added_records = d.added_records;
    s.deleted_records = d.deleted_records;
    s.total_records = total_records;
    s.added_bytes = d.added_bytes;
    s.deleted_bytes = d.deleted_bytes;
    s.total_bytes = total_bytes;
    s.idempotency_key = p.meta.idempotency_key;
    s.commit_id = shared_commit_id ? commit_id : NewUuidV4();
    s.receipt = p.meta.receipt;
    s.next_row_id = next_row_id;
    if (p.operation == CommitOperation::kRollback) {
      TARN_ASSIGN_OR_RETURN(auto target,
                            catalog_store::SnapshotSourceList(tx, lk.id, *p.rollback_to));
      sources =
          *p.rollback_to == 0 ? provenance::SourceList{} : provenance::ParseSourceList(target);
      if (!p.meta.receipt) sources.complete = false;
    } else {
      provenance::ApplyCommit(&sources, p.operation, p.meta.receipt, lk.uuid, total_files == 0);
    }
    sources_after[k] = sources.ToJson();
    if (p.meta.receipt) {
      for (const auto& r : p.meta.receipt->read_sources) {
        reads.emplace_back(r.dataset_uuid, r.snapshot_id, snap);
      }
    } else {
      g.missing_receipts.push_back({g.dataset, snap, s.operation});
    }
  }

  TARN_RETURN_NOT_OK(catalog_store::InsertDataFiles(
      tx, lk.id, new_files, spec, schema, catalog_store::BoundsFieldsIn(lk.bounds_fields, schema)));
  TARN_RETURN_NOT_OK(catalog_store::InsertInlinedFiles(tx, lk.id, inlined, now));
  // Snapshot rows, in one statement.
  std::vector<const SnapshotInfo*> snaps;
  snaps.reserve(todo.size());
  for (size_t k : todo) snaps.push_back(g.results[k]);
  TARN_RETURN_NOT_OK(catalog_store::InsertSnapshots(tx, lk.id, snaps, sources_after));
  TARN_RETURN_NOT_OK(catalog_store::InsertSnapshotReads(tx, lk.id, reads));
  if (sources != sources_before) {
    TARN_RETURN_NOT_OK(catalog_store::StoreSourceList(tx, lk.id, sources_before, sources));
  }
  TARN_RETURN_NOT_OK(InsertCommitAudit(tx, g, todo, lk.commit_at));
  TARN_RETURN_NOT_OK(FireGroup(tx, g, todo, lk, now));
  if (other_sum.added_files || other_sum.deleted_files || other_sum.added_records ||
      other_sum.deleted_records || other_sum.added_bytes || other_sum.deleted_bytes) {
    TARN_RETURN_NOT_OK(
        catalog_store::AddDatasetTotals(tx, lk.id, other_sum.added_files - other_sum.deleted_files,
                                        other_sum.added_records - other_sum.deleted_records,
                                        other_sum.added_bytes - other_sum.deleted_bytes));
  }
  return Status::OK();
}

// Commits `parts` in one transaction; results[i] is parts[i]'s snapshot.
Status CommitParts(Metastore& ms, const Clock& clock, alerts::Alerter* alerter,
                   DefinitionCache& cache, std::vector<DatasetCommit*>& parts,
                   std::vector<SnapshotInfo>* results, bool shared_commit_id) {
  for (DatasetCommit* p : parts) TARN_RETURN_NOT_OK(ValidatePart(*p));
  // Datasets in name order, so two multi-dataset commits lock rows in the same order.
  std::map<std::string, DatasetGroup> groups;
  results->assign(parts.size(), SnapshotInfo());
  for (size_t i = 0; i < parts.size(); ++i) {
    auto& g = groups[parts[i]->dataset];
    g.dataset = parts[i]->dataset;
    g.parts.push_back(parts[i]);
    g.results.push_back(&(*results)[i]);
  }
  std::string commit_id = NewUuidV4();
  // Files are copied per attempt: a retried transaction must start from the caller's input.
  std::vector<std::vector<DataFile>> original;
  original.reserve(parts.size());
  for (DatasetCommit* p : parts) original.push_back(p->added);
  size_t attempt = 0;
  TARN_RETURN_NOT_OK(ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        if (attempt++ > 0) {
          for (size_t i = 0; i < parts.size(); ++i) parts[i]->added = original[i];
          for (auto& r : *results) r = SnapshotInfo();
        }
        int64_t now = clock.NowMicros();
        for (auto& [name, g] : groups) {
          g.fire_failures.clear();
          g.missing_receipts.clear();
          TARN_RETURN_NOT_OK(CommitDatasetGroup(tx, g, commit_id, shared_commit_id, now, cache));
        }
        return Status::OK();
      },
      TxMode::kLockingWrite));
  // The commit is durable: a fire that failed is a stale view, said loudly, never returned.
  for (auto& [name, g] : groups) {
    for (const auto& f : g.fire_failures) ReportFireFailure(ms, clock, alerter, f);
    for (const auto& m : g.missing_receipts) ReportMissingReceipt(alerter, m);
  }
  return Status::OK();
}

}  // namespace

// ---- the in-process commit queue ----

// One waiting caller. It sleeps on its own condition variable until its group committed
// (`done`) or it is handed the lead (`lead`), so a commit wakes only the threads it concerns.
struct CommitQueue::Pending {
  DatasetCommit* part = nullptr;
  SnapshotInfo result;
  Status status;
  bool done = false;
  bool lead = false;
  std::condition_variable cv;
};

struct CommitQueue::Lane {
  std::mutex mu;
  std::condition_variable gather;  // a leader waiting for writers to queue
  std::vector<Pending*> queue;
  bool leader_active = false;
  size_t in_flight = 0;  // parts of the group being committed
  // How many writers this lane has seen at once recently: a new leader waits briefly for the
  // writers of the group that just finished to come back, so groups do not split into halves
  // that alternate. Decays when writers go away.
  size_t peak = 1;
};

CommitQueue::CommitQueue(Metastore* ms, const Clock* clock, alerts::Alerter* alerter)
    : ms_(ms), clock_(clock), alerter_(alerter) {}
CommitQueue::~CommitQueue() = default;

CommitQueue::Lane& CommitQueue::LaneFor(const std::string& dataset) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& lane = lanes_[dataset];
  if (!lane) lane = std::make_unique<Lane>();
  return *lane;
}

Result<SnapshotInfo> CommitQueue::Submit(DatasetCommit* part) {
  Lane& lane = LaneFor(part->dataset);
  Pending me;
  me.part = part;
  std::unique_lock<std::mutex> lock(lane.mu);
  lane.queue.push_back(&me);
  lane.peak = std::max(lane.peak, lane.queue.size() + lane.in_flight);
  if (lane.leader_active) {
    lane.gather.notify_one();
    me.cv.wait(lock, [&] { return me.done || me.lead; });
    if (me.done) {
      if (!me.status.ok()) return me.status;
      return std::move(me.result);
    }
  }
  // Lead: commit everything queued (this part included) as one group, after giving the
  // writers seen recently a moment to queue.
  lane.leader_active = true;
  if (lane.queue.size() < lane.peak) {
    bool full =
        lane.gather.wait_for(lock, kGatherWait, [&] { return lane.queue.size() >= lane.peak; });
    if (!full) lane.peak = std::max(lane.queue.size(), (lane.peak + lane.queue.size()) / 2);
  }
  std::vector<Pending*> batch;
  batch.swap(lane.queue);
  if (batch.size() > kMaxGroup) {
    lane.queue.assign(batch.begin() + kMaxGroup, batch.end());
    batch.resize(kMaxGroup);
  }
  lane.in_flight = batch.size();
  lock.unlock();
  RunGroup(batch);
  lock.lock();
  lane.in_flight = 0;
  for (Pending* p : batch) {
    p->done = true;
    if (p != &me) p->cv.notify_one();
  }
  // Hand the lead to the oldest waiter, if any.
  if (!lane.queue.empty()) {
    lane.queue.front()->lead = true;
    lane.queue.front()->cv.notify_one();
  } else {
    lane.leader_active = false;
  }
  lock.unlock();
  if (!me.status.ok()) return me.status;
  return std::move(me.result);
}

void CommitQueue::RunGroup(std::vector<Pending*>& batch) {
  std::vector<DatasetCommit*> parts;
  for (Pending* p : batch) parts.push_back(p->part);
  std::vector<SnapshotInfo> results;
  Status st =
      CommitParts(*ms_, *clock_, alerter_, cache_, parts, &results, /*shared_commit_id=*/false);
  if (st.ok()) {
    for (size_t i = 0; i < batch.size(); ++i) batch[i]->result = std::move(results[i]);
    return;
  }
  if (batch.size() == 1) {
    // A racing commit with the same idempotency key won: the retry returns its snapshot.
    if (st.kind() == ErrorKind::kAlreadyExists && batch[0]->part->meta.idempotency_key) {
      st = CommitParts(*ms_, *clock_, alerter_, cache_, parts, &results, false);
      if (st.ok()) {
        batch[0]->result = std::move(results[0]);
        return;
      }
    }
    batch[0]->status = st;
    return;
  }
  // One part spoiled the group: commit each on its own so every caller gets its own answer.
  for (Pending* p : batch) {
    std::vector<Pending*> one = {p};
    RunGroup(one);
  }
}

// ---- Catalog members ----

Result<std::vector<SnapshotInfo>> Catalog::CommitDirect(std::vector<DatasetCommit>& parts) {
  std::vector<DatasetCommit*> ptrs;
  for (auto& p : parts) ptrs.push_back(&p);
  std::vector<SnapshotInfo> results;
  Status st =
      CommitParts(*metastore_, *clock_, alerter_.get(), commit_queue_->cache(), ptrs, &results,
                  /*shared_commit_id=*/true);
  if (st.kind() == ErrorKind::kAlreadyExists) {
    bool keyed = std::all_of(parts.begin(), parts.end(),
                             [](const DatasetCommit& p) { return p.meta.idempotency_key; });
    if (keyed)
      st = CommitParts(*metastore_, *clock_, alerter_.get(), commit_queue_->cache(), ptrs, &results,
                       true);
  }
  TARN_RETURN_NOT_OK(st);
  return results;
}

Result<std::vector<SnapshotInfo>> Catalog::Commit(std::vector<DatasetCommit> parts) {
  if (parts.empty()) return Status::InvalidArgument("a commit needs at least one dataset part");
  for (auto& p : parts) {
    TARN_RETURN_NOT_OK(ParseDatasetName(p.dataset).status());
    if (p.operation == CommitOperation::kCompact) {
      return Status::InvalidArgument("a compaction commit is made by Compact, not sent");
    }
    TARN_RETURN_NOT_OK(CheckAddedFiles(*metastore_, *warehouse_, p, {}).status());
  }
  return CommitWritten(std::move(parts));
}

Result<SnapshotInfo> Catalog::CommitStaged(DatasetCommit part, std::string_view staging_prefix) {
  TARN_RETURN_NOT_OK(ParseDatasetName(part.dataset).status());
  AddedFileChecks checks;
  checks.also_owned_prefix = std::string(staging_prefix);
  if (!checks.also_owned_prefix.empty() && checks.also_owned_prefix.back() != '/') {
    checks.also_owned_prefix += '/';
  }
  TARN_RETURN_NOT_OK(CheckAddedFiles(*metastore_, *warehouse_, part, checks).status());
  std::vector<DatasetCommit> parts;
  parts.push_back(std::move(part));
  TARN_ASSIGN_OR_RETURN(auto out, CommitWritten(std::move(parts)));
  return std::move(out[0]);
}

Result<std::vector<SnapshotInfo>> Catalog::CommitWritten(std::vector<DatasetCommit> parts) {
  if (parts.empty()) return Status::InvalidArgument("a commit needs at least one dataset part");
  for (const auto& p : parts) TARN_RETURN_NOT_OK(ParseDatasetName(p.dataset).status());
  std::vector<SnapshotInfo> out;
  if (parts.size() == 1 && IsAppendOnly(parts[0].operation)) {
    TARN_ASSIGN_OR_RETURN(auto s, commit_queue_->Submit(&parts[0]));
    out.push_back(std::move(s));
  } else {
    TARN_ASSIGN_OR_RETURN(out, CommitDirect(parts));
  }
  WriteCommitManifests(parts, out);  // manifest.on_commit (manifest.cc); never fails the commit
  return out;
}

Result<SnapshotInfo> Catalog::Commit(DatasetCommit part) {
  std::vector<DatasetCommit> parts;
  parts.push_back(std::move(part));
  TARN_ASSIGN_OR_RETURN(auto out, Commit(std::move(parts)));
  return std::move(out[0]);
}

}  // namespace tarn

// The provenance tables (migration 10; provenance.h, docs/design/provenance.md) and every
// statement on them and on the source lists of datasets and snapshots (store.h): the readers
// index (snapshot_reads), the consumers index (dataset_sources), lineage, impact and readers.
#include <set>

#include "catalog/catalog_internal.h"
#include "catalog/provenance.h"
#include "catalog/store.h"

namespace tarn {

namespace provenance {

namespace {

// Provenance (issue 18). The standing source list is kept on the dataset row and, as each
// snapshot left it, on the snapshot row (a rollback restores the target's; NULL: a snapshot
// from before receipts). snapshot_reads indexes receipts by what they read (the seed's
// read-source-keys, by incarnation so renames keep it), dataset_sources the standing lists by
// the datasets they name. Datasets with history start incomplete: their earlier commits have
// no receipts.
constexpr char kProvenance[] = R"sql(
ALTER TABLE datasets ADD COLUMN sources TEXT NOT NULL DEFAULT '{"sources":[],"complete":true}';
UPDATE datasets SET sources = '{"sources":[],"complete":false}'
  WHERE current_snapshot_id IS NOT NULL;
ALTER TABLE snapshots ADD COLUMN sources TEXT;
CREATE TABLE snapshot_reads (
  source_uuid TEXT NOT NULL,
  source_snapshot_id BIGINT NOT NULL,
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  snapshot_id BIGINT NOT NULL,
  PRIMARY KEY (source_uuid, source_snapshot_id, dataset_id, snapshot_id)
);
CREATE INDEX snapshot_reads_reader ON snapshot_reads (dataset_id, snapshot_id);
CREATE TABLE dataset_sources (
  source_uuid TEXT NOT NULL,
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  PRIMARY KEY (source_uuid, dataset_id)
);
CREATE INDEX dataset_sources_dataset ON dataset_sources (dataset_id);
)sql";

[[maybe_unused]] const bool kContributed = ContributeMigrations(ProvenanceTables());

}  // namespace

const std::vector<Migration>& ProvenanceTables() {
  static const std::vector<Migration>* steps =
      new std::vector<Migration>{{10, "provenance", kProvenance}};
  return *steps;
}

}  // namespace provenance

namespace catalog_store {

using catalog_internal::kSnapshotColumns;
using catalog_internal::SnapshotFromRow;

namespace {

// The qualified name of datasets row `d` (joined to c and w).
constexpr char kNameJoin[] =
    " JOIN datasets d ON d.id = x.dataset_id JOIN collections c ON c.id = d.collection_id "
    "JOIN workspaces w ON w.id = c.workspace_id ";

}  // namespace

Status InsertSnapshotReads(Transaction& tx, int64_t dataset_id,
                           const std::vector<provenance::ReadRow>& rows) {
  if (rows.empty()) return Status::OK();
  std::set<provenance::ReadRow> unique(rows.begin(), rows.end());
  SqlParams params;
  params.reserve(unique.size() * 4);
  for (const auto& [uuid, source_snapshot, snapshot] : unique) {
    params.insert(params.end(), {uuid, source_snapshot, dataset_id, snapshot});
  }
  return tx.ExecuteDeferred(
      "INSERT INTO snapshot_reads (source_uuid, source_snapshot_id, dataset_id, snapshot_id) "
      "VALUES " +
          Placeholders(unique.size(), 4) + " ON CONFLICT DO NOTHING",
      params);
}

Status StoreSourceList(Transaction& tx, int64_t dataset_id, const provenance::SourceList& before,
                       const provenance::SourceList& after) {
  TARN_RETURN_NOT_OK(tx.ExecuteDeferred("UPDATE datasets SET sources = ? WHERE id = ?",
                                        {after.ToJson(), dataset_id}));
  std::set<std::string> was, now;
  for (const auto& s : before.sources) was.insert(s.dataset_uuid);
  for (const auto& s : after.sources) now.insert(s.dataset_uuid);
  for (const auto& u : was) {
    if (now.count(u)) continue;
    TARN_RETURN_NOT_OK(tx.ExecuteDeferred(
        "DELETE FROM dataset_sources WHERE source_uuid = ? AND dataset_id = ?", {u, dataset_id}));
  }
  SqlParams params;
  size_t added = 0;
  for (const auto& u : now) {
    if (was.count(u)) continue;
    params.insert(params.end(), {u, dataset_id});
    ++added;
  }
  if (added == 0) return Status::OK();
  return tx.ExecuteDeferred("INSERT INTO dataset_sources (source_uuid, dataset_id) VALUES " +
                                Placeholders(added, 2) + " ON CONFLICT DO NOTHING",
                            params);
}

Result<std::optional<std::string>> SnapshotSourceList(Transaction& tx, int64_t dataset_id,
                                                      int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("SELECT sources FROM snapshots WHERE dataset_id = ? AND snapshot_id = ?",
                  {dataset_id, snapshot_id}));
  if (!row || row->IsNull(0)) return std::optional<std::string>();
  TARN_ASSIGN_OR_RETURN(auto text, row->Text(0));
  return std::optional<std::string>(std::string(text));
}

Status ForgetExpiredReads(Transaction& tx, int64_t dataset_id, int64_t through) {
  return tx
      .Execute(
          "DELETE FROM snapshot_reads WHERE dataset_id = ? AND snapshot_id <= ? AND NOT EXISTS "
          "(SELECT 1 FROM tags t WHERE t.dataset_id = snapshot_reads.dataset_id AND "
          "t.snapshot_id = snapshot_reads.snapshot_id)",
          {dataset_id, through})
      .status();
}

Status ForgetProvenance(Transaction& tx, int64_t dataset_id) {
  for (const char* table : {"snapshot_reads", "dataset_sources"}) {
    TARN_RETURN_NOT_OK(
        tx.Execute(std::string("DELETE FROM ") + table + " WHERE dataset_id = ?", {dataset_id})
            .status());
  }
  return Status::OK();
}

Result<std::vector<Consumer>> Consumers(Transaction& tx, std::string_view source_uuid,
                                        size_t limit) {
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query(std::string("SELECT w.name, c.name, d.name, d.uuid FROM dataset_sources x") +
                   kNameJoin +
                   "WHERE x.source_uuid = ? AND d.dropped_at IS NULL ORDER BY w.name, c.name, "
                   "d.name LIMIT ?",
               {source_uuid, static_cast<int64_t>(limit + 1)}));
  std::vector<Consumer> out;
  for (const auto& r : rows) {
    Consumer c;
    TARN_ASSIGN_OR_RETURN(c.dataset, catalog_store::QualifiedNameAt(r, 0));
    TARN_ASSIGN_OR_RETURN(auto u, r.Text(3));
    c.dataset_uuid = std::string(u);
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::vector<ReaderEntry>> Readers(Transaction& tx, std::string_view source_uuid,
                                         std::optional<int64_t> version, size_t limit) {
  SqlParams params{source_uuid};
  std::string where = "x.source_uuid = ?";
  if (version) {
    where += " AND x.source_snapshot_id = ?";
    params.push_back(*version);
  }
  params.push_back(static_cast<int64_t>(limit + 1));
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query(std::string("SELECT w.name, c.name, d.name, x.snapshot_id, x.source_snapshot_id, "
                           "sn.committed_at, sn.receipt FROM snapshot_reads x") +
                   kNameJoin +
                   "JOIN snapshots sn ON sn.dataset_id = x.dataset_id AND sn.snapshot_id = "
                   "x.snapshot_id WHERE " +
                   where + " ORDER BY sn.committed_at DESC, d.id, x.snapshot_id DESC LIMIT ?",
               params));
  std::vector<ReaderEntry> out;
  for (const auto& r : rows) {
    ReaderEntry e;
    TARN_ASSIGN_OR_RETURN(e.dataset, catalog_store::QualifiedNameAt(r, 0));
    TARN_ASSIGN_OR_RETURN(e.snapshot_id, r.Int64(3));
    TARN_ASSIGN_OR_RETURN(e.read_snapshot_id, r.Int64(4));
    TARN_ASSIGN_OR_RETURN(e.committed_at_us, r.Int64(5));
    TARN_ASSIGN_OR_RETURN(auto receipt_text, r.Text(6));
    auto receipt = Receipt::FromJson(receipt_text);
    if (receipt.ok()) e.produced_by = receipt->produced_by;
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<SnapshotInfo>> LineageSnapshots(Transaction& tx, int64_t dataset_id,
                                                   std::optional<int64_t> snapshot, size_t limit) {
  std::string sql = std::string("SELECT ") + kSnapshotColumns +
                    " FROM snapshots sn JOIN datasets d ON d.id = sn.dataset_id WHERE "
                    "sn.dataset_id = ?";
  SqlParams params{dataset_id};
  if (snapshot) {
    sql += " AND sn.snapshot_id = ?";
    params.push_back(*snapshot);
  }
  sql += " ORDER BY sn.snapshot_id DESC LIMIT ?";
  params.push_back(static_cast<int64_t>(limit));
  std::vector<SnapshotInfo> out;
  TARN_RETURN_NOT_OK(tx.QueryEach(sql, params, [&](const Row& r) -> Status {
    TARN_ASSIGN_OR_RETURN(auto s, SnapshotFromRow(r));
    out.push_back(std::move(s));
    return Status::OK();
  }));
  return out;
}

}  // namespace catalog_store
}  // namespace tarn

// The standing source list, its rules, and the provenance tables (migration 10); see
// provenance.h and docs/design/provenance.md.
#include "catalog/provenance.h"

#include <nlohmann/json.hpp>
#include <set>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/store.h"

namespace tarn::provenance {

namespace {

using json = nlohmann::json;

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

// The qualified name of datasets row `d` (joined to c and w).
constexpr char kNameJoin[] =
    " JOIN datasets d ON d.id = x.dataset_id JOIN collections c ON c.id = d.collection_id "
    "JOIN workspaces w ON w.id = c.workspace_id ";

std::string_view Participle(std::string_view op) {
  if (op == "append") return "appended";
  if (op == "add_files") return "files added";
  if (op == "overwrite") return "overwritten";
  if (op == "truncate_and_add_files") return "replaced";
  if (op == "delete_rows") return "rows deleted";
  if (op == "delete_files") return "files deleted";
  if (op == "merge") return "merged";
  if (op == "rollback") return "rolled back";
  if (op == "compact") return "compacted";
  return op;
}

}  // namespace

const std::vector<Migration>& ProvenanceTables() {
  static const std::vector<Migration>* steps =
      new std::vector<Migration>{{10, "provenance", kProvenance}};
  return *steps;
}

std::string SourceList::ToJson() const {
  json list = json::array();
  for (const auto& s : sources) list.push_back({{"dataset", s.dataset}, {"uuid", s.dataset_uuid}});
  return json{{"sources", std::move(list)}, {"complete", complete}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

bool SourceList::operator==(const SourceList& o) const {
  return complete == o.complete && sources == o.sources;
}

SourceList ParseSourceList(const std::optional<std::string>& stored) {
  SourceList out;
  out.complete = false;
  if (!stored) return out;
  json j = json::parse(*stored, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return out;
  auto list = j.find("sources");
  auto complete = j.find("complete");
  if (list == j.end() || !list->is_array() || complete == j.end() || !complete->is_boolean()) {
    return out;
  }
  for (const auto& e : *list) {
    auto d = e.find("dataset");
    auto u = e.find("uuid");
    if (!e.is_object() || d == e.end() || u == e.end() || !d->is_string() || !u->is_string()) {
      return SourceList{{}, false};
    }
    out.sources.push_back({d->get<std::string>(), u->get<std::string>()});
  }
  out.complete = complete->get<bool>();
  return out;
}

void ApplyCommit(SourceList* list, CommitOperation op, const std::optional<Receipt>& receipt,
                 std::string_view own_uuid, bool emptied) {
  if (op == CommitOperation::kCompact) return;  // maintenance leaves it alone
  if (emptied) {                                // a truncate, or a delete that empties it
    *list = SourceList{};
    return;
  }
  const bool rewrite = op == CommitOperation::kOverwrite || op == CommitOperation::kTruncateAndAdd;
  const bool adds = rewrite || op == CommitOperation::kAppend || op == CommitOperation::kAddFiles ||
                    op == CommitOperation::kMerge;
  if (rewrite) *list = SourceList{};
  if (!receipt) {
    list->complete = false;
    return;
  }
  if (!adds) return;  // a delete that leaves rows: what it read built nothing
  if (receipt->read_sources_truncated) list->complete = false;
  // The receipt's reads in front, in its order, each dataset once.
  std::vector<SourceRef> front;
  for (const auto& r : receipt->read_sources) {
    if (r.dataset_uuid == own_uuid) continue;  // never in its own list
    SourceRef ref{r.dataset, r.dataset_uuid};
    bool seen = false;
    for (const auto& f : front) seen = seen || f.dataset_uuid == ref.dataset_uuid;
    if (!seen) front.push_back(std::move(ref));
  }
  for (auto& old : list->sources) {
    bool seen = false;
    for (const auto& f : front) seen = seen || f.dataset_uuid == old.dataset_uuid;
    if (!seen) front.push_back(std::move(old));
  }
  if (front.size() > kMaxSources) {
    front.resize(kMaxSources);
    list->complete = false;
  }
  list->sources = std::move(front);
}

std::string How(std::string_view operation, const std::optional<Receipt>& receipt) {
  std::string out(Participle(operation));
  if (!receipt) return out + ", not recorded";
  if (!receipt->produced_by) return out;
  const std::string& p = *receipt->produced_by;
  auto colon = p.find(':');
  std::string kind = p.substr(0, colon == std::string::npos ? 0 : colon);
  std::string name = colon == std::string::npos ? p : p.substr(colon + 1);
  if (kind == "upload") return out + ", uploaded via " + name;
  if (kind == "task" || kind == "view") return out + ", by " + kind + " " + name;
  return out + ", by " + p;
}

Status InsertReads(Transaction& tx, int64_t dataset_id, const std::vector<ReadRow>& rows) {
  if (rows.empty()) return Status::OK();
  std::set<ReadRow> unique(rows.begin(), rows.end());
  SqlParams params;
  params.reserve(unique.size() * 4);
  for (const auto& [uuid, source_snapshot, snapshot] : unique) {
    params.insert(params.end(), {uuid, source_snapshot, dataset_id, snapshot});
  }
  return tx.ExecuteDeferred(
      "INSERT INTO snapshot_reads (source_uuid, source_snapshot_id, dataset_id, snapshot_id) "
      "VALUES " +
          catalog_store::Placeholders(unique.size(), 4) + " ON CONFLICT DO NOTHING",
      params);
}

Status StoreSourceList(Transaction& tx, int64_t dataset_id, const SourceList& before,
                       const SourceList& after) {
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
                                catalog_store::Placeholders(added, 2) + " ON CONFLICT DO NOTHING",
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

Status ForgetDataset(Transaction& tx, int64_t dataset_id) {
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
    TARN_ASSIGN_OR_RETURN(auto w, r.Text(0));
    TARN_ASSIGN_OR_RETURN(auto col, r.Text(1));
    TARN_ASSIGN_OR_RETURN(auto d, r.Text(2));
    TARN_ASSIGN_OR_RETURN(auto u, r.Text(3));
    c.dataset = std::string(w) + "." + std::string(col) + "." + std::string(d);
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
    TARN_ASSIGN_OR_RETURN(auto w, r.Text(0));
    TARN_ASSIGN_OR_RETURN(auto col, r.Text(1));
    TARN_ASSIGN_OR_RETURN(auto d, r.Text(2));
    e.dataset = std::string(w) + "." + std::string(col) + "." + std::string(d);
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

}  // namespace tarn::provenance

namespace tarn {

using catalog_internal::kSnapshotColumns;
using catalog_internal::LoadLiveDataset;
using catalog_internal::SnapshotFromRow;

Result<LineageResult> Catalog::Lineage(std::string_view qualified, std::optional<int64_t> snapshot,
                                       size_t limit) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  if (limit < 1 || limit > 10000) {
    return Status::InvalidArgument("a lineage limit is 1..10000").WithField("field", "limit");
  }
  LineageResult out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out = LineageResult{};
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        out.dataset = ds.name.ToString();
        out.sources = ds.sources;
        out.sources_complete = ds.sources_complete;
        std::string sql = std::string("SELECT ") + kSnapshotColumns +
                          " FROM snapshots sn JOIN datasets d ON d.id = sn.dataset_id WHERE "
                          "sn.dataset_id = ?";
        SqlParams params{ds.id};
        if (snapshot) {
          sql += " AND sn.snapshot_id = ?";
          params.push_back(*snapshot);
        }
        sql += " ORDER BY sn.snapshot_id DESC LIMIT ?";
        params.push_back(static_cast<int64_t>(limit));
        TARN_RETURN_NOT_OK(tx.QueryEach(sql, params, [&](const Row& r) -> Status {
          TARN_ASSIGN_OR_RETURN(auto s, SnapshotFromRow(r));
          LineageEntry e;
          e.snapshot_id = s.snapshot_id;
          e.committed_at_us = s.committed_at_us;
          e.operation = s.operation;
          e.author = s.author;
          e.how = provenance::How(s.operation, s.receipt);
          e.receipt = std::move(s.receipt);
          out.snapshots.push_back(std::move(e));
          return Status::OK();
        }));
        if (snapshot && out.snapshots.empty()) {
          return Status::Of(
                     codes::kSnapshotNotFound,
                     "dataset '" + out.dataset + "' has no snapshot " + std::to_string(*snapshot))
              .WithField("dataset", out.dataset);
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<ImpactResult> Catalog::Impact(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  ImpactResult out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        out.dataset = ds.name.ToString();
        TARN_ASSIGN_OR_RETURN(out.consumers, provenance::Consumers(tx, ds.uuid, kMaxConsumers));
        return Status::OK();
      },
      TxMode::kReadOnly));
  out.truncated = out.consumers.size() > kMaxConsumers;
  if (out.truncated) out.consumers.resize(kMaxConsumers);
  return out;
}

Result<ReadersResult> Catalog::Readers(std::string_view qualified, std::optional<int64_t> version) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  ReadersResult out;
  out.version = version;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        out.dataset = ds.name.ToString();
        TARN_ASSIGN_OR_RETURN(out.readers,
                              provenance::Readers(tx, ds.uuid, version, kMaxConsumers));
        return Status::OK();
      },
      TxMode::kReadOnly));
  out.truncated = out.readers.size() > kMaxConsumers;
  if (out.truncated) out.readers.resize(kMaxConsumers);
  return out;
}

}  // namespace tarn

// The standing source list and its rules, and the provenance queries Lineage, Impact and
// Readers; see provenance.h and docs/design/provenance.md. The tables (migration 10) and every
// statement on them are provenance_store.cc's.
#include "catalog/provenance.h"

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/store.h"

namespace tarn::provenance {

namespace {

using json = nlohmann::json;

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

}  // namespace tarn::provenance

namespace tarn {

using catalog_internal::LoadLiveDataset;

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
        TARN_ASSIGN_OR_RETURN(auto snaps,
                              catalog_store::LineageSnapshots(tx, ds.id, snapshot, limit));
        for (SnapshotInfo& s : snaps) {
          LineageEntry e;
          e.snapshot_id = s.snapshot_id;
          e.committed_at_us = s.committed_at_us;
          e.operation = s.operation;
          e.author = s.author;
          e.how = provenance::How(s.operation, s.receipt);
          e.receipt = std::move(s.receipt);
          out.snapshots.push_back(std::move(e));
        }
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
        TARN_ASSIGN_OR_RETURN(out.consumers, catalog_store::Consumers(tx, ds.uuid, kMaxConsumers));
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
                              catalog_store::Readers(tx, ds.uuid, version, kMaxConsumers));
        return Status::OK();
      },
      TxMode::kReadOnly));
  out.truncated = out.readers.size() > kMaxConsumers;
  if (out.truncated) out.readers.resize(kMaxConsumers);
  return out;
}

}  // namespace tarn

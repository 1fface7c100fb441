// Materialized views and their commit triggers (V2, V3; docs/design/views.md): the definition
// (a views row of kind materialized_view naming its dataset, versioned like a view's SQL), its
// sources, the refresh trigger on each source, the trigger graph kept a DAG, and each
// refresh's outcome. Running the SQL is the SQL engine's (src/sql/materialized.cc).
#include <algorithm>
#include <map>
#include <set>

#include "catalog/access_store.h"
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/views_store.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace catalog_internal {

std::string RefreshTriggerName(const DatasetName& view) {
  return "refresh__" + view.collection + "__" + view.dataset;
}

Status ForgetDataset(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto mv, views_store::FindViewOfDataset(tx, dataset_id));
  if (mv) TARN_RETURN_NOT_OK(views_store::DeleteMaterialized(tx, mv->id));
  // The tasks that write it go with it (docs/design/tasks.md); a task fired by its commits
  // keeps its definition without a source.
  TARN_ASSIGN_OR_RETURN(auto writers, views_store::TasksWriting(tx, dataset_id));
  for (int64_t task : writers) TARN_RETURN_NOT_OK(views_store::DeleteTask(tx, task));
  TARN_RETURN_NOT_OK(views_store::ForgetTaskSource(tx, dataset_id));
  TARN_RETURN_NOT_OK(views_store::DeleteTriggersOn(tx, dataset_id));
  return views_store::ForgetSource(tx, dataset_id);
}

Status CheckRenamable(Transaction& tx, const DatasetInfo& ds) {
  TARN_ASSIGN_OR_RETURN(auto mv, views_store::FindViewOfDataset(tx, ds.id));
  TARN_ASSIGN_OR_RETURN(int64_t triggers, views_store::CountTriggersOn(tx, ds.id));
  TARN_ASSIGN_OR_RETURN(auto writers, views_store::TasksWriting(tx, ds.id));
  if (!mv && triggers == 0 && writers.empty()) return Status::OK();
  return Status::Of(codes::kHasTriggers,
                    "'" + ds.name.ToString() + "' " +
                        (mv             ? "is a materialized view"
                         : triggers > 0 ? "carries triggers"
                                        : "is written by tasks") +
                        ", which name it; drop and recreate instead of renaming")
      .WithField("dataset", ds.name.ToString());
}

}  // namespace catalog_internal

namespace {

Status MaterializedNotFound(const DatasetName& n) {
  return Status::Of(codes::kMaterializedViewNotFound,
                    "materialized view '" + n.ToString() + "' does not exist")
      .WithField("view", n.ToString());
}

// The materialized view `n`, fully loaded.
Result<MaterializedViewInfo> LoadMaterializedView(Transaction& tx, const DatasetName& n,
                                                  views_store::ViewRow* row_out = nullptr) {
  TARN_ASSIGN_OR_RETURN(int64_t coll, CollectionId(tx, CollectionName{n.workspace, n.collection}));
  TARN_ASSIGN_OR_RETURN(auto row, views_store::FindView(tx, coll, n.dataset));
  if (!row || row->kind != views_store::kKindMaterialized) return MaterializedNotFound(n);
  MaterializedViewInfo out;
  out.view = row->info;
  out.view.name = n;
  TARN_ASSIGN_OR_RETURN(auto v, views_store::LoadVersion(tx, row->id, row->info.current.version));
  if (!v) return Status::Corruption("materialized view '" + n.ToString() + "' lost its SQL");
  out.view.current = std::move(*v);
  TARN_RETURN_NOT_OK(views_store::LoadMaterialized(tx, *row, &out));
  if (row_out) *row_out = std::move(*row);
  return out;
}

Status Cycle(const std::string& source, const DatasetName& view) {
  return Status::Of(codes::kTriggerCycle, "a refresh trigger on '" + source + "' targeting '" +
                                              view.ToString() +
                                              "' would close a circle in the trigger graph ('" +
                                              view.ToString() + "' feeds '" + source + "')")
      .WithField("dataset", source)
      .WithField("view", view.ToString());
}

}  // namespace

Result<MaterializedViewInfo> Catalog::RegisterMaterializedView(
    std::string_view qualified, const ViewDefinition& def, const std::vector<std::string>& sources,
    bool replace, std::string_view refresh_kind) {
  return RegisterMaterializedView(qualified, def, sources, replace, refresh_kind, actor());
}

Result<MaterializedViewInfo> Catalog::RegisterMaterializedView(
    std::string_view qualified, const ViewDefinition& def, const std::vector<std::string>& sources,
    bool replace, std::string_view refresh_kind, std::string_view author,
    const std::optional<RefreshRecord>& first_run) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(ValidateViewDefinition(def));
  if (refresh_kind != kRefreshFull && refresh_kind != kRefreshIncremental) {
    return Status::InvalidArgument("a refresh kind is full or incremental, not '" +
                                   std::string(refresh_kind.substr(0, 40)) + "'")
        .WithField("refresh_kind", std::string(refresh_kind.substr(0, 40)));
  }
  if (author.empty()) return Status::Of(codes::kAuthorRequired, "a view needs an author");
  std::vector<DatasetName> source_names;
  for (const auto& s : sources) {
    TARN_ASSIGN_OR_RETURN(auto sn, ParseDatasetName(s));
    source_names.push_back(std::move(sn));
  }
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(int64_t coll,
                          CollectionId(tx, CollectionName{n.workspace, n.collection}));
    TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
    const int64_t now = clock_->NowMicros();
    TARN_ASSIGN_OR_RETURN(auto existing, views_store::FindView(tx, coll, n.dataset));
    if (existing && existing->kind == views_store::kKindView) {
      return Status::Of(codes::kViewExists, "a view named '" + n.ToString() + "' exists")
          .WithField("view", n.ToString());
    }
    if (existing && !replace) {
      return Status::Of(codes::kMaterializedViewExists,
                        "materialized view '" + n.ToString() + "' already exists")
          .WithField("view", n.ToString());
    }
    if (existing && existing->dataset_id != ds.id) {
      return Status::Corruption("materialized view '" + n.ToString() +
                                "' names another dataset than the live one");
    }
    // Sources, and the graph: no source may be this view's dataset or be fed by it.
    std::vector<int64_t> source_ids;
    for (const auto& sn : source_names) {
      TARN_ASSIGN_OR_RETURN(auto src, LoadLiveDataset(tx, sn));
      if (src.id == ds.id) return Cycle(sn.ToString(), n);
      TARN_ASSIGN_OR_RETURN(bool loops, views_store::GraphReaches(tx, ds.id, src.id));
      if (loops) return Cycle(sn.ToString(), n);
      if (std::find(source_ids.begin(), source_ids.end(), src.id) == source_ids.end()) {
        source_ids.push_back(src.id);
      }
    }
    int64_t view_id = 0;
    std::map<int64_t, std::optional<int64_t>> kept_intervals;  // source dataset -> floor
    if (existing) {
      view_id = existing->id;
      TARN_RETURN_NOT_OK(views_store::InsertVersion(tx, view_id, existing->info.current.version + 1,
                                                    def, author, now));
      TARN_ASSIGN_OR_RETURN(auto old, views_store::TriggersTargeting(tx, view_id));
      for (const auto& t : old) {
        kept_intervals[t.dataset_id] = t.info.minimum_interval_s;
        TARN_RETURN_NOT_OK(views_store::DeleteTrigger(tx, t.id));
      }
    } else {
      TARN_ASSIGN_OR_RETURN(
          view_id, views_store::InsertView(tx, coll, n.dataset, views_store::kKindMaterialized,
                                           ds.id, author, now));
      TARN_RETURN_NOT_OK(views_store::InsertVersion(tx, view_id, 1, def, author, now));
    }
    TARN_RETURN_NOT_OK(views_store::SetSources(tx, view_id, source_ids));
    TARN_RETURN_NOT_OK(views_store::SetRefreshKind(tx, view_id, refresh_kind));
    const std::string trigger = RefreshTriggerName(n);
    for (int64_t id : source_ids) {
      auto kept = kept_intervals.find(id);
      std::optional<int64_t> floor = kept != kept_intervals.end()
                                         ? kept->second
                                         : std::optional<int64_t>(kDefaultTriggerIntervalS);
      TARN_RETURN_NOT_OK(views_store::InsertTrigger(tx, id, trigger, view_id, floor, author, now));
    }
    if (first_run) TARN_RETURN_NOT_OK(views_store::SetRefresh(tx, view_id, *first_run, now));
    return Status::OK();
  }));
  return GetMaterializedView(qualified);
}

Result<MaterializedViewInfo> Catalog::GetMaterializedView(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  MaterializedViewInfo out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out, LoadMaterializedView(tx, n));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<std::vector<MaterializedViewInfo>> Catalog::ListMaterializedViews(
    std::string_view collection) {
  TARN_ASSIGN_OR_RETURN(auto cn, ParseCollectionName(collection));
  std::vector<MaterializedViewInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(int64_t coll, CollectionId(tx, cn));
        TARN_ASSIGN_OR_RETURN(out, views_store::ListMaterialized(tx, coll));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::DropMaterializedView(std::string_view qualified, bool purge) {
  TARN_RETURN_NOT_OK(GetMaterializedView(qualified).status());
  // Dropping the dataset removes the definition and its triggers in the same transaction.
  return DropDataset(qualified, purge);
}

Status Catalog::RecordRefresh(std::string_view qualified, const RefreshRecord& record) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  static const std::set<std::string> kStatuses = {kRefreshSucceeded, kRefreshFailed, kRefreshDenied,
                                                  kRefreshEgressBlocked, kRefreshThrottled};
  if (!kStatuses.count(record.status)) {
    return Status::InvalidArgument("refresh status '" + record.status.substr(0, 40) +
                                   "' is not one of succeeded, failed, denied, egress_blocked, "
                                   "throttled");
  }
  if (record.error.size() > 8192 || record.job_id.size() > 200) {
    return Status::InvalidArgument("a refresh's error or job id is too long");
  }
  const bool blocked = record.status == kRefreshEgressBlocked;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    views_store::ViewRow row;
    TARN_RETURN_NOT_OK(LoadMaterializedView(tx, n, &row).status());
    const int64_t now = clock_->NowMicros();
    TARN_RETURN_NOT_OK(views_store::SetRefresh(tx, row.id, record, now));
    if (!blocked) return Status::OK();
    std::string actor;
    if (!record.job_id.empty()) {
      TARN_ASSIGN_OR_RETURN(auto job, views_store::LoadJob(tx, record.job_id));
      if (job) actor = job->fired_by;
    }
    return access_store::InsertAuditRows(
        tx, {EgressBlockedAudit("mv.refresh_egress_blocked", n.ToString(), record,
                                actor.empty() ? local_actor().value_or("tarn") : actor, now)});
  }));
  if (blocked) ReportEgressBlocked(&alerter(), n.ToString(), record);
  return Status::OK();
}

Result<std::vector<TriggerInfo>> Catalog::ListTriggers(std::string_view dataset) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(dataset));
  std::vector<TriggerInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(auto rows, views_store::TriggersOn(tx, ds.id));
        out.clear();
        for (auto& t : rows) out.push_back(std::move(t.info));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::SetTriggerInterval(std::string_view dataset, std::string_view trigger,
                                   std::optional<int64_t> seconds) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(dataset));
  if (seconds && (*seconds < 0 || *seconds > int64_t{10} * 365 * 86400)) {
    return Status::InvalidArgument("a trigger's minimum interval is 0 to 10 years of seconds");
  }
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
    TARN_ASSIGN_OR_RETURN(bool found, views_store::SetTriggerInterval(tx, ds.id, trigger, seconds));
    if (found) return Status::OK();
    return Status::Of(codes::kTriggerNotFound, "dataset '" + n.ToString() + "' has no trigger '" +
                                                   std::string(trigger.substr(0, 200)) + "'")
        .WithField("dataset", n.ToString())
        .WithField("trigger", std::string(trigger.substr(0, 200)));
  });
}

}  // namespace tarn

// Client::CreateMaterializedView and Client::RefreshMaterializedView (include/tarn/client.h):
// the SQL of a materialized view runs here, in this process's DuckDB, and its result is
// committed through the client; the definition, sources and triggers are the catalog's
// (Client::RegisterMaterializedView, RecordRefresh). docs/design/views.md.
#include <set>

#include "catalog/error_codes.h"
#include "sql/engine.h"
#include "sql/error_codes.h"
#include "sql/into.h"
#include "tarn/client.h"

namespace tarn {

namespace {

constexpr char kResolvedOnly[] = "the query's sources are known";

// The datasets a query reads (through views), found by binding it without fetching a row.
Result<std::vector<ReadReference>> BindReads(Client& client, const std::string& sql,
                                             const QueryOptions& base) {
  QueryOptions options = base;
  std::vector<ReadReference> reads;
  options.on_start = [&](const Schema&, const std::vector<ReadReference>& r) -> Status {
    reads = r;
    return Status::Cancelled(kResolvedOnly);
  };
  auto result =
      sql::RunQuery(client, sql, options, [](const RecordBatch&) { return Status::OK(); });
  if (result.ok()) return result->reads;
  if (result.status().kind() == ErrorKind::kCancelled &&
      result.status().message() == kResolvedOnly) {
    return reads;
  }
  return result.status();
}

std::vector<std::string> SourceNames(const std::vector<ReadReference>& reads) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& r : reads) {
    if (seen.insert(r.dataset).second) out.push_back(r.dataset);
  }
  return out;
}

Status CheckDialect(const std::string& name, const std::string& dialect) {
  if (dialect == kDuckDbDialect) return Status::OK();
  return Status::Of(codes::kUnsupportedDialect, "materialized view '" + name + "' is written in " +
                                                    dialect + "; tarn runs dialect duckdb")
      .WithField("view", name)
      .WithField("dialect", dialect);
}

// What a refresh that did not succeed records: denied for missing rights, egress_blocked for
// the egress lock, failed for anything else.
std::string StatusOf(const Status& st) {
  if (st.Is(codes::kEgressBlocked)) return kRefreshEgressBlocked;
  if (st.kind() == ErrorKind::kPermissionDenied) return kRefreshDenied;
  return kRefreshFailed;
}

}  // namespace

Result<MaterializedViewInfo> Client::CreateMaterializedView(
    std::string_view qualified, const ViewDefinition& def, const MaterializedViewOptions& options) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  const std::string name = n.ToString();
  TARN_RETURN_NOT_OK(ValidateViewDefinition(def));
  TARN_RETURN_NOT_OK(CheckDialect(name, def.dialect));
  if (options.meta.author.empty()) {
    return Status::Of(codes::kAuthorRequired, "a materialized view's first run needs an author");
  }
  auto existing = GetMaterializedView(name);
  if (existing.ok()) {
    if (!options.replace) {
      return Status::Of(codes::kMaterializedViewExists,
                        "materialized view '" + name + "' already exists (replace it)")
          .WithField("view", name);
    }
    // CREATE OR REPLACE: the new SQL's sources first (nothing written), then the definition
    // and triggers (refused with nothing written when they would close a circle), then the
    // data, by a refresh.
    TARN_ASSIGN_OR_RETURN(auto reads, BindReads(*this, def.sql, options.query));
    TARN_RETURN_NOT_OK(RegisterMaterializedView(name, def, SourceNames(reads), true).status());
    RefreshOptions refresh;
    refresh.author = options.meta.author;
    refresh.query = options.query;
    TARN_RETURN_NOT_OK(RefreshMaterializedView(name, refresh).status());
    return GetMaterializedView(name);
  }
  if (!existing.status().Is(codes::kMaterializedViewNotFound)) return existing.status();

  QueryIntoOptions into;
  into.target = name;
  into.mode = QueryIntoMode::kCreate;
  into.meta = options.meta;
  if (into.meta.message.empty()) into.meta.message = "materialized view " + name + " created";
  into.producer = "view:" + name;
  into.partition_spec = options.partition_spec;
  into.sort_order = options.sort_order;
  TARN_ASSIGN_OR_RETURN(auto ran, QueryInto(def.sql, options.query, into));
  auto registered = RegisterMaterializedView(name, def, SourceNames(ran.query.reads), false);
  if (!registered.ok()) {
    // Nothing of a refused registration stays: the dataset made for it goes again.
    auto ds = LoadDataset(name);
    if (ds.ok()) {
      Status dropped = DropDataset(name, true, ds->uuid);
      if (!dropped.ok()) {
        return registered.status().WithContext("(dropping " + name +
                                               " again failed: " + dropped.message() + ")");
      }
    }
    return registered.status();
  }
  RefreshRecord first;
  first.status = kRefreshSucceeded;
  first.sources = ran.query.reads;
  if (ran.snapshot) first.snapshot_id = ran.snapshot->snapshot_id;
  TARN_RETURN_NOT_OK(RecordRefresh(name, first));
  return GetMaterializedView(name);
}

Result<RefreshResult> Client::RefreshMaterializedView(std::string_view qualified,
                                                      const RefreshOptions& options) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  const std::string name = n.ToString();
  if (options.author.empty()) {
    return Status::Of(codes::kAuthorRequired, "a refresh needs an author");
  }
  TARN_ASSIGN_OR_RETURN(auto mv, GetMaterializedView(name));
  RefreshResult out;
  out.record.job_id = options.job_id;
  auto finish = [&](Status st) -> Result<RefreshResult> {
    if (st.ok()) {
      out.record.status = kRefreshSucceeded;
    } else {
      out.record.status = StatusOf(st);
      out.record.error = st.ToString().substr(0, 4000);
    }
    Status recorded = RecordRefresh(name, out.record);
    if (!st.ok()) return st;
    TARN_RETURN_NOT_OK(recorded);
    return out;
  };
  Status dialect = CheckDialect(name, mv.view.current.dialect);
  if (!dialect.ok()) return finish(dialect);

  QueryIntoOptions into;
  into.target = name;
  into.mode = QueryIntoMode::kOverwrite;
  into.meta.author = options.author;
  into.meta.message = options.job_id.empty() ? "refresh" : "refresh (job " + options.job_id + ")";
  if (!options.job_id.empty()) into.meta.idempotency_key = "refresh:" + options.job_id;
  into.producer = "view:" + name;
  auto ran = QueryInto(mv.view.current.sql, options.query, into);
  if (!ran.ok()) return finish(ran.status());
  out.rows = ran->query.rows;
  out.record.sources = ran->query.reads;
  if (ran->snapshot) {
    out.snapshot = ran->snapshot;
  } else {
    // No rows: the view becomes empty (an overwrite of nothing commits nothing).
    TARN_ASSIGN_OR_RETURN(auto ds, LoadDataset(name));
    if (ds.total_records > 0 || ds.total_files > 0) {
      DatasetCommit truncate;
      truncate.dataset = name;
      truncate.expected_uuid = ds.uuid;
      truncate.operation = CommitOperation::kTruncateAndAdd;
      truncate.meta = into.meta;
      truncate.meta.receipt.reads = ran->query.reads;
      truncate.meta.receipt.producer = into.producer;
      auto committed = Commit(std::move(truncate));
      if (!committed.ok()) return finish(committed.status());
      out.snapshot = std::move(*committed);
    }
  }
  if (out.snapshot) out.record.snapshot_id = out.snapshot->snapshot_id;
  return finish(Status::OK());
}

namespace sql {

JobOutcome RunRefreshJob(Client& client, const JobInfo& job) {
  JobOutcome out;
  auto mv = client.GetMaterializedView(job.target);
  if (!mv.ok()) {
    out.state = StatusOf(mv.status());
    out.error = mv.status().ToString();
    out.retry = IsRetryable(mv.status());
    return out;
  }
  for (const auto& r : mv->last_refresh_sources) {
    if (r.dataset == job.source && r.dataset_uuid == job.source_uuid &&
        r.snapshot_id >= job.to_snapshot && mv->last_refresh_status == kRefreshSucceeded) {
      out.state = kRefreshSucceeded;
      out.error = "superseded: the view already reflects snapshot " +
                  std::to_string(r.snapshot_id) + " of " + job.source;
      return out;
    }
  }
  RefreshOptions options;
  options.job_id = job.id;
  options.author = job.fired_by;
  options.query.pinned_snapshots[job.source] = job.to_snapshot;
  auto refreshed = client.RefreshMaterializedView(job.target, options);
  if (!refreshed.ok()) {
    out.state = StatusOf(refreshed.status());
    out.error = refreshed.status().ToString().substr(0, 4000);
    out.retry = IsRetryable(refreshed.status());
    return out;
  }
  out.state = kRefreshSucceeded;
  if (refreshed->snapshot) out.snapshot = refreshed->snapshot->snapshot_id;
  return out;
}

}  // namespace sql

}  // namespace tarn

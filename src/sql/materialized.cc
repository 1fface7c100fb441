// Client::CreateMaterializedView and Client::RefreshMaterializedView (include/tarn/client.h):
// the SQL of a materialized view runs here, in this process's DuckDB, and its result is
// committed through the client; the definition, sources and triggers are the catalog's
// (Client::RegisterMaterializedView, RecordRefresh). docs/design/views.md.
#include <map>
#include <set>

#include "catalog/error_codes.h"
#include "sql/engine.h"
#include "sql/error_codes.h"
#include "sql/into.h"
#include "sql/runs.h"
#include "table/deletion_vector.h"
#include "tarn/client.h"
#include "types/cast.h"

namespace tarn {

namespace {

// The schema changes that make a view's dataset (`have`) hold its new SQL's result (`want`):
// the result's new columns added, the columns it no longer has dropped (the lineage column
// kept, and added when `lineage`), a type widened where that is lossless. Any other change of
// a column's type is refused before anything is written.
Result<std::vector<SchemaChange>> FitSchema(const std::string& name, const Schema& have,
                                            const Schema& want, bool lineage) {
  std::vector<SchemaChange> out;
  for (const Field& f : have.fields) {
    if (f.name == kSourceRowIdColumn || want.FieldIndex(f.name) >= 0) continue;
    SchemaChange drop;
    drop.kind = SchemaChange::Kind::kDropColumn;
    drop.column = f.name;
    out.push_back(std::move(drop));
  }
  for (const Field& f : want.fields) {
    int i = have.FieldIndex(f.name);
    if (i < 0) {
      SchemaChange add;
      add.column = f.name;
      add.type = f.type;
      out.push_back(std::move(add));
      continue;
    }
    const DataType& old = have.fields[static_cast<size_t>(i)].type;
    if (old == f.type) continue;
    if (!IsLosslessWidening(old, f.type)) {
      return Status::InvalidArgument("the new SQL makes column '" + f.name + "' of " + name + " " +
                                     f.type.ToString() + " where it is " + old.ToString() +
                                     ": cast it in the SQL, or drop the view and create it again")
          .WithField("column", f.name);
    }
    SchemaChange promote;
    promote.kind = SchemaChange::Kind::kPromoteColumn;
    promote.column = f.name;
    promote.type = f.type;
    out.push_back(std::move(promote));
  }
  if (lineage && have.FieldIndex(kSourceRowIdColumn) < 0) {
    SchemaChange add;
    add.column = kSourceRowIdColumn;
    add.type = DataType::Int64();
    out.push_back(std::move(add));
  }
  // The columns in the result's order (`SELECT *` over the view shows them so).
  std::vector<std::string> order;  // after the drops and adds above, lineage aside
  for (const Field& f : have.fields) {
    if (f.name != kSourceRowIdColumn && want.FieldIndex(f.name) >= 0) order.push_back(f.name);
  }
  for (const Field& f : want.fields) {
    if (have.FieldIndex(f.name) < 0) order.push_back(f.name);
  }
  bool ordered = order.size() == want.fields.size();
  for (size_t i = 0; ordered && i < order.size(); ++i) ordered = order[i] == want.fields[i].name;
  for (size_t i = 0; !ordered && i < want.fields.size(); ++i) {
    SchemaChange move;
    move.kind = SchemaChange::Kind::kMoveColumn;
    move.column = want.fields[i].name;
    if (i == 0) {
      move.first = true;
    } else {
      move.after = want.fields[i - 1].name;
    }
    out.push_back(std::move(move));
  }
  return out;
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

// An incremental refresh deletes at most this many view rows by source row id (a predicate
// of that many literals); more deleted source rows recompute the view.
constexpr size_t kMaxIncrementalDeletes = 100'000;

// The incremental form of a view's SQL, when its one source is a dataset (not a view).
Result<std::optional<sql::IncrementalQuery>> IncrementalOf(Client& client,
                                                           const std::string& view_sql) {
  TARN_ASSIGN_OR_RETURN(auto form, sql::IncrementalForm(view_sql));
  if (!form) return form;
  auto ds = client.LoadDataset(form->source);
  if (!ds.ok()) {
    if (ds.status().Is(codes::kDatasetNotFound)) return std::optional<sql::IncrementalQuery>();
    return ds.status();
  }
  return form;
}

// The source row ids live at snapshot `a` that are gone at `b`: the rows of files `a` had
// that `b` removed, and the positions deleted in between. nullopt when they cannot be told
// (a file without row lineage) or are too many to delete one by one.
Result<std::optional<std::vector<int64_t>>> DeletedSourceRows(Client& client,
                                                              const std::string& source, int64_t a,
                                                              int64_t b, const ChangeSet& changes) {
  std::vector<int64_t> out;
  std::set<std::string> touched;
  for (const auto& f : changes.removed_files) touched.insert(f.path);
  for (const auto& v : changes.deletion_vectors) touched.insert(v.path);
  if (touched.empty()) return std::optional<std::vector<int64_t>>(std::move(out));
  auto plan = [&](int64_t snapshot) -> Result<std::map<std::string, PlannedFile>> {
    std::map<std::string, PlannedFile> files;
    SnapshotSelector at;
    at.snapshot_id = snapshot;
    TARN_RETURN_NOT_OK(client.PlanFiles(source, at, "", [&](const PlannedFile& f) {
      if (touched.count(f.file.path)) files[f.file.path] = f;
      return Status::OK();
    }));
    return files;
  };
  TARN_ASSIGN_OR_RETURN(auto before, plan(a));
  TARN_ASSIGN_OR_RETURN(auto after, plan(b));
  auto positions = [](const PlannedFile& f) -> Result<std::vector<uint64_t>> {
    if (!f.deletion_vector) return std::vector<uint64_t>();
    return DecodeDeletionVector(*f.deletion_vector);
  };
  for (const auto& [path, f] : before) {
    if (f.file.first_row_id < 0) return std::optional<std::vector<int64_t>>();
    TARN_ASSIGN_OR_RETURN(auto gone_a, positions(f));
    std::set<uint64_t> was(gone_a.begin(), gone_a.end());
    auto it = after.find(path);
    // A file `a` had that is live again under a later snapshot (a rollback restored it): its
    // rows would be read as new ones too.
    if (it != after.end() && it->second.file.added_snapshot_id > a) {
      return std::optional<std::vector<int64_t>>();
    }
    if (it == after.end()) {
      for (int64_t p = 0; p < f.file.record_count; ++p) {
        if (!was.count(static_cast<uint64_t>(p))) out.push_back(f.file.first_row_id + p);
      }
    } else {
      TARN_ASSIGN_OR_RETURN(auto gone_b, positions(it->second));
      for (uint64_t p : gone_b) {
        if (!was.count(p)) out.push_back(f.file.first_row_id + static_cast<int64_t>(p));
      }
    }
    if (out.size() > kMaxIncrementalDeletes) return std::optional<std::vector<int64_t>>();
  }
  return std::optional<std::vector<int64_t>>(std::move(out));
}

// The snapshot of `source` the view's data reflects, when an incremental refresh can start
// from it: the view's data is what its last refresh committed, with the lineage column.
Result<std::optional<int64_t>> IncrementalStart(Client& client, const MaterializedViewInfo& mv,
                                                const DatasetInfo& src) {
  const std::optional<int64_t> none;
  TARN_ASSIGN_OR_RETURN(auto view_ds, client.LoadDataset(mv.view.name.ToString()));
  if (view_ds.schema.FieldIndex(kSourceRowIdColumn) < 0) return none;
  if (!mv.last_refresh_snapshot_id || view_ds.current_snapshot_id != mv.last_refresh_snapshot_id) {
    return none;  // written since by someone else, or never refreshed with data
  }
  if (mv.last_refresh_mode.empty()) return none;
  for (const auto& r : mv.last_refresh_sources) {
    if (r.dataset == src.name.ToString() && r.dataset_uuid == src.uuid)
      return std::optional<int64_t>(r.snapshot_id);
  }
  return none;
}

// An incremental refresh of `mv` (docs/design/views.md "Incremental refresh"): the view's SQL
// (`sql`, its incremental form) over the rows `source` added since the snapshot the view
// reflects, committed with the deletion of the rows whose source rows went, as one snapshot.
// nullopt when only a full refresh can be right: the view's data is not what its last refresh
// wrote, the source was recreated, its schema changed, part of the window expired, or too many
// rows went.
Result<std::optional<RefreshResult>> RefreshIncrementally(
    Client& client, const MaterializedViewInfo& mv, const std::string& source,
    const std::string& sql, const RefreshOptions& options, QueryIntoOptions into) {
  const std::optional<RefreshResult> full;
  if (options.full) return full;
  TARN_ASSIGN_OR_RETURN(auto src, client.LoadDataset(source));
  TARN_ASSIGN_OR_RETURN(auto start, IncrementalStart(client, mv, src));
  if (!start) return full;
  const int64_t a = *start;
  int64_t b = src.current_snapshot_id.value_or(0);
  if (auto pin = options.query.pinned_snapshots.find(source);
      pin != options.query.pinned_snapshots.end()) {
    b = pin->second;
  }
  RefreshResult out;
  out.record.mode = kRefreshIncremental;
  if (b <= a) {  // the view already reflects that snapshot, or a later one
    out.record.sources = mv.last_refresh_sources;
    out.record.snapshot_id = mv.last_refresh_snapshot_id;
    return std::optional<RefreshResult>(std::move(out));
  }
  SnapshotSelector at_a, at_b;
  at_a.snapshot_id = a;
  at_b.snapshot_id = b;
  auto snap_a = client.GetSnapshot(source, at_a);
  if (!snap_a.ok()) return full;  // expired
  TARN_ASSIGN_OR_RETURN(auto snap_b, client.GetSnapshot(source, at_b));
  if (snap_a->schema_id != snap_b.schema_id) return full;
  auto changes = client.Changes(source, a, b);
  if (!changes.ok()) {
    if (changes.status().kind() == ErrorKind::kExpired) return full;
    return changes.status();
  }
  // A compaction in the window moved rows into files that store their ids: the rows of the
  // files it removed did not go. Recompute once rather than tell them apart.
  for (const auto* files : {&changes->added_files, &changes->removed_files}) {
    for (const DataFile& f : *files) {
      if (f.StoresRowIds()) return full;
    }
  }
  TARN_ASSIGN_OR_RETURN(auto deleted, DeletedSourceRows(client, source, a, b, *changes));
  if (!deleted) return full;
  if (!deleted->empty()) {
    std::string where = "\"" + std::string(kSourceRowIdColumn) + "\" IN (";
    for (size_t i = 0; i < deleted->size(); ++i) {
      if (i) where += ", ";
      where += std::to_string((*deleted)[i]);
    }
    into.replace_where = where + ")";
  } else {
    into.replace_where = "";  // an append, refused if the view changed since (below)
  }
  // Two refreshes running at once must not both add the same rows: the commit holds only when
  // the view is still at the snapshot this one started from (else a full refresh runs).
  into.read_snapshot_id = mv.last_refresh_snapshot_id;
  into.mode = QueryIntoMode::kAppend;
  QueryOptions query = options.query;
  query.pinned_snapshots[source] = b;
  query.incremental_reads[source] = a;
  TARN_ASSIGN_OR_RETURN(auto ran, client.QueryInto(sql, query, into));
  out.rows = ran.query.rows;
  out.record.sources = ran.query.reads;
  out.snapshot = ran.snapshot;
  if (out.snapshot) {
    out.record.snapshot_id = out.snapshot->snapshot_id;
  } else {
    out.record.snapshot_id = mv.last_refresh_snapshot_id;  // nothing to add or delete
  }
  return std::optional<RefreshResult>(std::move(out));
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
    // CREATE OR REPLACE: the new SQL bound (its sources and columns; nothing written) and the
    // schema changes it needs checked, then the definition and triggers (refused with nothing
    // written when they would close a circle), then the dataset's schema fitted to the new
    // result, then the data, by a refresh.
    TARN_ASSIGN_OR_RETURN(auto bound, sql::BindQuery(*this, def.sql, options.query));
    TARN_ASSIGN_OR_RETURN(auto form, IncrementalOf(*this, def.sql));
    TARN_ASSIGN_OR_RETURN(auto ds, LoadDataset(name));
    TARN_ASSIGN_OR_RETURN(auto changes, FitSchema(name, ds.schema, bound.schema, form.has_value()));
    TARN_RETURN_NOT_OK(RegisterMaterializedView(name, def, SourceNames(bound.reads), true,
                                                form ? kRefreshIncremental : kRefreshFull)
                           .status());
    if (!changes.empty()) TARN_RETURN_NOT_OK(AlterSchema(name, changes).status());
    RefreshOptions refresh;
    refresh.author = options.meta.author;
    refresh.query = options.query;
    refresh.full = true;
    TARN_RETURN_NOT_OK(RefreshMaterializedView(name, refresh).status());
    return GetMaterializedView(name);
  }
  if (!existing.status().Is(codes::kMaterializedViewNotFound)) return existing.status();

  QueryIntoOptions into;
  into.target = name;
  into.mode = QueryIntoMode::kCreate;
  into.meta = options.meta;
  if (into.meta.message.empty()) into.meta.message = "materialized view " + name + " created";
  into.produced_by = "view:" + name;
  into.partition_spec = options.partition_spec;
  into.sort_order = options.sort_order;
  // An incremental view's first run keeps each row's source row id (kSourceRowIdColumn).
  TARN_ASSIGN_OR_RETURN(auto form, IncrementalOf(*this, def.sql));
  QueryOptions query = options.query;
  if (form) query.incremental_reads[form->source] = std::nullopt;
  const std::string kind = form ? kRefreshIncremental : kRefreshFull;
  TARN_ASSIGN_OR_RETURN(auto ran, QueryInto(form ? form->sql : def.sql, query, into));
  auto registered = RegisterMaterializedView(name, def, SourceNames(ran.query.reads), false, kind);
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
  first.mode = kRefreshFull;
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
      out.record.status = sql::RunStatusOf(st);
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
  into.produced_by = "view:" + name;
  QueryOptions query = options.query;
  std::string sql = mv.view.current.sql;
  out.record.mode = kRefreshFull;
  if (mv.refresh_kind == kRefreshIncremental) {
    auto form = IncrementalOf(*this, sql);
    if (!form.ok()) return finish(form.status());
    if (*form) {
      const std::string source = (*form)->source;
      sql = (*form)->sql;
      query.incremental_reads[source] = std::nullopt;  // a full run keeps the row ids too
      auto ran = RefreshIncrementally(*this, mv, source, sql, options, into);
      // Another commit on the view came first: recompute instead.
      if (!ran.ok() && ran.status().kind() != ErrorKind::kConflict) return finish(ran.status());
      if (ran.ok() && *ran) {
        out = std::move(**ran);
        out.record.job_id = options.job_id;
        return finish(Status::OK());
      }
    }
  }
  auto ran = QueryInto(sql, query, into);
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
      truncate.meta.receipt = Receipt::Of(ran->query.reads, into.produced_by);
      auto committed = Commit(std::move(truncate));
      if (!committed.ok()) return finish(committed.status());
      out.snapshot = std::move(*committed);
    }
  }
  if (out.snapshot) out.record.snapshot_id = out.snapshot->snapshot_id;
  return finish(Status::OK());
}

namespace sql {

namespace {
constexpr char kResolvedOnly[] = "the query's sources are known";
}  // namespace

Result<Bound> BindQuery(Client& client, const std::string& sql, const QueryOptions& base) {
  QueryOptions options = base;
  Bound out;
  options.on_start = [&](const Schema& schema, const std::vector<ReadReference>& r) -> Status {
    out.schema = schema;
    out.reads = r;
    return Status::Cancelled(kResolvedOnly);
  };
  auto result = RunQuery(client, sql, options, [](const RecordBatch&) { return Status::OK(); });
  if (result.ok()) {
    out.schema = result->schema;
    out.reads = result->reads;
    return out;
  }
  if (result.status().kind() == ErrorKind::kCancelled &&
      result.status().message() == kResolvedOnly) {
    return out;
  }
  return result.status();
}

std::string RunStatusOf(const Status& st) {
  if (st.Is(codes::kEgressBlocked)) return kRefreshEgressBlocked;
  if (st.kind() == ErrorKind::kPermissionDenied) return kRefreshDenied;
  return kRefreshFailed;
}

JobOutcome RunRefreshJob(Client& client, const JobInfo& job) {
  JobOutcome out;
  auto mv = client.GetMaterializedView(job.target);
  if (!mv.ok()) {
    out.state = sql::RunStatusOf(mv.status());
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
    out.state = sql::RunStatusOf(refreshed.status());
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

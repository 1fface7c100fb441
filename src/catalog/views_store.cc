// The tables of views and the statements on them (views_store.h).
#include "catalog/views_store.h"

#include <algorithm>
#include <set>

#include "table/schema_json.h"

namespace tarn::views_store {

namespace {

// Portable rules as in catalog/store.cc. A view's name is unique in its collection among
// views of every kind; views.cc keeps it apart from the live datasets' names too (a
// serializable transaction reads both). A materialized view's row names its dataset.
constexpr char kViews[] = R"sql(
CREATE TABLE views (
  id ${ID},
  collection_id BIGINT NOT NULL REFERENCES collections (id),
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  dataset_id BIGINT REFERENCES datasets (id),
  version BIGINT NOT NULL,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  last_run_at BIGINT,
  last_row_count BIGINT,
  last_run_us BIGINT,
  UNIQUE (collection_id, name)
);
CREATE INDEX views_dataset ON views (dataset_id);

CREATE TABLE view_versions (
  view_id BIGINT NOT NULL REFERENCES views (id),
  version BIGINT NOT NULL,
  sql_text TEXT NOT NULL,
  dialect TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  schema_json TEXT,
  author TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (view_id, version)
);
)sql";

// Materialized views and commit triggers (issue 17): a materialized view's refresh state on
// its views row, its sources, the triggers on them (the trigger graph: dataset -> view's
// dataset) and the jobs their fires record.
constexpr char kMaterialized[] = R"sql(
ALTER TABLE views ADD COLUMN refresh_status TEXT;
ALTER TABLE views ADD COLUMN refresh_at BIGINT;
ALTER TABLE views ADD COLUMN refresh_job TEXT;
ALTER TABLE views ADD COLUMN refresh_error TEXT;
ALTER TABLE views ADD COLUMN refresh_sources TEXT;
ALTER TABLE views ADD COLUMN refresh_snapshot BIGINT;

ALTER TABLE datasets ADD COLUMN trigger_count BIGINT NOT NULL DEFAULT 0;

CREATE TABLE view_sources (
  view_id BIGINT NOT NULL REFERENCES views (id),
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  PRIMARY KEY (view_id, dataset_id)
);
CREATE INDEX view_sources_dataset ON view_sources (dataset_id);

CREATE TABLE triggers (
  id ${ID},
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  target_view_id BIGINT NOT NULL REFERENCES views (id),
  min_interval_s BIGINT,
  last_claimed_at BIGINT,
  last_fired_at BIGINT,
  last_fired_status TEXT,
  window_from BIGINT NOT NULL DEFAULT 0,
  author TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (dataset_id, name),
  CHECK (min_interval_s IS NULL OR min_interval_s >= 0)
);
CREATE INDEX triggers_target ON triggers (target_view_id);

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  workspace TEXT NOT NULL,
  trigger_name TEXT NOT NULL,
  target TEXT NOT NULL,
  source TEXT NOT NULL,
  source_uuid TEXT NOT NULL,
  from_snapshot BIGINT NOT NULL,
  to_snapshot BIGINT NOT NULL,
  fired_by TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts BIGINT NOT NULL DEFAULT 0,
  error TEXT,
  result_snapshot BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT,
  purge_at BIGINT NOT NULL
);
CREATE INDEX jobs_queue ON jobs (state, next_attempt_at);
CREATE INDEX jobs_target ON jobs (target, created_at);
CREATE INDEX jobs_purge ON jobs (purge_at);
)sql";

// Incremental refresh (issue 17): what a materialized view's SQL allows (NULL: full) and how
// its last successful refresh ran. And the firing floor's summary on the dataset row: the
// earliest time any of its triggers may fire (0: now), which the commit's lock returns, so a
// commit inside every trigger's floor learns it without reading the triggers.
constexpr char kRefreshKinds[] = R"sql(
ALTER TABLE views ADD COLUMN refresh_kind TEXT;
ALTER TABLE views ADD COLUMN refresh_mode TEXT;
ALTER TABLE datasets ADD COLUMN trigger_due_at BIGINT NOT NULL DEFAULT 0;
)sql";

// Tasks (issue 19): a task is a views row of kind 'task' (its name, its SQL versions in
// view_versions, its declaration in view_sources, `dataset_id` the dataset it writes) with one
// row here: how it writes, its one trigger (a commit trigger is also a triggers row), whose
// rights its runs have, and the last run that ended. A job carries the rights its run has.
constexpr char kTasks[] = R"sql(
CREATE TABLE tasks (
  view_id BIGINT PRIMARY KEY REFERENCES views (id),
  mode TEXT NOT NULL,
  trigger_kind TEXT NOT NULL,
  source_id BIGINT REFERENCES datasets (id),
  schedule TEXT,
  time_zone TEXT,
  next_due_at BIGINT,
  runs_as TEXT NOT NULL,
  run_status TEXT,
  run_at BIGINT,
  run_job TEXT,
  run_error TEXT,
  run_snapshot BIGINT
);
CREATE INDEX tasks_due ON tasks (next_due_at);
ALTER TABLE jobs ADD COLUMN runs_as TEXT;
)sql";

// Windowed tasks (issue 19): the dataset whose new rows a run sees, and the snapshot of it the
// last successful run covered through.
constexpr char kTaskWindows[] = R"sql(
ALTER TABLE tasks ADD COLUMN window_source_id BIGINT;
ALTER TABLE tasks ADD COLUMN window_end BIGINT NOT NULL DEFAULT 0;
)sql";

[[maybe_unused]] const bool kContributed = ContributeMigrations(ViewTables());

constexpr char kViewColumns[] =
    "v.id, v.kind, v.dataset_id, v.version, v.created_by, v.created_at, v.updated_at, "
    "v.last_run_at, v.last_row_count, v.last_run_us";

Result<ViewRow> ViewFromRow(const Row& r) {
  ViewRow v;
  TARN_ASSIGN_OR_RETURN(v.id, r.Int64(0));
  TARN_ASSIGN_OR_RETURN(auto kind, r.Text(1));
  v.kind = std::string(kind);
  TARN_ASSIGN_OR_RETURN(v.dataset_id, r.OptionalInt64(2));
  TARN_ASSIGN_OR_RETURN(v.info.current.version, r.Int64(3));
  TARN_ASSIGN_OR_RETURN(auto by, r.Text(4));
  v.info.created_by = std::string(by);
  TARN_ASSIGN_OR_RETURN(v.info.created_at_us, r.Int64(5));
  TARN_ASSIGN_OR_RETURN(v.info.updated_at_us, r.Int64(6));
  TARN_ASSIGN_OR_RETURN(v.info.last_run_at_us, r.OptionalInt64(7));
  TARN_ASSIGN_OR_RETURN(v.info.last_row_count, r.OptionalInt64(8));
  TARN_ASSIGN_OR_RETURN(v.info.last_run_us, r.OptionalInt64(9));
  return v;
}

constexpr char kVersionColumns[] =
    "version, sql_text, dialect, description, schema_json, author, created_at";

constexpr char kVersionColumnsX[] =
    "x.version, x.sql_text, x.dialect, x.description, x.schema_json, x.author, x.created_at";

Result<ViewVersion> VersionFromRow(const Row& r, size_t at = 0) {
  ViewVersion v;
  TARN_ASSIGN_OR_RETURN(v.version, r.Int64(at));
  TARN_ASSIGN_OR_RETURN(auto sql, r.Text(at + 1));
  v.sql = std::string(sql);
  TARN_ASSIGN_OR_RETURN(auto dialect, r.Text(at + 2));
  v.dialect = std::string(dialect);
  TARN_ASSIGN_OR_RETURN(auto description, r.Text(at + 3));
  v.description = std::string(description);
  TARN_ASSIGN_OR_RETURN(auto schema, r.OptionalText(at + 4));
  if (schema) {
    TARN_ASSIGN_OR_RETURN(auto parsed, SchemaFromJson(*schema));
    v.schema = std::move(parsed);
  }
  TARN_ASSIGN_OR_RETURN(auto author, r.Text(at + 5));
  v.author = std::string(author);
  TARN_ASSIGN_OR_RETURN(v.created_at_us, r.Int64(at + 6));
  return v;
}

}  // namespace

const std::vector<Migration>& ViewTables() {
  static const std::vector<Migration>* steps =
      new std::vector<Migration>{{7, "views", kViews},
                                 {8, "materialized views and triggers", kMaterialized},
                                 {9, "incremental refresh and trigger due times", kRefreshKinds},
                                 {13, "tasks", kTasks},
                                 {14, "task windows", kTaskWindows}};
  return *steps;
}

Result<std::optional<ViewRow>> FindView(Transaction& tx, int64_t collection_id,
                                        std::string_view name) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(std::string("SELECT ") + kViewColumns +
                                                  " FROM views v WHERE v.collection_id = ? AND "
                                                  "v.name = ?",
                                              {collection_id, name}));
  if (!row) return std::optional<ViewRow>();
  TARN_ASSIGN_OR_RETURN(auto v, ViewFromRow(*row));
  return std::optional<ViewRow>(std::move(v));
}

Result<bool> LiveDatasetNamed(Transaction& tx, int64_t collection_id, std::string_view name) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT 1 FROM datasets WHERE collection_id = ? "
                                              "AND name = ? AND dropped_at IS NULL",
                                              {collection_id, name}));
  return row.has_value();
}

Result<int64_t> CountViews(Transaction& tx, int64_t collection_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT COUNT(*) FROM views WHERE collection_id = ?", {collection_id}));
  return row ? row->Int64(0) : Result<int64_t>(int64_t{0});
}

Result<int64_t> InsertView(Transaction& tx, int64_t collection_id, std::string_view name,
                           std::string_view kind, std::optional<int64_t> dataset_id,
                           std::string_view author, int64_t now_us) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("INSERT INTO views (collection_id, name, kind, dataset_id, version, "
                            "created_by, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?) "
                            "RETURNING id",
                            {collection_id, name, kind, SqlValue::OptionalInt64(dataset_id), author,
                             now_us, now_us}));
  if (!row) return Status::Internal("inserting a view returned no id");
  return row->Int64(0);
}

Status InsertVersion(Transaction& tx, int64_t view_id, int64_t version, const ViewDefinition& def,
                     std::string_view author, int64_t now_us) {
  std::optional<std::string> schema;
  if (def.schema) schema = SchemaToJson(*def.schema);
  TARN_RETURN_NOT_OK(tx.Execute("INSERT INTO view_versions (view_id, version, sql_text, dialect, "
                                "description, schema_json, author, created_at) VALUES (?, ?, ?, "
                                "?, ?, ?, ?, ?)",
                                {view_id, version, def.sql, def.dialect, def.description,
                                 schema ? SqlValue(*schema) : SqlValue::Null(), author, now_us})
                         .status());
  return tx
      .Execute("UPDATE views SET version = ?, updated_at = ? WHERE id = ?",
               {version, now_us, view_id})
      .status();
}

Result<std::optional<ViewVersion>> LoadVersion(Transaction& tx, int64_t view_id, int64_t version) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(std::string("SELECT ") + kVersionColumns +
                                                  " FROM view_versions WHERE view_id = ? AND "
                                                  "version = ?",
                                              {view_id, version}));
  if (!row) return std::optional<ViewVersion>();
  TARN_ASSIGN_OR_RETURN(auto v, VersionFromRow(*row));
  return std::optional<ViewVersion>(std::move(v));
}

Result<std::vector<ViewVersion>> ListVersions(Transaction& tx, int64_t view_id) {
  std::vector<ViewVersion> out;
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query(std::string("SELECT ") + kVersionColumns +
                                                " FROM view_versions WHERE view_id = ? ORDER "
                                                "BY version",
                                            {view_id}));
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto v, VersionFromRow(r));
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<ViewInfo>> ListViews(Transaction& tx, int64_t collection_id,
                                        std::string_view kind) {
  std::vector<ViewInfo> out;
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query(std::string("SELECT ") + kViewColumns + ", v.name, w.name, c.name, " +
                   kVersionColumnsX +
                   " FROM views v JOIN collections c ON c.id = v.collection_id JOIN workspaces w "
                   "ON w.id = c.workspace_id JOIN view_versions x ON x.view_id = v.id AND "
                   "x.version = v.version WHERE v.collection_id = ? AND v.kind = ? ORDER BY "
                   "v.name",
               {collection_id, kind}));
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto v, ViewFromRow(r));
    TARN_ASSIGN_OR_RETURN(auto name, r.Text(10));
    TARN_ASSIGN_OR_RETURN(auto ws, r.Text(11));
    TARN_ASSIGN_OR_RETURN(auto coll, r.Text(12));
    v.info.name = DatasetName{std::string(ws), std::string(coll), std::string(name)};
    TARN_ASSIGN_OR_RETURN(v.info.current, VersionFromRow(r, 13));
    out.push_back(std::move(v.info));
  }
  return out;
}

Status DeleteView(Transaction& tx, int64_t view_id) {
  TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM view_versions WHERE view_id = ?", {view_id}).status());
  return tx.Execute("DELETE FROM views WHERE id = ?", {view_id}).status();
}

Status RecordRun(Transaction& tx, int64_t view_id, int64_t at_us, int64_t row_count,
                 int64_t micros) {
  return tx
      .Execute("UPDATE views SET last_run_at = ?, last_row_count = ?, last_run_us = ? WHERE id = ?",
               {at_us, row_count, micros, view_id})
      .status();
}

// ---- materialized views ----

namespace {

constexpr char kTriggerColumns[] =
    "t.id, t.dataset_id, t.target_view_id, t.name, t.kind, t.min_interval_s, t.last_fired_at, "
    "t.last_fired_status, t.window_from, t.author, t.created_at, sw.name, sc.name, sd.name, "
    "tw.name, tc.name, v.name";
constexpr char kTriggerFrom[] =
    " FROM triggers t JOIN datasets sd ON sd.id = t.dataset_id"
    " JOIN collections sc ON sc.id = sd.collection_id JOIN workspaces sw ON sw.id = sc.workspace_id"
    " JOIN views v ON v.id = t.target_view_id JOIN collections tc ON tc.id = v.collection_id"
    " JOIN workspaces tw ON tw.id = tc.workspace_id";

Result<std::vector<TriggerRow>> QueryTriggers(Transaction& tx, const std::string& where,
                                              const SqlParams& params) {
  std::vector<TriggerRow> out;
  TARN_ASSIGN_OR_RETURN(
      auto rows, tx.Query(std::string("SELECT ") + kTriggerColumns + kTriggerFrom + " WHERE " +
                              where + " ORDER BY sw.name, sc.name, sd.name, t.name",
                          params));
  for (const Row& r : rows) {
    TriggerRow t;
    TARN_ASSIGN_OR_RETURN(t.id, r.Int64(0));
    TARN_ASSIGN_OR_RETURN(t.dataset_id, r.Int64(1));
    TARN_ASSIGN_OR_RETURN(t.target_view_id, r.Int64(2));
    TARN_ASSIGN_OR_RETURN(auto name, r.Text(3));
    t.info.name = std::string(name);
    TARN_ASSIGN_OR_RETURN(auto kind, r.Text(4));
    t.info.kind = std::string(kind);
    TARN_ASSIGN_OR_RETURN(t.info.minimum_interval_s, r.OptionalInt64(5));
    TARN_ASSIGN_OR_RETURN(t.info.last_fired_at_us, r.OptionalInt64(6));
    TARN_ASSIGN_OR_RETURN(auto status, r.OptionalText(7));
    t.info.last_fired_status = std::string(status.value_or(""));
    TARN_ASSIGN_OR_RETURN(t.info.window_from_snapshot, r.Int64(8));
    TARN_ASSIGN_OR_RETURN(auto author, r.Text(9));
    t.info.author = std::string(author);
    TARN_ASSIGN_OR_RETURN(t.info.created_at_us, r.Int64(10));
    std::string parts[6];
    for (int i = 0; i < 6; ++i) {
      TARN_ASSIGN_OR_RETURN(auto p, r.Text(11 + i));
      parts[i] = std::string(p);
    }
    t.info.dataset = parts[0] + "." + parts[1] + "." + parts[2];
    t.info.target = parts[3] + "." + parts[4] + "." + parts[5];
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

Result<std::optional<ViewRow>> FindViewOfDataset(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(std::string("SELECT ") + kViewColumns +
                                                  " FROM views v WHERE v.dataset_id = ? AND "
                                                  "v.kind = ?",
                                              {dataset_id, kKindMaterialized}));
  if (!row) return std::optional<ViewRow>();
  TARN_ASSIGN_OR_RETURN(auto v, ViewFromRow(*row));
  return std::optional<ViewRow>(std::move(v));
}

Status LoadMaterialized(Transaction& tx, const ViewRow& row, MaterializedViewInfo* out) {
  TARN_ASSIGN_OR_RETURN(
      auto state,
      tx.QueryOne("SELECT v.refresh_status, v.refresh_at, v.refresh_job, v.refresh_error, "
                  "v.refresh_sources, v.refresh_snapshot, d.uuid, v.refresh_kind, v.refresh_mode "
                  "FROM views v JOIN datasets d ON d.id = v.dataset_id WHERE v.id = ?",
                  {row.id}));
  if (!state)
    return Status::Corruption("materialized view row " + std::to_string(row.id) +
                              " has no dataset");
  TARN_ASSIGN_OR_RETURN(auto status, state->OptionalText(0));
  out->last_refresh_status = std::string(status.value_or(""));
  TARN_ASSIGN_OR_RETURN(out->last_refresh_at_us, state->OptionalInt64(1));
  TARN_ASSIGN_OR_RETURN(auto job, state->OptionalText(2));
  out->last_refresh_job = std::string(job.value_or(""));
  TARN_ASSIGN_OR_RETURN(auto error, state->OptionalText(3));
  out->last_refresh_error = std::string(error.value_or(""));
  TARN_ASSIGN_OR_RETURN(auto sources, state->OptionalText(4));
  out->last_refresh_sources.clear();
  if (sources) {
    TARN_ASSIGN_OR_RETURN(auto receipt, Receipt::FromJson(*sources));
    out->last_refresh_sources = std::move(receipt.read_sources);
  }
  TARN_ASSIGN_OR_RETURN(out->last_refresh_snapshot_id, state->OptionalInt64(5));
  TARN_ASSIGN_OR_RETURN(auto uuid, state->Text(6));
  out->dataset_uuid = std::string(uuid);
  TARN_ASSIGN_OR_RETURN(auto kind, state->OptionalText(7));
  out->refresh_kind = std::string(kind.value_or(kRefreshFull));
  TARN_ASSIGN_OR_RETURN(auto mode, state->OptionalText(8));
  out->last_refresh_mode = std::string(mode.value_or(""));
  TARN_ASSIGN_OR_RETURN(
      auto names,
      tx.Query("SELECT w.name, c.name, d.name FROM view_sources s JOIN datasets d ON d.id = "
               "s.dataset_id JOIN collections c ON c.id = d.collection_id JOIN workspaces w ON "
               "w.id = c.workspace_id WHERE s.view_id = ? ORDER BY w.name, c.name, d.name",
               {row.id}));
  out->sources.clear();
  for (const Row& r : names) {
    TARN_ASSIGN_OR_RETURN(auto w, r.Text(0));
    TARN_ASSIGN_OR_RETURN(auto c, r.Text(1));
    TARN_ASSIGN_OR_RETURN(auto d, r.Text(2));
    out->sources.push_back(std::string(w) + "." + std::string(c) + "." + std::string(d));
  }
  TARN_ASSIGN_OR_RETURN(auto triggers, TriggersTargeting(tx, row.id));
  out->triggers.clear();
  for (auto& t : triggers) out->triggers.push_back(std::move(t.info));
  return Status::OK();
}

Result<std::vector<MaterializedViewInfo>> ListMaterialized(Transaction& tx, int64_t collection_id) {
  std::vector<MaterializedViewInfo> out;
  TARN_ASSIGN_OR_RETURN(auto views, ListViews(tx, collection_id, kKindMaterialized));
  for (auto& info : views) {
    TARN_ASSIGN_OR_RETURN(auto row, FindView(tx, collection_id, info.name.dataset));
    if (!row) continue;
    MaterializedViewInfo mv;
    mv.view = std::move(info);
    TARN_RETURN_NOT_OK(LoadMaterialized(tx, *row, &mv));
    out.push_back(std::move(mv));
  }
  return out;
}

Status SetSources(Transaction& tx, int64_t view_id, const std::vector<int64_t>& dataset_ids) {
  TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM view_sources WHERE view_id = ?", {view_id}).status());
  for (int64_t id : dataset_ids) {
    TARN_RETURN_NOT_OK(
        tx.Execute("INSERT INTO view_sources (view_id, dataset_id) VALUES (?, ?)", {view_id, id})
            .status());
  }
  return Status::OK();
}

Status SetRefresh(Transaction& tx, int64_t view_id, const RefreshRecord& r, int64_t now_us) {
  Receipt sources = Receipt::Of(r.sources);
  auto opt = [](const std::string& s) { return s.empty() ? SqlValue::Null() : SqlValue(s); };
  if (r.status == kRefreshSucceeded) {
    return tx
        .Execute(
            "UPDATE views SET refresh_status = ?, refresh_at = ?, refresh_job = ?, "
            "refresh_error = NULL, refresh_sources = ?, refresh_snapshot = COALESCE(?, "
            "refresh_snapshot), refresh_mode = ? WHERE id = ?",
            {r.status, now_us, opt(r.job_id), sources.ToJson(),
             SqlValue::OptionalInt64(r.snapshot_id), opt(r.mode.empty() ? kRefreshFull : r.mode),
             view_id})
        .status();
  }
  // A refresh that did not succeed leaves the data, and what it reflects, as they were.
  return tx
      .Execute(
          "UPDATE views SET refresh_status = ?, refresh_at = ?, refresh_job = ?, "
          "refresh_error = ? WHERE id = ?",
          {r.status, now_us, opt(r.job_id), opt(r.error), view_id})
      .status();
}

Status SetRefreshKind(Transaction& tx, int64_t view_id, std::string_view kind) {
  return tx
      .Execute("UPDATE views SET refresh_kind = ?, refresh_mode = NULL WHERE id = ?",
               {kind == kRefreshFull ? SqlValue::Null() : SqlValue(kind), view_id})
      .status();
}

Status DeleteMaterialized(Transaction& tx, int64_t view_id) {
  TARN_ASSIGN_OR_RETURN(auto triggers, TriggersTargeting(tx, view_id));
  for (const auto& t : triggers) TARN_RETURN_NOT_OK(DeleteTrigger(tx, t.id));
  TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM view_sources WHERE view_id = ?", {view_id}).status());
  return DeleteView(tx, view_id);
}

Status ForgetSource(Transaction& tx, int64_t dataset_id) {
  return tx.Execute("DELETE FROM view_sources WHERE dataset_id = ?", {dataset_id}).status();
}

Result<std::vector<TriggerRow>> TriggersOn(Transaction& tx, int64_t dataset_id) {
  return QueryTriggers(tx, "t.dataset_id = ?", {dataset_id});
}

Result<std::vector<TriggerRow>> TriggersTargeting(Transaction& tx, int64_t view_id) {
  return QueryTriggers(tx, "t.target_view_id = ?", {view_id});
}

namespace {

// datasets.trigger_count and trigger_due_at (what the commit's lock returns, so a commit on a
// dataset without triggers, or inside every trigger's floor, pays nothing to find out) kept
// equal to the triggers' rows.
Status Recount(Transaction& tx, int64_t dataset_id) {
  return tx
      .Execute(
          "UPDATE datasets SET trigger_count = (SELECT COUNT(*) FROM triggers WHERE "
          "dataset_id = ?), trigger_due_at = COALESCE((SELECT MIN(CASE WHEN min_interval_s IS "
          "NULL OR min_interval_s = 0 OR last_claimed_at IS NULL THEN 0 ELSE last_claimed_at + "
          "min_interval_s * 1000000 END) FROM triggers WHERE dataset_id = ?), 0) WHERE id = ?",
          {dataset_id, dataset_id, dataset_id})
      .status();
}

}  // namespace

Status MarkThrottledDeferred(Transaction& tx, int64_t dataset_id) {
  return tx.ExecuteDeferred(
      "UPDATE triggers SET last_fired_status = 'throttled' WHERE dataset_id = ? AND "
      "(last_fired_status IS NULL OR last_fired_status <> 'throttled')",
      {dataset_id});
}

Status InsertTrigger(Transaction& tx, int64_t dataset_id, std::string_view name,
                     int64_t target_view_id, std::optional<int64_t> min_interval_s,
                     std::string_view author, int64_t now_us, std::string_view kind) {
  TARN_RETURN_NOT_OK(
      tx.Execute("INSERT INTO triggers (dataset_id, name, kind, target_view_id, min_interval_s, "
                 "author, created_at, window_from) VALUES (?, ?, ?, ?, ?, ?, ?, COALESCE((SELECT "
                 "current_snapshot_id FROM datasets WHERE id = ?), 0))",
                 {dataset_id, name, kind, target_view_id, SqlValue::OptionalInt64(min_interval_s),
                  author, now_us, dataset_id})
          .status());
  return Recount(tx, dataset_id);
}

Status DeleteTrigger(Transaction& tx, int64_t trigger_id) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("DELETE FROM triggers WHERE id = ? RETURNING "
                                              "dataset_id",
                                              {trigger_id}));
  if (!row) return Status::OK();
  TARN_ASSIGN_OR_RETURN(int64_t dataset_id, row->Int64(0));
  return Recount(tx, dataset_id);
}

Status DeleteTriggersOn(Transaction& tx, int64_t dataset_id) {
  TARN_RETURN_NOT_OK(
      tx.Execute("DELETE FROM triggers WHERE dataset_id = ?", {dataset_id}).status());
  return Recount(tx, dataset_id);
}

Result<bool> SetTriggerInterval(Transaction& tx, int64_t dataset_id, std::string_view name,
                                std::optional<int64_t> seconds) {
  TARN_ASSIGN_OR_RETURN(int64_t n,
                        tx.Execute("UPDATE triggers SET min_interval_s = ? WHERE "
                                   "dataset_id = ? AND name = ?",
                                   {SqlValue::OptionalInt64(seconds), dataset_id, name}));
  if (n > 0) TARN_RETURN_NOT_OK(Recount(tx, dataset_id));
  return n > 0;
}

Result<bool> GraphReaches(Transaction& tx, int64_t from, int64_t to) {
  std::vector<int64_t> frontier = {from};
  std::set<int64_t> seen = {from};
  while (!frontier.empty()) {
    if (seen.size() > 100000) return Status::Internal("the trigger graph is too large to walk");
    std::vector<int64_t> next;
    for (int64_t d : frontier) {
      TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("SELECT v.dataset_id FROM triggers t JOIN views v "
                                                "ON v.id = t.target_view_id WHERE t.dataset_id = "
                                                "? AND v.dataset_id IS NOT NULL",
                                                {d}));
      for (const Row& r : rows) {
        TARN_ASSIGN_OR_RETURN(int64_t m, r.Int64(0));
        if (m == to) return true;
        if (seen.insert(m).second) next.push_back(m);
      }
    }
    frontier.swap(next);
  }
  return false;
}

Result<int64_t> CountTriggersOn(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT COUNT(*) FROM triggers WHERE dataset_id = ?", {dataset_id}));
  return row ? row->Int64(0) : Result<int64_t>(int64_t{0});
}

// ---- the integrity sweep ----

Result<std::vector<TriggerEnds>> TriggerEndsPage(Transaction& tx, int64_t after_id, int64_t limit) {
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query("SELECT t.id, t.name, t.dataset_id, sd.id, sd.dropped_at, sw.name, sc.name, "
               "sd.name, t.target_view_id, v.id, v.kind, v.dataset_id, md.id, md.dropped_at, "
               "tw.name, tc.name, v.name, mw.name, mc.name, md.name FROM triggers t LEFT JOIN "
               "datasets sd ON sd.id = "
               "t.dataset_id LEFT JOIN collections sc ON sc.id = sd.collection_id LEFT JOIN "
               "workspaces sw ON sw.id = sc.workspace_id LEFT JOIN views v ON v.id = "
               "t.target_view_id LEFT JOIN datasets md ON md.id = v.dataset_id LEFT JOIN "
               "collections tc ON tc.id = v.collection_id LEFT JOIN workspaces tw ON tw.id = "
               "tc.workspace_id LEFT JOIN collections mc ON mc.id = md.collection_id LEFT JOIN "
               "workspaces mw ON mw.id = mc.workspace_id WHERE t.id > ? ORDER BY t.id LIMIT ?",
               {after_id, limit}));
  auto name3 = [](const Row& r, size_t at) -> Result<std::string> {
    if (r.IsNull(at) || r.IsNull(at + 1) || r.IsNull(at + 2)) return std::string();
    std::string out;
    for (size_t i = 0; i < 3; ++i) {
      TARN_ASSIGN_OR_RETURN(auto part, r.Text(at + i));
      if (i) out += ".";
      out += std::string(part);
    }
    return out;
  };
  std::vector<TriggerEnds> out;
  out.reserve(rows.size());
  for (const Row& r : rows) {
    TriggerEnds t;
    TARN_ASSIGN_OR_RETURN(t.id, r.Int64(0));
    TARN_ASSIGN_OR_RETURN(auto name, r.Text(1));
    t.name = std::string(name);
    TARN_ASSIGN_OR_RETURN(t.source_id, r.Int64(2));
    t.source_exists = !r.IsNull(3);
    t.source_live = t.source_exists && r.IsNull(4);
    TARN_ASSIGN_OR_RETURN(t.source, name3(r, 5));
    TARN_ASSIGN_OR_RETURN(t.view_id, r.Int64(8));
    t.view_exists = !r.IsNull(9);
    TARN_ASSIGN_OR_RETURN(auto kind, r.OptionalText(10));
    t.view_kind = std::string(kind.value_or(""));
    TARN_ASSIGN_OR_RETURN(t.view_dataset_id, r.OptionalInt64(11));
    t.view_dataset_live = !r.IsNull(12) && r.IsNull(13);
    TARN_ASSIGN_OR_RETURN(t.target, name3(r, 14));
    TARN_ASSIGN_OR_RETURN(t.target_dataset, name3(r, 17));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> DeclaredSources(Transaction& tx,
                                                                         int64_t view_id) {
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query("SELECT d.uuid, w.name, c.name, d.name FROM view_sources s JOIN datasets d ON "
               "d.id = s.dataset_id JOIN collections c ON c.id = d.collection_id JOIN "
               "workspaces w ON w.id = c.workspace_id WHERE s.view_id = ? ORDER BY w.name, "
               "c.name, d.name",
               {view_id}));
  std::vector<std::pair<std::string, std::string>> out;
  for (const Row& r : rows) {
    std::string parts[4];
    for (size_t i = 0; i < 4; ++i) {
      TARN_ASSIGN_OR_RETURN(auto t, r.Text(i));
      parts[i] = std::string(t);
    }
    out.emplace_back(parts[0], parts[1] + "." + parts[2] + "." + parts[3]);
  }
  return out;
}

// ---- firing and jobs ----

Result<std::vector<FireCandidate>> FireCandidates(Transaction& tx, int64_t dataset_id) {
  std::vector<FireCandidate> out;
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query(
          "SELECT t.id, t.name, tw.name, tc.name, v.name, sw.name, sc.name, sd.name, "
          "v.kind, k.runs_as, v.id FROM datasets sd JOIN triggers t ON t.dataset_id = sd.id JOIN "
          "collections sc ON sc.id = sd.collection_id JOIN workspaces sw ON sw.id = "
          "sc.workspace_id JOIN views v ON v.id = t.target_view_id JOIN collections tc ON "
          "tc.id = v.collection_id JOIN workspaces tw ON tw.id = tc.workspace_id LEFT JOIN "
          "tasks k ON k.view_id = v.id WHERE t.dataset_id = ? ORDER BY t.id",
          {dataset_id}));
  for (const Row& r : rows) {
    FireCandidate c;
    TARN_ASSIGN_OR_RETURN(c.trigger_id, r.Int64(0));
    std::string s[7];
    for (int i = 0; i < 7; ++i) {
      TARN_ASSIGN_OR_RETURN(auto t, r.Text(1 + i));
      s[i] = std::string(t);
    }
    c.trigger = s[0];
    c.workspace = s[1];
    c.target = s[1] + "." + s[2] + "." + s[3];
    c.source = s[4] + "." + s[5] + "." + s[6];
    TARN_ASSIGN_OR_RETURN(auto kind, r.Text(8));
    c.view_kind = std::string(kind);
    TARN_ASSIGN_OR_RETURN(auto runs_as, r.OptionalText(9));
    c.runs_as = std::string(runs_as.value_or(""));
    TARN_ASSIGN_OR_RETURN(c.view_id, r.Int64(10));
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::map<int64_t, int64_t>> ClaimTriggers(Transaction& tx, int64_t dataset_id,
                                                 int64_t now_us) {
  std::map<int64_t, int64_t> claimed;
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query("UPDATE triggers SET last_claimed_at = ? WHERE dataset_id = ? AND (min_interval_s "
               "IS NULL OR min_interval_s = 0 OR last_claimed_at IS NULL OR last_claimed_at <= ? "
               "- min_interval_s * 1000000) RETURNING id, window_from",
               {now_us, dataset_id, now_us}));
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(int64_t id, r.Int64(0));
    TARN_ASSIGN_OR_RETURN(int64_t from, r.Int64(1));
    claimed[id] = from;
  }
  TARN_RETURN_NOT_OK(tx.Execute("UPDATE triggers SET last_fired_status = 'throttled' WHERE "
                                "dataset_id = ? AND (last_claimed_at IS NULL OR last_claimed_at "
                                "<> ?)",
                                {dataset_id, now_us})
                         .status());
  if (!claimed.empty()) TARN_RETURN_NOT_OK(Recount(tx, dataset_id));
  return claimed;
}

Status MarkFired(Transaction& tx, int64_t trigger_id, int64_t snapshot_id, int64_t now_us) {
  return tx
      .Execute(
          "UPDATE triggers SET window_from = CASE WHEN window_from < ? THEN ? ELSE "
          "window_from END, last_fired_at = ?, last_fired_status = 'fired' WHERE id = ?",
          {snapshot_id, snapshot_id, now_us, trigger_id})
      .status();
}

namespace {

constexpr char kJobColumns[] =
    "id, kind, workspace, trigger_name, target, source, source_uuid, from_snapshot, to_snapshot, "
    "fired_by, state, attempts, error, result_snapshot, created_at, updated_at, next_attempt_at, "
    "lease_until, purge_at, runs_as";

Result<JobInfo> JobFromRow(const Row& r) {
  JobInfo j;
  std::string* texts[] = {&j.id,     &j.kind,   &j.workspace,  &j.trigger,
                          &j.target, &j.source, &j.source_uuid};
  for (int i = 0; i < 7; ++i) {
    TARN_ASSIGN_OR_RETURN(auto t, r.Text(i));
    *texts[i] = std::string(t);
  }
  TARN_ASSIGN_OR_RETURN(j.from_snapshot, r.Int64(7));
  TARN_ASSIGN_OR_RETURN(j.to_snapshot, r.Int64(8));
  TARN_ASSIGN_OR_RETURN(auto by, r.Text(9));
  j.fired_by = std::string(by);
  TARN_ASSIGN_OR_RETURN(auto state, r.Text(10));
  j.state = std::string(state);
  TARN_ASSIGN_OR_RETURN(j.attempts, r.Int64(11));
  TARN_ASSIGN_OR_RETURN(auto error, r.OptionalText(12));
  j.error = std::string(error.value_or(""));
  TARN_ASSIGN_OR_RETURN(j.result_snapshot, r.OptionalInt64(13));
  TARN_ASSIGN_OR_RETURN(j.created_at_us, r.Int64(14));
  TARN_ASSIGN_OR_RETURN(j.updated_at_us, r.Int64(15));
  TARN_ASSIGN_OR_RETURN(j.next_attempt_at_us, r.Int64(16));
  TARN_ASSIGN_OR_RETURN(j.lease_until_us, r.OptionalInt64(17));
  TARN_ASSIGN_OR_RETURN(j.purge_at_us, r.Int64(18));
  TARN_ASSIGN_OR_RETURN(auto runs_as, r.OptionalText(19));
  j.runs_as = std::string(runs_as.value_or(""));
  return j;
}

}  // namespace

Status InsertJob(Transaction& tx, const JobInfo& j) {
  return tx
      .Execute(std::string("INSERT INTO jobs (") + kJobColumns +
                   ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               {j.id,
                j.kind,
                j.workspace,
                j.trigger,
                j.target,
                j.source,
                j.source_uuid,
                j.from_snapshot,
                j.to_snapshot,
                j.fired_by,
                j.state,
                j.attempts,
                j.error.empty() ? SqlValue::Null() : SqlValue(j.error),
                SqlValue::OptionalInt64(j.result_snapshot),
                j.created_at_us,
                j.updated_at_us,
                j.next_attempt_at_us,
                SqlValue::OptionalInt64(j.lease_until_us),
                j.purge_at_us,
                j.runs_as.empty() ? SqlValue::Null() : SqlValue(j.runs_as)})
      .status();
}

Result<std::optional<JobInfo>> LoadJob(Transaction& tx, std::string_view id) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne(std::string("SELECT ") + kJobColumns + " FROM jobs WHERE id = ?", {id}));
  if (!row) return std::optional<JobInfo>();
  TARN_ASSIGN_OR_RETURN(auto j, JobFromRow(*row));
  return std::optional<JobInfo>(std::move(j));
}

Result<std::vector<JobInfo>> ListJobs(Transaction& tx, const JobQuery& q) {
  std::string sql = std::string("SELECT ") + kJobColumns + " FROM jobs WHERE 1 = 1";
  SqlParams params;
  if (!q.state.empty()) {
    sql += " AND state = ?";
    params.push_back(q.state);
  }
  if (!q.target.empty()) {
    sql += " AND target = ?";
    params.push_back(q.target);
  }
  if (!q.workspace.empty()) {
    sql += " AND workspace = ?";
    params.push_back(q.workspace);
  }
  // Keyset paging on (created_at DESC, id) from the cursor jobs' own keys (JobQuery).
  for (const auto& [cursor, field] : {std::pair{&q.after, "after"}, {&q.before, "before"}}) {
    if (cursor->empty()) continue;
    TARN_ASSIGN_OR_RETURN(auto row,
                          tx.QueryOne("SELECT created_at FROM jobs WHERE id = ?", {*cursor}));
    if (!row) {
      return Status::InvalidArgument("job list cursor '" + cursor->substr(0, 64) +
                                     "' names no job (never one, or purged)")
          .WithField("field", field);
    }
    TARN_ASSIGN_OR_RETURN(int64_t at, row->Int64(0));
    sql += field == std::string_view("after")
               ? " AND (created_at < ? OR (created_at = ? AND id > ?))"
               : " AND (created_at > ? OR (created_at = ? AND id < ?))";
    params.push_back(at);
    params.push_back(at);
    params.push_back(*cursor);
  }
  // With `before` alone the page is the `limit` jobs nearest it: read in reverse, then turn.
  const bool backward = !q.before.empty() && q.after.empty();
  sql +=
      backward ? " ORDER BY created_at, id DESC LIMIT ?" : " ORDER BY created_at DESC, id LIMIT ?";
  params.push_back(q.limit);
  std::vector<JobInfo> out;
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query(sql, params));
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto j, JobFromRow(r));
    out.push_back(std::move(j));
  }
  if (backward) std::reverse(out.begin(), out.end());
  return out;
}

Result<std::optional<JobInfo>> ClaimJob(Transaction& tx, MetastoreBackend backend, int64_t now_us,
                                        int64_t lease_us) {
  std::string pick =
      "SELECT id FROM jobs WHERE (state = 'queued' AND next_attempt_at <= ?) OR (state = "
      "'running' AND lease_until < ?) ORDER BY next_attempt_at, created_at LIMIT 1";
  if (backend == MetastoreBackend::kPostgres) pick += " FOR UPDATE SKIP LOCKED";
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(pick, {now_us, now_us}));
  if (!row) return std::optional<JobInfo>();
  TARN_ASSIGN_OR_RETURN(auto id, row->Text(0));
  const std::string job_id(id);
  TARN_RETURN_NOT_OK(tx.Execute("UPDATE jobs SET state = 'running', attempts = attempts + 1, "
                                "lease_until = ?, updated_at = ? WHERE id = ?",
                                {now_us + lease_us, now_us, job_id})
                         .status());
  return LoadJob(tx, job_id);
}

Status FinishJob(Transaction& tx, std::string_view id, std::string_view state,
                 std::string_view error, std::optional<int64_t> result_snapshot,
                 int64_t retry_at_us, int64_t now_us) {
  return tx
      .Execute(
          "UPDATE jobs SET state = ?, error = ?, result_snapshot = COALESCE(?, "
          "result_snapshot), next_attempt_at = ?, lease_until = NULL, updated_at = ? WHERE "
          "id = ?",
          {state, error.empty() ? SqlValue::Null() : SqlValue(error),
           SqlValue::OptionalInt64(result_snapshot), retry_at_us, now_us, id})
      .status();
}

Result<int64_t> PurgeJobs(Transaction& tx, int64_t now_us) {
  return tx.Execute("DELETE FROM jobs WHERE purge_at < ? AND state <> 'running'", {now_us});
}

// ---- tasks ----

Status UpsertTask(Transaction& tx, const TaskRow& t) {
  auto text = [](const std::string& v) { return v.empty() ? SqlValue::Null() : SqlValue(v); };
  return tx
      .Execute(
          "INSERT INTO tasks (view_id, mode, trigger_kind, source_id, schedule, time_zone, "
          "next_due_at, runs_as, window_source_id, window_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
          "?, ?) ON CONFLICT (view_id) DO UPDATE SET mode = excluded.mode, trigger_kind = "
          "excluded.trigger_kind, source_id = excluded.source_id, schedule = excluded.schedule, "
          "time_zone = excluded.time_zone, next_due_at = excluded.next_due_at, runs_as = "
          "excluded.runs_as, window_source_id = excluded.window_source_id, window_end = "
          "excluded.window_end",
          {t.view_id, t.mode, t.trigger_kind, SqlValue::OptionalInt64(t.source_id),
           text(t.schedule), text(t.time_zone), SqlValue::OptionalInt64(t.next_due_at_us),
           t.runs_as, SqlValue::OptionalInt64(t.window_source_id), t.window_end})
      .status();
}

namespace {

// The task columns after the views row's (kViewColumns), then the target's and the source's
// names and the current version.
constexpr char kTaskSelect[] =
    "k.mode, k.trigger_kind, k.schedule, k.time_zone, k.next_due_at, k.runs_as, k.run_status, "
    "k.run_at, k.run_job, k.run_error, k.run_snapshot, tw.name, tc.name, td.name, sw.name, "
    "sc.name, sd.name, v.name, w.name, c.name, ww.name, wc.name, wd.name, k.window_end";
constexpr char kTaskFrom[] =
    " FROM views v JOIN tasks k ON k.view_id = v.id JOIN collections c ON c.id = "
    "v.collection_id JOIN workspaces w ON w.id = c.workspace_id JOIN datasets td ON td.id = "
    "v.dataset_id JOIN collections tc ON tc.id = td.collection_id JOIN workspaces tw ON tw.id = "
    "tc.workspace_id LEFT JOIN datasets sd ON sd.id = k.source_id LEFT JOIN collections sc ON "
    "sc.id = sd.collection_id LEFT JOIN workspaces sw ON sw.id = sc.workspace_id LEFT JOIN "
    "datasets wd ON wd.id = k.window_source_id LEFT JOIN collections wc ON wc.id = "
    "wd.collection_id LEFT JOIN workspaces ww ON ww.id = wc.workspace_id";

// Fills `out` from a row of kViewColumns, kTaskSelect (at 10), then its declaration and SQL.
Status TaskFromRow(Transaction& tx, const Row& r, TaskInfo* out) {
  TARN_ASSIGN_OR_RETURN(auto v, ViewFromRow(r));
  out->version = v.info.current.version;
  out->created_by = v.info.created_by;
  out->created_at_us = v.info.created_at_us;
  out->updated_at_us = v.info.updated_at_us;
  auto text = [&](size_t i) -> Result<std::string> {
    TARN_ASSIGN_OR_RETURN(auto t, r.OptionalText(i));
    return std::string(t.value_or(""));
  };
  auto name3 = [&](size_t i) -> Result<std::string> {
    if (r.IsNull(i)) return std::string();
    std::string a, b, c;
    TARN_ASSIGN_OR_RETURN(a, text(i));
    TARN_ASSIGN_OR_RETURN(b, text(i + 1));
    TARN_ASSIGN_OR_RETURN(c, text(i + 2));
    return a + "." + b + "." + c;
  };
  TaskDefinition& d = out->definition;
  TARN_ASSIGN_OR_RETURN(d.mode, text(10));
  TARN_ASSIGN_OR_RETURN(d.trigger, text(11));
  TARN_ASSIGN_OR_RETURN(d.schedule, text(12));
  TARN_ASSIGN_OR_RETURN(d.time_zone, text(13));
  TARN_ASSIGN_OR_RETURN(out->next_due_at_us, r.OptionalInt64(14));
  TARN_ASSIGN_OR_RETURN(d.runs_as, text(15));
  TARN_ASSIGN_OR_RETURN(out->last_run_status, text(16));
  TARN_ASSIGN_OR_RETURN(out->last_run_at_us, r.OptionalInt64(17));
  TARN_ASSIGN_OR_RETURN(out->last_run_job, text(18));
  TARN_ASSIGN_OR_RETURN(out->last_run_error, text(19));
  TARN_ASSIGN_OR_RETURN(out->last_run_snapshot_id, r.OptionalInt64(20));
  TARN_ASSIGN_OR_RETURN(d.target, name3(21));
  TARN_ASSIGN_OR_RETURN(d.on, name3(24));
  TARN_ASSIGN_OR_RETURN(auto name, text(27));
  TARN_ASSIGN_OR_RETURN(auto ws, text(28));
  TARN_ASSIGN_OR_RETURN(auto coll, text(29));
  out->name = DatasetName{ws, coll, name};
  TARN_ASSIGN_OR_RETURN(d.window_source, name3(30));
  TARN_ASSIGN_OR_RETURN(out->window_end, r.Int64(33));
  TARN_ASSIGN_OR_RETURN(auto version, LoadVersion(tx, v.id, v.info.current.version));
  if (!version) return Status::Corruption("task '" + out->name.ToString() + "' lost its SQL");
  d.sql = version->sql;
  d.dialect = version->dialect;
  d.description = version->description;
  TARN_ASSIGN_OR_RETURN(auto declared, DeclaredSources(tx, v.id));
  out->reads.clear();
  for (auto& [uuid, qualified] : declared) out->reads.push_back(std::move(qualified));
  return Status::OK();
}

}  // namespace

Result<bool> LoadTask(Transaction& tx, int64_t view_id, TaskInfo* out) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(std::string("SELECT ") + kViewColumns + ", " +
                                                  kTaskSelect + kTaskFrom + " WHERE v.id = ?",
                                              {view_id}));
  if (!row) return false;
  TARN_RETURN_NOT_OK(TaskFromRow(tx, *row, out));
  return true;
}

Result<std::vector<TaskInfo>> ListTasks(Transaction& tx, int64_t collection_id) {
  TARN_ASSIGN_OR_RETURN(
      auto rows, tx.Query(std::string("SELECT ") + kViewColumns + ", " + kTaskSelect + kTaskFrom +
                              " WHERE v.collection_id = ? ORDER BY v.name",
                          {collection_id}));
  std::vector<TaskInfo> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) TARN_RETURN_NOT_OK(TaskFromRow(tx, rows[i], &out[i]));
  return out;
}

Status SetTaskRun(Transaction& tx, int64_t view_id, const RefreshRecord& r, int64_t now_us) {
  auto text = [](const std::string& v) { return v.empty() ? SqlValue::Null() : SqlValue(v); };
  return tx
      .Execute(
          "UPDATE tasks SET run_status = ?, run_at = ?, run_job = ?, run_error = ?, "
          "run_snapshot = ? WHERE view_id = ?",
          {r.status, now_us, text(r.job_id), text(r.error), SqlValue::OptionalInt64(r.snapshot_id),
           view_id})
      .status();
}

Status DeleteTask(Transaction& tx, int64_t view_id) {
  TARN_ASSIGN_OR_RETURN(auto triggers, TriggersTargeting(tx, view_id));
  for (const auto& t : triggers) TARN_RETURN_NOT_OK(DeleteTrigger(tx, t.id));
  TARN_RETURN_NOT_OK(SetSources(tx, view_id, {}));
  TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM tasks WHERE view_id = ?", {view_id}).status());
  return DeleteView(tx, view_id);
}

Result<std::vector<DueTask>> DueTasks(Transaction& tx, int64_t now_us, int64_t limit) {
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query("SELECT k.view_id, w.name, c.name, v.name, k.schedule, k.time_zone, k.runs_as, "
               "k.next_due_at FROM tasks k JOIN views v ON v.id = k.view_id JOIN collections c "
               "ON c.id = v.collection_id JOIN workspaces w ON w.id = c.workspace_id WHERE "
               "k.next_due_at <= ? ORDER BY k.next_due_at LIMIT ?",
               {now_us, limit}));
  std::vector<DueTask> out;
  out.reserve(rows.size());
  for (const Row& r : rows) {
    DueTask t;
    TARN_ASSIGN_OR_RETURN(t.view_id, r.Int64(0));
    std::string s[6];
    for (size_t i = 0; i < 6; ++i) {
      TARN_ASSIGN_OR_RETURN(auto text, r.OptionalText(1 + i));
      s[i] = std::string(text.value_or(""));
    }
    t.workspace = s[0];
    t.name = s[0] + "." + s[1] + "." + s[2];
    t.schedule = s[3];
    t.time_zone = s[4];
    t.runs_as = s[5];
    TARN_ASSIGN_OR_RETURN(t.due_at_us, r.Int64(7));
    out.push_back(std::move(t));
  }
  return out;
}

Result<bool> AdvanceSchedule(Transaction& tx, int64_t view_id, int64_t due_us,
                             std::optional<int64_t> next_us) {
  TARN_ASSIGN_OR_RETURN(int64_t n,
                        tx.Execute("UPDATE tasks SET next_due_at = ? WHERE view_id = ? AND "
                                   "next_due_at = ?",
                                   {SqlValue::OptionalInt64(next_us), view_id, due_us}));
  return n == 1;
}

Status SetViewDataset(Transaction& tx, int64_t view_id, int64_t dataset_id) {
  return tx.Execute("UPDATE views SET dataset_id = ? WHERE id = ?", {dataset_id, view_id}).status();
}

Status ForgetTaskSource(Transaction& tx, int64_t dataset_id) {
  TARN_RETURN_NOT_OK(
      tx.Execute("UPDATE tasks SET source_id = NULL WHERE source_id = ?", {dataset_id}).status());
  return tx
      .Execute("UPDATE tasks SET window_source_id = NULL WHERE window_source_id = ?", {dataset_id})
      .status();
}

Result<std::optional<TaskWindow>> WindowOf(Transaction& tx, int64_t view_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("SELECT w.name, c.name, d.name, k.window_end, d.current_snapshot_id FROM tasks "
                  "k JOIN datasets d ON d.id = k.window_source_id JOIN collections c ON c.id = "
                  "d.collection_id JOIN workspaces w ON w.id = c.workspace_id WHERE k.view_id = ?",
                  {view_id}));
  if (!row) return std::optional<TaskWindow>();
  TaskWindow out;
  std::string parts[3];
  for (size_t i = 0; i < 3; ++i) {
    TARN_ASSIGN_OR_RETURN(auto t, row->Text(i));
    parts[i] = std::string(t);
  }
  out.source = parts[0] + "." + parts[1] + "." + parts[2];
  TARN_ASSIGN_OR_RETURN(out.after, row->Int64(3));
  TARN_ASSIGN_OR_RETURN(auto head, row->OptionalInt64(4));
  out.to = head.value_or(0);
  return std::optional<TaskWindow>(std::move(out));
}

Status AdvanceWindow(Transaction& tx, int64_t view_id, int64_t to) {
  return tx
      .Execute("UPDATE tasks SET window_end = ? WHERE view_id = ? AND window_end < ?",
               {to, view_id, to})
      .status();
}

Result<std::vector<int64_t>> TasksWriting(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("SELECT id FROM views WHERE dataset_id = ? AND kind = "
                                            "? ORDER BY id",
                                            {dataset_id, kKindTask}));
  std::vector<int64_t> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(int64_t id, r.Int64(0));
    out.push_back(id);
  }
  return out;
}

}  // namespace tarn::views_store

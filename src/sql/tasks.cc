// Client::CreateTask and Client::RunTask (include/tarn/client.h), and the runs of task jobs:
// the task's SQL is bound (creation) or run (a run) here, in this process's DuckDB; the
// definition, declaration, trigger and last run are the catalog's (Client::RegisterTask,
// RecordTaskRun). docs/design/tasks.md.
#include <algorithm>
#include <cctype>
#include <set>

#include "catalog/error_codes.h"
#include "sql/engine.h"
#include "sql/error_codes.h"
#include "sql/into.h"
#include "sql/runs.h"
#include "tarn/client.h"

namespace tarn {

namespace {

Status InvalidTask(const std::string& field, const std::string& message) {
  return Status::Of(codes::kInvalidTask, message).WithField("field", field);
}

// `INSERT INTO w.c.d <query>` (keywords in any case, a plain or "quoted" dotted name) as the
// target and the query; nullopt when the text does not start with INSERT.
Result<std::optional<std::pair<std::string, std::string>>> SplitInsert(const std::string& sql) {
  using Split = std::optional<std::pair<std::string, std::string>>;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) ++i;
  };
  auto keyword = [&](std::string_view word) {
    skip_space();
    if (sql.size() - i < word.size()) return false;
    for (size_t k = 0; k < word.size(); ++k) {
      if (std::toupper(static_cast<unsigned char>(sql[i + k])) != word[k]) return false;
    }
    const size_t end = i + word.size();
    if (end < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[end])) || sql[end] == '_'))
      return false;
    i = end;
    return true;
  };
  if (!keyword("INSERT")) return Split();
  if (!keyword("INTO")) {
    return InvalidTask("sql", "a task's INSERT is INSERT INTO w.c.d SELECT ...");
  }
  skip_space();
  std::string name;
  while (i < sql.size() && !std::isspace(static_cast<unsigned char>(sql[i])) && sql[i] != '(') {
    if (sql[i] != '"') name += sql[i];
    ++i;
  }
  skip_space();
  if (i < sql.size() && sql[i] == '(') {
    return InvalidTask("sql",
                       "a task's INSERT INTO names no columns: its query's column names match "
                       "the target's");
  }
  if (name.empty() || i >= sql.size()) {
    return InvalidTask("sql", "a task's INSERT is INSERT INTO w.c.d SELECT ...");
  }
  return Split(std::make_pair(name, sql.substr(i)));
}

// A windowed run's window (docs/design/tasks.md "Windows"): the job's, or (the task's window
// end, the source's head); the snapshot it starts after must still be there and the source's
// history must continue it.
Result<QueryWindow> WindowOf(Client& client, const TaskInfo& task, const TaskRunOptions& o) {
  const std::string& source = task.definition.window_source;
  QueryWindow w;
  w.source = source;
  w.after = o.window_after.value_or(task.window_end);
  int64_t to = 0;
  if (o.window_to) {
    to = *o.window_to;
  } else {
    TARN_ASSIGN_OR_RETURN(auto ds, client.LoadDataset(source));
    to = ds.current_snapshot_id.value_or(0);
  }
  auto stop = [&](const ErrorCode& code, const std::string& why) {
    return Status::Of(code, "task " + task.name.ToString() + "'s window on " + source +
                                " starts after snapshot " + std::to_string(w.after) + ": " + why)
        .WithField("dataset", source)
        .WithField("snapshot_id", std::to_string(w.after));
  };
  if (w.after > 0) {
    SnapshotSelector at;
    at.snapshot_id = w.after;
    auto snap = client.GetSnapshot(source, at);
    if (snap.status().Is(codes::kSnapshotExpired)) {
      return stop(codes::kWindowSuperseded,
                  "that snapshot was expired, so which rows came after it cannot be told; "
                  "replace the task to start its window again");
    }
    if (snap.status().Is(codes::kSnapshotNotFound)) {
      return stop(codes::kWindowGap, "the source has no such snapshot (it was recreated)");
    }
    TARN_RETURN_NOT_OK(snap.status());
  }
  if (to < w.after) {
    return stop(codes::kWindowGap, "the source's head is snapshot " + std::to_string(to) +
                                       ", behind it (rolled back)");
  }
  if (to > 0) w.to = to;
  return w;
}

}  // namespace

Result<TaskInfo> Client::CreateTask(std::string_view qualified, const TaskDefinition& given,
                                    bool replace) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TaskDefinition def = given;
  TARN_ASSIGN_OR_RETURN(auto split, SplitInsert(def.sql));
  if (split) {
    if (!def.target.empty()) {
      return InvalidTask("target", "give the target in INSERT INTO or as the target, not both");
    }
    if (def.mode != kTaskAppend) {
      return InvalidTask("mode", "INSERT INTO appends; overwrite takes a query and a target");
    }
    def.target = split->first;
    def.sql = split->second;
  }
  TARN_RETURN_NOT_OK(ValidateTaskDefinition(def));
  TARN_ASSIGN_OR_RETURN(auto target, ParseDatasetName(def.target));
  def.target = target.ToString();
  if (def.dialect != kDuckDbDialect) {
    return Status::Of(codes::kUnsupportedDialect, "task '" + n.ToString() + "' is written in " +
                                                      def.dialect + "; tarn runs dialect duckdb")
        .WithField("view", n.ToString())
        .WithField("dialect", def.dialect);
  }
  QueryOptions bind;
  if (!def.window_source.empty()) {
    TARN_ASSIGN_OR_RETURN(auto w, ParseDatasetName(def.window_source));
    def.window_source = w.ToString();
    bind.window = QueryWindow{def.window_source, 0, std::nullopt};
  }
  // A query naming tarn_window without a window source is window_unbound here, at arming.
  TARN_ASSIGN_OR_RETURN(auto bound, sql::BindQuery(*this, def.sql, bind));
  std::set<std::string> reads;
  for (const auto& r : bound.reads) reads.insert(r.dataset);
  return RegisterTask(n.ToString(), def, std::vector<std::string>(reads.begin(), reads.end()),
                      replace);
}

Result<TaskRunResult> Client::RunTask(std::string_view qualified, const TaskRunOptions& options) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  const std::string name = n.ToString();
  if (options.author.empty()) return Status::Of(codes::kAuthorRequired, "a run needs an author");
  TARN_ASSIGN_OR_RETURN(auto task, GetTask(name));
  TaskRunResult out;
  out.record.job_id = options.job_id;
  auto finish = [&](Status st) -> Result<TaskRunResult> {
    if (st.ok()) {
      out.record.status = kRefreshSucceeded;
    } else {
      out.record.status = sql::RunStatusOf(st);
      out.record.error = st.ToString().substr(0, 4000);
    }
    Status recorded = RecordTaskRun(name, out.record);
    if (!st.ok()) return st;
    TARN_RETURN_NOT_OK(recorded);
    return out;
  };
  if (task.definition.dialect != kDuckDbDialect) {
    return finish(Status::Of(codes::kUnsupportedDialect, "task '" + name + "' is written in " +
                                                             task.definition.dialect +
                                                             "; tarn runs dialect duckdb"));
  }
  QueryOptions query = options.query;
  std::optional<int64_t> window_to;
  if (!task.definition.window_source.empty()) {
    auto window = WindowOf(*this, task, options);
    if (!window.ok()) return finish(window.status());
    window_to = window->to.value_or(0);
    // The source read by name is read at the window's end too: a run never reads past it.
    if (window->to) query.pinned_snapshots[window->source] = *window->to;
    query.window = std::move(*window);
  }
  QueryIntoOptions into;
  into.target = task.definition.target;
  into.mode =
      task.definition.mode == kTaskOverwrite ? QueryIntoMode::kOverwrite : QueryIntoMode::kAppend;
  into.meta.author = options.author;
  into.meta.message =
      "task " + name + (options.job_id.empty() ? " run" : " run (job " + options.job_id + ")");
  if (!options.job_id.empty()) into.meta.idempotency_key = "task:" + options.job_id;
  into.produced_by = "task:" + name;
  auto ran = QueryInto(task.definition.sql, query, into);
  if (!ran.ok()) return finish(ran.status());
  out.rows = ran->query.rows;
  out.record.sources = ran->query.reads;
  out.record.window_to = window_to;
  if (ran->snapshot) {
    out.snapshot = ran->snapshot;
    out.record.snapshot_id = ran->snapshot->snapshot_id;
  }
  return finish(Status::OK());
}

namespace sql {

JobOutcome RunTaskJob(Client& client, const JobInfo& job) {
  JobOutcome out;
  TaskRunOptions options;
  options.job_id = job.id;
  options.author = job.fired_by;
  auto task = client.GetTask(job.target);
  if (!task.ok()) {
    out.state = RunStatusOf(task.status());
    out.error = task.status().ToString().substr(0, 4000);
    out.retry = IsRetryable(task.status());
    return out;
  }
  const std::string& window = task->definition.window_source;
  // A windowed task's job recorded its window; a commit-fired run reads the source at the
  // snapshot that fired it (a later commit fires its own run).
  if (!window.empty()) {
    options.window_after = job.from_snapshot;
    options.window_to = job.to_snapshot;
  }
  if (!job.source.empty() && job.to_snapshot > 0 && (window.empty() || job.source == window)) {
    options.query.pinned_snapshots[job.source] = job.to_snapshot;
  }
  auto ran = client.RunTask(job.target, options);
  if (!ran.ok()) {
    out.state = RunStatusOf(ran.status());
    out.error = ran.status().ToString().substr(0, 4000);
    out.retry = IsRetryable(ran.status());
    return out;
  }
  out.state = kRefreshSucceeded;
  if (ran->snapshot) out.snapshot = ran->snapshot->snapshot_id;
  return out;
}

JobOutcome RunJob(Client& client, const JobInfo& job) {
  if (job.kind == kJobKindTask) return RunTaskJob(client, job);
  if (job.kind == kJobKindRefresh) return RunRefreshJob(client, job);
  JobOutcome out;
  out.state = kRefreshFailed;
  out.error = "job " + job.id + " is of kind '" + job.kind + "', which this runner does not know";
  return out;
}

}  // namespace sql

}  // namespace tarn

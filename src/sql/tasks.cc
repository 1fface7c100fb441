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
  TARN_ASSIGN_OR_RETURN(auto bound, sql::BindQuery(*this, def.sql, QueryOptions{}));
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
  QueryIntoOptions into;
  into.target = task.definition.target;
  into.mode =
      task.definition.mode == kTaskOverwrite ? QueryIntoMode::kOverwrite : QueryIntoMode::kAppend;
  into.meta.author = options.author;
  into.meta.message =
      "task " + name + (options.job_id.empty() ? " run" : " run (job " + options.job_id + ")");
  if (!options.job_id.empty()) into.meta.idempotency_key = "task:" + options.job_id;
  into.produced_by = "task:" + name;
  auto ran = QueryInto(task.definition.sql, options.query, into);
  if (!ran.ok()) return finish(ran.status());
  out.rows = ran->query.rows;
  out.record.sources = ran->query.reads;
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
  // A commit-fired run reads the source at the snapshot that fired it (a later commit fires
  // its own run).
  if (!job.source.empty() && job.to_snapshot > 0) {
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

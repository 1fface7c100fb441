// Tasks (V3; docs/design/tasks.md): a named statement that writes one dataset, stored as a
// views row of kind task (its SQL versioned like a view's, its declaration in view_sources)
// with its tasks row (how it writes, its one trigger, whose rights its runs have, the last
// run). A commit trigger is a triggers row like a materialized view's refresh trigger, so a
// commit fires it the same way (jobs.cc); a signal records a job here; running the SQL is the
// SQL engine's (src/sql/tasks.cc).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "alerts/alerts.h"
#include "catalog/access_store.h"
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/views_store.h"
#include "common/random.h"
#include "schedule/schedule.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

Status TaskNotFound(const DatasetName& n) {
  return Status::Of(codes::kTaskNotFound, "task '" + n.ToString() + "' does not exist")
      .WithField("task", n.ToString());
}

Status Invalid(const std::string& field, const std::string& message) {
  return Status::Of(codes::kInvalidTask, message).WithField("field", field);
}

// The name of the commit trigger a task puts on its source.
std::string TaskTriggerName(const DatasetName& task) {
  return "task__" + task.collection + "__" + task.dataset;
}

// The task `n`: its views row id and everything about it.
Result<std::pair<int64_t, TaskInfo>> LoadTaskNamed(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(int64_t coll, CollectionId(tx, CollectionName{n.workspace, n.collection}));
  TARN_ASSIGN_OR_RETURN(auto row, views_store::FindView(tx, coll, n.dataset));
  if (!row || row->kind != views_store::kKindTask) return TaskNotFound(n);
  TaskInfo out;
  TARN_ASSIGN_OR_RETURN(bool found, views_store::LoadTask(tx, row->id, &out));
  if (!found) return Status::Corruption("task '" + n.ToString() + "' has no tasks row");
  return std::make_pair(row->id, std::move(out));
}

Status Cycle(const std::string& source, const DatasetName& task, const std::string& target) {
  return Status::Of(codes::kTriggerCycle,
                    "a commit trigger on '" + source + "' running task '" + task.ToString() +
                        "' would close a circle in the trigger graph (the task writes '" + target +
                        "', which feeds '" + source + "')")
      .WithField("dataset", source)
      .WithField("view", task.ToString());
}

}  // namespace

namespace catalog_internal {

Result<int64_t> NextScheduledRun(const std::string& schedule, const std::string& time_zone,
                                 int64_t after_us) {
  return schedule::NextDue(schedule, time_zone, after_us);
}

Status SetJobWindow(Transaction& tx, int64_t task_view_id, JobInfo* job) {
  TARN_ASSIGN_OR_RETURN(auto window, views_store::WindowOf(tx, task_view_id));
  if (!window) return Status::OK();
  job->from_snapshot = window->after;
  job->to_snapshot = window->to;
  return Status::OK();
}

}  // namespace catalog_internal

Result<TaskInfo> Catalog::RegisterTask(std::string_view qualified, const TaskDefinition& def,
                                       const std::vector<std::string>& reads, bool replace) {
  return RegisterTask(qualified, def, reads, replace, actor());
}

Result<TaskInfo> Catalog::RegisterTask(std::string_view qualified, const TaskDefinition& def,
                                       const std::vector<std::string>& reads, bool replace,
                                       std::string_view author) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(ValidateTaskDefinition(def));
  if (author.empty()) return Status::Of(codes::kAuthorRequired, "a task needs an author");
  if (reads.size() > 10000) return Invalid("reads", "a task's SQL reads at most 10000 datasets");
  TARN_ASSIGN_OR_RETURN(auto target_name, ParseDatasetName(def.target));
  std::vector<DatasetName> read_names;
  for (const auto& r : reads) {
    TARN_ASSIGN_OR_RETURN(auto rn, ParseDatasetName(r));
    read_names.push_back(std::move(rn));
  }
  std::optional<DatasetName> on;
  if (!def.on.empty()) {
    TARN_ASSIGN_OR_RETURN(auto parsed, ParseDatasetName(def.on));
    on = std::move(parsed);
  }
  std::optional<DatasetName> window;
  if (!def.window_source.empty()) {
    TARN_ASSIGN_OR_RETURN(auto parsed, ParseDatasetName(def.window_source));
    window = std::move(parsed);
  }
  const std::string runs_as = def.runs_as.empty() ? std::string(author) : def.runs_as;
  std::string time_zone;
  std::optional<int64_t> next_due;
  if (def.trigger == kTaskTriggerSchedule) {
    time_zone = def.time_zone.empty() ? "UTC" : def.time_zone;
    TARN_ASSIGN_OR_RETURN(int64_t due,
                          NextScheduledRun(def.schedule, time_zone, clock_->NowMicros()));
    next_due = due;
  }
  int64_t view_id = 0;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(int64_t coll,
                          CollectionId(tx, CollectionName{n.workspace, n.collection}));
    TARN_ASSIGN_OR_RETURN(auto target, LoadLiveDataset(tx, target_name));
    // The name: free, or this task's own (replace).
    TARN_ASSIGN_OR_RETURN(auto existing, views_store::FindView(tx, coll, n.dataset));
    if (existing && existing->kind == views_store::kKindView) {
      return Status::Of(codes::kViewExists, "a view named '" + n.ToString() + "' exists")
          .WithField("view", n.ToString());
    }
    if (existing && existing->kind == views_store::kKindMaterialized) {
      return Status::Of(codes::kMaterializedViewExists,
                        "a materialized view named '" + n.ToString() + "' exists")
          .WithField("view", n.ToString());
    }
    if (existing && !replace) {
      return Status::Of(codes::kTaskExists, "task '" + n.ToString() + "' already exists")
          .WithField("task", n.ToString());
    }
    if (!existing) {
      TARN_ASSIGN_OR_RETURN(bool taken, views_store::LiveDatasetNamed(tx, coll, n.dataset));
      if (taken) {
        return Status::Of(codes::kDatasetExists, "a dataset named '" + n.ToString() + "' exists")
            .WithField("dataset", n.ToString());
      }
    }
    // Whose rights the runs have: the author, a local user embedded, or a client that exists
    // and is not revoked (checked again when each run's token is minted).
    const bool local = local_actor().has_value() && runs_as.rfind("local:", 0) == 0;
    if (runs_as != author && !local) {
      TARN_ASSIGN_OR_RETURN(auto revoked, access_store::ClientRevoked(tx, runs_as));
      if (!revoked) {
        return Status::Of(codes::kTokenNotFound, "runs_as names no client: '" + runs_as + "'")
            .WithField("client_id", runs_as);
      }
      if (*revoked) return Invalid("runs_as", "runs_as names a revoked client: '" + runs_as + "'");
    }
    // The declaration.
    std::vector<int64_t> read_ids;
    for (const auto& rn : read_names) {
      TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, rn));
      if (std::find(read_ids.begin(), read_ids.end(), ds.id) == read_ids.end()) {
        read_ids.push_back(ds.id);
      }
    }
    // The trigger's source, and the graph: the target must not feed it.
    std::optional<int64_t> source_id;
    if (on) {
      TARN_ASSIGN_OR_RETURN(auto src, LoadLiveDataset(tx, *on));
      if (src.id == target.id) return Cycle(on->ToString(), n, target_name.ToString());
      TARN_ASSIGN_OR_RETURN(bool loops, views_store::GraphReaches(tx, target.id, src.id));
      if (loops) return Cycle(on->ToString(), n, target_name.ToString());
      source_id = src.id;
    }
    // The window source, and where the window stands: kept across a replace that keeps the
    // source, from the start (0) otherwise.
    std::optional<int64_t> window_id;
    int64_t window_end = 0;
    if (window) {
      TARN_ASSIGN_OR_RETURN(auto src, LoadLiveDataset(tx, *window));
      window_id = src.id;
      if (existing && existing->kind == views_store::kKindTask) {
        TaskInfo before;
        TARN_ASSIGN_OR_RETURN(bool found, views_store::LoadTask(tx, existing->id, &before));
        if (found && before.definition.window_source == window->ToString()) {
          window_end = before.window_end;
        }
      }
    }
    const int64_t now = clock_->NowMicros();
    ViewDefinition sql;
    sql.sql = def.sql;
    sql.dialect = def.dialect;
    sql.description = def.description;
    std::optional<int64_t> kept_floor = kDefaultTriggerIntervalS;
    if (existing) {
      view_id = existing->id;
      TARN_RETURN_NOT_OK(views_store::InsertVersion(tx, view_id, existing->info.current.version + 1,
                                                    sql, author, now));
      TARN_ASSIGN_OR_RETURN(auto old, views_store::TriggersTargeting(tx, view_id));
      for (const auto& t : old) {
        if (source_id && t.dataset_id == *source_id) kept_floor = t.info.minimum_interval_s;
        TARN_RETURN_NOT_OK(views_store::DeleteTrigger(tx, t.id));
      }
      TARN_RETURN_NOT_OK(views_store::SetViewDataset(tx, view_id, target.id));
    } else {
      TARN_ASSIGN_OR_RETURN(
          view_id, views_store::InsertView(tx, coll, n.dataset, views_store::kKindTask, target.id,
                                           author, now));
      TARN_RETURN_NOT_OK(views_store::InsertVersion(tx, view_id, 1, sql, author, now));
    }
    TARN_RETURN_NOT_OK(views_store::SetSources(tx, view_id, read_ids));
    views_store::TaskRow row;
    row.view_id = view_id;
    row.mode = def.mode;
    row.trigger_kind = def.trigger;
    row.source_id = source_id;
    row.schedule = def.schedule;
    row.time_zone = time_zone;
    row.next_due_at_us = next_due;
    row.runs_as = runs_as;
    row.window_source_id = window_id;
    row.window_end = window_end;
    TARN_RETURN_NOT_OK(views_store::UpsertTask(tx, row));
    if (source_id) {
      TARN_RETURN_NOT_OK(views_store::InsertTrigger(tx, *source_id, TaskTriggerName(n), view_id,
                                                    kept_floor, author, now, kTaskTriggerKind));
    }
    return Status::OK();
  }));
  return GetTask(qualified);
}

Result<TaskInfo> Catalog::GetTask(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TaskInfo out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto loaded, LoadTaskNamed(tx, n));
        out = std::move(loaded.second);
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<std::vector<TaskInfo>> Catalog::ListTasks(std::string_view collection) {
  TARN_ASSIGN_OR_RETURN(auto cn, ParseCollectionName(collection));
  std::vector<TaskInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(int64_t coll, CollectionId(tx, cn));
        TARN_ASSIGN_OR_RETURN(out, views_store::ListTasks(tx, coll));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::DropTask(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto loaded, LoadTaskNamed(tx, n));
    return views_store::DeleteTask(tx, loaded.first);
  });
}

Result<JobInfo> Catalog::SignalTask(std::string_view qualified) {
  return SignalTask(qualified, actor());
}

Result<JobInfo> Catalog::SignalTask(std::string_view qualified, std::string_view fired_by) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  if (fired_by.empty()) return Status::Of(codes::kAuthorRequired, "a signal needs its sender");
  JobInfo job;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto loaded, LoadTaskNamed(tx, n));
    const TaskInfo& task = loaded.second;
    if (task.definition.trigger != kTaskTriggerSignal) {
      return Status::Of(codes::kTaskNotSignalled,
                        "task '" + n.ToString() + "' runs on its " + task.definition.trigger +
                            " trigger, not on a signal (tarn task run runs it by hand)")
          .WithField("task", n.ToString())
          .WithField("trigger", task.definition.trigger);
    }
    const int64_t now = clock_->NowMicros();
    job = NewJob(n.workspace, kTaskTriggerSignal, n.ToString(), std::string(fired_by), now);
    job.kind = kJobKindTask;
    job.runs_as = task.definition.runs_as;
    TARN_RETURN_NOT_OK(SetJobWindow(tx, loaded.first, &job));
    return views_store::InsertJob(tx, job);
  }));
  return job;
}

Result<std::vector<JobInfo>> Catalog::FireDueSchedules(int64_t limit) {
  if (limit < 1 || limit > 10000) {
    return Status::InvalidArgument("a schedule tick fires 1 to 10000 slots");
  }
  std::vector<JobInfo> fired;
  std::vector<std::pair<std::string, Status>> broken;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    fired.clear();
    broken.clear();
    const int64_t now = clock_->NowMicros();
    TARN_ASSIGN_OR_RETURN(auto due, views_store::DueTasks(tx, now, limit));
    std::vector<AuditRecord> audit;
    for (const auto& t : due) {
      // The next slot after now: slots missed while no server ticked fire once, not once each.
      auto next = NextScheduledRun(t.schedule, t.time_zone, now);
      std::optional<int64_t> next_due;
      if (next.ok()) {
        next_due = *next;
      } else {
        broken.emplace_back(t.name, next.status());
      }
      TARN_ASSIGN_OR_RETURN(bool claimed,
                            views_store::AdvanceSchedule(tx, t.view_id, t.due_at_us, next_due));
      if (!claimed) continue;  // another tick fired this slot
      JobInfo job = NewJob(t.workspace, kTaskTriggerSchedule, t.name, kScheduleActor, now);
      job.kind = kJobKindTask;
      job.runs_as = t.runs_as;
      TARN_RETURN_NOT_OK(SetJobWindow(tx, t.view_id, &job));
      TARN_RETURN_NOT_OK(views_store::InsertJob(tx, job));
      AuditRecord a;
      a.at_us = now;
      a.actor = kScheduleActor;
      a.action = "trigger.fired";
      a.target = t.name + "#schedule";
      a.workspace = t.workspace;
      a.outcome = "ok";
      a.detail_json =
          nlohmann::json{{"job", job.id}, {"task", t.name}, {"slot_us", t.due_at_us}}.dump();
      audit.push_back(std::move(a));
      fired.push_back(std::move(job));
    }
    return access_store::InsertAuditRows(tx, audit);
  }));
  // A schedule that can no longer be computed (its zone went from the zone data) stops firing:
  // a platform inconsistency, alerted; replacing the task sets it again.
  for (const auto& [name, st] : broken) {
    alerts::Alert alert;
    alert.code = "schedule_broken";
    alert.severity = alerts::Severity::kError;
    alert.object = name;
    alert.summary = "the schedule of task " + name +
                    " cannot be computed any more: " + st.message() +
                    "; it fires no more until the task is replaced";
    alert.detail = {{"error", st.ToString()}};
    alerter().Raise(alert);
  }
  return fired;
}

Status Catalog::RecordTaskRun(std::string_view qualified, const RefreshRecord& record) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  static const std::set<std::string> kStatuses = {kRefreshSucceeded, kRefreshFailed, kRefreshDenied,
                                                  kRefreshEgressBlocked};
  if (!kStatuses.count(record.status)) {
    return Status::InvalidArgument("a task run's status '" + record.status.substr(0, 40) +
                                   "' is not one of succeeded, failed, denied, egress_blocked");
  }
  if (record.error.size() > 8192 || record.job_id.size() > 200) {
    return Status::InvalidArgument("a run's error or job id is too long");
  }
  const bool blocked = record.status == kRefreshEgressBlocked;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto loaded, LoadTaskNamed(tx, n));
    const int64_t now = clock_->NowMicros();
    TARN_RETURN_NOT_OK(views_store::SetTaskRun(tx, loaded.first, record, now));
    // A windowed run that succeeded moves the window on; any other outcome leaves it, so the
    // next run covers this one's rows too.
    if (record.status == kRefreshSucceeded && record.window_to &&
        !loaded.second.definition.window_source.empty()) {
      TARN_RETURN_NOT_OK(views_store::AdvanceWindow(tx, loaded.first, *record.window_to));
    }
    if (!blocked) return Status::OK();
    std::string actor = loaded.second.definition.runs_as;
    return access_store::InsertAuditRows(
        tx, {EgressBlockedAudit("task.run_egress_blocked", n.ToString(), record, actor, now)});
  }));
  if (blocked) ReportEgressBlocked(&alerter(), n.ToString(), record);
  return Status::OK();
}

}  // namespace tarn

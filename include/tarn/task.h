// Tasks (docs/features.md V3; docs/design/tasks.md): a named statement stored in the catalog
// under `workspace.collection.name` that writes the rows of a query into one dataset, run by
// its one trigger (a commit on a source dataset, a signal, a schedule). Each run is a job (the
// jobs of tarn/view.h, kind "task") and commits with the receipt `produced_by task:<name>`.
// The value types of the task API; the operations are members of tarn::Client.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tarn/view.h"

namespace tarn {

// A task's trigger kinds: a commit on `on` (as a materialized view's refresh trigger), a
// signal (Client::SignalTask: `tarn task signal`, POST .../signal), a schedule (five-field
// cron in an IANA time zone).
inline constexpr char kTaskTriggerCommit[] = "commit";
inline constexpr char kTaskTriggerSignal[] = "signal";
inline constexpr char kTaskTriggerSchedule[] = "schedule";
// How a run writes its rows into the target: appended, or replacing the target's rows.
inline constexpr char kTaskAppend[] = "append";
inline constexpr char kTaskOverwrite[] = "overwrite";
// The kind of the jobs a task's trigger records (JobInfo::kind); a refresh's is "refresh".
inline constexpr char kJobKindTask[] = "task";
inline constexpr char kJobKindRefresh[] = "refresh";
// The fired_by of a job a schedule's slot recorded.
inline constexpr char kScheduleActor[] = "schedule";
// The kind of a task's commit trigger (TriggerInfo::kind), named "task__<collection>__<task>".
inline constexpr char kTaskTriggerKind[] = "task_run";

struct TaskDefinition {
  // The query whose rows a run writes (SELECT, WITH, ...); or, with `target` empty,
  // `INSERT INTO w.c.d <query>` (Client::CreateTask splits it: target w.c.d, mode append).
  std::string sql;
  std::string dialect = kDuckDbDialect;
  std::string description;
  std::string target;              // the dataset a run writes (qualified; it must exist)
  std::string mode = kTaskAppend;  // kTaskAppend or kTaskOverwrite
  std::string trigger;             // kTaskTrigger*: required
  std::string on;                  // commit: the dataset whose commits fire it (qualified)
  std::string schedule;            // schedule: "0 * * * *"
  std::string time_zone;           // schedule: an IANA name ("Europe/London"); empty: UTC
  // The client id whose rights a run has (the job token is minted for it at fire time, when
  // it must still exist and not be revoked). Empty: the creator. Only an owner of the task's
  // workspace creates or replaces a task, so only an owner chooses it.
  std::string runs_as;
  // A windowed task: the dataset whose new rows each run sees as the relation `tarn_window`
  // (the rows committed after the last successful run's window end, up to the source's head
  // at fire time). Empty: the SQL may not name tarn_window (window_unbound).
  std::string window_source;
};

// Checks a definition on its own (the catalog checks the names against what exists, and the
// schedule and time zone against the zone data): the SQL (as a view's), a target name, the
// mode, the trigger with exactly its own fields (commit: `on`; schedule: `schedule`, optional
// `time_zone`; signal: none), a runs_as of at most 200 printable bytes. kInvalidArgument
// (code=invalid_task, field=the field at fault; the SQL's invalid_view_sql) otherwise.
Status ValidateTaskDefinition(const TaskDefinition& def);

// A task and the last run that ended.
struct TaskInfo {
  DatasetName name;           // workspace, collection and the task's name (in `dataset`)
  int64_t version = 0;        // of the statement: 1, then one more per replace
  TaskDefinition definition;  // the current version's (target always set)
  // The declaration: every dataset the SQL reads (through views), derived from the SQL at each
  // create or replace (qualified names, sorted). Receipts of its runs are checked against it.
  std::vector<std::string> reads;
  std::string created_by;
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  std::optional<int64_t> next_due_at_us;  // schedule: the next slot
  // A windowed task: the snapshot of its window source its last successful run covered
  // through (0: none yet; the first run sees every row).
  int64_t window_end = 0;
  // The last run that ended: succeeded, failed, denied, egress_blocked; empty: none yet.
  std::string last_run_status;
  std::optional<int64_t> last_run_at_us;
  std::string last_run_job;
  std::string last_run_error;
  std::optional<int64_t> last_run_snapshot_id;  // the target's snapshot it committed
};

// Client::RunTask's options (a job's runner, or `tarn task run` by hand).
struct TaskRunOptions {
  std::string job_id;  // the idempotency key of the run's commit, when a job runs it
  std::string author;  // of that commit (required)
  QueryOptions query;  // query.pinned_snapshots: a commit-fired run reads its source there
  // A windowed task's window as its job recorded it (after, to]; unset: (the task's window
  // end, the source's current snapshot).
  std::optional<int64_t> window_after, window_to;
};

struct TaskRunResult {
  RefreshRecord record;  // status, job, error, snapshot_id; sources: what the run read
  std::optional<SnapshotInfo> snapshot;
  int64_t rows = 0;
};

}  // namespace tarn

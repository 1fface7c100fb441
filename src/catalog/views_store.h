// The tables of views (migration 7: `views`, `view_versions`) and every statement on them.
// Internal to the catalog module; views.cc is the domain over them (docs/design/views.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metastore/metastore.h"
#include "tarn/task.h"
#include "tarn/view.h"

namespace tarn::views_store {

// Migration 7, contributed to SchemaMigrations().
const std::vector<Migration>& ViewTables();

// What a views row is: a plain view, or the definition of a materialized view (whose rows
// and snapshots are its dataset's, `dataset_id`).
inline constexpr char kKindView[] = "view";
inline constexpr char kKindMaterialized[] = "materialized_view";
inline constexpr char kKindTask[] = "task";

struct ViewRow {
  int64_t id = 0;
  std::string kind;
  std::optional<int64_t> dataset_id;
  ViewInfo info;  // without `current` (LoadVersion fills it)
};

// The view `name` of the collection, of any kind; nullopt when there is none.
Result<std::optional<ViewRow>> FindView(Transaction& tx, int64_t collection_id,
                                        std::string_view name);
// Whether the collection has a live dataset of that name.
Result<bool> LiveDatasetNamed(Transaction& tx, int64_t collection_id, std::string_view name);
// How many views (of any kind) the collection holds.
Result<int64_t> CountViews(Transaction& tx, int64_t collection_id);

// Inserts a view row with version 1 and returns its id (the caller checked the name is free).
Result<int64_t> InsertView(Transaction& tx, int64_t collection_id, std::string_view name,
                           std::string_view kind, std::optional<int64_t> dataset_id,
                           std::string_view author, int64_t now_us);
// Stores statement `version` of the view and makes it the current one.
Status InsertVersion(Transaction& tx, int64_t view_id, int64_t version, const ViewDefinition& def,
                     std::string_view author, int64_t now_us);
// Statement `version` of a view; nullopt when it has no such version.
Result<std::optional<ViewVersion>> LoadVersion(Transaction& tx, int64_t view_id, int64_t version);
// Every version of a view, oldest first.
Result<std::vector<ViewVersion>> ListVersions(Transaction& tx, int64_t view_id);
// The views of a collection of `kind`, by name, each with its current statement.
Result<std::vector<ViewInfo>> ListViews(Transaction& tx, int64_t collection_id,
                                        std::string_view kind);
// Deletes a view and its versions.
Status DeleteView(Transaction& tx, int64_t view_id);
// Records a run: when, the rows and the wall time.
Status RecordRun(Transaction& tx, int64_t view_id, int64_t at_us, int64_t row_count,
                 int64_t micros);

// ---- materialized views (migration 8) ----

// The materialized view whose dataset is `dataset_id`; nullopt when it is none.
Result<std::optional<ViewRow>> FindViewOfDataset(Transaction& tx, int64_t dataset_id);
// The refresh state and sources of a materialized view row (its `view` part filled by the
// caller), with its triggers.
Status LoadMaterialized(Transaction& tx, const ViewRow& row, MaterializedViewInfo* out);
// The materialized views of a collection, by name (each fully loaded).
Result<std::vector<MaterializedViewInfo>> ListMaterialized(Transaction& tx, int64_t collection_id);
// Replaces the sources of a view.
Status SetSources(Transaction& tx, int64_t view_id, const std::vector<int64_t>& dataset_ids);
// Stores a refresh's outcome.
Status SetRefresh(Transaction& tx, int64_t view_id, const RefreshRecord& r, int64_t now_us);
// What the view's SQL allows (kRefreshFull, kRefreshIncremental); forgets how the last refresh
// ran, so the next one recomputes (the data may be of an earlier SQL version).
Status SetRefreshKind(Transaction& tx, int64_t view_id, std::string_view kind);
// Deletes a materialized view's definition: its triggers, sources, versions and row.
Status DeleteMaterialized(Transaction& tx, int64_t view_id);
// Removes `dataset_id` from every view's sources (the dataset goes).
Status ForgetSource(Transaction& tx, int64_t dataset_id);

// ---- triggers ----

struct TriggerRow {
  int64_t id = 0;
  int64_t dataset_id = 0;
  int64_t target_view_id = 0;
  TriggerInfo info;
};
// The triggers on a dataset (as the source), by name.
Result<std::vector<TriggerRow>> TriggersOn(Transaction& tx, int64_t dataset_id);
// The triggers that refresh a view.
Result<std::vector<TriggerRow>> TriggersTargeting(Transaction& tx, int64_t view_id);
// Inserting and deleting triggers keeps datasets.trigger_count right.
Status InsertTrigger(Transaction& tx, int64_t dataset_id, std::string_view name,
                     int64_t target_view_id, std::optional<int64_t> min_interval_s,
                     std::string_view author, int64_t now_us,
                     std::string_view kind = kRefreshTriggerKind);
Status DeleteTrigger(Transaction& tx, int64_t trigger_id);
// Deletes every trigger on a dataset (it goes).
Status DeleteTriggersOn(Transaction& tx, int64_t dataset_id);
// Sets a trigger's floor; false when the dataset has no trigger of that name.
Result<bool> SetTriggerInterval(Transaction& tx, int64_t dataset_id, std::string_view name,
                                std::optional<int64_t> seconds);
// Whether the trigger graph leads from dataset `from` to dataset `to` (an edge D -> M for
// each trigger on D refreshing the materialized view whose dataset is M).
Result<bool> GraphReaches(Transaction& tx, int64_t from, int64_t to);
// How many triggers sit on a dataset.
Result<int64_t> CountTriggersOn(Transaction& tx, int64_t dataset_id);

// ---- the integrity sweep (fsck.cc) ----

// A trigger row with its ends as they are now (outer joins: any of them may be gone).
struct TriggerEnds {
  int64_t id = 0;
  std::string name;
  int64_t source_id = 0;
  bool source_exists = false, source_live = false;
  std::string source;  // w.c.d of the source dataset row ("" when it is gone)
  int64_t view_id = 0;
  bool view_exists = false;
  std::string view_kind;
  std::optional<int64_t> view_dataset_id;
  bool view_dataset_live = false;  // the view's dataset row exists and is not dropped
  std::string target;              // w.c.name of the view row ("" when it is gone)
  std::string target_dataset;      // w.c.d of the view's dataset row (a task's: its target)
};
// Triggers with id > after_id, by id, at most `limit`.
Result<std::vector<TriggerEnds>> TriggerEndsPage(Transaction& tx, int64_t after_id, int64_t limit);
// The datasets a view declares as its sources (view_sources): (uuid, w.c.d), by name.
Result<std::vector<std::pair<std::string, std::string>>> DeclaredSources(Transaction& tx,
                                                                         int64_t view_id);

// ---- firing and jobs ----

// A trigger on the dataset a commit landed in, as firing reads it.
struct FireCandidate {
  int64_t trigger_id = 0;
  std::string trigger;
  std::string target;     // the view's qualified name
  std::string workspace;  // the target's
  std::string source;     // qualified
  int64_t view_id = 0;
  std::string view_kind;  // kKindMaterialized or kKindTask: what a fire records a job for
  std::string runs_as;    // a task's
};
// The triggers on dataset `dataset_id` (usually none: one indexed read).
Result<std::vector<FireCandidate>> FireCandidates(Transaction& tx, int64_t dataset_id);
// Claims the right to fire for every trigger on the dataset whose floor allows it (no floor,
// or its last claim at least min_interval_s old): stamps last_claimed_at = now in the
// statement that reads it, and marks the others throttled. Returns the claimed triggers' ids
// with their window start (window_from).
Result<std::map<int64_t, int64_t>> ClaimTriggers(Transaction& tx, int64_t dataset_id,
                                                 int64_t now_us);
// After a claim: the window moves to `snapshot_id` (never backwards), the fire is recorded.
Status MarkFired(Transaction& tx, int64_t trigger_id, int64_t snapshot_id, int64_t now_us);
// A commit inside every trigger's floor (now < datasets.trigger_due_at): its triggers marked
// throttled, deferred to the commit's own round trip (nothing is read).
Status MarkThrottledDeferred(Transaction& tx, int64_t dataset_id);
Status InsertJob(Transaction& tx, const JobInfo& job);
Result<std::optional<JobInfo>> LoadJob(Transaction& tx, std::string_view id);
// Newest first; `workspaces` (when not empty) limits them to those.
Result<std::vector<JobInfo>> ListJobs(Transaction& tx, const JobQuery& q);
// Takes the oldest runnable job (queued and due, or running past its lease): running, one
// more attempt, leased until now + lease_us. PostgreSQL skips jobs another claim holds.
Result<std::optional<JobInfo>> ClaimJob(Transaction& tx, MetastoreBackend backend, int64_t now_us,
                                        int64_t lease_us);
// Ends a job (state, error, the snapshot it committed) or puts it back in the queue until
// `retry_at` (state queued).
Status FinishJob(Transaction& tx, std::string_view id, std::string_view state,
                 std::string_view error, std::optional<int64_t> result_snapshot,
                 int64_t retry_at_us, int64_t now_us);
// Deletes the jobs whose purge time passed; how many.
Result<int64_t> PurgeJobs(Transaction& tx, int64_t now_us);

// ---- tasks (migration 13) ----

// A task's row in `tasks` (with its views row's id).
struct TaskRow {
  int64_t view_id = 0;
  std::string mode;
  std::string trigger_kind;
  std::optional<int64_t> source_id;
  std::string schedule;
  std::string time_zone;
  std::optional<int64_t> next_due_at_us;
  std::string runs_as;
  std::optional<int64_t> window_source_id;
  int64_t window_end = 0;
};
// Inserts or replaces the task row of a views row (the last run is kept).
Status UpsertTask(Transaction& tx, const TaskRow& row);
// The task of views row `view_id`, fully loaded into `out` (name and version set by the caller:
// its definition's SQL, target, trigger, declaration and last run); false when it has no row.
Result<bool> LoadTask(Transaction& tx, int64_t view_id, TaskInfo* out);
// The tasks of a collection, by name, each fully loaded.
Result<std::vector<TaskInfo>> ListTasks(Transaction& tx, int64_t collection_id);
// Stores how a run ended.
Status SetTaskRun(Transaction& tx, int64_t view_id, const RefreshRecord& r, int64_t now_us);
// Deletes a task: its triggers, declaration, row, versions and views row.
Status DeleteTask(Transaction& tx, int64_t view_id);
// A schedule task whose slot is due (next_due_at <= now).
struct DueTask {
  int64_t view_id = 0;
  std::string name;       // w.c.t
  std::string workspace;  // the task's
  std::string schedule, time_zone, runs_as;
  int64_t due_at_us = 0;
};
// The schedule tasks due at `now_us`, earliest first, at most `limit` (index tasks_due).
Result<std::vector<DueTask>> DueTasks(Transaction& tx, int64_t now_us, int64_t limit);
// Claims a due slot: moves the task's next due time from `due_us` to `next_us` (nullopt: never
// again) only if it still is `due_us`; false when another tick claimed it first.
Result<bool> AdvanceSchedule(Transaction& tx, int64_t view_id, int64_t due_us,
                             std::optional<int64_t> next_us);
// Points a views row at another dataset (a task replaced with a new target).
Status SetViewDataset(Transaction& tx, int64_t view_id, int64_t dataset_id);
// A windowed task's window as a fire records it: its source (qualified), the window end of the
// last successful run (`after`), and the source's current snapshot (`to`).
struct TaskWindow {
  std::string source;
  int64_t after = 0;
  int64_t to = 0;
};
// The window of task `view_id` now; nullopt when it has no (live) window source.
Result<std::optional<TaskWindow>> WindowOf(Transaction& tx, int64_t view_id);
// Moves a task's window end forward to `to` (never back).
Status AdvanceWindow(Transaction& tx, int64_t view_id, int64_t to);
// Tasks fired by commits on `dataset_id` lose their source (it goes).
Status ForgetTaskSource(Transaction& tx, int64_t dataset_id);
// The tasks that write dataset `dataset_id` (their views rows' ids).
Result<std::vector<int64_t>> TasksWriting(Transaction& tx, int64_t dataset_id);

}  // namespace tarn::views_store

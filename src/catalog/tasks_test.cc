// Tasks on both metastore backends (docs/design/tasks.md): registration (definition, the
// declaration, one trigger of the kind chosen, runs_as), the names they share with views and
// datasets, the trigger graph, a commit firing a task job that carries runs_as, signals, runs
// recorded (an egress block audited and alerted), what dropping the target or the source does,
// schedules' next due time, and the integrity sweep holding task runs' receipts to the
// declaration. Running the SQL is src/sql's and the interop tests'.
#include <atomic>
#include <cstdio>
#include <set>
#include <thread>

#include "alerts/alerts.h"
#include "catalog/error_codes.h"
#include "catalog/test_fixture.h"
#include "common/clock.h"
#include "metastore/metastore.h"
#include "schedule/error_codes.h"

namespace tarn {
namespace {

class TaskSuite : public AlertCapturingTest {
 protected:
  TaskSuite() { clock_ = manual_; }
  void SetUp() override {
    AlertCapturingTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
    for (const char* name : {"w.c.src", "w.c.other", "w.c.dst", "w.c.m"}) {
      DatasetDefinition def;
      def.schema = *Schema::Parse("id INT64");
      ASSERT_TRUE(cat_->CreateDataset(name, def).ok());
    }
  }
  static TaskDefinition Def(const std::string& trigger, const std::string& on = "") {
    TaskDefinition d;
    d.sql = "SELECT id FROM w.c.src";
    d.target = "w.c.dst";
    d.trigger = trigger;
    d.on = on;
    return d;
  }
  Result<TaskInfo> Register(const std::string& name, const TaskDefinition& def,
                            std::vector<std::string> reads = {"w.c.src"}, bool replace = false) {
    return cat_->RegisterTask(name, def, reads, replace, "alice");
  }
  Result<SnapshotInfo> Append(const std::string& ds, const std::string& author = "bob") {
    CommitMeta meta;
    meta.author = author;
    meta.receipt = Receipt{};
    std::vector<RecordBatch> b;
    b.push_back(MakeBatch(*Schema::Parse("id INT64"), {{"1"}, {"2"}}));
    return cat_->Append(ds, b, meta);
  }
  std::vector<JobInfo> Jobs(const std::string& target) {
    JobQuery q;
    q.target = target;
    auto jobs = cat_->ListJobs(q);
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    return jobs.ok() ? *jobs : std::vector<JobInfo>{};
  }
  std::shared_ptr<ManualClock> manual_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kStopped, 1'700'000'000'000'000);
};

TEST_P(TaskSuite, ATaskIsStoredWithItsDeclarationTriggerAndRunsAs) {
  if (!cat_) return;
  auto t = Register("w.c.t", Def(kTaskTriggerSignal), {"w.c.src", "w.c.other", "w.c.src"});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->name.ToString(), "w.c.t");
  EXPECT_EQ(t->version, 1);
  EXPECT_EQ(t->definition.sql, "SELECT id FROM w.c.src");
  EXPECT_EQ(t->definition.target, "w.c.dst");
  EXPECT_EQ(t->definition.mode, kTaskAppend);
  EXPECT_EQ(t->definition.trigger, kTaskTriggerSignal);
  EXPECT_EQ(t->definition.runs_as, "alice");  // the creator by default
  EXPECT_EQ(t->reads, (std::vector<std::string>{"w.c.other", "w.c.src"}));
  EXPECT_EQ(t->created_by, "alice");
  EXPECT_EQ(t->last_run_status, "");
  EXPECT_FALSE(t->next_due_at_us);
  // A signal task puts no trigger on any dataset.
  EXPECT_TRUE(cat_->ListTriggers("w.c.src")->empty());
  auto list = cat_->ListTasks("w.c");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].definition.target, "w.c.dst");
  // Not a view, nor a materialized view.
  EXPECT_TRUE(cat_->GetView("w.c.t").status().Is(codes::kViewNotFound));
  EXPECT_TRUE(cat_->ListViews("w.c")->empty());
  EXPECT_TRUE(cat_->GetTask("w.c.nope").status().Is(codes::kTaskNotFound));

  // Replace: a new version, the declaration and trigger rewritten.
  TaskDefinition d = Def(kTaskTriggerCommit, "w.c.src");
  d.sql = "SELECT id FROM w.c.other";
  d.mode = kTaskOverwrite;
  EXPECT_TRUE(Register("w.c.t", d, {"w.c.other"}).status().Is(codes::kTaskExists));
  auto r = Register("w.c.t", d, {"w.c.other"}, true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 2);
  EXPECT_EQ(r->definition.sql, "SELECT id FROM w.c.other");
  EXPECT_EQ(r->definition.mode, kTaskOverwrite);
  EXPECT_EQ(r->definition.on, "w.c.src");
  EXPECT_EQ(r->reads, (std::vector<std::string>{"w.c.other"}));
  auto triggers = cat_->ListTriggers("w.c.src");
  ASSERT_EQ(triggers->size(), 1u);
  EXPECT_EQ((*triggers)[0].name, "task__c__t");
  EXPECT_EQ((*triggers)[0].kind, kTaskTriggerKind);
  EXPECT_EQ((*triggers)[0].target, "w.c.t");
  EXPECT_EQ((*triggers)[0].minimum_interval_s, kDefaultTriggerIntervalS);
  // Back to a signal: the trigger goes.
  ASSERT_TRUE(Register("w.c.t", Def(kTaskTriggerSignal), {"w.c.src"}, true).ok());
  EXPECT_TRUE(cat_->ListTriggers("w.c.src")->empty());

  ASSERT_OK(cat_->DropTask("w.c.t"));
  EXPECT_TRUE(cat_->GetTask("w.c.t").status().Is(codes::kTaskNotFound));
  EXPECT_TRUE(cat_->DropTask("w.c.t").Is(codes::kTaskNotFound));
}

TEST_P(TaskSuite, DefinitionsThatCannotBeATaskAreRefusedNaming) {
  if (!cat_) return;
  auto field_of = [&](const TaskDefinition& d, std::vector<std::string> reads = {"w.c.src"}) {
    auto r = Register("w.c.t", d, reads);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string("ok")
                  : FieldOf(r.status(), "code") + ":" + FieldOf(r.status(), "field");
  };
  TaskDefinition d = Def(kTaskTriggerCommit);
  EXPECT_EQ(field_of(d), "invalid_task:on");  // commit without a source
  d = Def(kTaskTriggerSignal, "w.c.src");
  EXPECT_EQ(field_of(d), "invalid_task:on");  // a source without a commit trigger
  d = Def("hourly");
  EXPECT_EQ(field_of(d), "invalid_task:trigger");
  d = Def(kTaskTriggerSignal);
  d.mode = "merge";
  EXPECT_EQ(field_of(d), "invalid_task:mode");
  d = Def(kTaskTriggerSignal);
  d.target = "";
  EXPECT_EQ(field_of(d), "invalid_task:target");
  d = Def(kTaskTriggerSignal);
  d.time_zone = "UTC";
  EXPECT_EQ(field_of(d), "invalid_task:time_zone");
  d = Def(kTaskTriggerSchedule);
  EXPECT_EQ(field_of(d), "invalid_task:schedule");
  d = Def(kTaskTriggerSignal);
  d.runs_as = "two words";
  EXPECT_EQ(field_of(d), "invalid_task:runs_as");
  d = Def(kTaskTriggerSignal);
  d.sql = "  ";
  EXPECT_TRUE(Register("w.c.t", d).status().Is(codes::kInvalidViewSql));
  // Names that exist: the target, the source and the reads must be live datasets.
  d = Def(kTaskTriggerSignal);
  d.target = "w.c.gone";
  EXPECT_TRUE(Register("w.c.t", d).status().Is(codes::kDatasetNotFound));
  EXPECT_TRUE(Register("w.c.t", Def(kTaskTriggerSignal), {"w.c.gone"})
                  .status()
                  .Is(codes::kDatasetNotFound));
  EXPECT_TRUE(
      Register("w.c.t", Def(kTaskTriggerCommit, "w.c.gone")).status().Is(codes::kDatasetNotFound));
  // runs_as must name a client (checked again when each run's token is minted).
  d = Def(kTaskTriggerSignal);
  d.runs_as = "tarn_nobody";
  EXPECT_TRUE(Register("w.c.t", d).status().Is(codes::kTokenNotFound));
  AccessTokenSpec spec;
  spec.workspace = "w";
  spec.role = Role::kWriter;
  auto token = cat_->CreateAccessToken(spec);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  d.runs_as = token->info.client_id;
  auto ok = Register("w.c.t", d);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->definition.runs_as, token->info.client_id);
  // Names shared with datasets and views.
  EXPECT_TRUE(Register("w.c.src", Def(kTaskTriggerSignal)).status().Is(codes::kDatasetExists));
  ViewDefinition v;
  v.sql = "SELECT 1";
  ASSERT_TRUE(cat_->CreateView("w.c.v", v, false, "alice").ok());
  EXPECT_TRUE(Register("w.c.v", Def(kTaskTriggerSignal)).status().Is(codes::kViewExists));
  // Nothing of a refusal was written.
  auto list = cat_->ListTasks("w.c");
  ASSERT_EQ(list->size(), 1u);
}

TEST_P(TaskSuite, ATaskCannotCloseACircleInTheTriggerGraph) {
  if (!cat_) return;
  // A task on its own target.
  TaskDefinition d = Def(kTaskTriggerCommit, "w.c.dst");
  EXPECT_TRUE(Register("w.c.t", d).status().Is(codes::kTriggerCycle));
  // src -> (task) -> dst; a materialized view m over dst; a task on m writing src closes it.
  ASSERT_TRUE(Register("w.c.t", Def(kTaskTriggerCommit, "w.c.src")).ok());
  ViewDefinition mv;
  mv.sql = "SELECT * FROM w.c.dst";
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", mv, {"w.c.dst"}, false, kRefreshFull, "a").ok());
  TaskDefinition back = Def(kTaskTriggerCommit, "w.c.m");
  back.target = "w.c.src";
  auto cycle = Register("w.c.back", back, {"w.c.m"});
  EXPECT_TRUE(cycle.status().Is(codes::kTriggerCycle)) << cycle.status().ToString();
  EXPECT_TRUE(cat_->GetTask("w.c.back").status().Is(codes::kTaskNotFound));
  // The same the other way round: a view over dst reading src is fine, one that feeds src no.
  FsckOptions o;
  o.check_objects = false;
  auto report = cat_->Fsck(o);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->findings.empty()) << report->findings[0].detail;
}

TEST_P(TaskSuite, ACommitFiresATaskJobCarryingRunsAs) {
  if (!cat_) return;
  TaskDefinition d = Def(kTaskTriggerCommit, "w.c.src");
  AccessTokenSpec spec;
  spec.workspace = "w";
  spec.role = Role::kWriter;
  auto token = cat_->CreateAccessToken(spec);
  ASSERT_TRUE(token.ok());
  d.runs_as = token->info.client_id;
  ASSERT_TRUE(Register("w.c.t", d).ok());
  auto s = Append("w.c.src", "bob");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto jobs = Jobs("w.c.t");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].kind, kJobKindTask);
  EXPECT_EQ(jobs[0].trigger, "task__c__t");
  EXPECT_EQ(jobs[0].source, "w.c.src");
  EXPECT_EQ(jobs[0].to_snapshot, s->snapshot_id);
  EXPECT_EQ(jobs[0].fired_by, "bob");
  EXPECT_EQ(jobs[0].runs_as, token->info.client_id);
  EXPECT_EQ(jobs[0].state, kJobQueued);
  // A commit on another dataset fires nothing; a signal to a commit task is refused.
  ASSERT_TRUE(Append("w.c.other").ok());
  EXPECT_EQ(Jobs("w.c.t").size(), 1u);
  auto signal = cat_->SignalTask("w.c.t", "carol");
  EXPECT_TRUE(signal.status().Is(codes::kTaskNotSignalled)) << signal.status().ToString();
  EXPECT_EQ(FieldOf(signal.status(), "trigger"), "commit");
  // The run's outcome lands on the task through the job (a failure recorded by the catalog).
  auto claimed = cat_->ClaimJob(60'000'000);
  ASSERT_TRUE(claimed.ok() && *claimed);
  JobOutcomeReport report;
  report.state = kRefreshFailed;
  report.error = "boom";
  ASSERT_TRUE(cat_->ReportJobOutcome((*claimed)->id, report).ok());
  auto t = cat_->GetTask("w.c.t");
  EXPECT_EQ(t->last_run_status, kRefreshFailed);
  EXPECT_EQ(t->last_run_error, "boom");
  EXPECT_EQ(t->last_run_job, (*claimed)->id);
}

TEST_P(TaskSuite, ASignalRecordsAJobFiredByTheCaller) {
  if (!cat_) return;
  ASSERT_TRUE(Register("w.c.t", Def(kTaskTriggerSignal)).ok());
  auto job = cat_->SignalTask("w.c.t", "carol");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->kind, kJobKindTask);
  EXPECT_EQ(job->trigger, kTaskTriggerSignal);
  EXPECT_EQ(job->target, "w.c.t");
  EXPECT_EQ(job->workspace, "w");
  EXPECT_EQ(job->source, "");
  EXPECT_EQ(job->fired_by, "carol");
  EXPECT_EQ(job->runs_as, "alice");
  EXPECT_EQ(Jobs("w.c.t").size(), 1u);
  EXPECT_TRUE(cat_->SignalTask("w.c.nope", "carol").status().Is(codes::kTaskNotFound));
}

TEST_P(TaskSuite, RunsAreRecordedAndAnEgressBlockIsAuditedAndAlerted) {
  if (!cat_) return;
  ASSERT_TRUE(Register("w.c.t", Def(kTaskTriggerSignal)).ok());
  RefreshRecord ok;
  ok.status = kRefreshSucceeded;
  ok.job_id = "job_1";
  ok.snapshot_id = 7;
  ASSERT_OK(cat_->RecordTaskRun("w.c.t", ok));
  auto t = cat_->GetTask("w.c.t");
  EXPECT_EQ(t->last_run_status, kRefreshSucceeded);
  EXPECT_EQ(t->last_run_snapshot_id, 7);
  EXPECT_EQ(t->last_run_at_us, manual_->NowMicros());
  RefreshRecord bad;
  bad.status = "throttled";
  EXPECT_EQ(cat_->RecordTaskRun("w.c.t", bad).kind(), ErrorKind::kInvalidArgument);
  RefreshRecord blocked;
  blocked.status = kRefreshEgressBlocked;
  blocked.error = "egress_blocked: x.c.d may not be copied into w";
  ASSERT_OK(cat_->RecordTaskRun("w.c.t", blocked));
  auto audit = cat_->ListAudit(AuditQuery{});
  ASSERT_TRUE(audit.ok());
  int rows = 0;
  for (const auto& a : *audit) {
    if (a.action != "task.run_egress_blocked") continue;
    ++rows;
    EXPECT_EQ(a.target, "w.c.t");
    EXPECT_EQ(a.actor, "alice");  // the runs_as
    EXPECT_EQ(a.outcome, kRefreshEgressBlocked);
  }
  EXPECT_EQ(rows, 1);
  std::string lines = Alerts();
  EXPECT_NE(lines.find("\"code\":\"egress_blocked\""), std::string::npos) << lines;
  EXPECT_NE(lines.find("\"object\":\"w.c.t\""), std::string::npos) << lines;
}

TEST_P(TaskSuite, DroppingTheTargetDropsTheTaskAndDroppingTheSourceItsTrigger) {
  if (!cat_) return;
  ASSERT_TRUE(Register("w.c.t", Def(kTaskTriggerCommit, "w.c.src")).ok());
  TaskDefinition d = Def(kTaskTriggerSignal);
  d.target = "w.c.other";
  ASSERT_TRUE(Register("w.c.u", d).ok());
  // A dataset tasks write, or whose commits fire one, is not renamed under them.
  EXPECT_TRUE(cat_->RenameDataset("w.c.other", "other2").Is(codes::kHasTriggers));
  ASSERT_OK(cat_->DropDataset("w.c.src", false));
  auto t = cat_->GetTask("w.c.t");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->definition.on, "");
  EXPECT_EQ(t->definition.trigger, kTaskTriggerCommit);
  ASSERT_OK(cat_->DropDataset("w.c.other", false));
  EXPECT_TRUE(cat_->GetTask("w.c.u").status().Is(codes::kTaskNotFound));
  EXPECT_EQ(cat_->ListTasks("w.c")->size(), 1u);
}

TEST_P(TaskSuite, AScheduleStoresItsNextDueTime) {
  if (!cat_) return;
  TaskDefinition d = Def(kTaskTriggerSchedule);
  d.schedule = "0 * * * *";
  d.time_zone = "Europe/London";
  auto t = Register("w.c.t", d);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  // The clock reads 2023-11-14T22:13:20Z: the next hour starts 23:00 UTC (GMT in November).
  EXPECT_EQ(t->next_due_at_us, int64_t{1'700'002'800} * 1'000'000);
  EXPECT_EQ(t->definition.time_zone, "Europe/London");
  d.time_zone = "";
  auto utc = Register("w.c.t", d, {"w.c.src"}, true);
  ASSERT_TRUE(utc.ok()) << utc.status().ToString();
  EXPECT_EQ(utc->definition.time_zone, "UTC");
  d.schedule = "61 * * * *";
  EXPECT_TRUE(Register("w.c.t", d, {"w.c.src"}, true).status().Is(codes::kInvalidSchedule));
  d.schedule = "0 * * * *";
  d.time_zone = "Mars/Olympus";
  EXPECT_TRUE(Register("w.c.t", d, {"w.c.src"}, true).status().Is(codes::kUnknownTimeZone));
}

// The schedule tick with a fake clock: each slot fires once, slots missed while nothing ticked
// fire once, ticks racing fire each slot once, and daylight-saving changes are followed.
class ScheduleTick : public TaskSuite {
 protected:
  // Registers `w.c.t` on `cron` in `zone` and returns the next due times the task steps
  // through when the clock is moved to each in turn and the tick run, `slots` of them.
  std::vector<int64_t> Slots(const std::string& cron, const std::string& zone, int slots) {
    TaskDefinition d = Def(kTaskTriggerSchedule);
    d.schedule = cron;
    d.time_zone = zone;
    auto t = Register("w.c.t", d, {"w.c.src"}, true);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    std::vector<int64_t> out;
    if (!t.ok()) return out;
    int64_t due = *t->next_due_at_us;
    for (int i = 0; i < slots; ++i) {
      out.push_back(due / 1'000'000);
      manual_->Advance(std::chrono::microseconds(due - manual_->NowMicros()));
      auto fired = cat_->FireDueSchedules();
      EXPECT_TRUE(fired.ok() && fired->size() == 1u) << fired.status().ToString();
      due = *cat_->GetTask("w.c.t")->next_due_at_us;
    }
    return out;
  }
  void SetClock(int64_t unix_s) {
    manual_->Advance(std::chrono::microseconds(unix_s * 1'000'000 - manual_->NowMicros()));
  }
};

TEST_P(ScheduleTick, EachSlotFiresOnceAndMissedSlotsOnce) {
  if (!cat_) return;
  TaskDefinition d = Def(kTaskTriggerSchedule);
  d.schedule = "0 * * * *";
  ASSERT_TRUE(Register("w.c.t", d).ok());
  // 22:13:20 UTC: nothing due yet.
  EXPECT_TRUE(cat_->FireDueSchedules()->empty());
  manual_->Advance(std::chrono::minutes(46) + std::chrono::seconds(40));  // 23:00:00
  auto fired = cat_->FireDueSchedules();
  ASSERT_TRUE(fired.ok()) << fired.status().ToString();
  ASSERT_EQ(fired->size(), 1u);
  EXPECT_EQ((*fired)[0].kind, kJobKindTask);
  EXPECT_EQ((*fired)[0].trigger, kTaskTriggerSchedule);
  EXPECT_EQ((*fired)[0].target, "w.c.t");
  EXPECT_EQ((*fired)[0].fired_by, kScheduleActor);
  EXPECT_EQ((*fired)[0].runs_as, "alice");
  EXPECT_TRUE(cat_->FireDueSchedules()->empty());
  EXPECT_EQ(cat_->GetTask("w.c.t")->next_due_at_us, int64_t{1'700'006'400} * 1'000'000);
  // Ten hours with no tick: the missed slots fire once, the next is the one after now.
  manual_->Advance(std::chrono::hours(10) + std::chrono::minutes(10));
  EXPECT_EQ(cat_->FireDueSchedules()->size(), 1u);
  EXPECT_TRUE(cat_->FireDueSchedules()->empty());
  EXPECT_EQ(cat_->GetTask("w.c.t")->next_due_at_us, int64_t{1'700'042'400} * 1'000'000);
  EXPECT_EQ(Jobs("w.c.t").size(), 2u);
  // Ticks racing (threads of one server, or servers on one metastore) fire each slot once.
  manual_->Advance(std::chrono::hours(1));
  std::atomic<size_t> total{0};
  std::vector<std::thread> ticks;
  for (int i = 0; i < 8; ++i) {
    ticks.emplace_back([&] {
      auto f = cat_->FireDueSchedules();
      EXPECT_TRUE(f.ok()) << f.status().ToString();
      if (f.ok()) total += f->size();
    });
  }
  for (auto& t : ticks) t.join();
  EXPECT_EQ(total.load(), 1u);
  EXPECT_EQ(Jobs("w.c.t").size(), 3u);
  // A fire is audited as the schedule's.
  auto audit = cat_->ListAudit(AuditQuery{});
  int fires = 0;
  for (const auto& a : *audit) fires += a.action == "trigger.fired" && a.target == "w.c.t#schedule";
  EXPECT_EQ(fires, 3);
}

TEST_P(ScheduleTick, HourlySlotsFollowLondonThroughBothChanges) {
  if (!cat_) return;
  // Spring 2026-03-29: local 01:00 does not exist; the slots are every UTC hour.
  SetClock(1774737000);  // 2026-03-28T22:30Z
  EXPECT_EQ(Slots("0 * * * *", "Europe/London", 4),
            (std::vector<int64_t>{1774738800, 1774742400, 1774746000, 1774749600}));
  // Autumn 2026-10-25: local 01:00 happens twice; it fires at its first occurrence only, so
  // 01:00Z (local 01:00 GMT, the repeat) has no slot.
  SetClock(1792881000);  // 2026-10-24T22:30Z
  EXPECT_EQ(Slots("0 * * * *", "Europe/London", 4),
            (std::vector<int64_t>{1792882800, 1792886400, 1792893600, 1792897200}));
}

TEST_P(ScheduleTick, DailySlotsSkipAMissingTimeAndFireARepeatedOneOnce) {
  if (!cat_) return;
  // New York 2026-03-08: 02:30 does not exist; the 7th's slot, then the 9th's.
  SetClock(1772863200);  // 2026-03-07T06:00Z
  EXPECT_EQ(Slots("30 2 * * *", "America/New_York", 2),
            (std::vector<int64_t>{1772868600, 1773037800}));
  // London 2026-10-25: 01:30 happens twice; one slot that day (00:30Z, BST), then the 26th's
  // 01:30Z (GMT), not the repeat at 01:30Z on the 25th.
  SetClock(1792877400);  // 2026-10-24T21:30Z
  EXPECT_EQ(Slots("30 1 * * *", "Europe/London", 3),
            (std::vector<int64_t>{1792888200, 1792978200, 1793064600}));
}

TEST_P(TaskSuite, TheSweepHoldsATaskRunsReceiptToItsDeclaration) {
  if (!cat_) return;
  ASSERT_TRUE(Register("w.c.t", Def(kTaskTriggerSignal), {"w.c.src"}).ok());
  auto src = cat_->LoadDataset("w.c.src");
  auto other = cat_->LoadDataset("w.c.other");
  ASSERT_TRUE(Append("w.c.src").ok());
  ASSERT_TRUE(Append("w.c.other").ok());
  auto commit_as_task = [&](std::vector<std::pair<std::string, std::string>> reads) {
    std::vector<ReadReference> refs;
    for (const auto& [name, uuid] : reads) {
      ReadReference r;
      r.dataset = name;
      r.dataset_uuid = uuid;
      r.snapshot_id = 1;
      r.resolved_by = "current";
      refs.push_back(r);
    }
    CommitMeta meta;
    meta.author = "alice";
    meta.receipt = Receipt::Of(refs, "task:w.c.t");
    std::vector<RecordBatch> b;
    b.push_back(MakeBatch(*Schema::Parse("id INT64"), {{"9"}}));
    return cat_->Append("w.c.dst", b, meta);
  };
  FsckOptions o;
  o.check_objects = false;
  ASSERT_TRUE(commit_as_task({{"w.c.src", src->uuid}}).ok());
  auto clean = cat_->Fsck(o);
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();
  EXPECT_TRUE(clean->findings.empty()) << clean->findings[0].detail;
  ASSERT_TRUE(commit_as_task({{"w.c.src", src->uuid}, {"w.c.other", other->uuid}}).ok());
  auto found = cat_->Fsck(o);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->findings.size(), 1u);
  EXPECT_EQ(found->findings[0].code, kFsckReceiptOutsideDeclaration);
  EXPECT_EQ(found->findings[0].object, "w.c.dst");
  EXPECT_NE(found->findings[0].detail.find("task:w.c.t"), std::string::npos)
      << found->findings[0].detail;
  EXPECT_NE(found->findings[0].detail.find("w.c.other@1"), std::string::npos)
      << found->findings[0].detail;
}

// Windows (docs/design/tasks.md "Windows"): a job records the window as it stands; only a run
// that succeeded moves it; a replace keeping the source keeps it; the sweep finds a run that
// read past the window it recorded.
TEST_P(TaskSuite, AWindowMovesOnlyWithARunThatSucceeded) {
  if (!cat_) return;
  TaskDefinition d = Def(kTaskTriggerSignal);
  d.window_source = "w.c.src";
  auto t = Register("w.c.t", d);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->definition.window_source, "w.c.src");
  EXPECT_EQ(t->window_end, 0);
  ASSERT_TRUE(Append("w.c.src").ok());
  auto s2 = Append("w.c.src");
  ASSERT_TRUE(s2.ok());
  auto job = cat_->SignalTask("w.c.t", "carol");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->from_snapshot, 0);
  EXPECT_EQ(job->to_snapshot, s2->snapshot_id);
  RefreshRecord failed;
  failed.status = kRefreshFailed;
  failed.window_to = s2->snapshot_id;
  ASSERT_OK(cat_->RecordTaskRun("w.c.t", failed));
  EXPECT_EQ(cat_->GetTask("w.c.t")->window_end, 0);
  RefreshRecord ok;
  ok.status = kRefreshSucceeded;
  ok.window_to = s2->snapshot_id;
  ASSERT_OK(cat_->RecordTaskRun("w.c.t", ok));
  EXPECT_EQ(cat_->GetTask("w.c.t")->window_end, s2->snapshot_id);
  ok.window_to = 1;  // a late report of an older window never moves it back
  ASSERT_OK(cat_->RecordTaskRun("w.c.t", ok));
  EXPECT_EQ(cat_->GetTask("w.c.t")->window_end, s2->snapshot_id);
  auto s3 = Append("w.c.src");
  auto next = cat_->SignalTask("w.c.t", "carol");
  EXPECT_EQ(next->from_snapshot, s2->snapshot_id);
  EXPECT_EQ(next->to_snapshot, s3->snapshot_id);
  // A replace that keeps the source keeps the window; another source starts it again.
  d.sql = "SELECT id + 1 AS id FROM w.c.src";
  EXPECT_EQ(Register("w.c.t", d, {"w.c.src"}, true)->window_end, s2->snapshot_id);
  d.window_source = "w.c.other";
  EXPECT_EQ(Register("w.c.t", d, {"w.c.other"}, true)->window_end, 0);
  d.window_source = "w.c.gone";
  EXPECT_TRUE(Register("w.c.t", d, {"w.c.src"}, true).status().Is(codes::kDatasetNotFound));
  d.window_source = "not a name";
  EXPECT_EQ(FieldOf(Register("w.c.t", d, {"w.c.src"}, true).status(), "field"), "window_source");
}

TEST_P(TaskSuite, TheSweepFindsARunThatReadPastItsWindow) {
  if (!cat_) return;
  TaskDefinition d = Def(kTaskTriggerSignal);
  d.window_source = "w.c.src";
  ASSERT_TRUE(Register("w.c.t", d).ok());
  auto src = cat_->LoadDataset("w.c.src");
  auto s1 = Append("w.c.src");
  auto s2 = Append("w.c.src");
  // A run's commit that read the source at s2, while its record moved the window to s1 only.
  ReadReference r;
  r.dataset = "w.c.src";
  r.dataset_uuid = src->uuid;
  r.snapshot_id = s2->snapshot_id;
  r.resolved_by = "version";
  CommitMeta meta;
  meta.author = "alice";
  meta.receipt = Receipt::Of({r}, "task:w.c.t");
  std::vector<RecordBatch> b;
  b.push_back(MakeBatch(*Schema::Parse("id INT64"), {{"9"}}));
  ASSERT_TRUE(cat_->Append("w.c.dst", b, meta).ok());
  RefreshRecord ok;
  ok.status = kRefreshSucceeded;
  ok.window_to = s1->snapshot_id;
  ASSERT_OK(cat_->RecordTaskRun("w.c.t", ok));
  FsckOptions o;
  o.check_objects = false;
  // Within the grace a run may be between its commit and its record: nothing yet.
  EXPECT_TRUE(cat_->Fsck(o)->findings.empty());
  manual_->Advance(std::chrono::minutes(11));
  auto found = cat_->Fsck(o);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->findings.size(), 1u);
  EXPECT_EQ(found->findings[0].code, kFsckReadPastWindow);
  EXPECT_EQ(found->findings[0].object, "w.c.dst");
  EXPECT_NE(found->findings[0].detail.find("w.c.src@" + std::to_string(s2->snapshot_id)),
            std::string::npos)
      << found->findings[0].detail;
  // The window moved on: consistent again.
  ok.window_to = s2->snapshot_id;
  ASSERT_OK(cat_->RecordTaskRun("w.c.t", ok));
  EXPECT_TRUE(cat_->Fsck(o)->findings.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, TaskSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Backends, ScheduleTick, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

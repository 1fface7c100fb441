// Materialized views' definitions, triggers and jobs on both metastore backends: registration
// (sources, one trigger each, the DAG, replace keeping floors), rename and drop rules, firing
// after user-created commits (the window, the floor claimed atomically by racing committers,
// housekeeping and TARN_TRIGGER_FIRING=0 firing nothing) and the job queue (claims, leases,
// retries, purge). The SQL side (running the SQL, refreshing) is src/sql's and the interop
// tests'.
#include <cstdlib>
#include <set>
#include <thread>

#include "catalog/error_codes.h"
#include "catalog/test_fixture.h"
#include "common/clock.h"

namespace tarn {
namespace {

class MaterializedSuite : public CatalogBackendTest {
 protected:
  MaterializedSuite() { clock_ = manual_; }
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
    for (const char* name : {"w.c.src", "w.c.other", "w.c.m", "w.c.top"}) {
      DatasetDefinition def;
      def.schema = *Schema::Parse("id INT64");
      ASSERT_TRUE(cat_->CreateDataset(name, def).ok());
    }
  }
  static ViewDefinition Def(std::string sql) {
    ViewDefinition d;
    d.sql = std::move(sql);
    return d;
  }
  Result<SnapshotInfo> Append(const std::string& ds, const std::string& author = "alice") {
    CommitMeta meta;
    meta.author = author;
    return cat_->Append(ds, Batch({{"1"}, {"2"}}), meta);
  }
  static std::vector<RecordBatch> Batch(const std::vector<std::vector<std::string>>& rows) {
    std::vector<RecordBatch> out;
    out.push_back(MakeBatch(*Schema::Parse("id INT64"), rows));
    return out;
  }
  std::vector<JobInfo> Jobs(const std::string& target = "") {
    JobQuery q;
    q.target = target;
    auto jobs = cat_->ListJobs(q);
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    return jobs.ok() ? *jobs : std::vector<JobInfo>{};
  }
  std::shared_ptr<ManualClock> manual_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kStopped, 1'700'000'000'000'000);
};

TEST_P(MaterializedSuite, RegistrationWritesTheDefinitionSourcesAndOneTriggerEach) {
  auto mv = cat_->RegisterMaterializedView("w.c.m", Def("SELECT * FROM w.c.src, w.c.other"),
                                           {"w.c.src", "w.c.other", "w.c.src"}, false, kRefreshFull,
                                           "alice");
  ASSERT_TRUE(mv.ok()) << mv.status().ToString();
  EXPECT_EQ(mv->view.current.version, 1);
  EXPECT_EQ(mv->view.created_by, "alice");
  EXPECT_EQ(mv->sources, (std::vector<std::string>{"w.c.other", "w.c.src"}));
  ASSERT_EQ(mv->triggers.size(), 2u);
  for (const auto& t : mv->triggers) {
    EXPECT_EQ(t.name, "refresh__c__m");
    EXPECT_EQ(t.target, "w.c.m");
    EXPECT_EQ(t.kind, "materialized_view_refresh");
    EXPECT_EQ(t.minimum_interval_s, 120);
  }
  EXPECT_EQ(mv->last_refresh_status, "");
  auto on_src = cat_->ListTriggers("w.c.src");
  ASSERT_TRUE(on_src.ok()) << on_src.status().ToString();
  ASSERT_EQ(on_src->size(), 1u);
  // A view is not a plain view, nor the other way round; listing finds it.
  EXPECT_TRUE(cat_->GetView("w.c.m").status().Is(codes::kViewNotFound));
  EXPECT_TRUE(cat_->GetMaterializedView("w.c.src").status().Is(codes::kMaterializedViewNotFound));
  auto list = cat_->ListMaterializedViews("w.c");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_TRUE(cat_->ListViews("w.c")->empty());
  // Registering again needs replace; a plain view's name and a missing dataset are refused.
  EXPECT_TRUE(cat_->RegisterMaterializedView("w.c.m", Def("SELECT 1"), {}, false, kRefreshFull, "a")
                  .status()
                  .Is(codes::kMaterializedViewExists));
  EXPECT_TRUE(
      cat_->RegisterMaterializedView("w.c.nope", Def("SELECT 1"), {}, false, kRefreshFull, "a")
          .status()
          .Is(codes::kDatasetNotFound));
  EXPECT_TRUE(cat_->RegisterMaterializedView("w.c.top", Def("SELECT 1"), {"w.c.gone"}, false,
                                             kRefreshFull, "a")
                  .status()
                  .Is(codes::kDatasetNotFound));
  EXPECT_TRUE(cat_->GetMaterializedView("w.c.top").status().Is(codes::kMaterializedViewNotFound));
  // The name stays taken for plain views.
  EXPECT_TRUE(
      cat_->CreateView("w.c.m", Def("SELECT 1"), true, "a").status().Is(codes::kDatasetExists));
}

TEST_P(MaterializedSuite, TheTriggerGraphStaysADagAndARefusalWritesNothing) {
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", Def("x"), {"w.c.src"}, false, kRefreshFull, "a")
          .ok());
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.top", Def("y"), {"w.c.m"}, false, kRefreshFull, "a")
          .ok());
  // src -> m -> top: m reading top, or src reading m, closes a circle; so does reading itself.
  auto cycle = cat_->RegisterMaterializedView("w.c.m", Def("z"), {"w.c.src", "w.c.top"}, true,
                                              kRefreshFull, "a");
  EXPECT_TRUE(cycle.status().Is(codes::kTriggerCycle)) << cycle.status().ToString();
  EXPECT_EQ(FieldOf(cycle.status(), "dataset"), "w.c.top");
  auto self =
      cat_->RegisterMaterializedView("w.c.top", Def("z"), {"w.c.top"}, true, kRefreshFull, "a");
  EXPECT_TRUE(self.status().Is(codes::kTriggerCycle)) << self.status().ToString();
  // Nothing of the refused replace was written.
  auto m = cat_->GetMaterializedView("w.c.m");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->view.current.version, 1);
  EXPECT_EQ(m->view.current.sql, "x");
  EXPECT_EQ(m->sources, std::vector<std::string>{"w.c.src"});
  EXPECT_TRUE(cat_->ListTriggers("w.c.top")->empty());
  // A diamond is fine: other -> m as well.
  ASSERT_TRUE(cat_->RegisterMaterializedView("w.c.m", Def("x2"), {"w.c.src", "w.c.other"}, true,
                                             kRefreshFull, "a")
                  .ok());
}

TEST_P(MaterializedSuite, ReplaceRewritesTriggersAndKeepsTheFloorsItKeeps) {
  ASSERT_TRUE(cat_->RegisterMaterializedView("w.c.m", Def("x"), {"w.c.src", "w.c.other"}, false,
                                             kRefreshFull, "a")
                  .ok());
  ASSERT_OK(cat_->SetTriggerInterval("w.c.src", "refresh__c__m", 7));
  ASSERT_OK(cat_->SetTriggerInterval("w.c.other", "refresh__c__m", std::nullopt));
  auto v2 = cat_->RegisterMaterializedView("w.c.m", Def("y"), {"w.c.src", "w.c.top"}, true,
                                           kRefreshFull, "bob");
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->view.current.version, 2);
  EXPECT_EQ(v2->view.current.author, "bob");
  EXPECT_EQ(v2->sources, (std::vector<std::string>{"w.c.src", "w.c.top"}));
  EXPECT_TRUE(cat_->ListTriggers("w.c.other")->empty());
  EXPECT_EQ(cat_->ListTriggers("w.c.src")->at(0).minimum_interval_s, 7);
  EXPECT_EQ(cat_->ListTriggers("w.c.top")->at(0).minimum_interval_s, 120);
  EXPECT_TRUE(cat_->SetTriggerInterval("w.c.src", "nope", 1).Is(codes::kTriggerNotFound));
  EXPECT_EQ(cat_->SetTriggerInterval("w.c.src", "refresh__c__m", -1).kind(),
            ErrorKind::kInvalidArgument);
}

TEST_P(MaterializedSuite, RenameIsRefusedAndDropCleansTriggers) {
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", Def("x"), {"w.c.src"}, false, kRefreshFull, "a")
          .ok());
  EXPECT_TRUE(cat_->RenameDataset("w.c.src", "src2").Is(codes::kHasTriggers));
  EXPECT_TRUE(cat_->RenameDataset("w.c.m", "m2").Is(codes::kHasTriggers));
  ASSERT_OK(cat_->RenameDataset("w.c.other", "other2"));
  // Dropping the view's dataset drops the view and its triggers.
  ASSERT_OK(cat_->DropDataset("w.c.m"));
  EXPECT_TRUE(cat_->GetMaterializedView("w.c.m").status().Is(codes::kMaterializedViewNotFound));
  EXPECT_TRUE(cat_->ListTriggers("w.c.src")->empty());
  ASSERT_OK(cat_->RenameDataset("w.c.src", "src2"));
  // Dropping a source removes it from the view's sources and its trigger with it.
  ASSERT_TRUE(cat_->RegisterMaterializedView("w.c.top", Def("x"), {"w.c.src2", "w.c.other2"}, false,
                                             kRefreshFull, "a")
                  .ok());
  ASSERT_OK(cat_->DropDataset("w.c.src2"));
  auto top = cat_->GetMaterializedView("w.c.top");
  ASSERT_TRUE(top.ok()) << top.status().ToString();
  EXPECT_EQ(top->sources, std::vector<std::string>{"w.c.other2"});
  EXPECT_EQ(top->triggers.size(), 1u);
  ASSERT_OK(cat_->DropMaterializedView("w.c.top", false));
  EXPECT_TRUE(cat_->LoadDataset("w.c.top").status().Is(codes::kDatasetNotFound));
  EXPECT_TRUE(cat_->DropMaterializedView("w.c.top", false).Is(codes::kMaterializedViewNotFound));
}

TEST_P(MaterializedSuite, ACommitRecordsAJobAfterTheFloorAndThrottledCommitsWidenTheWindow) {
  auto first = Append("w.c.src");  // before the trigger: fires nothing
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", Def("x"), {"w.c.src"}, false, kRefreshFull, "a")
          .ok());
  EXPECT_TRUE(Jobs().empty());
  auto s2 = Append("w.c.src", "bob");
  ASSERT_TRUE(s2.ok());
  auto jobs = Jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].target, "w.c.m");
  EXPECT_EQ(jobs[0].source, "w.c.src");
  EXPECT_EQ(jobs[0].from_snapshot, first->snapshot_id);
  EXPECT_EQ(jobs[0].to_snapshot, s2->snapshot_id);
  EXPECT_EQ(jobs[0].fired_by, "bob");
  EXPECT_EQ(jobs[0].state, "queued");
  EXPECT_EQ(jobs[0].purge_at_us, jobs[0].created_at_us + 14 * 86'400'000'000LL);
  // Inside the floor: throttled, no job; the trigger says so.
  manual_->Advance(std::chrono::seconds(60));
  ASSERT_TRUE(Append("w.c.src").ok());
  auto s4 = Append("w.c.src");
  ASSERT_TRUE(s4.ok());
  EXPECT_EQ(Jobs().size(), 1u);
  EXPECT_EQ(cat_->ListTriggers("w.c.src")->at(0).last_fired_status, "throttled");
  // Past it: the next fire's window reaches back over the throttled commits.
  manual_->Advance(std::chrono::seconds(61));
  auto s5 = Append("w.c.src");
  ASSERT_TRUE(s5.ok());
  jobs = Jobs();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].from_snapshot, s2->snapshot_id);
  EXPECT_EQ(jobs[0].to_snapshot, s5->snapshot_id);
  // The audit log has the fires and the throttles.
  AuditQuery q;
  q.workspace = "w";
  auto audit = cat_->ListAudit(q);
  ASSERT_TRUE(audit.ok());
  int fired = 0, throttled = 0;
  std::set<std::string> details;
  for (const auto& a : *audit) {
    fired += a.action == "trigger.fired";
    if (a.action != "trigger.throttled") continue;
    ++throttled;
    EXPECT_EQ(a.target, "w.c.src");
    EXPECT_EQ(a.workspace, "w");
    EXPECT_EQ(a.outcome, "ok");
    details.insert(a.detail_json);
  }
  EXPECT_EQ(details,
            (std::set<std::string>{
                "{\"snapshot_id\":" + std::to_string(s4->snapshot_id - 1) + ",\"throttled\":1}",
                "{\"snapshot_id\":" + std::to_string(s4->snapshot_id) + ",\"throttled\":1}"}));
  EXPECT_EQ(fired, 2);
  EXPECT_EQ(throttled, 2);
  // A trigger without a floor beside it: every commit reads the triggers again, and only the
  // one with a floor is throttled.
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.top", Def("y"), {"w.c.src"}, false, kRefreshFull, "a")
          .ok());
  ASSERT_OK(cat_->SetTriggerInterval("w.c.src", "refresh__c__top", 0));
  manual_->Advance(std::chrono::seconds(1));
  ASSERT_TRUE(Append("w.c.src").ok());
  EXPECT_EQ(Jobs().size(), 3u);
  auto triggers = cat_->ListTriggers("w.c.src");
  ASSERT_EQ(triggers->size(), 2u);
  EXPECT_EQ(triggers->at(0).last_fired_status, "throttled");
  EXPECT_EQ(triggers->at(1).last_fired_status, "fired");
}

TEST_P(MaterializedSuite, HousekeepingAndDisabledFiringRecordNothing) {
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", Def("x"), {"w.c.src"}, false, kRefreshFull, "a")
          .ok());
  ASSERT_OK(cat_->SetTriggerInterval("w.c.src", "refresh__c__m", 0));
  auto s1 = Append("w.c.src");
  ASSERT_TRUE(s1.ok());
  ASSERT_EQ(Jobs().size(), 1u);
  // A maintenance commit (user_created = false) fires nothing.
  DatasetCommit housekeeping;
  housekeeping.dataset = "w.c.src";
  housekeeping.operation = CommitOperation::kRollback;
  housekeeping.rollback_to = s1->snapshot_id;
  housekeeping.meta.author = "tarn";
  housekeeping.meta.user_created = false;
  ASSERT_TRUE(cat_->CommitWritten({housekeeping}).ok());
  EXPECT_EQ(Jobs().size(), 1u);
  // A keyed retry returns the first commit and fires nothing again.
  CommitMeta keyed;
  keyed.author = "a";
  keyed.idempotency_key = "k1";
  ASSERT_TRUE(cat_->Append("w.c.src", Batch({{"1"}}), keyed).ok());
  ASSERT_EQ(Jobs().size(), 2u);
  ASSERT_TRUE(cat_->Append("w.c.src", Batch({{"1"}}), keyed)->idempotent_replay);
  EXPECT_EQ(Jobs().size(), 2u);
  ::setenv("TARN_TRIGGER_FIRING", "0", 1);
  auto off = Append("w.c.src");
  ::unsetenv("TARN_TRIGGER_FIRING");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(Jobs().size(), 2u);
}

TEST_P(MaterializedSuite, OfRacingCommitsInsideTheFloorExactlyOneFires) {
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", Def("x"), {"w.c.src"}, false, kRefreshFull, "a")
          .ok());
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] { ok += Append("w.c.src").ok(); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  auto jobs = Jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(cat_->ListTriggers("w.c.src")->at(0).last_fired_status.empty(), false);
}

TEST_P(MaterializedSuite, JobsAreClaimedOnceLeasedRetriedAndPurged) {
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", Def("x"), {"w.c.src"}, false, kRefreshFull, "a")
          .ok());
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.top", Def("x"), {"w.c.other"}, false, kRefreshFull, "a")
          .ok());
  ASSERT_TRUE(Append("w.c.src").ok());
  ASSERT_TRUE(Append("w.c.other").ok());
  ASSERT_EQ(Jobs().size(), 2u);
  // Two runners at once take different jobs; a third finds none.
  std::optional<JobInfo> a, b;
  std::thread ta([&] { a = *cat_->ClaimJob(60'000'000); });
  std::thread tb([&] { b = *cat_->ClaimJob(60'000'000); });
  ta.join();
  tb.join();
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->id, b->id);
  EXPECT_EQ(a->state, "running");
  EXPECT_EQ(a->attempts, 1);
  EXPECT_FALSE(cat_->ClaimJob(60'000'000)->has_value());
  // A runner that died: past its lease the job is taken over.
  manual_->Advance(std::chrono::seconds(61));
  auto again = cat_->ClaimJob(60'000'000);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->attempts, 2);
  ASSERT_OK(cat_->CompleteJob((*again)->id, "failed", "boom", std::nullopt));
  const std::string other = (*again)->id == a->id ? b->id : a->id;
  ASSERT_OK(cat_->CompleteJob(other, "succeeded", "", 7));
  EXPECT_EQ(cat_->GetJob(other)->result_snapshot, 7);
  EXPECT_TRUE(cat_->RetryJob(other).status().Is(codes::kJobNotRetryable));
  auto retried = cat_->RetryJob((*again)->id);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->state, "queued");
  EXPECT_TRUE(cat_->GetJob("job_none").status().Is(codes::kJobNotFound));
  JobQuery failed;
  failed.state = "failed";
  EXPECT_TRUE(cat_->ListJobs(failed)->empty());
  failed.state = "bogus";
  EXPECT_EQ(cat_->ListJobs(failed).status().kind(), ErrorKind::kInvalidArgument);
  // A transient failure queues it again for later.
  auto c = cat_->ClaimJob(60'000'000);
  ASSERT_TRUE(c.ok() && c->has_value());
  ASSERT_OK(cat_->CompleteJob((*c)->id, "failed", "unavailable", std::nullopt,
                              manual_->NowMicros() + 30'000'000));
  EXPECT_FALSE(cat_->ClaimJob(60'000'000)->has_value());
  manual_->Advance(std::chrono::seconds(31));
  EXPECT_TRUE(cat_->ClaimJob(60'000'000)->has_value());
  // Past their purge time, ended jobs go.
  manual_->Advance(std::chrono::hours(24 * 15));
  EXPECT_EQ(*cat_->PurgeJobs(), 1);  // the running one stays
  EXPECT_EQ(Jobs().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, MaterializedSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

// The job dispatcher's thread on a catalog whose clock the test moves: it looks for jobs every
// poll interval of the catalog's clock, never of real time. SQLite, and PostgreSQL under
// tests/run_with_pg.sh.
#include "server/dispatcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "auth/auth.h"
#include "catalog/test_fixture.h"
#include "common/clock.h"
#include "common/test_util.h"

namespace tarn::server {
namespace {

class DispatcherSuite : public CatalogBackendTest {
 protected:
  DispatcherSuite() { clock_ = manual_; }
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
    for (const char* name : {"w.c.src", "w.c.m"}) {
      DatasetDefinition def;
      def.schema = *Schema::Parse("id INT64");
      ASSERT_TRUE(cat_->CreateDataset(name, def).ok());
    }
    ViewDefinition view;
    view.sql = "SELECT * FROM w.c.src";
    auto mv =
        cat_->RegisterMaterializedView("w.c.m", view, {"w.c.src"}, false, kRefreshFull, "alice");
    ASSERT_TRUE(mv.ok()) << mv.status().ToString();
    auto authority = auth::TokenAuthority::Open(*cat_);
    ASSERT_TRUE(authority.ok()) << authority.status().ToString();
    authority_ = std::move(*authority);
  }
  void TearDown() override {
    authority_.reset();
    CatalogBackendTest::TearDown();
  }

  // A commit to the view's source: it queues a refresh job, whose id this returns.
  std::string QueueJob() {
    CommitMeta meta;
    meta.author = "alice";
    std::vector<RecordBatch> batches;
    batches.push_back(MakeBatch(*Schema::Parse("id INT64"), {{"1"}}));
    EXPECT_TRUE(cat_->Append("w.c.src", batches, meta).ok());
    auto jobs = cat_->ListJobs(JobQuery{});
    EXPECT_TRUE(jobs.ok() && jobs->size() == 1u);
    return jobs.ok() && jobs->size() == 1u ? (*jobs)[0].id : "";
  }
  int64_t Attempts(const std::string& job) {
    auto j = cat_->GetJob(job);
    EXPECT_TRUE(j.ok()) << j.status().ToString();
    return j.ok() ? j->attempts : -1;
  }

  std::shared_ptr<ManualClock> manual_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kStopped, 1'700'000'000'000'000);
  std::unique_ptr<auth::TokenAuthority> authority_;
};

TEST_P(DispatcherSuite, PollsOnTheCatalogsClock) {
  DispatcherOptions o;
  o.worker_url = "http://127.0.0.1:9/run";  // never reached: a delivery fails or is denied
  o.poll_interval_s = 3600;
  Dispatcher dispatcher(*cat_, *authority_, o);
  const int idle = manual_->waiters();
  dispatcher.Start();
  // It looks at once, finds nothing, then waits an hour of the catalog's clock.
  ASSERT_TRUE(testing_util::Eventually([&] { return manual_->waiters() > idle; }));
  std::string job = QueueJob();
  ASSERT_FALSE(job.empty());
  EXPECT_EQ(Attempts(job), 0);
  manual_->Advance(std::chrono::hours(1));
  // The hour passed: it looks again and claims the job (the delivery's outcome is not the point).
  EXPECT_TRUE(testing_util::Eventually([&] { return Attempts(job) >= 1; }));
  dispatcher.Stop();
}

INSTANTIATE_TEST_SUITE_P(Backends, DispatcherSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn::server

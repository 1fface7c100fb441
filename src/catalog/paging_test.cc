// Paged listings on both metastore backends (issue 20): snapshots, the audit log and jobs,
// walked page by page with `limit` and the `after` / `before` cursors, equal to the unpaged
// listing; bad limits and cursors refused naming the field.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "catalog/test_fixture.h"
#include "common/clock.h"

namespace tarn {
namespace {

class PagingSuite : public CatalogBackendTest {
 protected:
  PagingSuite() { clock_ = manual_; }
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
  }
  void CreateDataset(const std::string& name) {
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64");
    ASSERT_TRUE(cat_->CreateDataset(name, def).ok());
  }
  void Append(const std::string& name) {
    std::vector<RecordBatch> batches;
    batches.push_back(MakeBatch(*Schema::Parse("id INT64"), {{"1"}}));
    CommitMeta meta;
    meta.author = "alice";
    auto s = cat_->Append(name, batches, meta);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
  }
  std::shared_ptr<ManualClock> manual_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kStopped, 1'700'000'000'000'000);
};

std::vector<int64_t> Ids(const std::vector<SnapshotInfo>& v) {
  std::vector<int64_t> out;
  for (const auto& s : v) out.push_back(s.snapshot_id);
  return out;
}

TEST_P(PagingSuite, SnapshotPagesWalkToTheEndInBothDirections) {
  CreateDataset("w.c.d");
  for (int i = 0; i < 7; ++i) Append("w.c.d");
  auto all = cat_->ListSnapshots("w.c.d");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 7u);
  const std::vector<int64_t> want = Ids(*all);

  // Upwards: pages of 3 after the last id seen, until a short page.
  std::vector<int64_t> walked;
  SnapshotQuery q;
  q.limit = 3;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = cat_->ListSnapshots("w.c.d", q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    for (int64_t id : Ids(*page)) walked.push_back(id);
    if (static_cast<int64_t>(page->size()) < *q.limit) break;
    q.after = page->back().snapshot_id;
  }
  EXPECT_EQ(walked, want);

  // Downwards: `before` alone is the last `limit` below it, still in id order.
  std::vector<int64_t> back;
  q = {};
  q.limit = 3;
  q.before = want.back() + 1;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = cat_->ListSnapshots("w.c.d", q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ASSERT_TRUE(std::is_sorted(page->begin(), page->end(), [](const auto& a, const auto& b) {
      return a.snapshot_id < b.snapshot_id;
    }));
    const std::vector<int64_t> ids = Ids(*page);
    back.insert(back.begin(), ids.begin(), ids.end());
    if (static_cast<int64_t>(page->size()) < *q.limit) break;
    q.before = page->front().snapshot_id;
  }
  EXPECT_EQ(back, want);

  // Both bounds: between them, from `after`.
  q = {};
  q.after = want[1];
  q.before = want[5];
  EXPECT_EQ(Ids(*cat_->ListSnapshots("w.c.d", q)),
            (std::vector<int64_t>{want[2], want[3], want[4]}));
  q.limit = 2;
  EXPECT_EQ(Ids(*cat_->ListSnapshots("w.c.d", q)), (std::vector<int64_t>{want[2], want[3]}));

  for (int64_t bad : {int64_t{0}, int64_t{-1}, kMaxSnapshotPage + 1}) {
    q = {};
    q.limit = bad;
    auto refused = cat_->ListSnapshots("w.c.d", q);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(FieldOf(refused.status(), "field"), "limit");
  }
  q = {};
  q.limit = kMaxSnapshotPage;
  q.after = want.back();
  EXPECT_TRUE(cat_->ListSnapshots("w.c.d", q)->empty());
}

TEST_P(PagingSuite, AuditPagesByRowId) {
  std::vector<AuditRecord> recs;
  for (int i = 0; i < 8; ++i) {
    AuditRecord r;
    r.at_us = 1000 + i;
    r.request_id = "req-" + std::to_string(i);
    r.actor = "a";
    r.action = "dataset.append";
    r.target = "w.c.d";
    r.workspace = "w";
    r.outcome = "ok";
    recs.push_back(r);
  }
  ASSERT_OK(cat_->WriteAudit(recs));
  auto all = cat_->ListAudit(AuditQuery{});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 8u);
  std::vector<int64_t> want;
  for (const auto& r : *all) want.push_back(r.id);
  ASSERT_TRUE(std::is_sorted(want.begin(), want.end()));

  // Newest first by pages (the default page is the newest rows), then oldest first.
  std::vector<int64_t> down;
  AuditQuery q;
  q.limit = 3;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = cat_->ListAudit(q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    std::vector<int64_t> ids;
    for (const auto& r : *page) ids.push_back(r.id);
    down.insert(down.begin(), ids.begin(), ids.end());
    if (static_cast<int64_t>(page->size()) < q.limit) break;
    q.before = page->front().id;
  }
  EXPECT_EQ(down, want);
  std::vector<int64_t> up;
  q = {};
  q.limit = 3;
  q.after = 0;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = cat_->ListAudit(q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    for (const auto& r : *page) up.push_back(r.id);
    if (static_cast<int64_t>(page->size()) < q.limit) break;
    q.after = page->back().id;
  }
  EXPECT_EQ(up, want);
  // Filters and cursors together.
  q = {};
  q.since_us = 1002;
  q.after = want[4];
  q.before = want[7];
  auto mid = cat_->ListAudit(q);
  ASSERT_EQ(mid->size(), 2u);
  EXPECT_EQ((*mid)[0].id, want[5]);
  EXPECT_EQ((*mid)[1].id, want[6]);
}

TEST_P(PagingSuite, JobPagesFollowTheNewestFirstOrder) {
  CreateDataset("w.c.src");
  for (int i = 0; i < 4; ++i) {
    const std::string view = "w.c.m" + std::to_string(i);
    CreateDataset(view);
    ViewDefinition def;
    def.sql = "x";
    ASSERT_TRUE(
        cat_->RegisterMaterializedView(view, def, {"w.c.src"}, false, kRefreshFull, "a").ok());
  }
  Append("w.c.src");  // four jobs created at the same time: the job id orders them
  manual_->Advance(std::chrono::hours(2));
  Append("w.c.src");
  JobQuery q;
  auto all = cat_->ListJobs(q);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_GE(all->size(), 4u);
  std::vector<std::string> want;
  for (const auto& j : *all) want.push_back(j.id);

  std::vector<std::string> walked;
  q.limit = 3;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = cat_->ListJobs(q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    for (const auto& j : *page) walked.push_back(j.id);
    if (static_cast<int64_t>(page->size()) < q.limit) break;
    q.after = page->back().id;
  }
  EXPECT_EQ(walked, want);

  std::vector<std::string> back;
  q = {};
  q.limit = 3;
  q.before = want.back();
  back.push_back(want.back());
  for (int pages = 0; pages < 10; ++pages) {
    auto page = cat_->ListJobs(q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    std::vector<std::string> ids;
    for (const auto& j : *page) ids.push_back(j.id);
    back.insert(back.begin(), ids.begin(), ids.end());
    if (static_cast<int64_t>(page->size()) < q.limit) break;
    q.before = page->front().id;
  }
  EXPECT_EQ(back, want);

  q = {};
  q.after = "job_none";
  auto refused = cat_->ListJobs(q);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(FieldOf(refused.status(), "field"), "after");
}

INSTANTIATE_TEST_SUITE_P(Backends, PagingSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

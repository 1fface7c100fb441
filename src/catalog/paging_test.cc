// Paged listings on both metastore backends (issue 20): snapshots, the files of a snapshot, the
// change feed, the audit log and jobs, walked page by page with `limit` and the `after` /
// `before` cursors (the change feed: `from` and next_from), equal to the unpaged listing; bad
// limits and cursors refused naming the field.
#include <algorithm>
#include <chrono>
#include <map>
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

std::vector<std::string> Paths(const std::vector<PlannedFile>& v) {
  std::vector<std::string> out;
  for (const auto& f : v) out.push_back(f.file.path);
  return out;
}

// Every file of the page (or of the whole plan with an empty query).
Result<std::vector<PlannedFile>> Plan(Client& cat, const std::string& name,
                                      const SnapshotSelector& at, const std::string& where,
                                      const FileQuery& page) {
  std::vector<PlannedFile> out;
  TARN_RETURN_NOT_OK(cat.PlanFiles(name, at, where, page, [&](const PlannedFile& f) {
    out.push_back(f);
    return Status::OK();
  }));
  return out;
}

// Walks the pages of `limit` upwards (after the last path) and downwards (before the first);
// both must give `want`, in path order.
void ExpectWalks(Client& cat, const std::string& name, const SnapshotSelector& at,
                 const std::string& where, int64_t limit, const std::vector<std::string>& want) {
  std::vector<std::string> up;
  FileQuery q;
  q.limit = limit;
  for (int pages = 0; pages < 1000; ++pages) {
    auto page = Plan(cat, name, at, where, q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    for (const auto& p : Paths(*page)) up.push_back(p);
    if (static_cast<int64_t>(page->size()) < limit) break;
    q.after = page->back().file.path;
  }
  EXPECT_EQ(up, want) << "upwards, limit " << limit << ", where '" << where << "'";
  std::vector<std::string> down;
  q = {};
  q.limit = limit;
  q.before = std::string(1, '\x7f');  // above every path ("datasets/...")
  for (int pages = 0; pages < 1000; ++pages) {
    auto page = Plan(cat, name, at, where, q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    const auto paths = Paths(*page);
    ASSERT_TRUE(std::is_sorted(paths.begin(), paths.end()));
    down.insert(down.begin(), paths.begin(), paths.end());
    if (static_cast<int64_t>(page->size()) < limit) break;
    q.before = page->front().file.path;
  }
  EXPECT_EQ(down, want) << "downwards, limit " << limit << ", where '" << where << "'";
}

TEST_P(PagingSuite, FilePagesWalkInPathOrderWithPredicatesAndTimeTravel) {
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64, p INT64");
  def.partition_spec = "p";
  ASSERT_TRUE(cat_->CreateDataset("w.c.f", def).ok());
  // 150 partitions in one commit: one file each, in an order unrelated to their paths.
  std::vector<std::vector<std::string>> rows;
  for (int p = 0; p < 150; ++p) {
    rows.push_back({std::to_string(p * 10), std::to_string(p)});
    rows.push_back({std::to_string(p * 10 + 1), std::to_string(p)});
  }
  std::vector<RecordBatch> batches;
  batches.push_back(MakeBatch(def.schema, rows));
  CommitMeta meta;
  meta.author = "alice";
  auto first = cat_->Append("w.c.f", batches, meta);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // A second commit adds files, a delete leaves deletion vectors on some.
  batches.clear();
  batches.push_back(MakeBatch(def.schema, {{"5000", "3"}, {"5001", "140"}}));
  ASSERT_TRUE(cat_->Append("w.c.f", batches, meta).ok());
  ASSERT_TRUE(cat_->DeleteRows("w.c.f", "id = 10 OR id = 1400", meta).ok());

  for (const std::string where : {"", "p >= 140", "p = 3", "id = 5001", "p = 99999"}) {
    auto all = Plan(*cat_, "w.c.f", {}, where, {});
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    std::vector<std::string> want = Paths(*all);
    std::sort(want.begin(), want.end());
    if (where.empty()) {
      ASSERT_EQ(want.size(), 152u);
    }
    for (int64_t limit : {1, 7, 152, 500}) ExpectWalks(*cat_, "w.c.f", {}, where, limit, want);
  }
  // A paged file carries what the unpaged plan says of it (its deletion vector too).
  std::map<std::string, int64_t> deleted;
  auto unpaged = Plan(*cat_, "w.c.f", {}, "", {});
  ASSERT_TRUE(unpaged.ok());
  for (const auto& f : *unpaged) deleted[f.file.path] = f.deleted_rows;
  FileQuery q;
  q.limit = kMaxFilePage;
  int64_t with_vectors = 0;
  auto paged = Plan(*cat_, "w.c.f", {}, "", q);
  ASSERT_TRUE(paged.ok());
  for (const auto& f : *paged) {
    EXPECT_EQ(f.deleted_rows, deleted.at(f.file.path)) << f.file.path;
    with_vectors += f.deleted_rows > 0 ? 1 : 0;
  }
  EXPECT_EQ(with_vectors, 2);

  // At the first snapshot: its files only (the schema and liveness of then).
  SnapshotSelector at;
  at.snapshot_id = first->snapshot_id;
  auto then = Plan(*cat_, "w.c.f", at, "", {});
  ASSERT_TRUE(then.ok());
  std::vector<std::string> want = Paths(*then);
  std::sort(want.begin(), want.end());
  ASSERT_EQ(want.size(), 150u);
  ExpectWalks(*cat_, "w.c.f", at, "", 40, want);
  auto then_filtered = Plan(*cat_, "w.c.f", at, "p < 20", {});
  ASSERT_TRUE(then_filtered.ok());
  want = Paths(*then_filtered);
  std::sort(want.begin(), want.end());
  ASSERT_EQ(want.size(), 20u);
  ExpectWalks(*cat_, "w.c.f", at, "p < 20", 6, want);
}

TEST_P(PagingSuite, FilePageBoundsAndRefusals) {
  CreateDataset("w.c.d");
  for (int i = 0; i < 5; ++i) Append("w.c.d");
  auto all = Plan(*cat_, "w.c.d", {}, "", {});
  ASSERT_TRUE(all.ok());
  std::vector<std::string> paths = Paths(*all);
  std::sort(paths.begin(), paths.end());
  ASSERT_EQ(paths.size(), 5u);
  // Both cursors: between them, from `after`; a limit cuts from there.
  FileQuery q;
  q.after = paths[0];
  q.before = paths[4];
  EXPECT_EQ(Paths(*Plan(*cat_, "w.c.d", {}, "", q)),
            (std::vector<std::string>{paths[1], paths[2], paths[3]}));
  q.limit = 2;
  EXPECT_EQ(Paths(*Plan(*cat_, "w.c.d", {}, "", q)),
            (std::vector<std::string>{paths[1], paths[2]}));
  // A cursor naming no file is a bound all the same; past the last path, an empty page.
  q = {};
  q.after = paths[2] + "x";
  EXPECT_EQ(Paths(*Plan(*cat_, "w.c.d", {}, "", q)),
            (std::vector<std::string>{paths[3], paths[4]}));
  q.after = paths[4];
  EXPECT_TRUE(Plan(*cat_, "w.c.d", {}, "", q)->empty());
  for (int64_t bad : {int64_t{0}, int64_t{-1}, kMaxFilePage + 1}) {
    q = {};
    q.limit = bad;
    auto refused = Plan(*cat_, "w.c.d", {}, "", q);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(FieldOf(refused.status(), "field"), "limit");
  }
  // A bad predicate is refused on a page as on the whole plan.
  q = {};
  q.limit = 2;
  auto bad_where = Plan(*cat_, "w.c.d", {}, "nope = 1", q);
  ASSERT_FALSE(bad_where.ok());
  EXPECT_EQ(bad_where.status().kind(), ErrorKind::kInvalidArgument);
}

// The change feed as one range and as pages of `limit` snapshots, each ending on a snapshot.
TEST_P(PagingSuite, ChangePagesEndOnSnapshotsAndJoinToTheWholeRange) {
  CreateDataset("w.c.d");
  for (int i = 0; i < 7; ++i) Append("w.c.d");
  CommitMeta meta;
  meta.author = "alice";
  ASSERT_TRUE(cat_->DeleteRows("w.c.d", "id = 1", meta).ok());  // snapshot 8 removes every file
  auto whole = cat_->Changes("w.c.d", 1);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->to_snapshot_id, 8);
  EXPECT_FALSE(whole->next_from.has_value());

  ChangeQuery q;
  q.from = 1;
  q.limit = 3;
  std::vector<std::string> added, removed;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = cat_->Changes("w.c.d", q);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ranges.emplace_back(page->from_snapshot_id, page->to_snapshot_id);
    for (const auto& f : page->added_files) added.push_back(f.path);
    for (const auto& f : page->removed_files) removed.push_back(f.path);
    if (!page->next_from) break;
    EXPECT_EQ(*page->next_from, page->to_snapshot_id);
    q.from = *page->next_from;
  }
  EXPECT_EQ(ranges, (std::vector<std::pair<int64_t, int64_t>>{{1, 4}, {4, 7}, {7, 8}}));
  std::vector<std::string> want_added, want_removed;
  for (const auto& f : whole->added_files) want_added.push_back(f.path);
  for (const auto& f : whole->removed_files) want_removed.push_back(f.path);
  EXPECT_EQ(added, want_added);
  EXPECT_EQ(removed, want_removed);
  EXPECT_EQ(removed.size(), 7u);

  // `to` bounds the pages; a limit reaching past it leaves no next page.
  q = {};
  q.from = 2;
  q.to = 5;
  q.limit = 3;
  auto exact = cat_->Changes("w.c.d", q);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->to_snapshot_id, 5);
  EXPECT_FALSE(exact->next_from.has_value());
  q.limit = 2;
  auto cut = cat_->Changes("w.c.d", q);
  EXPECT_EQ(cut->to_snapshot_id, 4);
  EXPECT_EQ(cut->next_from, std::optional<int64_t>(4));
  for (int64_t bad : {int64_t{0}, int64_t{-1}, kMaxChangePage + 1}) {
    q.limit = bad;
    auto refused = cat_->Changes("w.c.d", q);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(FieldOf(refused.status(), "field"), "limit");
  }
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

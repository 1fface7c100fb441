// Retention policies on both metastore backends (docs/design/maintenance.md "Retention"): a
// dataset's `retention` beats its workspace's, `retention.consumer_floor` keeps or lifts the
// consumers' floor, datasets without a policy are counted and left alone, bad values are
// refused when set, and expiry counts only the paths it actually queued for deletion.
#include <map>

#include "catalog/error_codes.h"
#include "catalog/test_fixture.h"
#include "common/clock.h"

namespace tarn {
namespace {

class RetentionSuite : public CatalogBackendTest {
 protected:
  RetentionSuite() { clock_ = manual_; }
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    for (const char* ws : {"a", "b"}) {
      ASSERT_OK(cat_->CreateWorkspace(ws));
      ASSERT_OK(cat_->CreateCollection(std::string(ws) + ".c"));
    }
  }
  void Create(const std::string& name) {
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64");
    ASSERT_TRUE(cat_->CreateDataset(name, def).ok());
  }
  SnapshotInfo Append(const std::string& ds, CommitOperation op = CommitOperation::kAppend) {
    CommitMeta meta;
    meta.author = "alice";
    meta.receipt = Receipt();
    std::vector<RecordBatch> b;
    b.push_back(MakeBatch(*Schema::Parse("id INT64"), {{"1"}, {"2"}}));
    auto s = cat_->Append(ds, b, meta, op);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : SnapshotInfo();
  }
  const RetentionApplied* Find(const RetentionResult& r, const std::string& ds) {
    for (const auto& d : r.datasets) {
      if (d.dataset == ds) return &d;
    }
    return nullptr;
  }
  std::shared_ptr<ManualClock> manual_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kStopped, 1'700'000'000'000'000);
};

TEST_P(RetentionSuite, TheDatasetsPolicyBeatsItsWorkspacesAndOffsetsAreAFloor) {
  for (const char* ds : {"a.c.inherits", "a.c.own", "a.c.floor", "a.c.nofloor", "b.c.none"}) {
    Create(ds);
    for (int i = 0; i < 3; ++i) Append(ds);  // snapshots 1..3, old
  }
  manual_->Advance(std::chrono::hours(5));
  for (const char* ds : {"a.c.inherits", "a.c.own", "a.c.floor", "a.c.nofloor", "b.c.none"}) {
    Append(ds);  // snapshot 4, new
  }
  ASSERT_OK(cat_->SetWorkspaceProperties("a", {{"retention", "1h"}}));
  ASSERT_OK(cat_->SetDatasetProperties("a.c.own", {{"retention", "10h"}}));
  ASSERT_OK(cat_->CommitOffset("a.c.floor", "reader", 1));
  ASSERT_OK(cat_->CommitOffset("a.c.nofloor", "reader", 1));
  ASSERT_OK(cat_->SetDatasetProperties("a.c.nofloor", {{"retention.consumer_floor", "false"}}));

  RetentionOptions dry;
  dry.dry_run = true;
  auto plan = cat_->ApplyRetention(dry);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->dry_run);
  EXPECT_EQ(plan->without_policy, 1);  // b.c.none
  ASSERT_EQ(plan->datasets.size(), 4u);
  EXPECT_EQ(cat_->LoadDataset("a.c.inherits")->expired_through, 0);  // nothing changed

  auto r = cat_->ApplyRetention({});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto* inherits = Find(*r, "a.c.inherits");
  ASSERT_NE(inherits, nullptr);
  EXPECT_EQ(inherits->source, "workspace");
  EXPECT_EQ(inherits->retention, "1h");
  EXPECT_EQ(inherits->expiry.expired_snapshots, 3);
  EXPECT_EQ(inherits->expiry.expired_through, 3);
  const auto* own = Find(*r, "a.c.own");
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->source, "dataset");
  EXPECT_EQ(own->expiry.expired_snapshots, 0);
  const auto* floor = Find(*r, "a.c.floor");
  ASSERT_NE(floor, nullptr);
  EXPECT_TRUE(floor->consumer_floor);
  EXPECT_EQ(floor->expiry.expired_through, 1);  // the consumer is at 1
  const auto* nofloor = Find(*r, "a.c.nofloor");
  ASSERT_NE(nofloor, nullptr);
  EXPECT_FALSE(nofloor->consumer_floor);
  EXPECT_EQ(nofloor->expiry.expired_through, 3);
  EXPECT_EQ(Find(*r, "b.c.none"), nullptr);
  EXPECT_EQ(cat_->LoadDataset("b.c.none")->expired_through, 0);
  // Only one workspace.
  RetentionOptions only_b;
  only_b.workspace = "b";
  auto rb = cat_->ApplyRetention(only_b);
  ASSERT_TRUE(rb.ok());
  EXPECT_TRUE(rb->datasets.empty());
  EXPECT_EQ(rb->without_policy, 1);
  only_b.workspace = "nope";
  EXPECT_EQ(cat_->ApplyRetention(only_b).status().kind(), ErrorKind::kNotFound);
}

TEST_P(RetentionSuite, BadValuesAreRefusedWhenSet) {
  Create("a.c.d");
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"retention", "soon"}, {"retention", "7"}, {"retention.consumer_floor", "yes"}}) {
    Status ds = cat_->SetDatasetProperties("a.c.d", {{k, v}});
    EXPECT_TRUE(ds.Is(codes::kInvalidProperty)) << k << "=" << v << ": " << ds.ToString();
    EXPECT_EQ(FieldOf(ds, "property"), k);
    Status ws = cat_->SetWorkspaceProperties("a", {{k, v}});
    EXPECT_TRUE(ws.Is(codes::kInvalidProperty)) << ws.ToString();
  }
  ASSERT_OK(cat_->SetDatasetProperties("a.c.d", {{"retention", "7d"}}));
}

// A path a rollback made live again is not queued for deletion, and not counted as released.
TEST_P(RetentionSuite, ExpiryCountsOnlyWhatItQueued) {
  Create("a.c.d");
  Append("a.c.d");                               // 1: f1
  Append("a.c.d", CommitOperation::kOverwrite);  // 2: f1 removed, f2 added
  CommitMeta meta;
  meta.author = "alice";
  meta.receipt = Receipt();
  ASSERT_TRUE(cat_->Rollback("a.c.d", 1, meta).ok());  // 3: f1 live again, f2 removed
  Append("a.c.d");                                     // 4
  manual_->Advance(std::chrono::hours(1));
  ExpiryOptions options;
  options.older_than_us = manual_->NowMicros();
  options.dry_run = true;
  auto plan = cat_->ExpireSnapshots("a.c.d", options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->expired_through, 3);
  EXPECT_EQ(plan->files_released, 1);  // f2; f1's old row goes but its path is live
  options.dry_run = false;
  auto r = cat_->ExpireSnapshots("a.c.d", options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_released, 1);
  // The data is intact.
  int64_t rows = 0;
  ASSERT_OK(cat_->Scan("a.c.d", {}, [&](const RecordBatch& b) {
    rows += b.num_rows;
    return Status::OK();
  }));
  EXPECT_EQ(rows, 4);
}

// One pass of each housekeeping step over the catalog: what it does and its audit rows.
TEST_P(RetentionSuite, HousekeepingStepsActOnlyWhereAskedAndAudit) {
  Create("a.c.auto");
  Create("a.c.manual");
  for (int i = 0; i < 4; ++i) {
    Append("a.c.auto");
    Append("a.c.manual");
  }
  ASSERT_OK(cat_->SetDatasetProperties("a.c.auto", {{"compaction.auto", "true"}}));
  EXPECT_TRUE(cat_->SetDatasetProperties("a.c.manual", {{"compaction.auto", "yes"}})
                  .Is(codes::kInvalidProperty));
  using Step = Catalog::HousekeepingStep;
  auto compact = cat_->RunHousekeeping(Step::kCompact);
  ASSERT_TRUE(compact.ok()) << compact.status().ToString();
  EXPECT_EQ(compact->datasets, 1);
  EXPECT_EQ(compact->failures, 0);
  EXPECT_EQ(compact->files_rewritten, 4);
  auto snaps = cat_->ListSnapshots("a.c.auto");
  ASSERT_TRUE(snaps.ok());
  EXPECT_EQ(snaps->back().operation, "compact");
  EXPECT_EQ(snaps->back().author, "tarn:housekeeping");
  EXPECT_EQ(cat_->LoadDataset("a.c.manual")->total_files, 4);
  // Nothing left: the next pass rewrites nothing.
  EXPECT_EQ(cat_->RunHousekeeping(Step::kCompact)->files_rewritten, 0);

  // The files the compaction replaced are needed until its snapshot is not the current one:
  // a change feed from the snapshot before it lists them as removed.
  Append("a.c.auto");  // 6
  manual_->Advance(std::chrono::hours(2));
  ASSERT_OK(cat_->SetWorkspaceProperties("a", {{"retention", "1h"}}));
  auto expire = cat_->RunHousekeeping(Step::kExpire);
  ASSERT_TRUE(expire.ok()) << expire.status().ToString();
  EXPECT_EQ(expire->datasets, 2);
  EXPECT_EQ(expire->snapshots_expired, 5 + 3);  // auto: 1..5; manual: 1..3
  EXPECT_EQ(expire->files_released, 4);         // the files compaction replaced
  manual_->Advance(std::chrono::hours(2));      // past the orphan grace, for what it is worth
  auto cleanup = cat_->RunHousekeeping(Step::kCleanup);
  ASSERT_TRUE(cleanup.ok()) << cleanup.status().ToString();
  EXPECT_EQ(cleanup->objects_deleted, 4);

  AuditQuery q;
  q.workspace = "a";
  auto audit = cat_->ListAudit(q);
  ASSERT_TRUE(audit.ok());
  std::map<std::string, int> actions;
  for (const auto& r : *audit) {
    if (r.actor == "tarn:housekeeping") ++actions[r.action];
  }
  EXPECT_EQ(actions["housekeeping.compact"], 1);
  EXPECT_EQ(actions["housekeeping.expire"], 2);
}

INSTANTIATE_TEST_SUITE_P(Backends, RetentionSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

// Retention policies on both metastore backends (docs/design/maintenance.md "Retention"): a
// dataset's `retention` beats its workspace's, `retention.consumer_floor` keeps or lifts the
// consumers' floor, datasets without a policy are counted and left alone, bad values are
// refused when set, and expiry counts only the paths it actually queued for deletion.
#include <map>
#include <thread>

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
  static SnapshotSelector At(int64_t id) {
    SnapshotSelector s;
    s.snapshot_id = id;
    return s;
  }
  int64_t Count(const std::string& sql, const SqlParams& params = {}) {
    int64_t n = -1;
    Status st = cat_->metastore().RunInTransaction(
        [&](Transaction& tx) -> Status {
          TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(sql, params));
          TARN_ASSIGN_OR_RETURN(n, row->Int64(0));
          return Status::OK();
        },
        TxMode::kReadOnly);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return n;
  }
  // The rules the foreign keys dropped by migration 18 kept, over the whole catalog: every tag
  // names a snapshot, every deletion vector a file row, every ledger row a dataset (or none).
  void ExpectNothingDangles() {
    EXPECT_EQ(Count("SELECT COUNT(*) FROM tags t WHERE NOT EXISTS (SELECT 1 FROM snapshots s "
                    "WHERE s.dataset_id = t.dataset_id AND s.snapshot_id = t.snapshot_id)"),
              0);
    EXPECT_EQ(Count("SELECT COUNT(*) FROM deletion_vectors v WHERE NOT EXISTS (SELECT 1 FROM "
                    "data_files f WHERE f.id = v.data_file_id)"),
              0);
    EXPECT_EQ(Count("SELECT COUNT(*) FROM removal_ledger l WHERE l.dataset_id IS NOT NULL AND "
                    "NOT EXISTS (SELECT 1 FROM datasets d WHERE d.id = l.dataset_id)"),
              0);
  }
  int64_t Rows(const std::string& ds, const SnapshotSelector& at) {
    int64_t rows = 0;
    ScanOptions scan;
    scan.at = at;
    Status st = cat_->Scan(ds, scan, [&](const RecordBatch& b) {
      rows += b.num_rows;
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return rows;
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

// A tag keeps its snapshot and the files and vectors it sees through expiry; expiry deletes the
// vectors of the files it deletes; a tag is only created on a snapshot that exists; purge leaves
// no row naming the dataset. The schema no longer checks any of this (migration 18).
TEST_P(RetentionSuite, TagsKeepWhatTheySeeAndNoRowDangles) {
  Create("a.c.d");
  Append("a.c.d");  // 1: f1 {1, 2}
  Append("a.c.d");  // 2: f2 {1, 2}
  CommitMeta meta;
  meta.author = "alice";
  meta.receipt = Receipt();
  auto del = cat_->DeleteRows("a.c.d", "id = 1", meta);  // 3: a vector on f1 and on f2
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  ASSERT_EQ(del->snapshot_id, 3);
  Append("a.c.d", CommitOperation::kOverwrite);  // 4: f1, f2 and their vectors removed; f3
  Append("a.c.d");                               // 5: f4
  ASSERT_OK(cat_->CreateTag("a.c.d", "keep", At(2)));
  const int64_t id = Count("SELECT id FROM datasets WHERE dropped_at IS NULL");
  EXPECT_EQ(Count("SELECT COUNT(*) FROM deletion_vectors WHERE dataset_id = ?", {id}), 2);

  manual_->Advance(std::chrono::hours(1));
  ExpiryOptions options;
  options.older_than_us = manual_->NowMicros();
  auto r = cat_->ExpireSnapshots("a.c.d", options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->expired_through, 4);
  EXPECT_EQ(r->expired_snapshots, 3);  // 1, 3, 4: the tagged 2 stays
  EXPECT_EQ(r->files_released, 0);     // the tag sees f1 and f2
  EXPECT_EQ(Count("SELECT COUNT(*) FROM snapshots WHERE dataset_id = ?", {id}), 2);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM deletion_vectors WHERE dataset_id = ?", {id}), 0)
      << "the vectors came at 3 and went at 4: no retained snapshot sees them";
  SnapshotSelector keep;
  keep.tag = "keep";
  EXPECT_EQ(Rows("a.c.d", keep), 4);
  EXPECT_EQ(Rows("a.c.d", {}), 4);  // f3, f4
  ExpectNothingDangles();

  // Tags only on snapshots that exist.
  EXPECT_EQ(FieldOf(cat_->CreateTag("a.c.d", "gone", At(3)), "code"), "snapshot_expired");
  EXPECT_EQ(FieldOf(cat_->CreateTag("a.c.d", "gone", At(9)), "code"), "snapshot_not_found");
  SnapshotSelector other;
  other.tag = "keep";
  ASSERT_OK(cat_->CreateTag("a.c.d", "also", other));
  ASSERT_OK(cat_->CreateTag("a.c.d", "also", At(5), /*replace=*/true));

  // Untagged, snapshot 2 goes with the next expiry, and f1 and f2 with it.
  ASSERT_OK(cat_->DropTag("a.c.d", "keep"));
  Append("a.c.d");  // 6: f5
  options.older_than_us = manual_->NowMicros() + 1;
  r = cat_->ExpireSnapshots("a.c.d", options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->expired_through, 5);
  EXPECT_EQ(r->expired_snapshots, 1);  // 2; 5 is tagged `also`
  EXPECT_EQ(r->files_released, 2);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM data_files WHERE dataset_id = ?", {id}), 3);
  ExpectNothingDangles();

  // A vector on a file that expiry deletes goes with it.
  ASSERT_TRUE(cat_->DeleteRows("a.c.d", "id = 2", meta).ok());  // 7: vectors on f3, f4, f5
  Append("a.c.d", CommitOperation::kOverwrite);                 // 8: they go; f6
  Append("a.c.d");                                              // 9: f7
  ASSERT_OK(cat_->DropTag("a.c.d", "also"));
  options.older_than_us = manual_->NowMicros() + 1;
  r = cat_->ExpireSnapshots("a.c.d", options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->expired_through, 8);
  EXPECT_EQ(r->files_released, 3);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM deletion_vectors WHERE dataset_id = ?", {id}), 0);
  ExpectNothingDangles();

  // Purge: every row of the dataset goes; its ledger rows stay, naming no dataset.
  ASSERT_OK(cat_->CreateTag("a.c.d", "final", {}));
  ASSERT_OK(cat_->SetWorkspaceProperties("a", {{"deletion_protection", "false"}}));
  ASSERT_OK(cat_->DropDataset("a.c.d", /*purge=*/true));
  for (const char* table : {"tags", "snapshots", "data_files", "deletion_vectors"}) {
    EXPECT_EQ(Count(std::string("SELECT COUNT(*) FROM ") + table + " WHERE dataset_id = ?", {id}),
              0)
        << table;
  }
  EXPECT_EQ(Count("SELECT COUNT(*) FROM removal_ledger WHERE dataset_id IS NULL"), 2 + 3 + 2);
  ExpectNothingDangles();
}

// Tag changes take the dataset's lock, as expiry does: a tag created while an expiry deletes
// its snapshot either fails (expired) or keeps the snapshot, never names one that is gone.
TEST_P(RetentionSuite, TagsRacingExpiryNeverNameAMissingSnapshot) {
  Create("a.c.d");
  Append("a.c.d");
  ExpiryOptions options;
  options.older_than_us = manual_->NowMicros() + 1;  // the clock stands still: every snapshot
  int tagged = 0;
  for (int round = 0; round < 20; ++round) {
    const int64_t target = Append("a.c.d").snapshot_id;
    Append("a.c.d");
    const std::string tag = "t" + std::to_string(round);
    Status tag_st;
    Result<ExpiryResult> expired = Status::Internal("not run");
    std::thread tagger([&] { tag_st = cat_->CreateTag("a.c.d", tag, At(target)); });
    std::thread expirer([&] { expired = cat_->ExpireSnapshots("a.c.d", options); });
    tagger.join();
    expirer.join();
    ASSERT_TRUE(expired.ok()) << expired.status().ToString();
    if (tag_st.ok()) {
      ++tagged;
      SnapshotSelector at;
      at.tag = tag;
      auto s = cat_->GetSnapshot("a.c.d", at);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      EXPECT_EQ(s->snapshot_id, target);
      ASSERT_OK(cat_->DropTag("a.c.d", tag));
    } else {
      EXPECT_EQ(FieldOf(tag_st, "code"), "snapshot_expired") << tag_st.ToString();
    }
    ExpectNothingDangles();
  }
  RecordProperty("tags_that_won_the_race", tagged);
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

// Deferred statistics on both metastore backends (docs/design/maintenance.md "Deferred
// statistics"): files registered with their statistics pending are never pruned by column
// bounds, hydration fills in what a footer says (the same as an append computes for integers
// and strings), failures stay pending, a rollback's copies are filled too, and housekeeping's
// hydrate step does it for every dataset.
#include <map>

#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/test_fixture.h"
#include "datafile/writer.h"

namespace tarn {
namespace {

class StatsHydrationSuite : public CollectionTest {
 protected:
  void Create(const std::string& name) {
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64, region VARCHAR");
    def.partition_spec = "region";
    ASSERT_TRUE(cat_->CreateDataset(name, def).ok());
  }
  CommitMeta Meta(bool defer) {
    CommitMeta meta;
    meta.author = "alice";
    meta.receipt = Receipt();
    meta.defer_stats = defer;
    return meta;
  }
  // Rows id = from .. from + n - 1 in `region`.
  RecordBatch Rows(int64_t from, int64_t n, const std::string& region) {
    std::vector<std::vector<std::string>> rows;
    for (int64_t i = 0; i < n; ++i) rows.push_back({std::to_string(from + i), region});
    return MakeBatch(*Schema::Parse("id INT64, region VARCHAR"), rows);
  }
  SnapshotInfo Append(const std::string& ds, bool defer, int64_t from, int64_t n,
                      const std::string& region, CommitOperation op = CommitOperation::kAppend) {
    std::vector<RecordBatch> b;
    b.push_back(Rows(from, n, region));
    auto s = cat_->Append(ds, b, Meta(defer), op);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : SnapshotInfo();
  }
  std::vector<DataFile> Files(const std::string& ds, std::string_view where = "",
                              SnapshotSelector at = {}) {
    std::vector<DataFile> out;
    Status st = cat_->PlanFiles(ds, at, where, [&](const PlannedFile& pf) {
      out.push_back(pf.file);
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    std::sort(out.begin(), out.end(),
              [](const DataFile& a, const DataFile& b) { return a.path < b.path; });
    return out;
  }
  int64_t Rows(const std::string& ds) {
    int64_t rows = 0;
    Status st = cat_->Scan(ds, {}, [&](const RecordBatch& b) {
      rows += b.num_rows;
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return rows;
  }
};

TEST_P(StatsHydrationSuite, PendingFilesAreNotPrunedUntilHydrated) {
  Create("w.c.deferred");
  Create("w.c.computed");
  for (const auto& [ds, defer] : {std::pair{"w.c.deferred", true}, {"w.c.computed", false}}) {
    Append(ds, defer, 0, 10, "eu");
    Append(ds, defer, 100, 10, "us");
  }
  const auto pending = Files("w.c.deferred");
  ASSERT_EQ(pending.size(), 2u);
  for (const auto& f : pending) {
    EXPECT_TRUE(f.stats_pending);
    EXPECT_TRUE(f.columns.empty());
    EXPECT_EQ(f.record_count, 10);
  }
  // Column bounds prune the computed files; the pending ones cannot be pruned by them...
  EXPECT_EQ(Files("w.c.computed", "id = 5").size(), 1u);
  EXPECT_EQ(Files("w.c.computed", "id = 5000").size(), 0u);
  EXPECT_EQ(Files("w.c.deferred", "id = 5000").size(), 2u);
  // ... but their registered partition values still do.
  EXPECT_EQ(Files("w.c.deferred", "region = 'eu'").size(), 1u);
  EXPECT_EQ(Rows("w.c.deferred"), 20);

  auto r = cat_->HydrateStats("w.c.deferred", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->dataset, "w.c.deferred");
  EXPECT_EQ(r->files_hydrated, 2);
  EXPECT_EQ(r->files_pending, 0);
  EXPECT_TRUE(r->failures.empty());

  // The footer's statistics are what the append would have computed (integers and strings).
  const auto hydrated = Files("w.c.deferred");
  const auto computed = Files("w.c.computed");
  ASSERT_EQ(hydrated.size(), 2u);
  std::map<std::string, std::vector<ColumnStats>> by_region;
  for (const auto& f : computed) by_region[*f.partition[0]] = f.columns;
  for (const auto& f : hydrated) {
    EXPECT_FALSE(f.stats_pending);
    EXPECT_EQ(f.columns, by_region[*f.partition[0]]) << f.path;
  }
  EXPECT_EQ(Files("w.c.deferred", "id = 5000").size(), 0u);
  EXPECT_EQ(Files("w.c.deferred", "id = 105").size(), 1u);

  // Nothing pending: nothing to do, no error.
  auto again = cat_->HydrateStats("w.c.deferred", {});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->files_hydrated, 0);
  // No snapshot was made.
  EXPECT_EQ(cat_->LoadDataset("w.c.deferred")->current_snapshot_id, 2);
}

// The bounds index (docs/design/catalog-core.md "The bounds index") holds pending files as
// "unknown" (a candidate for every query) and learns their bounds when they are filled in.
TEST_P(StatsHydrationSuite, TheBoundsIndexLearnsHydratedBounds) {
  Create("w.c.indexed");
  ASSERT_OK(cat_->SetDatasetProperties("w.c.indexed", {{kBoundsIndexColumnsProperty, "id"}}));
  Append("w.c.indexed", true, 0, 10, "eu");
  Append("w.c.indexed", true, 100, 10, "us");
  auto unknown = [&]() {
    int64_t n = -1;
    EXPECT_TRUE(cat_->metastore()
                    .RunInTransaction([&](Transaction& tx) -> Status {
                      TARN_ASSIGN_OR_RETURN(
                          auto row, tx.QueryOne("SELECT COUNT(*) FROM file_bounds WHERE node IS "
                                                "NULL"));
                      TARN_ASSIGN_OR_RETURN(n, row->Int64(0));
                      return Status::OK();
                    })
                    .ok());
    return n;
  };
  EXPECT_EQ(unknown(), 2);
  EXPECT_EQ(Files("w.c.indexed", "id = 105").size(), 2u);
  ASSERT_TRUE(cat_->HydrateStats("w.c.indexed", {}).ok());
  EXPECT_EQ(unknown(), 0);
  EXPECT_EQ(Files("w.c.indexed", "id = 105").size(), 1u);
  EXPECT_EQ(Files("w.c.indexed", "id >= 5 AND id <= 100").size(), 2u);
  EXPECT_EQ(Files("w.c.indexed", "id = 50").size(), 0u);
}

TEST_P(StatsHydrationSuite, ALimitLeavesTheRestPending) {
  Create("w.c.d");
  for (int i = 0; i < 3; ++i) Append("w.c.d", true, i * 10, 10, "eu");
  StatsHydrationOptions opt;
  opt.limit = 2;
  auto r = cat_->HydrateStats("w.c.d", opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_hydrated, 2);
  EXPECT_EQ(r->files_pending, 1);
  opt.limit = -1;
  EXPECT_EQ(cat_->HydrateStats("w.c.d", opt).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(cat_->HydrateStats("w.c.missing", {}).status().kind(), ErrorKind::kNotFound);
}

TEST_P(StatsHydrationSuite, AFileThatDisagreesOrIsGoneStaysPending) {
  Create("w.c.d");
  auto ds = cat_->LoadDataset("w.c.d");
  ASSERT_TRUE(ds.ok());
  // A writer ships its own file, statistics pending, with a wrong record count.
  DataWriteOptions wo;
  wo.prefix = catalog_internal::DatasetPrefix(ds->uuid) + "data/";
  wo.defer_stats = true;
  std::vector<RecordBatch> batches;
  batches.push_back(Rows(0, 10, "eu"));
  auto written =
      WriteDataFiles(cat_->warehouse(), ds->schema, ds->spec, ds->sort_order, batches, wo);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ASSERT_EQ(written->size(), 1u);
  DataFile lying = (*written)[0];
  EXPECT_TRUE(lying.stats_pending);
  lying.record_count = 11;
  DatasetCommit part;
  part.dataset = "w.c.d";
  part.operation = CommitOperation::kAddFiles;
  part.added = {lying};
  part.meta = Meta(false);
  ASSERT_TRUE(cat_->Commit(part).ok());
  // Another whose object goes missing.
  Append("w.c.d", true, 100, 10, "us");
  std::string gone;
  for (const auto& f : Files("w.c.d")) {
    if (f.path != lying.path) gone = f.path;
  }
  ASSERT_OK(cat_->warehouse().Delete(gone));

  auto r = cat_->HydrateStats("w.c.d", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_hydrated, 0);
  EXPECT_EQ(r->files_pending, 2);
  ASSERT_EQ(r->failures.size(), 2u);
  std::map<std::string, std::string> codes;
  for (const auto& f : r->failures) codes[f.path] = f.code;
  EXPECT_EQ(codes[lying.path], "stats_mismatch");
  EXPECT_EQ(codes[gone], "not_found");
  for (const auto& f : Files("w.c.d")) EXPECT_TRUE(f.stats_pending) << f.path;
}

TEST_P(StatsHydrationSuite, ACommitCannotBothDeferAndCarryStatistics) {
  Create("w.c.d");
  Append("w.c.d", false, 0, 10, "eu");
  DataFile f = Files("w.c.d")[0];
  f.stats_pending = true;  // and its columns still there
  DatasetCommit part;
  part.dataset = "w.c.d";
  part.operation = CommitOperation::kAddFiles;
  part.added = {f};
  part.meta = Meta(false);
  auto r = cat_->Commit(part);
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << r.status().ToString();
}

TEST_P(StatsHydrationSuite, ARollbacksCopiesAndTimeTravelAreFilledToo) {
  Create("w.c.d");
  Append("w.c.d", true, 0, 10, "eu");                                // 1
  Append("w.c.d", false, 50, 5, "eu", CommitOperation::kOverwrite);  // 2: removes it
  CommitMeta meta = Meta(false);
  ASSERT_TRUE(cat_->Rollback("w.c.d", 1, meta).ok());  // 3: a copy comes back
  auto head = Files("w.c.d");
  ASSERT_EQ(head.size(), 1u);
  EXPECT_TRUE(head[0].stats_pending);
  auto r = cat_->HydrateStats("w.c.d", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->files_hydrated, 1);
  EXPECT_FALSE(Files("w.c.d")[0].stats_pending);
  SnapshotSelector at1;
  at1.snapshot_id = 1;
  auto then = Files("w.c.d", "", at1);
  ASSERT_EQ(then.size(), 1u);
  EXPECT_FALSE(then[0].stats_pending);
  EXPECT_EQ(Files("w.c.d", "id = 5000", at1).size(), 0u);
}

TEST_P(StatsHydrationSuite, HousekeepingHydratesEveryDataset) {
  Create("w.c.a");
  Create("w.c.b");
  Create("w.c.none");
  Append("w.c.a", true, 0, 10, "eu");
  Append("w.c.a", true, 10, 10, "us");
  Append("w.c.b", true, 0, 10, "eu");
  Append("w.c.none", false, 0, 10, "eu");
  auto r = cat_->RunHousekeeping(Catalog::HousekeepingStep::kHydrate);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->datasets, 2);
  EXPECT_EQ(r->files_hydrated, 3);
  EXPECT_EQ(r->failures, 0);
  for (const char* ds : {"w.c.a", "w.c.b"}) {
    for (const auto& f : Files(ds)) EXPECT_FALSE(f.stats_pending);
  }
  AuditQuery q;
  q.workspace = "w";
  auto audit = cat_->ListAudit(q);
  ASSERT_TRUE(audit.ok());
  int rows = 0;
  for (const auto& a : *audit) {
    if (a.actor == "tarn:housekeeping" && a.action == "housekeeping.hydrate") ++rows;
  }
  EXPECT_EQ(rows, 2);
  // A second pass finds nothing.
  auto again = cat_->RunHousekeeping(Catalog::HousekeepingStep::kHydrate);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->datasets, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, StatsHydrationSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

// The integrity sweep (Catalog::Fsck; docs/design/provenance.md "The integrity sweep") on
// SQLite and PostgreSQL: a clean catalog (appends, a delete, materialized views with their
// triggers) reports nothing; each kind of damage, done by hand to the metastore or the
// warehouse, is named by its code; the workspace filter; the alerts raised for platform
// findings, once per cool-off, and none for orphans.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>

#include "alerts/alerts.h"
#include "catalog/test_fixture.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"

namespace tarn {
namespace {

ReadReference Read(const std::string& name, const std::string& uuid, int64_t snap) {
  ReadReference r;
  r.dataset = name;
  r.dataset_uuid = uuid;
  r.snapshot_id = snap;
  r.resolved_by = "current";
  return r;
}

class FsckSuite : public AlertCapturingTest {
 protected:
  void SetUp() override {
    AlertCapturingTest::SetUp();
    if (!cat_) return;
    for (const char* ws : {"w", "x"}) ASSERT_OK(cat_->CreateWorkspace(ws));
    ASSERT_OK(cat_->CreateCollection("w.c"));
    ASSERT_OK(cat_->CreateCollection("x.c"));
    for (const char* n : {"w.c.src", "w.c.other", "w.c.m", "w.c.top", "x.c.d"}) {
      DatasetDefinition def;
      def.schema = *Schema::Parse("id INT64");
      auto d = cat_->CreateDataset(n, def);
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      uuid_[n] = d->uuid;
    }
    // src: two appends and a delete of one row (a deletion vector); other and x.c.d: one
    // append each.
    ASSERT_TRUE(Append("w.c.src", {{"1"}, {"2"}}, Receipt{}).ok());
    ASSERT_TRUE(Append("w.c.src", {{"3"}, {"4"}}, Receipt{}).ok());
    CommitMeta del;
    del.author = "tester";
    del.receipt = Receipt{};
    auto deleted = cat_->DeleteRows("w.c.src", "id = 1", del);
    ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
    ASSERT_TRUE(Append("w.c.other", {{"5"}}, Receipt{}).ok());
    ASSERT_TRUE(Append("x.c.d", {{"6"}}, Receipt{}).ok());
    // m = a view over src and other, top = a view over m: what `tarn mv create` leaves (the
    // data written by the view, then the registration with its triggers).
    ASSERT_TRUE(Append("w.c.m", {{"2"}, {"3"}},
                       Receipt::Of({From("w.c.src", 3), From("w.c.other", 1)}, "view:w.c.m"))
                    .ok());
    ViewDefinition def;
    def.sql = "SELECT * FROM w.c.src UNION ALL SELECT * FROM w.c.other";
    ASSERT_TRUE(cat_->RegisterMaterializedView("w.c.m", def, {"w.c.src", "w.c.other"}, false,
                                               kRefreshFull, "tester")
                    .ok());
    ASSERT_TRUE(Append("w.c.top", {{"2"}}, Receipt::Of({From("w.c.m", 1)}, "view:w.c.top")).ok());
    def.sql = "SELECT * FROM w.c.m";
    ASSERT_TRUE(
        cat_->RegisterMaterializedView("w.c.top", def, {"w.c.m"}, false, kRefreshFull, "tester")
            .ok());
  }

  Result<SnapshotInfo> Append(const std::string& name,
                              const std::vector<std::vector<std::string>>& rows,
                              std::optional<Receipt> receipt) {
    CommitMeta m;
    m.author = "tester";
    m.receipt = std::move(receipt);
    std::vector<RecordBatch> batches;
    batches.push_back(MakeBatch(*Schema::Parse("id INT64"), rows));
    return cat_->Append(name, batches, m);
  }
  ReadReference From(const std::string& name, int64_t snap) {
    return Read(name, uuid_[name], snap);
  }
  // Runs one statement on the metastore, as a person repairing (or breaking) it by hand.
  void Sql(const std::string& sql, const SqlParams& params = {}) {
    ASSERT_OK(cat_->metastore().RunInTransaction(
        [&](Transaction& tx) { return tx.Execute(sql, params).status(); }));
  }
  std::string One(const std::string& sql, const SqlParams& params) {
    std::string out;
    Status st = cat_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(sql, params));
      if (!row) return Status::NotFound("no row");
      TARN_ASSIGN_OR_RETURN(auto text, row->Text(0));
      out = std::string(text);
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return out;
  }
  // The warehouse key of a live data file of `name` (its oldest, or its newest).
  std::string FileOf(const std::string& name, bool newest = false) {
    return One(std::string("SELECT path FROM data_files WHERE dataset_id = (SELECT id FROM "
                           "datasets WHERE uuid = ?) AND removed_snapshot_id IS NULL ORDER BY "
                           "id ") +
                   (newest ? "DESC" : "") + " LIMIT 1",
               {uuid_[name]});
  }
  FsckReport Sweep(const FsckOptions& options = {}) {
    auto r = cat_->Fsck(options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : FsckReport{};
  }
  static std::vector<FsckFinding> Of(const FsckReport& r, const std::string& code) {
    std::vector<FsckFinding> out;
    for (const auto& f : r.findings) {
      if (f.code == code) out.push_back(f);
    }
    return out;
  }
  static std::string Dump(const FsckReport& r) {
    std::string out;
    for (const auto& f : r.findings) {
      out += f.code + " | " + f.object + " | " + f.dataset + " | " + f.detail + "\n";
    }
    return out;
  }
  static size_t Count(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
      ++n;
    }
    return n;
  }

  std::map<std::string, std::string> uuid_;
};

TEST_P(FsckSuite, ACleanCatalogReportsNothing) {
  if (!cat_) return;
  FsckReport all = Sweep();
  EXPECT_TRUE(all.clean()) << Dump(all);
  EXPECT_TRUE(all.consistent());
  EXPECT_EQ(all.datasets_checked, 5);
  EXPECT_EQ(all.files_checked, 6);  // src 2, other 1, m 1, top 1, x.c.d 1
  EXPECT_EQ(all.objects_listed, 6);
  FsckOptions w;
  w.workspace = "w";
  FsckReport one = Sweep(w);
  EXPECT_TRUE(one.clean()) << Dump(one);
  EXPECT_EQ(one.datasets_checked, 4);
  EXPECT_EQ(one.objects_listed, 5);
  FsckOptions metastore_only;
  metastore_only.check_objects = false;
  EXPECT_EQ(Sweep(metastore_only).objects_listed, 0);
  EXPECT_EQ(Alerts(), "");
  // A workspace that does not exist, a negative grace.
  FsckOptions nope;
  nope.workspace = "nope";
  auto missing = cat_->Fsck(nope);
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(FieldOf(missing.status(), "code"), "workspace_not_found");
  FsckOptions negative;
  negative.orphan_grace_us = -1;
  EXPECT_EQ(cat_->Fsck(negative).status().kind(), ErrorKind::kInvalidArgument);
}

TEST_P(FsckSuite, ADataFileGoneFromTheWarehouseIsAMissingObject) {
  if (!cat_) return;
  const std::string key = FileOf("w.c.src", /*newest=*/true);
  ASSERT_TRUE(std::filesystem::remove(dir_ / "warehouse" / key)) << key;
  FsckReport r = Sweep();
  auto missing = Of(r, kFsckMissingObject);
  ASSERT_EQ(missing.size(), 1u) << Dump(r);
  EXPECT_EQ(missing[0].object, key);
  EXPECT_EQ(missing[0].dataset, "w.c.src");
  EXPECT_TRUE(missing[0].platform);
  EXPECT_EQ(r.findings.size(), 1u) << Dump(r);
  EXPECT_FALSE(r.consistent());
  // Listing the dataset's prefix alone finds it too; without the warehouse, nothing.
  FsckOptions w;
  w.workspace = "w";
  EXPECT_EQ(Of(Sweep(w), kFsckMissingObject).size(), 1u);
  FsckOptions metastore_only;
  metastore_only.check_objects = false;
  EXPECT_TRUE(Sweep(metastore_only).clean());
}

TEST_P(FsckSuite, TotalsThatDisagreeWithTheLiveFilesAreAMismatch) {
  if (!cat_) return;
  Sql("UPDATE snapshots SET total_records = total_records + 5 WHERE dataset_id = (SELECT id "
      "FROM datasets WHERE uuid = ?) AND snapshot_id = 3",
      {uuid_["w.c.src"]});
  FsckReport r = Sweep();
  auto found = Of(r, kFsckSnapshotTotalMismatch);
  ASSERT_EQ(found.size(), 1u) << Dump(r);
  EXPECT_EQ(found[0].object, "w.c.src");
  // 4 rows written, 1 deleted by a vector: the live rows are 3.
  EXPECT_NE(found[0].detail.find("total_records 8 (live files: 3)"), std::string::npos)
      << found[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << Dump(r);
}

TEST_P(FsckSuite, TriggersWhoseEndsWereDroppedDangle) {
  if (!cat_) return;
  // Drops that forgot their triggers: top's dataset (the target of the trigger on m) and
  // other (the source of one of m's triggers).
  Sql("UPDATE datasets SET dropped_at = 1 WHERE uuid = ?", {uuid_["w.c.top"]});
  Sql("UPDATE datasets SET dropped_at = 1 WHERE uuid = ?", {uuid_["w.c.other"]});
  FsckReport r = Sweep();
  auto found = Of(r, kFsckDanglingTrigger);
  ASSERT_EQ(found.size(), 2u) << Dump(r);
  EXPECT_EQ(found[0].object, "w.c.other");
  EXPECT_NE(found[0].detail.find("refresh__c__m"), std::string::npos) << found[0].detail;
  EXPECT_NE(found[0].detail.find("was dropped"), std::string::npos) << found[0].detail;
  EXPECT_EQ(found[1].object, "w.c.m");
  EXPECT_NE(found[1].detail.find("refresh__c__top"), std::string::npos) << found[1].detail;
  EXPECT_NE(found[1].detail.find("the dataset of its target w.c.top was dropped"),
            std::string::npos)
      << found[1].detail;
  // A trigger that targets a plain view dangles too.
  ViewDefinition one;
  one.sql = "SELECT 1";
  ASSERT_TRUE(cat_->CreateView("w.c.plain", one, false, "tester").ok());
  Sql("UPDATE triggers SET target_view_id = (SELECT id FROM views WHERE name = 'plain') WHERE "
      "dataset_id = (SELECT id FROM datasets WHERE uuid = ?)",
      {uuid_["w.c.src"]});
  auto plain = Of(Sweep(), kFsckDanglingTrigger);
  ASSERT_EQ(plain.size(), 3u);
  EXPECT_EQ(plain[0].object, "w.c.src");  // by trigger id: src's was the first made
  EXPECT_NE(plain[0].detail.find("its target w.c.plain is neither a materialized view nor a task"),
            std::string::npos)
      << plain[0].detail;
}

TEST_P(FsckSuite, ACircleInTheTriggerGraphIsReportedOnceInOrder) {
  if (!cat_) return;
  // m -> top exists; a trigger on top refreshing m closes the circle.
  Sql("INSERT INTO triggers (dataset_id, name, kind, target_view_id, author, created_at) VALUES "
      "((SELECT id FROM datasets WHERE uuid = ?), 'refresh__c__m', "
      "'materialized_view_refresh', (SELECT id FROM views WHERE name = 'm'), 'tester', 0)",
      {uuid_["w.c.top"]});
  FsckReport r = Sweep();
  auto found = Of(r, kFsckTriggerCycle);
  ASSERT_EQ(found.size(), 1u) << Dump(r);
  EXPECT_EQ(found[0].object, "w.c.m");
  EXPECT_NE(found[0].detail.find("w.c.m -> w.c.top -> w.c.m"), std::string::npos)
      << found[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << Dump(r);
  // A self-loop on top as well: two cycles, each once, the least-named first.
  Sql("INSERT INTO triggers (dataset_id, name, kind, target_view_id, author, created_at) VALUES "
      "((SELECT id FROM datasets WHERE uuid = ?), 'refresh__c__top', "
      "'materialized_view_refresh', (SELECT id FROM views WHERE name = 'top'), 'tester', 0)",
      {uuid_["w.c.top"]});
  auto more = Of(Sweep(), kFsckTriggerCycle);
  ASSERT_EQ(more.size(), 2u);
  EXPECT_NE(more[1].detail.find("w.c.top -> w.c.top"), std::string::npos) << more[1].detail;
}

TEST_P(FsckSuite, TheCurrentSnapshotWithoutAReceiptIsMissingOne) {
  if (!cat_) return;
  Sql("UPDATE snapshots SET receipt = '{}' WHERE dataset_id = (SELECT id FROM datasets WHERE "
      "uuid = ?) AND snapshot_id = 3",
      {uuid_["w.c.src"]});
  // History is not swept: an older snapshot of other without one, and x.c.d's current one
  // from before provenance (no source list on its row: "not recorded" is legitimate there).
  Sql("UPDATE snapshots SET receipt = '{}', sources = NULL WHERE dataset_id = (SELECT id FROM "
      "datasets WHERE uuid = ?)",
      {uuid_["x.c.d"]});
  FsckReport r = Sweep();
  auto found = Of(r, kFsckMissingReceipt);
  ASSERT_EQ(found.size(), 1u) << Dump(r);
  EXPECT_EQ(found[0].object, "w.c.src");
  EXPECT_NE(found[0].detail.find("snapshot 3 of w.c.src (delete_rows)"), std::string::npos)
      << found[0].detail;
  // A receipt that does not parse is named too.
  Sql("UPDATE snapshots SET receipt = 'not json' WHERE dataset_id = (SELECT id FROM datasets "
      "WHERE uuid = ?)",
      {uuid_["w.c.other"]});
  EXPECT_EQ(Of(Sweep(), kFsckMissingReceipt).size(), 2u);

  // A commit without a receipt on top of an old one is found; a maintenance commit (tarn's
  // own, user_created = false) is not.
  auto bare = Append("x.c.d", {{"7"}}, std::nullopt);
  ASSERT_TRUE(bare.ok());
  auto after = Of(Sweep(), kFsckMissingReceipt);
  ASSERT_EQ(after.size(), 3u);
  DatasetCommit housekeeping;
  housekeeping.dataset = "x.c.d";
  housekeeping.operation = CommitOperation::kRollback;
  housekeeping.rollback_to = 1;
  housekeeping.meta.author = "tarn";
  housekeeping.meta.user_created = false;
  ASSERT_TRUE(cat_->CommitWritten({housekeeping}).ok());
  EXPECT_EQ(Of(Sweep(), kFsckMissingReceipt).size(), 2u);
}

TEST_P(FsckSuite, AViewsRefreshReadingAnUndeclaredDatasetIsOutsideItsDeclaration) {
  if (!cat_) return;
  // A refresh of m whose receipt reads x.c.d, which m does not declare.
  ASSERT_TRUE(
      Append("w.c.m", {{"6"}}, Receipt::Of({From("w.c.src", 3), From("x.c.d", 1)}, "view:w.c.m"))
          .ok());
  FsckReport r = Sweep();
  auto found = Of(r, kFsckReceiptOutsideDeclaration);
  ASSERT_EQ(found.size(), 1u) << Dump(r);
  EXPECT_EQ(found[0].object, "w.c.m");
  EXPECT_NE(found[0].detail.find("read x.c.d@1"), std::string::npos) << found[0].detail;
  EXPECT_NE(found[0].detail.find("w.c.other, w.c.src"), std::string::npos) << found[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << Dump(r);
  // Data written under an earlier SQL version is not held to the current version's sources
  // (they are all the catalog keeps): after a replace, until the next refresh, it is not
  // checked.
  ViewDefinition v2;
  v2.sql = "SELECT * FROM w.c.src";
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", v2, {"w.c.src"}, true, kRefreshFull, "tester").ok());
  EXPECT_TRUE(Of(Sweep(), kFsckReceiptOutsideDeclaration).empty());
  ASSERT_TRUE(Append("w.c.m", {{"8"}},
                     Receipt::Of({From("w.c.src", 3), From("w.c.other", 1)}, "view:w.c.m"))
                  .ok());
  auto v2_found = Of(Sweep(), kFsckReceiptOutsideDeclaration);
  ASSERT_EQ(v2_found.size(), 1u);
  EXPECT_NE(v2_found[0].detail.find("read w.c.other@1, which its declared sources (w.c.src)"),
            std::string::npos)
      << v2_found[0].detail;
  // A hand-run commit on the view (no producer) may read what it likes.
  ASSERT_TRUE(Append("w.c.m", {{"7"}}, Receipt::Of({From("x.c.d", 1)})).ok());
  EXPECT_TRUE(Of(Sweep(), kFsckReceiptOutsideDeclaration).empty());
}

TEST_P(FsckSuite, LiveFilesSharingRowIdsOverlap) {
  if (!cat_) return;
  // src's files hold row ids 0-1 and 2-3; the second is moved to 1-2.
  Sql("UPDATE data_files SET first_row_id = 1 WHERE path = ?", {FileOf("w.c.src", true)});
  FsckReport r = Sweep();
  auto found = Of(r, kFsckRowIdOverlap);
  ASSERT_EQ(found.size(), 1u) << Dump(r);
  EXPECT_EQ(found[0].object, "w.c.src");
  EXPECT_NE(found[0].detail.find("share row ids 1 to 1"), std::string::npos) << found[0].detail;
  EXPECT_EQ(r.findings.size(), 1u) << Dump(r);
}

TEST_P(FsckSuite, ABoundsIndexThatDisagreesWithTheStatisticsIsAMismatch) {
  if (!cat_) return;
  // src indexes id: its files (ids 1-2, 3-4) have one row each, built from their statistics.
  ASSERT_OK(cat_->SetDatasetProperties("w.c.src", {{kBoundsIndexColumnsProperty, "id"}}));
  ASSERT_TRUE(Append("w.c.src", {{"5"}, {"6"}}, std::nullopt).ok());  // a row by the commit
  FsckReport clean = Sweep();
  EXPECT_TRUE(Of(clean, kFsckBoundsIndexMismatch).empty()) << Dump(clean);

  const std::string first = FileOf("w.c.src");
  const std::string last = FileOf("w.c.src", true);
  // A lost row (the planner would leave the file out of every plan on id), and a row whose
  // bounds moved (it would be left out of plans it belongs to).
  Sql("DELETE FROM file_bounds WHERE data_file_id = (SELECT id FROM data_files WHERE path = ?)",
      {first});
  Sql("UPDATE file_bounds SET lo = lo + 4, hi = hi + 4 WHERE data_file_id = (SELECT id FROM "
      "data_files WHERE path = ?)",
      {last});
  FsckReport r = Sweep();
  auto found = Of(r, kFsckBoundsIndexMismatch);
  ASSERT_EQ(found.size(), 2u) << Dump(r);
  std::string all = found[0].detail + "\n" + found[1].detail;
  EXPECT_EQ(Count(all, "has no row for field id"), 1u) << all;
  EXPECT_EQ(Count(all, "at the wrong node"), 1u) << all;
  EXPECT_NE(all.find(first), std::string::npos) << all;
  EXPECT_NE(all.find(last), std::string::npos) << all;
  for (const auto& f : found) {
    EXPECT_EQ(f.dataset, "w.c.src");
    EXPECT_TRUE(f.platform);
  }
  EXPECT_FALSE(r.consistent());

  // Building the index again (the property removed and set) repairs it.
  ASSERT_OK(cat_->SetDatasetProperties("w.c.src", {}, {kBoundsIndexColumnsProperty}));
  ASSERT_OK(cat_->SetDatasetProperties("w.c.src", {{kBoundsIndexColumnsProperty, "id"}}));
  FsckReport repaired = Sweep();
  EXPECT_TRUE(Of(repaired, kFsckBoundsIndexMismatch).empty()) << Dump(repaired);
}

TEST_P(FsckSuite, OrphansOlderThanTheGraceAreReportedAndNotAlerted) {
  if (!cat_) return;
  const std::string prefix = "datasets/" + uuid_["w.c.src"] + "/data/";
  const std::string old_key = prefix + "crashed-old.parquet";
  const std::string young_key = prefix + "crashed-young.parquet";
  const std::string stray_key = "datasets/00000000-0000-4000-8000-000000000000/data/x.parquet";
  for (const auto& key : {old_key, young_key, stray_key}) {
    ASSERT_OK(cat_->warehouse().Put(key, "PAR1"));
  }
  const auto two_days_ago = std::filesystem::file_time_type::clock::now() - std::chrono::hours(48);
  std::filesystem::last_write_time(dir_ / "warehouse" / old_key, two_days_ago);
  std::filesystem::last_write_time(dir_ / "warehouse" / stray_key, two_days_ago);

  FsckReport r = Sweep();
  auto found = Of(r, kFsckOrphanObject);
  ASSERT_EQ(found.size(), 2u) << Dump(r);
  EXPECT_EQ(found[0].object, old_key);
  EXPECT_EQ(found[0].dataset, "w.c.src");
  EXPECT_FALSE(found[0].platform);
  EXPECT_EQ(found[1].object, stray_key);  // under no live dataset's prefix
  EXPECT_EQ(found[1].dataset, "");
  EXPECT_EQ(r.findings.size(), 2u) << Dump(r);
  EXPECT_FALSE(r.clean());
  EXPECT_TRUE(r.consistent());
  EXPECT_EQ(r.objects_listed, 9);
  // Orphans are expected after a crash: no alert.
  EXPECT_EQ(Alerts(), "");
  // Cleanup calls the same objects orphans (one rule, catalog_store::Orphans), with its own
  // grace of an hour.
  auto cleanup = cat_->Cleanup(false);
  ASSERT_TRUE(cleanup.ok()) << cleanup.status().ToString();
  EXPECT_EQ(std::set<std::string>(cleanup->orphans.begin(), cleanup->orphans.end()),
            (std::set<std::string>{old_key, stray_key}));
  // No grace: the young one too. A workspace's sweep lists only its datasets' prefixes.
  FsckOptions none;
  none.orphan_grace_us = 0;
  EXPECT_EQ(Of(Sweep(none), kFsckOrphanObject).size(), 3u);
  FsckOptions w;
  w.workspace = "w";
  auto in_w = Of(Sweep(w), kFsckOrphanObject);
  ASSERT_EQ(in_w.size(), 1u);
  EXPECT_EQ(in_w[0].object, old_key);
}

TEST_P(FsckSuite, AWorkspaceSweepReportsOnlyItsOwnDamage) {
  if (!cat_) return;
  ASSERT_TRUE(std::filesystem::remove(dir_ / "warehouse" / FileOf("x.c.d")));
  Sql("UPDATE snapshots SET receipt = '{}' WHERE dataset_id = (SELECT id FROM datasets WHERE "
      "uuid = ?)",
      {uuid_["x.c.d"]});
  FsckOptions w;
  w.workspace = "w";
  FsckReport in_w = Sweep(w);
  EXPECT_TRUE(in_w.clean()) << Dump(in_w);
  FsckOptions x;
  x.workspace = "x";
  FsckReport in_x = Sweep(x);
  EXPECT_EQ(in_x.datasets_checked, 1);
  EXPECT_EQ(Of(in_x, kFsckMissingObject).size(), 1u) << Dump(in_x);
  EXPECT_EQ(Of(in_x, kFsckMissingReceipt).size(), 1u) << Dump(in_x);
  EXPECT_EQ(in_x.findings.size(), 2u) << Dump(in_x);
  // A circle through a dataset of x is x's; damage to w's triggers is not.
  Sql("UPDATE datasets SET dropped_at = 1 WHERE uuid = ?", {uuid_["w.c.top"]});
  EXPECT_TRUE(Of(Sweep(x), kFsckDanglingTrigger).empty());
  EXPECT_EQ(Of(Sweep(w), kFsckDanglingTrigger).size(), 1u);
}

TEST_P(FsckSuite, PlatformFindingsAlertOncePerCoolOff) {
  if (!cat_) return;
  const std::string key = FileOf("w.c.src");
  ASSERT_TRUE(std::filesystem::remove(dir_ / "warehouse" / key));
  Sql("UPDATE snapshots SET receipt = '{}' WHERE dataset_id = (SELECT id FROM datasets WHERE "
      "uuid = ?)",
      {uuid_["w.c.other"]});
  FsckReport r = Sweep();
  ASSERT_EQ(r.findings.size(), 2u) << Dump(r);
  std::string lines = Alerts();
  EXPECT_EQ(Count(lines, "\n"), 2u) << lines;
  EXPECT_NE(lines.find("\"code\":\"missing_object\""), std::string::npos) << lines;
  EXPECT_NE(lines.find("\"severity\":\"CRITICAL\""), std::string::npos) << lines;
  EXPECT_NE(lines.find("\"object\":\"" + key + "\""), std::string::npos) << lines;
  EXPECT_NE(lines.find("\"code\":\"missing_receipt\""), std::string::npos) << lines;
  EXPECT_NE(lines.find("\"found_by\":\"fsck\""), std::string::npos) << lines;
  // The same findings again: inside the cool-off, quiet; the alerts table counts both raises.
  EXPECT_EQ(Sweep().findings.size(), 2u);
  EXPECT_EQ(Count(Alerts(), "\n"), 2u);
  auto rows = alerts::ListAlerts(cat_->metastore(), {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  for (const auto& row : *rows) EXPECT_EQ(row.count, 2) << row.code;
}

// `tarn serve --fsck-every`: of any number of servers asking at once, one claims the due slot;
// the next slot is due an interval later; a slot missed while no server ran is claimed once.
TEST_P(FsckSuite, APeriodicSlotIsClaimedByOneCallerOnly) {
  if (!cat_) return;
  constexpr int64_t kHour = int64_t{3600} * 1000 * 1000;
  std::atomic<int> claimed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto r = cat_->ClaimPeriodicRun("fsck", kHour, "runner-" + std::to_string(i));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      if (*r) ++claimed;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(claimed.load(), 1);
  EXPECT_FALSE(*cat_->ClaimPeriodicRun("fsck", kHour, "late"));
  // Another step has its own slot.
  EXPECT_TRUE(*cat_->ClaimPeriodicRun("other", kHour, "r"));
  // Due again (every server was down past it): one claim, then quiet for an interval.
  Sql("UPDATE periodic_runs SET due_at = 1 WHERE step = 'fsck'", {});
  EXPECT_TRUE(*cat_->ClaimPeriodicRun("fsck", kHour, "back"));
  EXPECT_FALSE(*cat_->ClaimPeriodicRun("fsck", kHour, "back"));
  EXPECT_EQ(cat_->ClaimPeriodicRun("fsck", 999'999, "r").status().kind(),
            ErrorKind::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Backends, FsckSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

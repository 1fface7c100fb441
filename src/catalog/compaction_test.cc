// Compaction on both metastore backends: the plan (groups by partition, thresholds, deleted
// rows, --where on partition columns only), the rewrite (rows in = rows out, every row keeps
// its id, deletion vectors applied, sort_aware output sorted, a bin over the memory budget
// split), the commit (user_created false, no trigger fires, a racing delete conflicts and
// leaves nothing behind, a racing append lands) and the rules that keep row ids honest (a
// compaction commit cannot be sent; no other commit may name the row id field).
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "catalog/error_codes.h"
#include "catalog/test_fixture.h"
#include "common/clock.h"
#include "datafile/reader.h"
#include "objectstore/object_store.h"

namespace tarn {
namespace {

using Row = std::tuple<std::string, std::string, std::string>;  // id, region, v as text

class CompactionSuite : public CatalogBackendTest {
 protected:
  CompactionSuite() { clock_ = manual_; }
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
  }
  void Create(const std::string& name, const std::string& spec, const std::string& sort = "") {
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64 NOT NULL, region VARCHAR, v INT64");
    def.partition_spec = spec;
    def.sort_order = sort;
    auto ds = cat_->CreateDataset(name, def);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  }
  CommitMeta Meta() {
    CommitMeta m;
    m.author = "alice";
    m.receipt = Receipt();
    return m;
  }
  // Appends rows [from, from + n) of `region`, v = (id * 7919) % 1000, as one file.
  void AppendRange(const std::string& ds, int64_t from, int64_t n, const std::string& region) {
    std::vector<std::vector<std::string>> rows;
    for (int64_t id = from; id < from + n; ++id) {
      rows.push_back({std::to_string(id), region, std::to_string((id * 7919) % 1000)});
    }
    std::vector<RecordBatch> batches;
    batches.push_back(
        MakeBatch(*Schema::Parse("id INT64 NOT NULL, region VARCHAR, v INT64"), rows));
    auto s = cat_->Append(ds, batches, Meta());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
  }
  // Every row with its row id.
  std::map<int64_t, Row> Rows(const std::string& ds) {
    std::map<int64_t, Row> out;
    ScanOptions options;
    options.with_row_ids = true;
    Status st = cat_->Scan(ds, options, [&](const RecordBatch& b) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        const int64_t rid = b.columns[3].values<int64_t>()[i];
        EXPECT_EQ(out.count(rid), 0u) << "row id " << rid << " twice";
        out[rid] = {ValueText(b.columns[0], i), ValueText(b.columns[1], i),
                    ValueText(b.columns[2], i)};
      }
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return out;
  }
  std::vector<PlannedFile> Files(const std::string& ds) {
    std::vector<PlannedFile> out;
    Status st = cat_->PlanFiles(ds, {}, "", [&](const PlannedFile& f) {
      out.push_back(f);
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return out;
  }
  size_t ObjectCount() {
    size_t n = 0;
    std::string token;
    do {
      auto page = cat_->warehouse().List("datasets/", token, 1000);
      EXPECT_TRUE(page.ok());
      if (!page.ok()) break;
      n += page->objects.size();
      token = page->next_token;
    } while (!token.empty());
    return n;
  }
  // 30 files of 10 rows in three regions, then the rows with id % 7 == 0 deleted.
  void Fill(const std::string& ds) {
    for (int64_t k = 0; k < 30; ++k) {
      const char* region = k % 3 == 0 ? "eu" : k % 3 == 1 ? "us" : "apac";
      AppendRange(ds, k * 10, 10, region);
    }
    auto del = cat_->DeleteRows(ds, "id IN (0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77)", Meta());
    ASSERT_TRUE(del.ok()) << del.status().ToString();
  }
  std::shared_ptr<ManualClock> manual_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kStopped, 1'700'000'000'000'000);
};

TEST_P(CompactionSuite, DryRunPlansPerPartitionAndWritesNothing) {
  Create("w.c.d", "region");
  Fill("w.c.d");
  const auto before = Rows("w.c.d");
  const size_t objects = ObjectCount();
  auto ds = cat_->LoadDataset("w.c.d");
  ASSERT_TRUE(ds.ok());
  CompactionOptions options;
  options.dry_run = true;
  auto plan = cat_->Compact("w.c.d", options, Meta());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->dry_run);
  EXPECT_EQ(plan->rule, CompactionRule::kBrute);  // auto without a sort order
  EXPECT_EQ(plan->read_snapshot_id, *ds->current_snapshot_id);
  EXPECT_FALSE(plan->snapshot_id);
  EXPECT_TRUE(plan->nothing_to_do.empty());
  EXPECT_EQ(plan->min_file_size, 96 << 20);
  ASSERT_EQ(plan->outputs.size(), 3u);
  std::set<std::string> partitions;
  int64_t deleted = 0;
  for (const auto& o : plan->outputs) {
    partitions.insert(o.partition);
    EXPECT_EQ(o.inputs.size(), 10u);
    EXPECT_EQ(o.input_rows, 100);
    EXPECT_TRUE(o.path.empty());
    EXPECT_NE(o.reason.find("under 96 MiB"), std::string::npos) << o.reason;
    deleted += o.deleted_rows;
  }
  EXPECT_EQ(deleted, 12);
  EXPECT_EQ(plan->rows_out(), 288);
  EXPECT_EQ(partitions, (std::set<std::string>{"region=apac", "region=eu", "region=us"}));
  // Nothing changed.
  EXPECT_EQ(ObjectCount(), objects);
  EXPECT_EQ(cat_->LoadDataset("w.c.d")->current_snapshot_id, ds->current_snapshot_id);
  EXPECT_EQ(Rows("w.c.d"), before);
}

TEST_P(CompactionSuite, RewritesKeepingEveryRowAndItsIdAndAppliesDeletes) {
  Create("w.c.d", "region");
  Fill("w.c.d");
  const auto before = Rows("w.c.d");
  ASSERT_EQ(before.size(), 288u);
  const auto ds_before = *cat_->LoadDataset("w.c.d");
  auto r = cat_->Compact("w.c.d", {}, Meta());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->snapshot_id);
  EXPECT_EQ(*r->snapshot_id, *ds_before.current_snapshot_id + 1);
  ASSERT_EQ(r->outputs.size(), 3u);
  for (const auto& o : r->outputs) {
    EXPECT_FALSE(o.path.empty());
    EXPECT_EQ(o.rows, o.input_rows - o.deleted_rows);
  }
  // Same rows, same ids; three files, no deletion vectors.
  EXPECT_EQ(Rows("w.c.d"), before);
  const auto files = Files("w.c.d");
  ASSERT_EQ(files.size(), 3u);
  for (const auto& f : files) {
    EXPECT_EQ(f.deleted_rows, 0);
    EXPECT_TRUE(f.file.StoresRowIds());
    auto range = f.file.RowIdRange();
    ASSERT_TRUE(range);
    EXPECT_EQ(f.file.first_row_id, range->first);
  }
  auto ds = *cat_->LoadDataset("w.c.d");
  EXPECT_EQ(ds.total_records, 288);
  EXPECT_EQ(ds.total_files, 3);
  EXPECT_EQ(ds.next_row_id, ds_before.next_row_id);  // no row id allocated
  auto snaps = cat_->ListSnapshots("w.c.d");
  ASSERT_TRUE(snaps.ok());
  const SnapshotInfo& s = snaps->back();
  EXPECT_EQ(s.operation, "compact");
  EXPECT_FALSE(s.user_created);
  EXPECT_EQ(s.author, "alice");
  EXPECT_EQ(s.total_records, 288);
  EXPECT_EQ(s.added_records, 288);
  EXPECT_EQ(s.deleted_records, 288);
  EXPECT_EQ(s.deleted_files, 30);
  // The old snapshot still reads as it was (time travel).
  ScanOptions at;
  at.at.snapshot_id = *ds_before.current_snapshot_id;
  int64_t rows_then = 0;
  ASSERT_OK(cat_->Scan("w.c.d", at, [&](const RecordBatch& b) {
    rows_then += b.num_rows;
    return Status::OK();
  }));
  EXPECT_EQ(rows_then, 288);
  // Nothing left to do.
  auto again = cat_->Compact("w.c.d", {}, Meta());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->snapshot_id);
  EXPECT_NE(again->nothing_to_do.find("no partition"), std::string::npos) << again->nothing_to_do;

  // Rows deleted from a compacted file, then compacted again: the stored ids are carried over.
  ASSERT_TRUE(cat_->DeleteRows("w.c.d", "id IN (1, 2, 3)", Meta()).ok());
  auto expected = before;
  for (auto it = expected.begin(); it != expected.end();) {
    const std::string& id = std::get<0>(it->second);
    it = id == "1" || id == "2" || id == "3" ? expected.erase(it) : std::next(it);
  }
  EXPECT_EQ(Rows("w.c.d"), expected);
  auto third = cat_->Compact("w.c.d", {}, Meta());
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  ASSERT_EQ(third->outputs.size(), 1u);  // the one file with deleted rows
  EXPECT_EQ(third->outputs[0].reason, "1 file with deleted rows");
  EXPECT_EQ(Rows("w.c.d"), expected);
}

TEST_P(CompactionSuite, SortAwareWritesEachOutputInTheDatasetsOrder) {
  Create("w.c.s", "", "v DESC, id");
  for (int64_t k = 0; k < 12; ++k) AppendRange("w.c.s", k * 25, 25, "eu");
  const auto before = Rows("w.c.s");
  auto r = cat_->Compact("w.c.s", {}, Meta());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rule, CompactionRule::kSortAware);
  EXPECT_EQ(Rows("w.c.s"), before);
  const auto files = Files("w.c.s");
  ASSERT_EQ(files.size(), 1u);
  auto ds = *cat_->LoadDataset("w.c.s");
  ReadOptions read;
  read.with_row_ids = true;
  auto batch = ReadDataFile(cat_->warehouse(), files[0].file, ds.schema, {}, nullptr, read);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->num_rows, 300);
  const int64_t* v = batch->columns[2].values<int64_t>();
  const int64_t* id = batch->columns[0].values<int64_t>();
  for (int64_t i = 1; i < batch->num_rows; ++i) {
    ASSERT_TRUE(v[i - 1] > v[i] || (v[i - 1] == v[i] && id[i - 1] < id[i])) << "row " << i;
  }
  // sort_aware on a dataset without an order is refused; brute on one with an order works.
  Create("w.c.u", "");
  CompactionOptions sorted;
  sorted.rule = CompactionRule::kSortAware;
  EXPECT_EQ(cat_->Compact("w.c.u", sorted, Meta()).status().kind(), ErrorKind::kInvalidArgument);
}

TEST_P(CompactionSuite, WhereChoosesPartitionsAndOnlyPartitionColumns) {
  Create("w.c.d", "region");
  Fill("w.c.d");
  CompactionOptions eu;
  eu.where = "region = 'eu'";
  auto r = cat_->Compact("w.c.d", eu, Meta());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].partition, "region=eu");
  EXPECT_EQ(Files("w.c.d").size(), 21u);
  CompactionOptions bad;
  bad.where = "v > 3";
  auto refused = cat_->Compact("w.c.d", bad, Meta());
  EXPECT_TRUE(refused.status().Is(codes::kCompactionFilterNotPartition))
      << refused.status().ToString();
  EXPECT_EQ(FieldOf(refused.status(), "column"), "v");
  // Unpartitioned: no column is a partition column; an empty dataset has nothing to do.
  Create("w.c.e", "");
  EXPECT_TRUE(
      cat_->Compact("w.c.e", bad, Meta()).status().Is(codes::kCompactionFilterNotPartition));
  auto empty = cat_->Compact("w.c.e", {}, Meta());
  ASSERT_TRUE(empty.ok());
  EXPECT_NE(empty->nothing_to_do.find("no snapshot"), std::string::npos);
}

TEST_P(CompactionSuite, ThresholdsComeFromPropertiesAndAreChecked) {
  Create("w.c.d", "");
  for (int64_t k = 0; k < 6; ++k) AppendRange("w.c.d", k * 10, 10, "eu");
  // Every file is at least 1 byte: with a minimum of 1 byte none is small.
  ASSERT_OK(cat_->SetDatasetProperties(
      "w.c.d", {{"compaction.min_file_size", "1B"}, {"compaction.target_file_size", "1KiB"}}));
  auto none = cat_->Compact("w.c.d", {}, Meta());
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->target_file_size, 1024);
  EXPECT_EQ(none->max_file_size, 1536);
  EXPECT_FALSE(none->nothing_to_do.empty());
  ASSERT_OK(cat_->SetDatasetProperties("w.c.d", {{"compaction.min_file_size", "2KiB"}}));
  auto refused = cat_->Compact("w.c.d", {}, Meta());
  EXPECT_TRUE(refused.status().Is(codes::kInvalidProperty)) << refused.status().ToString();
  ASSERT_OK(cat_->SetDatasetProperties("w.c.d", {{"compaction.min_file_size", "lots"}}));
  refused = cat_->Compact("w.c.d", {}, Meta());
  EXPECT_TRUE(refused.status().Is(codes::kInvalidProperty));
  EXPECT_EQ(FieldOf(refused.status(), "property"), "compaction.min_file_size");
  // A small target packs the files into several outputs, none over the maximum's worth.
  ASSERT_OK(cat_->SetDatasetProperties("w.c.d", {{"compaction.min_file_size", "100KiB"},
                                                 {"compaction.target_file_size", "100KiB"},
                                                 {"compaction.max_file_size", "100KiB"}}));
  const int64_t one = Files("w.c.d")[0].file.file_size_bytes;
  ASSERT_OK(cat_->SetDatasetProperties(
      "w.c.d", {{"compaction.target_file_size", std::to_string(2 * one) + "B"},
                {"compaction.max_file_size", std::to_string(2 * one + one / 2)},
                {"compaction.min_file_size", std::to_string(2 * one)}}));
  const auto before = Rows("w.c.d");
  auto packed = cat_->Compact("w.c.d", {}, Meta());
  ASSERT_TRUE(packed.ok()) << packed.status().ToString();
  EXPECT_EQ(packed->outputs.size(), 3u);
  for (const auto& o : packed->outputs) EXPECT_EQ(o.inputs.size(), 2u);
  EXPECT_EQ(Rows("w.c.d"), before);
}

TEST_P(CompactionSuite, ABinOverTheMemoryBudgetIsWrittenAsSeveralFiles) {
  Create("w.c.d", "");
  for (int64_t k = 0; k < 4; ++k) AppendRange("w.c.d", k * 40000, 40000, "a-region-name");
  const auto before = Rows("w.c.d");
  ::setenv("TARN_COMPACTION_MEMORY_MB", "1", 1);
  auto r = cat_->Compact("w.c.d", {}, Meta());
  ::unsetenv("TARN_COMPACTION_MEMORY_MB");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GE(r->outputs.size(), 2u);
  size_t inputs = 0;
  for (const auto& o : r->outputs) inputs += o.inputs.size();
  EXPECT_EQ(inputs, 4u);
  EXPECT_EQ(Rows("w.c.d"), before);
}

TEST_P(CompactionSuite, ARacingDeleteConflictsAndARacingAppendLands) {
  Create("w.c.d", "region");
  Fill("w.c.d");
  // An append between the plan and the commit: the compaction lands, the append stays.
  auto plan = cat_->PlanCompaction("w.c.d", {});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  AppendRange("w.c.d", 1000, 5, "eu");
  const auto with_append = Rows("w.c.d");
  auto landed = cat_->RunCompaction(std::move(*plan), Meta());
  ASSERT_TRUE(landed.ok()) << landed.status().ToString();
  EXPECT_EQ(Rows("w.c.d"), with_append);
  EXPECT_EQ(Files("w.c.d").size(), 4u);

  // A delete of rows in a file being compacted: commit_conflict, nothing lost or left behind.
  for (int64_t k = 0; k < 3; ++k) AppendRange("w.c.d", 2000 + k * 10, 10, "us");
  plan = cat_->PlanCompaction("w.c.d", {});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(cat_->DeleteRows("w.c.d", "id = 2001", Meta()).ok());
  const auto after_delete = Rows("w.c.d");
  const size_t objects = ObjectCount();
  const auto snapshot = cat_->LoadDataset("w.c.d")->current_snapshot_id;
  auto conflict = cat_->RunCompaction(std::move(*plan), Meta());
  EXPECT_TRUE(conflict.status().Is(codes::kCommitConflict)) << conflict.status().ToString();
  EXPECT_EQ(conflict.status().kind(), ErrorKind::kConflict);
  EXPECT_EQ(Rows("w.c.d"), after_delete);
  EXPECT_EQ(ObjectCount(), objects);  // the files it wrote are gone
  EXPECT_EQ(cat_->LoadDataset("w.c.d")->current_snapshot_id, snapshot);
  // Run again, it lands.
  auto retry = cat_->Compact("w.c.d", {}, Meta());
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_EQ(Rows("w.c.d"), after_delete);
}

// An incremental read (a task's window, an incremental refresh) after a compaction sees the
// rows added since its start, not the rows the compaction rewrote into a newer file.
TEST_P(CompactionSuite, AddedAfterReadsOnlyRowsNewSinceTheSnapshot) {
  Create("w.c.d", "region");
  Fill("w.c.d");
  const int64_t a = *cat_->LoadDataset("w.c.d")->current_snapshot_id;
  AppendRange("w.c.d", 1000, 5, "eu");
  AppendRange("w.c.d", 2000, 3, "us");
  auto added_after = [&](int64_t from) {
    std::set<std::string> ids;
    ScanOptions options;
    options.added_after = from;
    options.columns = {"id"};
    Status st = cat_->Scan("w.c.d", options, [&](const RecordBatch& b) {
      for (int64_t i = 0; i < b.num_rows; ++i) ids.insert(ValueText(b.columns[0], i));
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return ids;
  };
  const std::set<std::string> fresh = {"1000", "1001", "1002", "1003",
                                       "1004", "2000", "2001", "2002"};
  EXPECT_EQ(added_after(a), fresh);
  ASSERT_TRUE(cat_->Compact("w.c.d", {}, Meta()).ok());
  EXPECT_EQ(Files("w.c.d").size(), 3u);  // the new rows share files with the old ones now
  EXPECT_EQ(added_after(a), fresh);
  EXPECT_EQ(added_after(0).size(), 296u);
  auto snaps = cat_->ListSnapshots("w.c.d");
  ASSERT_TRUE(snaps.ok());
  EXPECT_EQ(snaps->back().next_row_id, snaps->at(snaps->size() - 2).next_row_id);
  EXPECT_EQ(*snaps->back().next_row_id, 308);
}

TEST_P(CompactionSuite, FiresNoTrigger) {
  Create("w.c.d", "region");
  Create("w.c.m", "");
  Fill("w.c.d");
  ViewDefinition def;
  def.sql = "SELECT * FROM w.c.d";
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", def, {"w.c.d"}, false, kRefreshFull, "alice").ok());
  auto jobs = [&] {
    auto all = cat_->ListJobs({});
    EXPECT_TRUE(all.ok());
    return all.ok() ? all->size() : 0;
  };
  manual_->Advance(std::chrono::hours(1));  // past every trigger's floor
  const size_t before = jobs();
  ASSERT_TRUE(cat_->Compact("w.c.d", {}, Meta()).ok());
  EXPECT_EQ(jobs(), before);
  // A user-created commit does fire (the check above could fail).
  AppendRange("w.c.d", 5000, 1, "eu");
  EXPECT_EQ(jobs(), before + 1);
}

TEST_P(CompactionSuite, RowIdsCannotBeForged) {
  Create("w.c.d", "");
  AppendRange("w.c.d", 0, 10, "eu");
  const auto files = Files("w.c.d");
  DatasetCommit part;
  part.dataset = "w.c.d";
  part.operation = CommitOperation::kCompact;
  part.read_snapshot_id = 1;
  part.removed_paths = {files[0].file.path};
  part.meta = Meta();
  auto sent = cat_->Commit(part);
  EXPECT_EQ(sent.status().kind(), ErrorKind::kInvalidArgument) << sent.status().ToString();
  EXPECT_NE(sent.status().message().find("made by Compact"), std::string::npos);
  // An append whose file claims stored row ids.
  DataFile forged = files[0].file;
  ColumnStats ids;
  ids.field_id = kRowIdFieldId;
  ids.value_count = 10;
  forged.columns.push_back(ids);
  DatasetCommit add;
  add.dataset = "w.c.d";
  add.operation = CommitOperation::kAddFiles;
  add.added = {forged};
  add.meta = Meta();
  auto refused = cat_->Commit(add);
  EXPECT_EQ(refused.status().kind(), ErrorKind::kInvalidArgument) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("reserved row id field"), std::string::npos)
      << refused.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Backends, CompactionSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

// The live rows appends keep (Catalog::kAppendDefinitionTtlUs): an append after another process
// changed the dataset within that time lands as if it had read the dataset afresh. The
// catalog's clock stands still, so every append within a test may use a kept row.
#include "catalog/error_codes.h"
#include "catalog/test_fixture.h"

namespace tarn {
namespace {

class AppendDefinitionsSuite : public CollectionTest {
 protected:
  AppendDefinitionsSuite() { clock_ = manual_; }

  void SetUp() override {
    CollectionTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (GetParam() != "sqlite") GTEST_SKIP() << "a second process is a second embedded catalog";
    auto other = Catalog::OpenEmbedded(dir_.string(), clock_);
    ASSERT_OK(other.status());
    other_ = std::move(*other);
  }
  void TearDown() override {
    other_.reset();
    CollectionTest::TearDown();
  }
  static CommitMeta Meta() {
    CommitMeta meta;
    meta.author = "alice";
    meta.receipt = Receipt();
    return meta;
  }
  static std::vector<RecordBatch> Rows(const std::string& schema,
                                       const std::vector<std::vector<std::string>>& rows) {
    std::vector<RecordBatch> out;
    out.push_back(MakeBatch(*Schema::Parse(schema), rows));
    return out;
  }
  int64_t Count(Catalog& cat, const std::string& ds) {
    int64_t n = 0;
    EXPECT_OK(cat.Scan(ds, {}, [&](const RecordBatch& b) {
      n += b.num_rows;
      return Status::OK();
    }));
    return n;
  }

  std::shared_ptr<ManualClock> manual_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kStopped, 1'700'000'000'000'000);
  std::unique_ptr<Catalog> other_;
};

TEST_P(AppendDefinitionsSuite, AnAppendAfterARecreationLandsInTheNewDataset) {
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64, v VARCHAR");
  ASSERT_OK(cat_->CreateDataset("w.c.t", def).status());
  ASSERT_OK(cat_->Append("w.c.t", Rows("id INT64, v VARCHAR", {{"1", "a"}}), Meta()).status());
  // Another process drops the dataset and makes a new one of the name.
  ASSERT_OK(other_->SetWorkspaceProperties("w", {{"deletion_protection", "false"}}));
  ASSERT_OK(other_->DropDataset("w.c.t"));
  ASSERT_OK(other_->CreateDataset("w.c.t", def).status());
  const std::string uuid = other_->LoadDataset("w.c.t")->uuid;
  // This catalog's kept row names the old incarnation: the commit refuses it and the append is
  // made again for the new one.
  auto s = cat_->Append("w.c.t", Rows("id INT64, v VARCHAR", {{"2", "b"}}), Meta());
  ASSERT_OK(s.status());
  EXPECT_EQ(s->dataset_uuid, uuid);
  EXPECT_EQ(Count(*other_, "w.c.t"), 1);
  // A caller's own incarnation guard still holds: the new uuid is accepted, the old refused.
  ASSERT_OK(cat_->Append("w.c.t", Rows("id INT64, v VARCHAR", {{"3", "c"}}), Meta(),
                         CommitOperation::kAppend, uuid)
                .status());
  EXPECT_TRUE(cat_->Append("w.c.t", Rows("id INT64, v VARCHAR", {{"4", "d"}}), Meta(),
                           CommitOperation::kAppend, std::string("not-" + uuid))
                  .status()
                  .Is(codes::kIncarnationChanged));
}

TEST_P(AppendDefinitionsSuite, AnAppendOfAColumnAnotherProcessAddedIsWritten) {
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64");
  ASSERT_OK(cat_->CreateDataset("w.c.t", def).status());
  ASSERT_OK(cat_->Append("w.c.t", Rows("id INT64", {{"1"}}), Meta()).status());
  ASSERT_OK(other_->AlterSchema("w.c.t", {*ParseSchemaChange("add extra VARCHAR")}).status());
  // Rows with the new column do not conform to the kept row: written after a fresh read.
  ASSERT_OK(cat_->Append("w.c.t", Rows("id INT64, extra VARCHAR", {{"2", "x"}}), Meta()).status());
  int64_t with_extra = 0;
  ASSERT_OK(other_->Scan("w.c.t", {}, [&](const RecordBatch& b) {
    const int e = b.schema.FieldIndex("extra");
    EXPECT_GE(e, 0);
    for (int64_t r = 0; r < b.num_rows; ++r) with_extra += b.columns[e].IsValid(r) ? 1 : 0;
    return Status::OK();
  }));
  EXPECT_EQ(with_extra, 1);
}

TEST_P(AppendDefinitionsSuite, ThisCatalogsOwnChangesAreSeenAtOnce) {
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64");
  ASSERT_OK(cat_->CreateDataset("w.c.t", def).status());
  ASSERT_OK(cat_->Append("w.c.t", Rows("id INT64", {{"1"}}), Meta()).status());
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kInlineMaxBytesProperty, "64KiB"}}));
  ASSERT_OK(cat_->Append("w.c.t", Rows("id INT64", {{"2"}}), Meta()).status());
  int inlined = 0;
  ASSERT_OK(cat_->PlanFiles("w.c.t", {}, "", [&](const PlannedFile& f) {
    inlined += IsInlinedPath(f.file.path) ? 1 : 0;
    return Status::OK();
  }));
  EXPECT_EQ(inlined, 1);
  ASSERT_OK(cat_->AlterSchema("w.c.t", {*ParseSchemaChange("add extra VARCHAR")}).status());
  ASSERT_OK(cat_->Append("w.c.t", Rows("id INT64, extra VARCHAR", {{"3", "x"}}), Meta()).status());
  EXPECT_EQ(Count(*cat_, "w.c.t"), 3);
}

INSTANTIATE_TEST_SUITE_P(Backends, AppendDefinitionsSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

// Views (V1) on both metastore backends: versions, the shared namespace with datasets, the
// collection's emptiness, execution metadata and the definition's checks.
#include <thread>

#include "catalog/error_codes.h"
#include "catalog/test_fixture.h"
#include "common/clock.h"

namespace tarn {
namespace {

class ViewSuite : public CatalogBackendTest {
 protected:
  ViewSuite() { clock_ = manual_; }
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
  }
  static ViewDefinition Def(std::string sql) {
    ViewDefinition d;
    d.sql = std::move(sql);
    return d;
  }
  std::shared_ptr<ManualClock> manual_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kStopped, 1'700'000'000'000'000);
};

TEST_P(ViewSuite, CreateReplaceShowListVersionsDrop) {
  ViewDefinition def = Def("SELECT 1 AS one");
  def.description = "first";
  def.schema = *Schema::Parse("one INT32 NOT NULL");
  auto v1 = cat_->CreateView("w.c.v", def, false, "alice");
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ(v1->name.ToString(), "w.c.v");
  EXPECT_EQ(v1->current.version, 1);
  EXPECT_EQ(v1->current.sql, "SELECT 1 AS one");
  EXPECT_EQ(v1->current.dialect, "duckdb");
  EXPECT_EQ(v1->current.description, "first");
  ASSERT_TRUE(v1->current.schema.has_value());
  EXPECT_EQ(v1->current.schema->ToString(), "one INT32 NOT NULL");
  EXPECT_EQ(v1->created_by, "alice");
  EXPECT_EQ(v1->created_at_us, 1'700'000'000'000'000);
  EXPECT_FALSE(v1->last_run_at_us.has_value());

  // Create again: view_exists, nothing changes.
  auto again = cat_->CreateView("w.c.v", Def("SELECT 2"), false, "bob");
  EXPECT_TRUE(again.status().Is(codes::kViewExists)) << again.status().ToString();
  EXPECT_EQ(FieldOf(again.status(), "view"), "w.c.v");

  manual_->Advance(std::chrono::seconds(5));
  ViewDefinition second = Def("SELECT 2 AS two\n-- kept verbatim\n");
  second.dialect = "trino";
  auto v2 = cat_->CreateView("w.c.v", second, true, "bob");
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->current.version, 2);
  EXPECT_EQ(v2->current.sql, "SELECT 2 AS two\n-- kept verbatim\n");
  EXPECT_EQ(v2->current.dialect, "trino");
  EXPECT_EQ(v2->current.author, "bob");
  EXPECT_FALSE(v2->current.schema.has_value());
  EXPECT_EQ(v2->created_by, "alice");
  EXPECT_EQ(v2->created_at_us, 1'700'000'000'000'000);
  EXPECT_EQ(v2->updated_at_us, 1'700'000'005'000'000);

  // The older version stays readable.
  auto old = cat_->GetView("w.c.v", 1);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->current.sql, "SELECT 1 AS one");
  EXPECT_EQ(old->current.author, "alice");
  auto none = cat_->GetView("w.c.v", 3);
  EXPECT_TRUE(none.status().Is(codes::kViewVersionNotFound)) << none.status().ToString();
  auto versions = cat_->ListViewVersions("w.c.v");
  ASSERT_TRUE(versions.ok()) << versions.status().ToString();
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].version, 1);
  EXPECT_EQ((*versions)[1].dialect, "trino");

  // Replace of a missing view creates it.
  auto created = cat_->CreateView("w.c.other", Def("SELECT 3"), true, "carol");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->current.version, 1);

  auto list = cat_->ListViews("w.c");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name.dataset, "other");
  EXPECT_EQ((*list)[1].name.dataset, "v");
  EXPECT_EQ((*list)[1].current.version, 2);
  EXPECT_EQ((*list)[1].current.sql, "SELECT 2 AS two\n-- kept verbatim\n");

  // The collection is not empty while views remain.
  Status drop_coll = cat_->DropCollection("w.c");
  EXPECT_TRUE(drop_coll.Is(codes::kCollectionNotEmpty)) << drop_coll.ToString();

  ASSERT_OK(cat_->DropView("w.c.v"));
  EXPECT_TRUE(cat_->GetView("w.c.v").status().Is(codes::kViewNotFound));
  EXPECT_TRUE(cat_->DropView("w.c.v").Is(codes::kViewNotFound));
  EXPECT_TRUE(cat_->ListViewVersions("w.c.v").status().Is(codes::kViewNotFound));
  ASSERT_OK(cat_->DropView("w.c.other"));
  ASSERT_OK(cat_->DropCollection("w.c"));
}

TEST_P(ViewSuite, ViewsAndDatasetsShareOneNamespace) {
  DatasetDefinition ds;
  ds.schema = *Schema::Parse("id INT64");
  ASSERT_TRUE(cat_->CreateDataset("w.c.d", ds).ok());
  ASSERT_TRUE(cat_->CreateView("w.c.v", Def("SELECT 1"), false, "a").ok());

  // A view over a dataset's name, with or without replace.
  for (bool replace : {false, true}) {
    auto st = cat_->CreateView("w.c.d", Def("SELECT 1"), replace, "a").status();
    EXPECT_TRUE(st.Is(codes::kDatasetExists)) << st.ToString();
  }
  // A dataset over a view's name, also with exists_ok, and a rename onto one.
  for (bool exists_ok : {false, true}) {
    auto st = cat_->CreateDataset("w.c.v", ds, exists_ok).status();
    EXPECT_TRUE(st.Is(codes::kViewExists)) << st.ToString();
  }
  Status renamed = cat_->RenameDataset("w.c.d", "v");
  EXPECT_TRUE(renamed.Is(codes::kViewExists)) << renamed.ToString();
  // The view is no dataset, the dataset no view.
  EXPECT_TRUE(cat_->LoadDataset("w.c.v").status().Is(codes::kDatasetNotFound));
  EXPECT_TRUE(cat_->GetView("w.c.d").status().Is(codes::kViewNotFound));
  // Once the dataset is dropped its name is free for a view, and the other way round.
  ASSERT_OK(cat_->DropDataset("w.c.d"));
  ASSERT_TRUE(cat_->CreateView("w.c.d", Def("SELECT 1"), false, "a").ok());
  ASSERT_OK(cat_->DropView("w.c.v"));
  ASSERT_TRUE(cat_->CreateDataset("w.c.v", ds).ok());
  // Another collection's names are its own.
  ASSERT_OK(cat_->CreateCollection("w.c2"));
  ASSERT_TRUE(cat_->CreateView("w.c2.v", Def("SELECT 1"), false, "a").ok());
}

TEST_P(ViewSuite, RacingCreatesOfAViewAndADatasetOfOneNameLeaveOne) {
  DatasetDefinition ds;
  ds.schema = *Schema::Parse("id INT64");
  for (int round = 0; round < 6; ++round) {
    const std::string name = "w.c.n" + std::to_string(round);
    Status view_st, ds_st;
    std::thread a([&] { view_st = cat_->CreateView(name, Def("SELECT 1"), false, "a").status(); });
    std::thread b([&] { ds_st = cat_->CreateDataset(name, ds).status(); });
    a.join();
    b.join();
    EXPECT_NE(view_st.ok(), ds_st.ok()) << view_st.ToString() << " / " << ds_st.ToString();
    EXPECT_NE(cat_->GetView(name).ok(), cat_->LoadDataset(name).ok()) << name;
  }
}

TEST_P(ViewSuite, RunsAreRecorded) {
  ASSERT_TRUE(cat_->CreateView("w.c.v", Def("SELECT 1"), false, "a").ok());
  manual_->Advance(std::chrono::seconds(1));
  ASSERT_OK(cat_->RecordViewRun("w.c.v", 1250, 0.45));
  auto v = cat_->GetView("w.c.v");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->last_run_at_us, 1'700'000'001'000'000);
  EXPECT_EQ(v->last_row_count, 1250);
  EXPECT_EQ(v->last_run_us, 450'000);
  // A replace keeps the record of the last run.
  ASSERT_TRUE(cat_->CreateView("w.c.v", Def("SELECT 2"), true, "a").ok());
  EXPECT_EQ(cat_->GetView("w.c.v")->last_row_count, 1250);
  EXPECT_EQ(cat_->RecordViewRun("w.c.v", -1, 1).kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(cat_->RecordViewRun("w.c.v", 1, -1).kind(), ErrorKind::kInvalidArgument);
  EXPECT_TRUE(cat_->RecordViewRun("w.c.none", 1, 1).Is(codes::kViewNotFound));
}

TEST_P(ViewSuite, BadDefinitionsAndNamesAreRefused) {
  auto refused = [&](ViewDefinition d) {
    return cat_->CreateView("w.c.v", d, false, "a").status();
  };
  EXPECT_TRUE(refused(Def("")).Is(codes::kInvalidViewSql));
  EXPECT_TRUE(refused(Def(" \n\t")).Is(codes::kInvalidViewSql));
  EXPECT_TRUE(refused(Def(std::string("SELECT 1\0", 9))).Is(codes::kInvalidViewSql));
  EXPECT_TRUE(
      refused(Def(std::string(kMaxViewSqlBytes + 1, ' ') + "x")).Is(codes::kInvalidViewSql));
  for (const char* dialect : {"", "DuckDB", "a b", "x;drop", "abcdefghijklmnopqrstuvwxyz0123456"}) {
    ViewDefinition d = Def("SELECT 1");
    d.dialect = dialect;
    EXPECT_TRUE(refused(d).Is(codes::kInvalidDialect)) << dialect;
  }
  ViewDefinition long_description = Def("SELECT 1");
  long_description.description.assign(4097, 'x');
  EXPECT_EQ(refused(long_description).kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(cat_->CreateView("w.c.v", Def("SELECT 1"), false, "").status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(cat_->CreateView("w.c.bad name", Def("SELECT 1"), false, "a").status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_TRUE(cat_->CreateView("w.nope.v", Def("SELECT 1"), false, "a")
                  .status()
                  .Is(codes::kCollectionNotFound));
  EXPECT_TRUE(cat_->ListViews("w.nope").status().Is(codes::kCollectionNotFound));
  EXPECT_TRUE(cat_->GetView("nope.c.v").status().Is(codes::kWorkspaceNotFound));
  EXPECT_TRUE(cat_->ListViews("w.c")->empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, ViewSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

// Catalog::OpenLocal: every mutation of the embedded catalog a person opens is audited, actor
// local:<user>, once (the outermost call), commits in their own transaction; a catalog opened
// for a server (OpenEmbedded / Open) audits nothing itself.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "catalog/test_fixture.h"

namespace tarn {
namespace {

class LocalAuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_util::ScratchDir() /
           ("tarn-local-audit-" + std::to_string(::getpid()) + "-" + testing_util::TestName());
    std::filesystem::remove_all(dir_);
    ::setenv("USER", "alice", 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::vector<AuditRecord> Rows(Catalog& cat) {
    auto rows = cat.ListAudit(AuditQuery{});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<AuditRecord>{};
  }
  static std::vector<std::string> Actions(const std::vector<AuditRecord>& rows) {
    std::vector<std::string> out;
    for (const auto& r : rows) out.push_back(r.action + " " + r.target + " " + r.outcome);
    return out;
  }
  static Status Append(Catalog& cat, const std::string& name) {
    CommitMeta m;
    m.author = "tester";
    m.receipt = Receipt{};
    Schema s = *Schema::Parse("id INT64");
    std::vector<RecordBatch> batches;
    batches.push_back(MakeBatch(s, {{"1"}, {"2"}}));
    auto r = cat.Append(name, batches, m);
    return r.ok() ? Status::OK() : r.status();
  }

  std::filesystem::path dir_;
};

TEST_F(LocalAuditTest, EveryMutationWritesOneRowAsTheLocalUser) {
  auto opened = Catalog::OpenLocal(dir_.string());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Catalog& cat = **opened;
  EXPECT_EQ(cat.local_actor(), std::optional<std::string>("local:alice"));
  ASSERT_OK(cat.CreateWorkspace("w"));
  ASSERT_OK(cat.CreateCollection("w.c"));
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64");
  ASSERT_TRUE(cat.CreateDataset("w.c.d", def).ok());
  ASSERT_OK(Append(cat, "w.c.d"));
  // A refused mutation is audited too, with its code as the outcome.
  EXPECT_FALSE(cat.CreateCollection("nope.c").ok());
  // Reads are not audited.
  ASSERT_TRUE(cat.LoadDataset("w.c.d").ok());
  ASSERT_TRUE(cat.ListSnapshots("w.c.d").ok());
  CommitMeta no_receipt;
  no_receipt.author = "tester";
  ASSERT_TRUE(cat.DeleteRows("w.c.d", "id = 1", no_receipt).ok());

  auto rows = Rows(cat);
  EXPECT_EQ(Actions(rows), (std::vector<std::string>{
                               "workspace.create w ok",
                               "collection.create w.c ok",
                               "dataset.create w.c.d ok",
                               "dataset.append w.c.d ok",
                               "collection.create nope.c workspace_not_found",
                               "dataset.delete_rows w.c.d ok",
                               // the delete carried no receipt: the commit says so
                               "dataset.missing_receipt w.c.d ok",
                           }));
  for (const auto& r : rows) {
    EXPECT_EQ(r.actor, "local:alice");
    EXPECT_EQ(r.workspace, r.target.substr(0, r.target.find('.')));
  }
  // The append's row was written by the commit: it names its snapshot.
  EXPECT_NE(rows[3].detail_json.find("\"snapshot_id\":1"), std::string::npos)
      << rows[3].detail_json;
  EXPECT_NE(rows[4].detail_json.find("message"), std::string::npos);
}

TEST_F(LocalAuditTest, NestedCallsWriteTheOuterRowOnly) {
  auto opened = Catalog::OpenLocal(dir_.string());
  ASSERT_TRUE(opened.ok());
  Catalog& cat = **opened;
  ASSERT_OK(cat.CreateWorkspace("w"));
  ASSERT_OK(cat.CreateCollection("w.c"));
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64");
  ASSERT_TRUE(cat.CreateDataset("w.c.d", def).ok());
  ASSERT_OK(Append(cat, "w.c.d"));
  ASSERT_OK(Append(cat, "w.c.d"));
  CommitMeta m;
  m.author = "tester";
  m.receipt = Receipt{};
  ASSERT_TRUE(cat.Rollback("w.c.d", 1, m).ok());
  auto rows = Rows(cat);
  int rollbacks = 0, commits = 0;
  for (const auto& r : rows) {
    rollbacks += r.action == "dataset.rollback";
    commits += r.action == "commit";
  }
  EXPECT_EQ(rollbacks, 1);
  EXPECT_EQ(commits, 0);
  EXPECT_EQ(rows.size(), 6u) << ::testing::PrintToString(Actions(rows));
}

TEST_F(LocalAuditTest, AServersCatalogAuditsNothingItself) {
  auto opened = Catalog::OpenEmbedded(dir_.string());
  ASSERT_TRUE(opened.ok());
  Catalog& cat = **opened;
  EXPECT_EQ(cat.local_actor(), std::nullopt);
  ASSERT_OK(cat.CreateWorkspace("w"));
  ASSERT_OK(cat.CreateCollection("w.c"));
  EXPECT_TRUE(Rows(cat).empty());
}

}  // namespace
}  // namespace tarn

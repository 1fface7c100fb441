// Provenance (docs/design/provenance.md): receipts as stored and read back, the standing source
// list's rules, and the readers and impact answers, on SQLite and PostgreSQL.
#include "catalog/provenance.h"

#include <gtest/gtest.h>

#include "alerts/alerts.h"
#include "catalog/test_fixture.h"

namespace tarn {
namespace {

ReadReference Read(const std::string& name, const std::string& uuid, int64_t snap,
                   const std::string& how = "current") {
  ReadReference r;
  r.dataset = name;
  r.dataset_uuid = uuid;
  r.snapshot_id = snap;
  r.resolved_by = how;
  return r;
}

std::string CodeOf(const Status& st) {
  for (const auto& [k, v] : st.fields()) {
    if (k == "code") return v;
  }
  return "";
}

std::vector<std::string> Names(const std::vector<SourceRef>& list) {
  std::vector<std::string> out;
  for (const auto& s : list) out.push_back(s.dataset);
  return out;
}

// ---- the rules, as a function ----

TEST(SourceListRules, AppendAddsInFrontRewriteReplacesEmptyClearsCompactLeaves) {
  provenance::SourceList list;
  Receipt r1 = Receipt::Of({Read("w.c.a", "ua", 1), Read("w.c.b", "ub", 2)});
  provenance::ApplyCommit(&list, CommitOperation::kAppend, r1, "self", false);
  EXPECT_EQ(Names(list.sources), (std::vector<std::string>{"w.c.a", "w.c.b"}));
  EXPECT_TRUE(list.complete);
  // Most recent first; a dataset appears once; never the dataset itself.
  Receipt r2 = Receipt::Of({Read("w.c.b", "ub", 3), Read("w.c.self", "self", 1)});
  provenance::ApplyCommit(&list, CommitOperation::kAppend, r2, "self", false);
  EXPECT_EQ(Names(list.sources), (std::vector<std::string>{"w.c.b", "w.c.a"}));
  // Maintenance leaves it alone, whatever its receipt.
  provenance::ApplyCommit(&list, CommitOperation::kCompact, std::nullopt, "self", false);
  EXPECT_EQ(Names(list.sources), (std::vector<std::string>{"w.c.b", "w.c.a"}));
  EXPECT_TRUE(list.complete);
  // A delete that leaves rows: unchanged; without a receipt: incomplete.
  provenance::ApplyCommit(&list, CommitOperation::kDeleteRows, Receipt{}, "self", false);
  EXPECT_TRUE(list.complete);
  provenance::ApplyCommit(&list, CommitOperation::kDeleteRows, std::nullopt, "self", false);
  EXPECT_EQ(Names(list.sources), (std::vector<std::string>{"w.c.b", "w.c.a"}));
  EXPECT_FALSE(list.complete);
  // A rewrite replaces it and is complete again.
  provenance::ApplyCommit(&list, CommitOperation::kOverwrite, Receipt::Of({Read("w.c.z", "uz", 9)}),
                          "self", false);
  EXPECT_EQ(Names(list.sources), (std::vector<std::string>{"w.c.z"}));
  EXPECT_TRUE(list.complete);
  // A rewrite without a receipt: nothing known, incomplete.
  provenance::ApplyCommit(&list, CommitOperation::kTruncateAndAdd, std::nullopt, "self", false);
  EXPECT_TRUE(list.sources.empty());
  EXPECT_FALSE(list.complete);
  // Emptying the dataset clears it, complete (even without a receipt).
  provenance::ApplyCommit(&list, CommitOperation::kDeleteFiles, std::nullopt, "self", true);
  EXPECT_TRUE(list.sources.empty());
  EXPECT_TRUE(list.complete);
}

TEST(SourceListRules, CapsAt64AndTruncatedReceiptsAreIncomplete) {
  provenance::SourceList list;
  std::vector<ReadReference> reads;
  for (int i = 0; i < 70; ++i) {
    reads.push_back(Read("w.c.s" + std::to_string(i), "u" + std::to_string(i), 1));
  }
  provenance::ApplyCommit(&list, CommitOperation::kAppend, Receipt::Of(reads), "self", false);
  EXPECT_EQ(list.sources.size(), provenance::kMaxSources);
  EXPECT_FALSE(list.complete);  // the cap dropped names
  EXPECT_EQ(list.sources.front().dataset, "w.c.s0");
  provenance::SourceList other;
  Receipt truncated = Receipt::Of({Read("w.c.a", "ua", 1)});
  truncated.read_sources_truncated = true;
  provenance::ApplyCommit(&other, CommitOperation::kAppend, truncated, "self", false);
  EXPECT_FALSE(other.complete);
  // The stored form round-trips; NULL and garbage are empty and incomplete.
  EXPECT_EQ(provenance::ParseSourceList(list.ToJson()), list);
  EXPECT_FALSE(provenance::ParseSourceList(std::nullopt).complete);
  EXPECT_FALSE(provenance::ParseSourceList(std::string("{\"sources\":7}")).complete);
}

TEST(Receipts, CapDedupeKeysAndTheOldVocabulary) {
  Receipt r;
  for (int i = 0; i < 300; ++i) r.AddRead(Read("w.c.d", "u", i % 260));
  EXPECT_EQ(r.read_sources.size(), kMaxReadSources);
  EXPECT_TRUE(r.read_sources_truncated);
  Receipt k = Receipt::Of({Read("w.c.a", "ua", 7), Read("w.c.a", "ua", 7), Read("w.c.a", "ua", 8)});
  EXPECT_EQ(k.read_sources.size(), 2u);
  EXPECT_EQ(k.ReadSourceKeys(), (std::vector<std::string>{"w.c.a", "w.c.a@7", "w.c.a@8"}));
  // Stored before issue 18: snapshot/time/tag:<name>, producers cli:* (hand-run).
  auto old = Receipt::FromJson(
      R"({"reads":[{"dataset":"w.c.a","dataset_uuid":"u","snapshot_id":3,"resolved_by":"tag:nightly"},)"
      R"({"dataset":"w.c.b","dataset_uuid":"v","snapshot_id":1,"resolved_by":"time"}],"producer":"cli:sql"})");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_FALSE(old->produced_by.has_value());
  EXPECT_EQ(old->read_sources[0].resolved_by, "tag");
  EXPECT_EQ(old->read_sources[0].tag, "nightly");
  EXPECT_EQ(old->read_sources[1].resolved_by, "date");
  auto view = Receipt::FromJson(R"({"reads":[],"producer":"view:w.c.v"})");
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->produced_by, std::optional<std::string>("view:w.c.v"));
  // The new shape round-trips.
  auto back = Receipt::FromJson(k.ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->read_sources.size(), 2u);
}

TEST(Receipts, ValidationNamesTheProblem) {
  EXPECT_TRUE(ValidateReceipt(Receipt{}).ok());
  EXPECT_TRUE(ValidateReceipt(Receipt::Of({}, "upload:web")).ok());
  EXPECT_TRUE(ValidateReceipt(Receipt::Of({}, "task:w.c.t")).ok());
  for (const char* bad : {"cli:append", "view:nope", "upload:", "upload:a b", "task"}) {
    Status st = ValidateReceipt(Receipt::Of({}, std::string(bad)));
    EXPECT_EQ(CodeOf(st), "invalid_receipt") << bad;
  }
  EXPECT_EQ(CodeOf(ValidateReceipt(Receipt::Of({Read("w.c.a", "u", 1, "snapshot")}))),
            "invalid_receipt");
  EXPECT_EQ(CodeOf(ValidateReceipt(Receipt::Of({Read("w.c.a", "u", 1, "tag")}))),
            "invalid_receipt");  // a tag read names its tag
}

TEST(Receipts, HowReadsLikeTheSeed) {
  EXPECT_EQ(provenance::How("merge", Receipt::Of({}, "task:ops.c.ingest")),
            "merged, by task ops.c.ingest");
  EXPECT_EQ(provenance::How("append", Receipt::Of({}, "upload:web")), "appended, uploaded via web");
  EXPECT_EQ(provenance::How("append", Receipt{}), "appended");
  EXPECT_EQ(provenance::How("append", std::nullopt), "appended, not recorded");
}

// ---- through the catalog ----

class ProvenanceSuite : public AlertCapturingTest {
 protected:
  void SetUp() override {
    AlertCapturingTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateWorkspace("x"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
    ASSERT_OK(cat_->CreateCollection("x.c"));
    for (const char* n : {"w.c.a", "w.c.b", "x.c.out"}) {
      DatasetDefinition def;
      def.schema = *Schema::Parse("id INT64");
      auto d = cat_->CreateDataset(n, def);
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      uuid_[n] = d->uuid;
    }
  }

  Result<SnapshotInfo> Append(const std::string& name, std::optional<Receipt> receipt) {
    CommitMeta m;
    m.author = "tester";
    m.receipt = std::move(receipt);
    Schema s = *Schema::Parse("id INT64");
    std::vector<RecordBatch> batches;
    batches.push_back(MakeBatch(s, {{"1"}, {"2"}}));
    return cat_->Append(name, batches, m);
  }
  ReadReference From(const std::string& name, int64_t snap) {
    return Read(name, uuid_[name], snap);
  }

  std::map<std::string, std::string> uuid_;
};

TEST_P(ProvenanceSuite, ReceiptsSourceListsReadersAndImpact) {
  if (!cat_) return;
  auto a1 = Append("w.c.a", Receipt{});
  ASSERT_TRUE(a1.ok()) << a1.status().ToString();
  auto a2 = Append("w.c.b", Receipt{});
  ASSERT_TRUE(a2.ok());
  // x.c.out reads a then b (another workspace: impact and readers cross it).
  ASSERT_TRUE(Append("x.c.out", Receipt::Of({From("w.c.a", 1)}, "view:x.c.out")).ok());
  ASSERT_TRUE(Append("x.c.out", Receipt::Of({From("w.c.b", 1)})).ok());
  auto ds = cat_->LoadDataset("x.c.out");
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ(Names(ds->sources), (std::vector<std::string>{"w.c.b", "w.c.a"}));
  EXPECT_TRUE(ds->sources_complete);

  auto impact = cat_->Impact("w.c.a");
  ASSERT_TRUE(impact.ok()) << impact.status().ToString();
  ASSERT_EQ(impact->consumers.size(), 1u);
  EXPECT_EQ(impact->consumers[0].dataset, "x.c.out");
  EXPECT_FALSE(impact->truncated);
  auto readers = cat_->Readers("w.c.a", std::nullopt);
  ASSERT_TRUE(readers.ok());
  ASSERT_EQ(readers->readers.size(), 1u);
  EXPECT_EQ(readers->readers[0].dataset, "x.c.out");
  EXPECT_EQ(readers->readers[0].snapshot_id, 1);
  EXPECT_EQ(readers->readers[0].read_snapshot_id, 1);
  EXPECT_EQ(readers->readers[0].produced_by, std::optional<std::string>("view:x.c.out"));
  EXPECT_TRUE(cat_->Readers("w.c.a", 2)->readers.empty());  // nobody read version 2

  // A rewrite replaces the list: a is no longer a consumer's source, but readers remember.
  DatasetCommit ow;
  ow.dataset = "x.c.out";
  ow.operation = CommitOperation::kTruncateAndAdd;
  ow.meta.author = "tester";
  ow.meta.receipt = Receipt::Of({From("w.c.b", 1)});
  ASSERT_TRUE(cat_->Commit(std::move(ow)).ok());
  EXPECT_TRUE(cat_->Impact("w.c.a")->consumers.empty());
  EXPECT_TRUE(cat_->Impact("w.c.b")->consumers.empty());  // no files: emptied, so cleared
  EXPECT_EQ(cat_->Readers("w.c.a", std::nullopt)->readers.size(), 1u);
  EXPECT_TRUE(cat_->LoadDataset("x.c.out")->sources.empty());

  // A rollback recomputes the list from the snapshot it restores.
  CommitMeta rollback_meta;
  rollback_meta.author = "tester";
  rollback_meta.receipt = Receipt{};
  ASSERT_TRUE(cat_->Rollback("x.c.out", 2, rollback_meta).ok());
  ds = cat_->LoadDataset("x.c.out");
  EXPECT_EQ(Names(ds->sources), (std::vector<std::string>{"w.c.b", "w.c.a"}));
  EXPECT_EQ(cat_->Impact("w.c.a")->consumers.size(), 1u);

  // Lineage: newest first, "not recorded" apart from "read nothing".
  auto lineage = cat_->Lineage("x.c.out", std::nullopt, 100);
  ASSERT_TRUE(lineage.ok()) << lineage.status().ToString();
  ASSERT_EQ(lineage->snapshots.size(), 4u);
  EXPECT_EQ(lineage->snapshots.back().how, "appended, by view x.c.out");
  auto one = cat_->Lineage("x.c.out", 2, 100);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->snapshots.size(), 1u);
  EXPECT_EQ(one->snapshots[0].receipt->read_sources[0].dataset, "w.c.b");
  EXPECT_EQ(CodeOf(cat_->Lineage("x.c.out", 99, 100).status()), "snapshot_not_found");
}

TEST_P(ProvenanceSuite, ACommitWithoutAReceiptLandsAlertsAuditsAndMarksIncomplete) {
  if (!cat_) return;
  ASSERT_TRUE(Append("w.c.a", Receipt::Of({From("w.c.b", 0)})).ok());
  EXPECT_TRUE(cat_->LoadDataset("w.c.a")->sources_complete);
  auto s = Append("w.c.a", std::nullopt);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->receipt.has_value());
  auto snaps = cat_->ListSnapshots("w.c.a");
  ASSERT_EQ(snaps->size(), 2u);
  EXPECT_TRUE((*snaps)[0].receipt.has_value());   // read b
  EXPECT_FALSE((*snaps)[1].receipt.has_value());  // not recorded
  auto ds = cat_->LoadDataset("w.c.a");
  EXPECT_FALSE(ds->sources_complete);
  EXPECT_EQ(Names(ds->sources), (std::vector<std::string>{"w.c.b"}));
  EXPECT_EQ(cat_->Lineage("w.c.a", 2, 1)->snapshots[0].how, "appended, not recorded");
  // The audit row, in the commit's transaction.
  AuditQuery q;
  q.workspace = "w";
  auto audit = cat_->ListAudit(q);
  ASSERT_TRUE(audit.ok());
  int missing = 0;
  for (const auto& r : *audit) missing += r.action == "dataset.missing_receipt";
  EXPECT_EQ(missing, 1);
  // The alert, once per cool-off.
  ASSERT_TRUE(Append("w.c.a", std::nullopt).ok());
  std::string lines = Alerts();
  EXPECT_NE(lines.find("\"code\":\"receipt_missing\""), std::string::npos) << lines;
  EXPECT_EQ(lines.find("receipt_missing"), lines.rfind("receipt_missing")) << lines;
  // A rewrite with a receipt makes the list complete again.
  DatasetCommit ow;
  ow.dataset = "w.c.a";
  ow.operation = CommitOperation::kTruncateAndAdd;
  ow.meta.author = "tester";
  ow.meta.receipt = Receipt{};
  ASSERT_TRUE(cat_->Commit(std::move(ow)).ok());
  EXPECT_TRUE(cat_->LoadDataset("w.c.a")->sources_complete);
  // A receipt outside the vocabulary, or without the read's uuid, is refused.
  EXPECT_EQ(CodeOf(Append("w.c.a", Receipt::Of({}, "cli:append")).status()), "invalid_receipt");
  EXPECT_EQ(CodeOf(Append("w.c.a", Receipt::Of({Read("w.c.b", "", 1)})).status()),
            "invalid_receipt");
}

TEST_P(ProvenanceSuite, PurgeAndExpiryForgetTheirRows) {
  if (!cat_) return;
  ASSERT_TRUE(Append("w.c.a", Receipt{}).ok());
  ASSERT_TRUE(Append("x.c.out", Receipt::Of({From("w.c.a", 1)})).ok());
  ASSERT_OK(cat_->SetWorkspaceProperties("x", {{"deletion_protection", "false"}}));
  ASSERT_OK(cat_->DropDataset("x.c.out", /*purge=*/true));
  EXPECT_TRUE(cat_->Readers("w.c.a", std::nullopt)->readers.empty());
  EXPECT_TRUE(cat_->Impact("w.c.a")->consumers.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, ProvenanceSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

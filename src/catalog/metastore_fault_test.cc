// Commits under metastore faults (metastore/fault): a statement that fails anywhere in a commit,
// or a COMMIT that fails, leaves no partial state; a commit whose COMMIT reply is lost is
// reported and, retried with its idempotency key, visible exactly once with its files intact.
// SQLite and PostgreSQL (test_fixture.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/test_fixture.h"
#include "metastore/fault/fault_metastore.h"
#include "metastore/metastore.h"

namespace tarn {
namespace {

std::vector<RecordBatch> One(RecordBatch b) {
  std::vector<RecordBatch> v;
  v.push_back(std::move(b));
  return v;
}

CommitMeta Meta(std::string key = "") {
  CommitMeta m;
  m.author = "tester";
  m.receipt = Receipt{};  // a hand-run commit that read nothing
  if (!key.empty()) m.idempotency_key = std::move(key);
  return m;
}

// What a commit may change: the dataset row's counters and totals, its snapshots, its rows.
struct State {
  std::optional<int64_t> current;
  int64_t next_row_id = 0, total_files = 0, total_records = 0;
  size_t snapshots = 0;
  int64_t rows = 0;
  int64_t kept = 0;  // inlined files' bytes kept (rows of inlined_files)
  bool operator==(const State&) const = default;
};

class MetastoreFaultSuite : public CollectionTest {
 protected:
  void SetUp() override {
    CollectionTest::SetUp();
    if (!cat_) return;
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64 NOT NULL, part VARCHAR");
    def.partition_spec = "part";
    auto d = cat_->CreateDataset("w.c.t", def);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    schema_ = d->schema;
    faults_ = std::make_shared<MetastoreFaults>();
    cat_->metastore().SetFaults(faults_);
    // The commit's own statements are counted here; firing and manifest.on_commit (after the
    // commit) are tested apart (firing below, manifests in manifest_test.cc).
    ::setenv("TARN_TRIGGER_FIRING", "0", 1);
    ::setenv("TARN_MANIFEST_ON_COMMIT", "0", 1);
  }
  void TearDown() override {
    ::unsetenv("TARN_TRIGGER_FIRING");
    ::unsetenv("TARN_MANIFEST_ON_COMMIT");
    CatalogBackendTest::TearDown();
  }

  State Read() {
    faults_->Reset();
    State s;
    auto ds = cat_->LoadDataset("w.c.t");
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    if (!ds.ok()) return s;
    s.current = ds->current_snapshot_id;
    s.next_row_id = ds->next_row_id;
    s.total_files = ds->total_files;
    s.total_records = ds->total_records;
    s.snapshots = cat_->ListSnapshots("w.c.t")->size();
    Status st = cat_->Scan("w.c.t", {}, "", false, [&](const RecordBatch& b) {
      s.rows += b.num_rows;
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    EXPECT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT COUNT(*) FROM inlined_files"));
      TARN_ASSIGN_OR_RETURN(s.kept, row->Int64(0));
      return Status::OK();
    }));
    faults_->Reset();
    return s;
  }

  Result<SnapshotInfo> Append(const std::string& key = "") {
    return cat_->Append("w.c.t", One(MakeBatch(schema_, {{"1", "a"}, {"2", "b"}, {"3", "a"}})),
                        Meta(key));
  }

  Schema schema_;
  std::shared_ptr<MetastoreFaults> faults_;
};

// Fails each statement of an append, then of a delete, in turn: every failed attempt leaves the
// dataset as it was; the first attempt the rule does not reach commits whole.
TEST_P(MetastoreFaultSuite, FailureAtAnyStatementOfACommitLeavesNoPartialState) {
  ASSERT_TRUE(Append().ok());
  for (int op = 0; op < 2; ++op) {
    bool committed = false;
    for (uint64_t n = 1; n <= 200 && !committed; ++n) {
      State before = Read();
      uint64_t fired = faults_->faults_injected();
      faults_->FailNthStatement(n);
      Status st =
          op == 0 ? Append().status() : cat_->DeleteRows("w.c.t", "id = 2", Meta()).status();
      bool hit = faults_->faults_injected() > fired;
      State after = Read();
      if (hit) {
        EXPECT_FALSE(st.ok()) << "op " << op << " statement " << n;
        EXPECT_TRUE(after == before)
            << "op " << op << ": a failure at statement " << n << " left partial state";
      } else {
        ASSERT_TRUE(st.ok()) << st.ToString();
        EXPECT_EQ(after.snapshots, before.snapshots + 1);
        committed = true;
      }
    }
    EXPECT_TRUE(committed) << "op " << op;
  }
  State end = Read();
  EXPECT_EQ(end.snapshots, 3u);
  EXPECT_EQ(end.rows, 4);  // 3 + 3 appended, both id=2 rows deleted
}

// The same with inlined appends (docs/design/catalog-core.md "Inlined appends"): the kept bytes
// are part of the commit's transaction, so a failure anywhere leaves none behind, and a lost
// reply retried with its key keeps the file once.
TEST_P(MetastoreFaultSuite, InlinedAppendsLeaveNoBytesBehind) {
  faults_->Reset();
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kInlineMaxBytesProperty, "64KiB"}}));
  ASSERT_TRUE(Append().ok());
  EXPECT_EQ(Read().kept, 2);  // one file per partition value
  bool committed = false;
  for (uint64_t n = 1; n <= 200 && !committed; ++n) {
    State before = Read();
    uint64_t fired = faults_->faults_injected();
    faults_->FailNthStatement(n);
    Status st = Append().status();
    bool hit = faults_->faults_injected() > fired;
    State after = Read();
    if (hit) {
      EXPECT_FALSE(st.ok()) << "statement " << n;
      EXPECT_TRUE(after == before) << "a failure at statement " << n << " left partial state";
    } else {
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_EQ(after.kept, before.kept + 2);
      committed = true;
    }
  }
  EXPECT_TRUE(committed);
  for (uint64_t n = 1; n <= 20; ++n) {
    const std::string key = "inlined-" + std::to_string(n);
    State before = Read();
    uint64_t fired = faults_->faults_injected();
    faults_->LoseNthCommitReply(n);
    auto first = Append(key);
    bool hit = faults_->faults_injected() > fired;
    faults_->Reset();
    auto retry = Append(key);
    ASSERT_TRUE(retry.ok()) << retry.status().ToString();
    State after = Read();
    EXPECT_EQ(after.snapshots, before.snapshots + 1) << "COMMIT " << n;
    EXPECT_EQ(after.kept, before.kept + 2) << "COMMIT " << n;
    if (!hit) break;
    EXPECT_FALSE(first.ok());
  }
}

// A failure while a commit's triggers fire (after the commit) never fails the commit: it stands,
// and the missed fire is a trigger.fire_failed audit record (or, when the fault hit the
// commit itself, nothing changed at all).
TEST_P(MetastoreFaultSuite, AFailedFireNeverFailsTheCommit) {
  ::unsetenv("TARN_TRIGGER_FIRING");
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64");
  ASSERT_TRUE(cat_->CreateDataset("w.c.m", def).ok());
  ViewDefinition view;
  view.sql = "SELECT count(*) AS id FROM w.c.t";
  ASSERT_TRUE(
      cat_->RegisterMaterializedView("w.c.m", view, {"w.c.t"}, false, kRefreshFull, "a").ok());
  ASSERT_OK(cat_->SetTriggerInterval("w.c.t", "refresh__c__m", std::nullopt));
  auto jobs = [&] {
    auto all = cat_->ListJobs(JobQuery{});
    EXPECT_TRUE(all.ok());
    return all.ok() ? all->size() : 0;
  };
  auto fire_failures = [&] {
    size_t n = 0;
    auto records = cat_->ListAudit(AuditQuery{});
    EXPECT_TRUE(records.ok());
    for (const auto& a : *records) n += a.action == "trigger.fire_failed";
    return n;
  };
  int missed = 0;
  bool clean = false;
  for (uint64_t n = 1; n <= 200 && !clean; ++n) {
    State before = Read();
    size_t jobs_before = jobs(), failures_before = fire_failures();
    uint64_t fired = faults_->faults_injected();
    faults_->FailNthStatement(n);
    Status st = Append().status();
    bool hit = faults_->faults_injected() > fired;
    State after = Read();
    if (!st.ok()) {
      EXPECT_TRUE(hit) << st.ToString();
      EXPECT_TRUE(after == before) << "statement " << n;
      continue;
    }
    EXPECT_EQ(after.snapshots, before.snapshots + 1) << "statement " << n;
    if (!hit) {
      EXPECT_EQ(jobs(), jobs_before + 1);
      clean = true;
    } else if (jobs() == jobs_before) {
      ++missed;
      EXPECT_EQ(fire_failures(), failures_before + 1) << "statement " << n;
    }
  }
  EXPECT_TRUE(clean);
  EXPECT_GE(missed, 2);  // the read of the triggers and the claim
}

// Loses the reply of each COMMIT of a keyed append in turn: the caller gets an error, and its
// retry with the same key finds the commit (idempotent_replay) or makes it; either way the
// dataset holds it exactly once.
TEST_P(MetastoreFaultSuite, LostCommitReplyIsVisibleExactlyOnceAfterAKeyedRetry) {
  bool lost_the_commit = false;
  size_t expected = 0;
  for (uint64_t n = 1; n <= 20; ++n) {
    std::string key = "load-" + std::to_string(n);
    uint64_t fired = faults_->faults_injected();
    faults_->LoseNthCommitReply(n);
    auto first = Append(key);
    bool hit = faults_->faults_injected() > fired;
    faults_->Reset();
    if (!hit) {
      ASSERT_TRUE(first.ok()) << first.status().ToString();
      ++expected;
      break;
    }
    EXPECT_FALSE(first.ok()) << "COMMIT " << n << ": a lost reply must be reported";
    EXPECT_EQ(first.status().kind(), ErrorKind::kUnavailable) << first.status().ToString();
    size_t seen = Read().snapshots;
    EXPECT_TRUE(seen == expected || seen == expected + 1) << seen;
    auto retry = Append(key);
    ASSERT_TRUE(retry.ok()) << retry.status().ToString();
    if (seen == expected + 1) {
      lost_the_commit = true;
      EXPECT_TRUE(retry->idempotent_replay) << "COMMIT " << n;
    }
    ++expected;
    State s = Read();
    EXPECT_EQ(s.snapshots, expected) << "COMMIT " << n;
    EXPECT_EQ(s.rows, static_cast<int64_t>(3 * expected)) << "COMMIT " << n;
  }
  EXPECT_TRUE(lost_the_commit) << "no lost reply hit the commit's own transaction";
}

// Without a key nothing can tell a retry from a new commit: the lost reply is reported, and what
// committed is there once.
TEST_P(MetastoreFaultSuite, LostCommitReplyWithoutAKeyIsReported) {
  bool lost_the_commit = false;
  for (uint64_t n = 1; n <= 20 && !lost_the_commit; ++n) {
    State before = Read();
    uint64_t fired = faults_->faults_injected();
    faults_->LoseNthCommitReply(n);
    auto r = Append();
    bool hit = faults_->faults_injected() > fired;
    State after = Read();
    if (!hit) break;
    EXPECT_EQ(r.status().kind(), ErrorKind::kUnavailable) << r.status().ToString();
    if (after.snapshots == before.snapshots + 1) {
      lost_the_commit = true;
      EXPECT_EQ(after.rows, before.rows + 3);
    } else {
      EXPECT_TRUE(after == before);
    }
  }
  EXPECT_TRUE(lost_the_commit);
}

// A COMMIT that fails (not committed) leaves nothing; the next attempt commits.
TEST_P(MetastoreFaultSuite, FailedCommitLeavesNothing) {
  for (uint64_t n = 1; n <= 20; ++n) {
    State before = Read();
    uint64_t fired = faults_->faults_injected();
    faults_->FailNthCommit(n);
    auto r = Append();
    bool hit = faults_->faults_injected() > fired;
    State after = Read();
    if (!hit) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(after.snapshots, before.snapshots + 1);
      return;
    }
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(after == before) << "COMMIT " << n;
  }
  ADD_FAILURE() << "the append never committed";
}

INSTANTIATE_TEST_SUITE_P(Backends, MetastoreFaultSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

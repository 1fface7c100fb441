// Housekeeping's flush step on both metastore backends (docs/design/maintenance.md
// "Housekeeping"): one pass writes the inlined files (inline.max_bytes) of each live dataset
// that keeps any out to the warehouse, except a dataset with compaction.auto=true, whose
// compaction moves them out; it audits each dataset it flushed, skips dropped ones, stops when
// cancelled, and a second pass finds nothing.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "catalog/inlined_test_util.h"

namespace tarn {
namespace {

class HousekeepingFlushSuite : public InlinedTest {
 protected:
  void Create(const std::string& name, PropertyMap properties) {
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64, v VARCHAR");
    def.properties = std::move(properties);
    ASSERT_OK(cat_->CreateDataset(name, def).status());
  }
  // Appends rows id = from .. from + n - 1, v = "v<id>".
  void Append(const std::string& ds, int64_t from, int64_t n) {
    std::vector<std::vector<std::string>> rows;
    for (int64_t i = from; i < from + n; ++i) {
      rows.push_back({std::to_string(i), "v" + std::to_string(i)});
    }
    std::vector<RecordBatch> batches;
    batches.push_back(MakeBatch(*Schema::Parse("id INT64, v VARCHAR"), rows));
    CommitMeta meta;
    meta.author = "alice";
    meta.receipt = Receipt();
    auto s = cat_->Append(ds, batches, std::move(meta));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
  }
  // The audit rows of housekeeping's flush step.
  std::vector<AuditRecord> FlushAudit() {
    AuditQuery q;
    q.workspace = "w";
    auto audit = cat_->ListAudit(q);
    EXPECT_OK(audit.status());
    std::vector<AuditRecord> out;
    if (!audit.ok()) return out;
    for (const auto& a : *audit) {
      if (a.actor == "tarn:housekeeping" && a.action == "housekeeping.flush") out.push_back(a);
    }
    return out;
  }
};

TEST_P(HousekeepingFlushSuite, FlushWritesOutDatasetsWithoutCompactionAuto) {
  using Step = Catalog::HousekeepingStep;
  EXPECT_EQ(Catalog::HousekeepingStepName(Step::kFlush), "flush");
  Create("w.c.manual", {{kInlineMaxBytesProperty, "64KiB"}});
  Create("w.c.auto", {{kInlineMaxBytesProperty, "64KiB"}, {kCompactionAutoProperty, "true"}});
  Create("w.c.empty", {{kInlineMaxBytesProperty, "64KiB"}});
  Append("w.c.manual", 0, 10);
  Append("w.c.auto", 0, 10);
  // A dropped dataset's kept bytes stay until a purge; the pass passes it by.
  Create("w.c.dropped", {{kInlineMaxBytesProperty, "64KiB"}});
  Append("w.c.dropped", 0, 10);
  ASSERT_OK(cat_->DropDataset("w.c.dropped"));
  const auto manual = Files("w.c.manual");
  const auto automatic = Files("w.c.auto");
  ASSERT_EQ(manual.size(), 1u);
  ASSERT_EQ(automatic.size(), 1u);
  ASSERT_TRUE(IsInlinedPath(manual[0].path)) << manual[0].path;
  ASSERT_TRUE(IsInlinedPath(automatic[0].path)) << automatic[0].path;
  EXPECT_FALSE(OnDisk(manual[0].path));
  EXPECT_EQ(Kept(), 3);

  // A pass cancelled from the start flushes nothing.
  auto cancelled = cat_->RunHousekeeping(Step::kFlush, [] { return true; });
  ASSERT_OK(cancelled.status());
  EXPECT_EQ(cancelled->datasets, 0);
  EXPECT_EQ(cancelled->files_flushed, 0);
  EXPECT_EQ(Kept(), 3);

  auto r = cat_->RunHousekeeping(Step::kFlush);
  ASSERT_OK(r.status());
  EXPECT_EQ(r->datasets, 1);
  EXPECT_EQ(r->failures, 0);
  EXPECT_EQ(r->files_flushed, 1);
  EXPECT_EQ(r->bytes_flushed, manual[0].file_size_bytes);
  EXPECT_EQ(Kept(manual[0].path), 0);
  EXPECT_TRUE(OnDisk(manual[0].path));
  EXPECT_EQ(static_cast<int64_t>(std::filesystem::file_size(dir_ / "warehouse" / manual[0].path)),
            manual[0].file_size_bytes);
  // compaction.auto: left to the compact step.
  EXPECT_EQ(Kept(automatic[0].path), 1);
  EXPECT_FALSE(OnDisk(automatic[0].path));
  EXPECT_EQ(Kept(), 2);
  // Nothing else moved: the same files, the same rows.
  const auto after = Files("w.c.manual");
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].path, manual[0].path);
  EXPECT_EQ(Ids("w.c.manual"), Range(0, 10));
  EXPECT_EQ(Ids("w.c.auto"), Range(0, 10));
  EXPECT_TRUE(Ids("w.c.empty").empty());

  auto audit = FlushAudit();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].target, "w.c.manual");
  EXPECT_EQ(audit[0].outcome, "ok");
  auto detail = nlohmann::json::parse(audit[0].detail_json);
  EXPECT_EQ(detail["files_written"], 1);
  EXPECT_EQ(detail["bytes_written"], manual[0].file_size_bytes);

  // A second pass finds nothing, and audits nothing.
  auto again = cat_->RunHousekeeping(Step::kFlush);
  ASSERT_OK(again.status());
  EXPECT_EQ(again->datasets, 0);
  EXPECT_EQ(again->files_flushed, 0);
  EXPECT_EQ(again->bytes_flushed, 0);
  EXPECT_EQ(again->failures, 0);
  EXPECT_EQ(FlushAudit().size(), 1u);
  EXPECT_EQ(Ids("w.c.manual"), Range(0, 10));
}

INSTANTIATE_TEST_SUITE_P(Backends, HousekeepingFlushSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

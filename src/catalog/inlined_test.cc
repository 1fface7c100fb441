// Inlined appends on both metastore backends (docs/design/catalog-core.md "Inlined appends"): an
// append under the dataset's inline.max_bytes keeps its file's bytes in the metastore, every
// reader reads it as a file of the warehouse, FlushInlined writes it out at the same path, the
// things that name files to readers outside tarn (manifests, Iceberg metadata) write it out
// first, and deletion, compaction, expiry, cleanup and purge take the kept bytes with the file.
#include "catalog/inlined.h"

#include <filesystem>
#include <set>

#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/inlined_test_util.h"
#include "tarn/iceberg.h"

namespace tarn {
namespace {

class InlinedSuite : public InlinedTest {
 protected:
  void Create(const std::string& name, const std::string& limit = "64KiB",
              const std::string& partition = "") {
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64, v VARCHAR");
    def.partition_spec = partition;
    if (!limit.empty()) def.properties[kInlineMaxBytesProperty] = limit;
    ASSERT_OK(cat_->CreateDataset(name, def).status());
  }
  CommitMeta Meta(std::optional<std::string> key = std::nullopt) {
    CommitMeta meta;
    meta.author = "alice";
    meta.receipt = Receipt();
    meta.idempotency_key = std::move(key);
    return meta;
  }
  // Rows id = from .. from + n - 1, v = "v<id>".
  static RecordBatch Rows(int64_t from, int64_t n) {
    std::vector<std::vector<std::string>> rows;
    for (int64_t i = from; i < from + n; ++i)
      rows.push_back({std::to_string(i), "v" + std::to_string(i)});
    return MakeBatch(*Schema::Parse("id INT64, v VARCHAR"), rows);
  }
  static std::vector<RecordBatch> Batches(RecordBatch b) {
    std::vector<RecordBatch> out;
    out.push_back(std::move(b));
    return out;
  }
  SnapshotInfo Append(const std::string& ds, int64_t from, int64_t n,
                      std::optional<std::string> key = std::nullopt) {
    auto s = cat_->Append(ds, Batches(Rows(from, n)), Meta(std::move(key)));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : SnapshotInfo();
  }
};

TEST_P(InlinedSuite, ASmallAppendIsKeptInTheMetastoreAndReadLikeAFile) {
  Create("w.c.t");
  Append("w.c.t", 0, 10);
  Append("w.c.t", 10, 5);
  auto files = Files("w.c.t");
  ASSERT_EQ(files.size(), 2u);
  for (const auto& f : files) {
    EXPECT_TRUE(IsInlinedPath(f.path)) << f.path;
    EXPECT_FALSE(OnDisk(f.path)) << f.path;
    EXPECT_GT(f.file_size_bytes, 0);
    EXPECT_FALSE(f.columns.empty());  // statistics as for any append
  }
  EXPECT_EQ(Kept(), 2);
  EXPECT_EQ(Ids("w.c.t"), Range(0, 15));
  // Row ids, time travel, pruning by statistics and the change feed see them as files.
  ScanOptions with_ids;
  with_ids.with_row_ids = true;
  EXPECT_EQ(Ids("w.c.t", with_ids).size(), 15u);
  SnapshotSelector first;
  first.snapshot_id = 1;
  ScanOptions at;
  at.at = first;
  EXPECT_EQ(Ids("w.c.t", at), Range(0, 10));
  ScanOptions where;
  where.where = "id >= 12";
  EXPECT_EQ(Ids("w.c.t", where), Range(12, 3));
  ChangeQuery q;
  auto changes = cat_->Changes("w.c.t", q);
  ASSERT_OK(changes.status());
  EXPECT_EQ(changes->added_files.size(), 2u);
  // A delete makes a deletion vector on the inlined file.
  ASSERT_OK(cat_->DeleteRows("w.c.t", "id = 3", Meta()).status());
  auto left = Range(0, 15);
  left.erase(3);
  EXPECT_EQ(Ids("w.c.t"), left);
  // The integrity sweep finds every file (no missing object, no orphan).
  FsckOptions options;
  auto report = cat_->Fsck(options);
  ASSERT_OK(report.status());
  EXPECT_TRUE(report->clean()) << report->findings.front().detail;
}

TEST_P(InlinedSuite, LargerAppendsAndDatasetsWithoutTheSettingWriteFiles) {
  Create("w.c.small", "1KiB");
  Create("w.c.off", "");
  Append("w.c.small", 0, 1000);  // ~ 16 KB of rows
  Append("w.c.off", 0, 10);
  for (const char* ds : {"w.c.small", "w.c.off"}) {
    auto files = Files(ds);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_FALSE(IsInlinedPath(files[0].path));
    EXPECT_TRUE(OnDisk(files[0].path));
  }
  EXPECT_EQ(Kept(), 0);
}

TEST_P(InlinedSuite, AStreamIsInlinedWhenItEndsWithinTheLimit) {
  Create("w.c.t", "4KiB");
  auto stream = [](int64_t batches, int64_t rows) {
    auto i = std::make_shared<int64_t>(0);
    return [=]() -> Result<std::optional<RecordBatch>> {
      if (*i >= batches) return std::optional<RecordBatch>();
      const int64_t from = 1000 * (*i)++;
      return std::optional<RecordBatch>(Rows(from, rows));
    };
  };
  auto small = cat_->AppendStream("w.c.t", stream(3, 5), Meta());
  ASSERT_OK(small.status());
  auto files = Files("w.c.t");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(IsInlinedPath(files[0].path));
  // A stream past the limit is written from its first batch on: no row is lost.
  auto large = cat_->AppendStream("w.c.t", stream(40, 50), Meta());
  ASSERT_OK(large.status());
  EXPECT_EQ(large->added_records, 2000);
  files = Files("w.c.t");
  ASSERT_EQ(files.size(), 2u);
  int inlined = 0;
  for (const auto& f : files) inlined += IsInlinedPath(f.path) ? 1 : 0;
  EXPECT_EQ(inlined, 1);
  EXPECT_EQ(Ids("w.c.t").size(), 15u + 2000u);
}

TEST_P(InlinedSuite, FlushWritesTheFilesOutAtTheirPaths) {
  Create("w.c.t");
  Append("w.c.t", 0, 10);
  Append("w.c.t", 10, 10);
  const auto before = Files("w.c.t");
  auto flushed = cat_->FlushInlined("w.c.t");
  ASSERT_OK(flushed.status());
  EXPECT_EQ(flushed->dataset, "w.c.t");
  EXPECT_EQ(flushed->files_written, 2);
  int64_t bytes = 0;
  for (const auto& f : before) {
    EXPECT_TRUE(OnDisk(f.path)) << f.path;
    EXPECT_EQ(static_cast<int64_t>(std::filesystem::file_size(dir_ / "warehouse" / f.path)),
              f.file_size_bytes);
    bytes += f.file_size_bytes;
  }
  EXPECT_EQ(flushed->bytes_written, bytes);
  EXPECT_EQ(Kept(), 0);
  // The same files, now read from the warehouse.
  const auto after = Files("w.c.t");
  ASSERT_EQ(after.size(), before.size());
  EXPECT_EQ(Ids("w.c.t"), Range(0, 20));
  auto again = cat_->FlushInlined("w.c.t");
  ASSERT_OK(again.status());
  EXPECT_EQ(again->files_written, 0);
  EXPECT_TRUE(cat_->FlushInlined("w.c.nope").status().Is(codes::kDatasetNotFound));
}

TEST_P(InlinedSuite, CompactionExpiryAndCleanupTakeTheKeptBytesWithTheFiles) {
  Create("w.c.t");
  for (int i = 0; i < 4; ++i) Append("w.c.t", 10 * i, 10);
  ASSERT_OK(cat_->DeleteRows("w.c.t", "id = 5", Meta()).status());
  auto compacted = cat_->Compact("w.c.t", {}, Meta());
  ASSERT_OK(compacted.status());
  ASSERT_TRUE(compacted->snapshot_id.has_value());
  auto files = Files("w.c.t");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_FALSE(IsInlinedPath(files[0].path));  // compaction writes a file of the warehouse
  auto left = Range(0, 40);
  left.erase(5);
  EXPECT_EQ(Ids("w.c.t"), left);
  EXPECT_EQ(Kept(), 4);  // the replaced files are still in the older snapshots
  // The change feed into the newest expired snapshot keeps what it removed: one more snapshot.
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kInlineMaxBytesProperty, "0"}}));
  Append("w.c.t", 100, 1);
  left.insert(100);
  ExpiryOptions expire;
  expire.older_than_us = INT64_MAX;
  auto expired = cat_->ExpireSnapshots("w.c.t", expire);
  ASSERT_OK(expired.status());
  EXPECT_EQ(expired->files_released, 4);
  auto cleaned = cat_->Cleanup();
  ASSERT_OK(cleaned.status());
  EXPECT_EQ(cleaned->objects_deleted, 4);
  EXPECT_EQ(Kept(), 0);
  EXPECT_EQ(Ids("w.c.t"), left);
}

TEST_P(InlinedSuite, APurgeTakesTheKeptBytes) {
  Create("w.c.t");
  Create("w.c.other");
  ASSERT_OK(cat_->SetWorkspaceProperties("w", {{"deletion_protection", "false"}}));
  Append("w.c.t", 0, 10);
  Append("w.c.other", 0, 10);
  ASSERT_OK(cat_->DropDataset("w.c.t", /*purge=*/true));
  EXPECT_EQ(Kept(), 1);
  EXPECT_EQ(Ids("w.c.other"), Range(0, 10));
}

TEST_P(InlinedSuite, AnIdempotentRetryKeepsNothingTwice) {
  Create("w.c.t");
  auto a = Append("w.c.t", 0, 10, "k1");
  auto b = cat_->Append("w.c.t", Batches(Rows(0, 10)), Meta("k1"));
  ASSERT_OK(b.status());
  EXPECT_TRUE(b->idempotent_replay);
  EXPECT_EQ(b->snapshot_id, a.snapshot_id);
  EXPECT_EQ(Kept(), 1);
  EXPECT_EQ(Ids("w.c.t"), Range(0, 10));
}

TEST_P(InlinedSuite, PartitionedAppendsInlineEachPartitionsFile) {
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64, region VARCHAR");
  def.partition_spec = "region";
  def.properties[kInlineMaxBytesProperty] = "64KiB";
  ASSERT_OK(cat_->CreateDataset("w.c.p", def).status());
  auto rows = MakeBatch(def.schema, {{"1", "eu"}, {"2", "us"}, {"3", "eu"}});
  ASSERT_OK(cat_->Append("w.c.p", Batches(std::move(rows)), Meta()).status());
  auto files = Files("w.c.p");
  ASSERT_EQ(files.size(), 2u);
  for (const auto& f : files) EXPECT_TRUE(IsInlinedPath(f.path));
  EXPECT_EQ(Ids("w.c.p",
                [] {
                  ScanOptions o;
                  o.where = "region = 'eu'";
                  return o;
                }()),
            (std::multiset<int64_t>{1, 3}));
}

TEST_P(InlinedSuite, ManifestsAndIcebergMetadataWriteTheFilesOutFirst) {
  Create("w.c.t");
  Append("w.c.t", 0, 10);
  const auto first = Files("w.c.t");
  ASSERT_EQ(first.size(), 1u);
  std::string manifest;
  auto info = cat_->ExportManifest("w.c.t", {}, [&](std::string_view bytes) {
    manifest.append(bytes);
    return Status::OK();
  });
  ASSERT_OK(info.status());
  EXPECT_TRUE(OnDisk(first[0].path));
  EXPECT_EQ(info->files, 1);
  // Written out, then forgotten: the next export does not write it again.
  EXPECT_EQ(Kept(), 0);

  Append("w.c.t", 10, 10);
  Append("w.c.t", 20, 10);
  auto files = Files("w.c.t");
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(Kept(), 2);
  // Iceberg metadata of the snapshot before the last append: only its files are written out.
  IcebergRequest req;
  req.at.snapshot_id = 2;
  auto table = cat_->IcebergTable("w.c.t", req);
  ASSERT_OK(table.status());
  EXPECT_EQ(Kept(), 1);
  int on_disk = 0;
  for (const auto& f : files) on_disk += OnDisk(f.path) ? 1 : 0;
  EXPECT_EQ(on_disk, 2);
  EXPECT_EQ(Ids("w.c.t"), Range(0, 30));
  ASSERT_OK(cat_->FlushInlined("w.c.t").status());
  EXPECT_EQ(Kept(), 0);
  for (const auto& f : files) EXPECT_TRUE(OnDisk(f.path)) << f.path;
  EXPECT_EQ(Ids("w.c.t"), Range(0, 30));
}

// A flush that writes a file out while Cleanup deletes it (expiry released it) leaves no
// object behind: the bytes it meant to forget were gone, no row names the path, so the object
// it wrote is deleted again.
TEST_P(InlinedSuite, AnObjectWrittenOutForAFileCleanupDeletedIsDeletedAgain) {
  Create("w.c.t");
  Append("w.c.t", 0, 10);
  const auto files = Files("w.c.t");
  ASSERT_EQ(files.size(), 1u);
  const std::string path = files[0].path;
  // The race, by hand: the file's rows are gone and its bytes forgotten (what expiry and
  // Cleanup do), then a writer-out writes the object it had read before.
  auto* store = &static_cast<catalog_internal::InliningStore&>(cat_->warehouse()).files();
  ASSERT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
    TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM file_bounds").status());
    TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM data_files WHERE path = ?", {path}).status());
    return tx.Execute("DELETE FROM inlined_files WHERE path = ?", {path}).status();
  }));
  ASSERT_OK(store->Put(path, "bytes read before the delete"));
  auto forgotten = catalog_internal::ForgetWrittenOut(cat_->metastore(), *store, {path});
  ASSERT_OK(forgotten.status());
  EXPECT_TRUE(forgotten->empty());
  EXPECT_FALSE(OnDisk(path));
  // A file still named by a row keeps its object, whoever forgot its bytes first.
  Append("w.c.t", 10, 10);
  const std::string live = Files("w.c.t")[0].path;
  ASSERT_OK(cat_->FlushInlined("w.c.t").status());
  forgotten = catalog_internal::ForgetWrittenOut(cat_->metastore(), *store, {live});
  ASSERT_OK(forgotten.status());
  EXPECT_TRUE(forgotten->empty());
  EXPECT_TRUE(OnDisk(live));
}

TEST_P(InlinedSuite, NoCommitMayNameAnInlinePathOrCarryBytes) {
  Create("w.c.t");
  auto ds = cat_->LoadDataset("w.c.t");
  ASSERT_OK(ds.status());
  // A file a writer put under the inline prefix itself.
  const std::string path = catalog_internal::DatasetPrefix(ds->uuid) + "inline/mine.parquet";
  ASSERT_OK(cat_->warehouse().Put(path, "not parquet"));
  DataFile f;
  f.path = path;
  f.record_count = 1;
  DatasetCommit part;
  part.dataset = "w.c.t";
  part.operation = CommitOperation::kAddFiles;
  part.added = {f};
  part.meta = Meta();
  EXPECT_TRUE(cat_->Commit(part).status().Is(codes::kPathNotOwned));
  part.inlined = {{path, "bytes"}};
  EXPECT_EQ(cat_->Commit(part).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_TRUE(cat_->AddFiles("w.c.t", {path}, Meta()).status().Is(codes::kPathNotOwned));
}

TEST_P(InlinedSuite, TheSettingIsCheckedWhenSet) {
  for (const char* bad : {"lots", "-1", "2MiB"}) {
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64");
    def.properties[kInlineMaxBytesProperty] = bad;
    auto st = cat_->CreateDataset("w.c.bad", def).status();
    EXPECT_TRUE(st.Is(codes::kInvalidProperty)) << bad << ": " << st.ToString();
    EXPECT_EQ(FieldOf(st, "property"), kInlineMaxBytesProperty);
  }
  Create("w.c.t", "");
  EXPECT_TRUE(cat_->SetDatasetProperties("w.c.t", {{kInlineMaxBytesProperty, "1GiB"}})
                  .Is(codes::kInvalidProperty));
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kInlineMaxBytesProperty, "1MiB"}}));
  Append("w.c.t", 0, 10);
  EXPECT_TRUE(IsInlinedPath(Files("w.c.t")[0].path));
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kInlineMaxBytesProperty, "0"}}));
  Append("w.c.t", 10, 10);
  EXPECT_EQ(Kept(), 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, InlinedSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

// Workspace isolation of registered files and commits that state metadata (issue 14, defects
// 1, 4 and the add_files half of 7), on SQLite and PostgreSQL (see test_fixture.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "catalog/catalog.h"
#include "catalog/test_fixture.h"
#include "objectstore/object_store.h"

namespace tarn {
namespace {

namespace fs = std::filesystem;

CommitMeta Meta(std::string key = "") {
  CommitMeta m;
  m.author = "tester";
  m.receipt = Receipt{};  // a hand-run commit that read nothing
  if (!key.empty()) m.idempotency_key = key;
  return m;
}

std::vector<RecordBatch> One(RecordBatch b) {
  std::vector<RecordBatch> v;
  v.push_back(std::move(b));
  return v;
}

class IsolationSuite : public CatalogBackendTest {
 protected:
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    for (const char* ws : {"a", "b"}) {
      ASSERT_OK(cat_->CreateWorkspace(ws));
      ASSERT_OK(cat_->CreateCollection(std::string(ws) + ".c"));
    }
    secret_ = Create("b.c.secret");
    auto s = cat_->Append("b.c.secret", One(MakeBatch(secret_.schema, {{"1", "b-only"}})), Meta());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    secret_file_ = LiveFiles("b.c.secret").at(0);
    mine_ = Create("a.c.mine");
  }

  DatasetInfo Create(const std::string& name) {
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64 NOT NULL, v VARCHAR");
    auto d = cat_->CreateDataset(name, def);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : DatasetInfo();
  }

  std::vector<DataFile> LiveFiles(const std::string& name) {
    std::vector<DataFile> out;
    Status st = cat_->PlanFiles(name, {}, "", [&](const PlannedFile& f) {
      out.push_back(f.file);
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return out;
  }

  int64_t RowCount(const std::string& name) {
    int64_t n = 0;
    Status st = cat_->Scan(name, {}, "", false, [&](const RecordBatch& b) {
      n += b.num_rows;
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return n;
  }

  // A commit to `dataset` adding `file` (stats as stated by a client).
  Result<SnapshotInfo> CommitFile(const std::string& dataset, DataFile file,
                                  const std::string& key = "") {
    DatasetCommit part;
    part.dataset = dataset;
    part.operation = CommitOperation::kAddFiles;
    part.added.push_back(std::move(file));
    part.meta = Meta(key);
    return cat_->Commit(std::move(part));
  }

  // The file of `file` copied to `key` (same bytes, same stats).
  DataFile CopyTo(const DataFile& file, const std::string& key) {
    auto bytes = cat_->warehouse().Get(file.path);
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    EXPECT_TRUE(cat_->warehouse().Put(key, *bytes).ok());
    DataFile f = file;
    f.path = key;
    return f;
  }

  std::string Root() { return (dir_ / "warehouse").string(); }

  DatasetInfo secret_, mine_;
  DataFile secret_file_;
};

TEST_P(IsolationSuite, AnotherWorkspacesFileIsRefusedInEverySpelling) {
  const std::string key = secret_file_.path;
  const std::string root = fs::canonical(Root()).string();
  const std::string rel = key.substr(std::string("datasets/").size());
  for (const std::string& spelling :
       {key, "./" + key, "datasets//" + rel, "datasets/" + mine_.uuid + "/../" + rel,
        "datasets/" + mine_.uuid + "/data/../../" + rel, "file://" + root + "/" + key,
        root + "/" + key, root + "/datasets/" + mine_.uuid + "/../" + rel}) {
    DataFile f = secret_file_;
    f.path = spelling;
    auto c = CommitFile("a.c.mine", f);
    EXPECT_EQ(c.status().kind(), ErrorKind::kPermissionDenied) << spelling;
    EXPECT_EQ(FieldOf(c.status(), "code"), "path_not_owned") << spelling;
    // The answer names neither the other dataset nor the warehouse root.
    EXPECT_EQ(c.status().message().find("secret"), std::string::npos) << c.status().ToString();
    EXPECT_EQ(c.status().message().find(root), std::string::npos) << c.status().ToString();
    auto a = cat_->AddFiles("a.c.mine", {spelling}, Meta());
    EXPECT_EQ(FieldOf(a.status(), "code"), "path_not_owned") << spelling;
  }
  EXPECT_EQ(RowCount("a.c.mine"), 0);
  EXPECT_TRUE(LiveFiles("a.c.mine").empty());
  // Outside the warehouse altogether: its own code, and the root stays unnamed.
  DataFile f = secret_file_;
  f.path = "../" + key;
  auto out = CommitFile("a.c.mine", f);
  EXPECT_EQ(FieldOf(out.status(), "code"), "path_outside_warehouse");
  EXPECT_EQ(out.status().message().find(root), std::string::npos) << out.status().ToString();
}

TEST_P(IsolationSuite, OneAnswerForWhatTheCallerMayNotRead) {
  // Outside the dataset's locations, a missing file, a directory, a non-Parquet object and
  // another dataset's file get the same answer: nothing is learnt of what lies there.
  const std::string b_prefix = "datasets/" + secret_.uuid + "/";
  ASSERT_OK(cat_->warehouse().Put(b_prefix + "notes/readme.txt", "not parquet"));
  std::vector<std::string> answers;
  for (const std::string& path :
       {b_prefix + "data/missing.parquet", b_prefix + "notes", b_prefix + "notes/readme.txt",
        secret_file_.path, std::string("elsewhere/x.parquet")}) {
    auto a = cat_->AddFiles("a.c.mine", {path}, Meta());
    EXPECT_EQ(FieldOf(a.status(), "code"), "path_not_owned") << path;
    EXPECT_EQ(a.status().kind(), ErrorKind::kPermissionDenied) << path;
    std::string m = a.status().message();
    answers.push_back(m.replace(m.find(path), path.size(), "<path>"));
  }
  for (const auto& m : answers) EXPECT_EQ(m, answers[0]);
  // Inside them (what a writer of the dataset may read) the cases are told apart.
  const std::string own = "datasets/" + mine_.uuid + "/";
  ASSERT_OK(cat_->warehouse().Put(own + "notes/readme.txt", "not parquet"));
  EXPECT_EQ(FieldOf(cat_->AddFiles("a.c.mine", {own + "gone.parquet"}, Meta()).status(), "code"),
            "file_not_found");
  EXPECT_EQ(FieldOf(cat_->AddFiles("a.c.mine", {own + "notes"}, Meta()).status(), "code"),
            "file_not_found");
  EXPECT_EQ(
      FieldOf(cat_->AddFiles("a.c.mine", {own + "notes/readme.txt"}, Meta()).status(), "code"),
      "not_parquet");
  fs::create_symlink(fs::path(Root()) / secret_file_.path, fs::path(Root()) / own / "link.parquet");
  auto link = cat_->AddFiles("a.c.mine", {own + "link.parquet"}, Meta());
  EXPECT_EQ(FieldOf(link.status(), "code"), "not_a_regular_file") << link.status().ToString();
  EXPECT_EQ(RowCount("a.c.mine"), 0);
}

TEST_P(IsolationSuite, CommitsMustNameRealFilesOfTheStatedSize) {
  const std::string own = "datasets/" + mine_.uuid + "/";
  // The case: a path that does not exist, claiming a million rows.
  DataFile ghost;
  ghost.path = own + "data/ghost.parquet";
  ghost.record_count = 1'000'000;
  ghost.file_size_bytes = 4096;
  auto g = CommitFile("a.c.mine", ghost);
  EXPECT_EQ(g.status().kind(), ErrorKind::kInvalidArgument) << g.status().ToString();
  EXPECT_EQ(FieldOf(g.status(), "code"), "file_not_found");
  EXPECT_EQ(FieldOf(g.status(), "path"), ghost.path);
  EXPECT_EQ(cat_->LoadDataset("a.c.mine")->total_records, 0);
  // A symlink under the dataset's own prefix to another dataset's file.
  fs::create_directories(fs::path(Root()) / own / "data");
  fs::create_symlink(fs::path(Root()) / secret_file_.path,
                     fs::path(Root()) / own / "data" / "link.parquet");
  DataFile link = secret_file_;
  link.path = own + "data/link.parquet";
  auto l = CommitFile("a.c.mine", link);
  EXPECT_EQ(FieldOf(l.status(), "code"), "not_a_regular_file") << l.status().ToString();
  // A symlinked directory is never followed either.
  fs::create_directory_symlink(fs::path(Root()) / "datasets" / secret_.uuid / "data",
                               fs::path(Root()) / own / "via");
  DataFile via = secret_file_;
  via.path = own + "via/" + fs::path(secret_file_.path).filename().string();
  EXPECT_EQ(FieldOf(CommitFile("a.c.mine", via).status(), "code"), "not_a_regular_file");
  // The wrong size.
  DataFile copy = CopyTo(secret_file_, own + "data/copy.parquet");
  DataFile wrong = copy;
  wrong.file_size_bytes += 1;
  auto w = CommitFile("a.c.mine", wrong);
  EXPECT_EQ(FieldOf(w.status(), "code"), "file_size_mismatch") << w.status().ToString();
  EXPECT_EQ(RowCount("a.c.mine"), 0);
  // The right file: registered and read.
  auto ok = CommitFile("a.c.mine", copy);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(RowCount("a.c.mine"), 1);
  // Many files are checked together (in parallel), the first bad one named.
  DatasetCommit many;
  many.dataset = "a.c.mine";
  many.operation = CommitOperation::kAddFiles;
  many.meta = Meta();
  for (int i = 0; i < 12; ++i) {
    many.added.push_back(CopyTo(secret_file_, own + "data/m" + std::to_string(i) + ".parquet"));
  }
  DatasetCommit bad_many = many;
  bad_many.added[7].path = own + "data/not-there.parquet";
  auto bm = cat_->Commit(bad_many);
  EXPECT_EQ(FieldOf(bm.status(), "code"), "file_not_found");
  EXPECT_EQ(FieldOf(bm.status(), "path"), own + "data/not-there.parquet");
  auto m = cat_->Commit(many);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(RowCount("a.c.mine"), 13);
}

TEST_P(IsolationSuite, AFileAnotherDatasetReferencesIsAlwaysRefused) {
  // In a location granted to a dataset, then to another once the first is dropped: the
  // dropped one's history still references the file.
  DataFile landed = CopyTo(secret_file_, "landing/x.parquet");
  ASSERT_OK(cat_->GrantLocation("a.c.mine", "landing/"));
  ASSERT_TRUE(CommitFile("a.c.mine", landed).ok());
  ASSERT_OK(cat_->DropDataset("a.c.mine"));
  auto next = Create("a.c.next");
  ASSERT_OK(cat_->GrantLocation("a.c.next", "landing"));
  auto again = CommitFile("a.c.next", landed);
  EXPECT_EQ(FieldOf(again.status(), "code"), "path_not_owned") << again.status().ToString();
  EXPECT_EQ(FieldOf(cat_->AddFiles("a.c.next", {"landing/x.parquet"}, Meta()).status(), "code"),
            "path_not_owned");
  // A new incarnation under the old name is another dataset: the old one's files are not its.
  auto reborn = Create("a.c.mine");
  ASSERT_NE(reborn.uuid, mine_.uuid);
  DataFile old = CopyTo(secret_file_, "datasets/" + mine_.uuid + "/data/old.parquet");
  EXPECT_EQ(FieldOf(CommitFile("a.c.mine", old).status(), "code"), "path_not_owned");
  // A row registered before the rule existed (the engine alone, as an old server did): the
  // file stays refused to everyone else, its own prefix or not.
  DataFile planted = CopyTo(secret_file_, "datasets/" + next.uuid + "/data/planted.parquet");
  DatasetCommit legacy;
  legacy.dataset = "b.c.secret";
  legacy.operation = CommitOperation::kAddFiles;
  legacy.added = {planted};
  legacy.meta = Meta();
  ASSERT_TRUE(cat_->CommitWritten({legacy}).ok());
  EXPECT_EQ(FieldOf(CommitFile("a.c.next", planted).status(), "code"), "path_not_owned");
  // A rename keeps the dataset's prefix (its uuid).
  ASSERT_OK(cat_->RenameDataset("a.c.next", "renamed"));
  DataFile own = CopyTo(secret_file_, "datasets/" + next.uuid + "/data/own.parquet");
  auto r = CommitFile("a.c.renamed", own);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

TEST_P(IsolationSuite, LocationGrants) {
  for (const std::string& bad :
       {std::string("datasets/"), "datasets/" + secret_.uuid, std::string("uploads/x/"),
        std::string("/"), std::string(""), std::string("../outside"), std::string("file:///etc")}) {
    Status st = cat_->GrantLocation("a.c.mine", bad);
    EXPECT_EQ(FieldOf(st, "code"), "invalid_location") << bad << ": " << st.ToString();
  }
  const std::string root = fs::canonical(Root()).string();
  ASSERT_OK(cat_->GrantLocation("a.c.mine", "file://" + root + "/landing/a"));
  ASSERT_OK(cat_->GrantLocation("a.c.mine", "landing/a/"));  // twice is fine
  // Overlapping another live dataset's location, either way round.
  for (const char* p : {"landing/a/deeper", "landing", "landing/a"}) {
    Status st = cat_->GrantLocation("b.c.secret", p);
    EXPECT_EQ(FieldOf(st, "code"), "location_in_use") << p << ": " << st.ToString();
  }
  ASSERT_OK(cat_->GrantLocation("b.c.secret", "landing/b"));
  auto list = cat_->ListLocations("a.c.mine");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].prefix, "landing/a/");
  EXPECT_FALSE((*list)[0].granted_by.empty());
  EXPECT_GT((*list)[0].granted_at_us, 0);
  // Files under it may be registered; a sibling prefix ("landing/ab/") is not under it.
  DataFile in = CopyTo(secret_file_, "landing/a/f.parquet");
  DataFile sibling = CopyTo(secret_file_, "landing/ab/f.parquet");
  DataFile theirs = CopyTo(secret_file_, "landing/b/f.parquet");
  EXPECT_EQ(FieldOf(CommitFile("a.c.mine", sibling).status(), "code"), "path_not_owned");
  EXPECT_EQ(FieldOf(CommitFile("a.c.mine", theirs).status(), "code"), "path_not_owned");
  ASSERT_TRUE(CommitFile("a.c.mine", in).ok());
  // Revoked: registered files stay, new ones are refused.
  ASSERT_OK(cat_->RevokeLocation("a.c.mine", "landing/a"));
  EXPECT_EQ(FieldOf(cat_->RevokeLocation("a.c.mine", "landing/a"), "code"), "location_not_found");
  DataFile later = CopyTo(secret_file_, "landing/a/g.parquet");
  EXPECT_EQ(FieldOf(CommitFile("a.c.mine", later).status(), "code"), "path_not_owned");
  EXPECT_EQ(RowCount("a.c.mine"), 1);
  EXPECT_TRUE(cat_->ListLocations("a.c.mine")->empty());
  EXPECT_EQ(FieldOf(cat_->GrantLocation("a.c.none", "landing/z"), "code"), "dataset_not_found");
  // A purge takes the dataset's grants with it.
  ASSERT_OK(cat_->SetWorkspaceProperties("b", {{kDeletionProtection, "false"}}));
  ASSERT_OK(cat_->DropDataset("b.c.secret", /*purge=*/true));
  ASSERT_OK(cat_->GrantLocation("a.c.mine", "landing/b"));
}

TEST_P(IsolationSuite, ARetryOfALandedCommitIsStillAnsweredAsAReplay) {
  const std::string own = "datasets/" + mine_.uuid + "/data/";
  DataFile f = CopyTo(secret_file_, own + "r.parquet");
  auto first = CommitFile("a.c.mine", f, "k1");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_OK(cat_->warehouse().Delete(f.path));
  auto replay = CommitFile("a.c.mine", f, "k1");
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_TRUE(replay->idempotent_replay);
  EXPECT_EQ(replay->snapshot_id, first->snapshot_id);
}

TEST_P(IsolationSuite, AScanReportsAFileThatDisagreesWithTheCatalog) {
  // Registered with counts its footer does not have (the engine alone, as an old server did).
  const std::string own = "datasets/" + mine_.uuid + "/data/";
  DataFile lying = CopyTo(secret_file_, own + "lying.parquet");
  lying.record_count = 1'000'000;
  DatasetCommit part;
  part.dataset = "a.c.mine";
  part.operation = CommitOperation::kAddFiles;
  part.added = {lying};
  part.meta = Meta();
  ASSERT_TRUE(cat_->CommitWritten({part}).ok());
  Status st = cat_->Scan("a.c.mine", {}, "", false, [](const RecordBatch&) {
    ADD_FAILURE() << "rows served from a file that disagrees with the catalog";
    return Status::OK();
  });
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();
  EXPECT_EQ(FieldOf(st, "code"), "file_metadata_mismatch");
  EXPECT_EQ(FieldOf(st, "path"), lying.path);
  EXPECT_EQ(st.message().find(Root()), std::string::npos) << st.ToString();
  // A file replaced after its commit (another size) is reported the same way.
  auto other = Create("a.c.other");
  DataFile good = CopyTo(secret_file_, "datasets/" + other.uuid + "/data/x.parquet");
  ASSERT_TRUE(CommitFile("a.c.other", good).ok());
  ASSERT_EQ(RowCount("a.c.other"), 1);
  auto bytes = cat_->warehouse().Get(good.path);
  ASSERT_TRUE(bytes.ok());
  ASSERT_OK(cat_->warehouse().Put(good.path, std::string(16, 'x') + *bytes));
  Status replaced =
      cat_->Scan("a.c.other", {}, "", false, [](const RecordBatch&) { return Status::OK(); });
  EXPECT_EQ(FieldOf(replaced, "code"), "file_metadata_mismatch") << replaced.ToString();
  EXPECT_EQ(FieldOf(replaced, "path"), good.path);
}

TEST_P(IsolationSuite, AnUploadCommitsOnlyItsOwnStagedFiles) {
  DataFile mine = CopyTo(secret_file_, "uploads/c1/part-0.parquet");
  DataFile other = CopyTo(secret_file_, "uploads/c2/part-0.parquet");
  auto part = [&](const DataFile& f) {
    DatasetCommit p;
    p.dataset = "a.c.mine";
    p.operation = CommitOperation::kAppend;
    p.added = {f};
    p.meta = Meta();
    return p;
  };
  // Another contract's staging area, or a plain commit of a contract's file: not the dataset's.
  EXPECT_EQ(FieldOf(cat_->CommitStaged(part(other), "uploads/c1/").status(), "code"),
            "path_not_owned");
  EXPECT_EQ(FieldOf(cat_->Commit(part(mine)).status(), "code"), "path_not_owned");
  // A staged file gone meanwhile is caught like any other.
  DataFile gone = mine;
  gone.path = "uploads/c1/part-9.parquet";
  EXPECT_EQ(FieldOf(cat_->CommitStaged(part(gone), "uploads/c1").status(), "code"),
            "file_not_found");
  auto ok = cat_->CommitStaged(part(mine), "uploads/c1");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(RowCount("a.c.mine"), 1);
}

TEST(WarehouseKeyTest, NormalisesAndConfines) {
  auto dir = testing_util::ScratchDir() / ("tarn-wk-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto store = OpenObjectStore(dir.string());
  ASSERT_TRUE(store.ok());
  const std::string root = fs::canonical(dir).string();
  struct Case {
    std::string in, key;
  };
  for (const Case& c : std::vector<Case>{{"a/b", "a/b"},
                                         {"./a//b/", "a/b"},
                                         {"a/x/../b", "a/b"},
                                         {"file://" + root + "/a/b", "a/b"},
                                         {root + "/a/./b", "a/b"},
                                         {root + "/../" + dir.filename().string() + "/a", "a"},
                                         {"file://" + root + "//a", "a"}}) {
    auto k = WarehouseKey(**store, c.in);
    ASSERT_TRUE(k.ok()) << c.in << ": " << k.status().ToString();
    EXPECT_EQ(*k, c.key) << c.in;
  }
  for (const std::string& bad :
       {std::string(""), std::string("."), std::string("a/../.."), std::string("../x"),
        std::string("/etc/passwd"), root, root + "/", root + "/a/../../x", "file://" + root,
        std::string("s3://b/x"), root + "x/y", std::string("a\n/b")}) {
    auto k = WarehouseKey(**store, bad);
    EXPECT_EQ(FieldOf(k.status(), "code"), "path_outside_warehouse") << bad;
    EXPECT_EQ(k.status().message().find("warehouse " + root), std::string::npos);
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Backends, IsolationSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

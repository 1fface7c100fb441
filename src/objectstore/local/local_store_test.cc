// What only the local store has to get right: confinement to the root whatever the key and
// whatever symlinks the directory holds, temporary files, FIFOs, directory bookkeeping, and the
// URI/path entry points.
#include "objectstore/local/local_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "objectstore/object_store.h"
#include "objectstore/test_util.h"

namespace tarn {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class LocalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("tarn-local-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    root_ = base_ / "warehouse";
    outside_ = base_ / "outside";
    fs::create_directories(outside_);
    std::ofstream(outside_ / "secret") << "top secret";
    auto store = LocalObjectStore::Open(root_.string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
  }
  void TearDown() override { fs::remove_all(base_); }

  // Every file under `outside_`, to prove nothing was written there.
  std::vector<std::string> OutsideFiles() {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(outside_)) {
      names.push_back(fs::relative(e.path(), outside_).string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path base_, root_, outside_;
  std::shared_ptr<LocalObjectStore> store_;
};

// Issue 14 defect 5: objects and their directories were 0644/0755 less the umask.
TEST_F(LocalStoreTest, ObjectsTemporariesAndDirectoriesAreOwnerOnlyWhateverTheUmask) {
  auto mode = [](const fs::path& p) {
    struct stat st;
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 0777;
  };
  for (mode_t mask : {mode_t{000}, mode_t{022}}) {
    fs::path root = base_ / ("private-" + std::to_string(mask)) / "wh";
    mode_t old = ::umask(mask);
    auto store = LocalObjectStore::Open(root.string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_TRUE((*store)->Put("ws/coll/ds/data/a.parquet", "rows").ok());
    WriteOptions absent;
    absent.if_absent = true;
    auto w = (*store)->OpenWrite("ws/coll/ds/data/b.parquet", absent);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->Write("more").ok());
    // The staging file exists now, already 0600.
    int temporaries = 0;
    for (const auto& e : fs::directory_iterator(root / "ws/coll/ds/data")) {
      if (e.path().filename().string().find(".tmp-") == std::string::npos) continue;
      ++temporaries;
      EXPECT_EQ(mode(e.path()), 0600u) << e.path();
    }
    EXPECT_EQ(temporaries, 1);
    ASSERT_TRUE((*w)->Close().ok());
    ::umask(old);
    EXPECT_EQ(mode(root.parent_path()), 0700u) << "umask " << mask;
    EXPECT_EQ(mode(root), 0700u);
    for (const char* dir : {"ws", "ws/coll", "ws/coll/ds", "ws/coll/ds/data"}) {
      EXPECT_EQ(mode(root / dir), 0700u) << dir << " umask " << mask;
    }
    EXPECT_EQ(mode(root / "ws/coll/ds/data/a.parquet"), 0600u);
    EXPECT_EQ(mode(root / "ws/coll/ds/data/b.parquet"), 0600u);
  }
}

TEST_F(LocalStoreTest, KeysCannotEscapeTheRoot) {
  for (const std::string key :
       {"../outside/secret", "a/../../outside/secret", "/etc/passwd", "..", "a/./b", "a//b"}) {
    EXPECT_EQ(store_->Put(key, "pwned").kind(), ErrorKind::kInvalidArgument) << key;
    EXPECT_EQ(store_->Get(key).status().kind(), ErrorKind::kInvalidArgument) << key;
    EXPECT_EQ(store_->Delete(key).kind(), ErrorKind::kInvalidArgument) << key;
  }
  EXPECT_EQ(ReadFile(outside_ / "secret"), "top secret");
  EXPECT_EQ(OutsideFiles(), std::vector<std::string>{"secret"});
}

TEST_F(LocalStoreTest, SymlinkedDirectoriesAreNeverFollowed) {
  fs::create_directory_symlink(outside_, root_ / "link");
  fs::create_directories(root_ / "real");
  fs::create_directory_symlink(outside_, root_ / "real" / "nested-link");
  for (const std::string key : {"link/secret", "real/nested-link/secret"}) {
    EXPECT_EQ(store_->Get(key).status().kind(), ErrorKind::kPermissionDenied) << key;
    EXPECT_EQ(store_->Head(key).status().kind(), ErrorKind::kPermissionDenied) << key;
    EXPECT_EQ(store_->OpenRead(key).status().kind(), ErrorKind::kPermissionDenied) << key;
  }
  for (const std::string key : {"link/new", "link/deeper/new", "real/nested-link/new"}) {
    EXPECT_EQ(store_->Put(key, "pwned").kind(), ErrorKind::kPermissionDenied) << key;
    EXPECT_EQ(store_->OpenWrite(key).status().kind(), ErrorKind::kPermissionDenied) << key;
  }
  EXPECT_TRUE(store_->Delete("link/secret").ok() ||
              store_->Delete("link/secret").kind() == ErrorKind::kPermissionDenied);
  EXPECT_EQ(ReadFile(outside_ / "secret"), "top secret");
  EXPECT_EQ(OutsideFiles(), std::vector<std::string>{"secret"});
  auto all = store_->ListAll("");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty()) << (*all)[0].key;  // symlinks are not objects
}

TEST_F(LocalStoreTest, SymlinkedFilesAreNeverFollowed) {
  fs::create_symlink(outside_ / "secret", root_ / "file-link");
  EXPECT_EQ(store_->Get("file-link").status().kind(), ErrorKind::kPermissionDenied);
  EXPECT_EQ(store_->Head("file-link").status().kind(), ErrorKind::kPermissionDenied);
  EXPECT_EQ(store_->Put("file-link", "overwrite").kind(), ErrorKind::kPermissionDenied);
  EXPECT_EQ(ReadFile(outside_ / "secret"), "top secret");
}

TEST_F(LocalStoreTest, SymlinksToObjectsInsideTheRootAreNotObjects) {
  // Another dataset's object, reached through a link under this one's prefix (issue 14): Head
  // refuses it, so no commit can register it, and no read follows it.
  ASSERT_OK(store_->Put("datasets/b/data/f.parquet", "b's bytes"));
  fs::create_directories(root_ / "datasets" / "a" / "data");
  fs::create_symlink(root_ / "datasets" / "b" / "data" / "f.parquet",
                     root_ / "datasets" / "a" / "data" / "link.parquet");
  fs::create_symlink("../../b/data/f.parquet", root_ / "datasets" / "a" / "data" / "rel.parquet");
  fs::create_directory_symlink(root_ / "datasets" / "b", root_ / "datasets" / "a" / "dir");
  for (const std::string key : {"datasets/a/data/link.parquet", "datasets/a/data/rel.parquet",
                                "datasets/a/dir/data/f.parquet"}) {
    EXPECT_EQ(store_->Head(key).status().kind(), ErrorKind::kPermissionDenied) << key;
    EXPECT_EQ(store_->Get(key).status().kind(), ErrorKind::kPermissionDenied) << key;
    EXPECT_EQ(store_->OpenRead(key).status().kind(), ErrorKind::kPermissionDenied) << key;
  }
  auto listed = store_->ListAll("datasets/a/");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty()) << (*listed)[0].key;
}

TEST_F(LocalStoreTest, RootMayItselfBeASymlink) {
  fs::create_directory_symlink(root_, base_ / "alias");
  auto via_alias = LocalObjectStore::Open((base_ / "alias").string());
  ASSERT_TRUE(via_alias.ok());
  ASSERT_OK((*via_alias)->Put("k", "v"));
  EXPECT_EQ(ReadFile(root_ / "k"), "v");
  EXPECT_EQ((*via_alias)->root(), fs::canonical(root_).string());
  EXPECT_EQ((*via_alias)->uri(), "file://" + fs::canonical(root_).string());
}

TEST_F(LocalStoreTest, FifosAndOtherSpecialFilesAreNotObjects) {
  ASSERT_EQ(::mkfifo((root_ / "fifo").c_str(), 0644), 0);
  EXPECT_EQ(store_->OpenRead("fifo").status().kind(), ErrorKind::kNotFound);  // and no hang
  EXPECT_EQ(store_->Get("fifo").status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(store_->Head("fifo").status().kind(), ErrorKind::kNotFound);
  auto all = store_->ListAll("");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

TEST_F(LocalStoreTest, TemporaryFilesAreHiddenAndReserved) {
  std::ofstream(root_ / "data.parquet.tmp-123456") << "half written";
  std::ofstream(root_ / "data.parquet") << "done";
  std::ofstream(root_ / "report.tmp-final.txt") << "a normal name";
  auto all = store_->ListAll("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].key, "data.parquet");
  EXPECT_EQ((*all)[1].key, "report.tmp-final.txt");
  EXPECT_EQ(store_->Put("x.tmp-1", "v").kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(store_->Get("data.parquet.tmp-123456").status().kind(), ErrorKind::kNotFound);
  // An unclosed writer leaves no temporary behind.
  {
    auto out = store_->OpenWrite("pending");
    ASSERT_TRUE(out.ok());
    ASSERT_OK((*out)->Write("abc"));
  }
  WriteOptions if_absent;
  if_absent.if_absent = true;
  {
    auto out = store_->OpenWrite("pending-cc", if_absent);
    ASSERT_TRUE(out.ok());
    ASSERT_OK((*out)->Write("abc"));
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(root_)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"data.parquet", "data.parquet.tmp-123456",
                                             "report.tmp-final.txt"}));
}

TEST_F(LocalStoreTest, DirectoriesComeAndGo) {
  ASSERT_OK(store_->Put("a/b/c/d", "1"));
  ASSERT_OK(store_->Put("a/x", "2"));
  EXPECT_TRUE(fs::is_directory(root_ / "a" / "b" / "c"));
  ASSERT_OK(store_->Delete("a/b/c/d"));
  EXPECT_FALSE(fs::exists(root_ / "a" / "b"));  // emptied directories are removed
  EXPECT_TRUE(fs::exists(root_ / "a" / "x"));
  ASSERT_OK(store_->Delete("a/x"));
  EXPECT_FALSE(fs::exists(root_ / "a"));
  EXPECT_TRUE(fs::is_directory(root_));  // never the root
  // An object and a "directory" of the same name cannot coexist here.
  ASSERT_OK(store_->Put("obj", "1"));
  EXPECT_EQ(store_->Put("obj/child", "2").kind(), ErrorKind::kFailedPrecondition);
  ASSERT_OK(store_->Put("dir/child", "3"));
  EXPECT_EQ(store_->Put("dir", "4").kind(), ErrorKind::kFailedPrecondition);
  EXPECT_EQ(store_->Get("dir").status().kind(), ErrorKind::kNotFound);
  ASSERT_OK(store_->Delete("dir"));  // not an object: nothing to delete
  EXPECT_TRUE(fs::exists(root_ / "dir" / "child"));
  EXPECT_EQ(store_->Get("obj/child").status().kind(), ErrorKind::kNotFound);
}

TEST_F(LocalStoreTest, PutReplacesAtomicallyAndIsDurableOnDisk) {
  ASSERT_OK(store_->Put("k", "old"));
  auto reader = store_->OpenRead("k");
  ASSERT_TRUE(reader.ok());
  ASSERT_OK(store_->Put("k", "new!"));
  EXPECT_EQ(ReadFile(root_ / "k"), "new!");
  uint8_t buf[3];
  ASSERT_OK((*reader)->ReadAt(0, 3, buf));  // the reader still has the file it opened
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), 3), "old");
  EXPECT_EQ((*reader)->name(), (fs::canonical(root_) / "k").string());
}

TEST_F(LocalStoreTest, ConditionalCreateRacesHaveOneWinner) {
  WriteOptions if_absent;
  if_absent.if_absent = true;
  // Both writers pass the early check; only the first Close wins.
  auto a = store_->OpenWrite("race", if_absent);
  auto b = store_->OpenWrite("race", if_absent);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_OK((*a)->Write("a"));
  ASSERT_OK((*b)->Write("b"));
  ASSERT_OK((*b)->Close());
  EXPECT_EQ((*a)->Close().kind(), ErrorKind::kFailedPrecondition);
  EXPECT_EQ(ReadFile(root_ / "race"), "b");
  auto all = store_->ListAll("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
}

TEST_F(LocalStoreTest, OpensAndCreatesItsRoot) {
  auto nested = LocalObjectStore::Open((base_ / "new" / "deep" / "root").string());
  ASSERT_TRUE(nested.ok()) << nested.status().ToString();
  EXPECT_TRUE(fs::is_directory(base_ / "new" / "deep" / "root"));
  LocalStoreOptions no_create;
  no_create.create_root = false;
  EXPECT_EQ(LocalObjectStore::Open((base_ / "absent").string(), no_create).status().kind(),
            ErrorKind::kNotFound);
  std::ofstream(base_ / "a-file") << "x";
  EXPECT_FALSE(LocalObjectStore::Open((base_ / "a-file").string(), no_create).ok());
  EXPECT_EQ(LocalObjectStore::Open("").status().kind(), ErrorKind::kInvalidArgument);
}

TEST_F(LocalStoreTest, OpenObjectStoreByPathAndFileUri) {
  auto by_path = OpenObjectStore(root_.string());
  ASSERT_TRUE(by_path.ok()) << by_path.status().ToString();
  ASSERT_OK((*by_path)->Put("via-path", "1"));
  fs::create_directories(base_ / "with space");
  auto by_uri = OpenObjectStore("file://" + (base_ / "with%20space").string());
  ASSERT_TRUE(by_uri.ok()) << by_uri.status().ToString();
  ASSERT_OK((*by_uri)->Put("k", "2"));
  EXPECT_EQ(ReadFile(base_ / "with space" / "k"), "2");
  EXPECT_EQ(OpenObjectStore("file://relative/x").status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(OpenObjectStore("ftp://host/x").status().kind(), ErrorKind::kInvalidArgument);
}

TEST_F(LocalStoreTest, InputAndOutputFilesForTheCli) {
  std::string path = (base_ / "cli.bin").string();
  auto out = CreateOutputFile(path);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_OK((*out)->Write("parquet bytes"));
  EXPECT_FALSE(fs::exists(path));  // nothing before Close
  ASSERT_OK((*out)->Close());
  auto in = OpenInputFile(path);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ((*in)->Size(), 13u);
  auto in_uri = OpenInputFile("file://" + path);
  ASSERT_TRUE(in_uri.ok());
  EXPECT_EQ((*in_uri)->Size(), 13u);
  EXPECT_EQ(OpenInputFile((base_ / "missing").string()).status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(OpenInputFile("s3://bucket-only").status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(OpenInputFile("s3://bucket/").status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(OpenInputFile("").status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(CreateOutputFile("http://x/y").status().kind(), ErrorKind::kInvalidArgument);
}

TEST(KeyValidation, AcceptsAndRefuses) {
  for (const char* ok : {"a", "a/b", "a b/c d", "日本/語", "a.b-c_d~e", "x/.hidden", "...",
                         "a/...b", "trailing.", "x\\y"}) {
    EXPECT_TRUE(ValidateKey(ok).ok()) << ok;
  }
  for (const char* prefix : {"", "a/", "a", "a/b/"}) {
    EXPECT_TRUE(ValidatePrefix(prefix).ok()) << prefix;
  }
  for (const char* bad : {"/", "a//", "//a", "../", "a/./"}) {
    EXPECT_FALSE(ValidatePrefix(bad).ok()) << bad;
  }
  // Overlong encodings, surrogates and C1 controls are not valid key text.
  for (const char* bad : {"\xC0\xAF", "\xED\xA0\x80", "\xC2\x85", "\xF4\x90\x80\x80", "a\x7F"}) {
    EXPECT_EQ(ValidateKey(bad).kind(), ErrorKind::kInvalidArgument) << bad;
  }
  EXPECT_TRUE(ValidateKey(std::string(1024, 'k')).ok());
}

}  // namespace
}  // namespace tarn

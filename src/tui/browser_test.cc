#include "tui/browser.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace tarn::tui {
namespace {

namespace fs = std::filesystem;

// Sets $HOME for one test and puts the old value back.
class ScopedHome {
 public:
  explicit ScopedHome(const std::string& home) {
    if (const char* old = std::getenv("HOME")) old_ = old;
    ::setenv("HOME", home.c_str(), 1);
  }
  ~ScopedHome() {
    if (old_) {
      ::setenv("HOME", old_->c_str(), 1);
    } else {
      ::unsetenv("HOME");
    }
  }

 private:
  std::optional<std::string> old_;
};

class BrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "tarn_browser_XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    root_ = fs::path(templ).lexically_normal().string();
    while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(root_, ec);
  }

  std::string P(const std::string& rel) const { return root_ + "/" + rel; }
  void Touch(const std::string& rel, const std::string& content = "") {
    fs::create_directories(fs::path(P(rel)).parent_path());
    std::ofstream(P(rel), std::ios::binary) << content;
  }
  void MkDir(const std::string& rel) { fs::create_directories(P(rel)); }

  static std::vector<std::string> Names(const FileBrowser& b) {
    std::vector<std::string> names;
    for (const BrowserEntry& e : b.entries()) names.push_back(e.name);
    return names;
  }
  static const BrowserEntry* Find(const FileBrowser& b, const std::string& name) {
    for (const BrowserEntry& e : b.entries()) {
      if (e.name == name) return &e;
    }
    return nullptr;
  }
  // Puts the cursor on the row named `name`.
  static void Select(FileBrowser* b, const std::string& name) {
    for (size_t i = 0; i < b->entries().size(); ++i) {
      if (b->entries()[i].name == name) {
        b->MoveTo(static_cast<int>(i));
        return;
      }
    }
    ADD_FAILURE() << "no row " << name;
  }

  std::string root_;
};

TEST_F(BrowserTest, ListsParentThenDirectoriesThenFilesBytewise) {
  MkDir("b_dir");
  MkDir("A_dir");
  Touch("z.csv", "hello");
  Touch("B.parquet");
  Touch("a.json", "{}\n");
  Touch(".hidden.csv");
  MkDir(".hdir");
  FileBrowser b(root_);
  EXPECT_EQ(b.dir(), root_);
  EXPECT_EQ(Names(b),
            (std::vector<std::string>{"..", "A_dir", "b_dir", "B.parquet", "a.json", "z.csv"}));
  const BrowserEntry& up = b.entries()[0];
  EXPECT_TRUE(up.parent);
  EXPECT_TRUE(up.is_dir);
  EXPECT_EQ(up.path, fs::path(root_).parent_path().string());
  const BrowserEntry* dir = Find(b, "A_dir");
  ASSERT_NE(dir, nullptr);
  EXPECT_TRUE(dir->is_dir);
  EXPECT_FALSE(dir->parent);
  EXPECT_EQ(dir->path, P("A_dir"));
  EXPECT_TRUE(dir->readable());
  const BrowserEntry* z = Find(b, "z.csv");
  ASSERT_NE(z, nullptr);
  EXPECT_FALSE(z->is_dir);
  EXPECT_EQ(z->size, 5);
  EXPECT_EQ(z->path, P("z.csv"));
  EXPECT_TRUE(z->readable());
  EXPECT_EQ(Find(b, "a.json")->size, 3);
  EXPECT_EQ(b.cursor(), 0);
  ASSERT_NE(b.current(), nullptr);
  EXPECT_EQ(b.current()->name, "..");
}

TEST_F(BrowserTest, RootHasNoParentRow) {
  FileBrowser b("/");
  EXPECT_EQ(b.dir(), "/");
  ASSERT_FALSE(b.entries().empty());
  for (const BrowserEntry& e : b.entries()) {
    EXPECT_FALSE(e.parent);
    EXPECT_NE(e.name, "..");
    EXPECT_EQ(e.path, "/" + e.name);
  }
  EXPECT_TRUE(b.Up().ok());
  EXPECT_EQ(b.dir(), "/");
}

TEST_F(BrowserTest, PathsAreNormalised) {
  MkDir("sub/deeper");
  FileBrowser b(P("sub/deeper/.././/"));
  EXPECT_EQ(b.dir(), P("sub"));
  ASSERT_TRUE(b.Open("deeper/..").ok());
  EXPECT_EQ(b.dir(), P("sub"));
  ASSERT_TRUE(b.Open("..").ok());
  EXPECT_EQ(b.dir(), root_);
}

TEST_F(BrowserTest, EmptyStartIsTheWorkingDirectory) {
  MkDir("wd");
  const fs::path old = fs::current_path();
  fs::current_path(P("wd"));
  FileBrowser b("");
  fs::current_path(old);
  EXPECT_EQ(b.dir(), fs::path(P("wd")).string());
}

TEST_F(BrowserTest, MissingStartFallsBackToNearestParent) {
  MkDir("here");
  FileBrowser b(P("here/gone/also_gone"));
  EXPECT_EQ(b.dir(), P("here"));
}

TEST_F(BrowserTest, CursorMovesClampedAndStartsOnTopAfterOpenAndUp) {
  MkDir("sub");
  Touch("sub/a.csv");
  Touch("sub/b.csv");
  Touch("x.csv");
  Touch("y.csv");
  FileBrowser b(root_);
  ASSERT_EQ(b.entries().size(), 4u);  // .. sub x.csv y.csv
  b.Move(100);
  EXPECT_EQ(b.cursor(), 3);
  b.Move(-100);
  EXPECT_EQ(b.cursor(), 0);
  b.MoveTo(-1);
  EXPECT_EQ(b.cursor(), 3);
  b.MoveTo(2);
  EXPECT_EQ(b.cursor(), 2);
  b.MoveTo(1);
  EXPECT_EQ(b.current()->name, "sub");
  ASSERT_TRUE(b.Activate().ok());
  EXPECT_EQ(b.dir(), P("sub"));
  EXPECT_EQ(b.cursor(), 0);
  b.MoveTo(-1);
  EXPECT_EQ(b.current()->name, "b.csv");
  ASSERT_TRUE(b.Up().ok());
  EXPECT_EQ(b.dir(), root_);
  EXPECT_EQ(b.cursor(), 0);
  // Activate on ".." goes up too.
  ASSERT_TRUE(b.Open("sub").ok());
  b.MoveTo(0);
  ASSERT_TRUE(b.Activate().ok());
  EXPECT_EQ(b.dir(), root_);
  EXPECT_EQ(b.cursor(), 0);
}

TEST_F(BrowserTest, OpenFailuresKeepTheListing) {
  Touch("a.csv");
  FileBrowser b(root_);
  b.MoveTo(1);
  const std::vector<std::string> before = Names(b);
  Status st = b.Open("nope");
  EXPECT_EQ(st.kind(), ErrorKind::kNotFound);
  EXPECT_NE(st.message().find("nope"), std::string::npos) << st.message();
  st = b.Open("a.csv");
  EXPECT_EQ(st.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(b.dir(), root_);
  EXPECT_EQ(Names(b), before);
  EXPECT_EQ(b.cursor(), 1);
}

TEST_F(BrowserTest, PermissionDeniedDirectory) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every directory";
  MkDir("locked");
  ASSERT_EQ(::chmod(P("locked").c_str(), 0), 0);
  FileBrowser b(root_);
  const BrowserEntry* e = Find(b, "locked");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->unreadable, "permission denied");
  Status st = b.Open("locked");
  EXPECT_EQ(st.kind(), ErrorKind::kPermissionDenied);
  EXPECT_EQ(b.dir(), root_);
  ::chmod(P("locked").c_str(), 0755);
}

TEST_F(BrowserTest, PermissionDeniedFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "access() ignores permission bits for root";
  Touch("secret.csv");
  ASSERT_EQ(::chmod(P("secret.csv").c_str(), 0), 0);
  EXPECT_EQ(UnreadableReason(P("secret.csv")), "permission denied");
  FileBrowser b(root_);
  EXPECT_EQ(Find(b, "secret.csv")->unreadable, "permission denied");
  EXPECT_EQ(b.GoTo("secret.csv").status().kind(), ErrorKind::kFailedPrecondition);
}

TEST_F(BrowserTest, TagsSurviveMovingBetweenDirectories) {
  Touch("one/a.csv");
  Touch("two/b.parquet");
  FileBrowser b(P("one"));
  Select(&b, "a.csv");
  ASSERT_TRUE(b.ToggleTag().ok());
  ASSERT_TRUE(b.Open(P("two")).ok());
  Select(&b, "b.parquet");
  ASSERT_TRUE(b.Activate().ok());  // Enter on a file tags it too
  ASSERT_TRUE(b.Open(P("one")).ok());
  EXPECT_TRUE(b.IsTagged(P("one/a.csv")));
  EXPECT_TRUE(b.IsTagged(P("two/b.parquet")));
  EXPECT_EQ(b.tagged(), (std::vector<std::string>{P("one/a.csv"), P("two/b.parquet")}));
  EXPECT_EQ(b.added(), 2);
}

TEST_F(BrowserTest, TagAllHereTagsOnlyReadableFilesAndCounts) {
  Touch("a.csv");
  Touch("b.ndjson.gz");
  Touch("c.TSV");
  Touch("SHA256SUMS");
  Touch("notes.txt");
  Touch(".hidden.csv");
  MkDir("dir.csv");
  FileBrowser b(root_);
  EXPECT_EQ(b.TagAllHere(), 3);
  EXPECT_EQ(b.tagged(), (std::vector<std::string>{P("a.csv"), P("b.ndjson.gz"), P("c.TSV")}));
  EXPECT_EQ(b.TagAllHere(), 0);  // nothing new
  EXPECT_FALSE(b.IsTagged(P("SHA256SUMS")));
  EXPECT_FALSE(b.IsTagged(P(".hidden.csv")));
  EXPECT_FALSE(b.IsTagged(P("dir.csv")));
  b.ToggleHidden();
  EXPECT_EQ(b.TagAllHere(), 1);
  EXPECT_TRUE(b.IsTagged(P(".hidden.csv")));
  EXPECT_EQ(b.added(), 4);
}

TEST_F(BrowserTest, UnreadableFilesAreListedWithReasons) {
  Touch("SHA256SUMS", std::string(64, 'x'));
  Touch("notes.txt");
  Touch("x.parquet.gz");
  Touch("ok.parquet");
  ASSERT_EQ(::mkfifo(P("pipe.csv").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo(P("pipe").c_str(), 0644), 0);
  FileBrowser b(root_);
  EXPECT_EQ(Names(b), (std::vector<std::string>{"..", "SHA256SUMS", "notes.txt", "ok.parquet",
                                                "pipe", "pipe.csv", "x.parquet.gz"}));
  EXPECT_EQ(Find(b, "SHA256SUMS")->unreadable, "not CSV, NDJSON or Parquet");
  EXPECT_EQ(Find(b, "SHA256SUMS")->size, 64);
  EXPECT_EQ(Find(b, "notes.txt")->unreadable, "not CSV, NDJSON or Parquet");
  EXPECT_EQ(Find(b, "pipe.csv")->unreadable, "not a regular file");
  EXPECT_EQ(Find(b, "pipe")->unreadable, "not a regular file");
  const std::string& gz = Find(b, "x.parquet.gz")->unreadable;
  EXPECT_NE(gz.find("compressed Parquet"), std::string::npos) << gz;
  EXPECT_TRUE(Find(b, "ok.parquet")->readable());

  Select(&b, "SHA256SUMS");
  Status st = b.ToggleTag();
  EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition);
  EXPECT_NE(st.message().find("not CSV, NDJSON or Parquet"), std::string::npos);
  Select(&b, "pipe.csv");
  EXPECT_EQ(b.Activate().kind(), ErrorKind::kFailedPrecondition);
  EXPECT_EQ(b.TagAllHere(), 1);
  EXPECT_EQ(b.tagged(), std::vector<std::string>{P("ok.parquet")});
}

TEST_F(BrowserTest, UnreadableReasonFollowsFormatNames) {
  for (const char* name : {"a.csv", "a.tsv", "a.ndjson", "a.jsonl", "a.json", "a.parquet",
                           "a.CSV.GZ", "a.jsonl.zst", "a.tsv.br", "a.json.deflate"}) {
    Touch(name);
    EXPECT_EQ(UnreadableReason(P(name)), "") << name;
  }
  for (const char* name : {"a.txt", "a.csv.bak", "a.gz", "a.parquet.zst", "README"}) {
    Touch(name);
    EXPECT_NE(UnreadableReason(P(name)), "") << name;
  }
  EXPECT_NE(UnreadableReason(P("a.parquet.zst")).find("compressed Parquet"), std::string::npos);
  EXPECT_EQ(UnreadableReason(P("missing.csv")), "not found");
  MkDir("d.csv");
  EXPECT_EQ(UnreadableReason(P("d.csv")), "not a regular file");
  // A link is judged by what it points to.
  Touch("target.csv");
  fs::create_symlink(P("target.csv"), P("link.csv"));
  EXPECT_EQ(UnreadableReason(P("link.csv")), "");
  fs::create_symlink(P("nowhere.csv"), P("dangling.csv"));
  EXPECT_NE(UnreadableReason(P("dangling.csv")), "");
  FileBrowser b(root_);
  EXPECT_EQ(Find(b, "dangling.csv")->unreadable, "broken symbolic link");
  EXPECT_TRUE(Find(b, "link.csv")->readable());
}

TEST_F(BrowserTest, HiddenFilesToggle) {
  Touch(".secret.csv");
  MkDir(".config");
  Touch("visible.csv");
  FileBrowser b(root_);
  EXPECT_FALSE(b.show_hidden());
  EXPECT_EQ(Names(b), (std::vector<std::string>{"..", "visible.csv"}));
  b.MoveTo(1);
  b.ToggleHidden();
  EXPECT_TRUE(b.show_hidden());
  EXPECT_EQ(b.cursor(), 0);
  EXPECT_EQ(Names(b), (std::vector<std::string>{"..", ".config", ".secret.csv", "visible.csv"}));
  // Hidden stays on when moving into another directory.
  ASSERT_TRUE(b.Open(".config").ok());
  EXPECT_TRUE(b.show_hidden());
  ASSERT_TRUE(b.Up().ok());
  EXPECT_EQ(b.entries().size(), 4u);
  b.ToggleHidden();
  EXPECT_EQ(Names(b), (std::vector<std::string>{"..", "visible.csv"}));
}

TEST_F(BrowserTest, ListedFilesShowTaggedAndAreNotCountedAsAdded) {
  Touch("data/a.csv");
  Touch("data/b.csv");
  Touch("data/c.csv");
  FileBrowser b(P("data"), {P("data/c.csv"), P("data/sub/../a.csv")});
  EXPECT_EQ(b.tagged(), (std::vector<std::string>{P("data/c.csv"), P("data/a.csv")}));
  EXPECT_TRUE(b.IsTagged(P("data/a.csv")));
  EXPECT_EQ(b.added(), 0);
  EXPECT_EQ(b.TagAllHere(), 1);  // only b.csv is new
  EXPECT_EQ(b.added(), 1);
  EXPECT_EQ(b.tagged().back(), P("data/b.csv"));
  // Untagging a listed file takes it off; tagging it again does not count it as added.
  Select(&b, "c.csv");
  ASSERT_TRUE(b.ToggleTag().ok());
  EXPECT_FALSE(b.IsTagged(P("data/c.csv")));
  EXPECT_EQ(b.added(), 1);
  ASSERT_TRUE(b.ToggleTag().ok());
  EXPECT_TRUE(b.IsTagged(P("data/c.csv")));
  EXPECT_EQ(b.added(), 1);
}

TEST_F(BrowserTest, UntagRemoves) {
  Touch("a.csv");
  Touch("b.csv");
  FileBrowser b(root_);
  Select(&b, "a.csv");
  ASSERT_TRUE(b.ToggleTag().ok());
  Select(&b, "b.csv");
  ASSERT_TRUE(b.ToggleTag().ok());
  EXPECT_EQ(b.added(), 2);
  Select(&b, "a.csv");
  ASSERT_TRUE(b.ToggleTag().ok());
  EXPECT_FALSE(b.IsTagged(P("a.csv")));
  EXPECT_EQ(b.tagged(), std::vector<std::string>{P("b.csv")});
  EXPECT_EQ(b.added(), 1);
}

TEST_F(BrowserTest, ToggleTagRefusesDirectories) {
  MkDir("sub");
  FileBrowser b(root_);
  EXPECT_EQ(b.ToggleTag().kind(), ErrorKind::kFailedPrecondition);  // ".."
  Select(&b, "sub");
  EXPECT_EQ(b.ToggleTag().kind(), ErrorKind::kFailedPrecondition);
  EXPECT_TRUE(b.tagged().empty());
}

TEST_F(BrowserTest, RefreshSeesChangesAndKeepsTheCursorClamped) {
  Touch("a.csv");
  Touch("b.csv");
  Touch("c.csv");
  FileBrowser b(root_);
  b.MoveTo(2);
  Touch("d.csv");
  ASSERT_TRUE(b.Refresh().ok());
  EXPECT_EQ(b.entries().size(), 5u);
  EXPECT_EQ(b.cursor(), 2);
  b.MoveTo(-1);
  fs::remove(P("c.csv"));
  fs::remove(P("d.csv"));
  ASSERT_TRUE(b.Refresh().ok());
  EXPECT_EQ(Names(b), (std::vector<std::string>{"..", "a.csv", "b.csv"}));
  EXPECT_EQ(b.cursor(), 2);
}

TEST_F(BrowserTest, GoToFolderFileAndRelativePath) {
  Touch("sub/x.csv");
  Touch("sub/deep/y.parquet");
  Touch("top.csv");
  FileBrowser b(root_);
  auto r = b.GoTo(P("sub"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(b.dir(), P("sub"));
  EXPECT_EQ(b.cursor(), 0);
  EXPECT_NE(r->find("opened"), std::string::npos);

  r = b.GoTo("x.csv");  // relative to dir()
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "tagged x.csv");
  EXPECT_TRUE(b.IsTagged(P("sub/x.csv")));
  r = b.GoTo("x.csv");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "x.csv is already tagged");
  EXPECT_EQ(b.tagged().size(), 1u);

  r = b.GoTo("  deep  \n");  // a relative folder, pasted with blanks around it
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(b.dir(), P("sub/deep"));
  r = b.GoTo("../../top.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(b.IsTagged(P("top.csv")));
  EXPECT_EQ(b.dir(), P("sub/deep"));  // tagging a file does not move

  Status st = b.GoTo("nothing_here").status();
  EXPECT_EQ(st.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(b.GoTo("  ").status().kind(), ErrorKind::kInvalidArgument);
}

TEST_F(BrowserTest, GoToHomeRelative) {
  Touch("sub/x.csv");
  Touch("top.csv");
  ScopedHome home(root_);
  FileBrowser b("/");
  auto r = b.GoTo("~/sub");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "opened ~/sub");
  EXPECT_EQ(b.dir(), P("sub"));
  r = b.GoTo("~");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "opened ~");
  EXPECT_EQ(b.dir(), root_);
  // A file is shown from dir() when inside it, else with ~.
  r = b.GoTo("~/sub/x.csv");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "tagged sub/x.csv");
  EXPECT_TRUE(b.IsTagged(P("sub/x.csv")));
  ASSERT_TRUE(b.Open("sub").ok());
  r = b.GoTo("~/top.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "tagged ~/top.csv");
  Status st = b.GoTo("~/gone").status();
  EXPECT_EQ(st.kind(), ErrorKind::kNotFound);
  EXPECT_NE(st.message().find("~/gone"), std::string::npos) << st.message();
}

TEST_F(BrowserTest, GoToUnreadableFileIsRefused) {
  Touch("SHA256SUMS");
  ASSERT_EQ(::mkfifo(P("pipe.csv").c_str(), 0644), 0);
  FileBrowser b(root_);
  Status st = b.GoTo("SHA256SUMS").status();
  EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition);
  EXPECT_NE(st.message().find("not CSV, NDJSON or Parquet"), std::string::npos);
  EXPECT_EQ(b.GoTo("pipe.csv").status().kind(), ErrorKind::kFailedPrecondition);
  EXPECT_TRUE(b.tagged().empty());
}

TEST_F(BrowserTest, GoToRecursiveGlobAcrossNestedDirectories) {
  Touch("base.parquet");
  Touch("a/one.parquet");
  Touch("a/b/two.parquet");
  Touch("a/b/c/three.PARQUET");  // the glob is case-sensitive, like a shell
  Touch("a/b/skip.csv");
  Touch("a/b/bad.parquet.gz");
  Touch(".hid/four.parquet");
  Touch("a/.five.parquet");
  FileBrowser b(root_);
  auto r = b.GoTo("**/*.parquet");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "tagged 3 files");
  // Sorted by path before tagging.
  EXPECT_EQ(b.tagged(), (std::vector<std::string>{P("a/b/two.parquet"), P("a/one.parquet"),
                                                  P("base.parquet")}));
  EXPECT_EQ(b.dir(), root_);

  r = b.GoTo("**/*.parquet*");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "tagged 0 files (3 already tagged, 1 unreadable skipped)");

  // Hidden names only when the pattern spells the dot.
  r = b.GoTo(".hid/*.parquet");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "tagged 1 file");
  r = b.GoTo("a/.*");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(b.IsTagged(P("a/.five.parquet")));
  EXPECT_FALSE(b.IsTagged(P("a/b/c/three.PARQUET")));
}

TEST_F(BrowserTest, GoToGlobInTheMiddleAndAbsolute) {
  Touch("2026/01/x.csv");
  Touch("2026/02/x.csv");
  Touch("2026/02/y.csv");
  Touch("2025/01/x.csv");
  FileBrowser b("/");
  auto r = b.GoTo(P("202[6]/*/x.csv"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "tagged 2 files");
  EXPECT_EQ(b.tagged(), (std::vector<std::string>{P("2026/01/x.csv"), P("2026/02/x.csv")}));
  r = b.GoTo(P("**/0?/y.csv"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(b.tagged().back(), P("2026/02/y.csv"));
}

TEST_F(BrowserTest, GoToGlobHere) {
  Touch("a.csv");
  Touch("b.csv");
  Touch("c.parquet");
  Touch("sub/d.csv");
  Touch("notes.csv.txt");
  FileBrowser b(root_);
  auto r = b.GoTo("*.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "tagged 2 files");
  EXPECT_EQ(b.tagged(), (std::vector<std::string>{P("a.csv"), P("b.csv")}));
  r = b.GoTo("*");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "tagged 1 file (2 already tagged, 1 unreadable skipped)");
}

TEST_F(BrowserTest, GoToGlobMatchingNothingOrNothingReadable) {
  Touch("a.txt");
  Touch("b.txt");
  FileBrowser b(root_);
  Status st = b.GoTo("*.parquet").status();
  EXPECT_EQ(st.kind(), ErrorKind::kNotFound);
  EXPECT_NE(st.message().find("*.parquet"), std::string::npos);
  EXPECT_EQ(b.GoTo("missing/**/*.csv").status().kind(), ErrorKind::kNotFound);
  st = b.GoTo("*.txt").status();
  EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition);
  EXPECT_NE(st.message().find("2 files"), std::string::npos) << st.message();
  EXPECT_TRUE(b.tagged().empty());
}

TEST_F(BrowserTest, GoToRecursiveGlobDoesNotFollowSymlinkedDirectories) {
  Touch("real/a.csv");
  fs::create_directory_symlink(root_, P("real/loop"));
  fs::create_directory_symlink(P("real"), P("alias"));
  Touch("target.csv");
  fs::create_symlink(P("target.csv"), P("real/link.csv"));
  FileBrowser b(root_);
  auto r = b.GoTo("**/*.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(b.tagged(),
            (std::vector<std::string>{P("real/a.csv"), P("real/link.csv"), P("target.csv")}));
  // Named explicitly, a symlinked directory is walked.
  r = b.GoTo("alias/*.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(b.IsTagged(P("alias/a.csv")));
}

TEST_F(BrowserTest, GoToGlobSkipsUnreadableDirectoriesQuietly) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every directory";
  Touch("open/a.csv");
  Touch("locked/b.csv");
  ASSERT_EQ(::chmod(P("locked").c_str(), 0), 0);
  FileBrowser b(root_);
  auto r = b.GoTo("**/*.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "tagged 1 file");
  ::chmod(P("locked").c_str(), 0755);
}

TEST_F(BrowserTest, GoToGlobStopsAfterTheVisitCap) {
  MkDir("many");
  for (int i = 0; i < 110; ++i) {
    const std::string path = P("many/f" + std::to_string(i) + ".csv");
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  FileBrowser b(root_, {}, FileBrowserOptions{.max_glob_visits = 100});
  auto r = b.GoTo("many/*.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(b.tagged().size(), 100u);
  EXPECT_NE(r->find("stopped after looking at 100 entries"), std::string::npos) << *r;
  EXPECT_EQ(FileBrowserOptions().max_glob_visits, 100000);  // the default cap
}

struct GlobCase {
  const char* pattern;
  const char* path;
  bool match;
};

TEST(GlobMatchTest, Table) {
  const GlobCase cases[] = {
      {"*.csv", "a.csv", true},
      {"*.csv", "a.csv.gz", false},
      {"*.csv", "dir/a.csv", false},  // * stays within a component
      {"*", "", false},
      {"*", "x", true},
      {"a*b*c", "aXbYc", true},
      {"a*b*c", "abcabc", true},
      {"a*b*c", "abca", false},
      {"?.csv", "a.csv", true},
      {"?.csv", "ab.csv", false},
      {"?.csv", "é.csv", true},  // one code point, two bytes
      {"??.csv", "é.csv", false},
      {"[a-c].csv", "b.csv", true},
      {"[a-c].csv", "d.csv", false},
      {"[!x].csv", "y.csv", true},
      {"[!x].csv", "x.csv", false},
      {"[^x].csv", "x.csv", false},
      {"[]]", "]", true},
      {"[!]]", "]", false},
      {"[a-]", "-", true},
      {"[ab", "[ab", true},  // unclosed: literal
      {"**/*.parquet", "a.parquet", true},
      {"**/*.parquet", "x/y/z/a.parquet", true},
      {"data/**/*.parquet", "data/a.parquet", true},
      {"data/**/*.parquet", "data/2026/01/a.parquet", true},
      {"data/**/*.parquet", "other/2026/a.parquet", false},
      {"a/**/b/**/c", "a/b/c", true},
      {"a/**/b/**/c", "a/x/b/y/z/c", true},
      {"a/**/b/**/c", "a/x/y/c", false},
      {"a/**", "a", true},
      {"a/**", "a/b/c", true},
      {"a/**", "b/c", false},
      {"**", "anything/at/all", true},
      // Dots: a leading '.' only literally, and never through * ? [ ] or **.
      {"*", ".hidden", false},
      {"?hidden", ".hidden", false},
      {"[.]hidden", ".hidden", false},
      {".*", ".hidden", true},
      {".hidden", ".hidden", true},
      {"*.csv", "a.b.csv", true},
      {"**/*.csv", ".git/a.csv", false},
      {"**/*.csv", "x/.git/a.csv", false},
      {".git/*.csv", ".git/a.csv", true},
      {"**/.git/*.csv", "x/.git/a.csv", true},
      {"a/**", "a/.b", false},
      {"a/**", "a/b/.c/d", false},
  };
  for (const GlobCase& c : cases) {
    EXPECT_EQ(GlobMatch(c.pattern, c.path), c.match) << c.pattern << " vs " << c.path;
  }
}

}  // namespace
}  // namespace tarn::tui

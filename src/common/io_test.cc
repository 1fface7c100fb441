#include "common/io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tarn {
namespace {

namespace fs = std::filesystem;

fs::path TempDir() {
  fs::path p = fs::temp_directory_path() / ("tarn_io_test_" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p;
}

// Issue 14 defect 5: catalog files were created 0644 less the umask (world-readable).
TEST(LocalFile, OwnerOnlyFilesAndDirectoriesWhateverTheUmask) {
  for (mode_t mask : {mode_t{000}, mode_t{022}}) {
    fs::path dir = TempDir() / ("modes-" + std::to_string(mask));
    fs::remove_all(dir);
    mode_t old = ::umask(mask);
    Status made = CreateLocalDirectories((dir / "a" / "b").string(), FileAccess::kOwnerOnly);
    auto out = CreateLocalFile((dir / "a" / "b" / "f").string(), FileAccess::kOwnerOnly);
    auto plain = CreateLocalFile((dir / "plain").string());
    ::umask(old);
    ASSERT_TRUE(made.ok()) << made.ToString();
    ASSERT_TRUE(out.ok() && plain.ok());
    // The temporary already has its final mode, before Close.
    for (const auto& e : fs::directory_iterator(dir / "a" / "b")) {
      struct stat st;
      ASSERT_EQ(::stat(e.path().c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 0777, 0600u) << e.path();
    }
    ASSERT_TRUE((*out)->Write("secret").ok());
    ASSERT_TRUE((*out)->Close().ok());
    ASSERT_TRUE((*plain)->Close().ok());
    auto mode = [](const fs::path& p) {
      struct stat st;
      EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
      return st.st_mode & 0777;
    };
    EXPECT_EQ(mode(dir), 0700u) << "umask " << mask;
    EXPECT_EQ(mode(dir / "a"), 0700u);
    EXPECT_EQ(mode(dir / "a" / "b"), 0700u);
    EXPECT_EQ(mode(dir / "a" / "b" / "f"), 0600u);
    EXPECT_EQ(mode(dir / "plain"), 0644u & ~mask);  // the default keeps following the umask
    // Existing directories keep their mode; a file in the way is an error.
    fs::permissions(dir / "a", fs::perms(0755));
    EXPECT_TRUE(CreateLocalDirectories((dir / "a" / "c").string(), FileAccess::kOwnerOnly).ok());
    EXPECT_EQ(mode(dir / "a"), 0755u);
    EXPECT_EQ(mode(dir / "a" / "c"), 0700u);
    EXPECT_FALSE(
        CreateLocalDirectories((dir / "plain" / "x").string(), FileAccess::kOwnerOnly).ok());
    fs::remove_all(dir);
  }
}

TEST(LocalFile, WriteIsAtomicAndReadable) {
  fs::path dir = TempDir();
  std::string path = (dir / "a.bin").string();
  auto out = CreateLocalFile(path);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::string big(3 << 20, 'x');
  ASSERT_TRUE((*out)->Write("hello").ok());
  ASSERT_TRUE((*out)->Write(big).ok());
  EXPECT_EQ((*out)->Tell(), 5 + big.size());
  EXPECT_FALSE(fs::exists(path)) << "visible before Close";
  ASSERT_TRUE((*out)->Close().ok());
  ASSERT_TRUE(fs::exists(path));

  auto in = OpenLocalFile(path);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ((*in)->Size(), 5 + big.size());
  uint8_t buf[5];
  ASSERT_TRUE((*in)->ReadAt(0, 5, buf).ok());
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), 5), "hello");
  EXPECT_EQ((*in)->ReadAt((*in)->Size() - 2, 5, buf).kind(), ErrorKind::kCorruption);
  EXPECT_EQ((*in)->ReadAt(~uint64_t{0}, 1, buf).kind(), ErrorKind::kCorruption);
  fs::remove_all(dir);
}

TEST(LocalFile, AbandonedWriteLeavesNothing) {
  fs::path dir = TempDir() / "abandon";
  fs::create_directories(dir);
  {
    auto out = CreateLocalFile((dir / "b.bin").string());
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE((*out)->Write("partial").ok());
  }
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(LocalFile, MissingIsNotFound) {
  EXPECT_EQ(OpenLocalFile("/nonexistent/tarn/x").status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(OpenLocalFile("/").status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(CreateLocalFile("/nonexistent/tarn/x").status().kind(), ErrorKind::kNotFound);
}

TEST(MemoryFile, Reads) {
  auto f = MemoryFile("abcdef");
  uint8_t buf[3];
  ASSERT_TRUE(f->ReadAt(3, 3, buf).ok());
  EXPECT_EQ(buf[0], 'd');
  EXPECT_FALSE(f->ReadAt(4, 3, buf).ok());
}

}  // namespace
}  // namespace tarn

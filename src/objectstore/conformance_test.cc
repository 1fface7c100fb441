// The conformance suite every ObjectStore runs: local, memory, and S3 against a real Ceph RGW
// (the "s3" instances skip unless tests/run_with_rgw.sh started one; then they must pass).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "objectstore/local/local_store.h"
#include "objectstore/memory/memory_store.h"
#include "objectstore/object_store.h"
#include "objectstore/s3/s3_store.h"
#include "objectstore/s3/test_env.h"
#include "objectstore/test_util.h"

namespace tarn {
namespace {

using testutil::Pattern;

constexpr uint64_t kPart = 5ULL << 20;  // S3's minimum part size, so multipart tests stay small

// Writes `data` through OpenWrite in chunks of an awkward size.
Status WriteInChunks(ObjectStore& store, std::string_view key, std::string_view data,
                     WriteOptions options = {}, size_t chunk = 65537) {
  options.part_size = kPart;
  TARN_ASSIGN_OR_RETURN(auto out, store.OpenWrite(key, options));
  for (size_t pos = 0; pos < data.size(); pos += chunk) {
    TARN_RETURN_NOT_OK(out->Write(data.substr(pos, chunk)));
  }
  if (out->Tell() != data.size()) return Status::Internal("Tell() disagrees");
  return out->Close();
}

std::string ReadRange(const RandomAccessFile& f, uint64_t offset, size_t n, Status* st) {
  std::string out(n, '\0');
  *st = f.ReadAt(offset, n, reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

class Conformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string& kind = GetParam();
    if (kind == "memory") {
      store_ = std::make_shared<MemoryObjectStore>("conformance", 2);
    } else if (kind == "local") {
      // The test's name is "Case/local": one directory, not two.
      std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
      for (char& c : name) {
        if (c == '/') c = '-';
      }
      dir_ = std::filesystem::temp_directory_path() /
             ("tarn-conformance-" + std::to_string(::getpid()) + "-" + name);
      std::filesystem::remove_all(dir_);
      LocalStoreOptions options;
      options.list_page_size = 2;
      auto local = LocalObjectStore::Open(dir_.string(), options);
      ASSERT_TRUE(local.ok()) << local.status().ToString();
      store_ = *local;
    } else {
      if (!s3test::Enabled()) GTEST_SKIP() << s3test::kSkipMessage;
      auto options =
          s3test::Options(::testing::UnitTest::GetInstance()->current_test_info()->name());
      ASSERT_TRUE(options.ok()) << options.status().ToString();
      options->list_page_size = 2;
      options->part_size = kPart;
      options->retry_base_delay_ms = 20;
      auto s3 = S3ObjectStore::Make(*options);
      ASSERT_TRUE(s3.ok()) << s3.status().ToString();
      store_ = *s3;
    }
  }

  void TearDown() override {
    if (store_ && GetParam() == "s3") {
      auto all = store_->ListAll("");
      if (all.ok()) {
        std::vector<std::string> keys;
        for (const auto& o : *all) keys.push_back(o.key);
        EXPECT_TRUE(store_->DeleteMany(keys).ok());
      }
    }
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  ObjectStore& store() { return *store_; }

  std::shared_ptr<ObjectStore> store_;
  std::filesystem::path dir_;
};

TEST_P(Conformance, EmptyObject) {
  ASSERT_OK(store().Put("empty", ""));
  ASSERT_OK_AND_ASSIGN(ObjectInfo info, store().Head("empty"));
  EXPECT_EQ(info.size, 0u);
  EXPECT_EQ(info.key, "empty");
  ASSERT_OK_AND_ASSIGN(std::string bytes, store().Get("empty"));
  EXPECT_EQ(bytes, "");
  ASSERT_OK_AND_ASSIGN(auto file, store().OpenRead("empty"));
  EXPECT_EQ(file->Size(), 0u);
  EXPECT_TRUE(file->ReadAt(0, 0, nullptr).ok());
  uint8_t b;
  EXPECT_EQ(file->ReadAt(0, 1, &b).kind(), ErrorKind::kCorruption);
  // Also through the streaming writer.
  ASSERT_OK(WriteInChunks(store(), "empty2", ""));
  ASSERT_OK_AND_ASSIGN(ObjectInfo info2, store().Head("empty2"));
  EXPECT_EQ(info2.size, 0u);
}

TEST_P(Conformance, OneByteObject) {
  ASSERT_OK(WriteInChunks(store(), "one", "x"));
  ASSERT_OK_AND_ASSIGN(std::string bytes, store().Get("one"));
  EXPECT_EQ(bytes, "x");
  ASSERT_OK_AND_ASSIGN(ObjectInfo info, store().Head("one"));
  EXPECT_EQ(info.size, 1u);
  ASSERT_OK_AND_ASSIGN(auto file, store().OpenRead("one"));
  Status st;
  EXPECT_EQ(ReadRange(*file, 0, 1, &st), "x");
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST_P(Conformance, ExactlyOnePart) {
  std::string data = Pattern(kPart, 2);
  ASSERT_OK(WriteInChunks(store(), "one-part.bin", data));
  ASSERT_OK_AND_ASSIGN(std::string bytes, store().Get("one-part.bin"));
  EXPECT_TRUE(bytes == data);
  ASSERT_OK_AND_ASSIGN(ObjectInfo info, store().Head("one-part.bin"));
  EXPECT_EQ(info.size, kPart);
}

TEST_P(Conformance, ManyParts) {
  std::string data = Pattern(3 * kPart + 12345, 3);
  ASSERT_OK(WriteInChunks(store(), "dir/many-parts.bin", data, {}, 1 << 20));
  ASSERT_OK_AND_ASSIGN(ObjectInfo info, store().Head("dir/many-parts.bin"));
  EXPECT_EQ(info.size, data.size());
  ASSERT_OK_AND_ASSIGN(auto file, store().OpenRead("dir/many-parts.bin"));
  ASSERT_EQ(file->Size(), data.size());
  // Ranges across part boundaries.
  for (uint64_t boundary : {kPart, 2 * kPart, 3 * kPart}) {
    Status st;
    std::string got = ReadRange(*file, boundary - 7, 14, &st);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(got, data.substr(boundary - 7, 14)) << "at " << boundary;
  }
  ASSERT_OK_AND_ASSIGN(std::string bytes, store().Get("dir/many-parts.bin"));
  EXPECT_TRUE(bytes == data);
}

TEST_P(Conformance, RangedReadsAtEdges) {
  std::string data = Pattern(1000, 4);
  ASSERT_OK(store().Put("r", data));
  ASSERT_OK_AND_ASSIGN(auto file, store().OpenRead("r"));
  EXPECT_EQ(file->Size(), 1000u);
  EXPECT_NE(file->name().find("r"), std::string::npos);
  struct Case {
    uint64_t offset;
    size_t n;
  };
  for (Case c :
       {Case{0, 1}, Case{999, 1}, Case{0, 1000}, Case{1, 998}, Case{500, 0}, Case{1000, 0}}) {
    Status st;
    std::string got = ReadRange(*file, c.offset, c.n, &st);
    ASSERT_TRUE(st.ok()) << c.offset << "+" << c.n << ": " << st.ToString();
    EXPECT_EQ(got, data.substr(c.offset, c.n)) << c.offset << "+" << c.n;
  }
  for (Case c : {Case{999, 2}, Case{1000, 1}, Case{1001, 0}, Case{0, 1001}, Case{UINT64_MAX, 1}}) {
    Status st;
    ReadRange(*file, c.offset, c.n, &st);
    EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << c.offset << "+" << c.n;
  }
}

TEST_P(Conformance, KeysWithSpacesAndUnicode) {
  const std::vector<std::string> keys = {
      "dir with spaces/file name.txt",
      "ünïcødé/日本語/файл.parquet",
      "emoji 🎉 party",
      "punct/plus+and%percent#hash?q=1&x=y;semi,comma'quote\"dq",
      "tilde~under_score-dash.dot/(parens)[brackets]{braces}@at!bang$dollar*star",
  };
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_OK(store().Put(keys[i], "value " + std::to_string(i)));
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(std::string bytes, store().Get(keys[i]));
    EXPECT_EQ(bytes, "value " + std::to_string(i)) << keys[i];
    ASSERT_OK_AND_ASSIGN(ObjectInfo info, store().Head(keys[i]));
    EXPECT_EQ(info.key, keys[i]);
  }
  ASSERT_OK_AND_ASSIGN(auto all, store().ListAll(""));
  std::vector<std::string> listed;
  for (const auto& o : all) listed.push_back(o.key);
  std::vector<std::string> expected = keys;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(listed, expected);
  ASSERT_OK_AND_ASSIGN(auto uni, store().ListAll("ünïcødé/日本"));
  ASSERT_EQ(uni.size(), 1u);
  EXPECT_EQ(uni[0].key, keys[1]);
  for (const auto& key : keys) ASSERT_OK(store().Delete(key));
  ASSERT_OK_AND_ASSIGN(auto none, store().ListAll(""));
  EXPECT_TRUE(none.empty());
}

TEST_P(Conformance, ListingBeyondOnePage) {
  // Byte order across "directories": '-' (0x2D) sorts before '/' (0x2F).
  const std::vector<std::string> under = {
      "list/a", "list/b", "list/sub-y", "list/sub/x", "list/sub/z", "list/z/deep/er", "list/zz"};
  for (const auto& k : under) ASSERT_OK(store().Put(k, k));
  ASSERT_OK(store().Put("lis", "not under list/"));
  ASSERT_OK(store().Put("other/x", "nope"));

  std::vector<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    ASSERT_OK_AND_ASSIGN(ListPage page, store().List("list/", token, 3));
    EXPECT_LE(page.objects.size(), 3u);
    for (const auto& o : page.objects) {
      seen.push_back(o.key);
      EXPECT_EQ(o.size, o.key.size());
      EXPECT_FALSE(o.etag.empty());
    }
    token = page.next_token;
    ASSERT_LT(++pages, 10);
  } while (!token.empty());
  EXPECT_EQ(seen, under);
  EXPECT_GE(pages, 3);

  // The store's default page size (2 here) through ListAll.
  ASSERT_OK_AND_ASSIGN(auto all, store().ListAll("list/"));
  ASSERT_EQ(all.size(), under.size());
  for (size_t i = 0; i < under.size(); ++i) EXPECT_EQ(all[i].key, under[i]);

  // A prefix that is not a whole segment.
  ASSERT_OK_AND_ASSIGN(auto sub, store().ListAll("list/sub"));
  std::vector<std::string> sub_keys;
  for (const auto& o : sub) sub_keys.push_back(o.key);
  EXPECT_EQ(sub_keys, (std::vector<std::string>{"list/sub-y", "list/sub/x", "list/sub/z"}));
  ASSERT_OK_AND_ASSIGN(auto lis, store().ListAll("lis"));
  EXPECT_EQ(lis.size(), under.size() + 1);
  ASSERT_OK_AND_ASSIGN(auto everything, store().ListAll(""));
  EXPECT_EQ(everything.size(), under.size() + 2);
  ASSERT_OK_AND_ASSIGN(auto nothing, store().ListAll("nothing-here/"));
  EXPECT_TRUE(nothing.empty());
  ASSERT_OK_AND_ASSIGN(ListPage empty_page, store().List("nothing-here/", "", 3));
  EXPECT_TRUE(empty_page.objects.empty());
  EXPECT_TRUE(empty_page.next_token.empty());
}

TEST_P(Conformance, HeadReportsSizeEtagAndTime) {
  auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  ASSERT_OK(store().Put("h", "first"));
  ASSERT_OK_AND_ASSIGN(ObjectInfo a, store().Head("h"));
  EXPECT_EQ(a.size, 5u);
  EXPECT_FALSE(a.etag.empty());
  EXPECT_NEAR(static_cast<double>(a.mtime_ms), static_cast<double>(now_ms), 10 * 60 * 1000.0);
  ASSERT_OK(store().Put("h", "second!"));
  ASSERT_OK_AND_ASSIGN(ObjectInfo b, store().Head("h"));
  EXPECT_EQ(b.size, 7u);
  EXPECT_NE(a.etag, b.etag);
  ASSERT_OK_AND_ASSIGN(std::string bytes, store().Get("h"));
  EXPECT_EQ(bytes, "second!");
  ASSERT_OK_AND_ASSIGN(auto listed, store().ListAll("h"));
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].size, 7u);
  EXPECT_EQ(listed[0].etag, b.etag);
}

TEST_P(Conformance, ConditionalCreate) {
  WriteOptions if_absent;
  if_absent.if_absent = true;
  ASSERT_OK(store().Put("cc", "one", if_absent));
  Status again = store().Put("cc", "two", if_absent);
  EXPECT_EQ(again.kind(), ErrorKind::kFailedPrecondition) << again.ToString();
  ASSERT_OK_AND_ASSIGN(std::string bytes, store().Get("cc"));
  EXPECT_EQ(bytes, "one");

  // Streaming: the refusal may come at OpenWrite or at Close; nothing changes either way.
  Status streamed = WriteInChunks(store(), "cc", "three", if_absent);
  EXPECT_EQ(streamed.kind(), ErrorKind::kFailedPrecondition) << streamed.ToString();
  std::string big = Pattern(kPart + 10, 5);
  Status streamed_big = WriteInChunks(store(), "cc", big, if_absent, 1 << 20);
  EXPECT_EQ(streamed_big.kind(), ErrorKind::kFailedPrecondition) << streamed_big.ToString();
  ASSERT_OK_AND_ASSIGN(std::string still, store().Get("cc"));
  EXPECT_EQ(still, "one");

  // A new key, multipart-sized, conditionally.
  ASSERT_OK(WriteInChunks(store(), "cc-big", big, if_absent, 1 << 20));
  ASSERT_OK_AND_ASSIGN(std::string got, store().Get("cc-big"));
  EXPECT_TRUE(got == big);
  // An unconditional put still overwrites.
  ASSERT_OK(store().Put("cc", "four"));
  ASSERT_OK_AND_ASSIGN(std::string four, store().Get("cc"));
  EXPECT_EQ(four, "four");
}

TEST_P(Conformance, DeleteAndNotFound) {
  EXPECT_EQ(store().Head("missing").status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(store().Get("missing").status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(store().OpenRead("missing").status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(store().Head("no/such/dir/key").status().kind(), ErrorKind::kNotFound);
  ASSERT_OK(store().Delete("missing"));  // idempotent
  ASSERT_OK(store().Put("d/x", "1"));
  ASSERT_OK(store().Delete("d/x"));
  EXPECT_EQ(store().Head("d/x").status().kind(), ErrorKind::kNotFound);
  ASSERT_OK(store().Delete("d/x"));
  ASSERT_OK_AND_ASSIGN(auto left, store().ListAll(""));
  EXPECT_TRUE(left.empty());
}

TEST_P(Conformance, BatchDelete) {
  std::vector<std::string> keys;
  for (int i = 0; i < 25; ++i) {
    keys.push_back("batch/" + std::to_string(i % 3) + "/k" + std::to_string(i));
    ASSERT_OK(store().Put(keys.back(), std::to_string(i)));
  }
  ASSERT_OK(store().Put("keep", "k"));
  keys.push_back("batch/never-existed");
  ASSERT_OK(store().DeleteMany(keys));
  ASSERT_OK_AND_ASSIGN(auto left, store().ListAll(""));
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].key, "keep");
  ASSERT_OK(store().DeleteMany({}));
  EXPECT_EQ(store().DeleteMany({"ok", "../bad"}).kind(), ErrorKind::kInvalidArgument);
}

TEST_P(Conformance, UnclosedWriterLeavesNothing) {
  {
    WriteOptions options;
    options.part_size = kPart;
    ASSERT_OK_AND_ASSIGN(auto out, store().OpenWrite("abandoned/big", options));
    std::string chunk = Pattern(1 << 20, 6);
    for (int i = 0; i < 12; ++i) ASSERT_OK(out->Write(chunk));  // two parts sent, one buffered
    ASSERT_OK_AND_ASSIGN(auto small_out, store().OpenWrite("abandoned/small"));
    ASSERT_OK(small_out->Write("tiny"));
  }
  EXPECT_EQ(store().Head("abandoned/big").status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(store().Head("abandoned/small").status().kind(), ErrorKind::kNotFound);
  ASSERT_OK_AND_ASSIGN(auto left, store().ListAll(""));
  EXPECT_TRUE(left.empty());
  if (auto* s3 = dynamic_cast<S3ObjectStore*>(store_.get())) {
    ASSERT_OK_AND_ASSIGN(auto pending, s3->ListPendingUploads());
    EXPECT_TRUE(pending.empty()) << pending.size() << " multipart uploads were not aborted";
  }
}

TEST_P(Conformance, OverwriteIsAtomicAndReadersAreConsistent) {
  std::string v1 = Pattern(4096, 7), v2 = Pattern(4096, 8);
  ASSERT_OK(store().Put("atomic", v1));
  ASSERT_OK_AND_ASSIGN(auto reader, store().OpenRead("atomic"));
  ASSERT_OK(store().Put("atomic", v2));
  Status st;
  std::string got = ReadRange(*reader, 0, 4096, &st);
  // Either the bytes it opened, or a clear refusal: never a mix, never the new bytes.
  if (st.ok()) {
    EXPECT_TRUE(got == v1);
  } else {
    EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition) << st.ToString();
  }
  ASSERT_OK_AND_ASSIGN(std::string now, store().Get("atomic"));
  EXPECT_TRUE(now == v2);
}

TEST_P(Conformance, InvalidKeysAreRefused) {
  const std::vector<std::string> bad = {"",
                                        "/abs",
                                        "a/../b",
                                        "..",
                                        "a/..",
                                        "./a",
                                        "a//b",
                                        "a/",
                                        "ctl\x01x",
                                        "bad\xff utf8",
                                        std::string(1025, 'k'),
                                        std::string("nul\0x", 5)};
  for (const auto& key : bad) {
    EXPECT_EQ(store().Put(key, "x").kind(), ErrorKind::kInvalidArgument) << key;
    EXPECT_EQ(store().Get(key).status().kind(), ErrorKind::kInvalidArgument) << key;
    EXPECT_EQ(store().Head(key).status().kind(), ErrorKind::kInvalidArgument) << key;
    EXPECT_EQ(store().Delete(key).kind(), ErrorKind::kInvalidArgument) << key;
    EXPECT_EQ(store().OpenWrite(key).status().kind(), ErrorKind::kInvalidArgument) << key;
  }
  EXPECT_EQ(store().List("../", "", 0).status().kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto left, store().ListAll(""));
  EXPECT_TRUE(left.empty());
}

TEST_P(Conformance, WriterRefusesUseAfterClose) {
  ASSERT_OK_AND_ASSIGN(auto out, store().OpenWrite("closed"));
  ASSERT_OK(out->Write("abc"));
  ASSERT_OK(out->Close());
  EXPECT_FALSE(out->Write("more").ok());
  ASSERT_OK_AND_ASSIGN(std::string bytes, store().Get("closed"));
  EXPECT_EQ(bytes, "abc");
}

TEST_P(Conformance, ConcurrentCallers) {
  std::vector<std::thread> threads;
  std::vector<Status> results(6);
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        std::string key = "conc/" + std::to_string(t) + "/" + std::to_string(i);
        std::string value = Pattern(100 + i, t * 10 + i);
        Status st = store().Put(key, value);
        if (st.ok()) {
          auto got = store().Get(key);
          if (!got.ok()) {
            st = got.status();
          } else if (*got != value) {
            st = Status::Internal("wrong bytes for " + key);
          }
        }
        if (!st.ok()) {
          results[t] = st;
          return;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& st : results) EXPECT_TRUE(st.ok()) << st.ToString();
  ASSERT_OK_AND_ASSIGN(auto all, store().ListAll("conc/"));
  EXPECT_EQ(all.size(), 30u);
}

INSTANTIATE_TEST_SUITE_P(Stores, Conformance, ::testing::Values("local", "memory", "s3"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tarn

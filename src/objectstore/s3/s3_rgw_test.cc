// S3 behaviour only a real gateway can show (Ceph RGW via tests/run_with_rgw.sh): it verifies
// signatures, so a wrong secret must be refused, and not retried. Skipped without the gateway.
#include <gtest/gtest.h>

#include <cstdlib>

#include "objectstore/object_store.h"
#include "objectstore/s3/s3_store.h"
#include "objectstore/s3/test_env.h"
#include "objectstore/test_util.h"

namespace tarn {
namespace {

class S3Rgw : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!s3test::Enabled()) GTEST_SKIP() << s3test::kSkipMessage;
    auto options = s3test::Options(::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(options.ok()) << options.status().ToString();
    options->retry_base_delay_ms = 20;
    options_ = *options;
    auto store = S3ObjectStore::Make(options_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
  }
  void TearDown() override {
    if (!store_) return;
    auto all = store_->ListAll("");
    if (all.ok()) {
      std::vector<std::string> keys;
      for (const auto& o : *all) keys.push_back(o.key);
      EXPECT_TRUE(store_->DeleteMany(keys).ok());
    }
  }

  S3Options options_;
  std::shared_ptr<S3ObjectStore> store_;
};

TEST_F(S3Rgw, GatewayAnswers) {
  auto head = store_->Head("nothing-here");
  EXPECT_EQ(head.status().kind(), ErrorKind::kNotFound) << head.status().ToString();
  EXPECT_EQ(store_->stats().requests, 1u);
}

TEST_F(S3Rgw, WrongSecretIsPermissionDeniedWithoutRetries) {
  ASSERT_OK(store_->Put("exists", "x"));
  S3Options wrong = options_;
  wrong.secret_access_key += "-wrong";
  auto bad = S3ObjectStore::Make(wrong);
  ASSERT_TRUE(bad.ok());
  auto head = (*bad)->Get("exists");
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.status().kind(), ErrorKind::kPermissionDenied) << head.status().ToString();
  EXPECT_NE(head.status().message().find("SignatureDoesNotMatch"), std::string::npos)
      << head.status().message();
  Status put = (*bad)->Put("other", "y");
  EXPECT_EQ(put.kind(), ErrorKind::kPermissionDenied) << put.ToString();
  auto list = (*bad)->List("", "", 0);
  EXPECT_EQ(list.status().kind(), ErrorKind::kPermissionDenied);
  EXPECT_EQ((*bad)->stats().requests, 3u);  // one attempt each
  EXPECT_EQ((*bad)->stats().retries, 0u);
  // An unknown access key too.
  S3Options unknown = options_;
  unknown.access_key_id = "NOSUCHKEY";
  auto stranger = S3ObjectStore::Make(unknown);
  ASSERT_TRUE(stranger.ok());
  EXPECT_EQ((*stranger)->Head("exists").status().kind(), ErrorKind::kPermissionDenied);
  EXPECT_EQ((*stranger)->stats().requests, 1u);
  EXPECT_EQ(store_->Head("other").status().kind(), ErrorKind::kNotFound);
}

TEST_F(S3Rgw, ReaderNoticesReplacement) {
  ASSERT_OK(store_->Put("obj", testutil::Pattern(1000, 1)));
  auto file = store_->OpenRead("obj");
  ASSERT_TRUE(file.ok());
  ASSERT_OK(store_->Put("obj", testutil::Pattern(1000, 2)));
  uint8_t buf[10];
  EXPECT_EQ((*file)->ReadAt(0, 10, buf).kind(), ErrorKind::kFailedPrecondition);
}

TEST_F(S3Rgw, FailedConditionalMultipartLeavesNoUpload) {
  ASSERT_OK(store_->Put("cc", "first"));
  WriteOptions o;
  o.if_absent = true;
  o.part_size = 5 << 20;
  auto out = store_->OpenWrite("cc", o);
  ASSERT_TRUE(out.ok());
  ASSERT_OK((*out)->Write(testutil::Pattern((5 << 20) + 1, 3)));
  EXPECT_EQ((*out)->Close().kind(), ErrorKind::kFailedPrecondition);
  auto pending = store_->ListPendingUploads();
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_TRUE(pending->empty());
  auto bytes = store_->Get("cc");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, "first");
}

TEST_F(S3Rgw, LargeListingsAndBatchDeletesPastOneRequest) {
  // 1005 objects: listing needs two 1000-key pages, deleting two DeleteObjects requests.
  std::vector<std::string> keys;
  for (int i = 0; i < 1005; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "many/%05d", i);
    keys.emplace_back(name);
  }
  std::vector<std::thread> threads;
  std::vector<Status> results(5);
  for (int t = 0; t < 5; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t); i < keys.size() && results[t].ok(); i += 5) {
        results[t] = store_->Put(keys[i], "");
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& st : results) ASSERT_TRUE(st.ok()) << st.ToString();
  auto all = store_->ListAll("many/");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ((*all)[i].key, keys[i]);
  uint64_t before = store_->stats().requests;
  ASSERT_OK(store_->DeleteMany(keys));
  EXPECT_EQ(store_->stats().requests - before, 2u);
  auto left = store_->ListAll("many/");
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
}

TEST_F(S3Rgw, CliEntryPointsResolveUris) {
  std::string uri = "s3://" + options_.bucket + "/" + options_.prefix + "/cli/file.bin";
  auto out = CreateOutputFile(uri);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_OK((*out)->Write("through the CLI entry point"));
  ASSERT_OK((*out)->Close());
  auto in = OpenInputFile(uri);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  ASSERT_EQ((*in)->Size(), 27u);
  std::string buf(7, '\0');
  ASSERT_OK((*in)->ReadAt(8, 7, reinterpret_cast<uint8_t*>(buf.data())));
  EXPECT_EQ(buf, "the CLI");
  EXPECT_EQ((*in)->name(), uri);
  auto store = OpenObjectStore("s3://" + options_.bucket + "/" + options_.prefix);
  ASSERT_TRUE(store.ok());
  auto listed = (*store)->ListAll("cli/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, "cli/file.bin");
  EXPECT_EQ(OpenInputFile(uri + ".missing").status().kind(), ErrorKind::kNotFound);
}

}  // namespace
}  // namespace tarn

#include "objectstore/fault/fault_store.h"

#include <gtest/gtest.h>

#include <chrono>

#include "objectstore/memory/memory_store.h"
#include "objectstore/test_util.h"

namespace tarn {
namespace {

class FaultStoreTest : public ::testing::Test {
 protected:
  std::shared_ptr<MemoryObjectStore> base_ = std::make_shared<MemoryObjectStore>();
  FaultInjectingObjectStore store_{base_};
};

TEST_F(FaultStoreTest, PassesThroughAndCounts) {
  ASSERT_OK(store_.Put("a", "1"));
  ASSERT_TRUE(store_.Get("a").ok());
  ASSERT_TRUE(store_.Head("a").ok());
  ASSERT_TRUE(store_.List("", "", 0).ok());
  ASSERT_OK(store_.Delete("a"));
  EXPECT_EQ(store_.calls(), 5u);
  EXPECT_EQ(store_.calls(ObjectOp::kPut), 1u);
  EXPECT_EQ(store_.calls(ObjectOp::kList), 1u);
  EXPECT_EQ(store_.faults_injected(), 0u);
  EXPECT_EQ(store_.uri(), base_->uri());
}

TEST_F(FaultStoreTest, FailsTheNthCallOnly) {
  store_.FailNthCall(3);
  EXPECT_TRUE(store_.Put("a", "1").ok());
  EXPECT_TRUE(store_.Head("a").ok());
  Status third = store_.Put("b", "2");
  EXPECT_EQ(third.kind(), ErrorKind::kUnavailable);
  EXPECT_NE(third.message().find("put"), std::string::npos);
  EXPECT_EQ(base_->Head("b").status().kind(), ErrorKind::kNotFound);  // no effect
  EXPECT_TRUE(store_.Put("b", "2").ok());
  EXPECT_EQ(store_.faults_injected(), 1u);
}

TEST_F(FaultStoreTest, FailsTheNthCallOfOneKind) {
  store_.FailNthCall(2, ObjectOp::kGet, Status::PermissionDenied("nope"));
  ASSERT_OK(store_.Put("a", "1"));
  EXPECT_TRUE(store_.Get("a").ok());
  ASSERT_OK(store_.Put("c", "1"));
  EXPECT_EQ(store_.Get("a").status().kind(), ErrorKind::kPermissionDenied);
  EXPECT_TRUE(store_.Get("a").ok());
}

TEST_F(FaultStoreTest, FailAllUntilReset) {
  store_.FailAll(ObjectOp::kDelete);
  ASSERT_OK(store_.Put("a", "1"));
  EXPECT_FALSE(store_.Delete("a").ok());
  EXPECT_FALSE(store_.Delete("a").ok());
  store_.Reset();
  EXPECT_TRUE(store_.Delete("a").ok());
}

TEST_F(FaultStoreTest, WriterFailingMidStreamLeavesNothing) {
  store_.FailWritesAfterBytes(10);
  auto out = store_.OpenWrite("obj");
  ASSERT_TRUE(out.ok());
  ASSERT_OK((*out)->Write("12345"));
  ASSERT_OK((*out)->Write("67890"));
  Status st = (*out)->Write("x");
  EXPECT_EQ(st.kind(), ErrorKind::kIOError);
  EXPECT_FALSE((*out)->Close().ok());  // poisoned
  out->reset();
  EXPECT_EQ(base_->Head("obj").status().kind(), ErrorKind::kNotFound);
}

TEST_F(FaultStoreTest, FailedCloseLeavesNothing) {
  store_.FailNthCall(1, ObjectOp::kClose);
  auto out = store_.OpenWrite("obj");
  ASSERT_TRUE(out.ok());
  ASSERT_OK((*out)->Write("data"));
  EXPECT_FALSE((*out)->Close().ok());
  out->reset();
  EXPECT_EQ(base_->object_count(), 0u);
}

TEST_F(FaultStoreTest, ReadsFailAfterBytes) {
  ASSERT_OK(base_->Put("obj", std::string(100, 'x')));
  store_.FailReadsAfterBytes(60);
  auto file = store_.OpenRead("obj");
  ASSERT_TRUE(file.ok());
  uint8_t buf[50];
  ASSERT_OK((*file)->ReadAt(0, 50, buf));
  EXPECT_EQ((*file)->ReadAt(50, 50, buf).kind(), ErrorKind::kIOError);
  EXPECT_EQ(store_.Get("obj").status().kind(), ErrorKind::kIOError);
  store_.Reset();
  ASSERT_OK((*file)->ReadAt(50, 50, buf));
  EXPECT_EQ(store_.calls(ObjectOp::kReadAt), 3u);
}

TEST_F(FaultStoreTest, DelaysEveryCall) {
  store_.SetDelay(std::chrono::milliseconds(30));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(store_.Head("x").status().kind(), ErrorKind::kNotFound);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
}

TEST_F(FaultStoreTest, BatchDeleteGoesThrough) {
  ASSERT_OK(store_.Put("a", "1"));
  ASSERT_OK(store_.Put("b", "1"));
  ASSERT_OK(store_.DeleteMany({"a", "b"}));
  EXPECT_EQ(base_->object_count(), 0u);
  store_.FailNthCall(1, ObjectOp::kDeleteMany);
  EXPECT_FALSE(store_.DeleteMany({"a"}).ok());
}

}  // namespace
}  // namespace tarn

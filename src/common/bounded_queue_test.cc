#include "common/bounded_queue.h"

#include <gtest/gtest.h>

#include <latch>
#include <string>
#include <thread>

namespace tarn {
namespace {

// Spins (yielding) until the producer waits for room: no sleep, no guessed duration.
void AwaitBlockedProducer(const BoundedQueue<std::string>& q) {
  while (!q.producer_waiting()) std::this_thread::yield();
}

TEST(BoundedQueue, DeliversInOrderThenTheEnd) {
  BoundedQueue<std::string> q(100);
  ASSERT_TRUE(q.Push("a", 1));
  ASSERT_TRUE(q.Push("b", 1));
  q.Finish();
  EXPECT_EQ(**q.Pop(), "a");
  EXPECT_EQ(**q.Pop(), "b");
  auto end = q.Pop();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
  EXPECT_FALSE(q.Pop()->has_value());  // the end stays the end
}

TEST(BoundedQueue, TheProducersErrorComesAfterWhatWasQueuedBeforeIt) {
  BoundedQueue<std::string> q(100);
  ASSERT_TRUE(q.Push("a", 1));
  q.Finish(Status::Corruption("bad row 7"));
  q.Finish(Status::OK());  // only the first Finish counts
  EXPECT_EQ(**q.Pop(), "a");
  auto err = q.Pop();
  EXPECT_EQ(err.status().kind(), ErrorKind::kCorruption);
  EXPECT_EQ(err.status().message(), "bad row 7");
}

TEST(BoundedQueue, AnItemAlwaysFitsAnEmptyQueue) {
  BoundedQueue<std::string> q(4);
  ASSERT_TRUE(q.Push(std::string(10, 'x'), 10));
  EXPECT_EQ(q.queued_bytes(), 10);
  EXPECT_EQ((*q.Pop())->size(), 10u);
  EXPECT_EQ(q.queued_bytes(), 0);
}

TEST(BoundedQueue, APushWaitsForRoomInBytesAndInItems) {
  for (bool by_items : {false, true}) {
    BoundedQueue<std::string> q(by_items ? 100 : 4, by_items ? 1 : 100);
    ASSERT_TRUE(q.Push("abc", 3));
    std::thread producer([&] {
      EXPECT_TRUE(q.Push("de", 2));  // 3 + 2 > 4 bytes, or a second item
      q.Finish();
    });
    AwaitBlockedProducer(q);
    EXPECT_EQ(q.queued_bytes(), 3);  // still waiting
    EXPECT_EQ(**q.Pop(), "abc");     // makes room
    EXPECT_EQ(**q.Pop(), "de");
    EXPECT_FALSE(q.Pop()->has_value());
    producer.join();
  }
}

TEST(BoundedQueue, CancelReleasesABlockedProducer) {
  BoundedQueue<std::string> q(1);
  ASSERT_TRUE(q.Push("a", 1));
  bool pushed = true;
  std::thread producer([&] {
    pushed = q.Push("b", 1);
    q.Finish(Status::Cancelled("the consumer went away"));
  });
  AwaitBlockedProducer(q);
  q.Cancel();
  producer.join();
  EXPECT_FALSE(pushed);
  EXPECT_EQ(q.queued_bytes(), 0);  // what was queued is dropped
  EXPECT_FALSE(q.Push("c", 1));    // and later pushes fail at once
  EXPECT_EQ(q.Pop().status().kind(), ErrorKind::kCancelled);
}

// The consumer fails (e.g. its write errors) and cancels: the producer, wherever it is, stops at
// its next push, having queued no more than the queue holds.
TEST(BoundedQueue, AConsumersErrorStopsTheProducer) {
  BoundedQueue<std::string> q(8);  // two items of 4 bytes
  int pushes = 0;
  std::thread producer([&] {
    for (int i = 0; i < 1000; ++i) {
      if (!q.Push(std::to_string(i), 4)) break;
      ++pushes;
    }
    q.Finish();
  });
  auto first = q.Pop();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(**first, "0");
  q.Cancel();
  producer.join();
  EXPECT_LE(pushes, 3);
  EXPECT_EQ(q.Pop().status().kind(), ErrorKind::kCancelled);
}

TEST(BoundedQueue, APopWaitsForTheProducer) {
  BoundedQueue<std::string> q(8);
  std::latch started(1);
  std::thread producer([&] {
    started.wait();
    ASSERT_TRUE(q.Push("late", 4));
    q.Finish();
  });
  started.count_down();
  EXPECT_EQ(**q.Pop(), "late");
  EXPECT_FALSE(q.Pop()->has_value());
  producer.join();
}

TEST(BoundedQueue, PopForReturnsNothingInTimeThenWhatCame) {
  BoundedQueue<std::string> q(8);
  EXPECT_FALSE(q.PopFor(std::chrono::milliseconds(1)).has_value());  // nothing queued
  ASSERT_TRUE(q.Push("a", 1));
  auto got = q.PopFor(std::chrono::milliseconds(1));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(***got, "a");
  q.Finish(Status::IOError("gone"));
  got = q.PopFor(std::chrono::milliseconds(1));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().kind(), ErrorKind::kIOError);
  q.Cancel();
  got = q.PopFor(std::chrono::milliseconds(1));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().kind(), ErrorKind::kCancelled);
}

}  // namespace
}  // namespace tarn

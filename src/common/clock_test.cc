#include "common/clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace tarn {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(Clock, TheRealClockReadsTheSystemAndSteadyClocks) {
  const Clock& c = *Clock::Real();
  int64_t before = std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  int64_t now = c.NowMicros();
  EXPECT_GE(now, before);
  EXPECT_LT(now - before, 10'000'000);
  EXPECT_EQ(c.NowSeconds(), now / 1'000'000);
  auto s = c.SteadyNow();
  EXPECT_LE(s, c.SteadyNow());
  EXPECT_EQ(Clock::Real().get(), Clock::Real().get());
}

TEST(Clock, TheRealClocksWaitEndsAtTheDeadlineOrWhenStopped) {
  const Clock& c = *Clock::Real();
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_FALSE(c.WaitUntil(lock, cv, c.SteadyNow(), [] { return false; }));
  EXPECT_TRUE(c.WaitUntil(lock, cv, c.SteadyNow() + seconds(60), [] { return true; }));
}

TEST(ManualClock, StandsStillUntilAdvanced) {
  ManualClock c(ManualClock::Flow::kStopped, 5'000'000);
  EXPECT_EQ(c.NowMicros(), 5'000'000);
  auto s = c.SteadyNow();
  EXPECT_EQ(c.NowMicros(), 5'000'000);
  EXPECT_EQ(c.SteadyNow(), s);
  c.Advance(milliseconds(1500));
  EXPECT_EQ(c.NowMicros(), 6'500'000);
  EXPECT_EQ(c.NowSeconds(), 6);
  EXPECT_EQ(c.SteadyNow() - s, milliseconds(1500));
  c.Advance(std::chrono::microseconds(-5));  // never backwards
  EXPECT_EQ(c.NowMicros(), 6'500'000);
}

TEST(ManualClock, StartsAtTheRealTimeByDefault) {
  int64_t before = Clock::Real()->NowMicros();
  ManualClock c;
  EXPECT_GE(c.NowMicros(), before);
  EXPECT_LE(c.NowMicros(), Clock::Real()->NowMicros());
}

TEST(ManualClock, RunningRunsWithRealTimeAndJumpsAhead) {
  ManualClock c(ManualClock::Flow::kRunning, 0);
  int64_t a = c.NowMicros();
  c.Advance(seconds(3600));
  EXPECT_GE(c.NowMicros(), a + 3'600'000'000);
  int64_t b = c.NowMicros();
  while (c.NowMicros() == b) std::this_thread::yield();  // real time passes
  EXPECT_GT(c.NowMicros(), b);
}

// A background thread waiting an hour of the manual clock wakes when the test advances it.
TEST(ManualClock, AdvanceWakesAWaiterPastItsDeadline) {
  auto c = std::make_shared<ManualClock>();
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  int woke = 0;
  std::thread waiter([&] {
    std::unique_lock<std::mutex> lock(mu);
    while (!c->WaitUntil(lock, cv, c->SteadyNow() + seconds(3600), [&] { return stop; })) ++woke;
  });
  while (c->waiters() == 0) std::this_thread::yield();
  c->Advance(seconds(1800));  // not yet
  c->Advance(seconds(1800));  // now
  while (true) {
    std::lock_guard<std::mutex> lock(mu);
    if (woke == 1) break;
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
  }
  cv.notify_all();
  waiter.join();
  EXPECT_EQ(woke, 1);
  EXPECT_EQ(c->waiters(), 0);
}

TEST(Stopwatch, MeasuresTheSteadyTimeOfItsClock) {
  ManualClock c(ManualClock::Flow::kStopped, 5'000'000);
  const auto at = c.SteadyNow();
  Stopwatch watch(c);
  EXPECT_EQ(watch.start(), at);
  EXPECT_EQ(watch.Elapsed(), Clock::SteadyTime::duration::zero());
  EXPECT_EQ(watch.Seconds(), 0.0);
  c.Advance(milliseconds(1500));
  EXPECT_EQ(watch.Elapsed(), milliseconds(1500));
  EXPECT_DOUBLE_EQ(watch.Seconds(), 1.5);
  c.Advance(seconds(2));
  EXPECT_DOUBLE_EQ(watch.Seconds(), 3.5);
  EXPECT_EQ(watch.start(), at);  // reading it does not restart it
  EXPECT_EQ(c.NowMicros(), 8'500'000);
}

}  // namespace
}  // namespace tarn

#include "common/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tarn {
namespace {

TEST(ParallelFor, CallsEveryIndexOnceOnAtMostTheThreadsAsked) {
  for (size_t threads : {0, 1, 3, 16}) {
    for (size_t n : {0, 1, 2, 100}) {
      std::vector<std::atomic<int>> calls(n);
      std::mutex mu;
      std::set<std::thread::id> seen;
      ParallelFor(n, threads, [&](size_t i) {
        ++calls[i];
        std::lock_guard<std::mutex> lock(mu);
        seen.insert(std::this_thread::get_id());
      });
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(calls[i], 1) << threads << " " << n << " " << i;
      EXPECT_LE(seen.size(), std::max<size_t>(1, std::min(threads, n)));
      if (threads <= 1 && n > 0) {
        EXPECT_EQ(*seen.begin(), std::this_thread::get_id());
      }
    }
  }
}

}  // namespace
}  // namespace tarn

// Running independent pieces of work on a few threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace tarn {

// Calls fn(i) for every i in [0, n), on up to `threads` threads (the caller's among them), each
// taking the next index; returns when every call has. `fn` must be safe to call concurrently.
inline void ParallelFor(size_t n, size_t threads, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::vector<std::thread> helpers;
  const size_t extra = std::min(threads, n) > 0 ? std::min(threads, n) - 1 : 0;
  for (size_t t = 0; t < extra; ++t) helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers) t.join();
}

}  // namespace tarn

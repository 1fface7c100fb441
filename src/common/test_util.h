// Test-only helpers every module's tests may use (include from *_test.cc and *test_util.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

#include "common/clock.h"
#include "tarn/status.h"

// Fails the test (and returns from it) unless `expr`, a Status, is OK; more context may be
// streamed: ASSERT_OK(st) << "while ...".
#define ASSERT_OK(expr)                        \
  if (::tarn::Status _st = (expr); _st.ok()) { \
  } else /* NOLINT */                          \
    GTEST_FAIL_AT(__FILE__, __LINE__) << #expr << ": " << _st.ToString()

// Fails the test (and goes on) unless `expr`, a Status, is OK.
#define EXPECT_OK(expr)                        \
  if (::tarn::Status _st = (expr); _st.ok()) { \
  } else /* NOLINT */                          \
    ADD_FAILURE_AT(__FILE__, __LINE__) << #expr << ": " << _st.ToString()

// `lhs = value` of `expr`, a Result, or fails the test naming the expression and its status.
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                   \
  auto TARN_CONCAT(_r_, __LINE__) = (expr);                               \
  ASSERT_TRUE(TARN_CONCAT(_r_, __LINE__).ok())                            \
      << #expr << ": " << TARN_CONCAT(_r_, __LINE__).status().ToString(); \
  lhs = std::move(TARN_CONCAT(_r_, __LINE__)).value()

namespace tarn::testing_util {

// Checks `done` until it holds or `timeout` of real time has passed, and says whether it held
// (the last check is made at the deadline). For what a test cannot be told of and must look for:
// a log line written after the response went out, a descriptor the kernel released, a child
// that exited. Waits 1 ms between the first checks, then up to 10 ms. The deadline is generous:
// it bounds a failing test, it is not a duration the test relies on.
inline bool Eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const Clock& clock = *Clock::Real();  // a bound on a failing test: real time
  const auto deadline = clock.SteadyNow() + timeout;
  std::chrono::milliseconds step(1);
  while (!done()) {
    if (clock.SteadyNow() >= deadline) return done();
    std::this_thread::sleep_for(step);
    step = std::min(step * 2, std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace tarn::testing_util

// Time as tarn reads it: wall time for what is stored and shown, steady time for deadlines and
// intervals. Every read of the time goes through a Clock, so tests can run a manual one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace tarn {

// Thread-safe.
class Clock {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;

  // Wall time, microseconds since the Unix epoch.
  virtual int64_t NowMicros() const = 0;
  // Monotonic time, for deadlines and intervals.
  virtual SteadyTime SteadyNow() const = 0;
  // Waits on `cv` (`lock` held on entry and on return) until `stop()` holds or SteadyNow()
  // reaches `deadline`; returns stop(). Whoever makes stop() true notifies `cv`.
  virtual bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                         SteadyTime deadline, const std::function<bool()>& stop) const = 0;

  int64_t NowSeconds() const { return NowMicros() / 1'000'000; }
  int64_t NowMillis() const { return NowMicros() / 1'000; }

  // The process's clock (system_clock and steady_clock). Never null; lives for the process.
  static const std::shared_ptr<Clock>& Real();
};

// Steady time elapsed since its construction, on `clock` (which must outlive it):
//   Stopwatch watch(*Clock::Real());
//   ...
//   log("took", watch.Seconds());
class Stopwatch {
 public:
  explicit Stopwatch(const Clock& clock) : clock_(&clock), start_(clock.SteadyNow()) {}

  Clock::SteadyTime start() const { return start_; }
  Clock::SteadyTime::duration Elapsed() const { return clock_->SteadyNow() - start_; }
  double Seconds() const { return std::chrono::duration<double>(Elapsed()).count(); }

 private:
  const Clock* clock_;
  Clock::SteadyTime start_;
};

// A clock for tests. kStopped: it stands still until Advance moves it. kRunning: it runs with
// the real clock and Advance jumps it ahead (for tests over a whole server, where other work must
// still see time pass). Starts at the real wall time of its construction (or at `start_us`).
// Advance wakes every WaitUntil, which returns once its deadline has passed.
class ManualClock final : public Clock {
 public:
  enum class Flow { kStopped, kRunning };
  explicit ManualClock(Flow flow = Flow::kStopped);
  ManualClock(Flow flow, int64_t start_us);

  int64_t NowMicros() const override;
  SteadyTime SteadyNow() const override;
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 SteadyTime deadline, const std::function<bool()>& stop) const override;

  // Moves the wall and the steady time forward by `d` (not negative).
  void Advance(std::chrono::microseconds d);
  // How many WaitUntil calls are waiting now (so a test can let a background thread settle
  // into its wait before advancing).
  int waiters() const;

 private:
  std::chrono::microseconds Elapsed() const;  // real time since construction when running

  const Flow flow_;
  const SteadyTime started_;
  mutable std::mutex mu_;
  int64_t wall_us_;  // at construction, plus every Advance
  SteadyTime steady_;
  mutable std::vector<std::condition_variable*> waiting_;
};

}  // namespace tarn

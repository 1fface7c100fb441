#include "common/clock.h"

#include <algorithm>

namespace tarn {

namespace {

class RealClock final : public Clock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  SteadyTime SteadyNow() const override { return std::chrono::steady_clock::now(); }
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 SteadyTime deadline, const std::function<bool()>& stop) const override {
    return cv.wait_until(lock, deadline, stop);
  }
};

}  // namespace

const std::shared_ptr<Clock>& Clock::Real() {
  static const auto* real = new std::shared_ptr<Clock>(std::make_shared<RealClock>());
  return *real;
}

ManualClock::ManualClock(Flow flow) : ManualClock(flow, Real()->NowMicros()) {}

ManualClock::ManualClock(Flow flow, int64_t start_us)
    : flow_(flow),
      started_(std::chrono::steady_clock::now()),
      wall_us_(start_us),
      steady_(started_) {}

std::chrono::microseconds ManualClock::Elapsed() const {
  if (flow_ == Flow::kStopped) return std::chrono::microseconds(0);
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               started_);
}

int64_t ManualClock::NowMicros() const {
  std::lock_guard<std::mutex> guard(mu_);
  return wall_us_ + Elapsed().count();
}

Clock::SteadyTime ManualClock::SteadyNow() const {
  std::lock_guard<std::mutex> guard(mu_);
  return steady_ + Elapsed();
}

bool ManualClock::WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                            SteadyTime deadline, const std::function<bool()>& stop) const {
  {
    std::lock_guard<std::mutex> guard(mu_);
    waiting_.push_back(&cv);
  }
  bool stopped;
  while (!(stopped = stop()) && SteadyNow() < deadline) {
    // Advance notifies without holding `lock`, so a wakeup can fall between the check above and
    // this wait; the short real timeout bounds that case.
    cv.wait_for(lock, std::chrono::milliseconds(5));
  }
  std::lock_guard<std::mutex> guard(mu_);
  waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &cv));
  return stopped;
}

void ManualClock::Advance(std::chrono::microseconds d) {
  std::lock_guard<std::mutex> guard(mu_);
  if (d.count() > 0) {
    wall_us_ += d.count();
    steady_ += d;
  }
  for (std::condition_variable* cv : waiting_) cv->notify_all();
}

int ManualClock::waiters() const {
  std::lock_guard<std::mutex> guard(mu_);
  return static_cast<int>(waiting_.size());
}

}  // namespace tarn

// Worker: one thread, one job at a time (worker.h).
#include "tui/worker.h"

#include <utility>

namespace tarn::tui {

Worker::Worker(std::function<void()> wake) : wake_(std::move(wake)) {
  thread_ = std::thread([this] { Run(); });
}

std::unique_ptr<Worker> Worker::Inline() {
  std::unique_ptr<Worker> w(new Worker());
  w->inline_ = true;
  return w;
}

Worker::~Worker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Worker::Post(std::string label, Job job) {
  if (inline_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      label_ = label;
      ++pending_;
    }
    Effect effect = job();
    std::lock_guard<std::mutex> lock(mu_);
    if (effect) effects_.push_back(std::move(effect));
    label_.clear();
    --pending_;
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.emplace_back(std::move(label), std::move(job));
    ++pending_;
  }
  cv_.notify_all();
}

bool Worker::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_ > 0;
}

std::string Worker::label() const {
  std::lock_guard<std::mutex> lock(mu_);
  return label_;
}

std::vector<Worker::Effect> Worker::TakeEffects() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Effect> out;
  out.swap(effects_);
  return out;
}

void Worker::Run() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      label_ = queue_.front().first;
      job = std::move(queue_.front().second);
      queue_.pop_front();
    }
    Effect effect = job();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (effect) effects_.push_back(std::move(effect));
      label_.clear();
      --pending_;
    }
    if (wake_) wake_();
  }
}

}  // namespace tarn::tui

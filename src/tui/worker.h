// The request thread of the full-screen app: calls to the catalog and the upload service run
// here, one at a time, so the drawing thread never waits on the network or the disk. A job
// returns an effect, which the drawing thread applies to the app's state (TakeEffects), so the
// state is only ever touched by one thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tarn::tui {

class Worker {
 public:
  using Effect = std::function<void()>;  // runs on the drawing thread
  using Job = std::function<Effect()>;   // runs on the worker thread

  // A worker thread; `wake` is called (on it) after each job, to wake the drawing thread.
  explicit Worker(std::function<void()> wake);
  // A worker that runs each job inside Post, on the caller's thread (tests).
  static std::unique_ptr<Worker> Inline();
  // Waits for the job in progress, if any, and stops the thread. A job that cannot end (a
  // write parked by a quit) must be left behind by ending the process instead.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Queues a job; `label` says what it does while it runs ("negotiating").
  void Post(std::string label, Job job);
  // A job is queued or running.
  bool busy() const;
  // What the running job does ("" when idle).
  std::string label() const;
  // The effects of finished jobs, in order; the caller runs them.
  std::vector<Effect> TakeEffects();

 private:
  Worker() = default;
  void Run();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<std::string, Job>> queue_;
  std::vector<Effect> effects_;
  std::string label_;
  int pending_ = 0;  // queued + running
  bool stop_ = false;
  bool inline_ = false;
  std::function<void()> wake_;
  std::thread thread_;
};

}  // namespace tarn::tui

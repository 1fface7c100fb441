// A byte-bounded queue between one producer thread and one consumer thread, with one set of
// rules for how either side stops:
//  - the producer ends the stream with Finish(OK) or Finish(error);
//  - the consumer takes every item pushed before Finish, then the end (nullopt) or the error;
//  - the consumer gives up with Cancel: what is queued is dropped and Push (also one blocked
//    waiting for room) returns false from then on, so the producer stops and Finishes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <utility>

#include "tarn/status.h"

namespace tarn {

// Thread-safe.
template <typename T>
class BoundedQueue {
 public:
  // At most `max_bytes` (as counted by the producer) and `max_items` queued; an item is always
  // taken into an empty queue, whatever its size.
  explicit BoundedQueue(int64_t max_bytes, size_t max_items = std::numeric_limits<size_t>::max())
      : max_bytes_(max_bytes), max_items_(max_items) {}

  // Waits for room and queues `item`; false once the consumer cancelled (the item is dropped).
  bool Push(T item, int64_t bytes) {
    std::unique_lock<std::mutex> lock(mu_);
    auto room = [&] {
      return cancelled_ || items_.empty() ||
             (items_.size() < max_items_ && bytes_ + bytes <= max_bytes_);
    };
    if (!room()) {
      producer_waiting_ = true;
      space_.wait(lock, room);
      producer_waiting_ = false;
    }
    if (cancelled_) return false;
    bytes_ += bytes;
    items_.emplace_back(std::move(item), bytes);
    ready_.notify_one();
    return true;
  }

  // The producer is done: OK at the end of its input, else its error. Only the first call counts.
  void Finish(Status st = Status::OK()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    finished_ = true;
    final_ = std::move(st);
    ready_.notify_all();
  }

  // Waits for the next item; nullopt after the last one of a stream finished OK; the producer's
  // error once the items queued before it are taken; kCancelled after Cancel.
  Result<std::optional<T>> Pop() {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return cancelled_ || !items_.empty() || finished_; });
    if (cancelled_) return Status::Cancelled("the queue was cancelled");
    if (items_.empty()) {
      if (!final_.ok()) return final_;
      return std::optional<T>();
    }
    T item = std::move(items_.front().first);
    bytes_ -= items_.front().second;
    items_.pop_front();
    space_.notify_one();
    return std::optional<T>(std::move(item));
  }

  // As Pop, waiting at most `timeout`: nullopt when nothing came in time (so a consumer can look
  // for a signal between waits).
  template <typename Rep, typename Period>
  std::optional<Result<std::optional<T>>> PopFor(std::chrono::duration<Rep, Period> timeout) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (!ready_.wait_for(lock, timeout,
                           [&] { return cancelled_ || !items_.empty() || finished_; })) {
        return std::nullopt;
      }
    }
    return Pop();  // ready, and only this consumer takes items
  }

  // The consumer gives up: drops what is queued and releases the producer.
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    items_.clear();
    bytes_ = 0;
    space_.notify_all();
    ready_.notify_all();
  }

  // Whether the consumer gave up (for a producer that has nothing to Push for a while).
  bool cancelled() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_;
  }

  int64_t queued_bytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bytes_;
  }
  // Whether Push is waiting for room now (for tests that line threads up).
  bool producer_waiting() const {
    std::lock_guard<std::mutex> lock(mu_);
    return producer_waiting_;
  }

 private:
  const int64_t max_bytes_;
  const size_t max_items_;
  mutable std::mutex mu_;
  std::condition_variable ready_, space_;
  std::deque<std::pair<T, int64_t>> items_;  // with their sizes
  int64_t bytes_ = 0;
  bool finished_ = false, cancelled_ = false, producer_waiting_ = false;
  Status final_;
};

}  // namespace tarn

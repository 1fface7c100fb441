#include "common/discard.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace tarn {

namespace {

std::mutex& SinkMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
DiscardSink& Sink() {
  static auto* sink = new DiscardSink;
  return *sink;
}
std::atomic<int64_t> discarded{0};

}  // namespace

void DiscardError(const Status& st, std::string_view what) {
  if (st.ok()) return;
  discarded.fetch_add(1, std::memory_order_relaxed);
  DiscardSink sink;
  {
    std::lock_guard<std::mutex> lock(SinkMutex());
    sink = Sink();
  }
  if (sink) sink(st, what);
}

DiscardSink SetDiscardSink(DiscardSink sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  DiscardSink previous = std::move(Sink());
  Sink() = std::move(sink);
  return previous;
}

int64_t DiscardedErrors() { return discarded.load(std::memory_order_relaxed); }

}  // namespace tarn

// The server's Prometheus metrics (docs/design/serve.md, "/metrics"). Internal to src/server.
//
// Recording is lock-free (relaxed atomics in arrays sized at construction); only the error
// counter by code takes a mutex, and only on the error path. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tarn::server::internal {

class Metrics {
 public:
  // One series set per (route pattern, method) pair, in this order; requests that matched no
  // route are recorded under route "unmatched" with their method.
  explicit Metrics(const std::vector<std::pair<std::string, std::string>>& routes);

  // The series index of route `i` of the constructor's list, or of an unmatched request.
  int RouteSeries(int i) const { return i; }
  int UnmatchedSeries(std::string_view method) const;

  void RecordRequest(int series, int http_status, double seconds);
  void AddInflight(int64_t delta) { inflight_.fetch_add(delta, std::memory_order_relaxed); }
  void CountCommits(int64_t n) { commits_.fetch_add(n, std::memory_order_relaxed); }
  void CountConflict() { conflicts_.fetch_add(1, std::memory_order_relaxed); }
  void CountError(std::string_view code);
  // One scheduled integrity sweep this server ran, with its findings (-1: it failed).
  void RecordFsck(int64_t findings) {
    fsck_runs_.fetch_add(1, std::memory_order_relaxed);
    if (findings < 0) {
      fsck_failures_.fetch_add(1, std::memory_order_relaxed);
    } else {
      fsck_findings_.store(findings, std::memory_order_relaxed);
    }
  }

  // One housekeeping pass this server ran (step: Catalog::HousekeepingStep's value): its
  // duration, whether it failed as a whole, its datasets' failures and what it moved.
  struct HousekeepingPass {
    double seconds = 0;
    bool failed = false;
    int64_t dataset_failures = 0;
    int64_t snapshots_expired = 0, objects_deleted = 0, bytes_deleted = 0;
    int64_t files_rewritten = 0, bytes_rewritten = 0;
    int64_t files_hydrated = 0;
    int64_t manifests_written = 0;
    int64_t files_flushed = 0, bytes_flushed = 0;
  };
  void RecordHousekeeping(size_t step, const HousekeepingPass& pass);

  // The Prometheus text exposition format (version 0.0.4).
  std::string Render() const;

  static constexpr std::array<double, 14> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

 private:
  struct Series {
    std::string route;
    std::string method;
    std::array<std::atomic<uint64_t>, 500> by_status{};                // index: status - 100
    std::array<std::atomic<uint64_t>, kBuckets.size() + 1> buckets{};  // last: above all
    std::atomic<uint64_t> sum_us{0};
    std::atomic<uint64_t> count{0};
  };
  std::vector<std::unique_ptr<Series>> series_;
  size_t first_unmatched_ = 0;
  std::atomic<int64_t> inflight_{0};
  std::atomic<uint64_t> commits_{0};
  std::atomic<uint64_t> conflicts_{0};
  std::atomic<uint64_t> fsck_runs_{0};
  std::atomic<uint64_t> fsck_failures_{0};
  std::atomic<int64_t> fsck_findings_{0};
  struct Housekeeping {
    uint64_t runs = 0, failures = 0, dataset_failures = 0, micros = 0;
    uint64_t snapshots_expired = 0, objects_deleted = 0, bytes_deleted = 0;
    uint64_t files_rewritten = 0, bytes_rewritten = 0;
    uint64_t files_hydrated = 0;
    uint64_t manifests_written = 0;
    uint64_t files_flushed = 0, bytes_flushed = 0;
  };
  mutable std::mutex housekeeping_mu_;
  std::array<Housekeeping, 6> housekeeping_{};  // by Catalog::HousekeepingStep
  mutable std::mutex errors_mu_;
  std::map<std::string, uint64_t, std::less<>> errors_;
};

// Escapes a Prometheus label value (backslash, double quote, newline).
std::string EscapeLabel(std::string_view v);

}  // namespace tarn::server::internal

#include "server/metrics.h"

#include <cstdio>

namespace tarn::server::internal {

namespace {

constexpr std::string_view kUnmatchedMethods[] = {"GET",   "HEAD",   "POST",    "PUT",
                                                  "PATCH", "DELETE", "OPTIONS", "other"};

std::string FormatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

}  // namespace

std::string EscapeLabel(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

Metrics::Metrics(const std::vector<std::pair<std::string, std::string>>& routes) {
  for (const auto& [route, method] : routes) {
    auto s = std::make_unique<Series>();
    s->route = route;
    s->method = method;
    series_.push_back(std::move(s));
  }
  first_unmatched_ = series_.size();
  for (std::string_view m : kUnmatchedMethods) {
    auto s = std::make_unique<Series>();
    s->route = "unmatched";
    s->method = std::string(m);
    series_.push_back(std::move(s));
  }
}

int Metrics::UnmatchedSeries(std::string_view method) const {
  size_t n = std::size(kUnmatchedMethods);
  for (size_t i = 0; i + 1 < n; ++i) {
    if (kUnmatchedMethods[i] == method) return static_cast<int>(first_unmatched_ + i);
  }
  return static_cast<int>(first_unmatched_ + n - 1);
}

void Metrics::RecordRequest(int series, int http_status, double seconds) {
  if (series < 0 || static_cast<size_t>(series) >= series_.size()) return;
  Series& s = *series_[series];
  if (http_status >= 100 && http_status < 600) {
    s.by_status[http_status - 100].fetch_add(1, std::memory_order_relaxed);
  }
  size_t b = 0;
  while (b < kBuckets.size() && seconds > kBuckets[b]) ++b;
  s.buckets[b].fetch_add(1, std::memory_order_relaxed);
  if (seconds < 0) seconds = 0;
  s.sum_us.fetch_add(static_cast<uint64_t>(seconds * 1e6), std::memory_order_relaxed);
  s.count.fetch_add(1, std::memory_order_relaxed);
}

void Metrics::CountError(std::string_view code) {
  std::lock_guard<std::mutex> lock(errors_mu_);
  auto it = errors_.find(code);
  if (it == errors_.end()) {
    if (errors_.size() >= 1000) return;  // codes are server-defined; a bound all the same
    it = errors_.emplace(std::string(code), 0).first;
  }
  ++it->second;
}

void Metrics::RecordHousekeeping(size_t step, const HousekeepingPass& pass) {
  if (step >= housekeeping_.size()) return;
  std::lock_guard<std::mutex> lock(housekeeping_mu_);
  Housekeeping& h = housekeeping_[step];
  h.runs += 1;
  if (pass.failed) h.failures += 1;
  h.dataset_failures += static_cast<uint64_t>(pass.dataset_failures);
  h.micros += static_cast<uint64_t>(pass.seconds * 1e6);
  h.snapshots_expired += static_cast<uint64_t>(pass.snapshots_expired);
  h.objects_deleted += static_cast<uint64_t>(pass.objects_deleted);
  h.bytes_deleted += static_cast<uint64_t>(pass.bytes_deleted);
  h.files_rewritten += static_cast<uint64_t>(pass.files_rewritten);
  h.bytes_rewritten += static_cast<uint64_t>(pass.bytes_rewritten);
  h.files_hydrated += static_cast<uint64_t>(pass.files_hydrated);
  h.manifests_written += static_cast<uint64_t>(pass.manifests_written);
  h.files_flushed += static_cast<uint64_t>(pass.files_flushed);
  h.bytes_flushed += static_cast<uint64_t>(pass.bytes_flushed);
}

std::string Metrics::Render() const {
  std::string out;
  out.reserve(16 << 10);
  out +=
      "# HELP tarn_http_requests_total HTTP requests by route pattern, method and status.\n"
      "# TYPE tarn_http_requests_total counter\n";
  for (const auto& s : series_) {
    std::string labels =
        "route=\"" + EscapeLabel(s->route) + "\",method=\"" + EscapeLabel(s->method) + "\"";
    for (size_t i = 0; i < s->by_status.size(); ++i) {
      uint64_t n = s->by_status[i].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out += "tarn_http_requests_total{" + labels + ",status=\"" + std::to_string(i + 100) +
             "\"} " + std::to_string(n) + "\n";
    }
  }
  out +=
      "# HELP tarn_http_request_duration_seconds Time from the request's headers to the end of "
      "its response.\n"
      "# TYPE tarn_http_request_duration_seconds histogram\n";
  for (const auto& s : series_) {
    uint64_t count = s->count.load(std::memory_order_relaxed);
    if (count == 0) continue;
    std::string labels =
        "route=\"" + EscapeLabel(s->route) + "\",method=\"" + EscapeLabel(s->method) + "\"";
    uint64_t cumulative = 0;
    for (size_t b = 0; b < kBuckets.size(); ++b) {
      cumulative += s->buckets[b].load(std::memory_order_relaxed);
      out += "tarn_http_request_duration_seconds_bucket{" + labels + ",le=\"" +
             FormatDouble(kBuckets[b]) + "\"} " + std::to_string(cumulative) + "\n";
    }
    cumulative += s->buckets[kBuckets.size()].load(std::memory_order_relaxed);
    // Concurrent recording may leave count a little behind the buckets; +Inf must equal count.
    if (cumulative > count) count = cumulative;
    out += "tarn_http_request_duration_seconds_bucket{" + labels + ",le=\"+Inf\"} " +
           std::to_string(count) + "\n";
    out += "tarn_http_request_duration_seconds_sum{" + labels + "} " +
           FormatDouble(static_cast<double>(s->sum_us.load(std::memory_order_relaxed)) / 1e6) +
           "\n";
    out +=
        "tarn_http_request_duration_seconds_count{" + labels + "} " + std::to_string(count) + "\n";
  }
  out +=
      "# HELP tarn_commits_total Snapshots committed through the server.\n"
      "# TYPE tarn_commits_total counter\n"
      "tarn_commits_total " +
      std::to_string(commits_.load(std::memory_order_relaxed)) +
      "\n"
      "# HELP tarn_commit_conflicts_total Commits refused because a concurrent commit won.\n"
      "# TYPE tarn_commit_conflicts_total counter\n"
      "tarn_commit_conflicts_total " +
      std::to_string(conflicts_.load(std::memory_order_relaxed)) +
      "\n"
      "# HELP tarn_fsck_runs_total Scheduled integrity sweeps this server ran (--fsck-every).\n"
      "# TYPE tarn_fsck_runs_total counter\n"
      "tarn_fsck_runs_total " +
      std::to_string(fsck_runs_.load(std::memory_order_relaxed)) +
      "\n"
      "# HELP tarn_fsck_failures_total Scheduled integrity sweeps that could not finish.\n"
      "# TYPE tarn_fsck_failures_total counter\n"
      "tarn_fsck_failures_total " +
      std::to_string(fsck_failures_.load(std::memory_order_relaxed)) +
      "\n"
      "# HELP tarn_fsck_findings Findings of the last scheduled integrity sweep this server ran.\n"
      "# TYPE tarn_fsck_findings gauge\n"
      "tarn_fsck_findings " +
      std::to_string(fsck_findings_.load(std::memory_order_relaxed)) +
      "\n"
      "# HELP tarn_errors_total Error responses by error code.\n"
      "# TYPE tarn_errors_total counter\n";
  std::string housekeeping;
  {
    // Catalog::HousekeepingStepName of each step in the enum's order, which indexes
    // housekeeping_ (metrics do not include the catalog): a new step is added to both.
    static constexpr const char* kSteps[] = {"expire",  "cleanup",  "compact",
                                             "hydrate", "manifest", "flush"};
    static_assert(std::size(kSteps) == std::tuple_size_v<decltype(housekeeping_)>);
    struct Metric {
      const char* name;
      const char* help;
      uint64_t Housekeeping::*field;
    };
    static constexpr Metric kMetrics[] = {
        {"tarn_housekeeping_runs_total", "Housekeeping passes this server ran, by step.",
         &Housekeeping::runs},
        {"tarn_housekeeping_failures_total", "Housekeeping passes that could not run, by step.",
         &Housekeeping::failures},
        {"tarn_housekeeping_dataset_failures_total",
         "Datasets a housekeeping pass could not handle (audited), by step.",
         &Housekeeping::dataset_failures},
        {"tarn_housekeeping_microseconds_total", "Time spent in housekeeping passes, by step.",
         &Housekeeping::micros},
        {"tarn_housekeeping_snapshots_expired_total", "Snapshots expired by retention policies.",
         &Housekeeping::snapshots_expired},
        {"tarn_housekeeping_objects_deleted_total", "Objects housekeeping's cleanup deleted.",
         &Housekeeping::objects_deleted},
        {"tarn_housekeeping_bytes_deleted_total", "Bytes housekeeping's cleanup deleted.",
         &Housekeeping::bytes_deleted},
        {"tarn_housekeeping_files_rewritten_total", "Files housekeeping's compaction replaced.",
         &Housekeeping::files_rewritten},
        {"tarn_housekeeping_bytes_rewritten_total", "Bytes housekeeping's compaction replaced.",
         &Housekeeping::bytes_rewritten},
        {"tarn_housekeeping_files_hydrated_total",
         "Files whose deferred statistics housekeeping filled in.", &Housekeeping::files_hydrated},
        {"tarn_housekeeping_manifests_written_total",
         "Missing manifests (manifest.on_commit) housekeeping wrote.",
         &Housekeeping::manifests_written},
        {"tarn_housekeeping_files_flushed_total",
         "Inlined files housekeeping's flush wrote out to the warehouse.",
         &Housekeeping::files_flushed},
        {"tarn_housekeeping_bytes_flushed_total",
         "Bytes of inlined files housekeeping's flush wrote out to the warehouse.",
         &Housekeeping::bytes_flushed},
    };
    std::lock_guard<std::mutex> lock(housekeeping_mu_);
    for (const Metric& m : kMetrics) {
      housekeeping +=
          std::string("# HELP ") + m.name + " " + m.help + "\n# TYPE " + m.name + " counter\n";
      for (size_t i = 0; i < housekeeping_.size(); ++i) {
        housekeeping += std::string(m.name) + "{step=\"" + kSteps[i] + "\"} " +
                        std::to_string(housekeeping_[i].*m.field) + "\n";
      }
    }
  }
  {
    std::lock_guard<std::mutex> lock(errors_mu_);
    for (const auto& [code, n] : errors_) {
      out += "tarn_errors_total{code=\"" + EscapeLabel(code) + "\"} " + std::to_string(n) + "\n";
    }
  }
  out +=
      "# HELP tarn_inflight_requests Requests being served.\n"
      "# TYPE tarn_inflight_requests gauge\n"
      "tarn_inflight_requests " +
      std::to_string(inflight_.load(std::memory_order_relaxed)) + "\n";
  out += housekeeping;
  return out;
}

}  // namespace tarn::server::internal

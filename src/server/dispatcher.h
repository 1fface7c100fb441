// The job dispatcher of `tarn serve` (docs/design/views.md, "Delivery"): claims queued refresh
// jobs from the catalog (any number of servers may run one; a job is claimed once), mints a
// job token for the job's committer whose audience is the worker URL, POSTs the job to the
// worker, and records what the worker answers. Delivery failures are retried with backoff; a
// job whose runner died is taken over when its lease ends.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "tarn/status.h"
#include "tarn/view.h"

namespace tarn {
class Catalog;
namespace auth {
class TokenAuthority;
}
namespace s3 {
class HttpClient;
}
}  // namespace tarn

namespace tarn::server {

struct DispatcherOptions {
  std::string worker_url;      // where jobs are POSTed; the job token's audience, exactly
  double poll_interval_s = 1;  // how often an idle dispatcher looks for jobs (catalog's clock)
  int64_t lease_s = 900;       // a claimed job is taken over when its runner is silent this long
  std::function<void(std::string_view line)> log;  // one JSON object per line
};

// What a worker answers to a delivered job: 202 (taken; it reports the outcome itself with
// POST /v1/jobs/{id}/outcome), or 200 with the outcome {"state", "error", "result_snapshot"}.
struct WorkerAnswer {
  std::string state;
  std::string error;
  std::optional<int64_t> result_snapshot;
};
Result<WorkerAnswer> ParseWorkerAnswer(std::string_view body);

class Dispatcher {
 public:
  Dispatcher(Catalog& catalog, auth::TokenAuthority& authority, DispatcherOptions options);
  ~Dispatcher();  // stops
  void Start();
  // Stops claiming; a delivery in flight finishes (its job stays leased otherwise).
  void Stop();
  // Claims and delivers jobs until none is runnable; how many it delivered. (The thread runs
  // this every poll interval; tests call it directly.)
  int RunOnce();

 private:
  void Deliver(const JobInfo& job);
  // Reports the job's outcome as a runner would (Catalog::ReportJobOutcome).
  void Finish(const JobInfo& job, JobOutcomeReport report);
  void Log(const std::string& event, const JobInfo& job, const std::string& detail);

  Catalog& catalog_;
  auth::TokenAuthority& authority_;
  DispatcherOptions options_;
  std::unique_ptr<s3::HttpClient> http_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace tarn::server

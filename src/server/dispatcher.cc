#include "server/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "auth/auth.h"
#include "catalog/catalog.h"
#include "common/clock.h"
#include "objectstore/s3/http_client.h"

namespace tarn::server {

Result<WorkerAnswer> ParseWorkerAnswer(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("state") || !j["state"].is_string()) {
    return Status::InvalidArgument("the worker's answer is not {\"state\": ...}");
  }
  WorkerAnswer a;
  a.state = j["state"].get<std::string>();
  static const char* kStates[] = {kRefreshSucceeded, kRefreshFailed, kRefreshDenied,
                                  kRefreshEgressBlocked};
  if (std::none_of(std::begin(kStates), std::end(kStates),
                   [&](const char* s) { return a.state == s; })) {
    return Status::InvalidArgument("the worker's state '" + a.state.substr(0, 40) +
                                   "' is not one of succeeded, failed, denied, egress_blocked");
  }
  if (j.contains("error") && j["error"].is_string()) a.error = j["error"].get<std::string>();
  if (j.contains("result_snapshot") && j["result_snapshot"].is_number_integer()) {
    a.result_snapshot = j["result_snapshot"].get<int64_t>();
  }
  return a;
}

Dispatcher::Dispatcher(Catalog& catalog, auth::TokenAuthority& authority, DispatcherOptions options)
    : catalog_(catalog),
      authority_(authority),
      options_(std::move(options)),
      http_(std::make_unique<s3::HttpClient>(s3::HttpClientOptions{5000, 30, 4})) {}

Dispatcher::~Dispatcher() { Stop(); }

void Dispatcher::Start() {
  thread_ = std::thread([this] {
    auto interval = std::chrono::milliseconds(
        static_cast<int64_t>(std::max(0.01, options_.poll_interval_s) * 1e3));
    const tarn::Clock& clock = catalog_.clock();  // a test's manual clock drives the polls
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      RunOnce();
      lock.lock();
      clock.WaitUntil(lock, cv_, clock.SteadyNow() + interval, [this] { return stop_; });
    }
  });
}

void Dispatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int Dispatcher::RunOnce() {
  int delivered = 0;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_ && thread_.joinable()) break;
    }
    auto job = catalog_.ClaimJob(options_.lease_s * 1'000'000);
    if (!job.ok()) {
      Log("dispatch.claim_failed", JobInfo{}, job.status().ToString());
      break;
    }
    if (!*job) break;
    Deliver(**job);
    ++delivered;
  }
  return delivered;
}

void Dispatcher::Log(const std::string& event, const JobInfo& job, const std::string& detail) {
  if (!options_.log) return;
  nlohmann::json line = {{"type", "job"}, {"event", event}};
  if (!job.id.empty()) {
    line["job"] = job.id;
    line["target"] = job.target;
    line["attempt"] = job.attempts;
  }
  if (!detail.empty()) line["detail"] = detail;
  options_.log(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void Dispatcher::Finish(const JobInfo& job, JobOutcomeReport report) {
  // The one rule for how a job ends or waits (Catalog::ReportJobOutcome): a retry is queued
  // with backoff until the attempts run out; an end that is not a success is recorded on the
  // view too.
  auto done = catalog_.ReportJobOutcome(job.id, report);
  if (!done.ok()) {
    Log("dispatch.record_failed", job, done.status().ToString());
    return;
  }
  Log(done->state == kJobQueued ? "job.delivery_failed" : "job." + done->state, job, report.error);
}

void Dispatcher::Deliver(const JobInfo& job) {
  // The token carries the committer's rights as they are now: a revoked or deleted client's
  // job is denied here, recorded, never silent.
  // A task's run has its runs_as's rights instead, checked the same way at each delivery.
  const std::string& holder = job.runs_as.empty() ? job.fired_by : job.runs_as;
  auto token = authority_.IssueJobToken(holder, job.id, options_.worker_url, options_.lease_s);
  if (!token.ok()) {
    Finish(job,
           {token.status().kind() == ErrorKind::kPermissionDenied ? kRefreshDenied : kRefreshFailed,
            token.status().message(), std::nullopt, false});
    return;
  }
  const std::string body = nlohmann::json{{"job", job.id}}.dump();
  s3::HttpRequest req;
  req.method = "POST";
  req.url = options_.worker_url;
  req.headers = {{"Authorization", "Bearer " + token->access_token},
                 {"Content-Type", "application/json"},
                 {"Accept", "application/json"}};
  req.body = reinterpret_cast<const uint8_t*>(body.data());
  req.body_size = body.size();
  req.max_body = 1 << 20;
  req.timeout_ms = 30'000;
  Log("job.delivering", job, options_.worker_url);
  auto resp = http_->Send(req);
  Status failure;
  if (!resp.ok()) {
    failure = resp.status();
  } else if (resp->status == 202) {
    // Taken: the worker reports the outcome itself (POST /v1/jobs/{id}/outcome); until then
    // the job stays running under its lease.
    Log("job.delivered", job, options_.worker_url);
    return;
  } else if (resp->status / 100 != 2) {
    failure = Status::Unavailable("the worker answered HTTP " + std::to_string(resp->status) +
                                  ": " + resp->body.substr(0, 500));
  } else {
    auto answer = ParseWorkerAnswer(resp->body);
    if (answer.ok()) {
      Finish(job, {answer->state, answer->error, answer->result_snapshot, false});
      return;
    }
    failure = answer.status();
  }
  // Not delivered (or no answer): again later. The refresh commits with the job id as its
  // idempotency key, so a job that ran but whose answer was lost commits once however often
  // it is delivered.
  Finish(job, {kRefreshFailed, "not delivered: " + failure.ToString(), std::nullopt, true});
}

}  // namespace tarn::server

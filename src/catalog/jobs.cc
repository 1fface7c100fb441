// Trigger firing and jobs (V3; docs/design/views.md "Triggers and jobs"): after a user-created
// commit is durable, each trigger on its dataset is claimed (the firing floor) and a job
// recorded for it; runners claim jobs, leases expire, outcomes are stored. The job's work
// itself (a refresh) is the SQL engine's.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "alerts/alerts.h"
#include "catalog/access_internal.h"
#include "catalog/access_store.h"
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/views_store.h"
#include "common/random.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

bool FiringEnabled() {
  const char* v = std::getenv("TARN_TRIGGER_FIRING");
  return !(v && std::string_view(v) == "0");
}

int64_t JobTtlUs() {
  int64_t days = 14;
  if (const char* v = std::getenv("TARN_JOB_TTL_DAYS")) {
    char* end = nullptr;
    long long d = std::strtoll(v, &end, 10);
    if (end && *end == '\0' && d > 0 && d <= 3650) days = d;
  }
  return days * 86'400'000'000LL;
}

Status JobNotFound(std::string_view id) {
  std::string shown(id.substr(0, 100));
  return Status::Of(codes::kJobNotFound, "job '" + shown + "' does not exist")
      .WithField("job", shown);
}

}  // namespace

namespace catalog_internal {

bool TriggerFiringEnabled() { return FiringEnabled(); }

JobInfo NewJob(const std::string& workspace, const std::string& trigger, const std::string& target,
               const std::string& fired_by, int64_t now) {
  JobInfo job;
  job.id = "job_" + NewUuidV4();
  job.workspace = workspace;
  job.trigger = trigger;
  job.target = target;
  job.fired_by = fired_by;
  job.state = kJobQueued;
  job.created_at_us = job.updated_at_us = job.next_attempt_at_us = now;
  job.purge_at_us = now + JobTtlUs();
  return job;
}

namespace {

// One trigger.throttled record per commit: the source, and how many of its triggers held back.
AuditRecord ThrottledAudit(const std::string& source, int64_t snapshot_id, int64_t throttled,
                           const std::string& actor, int64_t now) {
  AuditRecord a;
  a.at_us = now;
  a.actor = actor;
  a.action = "trigger.throttled";
  a.target = source;
  a.workspace = source.substr(0, source.find('.'));
  a.outcome = "ok";
  a.detail_json = nlohmann::json{{"snapshot_id", snapshot_id}, {"throttled", throttled}}.dump();
  return a;
}

}  // namespace

Status FireTriggersInTx(Transaction& tx, int64_t dataset_id,
                        const std::vector<views_store::FireCandidate>& candidates,
                        const SnapshotInfo& s, const std::string& fired_by, int64_t now) {
  std::vector<AuditRecord> audit;
  TARN_ASSIGN_OR_RETURN(auto claimed, views_store::ClaimTriggers(tx, dataset_id, now));
  int64_t throttled = 0;
  for (const auto& c : candidates) {
    auto it = claimed.find(c.trigger_id);
    if (it == claimed.end()) {
      ++throttled;
      continue;
    }
    const int64_t window_from = it->second;
    // A later commit's fire may have covered this snapshot already.
    if (window_from >= s.snapshot_id) continue;
    JobInfo job = NewJob(c.workspace, c.trigger, c.target, fired_by, now);
    job.source = c.source;
    job.source_uuid = s.dataset_uuid;
    job.from_snapshot = window_from;
    job.to_snapshot = s.snapshot_id;
    if (c.view_kind == views_store::kKindTask) {
      job.kind = kJobKindTask;
      job.runs_as = c.runs_as;
      TARN_RETURN_NOT_OK(SetJobWindow(tx, c.view_id, &job));
    }
    TARN_RETURN_NOT_OK(views_store::InsertJob(tx, job));
    TARN_RETURN_NOT_OK(views_store::MarkFired(tx, c.trigger_id, s.snapshot_id, now));
    AuditRecord a;
    a.at_us = now;
    a.actor = fired_by;
    a.target = c.source + "#" + c.trigger;
    a.workspace = c.workspace;
    a.outcome = "ok";
    a.action = "trigger.fired";
    a.detail_json = nlohmann::json{
        {"job", job.id},
        {"from_snapshot", job.from_snapshot},
        {"to_snapshot", job.to_snapshot},
        {job.kind == kJobKindTask ? "task" : "view",
         job.target}}.dump();
    audit.push_back(std::move(a));
  }
  if (throttled > 0 && !candidates.empty()) {
    audit.push_back(
        ThrottledAudit(candidates.front().source, s.snapshot_id, throttled, fired_by, now));
  }
  return access_store::InsertAuditRows(tx, audit);
}

Status MarkThrottled(Transaction& tx, int64_t dataset_id, const std::string& source,
                     int64_t snapshot_id, int64_t throttled, const std::string& fired_by,
                     int64_t now) {
  TARN_RETURN_NOT_OK(views_store::MarkThrottledDeferred(tx, dataset_id));
  return access_store::InsertAuditRows(
      tx, {ThrottledAudit(source, snapshot_id, throttled, fired_by, now)});
}

void ReportFireFailure(Metastore& ms, const Clock& clock, alerts::Alerter* alerter,
                       const FireFailure& f) {
  if (alerter != nullptr) {
    alerts::Alert alert;
    alert.code = "trigger_fire_failed";
    alert.severity = alerts::Severity::kError;
    alert.object = f.dataset;
    alert.summary =
        "a commit to " + f.dataset + " could not record its trigger fires: " + f.error.message();
    alert.detail = {{"snapshot_id", std::to_string(f.snapshot_id)},
                    {"fired_by", f.fired_by},
                    {"error", f.error.ToString()}};
    alerter->Raise(alert);
  }
  AuditRecord a;
  a.actor = f.fired_by;
  a.action = "trigger.fire_failed";
  a.target = f.dataset;
  a.workspace = f.dataset.substr(0, f.dataset.find('.'));
  a.outcome = "error";
  a.detail_json =
      nlohmann::json{{"snapshot_id", f.snapshot_id}, {"error", f.error.ToString()}}.dump();
  Status st = ms.RunInTransaction(
      [&](Transaction& tx) -> Status { return InsertAuditRecord(tx, a, clock); });
  if (!st.ok()) {
    std::cerr << nlohmann::json{{"level", "error"},
                                {"event", "audit.write_failed"},
                                {"error", st.ToString()}}
                     .dump()
              << "\n";
  }
}

}  // namespace catalog_internal

Result<std::vector<JobInfo>> Catalog::ListJobs(const JobQuery& query) {
  if (query.limit < 1 || query.limit > 10000) {
    return Status::InvalidArgument("a job list's limit is 1 to 10000");
  }
  if (!query.target.empty()) TARN_RETURN_NOT_OK(ParseDatasetName(query.target).status());
  static const std::set<std::string> kStates = {"",
                                                kJobQueued,
                                                kJobRunning,
                                                kRefreshSucceeded,
                                                kRefreshFailed,
                                                kRefreshDenied,
                                                kRefreshEgressBlocked};
  if (!kStates.count(query.state)) {
    return Status::InvalidArgument("job state '" + query.state.substr(0, 40) +
                                   "' is not one of queued, running, succeeded, failed, denied, "
                                   "egress_blocked");
  }
  std::vector<JobInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out, views_store::ListJobs(tx, query));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<JobInfo> Catalog::GetJob(std::string_view id) {
  std::optional<JobInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out, views_store::LoadJob(tx, id));
        return Status::OK();
      },
      TxMode::kReadOnly));
  if (!out) return JobNotFound(id);
  return std::move(*out);
}

Result<JobInfo> Catalog::RetryJob(std::string_view id) {
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto job, views_store::LoadJob(tx, id));
    if (!job) return JobNotFound(id);
    if (job->state == kJobQueued || job->state == kJobRunning || job->state == kRefreshSucceeded) {
      return Status::Of(codes::kJobNotRetryable,
                        "job '" + job->id + "' is " + job->state +
                            "; only a job that ended "
                            "failed, denied or egress_blocked is queued again")
          .WithField("job", job->id)
          .WithField("state", job->state);
    }
    const int64_t now = clock_->NowMicros();
    return views_store::FinishJob(tx, id, kJobQueued, job->error, std::nullopt, now, now);
  }));
  return GetJob(id);
}

Result<JobInfo> Catalog::ReportJobOutcome(std::string_view id, const JobOutcomeReport& report) {
  static const std::set<std::string> kEnds = {kRefreshSucceeded, kRefreshFailed, kRefreshDenied,
                                              kRefreshEgressBlocked};
  if (!kEnds.count(report.state)) {
    return Status::InvalidArgument("a job ends succeeded, failed, denied or egress_blocked, not '" +
                                   report.state.substr(0, 40) + "'");
  }
  if (report.error.size() > 8192) return Status::InvalidArgument("a job's error is too long");
  TARN_ASSIGN_OR_RETURN(auto job, GetJob(id));
  if (job.state != kJobRunning) return job;  // already ended (a late or repeated report)
  // A transient failure (or a delivery that did not happen) waits: 2 s doubling per attempt,
  // at most 5 minutes, until the 8th attempt, which ends the job.
  constexpr int kMaxAttempts = 8;
  if (report.retry && job.attempts < kMaxAttempts) {
    const int64_t backoff_us = std::min<int64_t>(
        int64_t{2'000'000} << std::min<int64_t>(std::max<int64_t>(job.attempts - 1, 0), 20),
        300'000'000);
    TARN_RETURN_NOT_OK(
        CompleteJob(id, kJobQueued, report.error, std::nullopt, clock_->NowMicros() + backoff_us));
    return GetJob(id);
  }
  TARN_RETURN_NOT_OK(CompleteJob(id, report.state, report.error, report.result_snapshot));
  if (report.state != kRefreshSucceeded) {
    // The runner may lack the rights to record it on the view (denied): the catalog does.
    RefreshRecord record;
    record.status = report.state;
    record.job_id = job.id;
    record.error = report.error;
    Status recorded = job.kind == kJobKindTask ? RecordTaskRun(job.target, record)
                                               : RecordRefresh(job.target, record);
    if (!recorded.ok() && !recorded.Is(codes::kMaterializedViewNotFound) &&
        !recorded.Is(codes::kTaskNotFound)) {
      return recorded;
    }
  }
  return GetJob(id);
}

Result<std::optional<JobInfo>> Catalog::ClaimJob(int64_t lease_us) {
  std::optional<JobInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(
        out, views_store::ClaimJob(tx, metastore_->backend(), clock_->NowMicros(), lease_us));
    return Status::OK();
  }));
  return out;
}

Status Catalog::CompleteJob(std::string_view id, std::string_view state, std::string_view error,
                            std::optional<int64_t> result_snapshot,
                            std::optional<int64_t> retry_at_us) {
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto job, views_store::LoadJob(tx, id));
    if (!job) return JobNotFound(id);
    const int64_t now = clock_->NowMicros();
    if (retry_at_us) {
      return views_store::FinishJob(tx, id, kJobQueued, error, result_snapshot, *retry_at_us, now);
    }
    return views_store::FinishJob(tx, id, state, error, result_snapshot, job->next_attempt_at_us,
                                  now);
  });
}

Result<int64_t> Catalog::PurgeJobs() {
  int64_t n = 0;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(n, views_store::PurgeJobs(tx, clock_->NowMicros()));
    return Status::OK();
  }));
  return n;
}

}  // namespace tarn

// Alerts for platform inconsistencies: a commit without a receipt, a failed trigger fire, an
// egress-blocked refresh, a finding of the integrity sweep. Never for caller errors. An alert
// is delivered to its sinks (a JSON line on stdout, always synchronous; a webhook POST, from a
// background thread) at most once per cool-off per fingerprint, and the cool-off is shared by
// every process on one metastore (table `alerts`, migration 11, store.cc). See README.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "metastore/metastore.h"
#include "tarn/alert.h"
#include "tarn/status.h"

namespace tarn::alerts {

enum class Severity { kWarning = 0, kError = 1, kCritical = 2 };
// "WARNING", "ERROR", "CRITICAL".
std::string_view SeverityName(Severity severity);
// The inverse of SeverityName, case-insensitive; anything else is kInvalidArgument.
Result<Severity> ParseSeverity(std::string_view name);

// One raise of an alert.
struct Alert {
  std::string code;  // stable snake_case: receipt_missing, trigger_fire_failed, egress_blocked, ...
  Severity severity = Severity::kError;
  std::string object;   // the catalog object concerned ("w.c.d"), may be empty
  std::string summary;  // one line for a person
  std::map<std::string, std::string> detail;  // extra fields (snapshot_id, error, ...)
  // What makes two raises the same failure; empty = code + "\n" + object.
  std::string identity;
};

// The process's alert stream, the default of AlertsConfig::stream (initially stdout).
std::FILE* DefaultStream();
void SetDefaultStream(std::FILE* stream);

struct AlertsConfig {
  // TARN_ALERTS_ENABLED: only an explicit false/0/off/no (any case) disables.
  bool enabled = true;
  // TARN_ALERTS_SINK: a comma list of stdout, webhook; "none" = no sink.
  std::vector<std::string> sinks{"stdout"};
  // TARN_ALERTS_COMPONENT, salted into the fingerprint: changing it gives every failure a new
  // identity (and re-alerts each once).
  std::string component = "tarn";
  std::string environment;                     // TARN_ALERTS_ENVIRONMENT
  int64_t cooloff_us = 24LL * 3600 * 1000000;  // TARN_ALERTS_COOLOFF_HOURS (decimal, >= 0)
  // TARN_ALERTS_WEBHOOK_URL, http(s); required when the webhook sink is on. A secret (chat
  // webhooks carry their token in it): never printed, and redacted from delivery errors.
  std::string webhook_url;
  Severity min_severity = Severity::kError;  // TARN_ALERTS_MIN_SEVERITY: webhook gate only
  // Where the "stdout" sink writes: DefaultStream() (stdout unless the process chose otherwise:
  // CLI commands, whose stdout is their answer, write alerts to stderr; `tarn serve` to stdout).
  std::FILE* stream = DefaultStream();

  // Not read from the environment (tests and tuning): the webhook's queue bound, the backoff
  // before each retry (attempts = retries + 1) and the timeout of one attempt.
  size_t webhook_queue = 256;
  std::vector<int> webhook_backoff_ms{500, 2000};
  int webhook_timeout_ms = 5000;

  // Reads the TARN_ALERTS_* variables through `getenv` (unset or empty: the default); a
  // malformed value is kInvalidArgument naming the variable (unknown sink, bad number, bad
  // severity, webhook without URL, URL not http(s)).
  static Result<AlertsConfig> FromEnvironment(
      const std::function<const char*(const char*)>& getenv = [](const char* n) {
        return std::getenv(n);
      });

  bool has_sink(std::string_view sink) const;
};

// The rows of the shared table `alerts` and their filter are the SDK's (tarn/alert.h).
using ::tarn::AlertQuery;
using ::tarn::AlertRecord;

// Raises alerts. Thread-safe. Never call Raise from inside a metastore transaction (it runs
// one of its own).
class Alerter {
 public:
  // `ms` may be null (the cool-off is then kept in this process only); `clock` null is the
  // real clock. Both must outlive the Alerter. Does no I/O; starts the webhook thread when
  // the webhook sink is on.
  Alerter(Metastore* ms, const Clock* clock, AlertsConfig config);
  // Waits at most ~2 s for queued webhook deliveries, then drops them (webhook_dropped()).
  ~Alerter();
  Alerter(const Alerter&) = delete;
  Alerter& operator=(const Alerter&) = delete;

  // Never fails, never throws, never waits for the webhook. Returns true when the alert was
  // delivered to the sinks (false: disabled, or a known fingerprint inside its cool-off).
  // Decides with one upsert on the metastore (atomic across processes); when that fails (the
  // failure may be the metastore's own), decides with an in-process cool-off and still
  // delivers. The stdout line is written and flushed before Raise returns.
  bool Raise(const Alert& alert);
  // 32 lower-case hex digits of SHA-256(component \n code \n identity-or-(code \n object)):
  // stable across processes and versions.
  std::string Fingerprint(const Alert& alert) const;
  // Tests: waits until every queued webhook delivery is done (delivered, failed or dropped).
  void Flush();
  const AlertsConfig& config() const { return config_; }

  // Webhook counters: POSTs answered 2xx; deliveries given up after their attempts (or
  // refused with a 4xx); alerts not queued because the queue was full, or dropped at shutdown.
  int64_t webhook_delivered() const;
  int64_t webhook_failed() const;
  int64_t webhook_dropped() const;
  // Raises whose metastore statement failed and were decided in-process instead.
  int64_t metastore_fallbacks() const { return fallbacks_.load(); }

 private:
  struct Webhook;  // the queue and thread of the webhook sink, shared with that thread
  struct Decision {
    bool deliver = false;
    int64_t count = 0;  // raises of the fingerprint so far
  };

  Decision Decide(const Alert& alert, const std::string& fingerprint, int64_t now_us);
  Decision DecideLocally(const std::string& fingerprint, int64_t now_us);
  std::string Render(const Alert& alert, const std::string& fingerprint, int64_t now_us,
                     int64_t count) const;

  Metastore* const ms_;
  const Clock* const clock_;
  const AlertsConfig config_;
  const bool stdout_sink_, webhook_sink_;
  std::shared_ptr<Webhook> webhook_;  // null without the webhook sink
  std::atomic<int64_t> fallbacks_{0};

  struct Local {
    int64_t last_delivered_us = 0;
    int64_t count = 0;
  };
  std::mutex local_mu_;
  std::unordered_map<std::string, Local> local_;  // the in-process cool-off, by fingerprint
};

// The rows of the `alerts` table, newest first (by last_raised_at), at most query.limit
// (1..10000, else kInvalidArgument); with query.workspace, only rows whose object is that
// workspace or inside it. Metastore errors as the metastore returns them.
Result<std::vector<AlertRecord>> ListAlerts(Metastore& ms, const AlertQuery& query);

}  // namespace tarn::alerts

// The Alerter: configuration, fingerprints, the cool-off decision (store.cc, or in-process when
// the metastore is absent or failing), the stdout line and the webhook thread.
#include "alerts/alerts.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>

#include "alerts/store.h"
#include "common/bounded_queue.h"
#include "common/digest.h"
#include "common/discard.h"
#include "common/hex.h"
#include "common/text.h"
#include "objectstore/s3/http_client.h"

namespace tarn::alerts {

namespace {
std::atomic<std::FILE*> default_stream{stdout};
}  // namespace

std::FILE* DefaultStream() { return default_stream.load(); }
void SetDefaultStream(std::FILE* stream) { default_stream.store(stream); }

namespace {

constexpr auto kReplace = nlohmann::json::error_handler_t::replace;
// How long ~Alerter waits for queued webhook deliveries.
constexpr auto kShutdownWait = std::chrono::seconds(2);
// Entries of the in-process cool-off beyond which expired ones are forgotten.
constexpr size_t kLocalPruneAt = 4096;

std::string Lower(std::string_view s) { return AsciiLower(s); }
std::string_view Trim(std::string_view s) { return TrimSpace(s); }

bool HasControl(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// A value quoted in an error message, cut short.
std::string Quoted(std::string_view s) {
  constexpr size_t kMax = 64;
  return "'" + std::string(s.substr(0, kMax)) + (s.size() > kMax ? "...'" : "'");
}

// A number of hours: digits, optionally a '.' and more digits; 0 or more.
Result<int64_t> ParseHours(std::string_view v) {
  auto bad = [&] {
    return Status::InvalidArgument("TARN_ALERTS_COOLOFF_HOURS: " + Quoted(v) +
                                   " is not a number of hours >= 0 (like 24 or 0.5)");
  };
  size_t dot = v.find('.');
  std::string_view whole = v.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? "" : v.substr(dot + 1);
  auto digits = [](std::string_view d) {
    return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(whole) || !digits(frac) || (whole.empty() && frac.empty()) ||
      (dot != std::string_view::npos && frac.empty())) {
    return bad();
  }
  double hours = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), hours);
  if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(hours)) return bad();
  double us = hours * 3600e6;
  if (us >= 9e18) {
    return Status::InvalidArgument("TARN_ALERTS_COOLOFF_HOURS: " + Quoted(v) + " is too long");
  }
  return static_cast<int64_t>(std::llround(us));
}

bool IsHttpUrl(std::string_view url) {
  std::string lower = Lower(url.substr(0, 8));
  size_t scheme = lower.rfind("http://", 0) == 0 ? 7 : lower.rfind("https://", 0) == 0 ? 8 : 0;
  if (scheme == 0 || url.size() <= scheme || url[scheme] == '/') return false;
  return !HasControl(url) && url.find(' ') == std::string_view::npos;
}

// RFC 3339 in UTC with microseconds: 2024-05-01T12:34:56.123456Z.
std::string Rfc3339Micros(int64_t us) {
  int64_t secs = us / 1'000'000, frac = us % 1'000'000;
  if (frac < 0) {
    frac += 1'000'000;
    --secs;
  }
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(frac));
  return buf;
}

std::string DetailJson(const std::map<std::string, std::string>& detail) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [k, v] : detail) j[k] = v;
  return j.dump(-1, ' ', false, kReplace);
}

}  // namespace

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kWarning:
      return "WARNING";
    case Severity::kError:
      return "ERROR";
    case Severity::kCritical:
      return "CRITICAL";
  }
  return "ERROR";
}

Result<Severity> ParseSeverity(std::string_view name) {
  std::string lower = Lower(name);
  for (Severity s : {Severity::kWarning, Severity::kError, Severity::kCritical}) {
    if (lower == Lower(SeverityName(s))) return s;
  }
  return Status::InvalidArgument("unknown severity " + Quoted(name) +
                                 " (expected WARNING, ERROR or CRITICAL)");
}

bool AlertsConfig::has_sink(std::string_view sink) const {
  return std::find(sinks.begin(), sinks.end(), sink) != sinks.end();
}

Result<AlertsConfig> AlertsConfig::FromEnvironment(
    const std::function<const char*(const char*)>& getenv) {
  AlertsConfig c;
  auto get = [&](const char* name) -> std::string_view {
    const char* v = getenv(name);
    return v ? std::string_view(v) : std::string_view();
  };

  if (auto v = Lower(Trim(get("TARN_ALERTS_ENABLED")));
      v == "false" || v == "0" || v == "off" || v == "no") {
    c.enabled = false;
  }

  if (auto v = Trim(get("TARN_ALERTS_SINK")); !v.empty()) {
    c.sinks.clear();
    bool none = false;
    size_t items = 0;
    while (true) {
      size_t comma = v.find(',');
      std::string item = Lower(Trim(v.substr(0, comma)));
      if (!item.empty()) {
        ++items;
        if (item == "none") {
          none = true;
        } else if (item == "stdout" || item == "webhook") {
          if (!c.has_sink(item)) c.sinks.push_back(item);
        } else {
          return Status::InvalidArgument("TARN_ALERTS_SINK: unknown sink " + Quoted(item) +
                                         " (expected a comma list of stdout, webhook; or none)");
        }
      }
      if (comma == std::string_view::npos) break;
      v.remove_prefix(comma + 1);
    }
    if (items == 0 || (none && items > 1)) {
      return Status::InvalidArgument(
          "TARN_ALERTS_SINK: expected a comma list of stdout, webhook; or none alone");
    }
  }

  if (auto v = get("TARN_ALERTS_COMPONENT"); !v.empty()) {
    if (HasControl(v)) {
      return Status::InvalidArgument("TARN_ALERTS_COMPONENT: has a control character");
    }
    c.component = std::string(v);
  }
  if (auto v = get("TARN_ALERTS_ENVIRONMENT"); !v.empty()) {
    if (HasControl(v)) {
      return Status::InvalidArgument("TARN_ALERTS_ENVIRONMENT: has a control character");
    }
    c.environment = std::string(v);
  }

  if (auto v = Trim(get("TARN_ALERTS_COOLOFF_HOURS")); !v.empty()) {
    TARN_ASSIGN_OR_RETURN(c.cooloff_us, ParseHours(v));
  }

  // The URL is a secret: never quoted in an error.
  if (auto v = Trim(get("TARN_ALERTS_WEBHOOK_URL")); !v.empty()) {
    if (!IsHttpUrl(v)) {
      return Status::InvalidArgument(
          "TARN_ALERTS_WEBHOOK_URL: must be an http:// or https:// URL with a host");
    }
    c.webhook_url = std::string(v);
  }
  if (c.has_sink("webhook") && c.webhook_url.empty()) {
    return Status::InvalidArgument(
        "TARN_ALERTS_WEBHOOK_URL: required by the webhook sink (TARN_ALERTS_SINK)");
  }

  if (auto v = Trim(get("TARN_ALERTS_MIN_SEVERITY")); !v.empty()) {
    auto s = ParseSeverity(v);
    if (!s.ok()) return s.status().WithContext("TARN_ALERTS_MIN_SEVERITY");
    c.min_severity = *s;
  }
  return c;
}

// ---- the webhook sink ----

// The queue between Raise (any thread; they push one at a time under `mu`) and the one
// delivery thread, the HTTP client and the counters. Shared with that thread, which may
// outlive the Alerter by one attempt at most (detached at shutdown while a POST is in flight).
struct Alerter::Webhook {
  explicit Webhook(const AlertsConfig& c)
      : url(c.webhook_url),
        backoff_ms(c.webhook_backoff_ms),
        timeout_ms(std::max(1, c.webhook_timeout_ms)),
        capacity(c.webhook_queue),
        queue(std::numeric_limits<int64_t>::max(), std::max<size_t>(1, c.webhook_queue)),
        http(s3::HttpClientOptions{.connect_timeout_ms = timeout_ms,
                                   .low_speed_timeout_s = std::max(1, timeout_ms / 1000),
                                   .max_idle_connections = 1}) {}

  // Queues a delivery; false (counted as dropped) when the queue is full. Never waits: at most
  // `capacity` items are queued and only this function pushes, under `mu`.
  bool Enqueue(std::string body) {
    std::lock_guard<std::mutex> lock(mu);
    size_t queued = pending - (in_flight ? 1 : 0);
    if (stop || queued >= capacity) {
      ++dropped;
      return false;
    }
    // Push fails only once the delivery thread has cancelled the queue (it stopped): the body
    // is then dropped like one over capacity.
    ++pending;
    if (!queue.Push(std::move(body), 1)) {
      --pending;
      ++dropped;
      return false;
    }
    return true;
  }

  static void Run(const std::shared_ptr<Webhook>& self) { self->Loop(); }

  void Loop() {
    while (true) {
      auto item = queue.Pop();
      if (!item.ok() || !item->has_value()) return;  // cancelled, or finished and drained
      {
        std::lock_guard<std::mutex> lock(mu);
        if (stop) return;  // shutdown counted it as dropped
        in_flight = true;
      }
      bool ok = Deliver(**item);
      std::lock_guard<std::mutex> lock(mu);
      in_flight = false;
      --pending;
      ++(ok ? delivered : failed);
      cv.notify_all();
    }
  }

  // One POST with its retries: connection errors, 5xx and 429 are retried after the backoff;
  // other answers are final. True on a 2xx.
  bool Deliver(const std::string& body) {
    for (size_t attempt = 0;; ++attempt) {
      s3::HttpRequest req;
      req.method = "POST";
      req.url = url;
      req.headers = {{"Content-Type", "application/json"}, {"User-Agent", "tarn-alerts"}};
      req.body = reinterpret_cast<const uint8_t*>(body.data());
      req.body_size = body.size();
      req.max_body = 1 << 20;
      req.timeout_ms = timeout_ms;
      auto res = http.Send(req);
      bool retry;
      Status error;
      if (res.ok()) {
        if (res->status >= 200 && res->status < 300) return true;
        retry = res->status >= 500 || res->status == 429;
        error = Status::Unavailable("the webhook answered HTTP " + std::to_string(res->status));
      } else {
        retry = res.status().kind() == ErrorKind::kUnavailable;
        error = Redacted(res.status());
      }
      if (!retry || attempt >= backoff_ms.size()) {
        DiscardError(error, "delivering an alert to the webhook (attempt " +
                                std::to_string(attempt + 1) + ", given up)");
        return false;
      }
      std::unique_lock<std::mutex> lock(mu);
      const Clock& clock = *Clock::Real();
      if (clock.WaitUntil(lock, cv,
                          clock.SteadyNow() + std::chrono::milliseconds(backoff_ms[attempt]),
                          [&] { return stop; })) {
        return false;  // shutting down
      }
    }
  }

  // The HTTP client's errors name the URL, which holds the webhook's secret.
  Status Redacted(const Status& st) const {
    std::string msg = st.message();
    for (size_t at; !url.empty() && (at = msg.find(url)) != std::string::npos;) {
      msg.replace(at, url.size(), "<webhook>");
    }
    return Status(st.kind(), std::move(msg));
  }

  // ~Alerter: lets the queue drain for up to kShutdownWait, then drops what is left; the
  // thread is joined, or detached when a POST is still in flight (it ends after that attempt).
  void Shutdown() {
    queue.Finish();
    std::unique_lock<std::mutex> lock(mu);
    const Clock& clock = *Clock::Real();
    bool drained =
        clock.WaitUntil(lock, cv, clock.SteadyNow() + kShutdownWait, [&] { return pending == 0; });
    bool detach = false;
    if (!drained) {
      stop = true;
      size_t queued = pending - (in_flight ? 1 : 0);
      dropped += static_cast<int64_t>(queued);
      pending -= queued;
      detach = in_flight;
      cv.notify_all();
    }
    lock.unlock();
    queue.Cancel();
    if (detach) {
      thread.detach();
    } else {
      thread.join();
    }
  }

  const std::string url;
  const std::vector<int> backoff_ms;
  const int timeout_ms;
  const size_t capacity;
  BoundedQueue<std::string> queue;
  s3::HttpClient http;
  std::thread thread;

  std::mutex mu;
  std::condition_variable cv;  // pending or stop changed
  size_t pending = 0;          // queued + in flight
  bool in_flight = false, stop = false;
  int64_t delivered = 0, failed = 0, dropped = 0;
};

// ---- the Alerter ----

Alerter::Alerter(Metastore* ms, const Clock* clock, AlertsConfig config)
    : ms_(ms),
      clock_(clock ? clock : Clock::Real().get()),
      config_(std::move(config)),
      stdout_sink_(config_.has_sink("stdout") && config_.stream != nullptr),
      webhook_sink_(config_.has_sink("webhook") && !config_.webhook_url.empty()) {
  if (config_.enabled && webhook_sink_) {
    webhook_ = std::make_shared<Webhook>(config_);
    webhook_->thread = std::thread(&Webhook::Run, webhook_);
  }
}

Alerter::~Alerter() {
  if (webhook_) webhook_->Shutdown();
}

std::string Alerter::Fingerprint(const Alert& alert) const {
  std::string text = config_.component + "\n" + alert.code + "\n" +
                     (alert.identity.empty() ? alert.code + "\n" + alert.object : alert.identity);
  return HexEncode(Sha256(text)).substr(0, 32);
}

Alerter::Decision Alerter::DecideLocally(const std::string& fingerprint, int64_t now_us) {
  std::lock_guard<std::mutex> lock(local_mu_);
  if (local_.size() >= kLocalPruneAt) {
    for (auto it = local_.begin(); it != local_.end();) {
      it = it->second.last_delivered_us <= now_us - config_.cooloff_us ? local_.erase(it)
                                                                       : std::next(it);
    }
  }
  auto [it, fresh] = local_.try_emplace(fingerprint);
  Local& e = it->second;
  ++e.count;
  Decision d{fresh || e.last_delivered_us <= now_us - config_.cooloff_us, e.count};
  if (d.deliver) e.last_delivered_us = now_us;
  return d;
}

Alerter::Decision Alerter::Decide(const Alert& alert, const std::string& fingerprint,
                                  int64_t now_us) {
  if (ms_ != nullptr) {
    store::RaiseRow row{fingerprint,
                        alert.code,
                        std::string(SeverityName(alert.severity)),
                        alert.object,
                        alert.summary,
                        config_.component,
                        config_.environment,
                        DetailJson(alert.detail)};
    auto r = store::RecordRaise(*ms_, row, now_us, config_.cooloff_us);
    if (r.ok()) return {r->delivered, r->count};
    ++fallbacks_;
    DiscardError(r.status(), "recording alert " + alert.code + " " + fingerprint +
                                 " in the metastore (its cool-off decided in this process)");
  }
  return DecideLocally(fingerprint, now_us);
}

std::string Alerter::Render(const Alert& alert, const std::string& fingerprint, int64_t now_us,
                            int64_t count) const {
  nlohmann::ordered_json detail = nlohmann::ordered_json::object();
  for (const auto& [k, v] : alert.detail) detail[k] = v;
  nlohmann::ordered_json line = {{"severity", SeverityName(alert.severity)},
                                 {"message", alert.summary.empty() ? alert.code : alert.summary},
                                 {"time", Rfc3339Micros(now_us)},
                                 {"alert",
                                  {{"code", alert.code},
                                   {"fingerprint", fingerprint},
                                   {"component", config_.component},
                                   {"environment", config_.environment},
                                   {"object", alert.object},
                                   {"count", count},
                                   {"detail", std::move(detail)}}}};
  return line.dump(-1, ' ', false, kReplace);
}

bool Alerter::Raise(const Alert& alert) {
  if (!config_.enabled) return false;
  try {
    const int64_t now = clock_->NowMicros();
    const std::string fingerprint = Fingerprint(alert);
    Decision d = Decide(alert, fingerprint, now);
    if (!d.deliver) return false;
    std::string line = Render(alert, fingerprint, now, d.count);
    if (stdout_sink_) {
      line += '\n';
      std::fwrite(line.data(), 1, line.size(), config_.stream);
      std::fflush(config_.stream);
      line.pop_back();
    }
    if (webhook_ && alert.severity >= config_.min_severity) webhook_->Enqueue(std::move(line));
    return true;
  } catch (...) {
    return false;  // out of memory, most likely: nothing more to do
  }
}

void Alerter::Flush() {
  if (!webhook_) return;
  std::unique_lock<std::mutex> lock(webhook_->mu);
  webhook_->cv.wait(lock, [&] { return webhook_->pending == 0; });
}

int64_t Alerter::webhook_delivered() const {
  if (!webhook_) return 0;
  std::lock_guard<std::mutex> lock(webhook_->mu);
  return webhook_->delivered;
}

int64_t Alerter::webhook_failed() const {
  if (!webhook_) return 0;
  std::lock_guard<std::mutex> lock(webhook_->mu);
  return webhook_->failed;
}

int64_t Alerter::webhook_dropped() const {
  if (!webhook_) return 0;
  std::lock_guard<std::mutex> lock(webhook_->mu);
  return webhook_->dropped;
}

}  // namespace tarn::alerts

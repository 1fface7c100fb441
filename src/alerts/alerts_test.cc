// The alerts module: configuration, fingerprints, the stdout line, the cool-off shared through
// the metastore (SQLite files opened several times and forked processes; PostgreSQL when
// $TARN_TEST_PG_URI is set), its in-process fallback, and the webhook sink against a local
// cpp-httplib server on 127.0.0.1 (answers, retries, a server that never answers, a closed
// port, a full queue).
#include "alerts/alerts.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "alerts/store.h"
#include "common/discard.h"
#include "common/test_util.h"
#include "metastore/fault/fault_metastore.h"
#include "metastore/test_util.h"

namespace tarn::alerts {
namespace {

using nlohmann::json;

constexpr int64_t kHour = 3600LL * 1000000;
constexpr int64_t kStart = 1700000000123456;  // 2023-11-14T22:13:20.123456Z

// ---- helpers ----

using Env = std::map<std::string, std::string>;

Result<AlertsConfig> FromEnv(const Env& env) {
  return AlertsConfig::FromEnvironment([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

// A stream the stdout sink writes to, read back without moving its position.
class Capture {
 public:
  Capture() : f_(std::tmpfile()) {}
  ~Capture() { std::fclose(f_); }
  std::FILE* stream() const { return f_; }
  std::string Text() const {
    std::fflush(f_);
    struct stat st {};
    ::fstat(::fileno(f_), &st);
    std::string out(static_cast<size_t>(st.st_size), '\0');
    ssize_t n = ::pread(::fileno(f_), out.data(), out.size(), 0);
    out.resize(n < 0 ? 0 : static_cast<size_t>(n));
    return out;
  }
  std::vector<std::string> Lines() const {
    std::vector<std::string> lines;
    std::string text = Text();
    for (size_t at = 0; at < text.size();) {
      size_t nl = text.find('\n', at);
      EXPECT_NE(nl, std::string::npos) << "the last line has no newline";
      if (nl == std::string::npos) nl = text.size();
      lines.push_back(text.substr(at, nl - at));
      at = nl + 1;
    }
    return lines;
  }

 private:
  std::FILE* f_;
};

AlertsConfig StdoutConfig(const Capture& out, int64_t cooloff_us = 24 * kHour) {
  AlertsConfig c;
  c.stream = out.stream();
  c.cooloff_us = cooloff_us;
  return c;
}

Alert MakeAlert(std::string code = "receipt_missing", std::string object = "acme.sales.orders") {
  Alert a;
  a.code = std::move(code);
  a.object = std::move(object);
  a.summary = "commit without a receipt";
  a.detail = {{"snapshot_id", "7"}};
  return a;
}

// Every error DiscardError drops while it lives.
class DiscardLog {
 public:
  DiscardLog() {
    previous_ = SetDiscardSink([this](const Status& st, std::string_view what) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(std::string(what) + ": " + st.ToString());
    });
  }
  ~DiscardLog() { SetDiscardSink(previous_); }
  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }

 private:
  DiscardSink previous_;
  std::mutex mu_;
  std::vector<std::string> lines_;
};

// A SQLite file or a PostgreSQL schema of its own for the running test, opened as often as
// asked (several handles = several servers).
class Database {
 public:
  // "sqlite" or "postgres"; false from ok() when PostgreSQL is not configured.
  explicit Database(const std::string& backend) {
    if (backend == "sqlite") {
      dir_ = testing_util::ScratchDir() /
             ("tarn-alerts-" + std::to_string(::getpid()) + "-" + testing_util::TestName());
      std::filesystem::remove_all(dir_);
      std::filesystem::create_directories(dir_);
      uri_ = (dir_ / "catalog.db").string();
      return;
    }
    const char* base = testing_util::PgBaseUri();
    if (!base) return;
    std::string schema = "a_" + testing_util::TestName();
    testing_util::PgExec(base,
                         "DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema);
    std::string b = base;
    uri_ = b + (b.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
  }
  ~Database() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  bool ok() const { return !uri_.empty(); }
  const std::string& uri() const { return uri_; }
  std::unique_ptr<Metastore> Open() const {
    auto ms = Metastore::Open(uri_);
    EXPECT_TRUE(ms.ok()) << ms.status().ToString();
    return ms.ok() ? std::move(*ms) : nullptr;
  }

 private:
  std::filesystem::path dir_;
  std::string uri_;
};

// A webhook on 127.0.0.1 (an ephemeral port): records every POST body and answers with
// answer(n) for the n-th request (1-based). When made with `blocked`, every handler waits until
// Release().
class WebhookServer {
 public:
  explicit WebhookServer(
      std::function<int(int)> answer = [](int) { return 200; }, bool blocked = false)
      : answer_(std::move(answer)), gate_(release_.get_future().share()) {
    if (!blocked) Release();
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      int n;
      {
        std::lock_guard<std::mutex> lock(mu_);
        bodies_.push_back(req.body);
        n = static_cast<int>(bodies_.size());
        cv_.notify_all();
      }
      gate_.wait();
      res.status = answer_(n);
      res.set_content("{}", "application/json");
    });
    server_.set_keep_alive_max_count(1);  // no idle connection keeps stop() waiting
    port_ = server_.bind_to_any_port("127.0.0.1");
    EXPECT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    EXPECT_TRUE(testing_util::Eventually([&] { return server_.is_running(); }));
  }
  ~WebhookServer() {
    Release();
    server_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!released_) release_.set_value();
    released_ = true;
  }
  bool released() {
    std::lock_guard<std::mutex> lock(mu_);
    return released_;
  }
  // Waits (no deadline: a hang is the test's failure) until `n` requests arrived.
  void WaitForRequests(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return bodies_.size() >= n; });
  }
  std::vector<std::string> bodies() {
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_;
  }

 private:
  std::function<int(int)> answer_;
  std::promise<void> release_;
  std::shared_future<void> gate_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> bodies_;
  bool released_ = false;
};

AlertsConfig WebhookConfig(const Capture& out, const std::string& url) {
  AlertsConfig c = StdoutConfig(out);
  c.sinks = {"stdout", "webhook"};
  c.webhook_url = url;
  c.webhook_backoff_ms = {1, 1};
  c.webhook_timeout_ms = 60000;  // tests that block the server release it well before
  return c;
}

// The fingerprints of the POST bodies, with how many POSTs each got.
std::map<std::string, int> PostsByFingerprint(const std::vector<std::string>& bodies) {
  std::map<std::string, int> out;
  for (const auto& b : bodies)
    ++out[json::parse(b).at("alert").at("fingerprint").get<std::string>()];
  return out;
}

AlertQuery Query(int64_t since_us, std::string code, size_t limit = 100) {
  AlertQuery q;
  q.since_us = since_us;
  q.code = std::move(code);
  q.limit = limit;
  return q;
}

// ---- severity and configuration ----

TEST(Severity, NamesRoundTripCaseInsensitively) {
  for (Severity s : {Severity::kWarning, Severity::kError, Severity::kCritical}) {
    auto parsed = ParseSeverity(SeverityName(s));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, s);
  }
  EXPECT_EQ(SeverityName(Severity::kCritical), "CRITICAL");
  EXPECT_EQ(*ParseSeverity("warning"), Severity::kWarning);
  EXPECT_EQ(*ParseSeverity("Critical"), Severity::kCritical);
  for (const char* bad : {"", "info", "ERRORS", " error"}) {
    auto r = ParseSeverity(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  }
}

TEST(Config, Defaults) {
  auto c = FromEnv({});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->enabled);
  EXPECT_EQ(c->sinks, std::vector<std::string>{"stdout"});
  EXPECT_EQ(c->component, "tarn");
  EXPECT_EQ(c->environment, "");
  EXPECT_EQ(c->cooloff_us, 24 * kHour);
  EXPECT_EQ(c->webhook_url, "");
  EXPECT_EQ(c->min_severity, Severity::kError);
  EXPECT_EQ(c->stream, stdout);
  // Empty values are unset ones.
  auto empty = FromEnv({{"TARN_ALERTS_SINK", ""},
                        {"TARN_ALERTS_COOLOFF_HOURS", ""},
                        {"TARN_ALERTS_COMPONENT", ""},
                        {"TARN_ALERTS_MIN_SEVERITY", ""}});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->sinks, std::vector<std::string>{"stdout"});
  EXPECT_EQ(empty->component, "tarn");
}

TEST(Config, EachVariable) {
  auto c = FromEnv({{"TARN_ALERTS_ENABLED", "true"},
                    {"TARN_ALERTS_SINK", " Webhook , stdout,webhook"},
                    {"TARN_ALERTS_COMPONENT", "catalog-maintenance"},
                    {"TARN_ALERTS_ENVIRONMENT", "production"},
                    {"TARN_ALERTS_COOLOFF_HOURS", "1.5"},
                    {"TARN_ALERTS_WEBHOOK_URL", "https://hooks.example/abc?t=1"},
                    {"TARN_ALERTS_MIN_SEVERITY", "critical"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->enabled);
  EXPECT_EQ(c->sinks, (std::vector<std::string>{"webhook", "stdout"}));
  EXPECT_EQ(c->component, "catalog-maintenance");
  EXPECT_EQ(c->environment, "production");
  EXPECT_EQ(c->cooloff_us, 90LL * 60 * 1000000);
  EXPECT_EQ(c->webhook_url, "https://hooks.example/abc?t=1");
  EXPECT_EQ(c->min_severity, Severity::kCritical);

  auto none = FromEnv({{"TARN_ALERTS_SINK", "NONE"}});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->sinks.empty());
  auto zero = FromEnv({{"TARN_ALERTS_COOLOFF_HOURS", "0"}});
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->cooloff_us, 0);
  auto http = FromEnv(
      {{"TARN_ALERTS_SINK", "webhook"}, {"TARN_ALERTS_WEBHOOK_URL", "http://127.0.0.1:9/x"}});
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  EXPECT_EQ(http->sinks, std::vector<std::string>{"webhook"});
}

TEST(Config, OnlyAnExplicitFalseDisables) {
  for (const char* v : {"false", "0", "off", "no", "FALSE", " Off ", "No"}) {
    auto c = FromEnv({{"TARN_ALERTS_ENABLED", v}});
    ASSERT_TRUE(c.ok());
    EXPECT_FALSE(c->enabled) << v;
  }
  for (const char* v : {"true", "1", "on", "yes", "", "maybe", "disabled"}) {
    auto c = FromEnv({{"TARN_ALERTS_ENABLED", v}});
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(c->enabled) << v;
  }
}

TEST(Config, MalformedValuesNameTheirVariable) {
  const std::string kUrl = "TARN_ALERTS_WEBHOOK_URL";
  struct Case {
    Env env;
    std::string variable;
  };
  const std::vector<Case> cases = {
      {{{"TARN_ALERTS_SINK", "stdout,github"}}, "TARN_ALERTS_SINK"},
      {{{"TARN_ALERTS_SINK", "both"}}, "TARN_ALERTS_SINK"},
      {{{"TARN_ALERTS_SINK", "none,stdout"}}, "TARN_ALERTS_SINK"},
      {{{"TARN_ALERTS_SINK", ","}}, "TARN_ALERTS_SINK"},
      {{{"TARN_ALERTS_COOLOFF_HOURS", "-1"}}, "TARN_ALERTS_COOLOFF_HOURS"},
      {{{"TARN_ALERTS_COOLOFF_HOURS", "abc"}}, "TARN_ALERTS_COOLOFF_HOURS"},
      {{{"TARN_ALERTS_COOLOFF_HOURS", "1e3"}}, "TARN_ALERTS_COOLOFF_HOURS"},
      {{{"TARN_ALERTS_COOLOFF_HOURS", "inf"}}, "TARN_ALERTS_COOLOFF_HOURS"},
      {{{"TARN_ALERTS_COOLOFF_HOURS", "nan"}}, "TARN_ALERTS_COOLOFF_HOURS"},
      {{{"TARN_ALERTS_COOLOFF_HOURS", "1."}}, "TARN_ALERTS_COOLOFF_HOURS"},
      {{{"TARN_ALERTS_COOLOFF_HOURS", "."}}, "TARN_ALERTS_COOLOFF_HOURS"},
      {{{"TARN_ALERTS_COOLOFF_HOURS", "24h"}}, "TARN_ALERTS_COOLOFF_HOURS"},
      {{{"TARN_ALERTS_COOLOFF_HOURS", "99999999999"}}, "TARN_ALERTS_COOLOFF_HOURS"},
      {{{"TARN_ALERTS_MIN_SEVERITY", "loud"}}, "TARN_ALERTS_MIN_SEVERITY"},
      {{{"TARN_ALERTS_COMPONENT", "a\nb"}}, "TARN_ALERTS_COMPONENT"},
      {{{"TARN_ALERTS_SINK", "webhook"}}, kUrl},
      {{{"TARN_ALERTS_SINK", "stdout,webhook"}, {kUrl, "   "}}, kUrl},
      {{{kUrl, "ftp://hooks.example/secret-token"}}, kUrl},
      {{{kUrl, "hooks.example/secret-token"}}, kUrl},
      {{{kUrl, "https://"}}, kUrl},
      {{{kUrl, "https:///secret-token"}}, kUrl},
      {{{kUrl, "https://hooks.example/secret token"}}, kUrl},
  };
  for (const auto& c : cases) {
    auto r = FromEnv(c.env);
    std::string what = c.env.begin()->first + "=" + c.env.begin()->second;
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << what;
    EXPECT_NE(r.status().message().find(c.variable), std::string::npos)
        << what << ": " << r.status().message();
    EXPECT_EQ(r.status().message().find("secret-token"), std::string::npos)
        << "the webhook URL is a secret: " << r.status().message();
  }
}

// ---- fingerprints ----

TEST(Fingerprint, StableAndSaltedByComponent) {
  Alerter alerter(nullptr, nullptr, AlertsConfig{});
  Alert a = MakeAlert();
  // SHA-256("tarn\nreceipt_missing\nreceipt_missing\nacme.sales.orders"), first 32 hex digits:
  // pinned, since a changed fingerprint re-alerts every known failure.
  EXPECT_EQ(alerter.Fingerprint(a), "99974e66ac93fab812bea74ed8833c58");
  Alert b = a;
  b.summary = "another wording";
  b.severity = Severity::kCritical;
  b.detail = {{"snapshot_id", "8"}};
  EXPECT_EQ(alerter.Fingerprint(b), alerter.Fingerprint(a)) << "only code, object, identity count";
  b.identity = "receipt_missing\nacme.sales.orders";
  EXPECT_EQ(alerter.Fingerprint(b), alerter.Fingerprint(a)) << "the default identity";
  EXPECT_NE(alerter.Fingerprint(MakeAlert("receipt_missing", "acme.sales.other")),
            alerter.Fingerprint(a));
  EXPECT_NE(alerter.Fingerprint(MakeAlert("egress_blocked")), alerter.Fingerprint(a));

  Alert cycle = MakeAlert("trigger_cycle", "w.c.a");
  cycle.identity = "w.c.a>w.c.b";
  EXPECT_EQ(alerter.Fingerprint(cycle), "bcd869f1da0caf731707e9fde3f58ff9");
  cycle.object = "w.c.b";
  EXPECT_EQ(alerter.Fingerprint(cycle), "bcd869f1da0caf731707e9fde3f58ff9");

  AlertsConfig other;
  other.component = "catalog-maintenance";
  Alerter salted(nullptr, nullptr, other);
  EXPECT_NE(salted.Fingerprint(a), alerter.Fingerprint(a));
  EXPECT_EQ(salted.Fingerprint(a).size(), 32u);
}

// ---- the stdout sink ----

TEST(Stdout, DisabledDoesNothing) {
  Database db("sqlite");
  auto ms = db.Open();
  ASSERT_TRUE(ms);
  Capture out;
  AlertsConfig c = StdoutConfig(out);
  c.enabled = false;
  Alerter alerter(ms.get(), nullptr, c);
  EXPECT_FALSE(alerter.Raise(MakeAlert()));
  EXPECT_EQ(out.Text(), "");
  auto rows = ListAlerts(*ms, {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->empty());
}

TEST(Stdout, OneStructuredJsonLine) {
  ManualClock clock(ManualClock::Flow::kStopped, kStart);
  Capture out;
  AlertsConfig c = StdoutConfig(out);
  c.component = "catalog";
  c.environment = "production";
  Alerter alerter(nullptr, &clock, c);
  Alert a = MakeAlert();
  a.summary = "commit 7 of acme.sales.orders has no receipt\n(second line)";
  a.detail = {{"snapshot_id", "7"}, {"error", "line one\nline \"two\"\t\x01"}};
  ASSERT_TRUE(alerter.Raise(a));

  auto lines = out.Lines();
  ASSERT_EQ(lines.size(), 1u) << out.Text();
  json j = json::parse(lines[0]);
  EXPECT_EQ(j.at("severity"), "ERROR");
  EXPECT_EQ(j.at("message"), a.summary);
  EXPECT_EQ(j.at("time"), "2023-11-14T22:13:20.123456Z");
  const json& alert = j.at("alert");
  EXPECT_EQ(alert.at("code"), "receipt_missing");
  EXPECT_EQ(alert.at("fingerprint"), alerter.Fingerprint(a));
  EXPECT_EQ(alert.at("component"), "catalog");
  EXPECT_EQ(alert.at("environment"), "production");
  EXPECT_EQ(alert.at("object"), "acme.sales.orders");
  EXPECT_EQ(alert.at("count"), 1);
  EXPECT_EQ(alert.at("detail"), (json{{"snapshot_id", "7"}, {"error", a.detail["error"]}}));
  // GCP reads these keys at the top level; their order is the documented one.
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys.size(), 4u);

  // Invalid UTF-8 is replaced, never a lost alert.
  Alert bad = MakeAlert("receipt_missing", "acme.sales.\xff");
  bad.severity = Severity::kWarning;
  ASSERT_TRUE(alerter.Raise(bad));
  lines = out.Lines();
  ASSERT_EQ(lines.size(), 2u);
  json k = json::parse(lines[1]);
  EXPECT_EQ(k.at("severity"), "WARNING");
  EXPECT_EQ(k.at("alert").at("object"), "acme.sales.\xef\xbf\xbd");
}

TEST(Stdout, NoSinkStillCountsTheRaise) {
  Database db("sqlite");
  auto ms = db.Open();
  ASSERT_TRUE(ms);
  Capture out;
  AlertsConfig c = StdoutConfig(out);
  c.sinks.clear();
  Alerter alerter(ms.get(), nullptr, c);
  EXPECT_TRUE(alerter.Raise(MakeAlert()));
  EXPECT_FALSE(alerter.Raise(MakeAlert()));
  EXPECT_EQ(out.Text(), "");
  auto rows = ListAlerts(*ms, {});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].count, 2);
}

// ---- the cool-off ----

class CoolOff : public ::testing::TestWithParam<std::string> {};

// Quiet inside the cool-off, delivered again once it has passed, the count kept throughout;
// with the metastore and without it.
TEST_P(CoolOff, QuietInsideDeliveredAfter) {
  Database db("sqlite");
  std::unique_ptr<Metastore> ms;
  if (GetParam() == "metastore") ms = db.Open();
  ManualClock clock(ManualClock::Flow::kStopped, kStart);
  Capture out;
  Alerter alerter(ms.get(), &clock, StdoutConfig(out, 2 * kHour));
  const Alert a = MakeAlert();
  EXPECT_TRUE(alerter.Raise(a));
  EXPECT_FALSE(alerter.Raise(a));
  clock.Advance(std::chrono::microseconds(2 * kHour - 1));
  EXPECT_FALSE(alerter.Raise(a));
  EXPECT_TRUE(alerter.Raise(MakeAlert("receipt_missing", "acme.sales.other")));
  clock.Advance(std::chrono::microseconds(1));
  EXPECT_TRUE(alerter.Raise(a));
  EXPECT_FALSE(alerter.Raise(a));

  auto lines = out.Lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(json::parse(lines[0])["alert"]["count"], 1);
  EXPECT_EQ(json::parse(lines[2])["alert"]["count"], 4) << "the quiet raises were counted";
  EXPECT_EQ(alerter.metastore_fallbacks(), 0);

  if (!ms) return;
  auto rows = ListAlerts(*ms, {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  const AlertRecord& r = (*rows)[0];  // raised last
  EXPECT_EQ(r.fingerprint, alerter.Fingerprint(a));
  EXPECT_EQ(r.code, "receipt_missing");
  EXPECT_EQ(r.severity, "ERROR");
  EXPECT_EQ(r.object, "acme.sales.orders");
  EXPECT_EQ(r.summary, a.summary);
  EXPECT_EQ(r.component, "tarn");
  EXPECT_EQ(json::parse(r.detail_json), (json{{"snapshot_id", "7"}}));
  EXPECT_EQ(r.count, 5);
  EXPECT_EQ(r.first_raised_at_us, kStart);
  EXPECT_EQ(r.last_raised_at_us, kStart + 2 * kHour);
  EXPECT_EQ(r.last_delivered_at_us, kStart + 2 * kHour);
}

TEST_P(CoolOff, ZeroDeliversEveryRaise) {
  Database db("sqlite");
  std::unique_ptr<Metastore> ms;
  if (GetParam() == "metastore") ms = db.Open();
  ManualClock clock(ManualClock::Flow::kStopped, kStart);
  Capture out;
  Alerter alerter(ms.get(), &clock, StdoutConfig(out, 0));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(alerter.Raise(MakeAlert()));
  EXPECT_EQ(out.Lines().size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Alerts, CoolOff, ::testing::Values("metastore", "in_process"),
                         [](const auto& info) { return info.param; });

// ---- three servers on one metastore ----

class SharedCoolOff : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    db_ = std::make_unique<Database>(GetParam());
    if (!db_->ok()) GTEST_SKIP() << "TARN_TEST_PG_URI not set (run under tests/run_with_pg.sh)";
  }
  std::unique_ptr<Database> db_;
};

// Three Alerters over three handles on one database (three `tarn serve`) deliver each
// fingerprint once per cool-off, even raising it at the same microsecond.
TEST_P(SharedCoolOff, OneDeliveryPerFingerprintPerCoolOff) {
  ManualClock clock(ManualClock::Flow::kStopped, kStart);
  Capture out;
  std::vector<std::unique_ptr<Metastore>> handles;
  std::vector<std::unique_ptr<Alerter>> servers;
  for (int i = 0; i < 3; ++i) {
    handles.push_back(db_->Open());
    ASSERT_TRUE(handles.back());
    servers.push_back(
        std::make_unique<Alerter>(handles.back().get(), &clock, StdoutConfig(out, kHour)));
  }
  const std::vector<Alert> alerts = {MakeAlert(), MakeAlert("trigger_fire_failed", "w.c.v")};
  for (int round = 0; round < 2; ++round) {
    for (const Alert& a : alerts) {
      int delivered = 0;
      for (auto& s : servers) delivered += s->Raise(a);
      for (auto& s : servers) delivered += s->Raise(a);
      EXPECT_EQ(delivered, 1) << a.code << " round " << round;
    }
    clock.Advance(std::chrono::microseconds(kHour));
  }
  EXPECT_EQ(out.Lines().size(), 4u);
  auto rows = ListAlerts(*handles[0], {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  for (const auto& r : *rows) EXPECT_EQ(r.count, 12);
}

// The same, raced: three threads, one handle each, raising one failure at one instant.
TEST_P(SharedCoolOff, ConcurrentRaisesDeliverOnce) {
  ManualClock clock(ManualClock::Flow::kStopped, kStart);
  Capture out;
  std::vector<std::unique_ptr<Metastore>> handles;
  std::vector<std::unique_ptr<Alerter>> servers;
  for (int i = 0; i < 3; ++i) {
    handles.push_back(db_->Open());
    ASSERT_TRUE(handles.back());
    servers.push_back(std::make_unique<Alerter>(handles.back().get(), &clock, StdoutConfig(out)));
  }
  constexpr int kRaises = 20;
  std::atomic<int> delivered{0};
  std::vector<std::thread> threads;
  for (auto& s : servers) {
    threads.emplace_back([&, alerter = s.get()] {
      for (int i = 0; i < kRaises; ++i) delivered += alerter->Raise(MakeAlert());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(delivered.load(), 1);
  EXPECT_EQ(out.Lines().size(), 1u);
  for (auto& s : servers) EXPECT_EQ(s->metastore_fallbacks(), 0);
  auto rows = ListAlerts(*handles[0], {});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].count, 3 * kRaises);
}

// Real processes: three forked children, each with its own handle and Alerter, raising one
// failure five times; exactly one raise of the fifteen delivers.
TEST_P(SharedCoolOff, ForkedProcessesDeliverOnce) {
  { ASSERT_TRUE(db_->Open()); }  // migrated before the fork; no connection held across it
  const std::string uri = db_->uri();
  std::vector<pid_t> pids;
  for (int i = 0; i < 3; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      int delivered = 0;
      {
        auto ms = Metastore::Open(uri);
        if (!ms.ok()) _exit(100);
        ManualClock clock(ManualClock::Flow::kStopped, kStart);
        AlertsConfig c;
        c.sinks.clear();
        Alerter alerter(ms->get(), &clock, c);
        for (int k = 0; k < 5; ++k) delivered += alerter.Raise(MakeAlert());
        if (alerter.metastore_fallbacks() != 0) _exit(101);
      }
      _exit(delivered);
    }
    ASSERT_GT(pid, 0);
    pids.push_back(pid);
  }
  int delivered = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_LT(WEXITSTATUS(status), 100) << "child failed: " << WEXITSTATUS(status);
    delivered += WEXITSTATUS(status);
  }
  EXPECT_EQ(delivered, 1);
  auto ms = db_->Open();
  ASSERT_TRUE(ms);
  auto rows = ListAlerts(*ms, {});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].count, 15);
}

INSTANTIATE_TEST_SUITE_P(Backends, SharedCoolOff, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

// ---- the table ----

TEST(Table, MigrationElevenIsContributedAndApplied) {
  bool found = false;
  for (const auto& m : SchemaMigrations()) {
    if (m.version == 11) {
      EXPECT_EQ(m.name, "alerts");
      found = true;
    }
  }
  EXPECT_TRUE(found);
  Database db("sqlite");
  auto ms = db.Open();
  ASSERT_TRUE(ms);
  auto applied = ms->AppliedMigrations();
  ASSERT_TRUE(applied.ok());
  EXPECT_NE(std::find(applied->begin(), applied->end(), 11), applied->end());
}

TEST(Table, ListAlertsNewestFirstFiltered) {
  Database db("sqlite");
  auto ms = db.Open();
  ASSERT_TRUE(ms);
  ManualClock clock(ManualClock::Flow::kStopped, kStart);
  Capture out;
  Alerter alerter(ms.get(), &clock, StdoutConfig(out));
  ASSERT_TRUE(alerter.Raise(MakeAlert("receipt_missing", "a")));
  clock.Advance(std::chrono::seconds(1));
  ASSERT_TRUE(alerter.Raise(MakeAlert("egress_blocked", "b")));
  clock.Advance(std::chrono::seconds(1));
  ASSERT_TRUE(alerter.Raise(MakeAlert("receipt_missing", "c")));

  auto all = ListAlerts(*ms, {});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].object, "c");
  EXPECT_EQ((*all)[1].object, "b");
  EXPECT_EQ((*all)[2].object, "a");

  auto receipts = ListAlerts(*ms, Query(0, "receipt_missing"));
  ASSERT_TRUE(receipts.ok());
  ASSERT_EQ(receipts->size(), 2u);
  EXPECT_EQ((*receipts)[0].object, "c");

  auto recent = ListAlerts(*ms, Query(kStart + 1000000, ""));
  ASSERT_TRUE(recent.ok());
  EXPECT_EQ(recent->size(), 2u);

  auto one = ListAlerts(*ms, Query(0, "", 1));
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].object, "c");

  for (size_t bad : {size_t{0}, size_t{10001}}) {
    auto r = ListAlerts(*ms, Query(0, "", bad));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  }
}

// ---- the metastore failing ----

// A failed statement (the failure may be the metastore itself) falls back to the in-process
// cool-off: the alert is still delivered, and the error goes to DiscardError.
TEST(MetastoreFailure, InjectedStatementFaultStillDelivers) {
  Database db("sqlite");
  auto ms = db.Open();
  ASSERT_TRUE(ms);
  auto faults = std::make_shared<MetastoreFaults>();
  ms->SetFaults(faults);
  faults->FailNthStatement(1);
  DiscardLog discarded;
  Capture out;
  Alerter alerter(ms.get(), nullptr, StdoutConfig(out));
  EXPECT_TRUE(alerter.Raise(MakeAlert()));
  EXPECT_EQ(alerter.metastore_fallbacks(), 1);
  EXPECT_EQ(out.Lines().size(), 1u);
  ASSERT_EQ(discarded.lines().size(), 1u);
  EXPECT_NE(discarded.lines()[0].find("receipt_missing"), std::string::npos);
}

TEST(MetastoreFailure, UnusableTableKeepsTheCoolOffInProcess) {
  Database db("sqlite");
  auto ms = db.Open();
  ASSERT_TRUE(ms);
  ASSERT_OK(ms->RunInTransaction(
      [](Transaction& tx) { return tx.Execute("DROP TABLE alerts").status(); }));
  DiscardLog discarded;
  ManualClock clock(ManualClock::Flow::kStopped, kStart);
  Capture out;
  Alerter alerter(ms.get(), &clock, StdoutConfig(out, kHour));
  EXPECT_TRUE(alerter.Raise(MakeAlert()));
  EXPECT_FALSE(alerter.Raise(MakeAlert()));
  clock.Advance(std::chrono::microseconds(kHour));
  EXPECT_TRUE(alerter.Raise(MakeAlert()));
  EXPECT_EQ(alerter.metastore_fallbacks(), 3);
  EXPECT_EQ(discarded.lines().size(), 3u);
  auto lines = out.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(json::parse(lines[1])["alert"]["count"], 3);
}

// ---- the webhook sink ----

// Three servers on one metastore, each raising two failures twice: the webhook gets one POST
// per fingerprint per cool-off, with the stdout line's object as its body.
TEST(Webhook, OnePostPerFingerprintPerCoolOff) {
  WebhookServer hook;
  Database db("sqlite");
  ManualClock clock(ManualClock::Flow::kStopped, kStart);
  Capture out;
  std::vector<std::unique_ptr<Metastore>> handles;
  std::vector<std::unique_ptr<Alerter>> servers;
  for (int i = 0; i < 3; ++i) {
    handles.push_back(db.Open());
    ASSERT_TRUE(handles.back());
    servers.push_back(
        std::make_unique<Alerter>(handles.back().get(), &clock, WebhookConfig(out, hook.url())));
  }
  const std::vector<Alert> alerts = {MakeAlert(), MakeAlert("egress_blocked", "w.c.mv")};
  for (int round = 1; round <= 2; ++round) {
    for (int twice = 0; twice < 2; ++twice) {
      for (auto& s : servers) {
        for (const Alert& a : alerts) s->Raise(a);
      }
    }
    for (auto& s : servers) s->Flush();
    auto posts = PostsByFingerprint(hook.bodies());
    ASSERT_EQ(posts.size(), 2u);
    for (const Alert& a : alerts) EXPECT_EQ(posts[servers[0]->Fingerprint(a)], round);
    clock.Advance(std::chrono::microseconds(24 * kHour));
  }
  // The body is the stdout line.
  auto lines = out.Lines();
  ASSERT_EQ(lines.size(), 4u);
  std::set<std::string> stdout_lines(lines.begin(), lines.end());
  for (const auto& body : hook.bodies()) EXPECT_EQ(stdout_lines.count(body), 1u) << body;
  int64_t delivered = 0;
  for (auto& s : servers) delivered += s->webhook_delivered();
  EXPECT_EQ(delivered, 4);
}

TEST(Webhook, SeverityGate) {
  WebhookServer hook;
  Capture out;
  AlertsConfig c = WebhookConfig(out, hook.url());
  c.min_severity = Severity::kCritical;
  Alerter alerter(nullptr, nullptr, c);
  Alert warning = MakeAlert("integrity_warning", "a"), error = MakeAlert("receipt_missing", "b"),
        critical = MakeAlert("receipt_missing", "c");
  warning.severity = Severity::kWarning;
  critical.severity = Severity::kCritical;
  EXPECT_TRUE(alerter.Raise(warning));
  EXPECT_TRUE(alerter.Raise(error));
  EXPECT_TRUE(alerter.Raise(critical));
  alerter.Flush();
  EXPECT_EQ(out.Lines().size(), 3u) << "stdout is not gated";
  auto bodies = hook.bodies();
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(json::parse(bodies[0])["alert"]["object"], "c");
}

TEST(Webhook, RetriesServerErrorsThenDeliversOnce) {
  WebhookServer hook([](int n) { return n <= 2 ? 500 : 200; });
  Capture out;
  Alerter alerter(nullptr, nullptr, WebhookConfig(out, hook.url()));
  EXPECT_TRUE(alerter.Raise(MakeAlert()));
  alerter.Flush();
  auto bodies = hook.bodies();
  ASSERT_EQ(bodies.size(), 3u);
  EXPECT_EQ(bodies[0], bodies[2]);
  EXPECT_EQ(alerter.webhook_delivered(), 1);
  EXPECT_EQ(alerter.webhook_failed(), 0);
}

TEST(Webhook, GivesUpAfterThreeAttemptsAndOnOtherClientErrors) {
  DiscardLog discarded;
  {
    WebhookServer hook([](int) { return 503; });
    Capture out;
    Alerter alerter(nullptr, nullptr, WebhookConfig(out, hook.url()));
    EXPECT_TRUE(alerter.Raise(MakeAlert()));
    alerter.Flush();
    EXPECT_EQ(hook.bodies().size(), 3u);
    EXPECT_EQ(alerter.webhook_failed(), 1);
  }
  {
    WebhookServer hook([](int n) { return n == 1 ? 429 : 404; });
    Capture out;
    Alerter alerter(nullptr, nullptr, WebhookConfig(out, hook.url()));
    EXPECT_TRUE(alerter.Raise(MakeAlert()));
    alerter.Flush();
    EXPECT_EQ(hook.bodies().size(), 2u) << "429 is retried, 404 is not";
    EXPECT_EQ(alerter.webhook_failed(), 1);
    EXPECT_EQ(alerter.webhook_delivered(), 0);
  }
  EXPECT_EQ(discarded.lines().size(), 2u);
}

// A webhook that never answers does not hold Raise: it returns (and the stdout line is
// written) while the server's handler is still blocked.
TEST(Webhook, HungServerDoesNotHoldRaise) {
  WebhookServer hook([](int) { return 200; }, /*blocked=*/true);
  Capture out;
  Alerter alerter(nullptr, nullptr, WebhookConfig(out, hook.url()));
  EXPECT_TRUE(alerter.Raise(MakeAlert("receipt_missing", "a")));
  hook.WaitForRequests(1);  // the first POST is in the blocked handler now
  EXPECT_TRUE(alerter.Raise(MakeAlert("receipt_missing", "b")));
  EXPECT_TRUE(alerter.Raise(MakeAlert("receipt_missing", "c")));
  EXPECT_FALSE(hook.released());
  EXPECT_EQ(out.Lines().size(), 3u);
  hook.Release();
  alerter.Flush();
  EXPECT_EQ(hook.bodies().size(), 3u);
  EXPECT_EQ(alerter.webhook_delivered(), 3);
}

// A full queue drops the new delivery (counted); Raise still returns at once.
TEST(Webhook, FullQueueDropsTheNewOne) {
  WebhookServer hook([](int) { return 200; }, /*blocked=*/true);
  Capture out;
  AlertsConfig c = WebhookConfig(out, hook.url());
  c.webhook_queue = 2;
  Alerter alerter(nullptr, nullptr, c);
  EXPECT_TRUE(alerter.Raise(MakeAlert("receipt_missing", "in-flight")));
  hook.WaitForRequests(1);
  for (const char* o : {"queued-1", "queued-2", "dropped"}) {
    EXPECT_TRUE(alerter.Raise(MakeAlert("receipt_missing", o)));
  }
  EXPECT_EQ(alerter.webhook_dropped(), 1);
  EXPECT_EQ(out.Lines().size(), 4u);
  hook.Release();
  alerter.Flush();
  EXPECT_EQ(hook.bodies().size(), 3u);
  for (const auto& b : hook.bodies()) EXPECT_NE(json::parse(b)["alert"]["object"], "dropped");
}

// Nothing listens on the port: Raise delivers the stdout line, the webhook delivery fails in
// the background, and its error never names the URL (a webhook URL carries its secret).
TEST(Webhook, ClosedPortFailsInTheBackground) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);  // bound, never listening: connections refused
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::string url =
      "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/hook?token=secret-token";

  DiscardLog discarded;
  Capture out;
  {
    Alerter alerter(nullptr, nullptr, WebhookConfig(out, url));
    EXPECT_TRUE(alerter.Raise(MakeAlert()));
    EXPECT_EQ(out.Lines().size(), 1u);
    alerter.Flush();
    EXPECT_EQ(alerter.webhook_failed(), 1);
  }
  ::close(fd);
  auto lines = discarded.lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].find("secret-token"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("<webhook>"), std::string::npos) << lines[0];
}

// ~Alerter does not wait for a webhook that never answers beyond its bound: it returns while
// the handler is still blocked.
TEST(Webhook, DestructorDoesNotWaitForAHungServer) {
  WebhookServer hook([](int) { return 200; }, /*blocked=*/true);
  Capture out;
  {
    Alerter alerter(nullptr, nullptr, WebhookConfig(out, hook.url()));
    EXPECT_TRUE(alerter.Raise(MakeAlert("receipt_missing", "a")));
    EXPECT_TRUE(alerter.Raise(MakeAlert("receipt_missing", "b")));
    hook.WaitForRequests(1);
  }
  EXPECT_FALSE(hook.released());
  hook.Release();
}

}  // namespace
}  // namespace tarn::alerts

#include "worker/worker.h"

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <iostream>
#include <list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "common/base64.h"
#include "common/clock.h"
#include "sql/engine.h"
#include "tarn/client.h"

namespace tarn::worker {

namespace {

using nlohmann::json;

}  // namespace

Result<UnverifiedClaims> PeekClaims(std::string_view jwt) {
  auto bad = [] { return Status::Of(codes::kUnauthenticated, "the job token is not a JWT"); };
  size_t d1 = jwt.find('.');
  size_t d2 = d1 == std::string_view::npos ? d1 : jwt.find('.', d1 + 1);
  if (d2 == std::string_view::npos || jwt.size() > 8192) return bad();
  json claims =
      json::parse(Base64UrlDecode(jwt.substr(d1 + 1, d2 - d1 - 1)).value_or(""), nullptr, false);
  if (!claims.is_object()) return bad();
  UnverifiedClaims c;
  if (claims.contains("aud") && claims["aud"].is_string()) c.audience = claims["aud"];
  if (claims.contains("job") && claims["job"].is_string()) c.job = claims["job"];
  if (claims.contains("exp") && claims["exp"].is_number_integer()) c.expires_at_s = claims["exp"];
  return c;
}

class Worker::Impl {
 public:
  explicit Impl(WorkerOptions options) : options_(std::move(options)) {}

  Status Start() {
    server_.Post("/run",
                 [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); });
    server_.Get("/livez", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("{\"status\":\"ok\"}", "application/json");
    });
    server_.set_payload_max_length(64 << 10);
    server_.set_read_timeout(10, 0);
    int port = options_.port;
    if (port == 0) {
      port = server_.bind_to_any_port(options_.host);
    } else if (!server_.bind_to_port(options_.host, port)) {
      port = -1;
    }
    if (port <= 0) {
      return Status::IOError("tarn worker cannot listen on " + options_.host + ":" +
                             std::to_string(options_.port));
    }
    port_ = port;
    if (options_.url.empty()) {
      options_.url = "http://" + options_.host + ":" + std::to_string(port) + "/run";
    }
    // Start returns once the listener's accept loop runs: a Stop before that would find the
    // server not running yet (httplib's stop() then does nothing) and the loop would never end.
    // httplib has no callback for it, but the loop makes its task queue with new_task_queue
    // right after it counts as running, so the factory, wrapped, tells; the listener ending (a
    // failed listen) does too.
    server_.new_task_queue = [this, make_queue = server_.new_task_queue] {
      SetListening();
      return make_queue();
    };
    listener_ = std::thread([this] {
      server_.listen_after_bind();
      SetListening();
    });
    {
      std::unique_lock<std::mutex> lock(listening_mu_);
      listening_cv_.wait(lock, [this] { return listening_; });
    }
    Log(json{{"type", "worker"},
             {"event", "listening"},
             {"url", options_.url},
             {"catalog", options_.catalog_url}});
    return Status::OK();
  }

  void Stop() {
    server_.stop();
    if (listener_.joinable()) listener_.join();
    std::list<Run> running;
    {
      std::lock_guard<std::mutex> lock(mu_);
      running.swap(runs_);
    }
    for (auto& r : running) r.thread.join();
  }

  int port() const { return port_; }
  const std::string& url() const { return options_.url; }

 private:
  void SetListening() {
    {
      std::lock_guard<std::mutex> lock(listening_mu_);
      listening_ = true;
    }
    listening_cv_.notify_all();
  }

  void Log(const json& line) {
    std::string text = line.dump(-1, ' ', false, json::error_handler_t::replace);
    if (options_.log) {
      options_.log(text);
    } else {
      std::lock_guard<std::mutex> lock(log_mu_);
      std::cerr << text << "\n" << std::flush;
    }
  }

  void Reply(httplib::Response& res, int status, const json& body) {
    res.status = status;
    res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
  }

  void Handle(const httplib::Request& req, httplib::Response& res) {
    std::string auth = req.get_header_value("Authorization");
    if (auth.rfind("Bearer ", 0) != 0) {
      return Reply(res, 401, {{"error", "a job token is needed (Authorization: Bearer ...)"}});
    }
    const std::string token = auth.substr(7);
    auto claims = PeekClaims(token);
    // The audience must be exactly this worker: a token minted for another worker (or any
    // other bearer token) is refused before anything is asked of the catalog.
    if (!claims.ok() || claims->audience != options_.url || claims->job.empty()) {
      return Reply(res, 401, {{"error", "the token is no job token for " + options_.url}});
    }
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("job") || !body["job"].is_string() ||
        body["job"].get<std::string>() != claims->job) {
      return Reply(res, 400, {{"error", "the body must be {\"job\": ID} of the token's job"}});
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (active_ >= options_.max_concurrent_jobs) {
        res.set_header("Retry-After", "5");
        return Reply(res, 503, {{"error", "busy"}});
      }
      ++active_;
    }
    // The catalog checks the token (signature, expiry, revocation, the job claim) when the job
    // is read with it.
    ClientOptions o;
    o.token = token;
    o.federated_sign_in = false;
    o.user_agent = "tarn-worker/0.1";
    auto client = Client::ConnectRemote(options_.catalog_url, o);
    Result<JobInfo> job = client.ok() ? (*client)->GetJob(claims->job) : client.status();
    if (!job.ok()) {
      Done();
      const int status = job.status().kind() == ErrorKind::kUnauthenticated ? 401
                         : job.status().kind() == ErrorKind::kUnavailable   ? 503
                                                                            : 403;
      Log(json{{"type", "job"},
               {"event", "refused"},
               {"job", claims->job},
               {"detail", job.status().ToString()}});
      return Reply(res, status, {{"error", job.status().ToString()}});
    }
    Log(json{{"type", "job"}, {"event", "accepted"}, {"job", job->id}, {"target", job->target}});
    std::lock_guard<std::mutex> lock(mu_);
    Reap();
    auto done = std::make_shared<std::atomic<bool>>(false);
    runs_.push_back(
        Run{std::thread([this, done, c = std::shared_ptr<Client>(std::move(*client)), j = *job] {
              RunJob(*c, j);
              Done();
              done->store(true);
            }),
            done});
    Reply(res, 202, {{"accepted", true}, {"job", job->id}});
  }

  void Done() {
    std::lock_guard<std::mutex> lock(mu_);
    --active_;
  }

  // Joins the runs that ended (under mu_).
  void Reap() {
    for (auto it = runs_.begin(); it != runs_.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = runs_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void RunJob(Client& client, const JobInfo& job) {
    const Stopwatch watch(*Clock::Real());
    sql::JobOutcome outcome = sql::RunJob(client, job);
    const double seconds = watch.Seconds();
    Log(json{{"type", "job"},
             {"event", "ran"},
             {"job", job.id},
             {"target", job.target},
             {"state", outcome.state},
             {"seconds", seconds},
             {"detail", outcome.error}});
    // The outcome goes back to the catalog; when that fails the job's lease runs out and it is
    // delivered again (its commit is keyed by the job id, so it lands once).
    Status st = ReportOutcome(client, job, outcome);
    if (!st.ok()) {
      Log(json{
          {"type", "job"}, {"event", "report_failed"}, {"job", job.id}, {"detail", st.ToString()}});
    }
  }

  Status ReportOutcome(Client& client, const JobInfo& job, const sql::JobOutcome& outcome) {
    JobOutcomeReport report;
    report.state = outcome.retry ? std::string(kRefreshFailed) : outcome.state;
    report.error = outcome.error;
    report.result_snapshot = outcome.snapshot;
    report.retry = outcome.retry;
    return client.ReportJobOutcome(job.id, report).status();
  }

  WorkerOptions options_;
  httplib::Server server_;
  std::thread listener_;
  std::mutex listening_mu_;
  std::condition_variable listening_cv_;
  bool listening_ = false;  // the accept loop runs (or already ended)
  int port_ = 0;
  std::mutex mu_;
  int active_ = 0;
  struct Run {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Run> runs_;
  std::mutex log_mu_;
};

Result<std::unique_ptr<Worker>> Worker::Make(WorkerOptions options) {
  if (options.catalog_url.rfind("http://", 0) != 0 &&
      options.catalog_url.rfind("https://", 0) != 0) {
    return Status::InvalidArgument("tarn worker needs --catalog http(s)://... of tarn serve");
  }
  if (options.max_concurrent_jobs < 1) options.max_concurrent_jobs = 1;
  return std::unique_ptr<Worker>(new Worker(std::make_unique<Impl>(std::move(options))));
}

Worker::Worker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Worker::~Worker() { Stop(); }
Status Worker::Start() { return impl_->Start(); }
int Worker::port() const { return impl_->port(); }
const std::string& Worker::url() const { return impl_->url(); }
void Worker::Stop() {
  if (impl_) impl_->Stop();
}

}  // namespace tarn::worker

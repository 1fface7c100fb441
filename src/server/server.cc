// The HTTP plumbing of the server over Boost.Beast and Asio (docs/design/serve.md "Transport"):
// connections read by a few I/O threads under whole-request deadlines, request heads checked
// strictly, complete requests served by a pool of workers; request ids, authentication and role
// checks of the route table, error bodies, audit, metrics and logs.
#include "server/server.h"

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <mutex>
#include <regex>
#include <system_error>
#include <thread>
#include <unordered_set>

#include "api/error_codes.h"
#include "catalog/catalog.h"
#include "common/clock.h"
#include "common/discard.h"
#include "common/hex.h"
#include "common/random.h"
#include "common/utf8.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"
#include "server/dispatcher.h"
#include "server/error_codes.h"
#include "server/errors.h"
#include "server/http_request.h"
#include "server/server_internal.h"
#include "types/value_text.h"
#include "upload/contract_service.h"

namespace tarn::server {

class Session;

using internal::AuditEntry;
using internal::BodyKind;
using internal::Call;
using internal::Metrics;
using internal::Need;
using internal::RouteDef;
using internal::Scope;
using internal::StreamFn;
using internal::StreamWrite;
// A point of steady time: std::chrono::steady_clock::time_point, the time asio's steady_timer
// waits for. Every read of it goes through the server's Clock (Impl::clock()).
using SteadyTime = Clock::SteadyTime;

namespace internal {

std::string ErrorCodeOf(const Status& st) { return st.code(); }

bool SaneRequestId(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

int JsonDepth(std::string_view text, int cap) {
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) max_depth = depth;
      if (max_depth > cap) return max_depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max_depth;
}

Result<std::map<std::string, std::string>> ParseForm(std::string_view text) {
  TARN_ASSIGN_OR_RETURN(auto pairs, ParseUrlEncoded(text, "form body"));
  std::map<std::string, std::string> out;
  for (auto& [k, v] : pairs) out.emplace(std::move(k), std::move(v));  // the first wins
  return out;
}

}  // namespace internal

namespace {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

// A refused or failed request's unread body is read and dropped up to this many bytes so the
// connection stays usable; past it the connection is closed after the response.
constexpr int64_t kDrainBytes = 8 << 20;
constexpr size_t kMaxPathBytes = 2048;
constexpr int kMaxJsonDepth = 64;
// Bodies of known length up to this size are read by the I/O thread before the request goes to
// a worker, so a slow small body never holds a worker; larger and chunked bodies are streamed
// by the worker (read under the same deadlines).
constexpr int64_t kPreReadBytes = 1 << 20;
// How long a worker that answered waits for its connection's next request (Session::NextInline).
constexpr int kInlineWaitMs = 1;
// What the worker reads of a streamed body at once.
constexpr size_t kBodyChunk = 256 << 10;
constexpr int kIoThreads = 1;
constexpr int kQueuePerWorker = 16;
// A connection being closed reads and drops what the client still sends for this long (up to
// kLingerBytes), so that its last response is not lost to a reset.
constexpr auto kLinger = std::chrono::seconds(2);
constexpr size_t kLingerBytes = 256 << 10;

// What the log line of one request needs: started when its head has arrived, completed by the
// route (on a worker), written when the response has gone out.
struct RequestRecord {
  SteadyTime start;  // on the server's clock
  std::string request_id;
  std::string method;
  int series = -1;
  std::string route = "unmatched";
  std::string actor;
  int64_t bytes_in = 0;
  int64_t bytes_out = 0;
  std::string error_code;
  bool inflight = false;  // counted in the in-flight gauge
  // The shape of its error body (the Iceberg facade's paths answer in the spec's shapes).
  internal::ErrorShape error_shape = internal::ErrorShape::kTarn;
  int stream_status = 200;  // the status of a streamed response, for the log and metrics
};

// 64 random bits as 16 hex digits: a per-thread generator seeded from the kernel (ids need to be
// unique, not secret).
std::string NewRequestId() {
  thread_local uint64_t state = RandomU64() | 1;
  state ^= state << 13;  // xorshift64
  state ^= state >> 7;
  state ^= state << 17;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(state));
  return buf;
}

std::string NowRfc3339() {
  int64_t us = Clock::Real()->NowMicros();  // log lines carry the real time
  time_t secs = static_cast<time_t>(us / 1000000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>((us / 1000) % 1000));
  return buf;
}

// One JSON log line, its keys in the order written (starting with "time"). Strings are escaped
// and invalid UTF-8 is replaced, so a line is valid JSON whatever a client sent.
class LogLine {
 public:
  explicit LogLine(std::string_view type) {
    text_ = "{\"time\":\"" + NowRfc3339() + "\"";
    Str("type", type);
  }
  LogLine& Str(std::string_view key, std::string_view v) {
    Key(key);
    AppendJsonString(v);
    return *this;
  }
  LogLine& Int(std::string_view key, int64_t v) {
    Key(key);
    text_ += std::to_string(v);
    return *this;
  }
  LogLine& Millis(std::string_view key, double seconds) {
    Key(key);
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3f", seconds * 1e3);
    text_ += buf;
    return *this;
  }
  std::string Finish() && { return std::move(text_) + "}"; }

 private:
  void Key(std::string_view key) {
    text_ += ',';
    AppendJsonString(key);
    text_ += ':';
  }
  void AppendJsonString(std::string_view v) {
    text_ += '"';
    for (size_t i = 0; i < v.size();) {
      unsigned char c = static_cast<unsigned char>(v[i]);
      if (c == '"' || c == '\\') {
        text_ += '\\';
        text_ += static_cast<char>(c);
        ++i;
      } else if (c < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        text_ += buf;
        ++i;
      } else if (c < 0x80) {
        text_ += static_cast<char>(c);
        ++i;
      } else {
        size_t n = Utf8SequenceAt(v, i);
        if (n == 0) {
          text_ += "\\ufffd";
          ++i;
        } else {
          text_.append(v.substr(i, n));
          i += n;
        }
      }
    }
    text_ += '"';
  }
  std::string text_;
};

Status TooLargeBody(int64_t limit) {
  return Status::Of(codes::kTooLarge, "the request body is larger than the limit of " +
                                          std::to_string(limit) + " bytes")
      .WithField("limit", std::to_string(limit));
}

Role RoleOf(Need n) {
  switch (n) {
    case Need::kWriter:
      return Role::kWriter;
    case Need::kOwner:
      return Role::kOwner;
    default:
      return Role::kReader;
  }
}

const char* NeedName(Need n) {
  switch (n) {
    case Need::kOpen:
      return "open";
    case Need::kToken:
      return "token";
    case Need::kReader:
      return "reader";
    case Need::kWriter:
      return "writer";
    case Need::kOwner:
      return "owner";
  }
  return "open";
}

const char* BodyName(BodyKind b) {
  switch (b) {
    case BodyKind::kNone:
      return "none";
    case BodyKind::kJson:
      return "json";
    case BodyKind::kForm:
      return "form";
    case BodyKind::kFrames:
      return "frames";
    case BodyKind::kBytes:
      return "bytes";
  }
  return "none";
}

std::string ParamWhat(const std::string& name) {
  if (name == "ws") return "workspace name";
  if (name == "coll") return "collection name";
  if (name == "ds") return "dataset name";
  if (name == "view") return "view name";
  if (name == "task") return "task name";
  if (name == "trigger") return "trigger name";
  if (name == "job") return "job id";
  if (name == "tag") return "tag name";
  if (name == "consumer") return "consumer name";
  if (name == "client_id") return "client id";
  if (name == "id") return "contract id";
  if (name == "table") return "table name";
  if (name == "uuid") return "dataset uuid";
  return name;
}

// The regular expression of an OpenAPI path: {name} is one segment (the last one the rest of
// the path, '/' included, when `tail`); the rest is literal.
std::string PathRegex(std::string_view path, bool tail, std::vector<std::string>* names) {
  std::string re;
  for (size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == '{') {
      size_t end = path.find('}', i);
      names->emplace_back(path.substr(i + 1, end - i - 1));
      re += tail && end + 1 == path.size() ? "(.+)" : "([^/]+)";
      i = end;
    } else if (std::string_view(".^$|()[]*+?\\").find(c) != std::string_view::npos) {
      re += '\\';
      re += c;
    } else {
      re += c;
    }
  }
  return re;
}

using Response = http::response<http::string_body>;

// A fixed pool of worker threads over one bounded queue. Threads still busy when Stop's
// deadline passes are detached; the shared state stays alive until they finish.
class WorkerPool {
 public:
  struct State {
    std::mutex mu;
    std::condition_variable work, idle;
    std::deque<std::function<void()>> jobs;
    std::atomic<int> busy{0};       // jobs running; changed outside the lock
    std::atomic<size_t> queued{0};  // jobs.size(), readable without the lock
    std::atomic<bool> stop{false};
  };

  WorkerPool(int threads, size_t max_queue, std::shared_ptr<const Clock> clock)
      : max_queue_(max_queue), clock_(std::move(clock)) {
    state_ = std::make_shared<State>();
    try {
      for (int i = 0; i < threads; ++i) threads_.emplace_back([s = state_] { Work(*s); });
    } catch (const std::system_error&) {
      // Fewer workers when the system refuses threads.
    }
  }
  ~WorkerPool() { Stop(clock_->SteadyNow()); }

  // Whether a job waits for a worker (a hint: read without the lock).
  bool has_queued() const { return state_->queued.load(std::memory_order_relaxed) > 0; }

  // False when the queue is full (the caller answers 503) or the pool is stopping.
  bool TryPost(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      if (state_->stop || threads_.empty() || state_->jobs.size() >= max_queue_) return false;
      state_->jobs.push_back(std::move(job));
      state_->queued.store(state_->jobs.size(), std::memory_order_relaxed);
    }
    // Outside the lock, so the woken worker does not block on it at once (measured: half the
    // time of a small request went to that contention).
    state_->work.notify_one();
    return true;
  }

  // Stops taking jobs, waits until every job has finished or `deadline` (of the pool's clock),
  // then joins the threads (or detaches them when some are still busy).
  void Stop(SteadyTime deadline) {
    bool finished;
    {
      std::unique_lock<std::mutex> lock(state_->mu);
      state_->stop = true;
      state_->work.notify_all();
      finished = clock_->WaitUntil(lock, state_->idle, deadline,
                                   [&] { return state_->busy == 0 && state_->jobs.empty(); });
      if (!finished) {
        state_->jobs.clear();
        state_->queued.store(0, std::memory_order_relaxed);
      }
    }
    for (auto& t : threads_) {
      if (finished) {
        t.join();
      } else {
        t.detach();
      }
    }
    threads_.clear();
  }

 private:
  static void Work(State& s) {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(s.mu);
        s.work.wait(lock, [&] { return s.stop || !s.jobs.empty(); });
        if (s.jobs.empty()) return;
        job = std::move(s.jobs.front());
        s.jobs.pop_front();
        s.queued.store(s.jobs.size(), std::memory_order_relaxed);
        s.busy.fetch_add(1);
      }
      try {
        job();
      } catch (...) {
      }
      job = nullptr;  // drops the job's hold on the server before it counts as done
      if (s.busy.fetch_sub(1) == 1 && s.stop.load()) {
        std::lock_guard<std::mutex> lock(s.mu);
        s.idle.notify_all();
      }
    }
  }

  size_t max_queue_;
  std::shared_ptr<const Clock> clock_;
  std::shared_ptr<State> state_;
  std::vector<std::thread> threads_;
};

// The live connections, shared by the server and its sessions (which may outlive the server's
// Wait when a worker is still busy past the grace).
struct Connections {
  std::mutex mu;
  std::condition_variable changed;
  std::unordered_set<Session*> open;
};

// One request from its head to its response: what the I/O thread read, handed to a worker.
struct Exchange {
  std::shared_ptr<Session> session;
  http::request_header<> head;
  internal::RequestTarget target;
  internal::Framing framing;
  std::optional<std::string> body;  // read whole by the I/O thread (small bodies)
  bool expect_continue = false;
  bool continue_sent = false;
  bool keep_alive = true;  // what the client asked (HTTP/1.1 default, Connection header)
  const ServerOptions* options = nullptr;
  RequestRecord rec;
};

// The outcome of a blocking socket operation run on a session's strand for a worker.
struct IoResult {
  beast::error_code ec;
  size_t bytes = 0;
};

}  // namespace

// ---------------------------------------------------------------------------------------------

class Server::Impl : public std::enable_shared_from_this<Server::Impl> {
 public:
  struct CompiledRoute {
    const RouteDef* def;
    std::vector<std::string> params;
    std::string pattern;
    std::regex re;
    int series;
  };

  Impl(std::shared_ptr<Catalog> catalog, ServerOptions options,
       std::unique_ptr<auth::TokenAuthority> authority)
      : catalog_(std::move(catalog)),
        clock_(catalog_->shared_clock()),
        options_(std::move(options)),
        authority_(std::move(authority)),
        metrics_(SeriesList()),
        connections_(std::make_shared<Connections>()),
        acceptor_(net::make_strand(ioc_)),
        metrics_acceptor_(net::make_strand(ioc_)),
        uploads_(std::make_unique<upload::ContractService>(catalog_)) {}

  ~Impl() {
    Shutdown();
    Wait();
    LogDiscardedErrors(false);
  }

  // Makes this server the one that logs the errors DiscardError drops in this process (the last
  // started), or stops that.
  void LogDiscardedErrors(bool on);
  static inline std::mutex discard_log_mu_;
  static inline Impl* discard_logger_ = nullptr;  // guarded by discard_log_mu_

  void Configure();
  Status Start();
  void Shutdown();
  void Wait();
  int port() const { return port_.load(); }
  int metrics_port() const { return metrics_port_.load(); }
  auth::TokenAuthority& authority() { return *authority_; }

  Catalog& catalog() { return *catalog_; }
  // The clock the server reads (its catalog's: a test's manual clock drives the sweeps, the
  // durations it logs and the shutdown grace).
  const std::shared_ptr<Clock>& clock() const { return clock_; }
  // The upload service: one per server (its sweep timer is shared); calls act through As().
  upload::ContractService& uploads() { return *uploads_; }
  Metrics& metrics() { return metrics_; }
  const ServerOptions& options() const { return options_; }
  bool shutting_down() const { return shutting_down_.load(); }
  void set_redaction(internal::RedactionContext ctx) { redaction_ = std::move(ctx); }
  bool io_stopped() const { return io_stopped_.load(); }
  const std::shared_ptr<Connections>& connections() const { return connections_; }
  void Log(LogLine line);
  void LogRaw(std::string text);  // one JSON object, without the newline

  // Renders `st` as the JSON error response of the request `rec`.
  void RenderError(Response& res, const Status& st, RequestRecord& rec);
  // What the client may be told of `st` (PublicError); logs the original with the request id
  // when the two differ.
  Status ClientError(const Status& st, const std::string& request_id);
  // The metrics and the log line of a request whose response has gone out (or failed to).
  void LogRequest(RequestRecord& rec, int http_status);
  // Hands a complete request to a worker; false when the queue is full.
  bool Dispatch(std::shared_ptr<Exchange> ex);
  // Whether a worker that just answered may wait a moment for its connection's next request
  // (nothing is queued for a worker and the server is not stopping).
  bool may_keep_worker() const { return !shutting_down_ && !workers_->has_queued(); }

 private:
  friend class HttpCall;
  static std::vector<std::pair<std::string, std::string>> SeriesList();

  void Accept();
  void AcceptMetrics();
  // Runs on a worker: checks, routes and answers one request. Returns the connection's next
  // request when it arrived at once and this worker serves it too (Session::Finish).
  std::shared_ptr<Exchange> Serve(const std::shared_ptr<Exchange>& ex);
  // Expires upload contracts every options_.contract_sweep_interval_s until Shutdown.
  void Sweep();
  // Fires the due task schedules every options_.schedule_tick_interval_s until Shutdown.
  void TickSchedules();
  // Calls `fn` at once (a slot missed while every server was down runs now, once), then after
  // each wait of 0.8 to 1.2 times `poll_s` (servers started together do not ask in lockstep),
  // until Shutdown.
  void PollUntilStopped(double poll_s, const std::function<void()>& fn);
  // Runs the integrity sweep whenever this server claims its due slot (fsck_interval_s).
  void ScheduledFsck();
  void RunFsckOnce();
  // Runs each housekeeping step whenever this server claims its due slot.
  void Housekeeping();
  void RunHousekeepingOnce(Catalog::HousekeepingStep step, double interval_s);

  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<Clock> clock_;
  ServerOptions options_;
  std::unique_ptr<auth::TokenAuthority> authority_;
  Metrics metrics_;
  std::vector<CompiledRoute> routes_;
  std::shared_ptr<Connections> connections_;
  internal::RedactionContext redaction_;

  net::io_context ioc_{kIoThreads};
  // Keeps the I/O threads running while no operation is pending (a request with a worker,
  // after the acceptor closed); Wait stops them.
  net::executor_work_guard<net::io_context::executor_type> io_work_{ioc_.get_executor()};
  tcp::acceptor acceptor_;
  // The scrape-only listener (ServerOptions::metrics_port): GET /metrics without a token.
  tcp::acceptor metrics_acceptor_;
  std::atomic<int> metrics_port_{0};
  std::vector<std::thread> io_threads_;
  std::unique_ptr<WorkerPool> workers_;
  std::shared_ptr<const std::string> overflow_response_;  // the 503 past max_connections

  std::mutex state_mu_;
  std::condition_variable state_cv_;
  bool started_ = false;
  std::atomic<bool> shutting_down_{false};
  std::atomic<bool> io_stopped_{false};
  SteadyTime deadline_;  // of the shutdown grace, on clock_
  std::atomic<int> port_{0};
  std::mutex wait_mu_;
  bool waited_ = false;

  std::unique_ptr<upload::ContractService> uploads_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::mutex sweep_mu_;
  std::condition_variable sweep_cv_;
  bool sweep_stop_ = false;
  std::thread sweeper_;
  std::thread fsck_thread_;
  std::thread schedule_thread_;
  std::thread housekeeping_thread_;
};

namespace {

Status RequestTimeout(std::string what) {
  return Status::Of(codes::kRequestTimeout, what + " did not arrive in time");
}

// What a failed read of a request body means to the client: 408 past its deadline, 400
// incomplete_body when the client went away, 400 malformed_request for bad chunk framing.
Status BodyReadError(beast::error_code ec) {
  if (ec == beast::error::timeout) return RequestTimeout("the request body");
  if (ec == http::error::end_of_stream || ec == net::error::eof ||
      ec == http::error::partial_message || ec == net::error::connection_reset ||
      ec == net::error::operation_aborted) {
    return Status::Of(codes::kIncompleteBody, "the request body could not be read to its end");
  }
  return Status::Of(codes::kMalformedRequest, "malformed request body: " + ec.message());
}

const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// The strict framing of a parsed head: every Content-Length and Transfer-Encoding line.
Result<internal::Framing> FramingOf(const http::request_header<>& head) {
  std::vector<std::string_view> lengths, encodings;
  for (const auto& f : head) {
    if (f.name() == http::field::content_length) {
      lengths.emplace_back(f.value().data(), f.value().size());
    } else if (f.name() == http::field::transfer_encoding) {
      encodings.emplace_back(f.value().data(), f.value().size());
    }
  }
  return internal::CheckFraming(lengths, encodings);
}

// The bytes of a complete response: status line, fields, blank line, body.
std::string Serialize(const Response& res) {
  std::string out;
  out.reserve(256 + res.body().size());
  out += res.version() == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(res.result_int());
  out += ' ';
  auto reason = res.reason();
  out.append(reason.data(), reason.size());
  out += "\r\n";
  for (const auto& f : res) {
    out.append(f.name_string().data(), f.name_string().size());
    out += ": ";
    out.append(f.value().data(), f.value().size());
    out += "\r\n";
  }
  out += "\r\n";
  out += res.body();
  return out;
}

std::string FieldValue(const http::request_header<>& head, std::string_view name) {
  auto it = head.find(beast::string_view(name.data(), name.size()));
  if (it == head.end()) return "";
  return std::string(it->value().data(), it->value().size());
}

}  // namespace

// One connection. Everything that touches the socket runs on the session's strand: the I/O
// threads' reading of request heads (and of small bodies), the writing of complete responses,
// and the blocking reads and writes a worker asks for (RunBlocking), so a slow client costs a
// socket and a buffer, never a thread, until its request head is complete.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Server::Impl& server, tcp::socket socket)
      : server_(server),
        clock_(server.clock()),
        options_(server.options()),
        connections_(server.connections()),
        socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        buffer_(static_cast<size_t>(options_.max_header_bytes) + kBodyChunk) {}

  ~Session() {
    std::lock_guard<std::mutex> lock(connections_->mu);
    connections_->open.erase(this);
    connections_->changed.notify_all();
  }

  // Counts the connection among the open ones (the server's Wait waits for them).
  void Register() {
    std::lock_guard<std::mutex> lock(connections_->mu);
    connections_->open.insert(this);
  }

  void Start() {
    beast::error_code ec;
    socket_.set_option(tcp::no_delay(true), ec);
    net::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->ReadHead(); });
  }

  // At shutdown: a connection waiting for its next request closes now.
  void CloseIfIdle() {
    net::post(socket_.get_executor(), [self = shared_from_this()] {
      if (self->waiting_first_byte_) {
        beast::error_code ec;
        self->socket_.cancel(ec);
      }
    });
  }

  // Worker side: runs `start(done)` on the strand and waits for `done`. Fails with
  // operation_aborted when the I/O threads stopped (past the shutdown grace).
  template <class Start>
  IoResult RunBlocking(Start start) {
    auto promise = std::make_shared<std::promise<IoResult>>();
    auto future = promise->get_future();
    net::post(socket_.get_executor(),
              [self = shared_from_this(), start = std::move(start), promise]() mutable {
                Session* session = self.get();
                start([promise, session](beast::error_code ec, size_t n) {
                  promise->set_value({session->Outcome(ec), n});
                });
              });
    while (future.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
      if (server_.io_stopped()) return {net::error::operation_aborted, 0};
    }
    return future.get();
  }

  // The deadline, `after` from now, of a socket operation: a time for ArmDeadline, whose asio
  // steady_timer waits for std::chrono::steady_clock. It is read from the server's clock, whose
  // SteadyTime is that clock's time_point. That is correct with the real clock (Clock::Real(),
  // the one `tarn serve` runs on): its SteadyNow() reads std::chrono::steady_clock itself, the
  // very clock asio measures the deadline on. A test's ManualClock (kRunning, as whole-server
  // tests use) is ahead of the real steady time by what it was advanced, so its I/O deadlines
  // are that much later, never earlier: advancing it does not time a connection out.
  SteadyTime IoDeadline(std::chrono::milliseconds after) const {
    return clock_->SteadyNow() + after;
  }

  // Worker side: reads up to `n` body bytes into `data` under `deadline`. 0 bytes with no
  // error means the body has ended.
  IoResult ReadBodySome(char* data, size_t n, SteadyTime deadline) {
    for (;;) {
      if (body_parser_->is_done()) return {{}, 0};
      IoResult r = RunBlocking([this, data, n, deadline](auto done) {
        auto& body = body_parser_->get().body();
        body.data = data;
        body.size = n;
        ArmDeadline(deadline);
        http::async_read_some(socket_, buffer_, *body_parser_,
                              [this, n, done](beast::error_code ec, size_t) {
                                size_t got = n - body_parser_->get().body().size;
                                if (ec == http::error::need_buffer) ec = {};
                                done(ec, got);
                              });
      });
      if (r.ec || r.bytes > 0) return r;
    }
  }

  bool body_done() const { return !body_parser_ || body_parser_->is_done(); }

  // On the strand: the next operation must complete by `at`.
  void ArmDeadline(SteadyTime at) {
    timed_out_ = false;
    uint64_t gen = ++deadline_gen_;
    timer_.expires_at(at);
    timer_.async_wait([self = shared_from_this(), gen](beast::error_code ec) {
      if (ec || gen != self->deadline_gen_) return;
      self->timed_out_ = true;
      beast::error_code ignored;
      self->socket_.cancel(ignored);
    });
  }
  void Disarm() {
    ++deadline_gen_;
    timer_.cancel();
  }
  // The outcome of an operation that ran under ArmDeadline: a cancellation by the deadline is
  // beast::error::timeout.
  beast::error_code Outcome(beast::error_code ec) const {
    if (ec == net::error::operation_aborted && timed_out_) return beast::error::timeout;
    return ec;
  }

  // Worker side: "100 Continue" before the first read of a body whose client waits for it.
  beast::error_code SendContinue() {
    return RunBlocking([this](auto done) {
             ArmDeadline(IoDeadline(std::chrono::seconds(options_.write_timeout_s)));
             net::async_write(socket_, net::buffer(kContinue), done);
           })
        .ec;
  }

  // Worker side: writes the head of a streamed response (chunked, or of a known length), its
  // chunks, and its end.
  beast::error_code WriteStreamHead(http::response<http::empty_body>& res) {
    http::response_serializer<http::empty_body> sr(res);
    return RunBlocking([this, &sr](auto done) {
             ArmDeadline(IoDeadline(std::chrono::seconds(options_.write_timeout_s)));
             http::async_write_header(socket_, sr, done);
           })
        .ec;
  }
  beast::error_code WriteChunk(std::string_view bytes) {
    return RunBlocking([this, bytes](auto done) {
             ArmDeadline(IoDeadline(std::chrono::seconds(options_.write_timeout_s)));
             net::async_write(
                 socket_, http::make_chunk(net::const_buffer(bytes.data(), bytes.size())), done);
           })
        .ec;
  }
  // Worker side: bytes of a response sent with Content-Length, as they are.
  beast::error_code WriteRaw(std::string_view bytes) {
    return RunBlocking([this, bytes](auto done) {
             ArmDeadline(IoDeadline(std::chrono::seconds(options_.write_timeout_s)));
             net::async_write(socket_, net::const_buffer(bytes.data(), bytes.size()), done);
           })
        .ec;
  }
  beast::error_code WriteLastChunk() {
    return RunBlocking([this](auto done) {
             ArmDeadline(IoDeadline(std::chrono::seconds(options_.write_timeout_s)));
             net::async_write(socket_, http::make_chunk_last(), done);
           })
        .ec;
  }

  // Worker side, at the end of a request: a complete response to write (the worker is free
  // once this returns), or nullptr after a streamed response the worker already wrote.
  // `keep_alive` false closes the connection after it.
  //
  // A complete response is first sent from the worker itself without blocking (the socket has
  // no operation in progress while a worker holds the request, and the deadline is disarmed),
  // which saves the I/O thread a wake-up per request; what the socket does not take at once is
  // written by the strand under the write deadline. After a complete response the worker may
  // also take the connection's next request itself (NextInline); it is returned for the worker
  // to serve, and the strand reads the connection again otherwise.
  std::shared_ptr<Exchange> Finish(std::shared_ptr<Response> res, RequestRecord rec,
                                   bool keep_alive) {
    if (res != nullptr) {
      keep_alive = keep_alive && !server_.shutting_down() &&
                   requests_ < options_.max_requests_per_connection;
      res->keep_alive(keep_alive);
      // A HEAD answer keeps the length its GET would have (Serve cleared the body).
      if (!(res->body().empty() && res->has_content_length())) res->prepare_payload();
      auto bytes = std::make_shared<std::string>(Serialize(*res));
      ssize_t n = ::send(socket_.native_handle(), bytes->data(), bytes->size(),
                         MSG_NOSIGNAL | MSG_DONTWAIT);
      int status = res->result_int();
      res.reset();
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        server_.LogRequest(rec, status);
        net::post(socket_.get_executor(), [self = shared_from_this()] { self->Close(); });
        return nullptr;
      }
      size_t sent = n > 0 ? static_cast<size_t>(n) : 0;
      if (sent == bytes->size()) {
        server_.LogRequest(rec, status);
        if (keep_alive) return NextInline();
        net::post(socket_.get_executor(), [self = shared_from_this()] { self->Close(); });
        return nullptr;
      }
      net::post(socket_.get_executor(), [self = shared_from_this(), bytes, sent,
                                         rec = std::move(rec), status, keep_alive]() mutable {
        self->ArmDeadline(self->IoDeadline(std::chrono::seconds(self->options_.write_timeout_s)));
        net::async_write(self->socket_, net::buffer(bytes->data() + sent, bytes->size() - sent),
                         [self, bytes, rec = std::move(rec), status, keep_alive](
                             beast::error_code ec, size_t) mutable {
                           self->server_.LogRequest(rec, status);
                           if (ec || !keep_alive) return self->Close();
                           self->ReadHead();
                         });
      });
      return nullptr;
    }
    net::post(socket_.get_executor(),
              [self = shared_from_this(), rec = std::move(rec), keep_alive]() mutable {
                self->WriteResponse(nullptr, std::move(rec), keep_alive);
              });
    return nullptr;
  }

 private:
  // Waits for the next request: its first byte within the idle timeout (the head timeout for
  // the first request of a connection), then the whole head within the head timeout of it.
  void ReadHead() {
    NewHeadParser();
    if (server_.shutting_down() && buffer_.size() == 0) return Close();
    if (buffer_.size() > 0) return ReadRestOfHead();
    waiting_first_byte_ = true;
    ArmDeadline(IoDeadline(std::chrono::seconds(requests_ == 0 ? options_.header_timeout_s
                                                               : options_.idle_timeout_s)));
    socket_.async_read_some(buffer_.prepare(4096),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              self->waiting_first_byte_ = false;
                              // Idle or gone: closed quietly and at once. Nothing is unread
                              // and every response is written, so there is nothing for a
                              // lingering close to protect (and an idle keep-alive client
                              // would hold a shutting-down server for the whole linger).
                              if (ec || n == 0) return self->CloseNow();
                              self->buffer_.commit(n);
                              self->ReadRestOfHead();
                            });
  }

  void ReadRestOfHead() {
    head_start_ = clock_->SteadyNow();
    ArmDeadline(IoDeadline(std::chrono::seconds(options_.header_timeout_s)));
    http::async_read_header(socket_, buffer_, *head_parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              self->OnHead(self->Outcome(ec));
                            });
  }

  // Worker side, after a complete response on a kept-alive connection: when no other request
  // waits for a worker, waits up to kInlineWait for the connection's next request and, when its
  // head is there whole, takes it (the same checks as OnHead) and returns it for this worker to
  // serve. That spares a request on a busy connection two thread wake-ups (the I/O thread's,
  // then a worker's). Anything else (no bytes in time, a partial head, a refusal, a body to
  // pre-read) goes back to the strand, which carries on as if it had read the bytes itself.
  std::shared_ptr<Exchange> NextInline() {
    auto to_strand = [this](auto fn) {
      net::post(socket_.get_executor(),
                [self = shared_from_this(), fn = std::move(fn)]() mutable { fn(*self); });
      return nullptr;
    };
    if (buffer_.size() == 0 && server_.may_keep_worker()) {
      pollfd p{socket_.native_handle(), POLLIN, 0};
      if (::poll(&p, 1, kInlineWaitMs) == 1) {
        auto space = buffer_.prepare(4096);
        ssize_t n = ::recv(socket_.native_handle(), space.data(), space.size(), MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          return to_strand([](Session& s) { s.Close(); });  // gone: quietly, as ReadHead
        }
        if (n > 0) buffer_.commit(static_cast<size_t>(n));
      }
    }
    if (buffer_.size() == 0 || server_.shutting_down()) {
      return to_strand([](Session& s) { s.ReadHead(); });
    }
    head_start_ = clock_->SteadyNow();
    NewHeadParser();
    beast::error_code ec;
    size_t used = head_parser_->put(buffer_.data(), ec);
    if (ec || !head_parser_->is_header_done()) {  // the strand reads and judges it again
      return to_strand([](Session& s) { s.ReadHead(); });
    }
    buffer_.consume(used);
    Status refusal;
    auto ex = Admit(&refusal);
    if (!refusal.ok()) {
      return to_strand([ex, refusal](Session& s) mutable { s.Refuse(std::move(ex), refusal); });
    }
    if (PreReads(*ex)) {
      return to_strand([ex](Session& s) mutable { s.PreReadBody(std::move(ex)); });
    }
    return ex;
  }

  void NewHeadParser() {
    head_parser_.emplace();
    head_parser_->header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
    head_parser_->body_limit(boost::none);  // the routes apply their own limits
    body_parser_.reset();
  }

  // Whether the I/O thread reads the body of `ex` whole before a worker takes it.
  static bool PreReads(const Exchange& ex) {
    return ex.framing.content_length && *ex.framing.content_length > 0 &&
           *ex.framing.content_length <= kPreReadBytes;
  }

  void OnHead(beast::error_code ec) {
    if (ec) {
      auto ex = std::make_shared<Exchange>();
      ex->rec.start = head_start_;
      if (ec == http::error::end_of_stream || ec == net::error::eof ||
          ec == net::error::connection_reset || ec == net::error::operation_aborted) {
        return Close();
      }
      ex->rec.request_id = NewRequestId();
      ex->rec.method = "-";
      Status st;
      if (ec == beast::error::timeout) {
        st = RequestTimeout("the request head");
      } else if ((ec == http::error::header_limit || ec == http::error::buffer_overflow) &&
                 head_parser_->get().target().empty()) {  // still in the request line
        st = Status::Of(codes::kUriTooLong, "the request line is longer than the limit of " +
                                                std::to_string(options_.max_header_bytes) +
                                                " bytes");
      } else if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
        st = Status::Of(codes::kHeaderTooLarge,
                        "the request headers are larger than the limit of " +
                            std::to_string(options_.max_header_bytes) + " bytes");
      } else if (ec == http::error::partial_message) {
        return Close();
      } else {
        st = Status::Of(codes::kMalformedRequest, "malformed HTTP request: " + ec.message());
      }
      return Refuse(std::move(ex), st);
    }
    Status refusal;
    auto ex = Admit(&refusal);
    if (!refusal.ok()) return Refuse(std::move(ex), refusal);
    if (PreReads(*ex)) return PreReadBody(std::move(ex));
    Dispatch(std::move(ex));
  }

  // A complete request head in head_parser_: the exchange a worker serves, after the checks
  // every request passes; `*refusal` is set when it fails one (the exchange then only carries
  // what the refusal's response and log line need).
  std::shared_ptr<Exchange> Admit(Status* refusal) {
    auto ex = std::make_shared<Exchange>();
    ex->rec.start = head_start_;
    auto refuse = [&](Status st) {
      *refusal = std::move(st);
      return ex;
    };
    ++requests_;
    const auto& req = head_parser_->get();
    ex->head = req.base();
    ex->keep_alive = req.keep_alive();
    ex->rec.method = std::string(req.method_string().data(), req.method_string().size());
    std::string given = FieldValue(ex->head, "X-Request-Id");
    ex->rec.request_id = internal::SaneRequestId(given) ? given : NewRequestId();
    ex->rec.inflight = true;
    ex->options = &options_;
    server_.metrics().AddInflight(1);

    if (server_.shutting_down()) {
      return refuse(Status::Of(codes::kShuttingDown, "the server is shutting down; retry"));
    }
    // Beast bounds only what it buffers while a head is incomplete; a head that arrived whole in
    // one read is measured here.
    int64_t head_bytes =
        static_cast<int64_t>(req.method_string().size() + req.target().size() + 12);
    for (const auto& f : req) {
      head_bytes += static_cast<int64_t>(f.name_string().size() + f.value().size() + 4);
    }
    if (head_bytes > options_.max_header_bytes) {
      return refuse(Status::Of(codes::kHeaderTooLarge,
                               "the request headers are larger than the limit of " +
                                   std::to_string(options_.max_header_bytes) + " bytes"));
    }
    if (req.version() != 11 && req.version() != 10) {
      return refuse(Status::Of(codes::kMalformedRequest, "only HTTP/1.0 and HTTP/1.1 are served"));
    }
    auto framing = FramingOf(ex->head);
    if (!framing.ok()) return refuse(framing.status());
    ex->framing = *framing;
    auto target = internal::ParseTarget(std::string_view(req.target().data(), req.target().size()),
                                        kMaxPathBytes);
    if (!target.ok()) return refuse(target.status());
    ex->target = std::move(*target);
    http::verb verb = req.method();
    if ((verb == http::verb::get || verb == http::verb::head || verb == http::verb::options) &&
        ex->framing.has_body()) {
      return refuse(
          Status::Of(codes::kMalformedRequest, ex->rec.method + " requests must not carry a body"));
    }
    std::string expect = FieldValue(ex->head, "Expect");
    if (!expect.empty()) {
      for (char& c : expect) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (expect != "100-continue") {
        return refuse(Status::Of(codes::kMalformedRequest,
                                 "Expect: " + expect.substr(0, 64) + " is not supported"));
      }
      ex->expect_continue = ex->framing.has_body();
    }
    body_parser_.emplace(std::move(*head_parser_));
    body_parser_->body_limit(boost::none);
    head_parser_.reset();
    ex->session = shared_from_this();
    return ex;
  }

  // Reads a small body of known length whole, under the body deadline, then dispatches.
  void PreReadBody(std::shared_ptr<Exchange> ex) {
    int64_t length = *ex->framing.content_length;
    const SteadyTime deadline =
        IoDeadline(std::chrono::seconds(options_.body_grace_s) +
                   std::chrono::milliseconds(length * 1000 /
                                             std::max<int64_t>(1, options_.body_min_bytes_per_s)));
    ex->body.emplace();
    ex->body->resize(static_cast<size_t>(length));
    if (!ex->expect_continue) return PreReadSome(std::move(ex), 0, deadline);
    ArmDeadline(IoDeadline(std::chrono::seconds(options_.write_timeout_s)));
    net::async_write(
        socket_, net::buffer(kContinue),
        [self = shared_from_this(), ex, deadline](beast::error_code ec, size_t) mutable {
          if (ec) return self->Close();
          self->PreReadSome(std::move(ex), 0, deadline);
        });
  }

  // Reads the rest of a small body into ex->body from offset `at`, then dispatches it.
  void PreReadSome(std::shared_ptr<Exchange> ex, size_t at, SteadyTime deadline) {
    if (body_parser_->is_done()) {
      ex->body->resize(at);
      ex->rec.bytes_in = static_cast<int64_t>(at);
      return Dispatch(std::move(ex));
    }
    auto& body = body_parser_->get().body();
    body.data = ex->body->data() + at;
    body.size = ex->body->size() - at;
    ArmDeadline(deadline);
    http::async_read_some(
        socket_, buffer_, *body_parser_,
        [self = shared_from_this(), ex, at, deadline](beast::error_code ec, size_t) mutable {
          size_t got = (ex->body->size() - at) - self->body_parser_->get().body().size;
          ec = self->Outcome(ec);
          if (ec == http::error::need_buffer) ec = {};
          if (ec) {
            ex->rec.bytes_in = static_cast<int64_t>(at + got);
            return self->Refuse(ex, BodyReadError(ec));
          }
          self->PreReadSome(std::move(ex), at + got, deadline);
        });
  }

  void Dispatch(std::shared_ptr<Exchange> ex) {
    Disarm();  // the worker owns the request now; it sets its own deadlines
    if (server_.Dispatch(ex)) return;
    Refuse(std::move(ex), Status::Of(codes::kOverloaded, "the server is at its request limit (" +
                                                             std::to_string(options_.workers) +
                                                             " workers and their queue); retry"));
  }

  // Answers a request the I/O thread refused and closes the connection.
  void Refuse(std::shared_ptr<Exchange> ex, const Status& st) {
    auto res = std::make_shared<Response>();
    res->version(11);
    server_.RenderError(*res, st, ex->rec);
    res->set("X-Request-Id", ex->rec.request_id);
    WriteResponse(std::move(res), std::move(ex->rec), false);
  }

  void WriteResponse(std::shared_ptr<Response> res, RequestRecord rec, bool keep_alive) {
    keep_alive =
        keep_alive && !server_.shutting_down() && requests_ < options_.max_requests_per_connection;
    if (res == nullptr) {  // a streamed response, already written
      server_.LogRequest(rec, rec.stream_status);
      return keep_alive ? ReadHead() : Close();
    }
    res->keep_alive(keep_alive);
    res->prepare_payload();
    ArmDeadline(IoDeadline(std::chrono::seconds(options_.write_timeout_s)));
    int status = res->result_int();
    http::async_write(socket_, *res,
                      [self = shared_from_this(), res, rec = std::move(rec), keep_alive, status](
                          beast::error_code ec, size_t) mutable {
                        self->server_.LogRequest(rec, status);
                        if (ec || !keep_alive) return self->Close();
                        self->ReadHead();
                      });
  }

  // Closes after a lingering read: what the client still sends is dropped for a moment, so
  // the response just written is not destroyed by a reset.
  void CloseNow() {
    Disarm();
    beast::error_code ec;
    socket_.close(ec);
  }

  void Close() {
    beast::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return CloseNow();
    linger_.resize(16 << 10);
    linger_left_ = kLingerBytes;
    ArmDeadline(IoDeadline(kLinger));
    Linger();
  }
  void Linger() {
    socket_.async_read_some(net::buffer(linger_),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec || n >= self->linger_left_) return self->CloseNow();
                              self->linger_left_ -= n;
                              self->Linger();
                            });
  }

  Server::Impl& server_;
  std::shared_ptr<const Clock> clock_;  // the server's
  const ServerOptions& options_;
  std::shared_ptr<Connections> connections_;
  tcp::socket socket_;
  // The deadline of the operation in progress: on expiry it cancels the socket's operations
  // (which then complete with operation_aborted, read as a timeout) but keeps the socket open,
  // so a 408 can still be written.
  net::steady_timer timer_;
  // Atomic: a worker reads them (Outcome via RunBlocking's handler runs on the strand, but
  // CloseIfIdle and a cancelled wait's handler may run while a worker holds the request).
  std::atomic<uint64_t> deadline_gen_{0};
  std::atomic<bool> timed_out_{false};
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> head_parser_;
  std::optional<http::request_parser<http::buffer_body>> body_parser_;
  int requests_ = 0;
  std::atomic<bool> waiting_first_byte_{false};
  SteadyTime head_start_ = clock_->SteadyNow();  // when the request head began (the log's start)
  std::string linger_;
  size_t linger_left_ = 0;
};

// The Call of one request routed to one entry of the route table. Runs on a worker.
class HttpCall final : public Call {
 public:
  HttpCall(Server::Impl& server, const Server::Impl::CompiledRoute& route, Exchange& ex,
           const std::smatch& match, Response& res)
      : server_(server), route_(route), ex_(ex), res_(res) {
    for (size_t i = 0; i < route.params.size() && i + 1 < match.size(); ++i) {
      // Each segment is decoded on its own (the target's escapes were checked already).
      params_.emplace_back(route.params[i], PercentDecode(match[i + 1].str()).value_or(""));
    }
    // The Iceberg facade's {namespace} (workspace or workspace<0x1F>collection) and {table} are
    // the ws, coll and ds of the rest of the API: the role check and the audit use them.
    if (auto levels = internal::SplitNamespace(Param("namespace")); levels.ok()) {
      params_.emplace_back("ws", (*levels)[0]);
      if (levels->size() == 2) {
        params_.emplace_back("coll", (*levels)[1]);
        if (!Param("table").empty()) params_.emplace_back("ds", Param("table"));
      }
    }
    if (route.def->action[0] != '\0') {
      std::string target;
      if (!Param("ws").empty()) {
        target = Param("ws");
        if (!Param("coll").empty()) target += "." + Param("coll");
        if (!Param("ds").empty()) target += "." + Param("ds");
        if (!Param("view").empty()) target += "." + Param("view");
        if (!Param("task").empty()) target += "." + Param("task");
      } else {
        target = Param("client_id");
      }
      audit_.push_back({route.def->action, target, Param("ws")});
    }
  }

  Catalog& catalog() override { return server_.catalog(); }
  upload::ContractService& uploads() override {
    if (!uploads_) uploads_ = server_.uploads().As(principal_.client_id);
    return *uploads_;
  }
  auth::TokenAuthority& authority() override { return server_.authority(); }
  Metrics& metrics() override { return server_.metrics(); }
  const ServerOptions& options() const override { return server_.options(); }
  const RouteDef& route() const override { return *route_.def; }
  const std::string& request_id() const override { return ex_.rec.request_id; }
  const auth::Principal& principal() const override { return principal_; }
  void set_log_actor(const std::string& actor) override { ex_.rec.actor = actor; }

  const std::string& Param(std::string_view name) const override {
    for (const auto& [k, v] : params_) {
      if (k == name) return v;
    }
    static const std::string kNone;
    return kNone;
  }
  std::optional<std::string> Query(std::string_view name) const override {
    const auto names = internal::QueryNames(*route_.def);
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      undeclared_query_ = std::string(name);  // Run() fails the request
      return std::nullopt;
    }
    return ex_.target.QueryValue(name);
  }
  std::optional<int64_t> content_length() const override {
    if (ex_.framing.chunked) return std::nullopt;
    return ex_.framing.content_length;
  }
  std::string Header(std::string_view name) const override { return FieldValue(ex_.head, name); }

  Result<api::Json> JsonBody() override { return JsonBodyUpTo(options().max_json_body_bytes); }

  Result<api::Json> JsonBodyUpTo(int64_t limit) override {
    // No Content-Type is taken as JSON; any other type than JSON is refused before the body.
    std::string type = Header("Content-Type");
    for (char& ch : type) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string_view base = std::string_view(type).substr(0, type.find(';'));
    while (!base.empty() && base.back() == ' ') base.remove_suffix(1);
    if (!base.empty() && base != "application/json" &&
        !(base.size() > 5 && base.substr(base.size() - 5) == "+json")) {
      return Status::Of(codes::kUnsupportedMediaType, "the body must be application/json");
    }
    std::string body;
    TARN_RETURN_NOT_OK(ReadBody(limit, [&](std::string_view b) {
      body.append(b);
      return Status::OK();
    }));
    if (body.find_first_not_of(" \t\r\n") == std::string::npos) body = "{}";
    if (internal::JsonDepth(body, kMaxJsonDepth) > kMaxJsonDepth) {
      return Status::Of(codes::kMalformedJson,
                        "the body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels")
          .WithField("field", "");
    }
    return api::ParseObject(body);
  }

  Result<std::map<std::string, std::string>> FormBody() override {
    std::string type = Header("Content-Type");
    if (!type.empty() && type.rfind("application/x-www-form-urlencoded", 0) != 0) {
      return Status::Of(codes::kUnsupportedMediaType,
                        "the body must be application/x-www-form-urlencoded");
    }
    std::string body;
    TARN_RETURN_NOT_OK(ReadBody(options().max_json_body_bytes, [&](std::string_view b) {
      body.append(b);
      return Status::OK();
    }));
    return internal::ParseForm(body);
  }

  Status ReadBody(int64_t limit, const std::function<Status(std::string_view)>& sink) override {
    if (body_consumed_) return Status::Internal("the request body was read twice");
    body_consumed_ = true;
    if (ex_.body) {  // read whole by the I/O thread
      bytes_in_ = static_cast<int64_t>(ex_.body->size());
      if (bytes_in_ > limit) return TooLargeBody(limit);
      return ex_.body->empty() ? Status::OK() : sink(*ex_.body);
    }
    if (!ex_.framing.has_body()) {
      bytes_in_ = 0;
      return Status::OK();
    }
    if (auto length = content_length(); length && *length > limit) {
      body_consumed_ = false;  // left for Finish to drain or to close the connection
      return TooLargeBody(limit);
    }
    Status err;
    int64_t total = 0, discarded = 0;
    bool complete = Stream([&](std::string_view data) -> bool {
      total += static_cast<int64_t>(data.size());
      if (!err.ok()) {
        discarded += static_cast<int64_t>(data.size());
        return discarded <= kDrainBytes;
      }
      if (total > limit) {
        err = TooLargeBody(limit);
        discarded = total - limit;
        return discarded <= kDrainBytes;
      }
      try {
        err = sink(data);
      } catch (const std::exception& e) {
        err = Status::Internal(std::string("reading the body: ") + e.what());
      }
      return true;
    });
    bytes_in_ = total;
    body_complete_ = complete;
    if (!complete && err.ok()) err = read_error_;
    return err;
  }

  void ReplyJson(const api::Json& body, int http_status) override {
    res_.result(static_cast<unsigned>(http_status));
    res_.body() = api::Dump(body);
    res_.set(http::field::content_type, "application/json");
  }
  void ReplyText(std::string content_type, std::string body) override {
    res_.result(http::status::ok);
    res_.body() = std::move(body);
    res_.set(http::field::content_type, content_type);
  }
  void ReplyNoContent() override {
    res_.result(http::status::no_content);
    res_.body().clear();
  }
  void ReplyNotModified() override {
    res_.result(http::status::not_modified);
    res_.body().clear();
  }
  void ReplyStream(std::string content_type, StreamFn fn) override {
    res_.result(http::status::ok);
    res_.body().clear();
    stream_type_ = std::move(content_type);
    stream_fn_ = std::move(fn);
    stream_length_.reset();
  }
  void ReplySized(int http_status, std::string content_type, int64_t length, StreamFn fn) override {
    res_.result(static_cast<unsigned>(http_status));
    res_.body().clear();
    stream_type_ = std::move(content_type);
    stream_fn_ = std::move(fn);
    stream_length_ = length;
  }
  void SetHeader(std::string_view name, std::string value) override {
    res_.set(beast::string_view(name.data(), name.size()), value);
  }

  std::function<Status(const Status&)> ClientError() const override {
    Server::Impl* server = &server_;
    std::string id = ex_.rec.request_id;
    return [server, id](const Status& st) { return server->ClientError(st, id); };
  }

  std::vector<AuditEntry>& audit_entries() override { return audit_; }
  void set_audited_by_commit() override { audited_by_commit_ = true; }
  void set_audit_detail(std::string json) override { audit_detail_ = std::move(json); }
  AuditRecord CommitAudit(const std::string& action) const override {
    AuditRecord a;
    a.request_id = request_id();
    a.actor = principal_.client_id;
    a.action = action;
    return a;
  }

  // Identifiers, bearer token and the role the path needs, then the route.
  Status Run() {
    for (const auto& [name, value] : params_) {
      Status st = name == "name"        ? internal::ValidatePartName(value)
                  : name == "object"    ? ParseDatasetName(value).status()  // w.c.name
                  : name == "namespace" ? internal::SplitNamespace(value).status()
                  : name == "uuid"      ? ParseUuid(value).status()
                  : name == "key"       ? ValidateKey(value)  // a warehouse key: no "..", no "//"
                                        : ValidateIdentifier(ParamWhat(name), value);
      if (st.kind() == ErrorKind::kNotFound) return st;  // a namespace of three levels
      if (!st.ok()) {
        return Status(st.kind(), st.message())
            .WithCode(codes::kInvalidIdentifier)
            .WithField("field", name);
      }
    }
    const RouteDef& def = *route_.def;
    TARN_RETURN_NOT_OK(CheckQueryNames(def));
    if (def.body != BodyKind::kBytes) {
      std::string encoding = Header("Content-Encoding");
      if (!encoding.empty() && encoding != "identity") {
        return Status::Of(codes::kUnsupportedMediaType,
                          "Content-Encoding is not accepted on this route");
      }
    }
    if (def.need != Need::kOpen) {
      std::string header = Header("Authorization");
      if (header.empty()) {
        return Status::Of(codes::kUnauthenticated,
                          "this route needs a bearer token (POST /v1/token)");
      }
      TARN_ASSIGN_OR_RETURN(principal_, server_.authority().Verify(header));
      authenticated_ = true;
      ex_.rec.actor = principal_.client_id;
      if (def.need != Need::kToken) {
        Role role = RoleOf(def.need);
        if (def.scope == Scope::kPath) {
          std::string target = Param("coll");
          // Views and tasks share the datasets' names, and so their name patterns.
          if (!Param("ds").empty()) target += "." + Param("ds");
          if (!Param("view").empty()) target += "." + Param("view");
          if (!Param("task").empty()) target += "." + Param("task");
          TARN_RETURN_NOT_OK(auth::Authorize(principal_, role, Param("ws"), target));
        } else if (def.scope == Scope::kGlobal) {
          if (principal_.workspace != "*" || principal_.pattern != "*" || principal_.role < role) {
            return Status::Of(codes::kPermissionDenied, "this needs the " +
                                                            std::string(RoleName(role)) +
                                                            " role on every workspace ('*')")
                .WithField("needed_role", std::string(RoleName(role)))
                .WithField("workspace", "*");
          }
        }
      }
    }
    Status st = def.fn(*this);
    if (!undeclared_query_.empty()) {
      return Status::Internal("route " + std::string(def.method) + " " + def.path +
                              " read query parameter '" + undeclared_query_ +
                              "', which its route table row does not list");
    }
    return st;
  }

  // Every query parameter of the request is one the route reads (RouteDef::query); else 422
  // unknown_parameter naming the first other one.
  Status CheckQueryNames(const RouteDef& def) const {
    const auto names = internal::QueryNames(def);
    for (const auto& [name, value] : ex_.target.query) {
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      // At most 64 bytes: printable ASCII as it is, the rest (and '%') as %XX.
      static constexpr std::string_view kPunctuation = "!\"#$&'()*+,-./:;<=>?@[\\]^_`{|}~";
      const std::string shown = PercentEncode(std::string_view(name).substr(0, 64), kPunctuation);
      std::string known;
      for (auto n : names) known += (known.empty() ? "" : ", ") + std::string(n);
      return Status::Of(codes::kUnknownParameter,
                        "unknown query parameter '" + shown + "' (this route reads " +
                            (known.empty() ? std::string("none") : known) + ")")
          .WithField("field", shown);
    }
    return Status::OK();
  }

  // After the route: an unread or half-read body is drained, or the connection closes.
  void Finish() { DrainOrClose(ex_, body_consumed_, body_complete_, &must_close_, &bytes_in_); }

  // Drains the unread body of `ex` (up to kDrainBytes) or marks the connection for closing.
  static void DrainOrClose(Exchange& ex, bool consumed, bool complete, bool* must_close,
                           int64_t* bytes_in) {
    if (ex.body || !ex.framing.has_body()) return;
    if (consumed) {
      if (!complete) *must_close = true;
      return;
    }
    if (ex.expect_continue ||
        (ex.framing.content_length && *ex.framing.content_length > kDrainBytes)) {
      *must_close = true;  // a client waiting for 100 Continue never sent the body
      return;
    }
    int64_t seen = 0;
    Status unused;
    bool done = StreamBody(
        ex,
        [&](std::string_view data) {
          seen += static_cast<int64_t>(data.size());
          return seen <= kDrainBytes;
        },
        &unused);
    if (bytes_in != nullptr && *bytes_in < 0) *bytes_in = seen;
    if (!done) *must_close = true;
  }

  // Reads the streamed body of `ex` chunk by chunk under the body deadlines, passing each to
  // `fn` until it returns false. True when the body was read to its end; else `*error` says why
  // (unless `fn` stopped it).
  static bool StreamBody(Exchange& ex, const std::function<bool(std::string_view)>& fn,
                         Status* error) {
    Session& s = *ex.session;
    const ServerOptions& o = *ex.options;
    if (ex.expect_continue && !ex.continue_sent) {
      ex.continue_sent = true;
      if (s.SendContinue()) {
        *error = Status::Of(codes::kIncompleteBody, "the client went away");
        return false;
      }
    }
    // The body's rate deadlines count from the grace after its start.
    const SteadyTime graced = s.IoDeadline(std::chrono::seconds(o.body_grace_s));
    std::string buf(kBodyChunk, '\0');
    int64_t received = 0;
    for (;;) {
      if (s.body_done()) return true;
      auto rate_deadline =
          graced +
          std::chrono::milliseconds(received * 1000 / std::max<int64_t>(1, o.body_min_bytes_per_s));
      auto deadline = std::min(rate_deadline, s.IoDeadline(std::chrono::seconds(o.read_timeout_s)));
      IoResult r = s.ReadBodySome(buf.data(), buf.size(), deadline);
      if (r.ec) {
        *error = BodyReadError(r.ec);
        return false;
      }
      if (r.bytes == 0) return true;
      received += static_cast<int64_t>(r.bytes);
      if (!fn(std::string_view(buf.data(), r.bytes))) return false;
    }
  }

  Server::Impl& server_;
  const Server::Impl::CompiledRoute& route_;
  Exchange& ex_;
  Response& res_;
  std::vector<std::pair<std::string, std::string>> params_;
  auth::Principal principal_;
  bool authenticated_ = false;
  mutable std::string undeclared_query_;  // a name Query() was asked for that the route omits
  std::vector<AuditEntry> audit_;
  bool audited_by_commit_ = false;
  std::string audit_detail_ = "{}";
  bool body_consumed_ = false;
  bool body_complete_ = true;
  bool must_close_ = false;
  int64_t bytes_in_ = -1;
  Status read_error_;
  std::string stream_type_;
  StreamFn stream_fn_;
  std::optional<int64_t> stream_length_;              // ReplySized: the body's length
  std::unique_ptr<upload::ContractService> uploads_;  // the server's, acting as the caller

 private:
  bool Stream(const std::function<bool(std::string_view)>& fn) {
    return StreamBody(ex_, fn, &read_error_);
  }
};

std::vector<std::pair<std::string, std::string>> Server::Impl::SeriesList() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : internal::RouteTable()) out.emplace_back(r.path, r.method);
  return out;
}

void Server::Impl::Log(LogLine line) { LogRaw(std::move(line).Finish()); }

void Server::Impl::LogRaw(std::string text) {
  if (options_.log_sink) {
    options_.log_sink(text);
    return;
  }
  text += '\n';
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(2, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

Status Server::Impl::ClientError(const Status& st, const std::string& request_id) {
  Status shown = internal::PublicError(st, redaction_);
  if (shown.kind() != st.kind() || shown.message() != st.message() ||
      st.kind() == ErrorKind::kInternal) {
    Log(std::move(LogLine("error").Str("request_id", request_id).Str("message", st.ToString())));
  }
  // A redacted error names the request, whose "error" log line holds the details.
  if (shown.kind() == ErrorKind::kInternal || shown.message() != st.message()) {
    shown = shown.WithField("reference", request_id);
  }
  return shown;
}

void Server::Impl::RenderError(Response& res, const Status& st, RequestRecord& rec) {
  Status shown = ClientError(st, rec.request_id);
  auto [http, body] = internal::ErrorResponse(rec.error_shape, shown, HttpStatusFor(shown));
  res.result(static_cast<unsigned>(http));
  res.body() = api::Dump(body);
  res.set(http::field::content_type, "application/json");
  if (http == 503) res.set(http::field::retry_after, "1");
  if (http == 401) res.set(http::field::www_authenticate, "Bearer realm=\"tarn\"");
  rec.error_code = internal::ErrorCodeOf(shown);
}

void Server::Impl::LogRequest(RequestRecord& r, int http_status) {
  double seconds = std::chrono::duration<double>(clock_->SteadyNow() - r.start).count();
  int series = r.series >= 0 ? r.series : metrics_.UnmatchedSeries(r.method);
  metrics_.RecordRequest(series, http_status, seconds);
  if (http_status >= 400) {
    metrics_.CountError(r.error_code.empty() ? "http_" + std::to_string(http_status)
                                             : r.error_code);
  }
  if (r.inflight) metrics_.AddInflight(-1);
  r.inflight = false;
  try {
    Log(std::move(LogLine("request")
                      .Str("request_id", r.request_id)
                      .Str("method", r.method)
                      .Str("route", r.route)
                      .Int("status", http_status)
                      .Millis("duration_ms", seconds)
                      .Str("actor", r.actor)
                      .Int("bytes_in", r.bytes_in)
                      .Int("bytes_out", r.bytes_out)));
  } catch (...) {
  }
}

bool Server::Impl::Dispatch(std::shared_ptr<Exchange> ex) {
  std::weak_ptr<Impl> weak = weak_from_this();
  return workers_->TryPost([weak, ex = std::move(ex)] {
    auto self = weak.lock();
    if (self == nullptr) return;
    for (auto next = ex; next != nullptr;) next = self->Serve(next);
  });
}

std::shared_ptr<Exchange> Server::Impl::Serve(const std::shared_ptr<Exchange>& ex) {
  RequestRecord& rec = ex->rec;
  auto res = std::make_shared<Response>();
  res->version(ex->head.version());
  bool must_close = false;
  auto reply_error = [&](const Status& st, bool close) {
    res->body().clear();
    RenderError(*res, st, rec);
    must_close = must_close || close;
  };

  const std::string& path = ex->target.path;
  const std::string& raw_path = ex->target.raw_path;
  rec.error_shape = internal::ErrorShapeOf(raw_path);
  const bool head_only = ex->head.method() == http::verb::head;
  const CompiledRoute* route = nullptr;
  std::smatch match;
  std::string method = rec.method;
  if (ex->head.method() != http::verb::unknown) {
    for (const auto& r : routes_) {
      if (method == r.def->method && std::regex_match(raw_path, match, r.re)) {
        route = &r;
        break;
      }
    }
  }
  std::string content_type = FieldValue(ex->head, "Content-Type");
  std::string lower_type = content_type;
  for (char& c : lower_type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  StreamFn stream_fn;
  std::string stream_type;
  std::optional<int64_t> stream_length;

  // No shutdown check here: a request reaches a worker only once admitted (Session::Admit,
  // which answers 503 shutting_down to one whose head came after the shutdown), and an admitted
  // request is in flight, which the shutdown lets finish. Refusing it here too answered 503 to
  // a request admitted just before the shutdown but not yet taken by a worker.
  if (lower_type.rfind("multipart/", 0) == 0) {
    reply_error(Status::Of(codes::kUnsupportedMediaType, "multipart bodies are not accepted"),
                true);
  } else if (route == nullptr) {
    std::string allow;
    for (const auto& r : routes_) {
      // The Iceberg facade's rows for the spec's writes only say they are not served.
      if (r.def->fn == internal::IcebergReadOnlyRoute) continue;
      if (std::regex_match(raw_path, r.re)) {
        if (allow.find(r.def->method) != std::string::npos) continue;
        if (!allow.empty()) allow += ", ";
        allow += r.def->method;
      }
    }
    if (allow.empty()) {
      reply_error(Status::Of(codes::kRouteNotFound, "no route " + path.substr(0, 200)), false);
    } else {
      reply_error(Status::Of(codes::kMethodNotAllowed,
                             method.substr(0, 32) + " is not allowed on this path")
                      .WithField("allow", allow),
                  false);
      res->set(http::field::allow, allow);
    }
    int64_t unused = -1;
    HttpCall::DrainOrClose(*ex, false, true, &must_close, &unused);
    if (unused > 0) rec.bytes_in = unused;
  } else {
    rec.series = route->series;
    rec.route = route->def->path;
    HttpCall call(*this, *route, *ex, match, *res);
    Status st;
    try {
      st = call.Run();
    } catch (const std::exception& e) {
      st = Status::Internal(std::string("unexpected exception: ") + e.what());
    } catch (...) {
      st = Status::Internal("unexpected exception");
    }
    if (!st.ok()) {
      call.stream_fn_ = nullptr;
      reply_error(st, st.Is(codes::kRequestTimeout));
    }

    // Audit: every mutation by a verified caller, refused or not; a commit's own transaction
    // wrote the row of a commit that succeeded.
    if (route->def->action[0] != '\0' && call.authenticated_) {
      std::vector<AuditEntry> entries = call.audit_;
      if (entries.empty()) entries.push_back({route->def->action, "", ""});
      std::string outcome = st.ok() ? "ok" : internal::ErrorCodeOf(st);
      std::string detail = call.audit_detail_;
      if (!st.ok()) {
        detail = api::Dump(api::Json{{"http_status", HttpStatusFor(st)},
                                     {"message", st.message().substr(0, 500)}});
      }
      std::vector<AuditRecord> rows;
      for (const auto& e : entries) {
        AuditRecord a;
        a.request_id = rec.request_id;
        a.actor = call.principal_.client_id;
        a.action = e.action;
        a.target = e.target;
        a.workspace = e.workspace;
        a.outcome = outcome;
        a.detail_json = detail;
        rows.push_back(a);
        Log(std::move(LogLine("audit")
                          .Str("request_id", a.request_id)
                          .Str("actor", a.actor)
                          .Str("action", a.action)
                          .Str("target", a.target)
                          .Str("workspace", a.workspace)
                          .Str("outcome", a.outcome)));
      }
      if (!(st.ok() && call.audited_by_commit_)) {
        Status w = catalog_->WriteAudit(rows);
        if (!w.ok()) {
          Log(std::move(LogLine("error")
                            .Str("request_id", rec.request_id)
                            .Str("message", "writing the audit rows failed: " + w.ToString())));
        }
      }
    }

    call.Finish();
    if (call.bytes_in_ >= 0) rec.bytes_in = call.bytes_in_;
    must_close = must_close || call.must_close_;
    stream_fn = std::move(call.stream_fn_);
    stream_type = std::move(call.stream_type_);
    stream_length = call.stream_length_;
  }

  res->set("X-Request-Id", rec.request_id);
  bool keep_alive = ex->keep_alive && !must_close;
  Session& session = *ex->session;
  if (!stream_fn) {
    if (head_only) {  // the head its GET would have: the length, no body
      const size_t n = res->body().size();
      res->body().clear();
      const int status = res->result_int();
      if (status >= 200 && status != 204 && status != 304) res->content_length(n);
    }
    rec.bytes_out = static_cast<int64_t>(res->body().size());
    return session.Finish(std::move(res), std::move(rec), keep_alive);
  }

  // A streamed response: the head, then each piece the producer writes (as one chunk, or as it
  // is when the length is known).
  http::response<http::empty_body> head(res->result(), ex->head.version());
  for (const auto& f : *res) head.set(f.name_string(), f.value());
  head.set(http::field::content_type, stream_type);
  if (stream_length) {
    head.content_length(static_cast<uint64_t>(*stream_length));
  } else {
    head.chunked(true);
  }
  head.keep_alive(keep_alive);
  rec.stream_status = head.result_int();
  if (session.WriteStreamHead(head)) return session.Finish(nullptr, std::move(rec), false);
  if (head_only) return session.Finish(nullptr, std::move(rec), keep_alive);
  StreamWrite write = [&session, &rec, stream_length](std::string_view bytes) -> Status {
    if (bytes.empty()) return Status::OK();
    if (stream_length) {
      if (rec.bytes_out + static_cast<int64_t>(bytes.size()) > *stream_length) {
        return Status::Internal("a sized response's producer wrote past its length");
      }
      if (session.WriteRaw(bytes)) {
        return Status::Of(codes::kClientGone, "the client stopped reading the response");
      }
    } else if (session.WriteChunk(bytes)) {
      return Status::Of(codes::kClientGone, "the client stopped reading the response");
    }
    rec.bytes_out += static_cast<int64_t>(bytes.size());
    return Status::OK();
  };
  Status st;
  try {
    st = stream_fn(write);
  } catch (const std::exception& e) {
    st = Status::Internal(e.what());
  } catch (...) {
    st = Status::Internal("unknown exception");
  }
  // A failed producer leaves the stream without its end: the client sees it truncated.
  bool ended = stream_length ? st.ok() && rec.bytes_out == *stream_length
                             : st.ok() && !session.WriteLastChunk();
  if (st.ok() && stream_length && !ended) {
    st = Status::Internal("a sized response's producer wrote " + std::to_string(rec.bytes_out) +
                          " of its " + std::to_string(*stream_length) + " bytes");
  }
  if (!st.ok() && st.kind() == ErrorKind::kInternal) {
    Log(std::move(
        LogLine("error").Str("request_id", rec.request_id).Str("message", st.ToString())));
  }
  return session.Finish(nullptr, std::move(rec), keep_alive && ended);
}

void Server::Impl::Configure() {
  const auto& table = internal::RouteTable();
  for (size_t i = 0; i < table.size(); ++i) {
    CompiledRoute c;
    c.def = &table[i];
    c.pattern = PathRegex(table[i].path, table[i].tail, &c.params);
    c.re = std::regex(c.pattern);
    c.series = metrics_.RouteSeries(static_cast<int>(i));
    routes_.push_back(std::move(c));
  }
}

namespace {

// A connection past the limit: `text` (a whole 503 response) at once, without reading a
// request, then a lingering close.
void RefuseConnection(tcp::socket socket, std::shared_ptr<const std::string> text) {
  struct Refusal {
    explicit Refusal(tcp::socket s) : stream(std::move(s)) {}
    beast::tcp_stream stream;
    std::shared_ptr<const std::string> text;
    std::array<char, 4096> scratch;
    size_t left = kLingerBytes;
    void Linger(std::shared_ptr<Refusal> self) {
      stream.async_read_some(net::buffer(scratch), [self](beast::error_code ec, size_t n) {
        if (ec || n >= self->left) return self->stream.close();
        self->left -= n;
        self->Linger(self);
      });
    }
  };
  auto r = std::make_shared<Refusal>(std::move(socket));
  r->text = std::move(text);
  r->stream.expires_after(kLinger);
  net::async_write(r->stream, net::buffer(*r->text), [r](beast::error_code ec, size_t) {
    if (ec) return r->stream.close();
    r->stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    r->Linger(r);
  });
}

}  // namespace

void Server::Impl::Accept() {
  acceptor_.async_accept(net::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
    if (shutting_down_ || !acceptor_.is_open()) return;
    if (ec) {
      // Out of descriptors and the like: wait a moment rather than spin.
      auto timer = std::make_shared<net::steady_timer>(acceptor_.get_executor(),
                                                       std::chrono::milliseconds(50));
      timer->async_wait([this, timer](beast::error_code) { Accept(); });
      return;
    }
    size_t open;
    {
      std::lock_guard<std::mutex> lock(connections_->mu);
      open = connections_->open.size();
    }
    if (static_cast<int>(open) >= options_.max_connections) {
      metrics_.CountError(codes::kOverloaded.name);
      RefuseConnection(std::move(socket), overflow_response_);
    } else {
      auto session = std::make_shared<Session>(*this, std::move(socket));
      session->Register();
      session->Start();
    }
    Accept();
  });
}

namespace {

// One scrape on the metrics listener: a request head within kScrapeTimeout, then the answer
// and close. GET (or HEAD) /metrics is the metrics text; anything else 404, with no body read.
// Nothing here needs a token: the listener is the operator's to expose (docs/design/serve.md
// "Metrics for Prometheus").
class MetricsScrape : public std::enable_shared_from_this<MetricsScrape> {
 public:
  static constexpr std::chrono::seconds kScrapeTimeout{10};

  MetricsScrape(tcp::socket socket, std::function<std::string()> render)
      : stream_(std::move(socket)), render_(std::move(render)) {
    parser_.header_limit(8 << 10);  // the body is never read: the connection closes
  }

  void Run() {
    stream_.expires_after(kScrapeTimeout);
    auto self = shared_from_this();
    http::async_read_header(stream_, buffer_, parser_,
                            [self](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

 private:
  void OnRead(beast::error_code ec) {
    if (ec) return Close();
    const auto& req = parser_.get();
    std::string_view target(req.target().data(), req.target().size());
    target = target.substr(0, target.find('?'));
    res_.version(req.version());
    res_.keep_alive(false);
    const bool scrape = (req.method() == http::verb::get || req.method() == http::verb::head) &&
                        target == "/metrics";
    if (scrape) {
      res_.result(http::status::ok);
      res_.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      res_.body() = render_();
      if (req.method() == http::verb::head) {
        res_.content_length(res_.body().size());
        res_.body().clear();
      }
    } else {
      res_.result(http::status::not_found);
      res_.set(http::field::content_type, "text/plain; charset=utf-8");
      res_.body() = "this listener serves GET /metrics only\n";
    }
    if (req.method() != http::verb::head || !scrape) res_.prepare_payload();
    stream_.expires_after(kScrapeTimeout);
    auto self = shared_from_this();
    http::async_write(stream_, res_, [self](beast::error_code, size_t) { self->Close(); });
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request_parser<http::empty_body> parser_;
  http::response<http::string_body> res_;
  std::function<std::string()> render_;
};

}  // namespace

void Server::Impl::AcceptMetrics() {
  metrics_acceptor_.async_accept(net::make_strand(ioc_), [this](beast::error_code ec,
                                                                tcp::socket socket) {
    if (shutting_down_ || !metrics_acceptor_.is_open()) return;
    if (ec) {
      auto timer = std::make_shared<net::steady_timer>(metrics_acceptor_.get_executor(),
                                                       std::chrono::milliseconds(50));
      timer->async_wait([this, timer](beast::error_code) { AcceptMetrics(); });
      return;
    }
    std::make_shared<MetricsScrape>(std::move(socket), [this] { return metrics_.Render(); })->Run();
    AcceptMetrics();
  });
}

Status Server::Impl::Start() {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (started_) return Status::FailedPrecondition("the server was started already");
  if (shutting_down_) return Status::FailedPrecondition("the server was shut down");
  auto failed = [&](const std::string& why) {
    return Status::Of(codes::kBindFailed, "cannot listen on " + options_.host + ":" +
                                              std::to_string(options_.port) + ": " + why);
  };
  // Every connection is a descriptor: allow as many as the hard limit permits.
  struct rlimit rl;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }
  beast::error_code ec;
  auto address =
      net::ip::make_address(options_.host == "localhost" ? "127.0.0.1" : options_.host, ec);
  if (ec) return failed("not an IP address");
  tcp::endpoint endpoint(address, static_cast<unsigned short>(options_.port));
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(1024, ec);
  if (ec) {
    beast::error_code ignored;
    acceptor_.close(ignored);
    return failed(ec.message());
  }
  port_ = acceptor_.local_endpoint(ec).port();
  if (options_.public_url.empty()) {  // set before any request is read
    std::string host = options_.host;
    if (host == "0.0.0.0") host = "127.0.0.1";
    if (host == "::") host = "::1";
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    options_.public_url = "http://" + host + ":" + std::to_string(port_.load());
  }
  if (options_.metrics_port >= 0) {
    auto metrics_failed = [&](const std::string& why) {
      beast::error_code ignored;
      acceptor_.close(ignored);
      metrics_acceptor_.close(ignored);
      return Status::Of(codes::kBindFailed, "cannot listen for metrics on " +
                                                options_.metrics_host + ":" +
                                                std::to_string(options_.metrics_port) + ": " + why);
    };
    auto maddress = net::ip::make_address(
        options_.metrics_host == "localhost" ? "127.0.0.1" : options_.metrics_host, ec);
    if (ec) return metrics_failed("not an IP address");
    tcp::endpoint mendpoint(maddress, static_cast<unsigned short>(options_.metrics_port));
    metrics_acceptor_.open(mendpoint.protocol(), ec);
    if (!ec) metrics_acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) metrics_acceptor_.bind(mendpoint, ec);
    if (!ec) metrics_acceptor_.listen(64, ec);
    if (ec) return metrics_failed(ec.message());
    metrics_port_ = metrics_acceptor_.local_endpoint(ec).port();
  }
  {
    std::string body = api::Dump(api::ErrorBody(
        Status::Of(codes::kOverloaded, "the server is at its connection limit (" +
                                           std::to_string(options_.max_connections) + "); retry")));
    overflow_response_ = std::make_shared<const std::string>(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body);
  }
  workers_ = std::make_unique<WorkerPool>(
      options_.workers, static_cast<size_t>(options_.workers) * kQueuePerWorker, clock_);
  net::dispatch(acceptor_.get_executor(), [this] { Accept(); });
  if (metrics_acceptor_.is_open()) {
    net::dispatch(metrics_acceptor_.get_executor(), [this] { AcceptMetrics(); });
  }
  for (int i = 0; i < kIoThreads; ++i) {
    io_threads_.emplace_back([this] {
      for (;;) {
        try {
          ioc_.run();
          return;
        } catch (const std::exception& e) {
          Log(std::move(LogLine("error").Str("message", std::string("I/O thread: ") + e.what())));
        }
      }
    });
  }
  if (options_.contract_sweep_interval_s > 0) sweeper_ = std::thread([this] { Sweep(); });
  if (options_.fsck_interval_s > 0) fsck_thread_ = std::thread([this] { ScheduledFsck(); });
  if (options_.expire_interval_s > 0 || options_.cleanup_interval_s > 0 ||
      options_.compact_interval_s > 0) {
    housekeeping_thread_ = std::thread([this] { Housekeeping(); });
  }
  if (options_.schedule_tick_interval_s > 0) {
    schedule_thread_ = std::thread([this] { TickSchedules(); });
  }
  if (!options_.worker_url.empty()) {
    DispatcherOptions d;
    d.worker_url = options_.worker_url;
    d.poll_interval_s = options_.dispatch_poll_interval_s;
    d.lease_s = options_.job_lease_s;
    d.log = [this](std::string_view line) { LogRaw(std::string(line)); };
    dispatcher_ = std::make_unique<Dispatcher>(*catalog_, *authority_, std::move(d));
    dispatcher_->Start();
  }
  started_ = true;
  LogDiscardedErrors(true);
  return Status::OK();
}

void Server::Impl::LogDiscardedErrors(bool on) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    SetDiscardSink([](const Status& st, std::string_view what) {
      std::lock_guard<std::mutex> lock(discard_log_mu_);
      if (!discard_logger_) return;
      discard_logger_->Log(
          std::move(LogLine("discarded_error").Str("while", what).Str("error", st.ToString())));
    });
  });
  std::lock_guard<std::mutex> lock(discard_log_mu_);
  if (on) {
    discard_logger_ = this;
  } else if (discard_logger_ == this) {
    discard_logger_ = nullptr;
  }
}

void Server::Impl::Shutdown() {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (shutting_down_.exchange(true)) return;
  {
    std::lock_guard<std::mutex> sweep_lock(sweep_mu_);
    sweep_stop_ = true;
  }
  sweep_cv_.notify_all();
  deadline_ = clock_->SteadyNow() +
              std::chrono::milliseconds(static_cast<int64_t>(options_.shutdown_grace_s * 1e3));
  if (started_) {
    net::post(acceptor_.get_executor(), [this] {
      beast::error_code ec;
      acceptor_.close(ec);
    });
    net::post(metrics_acceptor_.get_executor(), [this] {
      beast::error_code ec;
      metrics_acceptor_.close(ec);
    });
    std::vector<std::shared_ptr<Session>> sessions;
    {
      std::lock_guard<std::mutex> conn_lock(connections_->mu);
      for (Session* s : connections_->open) {
        if (auto p = s->weak_from_this().lock()) sessions.push_back(std::move(p));
      }
    }
    for (auto& s : sessions) s->CloseIfIdle();
  }
  state_cv_.notify_all();
}

void Server::Impl::Wait() {
  std::lock_guard<std::mutex> wait_lock(wait_mu_);
  if (waited_) return;
  SteadyTime deadline;
  {
    std::unique_lock<std::mutex> lock(state_mu_);
    if (!started_) {
      if (!shutting_down_) state_cv_.wait(lock, [&] { return shutting_down_.load() || started_; });
      if (!started_) {
        waited_ = true;
        return;
      }
    }
    state_cv_.wait(lock, [&] { return shutting_down_.load(); });
    deadline = deadline_;
  }
  {
    // In-flight requests finish (and idle connections close) until the grace runs out.
    std::unique_lock<std::mutex> lock(connections_->mu);
    clock_->WaitUntil(lock, connections_->changed, deadline,
                      [&] { return connections_->open.empty(); });
  }
  io_stopped_ = true;
  io_work_.reset();
  ioc_.stop();
  for (auto& t : io_threads_) t.join();
  io_threads_.clear();
  if (workers_) {
    workers_->Stop(std::max(deadline, clock_->SteadyNow() + std::chrono::milliseconds(200)));
  }
  if (sweeper_.joinable()) sweeper_.join();
  if (fsck_thread_.joinable()) fsck_thread_.join();
  if (housekeeping_thread_.joinable()) housekeeping_thread_.join();
  if (schedule_thread_.joinable()) schedule_thread_.join();
  if (dispatcher_) dispatcher_->Stop();
  waited_ = true;
}

void Server::Impl::Sweep() {
  auto interval = std::chrono::milliseconds(
      static_cast<int64_t>(std::max(0.001, options_.contract_sweep_interval_s) * 1e3));
  const Clock& clock = *clock_;  // a test's manual clock drives the sweeps
  std::unique_lock<std::mutex> lock(sweep_mu_);
  while (!clock.WaitUntil(lock, sweep_cv_, clock.SteadyNow() + interval,
                          [this] { return sweep_stop_; })) {
    lock.unlock();
    Result<int64_t> swept = Status::Internal("the sweep threw");
    try {
      swept = uploads_->SweepExpired();
    } catch (const std::exception& e) {
      swept = Status::Internal(std::string("the sweep threw: ") + e.what());
    }
    if (!swept.ok()) {
      Log(std::move(LogLine("error").Str(
          "message", "expiring upload contracts: " + swept.status().ToString())));
    } else if (*swept > 0) {
      Log(std::move(LogLine("sweep").Int("contracts_expired", *swept)));
    }
    lock.lock();
  }
}

void Server::Impl::TickSchedules() {
  auto interval = std::chrono::milliseconds(
      static_cast<int64_t>(std::max(0.001, options_.schedule_tick_interval_s) * 1e3));
  const Clock& clock = *clock_;
  std::unique_lock<std::mutex> lock(sweep_mu_);
  while (!clock.WaitUntil(lock, sweep_cv_, clock.SteadyNow() + interval,
                          [this] { return sweep_stop_; })) {
    lock.unlock();
    Result<std::vector<JobInfo>> fired = Status::Internal("the schedule tick threw");
    try {
      fired = catalog_->FireDueSchedules();
    } catch (const std::exception& e) {
      fired = Status::Internal(std::string("the schedule tick threw: ") + e.what());
    }
    if (!fired.ok()) {
      Log(std::move(LogLine("error").Str(
          "message", "firing due task schedules: " + fired.status().ToString())));
    } else if (!fired->empty()) {
      Log(std::move(LogLine("schedule").Int("fired", static_cast<int64_t>(fired->size()))));
    }
    lock.lock();
  }
}

void Server::Impl::PollUntilStopped(double poll_s, const std::function<void()>& fn) {
  auto poll = [poll_s] {
    const double jitter = 0.8 + 0.4 * static_cast<double>(RandomU64() % 1001) / 1000.0;
    return std::chrono::milliseconds(static_cast<int64_t>(std::max(0.001, poll_s * jitter) * 1e3));
  };
  const Clock& clock = *clock_;
  std::unique_lock<std::mutex> lock(sweep_mu_);
  for (bool first = true; first || !clock.WaitUntil(lock, sweep_cv_, clock.SteadyNow() + poll(),
                                                    [this] { return sweep_stop_; });
       first = false) {
    if (sweep_stop_) return;
    lock.unlock();
    fn();
    lock.lock();
  }
}

void Server::Impl::ScheduledFsck() {
  PollUntilStopped(std::min(options_.fsck_poll_interval_s, options_.fsck_interval_s),
                   [this] { RunFsckOnce(); });
}

namespace {

// This server as periodic_runs names the runner of a slot: host:pid.
const std::string& RunnerName() {
  static const std::string runner = [] {
    char host[256] = {0};
    if (::gethostname(host, sizeof(host) - 1) != 0) host[0] = 0;
    return std::string(host) + ":" + std::to_string(::getpid());
  }();
  return runner;
}

}  // namespace

void Server::Impl::Housekeeping() {
  using Step = Catalog::HousekeepingStep;
  const std::pair<Step, double> steps[] = {{Step::kExpire, options_.expire_interval_s},
                                           {Step::kCleanup, options_.cleanup_interval_s},
                                           {Step::kCompact, options_.compact_interval_s},
                                           {Step::kHydrate, options_.hydrate_interval_s},
                                           {Step::kManifest, options_.manifest_interval_s},
                                           {Step::kFlush, options_.flush_interval_s}};
  double shortest = options_.housekeeping_poll_interval_s;
  for (const auto& [step, every] : steps) {
    if (every > 0) shortest = std::min(shortest, every);
  }
  PollUntilStopped(shortest, [&] {
    for (const auto& [step, every] : steps) {
      if (every > 0 && !shutting_down_.load()) RunHousekeepingOnce(step, every);
    }
  });
}

void Server::Impl::RunHousekeepingOnce(Catalog::HousekeepingStep step, double interval_s) {
  const std::string name(Catalog::HousekeepingStepName(step));
  Result<Catalog::HousekeepingReport> report = Status::Internal("housekeeping threw");
  const Stopwatch watch(*clock_);
  try {
    auto claimed = catalog_->ClaimPeriodicRun("housekeeping." + name,
                                              static_cast<int64_t>(interval_s * 1e6), RunnerName());
    if (!claimed.ok()) {
      Log(std::move(LogLine("error").Str(
          "message", "claiming housekeeping step " + name + ": " + claimed.status().ToString())));
      return;
    }
    if (!*claimed) return;  // not due, or another server runs this slot
    report = catalog_->RunHousekeeping(step, [this] { return shutting_down_.load(); });
  } catch (const std::exception& e) {
    report = Status::Internal("housekeeping threw: " + std::string(e.what()));
  }
  internal::Metrics::HousekeepingPass pass;
  pass.seconds = watch.Seconds();
  if (!report.ok()) {
    pass.failed = true;
    metrics_.RecordHousekeeping(static_cast<size_t>(step), pass);
    Log(std::move(LogLine("error").Str(
        "message", "housekeeping step " + name + ": " + report.status().ToString())));
    return;
  }
  pass.dataset_failures = report->failures;
  pass.snapshots_expired = report->snapshots_expired;
  pass.objects_deleted = report->objects_deleted;
  pass.bytes_deleted = report->bytes_deleted;
  pass.files_rewritten = report->files_rewritten;
  pass.bytes_rewritten = report->bytes_rewritten;
  pass.files_hydrated = report->files_hydrated;
  pass.manifests_written = report->manifests_written;
  pass.files_flushed = report->files_flushed;
  pass.bytes_flushed = report->bytes_flushed;
  metrics_.RecordHousekeeping(static_cast<size_t>(step), pass);
  Log(std::move(LogLine("housekeeping")
                    .Str("step", name)
                    .Int("datasets", report->datasets)
                    .Int("failures", report->failures)
                    .Int("snapshots_expired", report->snapshots_expired)
                    .Int("objects_deleted", report->objects_deleted)
                    .Int("files_rewritten", report->files_rewritten)
                    .Int("files_hydrated", report->files_hydrated)
                    .Int("manifests_written", report->manifests_written)
                    .Int("files_flushed", report->files_flushed)
                    .Int("bytes_flushed", report->bytes_flushed)
                    .Millis("duration_ms", pass.seconds)));
}

void Server::Impl::RunFsckOnce() {
  const std::string& runner = RunnerName();
  const auto interval_us = static_cast<int64_t>(options_.fsck_interval_s * 1e6);
  Result<FsckReport> report = Status::Internal("the integrity sweep threw");
  const Stopwatch watch(*clock_);
  try {
    auto claimed = catalog_->ClaimPeriodicRun("fsck", interval_us, runner);
    if (!claimed.ok()) {
      Log(std::move(LogLine("error").Str(
          "message", "claiming the integrity sweep: " + claimed.status().ToString())));
      return;
    }
    if (!*claimed) return;  // not due, or another server runs this slot
    FsckOptions options;
    options.cancelled = [this] { return shutting_down_.load(); };
    report = catalog_->Fsck(options);
  } catch (const std::exception& e) {
    report = Status::Internal(std::string("the integrity sweep threw: ") + e.what());
  }
  const double seconds = watch.Seconds();
  if (!report.ok()) {
    metrics_.RecordFsck(-1);
    Log(std::move(LogLine("error").Str(
        "message", "the scheduled integrity sweep: " + report.status().ToString())));
    return;
  }
  metrics_.RecordFsck(static_cast<int64_t>(report->findings.size()));
  Log(std::move(LogLine("fsck")
                    .Int("findings", static_cast<int64_t>(report->findings.size()))
                    .Int("datasets_checked", report->datasets_checked)
                    .Int("files_checked", report->files_checked)
                    .Int("objects_listed", report->objects_listed)
                    .Millis("duration_ms", seconds)));
}

// ---------------------------------------------------------------------------------------------

Result<std::unique_ptr<Server>> Server::Make(std::shared_ptr<Catalog> catalog,
                                             ServerOptions options) {
  if (catalog == nullptr) return Status::InvalidArgument("Server::Make needs a catalog");
  auto bad = [](const std::string& what) {
    return Status::Of(codes::kInvalidOption, "server option " + what);
  };
  if (options.max_connections < 1 || options.max_connections > 100000) {
    return bad("max connections must be between 1 and 100000");
  }
  if (options.workers < 1 || options.workers > 1024) {
    return bad("workers must be between 1 and 1024");
  }
  if (options.max_json_body_bytes < 1 || options.max_append_body_bytes < 1 ||
      options.max_negotiate_body_bytes < 1) {
    return bad("body limits must be positive");
  }
  if (options.max_header_bytes < 256 || options.max_header_bytes > (1 << 20)) {
    return bad("max header bytes must be between 256 and 1 MiB");
  }
  if (options.read_timeout_s < 1 || options.write_timeout_s < 1 || options.idle_timeout_s < 1 ||
      options.header_timeout_s < 1) {
    return bad("timeouts must be at least 1 second");
  }
  if (options.body_min_bytes_per_s < 1 || options.body_grace_s < 1) {
    return bad("the body rate and grace must be positive");
  }
  if (options.token_ttl_s < 1) return bad("token ttl must be positive");
  if (options.shutdown_grace_s < 0) return bad("shutdown grace must not be negative");
  if (options.contract_sweep_interval_s < 0) return bad("sweep interval must not be negative");
  if (options.fsck_interval_s != 0 && !(options.fsck_interval_s >= 1)) {
    return bad("fsck interval must be 0 (never) or at least one second");
  }
  for (double every :
       {options.expire_interval_s, options.cleanup_interval_s, options.compact_interval_s}) {
    if (every != 0 && !(every >= 1)) {
      return bad("housekeeping intervals must be 0 (never) or at least one second");
    }
  }
  if (!(options.housekeeping_poll_interval_s > 0)) {
    return bad("housekeeping poll interval must be positive");
  }
  if (!(options.fsck_poll_interval_s > 0)) return bad("fsck poll interval must be positive");
  if (!(options.schedule_tick_interval_s >= 0)) {
    return bad("schedule tick interval must not be negative");
  }
  if (options.max_requests_per_connection < 1) {
    return bad("max requests per connection must be positive");
  }
  if (!options.public_url.empty()) {
    std::string& u = options.public_url;
    while (!u.empty() && u.back() == '/') u.pop_back();
    const bool scheme = u.rfind("http://", 0) == 0 || u.rfind("https://", 0) == 0;
    const size_t host_at = u.find("://") + 3;
    bool clean = scheme && u.size() > host_at;
    for (char ch : u) {
      clean = clean && static_cast<unsigned char>(ch) > 0x20 && ch != 0x7f && ch != '?' &&
              ch != '#' && ch != '"' && ch != '\\';
    }
    if (!clean) {
      return bad("public url must be an http:// or https:// URL without query or fragment");
    }
  }
  auth::AuthorityOptions ao;
  ao.token_ttl_s = options.token_ttl_s;
  TARN_ASSIGN_OR_RETURN(auto authority, auth::TokenAuthority::Open(*catalog, ao));
  // What error bodies must not say: the warehouse, the metastore and the catalog directory.
  std::string metastore_uri = catalog->metastore().uri();
  std::string catalog_dir;
  if (catalog->metastore().backend() == MetastoreBackend::kSqlite) {
    catalog_dir = std::filesystem::path(metastore_uri).parent_path().string();
  }
  auto redaction =
      internal::RedactionContext::For(catalog->warehouse().uri(), metastore_uri, catalog_dir);
  auto impl = std::make_shared<Impl>(std::move(catalog), std::move(options), std::move(authority));
  impl->set_redaction(std::move(redaction));
  impl->Configure();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  impl_->Shutdown();
  impl_->Wait();
}

Status Server::Start() { return impl_->Start(); }
int Server::port() const { return impl_->port(); }
int Server::metrics_port() const { return impl_->metrics_port(); }
void Server::Shutdown() { impl_->Shutdown(); }
void Server::Wait() { impl_->Wait(); }
auth::TokenAuthority& Server::authority() { return impl_->authority(); }

std::vector<RouteInfo> Server::Routes() {
  std::vector<RouteInfo> out;
  for (const auto& r : internal::RouteTable()) {
    RouteInfo info;
    info.method = r.method;
    info.path = r.path;
    info.role = NeedName(r.need);
    info.global = r.scope == Scope::kGlobal;
    info.body = BodyName(r.body);
    info.action = r.action;
    for (auto n : internal::QueryNames(r)) info.query.emplace_back(n);
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace tarn::server

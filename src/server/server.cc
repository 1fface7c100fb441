// The HTTP plumbing of the server over cpp-httplib: connection pool and limits, request ids,
// authentication and role checks of the route table, error bodies, audit, metrics and logs.
#include "server/server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <regex>
#include <system_error>
#include <thread>

#include "catalog/catalog.h"
#include "common/random.h"
#include "server/server_internal.h"
#include "upload/contract_service.h"

namespace tarn::server {

using internal::AuditEntry;
using internal::BodyKind;
using internal::Call;
using internal::Metrics;
using internal::Need;
using internal::RouteDef;
using internal::Scope;
using internal::StreamFn;
using internal::StreamWrite;
using Clock = std::chrono::steady_clock;

namespace internal {

int HttpStatusOf(const Status& st) {
  std::string code = ErrorCodeOf(st);
  if (code == "malformed_json" || code == "malformed_request" || code == "incomplete_body") {
    return 400;
  }
  if (code == "header_too_large") return 431;
  if (code == "uri_too_long") return 414;
  if (code == "unsupported_media_type") return 415;
  if (code == "method_not_allowed") return 405;
  return HttpStatusFor(st.kind());
}

std::string ErrorCodeOf(const Status& st) {
  for (const auto& [k, v] : st.fields()) {
    if (k == "code") return v;
  }
  return std::string(ErrorKindName(st.kind()));
}

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
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  auto decode = [&](std::string_view s) -> Result<std::string> {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '+') {
        out += ' ';
      } else if (s[i] == '%') {
        if (i + 2 >= s.size() || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0) {
          return Status::InvalidArgument("bad percent escape in the form body")
              .WithField("code", "malformed_request");
        }
        out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
        i += 2;
      } else {
        out += s[i];
      }
    }
    return out;
  };
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t amp = text.find('&', pos);
    if (amp == std::string_view::npos) amp = text.size();
    std::string_view pair = text.substr(pos, amp - pos);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      TARN_ASSIGN_OR_RETURN(std::string key, decode(pair.substr(0, eq)));
      std::string value;
      if (eq != std::string_view::npos) {
        TARN_ASSIGN_OR_RETURN(value, decode(pair.substr(eq + 1)));
      }
      out.emplace(std::move(key), std::move(value));  // the first of repeated keys wins
    }
    pos = amp + 1;
  }
  return out;
}

}  // namespace internal

namespace {

// A refused or failed request's unread body is read and dropped up to this many bytes so the
// connection stays usable; past it the connection is closed after the response.
constexpr int64_t kDrainBytes = 8 << 20;
constexpr size_t kMaxPathBytes = 2048;
constexpr int kOverflowThreads = 4;
constexpr int kMaxJsonDepth = 64;

// Set on the threads that answer connections past the limit.
thread_local bool tl_overflow = false;

// What the log line of the request being served on this thread needs: started by the
// pre-routing handler, completed by the route, written by the logger (all on the connection's
// thread).
struct RequestRecord {
  bool active = false;
  Clock::time_point start;
  std::string request_id;
  int series = -1;
  std::string route = "unmatched";
  std::string actor;
  int64_t bytes_in = -1;
  int64_t bytes_out = 0;  // streamed bytes
  std::string error_code;
};
thread_local RequestRecord tl_req;

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
  auto now = std::chrono::system_clock::now();
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
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
        size_t n = Utf8Length(v.substr(i));
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
  // The length of the valid UTF-8 sequence starting `s`, 0 when it is not one.
  static size_t Utf8Length(std::string_view s) {
    auto cont = [&](size_t k) {
      return k < s.size() && (static_cast<unsigned char>(s[k]) & 0xc0) == 0x80;
    };
    unsigned char c = static_cast<unsigned char>(s[0]);
    if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
      if (!cont(1) || !cont(2)) return 0;
      unsigned char c1 = static_cast<unsigned char>(s[1]);
      if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f)) return 0;  // overlong, surrogate
      return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
      if (!cont(1) || !cont(2) || !cont(3)) return 0;
      unsigned char c1 = static_cast<unsigned char>(s[1]);
      if ((c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 > 0x8f)) return 0;
      return 4;
    }
    return 0;
  }

  std::string text_;
};

Status TooLargeBody(int64_t limit) {
  return Status::TooLarge("the request body is larger than the limit of " + std::to_string(limit) +
                          " bytes")
      .WithField("code", "too_large")
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
  if (name == "tag") return "tag name";
  if (name == "consumer") return "consumer name";
  if (name == "client_id") return "client id";
  if (name == "id") return "contract id";
  return name;
}

// The regular expression of an OpenAPI path: {name} is one segment; the rest is literal.
std::string PathRegex(std::string_view path, std::vector<std::string>* names) {
  std::string re;
  for (size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == '{') {
      size_t end = path.find('}', i);
      names->emplace_back(path.substr(i + 1, end - i - 1));
      re += "([^/]+)";
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

// Makes the server close the connection after this response: the body is sent without a
// length and the provider then reports failure, which is the library's only way to end a
// keep-alive connection from a handler.
void ForceClose(httplib::Response& res) {
  std::string body = std::move(res.body);
  res.body.clear();
  std::string type = res.get_header_value("Content-Type");
  auto range = res.headers.equal_range("Content-Type");
  res.headers.erase(range.first, range.second);
  res.set_header("Connection", "close");
  res.set_content_provider(type.empty() ? "text/plain" : type,
                           [body = std::move(body)](size_t, httplib::DataSink& sink) {
                             if (!body.empty()) sink.write(body.data(), body.size());
                             return false;
                           });
}

// The task queue of the HTTP library: one thread per admitted connection, at most
// max_connections; connections past that are answered 503 by a few overflow threads.
// Threads that are still busy when the shutdown grace runs out are detached; the shared state
// and the server (kept by each job) stay alive until they finish.
class ConnectionPool : public httplib::TaskQueue {
 public:
  struct State {
    std::mutex mu;
    std::condition_variable work, overflow_work, idle;
    std::deque<std::function<void()>> jobs, overflow;
    int admitted = 0;     // connections queued or being served by the main threads
    int overflowing = 0;  // connections queued or being answered by the overflow threads
    bool stop = false;
  };

  ConnectionPool(int max_connections, std::shared_ptr<void> keep,
                 std::function<Clock::time_point()> deadline)
      : max_(max_connections), keep_(std::move(keep)), deadline_(std::move(deadline)) {
    state_ = std::make_shared<State>();
    // When the system refuses threads, fewer connections are admitted (the rest get 503).
    int admitted = 0;
    try {
      for (int i = 0; i < kOverflowThreads; ++i) {
        threads_.emplace_back([s = state_] { Work(*s, true); });
      }
      for (; admitted < max_connections; ++admitted) {
        threads_.emplace_back([s = state_] { Work(*s, false); });
      }
    } catch (const std::system_error&) {
    }
    max_ = admitted;
  }

  void enqueue(std::function<void()> fn) override {
    auto job = [fn = std::move(fn), keep = keep_]() { fn(); };
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->admitted < max_) {
      ++state_->admitted;
      state_->jobs.push_back(std::move(job));
      state_->work.notify_one();
    } else {
      ++state_->overflowing;
      state_->overflow.push_back(std::move(job));
      state_->overflow_work.notify_one();
    }
  }

  void shutdown() override {
    bool finished;
    {
      std::unique_lock<std::mutex> lock(state_->mu);
      state_->stop = true;
      state_->work.notify_all();
      state_->overflow_work.notify_all();
      finished = state_->idle.wait_until(
          lock, deadline_(), [&] { return state_->admitted == 0 && state_->overflowing == 0; });
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
  static void Work(State& s, bool overflow) {
    tl_overflow = overflow;
    auto& queue = overflow ? s.overflow : s.jobs;
    auto& cv = overflow ? s.overflow_work : s.work;
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(s.mu);
        cv.wait(lock, [&] { return s.stop || !queue.empty(); });
        if (queue.empty()) return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      job();
      job = nullptr;  // drops the job's hold on the server before it counts as done
      std::lock_guard<std::mutex> lock(s.mu);
      --(overflow ? s.overflowing : s.admitted);
      if (s.admitted == 0 && s.overflowing == 0) s.idle.notify_all();
    }
  }

  int max_;
  std::shared_ptr<void> keep_;
  std::function<Clock::time_point()> deadline_;
  std::shared_ptr<State> state_;
  std::vector<std::thread> threads_;
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
        options_(std::move(options)),
        authority_(std::move(authority)),
        metrics_(SeriesList()),
        svr_(std::make_unique<httplib::Server>()),
        uploads_(std::make_unique<upload::ContractService>(catalog_)) {}

  ~Impl() {
    Shutdown();
    Wait();
  }

  void Configure();
  Status Start();
  void Shutdown();
  void Wait();
  int port() const { return port_.load(); }
  auth::TokenAuthority& authority() { return *authority_; }

  // Used by HttpCall.
  Catalog& catalog() { return *catalog_; }
  // The upload service: one per server (its sweep timer is shared); calls act through As().
  upload::ContractService& uploads() { return *uploads_; }
  Metrics& metrics() { return metrics_; }
  const ServerOptions& options() const { return options_; }
  void Log(LogLine line);

 private:
  friend class HttpCall;
  static std::vector<std::pair<std::string, std::string>> SeriesList();

  httplib::Server::HandlerResponse PreRoute(const httplib::Request& req, httplib::Response& res);
  void Handle(size_t i, const httplib::Request& req, httplib::Response& res,
              const httplib::ContentReader* reader);
  void Unmatched(const httplib::Request& req, httplib::Response& res,
                 const httplib::ContentReader* reader);
  void RenderError(httplib::Response& res, const Status& st);
  void LogRequest(const httplib::Request& req, const httplib::Response& res);
  // Reads and drops an unread body; false when it was too large to drain.
  static bool Drain(const httplib::Request& req, const httplib::ContentReader& reader);
  // Expires upload contracts every options_.contract_sweep_interval_s until Shutdown.
  void Sweep();

  std::shared_ptr<Catalog> catalog_;
  ServerOptions options_;
  std::unique_ptr<auth::TokenAuthority> authority_;
  Metrics metrics_;
  std::unique_ptr<httplib::Server> svr_;
  std::vector<CompiledRoute> routes_;

  std::mutex state_mu_;
  bool started_ = false;
  std::atomic<bool> shutting_down_{false};
  std::atomic<int64_t> deadline_ns_{0};
  std::atomic<int> port_{0};
  std::mutex wait_mu_;
  std::thread listen_thread_;

  std::unique_ptr<upload::ContractService> uploads_;
  std::mutex sweep_mu_;
  std::condition_variable sweep_cv_;
  bool sweep_stop_ = false;
  std::thread sweeper_;
};

// The Call of one request routed to one entry of the route table.
class HttpCall final : public Call {
 public:
  HttpCall(Server::Impl& server, const Server::Impl::CompiledRoute& route,
           const httplib::Request& req, httplib::Response& res,
           const httplib::ContentReader* reader)
      : server_(server), route_(route), req_(req), res_(res), reader_(reader) {
    for (size_t i = 0; i < route.params.size() && i + 1 < req.matches.size(); ++i) {
      params_.emplace_back(route.params[i], req.matches[i + 1].str());
    }
    if (route.def->action[0] != '\0') {
      std::string target;
      if (!Param("ws").empty()) {
        target = Param("ws");
        if (!Param("coll").empty()) target += "." + Param("coll");
        if (!Param("ds").empty()) target += "." + Param("ds");
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
  const std::string& request_id() const override { return tl_req.request_id; }
  const auth::Principal& principal() const override { return principal_; }
  void set_log_actor(const std::string& actor) override { tl_req.actor = actor; }

  const std::string& Param(std::string_view name) const override {
    for (const auto& [k, v] : params_) {
      if (k == name) return v;
    }
    static const std::string kNone;
    return kNone;
  }
  std::optional<std::string> Query(std::string_view name) const override {
    std::string key(name);
    if (!req_.has_param(key)) return std::nullopt;
    return req_.get_param_value(key);
  }
  std::optional<int64_t> content_length() const override {
    if (req_.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos) {
      return std::nullopt;
    }
    if (!req_.has_header("Content-Length")) return std::nullopt;
    std::string v = req_.get_header_value("Content-Length");
    if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    return std::stoll(v);
  }
  std::string Header(std::string_view name) const override {
    return req_.get_header_value(std::string(name));
  }

  Result<api::Json> JsonBody() override { return JsonBodyUpTo(options().max_json_body_bytes); }

  Result<api::Json> JsonBodyUpTo(int64_t limit) override {
    std::string body;
    TARN_RETURN_NOT_OK(ReadBody(limit, [&](std::string_view b) {
      body.append(b);
      return Status::OK();
    }));
    if (body.find_first_not_of(" \t\r\n") == std::string::npos) body = "{}";
    if (internal::JsonDepth(body, kMaxJsonDepth) > kMaxJsonDepth) {
      return Status::InvalidArgument("the body nests deeper than " + std::to_string(kMaxJsonDepth) +
                                     " levels")
          .WithField("code", "malformed_json")
          .WithField("field", "");
    }
    return api::ParseObject(body);
  }

  Result<std::map<std::string, std::string>> FormBody() override {
    std::string type = req_.get_header_value("Content-Type");
    if (!type.empty() && type.rfind("application/x-www-form-urlencoded", 0) != 0) {
      return Status::InvalidArgument("the body must be application/x-www-form-urlencoded")
          .WithField("code", "unsupported_media_type");
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
    if (reader_ == nullptr) {  // no body, or one the library has read (bounded by pre-routing)
      bytes_in_ = static_cast<int64_t>(req_.body.size());
      if (bytes_in_ > limit) return TooLargeBody(limit);
      return req_.body.empty() ? Status::OK() : sink(req_.body);
    }
    if (auto length = content_length(); length && *length > limit) {
      body_consumed_ = false;  // left for Finish to drain or to close the connection
      return TooLargeBody(limit);
    }
    Status err;
    int64_t total = 0, discarded = 0;
    bool complete = (*reader_)([&](const char* data, size_t n) -> bool {
      total += static_cast<int64_t>(n);
      if (!err.ok()) {
        discarded += static_cast<int64_t>(n);
        return discarded <= kDrainBytes;
      }
      if (total > limit) {
        err = TooLargeBody(limit);
        discarded = total - limit;
        return discarded <= kDrainBytes;
      }
      try {
        err = sink(std::string_view(data, n));
      } catch (const std::exception& e) {
        err = Status::Internal(std::string("reading the body: ") + e.what());
      }
      return true;
    });
    bytes_in_ = total;
    body_complete_ = complete;
    if (!complete && err.ok()) {
      err = Status::InvalidArgument("the request body could not be read to its end")
                .WithField("code", "incomplete_body");
    }
    return err;
  }

  void ReplyJson(const api::Json& body, int http_status) override {
    res_.status = http_status;
    res_.set_content(api::Dump(body), "application/json");
  }
  void ReplyText(std::string content_type, std::string body) override {
    res_.status = 200;
    res_.set_content(std::move(body), content_type);
  }
  void ReplyNoContent() override {
    res_.status = 204;
    res_.body.clear();
  }
  void ReplyStream(std::string content_type, StreamFn fn) override {
    res_.status = 200;
    res_.set_chunked_content_provider(
        content_type, [fn = std::move(fn)](size_t, httplib::DataSink& sink) -> bool {
          StreamWrite write = [&sink](std::string_view bytes) -> Status {
            if (bytes.empty()) return Status::OK();
            if (!sink.write(bytes.data(), bytes.size())) {
              return Status::Cancelled("the client stopped reading the response")
                  .WithField("code", "client_gone");
            }
            tl_req.bytes_out += static_cast<int64_t>(bytes.size());
            return Status::OK();
          };
          Status st;
          try {
            st = fn(write);
          } catch (const std::exception& e) {
            st = Status::Internal(e.what());
          } catch (...) {
            st = Status::Internal("unknown exception");
          }
          if (!st.ok()) return false;  // the client sees a stream without its end
          sink.done();
          return true;
        });
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
      Status st = name == "name" ? internal::ValidatePartName(value)
                                 : ValidateIdentifier(ParamWhat(name), value);
      if (!st.ok()) {
        return Status(st.kind(), st.message())
            .WithField("code", "invalid_identifier")
            .WithField("field", name);
      }
    }
    const RouteDef& def = *route_.def;
    if (def.need != Need::kOpen) {
      std::string header = req_.get_header_value("Authorization");
      if (header.empty()) {
        return Status::Unauthenticated("this route needs a bearer token (POST /v1/token)")
            .WithField("code", "unauthenticated");
      }
      TARN_ASSIGN_OR_RETURN(principal_, server_.authority().Verify(header));
      authenticated_ = true;
      tl_req.actor = principal_.client_id;
      if (def.need != Need::kToken) {
        Role role = RoleOf(def.need);
        if (def.scope == Scope::kPath) {
          std::string target = Param("coll");
          if (!Param("ds").empty()) target += "." + Param("ds");
          TARN_RETURN_NOT_OK(auth::Authorize(principal_, role, Param("ws"), target));
        } else if (def.scope == Scope::kGlobal) {
          if (principal_.workspace != "*" || principal_.pattern != "*" || principal_.role < role) {
            return Status::PermissionDenied("this needs the " + std::string(RoleName(role)) +
                                            " role on every workspace ('*')")
                .WithField("code", "permission_denied")
                .WithField("needed_role", std::string(RoleName(role)))
                .WithField("workspace", "*");
          }
        }
      }
    }
    return def.fn(*this);
  }

  // After the route: an unread or half-read body is drained, or the connection closes.
  void Finish() {
    if (reader_ == nullptr) return;
    if (!body_consumed_) {
      auto length = content_length();
      if ((length && *length > kDrainBytes) || !Server::Impl::Drain(req_, *reader_)) {
        must_close_ = true;
      }
    } else if (!body_complete_) {
      must_close_ = true;
    }
  }

  Server::Impl& server_;
  const Server::Impl::CompiledRoute& route_;
  const httplib::Request& req_;
  httplib::Response& res_;
  const httplib::ContentReader* reader_;
  std::vector<std::pair<std::string, std::string>> params_;
  auth::Principal principal_;
  bool authenticated_ = false;
  std::vector<AuditEntry> audit_;
  bool audited_by_commit_ = false;
  std::string audit_detail_ = "{}";
  bool body_consumed_ = false;
  bool body_complete_ = true;
  bool must_close_ = false;
  int64_t bytes_in_ = -1;
  std::unique_ptr<upload::ContractService> uploads_;  // the server's, acting as the caller
};

std::vector<std::pair<std::string, std::string>> Server::Impl::SeriesList() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : internal::RouteTable()) out.emplace_back(r.path, r.method);
  return out;
}

void Server::Impl::Log(LogLine line) {
  std::string text = std::move(line).Finish();
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

void Server::Impl::RenderError(httplib::Response& res, const Status& st) {
  int http = internal::HttpStatusOf(st);
  res.status = http;
  // A 500 names the request, whose "error" log line holds the details.
  res.set_content(
      api::Dump(api::ErrorBody(http == 500 ? st.WithField("reference", tl_req.request_id) : st)),
      "application/json");
  if (http == 503) res.set_header("Retry-After", "1");
  if (http == 401) res.set_header("WWW-Authenticate", "Bearer realm=\"tarn\"");
  tl_req.error_code = internal::ErrorCodeOf(st);
  if (st.kind() == ErrorKind::kInternal) {
    Log(std::move(
        LogLine("error").Str("request_id", tl_req.request_id).Str("message", st.ToString())));
  }
}

bool Server::Impl::Drain(const httplib::Request& req, const httplib::ContentReader& reader) {
  int64_t seen = 0;
  return reader([&](const char*, size_t n) {
    seen += static_cast<int64_t>(n);
    return seen <= kDrainBytes;
  });
}

httplib::Server::HandlerResponse Server::Impl::PreRoute(const httplib::Request& req,
                                                        httplib::Response& res) {
  tl_req = RequestRecord();
  tl_req.active = true;
  tl_req.start = Clock::now();
  std::string given = req.get_header_value("X-Request-Id");
  tl_req.request_id = internal::SaneRequestId(given) ? given : NewRequestId();
  metrics_.AddInflight(1);
  // The API does not serve byte ranges.
  const_cast<httplib::Request&>(req).ranges.clear();

  int64_t header_bytes = static_cast<int64_t>(req.method.size() + req.target.size() + 12);
  for (const auto& [k, v] : req.headers) {
    if (k == "REMOTE_ADDR" || k == "REMOTE_PORT" || k == "LOCAL_ADDR" || k == "LOCAL_PORT") {
      continue;
    }
    header_bytes += static_cast<int64_t>(k.size() + v.size() + 4);
  }
  bool chunked = req.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos;
  bool bodyless_method = req.method == "GET" || req.method == "HEAD" || req.method == "OPTIONS";
  Status reject;
  if (tl_overflow) {
    reject = Status::Unavailable("the server is at its connection limit (" +
                                 std::to_string(options_.max_connections) + "); retry")
                 .WithField("code", "overloaded");
  } else if (shutting_down_) {
    reject = Status::Unavailable("the server is shutting down; retry")
                 .WithField("code", "shutting_down");
  } else if (header_bytes > options_.max_header_bytes) {
    reject = Status::TooLarge("the request headers are larger than the limit of " +
                              std::to_string(options_.max_header_bytes) + " bytes")
                 .WithField("code", "header_too_large");
  } else if (req.path.size() > kMaxPathBytes) {
    reject =
        Status::InvalidArgument("the request path is too long").WithField("code", "uri_too_long");
  } else if (req.is_multipart_form_data()) {
    reject = Status::InvalidArgument("multipart bodies are not accepted")
                 .WithField("code", "unsupported_media_type");
  } else if (bodyless_method &&
             (chunked || (req.get_header_value_count("Content-Length") > 0 &&
                          req.get_header_value<uint64_t>("Content-Length") >
                              static_cast<uint64_t>(options_.max_json_body_bytes)))) {
    reject = TooLargeBody(options_.max_json_body_bytes);
  }
  if (reject.ok()) return httplib::Server::HandlerResponse::Unhandled;
  RenderError(res, reject);
  ForceClose(res);
  return httplib::Server::HandlerResponse::Handled;
}

void Server::Impl::Handle(size_t i, const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader* reader) {
  const CompiledRoute& route = routes_[i];
  tl_req.series = route.series;
  tl_req.route = route.def->path;
  HttpCall call(*this, route, req, res, reader);
  Status st;
  try {
    st = call.Run();
  } catch (const std::exception& e) {
    st = Status::Internal(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    st = Status::Internal("unexpected exception");
  }
  if (!st.ok()) {
    res.content_provider_ = nullptr;
    res.content_length_ = 0;
    res.is_chunked_content_provider_ = false;
    RenderError(res, st);
  }

  // Audit: every mutation by a verified caller, refused or not; a commit's own transaction
  // wrote the row of a commit that succeeded.
  if (route.def->action[0] != '\0' && call.authenticated_) {
    std::vector<AuditEntry> entries = call.audit_;
    if (entries.empty()) entries.push_back({route.def->action, "", ""});
    std::string outcome = st.ok() ? "ok" : internal::ErrorCodeOf(st);
    std::string detail = call.audit_detail_;
    if (!st.ok()) {
      detail = api::Dump(api::Json{{"http_status", internal::HttpStatusOf(st)},
                                   {"message", st.message().substr(0, 500)}});
    }
    std::vector<AuditRecord> rows;
    for (const auto& e : entries) {
      AuditRecord a;
      a.request_id = tl_req.request_id;
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
                          .Str("request_id", tl_req.request_id)
                          .Str("message", "writing the audit rows failed: " + w.ToString())));
      }
    }
  }

  call.Finish();
  tl_req.bytes_in = call.bytes_in_;
  if (call.must_close_) ForceClose(res);
}

void Server::Impl::Unmatched(const httplib::Request& req, httplib::Response& res,
                             const httplib::ContentReader* reader) {
  std::string allow;
  for (const auto& r : routes_) {
    if (std::regex_match(req.path, r.re)) {
      if (!allow.empty()) allow += ", ";
      allow += r.def->method;
    }
  }
  if (allow.empty()) {
    RenderError(res, Status::NotFound("no route " + req.path.substr(0, 200))
                         .WithField("code", "route_not_found"));
  } else {
    RenderError(res, Status::InvalidArgument(req.method + " is not allowed on this path")
                         .WithField("code", "method_not_allowed")
                         .WithField("allow", allow));
    res.set_header("Allow", allow);
  }
  if (reader != nullptr && !Drain(req, *reader)) ForceClose(res);
}

void Server::Impl::LogRequest(const httplib::Request& req, const httplib::Response& res) {
  RequestRecord& r = tl_req;
  bool counted = r.active;
  if (!counted) {  // refused by the library before routing (a malformed request line)
    r = RequestRecord();
    r.start = Clock::now();
    r.request_id = NewRequestId();
  }
  double seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
  int series = r.series >= 0 ? r.series : metrics_.UnmatchedSeries(req.method);
  metrics_.RecordRequest(series, res.status, seconds);
  if (res.status >= 400) {
    metrics_.CountError(r.error_code.empty() ? "http_" + std::to_string(res.status) : r.error_code);
  }
  if (counted) metrics_.AddInflight(-1);
  int64_t bytes_in = r.bytes_in >= 0 ? r.bytes_in : static_cast<int64_t>(req.body.size());
  Log(std::move(LogLine("request")
                    .Str("request_id", r.request_id)
                    .Str("method", req.method)
                    .Str("route", r.route)
                    .Int("status", res.status)
                    .Millis("duration_ms", seconds)
                    .Str("actor", r.actor)
                    .Int("bytes_in", bytes_in)
                    .Int("bytes_out", static_cast<int64_t>(res.body.size()) + r.bytes_out)));
  r.active = false;
}

void Server::Impl::Configure() {
  const auto& table = internal::RouteTable();
  for (size_t i = 0; i < table.size(); ++i) {
    CompiledRoute c;
    c.def = &table[i];
    c.pattern = PathRegex(table[i].path, &c.params);
    c.re = std::regex(c.pattern);
    c.series = metrics_.RouteSeries(static_cast<int>(i));
    routes_.push_back(std::move(c));
  }
  for (size_t i = 0; i < routes_.size(); ++i) {
    const std::string& pattern = routes_[i].pattern;
    httplib::Server::Handler plain = [this, i](const httplib::Request& req,
                                               httplib::Response& res) {
      Handle(i, req, res, nullptr);
    };
    httplib::Server::HandlerWithContentReader streamed =
        [this, i](const httplib::Request& req, httplib::Response& res,
                  const httplib::ContentReader& reader) { Handle(i, req, res, &reader); };
    std::string_view m = routes_[i].def->method;
    if (m == "GET") {
      svr_->Get(pattern, plain);
    } else if (m == "POST") {
      svr_->Post(pattern, streamed);
      svr_->Post(pattern, plain);
    } else if (m == "PUT") {
      svr_->Put(pattern, streamed);
      svr_->Put(pattern, plain);
    } else if (m == "PATCH") {
      svr_->Patch(pattern, streamed);
      svr_->Patch(pattern, plain);
    } else if (m == "DELETE") {
      svr_->Delete(pattern, streamed);
      svr_->Delete(pattern, plain);
    }
  }
  // Everything else: 404 or 405, with a body that is drained rather than read into memory.
  httplib::Server::Handler plain = [this](const httplib::Request& req, httplib::Response& res) {
    Unmatched(req, res, nullptr);
  };
  httplib::Server::HandlerWithContentReader streamed =
      [this](const httplib::Request& req, httplib::Response& res,
             const httplib::ContentReader& reader) { Unmatched(req, res, &reader); };
  svr_->Get(".*", plain);
  svr_->Options(".*", plain);
  svr_->Post(".*", streamed).Post(".*", plain);
  svr_->Put(".*", streamed).Put(".*", plain);
  svr_->Patch(".*", streamed).Patch(".*", plain);
  svr_->Delete(".*", streamed).Delete(".*", plain);

  svr_->set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return PreRoute(req, res); });
  svr_->set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.has_header("X-Request-Id")) {
      res.set_header("X-Request-Id", tl_req.active ? tl_req.request_id : NewRequestId());
    }
  });
  svr_->set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request&, httplib::Response& res) -> httplib::Server::HandlerResponse {
        if (!res.body.empty() || res.content_provider_) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        // Errors the library produced itself (a malformed request line or header, a bad range).
        Status st =
            res.status == 413
                ? Status::TooLarge("the request is too large").WithField("code", "too_large")
            : res.status == 414 ? Status::InvalidArgument("the request URI is too long")
                                      .WithField("code", "uri_too_long")
                                : Status::InvalidArgument("malformed HTTP request (status " +
                                                          std::to_string(res.status) + ")")
                                      .WithField("code", "malformed_request");
        int status = res.status;
        RenderError(res, st);
        res.status = status;
        return httplib::Server::HandlerResponse::Handled;
      }));
  svr_->set_exception_handler(
      [this](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        res.headers.clear();
        res.body.clear();
        res.content_provider_ = nullptr;
        res.content_provider_resource_releaser_ = nullptr;
        res.content_length_ = 0;
        res.is_chunked_content_provider_ = false;
        RenderError(res, Status::Internal("unexpected exception: " + what));
      });
  svr_->set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    try {
      LogRequest(req, res);
    } catch (...) {
    }
  });

  svr_->set_keep_alive_max_count(static_cast<size_t>(options_.max_requests_per_connection));
  svr_->set_keep_alive_timeout(options_.idle_timeout_s);
  svr_->set_read_timeout(options_.read_timeout_s, 0);
  svr_->set_write_timeout(options_.write_timeout_s, 0);
  // Accepted sockets inherit TCP_NODELAY from the listening socket (Linux): small responses go
  // out at once instead of waiting for the client's delayed ACK.
  svr_->set_tcp_nodelay(true);
  // SO_REUSEADDR only: a restarted server can bind at once, but two servers cannot share a
  // port (the library's default adds SO_REUSEPORT).
  svr_->set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  std::weak_ptr<Impl> weak = weak_from_this();
  int max_connections = options_.max_connections;
  svr_->new_task_queue = [weak, max_connections, this]() -> httplib::TaskQueue* {
    return new ConnectionPool(max_connections, weak.lock(), [this] {
      int64_t ns = deadline_ns_.load();
      if (ns == 0)
        return Clock::now() +
               std::chrono::milliseconds(static_cast<int64_t>(options_.shutdown_grace_s * 1e3));
      return Clock::time_point(std::chrono::nanoseconds(ns));
    });
  };
}

Status Server::Impl::Start() {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (started_) return Status::FailedPrecondition("the server was started already");
  if (shutting_down_) return Status::FailedPrecondition("the server was shut down");
  auto failed = [&] {
    return Status::Unavailable("cannot listen on " + options_.host + ":" +
                               std::to_string(options_.port) + ": " + std::strerror(errno))
        .WithField("code", "bind_failed");
  };
  int port = options_.port;
  if (port == 0) {
    port = svr_->bind_to_any_port(options_.host);
    if (port <= 0) return failed();
  } else if (!svr_->bind_to_port(options_.host, port)) {
    return failed();
  }
  port_ = port;
  listen_thread_ = std::thread([this] { svr_->listen_after_bind(); });
  if (options_.contract_sweep_interval_s > 0) sweeper_ = std::thread([this] { Sweep(); });
  for (int i = 0; i < 5000 && !svr_->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  started_ = true;
  return Status::OK();
}

void Server::Impl::Shutdown() {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (shutting_down_.exchange(true)) return;
  {
    std::lock_guard<std::mutex> sweep_lock(sweep_mu_);
    sweep_stop_ = true;
  }
  sweep_cv_.notify_all();
  auto deadline = Clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(options_.shutdown_grace_s * 1e3));
  deadline_ns_ =
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  if (started_) svr_->stop();
}

void Server::Impl::Wait() {
  std::lock_guard<std::mutex> lock(wait_mu_);
  if (listen_thread_.joinable()) listen_thread_.join();
  if (sweeper_.joinable()) sweeper_.join();
}

void Server::Impl::Sweep() {
  auto interval = std::chrono::milliseconds(
      static_cast<int64_t>(std::max(0.001, options_.contract_sweep_interval_s) * 1e3));
  std::unique_lock<std::mutex> lock(sweep_mu_);
  while (!sweep_cv_.wait_for(lock, interval, [this] { return sweep_stop_; })) {
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

// ---------------------------------------------------------------------------------------------

Result<std::unique_ptr<Server>> Server::Make(std::shared_ptr<Catalog> catalog,
                                             ServerOptions options) {
  if (catalog == nullptr) return Status::InvalidArgument("Server::Make needs a catalog");
  auto bad = [](const std::string& what) {
    return Status::InvalidArgument("server option " + what).WithField("code", "invalid_option");
  };
  if (options.max_connections < 1 || options.max_connections > 10000) {
    return bad("max connections must be between 1 and 10000");
  }
  if (options.max_json_body_bytes < 1 || options.max_append_body_bytes < 1 ||
      options.max_negotiate_body_bytes < 1) {
    return bad("body limits must be positive");
  }
  if (options.max_header_bytes < 256) return bad("max header bytes must be at least 256");
  if (options.read_timeout_s < 1 || options.write_timeout_s < 1 || options.idle_timeout_s < 1) {
    return bad("timeouts must be at least 1 second");
  }
  if (options.token_ttl_s < 1) return bad("token ttl must be positive");
  if (options.shutdown_grace_s < 0) return bad("shutdown grace must not be negative");
  if (options.contract_sweep_interval_s < 0) return bad("sweep interval must not be negative");
  if (options.max_requests_per_connection < 1) {
    return bad("max requests per connection must be positive");
  }
  auth::AuthorityOptions ao;
  ao.token_ttl_s = options.token_ttl_s;
  TARN_ASSIGN_OR_RETURN(auto authority, auth::TokenAuthority::Open(*catalog, ao));
  auto impl = std::make_shared<Impl>(std::move(catalog), std::move(options), std::move(authority));
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
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace tarn::server

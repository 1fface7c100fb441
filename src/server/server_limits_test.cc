// Limits, shutdown, metrics and the behaviour around the routes: connection limit (503 without
// leaking sockets), header size (431), malformed requests, request ids, unknown routes,
// keep-alive latency, a graceful shutdown that finishes an in-flight append, and the grace
// bound.
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "common/test_util.h"
#include "server/test_util.h"

namespace tarn::server::testing {
namespace {

using Clock = std::chrono::steady_clock;
using testing_util::Eventually;

int OpenFds() {
  int n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return -1;
  while (::readdir(d)) ++n;
  ::closedir(d);
  return n;
}

int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends raw bytes and reads the response until the server closes or `timeout_ms` passes.
std::string RawExchange(int port, const std::string& request, int timeout_ms = 3000) {
  int fd = Connect(port);
  if (fd < 0) return "";
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.find("\r\n\r\n") != std::string::npos &&
        out.find("Content-Length:") != std::string::npos) {
      size_t head = out.find("\r\n\r\n") + 4;
      size_t len = std::stoul(out.substr(out.find("Content-Length:") + 15));
      if (out.size() >= head + len) break;
    }
  }
  ::close(fd);
  return out;
}

class ServerLimits : public ::testing::Test {
 protected:
  void Start(ServerOptions o) {
    dir_ = TestDir("limits");
    auto c = Catalog::OpenEmbedded(dir_.string());
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cat_ = std::move(*c);
    o.port = 0;
    if (!o.log_sink) o.log_sink = logs_.Sink();
    auto s = Server::Make(cat_, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    SERVER_ASSERT_OK(server_->Start());
    port_ = server_->port();
  }
  void TearDown() override {
    server_.reset();
    cat_.reset();
    std::filesystem::remove_all(dir_);
  }

  // How many requests the server serves besides the GET /metrics that asks (`token` may read
  // /metrics). The earlier GET /metrics are waited for first: a request leaves the in-flight
  // gauge just before its log line is written, so none of them is counted.
  int OthersInFlight(const std::string& token) {
    const size_t asked = metrics_asked_++;
    Eventually([&] {
      size_t logged = 0;
      for (const auto& l : logs_.Parsed()) logged += l.value("route", "") == "/metrics";
      return logged >= asked;
    });
    Reply m = Get(port_, "/metrics", token);
    std::smatch gauge;
    static const std::regex kGauge(R"((^|\n)tarn_inflight_requests ([0-9]+)\n)");
    if (m.status != 200 || !std::regex_search(m.body, gauge, kGauge)) return -1;
    return std::stoi(gauge[2]) - 1;
  }

  std::filesystem::path dir_;
  std::shared_ptr<Catalog> cat_;
  std::unique_ptr<Server> server_;
  LogCapture logs_;
  int port_ = 0;
  size_t metrics_asked_ = 0;
};

TEST_F(ServerLimits, ConnectionsPastTheLimitGet503AndNoSocketLeaks) {
  ServerOptions o;
  o.max_connections = 2;
  o.idle_timeout_s = 2;
  Start(o);
  int fds_before = OpenFds();
  // Two idle connections take both places, once the server has accepted them.
  int a = Connect(port_), b = Connect(port_);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  ASSERT_TRUE(Eventually([&] { return Get(port_, "/livez", "").status == 503; }));
  for (int i = 0; i < 10; ++i) {
    Reply r = Get(port_, "/livez", "");
    EXPECT_EQ(r.status, 503) << r;
    EXPECT_EQ(r.Code(), "overloaded") << r;
    EXPECT_EQ(r.Header("Retry-After"), "1");
    EXPECT_EQ(r.Header("Connection"), "close");
    EXPECT_EQ(r.ErrorField("kind"), "unavailable");
  }
  ::close(a);
  ::close(b);
  // Once they are gone the server serves again and holds no socket more than before.
  Reply ok;
  Eventually([&] { return (ok = Get(port_, "/livez", "")).status == 200; });
  EXPECT_EQ(ok.status, 200) << ok;
  int fds_after = 0;
  Eventually([&] { return (fds_after = OpenFds()) <= fds_before; });
  EXPECT_LE(fds_after, fds_before);
}

TEST_F(ServerLimits, HeadersOverTheLimitAre431) {
  ServerOptions o;
  o.max_header_bytes = 1024;
  Start(o);
  Request r{"GET", "/livez", "", "", "", {{"X-Big", std::string(2000, 'a')}}};
  Reply big = Send(port_, r);
  EXPECT_EQ(big.status, 431) << big;
  EXPECT_EQ(big.Code(), "header_too_large");
  // Many small headers count together.
  Request many{"GET", "/livez", "", "", "", {}};
  for (int i = 0; i < 100; ++i) many.headers.emplace("X-H" + std::to_string(i), "0123456789");
  EXPECT_EQ(Send(port_, many).status, 431);
  EXPECT_EQ(Get(port_, "/livez", "").status, 200);
}

TEST_F(ServerLimits, MalformedRequestsGetTypedErrorsNeverA500) {
  Start({});
  std::string garbage = RawExchange(port_, "NOT HTTP AT ALL\r\n\r\n");
  EXPECT_NE(garbage.find("HTTP/1.1 400"), std::string::npos) << garbage;
  EXPECT_NE(garbage.find("malformed_request"), std::string::npos) << garbage;
  std::string long_line =
      RawExchange(port_, "GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n");
  EXPECT_NE(long_line.find("HTTP/1.1 414"), std::string::npos) << long_line.substr(0, 300);
  std::string long_path =
      RawExchange(port_, "GET /v1/" + std::string(3000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(long_path.find("uri_too_long"), std::string::npos) << long_path.substr(0, 300);
  std::string multipart = RawExchange(
      port_,
      "POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
      "Content-Length: 4\r\n\r\n--b-");
  EXPECT_NE(multipart.find("HTTP/1.1 415"), std::string::npos) << multipart;
  std::string chunked_get = RawExchange(port_,
                                        "GET /livez HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
                                        "chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
  // A GET never carries a body (issue 14, defect 8): 400 and the connection closes.
  EXPECT_NE(chunked_get.find("HTTP/1.1 400"), std::string::npos) << chunked_get;
  EXPECT_NE(chunked_get.find("must not carry a body"), std::string::npos) << chunked_get;
  std::string bad_chunk = RawExchange(
      port_,
      "POST /v1/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: "
      "application/x-www-form-urlencoded\r\n\r\nzz\r\nhello\r\n0\r\n\r\n");
  EXPECT_NE(bad_chunk.find("HTTP/1.1 400"), std::string::npos) << bad_chunk;
  std::string bad_escape = RawExchange(
      port_,
      "POST /v1/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
      "Content-Length: 14\r\n\r\ngrant_type=%zz");
  EXPECT_NE(bad_escape.find("HTTP/1.1 400"), std::string::npos) << bad_escape;
  EXPECT_EQ(Get(port_, "/livez", "").status, 200);  // alive through all of it
}

TEST_F(ServerLimits, LogLinesAreValidJsonWhateverTheClientSends) {
  Start({});
  // The client id of a token exchange is logged as the actor: quotes, escapes, control bytes
  // and invalid UTF-8 must not break the line.
  Reply r = Send(port_, {"POST",
                         "/v1/token",
                         "grant_type=client_credentials&client_id=a%22b%5Cc%0Ad%FF%C3%A9%E2%82&"
                         "client_secret=x",
                         "application/x-www-form-urlencoded",
                         "",
                         {}});
  EXPECT_EQ(r.status, 401) << r;
  // The line is written after the response went out.
  ASSERT_TRUE(Eventually([&] {
    for (const auto& l : logs_.Parsed()) {
      if (l.value("route", "") == "/v1/token") return true;
    }
    return false;
  }));
  for (const auto& l : logs_.Parsed()) {
    ASSERT_TRUE(l.is_object()) << "a log line is not JSON";
    if (l.value("route", "") == "/v1/token") {
      EXPECT_EQ(l["actor"], "a\"b\\c\nd\ufffd\u00e9\ufffd\ufffd");
      EXPECT_EQ(l["status"], 401);
      EXPECT_EQ(l["method"], "POST");
      EXPECT_TRUE(l["duration_ms"].is_number());
      EXPECT_TRUE(l["time"].is_string());
    }
  }
}

TEST_F(ServerLimits, RequestIdsAreEchoedWhenSaneAndGeneratedOtherwise) {
  Start({});
  Reply given = Send(port_, {"GET", "/livez", "", "", "", {{"X-Request-Id", "abc-123.x:y_z"}}});
  EXPECT_EQ(given.Header("X-Request-Id"), "abc-123.x:y_z");
  for (const std::string& bad :
       {std::string("has space"), std::string(200, 'a'), std::string("semi;colon")}) {
    Reply r = Send(port_, {"GET", "/livez", "", "", "", {{"X-Request-Id", bad}}});
    EXPECT_TRUE(std::regex_match(r.Header("X-Request-Id"), std::regex("[0-9a-f]{16}")))
        << r.Header("X-Request-Id");
  }
  Reply none = Get(port_, "/nope", "");
  EXPECT_TRUE(std::regex_match(none.Header("X-Request-Id"), std::regex("[0-9a-f]{16}")));
}

TEST_F(ServerLimits, UnknownRoutesAre404AndWrongMethods405) {
  Start({});
  Reply missing = Get(port_, "/v2/nothing", "");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.Code(), "route_not_found");
  Reply wrong = Send(port_, {"PUT", "/v1/workspaces", "{}", "application/json", "", {}});
  EXPECT_EQ(wrong.status, 405) << wrong;
  EXPECT_EQ(wrong.Header("Allow"), "GET, POST");
  // A body sent to nowhere is drained: the connection stays usable.
  httplib::Client cli("127.0.0.1", port_);
  cli.set_keep_alive(true);
  auto r1 = cli.Post("/nowhere", std::string(100 << 10, 'x'), "application/octet-stream");
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->status, 404);
  auto r2 = cli.Get("/livez");
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->status, 200);
}

TEST_F(ServerLimits, KeepAliveRequestsDoNotWaitForDelayedAcks) {
  Start({});
  httplib::Client cli("127.0.0.1", port_);
  cli.set_keep_alive(true);
  auto start = Clock::now();
  for (int i = 0; i < 100; ++i) {
    auto r = cli.Get("/livez");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200);
  }
  // With Nagle's algorithm each response would wait ~40 ms for the client's delayed ACK.
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 2.0);
}

TEST_F(ServerLimits, MetricsAreValidPrometheusText) {
  Start({});
  std::string token = TokenFor(*cat_, port_, "*", Role::kOwner);
  for (int i = 0; i < 3; ++i) Get(port_, "/livez", "");
  Get(port_, "/v2/missing", "");
  Get(port_, "/v1/whoami", "");  // 401
  // A request is counted when its log line is written, just after its response went out, on
  // its connection's thread: a later request may be counted first, so wait for every one.
  Reply m;
  Eventually([&] {
    m = Get(port_, "/metrics", token);
    for (const char* counted :
         {R"(tarn_http_requests_total{route="/v1/whoami",method="GET",status="401"} 1)",
          R"(route="/livez",method="GET",status="200"} 3)",
          R"(tarn_http_requests_total{route="unmatched",method="GET",status="404"} 1)",
          R"(tarn_errors_total{code="route_not_found"} 1)",
          R"(tarn_errors_total{code="unauthenticated"} 1)"}) {
      if (m.body.find(counted) == std::string::npos) return false;
    }
    return true;
  });
  ASSERT_EQ(m.status, 200) << m;
  EXPECT_EQ(m.Header("Content-Type").rfind("text/plain; version=0.0.4", 0), 0u);
  const std::regex sample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? (-?[0-9.]+(e[+-]?[0-9]+)?|\+Inf)$)");
  const std::regex type_line(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)$)");
  std::set<std::string> typed;
  std::map<std::string, double> values;
  size_t pos = 0;
  const std::string& text = m.body;
  ASSERT_EQ(text.back(), '\n');
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    std::smatch mt;
    if (std::regex_match(line, mt, type_line)) {
      typed.insert(mt[1]);
      continue;
    }
    if (line.rfind("# HELP ", 0) == 0) continue;
    ASSERT_TRUE(std::regex_match(line, mt, sample)) << "not a sample line: " << line;
    std::string family = mt[1];
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      if (!typed.count(family) && family.size() > strlen(suffix) &&
          family.compare(family.size() - strlen(suffix), std::string::npos, suffix) == 0) {
        family = family.substr(0, family.size() - strlen(suffix));
      }
    }
    EXPECT_TRUE(typed.count(family)) << "sample before its TYPE: " << line;
    values[line.substr(0, line.rfind(' '))] = std::stod(line.substr(line.rfind(' ') + 1));
  }
  EXPECT_EQ(values[R"(tarn_http_requests_total{route="/livez",method="GET",status="200"})"], 3);
  EXPECT_EQ(values[R"(tarn_http_requests_total{route="unmatched",method="GET",status="404"})"], 1);
  EXPECT_EQ(values[R"(tarn_http_requests_total{route="/v1/whoami",method="GET",status="401"})"], 1);
  EXPECT_EQ(values[R"(tarn_errors_total{code="route_not_found"})"], 1);
  EXPECT_EQ(values[R"(tarn_errors_total{code="unauthenticated"})"], 1);
  EXPECT_GE(values["tarn_inflight_requests"], 1);  // this very request
  EXPECT_TRUE(values.count("tarn_commits_total"));
  EXPECT_TRUE(values.count("tarn_commit_conflicts_total"));
  const std::string livez = R"(route="/livez",method="GET")";
  EXPECT_EQ(values["tarn_http_request_duration_seconds_count{" + livez + "}"], 3);
  EXPECT_EQ(values["tarn_http_request_duration_seconds_bucket{" + livez + ",le=\"+Inf\"}"], 3);
  double prev = 0;
  for (double le :
       {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0}) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", le);
    double v =
        values["tarn_http_request_duration_seconds_bucket{" + livez + ",le=\"" + buf + "\"}"];
    EXPECT_GE(v, prev) << "buckets must be cumulative at le=" << buf;
    prev = v;
  }
}

TEST_F(ServerLimits, ServesTheEmbeddedOpenApiFile) {
  Start({});
  std::string token = TokenFor(*cat_, port_, "*", Role::kOwner);
  Reply r = Get(port_, "/v1/openapi.json", token);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("Content-Type"), "application/json");
  std::ifstream in(std::string(TARN_SOURCE_DIR) + "/docs/openapi.json", std::ios::binary);
  std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(r.body, file);
}

// Creates ws.c.d (id INT64, v VARCHAR) and returns a writer's bearer token.
std::string MakeDataset(Catalog& cat, int port, Schema* schema) {
  EXPECT_TRUE(cat.CreateWorkspace("ws").ok());
  EXPECT_TRUE(cat.CreateCollection("ws.c").ok());
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64, v VARCHAR");
  auto ds = cat.CreateDataset("ws.c.d", def);
  EXPECT_TRUE(ds.ok());
  *schema = ds->schema;
  return TokenFor(cat, port, "ws", Role::kWriter);
}

TEST_F(ServerLimits, ShutdownFinishesAnInFlightAppend) {
  Start({});
  Schema schema;
  std::string token = MakeDataset(*cat_, port_, &schema);
  std::string body = AppendBody(Json{{"message", "in flight"}},
                                Batches(MakeBatch(schema, {{"1", "a"}, {"2", "b"}})));
  std::string owner = TokenFor(*cat_, port_, "*", Role::kOwner);
  ASSERT_TRUE(Eventually([&] { return OthersInFlight(owner) == 0; }));
  // The client sends the meta frame, then waits until the server is shutting down before it
  // sends the rest.
  std::mutex mu;
  std::condition_variable cv;
  bool first_sent = false, shutting_down = false;
  int status = 0;
  std::thread client([&] {
    httplib::Client cli("127.0.0.1", port_);
    size_t meta_bytes = api::kFrameHeaderBytes + api::Dump(Json{{"message", "in flight"}}).size();
    int step = 0;
    auto res = cli.Post(
        "/v1/workspaces/ws/collections/c/datasets/d/append", {{"Authorization", "Bearer " + token}},
        [&](size_t, httplib::DataSink& sink) {
          if (step++ == 0) {
            sink.write(body.data(), meta_bytes);
            std::lock_guard<std::mutex> lock(mu);
            first_sent = true;
            cv.notify_all();
            return true;
          }
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return shutting_down; });
          lock.unlock();
          // Real time on purpose: the server, draining, must hold the append this long (the
          // main thread is in Wait by then; nothing tells when it is).
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          sink.write(body.data() + meta_bytes, body.size() - meta_bytes);
          sink.done();
          return true;
        },
        "application/vnd.tarn.frames");
    status = res ? res->status : -1;
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return first_sent; });
  }
  // The server took the append in (past its shutdown check) before it is asked to stop.
  EXPECT_TRUE(Eventually([&] { return OthersInFlight(owner) == 1; }));
  server_->Shutdown();
  {
    std::lock_guard<std::mutex> lock(mu);
    shutting_down = true;
    cv.notify_all();
  }
  server_->Wait();
  client.join();
  EXPECT_EQ(status, 200);
  auto snaps = cat_->ListSnapshots("ws.c.d");
  ASSERT_TRUE(snaps.ok());
  ASSERT_EQ(snaps->size(), 1u);
  EXPECT_EQ((*snaps)[0].message, "in flight");
  // Nothing listens any more.
  EXPECT_EQ(Get(port_, "/livez", "").status, 0);
}

TEST_F(ServerLimits, ShutdownWaitsNoLongerThanTheGrace) {
  ServerOptions o;
  o.shutdown_grace_s = 0.5;
  Start(o);
  Schema schema;
  std::string token = MakeDataset(*cat_, port_, &schema);
  std::string owner = TokenFor(*cat_, port_, "*", Role::kOwner);
  ASSERT_TRUE(Eventually([&] { return OthersInFlight(owner) == 0; }));
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::thread client([&] {
    httplib::Client cli("127.0.0.1", port_);
    cli.set_read_timeout(20, 0);
    bool sent = false;
    cli.Post(
        "/v1/workspaces/ws/collections/c/datasets/d/append", {{"Authorization", "Bearer " + token}},
        [&](size_t, httplib::DataSink& sink) {
          if (!sent) {
            std::string meta = api::EncodeFrame(api::FrameKind::kMeta, "{}");
            sink.write(meta.data(), meta.size());
            sent = true;
            return true;
          }
          // Stalls (2 s at most) until released.
          std::unique_lock<std::mutex> lock(mu);
          cv.wait_for(lock, std::chrono::seconds(2), [&] { return release; });
          return false;  // gives up: the stalled request ends
        },
        "application/vnd.tarn.frames");
  });
  // The stalled append is in flight.
  EXPECT_TRUE(Eventually([&] { return OthersInFlight(owner) == 1; }));
  auto start = Clock::now();
  server_->Shutdown();
  server_->Wait();
  double waited = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_GE(waited, 0.4);
  EXPECT_LT(waited, 1.5);
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  client.join();
  server_.reset();  // the abandoned request still holds the server; it ends by itself
  EXPECT_TRUE(Eventually([&] { return cat_.use_count() == 1; })) << "the server never ended";
}

TEST_F(ServerLimits, StartAndOptionErrors) {
  Start({});
  Status again = server_->Start();
  EXPECT_EQ(again.kind(), ErrorKind::kFailedPrecondition);
  ServerOptions taken;
  taken.port = port_;
  auto s = Server::Make(cat_, taken);
  ASSERT_TRUE(s.ok());
  Status bind = (*s)->Start();
  EXPECT_EQ(bind.kind(), ErrorKind::kUnavailable) << bind.ToString();
  ServerOptions bad;
  bad.max_connections = 0;
  EXPECT_EQ(Server::Make(cat_, bad).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(Server::Make(nullptr, {}).status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace tarn::server::testing

namespace tarn::server::testing {
namespace {

// `tarn serve --metrics-listen`: a scraper without a token reads /metrics on its own listener,
// and nothing else; the API's /metrics still wants a token.
TEST_F(ServerLimits, MetricsListenerServesOnlyMetricsWithoutAToken) {
  ServerOptions o;
  o.metrics_port = 0;
  Start(o);
  const int mport = server_->metrics_port();
  ASSERT_GT(mport, 0);
  ASSERT_NE(mport, port_);
  Get(port_, "/livez", "");
  Reply m;
  Eventually([&] {
    m = Get(mport, "/metrics", "");
    return m.body.find(R"(route="/livez",method="GET",status="200"} 1)") != std::string::npos;
  });
  EXPECT_EQ(m.status, 200) << m;
  EXPECT_EQ(m.Header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(Get(mport, "/metrics?x=1", "").status, 200);
  for (const char* path : {"/v1/workspaces", "/livez", "/metrics/x", "/"}) {
    EXPECT_EQ(Get(mport, path, "").status, 404) << path;
  }
  EXPECT_EQ(Send(mport, {"POST", "/metrics", "{}", "application/json", "", {}}).status, 404);
  EXPECT_EQ(Get(port_, "/metrics", "").status, 401);  // the API's own still needs a token
  // A request head that never ends holds nothing for long, and junk gets no answer.
  EXPECT_EQ(RawExchange(mport, "GET /metrics HTTP/1.1\r\nHost: x\r\n", 500), "");
  EXPECT_EQ(RawExchange(mport, "\x16\x03\x01 not http\r\n\r\n", 3000), "");
  EXPECT_EQ(Get(mport, "/metrics", "").status, 200);
}

TEST_F(ServerLimits, MetricsListenerThatCannotBindFailsStart) {
  dir_ = TestDir("limits");
  auto c = Catalog::OpenEmbedded(dir_.string());
  ASSERT_TRUE(c.ok());
  cat_ = std::move(*c);
  ServerOptions o;
  o.port = 0;
  o.metrics_host = "not-an-ip";
  o.metrics_port = 0;
  o.log_sink = logs_.Sink();
  auto s = Server::Make(cat_, o);
  ASSERT_TRUE(s.ok());
  Status st = (*s)->Start();
  EXPECT_EQ(st.kind(), ErrorKind::kUnavailable) << st.ToString();
  EXPECT_NE(st.message().find("cannot listen for metrics on not-an-ip"), std::string::npos);
}

}  // namespace
}  // namespace tarn::server::testing

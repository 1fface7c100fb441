// Unit tests of the remote client that need no tarn server: URLs, the token cache with a fake
// clock, and the HTTP behaviour against a scripted cpp-httplib server on 127.0.0.1 (error
// bodies, token refresh, streams cut short, appends as frames, concurrency). The end-to-end
// tests against `tarn serve` live in src/server and tests/interop.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <latch>
#include <mutex>
#include <thread>

#include "api/wire.h"
#include "client/remote_client.h"
#include "client/token_cache.h"
#include "common/test_util.h"
#include "table/test_util.h"

namespace tarn::client {
namespace {

using api::Json;

std::string Field(const Status& st, std::string_view name) {
  for (const auto& [k, v] : st.fields()) {
    if (k == name) return v;
  }
  return "<absent>";
}

TEST(ServerUrlTest, Parses) {
  auto u = ParseServerUrl("http://127.0.0.1:8181");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->scheme, "http");
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 8181);
  EXPECT_EQ(u->base_path, "");
  EXPECT_EQ(u->ToString(), "http://127.0.0.1:8181");

  u = ParseServerUrl("HTTPS://tarn.example.com/prefix/api/");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->port, 443);
  EXPECT_EQ(u->base_path, "/prefix/api");
  EXPECT_EQ(u->ToString(), "https://tarn.example.com:443/prefix/api");

  u = ParseServerUrl("http://[::1]:9000/");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 9000);
  EXPECT_EQ(u->Origin(), "http://[::1]:9000");
  EXPECT_EQ(ParseServerUrl("http://h")->port, 80);

  for (const char* bad :
       {"", "ftp://h", "http://", "http://:80", "http://h:", "http://h:0", "http://h:65536",
        "http://h:8x", "http://u:p@h", "http://h/?q=1", "http://h#f", "http://[::1",
        "http://[::1]x", "/data/tarn", "http://a b"}) {
    auto r = ParseServerUrl(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << bad;
    EXPECT_EQ(Field(r.status(), "code"), "invalid_url") << bad;
  }
}

TEST(ServerUrlTest, RemoteTargets) {
  EXPECT_TRUE(IsRemoteTarget("http://x"));
  EXPECT_TRUE(IsRemoteTarget("HTTPS://x"));
  EXPECT_FALSE(IsRemoteTarget("/data/http://x"));
  EXPECT_FALSE(IsRemoteTarget("http:/x"));
  EXPECT_FALSE(IsRemoteTarget(""));
  EXPECT_FALSE(IsRemoteTarget("relative/dir"));
}

TEST(ServerUrlTest, PercentEncoding) {
  EXPECT_EQ(PercentEncode("abc-_.~XYZ019"), "abc-_.~XYZ019");
  EXPECT_EQ(PercentEncode("a b/c?d&e=f%"), "a%20b%2Fc%3Fd%26e%3Df%25");
  EXPECT_EQ(PercentEncode("ü"), "%C3%BC");
  EXPECT_EQ(QueryString({}), "");
  EXPECT_EQ(QueryString({{"where", "a = 'x y'"}, {"tag", "t"}}),
            "?where=a%20%3D%20%27x%20y%27&tag=t");
}

ClientOptions Creds(std::string id = "tarn_CLIENT", std::string secret = "s3cret");

TEST(ConnectTest, FillFromEnvironmentOnlyFillsWhatIsEmpty) {
  ::setenv("TARN_CLIENT_ID", "tarn_ENV", 1);
  ::setenv("TARN_CLIENT_SECRET", "env-secret", 1);
  ::setenv("TARN_TOKEN", "env.token", 1);
  ClientOptions o;
  o.client_secret = "flag-secret";
  o.FillFromEnvironment();
  EXPECT_EQ(o.client_id, "tarn_ENV");
  EXPECT_EQ(o.client_secret, "flag-secret");
  EXPECT_EQ(o.token, "env.token");
  ::unsetenv("TARN_CLIENT_ID");
  ::unsetenv("TARN_CLIENT_SECRET");
  ::unsetenv("TARN_TOKEN");
  ClientOptions none;
  none.FillFromEnvironment();
  EXPECT_TRUE(none.client_id.empty() && none.client_secret.empty() && none.token.empty());
}

TEST(ConnectTest, DirectoryIsTheEmbeddedCatalog) {
  std::string dir = ::testing::TempDir() + "/tarn_client_connect_" + std::to_string(::getpid());
  auto c = Client::Connect(dir, Creds());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE((*c)->remote());
  EXPECT_EQ((*c)->actor().rfind("local:", 0), 0u);
  ASSERT_TRUE((*c)->CreateWorkspace("w").ok());
  EXPECT_EQ((*c)->ListWorkspaces()->size(), 1u);
  EXPECT_EQ(Client::Connect("", {}).status().kind(), ErrorKind::kInvalidArgument);
  auto bad = Client::Connect("https://", {});
  EXPECT_EQ(bad.status().kind(), ErrorKind::kInvalidArgument);
  c->reset();
  std::filesystem::remove_all(dir);
}

struct FakeClock {
  int64_t now = 1'000'000'000;
  TokenCache::Clock fn() {
    return [this] { return now; };
  }
};

TEST(TokenCacheTest, RefreshesAtEightyPercentOfTheLifetime) {
  FakeClock clock;
  int fetches = 0;
  TokenCache cache(
      [&]() -> Result<BearerToken> {
        ++fetches;
        return BearerToken{"t" + std::to_string(fetches), 100};
      },
      clock.fn());
  EXPECT_EQ(cache.refresh_at_us(), 0);
  EXPECT_EQ(*cache.Get(), "t1");
  EXPECT_EQ(cache.refresh_at_us(), clock.now + 80'000'000);
  clock.now += 79'999'999;
  EXPECT_EQ(*cache.Get(), "t1");
  EXPECT_EQ(fetches, 1);
  clock.now += 1;  // exactly 80 s of 100
  EXPECT_EQ(*cache.Get(), "t2");
  EXPECT_EQ(fetches, 2);
  EXPECT_EQ(*cache.Get(), "t2");
  EXPECT_EQ(fetches, 2);
}

TEST(TokenCacheTest, InvalidateOnlyDropsTheRefusedToken) {
  FakeClock clock;
  int fetches = 0;
  TokenCache cache(
      [&]() -> Result<BearerToken> {
        ++fetches;
        return BearerToken{"t" + std::to_string(fetches), 900};
      },
      clock.fn());
  ASSERT_EQ(*cache.Get(), "t1");
  cache.Invalidate("t0");  // an older token: the current one stays
  EXPECT_EQ(*cache.Get(), "t1");
  cache.Invalidate("t1");
  EXPECT_EQ(cache.refresh_at_us(), 0);
  EXPECT_EQ(*cache.Get(), "t2");
  EXPECT_EQ(fetches, 2);
}

TEST(TokenCacheTest, FailedFetchIsReturnedAndRetried) {
  FakeClock clock;
  int fetches = 0;
  TokenCache cache(
      [&]() -> Result<BearerToken> {
        if (++fetches == 1) {
          return Status::Unauthenticated("bad secret").WithField("code", "invalid_client");
        }
        if (fetches == 2) return BearerToken{"", 900};  // empty token: refused too
        if (fetches == 3) return BearerToken{"no-lifetime", 0};
        return BearerToken{"good", 900};
      },
      clock.fn());
  auto first = cache.Get();
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().kind(), ErrorKind::kUnauthenticated);
  EXPECT_FALSE(cache.Get().ok());
  EXPECT_EQ(*cache.Get(), "no-lifetime");  // used once, then fetched again
  EXPECT_EQ(*cache.Get(), "good");
  EXPECT_EQ(*cache.Get(), "good");
  EXPECT_EQ(fetches, 4);
}

TEST(TokenCacheTest, HugeLifetimeDoesNotOverflow) {
  FakeClock clock;
  TokenCache cache([] { return Result<BearerToken>(BearerToken{"t", INT64_MAX}); }, clock.fn());
  ASSERT_TRUE(cache.Get().ok());
  EXPECT_GT(cache.refresh_at_us(), clock.now);
}

TEST(TokenCacheTest, ConcurrentCallersShareOneFetch) {
  constexpr int kCallers = 8;
  std::latch calling(kCallers);
  std::atomic<int> fetches{0};
  TokenCache cache([&]() -> Result<BearerToken> {
    ++fetches;
    calling.wait();  // the fetch lasts until every caller is on its way in
    return BearerToken{"shared", 900};
  });
  std::vector<std::thread> threads;
  for (int i = 0; i < kCallers; ++i) {
    threads.emplace_back([&] {
      calling.count_down();
      EXPECT_EQ(*cache.Get(), "shared");
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(fetches.load(), 1);
}

// ---- against a scripted HTTP server ----

class FakeServer {
 public:
  FakeServer() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    EXPECT_GT(port_, 0);
  }
  void Start() {
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  httplib::Server& server() { return server_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

void ReplyError(httplib::Response& res, const Status& st) {
  res.status = HttpStatusFor(st.kind());
  res.set_content(api::Dump(api::ErrorBody(st)), "application/json");
}

ClientOptions Creds(std::string id, std::string secret) {
  ClientOptions o;
  o.client_id = std::move(id);
  o.client_secret = std::move(secret);
  o.connect_timeout_s = 2;
  o.request_timeout_s = 5;
  return o;
}

// A token endpoint handing out "tok-N" and a whoami that accepts only the latest token.
struct AuthScript {
  std::atomic<int> issued{0};
  std::atomic<int> whoami_calls{0};
  std::string secret = "s3cret";

  void Install(httplib::Server& s) {
    s.Post("/v1/token", [this](const httplib::Request& req, httplib::Response& res) {
      if (req.get_param_value("grant_type") != "client_credentials" ||
          req.get_param_value("client_secret") != secret) {
        ReplyError(res, Status::Unauthenticated("invalid client credentials")
                            .WithField("code", "invalid_client"));
        return;
      }
      int n = ++issued;
      res.set_content(api::Dump(Json{{"access_token", "tok-" + std::to_string(n)},
                                     {"token_type", "Bearer"},
                                     {"expires_in", 900}}),
                      "application/json");
    });
    s.Get("/v1/whoami", [this](const httplib::Request& req, httplib::Response& res) {
      ++whoami_calls;
      if (!Authorized(req, res)) return;
      res.set_content(api::Dump(Json{{"client_id", "tarn_CLIENT"},
                                     {"workspace", "*"},
                                     {"role", "owner"},
                                     {"pattern", "*"},
                                     {"expires_at_us", 1}}),
                      "application/json");
    });
  }
  bool Authorized(const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Authorization") != "Bearer tok-" + std::to_string(issued.load())) {
      ReplyError(res, Status::Unauthenticated("bad token").WithField("code", "invalid_token"));
      return false;
    }
    return true;
  }
};

TEST(RemoteClientTest, ConnectExchangesTheSecretAndChecksWhoami) {
  FakeServer fake;
  AuthScript auth;
  auth.Install(fake.server());
  fake.Start();
  auto c = RemoteClient::Connect(fake.url(), Creds());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE((*c)->remote());
  EXPECT_EQ((*c)->actor(), "tarn_CLIENT");
  EXPECT_EQ(auth.issued.load(), 1);
  auto me = (*c)->GetWhoAmI();
  ASSERT_TRUE(me.ok());
  EXPECT_EQ(me->role, "owner");
  EXPECT_EQ(auth.issued.load(), 1);  // the cached token was reused

  // Client::Connect picks the remote client for a URL.
  auto generic = Client::Connect(fake.url(), Creds());
  ASSERT_TRUE(generic.ok()) << generic.status().ToString();
  EXPECT_TRUE((*generic)->remote());
}

TEST(RemoteClientTest, BadSecretFailsAtConnect) {
  FakeServer fake;
  AuthScript auth;
  auth.Install(fake.server());
  fake.Start();
  auto c = RemoteClient::Connect(fake.url(), Creds("tarn_CLIENT", "wrong"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().kind(), ErrorKind::kUnauthenticated);
  EXPECT_EQ(Field(c.status(), "code"), "invalid_client");
  EXPECT_EQ(ExitCodeFor(c.status().kind()), 5);
  EXPECT_EQ(auth.whoami_calls.load(), 0);
}

TEST(RemoteClientTest, RefusedTokenIsRefreshedOnce) {
  FakeServer fake;
  AuthScript auth;
  auth.Install(fake.server());
  fake.Start();
  auto c = RemoteClient::Connect(fake.url(), Creds());
  ASSERT_TRUE(c.ok());
  // The server rotates: the cached tok-1 is now refused with invalid_token.
  ++auth.issued;  // tok-2 is the only good one, and the client does not hold it
  auto me = (*c)->GetWhoAmI();
  ASSERT_TRUE(me.ok()) << me.status().ToString() << " issued " << auth.issued.load();
  EXPECT_EQ(auth.issued.load(), 3);  // one refresh: tok-3
  EXPECT_EQ(auth.whoami_calls.load(), 3);
}

TEST(RemoteClientTest, PlainTokenIsSentAsIs) {
  FakeServer fake;
  std::string seen;
  fake.server().Get("/v1/whoami", [&](const httplib::Request& req, httplib::Response& res) {
    seen = req.get_header_value("Authorization");
    res.set_content(R"({"client_id":"tarn_X","workspace":"acme","role":"reader",
                        "pattern":"*","expires_at_us":5,"future_field":true})",
                    "application/json");
  });
  fake.Start();
  ClientOptions o;
  o.token = "eyJhbGciOi.plain.token";
  auto c = RemoteClient::Connect(fake.url() + "/", o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();  // unknown response fields are tolerated
  EXPECT_EQ(seen, "Bearer eyJhbGciOi.plain.token");
  EXPECT_EQ((*c)->actor(), "tarn_X");
}

TEST(RemoteClientTest, ErrorBodiesComeBackAsTheSameStatus) {
  FakeServer fake;
  Status original = Status::NotFound("workspace 'ghost' not found")
                        .WithField("code", "workspace_not_found")
                        .WithField("workspace", "ghost");
  fake.server().Get("/v1/workspaces/ghost", [&](const httplib::Request&, httplib::Response& res) {
    ReplyError(res, original);
  });
  fake.server().Get("/v1/workspaces/html", [](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_content("<html>overloaded</html>", "text/html");
  });
  fake.server().Get("/v1/workspaces/notjson", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{oops", "application/json");
  });
  fake.Start();
  auto c = RemoteClient::Make(fake.url(), {});
  ASSERT_TRUE(c.ok());
  auto ws = (*c)->GetWorkspace("ghost");
  ASSERT_FALSE(ws.ok());
  EXPECT_EQ(ws.status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(ws.status().message(), original.message());
  EXPECT_EQ(Field(ws.status(), "code"), "workspace_not_found");
  EXPECT_EQ(Field(ws.status(), "workspace"), "ghost");

  auto busy = (*c)->GetWorkspace("html");
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.status().kind(), ErrorKind::kUnavailable);

  auto garbage = (*c)->GetWorkspace("notjson");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(Field(garbage.status(), "code"), "bad_response");

  // Names are checked before anything is sent, with the embedded catalog's error.
  auto bad = (*c)->GetWorkspace("no/slash");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_FALSE((*c)->LoadDataset("a.b").ok());
}

TEST(RemoteClientTest, UnreachableServerIsUnavailableNamingTheUrl) {
  int port;
  {
    FakeServer closed;  // started, then stopped: nothing listens on the port any more
    closed.Start();
    ASSERT_TRUE(testing_util::Eventually([&] { return closed.server().is_running(); }));
    port = std::stoi(closed.url().substr(closed.url().rfind(':') + 1));
  }
  std::string url = "http://127.0.0.1:" + std::to_string(port);
  auto c = RemoteClient::Connect(url, Creds());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(c.status().message().find(url), std::string::npos) << c.status().message();
  EXPECT_EQ(Field(c.status(), "url"), url);
  EXPECT_EQ(ExitCodeFor(c.status().kind()), 6);
}

RecordBatch SmallBatch(int64_t first, int64_t n) {
  RecordBatch b;
  b.schema = table_test::S("id INT64 NOT NULL, name VARCHAR");
  std::vector<std::string> ids, names;
  for (int64_t i = 0; i < n; ++i) {
    ids.push_back(std::to_string(first + i));
    names.push_back(i % 2 ? "NULL" : "n" + std::to_string(first + i));
  }
  b.columns.push_back(table_test::Col("INT64", ids));
  b.columns.push_back(table_test::Col("VARCHAR", names));
  b.num_rows = n;
  return b;
}

constexpr char kScanPath[] = "/v1/workspaces/w/collections/c/datasets/d/scan";

TEST(RemoteClientTest, ScanReadsFramesIncrementally) {
  FakeServer fake;
  std::string seen_query;
  fake.server().Get(kScanPath, [&](const httplib::Request& req, httplib::Response& res) {
    seen_query = req.get_param_value("where") + "|" + req.get_param_value("tag") + "|" +
                 req.get_param_value("with_row_ids");
    std::string mode = req.get_param_value("where");
    res.set_chunked_content_provider(
        "application/vnd.tarn.frames", [mode](size_t, httplib::DataSink& sink) {
          std::string out = *api::EncodeBatchFrame(SmallBatch(0, 3));
          out += *api::EncodeBatchFrame(SmallBatch(3, 2));
          if (mode == "error") {
            out += api::EncodeFrame(
                api::FrameKind::kError,
                api::Dump(api::ErrorBody(
                    Status::Corruption("file x is broken").WithField("code", "bad_file"))));
          } else if (mode == "wrong_count") {
            out += api::EncodeFrame(api::FrameKind::kEnd, R"({"rows":6})");
          } else if (mode != "truncated") {
            out += api::EncodeFrame(api::FrameKind::kEnd, R"({"rows":5})");
          }
          sink.write(out.data(), out.size());
          sink.done();
          return true;
        });
  });
  fake.Start();
  auto c = RemoteClient::Make(fake.url(), {});
  ASSERT_TRUE(c.ok());
  SnapshotSelector at;
  at.tag = "night ly";
  std::vector<int64_t> sizes;
  Status st = (*c)->Scan("w.c.d", at, "ok", true, [&](const RecordBatch& b) {
    sizes.push_back(b.num_rows);
    EXPECT_EQ(b.schema.fields[1].name, "name");
    return Status::OK();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(seen_query, "ok|night ly|true");

  st = (*c)->Scan("w.c.d", {}, "truncated", false, [](const RecordBatch&) { return Status::OK(); });
  EXPECT_EQ(st.kind(), ErrorKind::kIOError) << st.ToString();
  EXPECT_EQ(Field(st, "code"), "truncated_stream");

  st = (*c)->Scan("w.c.d", {}, "error", false, [](const RecordBatch&) { return Status::OK(); });
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();
  EXPECT_EQ(Field(st, "code"), "bad_file");

  st = (*c)->Scan("w.c.d", {}, "wrong_count", false,
                  [](const RecordBatch&) { return Status::OK(); });
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();

  // The callback's error stops the stream and comes back as is.
  int calls = 0;
  st = (*c)->Scan("w.c.d", {}, "ok", false, [&](const RecordBatch&) {
    ++calls;
    return Status::Cancelled("enough");
  });
  EXPECT_EQ(st.kind(), ErrorKind::kCancelled);
  EXPECT_EQ(calls, 1);
  // The client still works afterwards (the cut connection was not reused).
  st = (*c)->Scan("w.c.d", {}, "ok", false, [](const RecordBatch&) { return Status::OK(); });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(RemoteClientTest, ScanCutMidStreamIsIoError) {
  FakeServer fake;
  fake.server().Get(kScanPath, [&](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/vnd.tarn.frames",
                                     [](size_t, httplib::DataSink& sink) {
                                       std::string out = *api::EncodeBatchFrame(SmallBatch(0, 3));
                                       sink.write(out.data(), out.size());
                                       return false;  // the server dies mid-response
                                     });
  });
  fake.Start();
  auto c = RemoteClient::Make(fake.url(), {});
  ASSERT_TRUE(c.ok());
  Status st = (*c)->Scan("w.c.d", {}, "", false, [](const RecordBatch&) { return Status::OK(); });
  EXPECT_EQ(st.kind(), ErrorKind::kIOError) << st.ToString();
}

TEST(RemoteClientTest, PlanReadsNdjsonLines) {
  FakeServer fake;
  fake.server().Get("/v1/workspaces/w/collections/c/datasets/d/plan",
                    [&](const httplib::Request& req, httplib::Response& res) {
                      PlannedFile f;
                      f.file.path = "data/a.parquet";
                      f.file.record_count = 3;
                      f.deletion_vector = std::string("\x01\x00", 2);
                      std::string body = api::Dump(api::ToJson(f)) + "\n";
                      f.file.path = "data/b.parquet";
                      body += api::Dump(api::ToJson(f)) + "\n";
                      if (req.get_param_value("where") != "cut") {
                        body += R"({"end":true,"files":2})"
                                "\n";
                      }
                      res.set_content(body, "application/x-ndjson");
                    });
  fake.Start();
  auto c = RemoteClient::Make(fake.url(), {});
  ASSERT_TRUE(c.ok());
  std::vector<std::string> paths;
  Status st = (*c)->PlanFiles("w.c.d", {}, "", [&](const PlannedFile& f) {
    paths.push_back(f.file.path);
    EXPECT_EQ(f.deletion_vector, std::string("\x01\x00", 2));
    return Status::OK();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(paths, (std::vector<std::string>{"data/a.parquet", "data/b.parquet"}));
  st = (*c)->PlanFiles("w.c.d", {}, "cut", [](const PlannedFile&) { return Status::OK(); });
  EXPECT_EQ(st.kind(), ErrorKind::kIOError);
}

// The manifest is asked for at the snapshot the selector resolves to first, its bytes passed on
// as they come; one that does not end like a Parquet file, or a cut stream, is an I/O error.
TEST(RemoteClientTest, ExportManifestStreamsTheSnapshotsParquet) {
  const std::string base = "/v1/workspaces/w/collections/c/datasets/d";
  const std::string body = "PAR1" + std::string(300000, 'x') + "PAR1";
  FakeServer fake;
  fake.server().Get(base + "/snapshot", [&](const httplib::Request& req, httplib::Response& res) {
    SnapshotInfo s;
    s.dataset_uuid = "u-1";
    s.snapshot_id = req.get_param_value("tag") == "cut" ? 8 : 7;
    if (req.get_param_value("tag") == "short") s.snapshot_id = 9;
    s.total_files = 3;
    res.set_content(api::Dump(api::ToJson(s)), "application/json");
  });
  fake.server().Get(base + "/manifest", [&](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.get_param_value("snapshot_id");
    if (id == "7") {
      res.set_content(body, "application/vnd.apache.parquet");
    } else if (id == "9") {
      res.set_content(body.substr(0, 1000), "application/vnd.apache.parquet");
    } else {
      res.set_chunked_content_provider("application/vnd.apache.parquet",
                                       [&](size_t, httplib::DataSink& sink) {
                                         sink.write(body.data(), 1000);
                                         return false;  // the server dies mid-response
                                       });
    }
  });
  fake.Start();
  auto c = RemoteClient::Make(fake.url(), {});
  ASSERT_TRUE(c.ok());
  std::string got;
  auto sink = [&](std::string_view b) {
    got.append(b);
    return Status::OK();
  };
  auto info = (*c)->ExportManifest("w.c.d", {}, sink);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(got, body);
  EXPECT_EQ(info->snapshot_id, 7);
  EXPECT_EQ(info->dataset, "w.c.d");
  EXPECT_EQ(info->dataset_uuid, "u-1");
  EXPECT_EQ(info->files, 3);
  EXPECT_EQ(info->bytes, static_cast<int64_t>(body.size()));
  for (const char* tag : {"cut", "short"}) {
    SnapshotSelector at;
    at.tag = tag;
    auto bad = (*c)->ExportManifest("w.c.d", at, sink);
    EXPECT_EQ(bad.status().kind(), ErrorKind::kIOError) << tag << ": " << bad.status().ToString();
  }
  // The caller's error stops it.
  auto refused = (*c)->ExportManifest(
      "w.c.d", {}, [](std::string_view) { return Status::IOError("disk full"); });
  EXPECT_NE(refused.status().message().find("disk full"), std::string::npos);
}

TEST(RemoteClientTest, AppendStreamsFramesAndReturnsTheSnapshot) {
  FakeServer fake;
  std::atomic<int> commits{0};
  std::string seen_meta, seen_op;
  std::vector<int64_t> seen_rows;
  std::mutex mu;
  fake.server().Post("/v1/workspaces/w/collections/c/datasets/d/append",
                     [&](const httplib::Request& req, httplib::Response& res,
                         const httplib::ContentReader& reader) {
                       // Per request: an aborted request's handler may still be reading
                       // while the next request arrives on another connection.
                       std::string op = req.get_param_value("operation");
                       api::FrameParser parser;
                       Status bad;
                       bool saw_end = false;
                       std::vector<int64_t> rows;
                       std::string meta_text;
                       reader([&](const char* data, size_t n) {
                         bad = parser.Feed(std::string_view(data, n));
                         while (auto f = parser.Next()) {
                           if (f->first == api::FrameKind::kMeta) meta_text = f->second;
                           if (f->first == api::FrameKind::kParquet) {
                             rows.push_back(api::DecodeBatchPayload(f->second)->num_rows);
                           }
                           if (f->first == api::FrameKind::kEnd) saw_end = true;
                         }
                         return bad.ok();
                       });
                       if (!saw_end) {
                         ReplyError(res, Status::IOError("truncated"));
                         return;
                       }
                       ++commits;
                       {
                         std::lock_guard<std::mutex> l(mu);
                         seen_op = op;
                         seen_rows = rows;
                         seen_meta = meta_text;
                       }
                       SnapshotInfo s;
                       s.dataset_uuid = "u";
                       s.snapshot_id = 7;
                       s.operation = op;
                       s.added_records = 0;
                       for (int64_t r : rows) s.added_records += r;
                       res.set_content(api::Dump(api::ToJson(s)), "application/json");
                     });
  fake.Start();
  auto c = RemoteClient::Make(fake.url(), {});
  ASSERT_TRUE(c.ok());
  int pulled = 0;
  Client::BatchSource source = [&]() -> Result<std::optional<RecordBatch>> {
    if (pulled == 3) return std::optional<RecordBatch>();
    ++pulled;
    return std::optional<RecordBatch>(SmallBatch(pulled * 10, pulled));
  };
  CommitMeta meta;
  meta.author = "tarn_W";
  meta.message = "load ✓";
  auto snap = (*c)->AppendStream("w.c.d", source, meta, CommitOperation::kOverwrite);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->snapshot_id, 7);
  EXPECT_EQ(snap->added_records, 6);
  EXPECT_EQ(seen_op, "overwrite");
  EXPECT_EQ(seen_rows, (std::vector<int64_t>{1, 2, 3}));
  auto meta_back = api::CommitMetaFromJson(*api::ParseObject(seen_meta));
  ASSERT_TRUE(meta_back.ok());
  EXPECT_EQ(meta_back->author, "tarn_W");
  EXPECT_EQ(meta_back->message, "load ✓");

  // A failing source aborts the request: its error comes back and nothing commits.
  pulled = 0;
  Client::BatchSource failing = [&]() -> Result<std::optional<RecordBatch>> {
    if (++pulled == 2) return Status::InvalidArgument("bad CSV row 7");
    return std::optional<RecordBatch>(SmallBatch(0, 1));
  };
  auto failed = (*c)->AppendStream("w.c.d", failing, meta);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(), "bad CSV row 7");
  EXPECT_EQ(commits.load(), 1);

  // Append of a vector goes the same way.
  std::vector<RecordBatch> batches;
  batches.push_back(SmallBatch(0, 4));
  auto appended = (*c)->Append("w.c.d", batches, meta);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->added_records, 4);
  EXPECT_EQ(seen_op, "append");
}

TEST(RemoteClientTest, ManyThreadsAtOnce) {
  FakeServer fake;
  AuthScript auth;
  auth.Install(fake.server());
  fake.server().Get(R"(/v1/workspaces/(\w+))",
                    [&](const httplib::Request& req, httplib::Response& res) {
                      if (!auth.Authorized(req, res)) return;
                      WorkspaceInfo w;
                      w.name = req.matches[1];
                      res.set_content(api::Dump(api::ToJson(w)), "application/json");
                    });
  fake.Start();
  auto c = RemoteClient::Connect(fake.url(), Creds());
  ASSERT_TRUE(c.ok());
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        std::string name = "ws" + std::to_string(t) + "_" + std::to_string(i);
        auto w = (*c)->GetWorkspace(name);
        if (w.ok() && w->name == name) ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 120);
  EXPECT_EQ(auth.issued.load(), 1);
}

}  // namespace
}  // namespace tarn::client

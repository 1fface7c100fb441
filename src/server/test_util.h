// Test-only helpers of the server suites: a catalog and server on 127.0.0.1 with an ephemeral
// port, raw HTTP requests with httplib::Client, batches and frame bodies.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/wire.h"
#include "catalog/catalog.h"
#include "catalog/test_fixture.h"
#include "metastore/test_util.h"
#include "server/server.h"
#include "types/value_text.h"

namespace tarn::server::testing {

using ::tarn::MakeBatch;

using api::Json;

#define SERVER_ASSERT_OK(expr)                                \
  do {                                                        \
    ::tarn::Status _st = (expr);                              \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st.ToString(); \
  } while (false)

// What a request got back.
struct Reply {
  int status = 0;  // 0: no response (connection error)
  std::string body;
  httplib::Headers headers;
  Json json;  // the body parsed, when it is JSON

  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  // error.code / error.field of an error body ("" when absent).
  std::string Code() const { return ErrorField("code"); }
  std::string ErrorField(const std::string& name) const {
    if (!json.is_object() || !json.contains("error") || !json["error"].is_object()) return "";
    const Json& e = json["error"];
    return e.contains(name) && e[name].is_string() ? e[name].get<std::string>() : "";
  }
};

inline std::ostream& operator<<(std::ostream& os, const Reply& r) {
  return os << "HTTP " << r.status << " " << r.body.substr(0, 400);
}

struct Request {
  std::string method = "GET";
  std::string path;
  std::string body;
  std::string content_type = "application/json";
  std::string token;  // bearer token ("" = no Authorization header)
  httplib::Headers headers;
};

inline Reply Send(int port, const Request& r) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(10, 0);
  cli.set_read_timeout(60, 0);
  cli.set_write_timeout(60, 0);
  httplib::Request req;
  req.method = r.method;
  req.path = r.path;
  req.headers = r.headers;
  if (!r.token.empty()) req.headers.emplace("Authorization", "Bearer " + r.token);
  if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
    req.body = r.body;
    req.headers.emplace("Content-Type", r.content_type);
  }
  Reply out;
  auto res = cli.send(req);
  if (!res) return out;
  out.status = res->status;
  out.body = res->body;
  out.headers = res->headers;
  out.json = Json::parse(out.body, nullptr, false);
  return out;
}

inline Reply Get(int port, const std::string& path, const std::string& token) {
  return Send(port, {"GET", path, "", "", token, {}});
}
inline Reply SendJson(int port, const std::string& method, const std::string& path,
                      const Json& body, const std::string& token) {
  return Send(port, {method, path, api::Dump(body), "application/json", token, {}});
}

// A vector of batches from movable ones (RecordBatch cannot be copied).
template <typename... B>
std::vector<RecordBatch> Batches(B&&... b) {
  std::vector<RecordBatch> v;
  (v.push_back(std::forward<B>(b)), ...);
  return v;
}

// An append body: the meta frame, one P frame per batch, the end frame.
inline std::string AppendBody(const Json& meta, const std::vector<RecordBatch>& batches) {
  std::string body = api::EncodeFrame(api::FrameKind::kMeta, api::Dump(meta));
  for (const auto& b : batches) {
    auto frame = api::EncodeBatchFrame(b);
    EXPECT_TRUE(frame.ok()) << frame.status().ToString();
    if (frame.ok()) body += *frame;
  }
  body += api::EncodeFrame(api::FrameKind::kEnd, "");
  return body;
}

// Collects the server's log lines.
struct LogCapture {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(std::string_view)> Sink() {
    return [this](std::string_view line) {
      std::lock_guard<std::mutex> lock(mu);
      lines.emplace_back(line);
    };
  }
  std::vector<Json> Parsed() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<Json> out;
    for (const auto& l : lines) out.push_back(Json::parse(l, nullptr, false));
    return out;
  }
};

// A fresh directory for one test's catalog.
inline std::filesystem::path TestDir(const std::string& tag) {
  auto dir = tarn::testing_util::ScratchDir() / ("tarn-server-" + std::to_string(::getpid()) + "-" +
                                                 tag + "-" + tarn::testing_util::TestName());
  std::filesystem::remove_all(dir);
  return dir;
}

// Exchanges a client id and secret for a bearer token at POST /v1/token.
inline std::string Exchange(int port, const std::string& id, const std::string& secret) {
  Reply r =
      Send(port, {"POST",
                  "/v1/token",
                  "grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret,
                  "application/x-www-form-urlencoded",
                  "",
                  {}});
  EXPECT_EQ(r.status, 200) << r;
  if (r.status != 200) return "";
  return r.json["access_token"].get<std::string>();
}

// Creates an access token in the catalog and returns a bearer token for it.
inline std::string TokenFor(Catalog& cat, int port, const std::string& ws, Role role,
                            const std::string& pattern = "*", std::string* client_id = nullptr) {
  AccessTokenSpec spec;
  spec.workspace = ws;
  spec.role = role;
  spec.pattern = pattern;
  auto t = cat.CreateAccessToken(spec, "test");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return "";
  if (client_id) *client_id = t->info.client_id;
  return Exchange(port, t->info.client_id, t->client_secret);
}

// A CatalogBackendTest whose catalog a Server serves on an ephemeral port, its log captured;
// the server stops before the fixture drops the catalog. owner_ is a bearer token of an owner
// of every workspace (client id owner_id_). Subclasses call SetUp first and return when cat_
// is null (a backend that is not available).
class ServedCatalogTest : public CatalogBackendTest {
 protected:
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    std::shared_ptr<Catalog> shared(cat_.get(), [](Catalog*) {});
    ServerOptions o;
    o.port = 0;
    o.log_sink = logs_.Sink();
    auto s = Server::Make(shared, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->port();
    owner_ = TokenFor(*cat_, port_, "*", Role::kOwner, "*", &owner_id_);
  }
  void TearDown() override {
    server_.reset();
    CatalogBackendTest::TearDown();
  }

  LogCapture logs_;
  std::unique_ptr<Server> server_;
  int port_ = 0;
  std::string owner_, owner_id_;
};

}  // namespace tarn::server::testing

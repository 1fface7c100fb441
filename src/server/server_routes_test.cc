// Every route of the route table against the refusals every route must give (issue 5, "Tests"):
// no token 401, a reader token on a write 403, a token for another workspace 403, malformed JSON
// 400, unknown fields 422 naming the field, oversized bodies 413, bad identifiers 422 and file
// paths outside the warehouse 422. Driven by Server::Routes(): a route without a sample here
// fails the suite, so a new route cannot be forgotten.
#include <map>
#include <set>

#include "server/test_util.h"
#include "upload/contract_service.h"

namespace tarn::server::testing {
namespace {

constexpr int64_t kJsonLimit = 64 << 10;
constexpr int64_t kAppendLimit = 256 << 10;

// A valid request of one route (path parameters filled in from `params`).
struct Sample {
  Sample() = default;
  Sample(std::string q, Json b = nullptr, std::string raw = "",
         std::string type = "application/json")
      : query(std::move(q)),
        body(std::move(b)),
        raw_body(std::move(raw)),
        content_type(std::move(type)) {}
  std::string query;
  Json body;             // null: no body
  std::string raw_body;  // frames or a form, instead of `body`
  std::string content_type = "application/json";
};

class RouteMatrix : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(tarn::testing_util::ScratchDir() /
                                     ("tarn-server-routes-" + std::to_string(::getpid())));
    std::filesystem::remove_all(*dir_);
    auto c = Catalog::OpenEmbedded(dir_->string());
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cat_ = new std::shared_ptr<Catalog>(std::move(*c));
    Catalog& cat = **cat_;
    ASSERT_TRUE(cat.CreateWorkspace("ws").ok());
    ASSERT_TRUE(cat.CreateWorkspace("other").ok());
    ASSERT_TRUE(cat.CreateCollection("ws.c").ok());
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64, v VARCHAR");
    auto ds = cat.CreateDataset("ws.c.d", def);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    schema_ = new Schema(ds->schema);
    CommitMeta meta;
    meta.author = "setup";
    auto snap = cat.Append("ws.c.d", Batches(MakeBatch(*schema_, {{"1", "a"}, {"2", "b"}})), meta);
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    snapshot_id_ = snap->snapshot_id;
    uuid_ = ds->uuid;
    Status planned = cat.PlanFiles("ws.c.d", {}, "", [](const PlannedFile& f) {
      if (data_key_.empty()) data_key_ = f.file.path;
      return Status::OK();
    });
    ASSERT_TRUE(planned.ok()) << planned.ToString();
    // An accepted contract onto ws.c.d for the /v1/contracts/{id} routes.
    upload::ContractService uploads(*cat_);
    NegotiateRequest req;
    req.target = "ws.c.d";
    req.schema = SchemaSource::OfDataset();
    req.samples = {*SampleBytes("s.csv", "id,v\n1,a\n")};
    auto contract = uploads.Negotiate(req);
    ASSERT_TRUE(contract.ok()) << contract.status().ToString();
    ASSERT_EQ(contract->state, ContractState::kAccepted);
    contract_id_ = contract->id;

    ServerOptions o;
    o.port = 0;
    o.max_json_body_bytes = kJsonLimit;
    o.max_append_body_bytes = kAppendLimit;
    o.max_negotiate_body_bytes = kJsonLimit;
    o.log_sink = [](std::string_view) {};
    auto s = Server::Make(*cat_, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = s->release();
    ASSERT_TRUE(server_->Start().ok());
    int port = server_->port();
    tokens_ = new std::map<std::string, std::string>();
    (*tokens_)["owner"] = TokenFor(cat, port, "*", Role::kOwner);
    (*tokens_)["reader"] = TokenFor(cat, port, "ws", Role::kReader, "*", &reader_id_);
    (*tokens_)["writer"] = TokenFor(cat, port, "ws", Role::kWriter);
    (*tokens_)["other"] = TokenFor(cat, port, "other", Role::kOwner);
  }
  static void TearDownTestSuite() {
    delete server_;
    delete cat_;
    delete tokens_;
    delete schema_;
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }

  int port() const { return server_->port(); }
  std::string Token(const std::string& who) const { return (*tokens_)[who]; }

  static std::map<std::string, Sample> Samples() {
    Json schema = api::ToJson(*schema_);
    Json meta = {{"author", "tester"}};
    std::string frames = AppendBody(meta, Batches(MakeBatch(*schema_, {{"3", "c"}})));
    std::map<std::string, Sample> s;
    const std::string D = "/v1/workspaces/{ws}/collections/{coll}/datasets/{ds}";
    s["GET /livez"] = {};
    s["GET /healthz"] = {};
    s["GET /metrics"] = {};
    s["GET /v1/openapi.json"] = {};
    s["POST /v1/token"] =
        Sample("", nullptr, "grant_type=client_credentials&client_id=x&client_secret=y",
               "application/x-www-form-urlencoded");
    s["GET /v1/whoami"] = {};
    s["GET /v1/workspaces"] = {};
    s["POST /v1/workspaces"] = Sample("", Json{{"name", "ws_new"}});
    s["GET /v1/workspaces/{ws}"] = {};
    s["DELETE /v1/workspaces/{ws}"] = {};
    s["PATCH /v1/workspaces/{ws}/properties"] = Sample("", Json{{"set", {{"k", "v"}}}});
    s["PUT /v1/workspaces/{ws}/secure/{object}"] =
        Sample("", Json{{"destinations", Json::array({"other"})}});
    s["DELETE /v1/workspaces/{ws}/secure/{object}"] = {};
    s["GET /v1/workspaces/{ws}/collections"] = {};
    s["POST /v1/workspaces/{ws}/collections"] = Sample("", Json{{"name", "c_new"}});
    s["GET /v1/workspaces/{ws}/collections/{coll}"] = {};
    s["DELETE /v1/workspaces/{ws}/collections/{coll}"] = {};
    s["PATCH /v1/workspaces/{ws}/collections/{coll}/properties"] =
        Sample("", Json{{"set", {{"k", "v"}}}});
    s["GET /v1/workspaces/{ws}/collections/{coll}/datasets"] = {};
    s["POST /v1/workspaces/{ws}/collections/{coll}/datasets"] =
        Sample("", Json{{"name", "d_new"}, {"schema", schema}});
    s["GET " + D] = {};
    s["DELETE " + D] = {};
    s["POST " + D + "/rename"] = Sample("", Json{{"new_name", "d_renamed"}});
    s["PATCH " + D + "/properties"] = Sample("", Json{{"set", {{"k", "v"}}}});
    s["POST " + D + "/schema"] = Sample(
        "",
        Json{{"changes",
              Json::array({Json{{"kind", "add_column"}, {"column", "z"}, {"type", "INT64"}}})}});
    s["PUT " + D + "/partition"] = Sample("", Json{{"spec", ""}});
    s["PUT " + D + "/sort"] = Sample("", Json{{"order", ""}});
    s["POST " + D + "/append"] = Sample("", nullptr, frames, "application/vnd.tarn.frames");
    s["POST " + D + "/files"] = Sample("", Json{{"paths", Json::array({"ws/c/d/none.parquet"})}});
    s["GET " + D + "/locations"] = {};
    s["POST " + D + "/locations"] = Sample("", Json{{"prefix", "landing/ws/"}});
    s["DELETE " + D + "/locations"] = Sample("?prefix=landing/ws/");
    s["POST " + D + "/delete"] = Sample("", Json{{"where", "id = 1"}});
    s["POST " + D + "/register"] = Sample("", Json{{"metadata", "external/none.metadata.json"}});
    s["POST " + D + "/rollback"] = Sample("", Json{{"to_snapshot_id", snapshot_id_}});
    s["POST /v1/commits"] = Sample(
        "",
        Json{{"parts", Json::array({Json{{"dataset", "ws.c.d"},
                                         {"operation", "delete_files"},
                                         {"read_snapshot_id", snapshot_id_},
                                         {"removed_paths", Json::array({"ws/c/d/x.parquet"})}}})}});
    s["GET " + D + "/snapshots"] = {};
    s["GET " + D + "/snapshot"] = {};
    s["GET " + D + "/tags"] = {};
    s["GET " + D + "/lineage"] = Sample("?limit=5");
    s["GET " + D + "/impact"] = {};
    s["GET " + D + "/readers"] = Sample("?version=1");
    s["PUT " + D + "/tags/{tag}"] = Sample("", Json{{"snapshot_id", snapshot_id_}});
    s["DELETE " + D + "/tags/{tag}"] = {};
    s["GET " + D + "/plan"] = Sample("?limit=5&after=a");
    s["GET " + D + "/scan"] = {};
    s["GET " + D + "/manifest"] = Sample("?snapshot_id=" + std::to_string(snapshot_id_));
    s["GET " + D + "/iceberg"] = Sample("?format_version=2");
    s["GET " + D + "/changes"] = Sample("?from=0&limit=10");
    s["GET " + D + "/offsets/{consumer}"] = {};
    s["PUT " + D + "/offsets/{consumer}"] = Sample("", Json{{"snapshot_id", snapshot_id_}});
    s["POST " + D + "/expire"] = Sample("", Json{{"older_than_us", 0}, {"dry_run", true}});
    s["POST " + D + "/compact"] = Sample("", Json{{"dry_run", true}});
    s["POST " + D + "/stats/hydrate"] = Sample("", Json{{"limit", 10}});
    s["POST " + D + "/inlined/flush"] = Sample("", Json::object());
    const std::string V = "/v1/workspaces/{ws}/collections/{coll}/views";
    s["GET " + V] = {};
    s["POST " + V] = Sample("", Json{{"name", "v_new"}, {"sql", "SELECT 1"}});
    s["GET " + V + "/{view}"] = {};
    s["DELETE " + V + "/{view}"] = {};
    s["GET " + V + "/{view}/versions"] = {};
    s["POST " + V + "/{view}/runs"] = Sample("", Json{{"row_count", 1}, {"run_us", 5}});
    const std::string M = "/v1/workspaces/{ws}/collections/{coll}/materialized_views";
    s["GET " + M] = {};
    s["POST " + M] =
        Sample("", Json{{"name", "d"}, {"sql", "SELECT 1"}, {"sources", Json::array()}});
    s["GET " + M + "/{view}"] = {};
    s["DELETE " + M + "/{view}"] = {};
    s["POST " + M + "/{view}/refreshes"] = Sample("", Json{{"status", "failed"}});
    const std::string T = "/v1/workspaces/{ws}/collections/{coll}/tasks";
    s["GET " + T] = {};
    s["POST " + T] = Sample("", Json{{"name", "k_new"},
                                     {"sql", "SELECT 1"},
                                     {"target", "ws.c.d"},
                                     {"trigger", "signal"},
                                     {"reads", Json::array()}});
    s["GET " + T + "/{task}"] = {};
    s["DELETE " + T + "/{task}"] = {};
    s["POST " + T + "/{task}/signal"] = Sample("", Json::object());
    s["POST " + T + "/{task}/runs"] = Sample("", Json{{"status", "failed"}});
    s["GET " + D + "/triggers"] = {};
    s["PUT " + D + "/triggers/{trigger}/interval"] = Sample("", Json{{"seconds", 5}});
    s["GET /v1/jobs"] = {};
    s["GET /v1/jobs/{job}"] = {};
    s["POST /v1/jobs/{job}/retry"] = Sample("", Json::object());
    s["POST /v1/jobs/{job}/outcome"] = Sample("", Json{{"state", "failed"}});
    s["POST /v1/cleanup"] = Sample("", Json::object());
    s["POST /v1/retention"] = Sample("?workspace=ws", Json{{"dry_run", true}});
    s["POST /v1/tokens"] = Sample("", Json{{"workspace", "ws"}, {"role", "reader"}});
    s["GET /v1/tokens"] = Sample("?workspace=ws");
    s["DELETE /v1/tokens/{client_id}"] = {};
    s["GET /v1/audit"] = Sample("?workspace=ws");
    s["GET /v1/alerts"] = Sample("?workspace=ws");
    s["GET /v1/fsck"] = Sample("?workspace=ws");
    s["POST /v1/federation/rules"] = Sample(
        "",
        Json{{"issuer", "https://issuer.example"}, {"subject", "s"}, {"client_id", reader_id_}});
    s["GET /v1/federation/rules"] = {};
    s["DELETE /v1/federation/rules/{id}"] = {};
    s["POST /v1/contracts"] = Sample(
        "", Json{{"target", "ws.c.d"},
                 {"schema", {{"source", "dataset"}}},
                 {"samples", Json::array({Json{{"name", "s.csv"}, {"bytes", "aWQsdgoxLGEK"}}})}});
    s["GET /v1/contracts/{id}"] = {};
    s["DELETE /v1/contracts/{id}"] = {};
    s["POST /v1/contracts/{id}/retype"] = Sample("", Json{{"types", {{"v", "VARCHAR"}}}});
    s["POST /v1/contracts/{id}/ignore"] = Sample("", Json{{"columns", Json::array({"v"})}});
    s["POST /v1/contracts/{id}/accept"] = Sample("", Json{{"fingerprint", "x"}});
    s["PUT /v1/contracts/{id}/parts/{name}"] = Sample("", nullptr, "id,v\n3,c\n", "text/csv");
    s["POST /v1/contracts/{id}/commit"] = Sample("", Json::object());
    // The Iceberg REST facade.
    const std::string I = "/iceberg/v1/tarn/namespaces";
    s["GET /iceberg/v1/config"] = Sample("?warehouse=w");
    s["POST /iceberg/v1/oauth/tokens"] =
        Sample("", nullptr, "grant_type=client_credentials&client_id=x&client_secret=y",
               "application/x-www-form-urlencoded");
    s["GET " + I] = Sample("?parent=ws&pageToken=");
    s["POST " + I] = {};
    s["GET " + I + "/{namespace}"] = {};
    s["HEAD " + I + "/{namespace}"] = {};
    s["DELETE " + I + "/{namespace}"] = {};
    s["POST " + I + "/{namespace}/properties"] = {};
    s["GET " + I + "/{namespace}/tables"] = Sample("?pageSize=10");
    s["POST " + I + "/{namespace}/tables"] = {};
    s["POST " + I + "/{namespace}/register"] = {};
    s["GET " + I + "/{namespace}/tables/{table}"] = Sample("?snapshots=refs");
    s["HEAD " + I + "/{namespace}/tables/{table}"] = {};
    s["POST " + I + "/{namespace}/tables/{table}"] = {};
    s["DELETE " + I + "/{namespace}/tables/{table}"] = {};
    s["POST /iceberg/v1/tarn/tables/rename"] = {};
    s["POST /iceberg/v1/tarn/transactions/commit"] = {};
    s["GET /iceberg/v1/tarn/files/{uuid}/{key}"] = {};
    s["HEAD /iceberg/v1/tarn/files/{uuid}/{key}"] = {};
    return s;
  }

  // The path of `route` with its parameters filled in; `bad` replaces parameter `bad_param`.
  std::string Path(const RouteInfo& route, const std::string& bad_param = "",
                   const std::string& bad = "") const {
    std::map<std::string, std::string> values = {
        {"ws", "ws"},         {"coll", "c"},           {"ds", "d"},
        {"tag", "t"},         {"consumer", "k"},       {"client_id", reader_id_},
        {"id", contract_id_}, {"name", "part.csv"},    {"view", "v"},
        {"trigger", "t"},     {"job", "job_x"},        {"object", "other.c.copy"},
        {"task", "k"},        {"namespace", "ws%1Fc"}, {"table", "d"},
        {"uuid", uuid_},      {"key", data_key_}};
    std::string out;
    const std::string& p = route.path;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] != '{') {
        out += p[i];
        continue;
      }
      size_t end = p.find('}', i);
      std::string name = p.substr(i + 1, end - i - 1);
      out += name == bad_param ? bad : values.at(name);
      i = end;
    }
    return out;
  }

  static std::vector<std::string> Params(const RouteInfo& route) {
    std::vector<std::string> out;
    for (size_t i = route.path.find('{'); i != std::string::npos; i = route.path.find('{', i + 1)) {
      out.push_back(route.path.substr(i + 1, route.path.find('}', i) - i - 1));
    }
    return out;
  }

  Reply Call(const RouteInfo& route, const std::string& token, const std::string& path,
             const Sample& s, std::optional<std::string> body = std::nullopt) const {
    Request r;
    r.method = route.method;
    r.path = path + s.query;
    r.token = token;
    r.content_type = s.content_type;
    if (body) {
      r.body = *body;
    } else if (!s.raw_body.empty()) {
      r.body = s.raw_body;
    } else if (!s.body.is_null()) {
      r.body = api::Dump(s.body);
    }
    return Send(port(), r);
  }

  static std::filesystem::path* dir_;
  static std::shared_ptr<Catalog>* cat_;
  static Server* server_;
  static std::map<std::string, std::string>* tokens_;
  static Schema* schema_;
  static int64_t snapshot_id_;
  static std::string reader_id_;
  static std::string contract_id_;
  static std::string uuid_;
  static std::string data_key_;
};

std::filesystem::path* RouteMatrix::dir_ = nullptr;
std::shared_ptr<Catalog>* RouteMatrix::cat_ = nullptr;
Server* RouteMatrix::server_ = nullptr;
std::map<std::string, std::string>* RouteMatrix::tokens_ = nullptr;
Schema* RouteMatrix::schema_ = nullptr;
int64_t RouteMatrix::snapshot_id_ = 0;
std::string RouteMatrix::reader_id_;
std::string RouteMatrix::contract_id_;
std::string RouteMatrix::uuid_;
std::string RouteMatrix::data_key_;

// The Iceberg facade answers errors in the spec's shapes (400 for tarn's 422), and a HEAD
// answer has no body at all.
bool Facade(const RouteInfo& r) { return r.path.rfind("/iceberg/", 0) == 0; }
bool HasBody(const RouteInfo& r) { return r.method != "HEAD"; }

std::string Key(const RouteInfo& r) { return r.method + " " + r.path; }

TEST_F(RouteMatrix, EveryRouteHasASampleAndEverySampleARoute) {
  auto samples = Samples();
  std::set<std::string> routes;
  for (const auto& r : Server::Routes()) {
    EXPECT_TRUE(samples.count(Key(r))) << "no sample request for " << Key(r);
    EXPECT_TRUE(routes.insert(Key(r)).second) << "registered twice: " << Key(r);
  }
  for (const auto& [k, v] : samples) EXPECT_TRUE(routes.count(k)) << "no route " << k;
  EXPECT_GE(routes.size(), 45u);
}

TEST_F(RouteMatrix, WithoutAValidTokenEveryClosedRouteIs401) {
  auto samples = Samples();
  int checked = 0;
  for (const auto& r : Server::Routes()) {
    if (r.role == "open") continue;
    const Sample& s = samples[Key(r)];
    for (const std::string& token :
         {std::string(), std::string("not.a.jwt"), Token("owner") + "x"}) {
      Reply got = Call(r, token, Path(r), s);
      EXPECT_EQ(got.status, 401) << Key(r) << " token '" << token << "': " << got;
      if (Facade(r) && HasBody(r)) {
        EXPECT_EQ(got.ErrorField("type"), "NotAuthorizedException") << Key(r) << ": " << got;
      } else if (HasBody(r)) {
        EXPECT_EQ(got.ErrorField("kind"), "unauthenticated") << Key(r) << ": " << got;
      }
      EXPECT_NE(got.Header("WWW-Authenticate"), "") << Key(r);
    }
    ++checked;
  }
  EXPECT_GE(checked, 40);
}

TEST_F(RouteMatrix, AReaderTokenIsRefusedWhatNeedsMore) {
  auto samples = Samples();
  int checked = 0;
  for (const auto& r : Server::Routes()) {
    if (r.role != "writer" && r.role != "owner") continue;
    Reply got = Call(r, Token("reader"), Path(r), samples[Key(r)]);
    EXPECT_EQ(got.status, 403) << Key(r) << ": " << got;
    // The upload service's refusals have a code of their own (docs/design/upload.md).
    bool upload = r.path.rfind("/v1/contracts", 0) == 0;
    EXPECT_EQ(got.Code(), upload ? "not_authorized" : "permission_denied") << Key(r) << ": " << got;
    EXPECT_EQ(got.ErrorField("kind"), "permission_denied") << Key(r) << ": " << got;
    ++checked;
  }
  EXPECT_GE(checked, 25);
}

TEST_F(RouteMatrix, ATokenForAnotherWorkspaceIsRefused) {
  auto samples = Samples();
  int checked = 0;
  for (const auto& r : Server::Routes()) {
    if (r.role == "open" || r.role == "token") continue;
    Reply got = Call(r, Token("other"), Path(r), samples[Key(r)]);
    EXPECT_EQ(got.status, 403) << Key(r) << ": " << got;
    ++checked;
  }
  EXPECT_GE(checked, 35);
  // Lists are filtered instead.
  Reply ws = Get(port(), "/v1/workspaces", Token("other"));
  ASSERT_EQ(ws.status, 200) << ws;
  ASSERT_EQ(ws.json["workspaces"].size(), 1u) << ws;
  EXPECT_EQ(ws.json["workspaces"][0]["name"], "other");
}

TEST_F(RouteMatrix, MalformedJsonIs400) {
  int checked = 0;
  for (const auto& r : Server::Routes()) {
    if (r.body != "json") continue;
    for (const char* bad : {"{bad", "[1,2]", "\"text\"", "{\"a\":1,}", "\xff\xfe"}) {
      Reply got = Call(r, Token("owner"), Path(r), Samples()[Key(r)], std::string(bad));
      EXPECT_EQ(got.status, 400) << Key(r) << " body " << bad << ": " << got;
      EXPECT_EQ(got.Code(), "malformed_json") << Key(r) << ": " << got;
    }
    ++checked;
  }
  EXPECT_GE(checked, 19);
  // Nesting deep enough to hurt a recursive reader is malformed too.
  RouteInfo ws;
  ws.method = "POST";
  ws.path = "/v1/workspaces";
  Reply deep = Call(ws, Token("owner"), "/v1/workspaces", {},
                    "{\"name\":" + std::string(5000, '[') + std::string(5000, ']') + "}");
  EXPECT_EQ(deep.status, 400) << deep;
}

TEST_F(RouteMatrix, UnknownFieldsAre422NamingTheField) {
  auto samples = Samples();
  int checked = 0;
  for (const auto& r : Server::Routes()) {
    const Sample& s = samples[Key(r)];
    std::string body;
    if (r.body == "json") {
      Json j = s.body.is_null() ? Json::object() : s.body;
      j["bogus_field"] = 1;
      body = api::Dump(j);
    } else if (r.body == "frames") {
      body = AppendBody(Json{{"author", "t"}, {"bogus_field", 1}},
                        Batches(MakeBatch(*schema_, {{"9", "z"}})));
    } else {
      continue;
    }
    Reply got = Call(r, Token("owner"), Path(r), s, body);
    EXPECT_EQ(got.status, 422) << Key(r) << ": " << got;
    EXPECT_EQ(got.Code(), "unknown_field") << Key(r) << ": " << got;
    EXPECT_EQ(got.ErrorField("field"), "/bogus_field") << Key(r) << ": " << got;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST_F(RouteMatrix, OversizedBodiesAre413) {
  auto samples = Samples();
  int checked = 0;
  for (const auto& r : Server::Routes()) {
    if (r.body == "none") continue;
    int64_t limit = r.body == "frames" || r.body == "bytes" ? kAppendLimit : kJsonLimit;
    std::string body = r.body == "form" ? "grant_type=" + std::string(limit + 10, 'a')
                                        : "{\"x\":\"" + std::string(limit + 10, 'a') + "\"}";
    if (r.body == "frames") {  // well-formed frames, one of them too large
      body = api::EncodeFrame(api::FrameKind::kMeta, "{\"author\":\"t\"}") +
             api::FrameHeader(api::FrameKind::kParquet, limit + 10) + std::string(limit + 10, 'p');
    }
    const std::string& type = samples[Key(r)].content_type;
    for (bool chunked : {false, true}) {
      Reply got;
      if (!chunked) {
        got = Call(r, Token("owner"), Path(r), samples[Key(r)], body);
      } else {
        // Without a length the limit is enforced while reading.
        httplib::Client cli("127.0.0.1", port());
        httplib::Headers h = {{"Authorization", "Bearer " + Token("owner")}};
        size_t sent = 0;
        auto provider = [&](size_t, httplib::DataSink& sink) {
          size_t n = std::min<size_t>(16 << 10, body.size() - sent);
          sink.write(body.data() + sent, n);
          sent += n;
          if (sent == body.size()) sink.done();
          return true;
        };
        httplib::Result res =
            r.method == "POST"  ? cli.Post(Path(r).c_str(), h, provider, type.c_str())
            : r.method == "PUT" ? cli.Put(Path(r).c_str(), h, provider, type.c_str())
                                : cli.Patch(Path(r).c_str(), h, provider, type.c_str());
        ASSERT_TRUE(res) << Key(r) << " chunked: " << httplib::to_string(res.error());
        got.status = res->status;
        got.json = Json::parse(res->body, nullptr, false);
      }
      EXPECT_EQ(got.status, 413) << Key(r) << (chunked ? " chunked" : "") << ": " << got;
      if (!Facade(r)) {
        EXPECT_EQ(got.Code(), "too_large") << Key(r) << ": " << got;
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 21);
}

TEST_F(RouteMatrix, BadIdentifiersAre422) {
  auto samples = Samples();
  int checked = 0;
  for (const auto& r : Server::Routes()) {
    for (const std::string& param : Params(r)) {
      // A part is named like a file: dots are fine, separators and control bytes are not.
      std::vector<std::string> bads = {"9starts_with_digit", "has.dot", "sp%20ace",
                                       std::string(129, 'a')};
      if (param == "name") bads = {std::string(256, 'a'), "..", "a%5Cb", "a%01b"};
      // An object is workspace.collection.name: three identifiers.
      if (param == "object") bads = {"has.dot", "a.b.9c", "a.b.c.d", "a.b.sp%20ace"};
      // A namespace is one or two identifiers joined by 0x1F; a key is a warehouse key.
      if (param == "namespace") bads = {"9starts", "ws%1F", "ws%1Fhas.dot", "sp%20ace"};
      if (param == "uuid") bads = {"not-a-uuid", "has.dot", std::string(37, 'a')};
      if (param == "key") bads = {"a/../b", "a//b", "%2E%2E/b", "a/%2E"};
      for (const std::string& bad : bads) {
        Reply got = Call(r, Token("owner"), Path(r, param, bad), samples[Key(r)]);
        const std::string at = Key(r) + " " + param + "=" + bad;
        if (Facade(r)) {  // the Iceberg spec's 400, without tarn's code and field
          EXPECT_EQ(got.status, 400) << at << ": " << got;
          if (HasBody(r)) {
            EXPECT_EQ(got.ErrorField("type"), "BadRequestException") << at;
          }
          continue;
        }
        EXPECT_EQ(got.status, 422) << at << ": " << got;
        EXPECT_EQ(got.Code(), "invalid_identifier") << Key(r) << ": " << got;
        EXPECT_EQ(got.ErrorField("field"), param) << Key(r) << ": " << got;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 60);
  // Names in bodies too.
  Reply ws = SendJson(port(), "POST", "/v1/workspaces", Json{{"name", "1x"}}, Token("owner"));
  EXPECT_EQ(ws.status, 422) << ws;
  EXPECT_EQ(ws.ErrorField("field"), "/name");
}

TEST_F(RouteMatrix, FilePathsOutsideTheWarehouseAre422) {
  const std::string files = "/v1/workspaces/ws/collections/c/datasets/d/files";
  for (const std::string& path : {std::string("/etc/passwd"), std::string("../../etc/passwd"),
                                  std::string("ws/../../x.parquet"),
                                  std::string("file:///etc/passwd"), std::string("s3://b/x")}) {
    Reply got = SendJson(port(), "POST", files,
                         Json{{"paths", Json::array({"ok/a.parquet", path})}}, Token("owner"));
    EXPECT_EQ(got.status, 422) << path << ": " << got;
    EXPECT_EQ(got.Code(), "path_outside_warehouse") << got;
    EXPECT_EQ(got.ErrorField("field"), "/paths/1") << got;

    Json added = {{"path", path}, {"record_count", 1}, {"file_size_bytes", 10}};
    Json part = {
        {"dataset", "ws.c.d"}, {"operation", "add_files"}, {"added", Json::array({added})}};
    Reply c = SendJson(port(), "POST", "/v1/commits", Json{{"parts", Json::array({part})}},
                       Token("owner"));
    EXPECT_EQ(c.status, 422) << path << ": " << c;
    EXPECT_EQ(c.Code(), "path_outside_warehouse") << c;
    EXPECT_EQ(c.ErrorField("field"), "/parts/0/added/0/path") << c;

    Json removal = {{"dataset", "ws.c.d"},
                    {"operation", "delete_files"},
                    {"read_snapshot_id", snapshot_id_},
                    {"removed_paths", Json::array({path})}};
    Reply d = SendJson(port(), "POST", "/v1/commits", Json{{"parts", Json::array({removal})}},
                       Token("owner"));
    EXPECT_EQ(d.status, 422) << path << ": " << d;
    EXPECT_EQ(d.ErrorField("field"), "/parts/0/removed_paths/0") << d;
  }
}

TEST_F(RouteMatrix, EveryRouteRefusesAQueryParameterItDoesNotRead) {
  // Issue 20: a parameter no route reads, and one another route reads, are 422
  // unknown_parameter naming it, before the token is looked at; the sample's own parameters
  // (declared in the route table) pass.
  auto samples = Samples();
  int checked = 0;
  for (const auto& r : Server::Routes()) {
    const Sample& s = samples[Key(r)];
    std::set<std::string> reads(r.query.begin(), r.query.end());
    for (const std::string& name : {std::string("no_such_param"), std::string("limit"),
                                    std::string("where"), std::string("Limit")}) {
      if (reads.count(name)) continue;
      Sample with = s;
      with.query += (s.query.empty() ? "?" : "&") + name + "=1";
      for (const std::string& token : {Token("owner"), std::string()}) {
        Reply got = Call(r, token, Path(r), with);
        if (Facade(r)) {
          EXPECT_EQ(got.status, 400) << Key(r) << " ?" << name << ": " << got;
          continue;
        }
        EXPECT_EQ(got.status, 422) << Key(r) << " ?" << name << ": " << got;
        EXPECT_EQ(got.Code(), "unknown_parameter") << Key(r) << ": " << got;
        EXPECT_EQ(got.ErrorField("field"), name) << Key(r) << ": " << got;
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 45);
}

TEST_F(RouteMatrix, RefusalsKeepTheConnectionUsable) {
  // A refused request's body is drained, so the next request on the same connection works.
  httplib::Client cli("127.0.0.1", port());
  cli.set_keep_alive(true);
  std::string big = "{\"x\":\"" + std::string(50 << 10, 'a') + "\"}";
  auto r1 = cli.Post("/v1/workspaces", big, "application/json");  // no token
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->status, 401);
  auto r2 = cli.Get("/livez");
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->status, 200);
  EXPECT_NE(r2->get_header_value("Connection"), "close");
}

}  // namespace
}  // namespace tarn::server::testing

// Federated sign-in end to end over HTTP (docs/design/federation.md): a local OpenID Connect
// issuer on loopback, POST /v1/token with the token-exchange grant and every refusal's reason,
// the federation rule routes and their audit rows, and the remote SDK signing in with an ID
// token from TARN_OIDC_TOKEN_FILE, a fake GitHub Actions token endpoint and a fake GCP
// metadata server (all on 127.0.0.1).
#include <fstream>
#include <thread>
#include <tuple>

#include "auth/oidc_test_util.h"
#include "client/id_token_source.h"
#include "client/remote_client.h"
#include "common/test_util.h"
#include "server/test_util.h"
#include "tarn/client.h"

namespace tarn::server::testing {
namespace {

using auth::testing::B64;
using auth::testing::NowSeconds;
using auth::testing::TestIssuer;

constexpr char kAudience[] = "tarn-test";
constexpr char kSubject[] = "repo:acme/etl:ref:refs/heads/main";
constexpr char kExchangeGrant[] = "urn:ietf:params:oauth:grant-type:token-exchange";

std::string FormEncode(const std::string& s) { return client::PercentEncode(s); }

// Sets an environment variable for the life of the object (unset after).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

std::string Url(int port) { return "http://127.0.0.1:" + std::to_string(port); }

class FederationHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : {"TARN_OIDC_TOKEN_FILE", "ACTIONS_ID_TOKEN_REQUEST_URL",
                          "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GCE_METADATA_HOST"}) {
      ::unsetenv(v);
    }
    dir_ = TestDir("federation");
    auto c = Catalog::OpenEmbedded(dir_.string());
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cat_ = std::move(*c);
    SERVER_ASSERT_OK(cat_->CreateWorkspace("acme"));
    issuer_.AddKey("rsa1", "RS256");
    issuer_.AddKey("ec1", "ES256");
    StartServer(kAudience);
    owner_ = TokenFor(*cat_, port(), "*", Role::kOwner, "*", &owner_id_);
    AccessTokenSpec spec;
    spec.workspace = "acme";
    spec.role = Role::kWriter;
    auto ci = cat_->CreateAccessToken(spec, "test");
    ASSERT_TRUE(ci.ok()) << ci.status().ToString();
    ci_ = ci->info.client_id;
  }
  void TearDown() override {
    server_.reset();
    cat_.reset();
    std::filesystem::remove_all(dir_);
  }

  void StartServer(const std::string& audience, int64_t token_ttl_s = 900) {
    server_.reset();
    ServerOptions o;
    o.port = 0;
    o.oidc_audience = audience;
    o.token_ttl_s = token_ttl_s;
    o.log_sink = logs_.Sink();
    auto s = Server::Make(cat_, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    SERVER_ASSERT_OK(server_->Start());
  }
  int port() const { return server_->port(); }

  Reply CreateRule(const std::string& subject, const std::string& client,
                   const std::string& token) {
    return SendJson(port(), "POST", "/v1/federation/rules",
                    Json{{"issuer", issuer_.issuer()}, {"subject", subject}, {"client_id", client}},
                    token);
  }

  Reply ExchangeIdToken(const std::string& id_token,
                        const std::string& type = "urn:ietf:params:oauth:token-type:id_token") {
    return Send(port(), {"POST",
                         "/v1/token",
                         "grant_type=" + FormEncode(kExchangeGrant) + "&subject_token_type=" +
                             FormEncode(type) + "&subject_token=" + FormEncode(id_token),
                         "application/x-www-form-urlencoded",
                         "",
                         {}});
  }

  std::filesystem::path dir_;
  std::shared_ptr<Catalog> cat_;
  std::unique_ptr<Server> server_;
  LogCapture logs_;
  TestIssuer issuer_;
  std::string owner_, owner_id_, ci_;
};

TEST_F(FederationHttp, TheMappedSubjectGetsTheClientsBearer) {
  Reply rule = CreateRule(kSubject, ci_, owner_);
  ASSERT_EQ(rule.status, 200) << rule;
  EXPECT_EQ(rule.json["workspace"], "acme");
  for (const char* kid : {"rsa1", "ec1"}) {
    for (const char* type :
         {"urn:ietf:params:oauth:token-type:id_token", "urn:ietf:params:oauth:token-type:jwt"}) {
      Reply r = ExchangeIdToken(issuer_.Sign(issuer_.Claims(kSubject, kAudience), kid), type);
      ASSERT_EQ(r.status, 200) << kid << " " << r;
      EXPECT_EQ(r.json["token_type"], "Bearer");
      EXPECT_EQ(r.json["issued_token_type"], "urn:ietf:params:oauth:token-type:access_token");
      EXPECT_EQ(r.json["expires_in"], 900);
      Reply me = Get(port(), "/v1/whoami", r.json["access_token"].get<std::string>());
      ASSERT_EQ(me.status, 200) << me;
      EXPECT_EQ(me.json["client_id"], ci_);
      EXPECT_EQ(me.json["workspace"], "acme");
      EXPECT_EQ(me.json["role"], "writer");
    }
  }
  EXPECT_EQ(issuer_.jwks_hits(), 1);  // cached across the four exchanges
  // The request log names the client, as for the secret exchange.
  bool logged = false;
  for (const Json& l : logs_.Parsed()) {
    if (l.value("route", "") == "/v1/token" && l.value("actor", "") == ci_) logged = true;
  }
  EXPECT_TRUE(logged);
}

TEST_F(FederationHttp, EveryRefusalIs401WithAReason) {
  ASSERT_EQ(CreateRule(kSubject, ci_, owner_).status, 200);
  int64_t now = NowSeconds();
  Json good = issuer_.Claims(kSubject, kAudience);
  auto with = [&](const char* k, Json v) {
    Json c = good;
    c[k] = std::move(v);
    return c;
  };
  std::string signed_good = issuer_.Sign(good, "rsa1");
  size_t d1 = signed_good.find('.'), d2 = signed_good.rfind('.');
  Json header_none = {{"alg", "none"}, {"kid", "rsa1"}};
  Json header_hs = {{"alg", "HS256"}, {"kid", "rsa1"}, {"typ", "JWT"}};
  std::string hs_input = B64(header_hs.dump()) + "." + B64(good.dump());
  TestIssuer stranger;
  stranger.AddKey("rsa1", "RS256");
  struct Case {
    const char* name;
    std::string token;
    const char* reason;
  };
  std::vector<Case> cases = {
      {"wrong audience", issuer_.Sign(with("aud", "another-service"), "rsa1"), "wrong_audience"},
      {"wrong issuer", stranger.Sign(stranger.Claims(kSubject, kAudience), "rsa1"), "wrong_issuer"},
      {"expired", issuer_.Sign(with("exp", now - 3600), "ec1"), "expired"},
      {"not yet valid", issuer_.Sign(with("nbf", now + 3600), "ec1"), "not_yet_valid"},
      {"unknown kid", issuer_.Sign(good, "rsa1", {{"kid", "rotated-away"}}), "unknown_key"},
      {"alg none", B64(header_none.dump()) + "." + B64(good.dump()) + ".", "bad_algorithm"},
      {"HS256 keyed with the public key",
       hs_input + "." + B64(TestIssuer::HmacSha256(issuer_.PublicPem("rsa1"), hs_input)),
       "bad_algorithm"},
      {"tampered payload",
       signed_good.substr(0, d1 + 1) + B64(with("sub", "repo:acme/etl:ref:refs/heads/x").dump()) +
           signed_good.substr(d2),
       "bad_signature"},
      {"no mapping", issuer_.Sign(with("sub", "repo:acme/other:ref:refs/heads/main"), "rsa1"),
       "no_mapping"},
      {"garbage", "not-a-jwt", "malformed"},
  };
  for (const Case& c : cases) {
    Reply r = ExchangeIdToken(c.token);
    EXPECT_EQ(r.status, 401) << c.name << ": " << r;
    EXPECT_EQ(r.Code(), "invalid_token") << c.name << ": " << r;
    EXPECT_EQ(r.ErrorField("reason"), c.reason) << c.name << ": " << r;
  }
  EXPECT_EQ(stranger.discovery_hits(), 0);  // an issuer no rule names is never contacted

  // A mapping to a revoked client signs nobody in.
  SERVER_ASSERT_OK(cat_->RevokeAccessToken(ci_));
  Reply revoked = ExchangeIdToken(signed_good);
  EXPECT_EQ(revoked.status, 401) << revoked;
  EXPECT_EQ(revoked.ErrorField("reason"), "client_revoked") << revoked;
}

TEST_F(FederationHttp, TheGrantNeedsAnAudienceAndAnIdTokenType) {
  ASSERT_EQ(CreateRule(kSubject, ci_, owner_).status, 200);
  std::string token = issuer_.Sign(issuer_.Claims(kSubject, kAudience), "rsa1");
  Reply bad_type = ExchangeIdToken(token, "urn:ietf:params:oauth:token-type:access_token");
  EXPECT_EQ(bad_type.status, 422) << bad_type;
  EXPECT_EQ(bad_type.ErrorField("field"), "subject_token_type");
  Reply none = ExchangeIdToken("");
  EXPECT_EQ(none.status, 422) << none;
  EXPECT_EQ(none.Code(), "missing_field");
  StartServer("");  // no --oidc-audience: federation is off
  Reply off = ExchangeIdToken(token);
  EXPECT_EQ(off.status, 422) << off;
  EXPECT_EQ(off.Code(), "unsupported_grant_type");
  EXPECT_EQ(issuer_.discovery_hits(), 0);
}

TEST_F(FederationHttp, RulesNeedAnOwnerOfEveryWorkspaceAndAreAudited) {
  std::string scoped_owner = TokenFor(*cat_, port(), "acme", Role::kOwner);
  Reply denied = CreateRule(kSubject, ci_, scoped_owner);
  EXPECT_EQ(denied.status, 403) << denied;
  EXPECT_EQ(Get(port(), "/v1/federation/rules", scoped_owner).status, 403);
  Reply bad = SendJson(
      port(), "POST", "/v1/federation/rules",
      Json{{"issuer", "http://issuer.example"}, {"subject", "s"}, {"client_id", ci_}}, owner_);
  EXPECT_EQ(bad.status, 422) << bad;
  EXPECT_EQ(bad.Code(), "invalid_issuer");
  Reply created = CreateRule(kSubject, ci_, owner_);
  ASSERT_EQ(created.status, 200) << created;
  EXPECT_EQ(created.json["created_by"], owner_id_);
  EXPECT_EQ(CreateRule(kSubject, ci_, owner_).status, 409);
  Reply list = Get(port(), "/v1/federation/rules", owner_);
  ASSERT_EQ(list.status, 200) << list;
  ASSERT_EQ(list.json["rules"].size(), 1u);
  EXPECT_EQ(list.json["rules"][0]["subject"], kSubject);
  std::string id = created.json["id"].get<std::string>();
  EXPECT_EQ(Send(port(), {"DELETE", "/v1/federation/rules/" + id, "", "", scoped_owner, {}}).status,
            403);
  EXPECT_EQ(Send(port(), {"DELETE", "/v1/federation/rules/" + id, "", "", owner_, {}}).status, 200);
  Reply again = Send(port(), {"DELETE", "/v1/federation/rules/" + id, "", "", owner_, {}});
  EXPECT_EQ(again.status, 404);
  EXPECT_EQ(again.Code(), "federation_rule_not_found");

  AuditQuery q;
  auto rows = cat_->ListAudit(q);
  ASSERT_TRUE(rows.ok());
  std::vector<std::string> seen;
  for (const auto& r : *rows) {
    if (r.action.rfind("federation.", 0) == 0) seen.push_back(r.action + ":" + r.outcome);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "federation.create:permission_denied", "federation.create:invalid_issuer",
                      "federation.create:ok", "federation.create:federation_rule_exists",
                      "federation.delete:permission_denied", "federation.delete:ok",
                      "federation.delete:federation_rule_not_found"}));
}

TEST_F(FederationHttp, TheSdkManagesRulesAlikeRemoteAndEmbedded) {
  ClientOptions o;
  o.token = owner_;
  auto remote = Client::Connect(Url(port()), o);
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  Client& embedded = *cat_;
  auto a = (*remote)->CreateFederationRule({issuer_.issuer(), kSubject, ci_, "from remote"});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->created_by, owner_id_);
  auto b = embedded.CreateFederationRule(
      {issuer_.issuer(), "repo:acme/x:ref:refs/heads/main", ci_, "from embedded"});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  auto remote_list = (*remote)->ListFederationRules();
  auto embedded_list = embedded.ListFederationRules();
  ASSERT_TRUE(remote_list.ok() && embedded_list.ok());
  ASSERT_EQ(remote_list->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const FederationRule& r = (*remote_list)[i];
    const FederationRule& e = (*embedded_list)[i];
    EXPECT_EQ(std::tie(r.id, r.issuer, r.subject, r.client_id, r.workspace, r.description,
                       r.created_by, r.created_at_us),
              std::tie(e.id, e.issuer, e.subject, e.client_id, e.workspace, e.description,
                       e.created_by, e.created_at_us));
  }
  // The same refusals both ways.
  FederationRuleSpec dup{issuer_.issuer(), kSubject, ci_, ""};
  Status rd = (*remote)->CreateFederationRule(dup).status();
  Status ed = embedded.CreateFederationRule(dup).status();
  EXPECT_EQ(rd.kind(), ed.kind());
  EXPECT_EQ(FieldOf(rd, "code"), "federation_rule_exists");
  EXPECT_EQ(FieldOf(ed, "code"), "federation_rule_exists");
  SERVER_ASSERT_OK((*remote)->DeleteFederationRule(b->id));
  Status rn = (*remote)->DeleteFederationRule(b->id);
  Status en = embedded.DeleteFederationRule(b->id);
  EXPECT_EQ(rn.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(en.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(FieldOf(rn, "code"), FieldOf(en, "code"));
  EXPECT_EQ(embedded.ListFederationRules()->size(), 1u);
}

// A fake endpoint on loopback: answers `body` to GET `path` when `header` has `value`, and
// records the query parameters it saw.
class FakeEndpoint {
 public:
  FakeEndpoint(std::string path, std::string header, std::string value)
      : path_(std::move(path)), header_(std::move(header)), value_(std::move(value)) {
    server_.set_keep_alive_max_count(1);
    server_.Get(path_, [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      ++hits_;
      audience_ = req.get_param_value("audience");
      if (req.get_header_value(header_) != value_) {
        res.status = 403;
        return;
      }
      res.set_content(body_, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    EXPECT_TRUE(testing_util::Eventually([&] { return server_.is_running(); }));
  }
  ~FakeEndpoint() {
    server_.stop();
    thread_.join();
  }
  void set_body(std::string b) {
    std::lock_guard<std::mutex> lock(mu_);
    body_ = std::move(b);
  }
  std::string audience() {
    std::lock_guard<std::mutex> lock(mu_);
    return audience_;
  }
  int hits() {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
  }
  std::string origin() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string path_, header_, value_;
  std::mutex mu_;
  std::string body_;
  std::string audience_;
  int hits_ = 0;
};

TEST_F(FederationHttp, TheSdkSignsInWithATokenFileReadAtEachExchange) {
  ASSERT_EQ(CreateRule(kSubject, ci_, owner_).status, 200);
  AccessTokenSpec spec;
  spec.workspace = "acme";
  spec.role = Role::kReader;
  auto reader = cat_->CreateAccessToken(spec, "test");
  ASSERT_TRUE(reader.ok());
  ASSERT_EQ(CreateRule("repo:acme/etl:ref:refs/heads/dev", reader->info.client_id, owner_).status,
            200);
  StartServer(kAudience, /*token_ttl_s=*/1);  // bearers refresh after 0.8 s
  std::string path = (dir_ / "id-token").string();
  auto write = [&](const std::string& subject) {
    std::ofstream(path, std::ios::trunc)
        << issuer_.Sign(issuer_.Claims(subject, kAudience), "ec1") << "\n";
  };
  write(kSubject);
  ScopedEnv file("TARN_OIDC_TOKEN_FILE", path);
  ClientOptions o;  // no id, secret or token
  auto clock = std::make_shared<ManualClock>();
  auto c = client::RemoteClient::Connect(Url(port()), o, clock);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->actor(), ci_);
  // The file is rotated (here to another subject): the next exchange, once the client's clock
  // passes the bearer's refresh point, reads it again.
  write("repo:acme/etl:ref:refs/heads/dev");
  clock->Advance(std::chrono::milliseconds(1100));
  auto me = (*c)->GetWhoAmI();
  ASSERT_TRUE(me.ok()) << me.status().ToString();
  EXPECT_EQ(me->client_id, reader->info.client_id);
  // A file that holds no token: a clear error, not a hang.
  std::ofstream(path, std::ios::trunc) << "not a token\n";
  auto bad = client::RemoteClient::Connect(Url(port()), o);
  EXPECT_EQ(bad.status().kind(), ErrorKind::kUnauthenticated) << bad.status().ToString();
  EXPECT_EQ(FieldOf(bad.status(), "code"), "id_token_unavailable");
  // Explicit credentials win over the environment.
  ClientOptions with_token;
  with_token.token = owner_;
  auto owner = client::RemoteClient::Connect(Url(port()), with_token);
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  EXPECT_EQ((*owner)->actor(), owner_id_);
}

TEST_F(FederationHttp, TheSdkSignsInFromGitHubActions) {
  ASSERT_EQ(CreateRule(kSubject, ci_, owner_).status, 200);
  FakeEndpoint actions("/token", "Authorization", "bearer request-token-1");
  actions.set_body(
      Json{{"count", 1}, {"value", issuer_.Sign(issuer_.Claims(kSubject, kAudience), "rsa1")}}
          .dump());
  ScopedEnv url("ACTIONS_ID_TOKEN_REQUEST_URL",
                "http://" + actions.origin() + "/token?api-version=2.0");
  ScopedEnv token("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "request-token-1");
  ClientOptions o;
  o.oidc_audience = kAudience;
  auto c = Client::Connect(Url(port()), o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->actor(), ci_);
  EXPECT_EQ(actions.audience(), kAudience);
  EXPECT_EQ(actions.hits(), 1);
  // The audience asked for defaults to "tarn".
  ClientOptions plain;
  (void)Client::Connect(Url(port()), plain);
  EXPECT_EQ(actions.audience(), "tarn");
  // The request token is checked by the endpoint: a wrong one is refused, clearly.
  ScopedEnv bad_token("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "wrong");
  auto refused = Client::Connect(Url(port()), o);
  EXPECT_EQ(FieldOf(refused.status(), "code"), "id_token_unavailable")
      << refused.status().ToString();
}

TEST_F(FederationHttp, TheSdkSignsInFromAGcpMetadataServer) {
  // Google's subject is the service account's numeric id; here the fake issuer stands in.
  ASSERT_EQ(CreateRule("104242424242424242424", ci_, owner_).status, 200);
  FakeEndpoint metadata("/computeMetadata/v1/instance/service-accounts/default/identity",
                        "Metadata-Flavor", "Google");
  metadata.set_body(issuer_.Sign(issuer_.Claims("104242424242424242424", kAudience), "rsa1"));
  ScopedEnv host("GCE_METADATA_HOST", metadata.origin());
  ClientOptions o;
  o.oidc_audience = kAudience;
  auto c = Client::Connect(Url(port()), o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->actor(), ci_);
  EXPECT_EQ(metadata.audience(), kAudience);
}

TEST(IdTokenSources, AvailabilityNeverTouchesTheNetwork) {
  for (const char* v : {"TARN_OIDC_TOKEN_FILE", "ACTIONS_ID_TOKEN_REQUEST_URL",
                        "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GCE_METADATA_HOST"}) {
    ::unsetenv(v);
  }
  auto t0 = std::chrono::steady_clock::now();
  auto none = client::IdTokenSourceFromEnvironment();
  std::ifstream dmi("/sys/class/dmi/id/product_name");
  std::string product;
  std::getline(dmi, product);
  if (product.rfind("Google", 0) != 0) {
    EXPECT_EQ(none, nullptr) << none->name();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100));
  // An unroutable metadata host: not available off GCP, whatever it is.
  EXPECT_FALSE(client::GcpMetadataSource("10.255.255.1", false)->is_available());
  EXPECT_FALSE(client::GitHubActionsSource("http://127.0.0.1:1/x", "")->is_available());
  EXPECT_FALSE(client::GitHubActionsSource("", "t")->is_available());
  EXPECT_TRUE(client::GitHubActionsSource("http://127.0.0.1:1/x", "t")->is_available());
  {
    ScopedEnv url("ACTIONS_ID_TOKEN_REQUEST_URL", "http://127.0.0.1:1/x");
    EXPECT_EQ(client::IdTokenSourceFromEnvironment(), nullptr);  // the token is missing
    ScopedEnv token("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "t");
    auto gh = client::IdTokenSourceFromEnvironment();
    ASSERT_NE(gh, nullptr);
    EXPECT_EQ(gh->name(), "github-actions");
    ScopedEnv file("TARN_OIDC_TOKEN_FILE", "/nonexistent");
    auto f = client::IdTokenSourceFromEnvironment();
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->name(), "token-file");  // the file comes first
    EXPECT_EQ(f->Fetch("tarn").status().kind(), ErrorKind::kNotFound);
  }
  ScopedEnv host("GCE_METADATA_HOST", "127.0.0.1:1");
  auto gcp = client::IdTokenSourceFromEnvironment();
  ASSERT_NE(gcp, nullptr);
  EXPECT_EQ(gcp->name(), "gcp-metadata");
}

}  // namespace
}  // namespace tarn::server::testing

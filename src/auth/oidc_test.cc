// Federated sign-in: VerifyIdToken's refusals (pure), JWK parsing, the JWKS cache against a
// local issuer on loopback (hits counted), and TokenAuthority::ExchangeIdToken with federation
// rules on SQLite and PostgreSQL.
#include "auth/oidc.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "auth/auth.h"
#include "auth/oidc_test_util.h"
#include "catalog/catalog.h"
#include "catalog/test_fixture.h"

namespace tarn::auth {
namespace {

using testing::B64;
using testing::NowSeconds;
using testing::TestIssuer;
using json = nlohmann::json;

constexpr char kAudience[] = "tarn-test";

std::string Reason(const Status& st) { return FieldOf(st, "reason"); }

json With(json j, const std::string& key, json value) {
  j[key] = std::move(value);
  return j;
}

// VerifyIdToken against the issuer's published keys, without HTTP.
class VerifySuite : public ::testing::Test {
 protected:
  void SetUp() override {
    issuer_.AddKey("rsa1", "RS256");
    issuer_.AddKey("ec1", "ES256");
  }

  Result<IdToken> Verify(const std::string& token, std::string audience = kAudience) {
    IdTokenCheck check;
    check.audience = std::move(audience);
    check.now_s = NowSeconds();
    auto trusted = [&](std::string_view iss) -> Status {
      if (iss == issuer_.issuer()) return Status::OK();
      return Status::Unauthenticated("untrusted")
          .WithField("code", "invalid_token")
          .WithField("reason", "wrong_issuer");
    };
    auto keys = [&](std::string_view,
                    std::string_view kid) -> Result<std::shared_ptr<const PublicKey>> {
      ++lookups_;
      if (kid != "rsa1" && kid != "ec1") return std::shared_ptr<const PublicKey>();
      return PublicKey::FromJwk(issuer_.Jwk(std::string(kid)).dump());
    };
    return VerifyIdToken(token, check, trusted, keys);
  }

  void ExpectRefused(const std::string& token, const std::string& reason,
                     std::string audience = kAudience) {
    auto r = Verify(token, std::move(audience));
    ASSERT_FALSE(r.ok()) << "accepted a token that should be " << reason;
    EXPECT_EQ(r.status().kind(), ErrorKind::kUnauthenticated) << r.status().ToString();
    EXPECT_EQ(FieldOf(r.status(), "code"), "invalid_token");
    EXPECT_EQ(Reason(r.status()), reason) << r.status().ToString();
  }

  json Claims() { return issuer_.Claims("repo:acme/etl:ref:refs/heads/main", kAudience); }

  TestIssuer issuer_;
  int lookups_ = 0;
};

TEST_F(VerifySuite, AcceptsRs256AndEs256) {
  for (const char* kid : {"rsa1", "ec1"}) {
    auto r = Verify(issuer_.Sign(Claims(), kid));
    ASSERT_TRUE(r.ok()) << kid << ": " << r.status().ToString();
    EXPECT_EQ(r->subject, "repo:acme/etl:ref:refs/heads/main");
    EXPECT_EQ(r->issuer, issuer_.issuer());
    EXPECT_EQ(r->kid, kid);
  }
}

TEST_F(VerifySuite, AudienceMayBeAnArray) {
  json c = Claims();
  c["aud"] = json::array({"other", kAudience});
  EXPECT_TRUE(Verify(issuer_.Sign(c, "rsa1")).ok());
  c["aud"] = json::array({"other", "tarn-test2"});
  ExpectRefused(issuer_.Sign(c, "rsa1"), "wrong_audience");
  c["aud"] = "tarn-tes";
  ExpectRefused(issuer_.Sign(c, "rsa1"), "wrong_audience");
  c["aud"] = 5;
  ExpectRefused(issuer_.Sign(c, "rsa1"), "bad_claims");
  c.erase("aud");
  ExpectRefused(issuer_.Sign(c, "rsa1"), "bad_claims");
  // A server without an audience accepts nothing.
  ExpectRefused(issuer_.Sign(Claims(), "rsa1"), "wrong_audience", "");
}

TEST_F(VerifySuite, RefusesOtherIssuersBeforeLookingUpKeys) {
  json c = Claims();
  c["iss"] = issuer_.issuer() + "/";  // exact string match: no normalisation
  ExpectRefused(issuer_.Sign(c, "rsa1"), "wrong_issuer");
  c["iss"] = "https://evil.example";
  ExpectRefused(issuer_.Sign(c, "rsa1"), "wrong_issuer");
  EXPECT_EQ(lookups_, 0);
}

TEST_F(VerifySuite, RefusesExpiredAndNotYetValidBeyondTheLeeway) {
  int64_t now = NowSeconds();
  json c = Claims();
  c["iat"] = now - 1000;
  c["nbf"] = now - 1000;
  c["exp"] = now - 61;  // leeway 60 s
  ExpectRefused(issuer_.Sign(c, "rsa1"), "expired");
  c["exp"] = now - 30;  // inside the leeway
  EXPECT_TRUE(Verify(issuer_.Sign(c, "rsa1")).ok());
  c = Claims();
  c["nbf"] = now + 120;
  ExpectRefused(issuer_.Sign(c, "ec1"), "not_yet_valid");
  c = Claims();
  c["iat"] = now + 120;
  ExpectRefused(issuer_.Sign(c, "ec1"), "not_yet_valid");
  c = Claims();
  c["nbf"] = now + 30;
  EXPECT_TRUE(Verify(issuer_.Sign(c, "ec1")).ok());
  c = Claims();
  c.erase("exp");
  ExpectRefused(issuer_.Sign(c, "rsa1"), "bad_claims");
  c = Claims();
  c["exp"] = 1.5e9;  // not an integer
  ExpectRefused(issuer_.Sign(c, "rsa1"), "bad_claims");
}

TEST_F(VerifySuite, RefusesUnknownOrMissingKeyIds) {
  ExpectRefused(issuer_.Sign(Claims(), "rsa1", {{"kid", "rsa2"}}), "unknown_key");
  issuer_.AddKey("other", "RS256");
  std::string t = issuer_.Sign(Claims(), "other");
  ExpectRefused(t, "unknown_key");  // the lookup does not know "other"
  // No kid at all.
  json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  std::string input = B64(header.dump()) + "." + B64(Claims().dump());
  std::string sig = t.substr(t.rfind('.') + 1);
  ExpectRefused(input + "." + sig, "unknown_key");
}

TEST_F(VerifySuite, RefusesAlgNoneHs256AndOtherAlgorithms) {
  json header = {{"alg", "none"}, {"kid", "rsa1"}, {"typ", "JWT"}};
  std::string input = B64(header.dump()) + "." + B64(Claims().dump());
  ExpectRefused(input + ".", "bad_algorithm");
  // HS256 keyed with the issuer's public key (the classic confusion attack), PEM and JWK.
  for (const std::string& secret : {issuer_.PublicPem("rsa1"), issuer_.Jwk("rsa1").dump()}) {
    json h = {{"alg", "HS256"}, {"kid", "rsa1"}, {"typ", "JWT"}};
    std::string in = B64(h.dump()) + "." + B64(Claims().dump());
    ExpectRefused(in + "." + B64(TestIssuer::HmacSha256(secret, in)), "bad_algorithm");
  }
  for (const char* alg : {"RS384", "PS256", "ES384", "EdDSA", "rs256", ""}) {
    ExpectRefused(issuer_.Sign(Claims(), "rsa1", {{"alg", alg}}), "bad_algorithm");
  }
  // The header's alg must fit the key's type: ES256 claimed for an RSA key and back.
  ExpectRefused(issuer_.Sign(Claims(), "rsa1", {{"alg", "ES256"}}), "bad_algorithm");
  ExpectRefused(issuer_.Sign(Claims(), "ec1", {{"alg", "RS256"}}), "bad_algorithm");
  EXPECT_EQ(lookups_, 2);  // only the last two got as far as a key
}

TEST_F(VerifySuite, RefusesTamperedTokens) {
  for (const char* kid : {"rsa1", "ec1"}) {
    std::string t = issuer_.Sign(Claims(), kid);
    size_t d1 = t.find('.'), d2 = t.rfind('.');
    json c = Claims();
    c["sub"] = "repo:acme/etl:ref:refs/heads/evil";
    ExpectRefused(t.substr(0, d1 + 1) + B64(c.dump()) + t.substr(d2), "bad_signature");
    std::string sig = *internal::Base64UrlDecode(t.substr(d2 + 1));
    sig[sig.size() / 2] ^= 1;
    ExpectRefused(t.substr(0, d2 + 1) + B64(sig), "bad_signature");
    ExpectRefused(t.substr(0, d2 + 1) + B64(sig.substr(1)), "bad_signature");
  }
}

TEST_F(VerifySuite, RefusesMalformedTokens) {
  std::string t = issuer_.Sign(Claims(), "rsa1");
  ExpectRefused("", "malformed");
  ExpectRefused("a.b", "malformed");
  ExpectRefused(t + ".x", "malformed");
  ExpectRefused(t + "=", "malformed");  // padding
  ExpectRefused(std::string(17 << 10, 'a'), "malformed");
  // Repeated keys in the payload or the header, signed properly.
  std::string payload = Claims().dump();
  std::string dup_payload = payload.substr(0, payload.size() - 1) + ",\"sub\":\"other\"}";
  ExpectRefused(issuer_.SignRaw(R"({"alg":"RS256","kid":"rsa1"})", dup_payload, "rsa1"),
                "malformed");
  ExpectRefused(issuer_.SignRaw(R"({"alg":"RS256","kid":"rsa1","alg":"RS256"})", payload, "rsa1"),
                "malformed");
  ExpectRefused(issuer_.SignRaw(R"({"alg":"RS256","kid":"rsa1","crit":["exp"]})", payload, "rsa1"),
                "malformed");
  ExpectRefused(issuer_.SignRaw(R"({"alg":"RS256","kid":"rsa1"})", "[1]", "rsa1"), "malformed");
  // The same token without the repetition is fine.
  EXPECT_TRUE(Verify(issuer_.SignRaw(R"({"alg":"RS256","kid":"rsa1"})", payload, "rsa1")).ok());
}

TEST(JwkSuite, RefusesKeysThatDoNotFit) {
  TestIssuer issuer;
  issuer.AddKey("r", "RS256");
  issuer.AddKey("e", "ES256");
  ASSERT_TRUE(PublicKey::FromJwk(issuer.Jwk("r").dump()).ok());
  ASSERT_TRUE(PublicKey::FromJwk(issuer.Jwk("e").dump()).ok());
  auto refused = [](const json& jwk) { return !PublicKey::FromJwk(jwk.dump()).ok(); };
  json r = issuer.Jwk("r");
  json e = issuer.Jwk("e");
  EXPECT_TRUE(refused(With(r, "alg", "ES256")));
  EXPECT_TRUE(refused(With(r, "use", "enc")));
  EXPECT_TRUE(refused(With(r, "kty", "oct")));
  EXPECT_TRUE(refused(With(r, "n", B64(std::string(128, '\x7f')))));  // 1024 bits
  EXPECT_TRUE(refused(With(r, "n", r["n"].get<std::string>() + "=")));
  EXPECT_TRUE(refused(With(e, "crv", "P-384")));
  EXPECT_TRUE(refused(With(e, "alg", "RS256")));
  EXPECT_TRUE(refused(With(e, "x", B64(std::string(31, '\1')))));
  EXPECT_TRUE(refused(With(e, "y", B64(std::string(32, '\1')))));  // off the curve
  json no_kid = r;
  no_kid.erase("kid");
  EXPECT_TRUE(refused(no_kid));
  // ParseJwks skips what it cannot use and keeps the rest, up to the bound.
  json set = {{"keys", json::array({r, With(e, "crv", "P-521"), e, "junk"})}};
  auto keys = ParseJwks(set.dump());
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ((*keys)[0]->kid(), "r");
  EXPECT_EQ((*keys)[1]->kid(), "e");
  EXPECT_EQ(ParseJwks(set.dump(), 1)->size(), 1u);
  EXPECT_FALSE(ParseJwks(R"({"keys":[],"keys":[]})").ok());
  EXPECT_FALSE(ParseJwks(R"({"key":[]})").ok());
}

TEST(JwksUriSuite, HttpsOrLoopbackForALoopbackIssuer) {
  EXPECT_TRUE(ValidateJwksUri("https://issuer.example", "https://keys.example/jwks").ok());
  EXPECT_TRUE(ValidateJwksUri("http://127.0.0.1:5000", "http://127.0.0.1:5000/jwks").ok());
  EXPECT_FALSE(ValidateJwksUri("https://issuer.example", "http://127.0.0.1:5000/jwks").ok());
  EXPECT_FALSE(ValidateJwksUri("http://127.0.0.1:5000", "http://10.0.0.1/jwks").ok());
  EXPECT_FALSE(ValidateJwksUri("http://127.0.0.1:5000", "http://127.0.0.1.evil.example/").ok());
  EXPECT_FALSE(ValidateJwksUri("https://issuer.example", "file:///etc/passwd").ok());
  EXPECT_TRUE(ValidateFederationIssuer("https://token.actions.githubusercontent.com").ok());
  EXPECT_TRUE(ValidateFederationIssuer("http://127.0.0.1:8080").ok());
  EXPECT_TRUE(ValidateFederationIssuer("http://[::1]:8080/x").ok());
  for (const char* bad :
       {"http://issuer.example", "ftp://x", "https://", "https://a@b", "https://a/?q",
        "https://a/#f", "http://127.0.0.1.evil.example", "http://localhost.evil", "https://a b"}) {
    EXPECT_FALSE(ValidateFederationIssuer(bad).ok()) << bad;
  }
}

// The JWKS cache over libcurl against the local issuer, with a clock the test moves.
class IssuerKeysSuite : public ::testing::Test {
 protected:
  IssuerKeysOptions Options() {
    IssuerKeysOptions o;
    o.ttl_s = 3600;
    o.min_refetch_interval_s = 30;
    o.clock = [this] { return now_.load(); };
    return o;
  }
  std::atomic<int64_t> now_{1'000'000};
};

TEST_F(IssuerKeysSuite, CachesAndRefetchesAnUnknownKidAtMostOncePerInterval) {
  TestIssuer issuer;
  issuer.AddKey("k1", "RS256");
  IssuerKeys keys(Options(), MakeCurlFetcher());
  auto k = keys.Find(issuer.issuer(), "k1");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  ASSERT_NE(*k, nullptr);
  for (int i = 0; i < 20; ++i) ASSERT_NE(*keys.Find(issuer.issuer(), "k1"), nullptr);
  EXPECT_EQ(issuer.discovery_hits(), 1);
  EXPECT_EQ(issuer.jwks_hits(), 1);

  // A flood of unknown kids: one refetch per interval, not one per token.
  now_ += 31;
  for (int i = 0; i < 50; ++i) {
    auto none = keys.Find(issuer.issuer(), "made-up-" + std::to_string(i));
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(*none, nullptr);
  }
  EXPECT_EQ(issuer.jwks_hits(), 2);

  // Rotation at the issuer: the new kid is found once the interval has passed.
  issuer.AddKey("k2", "ES256");
  issuer.Unpublish("k1");
  EXPECT_EQ(*keys.Find(issuer.issuer(), "k2"), nullptr);  // too soon after the last fetch
  EXPECT_EQ(issuer.jwks_hits(), 2);
  now_ += 30;
  auto k2 = keys.Find(issuer.issuer(), "k2");
  ASSERT_TRUE(k2.ok());
  ASSERT_NE(*k2, nullptr);
  EXPECT_EQ((*k2)->alg(), JwsAlg::kES256);
  EXPECT_EQ(issuer.jwks_hits(), 3);
  EXPECT_EQ(*keys.Find(issuer.issuer(), "k1"), nullptr);  // no longer published

  // Past the TTL the keys are fetched again even for a known kid.
  now_ += 3600;
  ASSERT_NE(*keys.Find(issuer.issuer(), "k2"), nullptr);
  EXPECT_EQ(issuer.jwks_hits(), 4);
  EXPECT_EQ(issuer.discovery_hits(), 4);
}

TEST_F(IssuerKeysSuite, ConcurrentCallersShareOneFetch) {
  TestIssuer issuer;
  issuer.AddKey("k1", "RS256");
  IssuerKeys keys(Options(), MakeCurlFetcher());
  std::vector<std::thread> threads;
  std::atomic<int> found{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto k = keys.Find(issuer.issuer(), "k1");
      if (k.ok() && *k) ++found;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(found.load(), 8);
  EXPECT_EQ(issuer.jwks_hits(), 1);
}

TEST_F(IssuerKeysSuite, IsBoundedInIssuers) {
  IssuerKeysOptions o = Options();
  o.max_issuers = 2;
  IssuerKeys keys(o, MakeCurlFetcher());
  TestIssuer a, b, c;
  for (TestIssuer* i : {&a, &b, &c}) {
    i->AddKey("k", "ES256");
    ASSERT_NE(*keys.Find(i->issuer(), "k"), nullptr);
    EXPECT_LE(keys.cached_issuers(), 2u);
  }
  // `a` was the least recently used: forgotten, so fetched again.
  ASSERT_NE(*keys.Find(a.issuer(), "k"), nullptr);
  EXPECT_EQ(a.jwks_hits(), 2);
  EXPECT_EQ(c.jwks_hits(), 1);
  EXPECT_EQ(keys.cached_issuers(), 2u);
}

TEST_F(IssuerKeysSuite, RefusesADiscoveryDocumentOfAnotherIssuer) {
  TestIssuer issuer;
  issuer.AddKey("k", "RS256");
  issuer.set_issuer_name("https://accounts.google.com");
  IssuerKeys keys(Options(), MakeCurlFetcher());
  auto k = keys.Find(issuer.issuer(), "k");
  EXPECT_EQ(k.status().kind(), ErrorKind::kUnavailable) << k.status().ToString();
  EXPECT_EQ(FieldOf(k.status(), "code"), "issuer_unavailable");
  EXPECT_EQ(issuer.jwks_hits(), 0);
  issuer.set_issuer_name(issuer.issuer());
  issuer.set_discovery_override(
      json{{"issuer", issuer.issuer()}, {"jwks_uri", "http://10.0.0.1/jwks"}}.dump());
  now_ += 30;
  EXPECT_FALSE(keys.Find(issuer.issuer(), "k").ok());
  issuer.set_discovery_override(std::string(300 << 10, ' ') + "{}");  // over the size cap
  now_ += 30;
  EXPECT_FALSE(keys.Find(issuer.issuer(), "k").ok());
  EXPECT_EQ(issuer.jwks_hits(), 0);
}

TEST_F(IssuerKeysSuite, ADownIssuerIsNotHammeredAndCachedKeysServe) {
  IssuerKeys keys(Options(), MakeCurlFetcher(500, 1000));
  std::string url;
  {
    TestIssuer issuer;
    issuer.AddKey("k", "RS256");
    url = issuer.issuer();
    ASSERT_NE(*keys.Find(url, "k"), nullptr);
  }
  // The issuer is gone; past the TTL its cached keys still verify.
  now_ += 4000;
  auto k = keys.Find(url, "k");
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_NE(*k, nullptr);
  // An issuer that never answered: unavailable, and not asked again within the interval.
  IssuerKeys fresh(Options(), MakeCurlFetcher(500, 1000));
  auto first = fresh.Find(url, "k");
  EXPECT_EQ(first.status().kind(), ErrorKind::kUnavailable);
  auto t0 = std::chrono::steady_clock::now();
  auto second = fresh.Find(url, "k");
  EXPECT_EQ(second.status().kind(), ErrorKind::kUnavailable);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));
}

TEST_F(IssuerKeysSuite, ASlowIssuerIsCutOffByTheTransferTimeout) {
  TestIssuer issuer;
  issuer.AddKey("k", "RS256");
  issuer.set_delay_ms(1500);
  IssuerKeys keys(Options(), MakeCurlFetcher(500, 800));
  auto t0 = std::chrono::steady_clock::now();
  auto k = keys.Find(issuer.issuer(), "k");
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(k.status().kind(), ErrorKind::kUnavailable) << k.status().ToString();
  EXPECT_LT(took, std::chrono::milliseconds(1400));
  issuer.set_delay_ms(0);
}

// ExchangeIdToken with rules in the catalog.
class FederationSuite : public CatalogBackendTest {
 protected:
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_OK(cat_->CreateWorkspace("acme"));
    issuer_.AddKey("rsa1", "RS256");
    issuer_.AddKey("ec1", "ES256");
    AccessTokenSpec spec;
    spec.workspace = "acme";
    spec.role = Role::kWriter;
    spec.pattern = "etl";
    auto t = cat_->CreateAccessToken(spec);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    client_ = t->info.client_id;
    auto rule = cat_->CreateFederationRule({issuer_.issuer(), kSubject, client_, "ci"});
    ASSERT_TRUE(rule.ok()) << rule.status().ToString();
    AuthorityOptions o;
    o.issuer_keys.min_refetch_interval_s = 1;
    o.clock = test_clock_;
    auto a = TokenAuthority::Open(*cat_, o);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    authority_ = std::move(*a);
  }

  static constexpr char kSubject[] = "repo:acme/etl:ref:refs/heads/main";
  // The authority's clock: real time, moved ahead where a test would otherwise wait.
  std::shared_ptr<ManualClock> test_clock_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kRunning);
  TestIssuer issuer_;
  std::string client_;
  std::unique_ptr<TokenAuthority> authority_;
};

TEST_P(FederationSuite, TheMappedSubjectSignsInAsItsClient) {
  for (const char* kid : {"rsa1", "ec1"}) {
    auto issued = authority_->ExchangeIdToken(
        issuer_.Sign(issuer_.Claims(kSubject, kAudience), kid), kAudience);
    ASSERT_TRUE(issued.ok()) << issued.status().ToString();
    EXPECT_EQ(issued->principal.client_id, client_);
    EXPECT_EQ(issued->principal.workspace, "acme");
    EXPECT_EQ(issued->principal.role, Role::kWriter);
    EXPECT_EQ(issued->principal.pattern, "etl");
    EXPECT_EQ(issued->expires_in_s, 900);
    EXPECT_FALSE(issued->federation_rule.empty());
    // The bearer is the same kind the secret exchange returns: it verifies.
    auto p = authority_->Verify("Bearer " + issued->access_token);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->client_id, client_);
  }
  EXPECT_EQ(issuer_.jwks_hits(), 1);
  auto info = cat_->GetAccessToken(client_);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->last_used_at_us.has_value());
}

TEST_P(FederationSuite, RefusalsCarryAReason) {
  auto reason = [&](const std::string& token, std::string audience = kAudience) {
    auto r = authority_->ExchangeIdToken(token, audience);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return std::string("accepted");
    EXPECT_EQ(r.status().kind(), ErrorKind::kUnauthenticated) << r.status().ToString();
    return Reason(r.status());
  };
  json claims = issuer_.Claims(kSubject, kAudience);
  EXPECT_EQ(
      reason(issuer_.Sign(issuer_.Claims("repo:acme/etl:ref:refs/heads/dev", kAudience), "rsa1")),
      "no_mapping");
  EXPECT_EQ(reason(issuer_.Sign(issuer_.Claims(kSubject, "other"), "rsa1")), "wrong_audience");
  EXPECT_EQ(reason(issuer_.Sign(claims, "rsa1"), "other"), "wrong_audience");
  EXPECT_EQ(reason(issuer_.Sign(claims, "rsa1", {{"kid", "nope"}})), "unknown_key");
  // Another issuer on loopback that no rule names is never contacted.
  TestIssuer stranger;
  stranger.AddKey("rsa1", "RS256");
  EXPECT_EQ(reason(stranger.Sign(stranger.Claims(kSubject, kAudience), "rsa1")), "wrong_issuer");
  EXPECT_EQ(stranger.discovery_hits(), 0);
  // A revoked client's rule signs nobody in.
  ASSERT_OK(cat_->RevokeAccessToken(client_));
  EXPECT_EQ(reason(issuer_.Sign(claims, "ec1")), "client_revoked");
  // Federation off: the grant is not supported at all.
  auto off = authority_->ExchangeIdToken(issuer_.Sign(claims, "ec1"), "");
  EXPECT_EQ(FieldOf(off.status(), "code"), "unsupported_grant_type");
}

TEST_P(FederationSuite, RulesAreValidatedAndUnique) {
  auto create = [&](std::string issuer, std::string subject, std::string client) {
    return cat_->CreateFederationRule({issuer, subject, client, ""}).status();
  };
  EXPECT_EQ(FieldOf(create(issuer_.issuer(), kSubject, client_), "code"), "federation_rule_exists");
  EXPECT_EQ(FieldOf(create("http://issuer.example", "s", client_), "code"), "invalid_issuer");
  EXPECT_EQ(FieldOf(create(issuer_.issuer(), "", client_), "code"), "invalid_subject");
  EXPECT_EQ(
      FieldOf(create("https://accounts.google.com", "ci@acme.iam.gserviceaccount.com", client_),
              "code"),
      "invalid_subject");
  EXPECT_TRUE(create("https://accounts.google.com", "104242424242424242424", client_).ok());
  EXPECT_EQ(FieldOf(create(issuer_.issuer(), "s2", "tarn_nosuchclient"), "code"),
            "token_not_found");
  auto all = cat_->ListFederationRules();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].workspace, "acme");
  EXPECT_EQ((*all)[0].subject, kSubject);
  ASSERT_OK(cat_->DeleteFederationRule((*all)[0].id));
  EXPECT_EQ(FieldOf(cat_->DeleteFederationRule((*all)[0].id), "code"), "federation_rule_not_found");
  // With its rule gone the subject no longer signs in.
  auto r = authority_->ExchangeIdToken(issuer_.Sign(issuer_.Claims(kSubject, kAudience), "rsa1"),
                                       kAudience);
  EXPECT_EQ(Reason(r.status()), "wrong_issuer");
}

TEST_P(FederationSuite, KeyRotationAtTheIssuerIsPickedUp) {
  json claims = issuer_.Claims(kSubject, kAudience);
  ASSERT_TRUE(authority_->ExchangeIdToken(issuer_.Sign(claims, "rsa1"), kAudience).ok());
  issuer_.AddKey("rsa2", "RS256");
  issuer_.Unpublish("rsa1");
  // The refetch interval is 1 s here; until it passes the new kid is unknown.
  test_clock_->Advance(std::chrono::milliseconds(1100));
  auto r = authority_->ExchangeIdToken(issuer_.Sign(claims, "rsa2"), kAudience);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(issuer_.jwks_hits(), 2);
}

INSTANTIATE_TEST_SUITE_P(Backends, FederationSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn::auth

// TokenAuthority on SQLite and PostgreSQL: exchange, verify, revocation, shared signing keys,
// and the bootstrap owner under races.
#include <gtest/gtest.h>
#include <openssl/rand.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "auth/auth.h"
#include "catalog/catalog.h"
#include "catalog/test_fixture.h"
#include "metastore/metastore.h"

namespace tarn::auth {
namespace {

class AuthoritySuite : public CatalogBackendTest {
 protected:
  // Another handle on the same metastore: what a second server would open.
  std::unique_ptr<Catalog> SecondCatalog() {
    Result<std::unique_ptr<Catalog>> c = Status::Internal("unset");
    if (GetParam() == "sqlite") {
      c = Catalog::OpenEmbedded(dir_.string());
    } else {
      std::string b = testing_util::PgBaseUri();
      std::string schema = "c_" + testing_util::TestName();
      c = Catalog::Open(
          b + (b.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema,
          (dir_ / "warehouse").string());
    }
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(*c) : nullptr;
  }

  // Options whose clock is the test's: it moves only when the test advances it.
  AuthorityOptions OnTestClock(AuthorityOptions options = {}) {
    options.clock = test_clock_;
    return options;
  }

  std::unique_ptr<TokenAuthority> OpenAuthority(Catalog& cat, AuthorityOptions options = {}) {
    auto a = TokenAuthority::Open(cat, options);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? std::move(*a) : nullptr;
  }

  NewAccessToken Create(std::string ws, Role role, std::string pattern = "*") {
    AccessTokenSpec spec;
    spec.workspace = std::move(ws);
    spec.role = role;
    spec.pattern = std::move(pattern);
    auto t = cat_->CreateAccessToken(spec);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : NewAccessToken{};
  }

  int64_t KeyCount() {
    int64_t n = -1;
    EXPECT_TRUE(cat_->metastore()
                    .RunInTransaction([&](Transaction& tx) -> Status {
                      auto row = tx.QueryOne("SELECT COUNT(*) FROM signing_keys");
                      if (!row.ok()) return row.status();
                      n = *(*row)->Int64(0);
                      return Status::OK();
                    })
                    .ok());
    return n;
  }

  // A signing key written straight into the metastore, as another server would make it.
  void AddSigningKey(const std::string& kid, const std::string& secret) {
    ASSERT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) {
      return tx
          .Execute("INSERT INTO signing_keys (kid, secret, created_at) VALUES (?, ?, ?)",
                   {kid, SqlValue::Blob(secret), int64_t{1}})
          .status();
    }));
  }

  std::shared_ptr<ManualClock> test_clock_ = std::make_shared<ManualClock>();
};

std::string Code(const Status& st) { return FieldOf(st, "code"); }

TEST_P(AuthoritySuite, ExchangeAndVerify) {
  ASSERT_OK(cat_->CreateWorkspace("acme"));
  NewAccessToken t = Create("acme", Role::kWriter, "sales.*");
  AuthorityOptions options;
  options.token_ttl_s = 120;
  auto authority = OpenAuthority(*cat_, options);
  ASSERT_TRUE(authority);
  auto issued = authority->Exchange(t.info.client_id, t.client_secret);
  ASSERT_TRUE(issued.ok()) << issued.status().ToString();
  EXPECT_EQ(issued->expires_in_s, 120);
  EXPECT_EQ(issued->principal.client_id, t.info.client_id);
  EXPECT_EQ(issued->principal.expires_at_us - issued->principal.issued_at_us, 120'000'000);
  EXPECT_FALSE(issued->principal.token_id.empty());
  for (std::string header :
       {"Bearer " + issued->access_token, "bearer  " + issued->access_token + " ",
        "BEARER " + issued->access_token, "Bearer\t" + issued->access_token}) {
    auto p = authority->Verify(header);
    ASSERT_TRUE(p.ok()) << header << ": " << p.status().ToString();
    EXPECT_EQ(p->client_id, t.info.client_id);
    EXPECT_EQ(p->workspace, "acme");
    EXPECT_EQ(p->role, Role::kWriter);
    EXPECT_EQ(p->pattern, "sales.*");
    EXPECT_EQ(p->token_id, issued->principal.token_id);
  }
  // Two exchanges give different tokens (jti).
  auto again = authority->Exchange(t.info.client_id, t.client_secret);
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->access_token, issued->access_token);

  // Refusals.
  auto wrong = authority->Exchange(t.info.client_id, "x" + t.client_secret);
  EXPECT_EQ(wrong.status().kind(), ErrorKind::kUnauthenticated);
  EXPECT_EQ(Code(wrong.status()), "invalid_client");
  for (const char* empty : {"", "Bearer ", "  ", "Bearer"}) {
    Status st = authority->Verify(empty).status();
    EXPECT_EQ(st.kind(), ErrorKind::kUnauthenticated) << empty;
  }
  EXPECT_EQ(Code(authority->Verify("").status()), "unauthenticated");
  EXPECT_EQ(Code(authority->Verify("Bearer garbage").status()), "invalid_token");
  EXPECT_EQ(Code(authority->Verify("Basic dXNlcjpwYXNz").status()), "invalid_token");
  // Issue 14 defect 8: a valid token without the "Bearer " scheme is refused.
  for (std::string header : {issued->access_token, "Bearer" + issued->access_token,
                             "Token " + issued->access_token, "Bearerx " + issued->access_token}) {
    Status st = authority->Verify(header).status();
    EXPECT_EQ(st.kind(), ErrorKind::kUnauthenticated) << header;
    EXPECT_EQ(FieldOf(st, "reason"), "not_bearer") << header;
  }
  // A token signed by a key this metastore never had.
  Principal p = issued->principal;
  std::string foreign = SignBearer(p, SigningKey{"nope", std::string(32, 'k')});
  EXPECT_EQ(FieldOf(authority->Verify("Bearer " + foreign).status(), "reason"), "unknown_key");
}

TEST_P(AuthoritySuite, RevokedClientsStopWorking) {
  NewAccessToken t = Create("*", Role::kReader);
  AuthorityOptions options;
  options.revocation_refresh_s = 1;
  auto authority = OpenAuthority(*cat_, OnTestClock(options));
  ASSERT_TRUE(authority);
  auto issued = authority->Exchange(t.info.client_id, t.client_secret);
  ASSERT_TRUE(issued.ok()) << issued.status().ToString();
  ASSERT_TRUE(authority->Verify("Bearer " + issued->access_token).ok());
  ASSERT_OK(cat_->RevokeAccessToken(t.info.client_id));
  // New exchanges stop at once; issued tokens stop by the next refresh.
  EXPECT_EQ(Code(authority->Exchange(t.info.client_id, t.client_secret).status()),
            "invalid_client");
  test_clock_->Advance(std::chrono::milliseconds(1100));
  Status st = authority->Verify("Bearer " + issued->access_token).status();
  EXPECT_EQ(st.kind(), ErrorKind::kUnauthenticated);
  EXPECT_EQ(Code(st), "token_revoked");
  // Another authority opened now sees the revocation immediately.
  auto fresh = OpenAuthority(*cat_);
  EXPECT_EQ(Code(fresh->Verify("Bearer " + issued->access_token).status()), "token_revoked");
}

// A job token (issue 17): the committer's rights as they are now, the worker URL as audience,
// the job as a claim; none for an unknown or revoked committer.
TEST_P(AuthoritySuite, JobTokensCarryTheCommittersRightsAudienceAndJob) {
  ASSERT_OK(cat_->CreateWorkspace("shop"));
  NewAccessToken t = Create("shop", Role::kWriter, "sales.orders");
  auto authority = OpenAuthority(*cat_, OnTestClock({}));
  ASSERT_TRUE(authority);
  auto job = authority->IssueJobToken(t.info.client_id, "job_1", "http://w:1/run", 60);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  auto p = authority->Verify("Bearer " + job->access_token);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->client_id, t.info.client_id);
  EXPECT_EQ(p->workspace, "shop");
  EXPECT_EQ(p->role, Role::kWriter);
  EXPECT_EQ(p->pattern, "sales.orders");
  EXPECT_EQ(p->audience, "http://w:1/run");
  EXPECT_EQ(p->job, "job_1");
  EXPECT_EQ(p->expires_at_us - p->issued_at_us, 60'000'000);
  // A token from POST /v1/token has neither claim.
  auto plain = authority->Exchange(t.info.client_id, t.client_secret);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(authority->Verify("Bearer " + plain->access_token)->job, "");
  EXPECT_EQ(authority->IssueJobToken("tarn_nobody", "job_1", "u", 60).status().kind(),
            ErrorKind::kPermissionDenied);
  ASSERT_OK(cat_->RevokeAccessToken(t.info.client_id));
  EXPECT_EQ(authority->IssueJobToken(t.info.client_id, "job_1", "u", 60).status().kind(),
            ErrorKind::kPermissionDenied);
}

// Issue 14 defect 5: only revocation was checked, so a validly signed token whose subject is
// no client of this metastore (a deleted row, a restored backup) was accepted.
TEST_P(AuthoritySuite, TokenOfAnUnknownClientIsRefused) {
  NewAccessToken t = Create("*", Role::kOwner);
  auto authority = OpenAuthority(*cat_);
  ASSERT_TRUE(authority);
  auto issued = authority->Exchange(t.info.client_id, t.client_secret);
  ASSERT_TRUE(issued.ok()) << issued.status().ToString();
  // The metastore's own signing key signs a token for a client that was never created.
  std::string kid, secret;
  ASSERT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
    auto row = tx.QueryOne("SELECT kid, secret FROM signing_keys LIMIT 1");
    if (!row.ok()) return row.status();
    kid = std::string(*(*row)->Text(0));
    secret = std::string(*(*row)->Blob(1));
    return Status::OK();
  }));
  Principal ghost = issued->principal;
  ghost.client_id = "tarn_ghost";
  Status st = authority->Verify("Bearer " + SignBearer(ghost, SigningKey{kid, secret})).status();
  EXPECT_EQ(st.kind(), ErrorKind::kUnauthenticated) << st.ToString();
  EXPECT_EQ(Code(st), "invalid_token");
  EXPECT_EQ(FieldOf(st, "reason"), "unknown_client");
  // A client created after the authority loaded its cache works at once (one point read).
  NewAccessToken later = Create("*", Role::kReader);
  Principal fresh = issued->principal;
  fresh.client_id = later.info.client_id;
  EXPECT_TRUE(authority->Verify("Bearer " + SignBearer(fresh, SigningKey{kid, secret})).ok());
  // A client deleted from the metastore stops working within the refresh interval.
  auto quick = OpenAuthority(*cat_, OnTestClock({.token_ttl_s = 900, .revocation_refresh_s = 1}));
  ASSERT_TRUE(quick);
  ASSERT_TRUE(quick->Verify("Bearer " + issued->access_token).ok());
  ASSERT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) {
    return tx.Execute("DELETE FROM access_tokens WHERE client_id = ?", {t.info.client_id}).status();
  }));
  test_clock_->Advance(std::chrono::milliseconds(1100));
  EXPECT_EQ(FieldOf(quick->Verify("Bearer " + issued->access_token).status(), "reason"),
            "unknown_client");
}

TEST_P(AuthoritySuite, ServersShareKeys) {
  NewAccessToken t = Create("*", Role::kOwner);
  auto other_cat = SecondCatalog();
  ASSERT_TRUE(other_cat);
  auto a = OpenAuthority(*cat_);
  auto b = OpenAuthority(*other_cat);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(KeyCount(), 1);
  auto from_a = a->Exchange(t.info.client_id, t.client_secret);
  auto from_b = b->Exchange(t.info.client_id, t.client_secret);
  ASSERT_TRUE(from_a.ok() && from_b.ok());
  EXPECT_TRUE(b->Verify("Bearer " + from_a->access_token).ok());
  EXPECT_TRUE(a->Verify("Bearer " + from_b->access_token).ok());
}

TEST_P(AuthoritySuite, ConcurrentOpensConvergeOnOneKey) {
  NewAccessToken t = Create("*", Role::kOwner);
  auto other_cat = SecondCatalog();
  ASSERT_TRUE(other_cat);
  constexpr int kThreads = 6;
  std::vector<std::unique_ptr<TokenAuthority>> authorities(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto a = TokenAuthority::Open(i % 2 ? *other_cat : *cat_);
      if (a.ok()) {
        authorities[i] = std::move(*a);
      } else {
        ++failures;
        ADD_FAILURE() << a.status().ToString();
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  EXPECT_EQ(KeyCount(), 1);
  std::vector<std::string> tokens;
  for (auto& a : authorities) {
    auto issued = a->Exchange(t.info.client_id, t.client_secret);
    ASSERT_TRUE(issued.ok()) << issued.status().ToString();
    tokens.push_back(issued->access_token);
  }
  for (auto& a : authorities) {
    for (const std::string& token : tokens) EXPECT_TRUE(a->Verify("Bearer " + token).ok());
  }
}

TEST_P(AuthoritySuite, KeyMadeByAnotherServerIsFound) {
  NewAccessToken t = Create("*", Role::kOwner);
  auto authority = OpenAuthority(*cat_, OnTestClock());
  ASSERT_TRUE(authority);
  Principal p;
  p.client_id = t.info.client_id;
  p.workspace = "*";
  p.role = Role::kOwner;
  p.pattern = "*";
  p.issued_at_us = test_clock_->NowSeconds() * 1'000'000;
  p.expires_at_us = p.issued_at_us + 600'000'000;
  p.token_id = "j";
  SigningKey k1{"later1", std::string(32, '\x11')};
  SigningKey k2{"later2", std::string(32, '\x22')};
  test_clock_->Advance(std::chrono::milliseconds(1050));
  AddSigningKey(k1.kid, k1.secret);
  // Unknown kid: the keys are re-read (the last read is over a second old) and it is found.
  EXPECT_TRUE(authority->Verify("Bearer " + SignBearer(p, k1)).ok());
  // Right after that re-read another new key is not looked up again...
  AddSigningKey(k2.kid, k2.secret);
  EXPECT_EQ(FieldOf(authority->Verify("Bearer " + SignBearer(p, k2)).status(), "reason"),
            "unknown_key");
  // ...until a second has passed.
  test_clock_->Advance(std::chrono::milliseconds(1050));
  EXPECT_TRUE(authority->Verify("Bearer " + SignBearer(p, k2)).ok());
  // A retired key still verifies within the token lifetime; one retired long ago does not.
  ASSERT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) {
    return tx.Execute("UPDATE signing_keys SET retired_at = 1 WHERE kid = ?", {k1.kid}).status();
  }));
  auto reopened = OpenAuthority(*cat_);
  EXPECT_EQ(FieldOf(reopened->Verify("Bearer " + SignBearer(p, k1)).status(), "reason"),
            "unknown_key");
  EXPECT_TRUE(reopened->Verify("Bearer " + SignBearer(p, k2)).ok());
}

// A token verified once is kept (the signature and claims are not checked again), but every
// use checks again what can change: its lifetime, its key, and revocation (above).
TEST_P(AuthoritySuite, VerifiedTokensAreCheckedAgainOnEveryUse) {
  NewAccessToken t = Create("*", Role::kWriter);
  AuthorityOptions options;
  options.token_ttl_s = 120;
  auto authority = OpenAuthority(*cat_, OnTestClock(options));
  ASSERT_TRUE(authority);
  auto issued = authority->Exchange(t.info.client_id, t.client_secret);
  ASSERT_TRUE(issued.ok()) << issued.status().ToString();
  const std::string bearer = "Bearer " + issued->access_token;
  for (int i = 0; i < 3; ++i) {
    auto p = authority->Verify(bearer);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->client_id, t.info.client_id);
    EXPECT_EQ(p->role, Role::kWriter);
    EXPECT_EQ(p->token_id, issued->principal.token_id);
  }
  // The same token with its last byte changed, or cut short, is not the kept one.
  std::string tampered = issued->access_token;
  tampered.back() = tampered.back() == 'A' ? 'B' : 'A';
  EXPECT_EQ(Code(authority->Verify("Bearer " + tampered).status()), "invalid_token");
  EXPECT_EQ(Code(authority->Verify(bearer.substr(0, bearer.size() - 1)).status()), "invalid_token");
  // It expires while kept.
  test_clock_->Advance(std::chrono::seconds(119));
  EXPECT_TRUE(authority->Verify(bearer).ok());
  test_clock_->Advance(std::chrono::seconds(2));
  EXPECT_EQ(FieldOf(authority->Verify(bearer).status(), "reason"), "expired");

  // A kept token whose key is no longer loaded is refused: a key retired long ago is dropped
  // when the keys are read again (here, for a token of a key made by another server).
  Principal p = issued->principal;
  p.issued_at_us = test_clock_->NowSeconds() * 1'000'000;
  p.expires_at_us = p.issued_at_us + 600'000'000;
  SigningKey k1{"kept1", std::string(32, '\x31')};
  SigningKey k2{"kept2", std::string(32, '\x32')};
  test_clock_->Advance(std::chrono::milliseconds(1050));
  AddSigningKey(k1.kid, k1.secret);
  const std::string by_k1 = "Bearer " + SignBearer(p, k1);
  ASSERT_TRUE(authority->Verify(by_k1).ok());
  ASSERT_TRUE(authority->Verify(by_k1).ok());
  ASSERT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) {
    return tx.Execute("UPDATE signing_keys SET retired_at = 1 WHERE kid = ?", {k1.kid}).status();
  }));
  EXPECT_TRUE(authority->Verify(by_k1).ok());  // the keys were not read again yet
  test_clock_->Advance(std::chrono::milliseconds(1050));
  AddSigningKey(k2.kid, k2.secret);
  ASSERT_TRUE(authority->Verify("Bearer " + SignBearer(p, k2)).ok());  // reads the keys
  EXPECT_EQ(FieldOf(authority->Verify(by_k1).status(), "reason"), "unknown_key");
}

TEST_P(AuthoritySuite, BootstrapOwnerCreatedOnceUnderRaces) {
  auto other_cat = SecondCatalog();
  ASSERT_TRUE(other_cat);
  auto a = OpenAuthority(*cat_);
  auto b = OpenAuthority(*other_cat);
  ASSERT_TRUE(a && b);
  ::unsetenv("TARN_BOOTSTRAP_CLIENT_ID");
  ::unsetenv("TARN_BOOTSTRAP_CLIENT_SECRET");
  constexpr int kThreads = 6;
  std::atomic<int> created{0};
  std::vector<std::optional<NewAccessToken>> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto r = (i % 2 ? b : a)->EnsureBootstrapOwner();
      if (!r.ok()) {
        ADD_FAILURE() << r.status().ToString();
        return;
      }
      if (r->has_value()) ++created;
      results[i] = std::move(*r);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(created.load(), 1);
  auto all = cat_->ListAccessTokens("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].workspace, "*");
  EXPECT_EQ((*all)[0].role, Role::kOwner);
  EXPECT_EQ((*all)[0].pattern, "*");
  for (const auto& r : results) {
    if (!r) continue;
    EXPECT_EQ(r->info.client_id, (*all)[0].client_id);
    auto issued = b->Exchange(r->info.client_id, r->client_secret);
    ASSERT_TRUE(issued.ok()) << issued.status().ToString();
    auto p = a->Verify("Bearer " + issued->access_token);
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(MayAccess(*p, Role::kOwner, "*", ""));
  }
  // Later calls do nothing.
  auto later = a->EnsureBootstrapOwner();
  ASSERT_TRUE(later.ok());
  EXPECT_FALSE(later->has_value());
}

TEST_P(AuthoritySuite, BootstrapOwnerFromEnvironment) {
  auto a = OpenAuthority(*cat_);
  ASSERT_TRUE(a);
  ::setenv("TARN_BOOTSTRAP_CLIENT_ID", "admin", 1);
  ::unsetenv("TARN_BOOTSTRAP_CLIENT_SECRET");
  EXPECT_EQ(a->EnsureBootstrapOwner().status().kind(), ErrorKind::kInvalidArgument);
  ::setenv("TARN_BOOTSTRAP_CLIENT_SECRET", "correct-horse-battery-staple", 1);
  auto r = a->EnsureBootstrapOwner();
  ::unsetenv("TARN_BOOTSTRAP_CLIENT_ID");
  ::unsetenv("TARN_BOOTSTRAP_CLIENT_SECRET");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->info.client_id, "admin");
  EXPECT_EQ((*r)->client_secret, "correct-horse-battery-staple");
  auto issued = a->Exchange("admin", "correct-horse-battery-staple");
  ASSERT_TRUE(issued.ok()) << issued.status().ToString();
  EXPECT_EQ(issued->principal.role, Role::kOwner);
}

TEST_P(AuthoritySuite, OptionsChecked) {
  AuthorityOptions options;
  options.token_ttl_s = 0;
  EXPECT_EQ(TokenAuthority::Open(*cat_, options).status().kind(), ErrorKind::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Backends, AuthoritySuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn::auth

// Access tokens and the audit log (access.cc), on SQLite and PostgreSQL.
#include "tarn/access.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "catalog/access_internal.h"
#include "catalog/catalog.h"
#include "catalog/test_fixture.h"
#include "metastore/metastore.h"

namespace tarn {
namespace {

class AccessSuite : public CatalogBackendTest {};

bool IsBase32(std::string_view s) {
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'))) return false;
  }
  return true;
}

TEST(AccessRoles, NamesRoundTrip) {
  for (Role r : {Role::kReader, Role::kWriter, Role::kOwner}) {
    auto parsed = ParseRole(RoleName(r));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, r);
  }
  EXPECT_EQ(RoleName(Role::kWriter), "writer");
  for (std::string bad : {std::string(), std::string("Owner"), std::string("admin"),
                          std::string("reader "), std::string("owner\0", 6)}) {
    auto parsed = ParseRole(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(FieldOf(parsed.status(), "code"), "invalid_role");
  }
}

TEST(AccessActor, FromUserOrUid) {
  auto cat = Catalog::OpenEmbedded(
      (testing_util::ScratchDir() / ("tarn-access-actor-" + std::to_string(::getpid()))).string());
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  const char* old = std::getenv("USER");
  std::string saved = old ? old : "";
  ::setenv("USER", "alice", 1);
  EXPECT_EQ((*cat)->actor(), "local:alice");
  ::unsetenv("USER");
  EXPECT_EQ((*cat)->actor(), "local:uid" + std::to_string(::getuid()));
  ::setenv("USER", "has space", 1);
  EXPECT_EQ((*cat)->actor(), "local:uid" + std::to_string(::getuid()));
  if (old) ::setenv("USER", saved.c_str(), 1);
  EXPECT_FALSE((*cat)->remote());
  std::filesystem::remove_all(testing_util::ScratchDir() /
                              ("tarn-access-actor-" + std::to_string(::getpid())));
}

TEST_P(AccessSuite, CreateVerifyAndRevoke) {
  ASSERT_OK(cat_->CreateWorkspace("acme"));
  EXPECT_FALSE(*cat_->HasAccessTokens());
  AccessTokenSpec spec;
  spec.workspace = "acme";
  spec.role = Role::kWriter;
  spec.pattern = "sales.*";
  spec.description = "ingest job";
  auto t = cat_->CreateAccessToken(spec, "tarn_creator");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(*cat_->HasAccessTokens());
  ASSERT_EQ(t->info.client_id.size(), 25u);
  EXPECT_EQ(t->info.client_id.substr(0, 5), "tarn_");
  EXPECT_TRUE(IsBase32(t->info.client_id.substr(5))) << t->info.client_id;
  ASSERT_EQ(t->client_secret.size(), 40u);
  EXPECT_TRUE(IsBase32(t->client_secret)) << t->client_secret;
  EXPECT_EQ(t->info.created_by, "tarn_creator");
  EXPECT_GT(t->info.created_at_us, 0);

  // The stored hash is an Argon2id PHC string with the agreed parameters, never the secret.
  ASSERT_OK(cat_->metastore().RunInTransaction(
      [&](Transaction& tx) -> Status {
        auto row = tx.QueryOne("SELECT secret_hash FROM access_tokens WHERE client_id = ?",
                               {t->info.client_id});
        if (!row.ok()) return row.status();
        EXPECT_TRUE(row->has_value());
        std::string hash(*(*row)->Text(0));
        EXPECT_EQ(hash.rfind("$argon2id$v=19$m=19456,t=2,p=1$", 0), 0u) << hash;
        EXPECT_EQ(hash.find(t->client_secret), std::string::npos);
        return Status::OK();
      },
      TxMode::kReadOnly));

  auto got = cat_->GetAccessToken(t->info.client_id);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->workspace, "acme");
  EXPECT_EQ(got->role, Role::kWriter);
  EXPECT_EQ(got->pattern, "sales.*");
  EXPECT_EQ(got->description, "ingest job");
  EXPECT_FALSE(got->last_used_at_us);
  EXPECT_FALSE(got->revoked_at_us);

  auto ok = cat_->VerifyClientSecret(t->info.client_id, t->client_secret);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->client_id, t->info.client_id);
  EXPECT_EQ(ok->role, Role::kWriter);
  ASSERT_TRUE(cat_->GetAccessToken(t->info.client_id)->last_used_at_us.has_value());

  // Wrong secret, unknown id, revoked: the same error.
  std::string wrong = t->client_secret;
  wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
  std::vector<Status> refusals;
  refusals.push_back(cat_->VerifyClientSecret(t->info.client_id, wrong).status());
  refusals.push_back(cat_->VerifyClientSecret(t->info.client_id, "").status());
  refusals.push_back(
      cat_->VerifyClientSecret("tarn_unknownunknownunkno", t->client_secret).status());
  refusals.push_back(cat_->VerifyClientSecret("", "").status());
  refusals.push_back(cat_->VerifyClientSecret(std::string(5000, 'x'), "y").status());
  ASSERT_OK(cat_->RevokeAccessToken(t->info.client_id));
  refusals.push_back(cat_->VerifyClientSecret(t->info.client_id, t->client_secret).status());
  for (const Status& st : refusals) {
    EXPECT_EQ(st.kind(), ErrorKind::kUnauthenticated) << st.ToString();
    EXPECT_EQ(FieldOf(st, "code"), "invalid_client");
    EXPECT_EQ(st.message(), refusals[0].message());
    EXPECT_EQ(st.fields(), refusals[0].fields());
  }

  auto revoked = cat_->GetAccessToken(t->info.client_id);
  ASSERT_TRUE(revoked->revoked_at_us.has_value());
  int64_t at = *revoked->revoked_at_us;
  // Revoking twice keeps the first time.
  ASSERT_OK(cat_->RevokeAccessToken(t->info.client_id));
  EXPECT_EQ(*cat_->GetAccessToken(t->info.client_id)->revoked_at_us, at);

  Status missing = cat_->RevokeAccessToken("tarn_nope");
  EXPECT_EQ(missing.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(FieldOf(missing, "code"), "token_not_found");
  EXPECT_EQ(cat_->GetAccessToken("tarn_nope").status().kind(), ErrorKind::kNotFound);
}

TEST_P(AccessSuite, UnknownIdsCostAsMuchAsKnownOnes) {
  AccessTokenSpec spec;
  spec.workspace = "*";
  auto t = cat_->CreateAccessToken(spec);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  (void)cat_->VerifyClientSecret("warm", "up");  // the dummy hash is made once
  auto time = [&](const std::string& id) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 3; ++i) (void)cat_->VerifyClientSecret(id, "not-the-secret");
    return std::chrono::steady_clock::now() - start;
  };
  auto known = time(t->info.client_id);
  auto unknown = time("tarn_aaaaaaaaaaaaaaaaaaaa");
  // Both run one Argon2id verification each; a fast path for unknown ids would be ~100x faster.
  EXPECT_GT(unknown * 3, known) << "unknown ids must not be refused without hashing";
}

TEST_P(AccessSuite, SpecValidation) {
  ASSERT_OK(cat_->CreateWorkspace("acme"));
  auto create = [&](auto edit) {
    AccessTokenSpec spec;
    spec.workspace = "acme";
    edit(spec);
    return cat_->CreateAccessToken(spec).status();
  };
  Status st = create([](AccessTokenSpec& s) { s.workspace = "nope"; });
  EXPECT_EQ(st.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(FieldOf(st, "code"), "workspace_not_found");
  EXPECT_EQ(create([](AccessTokenSpec& s) { s.workspace = "bad name"; }).kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(create([](AccessTokenSpec& s) { s.workspace = ""; }).kind(),
            ErrorKind::kInvalidArgument);
  for (const char* bad : {"", "a b", "a.b.c", "x;drop", "é", "*/"}) {
    Status p = create([&](AccessTokenSpec& s) { s.pattern = bad; });
    EXPECT_EQ(p.kind(), ErrorKind::kInvalidArgument) << bad;
    EXPECT_EQ(FieldOf(p, "code"), "invalid_pattern") << bad;
  }
  for (const char* good : {"*", "sales.*", "sales", "s?les.ord*", "*.orders"}) {
    EXPECT_TRUE(create([&](AccessTokenSpec& s) { s.pattern = good; }).ok()) << good;
  }
  EXPECT_EQ(create([](AccessTokenSpec& s) { s.role = static_cast<Role>(9); }).kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(create([](AccessTokenSpec& s) { s.description = std::string(2000, 'd'); }).kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(create([](AccessTokenSpec& s) { s.client_secret = "short"; }).kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(create([](AccessTokenSpec& s) { s.client_id = "has space"; }).kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(create([](AccessTokenSpec& s) { s.client_id = ""; }).kind(),
            ErrorKind::kInvalidArgument);
}

TEST_P(AccessSuite, GivenCredentialsAndDuplicates) {
  AccessTokenSpec spec;
  spec.workspace = "*";
  spec.role = Role::kOwner;
  spec.client_id = "bootstrap-admin";
  spec.client_secret = "0123456789abcdef-secret";
  auto t = cat_->CreateAccessToken(spec);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->info.client_id, "bootstrap-admin");
  EXPECT_EQ(t->client_secret, "0123456789abcdef-secret");
  EXPECT_TRUE(cat_->VerifyClientSecret("bootstrap-admin", "0123456789abcdef-secret").ok());
  spec.client_secret = "another-secret-of-length";
  Status dup = cat_->CreateAccessToken(spec).status();
  EXPECT_EQ(dup.kind(), ErrorKind::kAlreadyExists);
  EXPECT_EQ(FieldOf(dup, "code"), "token_exists");
  // The first secret still works; the second never replaced it.
  EXPECT_TRUE(cat_->VerifyClientSecret("bootstrap-admin", "0123456789abcdef-secret").ok());
  EXPECT_FALSE(cat_->VerifyClientSecret("bootstrap-admin", "another-secret-of-length").ok());
}

TEST_P(AccessSuite, ListFiltersByWorkspace) {
  ASSERT_OK(cat_->CreateWorkspace("a"));
  ASSERT_OK(cat_->CreateWorkspace("b"));
  std::set<std::string> in_a;
  for (const char* ws : {"a", "b", "a", "*"}) {
    AccessTokenSpec spec;
    spec.workspace = ws;
    auto t = cat_->CreateAccessToken(spec);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    if (std::string(ws) == "a") in_a.insert(t->info.client_id);
  }
  auto all = cat_->ListAccessTokens("");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), 4u);
  auto a = cat_->ListAccessTokens("a");
  ASSERT_TRUE(a.ok());
  std::set<std::string> got;
  for (const auto& t : *a) {
    EXPECT_EQ(t.workspace, "a");
    got.insert(t.client_id);
  }
  EXPECT_EQ(got, in_a);
  EXPECT_EQ(cat_->ListAccessTokens("*")->size(), 1u);
  EXPECT_TRUE(cat_->ListAccessTokens("zzz")->empty());
  EXPECT_EQ(cat_->ListAccessTokens("bad name").status().kind(), ErrorKind::kInvalidArgument);
}

TEST_P(AccessSuite, ConcurrentCreatesAreDistinct) {
  constexpr int kThreads = 4;
  std::vector<std::string> ids(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      AccessTokenSpec spec;
      spec.workspace = "*";
      auto t = cat_->CreateAccessToken(spec);
      if (t.ok()) ids[i] = t->info.client_id;
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), size_t{kThreads});
  EXPECT_EQ(distinct.count(""), 0u);
  EXPECT_EQ(cat_->ListAccessTokens("")->size(), size_t{kThreads});
}

TEST_P(AccessSuite, FirstTokenIsCreatedOnceUnderRaces) {
  // Two catalogs on one metastore stand for two servers; threads on each race.
  std::unique_ptr<Catalog> second;
  if (GetParam() == "sqlite") {
    auto c = Catalog::OpenEmbedded(dir_.string());
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    second = std::move(*c);
  }
  constexpr int kThreads = 6;
  std::atomic<int> created{0};
  std::atomic<int> failed{0};
  std::vector<std::string> ids(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Catalog& cat = (second && i % 2) ? *second : *cat_;
      AccessTokenSpec spec;
      spec.workspace = "*";
      spec.role = Role::kOwner;
      auto t = cat.CreateFirstAccessToken(spec, "bootstrap");
      if (!t.ok()) {
        ++failed;
      } else if (t->has_value()) {
        ++created;
        ids[i] = (*t)->info.client_id;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(created.load(), 1);
  auto all = cat_->ListAccessTokens("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].role, Role::kOwner);
  EXPECT_EQ((*all)[0].created_by, "bootstrap");
  // Once a token exists, nothing more is created.
  AccessTokenSpec star;
  star.workspace = "*";
  auto again = cat_->CreateFirstAccessToken(star, "bootstrap");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
}

TEST_P(AccessSuite, AuditWriteAndQuery) {
  std::vector<AuditRecord> recs;
  for (int i = 0; i < 6; ++i) {
    AuditRecord r;
    r.at_us = 1000 + i * 100;
    r.request_id = "req-" + std::to_string(i);
    r.actor = i % 2 ? "tarn_x" : "local:bob";
    r.action = "dataset.append";
    r.target = "acme.sales.orders";
    r.workspace = i < 4 ? "acme" : "other";
    r.outcome = i == 5 ? "commit_conflict" : "ok";
    r.detail_json = R"({"snapshot_id":)" + std::to_string(i) + "}";
    recs.push_back(r);
  }
  ASSERT_OK(cat_->WriteAudit(recs));
  ASSERT_OK(cat_->WriteAudit({}));

  AuditQuery q;
  auto all = cat_->ListAudit(q);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 6u);
  for (int i = 0; i < 6; ++i) {
    const AuditRecord& r = (*all)[i];
    EXPECT_EQ(r.request_id, "req-" + std::to_string(i));  // oldest first
    EXPECT_EQ(r.at_us, 1000 + i * 100);
    EXPECT_EQ(r.actor, recs[i].actor);
    EXPECT_EQ(r.action, "dataset.append");
    EXPECT_EQ(r.target, "acme.sales.orders");
    EXPECT_EQ(r.workspace, recs[i].workspace);
    EXPECT_EQ(r.outcome, recs[i].outcome);
    EXPECT_EQ(r.detail_json, recs[i].detail_json);
    EXPECT_GT(r.id, 0);
  }
  q.since_us = 1200;
  q.until_us = 1500;  // exclusive
  auto window = cat_->ListAudit(q);
  ASSERT_EQ(window->size(), 3u);
  EXPECT_EQ((*window)[0].request_id, "req-2");
  EXPECT_EQ((*window)[2].request_id, "req-4");
  q = {};
  q.workspace = "acme";
  q.actor = "tarn_x";
  auto filtered = cat_->ListAudit(q);
  ASSERT_EQ(filtered->size(), 2u);
  EXPECT_EQ((*filtered)[0].request_id, "req-1");
  EXPECT_EQ((*filtered)[1].request_id, "req-3");
  q = {};
  q.limit = 2;  // the newest two, oldest first
  auto last = cat_->ListAudit(q);
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ((*last)[0].request_id, "req-4");
  EXPECT_EQ((*last)[1].request_id, "req-5");

  q = {};
  q.limit = 0;
  EXPECT_EQ(cat_->ListAudit(q).status().kind(), ErrorKind::kInvalidArgument);
  q.limit = 10;
  q.since_us = 10;
  q.until_us = 5;
  EXPECT_EQ(cat_->ListAudit(q).status().kind(), ErrorKind::kInvalidArgument);

  // at_us 0 means now.
  AuditRecord now;
  now.action = "token.create";
  now.outcome = "ok";
  ASSERT_OK(cat_->WriteAudit({now}));
  q = {};
  q.since_us = 1'000'000'000'000'000;  // after 2001
  auto recent = cat_->ListAudit(q);
  ASSERT_EQ(recent->size(), 1u);
  EXPECT_EQ((*recent)[0].action, "token.create");
  EXPECT_EQ((*recent)[0].detail_json, "{}");
}

TEST_P(AccessSuite, AuditRejectsBadRecordsAtomically) {
  AuditRecord good;
  good.action = "x";
  good.outcome = "ok";
  for (auto edit : std::vector<std::function<void(AuditRecord&)>>{
           [](AuditRecord& r) { r.action.clear(); },
           [](AuditRecord& r) { r.outcome.clear(); },
           [](AuditRecord& r) { r.detail_json = "[1]"; },
           [](AuditRecord& r) { r.detail_json = "{"; },
           [](AuditRecord& r) { r.detail_json = ""; },
           [](AuditRecord& r) { r.actor = std::string(2000, 'a'); },
           [](AuditRecord& r) { r.at_us = -1; },
       }) {
    AuditRecord bad = good;
    edit(bad);
    Status st = cat_->WriteAudit({good, bad});
    EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument) << st.ToString();
    EXPECT_FALSE(FieldOf(st, "field").empty());
  }
  EXPECT_TRUE(cat_->ListAudit({})->empty());  // nothing of a refused batch landed
}

TEST_P(AccessSuite, AuditKeepsOddTextAndRefusesOddFilters) {
  AuditRecord r;
  r.action = "dataset.create";
  r.outcome = "ok";
  r.target = std::string("a\0b\xff\xc3\xa9", 6);  // NUL, a stray byte, then a valid e-acute
  ASSERT_OK(cat_->WriteAudit({r}));
  auto rows = cat_->ListAudit({});
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].target, "a?b?\xc3\xa9");
  AuditQuery q;
  q.actor = std::string("x\0", 2);
  EXPECT_EQ(cat_->ListAudit(q).status().kind(), ErrorKind::kInvalidArgument);
  // A client id no token could have is unknown, not a database error.
  EXPECT_EQ(cat_->VerifyClientSecret(std::string("a\0", 2), "s").status().kind(),
            ErrorKind::kUnauthenticated);
  EXPECT_EQ(cat_->RevokeAccessToken(std::string("a\0", 2)).kind(), ErrorKind::kNotFound);
  AccessTokenSpec spec;
  spec.workspace = "*";
  spec.description = "\xff";
  EXPECT_EQ(cat_->CreateAccessToken(spec).status().kind(), ErrorKind::kInvalidArgument);
}

TEST_P(AccessSuite, AuditRowInACallersTransaction) {
  AuditRecord r;
  r.action = "dataset.append";
  r.outcome = "ok";
  // Rolled back with the transaction it was written in.
  Status st = cat_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
    TARN_RETURN_NOT_OK(catalog_internal::InsertAuditRecord(tx, r));
    return Status::Conflict("boom");
  });
  EXPECT_EQ(st.kind(), ErrorKind::kConflict);
  EXPECT_TRUE(cat_->ListAudit({})->empty());
  ASSERT_OK(cat_->metastore().RunInTransaction(
      [&](Transaction& tx) { return catalog_internal::InsertAuditRecord(tx, r); }));
  EXPECT_EQ(cat_->ListAudit({})->size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, AccessSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn

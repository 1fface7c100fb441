// Issue 14 defects 5-8 over real HTTP, on SQLite and (under tests/run_with_pg.sh) PostgreSQL:
// bearer scheme and unknown token subjects (401), duplicate JSON keys (400), predicates of
// another type family (422 before anything is written), and counts that cover only what a
// pattern-restricted token may see.
#include <chrono>

#include "auth/auth.h"
#include "catalog/test_fixture.h"
#include "metastore/metastore.h"
#include "server/test_util.h"

namespace tarn::server::testing {
namespace {

class ServeHardening : public ServedCatalogTest {
 protected:
  Reply Json_(const std::string& method, const std::string& path, const Json& body) {
    return SendJson(port_, method, path, body, owner_);
  }
  Reply Raw(const std::string& method, const std::string& path, const std::string& body) {
    return Send(port_, {method, path, body, "application/json", owner_, {}});
  }

  void CreateDataset(const std::string& coll, const std::string& ds, const std::string& schema) {
    ASSERT_OK(cat_->CreateWorkspace("hw", true));
    ASSERT_OK(cat_->CreateCollection("hw." + coll, true));
    DatasetDefinition def;
    def.schema = *Schema::Parse(schema);
    ASSERT_TRUE(cat_->CreateDataset("hw." + coll + "." + ds, def).ok());
  }
};

TEST_P(ServeHardening, BearerTokenWithoutTheSchemeIs401) {
  Reply ok = Get(port_, "/v1/whoami", owner_);
  ASSERT_EQ(ok.status, 200) << ok;
  for (const std::string& header : {owner_, "Token " + owner_, "Bearer" + owner_}) {
    Reply r = Send(port_, {"GET", "/v1/whoami", "", "", "", {{"Authorization", header}}});
    EXPECT_EQ(r.status, 401) << header.substr(0, 12) << " " << r;
    EXPECT_EQ(r.ErrorField("reason"), "not_bearer") << r;
  }
}

TEST_P(ServeHardening, TokenWhoseSubjectIsNoClientIs401) {
  std::string kid, secret;
  ASSERT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
    auto row = tx.QueryOne("SELECT kid, secret FROM signing_keys WHERE retired_at IS NULL");
    if (!row.ok()) return row.status();
    kid = std::string(*(*row)->Text(0));
    secret = std::string(*(*row)->Blob(1));
    return Status::OK();
  }));
  auth::Principal ghost;
  ghost.client_id = "tarn_deleted_client";
  ghost.workspace = "*";
  ghost.role = Role::kOwner;
  ghost.pattern = "*";
  ghost.issued_at_us = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count() *
                       1'000'000;
  ghost.expires_at_us = ghost.issued_at_us + 600'000'000;
  ghost.token_id = "ghost";
  std::string forged = auth::SignBearer(ghost, auth::SigningKey{kid, secret});
  Reply r = Get(port_, "/v1/workspaces", forged);
  EXPECT_EQ(r.status, 401) << r;
  EXPECT_EQ(r.Code(), "invalid_token");
  EXPECT_EQ(r.ErrorField("reason"), "unknown_client");
  EXPECT_EQ(Get(port_, "/v1/workspaces", owner_).status, 200);
}

TEST_P(ServeHardening, DuplicateJsonKeysAre400AtAnyDepth) {
  CreateDataset("c", "d", "id INT64, name VARCHAR");
  const std::string d = "/v1/workspaces/hw/collections/c/datasets/d";
  struct Case {
    std::string method, path, body, field;
  };
  for (const Case& c : std::vector<Case>{
           {"POST", "/v1/workspaces", R"({"name":"a","name":"b"})", "/name"},
           {"POST", d + "/delete", R"({"where":"id = 1","meta":{"message":"x","message":"y"}})",
            "/meta/message"},
           {"POST", "/v1/commits",
            R"({"parts":[{"dataset":"hw.c.d","added":[],"added":[]}],"meta":{}})",
            "/parts/0/added"},
           {"POST", "/v1/contracts", R"({"target":"hw.c.d","target":"hw.c.e"})", "/target"},
       }) {
    Reply r = Raw(c.method, c.path, c.body);
    EXPECT_EQ(r.status, 400) << c.path << " " << r;
    EXPECT_EQ(r.Code(), "malformed_json") << c.path << " " << r;
    EXPECT_EQ(r.ErrorField("field"), c.field) << c.path << " " << r;
  }
  // Nothing was created by the refused bodies.
  EXPECT_EQ(cat_->GetWorkspace("a").status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(cat_->GetWorkspace("b").status().kind(), ErrorKind::kNotFound);
}

TEST_P(ServeHardening, PredicateOfAnotherTypeFamilyIs422BeforeAnythingIsWritten) {
  CreateDataset("c", "d", "id INT64, name VARCHAR");
  auto ds = cat_->LoadDataset("hw.c.d");
  CommitMeta meta;
  meta.author = "t";
  ASSERT_TRUE(
      cat_->Append("hw.c.d", Batches(MakeBatch(ds->schema, {{"1", "10"}, {"2", "x"}})), meta).ok());
  const std::string d = "/v1/workspaces/hw/collections/c/datasets/d";
  Reply del = Json_("POST", d + "/delete", {{"where", "name > 5"}, {"meta", Json::object()}});
  EXPECT_EQ(del.status, 422) << del;
  EXPECT_EQ(del.Code(), "predicate_type_mismatch");
  EXPECT_EQ(del.ErrorField("column"), "name");
  EXPECT_EQ(del.ErrorField("column_type"), "VARCHAR");
  EXPECT_EQ(del.ErrorField("literal_type"), "number");
  for (const std::string route : {"/scan", "/plan"}) {
    Reply r = Get(port_, d + route + "?where=" + "id%20%3D%20%271%27", owner_);
    EXPECT_EQ(r.status, 422) << route << " " << r;
    EXPECT_EQ(r.Code(), "predicate_type_mismatch") << route;
    EXPECT_EQ(r.ErrorField("column"), "id");
  }
  EXPECT_EQ(cat_->LoadDataset("hw.c.d")->total_records, 2);
  EXPECT_EQ(cat_->LoadDataset("hw.c.d")->current_snapshot_id.value_or(0), 1);
}

TEST_P(ServeHardening, CountsCoverOnlyWhatARestrictedTokenMaySee) {
  CreateDataset("sales", "orders", "id INT64");
  CreateDataset("sales", "refunds", "id INT64");
  CreateDataset("sales", "secret", "id INT64");
  CreateDataset("hr", "salaries", "id INT64");
  ASSERT_OK(cat_->DropDataset("hw.sales.secret", false));
  std::string narrow = TokenFor(*cat_, port_, "hw", Role::kReader, "sales.orders");
  std::string coll_wide = TokenFor(*cat_, port_, "hw", Role::kReader, "sales");
  ASSERT_FALSE(narrow.empty());

  Reply ws = Get(port_, "/v1/workspaces/hw", narrow);
  ASSERT_EQ(ws.status, 200) << ws;
  EXPECT_EQ(ws.json["collection_count"], 1);  // hr is not visible
  Reply list = Get(port_, "/v1/workspaces", narrow);
  ASSERT_EQ(list.status, 200) << list;
  ASSERT_EQ(list.json["workspaces"].size(), 1u);
  EXPECT_EQ(list.json["workspaces"][0]["collection_count"], 1);

  Reply coll = Get(port_, "/v1/workspaces/hw/collections/sales", narrow);
  ASSERT_EQ(coll.status, 200) << coll;
  EXPECT_EQ(coll.json["dataset_count"], 1);  // only orders
  EXPECT_EQ(coll.json["dropped_dataset_count"], 0);
  Reply colls = Get(port_, "/v1/workspaces/hw/collections", narrow);
  ASSERT_EQ(colls.status, 200) << colls;
  ASSERT_EQ(colls.json["collections"].size(), 1u);
  EXPECT_EQ(colls.json["collections"][0]["dataset_count"], 1);

  // A token of the whole collection counts all of it (the dropped one too); the owner's "*"
  // counts everything.
  Reply wide = Get(port_, "/v1/workspaces/hw/collections/sales", coll_wide);
  EXPECT_EQ(wide.json["dataset_count"], 2);
  EXPECT_EQ(wide.json["dropped_dataset_count"], 1);
  EXPECT_EQ(Get(port_, "/v1/workspaces/hw", coll_wide).json["collection_count"], 1);
  EXPECT_EQ(Get(port_, "/v1/workspaces/hw", owner_).json["collection_count"], 2);
  EXPECT_EQ(Get(port_, "/v1/workspaces/hw/collections/sales", owner_).json["dataset_count"], 2);
}

INSTANTIATE_TEST_SUITE_P(Backends, ServeHardening, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn::server::testing

// Workspace isolation over HTTP (issue 14, defects 1, 4 and the add_files half of 7): a writer
// of one workspace cannot register another workspace's files, commits must name real files of
// the stated size, locations are granted by owners only; on SQLite and PostgreSQL.
#include <filesystem>

#include "catalog/test_fixture.h"
#include "client/remote_client.h"
#include "objectstore/object_store.h"
#include "server/test_util.h"

namespace tarn::server::testing {
namespace {

namespace fs = std::filesystem;

class ServeIsolation : public ServedCatalogTest {
 protected:
  void SetUp() override {
    ServedCatalogTest::SetUp();
    if (!cat_) return;
    for (const char* ws : {"wa", "wb"}) {
      ASSERT_OK(cat_->CreateWorkspace(ws));
      ASSERT_OK(cat_->CreateCollection(std::string(ws) + ".c"));
      DatasetDefinition def;
      def.schema = *Schema::Parse("id INT64 NOT NULL, v VARCHAR");
      auto d = cat_->CreateDataset(std::string(ws) + ".c.d", def);
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      (std::string(ws) == "wa" ? a_uuid_ : b_uuid_) = d->uuid;
    }
    auto ds = cat_->LoadDataset("wb.c.d");
    CommitMeta m;
    m.author = "b";
    ASSERT_TRUE(
        cat_->Append("wb.c.d", Batches(MakeBatch(ds->schema, {{"1", "b-secret"}})), m).ok());
    ASSERT_OK(cat_->PlanFiles("wb.c.d", {}, "", [&](const PlannedFile& f) {
      b_file_ = f.file;
      return Status::OK();
    }));
    writer_a_ = TokenFor(*cat_, port_, "wa", Role::kWriter, "*");
    reader_a_ = TokenFor(*cat_, port_, "wa", Role::kReader, "*");
    owner_a_ = TokenFor(*cat_, port_, "wa", Role::kOwner, "*");
  }

  int64_t ScannedRows(const std::string& token) {
    Reply r = Get(port_, kA + "/scan", token);
    EXPECT_EQ(r.status, 200) << r;
    api::FrameParser parser;
    EXPECT_TRUE(parser.Feed(r.body).ok());
    int64_t rows = 0;
    while (auto f = parser.Next()) {
      if (f->first != api::FrameKind::kParquet) continue;
      auto b = api::DecodeBatchPayload(std::move(f->second));
      if (b.ok()) rows += b->num_rows;
    }
    return rows;
  }

  Json Added(const std::string& path, int64_t records, int64_t bytes) {
    return Json{{"path", path}, {"record_count", records}, {"file_size_bytes", bytes}};
  }
  Reply CommitAdded(const Json& added, const std::string& token) {
    Json part = {
        {"dataset", "wa.c.d"}, {"operation", "add_files"}, {"added", Json::array({added})}};
    return SendJson(port_, "POST", "/v1/commits", Json{{"parts", Json::array({part})}}, token);
  }

  // An SDK client over HTTP with a new owner token of `ws` (its client id in *client_id).
  Result<std::unique_ptr<client::RemoteClient>> OwnerClient(const std::string& ws,
                                                            std::string* client_id) {
    AccessTokenSpec spec;
    spec.workspace = ws;
    spec.role = Role::kOwner;
    TARN_ASSIGN_OR_RETURN(auto t, cat_->CreateAccessToken(spec, "test"));
    ClientOptions o;
    o.client_id = *client_id = t.info.client_id;
    o.client_secret = t.client_secret;
    return client::RemoteClient::Connect("http://127.0.0.1:" + std::to_string(port_), o);
  }

  const std::string kA = "/v1/workspaces/wa/collections/c/datasets/d";
  std::string a_uuid_, b_uuid_, writer_a_, reader_a_, owner_a_;
  DataFile b_file_;
};

TEST_P(ServeIsolation, AWriterOfOneWorkspaceCannotRegisterAnothersFiles) {
  const std::string root = fs::canonical(dir_ / "warehouse").string();
  for (const std::string& path :
       {b_file_.path, "./" + b_file_.path,
        "datasets/" + a_uuid_ + "/../" + b_uuid_ + "/" +
            b_file_.path.substr(b_file_.path.rfind("data/")),
        "file://" + root + "/" + b_file_.path, root + "/" + b_file_.path}) {
    Reply files =
        SendJson(port_, "POST", kA + "/files", Json{{"paths", Json::array({path})}}, writer_a_);
    EXPECT_EQ(files.status, 403) << path << ": " << files;
    EXPECT_EQ(files.Code(), "path_not_owned") << files;
    Reply commit =
        CommitAdded(Added(path, b_file_.record_count, b_file_.file_size_bytes), writer_a_);
    EXPECT_EQ(commit.status, 403) << path << ": " << commit;
    EXPECT_EQ(commit.Code(), "path_not_owned") << commit;
    // Neither the other dataset's name nor the warehouse root reaches the answer.
    for (const Reply* r : {&files, &commit}) {
      EXPECT_EQ(r->body.find("wb"), std::string::npos) << r->body;
      EXPECT_EQ(r->body.find(root), std::string::npos) << r->body;
    }
  }
  EXPECT_EQ(ScannedRows(reader_a_), 0);
}

TEST_P(ServeIsolation, CommitsNameRealRegularFilesOfTheStatedSize) {
  const std::string own = "datasets/" + a_uuid_ + "/data/";
  Reply ghost = CommitAdded(Added(own + "ghost.parquet", 1'000'000, 4096), writer_a_);
  EXPECT_EQ(ghost.status, 422) << ghost;
  EXPECT_EQ(ghost.Code(), "file_not_found") << ghost;
  EXPECT_EQ(Get(port_, kA, reader_a_).json["total_records"], 0);
  fs::create_directories(dir_ / "warehouse" / own);
  fs::create_symlink(dir_ / "warehouse" / b_file_.path, dir_ / "warehouse" / own / "l.parquet");
  Reply link = CommitAdded(Added(own + "l.parquet", b_file_.record_count, b_file_.file_size_bytes),
                           writer_a_);
  EXPECT_EQ(link.status, 422) << link;
  EXPECT_EQ(link.Code(), "not_a_regular_file") << link;
  auto bytes = cat_->warehouse().Get(b_file_.path);
  ASSERT_TRUE(bytes.ok());
  ASSERT_OK(cat_->warehouse().Put(own + "copy.parquet", *bytes));
  Reply size = CommitAdded(Added(own + "copy.parquet", 1, 7), writer_a_);
  EXPECT_EQ(size.Code(), "file_size_mismatch") << size;
  EXPECT_EQ(ScannedRows(reader_a_), 0);
  // Counts that disagree with the footer (not read at commit): the first scan reports them.
  Reply lying = CommitAdded(Added(own + "copy.parquet", 5, b_file_.file_size_bytes), writer_a_);
  ASSERT_EQ(lying.status, 200) << lying;
  Reply scan = Get(port_, kA + "/scan", reader_a_);
  EXPECT_NE(scan.body.find("file_metadata_mismatch"), std::string::npos) << scan;
  EXPECT_NE(scan.body.find(own + "copy.parquet"), std::string::npos) << scan;
  EXPECT_EQ(scan.body.find(fs::canonical(dir_ / "warehouse").string()), std::string::npos) << scan;
}

TEST_P(ServeIsolation, OnlyOwnersGrantLocations) {
  auto bytes = cat_->warehouse().Get(b_file_.path);
  ASSERT_TRUE(bytes.ok());
  ASSERT_OK(cat_->warehouse().Put("landing/wa/f.parquet", *bytes));
  Reply writer =
      SendJson(port_, "POST", kA + "/locations", Json{{"prefix", "landing/wa"}}, writer_a_);
  EXPECT_EQ(writer.status, 403) << writer;
  Reply managed =
      SendJson(port_, "POST", kA + "/locations", Json{{"prefix", "datasets/" + b_uuid_}}, owner_a_);
  EXPECT_EQ(managed.status, 422) << managed;
  EXPECT_EQ(managed.Code(), "invalid_location");
  // Missing, a directory, not Parquet: one answer while the location is not the dataset's.
  ASSERT_OK(cat_->warehouse().Put("landing/wa/notes.txt", "text"));
  std::string first;
  for (std::string_view p : {"landing/wa/none.parquet", "landing/wa", "landing/wa/notes.txt"}) {
    Reply r = SendJson(port_, "POST", kA + "/files", Json{{"paths", Json::array({p})}}, writer_a_);
    EXPECT_EQ(r.status, 403) << r;
    std::string m = r.json["error"]["message"].get<std::string>();
    m.replace(m.find(p), p.size(), "<path>");
    if (first.empty()) first = m;
    EXPECT_EQ(m, first);
  }
  Reply grant =
      SendJson(port_, "POST", kA + "/locations", Json{{"prefix", "landing/wa"}}, owner_a_);
  ASSERT_EQ(grant.status, 200) << grant;
  Reply notes = SendJson(port_, "POST", kA + "/files",
                         Json{{"paths", Json::array({"landing/wa/notes.txt"})}}, writer_a_);
  EXPECT_EQ(notes.Code(), "not_parquet") << notes;
  Reply files = SendJson(port_, "POST", kA + "/files",
                         Json{{"paths", Json::array({"landing/wa/f.parquet"})}}, writer_a_);
  ASSERT_EQ(files.status, 200) << files;
  EXPECT_EQ(ScannedRows(reader_a_), 1);
  // The grant is audited.
  AuditQuery q;
  q.workspace = "wa";
  auto audit = cat_->ListAudit(q);
  ASSERT_TRUE(audit.ok());
  bool seen = false;
  for (const auto& r : *audit)
    seen = seen || (r.action == "dataset.location_grant" && r.outcome == "ok");
  EXPECT_TRUE(seen);
}

TEST_P(ServeIsolation, LocationsThroughTheSdkEmbeddedAndRemote) {
  std::string client_id;
  auto remote = OwnerClient("wa", &client_id);
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  auto bytes = cat_->warehouse().Get(b_file_.path);
  ASSERT_TRUE(bytes.ok());
  ASSERT_OK(cat_->warehouse().Put("landing/r/f.parquet", *bytes));
  ASSERT_OK(cat_->warehouse().Put("landing/e/f.parquet", *bytes));
  CommitMeta m;
  m.author = "sdk";
  for (Client* c : {static_cast<Client*>(remote->get()), static_cast<Client*>(cat_.get())}) {
    const std::string loc = c->remote() ? "landing/r" : "landing/e";
    auto refused = c->AddFiles("wa.c.d", {loc + "/f.parquet"}, m);
    EXPECT_EQ(refused.status().kind(), ErrorKind::kPermissionDenied) << refused.status().ToString();
    EXPECT_EQ(FieldOf(refused.status(), "code"), "path_not_owned");
    ASSERT_OK(c->GrantLocation("wa.c.d", loc));
    auto list = c->ListLocations("wa.c.d");
    ASSERT_TRUE(list.ok()) << list.status().ToString();
    ASSERT_EQ(list->size(), 1u);
    EXPECT_EQ((*list)[0].prefix, loc + "/");
    EXPECT_EQ((*list)[0].granted_by, c->remote() ? client_id : cat_->actor());
    auto added = c->AddFiles("wa.c.d", {loc + "/f.parquet"}, m);
    ASSERT_TRUE(added.ok()) << added.status().ToString();
    ASSERT_OK(c->RevokeLocation("wa.c.d", loc + "/"));
    EXPECT_EQ(FieldOf(c->RevokeLocation("wa.c.d", loc), "code"), "location_not_found");
    EXPECT_TRUE(c->ListLocations("wa.c.d")->empty());
  }
  EXPECT_EQ(ScannedRows(reader_a_), 2);
}

// SECURE marks live in the SOURCE workspace: only its owner writes them. The destination's
// owner cannot sanction a copy into itself; a writer of the source cannot either.
TEST_P(ServeIsolation, OnlyTheSourceOwnerMarksSecure) {
  const std::string owner_b = TokenFor(*cat_, port_, "wb", Role::kOwner, "*");
  const std::string path = "/v1/workspaces/wb/secure/wa.c.copy";
  const Json body = {{"destinations", Json::array({"wa"})}};
  EXPECT_EQ(SendJson(port_, "PUT", path, body, owner_a_).status, 403);
  const std::string writer_b = TokenFor(*cat_, port_, "wb", Role::kWriter, "*");
  EXPECT_EQ(SendJson(port_, "PUT", path, body, writer_b).status, 403);
  EXPECT_TRUE(cat_->ListSecure("wb")->empty());
  // The reserved property is not a plain property, over HTTP either.
  Reply plain =
      SendJson(port_, "PATCH", "/v1/workspaces/wb/properties",
               Json{{"set", {{"secure_objects", "{\"wa.c.copy\":{\"to\":[\"wa\"]}}"}}}}, owner_b);
  EXPECT_EQ(plain.status, 422) << plain;
  EXPECT_EQ(plain.Code(), "property_reserved");
  Reply bad = SendJson(port_, "PUT", "/v1/workspaces/wb/secure/wa.c.copy",
                       Json{{"destinations", Json::array({"wb"})}}, owner_b);
  EXPECT_EQ(bad.status, 422) << bad;
  Reply marked = SendJson(port_, "PUT", path, body, owner_b);
  ASSERT_EQ(marked.status, 200) << marked;
  auto all = cat_->ListSecure("wb");
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].object, "wa.c.copy");
  EXPECT_EQ((*all)[0].destinations, (std::vector<std::string>{"wa"}));
  EXPECT_FALSE((*all)[0].author.empty());
  EXPECT_EQ(Send(port_, {"DELETE", path, "", "", owner_a_, {}}).status, 403);
  EXPECT_EQ(Send(port_, {"DELETE", path, "", "", owner_b, {}}).status, 200);
  Reply again = Send(port_, {"DELETE", path, "", "", owner_b, {}});
  EXPECT_EQ(again.status, 404) << again;
  EXPECT_EQ(again.Code(), "secure_object_not_found");
  // Through the SDK, remotely: the server records the caller as the author.
  std::string client_id;
  auto remote = OwnerClient("wb", &client_id);
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  ASSERT_OK((*remote)->MarkSecure("wb", "wa.c.copy", {"wa"}, "spoofed"));
  auto listed = (*remote)->ListSecure("wb");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].author, client_id);
  Status outside = (*remote)->MarkSecure("wa", "wa.c.copy", {"wb"}, "");
  EXPECT_EQ(outside.kind(), ErrorKind::kPermissionDenied) << outside.ToString();
  ASSERT_OK((*remote)->ClearSecure("wb", "wa.c.copy"));
  EXPECT_EQ(FieldOf((*remote)->ClearSecure("wb", "wa.c.copy"), "code"), "secure_object_not_found");
}

INSTANTIATE_TEST_SUITE_P(Backends, ServeIsolation, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn::server::testing

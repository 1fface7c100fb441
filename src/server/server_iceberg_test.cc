// The Iceberg REST facade (/iceberg/v1, docs/design/iceberg.md "The REST facade") and the native
// GET D/iceberg over real HTTP, on SQLite and (under tests/run_with_pg.sh) PostgreSQL: config,
// namespaces, loadTable with its ETag, the file route with byte ranges, the read-only 405s, the
// OAuth2 token exchange, and the refusals (401, 403) in Iceberg's error shape.
#include "catalog/test_fixture.h"
#include "client/remote_client.h"
#include "objectstore/object_store.h"
#include "server/test_util.h"

namespace tarn::server::testing {
namespace {

const std::string kNs = "/iceberg/v1/tarn/namespaces";
const std::string kTable = kNs + "/lake%1Fraw/tables/events";

// error.type / error.code of an Iceberg error body.
std::string IcebergType(const Reply& r) {
  if (!r.json.is_object() || !r.json.contains("error") || !r.json["error"].is_object()) return "";
  const Json& e = r.json["error"];
  return e.contains("type") && e["type"].is_string() ? e["type"].get<std::string>() : "";
}
int IcebergCode(const Reply& r) {
  if (!r.json.is_object() || !r.json.contains("error") || !r.json["error"].is_object()) return 0;
  const Json& e = r.json["error"];
  return e.contains("code") && e["code"].is_number_integer() ? e["code"].get<int>() : 0;
}

class IcebergFacade : public ServedCatalogTest {
 protected:
  void SetUp() override {
    ServedCatalogTest::SetUp();
    if (!cat_) return;
    SERVER_ASSERT_OK(cat_->CreateWorkspace("lake"));
    SERVER_ASSERT_OK(cat_->CreateCollection("lake.raw"));
    SERVER_ASSERT_OK(cat_->CreateWorkspace("other"));
    SERVER_ASSERT_OK(cat_->CreateCollection("other.c"));
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64, v VARCHAR");
    auto ds = cat_->CreateDataset("lake.raw.events", def);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    uuid_ = ds->uuid;
    schema_ = ds->schema;
    auto other = cat_->CreateDataset("other.c.d", def);
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    other_uuid_ = other->uuid;
    first_ = Append({{"1", "a"}, {"2", "b"}});
    reader_ = TokenFor(*cat_, port_, "lake", Role::kReader);
    stranger_ = TokenFor(*cat_, port_, "other", Role::kReader);
  }

  int64_t Append(const std::vector<std::vector<std::string>>& rows) {
    CommitMeta meta;
    meta.author = "test";
    auto s = cat_->Append("lake.raw.events", Batches(MakeBatch(schema_, rows)), meta);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? s->snapshot_id : 0;
  }

  // The warehouse key of one data file of the current snapshot.
  std::string DataFileKey() {
    std::string key;
    Status st = cat_->PlanFiles("lake.raw.events", {}, "", [&](const PlannedFile& f) {
      if (key.empty()) key = f.file.path;
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return key;
  }

  std::string Base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string FilesPath() const { return "/iceberg/v1/tarn/files/" + uuid_ + "/"; }

  Reply Head(const std::string& path, const std::string& token) {
    return Send(port_, {"HEAD", path, "", "", token, {}});
  }
  Reply GetWith(const std::string& path, const std::string& token, httplib::Headers headers) {
    return Send(port_, {"GET", path, "", "", token, std::move(headers)});
  }

  std::string uuid_, other_uuid_, reader_, stranger_;
  Schema schema_;
  int64_t first_ = 0;
};

TEST_P(IcebergFacade, ConfigListsTheReadEndpointsOnly) {
  if (!cat_) return;
  Reply r = Get(port_, "/iceberg/v1/config?warehouse=anything", reader_);
  ASSERT_EQ(r.status, 200) << r;
  EXPECT_EQ(r.json["defaults"], Json::object());
  EXPECT_EQ(r.json["overrides"], Json({{"prefix", "tarn"}}));
  std::set<std::string> endpoints;
  for (const auto& e : r.json["endpoints"]) endpoints.insert(e.get<std::string>());
  EXPECT_EQ(endpoints, (std::set<std::string>{
                           "GET /v1/{prefix}/namespaces",
                           "GET /v1/{prefix}/namespaces/{namespace}",
                           "HEAD /v1/{prefix}/namespaces/{namespace}",
                           "GET /v1/{prefix}/namespaces/{namespace}/tables",
                           "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
                           "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
                       }));

  Reply anonymous = Get(port_, "/iceberg/v1/config", "");
  EXPECT_EQ(anonymous.status, 401) << anonymous;
  EXPECT_EQ(IcebergType(anonymous), "NotAuthorizedException") << anonymous;
  EXPECT_EQ(IcebergCode(anonymous), 401) << anonymous;
  EXPECT_TRUE(anonymous.json["error"]["message"].is_string()) << anonymous;
  EXPECT_NE(anonymous.Header("WWW-Authenticate"), "");
}

TEST_P(IcebergFacade, NamespacesAreWorkspacesAndCollections) {
  if (!cat_) return;
  Reply all = Get(port_, kNs, owner_);
  ASSERT_EQ(all.status, 200) << all;
  EXPECT_EQ(all.json["namespaces"], Json::parse(R"([["lake"],["other"]])")) << all;
  // Only the workspaces the caller may read; paging parameters are accepted (one page).
  Reply mine = Get(port_, kNs + "?pageToken=&pageSize=10", reader_);
  ASSERT_EQ(mine.status, 200) << mine;
  EXPECT_EQ(mine.json["namespaces"], Json::parse(R"([["lake"]])")) << mine;
  Reply under = Get(port_, kNs + "?parent=lake", reader_);
  ASSERT_EQ(under.status, 200) << under;
  EXPECT_EQ(under.json["namespaces"], Json::parse(R"([["lake","raw"]])")) << under;
  Reply leaf = Get(port_, kNs + "?parent=lake%1Fraw", reader_);
  ASSERT_EQ(leaf.status, 200) << leaf;
  EXPECT_EQ(leaf.json["namespaces"], Json::array()) << leaf;
  EXPECT_EQ(Get(port_, kNs + "?parent=other", reader_).status, 403);
  Reply missing_parent = Get(port_, kNs + "?parent=nope", owner_);
  EXPECT_EQ(missing_parent.status, 404) << missing_parent;
  EXPECT_EQ(IcebergType(missing_parent), "NoSuchNamespaceException") << missing_parent;

  Reply ws = Get(port_, kNs + "/lake", reader_);
  ASSERT_EQ(ws.status, 200) << ws;
  EXPECT_EQ(ws.json["namespace"], Json::parse(R"(["lake"])"));
  EXPECT_TRUE(ws.json["properties"].is_object());
  Reply coll = Get(port_, kNs + "/lake%1Fraw", reader_);
  ASSERT_EQ(coll.status, 200) << coll;
  EXPECT_EQ(coll.json["namespace"], Json::parse(R"(["lake","raw"])"));
  Reply exists = Head(kNs + "/lake%1Fraw", reader_);
  EXPECT_EQ(exists.status, 204) << exists;
  EXPECT_EQ(exists.body, "");

  for (const char* ns : {"nope", "lake%1Fnope", "lake%1Fraw%1Fdeeper"}) {
    Reply r = Get(port_, kNs + "/" + ns, owner_);
    EXPECT_EQ(r.status, 404) << ns << ": " << r;
    EXPECT_EQ(IcebergType(r), "NoSuchNamespaceException") << ns << ": " << r;
    EXPECT_EQ(IcebergCode(r), 404) << r;
    EXPECT_EQ(Head(kNs + "/" + ns, owner_).status, 404) << ns;
  }
  Reply bad = Get(port_, kNs + "/9bad", owner_);
  EXPECT_EQ(bad.status, 400) << bad;
  EXPECT_EQ(IcebergType(bad), "BadRequestException") << bad;
  Reply forbidden = Get(port_, kNs + "/lake%1Fraw", stranger_);
  EXPECT_EQ(forbidden.status, 403) << forbidden;
  EXPECT_EQ(IcebergType(forbidden), "ForbiddenException") << forbidden;
  // A path the facade does not serve is an Iceberg error too.
  Reply views = Get(port_, kNs + "/lake%1Fraw/views", owner_);
  EXPECT_EQ(views.status, 404) << views;
  EXPECT_EQ(IcebergCode(views), 404) << views;
}

TEST_P(IcebergFacade, TablesAreTheDatasetsOfACollection) {
  if (!cat_) return;
  Reply r = Get(port_, kNs + "/lake%1Fraw/tables?pageToken=", reader_);
  ASSERT_EQ(r.status, 200) << r;
  EXPECT_EQ(r.json["identifiers"], Json::parse(R"([{"namespace":["lake","raw"],"name":"events"}])"))
      << r;
  Reply ws = Get(port_, kNs + "/lake/tables", reader_);
  ASSERT_EQ(ws.status, 200) << ws;
  EXPECT_EQ(ws.json["identifiers"], Json::array());
  Reply missing = Get(port_, kNs + "/lake%1Fnope/tables", owner_);
  EXPECT_EQ(missing.status, 404) << missing;
  EXPECT_EQ(IcebergType(missing), "NoSuchNamespaceException") << missing;

  EXPECT_EQ(Head(kTable, reader_).status, 204);
  EXPECT_EQ(Head(kNs + "/lake%1Fraw/tables/nope", reader_).status, 404);
  EXPECT_EQ(Head(kNs + "/lake/tables/events", reader_).status, 404);
  Reply no_table = Get(port_, kNs + "/lake%1Fraw/tables/nope", reader_);
  EXPECT_EQ(no_table.status, 404) << no_table;
  EXPECT_EQ(IcebergType(no_table), "NoSuchTableException") << no_table;
}

TEST_P(IcebergFacade, LoadTableNamesTheFileRouteAndAnswersConditionalRequests) {
  if (!cat_) return;
  Reply r = Get(port_, kTable, reader_);
  ASSERT_EQ(r.status, 200) << r;
  const std::string location = r.json["metadata-location"].get<std::string>();
  const std::string files = Base() + FilesPath();
  EXPECT_EQ(location.rfind(files, 0), 0u) << location;
  EXPECT_EQ(location.substr(location.size() - 14), ".metadata.json") << location;
  const Json& m = r.json["metadata"];
  EXPECT_EQ(m["format-version"], 2);
  EXPECT_EQ(m["table-uuid"], uuid_);
  EXPECT_EQ(m["current-snapshot-id"], first_);
  EXPECT_EQ(m["location"].get<std::string>().rfind(files, 0), 0u) << m["location"];
  ASSERT_EQ(m["snapshots"].size(), 1u) << m;
  const std::string list = m["snapshots"][0]["manifest-list"].get<std::string>();
  EXPECT_EQ(list.rfind(files, 0), 0u) << list;
  EXPECT_EQ(r.json["config"], Json::object());  // a local warehouse: nothing to configure
  const std::string etag = r.Header("ETag");
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(etag.front(), '"');

  // Cached: the same metadata file and ETag; If-None-Match is 304 without a body.
  Reply again = Get(port_, kTable, reader_);
  ASSERT_EQ(again.status, 200) << again;
  EXPECT_EQ(again.json["metadata-location"], location);
  EXPECT_EQ(again.Header("ETag"), etag);
  Reply same = GetWith(kTable, reader_, {{"If-None-Match", etag}});
  EXPECT_EQ(same.status, 304) << same;
  EXPECT_EQ(same.body, "");
  EXPECT_EQ(same.Header("ETag"), etag);
  EXPECT_EQ(GetWith(kTable, reader_, {{"If-None-Match", "\"x\", W/" + etag}}).status, 304);
  EXPECT_EQ(GetWith(kTable, reader_, {{"If-None-Match", "\"other\""}}).status, 200);

  // The metadata's own objects come back through the file route, with the caller's token.
  Reply metadata_file = Get(port_, location.substr(Base().size()), reader_);
  ASSERT_EQ(metadata_file.status, 200) << metadata_file;
  EXPECT_EQ(metadata_file.Header("Content-Type"), "application/json");
  EXPECT_EQ(metadata_file.json, m);
  Reply manifest_list = Get(port_, list.substr(Base().size()), reader_);
  ASSERT_EQ(manifest_list.status, 200) << manifest_list;
  EXPECT_EQ(manifest_list.body.substr(0, 4), std::string("Obj\x01", 4));  // Avro

  // A new snapshot: new metadata, new ETag, and the old one no longer matches.
  int64_t second = Append({{"3", "c"}});
  Reply later = GetWith(kTable, reader_, {{"If-None-Match", etag}});
  ASSERT_EQ(later.status, 200) << later;
  EXPECT_EQ(later.json["metadata"]["current-snapshot-id"], second);
  EXPECT_NE(later.json["metadata-location"], location);
  EXPECT_NE(later.Header("ETag"), etag);
}

TEST_P(IcebergFacade, SnapshotsRefsKeepsOnlyReferencedSnapshots) {
  if (!cat_) return;
  ASSERT_EQ(Get(port_, kTable, reader_).status, 200);  // produces the first snapshot's metadata
  int64_t second = Append({{"3", "c"}});
  Reply all = Get(port_, kTable + "?snapshots=all", reader_);
  ASSERT_EQ(all.status, 200) << all;
  ASSERT_EQ(all.json["metadata"]["snapshots"].size(), 2u) << all;
  Reply refs = Get(port_, kTable + "?snapshots=refs", reader_);
  ASSERT_EQ(refs.status, 200) << refs;
  ASSERT_EQ(refs.json["metadata"]["snapshots"].size(), 1u) << refs;
  EXPECT_EQ(refs.json["metadata"]["snapshots"][0]["snapshot-id"], second);
  EXPECT_EQ(refs.json["metadata-location"], all.json["metadata-location"]);
  EXPECT_NE(refs.Header("ETag"), all.Header("ETag"));
  Reply bad = Get(port_, kTable + "?snapshots=some", reader_);
  EXPECT_EQ(bad.status, 400) << bad;
  EXPECT_EQ(IcebergType(bad), "BadRequestException") << bad;
}

TEST_P(IcebergFacade, FileRouteServesWholeObjectsAndByteRanges) {
  if (!cat_) return;
  const std::string key = DataFileKey();
  ASSERT_FALSE(key.empty());
  auto bytes = cat_->warehouse().Get(key);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  const std::string size = std::to_string(bytes->size());
  const std::string path = FilesPath() + key;

  Reply whole = Get(port_, path, reader_);
  ASSERT_EQ(whole.status, 200) << whole;
  EXPECT_EQ(whole.body, *bytes);
  EXPECT_EQ(whole.Header("Content-Length"), size);
  EXPECT_EQ(whole.Header("Accept-Ranges"), "bytes");
  EXPECT_EQ(whole.Header("Content-Type"), "application/vnd.apache.parquet");

  Reply part = GetWith(path, reader_, {{"Range", "bytes=4-11"}});
  ASSERT_EQ(part.status, 206) << part;
  EXPECT_EQ(part.body, bytes->substr(4, 8));
  EXPECT_EQ(part.Header("Content-Range"), "bytes 4-11/" + size);
  EXPECT_EQ(part.Header("Content-Length"), "8");
  Reply tail = GetWith(path, reader_, {{"Range", "bytes=-8"}});
  ASSERT_EQ(tail.status, 206) << tail;
  EXPECT_EQ(tail.body, bytes->substr(bytes->size() - 8));
  EXPECT_EQ(tail.body.substr(4), "PAR1");
  Reply open_end = GetWith(path, reader_, {{"Range", "bytes=10-"}});
  ASSERT_EQ(open_end.status, 206) << open_end;
  EXPECT_EQ(open_end.body, bytes->substr(10));
  Reply past = GetWith(path, reader_, {{"Range", "bytes=" + size + "-"}});
  EXPECT_EQ(past.status, 416) << past;
  EXPECT_EQ(past.Header("Content-Range"), "bytes */" + size);

  // An object larger than the route's read chunk streams whole, and a range across chunks.
  std::string big(3 * (1 << 20) + 123, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131) % 251);
  const std::string big_key = "datasets/" + uuid_ + "/big.bin";
  SERVER_ASSERT_OK(cat_->warehouse().Put(big_key, big));
  Reply big_whole = Get(port_, FilesPath() + big_key, reader_);
  ASSERT_EQ(big_whole.status, 200);
  EXPECT_TRUE(big_whole.body == big);
  EXPECT_EQ(big_whole.Header("Content-Type"), "application/octet-stream");
  Reply big_part = GetWith(FilesPath() + big_key, reader_, {{"Range", "bytes=1048000-2097999"}});
  ASSERT_EQ(big_part.status, 206);
  EXPECT_TRUE(big_part.body == big.substr(1048000, 1050000));

  Reply head = Head(path, reader_);
  EXPECT_EQ(head.status, 200) << head;
  EXPECT_EQ(head.Header("Content-Length"), size);
  EXPECT_EQ(head.body, "");
  // The connection is still good after a HEAD (no body was expected, none was sent).
  EXPECT_EQ(Get(port_, path, reader_).body, *bytes);
}

TEST_P(IcebergFacade, FileRouteServesOnlyTheDatasetsOwnObjects) {
  if (!cat_) return;
  const std::string key = DataFileKey();
  ASSERT_FALSE(key.empty());
  // Another dataset's object under this uuid, a key outside the dataset, a missing object.
  std::string elsewhere = "datasets/" + other_uuid_ + "/" + key.substr(key.find('/', 9) + 1);
  for (const std::string& k :
       {elsewhere, std::string("uploads/x.parquet"), "datasets/" + uuid_ + "/missing.parquet"}) {
    Reply r = Get(port_, FilesPath() + k, owner_);
    EXPECT_EQ(r.status, 404) << k << ": " << r;
    EXPECT_EQ(IcebergType(r), "NotFoundException") << r;
  }
  // A location granted to the dataset is its own too.
  SERVER_ASSERT_OK(cat_->GrantLocation("lake.raw.events", "landing/lake/"));
  SERVER_ASSERT_OK(cat_->warehouse().Put("landing/lake/f.bin", "granted"));
  SERVER_ASSERT_OK(cat_->warehouse().Put("landing/elsewhere/f.bin", "not granted"));
  Reply granted = Get(port_, FilesPath() + "landing/lake/f.bin", reader_);
  EXPECT_EQ(granted.status, 200) << granted;
  EXPECT_EQ(granted.body, "granted");
  EXPECT_EQ(Get(port_, FilesPath() + "landing/elsewhere/f.bin", owner_).status, 404);
  // Dot segments never reach the store.
  for (const std::string& k : {"datasets/" + uuid_ + "/../" + other_uuid_ + "/x",
                               "datasets/" + uuid_ + "/%2E%2E/x", "datasets//" + uuid_ + "/x"}) {
    Reply r = Get(port_, FilesPath() + k, owner_);
    EXPECT_TRUE(r.status == 400 || r.status == 404) << k << ": " << r;
  }
  // An unknown uuid, a malformed one.
  EXPECT_EQ(Get(port_, "/iceberg/v1/tarn/files/00000000-0000-4000-8000-000000000000/" + key, owner_)
                .status,
            404);
  EXPECT_EQ(Get(port_, "/iceberg/v1/tarn/files/not-a-uuid/" + key, owner_).status, 400);
  // Who may read: the dataset's readers; another workspace's reader 403, no token 401.
  Reply stranger = Get(port_, FilesPath() + key, stranger_);
  EXPECT_EQ(stranger.status, 403) << stranger;
  EXPECT_EQ(IcebergType(stranger), "ForbiddenException") << stranger;
  EXPECT_EQ(Head(FilesPath() + key, stranger_).status, 403);
  EXPECT_EQ(Get(port_, FilesPath() + key, "").status, 401);
}

TEST_P(IcebergFacade, RefusesStrangersAndAnonymousCallers) {
  if (!cat_) return;
  Reply stranger = Get(port_, kTable, stranger_);
  EXPECT_EQ(stranger.status, 403) << stranger;
  EXPECT_EQ(IcebergType(stranger), "ForbiddenException") << stranger;
  EXPECT_EQ(IcebergCode(stranger), 403) << stranger;
  EXPECT_EQ(Head(kTable, stranger_).status, 403);
  Reply anonymous = Get(port_, kTable, "");
  EXPECT_EQ(anonymous.status, 401) << anonymous;
  EXPECT_EQ(IcebergType(anonymous), "NotAuthorizedException") << anonymous;
  // The stranger's own table is fine.
  EXPECT_EQ(Get(port_, kNs + "/other%1Fc/tables/d", stranger_).status, 200);
}

TEST_P(IcebergFacade, WritesAre405) {
  if (!cat_) return;
  struct Write {
    std::string method, path;
  };
  for (const Write& w : std::vector<Write>{
           {"POST", kNs},
           {"DELETE", kNs + "/lake"},
           {"POST", kNs + "/lake/properties"},
           {"POST", kNs + "/lake%1Fraw/tables"},
           {"POST", kNs + "/lake%1Fraw/register"},
           {"POST", kTable},
           {"DELETE", kTable},
           {"POST", "/iceberg/v1/tarn/tables/rename"},
           {"POST", "/iceberg/v1/tarn/transactions/commit"},
       }) {
    Reply r = Send(port_, {w.method, w.path, "{}", "application/json", owner_, {}});
    EXPECT_EQ(r.status, 405) << w.method << " " << w.path << ": " << r;
    EXPECT_EQ(IcebergType(r), "UnsupportedOperationException") << r;
    EXPECT_EQ(IcebergCode(r), 405) << r;
  }
  Reply post = Send(port_, {"POST", kTable, "{}", "application/json", owner_, {}});
  EXPECT_EQ(post.Header("Allow"), "GET, HEAD");
  // A method the spec has no write for on the path: 405 too, naming what is served.
  Reply put = Send(port_, {"PUT", kTable, "{}", "application/json", owner_, {}});
  EXPECT_EQ(put.status, 405) << put;
  EXPECT_EQ(IcebergType(put), "UnsupportedOperationException") << put;
  EXPECT_EQ(put.Header("Allow"), "GET, HEAD");
  EXPECT_EQ(Send(port_, {"POST", kTable, "{}", "application/json", "", {}}).status, 401);
  // Still one snapshot: nothing was written.
  auto ds = cat_->LoadDataset("lake.raw.events");
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ(ds->current_snapshot_id, first_);
  // The refused writes are audited like any refused mutation, under the table they named.
  auto audit = cat_->ListAudit(AuditQuery{});
  ASSERT_TRUE(audit.ok()) << audit.status().ToString();
  bool seen = false;
  for (const auto& a : *audit) {
    seen = seen || (a.action == "iceberg.write" && a.target == "lake.raw.events" &&
                    a.workspace == "lake" && a.outcome == "method_not_allowed");
  }
  EXPECT_TRUE(seen);
}

TEST_P(IcebergFacade, OAuthTokensExchangesClientCredentials) {
  if (!cat_) return;
  Reply created = SendJson(port_, "POST", "/v1/tokens",
                           Json{{"workspace", "lake"}, {"role", "reader"}}, owner_);
  ASSERT_EQ(created.status, 200) << created;
  const std::string id = created.json["client_id"].get<std::string>();
  const std::string secret = created.json["client_secret"].get<std::string>();
  auto exchange = [&](const std::string& form) {
    return Send(
        port_,
        {"POST", "/iceberg/v1/oauth/tokens", form, "application/x-www-form-urlencoded", "", {}});
  };
  Reply r = exchange("grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret +
                     "&scope=catalog");
  ASSERT_EQ(r.status, 200) << r;
  EXPECT_EQ(r.json["token_type"], "bearer");
  EXPECT_EQ(r.json["issued_token_type"], "urn:ietf:params:oauth:token-type:access_token");
  EXPECT_GT(r.json["expires_in"].get<int64_t>(), 0);
  const std::string token = r.json["access_token"].get<std::string>();
  EXPECT_EQ(Get(port_, kTable, token).status, 200);
  EXPECT_EQ(Get(port_, kNs + "/other%1Fc/tables/d", token).status, 403);

  Reply wrong = exchange("grant_type=client_credentials&client_id=" + id + "&client_secret=x");
  EXPECT_EQ(wrong.status, 401) << wrong;
  EXPECT_EQ(wrong.json["error"], "invalid_client") << wrong;
  EXPECT_TRUE(wrong.json["error_description"].is_string()) << wrong;
  Reply grant = exchange("grant_type=password&username=a&password=b");
  EXPECT_EQ(grant.status, 400) << grant;
  EXPECT_EQ(grant.json["error"], "unsupported_grant_type") << grant;
  Reply missing = exchange("grant_type=client_credentials&client_id=" + id);
  EXPECT_EQ(missing.status, 400) << missing;
  EXPECT_EQ(missing.json["error"], "invalid_request") << missing;
}

TEST_P(IcebergFacade, NativeRouteNamesTheWarehousesOwnUris) {
  if (!cat_) return;
  const std::string d = "/v1/workspaces/lake/collections/raw/datasets/events/iceberg";
  Reply r = Get(port_, d, reader_);
  ASSERT_EQ(r.status, 200) << r;
  EXPECT_EQ(r.json["dataset"], "lake.raw.events");
  EXPECT_EQ(r.json["snapshot_id"], first_);
  const std::string location = r.json["metadata_location"].get<std::string>();
  EXPECT_EQ(location.rfind(cat_->warehouse().uri(), 0), 0u) << location;
  ASSERT_TRUE(r.json["metadata"].is_object()) << r;
  EXPECT_EQ(r.json["metadata"]["format-version"], 2);

  int64_t second = Append({{"3", "c"}});
  Reply older = Get(port_, d + "?snapshot_id=" + std::to_string(first_), reader_);
  ASSERT_EQ(older.status, 200) << older;
  EXPECT_EQ(older.json["snapshot_id"], first_);
  EXPECT_EQ(Get(port_, d, reader_).json["snapshot_id"], second);
  Reply v3 = Get(port_, d + "?format_version=3", reader_);
  EXPECT_EQ(v3.status, 422) << v3;
  EXPECT_EQ(v3.Code(), "iceberg_unsupported") << v3;
  EXPECT_EQ(Get(port_, d, stranger_).status, 403);
  EXPECT_EQ(Get(port_, d + "?snapshot_id=999", reader_).status, 404);
}

TEST_P(IcebergFacade, RemoteClientReadsTheNativeRoute) {
  if (!cat_) return;
  AccessTokenSpec spec;
  spec.workspace = "lake";
  spec.role = Role::kReader;
  auto t = cat_->CreateAccessToken(spec, "test");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ClientOptions o;
  o.client_id = t->info.client_id;
  o.client_secret = t->client_secret;
  auto remote = client::RemoteClient::Connect(Base(), o);
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  auto info = (*remote)->IcebergTable("lake.raw.events", IcebergRequest{});
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  auto local = cat_->IcebergTable("lake.raw.events", IcebergRequest{});
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(info->metadata_location, local->metadata_location);
  EXPECT_EQ(Json::parse(info->metadata), Json::parse(local->metadata));
  EXPECT_EQ(info->snapshot_id, first_);
  IcebergRequest v3;
  v3.format_version = 3;
  auto refused = (*remote)->IcebergTable("lake.raw.events", v3);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), "iceberg_unsupported");
}

INSTANTIATE_TEST_SUITE_P(Backends, IcebergFacade, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return std::string(info.param); });

// The base of the file URLs is the server's public URL, never the request's Host header.
class IcebergPublicUrl : public CatalogBackendTest {};

TEST_P(IcebergPublicUrl, FileUrlsUseThePublicUrlWhateverTheHostHeader) {
  if (!cat_) return;
  std::shared_ptr<Catalog> shared(cat_.get(), [](Catalog*) {});
  ServerOptions bad;
  bad.public_url = "ftp://x";
  EXPECT_FALSE(Server::Make(shared, bad).ok());
  bad.public_url = "https://x/?q=1";
  EXPECT_FALSE(Server::Make(shared, bad).ok());

  ServerOptions o;
  o.port = 0;
  o.public_url = "https://tarn.example.com/base/";
  o.log_sink = [](std::string_view) {};
  auto s = Server::Make(shared, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE((*s)->Start().ok());
  int port = (*s)->port();
  SERVER_ASSERT_OK(cat_->CreateWorkspace("lake"));
  SERVER_ASSERT_OK(cat_->CreateCollection("lake.raw"));
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64");
  ASSERT_TRUE(cat_->CreateDataset("lake.raw.events", def).ok());
  std::string token = TokenFor(*cat_, port, "*", Role::kOwner);
  Reply r = Send(port, {"GET", kTable, "", "", token, {{"Host", "evil.example"}}});
  ASSERT_EQ(r.status, 200) << r;
  const std::string location = r.json["metadata-location"].get<std::string>();
  EXPECT_EQ(location.rfind("https://tarn.example.com/base/iceberg/v1/tarn/files/", 0), 0u)
      << location;
  (*s)->Shutdown();
  (*s)->Wait();
}

INSTANTIATE_TEST_SUITE_P(Backends, IcebergPublicUrl, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace tarn::server::testing

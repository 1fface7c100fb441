// The happy path of every route over real HTTP, on SQLite and (under tests/run_with_pg.sh)
// PostgreSQL: workspaces to scans, commits, time travel, tags, offsets, the change feed,
// maintenance, tokens and the audit rows of mutations, failed ones included.
#include <set>

#include "catalog/test_fixture.h"
#include "objectstore/object_store.h"
#include "server/test_util.h"

namespace tarn::server::testing {
namespace {

class ServeFlow : public ServedCatalogTest {
 protected:
  Reply Json_(const std::string& method, const std::string& path, const Json& body) {
    return SendJson(port_, method, path, body, owner_);
  }

  // The rows a scan returns, as "id:v" strings in order, and the trailer's row count.
  std::vector<std::string> ScanRows(const std::string& query, int64_t* trailer_rows = nullptr) {
    Reply r = Get(port_, kD + "/scan" + query, owner_);
    EXPECT_EQ(r.status, 200) << r;
    EXPECT_EQ(r.Header("Content-Type"), "application/vnd.tarn.frames");
    api::FrameParser parser;
    EXPECT_TRUE(parser.Feed(r.body).ok());
    std::vector<std::string> rows;
    bool ended = false;
    while (auto f = parser.Next()) {
      EXPECT_FALSE(ended) << "a frame after E";
      if (f->first == api::FrameKind::kParquet) {
        auto b = api::DecodeBatchPayload(std::move(f->second));
        EXPECT_TRUE(b.ok()) << b.status().ToString();
        if (!b.ok()) continue;
        for (int64_t i = 0; i < b->num_rows; ++i) {
          rows.push_back(ValueText(b->columns[0], i) + ":" + ValueText(b->columns[1], i));
        }
      } else if (f->first == api::FrameKind::kEnd) {
        ended = true;
        auto t = Json::parse(f->second, nullptr, false);
        if (trailer_rows) *trailer_rows = t["rows"].get<int64_t>();
      } else {
        ADD_FAILURE() << "unexpected frame " << static_cast<char>(f->first) << " " << f->second;
      }
    }
    EXPECT_TRUE(ended) << "no E frame";
    EXPECT_EQ(parser.buffered(), 0u);
    return rows;
  }

  // Dataset d (id INT64, v VARCHAR) in fw.c, over HTTP; its schema as the server answered.
  void CreateDatasetD(Schema* schema) {
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64, v VARCHAR");
    Json create = api::ToJson(def);
    create["name"] = "d";
    Reply ds = Json_("POST", "/v1/workspaces/fw/collections/c/datasets", create);
    ASSERT_EQ(ds.status, 200) << ds;
    auto info = api::DatasetFromJson(ds.json);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    *schema = info->schema;
  }
  // Workspace fw, collection c and dataset d.
  void CreateDataset(Schema* schema) {
    ASSERT_EQ(Json_("POST", "/v1/workspaces", {{"name", "fw"}}).status, 200);
    ASSERT_EQ(Json_("POST", "/v1/workspaces/fw/collections", {{"name", "c"}}).status, 200);
    CreateDatasetD(schema);
  }

  const std::string kD = "/v1/workspaces/fw/collections/c/datasets/d";
};

TEST_P(ServeFlow, EveryRouteEndToEnd) {
  // Probes and the description of the API.
  EXPECT_EQ(Get(port_, "/livez", "").json["status"], "ok");
  Reply health = Get(port_, "/healthz", "");
  EXPECT_EQ(health.status, 200) << health;
  EXPECT_EQ(health.json["metastore"], "ok");
  EXPECT_EQ(health.json["warehouse"], "ok");
  Reply spec = Get(port_, "/v1/openapi.json", owner_);
  ASSERT_EQ(spec.status, 200);
  EXPECT_EQ(spec.json["openapi"], "3.1.0");
  Reply who = Get(port_, "/v1/whoami", owner_);
  EXPECT_EQ(who.json["client_id"], owner_id_);
  EXPECT_EQ(who.json["role"], "owner");
  EXPECT_EQ(who.json["workspace"], "*");
  EXPECT_GT(who.json["expires_at_us"].get<int64_t>(), 0);

  // Workspaces and collections.
  Reply ws = Json_("POST", "/v1/workspaces", {{"name", "fw"}, {"properties", {{"team", "a"}}}});
  ASSERT_EQ(ws.status, 200) << ws;
  EXPECT_EQ(ws.json["name"], "fw");
  EXPECT_EQ(Json_("POST", "/v1/workspaces", {{"name", "fw"}}).status, 409);
  EXPECT_EQ(Json_("POST", "/v1/workspaces", {{"name", "fw"}, {"exists_ok", true}}).status, 200);
  Reply list = Get(port_, "/v1/workspaces", owner_);
  ASSERT_EQ(list.json["workspaces"].size(), 1u) << list;
  Reply patched = Json_("PATCH", "/v1/workspaces/fw/properties",
                        {{"set", {{"x", "1"}}}, {"unset", Json::array({"team"})}});
  ASSERT_EQ(patched.status, 200) << patched;
  EXPECT_EQ(patched.json["properties"], Json({{"x", "1"}}));
  EXPECT_EQ(Get(port_, "/v1/workspaces/fw", owner_).json["properties"]["x"], "1");
  EXPECT_EQ(Get(port_, "/v1/workspaces/nope", owner_).status, 404);

  Reply coll =
      Json_("POST", "/v1/workspaces/fw/collections", {{"name", "c"}, {"description", "things"}});
  ASSERT_EQ(coll.status, 200) << coll;
  EXPECT_EQ(coll.json["description"], "things");
  ASSERT_EQ(Json_("POST", "/v1/workspaces/fw/collections", {{"name", "gone"}}).status, 200);
  EXPECT_EQ(
      Send(port_, {"DELETE", "/v1/workspaces/fw/collections/gone", "", "", owner_, {}}).status,
      200);
  EXPECT_EQ(Get(port_, "/v1/workspaces/fw/collections", owner_).json["collections"].size(), 1u);
  EXPECT_EQ(Json_("PATCH", "/v1/workspaces/fw/collections/c/properties", {{"set", {{"k", "v"}}}})
                .json["properties"]["k"],
            "v");
  EXPECT_EQ(Get(port_, "/v1/workspaces/fw/collections/c", owner_).json["name"], "c");

  // A dataset.
  Schema schema;
  ASSERT_NO_FATAL_FAILURE(CreateDatasetD(&schema));
  EXPECT_EQ(Get(port_, "/v1/workspaces/fw/collections/c/datasets", owner_).json["datasets"].size(),
            1u);

  // Append through frames: two batches, one snapshot; the author defaults to the caller.
  std::string body = AppendBody(
      Json{{"message", "first"}},
      Batches(MakeBatch(schema, {{"1", "a"}, {"2", "b"}}), MakeBatch(schema, {{"3", "c"}})));
  Reply a1 = Send(port_, {"POST",
                          kD + "/append",
                          body,
                          "application/vnd.tarn.frames",
                          owner_,
                          {{"X-Request-Id", "append-req-1"}}});
  ASSERT_EQ(a1.status, 200) << a1;
  EXPECT_EQ(a1.Header("X-Request-Id"), "append-req-1");
  EXPECT_EQ(a1.json["author"], owner_id_);
  EXPECT_EQ(a1.json["added_records"], 3);
  int64_t s1 = a1.json["snapshot_id"].get<int64_t>();
  EXPECT_EQ(ScanRows(""), (std::vector<std::string>{"1:a", "2:b", "3:c"}));

  Reply a2 =
      Send(port_, {"POST",
                   kD + "/append",
                   AppendBody(Json{{"author", "bob"}}, Batches(MakeBatch(schema, {{"4", "d"}}))),
                   "application/vnd.tarn.frames",
                   owner_,
                   {}});
  ASSERT_EQ(a2.status, 200) << a2;
  EXPECT_EQ(a2.json["author"], "bob");
  int64_t s2 = a2.json["snapshot_id"].get<int64_t>();
  int64_t trailer = 0;
  EXPECT_EQ(ScanRows("?where=id%20%3E%3D%202", &trailer).size(), 3u);
  EXPECT_EQ(trailer, 3);
  EXPECT_EQ(ScanRows("?snapshot_id=" + std::to_string(s1)).size(), 3u);
  EXPECT_EQ(Get(port_, kD + "/scan?where=nosuch%20%3D%201", owner_).status, 422);
  EXPECT_EQ(Get(port_, kD + "/scan?snapshot_id=999", owner_).status, 404);

  // An overwrite replaces everything; then the earlier state comes back by rollback.
  Reply ow = Send(port_, {"POST",
                          kD + "/append?operation=overwrite",
                          AppendBody(Json::object(), Batches(MakeBatch(schema, {{"9", "z"}}))),
                          "application/vnd.tarn.frames",
                          owner_,
                          {}});
  ASSERT_EQ(ow.status, 200) << ow;
  EXPECT_EQ(ScanRows(""), (std::vector<std::string>{"9:z"}));
  Reply rb = Json_("POST", kD + "/rollback", {{"to_snapshot_id", s2}});
  ASSERT_EQ(rb.status, 200) << rb;
  EXPECT_EQ(ScanRows("").size(), 4u);

  // Planning streams NDJSON ending with an end line.
  Reply plan = Get(port_, kD + "/plan", owner_);
  ASSERT_EQ(plan.status, 200) << plan;
  EXPECT_EQ(plan.Header("Content-Type"), "application/x-ndjson");
  std::vector<Json> lines;
  for (size_t pos = 0; pos < plan.body.size();) {
    size_t nl = plan.body.find('\n', pos);
    lines.push_back(Json::parse(plan.body.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.back(), Json({{"end", true}, {"files", lines.size() - 1}}));
  std::string first_file = lines[0]["file"]["path"].get<std::string>();

  // Snapshots, time travel by selector, tags.
  Reply snaps = Get(port_, kD + "/snapshots", owner_);
  EXPECT_EQ(snaps.json["snapshots"].size(), 4u) << snaps;
  EXPECT_EQ(
      Get(port_, kD + "/snapshot?snapshot_id=" + std::to_string(s1), owner_).json["snapshot_id"],
      s1);
  EXPECT_EQ(Get(port_, kD + "/snapshot?snapshot_id=1&tag=x", owner_).Code(), "ambiguous_selector");
  EXPECT_EQ(Json_("PUT", kD + "/tags/first", {{"snapshot_id", s1}}).status, 200);
  EXPECT_EQ(Json_("PUT", kD + "/tags/first", {{"snapshot_id", s2}}).status, 409);
  EXPECT_EQ(Json_("PUT", kD + "/tags/first", {{"snapshot_id", s2}, {"replace", true}}).status, 200);
  Reply tags = Get(port_, kD + "/tags", owner_);
  ASSERT_EQ(tags.json["tags"].size(), 1u) << tags;
  EXPECT_EQ(tags.json["tags"][0]["snapshot_id"], s2);
  EXPECT_EQ(ScanRows("?tag=first").size(), 4u);
  EXPECT_EQ(Get(port_, kD + "?tag=first", owner_).json["name"], "d");
  EXPECT_EQ(Send(port_, {"DELETE", kD + "/tags/first", "", "", owner_, {}}).status, 200);
  EXPECT_EQ(Get(port_, kD + "/tags", owner_).json["tags"].size(), 0u);

  // The change feed and consumer offsets.
  Reply changes = Get(port_, kD + "/changes?from=0&to=" + std::to_string(s2), owner_);
  ASSERT_EQ(changes.status, 200) << changes;
  EXPECT_EQ(changes.json["added_files"].size(), 2u) << changes;
  EXPECT_EQ(Get(port_, kD + "/changes", owner_).Code(), "invalid_parameter");
  EXPECT_EQ(Get(port_, kD + "/offsets/k", owner_).json["snapshot_id"], nullptr);
  EXPECT_EQ(Json_("PUT", kD + "/offsets/k", {{"snapshot_id", s2}}).status, 200);
  EXPECT_EQ(Get(port_, kD + "/offsets/k", owner_).json["snapshot_id"], s2);
  Reply back = Json_("PUT", kD + "/offsets/k", {{"snapshot_id", s1}});
  EXPECT_EQ(back.status, 409) << back;
  EXPECT_EQ(back.Code(), "offset_regression");

  // Row deletes, files registered from the warehouse, a multi-part commit.
  Reply del = Json_("POST", kD + "/delete", {{"where", "id = 1"}, {"meta", {{"message", "m"}}}});
  ASSERT_EQ(del.status, 200) << del;
  EXPECT_EQ(ScanRows("").size(), 3u);
  auto parquet = api::EncodeBatchFrame(MakeBatch(schema, {{"7", "x"}, {"8", "y"}}));
  ASSERT_TRUE(parquet.ok());
  ASSERT_OK(cat_->warehouse().Put("external/f1.parquet", parquet->substr(api::kFrameHeaderBytes)));
  // Outside the dataset's own prefix: registered only once an owner granted the location.
  Reply not_owned = Json_("POST", kD + "/files", {{"paths", Json::array({"external/f1.parquet"})}});
  EXPECT_EQ(not_owned.status, 403) << not_owned;
  EXPECT_EQ(not_owned.Code(), "path_not_owned") << not_owned;
  Reply granted = Json_("POST", kD + "/locations", {{"prefix", "external"}});
  ASSERT_EQ(granted.status, 200) << granted;
  Reply locations = Get(port_, kD + "/locations", owner_);
  ASSERT_EQ(locations.json["locations"].size(), 1u) << locations;
  EXPECT_EQ(locations.json["locations"][0]["prefix"], "external/");
  EXPECT_EQ(locations.json["locations"][0]["granted_by"], owner_id_) << locations;
  Reply files = Json_("POST", kD + "/files", {{"paths", Json::array({"external/f1.parquet"})}});
  ASSERT_EQ(files.status, 200) << files;
  Reply revoked = Send(port_, {"DELETE", kD + "/locations?prefix=external%2F", "", "", owner_, {}});
  EXPECT_EQ(revoked.status, 200) << revoked;
  EXPECT_EQ(Get(port_, kD + "/locations", owner_).json["locations"].size(), 0u);
  Reply again = Send(port_, {"DELETE", kD + "/locations?prefix=external", "", "", owner_, {}});
  EXPECT_EQ(again.Code(), "location_not_found") << again;
  EXPECT_EQ(files.json["operation"], "add_files");
  EXPECT_EQ(ScanRows("").size(), 5u);
  Reply current = Get(port_, kD, owner_);
  Json part = {{"dataset", "fw.c.d"},
               {"operation", "delete_files"},
               {"read_snapshot_id", current.json["current_snapshot_id"]},
               {"removed_paths", Json::array({"external/f1.parquet"})},
               {"meta", {{"idempotency_key", "k1"}}}};
  Reply commit = Json_("POST", "/v1/commits", {{"parts", Json::array({part})}});
  ASSERT_EQ(commit.status, 200) << commit;
  ASSERT_EQ(commit.json["snapshots"].size(), 1u);
  EXPECT_EQ(ScanRows("").size(), 3u);
  Reply replay = Json_("POST", "/v1/commits", {{"parts", Json::array({part})}});
  EXPECT_EQ(replay.status, 200) << replay;  // the same idempotency key: the original snapshot
  EXPECT_EQ(replay.json["snapshots"][0]["snapshot_id"], commit.json["snapshots"][0]["snapshot_id"]);
  Reply stale =
      Json_("POST", "/v1/commits",
            {{"parts", Json::array({Json{{"dataset", "fw.c.d"},
                                         {"operation", "delete_files"},
                                         {"read_snapshot_id", s1},
                                         {"removed_paths", Json::array({first_file})}}})}});
  EXPECT_EQ(stale.status, 409) << stale;
  EXPECT_EQ(stale.ErrorField("retryable"), "");  // a JSON boolean, not a string
  EXPECT_EQ(stale.json["error"]["retryable"], true) << stale;

  // Definitions: properties, schema, partition spec, sort order, rename.
  EXPECT_EQ(Json_("PATCH", kD + "/properties", {{"set", {{"p", "1"}}}}).json["properties"]["p"],
            "1");
  Reply altered = Json_(
      "POST", kD + "/schema",
      {{"changes",
        Json::array({Json{{"kind", "add_column"}, {"column", "score"}, {"type", "FLOAT64"}}})}});
  ASSERT_EQ(altered.status, 200) << altered;
  auto altered_info = api::DatasetFromJson(altered.json);
  ASSERT_TRUE(altered_info.ok()) << altered_info.status().ToString();
  EXPECT_EQ(altered_info->schema.fields.size(), 3u);
  EXPECT_EQ(Json_("PUT", kD + "/partition", {{"spec", "bucket(4, id)"}}).status, 200);
  EXPECT_EQ(Json_("PUT", kD + "/sort", {{"order", "id"}}).status, 200);
  EXPECT_EQ(Json_("PUT", kD + "/sort", {{"order", "nosuch"}}).status, 422);
  Reply renamed = Json_("POST", kD + "/rename", {{"new_name", "d2"}});
  ASSERT_EQ(renamed.status, 200) << renamed;
  EXPECT_EQ(renamed.json["name"], "d2");
  EXPECT_EQ(Get(port_, kD, owner_).status, 404);
  const std::string d2 = "/v1/workspaces/fw/collections/c/datasets/d2";

  // Maintenance.
  Reply exp = Json_("POST", d2 + "/expire", {{"older_than_us", 1}, {"dry_run", true}});
  ASSERT_EQ(exp.status, 200) << exp;
  EXPECT_EQ(exp.json["expired_snapshots"], 0);
  Reply clean = Json_("POST", "/v1/cleanup", Json::object());
  ASSERT_EQ(clean.status, 200) << clean;
  EXPECT_TRUE(clean.json.contains("objects_deleted"));

  // Drops: the workspace is protected by default, so dropping it is refused (and audited).
  EXPECT_EQ(Send(port_, {"DELETE", d2 + "?purge=false", "", "", owner_, {}}).status, 200);
  Reply refused = Send(port_, {"DELETE", "/v1/workspaces/fw", "", "", owner_, {}});
  EXPECT_EQ(refused.status, 409) << refused;
  EXPECT_EQ(Send(port_, {"DELETE", kD + "?purge=maybe", "", "", owner_, {}}).Code(),
            "invalid_parameter");

  // Tokens: create, use, list, revoke; a token cannot grant more than its creator holds.
  Reply tok =
      Json_("POST", "/v1/tokens", {{"workspace", "fw"}, {"role", "writer"}, {"description", "ci"}});
  ASSERT_EQ(tok.status, 200) << tok;
  std::string wid = tok.json["client_id"].get<std::string>();
  std::string wsecret = tok.json["client_secret"].get<std::string>();
  std::string writer = Exchange(port_, wid, wsecret);
  ASSERT_FALSE(writer.empty());
  EXPECT_EQ(Get(port_, "/v1/whoami", writer).json["role"], "writer");
  Reply escalate =
      SendJson(port_, "POST", "/v1/tokens", {{"workspace", "fw"}, {"role", "owner"}}, writer);
  EXPECT_EQ(escalate.status, 403) << escalate;
  Reply listed = Get(port_, "/v1/tokens?workspace=fw", owner_);
  ASSERT_EQ(listed.json["tokens"].size(), 1u) << listed;
  EXPECT_EQ(listed.json["tokens"][0]["created_by"], owner_id_);
  EXPECT_FALSE(listed.json["tokens"][0].contains("client_secret"));
  EXPECT_EQ(Send(port_, {"DELETE", "/v1/tokens/" + wid, "", "", owner_, {}}).status, 200);
  EXPECT_EQ(
      Send(port_, {"POST",
                   "/v1/token",
                   "grant_type=client_credentials&client_id=" + wid + "&client_secret=" + wsecret,
                   "application/x-www-form-urlencoded",
                   "",
                   {}})
          .status,
      401);
  EXPECT_EQ(Send(port_, {"POST",
                         "/v1/token",
                         "grant_type=password&client_id=a&client_secret=b",
                         "application/x-www-form-urlencoded",
                         "",
                         {}})
                .Code(),
            "unsupported_grant_type");

  // Audit: a row per mutation with the caller as actor, the refused ones included; the
  // append's row was written by its commit, under the request id the client sent.
  Reply audit = Get(port_, "/v1/audit?workspace=fw&limit=1000", owner_);
  ASSERT_EQ(audit.status, 200) << audit;
  std::multiset<std::string> seen;
  bool append_row = false;
  for (const auto& rec : audit.json["records"]) {
    // Everything but the writer's refused attempt to mint an owner token was the owner's.
    EXPECT_EQ(rec["actor"], rec["outcome"] == "permission_denied" ? wid : owner_id_) << rec;
    seen.insert(rec["action"].get<std::string>() + "=" + rec["outcome"].get<std::string>());
    if (rec["request_id"] == "append-req-1") {
      // The sample append carries no receipt: it lands with a missing_receipt row beside it.
      if (rec["action"] == "dataset.append") {
        append_row = true;
      } else {
        EXPECT_EQ(rec["action"], "dataset.missing_receipt") << rec;
      }
      EXPECT_EQ(rec["target"], "fw.c.d");
    }
  }
  EXPECT_TRUE(append_row) << audit;
  for (const char* want : {"workspace.create=ok",
                           "workspace.create=already_exists",
                           "workspace.set_properties=ok",
                           "collection.create=ok",
                           "collection.drop=ok",
                           "dataset.create=ok",
                           "dataset.append=ok",
                           "dataset.overwrite=ok",
                           "dataset.rollback=ok",
                           "tag.create=ok",
                           "tag.create=already_exists",
                           "tag.drop=ok",
                           "offset.commit=ok",
                           "offset.commit=offset_regression",
                           "dataset.delete_rows=ok",
                           "dataset.add_files=ok",
                           "dataset.delete_files=ok",
                           "dataset.delete_files=commit_conflict",
                           "dataset.set_properties=ok",
                           "dataset.alter_schema=ok",
                           "dataset.set_partition=ok",
                           "dataset.set_sort=ok",
                           "dataset.rename=ok",
                           "dataset.expire=ok",
                           "dataset.drop=ok",
                           "workspace.drop=deletion_protected",
                           "token.create=permission_denied",
                           "token.create=ok",
                           "token.revoke=ok"}) {
    EXPECT_TRUE(seen.count(want)) << "no audit row " << want << " in " << audit.json.dump();
  }
  EXPECT_EQ(seen.count("dataset.delete_files=ok"), 2u);  // the idempotent replay too
  // The replay's row (written by the server, not the commit) says so.
  int replays = 0;
  for (const auto& rec : audit.json["records"]) {
    if (rec["detail"].is_object() && rec["detail"].value("idempotent_replay", false)) {
      ++replays;
      EXPECT_EQ(rec["action"], "dataset.delete_files") << rec;
      EXPECT_EQ(rec["detail"]["snapshot_ids"].size(), 1u) << rec;
    }
  }
  EXPECT_EQ(replays, 1);

  // The log has one line per request and one per audited mutation.
  int requests = 0, audits = 0;
  for (const auto& l : logs_.Parsed()) {
    ASSERT_TRUE(l.is_object());
    if (l["type"] == "request") {
      ++requests;
      EXPECT_TRUE(l.contains("duration_ms") && l.contains("bytes_in") && l.contains("bytes_out"));
      if (l["request_id"] == "append-req-1") {
        EXPECT_EQ(l["route"], "/v1/workspaces/{ws}/collections/{coll}/datasets/{ds}/append");
        EXPECT_EQ(l["status"], 200);
        EXPECT_EQ(l["actor"], owner_id_);
        EXPECT_EQ(l["bytes_in"], static_cast<int64_t>(body.size()));
      }
    } else if (l["type"] == "audit") {
      ++audits;
    }
  }
  EXPECT_GT(requests, 60);
  EXPECT_GE(audits, 28);
}

TEST_P(ServeFlow, AppendStreamsWithoutALengthAndRejectsBrokenStreams) {
  Schema schema;
  ASSERT_NO_FATAL_FAILURE(CreateDataset(&schema));

  // Chunked: frames arrive in pieces that split headers and payloads.
  std::vector<RecordBatch> batches;
  for (int i = 0; i < 20; ++i) {
    batches.push_back(MakeBatch(schema, {{std::to_string(i), "v" + std::to_string(i)}}));
  }
  std::string body = AppendBody(Json::object(), batches);
  httplib::Client cli("127.0.0.1", port_);
  size_t sent = 0;
  auto res = cli.Post((kD + "/append").c_str(), {{"Authorization", "Bearer " + owner_}},
                      [&](size_t, httplib::DataSink& sink) {
                        size_t n = std::min<size_t>(7, body.size() - sent);
                        sink.write(body.data() + sent, n);
                        sent += n;
                        if (sent == body.size()) sink.done();
                        return true;
                      },
                      "application/vnd.tarn.frames");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(ScanRows("").size(), 20u);

  auto append = [&](const std::string& b) {
    return Send(port_, {"POST", kD + "/append", b, "application/vnd.tarn.frames", owner_, {}});
  };
  std::string meta = api::EncodeFrame(api::FrameKind::kMeta, "{}");
  std::string batch = *api::EncodeBatchFrame(MakeBatch(schema, {{"100", "x"}}));
  std::string end = api::EncodeFrame(api::FrameKind::kEnd, "");
  struct Case {
    std::string body;
    int status;
    std::string code;
  };
  std::vector<Case> cases = {
      {"", 422, "bad_frame"},                                                   // no frames at all
      {batch + end, 422, "bad_frame"},                                          // no meta first
      {meta + batch, 400, "incomplete_body"},                                   // no E
      {meta + batch.substr(0, batch.size() - 3), 400, "incomplete_body"},       // cut in a frame
      {meta + batch + end + batch, 422, "bad_frame"},                           // a frame after E
      {meta + meta + end, 422, "bad_frame"},                                    // a second M
      {meta + std::string("\x03\x00\x00\x00Qabc", 8) + end, 422, "bad_frame"},  // unknown kind
      {meta + api::EncodeFrame(api::FrameKind::kParquet, "not parquet") + end, 422, ""},
      {api::EncodeFrame(api::FrameKind::kMeta, "{bad") + end, 400, "malformed_json"},
      {meta + api::EncodeFrame(api::FrameKind::kError,
                               api::Dump(api::ErrorBody(Status::InvalidArgument("client said")))),
       422, ""},
  };
  for (const auto& c : cases) {
    Reply r = append(c.body);
    EXPECT_EQ(r.status, c.status) << api::Dump(Json(c.body.substr(0, 40))) << ": " << r;
    if (!c.code.empty()) {
      EXPECT_EQ(r.Code(), c.code) << r;
    }
  }
  EXPECT_EQ(ScanRows("").size(), 20u);  // nothing committed by the broken streams
  // A batch that does not fit the dataset's schema.
  Schema wrong = *Schema::Parse("other DATE");
  Reply bad_schema =
      append(AppendBody(Json::object(), Batches(MakeBatch(wrong, {{"2024-01-01"}}))));
  EXPECT_EQ(bad_schema.status / 100, 4) << bad_schema;
  // A failure after the status line: the scan ends with an X frame instead of E.
  Reply plan = Get(port_, kD + "/plan", owner_);
  ASSERT_EQ(plan.status, 200);
  Json first = Json::parse(plan.body.substr(0, plan.body.find('\n')));
  ASSERT_OK(cat_->warehouse().Delete(first["file"]["path"].get<std::string>()));
  Reply broken = Get(port_, kD + "/scan", owner_);
  EXPECT_EQ(broken.status, 200);
  api::FrameParser parser;
  ASSERT_OK(parser.Feed(broken.body));
  std::optional<std::pair<api::FrameKind, std::string>> last;
  while (auto f = parser.Next()) last = std::move(f);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->first, api::FrameKind::kError);
  Status trailer = api::StatusFromErrorBody(200, last->second);
  EXPECT_FALSE(trailer.ok());
  EXPECT_EQ(trailer.kind(), ErrorKind::kNotFound) << trailer.ToString();

  auto post = [&](const std::string& query, const std::string& b) {
    return Send(port_,
                {"POST", kD + "/append" + query, b, "application/vnd.tarn.frames", owner_, {}});
  };
  EXPECT_EQ(post("?operation=upsert", meta + batch + end).Code(), "invalid_parameter");
  // A merge (Client::ReplaceWhere) needs its W frame right after M; a W elsewhere is refused.
  std::string where = api::EncodeFrame(api::FrameKind::kWhere, "id = 100");
  EXPECT_EQ(post("?operation=merge", meta + batch + end).Code(), "bad_frame");
  EXPECT_EQ(post("", meta + where + batch + end).Code(), "bad_frame");
  EXPECT_EQ(post("?operation=merge", meta + where + where + batch + end).Code(), "bad_frame");
  EXPECT_EQ(post("?operation=merge",
                 meta + api::EncodeFrame(api::FrameKind::kWhere, "id >") + batch + end)
                .status,
            422);
}

TEST_P(ServeFlow, MergeAppendsAndDeletesInOneSnapshot) {
  Schema schema;
  ASSERT_NO_FATAL_FAILURE(CreateDataset(&schema));
  auto post = [&](const std::string& query, const std::string& b) {
    return Send(port_,
                {"POST", kD + "/append" + query, b, "application/vnd.tarn.frames", owner_, {}});
  };
  std::string meta = api::EncodeFrame(api::FrameKind::kMeta, "{}");
  std::string end = api::EncodeFrame(api::FrameKind::kEnd, "");
  ASSERT_EQ(
      post("", meta + *api::EncodeBatchFrame(MakeBatch(schema, {{"1", "a"}, {"2", "b"}})) + end)
          .status,
      200);
  Reply r =
      post("?operation=merge", meta + api::EncodeFrame(api::FrameKind::kWhere, "id = 2") +
                                   *api::EncodeBatchFrame(MakeBatch(schema, {{"2", "B"}})) + end);
  ASSERT_EQ(r.status, 200) << r;
  EXPECT_EQ(r.json["operation"], "merge");
  EXPECT_EQ(r.json["added_records"], 1);
  EXPECT_EQ(r.json["deleted_records"], 1);
  EXPECT_EQ(ScanRows(""), (std::vector<std::string>{"1:a", "2:B"}));
}

INSTANTIATE_TEST_SUITE_P(Backends, ServeFlow, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace tarn::server::testing

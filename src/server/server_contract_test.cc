// The upload service over HTTP (docs/design/upload.md "HTTP"): the whole flow through
// RemoteUploads against an in-process server, every error code with its HTTP status and fields
// (and the same Status back through the remote client), access control on the contract's
// target, part encodings, the sweeper, and reattaching to a contract on a restarted server.
// SQLite, and PostgreSQL under tests/run_with_pg.sh.
#include <chrono>
#include <fstream>

#include "api/contract_wire.h"
#include "catalog/test_fixture.h"
#include "client/remote_client.h"
#include "common/compression.h"
#include "common/test_util.h"
#include "server/test_util.h"
#include "tarn/upload.h"

namespace tarn::server::testing {
namespace {

std::string Compressed(CompressionCodec codec, const std::string& raw) {
  ByteBuffer out;
  EXPECT_TRUE(Compress(codec, reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), &out).ok());
  return std::string(out.begin(), out.end());
}

std::string Csv(int first, int n) {
  std::string csv = "id,v\n";
  for (int i = first; i < first + n; ++i)
    csv += std::to_string(i) + ",row " + std::to_string(i) + "\n";
  return csv;
}

// Expects `raw` (an HTTP error reply) and `st` (what RemoteUploads returned for the same
// request) to be the same error: kind, message, code and every field.
void ExpectSameError(const Reply& raw, const Status& st) {
  ASSERT_FALSE(st.ok()) << raw;
  Status wire = api::StatusFromErrorBody(raw.status, raw.body);
  EXPECT_EQ(st.kind(), wire.kind()) << st.ToString() << " vs " << raw;
  EXPECT_EQ(st.message(), wire.message());
  EXPECT_EQ(st.fields(), wire.fields()) << st.ToString() << " vs " << raw;
  EXPECT_EQ(HttpStatusFor(st), raw.status) << st.ToString();
}

class ServeUploads : public CatalogBackendTest {
 protected:
  // The server's catalog runs on a clock the tests can move ahead.
  ServeUploads() { clock_ = test_clock_; }

  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("acme"));
    ASSERT_OK(cat_->CreateWorkspace("other"));
    ASSERT_OK(cat_->CreateCollection("acme.sec"));
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64 NOT NULL, v VARCHAR");
    ASSERT_TRUE(cat_->CreateDataset("acme.sec.typed", def).ok());
    StartServer();
    writer_ = Creds("acme", Role::kWriter);
    writer_bearer_ = Exchange(port_, writer_.client_id, writer_.client_secret);
    uploads_ = UploadsAs(writer_);
    ASSERT_NE(uploads_, nullptr);
  }
  void TearDown() override {
    uploads_.reset();
    server_.reset();
    CatalogBackendTest::TearDown();
  }

  void StartServer(double sweep_interval_s = 60) {
    server_.reset();
    // The server shares the fixture's catalog; it is stopped before the fixture drops it.
    std::shared_ptr<Catalog> shared(cat_.get(), [](Catalog*) {});
    ServerOptions o;
    o.port = 0;
    o.log_sink = logs_.Sink();
    o.contract_sweep_interval_s = sweep_interval_s;
    auto s = Server::Make(shared, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    ASSERT_OK(server_->Start());
    port_ = server_->port();
  }

  ClientOptions Creds(const std::string& ws, Role role) {
    AccessTokenSpec spec;
    spec.workspace = ws;
    spec.role = role;
    auto t = cat_->CreateAccessToken(spec, "test");
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    ClientOptions o;
    if (!t.ok()) return o;
    o.client_id = t->info.client_id;
    o.client_secret = t->client_secret;
    return o;
  }

  std::unique_ptr<Uploads> UploadsAs(const ClientOptions& o) {
    auto c = client::RemoteClient::Connect("http://127.0.0.1:" + std::to_string(port_), o);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (!c.ok()) return nullptr;
    std::shared_ptr<Client> shared(std::move(*c));
    auto u = Uploads::For(shared);
    EXPECT_TRUE(u.ok()) << u.status().ToString();
    return u.ok() ? std::move(*u) : nullptr;
  }

  std::string WriteFile(const std::string& name, const std::string& bytes) {
    std::filesystem::create_directories(dir_ / "files");
    std::string path = (dir_ / "files" / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  static NegotiateRequest Request(const std::string& target, SchemaSource source,
                                  const std::vector<std::pair<std::string, std::string>>& files) {
    NegotiateRequest req;
    req.target = target;
    req.schema = std::move(source);
    for (const auto& [name, bytes] : files) {
      auto s = SampleBytes(name, bytes);
      EXPECT_TRUE(s.ok()) << s.status().ToString();
      if (s.ok()) req.samples.push_back(std::move(*s));
    }
    return req;
  }

  // An accepted contract onto acme.sec.typed.
  Contract AcceptedTyped() {
    auto c = uploads_->Negotiate(
        Request("acme.sec.typed", SchemaSource::OfDataset(), {{"s.csv", Csv(1, 2)}}));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (!c.ok()) return {};
    EXPECT_EQ(c->state, ContractState::kAccepted);
    return *c;
  }

  Reply Negotiate(const NegotiateRequest& req, const std::string& bearer) {
    return SendJson(port_, "POST", "/v1/contracts", api::ToJson(req), bearer);
  }
  Reply Post(const std::string& id, const std::string& what, const Json& body) {
    return SendJson(port_, "POST", "/v1/contracts/" + id + "/" + what, body, writer_bearer_);
  }
  Reply PutPart(const std::string& id, const std::string& name, const std::string& body,
                const std::string& bearer, httplib::Headers headers = {},
                const std::string& query = "") {
    return Send(port_, {"PUT", "/v1/contracts/" + id + "/parts/" + name + query, body,
                        "application/octet-stream", bearer, std::move(headers)});
  }

  int64_t Rows(const std::string& dataset) {
    int64_t n = 0;
    Status st = cat_->Scan(dataset, {}, "", false, [&](const RecordBatch& b) {
      n += b.num_rows;
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return n;
  }

  std::vector<AuditRecord> Audit(const std::string& action_prefix) {
    AuditQuery q;
    q.workspace = "acme";
    auto all = cat_->ListAudit(q);
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    std::vector<AuditRecord> out;
    for (const auto& r : all.ok() ? *all : std::vector<AuditRecord>{}) {
      if (r.action.rfind(action_prefix, 0) == 0) out.push_back(r);
    }
    return out;
  }

  std::shared_ptr<ManualClock> test_clock_ =
      std::make_shared<ManualClock>(ManualClock::Flow::kRunning);
  LogCapture logs_;
  std::unique_ptr<Server> server_;
  int port_ = 0;
  ClientOptions writer_;
  std::string writer_bearer_;
  std::unique_ptr<Uploads> uploads_;
};

TEST_P(ServeUploads, TheWholeFlowThroughRemoteUploads) {
  std::string a = WriteFile("findings.csv", "id,severity\n1,high\n2,low\n");
  std::string gz = Compressed(CompressionCodec::kGzip, "id,severity\n3,medium\n");
  std::string b = WriteFile("more.csv.gz", gz);

  NegotiateRequest req;
  req.target = "acme.sec.findings";
  req.schema = SchemaSource::Auto();
  req.samples = {*SampleFile(a), *SampleFile(b)};
  auto c = uploads_->Negotiate(req);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->state, ContractState::kProposed);
  EXPECT_EQ(c->schema_source, "inferred");
  EXPECT_EQ(c->mode, SchemaMode::kCreate);
  EXPECT_EQ(c->created_by, writer_.client_id);  // the server acts as the caller
  ASSERT_EQ(c->plan.size(), 2u);
  EXPECT_EQ(c->plan[0].column, "id");
  ASSERT_EQ(c->files.size(), 2u);
  EXPECT_EQ(c->files[1].compression, "gzip");
  EXPECT_FALSE(c->blocking());

  auto again = uploads_->GetContract(c->id);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->fingerprint, c->fingerprint);

  auto accepted = uploads_->Accept(c->id, c->fingerprint);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
  EXPECT_EQ(accepted->state, ContractState::kAccepted);

  std::vector<std::pair<int64_t, int64_t>> progress;
  auto w1 = uploads_->Write(
      c->id, a, [&](int64_t done, int64_t total) { progress.emplace_back(done, total); });
  ASSERT_TRUE(w1.ok()) << w1.status().ToString();
  EXPECT_EQ(w1->contract_id, c->id);
  EXPECT_EQ(w1->part.seq, 1);
  EXPECT_EQ(w1->part.name, "findings.csv");
  EXPECT_EQ(w1->part.rows, 2);
  ASSERT_FALSE(progress.empty());
  const int64_t size_a = static_cast<int64_t>(std::filesystem::file_size(a));
  EXPECT_EQ(progress.back(), std::make_pair(size_a, size_a));

  auto w2 = uploads_->Write(c->id, b);
  ASSERT_TRUE(w2.ok()) << w2.status().ToString();
  EXPECT_EQ(w2->part.seq, 2);
  EXPECT_EQ(w2->part.rows, 1);
  EXPECT_EQ(w2->part.bytes_read, static_cast<int64_t>(gz.size()));  // as sent: compressed

  auto w3 = uploads_->WriteBytes(c->id, "extra.ndjson", "{\"id\":4,\"severity\":\"none\"}\n");
  ASSERT_TRUE(w3.ok()) << w3.status().ToString();
  EXPECT_EQ(w3->part.rows, 1);

  auto writing = uploads_->GetContract(c->id);
  ASSERT_TRUE(writing.ok());
  EXPECT_EQ(writing->state, ContractState::kWriting);
  EXPECT_EQ(writing->parts.size(), 3u);
  EXPECT_EQ(writing->rows_written, 4);

  CommitRequest commit;
  commit.message = "nightly";
  commit.idempotency_key = "key-1";
  auto done = uploads_->CommitContract(c->id, commit);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_GT(done->snapshot_id, 0);
  EXPECT_EQ(done->rows_written, 4);
  EXPECT_TRUE(done->created_dataset);
  EXPECT_FALSE(done->idempotent_replay);
  EXPECT_EQ(Rows("acme.sec.findings"), 4);

  auto replay = uploads_->CommitContract(c->id, commit);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_TRUE(replay->idempotent_replay);
  EXPECT_EQ(replay->snapshot_id, done->snapshot_id);
  auto twice = uploads_->CommitContract(c->id, CommitRequest{});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(UploadErrorOf(twice.status()), UploadErrorCode::kAlreadyCommitted);
  EXPECT_EQ(ErrorField(twice.status(), "snapshot_id"), std::to_string(done->snapshot_id));
  EXPECT_EQ(Rows("acme.sec.findings"), 4);

  auto committed = uploads_->GetContract(c->id);
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(committed->state, ContractState::kCommitted);
  ASSERT_TRUE(committed->committed.has_value());
  EXPECT_EQ(committed->committed->snapshot_id, done->snapshot_id);
  EXPECT_EQ(UploadErrorOf(uploads_->Abandon(c->id)), UploadErrorCode::kAlreadyCommitted);

  // One audit row per mutation, named after the dataset, acting as the caller.
  std::map<std::string, int> actions;
  for (const auto& r : Audit("contract.")) {
    EXPECT_EQ(r.actor, writer_.client_id) << r.action;
    EXPECT_EQ(r.target, "acme.sec.findings") << r.action;
    if (r.outcome == "ok") ++actions[r.action];
    if (r.action == "contract.commit" && r.outcome == "ok") {
      auto detail = Json::parse(r.detail_json);
      EXPECT_EQ(detail["contract_id"], c->id);
      EXPECT_EQ(detail["snapshot_id"], done->snapshot_id);
    }
    if ((r.action == "contract.negotiate" || r.action == "contract.accept") && r.outcome == "ok") {
      // The contract's state as its wire string (an enum in the SDK, never its number).
      EXPECT_EQ(Json::parse(r.detail_json)["state"],
                r.action == "contract.negotiate" ? "proposed" : "accepted")
          << r.action;
    }
  }
  EXPECT_EQ(actions["contract.negotiate"], 1);
  EXPECT_EQ(actions["contract.accept"], 1);
  EXPECT_EQ(actions["contract.write"], 3);
  EXPECT_EQ(actions["contract.commit"], 2);  // the commit and its replay
  bool refused_commit = false;
  for (const auto& r : Audit("contract.commit")) refused_commit |= r.outcome == "already_committed";
  EXPECT_TRUE(refused_commit);

  // The snapshot's author is the caller.
  auto snaps = cat_->ListSnapshots("acme.sec.findings");
  ASSERT_TRUE(snaps.ok());
  ASSERT_EQ(snaps->size(), 1u);
  EXPECT_EQ(snaps->back().author, writer_.client_id);
}

TEST_P(ServeUploads, EachRequestActsAsItsCallerAndSamplesAreChecked) {
  ClientOptions other = Creds("acme", Role::kWriter);
  auto second = UploadsAs(other);
  ASSERT_NE(second, nullptr);
  const std::string csv = "id,v\nx1,a\n2,b\n";
  auto c = second->Negotiate(Request("acme.sec.who",
                                     SchemaSource::Declared({{"id", "INT64"}, {"v", "VARCHAR"}}),
                                     {{"a.csv", csv}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->created_by, other.client_id);
  // The sample value a write would refuse is a blocking issue, its fields carried over HTTP.
  ASSERT_TRUE(c->blocking());
  ASSERT_EQ(c->issues.size(), 1u);
  EXPECT_EQ(c->issues[0].code, "value_not_castable");
  EXPECT_EQ(c->issues[0].column, "id");
  EXPECT_EQ(c->issues[0].fields.at("row"), "1");
  EXPECT_EQ(c->issues[0].fields.at("value"), "x1");
  EXPECT_EQ(c->issues[0].fields.at("declared"), "INT64");
  auto refused = uploads_->Accept(c->id, c->fingerprint);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(UploadErrorOf(refused.status()), UploadErrorCode::kValueNotCastable);
  EXPECT_EQ(ErrorField(refused.status(), "row"), "1");
  EXPECT_EQ(ErrorField(refused.status(), "value"), "x1");
  // Another caller retypes (the server reads the kept sample again), accepts and writes; the
  // first commits and is the snapshot's author.
  auto r = uploads_->Retype(c->id, {{"id", "VARCHAR"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->blocking());
  ASSERT_TRUE(uploads_->Accept(c->id, r->fingerprint).ok());
  ASSERT_TRUE(uploads_->WriteBytes(c->id, "a.csv", csv).ok());
  auto done = second->CommitContract(c->id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  auto snaps = cat_->ListSnapshots("acme.sec.who");
  ASSERT_TRUE(snaps.ok());
  ASSERT_EQ(snaps->size(), 1u);
  EXPECT_EQ(snaps->back().author, other.client_id);
  EXPECT_EQ(uploads_->GetContract(c->id)->created_by, other.client_id);
}

TEST_P(ServeUploads, AbandonAnsweredNoContent) {
  Contract c = AcceptedTyped();
  Reply del = Send(port_, {"DELETE", "/v1/contracts/" + c.id, "", "", writer_bearer_, {}});
  EXPECT_EQ(del.status, 204) << del;
  EXPECT_EQ(del.body, "");
  auto gone = uploads_->GetContract(c.id);
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->state, ContractState::kAbandoned);
  EXPECT_TRUE(uploads_->Abandon(c.id).ok());  // abandoning again is fine
}

TEST_P(ServeUploads, EveryErrorCodeWithItsHttpStatusAndFields) {
  // schema_source_required: 422.
  NegotiateRequest none = Request("acme.sec.x", SchemaSource{}, {{"s.csv", Csv(1, 1)}});
  Reply r = Negotiate(none, writer_bearer_);
  EXPECT_EQ(r.status, 422) << r;
  EXPECT_EQ(r.Code(), "schema_source_required");
  ExpectSameError(r, uploads_->Negotiate(none).status());

  // format_unreadable (file, row): 422.
  NegotiateRequest bin = Request("acme.sec.x", SchemaSource::Inferred(), {{"s.csv", Csv(1, 1)}});
  bin.samples[0].name = "s.bin";
  r = Negotiate(bin, writer_bearer_);
  EXPECT_EQ(r.status, 422) << r;
  EXPECT_EQ(r.Code(), "format_unreadable");
  EXPECT_EQ(r.ErrorField("file"), "s.bin");
  EXPECT_NE(r.ErrorField("row"), "");
  ExpectSameError(r, uploads_->Negotiate(bin).status());

  // dataset_exists (dataset): 409.
  NegotiateRequest declared =
      Request("acme.sec.typed", SchemaSource::Declared({{"id", "INT64"}, {"v", "VARCHAR"}}),
              {{"s.csv", Csv(1, 1)}});
  r = Negotiate(declared, writer_bearer_);
  EXPECT_EQ(r.status, 409) << r;
  EXPECT_EQ(r.Code(), "dataset_exists");
  EXPECT_NE(r.ErrorField("dataset"), "");
  ExpectSameError(r, uploads_->Negotiate(declared).status());

  // contract_not_found (contract_id): 404; an id that is not even an identifier too.
  const std::string missing = "ct_20000101000000_000000000000";
  r = Get(port_, "/v1/contracts/" + missing, writer_bearer_);
  EXPECT_EQ(r.status, 404) << r;
  EXPECT_EQ(r.Code(), "contract_not_found");
  EXPECT_EQ(r.ErrorField("contract_id"), missing);
  ExpectSameError(r, uploads_->GetContract(missing).status());
  EXPECT_EQ(UploadErrorOf(uploads_->GetContract("no/such id").status()),
            UploadErrorCode::kContractNotFound);

  // proposal_changed (fingerprint, the current one): 409.
  Contract typed = AcceptedTyped();
  r = Post(typed.id, "accept", api::AcceptBody("0000"));
  EXPECT_EQ(r.status, 409) << r;
  EXPECT_EQ(r.Code(), "proposal_changed");
  EXPECT_EQ(r.ErrorField("fingerprint"), typed.fingerprint);
  ExpectSameError(r, uploads_->Accept(typed.id, "0000").status());

  // value_not_castable (column, row, value, declared): 422, and the write stages nothing.
  const std::string bad = "id,v\n1,a\nabc,b\n";
  r = PutPart(typed.id, "bad.csv", bad, writer_bearer_);
  EXPECT_EQ(r.status, 422) << r;
  EXPECT_EQ(r.Code(), "value_not_castable");
  EXPECT_EQ(r.ErrorField("column"), "id");
  EXPECT_EQ(r.ErrorField("value"), "abc");
  EXPECT_EQ(r.ErrorField("declared"), "INT64");
  EXPECT_NE(r.ErrorField("row"), "");
  ExpectSameError(r, uploads_->WriteBytes(typed.id, "bad.csv", bad).status());
  EXPECT_EQ(uploads_->GetContract(typed.id)->parts.size(), 0u);

  // contract_stale (diff, written_rows): 409 once the dataset moved.
  ASSERT_TRUE(uploads_->WriteBytes(typed.id, "good.csv", Csv(10, 3)).ok());
  SchemaChange add;
  add.kind = SchemaChange::Kind::kAddColumn;
  add.column = "w";
  add.type = *DataType::Parse("INT64");
  ASSERT_TRUE(cat_->AlterSchema("acme.sec.typed", {add}).ok());
  r = PutPart(typed.id, "more.csv", Csv(20, 1), writer_bearer_);
  EXPECT_EQ(r.status, 409) << r;
  EXPECT_EQ(r.Code(), "contract_stale");
  EXPECT_NE(r.ErrorField("diff"), "");
  EXPECT_EQ(r.ErrorField("written_rows"), "3");
  Status stale = uploads_->CommitContract(typed.id, {}).status();
  EXPECT_EQ(UploadErrorOf(stale), UploadErrorCode::kContractStale) << stale.ToString();
  EXPECT_EQ(HttpStatusFor(stale), 409);

  // already_committed (snapshot_id): 409.
  Contract again = AcceptedTyped();
  ASSERT_TRUE(uploads_->WriteBytes(again.id, "p.csv", "id,v,w\n1,a,2\n").ok());
  auto first = uploads_->CommitContract(again.id, {});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  r = Post(again.id, "commit", Json::object());
  EXPECT_EQ(r.status, 409) << r;
  EXPECT_EQ(r.Code(), "already_committed");
  EXPECT_EQ(r.ErrorField("snapshot_id"), std::to_string(first->snapshot_id));
  ExpectSameError(r, uploads_->CommitContract(again.id, {}).status());

  // contract_not_accepted (state): 409 for a write before accept.
  auto proposed = uploads_->Negotiate(
      Request("acme.sec.fresh", SchemaSource::Inferred(), {{"s.csv", Csv(1, 2)}}));
  ASSERT_TRUE(proposed.ok()) << proposed.status().ToString();
  ASSERT_EQ(proposed->state, ContractState::kProposed);
  r = PutPart(proposed->id, "p.csv", Csv(1, 2), writer_bearer_);
  EXPECT_EQ(r.status, 409) << r;
  EXPECT_EQ(r.Code(), "contract_not_accepted");
  EXPECT_EQ(r.ErrorField("state"), "proposed");
  ExpectSameError(r, uploads_->WriteBytes(proposed->id, "p.csv", Csv(1, 2)).status());

  // column_undeclared / column_missing (column): 422 at accept while the issue blocks.
  auto extra = uploads_->Negotiate(
      Request("acme.sec.typed", SchemaSource::OfDataset(), {{"s.csv", "id,v,w,z\n1,a,2,3\n"}}));
  ASSERT_TRUE(extra.ok()) << extra.status().ToString();
  EXPECT_TRUE(extra->blocking());
  r = Post(extra->id, "accept", api::AcceptBody(extra->fingerprint));
  EXPECT_EQ(r.status, 422) << r;
  EXPECT_EQ(r.Code(), "column_undeclared");
  EXPECT_EQ(r.ErrorField("column"), "z");
  ExpectSameError(r, uploads_->Accept(extra->id, extra->fingerprint).status());
  auto lacking = uploads_->Negotiate(
      Request("acme.sec.typed", SchemaSource::OfDataset(), {{"s.csv", "v\na\n"}}));
  ASSERT_TRUE(lacking.ok()) << lacking.status().ToString();
  r = Post(lacking->id, "accept", api::AcceptBody(lacking->fingerprint));
  EXPECT_EQ(r.status, 422) << r;
  EXPECT_EQ(r.Code(), "column_missing");
  EXPECT_EQ(r.ErrorField("column"), "id");

  // sources_disagree (column, files): 422 for types that do not unify.
  auto disagree =
      uploads_->Negotiate(Request("acme.sec.mixed", SchemaSource::Inferred(),
                                  {{"a.csv", "a,b\n1,2\n"}, {"b.csv", "a,b\n1,true\n"}}));
  ASSERT_TRUE(disagree.ok()) << disagree.status().ToString();
  r = Post(disagree->id, "accept", api::AcceptBody(disagree->fingerprint));
  EXPECT_EQ(r.status, 422) << r;
  EXPECT_EQ(r.Code(), "sources_disagree");
  EXPECT_EQ(r.ErrorField("column"), "b");
  EXPECT_NE(r.ErrorField("files"), "");

  // contract_expired (expired_at): 410.
  NegotiateRequest brief =
      Request("acme.sec.brief", SchemaSource::Inferred(), {{"s.csv", Csv(1, 1)}});
  brief.ttl_s = 1;
  auto short_lived = uploads_->Negotiate(brief);
  ASSERT_TRUE(short_lived.ok()) << short_lived.status().ToString();
  test_clock_->Advance(std::chrono::milliseconds(2100));
  r = Post(short_lived->id, "accept", api::AcceptBody(short_lived->fingerprint));
  EXPECT_EQ(r.status, 410) << r;
  EXPECT_EQ(r.Code(), "contract_expired");
  EXPECT_NE(r.ErrorField("expired_at"), "");
  ExpectSameError(r, uploads_->Accept(short_lived->id, short_lived->fingerprint).status());

  // Malformed bodies keep the wire codec's codes.
  r = Post(typed.id, "retype", Json{{"types", {{"v", 1}}}});
  EXPECT_EQ(r.status, 422) << r;
  EXPECT_EQ(r.Code(), "wrong_type");
  EXPECT_EQ(r.ErrorField("field"), "/types/v");
  r = PutPart(typed.id, "x.csv", "id\n1\n", writer_bearer_, {}, "?encoding=lz4");
  EXPECT_EQ(r.status, 422) << r;
  EXPECT_EQ(r.Code(), "invalid_parameter");
  EXPECT_EQ(r.ErrorField("field"), "encoding");
}

TEST_P(ServeUploads, AuthorizationIsAgainstTheContractsTarget) {
  Contract c = AcceptedTyped();
  ClientOptions reader = Creds("acme", Role::kReader);
  ClientOptions stranger = Creds("other", Role::kOwner);
  std::string reader_bearer = Exchange(port_, reader.client_id, reader.client_secret);
  std::string stranger_bearer = Exchange(port_, stranger.client_id, stranger.client_secret);

  // A reader may look, not write.
  Reply got = Get(port_, "/v1/contracts/" + c.id, reader_bearer);
  EXPECT_EQ(got.status, 200) << got;
  EXPECT_EQ(got.json["id"], c.id);
  auto reader_uploads = UploadsAs(reader);
  ASSERT_NE(reader_uploads, nullptr);
  EXPECT_TRUE(reader_uploads->GetContract(c.id).ok());
  Reply put = PutPart(c.id, "p.csv", Csv(1, 1), reader_bearer);
  EXPECT_EQ(put.status, 403) << put;
  EXPECT_EQ(put.Code(), "not_authorized");
  EXPECT_EQ(put.ErrorField("kind"), "permission_denied");
  Status st = reader_uploads->WriteBytes(c.id, "p.csv", Csv(1, 1)).status();
  EXPECT_EQ(UploadErrorOf(st), UploadErrorCode::kNotAuthorized) << st.ToString();
  EXPECT_EQ(ExitCodeFor(st), 5);
  EXPECT_EQ(UploadErrorOf(reader_uploads->CommitContract(c.id, {}).status()),
            UploadErrorCode::kNotAuthorized);
  EXPECT_EQ(UploadErrorOf(reader_uploads->Abandon(c.id)), UploadErrorCode::kNotAuthorized);
  EXPECT_EQ(UploadErrorOf(reader_uploads
                              ->Negotiate(Request("acme.sec.typed", SchemaSource::OfDataset(),
                                                  {{"s.csv", Csv(1, 1)}}))
                              .status()),
            UploadErrorCode::kNotAuthorized);

  // Another workspace's token may do nothing with it, reading included.
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", ""}, {"DELETE", ""}, {"POST", "/accept"}, {"POST", "/commit"}}) {
    Reply r = Send(port_, {method,
                           "/v1/contracts/" + c.id + path,
                           method == "POST" ? "{}" : "",
                           "application/json",
                           stranger_bearer,
                           {}});
    EXPECT_EQ(r.status, 403) << method << path << ": " << r;
    EXPECT_EQ(r.Code(), "not_authorized") << r;
    // The refusal does not name the target the stranger may not see (issue 14).
    EXPECT_EQ(r.body.find("acme"), std::string::npos) << r;
    EXPECT_EQ(r.body.find("sec.typed"), std::string::npos) << r;
  }
  Reply neg =
      Negotiate(Request("acme.sec.typed", SchemaSource::OfDataset(), {{"s.csv", Csv(1, 1)}}),
                stranger_bearer);
  EXPECT_EQ(neg.status, 403) << neg;
  EXPECT_EQ(neg.Code(), "not_authorized");
  EXPECT_EQ(PutPart(c.id, "p.csv", Csv(1, 1), stranger_bearer).status, 403);

  // Nothing was written by the refused calls; the refusals are audited.
  EXPECT_EQ(uploads_->GetContract(c.id)->state, ContractState::kAccepted);
  int refused = 0;
  for (const auto& r : Audit("contract.")) refused += r.outcome == "not_authorized";
  EXPECT_GE(refused, 4);
}

TEST_P(ServeUploads, PartEncodingsAreDecodedOnce) {
  Contract c = AcceptedTyped();
  const std::string csv = Csv(100, 50);
  // Content-Encoding gzip: the service decodes it once; the .gz suffix is not applied again.
  Reply r = PutPart(c.id, "a.csv.gz", Compressed(CompressionCodec::kGzip, csv), writer_bearer_,
                    {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(r.status, 200) << r;
  EXPECT_EQ(r.json["part"]["rows"], 50);
  // zstd the same way.
  r = PutPart(c.id, "b.csv", Compressed(CompressionCodec::kZstd, csv), writer_bearer_,
              {{"Content-Encoding", "zstd"}});
  EXPECT_EQ(r.status, 200) << r;
  EXPECT_EQ(r.json["part"]["rows"], 50);
  // The encoding parameter, over a name without a suffix.
  r = PutPart(c.id, "c.csv", Compressed(CompressionCodec::kBrotli, csv), writer_bearer_, {},
              "?encoding=br");
  EXPECT_EQ(r.status, 200) << r;
  EXPECT_EQ(r.json["part"]["rows"], 50);
  // The name's suffix alone.
  r = PutPart(c.id, "d.csv.zst", Compressed(CompressionCodec::kZstd, csv), writer_bearer_);
  EXPECT_EQ(r.status, 200) << r;
  // A codec nobody speaks.
  r = PutPart(c.id, "e.csv", csv, writer_bearer_, {{"Content-Encoding", "compress"}});
  EXPECT_EQ(r.status, 415) << r;
  EXPECT_EQ(r.Code(), "unsupported_media_type");

  // A large part streamed chunked (no Content-Length): bounded by the pump, not by the body.
  const std::string big = Csv(1000, 150000);
  ASSERT_GT(big.size(), 2u << 20);
  httplib::Client cli("127.0.0.1", port_);
  cli.set_read_timeout(60, 0);
  size_t sent = 0;
  auto res = cli.Put(("/v1/contracts/" + c.id + "/parts/big.csv").c_str(),
                     {{"Authorization", "Bearer " + writer_bearer_}},
                     [&](size_t, httplib::DataSink& sink) {
                       size_t n = std::min<size_t>(64 << 10, big.size() - sent);
                       sink.write(big.data() + sent, n);
                       sent += n;
                       if (sent == big.size()) sink.done();
                       return true;
                     },
                     "text/csv");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(Json::parse(res->body)["part"]["rows"], 150000);

  // A write its caller stops half way: the body is cut off, the SDK says kCancelled and the
  // server keeps nothing of it.
  std::string file = WriteFile("stopped.csv", big);
  auto stopped =
      uploads_->Write(c.id, file, [&](int64_t done, int64_t total) { return done < total / 2; });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().kind(), ErrorKind::kCancelled) << stopped.status().ToString();
  auto after_stop = uploads_->GetContract(c.id);
  ASSERT_TRUE(after_stop.ok()) << after_stop.status().ToString();
  EXPECT_EQ(after_stop->parts.size(), 5u);

  auto done = uploads_->CommitContract(c.id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->rows_written, 4 * 50 + 150000);
  EXPECT_EQ(Rows("acme.sec.typed"), 4 * 50 + 150000);
}

TEST_P(ServeUploads, ABigPartTheServiceRefusesStillGetsItsError) {
  // The client sends a whole body before reading the answer; the server reads the rest of a
  // refused part so the answer is the refusal, not a broken connection.
  auto proposed = uploads_->Negotiate(
      Request("acme.sec.fresh", SchemaSource::Inferred(), {{"s.csv", Csv(1, 2)}}));
  ASSERT_TRUE(proposed.ok()) << proposed.status().ToString();
  std::string big = WriteFile("big.csv", Csv(1, 2500000));
  ASSERT_GT(std::filesystem::file_size(big), 40u << 20);  // past every drain allowance
  Status st = uploads_->Write(proposed->id, big).status();
  EXPECT_EQ(UploadErrorOf(st), UploadErrorCode::kContractNotAccepted) << st.ToString();
  EXPECT_EQ(ErrorField(st, "state"), "proposed");
  // The connection stayed usable.
  EXPECT_TRUE(uploads_->GetContract(proposed->id).ok());
}

TEST_P(ServeUploads, TheSweeperExpiresContracts) {
  // The client goes first: its idle keep-alive connection would hold the first server's
  // shutdown for the lingering close (2 s).
  uploads_.reset();
  StartServer(/*sweep_interval_s=*/0.2);
  uploads_ = UploadsAs(writer_);
  NegotiateRequest req =
      Request("acme.sec.brief", SchemaSource::Inferred(), {{"s.csv", Csv(1, 1)}});
  req.ttl_s = 1;
  auto c = uploads_->Negotiate(req);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  test_clock_->Advance(std::chrono::milliseconds(1100));  // past its expiry
  // The sweeper runs every 0.2 s of the clock, and the advance wakes it.
  bool swept = testing_util::Eventually([&] {
    for (const auto& line : logs_.Parsed()) {
      if (line.is_object() && line.value("type", "") == "sweep" &&
          line.value("contracts_expired", 0) >= 1) {
        return true;
      }
    }
    return false;
  });
  EXPECT_TRUE(swept) << "no sweep line within 10 s";
  auto after = uploads_->GetContract(c->id);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->state, ContractState::kExpired);
  // Shutdown stops the sweeper promptly (once the client's keep-alive connections are gone).
  uploads_.reset();
  auto start = std::chrono::steady_clock::now();
  server_->Shutdown();
  server_->Wait();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_P(ServeUploads, ReattachAfterARestart) {
  Contract c = AcceptedTyped();
  auto w1 = uploads_->WriteBytes(c.id, "one.csv", Csv(1, 3));
  ASSERT_TRUE(w1.ok()) << w1.status().ToString();
  int first_port = port_;

  // Another server process on the same catalog: the contract lives in the metastore.
  uploads_.reset();
  server_->Shutdown();
  server_->Wait();
  StartServer();
  EXPECT_NE(port_, 0);
  (void)first_port;
  auto fresh = UploadsAs(writer_);
  ASSERT_NE(fresh, nullptr);
  auto back = fresh->GetContract(c.id);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->state, ContractState::kWriting);
  ASSERT_EQ(back->parts.size(), 1u);
  EXPECT_EQ(back->parts[0].name, "one.csv");

  auto w2 = fresh->WriteBytes(c.id, "two.csv", Csv(10, 2));
  ASSERT_TRUE(w2.ok()) << w2.status().ToString();
  EXPECT_EQ(w2->part.seq, 2);
  auto done = fresh->CommitContract(c.id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->rows_written, 5);
  EXPECT_EQ(Rows("acme.sec.typed"), 5);
}

INSTANTIATE_TEST_SUITE_P(Backends, ServeUploads, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace tarn::server::testing

// ContractService over a real catalog, on SQLite and PostgreSQL: the whole flow, staging,
// abandon/expiry, idempotent commits, stale contracts, overwrite, partitions, reattach, races
// and the error codes of docs/design/upload.md.
#include "upload/contract_service.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>

#include "catalog/test_fixture.h"
#include "common/compression.h"
#include "common/test_util.h"
#include "formats/decompress.h"
#include "metastore/fault/fault_metastore.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"
#include "types/value_text.h"
#include "upload/store.h"

namespace tarn::upload {
namespace {

class UploadSuite : public CatalogBackendTest {
 protected:
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_OK(cat_->CreateWorkspace("acme"));
    ASSERT_OK(cat_->CreateCollection("acme.sec"));
    cat1_ = std::shared_ptr<Catalog>(std::move(cat_));
    svc_ = std::make_unique<ContractService>(cat1_, Options());
  }
  void TearDown() override {
    svc_.reset();
    cat1_.reset();
    CatalogBackendTest::TearDown();
  }

  static ContractServiceOptions Options() {
    ContractServiceOptions o;
    o.actor = "local:tester";
    return o;
  }

  // A second handle on the same metastore and warehouse (another process, another server).
  std::shared_ptr<Catalog> OpenSecond(std::shared_ptr<Clock> clock = Clock::Real()) {
    if (GetParam() == "sqlite") {
      auto c = Catalog::OpenEmbedded(dir_.string(), clock);
      EXPECT_TRUE(c.ok()) << c.status().ToString();
      return c.ok() ? std::shared_ptr<Catalog>(std::move(*c)) : nullptr;
    }
    std::string b = testing_util::PgBaseUri();
    std::string uri = b + (b.find('?') == std::string::npos ? "?" : "&") +
                      "options=-csearch_path%3Dc_" + testing_util::TestName();
    auto c = Catalog::Open(uri, (dir_ / "warehouse").string(), clock);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::shared_ptr<Catalog>(std::move(*c)) : nullptr;
  }

  static UploadSample Sample(const std::string& name, const std::string& bytes) {
    auto s = SampleBytes(name, bytes);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : UploadSample{};
  }

  NegotiateRequest Request(const std::string& target, SchemaSource source,
                           std::vector<std::pair<std::string, std::string>> files) {
    NegotiateRequest r;
    r.target = target;
    r.schema = std::move(source);
    for (const auto& [n, b] : files) r.samples.push_back(Sample(n, b));
    return r;
  }

  DatasetInfo MakeDataset(const std::string& name, const std::string& schema,
                          const std::string& spec = "") {
    DatasetDefinition def;
    def.schema = *Schema::Parse(schema);
    def.partition_spec = spec;
    auto d = cat1_->CreateDataset(name, def);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : DatasetInfo();
  }

  void AppendRows(const std::string& name, const std::vector<std::vector<std::string>>& rows) {
    auto ds = cat1_->LoadDataset(name);
    ASSERT_TRUE(ds.ok());
    CommitMeta meta;
    meta.author = "tester";
    std::vector<RecordBatch> batches;
    batches.push_back(MakeBatch(ds->schema, rows));
    auto s = cat1_->Append(name, batches, meta);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
  }

  std::vector<std::string> Rows(const std::string& name) {
    std::vector<std::string> out;
    Status st = cat1_->Scan(name, {}, "", false, [&](const RecordBatch& b) {
      for (int64_t r = 0; r < b.num_rows; ++r) {
        std::string line;
        for (size_t c = 0; c < b.columns.size(); ++c) {
          if (c) line += '|';
          if (b.columns[c].IsValid(r)) AppendValueText(b.columns[c], r, &line);
        }
        out.push_back(line);
      }
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<PlannedFile> Files(const std::string& name, const std::string& where = "") {
    std::vector<PlannedFile> out;
    Status st = cat1_->PlanFiles(name, {}, where, [&](const PlannedFile& f) {
      out.push_back(f);
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return out;
  }

  // Staged Parquet objects of a contract (kept samples are listed by Samples()).
  std::vector<std::string> Staged(const std::string& id) { return Keys(id, false); }
  std::vector<std::string> Samples(const std::string& id) { return Keys(id, true); }
  std::vector<std::string> Keys(const std::string& id, bool samples) {
    auto objects = cat1_->warehouse().ListAll("uploads/" + id + "/");
    EXPECT_TRUE(objects.ok());
    std::vector<std::string> keys;
    if (objects.ok()) {
      for (const auto& o : *objects) {
        bool sample = o.key.rfind("uploads/" + id + "/samples/", 0) == 0;
        if (sample == samples) keys.push_back(o.key);
      }
    }
    return keys;
  }

  static const ContractIssue* FindIssue(const Contract& c, const std::string& code,
                                        const std::string& column) {
    for (const auto& i : c.issues) {
      if (i.code == code && i.column == column) return &i;
    }
    return nullptr;
  }

  // Negotiates and accepts (when proposed).
  Contract Agreed(const NegotiateRequest& req) {
    auto c = svc_->Negotiate(req);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (!c.ok()) return {};
    if (c->state == ContractState::kProposed) {
      auto a = svc_->Accept(c->id, c->fingerprint);
      EXPECT_TRUE(a.ok()) << a.status().ToString();
      return a.ok() ? *a : Contract{};
    }
    return *c;
  }

  std::shared_ptr<Catalog> cat1_;
  std::unique_ptr<ContractService> svc_;

 public:
  // For the free helpers below: an accepted append contract of `name`, and its rows.
  Contract AgreedForTest(const std::string& name) {
    return Agreed(Request(name, SchemaSource::Auto(), {{"a.csv", "id\n1\n"}}));
  }
  std::vector<std::string> RowsForTest(const std::string& name) { return Rows(name); }
};

const char kFindings[] =
    "cve_id,published,hosts\n"
    "CVE-2026-00001,2026-08-02 04:22:07,1\n"
    "CVE-2026-00002,2026-08-03 10:00:00,3\n";
const char kMoreFindings[] =
    "cve_id,published,hosts\n"
    "CVE-2026-00003,2026-08-04 11:30:00,2\n";

bool IsContractIdText(const std::string& id) {
  if (id.size() != 30 || id.rfind("ct_", 0) != 0 || id[17] != '_') return false;
  return std::all_of(id.begin() + 3, id.begin() + 17, ::isdigit) &&
         std::all_of(id.begin() + 18, id.end(),
                     [](char c) { return std::isxdigit(c) && !std::isupper(c); });
}

TEST_P(UploadSuite, InferredFlowCreatesTheDatasetInOneSnapshot) {
  auto req = Request("acme.sec.findings", SchemaSource::Auto(), {{"findings.csv", kFindings}});
  req.channel = "cli";
  auto c = svc_->Negotiate(req);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(IsContractIdText(c->id)) << c->id;
  EXPECT_EQ(c->state, ContractState::kProposed);  // inferred types wait for a person
  EXPECT_EQ(c->requested_source, "auto");
  EXPECT_EQ(c->schema_source, "inferred");
  EXPECT_EQ(c->mode, SchemaMode::kCreate);
  EXPECT_FALSE(c->dataset_exists);
  EXPECT_EQ(c->created_by, "local:tester");
  ASSERT_EQ(c->files.size(), 1u);
  EXPECT_EQ(c->files[0].format, "csv");
  EXPECT_EQ(c->files[0].sampled_rows, 2);
  ASSERT_EQ(c->plan.size(), 3u);
  EXPECT_EQ(c->plan[1].column, "published");
  EXPECT_EQ(c->plan[1].to, "TIMESTAMP[us]");
  EXPECT_EQ(c->plan[2].to, "INT64");
  EXPECT_EQ(c->values().at("cve_id"), "CVE-2026-00001");
  EXPECT_GT(c->expires_at_us, c->created_at_us + 5 * 3600 * 1'000'000ll);

  // Nothing is written before acceptance.
  auto early = svc_->WriteBytes(c->id, "findings.csv", kFindings);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(UploadErrorOf(early.status()), UploadErrorCode::kContractNotAccepted);
  EXPECT_EQ(ErrorField(early.status(), "state"), "proposed");
  EXPECT_EQ(ExitCodeFor(early.status()), 3);

  // Retype returns to proposed with a new fingerprint; the old one is refused.
  auto r = svc_->Retype(c->id, {{"published", "TIMESTAMPTZ"}, {"hosts", "INT32"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->state, ContractState::kProposed);
  EXPECT_NE(r->fingerprint, c->fingerprint);
  EXPECT_EQ(r->plan[1].action, PlanAction::kRetag);
  EXPECT_EQ(r->plan[2].action, PlanAction::kCast);
  EXPECT_TRUE(r->plan[2].retyped);
  auto stale_accept = svc_->Accept(c->id, c->fingerprint);
  ASSERT_FALSE(stale_accept.ok());
  EXPECT_EQ(UploadErrorOf(stale_accept.status()), UploadErrorCode::kProposalChanged);
  EXPECT_EQ(ErrorField(stale_accept.status(), "fingerprint"), r->fingerprint);
  EXPECT_EQ(ExitCodeFor(stale_accept.status()), 4);
  auto a = svc_->Accept(c->id, r->fingerprint);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->state, ContractState::kAccepted);

  std::vector<std::pair<int64_t, int64_t>> progress;
  auto w1 =
      svc_->WriteBytes(c->id, "findings.csv", kFindings, "",
                       [&](int64_t done, int64_t total) { progress.emplace_back(done, total); });
  ASSERT_TRUE(w1.ok()) << w1.status().ToString();
  EXPECT_EQ(w1->part.seq, 1);
  EXPECT_EQ(w1->part.rows, 2);
  EXPECT_EQ(w1->part.bytes_read, static_cast<int64_t>(strlen(kFindings)));
  EXPECT_EQ(w1->part.files, 1);
  EXPECT_GT(w1->part.bytes_written, 0);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back().first, static_cast<int64_t>(strlen(kFindings)));
  EXPECT_EQ(progress.back().second, static_cast<int64_t>(strlen(kFindings)));
  auto w2 = svc_->WriteBytes(c->id, "more.csv", kMoreFindings);
  ASSERT_TRUE(w2.ok()) << w2.status().ToString();
  EXPECT_EQ(w2->part.seq, 2);

  // Retype is refused once a part is staged.
  auto late = svc_->Retype(c->id, {{"hosts", "INT64"}});
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().kind(), ErrorKind::kFailedPrecondition);
  EXPECT_EQ(ErrorField(late.status(), "code"), "contract_writing");
  auto late_ignore = svc_->Ignore(c->id, {"hosts"});
  ASSERT_FALSE(late_ignore.ok());
  EXPECT_EQ(ErrorField(late_ignore.status(), "code"), "contract_writing");

  // Staged, not visible: the dataset does not exist yet.
  EXPECT_EQ(Staged(c->id).size(), 2u);
  EXPECT_EQ(cat1_->LoadDataset("acme.sec.findings").status().kind(), ErrorKind::kNotFound);
  auto g = svc_->GetContract(c->id);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->state, ContractState::kWriting);
  EXPECT_EQ(g->rows_written, 3);
  ASSERT_EQ(g->parts.size(), 2u);

  CommitRequest cr;
  cr.message = "nightly";
  cr.idempotency_key = "nightly-2026-08-19";
  auto done = svc_->CommitContract(c->id, cr);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_TRUE(done->created_dataset);
  EXPECT_FALSE(done->idempotent_replay);
  EXPECT_EQ(done->rows_written, 3);
  EXPECT_EQ(done->files, 2);
  EXPECT_EQ(done->target, "acme.sec.findings");

  auto ds = cat1_->LoadDataset("acme.sec.findings");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ(ds->schema.ToString(), "cve_id VARCHAR, published TIMESTAMPTZ[us], hosts INT32");
  EXPECT_EQ(ds->schema.fields[0].field_id, 1);
  EXPECT_EQ(ds->schema.fields[2].field_id, 3);
  EXPECT_EQ(Rows("acme.sec.findings"),
            (std::vector<std::string>{"CVE-2026-00001|2026-08-02T04:22:07Z|1",
                                      "CVE-2026-00002|2026-08-03T10:00:00Z|3",
                                      "CVE-2026-00003|2026-08-04T11:30:00Z|2"}));
  auto snaps = cat1_->ListSnapshots("acme.sec.findings");
  ASSERT_TRUE(snaps.ok());
  ASSERT_EQ(snaps->size(), 1u);
  EXPECT_EQ((*snaps)[0].snapshot_id, done->snapshot_id);
  ASSERT_TRUE((*snaps)[0].receipt.has_value());
  EXPECT_EQ((*snaps)[0].receipt->produced_by, std::optional<std::string>("upload:cli"));
  EXPECT_TRUE((*snaps)[0].receipt->read_sources.empty());
  EXPECT_EQ((*snaps)[0].message, "nightly");
  EXPECT_EQ((*snaps)[0].author, "local:tester");
  EXPECT_EQ((*snaps)[0].idempotency_key, cr.idempotency_key);
  // The staged objects became the dataset's files where they were.
  for (const auto& f : Files("acme.sec.findings")) {
    EXPECT_EQ(f.file.path.rfind("uploads/" + c->id + "/", 0), 0u) << f.file.path;
  }

  // A retry with the key replays; without it, refused.
  auto again = svc_->CommitContract(c->id, cr);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->idempotent_replay);
  EXPECT_EQ(again->snapshot_id, done->snapshot_id);
  auto second = svc_->CommitContract(c->id, {});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(UploadErrorOf(second.status()), UploadErrorCode::kAlreadyCommitted);
  EXPECT_EQ(ErrorField(second.status(), "snapshot_id"), std::to_string(done->snapshot_id));
  EXPECT_EQ(cat1_->ListSnapshots("acme.sec.findings")->size(), 1u);
  auto after = svc_->GetContract(c->id);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->state, ContractState::kCommitted);

  // A new contract committed with the same key (a pipeline re-running its step) returns the
  // first snapshot and drops what it staged.
  auto rerun =
      Agreed(Request("acme.sec.findings", SchemaSource::OfDataset(),
                     {{"more.csv", "cve_id,published,hosts\nCVE-9,2026-08-09T00:00:00Z,9\n"}}));
  ASSERT_TRUE(svc_->WriteBytes(rerun.id, "more.csv",
                               "cve_id,published,hosts\nCVE-9,2026-08-09T00:00:00Z,9\n")
                  .ok());
  EXPECT_EQ(Staged(rerun.id).size(), 1u);
  auto replayed = svc_->CommitContract(rerun.id, cr);
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  EXPECT_TRUE(replayed->idempotent_replay);
  EXPECT_EQ(replayed->snapshot_id, done->snapshot_id);
  EXPECT_EQ(replayed->rows_written, 3);
  EXPECT_TRUE(Staged(rerun.id).empty());
  EXPECT_EQ(cat1_->ListSnapshots("acme.sec.findings")->size(), 1u);
  EXPECT_EQ(Rows("acme.sec.findings").size(), 3u);
  ASSERT_TRUE(after->committed.has_value());
  EXPECT_EQ(after->committed->snapshot_id, done->snapshot_id);
  // Abandoning a committed contract is refused; writing to it too.
  EXPECT_EQ(UploadErrorOf(svc_->Abandon(c->id)), UploadErrorCode::kAlreadyCommitted);
  EXPECT_EQ(UploadErrorOf(svc_->WriteBytes(c->id, "x.csv", kFindings).status()),
            UploadErrorCode::kAlreadyCommitted);
}

TEST_P(UploadSuite, AppendIsAcceptedAtOnceAndStagedFilesStayInvisible) {
  MakeDataset("acme.sec.events", "id INT64 NOT NULL, name VARCHAR, score DECIMAL(6,2)");
  AppendRows("acme.sec.events", {{"1", "a", "1.00"}});
  auto c = svc_->Negotiate(Request("acme.sec.events", SchemaSource::Auto(),
                                   {{"e.ndjson", "{\"id\":2,\"name\":\"b\",\"score\":2.5}\n"}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->state, ContractState::kAccepted);
  EXPECT_EQ(c->schema_source, "dataset");
  EXPECT_EQ(c->mode, SchemaMode::kAppend);
  EXPECT_TRUE(c->dataset_exists);
  EXPECT_FALSE(c->dataset_uuid.empty());
  auto w = svc_->WriteBytes(c->id, "e.ndjson",
                            "{\"id\":2,\"name\":\"b\",\"score\":2.5}\n{\"id\":3,\"score\":3}\n");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->part.rows, 2);
  // Before commit: the dataset plans and scans as before.
  EXPECT_EQ(Files("acme.sec.events").size(), 1u);
  EXPECT_EQ(Rows("acme.sec.events"), (std::vector<std::string>{"1|a|1.00"}));
  auto cleanup = cat1_->Cleanup(false);
  ASSERT_TRUE(cleanup.ok());
  EXPECT_TRUE(cleanup->orphans.empty());  // staged objects are outside datasets/
  auto done = svc_->CommitContract(c->id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_FALSE(done->created_dataset);
  EXPECT_EQ(Rows("acme.sec.events"), (std::vector<std::string>{"1|a|1.00", "2|b|2.50", "3||3.00"}));
  EXPECT_EQ(Files("acme.sec.events").size(), 2u);
}

TEST_P(UploadSuite, ValueNotCastableFailsThatWriteOnly) {
  MakeDataset("acme.sec.n", "id INT64, note VARCHAR");
  auto c = Agreed(Request("acme.sec.n", SchemaSource::OfDataset(), {{"a.csv", "id,note\n1,x\n"}}));
  ASSERT_FALSE(c.id.empty());
  ASSERT_TRUE(svc_->WriteBytes(c.id, "a.csv", "id,note\n1,x\n").ok());
  auto before = Staged(c.id);
  ASSERT_EQ(before.size(), 1u);
  // A small flush size makes the failing write stage files before it reaches the bad row.
  ContractServiceOptions o = Options();
  o.flush_rows = 2;
  ContractService small(cat1_, o);
  std::string csv = "id,note\n1,a\n2,b\n3,c\n4,d\nfour,e\n6,f\n";
  auto bad = small.WriteBytes(c.id, "b.csv", csv);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(UploadErrorOf(bad.status()), UploadErrorCode::kValueNotCastable);
  EXPECT_EQ(ErrorField(bad.status(), "column"), "id");
  EXPECT_EQ(ErrorField(bad.status(), "row"), "5");
  EXPECT_EQ(ErrorField(bad.status(), "value"), "four");
  EXPECT_EQ(ErrorField(bad.status(), "declared"), "INT64");
  EXPECT_EQ(ExitCodeFor(bad.status()), 3);
  EXPECT_EQ(Staged(c.id), before);  // that write's files are gone, the earlier part stays
  auto g = svc_->GetContract(c.id);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->parts.size(), 1u);
  EXPECT_EQ(g->state, ContractState::kWriting);
  // A column the contract does not know is refused by the reader.
  auto undeclared = svc_->WriteBytes(c.id, "c.csv", "id,zzz\n1,2\n");
  ASSERT_FALSE(undeclared.ok());
  EXPECT_EQ(UploadErrorOf(undeclared.status()), UploadErrorCode::kColumnUndeclared);
  EXPECT_EQ(ErrorField(undeclared.status(), "column"), "zzz");
  auto garbage = svc_->WriteBytes(c.id, "d.csv", "id,note\n1,\"unterminated\n");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(UploadErrorOf(garbage.status()), UploadErrorCode::kFormatUnreadable);
  EXPECT_EQ(ErrorField(garbage.status(), "file"), "d.csv");
  EXPECT_EQ(Staged(c.id), before);
  auto done = svc_->CommitContract(c.id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(Rows("acme.sec.n"), (std::vector<std::string>{"1|x"}));
}

TEST_P(UploadSuite, IgnoredColumnsAreReadAndNotWritten) {
  auto req = Request("acme.sec.ig", SchemaSource::Inferred(),
                     {{"a.csv", "id,secret,name\n1,s1,a\n2,s2,b\n"}});
  req.ignore = {"secret"};
  auto c = svc_->Negotiate(req);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->plan.size(), 3u);
  EXPECT_EQ(c->plan[1].action, PlanAction::kIgnored);
  auto a = svc_->Accept(c->id, c->fingerprint);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto w = svc_->WriteBytes(c->id, "a.csv", "id,secret,name\n1,s1,a\n2,s2,b\n");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(svc_->CommitContract(c->id, {}).ok());
  auto ds = cat1_->LoadDataset("acme.sec.ig");
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ(ds->schema.ToString(), "id INT64, name VARCHAR");
  EXPECT_EQ(Rows("acme.sec.ig"), (std::vector<std::string>{"1|a", "2|b"}));
}

TEST_P(UploadSuite, AbandonDeletesStagedObjects) {
  auto c = Agreed(
      Request("acme.sec.ab", SchemaSource::Declared({{"id", "INT64"}}), {{"a.csv", "id\n1\n"}}));
  ASSERT_EQ(c.state,
            ContractState::kAccepted);  // declared without blocking issues: accepted at once
  ASSERT_TRUE(svc_->WriteBytes(c.id, "a.csv", "id\n1\n2\n").ok());
  ASSERT_TRUE(svc_->WriteBytes(c.id, "b.csv", "id\n3\n").ok());
  EXPECT_EQ(Staged(c.id).size(), 2u);
  ASSERT_OK(svc_->Abandon(c.id));
  EXPECT_TRUE(Staged(c.id).empty());
  EXPECT_EQ(svc_->GetContract(c.id)->state, ContractState::kAbandoned);
  ASSERT_OK(svc_->Abandon(c.id));  // twice is fine
  auto w = svc_->WriteBytes(c.id, "a.csv", "id\n1\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(UploadErrorOf(w.status()), UploadErrorCode::kContractNotAccepted);
  EXPECT_EQ(ErrorField(w.status(), "state"), "abandoned");
  auto commit = svc_->CommitContract(c.id, {});
  ASSERT_FALSE(commit.ok());
  EXPECT_EQ(UploadErrorOf(commit.status()), UploadErrorCode::kContractNotAccepted);
  EXPECT_EQ(cat1_->LoadDataset("acme.sec.ab").status().kind(), ErrorKind::kNotFound);
}

TEST_P(UploadSuite, ExpiryDeletesStagedObjects) {
  // The service runs on a clock the test moves.
  auto clock = std::make_shared<ManualClock>();
  cat1_ = OpenSecond(clock);
  ASSERT_TRUE(cat1_);
  svc_ = std::make_unique<ContractService>(cat1_, Options());
  auto req =
      Request("acme.sec.ex", SchemaSource::Declared({{"id", "INT64"}}), {{"a.csv", "id\n1\n"}});
  req.ttl_s = 1;
  auto swept = Agreed(req);
  auto lazy = Agreed(req);
  ASSERT_TRUE(svc_->WriteBytes(swept.id, "a.csv", "id\n1\n").ok());
  ASSERT_TRUE(svc_->WriteBytes(lazy.id, "a.csv", "id\n1\n").ok());
  EXPECT_EQ(Staged(swept.id).size(), 1u);
  clock->Advance(std::chrono::milliseconds(1300));
  // Lazily, when the contract is next looked at.
  auto g = svc_->GetContract(lazy.id);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->state, ContractState::kExpired);
  EXPECT_TRUE(Staged(lazy.id).empty());
  // By the sweeper.
  auto n = svc_->SweepExpired();
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 1);
  EXPECT_TRUE(Staged(swept.id).empty());
  EXPECT_EQ(*svc_->SweepExpired(), 0);
  auto w = svc_->WriteBytes(swept.id, "a.csv", "id\n1\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(UploadErrorOf(w.status()), UploadErrorCode::kContractExpired);
  EXPECT_FALSE(ErrorField(w.status(), "expired_at").empty());
  EXPECT_EQ(HttpStatusFor(w.status()), 410);
  auto commit = svc_->CommitContract(lazy.id, {});
  EXPECT_EQ(UploadErrorOf(commit.status()), UploadErrorCode::kContractExpired);
  ASSERT_OK(svc_->Abandon(swept.id));  // abandoning an expired contract is fine
  EXPECT_EQ(cat1_->LoadDataset("acme.sec.ex").status().kind(), ErrorKind::kNotFound);

  auto too_long = req;
  too_long.ttl_s = 30ll * 24 * 3600;
  EXPECT_EQ(svc_->Negotiate(too_long).status().kind(), ErrorKind::kInvalidArgument);
}

TEST_P(UploadSuite, StaleBetweenAcceptAndWrite) {
  MakeDataset("acme.sec.st", "id INT64, price DECIMAL(10,2)");
  auto c = Agreed(Request("acme.sec.st", SchemaSource::Auto(), {{"a.csv", "id,price\n1,2.50\n"}}));
  ASSERT_EQ(c.state, ContractState::kAccepted);
  ASSERT_TRUE(cat1_->AlterSchema("acme.sec.st", {*ParseSchemaChange("add extra INT64")}).ok());
  auto w = svc_->WriteBytes(c.id, "a.csv", "id,price\n1,2.50\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(UploadErrorOf(w.status()), UploadErrorCode::kContractStale);
  EXPECT_EQ(w.status().kind(), ErrorKind::kStale);
  EXPECT_NE(ErrorField(w.status(), "diff").find("+extra INT64"), std::string::npos)
      << ErrorField(w.status(), "diff");
  EXPECT_EQ(ErrorField(w.status(), "written_rows"), "0");
  EXPECT_EQ(ExitCodeFor(w.status()), 4);
  EXPECT_EQ(svc_->GetContract(c.id)->state, ContractState::kStale);
  EXPECT_TRUE(Staged(c.id).empty());
}

TEST_P(UploadSuite, StaleBetweenWriteAndCommit) {
  MakeDataset("acme.sec.st2", "id INT64, price DECIMAL(10,2), old VARCHAR");
  auto c = Agreed(Request("acme.sec.st2", SchemaSource::Auto(), {{"a.csv", "id,price\n1,2.50\n"}}));
  ASSERT_EQ(c.state, ContractState::kAccepted);
  ASSERT_TRUE(svc_->WriteBytes(c.id, "a.csv", "id,price\n1,2.50\n2,3.00\n").ok());
  ASSERT_EQ(Staged(c.id).size(), 1u);
  ASSERT_TRUE(cat1_
                  ->AlterSchema("acme.sec.st2", {*ParseSchemaChange("promote price DECIMAL(12,2)"),
                                                 *ParseSchemaChange("drop old")})
                  .ok());
  auto done = svc_->CommitContract(c.id, {});
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(UploadErrorOf(done.status()), UploadErrorCode::kContractStale);
  std::string diff = ErrorField(done.status(), "diff");
  EXPECT_NE(diff.find("~price DECIMAL(10,2)->DECIMAL(12,2)"), std::string::npos) << diff;
  EXPECT_NE(diff.find("-old"), std::string::npos) << diff;
  EXPECT_EQ(ErrorField(done.status(), "written_rows"), "2");
  EXPECT_TRUE(Staged(c.id).empty());
  auto g = svc_->GetContract(c.id);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->state, ContractState::kStale);
  EXPECT_TRUE(g->parts.empty());
  EXPECT_TRUE(cat1_->ListSnapshots("acme.sec.st2")->empty());
  EXPECT_EQ(UploadErrorOf(svc_->CommitContract(c.id, {}).status()),
            UploadErrorCode::kContractStale);
}

TEST_P(UploadSuite, StaleWhenThePartitionSpecOrIncarnationChanges) {
  MakeDataset("acme.sec.sp", "id INT64, region VARCHAR");
  auto c = Agreed(Request("acme.sec.sp", SchemaSource::Auto(), {{"a.csv", "id,region\n1,eu\n"}}));
  ASSERT_TRUE(cat1_->SetPartitionSpec("acme.sec.sp", "region").ok());
  auto w = svc_->WriteBytes(c.id, "a.csv", "id,region\n1,eu\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(UploadErrorOf(w.status()), UploadErrorCode::kContractStale);
  EXPECT_NE(ErrorField(w.status(), "diff").find("partition"), std::string::npos);

  auto d = Agreed(Request("acme.sec.sp", SchemaSource::Auto(), {{"a.csv", "id,region\n1,eu\n"}}));
  ASSERT_TRUE(svc_->WriteBytes(d.id, "a.csv", "id,region\n1,eu\n").ok());
  ASSERT_OK(cat1_->DropDataset("acme.sec.sp"));
  MakeDataset("acme.sec.sp", "id INT64, region VARCHAR");
  auto done = svc_->CommitContract(d.id, {});
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(UploadErrorOf(done.status()), UploadErrorCode::kContractStale);
  EXPECT_NE(ErrorField(done.status(), "diff").find("recreated"), std::string::npos);
  EXPECT_TRUE(Staged(d.id).empty());
}

TEST_P(UploadSuite, OverwriteReplacesEveryRow) {
  MakeDataset("acme.sec.ow", "id INT64, name VARCHAR");
  AppendRows("acme.sec.ow", {{"1", "old"}, {"2", "old"}});
  auto c = Agreed(Request("acme.sec.ow", SchemaSource::Auto(WriteMode::kOverwrite),
                          {{"a.csv", "id,name\n9,new\n"}}));
  ASSERT_EQ(c.mode, SchemaMode::kOverwrite);
  ASSERT_EQ(c.state, ContractState::kAccepted);
  ASSERT_TRUE(svc_->WriteBytes(c.id, "a.csv", "id,name\n9,new\n10,new\n").ok());
  // A commit landing between agreement and commit is replaced too.
  AppendRows("acme.sec.ow", {{"3", "old"}});
  auto done = svc_->CommitContract(c.id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(Rows("acme.sec.ow"), (std::vector<std::string>{"10|new", "9|new"}));
  auto snap = cat1_->GetSnapshot("acme.sec.ow", {});
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->operation, CommitOperationName(CommitOperation::kTruncateAndAdd));
  EXPECT_EQ(snap->snapshot_id, done->snapshot_id);
}

TEST_P(UploadSuite, PartitionedDataset) {
  MakeDataset("acme.sec.p", "id INT64, region VARCHAR", "region");
  auto c = Agreed(Request("acme.sec.p", SchemaSource::Auto(), {{"a.csv", "id,region\n1,eu\n"}}));
  auto w = svc_->WriteBytes(c.id, "a.csv", "id,region\n1,eu\n2,us\n3,eu\n");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->part.files, 2);  // one file per partition
  ASSERT_TRUE(svc_->CommitContract(c.id, {}).ok());
  EXPECT_EQ(Files("acme.sec.p").size(), 2u);
  auto eu = Files("acme.sec.p", "region = 'eu'");
  ASSERT_EQ(eu.size(), 1u);
  EXPECT_EQ(eu[0].file.record_count, 2);
  EXPECT_EQ(Rows("acme.sec.p"), (std::vector<std::string>{"1|eu", "2|us", "3|eu"}));
}

TEST_P(UploadSuite, ASecondServiceReattaches) {
  auto c = Agreed(Request("acme.sec.re", SchemaSource::Inferred(), {{"a.csv", "id\n1\n"}}));
  ASSERT_TRUE(svc_->WriteBytes(c.id, "a.csv", "id\n1\n").ok());
  auto other_cat = OpenSecond();
  ASSERT_NE(other_cat, nullptr);
  ContractService other(other_cat, Options());
  auto g = other.GetContract(c.id);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->state, ContractState::kWriting);
  EXPECT_EQ(g->fingerprint, c.fingerprint);
  auto target = other.ContractTarget(c.id);
  ASSERT_TRUE(target.ok());
  EXPECT_EQ(*target, "acme.sec.re");
  ASSERT_TRUE(other.WriteBytes(c.id, "b.csv", "id\n2\n").ok());
  auto done = other.CommitContract(c.id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(Rows("acme.sec.re"), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(UploadErrorOf(svc_->CommitContract(c.id, {}).status()),
            UploadErrorCode::kAlreadyCommitted);
}

TEST_P(UploadSuite, RacingCommitsMakeOneSnapshot) {
  for (bool keyed : {true, false}) {
    std::string name = keyed ? "acme.sec.race1" : "acme.sec.race2";
    auto c = Agreed(Request(name, SchemaSource::Inferred(), {{"a.csv", "id\n1\n"}}));
    ASSERT_TRUE(svc_->WriteBytes(c.id, "a.csv", "id\n1\n2\n").ok());
    auto other_cat = OpenSecond();
    ASSERT_NE(other_cat, nullptr);
    ContractService other(other_cat, Options());
    CommitRequest req;
    if (keyed) req.idempotency_key = "k1";
    std::vector<Result<UploadCommitResult>> results(2, Status::Internal("not run"));
    std::thread t1([&] { results[0] = svc_->CommitContract(c.id, req); });
    std::thread t2([&] { results[1] = other.CommitContract(c.id, req); });
    t1.join();
    t2.join();
    int ok = 0, replays = 0, refused = 0;
    int64_t snap = 0;
    for (const auto& r : results) {
      if (r.ok()) {
        ++ok;
        if (r->idempotent_replay) ++replays;
        if (snap) {
          EXPECT_EQ(r->snapshot_id, snap);
        }
        snap = r->snapshot_id;
      } else {
        EXPECT_EQ(UploadErrorOf(r.status()), UploadErrorCode::kAlreadyCommitted)
            << r.status().ToString();
        ++refused;
      }
    }
    if (keyed) {
      EXPECT_EQ(ok, 2);
      EXPECT_EQ(replays, 1);
    } else {
      EXPECT_EQ(ok, 1);
      EXPECT_EQ(refused, 1);
    }
    auto snaps = cat1_->ListSnapshots(name);
    ASSERT_TRUE(snaps.ok());
    EXPECT_EQ(snaps->size(), 1u);
    EXPECT_EQ(Rows(name), (std::vector<std::string>{"1", "2"}));
  }
}

TEST_P(UploadSuite, ParquetPartsStreamThroughASpool) {
  MakeDataset("acme.sec.src", "id INT64, name VARCHAR");
  AppendRows("acme.sec.src", {{"1", "a"}, {"2", "b"}});
  auto files = Files("acme.sec.src");
  ASSERT_EQ(files.size(), 1u);
  auto bytes = cat1_->warehouse().Get(files[0].file.path);
  ASSERT_TRUE(bytes.ok());
  auto c = svc_->Negotiate(Request("acme.sec.pq", SchemaSource::Auto(), {{"x.parquet", *bytes}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->files[0].format, "parquet");
  ASSERT_EQ(c->plan.size(), 2u);
  EXPECT_EQ(c->plan[0].to, "INT64");
  ASSERT_TRUE(svc_->Accept(c->id, c->fingerprint).ok());
  auto stream =
      formats::OpenInputStream(MemoryFile(*bytes, "x.parquet"), formats::InputCompression::kNone);
  ASSERT_TRUE(stream.ok());
  int64_t last = 0;
  auto w = svc_->WriteStream(c->id, "x.parquet", std::move(*stream), std::nullopt, "",
                             static_cast<int64_t>(bytes->size()),
                             [&](int64_t done, int64_t) { last = done; });
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->part.rows, 2);
  EXPECT_EQ(last, static_cast<int64_t>(bytes->size()));
  EXPECT_EQ(w->part.bytes_read, static_cast<int64_t>(bytes->size()));
  // CSV through a stream, compressed or not.
  auto csv = formats::OpenInputStream(MemoryFile("id,name\n3,c\n", "y.csv"),
                                      formats::InputCompression::kNone);
  ASSERT_TRUE(csv.ok());
  auto w2 = svc_->WriteStream(c->id, "y", std::move(*csv), std::nullopt, "text/csv", -1);
  ASSERT_TRUE(w2.ok()) << w2.status().ToString();
  ASSERT_TRUE(svc_->CommitContract(c->id, {}).ok());
  EXPECT_EQ(Rows("acme.sec.pq"), (std::vector<std::string>{"1|a", "2|b", "3|c"}));
}

// Issue 14 defects 5 and 7: the spool of a Parquet part was 0644 in a shared /tmp, and the
// Parquet reader's errors named the spool's absolute path.
TEST_P(UploadSuite, ParquetSpoolIsOwnerOnlyAndErrorsNameThePart) {
  MakeDataset("acme.sec.src", "id INT64, name VARCHAR");
  AppendRows("acme.sec.src", {{"1", "a"}, {"2", "b"}});
  auto files = Files("acme.sec.src");
  ASSERT_EQ(files.size(), 1u);
  auto bytes = cat1_->warehouse().Get(files[0].file.path);
  ASSERT_TRUE(bytes.ok());
  auto c = svc_->Negotiate(Request("acme.sec.pq", SchemaSource::Auto(), {{"x.parquet", *bytes}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(svc_->Accept(c->id, c->fingerprint).ok());
  std::filesystem::path spool_dir = dir_ / "spool";
  std::filesystem::create_directories(spool_dir);
  const char* old_tmp = std::getenv("TMPDIR");
  std::string saved = old_tmp ? old_tmp : "";
  ::setenv("TMPDIR", spool_dir.c_str(), 1);
  mode_t old_mask = ::umask(000);
  std::vector<unsigned> modes;
  auto stream =
      formats::OpenInputStream(MemoryFile(*bytes, "x.parquet"), formats::InputCompression::kNone);
  ASSERT_TRUE(stream.ok());
  auto w =
      svc_->WriteStream(c->id, "x.parquet", std::move(*stream), std::nullopt, "",
                        static_cast<int64_t>(bytes->size()), [&](int64_t, int64_t) {
                          for (const auto& e : std::filesystem::directory_iterator(spool_dir)) {
                            struct stat st;
                            if (::stat(e.path().c_str(), &st) == 0) {
                              modes.push_back(st.st_mode & 0777);
                            }
                          }
                          return true;
                        });
  auto garbage = formats::OpenInputStream(MemoryFile(std::string(64, 'z'), "bad.parquet"),
                                          formats::InputCompression::kNone);
  ASSERT_TRUE(garbage.ok());
  auto bad = svc_->WriteStream(c->id, "bad.parquet", std::move(*garbage), std::nullopt, "", 64);
  ::umask(old_mask);
  if (old_tmp) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_FALSE(modes.empty());
  for (unsigned m : modes) EXPECT_EQ(m, 0600u);
  ASSERT_FALSE(bad.ok());
  std::string all = bad.status().ToString();
  for (const auto& [k, v] : bad.status().fields()) all += " " + k + "=" + v;
  EXPECT_EQ(all.find(spool_dir.string()), std::string::npos) << all;
  EXPECT_EQ(all.find("tarn-upload-"), std::string::npos) << all;
  EXPECT_TRUE(std::filesystem::is_empty(spool_dir));  // the spools are gone
}

TEST_P(UploadSuite, NegotiationErrors) {
  MakeDataset("acme.sec.have", "id INT64 NOT NULL, name VARCHAR");
  auto none = svc_->Negotiate(Request("acme.sec.x", SchemaSource{}, {{"a.csv", "id\n1\n"}}));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(UploadErrorOf(none.status()), UploadErrorCode::kSchemaSourceRequired);
  EXPECT_EQ(ExitCodeFor(none.status()), 2);

  for (auto source : {SchemaSource::Inferred(), SchemaSource::Declared({{"id", "INT64"}})}) {
    auto exists = svc_->Negotiate(Request("acme.sec.have", source, {{"a.csv", "id\n1\n"}}));
    ASSERT_FALSE(exists.ok());
    EXPECT_EQ(UploadErrorOf(exists.status()), UploadErrorCode::kDatasetExists);
    EXPECT_EQ(ErrorField(exists.status(), "dataset"), "acme.sec.have");
    EXPECT_EQ(exists.status().kind(), ErrorKind::kAlreadyExists);
  }
  auto missing =
      svc_->Negotiate(Request("acme.sec.nope", SchemaSource::OfDataset(), {{"a.csv", "id\n1\n"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  auto no_collection =
      svc_->Negotiate(Request("acme.nope.x", SchemaSource::Inferred(), {{"a.csv", "id\n1\n"}}));
  EXPECT_EQ(no_collection.status().kind(), ErrorKind::kNotFound);
  auto bad_target =
      svc_->Negotiate(Request("not a target", SchemaSource::Inferred(), {{"a.csv", "id\n1\n"}}));
  EXPECT_EQ(bad_target.status().kind(), ErrorKind::kInvalidArgument);
  auto no_samples = svc_->Negotiate(Request("acme.sec.x", SchemaSource::Inferred(), {}));
  EXPECT_EQ(no_samples.status().kind(), ErrorKind::kInvalidArgument);

  NegotiateRequest parquet;
  parquet.target = "acme.sec.x";
  parquet.schema = SchemaSource::Inferred();
  UploadSample garbage;
  garbage.name = "a.parquet";
  garbage.bytes = "garbage bytes, not a footer";
  garbage.whole_file = true;
  parquet.samples.push_back(garbage);
  auto unreadable = svc_->Negotiate(parquet);
  ASSERT_FALSE(unreadable.ok());
  EXPECT_EQ(UploadErrorOf(unreadable.status()), UploadErrorCode::kFormatUnreadable);
  EXPECT_EQ(ErrorField(unreadable.status(), "file"), "a.parquet");
  EXPECT_EQ(ExitCodeFor(unreadable.status()), 3);

  NegotiateRequest big;
  big.target = "acme.sec.x";
  big.schema = SchemaSource::Inferred();
  UploadSample huge;
  huge.name = "a.csv";
  huge.bytes = std::string(kMaxSampleBytesTotal + 1, 'a');
  big.samples.push_back(std::move(huge));
  EXPECT_EQ(svc_->Negotiate(big).status().kind(), ErrorKind::kTooLarge);

  auto retype = Request("acme.sec.have", SchemaSource::Auto(), {{"a.csv", "id,name\n1,a\n"}});
  retype.retype = {{"id", "INT32"}};
  auto refused = svc_->Negotiate(retype);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(ErrorField(refused.status(), "code"), "retype_not_allowed");

  auto bad_type =
      Request("acme.sec.x", SchemaSource::Declared({{"id", "INTEGRAL"}}), {{"a.csv", "id\n1\n"}});
  EXPECT_EQ(svc_->Negotiate(bad_type).status().kind(), ErrorKind::kInvalidArgument);
}

TEST_P(UploadSuite, BlockingIssuesRefuseAcceptance) {
  MakeDataset("acme.sec.have", "id INT64 NOT NULL, name VARCHAR");
  // An undeclared column.
  auto c = svc_->Negotiate(
      Request("acme.sec.have", SchemaSource::Auto(), {{"a.csv", "id,name,extra\n1,a,x\n"}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->state, ContractState::kProposed);  // blocking issues keep it proposed
  EXPECT_TRUE(c->blocking());
  auto a = svc_->Accept(c->id, c->fingerprint);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(UploadErrorOf(a.status()), UploadErrorCode::kColumnUndeclared);
  EXPECT_EQ(ErrorField(a.status(), "column"), "extra");
  EXPECT_EQ(ExitCodeFor(a.status()), 3);
  EXPECT_EQ(HttpStatusFor(a.status()), HttpStatusFor(ErrorKind::kInvalidArgument));
  // Ignoring it settles the plan; the contract stays proposed until accepted again.
  auto ig = svc_->Ignore(c->id, {"extra"});
  ASSERT_TRUE(ig.ok()) << ig.status().ToString();
  EXPECT_FALSE(ig->blocking());
  EXPECT_EQ(ig->state, ContractState::kProposed);
  auto retyped = svc_->Retype(c->id, {{"id", "INT32"}});
  EXPECT_EQ(ErrorField(retyped.status(), "code"), "retype_not_allowed");
  ASSERT_TRUE(svc_->Accept(c->id, ig->fingerprint).ok());

  // A NOT NULL column missing from the data.
  auto m =
      svc_->Negotiate(Request("acme.sec.have", SchemaSource::Auto(), {{"a.csv", "name\na\n"}}));
  ASSERT_TRUE(m.ok());
  auto ma = svc_->Accept(m->id, m->fingerprint);
  EXPECT_EQ(UploadErrorOf(ma.status()), UploadErrorCode::kColumnMissing);
  EXPECT_EQ(ErrorField(ma.status(), "column"), "id");
  auto mw = svc_->WriteBytes(m->id, "a.csv", "name\na\n");
  EXPECT_EQ(UploadErrorOf(mw.status()), UploadErrorCode::kContractNotAccepted);

  // Files that disagree on a type.
  auto d = svc_->Negotiate(Request("acme.sec.dis", SchemaSource::Inferred(),
                                   {{"a.csv", "v\n2026-01-01\n"}, {"b.csv", "v\ntrue\n"}}));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  auto da = svc_->Accept(d->id, d->fingerprint);
  ASSERT_FALSE(da.ok());
  EXPECT_EQ(UploadErrorOf(da.status()), UploadErrorCode::kSourcesDisagree);
  EXPECT_EQ(ErrorField(da.status(), "column"), "v");
  EXPECT_NE(ErrorField(da.status(), "files").find("b.csv"), std::string::npos);
  auto dr = svc_->Retype(d->id, {{"v", "VARCHAR"}});
  ASSERT_TRUE(dr.ok());
  EXPECT_TRUE(svc_->Accept(d->id, dr->fingerprint).ok());

  // A conversion that does not exist.
  auto u = svc_->Negotiate(Request("acme.sec.un", SchemaSource::Declared({{"flag", "DATE"}}),
                                   {{"a.csv", "flag\ntrue\n"}}));
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->state, ContractState::kProposed);
  EXPECT_EQ(ErrorField(svc_->Accept(u->id, u->fingerprint).status(), "code"),
            "unsupported_conversion");
}

TEST_P(UploadSuite, UnknownAndMalformedContractIds) {
  for (std::string id : {"ct_20260819180247_b47d7241786f", "nope", "../../etc", ""}) {
    auto g = svc_->GetContract(id);
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(UploadErrorOf(g.status()), UploadErrorCode::kContractNotFound) << id;
    EXPECT_EQ(HttpStatusFor(g.status()), 404);
    EXPECT_EQ(UploadErrorOf(svc_->Accept(id, "x").status()), UploadErrorCode::kContractNotFound);
    EXPECT_EQ(UploadErrorOf(svc_->WriteBytes(id, "a.csv", "id\n1\n").status()),
              UploadErrorCode::kContractNotFound);
    EXPECT_EQ(UploadErrorOf(svc_->CommitContract(id, {}).status()),
              UploadErrorCode::kContractNotFound);
    EXPECT_EQ(UploadErrorOf(svc_->Abandon(id)), UploadErrorCode::kContractNotFound);
    EXPECT_EQ(UploadErrorOf(svc_->ContractTarget(id).status()), UploadErrorCode::kContractNotFound);
  }
}

TEST_P(UploadSuite, DatasetCreatedMeanwhileIsDatasetExists) {
  auto c = Agreed(Request("acme.sec.race", SchemaSource::Inferred(), {{"a.csv", "id\n1\n"}}));
  ASSERT_TRUE(svc_->WriteBytes(c.id, "a.csv", "id\n1\n").ok());
  MakeDataset("acme.sec.race", "id INT64");
  auto write = svc_->WriteBytes(c.id, "b.csv", "id\n2\n");
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(UploadErrorOf(write.status()), UploadErrorCode::kDatasetExists);
  auto done = svc_->CommitContract(c.id, {});
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(UploadErrorOf(done.status()), UploadErrorCode::kDatasetExists);
  EXPECT_EQ(svc_->GetContract(c.id)->state,
            ContractState::kWriting);  // still abandonable, nothing lost
  ASSERT_OK(svc_->Abandon(c.id));
  EXPECT_TRUE(Staged(c.id).empty());
}

TEST_P(UploadSuite, CommitWithoutPartsOrBeforeAcceptance) {
  auto c = svc_->Negotiate(Request("acme.sec.e", SchemaSource::Inferred(), {{"a.csv", "id\n1\n"}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(UploadErrorOf(svc_->CommitContract(c->id, {}).status()),
            UploadErrorCode::kContractNotAccepted);
  MakeDataset("acme.sec.have", "id INT64");
  auto d = Agreed(Request("acme.sec.have", SchemaSource::Auto(), {{"a.csv", "id\n1\n"}}));
  auto empty = svc_->CommitContract(d.id, {});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(ErrorField(empty.status(), "code"), "nothing_written");
}

TEST_P(UploadSuite, HeaderlessCsvIsReadByPosition) {
  auto c = svc_->Negotiate(Request("acme.sec.nh", SchemaSource::Inferred(),
                                   {{"a.csv", "1;x;2026-01-01\n2;y;2026-01-02\n"}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->plan.size(), 3u);
  EXPECT_EQ(c->plan[0].column, "column_1");
  auto ig = svc_->Ignore(c->id, {"column_2"});
  ASSERT_TRUE(ig.ok()) << ig.status().ToString();
  ASSERT_TRUE(svc_->Accept(c->id, ig->fingerprint).ok());
  auto w = svc_->WriteBytes(c->id, "a.csv", "1;x;2026-01-01\n2;y;2026-01-02\n3;z;2026-01-03\n");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->part.rows, 3);
  ASSERT_TRUE(svc_->CommitContract(c->id, {}).ok());
  auto ds = cat1_->LoadDataset("acme.sec.nh");
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ(ds->schema.ToString(), "column_1 INT64, column_3 DATE");
  EXPECT_EQ(Rows("acme.sec.nh"),
            (std::vector<std::string>{"1|2026-01-01", "2|2026-01-02", "3|2026-01-03"}));
}

TEST_P(UploadSuite, ACommitWhoseCommitterDiedIsTakenOver) {
  auto c = Agreed(Request("acme.sec.to", SchemaSource::Inferred(), {{"a.csv", "id\n1\n"}}));
  ASSERT_TRUE(svc_->WriteBytes(c.id, "a.csv", "id\n1\n").ok());
  // A committer that claimed the commit long ago and never finished.
  ASSERT_OK(cat1_->metastore().RunInTransaction([&](Transaction& tx) {
    return tx
        .Execute(
            "UPDATE upload_contracts SET state = 'committing', updated_at = 1, "
            "idempotency_key = 'orig' WHERE id = ?",
            {c.id})
        .status();
  }));
  EXPECT_EQ(svc_->GetContract(c.id)->state, ContractState::kWriting);  // never shown as committing
  EXPECT_EQ(ErrorField(svc_->Abandon(c.id), "code"), "commit_in_progress");
  auto done = svc_->CommitContract(c.id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_TRUE(done->created_dataset);
  auto snaps = cat1_->ListSnapshots("acme.sec.to");
  ASSERT_TRUE(snaps.ok());
  ASSERT_EQ(snaps->size(), 1u);
  EXPECT_EQ((*snaps)[0].idempotency_key, std::optional<std::string>("orig"));
  CommitRequest retry;
  retry.idempotency_key = "orig";
  auto again = svc_->CommitContract(c.id, retry);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->idempotent_replay);
}

TEST_P(UploadSuite, ACommitWaitsForAnotherCommitterOnTheCatalogsClock) {
  // The service runs on a clock that stands still until the test moves it.
  auto clock = std::make_shared<ManualClock>();
  cat1_ = OpenSecond(clock);
  ASSERT_TRUE(cat1_);
  svc_ = std::make_unique<ContractService>(cat1_, Options());
  auto c = Agreed(Request("acme.sec.wait", SchemaSource::Inferred(), {{"a.csv", "id\n1\n"}}));
  ASSERT_TRUE(svc_->WriteBytes(c.id, "a.csv", "id\n1\n").ok());
  // Another caller claimed the commit just now.
  ASSERT_OK(cat1_->metastore().RunInTransaction([&](Transaction& tx) {
    return tx
        .Execute("UPDATE upload_contracts SET state = 'committing', updated_at = ? WHERE id = ?",
                 {clock->NowMicros(), c.id})
        .status();
  }));
  const int idle = clock->waiters();
  Result<UploadCommitResult> waited = Status::Internal("not run");
  std::thread committer([&] { waited = svc_->CommitContract(c.id, {}); });
  // The commit waits for that one on the catalog's clock, and gives up past 2 minutes of it.
  EXPECT_TRUE(testing_util::Eventually([&] { return clock->waiters() > idle; }));
  clock->Advance(std::chrono::seconds(121));
  committer.join();
  EXPECT_EQ(ErrorField(waited.status(), "code"), "commit_in_progress");
  // Past 5 minutes the claim is a dead committer's: the next commit takes it over.
  clock->Advance(std::chrono::minutes(4));
  auto done = svc_->CommitContract(c.id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(Rows("acme.sec.wait"), (std::vector<std::string>{"1"}));
}

TEST_P(UploadSuite, ACorruptedRecordIsAnInternalErrorNotACrash) {
  auto c = Agreed(Request("acme.sec.bad", SchemaSource::Inferred(), {{"a.csv", "id\n1\n"}}));
  ASSERT_OK(cat1_->metastore().RunInTransaction([&](Transaction& tx) {
    return tx.Execute("UPDATE upload_contracts SET body = '{\"mode\":' WHERE id = ?", {c.id})
        .status();
  }));
  auto g = svc_->GetContract(c.id);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().kind(), ErrorKind::kInternal);
  EXPECT_FALSE(svc_->WriteBytes(c.id, "a.csv", "id\n1\n").ok());
}

TEST_P(UploadSuite, AStoredWordTheSdkDoesNotKnowIsCorruption) {
  // Each statement breaks one contract: its state, mode, a plan action, an issue severity.
  const char* const kBreak[] = {
      "UPDATE upload_contracts SET state = 'committed_' WHERE id = ?",
      "UPDATE upload_contracts SET body = REPLACE(body, '\"mode\":\"create\"', "
      "'\"mode\":\"upsert\"') WHERE id = ?",
      "UPDATE upload_contracts SET body = REPLACE(body, '\"action\":\"keep\"', "
      "'\"action\":\"kept\"') WHERE id = ?",
      "UPDATE upload_contracts SET body = REPLACE(body, '\"severity\":\"warning\"', "
      "'\"severity\":\"note\"') WHERE id = ?",
  };
  for (const char* sql : kBreak) {
    // "n" is only nulls: an all_null warning beside the kept column id.
    auto c = Agreed(Request("acme.sec.words", SchemaSource::Inferred(), {{"a.csv", "id,n\n1,\n"}}));
    ASSERT_TRUE(svc_->GetContract(c.id).ok());
    ASSERT_OK(cat1_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(int64_t n, tx.Execute(sql, {c.id}));
      return n == 1 ? Status::OK() : Status::Internal("no row changed");
    }));
    auto g = svc_->GetContract(c.id);
    ASSERT_FALSE(g.ok()) << sql;
    EXPECT_EQ(g.status().kind(), ErrorKind::kCorruption) << sql << ": " << g.status().ToString();
    EXPECT_EQ(svc_->WriteBytes(c.id, "a.csv", "id,n\n1,\n").status().kind(), ErrorKind::kCorruption)
        << sql;
  }
}

TEST_P(UploadSuite, HostileTextIsStoredSafely) {
  std::string name("we\0ird\x01.csv", 11);
  std::string csv("id,name\n1,a\0b\n", 14);
  auto c = svc_->Negotiate(Request("acme.sec.h", SchemaSource::Inferred(), {{name, csv}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto g = svc_->GetContract(c->id);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->files[0].name.find('\0'), std::string::npos);
  EXPECT_EQ(g->fingerprint, c->fingerprint);
  ASSERT_TRUE(svc_->Accept(c->id, c->fingerprint).ok());
  auto w = svc_->WriteBytes(c->id, name, csv);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  CommitRequest bad;
  bad.idempotency_key = std::string("k\0ey", 4);
  EXPECT_EQ(svc_->CommitContract(c->id, bad).status().kind(), ErrorKind::kInvalidArgument);
  bad.idempotency_key = std::string(300, 'k');
  EXPECT_EQ(svc_->CommitContract(c->id, bad).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(svc_->GetContract(c->id)->state, ContractState::kWriting);
}

TEST_P(UploadSuite, SampleValuesThatDoNotCastBlockAtNegotiation) {
  const std::string csv = "id,note\n1,a\nx,b\n3,c\n";
  auto declared = SchemaSource::Declared({{"id", "INT64"}, {"note", "VARCHAR"}});
  auto c = svc_->Negotiate(Request("acme.sec.vn", declared, {{"a.csv", csv}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->state, ContractState::kProposed);  // declared, but blocked
  ASSERT_TRUE(c->blocking());
  const ContractIssue* issue = FindIssue(*c, "value_not_castable", "id");
  ASSERT_NE(issue, nullptr);
  EXPECT_EQ(issue->severity, IssueSeverity::kBlocking);
  EXPECT_NE(issue->detail.find("a.csv"), std::string::npos) << issue->detail;
  EXPECT_NE(issue->detail.find("row 2"), std::string::npos) << issue->detail;
  EXPECT_NE(issue->detail.find("'x'"), std::string::npos) << issue->detail;
  EXPECT_NE(issue->detail.find("INT64"), std::string::npos) << issue->detail;
  EXPECT_EQ(issue->fields.at("file"), "a.csv");
  EXPECT_EQ(issue->fields.at("row"), "2");
  EXPECT_EQ(issue->fields.at("value"), "x");
  EXPECT_EQ(issue->fields.at("declared"), "INT64");
  EXPECT_EQ(c->issues.size(), 1u);

  // Accept names the refusal with the write's fields; the write is refused before any byte.
  auto a = svc_->Accept(c->id, c->fingerprint);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(UploadErrorOf(a.status()), UploadErrorCode::kValueNotCastable);
  EXPECT_EQ(ErrorField(a.status(), "column"), "id");
  EXPECT_EQ(ErrorField(a.status(), "row"), "2");
  EXPECT_EQ(ErrorField(a.status(), "value"), "x");
  EXPECT_EQ(ErrorField(a.status(), "declared"), "INT64");
  EXPECT_EQ(ExitCodeFor(a.status()), 3);
  auto w = svc_->WriteBytes(c->id, "a.csv", csv);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(UploadErrorOf(w.status()), UploadErrorCode::kContractNotAccepted);
  EXPECT_TRUE(Staged(c->id).empty());
  EXPECT_EQ(Samples(c->id).size(), 1u);
  EXPECT_FALSE(cat1_->LoadDataset("acme.sec.vn").ok());
  // The record keeps the issue's fields.
  auto again = svc_->GetContract(c->id);
  ASSERT_TRUE(again.ok());
  ASSERT_NE(FindIssue(*again, "value_not_castable", "id"), nullptr);
  EXPECT_EQ(FindIssue(*again, "value_not_castable", "id")->fields.at("value"), "x");
  EXPECT_EQ(again->fingerprint, c->fingerprint);
  ASSERT_OK(svc_->Abandon(c->id));
  EXPECT_TRUE(Samples(c->id).empty());

  // On a new dataset a retype to VARCHAR clears it; a retype back brings it back (the sample
  // is read again).
  auto d = svc_->Negotiate(Request("acme.sec.vn", declared, {{"a.csv", csv}}));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_TRUE(d->blocking());
  auto r = svc_->Retype(d->id, {{"id", "VARCHAR"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->blocking());
  EXPECT_EQ(FindIssue(*r, "value_not_castable", "id"), nullptr);
  EXPECT_NE(r->fingerprint, d->fingerprint);
  auto back = svc_->Retype(d->id, {{"id", "INT64"}});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_NE(FindIssue(*back, "value_not_castable", "id"), nullptr);
  r = svc_->Retype(d->id, {{"id", "VARCHAR"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto acc = svc_->Accept(d->id, r->fingerprint);
  ASSERT_TRUE(acc.ok()) << acc.status().ToString();
  ASSERT_TRUE(svc_->WriteBytes(d->id, "a.csv", csv).ok());
  EXPECT_TRUE(Samples(d->id).empty());  // the plan is fixed once a part is staged
  auto done = svc_->CommitContract(d->id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(Rows("acme.sec.vn"), (std::vector<std::string>{"1|a", "3|c", "x|b"}));
  EXPECT_TRUE(Samples(d->id).empty());
}

TEST_P(UploadSuite, NestedNdjsonIsPlannedAsStructsAndItsSampleChecked) {
  const std::string nd =
      "{\"id\":1,\"p\":{\"a\":1,\"items\":[{\"q\":1}]},\"h\":{\"first name\":\"x\"}}\n"
      "{\"id\":2,\"p\":{\"a\":3000000000,\"items\":[]},\"h\":null}\n";
  const std::string p_type = "STRUCT<a: INT64, items: ARRAY<STRUCT<q: INT64>>>";
  auto c = svc_->Negotiate(Request("acme.sec.nest", SchemaSource::Inferred(), {{"e.ndjson", nd}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->plan.size(), 3u);
  EXPECT_EQ(c->plan[1].to, p_type);
  EXPECT_EQ(c->plan[2].to, "JSON");
  const ContractIssue* p = FindIssue(*c, "inferred_nested", "p");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->severity, IssueSeverity::kWarning);
  EXPECT_EQ(p->detail,
            "objects of one shape: STRUCT of 2 members; items[]: objects of one shape: STRUCT "
            "of 1 member");
  // A key that is no column name keeps the objects JSON, and the plan says why.
  const ContractIssue* h = FindIssue(*c, "inferred_nested", "h");
  ASSERT_NE(h, nullptr);
  EXPECT_NE(h->detail.find("JSON: the key 'first name' is not a valid column name"),
            std::string::npos)
      << h->detail;
  EXPECT_FALSE(c->blocking());
  // The stored record keeps the notes: a retype recomputes the plan from it.
  auto r = svc_->Retype(c->id, {{"p", "JSON"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->plan[1].to, "JSON");
  EXPECT_EQ(r->plan[1].action, PlanAction::kCast);
  EXPECT_FALSE(r->blocking());
  ASSERT_NE(FindIssue(*r, "inferred_nested", "p"), nullptr);
  auto back = svc_->Retype(c->id, {{"p", p_type}});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->plan[1].action, PlanAction::kKeep);
  EXPECT_EQ(back->fingerprint, c->fingerprint);
  ASSERT_OK(svc_->Abandon(c->id));

  // Declared STRUCT and MAP types are planned against the data; the sample check reads the
  // sample with them and names the row and the path of a value that does not fit.
  auto declared =
      SchemaSource::Declared({{"id", "INT64"},
                              {"p", "STRUCT<a: INT32, items: ARRAY<STRUCT<q: INT64, r: VARCHAR>>>"},
                              {"h", "MAP<VARCHAR, VARCHAR>"}});
  auto d = svc_->Negotiate(Request("acme.sec.nest", declared, {{"e.ndjson", nd}}));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->plan[1].action, PlanAction::kCast);  // INT64 -> INT32 inside
  EXPECT_EQ(d->plan[2].action, PlanAction::kCast);  // JSON text parsed as a MAP
  const ContractIssue* v = FindIssue(*d, "value_not_castable", "p");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->fields.at("row"), "2");
  EXPECT_EQ(v->fields.at("value"), "3000000000");
  EXPECT_NE(v->detail.find("a: "), std::string::npos) << v->detail;
  EXPECT_EQ(FindIssue(*d, "inferred_nested", "p"), nullptr);  // the declared types rule
  EXPECT_TRUE(d->blocking());
  ASSERT_OK(svc_->Abandon(d->id));
  declared.declared[1].second = "STRUCT<a: INT64, items: ARRAY<STRUCT<q: INT64, r: VARCHAR>>>";
  auto e = svc_->Negotiate(Request("acme.sec.nest", declared, {{"e.ndjson", nd}}));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->plan[1].action, PlanAction::kWiden);  // r: written as nulls
  EXPECT_FALSE(e->blocking());
}

TEST_P(UploadSuite, SampleCheckFindsEveryFailingColumnAndFollowsIgnore) {
  // Two columns fail (and a null in a NOT NULL column); one issue each, at its first row.
  const std::string csv = "id,score,name,tag\n1,1.5,a,t\n2,abc,,t\nzz,2.5,c,t\nyy,q,d,t\n";
  auto src = SchemaSource::Declared({{"id", "INT64"},
                                     {"score", "DECIMAL(10,2)"},
                                     {"name", "VARCHAR NOT NULL"},
                                     {"tag", "INT32"}});
  auto c = svc_->Negotiate(Request("acme.sec.multi", src, {{"m.csv", csv}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::vector<std::string> found;
  for (const auto& i : c->issues) {
    if (i.code == "value_not_castable") found.push_back(i.column + "@" + i.fields.at("row"));
  }
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<std::string>{"id@3", "name@2", "score@2", "tag@1"}));
  EXPECT_EQ(FindIssue(*c, "value_not_castable", "score")->fields.at("value"), "abc");
  EXPECT_EQ(FindIssue(*c, "value_not_castable", "score")->fields.at("declared"), "DECIMAL(10,2)");

  // Ignoring the failing columns leaves only the rest; the plan goes back to proposed.
  auto ig = svc_->Ignore(c->id, {"tag", "score"});
  ASSERT_TRUE(ig.ok()) << ig.status().ToString();
  EXPECT_EQ(FindIssue(*ig, "value_not_castable", "tag"), nullptr);
  EXPECT_EQ(FindIssue(*ig, "value_not_castable", "score"), nullptr);
  EXPECT_NE(FindIssue(*ig, "value_not_castable", "id"), nullptr);
  EXPECT_NE(FindIssue(*ig, "value_not_castable", "name"), nullptr);
  ASSERT_OK(svc_->Abandon(c->id));

  // A file that is fine beside one that is not: the issue names the bad one.
  auto two = svc_->Negotiate(Request("acme.sec.two", SchemaSource::Declared({{"id", "INT64"}}),
                                     {{"good.csv", "id\n1\n2\n"}, {"bad.csv", "id\n1\n2\n3.5\n"}}));
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  const ContractIssue* i = FindIssue(*two, "value_not_castable", "id");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->fields.at("file"), "bad.csv");
  EXPECT_EQ(i->fields.at("row"), "3");
  EXPECT_EQ(i->fields.at("value"), "3.5");
}

TEST_P(UploadSuite, SampleCheckReadsCompleteRecordsOfDecodedSamples) {
  // A sample cut mid-record: the partial last record is not read (a write reads it whole).
  std::string csv = "id,v\n1,a\n2,b\n3";
  std::string whole = csv + "00,c\n";
  auto cut = SampleBytes("p.csv", whole, static_cast<int64_t>(csv.size()));
  ASSERT_TRUE(cut.ok());
  ASSERT_FALSE(cut->whole_file);
  NegotiateRequest req;
  req.target = "acme.sec.cut";
  req.schema = SchemaSource::Declared({{"id", "INT8"}, {"v", "VARCHAR"}});
  req.samples.push_back(*cut);
  auto c = svc_->Negotiate(req);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->state, ContractState::kAccepted) << (c->issues.empty() ? "" : c->issues[0].detail);
  // The write reads 300, which INT8 cannot hold: refused then, as before.
  auto w = svc_->WriteBytes(c->id, "p.csv", whole);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(UploadErrorOf(w.status()), UploadErrorCode::kValueNotCastable);
  EXPECT_EQ(ErrorField(w.status(), "row"), "3");

  // A compressed sample is decoded as inference decoded it.
  std::string plain = "id,v\n1,a\n2,b\n";
  for (int i = 3; i < 2000; ++i) plain += std::to_string(i) + ",x\n";
  plain += "oops,z\n";
  ByteBuffer z;
  ASSERT_OK(Compress(CompressionCodec::kZstd, reinterpret_cast<const uint8_t*>(plain.data()),
                     plain.size(), &z));
  std::string zst(reinterpret_cast<const char*>(z.data()), z.size());
  auto zc = svc_->Negotiate(Request("acme.sec.zst",
                                    SchemaSource::Declared({{"id", "INT64"}, {"v", "VARCHAR"}}),
                                    {{"z.csv.zst", zst}}));
  ASSERT_TRUE(zc.ok()) << zc.status().ToString();
  const ContractIssue* i = FindIssue(*zc, "value_not_castable", "id");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->fields.at("row"), "2000");
  EXPECT_EQ(i->fields.at("file"), "z.csv.zst");
  // Retype rereads the kept (compressed) sample.
  auto r = svc_->Retype(zc->id, {{"id", "FLOAT64"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(FindIssue(*r, "value_not_castable", "id"), nullptr);
  r = svc_->Retype(zc->id, {{"id", "VARCHAR"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->blocking());

  // NDJSON, and an existing dataset (no retype there: the dataset's types are the contract).
  MakeDataset("acme.sec.nd", "id INT64, ok BOOLEAN");
  auto nd = svc_->Negotiate(
      Request("acme.sec.nd", SchemaSource::OfDataset(),
              {{"n.ndjson", "{\"id\":1,\"ok\":true}\n{\"id\":2,\"ok\":\"maybe\"}\n"}}));
  ASSERT_TRUE(nd.ok()) << nd.status().ToString();
  EXPECT_EQ(nd->state, ContractState::kProposed);
  i = FindIssue(*nd, "value_not_castable", "ok");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->fields.at("row"), "2");
  EXPECT_EQ(i->fields.at("value"), "maybe");
  auto w2 = svc_->WriteBytes(nd->id, "n.ndjson", "{\"id\":1,\"ok\":true}\n");
  EXPECT_EQ(UploadErrorOf(w2.status()), UploadErrorCode::kContractNotAccepted);
  // Parquet samples are footers: nothing to read, nothing kept.
}

TEST_P(UploadSuite, ReadingOverlapsWritingWithinTheBound) {
  MakeDataset("acme.sec.big", "id INT64, v VARCHAR");
  auto c = Agreed(Request("acme.sec.big", SchemaSource::OfDataset(), {{"a.csv", "id,v\n1,a\n"}}));
  ASSERT_FALSE(c.id.empty());
  ContractServiceOptions o = Options();
  o.batch_rows = 100;   // many batches through the queue
  o.flush_rows = 1000;  // many staged files
  o.flush_bytes = 64 << 10;
  ContractService small(cat1_, o);
  std::string csv = "id,v\n";
  for (int i = 0; i < 20000; ++i) csv += std::to_string(i) + ",v" + std::to_string(i) + "\n";
  std::vector<int64_t> progress;
  auto w = small.WriteBytes(c.id, "a.csv", csv, {},
                            [&](int64_t done, int64_t) { progress.push_back(done); });
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->part.rows, 20000);
  EXPECT_GE(w->part.files, 20);
  EXPECT_EQ(static_cast<size_t>(w->part.files), Staged(c.id).size());
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back(), static_cast<int64_t>(csv.size()));
  EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));

  // A bad row late in the file: the files staged before it are deleted, the row is exact.
  std::string bad = csv;
  bad += "notanumber,x\n";
  for (int i = 0; i < 500; ++i) bad += "1,y\n";
  auto before = Staged(c.id);
  auto f = small.WriteBytes(c.id, "b.csv", bad);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(UploadErrorOf(f.status()), UploadErrorCode::kValueNotCastable);
  EXPECT_EQ(ErrorField(f.status(), "row"), "20001");
  EXPECT_EQ(Staged(c.id), before);

  // A write its caller stops half way (the full-screen app's quit) ends kCancelled and leaves
  // nothing: not its finished files, not a temporary one.
  std::string large = "id,v\n";
  for (int i = 0; i < 400000; ++i) large += std::to_string(i) + ",v" + std::to_string(i) + "\n";
  int calls = 0;
  auto stopped = small.WriteBytes(c.id, "c.csv", large, {}, [&](int64_t done, int64_t total) {
    EXPECT_LT(done, total);
    return ++calls < 2;  // the second report stops it
  });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().kind(), ErrorKind::kCancelled) << stopped.status().ToString();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(Staged(c.id), before);
  std::error_code ec;
  const auto staging = dir_ / "warehouse" / "uploads" / c.id;
  if (std::filesystem::exists(staging, ec)) {
    size_t on_disk = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(staging, ec)) {
      on_disk += e.is_regular_file() && e.path().string().find("/samples/") == std::string::npos;
    }
    EXPECT_EQ(on_disk, before.size());
  }

  auto done = svc_->CommitContract(c.id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->rows_written, 20000);
  auto rows = Rows("acme.sec.big");
  ASSERT_EQ(rows.size(), 20000u);
  EXPECT_EQ(rows.front(), "0|v0");
}

TEST_P(UploadSuite, ViewsActAsTheirCallerOverOneService) {
  auto alice = svc_->As("alice");
  auto bob = svc_->As("bob");
  EXPECT_EQ(alice->actor(), "alice");
  EXPECT_EQ(svc_->actor(), "local:tester");
  auto c = alice->Negotiate(
      Request("acme.sec.who", SchemaSource::Declared({{"id", "INT64"}}), {{"a.csv", "id\n1\n"}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->created_by, "alice");
  // Another caller sees and finishes the same contract; the default author is the caller.
  ASSERT_TRUE(bob->WriteBytes(c->id, "a.csv", "id\n1\n").ok());
  svc_.reset();  // a view outlives the service it came from
  auto done = bob->CommitContract(c->id, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  auto snaps = cat1_->ListSnapshots("acme.sec.who");
  ASSERT_TRUE(snaps.ok()) << snaps.status().ToString();
  ASSERT_EQ(snaps->size(), 1u);
  EXPECT_EQ((*snaps)[0].author, "bob");
  EXPECT_EQ(alice->GetContract(c->id)->created_by, "alice");
}

// ---- under metastore faults (metastore/fault) ----

// The state as stored (GetContract shows kCommitting as kWriting); nullopt without a record.
std::optional<ContractState> StoredState(Catalog& cat, const std::string& id) {
  std::optional<ContractState> state;
  Status st = cat.metastore().RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto rec, internal::LoadRecord(tx, id));
        if (rec) state = rec->state;
        return Status::OK();
      },
      TxMode::kReadOnly);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return state;
}

// Arms `arm(faults, n)` for n = 1, 2, ... before a keyed commit of a fresh contract, until a
// commit runs past the rule. After each refused commit: released ("writing"), the dataset holds
// the contract's rows at most once and a retry with the key commits them exactly once; claimed
// ("committing", a takeover's job), they are there at most once; "committed" (the final mark's
// reply lost), the retry replays.
void CommitUnderFaults(UploadSuite& t, ContractService& svc, Catalog& cat, const std::string& name,
                       const std::function<void(MetastoreFaults&, uint64_t)>& arm) {
  auto faults = std::make_shared<MetastoreFaults>();
  cat.metastore().SetFaults(faults);
  size_t snapshots = 0;
  bool reached_end = false;
  for (uint64_t n = 1; n <= 200 && !reached_end; ++n) {
    auto c = t.AgreedForTest(name);
    ASSERT_TRUE(svc.WriteBytes(c.id, "a.csv", "id\n1\n2\n").ok());
    uint64_t fired = faults->faults_injected();
    arm(*faults, n);
    CommitRequest req;
    req.idempotency_key = "key-" + std::to_string(n);
    auto r = svc.CommitContract(c.id, req);
    bool hit = faults->faults_injected() > fired;
    faults->Reset();
    size_t now = cat.ListSnapshots(name)->size();
    if (!hit) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(now, snapshots + 1);
      reached_end = true;
      break;
    }
    std::optional<ContractState> state = StoredState(cat, c.id);
    EXPECT_TRUE(now == snapshots || now == snapshots + 1) << "fault " << n << ": " << now;
    if (r.ok()) {
      EXPECT_EQ(state, ContractState::kCommitted);
      EXPECT_EQ(now, snapshots + 1);
    } else if (state == ContractState::kWriting || state == ContractState::kCommitted) {
      auto retry = svc.CommitContract(c.id, req);
      ASSERT_TRUE(retry.ok()) << "fault " << n << ": " << retry.status().ToString();
      EXPECT_EQ(StoredState(cat, c.id), ContractState::kCommitted);
      now = cat.ListSnapshots(name)->size();
      EXPECT_EQ(now, snapshots + 1) << "fault " << n;
    } else {
      EXPECT_EQ(state, ContractState::kCommitting) << "fault " << n;
    }
    snapshots = now;
    EXPECT_EQ(t.RowsForTest(name).size(), 2 * snapshots) << "fault " << n;
  }
  EXPECT_TRUE(reached_end);
  cat.metastore().SetFaults(nullptr);
}

TEST_P(UploadSuite, ContractClaimAndCommitUnderStatementFaults) {
  MakeDataset("acme.sec.f", "id INT64 NOT NULL");
  CommitUnderFaults(*this, *svc_, *cat1_, "acme.sec.f",
                    [](MetastoreFaults& f, uint64_t n) { f.FailNthStatement(n); });
}

TEST_P(UploadSuite, ContractClaimAndCommitUnderCommitFaults) {
  MakeDataset("acme.sec.g", "id INT64 NOT NULL");
  CommitUnderFaults(*this, *svc_, *cat1_, "acme.sec.g",
                    [](MetastoreFaults& f, uint64_t n) { f.FailNthCommit(n); });
}

TEST_P(UploadSuite, ContractClaimAndCommitUnderLostCommitReplies) {
  MakeDataset("acme.sec.h", "id INT64 NOT NULL");
  CommitUnderFaults(*this, *svc_, *cat1_, "acme.sec.h",
                    [](MetastoreFaults& f, uint64_t n) { f.LoseNthCommitReply(n); });
}

INSTANTIATE_TEST_SUITE_P(Backends, UploadSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

// ---- the SDK's free functions ----

TEST(UploadSdk, SampleBytesAndFiles) {
  auto s = SampleBytes("a.csv", "id\n1\n2\n", 4);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->bytes, "id\n1");
  EXPECT_FALSE(s->whole_file);
  EXPECT_EQ(s->file_size, 7);
  auto whole = SampleBytes("a.csv", "id\n1\n");
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(whole->whole_file);
  auto unknown = SampleBytes("a.xlsx", "x");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(UploadErrorOf(unknown.status()), UploadErrorCode::kFormatUnreadable);
  EXPECT_EQ(ErrorField(unknown.status(), "file"), "a.xlsx");
  auto not_parquet = SampleBytes("a.parquet", "this is not parquet at all");
  ASSERT_FALSE(not_parquet.ok());
  EXPECT_EQ(UploadErrorOf(not_parquet.status()), UploadErrorCode::kFormatUnreadable);
  // A trailer whose length does not fit.
  std::string liar = "PAR1xxxx";
  liar += std::string("\xff\xff\x00\x00", 4) + "PAR1";
  EXPECT_EQ(UploadErrorOf(SampleBytes("a.parquet", liar).status()),
            UploadErrorCode::kFormatUnreadable);
  // The tail of a real-shaped file: footer length 3, footer "abc".
  std::string fake =
      "PAR1" + std::string(100, 'd') + "abc" + std::string("\x03\x00\x00\x00", 4) + "PAR1";
  auto tail = SampleBytes("a.parquet", fake);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(tail->bytes, "abc" + std::string("\x03\x00\x00\x00", 4) + "PAR1");
  EXPECT_EQ(tail->file_size, static_cast<int64_t>(fake.size()));
  EXPECT_FALSE(tail->whole_file);

  auto missing = SampleFile("/nonexistent/dir/a.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  std::string path = testing::TempDir() + "/tarn_upload_sample.csv";
  {
    FILE* f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fputs("id,name\n1,a\n", f);
    fclose(f);
  }
  auto local = SampleFile(path, 1 << 20);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(local->bytes, "id,name\n1,a\n");
  EXPECT_TRUE(local->whole_file);
  std::remove(path.c_str());
}

// Every value of the contract vocabularies reads back from its string; any other string is
// nullopt (the decoders and the store refuse it).
TEST(UploadSdk, VocabulariesReadBackTheirWireStrings) {
  const std::pair<ContractState, const char*> states[] = {
      {ContractState::kProposed, "proposed"}, {ContractState::kAccepted, "accepted"},
      {ContractState::kWriting, "writing"},   {ContractState::kCommitted, "committed"},
      {ContractState::kStale, "stale"},       {ContractState::kAbandoned, "abandoned"},
      {ContractState::kExpired, "expired"},   {ContractState::kCommitting, "committing"}};
  for (const auto& [v, name] : states) {
    EXPECT_EQ(ContractStateName(v), name);
    EXPECT_EQ(ContractStateFromName(name), v) << name;
  }
  const std::pair<SchemaMode, const char*> modes[] = {{SchemaMode::kCreate, "create"},
                                                      {SchemaMode::kAppend, "append"},
                                                      {SchemaMode::kOverwrite, "overwrite"}};
  for (const auto& [v, name] : modes) {
    EXPECT_EQ(SchemaModeName(v), name);
    EXPECT_EQ(SchemaModeFromName(name), v) << name;
  }
  const std::pair<PlanAction, const char*> actions[] = {{PlanAction::kKeep, "keep"},
                                                        {PlanAction::kRetag, "retag"},
                                                        {PlanAction::kWiden, "widen"},
                                                        {PlanAction::kCast, "cast"},
                                                        {PlanAction::kUnsupported, "unsupported"},
                                                        {PlanAction::kUndeclared, "undeclared"},
                                                        {PlanAction::kIgnored, "ignored"},
                                                        {PlanAction::kMissing, "missing"}};
  for (const auto& [v, name] : actions) {
    EXPECT_EQ(PlanActionName(v), name);
    EXPECT_EQ(PlanActionFromName(name), v) << name;
  }
  EXPECT_EQ(IssueSeverityName(IssueSeverity::kBlocking), "blocking");
  EXPECT_EQ(IssueSeverityName(IssueSeverity::kWarning), "warning");
  EXPECT_EQ(IssueSeverityFromName("blocking"), IssueSeverity::kBlocking);
  EXPECT_EQ(IssueSeverityFromName("warning"), IssueSeverity::kWarning);
  for (const char* other : {"", "Proposed", "proposed ", "commit", "none"}) {
    EXPECT_FALSE(ContractStateFromName(other)) << other;
    EXPECT_FALSE(SchemaModeFromName(other)) << other;
    EXPECT_FALSE(PlanActionFromName(other)) << other;
    EXPECT_FALSE(IssueSeverityFromName(other)) << other;
  }
}

TEST(UploadSdk, NamesAndErrors) {
  EXPECT_EQ(SchemaSourceName(SchemaSourceKind::kDeclared), "declared");
  EXPECT_EQ(SchemaSourceName(SchemaSourceKind::kAuto), "auto");
  EXPECT_EQ(WriteModeName(WriteMode::kOverwrite), "overwrite");
  EXPECT_EQ(SchemaSource::Auto(WriteMode::kOverwrite).mode, WriteMode::kOverwrite);
  EXPECT_EQ(SchemaSource::Declared({{"a", "INT64"}}).declared.size(), 1u);
  EXPECT_EQ(UploadErrorCodeName(UploadErrorCode::kValueNotCastable), "value_not_castable");
  EXPECT_EQ(UploadErrorCodeName(UploadErrorCode::kContractNotFound), "contract_not_found");
  Status st =
      Status::InvalidArgument("x").WithField("code", "column_missing").WithField("column", "c");
  EXPECT_EQ(UploadErrorOf(st), UploadErrorCode::kColumnMissing);
  EXPECT_EQ(ErrorField(st, "column"), "c");
  EXPECT_EQ(ErrorField(st, "nope"), "");
  EXPECT_FALSE(UploadErrorOf(Status::OK()));
  EXPECT_FALSE(UploadErrorOf(Status::InvalidArgument("x").WithField("code", "bogus")));
  Contract c;
  c.issues.push_back({"all_null", "a", "", IssueSeverity::kWarning, {}});
  EXPECT_FALSE(c.blocking());
  c.issues.push_back({"column_undeclared", "b", "", IssueSeverity::kBlocking, {}});
  EXPECT_TRUE(c.blocking());
  c.plan.push_back(PlanEntry{"a", "INT64", "INT64", PlanAction::kKeep, "5"});
  EXPECT_EQ(c.values().at("a"), "5");
}

}  // namespace
}  // namespace tarn::upload

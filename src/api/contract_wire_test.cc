#include "api/contract_wire.h"

#include <gtest/gtest.h>

#include <limits>

namespace tarn::api {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::string Field(const Status& st, std::string_view name) {
  for (const auto& [k, v] : st.fields()) {
    if (k == name) return v;
  }
  return "<absent>";
}

// Encodes, dumps to text, parses back and decodes; encoding the result gives the same JSON.
template <typename T, typename Decode>
T RoundTrip(const T& v, Decode decode) {
  Json j = ToJson(v);
  auto parsed = ParseObject(Dump(j));
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  auto back = decode(*parsed);
  EXPECT_TRUE(back.ok()) << back.status().ToString() << "\n" << Dump(j);
  if (!back.ok()) return T{};
  EXPECT_EQ(Dump(ToJson(*back)), Dump(j));
  return std::move(back).value();
}

// Decodes `text` (a JSON object) with `decode` and returns the error.
template <typename Decode>
Status DecodeError(const std::string& text, Decode decode) {
  auto j = ParseObject(text);
  EXPECT_TRUE(j.ok()) << text;
  if (!j.ok()) return j.status();
  auto r = decode(*j);
  EXPECT_FALSE(r.ok()) << "decoded: " << text;
  return r.ok() ? Status::OK() : r.status();
}

Contract FullContract() {
  Contract c;
  c.id = "ct_20240102030405_0123456789ab";
  c.state = ContractState::kWriting;
  c.target = "acme.sec.findings";
  c.requested_source = "auto";
  c.schema_source = "dataset";
  c.mode = SchemaMode::kAppend;
  c.dataset_exists = true;
  c.dataset_uuid = "0b3c5f1e-1111-2222-3333-444455556666";
  c.dataset_schema_id = 7;
  c.channel = "cli";
  c.files = {{"a.csv.gz", "csv", "gzip", 123456, 1000, 4096}, {"b.parquet", "parquet", "none"}};
  PlanEntry keep{"id", "INT64", "INT64", PlanAction::kKeep, "42", false, false};
  PlanEntry cast{"at", "VARCHAR", "TIMESTAMP", PlanAction::kCast, "2024-01-01 00:00:00",
                 true, true};
  PlanEntry undeclared{"zoë \"q\"", "VARCHAR", "", PlanAction::kUndeclared, "", false, false};
  c.plan = {keep, cast, undeclared};
  c.issues = {
      {"column_undeclared", "zoë \"q\"", "not in the dataset", IssueSeverity::kBlocking, {}},
      {"all_null", "x", "", IssueSeverity::kWarning, {}},
      {"value_not_castable",
       "id",
       "file 'a.csv' row 2",
       IssueSeverity::kBlocking,
       {{"file", "a.csv"}, {"row", "2"}, {"value", "x"}, {"declared", "INT64"}}}};
  c.fingerprint = "00112233445566778899aabbccddeeff";
  c.parts = {{1, "a.csv.gz", 1000, 2048, 4096, 1, 1700000000000000},
             {2, "b.parquet", kMax, 0, 0, 0, 0}};
  c.rows_written = 1000;
  c.bytes_written = 4096;
  c.created_by = "tarn_ABC";
  c.created_at_us = 1;
  c.updated_at_us = 2;
  c.expires_at_us = 3;
  return c;
}

TEST(ContractWireTest, ContractRoundTripKeepsEveryField) {
  Contract c = FullContract();
  Contract back = RoundTrip(c, ContractFromJson);
  EXPECT_EQ(back.id, c.id);
  EXPECT_EQ(back.state, ContractState::kWriting);
  EXPECT_EQ(back.dataset_schema_id, 7);
  ASSERT_EQ(back.files.size(), 2u);
  EXPECT_EQ(back.files[0].compression, "gzip");
  EXPECT_EQ(back.files[0].sampled_bytes, 4096);
  EXPECT_EQ(back.files[1].file_size, -1);
  ASSERT_EQ(back.plan.size(), 3u);
  EXPECT_EQ(back.plan[1].to, "TIMESTAMP");
  EXPECT_TRUE(back.plan[1].changes_values);
  EXPECT_TRUE(back.plan[1].retyped);
  EXPECT_EQ(back.plan[2].column, "zoë \"q\"");
  ASSERT_EQ(back.issues.size(), 3u);
  EXPECT_TRUE(back.issues[0].blocking());
  EXPECT_FALSE(back.issues[1].blocking());
  EXPECT_TRUE(back.issues[1].fields.empty());
  EXPECT_FALSE(ToJson(c)["issues"][1].contains("fields"));
  EXPECT_EQ(back.issues[2].fields, c.issues[2].fields);
  EXPECT_TRUE(back.blocking());
  ASSERT_EQ(back.parts.size(), 2u);
  EXPECT_EQ(back.parts[1].rows, kMax);
  EXPECT_EQ(back.parts[0].written_at_us, 1700000000000000);
  EXPECT_FALSE(back.committed.has_value());
  EXPECT_TRUE(ToJson(c)["committed"].is_null());
}

TEST(ContractWireTest, CommittedContractCarriesItsResult) {
  Contract c = FullContract();
  c.state = ContractState::kCommitted;
  UploadCommitResult done;
  done.target = c.target;
  done.snapshot_id = 99;
  done.commit_id = "c-1";
  done.rows_written = 10;
  done.files = 2;
  done.bytes = 300;
  done.created_dataset = true;
  done.idempotent_replay = true;
  c.committed = done;
  Contract back = RoundTrip(c, ContractFromJson);
  ASSERT_TRUE(back.committed.has_value());
  EXPECT_EQ(back.committed->snapshot_id, 99);
  EXPECT_TRUE(back.committed->created_dataset);
  EXPECT_TRUE(back.committed->idempotent_replay);
  UploadCommitResult r = RoundTrip(done, UploadCommitResultFromJson);
  EXPECT_EQ(r.commit_id, "c-1");
  EXPECT_EQ(r.bytes, 300);
}

TEST(ContractWireTest, NegotiateRequestRoundTripWithBinarySamples) {
  NegotiateRequest req;
  req.target = "acme.sec.findings";
  req.schema = SchemaSource::Declared({{"id", "INT64 NOT NULL"}, {"price", "DECIMAL(10,2)"}});
  req.schema.mode = WriteMode::kOverwrite;
  UploadSample s;
  s.name = "part 1.csv.gz";
  s.bytes = std::string("\x1f\x8b\0\xff\xfe", 5);
  s.file_size = 1ll << 40;
  s.whole_file = true;
  s.content_type = "text/csv";
  s.content_encoding = "gzip";
  req.samples = {s, UploadSample{"b.ndjson", "", -1, false, "", ""}};
  req.retype = {{"price", "DECIMAL(12,2)"}, {"a/b~c", "VARCHAR"}};
  req.ignore = {"junk"};
  req.channel = "cli";
  req.ttl_s = 60;
  NegotiateRequest back = RoundTrip(req, NegotiateRequestFromJson);
  EXPECT_EQ(back.schema.kind, SchemaSourceKind::kDeclared);
  EXPECT_EQ(back.schema.mode, WriteMode::kOverwrite);
  EXPECT_EQ(back.schema.declared, req.schema.declared);
  ASSERT_EQ(back.samples.size(), 2u);
  EXPECT_EQ(back.samples[0].bytes, s.bytes);
  EXPECT_EQ(back.samples[0].file_size, 1ll << 40);
  EXPECT_TRUE(back.samples[0].whole_file);
  EXPECT_EQ(back.samples[0].content_encoding, "gzip");
  EXPECT_EQ(back.samples[1].bytes, "");
  EXPECT_EQ(back.retype, req.retype);
  EXPECT_EQ(back.ignore, req.ignore);
  EXPECT_EQ(back.channel, "cli");
  EXPECT_EQ(back.ttl_s, 60);
}

TEST(ContractWireTest, EverySchemaSourceRoundTripsAndNoneHasNoSchema) {
  for (SchemaSource src : {SchemaSource::Inferred(), SchemaSource::OfDataset(WriteMode::kAppend),
                           SchemaSource::Auto(WriteMode::kOverwrite)}) {
    NegotiateRequest req;
    req.target = "a.b.c";
    req.schema = src;
    req.samples = {UploadSample{"x.csv", "a\n1\n", 4, true, "", ""}};
    NegotiateRequest back = RoundTrip(req, NegotiateRequestFromJson);
    EXPECT_EQ(back.schema.kind, src.kind);
    EXPECT_EQ(back.schema.mode, src.mode);
    EXPECT_FALSE(back.ttl_s.has_value());
  }
  NegotiateRequest none;
  none.target = "a.b.c";
  Json j = ToJson(none);
  EXPECT_FALSE(j.contains("schema"));
  auto back = NegotiateRequestFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->schema.kind, SchemaSourceKind::kNone);
  EXPECT_EQ(back->channel, "sdk");
}

TEST(ContractWireTest, MinimalNegotiateRequestTakesDefaults) {
  auto r = NegotiateRequestFromJson(
      Json::parse(R"({"target":"a.b.c","samples":[{"name":"x.csv","bytes":"YQo="}]})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->samples[0].bytes, "a\n");
  EXPECT_EQ(r->samples[0].file_size, -1);
  EXPECT_FALSE(r->samples[0].whole_file);
  EXPECT_TRUE(r->retype.empty());
  EXPECT_TRUE(r->ignore.empty());
}

TEST(ContractWireTest, WriteResultAndCommitRequestRoundTrip) {
  WriteResult w;
  w.contract_id = "ct_1";
  w.part = {3, "p.ndjson.zst", 10, 20, 30, 2, 40};
  WriteResult back = RoundTrip(w, WriteResultFromJson);
  EXPECT_EQ(back.contract_id, "ct_1");
  EXPECT_EQ(back.part.seq, 3);
  EXPECT_EQ(back.part.files, 2);
  EXPECT_EQ(back.part.bytes_written, 30);

  CommitRequest c{"nightly", std::string("key-1"), "alice"};
  CommitRequest cb = RoundTrip(c, CommitRequestFromJson);
  EXPECT_EQ(cb.message, "nightly");
  EXPECT_EQ(cb.idempotency_key, "key-1");
  EXPECT_EQ(cb.author, "alice");
  CommitRequest empty = RoundTrip(CommitRequest{}, CommitRequestFromJson);
  EXPECT_FALSE(empty.idempotency_key.has_value());
  auto from_empty = CommitRequestFromJson(Json::object());
  ASSERT_TRUE(from_empty.ok());
  EXPECT_EQ(from_empty->message, "");
}

TEST(ContractWireTest, RetypeIgnoreAcceptBodies) {
  std::map<std::string, std::string> types = {{"a", "INT32"}, {"we/ird~", "DATE"}};
  auto t = RetypeFromJson(Json::parse(Dump(RetypeBody(types))));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t, types);
  auto i = IgnoreFromJson(IgnoreBody({"x", "y"}));
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(*i, (std::vector<std::string>{"x", "y"}));
  auto a = AcceptFromJson(AcceptBody("abc"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, "abc");
}

TEST(ContractWireTest, MalformedBodiesNameTheField) {
  struct Case {
    const char* text;
    const char* code;
    const char* field;
  };
  auto check = [](const Case& c, auto decode) {
    Status st = DecodeError(c.text, decode);
    EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument) << c.text;
    EXPECT_EQ(Field(st, "code"), c.code) << c.text << ": " << st.ToString();
    EXPECT_EQ(Field(st, "field"), c.field) << c.text << ": " << st.ToString();
  };
  const Case negotiate[] = {
      {R"({"samples":[]})", "missing_field", "/target"},
      {R"({"target":"a.b.c"})", "missing_field", "/samples"},
      {R"({"target":1,"samples":[]})", "wrong_type", "/target"},
      {R"({"target":"a.b.c","samples":{}})", "wrong_type", "/samples"},
      {R"({"target":"a.b.c","samples":[7]})", "wrong_type", "/samples/0"},
      {R"({"target":"a.b.c","samples":[{"name":"x.csv"}]})", "missing_field", "/samples/0/bytes"},
      {R"({"target":"a.b.c","samples":[{"name":"x.csv","bytes":"***"}]})", "invalid_base64",
       "/samples/0/bytes"},
      {R"({"target":"a.b.c","samples":[{"name":"x.csv","bytes":"","size":1}]})", "unknown_field",
       "/samples/0/size"},
      {R"({"target":"a.b.c","samples":[{"name":"x","bytes":"","file_size":1.5}]})", "wrong_type",
       "/samples/0/file_size"},
      {R"({"target":"a.b.c","samples":[{"name":"x","bytes":"","file_size":18446744073709551615}]})",
       "out_of_range", "/samples/0/file_size"},
      {R"({"target":"a.b.c","samples":[],"schema":{"source":"guess"}})", "invalid_value",
       "/schema/source"},
      {R"({"target":"a.b.c","samples":[],"schema":{}})", "missing_field", "/schema/source"},
      {R"({"target":"a.b.c","samples":[],"schema":{"source":"dataset","mode":"upsert"}})",
       "invalid_value", "/schema/mode"},
      {R"({"target":"a.b.c","samples":[],"schema":{"source":"declared","columns":[{"name":"a"}]}})",
       "missing_field", "/schema/columns/0/type"},
      {R"({"target":"a.b.c","samples":[],"schema":{"source":"declared","columns":[{"name":"a","type":"INT64","x":1}]}})",
       "unknown_field", "/schema/columns/0/x"},
      {R"({"target":"a.b.c","samples":[],"retype":{"a/b":5}})", "wrong_type", "/retype/a~1b"},
      {R"({"target":"a.b.c","samples":[],"retype":[]})", "wrong_type", "/retype"},
      {R"({"target":"a.b.c","samples":[],"ignore":[1]})", "wrong_type", "/ignore/0"},
      {R"({"target":"a.b.c","samples":[],"ttl_s":"1h"})", "wrong_type", "/ttl_s"},
      {R"({"target":"a.b.c","samples":[],"bogus":true})", "unknown_field", "/bogus"},
  };
  for (const auto& c : negotiate) check(c, NegotiateRequestFromJson);

  const Case contract[] = {
      {R"({"state":"proposed","target":"a.b.c"})", "missing_field", "/id"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","plan":[{"column":"a"}]})", "missing_field",
       "/plan/0/action"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","parts":[{"seq":4294967296,"name":"p"}]})",
       "out_of_range", "/parts/0/seq"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","issues":[{"code":"c"}]})", "missing_field",
       "/issues/0/severity"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","issues":[{"code":"c","severity":"warning","fields":{"row":2}}]})",
       "wrong_type", "/issues/0/fields/row"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","issues":[{"code":"c","severity":"warning","fields":[]}]})",
       "wrong_type", "/issues/0/fields"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","committed":{"target":"t"}})",
       "missing_field", "/committed/snapshot_id"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","files":[{"name":"n","extra":0}]})",
       "unknown_field", "/files/0/extra"},
      // The vocabularies: a word outside the list, and the store's own committing state.
      {R"({"id":"x","state":"Proposed","target":"a.b.c"})", "invalid_value", "/state"},
      {R"({"id":"x","state":"committing","target":"a.b.c"})", "invalid_value", "/state"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","mode":"upsert"})", "invalid_value",
       "/mode"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","plan":[{"column":"a","action":"drop"}]})",
       "invalid_value", "/plan/0/action"},
      {R"({"id":"x","state":"proposed","target":"a.b.c","issues":[{"code":"c","severity":"info"}]})",
       "invalid_value", "/issues/0/severity"},
  };
  for (const auto& c : contract) check(c, ContractFromJson);

  check({R"({"types":{"a":"INT32"},"x":1})", "unknown_field", "/x"}, RetypeFromJson);
  check({R"({})", "missing_field", "/types"}, RetypeFromJson);
  check({R"({"types":{"a":null}})", "wrong_type", "/types/a"}, RetypeFromJson);
  check({R"({"columns":"a"})", "wrong_type", "/columns"}, IgnoreFromJson);
  check({R"({})", "missing_field", "/columns"}, IgnoreFromJson);
  check({R"({"fingerprint":null})", "wrong_type", "/fingerprint"}, AcceptFromJson);
  check({R"({"message":"m","key":"k"})", "unknown_field", "/key"}, CommitRequestFromJson);
  check({R"({"contract_id":"c"})", "missing_field", "/part"}, WriteResultFromJson);
  check({R"({"contract_id":"c","part":{"seq":1}})", "missing_field", "/part/name"},
        WriteResultFromJson);
}

TEST(ContractWireTest, ResponsesMayGrowFieldsInsideAllowUnknownFields) {
  Json j = ToJson(FullContract());
  j["new_field"] = 1;
  j["plan"][0]["hint"] = "x";
  EXPECT_FALSE(ContractFromJson(j).ok());
  AllowUnknownFields lenient;
  auto c = ContractFromJson(j);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->plan.size(), 3u);
}

TEST(ContractWireTest, NonObjectsAreWrongType) {
  for (const Json& j : {Json(nullptr), Json(1), Json("s"), Json::array()}) {
    auto c = ContractFromJson(j);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(Field(c.status(), "code"), "wrong_type");
    EXPECT_EQ(Field(c.status(), "field"), "");
    EXPECT_FALSE(NegotiateRequestFromJson(j).ok());
    EXPECT_FALSE(RetypeFromJson(j).ok());
    EXPECT_FALSE(CommitRequestFromJson(j).ok());
  }
}

}  // namespace
}  // namespace tarn::api

#include "api/wire.h"

#include <gtest/gtest.h>

#include <limits>

#include "table/test_util.h"

namespace tarn::api {
namespace {

using table_test::Col;
using table_test::S;
using table_test::Texts;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::string Field(const Status& st, std::string_view name) {
  for (const auto& [k, v] : st.fields()) {
    if (k == name) return v;
  }
  return "<absent>";
}

// Encodes, dumps to text, parses back and decodes: what crosses the wire.
template <typename T, typename Decode>
T RoundTrip(const T& v, Decode decode) {
  Json j = ToJson(v);
  auto parsed = ParseObject(Dump(j));
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  auto back = decode(*parsed);
  EXPECT_TRUE(back.ok()) << back.status().ToString() << "\n" << Dump(j);
  if (!back.ok()) return T{};
  // Encoding the decoded value gives the same JSON: nothing was lost.
  EXPECT_EQ(Dump(ToJson(*back)), Dump(j));
  return std::move(back).value();
}

DataFile AwkwardFile() {
  DataFile f;
  f.path = "ws/c/d/data/zoë=ü/part 1.parquet";
  f.record_count = kMax;
  f.file_size_bytes = 0;
  f.spec_id = 3;
  f.partition = {std::string("3"), std::nullopt, std::string("naïve \"quoted\"")};
  ColumnStats a;
  a.field_id = 1;
  a.value_count = 10;
  a.null_count = 2;
  a.nan_count = 0;
  a.lower = std::string("\0\x01\xff\xfe", 4);
  a.upper = std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
  ColumnStats b;
  b.field_id = 2;
  b.value_count = 5;
  f.columns = {a, b};
  f.file_id = 77;
  f.first_row_id = -1;
  f.added_snapshot_id = 9;
  f.removed_snapshot_id = 12;
  return f;
}

TEST(WireTest, WorkspaceRoundTripWithOptionalProtection) {
  WorkspaceInfo w;
  w.id = kMax;
  w.name = "acme";
  w.properties = {{"owner", "zoë"}, {"empty", ""}, {"emoji", "\xF0\x9F\x98\x80"}};
  w.deletion_protection = "false";
  w.created_at_us = kMin;
  w.updated_at_us = 0;
  w.collection_count = 4;
  WorkspaceInfo back = RoundTrip(w, WorkspaceFromJson);
  EXPECT_EQ(back.id, kMax);
  EXPECT_EQ(back.created_at_us, kMin);
  EXPECT_EQ(back.properties, w.properties);
  EXPECT_EQ(back.deletion_protection, "false");
  EXPECT_FALSE(back.egress_protection.has_value());
  EXPECT_EQ(back.collection_count, 4);
  // An absent optional field decodes as absent too (not only null).
  Json j = ToJson(w);
  j.erase("egress_protection");
  j.erase("collection_count");
  auto dec = WorkspaceFromJson(j);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_FALSE(dec->egress_protection.has_value());
  EXPECT_EQ(dec->collection_count, 0);
}

TEST(WireTest, CollectionRoundTrip) {
  CollectionInfo c;
  c.id = 5;
  c.workspace = "acme";
  c.name = "sales";
  c.description = "line1\nline2 \t ünïcødé";
  c.properties = {{"k", "v"}};
  c.created_at_us = 1;
  c.updated_at_us = 2;
  c.dataset_count = 3;
  c.dropped_dataset_count = 1;
  CollectionInfo back = RoundTrip(c, CollectionFromJson);
  EXPECT_EQ(back.description, c.description);
  EXPECT_EQ(back.dropped_dataset_count, 1);
}

TEST(WireTest, SchemaAndDefinitionRoundTrip) {
  Schema s =
      S("id INT64 NOT NULL, \"naïve col\" VARCHAR, tags ARRAY<VARCHAR>, d DECIMAL(38,10), "
        "ts TIMESTAMPTZ[ns]");
  s.fields[2].type = DataType::Array(s.fields[2].type.element(), 9, false);
  Schema back = RoundTrip(s, [](const Json& j) { return SchemaFromJson(j); });
  ASSERT_EQ(back.fields.size(), 5u);
  EXPECT_EQ(back.ToString(), s.ToString());
  EXPECT_EQ(back.fields[2].type.element_field().field_id, 9);
  EXPECT_FALSE(back.fields[2].type.element_field().nullable);

  DatasetDefinition d;
  d.schema = s;
  d.schema.fields[0].field_id = -1;  // unassigned ids survive
  d.partition_spec = "bucket(16, id), day(ts)";
  d.sort_order = "id DESC NULLS LAST";
  d.properties = {{"a", "b"}};
  DatasetDefinition dback = RoundTrip(d, DefinitionFromJson);
  EXPECT_EQ(dback.schema.fields[0].field_id, -1);
  EXPECT_EQ(dback.partition_spec, d.partition_spec);
  EXPECT_EQ(dback.sort_order, d.sort_order);

  // A bad type inside the schema names the schema's pointer.
  Json bad = ToJson(d);
  bad["schema"]["fields"][1]["type"] = "NOPE";
  auto err = DefinitionFromJson(bad);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(Field(err.status(), "field"), "/schema");
  EXPECT_EQ(Field(err.status(), "code"), "invalid_value");
}

TEST(WireTest, DatasetInfoRoundTripKeepsSpecsAndSortOrder) {
  Schema s = S("id INT64 NOT NULL, ts TIMESTAMP[us], name VARCHAR");
  DatasetInfo ds;
  ds.id = 42;
  ds.uuid = "0190c6a4-2c1e-7d5b-9b7a-1234567890ab";
  ds.name = {"acme", "sales", "orders"};
  ds.description = "orders ✓";
  ds.schema_id = 2;
  ds.schema = s;
  ds.last_field_id = 3;
  auto spec0 = PartitionSpec::Parse("", s, 0);
  auto spec1 = PartitionSpec::Parse("bucket(16, id), month(ts), truncate(4, name)", s, 1);
  ASSERT_TRUE(spec0.ok() && spec1.ok());
  ds.spec = *spec1;
  ds.specs = {*spec0, *spec1};
  auto order = SortOrder::Parse("ts DESC, id", s);
  ASSERT_TRUE(order.ok());
  ds.sort_order = *order;
  ds.current_snapshot_id = std::nullopt;
  ds.next_row_id = kMax;
  ds.total_records = 10;
  ds.expired_through = 3;
  ds.created_at_us = 1700000000000000;
  ds.updated_at_us = 1700000000000001;
  ds.dropped_at_us = 1700000000000002;
  DatasetInfo back = RoundTrip(ds, DatasetFromJson);
  EXPECT_EQ(back.name.ToString(), "acme.sales.orders");
  EXPECT_EQ(back.spec, ds.spec);
  EXPECT_EQ(back.specs, ds.specs);
  EXPECT_EQ(back.sort_order, ds.sort_order);
  EXPECT_FALSE(back.current_snapshot_id.has_value());
  EXPECT_EQ(back.dropped_at_us, ds.dropped_at_us);
  EXPECT_EQ(back.next_row_id, kMax);

  ds.current_snapshot_id = 0;  // present and zero is not absent
  DatasetInfo back2 = RoundTrip(ds, DatasetFromJson);
  ASSERT_TRUE(back2.current_snapshot_id.has_value());
  EXPECT_EQ(*back2.current_snapshot_id, 0);
}

TEST(WireTest, DataFileBoundsAreBase64Bytes) {
  DataFile f = AwkwardFile();
  Json j = ToJson(f);
  EXPECT_EQ(j["columns"][0]["lower"], "AAH//g==");
  EXPECT_TRUE(j["columns"][1]["lower"].is_null());
  DataFile back = RoundTrip(f, DataFileFromJson);
  ASSERT_EQ(back.columns.size(), 2u);
  EXPECT_EQ(back.columns[0], f.columns[0]);
  EXPECT_EQ(back.columns[1], f.columns[1]);
  EXPECT_EQ(back.partition, f.partition);
  EXPECT_EQ(back.removed_snapshot_id, 12);
  EXPECT_EQ(back.record_count, kMax);

  j["columns"][0]["upper"] = "not base64!";
  auto err = DataFileFromJson(j);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(Field(err.status(), "code"), "invalid_base64");
  EXPECT_EQ(Field(err.status(), "field"), "/columns/0/upper");
}

TEST(WireTest, DatasetCommitRoundTrip) {
  DatasetCommit c;
  c.dataset = "acme.sales.orders";
  c.expected_uuid = "u-1";
  c.read_snapshot_id = 0;
  c.operation = CommitOperation::kMerge;
  c.added = {AwkwardFile()};
  c.removed_paths = {"a.parquet", "b/ü.parquet"};
  c.deletes = {{"x.parquet", {0, 5, std::numeric_limits<uint64_t>::max()}}};
  c.written_spec_id = 1;
  c.meta.author = "";
  c.meta.message = "merge ✓";
  c.meta.idempotency_key = "key-1";
  c.meta.receipt =
      Receipt::Of({{"acme.sales.src", "u-2", 7, "tag", "nightly"}}, "view:acme.sales.v");
  c.meta.receipt->read_sources_truncated = true;
  DatasetCommit back = RoundTrip(c, DatasetCommitFromJson);
  EXPECT_EQ(back.operation, CommitOperation::kMerge);
  EXPECT_EQ(back.read_snapshot_id, 0);
  ASSERT_EQ(back.deletes.size(), 1u);
  EXPECT_EQ(back.deletes[0].positions, c.deletes[0].positions);
  EXPECT_EQ(back.meta.idempotency_key, "key-1");
  ASSERT_TRUE(back.meta.receipt.has_value());
  ASSERT_EQ(back.meta.receipt->read_sources.size(), 1u);
  EXPECT_EQ(back.meta.receipt->read_sources[0].resolved_by, "tag");
  EXPECT_EQ(back.meta.receipt->read_sources[0].tag, "nightly");
  EXPECT_EQ(back.meta.receipt->produced_by, std::optional<std::string>("view:acme.sales.v"));
  EXPECT_TRUE(back.meta.receipt->read_sources_truncated);
  // No receipt and a null one are both "none"; an empty object is a receipt that read nothing.
  DatasetCommit none = c;
  none.meta.receipt.reset();
  EXPECT_FALSE(RoundTrip(none, DatasetCommitFromJson).meta.receipt.has_value());
  DatasetCommit empty = c;
  empty.meta.receipt = Receipt{};
  auto eb = RoundTrip(empty, DatasetCommitFromJson);
  ASSERT_TRUE(eb.meta.receipt.has_value());
  EXPECT_TRUE(eb.meta.receipt->read_sources.empty());
  EXPECT_FALSE(eb.meta.receipt->produced_by.has_value());
  EXPECT_FALSE(back.rollback_to.has_value());

  // Minimal: only the required fields.
  auto minimal = DatasetCommitFromJson(
      Json{{"dataset", "a.b.c"}, {"operation", "rollback"}, {"rollback_to", 3}});
  ASSERT_TRUE(minimal.ok()) << minimal.status().ToString();
  EXPECT_EQ(minimal->rollback_to, 3);
  EXPECT_TRUE(minimal->meta.author.empty());

  auto bad_op = DatasetCommitFromJson(Json{{"dataset", "a.b.c"}, {"operation", "explode"}});
  ASSERT_FALSE(bad_op.ok());
  EXPECT_EQ(Field(bad_op.status(), "field"), "/operation");

  auto neg = DatasetCommitFromJson(Json{{"dataset", "a.b.c"},
                                        {"operation", "delete_rows"},
                                        {"deletes", {{{"path", "p"}, {"positions", {1, -2}}}}}});
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(Field(neg.status(), "field"), "/deletes/0/positions/1");
  EXPECT_EQ(Field(neg.status(), "code"), "wrong_type");
}

TEST(WireTest, SnapshotTagPlannedChangeSetRoundTrip) {
  SnapshotInfo s;
  s.dataset_uuid = "u";
  s.snapshot_id = kMax;
  s.parent_snapshot_id = std::nullopt;
  s.committed_at_us = kMin;
  s.author = "tarn_ABC";
  s.operation = "append";
  s.user_created = false;
  s.schema_id = 1;
  s.spec_id = 2;
  s.added_files = 1;
  s.total_bytes = kMax;
  s.idempotency_key = "k";
  s.commit_id = "c";
  s.idempotent_replay = true;
  SnapshotInfo sb = RoundTrip(s, SnapshotFromJson);
  EXPECT_EQ(sb.snapshot_id, kMax);
  EXPECT_FALSE(sb.user_created);
  EXPECT_FALSE(sb.receipt.has_value());  // not recorded
  EXPECT_TRUE(sb.idempotent_replay);
  EXPECT_FALSE(sb.parent_snapshot_id.has_value());

  TagInfo t{"nightly-1", 4, 5};
  TagInfo tb = RoundTrip(t, TagFromJson);
  EXPECT_EQ(tb.name, "nightly-1");
  EXPECT_EQ(tb.snapshot_id, 4);

  LocationGrant g{"landing/é x/", "tarn_abc", kMax};
  LocationGrant gb = RoundTrip(g, LocationFromJson);
  EXPECT_EQ(gb.prefix, g.prefix);
  EXPECT_EQ(gb.granted_by, "tarn_abc");
  EXPECT_EQ(gb.granted_at_us, kMax);
  Json unknown = ToJson(g);
  unknown["extra"] = 1;
  EXPECT_FALSE(LocationFromJson(unknown).ok());

  PlannedFile p;
  p.file = AwkwardFile();
  p.deleted_rows = 3;
  p.deletion_vector = std::string("\x00\x01\x02\xff", 4);
  PlannedFile pb = RoundTrip(p, PlannedFileFromJson);
  EXPECT_EQ(pb.deletion_vector, p.deletion_vector);
  p.deletion_vector.reset();
  EXPECT_FALSE(RoundTrip(p, PlannedFileFromJson).deletion_vector.has_value());

  ChangeSet c;
  c.from_snapshot_id = 1;
  c.to_snapshot_id = 4;
  c.added_files = {AwkwardFile()};
  c.removed_files = {AwkwardFile(), AwkwardFile()};
  c.deletion_vectors = {{"p", 3, 10, true}, {"q", 4, 0, false}};
  ChangeSet cb = RoundTrip(c, ChangeSetFromJson);
  EXPECT_EQ(cb.removed_files.size(), 2u);
  ASSERT_EQ(cb.deletion_vectors.size(), 2u);
  EXPECT_TRUE(cb.deletion_vectors[0].removed);
  EXPECT_EQ(cb.deletion_vectors[1].path, "q");
  EXPECT_FALSE(cb.next_from.has_value());
  c.next_from = 4;
  EXPECT_EQ(RoundTrip(c, ChangeSetFromJson).next_from, std::optional<int64_t>(4));
}

TEST(WireTest, ViewTypesRoundTrip) {
  ViewInfo v;
  v.name = DatasetName{"ws", "c", "v"};
  v.current.version = 3;
  v.current.sql = "SELECT 'é' AS x\n-- \"kept\" verbatim;\n";
  v.current.dialect = "trino";
  v.current.description = "d";
  v.current.schema = *Schema::Parse("x VARCHAR NOT NULL");
  v.current.author = "tarn_abc";
  v.current.created_at_us = kMax;
  v.created_by = "alice";
  v.created_at_us = 1;
  v.updated_at_us = kMax;
  ViewInfo plain = RoundTrip(v, ViewFromJson);
  EXPECT_EQ(plain.current.sql, v.current.sql);
  EXPECT_EQ(plain.current.schema->ToString(), "x VARCHAR NOT NULL");
  EXPECT_FALSE(plain.last_run_at_us.has_value());
  v.last_run_at_us = 5;
  v.last_row_count = 1250;
  v.last_run_us = kMax;
  ViewInfo run = RoundTrip(v, ViewFromJson);
  EXPECT_EQ(run.last_row_count, 1250);
  EXPECT_EQ(run.last_run_us, kMax);
  ViewVersion vb = RoundTrip(v.current, ViewVersionFromJson);
  EXPECT_EQ(vb.version, 3);

  ViewDefinition def;
  def.sql = "SELECT 1";
  ViewDefinition db = RoundTrip(def, ViewDefinitionFromJson);
  EXPECT_EQ(db.dialect, "duckdb");
  EXPECT_FALSE(db.schema.has_value());
  // The dialect defaults; sql is required; unknown fields are refused.
  auto minimal = ViewDefinitionFromJson(Json{{"sql", "SELECT 2"}});
  ASSERT_TRUE(minimal.ok()) << minimal.status().ToString();
  EXPECT_EQ(minimal->dialect, "duckdb");
  EXPECT_FALSE(ViewDefinitionFromJson(Json{{"dialect", "duckdb"}}).ok());
  EXPECT_FALSE(ViewDefinitionFromJson(Json{{"sql", "x"}, {"extra", 1}}).ok());
  auto bad_schema = ViewDefinitionFromJson(Json{{"sql", "x"}, {"schema", 3}});
  ASSERT_FALSE(bad_schema.ok());
  EXPECT_EQ(Field(bad_schema.status(), "field"), "/schema");
}

TEST(WireTest, MaterializedViewTriggerAndJobRoundTrip) {
  MaterializedViewInfo m;
  m.view.name = DatasetName{"ws", "c", "m"};
  m.view.current.version = 2;
  m.view.current.sql = "SELECT 1";
  m.view.current.dialect = "duckdb";
  m.view.current.author = "a";
  m.view.created_by = "a";
  m.dataset_uuid = "u-1";
  m.sources = {"ws.c.src", "other.c.x"};
  m.last_refresh_status = "failed";
  m.last_refresh_at_us = kMax;
  m.last_refresh_job = "job_1";
  m.last_refresh_error = "boom";
  m.last_refresh_sources = {ReadReference{"ws.c.src", "u-2", 7, "version", ""}};
  m.last_refresh_snapshot_id = 3;
  TriggerInfo t;
  t.dataset = "ws.c.src";
  t.name = "refresh__c__m";
  t.target = "ws.c.m";
  t.minimum_interval_s = 120;
  t.last_fired_status = "throttled";
  t.window_from_snapshot = 6;
  m.triggers = {t};
  MaterializedViewInfo mb = RoundTrip(m, MaterializedViewFromJson);
  EXPECT_EQ(mb.sources, m.sources);
  ASSERT_EQ(mb.last_refresh_sources.size(), 1u);
  EXPECT_EQ(mb.last_refresh_sources[0].snapshot_id, 7);
  ASSERT_EQ(mb.triggers.size(), 1u);
  EXPECT_EQ(mb.triggers[0].minimum_interval_s, 120);
  TriggerInfo tb = RoundTrip(t, TriggerFromJson);
  EXPECT_EQ(tb.window_from_snapshot, 6);

  RefreshRecord r;
  r.status = "succeeded";
  r.sources = m.last_refresh_sources;
  r.snapshot_id = 9;
  RefreshRecord rb = RoundTrip(r, RefreshRecordFromJson);
  EXPECT_EQ(rb.snapshot_id, 9);
  auto bad = RefreshRecordFromJson(
      Json{{"status", "x"}, {"sources", Json::array({Json{{"dataset", 1}}})}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Field(bad.status(), "field").rfind("/sources/0", 0), 0u) << bad.status().ToString();

  JobInfo j;
  j.id = "job_x";
  j.workspace = "ws";
  j.trigger = "refresh__c__m";
  j.target = "ws.c.m";
  j.source = "ws.c.src";
  j.source_uuid = "u-2";
  j.from_snapshot = 1;
  j.to_snapshot = kMax;
  j.fired_by = "tarn_abc";
  j.state = "queued";
  j.result_snapshot = 4;
  j.lease_until_us = kMax;
  JobInfo jb = RoundTrip(j, JobFromJson);
  EXPECT_EQ(jb.to_snapshot, kMax);
  EXPECT_EQ(jb.result_snapshot, 4);
}

TEST(WireTest, SchemaChangesRoundTripEveryKind) {
  for (const char* text :
       {"add score FLOAT64", "add column note VARCHAR after id", "add first_col INT32 FIRST",
        "drop c", "rename a TO b", "promote n INT64", "move c FIRST", "move c AFTER b",
        "drop not null c"}) {
    auto change = ParseSchemaChange(text);
    ASSERT_TRUE(change.ok()) << text;
    SchemaChange back = RoundTrip(*change, SchemaChangeFromJson);
    EXPECT_EQ(back.kind, change->kind) << text;
    EXPECT_EQ(back.column, change->column) << text;
    EXPECT_EQ(back.new_name, change->new_name) << text;
    EXPECT_EQ(back.type.has_value(), change->type.has_value()) << text;
    if (back.type) {
      EXPECT_EQ(*back.type, *change->type) << text;
    }
    EXPECT_EQ(back.after, change->after) << text;
    EXPECT_EQ(back.first, change->first) << text;
    EXPECT_EQ(back.nullable, change->nullable) << text;
  }
  auto bad = SchemaChangeFromJson(Json{{"kind", "explode"}, {"column", "x"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Field(bad.status(), "field"), "/kind");
  auto bad_type =
      SchemaChangeFromJson(Json{{"kind", "add_column"}, {"column", "x"}, {"type", "INT99"}});
  ASSERT_FALSE(bad_type.ok());
  EXPECT_EQ(Field(bad_type.status(), "field"), "/type");
}

TEST(WireTest, MaintenanceAndTokenTypesRoundTrip) {
  ExpiryOptions o{kMax, false, true};
  ExpiryOptions ob = RoundTrip(o, ExpiryOptionsFromJson);
  EXPECT_EQ(ob.older_than_us, kMax);
  EXPECT_FALSE(ob.respect_consumer_offsets);
  EXPECT_TRUE(ob.dry_run);
  auto defaults = ExpiryOptionsFromJson(Json{{"older_than_us", 5}});
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(defaults->respect_consumer_offsets);
  EXPECT_FALSE(defaults->dry_run);

  ExpiryResult r{"a.b.c", 3, 7, 2};
  EXPECT_EQ(RoundTrip(r, ExpiryResultFromJson).expired_through, 7);
  CleanupResult c{1, 2, 3, {"x/y.parquet", "ü"}};
  EXPECT_EQ(RoundTrip(c, CleanupResultFromJson).orphans, c.orphans);
  InlineFlushResult f{"a.b.c", 2, 4096};
  InlineFlushResult fb = RoundTrip(f, InlineFlushResultFromJson);
  EXPECT_EQ(fb.dataset, "a.b.c");
  EXPECT_EQ(fb.files_written, 2);
  EXPECT_EQ(fb.bytes_written, 4096);

  AccessTokenInfo info;
  info.client_id = "tarn_ABCDEFGHIJKLMNOPQRST";
  info.workspace = "*";
  info.role = Role::kWriter;
  info.pattern = "sales.*";
  info.description = "ci ✓";
  info.created_by = "tarn_OWNER";
  info.created_at_us = 1;
  info.last_used_at_us = 2;
  AccessTokenInfo ib = RoundTrip(info, AccessTokenFromJson);
  EXPECT_EQ(ib.role, Role::kWriter);
  EXPECT_EQ(ib.last_used_at_us, 2);
  EXPECT_FALSE(ib.revoked_at_us.has_value());

  NewAccessToken nt{info, "SECRETSECRET"};
  NewAccessToken nb = RoundTrip(nt, NewAccessTokenFromJson);
  EXPECT_EQ(nb.client_secret, "SECRETSECRET");
  EXPECT_EQ(nb.info.pattern, "sales.*");

  AccessTokenSpec spec;
  spec.workspace = "acme";
  spec.role = Role::kOwner;
  AccessTokenSpec sb = RoundTrip(spec, AccessTokenSpecFromJson);
  EXPECT_EQ(sb.role, Role::kOwner);
  EXPECT_EQ(sb.pattern, "*");
  EXPECT_FALSE(sb.client_id.has_value());
  EXPECT_FALSE(ToJson(spec).contains("client_secret"));
  auto bad_role = AccessTokenSpecFromJson(Json{{"workspace", "a"}, {"role", "god"}});
  ASSERT_FALSE(bad_role.ok());
  EXPECT_EQ(Field(bad_role.status(), "field"), "/role");
  EXPECT_EQ(Field(bad_role.status(), "code"), "invalid_role");

  AuditRecord a;
  a.id = 1;
  a.at_us = 2;
  a.request_id = "req";
  a.actor = "local:me";
  a.action = "dataset.append";
  a.target = "a.b.c";
  a.outcome = "ok";
  a.detail_json = R"({"rows":3,"snapshot_id":4})";
  AuditRecord ab = RoundTrip(a, AuditRecordFromJson);
  EXPECT_EQ(ab.detail_json, a.detail_json);
  EXPECT_TRUE(ToJson(a)["detail"].is_object());
  a.detail_json = "not json";
  EXPECT_EQ(RoundTrip(a, AuditRecordFromJson).detail_json, "not json");
}

TEST(WireTest, PropertiesRefuseNonStringValues) {
  auto ok = PropertiesFromJson(Json{{"a", "1"}, {"b/c~d", ""}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->at("b/c~d"), "");
  auto bad = PropertiesFromJson(Json{{"a", "1"}, {"b/c~d", 2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Field(bad.status(), "code"), "wrong_type");
  EXPECT_EQ(Field(bad.status(), "field"), "/b~1c~0d");  // RFC 6901 escapes
}

TEST(WireTest, StrictnessCodesAndPointers) {
  Json j = ToJson(WorkspaceInfo{});
  j["surprise"] = 1;
  auto unknown = WorkspaceFromJson(j);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(Field(unknown.status(), "code"), "unknown_field");
  EXPECT_EQ(Field(unknown.status(), "field"), "/surprise");

  Json w = ToJson(WorkspaceInfo{});
  w["name"] = 7;
  auto wrong = WorkspaceFromJson(w);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(Field(wrong.status(), "code"), "wrong_type");
  EXPECT_EQ(Field(wrong.status(), "field"), "/name");

  Json m = ToJson(WorkspaceInfo{});
  m.erase("id");
  auto missing = WorkspaceFromJson(m);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(Field(missing.status(), "code"), "missing_field");
  EXPECT_EQ(Field(missing.status(), "field"), "/id");

  // Nested: the pointer walks into arrays and objects.
  DatasetCommit c;
  c.dataset = "a.b.c";
  c.added = {AwkwardFile(), AwkwardFile()};
  Json cj = ToJson(c);
  cj["meta"]["author"] = false;
  auto nested = DatasetCommitFromJson(cj);
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(Field(nested.status(), "field"), "/meta/author");
  cj = ToJson(c);
  cj["added"][1]["columns"][0]["extra"] = "x";
  nested = DatasetCommitFromJson(cj);
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(Field(nested.status(), "code"), "unknown_field");
  EXPECT_EQ(Field(nested.status(), "field"), "/added/1/columns/0/extra");
  cj = ToJson(c);
  cj["added"][0].erase("path");
  nested = DatasetCommitFromJson(cj);
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(Field(nested.status(), "code"), "missing_field");
  EXPECT_EQ(Field(nested.status(), "field"), "/added/0/path");
  cj = ToJson(c);
  cj["meta"]["receipt"] = {{"read_sources", {{{"dataset", "x"}}}}};
  nested = DatasetCommitFromJson(cj);
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(Field(nested.status(), "field"), "/meta/receipt/read_sources/0/snapshot_id");

  // Not an object at all.
  auto arr = WorkspaceFromJson(Json::array());
  ASSERT_FALSE(arr.ok());
  EXPECT_EQ(Field(arr.status(), "code"), "wrong_type");
  EXPECT_EQ(Field(arr.status(), "field"), "");
}

TEST(WireTest, AllowUnknownFieldsIsScopedToItsLifetime) {
  Json j = ToJson(TagInfo{"t", 1, 2});
  j["added_later"] = {{"x", 1}};
  EXPECT_FALSE(TagFromJson(j).ok());
  {
    AllowUnknownFields lenient;
    auto ok = TagFromJson(j);
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ(ok->snapshot_id, 1);
    // Other errors still count.
    Json w = j;
    w["snapshot_id"] = "1";
    EXPECT_FALSE(TagFromJson(w).ok());
  }
  EXPECT_FALSE(TagFromJson(j).ok());
}

TEST(WireTest, IntegerRanges) {
  Json t = ToJson(TagInfo{"t", 1, 2});
  t["snapshot_id"] = static_cast<uint64_t>(kMax) + 1;
  auto big = TagFromJson(t);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(Field(big.status(), "code"), "out_of_range");
  EXPECT_EQ(Field(big.status(), "field"), "/snapshot_id");
  t["snapshot_id"] = 1.5;
  auto fl = TagFromJson(t);
  ASSERT_FALSE(fl.ok());
  EXPECT_EQ(Field(fl.status(), "code"), "wrong_type");
  t["snapshot_id"] = "1";
  EXPECT_FALSE(TagFromJson(t).ok());
  t["snapshot_id"] = kMin;
  ASSERT_TRUE(TagFromJson(t).ok());
  EXPECT_EQ(TagFromJson(t)->snapshot_id, kMin);

  Json s = ToJson(SnapshotInfo{});
  s["schema_id"] = int64_t{1} << 31;
  auto wide = SnapshotFromJson(s);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(Field(wide.status(), "code"), "out_of_range");
  EXPECT_EQ(Field(wide.status(), "field"), "/schema_id");
}

TEST(WireTest, ParseObjectIsMalformedJsonForGarbage) {
  for (std::string_view body : {"", "{", "[1,2]", "\"str\"", "42", "{\"a\":1}x", "\xff\xfe"}) {
    auto r = ParseObject(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(Field(r.status(), "code"), "malformed_json") << body;
  }
  auto ok = ParseObject(R"({"a":"ü"})");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["a"], "ü");
  // Invalid UTF-8 in a string never throws on Dump.
  Json bad = {{"s", std::string("\xff\xfe", 2)}};
  EXPECT_FALSE(Dump(bad).empty());
}

// Issue 14 defect 8: nlohmann kept the last of two equal keys silently, so the server and a
// proxy or audit reader in front of it could disagree on what a body says.
TEST(WireTest, ParseObjectRefusesDuplicateKeysAtAnyDepth) {
  struct Case {
    const char* body;
    const char* pointer;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"a":1,"a":2})", "/a"},
           {R"({"a":1,"b":2,"a":1})", "/a"},
           {R"({"a":"x","\u0061":"y"})", "/a"},  // the same key once escaped
           {R"({"meta":{"author":"x","author":"y"}})", "/meta/author"},
           {R"({"parts":[{"added":[]},{"added":[{"path":"p","path":"q"}]}]})",
            "/parts/1/added/0/path"},
           {R"({"l":[1,[2,3],{"k":1,"k":1}]})", "/l/2/k"},
           {R"({"a/b":{"~":1,"~":2}})", "/a~1b/~0"},
       }) {
    auto r = ParseObject(c.body);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(Field(r.status(), "code"), "malformed_json") << c.body;
    EXPECT_EQ(Field(r.status(), "field"), c.pointer) << c.body;
  }
  // The same key in sibling objects, or as a value, is fine.
  for (const char* body : {R"({"a":{"k":1},"b":{"k":1}})", R"({"l":[{"k":1},{"k":2}]})",
                           R"({"k":"k","v":{"k":"k"}})", R"({})"}) {
    auto r = ParseObject(body);
    EXPECT_TRUE(r.ok()) << body << ": " << r.status().ToString();
  }
}

TEST(WireTest, ErrorBodyRoundTripKeepsKindMessageAndFields) {
  Status st = Status::NotFound("dataset 'a.b.c' not found")
                  .WithField("code", "dataset_not_found")
                  .WithField("dataset", "a.b.c");
  Json body = ErrorBody(st);
  EXPECT_EQ(body["error"]["code"], "dataset_not_found");
  EXPECT_EQ(body["error"]["kind"], "not_found");
  EXPECT_EQ(body["error"]["retryable"], false);
  EXPECT_EQ(body["error"]["dataset"], "a.b.c");
  Status back = StatusFromErrorBody(404, Dump(body));
  EXPECT_EQ(back.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(back.message(), st.message());
  EXPECT_EQ(Field(back, "code"), "dataset_not_found");
  EXPECT_EQ(Field(back, "dataset"), "a.b.c");
  EXPECT_EQ(back.fields().size(), 2u);

  // Without a code field: the code is the kind's name and no code field comes back.
  Status conflict = Status::Conflict("lost the race");
  Json cb = ErrorBody(conflict);
  EXPECT_EQ(cb["error"]["code"], "conflict");
  EXPECT_EQ(cb["error"]["retryable"], true);
  Status cback = StatusFromErrorBody(409, Dump(cb));
  EXPECT_EQ(cback.kind(), ErrorKind::kConflict);
  EXPECT_TRUE(cback.fields().empty());

  // The kind in the body wins over the HTTP status (several kinds share 409 and 422).
  Status stale = Status::Stale("moved").WithField("code", "incarnation_changed");
  EXPECT_EQ(StatusFromErrorBody(409, Dump(ErrorBody(stale))).kind(), ErrorKind::kStale);
  Status corrupt = Status::Corruption("bad page");
  EXPECT_EQ(StatusFromErrorBody(422, Dump(ErrorBody(corrupt))).kind(), ErrorKind::kCorruption);

  // Every kind survives the trip.
  for (ErrorKind k :
       {ErrorKind::kInvalidArgument, ErrorKind::kAlreadyExists, ErrorKind::kFailedPrecondition,
        ErrorKind::kExpired, ErrorKind::kUnauthenticated, ErrorKind::kPermissionDenied,
        ErrorKind::kTooLarge, ErrorKind::kUnavailable, ErrorKind::kIOError, ErrorKind::kCancelled,
        ErrorKind::kInternal}) {
    Status s(k, "m");
    EXPECT_EQ(StatusFromErrorBody(HttpStatusFor(k), Dump(ErrorBody(s))).kind(), k);
  }
}

TEST(WireTest, ErrorBodyFallsBackOnTheHttpStatus) {
  Status html = StatusFromErrorBody(503, "<html>busy</html>");
  EXPECT_EQ(html.kind(), ErrorKind::kUnavailable);
  EXPECT_NE(html.message().find("503"), std::string::npos);
  EXPECT_EQ(StatusFromErrorBody(401, "").kind(), ErrorKind::kUnauthenticated);
  EXPECT_EQ(StatusFromErrorBody(403, "{}").kind(), ErrorKind::kPermissionDenied);
  EXPECT_EQ(StatusFromErrorBody(404, R"({"error":"nope"})").kind(), ErrorKind::kNotFound);
  EXPECT_EQ(StatusFromErrorBody(500, "").kind(), ErrorKind::kInternal);
  EXPECT_EQ(StatusFromErrorBody(418, "").kind(), ErrorKind::kInvalidArgument);
  // An unknown kind name falls back to the status; non-string fields are kept as JSON text.
  Status odd = StatusFromErrorBody(
      410, R"({"error":{"kind":"martian","message":"gone","code":"x","n":3,"o":{"a":1}}})");
  EXPECT_EQ(odd.kind(), ErrorKind::kExpired);
  EXPECT_EQ(odd.message(), "gone");
  EXPECT_EQ(Field(odd, "code"), "x");
  EXPECT_EQ(Field(odd, "n"), "3");
  EXPECT_EQ(Field(odd, "o"), R"({"a":1})");
}

TEST(WireTest, SelectorParams) {
  auto lookup = [](std::vector<std::pair<std::string, std::string>> params) {
    return [params](std::string_view name) -> std::optional<std::string> {
      for (const auto& [k, v] : params) {
        if (k == name) return v;
      }
      return std::nullopt;
    };
  };
  EXPECT_TRUE(SelectorParams({}).empty());
  SnapshotSelector at;
  at.snapshot_id = kMax;
  auto p = SelectorParams(at);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].first, "snapshot_id");
  auto back = SelectorFromParams(lookup(p));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->snapshot_id, kMax);

  SnapshotSelector t;
  t.at_time_us = kMin;
  back = SelectorFromParams(lookup(SelectorParams(t)));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->at_time_us, kMin);
  SnapshotSelector g;
  g.tag = "nightly";
  back = SelectorFromParams(lookup(SelectorParams(g)));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->tag, "nightly");
  EXPECT_TRUE(SelectorFromParams(lookup({}))->empty());

  auto two = SelectorFromParams(lookup({{"snapshot_id", "1"}, {"tag", "x"}}));
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(Field(two.status(), "code"), "ambiguous_selector");
  for (const char* bad : {"", "1x", "x", "99999999999999999999", " 1", "+1"}) {
    auto r = SelectorFromParams(lookup({{"snapshot_id", bad}}));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(Field(r.status(), "field"), "snapshot_id") << bad;
  }
  EXPECT_FALSE(SelectorFromParams(lookup({{"tag", ""}})).ok());
}

TEST(WireTest, FramesSplitAtEveryByteBoundary) {
  std::string stream = EncodeFrame(FrameKind::kMeta, R"({"author":"ü"})") +
                       EncodeFrame(FrameKind::kParquet, std::string("\0\1\2PAR1", 7)) +
                       EncodeFrame(FrameKind::kParquet, "") + EncodeFrame(FrameKind::kEnd, "");
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    FrameParser parser;
    std::vector<std::pair<FrameKind, std::string>> frames;
    ASSERT_TRUE(parser.Feed(std::string_view(stream).substr(0, cut)).ok());
    while (auto f = parser.Next()) frames.push_back(std::move(*f));
    ASSERT_TRUE(parser.Feed(std::string_view(stream).substr(cut)).ok());
    while (auto f = parser.Next()) frames.push_back(std::move(*f));
    ASSERT_EQ(frames.size(), 4u) << cut;
    EXPECT_EQ(frames[0].first, FrameKind::kMeta);
    EXPECT_EQ(frames[0].second, R"({"author":"ü"})");
    EXPECT_EQ(frames[1].second, std::string("\0\1\2PAR1", 7));
    EXPECT_EQ(frames[2].first, FrameKind::kParquet);
    EXPECT_TRUE(frames[2].second.empty());
    EXPECT_EQ(frames[3].first, FrameKind::kEnd);
    EXPECT_EQ(parser.buffered(), 0u);
  }
  // Byte by byte.
  FrameParser parser;
  int count = 0;
  for (char c : stream) {
    ASSERT_TRUE(parser.Feed(std::string_view(&c, 1)).ok());
    while (parser.Next()) ++count;
  }
  EXPECT_EQ(count, 4);
}

TEST(WireTest, FrameHeaderLayout) {
  std::string h = FrameHeader(FrameKind::kParquet, 0x01020304);
  ASSERT_EQ(h.size(), kFrameHeaderBytes);
  EXPECT_EQ(h, std::string("\x04\x03\x02\x01P", 5));
}

TEST(WireTest, FrameParserRefusesBadKindAndOversizeLength) {
  {
    FrameParser parser;
    std::string frame = EncodeFrame(FrameKind::kMeta, "{}");
    frame[4] = 'Z';
    Status st = parser.Feed(frame);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.kind(), ErrorKind::kCorruption);
    EXPECT_EQ(Field(st, "code"), "bad_frame");
    EXPECT_FALSE(parser.Next().has_value());
    EXPECT_FALSE(parser.Feed("more").ok());  // stays failed
  }
  {
    FrameParser parser;
    std::string header = FrameHeader(FrameKind::kParquet, 0);
    uint32_t n = kMaxFrameBytes + 1;
    for (int i = 0; i < 4; ++i) header[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    Status st = parser.Feed(header);  // refused from the header alone, before any payload
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(Field(st, "code"), "bad_frame");
  }
  {
    // A bad header after a good frame in the same chunk fails at once too.
    FrameParser parser;
    std::string two = EncodeFrame(FrameKind::kMeta, "{}") + std::string("\0\0\0\0?", 5);
    EXPECT_FALSE(parser.Feed(two).ok());
  }
  {
    // A frame exactly at the limit is accepted (header only here: it waits for bytes).
    FrameParser parser;
    EXPECT_TRUE(parser.Feed(FrameHeader(FrameKind::kParquet, kMaxFrameBytes)).ok());
    EXPECT_FALSE(parser.Next().has_value());
    EXPECT_EQ(parser.buffered(), kFrameHeaderBytes);
  }
}

RecordBatch AllTypesBatch() {
  RecordBatch b;
  b.schema =
      S("b BOOLEAN, i8 INT8, i16 INT16, i32 INT32, i64 INT64 NOT NULL, u8 UINT8, u16 UINT16, "
        "u32 UINT32, u64 UINT64, f32 FLOAT32, f64 FLOAT64, d DECIMAL(38,4), s VARCHAR, bl BLOB, "
        "dt DATE, tm TIME, ts TIMESTAMP[us], tsn TIMESTAMP[ns], tz TIMESTAMPTZ[ms], id UUID, "
        "ip IPV4, js JSON, arr ARRAY<VARCHAR>");
  b.columns.push_back(Col("BOOLEAN", {"true", "NULL", "false"}));
  b.columns.push_back(Col("INT8", {"-128", "NULL", "127"}));
  b.columns.push_back(Col("INT16", {"-32768", "NULL", "32767"}));
  b.columns.push_back(Col("INT32", {"-2147483648", "NULL", "2147483647"}));
  b.columns.push_back(Col("INT64", {"-9223372036854775808", "0", "9223372036854775807"}));
  b.columns.push_back(Col("UINT8", {"0", "NULL", "255"}));
  b.columns.push_back(Col("UINT16", {"0", "NULL", "65535"}));
  b.columns.push_back(Col("UINT32", {"0", "NULL", "4294967295"}));
  b.columns.push_back(Col("UINT64", {"0", "NULL", "18446744073709551615"}));
  b.columns.push_back(Col("FLOAT32", {"-0", "NULL", "NaN"}));
  b.columns.push_back(Col("FLOAT64", {"Infinity", "NULL", "1.5e-300"}));
  b.columns.push_back(
      Col("DECIMAL(38,4)", {"-9999999999999999999999999999999999.9999", "NULL", "0.0001"}));
  b.columns.push_back(Col("VARCHAR", {"", "NULL", "naïve ✓ \xF0\x9F\x98\x80"}));
  b.columns.push_back(Col("BLOB", {"AAH/", "NULL", ""}));
  b.columns.push_back(Col("DATE", {"1970-01-01", "NULL", "9999-12-31"}));
  b.columns.push_back(Col("TIME", {"00:00:00", "NULL", "23:59:59.999999"}));
  b.columns.push_back(Col("TIMESTAMP[us]", {"2024-02-29 12:00:00.000001", "NULL", "1900-01-01"}));
  b.columns.push_back(
      Col("TIMESTAMP[ns]", {"2024-02-29 12:00:00.000000001", "NULL", "1970-01-01"}));
  b.columns.push_back(Col("TIMESTAMPTZ[ms]", {"2024-01-01T00:00:00.123Z", "NULL", "1970-01-01Z"}));
  b.columns.push_back(Col("UUID", {"00000000-0000-0000-0000-000000000000", "NULL",
                                   "ffffffff-ffff-ffff-ffff-ffffffffffff"}));
  b.columns.push_back(Col("IPV4", {"0.0.0.0", "NULL", "255.255.255.255"}));
  b.columns.push_back(Col("JSON", {"{\"a\":[1,null]}", "NULL", "\"ü\""}));
  Column arr(table_test::T("ARRAY<VARCHAR>"));
  arr.child->AppendBytes("x");
  arr.child->AppendNull();
  arr.AppendArrayRow();
  arr.AppendNull();
  arr.AppendArrayRow();
  b.columns.push_back(std::move(arr));
  b.num_rows = 3;
  for (size_t i = 0; i < b.schema.fields.size(); ++i) b.schema.fields[i].field_id = 10 + i;
  b.schema.fields.back().type = DataType::Array(b.schema.fields.back().type.element(), 99);
  return b;
}

TEST(WireTest, BatchFrameRoundTripEveryColumnType) {
  RecordBatch b = AllTypesBatch();
  auto frame = EncodeBatchFrame(b);
  ASSERT_TRUE(frame.ok()) << frame.status().ToString();
  FrameParser parser;
  ASSERT_TRUE(parser.Feed(*frame).ok());
  auto f = parser.Next();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->first, FrameKind::kParquet);
  auto back = DecodeBatchPayload(std::move(f->second));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->num_rows, 3);
  ASSERT_EQ(back->schema.fields.size(), b.schema.fields.size());
  EXPECT_EQ(back->schema.ToString(), b.schema.ToString());
  for (size_t i = 0; i < b.columns.size(); ++i) {
    EXPECT_EQ(back->schema.fields[i].field_id, b.schema.fields[i].field_id) << i;
    EXPECT_EQ(back->columns[i].type, b.columns[i].type) << i;
    EXPECT_EQ(Texts(back->columns[i]), Texts(b.columns[i])) << b.schema.fields[i].name;
  }
  EXPECT_EQ(back->schema.fields.back().type.element_field().field_id, 99);
}

TEST(WireTest, BatchFrameEmptyBatchAndCorruptPayload) {
  RecordBatch empty;
  empty.schema = S("a INT64, b VARCHAR");
  empty.columns.push_back(Column(table_test::T("INT64")));
  empty.columns.push_back(Column(table_test::T("VARCHAR")));
  empty.columns[1].offsets = {0};
  auto frame = EncodeBatchFrame(empty);
  ASSERT_TRUE(frame.ok()) << frame.status().ToString();
  auto back = DecodeBatchPayload(frame->substr(kFrameHeaderBytes));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->num_rows, 0);
  EXPECT_EQ(back->schema.fields.size(), 2u);

  RecordBatch b = AllTypesBatch();
  auto good = EncodeBatchFrame(b);
  ASSERT_TRUE(good.ok());
  std::string payload = good->substr(kFrameHeaderBytes);
  for (size_t cut : {size_t{0}, size_t{4}, payload.size() / 2, payload.size() - 1}) {
    auto bad = DecodeBatchPayload(payload.substr(0, cut));
    ASSERT_FALSE(bad.ok()) << cut;
    EXPECT_EQ(bad.status().kind(), ErrorKind::kCorruption) << cut;
  }
  EXPECT_FALSE(DecodeBatchPayload("not parquet at all").ok());
}

}  // namespace
}  // namespace tarn::api

// The SQL engine over an embedded catalog, with the real DuckDB library (installed by
// scripts/bootstrap.sh). Values are compared as tarn's canonical text.
#include <gtest/gtest.h>

#include <fstream>

#include "catalog/error_codes.h"
#include "catalog/test_fixture.h"
#include "objectstore/object_store.h"
#include "parquet/writer.h"
#include "sql/engine.h"
#include "sql/error_codes.h"
#include "tarn/view.h"

namespace tarn::sql {
namespace {

class SqlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_util::ScratchDir() /
           ("tarn-sql-" + std::to_string(::getpid()) + "-" + testing_util::TestName());
    std::filesystem::remove_all(dir_);
    auto c = Catalog::OpenEmbedded(dir_.string());
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cat_ = std::move(*c);
    ASSERT_OK(cat_->CreateWorkspace("shop"));
    ASSERT_OK(cat_->CreateCollection("shop.sales"));
  }
  void TearDown() override {
    cat_.reset();
    std::filesystem::remove_all(dir_);
  }

  void Create(const std::string& name, const std::string& schema,
              const std::string& partition = "") {
    DatasetDefinition def;
    def.schema = *Schema::Parse(schema);
    def.partition_spec = partition;
    ASSERT_OK(cat_->CreateDataset(name, def).status());
  }
  int64_t Append(const std::string& name, const std::vector<std::vector<std::string>>& rows) {
    auto ds = cat_->LoadDataset(name);
    EXPECT_TRUE(ds.ok());
    CommitMeta meta;
    meta.author = "test";
    std::vector<RecordBatch> batches;
    batches.push_back(MakeBatch(ds->schema, rows));
    auto snap = cat_->Append(name, batches, meta);
    EXPECT_TRUE(snap.ok()) << snap.status().ToString();
    return snap.ok() ? snap->snapshot_id : -1;
  }
  // The rows as text ("NULL" for null), in result order.
  Result<std::vector<std::vector<std::string>>> Rows(const std::string& sql,
                                                     QueryResult* result = nullptr,
                                                     bool direct_reads = true) {
    std::vector<std::vector<std::string>> rows;
    QueryOptions options;
    options.threads = 2;
    options.direct_reads = direct_reads;
    TARN_ASSIGN_OR_RETURN(auto r, cat_->Query(sql, options, [&](const RecordBatch& b) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        std::vector<std::string> row;
        for (const Column& c : b.columns) {
          row.push_back(c.IsValid(i) ? ValueText(c, i) : "NULL");
        }
        rows.push_back(std::move(row));
      }
      return Status::OK();
    }));
    if (result) *result = std::move(r);
    return rows;
  }
  std::vector<std::vector<std::string>> Must(const std::string& sql) {
    auto r = Rows(sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
    return r.ok() ? *r : std::vector<std::vector<std::string>>{};
  }

  std::filesystem::path dir_;
  std::unique_ptr<Catalog> cat_;
};

using Table = std::vector<std::vector<std::string>>;

TEST_F(SqlTest, AggregatesOverThreePartNames) {
  Create("shop.sales.orders", "id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)");
  Append("shop.sales.orders", {{"1", "eu", "10.50"}, {"2", "us", "3.25"}, {"3", "eu", ""}});
  Append("shop.sales.orders", {{"4", "us", "1.00"}});
  EXPECT_EQ(Must("SELECT region, count(*), sum(amount) FROM shop.sales.orders GROUP BY region "
                 "ORDER BY region"),
            (Table{{"eu", "2", "10.50"}, {"us", "2", "4.25"}}));
  EXPECT_EQ(Must("SELECT count(*) FROM shop.sales.orders"), (Table{{"4"}}));
  // A self-join reads one snapshot; the receipt lists the dataset once.
  QueryResult result;
  auto rows =
      Rows("SELECT count(*) FROM shop.sales.orders a JOIN shop.sales.orders b USING (id)", &result);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Table{{"4"}}));
  ASSERT_EQ(result.reads.size(), 1u);
  EXPECT_EQ(result.reads[0].dataset, "shop.sales.orders");
  EXPECT_EQ(result.reads[0].snapshot_id, 2);
  EXPECT_EQ(result.reads[0].resolved_by, "current");
  EXPECT_FALSE(result.reads[0].dataset_uuid.empty());
  ASSERT_TRUE(Rows("SELECT region, count(*) AS n, sum(amount) AS total FROM shop.sales.orders "
                   "GROUP BY region",
                   &result)
                  .ok());
  EXPECT_EQ(result.schema.ToString(), "region VARCHAR, n INT64, total DECIMAL(38,2)");
}

TEST_F(SqlTest, EveryTypeReadsBackAsTarnWroteIt) {
  const std::string schema =
      "b BOOLEAN, i8 INT8, i16 INT16, i32 INT32, i64 INT64, u8 UINT8, u16 UINT16, u32 UINT32, "
      "u64 UINT64, f32 FLOAT32, f64 FLOAT64, d1 DECIMAL(4,1), d2 DECIMAL(9,3), "
      "d3 DECIMAL(18,2), d4 DECIMAL(38,5), s VARCHAR, bl BLOB, dt DATE, tm TIME, "
      "tm9 TIME[ns], ts TIMESTAMP[us], ts_s TIMESTAMP[s], ts_ms TIMESTAMP[ms], ts_ns "
      "TIMESTAMP[ns], "
      "tz TIMESTAMPTZ[us], u UUID, ip IPV4, j JSON";
  Create("shop.sales.types", schema);
  std::vector<std::string> row = {"true",
                                  "-8",
                                  "-16",
                                  "-32",
                                  "-9223372036854775808",
                                  "255",
                                  "65535",
                                  "4294967295",
                                  "18446744073709551615",
                                  "1.5",
                                  "-2.25",
                                  "-123.4",
                                  "123456.789",
                                  "-1234567890123456.78",
                                  "123456789012345678901234567890123.45678",
                                  "a string longer than twelve bytes",
                                  "AP8=",
                                  "2026-02-28",
                                  "23:59:59.999999",
                                  "23:59:59.999999999",
                                  "2026-01-02 03:04:05.123456",
                                  "2026-01-02 03:04:05",
                                  "2026-01-02 03:04:05.123",
                                  "2026-01-02 03:04:05.123456789",
                                  "2026-01-02 03:04:05.123456+00:00",
                                  "0189a1b2-c3d4-4e5f-8a9b-0c1d2e3f4a5b",
                                  "10.0.255.1",
                                  "{\"k\":[1,2]}"};
  std::vector<std::string> nulls(row.size(), "");
  Append("shop.sales.types", {row, nulls});
  std::vector<std::vector<std::string>> scanned;
  ASSERT_OK(cat_->Scan("shop.sales.types", {}, "", false, [&](const RecordBatch& b) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      std::vector<std::string> r;
      for (const Column& c : b.columns) r.push_back(c.IsValid(i) ? ValueText(c, i) : "NULL");
      scanned.push_back(r);
    }
    return Status::OK();
  }));
  QueryResult result;
  auto rows = Rows("SELECT * FROM shop.sales.types", &result);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  // Types that DuckDB represents exactly come back as the same value and type.
  auto ds = cat_->LoadDataset("shop.sales.types");
  for (size_t c = 0; c < ds->schema.fields.size(); ++c) {
    const Field& f = ds->schema.fields[c];
    SCOPED_TRACE(f.name);
    EXPECT_EQ((*rows)[1][c], "NULL");
    if (f.type.id() == TypeId::kIpv4) {
      EXPECT_EQ(result.schema.fields[c].type.ToString(), "VARCHAR");
      EXPECT_EQ((*rows)[0][c], "10.0.255.1");
      continue;
    }
    EXPECT_EQ(result.schema.fields[c].type.ToString(), f.type.ToString());
    EXPECT_EQ((*rows)[0][c], scanned[0][c]);
  }
}

TEST_F(SqlTest, TimeNanosecondsAreDuckDbTimeNs) {
  Create("shop.sales.tn", "id INT32, t TIME[ns]");
  Append("shop.sales.tn", {{"1", "23:59:59.999999999"}, {"2", "00:00:00.000000001"}, {"3", ""}});
  EXPECT_EQ(Must("SELECT typeof(t), t::VARCHAR FROM shop.sales.tn WHERE id = 1"),
            (Table{{"TIME_NS", "23:59:59.999999999"}}));
  QueryResult result;
  auto rows = Rows("SELECT t, max(t) OVER () AS mx FROM shop.sales.tn ORDER BY id", &result);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(result.schema.ToString(), "t TIME[ns], mx TIME[ns]");
  EXPECT_EQ(*rows, (Table{{"23:59:59.999999999", "23:59:59.999999999"},
                          {"00:00:00.000000001", "23:59:59.999999999"},
                          {"NULL", "23:59:59.999999999"}}));
  // DuckDB's own TIME_NS values come back as TIME[ns].
  ASSERT_TRUE(Rows("SELECT '12:00:00.123456789'::TIME_NS AS x", &result).ok());
  EXPECT_EQ(result.schema.ToString(), "x TIME[ns]");
  EXPECT_EQ(Must("SELECT count(*) FROM shop.sales.tn WHERE t > '23:59:59.999999'::TIME_NS"),
            (Table{{"1"}}));
}

TEST_F(SqlTest, ArraysBothWays) {
  Create("shop.sales.arr", "id INT32, a ARRAY<INT32>, s ARRAY<VARCHAR>");
  auto ds = cat_->LoadDataset("shop.sales.arr");
  RecordBatch b;
  b.schema = ds->schema;
  for (const Field& f : b.schema.fields) b.columns.emplace_back(f.type);
  // Row 0: [1, NULL, 3], ["x", ""]; row 1: NULL, []; row 2: [], ["a string over twelve bytes"].
  b.columns[0].AppendFixed<int32_t>(0);
  b.columns[0].AppendFixed<int32_t>(1);
  b.columns[0].AppendFixed<int32_t>(2);
  Column& a = b.columns[1];
  a.child->AppendFixed<int32_t>(1);
  a.child->AppendNull();
  a.child->AppendFixed<int32_t>(3);
  a.AppendArrayRow();
  a.AppendNull();
  a.AppendArrayRow();
  Column& s = b.columns[2];
  s.child->AppendBytes("x");
  s.child->AppendBytes("");
  s.AppendArrayRow();
  s.AppendArrayRow();
  s.child->AppendBytes("a string over twelve bytes");
  s.AppendArrayRow();
  b.num_rows = 3;
  CommitMeta meta;
  meta.author = "test";
  std::vector<RecordBatch> batches;
  batches.push_back(std::move(b));
  ASSERT_OK(cat_->Append("shop.sales.arr", batches, meta).status());
  EXPECT_EQ(Must("SELECT id, len(a), list_sum(a), s[1] FROM shop.sales.arr ORDER BY id"),
            (Table{{"0", "3", "4", "x"},
                   {"1", "NULL", "NULL", "NULL"},
                   {"2", "0", "NULL", "a string over twelve bytes"}}));
  // Back from DuckDB: lists of tarn's own and lists DuckDB builds.
  EXPECT_EQ(Must("SELECT a, s FROM shop.sales.arr ORDER BY id"),
            (Table{{"[1,null,3]", "[\"x\",\"\"]"},
                   {"NULL", "[]"},
                   {"[]", "[\"a string over twelve bytes\"]"}}));
  EXPECT_EQ(Must("SELECT list_reverse(a) FROM shop.sales.arr WHERE id = 0 UNION ALL "
                 "SELECT [7, 8] UNION ALL SELECT NULL::INT[]"),
            (Table{{"[3,null,1]"}, {"[7,8]"}, {"NULL"}}));
}

// STRUCT and MAP dataset columns reach DuckDB as its STRUCT and MAP.
TEST_F(SqlTest, StructAndMapColumnsBothWays) {
  Create("shop.sales.nested", "id INT32, p STRUCT<a: INT64, b: VARCHAR>, m MAP<VARCHAR, INT64>");
  auto ds = cat_->LoadDataset("shop.sales.nested");
  RecordBatch b;
  b.schema = ds->schema;
  for (const Field& f : b.schema.fields) b.columns.emplace_back(f.type);
  b.columns[0].AppendFixed<int32_t>(0);
  b.columns[0].AppendFixed<int32_t>(1);
  Column& p = b.columns[1];
  p.members[0].AppendFixed<int64_t>(7);
  p.members[1].AppendNull();
  p.AppendStructRow();
  p.AppendNull();
  Column& m = b.columns[2];
  m.members[0].AppendBytes("k");
  m.members[1].AppendFixed<int64_t>(1);
  m.AppendArrayRow();
  m.AppendArrayRow();
  b.num_rows = 2;
  CommitMeta meta;
  meta.author = "test";
  std::vector<RecordBatch> batches;
  batches.push_back(std::move(b));
  ASSERT_OK(cat_->Append("shop.sales.nested", batches, meta).status());
  EXPECT_EQ(
      Must("SELECT id, p, m FROM shop.sales.nested ORDER BY id"),
      (Table{{"0", R"({"a":7,"b":null})", R"([{"key":"k","value":1}])"}, {"1", "NULL", "[]"}}));
  EXPECT_EQ(Must("SELECT p::JSON->>'a' FROM shop.sales.nested WHERE id = 0"), (Table{{"7"}}));
  EXPECT_EQ(Must("SELECT p.a, m['k'] FROM shop.sales.nested WHERE id = 0"), (Table{{"7", "1"}}));
}

TEST_F(SqlTest, NestedResultsFromDuckDb) {
  QueryResult result;
  auto rows =
      Rows("SELECT {'a': 1, 'b': [1, 2]} AS s, MAP {'k': 1} AS m, [[1, 2], [3]] AS ll", &result);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(result.schema.ToString(),
            "s STRUCT<a: INT32, b: ARRAY<INT32>>, m MAP<VARCHAR, INT32>, ll ARRAY<ARRAY<INT32>>");
  EXPECT_EQ(*rows, (Table{{R"({"a":1,"b":[1,2]})", R"([{"key":"k","value":1}])", "[[1,2],[3]]"}}));
  EXPECT_EQ(Must("SELECT CASE WHEN i = 1 THEN NULL ELSE {'i': i, 'm': MAP {i: [i]}} END AS s "
                 "FROM range(3) t(i) ORDER BY i"),
            (Table{{R"({"i":0,"m":[{"key":0,"value":[0]}]})"},
                   {"NULL"},
                   {R"({"i":2,"m":[{"key":2,"value":[2]}]})"}}));
}

TEST_F(SqlTest, ListsOfListsBothWays) {
  Create("shop.sales.ll", "id INT32, ll ARRAY<ARRAY<INT32>>");
  auto ds = cat_->LoadDataset("shop.sales.ll");
  RecordBatch b;
  b.schema = ds->schema;
  for (const Field& f : b.schema.fields) b.columns.emplace_back(f.type);
  // Row 0: [[1, NULL], [], NULL]; row 1: NULL; row 2: [[7]].
  Column& ll = b.columns[1];
  Column& inner = *ll.child;
  inner.child->AppendFixed<int32_t>(1);
  inner.child->AppendNull();
  inner.AppendArrayRow();
  inner.AppendArrayRow();
  inner.AppendNull();
  ll.AppendArrayRow();
  ll.AppendNull();
  inner.child->AppendFixed<int32_t>(7);
  inner.AppendArrayRow();
  ll.AppendArrayRow();
  for (int32_t i = 0; i < 3; ++i) b.columns[0].AppendFixed<int32_t>(i);
  b.num_rows = 3;
  CommitMeta meta;
  meta.author = "test";
  std::vector<RecordBatch> batches;
  batches.push_back(std::move(b));
  ASSERT_OK(cat_->Append("shop.sales.ll", batches, meta).status());
  const Table want = {{"0", "[[1,null],[],null]", "1", "3"},
                      {"1", "NULL", "NULL", "NULL"},
                      {"2", "[[7]]", "7", "1"}};
  const std::string sql = "SELECT id, ll, ll[1][1], len(ll) FROM shop.sales.ll ORDER BY id";
  for (bool direct : {true, false}) {
    QueryResult result;
    auto rows = Rows(sql, &result, direct);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(*rows, want) << "direct_reads " << direct;
    EXPECT_EQ(result.schema.fields[1].type.ToString(), "ARRAY<ARRAY<INT32>>");
  }
}

TEST_F(SqlTest, TimeTravelDeletesAndRowIds) {
  Create("shop.sales.t", "id INT64, v VARCHAR");
  int64_t s1 = Append("shop.sales.t", {{"1", "a"}, {"2", "b"}});
  Append("shop.sales.t", {{"3", "c"}});
  CommitMeta meta;
  meta.author = "test";
  ASSERT_OK(cat_->DeleteRows("shop.sales.t", "id = 2", meta).status());
  ASSERT_OK(cat_->CreateTag("shop.sales.t", "first", SnapshotSelector{s1, {}, {}}));
  EXPECT_EQ(Must("SELECT id FROM shop.sales.t ORDER BY id"), (Table{{"1"}, {"3"}}));
  EXPECT_EQ(Must("SELECT count(*) FROM shop.sales.t"), (Table{{"2"}}));
  EXPECT_EQ(Must("SELECT id FROM tarn_scan('shop.sales.t', snapshot := " + std::to_string(s1) +
                 ") ORDER BY id"),
            (Table{{"1"}, {"2"}}));
  QueryResult result;
  auto rows = Rows(
      "SELECT count(*) FROM tarn_scan('shop.sales.t', tag := 'first') UNION ALL "
      "SELECT count(*) FROM tarn_scan('shop.sales.t', at := TIMESTAMP '2000-01-01') ",
      &result);
  EXPECT_FALSE(rows.ok());  // no snapshot that early
  EXPECT_EQ(FieldOf(rows.status(), "code"), "snapshot_not_found") << rows.status().ToString();
  rows = Rows("SELECT count(*) FROM tarn_scan('shop.sales.t', tag := 'first')", &result);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Table{{"2"}}));
  ASSERT_EQ(result.reads.size(), 1u);
  EXPECT_EQ(result.reads[0].resolved_by, "tag");
  EXPECT_EQ(result.reads[0].tag, "first");
  EXPECT_EQ(result.reads[0].snapshot_id, s1);
  EXPECT_EQ(Must("SELECT id, _tarn_row_id FROM tarn_scan('shop.sales.t', row_ids := true) "
                 "ORDER BY id"),
            (Table{{"1", "0"}, {"3", "2"}}));
  EXPECT_EQ(Must("SELECT count(*) FROM tarn_scan('shop.sales.t', filter := 'id >= 2')"),
            (Table{{"1"}}));
}

TEST_F(SqlTest, LargeFilesReadInBatchesWithDeletesFiltersAndRowIds) {
  // Two files of 40,000 rows (more than a scan batch) with deleted rows: tarn's reader reads
  // them a batch at a time on two threads.
  Create("shop.sales.big", "id INT64, v VARCHAR");
  for (int f = 0; f < 2; ++f) {
    std::vector<std::vector<std::string>> rows;
    for (int i = 0; i < 40000; ++i) {
      const int id = f * 40000 + i;
      rows.push_back({std::to_string(id), "v" + std::to_string(id % 7)});
    }
    Append("shop.sales.big", rows);
  }
  CommitMeta meta;
  meta.author = "test";
  ASSERT_OK(
      cat_->DeleteRows("shop.sales.big", "id < 100 OR id = 16384 OR id = 40001 OR id > 79990", meta)
          .status());
  // 0..99, 16,384 (a batch edge), 40,001 (the second file) and 79,991..79,999 deleted.
  EXPECT_EQ(Must("SELECT count(*), sum(id), min(id), max(id) FROM shop.sales.big"),
            (Table{{"79889", "3199178710", "100", "79990"}}));
  EXPECT_EQ(Must("SELECT count(*) FROM tarn_scan('shop.sales.big', filter := 'v = ''v3''')"),
            Must("SELECT count(*) FROM shop.sales.big WHERE v = 'v3'"));
  // Row ids are file positions plus the file's first id: here the same as `id`.
  EXPECT_EQ(Must("SELECT count(*) FROM tarn_scan('shop.sales.big', row_ids := true) "
                 "WHERE _tarn_row_id <> id"),
            (Table{{"0"}}));
  EXPECT_EQ(Must("SELECT id FROM tarn_scan('shop.sales.big') WHERE id BETWEEN 16383 AND 16385 "
                 "ORDER BY id"),
            (Table{{"16383"}, {"16385"}}));
}

TEST_F(SqlTest, SchemaEvolutionReadsByFieldId) {
  Create("shop.sales.e", "id INT32, name VARCHAR");
  Append("shop.sales.e", {{"1", "a"}});
  std::vector<SchemaChange> changes = {*ParseSchemaChange("rename name TO label"),
                                       *ParseSchemaChange("add note VARCHAR"),
                                       *ParseSchemaChange("promote id INT64")};
  auto altered = cat_->AlterSchema("shop.sales.e", changes);
  ASSERT_TRUE(altered.ok()) << altered.status().ToString();
  Append("shop.sales.e", {{"2", "b", "new"}});
  EXPECT_EQ(Must("SELECT id, label, note FROM shop.sales.e ORDER BY id"),
            (Table{{"1", "a", "NULL"}, {"2", "b", "new"}}));
  EXPECT_EQ(Must("SELECT typeof(id) FROM shop.sales.e LIMIT 1"), (Table{{"BIGINT"}}));
}

// Direct reads (sql/direct.h): DuckDB's own reader over the files gives what tarn's reader gives,
// value for value, across schema evolution and every type it reads directly.
TEST_F(SqlTest, DirectReadsEqualTarnsReader) {
  Create("shop.sales.d",
         "b BOOLEAN, i8 INT8, i16 INT16, i32 INT32, i64 INT64 NOT NULL, u8 UINT8, u16 UINT16, "
         "u32 UINT32, u64 UINT64, f32 FLOAT32, f64 FLOAT64, d1 DECIMAL(4,1), d4 DECIMAL(38,5), "
         "s VARCHAR, bl BLOB, dt DATE, ts TIMESTAMP[us], tz TIMESTAMPTZ[us], u UUID, gone INT32");
  std::vector<std::string> row = {"true",
                                  "-8",
                                  "-16",
                                  "-32",
                                  "-9223372036854775808",
                                  "255",
                                  "65535",
                                  "4294967295",
                                  "18446744073709551615",
                                  "1.5",
                                  "-2.25",
                                  "-123.4",
                                  "123456789012345678901234567890123.45678",
                                  "a string longer than twelve bytes",
                                  "AP8=",
                                  "2026-02-28",
                                  "2026-01-02 03:04:05.123456",
                                  "2026-01-02 03:04:05.123456+00:00",
                                  "0189a1b2-c3d4-4e5f-8a9b-0c1d2e3f4a5b",
                                  "7"};
  std::vector<std::string> nulls(row.size(), "");
  nulls[4] = "1";
  Append("shop.sales.d", {row, nulls});
  // Renamed, added, promoted (int, float, decimal) and dropped columns: the first file holds
  // the old shapes, read by field id.
  std::vector<SchemaChange> changes = {
      *ParseSchemaChange("rename s TO label"),       *ParseSchemaChange("add note VARCHAR"),
      *ParseSchemaChange("promote i32 INT64"),       *ParseSchemaChange("promote f32 FLOAT64"),
      *ParseSchemaChange("promote d1 DECIMAL(9,2)"), *ParseSchemaChange("drop gone"),
      *ParseSchemaChange("add gone INT32")};
  auto altered = cat_->AlterSchema("shop.sales.d", changes);
  ASSERT_TRUE(altered.ok()) << altered.status().ToString();
  std::vector<std::string> later(row.begin(), row.end() - 1);  // ..., u, note, gone
  later[4] = "2";
  later.push_back("new");
  later.push_back("8");
  Append("shop.sales.d", {later});
  for (const char* sql : {"SELECT * FROM shop.sales.d ORDER BY i64",
                          "SELECT label, count(*), sum(i32), max(d1), min(tz) FROM shop.sales.d "
                          "GROUP BY label ORDER BY label",
                          "SELECT i64, gone, note, typeof(i32), typeof(d1) FROM shop.sales.d "
                          "WHERE f32 > 1 ORDER BY i64"}) {
    SCOPED_TRACE(sql);
    QueryResult direct, tarn;
    auto a = Rows(sql, &direct, true);
    auto b = Rows(sql, &tarn, false);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(*a, *b);
    EXPECT_EQ(direct.schema.ToString(), tarn.schema.ToString());
    EXPECT_EQ(direct.direct_files, 2);
    EXPECT_EQ(tarn.direct_files, 0);
    EXPECT_EQ(direct.files_read, 2);
    ASSERT_EQ(direct.reads.size(), 1u);
    EXPECT_EQ(direct.reads[0].snapshot_id, 2);
  }
  // The dropped column's values never come back; the one added under its name is new.
  EXPECT_EQ(Must("SELECT i64, gone, note, label FROM shop.sales.d ORDER BY i64"),
            (Table{{"-9223372036854775808", "NULL", "NULL", "a string longer than twelve bytes"},
                   {"1", "NULL", "NULL", "NULL"},
                   {"2", "8", "new", "a string longer than twelve bytes"}}));
}

// tarn's reader stays the reader wherever the direct one could differ, and the query may open
// no file but those of the datasets it names.
// Inlined files (docs/design/catalog-core.md "Inlined appends") are not in the warehouse's
// directory: tarn's reader reads them until they are written out, then DuckDB's may.
TEST_F(SqlTest, InlinedFilesAreReadByTarnUntilWrittenOut) {
  Create("shop.sales.t", "id INT64, v VARCHAR");
  ASSERT_OK(cat_->SetDatasetProperties("shop.sales.t", {{kInlineMaxBytesProperty, "64KiB"}}));
  Append("shop.sales.t", {{"1", "a"}, {"2", "b"}});
  Append("shop.sales.t", {{"3", "c"}});
  QueryResult r;
  auto rows = Rows("SELECT sum(id), string_agg(v, '' ORDER BY v) FROM shop.sales.t", &r);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Table{{"6", "abc"}}));
  EXPECT_EQ(r.direct_files, 0);
  auto flushed = cat_->FlushInlined("shop.sales.t");
  ASSERT_OK(flushed.status());
  EXPECT_EQ(flushed->files_written, 2);
  rows = Rows("SELECT sum(id), string_agg(v, '' ORDER BY v) FROM shop.sales.t", &r);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Table{{"6", "abc"}}));
  EXPECT_EQ(r.direct_files, 2);
}

TEST_F(SqlTest, DirectReadsOnlyWhereTheyAreExact) {
  Create("shop.sales.t", "id INT64, v VARCHAR");
  Create("shop.sales.other", "id INT64, secret VARCHAR");
  Create("shop.sales.ip", "id INT64, addr IPV4");
  Append("shop.sales.t", {{"1", "a"}, {"2", "b"}});
  Append("shop.sales.other", {{"9", "hidden"}});
  Append("shop.sales.ip", {{"1", "10.0.0.1"}});
  QueryResult r;
  ASSERT_TRUE(Rows("SELECT count(*) FROM shop.sales.t", &r).ok());
  EXPECT_EQ(r.direct_files, 1);
  // Another dataset's file, named by path, is not the query's to open.
  auto other = cat_->PlanFiles("shop.sales.other", {}, "", [&](const PlannedFile& f) {
    auto rows = Rows("SELECT * FROM shop.sales.t, read_parquet('" + dir_.string() + "/warehouse/" +
                     f.file.path + "')");
    EXPECT_FALSE(rows.ok());
    EXPECT_EQ(FieldOf(rows.status(), "code"), "sql_error") << rows.status().ToString();
    return Status::OK();
  });
  ASSERT_OK(other);
  // A type DuckDB's reader reads differently (IPV4): tarn's reader.
  ASSERT_TRUE(Rows("SELECT addr FROM shop.sales.ip", &r).ok());
  EXPECT_EQ(r.direct_files, 0);
  // Deleted rows: tarn's reader, which applies the deletion vector.
  CommitMeta meta;
  meta.author = "test";
  ASSERT_OK(cat_->DeleteRows("shop.sales.t", "id = 2", meta).status());
  auto rows = Rows("SELECT id FROM shop.sales.t", &r);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, (Table{{"1"}}));
  EXPECT_EQ(r.direct_files, 0);
  // A data file that disagrees with the catalog is never read directly: tarn's reader reports
  // it.
  std::string victim;
  ASSERT_OK(cat_->PlanFiles("shop.sales.other", {}, "", [&](const PlannedFile& f) {
    victim = dir_.string() + "/warehouse/" + f.file.path;
    return Status::OK();
  }));
  { std::ofstream(victim, std::ios::app) << "x"; }
  auto bad = Rows("SELECT * FROM shop.sales.other", &r);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(FieldOf(bad.status(), "code"), "file_metadata_mismatch") << bad.status().ToString();
}

// A registered file without Parquet field ids (another engine's) matches columns by name in
// tarn's reader; DuckDB's field-id mapping would read NULLs, so tarn's reader reads it.
TEST_F(SqlTest, FilesWithoutFieldIdsReadThroughTarn) {
  Create("shop.sales.ext", "id INT64, v VARCHAR");
  Schema schema = *Schema::Parse("id INT64, v VARCHAR");
  for (Field& f : schema.fields) f.field_id = -1;
  RecordBatch b = MakeBatch(schema, {{"1", "x"}, {"2", "y"}});
  auto sink = cat_->warehouse().OpenWrite("landing/ext.parquet");
  ASSERT_TRUE(sink.ok());
  auto w = parquet::FileWriter::Open(std::move(*sink), schema);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_OK((*w)->Write(b));
  ASSERT_OK((*w)->Close());
  ASSERT_OK(cat_->GrantLocation("shop.sales.ext", "landing"));
  CommitMeta meta;
  meta.author = "test";
  ASSERT_OK(cat_->AddFiles("shop.sales.ext", {"landing/ext.parquet"}, meta).status());
  QueryResult r;
  auto rows = Rows("SELECT id, v FROM shop.sales.ext ORDER BY id", &r);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Table{{"1", "x"}, {"2", "y"}}));
  EXPECT_EQ(r.direct_files, 0);
}

// DuckDB expands glob characters in paths: a file registered as "a[1].parquet" beside an
// "a1.parquet" must read as itself.
TEST_F(SqlTest, GlobCharactersInPathsReadThroughTarn) {
  Create("shop.sales.src", "id INT64, v VARCHAR");
  Create("shop.sales.g", "id INT64, v VARCHAR");
  Append("shop.sales.src", {{"1", "mine"}});
  std::string file;
  ASSERT_OK(cat_->PlanFiles("shop.sales.src", {}, "", [&](const PlannedFile& f) {
    file = f.file.path;
    return Status::OK();
  }));
  auto bytes = cat_->warehouse().Get(file);
  ASSERT_TRUE(bytes.ok());
  ASSERT_OK(cat_->warehouse().Put("landing/a[1].parquet", *bytes));
  Append("shop.sales.src", {{"2", "decoy"}});
  std::string decoy;
  ASSERT_OK(cat_->PlanFiles("shop.sales.src", {}, "", [&](const PlannedFile& f) {
    if (f.file.path != file) decoy = f.file.path;
    return Status::OK();
  }));
  auto decoy_bytes = cat_->warehouse().Get(decoy);
  ASSERT_TRUE(decoy_bytes.ok());
  ASSERT_OK(cat_->warehouse().Put("landing/a1.parquet", *decoy_bytes));
  ASSERT_OK(cat_->GrantLocation("shop.sales.g", "landing"));
  CommitMeta meta;
  meta.author = "test";
  ASSERT_OK(cat_->AddFiles("shop.sales.g", {"landing/a[1].parquet"}, meta).status());
  QueryResult r;
  auto rows = Rows("SELECT id, v FROM shop.sales.g", &r);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (Table{{"1", "mine"}}));
  EXPECT_EQ(r.direct_files, 0);
}

TEST_F(SqlTest, PartitionedAndEmptyDatasets) {
  Create("shop.sales.p", "id INT64, day DATE", "day");
  Create("shop.sales.empty", "id INT64");
  Append("shop.sales.p", {{"1", "2026-01-01"}, {"2", "2026-01-02"}, {"3", "2026-01-02"}});
  EXPECT_EQ(Must("SELECT day, count(*) FROM shop.sales.p GROUP BY day ORDER BY day"),
            (Table{{"2026-01-01", "1"}, {"2026-01-02", "2"}}));
  EXPECT_EQ(
      Must("SELECT count(*) FROM tarn_scan('shop.sales.p', \"where\" := 'day = ''2026-01-02''')"),
      (Table{{"2"}}));
  EXPECT_EQ(Must("SELECT count(*), max(id) FROM shop.sales.empty"), (Table{{"0", "NULL"}}));
}

TEST_F(SqlTest, ErrorsAreTyped) {
  Create("shop.sales.x", "id INT64");
  auto code = [&](const std::string& sql) {
    auto r = Rows(sql);
    EXPECT_FALSE(r.ok()) << sql;
    return r.ok() ? std::string("ok") : FieldOf(r.status(), "code");
  };
  auto r = Rows("SELECT id FORM shop.sales.x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(FieldOf(r.status(), "code"), "sql_syntax_error");
  EXPECT_EQ(FieldOf(r.status(), "position"), "15");
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  r = Rows("SELECT nope FROM shop.sales.x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(FieldOf(r.status(), "code"), "sql_binder_error");
  EXPECT_EQ(FieldOf(r.status(), "line"), "1");
  EXPECT_EQ(FieldOf(r.status(), "column"), "8");
  r = Rows("SELECT * FROM shop.sales.missing");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(FieldOf(r.status(), "code"), "dataset_not_found");
  EXPECT_NE(r.status().message().find("shop.sales.missing"), std::string::npos);
  EXPECT_EQ(code("SELECT * FROM tarn_scan('shop.sales.missing')"), "dataset_not_found");
  EXPECT_EQ(code("SELECT * FROM nowhere.sales.x"), "workspace_not_found");
  EXPECT_EQ(code("INSERT INTO t VALUES (1)"), "sql_not_a_query");
  EXPECT_EQ(code("SELECT 1; SELECT 2"), "sql_not_a_query");
  EXPECT_EQ(code("SELECT * FROM read_csv('/etc/passwd')"), "sql_error");
  EXPECT_EQ(code("SELECT CAST('abc' AS INTEGER)"), "sql_error");
  EXPECT_EQ(code("SELECT INTERVAL 1 DAY AS i"), "sql_unsupported_type");
  EXPECT_EQ(code("SELECT {'a': [INTERVAL 1 DAY]} AS s"), "sql_unsupported_type");
  EXPECT_EQ(code("SELECT * FROM tarn_scan('shop.sales.x', filter := 'id = ''a''')"),
            "predicate_type_mismatch");
}

TEST_F(SqlTest, IncrementalFormOfProjectionsAndFiltersOnly) {
  auto form = IncrementalForm("SELECT id, v * 2 AS w, * FROM shop.sales.t AS s WHERE v > 1");
  ASSERT_TRUE(form.ok()) << form.status().ToString();
  ASSERT_TRUE(form->has_value());
  EXPECT_EQ((*form)->source, "shop.sales.t");
  EXPECT_NE((*form)->sql.find("EXCLUDE (_tarn_row_id)"), std::string::npos) << (*form)->sql;
  EXPECT_NE((*form)->sql.find("_tarn_row_id AS _tarn_source_row_id"), std::string::npos)
      << (*form)->sql;
  for (const char* sql :
       {"SELECT count(*) FROM shop.sales.t", "SELECT v, sum(id) FROM shop.sales.t GROUP BY v",
        "SELECT DISTINCT v FROM shop.sales.t", "SELECT v FROM shop.sales.t ORDER BY v",
        "SELECT v FROM shop.sales.t LIMIT 3", "SELECT row_number() OVER () AS n FROM shop.sales.t",
        "SELECT v FROM shop.sales.t WHERE id IN (SELECT id FROM shop.sales.u)",
        "SELECT a.v FROM shop.sales.t a JOIN shop.sales.u b ON a.id = b.id",
        "SELECT v FROM shop.sales.t UNION ALL SELECT v FROM shop.sales.u",
        "WITH x AS (SELECT v FROM shop.sales.t) SELECT v FROM x",
        "SELECT COLUMNS('v') FROM shop.sales.t",
        "SELECT _tarn_row_id FROM tarn_scan('shop.sales.t', row_ids := true)",
        "SELECT v AS _tarn_source_row_id FROM shop.sales.t", "SELECT 1"}) {
    auto f = IncrementalForm(sql);
    ASSERT_TRUE(f.ok()) << sql << ": " << f.status().ToString();
    EXPECT_FALSE(f->has_value()) << sql;
  }
  EXPECT_TRUE(IncrementalForm("SELEC 1").status().Is(codes::kSqlSyntaxError));
}

TEST_F(SqlTest, IncrementalReadsAddRowIdsAndTheNewFilesOnly) {
  Create("shop.sales.t", "id INT64 NOT NULL, v VARCHAR");
  int64_t s1 = Append("shop.sales.t", {{"1", "a"}, {"2", "b"}});
  int64_t s2 = Append("shop.sales.t", {{"3", "c"}});
  std::vector<std::vector<std::string>> rows;
  QueryOptions options;
  options.incremental_reads["shop.sales.t"] = s1;
  options.pinned_snapshots["shop.sales.t"] = s2;
  auto r =
      cat_->Query("SELECT id, _tarn_row_id FROM shop.sales.t", options, [&](const RecordBatch& b) {
        for (int64_t i = 0; i < b.num_rows; ++i) {
          rows.push_back({ValueText(b.columns[0], i), ValueText(b.columns[1], i)});
        }
        return Status::OK();
      });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(rows, (std::vector<std::vector<std::string>>{{"3", "2"}}));
}

// A windowed task run (docs/design/tasks.md "Windows"): tarn_window is the rows the source
// added in (after, to]; without a window it is window_unbound; a window whose start is gone or
// ahead of the source's head is refused, typed, and records nothing.
TEST_F(SqlTest, TaskWindowsReadTheNewRowsOrRefuseTyped) {
  Create("shop.sales.t", "id INT64 NOT NULL, v VARCHAR");
  Create("shop.sales.out", "id INT64 NOT NULL, v VARCHAR");
  int64_t s1 = Append("shop.sales.t", {{"1", "a"}, {"2", "b"}});
  int64_t s2 = Append("shop.sales.t", {{"3", "c"}});
  QueryOptions options;
  options.window = QueryWindow{"shop.sales.t", s1, s2};
  Table rows;
  auto r = cat_->Query("SELECT id FROM tarn_window", options, [&](const RecordBatch& b) {
    for (int64_t i = 0; i < b.num_rows; ++i) rows.push_back({ValueText(b.columns[0], i)});
    return Status::OK();
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(rows, (Table{{"3"}}));
  EXPECT_TRUE(Rows("SELECT * FROM tarn_window").status().Is(codes::kWindowUnbound));

  TaskDefinition def;
  def.sql = "INSERT INTO shop.sales.out SELECT * FROM tarn_window";
  def.trigger = kTaskTriggerSignal;
  def.window_source = "shop.sales.t";
  auto task = cat_->CreateTask("shop.sales.w", def);
  ASSERT_TRUE(task.ok()) << task.status().ToString();
  TaskRunOptions run;
  run.author = "test";
  auto first = cat_->RunTask("shop.sales.w", run);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->rows, 3);
  EXPECT_EQ(first->record.window_to, s2);
  EXPECT_EQ(cat_->GetTask("shop.sales.w")->window_end, s2);
  // A window that starts past the source's head does not continue its history.
  run.window_after = s2 + 5;
  auto gap = cat_->RunTask("shop.sales.w", run);
  EXPECT_TRUE(gap.status().Is(codes::kWindowGap)) << gap.status().ToString();
  EXPECT_EQ(cat_->GetTask("shop.sales.w")->last_run_status, kRefreshFailed);
  EXPECT_EQ(cat_->GetTask("shop.sales.w")->window_end, s2);
  EXPECT_EQ(Must("SELECT count(*) FROM shop.sales.out"), (Table{{"3"}}));
}

TEST_F(SqlTest, CancelFlagInterrupts) {
  std::atomic<bool> cancel{true};
  QueryOptions options;
  options.cancel = &cancel;
  auto r = RunQuery(*cat_, "SELECT count(*) FROM range(10000000000) a", options,
                    [](const RecordBatch&) { return Status::OK(); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(FieldOf(r.status(), "code"), "sql_interrupted");
  EXPECT_EQ(r.status().kind(), ErrorKind::kCancelled);
  options.cancel = nullptr;
  options.timeout_s = 0.2;
  r = RunQuery(*cat_, "SELECT count(*) FROM range(10000000000) a", options,
               [](const RecordBatch&) { return Status::OK(); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(FieldOf(r.status(), "code"), "sql_timeout");
}

}  // namespace
}  // namespace tarn::sql

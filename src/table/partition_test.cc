#include "tarn/partition.h"

#include <gtest/gtest.h>

#include "table/schema_json.h"
#include "table/test_util.h"

namespace tarn {
namespace {

using table_test::Col;
using table_test::S;
using table_test::Texts;

std::vector<std::string> Apply(std::string_view transform, std::string_view type,
                               const std::vector<std::string>& values) {
  Result<Transform> t = Transform::Parse(transform);
  EXPECT_TRUE(t.ok()) << transform;
  Result<Column> c = ApplyTransform(*t, Col(type, values));
  EXPECT_TRUE(c.ok()) << transform << " " << type << ": " << c.status().ToString();
  return c.ok() ? Texts(*c) : std::vector<std::string>{};
}

using V = std::vector<std::string>;

// Iceberg spec, "Partition Transforms" and Appendix B examples.
TEST(TransformTest, IcebergSpecExamples) {
  EXPECT_EQ(Apply("bucket[16]", "INT32", {"34"}), V{"3"});  // hash 2017239379
  EXPECT_EQ(Apply("bucket[16]", "INT64", {"34"}), V{"3"});
  EXPECT_EQ(Apply("bucket[100]", "VARCHAR", {"iceberg"}), V{"89"});  // 1210000089 % 100
  EXPECT_EQ(Apply("truncate[10]", "INT32", {"1", "-1", "0", "10", "-10", "-11"}),
            (V{"0", "-10", "0", "10", "-10", "-20"}));
  EXPECT_EQ(Apply("truncate[10]", "INT64", {"1", "-1"}), (V{"0", "-10"}));
  EXPECT_EQ(Apply("truncate[50]", "DECIMAL(9,2)", {"10.65", "-0.01"}), (V{"10.50", "-0.50"}));
  EXPECT_EQ(Apply("truncate[3]", "VARCHAR", {"iceberg", "ab", ""}), (V{"ice", "ab", ""}));
  EXPECT_EQ(Apply("month", "DATE", {"2017-11-16"}), V{"574"});
  EXPECT_EQ(Apply("year", "DATE", {"2017-11-16"}), V{"47"});
  EXPECT_EQ(Apply("day", "DATE", {"2017-11-16"}), V{"17486"});
  EXPECT_EQ(Apply("hour", "TIMESTAMP[us]", {"2017-11-16T22:31:08"}), V{"419686"});
}

TEST(TransformTest, NullsStayNull) {
  for (const char* t : {"bucket[4]", "truncate[2]", "identity"}) {
    EXPECT_EQ(Apply(t, "INT64", {"NULL", "5"})[0], "NULL") << t;
  }
  EXPECT_EQ(Apply("day", "TIMESTAMP[us]", {"NULL", "1970-01-02"}), (V{"NULL", "1"}));
  EXPECT_EQ(Apply("void", "INT32", {"1", "NULL"}), (V{"NULL", "NULL"}));
  EXPECT_EQ(Apply("void", "VARCHAR", {"a"}), V{"NULL"});
}

TEST(TransformTest, TimeTransformsFloorBefore1970InEveryUnit) {
  for (const char* type :
       {"TIMESTAMP[s]", "TIMESTAMP[ms]", "TIMESTAMP[us]", "TIMESTAMP[ns]", "TIMESTAMPTZ[s]",
        "TIMESTAMPTZ[ms]", "TIMESTAMPTZ[us]", "TIMESTAMPTZ[ns]"}) {
    V v = {"1969-12-31T23:59:59", "1970-01-01T00:00:00", "1969-01-01T00:00:00",
           "2017-11-16T22:31:08", "1900-03-01T01:00:00"};
    EXPECT_EQ(Apply("year", type, v), (V{"-1", "0", "-1", "47", "-70"})) << type;
    EXPECT_EQ(Apply("month", type, v), (V{"-1", "0", "-12", "574", "-838"})) << type;
    EXPECT_EQ(Apply("day", type, v), (V{"-1", "0", "-365", "17486", "-25508"})) << type;
    EXPECT_EQ(Apply("hour", type, v), (V{"-1", "0", "-8760", "419686", "-612191"})) << type;
  }
  EXPECT_EQ(Apply("day", "TIMESTAMP[ns]", {"1969-12-31T23:59:59.999999999"}), V{"-1"});
  EXPECT_EQ(Apply("hour", "TIMESTAMP[ms]", {"1969-12-31T23:00:00.001"}), V{"-1"});
  EXPECT_EQ(Apply("month", "DATE", {"1969-12-31", "0001-01-01"}), (V{"-1", "-23628"}));
  EXPECT_EQ(Apply("day", "DATE", {"1969-12-31"}), V{"-1"});
}

TEST(TransformTest, TruncateEdges) {
  EXPECT_EQ(Apply("truncate[1]", "INT32", {"-7"}), V{"-7"});
  EXPECT_EQ(Apply("truncate[3]", "UINT64", {"18446744073709551615"}), V{"18446744073709551615"});
  EXPECT_EQ(Apply("truncate[10]", "UINT64", {"18446744073709551615"}), V{"18446744073709551610"});
  EXPECT_EQ(Apply("truncate[4]", "INT16", {"-1", "32767"}), (V{"-4", "32764"}));
  // INT32 minimum wraps like Iceberg's Java int arithmetic.
  EXPECT_EQ(Apply("truncate[10]", "INT32", {"-2147483648"}), V{"2147483646"});
  // Code points, not bytes; blobs by bytes.
  EXPECT_EQ(Apply("truncate[2]", "VARCHAR", {"éèà", "a😀b"}), (V{"éè", "a😀"}));
  EXPECT_EQ(Apply("truncate[2]", "BLOB", {"AAECAw=="}), V{"AAE="});
}

TEST(TransformTest, ParseAndResultType) {
  for (const char* t :
       {"identity", "bucket[16]", "truncate[4]", "year", "month", "day", "hour", "void"}) {
    Result<Transform> r = Transform::Parse(t);
    ASSERT_TRUE(r.ok()) << t;
    EXPECT_EQ(r->ToString(), t);
  }
  for (const char* bad : {"", "bucket", "bucket[0]", "bucket[-1]", "bucket[x]", "truncate[]",
                          "weekly", "bucket[99999999999]"}) {
    EXPECT_FALSE(Transform::Parse(bad).ok()) << bad;
  }
  Transform hour{TransformKind::kHour, 0};
  EXPECT_FALSE(hour.ResultType(DataType::Date()).ok());
  EXPECT_EQ(*hour.ResultType(DataType::Timestamp(TimeUnit::kNano)), DataType::Int32());
  Transform bucket{TransformKind::kBucket, 8};
  EXPECT_FALSE(bucket.ResultType(DataType::Float64()).ok());
  EXPECT_FALSE(bucket.ResultType(DataType::Boolean()).ok());
  Transform trunc{TransformKind::kTruncate, 8};
  EXPECT_EQ(*trunc.ResultType(DataType::Varchar()), DataType::Varchar());
  EXPECT_FALSE(trunc.ResultType(DataType::Date()).ok());
  EXPECT_FALSE(Transform{}.ResultType(DataType::Array(DataType::Int32())).ok());
}

TEST(PartitionSpecTest, ParseNamesIdsAndPrintBack) {
  Schema s = S("id INT64, ts TIMESTAMP[us], region VARCHAR, name VARCHAR, x INT32");
  Result<PartitionSpec> p = PartitionSpec::Parse(
      "bucket(16, id), month(ts), region, truncate(4, name), identity(x), day(ts)", s, 3);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->spec_id, 3);
  ASSERT_EQ(p->fields.size(), 6u);
  V names;
  for (const PartitionField& f : p->fields) names.push_back(f.name);
  EXPECT_EQ(names, (V{"id_bucket", "ts_month", "region", "name_trunc", "x", "ts_day"}));
  EXPECT_EQ(p->fields[0].field_id, 1000);
  EXPECT_EQ(p->fields[5].field_id, 1005);
  EXPECT_EQ(p->fields[0].source_id, 1);
  EXPECT_EQ(p->fields[0].transform, (Transform{TransformKind::kBucket, 16}));
  EXPECT_EQ(p->ToString(s), "bucket(16, id), month(ts), region, truncate(4, name), x, day(ts)");
  Result<PartitionSpec> again = PartitionSpec::Parse(p->ToString(s), s, 3);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *p);
  Result<PartitionSpec> fj = PartitionSpec::FromJson(p->ToJson());
  ASSERT_TRUE(fj.ok()) << fj.status().ToString();
  EXPECT_EQ(*fj, *p);
  EXPECT_NE(p->ToJson().find("{\"field-id\":1000,\"name\":\"id_bucket\",\"source-id\":1,"
                             "\"transform\":\"bucket[16]\"}"),
            std::string::npos)
      << p->ToJson();
  // Spark spellings.
  Result<PartitionSpec> spark = PartitionSpec::Parse("days(ts), truncate(name, 4)", s);
  ASSERT_TRUE(spark.ok());
  EXPECT_EQ(spark->fields[1].transform, (Transform{TransformKind::kTruncate, 4}));
  EXPECT_TRUE(PartitionSpec::Parse("", s)->unpartitioned());
}

TEST(PartitionSpecTest, ParseErrors) {
  Schema s = S("id INT64, ts TIMESTAMP[us], d DATE, f FLOAT64, id_bucket INT32");
  for (const char* bad :
       {"nope", "bucket(id)", "bucket(0, id)", "hour(d)", "bucket(4, f)", "month(ts), month(ts)",
        "frob(ts)", "month(ts", "id,", "bucket(4, id)", "truncate(4, d)"}) {
    Result<PartitionSpec> r = PartitionSpec::Parse(bad, s);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << bad;
    }
  }
  for (const char* bad : {"", "{}", "{\"spec-id\":0}", "{\"spec-id\":0,\"fields\":[{}]}",
                          "{\"spec-id\":0,\"fields\":[{\"source-id\":1,\"field-id\":1000,"
                          "\"name\":\"a\",\"transform\":\"bucket[0]\"}]}"}) {
    EXPECT_FALSE(PartitionSpec::FromJson(bad).ok()) << bad;
  }
}

TEST(PartitionValuesTest, JsonRoundTrip) {
  PartitionValues v = {"3", std::nullopt, "654", "it's \"q\""};
  std::string json = PartitionValuesToJson(v);
  EXPECT_EQ(json, R"(["3",null,"654","it's \"q\""])");
  EXPECT_EQ(*PartitionValuesFromJson(json), v);
  EXPECT_FALSE(PartitionValuesFromJson("[1]").ok());
  EXPECT_FALSE(PartitionValuesFromJson("{}").ok());
  EXPECT_FALSE(PartitionValuesFromJson("[").ok());
  EXPECT_TRUE(PartitionValuesFromJson("[]")->empty());
}

TEST(GroupByPartitionTest, GroupsRowsByTuple) {
  Schema s = S("id INT64, ts TIMESTAMP[us], region VARCHAR");
  PartitionSpec spec = *PartitionSpec::Parse("month(ts), region", s);
  RecordBatch b;
  b.schema = s;
  b.columns.push_back(Col("INT64", {"1", "2", "3", "4", "5"}));
  b.columns.push_back(Col(
      "TIMESTAMP[us]", {"2024-01-05", "2024-02-01", "2024-01-31T23:59:59", "NULL", "2024-01-01"}));
  b.columns.push_back(Col("VARCHAR", {"eu", "eu", "eu", "us", "us"}));
  b.num_rows = 5;
  Result<std::vector<PartitionGroup>> g = GroupByPartition(spec, b);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->size(), 4u);
  EXPECT_EQ((*g)[0].values, (PartitionValues{"648", "eu"}));
  EXPECT_EQ((*g)[0].rows, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ((*g)[1].values, (PartitionValues{"649", "eu"}));
  EXPECT_EQ((*g)[2].values, (PartitionValues{std::nullopt, "us"}));
  EXPECT_EQ((*g)[3].rows, (std::vector<int64_t>{4}));
  EXPECT_EQ(PartitionPath(spec, s, (*g)[0].values), "ts_month=2024-01/region=eu");
  EXPECT_EQ(PartitionPath(spec, s, (*g)[2].values), "ts_month=null/region=us");

  PartitionSpec one = *PartitionSpec::Parse("bucket(2, id)", s);
  g = GroupByPartition(one, b);
  ASSERT_TRUE(g.ok());
  size_t total = 0;
  for (const auto& grp : *g) total += grp.rows.size();
  EXPECT_EQ(total, 5u);

  PartitionSpec none;
  EXPECT_EQ(GroupByPartition(none, b)->at(0).rows.size(), 5u);

  PartitionSpec missing = spec;
  missing.fields[0].source_id = 77;
  EXPECT_EQ(GroupByPartition(missing, b).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(PartitionSpecTest, SourcesInsideStructs) {
  Schema s = S("id INT64, p STRUCT<user_id: INT64, \"odd name\": STRUCT<region: VARCHAR>>, "
               "l ARRAY<STRUCT<x: INT32>>");
  int32_t last = 0;
  ASSERT_TRUE(AssignFieldIds(&s, &last).ok());
  auto spec = PartitionSpec::Parse("bucket(4, p.user_id), \"p\".\"odd name\".region", s);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const Field& user = s.fields[1].type.children()[0];
  const Field& region = s.fields[1].type.children()[1].type.children()[0];
  EXPECT_EQ(spec->fields[0].source_id, user.field_id);
  EXPECT_EQ(spec->fields[0].name, "p.user_id_bucket");  // Iceberg's naming: the full name
  EXPECT_EQ(spec->fields[1].source_id, region.field_id);
  EXPECT_EQ(spec->fields[1].name, "p.odd name.region");
  EXPECT_EQ(spec->ToString(s), "bucket(4, p.user_id), p.\"odd name\".region");
  auto again = PartitionSpec::Parse(spec->ToString(s), s);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->fields, spec->fields);
  for (const char* bad : {"p", "bucket(4, p.nope)", "day(id.x)", "l.x", "p..user_id", "p.",
                          "bucket(4, p.\"odd name\")"}) {
    EXPECT_FALSE(PartitionSpec::Parse(bad, s).ok()) << bad;
  }

  // Rows group by the member's values; a null struct is a null source value.
  RecordBatch b;
  b.schema = s;
  b.columns.push_back(Col("INT64", {"1", "2", "3", "4"}));
  b.columns.push_back(Col("STRUCT<user_id: INT64, \"odd name\": STRUCT<region: VARCHAR>>",
                          {R"({"user_id":7,"odd name":{"region":"eu"}})", "NULL",
                           R"({"user_id":7,"odd name":null})",
                           R"({"user_id":8,"odd name":{"region":"eu"}})"}));
  b.columns.push_back(Col("ARRAY<STRUCT<x: INT32>>", {"[]", "[]", "[]", "[]"}));
  b.num_rows = 4;
  auto by_region = PartitionSpec::Parse("p.\"odd name\".region", s);
  ASSERT_TRUE(by_region.ok());
  auto g = GroupByPartition(*by_region, b);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->size(), 2u);
  EXPECT_EQ((*g)[0].values, (PartitionValues{"eu"}));
  EXPECT_EQ((*g)[0].rows, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ((*g)[1].values, (PartitionValues{std::nullopt}));
  EXPECT_EQ(PartitionPath(*by_region, s, (*g)[0].values), "p.odd%20name.region=eu");
  g = GroupByPartition(*spec, b);
  ASSERT_TRUE(g.ok());
  size_t total = 0;
  for (const auto& grp : *g) total += grp.rows.size();
  EXPECT_EQ(total, 4u);
}

TEST(PartitionPathTest, HumanTimeValuesAndEscapes) {
  Schema s = S("ts TIMESTAMP[us], v VARCHAR");
  PartitionSpec spec = *PartitionSpec::Parse("year(ts), month(ts), day(ts), hour(ts), v", s);
  EXPECT_EQ(PartitionPath(spec, s, {"-1", "-1", "-1", "-1", "a/b c"}),
            "ts_year=1969/ts_month=1969-12/ts_day=1969-12-31/ts_hour=1969-12-31-23/v=a%2Fb%20c");
}

}  // namespace
}  // namespace tarn

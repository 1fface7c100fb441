#include "iceberg/schema.h"

#include <gtest/gtest.h>

namespace tarn::iceberg {
namespace {

// Field ids as Schema::Parse gives them: 1..N for the columns, then the nested fields level by
// level (AssignNestedIds).
Schema Parse(const std::string& text) {
  auto s = Schema::Parse(text);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

Json Fields(const std::string& text, int version, std::vector<OmittedColumn>* omitted) {
  auto j = SchemaJson(Parse(text), 0, version, omitted);
  EXPECT_TRUE(j.ok()) << j.status().ToString();
  return (*j)["fields"];
}

TEST(IcebergSchema, PrimitivesMapToTheSpecsNames) {
  std::vector<OmittedColumn> omitted;
  Json f = Fields(
      "b BOOLEAN NOT NULL, i8 INT8, i16 INT16, i32 INT32, u8 UINT8, u16 UINT16, i64 INT64, "
      "f FLOAT32, d FLOAT64, dec DECIMAL(10,2), s VARCHAR, j JSON, bl BLOB, u UUID, dt DATE, "
      "t TIME, ts TIMESTAMP[us], tz TIMESTAMPTZ[us]",
      2, &omitted);
  EXPECT_TRUE(omitted.empty());
  const char* want[] = {"boolean", "int",   "int",    "int",           "int",       "int",
                        "long",    "float", "double", "decimal(10,2)", "string",    "string",
                        "binary",  "uuid",  "date",   "time",          "timestamp", "timestamptz"};
  ASSERT_EQ(f.size(), std::size(want));
  for (size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(f[i]["type"], want[i]) << f[i].dump();
    EXPECT_EQ(f[i]["id"], static_cast<int>(i) + 1);
  }
  EXPECT_EQ(f[0]["required"], true);
  EXPECT_EQ(f[1]["required"], false);
}

TEST(IcebergSchema, WhatAVersionCannotShowIsLeftOutWithItsReason) {
  std::vector<OmittedColumn> omitted;
  Json f = Fields(
      "id INT64, u32 UINT32, ip IPV4, u64 UINT64, tn TIME[ns], ts_s TIMESTAMP[s], "
      "ts_ms TIMESTAMPTZ[ms], ts_ns TIMESTAMP[ns], v VARIANT",
      2, &omitted);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]["name"], "id");
  std::vector<std::string> paths;
  for (const auto& o : omitted) {
    paths.push_back(o.path);
    EXPECT_FALSE(o.reason.empty()) << o.path;
  }
  EXPECT_EQ(paths,
            (std::vector<std::string>{"u32", "ip", "u64", "tn", "ts_s", "ts_ms", "ts_ns", "v"}));
  // Version 3 shows nanosecond timestamps and variants.
  omitted.clear();
  f = Fields("ts_ns TIMESTAMP[ns], tz_ns TIMESTAMPTZ[ns], v VARIANT, u32 UINT32", 3, &omitted);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0]["type"], "timestamp_ns");
  EXPECT_EQ(f[1]["type"], "timestamptz_ns");
  EXPECT_EQ(f[2]["type"], "variant");
  ASSERT_EQ(omitted.size(), 1u);
  EXPECT_EQ(omitted[0].path, "u32");
}

TEST(IcebergSchema, NestedTypesCarryTheirIds) {
  std::vector<OmittedColumn> omitted;
  Json f = Fields(
      "tags ARRAY<VARCHAR NOT NULL>, m MAP<VARCHAR, INT64>, "
      "p STRUCT<a: INT64 NOT NULL, u: UINT64, l: ARRAY<UINT32>, q: STRUCT<z: DATE>>",
      2, &omitted);
  ASSERT_EQ(f.size(), 3u);
  // Ids: top level 1..3, then level by level (AssignNestedIds): tags.element 4, m.key 5,
  // m.value 6, p.a 7, p.u 8, p.l 9, p.q 10, p.l.element 11, p.q.z 12.
  EXPECT_EQ(
      f[0]["type"],
      (Json{
          {"type", "list"}, {"element-id", 4}, {"element", "string"}, {"element-required", true}}));
  EXPECT_EQ(f[1]["type"], (Json{{"type", "map"},
                                {"key-id", 5},
                                {"key", "string"},
                                {"value-id", 6},
                                {"value", "long"},
                                {"value-required", false}}));
  const Json& p = f[2]["type"];
  EXPECT_EQ(p["type"], "struct");
  ASSERT_EQ(p["fields"].size(), 2u);  // u and l left out
  EXPECT_EQ(p["fields"][0], (Json{{"id", 7}, {"name", "a"}, {"required", true}, {"type", "long"}}));
  EXPECT_EQ(p["fields"][1]["name"], "q");
  EXPECT_EQ(p["fields"][1]["type"]["fields"][0]["id"], 12);
  ASSERT_EQ(omitted.size(), 2u);
  EXPECT_EQ(omitted[0].path, "p.u");
  EXPECT_EQ(omitted[1].path, "p.l");
  EXPECT_NE(omitted[1].reason.find("its elements"), std::string::npos);
  // A map of values it cannot show is left out whole.
  omitted.clear();
  f = Fields("m MAP<VARCHAR, UINT64>", 2, &omitted);
  EXPECT_TRUE(f.empty());
  ASSERT_EQ(omitted.size(), 1u);
  EXPECT_NE(omitted[0].reason.find("its values"), std::string::npos);
}

TEST(IcebergSchema, RefusesMissingIdsAndUnknownVersions) {
  std::vector<OmittedColumn> omitted;
  Schema s = Parse("id INT64");
  EXPECT_FALSE(SchemaJson(s, 0, 1, &omitted).ok());
  EXPECT_FALSE(SchemaJson(s, 0, 4, &omitted).ok());
  s.fields[0].field_id = -1;
  EXPECT_FALSE(SchemaJson(s, 0, 2, &omitted).ok());
  Schema nested = Parse("tags ARRAY<INT64>");
  nested.fields[0].type = ClearNestedIds(nested.fields[0].type);  // the element has none
  auto r = SchemaJson(nested, 0, 2, &omitted);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tags.element"), std::string::npos);
  auto ok = SchemaJson(Parse("id INT64"), 7, 2, &omitted);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["schema-id"], 7);
  EXPECT_EQ((*ok)["type"], "struct");
}

}  // namespace
}  // namespace tarn::iceberg

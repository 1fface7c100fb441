#include "table/schema_json.h"

#include <gtest/gtest.h>

#include "table/test_util.h"

namespace tarn {
namespace {

using table_test::S;

TEST(SchemaJsonTest, RoundTripKeepsIdsAndTypes) {
  Schema s = S("id INT64 NOT NULL, ts TIMESTAMPTZ[ns], amount DECIMAL(10,2), tags ARRAY<VARCHAR>");
  s.fields[0].field_id = 7;
  s.fields[3].field_id = 12;
  s.fields[3].type = DataType::Array(DataType::Varchar(), 40, false);
  std::string json = SchemaToJson(s);
  EXPECT_NE(json.find("\"id\":7"), std::string::npos) << json;
  EXPECT_NE(json.find("\"type\":\"TIMESTAMPTZ[ns]\""), std::string::npos) << json;
  Result<Schema> back = SchemaFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->fields.size(), 4u);
  EXPECT_EQ(back->fields[0].field_id, 7);
  EXPECT_FALSE(back->fields[0].nullable);
  EXPECT_EQ(back->fields[2].type, DataType::Decimal(10, 2));
  EXPECT_EQ(back->fields[3].type.ToString(), "ARRAY<VARCHAR NOT NULL>");
  EXPECT_EQ(back->fields[3].type.element_field().field_id, 40);
  EXPECT_FALSE(back->fields[3].type.element_field().nullable);
  EXPECT_EQ(SchemaToJson(*back), json);
}

TEST(SchemaJsonTest, NestedIdsRoundTrip) {
  Schema s =
      S("p STRUCT<a: INT64 NOT NULL, m: MAP<VARCHAR, ARRAY<ARRAY<INT8>>>>, tags ARRAY<VARCHAR>");
  std::string json = SchemaToJson(s);
  Result<Schema> back = SchemaFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToString(), s.ToString());
  for (size_t i = 0; i < s.fields.size(); ++i) {
    EXPECT_TRUE(SameNestedFields(back->fields[i].type, s.fields[i].type)) << json;
  }
  EXPECT_EQ(MaxFieldId(*back), 9) << json;
  EXPECT_EQ(SchemaToJson(*back), json);
  // The ids of every level are in the JSON, the innermost ARRAY's element included.
  EXPECT_NE(json.find(R"("children":[{"id":8,"name":"element"}])"), std::string::npos) << json;

  // Children that do not match the type, duplicate nested ids.
  EXPECT_FALSE(SchemaFromJson(R"({"fields":[{"id":1,"name":"p","type":"STRUCT<a: INT64>",
      "nullable":true,"children":[{"id":2,"name":"b"}]}]})")
                   .ok());
  EXPECT_FALSE(SchemaFromJson(R"({"fields":[{"id":1,"name":"p","type":"STRUCT<a: INT64>",
      "nullable":true,"children":[]}]})")
                   .ok());
  EXPECT_FALSE(SchemaFromJson(R"({"fields":[{"id":1,"name":"p","type":"STRUCT<a: INT64>",
      "nullable":true,"children":[{"id":1,"name":"a"}]}]})")
                   .ok());
  EXPECT_FALSE(SchemaFromJson(R"({"fields":[{"id":1,"name":"p","type":"INT64",
      "nullable":true,"children":[{"id":2}]}]})")
                   .ok());

  // AssignFieldIds fills nested ids below the field's, keeping the ones given.
  Schema fresh = S("x INT64, p STRUCT<a: INT64, b: ARRAY<INT8>>");
  for (Field& f : fresh.fields) {
    f.field_id = -1;
    f.type = ClearNestedIds(f.type);
  }
  int32_t last = 5;
  ASSERT_TRUE(AssignFieldIds(&fresh, &last).ok());
  EXPECT_EQ(fresh.fields[0].field_id, 6);
  EXPECT_EQ(fresh.fields[1].field_id, 7);
  EXPECT_EQ(fresh.fields[1].type.children()[0].field_id, 8);
  EXPECT_EQ(fresh.fields[1].type.children()[1].field_id, 9);
  EXPECT_EQ(fresh.fields[1].type.children()[1].type.element_field().field_id, 10);
  EXPECT_EQ(last, 10);
}

TEST(SchemaJsonTest, DesignExampleParses) {
  Result<Schema> s = SchemaFromJson(
      R"({"fields":[{"id":1,"name":"id","type":"INT64","nullable":false}, {"id":3,"name":"tags",
      "type":"ARRAY<VARCHAR>","nullable":true,"element_id":4,"element_nullable":true}]})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->fields[1].field_id, 3);
  EXPECT_EQ(s->fields[1].type.element_field().field_id, 4);
  EXPECT_EQ(MaxFieldId(*s), 4);
}

TEST(SchemaJsonTest, MalformedInputIsRefusedWithAReason) {
  struct Case {
    const char* json;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {"", "not valid JSON"},
           {"{\"fields\":[", "not valid JSON"},
           {"[]", "not a JSON object"},
           {"{}", "\"fields\""},
           {R"({"fields":[{"id":1,"type":"INT64"}]})", "name"},
           {R"({"fields":[{"id":1,"name":"a"}]})", "type"},
           {R"({"fields":[{"id":1,"name":"a","type":"INT65"}]})", "INT65"},
           {R"({"fields":[{"id":"1","name":"a","type":"INT64"}]})", "\"id\""},
           {R"({"fields":[{"name":"a","type":"INT64"}]})", "\"id\""},
           {R"({"fields":[{"id":1,"name":"a","type":"INT64","nullable":1}]})", "nullable"},
           {R"({"fields":[{"id":1,"name":"a","type":"INT64"},{"id":1,"name":"b","type":"INT64"}]})",
            "duplicate field id 1"},
           {R"({"fields":[{"id":1,"name":"a","type":"INT64"},{"id":2,"name":"A","type":"INT64"}]})",
            "duplicate field name"},
           {R"({"fields":[{"id":99999999999,"name":"a","type":"INT64"}]})", "out of range"},
       }) {
    Result<Schema> r = SchemaFromJson(c.json);
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos)
        << c.json << " -> " << r.status().message();
  }
}

TEST(SchemaJsonTest, ColumnNames) {
  for (const char* ok : {"id", "_x", "A-b_9", "a"}) EXPECT_TRUE(ValidateColumnName(ok).ok()) << ok;
  EXPECT_TRUE(ValidateColumnName(std::string(128, 'a')).ok());
  for (std::string bad : {std::string(""), std::string("9a"), std::string("-a"), std::string("a b"),
                          std::string("a.b"), std::string("é"), std::string(129, 'a'),
                          std::string("_tarn_row_id"), std::string("_TARNx")}) {
    Status st = ValidateColumnName(bad);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
    ASSERT_EQ(st.fields().size(), 1u);
    EXPECT_EQ(st.fields()[0].first, "code");
    EXPECT_EQ(st.fields()[0].second, "invalid_name");
  }
  EXPECT_TRUE(ValidateColumnName("_tar").ok());
}

TEST(SchemaJsonTest, AssignFieldIds) {
  Schema s = S("a INT64, b ARRAY<INT32>, c VARCHAR");
  for (Field& f : s.fields) {
    f.field_id = -1;
    f.type = ClearNestedIds(f.type);
  }
  s.fields[2].field_id = 5;
  int32_t last = 5;
  ASSERT_TRUE(AssignFieldIds(&s, &last).ok());
  EXPECT_EQ(s.fields[0].field_id, 6);
  EXPECT_EQ(s.fields[1].field_id, 7);
  EXPECT_EQ(s.fields[1].type.element_field().field_id, 8);
  EXPECT_EQ(s.fields[2].field_id, 5);
  EXPECT_EQ(last, 8);
  EXPECT_EQ(MaxFieldId(s), 8);

  Schema dup = S("a INT64, b INT64");
  dup.fields[1].field_id = 1;
  int32_t last2 = 1;
  EXPECT_FALSE(AssignFieldIds(&dup, &last2).ok());
  EXPECT_EQ(last2, 1);
}

}  // namespace
}  // namespace tarn

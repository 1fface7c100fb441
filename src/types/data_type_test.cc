#include "tarn/data_type.h"

#include <gtest/gtest.h>

#include <string>

namespace tarn {
namespace {

DataType MustParse(std::string_view text) {
  Result<DataType> r = DataType::Parse(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : DataType();
}

std::string ParseError(std::string_view text) {
  Result<DataType> r = DataType::Parse(text);
  EXPECT_FALSE(r.ok()) << text << " parsed as " << (r.ok() ? r->ToString() : "");
  if (r.ok()) return "";
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  return r.status().message();
}

TEST(DataTypeParseTest, CanonicalNamesRoundTrip) {
  for (std::string_view name : {"BOOLEAN",
                                "INT8",
                                "INT16",
                                "INT32",
                                "INT64",
                                "UINT8",
                                "UINT16",
                                "UINT32",
                                "UINT64",
                                "FLOAT32",
                                "FLOAT64",
                                "DECIMAL(10,2)",
                                "DECIMAL(38,38)",
                                "DECIMAL(1,0)",
                                "VARCHAR",
                                "BLOB",
                                "DATE",
                                "TIME",
                                "TIME[ns]",
                                "ARRAY<TIME[ns]>",
                                "TIMESTAMP[s]",
                                "TIMESTAMP[ms]",
                                "TIMESTAMP[us]",
                                "TIMESTAMP[ns]",
                                "TIMESTAMPTZ[s]",
                                "TIMESTAMPTZ[ms]",
                                "TIMESTAMPTZ[us]",
                                "TIMESTAMPTZ[ns]",
                                "UUID",
                                "IPV4",
                                "JSON",
                                "ARRAY<INT64>",
                                "ARRAY<ARRAY<DECIMAL(5,1)>>",
                                "ARRAY<TIMESTAMPTZ[ns]>"}) {
    DataType t = MustParse(name);
    EXPECT_EQ(t.ToString(), name);
    EXPECT_EQ(MustParse(t.ToString()), t);
  }
}

TEST(DataTypeParseTest, AliasesAndCase) {
  EXPECT_EQ(MustParse("bigint"), DataType::Int64());
  EXPECT_EQ(MustParse("Int"), DataType::Int32());
  EXPECT_EQ(MustParse("INTEGER"), DataType::Int32());
  EXPECT_EQ(MustParse("smallint"), DataType::Int16());
  EXPECT_EQ(MustParse("TinyInt"), DataType::Int8());
  EXPECT_EQ(MustParse("double"), DataType::Float64());
  EXPECT_EQ(MustParse("float"), DataType::Float32());
  EXPECT_EQ(MustParse("REAL"), DataType::Float32());
  EXPECT_EQ(MustParse("string"), DataType::Varchar());
  EXPECT_EQ(MustParse("text"), DataType::Varchar());
  EXPECT_EQ(MustParse("bool"), DataType::Boolean());
  EXPECT_EQ(MustParse("bytes"), DataType::Blob());
  EXPECT_EQ(MustParse("binary"), DataType::Blob());
  EXPECT_EQ(MustParse("uuid"), DataType::Uuid());
  EXPECT_EQ(MustParse("ipv4"), DataType::Ipv4());
  EXPECT_EQ(MustParse("json"), DataType::Json());
  EXPECT_EQ(MustParse("  varchar  "), DataType::Varchar());
}

TEST(DataTypeParseTest, Decimal) {
  DataType t = MustParse("decimal ( 10 , 2 )");
  EXPECT_EQ(t.id(), TypeId::kDecimal);
  EXPECT_EQ(t.precision(), 10);
  EXPECT_EQ(t.scale(), 2);
  EXPECT_EQ(MustParse("DECIMAL(7)"), DataType::Decimal(7, 0));
  EXPECT_EQ(MustParse("DECIMAL(38,0)"), DataType::Decimal(38, 0));
  EXPECT_EQ(MustParse("DECIMAL(5,5)"), DataType::Decimal(5, 5));

  EXPECT_NE(ParseError("DECIMAL(0,0)").find("precision 0 is outside 1..38"), std::string::npos);
  EXPECT_NE(ParseError("DECIMAL(39,2)").find("precision 39"), std::string::npos);
  EXPECT_NE(ParseError("DECIMAL(10,11)").find("scale 11 is outside 0..10"), std::string::npos);
  EXPECT_NE(ParseError("DECIMAL(99999999999999999999,1)").find("outside 1..38"), std::string::npos);
  EXPECT_NE(ParseError("DECIMAL").find("needs a precision"), std::string::npos);
  ParseError("DECIMAL(");
  ParseError("DECIMAL(10,");
  ParseError("DECIMAL(10,2");
  ParseError("DECIMAL(a,2)");
  ParseError("DECIMAL(-1,2)");
  ParseError("DECIMAL(10,2,3)");
}

TEST(DataTypeParseTest, Timestamps) {
  EXPECT_EQ(MustParse("TIMESTAMP"), DataType::Timestamp(TimeUnit::kMicro));
  EXPECT_EQ(MustParse("timestamptz"), DataType::TimestampTz(TimeUnit::kMicro));
  EXPECT_EQ(MustParse("timestamp[NS]"), DataType::Timestamp(TimeUnit::kNano));
  EXPECT_EQ(MustParse("TIMESTAMPTZ [ ms ]"), DataType::TimestampTz(TimeUnit::kMilli));
  EXPECT_EQ(MustParse("TIMESTAMP[s]"), DataType::Timestamp(TimeUnit::kSecond));
  EXPECT_NE(ParseError("TIMESTAMP[xs]").find("expected a time unit"), std::string::npos);
  ParseError("TIMESTAMP[us");
  ParseError("TIMESTAMP[]");
  EXPECT_NE(MustParse("TIMESTAMP[us]"), MustParse("TIMESTAMPTZ[us]"));
  EXPECT_NE(MustParse("TIMESTAMP[us]"), MustParse("TIMESTAMP[ms]"));
}

TEST(DataTypeParseTest, TimeUnits) {
  // TIME without a unit is microseconds and keeps the name catalogs already store.
  EXPECT_EQ(MustParse("TIME"), DataType::Time());
  EXPECT_EQ(MustParse("TIME[us]"), DataType::Time(TimeUnit::kMicro));
  EXPECT_EQ(MustParse("time [ US ]").ToString(), "TIME");
  EXPECT_EQ(MustParse("TIME[ns]"), DataType::Time(TimeUnit::kNano));
  EXPECT_EQ(DataType::Time(TimeUnit::kNano).ToString(), "TIME[ns]");
  EXPECT_NE(MustParse("TIME"), MustParse("TIME[ns]"));
  EXPECT_NE(ParseError("TIME[ms]").find("TIME takes the unit us or ns, not ms at character 6"),
            std::string::npos);
  EXPECT_NE(ParseError("TIME[s]").find("not s"), std::string::npos);
  ParseError("TIME[xs]");
  ParseError("TIME[ns");
  Result<Schema> s = Schema::Parse("a TIME, b TIME[ns] NOT NULL");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->fields[1].type, DataType::Time(TimeUnit::kNano));
  EXPECT_EQ(s->ToString(), "a TIME, b TIME[ns] NOT NULL");
}

TEST(DataTypeParseTest, Arrays) {
  DataType t = MustParse("array < array<Varchar> >");
  ASSERT_TRUE(t.is_nested());
  ASSERT_TRUE(t.element().is_nested());
  EXPECT_EQ(t.element().element(), DataType::Varchar());
  EXPECT_EQ(t.ToString(), "ARRAY<ARRAY<VARCHAR>>");
  EXPECT_NE(MustParse("ARRAY<INT32>"), MustParse("ARRAY<INT64>"));
  ParseError("ARRAY");
  ParseError("ARRAY<>");
  ParseError("ARRAY<INT32");
  ParseError("ARRAY<INT32>>");
  ParseError("ARRAY(INT32)");

  std::string nested;
  for (int i = 0; i < 64; ++i) nested += "ARRAY<";
  nested += "INT8";
  for (int i = 0; i < 64; ++i) nested += ">";
  EXPECT_EQ(MustParse(nested).ToString(), nested);

  std::string too_deep = "ARRAY<" + nested + ">";
  EXPECT_NE(ParseError(too_deep).find("nested deeper"), std::string::npos);

  std::string hostile;
  for (int i = 0; i < 200000; ++i) hostile += "ARRAY<";
  ParseError(hostile);  // must not overflow the stack
}

TEST(DataTypeParseTest, StructsAndMaps) {
  DataType s =
      MustParse("struct< a : int64 not null, \"b c\" array<varchar>, m map<string, double>>");
  ASSERT_EQ(s.id(), TypeId::kStruct);
  ASSERT_EQ(s.children().size(), 3u);
  EXPECT_EQ(s.children()[0].name, "a");
  EXPECT_FALSE(s.children()[0].nullable);
  EXPECT_EQ(s.children()[1].name, "b c");
  EXPECT_TRUE(s.children()[1].nullable);
  EXPECT_EQ(s.children()[2].type.id(), TypeId::kMap);
  EXPECT_EQ(s.ToString(),
            "STRUCT<a: INT64 NOT NULL, \"b c\": ARRAY<VARCHAR>, m: MAP<VARCHAR, FLOAT64>>");
  EXPECT_EQ(MustParse(s.ToString()).ToString(), s.ToString());
  EXPECT_TRUE(s.is_nested());
  EXPECT_FALSE(s.is_repeated());
  EXPECT_EQ(s.PhysicalWidth(), 0);

  DataType m = MustParse("MAP<VARCHAR NOT NULL, ARRAY<INT64 NOT NULL> NOT NULL>");
  EXPECT_TRUE(m.is_repeated());
  EXPECT_EQ(m.key_field().name, "key");
  EXPECT_FALSE(m.key_field().nullable);
  EXPECT_EQ(m.value_field().name, "value");
  EXPECT_FALSE(m.value_field().nullable);
  EXPECT_FALSE(m.value_field().type.element_field().nullable);
  // A key is never null: MAP<K NULL, V> still has a NOT NULL key, and the name does not say it.
  EXPECT_EQ(m.ToString(), "MAP<VARCHAR, ARRAY<INT64 NOT NULL> NOT NULL>");
  EXPECT_FALSE(MustParse("MAP<INT32 NULL, INT32>").key_field().nullable);

  // Equality is the shape: member names (exactly), types; not ids or nullability.
  EXPECT_EQ(MustParse("STRUCT<a: INT64>"), MustParse("STRUCT<a INT64 NOT NULL>"));
  EXPECT_NE(MustParse("STRUCT<a: INT64>"), MustParse("STRUCT<A: INT64>"));
  EXPECT_NE(MustParse("STRUCT<a: INT64>"), MustParse("STRUCT<a: INT64, b: INT64>"));
  EXPECT_NE(MustParse("STRUCT<a: INT64, b: INT32>"), MustParse("STRUCT<b: INT32, a: INT64>"));
  EXPECT_NE(MustParse("MAP<VARCHAR, INT64>"), MustParse("MAP<VARCHAR, INT32>"));
  EXPECT_NE(MustParse("MAP<VARCHAR, INT64>"), MustParse("ARRAY<INT64>"));
  EXPECT_FALSE(
      SameNestedFields(MustParse("STRUCT<a: INT64>"), MustParse("STRUCT<a INT64 NOT NULL>")));
  EXPECT_TRUE(SameNestedFields(MustParse("STRUCT<a: INT64>"), MustParse("STRUCT<a INT64 NULL>")));
  DataType with_id = DataType::Array(DataType::Int8(), 7);
  EXPECT_EQ(with_id, DataType::Array(DataType::Int8()));
  EXPECT_FALSE(SameNestedFields(with_id, DataType::Array(DataType::Int8())));
  EXPECT_TRUE(SameNestedFields(ClearNestedIds(with_id), DataType::Array(DataType::Int8())));

  EXPECT_NE(ParseError("STRUCT<a INT64, A INT32>").find("duplicate STRUCT member name 'A'"),
            std::string::npos);
  EXPECT_NE(ParseError("STRUCT<a INT64").find("expected ',' or '>'"), std::string::npos);
  EXPECT_NE(ParseError("MAP<INT64>").find("expected ','"), std::string::npos);
  ParseError("STRUCT<>");
  ParseError("STRUCT");
  ParseError("STRUCT<a>");
  ParseError("STRUCT<a INT64,>");
  ParseError("MAP<INT64, INT64");
  ParseError("MAP<INT64, INT64, INT64>");
  ParseError("ARRAY<INT64 NOT>");

  std::string hostile;
  for (int i = 0; i < 100000; ++i) hostile += "STRUCT<a ";
  ParseError(hostile);  // must not overflow the stack
}

TEST(DataTypeParseTest, ErrorsNameTheTextAndPosition) {
  std::string msg = ParseError("INT64 x");
  EXPECT_NE(msg.find("'INT64 x'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unexpected 'x' at character 7"), std::string::npos) << msg;

  msg = ParseError("ARRAY<FOO>");
  EXPECT_NE(msg.find("unknown type name 'FOO' at character 7"), std::string::npos) << msg;

  msg = ParseError("");
  EXPECT_NE(msg.find("expected a type name"), std::string::npos) << msg;
  ParseError("   ");
  ParseError("<");
  ParseError("INT 64");
  ParseError("VARCHAR(10)");
  ParseError(std::string("INT\0", 4));
  ParseError("\xff\xfe");
}

TEST(DataTypeTest, Properties) {
  EXPECT_TRUE(DataType::Int8().is_signed_integer());
  EXPECT_FALSE(DataType::UInt8().is_signed_integer());
  EXPECT_TRUE(DataType::UInt64().is_integer());
  EXPECT_FALSE(DataType::Float32().is_integer());
  EXPECT_TRUE(DataType::Json().is_variable_width());
  EXPECT_EQ(DataType::Decimal(10, 2).PhysicalWidth(), 16);
  EXPECT_EQ(DataType::Uuid().PhysicalWidth(), 16);
  EXPECT_EQ(DataType::Ipv4().PhysicalWidth(), 4);
  EXPECT_EQ(DataType::Date().PhysicalWidth(), 4);
  EXPECT_EQ(DataType::Array(DataType::Int8()).PhysicalWidth(), 0);
}

Schema MustParseSchema(std::string_view text) {
  Result<Schema> r = Schema::Parse(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : Schema();
}

std::string SchemaError(std::string_view text) {
  Result<Schema> r = Schema::Parse(text);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  return r.status().message();
}

TEST(SchemaTest, ParseExample) {
  Schema s = MustParseSchema("id INT64 NOT NULL, ts TIMESTAMP[us], tags ARRAY<VARCHAR>");
  ASSERT_EQ(s.fields.size(), 3u);
  EXPECT_EQ(s.fields[0].name, "id");
  EXPECT_EQ(s.fields[0].type, DataType::Int64());
  EXPECT_FALSE(s.fields[0].nullable);
  EXPECT_EQ(s.fields[0].field_id, 1);
  EXPECT_EQ(s.fields[1].name, "ts");
  EXPECT_EQ(s.fields[1].type, DataType::Timestamp(TimeUnit::kMicro));
  EXPECT_TRUE(s.fields[1].nullable);
  EXPECT_EQ(s.fields[1].field_id, 2);
  EXPECT_EQ(s.fields[2].name, "tags");
  EXPECT_EQ(s.fields[2].type, DataType::Array(DataType::Varchar()));
  EXPECT_EQ(s.fields[2].field_id, 3);
  EXPECT_EQ(s.fields[2].type.element_field().field_id, 4);
  EXPECT_TRUE(s.fields[0].type.children().empty());
  EXPECT_EQ(s.ToString(), "id INT64 NOT NULL, ts TIMESTAMP[us], tags ARRAY<VARCHAR>");
}

TEST(SchemaTest, ElementIdsFollowTopLevelIds) {
  Schema s = MustParseSchema("a ARRAY<INT8>, b INT8, c ARRAY<ARRAY<INT8>>, d DECIMAL(10,2)");
  EXPECT_EQ(s.fields[0].field_id, 1);
  EXPECT_EQ(s.fields[1].field_id, 2);
  EXPECT_EQ(s.fields[2].field_id, 3);
  EXPECT_EQ(s.fields[3].field_id, 4);
  EXPECT_EQ(s.fields[0].type.element_field().field_id, 5);
  EXPECT_TRUE(s.fields[1].type.children().empty());
  EXPECT_EQ(s.fields[2].type.element_field().field_id, 6);
  // Every level of ARRAY<ARRAY<T>> has its own id.
  EXPECT_EQ(s.fields[2].type.element().element_field().field_id, 7);
}

TEST(SchemaTest, NestedIdsInIcebergOrder) {
  // Every field of one level first, then each field's own nested fields (Iceberg's order).
  Schema s = MustParseSchema(
      "a STRUCT<x: INT64, y: ARRAY<STRUCT<z: VARCHAR>>>, m MAP<VARCHAR, ARRAY<INT64>>, n INT8");
  EXPECT_EQ(s.fields[0].field_id, 1);
  EXPECT_EQ(s.fields[1].field_id, 2);
  EXPECT_EQ(s.fields[2].field_id, 3);
  const DataType& a = s.fields[0].type;
  EXPECT_EQ(a.children()[0].field_id, 4);  // x
  EXPECT_EQ(a.children()[1].field_id, 5);  // y
  EXPECT_EQ(a.children()[1].type.element_field().field_id, 6);
  EXPECT_EQ(a.children()[1].type.element().children()[0].field_id, 7);  // z
  const DataType& m = s.fields[1].type;
  EXPECT_EQ(m.key_field().field_id, 8);
  EXPECT_EQ(m.value_field().field_id, 9);
  EXPECT_EQ(m.value_field().type.element_field().field_id, 10);
  std::vector<int32_t> visited;
  ForEachNestedField(a, [&](const Field& f) { visited.push_back(f.field_id); });
  EXPECT_EQ(visited, (std::vector<int32_t>{4, 5, 6, 7}));

  // Ids already given are kept; only -1 ones are filled.
  int32_t last = 20;
  DataType partly = DataType::Map(DataType::Varchar(), DataType::Int64(), 3, -1);
  Result<DataType> filled = AssignNestedIds(partly, &last);
  ASSERT_TRUE(filled.ok());
  EXPECT_EQ(filled->key_field().field_id, 3);
  EXPECT_EQ(filled->value_field().field_id, 21);
  EXPECT_EQ(last, 21);
  last = INT32_MAX;
  EXPECT_FALSE(AssignNestedIds(DataType::Array(DataType::Int8()), &last).ok());
}

TEST(SchemaTest, QuotedNamesAndNullability) {
  Schema s = MustParseSchema(
      R"("first name" varchar not null,"say ""hi"""INT32 NULL,  "x,y" ARRAY<DECIMAL(10, 2)>)");
  ASSERT_EQ(s.fields.size(), 3u);
  EXPECT_EQ(s.fields[0].name, "first name");
  EXPECT_FALSE(s.fields[0].nullable);
  EXPECT_EQ(s.fields[1].name, "say \"hi\"");
  EXPECT_TRUE(s.fields[1].nullable);
  EXPECT_EQ(s.fields[2].name, "x,y");
  EXPECT_EQ(s.fields[2].type, DataType::Array(DataType::Decimal(10, 2)));
  std::string text = s.ToString();
  EXPECT_EQ(text,
            R"("first name" VARCHAR NOT NULL, "say ""hi""" INT32, "x,y" ARRAY<DECIMAL(10,2)>)");
  Schema again = MustParseSchema(text);
  ASSERT_EQ(again.fields.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(again.fields[i].name, s.fields[i].name);
    EXPECT_EQ(again.fields[i].type, s.fields[i].type);
    EXPECT_EQ(again.fields[i].nullable, s.fields[i].nullable);
  }
  Schema utf8 = MustParseSchema("prénom VARCHAR, _x1 INT8, 1st INT8");
  EXPECT_EQ(utf8.fields[0].name, "prénom");
  EXPECT_EQ(utf8.ToString(), "prénom VARCHAR, _x1 INT8, 1st INT8");
}

TEST(SchemaTest, Errors) {
  EXPECT_NE(SchemaError("a INT32, A INT64").find("duplicate column name 'A' at character 10"),
            std::string::npos);
  EXPECT_NE(SchemaError("a INT32, \"a\" INT64").find("duplicate"), std::string::npos);
  EXPECT_NE(SchemaError("\"\" INT32").find("empty column name"), std::string::npos);
  EXPECT_NE(SchemaError("").find("no columns"), std::string::npos);
  EXPECT_NE(SchemaError("a INT32,").find("expected a column name"), std::string::npos);
  EXPECT_NE(SchemaError("a").find("expected a type name"), std::string::npos);
  EXPECT_NE(SchemaError("a FOO").find("unknown type name 'FOO' at character 3"), std::string::npos);
  EXPECT_NE(SchemaError("a INT32 NOT").find("expected NULL after NOT"), std::string::npos);
  EXPECT_NE(SchemaError("a INT32 PRIMARY KEY").find("found 'PRIMARY'"), std::string::npos);
  EXPECT_NE(SchemaError("a INT32; b INT32").find("expected ',' between columns"),
            std::string::npos);
  SchemaError("\"unterminated INT32");
  SchemaError(", a INT32");
  SchemaError("a INT32,, b INT32");
  SchemaError("a DECIMAL(40,2)");
}

TEST(SchemaTest, FieldIndex) {
  Schema s = MustParseSchema("id INT64, Name VARCHAR, name2 VARCHAR");
  EXPECT_EQ(s.FieldIndex("id"), 0);
  EXPECT_EQ(s.FieldIndex("Name"), 1);
  EXPECT_EQ(s.FieldIndex("name"), 1);  // case-insensitive fallback
  EXPECT_EQ(s.FieldIndex("NAME2"), 2);
  EXPECT_EQ(s.FieldIndex("missing"), -1);
  EXPECT_EQ(s.FieldIndex(""), -1);

  Schema ambiguous;  // built directly, as a foreign Parquet file may be
  ambiguous.fields.push_back({"a", DataType::Int8()});
  ambiguous.fields.push_back({"A", DataType::Int8()});
  EXPECT_EQ(ambiguous.FieldIndex("a"), 0);
  EXPECT_EQ(ambiguous.FieldIndex("A"), 1);
  EXPECT_EQ(ambiguous.FieldIndex("a "), -1);
}

}  // namespace
}  // namespace tarn

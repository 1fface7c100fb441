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
  EXPECT_EQ(s.fields[2].element_field_id, 4);
  EXPECT_EQ(s.fields[0].element_field_id, -1);
  EXPECT_EQ(s.ToString(), "id INT64 NOT NULL, ts TIMESTAMP[us], tags ARRAY<VARCHAR>");
}

TEST(SchemaTest, ElementIdsFollowTopLevelIds) {
  Schema s = MustParseSchema("a ARRAY<INT8>, b INT8, c ARRAY<ARRAY<INT8>>, d DECIMAL(10,2)");
  EXPECT_EQ(s.fields[0].field_id, 1);
  EXPECT_EQ(s.fields[1].field_id, 2);
  EXPECT_EQ(s.fields[2].field_id, 3);
  EXPECT_EQ(s.fields[3].field_id, 4);
  EXPECT_EQ(s.fields[0].element_field_id, 5);
  EXPECT_EQ(s.fields[1].element_field_id, -1);
  EXPECT_EQ(s.fields[2].element_field_id, 6);
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

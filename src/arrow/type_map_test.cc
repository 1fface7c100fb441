#include <gtest/gtest.h>

#include <set>

#include "arrow/arrow_c.h"
#include "arrow/test_util.h"

namespace tarn::arrow {
namespace {

DataType T(std::string_view text) {
  Result<DataType> t = DataType::Parse(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().ToString();
  return t.ValueOr(DataType());
}

// The format strings of the spec's table, for every tarn type (README.md's table).
TEST(ArrowTypeOf, EveryTypeHasItsFormat) {
  struct Case {
    const char* type;
    const char* format;
    const char* extension;
    const char* tarn_type;
  };
  const Case cases[] = {
      {"BOOLEAN", "b", "", ""},
      {"INT8", "c", "", ""},
      {"INT16", "s", "", ""},
      {"INT32", "i", "", ""},
      {"INT64", "l", "", ""},
      {"UINT8", "C", "", ""},
      {"UINT16", "S", "", ""},
      {"UINT32", "I", "", ""},
      {"UINT64", "L", "", ""},
      {"FLOAT32", "f", "", ""},
      {"FLOAT64", "g", "", ""},
      {"DECIMAL(10,2)", "d:10,2", "", ""},
      {"DECIMAL(38,0)", "d:38,0", "", ""},
      {"VARCHAR", "U", "", ""},
      {"BLOB", "Z", "", ""},
      {"JSON", "U", "arrow.json", ""},
      {"DATE", "tdD", "", ""},
      {"TIME", "ttu", "", ""},
      {"TIME[ns]", "ttn", "", ""},
      {"TIMESTAMP[s]", "tss:", "", ""},
      {"TIMESTAMP[ms]", "tsm:", "", ""},
      {"TIMESTAMP[us]", "tsu:", "", ""},
      {"TIMESTAMP[ns]", "tsn:", "", ""},
      {"TIMESTAMPTZ[s]", "tss:UTC", "", ""},
      {"TIMESTAMPTZ[ms]", "tsm:UTC", "", ""},
      {"TIMESTAMPTZ[us]", "tsu:UTC", "", ""},
      {"TIMESTAMPTZ[ns]", "tsn:UTC", "", ""},
      {"UUID", "w:16", "arrow.uuid", ""},
      {"IPV4", "I", "", "IPV4"},
      {"ARRAY<INT64>", "+L", "", ""},
      {"STRUCT<a: INT64>", "+s", "", ""},
      {"MAP<VARCHAR, INT64>", "+m", "", ""},
      {"VARIANT", "+s", "arrow.parquet.variant", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    ArrowTypeName n = ArrowTypeOf(T(c.type));
    EXPECT_EQ(n.format, c.format);
    EXPECT_EQ(n.extension, c.extension);
    EXPECT_EQ(n.tarn_type, c.tarn_type);
    // And back: the one table read the other way gives the same type.
    std::vector<Field> children = T(c.type).children();
    Result<DataType> back = TarnTypeOf(n, children);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->ToString(), c.type);
  }
}

// Every TypeId has a canonical row (ArrowTypeOf never falls through to its empty answer).
TEST(ArrowTypeOf, NoTypeIdIsMissing) {
  const char* names[] = {
      "BOOLEAN", "INT8",   "INT16",  "INT32",       "INT64",           "UINT8",
      "UINT16",  "UINT32", "UINT64", "FLOAT32",     "FLOAT64",         "DECIMAL(9,3)",
      "VARCHAR", "BLOB",   "DATE",   "TIME",        "TIMESTAMP",       "TIMESTAMPTZ",
      "UUID",    "IPV4",   "JSON",   "ARRAY<INT8>", "STRUCT<a: INT8>", "MAP<INT8, INT8>",
      "VARIANT"};
  std::set<int> ids;
  for (const char* n : names) {
    DataType t = T(n);
    ids.insert(static_cast<int>(t.id()));
    EXPECT_FALSE(ArrowTypeOf(t).format.empty()) << n;
  }
  EXPECT_EQ(ids.size(), static_cast<size_t>(TypeId::kVariant) + 1);
}

// The variants producers send, read as the nearest tarn type.
TEST(TarnTypeOf, ReadsTheCommonVariants) {
  struct Case {
    ArrowTypeName name;
    const char* type;
  };
  const Case cases[] = {
      {{"u", "", ""}, "VARCHAR"},
      {{"u", "arrow.json", ""}, "JSON"},
      {{"z", "", ""}, "BLOB"},
      {{"vu", "", ""}, "VARCHAR"},
      {{"vu", "arrow.json", ""}, "JSON"},
      {{"vz", "", ""}, "BLOB"},
      {{"tdm", "", ""}, "DATE"},
      {{"tts", "", ""}, "TIME"},
      {{"ttm", "", ""}, "TIME"},
      {{"tsu:Europe/Paris", "", ""}, "TIMESTAMPTZ[us]"},
      {{"tsn:+01:00", "", ""}, "TIMESTAMPTZ[ns]"},
      {{"tss:", "", ""}, "TIMESTAMP[s]"},
      {{"d:5,2,128", "", ""}, "DECIMAL(5,2)"},
      {{"d:9,0,32", "", ""}, "DECIMAL(9,0)"},
      {{"d:18,4,64", "", ""}, "DECIMAL(18,4)"},
      {{"w:16", "", ""}, "BLOB"},  // fixed-size binary without arrow.uuid
      {{"w:3", "", ""}, "BLOB"},
      {{"I", "", ""}, "UINT32"},
      // An extension tarn does not know is read as its storage, as the spec asks.
      {{"U", "example.unknown", ""}, "VARCHAR"},
      {{"w:16", "example.other", ""}, "BLOB"},
      {{"Z", "arrow.json", ""}, "BLOB"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name.format + " " + c.name.extension);
    Result<DataType> t = TarnTypeOf(c.name, {});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->ToString(), c.type);
  }
  Result<DataType> list = TarnTypeOf({"+l", "", ""}, {Field{"item", DataType::Int32()}});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->ToString(), "ARRAY<INT32>");
  Result<DataType> fixed = TarnTypeOf({"+w:3", "", ""}, {Field{"item", DataType::Int32()}});
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->ToString(), "ARRAY<INT32>");
}

TEST(TarnTypeOf, RefusesNamingTheFormat) {
  const char* refused[] = {"n",       "+vL",   "vx", "+vl",    "e",          "tDs",     "tiM",
                           "+ud:0,1", "+us:0", "+r", "d:40,2", "d:10,2,256", "d:10,-1", "d:10,11",
                           "w:0",     "w:x",   "q",  "+x",     "tsx:UTC",    ""};
  for (const char* f : refused) {
    SCOPED_TRACE(f);
    Result<DataType> t = TarnTypeOf({f, "", ""}, {Field{"x", DataType::Int32()}});
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(t.status().message().find("\"" + std::string(f) + "\""), std::string::npos)
        << t.status().message();
  }
  EXPECT_NE(TarnTypeOf({"n", "", ""}, {}).status().message().find("null type"), std::string::npos);
  EXPECT_NE(TarnTypeOf({"+vl", "", ""}, {}).status().message().find("view"), std::string::npos);
}

}  // namespace
}  // namespace tarn::arrow

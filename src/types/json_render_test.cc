#include "types/json_render.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "types/value_text.h"

namespace tarn {
namespace {

// A column of `type` from text values; "<null>" appends a null.
Column Col(std::string_view type, const std::vector<std::string_view>& values) {
  Column c(*DataType::Parse(type));
  for (std::string_view v : values) {
    if (v == "<null>") {
      c.AppendNull();
    } else {
      Status st = AppendParsedValue(v, &c);
      EXPECT_TRUE(st.ok()) << type << " " << v << ": " << st.ToString();
    }
  }
  return c;
}

std::string Json(const Column& c, int64_t row) {
  std::string s;
  AppendJsonValue(c, row, &s);
  return s;
}

std::string JsonString(std::string_view text) {
  std::string s;
  AppendJsonString(text, &s);
  return s;
}

TEST(JsonValueTest, StructsAndMaps) {
  // STRUCT<a: INT64, tags: ARRAY<VARCHAR>>: rows {1, ["x"]}, null, {null, []}.
  Column s(*DataType::Parse("STRUCT<a: INT64, \"t\"\"q\": ARRAY<VARCHAR>>"));
  s.members[0].AppendFixed<int64_t>(1);
  s.members[1].child->AppendBytes("x");
  s.members[1].AppendArrayRow();
  s.AppendStructRow();
  s.AppendNull();
  s.members[0].AppendNull();
  s.members[1].AppendArrayRow();
  s.AppendStructRow();
  ASSERT_EQ(s.length, 3);
  ASSERT_EQ(s.members[0].length, 3);  // the null row holds a null in every member
  EXPECT_EQ(Json(s, 0), R"({"a":1,"t\"q":["x"]})");
  EXPECT_EQ(Json(s, 1), "null");
  EXPECT_EQ(Json(s, 2), R"({"a":null,"t\"q":[]})");
  EXPECT_EQ(ValueText(s, 0), R"({"a":1,"t\"q":["x"]})");

  // MAP<INT32, VARCHAR>: entries keep their order; keys need not be strings.
  Column m(*DataType::Parse("MAP<INT32, VARCHAR>"));
  m.members[0].AppendFixed<int32_t>(2);
  m.members[1].AppendBytes("two");
  m.members[0].AppendFixed<int32_t>(1);
  m.members[1].AppendNull();
  m.AppendArrayRow();
  m.AppendNull();
  m.AppendArrayRow();
  EXPECT_EQ(Json(m, 0), R"([{"key":2,"value":"two"},{"key":1,"value":null}])");
  EXPECT_EQ(Json(m, 1), "null");
  EXPECT_EQ(Json(m, 2), "[]");

  Column copy = s.Clone();
  EXPECT_EQ(Json(copy, 0), Json(s, 0));
  Column nulls = Column::Nulls(s.type, 2);
  EXPECT_EQ(nulls.members[1].length, 2);
  EXPECT_EQ(Json(nulls, 1), "null");
}

TEST(JsonValueTest, NestedTextParsesBackExactly) {
  const char* type =
      "STRUCT<id: INT64, at: TIMESTAMP[ns], d: DECIMAL(10,2), f: FLOAT64, "
      "items: ARRAY<STRUCT<sku: VARCHAR, qty: INT32 NOT NULL>>, "
      "attrs: MAP<VARCHAR, ARRAY<INT8>>, j: JSON, b: BLOB>";
  std::vector<std::string_view> rows = {
      R"({"id":1,"at":"2024-01-02T03:04:05.123456789","d":"-0.50","f":"NaN","items":[{"sku":"a\"b","qty":2},null],"attrs":[{"key":"x","value":[1,null]},{"key":"y","value":null}],"j":"{\"k\":[1]}","b":"AAE="})",
      R"({"id":null,"at":null,"d":null,"f":0.1,"items":[],"attrs":[],"j":null,"b":null})",
      "<null>"};
  Column c = Col(type, rows);
  ASSERT_EQ(c.length, 3);
  for (int64_t i = 0; i < 3; ++i) {
    std::string expected(rows[i] == "<null>" ? "null" : rows[i]);
    EXPECT_EQ(Json(c, i), expected);
  }
  // Members may be absent (null) and in any order; a MAP also reads an object with text keys.
  Column s = Col("STRUCT<a: INT8, b: VARCHAR>", {R"({"b":"x"})", R"( {"b":null,"a":3} )"});
  EXPECT_EQ(Json(s, 0), R"({"a":null,"b":"x"})");
  EXPECT_EQ(Json(s, 1), R"({"a":3,"b":null})");
  Column m = Col("MAP<INT32, FLOAT64>", {R"({"2":1.5,"1":null})"});
  EXPECT_EQ(Json(m, 0), R"([{"key":2,"value":1.5},{"key":1,"value":null}])");

  // Errors append nothing.
  Column bad(*DataType::Parse("STRUCT<a: INT8, l: ARRAY<INT8>>"));
  for (std::string_view text : {R"({"a":1,"zz":2})", R"({"a":300})", R"({"l":[1,"x"]})",
                                R"({"l":{}})", R"([1])", "null", "{", R"({"a":[1]})"}) {
    EXPECT_FALSE(AppendParsedValue(text, &bad).ok()) << text;
  }
  EXPECT_EQ(bad.length, 0);
  EXPECT_EQ(bad.members[0].length, 0);
  EXPECT_EQ(bad.members[1].child->length, 0);
  Column bad_map(*DataType::Parse("MAP<VARCHAR, INT8>"));
  for (std::string_view text : {R"([{"key":null,"value":1}])", R"([{"value":1}])", R"([1])",
                                R"([{"key":"a","value":1,"x":2}])", R"("s")"}) {
    EXPECT_FALSE(AppendParsedValue(text, &bad_map).ok()) << text;
  }
  EXPECT_EQ(bad_map.length, 0);
}

TEST(JsonStringTest, Escaping) {
  EXPECT_EQ(JsonString(""), R"("")");
  EXPECT_EQ(JsonString("plain"), R"("plain")");
  EXPECT_EQ(JsonString("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(JsonString("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(JsonString(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(JsonString("\x7f/"), "\"\x7f/\"");
  EXPECT_EQ(JsonString("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
}

TEST(JsonStringTest, InvalidUtf8BecomesReplacementCharacters) {
  const std::string kFffd = "\xef\xbf\xbd";
  EXPECT_EQ(JsonString("a\xff"
                       "b"),
            "\"a" + kFffd + "b\"");
  EXPECT_EQ(JsonString("\xc3"), "\"" + kFffd + "\"");        // truncated at the end
  EXPECT_EQ(JsonString("\xe2\x82x"), "\"" + kFffd + "x\"");  // one per maximal subpart
  EXPECT_EQ(JsonString("\xf0\x80\x80"), "\"" + kFffd + kFffd + kFffd + "\"");
  EXPECT_EQ(JsonString("\xed\xa0\x80"), "\"" + kFffd + kFffd + kFffd + "\"");  // surrogate
  EXPECT_EQ(JsonString("\xc0\xaf"), "\"" + kFffd + kFffd + "\"");              // overlong '/'
  EXPECT_EQ(JsonString("\xf4\x90\x80\x80"), "\"" + kFffd + kFffd + kFffd + kFffd + "\"");
  EXPECT_EQ(JsonString("\xe2\x82\xac\xe2\x82"), "\"\xe2\x82\xac" + kFffd + "\"");
  // Whatever the bytes, the output is valid JSON.
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (int i = 255; i >= 0; --i) all.push_back(static_cast<char>(i));
  EXPECT_TRUE(nlohmann::json::accept(JsonString(all)));
}

TEST(JsonValueTest, Scalars) {
  Column b = Col("BOOLEAN", {"true", "false", "<null>"});
  EXPECT_EQ(Json(b, 0), "true");
  EXPECT_EQ(Json(b, 1), "false");
  EXPECT_EQ(Json(b, 2), "null");

  Column i64 = Col("INT64", {"-9223372036854775808", "9223372036854775807", "0"});
  EXPECT_EQ(Json(i64, 0), "-9223372036854775808");
  EXPECT_EQ(Json(i64, 1), "9223372036854775807");
  EXPECT_EQ(Json(i64, 2), "0");
  Column u64 = Col("UINT64", {"18446744073709551615"});
  EXPECT_EQ(Json(u64, 0), "18446744073709551615");
  EXPECT_EQ(Json(Col("INT8", {"-128"}), 0), "-128");
  EXPECT_EQ(Json(Col("UINT8", {"255"}), 0), "255");
  EXPECT_EQ(Json(Col("INT16", {"-32768"}), 0), "-32768");
  EXPECT_EQ(Json(Col("UINT16", {"65535"}), 0), "65535");
  EXPECT_EQ(Json(Col("INT32", {"-2147483648"}), 0), "-2147483648");
  EXPECT_EQ(Json(Col("UINT32", {"4294967295"}), 0), "4294967295");

  Column f64 = Col("FLOAT64", {"0.1", "1e20", "NaN", "Infinity", "-Infinity", "-0", "1"});
  EXPECT_EQ(Json(f64, 0), "0.1");
  EXPECT_EQ(Json(f64, 1), "1e+20");
  EXPECT_EQ(Json(f64, 2), "\"NaN\"");
  EXPECT_EQ(Json(f64, 3), "\"Infinity\"");
  EXPECT_EQ(Json(f64, 4), "\"-Infinity\"");
  EXPECT_EQ(Json(f64, 5), "-0");
  EXPECT_EQ(Json(f64, 6), "1");
  Column f32 = Col("FLOAT32", {"0.1", "NaN"});
  EXPECT_EQ(Json(f32, 0), "0.1");
  EXPECT_EQ(Json(f32, 1), "\"NaN\"");

  EXPECT_EQ(Json(Col("DECIMAL(10,2)", {"-0.5"}), 0), "\"-0.50\"");
  EXPECT_EQ(Json(Col("DECIMAL(38,0)", {"99999999999999999999999999999999999999"}), 0),
            "\"99999999999999999999999999999999999999\"");
  EXPECT_EQ(Json(Col("VARCHAR", {"say \"hi\"\n"}), 0), R"("say \"hi\"\n")");
  EXPECT_EQ(Json(Col("JSON", {R"({"a": 1})"}), 0), R"("{\"a\": 1}")");
  EXPECT_EQ(Json(Col("BLOB", {"AAEC/w=="}), 0), "\"AAEC/w==\"");
  EXPECT_EQ(Json(Col("DATE", {"2017-11-16"}), 0), "\"2017-11-16\"");
  EXPECT_EQ(Json(Col("TIME", {"22:31:08.25"}), 0), "\"22:31:08.25\"");
  EXPECT_EQ(Json(Col("TIMESTAMP[ns]", {"2017-11-16 22:31:08.000000001"}), 0),
            "\"2017-11-16T22:31:08.000000001\"");
  EXPECT_EQ(Json(Col("TIMESTAMPTZ[ms]", {"2017-11-16T14:31:08-08:00"}), 0),
            "\"2017-11-16T22:31:08Z\"");
  EXPECT_EQ(Json(Col("UUID", {"F79C3E09-677C-4BBD-A479-3F349CB785E7"}), 0),
            "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"");
  EXPECT_EQ(Json(Col("IPV4", {"192.168.0.1"}), 0), "\"192.168.0.1\"");
}

TEST(JsonValueTest, Arrays) {
  Column c(DataType::Array(DataType::Int32()));
  // [1, null, 3], null, [], [7]
  c.child->AppendFixed<int32_t>(1);
  c.child->AppendNull();
  c.child->AppendFixed<int32_t>(3);
  c.AppendArrayRow();
  c.AppendNull();
  c.AppendArrayRow();
  c.child->AppendFixed<int32_t>(7);
  c.AppendArrayRow();
  ASSERT_EQ(c.length, 4);
  EXPECT_EQ(Json(c, 0), "[1,null,3]");
  EXPECT_EQ(Json(c, 1), "null");
  EXPECT_EQ(Json(c, 2), "[]");
  EXPECT_EQ(Json(c, 3), "[7]");

  Column nested(DataType::Array(DataType::Array(DataType::Varchar())));
  Column& inner = *nested.child;
  inner.child->AppendBytes("a");
  inner.child->AppendBytes("\"");
  inner.AppendArrayRow();
  inner.AppendNull();
  nested.AppendArrayRow();
  EXPECT_EQ(Json(nested, 0), R"([["a","\""],null])");
  EXPECT_EQ(ValueText(nested, 0), R"([["a","\""],null])");
}

TEST(JsonRowTest, ObjectKeyedByColumnName) {
  RecordBatch batch;
  batch.schema =
      *Schema::Parse(R"(id INT64, "na""me" VARCHAR, amount DECIMAL(10,2), tags ARRAY<VARCHAR>)");
  batch.columns.push_back(Col("INT64", {"1", "2"}));
  batch.columns.push_back(Col("VARCHAR", {"x", "<null>"}));
  batch.columns.push_back(Col("DECIMAL(10,2)", {"3.5", "-1"}));
  Column tags(DataType::Array(DataType::Varchar()));
  tags.child->AppendBytes("t1");
  tags.AppendArrayRow();
  tags.AppendArrayRow();
  batch.columns.push_back(std::move(tags));
  batch.num_rows = 2;
  EXPECT_EQ(RenderRowJson(batch, 0), R"({"id":1,"na\"me":"x","amount":"3.50","tags":["t1"]})");
  EXPECT_EQ(RenderRowJson(batch, 1), R"({"id":2,"na\"me":null,"amount":"-1.00","tags":[]})");

  JsonRowWriter writer(batch.schema);
  std::string out;
  writer.AppendRow(batch, 0, &out);
  out.push_back('\n');
  writer.AppendRow(batch, 1, &out);
  EXPECT_EQ(out, RenderRowJson(batch, 0) + "\n" + RenderRowJson(batch, 1));
  auto parsed = nlohmann::json::parse(RenderRowJson(batch, 0));
  EXPECT_EQ(parsed["amount"], "3.50");
}

TEST(JsonRowTest, EveryTypeProducesValidJson) {
  RecordBatch batch;
  const char* types[] = {"BOOLEAN", "INT8", "UINT64", "FLOAT32", "FLOAT64",      "DECIMAL(38,10)",
                         "VARCHAR", "BLOB", "DATE",   "TIME",    "TIMESTAMP[s]", "TIMESTAMPTZ[ns]",
                         "UUID",    "IPV4", "JSON"};
  const char* values[] = {"true",
                          "-5",
                          "18446744073709551615",
                          "-Infinity",
                          "2.5e-300",
                          "-1234567890123456789012345678.0123456789",
                          "\x01\xc3\xa9",
                          "/w==",
                          "1600-02-29",
                          "00:00:00.000001",
                          "1900-01-01T00:00:00",
                          "2000-01-01T00:00:00.123456789Z",
                          "00112233-4455-6677-8899-aabbccddeeff",
                          "1.2.3.4",
                          "[1,{\"k\":null}]"};
  for (size_t i = 0; i < std::size(types); ++i) {
    batch.schema.fields.push_back({std::string("c") + types[i], *DataType::Parse(types[i])});
    batch.columns.push_back(Col(types[i], {values[i], "<null>"}));
  }
  batch.num_rows = 2;
  for (int64_t row = 0; row < 2; ++row) {
    std::string text = RenderRowJson(batch, row);
    ASSERT_TRUE(nlohmann::json::accept(text)) << text;
    auto j = nlohmann::json::parse(text);
    EXPECT_EQ(j.size(), std::size(types));
    if (row == 0) {
      EXPECT_EQ(j["cUINT64"].get<uint64_t>(), std::numeric_limits<uint64_t>::max());
      EXPECT_EQ(j["cINT8"].get<int>(), -5);
      EXPECT_EQ(j["cFLOAT64"].get<double>(), 2.5e-300);
      EXPECT_EQ(j["cDECIMAL(38,10)"], "-1234567890123456789012345678.0123456789");
      EXPECT_EQ(j["cTIMESTAMPTZ[ns]"], "2000-01-01T00:00:00.123456789Z");
      EXPECT_EQ(j["cJSON"], "[1,{\"k\":null}]");
    } else {
      for (auto& [key, value] : j.items()) EXPECT_TRUE(value.is_null()) << key;
    }
  }
}

}  // namespace
}  // namespace tarn

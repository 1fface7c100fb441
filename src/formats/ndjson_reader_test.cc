#include "formats/ndjson_reader.h"

#include <gtest/gtest.h>

#include "formats/test_util.h"

namespace tarn::formats {
namespace {

using testing::FieldOf;
using testing::ReadRows;
using V = std::vector<std::string>;

TEST(NdjsonReader, KeysNestedValuesArraysAndNulls) {
  std::string in =
      "\xEF\xBB\xBF{\"id\": 1, \"name\": \"a\\u00e9\\ud83d\\ude00\", \"meta\": {\"k\": [1, 2], "
      "\"s\": \"x\"}, \"tags\": [1, 2, null], \"amount\": 12345678901234567.89}\r\n"
      "\n"
      "   \n"
      "{\"NAME\": \"b\", \"id\": 2, \"meta\": \"text\", \"tags\": []}\n"
      "{\"id\": 3, \"meta\": null, \"tags\": null, \"ok\": true, \"amount\": \"-0.5\"}";
  auto rows = ReadRows(in, "t.ndjson",
                       "id INT64 NOT NULL, name VARCHAR, meta JSON, tags ARRAY<INT64>, "
                       "ok BOOLEAN, amount DECIMAL(20,2)");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"1|a\xC3\xA9\xF0\x9F\x98\x80|{\"k\":[1,2],\"s\":\"x\"}|[1,2,null]|NULL|"
                      "12345678901234567.89",
                      "2|b|\"text\"|[]|NULL|NULL", "3|NULL|NULL|NULL|true|-0.50"}));
}

TEST(NdjsonReader, ScalarsFromNumbersAndStrings) {
  auto rows = ReadRows(
      "{\"i\": -5, \"f\": 1e3, \"s\": 42, \"d\": \"2024-02-29\", \"b\": false, \"v\": [1,{}]}\n",
      "t.jsonl", "i INT8, f FLOAT64, s VARCHAR, d DATE, b BOOLEAN, v VARCHAR");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"-5|1000|42|2024-02-29|false|[1,{}]"}));
}

TEST(NdjsonReader, Errors) {
  const std::string schema = "id INT32 NOT NULL, v VARCHAR";
  auto undeclared = ReadRows("{\"id\":1}\n{\"id\":2,\"zz\":3}\n", "t.ndjson", schema);
  ASSERT_FALSE(undeclared.ok());
  EXPECT_EQ(FieldOf(undeclared.status(), "code"), "column_undeclared");
  EXPECT_EQ(FieldOf(undeclared.status(), "column"), "zz");

  auto missing = ReadRows("{\"id\":1}\n{\"v\":\"x\"}\n", "t.ndjson", schema);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(FieldOf(missing.status(), "code"), "column_missing");
  EXPECT_EQ(FieldOf(missing.status(), "column"), "id");
  EXPECT_EQ(FieldOf(missing.status(), "row"), "2");

  auto overflow = ReadRows("{\"id\":1}\n\n{\"id\":3000000000}\n", "t.ndjson", schema);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(FieldOf(overflow.status(), "code"), "value_not_castable");
  EXPECT_EQ(FieldOf(overflow.status(), "row"), "2");
  EXPECT_EQ(FieldOf(overflow.status(), "value"), "3000000000");

  auto null_id = ReadRows("{\"id\":null}\n", "t.ndjson", schema);
  ASSERT_FALSE(null_id.ok());
  EXPECT_EQ(FieldOf(null_id.status(), "code"), "value_not_castable");

  for (const std::string& bad :
       {std::string("{\"id\":1,}\n"), std::string("[1]\n"), std::string("{\"id\":1} x\n"),
        std::string("{\"id\":01}\n"), std::string("{\"id\":1,\"v\":\"a\nb\"}"),
        std::string("{\"id\":1,\"v\":\"\\x\"}\n"), std::string("{\"id\":1,\"id\":2}\n"),
        std::string("{\"id\":1,\"v\":[1,}\n"), std::string("{\"id\":1,\"v\":\"\\ud800\"}\n"),
        std::string("{\"id\":1,\"v\":[[[1]]}\n"), std::string("{\"id\":1,\"v\":\"abc}\n")}) {
    auto r = ReadRows(bad, "t.ndjson", schema);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(FieldOf(r.status(), "code"), "format_unreadable") << bad << r.status().ToString();
    EXPECT_EQ(FieldOf(r.status(), "row"), "1") << bad;
  }
}

TEST(NdjsonReader, DeepNestingIsRefusedNotACrash) {
  std::string deep = "{\"id\":1,\"v\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto r = ReadRows(deep, "t.ndjson", "id INT32, v JSON");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(FieldOf(r.status(), "code"), "format_unreadable");
  Column c(DataType::Array(DataType::Int32()));
  EXPECT_FALSE(AppendJsonText(std::string(100000, '['), &c).ok());
}

TEST(NdjsonReader, StructsMapsAndArraysOfStructsToAnyDepth) {
  const std::string schema =
      "id INT64, p STRUCT<user: STRUCT<name: VARCHAR, age: INT32>, items: ARRAY<STRUCT<sku: "
      "VARCHAR, price: DECIMAL(20,2), tags: ARRAY<VARCHAR>>>, attrs: MAP<VARCHAR, INT64>>";
  std::string in =
      // Members in any order and any case; a missing member is null; numbers keep their text.
      "{\"id\":1,\"p\":{\"items\":[{\"sku\":\"a\",\"price\":12345678901234567.89,\"tags\":[\"x\"]},"
      "{\"SKU\":\"b\",\"price\":\"0.10\"}],\"user\":{\"age\":7,\"name\":\"ann\"},"
      "\"attrs\":{\"k\":1,\"l\":2}}}\n"
      // A null struct, an empty map and array; a MAP as tarn renders it.
      "{\"id\":2,\"p\":null}\n"
      "{\"id\":3,\"p\":{\"user\":null,\"items\":[],\"attrs\":{}}}\n"
      "{\"id\":4,\"p\":{\"attrs\":[{\"key\":\"z\",\"value\":null},{\"value\":5,\"key\":\"y\"}]}}\n"
      // JSON text in a string is parsed as the value.
      "{\"id\":5,\"p\":\"{\\\"user\\\":{\\\"name\\\":\\\"bo\\\"}}\"}\n";
  auto rows = ReadRows(in, "t.ndjson", schema);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows,
            (V{"1|{\"user\":{\"name\":\"ann\",\"age\":7},\"items\":[{\"sku\":\"a\",\"price\":"
               "\"12345678901234567.89\",\"tags\":[\"x\"]},{\"sku\":\"b\",\"price\":\"0.10\","
               "\"tags\":null}"
               "],\"attrs\":[{\"key\":\"k\",\"value\":1},{\"key\":\"l\",\"value\":2}]}",
               "2|NULL", "3|{\"user\":null,\"items\":[],\"attrs\":[]}",
               "4|{\"user\":null,\"items\":null,\"attrs\":[{\"key\":\"z\",\"value\":null},{\"key\":"
               "\"y\",\"value\":5}]}",
               "5|{\"user\":{\"name\":\"bo\",\"age\":null},\"items\":null,\"attrs\":null}"}));
  // Every member column is as long as its struct, nulls included.
  auto batches = testing::ReadBatches(in, "t.ndjson", testing::MustSchema(schema));
  ASSERT_TRUE(batches.ok());
  const Column& p = (*batches)[0].columns[1];
  ASSERT_EQ(p.members.size(), 3u);
  for (const Column& m : p.members) EXPECT_EQ(m.length, 5);
  EXPECT_EQ(p.members[0].members[0].length, 5);
  EXPECT_EQ(p.members[2].members[0].length, 4);  // keys k l z y
}

TEST(NdjsonReader, NestedValuesThatDoNotFitNameTheRowColumnAndPath) {
  const std::string schema =
      "id INT64, p STRUCT<a: INT64 NOT NULL, items: ARRAY<STRUCT<q: INT32>>, m: MAP<VARCHAR, "
      "INT64 NOT NULL>>";
  auto fails = [&](const std::string& line, const std::string& value, const std::string& why) {
    auto r = ReadRows("{\"id\":0,\"p\":{\"a\":1}}\n" + line + "\n", "t.ndjson", schema);
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_EQ(FieldOf(r.status(), "code"), "value_not_castable") << r.status().ToString();
    EXPECT_EQ(FieldOf(r.status(), "column"), "p") << line;
    EXPECT_EQ(FieldOf(r.status(), "row"), "2") << line;
    EXPECT_EQ(FieldOf(r.status(), "value"), value) << line;
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
  };
  // A key the STRUCT lacks is refused, as an undeclared key of a line is.
  fails("{\"p\":{\"a\":1,\"zz\":2}}", "zz", "the key 'zz' is not a member of the STRUCT");
  fails("{\"p\":{\"a\":1,\"items\":[{\"q\":1},{\"q\":\"x\"}]}}", "x", "items[1].q: ");
  fails("{\"p\":{\"a\":1,\"items\":[{\"q\":1},{\"r\":2}]}}", "r", "items[1]: the key 'r'");
  fails("{\"p\":{\"items\":[]}}", "", "a: missing, and the member is NOT NULL");
  fails("{\"p\":{\"a\":null}}", "null", "a: null in a NOT NULL field");
  fails("{\"p\":{\"a\":1,\"m\":{\"k\":null}}}", "null", "m[k]: null in a NOT NULL field");
  fails("{\"p\":{\"a\":1,\"m\":{\"k\":1,\"k\":2}}}", "k", "the key 'k' appears twice in a MAP");
  fails("{\"p\":{\"a\":1,\"m\":[{\"key\":\"k\",\"value\":1,\"x\":1}]}}", "x", "m[0]: an entry");
  fails("{\"p\":{\"a\":1,\"m\":[1]}}", "1", "m[0]: an entry of a MAP is a number");
  fails("{\"p\":{\"a\":1,\"m\":[{\"value\":1}]}}", "", "without a \"key\"");
  fails("{\"p\":[1]}", "[1]", "an array is not a value of STRUCT<");
  fails("{\"p\":{\"a\":{\"b\":1}}}", "{\"b\":1}", "a: an object is not a value of INT64");
  fails("{\"p\":{\"a\":1,\"items\":{}}}", "{}", "items: an object is not a value of ARRAY<");
  fails("{\"p\":\"{\\\"a\\\":\"}", "{\"a\":", "the string is not JSON text");
  // A map with many entries: the duplicate is found all the same.
  std::string big = "{\"p\":{\"a\":1,\"m\":{";
  for (int i = 0; i < 40; ++i) big += "\"k" + std::to_string(i) + "\":1,";
  fails(big + "\"k7\":2}}}", "k7", "the key 'k7' appears twice in a MAP");

  // Broken JSON inside a nested value is malformed, with the row.
  for (const std::string& bad :
       {std::string("{\"p\":{\"a\":1,}}"), std::string("{\"p\":{\"a\":1,\"a\":2}}"),
        std::string("{\"p\":{\"a\" 1}}"), std::string("{\"p\":{\"a\":1,\"items\":[{\"q\":1}}}"),
        std::string("{\"p\":{\"a\":1,\"items\":[}}"), std::string("{\"p\":{\"a\":tru}}")}) {
    auto r = ReadRows(bad + "\n", "t.ndjson", schema);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(FieldOf(r.status(), "code"), "format_unreadable") << bad << r.status().ToString();
    EXPECT_EQ(FieldOf(r.status(), "row"), "1") << bad;
  }
}

TEST(NdjsonReader, JsonMembersKeepTheirTextAndDepthIsLimitedOverTheWholeValue) {
  auto rows =
      ReadRows("{\"p\":{\"j\":{\"x\": [1, 2.50]},\"v\":{\"y\":1}}}\n{\"p\":{\"j\":\"s\"}}\n",
               "t.ndjson", "p STRUCT<j: JSON, v: VARCHAR>");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  // (JSON renders JSON values as strings: types/json_render.h.)
  EXPECT_EQ(*rows, (V{R"({"j":"{\"x\":[1,2.5]}","v":"{\"y\":1}"})", R"({"j":"\"s\"","v":null})"}));
  // 256 levels inside a member at level 2 make 257: refused, as for a JSON column.
  std::string deep = "{\"p\":{\"j\":" + std::string(256, '[') + std::string(256, ']') + "}}\n";
  auto r = ReadRows(deep, "t.ndjson", "p STRUCT<j: JSON>");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(FieldOf(r.status(), "code"), "format_unreadable");
  deep = "{\"p\":{\"j\":" + std::string(255, '[') + std::string(255, ']') + "}}\n";
  EXPECT_TRUE(ReadRows(deep, "t.ndjson", "p STRUCT<j: JSON>").ok());
}

TEST(NdjsonReader, AppendJsonTextFillsEveryNestedType) {
  Column s(*DataType::Parse("STRUCT<a: INT64, m: MAP<VARCHAR, ARRAY<INT64>>>"));
  ASSERT_TRUE(AppendJsonText(R"({"m": {"x": [1, 2]}, "a": 3})", &s).ok());
  ASSERT_TRUE(AppendJsonText("null", &s).ok());
  EXPECT_EQ(s.length, 2);
  std::string text;
  AppendValueText(s, 0, &text);
  EXPECT_EQ(text, R"({"a":3,"m":[{"key":"x","value":[1,2]}]})");
  EXPECT_FALSE(s.IsValid(1));
  auto trailing = AppendJsonText(R"({"a": 3} 4)", &s);
  EXPECT_FALSE(trailing.ok());
  EXPECT_NE(trailing.message().find("text after the value"), std::string::npos);
  auto bad = AppendJsonText(R"({"a": "x"})", &s);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message().substr(0, 3), "a: ");
}

TEST(NdjsonReader, BatchesLongInput) {
  std::string in;
  for (int i = 0; i < 50000; ++i) {
    in += "{\"id\":" + std::to_string(i) + ",\"v\":\"value " + std::to_string(i) + "\"}\n";
  }
  ReadOptions opt;
  opt.batch_rows = 7000;
  auto batches =
      testing::ReadBatches(in, "t.ndjson", testing::MustSchema("id INT64, v VARCHAR"), opt);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  EXPECT_EQ(batches->size(), 8u);
  auto rows = testing::RenderRows(*batches);
  ASSERT_EQ(rows.size(), 50000u);
  EXPECT_EQ(rows[49999], "49999|value 49999");
  EXPECT_EQ(rows[7000], "7000|value 7000");
}

}  // namespace
}  // namespace tarn::formats

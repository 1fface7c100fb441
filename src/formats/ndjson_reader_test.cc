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

#include "tarn/data_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "table/test_util.h"
#include "types/iceberg.h"

namespace tarn {
namespace {

using table_test::Col;

std::string BoundText(const DataType& t, const std::optional<std::string>& b) {
  if (!b) return "<none>";
  Result<Column> c = DecodeBound(t, *b);
  if (!c.ok()) return "<bad>";
  return ValueText(*c, 0);
}

struct Case {
  const char* type;
  std::vector<std::string> values;
  const char* lower;
  const char* upper;
};

TEST(ComputeColumnStatsTest, BoundsForEveryType) {
  for (const Case& c : std::vector<Case>{
           {"BOOLEAN", {"true", "NULL", "false"}, "false", "true"},
           {"INT8", {"5", "-128", "127"}, "-128", "127"},
           {"INT32", {"3", "NULL", "-7", "2"}, "-7", "3"},
           {"INT64", {"-9223372036854775808", "0"}, "-9223372036854775808", "0"},
           {"UINT64", {"18446744073709551615", "1"}, "1", "18446744073709551615"},
           {"UINT32", {"4294967295", "7"}, "7", "4294967295"},
           {"DECIMAL(10,2)", {"-1.50", "3.25", "0.00"}, "-1.50", "3.25"},
           {"DATE", {"2024-03-01", "1969-12-31"}, "1969-12-31", "2024-03-01"},
           {"TIMESTAMP[ms]",
            {"2024-01-01T00:00:00.123", "2023-01-01"},
            "2023-01-01T00:00:00",
            "2024-01-01T00:00:00.123"},
           {"TIMESTAMPTZ[ns]",
            {"2024-01-01T00:00:00.000000001Z"},
            "2024-01-01T00:00:00.000000001Z",
            "2024-01-01T00:00:00.000000001Z"},  // timestamptz_ns
           {"VARCHAR", {"pear", "apple", "zoo"}, "apple", "zoo"},
           {"UUID",
            {"f79c3e09-677c-4bbd-a479-3f349cb785e7", "00000000-0000-0000-0000-000000000001"},
            "00000000-0000-0000-0000-000000000001",
            "f79c3e09-677c-4bbd-a479-3f349cb785e7"},
           {"IPV4", {"10.0.0.1", "192.168.1.1", "9.255.255.255"}, "9.255.255.255", "192.168.1.1"},
           {"FLOAT64", {"1.5", "NaN", "-2", "NULL"}, "-2", "1.5"},
       }) {
    Column col = Col(c.type, c.values);
    ColumnStats s = ComputeColumnStats(3, col);
    EXPECT_EQ(s.field_id, 3);
    EXPECT_EQ(s.value_count, static_cast<int64_t>(c.values.size())) << c.type;
    EXPECT_EQ(s.null_count, col.null_count()) << c.type;
    EXPECT_EQ(BoundText(col.type, s.lower), c.lower) << c.type;
    EXPECT_EQ(BoundText(col.type, s.upper), c.upper) << c.type;
    EXPECT_EQ(s.nan_count.has_value(), col.type.is_floating()) << c.type;
  }
}

TEST(ComputeColumnStatsTest, FloatNansZerosAndAllNull) {
  ColumnStats s = ComputeColumnStats(1, Col("FLOAT32", {"NaN", "0", "-0", "NaN"}));
  EXPECT_EQ(*s.nan_count, 2);
  ASSERT_TRUE(s.lower && s.upper);
  Column lo = std::move(DecodeBound(DataType::Float32(), *s.lower)).value();
  Column hi = std::move(DecodeBound(DataType::Float32(), *s.upper)).value();
  EXPECT_TRUE(std::signbit(lo.Value<float>(0)));
  EXPECT_FALSE(std::signbit(hi.Value<float>(0)));

  ColumnStats only_nan = ComputeColumnStats(1, Col("FLOAT64", {"NaN"}));
  EXPECT_EQ(*only_nan.nan_count, 1);
  EXPECT_FALSE(only_nan.lower);
  EXPECT_FALSE(only_nan.upper);

  ColumnStats nulls = ComputeColumnStats(1, Col("INT32", {"NULL", "NULL"}));
  EXPECT_EQ(nulls.null_count, 2);
  EXPECT_EQ(nulls.value_count, 2);
  EXPECT_FALSE(nulls.lower);
  ColumnStats empty = ComputeColumnStats(1, Col("VARCHAR", {}));
  EXPECT_EQ(empty.value_count, 0);
  EXPECT_FALSE(empty.lower);
}

TEST(ComputeColumnStatsTest, LongStringsAreTruncated) {
  std::string a(100, 'a'), b = std::string(70, 'b');
  ColumnStats s = ComputeColumnStats(1, Col("VARCHAR", {b, a}));
  EXPECT_EQ(*s.lower, std::string(64, 'a'));
  EXPECT_EQ(*s.upper, std::string(63, 'b') + "c");
  EXPECT_GT(*s.upper, b);

  // Upper of all 0xFF bytes cannot be incremented: omitted.
  Column blob(DataType::Blob());
  blob.AppendBytes(std::string(80, '\xff'));
  ColumnStats sb = ComputeColumnStats(1, blob);
  EXPECT_EQ(sb.lower->size(), 64u);
  EXPECT_FALSE(sb.upper);

  // UTF-8: cut at a code point boundary; increment a code point.
  std::string e63 = std::string(63, 'x') + "\xc3\xa9" + "zz";  // 'é' straddles byte 64
  ColumnStats su = ComputeColumnStats(1, Col("VARCHAR", {e63}));
  EXPECT_EQ(*su.lower, std::string(63, 'x'));
  EXPECT_EQ(*su.upper, std::string(62, 'x') + "y");
  std::string max_cp = std::string(60, 'q') + "\xf4\x8f\xbf\xbf" + "more";  // U+10FFFF at 60..63
  ColumnStats sm = ComputeColumnStats(1, Col("VARCHAR", {max_cp}));
  EXPECT_EQ(*sm.upper, std::string(59, 'q') + "r");
  std::string before_surrogate = std::string(61, 'q') + "\xed\x9f\xbf" + "more";  // U+D7FF
  ColumnStats ss = ComputeColumnStats(1, Col("VARCHAR", {before_surrogate}));
  EXPECT_EQ(*ss.upper, std::string(61, 'q') + "\xee\x80\x80");  // U+E000
}

TEST(StatsJsonTest, RoundTrip) {
  std::vector<ColumnStats> stats;
  stats.push_back(ComputeColumnStats(2, Col("FLOAT64", {"1.5", "NaN"})));
  stats.push_back(ComputeColumnStats(1, Col("INT32", {"34", "NULL"})));
  std::string json = StatsToJson(stats);
  EXPECT_NE(json.find("\"1\":{\"lower\":\"22000000\""), std::string::npos) << json;
  Result<std::vector<ColumnStats>> back = StatsFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0], stats[1]);
  EXPECT_EQ((*back)[1], stats[0]);
  EXPECT_EQ(*(*back)[1].nan_count, 1);
}

TEST(StatsJsonTest, Malformed) {
  for (const char* bad : {"", "[]", "{\"x\":{\"values\":1,\"nulls\":0}}", "{\"1\":{\"nulls\":0}}",
                          "{\"1\":{\"values\":-1,\"nulls\":0}}",
                          "{\"1\":{\"values\":1,\"nulls\":0,\"lower\":\"abc\"}}",
                          "{\"1\":{\"values\":1,\"nulls\":0,\"lower\":\"zz\"}}",
                          "{\"1\":{\"values\":1,\"nulls\":0,\"upper\":5}}",
                          "{\"99999999999\":{\"values\":1,\"nulls\":0}}", "{\"1\":3}",
                          // Another spelling of an id (found by table_text_fuzz: "1" and "01"
                          // were two entries for field 1, which did not round-trip).
                          "{\"01\":{\"values\":1,\"nulls\":0}}",
                          "{\"1\":{\"values\":1,\"nulls\":0},\"01\":{\"values\":3,"
                          "\"nulls\":0}}"}) {
    Result<std::vector<ColumnStats>> r = StatsFromJson(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
    }
  }
}

TEST(StatsJsonTest, FastPathMatchesTheGeneralParser) {
  std::vector<ColumnStats> stats;
  for (int32_t id : {1, 2, 10, 11, 100, 2147483647}) {
    ColumnStats s;
    s.field_id = id;
    s.value_count = 1000 + id % 7;
    s.null_count = id % 3;
    if (id % 2) s.nan_count = 0;
    if (id != 11) s.lower = std::string("\x00\x01\xff", 3);
    if (id != 100) s.upper = "zz";
    stats.push_back(s);
  }
  std::string text = StatsToJson(stats);
  // The text is exactly what a JSON library writes for the same object (keys in string order).
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j.dump(), text);
  auto back = StatsFromJson(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, stats);
  // Other spellings of the same JSON take the general path and agree.
  auto spaced = StatsFromJson(j.dump(2));
  ASSERT_TRUE(spaced.ok());
  EXPECT_EQ(*spaced, stats);
  // Near misses of the fast shape are still errors with the general messages.
  for (const char* bad :
       {R"({"1":{"values":1}})", R"({"1":{"values":-1,"nulls":0}})",
        R"({"01x":{"values":1,"nulls":0}})", R"({"1":{"values":1,"nulls":0,"lower":"0"}})",
        "{\"1\":{\"values\":1,\"nulls\":0}} x"}) {
    EXPECT_FALSE(StatsFromJson(bad).ok()) << bad;
  }
}

TEST(MergeColumnStatsTest, WidensBounds) {
  ColumnStats a = ComputeColumnStats(1, Col("INT64", {"5", "9"}));
  ColumnStats b = ComputeColumnStats(1, Col("INT64", {"-3", "NULL", "7"}));
  MergeColumnStats(DataType::Int64(), b, &a);
  EXPECT_EQ(a.value_count, 5);
  EXPECT_EQ(a.null_count, 1);
  EXPECT_EQ(BoundText(DataType::Int64(), a.lower), "-3");
  EXPECT_EQ(BoundText(DataType::Int64(), a.upper), "9");
  ColumnStats nulls = ComputeColumnStats(1, Col("INT64", {"NULL"}));
  MergeColumnStats(DataType::Int64(), a, &nulls);
  EXPECT_EQ(BoundText(DataType::Int64(), nulls.lower), "-3");
  EXPECT_EQ(nulls.value_count, 6);
}

}  // namespace
}  // namespace tarn

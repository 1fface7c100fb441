#include "table/ordered_key.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "table/test_util.h"

namespace tarn {
namespace {

using table_test::Col;
using table_test::T;

// Value comparison of two valid rows of one column, the reference for the key order.
int RefCompare(const Column& c, int64_t a, int64_t b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (c.type.id()) {
    case TypeId::kBoolean:
    case TypeId::kUInt8:
      return cmp(c.Value<uint8_t>(a), c.Value<uint8_t>(b));
    case TypeId::kInt8:
      return cmp(c.Value<int8_t>(a), c.Value<int8_t>(b));
    case TypeId::kInt16:
      return cmp(c.Value<int16_t>(a), c.Value<int16_t>(b));
    case TypeId::kUInt16:
      return cmp(c.Value<uint16_t>(a), c.Value<uint16_t>(b));
    case TypeId::kInt32:
    case TypeId::kDate:
      return cmp(c.Value<int32_t>(a), c.Value<int32_t>(b));
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      return cmp(c.Value<uint32_t>(a), c.Value<uint32_t>(b));
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return cmp(c.Value<int64_t>(a), c.Value<int64_t>(b));
    case TypeId::kUInt64:
      return cmp(c.Value<uint64_t>(a), c.Value<uint64_t>(b));
    case TypeId::kFloat32: {
      float x = c.Value<float>(a), y = c.Value<float>(b);
      if (x == y) return cmp(!std::signbit(x), !std::signbit(y));  // -0 < +0
      return cmp(x, y);
    }
    case TypeId::kFloat64: {
      double x = c.Value<double>(a), y = c.Value<double>(b);
      if (x == y) return cmp(!std::signbit(x), !std::signbit(y));
      return cmp(x, y);
    }
    case TypeId::kDecimal:
      return cmp(c.Value<int128>(a), c.Value<int128>(b));
    case TypeId::kUuid: {
      int r = std::memcmp(c.data.data() + a * 16, c.data.data() + b * 16, 16);
      return cmp(r, 0);
    }
    default:
      return cmp(c.StringAt(a), c.StringAt(b));
  }
}

// Random column of `type` with raw random bits (every bit pattern of the physical form) mixed
// with edge values.
Column RandomColumn(const DataType& type, std::mt19937_64& rng, int n) {
  Column c(type);
  if (type.is_variable_width()) {
    for (int i = 0; i < n; ++i) {
      std::string s;
      int len = static_cast<int>(rng() % 5);
      for (int k = 0; k < len; ++k) s.push_back(static_cast<char>("a\x00\xff\x7f\x80z"[rng() % 6]));
      c.AppendBytes(s);
    }
    return c;
  }
  int w = type.PhysicalWidth();
  for (int i = 0; i < n; ++i) {
    uint8_t buf[16];
    for (int k = 0; k < w; ++k) buf[k] = static_cast<uint8_t>(rng());
    if (rng() % 4 == 0) {  // small values collide often
      std::memset(buf, rng() % 2 ? 0 : 0xff, w);
      buf[0] = static_cast<uint8_t>(rng() % 3);
    }
    if (type.id() == TypeId::kBoolean) buf[0] &= 1;
    if (type.is_floating()) {
      // No NaNs in the property (NaN has no value order); tested separately.
      if (w == 4) {
        float f;
        std::memcpy(&f, buf, 4);
        if (std::isnan(f)) f = 1.5f;
        std::memcpy(buf, &f, 4);
      } else {
        double d;
        std::memcpy(&d, buf, 8);
        if (std::isnan(d)) d = -2.5;
        std::memcpy(buf, &d, 8);
      }
    }
    c.AppendFixedBytes(buf, w);
  }
  return c;
}

TEST(OrderedKeyTest, KeysSortLikeValuesForEveryType) {
  std::mt19937_64 rng(1234);
  for (const char* type :
       {"BOOLEAN", "INT8",   "INT16",   "INT32",         "INT64",          "UINT8",   "UINT16",
        "UINT32",  "UINT64", "FLOAT32", "FLOAT64",       "DECIMAL(38,4)",  "VARCHAR", "BLOB",
        "JSON",    "DATE",   "TIME",    "TIMESTAMP[ns]", "TIMESTAMPTZ[s]", "UUID",    "IPV4"}) {
    Column c = RandomColumn(T(type), rng, 300);
    for (int k = 0; k < 3000; ++k) {
      int64_t a = static_cast<int64_t>(rng() % c.length),
              b = static_cast<int64_t>(rng() % c.length);
      int want = RefCompare(c, a, b);
      int got = OrderedKey(c, a).compare(OrderedKey(c, b));
      got = got < 0 ? -1 : (got > 0 ? 1 : 0);
      ASSERT_EQ(got, want) << type << " rows " << a << " " << b;
    }
  }
}

TEST(OrderedKeyTest, ExactBytesAndSpecials) {
  EXPECT_EQ(OrderedKey(Col("INT32", {"1"}), 0), std::string("\x80\x00\x00\x01", 4));
  EXPECT_EQ(OrderedKey(Col("INT32", {"-1"}), 0), std::string("\x7f\xff\xff\xff", 4));
  EXPECT_EQ(OrderedKey(Col("IPV4", {"1.2.3.4"}), 0), std::string("\x01\x02\x03\x04", 4));
  EXPECT_EQ(OrderedKey(Col("DECIMAL(5,2)", {"0.00"}), 0).size(), 16u);
  EXPECT_EQ(OrderedKey(Col("VARCHAR", {"abc"}), 0), "abc");
  EXPECT_EQ(OrderedKey(Col("INT32", {"NULL"}), 0), "");
  Column f = Col("FLOAT64", {"-Infinity", "-1", "-0", "0", "1", "Infinity", "NaN"});
  for (int64_t i = 0; i + 1 < f.length; ++i) EXPECT_LT(OrderedKey(f, i), OrderedKey(f, i + 1)) << i;
}

TEST(OrderedKeyTest, FromText) {
  EXPECT_EQ(*OrderedKeyFromText(DataType::Int64(), "-5"), OrderedKey(Col("INT64", {"-5"}), 0));
  EXPECT_EQ(*OrderedKeyFromText(T("DATE"), "2024-01-01"),
            OrderedKey(Col("DATE", {"2024-01-01"}), 0));
  EXPECT_EQ(OrderedKeyFromText(DataType::Int32(), "x").status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_FALSE(OrderedKeyFromText(T("ARRAY<INT32>"), "[1]").ok());
}

}  // namespace
}  // namespace tarn

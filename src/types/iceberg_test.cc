#include "types/iceberg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "types/value_text.h"

namespace tarn {
namespace {

DataType T(std::string_view text) {
  Result<DataType> r = DataType::Parse(text);
  EXPECT_TRUE(r.ok()) << text;
  return r.ok() ? *r : DataType();
}

Column One(std::string_view type, std::string_view value) {
  Column c(T(type));
  Status st = AppendParsedValue(value, &c);
  EXPECT_TRUE(st.ok()) << type << " " << value << ": " << st.ToString();
  return c;
}

int32_t Hash(std::string_view type, std::string_view value) {
  return IcebergBucketHash(One(type, value), 0);
}

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out.push_back(kHex[static_cast<uint8_t>(c) >> 4]);
    out.push_back(kHex[static_cast<uint8_t>(c) & 15]);
  }
  return out;
}

std::string Bound(std::string_view type, std::string_view value) {
  return Hex(EncodeBound(One(type, value), 0));
}

// Iceberg spec, Appendix B: the published hash vectors.
TEST(IcebergBucketHashTest, SpecVectors) {
  EXPECT_EQ(Hash("INT32", "34"), 2017239379);
  EXPECT_EQ(Hash("INT64", "34"), 2017239379);
  EXPECT_EQ(Hash("DECIMAL(4,2)", "14.20"), -500754589);
  EXPECT_EQ(Hash("DATE", "2017-11-16"), -653330422);
  EXPECT_EQ(Hash("TIME", "22:31:08"), -662762989);
  EXPECT_EQ(Hash("TIMESTAMP[us]", "2017-11-16T22:31:08"), -2047944441);
  EXPECT_EQ(Hash("TIMESTAMP[us]", "2017-11-16T22:31:08.000001"), -1207196810);
  EXPECT_EQ(Hash("TIMESTAMPTZ[us]", "2017-11-16T14:31:08-08:00"), -2047944441);
  EXPECT_EQ(Hash("TIMESTAMPTZ[us]", "2017-11-16T14:31:08.000001-08:00"), -1207196810);
  EXPECT_EQ(Hash("TIMESTAMP[ns]", "2017-11-16T22:31:08"), -2047944441);
  EXPECT_EQ(Hash("TIMESTAMP[ns]", "2017-11-16T22:31:08.000001001"), -1207196810);
  EXPECT_EQ(Hash("TIMESTAMPTZ[ns]", "2017-11-16T14:31:08.000001001-08:00"), -1207196810);
  EXPECT_EQ(Hash("VARCHAR", "iceberg"), 1210000089);
  EXPECT_EQ(Hash("UUID", "f79c3e09-677c-4bbd-a479-3f349cb785e7"), 1488055340);
  EXPECT_EQ(Hash("BLOB", "AAECAw=="), -188683207);  // bytes 00 01 02 03
  // Types not valid for bucketing, from the spec's second table.
  EXPECT_EQ(Hash("BOOLEAN", "true"), 1392991556);
  EXPECT_EQ(Hash("FLOAT32", "1"), -142385009);
  EXPECT_EQ(Hash("FLOAT64", "1"), -142385009);
  EXPECT_EQ(Hash("FLOAT32", "0"), 1669671676);
  EXPECT_EQ(Hash("FLOAT32", "-0"), 1669671676);
  EXPECT_EQ(Hash("FLOAT64", "-0"), 1669671676);
}

TEST(IcebergBucketHashTest, TarnTypesHashLikeTheirIcebergType) {
  for (const char* type : {"INT8", "INT16", "UINT8", "UINT16", "UINT32"}) {
    EXPECT_EQ(Hash(type, "34"), 2017239379) << type;
  }
  EXPECT_EQ(Hash("UINT64", "1420"), -500754589);  // decimal(20,0): same unscaled bytes
  EXPECT_EQ(Hash("DECIMAL(38,10)", "0.000000142"), -500754589);  // scale is not hashed
  EXPECT_EQ(Hash("TIMESTAMP[s]", "2017-11-16T22:31:08"), -2047944441);
  EXPECT_EQ(Hash("TIMESTAMP[ms]", "2017-11-16T22:31:08"), -2047944441);
  EXPECT_EQ(Hash("JSON", "\"x\""), Hash("VARCHAR", "\"x\""));
  EXPECT_EQ(Hash("IPV4", "0.0.0.34"), 2017239379);
  EXPECT_EQ(Hash("FLOAT64", "NaN"), Hash("FLOAT32", "NaN"));
  // Nanoseconds round down (floor) to microseconds, also before the epoch.
  EXPECT_EQ(Hash("TIMESTAMP[ns]", "1969-12-31T23:59:59.999999999"),
            Hash("TIMESTAMP[us]", "1969-12-31T23:59:59.999999"));
  // TIME[ns] hashes as its microseconds (rounded down), so TIME and TIME[ns] agree.
  EXPECT_EQ(Hash("TIME[ns]", "23:59:59.999999999"), Hash("TIME", "23:59:59.999999"));
  EXPECT_EQ(Hash("TIME[ns]", "22:31:08"), Hash("TIME", "22:31:08"));
}

TEST(IcebergBucketHashTest, Bucketable) {
  EXPECT_TRUE(IsIcebergBucketable(T("INT32")));
  EXPECT_TRUE(IsIcebergBucketable(T("DECIMAL(10,2)")));
  EXPECT_TRUE(IsIcebergBucketable(T("UUID")));
  EXPECT_TRUE(IsIcebergBucketable(T("TIMESTAMPTZ[ns]")));
  EXPECT_FALSE(IsIcebergBucketable(T("BOOLEAN")));
  EXPECT_FALSE(IsIcebergBucketable(T("FLOAT32")));
  EXPECT_FALSE(IsIcebergBucketable(T("FLOAT64")));
  EXPECT_FALSE(IsIcebergBucketable(T("ARRAY<INT32>")));
}

TEST(IcebergBucketHashTest, BucketTransform) {
  EXPECT_EQ(BucketTransform(2017239379, 16), 3);
  EXPECT_EQ(BucketTransform(-500754589, 16), 3);  // (hash & INT_MAX) % 16
  EXPECT_EQ(BucketTransform(-1, 7), 2147483647 % 7);
  EXPECT_EQ(BucketTransform(std::numeric_limits<int32_t>::min(), 5), 0);
  EXPECT_EQ(BucketTransform(12345, 1), 0);
  EXPECT_EQ(BucketTransform(12345, 0), 0);  // no division by zero
  for (int32_t h : {0, 1, -1, 1210000089, -188683207}) {
    int32_t b = BucketTransform(h, 10);
    EXPECT_GE(b, 0);
    EXPECT_LT(b, 10);
  }
}

TEST(IcebergTypeNameTest, Mapping) {
  const std::pair<const char*, const char*> cases[] = {
      {"BOOLEAN", "boolean"},
      {"INT8", "int"},
      {"INT16", "int"},
      {"INT32", "int"},
      {"UINT8", "int"},
      {"UINT16", "int"},
      {"INT64", "long"},
      {"UINT32", "long"},
      {"UINT64", "decimal(20,0)"},
      {"FLOAT32", "float"},
      {"FLOAT64", "double"},
      {"DECIMAL(10,2)", "decimal(10,2)"},
      {"VARCHAR", "string"},
      {"JSON", "string"},
      {"BLOB", "binary"},
      {"DATE", "date"},
      {"TIME", "time"},
      {"TIME[ns]", "time_ns"},  // no Iceberg type: named so in messages only
      {"TIMESTAMP[s]", "timestamp"},
      {"TIMESTAMP[ms]", "timestamp"},
      {"TIMESTAMP[us]", "timestamp"},
      {"TIMESTAMP[ns]", "timestamp_ns"},
      {"TIMESTAMPTZ[us]", "timestamptz"},
      {"TIMESTAMPTZ[ns]", "timestamptz_ns"},
      {"UUID", "uuid"},
      {"IPV4", "long"},
      {"ARRAY<ARRAY<INT8>>", "list<list<int>>"},
  };
  for (auto [tarn, iceberg] : cases) EXPECT_EQ(IcebergTypeName(T(tarn)), iceberg) << tarn;
}

TEST(IcebergBoundTest, Encodings) {
  EXPECT_EQ(Bound("BOOLEAN", "true"), "01");
  EXPECT_EQ(Bound("BOOLEAN", "false"), "00");
  EXPECT_EQ(Bound("INT32", "34"), "22000000");
  EXPECT_EQ(Bound("INT8", "-1"), "ffffffff");
  EXPECT_EQ(Bound("UINT16", "65535"), "ffff0000");
  EXPECT_EQ(Bound("INT64", "34"), "2200000000000000");
  EXPECT_EQ(Bound("UINT32", "4294967295"), "ffffffff00000000");
  EXPECT_EQ(Bound("IPV4", "192.168.0.1"), "0100a8c000000000");
  EXPECT_EQ(Bound("FLOAT32", "1"), "0000803f");
  EXPECT_EQ(Bound("FLOAT64", "1"), "000000000000f03f");
  EXPECT_EQ(Bound("DECIMAL(4,2)", "14.20"), "058c");
  EXPECT_EQ(Bound("DECIMAL(4,2)", "0"), "00");
  EXPECT_EQ(Bound("DECIMAL(4,2)", "-0.01"), "ff");
  EXPECT_EQ(Bound("DECIMAL(4,0)", "128"), "0080");
  EXPECT_EQ(Bound("DECIMAL(4,0)", "127"), "7f");
  EXPECT_EQ(Bound("DECIMAL(4,0)", "-128"), "80");
  EXPECT_EQ(Bound("DECIMAL(4,0)", "-129"), "ff7f");
  EXPECT_EQ(Bound("DECIMAL(38,0)", "99999999999999999999999999999999999999"),
            "4b3b4ca85a86c47a098a223fffffffff");
  EXPECT_EQ(Bound("DECIMAL(38,0)", "-99999999999999999999999999999999999999"),
            "b4c4b357a5793b85f675ddc000000001");
  EXPECT_EQ(Bound("UINT64", "18446744073709551615"), "00ffffffffffffffff");
  EXPECT_EQ(Bound("VARCHAR", "iceberg"), "69636562657267");
  EXPECT_EQ(Bound("BLOB", "AAECAw=="), "00010203");
  EXPECT_EQ(Bound("UUID", "f79c3e09-677c-4bbd-a479-3f349cb785e7"),
            "f79c3e09677c4bbda4793f349cb785e7");
  EXPECT_EQ(Bound("DATE", "2017-11-16"), "4e440000");  // 17486
  EXPECT_EQ(Bound("DATE", "1969-12-31"), "ffffffff");
  EXPECT_EQ(Bound("TIME", "00:00:01"), "40420f0000000000");
  EXPECT_EQ(Bound("TIME[ns]", "00:00:01"), "00ca9a3b00000000");  // nanoseconds, exact
  EXPECT_EQ(Bound("TIME[ns]", "00:00:00.000000001"), "0100000000000000");
  // Timestamps in microseconds whatever the tarn unit, except nanosecond types.
  const std::string micros = Bound("TIMESTAMP[us]", "2017-11-16T22:31:08");
  EXPECT_EQ(micros, "00c3262d215e0500");  // 1510871468000000
  EXPECT_EQ(Bound("TIMESTAMP[s]", "2017-11-16T22:31:08"), micros);
  EXPECT_EQ(Bound("TIMESTAMPTZ[ms]", "2017-11-16T22:31:08Z"), micros);
  EXPECT_EQ(Bound("TIMESTAMP[ns]", "1970-01-01T00:00:00.000000001"), "0100000000000000");
  // Saturation keeps bounds valid for second values beyond the microsecond range.
  Column far(T("TIMESTAMP[s]"));
  far.AppendFixed<int64_t>(std::numeric_limits<int64_t>::max());
  far.AppendFixed<int64_t>(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Hex(EncodeBound(far, 0)), "ffffffffffffff7f");
  EXPECT_EQ(Hex(EncodeBound(far, 1)), "0000000000000080");
  EXPECT_EQ(EncodeBound(Column(T("ARRAY<INT32>")), 0), "");
  EXPECT_EQ(EncodeBoundPhysical(T("INT32"), "abc"), "");  // wrong physical size
}

TEST(IcebergBoundTest, RoundTrips) {
  const std::pair<const char*, std::vector<const char*>> cases[] = {
      {"BOOLEAN", {"true", "false"}},
      {"INT8", {"-128", "127"}},
      {"INT16", {"-32768", "32767"}},
      {"INT32", {"-2147483648", "2147483647"}},
      {"INT64", {"-9223372036854775808", "9223372036854775807"}},
      {"UINT8", {"0", "255"}},
      {"UINT16", {"65535"}},
      {"UINT32", {"0", "4294967295"}},
      {"UINT64", {"0", "18446744073709551615"}},
      {"FLOAT32", {"-0", "0.1", "-Infinity", "3.4028235e+38"}},
      {"FLOAT64", {"5e-324", "-1.7976931348623157e+308", "Infinity"}},
      {"DECIMAL(38,0)",
       {"99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "0",
        "-1", "255", "-256"}},
      {"DECIMAL(10,2)", {"-0.01", "12345678.90"}},
      {"VARCHAR", {"", "iceberg", "caf\xc3\xa9"}},
      {"JSON", {"{\"a\":1}"}},
      {"BLOB", {"", "AAECAw=="}},
      {"DATE", {"0001-01-01", "9999-12-31", "1969-12-31"}},
      {"TIME", {"00:00:00", "23:59:59.999999"}},
      {"TIME[ns]", {"00:00:00", "23:59:59.999999999"}},
      {"TIMESTAMP[s]", {"0001-01-01T00:00:00", "9999-12-31T23:59:59"}},
      {"TIMESTAMP[ms]", {"1969-12-31T23:59:59.999"}},
      {"TIMESTAMP[us]", {"2017-11-16T22:31:08.000001"}},
      {"TIMESTAMP[ns]", {"1677-09-21T00:12:43.145224192", "2262-04-11T23:47:16.854775807"}},
      {"TIMESTAMPTZ[ns]", {"2017-11-16T22:31:08.000000001Z"}},
      {"TIMESTAMPTZ[us]", {"2017-11-16T22:31:08Z"}},
      {"UUID", {"f79c3e09-677c-4bbd-a479-3f349cb785e7"}},
      {"IPV4", {"0.0.0.0", "255.255.255.255"}},
  };
  for (const auto& [type, values] : cases) {
    for (const char* value : values) {
      Column c = One(type, value);
      std::string bytes = EncodeBound(c, 0);
      Result<Column> back = DecodeBound(c.type, bytes);
      ASSERT_TRUE(back.ok()) << type << " " << value << ": " << back.status().ToString();
      ASSERT_EQ(back->length, 1);
      EXPECT_EQ(back->type, c.type);
      EXPECT_EQ(ValueText(*back, 0), ValueText(c, 0)) << type;
    }
  }
}

TEST(IcebergBoundTest, DecodeErrors) {
  auto fails = [](const char* type, std::string bytes) {
    Result<Column> r = DecodeBound(T(type), bytes);
    EXPECT_FALSE(r.ok()) << type << " " << Hex(bytes);
    if (!r.ok()) {
      EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);
    }
  };
  fails("BOOLEAN", "");
  fails("INT32", "abc");
  fails("INT32", std::string(8, '\0'));
  fails("INT8", std::string("\x80\x00\x00\x00", 4));   // 128 does not fit INT8
  fails("UINT8", std::string("\xff\xff\xff\xff", 4));  // -1
  fails("UINT32", std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8));
  fails("INT64", "abcde");
  fails("TIME", "abcd");
  fails("FLOAT32", "abcdefgh");
  fails("FLOAT64", "abc");
  fails("DECIMAL(10,2)", "");
  fails("DECIMAL(10,2)", std::string(17, '\x01'));
  fails("DECIMAL(2,0)", "\x64");                                            // 100 > 99
  fails("UINT64", "\xff");                                                  // -1
  fails("UINT64", std::string("\x01\x00\x00\x00\x00\x00\x00\x00\x00", 9));  // 2^64
  fails("UUID", "short");
  fails("TIMESTAMP[us]", "1234");
  fails("TIMESTAMP[ns]", "123456789");
  EXPECT_EQ(DecodeBound(T("ARRAY<INT32>"), "").status().kind(), ErrorKind::kInvalidArgument);
}

TEST(IcebergBoundTest, DecodePromotedAndCoarseBounds) {
  // An int bound read for a long column (int -> long promotion), a float bound for a double.
  Result<Column> l = DecodeBound(T("INT64"), std::string("\xfe\xff\xff\xff", 4));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->Value<int64_t>(0), -2);
  Result<Column> d = DecodeBound(T("FLOAT64"), std::string("\x00\x00\xc0\x3f", 4));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->Value<double>(0), 1.5);
  // Microseconds not on a millisecond boundary round down for a TIMESTAMP[ms] column.
  Result<Column> ms =
      DecodeBound(T("TIMESTAMP[ms]"), std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8));
  ASSERT_TRUE(ms.ok());
  EXPECT_EQ(ms->Value<int64_t>(0), -1);
}

}  // namespace
}  // namespace tarn

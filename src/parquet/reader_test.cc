#include "parquet/reader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/compression.h"
#include "parquet/reader_test_util.h"
#include "types/value_text.h"

namespace tarn::parquet {
namespace {

using json = nlohmann::ordered_json;
using namespace testing;  // NOLINT: the crafting helpers

const std::string kDataDir = std::string(TARN_SOURCE_DIR) + "/tests/data/parquet/";

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json LoadExpectation(const std::string& group) {
  std::ifstream in(kDataDir + group + ".json");
  return json::parse(in);
}

// ---- DuckDB-style rendering of tarn values, to compare with DuckDB's own JSON -------------

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

std::string DateText(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  return buf;
}

// "HH:MM:SS" plus the fraction with trailing zeros trimmed, as DuckDB prints.
std::string TimeOfDayText(int64_t seconds, int64_t frac, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                static_cast<long long>(seconds / 60 % 60), static_cast<long long>(seconds % 60));
  std::string s = buf;
  if (frac != 0) {
    std::string f = std::to_string(frac);
    f = std::string(digits - f.size(), '0') + f;
    while (!f.empty() && f.back() == '0') f.pop_back();
    s += "." + f;
  }
  return s;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

std::string TimestampText(int64_t v, TimeUnit unit) {
  int64_t per_sec = 1, digits = 0;
  switch (unit) {
    case TimeUnit::kSecond:
      break;
    case TimeUnit::kMilli:
      per_sec = 1000;
      digits = 3;
      break;
    case TimeUnit::kMicro:
      per_sec = 1000000;
      digits = 6;
      break;
    case TimeUnit::kNano:
      per_sec = 1000000000;
      digits = 9;
      break;
  }
  const int64_t secs = FloorDiv(v, per_sec);
  const int64_t frac = v - secs * per_sec;
  const int64_t days = FloorDiv(secs, 86400);
  return DateText(days) + " " + TimeOfDayText(secs - days * 86400, frac, static_cast<int>(digits));
}

std::string Int128Text(int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  uint128 u = neg ? -static_cast<uint128>(v) : static_cast<uint128>(v);
  std::string s;
  while (u > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

std::string DecimalText(int128 v, int scale) {
  const bool neg = v < 0;
  std::string digits = Int128Text(neg ? -v : v);
  if (scale > 0) {
    if (static_cast<int>(digits.size()) <= scale) {
      digits = std::string(scale + 1 - digits.size(), '0') + digits;
    }
    digits.insert(digits.end() - scale, '.');
  }
  return neg ? "-" + digits : digits;
}

std::string BlobText(std::string_view b) {
  std::string s;
  for (unsigned char c : b) {
    if (c >= 32 && c <= 126 && c != '\'' && c != '"') {
      s += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      s += buf;
    }
  }
  return s;
}

std::string UuidText(const uint8_t* p) {
  std::string s;
  char buf[4];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    std::snprintf(buf, sizeof buf, "%02x", p[i]);
    s += buf;
  }
  return s;
}

json FloatJson(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return d;
}

json Render(const Column& c, int64_t i) {
  if (!c.IsValid(i)) return nullptr;
  switch (c.type.id()) {
    case TypeId::kBoolean:
      return c.Value<uint8_t>(i) != 0;
    case TypeId::kInt8:
      return c.Value<int8_t>(i);
    case TypeId::kInt16:
      return c.Value<int16_t>(i);
    case TypeId::kInt32:
      return c.Value<int32_t>(i);
    case TypeId::kUInt8:
      return c.Value<uint8_t>(i);
    case TypeId::kUInt16:
      return c.Value<uint16_t>(i);
    case TypeId::kUInt32:
      return c.Value<uint32_t>(i);
    case TypeId::kInt64:
      return std::to_string(c.Value<int64_t>(i));
    case TypeId::kUInt64:
      return std::to_string(c.Value<uint64_t>(i));
    case TypeId::kFloat32:
      return FloatJson(c.Value<float>(i));
    case TypeId::kFloat64:
      return FloatJson(c.Value<double>(i));
    case TypeId::kDecimal:
      return DecimalText(c.Value<int128>(i), c.type.scale());
    case TypeId::kVarchar:
    case TypeId::kJson:
      return std::string(c.StringAt(i));
    case TypeId::kBlob:
      return BlobText(c.StringAt(i));
    case TypeId::kDate:
      return DateText(c.Value<int32_t>(i));
    case TypeId::kTime: {
      const int64_t v = c.Value<int64_t>(i);
      if (c.type.unit() == TimeUnit::kNano) return TimeOfDayText(v / 1000000000, v % 1000000000, 9);
      return TimeOfDayText(v / 1000000, v % 1000000, 6);
    }
    case TypeId::kTimestamp:
      return TimestampText(c.Value<int64_t>(i), c.type.unit());
    case TypeId::kTimestampTz:
      return TimestampText(c.Value<int64_t>(i), c.type.unit()) + "+00";
    case TypeId::kUuid:
      return UuidText(c.data.data() + 16 * i);
    case TypeId::kIpv4:
      return c.Value<uint32_t>(i);
    case TypeId::kArray: {
      json a = json::array();
      for (int64_t k = c.offsets[i]; k < c.offsets[i + 1]; ++k) a.push_back(Render(*c.child, k));
      return a;
    }
    case TypeId::kStruct: {
      json o = json::object();
      for (size_t m = 0; m < c.members.size(); ++m) {
        o[c.type.children()[m].name] = Render(c.members[m], i);
      }
      return o;
    }
    case TypeId::kMap: {
      json a = json::array();
      for (int64_t k = c.offsets[i]; k < c.offsets[i + 1]; ++k) {
        a.push_back({{"key", Render(c.members[0], k)}, {"value", Render(c.members[1], k)}});
      }
      return a;
    }
    case TypeId::kVariant:
      return json::parse(ValueText(c, i));  // the JSON a VARIANT holds
  }
  return "?";
}

// Structural invariants every decoded column must satisfy.
void ExpectWellFormed(const Column& c, const std::string& name) {
  if (!c.validity.empty()) {
    EXPECT_EQ(static_cast<int64_t>(c.validity.size()), c.length) << name;
  }
  const int w = c.type.PhysicalWidth();
  if (w > 0) {
    EXPECT_EQ(static_cast<int64_t>(c.data.size()), c.length * w) << name;
  }
  if (c.type.is_variable_width() || c.type.is_repeated()) {
    ASSERT_EQ(static_cast<int64_t>(c.offsets.size()), c.length + 1) << name;
    for (int64_t i = 0; i < c.length; ++i) {
      ASSERT_LE(c.offsets[i], c.offsets[i + 1]) << name;
      if (!c.IsValid(i)) {
        EXPECT_EQ(c.offsets[i], c.offsets[i + 1]) << name << " null row " << i;
      }
    }
    if (c.type.is_variable_width()) {
      EXPECT_EQ(c.offsets.back(), static_cast<int64_t>(c.data.size()));
    }
    if (c.type.id() == TypeId::kArray) {
      EXPECT_EQ(c.offsets.back(), c.child->length) << name;
      ExpectWellFormed(*c.child, name + ".element");
    }
  }
  if (c.type.id() == TypeId::kMap || c.type.id() == TypeId::kStruct) {
    const int64_t want = c.type.id() == TypeId::kMap ? c.offsets.back() : c.length;
    ASSERT_EQ(c.members.size(), c.type.children().size()) << name;
    for (size_t m = 0; m < c.members.size(); ++m) {
      const std::string member = name + "." + c.type.children()[m].name;
      EXPECT_EQ(c.members[m].length, want) << member;
      ExpectWellFormed(c.members[m], member);
      // A null struct row holds a null in every member.
      for (int64_t i = 0; c.type.id() == TypeId::kStruct && i < c.length; ++i) {
        if (!c.IsValid(i)) {
          EXPECT_FALSE(c.members[m].IsValid(i)) << member << " row " << i;
        }
      }
    }
  }
}

void ExpectMatchesDuckDb(const RecordBatch& batch, const json& expected, const std::string& file) {
  const json& cols = expected["columns"];
  ASSERT_EQ(batch.schema.fields.size(), cols.size()) << file;
  size_t k = 0;
  for (auto it = cols.begin(); it != cols.end(); ++it, ++k) {
    const Column& c = batch.columns[k];
    EXPECT_EQ(batch.schema.fields[k].name, it.key()) << file;
    ASSERT_EQ(c.length, static_cast<int64_t>(it.value().size())) << file << " " << it.key();
    ExpectWellFormed(c, it.key());
    int failures = 0;
    for (int64_t r = 0; r < c.length && failures < 5; ++r) {
      json got = Render(c, r);
      if (got != it.value()[r]) {
        ADD_FAILURE() << file << " column " << it.key() << " (" << c.type.ToString() << ") row "
                      << r << ": tarn " << got.dump() << ", DuckDB " << it.value()[r].dump();
        ++failures;
      }
    }
  }
  EXPECT_EQ(batch.num_rows, static_cast<int64_t>(cols.begin().value().size()));
}

Result<std::unique_ptr<FileReader>> OpenFixture(const std::string& name, int threads = 2) {
  auto file = OpenLocalFile(kDataDir + name + ".parquet");
  if (!file.ok()) return file.status();
  ReaderOptions options;
  options.threads = threads;
  return FileReader::Open(*file, options);
}

struct Fixture {
  const char* name;
  const char* group;
};

class DuckDbFixtureTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(DuckDbFixtureTest, ReadsDuckDbValuesExactly) {
  const Fixture& f = GetParam();
  json expected = LoadExpectation(f.group);
  for (int threads : {1, 3}) {
    auto reader = OpenFixture(f.name, threads);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto batch = (*reader)->ReadAll();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ExpectMatchesDuckDb(*batch, expected, f.name);
  }
}

TEST_P(DuckDbFixtureTest, RowGroupsConcatenateToReadAll) {
  const Fixture& f = GetParam();
  json expected = LoadExpectation(f.group);
  auto reader = OpenFixture(f.name);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const json& cols = expected["columns"];
  int64_t offset = 0;
  for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
    auto batch = (*reader)->ReadRowGroup(g);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    EXPECT_EQ(batch->num_rows, (*reader)->metadata().row_groups[g].num_rows);
    size_t k = 0;
    for (auto it = cols.begin(); it != cols.end(); ++it, ++k) {
      const Column& c = batch->columns[k];
      ASSERT_EQ(c.length, batch->num_rows);
      for (int64_t r = 0; r < c.length; ++r) {
        ASSERT_EQ(Render(c, r), it.value()[offset + r]) << f.name << " " << it.key() << " rg " << g;
      }
    }
    offset += batch->num_rows;
  }
  EXPECT_EQ(offset, (*reader)->num_rows());
}

TEST_P(DuckDbFixtureTest, BatchesConcatenateToDuckDbValues) {
  const Fixture& f = GetParam();
  json expected = LoadExpectation(f.group);
  auto reader = OpenFixture(f.name);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (int64_t most : {int64_t{3}, int64_t{1000}}) {
    RecordBatch all;
    Status st = (*reader)->ReadBatches({}, most, [&](RecordBatch&& b) {
      EXPECT_LE(b.num_rows, most);
      if (all.columns.empty()) {
        all.schema = b.schema;
        for (const Field& field : b.schema.fields) all.columns.emplace_back(field.type);
      }
      for (size_t k = 0; k < b.columns.size(); ++k) all.columns[k].AppendColumn(b.columns[k]);
      all.num_rows += b.num_rows;
      return Status::OK();
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    ExpectMatchesDuckDb(all, expected, f.name);
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, DuckDbFixtureTest,
    ::testing::Values(Fixture{"types_v1", "types"}, Fixture{"types_v2", "types"},
                      Fixture{"lists_v1", "lists"}, Fixture{"lists_v2", "lists"},
                      Fixture{"field_ids", "field_ids"}, Fixture{"row_groups_v1", "row_groups"},
                      Fixture{"row_groups_v2", "row_groups"},
                      Fixture{"codec_uncompressed_v1", "codec"},
                      Fixture{"codec_uncompressed_v2", "codec"},
                      Fixture{"codec_snappy_v1", "codec"}, Fixture{"codec_snappy_v2", "codec"},
                      Fixture{"codec_gzip_v1", "codec"}, Fixture{"codec_gzip_v2", "codec"},
                      Fixture{"codec_zstd_v1", "codec"}, Fixture{"codec_zstd_v2", "codec"},
                      Fixture{"codec_lz4_raw_v1", "codec"}, Fixture{"codec_lz4_raw_v2", "codec"},
                      Fixture{"codec_brotli_v1", "codec"}, Fixture{"codec_brotli_v2", "codec"}),
    [](const ::testing::TestParamInfo<Fixture>& info) { return std::string(info.param.name); });

TEST(DuckDbFixtures, TarnTypesOfEveryScalar) {
  const std::vector<std::pair<std::string, std::string>> want = {
      {"id", "INT64"},
      {"c_boolean", "BOOLEAN"},
      {"c_tinyint", "INT8"},
      {"c_smallint", "INT16"},
      {"c_integer", "INT32"},
      {"c_bigint", "INT64"},
      {"c_utinyint", "UINT8"},
      {"c_usmallint", "UINT16"},
      {"c_uinteger", "UINT32"},
      {"c_ubigint", "UINT64"},
      {"c_float", "FLOAT32"},
      {"c_double", "FLOAT64"},
      {"c_decimal_4_1", "DECIMAL(4,1)"},
      {"c_decimal_10_2", "DECIMAL(10,2)"},
      {"c_decimal_18_3", "DECIMAL(18,3)"},
      {"c_decimal_38_5", "DECIMAL(38,5)"},
      {"c_varchar", "VARCHAR"},
      {"c_blob", "BLOB"},
      {"c_date", "DATE"},
      {"c_time", "TIME"},
      {"c_timestamp", "TIMESTAMP[us]"},
      {"c_timestamp_s", "TIMESTAMP[us]"},  // DuckDB stores TIMESTAMP_S as microseconds
      {"c_timestamp_ms", "TIMESTAMP[ms]"},
      {"c_timestamp_ns", "TIMESTAMP[ns]"},
      {"c_timestamptz", "TIMESTAMPTZ[us]"},
      {"c_uuid", "UUID"},
      {"c_json", "JSON"},
  };
  for (const char* name : {"types_v1", "types_v2"}) {
    auto reader = OpenFixture(name);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    const Schema& s = (*reader)->schema().schema;
    ASSERT_EQ(s.fields.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(s.fields[i].name, want[i].first);
      EXPECT_EQ(s.fields[i].type.ToString(), want[i].second) << name << " " << want[i].first;
      EXPECT_TRUE(s.fields[i].nullable);
    }
  }
  auto lists = OpenFixture("lists_v2");
  ASSERT_TRUE(lists.ok());
  const Schema& ls = (*lists)->schema().schema;
  EXPECT_EQ(ls.fields[1].type.ToString(), "ARRAY<INT64>");
  EXPECT_EQ(ls.fields[2].type.ToString(), "ARRAY<VARCHAR>");
  EXPECT_EQ(ls.fields[3].type.ToString(), "ARRAY<ARRAY<INT64>>");
  EXPECT_EQ(ls.fields[5].type.ToString(), "ARRAY<DECIMAL(18,3)>");
}

int128 ParseInt128(const std::string& s) {
  int128 v = 0;
  bool neg = s[0] == '-';
  for (size_t i = neg ? 1 : 0; i < s.size(); ++i) v = v * 10 + (s[i] - '0');
  return neg ? -v : v;
}

TEST(DuckDbFixtures, KeyValuesInDetail) {
  for (const char* name : {"types_v1", "types_v2"}) {
    SCOPED_TRACE(name);
    auto reader = OpenFixture(name);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto b = (*reader)->ReadAll();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    auto col = [&](const char* n) -> const Column& { return b->columns[b->schema.FieldIndex(n)]; };
    EXPECT_EQ(col("c_tinyint").Value<int8_t>(0), -128);
    EXPECT_EQ(col("c_tinyint").Value<int8_t>(1), 127);
    EXPECT_EQ(col("c_smallint").Value<int16_t>(4), 32767);
    EXPECT_EQ(col("c_integer").Value<int32_t>(0), INT32_MIN);
    EXPECT_EQ(col("c_bigint").Value<int64_t>(0), INT64_MIN);
    EXPECT_EQ(col("c_bigint").Value<int64_t>(6), INT64_MAX);
    EXPECT_EQ(col("c_utinyint").Value<uint8_t>(7), 255);
    EXPECT_EQ(col("c_usmallint").Value<uint16_t>(8), 65535);
    EXPECT_EQ(col("c_uinteger").Value<uint32_t>(9), 4294967295u);
    EXPECT_EQ(col("c_ubigint").Value<uint64_t>(10), UINT64_MAX);
    EXPECT_TRUE(std::isnan(col("c_float").Value<float>(11)));
    EXPECT_EQ(col("c_float").Value<float>(12), INFINITY);
    EXPECT_EQ(col("c_double").Value<double>(16), 1e300);
    EXPECT_EQ(col("c_double").Value<double>(17), -2.5e-300);
    // Decimals: unscaled values.
    EXPECT_EQ(col("c_decimal_4_1").Value<int128>(18), -9999);
    EXPECT_EQ(col("c_decimal_4_1").Value<int128>(19), 9999);
    EXPECT_EQ(col("c_decimal_10_2").Value<int128>(20), -9999999999);
    EXPECT_EQ(col("c_decimal_10_2").Value<int128>(21), 9999999999);
    EXPECT_EQ(col("c_decimal_18_3").Value<int128>(22), -999999999999999999);
    EXPECT_TRUE(col("c_decimal_38_5").Value<int128>(23) ==
                ParseInt128("-99999999999999999999999999999999999999"));
    EXPECT_TRUE(col("c_decimal_38_5").Value<int128>(24) ==
                ParseInt128("1234567890123456789012345678901234567"));
    EXPECT_EQ(col("c_decimal_38_5").Value<int128>(0), -7);
    // Strings and bytes.
    EXPECT_EQ(col("c_varchar").StringAt(25), "");
    EXPECT_TRUE(col("c_varchar").IsValid(25));
    EXPECT_EQ(col("c_varchar").StringAt(26),
              "h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93 \xf0\x9f\x98\x80");
    EXPECT_FALSE(col("c_varchar").IsValid(3));
    EXPECT_EQ(col("c_blob").StringAt(27), "");
    EXPECT_EQ(col("c_blob").StringAt(0),
              std::string("\xcf\xcd\x20\x84\x95\xd5\x65\xef\x66\xe7\xdf\xf9\xf9\x87\x64\xda", 16));
    // Dates, times, timestamps.
    EXPECT_EQ(col("c_date").Value<int32_t>(28), -25567);
    EXPECT_EQ(col("c_date").Value<int32_t>(29), 106751);
    EXPECT_EQ(col("c_time").Value<int64_t>(30), 86399999999);
    EXPECT_EQ(col("c_time").Value<int64_t>(1), 864000013);
    EXPECT_EQ(col("c_timestamp").Value<int64_t>(31), 1709210096789012);
    EXPECT_EQ(col("c_timestamp_s").Value<int64_t>(1), -284083199000000);
    EXPECT_EQ(col("c_timestamp_ms").Value<int64_t>(1), -284083200000 + 123);
    EXPECT_EQ(col("c_timestamp_ns").Value<int64_t>(32), 1709210096123456789);
    EXPECT_EQ(col("c_timestamptz").Value<int64_t>(33), 1709210096789012);
    // UUID bytes in RFC 4122 order.
    const uint8_t want_uuid[16] = {0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78,
                                   0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0};
    EXPECT_EQ(std::memcmp(col("c_uuid").data.data() + 16 * 34, want_uuid, 16), 0);
    EXPECT_FALSE(col("c_uuid").IsValid(1));
    EXPECT_EQ(col("c_json").StringAt(0), "{\"i\":0,\"s\":\"v0\"}");
    // Null rows of fixed-width columns are zeroed.
    EXPECT_EQ(col("c_bigint").Value<int64_t>(5), 0);
    EXPECT_FALSE(col("c_bigint").IsValid(5));
  }
}

TEST(DuckDbFixtures, ListsInDetail) {
  for (const char* name : {"lists_v1", "lists_v2"}) {
    SCOPED_TRACE(name);
    auto reader = OpenFixture(name);
    ASSERT_TRUE(reader.ok());
    auto b = (*reader)->ReadAll();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    const Column& ints = b->columns[1];
    // Row 0: NULL, row 1: [], row 2: [NULL], row 3: [3, NULL, -3].
    EXPECT_FALSE(ints.IsValid(0));
    EXPECT_TRUE(ints.IsValid(1));
    EXPECT_EQ(ints.offsets[2] - ints.offsets[1], 0);
    EXPECT_EQ(ints.offsets[3] - ints.offsets[2], 1);
    EXPECT_FALSE(ints.child->IsValid(ints.offsets[2]));
    const int64_t at = ints.offsets[3];
    EXPECT_EQ(ints.offsets[4] - at, 3);
    EXPECT_EQ(ints.child->Value<int64_t>(at), 3);
    EXPECT_FALSE(ints.child->IsValid(at + 1));
    EXPECT_EQ(ints.child->Value<int64_t>(at + 2), -3);
    const Column& nested = b->columns[3];
    // Row 5: [[5, 6], NULL, [], [10]].
    const int64_t r = nested.offsets[5];
    ASSERT_EQ(nested.offsets[6] - r, 4);
    const Column& inner = *nested.child;
    EXPECT_TRUE(inner.IsValid(r));
    EXPECT_FALSE(inner.IsValid(r + 1));
    EXPECT_TRUE(inner.IsValid(r + 2));
    EXPECT_EQ(inner.offsets[r + 3] - inner.offsets[r + 2], 0);
    EXPECT_EQ(inner.child->Value<int64_t>(inner.offsets[r]), 5);
    EXPECT_EQ(inner.child->Value<int64_t>(inner.offsets[r] + 1), 6);
    EXPECT_EQ(inner.child->Value<int64_t>(inner.offsets[r + 3]), 10);
    EXPECT_TRUE(b->schema.fields[3].type.element_field().nullable);
  }
}

TEST(DuckDbFixtures, FieldIds) {
  auto reader = OpenFixture("field_ids");
  ASSERT_TRUE(reader.ok());
  const Schema& s = (*reader)->schema().schema;
  EXPECT_EQ(s.fields[0].field_id, 10);
  EXPECT_EQ(s.fields[1].field_id, 11);
  EXPECT_EQ(s.fields[2].field_id, 12);
  EXPECT_EQ(s.fields[2].type.element_field().field_id, 13);
}

TEST(DuckDbFixtures, MultipleRowGroupsAndProjection) {
  auto reader = OpenFixture("row_groups_v2");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->num_row_groups(), 3);
  EXPECT_EQ((*reader)->num_rows(), 4200);
  auto b = (*reader)->ReadAll({2, 0});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->columns.size(), 2u);
  EXPECT_EQ(b->schema.fields[0].name, "small");
  EXPECT_EQ(b->schema.fields[1].name, "id");
  EXPECT_EQ(b->num_rows, 4200);
  for (int64_t i = 0; i < 4200; ++i) {
    ASSERT_EQ(b->columns[1].Value<int32_t>(i), i);
    ASSERT_EQ(b->columns[0].IsValid(i), i % 5 != 0);
    if (i % 5 != 0) {
      ASSERT_EQ(b->columns[0].Value<int32_t>(i), i % 3);
    }
  }
  auto rg = (*reader)->ReadRowGroup(2, {1});
  ASSERT_TRUE(rg.ok());
  EXPECT_EQ(rg->num_rows, 4200 - 4096);
  EXPECT_EQ(rg->columns[0].StringAt(0), "k" + std::to_string(4096 % 50));
  EXPECT_EQ((*reader)->ReadAll({3}).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ((*reader)->ReadRowGroup(3).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(DuckDbFixtures, ReadFooterUsesAtMostTwoReads) {
  class CountingFile : public RandomAccessFile {
   public:
    explicit CountingFile(std::shared_ptr<RandomAccessFile> f) : f_(std::move(f)) {}
    uint64_t Size() const override { return f_->Size(); }
    Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
      ++reads;
      return f_->ReadAt(offset, n, out);
    }
    const std::string& name() const override { return f_->name(); }
    mutable std::atomic<int> reads{0};

   private:
    std::shared_ptr<RandomAccessFile> f_;
  };
  auto file = OpenLocalFile(kDataDir + "types_v1.parquet");
  ASSERT_TRUE(file.ok());
  CountingFile counting(*file);
  auto md = FileReader::ReadFooter(counting);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(counting.reads, 1);

  // A footer larger than 64 KiB takes exactly a second read.
  std::vector<KeyValue> kv;
  for (int i = 0; i < 80; ++i) kv.push_back({"key" + std::to_string(i), std::string(1000, 'v')});
  std::string bytes =
      BuildFile({Root(1), Leaf("a", Type::INT32, Repetition::REQUIRED)}, {}, {}, kv);
  ASSERT_GT(bytes.size(), 70000u);
  CountingFile big(MemoryFile(bytes, "big"));
  auto md2 = FileReader::ReadFooter(big);
  ASSERT_TRUE(md2.ok()) << md2.status().ToString();
  EXPECT_EQ(big.reads, 2);
  EXPECT_EQ(md2->key_value_metadata.size(), 80u);
}

// ---- crafted files ------------------------------------------------------------------------

Result<RecordBatch> ReadBytesAll(const std::string& bytes, ReaderOptions options = {}) {
  auto reader = FileReader::Open(MemoryFile(bytes, "crafted.parquet"), options);
  if (!reader.ok()) return reader.status();
  return (*reader)->ReadAll();
}

std::string DefLevels(const std::vector<uint64_t>& levels, int width) {
  return Prefixed(BitPackedRun(levels, width));
}

TEST(CraftedFiles, Int96Timestamps) {
  std::string values;
  auto add = [&](int64_t nanos, int32_t day) {
    values.append(reinterpret_cast<const char*>(&nanos), 8);
    values.append(reinterpret_cast<const char*>(&day), 4);
  };
  add(0, 2440588);
  add(3723000000123, 2440589);
  add(1, 2440587);
  std::string page = DataPageV1(4, Encoding::PLAIN, DefLevels({1, 1, 0, 1}, 1) + values);
  std::string file = BuildFile({Root(1), Leaf("t", Type::INT96, Repetition::OPTIONAL)},
                               {{{{"t"}, Type::INT96, 4, page}}}, {4});
  auto b = ReadBytesAll(file);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const Column& c = b->columns[0];
  EXPECT_EQ(c.type.ToString(), "TIMESTAMP[ns]");
  EXPECT_EQ(c.Value<int64_t>(0), 0);
  EXPECT_EQ(c.Value<int64_t>(1), 86400000000000LL + 3723000000123LL);
  EXPECT_FALSE(c.IsValid(2));
  EXPECT_EQ(c.Value<int64_t>(3), -86400000000000LL + 1);
}

ErrorKind OpenAndReadKind(const std::string& bytes);  // below, with the malformed files

std::string Int96(int64_t nanos, int32_t julian_day) {
  std::string v(12, '\0');
  std::memcpy(v.data(), &nanos, 8);
  std::memcpy(v.data() + 8, &julian_day, 4);
  return v;
}

// Spark writes 9999-12-31 as an "end of time" marker; it is past TIMESTAMP[ns] (2262-04-11),
// and used to wrap to 1816-03-29. The edges of the range read exactly; past them the read
// fails naming the column and the value.
TEST(CraftedFiles, Int96BeyondNanosecondRangeIsRefusedByName) {
  const int32_t kEpoch = 2440588;
  // 2262-04-11 23:47:16.854775807 (INT64_MAX ns) and 1677-09-21 00:12:43.145224192 (INT64_MIN).
  const std::string max = Int96(85636854775807LL, kEpoch + 106751);
  const std::string min = Int96(763145224192LL, kEpoch - 106752);
  auto read = [&](const std::string& values, int n) {
    std::string page = DataPageV1(n, Encoding::PLAIN, values);
    return ReadBytesAll(BuildFile({Root(1), Leaf("spark_ts", Type::INT96, Repetition::REQUIRED)},
                                  {{{{"spark_ts"}, Type::INT96, n, page}}}, {n}));
  };
  auto edges = read(max + min, 2);
  ASSERT_TRUE(edges.ok()) << edges.status().ToString();
  EXPECT_EQ(edges->columns[0].Value<int64_t>(0), INT64_MAX);
  EXPECT_EQ(edges->columns[0].Value<int64_t>(1), INT64_MIN);

  struct Bad {
    std::string value;
    const char* text;
  };
  const Bad bad[] = {
      {Int96(3 * 3600 * 1000000000LL, kEpoch + 2932896), "INT96 timestamp 9999-12-31 03:00:00 "},
      {Int96(85636854775808LL, kEpoch + 106751), "2262-04-11 23:47:16.854775808"},
      {Int96(763145224191LL, kEpoch - 106752), "1677-09-21 00:12:43.145224191"},
      {Int96(0, INT32_MIN), "-5884323-05-15 00:00:00"},
      {Int96(-1, kEpoch + 200000), "-1 ns after the start of Julian day 2640588"},
  };
  for (const Bad& b : bad) {
    auto r = read(max + b.value, 2);
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << r.status().ToString();
    const std::string& msg = r.status().message();
    EXPECT_NE(msg.find(b.text), std::string::npos) << msg;
    EXPECT_NE(msg.find("column 'spark_ts'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("outside the range of TIMESTAMP[ns]"), std::string::npos) << msg;
  }
  // Through a dictionary, too.
  std::string dict = DictionaryPage(2, max + bad[0].value);
  std::string indices = std::string(1, '\1') + RleRun(2, 1);
  std::string pages = dict + DataPageV1(2, Encoding::RLE_DICTIONARY, indices);
  auto d = ReadBytesAll(BuildFile({Root(1), Leaf("spark_ts", Type::INT96, Repetition::REQUIRED)},
                                  {{{{"spark_ts"}, Type::INT96, 2, pages}}}, {2}));
  EXPECT_EQ(d.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(d.status().message().find("9999-12-31 03:00:00"), std::string::npos)
      << d.status().ToString();
}

// Logical type UNKNOWN (how arrow-rs writes Arrow's Null type): every value is null, whatever
// values and levels the pages hold; the field is nullable and typed by its physical type.
TEST(CraftedFiles, UnknownLogicalTypeReadsAsNulls) {
  LogicalType unknown;
  unknown.kind = LogicalType::UNKNOWN;
  SchemaElement opt = Leaf("n", Type::INT32, Repetition::OPTIONAL);
  opt.logical_type = unknown;
  SchemaElement req = Leaf("r", Type::INT32, Repetition::REQUIRED);
  req.logical_type = unknown;
  SchemaElement str = Leaf("s", Type::BYTE_ARRAY, Repetition::OPTIONAL);
  str.logical_type = unknown;
  SchemaElement list = Group("l", 1, Repetition::OPTIONAL);
  list.converted_type = ConvertedType::LIST;
  SchemaElement elem = Leaf("element", Type::INT32, Repetition::OPTIONAL);
  elem.logical_type = unknown;
  // A writer that put values where a null column has none.
  std::string n_page =
      DataPageV1(3, Encoding::PLAIN, DefLevels({1, 0, 1}, 1) + PlainValues<int32_t>({0, 7}));
  std::string r_page = DataPageV1(3, Encoding::PLAIN, PlainValues<int32_t>({0, 0, 5}));
  std::string s_page =
      DataPageV1(3, Encoding::PLAIN, DefLevels({1, 1, 0}, 1) + PlainByteArrays({"a", "bc"}));
  // l: [x, x], NULL, [] with max definition level 3 (list, repeated, element).
  std::string l_levels =
      Prefixed(BitPackedRun({0, 1, 0, 0}, 1)) + Prefixed(BitPackedRun({3, 2, 0, 1}, 2));
  std::string l_page = DataPageV1(4, Encoding::PLAIN, l_levels + PlainValues<int32_t>({9}));
  std::string file =
      BuildFile({Root(4), opt, req, str, list, Group("list", 1, Repetition::REPEATED), elem},
                {{{{"n"}, Type::INT32, 3, n_page},
                  {{"r"}, Type::INT32, 3, r_page},
                  {{"s"}, Type::BYTE_ARRAY, 3, s_page},
                  {{"l", "list", "element"}, Type::INT32, 4, l_page}}},
                {3});
  auto reader = FileReader::Open(MemoryFile(file, "nulls.parquet"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const Schema& schema = (*reader)->schema().schema;
  EXPECT_EQ(schema.ToString(), "n INT32, r INT32, s BLOB, l ARRAY<INT32>");
  for (const Field& f : schema.fields) EXPECT_TRUE(f.nullable) << f.name;
  EXPECT_TRUE(schema.fields[3].type.element_field().nullable);
  auto b = (*reader)->ReadAll();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->num_rows, 3);
  for (int c = 0; c < 3; ++c) {
    const Column& col = b->columns[c];
    ASSERT_EQ(col.length, 3) << c;
    EXPECT_EQ(col.null_count(), 3) << schema.fields[c].name;
  }
  EXPECT_EQ(b->columns[2].data.size(), 0u);
  EXPECT_EQ(b->columns[2].offsets, (std::vector<int64_t>{0, 0, 0, 0}));
  // The list structure stays; its elements are null.
  const Column& l = b->columns[3];
  EXPECT_TRUE(l.IsValid(0));
  EXPECT_FALSE(l.IsValid(1));
  EXPECT_TRUE(l.IsValid(2));
  EXPECT_EQ(l.offsets, (std::vector<int64_t>{0, 2, 2, 2}));
  ASSERT_EQ(l.child->length, 2);
  EXPECT_EQ(l.child->null_count(), 2);
}

// A chunk of a row group without rows has no pages; writers leave its offsets at 0. The file
// opens and reads (it used to be "corrupt" even for `tarn parquet schema`).
TEST(CraftedFiles, ZeroRowChunkAtOffsetZero) {
  std::string page =
      DataPageV1(2, Encoding::PLAIN, DefLevels({1, 1}, 1) + PlainValues<int64_t>({10, 20}));
  FileMetaData md;
  md.version = 1;
  md.schema = {Root(1), Leaf("x", Type::INT64, Repetition::OPTIONAL)};
  auto group = [](int64_t rows, int64_t offset, int64_t size, int64_t values) {
    RowGroup rg;
    rg.num_rows = rows;
    ColumnChunk cc;
    ColumnMetaData m;
    m.type = Type::INT64;
    m.encodings = {Encoding::PLAIN, Encoding::RLE};
    m.path_in_schema = {"x"};
    m.num_values = values;
    m.total_compressed_size = m.total_uncompressed_size = size;
    m.data_page_offset = offset;
    cc.meta_data = m;
    rg.columns.push_back(cc);
    return rg;
  };
  auto build = [&](const FileMetaData& meta) {
    std::string footer = EncodeMetaData(meta);
    uint32_t n = static_cast<uint32_t>(footer.size());
    return "PAR1" + page + footer + std::string(reinterpret_cast<const char*>(&n), 4) + "PAR1";
  };
  md.num_rows = 2;
  md.row_groups = {group(0, 0, 0, 0), group(2, 4, static_cast<int64_t>(page.size()), 2),
                   group(0, 0, 0, 0)};
  auto reader = FileReader::Open(MemoryFile(build(md), "empty_chunks.parquet"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->num_rows, 2);
  EXPECT_EQ(all->columns[0].length, 2);
  EXPECT_EQ(all->columns[0].Value<int64_t>(1), 20);
  auto none = (*reader)->ReadRowGroup(0);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->num_rows, 0);
  EXPECT_EQ(none->columns[0].length, 0);

  // Only row groups without rows: an empty file.
  md.num_rows = 0;
  md.row_groups = {group(0, 0, 0, 0)};
  auto empty = ReadBytesAll(build(md));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->num_rows, 0);

  // A chunk that claims values, or a row group that claims rows, still needs its pages.
  md.row_groups = {group(0, 0, 0, 1)};
  EXPECT_EQ(OpenAndReadKind(build(md)), ErrorKind::kCorruption);
  md.num_rows = 1;
  md.row_groups = {group(1, 0, 0, 0)};
  EXPECT_EQ(OpenAndReadKind(build(md)), ErrorKind::kCorruption);
}

TEST(CraftedFiles, LegacyTwoLevelListAndBareRepeated) {
  SchemaElement list = Group("l", 1, Repetition::OPTIONAL);
  list.converted_type = ConvertedType::LIST;
  // Rows: [1, 2], NULL, [], [3].
  std::string levels =
      Prefixed(BitPackedRun({0, 1, 0, 0, 0}, 1)) + Prefixed(BitPackedRun({2, 2, 0, 1, 2}, 2));
  std::string page = DataPageV1(5, Encoding::PLAIN, levels + PlainValues<int32_t>({1, 2, 3}));
  // Bare repeated: [5, 6], [], [7], [] (max def 1, max rep 1).
  std::string bare_levels =
      Prefixed(BitPackedRun({0, 1, 0, 0, 0}, 1)) + Prefixed(BitPackedRun({1, 1, 0, 1, 0}, 1));
  std::string bare = DataPageV1(5, Encoding::PLAIN, bare_levels + PlainValues<int64_t>({5, 6, 7}));
  std::string file =
      BuildFile({Root(2), list, Leaf("element", Type::INT32, Repetition::REPEATED),
                 Leaf("r", Type::INT64, Repetition::REPEATED)},
                {{{{"l", "element"}, Type::INT32, 5, page}, {{"r"}, Type::INT64, 5, bare}}}, {4});
  auto b = ReadBytesAll(file);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(Render(b->columns[0], 0).dump(), "[1,2]");
  EXPECT_EQ(Render(b->columns[0], 1).dump(), "null");
  EXPECT_EQ(Render(b->columns[0], 2).dump(), "[]");
  EXPECT_EQ(Render(b->columns[0], 3).dump(), "[3]");
  EXPECT_EQ(Render(b->columns[1], 0).dump(), "[\"5\",\"6\"]");
  EXPECT_EQ(Render(b->columns[1], 1).dump(), "[]");
  EXPECT_EQ(Render(b->columns[1], 2).dump(), "[\"7\"]");
  EXPECT_EQ(Render(b->columns[1], 3).dump(), "[]");
  EXPECT_TRUE(b->columns[1].validity.empty());
  ExpectWellFormed(b->columns[0], "l");
  ExpectWellFormed(b->columns[1], "r");
}

TEST(CraftedFiles, LegacyBitPackedLevels) {
  // Definition levels 1,0,1,1 MSB-first at width 1: 1011 0000.
  std::string body = std::string(1, static_cast<char>(0xB0)) + PlainValues<int32_t>({7, 8, 9});
  std::string page = DataPageV1(4, Encoding::PLAIN, body, Encoding::BIT_PACKED);
  std::string file = BuildFile({Root(1), Leaf("x", Type::INT32, Repetition::OPTIONAL)},
                               {{{{"x"}, Type::INT32, 4, page}}}, {4});
  auto b = ReadBytesAll(file);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(Render(b->columns[0], 0), 7);
  EXPECT_EQ(Render(b->columns[0], 1), nullptr);
  EXPECT_EQ(Render(b->columns[0], 2), 8);
  EXPECT_EQ(Render(b->columns[0], 3), 9);
}

TEST(CraftedFiles, DecimalsOnByteArraysAndDeltaByteArrayFixed) {
  SchemaElement bdec = Leaf("bdec", Type::BYTE_ARRAY, Repetition::REQUIRED);
  bdec.converted_type = ConvertedType::DECIMAL;
  bdec.precision = 30;
  bdec.scale = 2;
  std::string bpage = DataPageV1(
      3, Encoding::PLAIN, PlainByteArrays({std::string("\x01\x00", 2), "\xff", std::string()}));
  SchemaElement fdec = Leaf("fdec", Type::FIXED_LEN_BYTE_ARRAY, Repetition::REQUIRED);
  fdec.type_length = 4;
  fdec.converted_type = ConvertedType::DECIMAL;
  fdec.precision = 9;
  fdec.scale = 0;
  // DELTA_BYTE_ARRAY over FIXED_LEN_BYTE_ARRAY(4): 00000001, 00000102, FFFFFFFE.
  std::string dba = ToString(EncodeDbp<int32_t>({0, 2, 0})) +
                    ToString(EncodeDbp<int32_t>({4, 2, 4})) +
                    std::string("\x00\x00\x00\x01\x01\x02\xff\xff\xff\xfe", 10);
  std::string fpage = DataPageV1(3, Encoding::DELTA_BYTE_ARRAY, dba);
  std::string file = BuildFile(
      {Root(2), bdec, fdec},
      {{{{"bdec"}, Type::BYTE_ARRAY, 3, bpage}, {{"fdec"}, Type::FIXED_LEN_BYTE_ARRAY, 3, fpage}}},
      {3});
  auto b = ReadBytesAll(file);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->columns[0].type.ToString(), "DECIMAL(30,2)");
  EXPECT_EQ(b->columns[0].Value<int128>(0), 256);
  EXPECT_EQ(b->columns[0].Value<int128>(1), -1);
  EXPECT_EQ(b->columns[0].Value<int128>(2), 0);
  EXPECT_EQ(b->columns[1].Value<int128>(0), 1);
  EXPECT_EQ(b->columns[1].Value<int128>(1), 258);
  EXPECT_EQ(b->columns[1].Value<int128>(2), -2);

  // A 17-byte BYTE_ARRAY decimal does not fit.
  std::string bad = DataPageV1(1, Encoding::PLAIN, PlainByteArrays({std::string(17, '\x01')}));
  auto e = ReadBytesAll(BuildFile({Root(1), bdec}, {{{{"bdec"}, Type::BYTE_ARRAY, 1, bad}}}, {1}));
  EXPECT_EQ(e.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(e.status().message().find("128 bits"), std::string::npos) << e.status().ToString();
}

TEST(CraftedFiles, Float16TimesAndUnits) {
  SchemaElement half = Leaf("h", Type::FIXED_LEN_BYTE_ARRAY, Repetition::REQUIRED);
  half.type_length = 2;
  LogicalType f16;
  f16.kind = LogicalType::FLOAT16;
  half.logical_type = f16;
  std::string hpage =
      DataPageV1(4, Encoding::PLAIN, PlainValues<uint16_t>({0x3C00, 0xC000, 0x7C00, 0x0001}));
  SchemaElement tms = Leaf("tms", Type::INT32, Repetition::REQUIRED);
  tms.converted_type = ConvertedType::TIME_MILLIS;
  std::string tpage =
      DataPageV1(4, Encoding::PLAIN, PlainValues<int32_t>({0, 1, 3723004, 86399999}));
  SchemaElement tns = Leaf("tns", Type::INT64, Repetition::REQUIRED);
  LogicalType nanos;
  nanos.kind = LogicalType::TIME;
  nanos.unit = TimeUnitKind::NANOS;
  tns.logical_type = nanos;
  std::string npage =
      DataPageV1(4, Encoding::PLAIN, PlainValues<int64_t>({0, 999, 1000, 86399999999999}));
  std::string file = BuildFile({Root(3), half, tms, tns},
                               {{{{"h"}, Type::FIXED_LEN_BYTE_ARRAY, 4, hpage},
                                 {{"tms"}, Type::INT32, 4, tpage},
                                 {{"tns"}, Type::INT64, 4, npage}}},
                               {4});
  auto b = ReadBytesAll(file);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->columns[0].Value<float>(0), 1.0f);
  EXPECT_EQ(b->columns[0].Value<float>(1), -2.0f);
  EXPECT_EQ(b->columns[0].Value<float>(2), INFINITY);
  EXPECT_EQ(b->columns[0].Value<float>(3), std::ldexp(1.0f, -24));
  EXPECT_EQ(b->columns[1].Value<int64_t>(1), 1000);
  EXPECT_EQ(b->columns[1].Value<int64_t>(2), 3723004000);
  EXPECT_EQ(b->columns[1].Value<int64_t>(3), 86399999000);
  // TIME(NANOS) reads as TIME[ns], value for value (it was cut to microseconds).
  EXPECT_EQ(b->columns[2].type.ToString(), "TIME[ns]");
  EXPECT_EQ(b->columns[2].Value<int64_t>(1), 999);
  EXPECT_EQ(b->columns[2].Value<int64_t>(2), 1000);
  EXPECT_EQ(b->columns[2].Value<int64_t>(3), 86399999999999);
  EXPECT_EQ(ValueText(b->columns[2], 3), "23:59:59.999999999");
}

TEST(CraftedFiles, TarnSchemaRestoresSecondsAndIpv4) {
  SchemaElement ts = Leaf("ts", Type::INT64, Repetition::REQUIRED);
  LogicalType millis;
  millis.kind = LogicalType::TIMESTAMP;
  millis.unit = TimeUnitKind::MILLIS;
  ts.logical_type = millis;
  SchemaElement ip = Leaf("ip", Type::INT32, Repetition::OPTIONAL);
  LogicalType u32;
  u32.kind = LogicalType::INTEGER;
  u32.bit_width = 32;
  u32.is_signed = false;
  ip.logical_type = u32;
  std::string tpage = DataPageV1(2, Encoding::PLAIN, PlainValues<int64_t>({1500000, -3000}));
  std::string ipage = DataPageV1(
      2, Encoding::PLAIN, DefLevels({1, 1}, 1) + PlainValues<uint32_t>({0xC0A80001, 0x7F000001}));
  std::string file = BuildFile(
      {Root(2), ts, ip}, {{{{"ts"}, Type::INT64, 2, tpage}, {{"ip"}, Type::INT32, 2, ipage}}}, {2},
      {{kTarnSchemaKey, std::string("ts TIMESTAMP[s] NOT NULL, ip IPV4")}});
  auto b = ReadBytesAll(file);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->columns[0].type.ToString(), "TIMESTAMP[s]");
  EXPECT_EQ(b->columns[0].Value<int64_t>(0), 1500);
  EXPECT_EQ(b->columns[0].Value<int64_t>(1), -3);
  EXPECT_EQ(b->columns[1].type.ToString(), "IPV4");
  EXPECT_EQ(b->columns[1].Value<uint32_t>(0), 0xC0A80001u);
}

TEST(CraftedFiles, DictionaryThenPlainFallbackAcrossPages) {
  std::string dict = DictionaryPage(3, PlainByteArrays({"red", "green", "blue"}));
  // Page 1: dictionary indices (bit width 2) for rows 0..4 with a null at row 2.
  std::string idx = std::string(1, '\x02') + BitPackedRun({2, 0, 1, 1}, 2);
  std::string p1 = DataPageV1(5, Encoding::RLE_DICTIONARY, DefLevels({1, 1, 0, 1, 1}, 1) + idx);
  // Page 2: PLAIN (dictionary fallback) for rows 5..6.
  std::string p2 =
      DataPageV1(2, Encoding::PLAIN, DefLevels({1, 1}, 1) + PlainByteArrays({"violet", ""}));
  std::string file = BuildFile({Root(1), Leaf("c", Type::BYTE_ARRAY, Repetition::OPTIONAL)},
                               {{{{"c"}, Type::BYTE_ARRAY, 7, dict + p1 + p2}}}, {7});
  auto b = ReadBytesAll(file);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::vector<json> got;
  for (int i = 0; i < 7; ++i) got.push_back(Render(b->columns[0], i));
  EXPECT_EQ(json(got).dump(), "[\"blue\",\"red\",null,\"green\",\"green\",\"violet\",\"\"]");
}

TEST(CraftedFiles, DictionaryIndexOutOfRangeNamesEverything) {
  std::string dict = DictionaryPage(2, PlainValues<int64_t>({10, 20}));
  std::string ok = DataPageV1(1, Encoding::RLE_DICTIONARY, std::string(1, '\x02') + RleRun(1, 1));
  std::string bad = DataPageV1(1, Encoding::RLE_DICTIONARY, std::string(1, '\x02') + RleRun(1, 3));
  std::string file = BuildFile({Root(1), Leaf("v", Type::INT64, Repetition::REQUIRED)},
                               {{{{"v"}, Type::INT64, 2, dict + ok + bad}}}, {2});
  auto b = ReadBytesAll(file);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().kind(), ErrorKind::kCorruption);
  const std::string& m = b.status().message();
  EXPECT_NE(m.find("crafted.parquet"), std::string::npos) << m;
  EXPECT_NE(m.find("row group 0"), std::string::npos) << m;
  EXPECT_NE(m.find("column 'v'"), std::string::npos) << m;
  EXPECT_NE(m.find("page 2"), std::string::npos) << m;
  EXPECT_NE(m.find("dictionary index 3 out of range"), std::string::npos) << m;
}

TEST(CraftedFiles, DataPageV2UncompressedSectionWithRleBooleans) {
  // Levels are never compressed; is_compressed=false leaves the values raw despite the codec.
  std::string def = RleRun(1, 1) + RleRun(1, 0) + RleRun(2, 1);
  std::string values = Prefixed(BitPackedRun({1, 0, 1}, 1));
  PageHeader h;
  h.type = PageType::DATA_PAGE_V2;
  h.uncompressed_page_size = h.compressed_page_size =
      static_cast<int32_t>(def.size() + values.size());
  DataPageHeaderV2 v2;
  v2.num_values = 4;
  v2.num_nulls = 1;
  v2.num_rows = 4;
  v2.encoding = Encoding::RLE;
  v2.definition_levels_byte_length = static_cast<int32_t>(def.size());
  v2.repetition_levels_byte_length = 0;
  v2.is_compressed = false;
  h.data_page_header_v2 = v2;
  ChunkSpec chunk{{"b"}, Type::BOOLEAN, 4, EncodePage(h, def + values), Codec::SNAPPY};
  std::string file =
      BuildFile({Root(1), Leaf("b", Type::BOOLEAN, Repetition::OPTIONAL)}, {{chunk}}, {4});
  auto b = ReadBytesAll(file);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(Render(b->columns[0], 0), true);
  EXPECT_EQ(Render(b->columns[0], 1), nullptr);
  EXPECT_EQ(Render(b->columns[0], 2), false);
  EXPECT_EQ(Render(b->columns[0], 3), true);
}

TEST(CraftedFiles, HadoopFramedLz4Pages) {
  // Parquet's deprecated LZ4 codec (5) is LZ4 blocks in Hadoop framing.
  std::string raw = DefLevels({1, 0, 1}, 1) + PlainValues<int64_t>({-7, 1LL << 40});
  ByteBuffer compressed;
  ASSERT_TRUE(Compress(CompressionCodec::kLz4Hadoop, reinterpret_cast<const uint8_t*>(raw.data()),
                       raw.size(), &compressed)
                  .ok());
  PageHeader h;
  h.type = PageType::DATA_PAGE;
  h.uncompressed_page_size = static_cast<int32_t>(raw.size());
  h.compressed_page_size = static_cast<int32_t>(compressed.size());
  DataPageHeader d;
  d.num_values = 3;
  d.encoding = Encoding::PLAIN;
  h.data_page_header = d;
  ChunkSpec chunk{{"x"},
                  Type::INT64,
                  3,
                  EncodePage(h, std::string(compressed.begin(), compressed.end())),
                  Codec::LZ4};
  auto b = ReadBytesAll(
      BuildFile({Root(1), Leaf("x", Type::INT64, Repetition::OPTIONAL)}, {{chunk}}, {3}));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->columns[0].Value<int64_t>(0), -7);
  EXPECT_FALSE(b->columns[0].IsValid(1));
  EXPECT_EQ(b->columns[0].Value<int64_t>(2), 1LL << 40);
  // LZO is refused by name.
  chunk.codec = Codec::LZO;
  auto lzo = ReadBytesAll(
      BuildFile({Root(1), Leaf("x", Type::INT64, Repetition::OPTIONAL)}, {{chunk}}, {3}));
  EXPECT_EQ(lzo.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(lzo.status().message().find("LZO"), std::string::npos);
}

TEST(CraftedFiles, DeltaLengthStringsAndByteStreamSplitDoublesWithNulls) {
  std::string s =
      DataPageV1(3, Encoding::DELTA_LENGTH_BYTE_ARRAY,
                 DefLevels({1, 0, 1}, 1) + ToString(EncodeDbp<int32_t>({2, 3})) + "abxyz");
  std::vector<double> d = {1.5, -0.25};
  std::string bss(16, '\0');
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 8; ++k) bss[k * 2 + i] = reinterpret_cast<const char*>(&d[i])[k];
  }
  std::string dp = DataPageV1(3, Encoding::BYTE_STREAM_SPLIT, DefLevels({0, 1, 1}, 1) + bss);
  std::string file =
      BuildFile({Root(2), Leaf("s", Type::BYTE_ARRAY, Repetition::OPTIONAL),
                 Leaf("d", Type::DOUBLE, Repetition::OPTIONAL)},
                {{{{"s"}, Type::BYTE_ARRAY, 3, s}, {{"d"}, Type::DOUBLE, 3, dp}}}, {3});
  auto b = ReadBytesAll(file);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(Render(b->columns[0], 0), "ab");
  EXPECT_EQ(Render(b->columns[0], 1), nullptr);
  EXPECT_EQ(Render(b->columns[0], 2), "xyz");
  EXPECT_EQ(Render(b->columns[1], 0), nullptr);
  EXPECT_EQ(b->columns[1].Value<double>(1), 1.5);
  EXPECT_EQ(b->columns[1].Value<double>(2), -0.25);
}

TEST(CraftedFiles, UnsupportedFieldsAndEmptyFiles) {
  SchemaElement map = Group("m", 1, Repetition::OPTIONAL);
  map.converted_type = ConvertedType::MAP;
  // A MAP whose entries have keys only (a set): tarn has no type for it.
  std::vector<SchemaElement> schema = {Root(2), Leaf("a", Type::INT32, Repetition::REQUIRED), map,
                                       Group("key_value", 1, Repetition::REPEATED),
                                       Leaf("key", Type::INT32, Repetition::REQUIRED)};
  std::string file = BuildFile(schema, {}, {});
  auto reader = FileReader::Open(MemoryFile(file, "map.parquet"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  EXPECT_EQ(all.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(all.status().message().find("keys without values"), std::string::npos)
      << all.status().ToString();
  EXPECT_EQ((*reader)->ReadAll({1}).status().kind(), ErrorKind::kInvalidArgument);
  auto only_a = (*reader)->ReadAll({0});
  ASSERT_TRUE(only_a.ok());
  EXPECT_EQ(only_a->num_rows, 0);
  EXPECT_EQ(only_a->columns[0].length, 0);
  ReaderOptions skip;
  skip.skip_unsupported = true;
  auto skipping = FileReader::Open(MemoryFile(file, "map.parquet"), skip);
  ASSERT_TRUE(skipping.ok());
  auto b = (*skipping)->ReadAll();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->schema.fields.size(), 1u);
}

// ---- malformed files -----------------------------------------------------------------------

std::string SmallValidFile() {
  std::string page =
      DataPageV1(3, Encoding::PLAIN, DefLevels({1, 0, 1}, 1) + PlainValues<int64_t>({4, 5}));
  return BuildFile({Root(1), Leaf("x", Type::INT64, Repetition::OPTIONAL)},
                   {{{{"x"}, Type::INT64, 3, page}}}, {3});
}

ErrorKind OpenAndReadKind(const std::string& bytes) {
  auto reader = FileReader::Open(MemoryFile(bytes, "bad.parquet"));
  if (!reader.ok()) return reader.status().kind();
  auto b = (*reader)->ReadAll();
  return b.ok() ? ErrorKind::kOk : b.status().kind();
}

TEST(MalformedFiles, MagicAndFooterLength) {
  std::string good = SmallValidFile();
  ASSERT_EQ(OpenAndReadKind(good), ErrorKind::kOk);
  EXPECT_EQ(OpenAndReadKind(""), ErrorKind::kCorruption);
  EXPECT_EQ(OpenAndReadKind("PAR1PAR1"), ErrorKind::kCorruption);
  std::string bad_tail = good;
  bad_tail[bad_tail.size() - 1] = 'X';
  EXPECT_EQ(OpenAndReadKind(bad_tail), ErrorKind::kCorruption);
  std::string bad_head = good;
  bad_head[0] = 'X';
  EXPECT_EQ(OpenAndReadKind(bad_head), ErrorKind::kCorruption);
  std::string encrypted = good;
  encrypted.replace(encrypted.size() - 4, 4, "PARE");
  auto enc = FileReader::Open(MemoryFile(encrypted, "enc.parquet"));
  EXPECT_EQ(enc.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(enc.status().message().find("encrypted Parquet files are not supported"),
            std::string::npos);
  std::string long_footer = good;
  uint32_t huge = 0x7fffffff;
  std::memcpy(long_footer.data() + long_footer.size() - 8, &huge, 4);
  auto lf = FileReader::Open(MemoryFile(long_footer, "lf.parquet"));
  EXPECT_EQ(lf.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(lf.status().message().find("lf.parquet"), std::string::npos);
  // A large file whose start is not PAR1 (only Open's extra read sees it).
  std::string big(100000, '\0');
  big += good.substr(4);
  EXPECT_EQ(OpenAndReadKind(big), ErrorKind::kCorruption);
}

TEST(MalformedFiles, ChunkOutsideTheFileAndSchemaMismatch) {
  std::string page = DataPageV1(1, Encoding::PLAIN, PlainValues<int32_t>({1}));
  std::vector<SchemaElement> schema = {Root(1), Leaf("x", Type::INT32, Repetition::REQUIRED)};
  FileMetaData md;
  md.version = 1;
  md.schema = schema;
  md.num_rows = 1;
  RowGroup rg;
  rg.num_rows = 1;
  ColumnChunk cc;
  ColumnMetaData m;
  m.type = Type::INT32;
  m.path_in_schema = {"x"};
  m.num_values = 1;
  m.total_compressed_size = 1000000;
  m.data_page_offset = 4;
  cc.meta_data = m;
  rg.columns.push_back(cc);
  md.row_groups.push_back(rg);
  auto build = [&](const FileMetaData& meta) {
    std::string footer = EncodeMetaData(meta);
    uint32_t n = static_cast<uint32_t>(footer.size());
    return "PAR1" + page + footer + std::string(reinterpret_cast<const char*>(&n), 4) + "PAR1";
  };
  auto r = FileReader::Open(MemoryFile(build(md), "f"));
  EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(r.status().message().find("outside the file"), std::string::npos);
  md.row_groups[0].columns[0].meta_data->total_compressed_size = static_cast<int64_t>(page.size());
  EXPECT_TRUE(FileReader::Open(MemoryFile(build(md), "f")).ok());
  md.row_groups[0].columns[0].meta_data->data_page_offset = -5;
  EXPECT_EQ(FileReader::Open(MemoryFile(build(md), "f")).status().kind(), ErrorKind::kCorruption);
  md.row_groups[0].columns[0].meta_data->data_page_offset = 4;
  md.row_groups[0].columns[0].meta_data->type = Type::INT64;
  EXPECT_EQ(FileReader::Open(MemoryFile(build(md), "f")).status().kind(), ErrorKind::kCorruption);
  md.row_groups[0].columns[0].meta_data->type = Type::INT32;
  md.row_groups[0].columns.push_back(md.row_groups[0].columns[0]);
  EXPECT_EQ(FileReader::Open(MemoryFile(build(md), "f")).status().kind(), ErrorKind::kCorruption);
  md.row_groups[0].columns.pop_back();
  md.schema[0].num_children = 3;  // tree inconsistent with the element count
  EXPECT_EQ(FileReader::Open(MemoryFile(build(md), "f")).status().kind(), ErrorKind::kCorruption);
}

TEST(MalformedFiles, PageLevelCorruption) {
  auto single = [](const std::string& page, int64_t values, int64_t rows,
                   Repetition rep = Repetition::OPTIONAL) {
    return OpenAndReadKind(BuildFile({Root(1), Leaf("x", Type::INT32, rep)},
                                     {{{{"x"}, Type::INT32, values, page}}}, {rows}));
  };
  // Levels above the maximum.
  EXPECT_EQ(
      single(DataPageV1(2, Encoding::PLAIN, Prefixed(RleRun(2, 3)) + PlainValues<int32_t>({1})), 2,
             2),
      ErrorKind::kCorruption);
  // More values in the page than in the chunk.
  EXPECT_EQ(
      single(DataPageV1(5, Encoding::PLAIN, DefLevels({1, 1}, 1) + PlainValues<int32_t>({1, 2})), 2,
             2),
      ErrorKind::kCorruption);
  // Values missing.
  EXPECT_EQ(single(DataPageV1(2, Encoding::PLAIN, DefLevels({1, 1}, 1) + PlainValues<int32_t>({1})),
                   2, 2),
            ErrorKind::kCorruption);
  // Rows disagree with the row group.
  EXPECT_EQ(
      single(DataPageV1(2, Encoding::PLAIN, DefLevels({1, 1}, 1) + PlainValues<int32_t>({1, 2})), 2,
             3),
      ErrorKind::kCorruption);
  // The chunk ends before num_values.
  EXPECT_EQ(
      single(DataPageV1(2, Encoding::PLAIN, DefLevels({1, 1}, 1) + PlainValues<int32_t>({1, 2})), 4,
             4),
      ErrorKind::kCorruption);
  // Dictionary-encoded page without a dictionary; unknown encoding; bad index bit width.
  EXPECT_EQ(single(DataPageV1(1, Encoding::RLE_DICTIONARY, "\x01\x02\x00", Encoding::RLE), 1, 1,
                   Repetition::REQUIRED),
            ErrorKind::kCorruption);
  EXPECT_EQ(single(DataPageV1(1, static_cast<Encoding>(42), PlainValues<int32_t>({1})), 1, 1,
                   Repetition::REQUIRED),
            ErrorKind::kCorruption);
  // A page whose compressed size runs past the chunk.
  std::string page = DataPageV1(1, Encoding::PLAIN, PlainValues<int32_t>({1}));
  EXPECT_EQ(single(page.substr(0, page.size() - 1), 1, 1, Repetition::REQUIRED),
            ErrorKind::kCorruption);
  // A repetition level continuing a list that is not open.
  SchemaElement list = Group("l", 1, Repetition::OPTIONAL);
  list.converted_type = ConvertedType::LIST;
  std::string levels = Prefixed(BitPackedRun({1, 0}, 1)) + Prefixed(BitPackedRun({2, 2}, 2));
  std::string lp = DataPageV1(2, Encoding::PLAIN, levels + PlainValues<int32_t>({1, 2}));
  EXPECT_EQ(OpenAndReadKind(BuildFile({Root(1), list, Leaf("e", Type::INT32, Repetition::REPEATED)},
                                      {{{{"l", "e"}, Type::INT32, 2, lp}}}, {1})),
            ErrorKind::kCorruption);
}

TEST(MalformedFiles, EveryTruncationFailsCleanly) {
  std::string good = SmallValidFile();
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_NE(OpenAndReadKind(good.substr(0, n)), ErrorKind::kOk) << n;
  }
  // Cutting bytes out of the middle of a DuckDB file.
  std::string duck = ReadBytes(kDataDir + "lists_v2.parquet");
  ASSERT_FALSE(duck.empty());
  for (size_t at = 0; at < duck.size(); at += 7) {
    std::string cut = duck.substr(0, at) + duck.substr(std::min(duck.size(), at + 5));
    ErrorKind k = OpenAndReadKind(cut);
    EXPECT_TRUE(k == ErrorKind::kCorruption || k == ErrorKind::kInvalidArgument ||
                k == ErrorKind::kTooLarge || k == ErrorKind::kOk)
        << at;
  }
}

TEST(MalformedFiles, RandomByteFlipsNeverCrash) {
  std::mt19937 rng(1234);
  for (const char* name : {"types_v2", "codec_snappy_v1", "lists_v1", "codec_zstd_v2"}) {
    std::string base = ReadBytes(kDataDir + std::string(name) + ".parquet");
    ASSERT_FALSE(base.empty());
    for (int trial = 0; trial < 150; ++trial) {
      std::string bytes = base;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        // Bias towards the footer and page headers, where structure lives.
        size_t at = rng() % 3 == 0 ? bytes.size() - 1 - rng() % std::min<size_t>(bytes.size(), 400)
                                   : rng() % bytes.size();
        bytes[at] = static_cast<char>(rng());
      }
      ReaderOptions options;
      options.threads = 1;
      auto reader = FileReader::Open(MemoryFile(bytes, "flipped"), options);
      if (!reader.ok()) continue;
      auto b = (*reader)->ReadAll();
      if (b.ok()) {
        for (size_t k = 0; k < b->columns.size(); ++k) {
          ASSERT_EQ(b->columns[k].length, b->num_rows);
        }
      }
    }
  }
}

TEST(MalformedFiles, NestedLevelCorruption) {
  // s STRUCT<a INT32, b LIST<INT32>>: the leaves must agree on the struct's rows.
  SchemaElement list = Group("b", 1, Repetition::OPTIONAL);
  list.converted_type = ConvertedType::LIST;
  std::vector<SchemaElement> schema = {Root(1),
                                       Group("s", 2, Repetition::OPTIONAL),
                                       Leaf("a", Type::INT32, Repetition::OPTIONAL),
                                       list,
                                       Group("list", 1, Repetition::REPEATED),
                                       Leaf("element", Type::INT32, Repetition::OPTIONAL)};
  auto read = [&](const std::string& a_page, int64_t a_values, const std::string& b_page,
                  int64_t b_values, int64_t rows) {
    std::string file = BuildFile(schema,
                                 {{{{"s", "a"}, Type::INT32, a_values, a_page},
                                   {{"s", "b", "list", "element"}, Type::INT32, b_values, b_page}}},
                                 {rows});
    auto reader = FileReader::Open(MemoryFile(file, "nested.parquet"));
    if (!reader.ok()) return reader.status();
    auto b = (*reader)->ReadAll();
    if (b.ok()) {
      ExpectWellFormed(b->columns[0], "s");
      return Status::OK();
    }
    return b.status();
  };
  // Rows: {a: 1, b: [5, null]}, null, {a: null, b: []}, {a: 2, b: null}.
  std::string a_good =
      DataPageV1(4, Encoding::PLAIN, DefLevels({2, 0, 1, 2}, 2) + PlainValues<int32_t>({1, 2}));
  std::string b_levels =
      Prefixed(BitPackedRun({0, 1, 0, 0, 0}, 1)) + Prefixed(BitPackedRun({4, 3, 0, 2, 1}, 3));
  std::string b_good = DataPageV1(5, Encoding::PLAIN, b_levels + PlainValues<int32_t>({5}));
  Status ok = read(a_good, 4, b_good, 5, 4);
  ASSERT_TRUE(ok.ok()) << ok.ToString();

  // The list leaf holds a row fewer than the row group.
  std::string b_short_levels =
      Prefixed(BitPackedRun({0, 1, 0, 0}, 1)) + Prefixed(BitPackedRun({4, 3, 0, 2}, 3));
  Status st = read(
      a_good, 4, DataPageV1(4, Encoding::PLAIN, b_short_levels + PlainValues<int32_t>({5})), 4, 4);
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("rows, expected 4"), std::string::npos) << st.ToString();

  // A continuation (rep 1) whose definition level says the list itself is missing.
  std::string b_bad_def =
      Prefixed(BitPackedRun({0, 1, 0, 0, 0}, 1)) + Prefixed(BitPackedRun({4, 1, 0, 2, 1}, 3));
  st = read(a_good, 4, DataPageV1(5, Encoding::PLAIN, b_bad_def + PlainValues<int32_t>({5})), 5, 4);
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("below the list it continues"), std::string::npos) << st.ToString();

  // A repetition level opening nothing: the first entry continues a list.
  std::string b_bad_rep =
      Prefixed(BitPackedRun({1, 1, 0, 0, 0}, 1)) + Prefixed(BitPackedRun({4, 3, 0, 2, 1}, 3));
  st = read(a_good, 4, DataPageV1(5, Encoding::PLAIN, b_bad_rep + PlainValues<int32_t>({5})), 5, 4);
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();
}

TEST(MalformedFiles, LeavesThatDisagreeOnAMapAreCorruption) {
  // m MAP<INT32, INT32>: the key leaf has 3 entries in its row, the value leaf 2.
  SchemaElement map = Group("m", 1, Repetition::OPTIONAL);
  map.converted_type = ConvertedType::MAP;
  std::vector<SchemaElement> schema = {Root(1), map, Group("key_value", 2, Repetition::REPEATED),
                                       Leaf("key", Type::INT32, Repetition::REQUIRED),
                                       Leaf("value", Type::INT32, Repetition::OPTIONAL)};
  std::string keys =
      DataPageV1(3, Encoding::PLAIN,
                 Prefixed(BitPackedRun({0, 1, 1}, 1)) + Prefixed(BitPackedRun({2, 2, 2}, 2)) +
                     PlainValues<int32_t>({1, 2, 3}));
  std::string values =
      DataPageV1(2, Encoding::PLAIN,
                 Prefixed(BitPackedRun({0, 1}, 1)) + Prefixed(BitPackedRun({3, 3}, 2)) +
                     PlainValues<int32_t>({10, 20}));
  std::string file = BuildFile(schema,
                               {{{{"m", "key_value", "key"}, Type::INT32, 3, keys},
                                 {{"m", "key_value", "value"}, Type::INT32, 2, values}}},
                               {1});
  auto reader = FileReader::Open(MemoryFile(file, "map.parquet"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto b = (*reader)->ReadAll();
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(b.status().message().find("disagree"), std::string::npos) << b.status().ToString();
  EXPECT_NE(b.status().message().find("field 'm'"), std::string::npos) << b.status().ToString();
}

}  // namespace
}  // namespace tarn::parquet

// The CSV reader parses common spellings of dates, timestamps, decimals, floats and booleans
// through fast paths (formats/fast_parse.h); these tests hold them to exactly what the full
// parsers of types/value_text.h accept and produce, over many generated spellings, valid and not,
// both directly and through the reader.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "formats/fast_parse.h"
#include "formats/format.h"
#include "types/value_text.h"

namespace tarn::formats {
namespace {

// The full parser's verdict on one value, as the bytes of the column value (or nullopt).
using Parsed = std::optional<std::string>;

template <typename T>
Parsed Bytes(const Result<T>& r) {
  if (!r.ok()) return std::nullopt;
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &*r, sizeof(T));
  return out;
}

Parsed FullParse(const DataType& type, std::string_view s) {
  switch (type.id()) {
    case TypeId::kDate:
      return Bytes(ParseDate(s));
    case TypeId::kTimestamp:
      return Bytes(ParseTimestamp(s, type.unit()));
    case TypeId::kTimestampTz:
      return Bytes(ParseTimestampTz(s, type.unit()));
    case TypeId::kDecimal:
      return Bytes(ParseDecimal(s, type.precision(), type.scale()));
    case TypeId::kFloat64:
      return Bytes(ParseFloat64(s));
    case TypeId::kFloat32:
      return Bytes(ParseFloat32(s));
    case TypeId::kBoolean: {
      auto r = ParseBoolean(s);
      if (!r.ok()) return std::nullopt;
      return std::string(1, *r ? '\1' : '\0');
    }
    default:
      ADD_FAILURE() << "no full parser for " << type.ToString();
      return std::nullopt;
  }
}

// The fast path's verdict: the value's bytes, or nullopt when it leaves the text to the full
// parser.
template <typename T, typename F>
Parsed Fast(F fast) {
  T v{};
  if (!fast(&v)) return std::nullopt;
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

Parsed FastParse(const DataType& type, std::string_view s) {
  using namespace internal;  // NOLINT
  switch (type.id()) {
    case TypeId::kDate:
      return Fast<int32_t>([&](int32_t* v) { return FastParseDate(s, v); });
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return Fast<int64_t>([&](int64_t* v) {
        return FastParseTimestamp(s, type.unit(), type.id() == TypeId::kTimestampTz, v);
      });
    case TypeId::kDecimal:
      return Fast<int128>(
          [&](int128* v) { return FastParseDecimal(s, type.precision(), type.scale(), v); });
    case TypeId::kFloat64:
      return Fast<double>([&](double* v) { return FastParseFloat(s, v); });
    case TypeId::kFloat32:
      return Fast<float>([&](float* v) { return FastParseFloat(s, v); });
    case TypeId::kBoolean:
      return Fast<uint8_t>([&](uint8_t* v) { return FastParseBoolean(s, v); });
    default:
      ADD_FAILURE() << "no fast path for " << type.ToString();
      return std::nullopt;
  }
}

// Every value the fast path takes, the full parser takes too, with the same bytes. Returns how
// many the fast path took.
size_t ExpectFastAgrees(const DataType& type, const std::vector<std::string>& values) {
  size_t taken = 0;
  for (const std::string& v : values) {
    Parsed fast = FastParse(type, v);
    if (!fast) continue;
    ++taken;
    Parsed full = FullParse(type, v);
    EXPECT_TRUE(full.has_value()) << type.ToString() << ": the fast path takes '" << v
                                  << "', the full parser refuses it";
    if (full) {
      EXPECT_EQ(*fast, *full) << type.ToString() << ": '" << v << "'";
    }
  }
  return taken;
}

// Reads `values` (one per row) as a one-column CSV of `type`; each value that the full parser
// accepts must come out with the same bytes, and each one it refuses must fail the read.
// Returns how many values the fast path took.
size_t ExpectSameAsFullParser(const DataType& type, const std::vector<std::string>& values) {
  const size_t taken = ExpectFastAgrees(type, values);
  Schema schema;
  schema.fields.push_back(Field{"v", type});
  std::string good = "v\n";
  std::vector<std::string> expected;
  std::vector<std::string> refused;
  for (const std::string& v : values) {
    if (v.empty() || v == "null" || v == "NULL" ||
        v.find_first_of(",\"\r\n") != std::string::npos) {
      continue;  // nulls and CSV syntax are not what this tests
    }
    Parsed p = FullParse(type, v);
    if (p) {
      good += v + "\n";
      expected.push_back(*p);
    } else {
      refused.push_back(v);
    }
  }
  auto reader = OpenBatchReader(MemoryFile(good, "t.csv"), "t.csv", Format::kCsv, schema);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return taken;
  size_t row = 0;
  const size_t width = static_cast<size_t>(type.PhysicalWidth());
  while (true) {
    auto batch = (*reader)->Next();
    EXPECT_TRUE(batch.ok()) << type.ToString() << ": " << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    const Column& col = (*batch)->columns[0];
    for (int64_t r = 0; r < col.length; ++r, ++row) {
      if (row >= expected.size()) break;
      std::string got(reinterpret_cast<const char*>(col.data.data()) + r * width, width);
      EXPECT_EQ(got, expected[row]) << type.ToString() << " '" << ValueText(col, r) << "'";
    }
  }
  EXPECT_EQ(row, expected.size()) << type.ToString();
  // Each refusal needs a reader of its own: check an even spread of at most 25 of them.
  const size_t step = refused.size() / 25 + 1;
  for (size_t i = 0; i < refused.size(); i += step) {
    const std::string& v = refused[i];
    auto r = OpenBatchReader(MemoryFile("v\n" + v + "\n", "t.csv"), "t.csv", Format::kCsv, schema);
    EXPECT_TRUE(r.ok());
    if (!r.ok()) continue;
    auto batch = (*r)->Next();
    EXPECT_FALSE(batch.ok()) << type.ToString() << " accepted '" << v << "'";
  }
  return taken;
}

class Gen {
 public:
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool OneIn(int n) { return Int(1, n) == 1; }
  std::string Digits(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>('0' + Int(0, 9)));
    return s;
  }
  std::string Padded(int v, int width) {
    std::string s = std::to_string(v);
    while (static_cast<int>(s.size()) < width) s.insert(s.begin(), '0');
    return s;
  }
  std::string Date() {
    int year = OneIn(20) ? Int(0, 99999) : Int(1, 9999);
    std::string s = (OneIn(30) ? "-" : "") + Padded(year, OneIn(10) ? Int(1, 5) : 4) +
                    (OneIn(30) ? "/" : "-") + Padded(OneIn(10) ? Int(0, 13) : Int(1, 12), 2) + "-" +
                    Padded(OneIn(5) ? Int(0, 32) : Int(1, 28), OneIn(20) ? 1 : 2);
    if (OneIn(40)) s += " ";
    if (OneIn(40)) s.insert(s.begin(), ' ');
    return s;
  }
  std::string Timestamp() {
    static const char* kSeps[] = {"T", " ", "t", "x", "T"};
    static const char* kZones[] = {"", "Z", "z", " Z", "+01:00", "-0530", "+1", "Z ", "", ""};
    std::string s = Date() + kSeps[Int(0, 4)] + Padded(Int(0, OneIn(10) ? 25 : 23), 2) + ":" +
                    Padded(Int(0, OneIn(10) ? 61 : 59), 2) + ":" +
                    Padded(Int(0, OneIn(10) ? 61 : 59), OneIn(30) ? 1 : 2);
    if (!OneIn(3)) {
      s += ".";
      const int digits = Int(0, 10);
      s += Digits(digits);
      if (digits > 6 && OneIn(2)) s.replace(s.size() - (digits - 6), digits - 6, digits - 6, '0');
    }
    s += kZones[Int(0, 9)];
    if (OneIn(50)) s = s.substr(0, Int(0, static_cast<int>(s.size())));
    return s;
  }
  std::string Decimal() {
    std::string s;
    const int sign = Int(0, 6);
    if (sign == 0) s += "-";
    if (sign == 1) s += "+";
    s += OneIn(10) ? std::string(Int(1, 3), '0') : "";
    s += Digits(OneIn(10) ? Int(0, 24) : Int(1, 8));
    if (!OneIn(4)) s += "." + Digits(Int(0, 5));
    if (OneIn(30)) s += "e" + std::to_string(Int(-3, 3));
    if (OneIn(40)) s += " ";
    if (OneIn(40)) s += "x";
    return s;
  }
  std::string Float() {
    switch (Int(0, 5)) {
      case 0: {
        double d = std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
        return std::to_string(d);
      }
      case 1: {
        double d =
            std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng_), Int(-1100, 1100));
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, d);
        return std::string(buf, r.ptr);
      }
      case 2:
        return Decimal();
      default: {
        static const char* kOdd[] = {
            "inf", "-inf", "nan", "1e400", "-1e400", "1e-400", ".5",       "5.",     "-.5", "+1",
            "++1", " 1",   "1 ",  "0x10",  "1e",     "-",      "Infinity", "1.5E+3", "-0",  "0"};
        return kOdd[Int(0, 19)];
      }
    }
  }
  std::string Boolean() {
    static const char* kWords[] = {"true", "false", "TRUE",  "False",  "t",     "f",   "1", "0",
                                   "yes",  "no",    " true", "false ", "truee", "tru", "Y", "2"};
    return kWords[Int(0, 15)];
  }

 private:
  std::mt19937 rng_{20261129};
};

TEST(CsvFastPaths, DatesMatchTheFullParser) {
  Gen g;
  std::vector<std::string> v = {"2024-01-09", "2024-02-29", "2023-02-29", "0001-01-01",
                                "0000-03-01", "9999-12-31", "1969-12-31", "1970-01-01",
                                "2000-02-29", "1900-02-29", "2024-13-01", "2024-00-10"};
  for (int i = 0; i < 3000; ++i) v.push_back(g.Date());
  EXPECT_GT(ExpectSameAsFullParser(DataType::Date(), v), 1000u);
}

TEST(CsvFastPaths, TimestampsMatchTheFullParser) {
  Gen g;
  std::vector<std::string> v = {"2024-01-01T00:03:29.200Z",    "2024-01-09 23:59:59",
                                "2024-01-09 23:59:60",         "2024-01-09T24:00:00",
                                "1969-12-31T23:59:59.999999Z", "2024-01-09T10:11:12.",
                                "2024-01-09T10:11:12.1234567", "2024-01-09T10:11:12.1234560",
                                "0001-01-01T00:00:00Z",        "9999-12-31 23:59:59.999999Z"};
  for (int i = 0; i < 3000; ++i) v.push_back(g.Timestamp());
  EXPECT_GT(ExpectSameAsFullParser(DataType::Timestamp(TimeUnit::kMicro), v), 200u);
  for (TimeUnit unit : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro}) {
    EXPECT_GT(ExpectSameAsFullParser(DataType::TimestampTz(unit), v), 100u);
  }
  // Nanoseconds always go to the full parser.
  EXPECT_EQ(ExpectSameAsFullParser(DataType::TimestampTz(TimeUnit::kNano), v), 0u);
}

TEST(CsvFastPaths, DecimalsMatchTheFullParser) {
  Gen g;
  std::vector<std::string> v = {"0",
                                "-0",
                                "+0.00",
                                "10.50",
                                "999.99",
                                "1000.00",
                                "-999.999",
                                "0.001",
                                "123456789012345678",
                                "1234567890123456789",
                                ".5",
                                "5.",
                                "00012.50"};
  for (int i = 0; i < 3000; ++i) v.push_back(g.Decimal());
  for (auto [p, s] : {std::pair{18, 2}, {5, 2}, {2, 2}, {10, 0}, {38, 10}}) {
    const size_t taken = ExpectSameAsFullParser(DataType::Decimal(p, s), v);
    EXPECT_GT(taken, p == 2 ? 10u : 500u) << p << "," << s;
  }
}

TEST(CsvFastPaths, FloatsAndBooleansMatchTheFullParser) {
  Gen g;
  std::vector<std::string> f;
  for (int i = 0; i < 3000; ++i) f.push_back(g.Float());
  EXPECT_GT(ExpectSameAsFullParser(DataType::Float64(), f), 1000u);
  EXPECT_GT(ExpectSameAsFullParser(DataType::Float32(), f), 1000u);
  std::vector<std::string> b;
  for (int i = 0; i < 500; ++i) b.push_back(g.Boolean());
  EXPECT_GT(ExpectSameAsFullParser(DataType::Boolean(), b), 40u);
}

}  // namespace
}  // namespace tarn::formats

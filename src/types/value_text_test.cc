#include "types/value_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace tarn {
namespace {

template <typename T>
T Must(Result<T> r, std::string_view what = "") {
  EXPECT_TRUE(r.ok()) << what << ": " << r.status().ToString();
  return r.ok() ? *r : T{};
}

template <typename T>
std::string Fails(Result<T> r) {
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  return r.status().message();
}

std::string DateText(int64_t days) {
  std::string s;
  AppendDate(days, &s);
  return s;
}

std::string TsText(int64_t v, TimeUnit unit, bool utc = false) {
  std::string s;
  AppendTimestamp(v, unit, utc, &s);
  return s;
}

std::string DecimalText(int128 v, int scale) {
  std::string s;
  AppendDecimal(v, scale, &s);
  return s;
}

// ---- Calendar ----

TEST(CalendarTest, KnownDays) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(2017, 11, 16), 17486);
  EXPECT_EQ(DaysFromCivil(1, 1, 1), -719162);
  EXPECT_EQ(DaysFromCivil(9999, 12, 31), 2932896);
  EXPECT_EQ(DaysFromCivil(0, 1, 1), -719528);
  EXPECT_EQ(DaysFromCivil(1600, 2, 29) + 1, DaysFromCivil(1600, 3, 1));
  CivilDate d = CivilFromDays(-719162);
  EXPECT_EQ(d.year, 1);
  EXPECT_EQ(d.month, 1);
  EXPECT_EQ(d.day, 1);
  d = CivilFromDays(-719529);
  EXPECT_EQ(d.year, -1);
  EXPECT_EQ(d.month, 12);
  EXPECT_EQ(d.day, 31);
}

TEST(CalendarTest, ConsecutiveDaysAreConsecutiveDates) {
  // From 2800 BC to 8000 AD (well past the usual 0001..9999 range on both sides).
  CivilDate prev = CivilFromDays(-1'742'000);
  EXPECT_EQ(DaysFromCivil(prev.year, prev.month, prev.day), -1'742'000);
  for (int64_t day = -1'741'999; day <= 2'200'000; ++day) {
    CivilDate cur = CivilFromDays(day);
    bool next_day = cur.year == prev.year && cur.month == prev.month && cur.day == prev.day + 1;
    bool next_month = cur.year == prev.year && cur.month == prev.month + 1 && cur.day == 1 &&
                      prev.day == DaysInMonth(prev.year, prev.month);
    bool next_year = cur.year == prev.year + 1 && cur.month == 1 && cur.day == 1 &&
                     prev.month == 12 && prev.day == 31;
    ASSERT_TRUE(next_day || next_month || next_year) << "day " << day;
    if (cur.day == 1 || day % 97 == 0) {
      ASSERT_EQ(DaysFromCivil(cur.year, cur.month, cur.day), day);
    }
    prev = cur;
  }
}

TEST(CalendarTest, LeapYears) {
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_TRUE(IsLeapYear(0));
  EXPECT_TRUE(IsLeapYear(-4));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(2023));
  EXPECT_FALSE(IsLeapYear(-1));
  EXPECT_EQ(DaysInMonth(2000, 2), 29);
  EXPECT_EQ(DaysInMonth(1900, 2), 28);
  EXPECT_EQ(DaysInMonth(2023, 4), 30);
  EXPECT_EQ(DaysInMonth(2023, 13), 0);
}

// ---- BOOLEAN ----

TEST(ParseBooleanTest, Spellings) {
  for (std::string_view t : {"true", "TRUE", "True", "t", "T", "yes", "YES", "y", "1", " true "}) {
    EXPECT_TRUE(Must(ParseBoolean(t), t)) << t;
  }
  for (std::string_view f : {"false", "FALSE", "f", "F", "no", "No", "n", "0", "\tfalse\n"}) {
    EXPECT_FALSE(Must(ParseBoolean(f), f)) << f;
  }
  for (std::string_view bad : {"", "2", "tru", "truee", "on", "off", "-1", "yes please"}) {
    Fails(ParseBoolean(bad));
  }
}

// ---- Integers ----

TEST(ParseIntegerTest, Boundaries) {
  EXPECT_EQ(Must(ParseInteger<int8_t>("-128")), -128);
  EXPECT_EQ(Must(ParseInteger<int8_t>("127")), 127);
  Fails(ParseInteger<int8_t>("128"));
  Fails(ParseInteger<int8_t>("-129"));
  EXPECT_EQ(Must(ParseInteger<int16_t>("-32768")), -32768);
  Fails(ParseInteger<int16_t>("32768"));
  EXPECT_EQ(Must(ParseInteger<int32_t>("-2147483648")), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(Must(ParseInteger<int32_t>("2147483647")), std::numeric_limits<int32_t>::max());
  Fails(ParseInteger<int32_t>("2147483648"));
  EXPECT_EQ(Must(ParseInteger<int64_t>("-9223372036854775808")),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Must(ParseInteger<int64_t>("9223372036854775807")),
            std::numeric_limits<int64_t>::max());
  Fails(ParseInteger<int64_t>("9223372036854775808"));
  Fails(ParseInteger<int64_t>("-9223372036854775809"));
  EXPECT_EQ(Must(ParseInteger<uint8_t>("255")), 255);
  Fails(ParseInteger<uint8_t>("256"));
  EXPECT_EQ(Must(ParseInteger<uint16_t>("65535")), 65535);
  EXPECT_EQ(Must(ParseInteger<uint32_t>("4294967295")), 4294967295u);
  Fails(ParseInteger<uint32_t>("4294967296"));
  EXPECT_EQ(Must(ParseInteger<uint64_t>("18446744073709551615")),
            std::numeric_limits<uint64_t>::max());
  Fails(ParseInteger<uint64_t>("18446744073709551616"));
  Fails(ParseInteger<uint64_t>("99999999999999999999999999999999999999999"));
  Fails(ParseInteger<uint64_t>("-1"));
  EXPECT_EQ(Must(ParseInteger<uint64_t>("-0")), 0u);
}

TEST(ParseIntegerTest, Syntax) {
  EXPECT_EQ(Must(ParseInteger<int32_t>("+42")), 42);
  EXPECT_EQ(Must(ParseInteger<int32_t>(" 42\t")), 42);
  EXPECT_EQ(Must(ParseInteger<int32_t>("0007")), 7);
  EXPECT_EQ(Must(ParseInteger<int32_t>("-0")), 0);
  for (std::string_view bad : {"", " ", "+", "-", "1.0", "1e3", "0x10", "1_000", "1 000", "--1",
                               "+-1", "abc", "12a", "\xd9\xa1"}) {
    Fails(ParseInteger<int32_t>(bad));
  }
  EXPECT_EQ(Fails(ParseInteger<int8_t>("300")), "'300' is out of range for INT8 (-128..127)");
  EXPECT_EQ(Fails(ParseInteger<int32_t>("abc")), "'abc' is not a valid INT32");
  EXPECT_EQ(Fails(ParseInteger<uint16_t>("-5")), "'-5' is out of range for UINT16 (0..65535)");
  std::string huge(1000, '9');
  std::string msg = Fails(ParseInteger<int64_t>(huge));
  EXPECT_LT(msg.size(), 200u);  // the text is shortened in messages
  EXPECT_NE(msg.find("out of range"), std::string::npos);
  EXPECT_NE(Fails(ParseInteger<int64_t>(huge + "x")).find("not a valid"), std::string::npos);
}

TEST(FormatIntegerTest, AllDigits) {
  std::string s;
  AppendInt64(std::numeric_limits<int64_t>::min(), &s);
  EXPECT_EQ(s, "-9223372036854775808");
  s.clear();
  AppendUInt64(std::numeric_limits<uint64_t>::max(), &s);
  EXPECT_EQ(s, "18446744073709551615");
}

// ---- Floats ----

TEST(ParseFloatTest, Values) {
  EXPECT_EQ(Must(ParseFloat64("1.5")), 1.5);
  EXPECT_EQ(Must(ParseFloat64("+1.5")), 1.5);
  EXPECT_EQ(Must(ParseFloat64("-2.5e3")), -2500.0);
  EXPECT_EQ(Must(ParseFloat64(".5")), 0.5);
  EXPECT_EQ(Must(ParseFloat64("5.")), 5.0);
  EXPECT_EQ(Must(ParseFloat64(" 0.1 ")), 0.1);
  EXPECT_EQ(Must(ParseFloat64("1.7976931348623157e308")), std::numeric_limits<double>::max());
  EXPECT_EQ(Must(ParseFloat64("4.9e-324")), std::numeric_limits<double>::denorm_min());
  EXPECT_TRUE(std::signbit(Must(ParseFloat64("-0"))));
  EXPECT_TRUE(std::isnan(Must(ParseFloat64("NaN"))));
  EXPECT_TRUE(std::isnan(Must(ParseFloat64("nan"))));
  EXPECT_EQ(Must(ParseFloat64("Infinity")), std::numeric_limits<double>::infinity());
  EXPECT_EQ(Must(ParseFloat64("-Infinity")), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(Must(ParseFloat64("+inf")), std::numeric_limits<double>::infinity());
  // Underflow rounds to zero; overflow is an error.
  EXPECT_EQ(Must(ParseFloat64("1e-400")), 0.0);
  EXPECT_TRUE(std::signbit(Must(ParseFloat64("-1e-400"))));
  EXPECT_EQ(Must(ParseFloat64("0.0000000000000000000001e-390")), 0.0);
  EXPECT_NE(Fails(ParseFloat64("1e309")).find("out of range for FLOAT64"), std::string::npos);
  Fails(ParseFloat64("-1e400"));
  Fails(ParseFloat64("123456789e301"));
  for (std::string_view bad :
       {"", "+", "-", "e5", "1e", "1.5x", "0x1p3", "1,5", "++1", "+-1", "1 2", "Infinityy"}) {
    Fails(ParseFloat64(bad));
  }
  EXPECT_EQ(Must(ParseFloat32("0.1")), 0.1f);
  EXPECT_EQ(Must(ParseFloat32("3.4028235e38")), std::numeric_limits<float>::max());
  Fails(ParseFloat32("3.5e38"));
  EXPECT_EQ(Must(ParseFloat32("1e-50")), 0.0f);
}

TEST(FormatFloatTest, ShortestAndSpecials) {
  auto f64 = [](double v) {
    std::string s;
    AppendFloat64(v, &s);
    return s;
  };
  auto f32 = [](float v) {
    std::string s;
    AppendFloat32(v, &s);
    return s;
  };
  EXPECT_EQ(f64(0.1), "0.1");
  EXPECT_EQ(f64(1.0), "1");
  EXPECT_EQ(f64(-0.0), "-0");
  EXPECT_EQ(f64(1e20), "1e+20");
  EXPECT_EQ(f64(123.456), "123.456");
  EXPECT_EQ(f64(std::nan("")), "NaN");
  EXPECT_EQ(f64(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(f64(-std::numeric_limits<double>::infinity()), "-Infinity");
  EXPECT_EQ(f32(0.1f), "0.1");
  EXPECT_EQ(f32(std::numeric_limits<float>::max()), "3.4028235e+38");
}

TEST(FormatFloatTest, RandomBitPatternsRoundTrip) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 100000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, 8);
    std::string s;
    AppendFloat64(d, &s);
    double back = Must(ParseFloat64(s), s);
    if (std::isnan(d)) {
      ASSERT_TRUE(std::isnan(back)) << s;
    } else {
      uint64_t back_bits;
      std::memcpy(&back_bits, &back, 8);
      ASSERT_EQ(back_bits, bits) << s;
    }
    uint32_t bits32 = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &bits32, 4);
    s.clear();
    AppendFloat32(f, &s);
    float back32 = Must(ParseFloat32(s), s);
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(back32));
    } else {
      uint32_t b;
      std::memcpy(&b, &back32, 4);
      ASSERT_EQ(b, bits32) << s;
    }
  }
}

// ---- DECIMAL ----

int128 Pow10(int n) {
  int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

TEST(ParseDecimalTest, ExactScale) {
  EXPECT_TRUE(Must(ParseDecimal("1.5", 10, 2)) == 150);
  EXPECT_TRUE(Must(ParseDecimal("-1.5", 10, 2)) == -150);
  EXPECT_TRUE(Must(ParseDecimal("1.230", 10, 2)) == 123);  // extra zero digits are fine
  EXPECT_TRUE(Must(ParseDecimal("1.2300000000000000000000000000000000000000000", 10, 2)) == 123);
  EXPECT_TRUE(Must(ParseDecimal("+0.05", 3, 2)) == 5);
  EXPECT_TRUE(Must(ParseDecimal("-.5", 3, 2)) == -50);
  EXPECT_TRUE(Must(ParseDecimal("7.", 3, 2)) == 700);
  EXPECT_TRUE(Must(ParseDecimal("0", 1, 0)) == 0);
  EXPECT_TRUE(Must(ParseDecimal("-0.000", 1, 0)) == 0);
  EXPECT_TRUE(Must(ParseDecimal("00000000000000000000000000000000000000000000012.5", 3, 1)) == 125);
  EXPECT_TRUE(Must(ParseDecimal("14.20", 4, 2)) == 1420);
  EXPECT_TRUE(Must(ParseDecimal(" 99.99 ", 4, 2)) == 9999);
  EXPECT_NE(Fails(ParseDecimal("1.234", 10, 2))
                .find("'1.234' has more than 2 fraction digits, the scale of DECIMAL(10,2)"),
            std::string::npos);
  Fails(ParseDecimal("0.001", 10, 2));
  Fails(ParseDecimal("1.5", 10, 0));
  EXPECT_NE(Fails(ParseDecimal("100.00", 4, 2)).find("out of range for DECIMAL(4,2)"),
            std::string::npos);
  Fails(ParseDecimal("-100", 4, 2));
}

TEST(ParseDecimalTest, Exponents) {
  EXPECT_TRUE(Must(ParseDecimal("1e2", 5, 2)) == 10000);
  EXPECT_TRUE(Must(ParseDecimal("1.5E-1", 5, 2)) == 15);
  EXPECT_TRUE(Must(ParseDecimal("12345e-4", 5, 4)) == 12345);
  EXPECT_TRUE(Must(ParseDecimal("0.00012e+3", 5, 2)) == 12);
  Fails(ParseDecimal("1e-3", 5, 2));
  Fails(ParseDecimal("1e3", 5, 2));
  Fails(ParseDecimal("1e999999999999999999999999", 38, 0));
  Fails(ParseDecimal("1e-999999999999999999999999", 38, 38));
  EXPECT_TRUE(Must(ParseDecimal("0e999999999999999999999999", 38, 0)) == 0);
}

TEST(ParseDecimalTest, Precision38) {
  const std::string nines(38, '9');
  EXPECT_TRUE(Must(ParseDecimal(nines, 38, 0)) == Pow10(38) - 1);
  EXPECT_TRUE(Must(ParseDecimal("-" + nines, 38, 0)) == -(Pow10(38) - 1));
  Fails(ParseDecimal("1" + std::string(38, '0'), 38, 0));
  EXPECT_TRUE(Must(ParseDecimal("0." + nines, 38, 38)) == Pow10(38) - 1);
  Fails(ParseDecimal("1", 38, 38));
  Fails(ParseDecimal("0." + nines + "9", 38, 38));
  EXPECT_TRUE(Must(ParseDecimal(std::string(28, '9') + "." + std::string(10, '9'), 38, 10)) ==
              Pow10(38) - 1);
  Fails(ParseDecimal(std::string(100, '9'), 38, 0));
  EXPECT_EQ(DecimalText(Pow10(38) - 1, 10), std::string(28, '9') + "." + std::string(10, '9'));
  EXPECT_EQ(DecimalText(-(Pow10(38) - 1), 38), "-0." + nines);
}

TEST(ParseDecimalTest, Syntax) {
  for (std::string_view bad : {"", ".", "-", "+.", "e5", "1e", "1e+", "1.2.3", "1,5", "--1", "1 2",
                               "NaN", "0x10", "1.5x"}) {
    Fails(ParseDecimal(bad, 10, 2));
  }
  int128 out;
  EXPECT_EQ(TryParseDecimal("1.5", 0, 0, &out), DecimalParseError::kOutOfRange);
  EXPECT_EQ(TryParseDecimal("1.5", 40, 2, &out), DecimalParseError::kOutOfRange);
  EXPECT_EQ(TryParseDecimal("1.5", 10, 11, &out), DecimalParseError::kOutOfRange);
  EXPECT_EQ(TryParseDecimal("abc", 10, 2, &out), DecimalParseError::kSyntax);
  EXPECT_EQ(TryParseDecimal("1.555", 10, 2, &out), DecimalParseError::kTooManyFractionDigits);
}

TEST(FormatDecimalTest, ExactlyScaleDigits) {
  EXPECT_EQ(DecimalText(150, 2), "1.50");
  EXPECT_EQ(DecimalText(-50, 2), "-0.50");
  EXPECT_EQ(DecimalText(5, 3), "0.005");
  EXPECT_EQ(DecimalText(0, 2), "0.00");
  EXPECT_EQ(DecimalText(0, 0), "0");
  EXPECT_EQ(DecimalText(-7, 0), "-7");
  EXPECT_EQ(DecimalText(12345678901234567890ull, 0), "12345678901234567890");
  // Out-of-precision values (corrupt input) still format without overflow.
  const int128 max = static_cast<int128>(~uint128(0) >> 1);
  const int128 min = -max - 1;
  EXPECT_EQ(DecimalText(max, 0), "170141183460469231731687303715884105727");
  EXPECT_EQ(DecimalText(min, 0), "-170141183460469231731687303715884105728");
  EXPECT_EQ(DecimalText(min, 38), "-1.70141183460469231731687303715884105728");
  EXPECT_EQ(DecimalText(Pow10(19), 0), "10000000000000000000");
  EXPECT_EQ(DecimalText(Pow10(19) * Pow10(19), 0), "1" + std::string(38, '0'));
}

TEST(FormatDecimalTest, RandomRoundTrip) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    int precision = 1 + static_cast<int>(rng() % 38);
    int scale = static_cast<int>(rng() % (precision + 1));
    uint128 raw = (static_cast<uint128>(rng()) << 64) | rng();
    int128 v = static_cast<int128>(raw % static_cast<uint128>(Pow10(precision)));
    if (rng() & 1) v = -v;
    std::string text = DecimalText(v, scale);
    int128 back = Must(ParseDecimal(text, precision, scale), text);
    ASSERT_TRUE(back == v) << text;
  }
}

// ---- DATE ----

TEST(DateTest, ParseAndFormat) {
  EXPECT_EQ(Must(ParseDate("1970-01-01")), 0);
  EXPECT_EQ(Must(ParseDate("1969-12-31")), -1);
  EXPECT_EQ(Must(ParseDate("2017-11-16")), 17486);
  EXPECT_EQ(Must(ParseDate("0001-01-01")), -719162);
  EXPECT_EQ(Must(ParseDate("9999-12-31")), 2932896);
  EXPECT_EQ(Must(ParseDate(" 2000-02-29 ")), 11016);
  EXPECT_EQ(Must(ParseDate("2024-02-29")), DaysFromCivil(2024, 2, 29));
  EXPECT_EQ(Must(ParseDate("0000-02-29")), DaysFromCivil(0, 2, 29));
  EXPECT_EQ(Must(ParseDate("-0001-03-01")), DaysFromCivil(-1, 3, 1));
  EXPECT_EQ(Must(ParseDate("+10000-01-01")), DaysFromCivil(10000, 1, 1));
  EXPECT_EQ(Must(ParseDate("10000-01-01")), DaysFromCivil(10000, 1, 1));

  EXPECT_EQ(DateText(0), "1970-01-01");
  EXPECT_EQ(DateText(-1), "1969-12-31");
  EXPECT_EQ(DateText(-719162), "0001-01-01");
  EXPECT_EQ(DateText(-719163), "0000-12-31");
  EXPECT_EQ(DateText(DaysFromCivil(-1, 3, 1)), "-0001-03-01");
  EXPECT_EQ(DateText(DaysFromCivil(-12345, 6, 7)), "-12345-06-07");
  EXPECT_EQ(DateText(2932897), "+10000-01-01");
  EXPECT_EQ(DateText(std::numeric_limits<int32_t>::max()), "+5881580-07-11");
  EXPECT_EQ(DateText(std::numeric_limits<int32_t>::min()), "-5877641-06-23");
}

TEST(DateTest, Errors) {
  EXPECT_NE(Fails(ParseDate("2023-02-29")).find("no such day"), std::string::npos);
  Fails(ParseDate("1900-02-29"));
  Fails(ParseDate("2023-04-31"));
  Fails(ParseDate("2023-00-10"));
  EXPECT_NE(Fails(ParseDate("2023-13-01")).find("month"), std::string::npos);
  Fails(ParseDate("2023-01-00"));
  Fails(ParseDate("2023-1-01"));
  Fails(ParseDate("23-01-01"));
  Fails(ParseDate("2023/01/01"));
  Fails(ParseDate("2023-01-01T00:00:00"));
  Fails(ParseDate("2023-01-01x"));
  Fails(ParseDate(""));
  Fails(ParseDate("-"));
  Fails(ParseDate("1234567890-01-01"));
  EXPECT_NE(Fails(ParseDate("+6000000-01-01")).find("out of range for DATE"), std::string::npos);
}

TEST(DateTest, RoundTripEveryDayOfInt32Samples) {
  std::mt19937 rng(3);
  for (int i = 0; i < 50000; ++i) {
    int32_t days = static_cast<int32_t>(rng());
    std::string text = DateText(days);
    ASSERT_EQ(Must(ParseDate(text), text), days) << text;
  }
  for (int32_t days = -800000; days < 3000000; days += 13) {
    std::string text = DateText(days);
    ASSERT_EQ(Must(ParseDate(text), text), days) << text;
  }
}

// ---- TIME ----

TEST(TimeTest, ParseAndFormat) {
  auto text = [](int64_t micros) {
    std::string s;
    AppendTime(micros, TimeUnit::kMicro, &s);
    return s;
  };
  EXPECT_EQ(Must(ParseTime("00:00:00")), 0);
  EXPECT_EQ(Must(ParseTime("22:31:08")), 81068000000);
  EXPECT_EQ(Must(ParseTime("23:59:59.999999")), 86399999999);
  EXPECT_EQ(Must(ParseTime("12:00:00.5")), 43200500000);
  EXPECT_EQ(Must(ParseTime("12:00:00.123456000")), 43200123456);
  EXPECT_EQ(text(0), "00:00:00");
  EXPECT_EQ(text(81068000000), "22:31:08");
  EXPECT_EQ(text(43200500000), "12:00:00.5");
  EXPECT_EQ(text(1), "00:00:00.000001");
  EXPECT_EQ(text(86399999999), "23:59:59.999999");
  EXPECT_EQ(text(-1), "-1d+23:59:59.999999");  // corrupt values still print
  EXPECT_EQ(text(std::numeric_limits<int64_t>::min()), "-106751992d+19:59:05.224192");
  EXPECT_EQ(text(std::numeric_limits<int64_t>::max()), "106751991d+04:00:54.775807");
  for (std::string_view bad : {"24:00:00", "12:60:00", "12:00:60", "1:02:03", "12:00", "12:00:00.",
                               "12:00:00.1234567", "12:00:00Z", "", "12-00-00", "12:00:00 x"}) {
    Fails(ParseTime(bad));
  }
  for (int64_t v = 0; v < 86400000000; v += 987654321) {
    ASSERT_EQ(Must(ParseTime(text(v))), v) << text(v);
  }
}

TEST(TimeTest, Nanoseconds) {
  auto text = [](int64_t nanos) {
    std::string s;
    AppendTime(nanos, TimeUnit::kNano, &s);
    return s;
  };
  EXPECT_EQ(Must(ParseTime("23:59:59.999999999", TimeUnit::kNano)), 86399999999999);
  EXPECT_EQ(Must(ParseTime("00:00:00.000000001", TimeUnit::kNano)), 1);
  EXPECT_EQ(Must(ParseTime("12:00:00.5", TimeUnit::kNano)), 43200500000000);
  EXPECT_EQ(Must(ParseTime("12:00:00.1234567890", TimeUnit::kNano)), 43200123456789);
  EXPECT_EQ(text(86399999999999), "23:59:59.999999999");
  EXPECT_EQ(text(1), "00:00:00.000000001");
  EXPECT_EQ(text(43200500000000), "12:00:00.5");
  EXPECT_EQ(text(-1), "-1d+23:59:59.999999999");  // corrupt values still print
  // The microsecond TIME refuses what only nanoseconds hold, naming the type.
  auto micro = ParseTime("23:59:59.999999999");
  ASSERT_FALSE(micro.ok());
  EXPECT_NE(micro.status().message().find("finer than microseconds"), std::string::npos);
  auto nano = ParseTime("24:00:00", TimeUnit::kNano);
  ASSERT_FALSE(nano.ok());
  EXPECT_NE(nano.status().message().find("TIME[ns]"), std::string::npos);
  for (int64_t v = 0; v < 86400000000000; v += 987654321987) {
    ASSERT_EQ(Must(ParseTime(text(v), TimeUnit::kNano)), v) << text(v);
  }
}

// ---- TIMESTAMP / TIMESTAMPTZ ----

TEST(TimestampTest, Parse) {
  const int64_t t = 1510871468;  // 2017-11-16T22:31:08Z
  EXPECT_EQ(Must(ParseTimestamp("2017-11-16T22:31:08", TimeUnit::kMicro)), t * 1000000);
  EXPECT_EQ(Must(ParseTimestamp("2017-11-16 22:31:08", TimeUnit::kMicro)), t * 1000000);
  EXPECT_EQ(Must(ParseTimestamp("2017-11-16t22:31:08", TimeUnit::kSecond)), t);
  EXPECT_EQ(Must(ParseTimestamp("2017-11-16T22:31:08.000001", TimeUnit::kMicro)), t * 1000000 + 1);
  EXPECT_EQ(Must(ParseTimestamp("2017-11-16T22:31:08.123456789", TimeUnit::kNano)),
            t * 1000000000 + 123456789);
  EXPECT_EQ(Must(ParseTimestamp("2017-11-16T22:31:08.5", TimeUnit::kMilli)), t * 1000 + 500);
  EXPECT_EQ(Must(ParseTimestamp("2017-11-16T22:31:08.000000000", TimeUnit::kSecond)), t);
  EXPECT_EQ(Must(ParseTimestamp("2017-11-16", TimeUnit::kMicro)), 1510790400LL * 1000000);
  EXPECT_EQ(Must(ParseTimestamp("1969-12-31T23:59:59.999999", TimeUnit::kMicro)), -1);
  EXPECT_EQ(Must(ParseTimestamp("1969-12-31T23:59:59.5", TimeUnit::kMilli)), -500);
  EXPECT_EQ(Must(ParseTimestamp("0001-01-01T00:00:00", TimeUnit::kMicro)),
            -62135596800LL * 1000000);
  // The int64 nanosecond range: 1677-09-21T00:12:43.145224192 .. 2262-04-11T23:47:16.854775807.
  EXPECT_EQ(Must(ParseTimestamp("1677-09-21T00:12:43.145224192", TimeUnit::kNano)),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Must(ParseTimestamp("2262-04-11T23:47:16.854775807", TimeUnit::kNano)),
            std::numeric_limits<int64_t>::max());
  EXPECT_NE(Fails(ParseTimestamp("2262-04-11T23:47:16.854775808", TimeUnit::kNano))
                .find("out of range for TIMESTAMP[ns]"),
            std::string::npos);
  Fails(ParseTimestamp("1677-09-21T00:12:43.145224191", TimeUnit::kNano));
  EXPECT_EQ(Must(ParseTimestamp("2262-04-12", TimeUnit::kMicro)),
            DaysFromCivil(2262, 4, 12) * 86400000000LL);
}

TEST(TimestampTest, ParseErrors) {
  EXPECT_NE(
      Fails(ParseTimestamp("2017-11-16T22:31:08.5", TimeUnit::kSecond)).find("finer than the unit"),
      std::string::npos);
  Fails(ParseTimestamp("2017-11-16T22:31:08.0001", TimeUnit::kMilli));
  Fails(ParseTimestamp("2017-11-16T22:31:08.1234567", TimeUnit::kMicro));
  Fails(ParseTimestamp("2017-11-16T22:31:08.1234567891", TimeUnit::kNano));
  EXPECT_EQ(Must(ParseTimestamp("2017-11-16T22:31:08.1234567890", TimeUnit::kNano)) % 1000000000,
            123456789);
  EXPECT_NE(Fails(ParseTimestamp("2017-11-16T22:31:08Z", TimeUnit::kMicro)).find("TIMESTAMPTZ"),
            std::string::npos);
  Fails(ParseTimestamp("2017-11-16T22:31:08+01:00", TimeUnit::kMicro));
  for (std::string_view bad :
       {"", "2017-11-16T", "2017-11-16T22:31", "2017-11-16T25:00:00", "2017-11-16X22:31:08",
        "2017-11-16T22:31:08.", "2017-11-16  22:31:08", "2017-02-30T00:00:00",
        "2017-11-16T22:31:08 junk", "T22:31:08", "22:31:08"}) {
    Fails(ParseTimestamp(bad, TimeUnit::kMicro));
  }
}

TEST(TimestampTzTest, ZonesConvertToUtc) {
  const int64_t utc = 1510871468LL * 1000000;  // 2017-11-16T22:31:08Z
  for (std::string_view text :
       {"2017-11-16T22:31:08Z", "2017-11-16T22:31:08z", "2017-11-16T22:31:08",
        "2017-11-16T14:31:08-08:00", "2017-11-16T14:31:08-0800", "2017-11-16T14:31:08-08",
        "2017-11-17T04:01:08+05:30", "2017-11-17T04:01:08+0530", "2017-11-16 22:31:08 +00:00",
        "2017-11-16T22:31:08.000000Z"}) {
    EXPECT_EQ(Must(ParseTimestampTz(text, TimeUnit::kMicro), text), utc) << text;
  }
  EXPECT_EQ(Must(ParseTimestampTz("2017-11-16T14:31:08.000001-08:00", TimeUnit::kMicro)), utc + 1);
  EXPECT_EQ(Must(ParseTimestampTz("1970-01-01T00:00:00+01:00", TimeUnit::kSecond)), -3600);
  for (std::string_view bad :
       {"2017-11-16T22:31:08+", "2017-11-16T22:31:08+1", "2017-11-16T22:31:08+24:00",
        "2017-11-16T22:31:08+01:60", "2017-11-16T22:31:08+01:", "2017-11-16T22:31:08ZZ",
        "2017-11-16T22:31:08 UTC", "2017-11-16T22:31:08+01:00:00"}) {
    Fails(ParseTimestampTz(bad, TimeUnit::kMicro));
  }
}

TEST(TimestampTest, Format) {
  const int64_t t = 1510871468;
  EXPECT_EQ(TsText(t * 1000000, TimeUnit::kMicro), "2017-11-16T22:31:08");
  EXPECT_EQ(TsText(t * 1000000 + 1, TimeUnit::kMicro), "2017-11-16T22:31:08.000001");
  EXPECT_EQ(TsText(t * 1000 + 120, TimeUnit::kMilli), "2017-11-16T22:31:08.12");
  EXPECT_EQ(TsText(t, TimeUnit::kSecond, true), "2017-11-16T22:31:08Z");
  EXPECT_EQ(TsText(-1, TimeUnit::kNano), "1969-12-31T23:59:59.999999999");
  EXPECT_EQ(TsText(-1, TimeUnit::kMicro, true), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(TsText(std::numeric_limits<int64_t>::min(), TimeUnit::kNano),
            "1677-09-21T00:12:43.145224192");
  EXPECT_EQ(TsText(std::numeric_limits<int64_t>::max(), TimeUnit::kNano),
            "2262-04-11T23:47:16.854775807");
  EXPECT_EQ(TsText(std::numeric_limits<int64_t>::min(), TimeUnit::kMicro),
            "-290308-12-21T19:59:05.224192");
  EXPECT_EQ(TsText(std::numeric_limits<int64_t>::max(), TimeUnit::kMicro),
            "+294247-01-10T04:00:54.775807");
  // Regression: INT64_MIN in every unit formats without signed overflow (UBSan).
  EXPECT_EQ(TsText(std::numeric_limits<int64_t>::min(), TimeUnit::kMilli),
            "-292275055-05-16T16:47:04.192");
  // Seconds far outside any calendar anyone uses still format without overflow.
  std::string s = TsText(std::numeric_limits<int64_t>::min(), TimeUnit::kSecond);
  EXPECT_EQ(s.front(), '-');
  s = TsText(std::numeric_limits<int64_t>::max(), TimeUnit::kSecond);
  EXPECT_EQ(s.front(), '+');
}

TEST(TimestampTest, RandomRoundTrips) {
  std::mt19937_64 rng(11);
  const TimeUnit units[] = {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano};
  for (TimeUnit unit : units) {
    for (int i = 0; i < 20000; ++i) {
      int64_t v = static_cast<int64_t>(rng());
      // Keep years within 9 digits (what the parser reads) for second units.
      if (unit == TimeUnit::kSecond) v %= 10'000'000'000'000'000LL;
      if (i % 4 == 0) v %= 1'000'000'000'000LL;  // and many near the epoch
      std::string text = TsText(v, unit);
      ASSERT_EQ(Must(ParseTimestamp(text, unit), text), v) << text;
      std::string tz = TsText(v, unit, true);
      ASSERT_EQ(Must(ParseTimestampTz(tz, unit), tz), v) << tz;
    }
  }
}

// ---- UUID, IPV4, JSON, BLOB, UTF-8 ----

TEST(UuidTest, ParseAndFormat) {
  auto u = Must(ParseUuid("F79C3E09-677C-4BBD-A479-3F349CB785E7"));
  const uint8_t expected[16] = {0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD,
                                0xA4, 0x79, 0x3F, 0x34, 0x9C, 0xB7, 0x85, 0xE7};
  EXPECT_EQ(std::memcmp(u.data(), expected, 16), 0);
  std::string s;
  AppendUuid(u.data(), &s);
  EXPECT_EQ(s, "f79c3e09-677c-4bbd-a479-3f349cb785e7");
  for (std::string_view bad :
       {"", "f79c3e09677c4bbda4793f349cb785e7", "{f79c3e09-677c-4bbd-a479-3f349cb785e7}",
        "f79c3e09-677c-4bbd-a479-3f349cb785e", "f79c3e09-677c-4bbd-a479-3f349cb785e7a",
        "g79c3e09-677c-4bbd-a479-3f349cb785e7", "f79c3e09-677c-4bbd-a4793-f349cb785e7",
        "f79c3e09_677c_4bbd_a479_3f349cb785e7"}) {
    Fails(ParseUuid(bad));
  }
}

TEST(Ipv4Test, ParseAndFormat) {
  EXPECT_EQ(Must(ParseIpv4("0.0.0.0")), 0u);
  EXPECT_EQ(Must(ParseIpv4("255.255.255.255")), 0xFFFFFFFFu);
  EXPECT_EQ(Must(ParseIpv4("192.168.1.20")), 0xC0A80114u);
  EXPECT_EQ(Must(ParseIpv4(" 10.0.0.1 ")), 0x0A000001u);
  std::string s;
  AppendIpv4(0xC0A80114u, &s);
  EXPECT_EQ(s, "192.168.1.20");
  s.clear();
  AppendIpv4(0, &s);
  EXPECT_EQ(s, "0.0.0.0");
  for (std::string_view bad : {"", "256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.04",
                               "1.2.3.4x", "x1.2.3.4", "a.b.c.d", "1..2.3", "1234.1.1.1", "1.2.3.",
                               ".1.2.3", "-1.2.3.4", "1.2.3.4/24", "1.2.3.99999999999999999999"}) {
    Fails(ParseIpv4(bad));
  }
}

TEST(JsonTest, Validate) {
  for (std::string_view ok : {"{}", "[]", "1", "\"s\"", "null", R"({"a":[1,2,{"b":null}]})",
                              " true ", "-1.5e3", R"("\u00e9")"}) {
    EXPECT_TRUE(ValidateJson(ok).ok()) << ok;
  }
  for (std::string_view bad : {"", "{", "[1,]", "{'a':1}", "nul", "1 2", "{\"a\":}", "\"\x01\"",
                               "NaN", "[1] x", "\"\xff\""}) {
    EXPECT_FALSE(ValidateJson(bad).ok()) << bad;
  }
  std::string deep(100000, '[');
  EXPECT_FALSE(ValidateJson(deep).ok());
  deep += std::string(100000, ']');
  EXPECT_TRUE(ValidateJson(deep).ok());  // no recursion limit hit, no stack overflow
}

TEST(Base64Test, Rfc4648Vectors) {
  const std::pair<std::string_view, std::string_view> vectors[] = {{"", ""},
                                                                   {"f", "Zg=="},
                                                                   {"fo", "Zm8="},
                                                                   {"foo", "Zm9v"},
                                                                   {"foob", "Zm9vYg=="},
                                                                   {"fooba", "Zm9vYmE="},
                                                                   {"foobar", "Zm9vYmFy"}};
  for (auto [plain, encoded] : vectors) {
    std::string s;
    AppendBase64(plain, &s);
    EXPECT_EQ(s, encoded);
    EXPECT_EQ(Must(DecodeBase64(encoded)), plain);
  }
  EXPECT_EQ(Must(DecodeBase64("Zm9vYg")), "foob");  // unpadded
  EXPECT_EQ(Must(DecodeBase64("Zm9vYmE")), "fooba");
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  std::string enc;
  AppendBase64(all, &enc);
  EXPECT_EQ(Must(DecodeBase64(enc)), all);
  for (std::string_view bad : {"Z", "Zg=", "Zg===", "Z===", "Zm9v!", "Zm 9v", "=Zm9", "Zm=v"}) {
    Fails(DecodeBase64(bad));
  }
}

TEST(Utf8Test, Validation) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii text that is longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf"));   // U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xc0\x80"));          // overlong NUL
  EXPECT_FALSE(IsValidUtf8("\xe0\x80\x80"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xc3"));              // truncated
  EXPECT_FALSE(IsValidUtf8("abcdefgh\xe2\x82"));
  EXPECT_FALSE(IsValidUtf8("\x80"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
}

// ---- Columns ----

TEST(AppendParsedValueTest, EveryScalarTypeRoundTripsThroughText) {
  const std::pair<std::string_view, std::vector<std::string_view>> cases[] = {
      {"BOOLEAN", {"true", "false"}},
      {"INT8", {"-128", "0", "127"}},
      {"INT16", {"-32768", "32767"}},
      {"INT32", {"-2147483648", "2147483647"}},
      {"INT64", {"-9223372036854775808", "9223372036854775807"}},
      {"UINT8", {"0", "255"}},
      {"UINT16", {"65535"}},
      {"UINT32", {"4294967295"}},
      {"UINT64", {"0", "18446744073709551615"}},
      {"FLOAT32", {"0.1", "-3.4028235e+38", "NaN", "Infinity", "-Infinity", "-0"}},
      {"FLOAT64", {"0.1", "1e+300", "5e-324", "NaN", "-Infinity"}},
      {"DECIMAL(10,2)", {"-0.50", "12345678.90", "0.00"}},
      {"DECIMAL(38,0)", {"99999999999999999999999999999999999999"}},
      {"DECIMAL(38,38)", {"-0.99999999999999999999999999999999999999"}},
      {"VARCHAR", {"", " spaced ", "caf\xc3\xa9"}},
      {"BLOB", {"", "AAEC/w=="}},
      {"DATE", {"2000-02-29", "0001-01-01", "9999-12-31", "-0044-03-15"}},
      {"TIME", {"00:00:00", "23:59:59.999999", "12:00:00.5"}},
      {"TIMESTAMP[s]", {"2017-11-16T22:31:08"}},
      {"TIMESTAMP[ms]", {"1969-12-31T23:59:59.999"}},
      {"TIMESTAMP[us]", {"0001-01-01T00:00:00", "9999-12-31T23:59:59.999999"}},
      {"TIMESTAMP[ns]", {"2262-04-11T23:47:16.854775807"}},
      {"TIMESTAMPTZ[us]", {"2017-11-16T22:31:08.000001Z"}},
      {"TIMESTAMPTZ[ns]", {"1677-09-21T00:12:43.145224192Z"}},
      {"UUID", {"f79c3e09-677c-4bbd-a479-3f349cb785e7", "00000000-0000-0000-0000-000000000000"}},
      {"IPV4", {"0.0.0.0", "255.255.255.255", "10.1.2.3"}},
      {"JSON", {"{\"a\":[1,2]}", "null", "\"x\""}},
  };
  for (const auto& [type_text, values] : cases) {
    Column col(Must(DataType::Parse(type_text)));
    for (std::string_view v : values) {
      Status st = AppendParsedValue(v, &col);
      ASSERT_TRUE(st.ok()) << type_text << " " << v << ": " << st.ToString();
    }
    ASSERT_EQ(col.length, static_cast<int64_t>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(ValueText(col, static_cast<int64_t>(i)), values[i]) << type_text;
    }
  }
}

TEST(AppendParsedValueTest, ErrorsAppendNothing) {
  Column col(DataType::Int32());
  ASSERT_TRUE(AppendParsedValue("1", &col).ok());
  Status st = AppendParsedValue("x", &col);
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(col.length, 1);
  EXPECT_EQ(col.data.size(), 4u);

  Column text(DataType::Varchar());
  EXPECT_FALSE(AppendParsedValue("\xff", &text).ok());
  EXPECT_EQ(text.length, 0);
  EXPECT_EQ(text.offsets.size(), 1u);

  Column json(DataType::Json());
  EXPECT_FALSE(AppendParsedValue("{", &json).ok());
  EXPECT_EQ(json.length, 0);

  Column array(DataType::Array(DataType::Int32()));
  EXPECT_FALSE(AppendParsedValue("[1,\"x\"]", &array).ok());
  EXPECT_EQ(array.length, 0);
  EXPECT_EQ(array.child->length, 0);
  EXPECT_TRUE(AppendParsedValue("[1,null]", &array).ok());
  EXPECT_EQ(array.length, 1);
}

TEST(ParsersTest, SurviveArbitraryBytes) {
  std::mt19937 rng(5);
  const std::string alphabet = "0123456789+-.:eETZz tn-aAfF\xff\xc3\x80[]{}\"";
  const DataType types[] = {DataType::Boolean(),
                            DataType::Int8(),
                            DataType::UInt64(),
                            DataType::Int64(),
                            DataType::Float32(),
                            DataType::Float64(),
                            DataType::Decimal(38, 10),
                            DataType::Decimal(1, 0),
                            DataType::Date(),
                            DataType::Time(),
                            DataType::Timestamp(TimeUnit::kNano),
                            DataType::TimestampTz(TimeUnit::kSecond),
                            DataType::Uuid(),
                            DataType::Ipv4(),
                            DataType::Json(),
                            DataType::Blob(),
                            DataType::Varchar()};
  for (int i = 0; i < 8000; ++i) {
    std::string s;
    int len = static_cast<int>(rng() % 40);
    for (int k = 0; k < len; ++k) s.push_back(alphabet[rng() % alphabet.size()]);
    for (const DataType& t : types) {
      Column col(t);
      Status st = AppendParsedValue(s, &col);
      if (st.ok()) {
        ASSERT_EQ(col.length, 1);
        (void)ValueText(col, 0);
      } else {
        ASSERT_EQ(st.kind(), ErrorKind::kInvalidArgument);
        ASSERT_EQ(col.length, 0);
      }
    }
  }
}

}  // namespace
}  // namespace tarn

#include "types/cast.h"

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

// A column of `type` from text values; "<null>" appends a null.
Column Col(std::string_view type, const std::vector<std::string_view>& values) {
  Column c(T(type));
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

std::vector<std::string> Texts(const Column& c) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < c.length; ++i) {
    out.push_back(c.IsValid(i) ? ValueText(c, i) : "<null>");
  }
  return out;
}

std::vector<std::string> CastTexts(std::string_view from, const std::vector<std::string_view>& in,
                                   std::string_view to) {
  Result<Column> r = CastColumn(Col(from, in), T(to));
  EXPECT_TRUE(r.ok()) << from << " -> " << to << ": " << r.status().ToString();
  if (!r.ok()) return {};
  EXPECT_EQ(r->type, T(to));
  EXPECT_EQ(r->length, static_cast<int64_t>(in.size()));
  return Texts(*r);
}

// The failure of a cast: message, and the "row" and "value" fields.
struct Failure {
  std::string message;
  std::string row;
  std::string value;
};

Failure CastFails(std::string_view from, const std::vector<std::string_view>& in,
                  std::string_view to) {
  Result<Column> r = CastColumn(Col(from, in), T(to));
  EXPECT_FALSE(r.ok()) << from << " -> " << to;
  if (r.ok()) return {};
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  Failure f{r.status().message(), "", ""};
  for (const auto& [k, v] : r.status().fields()) {
    if (k == "row") f.row = v;
    if (k == "value") f.value = v;
  }
  return f;
}

using V = std::vector<std::string>;

TEST(WideningTest, Integers) {
  EXPECT_TRUE(IsLosslessWidening(T("INT8"), T("INT16")));
  EXPECT_TRUE(IsLosslessWidening(T("INT8"), T("INT64")));
  EXPECT_TRUE(IsLosslessWidening(T("INT16"), T("INT32")));
  EXPECT_TRUE(IsLosslessWidening(T("INT32"), T("INT64")));
  EXPECT_FALSE(IsLosslessWidening(T("INT64"), T("INT32")));
  EXPECT_FALSE(IsLosslessWidening(T("INT8"), T("UINT64")));
  EXPECT_TRUE(IsLosslessWidening(T("UINT8"), T("UINT16")));
  EXPECT_TRUE(IsLosslessWidening(T("UINT8"), T("INT16")));
  EXPECT_FALSE(IsLosslessWidening(T("UINT8"), T("INT8")));
  EXPECT_TRUE(IsLosslessWidening(T("UINT16"), T("INT32")));
  EXPECT_TRUE(IsLosslessWidening(T("UINT32"), T("INT64")));
  EXPECT_TRUE(IsLosslessWidening(T("UINT32"), T("UINT64")));
  EXPECT_FALSE(IsLosslessWidening(T("UINT32"), T("INT32")));
  EXPECT_FALSE(IsLosslessWidening(T("UINT64"), T("INT64")));
  EXPECT_FALSE(IsLosslessWidening(T("INT64"), T("INT64")));  // no change is not a widening
}

TEST(WideningTest, FloatsAndDecimals) {
  EXPECT_TRUE(IsLosslessWidening(T("INT32"), T("FLOAT64")));
  EXPECT_TRUE(IsLosslessWidening(T("UINT32"), T("FLOAT64")));
  EXPECT_TRUE(IsLosslessWidening(T("INT16"), T("FLOAT32")));
  EXPECT_FALSE(IsLosslessWidening(T("INT32"), T("FLOAT32")));
  EXPECT_FALSE(IsLosslessWidening(T("INT64"), T("FLOAT64")));
  EXPECT_TRUE(IsLosslessWidening(T("FLOAT32"), T("FLOAT64")));
  EXPECT_FALSE(IsLosslessWidening(T("FLOAT64"), T("FLOAT32")));
  EXPECT_TRUE(IsLosslessWidening(T("INT32"), T("DECIMAL(10,0)")));
  EXPECT_TRUE(IsLosslessWidening(T("INT32"), T("DECIMAL(12,2)")));
  EXPECT_FALSE(IsLosslessWidening(T("INT32"), T("DECIMAL(11,2)")));
  EXPECT_TRUE(IsLosslessWidening(T("INT64"), T("DECIMAL(19,0)")));
  EXPECT_FALSE(IsLosslessWidening(T("INT64"), T("DECIMAL(18,0)")));
  EXPECT_TRUE(IsLosslessWidening(T("UINT64"), T("DECIMAL(20,0)")));
  EXPECT_FALSE(IsLosslessWidening(T("UINT64"), T("DECIMAL(38,19)")));
  EXPECT_TRUE(IsLosslessWidening(T("INT8"), T("DECIMAL(3,0)")));
  EXPECT_TRUE(IsLosslessWidening(T("DECIMAL(10,2)"), T("DECIMAL(12,2)")));
  EXPECT_TRUE(IsLosslessWidening(T("DECIMAL(10,2)"), T("DECIMAL(11,3)")));
  EXPECT_FALSE(IsLosslessWidening(T("DECIMAL(10,2)"), T("DECIMAL(11,1)")));
  EXPECT_FALSE(IsLosslessWidening(T("DECIMAL(10,2)"), T("DECIMAL(10,3)")));
  EXPECT_FALSE(IsLosslessWidening(T("DECIMAL(10,2)"), T("DECIMAL(10,2)")));
  EXPECT_TRUE(IsLosslessWidening(T("DECIMAL(9,0)"), T("INT32")));
  EXPECT_FALSE(IsLosslessWidening(T("DECIMAL(10,0)"), T("INT32")));
  EXPECT_TRUE(IsLosslessWidening(T("DECIMAL(18,0)"), T("INT64")));
  EXPECT_FALSE(IsLosslessWidening(T("DECIMAL(18,1)"), T("INT64")));
  EXPECT_FALSE(IsLosslessWidening(T("DECIMAL(10,2)"), T("FLOAT64")));
}

TEST(WideningTest, OtherTypes) {
  EXPECT_TRUE(IsLosslessWidening(T("JSON"), T("VARCHAR")));
  EXPECT_FALSE(IsLosslessWidening(T("VARCHAR"), T("JSON")));
  EXPECT_FALSE(IsLosslessWidening(T("DATE"), T("TIMESTAMP")));
  EXPECT_FALSE(IsLosslessWidening(T("TIMESTAMP[ms]"), T("TIMESTAMP[us]")));
  EXPECT_FALSE(IsLosslessWidening(T("TIMESTAMP[us]"), T("TIMESTAMPTZ[us]")));
  EXPECT_FALSE(IsLosslessWidening(T("INT32"), T("VARCHAR")));
  EXPECT_TRUE(IsLosslessWidening(T("ARRAY<INT32>"), T("ARRAY<INT64>")));
  EXPECT_TRUE(IsLosslessWidening(T("ARRAY<ARRAY<FLOAT32>>"), T("ARRAY<ARRAY<FLOAT64>>")));
  EXPECT_FALSE(IsLosslessWidening(T("ARRAY<INT64>"), T("ARRAY<INT32>")));
  EXPECT_FALSE(IsLosslessWidening(T("ARRAY<INT32>"), T("INT64")));
}

TEST(WideningTest, EveryWideningCastSucceedsOnExtremes) {
  // If IsLosslessWidening says yes, CastColumn must accept the type's extreme values.
  const std::pair<std::string_view, std::vector<std::string_view>> sources[] = {
      {"INT8", {"-128", "127"}},
      {"INT16", {"-32768", "32767"}},
      {"INT32", {"-2147483648", "2147483647"}},
      {"INT64", {"-9223372036854775808", "9223372036854775807"}},
      {"UINT8", {"0", "255"}},
      {"UINT16", {"65535"}},
      {"UINT32", {"4294967295"}},
      {"UINT64", {"18446744073709551615"}},
      {"FLOAT32", {"3.4028235e+38", "-1e-45", "NaN", "-Infinity"}},
      {"DECIMAL(9,0)", {"-999999999", "999999999"}},
      {"DECIMAL(10,2)", {"-99999999.99", "99999999.99"}},
      {"JSON", {"{\"a\":1}"}},
  };
  const char* targets[] = {"INT8",          "INT16",         "INT32",          "INT64",
                           "UINT8",         "UINT16",        "UINT32",         "UINT64",
                           "FLOAT32",       "FLOAT64",       "DECIMAL(3,0)",   "DECIMAL(10,0)",
                           "DECIMAL(19,0)", "DECIMAL(20,0)", "DECIMAL(38,10)", "DECIMAL(12,3)",
                           "VARCHAR",       "DECIMAL(11,2)"};
  int checked = 0;
  for (const auto& [from, values] : sources) {
    for (const char* to : targets) {
      if (!IsLosslessWidening(T(from), T(to))) continue;
      ++checked;
      Column in = Col(from, values);
      Result<Column> out = CastColumn(in, T(to));
      ASSERT_TRUE(out.ok()) << from << " -> " << to << ": " << out.status().ToString();
      // And back, exactly.
      Result<Column> back = CastColumn(*out, T(from));
      ASSERT_TRUE(back.ok()) << to << " -> " << from << ": " << back.status().ToString();
      EXPECT_EQ(Texts(*back), Texts(in)) << from << " -> " << to;
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(CanCastTest, Table) {
  EXPECT_TRUE(CanCast(T("INT32"), T("INT32")));
  EXPECT_TRUE(CanCast(T("UUID"), T("VARCHAR")));
  EXPECT_TRUE(CanCast(T("VARCHAR"), T("UUID")));
  EXPECT_TRUE(CanCast(T("VARCHAR"), T("JSON")));
  EXPECT_TRUE(CanCast(T("JSON"), T("VARCHAR")));
  EXPECT_TRUE(CanCast(T("FLOAT64"), T("INT8")));
  EXPECT_TRUE(CanCast(T("DECIMAL(10,2)"), T("BOOLEAN")));
  EXPECT_TRUE(CanCast(T("TIMESTAMP[ns]"), T("DATE")));
  EXPECT_TRUE(CanCast(T("TIMESTAMPTZ[s]"), T("TIMESTAMP[ns]")));
  EXPECT_TRUE(CanCast(T("ARRAY<VARCHAR>"), T("ARRAY<INT32>")));
  EXPECT_TRUE(CanCast(T("ARRAY<INT32>"), T("VARCHAR")));
  EXPECT_TRUE(CanCast(T("ARRAY<INT32>"), T("JSON")));
  EXPECT_FALSE(CanCast(T("UUID"), T("INT64")));
  EXPECT_FALSE(CanCast(T("INT64"), T("UUID")));
  EXPECT_FALSE(CanCast(T("TIME"), T("TIMESTAMP")));
  EXPECT_FALSE(CanCast(T("BLOB"), T("UUID")));
  EXPECT_FALSE(CanCast(T("JSON"), T("INT32")));
  EXPECT_TRUE(CanCast(T("VARCHAR"), T("ARRAY<INT32>")));
  EXPECT_TRUE(CanCast(T("JSON"), T("ARRAY<INT32>")));
  EXPECT_FALSE(CanCast(T("INT32"), T("ARRAY<INT32>")));
  EXPECT_FALSE(CanCast(T("ARRAY<UUID>"), T("ARRAY<INT32>")));
  EXPECT_FALSE(CanCast(T("ARRAY<INT32>"), T("INT32")));

  Result<Column> r = CastColumn(Col("UUID", {"f79c3e09-677c-4bbd-a479-3f349cb785e7"}), T("INT64"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "cannot cast UUID to INT64");
}

TEST(CastTest, IntegerRanges) {
  EXPECT_EQ(CastTexts("INT64", {"-128", "<null>", "127"}, "INT8"), (V{"-128", "<null>", "127"}));
  Failure f = CastFails("INT64", {"1", "<null>", "300"}, "INT8");
  EXPECT_EQ(f.message, "row 2: cannot cast INT64 to INT8: '300' is out of range for INT8");
  EXPECT_EQ(f.row, "2");
  EXPECT_EQ(f.value, "300");
  EXPECT_EQ(CastFails("INT8", {"-1"}, "UINT64").row, "0");
  EXPECT_EQ(CastFails("UINT64", {"9223372036854775808"}, "INT64").value, "9223372036854775808");
  EXPECT_EQ(CastTexts("UINT64", {"9223372036854775807"}, "INT64"), (V{"9223372036854775807"}));
  EXPECT_EQ(CastTexts("INT32", {"0", "1"}, "BOOLEAN"), (V{"false", "true"}));
  EXPECT_EQ(CastFails("INT32", {"2"}, "BOOLEAN").message,
            "row 0: cannot cast INT32 to BOOLEAN: '2' is not 0 or 1");
  EXPECT_EQ(CastTexts("BOOLEAN", {"true", "false"}, "DECIMAL(3,2)"), (V{"1.00", "0.00"}));
}

TEST(CastTest, FloatsToExactTypes) {
  EXPECT_EQ(CastTexts("FLOAT64", {"3", "-0", "1e18", "<null>"}, "INT64"),
            (V{"3", "0", "1000000000000000000", "<null>"}));
  EXPECT_EQ(CastFails("FLOAT64", {"1", "1.5"}, "INT32").message,
            "row 1: cannot cast FLOAT64 to INT32: '1.5' has a fraction, INT32 has none");
  EXPECT_NE(CastFails("FLOAT64", {"NaN"}, "INT32").message.find("not a finite number"),
            std::string::npos);
  CastFails("FLOAT64", {"Infinity"}, "INT64");
  CastFails("FLOAT64", {"9223372036854775808"}, "INT64");  // 2^63
  EXPECT_EQ(CastTexts("FLOAT64", {"-9223372036854775808"}, "INT64"), (V{"-9223372036854775808"}));
  EXPECT_EQ(CastTexts("FLOAT64", {"18446744073709549568"}, "UINT64"), (V{"18446744073709549568"}));
  CastFails("FLOAT64", {"18446744073709551616"}, "UINT64");
  CastFails("FLOAT32", {"-1"}, "UINT8");
  EXPECT_EQ(CastTexts("FLOAT32", {"255"}, "UINT8"), (V{"255"}));
  CastFails("FLOAT32", {"256"}, "UINT8");
  // To DECIMAL through the shortest text: 0.1 is 0.1, not 0.1000000000000000055...
  EXPECT_EQ(CastTexts("FLOAT64", {"0.1", "-2.5", "1e3", "<null>"}, "DECIMAL(10,2)"),
            (V{"0.10", "-2.50", "1000.00", "<null>"}));
  EXPECT_EQ(CastTexts("FLOAT32", {"0.1"}, "DECIMAL(5,4)"), (V{"0.1000"}));
  EXPECT_NE(CastFails("FLOAT64", {"0.125"}, "DECIMAL(10,2)").message.find("fraction digits"),
            std::string::npos);
  EXPECT_NE(CastFails("FLOAT64", {"1e20"}, "DECIMAL(10,2)").message.find("out of range"),
            std::string::npos);
  CastFails("FLOAT64", {"NaN"}, "DECIMAL(10,2)");
  EXPECT_EQ(CastTexts("FLOAT64", {"1", "0"}, "BOOLEAN"), (V{"true", "false"}));
  CastFails("FLOAT64", {"0.5"}, "BOOLEAN");
}

TEST(CastTest, IntoFloatsRounds) {
  EXPECT_EQ(CastTexts("FLOAT64", {"0.1", "NaN", "-Infinity", "1e-50"}, "FLOAT32"),
            (V{"0.1", "NaN", "-Infinity", "0"}));
  EXPECT_NE(CastFails("FLOAT64", {"1e39"}, "FLOAT32").message.find("out of range for FLOAT32"),
            std::string::npos);
  EXPECT_EQ(CastTexts("INT64", {"9007199254740993"}, "FLOAT64"), (V{"9007199254740992"}));
  EXPECT_EQ(CastTexts("UINT64", {"18446744073709551615"}, "FLOAT64"),
            (V{"18446744073709551616"}));  // 2^64, exact digits are shortest
  EXPECT_EQ(CastTexts("DECIMAL(10,2)", {"0.10", "-12345678.91"}, "FLOAT64"),
            (V{"0.1", "-12345678.91"}));
  EXPECT_EQ(CastTexts("DECIMAL(38,0)", {"99999999999999999999999999999999999999"}, "FLOAT32"),
            (V{"1e+38"}));
  EXPECT_EQ(CastTexts("DECIMAL(10,2)", {"0.10"}, "FLOAT32"), (V{"0.1"}));
}

TEST(CastTest, DecimalRescale) {
  EXPECT_EQ(CastTexts("DECIMAL(10,2)", {"1.50", "-0.01", "<null>"}, "DECIMAL(12,4)"),
            (V{"1.5000", "-0.0100", "<null>"}));
  EXPECT_EQ(CastTexts("DECIMAL(10,4)", {"1.5000", "-2.1200"}, "DECIMAL(4,2)"),
            (V{"1.50", "-2.12"}));
  EXPECT_EQ(CastFails("DECIMAL(10,4)", {"1.5001"}, "DECIMAL(10,2)").message,
            "row 0: cannot cast DECIMAL(10,4) to DECIMAL(10,2): '1.5001' has more than 2 "
            "fraction digits, the scale of DECIMAL(10,2)");
  EXPECT_NE(CastFails("DECIMAL(10,2)", {"100.00"}, "DECIMAL(4,2)").message.find("out of range"),
            std::string::npos);
  EXPECT_EQ(CastTexts("DECIMAL(38,0)", {"99999999999999999999999999999999999999"}, "DECIMAL(38,0)"),
            (V{"99999999999999999999999999999999999999"}));
  CastFails("DECIMAL(38,0)", {"99999999999999999999999999999999999999"}, "DECIMAL(38,1)");
  EXPECT_EQ(
      CastTexts("DECIMAL(38,0)", {"0", "-9"}, "DECIMAL(38,37)"),
      (V{"0.0000000000000000000000000000000000000", "-9.0000000000000000000000000000000000000"}));
  CastFails("DECIMAL(38,0)", {"10"}, "DECIMAL(38,37)");
  EXPECT_EQ(CastTexts("DECIMAL(5,5)", {"0.00001"}, "DECIMAL(38,38)"),
            (V{"0.00001000000000000000000000000000000000"}));
  EXPECT_EQ(CastTexts("DECIMAL(10,2)", {"12.00", "-3.00"}, "INT8"), (V{"12", "-3"}));
  EXPECT_NE(CastFails("DECIMAL(10,2)", {"12.50"}, "INT32").message.find("has a fraction"),
            std::string::npos);
  EXPECT_EQ(CastTexts("INT64", {"-9223372036854775808"}, "DECIMAL(38,10)"),
            (V{"-9223372036854775808.0000000000"}));
  CastFails("INT64", {"100"}, "DECIMAL(4,2)");
  EXPECT_EQ(CastTexts("UINT64", {"18446744073709551615"}, "DECIMAL(20,0)"),
            (V{"18446744073709551615"}));
}

TEST(CastTest, TextRoundTripsForEveryScalarType) {
  const std::pair<std::string_view, std::vector<std::string_view>> cases[] = {
      {"BOOLEAN", {"true", "false"}},
      {"INT8", {"-128", "127"}},
      {"UINT64", {"18446744073709551615"}},
      {"FLOAT64", {"0.1", "NaN", "-Infinity", "5e-324"}},
      {"FLOAT32", {"0.1", "Infinity"}},
      {"DECIMAL(38,38)", {"0.99999999999999999999999999999999999999"}},
      {"BLOB", {"AAEC/w==", ""}},
      {"DATE", {"2000-02-29", "-0001-01-01", "+10000-12-31"}},
      {"TIME", {"23:59:59.999999"}},
      {"TIME[ns]", {"23:59:59.999999999", "00:00:00.000000001"}},
      {"TIMESTAMP[ns]", {"1677-09-21T00:12:43.145224192"}},
      {"TIMESTAMPTZ[ms]", {"2017-11-16T22:31:08.123Z"}},
      {"UUID", {"f79c3e09-677c-4bbd-a479-3f349cb785e7"}},
      {"IPV4", {"255.0.0.1"}},
      {"JSON", {"{\"a\":[1,2]}"}},
  };
  for (const auto& [type, values] : cases) {
    std::vector<std::string_view> with_null = values;
    with_null.push_back("<null>");
    Column in = Col(type, with_null);
    Result<Column> text = CastColumn(in, T("VARCHAR"));
    ASSERT_TRUE(text.ok()) << type << ": " << text.status().ToString();
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(text->StringAt(i), values[i]) << type;
    EXPECT_FALSE(text->IsValid(static_cast<int64_t>(values.size())));
    Result<Column> back = CastColumn(*text, T(type));
    ASSERT_TRUE(back.ok()) << type << ": " << back.status().ToString();
    EXPECT_EQ(Texts(*back), Texts(in)) << type;
  }
}

TEST(CastTest, ParseFailuresNameRowAndValue) {
  Failure f = CastFails("VARCHAR", {"1", "<null>", "2", "x7"}, "INT32");
  EXPECT_EQ(f.message, "row 3: cannot cast VARCHAR to INT32: 'x7' is not a valid INT32");
  EXPECT_EQ(f.row, "3");
  EXPECT_EQ(f.value, "x7");
  f = CastFails("VARCHAR", {"{\"a\":1}", "{oops"}, "JSON");
  EXPECT_EQ(f.row, "1");
  EXPECT_EQ(f.value, "{oops");
  f = CastFails("VARCHAR", {"2017-02-29"}, "DATE");
  EXPECT_NE(f.message.find("no such day"), std::string::npos);
  // A long value is shortened in the message but kept whole in the field.
  std::string longtext(500, 'z');
  f = CastFails("VARCHAR", {longtext}, "INT64");
  EXPECT_LT(f.message.size(), 200u);
  EXPECT_EQ(f.value, longtext);
}

TEST(CastTest, Temporal) {
  EXPECT_EQ(CastTexts("TIMESTAMP[ms]", {"2017-11-16T22:31:08.123", "<null>"}, "TIMESTAMP[ns]"),
            (V{"2017-11-16T22:31:08.123", "<null>"}));
  EXPECT_EQ(CastTexts("TIMESTAMP[ns]", {"2017-11-16T22:31:08.123"}, "TIMESTAMP[ms]"),
            (V{"2017-11-16T22:31:08.123"}));
  EXPECT_EQ(CastFails("TIMESTAMP[ns]", {"2017-11-16T22:31:08.1234"}, "TIMESTAMP[ms]").message,
            "row 0: cannot cast TIMESTAMP[ns] to TIMESTAMP[ms]: '2017-11-16T22:31:08.1234' has "
            "a fraction finer than TIMESTAMP[ms]");
  EXPECT_NE(CastFails("TIMESTAMP[us]", {"2500-01-01T00:00:00"}, "TIMESTAMP[ns]")
                .message.find("out of range for TIMESTAMP[ns]"),
            std::string::npos);
  EXPECT_EQ(CastTexts("TIMESTAMP[s]", {"1969-12-31T23:59:59"}, "TIMESTAMPTZ[us]"),
            (V{"1969-12-31T23:59:59Z"}));
  EXPECT_EQ(CastTexts("TIMESTAMPTZ[us]", {"2017-11-16T14:31:08-08:00"}, "TIMESTAMP[us]"),
            (V{"2017-11-16T22:31:08"}));
  EXPECT_EQ(CastTexts("DATE", {"2017-11-16", "1900-01-01", "<null>"}, "TIMESTAMP[ns]"),
            (V{"2017-11-16T00:00:00", "1900-01-01T00:00:00", "<null>"}));
  CastFails("DATE", {"2300-01-01"}, "TIMESTAMP[ns]");
  EXPECT_EQ(CastTexts("DATE", {"9999-12-31"}, "TIMESTAMPTZ[s]"), (V{"9999-12-31T00:00:00Z"}));
  EXPECT_EQ(CastTexts("TIMESTAMP[us]", {"1969-12-31T00:00:00", "0001-01-01T00:00:00"}, "DATE"),
            (V{"1969-12-31", "0001-01-01"}));
  EXPECT_EQ(CastFails("TIMESTAMP[us]", {"1969-12-31T23:59:59.999999"}, "DATE").message,
            "row 0: cannot cast TIMESTAMP[us] to DATE: '1969-12-31T23:59:59.999999' is not at "
            "midnight, DATE has no time of day");
  CastFails("TIMESTAMP[s]", {"+6000000-01-01T00:00:00"}, "DATE");
}

TEST(CastTest, TimeUnits) {
  EXPECT_EQ(CastTexts("TIME", {"23:59:59.999999", "00:00:00", "<null>"}, "TIME[ns]"),
            (V{"23:59:59.999999", "00:00:00", "<null>"}));
  EXPECT_EQ(CastTexts("TIME[ns]", {"23:59:59.999999", "12:00:00.5"}, "TIME"),
            (V{"23:59:59.999999", "12:00:00.5"}));
  EXPECT_EQ(CastFails("TIME[ns]", {"12:00:00", "23:59:59.999999999"}, "TIME").message,
            "row 1: cannot cast TIME[ns] to TIME: '23:59:59.999999999' has a fraction finer "
            "than TIME");
  EXPECT_TRUE(CanCast(T("TIME"), T("TIME[ns]")));
  EXPECT_TRUE(CanCast(T("TIME[ns]"), T("TIME")));
  EXPECT_FALSE(CanCast(T("TIME[ns]"), T("TIMESTAMP[ns]")));
  // Not a schema widening: the stored bounds of both are 8 bytes in different units.
  EXPECT_FALSE(IsLosslessWidening(T("TIME"), T("TIME[ns]")));
  EXPECT_FALSE(IsLosslessWidening(T("TIME[ns]"), T("TIME")));
}

TEST(CastTest, StringsAndJson) {
  EXPECT_EQ(CastTexts("JSON", {"{\"a\": 1}", "<null>"}, "VARCHAR"), (V{"{\"a\": 1}", "<null>"}));
  EXPECT_EQ(CastTexts("VARCHAR", {"[1, 2]"}, "JSON"), (V{"[1, 2]"}));
  EXPECT_EQ(CastTexts("VARCHAR", {"AAEC/w=="}, "BLOB"), (V{"AAEC/w=="}));
  CastFails("VARCHAR", {"not base64!"}, "BLOB");
}

TEST(CastTest, Arrays) {
  Column in(T("ARRAY<VARCHAR>"));
  in.child->AppendBytes("1");
  in.child->AppendBytes("2");
  in.AppendArrayRow();
  in.AppendNull();
  in.AppendArrayRow();
  in.child->AppendNull();
  in.child->AppendBytes("-3");
  in.AppendArrayRow();
  Result<Column> out = CastColumn(in, T("ARRAY<INT8>"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Texts(*out), (V{"[1,2]", "<null>", "[]", "[null,-3]"}));

  Result<Column> text = CastColumn(*out, T("VARCHAR"));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(Texts(*text), (V{"[1,2]", "<null>", "[]", "[null,-3]"}));
  Result<Column> json = CastColumn(*out, T("JSON"));
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(json->type, T("JSON"));

  // A bad element reports the row that holds it.
  in.child->AppendBytes("4");
  in.child->AppendBytes("999");
  in.AppendArrayRow();
  Result<Column> bad = CastColumn(in, T("ARRAY<INT8>"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "row 4: cannot cast ARRAY<VARCHAR> to ARRAY<INT8>: element 5: '999' is out of "
            "range for INT8 (-128..127)");
  std::string row, value;
  for (const auto& [k, v] : bad.status().fields()) {
    if (k == "row") row = v;
    if (k == "value") value = v;
  }
  EXPECT_EQ(row, "4");
  EXPECT_EQ(value, "999");
}

TEST(CastTest, NestedArrayWidening) {
  Column in(T("ARRAY<ARRAY<INT32>>"));
  in.child->child->AppendFixed<int32_t>(std::numeric_limits<int32_t>::min());
  in.child->AppendArrayRow();
  in.AppendArrayRow();
  Result<Column> out = CastColumn(in, T("ARRAY<ARRAY<INT64>>"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Texts(*out), (V{"[[-2147483648]]"}));
}

TEST(CastTest, StructsAndMaps) {
  EXPECT_TRUE(
      IsLosslessWidening(T("STRUCT<a: INT32, b: VARCHAR>"), T("STRUCT<a: INT64, b: VARCHAR>")));
  EXPECT_FALSE(IsLosslessWidening(T("STRUCT<a: INT32>"), T("STRUCT<b: INT64>")));
  EXPECT_FALSE(IsLosslessWidening(T("STRUCT<a: INT32>"), T("STRUCT<a: INT64, b: INT8>")));
  EXPECT_FALSE(IsLosslessWidening(T("STRUCT<a: INT64>"), T("STRUCT<a: INT32>")));
  EXPECT_TRUE(IsLosslessWidening(T("MAP<VARCHAR, FLOAT32>"), T("MAP<VARCHAR, FLOAT64>")));
  EXPECT_FALSE(IsLosslessWidening(T("MAP<INT32, INT32>"), T("MAP<INT64, INT32>")));
  EXPECT_TRUE(CanCast(T("STRUCT<a: VARCHAR>"), T("STRUCT<a: INT32>")));
  EXPECT_FALSE(CanCast(T("STRUCT<a: VARCHAR>"), T("STRUCT<b: INT32>")));
  EXPECT_FALSE(CanCast(T("STRUCT<a: VARCHAR>"), T("MAP<VARCHAR, VARCHAR>")));
  EXPECT_FALSE(CanCast(T("MAP<VARCHAR, VARCHAR>"), T("ARRAY<VARCHAR>")));
  EXPECT_TRUE(CanCast(T("MAP<VARCHAR, VARCHAR>"), T("MAP<VARCHAR, INT8>")));
  EXPECT_TRUE(CanCast(T("STRUCT<a: INT8>"), T("JSON")));
  EXPECT_TRUE(CanCast(T("VARCHAR"), T("STRUCT<a: INT8>")));
  EXPECT_FALSE(CanCast(T("UUID"), T("STRUCT<a: INT8>")));

  Column s(T("STRUCT<a: VARCHAR, b: INT32>"));
  s.members[0].AppendBytes("7");
  s.members[1].AppendFixed<int32_t>(1);
  s.AppendStructRow();
  s.AppendNull();
  s.members[0].AppendBytes("300");
  s.members[1].AppendNull();
  s.AppendStructRow();
  Result<Column> wide = CastColumn(s, T("STRUCT<a: INT16, b: INT64>"));
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  EXPECT_EQ(Texts(*wide), (V{R"({"a":7,"b":1})", "<null>", R"({"a":300,"b":null})"}));
  Result<Column> bad = CastColumn(s, T("STRUCT<a: INT8, b: INT64>"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "row 2: cannot cast STRUCT<a: VARCHAR, b: INT32> to STRUCT<a: INT8, b: INT64>: member "
            "a: '300' is out of range for INT8 (-128..127)");
  Result<Column> text = CastColumn(s, T("VARCHAR"));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(Texts(*text), (V{R"({"a":"7","b":1})", "<null>", R"({"a":"300","b":null})"}));

  Column m(T("MAP<VARCHAR, VARCHAR>"));
  m.members[0].AppendBytes("k");
  m.members[1].AppendBytes("1");
  m.AppendArrayRow();
  m.members[0].AppendBytes("k");
  m.members[1].AppendBytes("x");
  m.AppendArrayRow();
  Result<Column> mbad = CastColumn(m, T("MAP<VARCHAR, INT8>"));
  ASSERT_FALSE(mbad.ok());
  EXPECT_NE(mbad.status().message().find("row 1: "), std::string::npos) << mbad.status().ToString();
  m.members[1] = Column(T("VARCHAR"));
  m.members[1].AppendBytes("1");
  m.members[1].AppendBytes("2");
  Result<Column> mok = CastColumn(m, T("MAP<VARCHAR, INT8>"));
  ASSERT_TRUE(mok.ok()) << mok.status().ToString();
  EXPECT_EQ(Texts(*mok), (V{R"([{"key":"k","value":1}])", R"([{"key":"k","value":2}])"}));
}

TEST(CastTest, IdentityAndLargeColumns) {
  Column in(T("INT32"));
  for (int32_t i = 0; i < 200000; ++i) {
    if (i % 1000 == 7) {
      in.AppendNull();
    } else {
      in.AppendFixed<int32_t>(i - 100000);
    }
  }
  Result<Column> same = CastColumn(in, T("INT32"));
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->data, in.data);
  Result<Column> wide = CastColumn(in, T("INT64"));
  ASSERT_TRUE(wide.ok());
  ASSERT_EQ(wide->length, in.length);
  EXPECT_EQ(wide->null_count(), in.null_count());
  for (int64_t i = 0; i < in.length; i += 997) {
    if (in.IsValid(i)) {
      EXPECT_EQ(wide->Value<int64_t>(i), in.Value<int32_t>(i));
    }
  }
}

}  // namespace
}  // namespace tarn

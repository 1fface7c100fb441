#include "types/variant.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/hex.h"
#include "tarn/column.h"
#include "types/cast.h"
#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn {
namespace {

struct Vector {
  const char* name;
  const char* metadata_hex;
  const char* value_hex;
  const char* json;  // tarn's rendering
};

// apache/parquet-testing variant/*.metadata and *.value (Apache License 2.0), the spec's
// examples of every primitive type, short and long strings, objects and arrays; the JSON is
// tarn's rendering of each (data_dictionary.json holds Spark's).
const Vector kVectors[] = {
    {"array_empty", "010000", "030000", R"j([])j"},
    {"array_nested", "01040002070c1069647468696e676e616d657374797065",
     "0303002526450202000100021e0c0102010200170302000b1229436f6e7472617269616e19537069"
     "646572000203000203000502160c02096966030300060a0b154170706c650d52617900",
     R"j([{"id":1,"thing":{"names":["Contrarian","Spider"]}},null,{"id":2,"names":["Apple","Ray",null],"type":"if"}])j"},
    {"array_primitive", "010000", "030400020406080c020c010c050c09", R"j([2,1,5,9])j"},
    {"long_string", "010000",
     "40980000005468697320737472696e6720697320666f72207375726520616e64206365727461696e"
     "6c79206c6f6e676572207468616e20363420627974657320616e6420697420616c736f20696e636c"
     "75646573207365766572616c206e6f6e206173636969206368617261637465727320737563682061"
     "7320f09f90a22c20f09f92962c20e299a5efb88f2c20f09f8ea320616e6420f09fa4a62121",
     R"j("This string is for sure and certainly longer than 64 bytes and it also includes several non ascii characters such as 🐢, 💖, ♥️, 🎣 and 🤦!!")j"},
    {"object_empty", "010000", "020000", R"j({})j"},
    {"object_nested",
     "010a0002090d1722262e333e466964737065636965736e616d65706f70756c6174696f6e6f627365"
     "72766174696f6e74696d656c6f636174696f6e76616c756574656d706572617475726568756d6964"
     "697479",
     "0203000401001902460c0102020203000d10316c617661206d6f6e7374657210851a020306050709"
     "0018242131323a33343a353639496e2074686520566f6c63616e6f020209080200050c7b10c801",
     R"j({"id":1,"observation":{"location":"In the Volcano","time":"12:34:56","value":{"humidity":456,"temperature":123}},"species":{"name":"lava monster","population":6789}})j"},
    {"object_primitive",
     "0107000915273a46505f696e745f6669656c64646f75626c655f6669656c64626f6f6c65616e5f74"
     "7275655f6669656c64626f6f6c65616e5f66616c73655f6669656c64737472696e675f6669656c64"
     "6e756c6c5f6669656c6474696d657374616d705f6669656c64",
     "02070302010005040609080200190a1a310c01200815cd5b07040839417061636865205061727175"
     "65740059323032352d30342d31365431323a33343a35362e3738",
     R"j({"boolean_false_field":false,"boolean_true_field":true,"double_field":1.23456789,"int_field":1,"null_field":null,"string_field":"Apache Parquet","timestamp_field":"2025-04-16T12:34:56.78"})j"},
    {"primitive_binary", "010000", "3c09000000031337deadbeefcafe", R"j("AxM33q2+78r+")j"},
    {"primitive_boolean_false", "010000", "08", R"j(false)j"},
    {"primitive_boolean_true", "010000", "04", R"j(true)j"},
    {"primitive_date", "010000", "2ce24e0000", R"j("2025-04-16")j"},
    {"primitive_decimal16", "010000", "2802d2b623c0f41022110000000000000000",
     R"j(12345678912345678.90)j"},
    {"primitive_decimal4", "010000", "2002d2040000", R"j(12.34)j"},
    {"primitive_decimal8", "010000", "2402d202964900000000", R"j(12345678.90)j"},
    {"primitive_double", "010000", "1cc9e587b48065d241", R"j(1234567890.1234)j"},
    {"primitive_float", "010000", "38062c934e", R"j(1234567936)j"},
    {"primitive_int16", "010000", "10d204", R"j(1234)j"},
    {"primitive_int32", "010000", "1440e20100", R"j(123456)j"},
    {"primitive_int64", "010000", "181581e97df4102211", R"j(1234567890123456789)j"},
    {"primitive_int8", "010000", "0c2a", R"j(42)j"},
    {"primitive_null", "010000", "00", R"j(null)j"},
    {"primitive_string", "010000",
     "40ae0000005468697320737472696e67206973206c6f6e676572207468616e203634206279746573"
     "20616e64207468657265666f726520646f6573206e6f742066697420696e20612073686f72745f73"
     "7472696e6720616e6420697420616c736f20696e636c75646573207365766572616c206e6f6e2061"
     "736369692063686172616374657273207375636820617320f09f90a22c20f09f92962c20e299a5ef"
     "b88f2c20f09f8ea320616e6420f09fa4a62121",
     R"j("This string is longer than 64 bytes and therefore does not fit in a short_string and it also includes several non ascii characters such as 🐢, 💖, ♥️, 🎣 and 🤦!!")j"},
    {"primitive_time", "010000", "44c0f229880a000000", R"j("12:33:54.123456")j"},
    {"primitive_timestamp", "010000", "30e05297dde7320600", R"j("2025-04-16T16:34:56.78Z")j"},
    {"primitive_timestamp_nanos", "010000", "4815413a6cb7af0518",
     R"j("2024-11-07T12:33:54.123456789Z")j"},
    {"primitive_timestampntz", "010000", "34e0c24883e4320600", R"j("2025-04-16T12:34:56.78")j"},
    {"primitive_timestampntz_nanos", "010000", "4c15413a6cb7af0518",
     R"j("2024-11-07T12:33:54.123456789")j"},
    {"primitive_uuid", "010000", "50f24f9b6481fa49d1b74e8c09a6e31c56",
     R"j("f24f9b64-81fa-49d1-b74e-8c09a6e31c56")j"},
    {"short_string", "010000",
     "954c657373207468616e2036342062797465732028e29da4efb88f2077697468207574663829",
     R"j("Less than 64 bytes (❤️ with utf8)")j"},
};

std::string Bytes(const char* hex) { return HexDecode(hex).value(); }

std::string Render(std::string_view metadata, std::string_view value) {
  std::string out;
  Status st = AppendVariantJson(metadata, value, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

// JSON text -> VARIANT -> JSON text.
std::string RoundTrip(std::string_view json) {
  std::string metadata, value;
  Status st = EncodeVariantFromJson(json, &metadata, &value);
  EXPECT_TRUE(st.ok()) << json << ": " << st.ToString();
  EXPECT_TRUE(ValidateVariant(metadata, value).ok()) << json;
  return Render(metadata, value);
}

std::string EncodedValueHex(std::string_view json) {
  std::string metadata, value;
  EXPECT_TRUE(EncodeVariantFromJson(json, &metadata, &value).ok()) << json;
  return HexEncode(value);
}

TEST(Variant, RendersTheSpecVectorsOfEveryType) {
  for (const Vector& v : kVectors) {
    SCOPED_TRACE(v.name);
    const std::string metadata = Bytes(v.metadata_hex);
    const std::string value = Bytes(v.value_hex);
    EXPECT_TRUE(ValidateVariant(metadata, value).ok());
    EXPECT_EQ(Render(metadata, value), v.json);
  }
}

TEST(Variant, EveryTruncationOfTheSpecVectorsIsCorruption) {
  for (const Vector& v : kVectors) {
    SCOPED_TRACE(v.name);
    const std::string metadata = Bytes(v.metadata_hex);
    const std::string value = Bytes(v.value_hex);
    for (size_t n = 0; n < value.size(); ++n) {
      Status st = ValidateVariant(metadata, value.substr(0, n));
      EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << n;
    }
    for (size_t n = 0; n < metadata.size(); ++n) {
      EXPECT_FALSE(ValidateVariant(metadata.substr(0, n), value).ok()) << n;
    }
    // One byte more is a value followed by stray bytes.
    EXPECT_EQ(ValidateVariant(metadata, value + '\0').kind(), ErrorKind::kCorruption);
  }
}

TEST(Variant, FlippedBytesNeverReadOutOfBounds) {
  // Every single-byte change of every vector either decodes or is kCorruption (ASan checks
  // that nothing reads past the bytes).
  for (const Vector& v : kVectors) {
    const std::string metadata = Bytes(v.metadata_hex);
    const std::string value = Bytes(v.value_hex);
    for (size_t i = 0; i < value.size(); ++i) {
      for (int b : {0x00, 0x01, 0x03, 0x7F, 0x80, 0xFF}) {
        std::string bad = value;
        bad[i] = static_cast<char>(b);
        std::string out;
        Status st = AppendVariantJson(metadata, bad, &out);
        if (!st.ok()) {
          EXPECT_EQ(st.kind(), ErrorKind::kCorruption);
          EXPECT_TRUE(out.empty());
        }
      }
    }
  }
}

TEST(Variant, MalformedBytesSayWhatIsWrong) {
  const std::string empty_md = Bytes("010000");
  struct Case {
    std::string metadata, value, why;
  } cases[] = {
      {"", "00", "empty metadata"},
      {Bytes("020000"), "00", "metadata version 2"},
      {Bytes("0105"), "00", "longer than its bytes"},
      {Bytes("01010001"), "00", "metadata offsets out of order or range"},
      {Bytes("0101000161ff"), "00", "bytes after the metadata dictionary"},
      {Bytes("01010001ff"), "00", "not UTF-8"},
      {Bytes("1102000102") + "ba", "00", "sorted and unique"},
      {empty_md, "", "has no bytes"},
      {empty_md, Bytes("54"), "unknown primitive type 21"},
      {empty_md, Bytes("2027d2040000"), "decimal scale 39"},
      {empty_md, Bytes("05ff"), "not UTF-8"},
      {empty_md, Bytes("0d61"), "longer than its bytes"},
      {empty_md, Bytes("0201000000"), "field id 0 outside the dictionary"},
      {Bytes("01020001026162"), Bytes("020201000001020000"), "not sorted and unique"},
      {empty_md, Bytes("0302000205"), "longer than its bytes"},
      {empty_md, Bytes("03010001"), "longer than its bytes"},
      {empty_md, Bytes("44") + std::string("\x00\x00\x00\x00\x00\x00\x00\x80", 8), "time"},
      {empty_md, Bytes("0000"), "1 bytes after the value"},
  };
  for (const Case& c : cases) {
    Status st = ValidateVariant(c.metadata, c.value);
    EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << c.why;
    EXPECT_NE(st.message().find(c.why), std::string::npos) << st.message();
  }
}

TEST(Variant, NestingIsBounded) {
  // 300 arrays of one element each around a null, deeper than kMaxVariantDepth, built inside
  // out so each array's last offset is its element's size.
  std::string inner = Bytes("00");
  for (int i = 0; i < 300; ++i) {
    std::string a = Bytes("0301");
    a.push_back(0);
    a.push_back(static_cast<char>(inner.size() < 256 ? inner.size() : 0));
    if (inner.size() >= 256) {
      a = Bytes("0701");  // 2-byte offsets
      a += std::string("\0\0", 2);
      a.push_back(static_cast<char>(inner.size() & 0xFF));
      a.push_back(static_cast<char>(inner.size() >> 8));
    }
    inner = a + inner;
  }
  Status st = ValidateVariant(Bytes("010000"), inner);
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption);
  EXPECT_NE(st.message().find("nested deeper"), std::string::npos) << st.message();
  std::string json(300, '[');
  json += std::string(300, ']');
  std::string m, v;
  EXPECT_EQ(EncodeVariantFromJson(json, &m, &v).kind(), ErrorKind::kInvalidArgument);
  json = std::string(200, '[') + std::string(200, ']');
  EXPECT_TRUE(EncodeVariantFromJson(json, &m, &v).ok());
  EXPECT_TRUE(ValidateVariant(m, v).ok());
}

TEST(Variant, JsonRoundTripsWithKeysSorted) {
  EXPECT_EQ(RoundTrip("null"), "null");
  EXPECT_EQ(RoundTrip(" true "), "true");
  EXPECT_EQ(RoundTrip("-0.5"), "-0.5");
  EXPECT_EQ(RoundTrip("1e300"), "1e+300");
  // A negative zero stays a double (printed "-0" it would read back as the integer 0).
  EXPECT_EQ(RoundTrip("-0.0"), "-0.0");
  EXPECT_EQ(RoundTrip("-61.5e-7969"), "-0.0");
  EXPECT_EQ(RoundTrip(RoundTrip("-0.0")), "-0.0");
  EXPECT_EQ(RoundTrip("\"a\\n\\u00e9\""), "\"a\\né\"");
  EXPECT_EQ(RoundTrip(R"({"b":1,"a":[true,null,2.5,"x"],"c":{"d":-129,"a":{}}})"),
            R"({"a":[true,null,2.5,"x"],"b":1,"c":{"a":{},"d":-129}})");
  EXPECT_EQ(RoundTrip(R"({"k":1,"k":2})"), R"({"k":2})");  // the last of duplicate keys
  EXPECT_EQ(RoundTrip("[]"), "[]");
  EXPECT_EQ(RoundTrip("18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(RoundTrip("-9223372036854775808"), "-9223372036854775808");
  const std::string long_text(100, 'z');
  EXPECT_EQ(RoundTrip("\"" + long_text + "\""), "\"" + long_text + "\"");
}

TEST(Variant, EncodesWithTheSmallestTypesAndSizes) {
  EXPECT_EQ(EncodedValueHex("[2,1,5,9]"), "030400020406080c020c010c050c09");  // the spec's vector
  EXPECT_EQ(EncodedValueHex("127"), "0c7f");
  EXPECT_EQ(EncodedValueHex("-129"), "107fff");
  EXPECT_EQ(EncodedValueHex("70000"), "1470110100");
  EXPECT_EQ(EncodedValueHex("5000000000"), "1800f2052a01000000");
  EXPECT_EQ(EncodedValueHex("9223372036854775808"),
            "28" + std::string(16, '0') + "80" + std::string(16, '0'));
  EXPECT_EQ(EncodedValueHex("1.5"), "1c000000000000f83f");
  EXPECT_EQ(EncodedValueHex("\"hi\""), "096869");
  EXPECT_EQ(EncodedValueHex("\"" + std::string(64, 'a') + "\"").substr(0, 10), "4040000000");
  std::string md, value;
  ASSERT_TRUE(EncodeVariantFromJson(R"({"b":true,"a":null})", &md, &value).ok());
  EXPECT_EQ(HexEncode(md),
            "1102000102"
            "6162");  // sorted, 2 keys: "a" "b"
  EXPECT_EQ(HexEncode(value),
            "0202"
            "0001"
            "000102"
            "0004");  // ids 0 1, offsets 0 1 2
}

TEST(Variant, LargeObjectsAndArrays) {
  // 300 members: 4-byte counts (is_large), 2-byte field ids and offsets.
  // (The keys are already in byte order, so the rendering is the text itself.)
  std::string json = "{";
  for (int i = 0; i < 300; ++i) {
    json += (i ? ",\"k" : "\"k") + std::to_string(1000 + i) + "\":" + std::to_string(i * 1000);
  }
  json += "}";
  EXPECT_EQ(RoundTrip(json), json);
  std::string arr = "[";
  for (int i = 0; i < 300; ++i) arr += (i ? ",\"" : "\"") + std::string(40, 'x') + "\"";
  arr += "]";
  EXPECT_EQ(RoundTrip(arr), arr);
}

TEST(Variant, BadJsonIsInvalidArgument) {
  std::string m, v;
  for (std::string_view bad : {"", "{", "[1,]", "nul", "{\"a\" 1}", "\"\xff\"", "1 2"}) {
    Status st = EncodeVariantFromJson(bad, &m, &v);
    EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("is not a VARIANT"), std::string::npos) << st.message();
  }
}

TEST(Variant, TypeNameAndColumn) {
  EXPECT_EQ(DataType::Parse("variant")->ToString(), "VARIANT");
  EXPECT_EQ(DataType::Parse("VARIANT")->id(), TypeId::kVariant);
  EXPECT_FALSE(DataType::Parse("ARRAY<VARIANT>").ok());
  EXPECT_FALSE(DataType::Parse("STRUCT<a: VARIANT>").ok());
  EXPECT_FALSE(DataType::Parse("MAP<VARCHAR, VARIANT>").ok());
  Result<Schema> s = Schema::Parse("id INT64, v VARIANT NOT NULL");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->ToString(), "id INT64, v VARIANT NOT NULL");
  EXPECT_TRUE(DataType::Variant().children().empty());

  Column c(DataType::Variant());
  ASSERT_EQ(c.members.size(), 2u);
  ASSERT_TRUE(AppendParsedValue(R"({"x": [1, "two"]})", &c).ok());
  c.AppendNull();
  ASSERT_TRUE(AppendParsedValue("3.25", &c).ok());
  EXPECT_FALSE(AppendParsedValue("{oops", &c).ok());
  EXPECT_EQ(c.length, 3);
  std::string json;
  for (int64_t i = 0; i < c.length; ++i) {
    json.clear();
    AppendJsonValue(c, i, &json);
    EXPECT_EQ(json, i == 0 ? R"({"x":[1,"two"]})" : i == 1 ? "null" : "3.25");
  }
  EXPECT_EQ(ValueText(c, 0), R"({"x":[1,"two"]})");
  Column copy(DataType::Variant());
  copy.AppendRows(c, 1, 3);
  copy.AppendColumn(c.Clone());
  EXPECT_EQ(copy.length, 5);
  EXPECT_FALSE(copy.IsValid(0));
  EXPECT_EQ(ValueText(copy, 1), "3.25");
  EXPECT_EQ(ValueText(copy, 2), R"({"x":[1,"two"]})");
  Column nulls = Column::Nulls(DataType::Variant(), 2);
  EXPECT_EQ(nulls.members[1].length, 2);
  json.clear();
  AppendJsonValue(nulls, 1, &json);
  EXPECT_EQ(json, "null");
  // A column built by hand with bad bytes renders as a string saying so, never past the bytes.
  Column bad(DataType::Variant());
  bad.AppendVariant(std::string("\x01\x00\x00", 3), "\x0c");
  json.clear();
  AppendJsonValue(bad, 0, &json);
  EXPECT_EQ(json, "\"malformed VARIANT\"");
}

TEST(Variant, CastsOnlyToAndFromJsonText) {
  const DataType v = DataType::Variant();
  EXPECT_TRUE(CanCast(DataType::Varchar(), v));
  EXPECT_TRUE(CanCast(DataType::Json(), v));
  EXPECT_TRUE(CanCast(v, DataType::Varchar()));
  EXPECT_TRUE(CanCast(v, DataType::Json()));
  EXPECT_TRUE(CanCast(v, v));
  for (const char* other : {"INT64", "BLOB", "STRUCT<a: INT64>", "ARRAY<INT64>", "DOUBLE"}) {
    EXPECT_FALSE(CanCast(v, *DataType::Parse(other))) << other;
    EXPECT_FALSE(CanCast(*DataType::Parse(other), v)) << other;
    EXPECT_FALSE(IsLosslessWidening(v, *DataType::Parse(other))) << other;
    EXPECT_FALSE(IsLosslessWidening(*DataType::Parse(other), v)) << other;
  }
  Column text(DataType::Varchar());
  text.AppendBytes(R"({"b": 2, "a": 1})");
  text.AppendNull();
  text.AppendBytes("[true]");
  Result<Column> variant = CastColumn(text, v);
  ASSERT_TRUE(variant.ok()) << variant.status().ToString();
  Result<Column> back = CastColumn(*variant, DataType::Json());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->StringAt(0), R"({"a":1,"b":2})");
  EXPECT_FALSE(back->IsValid(1));
  EXPECT_EQ(back->StringAt(2), "[true]");
  Column bad(DataType::Varchar());
  bad.AppendBytes("not json");
  Result<Column> failed = CastColumn(bad, v);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("row 0: cannot cast VARCHAR to VARIANT"),
            std::string::npos)
      << failed.status().message();
}

}  // namespace
}  // namespace tarn

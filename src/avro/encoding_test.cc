#include "avro/encoding.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "avro/test_util.h"

namespace tarn::avro {
namespace {

using testing::Arr;
using testing::DecodeAll;
using testing::FromHex;
using testing::Hex;
using testing::Int;
using testing::Long;
using testing::MustParse;
using testing::Rec;
using testing::Str;

std::string EncodeHex(const Value& v, const Schema& s) {
  ByteBuffer out;
  Status st = Encode(v, s.root(), &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return Hex(out);
}

// The spec's zigzag table, as longs and as ints, both ways.
TEST(AvroEncoding, SpecZigZagVectors) {
  const std::pair<int64_t, const char*> vectors[] = {
      {0, "00"}, {-1, "01"}, {1, "02"}, {-2, "03"}, {2, "04"}, {-64, "7f"}, {64, "8001"}};
  Schema l = MustParse("\"long\"");
  Schema i = MustParse("\"int\"");
  for (auto [v, hex] : vectors) {
    EXPECT_EQ(EncodeHex(Long(v), l), hex) << v;
    EXPECT_EQ(EncodeHex(Int(static_cast<int32_t>(v)), i), hex) << v;
    ASSERT_OK_AND_ASSIGN(Value back, DecodeAll(FromHex(hex), l.root()));
    EXPECT_EQ(back, Long(v));
    ASSERT_OK_AND_ASSIGN(Value iback, DecodeAll(FromHex(hex), i.root()));
    EXPECT_EQ(iback, Int(static_cast<int32_t>(v)));
  }
}

TEST(AvroEncoding, SpecExamples) {
  EXPECT_EQ(EncodeHex(Str("foo"), MustParse("\"string\"")), "06666f6f");
  // {"a": long, "b": string} with a = 27, b = "foo": 36 06 66 6f 6f.
  Schema rec = MustParse(R"({"type": "record", "name": "test", "fields": [
    {"name": "a", "type": "long"}, {"name": "b", "type": "string"}]})");
  EXPECT_EQ(EncodeHex(Rec({Long(27), Str("foo")}), rec), "3606666f6f");
  // An array of longs [3, 27]: 04 06 36 00.
  Schema arr = MustParse(R"({"type": "array", "items": "long"})");
  EXPECT_EQ(EncodeHex(Arr({Long(3), Long(27)}), arr), "04063600");
  // ["null", "string"]: null is 00, "a" is 02 02 61.
  Schema u = MustParse(R"(["null", "string"])");
  EXPECT_EQ(EncodeHex(MakeUnion(0, Value()), u), "00");
  EXPECT_EQ(EncodeHex(MakeUnion(1, Str("a")), u), "020261");
  // A fixed is its bytes, an enum its index, a boolean one byte, floats little-endian.
  EXPECT_EQ(EncodeHex(Value(Fixed{"\x01\x02"}), MustParse(R"({"type": "fixed", "name": "F",
                                                               "size": 2})")),
            "0102");
  EXPECT_EQ(EncodeHex(Value(Enum{2}), MustParse(R"({"type": "enum", "name": "E",
                                                    "symbols": ["A", "B", "C"]})")),
            "04");
  EXPECT_EQ(EncodeHex(Value(true), MustParse("\"boolean\"")), "01");
  EXPECT_EQ(EncodeHex(Value(1.0f), MustParse("\"float\"")), "0000803f");
  EXPECT_EQ(EncodeHex(Value(-2.5), MustParse("\"double\"")), "00000000000004c0");
  EXPECT_EQ(EncodeHex(Value(Bytes{std::string("\0\xff", 2)}), MustParse("\"bytes\"")), "0400ff");
  EXPECT_EQ(EncodeHex(Value(), MustParse("\"null\"")), "");
  // A map {"k": 1}: count 1, key, value, end.
  EXPECT_EQ(EncodeHex(Value(Map{{{"k", Int(1)}}}), MustParse(R"({"type": "map",
                                                                 "values": "int"})")),
            "02026b0200");
}

TEST(AvroEncoding, ExtremesOfIntAndLong) {
  Schema l = MustParse("\"long\"");
  Schema i = MustParse("\"int\"");
  EXPECT_EQ(EncodeHex(Long(std::numeric_limits<int64_t>::max()), l), "feffffffffffffffff01");
  EXPECT_EQ(EncodeHex(Long(std::numeric_limits<int64_t>::min()), l), "ffffffffffffffffff01");
  EXPECT_EQ(EncodeHex(Int(std::numeric_limits<int32_t>::max()), i), "feffffff0f");
  EXPECT_EQ(EncodeHex(Int(std::numeric_limits<int32_t>::min()), i), "ffffffff0f");
  for (int64_t v : {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                    int64_t{1} << 40, -(int64_t{1} << 40) - 1}) {
    ByteBuffer b;
    ASSERT_OK(Encode(Long(v), l.root(), &b));
    ASSERT_OK_AND_ASSIGN(Value back, DecodeAll(b, l.root()));
    EXPECT_EQ(back, Long(v));
  }
  for (int32_t v : {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}) {
    ByteBuffer b;
    ASSERT_OK(Encode(Int(v), i.root(), &b));
    ASSERT_OK_AND_ASSIGN(Value back, DecodeAll(b, i.root()));
    EXPECT_EQ(back, Int(v));
  }
}

// A schema with every type, nested, and values for it.
constexpr std::string_view kEveryType = R"({
  "type": "record", "name": "Every", "namespace": "t", "fields": [
    {"name": "n", "type": "null"},
    {"name": "b", "type": "boolean"},
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "by", "type": "bytes"},
    {"name": "s", "type": "string"},
    {"name": "e", "type": {"type": "enum", "name": "Suit",
                           "symbols": ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]}},
    {"name": "fx", "type": {"type": "fixed", "name": "Id", "size": 4}},
    {"name": "a", "type": {"type": "array", "items": ["null", "long"]}},
    {"name": "m", "type": {"type": "map", "values": {"type": "array", "items": "string"}}},
    {"name": "u", "type": ["null", "string", "Suit", {"type": "record", "name": "P",
      "fields": [{"name": "x", "type": "double"}, {"name": "tags",
                  "type": {"type": "map", "values": "Id"}}]}]},
    {"name": "nested", "type": {"type": "array", "items": "P"}}
  ]})";

Value RandomEvery(std::mt19937_64& rng) {
  auto pick = [&](uint64_t n) { return rng() % n; };
  auto str = [&](size_t max) {
    std::string s;
    for (size_t k = pick(max + 1); k > 0; --k) s.push_back(static_cast<char>('a' + pick(26)));
    if (pick(4) == 0) s += "\xc3\xa9\xe2\x82\xac";  // é€
    return s;
  };
  auto fixed4 = [&] {
    std::string s(4, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return Value(Fixed{s});
  };
  auto point = [&] {
    Map tags;
    for (size_t k = pick(3); k > 0; --k) tags.entries.emplace_back(str(5), fixed4());
    return Rec({Value(std::bit_cast<double>(rng())), Value(std::move(tags))});
  };
  std::vector<Value> fields;
  fields.emplace_back();
  fields.emplace_back(pick(2) == 1);
  fields.push_back(Int(static_cast<int32_t>(rng())));
  fields.push_back(Long(static_cast<int64_t>(rng() >> pick(64))));
  fields.emplace_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));  // NaNs too
  fields.emplace_back(std::bit_cast<double>(rng()));
  std::string by(pick(40), '\0');
  for (char& c : by) c = static_cast<char>(rng());
  fields.emplace_back(Bytes{by});
  fields.push_back(Str(str(30)));
  fields.emplace_back(Enum{static_cast<int32_t>(pick(4))});
  fields.push_back(fixed4());
  Array a;
  for (size_t k = pick(300); k > 0; --k) {
    a.items.push_back(pick(3) == 0 ? MakeUnion(0, Value())
                                   : MakeUnion(1, Long(static_cast<int64_t>(rng()))));
  }
  fields.emplace_back(std::move(a));
  Map m;
  for (size_t k = pick(5); k > 0; --k) {
    Array strs;
    for (size_t j = pick(4); j > 0; --j) strs.items.push_back(Str(str(10)));
    m.entries.emplace_back(str(8), Value(std::move(strs)));
  }
  fields.emplace_back(std::move(m));
  switch (pick(4)) {
    case 0:
      fields.push_back(MakeUnion(0, Value()));
      break;
    case 1:
      fields.push_back(MakeUnion(1, Str(str(12))));
      break;
    case 2:
      fields.push_back(MakeUnion(2, Value(Enum{3})));
      break;
    default:
      fields.push_back(MakeUnion(3, point()));
  }
  Array nested;
  for (size_t k = pick(3); k > 0; --k) nested.items.push_back(point());
  fields.emplace_back(std::move(nested));
  return Rec(std::move(fields));
}

TEST(AvroEncoding, EveryTypeRoundTrips) {
  Schema s = MustParse(kEveryType);
  std::mt19937_64 rng(23);
  ByteBuffer all;
  std::vector<Value> values;
  for (int k = 0; k < 300; ++k) {
    values.push_back(RandomEvery(rng));
    ByteBuffer one;
    ASSERT_OK(Encode(values.back(), s.root(), &one));
    ASSERT_OK_AND_ASSIGN(Value back, DecodeAll(one, s.root()));
    ASSERT_EQ(back, values.back()) << k;
    ASSERT_OK(Encode(values.back(), s.root(), &all));
  }
  // Concatenated values decode one after another.
  Decoder d(all.data(), all.size());
  for (const Value& want : values) {
    Value got;
    ASSERT_OK(d.Read(s.root(), &got));
    ASSERT_EQ(got, want);
  }
  EXPECT_EQ(d.remaining(), 0u);
}

// Arrays and maps may be written in blocks of negative count followed by the block's size
// (readers must accept it; the writer does not produce it).
TEST(AvroEncoding, NegativeCountBlocksAreRead) {
  Schema arr = MustParse(R"({"type": "array", "items": "long"})");
  // Block 1: count -2 (03), size 2 (04), 3 and 27; block 2: count 1, 5; end.
  ASSERT_OK_AND_ASSIGN(Value v, DecodeAll(FromHex("03 04 06 36 02 0a 00"), arr.root()));
  EXPECT_EQ(v, Arr({Long(3), Long(27), Long(5)}));
  Schema map = MustParse(R"({"type": "map", "values": "int"})");
  ASSERT_OK_AND_ASSIGN(Value m, DecodeAll(FromHex("01 06 02 6b 02 00"), map.root()));
  EXPECT_EQ(m, Value(Map{{{"k", Int(1)}}}));
  // A block size that disagrees with its items.
  EXPECT_EQ(DecodeAll(FromHex("03 06 06 36 00 00"), arr.root()).status().kind(),
            ErrorKind::kCorruption);
  // A size past the end.
  EXPECT_EQ(DecodeAll(FromHex("03 7e 06 36 00"), arr.root()).status().kind(),
            ErrorKind::kCorruption);
}

void ExpectCorrupt(std::string_view hex, const Schema& s, std::string_view what) {
  auto r = DecodeAll(FromHex(hex), s.root());
  ASSERT_FALSE(r.ok()) << hex;
  EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption) << hex;
  EXPECT_NE(r.status().message().find(what), std::string::npos)
      << hex << ": " << r.status().ToString();
}

TEST(AvroEncoding, MalformedInputIsCorruption) {
  Schema l = MustParse("\"long\"");
  Schema i = MustParse("\"int\"");
  ExpectCorrupt("ffffffffffffffffffff01", l, "longer than 10 bytes");  // 11 bytes
  ExpectCorrupt("ffffffffffffffffff02", l, "past 64 bits");
  ExpectCorrupt("ffffffffff01", i, "longer than 5 bytes");
  ExpectCorrupt("ffffffff1f", i, "past 32 bits");
  ExpectCorrupt("80", l, "truncated long");
  ExpectCorrupt("", i, "truncated int");
  Schema str = MustParse("\"string\"");
  ExpectCorrupt("01", str, "negative length");
  ExpectCorrupt("0861", str, "past the end");
  ExpectCorrupt("02ff", str, "not UTF-8");
  ExpectCorrupt("04c0af", str, "not UTF-8");  // an overlong form
  ExpectCorrupt("01", MustParse("\"bytes\""), "negative length");
  ExpectCorrupt("02", MustParse("\"boolean\""), "boolean byte");
  ExpectCorrupt("0000", MustParse("\"float\""), "truncated float");
  ExpectCorrupt("00000000", MustParse("\"double\""), "truncated double");
  ExpectCorrupt("0102", MustParse(R"({"type": "fixed", "name": "F", "size": 4})"),
                "truncated fixed");
  ExpectCorrupt("04", MustParse(R"({"type": "enum", "name": "E", "symbols": ["A", "B"]})"),
                "enum index 2");
  ExpectCorrupt("01", MustParse(R"({"type": "enum", "name": "E", "symbols": ["A", "B"]})"),
                "enum index -1");
  Schema u = MustParse(R"(["null", "string"])");
  ExpectCorrupt("04", u, "union branch 2");
  ExpectCorrupt("01", u, "union branch -1");
  Schema arr = MustParse(R"({"type": "array", "items": "long"})");
  ExpectCorrupt("feffffffffffffffff01", arr, "items in");      // 2^62 items in no bytes
  ExpectCorrupt("040636", arr, "truncated long");              // no end of the array
  ExpectCorrupt("ffffffffffffffffff01", arr, "out of range");  // count INT64_MIN
  ExpectCorrupt("0304", arr, "past the end");                  // size 2, no bytes
  ExpectCorrupt("0301", arr, "negative block size");
  // Nulls take no bytes: their count is bounded by a budget, not by the input.
  Schema nulls = MustParse(R"({"type": "array", "items": "null"})");
  ASSERT_OK_AND_ASSIGN(Value few, DecodeAll(FromHex("c8 01 00"), nulls.root()));
  EXPECT_EQ(few.as<Array>().items.size(), 100u);
  ExpectCorrupt("feffffffffffffffff01 00", nulls, "empty items");
  Schema map = MustParse(R"({"type": "map", "values": "null"})");
  ExpectCorrupt("c801 00", map, "items in");  // 100 keys need 100 bytes at least
  ExpectCorrupt("02 02 ff 00", map, "not UTF-8");
}

TEST(AvroEncoding, EveryTruncationIsAnError) {
  Schema s = MustParse(kEveryType);
  std::mt19937_64 rng(5);
  for (int k = 0; k < 20; ++k) {
    Value v = RandomEvery(rng);
    ByteBuffer b;
    ASSERT_OK(Encode(v, s.root(), &b));
    for (size_t n = 0; n < b.size(); ++n) {
      ByteBuffer prefix(b.begin(), b.begin() + n);
      Decoder d(prefix.data(), prefix.size());
      Value out;
      Status st = d.Read(s.root(), &out);
      ASSERT_FALSE(st.ok()) << n << " of " << b.size();
      ASSERT_EQ(st.kind(), ErrorKind::kCorruption);
    }
  }
}

TEST(AvroEncoding, RandomBytesNeverCrash) {
  const Schema schemas[] = {
      MustParse(kEveryType),
      MustParse(R"(["null", "string", {"type": "array", "items": ["int", "boolean"]},
                   {"type": "map", "values": "double"}])")};
  std::mt19937_64 rng(11);
  for (const Schema& s : schemas) {
    int decoded = 0;
    for (int k = 0; k < 20000; ++k) {
      ByteBuffer b(rng() % 64);
      for (uint8_t& c : b) c = static_cast<uint8_t>(rng());
      Decoder d(b.data(), b.size());
      Value v;
      Status st = d.Read(s.root(), &v);
      if (st.ok()) {
        ++decoded;
        ByteBuffer again;
        ASSERT_OK(Encode(v, s.root(), &again));  // what decodes is a valid value of the schema
      } else {
        ASSERT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();
      }
    }
    if (&s == &schemas[1]) {
      EXPECT_GT(decoded, 50);  // the check above did run
    }
  }
}

TEST(AvroEncoding, RecursionDepthIsBounded) {
  Schema list = MustParse(R"({"type": "record", "name": "L", "fields": [
    {"name": "next", "type": ["null", "L"]}]})");
  // 02 02 02 ... 00: a list as deep as there are bytes.
  ByteBuffer shallow(50, 0x02);
  shallow.push_back(0x00);
  ASSERT_OK_AND_ASSIGN(Value v, DecodeAll(shallow, list.root()));
  ByteBuffer back;
  ASSERT_OK(Encode(v, list.root(), &back));
  EXPECT_EQ(back, shallow);
  ByteBuffer deep(100000, 0x02);
  deep.push_back(0x00);
  ExpectCorrupt(Hex(deep), list, "nested deeper");
}

TEST(AvroEncoding, ValuesThatDoNotMatchTheSchemaAreRefused) {
  Schema rec = MustParse(R"({"type": "record", "name": "R", "fields": [
    {"name": "a", "type": "long"}, {"name": "u", "type": ["null", "string"]},
    {"name": "f", "type": {"type": "fixed", "name": "F", "size": 2}},
    {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["X"]}},
    {"name": "m", "type": {"type": "map", "values": "int"}}]})");
  auto good = [] {
    return std::vector<Value>{Long(1), MakeUnion(1, Str("x")), Value(Fixed{"ab"}), Value(Enum{0}),
                              Value(Map{})};
  };
  ByteBuffer out{0x7f};
  ASSERT_OK(Encode(Rec(good()), rec.root(), &out));
  const size_t size = out.size();
  std::vector<std::pair<int, Value>> bad = {
      {0, Int(1)},                         // an int for a long
      {1, Str("x")},                       // a string where a union is
      {1, MakeUnion(2, Value())},          // no branch 2
      {1, MakeUnion(1, Long(3))},          // branch 1 is a string
      {1, MakeUnion(1, Str("\xff"))},      // not UTF-8
      {2, Value(Fixed{"abc"})},            // 3 bytes for a fixed of 2
      {3, Value(Enum{1})},                 // one symbol only
      {4, Value(Map{{{"\xfe", Int(1)}}})}  // a key not UTF-8
  };
  for (auto& [field, value] : bad) {
    std::vector<Value> fields = good();
    fields[field] = value;
    Status st = Encode(Rec(fields), rec.root(), &out);
    EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument) << field;
    EXPECT_EQ(out.size(), size) << "the output is left as it was";
  }
  EXPECT_EQ(Encode(Rec({Long(1)}), rec.root(), &out).kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(out.size(), size);
}

}  // namespace
}  // namespace tarn::avro

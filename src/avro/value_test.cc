#include "avro/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "avro/test_util.h"

namespace tarn::avro {
namespace {

using testing::Arr;
using testing::Int;
using testing::Long;
using testing::MustParse;
using testing::Rec;
using testing::Str;

TEST(AvroValue, TypeIsTheAlternative) {
  EXPECT_EQ(Value().type(), Type::kNull);
  EXPECT_EQ(Value(true).type(), Type::kBoolean);
  EXPECT_EQ(Int(1).type(), Type::kInt);
  EXPECT_EQ(Long(1).type(), Type::kLong);
  EXPECT_EQ(Value(1.0f).type(), Type::kFloat);
  EXPECT_EQ(Value(1.0).type(), Type::kDouble);
  EXPECT_EQ(Value(Bytes{}).type(), Type::kBytes);
  EXPECT_EQ(Value("x").type(), Type::kString);
  EXPECT_EQ(Rec({}).type(), Type::kRecord);
  EXPECT_EQ(Value(Enum{}).type(), Type::kEnum);
  EXPECT_EQ(Arr({}).type(), Type::kArray);
  EXPECT_EQ(Value(Map{}).type(), Type::kMap);
  EXPECT_EQ(MakeUnion(0, Value()).type(), Type::kUnion);
  EXPECT_EQ(Value(Fixed{}).type(), Type::kFixed);
}

TEST(AvroValue, EqualityAndCopies) {
  Value u = MakeUnion(1, Rec({Str("a"), Arr({Long(1)})}));
  Value copy = u;  // deep
  EXPECT_EQ(copy, u);
  copy.as<Union>().value->as<Record>().fields[0] = Str("b");
  EXPECT_NE(copy, u);
  EXPECT_NE(Int(1), Long(1));
  EXPECT_NE(Value(Bytes{"a"}), Value(Fixed{"a"}));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Value(nan), Value(nan));  // by bits
  EXPECT_NE(Value(0.0), Value(-0.0));
}

TEST(AvroValue, JsonEncoding) {
  Schema s = MustParse(R"({"type": "record", "name": "R", "namespace": "n", "fields": [
    {"name": "b", "type": "bytes"}, {"name": "f", "type": "float"},
    {"name": "u", "type": ["null", "string", {"type": "fixed", "name": "F", "size": 2}]},
    {"name": "u2", "type": ["null", "string"]},
    {"name": "u3", "type": ["null", "string", "F"]},
    {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
    {"name": "m", "type": {"type": "map", "values": "long"}},
    {"name": "d", "type": "double"}]})");
  Value v = Rec({Value(Bytes{std::string("\x00\xff", 2)}), Value(1.5f), MakeUnion(1, Str("x")),
                 MakeUnion(0, Value()), MakeUnion(2, Value(Fixed{"ab"})), Value(Enum{1}),
                 Value(Map{{{"k", Long(-3)}}}), Value(std::numeric_limits<double>::infinity())});
  ASSERT_OK_AND_ASSIGN(std::string json, ToJson(v, s.root()));
  EXPECT_EQ(nlohmann::json::parse(json), nlohmann::json::parse(R"({
    "b": "\u0000\u00ff", "f": 1.5, "u": {"string": "x"}, "u2": null, "u3": {"n.F": "ab"},
    "e": "B", "m": {"k": -3}, "d": "Infinity"})"));
  EXPECT_EQ(ToJson(Int(1), s.root()).status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace tarn::avro

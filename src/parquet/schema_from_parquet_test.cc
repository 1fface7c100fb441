#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "parquet/reader_test_util.h"
#include "parquet/schema.h"

namespace tarn::parquet {
namespace {

using testing::Group;
using testing::Leaf;
using testing::Root;

FileMetaData WithSchema(std::vector<SchemaElement> elements) {
  FileMetaData md;
  md.schema = std::move(elements);
  return md;
}

LogicalType Logical(LogicalType::Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

SchemaElement Annotated(const std::string& name, Type type, LogicalType lt,
                        Repetition rep = Repetition::OPTIONAL) {
  SchemaElement e = Leaf(name, type, rep);
  e.logical_type = lt;
  return e;
}

SchemaElement Converted(const std::string& name, Type type, ConvertedType ct,
                        Repetition rep = Repetition::OPTIONAL) {
  SchemaElement e = Leaf(name, type, rep);
  e.converted_type = ct;
  return e;
}

LogicalType IntType(int bits, bool is_signed) {
  LogicalType t = Logical(LogicalType::INTEGER);
  t.bit_width = static_cast<int8_t>(bits);
  t.is_signed = is_signed;
  return t;
}

LogicalType TimeLike(LogicalType::Kind kind, TimeUnitKind unit, bool utc) {
  LogicalType t = Logical(kind);
  t.unit = unit;
  t.is_adjusted_to_utc = utc;
  return t;
}

LogicalType DecimalType(int p, int s) {
  LogicalType t = Logical(LogicalType::DECIMAL);
  t.decimal_precision = p;
  t.decimal_scale = s;
  return t;
}

struct Case {
  SchemaElement element;
  std::string tarn_type;
};

TEST(SchemaFromParquetTest, ScalarMappings) {
  SchemaElement flba16 = Annotated("uuid", Type::FIXED_LEN_BYTE_ARRAY, Logical(LogicalType::UUID));
  flba16.type_length = 16;
  SchemaElement f16 = Annotated("half", Type::FIXED_LEN_BYTE_ARRAY, Logical(LogicalType::FLOAT16));
  f16.type_length = 2;
  SchemaElement fdec = Annotated("fdec", Type::FIXED_LEN_BYTE_ARRAY, DecimalType(38, 5));
  fdec.type_length = 16;
  SchemaElement fblob = Leaf("fblob", Type::FIXED_LEN_BYTE_ARRAY, Repetition::OPTIONAL);
  fblob.type_length = 3;
  SchemaElement cdec = Converted("cdec", Type::INT64, ConvertedType::DECIMAL);
  cdec.precision = 18;
  cdec.scale = 3;
  SchemaElement bdec = Converted("bdec", Type::BYTE_ARRAY, ConvertedType::DECIMAL);
  bdec.precision = 30;
  bdec.scale = 0;
  std::vector<Case> cases = {
      {Leaf("b", Type::BOOLEAN, Repetition::OPTIONAL), "BOOLEAN"},
      {Leaf("i32", Type::INT32, Repetition::OPTIONAL), "INT32"},
      {Leaf("i64", Type::INT64, Repetition::OPTIONAL), "INT64"},
      {Annotated("i8", Type::INT32, IntType(8, true)), "INT8"},
      {Annotated("i16", Type::INT32, IntType(16, true)), "INT16"},
      {Annotated("u8", Type::INT32, IntType(8, false)), "UINT8"},
      {Annotated("u16", Type::INT32, IntType(16, false)), "UINT16"},
      {Annotated("u32", Type::INT32, IntType(32, false)), "UINT32"},
      {Annotated("u64", Type::INT64, IntType(64, false)), "UINT64"},
      {Converted("ci8", Type::INT32, ConvertedType::INT_8), "INT8"},
      {Converted("ci16", Type::INT32, ConvertedType::INT_16), "INT16"},
      {Converted("cu8", Type::INT32, ConvertedType::UINT_8), "UINT8"},
      {Converted("cu16", Type::INT32, ConvertedType::UINT_16), "UINT16"},
      {Converted("cu32", Type::INT32, ConvertedType::UINT_32), "UINT32"},
      {Converted("cu64", Type::INT64, ConvertedType::UINT_64), "UINT64"},
      {Converted("ci64", Type::INT64, ConvertedType::INT_64), "INT64"},
      {Leaf("f", Type::FLOAT, Repetition::OPTIONAL), "FLOAT32"},
      {Leaf("d", Type::DOUBLE, Repetition::OPTIONAL), "FLOAT64"},
      {Annotated("dec32", Type::INT32, DecimalType(9, 2)), "DECIMAL(9,2)"},
      {Annotated("dec64", Type::INT64, DecimalType(18, 0)), "DECIMAL(18,0)"},
      {fdec, "DECIMAL(38,5)"},
      {cdec, "DECIMAL(18,3)"},
      {bdec, "DECIMAL(30,0)"},
      {Annotated("s", Type::BYTE_ARRAY, Logical(LogicalType::STRING)), "VARCHAR"},
      {Converted("cs", Type::BYTE_ARRAY, ConvertedType::UTF8), "VARCHAR"},
      {Annotated("e", Type::BYTE_ARRAY, Logical(LogicalType::ENUM)), "VARCHAR"},
      {Converted("ce", Type::BYTE_ARRAY, ConvertedType::ENUM), "VARCHAR"},
      {Annotated("j", Type::BYTE_ARRAY, Logical(LogicalType::JSON)), "JSON"},
      {Converted("cj", Type::BYTE_ARRAY, ConvertedType::JSON), "JSON"},
      {Annotated("bson", Type::BYTE_ARRAY, Logical(LogicalType::BSON)), "BLOB"},
      {Leaf("raw", Type::BYTE_ARRAY, Repetition::OPTIONAL), "BLOB"},
      {Annotated("date", Type::INT32, Logical(LogicalType::DATE)), "DATE"},
      {Converted("cdate", Type::INT32, ConvertedType::DATE), "DATE"},
      {Annotated("tms", Type::INT32, TimeLike(LogicalType::TIME, TimeUnitKind::MILLIS, false)),
       "TIME"},
      {Annotated("tus", Type::INT64, TimeLike(LogicalType::TIME, TimeUnitKind::MICROS, true)),
       "TIME"},
      {Annotated("tns", Type::INT64, TimeLike(LogicalType::TIME, TimeUnitKind::NANOS, false)),
       "TIME[ns]"},
      {Converted("ctms", Type::INT32, ConvertedType::TIME_MILLIS), "TIME"},
      {Converted("ctus", Type::INT64, ConvertedType::TIME_MICROS), "TIME"},
      {Annotated("ts_ms", Type::INT64,
                 TimeLike(LogicalType::TIMESTAMP, TimeUnitKind::MILLIS, false)),
       "TIMESTAMP[ms]"},
      {Annotated("ts_us", Type::INT64,
                 TimeLike(LogicalType::TIMESTAMP, TimeUnitKind::MICROS, false)),
       "TIMESTAMP[us]"},
      {Annotated("ts_ns", Type::INT64,
                 TimeLike(LogicalType::TIMESTAMP, TimeUnitKind::NANOS, false)),
       "TIMESTAMP[ns]"},
      {Annotated("tz_us", Type::INT64,
                 TimeLike(LogicalType::TIMESTAMP, TimeUnitKind::MICROS, true)),
       "TIMESTAMPTZ[us]"},
      {Annotated("tz_ns", Type::INT64, TimeLike(LogicalType::TIMESTAMP, TimeUnitKind::NANOS, true)),
       "TIMESTAMPTZ[ns]"},
      {Converted("cts_ms", Type::INT64, ConvertedType::TIMESTAMP_MILLIS), "TIMESTAMPTZ[ms]"},
      {Converted("cts_us", Type::INT64, ConvertedType::TIMESTAMP_MICROS), "TIMESTAMPTZ[us]"},
      {Leaf("int96", Type::INT96, Repetition::OPTIONAL), "TIMESTAMP[ns]"},
      {flba16, "UUID"},
      {f16, "FLOAT32"},
      {fblob, "BLOB"},
      // An annotation that does not fit the physical type falls back to the physical type.
      {Annotated("bad", Type::DOUBLE, DecimalType(10, 2)), "FLOAT64"},
      {Annotated("bad2", Type::INT32, Logical(LogicalType::STRING)), "INT32"},
  };
  std::vector<SchemaElement> elements = {Root(static_cast<int>(cases.size()))};
  for (const auto& c : cases) elements.push_back(c.element);
  auto ps = SchemaFromParquet(WithSchema(elements));
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  ASSERT_EQ(ps->schema.fields.size(), cases.size());
  ASSERT_EQ(ps->leaves.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(ps->schema.fields[i].type.ToString(), cases[i].tarn_type) << cases[i].element.name;
    EXPECT_TRUE(ps->unsupported[i].empty()) << cases[i].element.name;
    EXPECT_EQ(ps->leaves[i].field, static_cast<int>(i));
    EXPECT_EQ(ps->leaves[i].max_def_level, 1);
    EXPECT_EQ(ps->leaves[i].max_rep_level, 0);
  }
}

TEST(SchemaFromParquetTest, NullabilityFieldIdsAndUnsupportedDecimals) {
  SchemaElement req = Leaf("req", Type::INT64, Repetition::REQUIRED);
  req.field_id = 42;
  SchemaElement wide = Annotated("wide", Type::BYTE_ARRAY, DecimalType(40, 2));
  SchemaElement badscale = Annotated("badscale", Type::INT64, DecimalType(5, 7));
  auto ps = SchemaFromParquet(WithSchema({Root(3), req, wide, badscale}));
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  EXPECT_FALSE(ps->schema.fields[0].nullable);
  EXPECT_EQ(ps->schema.fields[0].field_id, 42);
  EXPECT_EQ(ps->leaves[0].max_def_level, 0);
  EXPECT_NE(ps->unsupported[1].find("precision"), std::string::npos) << ps->unsupported[1];
  EXPECT_NE(ps->unsupported[2].find("scale"), std::string::npos) << ps->unsupported[2];
}

// Logical type UNKNOWN (Arrow's Null type, as arrow-rs writes it): the physical type's tarn
// type, always nullable (its values are all null).
TEST(SchemaFromParquetTest, UnknownLogicalTypeIsNullablePhysicalType) {
  SchemaElement flba = Annotated("f", Type::FIXED_LEN_BYTE_ARRAY, Logical(LogicalType::UNKNOWN),
                                 Repetition::REQUIRED);
  flba.type_length = 4;
  auto ps = SchemaFromParquet(WithSchema(
      {Root(4), Annotated("n", Type::INT32, Logical(LogicalType::UNKNOWN)),
       Annotated("r", Type::INT32, Logical(LogicalType::UNKNOWN), Repetition::REQUIRED),
       Annotated("b", Type::BYTE_ARRAY, Logical(LogicalType::UNKNOWN), Repetition::REQUIRED),
       flba}));
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  EXPECT_EQ(ps->schema.ToString(), "n INT32, r INT32, b BLOB, f BLOB");
  for (const Field& f : ps->schema.fields) EXPECT_TRUE(f.nullable) << f.name;
  EXPECT_EQ(ps->leaves[1].max_def_level, 0);  // the file's levels are unchanged
}

SchemaElement ListGroup(const std::string& name, Repetition rep = Repetition::OPTIONAL) {
  SchemaElement e = Group(name, 1, rep);
  e.logical_type = Logical(LogicalType::LIST);
  e.converted_type = ConvertedType::LIST;
  return e;
}

TEST(SchemaFromParquetTest, ThreeLevelListWithFieldIds) {
  SchemaElement list = ListGroup("tags");
  list.field_id = 12;
  SchemaElement element = Annotated("element", Type::BYTE_ARRAY, Logical(LogicalType::STRING));
  element.field_id = 13;
  auto ps = SchemaFromParquet(
      WithSchema({Root(1), list, Group("list", 1, Repetition::REPEATED), element}));
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  const Field& f = ps->schema.fields[0];
  EXPECT_EQ(f.type.ToString(), "ARRAY<VARCHAR>");
  EXPECT_TRUE(f.nullable);
  EXPECT_EQ(f.field_id, 12);
  EXPECT_EQ(f.type.element_field().field_id, 13);
  EXPECT_TRUE(f.type.element_field().nullable);
  const LeafColumn& leaf = ps->leaves[0];
  EXPECT_EQ(leaf.path, (std::vector<std::string>{"tags", "list", "element"}));
  EXPECT_EQ(leaf.max_def_level, 3);
  EXPECT_EQ(leaf.max_rep_level, 1);
  ASSERT_EQ(leaf.nodes.size(), 2u);
  EXPECT_EQ(leaf.nodes[0].kind, PathNode::Kind::kList);
  EXPECT_EQ(leaf.nodes[0].def, 1);
  EXPECT_EQ(leaf.nodes[0].def_element, 2);
  EXPECT_EQ(leaf.nodes[0].rep, 1);
  EXPECT_EQ(leaf.nodes[1].kind, PathNode::Kind::kLeaf);
  EXPECT_EQ(leaf.nodes[1].def, 3);
}

TEST(SchemaFromParquetTest, NestedLists) {
  auto ps = SchemaFromParquet(WithSchema({
      Root(1),
      ListGroup("outer"),
      Group("list", 1, Repetition::REPEATED),
      ListGroup("element"),
      Group("list", 1, Repetition::REPEATED),
      Leaf("element", Type::INT64, Repetition::REQUIRED),
  }));
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  EXPECT_EQ(ps->schema.fields[0].type.ToString(), "ARRAY<ARRAY<INT64 NOT NULL>>");
  const LeafColumn& leaf = ps->leaves[0];
  EXPECT_EQ(leaf.max_def_level, 4);
  EXPECT_EQ(leaf.max_rep_level, 2);
  ASSERT_EQ(leaf.nodes.size(), 3u);
  EXPECT_EQ(leaf.nodes[0].def, 1);
  EXPECT_EQ(leaf.nodes[0].def_element, 2);
  EXPECT_EQ(leaf.nodes[1].def, 3);
  EXPECT_EQ(leaf.nodes[1].def_element, 4);
  EXPECT_EQ(leaf.nodes[1].rep, 2);
  EXPECT_EQ(leaf.nodes[2].def, 4);  // a required element
}

TEST(SchemaFromParquetTest, LegacyListsPerBackwardCompatibilityRules) {
  SchemaElement str = Converted("str", Type::BYTE_ARRAY, ConvertedType::UTF8, Repetition::REQUIRED);
  auto ps = SchemaFromParquet(WithSchema({
      Root(6),
      // 2-level: the repeated primitive is the element.
      ListGroup("two"),
      Leaf("element", Type::INT32, Repetition::REPEATED),
      // A repeated one-field group not named array/_tuple: 3-level, element required.
      ListGroup("named"),
      Group("element", 1, Repetition::REPEATED),
      str,
      // Repeated group named "array": the element is a one-field struct.
      ListGroup("arr"),
      Group("array", 1, Repetition::REPEATED),
      str,
      // <name>_tuple: also a struct element.
      ListGroup("tup"),
      Group("tup_tuple", 1, Repetition::REPEATED),
      str,
      // A bare repeated field.
      Leaf("bare", Type::INT64, Repetition::REPEATED),
      // A required LIST group.
      ListGroup("reqlist", Repetition::REQUIRED),
      Group("list", 1, Repetition::REPEATED),
      Leaf("element", Type::DOUBLE, Repetition::OPTIONAL),
  }));
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  const auto& f = ps->schema.fields;
  EXPECT_EQ(f[0].type.ToString(), "ARRAY<INT32 NOT NULL>");
  EXPECT_FALSE(f[0].type.element_field().nullable);
  EXPECT_EQ(ps->leaves[0].max_def_level, 2);
  EXPECT_EQ(f[1].type.ToString(), "ARRAY<VARCHAR NOT NULL>");
  EXPECT_FALSE(f[1].type.element_field().nullable);
  // "array" and "<name>_tuple": the repeated group is a (NOT NULL) struct element.
  EXPECT_EQ(f[2].type.ToString(), "ARRAY<STRUCT<str: VARCHAR NOT NULL> NOT NULL>");
  EXPECT_EQ(f[3].type.ToString(), "ARRAY<STRUCT<str: VARCHAR NOT NULL> NOT NULL>");
  EXPECT_EQ(ps->leaves[2].nodes.size(), 3u);
  EXPECT_EQ(ps->leaves[2].nodes[1].kind, PathNode::Kind::kStruct);
  EXPECT_EQ(ps->leaves[2].nodes[1].def, 2);
  EXPECT_EQ(f[4].type.ToString(), "ARRAY<INT64 NOT NULL>");
  EXPECT_FALSE(f[4].nullable);
  ASSERT_EQ(ps->leaves[4].nodes.size(), 2u);
  EXPECT_EQ(ps->leaves[4].nodes[0].def, 0);
  EXPECT_EQ(ps->leaves[4].nodes[0].def_element, 1);
  EXPECT_EQ(f[5].type.ToString(), "ARRAY<FLOAT64>");
  EXPECT_FALSE(f[5].nullable);
  EXPECT_EQ(ps->leaves[5].nodes[0].def, 0);
  EXPECT_EQ(ps->leaves[5].max_def_level, 2);
}

TEST(SchemaFromParquetTest, MapsAndStructsWithTheirLeavesAndLevels) {
  SchemaElement map = Group("m", 1, Repetition::OPTIONAL);
  map.converted_type = ConvertedType::MAP;
  map.field_id = 2;
  SchemaElement key = Converted("key", Type::BYTE_ARRAY, ConvertedType::UTF8, Repetition::REQUIRED);
  key.field_id = 4;
  SchemaElement value = Leaf("value", Type::INT32, Repetition::OPTIONAL);
  value.field_id = 5;
  SchemaElement s = Group("s", 2, Repetition::OPTIONAL);
  s.field_id = 3;
  SchemaElement y = Leaf("y", Type::INT32, Repetition::REQUIRED);
  y.field_id = 7;
  auto ps = SchemaFromParquet(WithSchema({
      Root(3),
      Leaf("a", Type::INT32, Repetition::OPTIONAL),
      map,
      Group("key_value", 2, Repetition::REPEATED),
      key,
      value,
      s,
      Leaf("x", Type::INT32, Repetition::OPTIONAL),
      y,
  }));
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  for (const std::string& why : ps->unsupported) EXPECT_TRUE(why.empty()) << why;
  const Field& m = ps->schema.fields[1];
  EXPECT_EQ(m.type.ToString(), "MAP<VARCHAR, INT32>");
  EXPECT_EQ(m.field_id, 2);
  EXPECT_EQ(m.type.key_field().field_id, 4);
  EXPECT_EQ(m.type.value_field().field_id, 5);
  EXPECT_TRUE(m.type.value_field().nullable);
  const Field& st = ps->schema.fields[2];
  EXPECT_EQ(st.type.ToString(), "STRUCT<x: INT32, y: INT32 NOT NULL>");
  EXPECT_EQ(st.field_id, 3);
  EXPECT_EQ(st.type.children()[1].field_id, 7);
  ASSERT_EQ(ps->leaves.size(), 5u);
  EXPECT_EQ(ps->field_leaves[1], (std::vector<int>{1, 2}));
  EXPECT_EQ(ps->field_leaves[2], (std::vector<int>{3, 4}));
  EXPECT_EQ(ps->leaves[2].path, (std::vector<std::string>{"m", "key_value", "value"}));
  EXPECT_EQ(ps->leaves[2].max_def_level, 3);
  EXPECT_EQ(ps->leaves[2].max_rep_level, 1);
  EXPECT_EQ(ps->leaves[4].field, 2);
  // The map's levels; the key leaf builds the map column, the value leaf only its own.
  const std::vector<PathNode>& kn = ps->leaves[1].nodes;
  ASSERT_EQ(kn.size(), 2u);
  EXPECT_EQ(kn[0].kind, PathNode::Kind::kMap);
  EXPECT_EQ(kn[0].def, 1);
  EXPECT_EQ(kn[0].def_element, 2);
  EXPECT_EQ(kn[0].rep, 1);
  EXPECT_TRUE(kn[0].first);
  EXPECT_EQ(kn[1].member, 0);
  EXPECT_EQ(kn[1].def, 2);
  const std::vector<PathNode>& vn = ps->leaves[2].nodes;
  EXPECT_FALSE(vn[0].first);
  EXPECT_TRUE(vn[1].first);
  EXPECT_EQ(vn[1].member, 1);
  EXPECT_EQ(vn[1].def, 3);
  // The struct: x builds the struct column; y is NOT NULL, defined wherever the struct is.
  const std::vector<PathNode>& yn = ps->leaves[4].nodes;
  ASSERT_EQ(yn.size(), 2u);
  EXPECT_EQ(yn[0].kind, PathNode::Kind::kStruct);
  EXPECT_TRUE(ps->leaves[3].nodes[0].first);
  EXPECT_FALSE(yn[0].first);
  EXPECT_EQ(yn[1].member, 1);
  EXPECT_EQ(yn[1].def, 1);
  EXPECT_EQ(ps->leaves[3].nodes[1].def, 2);
}

TEST(SchemaFromParquetTest, LegacyMapsAndNestedShapes) {
  auto group = [](const std::string& name, int n, Repetition r, std::optional<ConvertedType> ct) {
    SchemaElement g = Group(name, n, r);
    g.converted_type = ct;
    return g;
  };
  SchemaElement str = Converted("key", Type::BYTE_ARRAY, ConvertedType::UTF8, Repetition::REQUIRED);
  auto ps = SchemaFromParquet(WithSchema({
      Root(6),
      // parquet-mr before 1.11: MAP, then a repeated "map" group annotated MAP_KEY_VALUE.
      group("old", 1, Repetition::REQUIRED, ConvertedType::MAP),
      group("map", 2, Repetition::REPEATED, ConvertedType::MAP_KEY_VALUE),
      str,
      Leaf("value", Type::INT64, Repetition::REQUIRED),
      // MAP_KEY_VALUE in place of MAP, entries of other names.
      group("kv", 1, Repetition::OPTIONAL, ConvertedType::MAP_KEY_VALUE),
      group("entries", 2, Repetition::REPEATED, std::nullopt),
      Leaf("k", Type::INT32, Repetition::REQUIRED),
      Leaf("v", Type::DOUBLE, Repetition::OPTIONAL),
      // A list of structs holding a map of lists.
      ListGroup("ls"),
      Group("list", 1, Repetition::REPEATED),
      Group("element", 2, Repetition::OPTIONAL),
      Leaf("id", Type::INT64, Repetition::REQUIRED),
      group("tags", 1, Repetition::OPTIONAL, ConvertedType::MAP),
      Group("key_value", 2, Repetition::REPEATED),
      str,
      ListGroup("value"),
      Group("list", 1, Repetition::REPEATED),
      Leaf("element", Type::INT32, Repetition::OPTIONAL),
      // Keys that may be null, and a map without values: not representable.
      group("nullkeys", 1, Repetition::OPTIONAL, ConvertedType::MAP),
      Group("key_value", 2, Repetition::REPEATED),
      Leaf("key", Type::INT32, Repetition::OPTIONAL),
      Leaf("value", Type::INT32, Repetition::OPTIONAL),
      group("set", 1, Repetition::OPTIONAL, ConvertedType::MAP),
      Group("key_value", 1, Repetition::REPEATED),
      Leaf("key", Type::INT32, Repetition::REQUIRED),
      // Struct members that differ only in case.
      Group("cased", 2, Repetition::OPTIONAL),
      Leaf("a", Type::INT32, Repetition::OPTIONAL),
      Leaf("A", Type::INT32, Repetition::OPTIONAL),
  }));
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  const auto& f = ps->schema.fields;
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f[0].type.ToString(), "MAP<VARCHAR, INT64 NOT NULL>");
  EXPECT_FALSE(f[0].nullable);
  EXPECT_EQ(f[1].type.ToString(), "MAP<INT32, FLOAT64>");
  EXPECT_EQ(f[2].type.ToString(),
            "ARRAY<STRUCT<id: INT64 NOT NULL, tags: MAP<VARCHAR, ARRAY<INT32>>>>");
  EXPECT_TRUE(ps->unsupported[0].empty()) << ps->unsupported[0];
  EXPECT_TRUE(ps->unsupported[1].empty()) << ps->unsupported[1];
  EXPECT_TRUE(ps->unsupported[2].empty()) << ps->unsupported[2];
  EXPECT_NE(ps->unsupported[3].find("not required"), std::string::npos) << ps->unsupported[3];
  EXPECT_NE(ps->unsupported[4].find("without values"), std::string::npos) << ps->unsupported[4];
  EXPECT_NE(ps->unsupported[5].find("case"), std::string::npos) << ps->unsupported[5];
  // ls.list.element.tags.key_value.value.list.element: every level on the way.
  const LeafColumn& deep = ps->leaves[ps->field_leaves[2][2]];
  EXPECT_EQ(deep.max_def_level, 8);
  EXPECT_EQ(deep.max_rep_level, 3);
  ASSERT_EQ(deep.nodes.size(), 5u);
  const PathNode::Kind kinds[] = {PathNode::Kind::kList, PathNode::Kind::kStruct,
                                  PathNode::Kind::kMap, PathNode::Kind::kList,
                                  PathNode::Kind::kLeaf};
  const int16_t defs[] = {1, 3, 4, 6, 8};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(deep.nodes[i].kind, kinds[i]) << i;
    EXPECT_EQ(deep.nodes[i].def, defs[i]) << i;
  }
  EXPECT_EQ(deep.nodes[2].member, 1);
  EXPECT_EQ(deep.nodes[2].rep, 2);
  EXPECT_EQ(deep.nodes[3].member, 1);
  EXPECT_EQ(deep.nodes[3].def_element, 7);
  EXPECT_EQ(deep.nodes[3].rep, 3);
  // Unsupported fields keep their leaves, so the file's columns still line up.
  EXPECT_EQ(ps->field_leaves[4].size(), 1u);
  EXPECT_EQ(ps->leaves.size(), 12u);
}

TEST(SchemaFromParquetTest, MalformedTreesAreCorruption) {
  auto corrupt = [](std::vector<SchemaElement> el) {
    auto ps = SchemaFromParquet(WithSchema(std::move(el)));
    return !ps.ok() && ps.status().kind() == ErrorKind::kCorruption;
  };
  EXPECT_TRUE(corrupt({}));
  EXPECT_TRUE(corrupt({Leaf("root", Type::INT32, Repetition::REQUIRED)}));
  EXPECT_TRUE(corrupt({Root(2), Leaf("a", Type::INT32, Repetition::OPTIONAL)}));  // too few
  EXPECT_TRUE(corrupt({Root(1), Leaf("a", Type::INT32, Repetition::OPTIONAL),
                       Leaf("b", Type::INT32, Repetition::OPTIONAL)}));  // trailing element
  EXPECT_TRUE(corrupt({Root(-1)}));
  EXPECT_TRUE(corrupt({Root(1), Group("g", -3, Repetition::OPTIONAL)}));
  SchemaElement neither;
  neither.name = "neither";
  EXPECT_TRUE(corrupt({Root(1), neither}));
  SchemaElement both = Leaf("both", Type::INT32, Repetition::OPTIONAL);
  both.num_children = 2;
  EXPECT_TRUE(corrupt({Root(1), both}));
  SchemaElement flba = Leaf("flba", Type::FIXED_LEN_BYTE_ARRAY, Repetition::OPTIONAL);
  EXPECT_TRUE(corrupt({Root(1), flba}));  // no type_length
  // Deep nesting is refused rather than recursed into.
  std::vector<SchemaElement> deep = {Root(1)};
  for (int i = 0; i < 5000; ++i) deep.push_back(Group("g", 1, Repetition::OPTIONAL));
  deep.push_back(Leaf("x", Type::INT32, Repetition::OPTIONAL));
  EXPECT_TRUE(corrupt(deep));
}

TEST(SchemaFromParquetTest, TarnSchemaRestoresTypesParquetCannotName) {
  FileMetaData md = WithSchema({
      Root(4),
      Annotated("ip", Type::INT32, IntType(32, false)),
      Annotated("ts", Type::INT64, TimeLike(LogicalType::TIMESTAMP, TimeUnitKind::MILLIS, false)),
      Annotated("n", Type::INT64, IntType(64, true)),
      Annotated("other", Type::INT32, IntType(32, false)),
  });
  md.key_value_metadata.push_back(
      {kTarnSchemaKey, std::string("ip IPV4, ts TIMESTAMP[s], n VARCHAR, other UINT32")});
  auto ps = SchemaFromParquet(md);
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  EXPECT_EQ(ps->schema.fields[0].type.ToString(), "IPV4");
  EXPECT_EQ(ps->schema.fields[1].type.ToString(), "TIMESTAMP[s]");
  EXPECT_EQ(ps->schema.fields[2].type.ToString(), "INT64");  // incompatible: ignored
  EXPECT_EQ(ps->schema.fields[3].type.ToString(), "UINT32");

  // Names that differ, or a malformed recorded schema, change nothing.
  md.key_value_metadata[0].value = "x IPV4, ts TIMESTAMP[s], n INT64, other UINT32";
  ps = SchemaFromParquet(md);
  ASSERT_TRUE(ps.ok());
  EXPECT_EQ(ps->schema.fields[0].type.ToString(), "UINT32");
  EXPECT_EQ(ps->schema.fields[1].type.ToString(), "TIMESTAMP[s]");
  md.key_value_metadata[0].value = "not a ( schema";
  ps = SchemaFromParquet(md);
  ASSERT_TRUE(ps.ok());
  EXPECT_EQ(ps->schema.fields[1].type.ToString(), "TIMESTAMP[ms]");
}

}  // namespace
}  // namespace tarn::parquet

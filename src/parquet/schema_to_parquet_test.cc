#include <gtest/gtest.h>

#include <iterator>
#include <optional>

#include "parquet/column_writer.h"
#include "parquet/schema.h"

namespace tarn::parquet {
namespace {

Field MakeField(std::string name, DataType type, bool nullable = true, int32_t id = -1) {
  Field f;
  f.name = std::move(name);
  f.type = std::move(type);
  f.nullable = nullable;
  f.field_id = id;
  return f;
}

// The single element a scalar field maps to.
SchemaElement Leaf(DataType type) {
  Schema s;
  s.fields.push_back(MakeField("c", std::move(type)));
  auto r = SchemaToParquet(s);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 2u);
  return r->back();
}

struct Expect {
  DataType type;
  Type physical;
  std::optional<ConvertedType> converted;
  LogicalType::Kind logical;
  std::string logical_name;
};

TEST(SchemaToParquet, EveryScalarType) {
  std::vector<Expect> cases = {
      {DataType::Boolean(), Type::BOOLEAN, std::nullopt, LogicalType::NONE, ""},
      {DataType::Int8(), Type::INT32, ConvertedType::INT_8, LogicalType::INTEGER,
       "INTEGER(8,true)"},
      {DataType::Int16(), Type::INT32, ConvertedType::INT_16, LogicalType::INTEGER,
       "INTEGER(16,true)"},
      {DataType::Int32(), Type::INT32, ConvertedType::INT_32, LogicalType::INTEGER,
       "INTEGER(32,true)"},
      {DataType::Int64(), Type::INT64, std::nullopt, LogicalType::NONE, ""},
      {DataType::UInt8(), Type::INT32, ConvertedType::UINT_8, LogicalType::INTEGER,
       "INTEGER(8,false)"},
      {DataType::UInt16(), Type::INT32, ConvertedType::UINT_16, LogicalType::INTEGER,
       "INTEGER(16,false)"},
      {DataType::UInt32(), Type::INT32, ConvertedType::UINT_32, LogicalType::INTEGER,
       "INTEGER(32,false)"},
      {DataType::UInt64(), Type::INT64, ConvertedType::UINT_64, LogicalType::INTEGER,
       "INTEGER(64,false)"},
      {DataType::Float32(), Type::FLOAT, std::nullopt, LogicalType::NONE, ""},
      {DataType::Float64(), Type::DOUBLE, std::nullopt, LogicalType::NONE, ""},
      {DataType::Decimal(9, 2), Type::INT32, ConvertedType::DECIMAL, LogicalType::DECIMAL,
       "DECIMAL(9,2)"},
      {DataType::Decimal(18, 0), Type::INT64, ConvertedType::DECIMAL, LogicalType::DECIMAL,
       "DECIMAL(18,0)"},
      {DataType::Decimal(38, 10), Type::FIXED_LEN_BYTE_ARRAY, ConvertedType::DECIMAL,
       LogicalType::DECIMAL, "DECIMAL(38,10)"},
      {DataType::Varchar(), Type::BYTE_ARRAY, ConvertedType::UTF8, LogicalType::STRING, "STRING"},
      {DataType::Blob(), Type::BYTE_ARRAY, std::nullopt, LogicalType::NONE, ""},
      {DataType::Json(), Type::BYTE_ARRAY, ConvertedType::JSON, LogicalType::JSON, "JSON"},
      {DataType::Date(), Type::INT32, ConvertedType::DATE, LogicalType::DATE, "DATE"},
      {DataType::Time(), Type::INT64, ConvertedType::TIME_MICROS, LogicalType::TIME,
       "TIME(MICROS,false)"},
      {DataType::Timestamp(TimeUnit::kSecond), Type::INT64, ConvertedType::TIMESTAMP_MILLIS,
       LogicalType::TIMESTAMP, "TIMESTAMP(MILLIS,false)"},
      {DataType::Timestamp(TimeUnit::kMilli), Type::INT64, ConvertedType::TIMESTAMP_MILLIS,
       LogicalType::TIMESTAMP, "TIMESTAMP(MILLIS,false)"},
      {DataType::Timestamp(TimeUnit::kMicro), Type::INT64, ConvertedType::TIMESTAMP_MICROS,
       LogicalType::TIMESTAMP, "TIMESTAMP(MICROS,false)"},
      {DataType::Timestamp(TimeUnit::kNano), Type::INT64, std::nullopt, LogicalType::TIMESTAMP,
       "TIMESTAMP(NANOS,false)"},
      {DataType::TimestampTz(TimeUnit::kMicro), Type::INT64, ConvertedType::TIMESTAMP_MICROS,
       LogicalType::TIMESTAMP, "TIMESTAMP(MICROS,true)"},
      {DataType::TimestampTz(TimeUnit::kNano), Type::INT64, std::nullopt, LogicalType::TIMESTAMP,
       "TIMESTAMP(NANOS,true)"},
      {DataType::Uuid(), Type::FIXED_LEN_BYTE_ARRAY, std::nullopt, LogicalType::UUID, "UUID"},
      {DataType::Ipv4(), Type::INT32, ConvertedType::UINT_32, LogicalType::INTEGER,
       "INTEGER(32,false)"},
  };
  for (const Expect& c : cases) {
    SCOPED_TRACE(c.type.ToString());
    SchemaElement e = Leaf(c.type);
    EXPECT_EQ(e.name, "c");
    EXPECT_EQ(e.type, c.physical);
    EXPECT_EQ(e.converted_type, c.converted);
    EXPECT_EQ(e.repetition_type, Repetition::OPTIONAL);
    EXPECT_FALSE(e.num_children.has_value());
    EXPECT_FALSE(e.field_id.has_value());
    if (c.logical == LogicalType::NONE) {
      EXPECT_TRUE(!e.logical_type || e.logical_type->kind == LogicalType::NONE);
    } else {
      ASSERT_TRUE(e.logical_type.has_value());
      EXPECT_EQ(e.logical_type->kind, c.logical);
      EXPECT_EQ(LogicalTypeName(*e.logical_type), c.logical_name);
    }
  }
}

TEST(SchemaToParquet, DecimalsCarryScalePrecisionAndMinimalWidth) {
  SchemaElement e = Leaf(DataType::Decimal(20, 4));
  EXPECT_EQ(e.type, Type::FIXED_LEN_BYTE_ARRAY);
  EXPECT_EQ(e.type_length, 9);
  EXPECT_EQ(e.precision, 20);
  EXPECT_EQ(e.scale, 4);
  EXPECT_EQ(Leaf(DataType::Uuid()).type_length, 16);
  // 10^p - 1 must fit in a signed n-byte integer.
  EXPECT_EQ(DecimalFlbaWidth(1), 1);
  EXPECT_EQ(DecimalFlbaWidth(2), 1);
  EXPECT_EQ(DecimalFlbaWidth(3), 2);
  EXPECT_EQ(DecimalFlbaWidth(9), 4);
  EXPECT_EQ(DecimalFlbaWidth(10), 5);
  EXPECT_EQ(DecimalFlbaWidth(18), 8);
  EXPECT_EQ(DecimalFlbaWidth(19), 9);
  EXPECT_EQ(DecimalFlbaWidth(38), 16);
}

TEST(SchemaToParquet, RootFieldIdsAndRequired) {
  Schema s;
  s.fields.push_back(MakeField("id", DataType::Int64(), false, 7));
  s.fields.push_back(MakeField("name", DataType::Varchar(), true, 8));
  auto r = SchemaToParquet(s);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].name, "schema");
  EXPECT_EQ((*r)[0].num_children, 2);
  EXPECT_FALSE((*r)[0].repetition_type.has_value());
  EXPECT_FALSE((*r)[0].type.has_value());
  EXPECT_EQ((*r)[1].repetition_type, Repetition::REQUIRED);
  EXPECT_EQ((*r)[1].field_id, 7);
  EXPECT_EQ((*r)[2].field_id, 8);
}

TEST(SchemaToParquet, ThreeLevelListWithElementIdAndNullability) {
  Schema s;
  Field f = MakeField("tags", DataType::Array(DataType::Varchar()), false, 3);
  f.type = DataType::Array(f.type.element(), 4, false);
  s.fields.push_back(f);
  auto r = SchemaToParquet(s);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 4u);
  const SchemaElement& outer = (*r)[1];
  EXPECT_EQ(outer.name, "tags");
  EXPECT_EQ(outer.repetition_type, Repetition::REQUIRED);
  EXPECT_EQ(outer.num_children, 1);
  EXPECT_EQ(outer.converted_type, ConvertedType::LIST);
  EXPECT_EQ(outer.logical_type->kind, LogicalType::LIST);
  EXPECT_EQ(outer.field_id, 3);
  EXPECT_FALSE(outer.type.has_value());
  const SchemaElement& list = (*r)[2];
  EXPECT_EQ(list.name, "list");
  EXPECT_EQ(list.repetition_type, Repetition::REPEATED);
  EXPECT_EQ(list.num_children, 1);
  EXPECT_FALSE(list.field_id.has_value());
  const SchemaElement& elem = (*r)[3];
  EXPECT_EQ(elem.name, "element");
  EXPECT_EQ(elem.repetition_type, Repetition::REQUIRED);
  EXPECT_EQ(elem.field_id, 4);
  EXPECT_EQ(elem.type, Type::BYTE_ARRAY);
  EXPECT_EQ(elem.converted_type, ConvertedType::UTF8);
}

TEST(SchemaToParquet, NestedListsNest) {
  Schema s;
  Field f = MakeField("m", DataType::Array(DataType::Array(DataType::Decimal(5, 1))), true, 1);
  f.type = DataType::Array(f.type.element(), 2);
  s.fields.push_back(f);
  auto r = SchemaToParquet(s);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 6u);
  std::vector<std::string> names;
  for (const SchemaElement& e : *r) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"schema", "m", "list", "element", "list", "element"}));
  EXPECT_EQ((*r)[3].converted_type, ConvertedType::LIST);  // the inner array
  EXPECT_EQ((*r)[3].repetition_type, Repetition::OPTIONAL);
  EXPECT_EQ((*r)[3].field_id, 2);
  EXPECT_EQ((*r)[4].repetition_type, Repetition::REPEATED);
  EXPECT_EQ((*r)[5].type, Type::INT32);
  EXPECT_EQ((*r)[5].repetition_type, Repetition::OPTIONAL);
  EXPECT_FALSE((*r)[5].field_id.has_value());
}

TEST(SchemaToParquet, StructAndMapGroupsWithIdsAtEveryLevel) {
  auto schema = Schema::Parse(
      "p STRUCT<a: INT64 NOT NULL, tags: ARRAY<VARCHAR>>, m MAP<VARCHAR, STRUCT<x: DOUBLE>> NOT "
      "NULL");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  auto r = SchemaToParquet(*schema);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  struct Want {
    const char* name;
    Repetition repetition;
    int children;  // -1: a leaf
    std::optional<ConvertedType> converted;
    int field_id;  // -1: none
  };
  // Schema::Parse numbers p 1, m 2, then p's a 3, tags 4 and tags' element 5, then m's key 6,
  // value 7 and the value's x 8.
  const Want want[] = {
      {"p", Repetition::OPTIONAL, 2, std::nullopt, 1},
      {"a", Repetition::REQUIRED, -1, std::nullopt, 3},
      {"tags", Repetition::OPTIONAL, 1, ConvertedType::LIST, 4},
      {"list", Repetition::REPEATED, 1, std::nullopt, -1},
      {"element", Repetition::OPTIONAL, -1, ConvertedType::UTF8, 5},
      {"m", Repetition::REQUIRED, 1, ConvertedType::MAP, 2},
      {"key_value", Repetition::REPEATED, 2, std::nullopt, -1},
      {"key", Repetition::REQUIRED, -1, ConvertedType::UTF8, 6},
      {"value", Repetition::OPTIONAL, 1, std::nullopt, 7},
      {"x", Repetition::OPTIONAL, -1, std::nullopt, 8},
  };
  ASSERT_EQ(r->size(), std::size(want) + 1);
  for (size_t i = 0; i < std::size(want); ++i) {
    const SchemaElement& e = (*r)[i + 1];
    SCOPED_TRACE(want[i].name);
    EXPECT_EQ(e.name, want[i].name);
    EXPECT_EQ(e.repetition_type, want[i].repetition);
    EXPECT_EQ(e.num_children.value_or(-1), want[i].children);
    EXPECT_EQ(e.type.has_value(), want[i].children < 0);
    EXPECT_EQ(e.converted_type, want[i].converted);
    EXPECT_EQ(e.field_id.value_or(-1), want[i].field_id);
  }
  EXPECT_EQ((*r)[6].logical_type->kind, LogicalType::MAP);
  EXPECT_FALSE((*r)[1].logical_type.has_value());  // a struct group has no annotation
  // And back, ids and nullability at every level.
  FileMetaData md;
  md.schema = *r;
  auto back = SchemaFromParquet(md);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  for (size_t i = 0; i < schema->fields.size(); ++i) {
    EXPECT_TRUE(SameNestedFields(back->schema.fields[i].type, schema->fields[i].type))
        << back->schema.fields[i].type.ToString();
    EXPECT_EQ(back->schema.fields[i].nullable, schema->fields[i].nullable);
  }
}

TEST(SchemaToParquet, RejectsEmptyAndDuplicateNames) {
  Schema s;
  s.fields.push_back(MakeField("", DataType::Int32()));
  EXPECT_EQ(SchemaToParquet(s).status().kind(), ErrorKind::kInvalidArgument);
  Schema d;
  d.fields.push_back(MakeField("a", DataType::Int32()));
  d.fields.push_back(MakeField("a", DataType::Int64()));
  auto r = SchemaToParquet(d);
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(r.status().message().find("a"), std::string::npos);
}

TEST(SchemaToParquet, RejectsExcessiveNestingAndEmptyStructs) {
  DataType t = DataType::Int32();
  for (int i = 0; i < kMaxNesting + 1; ++i) t = DataType::Array(t);
  Schema s;
  s.fields.push_back(MakeField("deep", t));
  EXPECT_EQ(SchemaToParquet(s).status().kind(), ErrorKind::kInvalidArgument);
  DataType st = DataType::Int32();
  for (int i = 0; i < kMaxNesting + 1; ++i) st = DataType::Struct({MakeField("m", st)});
  s.fields[0] = MakeField("deep", st);
  EXPECT_EQ(SchemaToParquet(s).status().kind(), ErrorKind::kInvalidArgument);
  s.fields[0] = MakeField("empty", DataType::Struct({}));
  EXPECT_EQ(SchemaToParquet(s).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(SchemaToParquet, ReadBackByTheReadersMapping) {
  auto schema = Schema::Parse(
      "a INT8, b UINT64 NOT NULL, c DECIMAL(30,5), d TIMESTAMPTZ[ns], e UUID, f JSON, "
      "g ARRAY<ARRAY<VARCHAR>>, h TIME, i BLOB, j DATE");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  auto elements = SchemaToParquet(*schema);
  ASSERT_TRUE(elements.ok());
  FileMetaData md;
  md.schema = *elements;
  auto back = SchemaFromParquet(md);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->schema.fields.size(), schema->fields.size());
  for (size_t i = 0; i < schema->fields.size(); ++i) {
    const Field& want = schema->fields[i];
    const Field& got = back->schema.fields[i];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.type, want.type) << got.type.ToString() << " vs " << want.type.ToString();
    EXPECT_EQ(got.nullable, want.nullable) << want.name;
    EXPECT_EQ(got.field_id, want.field_id) << want.name;
  }
  ASSERT_EQ(back->leaves.size(), 10u);
  EXPECT_EQ(back->leaves[6].max_def_level, 5);
  EXPECT_EQ(back->leaves[6].max_rep_level, 2);
  EXPECT_EQ(back->leaves[6].path,
            (std::vector<std::string>{"g", "list", "element", "list", "element"}));
}

}  // namespace
}  // namespace tarn::parquet

#include "avro/schema.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "avro/test_util.h"

namespace tarn::avro {
namespace {

using testing::MustParse;
using Json = nlohmann::json;

TEST(AvroSchema, Primitives) {
  for (std::string_view name :
       {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}) {
    Schema bare = MustParse("\"" + std::string(name) + "\"");
    EXPECT_EQ(TypeName(bare.root().type), name);
    EXPECT_EQ(bare.ToJson(), "\"" + std::string(name) + "\"");
    Schema object = MustParse(R"({"type": ")" + std::string(name) + "\"}");
    EXPECT_EQ(object.ToJson(), bare.ToJson());
  }
}

TEST(AvroSchema, LogicalTypesAndAttributesArePrintedBack) {
  Schema s = MustParse(R"({"type": "bytes", "logicalType": "decimal", "precision": 9,
                           "scale": 2})");
  EXPECT_EQ(s.root().logical_type, "decimal");
  EXPECT_EQ(IntAttribute(s.root().attributes, "precision"), 9);
  EXPECT_EQ(IntAttribute(s.root().attributes, "scale"), 2);
  EXPECT_EQ(Json::parse(s.ToJson()),
            Json::parse(R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})"));
  Schema date = MustParse(R"({"type": "int", "logicalType": "date"})");
  EXPECT_EQ(date.ToJson(), R"({"type":"int","logicalType":"date"})");
}

// The shape of Iceberg's manifest entry schema: field ids on fields, element-id on arrays,
// key-id/value-id on maps (and a record inside the map's array form), defaults, docs.
constexpr std::string_view kIcebergLike = R"({
  "type": "record", "name": "manifest_entry", "fields": [
    {"name": "status", "type": "int", "field-id": 0},
    {"name": "snapshot_id", "type": ["null", "long"], "default": null, "field-id": 1},
    {"name": "data_file", "type": {"type": "record", "name": "r2", "fields": [
      {"name": "file_path", "type": "string", "doc": "Location URI with FS scheme",
       "field-id": 100},
      {"name": "partition", "type": {"type": "record", "name": "r102", "fields": [
        {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}],
         "default": null, "field-id": 1000}]}, "field-id": 102},
      {"name": "column_sizes", "type": ["null", {"type": "array", "items": {
        "type": "record", "name": "k117_v118", "fields": [
          {"name": "key", "type": "int", "field-id": 117},
          {"name": "value", "type": "long", "field-id": 118}]},
        "logicalType": "map"}], "default": null, "field-id": 108},
      {"name": "split_offsets", "type": ["null", {"type": "array", "items": "long",
        "element-id": 133}], "default": null, "field-id": 132},
      {"name": "props", "type": {"type": "map", "values": "string", "key-id": 7,
        "value-id": 8}, "field-id": 6}
    ]}, "field-id": 2}
  ]})";

TEST(AvroSchema, IcebergAttributesSurviveARoundTrip) {
  Schema s = MustParse(kIcebergLike);
  const Node& root = s.root();
  ASSERT_EQ(root.type, Type::kRecord);
  EXPECT_EQ(root.name, "manifest_entry");
  ASSERT_EQ(root.fields.size(), 3u);
  EXPECT_EQ(IntAttribute(root.fields[0].attributes, "field-id"), 0);
  EXPECT_EQ(root.fields[1].default_json, "null");
  const Node& file = *root.fields[2].type;
  EXPECT_EQ(file.FieldIndex("split_offsets"), 3);
  EXPECT_EQ(file.FieldIndex("nope"), -1);
  EXPECT_EQ(file.fields[0].doc, "Location URI with FS scheme");
  EXPECT_EQ(IntAttribute(file.fields[0].attributes, "field-id"), 100);
  const Node& offsets = *file.fields[3].type->branches[1];
  EXPECT_EQ(IntAttribute(offsets.attributes, "element-id"), 133);
  const Node& sizes = *file.fields[2].type->branches[1];
  EXPECT_EQ(sizes.logical_type, "map");
  const Node& props = *file.fields[4].type;
  EXPECT_EQ(IntAttribute(props.attributes, "key-id"), 7);
  EXPECT_EQ(IntAttribute(props.attributes, "value-id"), 8);
  EXPECT_EQ(file.fields[1].type->fields[0].type->branches[1]->logical_type, "date");

  // Printed back, the JSON is the input's (same keys and values; object order aside).
  EXPECT_EQ(Json::parse(s.ToJson()), Json::parse(kIcebergLike));
  Schema again = MustParse(s.ToJson());
  EXPECT_EQ(again.ToJson(), s.ToJson());
}

TEST(AvroSchema, NamedTypesAndReferences) {
  Schema s = MustParse(R"({
    "type": "record", "name": "Outer", "namespace": "a.b", "fields": [
      {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"],
                             "default": "RED"}},
      {"name": "e2", "type": "Color"},
      {"name": "e3", "type": "a.b.Color"},
      {"name": "f", "type": {"type": "fixed", "name": "x.Md5", "size": 16}},
      {"name": "f2", "type": "x.Md5"},
      {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
        {"name": "c", "type": "Color"}]}},
      {"name": "other", "type": {"type": "record", "name": "Other", "namespace": "",
        "fields": []}},
      {"name": "other2", "type": "Other"}
    ]})");
  const Node& root = s.root();
  EXPECT_EQ(root.name, "a.b.Outer");
  const Node* color = s.FindNamed("a.b.Color");
  ASSERT_NE(color, nullptr);
  EXPECT_EQ(root.fields[0].type, color);
  EXPECT_EQ(root.fields[1].type, color);
  EXPECT_EQ(root.fields[2].type, color);
  EXPECT_EQ(color->enum_default, "RED");
  EXPECT_EQ(root.fields[3].type->name, "x.Md5");
  EXPECT_EQ(root.fields[4].type, root.fields[3].type);
  EXPECT_EQ(root.fields[5].type->name, "a.b.Inner");  // inherits the enclosing namespace
  EXPECT_EQ(root.fields[5].type->fields[0].type, color);
  EXPECT_EQ(root.fields[6].type->name, "Other");  // the null namespace
  EXPECT_EQ(root.fields[7].type, root.fields[6].type);

  // Printed: defined once, then referenced by full name; Other keeps its null namespace.
  std::string json = s.ToJson();
  Json j = Json::parse(json);
  EXPECT_EQ(j["fields"][1]["type"], "a.b.Color");
  EXPECT_EQ(j["fields"][6]["type"]["namespace"], "");
  Schema again = MustParse(json);
  EXPECT_EQ(again.root().fields[7].type->name, "Other");
  EXPECT_EQ(again.ToJson(), json);
}

TEST(AvroSchema, RecursiveRecord) {
  Schema s = MustParse(R"({"type": "record", "name": "LongList", "fields": [
    {"name": "value", "type": "long"},
    {"name": "next", "type": ["null", "LongList"]}]})");
  const Node& root = s.root();
  EXPECT_EQ(root.fields[1].type->branches[1], &root);
  EXPECT_EQ(root.fields[1].type->branches[1]->BranchName(), "LongList");
  EXPECT_EQ(MustParse(s.ToJson()).ToJson(), s.ToJson());
}

TEST(AvroSchema, MayEncodeEmpty) {
  Schema s = MustParse(R"({"type": "record", "name": "R", "fields": [
    {"name": "a", "type": "null"},
    {"name": "b", "type": {"type": "fixed", "name": "F0", "size": 0}},
    {"name": "c", "type": {"type": "record", "name": "Empty", "fields": []}},
    {"name": "d", "type": {"type": "fixed", "name": "F1", "size": 1}},
    {"name": "e", "type": ["null"]}]})");
  const Node& r = s.root();
  EXPECT_FALSE(r.may_encode_empty);  // d is a byte
  EXPECT_TRUE(r.fields[0].type->may_encode_empty);
  EXPECT_TRUE(r.fields[1].type->may_encode_empty);
  EXPECT_TRUE(r.fields[2].type->may_encode_empty);
  EXPECT_FALSE(r.fields[3].type->may_encode_empty);
  EXPECT_FALSE(r.fields[4].type->may_encode_empty);  // a union writes its branch index
  // A record that contains itself (unencodable, but parseable) is not "empty".
  Schema self = MustParse(R"({"type": "record", "name": "S", "fields": [
    {"name": "s", "type": "S"}]})");
  EXPECT_FALSE(self.root().may_encode_empty);
}

TEST(AvroSchema, InvalidSchemasAreInvalidArgument) {
  const char* bad[] = {
      "",
      "{",
      "42",
      R"("integer")",
      R"({"type": "record", "name": "R"})",
      R"({"type": "record", "fields": []})",
      R"({"type": "record", "name": "1R", "fields": []})",
      R"({"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"},
                                                    {"name": "a", "type": "long"}]})",
      R"({"type": "record", "name": "R", "fields": [{"name": "a"}]})",
      R"({"type": "record", "name": "R", "fields": [{"name": "a-b", "type": "int"}]})",
      R"({"type": "record", "name": "R", "fields": [{"name": "a", "type": "Nope"}]})",
      R"({"type": "record", "name": "int", "fields": []})",
      R"(["int", ["null", "long"]])",
      R"(["int", "int"])",
      R"(["null", {"type": "array", "items": "int"}, {"type": "array", "items": "long"}])",
      R"([{"type": "fixed", "name": "F", "size": 1}, {"type": "fixed", "name": "F", "size": 1}])",
      R"({"type": "fixed", "name": "F", "size": -1})",
      R"({"type": "fixed", "name": "F"})",
      R"({"type": "enum", "name": "E", "symbols": ["A", "A"]})",
      R"({"type": "enum", "name": "E", "symbols": ["A"], "default": "B"})",
      R"({"type": "enum", "name": "E", "symbols": ["9"]})",
      R"({"type": "array"})",
      R"({"type": "map", "values": "Nope"})",
      R"({"type": {"type": "int"}})",
      R"({"type": "record", "name": "R", "namespace": "a..b", "fields": []})",
  };
  for (const char* json : bad) {
    auto s = Schema::Parse(json);
    ASSERT_FALSE(s.ok()) << json;
    EXPECT_EQ(s.status().kind(), ErrorKind::kInvalidArgument) << json;
  }
  // Nesting beyond the limit is refused, not a stack overflow.
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += R"({"type":"array","items":)";
  deep += "\"int\"";
  for (int i = 0; i < 100000; ++i) deep += "}";
  EXPECT_EQ(Schema::Parse(deep).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(AvroSchema, UnionsOfNamedTypesOfDifferentNames) {
  Schema s = MustParse(R"(["null", {"type": "fixed", "name": "A", "size": 1},
                           {"type": "fixed", "name": "B", "size": 2}])");
  ASSERT_EQ(s.root().branches.size(), 3u);
  EXPECT_EQ(s.root().branches[1]->BranchName(), "A");
  EXPECT_EQ(s.root().branches[2]->BranchName(), "B");
}

}  // namespace
}  // namespace tarn::avro

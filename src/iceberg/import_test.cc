#include "iceberg/import.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "avro/container.h"
#include "common/io.h"
#include "common/test_util.h"
#include "iceberg/metadata.h"
#include "iceberg/position_deletes.h"
#include "iceberg/test_util.h"
#include "parquet/writer.h"
#include "table/schema_json.h"
#include "types/value_text.h"

namespace tarn::iceberg {
namespace {

// ---- Helpers ----

Schema Parse(const std::string& text) {
  auto s = Schema::Parse(text);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

// Names, ids, nullability and types (nested ids and nullability included) are the same.
void ExpectSameSchema(const Schema& got, const Schema& want) {
  ASSERT_EQ(got.fields.size(), want.fields.size()) << got.ToString() << "\n" << want.ToString();
  for (size_t i = 0; i < got.fields.size(); ++i) {
    const Field& g = got.fields[i];
    const Field& w = want.fields[i];
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(g.field_id, w.field_id) << w.name;
    EXPECT_EQ(g.nullable, w.nullable) << w.name;
    EXPECT_EQ(g.type.ToString(), w.type.ToString()) << w.name;
    EXPECT_TRUE(SameNestedFields(g.type, w.type)) << w.name << ": " << SchemaToJson(got);
  }
}

// The error of `r`, which must have failed with `kind` and a message containing each of `words`.
template <typename T>
void ExpectError(const Result<T>& r, ErrorKind kind, std::vector<std::string> words = {}) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), kind) << r.status().ToString();
  for (const std::string& w : words) {
    EXPECT_NE(r.status().message().find(w), std::string::npos)
        << "'" << w << "' not in: " << r.status().ToString();
  }
}

// A metadata JSON of one schema (fields as given), unpartitioned, without snapshots.
std::string MetadataWithFields(const Json& fields, int version = 2) {
  Json m = {{"format-version", version},
            {"table-uuid", "0f8fad5b-d9cb-469f-a165-70867728950e"},
            {"location", "s3://b/t"},
            {"last-sequence-number", 0},
            {"last-updated-ms", 1},
            {"last-column-id", 100},
            {"current-schema-id", 0},
            {"schemas", Json::array({{{"type", "struct"}, {"schema-id", 0}, {"fields", fields}}})},
            {"default-spec-id", 0},
            {"partition-specs", Json::array({{{"spec-id", 0}, {"fields", Json::array()}}})},
            {"last-partition-id", 999},
            {"default-sort-order-id", 0},
            {"sort-orders", Json::array({{{"order-id", 0}, {"fields", Json::array()}}})}};
  return m.dump();
}

Json IcebergField(int id, const std::string& name, Json type, bool required = false) {
  return {{"id", id}, {"name", name}, {"required", required}, {"type", std::move(type)}};
}

// ---- Table metadata ----

// A table tarn would show: nested columns, two specs, two snapshots, a column left out (UINT32).
TableMetadata SampleTable(int version) {
  TableMetadata m;
  m.format_version = version;
  m.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  m.location = "s3://bucket/datasets/9c12d441";
  m.last_updated_ms = 1700000000123;
  Schema old = Parse("id INT64 NOT NULL, ts TIMESTAMPTZ[us]");
  Schema current = Parse(
      "id INT64 NOT NULL, ts TIMESTAMPTZ[us], tags ARRAY<VARCHAR NOT NULL>, "
      "p STRUCT<a: INT32 NOT NULL, m: MAP<VARCHAR, FLOAT64>>, n UINT32");
  m.last_column_id = MaxFieldId(current);
  m.schemas = {{0, old}, {3, current}};
  m.current_schema_id = 3;
  PartitionSpec first = *PartitionSpec::Parse("bucket(8, id)", old, 0);
  PartitionSpec second = *PartitionSpec::Parse("day(ts), bucket(16, id)", current, 1);
  for (PartitionField& f : second.fields) f.field_id += 1;  // after the first spec's 1000
  m.specs = {first, second};
  m.default_spec_id = 1;
  m.properties = {{"owner", "data-eng"}, {"write.format.default", "parquet"}};
  for (int64_t id : {11, 12}) {
    SnapshotEntry s;
    s.snapshot_id = id;
    if (id > 11) s.parent_snapshot_id = id - 1;
    s.sequence_number = id - 10;
    s.timestamp_ms = 1700000000000 + id;
    s.manifest_list = m.location + "/metadata/snap-" + std::to_string(id) + ".avro";
    s.summary = {{"operation", "append"}};
    s.schema_id = 3;
    s.first_row_id = (id - 11) * 10;
    s.added_rows = 10;
    m.snapshots.push_back(s);
  }
  m.current_snapshot_id = 12;
  m.next_row_id = 20;
  return m;
}

TEST(IcebergImport, TableMetadataTarnWroteReadsBack) {
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    TableMetadata m = SampleTable(version);
    std::vector<OmittedColumn> omitted;
    ASSERT_OK_AND_ASSIGN(Json json, TableMetadataJson(m, &omitted));
    ASSERT_OK_AND_ASSIGN(ImportedTable t, ParseTableMetadata(json.dump(2)));
    EXPECT_EQ(t.format_version, version);
    EXPECT_EQ(t.table_uuid, m.table_uuid);
    EXPECT_EQ(t.location, m.location);
    EXPECT_EQ(t.last_column_id, m.last_column_id);
    EXPECT_EQ(t.schema_id, 3);
    // The current schema as Iceberg shows it: n (UINT32) left out, every other id kept.
    Schema want = m.schemas[1].second;
    want.fields.pop_back();
    ExpectSameSchema(t.schema, want);
    EXPECT_EQ(t.specs, m.specs);
    EXPECT_EQ(t.default_spec_id, 1);
    EXPECT_EQ(t.default_spec(), m.specs[1]);
    EXPECT_EQ(t.FindSpec(7), nullptr);
    ASSERT_TRUE(t.current_snapshot.has_value());
    EXPECT_EQ(t.current_snapshot->snapshot_id, 12);
    EXPECT_EQ(t.current_snapshot->sequence_number, 2);
    EXPECT_EQ(t.current_snapshot->timestamp_ms, 1700000000012);
    EXPECT_EQ(t.current_snapshot->manifest_list, m.location + "/metadata/snap-12.avro");
    std::map<std::string, std::string> props = m.properties;
    props["tarn.iceberg.omitted-columns"] = "n";
    EXPECT_EQ(t.properties, props);
  }
}

TEST(IcebergImport, WithoutSnapshotsThereIsNoCurrentSnapshot) {
  TableMetadata m = SampleTable(2);
  m.snapshots.clear();
  m.current_snapshot_id.reset();
  std::vector<OmittedColumn> omitted;
  ASSERT_OK_AND_ASSIGN(Json json, TableMetadataJson(m, &omitted));
  ASSERT_OK_AND_ASSIGN(ImportedTable t, ParseTableMetadata(json.dump()));
  EXPECT_FALSE(t.current_snapshot.has_value());
  // Java's older writers say -1; a null says the same.
  json["current-snapshot-id"] = -1;
  ASSERT_OK_AND_ASSIGN(t, ParseTableMetadata(json.dump()));
  EXPECT_FALSE(t.current_snapshot.has_value());
  json["current-snapshot-id"] = nullptr;
  ASSERT_OK_AND_ASSIGN(t, ParseTableMetadata(json.dump()));
  EXPECT_FALSE(t.current_snapshot.has_value());
}

TEST(IcebergImport, TheMainBranchNamesTheSnapshotWhenTheIdIsAbsent) {
  std::vector<OmittedColumn> omitted;
  ASSERT_OK_AND_ASSIGN(Json json, TableMetadataJson(SampleTable(2), &omitted));
  json.erase("current-snapshot-id");
  json["refs"] = {{"main", {{"snapshot-id", 11}, {"type", "branch"}}}};
  ASSERT_OK_AND_ASSIGN(ImportedTable t, ParseTableMetadata(json.dump()));
  ASSERT_TRUE(t.current_snapshot.has_value());
  EXPECT_EQ(t.current_snapshot->snapshot_id, 11);
  EXPECT_EQ(t.current_snapshot->sequence_number, 1);
}

// Every type Iceberg shows, through SchemaJson and back: the same schema, the same ids.
TEST(IcebergImport, EveryMappedTypeComesBackWithItsIds) {
  Schema s = Parse(
      "b BOOLEAN NOT NULL, i INT32, l INT64, f FLOAT32, d FLOAT64, dec DECIMAL(10,2), "
      "dec_max DECIMAL(38,38), dec_min DECIMAL(1,0), dt DATE, t TIME, ts TIMESTAMP[us], "
      "tz TIMESTAMPTZ[us], ts_ns TIMESTAMP[ns], tz_ns TIMESTAMPTZ[ns], s VARCHAR, u UUID, "
      "bl BLOB NOT NULL, v VARIANT, tags ARRAY<VARCHAR NOT NULL>, "
      "nested ARRAY<ARRAY<INT64>>, m MAP<VARCHAR, DECIMAL(5,1)>, "
      "mm MAP<INT32, STRUCT<x: INT64 NOT NULL, y: ARRAY<DATE>>>, "
      "p STRUCT<a: INT32 NOT NULL, q: STRUCT<z: UUID>, l: ARRAY<STRUCT<w: BLOB>>>");
  std::vector<OmittedColumn> omitted;
  ASSERT_OK_AND_ASSIGN(Json json, SchemaJson(s, 0, 3, &omitted));
  ASSERT_TRUE(omitted.empty());
  ASSERT_OK_AND_ASSIGN(Schema back, ImportSchema(json));
  ExpectSameSchema(back, s);
  // The same through a whole table's metadata (format version 3 shows every one).
  ASSERT_OK_AND_ASSIGN(ImportedTable t, ParseTableMetadata(MetadataWithFields(json["fields"], 3)));
  ExpectSameSchema(t.schema, s);
}

// tarn types Iceberg shows under a wider name come back as that name's tarn type, ids kept.
TEST(IcebergImport, NarrowTarnTypesComeBackAsIcebergsWidth) {
  Schema s = Parse("a INT8, b INT16, c UINT8, d UINT16 NOT NULL, j JSON, l ARRAY<INT8>");
  std::vector<OmittedColumn> omitted;
  ASSERT_OK_AND_ASSIGN(Json json, SchemaJson(s, 0, 2, &omitted));
  ASSERT_OK_AND_ASSIGN(Schema back, ImportSchema(json));
  Schema want = Parse("a INT32, b INT32, c INT32, d INT32 NOT NULL, j VARCHAR, l ARRAY<INT32>");
  ExpectSameSchema(back, want);
}

TEST(IcebergImport, TypeNamesAsJavaReadsThem) {
  Json fields =
      Json::array({IcebergField(1, "a", "decimal(9, 2)"), IcebergField(2, "b", "DECIMAL( 38 ,0 )"),
                   IcebergField(3, "c", "Long"), IcebergField(4, "d", "TIMESTAMPTZ")});
  ASSERT_OK_AND_ASSIGN(ImportedTable t, ParseTableMetadata(MetadataWithFields(fields)));
  ExpectSameSchema(t.schema, Parse("a DECIMAL(9,2), b DECIMAL(38,0), c INT64, d TIMESTAMPTZ[us]"));
}

TEST(IcebergImport, TypesTarnCannotHoldAreRefusedByColumnAndType) {
  struct Case {
    Json type;
    std::vector<std::string> words;
  };
  const Json fixed_list = {
      {"type", "list"}, {"element-id", 9}, {"element-required", false}, {"element", "fixed[4]"}};
  const Json nested_variant = {{"type", "struct"},
                               {"fields", Json::array({IcebergField(9, "v", "variant")})}};
  const std::vector<Case> cases = {
      {"fixed[16]", {"column 'c'", "fixed[16]"}},
      {"geometry(srid:4326)", {"column 'c'", "geometry"}},
      {"geography(srid:4326, spherical)", {"column 'c'", "geography"}},
      {"unknown", {"column 'c'", "unknown"}},
      {"decimal(39,0)", {"column 'c'", "decimal(39,0)"}},
      {"decimal(4,6)", {"column 'c'", "decimal(4,6)"}},
      {"int128", {"column 'c'", "int128"}},
      {"decimal(9,", {"column 'c'", "decimal(9,"}},
      {fixed_list, {"column 'c.element'", "fixed[4]"}},
      {nested_variant, {"column 'c.v'", "variant"}},
      {{{"type", "set"}}, {"column 'c'", "set"}},
      {{{"type", "struct"}, {"fields", Json::array()}}, {"column 'c'", "empty struct"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type.dump());
    ExpectError(ParseTableMetadata(MetadataWithFields(Json::array({IcebergField(1, "c", c.type)}))),
                ErrorKind::kInvalidArgument, c.words);
  }
}

TEST(IcebergImport, FieldsWithoutIdsDefaultsAndCaseTwinsAreRefused) {
  Json no_id = {{"name", "c"}, {"required", false}, {"type", "long"}};
  ExpectError(ParseTableMetadata(MetadataWithFields(Json::array({no_id}), 1)),
              ErrorKind::kInvalidArgument, {"column 'c'", "no field id"});
  Json list = {{"type", "list"}, {"element-required", false}, {"element", "long"}};
  ExpectError(ParseTableMetadata(MetadataWithFields(Json::array({IcebergField(1, "c", list)}))),
              ErrorKind::kInvalidArgument, {"column 'c.element'", "no field id"});
  Json with_default = IcebergField(1, "c", "int");
  with_default["initial-default"] = 7;
  ExpectError(ParseTableMetadata(MetadataWithFields(Json::array({with_default}))),
              ErrorKind::kInvalidArgument, {"column 'c'", "initial default"});
  // A null initial default, or a write default, changes nothing a reader sees.
  with_default["initial-default"] = nullptr;
  with_default["write-default"] = 7;
  EXPECT_TRUE(ParseTableMetadata(MetadataWithFields(Json::array({with_default}))).ok());
  ExpectError(ParseTableMetadata(MetadataWithFields(Json::array(
                  {IcebergField(1, "Name", "string"), IcebergField(2, "name", "string")}))),
              ErrorKind::kInvalidArgument, {"name"});
  // Too deep: lists of lists past the limit.
  Json deep = "long";
  for (int i = 0; i < kMaxImportNesting + 1; ++i) {
    deep = {
        {"type", "list"}, {"element-id", 100 + i}, {"element-required", false}, {"element", deep}};
  }
  ExpectError(ParseTableMetadata(MetadataWithFields(Json::array({IcebergField(1, "c", deep)}))),
              ErrorKind::kInvalidArgument, {"deeper"});
}

TEST(IcebergImport, MalformedMetadataIsCorruptionNeverACrash) {
  const std::string good = MetadataWithFields(Json::array({IcebergField(1, "id", "long", true)}));
  ASSERT_TRUE(ParseTableMetadata(good).ok());
  auto with = [&](const std::function<void(Json&)>& change) {
    Json j = Json::parse(good);
    change(j);
    return j.dump();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "not valid JSON"},
      {"{\"format-version\": 2", "not valid JSON"},
      {"[1, 2]", "not a JSON object"},
      {std::string(100000, '['), "not valid JSON"},
      {with([](Json& j) { j.erase("location"); }), "location"},
      {with([](Json& j) { j.erase("table-uuid"); }), "table-uuid"},
      {with([](Json& j) { j["format-version"] = "2"; }), "format-version"},
      {with([](Json& j) { j["format-version"] = 0; }), "format-version"},
      {with([](Json& j) { j["last-column-id"] = -3; }), "last-column-id"},
      {with([](Json& j) { j.erase("schemas"); }), "schemas"},
      {with([](Json& j) {
         j["schemas"] = {{"fields", 3}};
       }),
       "schemas"},
      {with([](Json& j) { j["current-schema-id"] = 5; }), "schema 5"},
      {with([](Json& j) { j["schemas"][0]["fields"] = 3; }), "fields"},
      {with([](Json& j) { j["schemas"][0]["fields"][0]["id"] = "one"; }), "id"},
      {with([](Json& j) { j["schemas"][0]["fields"][0].erase("required"); }), "required"},
      {with([](Json& j) { j["schemas"][0]["fields"][0]["type"] = 5; }), "type"},
      {with([](Json& j) { j["schemas"][0]["fields"].push_back(IcebergField(1, "x", "int")); }),
       "field id 1"},
      {with([](Json& j) { j["default-spec-id"] = 4; }), "spec 4"},
      {with([](Json& j) { j["partition-specs"].push_back(j["partition-specs"][0]); }), "twice"},
      {with([](Json& j) {
         j["partition-specs"][0]["fields"] = {{{"name", "x"}}};
       }),
       "source-id"},
      {with([](Json& j) {
         j["properties"] = {{"k", 1}};
       }),
       "property 'k'"},
      {with([](Json& j) { j["current-snapshot-id"] = 5; }), "snapshot 5"},
      {with([](Json& j) {
         j["current-snapshot-id"] = 5;
         j["snapshots"] = {{{"snapshot-id", 5}, {"timestamp-ms", 1}, {"sequence-number", 1}}};
       }),
       "manifest-list"},
      {with([](Json& j) {
         j["current-snapshot-id"] = 5;
         j["snapshots"] = {{{"snapshot-id", 5}, {"timestamp-ms", 1}, {"manifest-list", "x"}}};
       }),
       "sequence-number"},
      {with([](Json& j) {
         j["current-snapshot-id"] = 5;
         j["snapshots"] = {{{"snapshot-id", 5},
                            {"timestamp-ms", "now"},
                            {"sequence-number", 1},
                            {"manifest-list", "x"}}};
       }),
       "timestamp-ms"},
      {with([](Json& j) { j["current-snapshot-id"] = 1e300; }), "current-snapshot-id"},
      {with([](Json& j) { j["current-snapshot-id"] = 18446744073709551615u; }),
       "current-snapshot-id"},
  };
  for (const auto& [text, word] : cases) {
    SCOPED_TRACE(text.substr(0, 200));
    ExpectError(ParseTableMetadata(text), ErrorKind::kCorruption, {word});
  }
  // What tarn does not read is a refusal, not corruption.
  ExpectError(ParseTableMetadata(with([](Json& j) { j["format-version"] = 4; })),
              ErrorKind::kInvalidArgument, {"format version 4"});
  ExpectError(ParseTableMetadata(std::string("\x1f\x8b\x08\x00", 4)), ErrorKind::kInvalidArgument,
              {"gzip"});
}

TEST(IcebergImport, PartitionSpecsTarnCannotHoldAreRefusedByField) {
  const Json fields =
      Json::array({IcebergField(1, "id", "long", true), IcebergField(2, "s", "string"),
                   IcebergField(3, "ts", "timestamptz")});
  auto with_spec = [&](Json spec_fields) {
    Json j = Json::parse(MetadataWithFields(fields));
    j["partition-specs"] = {{{"spec-id", 0}, {"fields", std::move(spec_fields)}}};
    return j.dump();
  };
  auto field = [](Json source, const char* name, const char* transform, int id = 1000) {
    Json f = {{"field-id", id}, {"name", name}, {"transform", transform}};
    if (source.is_array()) {
      f["source-ids"] = source;
    } else {
      f["source-id"] = source;
    }
    return f;
  };
  ExpectError(ParseTableMetadata(with_spec({field(Json::array({1, 3}), "zz", "zorder")})),
              ErrorKind::kInvalidArgument, {"'zz'", "multi-argument"});
  ExpectError(ParseTableMetadata(with_spec({field(1, "id_x", "xbucket[4]")})),
              ErrorKind::kInvalidArgument, {"'id_x'", "xbucket[4]"});
  ExpectError(ParseTableMetadata(with_spec({field(2, "s_day", "day")})),
              ErrorKind::kInvalidArgument, {"'s_day'"});
  ExpectError(ParseTableMetadata(with_spec({field(9, "gone", "identity")})),
              ErrorKind::kInvalidArgument, {"'gone'", "field id 9"});
  // A one-element source-ids is a source-id; a void field over a dropped column stays (its
  // values are always null).
  ASSERT_OK_AND_ASSIGN(ImportedTable t,
                       ParseTableMetadata(with_spec({field(Json::array({3}), "ts_day", "day"),
                                                     field(9, "gone_null", "void", 1001)})));
  ASSERT_EQ(t.default_spec().fields.size(), 2u);
  EXPECT_EQ(t.default_spec().fields[0].source_id, 3);
  EXPECT_EQ(t.default_spec().fields[1].transform.kind, TransformKind::kVoid);
}

// Metadata in the shape Java's TableMetadataParser writes (pretty-printed, with the fields tarn
// does not read: identifier ids, docs, sort orders, refs, logs, statistics).
constexpr const char* kJavaMetadata = R"json({
  "format-version" : 2,
  "table-uuid" : "5a4c2f3e-8c77-4bd7-8b1f-2a43c8a1d7aa",
  "location" : "s3://warehouse/db/events",
  "last-sequence-number" : 3,
  "last-updated-ms" : 1718000000300,
  "last-column-id" : 12,
  "current-schema-id" : 1,
  "schemas" : [ {
    "type" : "struct",
    "schema-id" : 0,
    "fields" : [ {
      "id" : 1,
      "name" : "event_id",
      "required" : true,
      "type" : "long"
    } ]
  }, {
    "type" : "struct",
    "schema-id" : 1,
    "identifier-field-ids" : [ 1 ],
    "fields" : [ {
      "id" : 1,
      "name" : "event_id",
      "required" : true,
      "type" : "long"
    }, {
      "id" : 2,
      "name" : "ts",
      "required" : false,
      "type" : "timestamptz",
      "doc" : "when it happened"
    }, {
      "id" : 3,
      "name" : "amount",
      "required" : false,
      "type" : "decimal(12, 2)"
}, {
      "id" : 4,
      "name" : "tags",
      "required" : false,
      "type" : {
        "type" : "list",
        "element-id" : 7,
        "element" : "string",
        "element-required" : false
      }
    }, {
      "id" : 5,
      "name" : "attrs",
      "required" : false,
      "type" : {
        "type" : "map",
        "key-id" : 8,
        "key" : "string",
        "value-id" : 9,
        "value" : "double",
        "value-required" : true
      }
    }, {
      "id" : 6,
      "name" : "device",
      "required" : false,
      "type" : {
        "type" : "struct",
        "fields" : [ {
          "id" : 10,
          "name" : "os",
          "required" : false,
          "type" : "string"
        }, {
          "id" : 11,
          "name" : "id",
          "required" : true,
          "type" : "uuid"
        } ]
      }
    }, {
      "id" : 12,
      "name" : "payload",
      "required" : false,
      "type" : "binary"
    } ]
} ],
  "default-spec-id" : 1,
  "partition-specs" : [ {
    "spec-id" : 0,
    "fields" : [ ]
  }, {
    "spec-id" : 1,
    "fields" : [ {
      "name" : "ts_day",
      "transform" : "day",
      "source-id" : 2,
      "field-id" : 1000
    }, {
      "name" : "event_id_bucket",
      "transform" : "bucket[16]",
      "source-id" : 1,
      "field-id" : 1001
    } ]
  } ],
  "last-partition-id" : 1001,
  "default-sort-order-id" : 1,
  "sort-orders" : [ {
    "order-id" : 0,
    "fields" : [ ]
  }, {
    "order-id" : 1,
    "fields" : [ {
      "transform" : "identity",
      "source-id" : 2,
      "direction" : "asc",
      "null-order" : "nulls-first"
    } ]
  } ],
  "properties" : {
    "owner" : "etl",
    "write.parquet.compression-codec" : "zstd"
  },
  "current-snapshot-id" : 7361872377341952803,
  "refs" : {
    "main" : {
      "snapshot-id" : 7361872377341952803,
      "type" : "branch"
    },
    "audit" : {
      "snapshot-id" : 4830117411436284515,
      "type" : "tag",
      "max-ref-age-ms" : 864000000
    }
  },
  "snapshots" : [ {
    "sequence-number" : 2,
    "snapshot-id" : 4830117411436284515,
    "timestamp-ms" : 1718000000200,
    "summary" : {
      "operation" : "append",
      "added-data-files" : "1"
    },
    "manifest-list" : "s3://warehouse/db/events/metadata/snap-4830117411436284515-1-aa.avro",
    "schema-id" : 1
  }, {
    "sequence-number" : 3,
    "snapshot-id" : 7361872377341952803,
    "parent-snapshot-id" : 4830117411436284515,
    "timestamp-ms" : 1718000000300,
    "summary" : {
      "operation" : "overwrite",
      "spark.app.id" : "local-1718000000000"
    },
    "manifest-list" : "s3://warehouse/db/events/metadata/snap-7361872377341952803-1-bb.avro",
    "schema-id" : 1
  } ],
  "statistics" : [ ],
  "partition-statistics" : [ ],
  "snapshot-log" : [ {
    "timestamp-ms" : 1718000000200,
    "snapshot-id" : 4830117411436284515
  }, {
    "timestamp-ms" : 1718000000300,
    "snapshot-id" : 7361872377341952803
  } ],
  "metadata-log" : [ {
    "timestamp-ms" : 1718000000200,
    "metadata-file" : "s3://warehouse/db/events/metadata/00001-aaaa.metadata.json"
  } ]
})json";

TEST(IcebergImport, MetadataInJavasShape) {
  ASSERT_OK_AND_ASSIGN(ImportedTable t, ParseTableMetadata(kJavaMetadata));
  EXPECT_EQ(t.format_version, 2);
  EXPECT_EQ(t.table_uuid, "5a4c2f3e-8c77-4bd7-8b1f-2a43c8a1d7aa");
  EXPECT_EQ(t.location, "s3://warehouse/db/events");
  EXPECT_EQ(t.last_column_id, 12);
  EXPECT_EQ(t.schema_id, 1);
  Schema want = Parse(
      "event_id INT64 NOT NULL, ts TIMESTAMPTZ[us], amount DECIMAL(12,2), tags ARRAY<VARCHAR>, "
      "attrs MAP<VARCHAR, FLOAT64 NOT NULL>, device STRUCT<os: VARCHAR, id: UUID NOT NULL>, "
      "payload BLOB");
  want.fields[6].field_id = 12;
  const std::vector<std::vector<int32_t>> nested = {{7}, {8, 9}, {10, 11}};
  for (size_t i = 0; i < nested.size(); ++i) {
    Field& f = want.fields[3 + i];
    f.field_id = static_cast<int32_t>(4 + i);
    std::vector<Field> children = f.type.children();
    for (size_t k = 0; k < children.size(); ++k) children[k].field_id = nested[i][k];
    f.type = f.type.WithChildren(children);
  }
  ExpectSameSchema(t.schema, want);
  ASSERT_EQ(t.specs.size(), 2u);
  EXPECT_TRUE(t.specs[0].unpartitioned());
  EXPECT_EQ(t.default_spec_id, 1);
  const PartitionSpec& spec = t.default_spec();
  ASSERT_EQ(spec.fields.size(), 2u);
  EXPECT_EQ(spec.fields[0], (PartitionField{2, 1000, "ts_day", *Transform::Parse("day")}));
  EXPECT_EQ(spec.fields[1],
            (PartitionField{1, 1001, "event_id_bucket", *Transform::Parse("bucket[16]")}));
  ASSERT_TRUE(t.current_snapshot.has_value());
  EXPECT_EQ(t.current_snapshot->snapshot_id, 7361872377341952803);
  EXPECT_EQ(t.current_snapshot->sequence_number, 3);
  EXPECT_EQ(t.current_snapshot->timestamp_ms, 1718000000300);
  EXPECT_EQ(t.current_snapshot->manifest_list,
            "s3://warehouse/db/events/metadata/snap-7361872377341952803-1-bb.avro");
  EXPECT_EQ(t.properties.at("write.parquet.compression-codec"), "zstd");
  EXPECT_EQ(t.properties.size(), 2u);
}

// Version 1: "schema" and "partition-spec" (field ids from 1000 when absent), no sequence
// numbers; a snapshot listing its manifests inline is refused.
TEST(IcebergImport, Version1Tables) {
  Json j = {
      {"format-version", 1},
      {"location", "hdfs://nn/warehouse/t"},
      {"last-updated-ms", 1},
      {"last-column-id", 2},
      {"schema",
       {{"type", "struct"},
        {"fields",
         Json::array({IcebergField(1, "id", "long", true), IcebergField(2, "d", "date")})}}},
      {"partition-spec",
       Json::array({{{"name", "d"}, {"transform", "identity"}, {"source-id", 2}},
                    {{"name", "id_bucket"}, {"transform", "bucket[4]"}, {"source-id", 1}}})},
      {"properties", Json::object()},
      {"current-snapshot-id", 3},
      {"snapshots",
       Json::array({{{"snapshot-id", 3}, {"timestamp-ms", 5}, {"manifest-list", "hdfs://l"}}})}};
  ASSERT_OK_AND_ASSIGN(ImportedTable t, ParseTableMetadata(j.dump()));
  EXPECT_EQ(t.format_version, 1);
  EXPECT_EQ(t.table_uuid, "");
  ExpectSameSchema(t.schema, Parse("id INT64 NOT NULL, d DATE"));
  ASSERT_EQ(t.specs.size(), 1u);
  EXPECT_EQ(t.default_spec_id, 0);
  ASSERT_EQ(t.default_spec().fields.size(), 2u);
  EXPECT_EQ(t.default_spec().fields[0].field_id, 1000);
  EXPECT_EQ(t.default_spec().fields[1].field_id, 1001);
  EXPECT_EQ(t.default_spec().fields[1].transform.ToString(), "bucket[4]");
  ASSERT_TRUE(t.current_snapshot.has_value());
  EXPECT_EQ(t.current_snapshot->sequence_number, 0);
  EXPECT_EQ(t.current_snapshot->manifest_list, "hdfs://l");

  j["snapshots"][0].erase("manifest-list");
  j["snapshots"][0]["manifests"] = Json::array({"hdfs://m1.avro"});
  ExpectError(ParseTableMetadata(j.dump()), ErrorKind::kInvalidArgument,
              {"snapshot 3", "manifests inline"});
  // Version 2 requires what version 1 may leave out.
  j["format-version"] = 2;
  ExpectError(ParseTableMetadata(j.dump()), ErrorKind::kCorruption, {"table-uuid"});
}

// ---- Manifest lists ----

std::vector<ManifestFile> SampleManifests() {
  ManifestFile data;
  data.manifest_path = "s3://b/t/metadata/7-m0.avro";
  data.manifest_length = 4711;
  data.partition_spec_id = 1;
  data.content = ManifestContent::kData;
  data.sequence_number = 7;
  data.min_sequence_number = 3;
  data.added_snapshot_id = 70;
  data.added_files_count = 2;
  data.existing_files_count = 5;
  data.deleted_files_count = 1;
  data.added_rows_count = 200;
  data.existing_rows_count = 500;
  data.deleted_rows_count = 100;
  data.partitions = {
      {false, std::nullopt, std::string("\x01\x00\x00\x00", 4), std::string("\x09\x00\x00\x00", 4)},
      {true, false, std::nullopt, std::nullopt}};
  ManifestFile deletes = data;
  deletes.manifest_path = "s3://b/t/metadata/7-m1.avro";
  deletes.content = ManifestContent::kDeletes;
  deletes.partitions = {{true, std::nullopt, std::nullopt, std::nullopt},
                        {false, true, std::string("a"), std::string("z")}};
  deletes.added_snapshot_id = 71;
  ManifestFile other = data;
  other.manifest_path = "s3://b/t/metadata/3-m0.avro";
  other.partition_spec_id = 0;
  other.partitions.clear();
  other.first_row_id = 40;
  return {data, deletes, other};
}

TEST(IcebergImport, ManifestListsTarnWroteReadBack) {
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    std::string bytes;
    ManifestListOptions o;
    o.format_version = version;
    o.snapshot_id = 70;
    o.parent_snapshot_id = 69;
    o.sequence_number = 7;
    if (version == 3) o.first_row_id = 1000;
    std::vector<ManifestFile> written = SampleManifests();
    ASSERT_OK(WriteManifestList(std::make_unique<StringSink>(&bytes), o, written));
    ASSERT_OK_AND_ASSIGN(std::vector<ManifestFile> read, ReadManifestList(bytes));
    ASSERT_EQ(read.size(), written.size());
    for (size_t i = 0; i < read.size(); ++i) {
      SCOPED_TRACE(i);
      const ManifestFile& r = read[i];
      const ManifestFile& w = written[i];
      EXPECT_EQ(r.manifest_path, w.manifest_path);
      EXPECT_EQ(r.manifest_length, w.manifest_length);
      EXPECT_EQ(r.partition_spec_id, w.partition_spec_id);
      EXPECT_EQ(r.content, w.content);
      EXPECT_EQ(r.sequence_number, w.sequence_number);
      EXPECT_EQ(r.min_sequence_number, w.min_sequence_number);
      EXPECT_EQ(r.added_snapshot_id, w.added_snapshot_id);
      EXPECT_EQ(r.added_files_count, w.added_files_count);
      EXPECT_EQ(r.existing_files_count, w.existing_files_count);
      EXPECT_EQ(r.deleted_files_count, w.deleted_files_count);
      EXPECT_EQ(r.added_rows_count, w.added_rows_count);
      EXPECT_EQ(r.existing_rows_count, w.existing_rows_count);
      EXPECT_EQ(r.deleted_rows_count, w.deleted_rows_count);
      ASSERT_EQ(r.partitions.size(), w.partitions.size());
      for (size_t k = 0; k < r.partitions.size(); ++k) {
        EXPECT_EQ(r.partitions[k].contains_null, w.partitions[k].contains_null);
        EXPECT_EQ(r.partitions[k].contains_nan, w.partitions[k].contains_nan);
        EXPECT_EQ(r.partitions[k].lower, w.partitions[k].lower);
        EXPECT_EQ(r.partitions[k].upper, w.partitions[k].upper);
      }
    }
    if (version == 2) {
      for (const ManifestFile& r : read) EXPECT_FALSE(r.first_row_id.has_value());
    } else {
      // v3: the data manifest without one gets the snapshot's, the delete manifest none, the
      // one with its own keeps it.
      EXPECT_EQ(read[0].first_row_id, 1000);
      EXPECT_FALSE(read[1].first_row_id.has_value());
      EXPECT_EQ(read[2].first_row_id, 40);
    }
  }
}

// Writes `values` (objects of `schema_json`) as an Avro container file.
std::string AvroFile(const std::string& schema_json, const std::vector<avro::Value>& values,
                     avro::Metadata metadata = {}) {
  std::string bytes;
  auto schema = avro::Schema::Parse(schema_json);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  if (!schema.ok()) return bytes;
  avro::WriterOptions options;
  options.metadata = std::move(metadata);
  auto writer = avro::ContainerWriter::Open(std::make_unique<StringSink>(&bytes), *schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return bytes;
  for (const avro::Value& v : values) {
    Status st = (*writer)->Append(v);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return bytes;
}

avro::Value Null() { return avro::MakeUnion(0, avro::Value()); }
avro::Value Some(avro::Value v) { return avro::MakeUnion(1, std::move(v)); }
avro::Value Rec(std::vector<avro::Value> fields) {
  return avro::Value(avro::Record{std::move(fields)});
}

// A version 1 manifest list as Java's V1Metadata writes it: no content, no sequence numbers,
// optional counts under their v1 names.
TEST(IcebergImport, Version1ManifestListsReadWithTheSpecsDefaults) {
  const std::string schema = R"({"type":"record","name":"manifest_file","fields":[
    {"name":"manifest_path","type":"string","field-id":500},
    {"name":"manifest_length","type":"long","field-id":501},
    {"name":"partition_spec_id","type":"int","field-id":502},
    {"name":"added_snapshot_id","type":["null","long"],"default":null,"field-id":503},
    {"name":"added_data_files_count","type":["null","int"],"default":null,"field-id":504},
    {"name":"existing_data_files_count","type":["null","int"],"default":null,"field-id":505},
    {"name":"deleted_data_files_count","type":["null","int"],"default":null,"field-id":506},
    {"name":"partitions","type":["null",{"type":"array","items":{"type":"record",
      "name":"r508","fields":[{"name":"contains_null","type":"boolean","field-id":509},
      {"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510},
      {"name":"upper_bound","type":["null","bytes"],"default":null,"field-id":511}]},
      "element-id":508}],"default":null,"field-id":507}]})";
  std::string bytes = AvroFile(
      schema, {Rec({avro::Value("hdfs://m1.avro"), avro::Value(int64_t{99}), avro::Value(0),
                    Some(avro::Value(int64_t{5})), Some(avro::Value(3)), Null(), Null(),
                    Some(avro::Value(avro::Array{{Rec(
                        {avro::Value(false), Some(avro::Value(avro::Bytes{"a"})), Null()})}}))})});
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestFile> read, ReadManifestList(bytes));
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].manifest_path, "hdfs://m1.avro");
  EXPECT_EQ(read[0].manifest_length, 99);
  EXPECT_EQ(read[0].content, ManifestContent::kData);
  EXPECT_EQ(read[0].sequence_number, 0);
  EXPECT_EQ(read[0].min_sequence_number, 0);
  EXPECT_EQ(read[0].added_snapshot_id, 5);
  EXPECT_EQ(read[0].added_files_count, 3);
  EXPECT_EQ(read[0].existing_files_count, 0);
  ASSERT_EQ(read[0].partitions.size(), 1u);
  EXPECT_EQ(read[0].partitions[0].lower, "a");
  EXPECT_FALSE(read[0].partitions[0].upper.has_value());
  EXPECT_FALSE(read[0].partitions[0].contains_nan.has_value());

  // Without the snapshot that added it, a manifest cannot be read (nothing to inherit).
  bytes = AvroFile(schema, {Rec({avro::Value("m"), avro::Value(int64_t{1}), avro::Value(0), Null(),
                                 Null(), Null(), Null(), Null()})});
  ExpectError(ReadManifestList(bytes), ErrorKind::kCorruption, {"added_snapshot_id"});
}

TEST(IcebergImport, MalformedManifestListsAreCorruption) {
  std::string bytes;
  ManifestListOptions o;
  o.snapshot_id = 70;
  o.sequence_number = 7;
  ASSERT_OK(WriteManifestList(std::make_unique<StringSink>(&bytes), o, SampleManifests()));
  ASSERT_TRUE(ReadManifestList(bytes).ok());
  // Every truncation fails, but the one that keeps the header only (an empty list).
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = ReadManifestList(bytes.substr(0, n));
    ASSERT_TRUE(!r.ok() || r->empty()) << n;
  }
  // A list whose records lack a required field, or type it otherwise.
  ExpectError(ReadManifestList(AvroFile(
                  R"({"type":"record","name":"x","fields":[
                      {"name":"p","type":"string","field-id":500}]})",
                  {Rec({avro::Value("m")})})),
              ErrorKind::kCorruption, {"manifest_length"});
  ExpectError(ReadManifestList(AvroFile(
                  R"({"type":"record","name":"x","fields":[
                      {"name":"p","type":"long","field-id":500}]})",
                  {Rec({avro::Value(int64_t{1})})})),
              ErrorKind::kCorruption, {"manifest_path", "not a string"});
  ExpectError(ReadManifestList(AvroFile(R"("long")", {avro::Value(int64_t{1})})),
              ErrorKind::kCorruption, {"not records"});
  ExpectError(ReadManifestList("not avro at all"), ErrorKind::kCorruption);
}

// ---- Manifests ----

// Every result type a partition value takes: identity over each type, and each transform.
constexpr const char* kColumns =
    "b BOOLEAN, i16 INT16, i INT32, l INT64 NOT NULL, f FLOAT32, d FLOAT64, dec DECIMAL(10,2), "
    "big DECIMAL(38,4), dt DATE, t TIME, ts TIMESTAMP[us], tz TIMESTAMPTZ[us], s VARCHAR, "
    "u UUID, bl BLOB, p STRUCT<k: INT64>";
constexpr const char* kSpec =
    "identity(b), identity(i16), identity(i), identity(l), identity(f), identity(d), "
    "identity(dec), identity(big), identity(dt), identity(t), identity(ts), identity(tz), "
    "identity(s), identity(u), identity(bl), bucket(16, l), truncate(3, s), truncate(10, i), "
    "truncate(50, dec), truncate(2, bl), year(ts), month(tz), day(dt), hour(ts), void(i), "
    "identity(p.k)";

PartitionValues Tuple() {
  return {"true",
          "-300",
          "-7",
          "1234567890123",
          "1.5",
          "-0.25",
          "-1.50",
          "12345678901234567890123456789012.3456",
          "2024-02-29",
          "10:00:00.5",
          "2024-01-01T10:00:00.000001",
          "2024-01-01T10:00:00Z",
          "h\xc3\xa9llo",
          "0f8fad5b-d9cb-469f-a165-70867728950e",
          "AQID",
          "5",
          "abc",
          "-10",
          "-2.00",
          "AQI=",
          "54",
          "648",
          "19782",
          "473050",
          std::nullopt,
          "-9"};
}

struct Written {
  std::string bytes;
  ManifestFile file;
};

Written WriteManifest(const ManifestOptions& options, const std::vector<ManifestEntry>& entries) {
  Written w;
  auto writer = ManifestWriter::Open(std::make_unique<StringSink>(&w.bytes), options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return w;
  for (const ManifestEntry& e : entries) {
    Status st = (*writer)->Add(e);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  auto file = (*writer)->Finish();
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (file.ok()) w.file = *file;
  w.file.manifest_path = "s3://b/t/metadata/m.avro";
  return w;
}

ManifestOptions Options(int version, const Schema& schema, const PartitionSpec& spec,
                        ManifestContent content = ManifestContent::kData) {
  ManifestOptions o;
  o.format_version = version;
  o.content = content;
  o.source_schema = schema;
  o.spec = spec;
  o.schema_json = R"({"type":"struct","schema-id":0,"fields":[]})";
  o.stats_field_ids = {1, 4, 6, 13};
  o.snapshot_id = 77;
  o.sequence_number = 9;
  return o;
}

ManifestEntry Entry(const std::string& path, PartitionValues partition) {
  ManifestEntry e;
  e.status = EntryStatus::kAdded;
  e.snapshot_id = 77;
  e.sequence_number = 9;
  e.file_sequence_number = 9;
  e.file_path = path;
  e.partition = std::move(partition);
  e.record_count = 100;
  e.file_size_in_bytes = 4096;
  return e;
}

void ExpectSameEntry(const ManifestEntry& got, const ManifestEntry& want) {
  SCOPED_TRACE(want.file_path);
  EXPECT_EQ(got.status, want.status);
  EXPECT_EQ(got.snapshot_id, want.snapshot_id);
  EXPECT_EQ(got.sequence_number, want.sequence_number);
  EXPECT_EQ(got.file_sequence_number, want.file_sequence_number);
  EXPECT_EQ(got.content, want.content);
  EXPECT_EQ(got.file_path, want.file_path);
  EXPECT_EQ(got.file_format, want.file_format);
  EXPECT_EQ(got.partition, want.partition);
  EXPECT_EQ(got.record_count, want.record_count);
  EXPECT_EQ(got.file_size_in_bytes, want.file_size_in_bytes);
  EXPECT_EQ(got.stats, want.stats);
  EXPECT_EQ(got.sort_order_id, want.sort_order_id);
  EXPECT_EQ(got.first_row_id, want.first_row_id);
}

TEST(IcebergImport, ManifestsTarnWroteReadBackWithEveryPartitionType) {
  const Schema schema = Parse(kColumns);
  const PartitionSpec spec = *PartitionSpec::Parse(kSpec, schema, 1);
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    ManifestEntry a = Entry("s3://b/t/data/a.parquet", Tuple());
    // Statistics of the listed ids only (1, 4, 6, 13), sorted: what the writer keeps.
    a.stats = {{13, 100, 2, std::nullopt, std::string("ab"), std::string("zz")},
               {6, 100, 0, 3, std::string("\x00\x00\x00\x00\x00\x00\xf0\x3f", 8), std::nullopt},
               {4, 100, 0, std::nullopt, std::string(8, '\x01'), std::string(8, '\x02')},
               {2, 100, 0, std::nullopt, std::nullopt, std::nullopt}};
    a.sort_order_id = 1;
    a.first_row_id = 500;
    ManifestEntry b = Entry("s3://b/t/data/b.parquet", PartitionValues(spec.fields.size()));
    b.status = EntryStatus::kExisting;
    b.sequence_number = 3;
    b.file_sequence_number = 4;
    b.snapshot_id = 30;
    b.first_row_id = 100;
    ManifestEntry c = Entry("s3://b/t/data/c.parquet", Tuple());
    c.status = EntryStatus::kDeleted;
    c.partition[0] = "false";
    c.partition[4] = "NaN";
    c.partition[5] = "-Infinity";
    c.partition[12] = "";
    c.first_row_id = 0;
    Written w = WriteManifest(Options(version, schema, spec), {a, b, c});
    ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> read,
                         ReadManifest(w.bytes, w.file, spec, schema));
    ASSERT_EQ(read.size(), 3u);
    a.stats = {a.stats[2], a.stats[1], a.stats[0]};
    b.stats.clear();
    c.stats.clear();
    if (version == 2) {
      a.first_row_id.reset();
      b.first_row_id.reset();
      c.first_row_id.reset();
    }
    c.partition[12] = "";
    ExpectSameEntry(read[0], a);
    ExpectSameEntry(read[1], b);
    ExpectSameEntry(read[2], c);
  }
}

// Nanosecond timestamps are partition values of format version 3.
TEST(IcebergImport, NanosecondPartitionValues) {
  const Schema schema = Parse("ts TIMESTAMP[ns], tz TIMESTAMPTZ[ns]");
  const PartitionSpec spec =
      *PartitionSpec::Parse("identity(ts), identity(tz), day(tz), bucket(4, ts)", schema, 0);
  ManifestEntry e = Entry("s3://b/f.parquet", {"2024-01-01T10:00:00.000000001",
                                               "1969-12-31T23:59:59.999999999Z", "-1", "2"});
  Written w = WriteManifest(Options(3, schema, spec), {e});
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> read,
                       ReadManifest(w.bytes, w.file, spec, schema));
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].partition, e.partition);
}

// A delete manifest: position deletes come back, equality deletes too (for the caller to refuse
// by path); a live file that is not Parquet is refused by path, a DELETED one is history.
TEST(IcebergImport, DeleteManifestsAndFileFormats) {
  const Schema schema = Parse("id INT64, s VARCHAR");
  const PartitionSpec spec = *PartitionSpec::Parse("bucket(4, id)", schema, 2);
  ManifestEntry pos = Entry("s3://b/t/data/d1.parquet", {"1"});
  pos.content = kContentPositionDeletes;
  pos.stats = {
      {kDeleteFilePathFieldId, 3, 0, std::nullopt, std::string("s3://x"), std::string("s3://x")}};
  ManifestEntry eq = Entry("s3://b/t/data/eq.avro", {"2"});
  eq.content = 2;
  eq.file_format = "AVRO";
  ManifestOptions o = Options(2, schema, spec, ManifestContent::kDeletes);
  o.stats_field_ids = {kDeleteFilePathFieldId};
  Written w = WriteManifest(o, {pos, eq});
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> read,
                       ReadManifest(w.bytes, w.file, spec, schema));
  ASSERT_EQ(read.size(), 2u);
  ExpectSameEntry(read[0], pos);
  EXPECT_EQ(read[1].content, 2);
  EXPECT_EQ(read[1].file_path, "s3://b/t/data/eq.avro");

  ManifestEntry puffin = pos;
  puffin.file_format = "PUFFIN";
  w = WriteManifest(o, {puffin});
  ExpectError(ReadManifest(w.bytes, w.file, spec, schema), ErrorKind::kInvalidArgument,
              {"d1.parquet", "deletion vector"});

  ManifestEntry orc = Entry("s3://b/t/data/o.orc", {"1"});
  orc.file_format = "ORC";
  ManifestEntry lower = Entry("s3://b/t/data/p.parquet", {"1"});
  lower.file_format = "parquet";
  w = WriteManifest(Options(2, schema, spec), {lower, orc});
  ExpectError(ReadManifest(w.bytes, w.file, spec, schema), ErrorKind::kInvalidArgument,
              {"o.orc", "ORC", "Parquet"});
  orc.status = EntryStatus::kDeleted;
  w = WriteManifest(Options(2, schema, spec), {lower, orc});
  ASSERT_OK_AND_ASSIGN(read, ReadManifest(w.bytes, w.file, spec, schema));
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].file_format, "parquet");
  EXPECT_EQ(read[1].status, EntryStatus::kDeleted);
}

// The manifest_entry of Java's V2 writer for a v3 table, with what other writers do: records
// named otherwise, fields in another order, fields unknown to tarn, sequence numbers and snapshot
// ids left to inheritance, first row ids assigned on read, Java's partition types.
constexpr const char* kJavaEntrySchema = R"({"type":"record","name":"entry","fields":[
  {"name":"status","type":"int","field-id":0},
  {"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},
  {"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},
  {"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},
  {"name":"data_file","field-id":2,"type":{"type":"record","name":"file","fields":[
    {"name":"file_format","type":"string","field-id":101},
    {"name":"file_path","type":"string","field-id":100},
    {"name":"content","type":"int","field-id":134},
    {"name":"record_count","type":"long","field-id":103},
    {"name":"partition","field-id":102,"type":{"type":"record","name":"tuple","fields":[
      {"name":"id_bucket","type":["null","int"],"default":null,"field-id":1001},
      {"name":"ts_day","type":["null",{"type":"int","logicalType":"date"}],"default":null,
       "field-id":1000},
      {"name":"price","type":["null",{"type":"fixed","name":"decimal_10_2","size":5,
       "logicalType":"decimal","precision":10,"scale":2}],"default":null,"field-id":1002},
      {"name":"u","type":["null",{"type":"fixed","name":"uuid_fixed","size":16,
       "logicalType":"uuid"}],"default":null,"field-id":1003}]}},
    {"name":"file_size_in_bytes","type":"long","field-id":104},
    {"name":"column_sizes","type":["null",{"type":"array","logicalType":"map","items":{
      "type":"record","name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},
      {"name":"value","type":"long","field-id":118}]}}],"default":null,"field-id":108},
    {"name":"value_counts","type":["null",{"type":"array","logicalType":"map","items":{
      "type":"record","name":"k119_v120","fields":[{"name":"value","type":"long","field-id":120},
      {"name":"key","type":"int","field-id":119}]}}],"default":null,"field-id":109},
    {"name":"null_value_counts","type":["null",{"type":"map","values":"long"}],"default":null,
     "field-id":110},
    {"name":"lower_bounds","type":["null",{"type":"array","logicalType":"map","items":{
      "type":"record","name":"k126_v127","fields":[{"name":"key","type":"int","field-id":126},
      {"name":"value","type":"bytes","field-id":127}]}}],"default":null,"field-id":125},
    {"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],
     "default":null,"field-id":132},
    {"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140},
    {"name":"first_row_id","type":["null","long"],"default":null,"field-id":142},
    {"name":"a_future_field","type":["null","string"],"default":null,"field-id":9999}]}}]})";

// One entry of kJavaEntrySchema.
avro::Value JavaEntry(int32_t status, avro::Value snapshot, avro::Value seq, avro::Value fseq,
                      const std::string& path, int64_t records, avro::Value first_row_id) {
  const std::string uuid("\x0f\x8f\xad\x5b\xd9\xcb\x46\x9f\xa1\x65\x70\x86\x77\x28\x95\x0e", 16);
  avro::Value partition =
      Rec({Some(avro::Value(5)), Some(avro::Value(19782)),
           Some(avro::Value(avro::Fixed{std::string("\xff\xff\xff\xff\x6a", 5)})),
           Some(avro::Value(avro::Fixed{uuid}))});
  auto pair = [](int32_t k, avro::Value v) { return Rec({avro::Value(k), std::move(v)}); };
  avro::Value values =
      Some(avro::Value(avro::Array{{Rec({avro::Value(int64_t{records}), avro::Value(1)})}}));
  avro::Value nulls = Some(
      avro::Value(avro::Map{{{"1", avro::Value(int64_t{0})}, {"2", avro::Value(int64_t{4})}}}));
  avro::Value lower = Some(avro::Value(avro::Array{
      {pair(1, avro::Value(avro::Bytes{std::string("\x07\x00\x00\x00\x00\x00\x00\x00", 8)}))}}));
  avro::Value file = Rec({avro::Value("PARQUET"), avro::Value(path), avro::Value(0),
                          avro::Value(records), std::move(partition), avro::Value(int64_t{1234}),
                          Some(avro::Value(avro::Array{{pair(1, avro::Value(int64_t{80}))}})),
                          std::move(values), std::move(nulls), std::move(lower),
                          Some(avro::Value(avro::Array{{avro::Value(int64_t{4})}})), Null(),
                          std::move(first_row_id), Some(avro::Value("later"))});
  return Rec(
      {avro::Value(status), std::move(snapshot), std::move(seq), std::move(fseq), std::move(file)});
}

TEST(IcebergImport, ManifestsInJavasShapeInheritWhatTheyLeaveOut) {
  const Schema schema = Parse("id INT64, ts TIMESTAMPTZ[us], price DECIMAL(10,2), u UUID");
  PartitionSpec spec =
      *PartitionSpec::Parse("day(ts), bucket(16, id), identity(price), identity(u)", schema, 4);
  ASSERT_EQ(spec.fields[1].field_id, 1001);
  const std::string bytes =
      AvroFile(kJavaEntrySchema,
               {JavaEntry(1, Null(), Null(), Null(), "s3://w/a.parquet", 10, Null()),
                JavaEntry(0, Some(avro::Value(int64_t{3})), Some(avro::Value(int64_t{2})),
                          Some(avro::Value(int64_t{2})), "s3://w/b.parquet", 20,
                          Some(avro::Value(int64_t{5}))),
                JavaEntry(2, Some(avro::Value(int64_t{4})), Some(avro::Value(int64_t{1})),
                          Some(avro::Value(int64_t{1})), "s3://w/c.parquet", 30, Null()),
                JavaEntry(0, Some(avro::Value(int64_t{3})), Some(avro::Value(int64_t{2})),
                          Some(avro::Value(int64_t{2})), "s3://w/d.parquet", 40, Null())},
               {{"partition-spec-id", "4"}, {"content", "data"}, {"format-version", "3"}});
  ManifestFile m;
  m.manifest_path = "s3://w/metadata/m.avro";
  m.partition_spec_id = 4;
  m.sequence_number = 7;
  m.added_snapshot_id = 99;
  m.first_row_id = 1000;
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> read, ReadManifest(bytes, m, spec, schema));
  ASSERT_EQ(read.size(), 4u);
  const ManifestEntry& a = read[0];
  EXPECT_EQ(a.status, EntryStatus::kAdded);
  EXPECT_EQ(a.snapshot_id, 99);
  EXPECT_EQ(a.sequence_number, 7);
  EXPECT_EQ(a.file_sequence_number, 7);
  EXPECT_EQ(a.file_path, "s3://w/a.parquet");
  EXPECT_EQ(a.file_format, "PARQUET");
  EXPECT_EQ(a.partition,
            (PartitionValues{"19782", "5", "-1.50", "0f8fad5b-d9cb-469f-a165-70867728950e"}));
  EXPECT_EQ(a.record_count, 10);
  EXPECT_EQ(a.file_size_in_bytes, 1234);
  // Field 1 has every count and a lower bound; field 2 a null count only (counts unknown).
  ASSERT_EQ(a.stats.size(), 2u);
  EXPECT_EQ(a.stats[0],
            (ColumnStats{1, 10, 0, std::nullopt, std::string("\x07\x00\x00\x00\x00\x00\x00\x00", 8),
                         std::nullopt}));
  EXPECT_EQ(a.stats[1], (ColumnStats{2, 0, 0, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(a.first_row_id, 1000);
  // Explicit values are kept; first row ids go on from the last assigned, DELETED skipped.
  EXPECT_EQ(read[1].snapshot_id, 3);
  EXPECT_EQ(read[1].sequence_number, 2);
  EXPECT_EQ(read[1].first_row_id, 5);
  EXPECT_EQ(read[2].status, EntryStatus::kDeleted);
  EXPECT_FALSE(read[2].first_row_id.has_value());
  EXPECT_EQ(read[3].first_row_id, 1010);

  // Without the manifest's first row id (a table upgraded to v3), no file has one.
  m.first_row_id.reset();
  ASSERT_OK_AND_ASSIGN(read, ReadManifest(bytes, m, spec, schema));
  for (const ManifestEntry& e : read) EXPECT_FALSE(e.first_row_id.has_value());

  // An EXISTING entry must carry its sequence numbers.
  const std::string existing = AvroFile(
      kJavaEntrySchema, {JavaEntry(0, Null(), Null(), Null(), "s3://w/e.parquet", 1, Null())});
  ExpectError(ReadManifest(existing, m, spec, schema), ErrorKind::kCorruption,
              {"e.parquet", "EXISTING"});
  // The header and the list must agree.
  ManifestFile deletes = m;
  deletes.content = ManifestContent::kDeletes;
  ExpectError(ReadManifest(bytes, deletes, spec, schema), ErrorKind::kCorruption, {"data"});
  PartitionSpec other = spec;
  other.spec_id = 5;
  ManifestFile of_other = m;
  of_other.partition_spec_id = 5;
  ExpectError(ReadManifest(bytes, of_other, other, schema), ErrorKind::kCorruption,
              {"partition spec"});
  ExpectError(ReadManifest(bytes, m, other, schema), ErrorKind::kInvalidArgument, {"spec 4"});
  // Header values are bytes: a message quoting them stays UTF-8 (it may end up in JSON).
  const std::string odd = AvroFile(kJavaEntrySchema, {}, {{"partition-spec-id", "4\xff\xc3"}});
  auto refused = ReadManifest(odd, m, spec, schema);
  ExpectError(refused, ErrorKind::kCorruption, {"partition spec '4\?\?'"});
  EXPECT_TRUE(IsValidUtf8(refused.status().message()));
  // A spec the tuple does not have is corruption; one whose source is gone a refusal.
  PartitionSpec wider = spec;
  wider.fields.push_back({1, 1009, "id_trunc", *Transform::Parse("truncate[4]")});
  ExpectError(ReadManifest(bytes, m, wider, schema), ErrorKind::kCorruption, {"1009"});
  ExpectError(ReadManifest(bytes, m, spec, Parse("id INT64, price DECIMAL(10,2), u UUID")),
              ErrorKind::kInvalidArgument, {"ts_day"});
}

// Java's V1 manifest: no content, no sequence numbers, a required snapshot id, the deprecated
// block size.
TEST(IcebergImport, Version1ManifestsHaveSequenceNumberZero) {
  const std::string schema = R"({"type":"record","name":"manifest_entry","fields":[
    {"name":"status","type":"int","field-id":0},
    {"name":"snapshot_id","type":"long","field-id":1},
    {"name":"data_file","field-id":2,"type":{"type":"record","name":"r2","fields":[
      {"name":"file_path","type":"string","field-id":100},
      {"name":"file_format","type":"string","field-id":101},
      {"name":"partition","type":{"type":"record","name":"r102","fields":[]},"field-id":102},
      {"name":"record_count","type":"long","field-id":103},
      {"name":"file_size_in_bytes","type":"long","field-id":104},
      {"name":"block_size_in_bytes","type":"long","field-id":105}]}}]})";
  const std::string bytes =
      AvroFile(schema, {Rec({avro::Value(0), avro::Value(int64_t{42}),
                             Rec({avro::Value("hdfs://f.parquet"), avro::Value("PARQUET"), Rec({}),
                                  avro::Value(int64_t{3}), avro::Value(int64_t{99}),
                                  avro::Value(int64_t{67108864})})})});
  ManifestFile m;
  m.manifest_path = "hdfs://m.avro";
  m.added_snapshot_id = 42;
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> read,
                       ReadManifest(bytes, m, PartitionSpec{}, Parse("id INT64")));
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].status, EntryStatus::kExisting);
  EXPECT_EQ(read[0].snapshot_id, 42);
  EXPECT_EQ(read[0].sequence_number, 0);
  EXPECT_EQ(read[0].file_sequence_number, 0);
  EXPECT_EQ(read[0].content, kContentData);
  EXPECT_EQ(read[0].record_count, 3);
  EXPECT_TRUE(read[0].partition.empty());
  EXPECT_TRUE(read[0].stats.empty());
}

TEST(IcebergImport, MalformedManifestsAreRefusedNeverACrash) {
  const Schema schema = Parse(kColumns);
  const PartitionSpec spec = *PartitionSpec::Parse(kSpec, schema, 1);
  ManifestEntry a = Entry("s3://b/t/data/a.parquet", Tuple());
  a.stats = {{1, 100, 2, std::nullopt, std::string("a"), std::string("z")}};
  Written w = WriteManifest(Options(2, schema, spec), {a, a, a});
  ASSERT_TRUE(ReadManifest(w.bytes, w.file, spec, schema).ok());
  // Every truncation fails (but the header alone: no entries); flipped bytes fail or read,
  // never crash.
  for (size_t n = 0; n < w.bytes.size(); ++n) {
    auto r = ReadManifest(w.bytes.substr(0, n), w.file, spec, schema);
    ASSERT_TRUE(!r.ok() || r->empty()) << n;
  }
  for (size_t i = 0; i < w.bytes.size(); i += 7) {
    std::string flipped = w.bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    (void)ReadManifest(flipped, w.file, spec, schema);
  }
  // Required fields missing, or of another type; values that do not fit their partition type.
  const std::string no_path = R"({"type":"record","name":"e","fields":[
    {"name":"status","type":"int","field-id":0},
    {"name":"data_file","field-id":2,"type":{"type":"record","name":"f","fields":[
      {"name":"file_format","type":"string","field-id":101}]}}]})";
  ManifestFile m;
  ExpectError(
      ReadManifest(AvroFile(no_path, {Rec({avro::Value(1), Rec({avro::Value("PARQUET")})})}), m,
                   PartitionSpec{}, schema),
      ErrorKind::kCorruption, {"file_path"});
  const std::string bad_status = R"({"type":"record","name":"e","fields":[
    {"name":"status","type":"int","field-id":0}]})";
  ExpectError(
      ReadManifest(AvroFile(bad_status, {Rec({avro::Value(7)})}), m, PartitionSpec{}, schema),
      ErrorKind::kCorruption, {"status"});
  const std::string typed = R"({"type":"record","name":"e","fields":[
    {"name":"status","type":"int","field-id":0},
    {"name":"data_file","field-id":2,"type":{"type":"record","name":"f","fields":[
      {"name":"file_path","type":"string","field-id":100},
      {"name":"file_format","type":"string","field-id":101},
      {"name":"record_count","type":"long","field-id":103},
      {"name":"file_size_in_bytes","type":"long","field-id":104},
      {"name":"partition","field-id":102,"type":{"type":"record","name":"p","fields":[
        {"name":"x","type":["null","long"],"field-id":1000}]}},
      {"name":"value_counts","field-id":109,"type":{"type":"array","items":{"type":"record",
        "name":"kv","fields":[{"name":"key","type":"int","field-id":119},
        {"name":"value","type":"long","field-id":120}]}}}]}}]})";
  const Schema small = Parse("i INT32");
  const PartitionSpec by_i = *PartitionSpec::Parse("identity(i)", small, 0);
  auto entry = [](avro::Value partition_value, std::vector<avro::Value> counts, int64_t records) {
    return Rec({avro::Value(1),
                Rec({avro::Value("s3://f.parquet"), avro::Value("PARQUET"), avro::Value(records),
                     avro::Value(int64_t{1}), Rec({std::move(partition_value)}),
                     avro::Value(avro::Array{std::move(counts)})})});
  };
  auto kv = [](int32_t k, int64_t v) { return Rec({avro::Value(k), avro::Value(v)}); };
  ExpectError(
      ReadManifest(AvroFile(typed, {entry(Some(avro::Value(int64_t{1})), {}, 1)}), m, by_i, small),
      ErrorKind::kCorruption, {"partition field 'i'", "an int"});
  const Schema wide = Parse("i INT64");
  const PartitionSpec by_l = *PartitionSpec::Parse("identity(i)", wide, 0);
  ASSERT_OK_AND_ASSIGN(
      std::vector<ManifestEntry> read,
      ReadManifest(AvroFile(typed, {entry(Some(avro::Value(int64_t{1})), {kv(1, 1)}, 1)}), m, by_l,
                   wide));
  EXPECT_EQ(read[0].partition, (PartitionValues{"1"}));
  ExpectError(
      ReadManifest(AvroFile(typed, {entry(Null(), {kv(1, 1), kv(1, 2)}, 1)}), m, by_l, wide),
      ErrorKind::kCorruption, {"twice"});
  ExpectError(ReadManifest(AvroFile(typed, {entry(Null(), {kv(1, -1)}, 1)}), m, by_l, wide),
              ErrorKind::kCorruption, {"negative"});
  ExpectError(ReadManifest(AvroFile(typed, {entry(Null(), {}, -1)}), m, by_l, wide),
              ErrorKind::kCorruption, {"negative"});
  // A date partition value where TIME wants microseconds of a day.
  const Schema timed = Parse("t TIME");
  const PartitionSpec by_t = *PartitionSpec::Parse("identity(t)", timed, 0);
  ExpectError(
      ReadManifest(AvroFile(typed, {entry(Some(avro::Value(int64_t{-1})), {}, 1)}), m, by_t, timed),
      ErrorKind::kCorruption, {"time of day"});
}

// ---- Position delete files ----

TEST(IcebergImport, PositionDeleteFilesTarnWroteReadBack) {
  const std::string data = "s3://bucket/datasets/u/data/f1.parquet";
  ASSERT_OK_AND_ASSIGN(std::string bytes, PositionDeleteFile(data, {0, 7, 8, 1000000}));
  ASSERT_OK_AND_ASSIGN(auto deletes, ReadPositionDeletes(bytes));
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[data], (std::vector<uint64_t>{0, 7, 8, 1000000}));
  ExpectError(ReadPositionDeletes(bytes, 3), ErrorKind::kTooLarge, {"3 positions"});
}

// A Parquet file of the reserved columns (any nullability and order) with a `row` column.
std::string DeleteFile(const std::vector<std::optional<std::string>>& paths,
                       const std::vector<std::optional<int64_t>>& positions,
                       DataType pos_type = DataType::Int64(), int32_t pos_id = kDeletePosFieldId) {
  Schema schema;
  schema.fields.push_back({"pos", pos_type, true, pos_id});
  schema.fields.push_back({"file_path", DataType::Varchar(), true, kDeleteFilePathFieldId});
  schema.fields.push_back({"row", DataType::Int64(), true, 2147483544});
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = static_cast<int64_t>(paths.size());
  tarn::Column pos(pos_type), path(DataType::Varchar()), row(DataType::Int64());
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!positions[i]) {
      pos.AppendNull();
    } else if (pos_type.id() == TypeId::kInt32) {
      pos.AppendFixed(static_cast<int32_t>(*positions[i]));
    } else {
      pos.AppendFixed(*positions[i]);
    }
    if (paths[i]) {
      path.AppendBytes(*paths[i]);
    } else {
      path.AppendNull();
    }
    row.AppendFixed(int64_t{42});
  }
  batch.columns.push_back(std::move(pos));
  batch.columns.push_back(std::move(path));
  batch.columns.push_back(std::move(row));
  auto sink = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* out = sink.get();
  parquet::WriterOptions options;
  options.bloom_filter_columns.clear();
  options.row_group_rows = 2;  // several row groups
  auto writer = parquet::FileWriter::Open(std::move(sink), schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return "";
  EXPECT_TRUE((*writer)->Write(batch).ok());
  EXPECT_TRUE((*writer)->Close().ok());
  return out->bytes();
}

TEST(IcebergImport, PositionDeletesOfSeveralFilesComeSortedAndUnique) {
  const std::string bytes =
      DeleteFile({"s3://a", "s3://b", "s3://a", "s3://a", "s3://b"}, {9, 4, 2, 9, 0});
  ASSERT_OK_AND_ASSIGN(auto deletes, ReadPositionDeletes(bytes));
  EXPECT_EQ(deletes,
            (std::map<std::string, std::vector<uint64_t>>{{"s3://a", {2, 9}}, {"s3://b", {0, 4}}}));
}

TEST(IcebergImport, MalformedPositionDeleteFilesAreCorruption) {
  ExpectError(ReadPositionDeletes(DeleteFile({"s3://a", std::nullopt}, {1, 2})),
              ErrorKind::kCorruption, {"null"});
  ExpectError(ReadPositionDeletes(DeleteFile({"s3://a", "s3://a"}, {1, std::nullopt})),
              ErrorKind::kCorruption, {"null"});
  ExpectError(ReadPositionDeletes(DeleteFile({"s3://a"}, {-4})), ErrorKind::kCorruption,
              {"negative"});
  ExpectError(ReadPositionDeletes(DeleteFile({"s3://a"}, {1}, DataType::Int32())),
              ErrorKind::kCorruption, {"INT32"});
  ExpectError(ReadPositionDeletes(DeleteFile({"s3://a"}, {1}, DataType::Int64(), 5)),
              ErrorKind::kCorruption, {"pos", "2147483545"});
  const std::string good = DeleteFile({"s3://a", "s3://b", "s3://c"}, {1, 2, 3});
  ExpectError(ReadPositionDeletes(good, 2), ErrorKind::kTooLarge);
  EXPECT_FALSE(ReadPositionDeletes("PAR1 and then nothing").ok());
  for (size_t n = 0; n < good.size(); n += 3) {
    EXPECT_FALSE(ReadPositionDeletes(good.substr(0, n)).ok()) << n;
  }
}

}  // namespace
}  // namespace tarn::iceberg

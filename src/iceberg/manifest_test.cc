#include "iceberg/manifest.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "avro/container.h"
#include "common/hex.h"
#include "common/test_util.h"
#include "iceberg/test_util.h"
#include "types/value_text.h"

namespace tarn::iceberg {
namespace {

std::string Hex(const std::string& bytes) { return HexEncode(bytes); }

// Every type a partition value takes, through identity and the other transforms.
constexpr const char* kColumns =
    "id INT64 NOT NULL, n INT32, ts TIMESTAMPTZ[us], d DATE, price DECIMAL(10,2), name VARCHAR, "
    "u UUID, f FLOAT64, t TIMESTAMP[us], b BLOB, ok BOOLEAN";
constexpr const char* kSpec =
    "identity(n), bucket(16, id), identity(id), day(ts), identity(d), identity(price), "
    "truncate(3, name), identity(u), identity(ts), identity(f), identity(t), identity(b), "
    "identity(ok)";

ManifestOptions Options(int version = 2, const char* spec = kSpec) {
  ManifestOptions o;
  o.format_version = version;
  o.source_schema = *Schema::Parse(kColumns);
  o.spec = *PartitionSpec::Parse(spec, o.source_schema, 1);
  o.schema_json = R"({"type":"struct","schema-id":4,"fields":[]})";
  o.schema_id = 4;
  o.stats_field_ids = {1, 2, 8};
  o.snapshot_id = 77;
  o.sequence_number = 9;
  o.avro.codec = avro::Codec::kDeflate;
  return o;
}

PartitionValues SampleTuple() {
  return {"-1",
          "5",
          "1234567890123",
          "19723",
          "2024-01-01",
          "-1.50",
          "abc",
          "0f8fad5b-d9cb-469f-a165-70867728950e",
          "2024-01-01T10:00:00Z",
          "1.5",
          "2024-01-01T10:00:00",
          "AQID",
          "true"};
}

ManifestEntry Sample(const std::string& path, PartitionValues partition = SampleTuple()) {
  ManifestEntry e;
  e.status = EntryStatus::kAdded;
  e.snapshot_id = 77;
  e.sequence_number = 9;
  e.file_sequence_number = 9;
  e.file_path = path;
  e.partition = std::move(partition);
  e.record_count = 100;
  e.file_size_in_bytes = 4096;
  e.stats = {{8, 100, 3, 2, std::string("\x00\x00\x00\x00\x00\x00\xf0\x3f", 8), std::nullopt},
             {1, 100, 0, std::nullopt, std::string(8, '\x01'), std::string(8, '\x02')},
             {3, 100, 0, std::nullopt, std::nullopt, std::nullopt}};  // 3 is not listed
  e.sort_order_id = 1;
  e.first_row_id = 1000;
  return e;
}

struct Written {
  std::string bytes;
  ManifestFile file;
};

Written Write(ManifestOptions options, const std::vector<ManifestEntry>& entries) {
  Written w;
  auto writer = ManifestWriter::Open(std::make_unique<StringSink>(&w.bytes), std::move(options));
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return w;
  for (const ManifestEntry& e : entries) {
    Status st = (*writer)->Add(e);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  auto file = (*writer)->Finish();
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (file.ok()) w.file = *file;
  return w;
}

std::unique_ptr<avro::ContainerReader> Read(const std::string& bytes) {
  auto r = avro::ContainerReader::Open(bytes);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) std::abort();
  return std::move(*r);
}

// Field name -> field-id of a record node.
std::vector<std::pair<std::string, int64_t>> Ids(const avro::Node& record) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const avro::Field& f : record.fields) {
    out.emplace_back(f.name, avro::IntAttribute(f.attributes, "field-id").value_or(-1));
  }
  return out;
}

const avro::Field& FieldOf(const avro::Node& record, const std::string& name) {
  const int i = record.FieldIndex(name);
  EXPECT_GE(i, 0) << name;
  if (i < 0) std::abort();
  return record.fields[static_cast<size_t>(i)];
}

// The non-null branch of an optional field (["null", T]).
const avro::Node& OptionalType(const avro::Field& f) {
  EXPECT_EQ(f.type->type, avro::Type::kUnion) << f.name;
  EXPECT_EQ(f.type->branches.size(), 2u) << f.name;
  EXPECT_EQ(f.type->branches[0]->type, avro::Type::kNull) << f.name;
  EXPECT_EQ(f.default_json.value_or(""), "null") << f.name;
  return *f.type->branches[1];
}

std::string Attr(const avro::Attributes& a, const char* name) {
  return std::string(avro::FindAttribute(a, name).value_or(""));
}

// The data_file fields of an entry read back, and its partition tuple.
const std::vector<avro::Value>& FileFields(const avro::Value& entry) {
  return entry.as<avro::Record>().fields[4].as<avro::Record>().fields;
}
const std::vector<avro::Value>& Tuple(const avro::Value& entry) {
  return FileFields(entry)[3].as<avro::Record>().fields;
}

using IdList = std::vector<std::pair<std::string, int64_t>>;

IdList DataFileIds(int version) {
  IdList ids = {{"content", 134},          {"file_path", 100},     {"file_format", 101},
                {"partition", 102},        {"record_count", 103},  {"file_size_in_bytes", 104},
                {"column_sizes", 108},     {"value_counts", 109},  {"null_value_counts", 110},
                {"nan_value_counts", 137}, {"lower_bounds", 125},  {"upper_bounds", 128},
                {"key_metadata", 131},     {"split_offsets", 132}, {"equality_ids", 135},
                {"sort_order_id", 140}};
  if (version >= 3) ids.push_back({"first_row_id", 142});
  ids.push_back({"referenced_data_file", 143});
  if (version >= 3) {
    ids.push_back({"content_offset", 144});
    ids.push_back({"content_size_in_bytes", 145});
  }
  return ids;
}

// The spec's tables, field by field: ids, names, order, which are optional.
void CheckEntrySchema(const avro::Node& root, int version) {
  EXPECT_EQ(root.name, "manifest_entry");
  EXPECT_EQ(Ids(root), (IdList{{"status", 0},
                               {"snapshot_id", 1},
                               {"sequence_number", 3},
                               {"file_sequence_number", 4},
                               {"data_file", 2}}));
  EXPECT_EQ(FieldOf(root, "status").type->type, avro::Type::kInt);
  for (const char* f : {"snapshot_id", "sequence_number", "file_sequence_number"}) {
    EXPECT_EQ(OptionalType(FieldOf(root, f)).type, avro::Type::kLong) << f;
  }
  const avro::Node& file = *FieldOf(root, "data_file").type;
  EXPECT_EQ(file.name, "r2");
  EXPECT_EQ(Ids(file), DataFileIds(version));
  const std::map<std::string, avro::Type> required = {
      {"content", avro::Type::kInt},        {"file_path", avro::Type::kString},
      {"file_format", avro::Type::kString}, {"partition", avro::Type::kRecord},
      {"record_count", avro::Type::kLong},  {"file_size_in_bytes", avro::Type::kLong}};
  for (const avro::Field& f : file.fields) {
    auto it = required.find(f.name);
    if (it != required.end()) {
      EXPECT_EQ(f.type->type, it->second) << f.name;
    } else {
      OptionalType(f);
    }
  }
  // Maps with int keys: arrays of key/value records marked logicalType map.
  struct MapIds {
    const char* field;
    int64_t key, value;
    avro::Type value_type;
  };
  for (const MapIds& m : {MapIds{"column_sizes", 117, 118, avro::Type::kLong},
                          MapIds{"value_counts", 119, 120, avro::Type::kLong},
                          MapIds{"null_value_counts", 121, 122, avro::Type::kLong},
                          MapIds{"nan_value_counts", 138, 139, avro::Type::kLong},
                          MapIds{"lower_bounds", 126, 127, avro::Type::kBytes},
                          MapIds{"upper_bounds", 129, 130, avro::Type::kBytes}}) {
    const avro::Node& array = OptionalType(FieldOf(file, m.field));
    EXPECT_EQ(array.type, avro::Type::kArray) << m.field;
    EXPECT_EQ(array.logical_type, "map") << m.field;
    const avro::Node& kv = *array.items;
    EXPECT_EQ(kv.name, "k" + std::to_string(m.key) + "_v" + std::to_string(m.value));
    EXPECT_EQ(Ids(kv), (IdList{{"key", m.key}, {"value", m.value}})) << m.field;
    EXPECT_EQ(kv.fields[0].type->type, avro::Type::kInt) << m.field;
    EXPECT_EQ(kv.fields[1].type->type, m.value_type) << m.field;
  }
  for (auto [field, element, type] : {std::tuple{"split_offsets", 133, avro::Type::kLong},
                                      std::tuple{"equality_ids", 136, avro::Type::kInt}}) {
    const avro::Node& array = OptionalType(FieldOf(file, field));
    EXPECT_EQ(array.type, avro::Type::kArray);
    EXPECT_EQ(avro::IntAttribute(array.attributes, "element-id"), element) << field;
    EXPECT_EQ(array.items->type, type) << field;
  }
}

TEST(IcebergManifest, EntrySchemaHasTheSpecsFieldIds) {
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    Written w = Write(Options(version), {Sample("s3://b/f1.parquet")});
    auto r = Read(w.bytes);
    CheckEntrySchema(r->schema().root(), version);
  }
}

TEST(IcebergManifest, PartitionRecordTypes) {
  ManifestOptions o = Options();
  Written w = Write(o, {});
  auto r = Read(w.bytes);
  const avro::Node& partition =
      *FieldOf(*FieldOf(r->schema().root(), "data_file").type, "partition").type;
  EXPECT_EQ(partition.name, "r102");
  ASSERT_EQ(partition.fields.size(), o.spec.fields.size());
  for (size_t i = 0; i < o.spec.fields.size(); ++i) {
    EXPECT_EQ(partition.fields[i].name, o.spec.fields[i].name);
    EXPECT_EQ(avro::IntAttribute(partition.fields[i].attributes, "field-id"),
              o.spec.fields[i].field_id);
  }
  auto type_of = [&](const char* name) -> const avro::Node& {
    return OptionalType(FieldOf(partition, name));
  };
  EXPECT_EQ(type_of("n").type, avro::Type::kInt);
  EXPECT_EQ(type_of("id_bucket").type, avro::Type::kInt);
  EXPECT_EQ(type_of("id").type, avro::Type::kLong);
  EXPECT_EQ(type_of("ts_day").type, avro::Type::kInt);
  EXPECT_EQ(type_of("d").type, avro::Type::kInt);
  EXPECT_EQ(type_of("d").logical_type, "date");
  const avro::Node& price = type_of("price");
  EXPECT_EQ(price.type, avro::Type::kFixed);
  EXPECT_EQ(price.size, 5);  // 10 digits: 2^39 > 10^10 > 2^31
  EXPECT_EQ(price.logical_type, "decimal");
  EXPECT_EQ(avro::IntAttribute(price.attributes, "precision"), 10);
  EXPECT_EQ(avro::IntAttribute(price.attributes, "scale"), 2);
  EXPECT_EQ(price.name, "decimal_10_2");
  EXPECT_EQ(type_of("name_trunc").type, avro::Type::kString);
  EXPECT_EQ(type_of("u").type, avro::Type::kFixed);
  EXPECT_EQ(type_of("u").size, 16);
  EXPECT_EQ(type_of("u").logical_type, "uuid");
  EXPECT_EQ(type_of("ts").type, avro::Type::kLong);
  EXPECT_EQ(type_of("ts").logical_type, "timestamp-micros");
  EXPECT_EQ(Attr(type_of("ts").attributes, "adjust-to-utc"), "true");
  EXPECT_EQ(type_of("t").logical_type, "timestamp-micros");
  EXPECT_EQ(Attr(type_of("t").attributes, "adjust-to-utc"), "false");
  EXPECT_EQ(type_of("f").type, avro::Type::kDouble);
  EXPECT_EQ(type_of("b").type, avro::Type::kBytes);
  EXPECT_EQ(type_of("ok").type, avro::Type::kBoolean);
}

TEST(IcebergManifest, RepeatedNamedTypesAndUnpartitioned) {
  ManifestOptions o = Options(2, "identity(price), identity(u)");
  o.source_schema = *Schema::Parse("price DECIMAL(10,2), u UUID, p2 DECIMAL(10,2), u2 UUID");
  o.spec = *PartitionSpec::Parse("price, u, p2, u2", o.source_schema);
  Written w = Write(o, {});
  auto r = Read(w.bytes);
  const avro::Node& partition =
      *FieldOf(*FieldOf(r->schema().root(), "data_file").type, "partition").type;
  // Defined once, then referred to by name: the same node.
  EXPECT_EQ(&OptionalType(partition.fields[0]), &OptionalType(partition.fields[2]));
  EXPECT_EQ(&OptionalType(partition.fields[1]), &OptionalType(partition.fields[3]));

  ManifestOptions none = Options(2, "");
  Written u = Write(none, {Sample("f.parquet", {})});
  auto ru = Read(u.bytes);
  EXPECT_TRUE(
      FieldOf(*FieldOf(ru->schema().root(), "data_file").type, "partition").type->fields.empty());
  ASSERT_OK_AND_ASSIGN(auto entries, ru->ReadAll());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(u.file.partitions.empty());
}

TEST(IcebergManifest, NamesThatAreNotAvroNames) {
  ManifestOptions o = Options();
  o.source_schema = *Schema::Parse("p STRUCT<user_id: INT64>, x INT32");
  o.spec = *PartitionSpec::Parse("bucket(8, p.user_id)", o.source_schema);
  o.spec.fields.push_back(
      PartitionField{o.source_schema.fields[1].field_id, 1001, "2024 sales", Transform{}});
  Written w = Write(o, {});
  auto r = Read(w.bytes);
  const avro::Node& partition =
      *FieldOf(*FieldOf(r->schema().root(), "data_file").type, "partition").type;
  ASSERT_EQ(partition.fields.size(), 2u);
  EXPECT_EQ(partition.fields[0].name, "p_x2Euser_id_bucket");
  EXPECT_EQ(Attr(partition.fields[0].attributes, "iceberg-field-name"), "\"p.user_id_bucket\"");
  EXPECT_EQ(partition.fields[1].name, "_2024_x20sales");
  EXPECT_EQ(Attr(partition.fields[1].attributes, "iceberg-field-name"), "\"2024 sales\"");
}

TEST(IcebergManifest, HeaderMetadata) {
  for (auto [version, content] :
       {std::pair{2, ManifestContent::kData}, std::pair{3, ManifestContent::kDeletes}}) {
    ManifestOptions o = Options(version);
    o.content = content;
    Written w = Write(o, {});
    auto r = Read(w.bytes);
    EXPECT_EQ(r->codec(), avro::Codec::kDeflate);
    EXPECT_EQ(r->FindMetadata("schema"), o.schema_json);
    EXPECT_EQ(r->FindMetadata("schema-id"), "4");
    EXPECT_EQ(r->FindMetadata("partition-spec-id"), "1");
    EXPECT_EQ(r->FindMetadata("format-version"), std::to_string(version));
    EXPECT_EQ(r->FindMetadata("content"), content == ManifestContent::kData ? "data" : "deletes");
    auto spec = nlohmann::json::parse(std::string(r->FindMetadata("partition-spec").value()));
    EXPECT_EQ(spec, nlohmann::json::parse(o.spec.ToJson())["fields"]);
    EXPECT_EQ(spec.size(), o.spec.fields.size());
  }
}

TEST(IcebergManifest, EntryValues) {
  Written w = Write(Options(), {Sample("s3://b/f1.parquet")});
  auto r = Read(w.bytes);
  ASSERT_OK_AND_ASSIGN(auto entries, r->ReadAll());
  ASSERT_EQ(entries.size(), 1u);
  const auto& e = entries[0].as<avro::Record>().fields;
  EXPECT_EQ(e[0], avro::Value(int32_t{1}));  // ADDED
  EXPECT_EQ(e[1], avro::MakeUnion(1, avro::Value(int64_t{77})));
  EXPECT_EQ(e[2], avro::MakeUnion(1, avro::Value(int64_t{9})));
  EXPECT_EQ(e[3], avro::MakeUnion(1, avro::Value(int64_t{9})));
  const auto& f = e[4].as<avro::Record>().fields;
  EXPECT_EQ(f[0], avro::Value(int32_t{0}));
  EXPECT_EQ(f[1], avro::Value("s3://b/f1.parquet"));
  EXPECT_EQ(f[2], avro::Value("PARQUET"));
  EXPECT_EQ(f[4], avro::Value(int64_t{100}));
  EXPECT_EQ(f[5], avro::Value(int64_t{4096}));
  EXPECT_EQ(f[6], avro::MakeUnion(0, avro::Value()));  // column_sizes
  for (size_t i : {12u, 13u, 14u, 16u}) EXPECT_EQ(f[i], avro::MakeUnion(0, avro::Value())) << i;
  EXPECT_EQ(f[15], avro::MakeUnion(1, avro::Value(int32_t{1})));  // sort_order_id
  EXPECT_EQ(f.size(), 17u);
}

// The int-keyed map at data_file field `i` of entry `entry` as key -> value.
template <typename T>
std::map<int32_t, T> MapAt(const avro::Value& entry, size_t i) {
  std::map<int32_t, T> out;
  const avro::Value& u = FileFields(entry)[i];
  if (u.as<avro::Union>().branch == 0) return out;
  for (const avro::Value& kv : u.as<avro::Union>().value->as<avro::Array>().items) {
    const auto& r = kv.as<avro::Record>().fields;
    if constexpr (std::is_same_v<T, std::string>) {
      out[r[0].as<int32_t>()] = r[1].as<avro::Bytes>().data;
    } else {
      out[r[0].as<int32_t>()] = r[1].as<T>();
    }
  }
  return out;
}

TEST(IcebergManifest, StatisticsOfListedFieldsOnly) {
  ManifestEntry e = Sample("f.parquet");
  Written w = Write(Options(), {e});
  auto r = Read(w.bytes);
  ASSERT_OK_AND_ASSIGN(auto entries, r->ReadAll());
  const avro::Value& v = entries[0];
  using L = std::map<int32_t, int64_t>;
  using B = std::map<int32_t, std::string>;
  EXPECT_EQ(MapAt<int64_t>(v, 7), (L{{1, 100}, {8, 100}}));  // 3 is not listed, 2 has none
  EXPECT_EQ(MapAt<int64_t>(v, 8), (L{{1, 0}, {8, 3}}));
  EXPECT_EQ(MapAt<int64_t>(v, 9), (L{{8, 2}}));  // NaN counts where kept
  EXPECT_EQ(MapAt<std::string>(v, 10), (B{{1, std::string(8, '\x01')}, {8, *e.stats[0].lower}}));
  EXPECT_EQ(MapAt<std::string>(v, 11), (B{{1, std::string(8, '\x02')}}));
  // In field id order, whatever the entry's order.
  const auto& counts = FileFields(v)[7];
  const auto& items = counts.as<avro::Union>().value->as<avro::Array>().items;
  EXPECT_EQ(items[0].as<avro::Record>().fields[0], avro::Value(int32_t{1}));

  // No listed field: the maps are null.
  ManifestOptions o = Options();
  o.stats_field_ids = {};
  Written none = Write(o, {e});
  ASSERT_OK_AND_ASSIGN(auto again, Read(none.bytes)->ReadAll());
  for (size_t i = 7; i <= 11; ++i) {
    EXPECT_EQ(FileFields(again[0])[i], avro::MakeUnion(0, avro::Value())) << i;
  }
}

TEST(IcebergManifest, PartitionTupleValues) {
  Written w = Write(Options(), {Sample("f.parquet")});
  ASSERT_OK_AND_ASSIGN(auto entries, Read(w.bytes)->ReadAll());
  const auto& p = Tuple(entries[0]);
  auto some = [](avro::Value v) { return avro::MakeUnion(1, std::move(v)); };
  ASSERT_EQ(p.size(), 13u);
  EXPECT_EQ(p[0], some(avro::Value(int32_t{-1})));
  EXPECT_EQ(p[1], some(avro::Value(int32_t{5})));
  EXPECT_EQ(p[2], some(avro::Value(int64_t{1234567890123})));
  EXPECT_EQ(p[3], some(avro::Value(int32_t{19723})));
  EXPECT_EQ(p[4], some(avro::Value(static_cast<int32_t>(DaysFromCivil(2024, 1, 1)))));
  EXPECT_EQ(p[5], some(avro::Value(avro::Fixed{std::string("\xff\xff\xff\xff\x6a", 5)})));
  EXPECT_EQ(p[6], some(avro::Value("abc")));
  EXPECT_EQ(Hex(p[7].as<avro::Union>().value->as<avro::Fixed>().data),
            "0f8fad5bd9cb469fa16570867728950e");
  EXPECT_EQ(p[8], some(avro::Value(int64_t{1704103200000000})));
  EXPECT_EQ(p[9], some(avro::Value(1.5)));
  EXPECT_EQ(p[10], some(avro::Value(int64_t{1704103200000000})));
  EXPECT_EQ(p[11], some(avro::Value(avro::Bytes{std::string("\x01\x02\x03", 3)})));
  EXPECT_EQ(p[12], some(avro::Value(true)));

  PartitionValues nulls(13);
  Written n = Write(Options(), {Sample("g.parquet", nulls)});
  ASSERT_OK_AND_ASSIGN(auto again, Read(n.bytes)->ReadAll());
  for (const avro::Value& v : Tuple(again[0])) {
    EXPECT_EQ(v, avro::MakeUnion(0, avro::Value()));
  }
}

TEST(IcebergManifest, PartitionAvroValueOfEachType) {
  auto fixed = [](const DataType& t, const char* text) {
    auto v = PartitionAvroValue(t, text);
    EXPECT_TRUE(v.ok()) << t.ToString() << " " << text << ": " << v.status().ToString();
    return v.ok() ? Hex(v->as<avro::Fixed>().data) : "";
  };
  // Iceberg's decimal sizes: the smallest n with 2^(8n-1) > 10^p.
  const std::map<int, size_t> sizes = {{1, 1}, {2, 1},  {3, 2},  {4, 2},  {5, 3},
                                       {9, 4}, {10, 5}, {18, 8}, {19, 9}, {38, 16}};
  for (auto [p, n] : sizes) {
    EXPECT_EQ(fixed(DataType::Decimal(p, 0), "1").size(), 2 * n) << p;
  }
  // Big-endian two's complement, sign-extended.
  EXPECT_EQ(fixed(DataType::Decimal(38, 0), "-1"), std::string(32, 'f'));
  EXPECT_EQ(fixed(DataType::Decimal(9, 2), "-1.00"), "ffffff9c");
  EXPECT_EQ(fixed(DataType::Decimal(4, 0), "9999"), "270f");
  EXPECT_EQ(fixed(DataType::Decimal(38, 0), std::string(38, '9').c_str()),
            "4b3b4ca85a86c47a098a223fffffffff");
  EXPECT_EQ(*PartitionAvroValue(DataType::Int8(), "-7"), avro::Value(int32_t{-7}));
  EXPECT_EQ(*PartitionAvroValue(DataType::UInt16(), "65535"), avro::Value(int32_t{65535}));
  EXPECT_EQ(*PartitionAvroValue(DataType::Float32(), "0.5"), avro::Value(0.5f));
  EXPECT_EQ(*PartitionAvroValue(DataType::Time(), "01:00:00"), avro::Value(int64_t{3600000000}));
  EXPECT_EQ(*PartitionAvroValue(DataType::Json(), "{\"a\":1}"), avro::Value("{\"a\":1}"));
  EXPECT_EQ(*PartitionAvroValue(DataType::TimestampTz(TimeUnit::kNano), "1970-01-01T00:00:01Z"),
            avro::Value(int64_t{1000000000}));

  // No Iceberg form, or not a value of the type.
  for (const DataType& t :
       {DataType::UInt32(), DataType::UInt64(), DataType::Ipv4(), DataType::Time(TimeUnit::kNano),
        DataType::Timestamp(TimeUnit::kMilli), DataType::TimestampTz(TimeUnit::kSecond),
        DataType::Array(DataType::Int32()), DataType::Variant()}) {
    EXPECT_EQ(PartitionAvroValue(t, "1").status().kind(), ErrorKind::kInvalidArgument)
        << t.ToString();
  }
  EXPECT_EQ(PartitionAvroValue(DataType::Int32(), "abc").status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(PartitionAvroValue(DataType::Decimal(4, 0), "10000").status().kind(),
            ErrorKind::kInvalidArgument);
}

TEST(IcebergManifest, SummaryCountsAndSequenceNumbers) {
  ManifestEntry added = Sample("a.parquet");
  added.sequence_number = 9;
  ManifestEntry existing = Sample("e.parquet");
  existing.status = EntryStatus::kExisting;
  existing.sequence_number = 3;
  existing.record_count = 7;
  existing.first_row_id = 10;
  ManifestEntry deleted = Sample("d.parquet");
  deleted.status = EntryStatus::kDeleted;
  deleted.sequence_number = 1;  // not live: not the minimum
  deleted.record_count = 5;
  Written w = Write(Options(3), {added, existing, deleted, added});
  const ManifestFile& m = w.file;
  EXPECT_EQ(m.manifest_path, "");
  EXPECT_EQ(m.manifest_length, static_cast<int64_t>(w.bytes.size()));
  EXPECT_EQ(m.partition_spec_id, 1);
  EXPECT_EQ(m.content, ManifestContent::kData);
  EXPECT_EQ(m.sequence_number, 9);
  EXPECT_EQ(m.min_sequence_number, 3);
  EXPECT_EQ(m.added_snapshot_id, 77);
  EXPECT_EQ(m.added_files_count, 2);
  EXPECT_EQ(m.existing_files_count, 1);
  EXPECT_EQ(m.deleted_files_count, 1);
  EXPECT_EQ(m.added_rows_count, 200);
  EXPECT_EQ(m.existing_rows_count, 7);
  EXPECT_EQ(m.deleted_rows_count, 5);
  EXPECT_EQ(m.first_row_id, 1000);  // of the added files only
  EXPECT_EQ(m.partitions.size(), 13u);

  // Nothing live: the manifest's own sequence number; v2 has no first row id.
  Written d = Write(Options(2), {deleted});
  EXPECT_EQ(d.file.min_sequence_number, 9);
  EXPECT_EQ(d.file.first_row_id, std::nullopt);
  Written empty = Write(Options(3), {});
  EXPECT_EQ(empty.file.min_sequence_number, 9);
  EXPECT_EQ(empty.file.first_row_id, std::nullopt);
  EXPECT_EQ(empty.file.manifest_length, static_cast<int64_t>(empty.bytes.size()));
}

TEST(IcebergManifest, FieldSummaryBoundsCompareValuesNotBytes) {
  ManifestOptions o = Options(2, "identity(n), identity(f), identity(name), identity(price)");
  std::vector<ManifestEntry> entries;
  for (auto [n, f, name, price] :
       {std::tuple{"10", "1.5", "b", "-1.50"}, std::tuple{"-1", "NaN", "ab", "10.00"},
        std::tuple{"3", "-0", "ba", "-2.00"}}) {
    entries.push_back(Sample("x", {n, f, name, price}));
  }
  entries.push_back(Sample("nulls", {std::nullopt, std::nullopt, "c", "0.00"}));
  Written w = Write(o, entries);
  const auto& p = w.file.partitions;
  ASSERT_EQ(p.size(), 4u);
  // ints: -1 is the smallest, though its bytes (ff ff ff ff) are the largest.
  EXPECT_TRUE(p[0].contains_null);
  EXPECT_EQ(p[0].contains_nan, std::nullopt);
  EXPECT_EQ(Hex(*p[0].lower), "ffffffff");
  EXPECT_EQ(Hex(*p[0].upper), "0a000000");
  // doubles: NaN is noted, never a bound; -0 below +1.5.
  EXPECT_TRUE(p[1].contains_null);
  EXPECT_EQ(p[1].contains_nan, true);
  EXPECT_EQ(Hex(*p[1].lower), "0000000000000080");
  EXPECT_EQ(Hex(*p[1].upper), "000000000000f83f");
  // strings by their bytes; decimals by value, as their minimal unscaled bytes.
  EXPECT_FALSE(p[2].contains_null);
  EXPECT_EQ(p[2].contains_nan, std::nullopt);
  EXPECT_EQ(*p[2].lower, "ab");
  EXPECT_EQ(*p[2].upper, "c");
  EXPECT_EQ(Hex(*p[3].lower), "ff38");  // -200
  EXPECT_EQ(Hex(*p[3].upper), "03e8");  // 1000

  // A float field of nulls only: no NaN, no bounds.
  Written nulls = Write(o, {Sample("n", {std::nullopt, std::nullopt, std::nullopt, std::nullopt})});
  EXPECT_EQ(nulls.file.partitions[1].contains_nan, false);
  EXPECT_EQ(nulls.file.partitions[1].lower, std::nullopt);
  EXPECT_TRUE(nulls.file.partitions[2].contains_null);
}

TEST(IcebergManifest, Version3Fields) {
  ManifestEntry e = Sample("f.parquet");
  Written v3 = Write(Options(3), {e});
  ASSERT_OK_AND_ASSIGN(auto entries, Read(v3.bytes)->ReadAll());
  const auto& f = FileFields(entries[0]);
  ASSERT_EQ(f.size(), 20u);
  EXPECT_EQ(f[16], avro::MakeUnion(1, avro::Value(int64_t{1000})));  // first_row_id
  for (size_t i : {17u, 18u, 19u}) EXPECT_EQ(f[i], avro::MakeUnion(0, avro::Value())) << i;

  // Delete files: no first row id, no sort order.
  ManifestOptions o = Options(3);
  o.content = ManifestContent::kDeletes;
  e.content = kContentPositionDeletes;
  Written d = Write(o, {e});
  ASSERT_OK_AND_ASSIGN(auto deletes, Read(d.bytes)->ReadAll());
  const auto& df = FileFields(deletes[0]);
  EXPECT_EQ(df[0], avro::Value(int32_t{1}));
  EXPECT_EQ(df[15], avro::MakeUnion(0, avro::Value()));
  EXPECT_EQ(df[16], avro::MakeUnion(0, avro::Value()));
  EXPECT_EQ(d.file.content, ManifestContent::kDeletes);
  EXPECT_EQ(d.file.first_row_id, std::nullopt);

  // A v3-only type: nanosecond timestamps (refused in v2).
  ManifestOptions ns = Options(3, "identity(ts)");
  ns.source_schema = *Schema::Parse("ts TIMESTAMPTZ[ns]");
  ns.spec = *PartitionSpec::Parse("identity(ts)", ns.source_schema);
  ManifestEntry ne = Sample("ns.parquet", {"2024-01-01T10:00:00.000000001Z"});
  Written wn = Write(ns, {ne});
  auto rn = Read(wn.bytes);
  const avro::Node& part =
      *FieldOf(*FieldOf(rn->schema().root(), "data_file").type, "partition").type;
  EXPECT_EQ(OptionalType(part.fields[0]).logical_type, "timestamp-nanos");
  ns.format_version = 2;
  std::string sink;
  EXPECT_EQ(ManifestWriter::Open(std::make_unique<StringSink>(&sink), ns).status().kind(),
            ErrorKind::kInvalidArgument);
}

TEST(IcebergManifest, Errors) {
  std::string sink;
  auto open = [&](ManifestOptions o) {
    return ManifestWriter::Open(std::make_unique<StringSink>(&sink), std::move(o));
  };
  for (int bad : {1, 4}) {
    ManifestOptions o = Options();
    o.format_version = bad;
    EXPECT_EQ(open(o).status().kind(), ErrorKind::kInvalidArgument) << bad;
  }
  ManifestOptions missing = Options();
  missing.spec.fields[0].source_id = 99;
  EXPECT_EQ(open(missing).status().kind(), ErrorKind::kInvalidArgument);
  ManifestOptions hour_of_date = Options();
  hour_of_date.spec.fields[0].transform = Transform{TransformKind::kHour, 0};
  hour_of_date.spec.fields[0].source_id = 4;  // d DATE
  EXPECT_EQ(open(hour_of_date).status().kind(), ErrorKind::kInvalidArgument);
  ManifestOptions hidden = Options(2, "identity(n)");
  hidden.source_schema = *Schema::Parse("n UINT32");
  hidden.spec = *PartitionSpec::Parse("n", hidden.source_schema);
  EXPECT_EQ(open(hidden).status().kind(), ErrorKind::kInvalidArgument);
  // A void field over a type without a form is always null: int.
  ManifestOptions void_field = hidden;
  void_field.spec.fields[0].transform = Transform{TransformKind::kVoid, 0};
  EXPECT_TRUE(open(void_field).ok());

  sink.clear();
  ASSERT_OK_AND_ASSIGN(auto w, open(Options()));
  ManifestEntry short_tuple = Sample("short");
  short_tuple.partition.pop_back();
  EXPECT_EQ(w->Add(short_tuple).kind(), ErrorKind::kInvalidArgument);
  ManifestEntry bad_value = Sample("bad");
  bad_value.partition[3] = "2024-01-01";  // ts_day is an int
  EXPECT_EQ(w->Add(bad_value).kind(), ErrorKind::kInvalidArgument);
  ManifestEntry deletes = Sample("deletes");
  deletes.content = kContentPositionDeletes;
  EXPECT_EQ(w->Add(deletes).kind(), ErrorKind::kInvalidArgument);
  ManifestEntry bad_status = Sample("status");
  bad_status.status = static_cast<EntryStatus>(3);
  EXPECT_EQ(w->Add(bad_status).kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK(w->Add(Sample("good")));
  ASSERT_OK_AND_ASSIGN(ManifestFile m, w->Finish());
  EXPECT_EQ(m.added_files_count, 1);  // the refused entries left nothing
  EXPECT_EQ(m.partitions[0].lower, std::optional<std::string>(std::string("\xff\xff\xff\xff")));
  ASSERT_OK_AND_ASSIGN(auto entries, Read(sink)->ReadAll());
  EXPECT_EQ(entries.size(), 1u);
  EXPECT_EQ(w->Add(Sample("late")).kind(), ErrorKind::kFailedPrecondition);
  EXPECT_EQ(w->Finish().status().kind(), ErrorKind::kFailedPrecondition);

  ManifestOptions void_spec = Options(2, "void(n)");
  sink.clear();
  ASSERT_OK_AND_ASSIGN(auto wv, open(void_spec));
  EXPECT_EQ(wv->Add(Sample("v", {"1"})).kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK(wv->Add(Sample("v", {std::nullopt})));
}

// ---- Manifest lists ----

ManifestFile SampleManifest(const std::string& path) {
  ManifestFile m;
  m.manifest_path = path;
  m.manifest_length = 5000;
  m.partition_spec_id = 1;
  m.sequence_number = 9;
  m.min_sequence_number = 3;
  m.added_snapshot_id = 77;
  m.added_files_count = 2;
  m.existing_files_count = 1;
  m.deleted_files_count = 4;
  m.added_rows_count = 200;
  m.existing_rows_count = 7;
  m.deleted_rows_count = 5;
  m.partitions = {
      {true, std::nullopt, std::string("\xff\xff\xff\xff"), std::string("\x0a\0\0\0", 4)},
      {false, false, std::nullopt, std::nullopt}};
  return m;
}

IdList ListIds(int version) {
  IdList ids = {{"manifest_path", 500},        {"manifest_length", 501},
                {"partition_spec_id", 502},    {"content", 517},
                {"sequence_number", 515},      {"min_sequence_number", 516},
                {"added_snapshot_id", 503},    {"added_files_count", 504},
                {"existing_files_count", 505}, {"deleted_files_count", 506},
                {"added_rows_count", 512},     {"existing_rows_count", 513},
                {"deleted_rows_count", 514},   {"partitions", 507},
                {"key_metadata", 519}};
  if (version >= 3) ids.push_back({"first_row_id", 520});
  return ids;
}

TEST(IcebergManifestList, SchemaAndRoundTripV2) {
  ManifestListOptions o;
  o.snapshot_id = 78;
  o.sequence_number = 10;
  std::string bytes;
  ASSERT_OK(
      WriteManifestList(std::make_unique<StringSink>(&bytes), o,
                        {SampleManifest("s3://b/m1.avro"), SampleManifest("s3://b/m2.avro")}));
  auto r = Read(bytes);
  const avro::Node& root = r->schema().root();
  EXPECT_EQ(root.name, "manifest_file");
  EXPECT_EQ(Ids(root), ListIds(2));
  // v2: every count is required.
  for (size_t i = 0; i < 13; ++i) {
    EXPECT_NE(root.fields[i].type->type, avro::Type::kUnion) << root.fields[i].name;
  }
  const avro::Node& partitions = OptionalType(FieldOf(root, "partitions"));
  EXPECT_EQ(partitions.type, avro::Type::kArray);
  EXPECT_EQ(avro::IntAttribute(partitions.attributes, "element-id"), 508);
  EXPECT_EQ(partitions.items->name, "r508");
  EXPECT_EQ(Ids(*partitions.items), (IdList{{"contains_null", 509},
                                            {"contains_nan", 518},
                                            {"lower_bound", 510},
                                            {"upper_bound", 511}}));
  EXPECT_EQ(partitions.items->fields[0].type->type, avro::Type::kBoolean);
  EXPECT_EQ(OptionalType(partitions.items->fields[1]).type, avro::Type::kBoolean);
  EXPECT_EQ(OptionalType(partitions.items->fields[2]).type, avro::Type::kBytes);
  EXPECT_EQ(OptionalType(FieldOf(root, "key_metadata")).type, avro::Type::kBytes);

  EXPECT_EQ(r->FindMetadata("snapshot-id"), "78");
  EXPECT_EQ(r->FindMetadata("parent-snapshot-id"), "null");
  EXPECT_EQ(r->FindMetadata("sequence-number"), "10");
  EXPECT_EQ(r->FindMetadata("format-version"), "2");
  EXPECT_EQ(r->FindMetadata("first-row-id"), std::nullopt);

  ASSERT_OK_AND_ASSIGN(auto values, r->ReadAll());
  ASSERT_EQ(values.size(), 2u);
  const auto& m = values[1].as<avro::Record>().fields;
  EXPECT_EQ(m[0], avro::Value("s3://b/m2.avro"));
  std::vector<avro::Value> expect = {
      avro::Value(int64_t{5000}), avro::Value(int32_t{1}), avro::Value(int32_t{0}),
      avro::Value(int64_t{9}),    avro::Value(int64_t{3}), avro::Value(int64_t{77}),
      avro::Value(int32_t{2}),    avro::Value(int32_t{1}), avro::Value(int32_t{4}),
      avro::Value(int64_t{200}),  avro::Value(int64_t{7}), avro::Value(int64_t{5})};
  for (size_t i = 0; i < expect.size(); ++i) EXPECT_EQ(m[i + 1], expect[i]) << i + 1;
  const auto& summaries = m[13].as<avro::Union>().value->as<avro::Array>().items;
  ASSERT_EQ(summaries.size(), 2u);
  const auto& s0 = summaries[0].as<avro::Record>().fields;
  EXPECT_EQ(s0[0], avro::Value(true));
  EXPECT_EQ(s0[1], avro::MakeUnion(0, avro::Value()));
  EXPECT_EQ(s0[2], avro::MakeUnion(1, avro::Value(avro::Bytes{"\xff\xff\xff\xff"})));
  EXPECT_EQ(s0[3], avro::MakeUnion(1, avro::Value(avro::Bytes{std::string("\x0a\0\0\0", 4)})));
  const auto& s1 = summaries[1].as<avro::Record>().fields;
  EXPECT_EQ(s1[1], avro::MakeUnion(1, avro::Value(false)));
  EXPECT_EQ(s1[2], avro::MakeUnion(0, avro::Value()));
  EXPECT_EQ(m[14], avro::MakeUnion(0, avro::Value()));
  EXPECT_EQ(m.size(), 15u);
}

TEST(IcebergManifestList, Version3AssignsFirstRowIds) {
  ManifestListOptions o;
  o.format_version = 3;
  o.snapshot_id = 78;
  o.parent_snapshot_id = 77;
  o.sequence_number = 10;
  o.first_row_id = 500;
  ManifestFile kept = SampleManifest("kept.avro");
  kept.first_row_id = 100;
  ManifestFile a = SampleManifest("a.avro");  // 200 added + 7 existing rows
  ManifestFile deletes = SampleManifest("deletes.avro");
  deletes.content = ManifestContent::kDeletes;
  deletes.first_row_id = 3;  // never for delete manifests
  ManifestFile b = SampleManifest("b.avro");
  std::string bytes;
  ASSERT_OK(WriteManifestList(std::make_unique<StringSink>(&bytes), o, {kept, a, deletes, b}));
  auto r = Read(bytes);
  EXPECT_EQ(Ids(r->schema().root()), ListIds(3));
  EXPECT_EQ(OptionalType(FieldOf(r->schema().root(), "first_row_id")).type, avro::Type::kLong);
  EXPECT_EQ(r->FindMetadata("parent-snapshot-id"), "77");
  EXPECT_EQ(r->FindMetadata("format-version"), "3");
  EXPECT_EQ(r->FindMetadata("first-row-id"), "500");
  ASSERT_OK_AND_ASSIGN(auto values, r->ReadAll());
  std::vector<avro::Value> ids;
  for (const avro::Value& v : values) ids.push_back(v.as<avro::Record>().fields[15]);
  auto some = [](int64_t v) { return avro::MakeUnion(1, avro::Value(v)); };
  EXPECT_EQ(ids, (std::vector<avro::Value>{some(100), some(500), avro::MakeUnion(0, avro::Value()),
                                           some(707)}));
}

TEST(IcebergManifestList, Errors) {
  std::string bytes;
  auto write = [&](const ManifestListOptions& o, std::vector<ManifestFile> m) {
    return WriteManifestList(std::make_unique<StringSink>(&bytes), o, m);
  };
  ManifestListOptions o;
  EXPECT_EQ(write(o, {SampleManifest("")}).kind(), ErrorKind::kInvalidArgument);
  EXPECT_TRUE(bytes.empty());  // refused before the header
  for (int bad : {1, 4}) {
    o.format_version = bad;
    EXPECT_EQ(write(o, {}).kind(), ErrorKind::kInvalidArgument) << bad;
  }
  o.format_version = 3;  // without the snapshot's first row id
  EXPECT_EQ(write(o, {}).kind(), ErrorKind::kInvalidArgument);
  o.first_row_id = 0;
  EXPECT_TRUE(write(o, {}).ok());
}

// A manifest written by ManifestWriter, listed: what a reader opens, end to end.
TEST(IcebergManifestList, ListsWhatTheWriterSummarized) {
  Written w = Write(Options(), {Sample("a.parquet")});
  w.file.manifest_path = "s3://b/m.avro";
  ManifestListOptions o;
  o.snapshot_id = 77;
  o.sequence_number = 9;
  std::string bytes;
  ASSERT_OK(WriteManifestList(std::make_unique<StringSink>(&bytes), o, {w.file}));
  ASSERT_OK_AND_ASSIGN(auto values, Read(bytes)->ReadAll());
  ASSERT_EQ(values.size(), 1u);
  const auto& m = values[0].as<avro::Record>().fields;
  EXPECT_EQ(m[1], avro::Value(static_cast<int64_t>(w.bytes.size())));
  EXPECT_EQ(m[13].as<avro::Union>().value->as<avro::Array>().items.size(), 13u);
}

}  // namespace
}  // namespace tarn::iceberg

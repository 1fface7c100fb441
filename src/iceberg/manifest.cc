#include "iceberg/manifest.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "iceberg/schema.h"
#include "table/field_path.h"
#include "table/ordered_key.h"
#include "types/iceberg.h"
#include "types/value_text.h"

// The Avro schemas follow what Iceberg's Java writer produces (TypeToSchema, V2Metadata,
// V3Metadata): records "manifest_entry", "r2" (data_file), "r102" (partition), "k<key>_v<value>"
// (maps with int keys, which Avro cannot key by: arrays of key/value records marked
// "logicalType": "map"), "manifest_file", "r508" (field_summary); optional fields are unions
// with null first, defaulting to null. Readers find every field by its "field-id".

namespace tarn::iceberg {
namespace {

Status Invalid(const std::string& why) {
  return Status::InvalidArgument("Iceberg manifest: " + why);
}

Status CheckVersion(int v) {
  if (v < kMinFormatVersion || v > kMaxFormatVersion) {
    return Invalid("format version " + std::to_string(v) + " is not written (2 or 3)");
  }
  return Status::OK();
}

// ---- Avro schema JSON ----

Json Required(const std::string& name, int32_t id, Json type) {
  return {{"name", name}, {"type", std::move(type)}, {"field-id", id}};
}

Json Optional(const std::string& name, int32_t id, Json type) {
  return {{"name", name},
          {"type", Json::array({"null", std::move(type)})},
          {"default", nullptr},
          {"field-id", id}};
}

// Iceberg's map<int, V>.
Json IntMap(int32_t key_id, int32_t value_id, const char* value_type) {
  Json kv = {{"type", "record"},
             {"name", "k" + std::to_string(key_id) + "_v" + std::to_string(value_id)},
             {"fields", Json::array({Required("key", key_id, "int"),
                                     Required("value", value_id, value_type)})}};
  return {{"type", "array"}, {"logicalType", "map"}, {"items", std::move(kv)}};
}

Json List(const char* item, int32_t element_id) {
  return {{"type", "array"}, {"items", item}, {"element-id", element_id}};
}

// The fewest bytes whose two's complement holds every unscaled value of precision p: the
// smallest n with 2^(8n-1) > 10^p (Iceberg's TypeUtil.decimalRequiredBytes).
int DecimalBytes(int precision) {
  uint128 pow10 = 1;
  for (int i = 0; i < precision; ++i) pow10 *= 10;
  int n = 1;
  while ((uint128(1) << (8 * n - 1)) <= pow10) ++n;
  return n;
}

// Why partition values of `type` have no Avro form, or "" when they have one: the Iceberg
// primitives tarn's types map to do. UINT32, UINT64, IPV4, TIME[ns] and second or millisecond
// timestamps have none (schema.cc keeps them from Iceberg readers), nor have nested types and
// VARIANT.
std::string NoPartitionForm(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal:
    case TypeId::kVarchar:
    case TypeId::kJson:
    case TypeId::kBlob:
    case TypeId::kDate:
    case TypeId::kUuid:
      return "";
    case TypeId::kTime:
      if (type.unit() == TimeUnit::kMicro) return "";
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (type.unit() == TimeUnit::kMicro || type.unit() == TimeUnit::kNano) return "";
      break;
    default:
      break;
  }
  return "values of type " + type.ToString() + " have no Iceberg partition form";
}

// The Avro type of partition values of `type` (one NoPartitionForm accepts). A named type (fixed)
// is defined at its first use and named after that: *defined holds the names used so far.
Json PartitionAvroType(const DataType& type, std::set<std::string>* defined) {
  auto named = [&](const std::string& name, Json def) -> Json {
    if (!defined->insert(name).second) return name;
    def["name"] = name;
    return def;
  };
  switch (type.id()) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt64:
      return "long";
    case TypeId::kFloat32:
      return "float";
    case TypeId::kFloat64:
      return "double";
    case TypeId::kVarchar:
    case TypeId::kJson:
      return "string";
    case TypeId::kBlob:
      return "bytes";
    case TypeId::kDate:
      return {{"type", "int"}, {"logicalType", "date"}};
    case TypeId::kTime:
      return {{"type", "long"}, {"logicalType", "time-micros"}};
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      // "adjust-to-utc" tells timestamptz from timestamp, as Iceberg's writers mark it.
      return {
          {"type", "long"},
          {"logicalType", type.unit() == TimeUnit::kNano ? "timestamp-nanos" : "timestamp-micros"},
          {"adjust-to-utc", type.id() == TypeId::kTimestampTz}};
    case TypeId::kUuid:
      return named("uuid_fixed", {{"type", "fixed"}, {"size", 16}, {"logicalType", "uuid"}});
    case TypeId::kDecimal:
      return named(
          "decimal_" + std::to_string(type.precision()) + "_" + std::to_string(type.scale()),
          {{"type", "fixed"},
           {"size", DecimalBytes(type.precision())},
           {"logicalType", "decimal"},
           {"precision", type.precision()},
           {"scale", type.scale()}});
    default:
      return "int";
  }
}

// A partition field name as an Avro name ([A-Za-z_][A-Za-z0-9_]*), as Iceberg's
// AvroSchemaUtil.sanitize does it: a leading digit gets "_" before it, any other character
// becomes "_x" and its code in upper-case hex (a byte of UTF-8 at a time here, where Java takes
// UTF-16 units and keeps non-ASCII letters; the name is kept in "iceberg-field-name" either way).
std::string AvroName(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (letter || (digit && i > 0)) {
      out.push_back(static_cast<char>(c));
    } else if (digit) {
      out += "_" + std::string(1, static_cast<char>(c));
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += "_x";
      if (c >= 16) out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

// One partition field as the manifest stores it.
struct PartitionSlot {
  std::string name;
  DataType type;         // the transform's result type (void: the source's, or int)
  bool is_void = false;  // values always null
};

Json PartitionRecord(const std::vector<PartitionSlot>& slots, const PartitionSpec& spec) {
  std::set<std::string> defined;
  Json fields = Json::array();
  for (size_t i = 0; i < slots.size(); ++i) {
    const std::string& name = spec.fields[i].name;
    Json f = Optional(AvroName(name), spec.fields[i].field_id,
                      PartitionAvroType(slots[i].type, &defined));
    if (f["name"] != name) f["iceberg-field-name"] = name;
    fields.push_back(std::move(f));
  }
  return {{"type", "record"}, {"name", "r102"}, {"fields", std::move(fields)}};
}

// The manifest_entry schema of format version `v` (the spec's tables, in its field order).
std::string ManifestEntrySchema(Json partition, int v) {
  Json file = Json::array({
      Required("content", 134, "int"),
      Required("file_path", 100, "string"),
      Required("file_format", 101, "string"),
      Required("partition", 102, std::move(partition)),
      Required("record_count", 103, "long"),
      Required("file_size_in_bytes", 104, "long"),
      Optional("column_sizes", 108, IntMap(117, 118, "long")),
      Optional("value_counts", 109, IntMap(119, 120, "long")),
      Optional("null_value_counts", 110, IntMap(121, 122, "long")),
      Optional("nan_value_counts", 137, IntMap(138, 139, "long")),
      Optional("lower_bounds", 125, IntMap(126, 127, "bytes")),
      Optional("upper_bounds", 128, IntMap(129, 130, "bytes")),
      Optional("key_metadata", 131, "bytes"),
      Optional("split_offsets", 132, List("long", 133)),
      Optional("equality_ids", 135, List("int", 136)),
      Optional("sort_order_id", 140, "int"),
  });
  if (v >= 3) file.push_back(Optional("first_row_id", 142, "long"));
  // The v2 table lists referenced_data_file too (after sort_order_id), v3 before the offsets.
  file.push_back(Optional("referenced_data_file", 143, "string"));
  if (v >= 3) {
    file.push_back(Optional("content_offset", 144, "long"));
    file.push_back(Optional("content_size_in_bytes", 145, "long"));
  }
  Json data_file = {{"type", "record"}, {"name", "r2"}, {"fields", std::move(file)}};
  Json entry = {
      {"type", "record"},
      {"name", "manifest_entry"},
      {"fields", Json::array({Required("status", 0, "int"), Optional("snapshot_id", 1, "long"),
                              Optional("sequence_number", 3, "long"),
                              Optional("file_sequence_number", 4, "long"),
                              Required("data_file", 2, std::move(data_file))})}};
  return entry.dump();
}

// The manifest_file schema of format version `v`.
std::string ManifestListSchema(int v) {
  Json summary = {{"type", "record"},
                  {"name", "r508"},
                  {"fields", Json::array({Required("contains_null", 509, "boolean"),
                                          Optional("contains_nan", 518, "boolean"),
                                          Optional("lower_bound", 510, "bytes"),
                                          Optional("upper_bound", 511, "bytes")})}};
  Json partitions = {{"type", "array"}, {"items", std::move(summary)}, {"element-id", 508}};
  Json fields = Json::array({
      Required("manifest_path", 500, "string"),
      Required("manifest_length", 501, "long"),
      Required("partition_spec_id", 502, "int"),
      Required("content", 517, "int"),
      Required("sequence_number", 515, "long"),
      Required("min_sequence_number", 516, "long"),
      Required("added_snapshot_id", 503, "long"),
      Required("added_files_count", 504, "int"),
      Required("existing_files_count", 505, "int"),
      Required("deleted_files_count", 506, "int"),
      Required("added_rows_count", 512, "long"),
      Required("existing_rows_count", 513, "long"),
      Required("deleted_rows_count", 514, "long"),
      Optional("partitions", 507, std::move(partitions)),
      Optional("key_metadata", 519, "bytes"),
  });
  if (v >= 3) fields.push_back(Optional("first_row_id", 520, "long"));
  Json list = {{"type", "record"}, {"name", "manifest_file"}, {"fields", std::move(fields)}};
  return list.dump();
}

// ---- Values ----

avro::Value Null() { return avro::MakeUnion(0, avro::Value()); }
avro::Value Some(avro::Value v) { return avro::MakeUnion(1, std::move(v)); }
template <typename T>
avro::Value Maybe(const std::optional<T>& v) {
  return v ? Some(avro::Value(*v)) : Null();
}
avro::Value MaybeBytes(const std::optional<std::string>& v) {
  return v ? Some(avro::Value(avro::Bytes{*v})) : Null();
}

// The unscaled value as `n` big-endian bytes of two's complement (it fits: |v| < 10^p).
std::string BigEndian(int128 v, int n) {
  std::string out(static_cast<size_t>(n), '\0');
  auto u = static_cast<uint128>(v);
  for (int i = n - 1; i >= 0; --i, u >>= 8) out[static_cast<size_t>(i)] = static_cast<char>(u);
  return out;
}

// Row 0 of `col`, of a type NoPartitionForm accepts, as Avro stores it.
avro::Value AvroOf(const Column& col) {
  switch (col.type.id()) {
    case TypeId::kBoolean:
      return avro::Value(col.Value<uint8_t>(0) != 0);
    case TypeId::kInt8:
      return avro::Value(static_cast<int32_t>(col.Value<int8_t>(0)));
    case TypeId::kInt16:
      return avro::Value(static_cast<int32_t>(col.Value<int16_t>(0)));
    case TypeId::kUInt8:
      return avro::Value(static_cast<int32_t>(col.Value<uint8_t>(0)));
    case TypeId::kUInt16:
      return avro::Value(static_cast<int32_t>(col.Value<uint16_t>(0)));
    case TypeId::kInt32:
    case TypeId::kDate:
      return avro::Value(col.Value<int32_t>(0));
    case TypeId::kFloat32:
      return avro::Value(col.Value<float>(0));
    case TypeId::kFloat64:
      return avro::Value(col.Value<double>(0));
    case TypeId::kDecimal:
      return avro::Value(
          avro::Fixed{BigEndian(col.Value<int128>(0), DecimalBytes(col.type.precision()))});
    case TypeId::kVarchar:
    case TypeId::kJson:
      return avro::Value(std::string(col.StringAt(0)));
    case TypeId::kBlob:
      return avro::Value(avro::Bytes{std::string(col.StringAt(0))});
    case TypeId::kUuid:
      return avro::Value(
          avro::Fixed{std::string(reinterpret_cast<const char*>(col.data.data()), 16)});
    default:  // INT64, TIME, TIMESTAMP, TIMESTAMPTZ: an int64 of their unit
      return avro::Value(col.Value<int64_t>(0));
  }
}

// The canonical text `text` as a one-row column of `type` (value_text.h's parser, the one
// that reads back what the partition values were formatted with).
Result<Column> ParseValue(const DataType& type, const std::string& text) {
  if (std::string why = NoPartitionForm(type); !why.empty()) return Invalid(why);
  Column col(type);
  TARN_RETURN_NOT_OK(AppendParsedValue(text, &col));
  return col;
}

bool IsNan(const Column& col) {
  if (col.type.id() == TypeId::kFloat32) return std::isnan(col.Value<float>(0));
  if (col.type.id() == TypeId::kFloat64) return std::isnan(col.Value<double>(0));
  return false;
}

// A partition value parsed once: what the entry stores, what the field summary keeps.
struct PartitionValue {
  avro::Value avro;
  std::string bound;  // single-value encoding
  std::string key;    // OrderedKey: byte order is value order
  bool nan = false;
};

// A field summary being built, with the order keys of its bounds.
struct SummaryBuilder {
  FieldSummary summary;
  std::string lower_key, upper_key;

  void Add(const std::optional<PartitionValue>& v) {
    if (!v) {
      summary.contains_null = true;
    } else if (v->nan) {
      summary.contains_nan = true;
    } else {
      if (!summary.lower || v->key < lower_key) {
        summary.lower = v->bound;
        lower_key = v->key;
      }
      if (!summary.upper || v->key > upper_key) {
        summary.upper = v->bound;
        upper_key = v->key;
      }
    }
  }
};

Status CheckContent(int32_t content, ManifestContent manifest) {
  if (content < kContentData || content > 2) {
    return Invalid("data_file content " + std::to_string(content) + " is not 0, 1 or 2");
  }
  if ((content == kContentData) != (manifest == ManifestContent::kData)) {
    return Invalid(std::string(content == kContentData ? "a data file" : "a delete file") +
                   " cannot be listed in a " +
                   (manifest == ManifestContent::kData ? "data" : "delete") + " manifest");
  }
  return Status::OK();
}

// The statistics of `stats` whose field ids are in `ids`, by field id (first of a repeated id).
std::vector<const ColumnStats*> SelectStats(const std::vector<ColumnStats>& stats,
                                            const std::set<int32_t>& ids) {
  std::vector<const ColumnStats*> out;
  for (const ColumnStats& s : stats) {
    if (ids.count(s.field_id)) out.push_back(&s);
  }
  std::stable_sort(out.begin(), out.end(), [](const ColumnStats* a, const ColumnStats* b) {
    return a->field_id < b->field_id;
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const ColumnStats* a, const ColumnStats* b) {
                          return a->field_id == b->field_id;
                        }),
            out.end());
  return out;
}

// One of data_file's int-keyed maps over `stats`: `value` gives an entry's value or nullopt to
// leave it out; null when no entry has one.
template <typename F>
avro::Value StatsMap(const std::vector<const ColumnStats*>& stats, F value) {
  avro::Array items;
  for (const ColumnStats* s : stats) {
    std::optional<avro::Value> v = value(*s);
    if (!v) continue;
    items.items.push_back(avro::Value(avro::Record{{avro::Value(s->field_id), std::move(*v)}}));
  }
  if (items.items.empty()) return Null();
  return Some(avro::Value(std::move(items)));
}

}  // namespace

// ---- ManifestWriter ----

struct ManifestWriter::State {
  ManifestOptions options;
  std::set<int32_t> stats_ids;
  std::vector<PartitionSlot> slots;
  std::unique_ptr<avro::ContainerWriter> writer;
  ManifestFile file;  // counts so far
  std::vector<SummaryBuilder> summaries;
  std::optional<int64_t> min_live_sequence;
  std::optional<int64_t> min_added_row_id;
  bool finished = false;

  Result<std::optional<PartitionValue>> Parse(size_t i, const std::optional<std::string>& text);
  avro::Value Entry(const ManifestEntry& e,
                    const std::vector<std::optional<PartitionValue>>& values) const;
  void Count(const ManifestEntry& e, const std::vector<std::optional<PartitionValue>>& values);
};

namespace {

// The slot of spec field `pf`: its result type over its source column in `schema`, refused
// when it has no Avro form in format version `v`.
Result<PartitionSlot> Slot(const PartitionField& pf, const Schema& schema, int v) {
  const std::optional<FieldPath> path = FindFieldPath(schema, pf.source_id);
  if (!path) {
    return Invalid("partition field '" + pf.name + "' names source column " +
                   std::to_string(pf.source_id) + ", which the schema does not have");
  }
  auto result = pf.transform.ResultType(path->field->type);
  if (!result.ok()) {
    return Invalid("partition field '" + pf.name + "': " + result.status().message());
  }
  PartitionSlot slot{pf.name, *result, pf.transform.kind == TransformKind::kVoid};
  if (slot.is_void) {
    // Always null: any type the spec allows will do ("source type or int").
    if (!NoPartitionForm(slot.type).empty()) slot.type = DataType::Int32();
    return slot;
  }
  std::string why = NoPartitionForm(slot.type);
  std::vector<OmittedColumn> omitted;
  if (why.empty() && !IcebergType(slot.type, v, pf.name, &omitted, &why)) {
    why = "type " + slot.type.ToString() + ": " + why;
  }
  if (!why.empty()) return Invalid("partition field '" + pf.name + "': " + why);
  return slot;
}

// The header pairs the spec requires of a manifest.
Result<avro::Metadata> ManifestMetadata(const ManifestOptions& o) {
  Json spec = Json::parse(o.spec.ToJson(), nullptr, /*allow_exceptions=*/false);
  if (spec.is_discarded() || !spec.contains("fields")) {
    return Status::Internal("Iceberg manifest: the partition spec's JSON has no fields");
  }
  return avro::Metadata{
      {"schema", o.schema_json},
      {"schema-id", std::to_string(o.schema_id)},
      {"partition-spec", spec["fields"].dump()},
      {"partition-spec-id", std::to_string(o.spec.spec_id)},
      {"format-version", std::to_string(o.format_version)},
      {"content", o.content == ManifestContent::kData ? "data" : "deletes"},
  };
}

}  // namespace

Result<std::unique_ptr<ManifestWriter>> ManifestWriter::Open(std::unique_ptr<OutputStream> sink,
                                                             ManifestOptions options) {
  const int v = options.format_version;
  TARN_RETURN_NOT_OK(CheckVersion(v));
  auto state = std::make_unique<State>();
  for (const PartitionField& pf : options.spec.fields) {
    TARN_ASSIGN_OR_RETURN(PartitionSlot slot, Slot(pf, options.source_schema, v));
    state->slots.push_back(std::move(slot));
  }
  TARN_ASSIGN_OR_RETURN(avro::Schema schema, avro::Schema::Parse(ManifestEntrySchema(
                                                 PartitionRecord(state->slots, options.spec), v)));
  TARN_ASSIGN_OR_RETURN(avro::Metadata metadata, ManifestMetadata(options));
  avro::WriterOptions avro_options = options.avro;
  for (auto& pair : metadata) avro_options.metadata.push_back(std::move(pair));
  TARN_ASSIGN_OR_RETURN(
      state->writer,
      avro::ContainerWriter::Open(std::move(sink), std::move(schema), std::move(avro_options)));
  state->stats_ids.insert(options.stats_field_ids.begin(), options.stats_field_ids.end());
  state->summaries.resize(state->slots.size());
  state->file.partition_spec_id = options.spec.spec_id;
  state->file.content = options.content;
  state->file.sequence_number = options.sequence_number;
  state->file.added_snapshot_id = options.snapshot_id;
  state->options = std::move(options);
  return std::unique_ptr<ManifestWriter>(new ManifestWriter(std::move(state)));
}

ManifestWriter::ManifestWriter(std::unique_ptr<State> state) : state_(std::move(state)) {}
ManifestWriter::~ManifestWriter() = default;

Result<std::optional<PartitionValue>> ManifestWriter::State::Parse(
    size_t i, const std::optional<std::string>& text) {
  if (!text) return std::optional<PartitionValue>();
  const PartitionSlot& slot = slots[i];
  if (slot.is_void) return Invalid("partition field '" + slot.name + "' is void: always null");
  auto col = ParseValue(slot.type, *text);
  if (!col.ok()) return Invalid("partition field '" + slot.name + "': " + col.status().message());
  return std::optional<PartitionValue>(
      PartitionValue{AvroOf(*col), EncodeBound(*col, 0), OrderedKey(*col, 0), IsNan(*col)});
}

avro::Value ManifestWriter::State::Entry(
    const ManifestEntry& e, const std::vector<std::optional<PartitionValue>>& values) const {
  avro::Record partition;
  for (const std::optional<PartitionValue>& v : values) {
    partition.fields.push_back(v ? Some(v->avro) : Null());
  }
  const std::vector<const ColumnStats*> stats = SelectStats(e.stats, stats_ids);
  using Opt = std::optional<avro::Value>;
  const bool deletes = e.content != kContentData;
  avro::Record file{{
      avro::Value(e.content),
      avro::Value(e.file_path),
      avro::Value(e.file_format),
      avro::Value(std::move(partition)),
      avro::Value(e.record_count),
      avro::Value(e.file_size_in_bytes),
      Null(),  // column_sizes: tarn does not keep them
      StatsMap(stats, [](const ColumnStats& s) { return Opt(avro::Value(s.value_count)); }),
      StatsMap(stats, [](const ColumnStats& s) { return Opt(avro::Value(s.null_count)); }),
      StatsMap(stats,
               [](const ColumnStats& s) {
                 return s.nan_count ? Opt(avro::Value(*s.nan_count)) : std::nullopt;
               }),
      StatsMap(stats,
               [](const ColumnStats& s) {
                 return s.lower ? Opt(avro::Value(avro::Bytes{*s.lower})) : std::nullopt;
               }),
      StatsMap(stats,
               [](const ColumnStats& s) {
                 return s.upper ? Opt(avro::Value(avro::Bytes{*s.upper})) : std::nullopt;
               }),
      Null(),  // key_metadata
      Null(),  // split_offsets
      Null(),  // equality_ids: tarn writes no equality deletes
      // Position deletes are sorted by file and position, never by a table order.
      deletes ? Null() : Maybe(e.sort_order_id),
  }};
  const int v = options.format_version;
  // The first row id of a delete file is always null.
  if (v >= 3) file.fields.push_back(deletes ? Null() : Maybe(e.first_row_id));
  file.fields.push_back(Null());  // referenced_data_file
  if (v >= 3) {
    file.fields.push_back(Null());  // content_offset
    file.fields.push_back(Null());  // content_size_in_bytes
  }
  return avro::Value(avro::Record{{
      avro::Value(static_cast<int32_t>(e.status)),
      Some(avro::Value(e.snapshot_id)),
      Some(avro::Value(e.sequence_number)),
      Some(avro::Value(e.file_sequence_number)),
      avro::Value(std::move(file)),
  }});
}

void ManifestWriter::State::Count(const ManifestEntry& e,
                                  const std::vector<std::optional<PartitionValue>>& values) {
  switch (e.status) {
    case EntryStatus::kAdded:
      ++file.added_files_count;
      file.added_rows_count += e.record_count;
      break;
    case EntryStatus::kExisting:
      ++file.existing_files_count;
      file.existing_rows_count += e.record_count;
      break;
    case EntryStatus::kDeleted:
      ++file.deleted_files_count;
      file.deleted_rows_count += e.record_count;
      break;
  }
  if (e.status != EntryStatus::kDeleted) {
    min_live_sequence = std::min(min_live_sequence.value_or(e.sequence_number), e.sequence_number);
  }
  if (e.status == EntryStatus::kAdded && e.content == kContentData && e.first_row_id) {
    min_added_row_id = std::min(min_added_row_id.value_or(*e.first_row_id), *e.first_row_id);
  }
  for (size_t i = 0; i < values.size(); ++i) summaries[i].Add(values[i]);
}

Status ManifestWriter::Add(const ManifestEntry& entry) {
  State& s = *state_;
  if (s.finished) return Status::FailedPrecondition("Iceberg manifest: already finished");
  const auto status = static_cast<int32_t>(entry.status);
  if (status < 0 || status > 2) return Invalid("entry status " + std::to_string(status));
  TARN_RETURN_NOT_OK(CheckContent(entry.content, s.options.content));
  if (entry.partition.size() != s.slots.size()) {
    return Invalid("'" + entry.file_path + "' has " + std::to_string(entry.partition.size()) +
                   " partition values; the spec has " + std::to_string(s.slots.size()) + " fields");
  }
  std::vector<std::optional<PartitionValue>> values;
  for (size_t i = 0; i < s.slots.size(); ++i) {
    TARN_ASSIGN_OR_RETURN(std::optional<PartitionValue> v, s.Parse(i, entry.partition[i]));
    values.push_back(std::move(v));
  }
  TARN_RETURN_NOT_OK(s.writer->Append(s.Entry(entry, values)));
  s.Count(entry, values);
  return Status::OK();
}

Result<ManifestFile> ManifestWriter::Finish() {
  State& s = *state_;
  if (s.finished) return Status::FailedPrecondition("Iceberg manifest: already finished");
  s.finished = true;
  TARN_RETURN_NOT_OK(s.writer->Flush());
  s.file.manifest_length = static_cast<int64_t>(s.writer->bytes_written());
  TARN_RETURN_NOT_OK(s.writer->Close());
  ManifestFile out = s.file;
  out.min_sequence_number = s.min_live_sequence.value_or(s.options.sequence_number);
  for (size_t i = 0; i < s.slots.size(); ++i) {
    FieldSummary f = s.summaries[i].summary;
    // contains_nan says something of float and double values only.
    const TypeId t = s.slots[i].type.id();
    if (t == TypeId::kFloat32 || t == TypeId::kFloat64) {
      f.contains_nan = f.contains_nan.value_or(false);
    } else {
      f.contains_nan.reset();
    }
    out.partitions.push_back(std::move(f));
  }
  if (s.options.format_version >= 3 && s.options.content == ManifestContent::kData) {
    out.first_row_id = s.min_added_row_id;
  }
  return out;
}

// ---- Manifest lists ----

namespace {

avro::Value SummaryValue(const FieldSummary& f) {
  return avro::Value(avro::Record{{avro::Value(f.contains_null), Maybe(f.contains_nan),
                                   MaybeBytes(f.lower), MaybeBytes(f.upper)}});
}

avro::Value ManifestFileValue(const ManifestFile& m, int v, std::optional<int64_t> first_row_id) {
  avro::Array partitions;
  for (const FieldSummary& f : m.partitions) partitions.items.push_back(SummaryValue(f));
  avro::Record r{{
      avro::Value(m.manifest_path), avro::Value(m.manifest_length),
      avro::Value(m.partition_spec_id), avro::Value(static_cast<int32_t>(m.content)),
      avro::Value(m.sequence_number), avro::Value(m.min_sequence_number),
      avro::Value(m.added_snapshot_id), avro::Value(m.added_files_count),
      avro::Value(m.existing_files_count), avro::Value(m.deleted_files_count),
      avro::Value(m.added_rows_count), avro::Value(m.existing_rows_count),
      avro::Value(m.deleted_rows_count), Some(avro::Value(std::move(partitions))),
      Null(),  // key_metadata
  }};
  if (v >= 3) r.fields.push_back(Maybe(first_row_id));
  return avro::Value(std::move(r));
}

avro::Metadata ListMetadata(const ManifestListOptions& o) {
  // Java writes String.valueOf(parentSnapshotId): "null" for a snapshot without a parent.
  avro::Metadata m{
      {"snapshot-id", std::to_string(o.snapshot_id)},
      {"parent-snapshot-id",
       o.parent_snapshot_id ? std::to_string(*o.parent_snapshot_id) : std::string("null")},
      {"sequence-number", std::to_string(o.sequence_number)},
      {"format-version", std::to_string(o.format_version)},
  };
  if (o.format_version >= 3) m.emplace_back("first-row-id", std::to_string(*o.first_row_id));
  return m;
}

}  // namespace

Status WriteManifestList(std::unique_ptr<OutputStream> sink, const ManifestListOptions& options,
                         const std::vector<ManifestFile>& manifests) {
  const int v = options.format_version;
  TARN_RETURN_NOT_OK(CheckVersion(v));
  if (v >= 3 && !options.first_row_id) {
    return Invalid("a format version 3 manifest list needs the snapshot's first row id");
  }
  for (size_t i = 0; i < manifests.size(); ++i) {
    if (manifests[i].manifest_path.empty()) {
      return Invalid("manifest " + std::to_string(i) + " of the list has no path");
    }
  }
  TARN_ASSIGN_OR_RETURN(avro::Schema schema, avro::Schema::Parse(ManifestListSchema(v)));
  avro::WriterOptions avro_options = options.avro;
  for (auto& pair : ListMetadata(options)) avro_options.metadata.push_back(std::move(pair));
  TARN_ASSIGN_OR_RETURN(auto writer, avro::ContainerWriter::Open(std::move(sink), std::move(schema),
                                                                 std::move(avro_options)));
  std::optional<int64_t> next_row_id = options.first_row_id;
  for (const ManifestFile& m : manifests) {
    std::optional<int64_t> first_row_id;
    if (v >= 3 && m.content == ManifestContent::kData) {
      first_row_id = m.first_row_id;
      if (!first_row_id) {
        // Room for every row that may inherit from it (the spec's simple, valid approach).
        first_row_id = next_row_id;
        *next_row_id += m.added_rows_count + m.existing_rows_count;
      }
    }
    TARN_RETURN_NOT_OK(writer->Append(ManifestFileValue(m, v, first_row_id)));
  }
  return writer->Close();
}

Result<avro::Value> PartitionAvroValue(const DataType& type, const std::string& text) {
  TARN_ASSIGN_OR_RETURN(Column col, ParseValue(type, text));
  return AvroOf(col);
}

}  // namespace tarn::iceberg

#include "iceberg/import.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <exception>
#include <limits>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>

#include "avro/container.h"
#include "common/io.h"
#include "iceberg/position_deletes.h"
#include "parquet/reader.h"
#include "table/field_path.h"
#include "types/value_text.h"

// Hostile input, read defensively: nlohmann's throwing accessors (get<T> on the wrong type,
// const operator[] on a missing key) are never reached, because every value's JSON type is
// checked first; the public functions still catch nlohmann's exceptions as a last guard. Avro
// values are read with their schema nodes side by side and every alternative checked before use
// (avro::Value::as aborts on the wrong one).

namespace tarn::iceberg {
namespace {

Status Corrupt(const std::string& why) { return Status::Corruption("Iceberg: " + why); }
Status Refused(const std::string& why) { return Status::InvalidArgument("Iceberg: " + why); }

// At most `n` bytes of text from outside, for a message: cut where a UTF-8 character starts,
// bytes that are not UTF-8 (an Avro header value) shown as '?' (messages end up in JSON bodies).
std::string Shown(std::string_view text, size_t n = 80) {
  std::string out;
  if (text.size() <= n) {
    out = std::string(text);
  } else {
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xc0) == 0x80) --n;
    out = std::string(text.substr(0, n)) + "...";
  }
  if (!IsValidUtf8(out)) {
    for (char& c : out) {
      if (static_cast<unsigned char>(c) >= 0x80) c = '?';
    }
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// ---- JSON access ----

const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::optional<int64_t> AsInt64(const Json& j) {
  if (j.is_number_unsigned()) {
    const auto u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  return std::nullopt;
}

// `key` of `object` (in `where`) as an integer in [lo, hi]; nullopt when absent or null.
Result<std::optional<int64_t>> OptionalInt(const Json& object, const char* key,
                                           const std::string& where, int64_t lo, int64_t hi) {
  const Json* j = Member(object, key);
  if (j == nullptr || j->is_null()) return std::optional<int64_t>();
  std::optional<int64_t> v = AsInt64(*j);
  if (!v || *v < lo || *v > hi) {
    return Corrupt(where + ": \"" + key + "\" is not an integer in [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "]");
  }
  return v;
}

Result<int64_t> RequiredInt(const Json& object, const char* key, const std::string& where,
                            int64_t lo, int64_t hi) {
  TARN_ASSIGN_OR_RETURN(std::optional<int64_t> v, OptionalInt(object, key, where, lo, hi));
  if (!v) return Corrupt(where + " has no \"" + key + "\"");
  return *v;
}

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

Result<std::optional<std::string>> OptionalString(const Json& object, const char* key,
                                                  const std::string& where) {
  const Json* j = Member(object, key);
  if (j == nullptr || j->is_null()) return std::optional<std::string>();
  if (!j->is_string()) return Corrupt(where + ": \"" + key + "\" is not a string");
  return std::optional<std::string>(j->get_ref<const std::string&>());
}

Result<std::string> RequiredString(const Json& object, const char* key, const std::string& where) {
  TARN_ASSIGN_OR_RETURN(std::optional<std::string> v, OptionalString(object, key, where));
  if (!v) return Corrupt(where + " has no \"" + key + "\"");
  return std::move(*v);
}

Result<bool> RequiredBool(const Json& object, const char* key, const std::string& where) {
  const Json* j = Member(object, key);
  if (j == nullptr || !j->is_boolean()) {
    return Corrupt(where + ": \"" + key + "\" is " + (j ? "not a boolean" : "missing"));
  }
  return j->get<bool>();
}

// ---- Types ----

// The tarn type of an Iceberg primitive type name (Java's Types.fromPrimitiveString: any case,
// spaces around a decimal's parameters).
Result<DataType> PrimitiveType(std::string_view text, const std::string& path, int depth) {
  const std::string name = Lower(text);
  auto no_tarn_type = [&](const std::string& why) {
    return Refused("column '" + path + "': Iceberg type " + Shown(text) + " has no tarn type (" +
                   why + ")");
  };
  if (name == "boolean") return DataType::Boolean();
  if (name == "int") return DataType::Int32();
  if (name == "long") return DataType::Int64();
  if (name == "float") return DataType::Float32();
  if (name == "double") return DataType::Float64();
  if (name == "date") return DataType::Date();
  if (name == "time") return DataType::Time(TimeUnit::kMicro);
  if (name == "timestamp") return DataType::Timestamp(TimeUnit::kMicro);
  if (name == "timestamptz") return DataType::TimestampTz(TimeUnit::kMicro);
  if (name == "timestamp_ns") return DataType::Timestamp(TimeUnit::kNano);
  if (name == "timestamptz_ns") return DataType::TimestampTz(TimeUnit::kNano);
  if (name == "string") return DataType::Varchar();
  if (name == "uuid") return DataType::Uuid();
  if (name == "binary") return DataType::Blob();
  if (name == "variant") {
    if (depth > 0) return no_tarn_type("tarn holds VARIANT as a top-level column only");
    return DataType::Variant();
  }
  if (name == "unknown") return no_tarn_type("a column of nulls only");
  if (name.rfind("fixed", 0) == 0) return no_tarn_type("tarn has no fixed-length binary type");
  if (name.rfind("geometry", 0) == 0 || name.rfind("geography", 0) == 0) {
    return no_tarn_type("tarn has no geospatial types");
  }
  if (name.rfind("decimal", 0) == 0) {
    // decimal(P,S), optional spaces around P, S and the punctuation.
    std::string_view rest(name);
    rest.remove_prefix(7);
    auto skip = [&] {
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    };
    auto eat = [&](char c) {
      skip();
      if (rest.empty() || rest.front() != c) return false;
      rest.remove_prefix(1);
      return true;
    };
    auto number = [&](int* out) {
      skip();
      auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), *out);
      if (ec != std::errc() || end == rest.data()) return false;
      rest.remove_prefix(static_cast<size_t>(end - rest.data()));
      return true;
    };
    int p = 0, s = 0;
    if (eat('(') && number(&p) && eat(',') && number(&s) && eat(')') && (skip(), rest.empty())) {
      if (p < 1 || p > 38 || s < 0 || s > p) {
        return no_tarn_type(
            "tarn's decimals have a precision of 1 to 38 and a scale of 0 to the "
            "precision");
      }
      return DataType::Decimal(p, s);
    }
  }
  return Refused("column '" + path + "': '" + Shown(text) + "' is not an Iceberg type tarn knows");
}

// Converts Iceberg schema JSON, collecting field ids (each once in a schema).
class SchemaReader {
 public:
  Result<DataType> Type(const Json& type, const std::string& path, int depth);
  // One field of a struct (`id`, `name`, `required`, `type`, defaults).
  Result<Field> StructField(const Json& field, const std::string& parent, int depth);

 private:
  Status Id(int64_t id, const std::string& path) {
    if (!ids_.insert(id).second) {
      return Corrupt("field id " + std::to_string(id) + " of '" + path + "' is used twice");
    }
    return Status::OK();
  }
  // A nested field id (`element-id`, `key-id`, `value-id`) of the object at `path`.
  Result<int32_t> NestedId(const Json& type, const char* key, const std::string& path) {
    const Json* j = Member(type, key);
    if (j == nullptr || j->is_null()) {
      return Refused("column '" + path + "' has no field id (\"" + key + "\")");
    }
    TARN_ASSIGN_OR_RETURN(int64_t id,
                          RequiredInt(type, key, "column '" + path + "'", 0, kInt32Max));
    TARN_RETURN_NOT_OK(Id(id, path));
    return static_cast<int32_t>(id);
  }

  std::set<int64_t> ids_;
};

Result<Field> SchemaReader::StructField(const Json& field, const std::string& parent, int depth) {
  if (!field.is_object()) return Corrupt("a field of '" + parent + "' is not an object");
  const std::string where = parent.empty() ? "a column" : "a member of '" + parent + "'";
  TARN_ASSIGN_OR_RETURN(std::string name, RequiredString(field, "name", where));
  const std::string path = parent.empty() ? name : parent + "." + name;
  const Json* id = Member(field, "id");
  if (id == nullptr || id->is_null()) return Refused("column '" + path + "' has no field id");
  TARN_ASSIGN_OR_RETURN(int64_t field_id,
                        RequiredInt(field, "id", "column '" + path + "'", 0, kInt32Max));
  TARN_RETURN_NOT_OK(Id(field_id, path));
  TARN_ASSIGN_OR_RETURN(bool required, RequiredBool(field, "required", "column '" + path + "'"));
  const Json* type = Member(field, "type");
  if (type == nullptr) return Corrupt("column '" + path + "' has no \"type\"");
  // Rows of files written before the column was added read as its initial default in Iceberg,
  // as null in tarn: a non-null one would change what the table holds. (write-default only
  // matters to writers.)
  if (const Json* d = Member(field, "initial-default"); d != nullptr && !d->is_null()) {
    return Refused("column '" + path +
                   "' has an initial default (rows written before it was added read as that "
                   "value), which tarn cannot hold");
  }
  TARN_ASSIGN_OR_RETURN(DataType t, Type(*type, path, depth));
  return Field{std::move(name), std::move(t), !required, static_cast<int32_t>(field_id)};
}

Result<DataType> SchemaReader::Type(const Json& type, const std::string& path, int depth) {
  if (type.is_string()) return PrimitiveType(type.get_ref<const std::string&>(), path, depth);
  if (!type.is_object()) return Corrupt("column '" + path + "': a type is a string or an object");
  if (depth >= kMaxImportNesting) {
    return Refused("column '" + path + "' nests deeper than " + std::to_string(kMaxImportNesting) +
                   " levels");
  }
  TARN_ASSIGN_OR_RETURN(std::string kind, RequiredString(type, "type", "column '" + path + "'"));
  if (kind == "struct") {
    const Json* fields = Member(type, "fields");
    if (fields == nullptr || !fields->is_array()) {
      return Corrupt("column '" + path + "': a struct without a \"fields\" array");
    }
    if (fields->empty()) return Refused("column '" + path + "' is an empty struct");
    std::vector<Field> members;
    std::set<std::string> names;  // tarn's member names are unique case-insensitively
    for (const Json& f : *fields) {
      TARN_ASSIGN_OR_RETURN(Field m, StructField(f, path, depth + 1));
      if (!names.insert(Lower(m.name)).second) {
        return Refused("column '" + path + "' has two members named '" + m.name +
                       "' (tarn's names differ in more than case)");
      }
      members.push_back(std::move(m));
    }
    return DataType::Struct(std::move(members));
  }
  if (kind == "list") {
    const std::string element_path = path + ".element";
    TARN_ASSIGN_OR_RETURN(int32_t id, NestedId(type, "element-id", element_path));
    TARN_ASSIGN_OR_RETURN(bool required,
                          RequiredBool(type, "element-required", "column '" + path + "'"));
    const Json* element = Member(type, "element");
    if (element == nullptr) return Corrupt("column '" + path + "': a list without \"element\"");
    TARN_ASSIGN_OR_RETURN(DataType e, Type(*element, element_path, depth + 1));
    return DataType::Array(std::move(e), id, !required);
  }
  if (kind == "map") {
    const std::string key_path = path + ".key";
    const std::string value_path = path + ".value";
    TARN_ASSIGN_OR_RETURN(int32_t key_id, NestedId(type, "key-id", key_path));
    TARN_ASSIGN_OR_RETURN(int32_t value_id, NestedId(type, "value-id", value_path));
    TARN_ASSIGN_OR_RETURN(bool required,
                          RequiredBool(type, "value-required", "column '" + path + "'"));
    const Json* key = Member(type, "key");
    const Json* value = Member(type, "value");
    if (key == nullptr || value == nullptr) {
      return Corrupt("column '" + path + "': a map without \"key\" or \"value\"");
    }
    TARN_ASSIGN_OR_RETURN(DataType k, Type(*key, key_path, depth + 1));
    TARN_ASSIGN_OR_RETURN(DataType v, Type(*value, value_path, depth + 1));
    return DataType::Map(std::move(k), std::move(v), key_id, value_id, !required);
  }
  return Refused("column '" + path + "': '" + Shown(kind) + "' is not an Iceberg type tarn knows");
}

// ---- Partition specs ----

// A partition spec object ({"spec-id", "fields"}), or a v1 `partition-spec` field list with
// `spec_id`, through PartitionSpec::FromJson (Iceberg's JSON is tarn's). Field ids missing in v1
// are assigned from 1000 in order, as Java's v1 did.
Result<PartitionSpec> SpecOf(const Json& spec, int32_t spec_id, int version) {
  const std::string where = "partition spec " + std::to_string(spec_id);
  const Json* fields = spec.is_array() ? &spec : Member(spec, "fields");
  if (fields == nullptr || !fields->is_array()) return Corrupt(where + " has no \"fields\" array");
  Json normal = {{"spec-id", spec_id}, {"fields", Json::array()}};
  int64_t index = 0;
  for (const Json& f : *fields) {
    if (!f.is_object()) return Corrupt(where + ": a field is not an object");
    TARN_ASSIGN_OR_RETURN(std::string name, RequiredString(f, "name", where + ": a field"));
    const std::string field_where = where + ", field '" + Shown(name) + "'";
    TARN_ASSIGN_OR_RETURN(std::optional<int64_t> source,
                          OptionalInt(f, "source-id", field_where, 0, kInt32Max));
    if (!source) {
      // v3: a multi-argument transform names its sources in "source-ids".
      const Json* ids = Member(f, "source-ids");
      if (ids != nullptr && ids->is_array() && ids->size() == 1) {
        source = AsInt64((*ids)[0]);
        if (!source || *source < 0 || *source > kInt32Max) {
          return Corrupt(field_where + ": \"source-ids\" is not a list of ids");
        }
      } else if (ids != nullptr && ids->is_array() && ids->size() > 1) {
        return Refused("partition field '" + Shown(name) +
                       "' has a multi-argument transform, which tarn does not have");
      } else {
        return Corrupt(field_where + " has no \"source-id\"");
      }
    }
    TARN_ASSIGN_OR_RETURN(std::optional<int64_t> field_id,
                          OptionalInt(f, "field-id", field_where, 0, kInt32Max));
    if (!field_id) {
      if (version > 1) return Corrupt(field_where + " has no \"field-id\"");
      field_id = 1000 + index;
    }
    TARN_ASSIGN_OR_RETURN(std::string transform, RequiredString(f, "transform", field_where));
    if (!Transform::Parse(transform).ok()) {
      return Refused("partition field '" + Shown(name) + "': transform '" + Shown(transform) +
                     "' is not one tarn has");
    }
    normal["fields"].push_back({{"source-id", *source},
                                {"field-id", *field_id},
                                {"name", name},
                                {"transform", transform}});
    ++index;
  }
  auto parsed = PartitionSpec::FromJson(normal.dump());
  if (!parsed.ok()) return Corrupt(where + ": " + parsed.status().message());
  return std::move(*parsed);
}

// The result type of each field of `spec` over `schema` (a void field: its source's type when
// the schema has the source, else INT32; its values are always null).
Result<std::vector<DataType>> PartitionTypes(const PartitionSpec& spec, const Schema& schema) {
  std::vector<DataType> types;
  for (const PartitionField& pf : spec.fields) {
    const std::optional<FieldPath> path = FindFieldPath(schema, pf.source_id);
    const bool is_void = pf.transform.kind == TransformKind::kVoid;
    if (!path) {
      if (is_void) {
        types.push_back(DataType::Int32());
        continue;
      }
      return Refused("partition field '" + pf.name + "' is computed from field id " +
                     std::to_string(pf.source_id) + ", which is not a column of the schema");
    }
    auto result = pf.transform.ResultType(path->field->type);
    if (!result.ok()) {
      if (is_void) {
        types.push_back(DataType::Int32());
        continue;
      }
      return Refused("partition field '" + pf.name + "' (" + pf.transform.ToString() + " of '" +
                     path->Text() + "'): " + result.status().message());
    }
    types.push_back(*result);
  }
  return types;
}

// The snapshot `id` of the `snapshots` array.
Result<ImportedSnapshot> FindSnapshot(const Json& root, int64_t id, int version) {
  const std::string where = "snapshot " + std::to_string(id);
  const Json* snapshots = Member(root, "snapshots");
  if (snapshots == nullptr || !snapshots->is_array()) {
    return Corrupt("the current " + where + " is not listed (no \"snapshots\" array)");
  }
  for (const Json& s : *snapshots) {
    if (!s.is_object()) return Corrupt("a snapshot is not an object");
    TARN_ASSIGN_OR_RETURN(int64_t sid,
                          RequiredInt(s, "snapshot-id", "a snapshot", kInt64Min, kInt64Max));
    if (sid != id) continue;
    ImportedSnapshot out;
    out.snapshot_id = id;
    TARN_ASSIGN_OR_RETURN(std::optional<int64_t> seq,
                          OptionalInt(s, "sequence-number", where, 0, kInt64Max));
    if (!seq && version > 1) return Corrupt(where + " has no \"sequence-number\"");
    out.sequence_number = seq.value_or(0);
    TARN_ASSIGN_OR_RETURN(out.timestamp_ms,
                          RequiredInt(s, "timestamp-ms", where, kInt64Min, kInt64Max));
    TARN_ASSIGN_OR_RETURN(std::optional<std::string> list,
                          OptionalString(s, "manifest-list", where));
    if (!list) {
      if (Member(s, "manifests") != nullptr) {
        return Refused(where +
                       " lists its manifests inline (a v1 snapshot without a manifest list), "
                       "which tarn does not read");
      }
      return Corrupt(where + " has no \"manifest-list\"");
    }
    out.manifest_list = std::move(*list);
    return out;
  }
  return Corrupt("the current " + where + " is not listed in \"snapshots\"");
}

Result<ImportedTable> ParseTableMetadataJson(std::string_view text) {
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
      static_cast<unsigned char>(text[1]) == 0x8b) {
    return Refused("the table metadata is gzip-compressed; inflate it first");
  }
  const Json root = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Corrupt("the table metadata is not valid JSON");
  if (!root.is_object()) return Corrupt("the table metadata is not a JSON object");
  const std::string where = "the table metadata";
  ImportedTable t;

  TARN_ASSIGN_OR_RETURN(int64_t version, RequiredInt(root, "format-version", where, 1, kInt32Max));
  if (version > kMaxImportFormatVersion) {
    return Refused("format version " + std::to_string(version) + " is not read (1 to " +
                   std::to_string(kMaxImportFormatVersion) + ")");
  }
  t.format_version = static_cast<int>(version);
  TARN_ASSIGN_OR_RETURN(std::optional<std::string> uuid, OptionalString(root, "table-uuid", where));
  if (!uuid && version > 1) return Corrupt(where + " has no \"table-uuid\"");
  t.table_uuid = uuid.value_or("");
  TARN_ASSIGN_OR_RETURN(t.location, RequiredString(root, "location", where));
  TARN_ASSIGN_OR_RETURN(int64_t last_column_id,
                        RequiredInt(root, "last-column-id", where, 0, kInt32Max));
  t.last_column_id = static_cast<int32_t>(last_column_id);

  // The current schema: one of "schemas" by "current-schema-id", else v1's "schema".
  const Json* current = nullptr;
  if (const Json* schemas = Member(root, "schemas"); schemas != nullptr) {
    if (!schemas->is_array()) return Corrupt("\"schemas\" is not an array");
    TARN_ASSIGN_OR_RETURN(int64_t id, RequiredInt(root, "current-schema-id", where, 0, kInt32Max));
    for (const Json& s : *schemas) {
      TARN_ASSIGN_OR_RETURN(int64_t sid, RequiredInt(s, "schema-id", "a schema", 0, kInt32Max));
      if (sid == id) {
        current = &s;
        break;
      }
    }
    if (current == nullptr) {
      return Corrupt("the current schema " + std::to_string(id) + " is not listed");
    }
    t.schema_id = static_cast<int32_t>(id);
  } else if (const Json* schema = Member(root, "schema"); schema != nullptr && version == 1) {
    current = schema;
    TARN_ASSIGN_OR_RETURN(std::optional<int64_t> sid,
                          OptionalInt(*schema, "schema-id", "the schema", 0, kInt32Max));
    t.schema_id = static_cast<int32_t>(sid.value_or(0));
  } else {
    return Corrupt(where + " has no \"schemas\"");
  }
  TARN_ASSIGN_OR_RETURN(t.schema, ImportSchema(*current));

  // Partition specs: "partition-specs" and "default-spec-id", else v1's "partition-spec".
  if (const Json* specs = Member(root, "partition-specs"); specs != nullptr) {
    if (!specs->is_array()) return Corrupt("\"partition-specs\" is not an array");
    TARN_ASSIGN_OR_RETURN(int64_t id, RequiredInt(root, "default-spec-id", where, 0, kInt32Max));
    t.default_spec_id = static_cast<int32_t>(id);
    for (const Json& s : *specs) {
      TARN_ASSIGN_OR_RETURN(int64_t sid,
                            RequiredInt(s, "spec-id", "a partition spec", 0, kInt32Max));
      if (t.FindSpec(static_cast<int32_t>(sid)) != nullptr) {
        return Corrupt("partition spec " + std::to_string(sid) + " is listed twice");
      }
      TARN_ASSIGN_OR_RETURN(PartitionSpec spec,
                            SpecOf(s, static_cast<int32_t>(sid), t.format_version));
      t.specs.push_back(std::move(spec));
    }
  } else if (const Json* spec = Member(root, "partition-spec"); spec != nullptr && version == 1) {
    TARN_ASSIGN_OR_RETURN(PartitionSpec s, SpecOf(*spec, 0, 1));
    t.specs.push_back(std::move(s));
    t.default_spec_id = 0;
  } else {
    return Corrupt(where + " has no \"partition-specs\"");
  }
  if (t.FindSpec(t.default_spec_id) == nullptr) {
    return Corrupt("the default partition spec " + std::to_string(t.default_spec_id) +
                   " is not listed");
  }
  TARN_RETURN_NOT_OK(PartitionTypes(t.default_spec(), t.schema).status());

  if (const Json* props = Member(root, "properties"); props != nullptr && !props->is_null()) {
    if (!props->is_object()) return Corrupt("\"properties\" is not an object");
    for (auto it = props->begin(); it != props->end(); ++it) {
      if (!it.value().is_string()) {
        return Corrupt("property '" + Shown(it.key()) + "' is not a string");
      }
      t.properties.emplace(it.key(), it.value().get_ref<const std::string&>());
    }
  }

  // The current snapshot: "current-snapshot-id" (-1 or null: none), else the main branch.
  TARN_ASSIGN_OR_RETURN(std::optional<int64_t> current_id,
                        OptionalInt(root, "current-snapshot-id", where, kInt64Min, kInt64Max));
  if (!current_id && Member(root, "current-snapshot-id") == nullptr) {
    const Json* refs = Member(root, "refs");
    const Json* main = refs != nullptr ? Member(*refs, "main") : nullptr;
    if (main != nullptr) {
      TARN_ASSIGN_OR_RETURN(current_id,
                            OptionalInt(*main, "snapshot-id", "ref main", kInt64Min, kInt64Max));
    }
  }
  if (current_id && *current_id != -1) {
    TARN_ASSIGN_OR_RETURN(ImportedSnapshot s, FindSnapshot(root, *current_id, t.format_version));
    t.current_snapshot = std::move(s);
  }
  return t;
}

// ---- Avro: values with their schema nodes ----

// A value of a file and its schema node, a union resolved to its branch: `value` is nullptr for
// null (a null branch or an absent field).
struct Item {
  const avro::Node* node = nullptr;
  const avro::Value* value = nullptr;
  bool null() const { return value == nullptr; }
};

Result<Item> Resolve(const avro::Node* node, const avro::Value* value, const std::string& what) {
  if (node == nullptr || value == nullptr) return Item{};
  if (node->type == avro::Type::kUnion) {
    const auto* u = std::get_if<avro::Union>(&value->data());
    if (u == nullptr || u->value == nullptr || u->branch < 0 ||
        static_cast<size_t>(u->branch) >= node->branches.size()) {
      return Corrupt(what + ": a union value does not match its schema");
    }
    node = node->branches[static_cast<size_t>(u->branch)];
    value = u->value.get();
  }
  if (node->type == avro::Type::kNull) return Item{node, nullptr};
  return Item{node, value};
}

// Field indexes of record nodes by their "field-id" attributes (the first field of an id wins),
// computed once per node.
class FieldIds {
 public:
  int Find(const avro::Node* record, int64_t id) {
    auto [it, inserted] = cache_.try_emplace(record);
    if (inserted) {
      for (size_t i = 0; i < record->fields.size(); ++i) {
        if (auto fid = avro::IntAttribute(record->fields[i].attributes, "field-id")) {
          it->second.try_emplace(*fid, static_cast<int>(i));
        }
      }
    }
    auto f = it->second.find(id);
    return f == it->second.end() ? -1 : f->second;
  }

 private:
  std::unordered_map<const avro::Node*, std::unordered_map<int64_t, int>> cache_;
};

// Field `id` of the record `item` (null when the record has no such field).
Result<Item> Child(FieldIds* ids, const Item& item, int64_t id, const std::string& what) {
  if (item.null() || item.node->type != avro::Type::kRecord) {
    return Corrupt(what + ": not a record");
  }
  const auto* record = std::get_if<avro::Record>(&item.value->data());
  if (record == nullptr || record->fields.size() != item.node->fields.size()) {
    return Corrupt(what + ": a record value does not match its schema");
  }
  const int i = ids->Find(item.node, id);
  if (i < 0) return Item{};
  return Resolve(item.node->fields[static_cast<size_t>(i)].type,
                 &record->fields[static_cast<size_t>(i)], what);
}

Status WrongType(const std::string& what, const char* want) {
  return Corrupt(what + " is not " + want);
}

// An int or long (an int read as a long: Iceberg promotes int to long), nullopt for null.
Result<std::optional<int64_t>> LongOf(const Item& item, const std::string& what) {
  if (item.null()) return std::optional<int64_t>();
  if (const auto* v = std::get_if<int64_t>(&item.value->data())) return std::optional(*v);
  if (const auto* v = std::get_if<int32_t>(&item.value->data())) {
    return std::optional<int64_t>(*v);
  }
  return WrongType(what, "a long");
}

Result<std::optional<int32_t>> IntOf(const Item& item, const std::string& what) {
  if (item.null()) return std::optional<int32_t>();
  if (const auto* v = std::get_if<int32_t>(&item.value->data())) return std::optional(*v);
  return WrongType(what, "an int");
}

Result<std::optional<bool>> BoolOf(const Item& item, const std::string& what) {
  if (item.null()) return std::optional<bool>();
  if (const auto* v = std::get_if<bool>(&item.value->data())) return std::optional(*v);
  return WrongType(what, "a boolean");
}

Result<std::optional<std::string>> StringOf(const Item& item, const std::string& what) {
  if (item.null()) return std::optional<std::string>();
  if (const auto* v = std::get_if<std::string>(&item.value->data())) return std::optional(*v);
  return WrongType(what, "a string");
}

// bytes or fixed.
Result<std::optional<std::string>> BytesOf(const Item& item, const std::string& what) {
  if (item.null()) return std::optional<std::string>();
  if (const auto* v = std::get_if<avro::Bytes>(&item.value->data())) {
    return std::optional(v->data);
  }
  if (const auto* v = std::get_if<avro::Fixed>(&item.value->data())) {
    return std::optional(v->data);
  }
  return WrongType(what, "bytes");
}

template <typename T>
Result<T> Required(Result<std::optional<T>> v, const std::string& what) {
  if (!v.ok()) return v.status();
  if (!*v) return Corrupt(what + " is missing");
  return std::move(**v);
}

// Visits each entry of one of Iceberg's int-keyed maps (an array of key/value records whose
// fields carry `key_id` and `value_id`, as Java writes them; an Avro map with decimal keys is
// read too): visit(key, value item). A key twice is kCorruption.
template <typename F>
Status ForEachIntMap(FieldIds* ids, const Item& map, int64_t key_id, int64_t value_id,
                     const std::string& what, F visit) {
  if (map.null()) return Status::OK();
  std::set<int32_t> seen;
  auto add = [&](int32_t key, const Item& value) -> Status {
    if (!seen.insert(key).second) {
      return Corrupt(what + " names field " + std::to_string(key) + " twice");
    }
    return visit(key, value);
  };
  if (map.node->type == avro::Type::kArray) {
    const auto* array = std::get_if<avro::Array>(&map.value->data());
    if (array == nullptr) return WrongType(what, "an array");
    for (const avro::Value& v : array->items) {
      TARN_ASSIGN_OR_RETURN(Item entry, Resolve(map.node->items, &v, what));
      TARN_ASSIGN_OR_RETURN(Item k, Child(ids, entry, key_id, what));
      TARN_ASSIGN_OR_RETURN(Item value, Child(ids, entry, value_id, what));
      TARN_ASSIGN_OR_RETURN(int32_t key, Required(IntOf(k, what + " key"), what + " key"));
      TARN_RETURN_NOT_OK(add(key, value));
    }
    return Status::OK();
  }
  if (map.node->type == avro::Type::kMap) {
    const auto* m = std::get_if<avro::Map>(&map.value->data());
    if (m == nullptr) return WrongType(what, "a map");
    for (const auto& [text, v] : m->entries) {
      int32_t key = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), key);
      if (ec != std::errc() || end != text.data() + text.size()) {
        return Corrupt(what + ": key '" + Shown(text) + "' is not a field id");
      }
      TARN_ASSIGN_OR_RETURN(Item value, Resolve(map.node->values, &v, what));
      TARN_RETURN_NOT_OK(add(key, value));
    }
    return Status::OK();
  }
  return WrongType(what, "a map keyed by field id");
}

Status MapCodecError(Status st) {
  // A codec the Avro reader does not have (snappy, zstandard, ...) is a valid file tarn cannot
  // read: a refusal, not corruption.
  if (st.kind() == ErrorKind::kFailedPrecondition) return Status::InvalidArgument(st.message());
  return st;
}

Result<std::unique_ptr<avro::ContainerReader>> OpenAvro(std::string bytes) {
  auto reader = avro::ContainerReader::Open(std::move(bytes));
  if (!reader.ok()) return MapCodecError(reader.status());
  if ((*reader)->schema().root().type != avro::Type::kRecord) {
    return Corrupt("the file's objects are not records");
  }
  return std::move(*reader);
}

// ---- Manifest lists ----

Result<std::vector<ManifestFile>> ReadManifestListAvro(std::string bytes) {
  TARN_ASSIGN_OR_RETURN(auto reader, OpenAvro(std::move(bytes)));
  const avro::Node* root = &reader->schema().root();
  FieldIds ids;
  std::vector<ManifestFile> out;
  avro::Value value;
  for (;;) {
    auto more = reader->Next(&value);
    if (!more.ok()) return MapCodecError(more.status());
    if (!*more) break;
    const std::string what = "manifest list entry " + std::to_string(out.size());
    const Item entry{root, &value};
    auto field = [&](int64_t id) { return Child(&ids, entry, id, what); };
    auto name = [&](const char* n) { return what + " " + n; };
    ManifestFile m;
    TARN_ASSIGN_OR_RETURN(Item path, field(500));
    TARN_ASSIGN_OR_RETURN(m.manifest_path,
                          Required(StringOf(path, name("manifest_path")), name("manifest_path")));
    TARN_ASSIGN_OR_RETURN(Item length, field(501));
    TARN_ASSIGN_OR_RETURN(m.manifest_length, Required(LongOf(length, name("manifest_length")),
                                                      name("manifest_length")));
    TARN_ASSIGN_OR_RETURN(Item spec, field(502));
    TARN_ASSIGN_OR_RETURN(m.partition_spec_id, Required(IntOf(spec, name("partition_spec_id")),
                                                        name("partition_spec_id")));
    TARN_ASSIGN_OR_RETURN(Item content, field(517));
    TARN_ASSIGN_OR_RETURN(std::optional<int32_t> c, IntOf(content, name("content")));
    if (c && *c != 0 && *c != 1) {
      return Corrupt(name("content") + " is " + std::to_string(*c) + ", not 0 or 1");
    }
    m.content = c.value_or(0) == 1 ? ManifestContent::kDeletes : ManifestContent::kData;
    TARN_ASSIGN_OR_RETURN(Item seq, field(515));
    TARN_ASSIGN_OR_RETURN(std::optional<int64_t> s, LongOf(seq, name("sequence_number")));
    m.sequence_number = s.value_or(0);
    TARN_ASSIGN_OR_RETURN(Item min_seq, field(516));
    TARN_ASSIGN_OR_RETURN(s, LongOf(min_seq, name("min_sequence_number")));
    m.min_sequence_number = s.value_or(0);
    TARN_ASSIGN_OR_RETURN(Item snapshot, field(503));
    TARN_ASSIGN_OR_RETURN(m.added_snapshot_id, Required(LongOf(snapshot, name("added_snapshot_id")),
                                                        name("added_snapshot_id")));
    for (auto [id, dst, label] : {std::tuple{504, &m.added_files_count, "added_files_count"},
                                  std::tuple{505, &m.existing_files_count, "existing_files_count"},
                                  std::tuple{506, &m.deleted_files_count, "deleted_files_count"}}) {
      TARN_ASSIGN_OR_RETURN(Item count, field(id));
      TARN_ASSIGN_OR_RETURN(std::optional<int32_t> n, IntOf(count, name(label)));
      if (n && *n < 0) return Corrupt(name(label) + " is negative");
      *dst = n.value_or(0);
    }
    for (auto [id, dst, label] : {std::tuple{512, &m.added_rows_count, "added_rows_count"},
                                  std::tuple{513, &m.existing_rows_count, "existing_rows_count"},
                                  std::tuple{514, &m.deleted_rows_count, "deleted_rows_count"}}) {
      TARN_ASSIGN_OR_RETURN(Item count, field(id));
      TARN_ASSIGN_OR_RETURN(std::optional<int64_t> n, LongOf(count, name(label)));
      if (n && *n < 0) return Corrupt(name(label) + " is negative");
      *dst = n.value_or(0);
    }
    TARN_ASSIGN_OR_RETURN(Item partitions, field(507));
    if (!partitions.null()) {
      const auto* array = std::get_if<avro::Array>(&partitions.value->data());
      if (partitions.node->type != avro::Type::kArray || array == nullptr) {
        return WrongType(name("partitions"), "a list");
      }
      for (const avro::Value& v : array->items) {
        const std::string sw = name("partition summary");
        TARN_ASSIGN_OR_RETURN(Item summary, Resolve(partitions.node->items, &v, sw));
        FieldSummary f;
        TARN_ASSIGN_OR_RETURN(Item contains_null, Child(&ids, summary, 509, sw));
        TARN_ASSIGN_OR_RETURN(
            f.contains_null,
            Required(BoolOf(contains_null, sw + " contains_null"), sw + " contains_null"));
        TARN_ASSIGN_OR_RETURN(Item contains_nan, Child(&ids, summary, 518, sw));
        TARN_ASSIGN_OR_RETURN(f.contains_nan, BoolOf(contains_nan, sw + " contains_nan"));
        TARN_ASSIGN_OR_RETURN(Item lower, Child(&ids, summary, 510, sw));
        TARN_ASSIGN_OR_RETURN(f.lower, BytesOf(lower, sw + " lower_bound"));
        TARN_ASSIGN_OR_RETURN(Item upper, Child(&ids, summary, 511, sw));
        TARN_ASSIGN_OR_RETURN(f.upper, BytesOf(upper, sw + " upper_bound"));
        m.partitions.push_back(std::move(f));
      }
    }
    TARN_ASSIGN_OR_RETURN(Item first_row_id, field(520));
    TARN_ASSIGN_OR_RETURN(m.first_row_id, LongOf(first_row_id, name("first_row_id")));
    out.push_back(std::move(m));
  }
  return out;
}

// ---- Manifests ----

uint128 Pow10(int n) {
  uint128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// The canonical text of a partition value of `type` (the transform's result type), from the
// Avro value Iceberg's writers store (manifest.cc's AvroOf read backwards; Java's shapes too:
// int for date-valued transforms, long for longs and times, fixed or bytes for decimals, fixed
// or a string for uuids).
Result<std::string> PartitionText(const DataType& type, const Item& v, const std::string& what) {
  Column col(type);
  const avro::Value::Data& d = v.value->data();
  auto int_in = [&](int64_t lo, int64_t hi) -> Result<int64_t> {
    const auto* i = std::get_if<int32_t>(&d);
    if (i == nullptr) return WrongType(what, "an int");
    if (*i < lo || *i > hi) return Corrupt(what + " is out of range for " + type.ToString());
    return static_cast<int64_t>(*i);
  };
  switch (type.id()) {
    case TypeId::kBoolean: {
      const auto* b = std::get_if<bool>(&d);
      if (b == nullptr) return WrongType(what, "a boolean");
      col.AppendFixed<uint8_t>(*b ? 1 : 0);
      break;
    }
    case TypeId::kInt8: {
      TARN_ASSIGN_OR_RETURN(int64_t i, int_in(INT8_MIN, INT8_MAX));
      col.AppendFixed(static_cast<int8_t>(i));
      break;
    }
    case TypeId::kInt16: {
      TARN_ASSIGN_OR_RETURN(int64_t i, int_in(INT16_MIN, INT16_MAX));
      col.AppendFixed(static_cast<int16_t>(i));
      break;
    }
    case TypeId::kUInt8: {
      TARN_ASSIGN_OR_RETURN(int64_t i, int_in(0, UINT8_MAX));
      col.AppendFixed(static_cast<uint8_t>(i));
      break;
    }
    case TypeId::kUInt16: {
      TARN_ASSIGN_OR_RETURN(int64_t i, int_in(0, UINT16_MAX));
      col.AppendFixed(static_cast<uint16_t>(i));
      break;
    }
    case TypeId::kInt32:
    case TypeId::kDate: {
      TARN_ASSIGN_OR_RETURN(int64_t i, int_in(INT32_MIN, INT32_MAX));
      col.AppendFixed(static_cast<int32_t>(i));
      break;
    }
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      TARN_ASSIGN_OR_RETURN(std::optional<int64_t> i, LongOf(v, what));
      if (type.id() == TypeId::kTime && (*i < 0 || *i >= 86400 * UnitsPerSecond(type.unit()))) {
        return Corrupt(what + " is no time of day");
      }
      col.AppendFixed(*i);
      break;
    }
    case TypeId::kFloat32: {
      const auto* f = std::get_if<float>(&d);
      if (f == nullptr) return WrongType(what, "a float");
      col.AppendFixed(*f);
      break;
    }
    case TypeId::kFloat64: {
      // A float read as a double (Iceberg promotes float to double).
      if (const auto* f = std::get_if<float>(&d)) {
        col.AppendFixed(static_cast<double>(*f));
      } else if (const auto* g = std::get_if<double>(&d)) {
        col.AppendFixed(*g);
      } else {
        return WrongType(what, "a double");
      }
      break;
    }
    case TypeId::kDecimal: {
      TARN_ASSIGN_OR_RETURN(std::optional<std::string> bytes, BytesOf(v, what));
      if (bytes->empty() || bytes->size() > 16) {
        return Corrupt(what + ": a decimal of " + std::to_string(bytes->size()) + " bytes");
      }
      // Big-endian two's complement, sign-extended.
      uint128 u = (static_cast<unsigned char>((*bytes)[0]) & 0x80) ? ~uint128(0) : 0;
      for (char c : *bytes) u = (u << 8) | static_cast<unsigned char>(c);
      const auto unscaled = static_cast<int128>(u);
      const uint128 magnitude = unscaled < 0 ? uint128(0) - u : u;
      if (magnitude >= Pow10(type.precision())) {
        return Corrupt(what + " does not fit " + type.ToString());
      }
      col.AppendFixed(unscaled);
      break;
    }
    case TypeId::kVarchar:
    case TypeId::kJson: {
      const auto* s = std::get_if<std::string>(&d);
      if (s == nullptr) return WrongType(what, "a string");
      col.AppendBytes(*s);
      break;
    }
    case TypeId::kBlob: {
      TARN_ASSIGN_OR_RETURN(std::optional<std::string> bytes, BytesOf(v, what));
      col.AppendBytes(*bytes);
      break;
    }
    case TypeId::kUuid: {
      if (const auto* s = std::get_if<std::string>(&d)) {
        auto uuid = ParseUuid(*s);
        if (!uuid.ok()) return Corrupt(what + ": " + uuid.status().message());
        col.AppendFixedBytes(uuid->data(), 16);
        break;
      }
      TARN_ASSIGN_OR_RETURN(std::optional<std::string> bytes, BytesOf(v, what));
      if (bytes->size() != 16)
        return Corrupt(what + ": a uuid of " + std::to_string(bytes->size()) + " bytes");
      col.AppendFixedBytes(bytes->data(), 16);
      break;
    }
    default:
      return Refused(what + ": values of type " + type.ToString() + " have no partition form");
  }
  return ValueText(col, 0);
}

// The partially read statistics of one field.
struct StatsParts {
  std::optional<int64_t> values, nulls, nans;
  std::optional<std::string> lower, upper;
};

bool IsParquet(std::string_view format) { return Lower(format) == "parquet"; }

struct ManifestReadState {
  const ManifestFile& manifest;
  const PartitionSpec& spec;
  std::vector<DataType> types;  // of the spec's fields
  FieldIds ids;
  bool has_sequence_fields = false;  // v2+: the entry schema has fields 3 and 4
};

Result<ManifestEntry> ReadEntry(ManifestReadState* st, const avro::Node* root,
                                const avro::Value& value, size_t index) {
  const std::string what = "entry " + std::to_string(index);
  FieldIds* ids = &st->ids;
  const Item entry{root, &value};
  ManifestEntry e;

  TARN_ASSIGN_OR_RETURN(Item status_item, Child(ids, entry, 0, what));
  TARN_ASSIGN_OR_RETURN(int32_t status,
                        Required(IntOf(status_item, what + " status"), what + " status"));
  if (status < 0 || status > 2) {
    return Corrupt(what + " status is " + std::to_string(status) + ", not 0, 1 or 2");
  }
  e.status = static_cast<EntryStatus>(status);
  const bool added = e.status == EntryStatus::kAdded;
  const bool live = e.status != EntryStatus::kDeleted;

  TARN_ASSIGN_OR_RETURN(Item file, Child(ids, entry, 2, what));
  if (file.null()) return Corrupt(what + " has no data_file");
  TARN_ASSIGN_OR_RETURN(Item path, Child(ids, file, 100, what));
  TARN_ASSIGN_OR_RETURN(e.file_path,
                        Required(StringOf(path, what + " file_path"), what + " file_path"));
  const std::string fw = "'" + Shown(e.file_path, 200) + "'";

  // Inherited when null: the snapshot id always; sequence numbers of ADDED entries (and of every
  // entry of a manifest listed with sequence number 0: v1's, which have none).
  TARN_ASSIGN_OR_RETURN(Item snapshot, Child(ids, entry, 1, what));
  TARN_ASSIGN_OR_RETURN(std::optional<int64_t> snapshot_id, LongOf(snapshot, fw + " snapshot_id"));
  e.snapshot_id = snapshot_id.value_or(st->manifest.added_snapshot_id);
  for (auto [id, dst, label] : {std::tuple{3, &e.sequence_number, "sequence_number"},
                                std::tuple{4, &e.file_sequence_number, "file_sequence_number"}}) {
    TARN_ASSIGN_OR_RETURN(Item item, Child(ids, entry, id, what));
    TARN_ASSIGN_OR_RETURN(std::optional<int64_t> seq, LongOf(item, fw + " " + label));
    if (seq) {
      *dst = *seq;
    } else if (added || st->manifest.sequence_number == 0) {
      *dst = st->manifest.sequence_number;
    } else if (live && st->has_sequence_fields) {
      return Corrupt(fw + " is EXISTING without a " + label + " (only ADDED entries inherit)");
    }  // else 0: a v1 manifest has none, a DELETED entry is history
  }

  TARN_ASSIGN_OR_RETURN(Item content, Child(ids, file, 134, what));
  TARN_ASSIGN_OR_RETURN(std::optional<int32_t> c, IntOf(content, fw + " content"));
  e.content = c.value_or(kContentData);
  if (e.content < 0 || e.content > 2) {
    return Corrupt(fw + " content is " + std::to_string(e.content) + ", not 0, 1 or 2");
  }
  if ((e.content == kContentData) != (st->manifest.content == ManifestContent::kData)) {
    return Corrupt(fw + (e.content == kContentData ? " is a data file in a delete manifest"
                                                   : " is a delete file in a data manifest"));
  }
  TARN_ASSIGN_OR_RETURN(Item format, Child(ids, file, 101, what));
  TARN_ASSIGN_OR_RETURN(e.file_format,
                        Required(StringOf(format, fw + " file_format"), fw + " file_format"));
  if (live && e.content != 2 && !IsParquet(e.file_format)) {
    const bool dv = e.content == kContentPositionDeletes && Lower(e.file_format) == "puffin";
    return Refused(fw + (e.content == kContentData ? " is a data file" : " is a delete file") +
                   " of format " + Shown(e.file_format) +
                   (dv ? " (a deletion vector), which tarn does not read yet"
                       : "; tarn reads Parquet files only"));
  }
  TARN_ASSIGN_OR_RETURN(Item records, Child(ids, file, 103, what));
  TARN_ASSIGN_OR_RETURN(e.record_count,
                        Required(LongOf(records, fw + " record_count"), fw + " record_count"));
  TARN_ASSIGN_OR_RETURN(Item size, Child(ids, file, 104, what));
  TARN_ASSIGN_OR_RETURN(e.file_size_in_bytes, Required(LongOf(size, fw + " file_size_in_bytes"),
                                                       fw + " file_size_in_bytes"));
  if (e.record_count < 0 || e.file_size_in_bytes < 0) {
    return Corrupt(fw + " has a negative record count or size");
  }

  // The partition tuple, its fields by the spec's partition field ids.
  TARN_ASSIGN_OR_RETURN(Item partition, Child(ids, file, 102, what));
  if (partition.null() && !st->spec.fields.empty()) return Corrupt(fw + " has no partition");
  for (size_t i = 0; i < st->spec.fields.size(); ++i) {
    const PartitionField& pf = st->spec.fields[i];
    const std::string pw = fw + " partition field '" + pf.name + "'";
    if (partition.node->type != avro::Type::kRecord ||
        st->ids.Find(partition.node, pf.field_id) < 0) {
      return Corrupt(fw + ": the partition tuple has no field " + std::to_string(pf.field_id) +
                     " ('" + pf.name + "')");
    }
    TARN_ASSIGN_OR_RETURN(Item v, Child(ids, partition, pf.field_id, pw));
    if (v.null() || pf.transform.kind == TransformKind::kVoid) {
      e.partition.push_back(std::nullopt);
      continue;
    }
    TARN_ASSIGN_OR_RETURN(std::string text, PartitionText(st->types[i], v, pw));
    e.partition.push_back(std::move(text));
  }

  // Statistics: the maps by field id, merged per field.
  std::map<int32_t, StatsParts> parts;
  auto count_map = [&](int64_t map_id, int64_t key_id, int64_t value_id, const char* label,
                       std::optional<int64_t> StatsParts::*dst) -> Status {
    TARN_ASSIGN_OR_RETURN(Item map, Child(ids, file, map_id, what));
    const std::string mw = fw + " " + label;
    return ForEachIntMap(
        ids, map, key_id, value_id, mw, [&](int32_t key, const Item& value) -> Status {
          TARN_ASSIGN_OR_RETURN(int64_t n, Required(LongOf(value, mw), mw));
          if (n < 0) return Corrupt(mw + " of field " + std::to_string(key) + " is negative");
          parts[key].*dst = n;
          return Status::OK();
        });
  };
  TARN_RETURN_NOT_OK(count_map(109, 119, 120, "value_counts", &StatsParts::values));
  TARN_RETURN_NOT_OK(count_map(110, 121, 122, "null_value_counts", &StatsParts::nulls));
  TARN_RETURN_NOT_OK(count_map(137, 138, 139, "nan_value_counts", &StatsParts::nans));
  auto bound_map = [&](int64_t map_id, int64_t key_id, int64_t value_id, const char* label,
                       std::optional<std::string> StatsParts::*dst) -> Status {
    TARN_ASSIGN_OR_RETURN(Item map, Child(ids, file, map_id, what));
    const std::string mw = fw + " " + label;
    return ForEachIntMap(ids, map, key_id, value_id, mw,
                         [&](int32_t key, const Item& value) -> Status {
                           TARN_ASSIGN_OR_RETURN(parts[key].*dst, BytesOf(value, mw));
                           return Status::OK();
                         });
  };
  TARN_RETURN_NOT_OK(bound_map(125, 126, 127, "lower_bounds", &StatsParts::lower));
  TARN_RETURN_NOT_OK(bound_map(128, 129, 130, "upper_bounds", &StatsParts::upper));
  for (auto& [field_id, p] : parts) {
    ColumnStats s;
    s.field_id = field_id;
    if (p.values && p.nulls) {
      s.value_count = *p.values;
      s.null_count = *p.nulls;
    }
    s.nan_count = p.nans;
    s.lower = std::move(p.lower);
    s.upper = std::move(p.upper);
    e.stats.push_back(std::move(s));
  }

  if (e.content == kContentData) {
    TARN_ASSIGN_OR_RETURN(Item order, Child(ids, file, 140, what));
    TARN_ASSIGN_OR_RETURN(e.sort_order_id, IntOf(order, fw + " sort_order_id"));
    TARN_ASSIGN_OR_RETURN(Item first_row_id, Child(ids, file, 142, what));
    TARN_ASSIGN_OR_RETURN(e.first_row_id, LongOf(first_row_id, fw + " first_row_id"));
  }
  return e;
}

Result<std::vector<ManifestEntry>> ReadManifestAvro(std::string bytes, const ManifestFile& manifest,
                                                    const PartitionSpec& spec,
                                                    const Schema& schema) {
  if (spec.spec_id != manifest.partition_spec_id) {
    return Status::InvalidArgument("the manifest is of partition spec " +
                                   std::to_string(manifest.partition_spec_id) + ", not " +
                                   std::to_string(spec.spec_id));
  }
  ManifestReadState st{manifest, spec, {}, {}, false};
  TARN_ASSIGN_OR_RETURN(st.types, PartitionTypes(spec, schema));
  TARN_ASSIGN_OR_RETURN(auto reader, OpenAvro(std::move(bytes)));

  // The header agrees with the manifest list where it says something.
  if (auto id = reader->FindMetadata("partition-spec-id")) {
    if (*id != std::to_string(spec.spec_id)) {
      return Corrupt("the manifest says it is of partition spec '" + Shown(*id) +
                     "'; the manifest list says " + std::to_string(spec.spec_id));
    }
  }
  if (auto content = reader->FindMetadata("content")) {
    const bool deletes = manifest.content == ManifestContent::kDeletes;
    if (*content != (deletes ? "deletes" : "data")) {
      return Corrupt("the manifest holds '" + Shown(*content) + "'; the manifest list says " +
                     (deletes ? "deletes" : "data"));
    }
  }
  const avro::Node* root = &reader->schema().root();
  st.has_sequence_fields = st.ids.Find(root, 3) >= 0 || st.ids.Find(root, 4) >= 0;

  std::vector<ManifestEntry> out;
  avro::Value value;
  for (;;) {
    auto more = reader->Next(&value);
    if (!more.ok()) return MapCodecError(more.status());
    if (!*more) break;
    TARN_ASSIGN_OR_RETURN(ManifestEntry e, ReadEntry(&st, root, value, out.size()));
    out.push_back(std::move(e));
  }

  // First row ids as Java's ManifestReader assigns them: a data manifest listed with one gives
  // each live data file without its own the next ids, in file order; without one (a table
  // upgraded to v3), no file has any.
  if (manifest.content == ManifestContent::kData) {
    if (manifest.first_row_id) {
      int64_t next = *manifest.first_row_id;
      for (ManifestEntry& e : out) {
        if (e.status == EntryStatus::kDeleted || e.first_row_id) continue;
        e.first_row_id = next;
        if (next > kInt64Max - e.record_count) return Corrupt("first row ids past 2^63 - 1");
        next += e.record_count;
      }
    } else {
      for (ManifestEntry& e : out) e.first_row_id.reset();
    }
  }
  return out;
}

// ---- Position delete files ----

Result<std::map<std::string, std::vector<uint64_t>>> ReadPositionDeletesParquet(
    std::string bytes, uint64_t max_positions) {
  parquet::ReaderOptions options;
  options.threads = 1;
  options.skip_unsupported = true;
  TARN_ASSIGN_OR_RETURN(
      auto reader,
      parquet::FileReader::Open(MemoryFile(std::move(bytes), "position delete file"), options));
  const Schema& schema = reader->schema().schema;
  int path_index = -1, pos_index = -1;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    if (schema.fields[i].field_id == kDeleteFilePathFieldId && path_index < 0) {
      path_index = static_cast<int>(i);
    }
    if (schema.fields[i].field_id == kDeletePosFieldId && pos_index < 0) {
      pos_index = static_cast<int>(i);
    }
  }
  if (path_index < 0 || pos_index < 0) {
    return Corrupt(std::string("a position delete file without its ") +
                   (path_index < 0 ? "file_path" : "pos") + " column (field id " +
                   std::to_string(path_index < 0 ? kDeleteFilePathFieldId : kDeletePosFieldId) +
                   ")");
  }
  const DataType& path_type = schema.fields[static_cast<size_t>(path_index)].type;
  const DataType& pos_type = schema.fields[static_cast<size_t>(pos_index)].type;
  if (path_type.id() != TypeId::kVarchar || pos_type.id() != TypeId::kInt64) {
    return Corrupt("a position delete file whose file_path is " + path_type.ToString() +
                   " and pos " + pos_type.ToString() + " (string and long expected)");
  }
  // Rows are bounded before anything is read: pages compress well, memory does not.
  uint64_t rows = 0;
  for (const auto& group : reader->metadata().row_groups) {
    if (group.num_rows < 0) return Corrupt("a row group of a negative number of rows");
    rows += static_cast<uint64_t>(group.num_rows);
    if (rows > max_positions) {
      return Status::TooLarge("a position delete file of more than " +
                              std::to_string(max_positions) + " positions");
    }
  }

  std::map<std::string, std::vector<uint64_t>> out;
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    TARN_ASSIGN_OR_RETURN(RecordBatch batch, reader->ReadRowGroup(g, {path_index, pos_index}));
    if (batch.columns.size() != 2) return Corrupt("a row group without its two columns");
    const Column& paths = batch.columns[0];
    const Column& positions = batch.columns[1];
    if (paths.length != batch.num_rows || positions.length != batch.num_rows) {
      return Corrupt("columns of different lengths");
    }
    std::vector<uint64_t>* current = nullptr;
    std::string_view current_path;
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      if (!paths.IsValid(i) || !positions.IsValid(i)) {
        return Corrupt("row " + std::to_string(i) + " of row group " + std::to_string(g) +
                       " has a null file_path or pos");
      }
      const int64_t pos = positions.Value<int64_t>(i);
      if (pos < 0) return Corrupt("a negative position (" + std::to_string(pos) + ")");
      const std::string_view path = paths.StringAt(i);
      if (current == nullptr || path != current_path) {
        current = &out[std::string(path)];
        current_path = path;
      }
      current->push_back(static_cast<uint64_t>(pos));
    }
  }
  for (auto& [path, positions] : out) {
    if (!std::is_sorted(positions.begin(), positions.end())) {
      std::sort(positions.begin(), positions.end());
    }
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  }
  return out;
}

// Runs `f`, turning an exception nlohmann (or anything else) might still throw into
// kCorruption: hostile input never escapes as an exception.
template <typename F>
auto Guarded(const char* what, F f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    return Corrupt(std::string(what) + ": " + e.what());
  }
}

}  // namespace

const PartitionSpec* ImportedTable::FindSpec(int32_t spec_id) const {
  for (const PartitionSpec& s : specs) {
    if (s.spec_id == spec_id) return &s;
  }
  return nullptr;
}

Result<Schema> ImportSchema(const Json& schema) {
  return Guarded("the schema", [&]() -> Result<Schema> {
    if (!schema.is_object()) return Corrupt("a schema is not a JSON object");
    if (const Json* type = Member(schema, "type");
        type != nullptr && (!type->is_string() || *type != "struct")) {
      return Corrupt("a schema's \"type\" is not \"struct\"");
    }
    const Json* fields = Member(schema, "fields");
    if (fields == nullptr || !fields->is_array()) return Corrupt("a schema without \"fields\"");
    SchemaReader reader;
    Schema out;
    std::set<std::string> names;
    for (const Json& f : *fields) {
      TARN_ASSIGN_OR_RETURN(Field field, reader.StructField(f, "", 0));
      if (!names.insert(Lower(field.name)).second) {
        return Refused("two columns named '" + field.name +
                       "' (tarn's names differ in more than case)");
      }
      out.fields.push_back(std::move(field));
    }
    return out;
  });
}

Result<ImportedTable> ParseTableMetadata(std::string_view json) {
  return Guarded("the table metadata", [&] { return ParseTableMetadataJson(json); });
}

Result<std::vector<ManifestFile>> ReadManifestList(std::string bytes) {
  auto out = Guarded("the manifest list", [&] { return ReadManifestListAvro(std::move(bytes)); });
  if (!out.ok()) return out.status().WithContext("Iceberg manifest list");
  return out;
}

Result<std::vector<ManifestEntry>> ReadManifest(std::string bytes, const ManifestFile& manifest,
                                                const PartitionSpec& spec, const Schema& schema) {
  auto out = Guarded("the manifest",
                     [&] { return ReadManifestAvro(std::move(bytes), manifest, spec, schema); });
  if (!out.ok())
    return out.status().WithContext("manifest '" + Shown(manifest.manifest_path, 200) + "'");
  return out;
}

Result<std::map<std::string, std::vector<uint64_t>>> ReadPositionDeletes(std::string bytes,
                                                                         uint64_t max_positions) {
  return Guarded("the position delete file",
                 [&] { return ReadPositionDeletesParquet(std::move(bytes), max_positions); });
}

}  // namespace tarn::iceberg

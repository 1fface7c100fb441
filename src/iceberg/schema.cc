#include "iceberg/schema.h"

#include <utility>

#include "types/iceberg.h"

namespace tarn::iceberg {
namespace {

Status CheckVersion(int format_version) {
  if (format_version < kMinFormatVersion || format_version > kMaxFormatVersion) {
    return Status::InvalidArgument("Iceberg format version " + std::to_string(format_version) +
                                   " is not written (2 or 3)");
  }
  return Status::OK();
}

// Every nested field of `type` has an id (ids are what Iceberg readers project by).
Status CheckIds(const DataType& type, const std::string& path) {
  for (const Field& f : type.children()) {
    const std::string p = path + "." + f.name;
    if (f.field_id < 0) return Status::InvalidArgument("field '" + p + "' has no field id");
    TARN_RETURN_NOT_OK(CheckIds(f.type, p));
  }
  return Status::OK();
}

// Why an Iceberg reader of `version` cannot be shown a column of scalar `type` as its bound
// encoding's type (types/iceberg.h IcebergTypeName) says, or "" when it can. The bounds and
// hashes are Iceberg's for every type; what differs is how the data files store some values:
//  - UINT32 and IPV4 are Parquet INT32 (UINT_32): a reader that ignores the annotation reads
//    values above 2^31 as negative numbers, not as the longs the name promises;
//  - UINT64 is Parquet INT64 (UINT_64), not the decimal(20,0) the name says;
//  - TIMESTAMP[s] and [ms] are stored in their own unit, Iceberg's timestamp is microseconds;
//  - TIME[ns] has no Iceberg type; [ns] timestamps and VARIANT need format version 3.
std::string Unreadable(const DataType& type, int version) {
  switch (type.id()) {
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      return "stored as Parquet INT32 (UINT_32): a reader that ignores the annotation would read "
             "values above 2^31 as negative";
    case TypeId::kUInt64:
      return "stored as Parquet INT64 (UINT_64); no Iceberg type reads it as such";
    case TypeId::kTime:
      return type.unit() == TimeUnit::kMicro ? ""
                                             : "Iceberg's time is microseconds; this is TIME[ns]";
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (type.unit() == TimeUnit::kSecond || type.unit() == TimeUnit::kMilli) {
        return "stored in " +
               std::string(type.unit() == TimeUnit::kSecond ? "seconds" : "milliseconds") +
               "; Iceberg timestamps are microseconds";
      }
      if (type.unit() == TimeUnit::kNano && version < 3) {
        return "nanosecond timestamps need Iceberg format version 3";
      }
      return "";
    case TypeId::kVariant:
      return version < 3 ? "variant needs Iceberg format version 3" : "";
    default:
      return "";
  }
}

}  // namespace

std::optional<Json> IcebergType(const DataType& type, int version, const std::string& path,
                                std::vector<OmittedColumn>* omitted, std::string* why) {
  if (!type.is_nested()) {
    *why = Unreadable(type, version);
    if (!why->empty()) return std::nullopt;
    return Json(IcebergTypeName(type));
  }
  switch (type.id()) {
    case TypeId::kArray: {
      const Field& e = type.element_field();
      std::string inner;
      auto et = IcebergType(e.type, version, path + ".element", omitted, &inner);
      if (!et) {
        *why = "its elements: " + inner;
        return std::nullopt;
      }
      return Json{{"type", "list"},
                  {"element-id", e.field_id},
                  {"element", std::move(*et)},
                  {"element-required", !e.nullable}};
    }
    case TypeId::kMap: {
      const Field& k = type.key_field();
      const Field& v = type.value_field();
      std::string inner;
      auto kt = IcebergType(k.type, version, path + ".key", omitted, &inner);
      if (!kt) {
        *why = "its keys: " + inner;
        return std::nullopt;
      }
      auto vt = IcebergType(v.type, version, path + ".value", omitted, &inner);
      if (!vt) {
        *why = "its values: " + inner;
        return std::nullopt;
      }
      return Json{{"type", "map"},           {"key-id", k.field_id},
                  {"key", std::move(*kt)},   {"value-id", v.field_id},
                  {"value", std::move(*vt)}, {"value-required", !v.nullable}};
    }
    case TypeId::kStruct: {
      Json fields = Json::array();
      for (const Field& m : type.children()) {
        const std::string p = path + "." + m.name;
        std::string inner;
        auto mt = IcebergType(m.type, version, p, omitted, &inner);
        if (!mt) {
          omitted->push_back({p, inner});
          continue;
        }
        fields.push_back(
            {{"id", m.field_id}, {"name", m.name}, {"required", !m.nullable}, {"type", *mt}});
      }
      return Json{{"type", "struct"}, {"fields", std::move(fields)}};
    }
    default:
      break;
  }
  *why = "type " + type.ToString() + " has no Iceberg form";
  return std::nullopt;
}

Result<Json> SchemaJson(const Schema& schema, int32_t schema_id, int format_version,
                        std::vector<OmittedColumn>* omitted) {
  TARN_RETURN_NOT_OK(CheckVersion(format_version));
  Json fields = Json::array();
  for (const Field& f : schema.fields) {
    if (f.field_id < 0) return Status::InvalidArgument("column '" + f.name + "' has no field id");
    TARN_RETURN_NOT_OK(CheckIds(f.type, f.name));
    std::string why;
    auto t = IcebergType(f.type, format_version, f.name, omitted, &why);
    if (!t) {
      omitted->push_back({f.name, why});
      continue;
    }
    fields.push_back(
        {{"id", f.field_id}, {"name", f.name}, {"required", !f.nullable}, {"type", std::move(*t)}});
  }
  return Json{{"type", "struct"}, {"schema-id", schema_id}, {"fields", std::move(fields)}};
}

std::optional<std::string> ParquetSchemaJson(const Schema& schema, int32_t schema_id) {
  std::vector<OmittedColumn> omitted;
  auto json = SchemaJson(schema, schema_id, kMaxFormatVersion, &omitted);
  if (!json.ok()) return std::nullopt;
  return json->dump();
}

}  // namespace tarn::iceberg

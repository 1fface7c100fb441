#include "iceberg/schema.h"

#include <utility>

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

// A timestamp of `unit`: "timestamp"/"timestamptz" for microseconds, the _ns names (v3) for
// nanoseconds; seconds and milliseconds are stored in their own unit, which Iceberg's timestamp
// (always microseconds) does not describe.
std::optional<Json> Timestamp(bool zoned, TimeUnit unit, int version, std::string* why) {
  const std::string base = zoned ? "timestamptz" : "timestamp";
  if (unit == TimeUnit::kMicro) return Json(base);
  if (unit == TimeUnit::kNano) {
    if (version >= 3) return Json(base + "_ns");
    *why = "nanosecond timestamps need Iceberg format version 3";
    return std::nullopt;
  }
  *why = std::string("Iceberg timestamps are microseconds; this column is stored in ") +
         (unit == TimeUnit::kSecond ? "seconds" : "milliseconds");
  return std::nullopt;
}

}  // namespace

std::optional<Json> IcebergType(const DataType& type, int version, const std::string& path,
                                std::vector<OmittedColumn>* omitted, std::string* why) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return Json("boolean");
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
      return Json("int");  // Parquet INT32, every value fits
    case TypeId::kInt64:
      return Json("long");
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      *why =
          "stored as Parquet INT32 (UINT_32): a reader that ignores the annotation would read "
          "values above 2^31 as negative";
      return std::nullopt;
    case TypeId::kUInt64:
      *why = "no Iceberg type holds unsigned 64-bit integers";
      return std::nullopt;
    case TypeId::kFloat32:
      return Json("float");
    case TypeId::kFloat64:
      return Json("double");
    case TypeId::kDecimal:
      return Json("decimal(" + std::to_string(type.precision()) + ", " +
                  std::to_string(type.scale()) + ")");
    case TypeId::kVarchar:
    case TypeId::kJson:
      return Json("string");
    case TypeId::kBlob:
      return Json("binary");
    case TypeId::kUuid:
      return Json("uuid");
    case TypeId::kDate:
      return Json("date");
    case TypeId::kTime:
      if (type.unit() == TimeUnit::kMicro) return Json("time");
      *why = "Iceberg's time is microseconds; this column is TIME[ns]";
      return std::nullopt;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return Timestamp(type.id() == TypeId::kTimestampTz, type.unit(), version, why);
    case TypeId::kVariant:
      if (version >= 3) return Json("variant");
      *why = "variant needs Iceberg format version 3";
      return std::nullopt;
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

}  // namespace tarn::iceberg

// tarn schema -> Parquet schema elements (the mapping documented in schema.h).
#include <unordered_set>

#include "parquet/column_writer.h"
#include "parquet/schema.h"

namespace tarn::parquet {

const DataType& StoredShape(const DataType& type) {
  if (type.id() != TypeId::kVariant) return type;
  static const DataType kVariantShape = [] {
    std::vector<Field> members(2);
    members[0].name = kVariantMetadataName;
    members[1].name = kVariantValueName;
    for (Field& m : members) {
      m.type = DataType::Blob();
      m.nullable = false;
    }
    return DataType::Struct(std::move(members));
  }();
  return kVariantShape;
}

int DecimalFlbaWidth(int precision) {
  // Smallest n with 10^precision - 1 <= 2^(8n-1) - 1.
  uint128 max_unscaled = 1;
  for (int i = 0; i < precision; ++i) max_unscaled *= 10;
  max_unscaled -= 1;
  for (int n = 1; n < 16; ++n) {
    if (max_unscaled <= (static_cast<uint128>(1) << (8 * n - 1)) - 1) return n;
  }
  return 16;
}

PhysicalMapping PhysicalFor(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBoolean:
      return {Type::BOOLEAN, 0, StatsOrder::kSigned};
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
      return {Type::INT32, 0, StatsOrder::kSigned};
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      return {Type::INT32, 0, StatsOrder::kUnsigned};
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return {Type::INT64, 0, StatsOrder::kSigned};
    case TypeId::kUInt64:
      return {Type::INT64, 0, StatsOrder::kUnsigned};
    case TypeId::kFloat32:
      return {Type::FLOAT, 0, StatsOrder::kFloat};
    case TypeId::kFloat64:
      return {Type::DOUBLE, 0, StatsOrder::kFloat};
    case TypeId::kDecimal:
      if (t.precision() <= 9) return {Type::INT32, 0, StatsOrder::kSigned};
      if (t.precision() <= 18) return {Type::INT64, 0, StatsOrder::kSigned};
      return {Type::FIXED_LEN_BYTE_ARRAY, DecimalFlbaWidth(t.precision()),
              StatsOrder::kSignedBigEndian};
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson:
      return {Type::BYTE_ARRAY, 0, StatsOrder::kBytes};
    case TypeId::kUuid:
      return {Type::FIXED_LEN_BYTE_ARRAY, 16, StatsOrder::kBytes};
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:
      break;
  }
  return {Type::BYTE_ARRAY, 0, StatsOrder::kBytes};  // not reached for leaves
}

namespace {

LogicalType IntLogical(int bits, bool is_signed) {
  LogicalType l;
  l.kind = LogicalType::INTEGER;
  l.bit_width = static_cast<int8_t>(bits);
  l.is_signed = is_signed;
  return l;
}

LogicalType KindOnly(LogicalType::Kind kind) {
  LogicalType l;
  l.kind = kind;
  return l;
}

LogicalType TimeLogical(LogicalType::Kind kind, TimeUnitKind unit, bool utc) {
  LogicalType l;
  l.kind = kind;
  l.unit = unit;
  l.is_adjusted_to_utc = utc;
  return l;
}

// Fills the type annotations of a primitive element.
void AnnotateLeaf(const DataType& t, SchemaElement* e) {
  PhysicalMapping pm = PhysicalFor(t);
  e->type = pm.type;
  if (pm.type == Type::FIXED_LEN_BYTE_ARRAY) e->type_length = pm.type_length;
  switch (t.id()) {
    case TypeId::kInt8:
      e->logical_type = IntLogical(8, true);
      e->converted_type = ConvertedType::INT_8;
      break;
    case TypeId::kInt16:
      e->logical_type = IntLogical(16, true);
      e->converted_type = ConvertedType::INT_16;
      break;
    case TypeId::kInt32:
      e->logical_type = IntLogical(32, true);
      e->converted_type = ConvertedType::INT_32;
      break;
    case TypeId::kUInt8:
      e->logical_type = IntLogical(8, false);
      e->converted_type = ConvertedType::UINT_8;
      break;
    case TypeId::kUInt16:
      e->logical_type = IntLogical(16, false);
      e->converted_type = ConvertedType::UINT_16;
      break;
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      e->logical_type = IntLogical(32, false);
      e->converted_type = ConvertedType::UINT_32;
      break;
    case TypeId::kUInt64:
      e->logical_type = IntLogical(64, false);
      e->converted_type = ConvertedType::UINT_64;
      break;
    case TypeId::kDecimal: {
      LogicalType l;
      l.kind = LogicalType::DECIMAL;
      l.decimal_precision = t.precision();
      l.decimal_scale = t.scale();
      e->logical_type = l;
      e->converted_type = ConvertedType::DECIMAL;
      e->precision = t.precision();
      e->scale = t.scale();
      break;
    }
    case TypeId::kVarchar:
      e->logical_type = KindOnly(LogicalType::STRING);
      e->converted_type = ConvertedType::UTF8;
      break;
    case TypeId::kJson:
      e->logical_type = KindOnly(LogicalType::JSON);
      e->converted_type = ConvertedType::JSON;
      break;
    case TypeId::kDate:
      e->logical_type = KindOnly(LogicalType::DATE);
      e->converted_type = ConvertedType::DATE;
      break;
    case TypeId::kTime:
      if (t.unit() == TimeUnit::kNano) {  // no converted type for nanoseconds
        e->logical_type = TimeLogical(LogicalType::TIME, TimeUnitKind::NANOS, false);
        break;
      }
      e->logical_type = TimeLogical(LogicalType::TIME, TimeUnitKind::MICROS, false);
      e->converted_type = ConvertedType::TIME_MICROS;
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      bool utc = t.id() == TypeId::kTimestampTz;
      switch (t.unit()) {
        case TimeUnit::kSecond:  // stored as milliseconds
        case TimeUnit::kMilli:
          e->logical_type = TimeLogical(LogicalType::TIMESTAMP, TimeUnitKind::MILLIS, utc);
          e->converted_type = ConvertedType::TIMESTAMP_MILLIS;
          break;
        case TimeUnit::kMicro:
          e->logical_type = TimeLogical(LogicalType::TIMESTAMP, TimeUnitKind::MICROS, utc);
          e->converted_type = ConvertedType::TIMESTAMP_MICROS;
          break;
        case TimeUnit::kNano:
          e->logical_type = TimeLogical(LogicalType::TIMESTAMP, TimeUnitKind::NANOS, utc);
          break;
      }
      break;
    }
    case TypeId::kUuid:
      e->logical_type = KindOnly(LogicalType::UUID);
      break;
    default:
      break;  // BOOLEAN, INT64, FLOAT32, FLOAT64, BLOB: no annotation
  }
}

SchemaElement GroupElement(std::string name, Repetition repetition, size_t children) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = repetition;
  e.num_children = static_cast<int32_t>(children);
  return e;
}

// Appends the elements of one field (a top-level field or a nested one) depth first.
Status AppendField(const std::string& path, const Field& field, int depth,
                   std::vector<SchemaElement>* out) {
  if (depth > kMaxNesting) {
    return Status::InvalidArgument("field " + path + ": nested deeper than " +
                                   std::to_string(kMaxNesting) + " levels");
  }
  const DataType& type = field.type;
  const Repetition repetition = field.nullable ? Repetition::OPTIONAL : Repetition::REQUIRED;
  const size_t at = out->size();
  if (type.id() == TypeId::kVariant) {
    if (depth > 0) {
      return Status::InvalidArgument("field " + path + ": VARIANT only as a top-level column");
    }
    // The unshredded form: the group's id is the column's, its two leaves have none.
    SchemaElement g = GroupElement(field.name, repetition, 2);
    g.logical_type = KindOnly(LogicalType::VARIANT);
    g.logical_type->variant_version = kVariantSpecVersion;
    out->push_back(std::move(g));
    for (const char* name : {kVariantMetadataName, kVariantValueName}) {
      SchemaElement e;
      e.name = name;
      e.repetition_type = Repetition::REQUIRED;
      e.type = Type::BYTE_ARRAY;
      out->push_back(std::move(e));
    }
  } else if (!type.is_nested()) {
    SchemaElement e;
    e.name = field.name;
    e.repetition_type = repetition;
    AnnotateLeaf(type, &e);
    out->push_back(std::move(e));
  } else if (type.id() == TypeId::kStruct) {
    if (type.children().empty()) {
      return Status::InvalidArgument("field " + path + ": a STRUCT without members");
    }
    out->push_back(GroupElement(field.name, repetition, type.children().size()));
    std::unordered_set<std::string> names;
    for (const Field& m : type.children()) {
      if (m.name.empty())
        return Status::InvalidArgument("field " + path + ": a member has no name");
      if (!names.insert(m.name).second) {
        return Status::InvalidArgument("field " + path + ": duplicate member name " + m.name);
      }
      TARN_RETURN_NOT_OK(AppendField(path + "." + m.name, m, depth + 1, out));
    }
  } else {
    // LIST and MAP: an annotated group, a repeated group, the element or the key and value.
    const bool list = type.id() == TypeId::kArray;
    SchemaElement e = GroupElement(field.name, repetition, 1);
    e.converted_type = list ? ConvertedType::LIST : ConvertedType::MAP;
    e.logical_type = KindOnly(list ? LogicalType::LIST : LogicalType::MAP);
    out->push_back(std::move(e));
    out->push_back(GroupElement(list ? kListRepeatedName : kMapRepeatedName, Repetition::REPEATED,
                                type.children().size()));
    for (const Field& c : type.children()) {
      TARN_RETURN_NOT_OK(AppendField(path + "." + c.name, c, depth + 1, out));
    }
  }
  if (field.field_id >= 0) (*out)[at].field_id = field.field_id;
  return Status::OK();
}

}  // namespace

Result<std::vector<SchemaElement>> SchemaToParquet(const Schema& schema) {
  std::vector<SchemaElement> out;
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(schema.fields.size());
  out.push_back(std::move(root));
  std::unordered_set<std::string> names;
  for (const Field& f : schema.fields) {
    if (f.name.empty()) return Status::InvalidArgument("a field has an empty name");
    if (!names.insert(f.name).second) {
      return Status::InvalidArgument("duplicate field name: " + f.name);
    }
    TARN_RETURN_NOT_OK(AppendField(f.name, f, 0, &out));
  }
  return out;
}

}  // namespace tarn::parquet

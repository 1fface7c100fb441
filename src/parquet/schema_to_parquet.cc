// tarn schema -> Parquet schema elements (the mapping documented in schema.h).
#include <unordered_set>

#include "parquet/column_writer.h"
#include "parquet/schema.h"

namespace tarn::parquet {

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

Status AppendField(const std::string& name, const DataType& type, bool nullable, int32_t field_id,
                   int depth, std::vector<SchemaElement>* out) {
  if (depth > kMaxArrayNesting) {
    return Status::InvalidArgument("field " + name + ": arrays nested deeper than " +
                                   std::to_string(kMaxArrayNesting) + " levels");
  }
  SchemaElement e;
  e.name = name;
  e.repetition_type = nullable ? Repetition::OPTIONAL : Repetition::REQUIRED;
  if (field_id >= 0) e.field_id = field_id;
  if (type.id() == TypeId::kStruct || type.id() == TypeId::kMap) {
    return Status::InvalidArgument("field " + name + ": writing " + type.ToString() +
                                   " to Parquet is not supported yet");
  }
  if (type.id() != TypeId::kArray) {
    AnnotateLeaf(type, &e);
    out->push_back(std::move(e));
    return Status::OK();
  }
  e.num_children = 1;
  e.converted_type = ConvertedType::LIST;
  e.logical_type = KindOnly(LogicalType::LIST);
  out->push_back(std::move(e));
  SchemaElement list;
  list.name = "list";
  list.repetition_type = Repetition::REPEATED;
  list.num_children = 1;
  out->push_back(std::move(list));
  const Field& element = type.element_field();
  return AppendField("element", element.type, element.nullable, element.field_id, depth + 1, out);
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
    TARN_RETURN_NOT_OK(AppendField(f.name, f.type, f.nullable, f.field_id, 0, &out));
  }
  return out;
}

}  // namespace tarn::parquet

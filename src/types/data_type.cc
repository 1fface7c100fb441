#include "types/data_type.h"

#include <cassert>

namespace tarn {

DataType DataType::Decimal(int precision, int scale) {
  assert(precision >= 1 && precision <= 38 && scale >= 0 && scale <= precision);
  DataType t(TypeId::kDecimal);
  t.precision_ = static_cast<uint8_t>(precision);
  t.scale_ = static_cast<uint8_t>(scale);
  return t;
}

DataType DataType::Timestamp(TimeUnit unit) {
  DataType t(TypeId::kTimestamp);
  t.unit_ = unit;
  return t;
}

DataType DataType::TimestampTz(TimeUnit unit) {
  DataType t(TypeId::kTimestampTz);
  t.unit_ = unit;
  return t;
}

DataType DataType::Array(DataType element) {
  DataType t(TypeId::kArray);
  t.element_ = std::make_shared<const DataType>(std::move(element));
  return t;
}

bool DataType::is_integer() const { return id_ >= TypeId::kInt8 && id_ <= TypeId::kUInt64; }
bool DataType::is_signed_integer() const {
  return id_ >= TypeId::kInt8 && id_ <= TypeId::kInt64;
}
bool DataType::is_floating() const { return id_ == TypeId::kFloat32 || id_ == TypeId::kFloat64; }
bool DataType::is_variable_width() const {
  return id_ == TypeId::kVarchar || id_ == TypeId::kBlob || id_ == TypeId::kJson;
}

int DataType::PhysicalWidth() const {
  switch (id_) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate:
    case TypeId::kIpv4:
      return 4;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return 8;
    case TypeId::kDecimal:
    case TypeId::kUuid:
      return 16;
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson:
    case TypeId::kArray:
      return 0;
  }
  return 0;
}

bool operator==(const DataType& a, const DataType& b) {
  if (a.id_ != b.id_) return false;
  switch (a.id_) {
    case TypeId::kDecimal:
      return a.precision_ == b.precision_ && a.scale_ == b.scale_;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return a.unit_ == b.unit_;
    case TypeId::kArray:
      return *a.element_ == *b.element_;
    default:
      return true;
  }
}

std::string_view TimeUnitSuffix(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "us";
}

}  // namespace tarn

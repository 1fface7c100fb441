#include "table/ordered_key.h"

#include <cstring>

#include "types/value_text.h"

namespace tarn {

namespace {

template <typename U>
void PutBigEndian(U v, std::string* out) {
  char buf[sizeof(U)];
  for (size_t i = 0; i < sizeof(U); ++i) {
    buf[i] = static_cast<char>(static_cast<uint8_t>(v >> (8 * (sizeof(U) - 1 - i))));
  }
  out->append(buf, sizeof(U));
}

template <typename S, typename U>
void PutSigned(const Column& col, int64_t row, std::string* out) {
  S v = col.Value<S>(row);
  U u = static_cast<U>(v) ^ (U{1} << (8 * sizeof(U) - 1));
  PutBigEndian<U>(u, out);
}

template <typename U>
void PutUnsigned(const Column& col, int64_t row, std::string* out) {
  PutBigEndian<U>(col.Value<U>(row), out);
}

template <typename F, typename U>
void PutFloat(const Column& col, int64_t row, std::string* out) {
  F f = col.Value<F>(row);
  U bits;
  std::memcpy(&bits, &f, sizeof(U));
  constexpr U kSign = U{1} << (8 * sizeof(U) - 1);
  bits = (bits & kSign) ? ~bits : (bits | kSign);
  PutBigEndian<U>(bits, out);
}

}  // namespace

void AppendOrderedKey(const Column& col, int64_t row, std::string* out) {
  if (!col.IsValid(row)) return;
  switch (col.type.id()) {
    case TypeId::kBoolean:
      out->push_back(col.Value<uint8_t>(row) ? 1 : 0);
      return;
    case TypeId::kInt8:
      return PutSigned<int8_t, uint8_t>(col, row, out);
    case TypeId::kInt16:
      return PutSigned<int16_t, uint16_t>(col, row, out);
    case TypeId::kInt32:
    case TypeId::kDate:
      return PutSigned<int32_t, uint32_t>(col, row, out);
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return PutSigned<int64_t, uint64_t>(col, row, out);
    case TypeId::kUInt8:
      return PutUnsigned<uint8_t>(col, row, out);
    case TypeId::kUInt16:
      return PutUnsigned<uint16_t>(col, row, out);
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      return PutUnsigned<uint32_t>(col, row, out);
    case TypeId::kUInt64:
      return PutUnsigned<uint64_t>(col, row, out);
    case TypeId::kFloat32:
      return PutFloat<float, uint32_t>(col, row, out);
    case TypeId::kFloat64:
      return PutFloat<double, uint64_t>(col, row, out);
    case TypeId::kDecimal:
      return PutSigned<int128, uint128>(col, row, out);
    case TypeId::kUuid:
      out->append(reinterpret_cast<const char*>(col.data.data()) + row * 16, 16);
      return;
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson:
      out->append(col.StringAt(row));
      return;
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:
      return;
  }
}

std::string OrderedKey(const Column& col, int64_t row) {
  std::string out;
  AppendOrderedKey(col, row, &out);
  return out;
}

Result<std::string> OrderedKeyFromText(const DataType& type, std::string_view canonical_text) {
  if (type.is_nested() || type.id() == TypeId::kVariant) {
    return Status::InvalidArgument("no ordered key for " + type.ToString());
  }
  Column c(type);
  TARN_RETURN_NOT_OK(AppendParsedValue(canonical_text, &c));
  return OrderedKey(c, 0);
}

}  // namespace tarn

#include "types/iceberg.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/hash.h"
#include "types/value_text.h"

namespace tarn {

namespace {

enum class IcebergKind {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kString,
  kBinary,
  kDate,
  kTime,
  kTimeNs,     // TIME[ns]: no Iceberg type; bounds as 8-byte nanoseconds like timestamp_ns
  kTimestamp,  // micros
  kTimestampNs,
  kUuid,
  kNested,   // list, struct, map
  kVariant,  // Iceberg v3's variant: no bounds, not bucketable
};

IcebergKind KindOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return IcebergKind::kBoolean;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
      return IcebergKind::kInt;
    case TypeId::kInt64:
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      return IcebergKind::kLong;
    case TypeId::kUInt64:
    case TypeId::kDecimal:
      return IcebergKind::kDecimal;
    case TypeId::kFloat32:
      return IcebergKind::kFloat;
    case TypeId::kFloat64:
      return IcebergKind::kDouble;
    case TypeId::kVarchar:
    case TypeId::kJson:
      return IcebergKind::kString;
    case TypeId::kBlob:
      return IcebergKind::kBinary;
    case TypeId::kDate:
      return IcebergKind::kDate;
    case TypeId::kTime:
      return type.unit() == TimeUnit::kNano ? IcebergKind::kTimeNs : IcebergKind::kTime;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return type.unit() == TimeUnit::kNano ? IcebergKind::kTimestampNs : IcebergKind::kTimestamp;
    case TypeId::kUuid:
      return IcebergKind::kUuid;
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
      return IcebergKind::kNested;
    case TypeId::kVariant:
      return IcebergKind::kVariant;
  }
  return IcebergKind::kBinary;
}

template <typename T>
T Load(std::string_view physical) {
  T v;
  std::memcpy(&v, physical.data(), sizeof(T));
  return v;
}

void AppendLe(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t ReadLe(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  }
  return v;
}

// Minimal two's-complement big-endian bytes of v (Java's BigInteger.toByteArray()).
size_t MinimalBigEndian(int128 v, uint8_t out[16]) {
  uint8_t full[16];
  uint128 u = static_cast<uint128>(v);
  for (int i = 15; i >= 0; --i) {
    full[i] = static_cast<uint8_t>(u & 0xFF);
    u >>= 8;
  }
  int start = 0;
  while (start < 15) {
    const bool redundant_zero = full[start] == 0x00 && (full[start + 1] & 0x80) == 0;
    const bool redundant_ones = full[start] == 0xFF && (full[start + 1] & 0x80) != 0;
    if (!redundant_zero && !redundant_ones) break;
    ++start;
  }
  const size_t len = 16 - start;
  std::memcpy(out, full + start, len);
  return len;
}

// Integer-like value of a fixed-width physical value widened to int64 (for int/long kinds).
int64_t LoadAsInt64(TypeId id, std::string_view physical) {
  switch (id) {
    case TypeId::kInt8:
      return Load<int8_t>(physical);
    case TypeId::kInt16:
      return Load<int16_t>(physical);
    case TypeId::kInt32:
      return Load<int32_t>(physical);
    case TypeId::kInt64:
      return Load<int64_t>(physical);
    case TypeId::kUInt8:
      return Load<uint8_t>(physical);
    case TypeId::kUInt16:
      return Load<uint16_t>(physical);
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      return Load<uint32_t>(physical);
    case TypeId::kDate:
      return Load<int32_t>(physical);
    case TypeId::kTime:
      return Load<int64_t>(physical);
    default:
      return 0;
  }
}

int128 LoadDecimalUnscaled(const DataType& type, std::string_view physical) {
  if (type.id() == TypeId::kUInt64) return static_cast<int128>(Load<uint64_t>(physical));
  return Load<int128>(physical);
}

// Timestamp value in microseconds: s/ms scaled up (saturating), ns rounded down.
int64_t TimestampMicros(const DataType& type, int64_t v) {
  switch (type.unit()) {
    case TimeUnit::kSecond:
    case TimeUnit::kMilli: {
      const int64_t factor = type.unit() == TimeUnit::kSecond ? 1'000'000 : 1'000;
      int64_t out;
      if (__builtin_mul_overflow(v, factor, &out)) {
        return v < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
      }
      return out;
    }
    case TimeUnit::kMicro:
      return v;
    case TimeUnit::kNano: {
      int64_t q = v / 1000;
      return v % 1000 < 0 ? q - 1 : q;
    }
  }
  return v;
}

int32_t HashLong(int64_t v) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i));
  return static_cast<int32_t>(MurmurHash3_x86_32(bytes, 8, 0));
}

int32_t HashBytes(std::string_view bytes) {
  return static_cast<int32_t>(MurmurHash3_x86_32(bytes.data(), bytes.size(), 0));
}

int32_t HashDouble(double d) {
  uint64_t bits;
  if (std::isnan(d)) {
    bits = 0x7ff8000000000000ull;
  } else {
    if (d == 0) d = 0.0;  // -0.0 hashes as 0.0
    std::memcpy(&bits, &d, 8);
  }
  return HashLong(static_cast<int64_t>(bits));
}

std::string_view PhysicalAt(const Column& col, int64_t row) {
  if (col.type.is_variable_width()) return col.StringAt(row);
  const int width = col.type.PhysicalWidth();
  return {reinterpret_cast<const char*>(col.data.data()) + row * width, static_cast<size_t>(width)};
}

bool PhysicalSizeOk(const DataType& type, std::string_view physical) {
  if (type.is_nested()) return false;
  if (type.is_variable_width()) return true;
  return physical.size() == static_cast<size_t>(type.PhysicalWidth());
}

}  // namespace

std::string IcebergTypeName(const DataType& type) {
  switch (KindOf(type)) {
    case IcebergKind::kBoolean:
      return "boolean";
    case IcebergKind::kInt:
      return "int";
    case IcebergKind::kLong:
      return "long";
    case IcebergKind::kFloat:
      return "float";
    case IcebergKind::kDouble:
      return "double";
    case IcebergKind::kDecimal:
      if (type.id() == TypeId::kUInt64) return "decimal(20,0)";
      return "decimal(" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) +
             ")";
    case IcebergKind::kString:
      return "string";
    case IcebergKind::kBinary:
      return "binary";
    case IcebergKind::kDate:
      return "date";
    case IcebergKind::kTime:
      return "time";
    case IcebergKind::kTimeNs:
      return "time_ns";  // not an Iceberg type (Iceberg's time is microseconds only)
    case IcebergKind::kTimestamp:
      return type.id() == TypeId::kTimestampTz ? "timestamptz" : "timestamp";
    case IcebergKind::kTimestampNs:
      return type.id() == TypeId::kTimestampTz ? "timestamptz_ns" : "timestamp_ns";
    case IcebergKind::kUuid:
      return "uuid";
    case IcebergKind::kVariant:
      return "variant";
    case IcebergKind::kNested: {
      if (type.id() == TypeId::kArray) return "list<" + IcebergTypeName(type.element()) + ">";
      if (type.id() == TypeId::kMap) {
        return "map<" + IcebergTypeName(type.key_field().type) + ", " +
               IcebergTypeName(type.value_field().type) + ">";
      }
      std::string out = "struct<";
      for (size_t i = 0; i < type.children().size(); ++i) {
        const Field& f = type.children()[i];
        if (i > 0) out.append(", ");
        out.append(f.name + ": " + (f.nullable ? "optional " : "required ") +
                   IcebergTypeName(f.type));
      }
      return out + ">";
    }
  }
  return "binary";
}

std::string EncodeBoundPhysical(const DataType& type, std::string_view physical) {
  std::string out;
  if (!PhysicalSizeOk(type, physical)) return out;
  switch (KindOf(type)) {
    case IcebergKind::kBoolean:
      out.push_back(physical[0] != 0 ? 1 : 0);
      break;
    case IcebergKind::kInt:
    case IcebergKind::kDate:
      AppendLe(static_cast<uint64_t>(LoadAsInt64(type.id(), physical)), 4, &out);
      break;
    case IcebergKind::kLong:
    case IcebergKind::kTime:
      AppendLe(static_cast<uint64_t>(LoadAsInt64(type.id(), physical)), 8, &out);
      break;
    case IcebergKind::kFloat:
      AppendLe(Load<uint32_t>(physical), 4, &out);
      break;
    case IcebergKind::kDouble:
      AppendLe(Load<uint64_t>(physical), 8, &out);
      break;
    case IcebergKind::kDecimal: {
      uint8_t bytes[16];
      size_t len = MinimalBigEndian(LoadDecimalUnscaled(type, physical), bytes);
      out.assign(reinterpret_cast<const char*>(bytes), len);
      break;
    }
    case IcebergKind::kString:
    case IcebergKind::kBinary:
    case IcebergKind::kUuid:
      out.assign(physical);
      break;
    case IcebergKind::kTimestamp:
      AppendLe(static_cast<uint64_t>(TimestampMicros(type, Load<int64_t>(physical))), 8, &out);
      break;
    case IcebergKind::kTimeNs:
    case IcebergKind::kTimestampNs:
      AppendLe(Load<uint64_t>(physical), 8, &out);
      break;
    case IcebergKind::kNested:
    case IcebergKind::kVariant:
      break;
  }
  return out;
}

std::string EncodeBound(const Column& col, int64_t row) {
  if (col.type.is_nested()) return {};
  return EncodeBoundPhysical(col.type, PhysicalAt(col, row));
}

Result<Column> DecodeBound(const DataType& type, std::string_view bytes) {
  Column out(type);
  auto wrong_size = [&]() {
    return Status::Corruption("Iceberg bound for " + type.ToString() + " has " +
                              std::to_string(bytes.size()) + " bytes");
  };
  auto out_of_range = [&]() {
    return Status::Corruption("Iceberg bound does not fit " + type.ToString());
  };
  switch (KindOf(type)) {
    case IcebergKind::kBoolean:
      if (bytes.size() != 1) return wrong_size();
      out.AppendFixed<uint8_t>(bytes[0] != 0 ? 1 : 0);
      return out;
    case IcebergKind::kInt:
    case IcebergKind::kLong:
    case IcebergKind::kDate:
    case IcebergKind::kTime: {
      const IcebergKind kind = KindOf(type);
      const bool size_ok = kind == IcebergKind::kTime   ? bytes.size() == 8
                           : kind == IcebergKind::kLong ? bytes.size() == 4 || bytes.size() == 8
                                                        : bytes.size() == 4;
      if (!size_ok) return wrong_size();
      int64_t v = bytes.size() == 4 ? static_cast<int32_t>(ReadLe(bytes))
                                    : static_cast<int64_t>(ReadLe(bytes));
      auto put = [&](auto typed) -> Status {
        using T = decltype(typed);
        if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
            v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
          return out_of_range();
        }
        out.AppendFixed<T>(static_cast<T>(v));
        return Status::OK();
      };
      Status st;
      switch (type.id()) {
        case TypeId::kInt8:
          st = put(int8_t{});
          break;
        case TypeId::kInt16:
          st = put(int16_t{});
          break;
        case TypeId::kInt32:
        case TypeId::kDate:
          st = put(int32_t{});
          break;
        case TypeId::kUInt8:
          st = put(uint8_t{});
          break;
        case TypeId::kUInt16:
          st = put(uint16_t{});
          break;
        case TypeId::kUInt32:
        case TypeId::kIpv4:
          st = put(uint32_t{});
          break;
        default:
          st = put(int64_t{});
          break;  // INT64, TIME
      }
      TARN_RETURN_NOT_OK(st);
      return out;
    }
    case IcebergKind::kFloat: {
      if (bytes.size() != 4) return wrong_size();
      uint32_t bits = static_cast<uint32_t>(ReadLe(bytes));
      float f;
      std::memcpy(&f, &bits, 4);
      out.AppendFixed<float>(f);
      return out;
    }
    case IcebergKind::kDouble: {
      double d;
      if (bytes.size() == 8) {
        uint64_t bits = ReadLe(bytes);
        std::memcpy(&d, &bits, 8);
      } else if (bytes.size() == 4) {
        uint32_t bits = static_cast<uint32_t>(ReadLe(bytes));
        float f;
        std::memcpy(&f, &bits, 4);
        d = f;
      } else {
        return wrong_size();
      }
      out.AppendFixed<double>(d);
      return out;
    }
    case IcebergKind::kDecimal: {
      if (bytes.empty() || bytes.size() > 16) return wrong_size();
      uint128 u = (static_cast<uint8_t>(bytes[0]) & 0x80) ? ~uint128(0) : 0;  // sign-extend
      for (char c : bytes) u = (u << 8) | static_cast<uint8_t>(c);
      const int128 v = static_cast<int128>(u);
      if (type.id() == TypeId::kUInt64) {
        if (v < 0 || v > static_cast<int128>(std::numeric_limits<uint64_t>::max())) {
          return out_of_range();
        }
        out.AppendFixed<uint64_t>(static_cast<uint64_t>(v));
        return out;
      }
      int128 limit = 1;
      for (int i = 0; i < type.precision(); ++i) limit *= 10;
      if (v >= limit || v <= -limit) return out_of_range();
      out.AppendFixed<int128>(v);
      return out;
    }
    case IcebergKind::kString:
    case IcebergKind::kBinary:
      out.AppendBytes(bytes);
      return out;
    case IcebergKind::kUuid:
      if (bytes.size() != 16) return wrong_size();
      out.data.insert(out.data.end(), bytes.begin(), bytes.end());
      out.length = 1;
      return out;
    case IcebergKind::kTimestamp: {
      if (bytes.size() != 8) return wrong_size();
      int64_t micros = static_cast<int64_t>(ReadLe(bytes));
      int64_t v = micros;
      if (type.unit() != TimeUnit::kMicro) {
        const int64_t divisor = type.unit() == TimeUnit::kSecond ? 1'000'000 : 1'000;
        v = micros / divisor;
        if (micros % divisor < 0) --v;
      }
      out.AppendFixed<int64_t>(v);
      return out;
    }
    case IcebergKind::kTimeNs:
    case IcebergKind::kTimestampNs:
      if (bytes.size() != 8) return wrong_size();
      out.AppendFixed<int64_t>(static_cast<int64_t>(ReadLe(bytes)));
      return out;
    case IcebergKind::kNested:
    case IcebergKind::kVariant:
      break;
  }
  return Status::InvalidArgument("Iceberg has no single-value encoding for " + type.ToString());
}

bool IsIcebergBucketable(const DataType& type) {
  switch (KindOf(type)) {
    case IcebergKind::kBoolean:
    case IcebergKind::kFloat:
    case IcebergKind::kDouble:
    case IcebergKind::kNested:
    case IcebergKind::kVariant:
      return false;
    default:
      return true;
  }
}

int32_t IcebergBucketHashPhysical(const DataType& type, std::string_view physical) {
  if (!PhysicalSizeOk(type, physical)) return 0;
  switch (KindOf(type)) {
    case IcebergKind::kBoolean:
      return HashLong(physical[0] != 0 ? 1 : 0);
    case IcebergKind::kInt:
    case IcebergKind::kLong:
    case IcebergKind::kDate:
    case IcebergKind::kTime:
      return HashLong(LoadAsInt64(type.id(), physical));
    case IcebergKind::kTimeNs:  // as microseconds (rounded down), like timestamp_ns
      return HashLong(TimestampMicros(type, Load<int64_t>(physical)));
    case IcebergKind::kFloat:
      return HashDouble(Load<float>(physical));
    case IcebergKind::kDouble:
      return HashDouble(Load<double>(physical));
    case IcebergKind::kDecimal: {
      uint8_t bytes[16];
      size_t len = MinimalBigEndian(LoadDecimalUnscaled(type, physical), bytes);
      return static_cast<int32_t>(MurmurHash3_x86_32(bytes, len, 0));
    }
    case IcebergKind::kString:
    case IcebergKind::kBinary:
    case IcebergKind::kUuid:
      return HashBytes(physical);
    case IcebergKind::kTimestamp:
    case IcebergKind::kTimestampNs:
      return HashLong(TimestampMicros(type, Load<int64_t>(physical)));
    case IcebergKind::kNested:
    case IcebergKind::kVariant:
      return 0;
  }
  return 0;
}

int32_t IcebergBucketHash(const Column& col, int64_t row) {
  if (col.type.is_nested()) return 0;
  return IcebergBucketHashPhysical(col.type, PhysicalAt(col, row));
}

int32_t BucketTransform(int32_t hash, int32_t n) {
  if (n <= 0) return 0;
  return (hash & std::numeric_limits<int32_t>::max()) % n;
}

}  // namespace tarn

#include "parquet/stat_value.h"

#include <cstring>

#include "parquet/column_reader.h"

namespace tarn::parquet {

namespace {

template <typename T>
T Load(std::string_view b) {
  T v;
  std::memcpy(&v, b.data(), sizeof(T));
  return v;
}

int128 BigEndianSigned(std::string_view b) {
  uint128 v = (!b.empty() && (static_cast<uint8_t>(b[0]) & 0x80)) ? ~uint128{0} : 0;
  for (char c : b) v = (v << 8) | static_cast<uint8_t>(c);
  return static_cast<int128>(v);
}

// Units per second of the stored TIME/TIMESTAMP annotation of an element.
int64_t StoredUnitsPerSecond(const SchemaElement& e) {
  if (e.logical_type && (e.logical_type->kind == LogicalType::TIMESTAMP ||
                         e.logical_type->kind == LogicalType::TIME)) {
    switch (e.logical_type->unit) {
      case TimeUnitKind::MILLIS:
        return 1000;
      case TimeUnitKind::MICROS:
        return 1000000;
      case TimeUnitKind::NANOS:
        return 1000000000;
    }
  }
  if (e.converted_type == ConvertedType::TIMESTAMP_MILLIS ||
      e.converted_type == ConvertedType::TIME_MILLIS) {
    return 1000;
  }
  return 1000000;
}

int64_t UnitsPerSecond(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond:
      return 1;
    case TimeUnit::kMilli:
      return 1000;
    case TimeUnit::kMicro:
      return 1000000;
    case TimeUnit::kNano:
      return 1000000000;
  }
  return 1000000;
}

int64_t Rescale(int64_t v, int64_t from, int64_t to) {
  if (from == to) return v;
  if (from < to) return v * (to / from);
  return v / (from / to);
}

}  // namespace

Result<Column> DecodeStatValue(const FileMetaData& md, const LeafColumn& leaf, const DataType& type,
                               std::string_view b) {
  Column col(type);
  auto need = [&](size_t n) -> Status {
    if (b.size() != n) {
      return Status::Corruption("statistics value of " + std::to_string(b.size()) +
                                " bytes for a " + TypeName(leaf.physical) + " column");
    }
    return Status::OK();
  };
  const SchemaElement& e = md.schema[leaf.schema_index];
  // The integer value for INT32/INT64 leaves.
  auto integer = [&]() -> Result<int64_t> {
    if (leaf.physical == Type::INT32) {
      TARN_RETURN_NOT_OK(need(4));
      return static_cast<int64_t>(Load<int32_t>(b));
    }
    if (leaf.physical == Type::INT64) {
      TARN_RETURN_NOT_OK(need(8));
      return Load<int64_t>(b);
    }
    return Status::Corruption(std::string("integer statistics on a ") + TypeName(leaf.physical) +
                              " column");
  };
  switch (type.id()) {
    case TypeId::kBoolean:
      TARN_RETURN_NOT_OK(need(1));
      col.AppendFixed<uint8_t>(b[0] != 0);
      break;
    case TypeId::kInt8: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<int8_t>(static_cast<int8_t>(v));
      break;
    }
    case TypeId::kInt16: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<int16_t>(static_cast<int16_t>(v));
      break;
    }
    case TypeId::kInt32: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<int32_t>(static_cast<int32_t>(v));
      break;
    }
    case TypeId::kInt64: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<int64_t>(v);
      break;
    }
    case TypeId::kUInt8: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<uint8_t>(static_cast<uint8_t>(v));
      break;
    }
    case TypeId::kUInt16: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<uint16_t>(static_cast<uint16_t>(v));
      break;
    }
    case TypeId::kUInt32: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<uint32_t>(static_cast<uint32_t>(v));
      break;
    }
    case TypeId::kIpv4: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<uint32_t>(static_cast<uint32_t>(v));
      break;
    }
    case TypeId::kUInt64: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<uint64_t>(static_cast<uint64_t>(v));
      break;
    }
    case TypeId::kDate: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<int32_t>(static_cast<int32_t>(v));
      break;
    }
    case TypeId::kFloat32:
      TARN_RETURN_NOT_OK(need(4));
      col.AppendFixed<float>(Load<float>(b));
      break;
    case TypeId::kFloat64:
      if (leaf.physical == Type::FLOAT) {
        TARN_RETURN_NOT_OK(need(4));
        col.AppendFixed<double>(Load<float>(b));
      } else {
        TARN_RETURN_NOT_OK(need(8));
        col.AppendFixed<double>(Load<double>(b));
      }
      break;
    case TypeId::kDecimal:
      if (leaf.physical == Type::INT32 || leaf.physical == Type::INT64) {
        TARN_ASSIGN_OR_RETURN(int64_t v, integer());
        col.AppendFixed<int128>(v);
      } else {
        if (b.empty() || b.size() > 16) {
          return Status::Corruption("decimal statistics value of " + std::to_string(b.size()) +
                                    " bytes");
        }
        col.AppendFixed<int128>(BigEndianSigned(b));
      }
      break;
    case TypeId::kTime: {
      TARN_ASSIGN_OR_RETURN(int64_t v, integer());
      col.AppendFixed<int64_t>(Rescale(v, StoredUnitsPerSecond(e), UnitsPerSecond(type.unit())));
      break;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      int64_t v;
      if (leaf.physical == Type::INT96) {
        TARN_RETURN_NOT_OK(need(12));
        const auto* raw = reinterpret_cast<const uint8_t*>(b.data());
        if (!Int96ToNanos(raw, &v)) return Int96OutOfRange(raw);
        v = Rescale(v, 1000000000, UnitsPerSecond(type.unit()));
      } else {
        TARN_ASSIGN_OR_RETURN(v, integer());
        v = Rescale(v, StoredUnitsPerSecond(e), UnitsPerSecond(type.unit()));
      }
      col.AppendFixed<int64_t>(v);
      break;
    }
    case TypeId::kUuid:
      TARN_RETURN_NOT_OK(need(16));
      col.AppendFixedBytes(b.data(), 16);
      break;
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson:
      col.AppendBytes(b);
      break;
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:
      return Status::InvalidArgument("statistics are per leaf; pass the element type");
  }
  return col;
}

}  // namespace tarn::parquet

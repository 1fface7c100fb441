#include "parquet/metadata.h"

namespace tarn::parquet {

const char* TypeName(Type t) {
  switch (t) {
    case Type::BOOLEAN:
      return "BOOLEAN";
    case Type::INT32:
      return "INT32";
    case Type::INT64:
      return "INT64";
    case Type::INT96:
      return "INT96";
    case Type::FLOAT:
      return "FLOAT";
    case Type::DOUBLE:
      return "DOUBLE";
    case Type::BYTE_ARRAY:
      return "BYTE_ARRAY";
    case Type::FIXED_LEN_BYTE_ARRAY:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN";
}

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::PLAIN:
      return "PLAIN";
    case Encoding::PLAIN_DICTIONARY:
      return "PLAIN_DICTIONARY";
    case Encoding::RLE:
      return "RLE";
    case Encoding::BIT_PACKED:
      return "BIT_PACKED";
    case Encoding::DELTA_BINARY_PACKED:
      return "DELTA_BINARY_PACKED";
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::DELTA_BYTE_ARRAY:
      return "DELTA_BYTE_ARRAY";
    case Encoding::RLE_DICTIONARY:
      return "RLE_DICTIONARY";
    case Encoding::BYTE_STREAM_SPLIT:
      return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN";
}

const char* CodecName(Codec c) {
  switch (c) {
    case Codec::UNCOMPRESSED:
      return "UNCOMPRESSED";
    case Codec::SNAPPY:
      return "SNAPPY";
    case Codec::GZIP:
      return "GZIP";
    case Codec::LZO:
      return "LZO";
    case Codec::BROTLI:
      return "BROTLI";
    case Codec::LZ4:
      return "LZ4";
    case Codec::ZSTD:
      return "ZSTD";
    case Codec::LZ4_RAW:
      return "LZ4_RAW";
  }
  return "UNKNOWN";
}

const char* ConvertedTypeName(ConvertedType c) {
  static const char* kNames[] = {"UTF8",
                                 "MAP",
                                 "MAP_KEY_VALUE",
                                 "LIST",
                                 "ENUM",
                                 "DECIMAL",
                                 "DATE",
                                 "TIME_MILLIS",
                                 "TIME_MICROS",
                                 "TIMESTAMP_MILLIS",
                                 "TIMESTAMP_MICROS",
                                 "UINT_8",
                                 "UINT_16",
                                 "UINT_32",
                                 "UINT_64",
                                 "INT_8",
                                 "INT_16",
                                 "INT_32",
                                 "INT_64",
                                 "JSON",
                                 "BSON",
                                 "INTERVAL"};
  int i = static_cast<int>(c);
  return i >= 0 && i < 22 ? kNames[i] : "UNKNOWN";
}

std::string LogicalTypeName(const LogicalType& t) {
  auto unit = [&] {
    switch (t.unit) {
      case TimeUnitKind::MILLIS:
        return std::string("MILLIS");
      case TimeUnitKind::MICROS:
        return std::string("MICROS");
      case TimeUnitKind::NANOS:
        return std::string("NANOS");
    }
    return std::string("?");
  };
  switch (t.kind) {
    case LogicalType::NONE:
      return "";
    case LogicalType::STRING:
      return "STRING";
    case LogicalType::MAP:
      return "MAP";
    case LogicalType::LIST:
      return "LIST";
    case LogicalType::ENUM:
      return "ENUM";
    case LogicalType::DECIMAL:
      return "DECIMAL(" + std::to_string(t.decimal_precision) + "," +
             std::to_string(t.decimal_scale) + ")";
    case LogicalType::DATE:
      return "DATE";
    case LogicalType::TIME:
      return "TIME(" + unit() + "," + (t.is_adjusted_to_utc ? "true" : "false") + ")";
    case LogicalType::TIMESTAMP:
      return "TIMESTAMP(" + unit() + "," + (t.is_adjusted_to_utc ? "true" : "false") + ")";
    case LogicalType::INTEGER:
      return "INTEGER(" + std::to_string(t.bit_width) + "," + (t.is_signed ? "true" : "false") +
             ")";
    case LogicalType::UNKNOWN:
      return "UNKNOWN";
    case LogicalType::JSON:
      return "JSON";
    case LogicalType::BSON:
      return "BSON";
    case LogicalType::UUID:
      return "UUID";
    case LogicalType::FLOAT16:
      return "FLOAT16";
    case LogicalType::VARIANT:
      return t.variant_version ? "VARIANT(" + std::to_string(*t.variant_version) + ")" : "VARIANT";
  }
  return "UNKNOWN";
}

}  // namespace tarn::parquet

// tarn's type vocabulary (docs/features.md, Types) and its in-memory representation.
//
// Every value of a type has exactly one physical in-memory form (see PhysicalWidth):
//   BOOLEAN            uint8_t 0/1
//   INT8..UINT64       the C integer of that width and signedness
//   FLOAT32/FLOAT64    float/double
//   DECIMAL(p,s)       int128 unscaled value (p <= 38)
//   VARCHAR/BLOB/JSON  bytes in Column::data, boundaries in Column::offsets
//   DATE               int32_t days since 1970-01-01
//   TIME[u]            int64_t units since midnight (TIME = TIME[us]; TIME[ns])
//   TIMESTAMP[u]       int64_t units since 1970-01-01T00:00:00 (wall clock, no zone)
//   TIMESTAMPTZ[u]     int64_t units since the UTC epoch
//   UUID               16 bytes, RFC 4122 byte order (as printed)
//   IPV4               uint32_t, a.b.c.d = a<<24 | b<<16 | c<<8 | d
//   ARRAY<T>           Column::offsets into Column::child
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/status.h"

namespace tarn {

using int128 = __int128;
using uint128 = unsigned __int128;

enum class TypeId : uint8_t {
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kDecimal,
  kVarchar,
  kBlob,
  kDate,
  kTime,
  kTimestamp,
  kTimestampTz,
  kUuid,
  kIpv4,
  kJson,
  kArray,
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

// Value type: cheap to copy (ARRAY shares its element type).
class DataType {
 public:
  DataType() = default;  // BOOLEAN
  static DataType Boolean() { return DataType(TypeId::kBoolean); }
  static DataType Int8() { return DataType(TypeId::kInt8); }
  static DataType Int16() { return DataType(TypeId::kInt16); }
  static DataType Int32() { return DataType(TypeId::kInt32); }
  static DataType Int64() { return DataType(TypeId::kInt64); }
  static DataType UInt8() { return DataType(TypeId::kUInt8); }
  static DataType UInt16() { return DataType(TypeId::kUInt16); }
  static DataType UInt32() { return DataType(TypeId::kUInt32); }
  static DataType UInt64() { return DataType(TypeId::kUInt64); }
  static DataType Float32() { return DataType(TypeId::kFloat32); }
  static DataType Float64() { return DataType(TypeId::kFloat64); }
  // Precondition: 1 <= precision <= 38, 0 <= scale <= precision (checked by Parse, asserted here).
  static DataType Decimal(int precision, int scale);
  static DataType Varchar() { return DataType(TypeId::kVarchar); }
  static DataType Blob() { return DataType(TypeId::kBlob); }
  static DataType Date() { return DataType(TypeId::kDate); }
  // TIME takes [us] (the default, printed "TIME") or [ns] (printed "TIME[ns]").
  static DataType Time(TimeUnit unit = TimeUnit::kMicro);
  static DataType Timestamp(TimeUnit unit);
  static DataType TimestampTz(TimeUnit unit);
  static DataType Uuid() { return DataType(TypeId::kUuid); }
  static DataType Ipv4() { return DataType(TypeId::kIpv4); }
  static DataType Json() { return DataType(TypeId::kJson); }
  static DataType Array(DataType element);

  // Parses a type name: case-insensitive, spaces allowed around punctuation.
  // "DECIMAL(10,2)", "TIMESTAMP[us]", "TIMESTAMPTZ[ms]", "TIME[ns]", "ARRAY<VARCHAR>". TIME,
  // TIMESTAMP and TIMESTAMPTZ without a unit mean [us]; TIME takes only [us] or [ns]. Aliases:
  // BIGINT=INT64, INT/INTEGER=INT32, SMALLINT=INT16, TINYINT=INT8, DOUBLE=FLOAT64,
  // FLOAT/REAL=FLOAT32, STRING/TEXT=VARCHAR, BOOL=BOOLEAN, BYTES/BINARY=BLOB. Errors:
  // kInvalidArgument naming the offending text.
  static Result<DataType> Parse(std::string_view text);
  // Canonical name, which Parse reads back: "DECIMAL(10,2)", "TIMESTAMP[us]", "ARRAY<INT64>",
  // "TIME" (microseconds, the name stored catalogs already hold) and "TIME[ns]".
  std::string ToString() const;

  TypeId id() const { return id_; }
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  TimeUnit unit() const { return unit_; }
  // Only for ARRAY.
  const DataType& element() const { return *element_; }

  bool is_integer() const;         // INT8..UINT64
  bool is_signed_integer() const;  // INT8..INT64
  bool is_floating() const;        // FLOAT32, FLOAT64
  bool is_variable_width() const;  // VARCHAR, BLOB, JSON
  bool is_nested() const { return id_ == TypeId::kArray; }
  // Bytes per value in memory for fixed-width types; 0 for variable width and ARRAY.
  int PhysicalWidth() const;

  friend bool operator==(const DataType& a, const DataType& b);
  friend bool operator!=(const DataType& a, const DataType& b) { return !(a == b); }

 private:
  explicit DataType(TypeId id) : id_(id) {}
  TypeId id_ = TypeId::kBoolean;
  uint8_t precision_ = 0;
  uint8_t scale_ = 0;
  TimeUnit unit_ = TimeUnit::kMicro;
  std::shared_ptr<const DataType> element_;
};

std::string_view TimeUnitSuffix(TimeUnit unit);  // "s", "ms", "us", "ns"

// A named column of a schema. field_id is Iceberg's: stable forever, written into Parquet.
struct Field {
  std::string name;
  DataType type;
  bool nullable = true;
  int32_t field_id = -1;  // -1: unassigned
  // For ARRAY fields: the element's field id (Iceberg gives list elements their own id).
  int32_t element_field_id = -1;
  bool element_nullable = true;
};

struct Schema {
  std::vector<Field> fields;
  int FieldIndex(std::string_view name) const;  // -1 when absent
  std::string ToString() const;                 // "id INT64 NOT NULL, name VARCHAR"
  // Parses "id INT64 NOT NULL, ts TIMESTAMP[us], tags ARRAY<VARCHAR>" (commas inside <> and ()
  // do not split). Field ids are assigned 1..N in order.
  static Result<Schema> Parse(std::string_view text);
};

}  // namespace tarn

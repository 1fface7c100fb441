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
//   STRUCT<a: T, ...>  Column::members, one per member, each as long as the struct column
//   MAP<K, V>          Column::offsets into Column::members[0] (keys) and members[1] (values)
//   VARIANT            Column::members[0] (metadata) and members[1] (value): two BLOB columns,
//                      each as long as the variant column, holding the two byte strings of
//                      Parquet's Variant encoding (VariantEncoding.md) exactly as stored (a null
//                      row holds a null in both). Kept as the spec's bytes, not decoded, so files
//                      round-trip byte for byte and the Parquet group's two leaves map one to
//                      one onto the members (types/variant.h renders, checks and builds them).
//                      A VARIANT has no nested fields (Iceberg v3: one field id) and is only a
//                      top-level column.
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
  kStruct,
  kMap,
  kVariant,
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

struct Field;

// Value type: cheap to copy (nested types share their children).
//
// Nested types hold their nested fields (Iceberg's nested fields) as `Field`s: STRUCT its
// members, ARRAY one named "element", MAP "key" (never null) and "value". Each nested field
// carries its own field id and nullability, so every level of `ARRAY<ARRAY<T>>` has an id.
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
  // Semi-structured values in Parquet's Variant encoding (see the table above).
  static DataType Variant() { return DataType(TypeId::kVariant); }
  // The element field is named "element"; id -1 means unassigned.
  static DataType Array(DataType element, int32_t element_id = -1, bool element_nullable = true);
  // Precondition: member names are unique, case-insensitively (checked by Parse and
  // Schema::Validate, not here).
  static DataType Struct(std::vector<Field> members);
  // The key is never null. Fields are named "key" and "value".
  static DataType Map(DataType key, DataType value, int32_t key_id = -1, int32_t value_id = -1,
                      bool value_nullable = true);

  // Parses a type name: case-insensitive, spaces allowed around punctuation.
  // "DECIMAL(10,2)", "TIMESTAMP[us]", "TIMESTAMPTZ[ms]", "TIME[ns]", "ARRAY<VARCHAR>",
  // "STRUCT<a: INT64 NOT NULL, b: ARRAY<VARCHAR>>" (the ':' is optional), "MAP<VARCHAR, INT64>",
  // "VARIANT" (not inside ARRAY, STRUCT or MAP).
  // A nested field may say NOT NULL (a MAP key is NOT NULL whatever it says). TIME,
  // TIMESTAMP and TIMESTAMPTZ without a unit mean [us]; TIME takes only [us] or [ns]. Aliases:
  // BIGINT=INT64, INT/INTEGER=INT32, SMALLINT=INT16, TINYINT=INT8, DOUBLE=FLOAT64,
  // FLOAT/REAL=FLOAT32, STRING/TEXT=VARCHAR, BOOL=BOOLEAN, BYTES/BINARY=BLOB. Errors:
  // kInvalidArgument naming the offending text.
  static Result<DataType> Parse(std::string_view text);
  // Canonical name, which Parse reads back: "DECIMAL(10,2)", "TIMESTAMP[us]", "ARRAY<INT64>",
  // "TIME" (microseconds, the name stored catalogs already hold), "TIME[ns]",
  // "STRUCT<a: INT64 NOT NULL, \"b c\": VARCHAR>", "MAP<VARCHAR, INT64>". Nested field ids are
  // not part of the name (schema JSON keeps them).
  std::string ToString() const;

  TypeId id() const { return id_; }
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  TimeUnit unit() const { return unit_; }
  // Only for ARRAY: the element's type and field.
  const DataType& element() const;
  const Field& element_field() const;
  // Only for MAP.
  const Field& key_field() const;
  const Field& value_field() const;
  // The nested fields: STRUCT members, ARRAY {element}, MAP {key, value}; empty for scalars.
  const std::vector<Field>& children() const;
  // The same type with other nested fields (same count and names; used to set ids and
  // nullability). Precondition: is_nested().
  DataType WithChildren(std::vector<Field> children) const;

  bool is_integer() const;         // INT8..UINT64
  bool is_signed_integer() const;  // INT8..INT64
  bool is_floating() const;        // FLOAT32, FLOAT64
  bool is_variable_width() const;  // VARCHAR, BLOB, JSON
  // ARRAY, STRUCT, MAP.
  bool is_nested() const {
    return id_ == TypeId::kArray || id_ == TypeId::kStruct || id_ == TypeId::kMap;
  }
  // ARRAY and MAP: a row holds a range of offsets.
  bool is_repeated() const { return id_ == TypeId::kArray || id_ == TypeId::kMap; }
  // Bytes per value in memory for fixed-width types; 0 for variable width and nested types.
  int PhysicalWidth() const;

  // Compares the shape: type ids, parameters, units, struct member names (exactly) and nested
  // types. Nested field ids and nullability are not compared (see SameNestedFields).
  friend bool operator==(const DataType& a, const DataType& b);
  friend bool operator!=(const DataType& a, const DataType& b) { return !(a == b); }

 private:
  explicit DataType(TypeId id) : id_(id) {}
  TypeId id_ = TypeId::kBoolean;
  uint8_t precision_ = 0;
  uint8_t scale_ = 0;
  TimeUnit unit_ = TimeUnit::kMicro;
  std::shared_ptr<const std::vector<Field>> children_;
};

std::string_view TimeUnitSuffix(TimeUnit unit);  // "s", "ms", "us", "ns"

// A named column of a schema, or a nested field of a nested type. field_id is Iceberg's: stable
// forever, written into Parquet. The nested fields below it (with their ids) are type.children().
struct Field {
  std::string name;
  DataType type;
  bool nullable = true;
  int32_t field_id = -1;  // -1: unassigned
};

// Equal shapes (operator==) and equal ids and nullability at every nested level.
bool SameNestedFields(const DataType& a, const DataType& b);

// Gives nested fields without an id (-1) ids above *last_id, Iceberg's order: every field of one
// level first, then each field's own nested fields in order; updates *last_id. Errors:
// kInvalidArgument when ids run out (INT32_MAX).
Result<DataType> AssignNestedIds(const DataType& type, int32_t* last_id);
// The type with every nested field id set to -1 (unassigned).
DataType ClearNestedIds(const DataType& type);
// `shape` with the nested field ids and nullability of `fields` wherever the two have the same
// nesting (a widened type keeps its ids; a file's recorded type names keep the file's ids).
DataType WithNestedFieldsOf(const DataType& shape, const DataType& fields);
// Visits every nested field below `type`, parents before children.
template <typename F>
void ForEachNestedField(const DataType& type, F&& visit);

inline const DataType& DataType::element() const { return (*children_)[0].type; }
inline const Field& DataType::element_field() const { return (*children_)[0]; }
inline const Field& DataType::key_field() const { return (*children_)[0]; }
inline const Field& DataType::value_field() const { return (*children_)[1]; }

template <typename F>
void ForEachNestedField(const DataType& type, F&& visit) {
  for (const Field& f : type.children()) {
    visit(f);
    ForEachNestedField(f.type, visit);
  }
}

struct Schema {
  std::vector<Field> fields;
  int FieldIndex(std::string_view name) const;  // -1 when absent
  std::string ToString() const;                 // "id INT64 NOT NULL, name VARCHAR"
  // Parses "id INT64 NOT NULL, ts TIMESTAMP[us], tags ARRAY<VARCHAR>" (commas inside <> and ()
  // do not split). Field ids: 1..N for the columns in order, then each column's nested fields
  // (AssignNestedIds).
  static Result<Schema> Parse(std::string_view text);
};

}  // namespace tarn

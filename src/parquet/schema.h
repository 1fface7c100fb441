// The mapping between tarn schemas (types/data_type.h) and Parquet schemas.
//
// tarn -> Parquet (writer), one mapping per type that DuckDB reads sensibly:
//   BOOLEAN BOOLEAN | INT8/16/32 INT32 INT(n,true) | INT64 INT64 | UINT8/16/32 INT32 INT(n,false)
//   UINT64 INT64 INT(64,false) | FLOAT32 FLOAT | FLOAT64 DOUBLE
//   DECIMAL(p,s) INT32 (p<=9), INT64 (p<=18), FIXED_LEN_BYTE_ARRAY(minimal bytes) otherwise
//   VARCHAR BYTE_ARRAY STRING | BLOB BYTE_ARRAY | JSON BYTE_ARRAY JSON | DATE INT32 DATE
//   TIME INT64 TIME(MICROS,false) | TIME[ns] INT64 TIME(NANOS,false), no converted type
//   TIMESTAMP[u] INT64 TIMESTAMP(u,false), [s] stored as MILLIS
//   TIMESTAMPTZ[u] INT64 TIMESTAMP(u,true) | UUID FIXED_LEN_BYTE_ARRAY(16) UUID
//   IPV4 INT32 INT(32,false)
//   ARRAY<T>     <rep> group name (LIST) { repeated group list { <rep> T element; } }
//   STRUCT<...>  <rep> group name { <rep> member ...; }   (no annotation)
//   MAP<K, V>    <rep> group name (MAP) { repeated group key_value { required K key;
//                                                                    <rep> V value; } }
//   VARIANT      <rep> group name (VARIANT(1)) { required binary metadata;
//                                                required binary value; }   (top level only)
// nested to any depth (kMaxNesting levels), <rep> optional or required by each Field's
// nullability, and every Field's id written as the element's field_id (members, list elements,
// map keys and values included).
// Legacy converted types are written alongside logical types. The exact tarn schema is also
// stored in key-value metadata "tarn.schema" so types Parquet cannot name (IPV4, TIMESTAMP[s])
// come back as written.
//
// Parquet -> tarn (reader) additionally handles files written by others: converted types
// without logical types, INT96 (-> TIMESTAMP[ns]; values outside it are refused by name),
// UNKNOWN (Arrow's Null type -> the physical type's tarn type, nullable, every value null),
// ENUM (-> VARCHAR), BSON/unannotated BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (-> BLOB), FLOAT16
// (-> FLOAT32), and nested groups by LogicalTypes.md's backward-compatibility rules: legacy
// 2-level lists, repeated groups named "array" or "<name>_tuple" (-> a struct element), bare
// repeated fields (-> ARRAY of NOT NULL elements), MAP_KEY_VALUE in place of MAP, key_value
// groups of any name. A field tarn cannot represent (a MAP without values or with a nullable
// key, struct members whose names differ only in case, an empty group) is listed with
// `unsupported` set and can only be skipped by projection. A VARIANT group must be the unshredded
// form (exactly `metadata` and `value`, both required binary, in either order); a shredded one
// (with `typed_value`) or one below another group is unsupported.
#pragma once

#include <string>
#include <vector>

#include "parquet/metadata.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn::parquet {

inline constexpr const char* kTarnSchemaKey = "tarn.schema";
inline constexpr const char* kVariantMetadataName = "metadata";
inline constexpr const char* kVariantValueName = "value";
inline constexpr int8_t kVariantSpecVersion = 1;  // VariantType.specification_version written

// The shape Parquet stores a type in: a VARIANT as STRUCT<metadata: BLOB NOT NULL, value: BLOB
// NOT NULL> (the members of its Column, data_type.h), every other type as itself. Levels,
// leaves and record assembly walk this shape, so a VARIANT is written and read as that struct.
const DataType& StoredShape(const DataType& type);

// One tarn column on the path from a top-level field down to a leaf column: the top-level
// column, then each nested column (STRUCT member, ARRAY element, MAP key or value) down to the
// leaf's own. A leaf's definition and repetition levels say, entry by entry, which of these
// columns get a slot and whether it is null, empty or holds a value (Dremel record assembly).
struct PathNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  // Its index among its parent's nested columns (Column::members for a STRUCT member, 0 for a
  // MAP key and 1 for its value); 0 for the top-level column and an ARRAY element.
  int member = 0;
  int16_t def = 0;  // definition level from which it is not null (its parent's when NOT NULL)
  // ARRAY and MAP: the definition level from which it holds an element, and the repetition
  // level of its second and later elements.
  int16_t def_element = 0;
  int16_t rep = 0;
  // This leaf is the first leaf below the column, so its levels build the column's validity
  // and offsets (the other leaves below it repeat the same structure).
  bool first = false;
};

// One leaf (primitive) column of a Parquet file, in file order.
struct LeafColumn {
  int schema_index = 0;           // index into FileMetaData::schema
  std::vector<std::string> path;  // path_in_schema
  Type physical = Type::BOOLEAN;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width
  int16_t max_def_level = 0;
  int16_t max_rep_level = 0;
  int field = -1;  // top-level field of ParquetSchema::schema it belongs to
  // The tarn columns from the top-level field to this leaf (kLeaf last); empty when the field
  // is unsupported. A flat column has one node.
  std::vector<PathNode> nodes;
};

struct ParquetSchema {
  Schema schema;  // one tarn field per top-level Parquet field
  std::vector<LeafColumn> leaves;
  // For each top-level field: the leaf indices it spans, in file order (one for scalars and lists
  // of scalars, one per primitive below a STRUCT or MAP).
  std::vector<std::vector<int>> field_leaves;
  // For each top-level field: empty if tarn can read it, else why not ("MAP is not supported").
  std::vector<std::string> unsupported;
};

// The tarn type of a leaf's own column, below its top-level field's type `field_type` (the type
// itself for a flat field). Precondition: the field is supported (leaf.nodes is not empty).
const DataType& LeafTypeOf(const DataType& field_type, const LeafColumn& leaf);

// Resolves a file's schema. kCorruption for a malformed schema tree.
Result<ParquetSchema> SchemaFromParquet(const FileMetaData& md);
// The Parquet schema elements (root first) for a tarn schema. kInvalidArgument if a field
// cannot be written (empty name, duplicate name).
Result<std::vector<SchemaElement>> SchemaToParquet(const Schema& schema);

}  // namespace tarn::parquet

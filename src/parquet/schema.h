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
//   IPV4 INT32 INT(32,false) | ARRAY<T> 3-level LIST (optional group (LIST) / repeated group
//   list / element).
// Legacy converted types are written alongside logical types. The exact tarn schema is also
// stored in key-value metadata "tarn.schema" so types Parquet cannot name (IPV4, TIMESTAMP[s])
// come back as written.
//
// Parquet -> tarn (reader) additionally handles files written by others: converted types
// without logical types, INT96 (-> TIMESTAMP[ns]; values outside it are refused by name),
// UNKNOWN (Arrow's Null type -> the physical type's tarn type, nullable, every value null),
// ENUM (-> VARCHAR), BSON/unannotated BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (-> BLOB), FLOAT16
// (-> FLOAT32), legacy 2-level lists and bare repeated fields (-> ARRAY). MAP and struct groups
// are not representable: such a field is listed with `unsupported` set and can only be skipped
// by projection.
#pragma once

#include <string>
#include <vector>

#include "parquet/metadata.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn::parquet {

inline constexpr const char* kTarnSchemaKey = "tarn.schema";

// One repeated node (one ARRAY level) on the path from a top-level field to its leaf.
struct ListLevel {
  int16_t def_present = 0;   // definition level from which the list is not null
  int16_t def_nonempty = 0;  // definition level from which it has an element (its repeated node)
};

// One leaf (primitive) column of a Parquet file, in file order.
struct LeafColumn {
  int schema_index = 0;           // index into FileMetaData::schema
  std::vector<std::string> path;  // path_in_schema
  Type physical = Type::BOOLEAN;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width
  int16_t max_def_level = 0;
  int16_t max_rep_level = 0;
  int field = -1;                // top-level field of ParquetSchema::schema it belongs to
  std::vector<ListLevel> lists;  // one per repeated node on the path, outermost first
};

struct ParquetSchema {
  Schema schema;  // one tarn field per top-level Parquet field
  std::vector<LeafColumn> leaves;
  // For each top-level field: the leaf indices it spans (one for scalars and lists of scalars).
  std::vector<std::vector<int>> field_leaves;
  // For each top-level field: empty if tarn can read it, else why not ("MAP is not supported").
  std::vector<std::string> unsupported;
};

// Resolves a file's schema. kCorruption for a malformed schema tree.
Result<ParquetSchema> SchemaFromParquet(const FileMetaData& md);
// The Parquet schema elements (root first) for a tarn schema. kInvalidArgument if a field
// cannot be written (empty name, duplicate name).
Result<std::vector<SchemaElement>> SchemaToParquet(const Schema& schema);

}  // namespace tarn::parquet

// Helpers shared by the data file reader and writer (not part of the module's interface).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "parquet/schema.h"
#include "table/field_path.h"
#include "tarn/column.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn::datafile_internal {

// For each field of `schema`: the index of the matching top-level field of the file, or -1.
// Matched by field id when any file field carries one, else by name.
std::vector<int> MatchFileFields(const parquet::ParquetSchema& file, const Schema& schema);

// OK when a file column of type `from` can be read as `to` (equal or a lossless widening).
// kInvalidArgument naming the column otherwise (also for a column tarn cannot read).
Status CheckFileColumn(const parquet::ParquetSchema& file, int file_field, const Field& to);

// Whether a file column of type `from` reads as `to`: equal or a lossless widening, and for
// nested types level by level, STRUCT members matched by field id (by name when the file's
// members carry none): a member the file lacks must be nullable (it reads as nulls), a member
// only the file has is skipped (dropped). So renamed, added, dropped and promoted nested fields
// read right. Empty when it does, else why not.
std::string NestedReadMismatch(const DataType& from, const DataType& to);

// `src` (a file column, type with the file's nested ids) as a column of `to`, which
// NestedReadMismatch accepted (or CheckFileColumn, for top-level columns).
Result<Column> ConformColumn(Column src, const DataType& to);

// The leaf column of a file holding STRUCT member `path` (of `schema`, reached through STRUCTs
// only: table/field_path.h) below the file's top-level field `file_field`, each level matched
// as ConformColumn matches members; with the member's type in the file. nullopt when the file
// lacks the member or it is not a single leaf.
struct FileLeaf {
  int leaf = -1;  // index into ParquetSchema::leaves
  DataType type;  // the member's type in the file
};
std::optional<FileLeaf> FindFileStructLeaf(const parquet::ParquetSchema& file, int file_field,
                                           const Schema& schema, const FieldPath& path);

// Appends row `row` of scalar column `src` (a valid row) to `dst` of the same type.
void AppendScalarRow(const Column& src, int64_t row, Column* dst);

// Whether the deprecated (signed-order) Statistics.min/max of a file column of tarn type `type`
// are valid bounds.
bool LegacyStatsUsable(const parquet::LeafColumn& leaf, const DataType& type);

// Parquet bounds of a float column (mins[i], maxes[i]) made safe for pruning, in place: a +0
// minimum may hide -0 values and a -0 maximum +0 ones, so those zeros widen. False when a bound
// is NaN (the bounds are then useless).
bool WidenFloatBounds(Column* mins, Column* maxes);

}  // namespace tarn::datafile_internal

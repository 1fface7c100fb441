// Data files as the catalog records them: path, counts, partition values and per-column
// statistics (Iceberg-style bounds).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tarn/column.h"
#include "tarn/partition.h"
#include "tarn/status.h"

namespace tarn {

struct ColumnStats {
  int32_t field_id = 0;
  int64_t value_count = 0;  // values including nulls
  int64_t null_count = 0;
  std::optional<int64_t> nan_count;  // FLOAT32/FLOAT64 only
  std::optional<std::string> lower;  // Iceberg single-value encoding (types/iceberg.h)
  std::optional<std::string> upper;
  bool operator==(const ColumnStats&) const = default;
};

// Row lineage (C10): the reserved field of a row's id. Iceberg's `_row_id` field id; the column
// is named `_tarn_row_id` where tarn shows it.
inline constexpr int32_t kRowIdFieldId = 2147483540;

struct DataFile {
  std::string path;  // object key relative to the warehouse root
  std::string format = "parquet";
  int64_t record_count = 0;
  int64_t file_size_bytes = 0;
  int32_t spec_id = 0;
  PartitionValues partition;
  std::vector<ColumnStats> columns;  // by field id, ascending
  // Statistics deferred (commit with `stats: "pending"`): `columns` is empty until hydration
  // (housekeeping or `tarn stats hydrate`) reads the file's footer and fills it in. Planning
  // prunes such a file by its partition values only.
  bool stats_pending = false;
  // Assigned by the catalog at commit:
  int64_t file_id = 0;
  int64_t first_row_id = -1;
  int64_t added_snapshot_id = 0;
  std::optional<int64_t> removed_snapshot_id;  // set in change feeds for removed files

  // Stats of `field_id`, or nullptr.
  const ColumnStats* FindStats(int32_t field_id) const;
  // Whether the file stores its rows' ids in a column (field kRowIdFieldId): files written by
  // compaction, whose rows keep the ids they had. The catalog records the column's stats for
  // those files only (commits of other files may not name that field). Every other file's rows
  // have the ids first_row_id + position.
  bool StoresRowIds() const { return FindStats(kRowIdFieldId) != nullptr; }
  // The first and last row id of the file (inclusive): from the stored column's bounds, or
  // first_row_id + [0, record_count - 1]. A file that stores row ids may have gaps inside its
  // range; other files' ranges are contiguous. nullopt for a file without rows or row ids.
  std::optional<std::pair<int64_t, int64_t>> RowIdRange() const;
};

// {"1":{"values":10,"nulls":0,"nans":0,"lower":"<hex>","upper":"<hex>"}} ("nans", "lower",
// "upper" omitted when absent).
std::string StatsToJson(const std::vector<ColumnStats>& stats);
// Sorted by field id. Errors: kInvalidArgument for malformed JSON, bad keys or bad hex.
Result<std::vector<ColumnStats>> StatsFromJson(std::string_view json);

// Longest string bound kept: longer lower bounds are truncated, longer upper bounds truncated
// and incremented (or omitted when no increment exists).
constexpr size_t kMaxStringBoundBytes = 64;

// Statistics of a whole column (a RecordBatch column with its field id): counts and bounds.
// NaNs are counted but never bounds; FLOAT bounds treat -0 < +0. ARRAY columns: counts of rows
// only, no bounds. VARCHAR/JSON bounds are cut at a UTF-8 boundary.
ColumnStats ComputeColumnStats(int32_t field_id, const Column& col);

// Merges stats of the same field from two parts of one file (counts add, bounds widen).
// `type` is the column's type (bounds are compared decoded).
void MergeColumnStats(const DataType& type, const ColumnStats& other, ColumnStats* into);

}  // namespace tarn

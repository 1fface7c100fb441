// The page index (ColumnIndex + OffsetIndex of parquet.thrift, PageIndex.md of parquet-format):
// what the writer records of each data page, how it becomes the two index structs, and the
// checks and row arithmetic the reader does before it trusts one.
//
// The writer writes, for every column chunk, an OffsetIndex (where each data page is and its
// first row) and, when every page that holds values has bounds, a ColumnIndex (per page: only
// nulls?, min, max, null count, and whether the bounds are ordered). Both go after the last row
// group, every ColumnIndex first, then every OffsetIndex (as parquet-mr and Arrow lay them out).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parquet/metadata.h"
#include "parquet/statistics.h"
#include "tarn/status.h"

namespace tarn::parquet {

// What the column writer records of one data page.
struct PageIndexEntry {
  int64_t first_row = 0;   // within the row group
  int64_t null_count = 0;  // levels without a value (nulls, and for lists empty/null lists)
  bool null_page = false;  // the page holds no value at all
  // Its bounds under the column's sort order, as statistics bytes (BYTE_ARRAY truncated as the
  // page statistics are); unset when there are none (NaN floats, a max that cannot be truncated).
  std::optional<std::string> min, max;
  int32_t size = 0;  // header + compressed body, set when the chunk is taken
};

// Compares two statistics values (PLAIN bytes of `type`, BYTE_ARRAY without a length) under
// `order`: negative, zero or positive.
int CompareStatBytes(Type type, StatsOrder order, std::string_view a, std::string_view b);

// The ColumnIndex of a chunk's pages, or nullopt when one may not be written: a page that holds
// values has no bounds (the spec's rule for NaN-only float pages, applied to any page without
// bounds), or the chunk has no pages.
std::optional<ColumnIndex> BuildColumnIndex(const std::vector<PageIndexEntry>& pages, Type type,
                                            StatsOrder order);
// The OffsetIndex of a chunk whose first data page starts at file offset `first_page` and whose
// data pages follow each other.
OffsetIndex BuildOffsetIndex(int64_t first_page, const std::vector<PageIndexEntry>& pages);

// Rows [begin, end) of a row group, relative to its first row.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
  bool operator==(const RowRange&) const = default;
};

// Checks an offset index against its column chunk before the reader uses it: at least one page;
// pages in increasing offset order, not overlapping, inside [chunk_begin, chunk_end); first rows
// strictly increasing from 0 and below `num_rows`. kCorruption naming the first violation.
Status ValidateOffsetIndex(const OffsetIndex& index, int64_t num_rows, int64_t chunk_begin,
                           int64_t chunk_end);
// Checks that a column index describes `pages` pages (every list of that length). kCorruption.
Status ValidateColumnIndex(const ColumnIndex& index, size_t pages);

// Rows of page i of a (validated) offset index in a row group of `num_rows` rows.
RowRange PageRows(const OffsetIndex& index, size_t i, int64_t num_rows);

// The pages of a (validated) offset index that hold at least one row of `ranges` (sorted,
// disjoint), ascending.
std::vector<size_t> PagesForRanges(const OffsetIndex& index, int64_t num_rows,
                                   const std::vector<RowRange>& ranges);

}  // namespace tarn::parquet

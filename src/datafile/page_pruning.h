// Row selection from a predicate and a file's statistics: which rows of a data file may satisfy
// a filter, from the bounds and null counts of its pages (the Parquet page index) or, where a
// chunk has no column index, of its row groups. Internal to the data file reader.
#pragma once

#include <optional>
#include <vector>

#include "datafile/columns_internal.h"
#include "parquet/reader.h"
#include "table/predicate.h"
#include "tarn/column.h"
#include "tarn/status.h"

namespace tarn::datafile_internal {

// A column the filter reads: its dataset field (type, id; a STRUCT member's own) and the file's
// top-level field that holds it (-1: absent from the file or unreadable as the dataset's type);
// for a STRUCT member, the file's leaf column of it.
struct FilterColumn {
  Field field;
  int file_field = -1;
  std::optional<FileLeaf> member;
};

// The columns and STRUCT members of `schema` that `filter` reads, each with where `file` holds
// it (`file_match`: MatchFileFields(file, schema)).
std::vector<FilterColumn> FilterColumnsOf(const BoundPredicate& filter, const Schema& schema,
                                          const parquet::ParquetSchema& file,
                                          const std::vector<int>& file_match);

// Per row group of `reader`'s file, the row ranges that may hold rows satisfying `filter`: every
// row whose page (or row group) bounds and null counts MightMatch (table/predicate.h) allows,
// for the flat columns and STRUCT members of `columns`. A superset of the matching rows; a row group about which
// nothing is known is kept whole. With `row_groups` (ascending indices), only those row groups
// are looked at (and their page index read): the others get no rows. Errors: I/O errors reading
// the page index.
Result<parquet::RowSelection> SelectRows(const parquet::FileReader& reader,
                                         const BoundPredicate& filter,
                                         const std::vector<FilterColumn>& columns,
                                         const std::vector<int>* row_groups = nullptr);

}  // namespace tarn::datafile_internal

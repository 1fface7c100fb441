// Row selection from a predicate and a file's statistics: which rows of a data file may satisfy
// a filter, from the bounds and null counts of its pages (the Parquet page index) or, where a
// chunk has no column index, of its row groups. Internal to the data file reader.
#pragma once

#include <vector>

#include "parquet/reader.h"
#include "table/predicate.h"
#include "tarn/column.h"
#include "tarn/status.h"

namespace tarn::datafile_internal {

// A column the filter reads: its dataset field (type, id) and the file's top-level field that
// holds it (-1: absent from the file).
struct FilterColumn {
  Field field;
  int file_field = -1;
};

// Per row group of `reader`'s file, the row ranges that may hold rows satisfying `filter`: every
// row whose page (or row group) bounds and null counts MightMatch (table/predicate.h) allows,
// for the flat columns of `columns`. A superset of the matching rows; a row group about which
// nothing is known is kept whole. With `row_groups` (ascending indices), only those row groups
// are looked at (and their page index read): the others get no rows. Errors: I/O errors reading
// the page index.
Result<parquet::RowSelection> SelectRows(const parquet::FileReader& reader,
                                         const BoundPredicate& filter,
                                         const std::vector<FilterColumn>& columns,
                                         const std::vector<int>* row_groups = nullptr);

}  // namespace tarn::datafile_internal

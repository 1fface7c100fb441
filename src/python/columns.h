// tarn columns to and from the values the Python layer hands over (python/tarn/_pandas.py
// gives them their pandas shapes; docs/design/python.md has the type mapping, which this file
// implements: keep the two in step).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tarn/column.h"
#include "tarn/dataset.h"

namespace tarn::python {

namespace py = pybind11;

// The rows of `parts` (columns of field `f`'s type, in order) as one pandas-ready column
// (kind, values, mask):
//  - "int", "uint", "float", "bool": a numpy array of the column's own width; mask a numpy
//    bool array (True where null) when the field is nullable, else None;
//  - "datetime", "datetimetz": int64 nanoseconds since the epoch, NaT (INT64_MIN) for null; a
//    value outside datetime64[ns] raises invalid_argument naming the column and row;
//  - "timedelta": TIME[ns] as int64 nanoseconds since midnight, NaT for null;
//  - "object": a numpy object array of the Python values (ValueToPython), None for null.
// The GIL held.
py::tuple ColumnToPython(const Field& f, const std::vector<const Column*>& parts);

// A DataFrame column the Python layer prepared for field `f`, (kind, values, mask), turned into
// tarn Columns a range of rows at a time:
//  - "raw": a 1-D C-contiguous numpy array of exactly the field's physical width (copied as is);
//  - "ns": int64 nanoseconds (datetime64[ns], the UTC instants of a tz-aware column, or
//    timedelta64[ns] for TIME), NaT for null, into TIMESTAMP[u], TIMESTAMPTZ[u], DATE (whole
//    days) or TIME; a value finer than the unit is refused;
//  - "object": a 1-D numpy object array, each value converted by the field's type (the
//    "accepted on append" column of the mapping); None, pd.NA, pd.NaT and float NaN (but
//    NaN stays a value of a FLOAT column) are null.
// mask: None or a numpy bool array, True where null. Made with the GIL held (ValueError for a
// shape that does not fit); Slice of a "raw" or "ns" column reads only the numpy buffer and
// needs no GIL, that of an "object" column needs it (needs_gil()). Destroyed with the GIL held.
class ColumnInput {
 public:
  ColumnInput(Field f, const py::object& kind_values_mask, int64_t rows);

  bool needs_gil() const { return kind_ == Kind::kObject; }
  // Rows [begin, end) as a Column. Errors: invalid_argument naming the column and the row
  // (fields column, row) for a value that does not convert; never throws.
  Result<Column> Slice(int64_t begin, int64_t end) const;

 private:
  enum class Kind { kRaw, kNanos, kObject };
  Status RowError(int64_t row, const std::string& why) const;
  Result<Column> SliceNanos(int64_t begin, int64_t end) const;
  Result<Column> SliceObjects(int64_t begin, int64_t end) const;

  Field field_;
  Kind kind_;
  py::object values_, mask_;  // kept alive for the raw pointers below
  const void* data_ = nullptr;
  const bool* nulls_ = nullptr;
  int64_t rows_ = 0;
};

}  // namespace tarn::python

// tarn columns to and from the values the Python layer hands over (python/tarn/_pandas.py
// gives them their pandas shapes; docs/design/python.md has the type mapping, which this file
// implements: keep the two in step).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "python/buffers.h"
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

// The kind ColumnToPython gives a column of type `t` with a numpy dtype ("bool", "int",
// "uint", "float", "datetime", "datetimetz", "timedelta"); nullptr for an "object" column.
const char* NumpyKind(const DataType& t);
// Whether ColumnToPython makes an "object" column of field `f`'s values.
bool IsObjectColumn(const Field& f);

// invalid_argument naming the column and the row (fields column, row): `why` the value at that
// row cannot be handed over.
Status RowError(const Field& f, int64_t row, const std::string& why);

// A column of ColumnToPython's numpy kinds (not IsObjectColumn) gathered a part at a time
// without the GIL, so that a scan's producer thread does it while the main thread converts
// object columns; Finish hands the gathered memory to numpy without a copy.
class NumpyColumn {
 public:
  // `expected_rows` (an estimate, 0 for none) reserves the memory at once.
  explicit NumpyColumn(Field f, int64_t expected_rows = 0);
  // Appends the rows of `c` (of the field's type): RowError for a timestamp outside
  // datetime64[ns], too_large when memory runs out. No GIL needed.
  Status Add(const Column& c);
  // (kind, values, mask) as ColumnToPython gives them, owning the gathered memory; the column
  // is empty after. The GIL held.
  py::tuple Finish();

 private:
  Field field_;
  size_t width_ = 0;      // bytes per value, copied as they are
  int64_t to_nanos_ = 0;  // TIMESTAMP, TIMESTAMPTZ, TIME[ns]: the factor to nanoseconds
  MappedBuffer values_, mask_;
  int64_t rows_ = 0;
};

// The "object" column of ColumnToPython built a part at a time, so that a scan converts each
// batch while the next one is decoded. Values of a DATE column share one object per distinct
// day across parts. The GIL held for every call, destruction included.
class ObjectColumn {
 public:
  // `expected_rows` (an estimate, 0 for none) reserves the references' memory at once.
  explicit ObjectColumn(Field f, int64_t expected_rows = 0);
  ~ObjectColumn();
  ObjectColumn(const ObjectColumn&) = delete;
  ObjectColumn& operator=(const ObjectColumn&) = delete;

  // Converts the rows of `c` (of the field's type), numbered after the rows added before: a
  // value with no Python form raises invalid_argument naming the column and that row.
  void Add(const Column& c);
  // ("object", the numpy object array of every row added, None): the array adopts the
  // references where they were gathered (no copy); the column is empty after.
  py::tuple Finish();

 private:
  void AddDates(const Column& c);
  PyObject* Date(int32_t day);

  // Appends an owned reference (room made by Add).
  void Push(PyObject* v) {
    *reinterpret_cast<PyObject**>(values_.data + values_.size) = v;
    values_.size += sizeof(PyObject*);
  }

  Field field_;
  MappedBuffer values_;  // owned references, one per row
  int64_t rows_ = 0;
  // Dates made so far: one slot per day from days_lo_ (while the days seen span at most
  // kFlatDays), else a direct-mapped cache of (day, date).
  int32_t days_lo_ = 0;
  std::vector<PyObject*> days_;
  std::vector<std::pair<int32_t, PyObject*>> cache_;
};

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

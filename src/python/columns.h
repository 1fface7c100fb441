// tarn columns to and from the values the Python layer hands over (python/tarn/_pandas.py
// gives them their pandas shapes; docs/design/python.md has the type mapping).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>

#include "tarn/column.h"
#include "tarn/dataset.h"

namespace tarn::python {

namespace py = pybind11;

// One column as (kind, values, mask): kind "int"/"uint"/"float"/"bool" with a numpy array of
// the column's own width, "datetime"/"datetimetz" with int64 nanoseconds since the epoch, "str"
// with a numpy object array of str, "text" with the canonical text of every other type (the
// Python layer turns it into Decimal, date, UUID...); mask a numpy bool array, True where null
// (None when no row is null).
py::tuple ColumnToPython(const Column& c);

// The column of field `f` from (values, mask) of `rows` values: values a numpy array of
// exactly the field's physical type (copied as is; mask a bool array, True where null, or None)
// or a list of canonical texts and None (parsed as the CLI parses CSV cells,
// types/value_text.h). A value that does not parse raises invalid_argument naming the column
// and the row.
Column ColumnFromPython(const Field& f, const py::object& values, const py::object& mask,
                        int64_t rows);

}  // namespace tarn::python

// Type changes: lossless widenings (never fail, never lose information) and casts (may fail
// value by value). The tables are in src/types/README.md.
//
// Rules every cast follows:
//   - into an exact type (integers, DECIMAL, DATE, TIME, TIMESTAMP) a value must convert
//     exactly: no rounding, no truncation (1.5 -> INT32, 1.234 -> DECIMAL(10,2), 10:00:00.5 ->
//     TIMESTAMP[s] and non-midnight timestamps -> DATE all fail);
//   - into FLOAT32/FLOAT64 values round to nearest, and only overflow fails;
//   - TIMESTAMP <-> TIMESTAMPTZ keeps the number: a wall clock is taken as UTC;
//   - TIME -> TIME[ns] never fails; TIME[ns] -> TIME fails unless the value is whole
//     microseconds. Neither is a widening (IsLosslessWidening): both units store 8 bytes, so a
//     promoted column's stored bounds would change meaning (upload plans call TIME -> TIME[ns]
//     a widening of values, as they do DATE -> TIMESTAMP);
//   - VARCHAR -> T parses and T -> VARCHAR formats the canonical text (value_text.h); BLOB text
//     is base64; ARRAY -> VARCHAR or JSON writes the JSON rendering (json_render.h);
//   - nulls stay null.
#pragma once

#include "tarn/column.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn {

// Whether every value of `from` is exactly a value of `to`, so the change can never fail.
// False when from == to (no change at all).
bool IsLosslessWidening(const DataType& from, const DataType& to);

// Whether CastColumn supports from -> to (some values may still fail). True when from == to.
bool CanCast(const DataType& from, const DataType& to);

// Casts every row of `input` to `to`.
// Errors: kInvalidArgument when CanCast is false; kInvalidArgument for the first value that does
// not convert, with fields "row" (0-based row of `input`; for ARRAY the row holding the element)
// and "value" (the value's text), and a message "row N: cannot cast FROM to TO: why".
Result<Column> CastColumn(const Column& input, const DataType& to);

}  // namespace tarn

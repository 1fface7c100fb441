// The text of one value in a printed table (`tarn sql`, `tarn scan`, `tarn parquet cat`): what a
// person reads, where `--json` and `--csv` give what a program reads.
//
//   null               NULL
//   scalars            their canonical text (types/value_text.h), as they are
//   ARRAY              [1, 2, NULL]
//   STRUCT             {a: 1, tags: [x, y]}          members in order
//   MAP                {k: 1, j: 2}                  entries in order
//
// Inside a nested value, text (VARCHAR, JSON, and member names) that is empty, is NULL, starts
// or ends with a space, or holds a control character or one of , : [ ] { } " is written as a
// JSON string ("a, b"), so the nesting stays readable; other values are bare.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tarn/column.h"

namespace tarn::render {

// Row `row` of `col`. A nested value is cut (and ends in "…") once its text passes `max_bytes`:
// a table shows a few dozen characters of it anyway.
std::string CellText(const Column& col, int64_t row, size_t max_bytes = 4096);

}  // namespace tarn::render

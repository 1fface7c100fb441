// JSON rendering of column values, the form of `tarn parquet cat --json`:
//   null; true/false; integers as numbers with every digit; floats as shortest round-trip
//   numbers with "NaN", "Infinity", "-Infinity" as strings; DECIMAL as a string with exactly
//   `scale` fraction digits; VARCHAR and JSON as strings; BLOB as a base64 string; DATE, TIME,
//   TIMESTAMP, TIMESTAMPTZ, UUID, IPV4 as strings in their canonical text (value_text.h);
//   ARRAY as a JSON array; STRUCT as an object keyed by member name, in member order; MAP as an
//   array of {"key":..,"value":..} objects in entry order (keys need not be strings); VARIANT
//   as the JSON its value holds (types/variant.h).
// Strings are escaped by hand; invalid UTF-8 is replaced by U+FFFD (one per maximal
// ill-formed subpart). No allocation beyond growing `out`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/column.h"

namespace tarn {

// Appends `text` as a JSON string literal (with the quotes).
void AppendJsonString(std::string_view text, std::string* out);

// Appends row `row` of `col` as JSON ("null" when the row is null).
void AppendJsonValue(const Column& col, int64_t row, std::string* out);

// Renders rows of batches of one schema as {"name":value,...}; the keys are escaped once.
class JsonRowWriter {
 public:
  explicit JsonRowWriter(const Schema& schema);
  // Appends the object for row `row` (no newline). Precondition: `batch` has this schema's
  // columns.
  void AppendRow(const RecordBatch& batch, int64_t row, std::string* out) const;

 private:
  std::vector<std::string> keys_;  // `"name":`, with a leading ',' after the first
};

// One row as a JSON object keyed by column name.
std::string RenderRowJson(const RecordBatch& batch, int64_t row);

}  // namespace tarn

// Sort orders of datasets, and sorting / row selection of record batches.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/column.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn {

struct SortField {
  int32_t field_id = 0;
  bool descending = false;
  bool nulls_first = true;
  bool operator==(const SortField&) const = default;
};

struct SortOrder {
  std::vector<SortField> fields;  // empty = unsorted
  bool unsorted() const { return fields.empty(); }
  // "id, ts DESC, name ASC NULLS LAST". Defaults like Iceberg: ASC -> NULLS FIRST, DESC ->
  // NULLS LAST. Errors: kInvalidArgument for syntax, unknown or ARRAY columns, duplicates.
  static Result<SortOrder> Parse(std::string_view text, const Schema& schema);
  std::string ToString(const Schema& schema) const;  // "id ASC NULLS FIRST, ts DESC NULLS LAST"
  // Iceberg JSON {"order-id":0,"fields":[{"transform":"identity","source-id":1,
  // "direction":"asc","null-order":"nulls-first"}]} (order-id 0 when unsorted, else 1).
  std::string ToJson() const;
  static Result<SortOrder> FromJson(std::string_view json);
  bool operator==(const SortOrder&) const = default;
};

// Row indices of `batch` in sort order (stable: equal rows keep their order). Columns are found
// by field id (batch.schema.fields[i].field_id). Floats order -NaN..-0 < +0..NaN (total order).
// Errors: kInvalidArgument when a sort column is missing from the batch or is an ARRAY.
Result<std::vector<int64_t>> SortPermutation(const RecordBatch& batch, const SortOrder& order);

// The rows `rows` of `col` / `batch` (each index in [0, length), repeats allowed), in that order.
Column TakeColumn(const Column& col, const std::vector<int64_t>& rows);
RecordBatch TakeRows(const RecordBatch& batch, const std::vector<int64_t>& rows);
// The rows whose mask byte is non-zero (mask.size() == num_rows).
RecordBatch FilterRows(const RecordBatch& batch, const std::vector<uint8_t>& mask);

}  // namespace tarn

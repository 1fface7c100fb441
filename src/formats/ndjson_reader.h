// Streaming NDJSON / JSON Lines reader: one JSON object per line, blank lines skipped, CRLF
// accepted. Keys are matched to target columns like CSV headers (formats/format.h); a key the
// target does not declare is column_undeclared, a row without a NOT NULL column's key is
// column_missing (with the row), a missing nullable key is null.
//
// Values go into their columns by the rules of formats/json_append.h: null is null; strings,
// numbers and booleans are parsed as text in the column's type (types/value_text.h; numbers
// keep their exact text, so DECIMAL columns are exact at any depth); objects and arrays go into
// JSON and VARCHAR columns as compact JSON text, and into ARRAY, STRUCT and MAP columns (to any
// depth) as they are scanned, without building a document. A JSON column stores each value's
// JSON text ("abc" with quotes). A value that does not convert is value_not_castable with the
// column, row and value, its message naming the path inside a nested value
// ("items[2].qty: ..."); a STRUCT member the type lacks is one too (as an undeclared key is an
// error for a line).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/decompress.h"
#include "formats/format.h"
#include "formats/json_append.h"
#include "formats/reader_common.h"

namespace tarn::formats {

// Parses the JSON document `text` and appends it as one value of `out` (formats/json_append.h):
// JSON columns take its compact text, ARRAY, STRUCT and MAP columns an array or object (or
// null), scalar columns a scalar. Nesting deeper than 256 levels is refused. Errors are
// kInvalidArgument, the message naming the path inside the value.
Status AppendJsonText(std::string_view text, Column* out);

class NdjsonReader final : public BatchReader {
 public:
  static Result<std::unique_ptr<NdjsonReader>> Open(std::unique_ptr<InputStream> input,
                                                    std::string name, const Schema& target,
                                                    int64_t batch_rows);
  Result<std::optional<RecordBatch>> Next() override;
  ~NdjsonReader() override;

 private:
  NdjsonReader() = default;
  Status ReadMore();
  // Parses one line into the columns; `row` is its 1-based data row.
  Status ParseLine(std::string_view line, int64_t row, std::vector<Column>* cols);
  Result<int> FieldForKey(std::string_view key);

  std::unique_ptr<InputStream> input_;
  std::string name_;
  Schema target_;
  int64_t batch_rows_ = 65536;
  ByteBuffer buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  bool done_ = false;
  int64_t rows_before_ = 0;
  std::vector<std::pair<std::string, int>> keys_;  // keys seen so far and their fields
  std::vector<uint8_t> seen_;                      // per field, in the current row
  internal::JsonAppender values_;
  std::string key_scratch_;
};

}  // namespace tarn::formats

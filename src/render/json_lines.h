// JSON lines of record batches (`--json` of `tarn scan`, `tarn sql`, `tarn parquet cat`): one
// object per row (types/json_render.h), written in the batch's order. A large batch is rendered
// on several threads, a slice of rows each, and the slices written in order: rendering is most
// of the cost of printing a file as JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/column.h"
#include "tarn/status.h"
#include "types/json_render.h"

namespace tarn::render {

class JsonLines {
 public:
  // `write` gets the text of whole lines, in order; an error from it stops the batch.
  explicit JsonLines(std::function<Status(std::string_view)> write, int threads = 2);

  // Writes rows [0, rows) of `batch`. Every batch has the schema of the first.
  Status Write(const RecordBatch& batch, int64_t rows);

 private:
  std::function<Status(std::string_view)> write_;
  int threads_;
  std::optional<JsonRowWriter> rows_;
  std::vector<std::string> slices_;  // one per thread, reused
};

}  // namespace tarn::render

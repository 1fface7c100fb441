// `tarn convert`: input files (CSV, NDJSON, Parquet, compressed or not) to one Parquet file,
// through the same readers, inference and writer as uploads. Streams: memory is bounded by a
// few batches whatever the input size.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/io.h"
#include "parquet/writer.h"
#include "tarn/column.h"
#include "tarn/status.h"

namespace tarn::upload {

struct ConvertOptions {
  // A declared output schema: its columns (matched to the input's by name, as uploads match
  // them: a nullable column the input lacks is all null, an input column it lacks is
  // column_undeclared), types, nullability and field ids. Fields with id -1 get fresh ids above
  // the largest given one (table/schema_json.h AssignFieldIds). Exclusive with `types` and
  // `infer` (kInvalidArgument). Without it the output's field ids are 1..N by position, then
  // the ARRAY element ids in field order (as Schema::Parse gives them).
  std::optional<Schema> schema;
  // Column types. Without `infer`, every column not listed here is read as VARCHAR (CSV,
  // NDJSON) or keeps its Parquet type; with `infer`, unlisted columns get the types inferred
  // from the first file's sample (formats/infer.h).
  std::map<std::string, std::string> types;  // column -> type text
  bool infer = false;
  CompressionCodec codec = CompressionCodec::kZstd;
  int threads = 2;                                            // reader and writer work in parallel
  std::function<void(int64_t done, int64_t total)> progress;  // input bytes
};

struct ConvertResult {
  Schema schema;  // as written, with its field ids
  int64_t rows = 0;
  int64_t input_bytes = 0;
  int64_t output_bytes = 0;
};

// Converts `inputs` (local paths; all must yield the same columns) into `sink`, which is closed
// on success. value_not_castable / format_unreadable / column_undeclared as the readers report
// them (the first file's columns define the output).
Result<ConvertResult> ConvertFiles(const std::vector<std::string>& inputs,
                                   std::unique_ptr<OutputStream> sink,
                                   const ConvertOptions& options);

}  // namespace tarn::upload

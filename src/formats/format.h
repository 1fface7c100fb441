// Reading input files (CSV, NDJSON, Parquet; optionally gzip/zstd/brotli/deflate compressed)
// into RecordBatches of a declared target schema.
//
// Every reader produces batches whose schema is exactly the target schema (its fields, in its
// order). Input columns are matched to target fields by name: exactly, else case-insensitively
// when that names one field. Errors carry typed fields (tarn/status.h):
//   - a target NOT NULL column absent from the input: kInvalidArgument, code=column_missing,
//     column (NDJSON: a row without the key, plus row);
//   - an input column the target does not declare: kInvalidArgument, code=column_undeclared,
//     column;
//   - a value that does not convert, or a null in a NOT NULL column: kInvalidArgument,
//     code=value_not_castable, column, row (1-based data row of the file), value;
//   - a malformed row (wrong field count, unterminated quote, bad JSON): kInvalidArgument,
//     code=format_unreadable, row.
// Nullable target columns absent from the input are all null.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "common/io.h"
#include "formats/decompress.h"
#include "tarn/column.h"
#include "tarn/status.h"

namespace tarn::formats {

enum class Format : uint8_t { kCsv, kNdjson, kParquet };

std::string_view FormatName(Format format);  // "csv", "ndjson", "parquet"

// The format of a file by its suffix, after any compression suffix: .csv .tsv -> kCsv;
// .ndjson .jsonl .json -> kNdjson; .parquet -> kParquet (any case). Anything else, and a
// compressed Parquet file, is kInvalidArgument with code=format_unreadable.
Result<Format> DetectFormat(std::string_view path);

struct ReadOptions {
  // Rows per batch (at most; CSV also ends a batch early after ~32 MiB of input, Parquet
  // returns one batch per row group).
  int64_t batch_rows = 65536;
  // CSV field delimiter; unset: tab for .tsv names, else detected from the first line among
  // ',' ';' '\t' '|' (',' when none occurs).
  std::optional<char> delimiter;
  // CSV: whether the first row names the columns (default true). Without a header the file's
  // columns are the target's, in order.
  std::optional<bool> header;
  // Whole-file compression; unset: by the suffix of the name (.gz .zst .br .deflate).
  std::optional<InputCompression> compression;
};

// Streams the rows of one input as batches. Memory is bounded by the batch size. Not
// thread-safe.
class BatchReader {
 public:
  virtual ~BatchReader() = default;
  // The next batch, or nullopt at the end. After an error the reader is unusable.
  virtual Result<std::optional<RecordBatch>> Next() = 0;
};

// Opens a reader of `file` as `format`, converting to `target`. `name` gives the suffixes
// (compression, .tsv) and is used in error messages. Header and mapping errors (column_missing,
// column_undeclared) are returned here for CSV and Parquet; NDJSON reports them from Next().
Result<std::unique_ptr<BatchReader>> OpenBatchReader(std::shared_ptr<RandomAccessFile> file,
                                                     std::string_view name, Format format,
                                                     const Schema& target,
                                                     const ReadOptions& options = {});

}  // namespace tarn::formats

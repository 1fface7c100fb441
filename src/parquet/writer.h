// Writing RecordBatches as Parquet files.
//
// Memory is bounded by one row group: encoded and compressed pages of the open row group are
// held until it is flushed. Not thread-safe; internally it may encode columns on several threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/compression.h"
#include "common/io.h"
#include "parquet/bloom_filter.h"
#include "parquet/metadata.h"
#include "tarn/column.h"

namespace tarn::parquet {

struct WriterOptions {
  CompressionCodec codec = CompressionCodec::kZstd;
  int compression_level = -1;             // codec default
  int64_t row_group_rows = 1 << 20;       // flush a row group at this many rows...
  int64_t row_group_bytes = 128ll << 20;  // ...or at this many buffered (encoded) bytes
  int64_t data_page_bytes = 1 << 20;      // target uncompressed data page size...
  // ...and at most this many rows in a data page (parquet-mr's and arrow-rs's default): what a
  // point lookup through the page index reads of each column.
  int64_t data_page_rows = 20000;
  int64_t dictionary_page_bytes = 1 << 20;  // dictionary falls back to PLAIN past this
  bool enable_dictionary = true;
  bool write_statistics = true;
  // Write the page index (an OffsetIndex for every column chunk, and a ColumnIndex where every
  // page with values has bounds) after the last row group; readers use it to skip pages.
  bool page_index = true;
  int threads = 2;  // columns encoded in parallel
  // 1: DATA_PAGE with PLAIN after a dictionary falls back. 2: DATA_PAGE_V2 (uncompressed levels),
  // and DELTA_BINARY_PACKED / DELTA_LENGTH_BYTE_ARRAY / BYTE_STREAM_SPLIT instead of PLAIN.
  int data_page_version = 1;
  std::vector<KeyValue> key_value_metadata;
  std::string created_by = "tarn version 0.1.0";
  // Fields that get a split block bloom filter per column chunk (flat, not BOOLEAN): top-level
  // ones by name, STRUCT members by dotted path ("payload.status", through STRUCTs only); sized for the chunk's distinct values at `bloom_filter.fpp`, at most `max_bytes`. Each
  // filter is written after its row group's chunks (bloom_filter.h).
  std::vector<std::string> bloom_filter_columns;
  BloomFilterOptions bloom_filter;
};

class FileWriter {
 public:
  // The sink is owned by the writer and closed by Close(). kInvalidArgument for a schema that
  // cannot be written, or a bloom filter column that is not a flat, non-BOOLEAN field or member.
  static Result<std::unique_ptr<FileWriter>> Open(std::unique_ptr<OutputStream> sink, Schema schema,
                                                  WriterOptions options = {});
  ~FileWriter();
  // Appends rows. The batch's columns must match the schema in order and type
  // (kInvalidArgument otherwise, e.g. a null in a NOT NULL field).
  Status Write(const RecordBatch& batch);
  // Flushes, writes the footer and closes the sink. The file is complete only after this.
  Status Close();
  // The footer written by Close().
  const FileMetaData& metadata() const;
  int64_t rows_written() const;

 private:
  class Impl;
  explicit FileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tarn::parquet

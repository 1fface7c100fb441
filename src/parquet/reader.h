// Reading Parquet files into RecordBatches.
//
// Thread safety: a FileReader is immutable after Open; ReadRowGroup may be called from several
// threads at once. Every malformed byte sequence yields kCorruption naming what is wrong
// (file, row group, column, page), never a crash.
#pragma once

#include <memory>
#include <vector>

#include "common/io.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "tarn/column.h"

namespace tarn::parquet {

struct ReaderOptions {
  // Threads used to decode the columns of a row group in parallel (1 = calling thread only).
  int threads = 2;
  // With an empty field list, leave out fields tarn cannot read (MAP, struct) instead of
  // failing with kInvalidArgument.
  bool skip_unsupported = false;
};

class FileReader {
 public:
  // Reads and validates the footer. kCorruption if the file is not Parquet or is truncated.
  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<RandomAccessFile> file,
                                                  ReaderOptions options = {});
  // Reads only the footer with ranged reads (the last 64 KiB, then the rest if needed).
  static Result<FileMetaData> ReadFooter(const RandomAccessFile& file);

  const FileMetaData& metadata() const { return metadata_; }
  const ParquetSchema& schema() const { return schema_; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }

  // Reads one row group. `fields` are indices of top-level fields (empty = every field; an
  // unsupported field named here is kInvalidArgument, skipped silently when `fields` is empty
  // only if `skip_unsupported`). The batch schema holds the selected fields in that order.
  Result<RecordBatch> ReadRowGroup(int row_group, const std::vector<int>& fields = {}) const;
  // All row groups concatenated.
  Result<RecordBatch> ReadAll(const std::vector<int>& fields = {}) const;
  // The listed row groups (ascending indices), concatenated in that order.
  Result<RecordBatch> ReadRowGroupSubset(const std::vector<int>& row_groups,
                                         const std::vector<int>& fields = {}) const;

 private:
  FileReader() = default;
  std::shared_ptr<RandomAccessFile> file_;
  ReaderOptions options_;
  FileMetaData metadata_;
  ParquetSchema schema_;
};

}  // namespace tarn::parquet

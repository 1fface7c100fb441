// Reads a Parquet file as batches of a target schema: file columns matched to target fields by
// name (formats/format.h rules), converted with types/cast.h when the types differ, one batch
// per row group. Errors as in formats/format.h; a file column whose type cannot be cast at all
// is kInvalidArgument with code=value_not_castable, column, from and to, at Open.
#pragma once

#include <memory>
#include <string>

#include "formats/format.h"
#include "formats/reader_common.h"
#include "parquet/reader.h"

namespace tarn::formats {

class ParquetSource final : public BatchReader {
 public:
  static Result<std::unique_ptr<ParquetSource>> Open(std::shared_ptr<RandomAccessFile> file,
                                                     std::string name, const Schema& target);
  Result<std::optional<RecordBatch>> Next() override;
  ~ParquetSource() override;

 private:
  ParquetSource() = default;
  std::unique_ptr<parquet::FileReader> reader_;
  std::string name_;
  Schema target_;
  internal::ColumnMapping mapping_;
  int next_row_group_ = 0;
  int64_t rows_before_ = 0;
};

}  // namespace tarn::formats

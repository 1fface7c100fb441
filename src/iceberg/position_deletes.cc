#include "iceberg/position_deletes.h"

#include <limits>
#include <memory>
#include <utility>

#include "common/io.h"
#include "parquet/writer.h"
#include "tarn/column.h"

namespace tarn::iceberg {

Result<std::string> PositionDeleteFile(std::string_view data_file,
                                       const std::vector<uint64_t>& positions) {
  if (positions.empty()) return Status::InvalidArgument("a position delete file needs a position");
  for (size_t i = 0; i < positions.size(); ++i) {
    if (positions[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::InvalidArgument("position " + std::to_string(positions[i]) +
                                     " is past Iceberg's long");
    }
    if (i > 0 && positions[i] <= positions[i - 1]) {
      return Status::InvalidArgument("positions must be sorted and unique");
    }
  }
  Schema schema;
  schema.fields.push_back({"file_path", DataType::Varchar(), false, kDeleteFilePathFieldId});
  schema.fields.push_back({"pos", DataType::Int64(), false, kDeletePosFieldId});
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = static_cast<int64_t>(positions.size());
  Column path(DataType::Varchar());
  Column pos(DataType::Int64());
  for (uint64_t p : positions) {
    path.AppendBytes(data_file);
    pos.AppendFixed(static_cast<int64_t>(p));
  }
  batch.columns.push_back(std::move(path));
  batch.columns.push_back(std::move(pos));

  auto sink = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* out = sink.get();  // owned by the writer, read after Close
  parquet::WriterOptions options;
  options.bloom_filter_columns.clear();
  TARN_ASSIGN_OR_RETURN(auto writer, parquet::FileWriter::Open(std::move(sink), schema, options));
  TARN_RETURN_NOT_OK(writer->Write(batch));
  TARN_RETURN_NOT_OK(writer->Close());
  return out->bytes();
}

}  // namespace tarn::iceberg

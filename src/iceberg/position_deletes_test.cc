#include "iceberg/position_deletes.h"

#include <gtest/gtest.h>

#include "common/io.h"
#include "parquet/reader.h"

namespace tarn::iceberg {
namespace {

TEST(PositionDeletes, AParquetFileOfTheSpecsColumnsAndIds) {
  const std::string data = "s3://bucket/datasets/u/data/f1.parquet";
  auto bytes = PositionDeleteFile(data, {0, 7, 8, 1000000});
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto reader = parquet::FileReader::Open(MemoryFile(*bytes));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_rows(), 4);
  auto batch = (*reader)->ReadAll();
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->schema.fields.size(), 2u);
  EXPECT_EQ(batch->schema.fields[0].name, "file_path");
  EXPECT_EQ(batch->schema.fields[0].field_id, 2147483546);
  EXPECT_FALSE(batch->schema.fields[0].nullable);
  EXPECT_EQ(batch->schema.fields[1].name, "pos");
  EXPECT_EQ(batch->schema.fields[1].field_id, 2147483545);
  EXPECT_EQ(batch->schema.fields[1].type, DataType::Int64());
  const int64_t want[] = {0, 7, 8, 1000000};
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(batch->columns[0].StringAt(i), data);
    EXPECT_EQ(batch->columns[1].Value<int64_t>(i), want[i]);
  }
  // Statistics: readers match a delete file to its data file by the file_path bounds.
  const auto& chunk = (*reader)->metadata().row_groups.at(0).columns.at(0);
  ASSERT_TRUE(chunk.meta_data.has_value() && chunk.meta_data->statistics.has_value());
  EXPECT_EQ(chunk.meta_data->statistics->min_value, data);
  EXPECT_EQ(chunk.meta_data->statistics->max_value, data);
}

TEST(PositionDeletes, RefusesWhatIsNoDeletionVector) {
  EXPECT_FALSE(PositionDeleteFile("f", {}).ok());
  EXPECT_FALSE(PositionDeleteFile("f", {3, 2}).ok());
  EXPECT_FALSE(PositionDeleteFile("f", {2, 2}).ok());
  EXPECT_FALSE(PositionDeleteFile("f", {uint64_t{1} << 63}).ok());
}

}  // namespace
}  // namespace tarn::iceberg

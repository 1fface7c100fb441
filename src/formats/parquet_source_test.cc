#include "formats/parquet_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "formats/test_util.h"
#include "parquet/writer.h"

namespace tarn::formats {
namespace {

using testing::FieldOf;
using V = std::vector<std::string>;

class ParquetSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("tarn_formats_pq_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes ids 0..n-1 (INT32), names "n<i>" (VARCHAR, every 4th null) and codes "<i>"
  // (VARCHAR) in row groups of `group_rows`.
  std::string WriteFile(int n, int64_t group_rows, const std::string& bad_code_at = "") {
    Schema schema = testing::MustSchema("id INT32 NOT NULL, name VARCHAR, code VARCHAR");
    const std::string path = (dir_ / "in.parquet").string();
    auto sink = CreateLocalFile(path);
    EXPECT_TRUE(sink.ok());
    parquet::WriterOptions wo;
    wo.row_group_rows = group_rows;
    auto writer = parquet::FileWriter::Open(std::move(*sink), schema, wo);
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    RecordBatch b;
    b.schema = schema;
    b.num_rows = n;
    b.columns.emplace_back(DataType::Int32());
    b.columns.emplace_back(DataType::Varchar());
    b.columns.emplace_back(DataType::Varchar());
    for (int i = 0; i < n; ++i) {
      b.columns[0].AppendFixed<int32_t>(i);
      if (i % 4 == 0) {
        b.columns[1].AppendNull();
      } else {
        b.columns[1].AppendBytes("n" + std::to_string(i));
      }
      b.columns[2].AppendBytes(std::to_string(i) == bad_code_at ? "oops" : std::to_string(i));
    }
    EXPECT_TRUE((*writer)->Write(b).ok());
    EXPECT_TRUE((*writer)->Close().ok());
    return path;
  }

  Result<std::vector<RecordBatch>> Read(const std::string& path, std::string_view schema) {
    TARN_ASSIGN_OR_RETURN(auto file, OpenLocalFile(path));
    TARN_ASSIGN_OR_RETURN(auto reader, OpenBatchReader(file, path, Format::kParquet,
                                                       testing::MustSchema(schema), {}));
    std::vector<RecordBatch> out;
    while (true) {
      TARN_ASSIGN_OR_RETURN(auto b, reader->Next());
      if (!b) break;
      out.push_back(std::move(*b));
    }
    return out;
  }

  std::filesystem::path dir_;
};

TEST_F(ParquetSourceTest, MapsByNameCastsAndFillsNulls) {
  const std::string path = WriteFile(10, 4);
  auto batches = Read(path, "extra DATE, CODE INT64 NOT NULL, id INT64 NOT NULL, name VARCHAR");
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  EXPECT_EQ(batches->size(), 3u);  // one per row group
  auto rows = testing::RenderRows(*batches);
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows[0], "NULL|0|0|NULL");
  EXPECT_EQ(rows[5], "NULL|5|5|n5");
  EXPECT_EQ((*batches)[0].columns[2].type, DataType::Int64());
  EXPECT_EQ((*batches)[0].schema.fields[1].name, "CODE");
}

TEST_F(ParquetSourceTest, CastFailureNamesColumnRowAndValue) {
  const std::string path = WriteFile(10, 4, "6");
  auto batches = Read(path, "id INT32, name VARCHAR, code INT32");
  ASSERT_FALSE(batches.ok());
  EXPECT_EQ(FieldOf(batches.status(), "code"), "value_not_castable");
  EXPECT_EQ(FieldOf(batches.status(), "column"), "code");
  EXPECT_EQ(FieldOf(batches.status(), "row"), "7");
  EXPECT_EQ(FieldOf(batches.status(), "value"), "oops");
}

TEST_F(ParquetSourceTest, SchemaMismatches) {
  const std::string path = WriteFile(8, 100);
  auto undeclared = Read(path, "id INT32, name VARCHAR");
  ASSERT_FALSE(undeclared.ok());
  EXPECT_EQ(FieldOf(undeclared.status(), "code"), "column_undeclared");
  EXPECT_EQ(FieldOf(undeclared.status(), "column"), "code");

  auto missing = Read(path, "id INT32, name VARCHAR, code VARCHAR, z INT32 NOT NULL");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(FieldOf(missing.status(), "code"), "column_missing");

  auto null_in_not_null = Read(path, "id INT32, name VARCHAR NOT NULL, code VARCHAR");
  ASSERT_FALSE(null_in_not_null.ok());
  EXPECT_EQ(FieldOf(null_in_not_null.status(), "code"), "value_not_castable");
  EXPECT_EQ(FieldOf(null_in_not_null.status(), "row"), "1");

  auto uncastable = Read(path, "id UUID, name VARCHAR, code VARCHAR");
  ASSERT_FALSE(uncastable.ok());
  EXPECT_EQ(FieldOf(uncastable.status(), "column"), "id");

  auto not_parquet = testing::ReadBatches("id\n1\n", "x.parquet", testing::MustSchema("id INT32"));
  ASSERT_FALSE(not_parquet.ok());
  EXPECT_EQ(not_parquet.status().kind(), ErrorKind::kCorruption);
}

}  // namespace
}  // namespace tarn::formats

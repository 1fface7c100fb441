#include "formats/format.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>

#include "common/compression.h"
#include "formats/test_util.h"

namespace tarn::formats {
namespace {

using testing::FieldOf;
using testing::ReadRows;
using V = std::vector<std::string>;

TEST(DetectFormat, BySuffix) {
  EXPECT_EQ(*DetectFormat("a/b.csv"), Format::kCsv);
  EXPECT_EQ(*DetectFormat("B.TSV"), Format::kCsv);
  EXPECT_EQ(*DetectFormat("x.csv.gz"), Format::kCsv);
  EXPECT_EQ(*DetectFormat("x.ndjson.zst"), Format::kNdjson);
  EXPECT_EQ(*DetectFormat("x.jsonl.br"), Format::kNdjson);
  EXPECT_EQ(*DetectFormat("x.json.deflate"), Format::kNdjson);
  EXPECT_EQ(*DetectFormat("x.Parquet"), Format::kParquet);
  auto unknown = DetectFormat("x.txt");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(FieldOf(unknown.status(), "code"), "format_unreadable");
  EXPECT_FALSE(DetectFormat("x.parquet.gz").ok());
  EXPECT_FALSE(DetectFormat("csv").ok());
  std::string_view stem;
  EXPECT_EQ(CompressionFromSuffix("a.csv.ZST", &stem), InputCompression::kZstd);
  EXPECT_EQ(stem, "a.csv");
  EXPECT_EQ(CompressionFromSuffix("a.csv", &stem), InputCompression::kNone);
  EXPECT_EQ(stem, "a.csv");
}

std::string Compressed(CompressionCodec codec, const std::string& raw) {
  ByteBuffer out;
  EXPECT_TRUE(Compress(codec, reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), &out).ok());
  return std::string(out.begin(), out.end());
}

std::string RawDeflate(const std::string& raw) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, raw.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string BigCsv(int n) {
  std::string csv = "id,name\n";
  for (int i = 0; i < n; ++i) csv += std::to_string(i) + ",\"name, " + std::to_string(i) + "\"\n";
  return csv;
}

TEST(Decompression, EveryCodecStreams) {
  const std::string csv = BigCsv(200000);  // several MiB: many read blocks
  ASSERT_GT(csv.size(), 3u << 20);
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"t.csv.gz", Compressed(CompressionCodec::kGzip, csv)},
      {"t.csv.zst", Compressed(CompressionCodec::kZstd, csv)},
      {"t.csv.br", Compressed(CompressionCodec::kBrotli, csv)},
      {"t.csv.deflate", RawDeflate(csv)},
  };
  for (const auto& [name, bytes] : inputs) {
    auto rows = ReadRows(bytes, name, "id INT64, name VARCHAR");
    ASSERT_TRUE(rows.ok()) << name << rows.status().ToString();
    ASSERT_EQ(rows->size(), 200000u) << name;
    EXPECT_EQ((*rows)[0], "0|name, 0");
    EXPECT_EQ((*rows)[199999], "199999|name, 199999") << name;
  }
}

TEST(Decompression, ConcatenatedGzipMembersAndExplicitCodec) {
  std::string two = Compressed(CompressionCodec::kGzip, "id\n1\n") +
                    Compressed(CompressionCodec::kGzip, "2\n3\n");
  auto rows = ReadRows(two, "t.csv.gz", "id INT32");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"1", "2", "3"}));
  // Content-Encoding style: the codec given, the name without a suffix.
  ReadOptions opt;
  opt.compression = InputCompression::kZstd;
  auto zrows =
      ReadRows(Compressed(CompressionCodec::kZstd, "{\"id\":4}\n"), "t.ndjson", "id INT32", opt);
  ASSERT_TRUE(zrows.ok()) << zrows.status().ToString();
  EXPECT_EQ(*zrows, (V{"4"}));
}

TEST(Decompression, TruncatedAndGarbageAreCorruption) {
  const std::string csv = BigCsv(20000);
  for (auto codec : {CompressionCodec::kGzip, CompressionCodec::kZstd, CompressionCodec::kBrotli}) {
    std::string full = Compressed(codec, csv);
    std::string cut = full.substr(0, full.size() / 2);
    const std::string name = codec == CompressionCodec::kGzip   ? "t.csv.gz"
                             : codec == CompressionCodec::kZstd ? "t.csv.zst"
                                                                : "t.csv.br";
    auto rows = ReadRows(cut, name, "id INT64, name VARCHAR");
    ASSERT_FALSE(rows.ok()) << name;
    EXPECT_EQ(rows.status().kind(), ErrorKind::kCorruption) << name << rows.status().ToString();
    auto garbage = ReadRows(std::string(1000, 'x'), name, "id INT64, name VARCHAR");
    ASSERT_FALSE(garbage.ok()) << name;
    EXPECT_EQ(garbage.status().kind(), ErrorKind::kCorruption) << name;
  }
  std::string deflated = RawDeflate(csv);
  auto cut =
      ReadRows(deflated.substr(0, deflated.size() / 2), "t.csv.deflate", "id INT64, name VARCHAR");
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().kind(), ErrorKind::kCorruption);
}

TEST(OpenBatchReader, LocalCompressedFile) {
  auto dir =
      std::filesystem::temp_directory_path() / ("tarn_formats_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "in.tsv.gz").string();
  {
    auto out = CreateLocalFile(path);
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE((*out)->Write(Compressed(CompressionCodec::kGzip, "a\tb\n1\tx,y\n")).ok());
    ASSERT_TRUE((*out)->Close().ok());
  }
  auto file = OpenLocalFile(path);
  ASSERT_TRUE(file.ok());
  auto format = DetectFormat(path);
  ASSERT_TRUE(format.ok());
  auto reader =
      OpenBatchReader(*file, path, *format, testing::MustSchema("a INT32, b VARCHAR"), {});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto batch = (*reader)->Next();
  ASSERT_TRUE(batch.ok());
  ASSERT_TRUE(batch->has_value());
  std::vector<RecordBatch> got;
  got.push_back(std::move(**batch));
  EXPECT_EQ(testing::RenderRows(got), (V{"1|x,y"}));
  auto end = (*reader)->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tarn::formats

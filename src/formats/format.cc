#include "formats/format.h"

#include "formats/csv_reader.h"
#include "formats/error_codes.h"
#include "formats/infer.h"
#include "formats/ndjson_reader.h"
#include "formats/parquet_source.h"
#include "formats/reader_common.h"

namespace tarn::formats {

using internal::EndsWithIgnoreCase;

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kCsv:
      return "csv";
    case Format::kNdjson:
      return "ndjson";
    case Format::kParquet:
      return "parquet";
  }
  return "csv";
}

Result<Format> DetectFormat(std::string_view path) {
  std::string_view stem;
  const InputCompression compression = CompressionFromSuffix(path, &stem);
  if (EndsWithIgnoreCase(stem, ".csv") || EndsWithIgnoreCase(stem, ".tsv")) return Format::kCsv;
  for (std::string_view s : {".ndjson", ".jsonl", ".json"}) {
    if (EndsWithIgnoreCase(stem, s)) return Format::kNdjson;
  }
  if (EndsWithIgnoreCase(stem, ".parquet")) {
    if (compression != InputCompression::kNone) {
      return Status::Of(codes::kFormatUnreadable,
                        "'" + std::string(path) +
                            "': a compressed Parquet file cannot be read (Parquet "
                            "compresses its pages itself)");
    }
    return Format::kParquet;
  }
  return Status::Of(codes::kFormatUnreadable,
                    "'" + std::string(path) +
                        "': unknown format (expected .csv, .tsv, .ndjson, .jsonl, "
                        ".json or .parquet, optionally with .gz, .zst, .br or .deflate)");
}

Result<std::unique_ptr<BatchReader>> OpenBatchReader(std::shared_ptr<RandomAccessFile> file,
                                                     std::string_view name, Format format,
                                                     const Schema& target,
                                                     const ReadOptions& options) {
  if (file == nullptr) return Status::InvalidArgument("no input file");
  std::string_view stem;
  InputCompression by_suffix = CompressionFromSuffix(name, &stem);
  const InputCompression compression = options.compression.value_or(by_suffix);
  if (format == Format::kParquet) {
    if (compression != InputCompression::kNone) {
      return Status::Of(codes::kFormatUnreadable,
                        "'" + std::string(name) + "': a compressed Parquet file cannot be read");
    }
    TARN_ASSIGN_OR_RETURN(auto r, ParquetSource::Open(std::move(file), std::string(name), target));
    return std::unique_ptr<BatchReader>(std::move(r));
  }
  TARN_ASSIGN_OR_RETURN(auto input, OpenInputStream(std::move(file), InputCompression::kNone));
  return OpenStreamBatchReader(std::move(input), name, format, compression, target, options);
}

Result<std::unique_ptr<BatchReader>> OpenStreamBatchReader(std::unique_ptr<InputStream> raw,
                                                           std::string_view name, Format format,
                                                           InputCompression compression,
                                                           const Schema& target,
                                                           const ReadOptions& options) {
  if (raw == nullptr) return Status::InvalidArgument("no input stream");
  if (format == Format::kParquet) {
    return Status::Of(codes::kFormatUnreadable,
                      "'" + std::string(name) +
                          "': a Parquet file cannot be read from a stream (it needs "
                          "random access)");
  }
  std::string_view stem;
  CompressionFromSuffix(name, &stem);
  TARN_ASSIGN_OR_RETURN(auto input, OpenInputStream(std::move(raw), compression));
  if (format == Format::kNdjson) {
    TARN_ASSIGN_OR_RETURN(auto r, NdjsonReader::Open(std::move(input), std::string(name), target,
                                                     options.batch_rows));
    return std::unique_ptr<BatchReader>(std::move(r));
  }
  CsvOptions csv;
  csv.delimiter = options.delimiter;
  if (!csv.delimiter && EndsWithIgnoreCase(stem, ".tsv")) csv.delimiter = '\t';
  csv.header = options.header.value_or(true);
  csv.batch_rows = options.batch_rows;
  TARN_ASSIGN_OR_RETURN(auto r, CsvReader::Open(std::move(input), std::string(name), target, csv));
  return std::unique_ptr<BatchReader>(std::move(r));
}

}  // namespace tarn::formats

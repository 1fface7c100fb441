// Column chunk writers: turn tarn Columns into encoded, compressed Parquet pages held in memory
// until the row group is flushed. Used by FileWriter; one writer per top-level field.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/compression.h"
#include "parquet/bloom_filter.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/statistics.h"
#include "tarn/buffer.h"
#include "tarn/column.h"
#include "tarn/status.h"

namespace tarn::parquet {

// Deepest nesting of ARRAY, STRUCT and MAP the writer accepts (levels are stored in one byte).
inline constexpr int kMaxNesting = 32;
// Names of the repeated groups of LIST and MAP (and so of their leaves' path_in_schema).
inline constexpr const char* kListRepeatedName = "list";
inline constexpr const char* kMapRepeatedName = "key_value";

// How a scalar (non-nested) tarn type is stored.
struct PhysicalMapping {
  Type type = Type::BOOLEAN;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width
  StatsOrder order = StatsOrder::kSigned;
};
PhysicalMapping PhysicalFor(const DataType& leaf);
// Bytes of the FIXED_LEN_BYTE_ARRAY holding a DECIMAL of this precision.
int DecimalFlbaWidth(int precision);
// kInvalidArgument for codecs tarn does not write (LZ4 with Hadoop framing).
Result<Codec> ParquetCodecFor(CompressionCodec codec);

struct ColumnWriterOptions {
  CompressionCodec codec = CompressionCodec::kZstd;
  int compression_level = -1;
  int64_t data_page_bytes = 1 << 20;
  int64_t data_page_rows = 20000;  // > 0
  int64_t dictionary_page_bytes = 1 << 20;
  bool enable_dictionary = true;
  bool write_statistics = true;
  bool page_index = true;     // record PageIndexEntry per data page (EncodedChunk)
  int data_page_version = 1;  // 1 or 2
  // A bloom filter per chunk (flat, non-BOOLEAN fields only: BloomFilterSupports).
  std::optional<BloomFilterOptions> bloom_filter;
};

// One encoded page: its header and (compressed) body, contiguous in `bytes` from `offset` (room
// is left before the body so the header can be placed without copying the body).
struct EncodedPage {
  ByteBuffer bytes;
  size_t offset = 0;
  const uint8_t* data() const { return bytes.data() + offset; }
  size_t size() const { return bytes.size() - offset; }
};

// A finished column chunk. Offsets in `meta` are relative to the chunk's first byte; the file
// writer rebases them.
struct EncodedChunk {
  std::vector<EncodedPage> pages;  // the dictionary page first, when there is one
  ColumnMetaData meta;
  // With ColumnWriterOptions::page_index: one entry per data page, in order (sizes set), and
  // the chunk's column index when one may be written.
  std::vector<PageIndexEntry> page_entries;
  std::optional<ColumnIndex> column_index;
  std::optional<BloomFilter> bloom_filter;  // of the chunk's values, when asked for
};

// The Parquet leaf columns of a field of this type: 1 for scalars and lists of scalars, the sum
// over the nested fields for STRUCT and MAP.
int LeafCount(const DataType& type);

// Encodes one leaf column of a top-level field (the only one of a scalar or a list of scalars;
// one of several for a STRUCT or MAP, which get one writer per leaf). Pages are encoded by
// WriteRows/CloseChunk and compressed separately, so that a caller can compress the pages of
// all columns in parallel:
//   WriteRows... [CloseChunk]; CompressPage(0..pending_pages()-1); SettlePages(); [TakeChunk]
// A writer is used by one thread at a time, except that CompressPage may run concurrently for
// different pages.
class ColumnChunkWriter {
 public:
  // The writer of leaf `leaf` (0 <= leaf < LeafCount(field.type), in SchemaToParquet's order) of
  // `field`.
  static Result<std::unique_ptr<ColumnChunkWriter>> Make(const Field& field, int leaf,
                                                         const ColumnWriterOptions& options);
  static Result<std::unique_ptr<ColumnChunkWriter>> Make(const Field& field,
                                                         const ColumnWriterOptions& options) {
    return Make(field, 0, options);
  }
  virtual ~ColumnChunkWriter() = default;
  // Appends rows [begin, end) of `column` (the whole top-level field's column), which the caller
  // has validated against the field (type, structure, nullability, value ranges).
  virtual Status WriteRows(const Column& column, int64_t begin, int64_t end) = 0;
  // Ends the chunk: queues its last data page and its dictionary page.
  virtual Status CloseChunk() = 0;
  // Pages queued since the last SettlePages.
  virtual int pending_pages() const = 0;
  // Compresses queued page i (errors from the codec, or kTooLarge past 2 GiB).
  virtual Status CompressPage(int i) = 0;
  // Accounts for the compressed pages; call after every CompressPage of the batch succeeded.
  virtual void SettlePages() = 0;
  // After CloseChunk and SettlePages: the chunk's pages and metadata; starts a new chunk.
  virtual void TakeChunk(EncodedChunk* out) = 0;
  // Bytes held for the open chunk (pages, queued pages, the page being built, the dictionary).
  virtual int64_t buffered_bytes() const = 0;
};

// Validates `column` against `field` for writing: structure (sizes, offsets), no null where the
// field or its elements are NOT NULL, DECIMAL values within precision, TIMESTAMP[s] values that
// fit in milliseconds. kInvalidArgument naming the field and row.
Status ValidateColumnForWrite(const Field& field, const Column& column);

}  // namespace tarn::parquet

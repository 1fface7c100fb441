// Decoding of one column chunk into a tarn Column: pages, levels, values, conversion to tarn's
// physical form, and record assembly for nested columns. Internal to the Parquet reader.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/io.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "tarn/buffer.h"
#include "tarn/column.h"
#include "tarn/status.h"

namespace tarn::parquet {

// How a Parquet value becomes a tarn value.
enum class Conversion : uint8_t {
  kCopy,            // same bytes (fixed width)
  kInt32ToInt8,     // INT32 -> 1 byte (INT8/UINT8)
  kInt32ToInt16,    // INT32 -> 2 bytes
  kInt32ToInt128,   // DECIMAL on INT32
  kInt64ToInt128,   // DECIMAL on INT64
  kInt32Scale,      // INT32 -> int64 * factor (TIME millis -> micros)
  kInt64ScaleDown,  // int64 floor-divided by factor (TIME nanos, TIMESTAMP ms stored for [s])
  kInt64ScaleUp,    // int64 * factor
  kInt96ToNanos,    // INT96 (nanos of day, Julian day) -> ns since the epoch
  kFloat16ToFloat,  // FIXED_LEN_BYTE_ARRAY(2) FLOAT16 -> float
  kFixedBigEndianToInt128,  // DECIMAL on FIXED_LEN_BYTE_ARRAY
  kFixedToBinary,           // FIXED_LEN_BYTE_ARRAY -> BLOB
  kBinary,                  // BYTE_ARRAY -> VARCHAR/BLOB/JSON
  kBinaryToInt128,          // DECIMAL on BYTE_ARRAY
};

// What one leaf decodes into.
struct LeafPlan {
  Type physical = Type::BOOLEAN;
  int raw_width = 0;  // bytes of one Parquet value (fixed-width physical types), else 0
  DataType target;    // the leaf column's tarn type
  int out_width = 0;  // target.PhysicalWidth(); 0 for variable width
  Conversion conv = Conversion::kCopy;
  int64_t factor = 1;  // for the scale conversions
  // Logical type UNKNOWN (Arrow's Null type): every value is null, whatever the pages hold.
  bool all_null = false;
};

// An INT96 timestamp (nanoseconds of the day as int64, then the Julian day as int32, both
// little-endian) as nanoseconds since 1970-01-01; false when that overflows int64 (TIMESTAMP[ns]
// spans 1677-09-21 to 2262-04-11; Spark writes 9999-12-31 as an "end of time" marker).
bool Int96ToNanos(const uint8_t* raw, int64_t* out);
// kInvalidArgument naming the INT96 value at `raw` that Int96ToNanos refused.
Status Int96OutOfRange(const uint8_t* raw);

// Chooses the conversion for a leaf whose tarn type is `target`. kInternal if there is none
// (SchemaFromParquet only produces types that have one).
Result<LeafPlan> PlanLeaf(const SchemaElement& element, const LeafColumn& leaf,
                          const DataType& target);

// Buffers reused across the chunks one thread decodes.
struct DecodeScratch {
  ByteBuffer chunk;
  ByteBuffer page;
  ByteBuffer tmp_data;
  std::vector<int64_t> tmp_offsets;
  std::vector<int16_t, DefaultInitAllocator<int16_t>> def;
  std::vector<int16_t, DefaultInitAllocator<int16_t>> rep;
  std::vector<uint32_t, DefaultInitAllocator<uint32_t>> indices;
  ByteBuffer ints;
  std::vector<int32_t> lens;
  ByteBuffer valid;
  std::vector<ByteBuffer> list_valid;  // per column on a leaf's path: the validity of new slots
  int64_t data_pages = 0;  // data pages decoded (a counter for ReadStats)
};

// Decodes the chunk bytes `data` (the whole column chunk, starting at its first page) holding
// `num_rows` rows and appends them to *out, whose type is the leaf's top-level field type.
// A field of several leaves (STRUCT, MAP) is decoded leaf by leaf into the same *out: each leaf
// appends to the columns it is the first leaf of (PathNode::first) and to its own, so the
// leaves of a field may be decoded concurrently; CheckAssembled then checks that they agree.
// Errors name the page; the caller adds file, row group and column.
Status DecodeColumnChunk(const uint8_t* data, size_t len, const ColumnMetaData& meta,
                         int64_t num_rows, const LeafColumn& leaf, const LeafPlan& plan,
                         Column* out, DecodeScratch* scratch);

// kCorruption when the leaves of a nested column assembled different structures (STRUCT
// members or MAP values not as long as the struct or the keys): a malformed file.
Status CheckAssembled(const Column& column);

// One data page located by the offset index: exactly its header and body.
struct PageSpan {
  const uint8_t* data = nullptr;
  size_t len = 0;
  int64_t rows = 0;  // rows the offset index gives the page
  size_t index = 0;  // its position in the offset index (for messages)
};

// Decodes some data pages of a chunk and appends their rows (in order) to *out: `head` holds the
// chunk's bytes before its first data page (the dictionary page, when there is one; may be
// empty), `pages` the pages to decode. kCorruption when a page holds another number of rows than
// the offset index says (or does not start a row), or `head` holds a data page.
Status DecodeColumnPages(const uint8_t* head, size_t head_len, const std::vector<PageSpan>& pages,
                         const ColumnMetaData& meta, const LeafColumn& leaf, const LeafPlan& plan,
                         Column* out, DecodeScratch* scratch);

// Decodes the chunk of a flat column (a top-level primitive field: one leaf, no repetition) a
// few pages at a time, for reading a row group in batches: a page is decoded once, its
// dictionary once per chunk.
class FlatChunkStream {
 public:
  // `chunk` holds the whole column chunk (from its first page) of a row group of `num_rows`
  // rows; `meta` and `leaf` must outlive the stream. kInternal for a leaf that is not flat.
  static Result<std::unique_ptr<FlatChunkStream>> Make(ByteBuffer chunk, const ColumnMetaData& meta,
                                                       int64_t num_rows, const LeafColumn& leaf,
                                                       const LeafPlan& plan);
  ~FlatChunkStream();
  // The chunk's next `rows` rows, as a column of the leaf's type (replacing *out). Errors name
  // the page; kCorruption when the chunk ends before them.
  Status Next(int64_t rows, Column* out);
  // Data pages decoded so far.
  int64_t data_pages() const;

 private:
  struct Impl;
  explicit FlatChunkStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tarn::parquet

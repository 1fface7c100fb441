// Parquet file metadata: plain C++ mirrors of the structs in parquet.thrift that tarn reads and
// writes, with the Thrift field ids noted. Optional Thrift fields are std::optional (or empty
// containers). Decoding is defensive: untrusted bytes produce kCorruption, never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tarn/buffer.h"
#include "tarn/status.h"

namespace tarn::parquet {

enum class Type : int32_t {
  BOOLEAN = 0,
  INT32 = 1,
  INT64 = 2,
  INT96 = 3,
  FLOAT = 4,
  DOUBLE = 5,
  BYTE_ARRAY = 6,
  FIXED_LEN_BYTE_ARRAY = 7,
};

enum class ConvertedType : int32_t {
  UTF8 = 0,
  MAP = 1,
  MAP_KEY_VALUE = 2,
  LIST = 3,
  ENUM = 4,
  DECIMAL = 5,
  DATE = 6,
  TIME_MILLIS = 7,
  TIME_MICROS = 8,
  TIMESTAMP_MILLIS = 9,
  TIMESTAMP_MICROS = 10,
  UINT_8 = 11,
  UINT_16 = 12,
  UINT_32 = 13,
  UINT_64 = 14,
  INT_8 = 15,
  INT_16 = 16,
  INT_32 = 17,
  INT_64 = 18,
  JSON = 19,
  BSON = 20,
  INTERVAL = 21,
};

enum class Repetition : int32_t { REQUIRED = 0, OPTIONAL = 1, REPEATED = 2 };

enum class Encoding : int32_t {
  PLAIN = 0,
  PLAIN_DICTIONARY = 2,
  RLE = 3,
  BIT_PACKED = 4,
  DELTA_BINARY_PACKED = 5,
  DELTA_LENGTH_BYTE_ARRAY = 6,
  DELTA_BYTE_ARRAY = 7,
  RLE_DICTIONARY = 8,
  BYTE_STREAM_SPLIT = 9,
};

enum class Codec : int32_t {
  UNCOMPRESSED = 0,
  SNAPPY = 1,
  GZIP = 2,
  LZO = 3,
  BROTLI = 4,
  LZ4 = 5,
  ZSTD = 6,
  LZ4_RAW = 7,
};

enum class PageType : int32_t {
  DATA_PAGE = 0,
  INDEX_PAGE = 1,
  DICTIONARY_PAGE = 2,
  DATA_PAGE_V2 = 3
};

enum class TimeUnitKind : int32_t { MILLIS = 1, MICROS = 2, NANOS = 3 };  // TimeUnit union ids

// LogicalType union (field id of the set member in `kind`).
struct LogicalType {
  enum Kind : int32_t {
    NONE = 0,
    STRING = 1,
    MAP = 2,
    LIST = 3,
    ENUM = 4,
    DECIMAL = 5,
    DATE = 6,
    TIME = 7,
    TIMESTAMP = 8,
    INTEGER = 10,
    UNKNOWN = 11,
    JSON = 12,
    BSON = 13,
    UUID = 14,
    FLOAT16 = 15,
    VARIANT = 16,  // annotates a group of `metadata` and `value` (VariantEncoding.md)
  };
  Kind kind = NONE;
  int32_t decimal_scale = 0;                 // DecimalType 1
  int32_t decimal_precision = 0;             // DecimalType 2
  bool is_adjusted_to_utc = false;           // TimeType/TimestampType 1
  TimeUnitKind unit = TimeUnitKind::MICROS;  // TimeType/TimestampType 2
  int8_t bit_width = 0;                      // IntType 1
  bool is_signed = true;                     // IntType 2
  std::optional<int8_t> variant_version;     // VariantType 1 (specification_version)
};

struct SchemaElement {
  std::optional<Type> type;                     // 1
  std::optional<int32_t> type_length;           // 2
  std::optional<Repetition> repetition_type;    // 3
  std::string name;                             // 4
  std::optional<int32_t> num_children;          // 5
  std::optional<ConvertedType> converted_type;  // 6
  std::optional<int32_t> scale;                 // 7
  std::optional<int32_t> precision;             // 8
  std::optional<int32_t> field_id;              // 9
  std::optional<LogicalType> logical_type;      // 10
};

struct Statistics {
  std::optional<std::string> max;          // 1 (deprecated, signed order)
  std::optional<std::string> min;          // 2
  std::optional<int64_t> null_count;       // 3
  std::optional<int64_t> distinct_count;   // 4
  std::optional<std::string> max_value;    // 5
  std::optional<std::string> min_value;    // 6
  std::optional<bool> is_max_value_exact;  // 7
  std::optional<bool> is_min_value_exact;  // 8
};

struct KeyValue {
  std::string key;                   // 1
  std::optional<std::string> value;  // 2
};

struct PageEncodingStats {
  PageType page_type = PageType::DATA_PAGE;  // 1
  Encoding encoding = Encoding::PLAIN;       // 2
  int32_t count = 0;                         // 3
};

struct ColumnMetaData {
  Type type = Type::BOOLEAN;                      // 1
  std::vector<Encoding> encodings;                // 2
  std::vector<std::string> path_in_schema;        // 3
  Codec codec = Codec::UNCOMPRESSED;              // 4
  int64_t num_values = 0;                         // 5
  int64_t total_uncompressed_size = 0;            // 6
  int64_t total_compressed_size = 0;              // 7
  std::vector<KeyValue> key_value_metadata;       // 8
  int64_t data_page_offset = 0;                   // 9
  std::optional<int64_t> index_page_offset;       // 10
  std::optional<int64_t> dictionary_page_offset;  // 11
  std::optional<Statistics> statistics;           // 12
  std::vector<PageEncodingStats> encoding_stats;  // 13
  std::optional<int64_t> bloom_filter_offset;     // 14
  std::optional<int32_t> bloom_filter_length;     // 15
};

struct ColumnChunk {
  std::optional<std::string> file_path;        // 1
  int64_t file_offset = 0;                     // 2
  std::optional<ColumnMetaData> meta_data;     // 3 (required unless encrypted)
  std::optional<int64_t> offset_index_offset;  // 4
  std::optional<int32_t> offset_index_length;  // 5
  std::optional<int64_t> column_index_offset;  // 6
  std::optional<int32_t> column_index_length;  // 7
};

struct SortingColumn {
  int32_t column_idx = 0;    // 1
  bool descending = false;   // 2
  bool nulls_first = false;  // 3
};

struct RowGroup {
  std::vector<ColumnChunk> columns;              // 1
  int64_t total_byte_size = 0;                   // 2
  int64_t num_rows = 0;                          // 3
  std::vector<SortingColumn> sorting_columns;    // 4
  std::optional<int64_t> file_offset;            // 5
  std::optional<int64_t> total_compressed_size;  // 6
  std::optional<int16_t> ordinal;                // 7
};

struct FileMetaData {
  int32_t version = 0;                       // 1
  std::vector<SchemaElement> schema;         // 2 (depth-first, root first)
  int64_t num_rows = 0;                      // 3
  std::vector<RowGroup> row_groups;          // 4
  std::vector<KeyValue> key_value_metadata;  // 5
  std::optional<std::string> created_by;     // 6
  bool column_orders_type_defined = false;   // 7 (all TYPE_ORDER when set)
  bool encrypted = false;                    // 8 present: tarn refuses to read
};

struct DataPageHeader {
  int32_t num_values = 0;                              // 1
  Encoding encoding = Encoding::PLAIN;                 // 2
  Encoding definition_level_encoding = Encoding::RLE;  // 3
  Encoding repetition_level_encoding = Encoding::RLE;  // 4
  std::optional<Statistics> statistics;                // 5
};

struct DictionaryPageHeader {
  int32_t num_values = 0;               // 1
  Encoding encoding = Encoding::PLAIN;  // 2
  std::optional<bool> is_sorted;        // 3
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;                     // 1
  int32_t num_nulls = 0;                      // 2
  int32_t num_rows = 0;                       // 3
  Encoding encoding = Encoding::PLAIN;        // 4
  int32_t definition_levels_byte_length = 0;  // 5
  int32_t repetition_levels_byte_length = 0;  // 6
  bool is_compressed = true;                  // 7 (default true)
  std::optional<Statistics> statistics;       // 8
};

struct PageHeader {
  PageType type = PageType::DATA_PAGE;                         // 1
  int32_t uncompressed_page_size = 0;                          // 2
  int32_t compressed_page_size = 0;                            // 3
  std::optional<int32_t> crc;                                  // 4
  std::optional<DataPageHeader> data_page_header;              // 5
  std::optional<DictionaryPageHeader> dictionary_page_header;  // 7
  std::optional<DataPageHeaderV2> data_page_header_v2;         // 8
};

// Page index (parquet.thrift; PageIndex.md of parquet-format): per column chunk, one entry per
// data page. Written after the row groups, before the footer; located by the ColumnChunk's
// offset_index_* and column_index_* fields.
enum class BoundaryOrder : int32_t { UNORDERED = 0, ASCENDING = 1, DESCENDING = 2 };

struct PageLocation {
  int64_t offset = 0;                // 1: of the page header in the file
  int32_t compressed_page_size = 0;  // 2: header + compressed body
  int64_t first_row_index = 0;       // 3: within the row group
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;  // 1
  // 2 (unencoded_byte_array_data_bytes) is skipped.
};

struct ColumnIndex {
  std::vector<bool> null_pages;                             // 1: the page holds only nulls
  std::vector<std::string> min_values;                      // 2: empty for null pages
  std::vector<std::string> max_values;                      // 3
  BoundaryOrder boundary_order = BoundaryOrder::UNORDERED;  // 4
  std::optional<std::vector<int64_t>> null_counts;          // 5
  // 6..8 (level histograms, nan_counts) are skipped.
};

// Decodes a FileMetaData from `len` bytes (the footer without its length and magic).
Result<FileMetaData> DecodeFileMetaData(const uint8_t* data, size_t len);
// Decodes a PageHeader from at most `len` bytes; sets *header_len to the bytes it used.
Result<PageHeader> DecodePageHeader(const uint8_t* data, size_t len, size_t* header_len);
// Decode a ColumnIndex / OffsetIndex from exactly the `len` bytes the ColumnChunk names
// (kCorruption for malformed bytes or a required field missing; list sizes that cannot fit in
// `len` are refused before anything is allocated).
Result<ColumnIndex> DecodeColumnIndex(const uint8_t* data, size_t len);
Result<OffsetIndex> DecodeOffsetIndex(const uint8_t* data, size_t len);
// Appends the Thrift compact encoding to *out.
void EncodeFileMetaData(const FileMetaData& md, ByteBuffer* out);
void EncodePageHeader(const PageHeader& header, ByteBuffer* out);
void EncodeColumnIndex(const ColumnIndex& index, ByteBuffer* out);
void EncodeOffsetIndex(const OffsetIndex& index, ByteBuffer* out);

const char* TypeName(Type t);
const char* EncodingName(Encoding e);
const char* CodecName(Codec c);
const char* ConvertedTypeName(ConvertedType c);
std::string LogicalTypeName(const LogicalType& t);  // "DECIMAL(10,2)", "TIMESTAMP(MICROS,true)"

}  // namespace tarn::parquet

// Parquet split block bloom filters (parquet-format BloomFilter.md): the filter, its sizing, the
// hashes of values, and its bytes in a file (a Thrift BloomFilterHeader, then the bitset, at
// ColumnMetaData.bloom_filter_offset).
//
// A filter is z blocks of 256 bits (eight 32-bit words, little-endian in the file). A value's
// hash is XXH64 (seed 0) of its PLAIN encoding (fixed-width values little-endian, byte arrays
// without their length prefix); its upper 32 bits pick the block ((h >> 32) * z >> 32), its
// lower 32 bits times eight salts pick one bit per word. "Absent" is certain; "present" is
// right but for the false-positive rate the filter was sized for.
//
// Thread safety: a BloomFilter is safe to read from several threads; the builder is not.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/io.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "tarn/buffer.h"
#include "tarn/column.h"
#include "tarn/status.h"

namespace tarn::parquet {

// The smallest filter (one block) and the largest tarn writes or reads (the spec's bound).
inline constexpr int64_t kBloomFilterMinBytes = 32;
inline constexpr int64_t kBloomFilterMaxBytes = int64_t{128} << 20;

struct BloomFilterOptions {
  double fpp = 0.01;                         // false-positive probability aimed at
  int64_t max_bytes = kBloomFilterMaxBytes;  // a chunk's filter never exceeds this
};

// Bytes of a filter holding `ndv` distinct values at false-positive probability `fpp`: the
// spec's -8 * ndv / ln(1 - fpp^(1/8)) bits, rounded up to a power of two and kept within
// [kBloomFilterMinBytes, max_bytes] (max_bytes rounded down to a power of two).
int64_t BloomFilterBytes(int64_t ndv, double fpp, int64_t max_bytes = kBloomFilterMaxBytes);

class BloomFilter {
 public:
  // An empty filter of `num_bytes` (a multiple of 32, at least 32; asserted).
  explicit BloomFilter(int64_t num_bytes);
  // A filter over the bitset bytes of a file. kCorruption unless the size is a multiple of 32
  // within [kBloomFilterMinBytes, kBloomFilterMaxBytes].
  static Result<BloomFilter> FromBitset(const uint8_t* data, size_t n);

  void Insert(uint64_t hash);
  // False only when no value with this hash was inserted.
  bool MightContain(uint64_t hash) const;

  int64_t num_bytes() const { return static_cast<int64_t>(words_.size()) * 4; }
  // The bitset as the file stores it.
  void AppendBitset(ByteBuffer* out) const;

 private:
  std::vector<uint32_t> words_;  // 8 per block
};

// The hash a filter keeps for a physical value (INT32, INT64, FLOAT, DOUBLE; BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY as their bytes).
uint64_t BloomHash(int32_t v);
uint64_t BloomHash(int64_t v);
uint64_t BloomHash(float v);
uint64_t BloomHash(double v);
uint64_t BloomHash(std::string_view v);

// Whether a column of tarn type `type` can carry a bloom filter: flat and not BOOLEAN.
bool BloomFilterSupports(const DataType& type);

// Whether the filter of `leaf` can be asked about values of `type`: the leaf is what tarn's
// writer makes of `type` (same physical type and width), so a value's PLAIN bytes are known.
bool BloomFilterApplies(const DataType& type, const LeafColumn& leaf);

// Whether `filter` may hold row `row` (not null) of the flat column `values`, its value stored
// as tarn's writer stores the column's type (schema.h). True when the value cannot be ruled
// out: a NaN, or a type BloomFilterSupports refuses. A floating-point zero is looked up as +0
// and -0 (they compare equal).
bool BloomFilterMightContain(const BloomFilter& filter, const Column& values, int64_t row);

// Collects the hashes of a column chunk's values; Finish makes the chunk's filter, sized for
// the distinct hashes seen. Memory: 8 bytes per distinct value, at most twice that between
// deduplications.
class BloomFilterBuilder {
 public:
  explicit BloomFilterBuilder(BloomFilterOptions options) : options_(options) {}
  template <typename V>
  void Add(const V* values, int64_t n) {
    for (int64_t i = 0; i < n; ++i) hashes_.push_back(BloomHash(values[i]));
    if (hashes_.size() >= next_dedup_) Deduplicate();
  }
  // The filter of the values added since the last Finish; starts over.
  BloomFilter Finish();

 private:
  void Deduplicate();

  BloomFilterOptions options_;
  std::vector<uint64_t> hashes_;
  size_t next_dedup_ = kFirstDedup;
  static constexpr size_t kFirstDedup = size_t{1} << 16;
};

// Appends a filter as a file stores it: its BloomFilterHeader (numBytes, BLOCK, XXHASH,
// UNCOMPRESSED) then its bitset.
void EncodeBloomFilter(const BloomFilter& filter, ByteBuffer* out);

// The filter of a column chunk, read from `file` at meta.bloom_filter_offset (one read when
// bloom_filter_length is set, else the header then the bitset); nullopt when the chunk has
// none. kCorruption for offsets or lengths outside the file, a malformed header or a bitset
// size outside [32 bytes, 128 MiB] or not a multiple of 32 (refused before allocating);
// kInvalidArgument for an algorithm, hash or compression other than BLOCK, XXHASH and
// UNCOMPRESSED; read errors as they come.
Result<std::optional<BloomFilter>> ReadBloomFilter(const RandomAccessFile& file,
                                                   const ColumnMetaData& meta);

}  // namespace tarn::parquet

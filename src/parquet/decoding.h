// Parquet value and level decoders over untrusted page bytes.
//
// Each decoder reads a bounded byte range and writes into caller-provided memory sized for the
// values requested. Malformed input is kCorruption; nothing reads or writes out of bounds.
// Bit-packed data is unpacked eight values at a time with the width known at compile time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tarn/buffer.h"
#include "tarn/status.h"

namespace tarn::parquet {

// Largest decoded size (bytes) of the variable-width values of one page, so that a small page
// cannot expand (through prefixes or dictionaries) into an allocation that fells the process.
inline constexpr int64_t kMaxDecodedBinaryBytes = int64_t{1} << 31;

// Bits needed to represent `max_value` (0 for 0).
inline int BitWidthOf(uint64_t max_value) {
  return max_value == 0 ? 0 : 64 - __builtin_clzll(max_value);
}

// Unpacks `n` values of `bit_width` bits, packed LSB-first as in the RLE/bit-packed hybrid,
// from `in` (`in_len` readable bytes, at least ceil(n * bit_width / 8)). bit_width <= 32 for the
// narrow outputs (values are truncated to the output type), <= 64 for uint64_t.
void UnpackBits(const uint8_t* in, size_t in_len, int bit_width, uint8_t* out, int64_t n);
void UnpackBits(const uint8_t* in, size_t in_len, int bit_width, int16_t* out, int64_t n);
void UnpackBits(const uint8_t* in, size_t in_len, int bit_width, uint32_t* out, int64_t n);
void UnpackBits(const uint8_t* in, size_t in_len, int bit_width, uint64_t* out, int64_t n);

// Decoder for the RLE/bit-packed hybrid encoding (levels, dictionary indices, RLE booleans),
// without a length prefix. Not thread-safe.
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  // bit_width must be 0..32 (checked by the caller).
  RleBitPackedDecoder(const uint8_t* data, size_t len, int bit_width)
      : pos_(data), end_(data + len), bit_width_(bit_width) {}

  // Decodes up to n values; returns how many were decoded: fewer than n only when the data
  // ends (or a run header is malformed). RLE values wider than the output type are truncated.
  template <typename T>
  int64_t GetBatch(T* out, int64_t n);

 private:
  bool NextRun();

  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  int bit_width_ = 0;
  int64_t rle_left_ = 0;
  uint32_t rle_value_ = 0;
  int64_t bp_left_ = 0;               // values left in the current bit-packed run
  const uint8_t* bp_data_ = nullptr;  // the run's bytes
  size_t bp_bytes_ = 0;
  int64_t bp_index_ = 0;  // next value's index within the run
};

// Legacy BIT_PACKED levels (MSB-first packing, no runs): `n` values from ceil(n*w/8) bytes.
Status DecodeBitPackedLegacy(const uint8_t* data, size_t len, int bit_width, int16_t* out,
                             int64_t n);

// PLAIN BOOLEAN: n bit-packed values into 0/1 bytes. *consumed = ceil(n/8).
Status DecodePlainBoolean(const uint8_t* data, size_t len, int64_t n, uint8_t* out,
                          size_t* consumed);

// PLAIN BYTE_ARRAY: n length-prefixed values appended to *out_data; one end offset per value
// appended to *offsets (whose last element must be out_data->size()). *consumed = bytes used.
Status DecodePlainByteArray(const uint8_t* data, size_t len, int64_t n, ByteBuffer* out_data,
                            std::vector<int64_t>* offsets, size_t* consumed);

// DELTA_BINARY_PACKED: the first n values of the stream into out (T = int32_t or int64_t;
// arithmetic wraps like the encoder's). kCorruption if the stream holds fewer than n values.
// *consumed is the length of the whole stream in bytes, including values past n.
template <typename T>
Status DecodeDeltaBinaryPacked(const uint8_t* data, size_t len, int64_t n, T* out,
                               size_t* consumed);

// DELTA_LENGTH_BYTE_ARRAY: n values appended like DecodePlainByteArray. `scratch` is reused.
Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t len, int64_t n, ByteBuffer* out_data,
                                  std::vector<int64_t>* offsets, std::vector<int32_t>* scratch,
                                  size_t* consumed);

// DELTA_BYTE_ARRAY: n values (prefix of the previous value + suffix) appended like
// DecodePlainByteArray. The first value of a page has no predecessor.
Status DecodeDeltaByteArray(const uint8_t* data, size_t len, int64_t n, ByteBuffer* out_data,
                            std::vector<int64_t>* offsets, std::vector<int32_t>* scratch);

// BYTE_STREAM_SPLIT: n values of `width` bytes from `width` streams of n bytes each.
Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int width, int64_t n, uint8_t* out);

// Gathers n dictionary entries of fixed width (1, 2, 4, 8 or 16 bytes) by index into out.
// kCorruption naming the index if one is >= dict_size.
Status GatherFixed(int width, const uint8_t* dict, uint32_t dict_size, const uint32_t* indices,
                   int64_t n, uint8_t* out);

// Gathers n variable-width dictionary entries (dict_data/dict_offsets as in a Column) and
// appends them like DecodePlainByteArray. kCorruption for an index out of range.
Status GatherBinary(const uint8_t* dict_data, const int64_t* dict_offsets, uint32_t dict_size,
                    const uint32_t* indices, int64_t n, ByteBuffer* out_data,
                    std::vector<int64_t>* offsets);

}  // namespace tarn::parquet

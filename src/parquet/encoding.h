// Parquet value and level encoders used by the writer: PLAIN, the RLE/bit-packed hybrid (levels
// and dictionary indices), dictionary builders, DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT.
// Every encoder appends to a ByteBuffer and works on whole arrays (no per-value calls).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "tarn/buffer.h"

namespace tarn::parquet {

// Bits needed to represent v (0 for 0).
inline int BitWidth(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// Appends the RLE/bit-packed hybrid encoding of n values (each < 2^bit_width, bit_width <= 32),
// without a length prefix. Runs of 8 or more equal values become RLE runs; the rest is written
// as bit-packed groups of 8 (the last group padded with zeros). T is uint8_t, uint16_t or
// uint32_t.
template <typename T>
void EncodeRleBitPacked(const T* values, int64_t n, int bit_width, ByteBuffer* out);

// Data page v1 levels: a 4-byte little-endian length, then the hybrid encoding.
void EncodeLevelsV1(const uint8_t* levels, int64_t n, int bit_width, ByteBuffer* out);

// Packs n 0/1 bytes as bits, LSB first (PLAIN BOOLEAN and bit-packed levels of width 1).
void PlainEncodeBooleans(const uint8_t* values, int64_t n, ByteBuffer* out);

// PLAIN for INT32/INT64/FLOAT/DOUBLE: the little-endian bytes of each value.
template <typename T>
inline void PlainEncodeFixed(const T* values, int64_t n, ByteBuffer* out) {
  size_t at = out->size();
  out->resize(at + n * sizeof(T));
  if (n > 0) std::memcpy(out->data() + at, values, n * sizeof(T));
}

// PLAIN BYTE_ARRAY: 4-byte little-endian length, then the bytes, per value.
void PlainEncodeByteArrays(const std::string_view* values, int64_t n, ByteBuffer* out);
// PLAIN FIXED_LEN_BYTE_ARRAY: the bytes of each value (all of the same length).
void PlainEncodeFixedLenByteArrays(const std::string_view* values, int64_t n, ByteBuffer* out);

// DELTA_BINARY_PACKED (blocks of 128 values, 4 miniblocks). T is int32_t or int64_t.
template <typename T>
void EncodeDeltaBinaryPacked(const T* values, int64_t n, ByteBuffer* out);
// DELTA_LENGTH_BYTE_ARRAY: delta-packed lengths, then the concatenated bytes.
void EncodeDeltaLengthByteArray(const std::string_view* values, int64_t n, ByteBuffer* out);
// BYTE_STREAM_SPLIT for values of `width` bytes each (FLOAT, DOUBLE, INT32, INT64, FLBA).
void EncodeByteStreamSplit(const uint8_t* values, int64_t n, int width, ByteBuffer* out);

// A dictionary of fixed-width values compared by their bits (so NaN payloads and -0.0 keep
// their identity). Bits is uint32_t (INT32, FLOAT) or uint64_t (INT64, DOUBLE).
template <typename Bits>
class FixedDictionary {
 public:
  FixedDictionary();
  // Maps each value to its index (new values are appended to the dictionary).
  void Put(const Bits* values, int64_t n, uint32_t* indices);
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  // Size of the PLAIN-encoded dictionary page body.
  int64_t plain_bytes() const { return size() * static_cast<int64_t>(sizeof(Bits)); }
  const Bits* values() const { return values_.data(); }
  void WritePlain(ByteBuffer* out) const { PlainEncodeFixed(values_.data(), size(), out); }
  void Clear();

 private:
  void Grow();
  std::vector<Bits> values_;
  std::vector<uint32_t> slots_;  // index + 1, 0 = empty
  int shift_ = 0;
};

// A dictionary of byte strings (BYTE_ARRAY, or FIXED_LEN_BYTE_ARRAY when fixed_len > 0). Values
// are copied into the dictionary's own storage.
class BytesDictionary {
 public:
  explicit BytesDictionary(int fixed_len = 0);
  void Put(const std::string_view* values, int64_t n, uint32_t* indices);
  int64_t size() const { return static_cast<int64_t>(offsets_.size()) - 1; }
  int64_t plain_bytes() const;
  std::string_view Get(int64_t i) const {
    return {reinterpret_cast<const char*>(data_.data()) + offsets_[i],
            static_cast<size_t>(offsets_[i + 1] - offsets_[i])};
  }
  void WritePlain(ByteBuffer* out) const;
  void Clear();

 private:
  struct Slot {
    uint32_t index_plus_one;
    uint32_t hash;
  };
  void Grow();
  int fixed_len_;
  ByteBuffer data_;
  std::vector<int64_t> offsets_;
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
};

// A 64-bit hash of a byte string (not cryptographic; for hash tables).
uint64_t HashBytes(const void* data, size_t n);

}  // namespace tarn::parquet

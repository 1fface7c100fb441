// Thrift compact protocol decoding over untrusted bytes, for the Parquet footer and page headers.
//
// Every read is bounds-checked against the remaining bytes. Reads return false on failure and
// the reader keeps the first error (status() is then kCorruption naming what is wrong and at
// which byte); after a failure every further read fails too. Unknown fields of any type are
// skipped with a nesting limit; list and map sizes that cannot fit in the remaining bytes are
// refused before anything is allocated.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "tarn/status.h"

namespace tarn::parquet {

// Compact protocol wire types.
enum ThriftType : uint8_t {
  kThriftStop = 0,
  kThriftTrue = 1,  // a bool field whose value is true (in a list: a bool element)
  kThriftFalse = 2,
  kThriftByte = 3,
  kThriftI16 = 4,
  kThriftI32 = 5,
  kThriftI64 = 6,
  kThriftDouble = 7,
  kThriftBinary = 8,
  kThriftList = 9,
  kThriftSet = 10,
  kThriftMap = 11,
  kThriftStruct = 12,
  kThriftUuid = 13,
};

class ThriftReader {
 public:
  // Maximum nesting of structs/lists/maps below a value being skipped.
  static constexpr int kMaxDepth = 32;

  ThriftReader(const uint8_t* data, size_t len) : begin_(data), pos_(data), end_(data + len) {}

  size_t position() const { return static_cast<size_t>(pos_ - begin_); }
  size_t remaining() const { return static_cast<size_t>(end_ - pos_); }
  bool ok() const { return !failed_; }
  // OK, or the first failure as kCorruption.
  Status status() const;

  // Reads a struct field header. *last_id is the previous field id of this struct (start at 0).
  // At the end of the struct *type is kThriftStop.
  bool ReadFieldHeader(int16_t* last_id, int16_t* id, uint8_t* type) {
    if (pos_ >= end_) return Truncated("field header");
    const uint8_t b = *pos_++;
    *type = b & 0x0f;
    if (*type == kThriftStop) {
      *id = 0;
      return true;
    }
    const int delta = b >> 4;
    if (delta != 0) {
      const int next = *last_id + delta;
      if (next > INT16_MAX) return Fail("field id overflows i16");
      *id = static_cast<int16_t>(next);
    } else {
      int64_t v;
      if (!ReadZigZag(&v)) return false;
      if (v < INT16_MIN || v > INT16_MAX) return Fail("field id out of i16 range");
      *id = static_cast<int16_t>(v);
    }
    if (*type > kThriftUuid) return FailWireType(*type);
    *last_id = *id;
    return true;
  }

  bool ReadVarint(uint64_t* out) {
    if (pos_ < end_ && *pos_ < 0x80) {  // one-byte fast path
      *out = *pos_++;
      return true;
    }
    return ReadVarintSlow(out);
  }

  bool ReadZigZag(int64_t* out) {
    uint64_t u;
    if (!ReadVarint(&u)) return false;
    *out = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }

  bool ReadI64(int64_t* out) { return ReadZigZag(out); }
  bool ReadI32(int32_t* out) {
    int64_t v;
    if (!ReadZigZag(&v)) return false;
    if (v < INT32_MIN || v > INT32_MAX) return Fail("i32 value out of range");
    *out = static_cast<int32_t>(v);
    return true;
  }
  bool ReadI16(int16_t* out) {
    int64_t v;
    if (!ReadZigZag(&v)) return false;
    if (v < INT16_MIN || v > INT16_MAX) return Fail("i16 value out of range");
    *out = static_cast<int16_t>(v);
    return true;
  }
  bool ReadByte(int8_t* out) {
    if (pos_ >= end_) return Truncated("byte");
    *out = static_cast<int8_t>(*pos_++);
    return true;
  }
  bool ReadDouble(double* out) {
    if (remaining() < 8) return Truncated("double");
    std::memcpy(out, pos_, 8);
    pos_ += 8;
    return true;
  }
  // A binary/string value: a view into the input bytes.
  bool ReadBinary(std::string_view* out) {
    uint64_t n;
    if (!ReadVarint(&n)) return false;
    if (n > remaining()) return FailLength("binary", n);
    *out = std::string_view(reinterpret_cast<const char*>(pos_), n);
    pos_ += n;
    return true;
  }
  bool ReadString(std::string* out) {
    std::string_view v;
    if (!ReadBinary(&v)) return false;
    out->assign(v.data(), v.size());
    return true;
  }
  // A list (or set) header. Refuses a size that cannot fit in the remaining bytes.
  bool ReadListHeader(uint8_t* elem_type, uint32_t* size);
  // A map header; *key_type/*value_type are only meaningful when *size > 0.
  bool ReadMapHeader(uint8_t* key_type, uint8_t* value_type, uint32_t* size);

  // Skips the value of a struct field of wire type `type` (any nesting up to kMaxDepth). A bool
  // field's value is in its header, so there is nothing to skip.
  bool SkipField(uint8_t type) {
    if (type == kThriftTrue || type == kThriftFalse) return true;
    return SkipValue(type, 0);
  }
  // Skips the n elements of a list (or set) whose header was read, of element type `elem_type`.
  bool SkipElements(uint8_t elem_type, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
      if (!SkipValue(elem_type, 1)) return false;
    }
    return true;
  }

  // Records `what` as the error (unless one is recorded already) and returns false.
  [[gnu::cold]] bool Fail(std::string what);
  [[gnu::cold]] bool Truncated(const char* what);
  // A known field arrived with an unexpected wire type.
  [[gnu::cold]] bool FailFieldType(const char* field, uint8_t actual, uint8_t want);

 private:
  bool ReadVarintSlow(uint64_t* out);
  bool SkipValue(uint8_t type, int depth);
  [[gnu::cold]] bool FailWireType(uint8_t type);
  [[gnu::cold]] bool FailLength(const char* what, uint64_t n);

  const uint8_t* begin_;
  const uint8_t* pos_;
  const uint8_t* end_;
  bool failed_ = false;
  std::string error_;
};

// Whether a field's wire type is `want` (bool fields accept both bool types, lists sets).
inline bool WireTypeMatches(uint8_t actual, uint8_t want) {
  return actual == want || (want == kThriftTrue && actual == kThriftFalse) ||
         (want == kThriftList && actual == kThriftSet);
}

// Checks the wire type of a known field (see WireTypeMatches).
inline bool ExpectWireType(ThriftReader& r, uint8_t actual, uint8_t want, const char* field) {
  if (WireTypeMatches(actual, want)) return true;
  return r.FailFieldType(field, actual, want);
}

}  // namespace tarn::parquet

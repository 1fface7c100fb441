// Thrift compact protocol encoder: the subset Parquet metadata needs (structs, lists, i8..i64,
// bool, binary). Field ids are delta-encoded against the previous field of the same struct.
#pragma once

#include <cstdint>
#include <string_view>

#include "tarn/buffer.h"

namespace tarn::parquet::thrift {

// Compact protocol type codes (the low nibble of a field header and of a list header).
enum class CType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

// Appends compact-protocol bytes to a ByteBuffer. The caller writes the fields of a struct in
// increasing id order (not required by the protocol, but keeps headers to one byte) and closes
// every struct it opens. The outermost struct is implicit: call End() once at the very end.
// Nesting deeper than kMaxDepth is a programmer error (asserted).
class CompactWriter {
 public:
  static constexpr int kMaxDepth = 32;

  explicit CompactWriter(ByteBuffer* out) : out_(out) {}

  void I8(int16_t id, int8_t v);
  void I16(int16_t id, int16_t v);
  void I32(int16_t id, int32_t v);
  void I64(int16_t id, int64_t v);
  void Bool(int16_t id, bool v);
  void Binary(int16_t id, std::string_view v);

  // Opens a struct-valued field; close it with End().
  void BeginStruct(int16_t id);
  // Writes the stop byte of the innermost open struct and returns to its parent.
  void End();

  // Opens a list field of `size` elements of type `elem`; then write the elements with the
  // List* calls (struct elements: BeginListStruct() ... End()).
  void BeginList(int16_t id, CType elem, uint32_t size);
  void ListI32(int32_t v) { ZigZagVarint(v); }
  void ListI64(int64_t v) { ZigZagVarint(v); }
  void ListBinary(std::string_view v);
  // A bool element (list element type kBoolTrue): 1 for true, 2 for false, as the Java and C++
  // Thrift libraries write it.
  void ListBool(bool v) { Byte(static_cast<uint8_t>(v ? CType::kBoolTrue : CType::kBoolFalse)); }
  void BeginListStruct();

  // Primitive encodings, exposed for tests.
  void Varint(uint64_t v);
  void ZigZagVarint(int64_t v) {
    Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }

 private:
  void FieldHeader(int16_t id, CType type);
  void Byte(uint8_t b) { out_->push_back(b); }

  ByteBuffer* out_;
  int16_t last_id_ = 0;
  int depth_ = 0;
  int16_t saved_ids_[kMaxDepth] = {};
};

}  // namespace tarn::parquet::thrift

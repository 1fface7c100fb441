// Avro's binary encoding: values of a schema to bytes and back. The primitives are exposed for the
// container file's framing (block counts and sizes, the metadata map).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "avro/schema.h"
#include "avro/value.h"
#include "tarn/buffer.h"
#include "tarn/status.h"

namespace tarn::avro {

// A long (and an int): zigzag, then a base-128 varint, low groups first.
void AppendLong(int64_t v, ByteBuffer* out);
// IEEE 754, little-endian.
void AppendFloat(float v, ByteBuffer* out);
void AppendDouble(double v, ByteBuffer* out);
// A long length, then the bytes (bytes and string).
void AppendBytes(std::string_view bytes, ByteBuffer* out);

// Appends the encoding of `value` as type `schema`. kInvalidArgument (and *out as it was) when
// the value does not match the schema: another type, a union branch or enum index out of range,
// a fixed of another size, a record of another field count, a string or map key not UTF-8.
// Arrays and maps are written as one block of a positive count (none when empty) and the 0 end.
Status Encode(const Value& value, const Node& schema, ByteBuffer* out);

// Reads values from bytes it does not own. Every read checks the bytes left, so truncated or
// malformed input is kCorruption naming what is wrong (never a read past the end, a crash, or an
// allocation the input cannot back): a varint over 10 bytes (5 for an int) or past 64 (32) bits,
// a negative length, a length past the end, a boolean byte other than 0 and 1, a union branch
// or enum index out of range, a string that is not UTF-8, a block whose byte size disagrees with
// its items, values nested deeper than 1,000 levels (a recursive schema). Not thread-safe.
class Decoder {
 public:
  Decoder(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  Result<int64_t> ReadLong();
  Result<int32_t> ReadInt();
  Result<bool> ReadBoolean();
  Result<float> ReadFloat();
  Result<double> ReadDouble();
  // A length-prefixed byte string; the view points into the decoder's input.
  Result<std::string_view> ReadBytes();
  // `n` raw bytes (fixed); the view points into the decoder's input.
  Result<std::string_view> ReadFixed(size_t n);

  // Reads one value of type `schema` into *out.
  Status Read(const Node& schema, Value* out);

  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  // How many array items of types that may encode as no bytes this decoder may still produce
  // (2^20 at first): a container reader carries it from one block's decoder to the next.
  int64_t empty_items_left() const { return empty_items_left_; }
  void set_empty_items_left(int64_t n) { empty_items_left_ = n; }
  const uint8_t* position() const { return p_; }

 private:
  Status ReadValue(const Node& n, Value* out, int depth);
  // The item count of the next array or map block (0: the end); checks a negative count's byte
  // size, whose end *block_end receives (nullptr when the block did not give one).
  Status ReadBlockCount(bool items_may_encode_empty, int64_t* count, const uint8_t** block_end);

  const uint8_t* p_;
  const uint8_t* end_;
  // Array items whose encoding may be empty (nulls) that this decoder may still produce: the
  // bytes cannot bound their count, so this does.
  int64_t empty_items_left_ = int64_t{1} << 20;
};

}  // namespace tarn::avro

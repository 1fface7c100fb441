#include "parquet/thrift_writer.h"

#include <cassert>

namespace tarn::parquet::thrift {

void CompactWriter::Varint(uint64_t v) {
  uint8_t buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<uint8_t>(v) | 0x80;
    v >>= 7;
  }
  buf[n++] = static_cast<uint8_t>(v);
  out_->insert(out_->end(), buf, buf + n);
}

void CompactWriter::FieldHeader(int16_t id, CType type) {
  int delta = id - last_id_;
  if (delta > 0 && delta <= 15) {
    Byte(static_cast<uint8_t>(delta << 4) | static_cast<uint8_t>(type));
  } else {
    Byte(static_cast<uint8_t>(type));
    ZigZagVarint(id);
  }
  last_id_ = id;
}

void CompactWriter::I8(int16_t id, int8_t v) {
  FieldHeader(id, CType::kByte);
  Byte(static_cast<uint8_t>(v));
}

void CompactWriter::I16(int16_t id, int16_t v) {
  FieldHeader(id, CType::kI16);
  ZigZagVarint(v);
}

void CompactWriter::I32(int16_t id, int32_t v) {
  FieldHeader(id, CType::kI32);
  ZigZagVarint(v);
}

void CompactWriter::I64(int16_t id, int64_t v) {
  FieldHeader(id, CType::kI64);
  ZigZagVarint(v);
}

void CompactWriter::Bool(int16_t id, bool v) {
  FieldHeader(id, v ? CType::kBoolTrue : CType::kBoolFalse);
}

void CompactWriter::Binary(int16_t id, std::string_view v) {
  FieldHeader(id, CType::kBinary);
  ListBinary(v);
}

void CompactWriter::ListBinary(std::string_view v) {
  Varint(v.size());
  out_->insert(out_->end(), v.begin(), v.end());
}

void CompactWriter::BeginStruct(int16_t id) {
  FieldHeader(id, CType::kStruct);
  BeginListStruct();
}

void CompactWriter::BeginListStruct() {
  assert(depth_ < kMaxDepth);
  saved_ids_[depth_++] = last_id_;
  last_id_ = 0;
}

void CompactWriter::End() {
  Byte(static_cast<uint8_t>(CType::kStop));
  if (depth_ > 0) last_id_ = saved_ids_[--depth_];
}

void CompactWriter::BeginList(int16_t id, CType elem, uint32_t size) {
  FieldHeader(id, CType::kList);
  if (size < 15) {
    Byte(static_cast<uint8_t>(size << 4) | static_cast<uint8_t>(elem));
  } else {
    Byte(0xF0 | static_cast<uint8_t>(elem));
    Varint(size);
  }
}

}  // namespace tarn::parquet::thrift

#include "parquet/thrift_reader.h"

namespace tarn::parquet {

Status ThriftReader::status() const {
  if (!failed_) return Status::OK();
  return Status::Corruption("thrift: " + error_);
}

bool ThriftReader::Fail(std::string what) {
  if (!failed_) {
    failed_ = true;
    error_ = std::move(what) + " at byte " + std::to_string(position());
  }
  pos_ = end_;  // every later read fails
  return false;
}

bool ThriftReader::Truncated(const char* what) { return Fail(std::string("truncated ") + what); }

bool ThriftReader::FailFieldType(const char* field, uint8_t actual, uint8_t want) {
  return Fail(std::string("field ") + field + " has wire type " + std::to_string(actual) +
              ", expected " + std::to_string(want));
}

bool ThriftReader::FailWireType(uint8_t type) {
  return Fail("unknown wire type " + std::to_string(type));
}

bool ThriftReader::FailLength(const char* what, uint64_t n) {
  return Fail(std::string(what) + " length " + std::to_string(n) + " past the end");
}

bool ThriftReader::ReadVarintSlow(uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= end_) return Truncated("varint");
    const uint8_t b = *pos_++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return Fail("varint longer than 10 bytes");
}

bool ThriftReader::ReadListHeader(uint8_t* elem_type, uint32_t* size) {
  if (pos_ >= end_) return Truncated("list header");
  const uint8_t b = *pos_++;
  *elem_type = b & 0x0f;
  uint64_t n = b >> 4;
  if (n == 15 && !ReadVarint(&n)) return false;
  if (*elem_type == kThriftStop || *elem_type > kThriftUuid) {
    if (n == 0) {
      *size = 0;
      return true;
    }
    return Fail("list of unknown element type " + std::to_string(*elem_type));
  }
  // Every element takes at least one byte (a double eight, a uuid sixteen).
  const uint64_t min_bytes = *elem_type == kThriftDouble ? 8 : *elem_type == kThriftUuid ? 16 : 1;
  if (n > remaining() / min_bytes) {
    return Fail("list of " + std::to_string(n) + " elements cannot fit in " +
                std::to_string(remaining()) + " bytes");
  }
  *size = static_cast<uint32_t>(n);
  return true;
}

bool ThriftReader::ReadMapHeader(uint8_t* key_type, uint8_t* value_type, uint32_t* size) {
  uint64_t n;
  if (!ReadVarint(&n)) return false;
  *size = 0;
  *key_type = *value_type = kThriftStop;
  if (n == 0) return true;
  if (pos_ >= end_) return Truncated("map header");
  const uint8_t b = *pos_++;
  *key_type = b >> 4;
  *value_type = b & 0x0f;
  if (*key_type == kThriftStop || *key_type > kThriftUuid || *value_type == kThriftStop ||
      *value_type > kThriftUuid) {
    return Fail("map of unknown key or value type");
  }
  if (n > remaining() / 2) {
    return Fail("map of " + std::to_string(n) + " entries cannot fit in " +
                std::to_string(remaining()) + " bytes");
  }
  *size = static_cast<uint32_t>(n);
  return true;
}

bool ThriftReader::SkipValue(uint8_t type, int depth) {
  switch (type) {
    case kThriftTrue:
    case kThriftFalse:
      // Only list, set and map elements get here (struct fields carry bools in their header):
      // one byte each.
    case kThriftByte:
      if (pos_ >= end_) return Truncated("byte");
      ++pos_;
      return true;
    case kThriftI16:
    case kThriftI32:
    case kThriftI64: {
      uint64_t v;
      return ReadVarint(&v);
    }
    case kThriftDouble:
      if (remaining() < 8) return Truncated("double");
      pos_ += 8;
      return true;
    case kThriftUuid:
      if (remaining() < 16) return Truncated("uuid");
      pos_ += 16;
      return true;
    case kThriftBinary: {
      std::string_view v;
      return ReadBinary(&v);
    }
    case kThriftStruct: {
      if (depth >= kMaxDepth) return Fail("nesting deeper than " + std::to_string(kMaxDepth));
      int16_t last = 0;
      for (;;) {
        int16_t id = 0;
        uint8_t t = 0;
        if (!ReadFieldHeader(&last, &id, &t)) return false;
        if (t == kThriftStop) return true;
        if (t == kThriftTrue || t == kThriftFalse) continue;  // value held in the header
        if (!SkipValue(t, depth + 1)) return false;
      }
    }
    case kThriftList:
    case kThriftSet: {
      if (depth >= kMaxDepth) return Fail("nesting deeper than " + std::to_string(kMaxDepth));
      uint8_t et;
      uint32_t n = 0;
      if (!ReadListHeader(&et, &n)) return false;
      for (uint32_t i = 0; i < n; ++i) {
        if (!SkipValue(et, depth + 1)) return false;
      }
      return true;
    }
    case kThriftMap: {
      if (depth >= kMaxDepth) return Fail("nesting deeper than " + std::to_string(kMaxDepth));
      uint8_t kt, vt;
      uint32_t n = 0;
      if (!ReadMapHeader(&kt, &vt, &n)) return false;
      for (uint32_t i = 0; i < n; ++i) {
        if (!SkipValue(kt, depth + 1) || !SkipValue(vt, depth + 1)) return false;
      }
      return true;
    }
    default:
      return Fail("cannot skip unknown wire type " + std::to_string(type));
  }
}

}  // namespace tarn::parquet

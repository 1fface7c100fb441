#include "avro/encoding.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "avro/avro_internal.h"

namespace tarn::avro {

namespace {

using internal::Mismatch;

Status Corrupt(std::string msg) { return Status::Corruption("avro: " + msg); }

void AppendLittleEndian(uint64_t bits, int n, ByteBuffer* out) {
  for (int i = 0; i < n; ++i) out->push_back(static_cast<uint8_t>(bits >> (8 * i)));
}

uint64_t ReadLittleEndian(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

Status EncodeValue(const Value& v, const Node& n, ByteBuffer* out, int depth) {
  if (depth > internal::kMaxValueDepth)
    return Status::InvalidArgument("avro: value nested too deeply");
  if (n.type == Type::kUnion) {
    TARN_ASSIGN_OR_RETURN(const Node* branch, internal::UnionBranch(v, n));
    const Union& u = v.as<Union>();
    AppendLong(u.branch, out);
    return EncodeValue(*u.value, *branch, out, depth + 1);
  }
  if (v.type() != n.type) return Mismatch(v, n);
  switch (n.type) {
    case Type::kNull:
      return Status::OK();
    case Type::kBoolean:
      out->push_back(v.as<bool>() ? 1 : 0);
      return Status::OK();
    case Type::kInt:
      AppendLong(v.as<int32_t>(), out);
      return Status::OK();
    case Type::kLong:
      AppendLong(v.as<int64_t>(), out);
      return Status::OK();
    case Type::kFloat:
      AppendFloat(v.as<float>(), out);
      return Status::OK();
    case Type::kDouble:
      AppendDouble(v.as<double>(), out);
      return Status::OK();
    case Type::kBytes:
      AppendBytes(v.as<Bytes>().data, out);
      return Status::OK();
    case Type::kString: {
      const std::string& s = v.as<std::string>();
      if (!internal::ValidUtf8(s)) return Status::InvalidArgument("avro: a string not UTF-8");
      AppendBytes(s, out);
      return Status::OK();
    }
    case Type::kFixed: {
      const std::string& d = v.as<Fixed>().data;
      if (static_cast<int64_t>(d.size()) != n.size) {
        return Status::InvalidArgument("avro: a fixed value of " + std::to_string(d.size()) +
                                       " bytes for " + n.name + " of " + std::to_string(n.size));
      }
      out->insert(out->end(), d.begin(), d.end());
      return Status::OK();
    }
    case Type::kEnum: {
      int32_t i = v.as<Enum>().index;
      if (i < 0 || static_cast<size_t>(i) >= n.symbols.size()) {
        return Status::InvalidArgument("avro: enum index " + std::to_string(i) + " of " + n.name);
      }
      AppendLong(i, out);
      return Status::OK();
    }
    case Type::kRecord: {
      const Record& r = v.as<Record>();
      if (r.fields.size() != n.fields.size()) {
        return Status::InvalidArgument("avro: a record of " + std::to_string(r.fields.size()) +
                                       " fields for " + n.name + " of " +
                                       std::to_string(n.fields.size()));
      }
      for (size_t i = 0; i < r.fields.size(); ++i) {
        Status s = EncodeValue(r.fields[i], *n.fields[i].type, out, depth + 1);
        if (!s.ok()) return s.WithContext(n.name + "." + n.fields[i].name);
      }
      return Status::OK();
    }
    case Type::kArray: {
      const auto& items = v.as<Array>().items;
      if (!items.empty()) {
        AppendLong(static_cast<int64_t>(items.size()), out);
        for (const Value& item : items) {
          TARN_RETURN_NOT_OK(EncodeValue(item, *n.items, out, depth + 1));
        }
      }
      out->push_back(0);
      return Status::OK();
    }
    case Type::kMap: {
      const auto& entries = v.as<Map>().entries;
      if (!entries.empty()) {
        AppendLong(static_cast<int64_t>(entries.size()), out);
        for (const auto& [key, item] : entries) {
          if (!internal::ValidUtf8(key)) {
            return Status::InvalidArgument("avro: a map key not UTF-8");
          }
          AppendBytes(key, out);
          TARN_RETURN_NOT_OK(EncodeValue(item, *n.values, out, depth + 1));
        }
      }
      out->push_back(0);
      return Status::OK();
    }
    case Type::kUnion:
      break;
  }
  return Mismatch(v, n);
}

}  // namespace

void AppendLong(int64_t v, ByteBuffer* out) {
  uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (u >= 0x80) {
    out->push_back(static_cast<uint8_t>(u | 0x80));
    u >>= 7;
  }
  out->push_back(static_cast<uint8_t>(u));
}

void AppendFloat(float v, ByteBuffer* out) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  AppendLittleEndian(bits, 4, out);
}

void AppendDouble(double v, ByteBuffer* out) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  AppendLittleEndian(bits, 8, out);
}

void AppendBytes(std::string_view bytes, ByteBuffer* out) {
  AppendLong(static_cast<int64_t>(bytes.size()), out);
  out->insert(out->end(), bytes.begin(), bytes.end());
}

Status Encode(const Value& value, const Node& schema, ByteBuffer* out) {
  const size_t at = out->size();
  Status s = EncodeValue(value, schema, out, 0);
  if (!s.ok()) out->resize(at);
  return s;
}

Result<int64_t> Decoder::ReadLong() {
  uint64_t u = 0;
  for (int i = 0; i < 10; ++i) {
    if (p_ == end_) return Corrupt("truncated long");
    const uint8_t b = *p_++;
    if (i == 9 && b > 1) {
      return Corrupt(b & 0x80 ? "a long varint longer than 10 bytes"
                              : "a long varint past 64 bits");
    }
    u |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if (!(b & 0x80)) return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  return Corrupt("a long varint longer than 10 bytes");  // not reached: i == 9 returns
}

Result<int32_t> Decoder::ReadInt() {
  uint32_t u = 0;
  for (int i = 0; i < 5; ++i) {
    if (p_ == end_) return Corrupt("truncated int");
    const uint8_t b = *p_++;
    if (i == 4 && b > 0x0F) {
      return Corrupt(b & 0x80 ? "an int varint longer than 5 bytes" : "an int varint past 32 bits");
    }
    u |= static_cast<uint32_t>(b & 0x7F) << (7 * i);
    if (!(b & 0x80)) return static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  return Corrupt("an int varint longer than 5 bytes");
}

Result<bool> Decoder::ReadBoolean() {
  if (p_ == end_) return Corrupt("truncated boolean");
  const uint8_t b = *p_++;
  if (b > 1) return Corrupt("a boolean byte of " + std::to_string(b));
  return b == 1;
}

Result<float> Decoder::ReadFloat() {
  if (remaining() < 4) return Corrupt("truncated float");
  uint32_t bits = static_cast<uint32_t>(ReadLittleEndian(p_, 4));
  p_ += 4;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

Result<double> Decoder::ReadDouble() {
  if (remaining() < 8) return Corrupt("truncated double");
  uint64_t bits = ReadLittleEndian(p_, 8);
  p_ += 8;
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}

Result<std::string_view> Decoder::ReadBytes() {
  TARN_ASSIGN_OR_RETURN(int64_t n, ReadLong());
  if (n < 0) return Corrupt("a negative length (" + std::to_string(n) + ")");
  if (static_cast<uint64_t>(n) > remaining()) {
    return Corrupt("a length of " + std::to_string(n) + " past the end (" +
                   std::to_string(remaining()) + " bytes left)");
  }
  std::string_view out(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
  p_ += n;
  return out;
}

Result<std::string_view> Decoder::ReadFixed(size_t n) {
  if (n > remaining()) return Corrupt("truncated fixed of " + std::to_string(n) + " bytes");
  std::string_view out(reinterpret_cast<const char*>(p_), n);
  p_ += n;
  return out;
}

Status Decoder::Read(const Node& schema, Value* out) { return ReadValue(schema, out, 0); }

Status Decoder::ReadBlockCount(bool items_may_encode_empty, int64_t* count,
                               const uint8_t** block_end) {
  TARN_ASSIGN_OR_RETURN(int64_t c, ReadLong());
  *block_end = nullptr;
  if (c < 0) {
    if (c == std::numeric_limits<int64_t>::min()) return Corrupt("a block count out of range");
    c = -c;
    TARN_ASSIGN_OR_RETURN(int64_t size, ReadLong());
    if (size < 0) return Corrupt("a negative block size (" + std::to_string(size) + ")");
    if (static_cast<uint64_t>(size) > remaining()) {
      return Corrupt("a block size of " + std::to_string(size) + " past the end");
    }
    *block_end = p_ + size;
  }
  if (items_may_encode_empty) {
    if (c > empty_items_left_) return Corrupt("a block of " + std::to_string(c) + " empty items");
    empty_items_left_ -= c;
  } else if (static_cast<uint64_t>(c) > remaining()) {
    return Corrupt("a block of " + std::to_string(c) + " items in " + std::to_string(remaining()) +
                   " bytes");
  }
  *count = c;
  return Status::OK();
}

Status Decoder::ReadValue(const Node& n, Value* out, int depth) {
  if (depth > internal::kMaxValueDepth) {
    return Corrupt("values nested deeper than " + std::to_string(internal::kMaxValueDepth) +
                   " levels");
  }
  switch (n.type) {
    case Type::kNull:
      *out = Value();
      return Status::OK();
    case Type::kBoolean: {
      TARN_ASSIGN_OR_RETURN(bool b, ReadBoolean());
      *out = Value(b);
      return Status::OK();
    }
    case Type::kInt: {
      TARN_ASSIGN_OR_RETURN(int32_t i, ReadInt());
      *out = Value(i);
      return Status::OK();
    }
    case Type::kLong: {
      TARN_ASSIGN_OR_RETURN(int64_t i, ReadLong());
      *out = Value(i);
      return Status::OK();
    }
    case Type::kFloat: {
      TARN_ASSIGN_OR_RETURN(float f, ReadFloat());
      *out = Value(f);
      return Status::OK();
    }
    case Type::kDouble: {
      TARN_ASSIGN_OR_RETURN(double d, ReadDouble());
      *out = Value(d);
      return Status::OK();
    }
    case Type::kBytes: {
      TARN_ASSIGN_OR_RETURN(std::string_view b, ReadBytes());
      *out = Value(Bytes{std::string(b)});
      return Status::OK();
    }
    case Type::kString: {
      TARN_ASSIGN_OR_RETURN(std::string_view s, ReadBytes());
      if (!internal::ValidUtf8(s)) return Corrupt("a string that is not UTF-8");
      *out = Value(std::string(s));
      return Status::OK();
    }
    case Type::kFixed: {
      TARN_ASSIGN_OR_RETURN(std::string_view f, ReadFixed(static_cast<size_t>(n.size)));
      *out = Value(Fixed{std::string(f)});
      return Status::OK();
    }
    case Type::kEnum: {
      TARN_ASSIGN_OR_RETURN(int32_t i, ReadInt());
      if (i < 0 || static_cast<size_t>(i) >= n.symbols.size()) {
        return Corrupt("enum index " + std::to_string(i) + " of " + n.name + " (" +
                       std::to_string(n.symbols.size()) + " symbols)");
      }
      *out = Value(Enum{i});
      return Status::OK();
    }
    case Type::kUnion: {
      TARN_ASSIGN_OR_RETURN(int64_t i, ReadLong());
      if (i < 0 || static_cast<uint64_t>(i) >= n.branches.size()) {
        return Corrupt("union branch " + std::to_string(i) + " of a union of " +
                       std::to_string(n.branches.size()));
      }
      Union u;
      u.branch = static_cast<int32_t>(i);
      TARN_RETURN_NOT_OK(ReadValue(*n.branches[i], u.value.get(), depth + 1));
      *out = Value(std::move(u));
      return Status::OK();
    }
    case Type::kRecord: {
      Record r;
      r.fields.resize(n.fields.size());
      for (size_t i = 0; i < n.fields.size(); ++i) {
        Status s = ReadValue(*n.fields[i].type, &r.fields[i], depth + 1);
        if (!s.ok()) return s.WithContext(n.name + "." + n.fields[i].name);
      }
      *out = Value(std::move(r));
      return Status::OK();
    }
    case Type::kArray: {
      Array a;
      while (true) {
        int64_t count = 0;
        const uint8_t* block_end = nullptr;
        TARN_RETURN_NOT_OK(ReadBlockCount(n.items->may_encode_empty, &count, &block_end));
        if (count == 0) break;
        if (a.items.empty()) a.items.reserve(std::min<int64_t>(count, 1 << 16));
        for (int64_t i = 0; i < count; ++i) {
          a.items.emplace_back();
          TARN_RETURN_NOT_OK(ReadValue(*n.items, &a.items.back(), depth + 1));
        }
        if (block_end && p_ != block_end) return Corrupt("an array block of the wrong size");
      }
      *out = Value(std::move(a));
      return Status::OK();
    }
    case Type::kMap: {
      Map m;
      while (true) {
        int64_t count = 0;
        const uint8_t* block_end = nullptr;
        TARN_RETURN_NOT_OK(ReadBlockCount(false, &count, &block_end));  // a key is >= 1 byte
        if (count == 0) break;
        if (m.entries.empty()) m.entries.reserve(std::min<int64_t>(count, 1 << 16));
        for (int64_t i = 0; i < count; ++i) {
          TARN_ASSIGN_OR_RETURN(std::string_view key, ReadBytes());
          if (!internal::ValidUtf8(key)) return Corrupt("a map key that is not UTF-8");
          m.entries.emplace_back(std::string(key), Value());
          TARN_RETURN_NOT_OK(ReadValue(*n.values, &m.entries.back().second, depth + 1));
        }
        if (block_end && p_ != block_end) return Corrupt("a map block of the wrong size");
      }
      *out = Value(std::move(m));
      return Status::OK();
    }
  }
  return Status::Internal("avro: a schema node of no known type");
}

}  // namespace tarn::avro

#include "types/variant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn {

namespace {

// Basic types (the low two bits of a value's first byte).
constexpr uint8_t kPrimitive = 0, kShortString = 1, kObject = 2, kArray = 3;

// Primitive type ids (the upper six bits when the basic type is kPrimitive).
enum Primitive : uint8_t {
  kNull = 0,
  kTrue = 1,
  kFalse = 2,
  kInt8 = 3,
  kInt16 = 4,
  kInt32 = 5,
  kInt64 = 6,
  kDouble = 7,
  kDecimal4 = 8,
  kDecimal8 = 9,
  kDecimal16 = 10,
  kDate = 11,
  kTimestampMicros = 12,
  kTimestampNtzMicros = 13,
  kFloat = 14,
  kBinary = 15,
  kString = 16,
  kTimeNtzMicros = 17,
  kTimestampNanos = 18,
  kTimestampNtzNanos = 19,
  kUuid = 20,
};

constexpr uint8_t kMetadataVersion = 1;

uint64_t ReadLE(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

template <typename T>
T ReadSigned(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // little-endian host
  return v;
}

Status Corrupt(const std::string& why) { return Status::Corruption("malformed VARIANT: " + why); }

// The metadata's dictionary of keys.
class Dictionary {
 public:
  Status Parse(std::string_view m) {
    const auto* p = reinterpret_cast<const uint8_t*>(m.data());
    if (m.empty()) return Corrupt("empty metadata");
    const uint8_t header = p[0];
    if ((header & 0x0F) != kMetadataVersion) {
      return Corrupt("metadata version " + std::to_string(header & 0x0F) + ", not 1");
    }
    const bool sorted = (header >> 4) & 1;
    offset_size_ = ((header >> 6) & 3) + 1;
    const uint64_t avail = m.size() - 1;
    if (avail < static_cast<uint64_t>(offset_size_)) return Corrupt("metadata truncated");
    size_ = ReadLE(p + 1, offset_size_);
    const uint64_t offsets_bytes = (size_ + 1) * static_cast<uint64_t>(offset_size_);
    if (offsets_bytes > avail - offset_size_) {
      return Corrupt("metadata dictionary of " + std::to_string(size_) +
                     " keys is longer than its bytes");
    }
    offsets_ = p + 1 + offset_size_;
    const uint8_t* bytes = offsets_ + offsets_bytes;
    const uint64_t bytes_len = m.size() - (bytes - p);
    bytes_ = std::string_view(reinterpret_cast<const char*>(bytes), bytes_len);
    uint64_t prev = ReadLE(offsets_, offset_size_);
    if (prev != 0) return Corrupt("the first metadata offset is not 0");
    std::string_view last_key;
    for (uint64_t i = 1; i <= size_; ++i) {
      const uint64_t off = ReadLE(offsets_ + i * offset_size_, offset_size_);
      if (off < prev || off > bytes_len) return Corrupt("metadata offsets out of order or range");
      std::string_view key = bytes_.substr(prev, off - prev);
      if (!IsValidUtf8(key)) return Corrupt("metadata key " + std::to_string(i - 1) + " not UTF-8");
      if (sorted && i > 1 && !(last_key < key)) {
        return Corrupt("metadata says its keys are sorted and unique, and they are not");
      }
      last_key = key;
      prev = off;
    }
    if (prev != bytes_len) {
      return Corrupt(std::to_string(bytes_len - prev) + " bytes after the metadata dictionary");
    }
    return Status::OK();
  }

  uint64_t size() const { return size_; }
  std::string_view Key(uint64_t id) const {
    const uint64_t b = ReadLE(offsets_ + id * offset_size_, offset_size_);
    const uint64_t e = ReadLE(offsets_ + (id + 1) * offset_size_, offset_size_);
    return bytes_.substr(b, e - b);
  }

 private:
  int offset_size_ = 1;
  uint64_t size_ = 0;
  const uint8_t* offsets_ = nullptr;
  std::string_view bytes_;
};

// Walks one value, checking it, and appends its JSON to out_ when out_ is set.
class Decoder {
 public:
  Decoder(const Dictionary& dict, std::string* out) : dict_(dict), out_(out) {}

  // The value starting at p, which must end at or before `end`; *size is its length.
  Status Value(const uint8_t* p, const uint8_t* end, int depth, uint64_t* size) {
    if (p >= end) return Corrupt("a value has no bytes");
    const uint64_t avail = static_cast<uint64_t>(end - p);
    const uint8_t basic = p[0] & 3;
    const uint8_t header = p[0] >> 2;
    if (basic == kShortString) {
      *size = 1 + static_cast<uint64_t>(header);
      if (*size > avail) return Corrupt("a short string is longer than its bytes");
      return Text(p + 1, header);
    }
    if (basic == kPrimitive) return PrimitiveValue(p, avail, header, size);
    if (depth >= kMaxVariantDepth) {
      return Corrupt("nested deeper than " + std::to_string(kMaxVariantDepth) + " levels");
    }
    const bool object = basic == kObject;
    const int offset_size = (header & 3) + 1;
    const int id_size = object ? ((header >> 2) & 3) + 1 : 0;
    const bool large = object ? (header >> 4) & 1 : (header >> 2) & 1;
    const int count_size = large ? 4 : 1;
    const char* what = object ? "an object" : "an array";
    if (avail < 1u + count_size) return Corrupt(std::string(what) + " is truncated");
    const uint64_t n = ReadLE(p + 1, count_size);
    const uint64_t head = 1 + count_size + n * id_size + (n + 1) * offset_size;
    if (head > avail)
      return Corrupt(std::string(what) + " of " + std::to_string(n) +
                     " elements is longer than its bytes");
    const uint8_t* ids = p + 1 + count_size;
    const uint8_t* offsets = ids + n * id_size;
    const uint8_t* fields = p + head;
    const uint64_t fields_len = ReadLE(offsets + n * offset_size, offset_size);
    if (fields_len > avail - head) {
      return Corrupt(std::string(what) + "'s values are longer than its bytes");
    }
    const uint8_t* fields_end = fields + fields_len;
    Append(object ? "{" : "[");
    std::string_view prev_key;
    for (uint64_t i = 0; i < n; ++i) {
      if (i > 0) Append(",");
      if (object) {
        const uint64_t id = ReadLE(ids + i * id_size, id_size);
        if (id >= dict_.size()) {
          return Corrupt("field id " + std::to_string(id) + " outside the dictionary of " +
                         std::to_string(dict_.size()) + " keys");
        }
        std::string_view key = dict_.Key(id);
        if (i > 0 && !(prev_key < key)) {
          return Corrupt("object keys are not sorted and unique ('" + std::string(key) + "')");
        }
        prev_key = key;
        if (out_) {
          AppendJsonString(key, out_);
          out_->push_back(':');
        }
      }
      const uint64_t off = ReadLE(offsets + i * offset_size, offset_size);
      if (off >= fields_len) return Corrupt(std::string(what) + "'s value offset past its end");
      uint64_t child = 0;
      TARN_RETURN_NOT_OK(Value(fields + off, fields_end, depth + 1, &child));
    }
    Append(object ? "}" : "]");
    *size = head + fields_len;
    return Status::OK();
  }

 private:
  void Append(std::string_view s) {
    if (out_) out_->append(s);
  }

  Status Text(const uint8_t* p, uint64_t n) {
    std::string_view s(reinterpret_cast<const char*>(p), n);
    if (!IsValidUtf8(s)) return Corrupt("a string is not UTF-8");
    if (out_) AppendJsonString(s, out_);
    return Status::OK();
  }

  template <typename F>
  void Float(F v) {
    if (!out_) return;
    if (std::isnan(v)) {
      out_->append("\"NaN\"");
    } else if (std::isinf(v)) {
      out_->append(v < 0 ? "\"-Infinity\"" : "\"Infinity\"");
    } else if (v == 0 && std::signbit(v)) {
      out_->append("-0.0");  // "-0" would read back as the integer 0
    } else if constexpr (sizeof(F) == 4) {
      AppendFloat32(v, out_);
    } else {
      AppendFloat64(v, out_);
    }
  }

  Status PrimitiveValue(const uint8_t* p, uint64_t avail, uint8_t type, uint64_t* size) {
    // Bytes after the type byte, by type (binary and string: the 4-byte length).
    static constexpr int8_t kWidth[] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17,
                                        4, 8, 8, 4, 4, 4, 8, 8, 8, 16};
    if (type >= sizeof(kWidth)) return Corrupt("unknown primitive type " + std::to_string(type));
    const uint64_t width = static_cast<uint64_t>(kWidth[type]);
    if (1 + width > avail)
      return Corrupt("a primitive of type " + std::to_string(type) + " is truncated");
    *size = 1 + width;
    const uint8_t* v = p + 1;
    std::string text;  // canonical text of the types rendered as strings
    switch (static_cast<Primitive>(type)) {
      case kNull:
        Append("null");
        return Status::OK();
      case kTrue:
        Append("true");
        return Status::OK();
      case kFalse:
        Append("false");
        return Status::OK();
      case kInt8:
        if (out_) AppendInt64(static_cast<int8_t>(v[0]), out_);
        return Status::OK();
      case kInt16:
        if (out_) AppendInt64(ReadSigned<int16_t>(v), out_);
        return Status::OK();
      case kInt32:
        if (out_) AppendInt64(ReadSigned<int32_t>(v), out_);
        return Status::OK();
      case kInt64:
        if (out_) AppendInt64(ReadSigned<int64_t>(v), out_);
        return Status::OK();
      case kDouble:
        Float(ReadSigned<double>(v));
        return Status::OK();
      case kFloat:
        Float(ReadSigned<float>(v));
        return Status::OK();
      case kDecimal4:
      case kDecimal8:
      case kDecimal16: {
        const int scale = v[0];
        if (scale > 38) return Corrupt("decimal scale " + std::to_string(scale) + " above 38");
        int128 unscaled = type == kDecimal4   ? ReadSigned<int32_t>(v + 1)
                          : type == kDecimal8 ? ReadSigned<int64_t>(v + 1)
                                              : ReadSigned<int128>(v + 1);
        if (out_) AppendDecimal(unscaled, scale, out_);
        return Status::OK();
      }
      case kBinary:
      case kString: {
        const uint64_t n = ReadLE(v, 4);
        if (n > avail - 5) return Corrupt("a string or binary is longer than its bytes");
        *size = 5 + n;
        if (type == kString) return Text(v + 4, n);
        if (out_) {
          out_->push_back('"');
          AppendBase64(std::string_view(reinterpret_cast<const char*>(v + 4), n), out_);
          out_->push_back('"');
        }
        return Status::OK();
      }
      case kDate:
        AppendDate(ReadSigned<int32_t>(v), &text);
        break;
      case kTimeNtzMicros: {
        const int64_t t = ReadSigned<int64_t>(v);
        if (t < 0 || t >= int64_t{86400} * 1000000) return Corrupt("a time outside the day");
        AppendTime(t, TimeUnit::kMicro, &text);
        break;
      }
      case kTimestampMicros:
      case kTimestampNtzMicros:
        AppendTimestamp(ReadSigned<int64_t>(v), TimeUnit::kMicro, type == kTimestampMicros, &text);
        break;
      case kTimestampNanos:
      case kTimestampNtzNanos:
        AppendTimestamp(ReadSigned<int64_t>(v), TimeUnit::kNano, type == kTimestampNanos, &text);
        break;
      case kUuid:
        AppendUuid(v, &text);  // big-endian, the printed order
        break;
    }
    if (out_) {
      out_->push_back('"');
      out_->append(text);
      out_->push_back('"');
    }
    return Status::OK();
  }

  const Dictionary& dict_;
  std::string* out_;
};

Status Walk(std::string_view metadata, std::string_view value, std::string* out) {
  Dictionary dict;
  TARN_RETURN_NOT_OK(dict.Parse(metadata));
  const auto* p = reinterpret_cast<const uint8_t*>(value.data());
  uint64_t size = 0;
  TARN_RETURN_NOT_OK(Decoder(dict, out).Value(p, p + value.size(), 0, &size));
  if (size != value.size()) {
    return Corrupt(std::to_string(value.size() - size) + " bytes after the value");
  }
  return Status::OK();
}

// ---- Encoding ----

using Json = nlohmann::json;

// The fewest bytes (1..4) that hold `v`.
int BytesFor(uint64_t v) { return v < (1u << 8) ? 1 : v < (1u << 16) ? 2 : v < (1u << 24) ? 3 : 4; }

void PutLE(uint64_t v, int n, std::string* out) {
  for (int i = 0; i < n; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

class Encoder {
 public:
  explicit Encoder(const std::vector<std::string>& keys) : keys_(keys) {
    id_size_ = BytesFor(keys.empty() ? 0 : keys.size() - 1);
  }

  void Value(const Json& j, std::string* out) {
    switch (j.type()) {
      case Json::value_t::null:
      case Json::value_t::discarded:
        out->push_back(Byte(kNull));
        return;
      case Json::value_t::boolean:
        out->push_back(Byte(j.get<bool>() ? kTrue : kFalse));
        return;
      case Json::value_t::number_integer:
        Integer(j.get<int64_t>(), out);
        return;
      case Json::value_t::number_unsigned: {
        const uint64_t u = j.get<uint64_t>();
        if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          Integer(static_cast<int64_t>(u), out);
          return;
        }
        out->push_back(Byte(kDecimal16));  // exact, scale 0
        out->push_back(0);
        const int128 v = static_cast<int128>(u);
        out->append(reinterpret_cast<const char*>(&v), 16);
        return;
      }
      case Json::value_t::number_float: {
        out->push_back(Byte(kDouble));
        const double d = j.get<double>();
        out->append(reinterpret_cast<const char*>(&d), 8);
        return;
      }
      case Json::value_t::string: {
        const std::string& s = j.get_ref<const std::string&>();
        if (s.size() < 64) {
          out->push_back(static_cast<char>(s.size() << 2 | kShortString));
        } else {
          out->push_back(Byte(kString));
          PutLE(s.size(), 4, out);
        }
        out->append(s);
        return;
      }
      case Json::value_t::binary:  // not produced by the text parser
        out->push_back(Byte(kNull));
        return;
      case Json::value_t::array:
      case Json::value_t::object: {
        const bool object = j.is_object();
        const size_t n = j.size();
        std::string fields;
        std::vector<uint64_t> offsets;
        std::vector<uint64_t> ids;
        offsets.reserve(n + 1);
        for (auto it = j.begin(); it != j.end(); ++it) {  // objects: keys in byte order
          offsets.push_back(fields.size());
          if (object) ids.push_back(IdOf(it.key()));
          Value(*it, &fields);
        }
        offsets.push_back(fields.size());
        const int offset_size = BytesFor(fields.size());
        const bool large = n > 255;
        uint8_t header = static_cast<uint8_t>(offset_size - 1);
        if (object) {
          header |= static_cast<uint8_t>((id_size_ - 1) << 2 | (large ? 1 : 0) << 4);
        } else {
          header |= static_cast<uint8_t>((large ? 1 : 0) << 2);
        }
        out->push_back(static_cast<char>(header << 2 | (object ? kObject : kArray)));
        PutLE(n, large ? 4 : 1, out);
        for (uint64_t id : ids) PutLE(id, id_size_, out);
        for (uint64_t off : offsets) PutLE(off, offset_size, out);
        out->append(fields);
        return;
      }
    }
  }

 private:
  static char Byte(Primitive p) { return static_cast<char>(p << 2 | kPrimitive); }

  static void Integer(int64_t v, std::string* out) {
    if (v >= INT8_MIN && v <= INT8_MAX) {
      out->push_back(Byte(kInt8));
      out->push_back(static_cast<char>(v));
    } else if (v >= INT16_MIN && v <= INT16_MAX) {
      out->push_back(Byte(kInt16));
      PutLE(static_cast<uint64_t>(v), 2, out);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out->push_back(Byte(kInt32));
      PutLE(static_cast<uint64_t>(v), 4, out);
    } else {
      out->push_back(Byte(kInt64));
      PutLE(static_cast<uint64_t>(v), 8, out);
    }
  }

  uint64_t IdOf(const std::string& key) const {
    return static_cast<uint64_t>(std::lower_bound(keys_.begin(), keys_.end(), key) - keys_.begin());
  }

  const std::vector<std::string>& keys_;
  int id_size_ = 1;
};

// Every object key below `j`, once.
void CollectKeys(const Json& j, std::set<std::string>* keys) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      keys->insert(it.key());
      CollectKeys(*it, keys);
    }
  } else if (j.is_array()) {
    for (const Json& e : j) CollectKeys(e, keys);
  }
}

std::string Excerpt(std::string_view text) {
  return text.size() <= 64 ? std::string(text) : std::string(text.substr(0, 61)) + "...";
}

}  // namespace

Status ValidateVariant(std::string_view metadata, std::string_view value) {
  return Walk(metadata, value, nullptr);
}

Status AppendVariantJson(std::string_view metadata, std::string_view value, std::string* out) {
  const size_t at = out->size();
  Status st = Walk(metadata, value, out);
  if (!st.ok()) out->resize(at);
  return st;
}

Status EncodeVariantFromJson(std::string_view json, std::string* metadata, std::string* value) {
  // The parser's callback sees each value's depth: deeper ones are dropped and flagged, so
  // nothing below (CollectKeys, Encoder) recurses deeper than the limit.
  bool too_deep = false;
  Json::parser_callback_t depth_check = [&](int depth, Json::parse_event_t, Json&) {
    if (depth >= kMaxVariantDepth) too_deep = true;
    return !too_deep;
  };
  Json j = Json::parse(json.begin(), json.end(), depth_check, false);
  if (too_deep) {
    return Status::InvalidArgument("'" + Excerpt(json) + "' is not a VARIANT: nested deeper than " +
                                   std::to_string(kMaxVariantDepth) + " levels");
  }
  if (j.is_discarded()) {
    return Status::InvalidArgument("'" + Excerpt(json) + "' is not a VARIANT: not valid JSON");
  }
  std::set<std::string> key_set;
  CollectKeys(j, &key_set);
  std::vector<std::string> keys(key_set.begin(), key_set.end());  // byte order, unique
  uint64_t bytes = 0;
  for (const std::string& k : keys) bytes += k.size();
  const int offset_size = BytesFor(std::max<uint64_t>(keys.size(), bytes));
  metadata->clear();
  metadata->push_back(static_cast<char>(kMetadataVersion | 1 << 4 | (offset_size - 1) << 6));
  PutLE(keys.size(), offset_size, metadata);
  uint64_t off = 0;
  PutLE(0, offset_size, metadata);
  for (const std::string& k : keys) PutLE(off += k.size(), offset_size, metadata);
  for (const std::string& k : keys) metadata->append(k);
  value->clear();
  Encoder(keys).Value(j, value);
  return Status::OK();
}

}  // namespace tarn

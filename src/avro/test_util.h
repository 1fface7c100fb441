// Test helpers of src/avro: status assertions, bytes from hex, values by hand.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "avro/encoding.h"
#include "avro/schema.h"
#include "avro/value.h"
#include "common/hex.h"
#include "common/test_util.h"

namespace tarn::avro::testing {

inline std::string Hex(const ByteBuffer& b) {
  return HexEncode(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

// Bytes from hex text with optional spaces ("06 66 6f 6f").
inline ByteBuffer FromHex(std::string_view hex) {
  std::string compact;
  for (char c : hex) {
    if (c != ' ') compact.push_back(c);
  }
  auto bytes = HexDecode(compact);
  EXPECT_TRUE(bytes.has_value()) << hex;
  if (!bytes) return {};
  return ByteBuffer(bytes->begin(), bytes->end());
}

inline Schema MustParse(std::string_view json) {
  auto s = Schema::Parse(json);
  EXPECT_TRUE(s.ok()) << s.status().ToString() << "\n" << json;
  if (!s.ok()) std::abort();
  return *s;
}

inline Value Str(std::string s) { return Value(std::move(s)); }
inline Value Int(int32_t v) { return Value(v); }
inline Value Long(int64_t v) { return Value(v); }
inline Value Rec(std::vector<Value> fields) { return Value(Record{std::move(fields)}); }
inline Value Arr(std::vector<Value> items) { return Value(Array{std::move(items)}); }

// Decodes all of `bytes` as one value of `schema` (trailing bytes are an error here).
inline Result<Value> DecodeAll(const ByteBuffer& bytes, const Node& schema) {
  Decoder d(bytes.data(), bytes.size());
  Value v;
  TARN_RETURN_NOT_OK(d.Read(schema, &v));
  if (d.remaining() != 0) return Status::Corruption("trailing bytes");
  return v;
}

}  // namespace tarn::avro::testing

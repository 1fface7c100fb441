// What the files of src/avro share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "avro/schema.h"
#include "avro/value.h"
#include "common/utf8.h"
#include "tarn/status.h"

namespace tarn::avro::internal {

// Avro strings are UTF-8: checked on write and on read.
inline bool ValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    if (*p < 0x80) {
      ++p;
      continue;
    }
    int len = Utf8SequenceLength(p, end);
    if (len == 0) return false;
    p += len;
  }
  return true;
}

// How deep values may nest (encoding, decoding, JSON): far deeper than any real data.
inline constexpr int kMaxValueDepth = 1000;

// The refusal of `value` where `schema`'s type was expected.
inline Status Mismatch(const Value& value, const Node& schema) {
  std::string want = schema.type == Type::kUnion ? "a union" : std::string(TypeName(schema.type));
  if (!schema.name.empty()) want += " " + schema.name;
  return Status::InvalidArgument("avro: a " + std::string(TypeName(value.type())) +
                                 " value where the schema has " + want);
}

// The branch node of union value `v` of union `n`: kInvalidArgument when `v` is no union value
// or names a branch `n` lacks.
inline Result<const Node*> UnionBranch(const Value& v, const Node& n) {
  if (v.type() != Type::kUnion) return Mismatch(v, n);
  const Union& u = v.as<Union>();
  if (u.branch < 0 || static_cast<size_t>(u.branch) >= n.branches.size()) {
    return Status::InvalidArgument("avro: union branch " + std::to_string(u.branch) +
                                   " of a union of " + std::to_string(n.branches.size()));
  }
  return n.branches[static_cast<size_t>(u.branch)];
}

}  // namespace tarn::avro::internal

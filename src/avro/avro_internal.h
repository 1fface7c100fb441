// What the files of src/avro share.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/utf8.h"

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

}  // namespace tarn::avro::internal

#include "common/utf8.h"

namespace tarn {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t Utf8CodePointCount(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += !IsUtf8Continuation(c);
  return n;
}

size_t Utf8PrefixBytes(std::string_view s, size_t n, bool first_byte_starts) {
  size_t cps = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!IsUtf8Continuation(s[i]) || (i == 0 && first_byte_starts)) {
      if (cps == n) return i;
      ++cps;
    }
  }
  return s.size();
}

}  // namespace tarn

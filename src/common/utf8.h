// UTF-8: the one decoder (well-formed sequences only: no overlong forms, no surrogates, nothing
// above U+10FFFF) and the encoder shared by the parsers that decode escapes (JSON \u, XML &#...;).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tarn {

// Length (1..4) of the well-formed UTF-8 sequence at p (p < end), or 0 when it is ill-formed;
// then *bad_len (when given) is the length of its maximal ill-formed subpart, which Unicode's
// "U+FFFD substitution of maximal subparts" replaces by one U+FFFD.
inline int Utf8SequenceLength(const uint8_t* p, const uint8_t* end, int* bad_len = nullptr) {
  int ignored;
  if (!bad_len) bad_len = &ignored;
  const uint8_t lead = p[0];
  if (lead < 0x80) return 1;
  int len;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    if (lead == 0xE0) lo = 0xA0;  // no overlongs
    if (lead == 0xED) hi = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    if (lead == 0xF0) lo = 0x90;  // no overlongs
    if (lead == 0xF4) hi = 0x8F;  // <= U+10FFFF
  } else {
    *bad_len = 1;
    return 0;
  }
  for (int k = 1; k < len; ++k) {
    if (p + k >= end) {
      *bad_len = k;
      return 0;
    }
    const uint8_t b = p[k];
    const uint8_t min = k == 1 ? lo : 0x80;
    const uint8_t max = k == 1 ? hi : 0xBF;
    if (b < min || b > max) {
      *bad_len = k;
      return 0;
    }
  }
  return len;
}

// The same for s[i] (i < s.size()).
inline size_t Utf8SequenceAt(std::string_view s, size_t i) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  return static_cast<size_t>(Utf8SequenceLength(p + i, p + s.size()));
}

// The code point of the well-formed sequence of `len` bytes at p (from Utf8SequenceLength).
inline char32_t DecodeUtf8Sequence(const uint8_t* p, int len) {
  static constexpr uint8_t kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t cp = p[0] & kLeadMask[len];
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (p[k] & 0x3F);
  return cp;
}

// Appends the UTF-8 encoding of code point `cp` (at most 0x10FFFF; callers check) to `out`.
void AppendUtf8(uint32_t cp, std::string* out);

}  // namespace tarn
